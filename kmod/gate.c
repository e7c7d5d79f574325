// SPDX-License-Identifier: GPL-2.0
/*
 * The gate (ABI 1.6; one thread a block since 1.7): solo blocks, during
 * which at most one thread of the target runs inside the gated functions,
 * so that its calls there meet no interference from the others
 * (Documentation/solo-blocks.rst).
 *
 * Gated functions are those probed with a return probe and not only
 * counted: the return is what lets the gate go.  A thread does not wait
 * for a holder that waits in a futex, maybe for it: it passes beside it,
 * ungated, and the holder's call is no reference (gate_wait.c,
 * ispot_gate_holder_waits()).  The entry handler of a
 * thread that finds the gate held by another waits in ispot_gate_enter(),
 * killable, until the block ends, and never past that block's end plus
 * twice its wait_max_ns (gate_wait.c).  This is the only place
 * a handler of this module sleeps; why it may is in
 * Documentation/kernel-compat.rst, "Sleeping in an entry handler".
 *
 * The gate's state is one word, @holder (ispot_internal.h): free, the
 * holding task with or without ISPOT_GATE_IN_CALL, or ISPOT_GATE_OPENED
 * (everyone passes: a wait timed out, or the session stops).  Every change
 * of it while handlers run is one cmpxchg()/xchg(), so nothing is admitted
 * once it is opened, and a holder that starts a call and a thread that
 * takes the gate away from a holder between calls cannot both succeed.  The
 * first thread to enter a gated function in a block takes it, and keeps it
 * between its calls until the block ends: a block's calls are one thread's,
 * each after the same thread's last, as in a run of that thread alone.
 * (Handing the gate from thread to thread at each return made every call of
 * a pool follow another thread's, and a library whose next call is slow
 * after another thread's, SQLite's sqlite3_step() by ten times, kept that
 * cost in its reference.)  The holder lets go when its outermost gated call
 * returns after the block's admission ended, or when it enters one then (a
 * waiter frees the gate of a holder between calls then, too), when it exits
 * (the sched_process_exit probe; blocks need ISPOT_SETUP_TASKS for that),
 * and the block's END frees it.  A wait on a holder that stays inside one
 * call for wait_max_ns opens the gate for the rest of its block: a holder
 * that waits for another thread of the gate, or never returns, costs one
 * timeout.  One that stays between calls that long is done with the block
 * (gate_wait.c, ispot_gate_open_idle()).  Once the block has ended, such
 * a wait frees the gate instead, for the next block.  A wait that reaches
 * its bound in a later block (the reader started it at once) passes
 * beside that block's holder, whose current or next call it displaces,
 * and changes nothing else.
 *
 * Who writes what (struct ispot_gate):
 *   block, deadline, wait_max_ns, open_block: the ioctls, under the
 *     session lock; a handler clears a deadline that has passed;
 *   holder: cmpxchg() in handlers, xchg()/cmpxchg() by the ioctls;
 *   holder_sp, holder_exec_id, holder_tid, hold_seq: the holder, under
 *     the wait queue's lock, before it sets ISPOT_GATE_IN_CALL (others
 *     read them after seeing it set; ispot_gate_hold());
 *   futex_task: a holder entering a futex wait, and any thread leaving one
 *     (its own only);
 *   timeouts, and open_block's clearing by END: under the wait queue's
 *     lock (ispot_gate_time_out(), ispot_gate_end());
 *
 * Blocks start and end in gate_block.c, from the ioctls.
 *
 * Lock order: the session lock, then the wait queue's spinlock, under which
 * nothing is taken.  Handlers take only the latter: to sleep and wake, in
 * ispot_gate_hold() for a few stores and in ispot_gate_time_out() for a
 * compare and a cmpxchg(), only while a block is on.  One
 * dependency lockdep cannot see: DISABLE waits for running handlers
 * (unregistering), and a handler may wait for the holder's return;
 * DISABLE opens the gate and wakes every waiter before it unregisters, so
 * that wait is never on it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "ispot_internal.h"

static void ispot_gate_wake_work(struct irq_work *work)
{
	struct ispot_gate *g = container_of(work, struct ispot_gate,
					    wake_work);

	wake_up_all(&g->wq);
}

void ispot_gate_init(struct ispot_gate *g)
{
	/* The holder word keeps its flags in a task pointer's low bits. */
	BUILD_BUG_ON(__alignof__(struct task_struct) <= ISPOT_GATE_IN_CALL);
	init_waitqueue_head(&g->wq);
	init_irq_work(&g->wake_work, ispot_gate_wake_work);
	g->timeouts = 0;
}

