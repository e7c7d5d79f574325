/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal declarations shared by the files of ispot.ko.  Each .c file does
 * one job: main (load/unload, limits), dev (the character device and ioctl
 * dispatch), session (per-fd state), ring (per-CPU record rings),
 * probe (uprobe consumers and handlers), target (which process is traced),
 * waits (tracepoint probes: context switches, futex calls, thread creation
 * and exit of traced processes), counters (perf events read around probed
 * calls), bench (in-kernel micro-benchmarks in
 * debugfs, for `make bench`).
 */
#ifndef ISPOT_INTERNAL_H
#define ISPOT_INTERNAL_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/uprobes.h>
#include <linux/wait.h>
#include <linux/ispot.h>

#define ISPOT_MODULE_VERSION	"0.1.0"
#define ISPOT_DEFAULT_STACK_PERIOD	10000

/* Limits, set as module parameters (main.c). */
extern unsigned int ispot_max_sessions;
extern unsigned int ispot_max_probes;
extern unsigned int ispot_max_buffer_mib;

/*
 * One single-producer ring per CPU.  Producers are the probe handlers of the
 * CPU that owns the ring, with preemption disabled, so writing needs no
 * lock.  The reader releases space with ISPOT_IOC_RING_CONSUME, which runs
 * under the session mutex.
 */
struct ispot_ring {
	struct ispot_ring_ctrl *ctrl;	/* first page of the mapping */
	u8 *data;			/* slot 0 */
	u64 head;			/* producer's copy, in slots */
	u64 tail;			/* written by RING_CONSUME (release) */
	u32 mask;			/* nr_slots - 1 */
	u32 watermark;			/* in slots */
	u64 produced;			/* records, written + dropped */
	u64 dropped;			/* records */
	u64 consumed;			/* records, counted by RING_CONSUME */
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

struct ispot_session;
struct ispot_counters_pcpu;
struct signal_struct;

struct ispot_probe {
	struct list_head node;		/* in session->probes */
	struct ispot_session *session;
	struct uprobe_consumer consumer;
	struct uprobe *uprobe;		/* 6.12+: handle from register */
	struct inode *inode;		/* igrab()ed */
	loff_t offset;
	u32 id;
	u32 flags;			/* ISPOT_PROBE_* */
	u32 sample_period;		/* 0 or 1: record every hit */
	bool registered;
	bool first_stack_taken;
	struct ispot_probe_pcpu __percpu *pcpu;
	struct ispot_sample_slot *samples;	/* only when sampling */
};

/*
 * Per-fd session.  @lock serialises ioctls, mmap and release; the probe
 * handlers never take it: they see only fields that are fixed while the
 * probes are registered or the session is in the waits table (target,
 * tgid, signal, setup_flags, rings, stack_period, counters).  @waits_node is
 * written under waits.c's table lock and read under RCU.
 */
struct ispot_session {
	struct mutex lock;
	enum ispot_session_state state;
	pid_t tgid;			/* global tgid of the target */
	struct task_struct *target;	/* thread-group leader, referenced */
	struct signal_struct *signal;	/* target's, pinned by @target: tells
					 * its threads from a reused tgid */
	u32 setup_flags;		/* ISPOT_SETUP_* */
	struct hlist_node waits_node;	/* in the waits table while listed */
	bool waits_listed;
	atomic_t waits_group_dead;	/* a TASK_EXIT said "last thread" */
	struct ispot_ring **rings;	/* [nr_rings], indexed by CPU */
	u32 nr_rings;
	size_t ring_bytes;		/* ctrl page + data, per ring */
	u32 stack_period;
	struct list_head probes;
	u32 nr_probes;
	u32 nr_counters;
	struct ispot_counters_pcpu __percpu *counters;	/* NULL: none */
	u32 next_probe_id;
	wait_queue_head_t wq;
	struct list_head node;		/* in the device's session list */
};

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
struct ispot_record *ispot_ring_reserve(struct ispot_ring *ring, u32 nslots);
void ispot_ring_commit(struct ispot_ring *ring, u32 nslots);

/* The common part of every record: who, when, where, what.  Preempt off. */
static inline void ispot_record_header(struct ispot_record *rec,
				       struct task_struct *t, u32 probe_id,
				       u8 kind, u8 nslots, u64 ts)
{
	rec->ts_ns = ts;
	rec->tid = t->pid;
	rec->tgid = t->tgid;
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
int ispot_probe_add(struct ispot_session *s, struct ispot_probe_add *args);
int ispot_probe_remove(struct ispot_session *s, u32 id);
int ispot_probe_arm(struct ispot_probe *p);
void ispot_probe_disarm_all(struct ispot_session *s);
void ispot_probe_free_all(struct ispot_session *s);
void ispot_probe_stats(struct ispot_probe *p, struct ispot_probe_stats *st);

/* waits.c */
void ispot_waits_init(void);
void ispot_waits_exit(void);
bool ispot_waits_supported(u32 setup_flags);
int ispot_waits_start(struct ispot_session *s);
void ispot_waits_stop(struct ispot_session *s);

/* counters.c */
int ispot_counters_check(const struct ispot_counters *args);
int ispot_counters_set(struct ispot_session *s, struct ispot_counters *args);
void ispot_counters_free(struct ispot_session *s);
void ispot_counters_read(struct ispot_session *s,
			 struct ispot_counter_values *v);

/* target.c */
int ispot_target_get(pid_t pid, struct task_struct **leader);
bool ispot_target_owns_mm(struct ispot_session *s, struct mm_struct *mm);

static inline bool ispot_target_is_current(struct ispot_session *s)
{
	return current->tgid == s->tgid;
}

/* bench.c: debugfs needs no error handling, so neither do these. */
void ispot_bench_init(void);
void ispot_bench_exit(void);

#endif /* ISPOT_INTERNAL_H */
