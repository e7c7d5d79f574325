// SPDX-License-Identifier: GPL-2.0
/* Off-CPU time by cause, and the futex report; see timeline.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>	/* the ABI's op numbers only */

#include "analysis/timeline.h"
#include "util/openaddr.h"

/* The scheduler's TASK_* state bits a SWITCH_OUT carries (abi.rst). */
#define TL_TASK_INTERRUPTIBLE	0x1
#define TL_TASK_UNINTERRUPTIBLE	0x2

/* A thread's activity (timeline.h, "Context"). */
enum tl_act {
	TL_ACT_UNSEEN,		/* nothing recorded yet: not counted */
	TL_ACT_ACTIVE,
	TL_ACT_WAITING,		/* in a futex wait */
	TL_ACT_IDLE,		/* asleep outside every traced call */
	TL_ACT_GONE,		/* exited */
};

/* Which traced thread a CPU runs, and for how long it ran any so far. */
struct tl_cpu {
	uint32_t tid;		/* 0: none (tid 0 is the idle task) */
	uint64_t since;
	uint64_t acc;
	bool used;		/* a traced thread ran on it at some time */
};

struct tl_thread {
	uint32_t tid;
	bool used;
	uint8_t act;		/* enum tl_act */
	uint32_t on_cpu;	/* the CPU it runs on + 1, 0 = none known */
	uint32_t rq_cpu;	/* where it was preempted */
	uint64_t rq_mark;	/* that CPU's traced time then */
	uint64_t over_mark;	/* and the oversubscribed time then */
	bool demand;		/* on a CPU, or runnable: counted in nr_demand */
	uint64_t futex_mark;	/* cum[TL_FUTEX] when its wait began */
	uint64_t self_acc;	/* its own active time, up to self_since */
	uint64_t self_since;
	bool off;		/* switched out, not back yet */
	bool off_preempted;
	bool off_in_futex;
	bool in_futex;
	uint32_t futex_op;
	uint32_t futex_func;
	uint64_t off_since;
	uint64_t futex_uaddr;
	uint64_t futex_since;
	uint64_t cum[TL_NR_TOTALS];	/* TL_OTHERS: unused, computed */
	uint64_t waited_exact;	/* bit i: waited on futex word i */
	size_t last_waited;	/* the word of its latest wait, + 1 */
};

struct timeline {
	struct tl_thread *threads;	/* open addressing by tid */
	size_t cap, used;
	struct timeline_futex *futexes;
	size_t nr_futexes, cap_futexes;
	/* Active threads, and their count's integral up to act_since. */
	uint32_t nr_active;
	uint64_t act_acc, act_since;
	uint64_t last_ts;
	struct tl_cpu *cpus;
	size_t nr_cpus;
	/*
	 * Threads on a CPU or waiting for one (demand), the CPUs traced
	 * threads ran on so far (what the program may use), and the
	 * integral up to over_since of the time when the first exceeded
	 * the second: when the program's own threads outnumbered its CPUs.
	 */
	uint32_t nr_demand, nr_cpus_used;
	uint64_t over_acc, over_since;
	/* timeline_futexes()'s order; the lines keep theirs (waited_exact). */
	struct timeline_futex *sorted;
	struct timeline_stats st;
};

int timeline_futex_op_waits(uint32_t op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
	case FUTEX_LOCK_PI:
	case FUTEX_WAIT_BITSET:
	case FUTEX_WAIT_REQUEUE_PI:
	case FUTEX_LOCK_PI2:
		return 1;
	default:
		return 0;
	}
}

/*
 * The requeues wake up to val waiters of uaddr and move the others to
 * uaddr2 (not recorded): a requeued waiter is later credited to whatever
 * woke uaddr last.  FUTEX_WAKE_OP's second word is not recorded either.
 */
int timeline_futex_op_wakes(uint32_t op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAKE:
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
	case FUTEX_WAKE_OP:
	case FUTEX_UNLOCK_PI:
	case FUTEX_WAKE_BITSET:
	case FUTEX_CMP_REQUEUE_PI:
		return 1;
	default:
		return 0;
	}
}

static struct timeline_waker *wakers_find(struct timeline_wakers *w,
					  uint32_t func, uint64_t callsite)
{
	uint32_t i;

	for (i = 0; i < w->nr; i++)
		if (w->w[i].func == func && w->w[i].callsite == callsite)
			return &w->w[i];
	return NULL;
}

