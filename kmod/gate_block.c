// SPDX-License-Identifier: GPL-2.0
/*
 * Solo blocks from the reader's side (ABI 1.6, 1.7): ISPOT_IOC_SOLO starts
 * and ends them, DISABLE and release stop them, and the gate's records
 * (SOLO_BEGIN, SOLO_END, GATE) go into the rings.  What the gate does in
 * the handlers, who writes which field and the lock order: gate.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "ispot_internal.h"

/*
 * A record of the gate into this CPU's ring: a GATE of thread @t, or, with
 * @t NULL, a SOLO_BEGIN or SOLO_END from the ioctl, with tid 0 (the
 * reader, not a thread of the target, did it) and the target's tgid.  The
 * ring's producer is whoever runs on the CPU with preemption disabled, as
 * in the handlers; no interrupt writes to it.
 */
static void ispot_gate_write(struct ispot_session *s, struct task_struct *t,
			     u32 probe_id, u8 kind, u64 sp, u64 ip,
			     u64 d0, u64 d1, u64 d2)
{
	struct ispot_record *rec;
	struct ispot_ring *ring;

	preempt_disable();
	ring = s->rings[smp_processor_id()];
	rec = ispot_ring_reserve(ring, 1, s, t, 0);
	if (rec) {
		if (t) {
			ispot_record_header(rec, s, t, probe_id, kind, 1,
					    ktime_get_mono_fast_ns());
		} else {
			rec->tid = 0;
			rec->tgid = pid_nr_ns(s->tgid_pid, s->pid_ns);
			rec->probe_id = 0;
			rec->cpu = smp_processor_id();
			rec->kind = kind;
			rec->nslots = 1;
			rec->ts_ns = ktime_get_mono_fast_ns();
		}
		rec->sp = sp;
		rec->ip = ip;
		rec->data[0] = d0;
		rec->data[1] = d1;
		rec->data[2] = d2;
		ispot_ring_commit(ring, 1);
	}
	preempt_enable();
}

static void ispot_gate_put(struct ispot_session *s, u8 kind, u64 d0, u64 d1,
			   u64 d2)
{
	ispot_gate_write(s, NULL, 0, kind, 0, 0, d0, d1, d2);
}

/* The GATE record of a call that met the gate (ABI: ISPOT_REC_GATE). */
void ispot_gate_record(struct ispot_session *s, u32 probe_id, u64 sp,
		       const struct ispot_gate_pass *pass)
{
	ispot_gate_write(s, current, probe_id, ISPOT_REC_GATE, sp,
			 pass->displaced_tid, pass->block, pass->waited_ns,
			 pass->flags);
}

/* The END record of the block whose BEGIN has none yet, if any. */
static void ispot_gate_end(struct ispot_session *s, u32 flags)
{
	struct ispot_gate *g = &s->gate;
	unsigned long irqflags;
	u32 block, timeouts;

	WRITE_ONCE(g->deadline, 0);
	/*
	 * The count and the block's end together, under the lock a timeout
	 * takes: a wait that times out now is counted here or sees the
	 * block ended (ispot_gate_time_out()).
	 */
	spin_lock_irqsave(&g->wq.lock, irqflags);
	block = g->open_block;
	timeouts = g->timeouts;
	WRITE_ONCE(g->open_block, 0);
	spin_unlock_irqrestore(&g->wq.lock, irqflags);
	if (!block)
		return;
	if (timeouts)
		flags |= ISPOT_SOLO_CONTAMINATED;
	ispot_gate_put(s, ISPOT_REC_SOLO_END, block, flags, timeouts);
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
	u64 deadline = READ_ONCE(g->deadline);
	unsigned long freed, irqflags;

	lockdep_assert_held(&s->lock);
	/* A holder's exit must release the gate (see the top of the file). */
	if (!(s->setup_flags & ISPOT_SETUP_TASKS))
		return -EOPNOTSUPP;
	if (deadline && now < deadline && duration_ns)
		return -EBUSY;
	ispot_gate_end(s, 0);
	/*
	 * END's deadline before the holder word: a holder that starts a
	 * call (cmpxchg(), then the deadline) sees it, or this sees the
	 * call.
	 */
	smp_mb();
	/* A gate opened by a timeout closes with its block. */
	cmpxchg(&g->holder, ISPOT_GATE_OPENED, 0);
	if (!duration_ns) {
		/* A holder between calls lets go with its block. */
		ispot_gate_free_idle(g, READ_ONCE(g->holder));
		/*
		 * The waiters see the block's early end at once, not at
		 * their next look: their waits are bounded from it
		 * (gate_wait.c, ispot_gate_wait(); one about to sleep sees
		 * the deadline END cleared, ispot_gate_sleep()).
		 */
		wake_up_all(&g->wq);
		*block = g->block;
		return 0;
	}
	/*
	 * BEGIN before any GATE of the block can be written: a handler may
	 * read the new number as soon as it is stored.
	 */
	ispot_gate_put(s, ISPOT_REC_SOLO_BEGIN, g->block + 1, now + duration_ns,
		       wait_max_ns);
	WRITE_ONCE(g->block, g->block + 1);
	spin_lock_irqsave(&g->wq.lock, irqflags);
	g->timeouts = 0;
	WRITE_ONCE(g->open_block, g->block);
	spin_unlock_irqrestore(&g->wq.lock, irqflags);
	WRITE_ONCE(g->wait_max_ns, wait_max_ns);
	/*
	 * A holder of the last block, between calls or still inside one,
	 * is not this block's: the gate is taken from it (its return then
	 * changes nothing), and the reader tells this block's calls that
	 * overlap its call from those that ran alone.
	 */
	freed = xchg(&g->holder, 0);
	/* A handler that sees the deadline sees the rest too. */
	smp_store_release(&g->deadline, now + duration_ns);
	/* Then the threads waiting on that holder look again, and may take. */
	if (freed)
		wake_up_all(&g->wq);
	*block = g->block;
	return 0;
}

/*
 * The session stops tracing (DISABLE, close): end the block and let every
 * waiter go, before the probes are unregistered, so that unregistering
 * never waits for a wait.  Under the session lock, or at release, when no
 * ioctl can run.  The gate stays open until ispot_gate_reset(), even if
 * no block was ever started: a handler that read a deadline before it
 * passes then.
 */
void ispot_gate_stop(struct ispot_session *s)
{
	struct ispot_gate *g = &s->gate;

	xchg(&g->holder, ISPOT_GATE_OPENED);
	ispot_gate_end(s, ISPOT_SOLO_STOPPED);
	wake_up_all(&g->wq);
}

/* After the probes are unregistered: no handler can hold the gate. */
void ispot_gate_reset(struct ispot_session *s)
{
	WRITE_ONCE(s->gate.holder, 0);
	WRITE_ONCE(s->gate.futex_task, NULL);
}
