/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal declarations shared by the files of ispot.ko.  Each .c file does
 * one job: main (load/unload, limits), dev (the character device and ioctl
 * dispatch), session (per-fd state), ring (per-CPU record rings),
 * probe (uprobe consumers and handlers), probe_file (which file and
 * offsets may be probed), gate (solo blocks: one thread at a time inside
 * the traced functions), target (which process is traced),
 * waits (tracepoint probes: context switches, futex calls, thread creation
 * and exit of traced processes), offcpu (user stacks sampled as target
 * threads leave their CPU), counters (perf events read around probed
 * calls), bench (in-kernel micro-benchmarks in
 * debugfs, for `make bench`).
 */
#ifndef ISPOT_INTERNAL_H
#define ISPOT_INTERNAL_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/uprobes.h>
#include <linux/wait.h>
#include <linux/ispot.h>
#include <ispot_version.h>

#include "compat.h"

#define ISPOT_MODULE_VERSION	ISPOT_VERSION
#define ISPOT_DEFAULT_STACK_PERIOD	10000
/* 1 GiB of data per CPU: keeps every size and slot count within 32 bits. */
#define ISPOT_RING_MAX_PAGES	(1U << (30 - PAGE_SHIFT))

/*
 * Module parameters (main.c).  They are writable in
 * /sys/module/ispot/parameters at any time: read each with READ_ONCE(),
 * once per decision.
 */
extern unsigned int ispot_max_sessions;
extern unsigned int ispot_max_probes;
extern unsigned int ispot_max_buffer_mib;
extern bool ispot_keep_tracepoints;

/*
 * One single-producer ring per CPU.  Producers are the probe handlers of the
 * CPU that owns the ring, with preemption disabled, so writing needs no
 * lock.  The reader releases space with ISPOT_IOC_RING_CONSUME, which runs
 * under the session mutex.
 */
struct ispot_ring {
	struct ispot_ring_ctrl *ctrl;	/* first page of the mapping */
	struct page **pages;		/* [nr_pages], ctrl page first */
	u32 nr_pages;
	u8 *data;			/* slot 0 */
	u64 head;			/* producer's copy, in slots */
	u64 tail;			/* written by RING_CONSUME (release) */
	u32 mask;			/* nr_slots - 1 */
	u32 watermark;			/* in slots */
	u64 produced;			/* records, written + dropped */
	u64 dropped;			/* records */
	u64 consumed;			/* records, counted by RING_CONSUME */
	/*
	 * ISPOT_SETUP_LOST: the records dropped since the ring last took
	 * one, told by a LOST record ahead of the next (ring.c).
	 */
	struct {
		u64 count;
		u64 first_ns, last_ns;
		u32 tid;		/* the first subject's, 0: none yet */
		bool several;		/* of other subjects too */
	} lost;
	bool report_lost;		/* ISPOT_SETUP_LOST */
	bool wakeup_armed;		/* an irq_work is queued or done and
					 * the reader has not consumed since */
	struct irq_work wakeup;
	wait_queue_head_t *wq;
};

struct ispot_probe_pcpu {
	u64 entry_hits;
	u64 return_hits;
	u64 filtered;
	u64 stack_count;	/* entries since the last call stack */
};

/*
 * Sampling keeps a per-thread countdown so that exactly one call in N is
 * recorded per thread, and remembers the stack pointer of the sampled call
 * so that only its return is recorded.  Slots are claimed by tid with
 * cmpxchg and then written only by their thread; each fills a cache line so
 * that tracing two threads does not add false sharing between them.
 */
struct ispot_sample_slot {
	u32 tid;
	u32 countdown;
	u64 inflight_sp;	/* sp of the sampled entry, 0 if none */
} ____cacheline_aligned;

#define ISPOT_SAMPLE_SLOTS	256

