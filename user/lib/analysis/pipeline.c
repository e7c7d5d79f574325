// SPDX-License-Identifier: GPL-2.0
/* Records -> per-thread state -> timeline, pairs -> SCI; see pipeline.h. */
#include <errno.h>
#include <string.h>

#include "analysis/drain.h"
#include "analysis/pipeline_internal.h"
#include "analysis/stacks_wait.h"

_Static_assert(PIPE_AUX_WORDS <= PAIR_AUX_WORDS,
	       "an entry carries its thread's totals and gate to its exit");

/*
 * The blocks execution @e of @probe counts for, into @keys: its own
 * (@key), and an auto function's shadows, keyed by each argument's log2
 * bucket.  Returns how many.
 */
static unsigned int pipeline_keys(const struct pipeline_probe *probe,
				  uint64_t key, const struct pair_exec *e,
				  struct sci_key *keys)
{
	unsigned int a;

	keys[0] = (struct sci_key){ .func_id = probe->func_id, .key = key };
	if (probe->key.kind != KEY_AUTO || !probe->shadow)
		return 1;
	for (a = 0; a < ARGB_NR_ARGS; a++) {
		struct key_rule rule = { .kind = KEY_ARG, .arg = a,
					 .log2 = true };
		struct key_sel sel = key_sel_of(&rule);

		keys[1 + a] = (struct sci_key){ .func_id = probe->shadow + a,
						.key = key_of(&sel, e) };
	}
	return 1 + ARGB_NR_ARGS;
}

/*
 * Between entry and exit, from the thread's totals at both (@now: the
 * exit's): its off-CPU time by cause and its context.  The timeline's
 * integrals only move forward; should a difference come out negative all
 * the same, the call gets no context rather than pass for a solo call.
 */
static void pipeline_causes(const uint64_t *now, const uint64_t *then,
			    struct sci_causes *c)
{
	uint64_t others = now[TL_OTHERS] - then[TL_OTHERS];

	c->futex_ns = now[TL_FUTEX] - then[TL_FUTEX];
	c->blocked_ns = now[TL_BLOCKED] - then[TL_BLOCKED];
	c->runqueue_ns = now[TL_RUNQUEUE] - then[TL_RUNQUEUE];
	c->oncpu_ns = 0;	/* the engine takes the remainder */
	c->context = (int64_t)others >= 0;
	c->waited_ns = now[TL_WAITED] - then[TL_WAITED];
	c->rq_program_ns = now[TL_RQ_PROGRAM] - then[TL_RQ_PROGRAM];
	c->others_ns = c->context ? others : 0;
	c->reference = false;
	c->aside = false;
}

/*
 * A call the gate admitted: a reference if it ran alone (solo.h) and its
 * thread was not displaced meanwhile, else its block's, set aside from
 * the interference figure (sci.h); the displacement ends with the
 * thread's outermost gated call.  @th is the call's thread.
 */
static void pipeline_gated(struct pipeline *p, struct pipeline_thread *th,
			   const struct pair_exec *e, struct sci_causes *c)
{
	bool displaced = th->gate_displaced;

	/*
	 * Not this call's if it began after the displacement: the
	 * displaced call never closed here, its entry or its return lost
	 * (one open at a loss is not scored).
	 */
	if (displaced && e->entry_ts > th->displaced_ts)
		displaced = th->gate_displaced = false;
	if (displaced && (e->aux[PIPE_AUX_GATE] & ISPOT_GATE_ADMITTED))
		th->gate_displaced = false;
	p->solo.gated_calls++;
	if (c && !displaced &&
	    solo_call_clean(e->aux[PIPE_AUX_GATE], c->waited_ns)) {
		c->reference = true;
		p->solo.reference_calls++;
	} else if (c) {
		c->aside = true;
	}
}

/*
 * Execution @e of @th into the engine, under @keys[0..@n), by @th's
 * handle: pipeline_held() held it, unless memory ran out then; once more
 * now, the thread opening at the call's start as sci_add() opens it.
 */
