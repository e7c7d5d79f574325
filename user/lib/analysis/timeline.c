// SPDX-License-Identifier: GPL-2.0
/*
 * The timeline's thread and CPU state: off-CPU time by cause, who is
 * active, who runs where, and the totals a call's figures are differences
 * of; see timeline.h.  Futex words are timeline_futex.c's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "analysis/timeline_internal.h"

/* The scheduler's TASK_* state bits a SWITCH_OUT carries (abi.rst). */
#define TL_TASK_INTERRUPTIBLE	0x1
#define TL_TASK_UNINTERRUPTIBLE	0x2

struct timeline *timeline_new(void)
{
	return calloc(1, sizeof(struct timeline));
}

void timeline_free(struct timeline *tl)
{
	const struct hashmap_entry *e;
	size_t pos;

	if (!tl)
		return;
	hashmap_for_each(&tl->threads, e, pos)
		free((void *)(uintptr_t)e->value);
	hashmap_free(&tl->threads);
	tl_futexes_free(tl);
	free(tl->cpus);
	free(tl);
}

struct tl_thread *timeline_thread_new(uint32_t tid)
{
	struct tl_thread *t = calloc(1, sizeof(*t));

	if (t)
		t->tid = tid;
	return t;
}

/* @tid's state, made on first sight; NULL without memory. */
static struct tl_thread *tl_thread(struct timeline *tl, uint32_t tid)
{
	struct tl_thread *t = hashmap_find_ptr(&tl->threads, tid);

	if (t)
		return t;
	t = timeline_thread_new(tid);
	if (!t || hashmap_insert(&tl->threads, tid, (uintptr_t)t)) {
		free(t);
		return NULL;
	}
	return t;
}

/*
 * A late record (another ring's, behind the merge) counts at the latest
 * time the timeline has seen, so the integrals never run backwards: what
 * a call read at its entry stays true.  last_ts >= act_since always.
 */
static uint64_t tl_clamp(const struct timeline *tl, uint64_t ts)
{
	return ts > tl->last_ts ? ts : tl->last_ts;
}

/* Integral of the number of active threads up to @ts (>= act_since). */
static uint64_t tl_all_active(const struct timeline *tl, uint64_t ts)
{
	return tl->act_acc + (uint64_t)tl->nr_active * (ts - tl->act_since);
}

static uint64_t tl_self_active(const struct tl_thread *t, uint64_t ts)
{
	return t->self_acc + (t->act == TL_ACT_ACTIVE && ts > t->self_since ?
			      ts - t->self_since : 0);
}

/*
 * The integral of the *other* active threads: everyone's minus its own.
 * Unsigned differences of it are right across wrap-around.
 */
static uint64_t tl_others(const struct timeline *tl, const struct tl_thread *t,
			  uint64_t ts)
{
	ts = tl_clamp(tl, ts);
	return tl_all_active(tl, ts) - tl_self_active(t, ts);
}

void tl_set_act(struct timeline *tl, struct tl_thread *t,
		       enum tl_act act, uint64_t ts)
{
	bool was = t->act == TL_ACT_ACTIVE, is = act == TL_ACT_ACTIVE;

	if (was != is) {
		ts = tl_clamp(tl, ts);
		tl->act_acc = tl_all_active(tl, ts);
		tl->act_since = ts;
		if (is) {
			tl->nr_active++;
			t->self_since = ts;
		} else {
			t->self_acc = tl_self_active(t, ts);
			tl->nr_active--;
		}
	}
	t->act = act;
}

/* A record of its own: a thread not seen before is active from now. */
static void tl_seen(struct timeline *tl, struct tl_thread *t, uint64_t ts)
{
	if (t->act == TL_ACT_UNSEEN)
		tl_set_act(tl, t, TL_ACT_ACTIVE, ts);
}

/* How long the program had more threads wanting a CPU than CPUs, to @ts. */
static uint64_t tl_over(const struct timeline *tl, uint64_t ts)
{
	return tl->over_acc + (tl->nr_demand > tl->nr_cpus_used &&
			       ts > tl->over_since ? ts - tl->over_since : 0);
}

/* Before nr_demand or nr_cpus_used changes at @ts. */
static void tl_over_mark(struct timeline *tl, uint64_t ts)
{
	ts = tl_clamp(tl, ts);
	tl->over_acc = tl_over(tl, ts);
	tl->over_since = ts;
}

/* Whether @t wants a CPU (runs or is runnable): keep nr_demand so. */
static void tl_update_demand(struct timeline *tl, struct tl_thread *t,
			     uint64_t ts)
{
	bool want = t->act != TL_ACT_GONE &&
		    (t->on_cpu || (t->off && t->off_preempted));

	if (want == t->demand)
		return;
	tl_over_mark(tl, ts);
	tl->nr_demand += want ? 1 : -1;
	t->demand = want;
}

