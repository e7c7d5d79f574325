// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ispot: one session per open file, an ioctl per command, the rings
 * mapped read-only and poll() for new records.
 *
 * Every ioctl copies its argument in, rejects unknown flags and non-zero
 * reserved fields, does its work under the session mutex and copies
 * results out after releasing it.
 * Unknown commands get -ENOTTY; a command not allowed in the session's
 * current state gets -EBADFD.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ispot_internal.h"

/* Open sessions, for the limit and for ISPOT_IOC_INFO. */
static LIST_HEAD(ispot_sessions);
static DEFINE_MUTEX(ispot_sessions_lock);
static unsigned int ispot_nr_sessions;

static bool ispot_reserved_nonzero(const void *p, size_t len)
{
	return memchr_inv(p, 0, len) != NULL;
}

static int ispot_dev_open(struct inode *inode, struct file *file)
{
	struct ispot_session *s;

	/* CAP_PERFMON, or CAP_SYS_ADMIN as before 5.8, as for perf. */
	if (!perfmon_capable())
		return -EPERM;
	s = ispot_session_create();
	if (!s)
		return -ENOMEM;

	mutex_lock(&ispot_sessions_lock);
	if (ispot_nr_sessions >= READ_ONCE(ispot_max_sessions)) {
		mutex_unlock(&ispot_sessions_lock);
		ispot_session_destroy(s);
		return -EBUSY;
	}
	ispot_nr_sessions++;
	list_add(&s->node, &ispot_sessions);
	mutex_unlock(&ispot_sessions_lock);

	file->private_data = s;
	return 0;
}

static int ispot_dev_release(struct inode *inode, struct file *file)
{
	struct ispot_session *s = file->private_data;

	mutex_lock(&ispot_sessions_lock);
	list_del(&s->node);
	ispot_nr_sessions--;
	mutex_unlock(&ispot_sessions_lock);
	ispot_session_destroy(s);
	return 0;
}

/*
 * No session lock: a listed session's rings live until release takes it
 * off the list, and drop counts are read racily anyway.
 */
