// SPDX-License-Identifier: GPL-2.0
/*
 * Which functions a uprobe can be put on and fire (trace.h): x86 uprobes
 * refuse to single-step an instruction with a LOCK or a CS, DS, ES or SS
 * prefix, and a probe armed before the file is mapped is then dropped
 * without a word; ispotctl refuses such a function, ispotd leaves it out
 * and --auto never picks it, all in the words of one function.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf.h"
#include "trace/trace.h"

bool trace_sym_steppable(const struct elf_target_sym *sym)
{
	static const unsigned char bad[] = { 0x26, 0x2e, 0x36, 0x3e, 0xf0 };
	static const unsigned char harmless[] = {
		0x64, 0x65, 0x66, 0x67, 0xf2, 0xf3,
	};
	unsigned char b[15];
	ssize_t n, i;
	int fd = elf_open_regular(sym->obj, NULL, NULL, 0);

	if (fd < 0)
		return true;
	n = pread(fd, b, sizeof(b), (off_t)sym->offset);
	close(fd);
	/*
	 * The legacy prefixes come first, in any order: the kernel's
	 * is_prefix_bad() refuses LOCK and the ES, CS, SS and DS overrides.
	 * A REX prefix comes last; a LOCK after it is still one (the REX is
	 * then ignored), and the kernel, reading it as the opcode, refuses
	 * it too (good_insns_64).
	 */
	for (i = 0; i < n; i++) {
		if (memchr(bad, b[i], sizeof(bad)))
			return false;
		if (!memchr(harmless, b[i], sizeof(harmless)))
			break;
	}
	return !(i + 1 < n && (b[i] & 0xf0) == 0x40 &&
		 memchr(bad, b[i + 1], sizeof(bad)));
}

void trace_unsteppable_why(char *buf, size_t len, const char *name,
			   size_t more, const char *spec)
{
	char others[256] = "";

	if (more)
		snprintf(others, sizeof(others), " (and %zu more of '%.200s')",
			 more, spec);
	snprintf(buf, len, "'%s'%s starts with an instruction uprobes cannot "
		 "step over (a LOCK or segment prefix), so its probe would "
		 "never fire: probe its callers", name, others);
}
