/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ISPOT block markers: time a block of code that is not a function.
 *
 *	#include <ispot.h>
 *
 *	ISPOT_BLOCK_BEGIN(critical);
 *	... the block ...
 *	ISPOT_BLOCK_END(critical);
 *
 * and trace it with `ispotctl attach --pid PID --func block:critical`.
 *
 * Each marker is a USDT probe in SystemTap's SDT v3 note format, as
 * <sys/sdt.h> writes it, so bpftrace, perf and systemtap see the probes
 * too (provider "ispot", probes "critical_begin" and "critical_end").  The
 * header does not need <sys/sdt.h>; it writes the same notes itself.
 *
 * What a marker costs when nobody traces: one 5-byte nop.  A 5-byte nop
 * rather than sys/sdt.h's 1-byte one because from Linux 6.18 a uprobe on a
 * nop5 is optimised into a call to a trampoline, with no trap.
 *
 * Each probe has a semaphore (an unsigned short in section .probes) that
 * the kernel increments while a tracer has it armed.  ISPOT_BLOCK_ENABLED()
 * reads the begin marker's, so that preparation which only a tracer needs
 * can be skipped:
 *
 *	if (ISPOT_BLOCK_ENABLED(critical))
 *		prepare_expensive_key();
 *
 * A marker may be used several times (in one function, in loops, in
 * inline functions, in several files): every copy is a site of the same
 * probe, and all of them share one semaphore.  NAME must be a C
 * identifier.  x86-64 only, GCC or Clang, C or C++.
 *
 * Documentation/usage.rst ("Blocks and USDT markers") and
 * Documentation/design.rst ("Block markers") say more.
 */
#ifndef ISPOT_H
#define ISPOT_H

#if !defined(__x86_64__)
#error "include/ispot.h: block markers are only implemented for x86-64"
#endif
#if !defined(__GNUC__)
#error "include/ispot.h: block markers need GCC or Clang (extended asm)"
#endif

#define ISPOT__STR(x)	#x

/*
 * The weak, hidden semaphore of probe ispot:NAME, defined once per
 * translation unit (.ifndef) in a COMDAT group named after it, so that the
 * linker keeps one copy for the whole object however many files use it.
 * It must be initialised data (progbits), not .bss: the kernel updates it
 * through the file's page cache offset, which a .bss variable lacks.
 */
#define ISPOT__SEMAPHORE_DEF(sem)					\
	".ifndef " sem "\n"						\
	".pushsection .probes,\"awG\",@progbits," sem ",comdat\n"	\
	".weak " sem "\n"						\
	".hidden " sem "\n"						\
	".type " sem ",@object\n"					\
	".size " sem ",2\n"						\
	".balign 2\n"							\
	sem ":\n"							\
	".2byte 0\n"							\
	".popsection\n"							\
	".endif\n"

/*
 * The section whose link-time address consumers compare with the note's
 * base field to notice a prelinked (moved) object, as sys/sdt.h has it:
 * the same name, symbol and group, so objects mixing both share it.
 */
#define ISPOT__BASE_DEF							\
	".ifndef _.stapsdt.base\n"					\
	".pushsection .stapsdt.base,\"aG\",@progbits,.stapsdt.base,comdat\n" \
	".weak _.stapsdt.base\n"					\
	".hidden _.stapsdt.base\n"					\
	"_.stapsdt.base:\n"						\
	".space 1\n"							\
	".size _.stapsdt.base,1\n"					\
	".popsection\n"							\
	".endif\n"

/*
 * One probe site: the nop5, then its note.  The note section joins the
 * group of the code around it ("?"), so a discarded copy of an inline
 * function takes its notes along.  Numeric labels keep every copy of the
 * asm distinct, wherever the compiler duplicates it.  The "memory" clobber
 * keeps the block's memory accesses between its two markers.
 */
#define ISPOT__PROBE(probe, sem)					\
	__asm__ __volatile__(						\
		ISPOT__SEMAPHORE_DEF(sem)				\
		"990:\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"		\
		".pushsection .note.stapsdt,\"?\",@note\n"		\
		".balign 4\n"						\
		".4byte 992f-991f, 994f-993f, 3\n"			\
		"991:\t.asciz \"stapsdt\"\n"				\
		"992:\t.balign 4\n"					\
		"993:\t.8byte 990b\n"					\
		".8byte _.stapsdt.base\n"				\
		".8byte " sem "\n"					\
		".asciz \"ispot\"\n"					\
		".asciz \"" probe "\"\n"				\
		".asciz \"\"\n"						\
		"994:\t.balign 4\n"					\
		".popsection\n"						\
		ISPOT__BASE_DEF						\
		::: "memory")

#define ISPOT_BLOCK_BEGIN(name)						\
	ISPOT__PROBE(ISPOT__STR(name) "_begin",				\
		     "ispot_" ISPOT__STR(name) "_begin_semaphore")

#define ISPOT_BLOCK_END(name)						\
	ISPOT__PROBE(ISPOT__STR(name) "_end",				\
		     "ispot_" ISPOT__STR(name) "_end_semaphore")

/*
 * Whether a tracer has armed block NAME (its begin probe): non-zero then.
 * Read from asm, which also defines the semaphore, so that it works
 * before or without any marker in this file and needs no declaration
 * (a C++ block-scope one would land in the enclosing namespace).
 */
#define ISPOT_BLOCK_ENABLED(name)					\
	__extension__ ({						\
		unsigned int ispot__v;				\
		__asm__ __volatile__(					\
			ISPOT__SEMAPHORE_DEF("ispot_" ISPOT__STR(name)	\
					     "_begin_semaphore")	\
			"movzwl ispot_" ISPOT__STR(name)		\
			"_begin_semaphore(%%rip), %k0\n"		\
			: "=r" (ispot__v));				\
		ispot__v != 0;						\
	})

#endif /* ISPOT_H */
