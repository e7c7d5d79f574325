// SPDX-License-Identifier: GPL-2.0
/*
 * Which process a session traces, and who may trace it.
 *
 * The rule is perf's for a per-task event, with ptrace's ATTACH mode because
 * a uprobe writes into the target's text: the opener of /dev/ispot has
 * CAP_PERFMON (or CAP_SYS_ADMIN), and the caller of SETUP may
 * ptrace-attach to the target (credentials or CAP_SYS_PTRACE, dumpability,
 * LSMs such as Yama), by its file-system ids and by its real ones.  Tracing
 * stops for good when the target execs a program that leaves it not
 * dumpable (set-user-ID, set-group-ID, file capabilities), as
 * perf_event_exit_task() ends perf's events then.
 * Documentation/design.rst, "Security model", says why each part is so.
 *
 * A session names a thread group by identity: its signal_struct, which a
 * process that later gets the same tgid does not share.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "ispot_internal.h"

/*
 * ptrace_may_access() is not exported to modules, and a copy of it could
 * not consult the LSMs (security_ptrace_access_check() is not exported
 * either).  Opening /proc/TGID/task/TID/mem runs the kernel's own check in
 * the caller's context: mm_access() with PTRACE_MODE_ATTACH_FSCREDS, under
 * the target's exec_update_lock.  The procfs must be the one of the
 * caller's pid namespace, or the numbers would name other tasks.
 *
 * mm_access() skips the check for a thread that has no mm (exited), so
 * @thread must have one before and after: exit_mm() only ever clears it,
 * and an exec in between shows as another mm (the caller retries).
 */
/*
 * /proc must be the root of a procfs of the caller's pid namespace (not a
 * bind mount of some part of one, or of another namespace's, whose numbers
 * would name other tasks).
 */
static bool ispot_target_procfs_ok(const struct path *proc,
				   struct pid_namespace *ns)
{
	struct super_block *sb = proc->dentry->d_sb;

	return sb->s_magic == PROC_SUPER_MAGIC && proc->dentry == sb->s_root &&
	       proc_pid_ns(sb) == ns;
}

static int ispot_target_mem_check(struct task_struct *thread,
				  struct mm_struct *mm)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct path proc, memp;
	struct file *mem;
	char name[40];
	int err;

	err = kern_path("/proc", LOOKUP_FOLLOW, &proc);
	if (err)
		return err == -ENOENT ? -EXDEV : err;
	if (!ispot_target_procfs_ok(&proc, ns)) {
		path_put(&proc);
		return -EXDEV;
	}
	/*
	 * Relative to that root, crossing no mount and no symlink: a file
	 * mounted over the target's mem entry (a caller may do that in a
	 * user namespace of its own) would run the check on another task.
	 */
	snprintf(name, sizeof(name), "%d/task/%d/mem",
		 task_tgid_nr_ns(thread, ns), task_pid_nr_ns(thread, ns));
	err = vfs_path_lookup(proc.dentry, proc.mnt, name,
			      LOOKUP_NO_XDEV | LOOKUP_NO_SYMLINKS, &memp);
	path_put(&proc);
	if (err)
		return err == -ENOENT ? -EAGAIN : err;	/* it exited */
	mem = dentry_open(&memp, O_RDONLY, current_cred());
	path_put(&memp);
	if (IS_ERR(mem)) {
		err = PTR_ERR(mem);
		/*
		 * A thread that died between the lookup and the open: 5.10's
		 * procfs says -EBADF for it (14 of 3,000 SETUPs racing the
		 * target's release, in hardening_test).  The caller looks for
		 * a live thread again.
		 */
		if (err == -EBADF || err == -ESRCH)
			return -EAGAIN;
		/* mm_access() says -EACCES; ptrace(2) and perf say -EPERM. */
		return err == -EACCES ? -EPERM : err;
	}
	/*
	 * __mem_open() keeps the mm that mm_access() checked (NULL, unchecked,
	 * for a thread that had none): it must be the one the caller holds,
	 * which also proves the thread did not exec in between.
	 */
	err = mem->private_data == mm ? 0 : -EAGAIN;
	fput(mem);
	return err;
}

/*
 * The mem file checks the caller by its file-system ids, ptrace(2) and
 * perf_event_open() by its real ids (PTRACE_MODE_REALCREDS).  A caller
 * whose two differ (a set-user-ID program, a daemon after seteuid() or
 * setfsuid()) must pass both: with the file-system ids alone, such a
 * program handed a pid and an ispot fd traced its owner's processes for
 * a caller that could not.  The second check is the same open, its
 * file-system ids the real ones for its length (override_creds() on a
 * copy: no other id, capability or label moves).  Its mode stays ATTACH
 * with FSCREDS, so it is at least as strict as REALCREDS: capabilities
 * are compared as the first check compares them.
 */
