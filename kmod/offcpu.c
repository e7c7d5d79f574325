// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU stacks (ABI 1.8, ISPOT_SETUP_OFFCPU): the user stack of a target
 * thread as it leaves its CPU, sampled in time, from the sched_switch probe
 * (waits.c), so that a reader can tell where the threads wait, and not
 * only where they run.
 *
 * Why at switch-out: the thread is current there, so its user memory is
 * the loaded mm's and a nofault copy reads it (BPF's off-CPU tools read it
 * from the same tracepoint); at switch-in the thread is not yet current.
 * The thread does not run while it is off its CPU, so the stack taken as
 * it leaves is that of the whole off-CPU period, which its next SWITCH_IN
 * ends.
 *
 * Sampling in time.  A stack costs a frame walk and a copy of the stack's
 * first words: too much for every switch of a thread that switches a
 * million times a second.  Each thread takes one of about every @weight of
 * its switch-outs, @weight being the session's period over the thread's
 * mean off-CPU period (at least 1): about one stack per period of off-CPU
 * time, whether that time comes from one long sleep or from many short
 * waits.  The number of switches to the next stack is drawn from 1 to
 * 2 * weight - 1 (mean weight), so that no rhythm of the thread locks onto
 * the sampling; each stack carries the weight it was drawn with, and the
 * reader counts its off-CPU period that many times.
 *
 * A thread's state is a slot of a table that SETUP allocates: open
 * addressing by global tid.  A thread claims a free slot at its first
 * switch-out with cmpxchg() (no lock, no allocation: this runs with
 * interrupts off under the run-queue lock) and frees it at its exit (the
 * sched_process_exit probe: the flag needs TASKS); ENABLE clears the table,
 * for the threads that exited while the session was not enabled.  A thread
 * that finds no slot within ISPOT_OFFCPU_PROBES is not sampled until one
 * frees: the reader sees its SWITCH records with no OFF_STACK.  The
 * other fields of a slot are its thread's own: only that thread's switches
 * write them, and the scheduler orders them (a thread switches in only
 * after its switch-out has completed, on whatever CPU).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "ispot_internal.h"

#define ISPOT_OFFCPU_BITS		10
#define ISPOT_OFFCPU_SLOTS		(1U << ISPOT_OFFCPU_BITS)
#define ISPOT_OFFCPU_PROBES		16
#define ISPOT_OFFCPU_DEFAULT_PERIOD_NS	(10 * NSEC_PER_MSEC)
/* A thread's weight, at most: 1 stack in 64 Ki switches. */
#define ISPOT_OFFCPU_MAX_WEIGHT		65536
#define ISPOT_OFFCPU_WORD_SLOTS \
	(ISPOT_OFFCPU_MAX_WORDS * sizeof(u64) / ISPOT_SLOT_SIZE)
#define ISPOT_OFFCPU_MAX_SLOTS \
	(1 + DIV_ROUND_UP(ISPOT_STACK_MAX_FRAMES, 8) + ISPOT_OFFCPU_WORD_SLOTS)

struct ispot_offcpu_slot {
	u32 tid;		/* global tid; 0: free (cmpxchg() claims) */
	u32 countdown;		/* switch-outs to the next stack, from 1 */
	u32 drawn;		/* the weight the countdown was drawn with */
	u64 out_ns;		/* when it left its CPU; 0: on one */
	u64 mean_off_ns;	/* its off-CPU periods, moving mean */
};

struct ispot_offcpu {
	struct ispot_offcpu_slot *slots;
	u64 period_ns;
};

int ispot_offcpu_create(struct ispot_session *s, const struct ispot_setup *a)
{
	struct ispot_offcpu *o;

	if (!(a->flags & ISPOT_SETUP_OFFCPU))
		return 0;
	o = kzalloc(sizeof(*o), GFP_KERNEL_ACCOUNT);
	if (!o)
		return -ENOMEM;
	o->slots = kvcalloc(ISPOT_OFFCPU_SLOTS, sizeof(*o->slots),
			    GFP_KERNEL_ACCOUNT);
	if (!o->slots) {
		kfree(o);
		return -ENOMEM;
	}
	o->period_ns = a->offcpu_period_us ?
		       (u64)a->offcpu_period_us * NSEC_PER_USEC :
		       ISPOT_OFFCPU_DEFAULT_PERIOD_NS;
	s->offcpu = o;
	return 0;
}

