/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recorded session without the device, for test_recording and
 * record_bench: driven through the live session's entry points
 * (trace_on_record(), the thread and trampoline calls: trace_input()'s
 * inputs; the frame check over this process's real maps), it writes a
 * recording and its report.
 * Two functions (worker, keyed by arg0; flush, nested in it), two
 * threads, calls whose durations differ, a call stack every tenth call
 * with a frame past the code (cut), a thread closed by a scan.
 * rs_start_waits() turns the wait records' context on (the timeline, so
 * the interference figure), and one_thread keeps thread 102 out: a
 * program that runs its calls alone.
 */
#ifndef ISPOT_TEST_RECORDING_SESSION_H
#define ISPOT_TEST_RECORDING_SESSION_H

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline_feed.h"
#include "recording/recording.h"
#include "trace/trace.h"
#include "trace/trace_internal.h"

#define RS_PROBE_WORKER	1
#define RS_PROBE_FLUSH	2
#define RS_TGID		4321
/* What a frame-pointer walk reads through code without frame pointers. */
#define RS_GARBAGE_FRAME	0x3833313933393630ull

/* Call sites and outer frames: real code of this binary, for names. */
__attribute__((noinline)) void recording_test_caller(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void recording_test_outer(void)
{
	__asm__ volatile("" ::: "memory");
}

/* Data a key by argument names (&recording_test_locks+0x1). */
char recording_test_locks[4];

/* An ENTRY or EXIT record as the module writes one, into @r. */
static inline void rs_fill(struct ispot_record *r, uint64_t ts, uint8_t kind,
			   uint32_t tid, uint32_t probe, uint64_t sp,
			   uint64_t ip, uint64_t arg0)
{
	const uint64_t args[3] = { arg0 };

	pipeline_feed_fill(r, ts, kind, RS_TGID, tid, probe, sp, args);
	r->ip = ip;
}

static inline void rs_record(struct trace *t, uint64_t ts, uint8_t kind,
			     uint32_t tid, uint32_t probe, uint64_t sp,
			     uint64_t ip, uint64_t arg0)
{
	struct ispot_record r;

	rs_fill(&r, ts, kind, tid, probe, sp, ip, arg0);
	trace_on_record(t, &r);
}

/*
 * A STACK record as the module writes one just before its ENTRY: the
 * entry's sp and call site in its header (a writer tells the entry from
 * them), and three frames: the call site, an outer frame, garbage.  Into
 * @r, two slots.
 */
static inline void rs_fill_stack(struct ispot_record r[2], uint64_t ts,
				 uint32_t tid, uint32_t probe, uint64_t sp,
				 uint64_t site)
{
	uint64_t *frames = (uint64_t *)&r[1];

	memset(r, 0, 2 * sizeof(*r));
	pipeline_feed_fill(r, ts, ISPOT_REC_STACK, RS_TGID, tid, probe, sp,
			   NULL);
	r[0].ip = site;
	r[0].nslots = 2;
	r[0].data[0] = 3;
	frames[0] = site;
	frames[1] = (uint64_t)(uintptr_t)recording_test_outer + 1;
	frames[2] = RS_GARBAGE_FRAME;
}

static inline void rs_stack(struct trace *t, uint64_t ts, uint32_t tid,
			    uint32_t probe, uint64_t sp, uint64_t site)
{
	struct ispot_record r[2];

	rs_fill_stack(r, ts, tid, probe, sp, site);
	trace_on_record(t, r);
}

struct recording_session {
	struct trace t;
	struct trace_opts o;
	char exe[PATH_MAX];
	bool one_thread;	/* set before rs_trace() */
	/* Set before rs_trace(): worker's arg0 in call i (else i % 3). */
	uint64_t (*arg0)(unsigned int i);
};

/*
 * The session's setup, as trace_open(), trace_live_setup() and trace_arm();
 * with @waits, as a module that reports waits (ABI 1.2); worker keyed by
 * @worker_key (NULL: arg0).
 */
static inline int rs_start_waits(struct recording_session *s,
				 const char *rec, const char *json,
				 uint64_t max_size, bool waits,
				 const struct key_rule *worker_key)
{
	struct trace *t = &s->t;
	ssize_t n;
	int i;

	memset(s, 0, sizeof(*s));
	s->o.json = true;
	s->o.output = json;
	s->o.record = rec;
	s->o.max_size = max_size;
	s->o.stack_period = 7;
	t->live.dev.fd = -1;
	t->opts = &s->o;
	t->sum.mode = MODE_RUN;
	t->sum.pid = RS_TGID;
	snprintf(t->sum.command, sizeof(t->sum.command), "worker_app");
	t->sum.abi_major = ISPOT_ABI_MAJOR;
	t->sum.abi_minor = ISPOT_ABI_MINOR;
	t->sum.nr_rings = 2;
	t->sum.tasks = true;
	t->sum.waits = waits;
	t->sum.stack_period = s->o.stack_period;
	n = readlink("/proc/self/exe", s->exe, sizeof(s->exe) - 1);
	t->funcs = calloc(2, sizeof(*t->funcs));
	if (n <= 0 || !t->funcs)
		return -1;
	t->nr_funcs = t->cap_funcs = 2;
	snprintf(t->funcs[0].sym.name, ELF_SYM_NAME_MAX, "worker");
	snprintf(t->funcs[1].sym.name, ELF_SYM_NAME_MAX, "flush");
	for (i = 0; i < 2; i++)
		snprintf(t->funcs[i].sym.obj, PATH_MAX, "%s", s->exe);
	t->funcs[0].key = worker_key ? *worker_key :
			  (struct key_rule){ KEY_ARG, 0, false };
	key_rule_format(&t->funcs[0].key, t->funcs[0].key_desc,
			sizeof(t->funcs[0].key_desc));
	if (rec) {
		t->out.rec = recording_create(rec, max_size, NULL, 0);
		if (!t->out.rec)
			return -1;
	}
	t->sym = elf_symbolizer_new(0, NULL, 0);
	if (!t->sym || trace_new_pipeline(t, trace_frame_in_code, t) ||
	    trace_pipe_probe(t, RS_PROBE_WORKER, 0, TRACE_PROBE_FUNC,
			     false) ||
	    trace_pipe_probe(t, RS_PROBE_FLUSH, 1, TRACE_PROBE_FUNC, false))
		return -1;
	return 0;
}

static inline int rs_start(struct recording_session *s, const char *rec,
			   const char *json, uint64_t max_size)
{
	return rs_start_waits(s, rec, json, max_size, false, NULL);
}

/*
 * The records of rs_trace(), made a run at a time (rs_gen_next()), so
 * that record_bench can time their handling apart from their making, as
 * a live session's drain is handed records that the module made.
 */
struct rs_gen {
	unsigned int i, calls;
	uint64_t ts, drained;
};

/* The slots one call takes at most: a stack (two) and four records. */
#define RS_GEN_CALL_SLOTS	6

/* As trace_start(), then before the first record: @g set to @calls. */
static inline void rs_gen_begin(struct recording_session *s,
				struct rs_gen *g, unsigned int calls)
{
	struct trace *t = &s->t;

	*g = (struct rs_gen){ .calls = calls, .ts = 1000000 };
	t->sum.t_enable = g->ts;
	/* As trace_start(): the tables a replay needs, ahead of the events. */
	if (t->out.rec && trace_begin_recording(t))
		exit(1);	/* said in one line */
	trace_thread_seen(t, 101, g->ts);
	if (!s->one_thread)
		trace_thread_seen(t, 102, g->ts);
	trace_set_trampoline(t, 0x7ffff000, 0x7ffff100);
}

/*
 * The next calls' records into @buf, @room slots (RS_GEN_CALL_SLOTS at
 * least), whole calls only: the slots used, 0 after the last call.
 */
static inline size_t rs_gen_next(const struct recording_session *s,
				 struct rs_gen *g, struct ispot_record *buf,
				 size_t room)
{
	/* A return address names the call before it: addr - 1. */
	uint64_t site = (uint64_t)(uintptr_t)recording_test_caller + 1;
	size_t n = 0;

	/* Less room would read as the end: the calls left never made. */
	assert(room >= RS_GEN_CALL_SLOTS);
	for (; g->i < g->calls && room - n >= RS_GEN_CALL_SLOTS; g->i++) {
		unsigned int i = g->i;
		uint32_t tid = 101 + (s->one_thread ? 0 : (i & 1));
		uint64_t sp = 0x7ffd0000 - tid * 0x1000;
		uint64_t d = 1000 + (i % 7) * 300 + (i & 1) * 500;
		uint64_t ts = g->ts += 100;

		if (i % 10 == 0) {
			rs_fill_stack(buf + n, ts, tid, RS_PROBE_WORKER, sp,
				      site);
			n += 2;
			g->drained++;
		}
		rs_fill(buf + n++, ts, ISPOT_REC_ENTRY, tid, RS_PROBE_WORKER,
			sp, site, s->arg0 ? s->arg0(i) : i % 3);
		rs_fill(buf + n++, ts + 10, ISPOT_REC_ENTRY, tid,
			RS_PROBE_FLUSH, sp - 64, site, 0);
		rs_fill(buf + n++, ts + d / 2, ISPOT_REC_EXIT, tid,
			RS_PROBE_FLUSH, sp - 56, site, 0);
		rs_fill(buf + n++, ts + d, ISPOT_REC_EXIT, tid,
			RS_PROBE_WORKER, sp + 8, site, 0);
		g->ts += d;
		g->drained += 4;
	}
	return n;
}

/* @n slots of rs_gen_next()'s into the session, record by record. */
static inline void rs_feed(struct recording_session *s,
			   const struct ispot_record *buf, size_t n)
{
	size_t at;

	for (at = 0; at < n; at += buf[at].nslots)
		trace_on_record(&s->t, buf + at);
}

/* After the last record: a thread's exit a scan found, the sums. */
static inline void rs_gen_end(struct recording_session *s,
			      const struct rs_gen *g)
{
	struct trace *t = &s->t;

	/* A scan found thread 102 gone, its exit record lost. */
	if (!s->one_thread)
		trace_thread_exit(t, 102, g->ts, g->ts + 100);
	t->sum.t_end = g->ts + 1000;
	t->sum.dropped = 3;
	/* The drain's count, which a session without rings keeps itself. */
	t->sum.drain.records = g->drained;
}

/* @calls calls of worker, each around one of flush: 4.2 records a call. */
static inline void rs_trace(struct recording_session *s, unsigned int calls)
{
	struct ispot_record buf[64 * RS_GEN_CALL_SLOTS];
	struct rs_gen g;
	size_t n;

	rs_gen_begin(s, &g, calls);
	while ((n = rs_gen_next(s, &g, buf, sizeof(buf) / sizeof(*buf))))
		rs_feed(s, buf, n);
	rs_gen_end(s, &g);
}

/* As trace_stop() and trace_report(): 0, or -1 after one line. */
static inline int rs_stop(struct recording_session *s)
{
	struct trace *t = &s->t;
	bool failed = false;

	trace_close_pipeline(t);
	if (t->out.rec) {
		t->sum.rec_full = recording_full(t->out.rec,
						 &t->sum.rec_full_size,
						 &t->sum.rec_full_ts);
		/* A failed recording fails rs_stop(); the report comes. */
		failed = trace_finish_recording(t);
	}
	if (trace_print_report(t))
		return -1;
	return failed ? -1 : 0;
}

#endif /* ISPOT_TEST_RECORDING_SESSION_H */