/* How long CPU @c ran traced threads up to @ts. */
static uint64_t cpu_traced(const struct tl_cpu *c, uint64_t ts)
{
	return c->acc + (c->tid && ts > c->since ? ts - c->since : 0);
}

/* CPU @cpu's state; the CPUs are grown zeroed: never used. */
static struct tl_cpu *tl_cpu(struct timeline *tl, uint32_t cpu)
{
	if (ARRAY_RESERVE(tl->cpus, tl->nr_cpus, (size_t)cpu + 1))
		return NULL;
	return &tl->cpus[cpu];
}

static void tl_vacate(struct timeline *tl, struct tl_thread *t, uint64_t ts)
{
	struct tl_cpu *c;

	if (!t->on_cpu)
		return;
	c = &tl->cpus[t->on_cpu - 1];
	if (c->tid == t->tid) {
		c->acc = cpu_traced(c, ts);
		c->tid = 0;
		c->thread = NULL;
	}
	t->on_cpu = 0;
	tl_update_demand(tl, t, ts);
}

/*
 * CPU @c's thread is off it without a SWITCH_OUT (lost in a full ring):
 * it no longer runs there, and what it does now is unknown, so it wants
 * no CPU until its next record says so.
 */
static void tl_displaced(struct timeline *tl, struct tl_cpu *c, uint64_t ts)
{
	struct tl_thread *o = c->thread;

	if (o && o->on_cpu && &tl->cpus[o->on_cpu - 1] == c) {
		o->on_cpu = 0;
		tl_update_demand(tl, o, ts);
	}
}

/*
 * tl_occupy()'s rare path: @t moves onto @cpu at @ts (whoever the CPU had
 * is off it: a lost OUT).
 */
static __attribute__((noinline)) int tl_move(struct timeline *tl,
					     struct tl_thread *t,
					     uint32_t cpu, uint64_t ts)
{
	struct tl_cpu *c;

	tl_vacate(tl, t, ts);
	c = tl_cpu(tl, cpu);
	if (!c)
		return -ENOMEM;
	if (c->tid)
		tl_displaced(tl, c, ts);
	c->acc = cpu_traced(c, ts);
	c->tid = t->tid;
	c->thread = t;
	c->since = ts;
	if (!c->used) {
		tl_over_mark(tl, ts);
		c->used = true;
		tl->nr_cpus_used++;
	}
	t->on_cpu = cpu + 1;
	tl_update_demand(tl, t, ts);
	return 0;
}

/*
 * @t runs on @cpu from @ts.  Inline, the test alone: nearly every record is
 * of the thread already on its CPU, and the move needs a long prologue.
 */
static inline int tl_occupy(struct timeline *tl, struct tl_thread *t,
			    uint32_t cpu, uint64_t ts)
{
	if (t->on_cpu == cpu + 1 && tl->cpus[cpu].tid == t->tid)
		return 0;
	return tl_move(tl, t, cpu, ts);
}

static void tl_back_on_cpu(struct timeline *tl, struct tl_thread *t,
			   uint64_t ts)
{
	enum timeline_cause c;
	uint64_t off, traced, over;

	/* Whatever ran it again woke it: it may touch shared state. */
	if (t->act == TL_ACT_IDLE)
		tl_set_act(tl, t, TL_ACT_ACTIVE, ts);
	if (!t->off)
		return;
	t->off = false;
	tl_update_demand(tl, t, ts);
	if (ts <= t->off_since)
		return;
	off = ts - t->off_since;
	/* Preempted inside a futex call is still waiting for a CPU. */
	c = t->off_preempted ? TL_RUNQUEUE :
	    t->off_in_futex ? TL_FUTEX : TL_BLOCKED;
	t->cum[c] += off;
	if (c != TL_RUNQUEUE || t->rq_cpu >= tl->nr_cpus)
		return;
	/*
	 * Behind the program's threads while its CPU ran them, and only
	 * while the program had more threads wanting a CPU than it has CPUs:
	 * with no more than that, each would have had a CPU but for other
	 * processes (a thread displaced onto a sibling's CPU by an outside
	 * task waits for that task, not for the sibling).  Else behind others.
	 */
	traced = cpu_traced(&tl->cpus[t->rq_cpu], ts) - t->rq_mark;
	over = tl_over(tl, ts) - t->over_mark;
	if (traced > over)
		traced = over;
	t->cum[TL_RQ_PROGRAM] += traced < off ? traced : off;
}

/*
 * timeline_thread_running()'s rare path, out of line: @t is not yet
 * active, was in a futex wait or switched out (lost records), or is not
 * on @cpu.  Every step is a no-op for a thread that is none of those.
 */