static void pipeline_score(struct pipeline *p, struct pipeline_thread *th,
			   const struct pair_exec *e,
			   const struct sci_key *keys, unsigned int n,
			   const struct sci_causes *c)
{
	uint64_t d = e->exit_ts - e->entry_ts;
	uint64_t start = e->exit_ts >= d ? e->exit_ts - d : 0;

	if (!th->sci &&
	    sci_thread_hold_ref(p->sci, &th->sci, e->tid, start)) {
		p->stats.nomem += n;
		return;
	}
	p->stats.nomem += sci_add_held(p->sci, th->sci, keys, n, d,
				       e->exit_ts, c);
}

/* A paired execution of @th: its key, and into every tally. */
static void pipeline_exec(struct pipeline *p, struct pipeline_thread *th,
			  const struct pair_exec *e)
{
	const struct pipeline_probe *probe = &p->probes[e->probe_id];

	uint64_t key = key_of(&probe->sel, e);
	struct sci_causes causes, *c = NULL;
	struct sci_key keys[1 + ARGB_NR_ARGS];
	int shaped;

	/* Both ends' totals must be real (the valid word, see pipeline.h). */
	if (p->tl && p->now[PIPE_AUX_VALID] && e->aux[PIPE_AUX_VALID]) {
		pipeline_causes(p->now, e->aux, &causes);
		causes.context &= !p->no_interference;
		c = &causes;
	}
	if (e->aux[PIPE_AUX_GATE] & (ISPOT_GATE_ADMITTED | ISPOT_GATE_NESTED))
		pipeline_gated(p, th, e, c);
	shaped = shapes_add(p->shapes, probe->func_id, &e->shape,
			    probe->key.kind == KEY_SHAPE);
	if (shaped < 0)
		p->stats.nomem++;
	/* Past its first shapes (or out of memory): one key for the rest. */
	if (shaped && probe->key.kind == KEY_SHAPE)
		key = SHAPE_OTHER;
	/* One engine call for its own block and its shadows: see sci.h. */
	pipeline_score(p, th, e, keys, pipeline_keys(probe, key, e, keys), c);
	if (argbuckets_add(p->args, probe->func_id, e->args,
			   e->exit_ts - e->entry_ts))
		p->stats.nomem++;
	if (p->durations && durations_add(p->durations, probe->func_id,
					  e->tid, e->exit_ts - e->entry_ts))
		p->stats.nomem++;
	if (p->excess && e->nr_counters &&
	    excess_add(p->excess, probe->func_id, key, e))
		p->stats.nomem++;
}

/* The function @t is inside, for the futex report. */
static uint32_t pipeline_open_func(const struct pipeline *p,
				   const struct pair_thread *t)
{
	uint32_t id = pair_thread_open_probe(t, 0);

	return id && id < p->nr_probes && p->probes[id].used ?
	       p->probes[id].func_id : TL_NO_FUNC;
}

/*
 * The function to credit with the waits that @t's wake ends: the
 * innermost open one that is not a synchronisation call, since the lock
 * was held by the function that called pthread_mutex_unlock.  With none,
 * the outermost lock call's return address names that caller (*callsite,
 * else 0): --sync alone still says which critical section it was.
 */
static uint32_t pipeline_waker_func(const struct pipeline *p,
				     const struct pair_thread *t,
				     uint64_t *callsite)
{
	uint32_t up, id;

	*callsite = 0;
	for (up = 0; (id = pair_thread_open_probe(t, up)); up++) {
		if (id >= p->nr_probes || !p->probes[id].used)
			break;
		if (!p->probes[id].sync) {
			*callsite = 0;
			return p->probes[id].func_id;
		}
		*callsite = pair_thread_open_callsite(t, up);
	}
	return TL_NO_FUNC;
}

/*
 * A SWITCH_* or FUTEX_* record of thread @th to the timeline, with the
 * function it is charged to (FUTEX_ENTER) or open in (SWITCH_OUT).
 */
