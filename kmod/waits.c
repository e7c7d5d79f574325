// SPDX-License-Identifier: GPL-2.0
/*
 * Waits and thread lifetimes (ABI 1.2): tracepoint probes that record the
 * context switches, futex calls, thread creations and thread exits of the
 * traced thread groups, and of nothing else.
 *
 * The probes run for every task on the system once registered, so the
 * common case, a task nobody traces, must cost almost nothing: with no
 * session enabled, one read of a counter; otherwise one hash of the task's
 * signal_struct into a small RCU-protected table of enabled sessions,
 * which finds an empty bucket.  A traced task gets one record in the
 * current CPU's ring of each session tracing it, written with preemption
 * disabled, like the uprobe handlers' records; the ring defers the
 * reader's wakeup to irq_work, because sched_switch runs under the
 * run-queue lock.
 *
 * Each group of probes (TASKS, WAITS) is registered when the first session
 * that needs it is enabled, and unregistered when the last one is disabled
 * or closed: a registered sys_enter probe sends every system call of every
 * process through the slow path, which an idle host must not pay.  The
 * keep_tracepoints parameter keeps them until unload instead, for
 * hypervisors that mishandle the text patching this implies
 * (Documentation/design.rst, "Waits").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>
#include <uapi/linux/futex.h>	/* only the ABI: ops, struct futex_waitv */
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

#include "ispot_internal.h"

#define ISPOT_WAITS_HASH_BITS	6

/*
 * Enabled sessions with setup flags, by the target's signal_struct (its
 * identity, which a reused tgid does not share); several sessions may
 * trace one process.  Written under ispot_waits_lock; the probes read it with
 * preemption disabled (rcu_read_lock_sched), so removing a session and then
 * synchronize_rcu() guarantees that no probe still sees it.
 */
static DEFINE_HASHTABLE(ispot_waits_table, ISPOT_WAITS_HASH_BITS);
static DEFINE_MUTEX(ispot_waits_lock);

/* The probe groups, one per setup flag. */
enum { ISPOT_WAITS_TASKS, ISPOT_WAITS_WAITS, ISPOT_WAITS_NR_GROUPS };

static const u32 ispot_waits_group_flag[ISPOT_WAITS_NR_GROUPS] = {
	[ISPOT_WAITS_TASKS] = ISPOT_SETUP_TASKS,
	[ISPOT_WAITS_WAITS] = ISPOT_SETUP_WAITS,
};

/*
 * Per group: listed sessions using it (read locklessly by the probes as
 * their first check) and whether its probes are registered.  Written under
 * ispot_waits_lock.
 */
static unsigned int ispot_waits_users[ISPOT_WAITS_NR_GROUPS];
static bool ispot_waits_registered[ISPOT_WAITS_NR_GROUPS];
static bool ispot_waits_ever_registered;

static __always_inline bool ispot_waits_idle(int group)
{
	return !READ_ONCE(ispot_waits_users[group]);
}

static unsigned long ispot_waits_key(struct ispot_session *s)
{
	return (unsigned long)s->signal;
}

static bool ispot_waits_match(struct ispot_session *s, struct task_struct *t,
			      u32 flag)
{
	return (s->setup_flags & flag) &&
	       ispot_target_check(s, t, false) == ISPOT_TARGET_RECORD;
}

/* The enabled sessions that trace @t and asked for @flag.  RCU-sched. */
#define ispot_waits_for_each(s, t, flag)				\
	hash_for_each_possible_rcu(ispot_waits_table, s, waits_node,	\
				   (unsigned long)(t)->signal)		\
		if (!ispot_waits_match(s, t, flag)) {} else

/*
 * One record about thread @t into this CPU's ring of @s.  The clock is read
 * once per probe call, on its first record.  Preemption is disabled.
 */
static void ispot_waits_put(struct ispot_session *s, u64 *ts, u8 kind,
			    struct task_struct *t, u64 ip, u64 d0, u64 d1,
			    u64 d2)
{
	unsigned int cpu = smp_processor_id();
	struct ispot_ring *ring = s->rings[cpu];
	struct ispot_record *rec;

	if (!*ts)
		*ts = ktime_get_mono_fast_ns();
	rec = ispot_ring_reserve(ring, 1, s, t, *ts);
	if (!rec)
		return;
	ispot_record_header(rec, s, t, 0, kind, 1, *ts);
	rec->sp = 0;
	rec->ip = ip;
	rec->data[0] = d0;
	rec->data[1] = d1;
	rec->data[2] = d2;
	ispot_ring_commit(ring, 1);
}

