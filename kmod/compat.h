/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel versions ispot.ko supports (6.1 to
 * 7.x) lives here, so the rest of the module reads as one version.
 *
 * uprobes:
 *   6.1   int uprobe_register(inode, offset, uc);
 *         void uprobe_unregister(inode, offset, uc);  (synchronous)
 *         filter(uc, enum uprobe_filter_ctx, mm)
 *   6.12  struct uprobe *uprobe_register(inode, offset, ref_ctr, uc);
 *         uprobe_unregister_nosync(uprobe, uc) + uprobe_unregister_sync()
 *         filter(uc, mm)
 *   6.13  handler(uc, regs, __u64 *data), ret_handler(uc, func, regs, data)
 */
#ifndef ISPOT_COMPAT_H
#define ISPOT_COMPAT_H

#include <linux/mm.h>
#include <linux/uprobes.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define ISPOT_UPROBE_HANDLER(fn)					\
	int fn(struct uprobe_consumer *uc, struct pt_regs *regs, __u64 *data)
#define ISPOT_URETPROBE_HANDLER(fn)					\
	int fn(struct uprobe_consumer *uc, unsigned long func,		\
	       struct pt_regs *regs, __u64 *data)
#else
#define ISPOT_UPROBE_HANDLER(fn)					\
	int fn(struct uprobe_consumer *uc, struct pt_regs *regs)
#define ISPOT_URETPROBE_HANDLER(fn)					\
	int fn(struct uprobe_consumer *uc, unsigned long func,		\
	       struct pt_regs *regs)
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define ISPOT_UPROBE_FILTER(fn)						\
	bool fn(struct uprobe_consumer *uc, struct mm_struct *mm)
#else
#define ISPOT_UPROBE_FILTER(fn)						\
	bool fn(struct uprobe_consumer *uc, enum uprobe_filter_ctx ctx,	\
		struct mm_struct *mm)
#endif

/* Register @uc at @inode:@offset; on 6.12+ *@handle receives the uprobe. */
static inline int ispot_uprobe_register(struct inode *inode, loff_t offset,
					struct uprobe_consumer *uc,
					struct uprobe **handle)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	struct uprobe *u = uprobe_register(inode, offset, 0, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	*handle = u;
	return 0;
#else
	*handle = NULL;
	return uprobe_register(inode, offset, uc);
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

/* The rings are read-only for the reader, and mprotect must not change it. */
static inline void ispot_vma_make_readonly(struct vm_area_struct *vma)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
}

#endif /* ISPOT_COMPAT_H */