static long ispot_ioc_info(void __user *uarg)
{
	struct ispot_session *s;
	struct ispot_info info;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	if (info.tracepoints || info.reserved32 ||
	    ispot_reserved_nonzero(info.reserved, sizeof(info.reserved)))
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	info.tracepoints = ispot_waits_registered_flags();

	mutex_lock(&ispot_sessions_lock);
	ispot_session_global_info(&info);
	list_for_each_entry(s, &ispot_sessions, node)
		info.dropped += ispot_session_dropped(s);
	info.sessions = ispot_nr_sessions;
	mutex_unlock(&ispot_sessions_lock);
	info.max_sessions = READ_ONCE(ispot_max_sessions);
	info.max_probes = READ_ONCE(ispot_max_probes);
	info.nr_cpus = nr_cpu_ids;
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long ispot_ioc_get_version(void __user *uarg)
{
	struct ispot_version v;

	if (copy_from_user(&v, uarg, sizeof(v)))
		return -EFAULT;
	if (v.flags || v.reserved)
		return -EINVAL;
	memset(&v, 0, sizeof(v));
	v.abi_major = ISPOT_ABI_MAJOR;
	v.abi_minor = ISPOT_ABI_MINOR;
	strscpy(v.module_version, ISPOT_MODULE_VERSION,
		sizeof(v.module_version));
	return copy_to_user(uarg, &v, sizeof(v)) ? -EFAULT : 0;
}

/* Take the session lock and bring the state up to date. */
static void ispot_session_lock(struct ispot_session *s)
{
	mutex_lock(&s->lock);
	ispot_session_refresh_state(s);
}

/*
 * Take the session lock for a command allowed only in @states (a mask of
 * BIT(ISPOT_STATE_*)): -EBADFD, with the lock released, in any other.
 */
static int ispot_session_lock_in(struct ispot_session *s, u32 states)
{
	ispot_session_lock(s);
	if (!(BIT(s->state) & states)) {
		mutex_unlock(&s->lock);
		return -EBADFD;
	}
	return 0;
}

static long ispot_ioc_setup(struct ispot_session *s, void __user *uarg)
{
	struct ispot_setup args;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if ((args.flags & ~ISPOT_SETUP_FLAGS) || args.nr_rings ||
	    args.ring_mmap_size || args.reserved32 ||
	    ispot_reserved_nonzero(args.reserved, sizeof(args.reserved)))
		return -EINVAL;
	/*
	 * Off-CPU stacks ride the switch probes, and free a thread's state
	 * at its exit: they need both groups.  A period without them is a
	 * mistake, not a default.
	 */
	if (args.flags & ISPOT_SETUP_OFFCPU) {
		if (!(args.flags & ISPOT_SETUP_TASKS) ||
		    !(args.flags & ISPOT_SETUP_WAITS) ||
		    args.offcpu_period_us > ISPOT_OFFCPU_MAX_PERIOD_US ||
		    (args.offcpu_period_us &&
		     args.offcpu_period_us < ISPOT_OFFCPU_MIN_PERIOD_US))
			return -EINVAL;
	} else if (args.offcpu_period_us) {
		return -EINVAL;
	}
	/*
	 * No capability of the caller's: the fd's opener had CAP_PERFMON
	 * (checked at open), and an fd handed on carries that, as perf's
	 * do.  What the caller must have is ptrace access to the target.
	 */
	err = ispot_session_lock_in(s, BIT(ISPOT_STATE_NEW));
	if (err)
		return err;
	err = ispot_session_setup(s, &args);
	mutex_unlock(&s->lock);
	if (err)
		return err;
	return copy_to_user(uarg, &args, sizeof(args)) ? -EFAULT : 0;
}

static long ispot_ioc_probe_add(struct ispot_session *s, void __user *uarg)
{
	struct ispot_probe_add args;
	struct ispot_probe *p;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	/* A path beside an fd is refused, not ignored: it may mean more. */
	if (args.probe_id || args.reserved || (args.fd >= 0 && args.path))
		return -EINVAL;
	/* Fail early, before opening anything; checked again below. */
	if (READ_ONCE(s->state) != ISPOT_STATE_READY)
		return -EBADFD;
	p = ispot_probe_create(&args);
	if (IS_ERR(p))
		return PTR_ERR(p);

	ispot_session_lock(s);
	if (s->state != ISPOT_STATE_READY)
		err = -EBADFD;
	else
		err = ispot_probe_insert(s, p);
	if (!err)
		args.probe_id = p->id;
	mutex_unlock(&s->lock);
	if (err) {
		ispot_probe_destroy(p);
		return err;
	}

	if (put_user(args.probe_id,
		     (__u32 __user *)(uarg + offsetof(struct ispot_probe_add,
						      probe_id)))) {
		/* Unless another thread armed it meanwhile: then it stays. */
		if (!ispot_session_lock_in(s, BIT(ISPOT_STATE_READY))) {
			ispot_probe_remove(s, args.probe_id);
			mutex_unlock(&s->lock);
		}
		return -EFAULT;
	}
	return 0;
}

static long ispot_ioc_probe_remove(struct ispot_session *s, void __user *uarg)
{
	struct ispot_probe_remove args;
	long ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.reserved)
		return -EINVAL;
	ret = ispot_session_lock_in(s, BIT(ISPOT_STATE_READY));
	if (ret)
		return ret;
	ret = ispot_probe_remove(s, args.probe_id);
	mutex_unlock(&s->lock);
	return ret;
}

static long ispot_ioc_enable(struct ispot_session *s)
{
	long ret;

	ispot_session_lock(s);
	if (s->state != ISPOT_STATE_READY)
		ret = -EBADFD;
	else
		ret = ispot_session_enable(s);
	/* A target that exec'd out of reach since SETUP shows as DEAD. */
	ispot_session_refresh_state(s);
	mutex_unlock(&s->lock);
	return ret;
}

static long ispot_ioc_disable(struct ispot_session *s)
{
	long ret;

	ret = ispot_session_lock_in(s, BIT(ISPOT_STATE_ENABLED) |
				       BIT(ISPOT_STATE_DEAD));
	if (ret)
		return ret;
	ispot_session_disable(s);
	mutex_unlock(&s->lock);
	return 0;
}

static long ispot_ioc_ring_consume(struct ispot_session *s, void __user *uarg)
{
	struct ispot_ring_consume args;
	long ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.reserved)
		return -EINVAL;
	ret = ispot_session_lock_in(s, BIT(ISPOT_STATE_READY) |
				       BIT(ISPOT_STATE_ENABLED) |
				       BIT(ISPOT_STATE_DEAD));
	if (ret)
		return ret;
	if (args.cpu >= s->nr_rings || !s->rings[args.cpu])
		ret = -EINVAL;
	else
		ret = ispot_ring_consume(s->rings[args.cpu], args.tail);
	mutex_unlock(&s->lock);
	return ret;
}

/*
 * Figures are gathered into kernel buffers under the session lock and
 * copied out after it, so a fault on the user's arrays never happens with
 * the lock held.  Both arrays are bounded: by the CPUs and by max_probes.
 */