/*
 * Interrupts are off and the run-queue lock is held: nothing here may wake
 * anyone (the ring defers that) or take a lock.
 */
static __always_inline void ispot_waits_switch(void *data, bool preempt,
					       struct task_struct *prev,
					       struct task_struct *next,
					       unsigned int prev_state)
{
	struct ispot_session *s;
	u64 ts = 0;

	if (ispot_waits_idle(ISPOT_WAITS_WAITS))
		return;
	rcu_read_lock_sched_notrace();
	ispot_waits_for_each(s, prev, ISPOT_SETUP_WAITS) {
		bool runnable;

		/*
		 * Still runnable: preempted, or it did not block.  A pending
		 * signal can cancel the block after prev_state was read (6.1
		 * passes the stale state then, later kernels TASK_RUNNING),
		 * so the task's current state counts too.
		 */
		runnable = preempt || prev_state == TASK_RUNNING ||
			   task_is_running(prev);
		/* Its OFF_STACK comes first, so SWITCH_OUT ends the record. */
		if (s->offcpu)
			ispot_offcpu_switch_out(s, prev, &ts);
		ispot_waits_put(s, &ts, ISPOT_REC_SWITCH_OUT, prev, 0,
				runnable, prev_state, 0);
	}
	ispot_waits_for_each(s, next, ISPOT_SETUP_WAITS) {
		if (s->offcpu)
			ispot_offcpu_switch_in(s, next, &ts);
		ispot_waits_put(s, &ts, ISPOT_REC_SWITCH_IN, next, 0, 0, 0, 0);
	}
	rcu_read_unlock_sched_notrace();
}

ISPOT_DEFINE_TP_SCHED_SWITCH(ispot_waits_switch_compat, ispot_waits_switch)

/*
 * FUTEX_ENTER's uaddr, op and val.  The futex2 calls are given the futex(2)
 * op that does the same thing, so a reader needs to know only futex(2):
 * futex_wait(uaddr, val, mask, flags) is FUTEX_WAIT_BITSET, and
 * futex_waitv(waiters, nr, flags) is FUTEX_WAIT on its first waiter, read
 * without faulting (zeros if that memory is not resident).
 */
static void ispot_waits_futex_args(enum ispot_futex_call call,
				   struct pt_regs *regs, u64 *out)
{
	unsigned long args[6];
	struct futex_waitv w;

	syscall_get_arguments(current, regs, args);
	switch (call) {
	case ISPOT_FUTEX_WAIT2:
		out[0] = args[0];
		out[1] = FUTEX_WAIT_BITSET | (args[3] & FUTEX_PRIVATE_FLAG);
		out[2] = args[1];
		break;
	case ISPOT_FUTEX_WAITV:
		if (!args[1] ||
		    copy_from_user_nofault(&w, (void __user *)args[0],
					   sizeof(w)))
			memset(&w, 0, sizeof(w));
		out[0] = w.uaddr;
		out[1] = FUTEX_WAIT | (w.flags & FUTEX_PRIVATE_FLAG);
		out[2] = w.val;
		break;
	default:
		out[0] = args[0];
		out[1] = args[1];
		out[2] = args[2];
		break;
	}
}

/*
 * Whether the futex(2) @op (as FUTEX_ENTER gives it) may sleep: a wait, or
 * a PI lock.  The gate (gate_wait.c) lets others pass a holder that sleeps so.
 */
static bool ispot_futex_op_waits(u64 op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_LOCK_PI:
	case FUTEX_WAIT_REQUEUE_PI:
	case FUTEX_LOCK_PI2:
		return true;
	default:
		return false;
	}
}

/*
 * Runs for every system call of every task; all but futex calls leave at
 * the first compare.  Preemptible from 6.13.
 */
