// SPDX-License-Identifier: GPL-2.0
/*
 * A thread at the gate (gate.c has the gate itself, its fields, who
 * writes which, the lock order): the entry handler's slow path, the wait
 * for a holder, and each way a wait ends: the gate taken, the block
 * over, a holder stuck inside a call or idle between calls, a holder
 * waiting in a futex, the wait's bound, or a fatal signal.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "ispot_internal.h"

/*
 * The holder @stuck (its word, in a call) held the gate for wait_max_ns
 * while this thread waited, in the same call (or the wait reached its
 * bound in the block it began in): @seq, its hold_seq then.
 * In the block this thread waited in, open the gate for the rest of it.
 * If that block has ended, free the gate for the next one, and pass
 * beside the holder's call.  Either way the displaced holder's tid goes
 * into the GATE record, so that its call is not taken for one that ran
 * alone.  Returns false if the gate moved on meanwhile: the caller looks
 * again.
 *
 * The block, the word and the sequence are read, the word swapped and the
 * timeout counted under the wait queue's lock, where ispot_gate_hold()
 * changes the word and the sequence and the block's END reads the count
 * and ends the block (gate_block.c): a holder that returned and started
 * its next call meanwhile has the same word again, but not the same
 * sequence, and its new call is not displaced; and a timeout is in its
 * block's END or its block had ended, never in between.
 */
static bool ispot_gate_time_out(struct ispot_gate *g, unsigned long stuck,
				u32 seq, struct ispot_gate_pass *pass)
{
	u32 tid = READ_ONCE(g->holder_tid);
	unsigned long flags;
	bool ended, swapped;

	spin_lock_irqsave(&g->wq.lock, flags);
	ended = g->open_block != pass->block;
	swapped = READ_ONCE(g->hold_seq) == seq &&
		  cmpxchg(&g->holder, stuck,
			  ended ? 0 : ISPOT_GATE_OPENED) == stuck;
	if (swapped && !ended)
		g->timeouts++;
	spin_unlock_irqrestore(&g->wq.lock, flags);
	if (!swapped)
		return false;
	/* cmpxchg() is a full barrier: the sleepers' check is ordered. */
	if (wq_has_sleeper(&g->wq))
		wake_up_all(&g->wq);
	pass->displaced_tid = tid;
	if (ended) {
		pass->flags |= ISPOT_GATE_LATE | ISPOT_GATE_BESIDE;
		return true;
	}
	pass->flags |= ISPOT_GATE_TIMEOUT;
	return true;
}

/*
 * Whether @t is inside a call with a return probe pending, which (but for
 * the holder's nested calls, told apart before) it entered before the
 * gate stood: it may hold a lock the holder waits for, and waiting here
 * would then wait for itself.  Another tracer's return probes count too;
 * stale ones (a longjmp) until its next return probe cleans them up.
 */
static bool ispot_gate_inside(struct task_struct *t)
{
	return t->utask && READ_ONCE(t->utask->return_instances);
}

/*
 * Whether the holder @h waits in a futex (a mutex, a condition variable):
 * it may wait for a lock the caller holds outside any traced call (lock();
 * traced_work(); unlock();), and the caller would then wait for itself
 * until the timeout.  A holder asleep otherwise (the disk, a sleep) keeps
 * the gate: that is what the gate is for.
 */
static bool ispot_gate_holder_waits(struct ispot_gate *g,
				    struct task_struct *h)
{
	return h && READ_ONCE(g->futex_task) == h;
}

static bool ispot_gate_passable(struct ispot_session *s)
{
	unsigned long w = READ_ONCE(s->gate.holder);

	return !w || w == ISPOT_GATE_OPENED ||
	       ispot_gate_holder_waits(&s->gate, ispot_gate_task(w)) ||
	       READ_ONCE(s->stop_reason);
}

/*
 * The tid of the holder whose word is @w, for a GATE record's ip, into
 * *@tid; false if the gate moved on.  From the task itself, not
 * holder_tid: a holder that has just taken the gate has not written its
 * fields yet.  The word is cleared before its task exits (the
 * sched_process_exit probe), and RCU keeps the task while it is read.
 */
static bool ispot_gate_holder_tid(struct ispot_session *s, unsigned long w,
				  u32 *tid)
{
	bool same;

	rcu_read_lock();
	same = READ_ONCE(s->gate.holder) == w;
	if (same)
		*tid = ispot_vpid(s, ispot_gate_task(w));
	rcu_read_unlock();
	return same;
}

/*
 * Sleep until the gate may be passable or the block changes (from
 * @deadline: END, or the next block), @until (mono ns) or a fatal
 * signal, whichever comes first: -ERESTARTSYS on the signal.  An hrtimer,
 * not jiffies: a wait of 1 ms must not last a 4 ms tick.  @wait stays
 * queued across the sleeps of one wait; only a wake-up takes it out.  The
 * block is read after the entry is queued: a change before that is seen
 * here, one after wakes it (END writes the deadline, then wakes; BEGIN
 * wakes when it frees a holder, and one that frees none leaves the gate
 * free, which ispot_gate_passable() sees).
 */