static __attribute__((noinline)) int
tl_running_changed(struct timeline *tl, struct tl_thread *t, uint16_t cpu,
		   uint64_t ts, uint64_t out[TL_NR_TOTALS])
{
	if (ts > tl->last_ts)
		tl->last_ts = ts;
	tl_seen(tl, t, ts);
	/* A call returned, so a futex wait it was in ended: a lost EXIT. */
	if (t->act == TL_ACT_WAITING) {
		tl_set_act(tl, t, TL_ACT_ACTIVE, ts);
		t->in_futex = false;
	}
	if (t->off) {
		tl->st.lost_switch_in++;
		tl_back_on_cpu(tl, t, ts);
	}
	memcpy(out, t->cum, TL_NR_TOTALS * sizeof(*out));
	out[TL_OTHERS] = tl_others(tl, t, ts);
	/* A late record of an exited thread: it runs nowhere any more. */
	return t->act == TL_ACT_GONE ? 0 : tl_occupy(tl, t, cpu, ts);
}

/*
 * Every ENTRY and EXIT comes here, and nearly every one is of an active
 * thread already running on its CPU: for it the clock and the totals
 * alone, in a leaf that saves no registers (the full path's prologue
 * cost more than its work).
 */
int timeline_thread_running(struct timeline *tl, struct tl_thread *t,
			    uint16_t cpu, uint64_t ts,
			    uint64_t out[TL_NR_TOTALS])
{
	uint64_t others;

	if (t->act != TL_ACT_ACTIVE || t->off || t->on_cpu != cpu + 1u ||
	    tl->cpus[cpu].tid != t->tid)
		return tl_running_changed(tl, t, cpu, ts, out);
	if (ts > tl->last_ts)
		tl->last_ts = ts;
	/* Before the copy, which the compiler cannot tell from @t. */
	others = tl_others(tl, t, ts);
	memcpy(out, t->cum, TL_NR_TOTALS * sizeof(*out));
	out[TL_OTHERS] = others;
	return 0;
}

int timeline_running_totals(struct timeline *tl, uint32_t tid, uint16_t cpu,
			    uint64_t ts, uint64_t out[TL_NR_TOTALS])
{
	struct tl_thread *t = tl_thread(tl, tid);

	if (!t) {
		memset(out, 0, TL_NR_TOTALS * sizeof(*out));
		return -ENOMEM;
	}
	return timeline_thread_running(tl, t, cpu, ts, out);
}

void timeline_totals(const struct timeline *tl, uint32_t tid,
		     uint64_t out[TL_NR_TOTALS])
{
	const struct tl_thread *t = hashmap_find_ptr(&tl->threads, tid);

	if (t) {
		memcpy(out, t->cum, TL_NR_TOTALS * sizeof(*out));
		out[TL_OTHERS] = tl_others(tl, t, tl->last_ts);
	} else {
		memset(out, 0, TL_NR_TOTALS * sizeof(*out));
	}
}

uint32_t timeline_active(const struct timeline *tl)
{
	return tl->nr_active;
}

int timeline_record(struct timeline *tl, const struct ispot_record *rec,
		    uint32_t open_func)
{
	return timeline_record_callsite(tl, rec, open_func, 0);
}

/*
 * Whether a thread that blocked in @prev_state, with @open_func the traced
 * function it is in, is idle: an interruptible sleep (nanosleep, poll,
 * epoll_wait, accept, a pipe read) outside every traced call.  One in
 * uninterruptible sleep is most often doing I/O, which a disk shared with
 * the other threads turns into interference, so it stays active; and one
 * that sleeps inside a traced call may hold what that call protects (a
 * spinlock held across a sleep).  A futex wait is WAITING already.
 */
static bool tl_sleep_is_idle(uint64_t prev_state, uint32_t open_func)
{
	return open_func == TL_NO_FUNC &&
	       (prev_state & (TL_TASK_INTERRUPTIBLE | TL_TASK_UNINTERRUPTIBLE))
	       == TL_TASK_INTERRUPTIBLE;
}

static int tl_switch_out(struct timeline *tl, struct tl_thread *t,
			 const struct ispot_record *rec, uint32_t open_func)
{
	struct tl_cpu *c;

	tl->st.switches++;
	/* Two OUTs in a row: the IN between them was lost. */
	tl_back_on_cpu(tl, t, rec->ts_ns);
	tl_vacate(tl, t, rec->ts_ns);
	t->off = true;
	t->off_since = rec->ts_ns;
	t->off_preempted = rec->data[0] != 0;
	t->off_in_futex = t->in_futex;
	if (!t->off_preempted) {
		if (t->act == TL_ACT_ACTIVE && !t->in_futex &&
		    tl_sleep_is_idle(rec->data[1], open_func))
			tl_set_act(tl, t, TL_ACT_IDLE, rec->ts_ns);
		return 0;
	}
	c = tl_cpu(tl, rec->cpu);
	if (!c)
		return -ENOMEM;
	t->rq_cpu = rec->cpu;
	t->rq_mark = cpu_traced(c, rec->ts_ns);
	t->over_mark = tl_over(tl, rec->ts_ns);
	tl_update_demand(tl, t, rec->ts_ns);
	return 0;
}

