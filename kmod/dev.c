// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ispot: one session per open file, an ioctl per command, the rings
 * mapped read-only and poll() for new records.
 *
 * Every ioctl copies its argument in, rejects unknown flags and non-zero
 * reserved fields, runs under the session mutex and copies results out.
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
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "ispot.h"

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

	if (!capable(CAP_SYS_ADMIN) && !perfmon_capable())
		return -EPERM;
	s = ispot_session_create();
	if (!s)
		return -ENOMEM;

	mutex_lock(&ispot_sessions_lock);
	if (ispot_nr_sessions >= ispot_max_sessions) {
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

static long ispot_ioc_info(void __user *uarg)
{
	struct ispot_session *s;
	struct ispot_info info;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	if (ispot_reserved_nonzero(info.reserved, sizeof(info.reserved)))
		return -EINVAL;
	memset(&info, 0, sizeof(info));

	mutex_lock(&ispot_sessions_lock);
	ispot_session_global_info(&info);
	list_for_each_entry(s, &ispot_sessions, node) {
		/* Lock order: ispot_sessions_lock, then a session's lock. */
		mutex_lock(&s->lock);
		info.dropped += ispot_session_dropped(s);
		mutex_unlock(&s->lock);
	}
	info.sessions = ispot_nr_sessions;
	mutex_unlock(&ispot_sessions_lock);
	info.max_sessions = ispot_max_sessions;
	info.max_probes = ispot_max_probes;
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

static long ispot_ioc_setup(struct ispot_session *s, void __user *uarg)
{
	struct ispot_setup args;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if ((args.flags & ~ISPOT_SETUP_FLAGS) || args.nr_rings ||
	    args.ring_mmap_size ||
	    ispot_reserved_nonzero(args.reserved, sizeof(args.reserved)))
		return -EINVAL;
	if (s->state != ISPOT_STATE_NEW)
		return -EBADFD;
	err = ispot_session_setup(s, &args);
	if (err)
		return err;
	return copy_to_user(uarg, &args, sizeof(args)) ? -EFAULT : 0;
}

static long ispot_ioc_probe_add(struct ispot_session *s, void __user *uarg)
{
	struct ispot_probe_add args;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.probe_id ||
	    ispot_reserved_nonzero(args.reserved, sizeof(args.reserved)))
		return -EINVAL;
	if (s->state != ISPOT_STATE_READY)
		return -EBADFD;
	err = ispot_probe_add(s, &args);
	if (err)
		return err;
	if (put_user(args.probe_id,
		     (__u32 __user *)(uarg + offsetof(struct ispot_probe_add,
						      probe_id)))) {
		ispot_probe_remove(s, args.probe_id);
		return -EFAULT;
	}
	return 0;
}

static long ispot_ioc_probe_remove(struct ispot_session *s, void __user *uarg)
{
	struct ispot_probe_remove args;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.reserved)
		return -EINVAL;
	if (s->state != ISPOT_STATE_READY)
		return -EBADFD;
	return ispot_probe_remove(s, args.probe_id);
}

static long ispot_ioc_enable(struct ispot_session *s)
{
	if (s->state != ISPOT_STATE_READY)
		return -EBADFD;
	return ispot_session_enable(s);
}

static long ispot_ioc_disable(struct ispot_session *s)
{
	if (s->state != ISPOT_STATE_ENABLED && s->state != ISPOT_STATE_DEAD)
		return -EBADFD;
	ispot_session_disable(s);
	return 0;
}

static long ispot_ioc_ring_consume(struct ispot_session *s, void __user *uarg)
{
	struct ispot_ring_consume args;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.reserved)
		return -EINVAL;
	if (s->state == ISPOT_STATE_NEW)
		return -EBADFD;
	if (args.cpu >= s->nr_rings)
		return -EINVAL;
	return ispot_ring_consume(s->rings[args.cpu], args.tail);
}

