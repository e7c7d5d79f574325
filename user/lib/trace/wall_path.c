// SPDX-License-Identifier: GPL-2.0
/*
 * An off-CPU stack as named functions; see wall_path.h.
 *
 * The stack is the module's (abi.rst, "Off-CPU stacks"): the user ip
 * where the thread entered the kernel, a frame-pointer walk, and the
 * first words of the stack.  The C library is built without frame
 * pointers, so the walk from inside it skips its caller; the raw words
 * still hold the return addresses of the calls that led there, innermost
 * first.  So the candidates are read in that order: the ip, then the
 * words, then the walk's frames.  A return address is looked up one byte
 * back, in the call instruction, as unwinders do: a call that ends its
 * function returns to the next one.  Raw words may hold stale addresses
 * too (a pointer to code stored on the stack); only those that fall in a
 * function a probe can time count, which keeps most of them out.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/wall_path.h"
#include "util/array.h"

void wall_names_init(struct wall_names *wn, struct elf_symbolizer *sz)
{
	memset(wn, 0, sizeof(*wn));
	wn->sz = sz;
}

void wall_names_free(struct wall_names *wn)
{
	hashmap_free(&wn->map);
	free(wn->infos);
	memset(wn, 0, sizeof(*wn));
}

/*
 * @addr named into *@out if it is in a function a probe can time: true.
 * Out of memory, it is named again the next time.
 */
static bool wall_name(struct wall_names *wn, uint64_t addr,
		      struct elf_addr_info *out)
{
	uint64_t v;
	bool named;

	if (hashmap_find(&wn->map, addr, &v)) {
		if (v == WALL_UNNAMED)
			return false;
		*out = wn->infos[v];
		return true;
	}
	named = !elf_symbolize(wn->sz, addr, out, NULL, 0) &&
		wall_probeable(out);
	if (!named) {
		hashmap_insert(&wn->map, addr, WALL_UNNAMED);
		return false;
	}
	if (!ARRAY_RESERVE(wn->infos, wn->cap, wn->nr + 1) &&
	    !hashmap_insert(&wn->map, addr, wn->nr))
		wn->infos[wn->nr++] = *out;
	return true;
}

bool wall_probeable(const struct elf_addr_info *info)
{
	/* An IFUNC symbol's code is its resolver, which runs once. */
	return info->kind == ELF_ADDR_SYMBOL && info->sym_type == STT_FUNC;
}

/* Object base names of the C and C++ runtimes and the loader. */
static const char *const runtime_prefix[] = {
	"libc.so", "libc-", "libpthread", "libstdc++", "libgcc_s", "ld-linux",
	"ld-", "libm.so", "libdl",
};

bool wall_runtime_object(const char *obj)
{
	const char *base = strrchr(obj, '/');
	size_t i;

	base = base ? base + 1 : obj;
	for (i = 0; i < sizeof(runtime_prefix) / sizeof(*runtime_prefix); i++)
		if (!strncmp(base, runtime_prefix[i],
			     strlen(runtime_prefix[i])))
			return true;
	return false;
}

/* Candidate @i of @s in the order above, UINT64_MAX past the last. */
static uint64_t candidate(const struct wallprof_sample *s, uint32_t i)
{
	if (i == 0)
		return s->ip;
	i--;
	if (i < s->nwords)
		return s->words[i] ? s->words[i] - 1 : 0;
	i -= s->nwords;
	if (i < s->nframes)
		return s->frames[i] ? s->frames[i] - 1 : 0;
	return UINT64_MAX;
}

size_t wall_path(struct wall_names *wn, const struct wallprof_sample *s,
		 struct elf_addr_info *out, size_t max)
{
	bool program = false;	/* the program's first frame was found */
	uint64_t addr;
	size_t n = 0;
	uint32_t i;

	for (i = 0; n < max && (addr = candidate(s, i)) != UINT64_MAX; i++) {
		bool a_word = i > 0 && i <= s->nwords;

		/*
		 * Most words are data (counts, pointers, stack addresses),
		 * and naming an address no mapping holds re-reads the maps:
		 * a word must be in code the snapshot knows.  (In the guest
		 * that re-read cost the profile of four waiting threads a
		 * second of the daemon's time in two.)
		 */
		if (!addr || (a_word && !elf_symbolizer_in_code(wn->sz, addr)) ||
		    !wall_name(wn, addr, &out[n]))
			continue;
		/*
		 * Past the program's first frame, the words' runtime
		 * addresses are stale ones, left by calls that returned; its
		 * own frames go on (a stack scan, where the C library's
		 * missing frame pointer left the walk lost).
		 */
		if (a_word && program &&
		    wall_runtime_object(out[n].obj))
			continue;
		if (!wall_runtime_object(out[n].obj))
			program = true;
		/* The walk often starts where the scan ended. */
		if (n && out[n].vaddr - out[n].sym_off ==
			 out[n - 1].vaddr - out[n - 1].sym_off &&
		    !strcmp(out[n].obj, out[n - 1].obj))
			continue;
		n++;
	}
	return n;
}