static int ispot_gate_sleep(struct ispot_session *s,
			    struct wait_queue_entry *wait, u64 deadline,
			    u64 until)
{
	ktime_t expires = ns_to_ktime(until);
	long ret;

	ret = prepare_to_wait_event(&s->gate.wq, wait, TASK_KILLABLE);
	if (!ret && !ispot_gate_passable(s) &&
	    READ_ONCE(s->gate.deadline) == deadline)
		schedule_hrtimeout(&expires, HRTIMER_MODE_ABS);
	__set_current_state(TASK_RUNNING);
	return fatal_signal_pending(current) ? -ERESTARTSYS : 0;
}

/* Whether @now is past @start + @span, on a clock that may step back. */
static bool ispot_gate_past(u64 now, u64 start, u64 span)
{
	return (s64)(now - start) >= (s64)span;
}

/*
 * Try to take a free gate: false if admission is over, or it was taken.
 * The call that takes it is the first of its holder's in the block.
 */
static bool ispot_gate_take(struct ispot_session *s, u64 sp, u64 now,
			    u64 deadline)
{
	if (now >= deadline ||
	    cmpxchg(&s->gate.holder, 0, ispot_gate_word(current)))
		return false;
	return ispot_gate_hold(s, sp, deadline);
}

/*
 * The holder @idle (its word, between calls) has been so for wait_max_ns
 * (or the wait reached its bound in the block it began in):
 * it is no busy caller (a thread that called once and went on to other
 * work, or waits for something this thread may do), and the block has
 * given what it could.  Open the gate for the rest of the block, as a
 * timeout does, but no call was displaced and the block is not
 * contaminated; once the block has ended, free it instead.  Returns false
 * if the holder moved meanwhile (a call started): the caller looks again.
 */
static bool ispot_gate_open_idle(struct ispot_gate *g, unsigned long idle,
				 struct ispot_gate_pass *pass)
{
	if (READ_ONCE(g->open_block) != pass->block) {
		if (!ispot_gate_swap(g, idle, 0))
			return false;
		pass->flags |= ISPOT_GATE_LATE;
		return true;
	}
	if (!ispot_gate_swap(g, idle, ISPOT_GATE_OPENED))
		return false;
	pass->flags |= ISPOT_GATE_OPEN;
	return true;
}

/*
 * Wait at the gate until this thread holds it or may pass, filling
 * @pass->flags.  While the block admits, its holder keeps the gate
 * between its calls, so a thread that finds it held waits until the block
 * ends, unless the holder leaves (its exit) or waits in a futex.  A wait
 * ends early on a holder that does not move, seen so for wait_max_ns
 * since this thread first saw it so: inside the same call (the same
 * hold_seq), a timeout; between calls, the block is over for everyone.
 * So a wait ends by the block's end plus at most 2 * wait_max_ns (the
 * holder's last call, seen late), or by a fatal signal.
 *
 * That bound is kept across blocks too: a reader that starts the next
 * block as one ends (or ends one early and starts another) frees the
 * gate for a new holder, and a thread that lost the race for it would
 * otherwise wait through that block as well, and the next.  @limit is
 * the end of the block the wait began in (its admission's end, or, if
 * END came first, when this thread saw END, which wakes it), or the
 * wait's start with none admitting, plus 2 * @wait_max of then.  Past
 * it, in that block, the holder is taken for stuck, as a timeout takes
 * it; in a later block, whose holder did nothing wrong, this thread
 * passes beside it (LATE, BESIDE: that call is no reference), and the
 * block goes on as it was.
 *
 * Each look reads the clock and the block afresh: a take that finds its
 * admission over lets go, and a stale clock would take again without
 * end; a block ended early (END) or a new one changes what may be taken.
 */
