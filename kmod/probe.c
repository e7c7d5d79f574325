// SPDX-License-Identifier: GPL-2.0
/*
 * Probes: one uprobe consumer per probed function, its handlers, and its
 * life in a session (create, insert, arm, disarm, free).  Which file and
 * offset may be probed is probe_file.c's.
 *
 * The handlers are the hot path.  They take no lock, allocate nothing and
 * never sleep, except at the gate of a solo block (gate_wait.c): they
 * check that the hit belongs to the traced thread group, bump per-CPU
 * counters, and, unless the probe only counts, write one record into the
 * current CPU's ring with preemption disabled.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "ispot_internal.h"

#define ISPOT_SAMPLE_PROBES	16	/* linear-probing bound per lookup */

static struct ispot_sample_slot *ispot_sample_slot(struct ispot_probe *p,
						   u32 tid, bool claim)
{
	u32 h = hash_32(tid, ilog2(ISPOT_SAMPLE_SLOTS));
	unsigned int i;

	for (i = 0; i < ISPOT_SAMPLE_PROBES; i++) {
		struct ispot_sample_slot *slot =
			&p->samples[(h + i) & (ISPOT_SAMPLE_SLOTS - 1)];
		u32 owner = READ_ONCE(slot->tid);

		if (owner == tid)
			return slot;
		if (owner)
			continue;
		/* Slots are never freed, so an empty one ends the search. */
		if (!claim)
			return NULL;
		if (cmpxchg(&slot->tid, 0, tid) == 0)
			return slot;
	}
	return NULL;
}

/*
 * Decide whether this entry is one of the 1-in-N sampled calls of the
 * current thread.  A thread that finds no slot is recorded in full, and its
 * returns are too, so pairs stay whole.
 */
static bool ispot_sample_entry(struct ispot_probe *p, u64 sp)
{
	struct ispot_sample_slot *slot;
	bool nested = false;

	slot = ispot_sample_slot(p, current->pid, true);
	if (!slot)
		return true;
	if (slot->inflight_sp) {
		/*
		 * The stack grows down: an entry at or below the sampled
		 * call's sp is nested inside it; one above it means the
		 * sampled call was left without a return (longjmp).
		 */
		if (sp <= slot->inflight_sp)
			nested = true;
		else
			slot->inflight_sp = 0;
	}
	if (slot->countdown) {
		slot->countdown--;
		return false;
	}
	if (nested)
		return false;	/* sample the next call instead */
	slot->countdown = p->sample_period - 1;
	slot->inflight_sp = sp;
	return true;
}

static bool ispot_sample_return(struct ispot_probe *p, u64 sp)
{
	struct ispot_sample_slot *slot;

	slot = ispot_sample_slot(p, current->pid, false);
	if (!slot)
		return true;
	if (slot->inflight_sp && slot->inflight_sp + sizeof(u64) == sp) {
		slot->inflight_sp = 0;
		return true;
	}
	return false;
}

/*
 * Frame-pointer walk of the user stack, bounded in depth, with nofault
 * copies: a target built without frame pointers yields a short stack, never
 * a fault.  At a function's first instruction, [sp] is the call site and bp
 * is still the caller's frame.
 */
/* The return address at entry, 0 if the stack cannot be read. */
static u64 ispot_callsite(struct pt_regs *regs)
{
	u64 callsite;

	if (copy_from_user_nofault(&callsite,
				   (void __user *)user_stack_pointer(regs),
				   sizeof(callsite)))
		return 0;
	return callsite;
}

/*
 * The frame-pointer walk from @fp, whose frames lie above @sp, into
 * @frames[@n..ISPOT_STACK_MAX_FRAMES): the frames' count then.  Also for
 * off-CPU stacks (offcpu.c), which run under the run-queue lock: nothing
 * here sleeps, and a page not present fails its copy (page faults are
 * disabled) instead of being faulted in.
 */
