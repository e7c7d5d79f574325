// SPDX-License-Identifier: GPL-2.0
/*
 * Which of a process's threads hold the sampler's SAMPLER_MAX_THREADS
 * slots (sampler_internal.h): the busiest, as far as /proc tells, with a
 * slot given back when its thread ends or idles.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/sampler_internal.h"
#include "trace/tasks.h"
#include "util/array.h"
#include "util/procstat.h"

/*
 * Event @e's slot given back, its last samples read first: 0, or -ENOMEM
 * after saying so (the slot is given back all the same).  The last event
 * moves into @e's place.
 */
static int sampler_drop(struct sampler *s, struct sampler_event *e,
			char *err, size_t errlen)
{
	int ret = sampler_read(s, e);

	sampler_event_close(s, e);
	*e = s->ev[--s->nr];
	if (ret)
		snprintf(err, errlen, "out of memory sampling");
	return ret;
}

/*
 * The events of threads no longer in @ts given back, so that a server
 * that starts a thread a request is still sampled once
 * SAMPLER_MAX_THREADS of them have come and gone.
 */
static int sampler_forget_gone(struct sampler *s, const struct task_set *ts,
			       char *err, size_t errlen)
{
	size_t j = 0;
	int ret;

	while (j < s->nr) {
		if (task_still_there(ts, s->pid, s->ev[j].tid)) {
			j++;
			continue;
		}
		ret = sampler_drop(s, &s->ev[j], err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* The most CPU time first, then the lowest tid. */
static int busiest_first(const void *pa, const void *pb)
{
	const struct sampler_candidate *a = pa, *b = pb;

	if (a->cpu_ns != b->cpu_ns)
		return a->cpu_ns < b->cpu_ns ? 1 : -1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/*
 * The first @nrank of the candidates s->cand[0..@n) ranked, busiest
 * first, by the CPU time each had since the ranking that last kept
 * readings (all of it for one not read then: born since, or not yet in a
 * window), read from /proc.  With @keep, these readings replace those for
 * the next rankings, the other candidates' kept: once a
 * SAMPLER_RERANK_ROUNDS at most, so that a ranking made every round while
 * slots free (threads ending) still sees up to that much of each
 * thread's past, not one round's.  One gone meanwhile reads as idle: its
 * open finds it gone.
 */
static int sampler_rank(struct sampler *s, size_t nrank, size_t n,
			bool keep)
{
	struct hashmap now = { 0 };
	uint64_t last;
	size_t i;

	for (i = 0; i < nrank; i++) {
		struct sampler_candidate *c = &s->cand[i];
		uint64_t cpu = 0;

		thread_cpu_ns(s->pid, (pid_t)c->tid, &cpu);
		if (!hashmap_find(&s->ranked, c->tid, &last) || last > cpu)
			last = 0;
		c->cpu_ns = cpu - last;
		if (keep && hashmap_insert(&now, c->tid, cpu))
			goto nomem;
	}
	/* Past a window (ranked only when keeping): their readings stay. */
	for (; keep && i < n; i++)
		if (hashmap_find(&s->ranked, s->cand[i].tid, &last) &&
		    hashmap_insert(&now, s->cand[i].tid, last))
			goto nomem;
	if (keep) {
		hashmap_free(&s->ranked);
		s->ranked = now;
		s->rounds_since_rank = 0;
	}
	qsort(s->cand, nrank, sizeof(*s->cand), busiest_first);
	return 0;
nomem:
	hashmap_free(&now);
	return -ENOMEM;
}

/* Reverse s->cand[@a..@b). */
static void cand_reverse(struct sampler *s, size_t a, size_t b)
{
	struct sampler_candidate t;

	while (a + 1 < b) {
		t = s->cand[a];
		s->cand[a++] = s->cand[--b];
		s->cand[b] = t;
	}
}

/*
 * More than SAMPLER_RANK_MAX of the @n candidates (in tid order) wait: the
 * next SAMPLER_RANK_MAX of them to the front, from the first tid past the
 * last window's, round the list, so that successive rankings reach every
 * one whatever came and went meanwhile.
 */
static void sampler_window(struct sampler *s, size_t n)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->cand[mid].tid <= s->window_tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		lo = 0;
	cand_reverse(s, 0, lo);
	cand_reverse(s, lo, n);
	cand_reverse(s, 0, n);
	s->window_tid = s->cand[SAMPLER_RANK_MAX - 1].tid;
}

/*
 * Count each event's quiet rounds (after a round's reads): the number of
 * events idle now (SAMPLER_IDLE_ROUNDS).
 */
static size_t sampler_count_idle(struct sampler *s)
{
	size_t j, idle = 0;

	for (j = 0; j < s->nr; j++) {
		struct sampler_event *e = &s->ev[j];

		if (e->fresh)
			e->quiet_rounds = 0;
		else if (e->quiet_rounds < SAMPLER_IDLE_ROUNDS)
			e->quiet_rounds++;
		e->fresh = 0;
		idle += e->quiet_rounds >= SAMPLER_IDLE_ROUNDS;
	}
	return idle;
}

/*
 * The slot of an idle event given to waiting thread @tid: the event's
 * last samples read, and its thread's CPU time kept as if ranked then,
 * so that what it ran before it left counts for nothing when it waits.
 */
static int sampler_swap(struct sampler *s, uint32_t tid, char *err,
			size_t errlen)
{
	struct sampler_event *e = NULL;
	struct hashmap_entry *was;
	uint64_t cpu = 0;
	size_t j;
	int ret;

	for (j = 0; j < s->nr && !e; j++)
		if (s->ev[j].quiet_rounds >= SAMPLER_IDLE_ROUNDS)
			e = &s->ev[j];
	if (!e)
		return 0;
	thread_cpu_ns(s->pid, (pid_t)e->tid, &cpu);
	/* Read at the last ranking if it was waiting then. */
	was = hashmap_entry_of(&s->ranked, e->tid);
	if (was) {
		was->value = cpu;
	} else if (hashmap_insert(&s->ranked, e->tid, cpu)) {
		snprintf(err, errlen, "out of memory sampling");
		return -ENOMEM;
	}
	ret = sampler_drop(s, e, err, errlen);
	if (ret)
		return ret;
	j = s->nr;
	ret = sampler_open(s, tid, err, errlen);
	/* One gone before its open takes no slot: the next scan fills it. */
	if (s->nr > j)
		s->r->swapped++;
	return ret;
}

/*
 * Open an event for each thread not sampled yet.  Where more are new
 * than slots are free (SAMPLER_MAX_THREADS in all), the busiest are
 * taken, by their CPU time so far (read only then): not the lowest tids,
 * which are not even the oldest once tids come round past pid_max, and
 * whose parked threads would crowd out a pool's one that runs.  Those
 * left out are ranked again, by their CPU time since (sampler_rank()),
 * in each round where a slot frees, and, with every slot taken, once a
 * SAMPLER_RERANK_ROUNDS while a sampled thread is idle: then a waiting
 * thread that ran takes an idle one's slot, so that a pool whose busy
 * threads change is followed.  Past SAMPLER_RANK_MAX waiting, only the
 * rankings that keep readings rank, SAMPLER_RANK_MAX of them each, the
 * next ones round the list each time (sampler_window()); in between,
 * free slots go by tid: a /proc read each, every round, would cost more
 * than the sampling.
 */
int sampler_scan(struct sampler *s, struct task_set *ts, char *err,
		 size_t errlen)
{
	size_t i, j, n = 0, nrank, room, idle;
	bool due, swap = false;
	int ret;

	ret = task_set_scan(ts, s->pid);
	if (!ret)
		ret = sampler_forget_gone(s, ts, err, errlen);
	if (ret)
		return ret;
	idle = sampler_count_idle(s);
	s->rounds_since_rank++;
	room = SAMPLER_MAX_THREADS - s->nr;
	for (i = 0; i < ts->n; i++) {
		for (j = 0; j < s->nr; j++)
			if (s->ev[j].tid == ts->tids[i])
				break;
		if (j < s->nr)
			continue;
		if (ARRAY_RESERVE(s->cand, s->cand_cap, n + 1)) {
			snprintf(err, errlen, "out of memory sampling");
			return -ENOMEM;
		}
		s->cand[n].tid = ts->tids[i];
		s->cand[n++].cpu_ns = 0;
	}
	/* The first ranking keeps its readings, as every one when due. */
	due = s->rounds_since_rank >= SAMPLER_RERANK_ROUNDS ||
	      !hashmap_size(&s->ranked);
	nrank = n < SAMPLER_RANK_MAX ? n : SAMPLER_RANK_MAX;
	if (n > room && (n <= SAMPLER_RANK_MAX || due) &&
	    (room || (idle && due))) {
		if (n > nrank)
			sampler_window(s, n);
		ret = sampler_rank(s, nrank, n, due);
		if (ret) {
			snprintf(err, errlen, "out of memory sampling");
			return ret;
		}
		swap = due;
	}
	/* Until the slots are full: one gone before its open takes none. */
	for (i = 0; i < n && s->nr < SAMPLER_MAX_THREADS; i++) {
		ret = sampler_open(s, s->cand[i].tid, err, errlen);
		if (ret)
			return ret;
	}
	/* Then idle slots, to those that ran a sample's worth since. */
	for (; swap && idle && i < n &&
	       s->cand[i].cpu_ns >= SAMPLER_PERIOD_NS; i++, idle--) {
		ret = sampler_swap(s, s->cand[i].tid, err, errlen);
		if (ret)
			return ret;
	}
	if (n - i > s->r->unsampled)
		s->r->unsampled = n - i;
	return 0;
}