/*
 * A thread is born active, and a reused tid is a new thread: nothing of
 * the old one's state carries over but its totals, which only grow (a
 * call's figures are differences of them).
 */
static void tl_task_new(struct timeline *tl, struct tl_thread *t,
			uint64_t ts)
{
	uint64_t cum[TL_NR_TOTALS];
	uint32_t tid = t->tid;
	uint8_t act = t->act;

	tl_vacate(tl, t, ts);
	t->off = false;
	tl_update_demand(tl, t, ts);
	memcpy(cum, t->cum, sizeof(cum));
	if (act == TL_ACT_ACTIVE)
		tl_set_act(tl, t, TL_ACT_GONE, ts);
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	memcpy(t->cum, cum, sizeof(cum));
	tl_set_act(tl, t, TL_ACT_ACTIVE, ts);
}

void timeline_thread_exited(struct timeline *tl, struct tl_thread *t,
			    uint64_t ts)
{
	if (ts > tl->last_ts)
		tl->last_ts = ts;
	if (!t)
		return;
	tl_vacate(tl, t, ts);
	tl_set_act(tl, t, TL_ACT_GONE, ts);
	tl_update_demand(tl, t, ts);
}

void timeline_thread_exit(struct timeline *tl, uint32_t tid, uint64_t ts)
{
	timeline_thread_exited(tl, hashmap_find_ptr(&tl->threads, tid), ts);
}

/* Whether timeline_record_callsite() takes records of @kind. */
static bool tl_takes(uint8_t kind)
{
	switch (kind) {
	case ISPOT_REC_SWITCH_OUT:
	case ISPOT_REC_SWITCH_IN:
	case ISPOT_REC_FUTEX_ENTER:
	case ISPOT_REC_FUTEX_EXIT:
	case ISPOT_REC_TASK_NEW:
		return true;
	default:
		return false;
	}
}

int timeline_thread_record(struct timeline *tl, struct tl_thread *t,
			   const struct ispot_record *rec,
			   uint32_t open_func, uint64_t callsite)
{
	if (!tl_takes(rec->kind))
		return 0;
	if (rec->ts_ns > tl->last_ts)
		tl->last_ts = rec->ts_ns;
	if (rec->kind == ISPOT_REC_TASK_NEW) {
		tl_task_new(tl, t, rec->ts_ns);
		return 0;
	}
	tl_seen(tl, t, rec->ts_ns);
	if (rec->kind == ISPOT_REC_SWITCH_OUT)
		return tl_switch_out(tl, t, rec, open_func);
	if (rec->kind == ISPOT_REC_SWITCH_IN && !t->off)
		tl->st.stray++;
	/* The rest are recorded by the thread itself, on its CPU. */
	tl_back_on_cpu(tl, t, rec->ts_ns);
	if (t->act != TL_ACT_GONE && tl_occupy(tl, t, rec->cpu, rec->ts_ns))
		return -ENOMEM;
	if (rec->kind == ISPOT_REC_FUTEX_ENTER)
		return tl_futex_enter(tl, t, rec, open_func, callsite);
	if (rec->kind == ISPOT_REC_SWITCH_IN)
		return 0;
	if (!t->in_futex) {
		tl->st.stray++;
		return 0;
	}
	return tl_futex_exit(tl, t, rec->ts_ns, (int64_t)rec->data[0]);
}

int timeline_record_callsite(struct timeline *tl,
			     const struct ispot_record *rec,
			     uint32_t open_func, uint64_t callsite)
{
	struct tl_thread *t;

	if (!tl_takes(rec->kind))
		return 0;
	t = tl_thread(tl, rec->tid);
	if (!t)
		return -ENOMEM;
	return timeline_thread_record(tl, t, rec, open_func, callsite);
}

void timeline_thread_free(struct timeline *tl, struct tl_thread *t)
{
	if (!t)
		return;
	tl_vacate(tl, t, tl->last_ts);
	tl_set_act(tl, t, TL_ACT_GONE, tl->last_ts);
	tl_update_demand(tl, t, tl->last_ts);
	free(t);
}

void timeline_forget(struct timeline *tl, uint32_t tid)
{
	uint64_t t;

	if (hashmap_delete(&tl->threads, tid, &t))
		timeline_thread_free(tl, (struct tl_thread *)(uintptr_t)t);
}

const struct timeline_stats *timeline_stats(const struct timeline *tl)
{
	return &tl->st;
}