void timeline_wakers_add(struct timeline_wakers *w, uint32_t func,
			 uint64_t callsite, uint64_t wait_ns)
{
	struct timeline_waker *x;

	/* A call site names a caller only where no traced function does. */
	if (func != TL_NO_FUNC)
		callsite = 0;
	x = wakers_find(w, func, callsite);
	if (!x && w->nr >= TL_WAKERS) {
		func = TL_WAKER_OTHER;
		callsite = 0;
		x = wakers_find(w, func, callsite);
	}
	/* Room: fewer than TL_WAKERS, or "(other)" is the extra slot. */
	if (!x) {
		x = &w->w[w->nr++];
		x->func = func;
		x->callsite = callsite;
		x->wait_ns = 0;
	}
	x->wait_ns += wait_ns;
}

struct timeline *timeline_new(void)
{
	struct timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->cap = 64;
	tl->threads = calloc(tl->cap, sizeof(*tl->threads));
	if (!tl->threads) {
		free(tl);
		return NULL;
	}
	return tl;
}

void timeline_free(struct timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->nr_futexes; i++)
		free(tl->futexes[i].funcs);
	free(tl->futexes);
	free(tl->sorted);
	free(tl->threads);
	free(tl->cpus);
	free(tl);
}

static size_t tl_home(const struct timeline *tl, uint32_t tid)
{
	return (tid * 0x9e3779b1u) & (tl->cap - 1);
}

static size_t tl_slot(const struct timeline *tl, uint32_t tid)
{
	size_t i = tl_home(tl, tid);

	while (tl->threads[i].used && tl->threads[i].tid != tid)
		i = (i + 1) & (tl->cap - 1);
	return i;
}

static struct tl_thread *tl_thread(struct timeline *tl, uint32_t tid)
{
	size_t i = tl_slot(tl, tid);

