// SPDX-License-Identifier: GPL-2.0
/*
 * The timeline's futex tracking: which futex ops wait and which wake, and
 * per futex word the waits, the threads that waited and the functions
 * they waited in, and who woke them; see timeline.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>	/* the ABI's op numbers only */

#include "util/array.h"
#include "analysis/timeline_internal.h"

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

/* For the probed functions open at waits: few, so a list will do. */
static int add_distinct(uint32_t **arr, uint32_t *n, size_t *cap, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < *n; i++)
		if ((*arr)[i] == v)
			return 0;
	if (ARRAY_RESERVE(*arr, *cap, (size_t)*n + 1))
		return -ENOMEM;
	(*arr)[(*n)++] = v;
	return 0;
}

/* @uaddr's line, made on first sight; NULL without memory. */
static struct timeline_futex *tl_futex(struct timeline *tl, uint64_t uaddr)
{
	struct timeline_futex *f;
	uint64_t line;

	if (hashmap_find(&tl->futex_lines, uaddr, &line))
		return &tl->futexes[line];
	if (ARRAY_RESERVE(tl->futexes, tl->cap_futexes, tl->nr_futexes + 1) ||
	    hashmap_insert(&tl->futex_lines, uaddr, tl->nr_futexes))
		return NULL;
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

int tl_futex_exit(struct timeline *tl, struct tl_thread *t,
			 uint64_t ts, int64_t ret)
{
	struct timeline_futex *f;
	uint64_t wait_ns;

	t->in_futex = false;
	if (!timeline_futex_op_waits(t->futex_op))
		return 0;
	if (t->act == TL_ACT_WAITING)
		tl_set_act(tl, t, TL_ACT_ACTIVE, ts);
	/* Records were lost in it: this exit may end a later wait. */
	if (t->futex_lost || t->futex_since < tl->lost_before) {
		t->futex_lost = false;
		return 0;
	}
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
	    add_distinct(&f->funcs, &f->nr_funcs, &f->cap_funcs,
			 t->futex_func))
		return -ENOMEM;
	return 0;
}

void timeline_thread_lost(struct tl_thread *t, uint64_t before)
{
	if (t->in_futex && t->futex_since < before)
		t->futex_lost = true;
}

void timeline_all_lost(struct timeline *tl, uint64_t before)
{
	if (before > tl->lost_before)
		tl->lost_before = before;
}

int tl_futex_enter(struct timeline *tl, struct tl_thread *t,
			  const struct ispot_record *rec, uint32_t open_func,
			  uint64_t callsite)
{
	tl->st.futex_calls++;
	/* Another futex call: the wait before it ended, its EXIT lost. */
	if (t->act == TL_ACT_WAITING)
		tl_set_act(tl, t, TL_ACT_ACTIVE, rec->ts_ns);
	t->in_futex = true;
	t->futex_lost = false;
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

void tl_futexes_free(struct timeline *tl)
{
	size_t i;

	for (i = 0; i < tl->nr_futexes; i++)
		free(tl->futexes[i].funcs);
	free(tl->futexes);
	free(tl->sorted);
	hashmap_free(&tl->futex_lines);
}