static void ispot_gate_wait(struct ispot_session *s, u64 sp, u64 deadline,
			    u64 wait_max, struct ispot_gate_pass *pass)
{
	struct ispot_gate *g = &s->gate;
	u64 first_deadline = deadline, bound = 2 * wait_max;
	u64 now, d, seen_at = 0, until, limit;
	u32 seq, seen_seq = 0, block;
	unsigned long w, seen = 0;
	struct wait_queue_entry wait;
	bool stuck, later = false;

	now = ktime_get_mono_fast_ns();
	limit = (now < deadline ? deadline : now) + bound;
	init_wait_entry(&wait, 0);
	for (;;) {
		now = ktime_get_mono_fast_ns();
		/* Pairs with ispot_gate_solo(): the block's fields after it. */
		d = smp_load_acquire(&g->deadline);
		if (d != deadline) {
			/* The first block ended early (END): from then. */
			if (now < first_deadline)
				limit = min(limit, now + bound);
			/*
			 * Only BEGIN sets a deadline: a new one is a later
			 * block's (the block number, read after the deadline,
			 * may already be the next block's: it is no proof).
			 */
			later |= d && d != first_deadline;
			deadline = d;
			wait_max = READ_ONCE(g->wait_max_ns);
			block = READ_ONCE(g->block);
			if (block != pass->block) {
				pass->block = block;
				seen = 0;
			}
		}
		/* Acquire: the holder's fields, written before its word. */
		w = smp_load_acquire(&g->holder);
		if (w == ISPOT_GATE_OPENED || READ_ONCE(s->stop_reason)) {
			pass->flags |= ISPOT_GATE_OPEN;
			break;
		}
		if (!w) {
			if (ispot_gate_take(s, sp, now, deadline)) {
				pass->flags |= ISPOT_GATE_ADMITTED |
					       ISPOT_GATE_TAKEN;
				break;
			}
			if (now >= deadline) {
				/* Admission is over: pass ungated. */
				if (pass->flags & ISPOT_GATE_WAITED)
					pass->flags |= ISPOT_GATE_LATE;
				break;
			}
			continue;	/* another thread took it */
		}
		if (now >= deadline && ispot_gate_free_idle(g, w))
			continue;
		if (ispot_gate_holder_waits(g, ispot_gate_task(w))) {
			/* Beside it, ungated; its call is no reference now. */
			pass->flags |= ISPOT_GATE_BESIDE;
			pass->displaced_tid = READ_ONCE(g->holder_tid);
			break;
		}
		seq = READ_ONCE(g->hold_seq);
		if (w != seen || seq != seen_seq) {
			seen = w;
			seen_seq = seq;
			seen_at = now;
			stuck = false;
		} else {
			stuck = ispot_gate_past(now, seen_at, wait_max);
		}
		if (later && ispot_gate_past(now, limit, 0)) {
			if (!ispot_gate_holder_tid(s, w, &pass->displaced_tid))
				continue;	/* it moved on: look again */
			pass->flags |= ISPOT_GATE_LATE | ISPOT_GATE_BESIDE;
			break;
		}
		if (stuck || ispot_gate_past(now, limit, 0)) {
			if (w & ISPOT_GATE_IN_CALL ?
			    ispot_gate_time_out(g, w, seq, pass) :
			    ispot_gate_open_idle(g, w, pass))
				break;
			continue;
		}
		pass->flags |= ISPOT_GATE_WAITED;
		/* Look again when the block ends, or the call may be stuck. */
		until = seen_at + wait_max;
		if (now < deadline && deadline < until)
			until = deadline;
		until = min(until, limit);
		if (ispot_gate_sleep(s, &wait, deadline, until)) {
			/* SIGKILL: the thread dies on its way back to user. */
			pass->flags |= ISPOT_GATE_OPEN;
			break;
		}
	}
	finish_wait(&g->wq, &wait);
}

/*
 * The entry handler's slow path (ispot_gate_enter()), in task context with
 * preemption enabled and no lock of ours held.  Fills @pass and returns
 * whether a GATE record is due.
 */
bool ispot_gate_enter_slow(struct ispot_session *s, u64 sp,
			   struct ispot_gate_pass *pass)
{
	struct ispot_gate *g = &s->gate;
	/* First, pairing with ispot_gate_solo(): block, wait_max after it. */
	u64 deadline = smp_load_acquire(&g->deadline);
	u64 wait_max = READ_ONCE(g->wait_max_ns);
	u64 start = ktime_get_mono_fast_ns(), now;
	unsigned long w;

	pass->block = READ_ONCE(g->block);
	pass->waited_ns = 0;
	pass->displaced_tid = 0;
	pass->flags = 0;
	/* Admission is over: forget the deadline, the fast path is back. */
	if (deadline && start >= deadline)
		cmpxchg(&g->deadline, deadline, 0);
	w = READ_ONCE(g->holder);
	if (ispot_gate_task(w) == current) {
		if (ispot_gate_again(s, sp, start, deadline, pass))
			return true;
		/*
		 * It let go (admission is over), or the gate was taken from
		 * it (a block's END, then the next block's taker): from here
		 * on, a thread like any other, which waits if a block admits.
		 */
	} else if (w == ISPOT_GATE_OPENED && !deadline) {
		/* Stopped, with no block: nothing to record. */
		return false;
	}
	if (ispot_gate_inside(current)) {
		pass->flags = ISPOT_GATE_INSIDE;
		return true;
	}
	ispot_gate_wait(s, sp, deadline, wait_max, pass);
	if (pass->flags & ISPOT_GATE_WAITED) {
		now = ktime_get_mono_fast_ns();
		pass->waited_ns = ispot_gate_past(now, start, 0) ?
				  now - start : 0;
	}
	return pass->flags & ~ISPOT_GATE_OPEN;
}
