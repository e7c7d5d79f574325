/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel versions ispot.ko supports (5.10 to
 * 7.x) lives here, so the rest of the module reads as one version: every
 * LINUX_VERSION_CODE test is in this file.
 *
 * uprobes (include/linux/uprobes.h at v5.10, v6.1, v6.12 and v6.13):
 *   5.10  int uprobe_register(inode, offset, uc);
 *         int uprobe_register_refctr(inode, offset, ref_ctr, uc);
 *         void uprobe_unregister(inode, offset, uc);  (synchronous)
 *         handler(uc, regs), ret_handler(uc, func, regs),
 *         filter(uc, enum uprobe_filter_ctx, mm)
 *   6.1   the same
 *   6.12  struct uprobe *uprobe_register(inode, offset, ref_ctr, uc);
 *         (uprobe_register_refctr() folded into it)
 *         uprobe_unregister_nosync(uprobe, uc) + uprobe_unregister_sync()
 *         filter(uc, mm)
 *   6.13  handler(uc, regs, __u64 *data), ret_handler(uc, func, regs, data)
 *
 * tracepoints (waits.c):
 *   6.1   sched_process_exit(p), after exit_mm()
 *   6.13  sys_enter/sys_exit probes run preemptible
 *   6.16  sched_process_exit(p, group_dead), before exit_mm()
 *   7.0   every tracepoint probe may run preemptible
 *   (waits.c disables preemption itself, so only the prototype differs.)
 *
 * futex system calls: futex_waitv since 5.16, futex_wait (futex2) since 6.7.
 *
 * Debian 11's 5.10 (checked against its linux-headers-5.10.0-46):
 *   task_is_running() is 5.14 ("sched: Introduce task_is_running()");
 *     5.10 has task->state, 5.14 renamed it __state.
 *   struct futex_waitv is 5.16 ("futex: Implement sys_futex_waitv()");
 *     5.10 lacks the system call too, so the struct only has to compile.
 *   sched_switch(preempt, prev, next) gains prev_state in 5.18
 *     ("sched/tracing: Append prev_state to tp args instead"): see
 *     ISPOT_DEFINE_TP_SCHED_SWITCH().
 *   <uapi/linux/elf.h> has no PT_GNU_RELRO (6.1's has it): defined
 *     below with the ELF gABI's value, which never changes.
 *
 * Debian unstable's 7.2 (linux-headers-7.2.13+deb14, gcc-16):
 *   get_dumpable(mm)/SUID_DUMP_USER are gone: dumpability moved from
 *   mm->flags to task->exec_state (enum task_dumpable); see
 *   ispot_dumpable().
 */
#ifndef ISPOT_COMPAT_H
#define ISPOT_COMPAT_H

#include <linux/compat.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/uprobes.h>
#include <linux/version.h>
#include <asm/unistd.h>
#include <uapi/linux/futex.h>
#include <uapi/linux/elf.h>

/*
 * io_uring's workers (offcpu.c leaves them out: no user stack).  Defined
 * since io-wq (5.5); the fallback only keeps an older tree building.
 */
#ifndef PF_IO_WORKER
#define PF_IO_WORKER	0
#endif
/*
 * Workers a process clones for the kernel (vhost's, 6.4 on): threads of
 * the group with no user context of their own.  Before 6.4 they were
 * kthreads of another group, which never match.
 */
#ifndef PF_USER_WORKER
#define PF_USER_WORKER	0
#endif

/* The GNU extension segment made read-only after relocation. */
#ifndef PT_GNU_RELRO
#define PT_GNU_RELRO	(PT_LOOS + 0x474e552)
#endif
#if __has_include(<linux/sched/exec_state.h>)
#include <linux/sched/exec_state.h>	/* 7.x: dumpability per task */
#define ISPOT_HAVE_TASK_EXEC_STATE 1
#else
#include <linux/sched/coredump.h>
#endif

/*
 * Error pointers in the __percpu address space.  7.2 makes __percpu a
 * named address space (__seg_gs) when CONFIG_USE_X86_SEG_SUPPORT and the
 * compiler has __typeof_unqual__ (gcc 14+; asm/percpu_types.h
 * __percpu_qual), and IS_ERR()/PTR_ERR()/ERR_PTR() on such a pointer no
 * longer compile.  <linux/err.h> has the _PCPU forms since 6.12 (Debian's
 * 6.12.117 has them, 6.1 and 5.10 do not); the same definitions here.
 */
#ifndef IS_ERR_PCPU
#define ERR_PTR_PCPU(error)						\
	((void __percpu *)(unsigned long)ERR_PTR(error))
#define PTR_ERR_PCPU(ptr)						\
	(PTR_ERR((const void *)(__force const unsigned long)(ptr)))
#define IS_ERR_PCPU(ptr)						\
	(IS_ERR((const void *)(__force const unsigned long)(ptr)))
#endif

#ifndef FUTEX_WAITV_MAX		/* before 5.16: same layout as later uapi */
struct futex_waitv {
	__u64 val;
	__u64 uaddr;
	__u32 flags;
	__u32 __reserved;
};
#endif

/*
 * The state @t is in: task->state, __state from 5.14.  The one place that
 * reads it, for task_is_running() before 5.14 and for the sched_switch
 * probe before 5.18.
 */
static __always_inline unsigned int ispot_task_state(struct task_struct *t)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 14, 0)
	return READ_ONCE(t->__state);