static int pipeline_futex(struct pipeline *p, struct pipeline_thread *th,
			  const struct ispot_record *rec)
{
	uint64_t callsite = 0;
	uint32_t func = TL_NO_FUNC;

	if (rec->kind == ISPOT_REC_FUTEX_ENTER) {
		if (timeline_futex_op_wakes((uint32_t)rec->data[1]))
			func = pipeline_waker_func(p, &th->pair, &callsite);
		else
			func = pipeline_open_func(p, &th->pair);
	} else if (rec->kind == ISPOT_REC_SWITCH_OUT) {
		/* A sleep outside every traced call is idle (timeline.h). */
		func = pipeline_open_func(p, &th->pair);
	}
	return timeline_thread_record(p->tl, th->tl, rec, func, callsite);
}

/*
 * The module writes a probe's STACK just before its ENTRY, with the same
 * probe id, and the frames in the slots that follow (the drain hands a
 * wrapped record over contiguous).
 */
static void pipeline_stack(struct pipeline *p, const struct ispot_record *rec)
{
	const struct pipeline_probe *probe;
	struct pipeline_thread *th;
	uint64_t nr = rec->data[0];

	p->stats.stacks++;
	if (rec->probe_id >= p->nr_probes || !p->probes[rec->probe_id].used ||
	    nr > (uint64_t)(rec->nslots - 1) * 8) {
		p->stats.bad_stacks++;
		return;
	}
	probe = &p->probes[rec->probe_id];
	if (probe->end_marker)
		return;
	/*
	 * Its trampoline words wait for their calls' returns, unless a
	 * call not recorded may hold one (sampled entries).  A thread the
	 * pipeline holds no state for has no call open to wait for.
	 */
	th = p->calls_sampled ? NULL :
			       hashmap_find_ptr(&p->threads, rec->tid);
	if (stacks_wait_add(p->stacks, th ? &th->stack_wait : NULL,
			    th ? &th->pair : NULL, probe->func_id,
			    (const uint64_t *)(rec + 1), (uint32_t)nr,
			    rec->ts_ns,
			    th ? pair_lost_before(p->pairer, &th->pair) : 0))
		p->stats.nomem++;
}

/*
 * pipeline_held()'s rare path, out of line: a thread that is not its
 * CPU's last, or not held since the last fold.
 */
static __attribute__((noinline)) struct pipeline_thread *
pipeline_hold(struct pipeline *p, const struct ispot_record *rec)
{
	struct pipeline_thread *th = pipeline_thread_on(p, rec->tid, rec->cpu);
	int err;

	if (th && th->sci && th->sci_folds == *p->sci_folds)
		return th;
	if (th) {
		err = sci_thread_hold_ref(p->sci, &th->sci, rec->tid,
					  rec->ts_ns);
		th->sci_folds = *p->sci_folds;
	} else {
		err = sci_thread_hold(p->sci, rec->tid, rec->ts_ns) ?: -ENOMEM;
	}
	if (err)
		p->stats.nomem++;
	return th;
}

/*
 * @rec's thread, held by the engine: its TASK_NEW may be lost, and its
 * calls never complete, but the engine holds it all the same, or it
 * would never be forgotten (pipeline_forget_exited()).  NULL without
 * memory for its state (the engine holds it even then).  Inline, the
 * test alone: nearly every record is of its CPU's last thread, held,
 * with no fold since (sci.h, sci_folds()).
 */
static inline struct pipeline_thread *
pipeline_held(struct pipeline *p, const struct ispot_record *rec)
{
	struct pipeline_thread *th = pipeline_last_on(p, rec->tid, rec->cpu);

	if (th && th->sci && th->sci_folds == *p->sci_folds)
		return th;
	return pipeline_hold(p, rec);
}

/*
 * The gate word of an ENTRY of @th (solo.h): the GATE record just before
 * it, if it was this call's (same probe, same sp: a sampled-out entry
 * leaves its GATE behind), and whether any other thread was inside a
 * traced call then.  0 when the call did not meet the gate.
 */
static uint64_t pipeline_gate_word(struct pipeline *p,
				   struct pipeline_thread *th,
				   const struct ispot_record *rec)
{
	uint64_t word;

	if (!th->gate_pending)
		return 0;
	th->gate_pending = false;
	if (th->gate_probe != rec->probe_id || th->gate_sp != rec->sp ||
	    th->gate_ts < pair_lost_before(p->pairer, &th->pair))
		return 0;
	word = SOLO_GATE_SEEN | th->gate_flags;
	if (p->inside == (th->inside ? 1u : 0u))
		word |= SOLO_GATE_ALONE;
	return word;
}