/*
 * At ENABLE, before the probes see the session: no thread holds a slot
 * yet (those that exited while it was disabled never freed theirs).
 */
void ispot_offcpu_reset(struct ispot_session *s)
{
	if (s->offcpu)
		memset(s->offcpu->slots, 0,
		       ISPOT_OFFCPU_SLOTS * sizeof(*s->offcpu->slots));
}

/* After the probes stopped seeing the session (ispot_waits_stop()). */
void ispot_offcpu_free(struct ispot_session *s)
{
	if (!s->offcpu)
		return;
	kvfree(s->offcpu->slots);
	kfree(s->offcpu);
	s->offcpu = NULL;
}

static struct ispot_offcpu_slot *ispot_offcpu_at(struct ispot_offcpu *o,
						 u32 tid, u32 i)
{
	return &o->slots[(hash_32(tid, ISPOT_OFFCPU_BITS) + i) &
			 (ISPOT_OFFCPU_SLOTS - 1)];
}

/* @tid's slot, NULL if it has none. */
static struct ispot_offcpu_slot *ispot_offcpu_find(struct ispot_offcpu *o,
						   u32 tid)
{
	struct ispot_offcpu_slot *slot;
	u32 i;

	for (i = 0; i < ISPOT_OFFCPU_PROBES; i++) {
		slot = ispot_offcpu_at(o, tid, i);
		if (READ_ONCE(slot->tid) == tid)
			return slot;
	}
	return NULL;
}

/*
 * @tid's slot, claimed if it has none: looked for in every probe first,
 * since a slot freed before it leaves a hole that must not give it two.
 * Its first switch-out is sampled, at weight 1.
 */
static struct ispot_offcpu_slot *ispot_offcpu_claim(struct ispot_offcpu *o,
						    u32 tid)
{
	struct ispot_offcpu_slot *slot = ispot_offcpu_find(o, tid);
	u32 i;

	if (slot)
		return slot;
	for (i = 0; i < ISPOT_OFFCPU_PROBES; i++) {
		slot = ispot_offcpu_at(o, tid, i);
		if (READ_ONCE(slot->tid) || cmpxchg(&slot->tid, 0, tid))
			continue;
		WRITE_ONCE(slot->countdown, 1);
		WRITE_ONCE(slot->drawn, 1);
		WRITE_ONCE(slot->out_ns, 0);
		WRITE_ONCE(slot->mean_off_ns, o->period_ns);
		return slot;
	}
	return NULL;
}

/*
 * The OFF_STACK record (uapi: ISPOT_REC_OFF_STACK): the user registers,
 * the frame-pointer walk from bp, then the stack's first words from sp,
 * copied slot by slot into the ring, as far as they can be read.
 */
static void ispot_offcpu_record(struct ispot_session *s, struct task_struct *t,
				struct pt_regs *regs, u64 ts, u32 weight)
{
	struct ispot_ring *ring = s->rings[smp_processor_id()];
	u64 frames[ISPOT_STACK_MAX_FRAMES];
	u64 sp = user_stack_pointer(regs);
	u32 nframes, frame_slots, words = 0, i;
	struct ispot_record *rec;
	u64 *slot;

	nframes = ispot_user_fp_walk(frame_pointer(regs), sp, frames, 0);
	frame_slots = DIV_ROUND_UP(nframes, 8);
	rec = ispot_ring_reserve(ring, ISPOT_OFFCPU_MAX_SLOTS, s, t, ts);
	if (!rec)
		return;
	for (i = 0; i < nframes; i++) {
		slot = (u64 *)ispot_ring_slot(ring, ring->head + 1 + i / 8);
		slot[i % 8] = frames[i];
	}
	for (i = 0; i < ISPOT_OFFCPU_WORD_SLOTS; i++) {
		slot = (u64 *)ispot_ring_slot(ring,
					      ring->head + 1 + frame_slots + i);
		if (copy_from_user_nofault(slot,
					   (void __user *)(sp + i *
							   ISPOT_SLOT_SIZE),
					   ISPOT_SLOT_SIZE))
			break;
		words += ISPOT_SLOT_SIZE / sizeof(u64);
	}
	ispot_record_header(rec, s, t, 0, ISPOT_REC_OFF_STACK,
			    1 + frame_slots + i, ts);
	rec->sp = sp;
	rec->ip = instruction_pointer(regs);
	rec->data[0] = nframes | (u64)words << 16;
	rec->data[1] = weight;
	rec->data[2] = 0;
	ispot_ring_commit(ring, 1 + frame_slots + i);
}

