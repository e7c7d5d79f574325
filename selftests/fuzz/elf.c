// SPDX-License-Identifier: GPL-2.0
/*
 * The ELF reader (user/lib/elf/) on any bytes: ispotd resolves, as root,
 * files that any user whose program it traces controls.  The input is
 * written to a file and read the ways the resolver reads an object:
 *
 *	elf_obj_load()		headers, .symtab/.dynsym with versions,
 *				.eh_frame(_hdr)'s functions (corpus:
 *				stripped_eh_frame, a stripped sample),
 *				sorted and deduplicated (and a debug file
 *				looked for when stripped, under an empty
 *				root)
 *	elf_resolve_file()	every function ("*"): offsets through the
 *				PT_LOADs, demangled names, the Go check
 *	elf_note_find()		the GNU build-id
 *	elf_usdt_list()		.note.stapsdt
 *	elf_resolve_block()	ispot:critical_begin/_end sites
 *
 * Each iteration is bounded by the input's size: every read is checked
 * against the file size (elf.h), so a header claiming gigabytes of
 * symbols costs nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_internal.h"
#include "fuzz_scratch.h"

static char dir[64], path[80];

static void cleanup(void)
{
	char sub[96];

	unlink(path);
	snprintf(sub, sizeof(sub), "%s/debug", dir);
	rmdir(sub);
	rmdir(dir);
}

/* The file lives in fuzz_scratch.h's directory. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char sub[96];

	(void)argc;
	(void)argv;
	fuzz_scratch_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/obj", dir);
	/* Separate debug files are looked for under an empty root only. */
	snprintf(sub, sizeof(sub), "%s/debug", dir);
	if (mkdir(sub, 0700))
		abort();
	elf_debuginfo_reset(strdup(sub));
	unsetenv("ISPOT_DEBUG_DIRS");
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_target_sym *syms = NULL;
	struct elf_usdt_probe *probes = NULL;
	unsigned char id[ELF_BUILD_ID_MAX];
	struct elf_block block;
	struct elf_file f;
	struct elf_obj *o;
	char err[512];
	size_t n = 0, i, len;
	FILE *out;

	out = fopen(path, "we");
	if (!out || fwrite(data, 1, size, out) != size || fclose(out))
		abort();

	if (!elf_obj_load(path, &o, err, sizeof(err))) {
		for (i = 1; i < o->nsyms; i++)
			if (o->syms[i - 1].value > o->syms[i].value)
				__builtin_trap();	/* sorted by value */
		for (i = 0; i < o->nsyms && i < 64; i++)
			elf_sym_demangled(o, &o->syms[i]);
		elf_obj_is_go(o);
		elf_obj_free(o);
	}
	if (!elf_resolve_file(path, "*", &syms, &n, err, sizeof(err))) {
		if (!n || !syms)
			__builtin_trap();	/* success is >= 1 entry */
		free(syms);
	}
	if (!elf_file_open(&f, path, err, sizeof(err))) {
		if (!elf_note_find(&f, "GNU", NT_GNU_BUILD_ID, id, sizeof(id),
				   &len) && len > 0xffffffffu)
			__builtin_trap();
		elf_file_close(&f);
	}
	if (!elf_usdt_list(path, &probes, &n, err, sizeof(err))) {
		for (i = 0; i < n; i++)
			if (strnlen(probes[i].provider, ELF_USDT_NAME_MAX) ==
			    ELF_USDT_NAME_MAX)
				__builtin_trap();
		free(probes);
	}
	if (!elf_resolve_block("critical", 0, path, &block, err,
			       sizeof(err)))
		elf_block_free(&block);
	return 0;
}
