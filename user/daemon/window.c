// SPDX-License-Identifier: GPL-2.0
/* One target's scores, window by window; see window.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/autokey.h"
#include "trace/autopick.h"
#include "analysis/drain.h"
#include "analysis/timeline.h"
#include "report/report.h"
#include "util/array.h"
#include "util/errors.h"
#include "util/json.h"
#include "wire/window_log.h"
#include "window.h"

/* Futex words remembered per window; the rest are counted in the last. */
#define WINDOW_MAX_FUTEXES	256
/* window_futex.funcs is a 64-bit set. */
#define WINDOW_FUTEX_FUNCS	64

int window_set_init(struct window_set *w, int pid, uint64_t now)
{
	memset(w, 0, sizeof(*w));
	w->pid = pid;
	w->start_ns = now;
	w->sci = sci_new();
	if (w->sci)
		sci_limit_blocks(w->sci, WINDOW_MAX_BLOCKS, WINDOW_MAX_KEYS);
	w->shapes = shapes_new();
	w->args = argbuckets_new();
	return w->sci && w->shapes && w->args ? 0 : -ENOMEM;
}

static void window_reset(struct window_set *w, uint64_t now)
{
	w->start_ns = now;
	w->armed_ns = w->calls = w->cpu_ns = 0;
	w->daemon_ns = 0;
	w->recorded = w->dropped = w->unpaired = w->open_at_stop = 0;
	w->lost_exits = w->dropped_time_ns = 0;
	w->bursts = 0;
	memset(&w->solo, 0, sizeof(w->solo));
	w->nr_futexes = 0;
}

void window_set_free(struct window_set *w)
{
	uint32_t i;

	for (i = 0; i < w->nr_funcs; i++) {
		free(w->funcs[i].name);
		free(w->funcs[i].linkage_name);
		free(w->funcs[i].object);
	}
	free(w->funcs);
	free(w->futexes);
	sci_free(w->sci);
	shapes_free(w->shapes);
	argbuckets_free(w->args);
	free(w->burst_shadows);
	elf_symbolizer_free(w->sym);
	memset(w, 0, sizeof(*w));
}

/* A new entry for @f: a function (@arg -1) or @owner's shadow by @arg. */
static long window_func_add(struct window_set *w, const struct trace_func *f,
			    int arg, uint32_t owner)
{
	struct window_func *wf;

	if (ARRAY_RESERVE(w->funcs, w->cap_funcs, (size_t)w->nr_funcs + 1))
		return -ENOMEM;
	wf = &w->funcs[w->nr_funcs];
	memset(wf, 0, sizeof(*wf));
	wf->name = strdup(f->sym.name);
	wf->linkage_name = strdup(f->sym.linkage_name);
	wf->object = strdup(f->sym.obj);
	if (!wf->name || !wf->linkage_name || !wf->object) {
		free(wf->name);
		free(wf->linkage_name);
		free(wf->object);
		return -ENOMEM;
	}
	snprintf(wf->key_desc, sizeof(wf->key_desc), "%s", f->key_desc);
	wf->key = f->key;
	wf->shadow_arg = arg;
	wf->owner = owner;
	return w->nr_funcs++;
}

static bool window_same_rule(const struct key_rule *a,
			     const struct key_rule *b)
{
	return a->kind == b->kind &&
	       (a->kind != KEY_ARG || (a->arg == b->arg && a->log2 == b->log2));
}

/*
 * A function is its name, object and key rule: keys of one rule mean
 * nothing under another (an arg0 value is not a call site), and only an
 * auto function has shadows.  So a SIGHUP that changes F's --key gives F
 * a new id from the next burst on; the old one keeps its minima, and the
 * window that saw the change shows F once per rule, each with its "key".
 */
static long window_func_id(struct window_set *w, const struct trace_func *f)
{
	long id, sh, first = 0;
	uint32_t i;
	int a;

	for (i = 0; i < w->nr_funcs; i++)
		if (w->funcs[i].shadow_arg < 0 &&
		    !strcmp(w->funcs[i].name, f->sym.name) &&
		    !strcmp(w->funcs[i].object, f->sym.obj) &&
		    window_same_rule(&w->funcs[i].key, &f->key))
			return i;
	id = window_func_add(w, f, -1, 0);
	if (id < 0 || f->key.kind != KEY_AUTO)
		return id;
	/* Its shadows: the next three ids, before any other function's. */
	for (a = 0; a < ARGB_NR_ARGS; a++) {
		sh = window_func_add(w, f, a, id);
		/* Without memory: scored unkeyed, judged all the same. */
		if (sh < 0)
			return id;
		if (!a)
			first = sh;
	}
	w->funcs[id].shadow = first;
	return id;
}