static void ispot_waits_sys_enter(void *data, struct pt_regs *regs, long id)
{
	enum ispot_futex_call call = ispot_futex_call(id);
	struct task_struct *t = current;
	struct ispot_session *s;
	bool decoded = false;
	u64 args[3];
	u64 ts = 0;

	if (likely(!call) || ispot_waits_idle(ISPOT_WAITS_WAITS))
		return;
	rcu_read_lock_sched_notrace();
	ispot_waits_for_each(s, t, ISPOT_SETUP_WAITS) {
		if (!decoded) {
			ispot_waits_futex_args(call, regs, args);
			decoded = true;
		}
		ispot_waits_put(s, &ts, ISPOT_REC_FUTEX_ENTER, t,
				instruction_pointer(regs), args[0], args[1],
				args[2]);
		if (ispot_futex_op_waits(args[1]))
			ispot_gate_futex(&s->gate, t, true);
	}
	rcu_read_unlock_sched_notrace();
}

static void ispot_waits_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct task_struct *t = current;
	struct ispot_session *s;
	u64 ts = 0;

	if (likely(!ispot_futex_call(syscall_get_nr(t, regs))) ||
	    ispot_waits_idle(ISPOT_WAITS_WAITS))
		return;
	rcu_read_lock_sched_notrace();
	ispot_waits_for_each(s, t, ISPOT_SETUP_WAITS) {
		ispot_waits_put(s, &ts, ISPOT_REC_FUTEX_EXIT, t, 0, ret, 0, 0);
		ispot_gate_futex(&s->gate, t, false);
	}
	rcu_read_unlock_sched_notrace();
}

/*
 * A new task, before it first runs.  A new process has a new tgid, so only
 * threads created in a traced group match.
 */
static void ispot_waits_fork(void *data, struct task_struct *parent,
			     struct task_struct *child)
{
	struct ispot_session *s;
	u64 ts = 0;

	if (ispot_waits_idle(ISPOT_WAITS_TASKS))
		return;
	rcu_read_lock_sched_notrace();
	ispot_waits_for_each(s, child, ISPOT_SETUP_TASKS)
		ispot_waits_put(s, &ts, ISPOT_REC_TASK_NEW, child, 0,
				ispot_vpid(s, parent), 0, 0);
	rcu_read_unlock_sched_notrace();
}

/*
 * @p is current, in do_exit().  "Last thread" is said once per session:
 * before 6.16 every thread exiting while the group dies can see it dead
 * (compat.h), and the first of them to get here says it.
 */
static __always_inline void ispot_waits_process_exit(void *data,
						     struct task_struct *p,
						     bool group_dead)
{
	struct ispot_session *s;
	u64 ts = 0, comm[2];
	bool named = false;

	if (ispot_waits_idle(ISPOT_WAITS_TASKS))
		return;
	rcu_read_lock_sched_notrace();
	ispot_waits_for_each(s, p, ISPOT_SETUP_TASKS) {
		bool last;

		/*
		 * Its comm, at most 15 bytes, NUL-padded (ABI 1.10), read
		 * once for the sessions that want it, and racily, as the
		 * kernel's own sched_process_exit event reads it: a rename
		 * meanwhile may show a mix of two names.
		 */
		if (!named) {
			strscpy_pad((char *)comm, p->comm, sizeof(comm));
			named = true;
		}
		last = group_dead && !atomic_xchg(&s->waits_group_dead, 1);
		ispot_waits_put(s, &ts, ISPOT_REC_TASK_EXIT, p, 0, last,
				comm[0], comm[1]);
		/* A holder that dies inside a gated call never returns. */
		ispot_gate_release_exiting(&s->gate, p);
		if (s->offcpu)
			ispot_offcpu_exit(s, p);
	}
	rcu_read_unlock_sched_notrace();
}

ISPOT_DEFINE_TP_PROCESS_EXIT(ispot_waits_process_exit_compat,
			     ispot_waits_process_exit)

/*
 * The __tracepoint_* symbols are not exported, so the tracepoints are
 * found by name once, at load.
 */