u32 ispot_user_fp_walk(u64 fp, u64 sp, u64 *frames, u32 n)
{
	while (n < ISPOT_STACK_MAX_FRAMES) {
		u64 frame[2];	/* saved bp, return address */

		if (!fp || (fp & 7) || fp < sp)
			break;
		if (copy_from_user_nofault(frame, (void __user *)fp,
					   sizeof(frame)))
			break;
		if (!frame[1])
			break;
		frames[n++] = frame[1];
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return n;
}

static u32 ispot_user_stack(struct pt_regs *regs, u64 callsite, u64 *frames)
{
	frames[0] = callsite;
	return ispot_user_fp_walk(frame_pointer(regs),
				  user_stack_pointer(regs), frames, 1);
}

static void ispot_record_stack(struct ispot_ring *ring, struct ispot_probe *p,
			       struct pt_regs *regs, u64 callsite, u64 ts)
{
	u32 max_slots = 1 + DIV_ROUND_UP(ISPOT_STACK_MAX_FRAMES, 8);
	u64 frames[ISPOT_STACK_MAX_FRAMES];
	struct ispot_record *rec;
	u32 n, nslots, i;

	n = ispot_user_stack(regs, callsite, frames);
	nslots = 1 + DIV_ROUND_UP(n, 8);
	rec = ispot_ring_reserve(ring, max_slots, p->session, current,
				 ts);
	if (!rec)
		return;
	ispot_record_header(rec, p->session, current, p->id, ISPOT_REC_STACK,
			    nslots, ts);
	rec->sp = user_stack_pointer(regs);
	rec->ip = callsite;
	rec->data[0] = n;
	rec->data[1] = 0;
	rec->data[2] = 0;
	for (i = 0; i < n; i++) {
		u64 *slot = (u64 *)ispot_ring_slot(ring, ring->head + 1 + i / 8);

		slot[i % 8] = frames[i];
	}
	ispot_ring_commit(ring, nslots);
}

/* Every stack_period-th entry per CPU, and always the probe's first. */
static bool ispot_want_stack(struct ispot_probe *p)
{
	struct ispot_probe_pcpu *pc = this_cpu_ptr(p->pcpu);

	if (!READ_ONCE(p->first_stack_taken)) {
		WRITE_ONCE(p->first_stack_taken, true);
		pc->stack_count = 0;
		return true;
	}
	if (++pc->stack_count < p->session->stack_period)
		return false;
	pc->stack_count = 0;
	return true;
}

/*
 * A hit that is not recorded.  A forked child inherits the breakpoints: they
 * are removed from its mm, but never from one the target shares (vfork,
 * CLONE_VM), since before 6.12 the kernel removes them from that mm without
 * asking the filter again.  Once tracing has stopped they go everywhere.
 */
static int ispot_probe_skip(struct ispot_probe *p,
			    enum ispot_target_verdict verdict)
{
	this_cpu_inc(p->pcpu->filtered);
	if (verdict == ISPOT_TARGET_OTHER &&
	    current->mm == READ_ONCE(p->session->mm))
		return 0;
	return UPROBE_HANDLER_REMOVE;
}

/*
 * The first three integer arguments, in the System V ABI's registers,
 * which regs_get_kernel_argument() reads for the kernel's calls too.
 */
static void ispot_probe_args(struct pt_regs *regs, u64 *data)
{
	data[0] = regs_get_kernel_argument(regs, 0);
	data[1] = regs_get_kernel_argument(regs, 1);
	data[2] = regs_get_kernel_argument(regs, 2);
}

static __always_inline int ispot_probe_entry(struct uprobe_consumer *uc,
					     struct pt_regs *regs)
{
	struct ispot_probe *p = container_of(uc, struct ispot_probe, consumer);
	struct ispot_session *s = p->session;
	u64 sp = user_stack_pointer(regs);
	u32 nslots = s->counters ? 2 : 1;
	enum ispot_target_verdict verdict;
	struct ispot_gate_pass pass;
	struct ispot_record *rec;
	struct ispot_ring *ring;
	u64 callsite = 0;

	verdict = ispot_target_check(s, current, true);
	if (verdict != ISPOT_TARGET_RECORD)
		return ispot_probe_skip(p, verdict);
	this_cpu_inc(p->pcpu->entry_hits);
	if (p->flags & ISPOT_PROBE_COUNT_ONLY)
		return 0;
	/* May wait, so before anything is timestamped or preempt is off. */
	if ((p->flags & ISPOT_PROBE_RETURN) && ispot_gate_enter(s, sp, &pass))
		ispot_gate_record(s, p->id, sp, &pass);
	/* Before ENTRY's test: a return-only probe samples its calls too. */
	if (p->samples && !ispot_sample_entry(p, sp))
		return 0;
	if (!(p->flags & ISPOT_PROBE_ENTRY))
		return 0;

	if (!(p->flags & ISPOT_PROBE_NO_CALLSITE))
		callsite = ispot_callsite(regs);

	preempt_disable();
	ring = s->rings[smp_processor_id()];
	/* A stack starts at the call site, even when records skip it. */
	if (ispot_want_stack(p))
		ispot_record_stack(ring, p, regs,
				   callsite ?: ispot_callsite(regs),
				   ktime_get_mono_fast_ns());
	/* The clock is read last, after this: 0, read on a drop. */
	rec = ispot_ring_reserve(ring, nslots, s, current, 0);
	if (rec) {
		rec->sp = sp;
		rec->ip = callsite;
		ispot_probe_args(regs, rec->data);
		/*
		 * Counters and clock last, so the handler's own cost is not
		 * in the call.
		 */
		if (s->counters)
			ispot_counters_read(s, ispot_record_counters(ring));
		ispot_record_header(rec, s, current, p->id, ISPOT_REC_ENTRY,
				    nslots, ktime_get_mono_fast_ns());
		ispot_ring_commit(ring, nslots);
	}
	preempt_enable();
	return 0;
}

ISPOT_DEFINE_UPROBE_HANDLER(ispot_probe_entry_compat, ispot_probe_entry)

/*
 * @func is where the entry was hit (uprobes' return_instance.func, the
 * breakpoint's address): the virtual address the probe's file offset is
 * mapped at in this mm, the function's address since the offset is its
 * first instruction.
 */
static __always_inline void ispot_probe_exit(struct ispot_probe *p,
					     unsigned long func,
					     struct pt_regs *regs, u64 sp)
{
	struct ispot_session *s = p->session;
	u32 nslots = s->counters ? 2 : 1;
	struct ispot_record *rec;
	struct ispot_ring *ring;
	u64 ts;

	if (ispot_target_check(s, current, true) != ISPOT_TARGET_RECORD)
		return;
	this_cpu_inc(p->pcpu->return_hits);
	if (p->flags & ISPOT_PROBE_COUNT_ONLY)
		return;
	if (p->samples && !ispot_sample_return(p, sp))
		return;
	/*
	 * As early as possible, since the handler is not part of the call,
	 * but after the sampling decision: unsampled returns read no clock.
	 */
	preempt_disable();
	ts = ktime_get_mono_fast_ns();
	ring = s->rings[smp_processor_id()];
	rec = ispot_ring_reserve(ring, nslots, s, current, ts);
	if (rec) {
		ispot_record_header(rec, s, current, p->id, ISPOT_REC_EXIT,
				    nslots, ts);
		rec->sp = sp;
		rec->ip = instruction_pointer(regs);
		rec->data[0] = regs_return_value(regs);
		rec->data[1] = func;
		rec->data[2] = 0;
		/* After the clock: what the counters see ends with the call. */
		if (s->counters)
			ispot_counters_read(s, ispot_record_counters(ring));
		ispot_ring_commit(ring, nslots);
	}
	preempt_enable();
}

static __always_inline int ispot_probe_return(struct uprobe_consumer *uc,
					      unsigned long func,
					      struct pt_regs *regs)
{
	struct ispot_probe *p = container_of(uc, struct ispot_probe, consumer);
	u64 sp = user_stack_pointer(regs);

	ispot_probe_exit(p, func, regs, sp);
	/*
	 * After the EXIT record, whatever became of it: the call the gate
	 * lets in next starts after this one ended, and letting it in is
	 * not timed as part of this one.
	 */
	ispot_gate_leave(p->session, sp);
	return 0;
}

ISPOT_DEFINE_URETPROBE_HANDLER(ispot_probe_return_compat,
			       ispot_probe_return)

static __always_inline bool ispot_probe_filter(struct uprobe_consumer *uc,
					       struct mm_struct *mm)
{
	struct ispot_probe *p = container_of(uc, struct ispot_probe, consumer);

	return ispot_target_owns_mm(p->session, mm);
}

ISPOT_DEFINE_UPROBE_FILTER(ispot_probe_filter_compat, ispot_probe_filter)

static struct ispot_probe *ispot_probe_find(struct ispot_session *s, u32 id)
{
	struct ispot_probe *p;

	list_for_each_entry(p, &s->probes, node)
		if (p->id == id)
			return p;
	return NULL;
}

void ispot_probe_destroy(struct ispot_probe *p)
{
	path_put(&p->path);
	free_percpu(p->pcpu);
	kvfree(p->samples);
	kfree(p);
}

/*
 * A probe for @args, not yet in any session.  Everything that reads user
 * memory or opens files happens here, outside the session lock.
 *
 * The probe keeps the file's path, as trace_uprobe does: uprobe_register()
 * needs the inode, and its mount, to stay alive; a lazily unmounted file
 * system stays mounted until the path is put.  The uprobe goes on the inode
 * that processes actually map: under overlayfs, the one in the layer below
 * (d_real_inode()), not the overlay's, whose breakpoints would never be hit.
 */
struct ispot_probe *ispot_probe_create(struct ispot_probe_add *args)
{
	struct ispot_probe *p;
	struct file *file;
	int err;

	if (!(args->flags & ISPOT_PROBE_BOTH) ||
	    (args->flags & ~(ISPOT_PROBE_BOTH | ISPOT_PROBE_COUNT_ONLY |
			     ISPOT_PROBE_NO_CALLSITE)))
		return ERR_PTR(-EINVAL);

	file = ispot_probe_file_open(args);
	if (IS_ERR(file))
		return ERR_CAST(file);

	err = -ENOMEM;
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		goto err_put_file;
	p->pcpu = alloc_percpu_gfp(struct ispot_probe_pcpu, GFP_KERNEL_ACCOUNT);
	if (!p->pcpu)
		goto err_free_probe;
	if (args->sample_period > 1 &&
	    !(args->flags & ISPOT_PROBE_COUNT_ONLY)) {
		p->samples = kvcalloc(ISPOT_SAMPLE_SLOTS, sizeof(*p->samples),
				      GFP_KERNEL_ACCOUNT);
		if (!p->samples)
			goto err_free_pcpu;
	}
	p->path = file->f_path;
	path_get(&p->path);
	p->inode = d_real_inode(p->path.dentry);
	p->offset = args->offset;
	p->ref_ctr_offset = args->ref_ctr_offset;
	p->flags = args->flags;
	p->sample_period = p->samples ? args->sample_period : 0;
	/* The ISPOT_DEFINE_*() wrappers above, with this kernel's types. */
	p->consumer.handler = ispot_probe_entry_compat;
	if (p->flags & ISPOT_PROBE_RETURN)
		p->consumer.ret_handler = ispot_probe_return_compat;
	p->consumer.filter = ispot_probe_filter_compat;
	fput(file);
	return p;

err_free_pcpu:
	free_percpu(p->pcpu);
err_free_probe:
	kfree(p);
err_put_file:
	fput(file);
	return ERR_PTR(err);
}

/* Under the session lock: give @p an id and add it to @s. */
int ispot_probe_insert(struct ispot_session *s, struct ispot_probe *p)
{
	struct ispot_probe *other;

	/* Ids are never reused: one wrapped would name two probes, or none. */
	if (s->nr_probes >= READ_ONCE(ispot_max_probes) ||
	    s->next_probe_id == U32_MAX)
		return -ENOSPC;
	list_for_each_entry(other, &s->probes, node)
		if (other->inode == p->inode && other->offset == p->offset)
			return -EEXIST;
	p->session = s;
	p->id = ++s->next_probe_id;
	list_add_tail(&p->node, &s->probes);
	s->nr_probes++;
	return 0;
}

int ispot_probe_remove(struct ispot_session *s, u32 id)
{
	struct ispot_probe *p = ispot_probe_find(s, id);

	if (!p)
		return -ENOENT;
	list_del(&p->node);
	s->nr_probes--;
	ispot_probe_destroy(p);
	return 0;
}

int ispot_probe_arm(struct ispot_probe *p)
{
	int err;

	err = ispot_uprobe_register(p->inode, p->offset, p->ref_ctr_offset,
				    &p->consumer, &p->uprobe);
	if (!err)
		p->registered = true;
	return err;
}

/* Unregister every probe; handlers have finished when this returns. */
void ispot_probe_disarm_all(struct ispot_session *s)
{
	struct ispot_probe *p;
	bool any = false;

	list_for_each_entry(p, &s->probes, node) {
		if (!p->registered)
			continue;
		ispot_uprobe_unregister_nosync(p->inode, p->offset,
					       &p->consumer, p->uprobe);
		p->registered = false;
		any = true;
	}
	if (any)
		ispot_uprobe_unregister_sync();
}

void ispot_probe_free_all(struct ispot_session *s)
{
	struct ispot_probe *p, *tmp;

	list_for_each_entry_safe(p, tmp, &s->probes, node) {
		list_del(&p->node);
		ispot_probe_destroy(p);
	}
	s->nr_probes = 0;
}

void ispot_probe_stats(struct ispot_probe *p, struct ispot_probe_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	st->probe_id = p->id;
	for_each_possible_cpu(cpu) {
		struct ispot_probe_pcpu *pc = per_cpu_ptr(p->pcpu, cpu);

		st->entry_hits += READ_ONCE(pc->entry_hits);
		st->return_hits += READ_ONCE(pc->return_hits);
		st->filtered += READ_ONCE(pc->filtered);
	}
}
