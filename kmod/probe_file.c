// SPDX-License-Identifier: GPL-2.0
/*
 * Which file, and which offsets in it, a probe may be planted on.
 *
 * The object is opened as the caller (a path it cannot open, or an fd it
 * cannot read, fails here as it would for the caller itself), must be a
 * regular file, and must be an ELF64 file whose probed offset lies in an
 * executable PT_LOAD; a USDT semaphore must be a short the kernel can
 * count both ways.  Nothing here runs in a handler: it sleeps, reads the
 * file and allocates, before the session lock is taken.
 */
#include <linux/dcache.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ispot_internal.h"

/* Whether [@offset, @offset + @len) lies in the file-backed part of @ph. */
static bool ispot_phdr_holds(const struct elf64_phdr *ph, u64 offset, u64 len)
{
	return ph->p_type == PT_LOAD && offset >= ph->p_offset &&
	       offset - ph->p_offset < ph->p_filesz &&
	       ph->p_filesz - (offset - ph->p_offset) >= len;
}

/*
 * A semaphore at @off is a short the kernel will write in the target: it
 * must lie in the file-backed part of a writable, non-executable PT_LOAD
 * (the kernel updates it only in a private writable mapping of the file,
 * valid_ref_ctr_vma(), and in code it would be a write into instructions),
 * and outside PT_GNU_RELRO.  The dynamic loader makes that range read-only
 * after relocation: a count raised before (a probe armed before the object
 * was mapped is counted at mmap time) could then never be taken back, and
 * would stay in .got, .dynamic or .init_array.
 */
static bool ispot_semaphore_ok(const struct elf64_phdr *phdrs, int n, u64 off)
{
	bool in_data = false;
	int i;

	for (i = 0; i < n; i++) {
		const struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type == PT_GNU_RELRO &&
		    (off < ph->p_offset ? ph->p_offset - off < sizeof(short) :
					  off - ph->p_offset < ph->p_memsz))
			return false;
		if ((ph->p_flags & (PF_W | PF_X)) == PF_W &&
		    ispot_phdr_holds(ph, off, sizeof(short)))
			in_data = true;
	}
	return in_data;
}

/*
 * The offset must fall inside an executable PT_LOAD segment of an ELF
 * file: anything else would plant a breakpoint in data or in nothing.  A
 * semaphore (@ref_ctr_offset, 0 for none) must be a 2-byte aligned short
 * where ispot_semaphore_ok() says the kernel can count it both ways.
 */
static int ispot_probe_check_offsets(struct file *file, u64 offset,
				     u64 ref_ctr_offset)
{
	loff_t size = i_size_read(file_inode(file));
	struct elf64_phdr *phdrs;
	struct elf64_hdr ehdr;
	loff_t pos = 0;
	size_t bytes;
	int i, err;

	if (offset >= size || !IS_ALIGNED(ref_ctr_offset, sizeof(short)) ||
	    (ref_ctr_offset &&
	     (size < sizeof(short) || ref_ctr_offset > size - sizeof(short))))
		return -EINVAL;
	if (kernel_read(file, &ehdr, sizeof(ehdr), &pos) != sizeof(ehdr) ||
	    memcmp(ehdr.e_ident, ELFMAG, SELFMAG) ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_phentsize != sizeof(struct elf64_phdr) ||
	    !ehdr.e_phnum || ehdr.e_phnum > 128)
		return -ENOEXEC;

	bytes = ehdr.e_phnum * sizeof(*phdrs);
	phdrs = kmalloc(bytes, GFP_KERNEL);
	if (!phdrs)
		return -ENOMEM;
	pos = ehdr.e_phoff;
	err = -ENOEXEC;
	if (kernel_read(file, phdrs, bytes, &pos) != bytes)
		goto out_free;

	err = -EINVAL;
	for (i = 0; i < ehdr.e_phnum; i++) {
		if ((phdrs[i].p_flags & PF_X) &&
		    ispot_phdr_holds(&phdrs[i], offset, 1)) {
			err = 0;
			break;
		}
	}
	if (!err && ref_ctr_offset &&
	    !ispot_semaphore_ok(phdrs, ehdr.e_phnum, ref_ctr_offset))
		err = -EINVAL;
out_free:
	kfree(phdrs);
	return err;
}

/* -EISDIR for a directory, -EINVAL for anything else but a regular file. */
static int ispot_probe_file_type(umode_t mode)
{
	if (S_ISDIR(mode))
		return -EISDIR;
	return S_ISREG(mode) ? 0 : -EINVAL;
}

/*
 * The probed object, opened for reading as the caller: an fd it passes
 * must be readable (kernel_read() warns on one that is not), and a path is
 * looked at before it is opened, so that a FIFO or a device is never
 * opened (O_NONBLOCK covers one swapped in between).
 */
static struct file *ispot_probe_open(struct ispot_probe_add *args)
{
	struct file *file;
	struct path p;
	char *name;
	int err;

	if (args->fd >= 0) {
		file = fget(args->fd);
		if (!file)
			return ERR_PTR(-EBADF);
		if (!(file->f_mode & FMODE_READ)) {
			fput(file);
			return ERR_PTR(-EBADF);
		}
		return file;
	}
	if (args->fd != -1)
		return ERR_PTR(-EBADF);

	name = strndup_user(u64_to_user_ptr(args->path), PATH_MAX);
	if (IS_ERR(name))
		return ERR_CAST(name);
	err = kern_path(name, LOOKUP_FOLLOW, &p);
	if (!err) {
		err = ispot_probe_file_type(d_inode(p.dentry)->i_mode);
		path_put(&p);
	}
	file = err ? ERR_PTR(err) :
	       filp_open(name, O_RDONLY | O_LARGEFILE | O_NONBLOCK, 0);
	kfree(name);
	return file;
}

/*
 * The file @args names, opened for reading and checked: a regular file
 * (again, on the file opened: an fd, or a path swapped since the look),
 * with the offsets of @args where a breakpoint and a semaphore may go.
 */
struct file *ispot_probe_file_open(struct ispot_probe_add *args)
{
	struct file *file;
	int err;

	file = ispot_probe_open(args);
	if (IS_ERR(file))
		return file;
	err = ispot_probe_file_type(file_inode(file)->i_mode);
	if (err)
		goto err_put_file;
	err = ispot_probe_check_offsets(file, args->offset,
					args->ref_ctr_offset);
	if (err)
		goto err_put_file;
	return file;

err_put_file:
	fput(file);
	return ERR_PTR(err);
}