/* Before the session is freed: no wake-up is still queued. */
void ispot_gate_free(struct ispot_gate *g)
{
	irq_work_sync(&g->wake_work);
}

/*
 * Change the holder word from @old to @new, waking the threads waiting
 * for it if that frees the gate or opens it.  Whether it was @old.
 */
bool ispot_gate_swap(struct ispot_gate *g, unsigned long old,
		     unsigned long new)
{
	if (cmpxchg(&g->holder, old, new) != old)
		return false;
	/* cmpxchg() is a full barrier: the sleepers' check is ordered. */
	if (wq_has_sleeper(&g->wq))
		wake_up_all(&g->wq);
	return true;
}

/*
 * Let go of the gate if @t holds it, in a call or not: it is free, and
 * the threads waiting for it wake, to take it if the block still admits,
 * else to pass.
 */
static void ispot_gate_let_go(struct ispot_gate *g, struct task_struct *t)
{
	unsigned long w = READ_ONCE(g->holder);

	if (ispot_gate_task(w) == t)
		ispot_gate_swap(g, w, 0);
}

/*
 * @t's outermost gated call returns (return handler, task context,
 * preemptible).  While its block admits, the holder keeps the gate
 * between its calls: a block's calls are one thread's, each after the
 * same thread's last, as in a run of that thread alone (see the top of
 * the file).  After, it lets the gate go.  If the gate was taken away
 * meanwhile (a timeout, END), the word is no longer its own and nothing
 * changes.
 */
void ispot_gate_release(struct ispot_gate *g, struct task_struct *t)
{
	unsigned long w = ispot_gate_word(t) | ISPOT_GATE_IN_CALL;

	/* Pairs with ispot_gate_solo()'s release of the block. */
	if (ktime_get_mono_fast_ns() < smp_load_acquire(&g->deadline)) {
		cmpxchg(&g->holder, w, ispot_gate_word(t));
		return;
	}
	ispot_gate_swap(g, w, 0);
}

/*
 * The same from the sched_process_exit probe, where preemption is off:
 * the wake-up is deferred, as a PREEMPT_RT kernel's wait-queue lock may
 * sleep.  A task that dies in a futex wait leaves it, too.
 */
void ispot_gate_release_exiting(struct ispot_gate *g, struct task_struct *t)
{
	unsigned long w = READ_ONCE(g->holder);

	if (unlikely(READ_ONCE(g->futex_task) == t))
		cmpxchg(&g->futex_task, t, NULL);
	if (ispot_gate_task(w) != t || cmpxchg(&g->holder, w, 0) != w)
		return;
	irq_work_queue(&g->wake_work);
}

/*
 * The holder starts an outermost call at @sp: its fields for the waiters,
 * then ISPOT_GATE_IN_CALL, then (cmpxchg() being a full barrier) whether
 * its block still admits.  If the gate was taken away first, or the block
 * is over, it passes ungated; a waiter or END that frees the gate of a
 * holder between calls fails on the word the holder changed, so a call
 * admitted here has the gate to itself until it returns or a wait times
 * out on it.  The fields are written under the wait queue's lock with the
 * word checked there: a thread that lost the gate meanwhile (to an END
 * and the next block's taker) cannot write over its new holder's, whose
 * own writes come after, under the same lock.
 */
