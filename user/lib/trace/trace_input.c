// SPDX-License-Identifier: GPL-2.0
/*
 * The session's pipeline, the same for a live trace and a replay, and
 * the one path every input takes into it: from a record source
 * (trace_feed()) or the session's own scans, through trace_input() to
 * the pipeline and the other consumers (the Perfetto trace, the
 * recording).
 */
#include "analysis/autokey.h"
#include "recording/recording.h"
#include "trace/trace_internal.h"
#include "util/array.h"
#include "util/errors.h"

/* One record, to every consumer. */
static inline void trace_record(struct trace *t, const struct session_input *in)
{
	if (t->out.perfetto)
		perfetto_record(t->out.perfetto, in->rec);
	pipeline_record(t->pipe, in->rec);
	if (t->out.rec)
		recording_input(t->out.rec, in);
}

/* A replay's run of records, each as an INPUT_RECORD would go. */
static void trace_records(struct trace *t, const struct session_input *run)
{
	struct session_input in = { .type = INPUT_RECORD, .rec = run->rec };
	uint32_t i;

	for (i = 0; i < run->nr; i++, in.rec += in.rec->nslots)
		trace_record(t, &in);
}

void trace_input(void *ctx, const struct session_input *in)
{
	struct trace *t = ctx;
	struct perfetto *pf = t->out.perfetto;

	switch (in->type) {
	case INPUT_RECORD:
		trace_record(t, in);
		return;
	case INPUT_RECORDS:
		trace_records(t, in);
		return;
	case INPUT_THREAD_SEEN:
		pipeline_thread_seen(t->pipe, in->tid, in->a);
		break;
	case INPUT_THREAD_EXIT:
		pipeline_thread_gone(t->pipe, in->tid, in->a, in->b);
		if (pf)
			perfetto_thread_exit(pf, in->tid, in->a);
		break;
	case INPUT_LOST:
		/* A replay's, not written; open calls end where it began. */
		if (pipeline_lost(t->pipe, in->a, in->b))
			t->pipe->stats.nomem++;
		else
			t->sum.rec_lost_ns += in->b - in->a;
		if (pf)
			perfetto_lost(pf, in->a);
		return;
	case INPUT_TRAMPOLINE:
		pairer_set_trampoline(t->pipe->pairer, in->a, in->b);
		stacks_set_trampoline(t->pipe->stacks, in->a, in->b);
		if (pf)
			perfetto_set_trampoline(pf, in->a, in->b);
		break;
	default:
		return;
	}
	/* After the pipeline: the frame checks it made come first. */
	if (t->out.rec)
		recording_input(t->out.rec, in);
}

void trace_on_record(struct trace *t, const struct ispot_record *rec)
{
	const struct session_input in = { .type = INPUT_RECORD, .rec = rec };

	trace_input(t, &in);
}

void trace_thread_seen(struct trace *t, uint32_t tid, uint64_t ts)
{
	const struct session_input in = {
		.type = INPUT_THREAD_SEEN, .tid = tid, .a = ts,
	};

	trace_input(t, &in);
}

void trace_thread_exit(struct trace *t, uint32_t tid, uint64_t ts,
		       uint64_t gone_ts)
{
	const struct session_input in = {
		.type = INPUT_THREAD_EXIT, .tid = tid, .a = ts, .b = gone_ts,
	};

	trace_input(t, &in);
}

void trace_set_trampoline(struct trace *t, uint64_t start, uint64_t end)
{
	const struct session_input in = {
		.type = INPUT_TRAMPOLINE, .a = start, .b = end,
	};

	trace_input(t, &in);
}

long trace_feed(struct trace *t, struct record_source *src,
		uint64_t horizon)
{
	return src->read(src, horizon, trace_input, t);
}

int trace_new_pipeline(struct trace *t, stacks_frame_fn frame_ok, void *ctx)
{
	const struct trace_borrowed *b = &t->borrowed;

	t->pipe = pipeline_new();
	if (t->pipe) {
		stacks_set_check(t->pipe->stacks, frame_ok, ctx);
		t->pipe->calls_sampled = t->sum.sample > 1;
	}
	if (t->pipe && b->engine)
		pipeline_borrow_engine(t->pipe, b->engine);
	if (t->pipe && b->shapes)
		pipeline_borrow_shapes(t->pipe, b->shapes);
	if (t->pipe && b->args)
		pipeline_borrow_args(t->pipe, b->args);
	if (!t->pipe || (t->sum.waits && pipeline_enable_causes(t->pipe)) ||
	    ((t->opts->svg || t->opts->html) &&
	     pipeline_enable_durations(t->pipe))) {
		ispot_error("out of memory setting up the pipeline");
		return -1;
	}
	return 0;
}

void trace_close_pipeline(struct trace *t)
{
	uint64_t open = pairer_stats(t->pipe->pairer)->unpaired_entries;

	pipeline_finish(t->pipe, t->sum.t_end);
	t->open_at_stop = pairer_stats(t->pipe->pairer)->unpaired_entries -
			  open;
}

/* The first id of function @i's --key auto shadows (autokey.h), 0: none. */
static uint32_t trace_shadow(const struct trace *t, size_t i)
{
	if (t->funcs[i].key.kind != KEY_AUTO)
		return 0;
	if (t->borrowed.func_ids)
		return t->borrowed.shadow_ids ? t->borrowed.shadow_ids[i] : 0;
	return autokey_shadow_id(t->nr_funcs, i, 0);
}

int trace_pipe_probe(struct trace *t, uint32_t id, uint32_t func,
		     enum trace_probe_role role, bool sync)
{
	struct trace_func *f = &t->funcs[func];
	uint32_t func_id = t->borrowed.func_ids ?
			   t->borrowed.func_ids[func] : func;
	uint32_t shadow = trace_shadow(t, func);
	int ret;

	if (ARRAY_RESERVE(t->probes, t->cap_probes, t->nr_probes + 1))
		goto nomem;
	t->probes[t->nr_probes++] = (struct trace_probe){ id, func, role,
							  sync };
	if (role == TRACE_PROBE_FUNC)
		ret = pipeline_add_probe(t->pipe, id, func_id, &f->key);
	else
		ret = pipeline_add_marker(t->pipe, id, func_id,
					  role == TRACE_PROBE_END, &f->key);
	if (ret || (shadow && pipeline_set_shadows(t->pipe, id, shadow)) ||
	    (sync && pipeline_set_sync(t->pipe, id)))
		goto nomem;
	return 0;
nomem:
	ispot_error("out of memory adding probes");
	return -1;
}