/*
 * ispot_gate.holder is one word: 0 (free), ISPOT_GATE_OPENED (everyone
 * passes: a timeout, a stop), or the holding task's address (compared
 * only), with ISPOT_GATE_IN_CALL set while it is inside its outermost gated
 * call.  A task struct's alignment leaves those low bits free
 * (ispot_gate_init() checks it at build time).  One word, so that taking
 * the gate away from a holder between calls and the holder starting a call
 * are one compare-and-exchange each, and exactly one of them wins.
 */
#define ISPOT_GATE_OPENED	1UL
#define ISPOT_GATE_IN_CALL	2UL

static inline unsigned long ispot_gate_word(struct task_struct *t)
{
	return (unsigned long)t;
}

/* The task of a holder word (NULL for a free or opened gate). */
static inline struct task_struct *ispot_gate_task(unsigned long w)
{
	return w == ISPOT_GATE_OPENED ? NULL :
	       (struct task_struct *)(w & ~ISPOT_GATE_IN_CALL);
}

/* Solo blocks (gate.c, which says who writes each field). */
struct ispot_gate {
	u64 deadline;		/* admission ends, mono ns; 0: none */
	unsigned long holder;	/* see ISPOT_GATE_IN_CALL */
	u32 block;		/* the current or last block's number */
	u32 open_block;		/* the block whose END is due, 0: none */
	u64 wait_max_ns;
	u64 holder_sp;		/* sp at the holder's outermost entry */
	u64 holder_exec_id;	/* its self_exec_id then */
	u32 holder_tid;		/* its tid, for a timeout's record */
	u32 hold_seq;		/* outermost calls of holders so far */
	/* A task waiting in a futex, if it holds (compared only). */
	struct task_struct *futex_task;
	u32 timeouts;		/* in the open block; under wq.lock */
	wait_queue_head_t wq;	/* threads waiting for the holder */
	struct irq_work wake_work;	/* wakes them from the exit probe */
};

/* How one call went through the gate: a GATE record's content. */
struct ispot_gate_pass {
	u32 block;
	u32 flags;		/* ISPOT_GATE_* */
	u64 waited_ns;
	u32 displaced_tid;	/* TIMEOUT: the holder it displaced */
};

struct ispot_session;
struct ispot_counters_pcpu;
struct signal_struct;

struct ispot_probe {
	struct list_head node;		/* in session->probes */
	struct ispot_session *session;
	struct uprobe_consumer consumer;
	struct uprobe *uprobe;		/* 6.12+: handle from register */
	struct path path;		/* pins the file's mount and dentry,
					 * which uprobe_register() requires */
	struct inode *inode;		/* d_real_inode(): the inode mapped
					 * into the target, under overlayfs too */
	loff_t offset;
	loff_t ref_ctr_offset;		/* USDT semaphore, 0: none */
	u32 id;
	u32 flags;			/* ISPOT_PROBE_* */
	u32 sample_period;		/* 0 or 1: record every hit */
	bool registered;
	bool first_stack_taken;
	struct ispot_probe_pcpu __percpu *pcpu;
	struct ispot_sample_slot *samples;	/* only when sampling */
};

/*
 * Per-fd session.
 *
 * @lock serialises the ioctls and release.  It is never taken under
 * mmap_lock: ->mmap reads @rings, @nr_rings and @ring_bytes without it,
 * which is safe because SETUP publishes them once, with release ordering,
 * and only release frees them.  No user memory is touched under @lock
 * (a fault would take mmap_lock), while uprobe_register() under it does take
 * mmap_lock: the order is @lock, then mmap_lock (Documentation/design.rst,
 * "Locking").
 *
 * The probe handlers never take @lock: they see only fields fixed while the
 * probes are registered or the session is in the waits table (signal,
 * pid_ns, setup_flags, rings, stack_period, counters), and the identity
 * fields below, which change with READ_ONCE/WRITE_ONCE only.
 */