	if (tl->threads[i].used)
		return &tl->threads[i];
	if ((tl->used + 1) * 2 > tl->cap) {
		struct tl_thread *old = tl->threads;
		size_t j, oldcap = tl->cap;

		tl->threads = calloc(oldcap * 2, sizeof(*tl->threads));
		if (!tl->threads) {
			tl->threads = old;
			return NULL;
		}
		tl->cap = oldcap * 2;
		for (j = 0; j < oldcap; j++)
			if (old[j].used)
				tl->threads[tl_slot(tl, old[j].tid)] = old[j];
		free(old);
		i = tl_slot(tl, tid);
	}
	tl->used++;
	memset(&tl->threads[i], 0, sizeof(tl->threads[i]));
	tl->threads[i].used = true;
	tl->threads[i].tid = tid;
	return &tl->threads[i];
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

static void tl_set_act(struct timeline *tl, struct tl_thread *t,
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

static struct tl_cpu *tl_cpu(struct timeline *tl, uint32_t cpu)
{
	if (cpu >= tl->nr_cpus) {
		size_t n = cpu + 1u > 2 * tl->nr_cpus ? cpu + 1u :
			   2 * tl->nr_cpus;
		struct tl_cpu *c = realloc(tl->cpus, n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + tl->nr_cpus, 0, (n - tl->nr_cpus) * sizeof(*c));
		tl->cpus = c;
		tl->nr_cpus = n;
	}
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
	struct tl_thread *o = &tl->threads[tl_slot(tl, c->tid)];

	if (o->used && o->on_cpu && &tl->cpus[o->on_cpu - 1] == c) {
		o->on_cpu = 0;
		tl_update_demand(tl, o, ts);
	}
}

/* @t runs on @cpu from @ts (whoever the CPU had is off it: a lost OUT). */
static int tl_occupy(struct timeline *tl, struct tl_thread *t, uint32_t cpu,
		     uint64_t ts)
{
	struct tl_cpu *c;

	if (t->on_cpu == cpu + 1 && tl->cpus[cpu].tid == t->tid)
		return 0;
	tl_vacate(tl, t, ts);
	c = tl_cpu(tl, cpu);
	if (!c)
		return -ENOMEM;
	if (c->tid)
		tl_displaced(tl, c, ts);
	c->acc = cpu_traced(c, ts);
	c->tid = t->tid;
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

int timeline_running_totals(struct timeline *tl, uint32_t tid, uint16_t cpu,
			    uint64_t ts, uint64_t out[TL_NR_TOTALS])
{
	struct tl_thread *t = tl_thread(tl, tid);

	if (!t) {
		memset(out, 0, TL_NR_TOTALS * sizeof(*out));
		return -ENOMEM;
	}
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

void timeline_totals(const struct timeline *tl, uint32_t tid,
		     uint64_t out[TL_NR_TOTALS])
{
	const struct tl_thread *t = &tl->threads[tl_slot(tl, tid)];

	if (t->used) {
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

/* For the probed functions open at waits: few, so a list will do. */
static int add_distinct(uint32_t **arr, uint32_t *n, uint32_t v)
{
	uint32_t i, *a;

	for (i = 0; i < *n; i++)
		if ((*arr)[i] == v)
			return 0;
	a = realloc(*arr, (*n + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	a[*n] = v;
	*arr = a;
	(*n)++;
	return 0;
}

static struct timeline_futex *tl_futex(struct timeline *tl, uint64_t uaddr)
{
	struct timeline_futex *f;
	size_t i;

	/* Few futexes are ever contended: a scan is enough. */
	for (i = 0; i < tl->nr_futexes; i++)
		if (tl->futexes[i].uaddr == uaddr)
			return &tl->futexes[i];
	if (tl->nr_futexes == tl->cap_futexes) {
		size_t cap = tl->cap_futexes ? 2 * tl->cap_futexes : 8;

		f = realloc(tl->futexes, cap * sizeof(*f));
		if (!f)
			return NULL;
		tl->futexes = f;
		tl->cap_futexes = cap;
	}
	f = &tl->futexes[tl->nr_futexes++];
	memset(f, 0, sizeof(*f));
	f->uaddr = uaddr;
	return f;
}

/*
 * A wake on @uaddr: the next wait on it to end woken was (most likely)
 * ended by this one.  Kept even if nobody waits yet, since the wake comes
 * before the waiter's return.
 */
static int tl_futex_wake(struct timeline *tl, uint64_t uaddr, uint64_t ts,
			 uint32_t func, uint64_t callsite)
{
	struct timeline_futex *f = tl_futex(tl, uaddr);

	if (!f)
		return -ENOMEM;
	f->woken = true;
	f->last_waker = func;
	f->last_waker_callsite = callsite;
	f->last_wake_ts = ts;
	return 0;
}

/*
 * Only a wait that returned 0 was woken (not timed out, interrupted or
 * turned away because the word changed), and only by a wake issued after
 * it began: an earlier one could not have found it queued.
 */
bool timeline_wake_ended_wait(uint64_t wake_ts, uint64_t wait_since,
			      int64_t ret)
{
	return ret == 0 && wake_ts >= wait_since;
}

/*
 * A woken wait without such a wake was woken by a thread outside the
 * target (or records were lost): untraced.
 */
static bool tl_futex_woken(struct timeline_futex *f, const struct tl_thread *t,
			   uint64_t wait_ns, int64_t ret)
{
	uint32_t func = TL_NO_FUNC;
	uint64_t callsite = 0;
	bool traced = false;

	if (ret != 0)
		return false;
	if (f->woken &&
	    timeline_wake_ended_wait(f->last_wake_ts, t->futex_since, ret)) {
		func = f->last_waker;
		callsite = f->last_waker_callsite;
		traced = true;
	}
	timeline_wakers_add(&f->woken_from, func, callsite, wait_ns);
	return traced;
}

/* Count @t among @f's waiting threads once (see TL_FUTEX_EXACT). */
static void tl_futex_count_thread(const struct timeline *tl,
				  struct timeline_futex *f, struct tl_thread *t)
{
	size_t line = (size_t)(f - tl->futexes);

	if (line < TL_FUTEX_EXACT) {
		if (!(t->waited_exact & (1ull << line)))
			f->threads++;
		t->waited_exact |= 1ull << line;
	} else if (t->last_waited != line + 1) {
		f->threads++;
	}
	t->last_waited = line + 1;
}

static int tl_futex_exit(struct timeline *tl, struct tl_thread *t,
			 uint64_t ts, int64_t ret)
{
	struct timeline_futex *f;
	uint64_t wait_ns;

	t->in_futex = false;
	if (!timeline_futex_op_waits(t->futex_op))
		return 0;
	if (t->act == TL_ACT_WAITING)
		tl_set_act(tl, t, TL_ACT_ACTIVE, ts);
	f = tl_futex(tl, t->futex_uaddr);
	if (!f)
		return -ENOMEM;
	wait_ns = ts > t->futex_since ? ts - t->futex_since : 0;
	f->waits++;
	f->wait_ns += wait_ns;
	/* Woken by a traced thread: the wait was that thread's doing. */
	if (tl_futex_woken(f, t, wait_ns, ret))
		t->cum[TL_WAITED] += t->cum[TL_FUTEX] - t->futex_mark;
	tl_futex_count_thread(tl, f, t);
	if (t->futex_func != TL_NO_FUNC &&
	    add_distinct(&f->funcs, &f->nr_funcs, t->futex_func))
		return -ENOMEM;
	return 0;
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

static int tl_futex_enter(struct timeline *tl, struct tl_thread *t,
			  const struct ispot_record *rec, uint32_t open_func,
			  uint64_t callsite)
{
	tl->st.futex_calls++;
	/* Another futex call: the wait before it ended, its EXIT lost. */
	if (t->act == TL_ACT_WAITING)
		tl_set_act(tl, t, TL_ACT_ACTIVE, rec->ts_ns);
	t->in_futex = true;
	t->futex_uaddr = rec->data[0];
	t->futex_op = (uint32_t)rec->data[1];
	t->futex_since = rec->ts_ns;
	t->futex_func = open_func;
	if (timeline_futex_op_wakes(t->futex_op))
		return tl_futex_wake(tl, t->futex_uaddr, rec->ts_ns,
				     open_func, callsite);
	if (timeline_futex_op_waits(t->futex_op)) {
		t->futex_mark = t->cum[TL_FUTEX];
		tl_set_act(tl, t, TL_ACT_WAITING, rec->ts_ns);
	}
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
	t->used = true;
	t->tid = tid;
	memcpy(t->cum, cum, sizeof(cum));
	tl_set_act(tl, t, TL_ACT_ACTIVE, ts);
}

void timeline_thread_exit(struct timeline *tl, uint32_t tid, uint64_t ts)
{
	struct tl_thread *t = &tl->threads[tl_slot(tl, tid)];

	if (ts > tl->last_ts)
		tl->last_ts = ts;
	if (!t->used)
		return;
	tl_vacate(tl, t, ts);
	tl_set_act(tl, t, TL_ACT_GONE, ts);
	tl_update_demand(tl, t, ts);
}

int timeline_record_callsite(struct timeline *tl,
			     const struct ispot_record *rec,
			     uint32_t open_func, uint64_t callsite)
{
	struct tl_thread *t;

	switch (rec->kind) {
	case ISPOT_REC_SWITCH_OUT:
	case ISPOT_REC_SWITCH_IN:
	case ISPOT_REC_FUTEX_ENTER:
	case ISPOT_REC_FUTEX_EXIT:
	case ISPOT_REC_TASK_NEW:
		break;
	default:
		return 0;
	}
	t = tl_thread(tl, rec->tid);
	if (!t)
		return -ENOMEM;
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

static int cmp_futex(const void *a, const void *b)
{
	const struct timeline_futex *x = a, *y = b;

	/* Words only woken, never waited on, go last and are not reported. */
	if (!x->waits != !y->waits)
		return x->waits ? -1 : 1;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	return x->uaddr < y->uaddr ? -1 : x->uaddr > y->uaddr;
}

size_t timeline_futexes(struct timeline *tl,
			const struct timeline_futex **out)
{
	struct timeline_futex *s;
	size_t n = 0;

	/* Shallow copies: funcs stay the lines' own, valid until a record. */
	s = realloc(tl->sorted, (tl->nr_futexes + 1) * sizeof(*s));
	if (!s) {
		*out = NULL;
		return 0;
	}
	tl->sorted = s;
	memcpy(s, tl->futexes, tl->nr_futexes * sizeof(*s));
	qsort(s, tl->nr_futexes, sizeof(*s), cmp_futex);
	while (n < tl->nr_futexes && s[n].waits)
		n++;
	*out = s;
	return n;
}

/* Deletion by backward shift (openaddr.h). */
void timeline_forget(struct timeline *tl, uint32_t tid)
{
	size_t i = tl_slot(tl, tid), j, home;

	if (!tl->threads[i].used)
		return;
	tl_vacate(tl, &tl->threads[i], tl->last_ts);
	tl_set_act(tl, &tl->threads[i], TL_ACT_GONE, tl->last_ts);
	tl_update_demand(tl, &tl->threads[i], tl->last_ts);
	for (j = i;;) {
		j = (j + 1) & (tl->cap - 1);
		if (!tl->threads[j].used)
			break;
		home = tl_home(tl, tl->threads[j].tid);
		if (openaddr_may_fill(home, i, j)) {
			tl->threads[i] = tl->threads[j];
			i = j;
		}
	}
	memset(&tl->threads[i], 0, sizeof(tl->threads[i]));
	tl->used--;
}

const struct timeline_stats *timeline_stats(const struct timeline *tl)
{
	return &tl->st;
}
