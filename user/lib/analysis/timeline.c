// SPDX-License-Identifier: GPL-2.0
/* Off-CPU time by cause, and the futex report; see timeline.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>	/* the ABI's op numbers only */

#include "analysis/timeline.h"
#include "util/openaddr.h"

struct tl_thread {
	uint32_t tid;
	bool used;
	bool off;		/* switched out, not back yet */
	bool off_preempted;
	bool off_in_futex;
	bool in_futex;
	uint32_t futex_op;
	uint32_t futex_func;
	uint64_t off_since;
	uint64_t futex_uaddr;
	uint64_t futex_since;
	uint64_t cum[TL_NR_CAUSES];
	uint64_t waited_exact;	/* bit i: waited on futex word i */
	size_t last_waited;	/* the word of its latest wait, + 1 */
};

struct timeline {
	struct tl_thread *threads;	/* open addressing by tid */
	size_t cap, used;
	struct timeline_futex *futexes;
	size_t nr_futexes, cap_futexes;
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

static void tl_back_on_cpu(struct tl_thread *t, uint64_t ts)
{
	enum timeline_cause c;

	if (!t->off)
		return;
	t->off = false;
	if (ts <= t->off_since)
		return;
	/* Preempted inside a futex call is still waiting for a CPU. */
	c = t->off_preempted ? TL_RUNQUEUE :
	    t->off_in_futex ? TL_FUTEX : TL_BLOCKED;
	t->cum[c] += ts - t->off_since;
}

void timeline_running(struct timeline *tl, uint32_t tid, uint64_t ts)
{
	uint64_t unused[TL_NR_CAUSES];

	timeline_running_totals(tl, tid, ts, unused);
}

void timeline_running_totals(struct timeline *tl, uint32_t tid, uint64_t ts,
			     uint64_t out[TL_NR_CAUSES])
{
	struct tl_thread *t = &tl->threads[tl_slot(tl, tid)];

	if (!t->used) {
		memset(out, 0, sizeof(t->cum));
		return;
	}
	if (t->off) {
		tl->st.lost_switch_in++;
		tl_back_on_cpu(t, ts);
	}
	memcpy(out, t->cum, sizeof(t->cum));
}

void timeline_totals(const struct timeline *tl, uint32_t tid,
		     uint64_t out[TL_NR_CAUSES])
{
	const struct tl_thread *t = &tl->threads[tl_slot(tl, tid)];

	if (t->used)
		memcpy(out, t->cum, sizeof(t->cum));
	else
		memset(out, 0, sizeof(t->cum));
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
 * it began: an earlier one could not have found it queued.  Without one,
 * a thread outside the target (or lost records) woke it: untraced.
 */
static void tl_futex_woken(struct timeline_futex *f, const struct tl_thread *t,
			   uint64_t wait_ns, int64_t ret)
{
	uint32_t func = TL_NO_FUNC;
	uint64_t callsite = 0;

	if (ret != 0)
		return;
	if (f->woken && f->last_wake_ts >= t->futex_since) {
		func = f->last_waker;
		callsite = f->last_waker_callsite;
	}
	timeline_wakers_add(&f->woken_from, func, callsite, wait_ns);
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
	f = tl_futex(tl, t->futex_uaddr);
	if (!f)
		return -ENOMEM;
	wait_ns = ts > t->futex_since ? ts - t->futex_since : 0;
	f->waits++;
	f->wait_ns += wait_ns;
	tl_futex_woken(f, t, wait_ns, ret);
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
		break;
	default:
		return 0;
	}
	t = tl_thread(tl, rec->tid);
	if (!t)
		return -ENOMEM;
	switch (rec->kind) {
	case ISPOT_REC_SWITCH_OUT:
		tl->st.switches++;
		/* Two OUTs in a row: the IN between them was lost. */
		tl_back_on_cpu(t, rec->ts_ns);
		t->off = true;
		t->off_since = rec->ts_ns;
		t->off_preempted = rec->data[0] != 0;
		t->off_in_futex = t->in_futex;
		return 0;
	case ISPOT_REC_SWITCH_IN:
		if (!t->off)
			tl->st.stray++;
		tl_back_on_cpu(t, rec->ts_ns);
		return 0;
	case ISPOT_REC_FUTEX_ENTER:
		tl->st.futex_calls++;
		tl_back_on_cpu(t, rec->ts_ns);
		t->in_futex = true;
		t->futex_uaddr = rec->data[0];
		t->futex_op = (uint32_t)rec->data[1];
		t->futex_since = rec->ts_ns;
		t->futex_func = open_func;
		if (timeline_futex_op_wakes(t->futex_op))
			return tl_futex_wake(tl, t->futex_uaddr, rec->ts_ns,
					     open_func, callsite);
		return 0;
	default:
		tl_back_on_cpu(t, rec->ts_ns);
		if (!t->in_futex) {
			tl->st.stray++;
			return 0;
		}
		return tl_futex_exit(tl, t, rec->ts_ns,
				     (int64_t)rec->data[0]);
	}
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