static int ispot_target_may_attach(struct task_struct *thread,
				   struct mm_struct *mm)
{
	const struct cred *saved;
	struct cred *rcred;
	int err;

	err = ispot_target_mem_check(thread, mm);
	if (err || (uid_eq(current_fsuid(), current_uid()) &&
		    gid_eq(current_fsgid(), current_gid())))
		return err;
	rcred = prepare_creds();
	if (!rcred)
		return -ENOMEM;
	rcred->fsuid = rcred->uid;
	rcred->fsgid = rcred->gid;
	/*
	 * Open-coded, not the override_creds class guard: 5.10 and 6.1 have
	 * none.  Up to 6.12 override_creds() takes a reference that
	 * revert_creds() drops, in 7.2 neither does; on every version the
	 * put drops prepare_creds()' own, after the revert.
	 */
	saved = override_creds(rcred);
	err = ispot_target_mem_check(thread, mm);
	revert_creds(saved);
	put_cred(rcred);
	return err;
}

/*
 * A live thread of @leader's group and its mm, both referenced.  The leader
 * itself may have exited (pthread_exit) while other threads run on.
 */
static struct task_struct *ispot_target_live_thread(struct task_struct *leader,
						    struct mm_struct **mmp)
{
	struct task_struct *t, *found = NULL;

	rcu_read_lock();
	for_each_thread(leader, t) {
		if (READ_ONCE(t->mm) && !(t->flags & PF_EXITING)) {
			get_task_struct(t);
			found = t;
			break;
		}
	}
	rcu_read_unlock();
	if (!found)
		return NULL;
	*mmp = get_task_mm(found);
	if (!*mmp) {
		put_task_struct(found);
		return NULL;
	}
	return found;
}

/* Adopt @mm as the traced image's; the caller checked it may be traced. */
static void ispot_target_set_mm(struct ispot_session *s, struct mm_struct *mm)
{
	struct mm_struct *old;

	mmgrab(mm);
	old = xchg(&s->mm, mm);
	if (old)
		mmdrop(old);
}

/* The identity ptrace compares, and what a privileged exec changes. */
static bool ispot_target_cred_same(const struct cred *a, const struct cred *b)
{
	return uid_eq(a->uid, b->uid) && uid_eq(a->euid, b->euid) &&
	       uid_eq(a->suid, b->suid) && uid_eq(a->fsuid, b->fsuid) &&
	       gid_eq(a->gid, b->gid) && gid_eq(a->egid, b->egid) &&
	       gid_eq(a->sgid, b->sgid) && gid_eq(a->fsgid, b->fsgid) &&
	       a->user_ns == b->user_ns &&
	       !memcmp(&a->cap_permitted, &b->cap_permitted,
		       sizeof(a->cap_permitted));
}

/*
 * Check that the caller may trace a live thread of @s's group, and record
 * what was checked: that thread's image generation, mm and credentials.
 * The generation is read first, and the mm the check saw proves no exec
 * happened before the credentials are read; an exec after that shows as a
 * new generation, checked again.  Retries a few times if the thread exits
 * or execs under the check.
 */
static int ispot_target_check_live(struct ispot_session *s)
{
	int tries, err = -ESRCH;

	for (tries = 0; tries < 4; tries++) {
		const struct cred *cred = NULL;
		struct task_struct *t;
		struct mm_struct *mm;
		u64 exec_id;

		t = ispot_target_live_thread(s->target, &mm);
		if (!t)
			return -ESRCH;
		exec_id = READ_ONCE(t->self_exec_id);
		smp_rmb();	/* exec_mmap() comes before the bump */
		err = ispot_target_may_attach(t, mm);
		if (!err) {
			cred = get_task_cred(t);
			if (READ_ONCE(t->self_exec_id) != exec_id)
				err = -EAGAIN;
		}
		if (!err) {
			WRITE_ONCE(s->exec_id, exec_id);
			ispot_target_set_mm(s, mm);
			swap(s->cred, cred);
		}
		if (cred)
			put_cred(cred);
		mmput(mm);
		put_task_struct(t);
		if (err != -EAGAIN)
			return err;
	}
	return err == -EAGAIN ? -ESRCH : err;
}

/*
 * @t, a thread of the target, runs a new image (its exec is complete:
 * called from the uprobe filter, a uprobe handler or ENABLE).  It stays
 * traceable only if nothing ptrace would notice changed: it is dumpable,
 * and its credentials are those that were checked.
 */
bool ispot_target_adopt_exec(struct ispot_session *s, struct task_struct *t)
{
	struct mm_struct *mm = READ_ONCE(t->mm);
	bool same;

	if (!mm || !ispot_dumpable(t, mm))
		return false;
	rcu_read_lock();
	same = ispot_target_cred_same(__task_cred(t), s->cred);
	rcu_read_unlock();
	if (same)
		WRITE_ONCE(s->exec_id, READ_ONCE(t->self_exec_id));
	return same;
}