/*
 * @prev, current, leaves its CPU at *@ts (read here if 0).  Interrupts are
 * off and the run-queue lock is held: see the top of the file.
 */
void ispot_offcpu_switch_out(struct ispot_session *s, struct task_struct *prev,
			     u64 *ts)
{
	struct ispot_offcpu *o = s->offcpu;
	struct ispot_offcpu_slot *slot;
	struct pt_regs *regs;
	u32 countdown, weight, drawn;
	u64 mean;

	/* An exiting thread's slot is being freed; a worker has no user. */
	if (prev->flags & (PF_EXITING | PF_KTHREAD | PF_IO_WORKER |
			   PF_USER_WORKER))
		return;
	/*
	 * Only a 64-bit user context (the walk reads 64-bit frames; a
	 * worker cloned from a thread has ip and sp 0), and only while the
	 * target stays dumpable: raw stack words are the target's data, which
	 * a process that made itself undumpable (prctl) keeps from tracers.
	 */
	regs = task_pt_regs(prev);
	if (!user_64bit_mode(regs) || !regs->sp || !prev->mm)
		return;
	slot = ispot_offcpu_claim(o, prev->pid);
	if (!slot)
		return;
	if (!*ts)
		*ts = ktime_get_mono_fast_ns();
	WRITE_ONCE(slot->out_ns, *ts);
	countdown = READ_ONCE(slot->countdown);
	if (countdown > 1) {
		WRITE_ONCE(slot->countdown, countdown - 1);
		return;
	}
	/* Checked only for a stack taken: every switch pays for the rest. */
	if (!ispot_dumpable(prev, prev->mm))
		return;
	drawn = READ_ONCE(slot->drawn);
	mean = READ_ONCE(slot->mean_off_ns) ?: 1;
	weight = clamp_t(u64, div64_u64(o->period_ns, mean), 1,
			 ISPOT_OFFCPU_MAX_WEIGHT);
	WRITE_ONCE(slot->drawn, weight);
	/* A hash of the clock draws the next countdown: 1 .. 2w - 1. */
	WRITE_ONCE(slot->countdown,
		   1 + (u32)(hash_64(*ts, 32) % (2 * weight - 1)));
	ispot_offcpu_record(s, prev, regs, *ts, drawn);
}

/* @next gets a CPU at *@ts (read here if 0): its off-CPU period ends. */
void ispot_offcpu_switch_in(struct ispot_session *s, struct task_struct *next,
			    u64 *ts)
{
	struct ispot_offcpu_slot *slot = ispot_offcpu_find(s->offcpu,
							   next->pid);
	u64 out, mean;

	if (!slot)
		return;
	out = READ_ONCE(slot->out_ns);
	if (!out)
		return;
	if (!*ts)
		*ts = ktime_get_mono_fast_ns();
	mean = READ_ONCE(slot->mean_off_ns);
	/* A moving mean over about the last 8 periods. */
	if (*ts > out)
		WRITE_ONCE(slot->mean_off_ns,
			   mean - (mean >> 3) + ((*ts - out) >> 3));
	WRITE_ONCE(slot->out_ns, 0);
}

/* @t, current, exits (the sched_process_exit probe): its slot is free. */
void ispot_offcpu_exit(struct ispot_session *s, struct task_struct *t)
{
	struct ispot_offcpu_slot *slot = ispot_offcpu_find(s->offcpu, t->pid);

	if (slot)
		smp_store_release(&slot->tid, 0);
}
