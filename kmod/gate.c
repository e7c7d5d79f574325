// SPDX-License-Identifier: GPL-2.0
/*
 * The gate (ABI 1.6): solo blocks, during which at most one thread of the
 * target runs inside the gated functions, so that its calls there meet no
 * interference from the others (Documentation/solo-blocks.rst).
 *
 * Gated functions are those probed with a return probe and not only
 * counted: the return is what lets the gate go.  The entry handler of a
 * thread that finds the gate held by another waits in ispot_gate_enter(),
 * killable and for at most the block's wait_max_ns.  This is the only place
 * a handler of this module sleeps; why it may is in
 * Documentation/kernel-compat.rst, "Sleeping in an entry handler".
 *
 * The holder lets go when its outermost gated call returns (return
 * handler), when it exits (the sched_process_exit probe), when it enters a
 * gated call again after its block's admission ended with the outer call
 * left behind (longjmp), and everyone is let go when a wait times out or
 * the session stops.  No wait is ever longer than wait_max_ns, whatever the
 * holder does: a holder that waits for another thread of the gate, or
 * never returns, costs one timeout and opens the gate for the rest of the
 * block.
 *
 * Who writes what (struct ispot_gate):
 *   deadline, wait_max_ns, block: the ioctls, under the session lock;
 *   open, timeouts: the ioctls, and a waiter whose wait timed out;
 *   holder: cmpxchg() by the thread taking the gate; cleared with cmpxchg()
 *     by the holder, or plainly by a timed-out waiter and at stop;
 *   holder_sp, holder_exec_id: only the holder, while it holds.
 * Lock order: session lock, then the wait queue's spinlock, which nothing
 * is taken under.  Handlers take only the latter, and only while the gate
 * is in use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "ispot_internal.h"

void ispot_gate_init(struct ispot_gate *g)
{
	init_waitqueue_head(&g->wq);
	atomic_set(&g->timeouts, 0);
}

/*
 * A SOLO_BEGIN or SOLO_END record, from the ioctl's CPU.  The ring's
 * producer is whoever runs on that CPU with preemption disabled, as in the
 * handlers.  The tid is 0: the reader, not a thread of the target, did it.
 */
static void ispot_gate_put(struct ispot_session *s, u8 kind, u64 d0, u64 d1,
			   u64 d2)
{
	struct ispot_record *rec;
	struct ispot_ring *ring;

	preempt_disable();
	ring = s->rings[smp_processor_id()];
	rec = ispot_ring_reserve(ring, 1);
	if (rec) {
		rec->tid = 0;
		rec->tgid = pid_nr_ns(s->tgid_pid, s->pid_ns);
		rec->probe_id = 0;
		rec->cpu = smp_processor_id();
		rec->kind = kind;
		rec->nslots = 1;
		rec->sp = 0;
		rec->ip = 0;
		rec->data[0] = d0;
		rec->data[1] = d1;
		rec->data[2] = d2;
		rec->ts_ns = ktime_get_mono_fast_ns();
		ispot_ring_commit(ring, 1);
	}
	preempt_enable();
}

/* The GATE record of a call that met the gate (ABI: ISPOT_REC_GATE). */
void ispot_gate_record(struct ispot_session *s, u32 probe_id, u64 sp,
		       const struct ispot_gate_pass *pass)
{
	struct ispot_record *rec;
	struct ispot_ring *ring;

	preempt_disable();
	ring = s->rings[smp_processor_id()];
	rec = ispot_ring_reserve(ring, 1);
	if (rec) {
		ispot_record_header(rec, s, current, probe_id, ISPOT_REC_GATE,
				    1, ktime_get_mono_fast_ns());
		rec->sp = sp;
		rec->ip = 0;
		rec->data[0] = pass->block;
		rec->data[1] = pass->waited_ns;
		rec->data[2] = pass->flags;
		ispot_ring_commit(ring, 1);
	}
	preempt_enable();
}

static void ispot_gate_wake(struct ispot_gate *g)
{
	/* wq_has_sleeper()'s barrier orders the holder's store before it. */
	if (wq_has_sleeper(&g->wq))
		wake_up_all(&g->wq);
}

/* Let go of the gate if @t holds it. */
void ispot_gate_release(struct ispot_gate *g, struct task_struct *t)
{
	if (READ_ONCE(g->holder) != t || cmpxchg(&g->holder, t, NULL) != t)
		return;
	ispot_gate_wake(g);
}

static void ispot_gate_hold(struct ispot_gate *g, u64 sp)
{
	g->holder_sp = sp;
	g->holder_exec_id = READ_ONCE(current->self_exec_id);
}

/*
 * The holder enters a gated function again.  Below its outer call's sp it
 * is nested in it.  At or above, the outer call was left without a return
 * (longjmp, an exception, exec): this call is its outermost now, if the
 * block still admits; if not, it lets go and passes.
 */
static bool ispot_gate_again(struct ispot_gate *g, u64 sp, u64 now,
			     struct ispot_gate_pass *pass)
{
	if (sp < g->holder_sp &&
	    READ_ONCE(current->self_exec_id) == g->holder_exec_id) {
		pass->flags = ISPOT_GATE_NESTED;
		return true;
	}
	if (now < smp_load_acquire(&g->deadline)) {
		ispot_gate_hold(g, sp);
		pass->flags = ISPOT_GATE_ADMITTED;
		return true;
	}
	ispot_gate_release(g, current);
	return false;
}