static long ispot_ioc_stats(struct ispot_session *s, void __user *uarg)
{
	struct ispot_ring_stats *rst = NULL;
	struct ispot_probe_stats *pst = NULL;
	struct ispot_stats args;
	u32 i, nr, np = 0, max_r, max_p;
	struct ispot_probe *p;
	long ret = 0;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.stop_reason || args.state)
		return -EINVAL;
	max_r = min_t(u32, args.nr_rings, nr_cpu_ids);
	if (max_r) {
		rst = kvcalloc(max_r, sizeof(*rst), GFP_KERNEL);
		if (!rst)
			return -ENOMEM;
	}
	/*
	 * Bounded by what the session has, not by a tunable limit.  Another
	 * thread may add probes before the lock is taken; the array must
	 * then still hold min(capacity, count) entries, as the ABI says
	 * (the fuzzer saw a count of 1 over an array left unwritten), so
	 * allocate again for the larger count.
	 */
again:
	max_p = min_t(u32, args.nr_probes, READ_ONCE(s->nr_probes));
	if (max_p) {
		pst = kvcalloc(max_p, sizeof(*pst), GFP_KERNEL);
		if (!pst) {
			ret = -ENOMEM;
			goto out_free;
		}
	}

	ispot_session_lock(s);
	if (min_t(u32, args.nr_probes, s->nr_probes) > max_p) {
		mutex_unlock(&s->lock);
		kvfree(pst);
		pst = NULL;
		/* Only the caller's own threads can keep it looping. */
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out_free;
		}
		goto again;
	}
	if (s->state == ISPOT_STATE_NEW) {
		mutex_unlock(&s->lock);
		ret = -EBADFD;
		goto out_free;
	}
	nr = min(max_r, s->nr_rings);
	for (i = 0; i < nr; i++) {
		struct ispot_ring *r = s->rings[i];

		if (!r)
			continue;	/* not a possible CPU: all zero */
		rst[i].produced = READ_ONCE(r->produced);
		rst[i].consumed = READ_ONCE(r->consumed);
		rst[i].dropped = READ_ONCE(r->dropped);
	}
	list_for_each_entry(p, &s->probes, node) {
		if (np >= max_p)
			break;
		ispot_probe_stats(p, &pst[np++]);
	}
	args.nr_rings = s->nr_rings;
	args.nr_probes = s->nr_probes;
	args.state = s->state;
	args.stop_reason = READ_ONCE(s->stop_reason);
	mutex_unlock(&s->lock);

	if ((nr && copy_to_user(u64_to_user_ptr(args.rings), rst,
				nr * sizeof(*rst))) ||
	    (np && copy_to_user(u64_to_user_ptr(args.probes), pst,
				np * sizeof(*pst))) ||
	    copy_to_user(uarg, &args, sizeof(args)))
		ret = -EFAULT;
out_free:
	kvfree(pst);
	kvfree(rst);
	return ret;
}

/*
 * The counters are created and their results copied out before the
 * session gets them, so a failed copy leaves nothing behind.
 */
static long ispot_ioc_counters(struct ispot_session *s, void __user *uarg)
{
	struct ispot_counters_pcpu __percpu *pcpu;
	struct ispot_counters args;
	bool try;
	long err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	err = ispot_counters_check(&args);
	if (err)
		return err;
	try = args.flags & ISPOT_COUNTERS_TRY;
	if (!try && READ_ONCE(s->state) != ISPOT_STATE_READY)
		return -EBADFD;
	if (!try && READ_ONCE(s->counters))
		return -EBUSY;

	pcpu = ispot_counters_create(&args);
	if (IS_ERR_PCPU(pcpu))
		return PTR_ERR_PCPU(pcpu);
	if (try)
		ispot_counters_release(pcpu, args.nr);
	if (copy_to_user(uarg, &args, sizeof(args))) {
		if (!try)
			ispot_counters_release(pcpu, args.nr);
		return -EFAULT;
	}
	if (try)
		return 0;

	ispot_session_lock(s);
	if (s->state != ISPOT_STATE_READY)
		err = -EBADFD;
	else if (s->counters)
		err = -EBUSY;
	else
		ispot_counters_install(s, pcpu, args.nr);
	mutex_unlock(&s->lock);
	if (err)
		ispot_counters_release(pcpu, args.nr);
	return err;
}