int window_burst_begin(struct window_set *w, struct trace *t, uint32_t *ids)
{
	size_t i;

	if (ARRAY_RESERVE(w->burst_shadows, w->cap_burst_shadows,
			  t->nr_funcs + 1))
		return -ENOMEM;
	for (i = 0; i < t->nr_funcs; i++) {
		long id = window_func_id(w, &t->funcs[i]);

		if (id < 0)
			return -ENOMEM;
		ids[i] = id;
		w->burst_shadows[i] = w->funcs[id].shadow;
	}
	t->borrowed.engine = w->sci;
	t->borrowed.func_ids = ids;
	t->borrowed.shapes = w->shapes;
	t->borrowed.args = w->args;
	t->borrowed.shadow_ids = w->burst_shadows;
	return 0;
}

void window_burst_started(struct window_set *w, struct trace *t)
{
	/*
	 * trace_start() has just reopened every thread alive now, so the
	 * engine's closed threads ended while the target was disarmed.  A
	 * failed fold (no memory) only keeps them longer.
	 */
	sci_fold_closed(w->sci);
	pipeline_forget_exited(t->pipe, WINDOW_FORGET_DELAY_NS);
}

static struct window_futex *window_futex(struct window_set *w, uint64_t uaddr)
{
	struct window_futex *x;
	size_t i;

	for (i = 0; i < w->nr_futexes; i++)
		if (w->futexes[i].uaddr == uaddr)
			return &w->futexes[i];
	if (w->nr_futexes == WINDOW_MAX_FUTEXES)
		return NULL;
	if (ARRAY_RESERVE(w->futexes, w->cap_futexes, w->nr_futexes + 1))
		return NULL;
	x = &w->futexes[w->nr_futexes++];
	memset(x, 0, sizeof(*x));
	x->uaddr = uaddr;
	return x;
}

void window_burst_end(struct window_set *w, struct trace *t)
{
	const struct pair_stats *ps = pairer_stats(t->pipe->pairer);
	const struct timeline_futex *f;
	size_t n, i, k;

	w->bursts++;
	w->armed_ns += trace_armed_ns(t);
	solo_stats_add(&w->solo, &t->pipe->solo);
	w->solo_share = t->sum.solo_share;
	w->calls += t->pipe->stats.entries;
	w->recorded += t->sum.drain.records;
	w->dropped += t->sum.dropped;
	w->dropped_time_ns += t->pipe->stats.ring_lost_ns;
	w->open_at_stop += t->open_at_stop;
	w->lost_exits += t->sum.lost_exits;
	w->unpaired += ps->unpaired_entries + ps->unpaired_exits -
		       t->open_at_stop;
	/*
	 * The first burst that saw the objects mapped names things, from
	 * the snapshot each window's line reads (window_write()): not a
	 * read of the maps for each key outside them, which an integer
	 * argument is.
	 */
	if (!w->sym) {
		w->sym = trace_symbolizer_new(t);
		if (w->sym)
			elf_symbolizer_reread_on_miss(w->sym, false);
	}

	n = t->pipe->tl ? timeline_futexes(t->pipe->tl, &f) : 0;
	for (i = 0; i < n; i++) {
		struct window_futex *x = window_futex(w, f[i].uaddr);

		if (!x)
			break;
		x->wait_ns += f[i].wait_ns;
		x->waits += f[i].waits;
		if (f[i].threads > x->threads)
			x->threads = f[i].threads;
		for (k = 0; k < f[i].nr_funcs; k++)
			if (f[i].funcs[k] < WINDOW_FUTEX_FUNCS)
				x->funcs |= 1ull << f[i].funcs[k];
		for (k = 0; k < f[i].woken_from.nr; k++)
			timeline_wakers_add(&x->wakers,
					    f[i].woken_from.w[k].func,
					    f[i].woken_from.w[k].callsite,
					    f[i].woken_from.w[k].wait_ns);
	}
	if (sci_unscored(w->sci) && !w->blocks_noted) {
		ispot_say("note: pid %d: keys past the bound on blocks "
			  "(WINDOW_MAX_BLOCKS, WINDOW_MAX_KEYS): their calls "
			  "go unscored", w->pid);
		w->blocks_noted = true;
	}
}

