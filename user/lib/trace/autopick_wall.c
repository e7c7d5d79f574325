// SPDX-License-Identifier: GPL-2.0
/*
 * --auto's off-CPU evidence: each sampled off-CPU stack's time, for the
 * function the thread waits in and for the program's function on the way
 * there (autopick.h says why both).  The last runtime function before the
 * first of the program's, on the stack's path (wall_path.h), is the one
 * the program called to wait (pthread_cond_wait, not the futex wrapper
 * inside it); the program's is where it waits from.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trace/autopick_internal.h"
#include "trace/wall_path.h"

struct wall_ends {
	struct elf_addr_info wait, prog;
	bool has_wait, has_prog;
};

/* The function @s waits in and the program's on the way, if named. */
static void wall_ends(struct wall_names *wn, const struct wallprof_sample *s,
		      struct wall_ends *e)
{
	struct elf_addr_info path[16];
	size_t n = wall_path(wn, s, path, 16), i;

	memset(e, 0, sizeof(*e));
	if (!n)
		return;
	e->has_wait = true;
	e->wait = path[0];
	if (!wall_runtime_object(path[0].obj)) {
		/* The program waits in its own code; its caller is no end. */
		return;
	}
	for (i = 1; i < n; i++) {
		if (!wall_runtime_object(path[i].obj)) {
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
	struct wall_names wn;
	struct wall_ends e;
	int ret = -ENOMEM;
	size_t i;

	wall_names_init(&wn, sz);
	memcpy(a->off_ns, wp->off_ns, sizeof(a->off_ns));
	for (i = 0; i < wp->nr_samples; i++) {
		const struct wallprof_sample *s = &wp->samples[i];

		if (!s->off_ns || s->kind == WALL_SLEEP)
			continue;
		wall_ends(&wn, s, &e);
		if (!e.has_wait) {
			a->off_unnamed_ns += s->off_ns;
			continue;
		}
		w = autopick_group(gs, &e.wait);
		if (!w)
			goto out;
		wall_add(w, s->kind, s->off_ns,
			 e.has_prog ? e.prog.sym : NULL, true);
		if (!e.has_prog)
			continue;
		p = autopick_group(gs, &e.prog);
		if (!p)
			goto out;
		wall_add(p, s->kind, s->off_ns, e.wait.sym, false);
	}
	ret = 0;
out:
	wall_names_free(&wn);
	return ret;
}