struct ispot_session {
	struct mutex lock;
	enum ispot_session_state state;
	/*
	 * The target, as the reader named it and as it was checked: its
	 * thread group (@signal, pinned by @target: tells its threads from a
	 * process that reuses the tgid), its tgid's struct pid (poll() waits
	 * on it for the group's exit), the image generation that was checked
	 * (@exec_id: self_exec_id of its threads), that image's mm
	 * (mmgrab()ed, compared only: the uprobe filter's answer) and the
	 * credentials the check saw (a new image must have the same).
	 */
	struct task_struct *target;	/* group leader, referenced */
	struct signal_struct *signal;
	struct pid *tgid_pid;		/* referenced */
	struct mm_struct *mm;		/* mmgrab()ed; swapped on exec */
	const struct cred *cred;	/* the checked thread's, referenced */
	u64 exec_id;
	u32 stop_reason;		/* ISPOT_STOP_*, set once */
	struct irq_work stop_work;	/* wakes poll() when it is set */
	struct wait_queue_entry exit_wait;	/* on tgid_pid's wait_pidfd */
	struct pid_namespace *pid_ns;	/* the reader's: pids in records */
	u32 setup_flags;		/* ISPOT_SETUP_* */
	struct hlist_node waits_node;	/* in the waits table while listed */
	bool waits_listed;
	atomic_t waits_group_dead;	/* a TASK_EXIT said "last thread" */
	struct ispot_ring **rings;	/* [nr_rings], by CPU; NULL for a CPU
					 * that is not possible */
	u32 nr_rings;
	size_t ring_bytes;		/* ctrl page + data, per ring */
	long ring_pages_charged;	/* against max_buffer_mib */
	u32 stack_period;
	struct list_head probes;
	u32 nr_probes;
	u32 nr_counters;
	struct ispot_counters_pcpu __percpu *counters;	/* NULL: none */
	u32 next_probe_id;
	wait_queue_head_t wq;
	struct list_head node;		/* in the device's session list */
	struct ispot_gate gate;
	struct ispot_offcpu *offcpu;	/* ISPOT_SETUP_OFFCPU, else NULL */
};

/* offcpu.c */
struct ispot_offcpu;
int ispot_offcpu_create(struct ispot_session *s, const struct ispot_setup *a);
void ispot_offcpu_free(struct ispot_session *s);
void ispot_offcpu_reset(struct ispot_session *s);
void ispot_offcpu_switch_out(struct ispot_session *s, struct task_struct *prev,
			     u64 *ts);
void ispot_offcpu_switch_in(struct ispot_session *s, struct task_struct *next,
			    u64 *ts);
void ispot_offcpu_exit(struct ispot_session *s, struct task_struct *t);

/* dev.c */
int ispot_dev_register(void);
void ispot_dev_unregister(void);

/* session.c */
struct ispot_session *ispot_session_create(void);
void ispot_session_destroy(struct ispot_session *s);
int ispot_session_setup(struct ispot_session *s, struct ispot_setup *args);
int ispot_session_enable(struct ispot_session *s);
void ispot_session_disable(struct ispot_session *s);
void ispot_session_refresh_state(struct ispot_session *s);
void ispot_session_global_info(struct ispot_info *info);
u64 ispot_session_dropped(struct ispot_session *s);

/* ring.c */
struct ispot_ring *ispot_ring_create(unsigned int cpu, u32 pages,
				     u32 watermark, wait_queue_head_t *wq);
void ispot_ring_destroy(struct ispot_ring *ring);
size_t ispot_ring_bytes(u32 pages);
struct ispot_record *ispot_ring_reserve(struct ispot_ring *ring, u32 nslots,
					struct ispot_session *s,
					struct task_struct *t, u64 ts);
void ispot_ring_commit(struct ispot_ring *ring, u32 nslots);

/* @t's pid as the reader sees it: 0 if it has none in the reader's pidns. */
static __always_inline u32 ispot_vpid(struct ispot_session *s,
				      struct task_struct *t)
{
	if (likely(s->pid_ns == &init_pid_ns))
		return t->pid;
	return task_pid_nr_ns(t, s->pid_ns);
}

static __always_inline u32 ispot_vtgid(struct ispot_session *s,
				       struct task_struct *t)
{
	if (likely(s->pid_ns == &init_pid_ns))
		return t->tgid;
	return task_tgid_nr_ns(t, s->pid_ns);
}