/*
 * An ENTRY (@entry) or EXIT of a known probe: the thread's totals now
 * (when causes are on) ride on an entry to its exit, and a call it closes
 * is scored.  Inlined twice, @entry a constant in each: the record's kind
 * is tested once, in pipeline_record(), not again at every step (pair.h,
 * pairer_feed_entry()).
 */
static inline __attribute__((always_inline)) void
pipeline_call(struct pipeline *p, const struct ispot_record *rec, bool entry)
{
	struct pipeline_thread *th = pipeline_held(p, rec);
	uint64_t gate = 0;
	const uint64_t *aux = NULL;
	struct pair_exec e;
	int paired, err;

	if (!th)
		return;
	if (entry)
		gate = pipeline_gate_word(p, th, rec);
	if (p->tl) {
		err = pipeline_tl(th, rec->tid);
		if (err)
			memset(p->now, 0, TL_NR_TOTALS * sizeof(p->now[0]));
		else
			err = timeline_thread_running(p->tl, th->tl, rec->cpu,
						      rec->ts_ns, p->now);
		p->now[PIPE_AUX_VALID] = !err;
		if (err)
			p->stats.nomem++;
		aux = p->now;
	} else if (gate) {
		memset(p->now, 0, sizeof(p->now));
		aux = p->now;
	}
	p->now[PIPE_AUX_GATE] = gate;
	if (entry)
		paired = pairer_feed_entry(p->pairer, &th->pair, rec, aux, &e);
	else
		paired = pairer_feed_exit(p->pairer, &th->pair, rec, &e);
	pipeline_thread_inside(p, th, rec->tid, rec->ts_ns);
	if (__builtin_expect(stacks_wait_held(th->stack_wait), 0) &&
	    stacks_wait_step(p->stacks, th->stack_wait, &th->pair, rec,
			     paired > 0 ? &e : NULL))
		p->stats.nomem++;
	/* Not back: a record late to the drain (drain.h) comes after. */
	if (rec->ts_ns > th->last_call_ts)
		th->last_call_ts = rec->ts_ns;
	if (__builtin_expect(th->dropped_until != 0, 0))
		pipeline_call_after_drop(p, th, rec, paired);
	if (paired < 0)
		p->stats.nomem++;
	else if (paired)
		pipeline_exec(p, th, &e);
}

/*
 * A solo block's BEGIN or END, after solo_block_record(): while it
 * admits, the threads' time is set aside from the interference figure's
 * (sci_solo_begin()).  An END that closed the open block closes it there.
 */
static void pipeline_solo_window(struct pipeline *p,
				 const struct ispot_record *rec)
{
	const struct hashmap_entry *ent;
	struct pipeline_thread *th;
	size_t pos;

	if (rec->kind != ISPOT_REC_SOLO_BEGIN) {
		if (!p->solo.open_block) {
			sci_solo_end(p->sci, rec->ts_ns);
			p->solo_window = false;
		}
		return;
	}
	sci_solo_begin(p->sci, rec->ts_ns, rec->data[1]);
	p->solo_window = true;
	if (p->inside)
		p->solo.crowded++;
	/* Calls under way met no gate: see sci_solo_inside(). */
	hashmap_for_each(&p->threads, ent, pos) {
		th = (struct pipeline_thread *)(uintptr_t)ent->value;
		if (th->inside)
			sci_solo_inside(p->sci, th->sci, (uint32_t)ent->key);
	}
}


/*
 * A GATE record: its wait, and the ENTRY it comes before.  One that timed
 * out, or passed beside a holder asleep, names the holder it displaced
 * (ip): that thread's gated call did not run alone to its end, so it is no
 * reference.
 */