static struct ispot_waits_tp {
	const char *name;
	void *probe;
	int group;
	struct tracepoint *tp;
} ispot_waits_tps[] = {
	{ "sched_process_fork", ispot_waits_fork, ISPOT_WAITS_TASKS },
	{ "sched_process_exit", ispot_waits_process_exit_compat,
	  ISPOT_WAITS_TASKS },
	{ "sched_switch", ispot_waits_switch_compat, ISPOT_WAITS_WAITS },
	{ "sys_enter", ispot_waits_sys_enter, ISPOT_WAITS_WAITS },
	{ "sys_exit", ispot_waits_sys_exit, ISPOT_WAITS_WAITS },
};

/*
 * The probes are registered through untyped pointers: have the compiler
 * check each against its tracepoint's prototype, as register_trace_*()
 * would.
 */
static void __maybe_unused ispot_waits_check_types(void)
{
	check_trace_callback_type_sched_process_fork(ispot_waits_fork);
	check_trace_callback_type_sched_process_exit(ispot_waits_process_exit_compat);
	check_trace_callback_type_sched_switch(ispot_waits_switch_compat);
	check_trace_callback_type_sys_enter(ispot_waits_sys_enter);
	check_trace_callback_type_sys_exit(ispot_waits_sys_exit);
}

static void ispot_waits_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ispot_waits_tps); i++)
		if (!strcmp(tp->name, ispot_waits_tps[i].name))
			ispot_waits_tps[i].tp = tp;
}

void ispot_waits_init(void)
{
	unsigned int i;

	for_each_kernel_tracepoint(ispot_waits_find, NULL);
	for (i = 0; i < ARRAY_SIZE(ispot_waits_tps); i++) {
		const struct ispot_waits_tp *w = &ispot_waits_tps[i];

		if (!w->tp)
			pr_info("no tracepoint %s: setup flag %#x unsupported\n",
				w->name, ispot_waits_group_flag[w->group]);
	}
}

bool ispot_waits_supported(u32 setup_flags)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ispot_waits_tps); i++) {
		const struct ispot_waits_tp *w = &ispot_waits_tps[i];

		if ((setup_flags & ispot_waits_group_flag[w->group]) && !w->tp)
			return false;
	}
	return true;
}

static void ispot_waits_unregister(int group)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ispot_waits_tps); i++) {
		struct ispot_waits_tp *w = &ispot_waits_tps[i];

		if (w->group == group)
			WARN_ON_ONCE(tracepoint_probe_unregister(w->tp,
								 w->probe,
								 NULL));
	}
}

/* Register @group's probes, all or none. */
static int ispot_waits_register(int group)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(ispot_waits_tps); i++) {
		struct ispot_waits_tp *w = &ispot_waits_tps[i];

		if (w->group != group)
			continue;
		err = tracepoint_probe_register(w->tp, w->probe, NULL);
		if (err)
			goto err_unregister;
	}
	return 0;

err_unregister:
	while (i--) {
		struct ispot_waits_tp *w = &ispot_waits_tps[i];

		if (w->group == group)
			tracepoint_probe_unregister(w->tp, w->probe, NULL);
	}
	/* Nothing the failed probes could have seen is freed before this. */
	tracepoint_synchronize_unregister();
	return err;
}

/* The ISPOT_SETUP_* groups whose probes are registered now. */
u32 ispot_waits_registered_flags(void)
{
	u32 flags = 0;
	int g;

	mutex_lock(&ispot_waits_lock);
	for (g = 0; g < ISPOT_WAITS_NR_GROUPS; g++)
		if (ispot_waits_registered[g])
			flags |= ispot_waits_group_flag[g];
	mutex_unlock(&ispot_waits_lock);
	return flags;
}

/*
 * Unregister the groups that no listed session uses, unless the
 * keep_tracepoints parameter asks to keep them (main.c).  Under
 * ispot_waits_lock; the caller synchronizes after dropping it.
 */
static bool ispot_waits_unregister_unused(void)
{
	bool any = false;
	int g;

	lockdep_assert_held(&ispot_waits_lock);
	if (READ_ONCE(ispot_keep_tracepoints))
		return false;
	for (g = 0; g < ISPOT_WAITS_NR_GROUPS; g++) {
		if (!ispot_waits_registered[g] || ispot_waits_users[g])
			continue;
		ispot_waits_unregister(g);
		ispot_waits_registered[g] = false;
		any = true;
	}
	return any;
}

/*
 * Called at ENABLE: register the probe groups the session's flags need,
 * if no other session has, then list the session.  Records start with the
 * listing.
 */
