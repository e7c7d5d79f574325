// SPDX-License-Identifier: GPL-2.0
/*
 * --auto's off-CPU evidence: each sampled off-CPU stack's time, for the
 * function the thread waits in and for the program's function on the way
 * there (autopick.h says why both).
 *
 * Finding them.  The stack is the module's (abi.rst, "Off-CPU stacks"):
 * the user ip where the thread entered the kernel, a frame-pointer walk,
 * and the first words of the stack.  The C library is built without frame
 * pointers, so the walk from inside it skips its caller; the raw words
 * still hold the return addresses of the calls that led there, innermost
 * first.  So the candidates are read in that order: the ip, then the
 * words, then the walk's frames.  The last runtime function before the
 * first of the program's is the one the program called to wait
 * (pthread_cond_wait, not the futex wrapper inside it); the program's is
 * where it waits from.  A return address is looked up one byte back, in
 * the call instruction, as unwinders do: a call that ends its function
 * returns to the next one.  Raw words may hold stale addresses too (a
 * pointer to code stored on the stack); only those that fall in a
 * function a probe can time count, which keeps most of them out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trace/autopick_internal.h"

/* Object base names of the C and C++ runtimes and the loader. */
static const char *const runtime_prefix[] = {
	"libc.so", "libc-", "libpthread", "libstdc++", "libgcc_s", "ld-linux",
	"ld-", "libm.so", "libdl",
};

bool autopick_runtime_object(const char *obj)
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

/* Candidate @i of @s (autopick_wall's order), or 0 past the last. */
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

size_t autopick_wall_path(struct elf_symbolizer *sz,
			  const struct wallprof_sample *s,
			  struct elf_addr_info *out, size_t max)
{
	bool program = false;	/* the program's first frame was found */
	uint64_t addr;
	size_t n = 0;
	uint32_t i;

	for (i = 0; n < max && (addr = candidate(s, i)) != UINT64_MAX; i++) {
		bool a_word = i > 0 && i <= s->nwords;

		if (!addr || elf_symbolize(sz, addr, &out[n], NULL, 0) ||
		    !autopick_probeable(&out[n]))
			continue;
		/*
		 * Past the program's first frame, the words' runtime
		 * addresses are stale ones, left by calls that returned; its
		 * own frames go on (a stack scan, where the C library's
		 * missing frame pointer left the walk lost).
		 */
		if (a_word && program &&
		    autopick_runtime_object(out[n].obj))
			continue;
		if (!autopick_runtime_object(out[n].obj))
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

struct wall_ends {
	struct elf_addr_info wait, prog;
	bool has_wait, has_prog;
};

/* The function @s waits in and the program's on the way, if named. */
static void wall_ends(struct elf_symbolizer *sz,
		      const struct wallprof_sample *s, struct wall_ends *e)
{
	struct elf_addr_info path[16];
	size_t n = autopick_wall_path(sz, s, path, 16), i;

	memset(e, 0, sizeof(*e));
	if (!n)
		return;
	e->has_wait = true;
	e->wait = path[0];
	if (!autopick_runtime_object(path[0].obj)) {
		/* The program waits in its own code; its caller is no end. */
		return;
	}
	for (i = 1; i < n; i++) {
		if (!autopick_runtime_object(path[i].obj)) {
			e->prog = path[i];
			e->has_prog = true;
			return;
		}
		e->wait = path[i];
	}
}

/* Add @ns of @kind to @g, with @partner as its other end. */
static void wall_add(struct ap_group *g, enum wall_kind kind, uint64_t ns,
		     const char *partner, bool waits)
{
	g->off_ns[kind] += ns;
	if (!partner || ns <= g->partner_ns)
		return;
	snprintf(g->partner, sizeof(g->partner), "%s", partner);
	g->partner_ns = ns;
	g->waits = waits;
}

int autopick_add_offcpu(struct elf_symbolizer *sz, const struct wallprof *wp,
			struct ap_groups *gs, struct autopick *a)
{
	struct ap_group *w, *p;
	struct wall_ends e;
	size_t i;

	memcpy(a->off_ns, wp->off_ns, sizeof(a->off_ns));
	for (i = 0; i < wp->nr_samples; i++) {
		const struct wallprof_sample *s = &wp->samples[i];

		if (!s->off_ns || s->kind == WALL_SLEEP)
			continue;
		wall_ends(sz, s, &e);
		if (!e.has_wait) {
			a->off_unnamed_ns += s->off_ns;
			continue;
		}
		w = autopick_group(gs, &e.wait);
		if (!w)
			return -ENOMEM;
		wall_add(w, s->kind, s->off_ns,
			 e.has_prog ? e.prog.sym : NULL, true);
		if (!e.has_prog)
			continue;
		p = autopick_group(gs, &e.prog);
		if (!p)
			return -ENOMEM;
		wall_add(p, s->kind, s->off_ns, e.wait.sym, false);
	}
	return 0;
}