static void pipeline_gate(struct pipeline *p, const struct ispot_record *rec)
{
	struct pipeline_thread *th = pipeline_held(p, rec), *holder;

	solo_gate_record(&p->solo, rec);
	if ((rec->data[2] & (ISPOT_GATE_TIMEOUT | ISPOT_GATE_BESIDE)) &&
	    rec->ip) {
		holder = hashmap_find_ptr(&p->threads, (uint32_t)rec->ip);
		if (holder) {
			holder->gate_displaced = true;
			holder->displaced_ts = rec->ts_ns;
		}
	}
	if (!th)
		return;
	th->gate_pending = true;
	th->gate_probe = rec->probe_id;
	th->gate_sp = rec->sp;
	th->gate_ts = rec->ts_ns;
	th->gate_flags = (uint32_t)rec->data[2];
}

/* A SWITCH_* or FUTEX_* record, when causes are on. */
static void pipeline_wait(struct pipeline *p, const struct ispot_record *rec)
{
	struct pipeline_thread *th = pipeline_held(p, rec);

	if (th && (pipeline_tl(th, rec->tid) || pipeline_futex(p, th, rec)))
		p->stats.nomem++;
}

/*
 * A TASK_EXIT's comm, to whoever names threads (pipeline.h): of a thread
 * that recorded something, as thread_made is told of.
 */
static void pipeline_exit_named(struct pipeline *p,
				const struct ispot_record *rec)
{
	char comm[RECORD_COMM_LEN];

	if (p->thread_named && record_exit_comm(rec, comm) &&
	    hashmap_find_ptr(&p->threads, rec->tid))
		p->thread_named(p->thread_made_ctx, rec->tid, comm);
}

/* A TASK_NEW: the engine sees the thread, and the timeline if it is on. */
static void pipeline_task_new(struct pipeline *p,
			      const struct ispot_record *rec)
{
	struct pipeline_thread *th;

	if (pipeline_thread_seen(p, rec->tid, rec->ts_ns)) {
		p->stats.nomem++;
		return;
	}
	if (!p->tl)
		return;
	th = pipeline_thread(p, rec->tid);
	if (!th || pipeline_tl(th, rec->tid) ||
	    timeline_thread_record(p->tl, th->tl, rec, TL_NO_FUNC, 0))
		p->stats.nomem++;
}

/* Checked before scoring, so that scoring can index blindly. */
static inline bool pipeline_known(struct pipeline *p,
				  const struct ispot_record *rec)
{
	if (rec->probe_id < p->nr_probes && p->probes[rec->probe_id].used)
		return true;
	p->stats.unknown_probe++;
	return false;
}

void pipeline_record(void *ctx, const struct ispot_record *rec)
{
	struct pipeline *p = ctx;

	switch (rec->kind) {
	case ISPOT_REC_ENTRY:
		if (!pipeline_known(p, rec))
			return;
		p->stats.entries++;
		pipeline_call(p, rec, true);
		return;
	case ISPOT_REC_EXIT:
		if (!pipeline_known(p, rec))
			return;
		p->stats.exits++;
		pipeline_call(p, rec, false);
		return;
	case ISPOT_REC_STACK:
		pipeline_stack(p, rec);
		return;
	case ISPOT_REC_SWITCH_OUT:
	case ISPOT_REC_SWITCH_IN:
	case ISPOT_REC_FUTEX_ENTER:
	case ISPOT_REC_FUTEX_EXIT:
		p->stats.waits++;
		if (p->tl)
			pipeline_wait(p, rec);
		return;
	case ISPOT_REC_TASK_NEW:
		p->stats.tasks++;
		pipeline_task_new(p, rec);
		return;
	case ISPOT_REC_TASK_EXIT:
		p->stats.tasks++;
		pipeline_exit_named(p, rec);
		if (pipeline_thread_exit(p, rec->tid, rec->ts_ns))
			p->stats.nomem++;
		return;
	case ISPOT_REC_GATE:
		pipeline_gate(p, rec);
		return;
	case ISPOT_REC_SOLO_BEGIN:
	case ISPOT_REC_SOLO_END:
		solo_block_record(&p->solo, rec);
		pipeline_solo_window(p, rec);
		return;
	case ISPOT_REC_LOST:
		pipeline_ring_lost(p, rec);
		return;
	default:
		p->stats.unknown_kind++;
		return;
	}
}
