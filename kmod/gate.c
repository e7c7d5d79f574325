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
 * ungated, and the holder's call is no reference
 * (ispot_gate_holder_waits()).  The entry handler of a
 * thread that finds the gate held by another waits in ispot_gate_enter(),
 * killable, until the block ends (bounded below).  This is the only place
 * a handler of this module sleeps; why it may is in
 * Documentation/kernel-compat.rst, "Sleeping in an entry handler".
 *
 * The gate's state is one word, @holder: NULL (free), the holding task, or
 * ISPOT_GATE_OPENED (everyone passes: a wait timed out, or the session
 * stops).  Taking it is cmpxchg(NULL -> current), so nothing is admitted
 * once it is opened.  The first thread to enter a gated function in a
 * block takes it, and keeps it between its calls until the block ends: a
 * block's calls are one thread's, each after the same thread's last, as
 * in a run of that thread alone.  (Handing the gate from thread to thread
 * at each return made every call of a pool follow another thread's, and
 * a library whose next call is slow after another thread's, SQLite's
 * sqlite3_step() by ten times, kept that cost in its reference.)  The
 * holder lets go when its outermost gated call returns after the block's
 * admission ended, or when it enters one then (a waiter frees the gate
 * of a holder between calls then, too), when it exits (the
 * sched_process_exit probe; blocks need ISPOT_SETUP_TASKS for that), and
 * the block's END frees it.  A wait on a holder that stays inside one
 * call for wait_max_ns opens the gate for the rest of its block: a holder
 * that waits for another thread of the gate, or never returns, costs one
 * timeout.  One that stays between calls that long is done with the
 * block (ispot_gate_open_idle()).
 *
 * Who writes what (struct ispot_gate):
 *   block, deadline, wait_max_ns, open_block: the ioctls, under the
 *     session lock; a handler clears a deadline that has passed;
 *   holder: cmpxchg() in handlers, xchg()/WRITE_ONCE()/cmpxchg() by the
 *     ioctls;
 *   holder_sp, holder_exec_id, holder_tid, hold_seq, holder_in_call: the
 *     holder, while it holds (others only read them);
 *   timeouts: atomic, by the waiter that opens the gate.
 *
 * Blocks start and end in gate_block.c, from the ioctls.
 *
 * Lock order: the session lock, then the wait queue's spinlock, under which
 * nothing is taken.  Handlers take only the latter.  One dependency lockdep
 * cannot see: DISABLE waits for running handlers (unregistering), and a
 * handler may wait for the holder's return; DISABLE opens the gate and
 * wakes every waiter before it unregisters, so that wait is never on it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
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
	init_waitqueue_head(&g->wq);
	init_irq_work(&g->wake_work, ispot_gate_wake_work);
	atomic_set(&g->timeouts, 0);
}

/* Before the session is freed: no wake-up is still queued. */
void ispot_gate_free(struct ispot_gate *g)
{
	irq_work_sync(&g->wake_work);
}

/*
 * Let go of the gate if @t holds it: it is free, and the threads waiting
 * for it wake, to take it if the block still admits, else to pass.
 */
static void ispot_gate_let_go(struct ispot_gate *g, struct task_struct *t)
{
	if (READ_ONCE(g->holder) != t)
		return;
	WRITE_ONCE(g->holder_in_call, false);
	WRITE_ONCE(g->holder_futex, false);
	if (cmpxchg(&g->holder, t, NULL) != t)
		return;
	/* cmpxchg() is a full barrier: the sleepers' check is ordered. */
	if (wq_has_sleeper(&g->wq))
		wake_up_all(&g->wq);
}

/*
 * @t's outermost gated call returns (return handler, task context,
 * preemptible).  While its block admits, the holder keeps the gate
 * between its calls: a block's calls are one thread's, each after the
 * same thread's last, as in a run of that thread alone (see the top of
 * the file).  After, it lets the gate go.
 */
void ispot_gate_release(struct ispot_gate *g, struct task_struct *t)
{
	if (READ_ONCE(g->holder) != t)
		return;
	/* Pairs with ispot_gate_solo()'s release of the block. */
	if (ktime_get_mono_fast_ns() < smp_load_acquire(&g->deadline)) {
		WRITE_ONCE(g->holder_in_call, false);
		return;
	}
	ispot_gate_let_go(g, t);
}

/*
 * The same from the sched_process_exit probe, where preemption is off:
 * the wake-up is deferred, as a PREEMPT_RT kernel's wait-queue lock may
 * sleep.
 */
void ispot_gate_release_exiting(struct ispot_gate *g, struct task_struct *t)
{
	if (READ_ONCE(g->holder) != t || cmpxchg(&g->holder, t, NULL) != t)
		return;
	WRITE_ONCE(g->holder_in_call, false);
	WRITE_ONCE(g->holder_futex, false);
	irq_work_queue(&g->wake_work);
}

