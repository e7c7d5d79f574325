// SPDX-License-Identifier: GPL-2.0
/* Stacks waiting for their return addresses; see stacks_wait.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stacks_wait.h"

/* The first trampoline word of @frames from @k on, or @nr if none. */
static uint32_t next_trampoline(const struct stacks *st,
				const uint64_t *frames, uint32_t nr,
				uint32_t k)
{
	while (k < nr && !stacks_in_trampoline(st, frames[k]))
		k++;
	return k;
}

/*
 * The innermost open calls of @t (at least one) that share a stack
 * pointer, one return slot: into @s, their sp, and the index and entry
 * time of the outermost of them, the one whose return comes last.
 */
static void await_innermost(struct stack_waiter *s,
			    const struct pair_thread *t)
{
	uint32_t up = 0;

	s->sp = pair_thread_open_sp(t, 0);
	while (up + 1 < t->depth && pair_thread_open_sp(t, up + 1) == s->sp)
		up++;
	s->base = t->depth - 1 - up;
	s->entry_ts = pair_thread_open_ts(t, up);
	s->chain = up > 0;
}

/* How many return slots @t's open calls hold: distinct stack pointers. */
static uint32_t open_slots(const struct pair_thread *t)
{
	uint32_t up, n = 0;

	for (up = 0; up < t->depth; up++)
		if (!up || pair_thread_open_sp(t, up) !=
			   pair_thread_open_sp(t, up - 1))
			n++;
	return n;
}

/* The deepest of the calls @w's stacks wait for (their base, at most). */
static void note_deepest(struct stacks_wait *w)
{
	uint32_t i;

	w->deepest = 0;
	for (i = 0; i < w->nr; i++)
		if (w->v[i].base > w->deepest)
			w->deepest = w->v[i].base;
}

/* Waiting stack @i of @w gives up its place to the last one. */
static void drop_at(struct stacks_wait *w, uint32_t i)
{
	if (i != --w->nr)
		w->v[i] = w->v[w->nr];
}

/* Waiting stack @i of @w counted as it is, and its place given up. */
static int count_one(struct stacks *st, struct stacks_wait *w, uint32_t i)
{
	const struct stack_waiter *s = &w->v[i];
	int ret = stacks_add_n(st, s->func_id, s->frames, s->nr, s->calls);

	drop_at(w, i);
	return ret;
}

int stacks_wait_flush(struct stacks *st, struct stacks_wait *w)
{
	int ret = 0, r;

	while (stacks_wait_held(w)) {
		r = count_one(st, w, w->nr - 1);
		if (!ret)
			ret = r;
	}
	return ret;
}

void stacks_wait_free(struct stacks_wait *w)
{
	if (w)
		free(w->v);
	free(w);
}

/* Whether @s is the stack @now, waiting alike, and of the same frames. */
static bool alike(const struct stack_waiter *s,
		  const struct stack_waiter *now, const uint64_t *frames)
{
	return s->func_id == now->func_id && s->nr == now->nr &&
	       s->next == now->next && s->base == now->base &&
	       s->chain == now->chain && s->sp == now->sp &&
	       s->entry_ts == now->entry_ts &&
	       !memcmp(s->frames, frames, now->nr * sizeof(*frames));
}

/*
 * A place in @w for one more stack: where all are taken, that of the one
 * added to least recently, counted as it is (*@ret: its error).
 */
static struct stack_waiter *wait_slot(struct stacks *st,
					struct stacks_wait *w, int *ret)
{
	struct stack_waiter *v;
	uint32_t i, stale = 0;

	if (w->nr == STACKS_WAIT_MAX) {
		for (i = 1; i < w->nr; i++)
			if (w->v[i].last_ts < w->v[stale].last_ts)
				stale = i;
		*ret = count_one(st, w, stale);
	}
	if (w->nr == w->cap) {
		v = realloc(w->v, (w->cap ? 2 * w->cap : 2) * sizeof(*v));
		if (!v)
			return NULL;
		w->v = v;
		w->cap = w->cap ? 2 * w->cap : 2;
	}
	return &w->v[w->nr++];
}

/*
 * Whether @nr @frames can wait for @t's open calls: trampoline words, as
 * many as the calls' return slots (more: another tracer's return probes;
 * fewer: a traced call's frame the walk passed over, code without frame
 * pointers, or a walk ended before), and no record of the thread lost
 * since the outermost of them began (an entry lost in it).
 */
static bool can_wait(const struct stacks *st, const struct pair_thread *t,
		     const uint64_t *frames, uint32_t nr,
		     uint64_t lost_before)
{
	uint32_t k, words = 0;

	if (!t || !t->depth)
		return false;
	for (k = next_trampoline(st, frames, nr, 0); k < nr;
	     k = next_trampoline(st, frames, nr, k + 1))
		words++;
	return words && words == open_slots(t) &&
	       lost_before <= pair_thread_open_ts(t, t->depth - 1);
}