/* The common part of every record: who, when, where, what.  Preempt off. */
static inline void ispot_record_header(struct ispot_record *rec,
				       struct ispot_session *s,
				       struct task_struct *t, u32 probe_id,
				       u8 kind, u8 nslots, u64 ts)
{
	rec->ts_ns = ts;
	rec->tid = ispot_vpid(s, t);
	rec->tgid = ispot_vtgid(s, t);
	rec->probe_id = probe_id;
	rec->cpu = smp_processor_id();
	rec->kind = kind;
	rec->nslots = nslots;
}
int ispot_ring_consume(struct ispot_ring *ring, u64 new_tail);
bool ispot_ring_readable(struct ispot_ring *ring);
int ispot_ring_mmap(struct ispot_ring *ring, struct vm_area_struct *vma);

static inline struct ispot_record *ispot_ring_slot(struct ispot_ring *ring,
						   u64 pos)
{
	return (struct ispot_record *)(ring->data +
				       (pos & ring->mask) * ISPOT_SLOT_SIZE);
}

/* The second slot of the record being written at the head. */
static inline struct ispot_counter_values *
ispot_record_counters(struct ispot_ring *ring)
{
	BUILD_BUG_ON(sizeof(struct ispot_counter_values) != ISPOT_SLOT_SIZE);
	return (struct ispot_counter_values *)ispot_ring_slot(ring,
							      ring->head + 1);
}

/* probe.c */
u32 ispot_user_fp_walk(u64 fp, u64 sp, u64 *frames, u32 n);
struct ispot_probe *ispot_probe_create(struct ispot_probe_add *args);
int ispot_probe_insert(struct ispot_session *s, struct ispot_probe *p);
void ispot_probe_destroy(struct ispot_probe *p);
int ispot_probe_remove(struct ispot_session *s, u32 id);
int ispot_probe_arm(struct ispot_probe *p);
void ispot_probe_disarm_all(struct ispot_session *s);
void ispot_probe_free_all(struct ispot_session *s);
void ispot_probe_stats(struct ispot_probe *p, struct ispot_probe_stats *st);

/* gate.c, gate_wait.c, gate_block.c */
void ispot_gate_init(struct ispot_gate *g);
void ispot_gate_free(struct ispot_gate *g);
bool ispot_gate_enter_slow(struct ispot_session *s, u64 sp,
			   struct ispot_gate_pass *pass);
void ispot_gate_record(struct ispot_session *s, u32 probe_id, u64 sp,
		       const struct ispot_gate_pass *pass);
void ispot_gate_release(struct ispot_gate *g, struct task_struct *t);
void ispot_gate_release_exiting(struct ispot_gate *g, struct task_struct *t);
int ispot_gate_solo(struct ispot_session *s, u64 duration_ns, u64 wait_max_ns,
		    u32 *block);
void ispot_gate_stop(struct ispot_session *s);
void ispot_gate_reset(struct ispot_session *s);
void ispot_gate_futex(struct ispot_gate *g, struct task_struct *t, bool in);
bool ispot_gate_free_idle(struct ispot_gate *g, unsigned long w);
/* gate.c, for gate_wait.c: the holder word's changes. */
bool ispot_gate_swap(struct ispot_gate *g, unsigned long old,
		     unsigned long new);
bool ispot_gate_hold(struct ispot_session *s, u64 sp, u64 deadline);
bool ispot_gate_again(struct ispot_session *s, u64 sp, u64 now,
		      u64 deadline, struct ispot_gate_pass *pass);

/*
 * An entry of a gated function: outside solo blocks, with nobody holding
 * the gate, two reads.  Otherwise it may wait (gate_wait.c); returns
 * whether a GATE record is due, described by @pass.
 */
static __always_inline bool ispot_gate_enter(struct ispot_session *s, u64 sp,
					     struct ispot_gate_pass *pass)
{
	if (likely(!READ_ONCE(s->gate.deadline) &&
		   !READ_ONCE(s->gate.holder)))
		return false;
	return ispot_gate_enter_slow(s, sp, pass);
}