/*
 * The holder starts an outermost call at @sp: in a call (a waiter that
 * sees it there, with the same hold_seq, for wait_max_ns times out on it),
 * then, after a full barrier, whether its block still admits and the gate
 * is still its own.  A waiter, or END, that frees the gate of a holder
 * between calls once admission is over reads holder_in_call first: it
 * sees the call, or the holder sees the block's end or the gate gone, and
 * passes ungated.  (Only a holder that passes both checks in the moment
 * between the other side's read and its cmpxchg() runs a call as if
 * admitted with the gate free: at a block's very end, rarely, and with no
 * harm to the gate's state.)
 */
static bool ispot_gate_hold(struct ispot_session *s, u64 sp, u64 deadline)
{
	struct ispot_gate *g = &s->gate;

	WRITE_ONCE(g->holder_futex, false);
	g->holder_sp = sp;
	g->holder_exec_id = READ_ONCE(current->self_exec_id);
	g->holder_tid = ispot_vpid(s, current);
	WRITE_ONCE(g->hold_seq, g->hold_seq + 1);
	/* Pairs with ispot_gate_free_after_block()'s smp_rmb(). */
	smp_store_mb(g->holder_in_call, true);
	if (ktime_get_mono_fast_ns() < deadline &&
	    READ_ONCE(g->holder) == current)
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
static bool ispot_gate_again(struct ispot_session *s, u64 sp, u64 now,
			     u64 deadline, struct ispot_gate_pass *pass)
{
	struct ispot_gate *g = &s->gate;

	if (READ_ONCE(g->holder_in_call) && sp < g->holder_sp &&
	    READ_ONCE(current->self_exec_id) == g->holder_exec_id) {
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
 * The holder @stuck held the gate for wait_max_ns while this thread waited:
 * open the gate for the rest of the block, unless the block it waited in
 * is over (then it only passes, late).  The displaced holder's tid goes
 * into the GATE record, so that its call is not taken for one that ran
 * alone.  Returns false if the gate moved on meanwhile (let go, or handed
 * to another thread or to this one): the caller looks again.
 */
static bool ispot_gate_time_out(struct ispot_gate *g, struct task_struct *stuck,
				struct ispot_gate_pass *pass)
{
	struct task_struct *cur;
	u32 tid;

	if (READ_ONCE(g->open_block) != pass->block) {
		/* Its block has ended: not this block's to open. */
		pass->flags |= ISPOT_GATE_LATE;
		return true;
	}
	cur = READ_ONCE(g->holder);
	if (cur == ISPOT_GATE_OPENED) {
		pass->flags |= ISPOT_GATE_OPEN;
		return true;
	}
	if (cur != stuck)
		return false;
	tid = READ_ONCE(g->holder_tid);
	if (cmpxchg(&g->holder, cur, ISPOT_GATE_OPENED) != cur)
		return false;
	/* Only the wait that opened the gate displaced its holder. */
	pass->displaced_tid = tid;
	atomic_inc(&g->timeouts);
	pass->flags |= ISPOT_GATE_TIMEOUT;
	wake_up_all(&g->wq);
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
 * The holder entered (@in) or left a futex wait: the sys_enter and
 * sys_exit probes tell, for sessions with ISPOT_SETUP_WAITS.  Only the
 * holder's own calls count, and a new hold starts outside.  The threads
 * already asleep at the gate wake to pass beside it, as those that come
 * later do; the wake-up is deferred, preemption being off in the probe
 * (ispot_gate_release_exiting()).
 */
void ispot_gate_futex(struct ispot_gate *g, struct task_struct *t, bool in)
{
	if (likely(READ_ONCE(g->holder) != t))
		return;
	WRITE_ONCE(g->holder_futex, in);
	/* wq_has_sleeper()'s barrier pairs with ispot_gate_sleep()'s. */
	if (in && wq_has_sleeper(&g->wq))
		irq_work_queue(&g->wake_work);
}

/*
 * Whether the holder waits in a futex (a mutex, a condition variable): it
 * may wait for a lock the caller holds outside any traced call (lock();
 * traced_work(); unlock();), and the caller would then wait for itself
 * until the timeout.  A holder asleep otherwise (the disk, a sleep) keeps
 * the gate: that is what the gate is for.
 */
static bool ispot_gate_holder_waits(struct ispot_gate *g)
{
	return READ_ONCE(g->holder_futex);
}

static bool ispot_gate_passable(struct ispot_session *s)
{
	struct task_struct *h = READ_ONCE(s->gate.holder);

	return !h || h == ISPOT_GATE_OPENED ||
	       ispot_gate_holder_waits(&s->gate) || READ_ONCE(s->stop_reason);
}

/*
 * Sleep until the gate may be passable, @until (mono ns) or a fatal
 * signal, whichever comes first: -ERESTARTSYS on the signal.  An hrtimer,
 * not jiffies: a wait of 1 ms must not last a 4 ms tick.  @wait stays
 * queued across the sleeps of one wait; only a wake-up takes it out.
 */
static int ispot_gate_sleep(struct ispot_session *s,
			    struct wait_queue_entry *wait, u64 until)
{
	ktime_t expires = ns_to_ktime(until);
	long ret;

	ret = prepare_to_wait_event(&s->gate.wq, wait, TASK_KILLABLE);
	if (!ret && !ispot_gate_passable(s))
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
	if (now >= deadline || cmpxchg(&s->gate.holder, NULL, current))
		return false;
	return ispot_gate_hold(s, sp, deadline);
}

/*
 * The block is over and its holder @h between calls: let the gate go for
 * it, and pass.  The clock was read before holder_in_call (see
 * ispot_gate_hold()).
 */
bool ispot_gate_free_after_block(struct ispot_gate *g, struct task_struct *h,
				 u64 now, u64 deadline)
{
	if (now < deadline)
		return false;
	/*
	 * The clock, then the holder's state: ispot_gate_hold() writes them
	 * in the other order.
	 */
	smp_rmb();
	if (READ_ONCE(g->holder_in_call))
		return false;
	if (cmpxchg(&g->holder, h, NULL) == h)
		wake_up_all(&g->wq);
	return true;
}

/*
 * The holder @idle has been between calls for wait_max_ns: it is no busy
 * caller (a thread that called once and went on to other work, or waits
 * for something this thread may do), and the block has given what it
 * could.  Open the gate for the rest of the block, as a timeout does, but
 * no call was displaced and the block is not contaminated.  Returns
 * false if the holder moved meanwhile: the caller looks again.
 */
static bool ispot_gate_open_idle(struct ispot_gate *g, struct task_struct *idle,
				 struct ispot_gate_pass *pass)
{
	if (READ_ONCE(g->open_block) != pass->block) {
		pass->flags |= ISPOT_GATE_LATE;
		return true;
	}
	/* As in ispot_gate_free_after_block(). */
	smp_rmb();
	if (READ_ONCE(g->holder_in_call) ||
	    cmpxchg(&g->holder, idle, ISPOT_GATE_OPENED) != idle)
		return false;
	pass->flags |= ISPOT_GATE_OPEN;
	wake_up_all(&g->wq);
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
 */
static void ispot_gate_wait(struct ispot_session *s, u64 sp, u64 deadline,
			    u64 wait_max, struct ispot_gate_pass *pass)
{
	struct ispot_gate *g = &s->gate;
	u64 now = ktime_get_mono_fast_ns(), seen_at = now, until;
	struct task_struct *h, *seen = NULL;
	bool in_call, seen_in_call = false;
	struct wait_queue_entry wait;
	u32 seq, seen_seq = 0;

	init_wait_entry(&wait, 0);
	for (;;) {
		h = READ_ONCE(g->holder);
		if (h == ISPOT_GATE_OPENED || READ_ONCE(s->stop_reason)) {
			pass->flags |= ISPOT_GATE_OPEN;
			break;
		}
		if (!h) {
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
		if (ispot_gate_free_after_block(g, h, now, deadline))
			continue;
		seq = READ_ONCE(g->hold_seq);
		in_call = READ_ONCE(g->holder_in_call);
		if (h != seen || seq != seen_seq || in_call != seen_in_call) {
			seen = h;
			seen_seq = seq;
			seen_in_call = in_call;
			seen_at = now;
		} else if (ispot_gate_past(now, seen_at, wait_max)) {
			if (in_call ? ispot_gate_time_out(g, h, pass) :
				      ispot_gate_open_idle(g, h, pass))
				break;
			continue;
		}
		if (ispot_gate_holder_waits(g)) {
			/* Beside it, ungated; its call is no reference now. */
			pass->flags |= ISPOT_GATE_BESIDE;
			pass->displaced_tid = READ_ONCE(g->holder_tid);
			break;
		}
		pass->flags |= ISPOT_GATE_WAITED;
		/* Look again when the block ends, or the call may be stuck. */
		until = seen_at + wait_max;
		if (now < deadline && deadline < until)
			until = deadline;
		if (ispot_gate_sleep(s, &wait, until)) {
			/* SIGKILL: the thread dies on its way back to user. */
			pass->flags |= ISPOT_GATE_OPEN;
			break;
		}
		now = ktime_get_mono_fast_ns();
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
	u64 start = ktime_get_mono_fast_ns(), now;

	pass->block = READ_ONCE(g->block);
	pass->waited_ns = 0;
	pass->displaced_tid = 0;
	pass->flags = 0;
	/* Admission is over: forget the deadline, the fast path is back. */
	if (deadline && start >= deadline)
		cmpxchg(&g->deadline, deadline, 0);
	if (READ_ONCE(g->holder) == current)
		return ispot_gate_again(s, sp, start, deadline, pass);
	if (ispot_gate_inside(current)) {
		pass->flags = ISPOT_GATE_INSIDE;
		return true;
	}
	ispot_gate_wait(s, sp, deadline, READ_ONCE(g->wait_max_ns), pass);
	if (pass->flags & ISPOT_GATE_WAITED) {
		now = ktime_get_mono_fast_ns();
		pass->waited_ns = ispot_gate_past(now, start, 0) ?
				  now - start : 0;
	}
	return pass->flags & ~ISPOT_GATE_OPEN;
}