/* A wait outlived wait_max_ns: everyone passes until the block ends. */
static void ispot_gate_time_out(struct ispot_gate *g)
{
	WRITE_ONCE(g->open, true);
	atomic_inc(&g->timeouts);
	WRITE_ONCE(g->holder, NULL);
	wake_up_all(&g->wq);
}

static bool ispot_gate_passable(struct ispot_session *s)
{
	return !READ_ONCE(s->gate.holder) || READ_ONCE(s->gate.open) ||
	       READ_ONCE(s->stop_reason);
}

/* At least one jiffy, so that a short remainder still sleeps. */
static long ispot_gate_jiffies(u64 ns)
{
	return max_t(long, 1, nsecs_to_jiffies(ns));
}

/*
 * The entry handler's slow path (ispot_gate_enter()), in task context with
 * preemption enabled and no lock of ours held.  Fills @pass and returns
 * whether the call met the gate at all (a GATE record is due).
 */
bool ispot_gate_enter_slow(struct ispot_session *s, u64 sp,
			   struct ispot_gate_pass *pass)
{
	struct ispot_gate *g = &s->gate;
	u64 start = ktime_get_mono_fast_ns();
	u64 wait_max = READ_ONCE(g->wait_max_ns);
	u64 now = start;

	pass->block = READ_ONCE(g->block);
	pass->waited_ns = 0;
	pass->flags = 0;
	if (READ_ONCE(g->holder) == current)
		return ispot_gate_again(g, sp, now, pass);
	for (;;) {
		if (READ_ONCE(g->open) || READ_ONCE(s->stop_reason)) {
			pass->flags |= ISPOT_GATE_OPEN;
			break;
		}
		if (!READ_ONCE(g->holder)) {
			if (now < smp_load_acquire(&g->deadline) &&
			    !cmpxchg(&g->holder, NULL, current)) {
				ispot_gate_hold(g, sp);
				pass->flags |= ISPOT_GATE_ADMITTED;
				break;
			}
			if (!READ_ONCE(g->holder)) {
				/* Admission is over: pass ungated. */
				if (pass->flags & ISPOT_GATE_WAITED)
					pass->flags |= ISPOT_GATE_LATE;
				break;
			}
			continue;	/* another thread took it first */
		}
		if (now - start >= wait_max) {
			ispot_gate_time_out(g);
			pass->flags |= ISPOT_GATE_TIMEOUT;
			break;
		}
		pass->flags |= ISPOT_GATE_WAITED;
		if (wait_event_killable_timeout(g->wq, ispot_gate_passable(s),
				ispot_gate_jiffies(start + wait_max - now)) < 0) {
			/* SIGKILL: the thread dies on its way back to user. */
			pass->flags |= ISPOT_GATE_OPEN;
			break;
		}
		now = ktime_get_mono_fast_ns();
	}
	if (pass->flags & ISPOT_GATE_WAITED)
		pass->waited_ns = ktime_get_mono_fast_ns() - start;
	return pass->flags != ISPOT_GATE_OPEN;
}

/* An END record for a block whose admission was on, and clear it. */
static void ispot_gate_end(struct ispot_session *s, u32 flags)
{
	struct ispot_gate *g = &s->gate;

	if (!g->deadline)
		return;
	if (READ_ONCE(g->open))
		flags |= ISPOT_SOLO_CONTAMINATED;
	WRITE_ONCE(g->deadline, 0);
	ispot_gate_put(s, ISPOT_REC_SOLO_END, g->block, flags,
		       atomic_read(&g->timeouts));
}

/*
 * ISPOT_IOC_SOLO, under the session lock in the ENABLED state: start a
 * block (@duration_ns > 0) or end the current one.  A block whose time ran
 * out is ended here, by the next call, so that every BEGIN has an END.
 */
int ispot_gate_solo(struct ispot_session *s, u64 duration_ns, u64 wait_max_ns,
		    u32 *block)
{
	struct ispot_gate *g = &s->gate;
	u64 now = ktime_get_mono_fast_ns();

	lockdep_assert_held(&s->lock);
	if (!duration_ns) {
		ispot_gate_end(s, 0);
		*block = g->block;
		return 0;
	}
	if (g->deadline > now)
		return -EBUSY;
	ispot_gate_end(s, 0);
	g->block++;
	atomic_set(&g->timeouts, 0);
	WRITE_ONCE(g->open, false);
	WRITE_ONCE(g->wait_max_ns, wait_max_ns);
	/* Last: a handler that sees the deadline sees the rest too. */
	smp_store_release(&g->deadline, now + duration_ns);
	ispot_gate_put(s, ISPOT_REC_SOLO_BEGIN, g->block, now + duration_ns,
		       wait_max_ns);
	*block = g->block;
	return 0;
}

/*
 * The session stops tracing (DISABLE, close): end the block and let every
 * waiter go, before the probes are unregistered, so that unregistering
 * never waits for a wait.  Under the session lock, or at release, when no
 * ioctl can run.
 */
void ispot_gate_stop(struct ispot_session *s)
{
	struct ispot_gate *g = &s->gate;

	if (!g->deadline && !READ_ONCE(g->holder))
		return;
	WRITE_ONCE(g->open, true);
	ispot_gate_end(s, ISPOT_SOLO_STOPPED);
	WRITE_ONCE(g->holder, NULL);
	wake_up_all(&g->wq);
}
