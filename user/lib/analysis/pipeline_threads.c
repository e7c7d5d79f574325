// SPDX-License-Identifier: GPL-2.0
/*
 * The pipeline's per-thread state, each analysis's part of a thread in
 * one place, and the threads' lifetimes: seen, exited, forgotten; see
 * pipeline.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/pipeline_internal.h"
#include "analysis/stacks_wait.h"

struct pipeline_thread *pipeline_thread_new(struct pipeline *p, uint32_t tid)
{
	struct pipeline_thread *th = calloc(1, sizeof(*th));

	if (!th || hashmap_insert(&p->threads, tid, (uintptr_t)th)) {
		free(th);
		return NULL;
	}
	if (p->thread_made)
		p->thread_made(p->thread_made_ctx, tid);
	return th;
}

/* Free @th and what each analysis keeps of it. */
static void pipeline_thread_free(struct pipeline *p,
				 struct pipeline_thread *th)
{
	uint32_t i;

	if (th->inside)
		p->inside--;
	for (i = 0; i < PIPE_LAST_CPUS; i++)
		if (p->last[i].th == th)
			p->last[i].th = NULL;
	pairer_thread_forget(p->pairer, &th->pair);
	if (stacks_wait_flush(p->stacks, th->stack_wait))
		p->stats.nomem++;
	stacks_wait_free(th->stack_wait);
	if (p->tl)
		timeline_thread_free(p->tl, th->tl);
	free(th);
}

void pipeline_threads_unhold(struct pipeline *p)
{
	const struct hashmap_entry *e;
	size_t pos;

	hashmap_for_each(&p->threads, e, pos) {
		struct pipeline_thread *th = (void *)(uintptr_t)e->value;

		th->sci = 0;
		/* A drop's stretch was the old engine's too. */
		th->dropped_until = 0;
	}
}

void pipeline_threads_free(struct pipeline *p)
{
	const struct hashmap_entry *e;
	size_t pos;

	hashmap_for_each(&p->threads, e, pos)
		pipeline_thread_free(p, (void *)(uintptr_t)e->value);
	hashmap_free(&p->threads);
}

int pipeline_thread_seen(struct pipeline *p, uint32_t tid, uint64_t ts)
{
	return sci_thread_seen(p->sci, tid, ts);
}

void pipeline_forget_exited(struct pipeline *p, uint64_t delay_ns)
{
	p->forget_delay_ns = delay_ns;
}

/* Forget the exits older than @now - delay (all of them: @now = max). */
static void exits_forget(struct pipeline *p, uint64_t now)
{
	const struct pipeline_exit *x;
	uint64_t th;

	while ((x = fifo_front(&p->exits))) {
		if (now != UINT64_MAX && x->ts + p->forget_delay_ns > now)
			break;
		/* Not if the tid came back meanwhile: sci keeps it open. */
		if (sci_fold_thread(p->sci, x->tid, x->ts) == 1) {
			if (hashmap_delete(&p->threads, x->tid, &th))
				pipeline_thread_free(p, (void *)(uintptr_t)th);
			p->stats.forgotten++;
		}
		fifo_pop(&p->exits);
	}
}

int pipeline_thread_exit(struct pipeline *p, uint32_t tid, uint64_t ts)
{
	struct pipeline_thread *th = hashmap_find_ptr(&p->threads, tid);
	struct pipeline_exit x = { .tid = tid, .ts = ts };
	int ret;

	if (th) {
		pair_thread_exit_at(&th->pair, ts);
		/*
		 * Its open calls end with it, as far as others can tell.  A
		 * block it was inside a call at keeps none of its time: a
		 * late EXIT may still pair that call and score it whole.
		 */
		if (th->inside) {
			th->inside = false;
			p->inside--;
		}
	}
	/* Also when the exit was found by a scan, its record lost. */
	if (p->tl)
		timeline_thread_exited(p->tl, th ? th->tl : NULL, ts);
	ret = sci_thread_exit(p->sci, tid, ts);
	if (p->forget_delay_ns) {
		/* If the queue cannot grow, the thread is simply kept. */
		fifo_push(&p->exits, &x);
		exits_forget(p, ts);
	}
	return ret;
}

int pipeline_thread_gone(struct pipeline *p, uint32_t tid, uint64_t alive_ts,
			 uint64_t gone_ts)
{
	int ret = pipeline_thread_exit(p, tid, alive_ts);
	struct pipeline_thread *th = hashmap_find_ptr(&p->threads, tid);

	/* No record of it can be dated after the scan that missed it. */
	if (th && gone_ts > alive_ts)
		pair_thread_exit_at(&th->pair, gone_ts);
	return ret;
}

/* @t's calls still open, counted by their probe (pipeline_open_at_end()). */
static void pipeline_count_open(struct pipeline *p,
				const struct pair_thread *t)
{
	uint32_t up, id;

	for (up = 0; (id = pair_thread_open_probe(t, up)); up++)
		if (id < p->nr_probes)
			p->probes[id].open_at_end++;
}

void pipeline_finish(struct pipeline *p, uint64_t ts)
{
	const struct hashmap_entry *e;
	size_t pos;

	hashmap_for_each(&p->threads, e, pos) {
		struct pipeline_thread *th = (void *)(uintptr_t)e->value;

		pipeline_count_open(p, &th->pair);
		pairer_thread_flush(p->pairer, &th->pair);
		/* Its calls will not return now: what waits goes as it is. */
		if (stacks_wait_flush(p->stacks, th->stack_wait))
			p->stats.nomem++;
	}
	if (p->forget_delay_ns)
		exits_forget(p, UINT64_MAX);
	solo_finish(&p->solo, ts);
	sci_finish(p->sci, ts);
}

uint32_t pipeline_open_at_end(const struct pipeline *p, uint32_t func_id)
{
	uint32_t id, n = 0;

	for (id = 1; id < p->nr_probes; id++)
		if (p->probes[id].used && !p->probes[id].marker &&
		    p->probes[id].func_id == func_id)
			n += p->probes[id].open_at_end;
	return n;
}
