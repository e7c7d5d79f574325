// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl top --pid: a session of its own, set up and drained exactly as
 * `ispotctl attach` does (trace/trace.h), whose SCI engine is read at every
 * refresh: per function its calls, loss by cause, observed thread time and
 * durations, as running totals for rates.c to take differences of.
 *
 * Durations are read as cumulative counts at bounds 2^(k/4) ns, from 16 ns
 * to about 48 s (a p99 interpolated between two of them is within about
 * 10%), far coarser than the engine's own histogram, so that a sample
 * costs a few KiB per function whatever the window.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "analysis/drain.h"
#include "analysis/hist.h"
#include "top/top.h"
#include "trace/trace.h"

#define TOP_BOUNDS	128
#define TOP_BOUND_LOG2	4	/* the first bound: 2^4 ns */
/* While records wait for the drain's horizon, rounds run at this pace. */
#define TOP_BUSY_POLL_MS	20
#define TOP_IDLE_POLL_MS	100

struct top_session {
	struct trace t;
	struct hist *hist;
	uint64_t bound_ns[TOP_BOUNDS];
	double le_ns[TOP_BOUNDS];
	uint64_t cum_u64[TOP_BOUNDS];
	double cum[TOP_BOUNDS];
};

static void session_prepare(struct top_source *s, struct pollfd *pfd,
			    int *timeout_ms)
{
	struct top_session *ts = s->priv;

	pfd->fd = ts->t.live.dev.fd;
	/*
	 * Records younger than the horizon keep the device readable: wait
	 * for the pace instead (POLLHUP, the target's exit, comes anyway).
	 */
	if (drain_pending(ts->t.live.drain)) {
		pfd->events = 0;
		*timeout_ms = TOP_BUSY_POLL_MS;
	} else {
		pfd->events = POLLIN;
		*timeout_ms = TOP_IDLE_POLL_MS;
	}
}

static int session_step(struct top_source *s, uint64_t now, short revents)
{
	struct top_session *ts = s->priv;

	if (trace_step(&ts->t, now))
		return -1;
	if (revents & POLLHUP)
		ts->t.sum.target_exited = true;
	return ts->t.sum.target_exited ? 1 : 0;
}

static void counts_of(struct top_session *ts, const struct sci_result *f,
		      struct rates_counts *c)
{
	size_t i;
	int k;

	memset(c, 0, sizeof(*c));
	c->calls = f->calls;
	c->loss_ns = f->loss_ns;
	for (k = 0; k < SCI_NR_CAUSES; k++)
		c->cause_ns[k] = f->cause_loss_ns[k];
	c->cause_ns[CAUSE_UNKNOWN] = f->unknown_loss_ns;
	c->observed_ns = f->lifetime_ns;
	c->aside_ns = f->aside_ns;
	c->interference_ns = f->has_interference ?
			     (double)f->interf.loss_ns : NAN;
	sci_func_hist(ts->t.pipe->sci, f->func_id, ts->hist);
	hist_cumulative(ts->hist, ts->bound_ns, TOP_BOUNDS, ts->cum_u64);
	for (i = 0; i < TOP_BOUNDS; i++)
		ts->cum[i] = ts->cum_u64[i];
	c->nr_buckets = TOP_BOUNDS;
	c->le_ns = ts->le_ns;
	c->cum = ts->cum;
}

static int session_sample(struct top_source *s, uint64_t now,
			  struct rates *r)
{
	struct top_session *ts = s->priv;
	struct trace *t = &ts->t;
	/* What the drain has emitted: older than its horizon. */
	uint64_t upto = now > DRAIN_SLACK_NS ? now - DRAIN_SLACK_NS : now;
	struct sci_report *sr;
	struct rates_counts c;
	size_t i;

	if (upto < t->sum.t_enable)
		upto = t->sum.t_enable;
	sr = sci_report(t->pipe->sci, upto);
	/* --key auto: each auto function as its verdict so far keys it. */
	if (!sr || trace_auto_keys(t, sr) || rates_begin(r, upto)) {
		sci_report_free(sr);
		ispot_error("out of memory computing the scores");
		return -1;
	}
	for (i = 0; i < sr->nr_funcs; i++) {
		const struct trace_func *f = &t->funcs[sr->funcs[i].func_id];

		counts_of(ts, &sr->funcs[i], &c);
		if (rates_add(r, t->sum.command, f->sym.name, f->sym.obj, &c)) {
			sci_report_free(sr);
			ispot_error("out of memory computing the scores");
			return -1;
		}
	}
	rates_events(r, drain_stats(t->live.drain)->records,
		     drain_dropped(t->live.drain));
	sci_report_free(sr);
	return 0;
}

static void session_end_message(struct top_source *s, uint64_t now)
{
	struct top_session *ts = s->priv;

	if (ts->t.sum.target_exited)
		ispot_error("process %d exited after %.1fs of tracing",
			    (int)ts->t.sum.pid,
			    (now - ts->t.sum.t_enable) / 1e9);
}

static void session_close(struct top_source *s)
{
	struct top_session *ts = s->priv;

	trace_free(&ts->t);
	free(ts->hist);
	free(ts);
	s->priv = NULL;
}

static const struct top_source_ops session_ops = {
	.prepare = session_prepare,
	.step = session_step,
	.sample = session_sample,
	.end_message = session_end_message,
	.close = session_close,
};

int top_session_open(struct top_source *s, const struct trace_opts *o,
		     uint64_t now, struct rates *r)
{
	struct top_session *ts = calloc(1, sizeof(*ts));
	size_t i;

	(void)now;
	if (!ts || !(ts->hist = malloc(sizeof(*ts->hist)))) {
		free(ts);
		ispot_error("out of memory");
		return -1;
	}
	for (i = 0; i < TOP_BOUNDS; i++) {
		ts->le_ns[i] = ldexp(1.0, TOP_BOUND_LOG2) * exp2(i / 4.0);
		ts->bound_ns[i] = (uint64_t)ts->le_ns[i];
	}
	ts->le_ns[TOP_BOUNDS - 1] = INFINITY;
	ts->bound_ns[TOP_BOUNDS - 1] = UINT64_MAX;
	s->priv = ts;
	s->ops = &session_ops;
	if (trace_open(&ts->t, o, MODE_ATTACH) || trace_check_pid(o->pid) ||
	    trace_resolve(&ts->t, o->pid, NULL) ||
	    trace_check_keys(&ts->t) || trace_start(&ts->t, o->pid)) {
		session_close(s);
		return -1;
	}
	snprintf(s->target, sizeof(s->target), "%s (pid %d)",
		 ts->t.sum.command, (int)o->pid);
	/* Every total is zero when tracing starts: the first base. */
	if (rates_begin(r, ts->t.sum.t_enable)) {
		session_close(s);
		ispot_error("out of memory");
		return -1;
	}
	return 0;
}
