// SPDX-License-Identifier: GPL-2.0
/*
 * Which process a session traces, and who may trace it.
 *
 * A session names a thread group.  Its threads, including those created
 * later, share one mm, and an exec replaces that mm while keeping the tgid,
 * so handlers compare tgids and the uprobe filter compares mms.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>

#include "ispot.h"

/*
 * ptrace_may_access() is not exported, so a CAP_PERFMON caller without
 * CAP_SYS_ADMIN may trace only a dumpable process whose uids and gids all
 * equal its own: the credential part of the ptrace check.  LSM hooks (Yama)
 * are not consulted; CAP_SYS_ADMIN callers are not restricted.
 */
static bool ispot_target_may_trace(struct task_struct *task)
{
	const struct cred *me = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	if (capable(CAP_SYS_ADMIN))
		return true;
	if (!perfmon_capable())
		return false;

	rcu_read_lock();
	tcred = __task_cred(task);
	ok = uid_eq(me->uid, tcred->euid) && uid_eq(me->uid, tcred->suid) &&
	     uid_eq(me->uid, tcred->uid) && gid_eq(me->gid, tcred->egid) &&
	     gid_eq(me->gid, tcred->sgid) && gid_eq(me->gid, tcred->gid);
	rcu_read_unlock();
	if (!ok)
		return false;

	mm = get_task_mm(task);
	if (mm) {
		ok = get_dumpable(mm) == SUID_DUMP_USER;
		mmput(mm);
	}
	return ok;
}

/* Look up @pid (in the caller's pid namespace) and take its group leader. */
int ispot_target_get(pid_t pid, struct task_struct **leader)
{
	struct task_struct *task;

	if (pid <= 0)
		return -ESRCH;

	rcu_read_lock();
	task = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (task)
		task = task->group_leader;
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;

	if (task->flags & PF_KTHREAD) {
		put_task_struct(task);
		return -EINVAL;
	}
	if (!ispot_target_may_trace(task)) {
		put_task_struct(task);
		return -EPERM;
	}
	*leader = task;
	return 0;
}

/*
 * Called by the uprobe filter: at register time, for every mm that maps the
 * probed file, and at mmap time, including the mmap of the new image during
 * exec, after exec has installed the new mm in the task.
 */
bool ispot_target_owns_mm(struct ispot_session *s, struct mm_struct *mm)
{
	if (READ_ONCE(s->target->mm) == mm)
		return true;
	return current->mm == mm && ispot_target_is_current(s);
}