/* The set's functions as the report builder takes them (report.h). */
static struct report_source_func *
window_source_funcs(const struct window_set *w)
{
	struct report_source_func *sf = calloc(w->nr_funcs + 1, sizeof(*sf));
	uint32_t i;

	for (i = 0; sf && i < w->nr_funcs; i++) {
		const struct window_func *f = &w->funcs[i];

		sf[i].name = f->name;
		sf[i].linkage_name = f->linkage_name;
		sf[i].object = f->object;
		sf[i].key_auto = f->key.kind == KEY_AUTO;
		sf[i].key_desc = sf[i].key_auto ? f->chosen_desc : f->key_desc;
		sf[i].rule = window_func_rule(f);
	}
	return sf;
}

/*
 * The window's futex words as a timeline holds them: the functions that
 * waited by id, in id order, into @ids (WINDOW_FUTEX_FUNCS per word).
 */
static struct timeline_futex *
window_source_futexes(const struct window_set *w, uint32_t *ids)
{
	struct timeline_futex *tf = calloc(w->nr_futexes + 1, sizeof(*tf));
	size_t i;
	uint32_t k;

	for (i = 0; tf && i < w->nr_futexes; i++) {
		const struct window_futex *x = &w->futexes[i];

		tf[i].uaddr = x->uaddr;
		tf[i].wait_ns = x->wait_ns;
		tf[i].waits = x->waits;
		tf[i].threads = x->threads;
		tf[i].funcs = ids;
		for (k = 0; k < w->nr_funcs && k < WINDOW_FUTEX_FUNCS; k++)
			if (x->funcs & (1ull << k))
				ids[tf[i].nr_funcs++] = k;
		ids += tf[i].nr_funcs;
		tf[i].woken_from = x->wakers;
	}
	return tf;
}

/*
 * Counters that only grow, for the metrics: the window's functions; and
 * the window's own sums (closed_*, zeroed by window_close()).
 */
static void window_totals(struct window_set *w, const struct sci_report *sr)
{
	size_t i;
	int k;

	for (i = 0; i < sr->nr_funcs; i++) {
		const struct sci_result *r = &sr->funcs[i];
		struct window_func *f;

		if (r->func_id >= w->nr_funcs)
			continue;
		w->closed_calls += r->calls;
		w->closed_sum_ns += r->sum_ns;
		w->closed_lived_ns += r->lifetime_ns;
		f = &w->funcs[r->func_id];
		f->total_calls += r->calls;
		f->total_loss_ns += r->loss_ns;
		for (k = 0; k < SCI_NR_CAUSES; k++)
			f->total_cause_ns[k] += r->cause_loss_ns[k];
		f->total_unknown_ns += r->unknown_loss_ns;
		f->total_observed_ns += r->lifetime_ns;
		f->total_aside_ns += r->aside_ns;
		f->total_interference_ns += r->interf.loss_ns;
		f->total_external_ns += r->interf.external_ns;
		f->has_interference |= r->has_interference;
		f->last_sci = r->sci;
	}
}

static int window_write(struct window_set *w, FILE *f,
			const struct window_target *tg,
			const struct sci_report *sr,
			const struct argb_verdict *verdicts, uint64_t now,
			double duty, double overhead)
{
	uint32_t *waiters = calloc(w->nr_futexes * WINDOW_FUTEX_FUNCS + 1,
				   sizeof(*waiters));
	struct timeline_futex *futexes = waiters ?
		window_source_futexes(w, waiters) : NULL;
	struct report_source src = {
		.funcs = window_source_funcs(w),
		.nr_funcs = w->nr_funcs,
		.shapes = w->shapes,
		.sym = w->sym,
		.futexes = futexes,
		.nr_futexes = w->nr_futexes,
	};
	/*
	 * Only the functions, futexes and solo blocks (over the armed
	 * time): the line has its own envelope.
	 */
	struct report r = {
		.pid = tg->pid,
		.command = tg->exe,
		.duration_ns = w->armed_ns,
		.sci = sr,
		.verdicts = verdicts,
		.solo = w->solo_share > 0 || w->solo.blocks ? &w->solo : NULL,
		.now_ns = now,
	};
	struct report_build b = { 0 };
	struct json j;
	int ret = -ENOMEM;

	/* One read of the maps a line, while the target may live. */
	if (w->sym)
		elf_symbolizer_refresh(w->sym, NULL, 0);
	if (!src.funcs || !futexes || report_build(&b, &src, &r))
		goto out;
	json_init(&j, f);
	json_object_begin(&j, NULL);
	window_json_envelope(&j, w, tg, now, duty, overhead);
	window_json_picks(&j, tg);
	report_json_functions(&j, &r);
	report_json_futexes(&j, &r);
	report_solo_json(&j, &r);
	window_json_notes(&j, w, verdicts);
	window_json_totals(&j, w);
	json_object_end(&j);
	json_finish(&j);
	ret = fflush(f) || ferror(f) ? -EIO : 0;
out:
	report_build_free(&b);
	free((void *)src.funcs);
	free(futexes);
	free(waiters);
	return ret;
}