static long ispot_ioc_stats(struct ispot_session *s, void __user *uarg)
{
	struct ispot_stats args;
	struct ispot_probe *p;
	u32 i, n;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.stop_reason || args.state)
		return -EINVAL;

	n = min(args.nr_rings, s->nr_rings);
	for (i = 0; i < n; i++) {
		struct ispot_ring *r = s->rings[i];
		struct ispot_ring_stats st = {
			.produced = READ_ONCE(r->produced),
			.consumed = r->consumed,
			.dropped = READ_ONCE(r->dropped),
		};

		if (copy_to_user(u64_to_user_ptr(args.rings) + i * sizeof(st),
				 &st, sizeof(st)))
			return -EFAULT;
	}
	i = 0;
	list_for_each_entry(p, &s->probes, node) {
		struct ispot_probe_stats st;

		if (i >= args.nr_probes)
			break;
		ispot_probe_stats(p, &st);
		if (copy_to_user(u64_to_user_ptr(args.probes) + i * sizeof(st),
				 &st, sizeof(st)))
			return -EFAULT;
		i++;
	}
	args.nr_rings = s->nr_rings;
	args.nr_probes = s->nr_probes;
	args.state = s->state;
	return copy_to_user(uarg, &args, sizeof(args)) ? -EFAULT : 0;
}

static long ispot_ioc_counters(struct ispot_session *s, void __user *uarg)
{
	struct ispot_counters args;
	int err;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	err = ispot_counters_check(&args);
	if (err)
		return err;
	err = ispot_counters_set(s, &args);
	if (err)
		return err;
	if (copy_to_user(uarg, &args, sizeof(args))) {
		/* The caller cannot know which counters exist: none do. */
		if (!(args.flags & ISPOT_COUNTERS_TRY))
			ispot_counters_free(s);
		return -EFAULT;
	}
	return 0;
}

static long ispot_dev_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct ispot_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	if (cmd == ISPOT_IOC_GET_VERSION)
		return ispot_ioc_get_version(uarg);
	if (cmd == ISPOT_IOC_INFO)
		return ispot_ioc_info(uarg);

	mutex_lock(&s->lock);
	ispot_session_refresh_state(s);
	switch (cmd) {
	case ISPOT_IOC_SETUP:
		ret = ispot_ioc_setup(s, uarg);
		break;
	case ISPOT_IOC_PROBE_ADD:
		ret = ispot_ioc_probe_add(s, uarg);
		break;
	case ISPOT_IOC_PROBE_REMOVE:
		ret = ispot_ioc_probe_remove(s, uarg);
		break;
	case ISPOT_IOC_ENABLE:
		ret = ispot_ioc_enable(s);
		break;
	case ISPOT_IOC_DISABLE:
		ret = ispot_ioc_disable(s);
		break;
	case ISPOT_IOC_RING_CONSUME:
		ret = ispot_ioc_ring_consume(s, uarg);
		break;
	case ISPOT_IOC_STATS:
		ret = ispot_ioc_stats(s, uarg);
		break;
	case ISPOT_IOC_COUNTERS:
		ret = ispot_ioc_counters(s, uarg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	mutex_unlock(&s->lock);
	return ret;
}

/* Ring @cpu is mapped at offset cpu * ring_mmap_size, read-only. */
static int ispot_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ispot_session *s = file->private_data;
	unsigned long cpu;
	int err = -EINVAL;

	mutex_lock(&s->lock);
	if (s->state == ISPOT_STATE_NEW) {
		err = -EBADFD;
		goto out;
	}
	if (vma->vm_flags & VM_WRITE) {
		err = -EPERM;
		goto out;
	}
	if (vma->vm_end - vma->vm_start != s->ring_bytes ||
	    (vma->vm_pgoff << PAGE_SHIFT) % s->ring_bytes)
		goto out;
	cpu = (vma->vm_pgoff << PAGE_SHIFT) / s->ring_bytes;
	if (cpu >= s->nr_rings)
		goto out;
	ispot_vma_make_readonly(vma);
	err = ispot_ring_mmap(s->rings[cpu], vma);
out:
	mutex_unlock(&s->lock);
	return err;
}

static __poll_t ispot_dev_poll(struct file *file, poll_table *wait)
{
	struct ispot_session *s = file->private_data;
	__poll_t mask = 0;
	u32 i;

	poll_wait(file, &s->wq, wait);
	mutex_lock(&s->lock);
	ispot_session_refresh_state(s);
	for (i = 0; s->rings && i < s->nr_rings; i++)
		if (ispot_ring_readable(s->rings[i]))
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
 * World-accessible node: the module's own capability checks (open, SETUP)
 * decide, as for perf_event_open(), so that a CAP_PERFMON user can trace.
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