#else
	return READ_ONCE(t->state);
#endif
}

/* futex(2)'s FUTEX_LOCK_PI2 came with 5.14; 5.10's uapi lacks the name. */
#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2		13
#endif

#ifndef task_is_running		/* before 5.14 */
#define task_is_running(task)	(ispot_task_state(task) == TASK_RUNNING)
#endif

/*
 * Callbacks whose prototype depends on the kernel.  @fn is written once,
 * with the version-independent prototype given above each macro and every
 * parameter named; ISPOT_DEFINE_*(name, fn) then defines @name, a static
 * function with the prototype this kernel calls, which passes @fn the
 * arguments every supported kernel has (computing those an older kernel
 * does not pass) and drops the others.  Both names are spelled out at the
 * use, so that grep, ctags and cscope find the callback (@name is, by
 * convention, @fn_compat).  @fn is __always_inline and called only
 * there, so only @name is a symbol: what ftrace and kprobes list.  No
 * semicolon follows a use, as after DEFINE_GUARD().
 */

/*
 * sched_switch probe:
 *	void fn(void *data, bool preempt, struct task_struct *prev,
 *		struct task_struct *next, unsigned int prev_state);
 * Before 5.18 sched_switch does not pass prev_state: it is read from the
 * task as that kernel's own trace event does.  That read races with a
 * wakeup: try_to_wake_up() may already have set TASK_WAKING (0x200) in
 * prev's state, which 5.18's fa2c3254 ("sched/tracing: Don't re-read
 * p->state when emitting sched_switch event") fixed by passing the state
 * the scheduler decided on.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#define ISPOT_DEFINE_TP_SCHED_SWITCH(name, fn)				\
static void name(void *data, bool preempt, struct task_struct *prev,	\
		 struct task_struct *next, unsigned int prev_state)	\
{									\
	fn(data, preempt, prev, next, prev_state);			\
}
#else
#define ISPOT_DEFINE_TP_SCHED_SWITCH(name, fn)				\
static void name(void *data, bool preempt, struct task_struct *prev,	\
		 struct task_struct *next)				\
{									\
	fn(data, preempt, prev, next, ispot_task_state(prev));		\
}
#endif

/*
 * sched_process_exit probe:
 *	void fn(void *data, struct task_struct *p, bool group_dead);
 * @group_dead: the exiting thread @p ends its thread group.  Before 6.16
 * the tracepoint does not say; the group's live count has already been
 * decremented when it fires, so a zero count means the group is dead, but
 * several threads exiting at once may all see it (waits.c lets only one of
 * them say so).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define ISPOT_DEFINE_TP_PROCESS_EXIT(name, fn)				\
static void name(void *data, struct task_struct *p, bool group_dead)	\
{									\
	fn(data, p, group_dead);					\
}
#else
#define ISPOT_DEFINE_TP_PROCESS_EXIT(name, fn)				\
static void name(void *data, struct task_struct *p)			\
{									\
	fn(data, p, !atomic_read(&p->signal->live));			\
}
#endif

/*
 * uprobe_consumer.handler, .ret_handler and .filter:
 *	int fn(struct uprobe_consumer *uc, struct pt_regs *regs);
 *	int fn(struct uprobe_consumer *uc, unsigned long func,
 *	       struct pt_regs *regs);
 *	bool fn(struct uprobe_consumer *uc, struct mm_struct *mm);
 * The session cookie 6.13 adds (@data) is not used; the filter's context
 * (enum uprobe_filter_ctx), gone in 6.12, was never used.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define ISPOT_DEFINE_UPROBE_HANDLER(name, fn)				\
static int name(struct uprobe_consumer *uc, struct pt_regs *regs,	\
		__u64 *data)						\
{									\
	return fn(uc, regs);						\
}

#define ISPOT_DEFINE_URETPROBE_HANDLER(name, fn)			\
static int name(struct uprobe_consumer *uc, unsigned long func,		\
		struct pt_regs *regs, __u64 *data)			\
{									\
	return fn(uc, func, regs);					\
}
#else
#define ISPOT_DEFINE_UPROBE_HANDLER(name, fn)				\
static int name(struct uprobe_consumer *uc, struct pt_regs *regs)	\
{									\
	return fn(uc, regs);						\
}

#define ISPOT_DEFINE_URETPROBE_HANDLER(name, fn)			\
static int name(struct uprobe_consumer *uc, unsigned long func,		\
		struct pt_regs *regs)					\
{									\
	return fn(uc, func, regs);					\
}
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define ISPOT_DEFINE_UPROBE_FILTER(name, fn)				\
static bool name(struct uprobe_consumer *uc, struct mm_struct *mm)	\
{									\
	return fn(uc, mm);						\
}
#else
#define ISPOT_DEFINE_UPROBE_FILTER(name, fn)				\
static bool name(struct uprobe_consumer *uc,				\
		 enum uprobe_filter_ctx ctx, struct mm_struct *mm)	\
{									\
	return fn(uc, mm);						\
}
#endif

/*
 * Register @uc at @inode:@offset, with the semaphore at @ref_ctr_offset
 * (0: none); on 6.12+ *@handle receives the uprobe.
 */