static long ispot_ioc_solo(struct ispot_session *s, void __user *uarg)
{
	struct ispot_solo args;
	long ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags || args.block ||
	    ispot_reserved_nonzero(args.reserved, sizeof(args.reserved)))
		return -EINVAL;
	if (args.duration_ns > ISPOT_SOLO_MAX_NS)
		return -E2BIG;
	if (args.duration_ns ? args.wait_max_ns < NSEC_PER_USEC ||
			       args.wait_max_ns > ISPOT_SOLO_WAIT_MAX_NS :
			       args.wait_max_ns)
		return -EINVAL;
	ret = ispot_session_lock_in(s, BIT(ISPOT_STATE_ENABLED));
	if (ret)
		return ret;
	ret = ispot_gate_solo(s, args.duration_ns, args.wait_max_ns,
			      &args.block);
	mutex_unlock(&s->lock);
	if (ret)
		return ret;
	return copy_to_user(uarg, &args, sizeof(args)) ? -EFAULT : 0;
}

/*
 * Each command copies its argument in before it takes the session lock and
 * copies results out after dropping it (struct ispot_session, "lock").
 */
static long ispot_dev_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct ispot_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case ISPOT_IOC_GET_VERSION:
		return ispot_ioc_get_version(uarg);
	case ISPOT_IOC_INFO:
		return ispot_ioc_info(uarg);
	case ISPOT_IOC_SETUP:
		return ispot_ioc_setup(s, uarg);
	case ISPOT_IOC_PROBE_ADD:
		return ispot_ioc_probe_add(s, uarg);
	case ISPOT_IOC_PROBE_REMOVE:
		return ispot_ioc_probe_remove(s, uarg);
	case ISPOT_IOC_ENABLE:
		return ispot_ioc_enable(s);
	case ISPOT_IOC_DISABLE:
		return ispot_ioc_disable(s);
	case ISPOT_IOC_RING_CONSUME:
		return ispot_ioc_ring_consume(s, uarg);
	case ISPOT_IOC_STATS:
		return ispot_ioc_stats(s, uarg);
	case ISPOT_IOC_COUNTERS:
		return ispot_ioc_counters(s, uarg);
	case ISPOT_IOC_SOLO:
		return ispot_ioc_solo(s, uarg);
	default:
		return -ENOTTY;
	}
}

/*
 * Ring @cpu is mapped at offset cpu * ring_mmap_size, read-only and not
 * executable.  Called under mmap_lock, so it must not take the session
 * lock (ioctls register uprobes, which take mmap_lock, under it): it reads
 * only what SETUP published once, with release ordering.
 */
static int ispot_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ispot_session *s = file->private_data;
	struct ispot_ring **rings = smp_load_acquire(&s->rings);
	unsigned long ring_pages, cpu;

	if (!rings)
		return -EBADFD;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	ring_pages = s->ring_bytes >> PAGE_SHIFT;
	if (vma->vm_end - vma->vm_start != s->ring_bytes ||
	    vma->vm_pgoff % ring_pages)
		return -EINVAL;
	cpu = vma->vm_pgoff / ring_pages;
	if (cpu >= s->nr_rings || !rings[cpu])
		return -EINVAL;
	ispot_vma_make_readonly(vma);
	return ispot_ring_mmap(rings[cpu], vma);
}

/*
 * Readable when a ring has records; hung up when the session is DEAD.  The
 * target's exit and a stop at exec wake the session's queue (target.c).
 */
static __poll_t ispot_dev_poll(struct file *file, poll_table *wait)
{
	struct ispot_session *s = file->private_data;
	__poll_t mask = 0;
	u32 i;

	poll_wait(file, &s->wq, wait);
	ispot_session_lock(s);
	for (i = 0; s->rings && i < s->nr_rings; i++)
		if (s->rings[i] && ispot_ring_readable(s->rings[i]))
			mask |= EPOLLIN | EPOLLRDNORM;
	if (s->state == ISPOT_STATE_DEAD)
		mask |= EPOLLHUP;
	mutex_unlock(&s->lock);
	return mask;
}

static const struct file_operations ispot_fops = {
	.owner		= THIS_MODULE,
	.open		= ispot_dev_open,
	.release	= ispot_dev_release,
	.unlocked_ioctl	= ispot_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= ispot_dev_mmap,
	.poll		= ispot_dev_poll,
	.llseek		= noop_llseek,
};

/*
 * World-accessible node: the module's own checks (open, SETUP) decide, as
 * for perf_event_open(), so that a CAP_PERFMON user can trace.
 */
static struct miscdevice ispot_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= ISPOT_DEVICE_NAME,
	.fops	= &ispot_fops,
	.mode	= 0666,
};

int ispot_dev_register(void)
{
	return misc_register(&ispot_misc);
}

void ispot_dev_unregister(void)
{
	misc_deregister(&ispot_misc);
}