int stacks_wait_add(struct stacks *st, struct stacks_wait **w,
		    const struct pair_thread *t, uint32_t func_id,
		    const uint64_t *frames, uint32_t nr, uint64_t ts,
		    uint64_t lost_before)
{
	struct stack_waiter now, *s;
	uint32_t i;
	int ret = 0;

	if (nr > STACKS_MAX_FRAMES)
		nr = STACKS_MAX_FRAMES;
	if (!w || !can_wait(st, t, frames, nr, lost_before))
		return stacks_add(st, func_id, frames, nr);
	now.func_id = func_id;
	now.nr = nr;
	now.next = next_trampoline(st, frames, nr, 0);
	await_innermost(&now, t);
	if (!*w)
		*w = calloc(1, sizeof(**w));
	/* Out of memory: counted as it is, cut, rather than lost. */
	if (!*w)
		return stacks_add(st, func_id, frames, nr);
	for (i = 0; i < (*w)->nr; i++) {
		if (alike(&(*w)->v[i], &now, frames)) {
			(*w)->v[i].calls++;
			(*w)->v[i].last_ts = ts;
			return 0;
		}
	}
	s = wait_slot(st, *w, &ret);
	if (!s)
		return stacks_add(st, func_id, frames, nr);
	*s = now;
	s->last_ts = ts;
	s->calls = 1;
	memcpy(s->frames, frames, nr * sizeof(*frames));
	if (s->base > (*w)->deepest)
		(*w)->deepest = s->base;
	return ret;
}

/*
 * Whether the calls @s waits for are still @t's open ones: the outermost
 * at its place, with its stack pointer and entry time.
 */
static bool awaited_open(const struct stack_waiter *s,
			 const struct pair_thread *t)
{
	uint32_t up;

	if (t->depth <= s->base)
		return false;
	up = t->depth - 1 - s->base;
	return pair_thread_open_sp(t, up) == s->sp &&
	       pair_thread_open_ts(t, up) == s->entry_ts;
}

/*
 * Whether @s still waits once the calls it waited for are gone, as the
 * pairer saw @rec: @e, the call @rec paired (NULL: none), must be the
 * outermost of them, told by its entry time (its return the last of a
 * tail call's chain, which the kernel fires together), whose return
 * address then goes in the word, and agrees with the call site read at
 * its entry where one was (a lock call's: pair.h).  A word's caller must
 * lie past the start of the function that returned (the EXIT's data[1];
 * 0: not given), but for a chain's, whose callee it may be in.
 * Otherwise, or with every word back, it waits no more.
 */
static bool wait_after_return(const struct stacks *st,
			      struct stack_waiter *s,
			      const struct pair_thread *t,
			      const struct ispot_record *rec,
			      const struct pair_exec *e)
{
	if (!e || e->entry_ts != s->entry_ts || !rec->ip ||
	    e->callsite != rec->ip ||
	    (!s->chain && s->next && s->frames[s->next - 1] < rec->data[1]))
		return false;
	s->frames[s->next] = rec->ip;
	s->next = next_trampoline(st, s->frames, s->nr, s->next + 1);
	if (s->next == s->nr || !t->depth)
		return false;
	await_innermost(s, t);
	return true;
}

/*
 * Whether waiting stack @i of @w, a word put back, now waits as another
 * does: then it joins that one (its calls added) and gives up its place.
 */
static bool join_alike(struct stacks_wait *w, uint32_t i)
{
	struct stack_waiter *s = &w->v[i];
	uint32_t j;

	for (j = 0; j < w->nr; j++) {
		if (j == i || !alike(&w->v[j], s, s->frames))
			continue;
		w->v[j].calls += s->calls;
		if (s->last_ts > w->v[j].last_ts)
			w->v[j].last_ts = s->last_ts;
		drop_at(w, i);
		return true;
	}
	return false;
}

int stacks_wait_step(struct stacks *st, struct stacks_wait *w,
		     const struct pair_thread *t,
		     const struct ispot_record *rec,
		     const struct pair_exec *e)
{
	uint32_t i = 0;
	int ret = 0, r;

	/* Deeper than any call waited for: nothing of theirs moved. */
	if (!stacks_wait_held(w) || t->depth > w->deepest + 1)
		return 0;
	while (i < w->nr) {
		struct stack_waiter *s = &w->v[i];

		if (awaited_open(s, t)) {
			i++;
			continue;
		}
		/*
		 * A word back, the next awaited: a loop's stacks inside a
		 * long call, each put back as its inner call returns, wait
		 * as one for the long call's return.
		 */
		if (wait_after_return(st, s, t, rec, e)) {
			if (!join_alike(w, i))
				i++;
			continue;
		}
		r = count_one(st, w, i);
		if (!ret)
			ret = r;
	}
	note_deepest(w);
	return ret;
}