static inline int ispot_uprobe_register(struct inode *inode, loff_t offset,
					loff_t ref_ctr_offset,
					struct uprobe_consumer *uc,
					struct uprobe **handle)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	struct uprobe *u = uprobe_register(inode, offset, ref_ctr_offset, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	*handle = u;
	return 0;
#else
	*handle = NULL;
	return uprobe_register_refctr(inode, offset, ref_ctr_offset, uc);
#endif
}

/*
 * Unregister without waiting for running handlers; call
 * ispot_uprobe_unregister_sync() once after a batch, before freeing any
 * consumer.
 */
static inline void ispot_uprobe_unregister_nosync(struct inode *inode,
						  loff_t offset,
						  struct uprobe_consumer *uc,
						  struct uprobe *handle)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	uprobe_unregister_nosync(handle, uc);
#else
	/* 6.1 waits for running handlers under uprobe->register_rwsem. */
	uprobe_unregister(inode, offset, uc);
#endif
}

static inline void ispot_uprobe_unregister_sync(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	uprobe_unregister_sync();
#endif
}

/*
 * vfs_path_lookup() is exported throughout, but <linux/namei.h> declares
 * it only in later kernels (6.12 does; 6.1 and 5.10 keep it in
 * fs/internal.h).  Redeclaring the same prototype is harmless where both
 * exist.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
int vfs_path_lookup(struct dentry *dentry, struct vfsmount *mnt,
		    const char *name, unsigned int flags, struct path *path);
#endif

/*
 * The rings are read-only and not executable for the reader, and mprotect
 * must not change that; they are not inherited across fork.
 */
static inline void ispot_vma_make_readonly(struct vm_area_struct *vma)
{
	/* A child forked before exec (ispotctl run's) has no use for them. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, VM_DONTCOPY, VM_MAYWRITE | VM_MAYEXEC);
#else
	vma->vm_flags = (vma->vm_flags | VM_DONTCOPY) &
			~(VM_MAYWRITE | VM_MAYEXEC);
#endif
}

/*
 * Whether ptrace (and so ISPOT) may look into @task, whose mm is @mm,
 * without CAP_SYS_PTRACE: its dumpability is "owner", as
 * __ptrace_may_access() checks.  Up to 7.0 that is in the mm's flags
 * (get_dumpable(mm) == SUID_DUMP_USER); Debian's 7.2 moved it to
 * task->exec_state (<linux/sched/exec_state.h>, TASK_DUMPABLE_OWNER) and
 * exports no accessor, so it is read under RCU.  No lock, no sleep: fit
 * for probe handlers.  @mm must be non-NULL (a task without one passes
 * __ptrace_may_access's check, so callers let it pass too).
 */
static __always_inline bool ispot_dumpable(struct task_struct *task,
					   struct mm_struct *mm)
{
#ifdef ISPOT_HAVE_TASK_EXEC_STATE
	struct task_exec_state *es;
	bool ok;

	rcu_read_lock();
	es = rcu_dereference(task->exec_state);
	ok = es && READ_ONCE(es->dumpable) == TASK_DUMPABLE_OWNER;
	rcu_read_unlock();
	return ok;
#else
	return get_dumpable(mm) == SUID_DUMP_USER;
#endif
}

enum ispot_futex_call {
	ISPOT_FUTEX_NONE = 0,
	ISPOT_FUTEX,		/* futex(uaddr, op, val, ...) */
	ISPOT_FUTEX_WAITV,	/* futex_waitv(waiters, nr, flags, ...) */
	ISPOT_FUTEX_WAIT2,	/* futex_wait(uaddr, val, mask, flags, ...) */
};

/*
 * Which futex system call @nr is.  Only 64-bit callers are traced: a
 * 32-bit caller's numbers mean other calls.  Called for every system call
 * while wait tracing is on, so the common answer comes first and cheap.
 */
static __always_inline enum ispot_futex_call ispot_futex_call(long nr)
{
	enum ispot_futex_call call;

	if (nr == __NR_futex)
		call = ISPOT_FUTEX;
#ifdef __NR_futex_waitv
	else if (nr == __NR_futex_waitv)
		call = ISPOT_FUTEX_WAITV;
#endif
#ifdef __NR_futex_wait
	else if (nr == __NR_futex_wait)
		call = ISPOT_FUTEX_WAIT2;
#endif
	else
		return ISPOT_FUTEX_NONE;
	return in_compat_syscall() ? ISPOT_FUTEX_NONE : call;
}

#endif /* ISPOT_COMPAT_H */