int ispot_waits_start(struct ispot_session *s)
{
	int g, err;

	if (!(s->setup_flags & (ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS)) ||
	    s->waits_listed)
		return 0;
	atomic_set(&s->waits_group_dead, 0);

	mutex_lock(&ispot_waits_lock);
	for (g = 0; g < ISPOT_WAITS_NR_GROUPS; g++) {
		if (!(s->setup_flags & ispot_waits_group_flag[g]) ||
		    ispot_waits_registered[g])
			continue;
		err = ispot_waits_register(g);
		if (err)
			goto err_unregister;
		ispot_waits_registered[g] = true;
		ispot_waits_ever_registered = true;
	}
	hash_add_rcu(ispot_waits_table, &s->waits_node, ispot_waits_key(s));
	for (g = 0; g < ISPOT_WAITS_NR_GROUPS; g++)
		if (s->setup_flags & ispot_waits_group_flag[g])
			WRITE_ONCE(ispot_waits_users[g],
				   ispot_waits_users[g] + 1);
	s->waits_listed = true;
	mutex_unlock(&ispot_waits_lock);
	return 0;

err_unregister:
	/* Groups this call registered and no session uses. */
	ispot_waits_unregister_unused();
	mutex_unlock(&ispot_waits_lock);
	tracepoint_synchronize_unregister();
	return err;
}

/*
 * Called at DISABLE and at close: unlist the session, unregister the
 * groups no listed session uses any more, and wait until no probe can
 * still be writing into the session's rings.  A probe looks the session up
 * and writes its records inside one rcu_read_lock_sched() section, which
 * tracepoint_synchronize_unregister() (or synchronize_rcu()) waits for.
 */
void ispot_waits_stop(struct ispot_session *s)
{
	bool unregistered;
	int g;

	if (!s->waits_listed)
		return;

	mutex_lock(&ispot_waits_lock);
	for (g = 0; g < ISPOT_WAITS_NR_GROUPS; g++)
		if (s->setup_flags & ispot_waits_group_flag[g])
			WRITE_ONCE(ispot_waits_users[g],
				   ispot_waits_users[g] - 1);
	hash_del_rcu(&s->waits_node);
	s->waits_listed = false;
	unregistered = ispot_waits_unregister_unused();
	mutex_unlock(&ispot_waits_lock);

	if (unregistered)
		tracepoint_synchronize_unregister();
	else
		synchronize_rcu();
}

/*
 * With keep_tracepoints, register every supported group now, while the
 * system is quiet, rather than at the first ENABLE under the target's
 * load: hypervisors that mishandle cross-CPU text patching (QEMU's
 * multi-threaded TCG) are least likely to trip over it then.  A failure
 * leaves registration to ENABLE.
 */
void ispot_waits_keep_all(void)
{
	int g;

	if (!READ_ONCE(ispot_keep_tracepoints))
		return;
	mutex_lock(&ispot_waits_lock);
	for (g = 0; g < ISPOT_WAITS_NR_GROUPS; g++) {
		if (!ispot_waits_supported(ispot_waits_group_flag[g]) ||
		    ispot_waits_registered[g])
			continue;
		if (ispot_waits_register(g)) {
			pr_warn("cannot register the %#x tracepoints at load\n",
				ispot_waits_group_flag[g]);
			continue;
		}
		ispot_waits_registered[g] = true;
		ispot_waits_ever_registered = true;
	}
	mutex_unlock(&ispot_waits_lock);
}

/*
 * At unload every session is gone (each holds the module), and so are
 * their probes, unless keep_tracepoints kept them.  Whatever was ever
 * registered, no CPU may still be in the probe code when it is freed.
 */
void ispot_waits_exit(void)
{
	int g;

	mutex_lock(&ispot_waits_lock);
	WARN_ON_ONCE(!hash_empty(ispot_waits_table));
	for (g = 0; g < ISPOT_WAITS_NR_GROUPS; g++) {
		if (!ispot_waits_registered[g])
			continue;
		ispot_waits_unregister(g);
		ispot_waits_registered[g] = false;
	}
	mutex_unlock(&ispot_waits_lock);
	if (ispot_waits_ever_registered)
		tracepoint_synchronize_unregister();
}