/* The target's exit (the pid's waiters are woken as for a pidfd). */
static int ispot_target_exit_wake(struct wait_queue_entry *wait,
				  unsigned int mode, int flags, void *key)
{
	struct ispot_session *s = container_of(wait, struct ispot_session,
					       exit_wait);

	irq_work_queue(&s->stop_work);
	return 0;
}

static void ispot_target_stop_work(struct irq_work *work)
{
	struct ispot_session *s = container_of(work, struct ispot_session,
					       stop_work);

	wake_up_all(&s->wq);
	/* Threads waiting at the gate pass once the session stops. */
	wake_up_all(&s->gate.wq);
}

/*
 * Look up @pid (any thread's id) in the caller's pid namespace and make its
 * thread group the session's target, if the caller may trace it.
 */
int ispot_target_get(struct ispot_session *s, pid_t pid)
{
	struct task_struct *leader;
	int err;

	if (pid <= 0)
		return -ESRCH;
	rcu_read_lock();
	leader = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (leader)
		leader = leader->group_leader;
	if (leader)
		get_task_struct(leader);
	rcu_read_unlock();
	if (!leader)
		return -ESRCH;
	if (leader->flags & PF_KTHREAD) {
		put_task_struct(leader);
		return -EINVAL;
	}

	s->target = leader;
	s->signal = leader->signal;
	init_irq_work(&s->stop_work, ispot_target_stop_work);
	err = ispot_target_check_live(s);
	if (err) {
		ispot_target_put(s);
		return err;
	}
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	/*
	 * Wake the reader when the group exits, whether it polls, epolls
	 * (registered once, maybe before SETUP) or reads nothing at all.
	 */
	s->tgid_pid = get_task_pid(leader, PIDTYPE_TGID);
	/*
	 * NULL once the whole group has exited and been released since the
	 * check above (release_task() detaches the TGID pid): found by the
	 * fuzzer, whose targets die while sessions are set up.
	 */
	if (!s->tgid_pid) {
		ispot_target_put(s);
		return -ESRCH;
	}
	init_waitqueue_func_entry(&s->exit_wait, ispot_target_exit_wake);
	add_wait_queue(&s->tgid_pid->wait_pidfd, &s->exit_wait);
	return 0;
}

void ispot_target_put(struct ispot_session *s)
{
	if (!s->target)
		return;
	if (s->tgid_pid) {
		remove_wait_queue(&s->tgid_pid->wait_pidfd, &s->exit_wait);
		put_pid(s->tgid_pid);
	}
	irq_work_sync(&s->stop_work);
	if (s->pid_ns)
		put_pid_ns(s->pid_ns);
	if (s->cred)
		put_cred(s->cred);
	if (s->mm)
		mmdrop(s->mm);
	put_task_struct(s->target);
	s->pid_ns = NULL;
	s->tgid_pid = NULL;
	s->cred = NULL;
	s->mm = NULL;
	s->signal = NULL;
	s->target = NULL;
}

/*
 * At ENABLE: the target may have exec'd since SETUP (or since the last
 * ENABLE), and the probes are about to be registered in whatever image it
 * runs now.  A new image is checked in full again, with the credentials of
 * whoever enables: the caller may not trace what it could not SETUP.
 */
int ispot_target_refresh(struct ispot_session *s)
{
	struct task_struct *t;
	struct mm_struct *mm;
	bool same;
	int err;

	if (READ_ONCE(s->stop_reason))
		return -EPERM;
	t = ispot_target_live_thread(s->target, &mm);
	if (!t)
		return -ESRCH;
	same = READ_ONCE(t->self_exec_id) == READ_ONCE(s->exec_id);
	mmput(mm);
	put_task_struct(t);
	if (same)
		return 0;
	err = ispot_target_check_live(s);
	if (err == -EPERM)
		ispot_target_stop(s, ISPOT_STOP_SECURE_EXEC);
	return err;
}

/* Once, from any context: the reader's poll() sees the session DEAD. */
void ispot_target_stop(struct ispot_session *s, u32 reason)
{
	if (!cmpxchg(&s->stop_reason, 0, reason))
		irq_work_queue(&s->stop_work);
}

/*
 * The uprobe filter: whether @mm is the traced image, so that breakpoints
 * go into it and nowhere else.  Called when a probe is registered, for
 * every mm that maps the file, and when a process maps the file, including
 * the new image during an exec, with the new mm installed in current.
 * That is where an exec of the target is adopted (or stops the session).
 * The target's mm, not its leader's: the leader may have exited.
 */
bool ispot_target_owns_mm(struct ispot_session *s, struct mm_struct *mm)
{
	if (mm == READ_ONCE(s->mm))
		return true;
	if (current->mm != mm ||
	    ispot_target_check(s, current, true) != ISPOT_TARGET_RECORD)
		return false;
	ispot_target_set_mm(s, mm);
	return true;
}
