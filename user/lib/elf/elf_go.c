// SPDX-License-Identifier: GPL-2.0
/*
 * Go programs, where return probes are refused.
 *
 * A uretprobe works by replacing the return address on the stack with a
 * trampoline's and restoring it when the trampoline runs.  Go starts each
 * goroutine on a small stack and, when it grows, copies it elsewhere and
 * fixes up the return addresses it knows; the trampoline's is not one of
 * them, so the goroutine returns into nowhere and the program dies (SIGILL
 * or SIGSEGV).  bcc and bpftrace users have hit this since 2017
 * (iovisor/bcc#1320, golang/go#22008): it cannot be fixed on the tracer's
 * side short of stopping the program, so ispot says so up front instead of
 * crashing the target.  Entry probes are safe.
 */
#include <errno.h>
#include <string.h>

#include "elf/elf_internal.h"

bool elf_obj_is_go(const struct elf_obj *o)
{
	size_t i;

	/* The Go linker writes .go.buildinfo, and strip keeps it. */
	if (elf_section_by_name(&o->f, ".go.buildinfo") >= 0)
		return true;
	for (i = 0; i < o->nsyms; i++)
		if (esym_is_func(&o->syms[i]) &&
		    !strcmp(o->syms[i].name, "runtime.main"))
			return true;
	return false;
}

int elf_check_return_probes(const struct elf_obj *o, const char *shown,
			    char *err, size_t errlen)
{
	if (!elf_obj_is_go(o))
		return 0;
	return elf_fail(err, errlen, -EPERM,
			"%s is a Go program: timing a function there needs a return probe, which would crash it (a uretprobe rewrites the return address on the goroutine stack and Go moves stacks as they grow); trace functions of the C libraries it loads instead",
			shown);
}