bool ispot_gate_hold(struct ispot_session *s, u64 sp, u64 deadline)
{
	unsigned long me = ispot_gate_word(current), w, flags;
	struct ispot_gate *g = &s->gate;
	bool held;

	if (unlikely(READ_ONCE(g->futex_task) == current))
		cmpxchg(&g->futex_task, current, NULL);
	spin_lock_irqsave(&g->wq.lock, flags);
	w = READ_ONCE(g->holder);
	held = w == me || w == (me | ISPOT_GATE_IN_CALL);
	if (held) {
		WRITE_ONCE(g->holder_sp, sp);
		WRITE_ONCE(g->holder_exec_id,
			   READ_ONCE(current->self_exec_id));
		WRITE_ONCE(g->holder_tid, ispot_vpid(s, current));
		WRITE_ONCE(g->hold_seq, READ_ONCE(g->hold_seq) + 1);
		/* Already set by a call left without a return (longjmp). */
		held = w != me ||
		       cmpxchg(&g->holder, me, me | ISPOT_GATE_IN_CALL) == me;
	}
	spin_unlock_irqrestore(&g->wq.lock, flags);
	if (!held)
		return false;
	if (ktime_get_mono_fast_ns() < deadline &&
	    READ_ONCE(g->deadline) == deadline)
		return true;
	ispot_gate_let_go(g, current);
	return false;
}

/*
 * The holder enters a gated function again.  Inside its outermost call,
 * below that call's sp, it is nested in it.  Otherwise this call is its
 * outermost now (its last returned, or was left without a return:
 * longjmp, an exception, exec): admitted if the block still admits; if
 * not, the holder lets go and passes.
 */
bool ispot_gate_again(struct ispot_session *s, u64 sp, u64 now,
		      u64 deadline, struct ispot_gate_pass *pass)
{
	struct ispot_gate *g = &s->gate;

	if (READ_ONCE(g->holder) ==
	    (ispot_gate_word(current) | ISPOT_GATE_IN_CALL) &&
	    sp < READ_ONCE(g->holder_sp) &&
	    READ_ONCE(current->self_exec_id) ==
	    READ_ONCE(g->holder_exec_id)) {
		pass->flags = ISPOT_GATE_NESTED;
		return true;
	}
	if (now < deadline && ispot_gate_hold(s, sp, deadline)) {
		pass->flags = ISPOT_GATE_ADMITTED;
		return true;
	}
	ispot_gate_let_go(g, current);
	return false;
}

/*
 * @t entered (@in) or left a futex wait: the sys_enter and sys_exit
 * probes tell, for sessions with ISPOT_SETUP_WAITS.  Only a holder's
 * waits count.  The threads already asleep at the gate wake to pass
 * beside it, as those that come later do; the wake-up is deferred,
 * preemption being off in the probe (ispot_gate_release_exiting()).
 */
void ispot_gate_futex(struct ispot_gate *g, struct task_struct *t, bool in)
{
	if (!in) {
		if (unlikely(READ_ONCE(g->futex_task) == t))
			cmpxchg(&g->futex_task, t, NULL);
		return;
	}
	if (likely(ispot_gate_task(READ_ONCE(g->holder)) != t))
		return;
	WRITE_ONCE(g->futex_task, t);
	/* wq_has_sleeper()'s barrier pairs with ispot_gate_sleep()'s. */
	if (wq_has_sleeper(&g->wq))
		irq_work_queue(&g->wake_work);
}

/*
 * Free the gate of a holder between calls (@w, without
 * ISPOT_GATE_IN_CALL), its block's admission being over: it lets go with
 * the block.  Fails if it started a call meanwhile.
 */
bool ispot_gate_free_idle(struct ispot_gate *g, unsigned long w)
{
	return w && w != ISPOT_GATE_OPENED && !(w & ISPOT_GATE_IN_CALL) &&
	       ispot_gate_swap(g, w, 0);
}