/* Hand the window's figures to the observer. */
static int window_observe(struct window_set *w, const struct window_target *tg,
			  const struct sci_report *sr, uint64_t now,
			  double duty, double overhead)
{
	struct window_func_figures *ff = calloc(sr->nr_funcs + 1,
						sizeof(*ff));
	struct window_figures wf = {
		.target = tg,
		.now = now,
		.window_ns = now > w->start_ns ? now - w->start_ns : 0,
		.armed_ns = window_armed_ns(w, now),
		.duty = duty,
		.overhead = overhead,
		.recorded = w->recorded,
		.dropped = w->dropped,
		.unpaired = w->unpaired,
		.engine = w->sci,
		.funcs = ff,
	};
	size_t i;
	int ret;

	if (!ff)
		return -ENOMEM;
	for (i = 0; i < sr->nr_funcs; i++) {
		const struct sci_result *r = &sr->funcs[i];
		struct window_func_figures *x = &ff[wf.nr_funcs];

		if (r->func_id >= w->nr_funcs || !r->calls)
			continue;
		x->name = w->funcs[r->func_id].name;
		x->object = w->funcs[r->func_id].object;
		x->func_id = r->func_id;
		x->calls = r->calls;
		x->sum_ns = r->sum_ns;
		x->loss_ns = r->loss_ns;
		memcpy(x->cause_loss_ns, r->cause_loss_ns,
		       sizeof(x->cause_loss_ns));
		x->unknown_loss_ns = r->unknown_loss_ns;
		x->observed_ns = r->lifetime_ns;
		x->aside_ns = r->aside_ns;
		x->sci = r->sci;
		x->has_interference = r->has_interference;
		x->interference_ns = r->interf.loss_ns;
		x->external_ns = r->interf.external_ns;
		wf.nr_funcs++;
	}
	ret = w->observer(w->observer_ctx, &wf);
	free(ff);
	return ret;
}

int window_close(struct window_set *w, FILE *f, const struct window_target *tg,
		 uint64_t now, double duty, double overhead)
{
	struct sci_engine *next = sci_new();
	struct argb_verdict *v = NULL;
	struct sci_block_min *m;
	struct sci_report *sr;
	size_t n, i;
	int ret;

	/* Not this window's sums until window_totals() makes them. */
	w->closed_calls = w->closed_sum_ns = w->closed_lived_ns = 0;
	sr = sci_report(w->sci, now);
	n = sci_nr_blocks(w->sci);
	m = malloc((n + 1) * sizeof(*m));
	/* The report from here on as --key auto keys it. */
	if (sr)
		v = window_workload(w, sr);
	if (!next || !sr || !m || !v) {
		sci_free(next);
		sci_report_free(sr);
		free(m);
		free(v);
		return -ENOMEM;
	}
	sci_limit_blocks(next, WINDOW_MAX_BLOCKS, WINDOW_MAX_KEYS);
	window_totals(w, sr);
	ret = f ? window_write(w, f, tg, sr, v, now, duty, overhead) : 0;
	if (w->observer && window_observe(w, tg, sr, now, duty, overhead) &&
	    !ret)
		ret = -ENOMEM;
	sci_report_free(sr);
	free(v);

	/* Every block ever seen is in the engine: seeds included. */
	sci_minima(w->sci, m);
	for (i = 0; i < n; i++) {
		/* Reference calls first made in this window date from it. */
		if (m[i].solo.gated && !m[i].solo.gated_since_ns)
			m[i].solo.gated_since_ns = w->start_ns;
		/* Idle too long with the engine pressed, or past it: gone. */
		if ((n < WINDOW_MAX_BLOCKS / 2 ||
		     m[i].idle_windows < WINDOW_SEED_IDLE) &&
		    sci_seed(next, &m[i]) == -ENOMEM) {
			ret = -ENOMEM;
			break;
		}
	}
	free(m);
	/* A solo block admitting across the windows' edge goes on. */
	sci_solo_carry(next, w->sci);
	sci_free(w->sci);
	w->sci = next;
	w->windows++;
	window_reset(w, now);
	return ret;
}