/*
 * A return of a gated function.  At return the return address has been
 * popped, so the holder's outermost call returns at an sp above the one
 * its entry had; its nested calls return at or below it.
 */
static __always_inline void ispot_gate_leave(struct ispot_session *s, u64 sp)
{
	if (unlikely(READ_ONCE(s->gate.holder) ==
		     (ispot_gate_word(current) | ISPOT_GATE_IN_CALL)) &&
	    sp > READ_ONCE(s->gate.holder_sp))
		ispot_gate_release(&s->gate, current);
}

/* probe_file.c */
struct file *ispot_probe_file_open(struct ispot_probe_add *args);

/* waits.c */
void ispot_waits_init(void);
void ispot_waits_exit(void);
bool ispot_waits_supported(u32 setup_flags);
int ispot_waits_start(struct ispot_session *s);
void ispot_waits_stop(struct ispot_session *s);
u32 ispot_waits_registered_flags(void);
void ispot_waits_keep_all(void);

/* counters.c */
int ispot_counters_check(const struct ispot_counters *args);
struct ispot_counters_pcpu __percpu *
ispot_counters_create(struct ispot_counters *args);
void ispot_counters_release(struct ispot_counters_pcpu __percpu *pcpu, u32 nr);
void ispot_counters_install(struct ispot_session *s,
			    struct ispot_counters_pcpu __percpu *pcpu, u32 nr);
void ispot_counters_free(struct ispot_session *s);
void ispot_counters_read(struct ispot_session *s,
			 struct ispot_counter_values *v);

/* target.c */
int ispot_target_get(struct ispot_session *s, pid_t pid);
void ispot_target_put(struct ispot_session *s);
int ispot_target_refresh(struct ispot_session *s);
bool ispot_target_owns_mm(struct ispot_session *s, struct mm_struct *mm);
void ispot_target_stop(struct ispot_session *s, u32 reason);

bool ispot_target_adopt_exec(struct ispot_session *s, struct task_struct *t);

enum ispot_target_verdict {
	ISPOT_TARGET_RECORD,	/* a thread of the traced image */
	ISPOT_TARGET_OTHER,	/* another process */
	ISPOT_TARGET_STOPPED,	/* the target, but tracing it has stopped */
	ISPOT_TARGET_PENDING,	/* the target in an image not yet checked */
};

/*
 * Whether an event of thread @t may be recorded: @t belongs to the traced
 * thread group (by identity, not by number), tracing has not stopped, and
 * @t runs the image that was checked.  An exec shows here as a new
 * self_exec_id.  begin_new_exec() bumps it before commit_creds(), so only
 * a caller that knows the exec is complete (@may_adopt: the uprobe filter
 * and handlers, which run once the new image is set up) decides about the
 * new image: adopted if dumpable with the credentials that were checked,
 * otherwise the session stops for good, as perf_event_exit_task() ends
 * perf's events at such an exec.  Others (tracepoints, in any context)
 * record nothing of it until then.  No lock, no sleep.
 */
static __always_inline enum ispot_target_verdict
ispot_target_check(struct ispot_session *s, struct task_struct *t,
		   bool may_adopt)
{
	if (t->signal != s->signal)
		return ISPOT_TARGET_OTHER;
	if (READ_ONCE(s->stop_reason))
		return ISPOT_TARGET_STOPPED;
	if (likely(READ_ONCE(t->self_exec_id) == READ_ONCE(s->exec_id)))
		return ISPOT_TARGET_RECORD;
	if (!may_adopt)
		return ISPOT_TARGET_PENDING;
	if (ispot_target_adopt_exec(s, t))
		return ISPOT_TARGET_RECORD;
	ispot_target_stop(s, ISPOT_STOP_SECURE_EXEC);
	return ISPOT_TARGET_STOPPED;
}

/* bench.c: debugfs needs no error handling, so neither do these. */
void ispot_bench_init(void);
void ispot_bench_exit(void);

#endif /* ISPOT_INTERNAL_H */
