// SPDX-License-Identifier: GPL-2.0
/*
 * ELF files: opening one, bounds-checked reads, link-time address to file
 * offset, and what a short object name designates.
 *
 * Files are read with pread() into private buffers rather than mmap()ed:
 * a mapped file that is truncated underneath us would SIGBUS, and only a
 * few sections (symbols, strings, versions, dynamic) are ever needed.
 * Every offset and size taken from the file is checked against the file
 * size before it is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "elf/elf_internal.h"
#include "util/path.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ELF_HOST_DATA	ELFDATA2LSB
#else
#define ELF_HOST_DATA	ELFDATA2MSB
#endif

/* Bounds that keep hostile files from making us allocate without limit. */
#define MAX_PHNUM		4096
#define MAX_SHNUM		(1u << 20)

int elf_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

void elf_copy_str(char *dst, size_t size, const char *src)
{
	size_t len;

	if (!size)
		return;
	len = strlen(src);
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

bool elf_obj_name_matches(const char *path, const char *obj)
{
	const char *b = path_base(path);
	size_t len = strlen(obj);

	if (!len || strncmp(b, obj, len))
		return false;
	return b[len] == '\0' || b[len] == '.' || b[len] == '-';
}

static const struct {
	const char *env;
	uint64_t dflt;		/* in units */
	uint64_t unit;		/* of the variable, and of messages */
	const char *what;	/* printf format of a count in units */
} limits[] = {
	[ELF_LIMIT_SYMBOLS] = { "ISPOT_ELF_MAX_SYMBOLS", ELF_MAX_SYMBOLS, 1,
				"%.0f symbols" },
	[ELF_LIMIT_STRTAB] = { "ISPOT_ELF_MAX_STRTAB_MB", ELF_MAX_STRTAB_MB,
			       1 << 20, "a string table of %.1f MB" },
	[ELF_LIMIT_READ] = { "ISPOT_ELF_MAX_READ_MB", ELF_MAX_READ_MB,
			     1 << 20, "%.1f MB of symbols to read" },
};

uint64_t elf_limit(enum elf_limit which)
{
	const char *v = getenv(limits[which].env);
	unsigned long long n = 0;
	char *end;

	if (v) {
		errno = 0;
		n = strtoull(v, &end, 10);
		if (errno || end == v || *end || *v == '-' ||
		    n > UINT64_MAX / limits[which].unit)
			n = 0;
	}
	return (n ? n : limits[which].dflt) * limits[which].unit;
}

int elf_over_limit(const char *path, enum elf_limit which, uint64_t have,
		   char *err, size_t errlen)
{
	char what[64];

	snprintf(what, sizeof(what), limits[which].what,
		 (double)have / limits[which].unit);
	return elf_fail(err, errlen, -E2BIG,
			"%s: %s, over the bound of %llu%s for one object (a corrupt or hostile file?); if it is genuine, set %s higher",
			path, what,
			(unsigned long long)(elf_limit(which) /
					     limits[which].unit),
			limits[which].unit > 1 ? " MB" : "", limits[which].env);
}

static bool past_user;

static void past_user_read(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	past_user = !geteuid() || syscall(SYS_capget, &h, d) ||
		    (d[0].effective & (1u << CAP_DAC_OVERRIDE |
				       1u << CAP_DAC_READ_SEARCH));
}

bool elf_reads_past_user(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, past_user_read);
	return past_user;
}

/* Whether [off, off + len) lies inside the file, without overflowing. */
static bool in_file(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

int elf_read_at(const struct elf_file *f, uint64_t off, void *buf,
		size_t len)
{
	char *p = buf;

	if (!in_file(f, off, len))
		return -ENOEXEC;
	while (len) {
		ssize_t r = pread(f->fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)	/* shrank since fstat() */
			return -ENOEXEC;
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

/*
 * Read len bytes at off into a new buffer with a NUL byte appended, so a
 * string table can be indexed without scanning for its terminator.
 */
int elf_read_dup(const struct elf_file *f, uint64_t off, uint64_t len,
		 char **out)
{
	char *buf;
	int rc;

	*out = NULL;
	if (!in_file(f, off, len) || len >= SIZE_MAX)
		return -ENOEXEC;
	if (len > elf_limit(ELF_LIMIT_READ))
		return -E2BIG;
	buf = malloc((size_t)len + 1);
	if (!buf)
		return -ENOMEM;
	rc = elf_read_at(f, off, buf, (size_t)len);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

void elf_file_close(struct elf_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->ph);
	free(f->sh);
	f->fd = -1;
	f->ph = NULL;
	f->sh = NULL;
}

int elf_check_ident(const unsigned char *id, const char *path,
		    char *err, size_t errlen)
{
	if (memcmp(id, ELFMAG, SELFMAG))
		return elf_fail(err, errlen, -ENOEXEC, "%s: not an ELF file",
				path);
	if (id[EI_CLASS] != ELFCLASS64)
		return elf_fail(err, errlen, -ENOEXEC,
				"%s: only 64-bit ELF is supported", path);
	if (id[EI_DATA] != ELF_HOST_DATA)
		return elf_fail(err, errlen, -ENOEXEC,
				"%s: ELF byte order differs from the host's",
				path);
	if (id[EI_VERSION] != EV_CURRENT)
		return elf_fail(err, errlen, -ENOEXEC,
				"%s: unknown ELF version %u", path,
				id[EI_VERSION]);
	return 0;
}

/* "truncated or corrupt ELF file (what)" as f's error. */
static int elf_corrupt(const struct elf_file *f, char *err, size_t errlen,
		       const char *what)
{
	return elf_fail(err, errlen, -ENOEXEC,
			"%s: truncated or corrupt ELF file (%s)", f->path,
			what);
}

/* What a file that is not a regular one is, for a message. */
static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "directory";
	case S_IFIFO:
		return "FIFO";
	case S_IFCHR:
		return "character device";
	case S_IFBLK:
		return "block device";
	case S_IFSOCK:
		return "socket";
	default:
		return "special file";
	}
}

/* -ENOEXEC (-EISDIR for a directory) unless st is a regular file. */
static int check_regular(const char *path, const struct stat *st,
			 char *err, size_t errlen)
{
	if (S_ISREG(st->st_mode))
		return 0;
	return elf_fail(err, errlen, S_ISDIR(st->st_mode) ? -EISDIR : -ENOEXEC,
			"%s is a %s, not an ELF file", path,
			file_kind(st->st_mode));
}

/*
 * Open the regular file that the O_PATH descriptor pfd stands for, through
 * /proc/self/fd, so that what is opened is what was checked; where /proc
 * is missing, path again (whatever it then is, open() cannot wait on it).
 */
static int reopen_checked(int pfd, const char *path)
{
	const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	char self[64];
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, flags);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, flags);
	return fd;
}

/* glibc names it from 2.32; the kernel's headers have the number. */
#ifndef SYS_openat2
#define SYS_openat2 __NR_openat2
#endif

/*
 * O_PATH of @path; with ELF_OPEN_NO_SYMLINKS, through no symbolic link
 * (openat2(); none where the kernel has no openat2, or a filter says no:
 * that caller wants no file rather than one a link chose).
 */
static int open_path(const char *path, unsigned int flags)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};

	if (!(flags & ELF_OPEN_NO_SYMLINKS))
		return open(path, O_PATH | O_CLOEXEC);
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

int elf_open_regular(const char *path, struct stat *st, char *err,
		     size_t errlen)
{
	return elf_open_regular_how(path, st, 0, err, errlen);
}

int elf_open_regular_how(const char *path, struct stat *st,
			 unsigned int flags, char *err, size_t errlen)
{
	struct stat pst, tmp;
	int pfd, fd, rc;

	if (!st)
		st = &tmp;
	/* O_PATH opens nothing: no FIFO is waited on, no device opened. */
	pfd = open_path(path, flags);
	if (pfd < 0)
		return elf_fail(err, errlen, -errno, "cannot open %s: %s", path,
				strerror(errno));
	rc = fstat(pfd, &pst) ? -errno : 0;
	if (!rc)
		rc = check_regular(path, &pst, err, errlen);
	else
		elf_fail(err, errlen, rc, "cannot stat %s: %s", path,
			 strerror(-rc));
	fd = rc ? -1 : reopen_checked(pfd, path);
	if (!rc && fd < 0)
		rc = elf_fail(err, errlen, -errno, "cannot open %s: %s", path,
			      strerror(errno));
	close(pfd);
	if (rc)
		return rc;
	if (fstat(fd, st)) {
		rc = elf_fail(err, errlen, -errno, "cannot stat %s: %s", path,
			      strerror(errno));
	} else {
		rc = check_regular(path, st, err, errlen);
		if (!rc && (st->st_dev != pst.st_dev ||
			    st->st_ino != pst.st_ino))
			rc = elf_fail(err, errlen, -ESTALE,
				      "%s changed while it was opened", path);
	}
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

/* Open path read-only and take its size: a regular file only. */
static int open_regular(struct elf_file *f, const char *path,
			unsigned int flags, char *err, size_t errlen)
{
	struct stat st;

	f->fd = elf_open_regular_how(path, &st, flags, err, errlen);
	if (f->fd < 0)
		return f->fd;
	f->size = (uint64_t)st.st_size;
	f->dev = (uint64_t)st.st_dev;
	f->ino = (uint64_t)st.st_ino;
	return 0;
}

/* The ELF header: a native executable or shared object. */
static int read_ehdr(struct elf_file *f, char *err, size_t errlen)
{
	const char *path = f->path;
	int rc;

	if (f->size < SELFMAG)
		return elf_fail(err, errlen, -ENOEXEC, "%s: not an ELF file",
				path);
	if (f->size < sizeof(f->eh)) {
		/* Distinguish "text file" from "cut-off ELF header". */
		unsigned char id[SELFMAG];

		rc = elf_read_at(f, 0, id, sizeof(id));
		if (!rc && memcmp(id, ELFMAG, SELFMAG))
			return elf_fail(err, errlen, -ENOEXEC,
					"%s: not an ELF file", path);
		return elf_fail(err, errlen, -ENOEXEC,
				"%s: truncated ELF header", path);
	}
	rc = elf_read_at(f, 0, &f->eh, sizeof(f->eh));
	if (rc)
		return elf_fail(err, errlen, rc, "%s: cannot read ELF header",
				path);
	rc = elf_check_ident(f->eh.e_ident, path, err, errlen);
	if (rc)
		return rc;
	if (f->eh.e_type != ET_EXEC && f->eh.e_type != ET_DYN)
		return elf_fail(err, errlen, -ENOEXEC,
				"%s: not an executable or shared object (e_type %u)",
				path, f->eh.e_type);
	return 0;
}

/* size bytes at off, checked to be in the file, into a new *out. */
static int read_table(const struct elf_file *f, uint64_t off, uint64_t size,
		      void **out, const char *what, char *err, size_t errlen)
{
	char why[64];
	int rc;

	if (!in_file(f, off, size)) {
		snprintf(why, sizeof(why), "%s past end of file", what);
		return elf_corrupt(f, err, errlen, why);
	}
	*out = malloc(size ? size : 1);
	if (!*out)
		return elf_fail(err, errlen, -ENOMEM, "out of memory");
	rc = elf_read_at(f, off, *out, size);
	if (rc)
		return elf_fail(err, errlen, rc, "%s: cannot read %s", f->path,
				what);
	return 0;
}

/* Section headers; section 0 holds the real count on overflow. */
static int read_shdrs(struct elf_file *f, char *err, size_t errlen)
{
	Elf64_Shdr sh0;
	uint64_t shsz;

	if (!f->eh.e_shoff)
		return 0;
	if (f->eh.e_shentsize != sizeof(Elf64_Shdr))
		return elf_corrupt(f, err, errlen, "bad e_shentsize");
	if (elf_read_at(f, f->eh.e_shoff, &sh0, sizeof(sh0)))
		return elf_corrupt(f, err, errlen,
				   "section headers past end of file");
	f->shnum = f->eh.e_shnum ? f->eh.e_shnum : sh0.sh_size;
	if (f->shnum > MAX_SHNUM)
		return elf_corrupt(f, err, errlen, "too many sections");
	shsz = (uint64_t)f->shnum * sizeof(Elf64_Shdr);
	return read_table(f, f->eh.e_shoff, shsz, (void **)&f->sh,
			  "section headers", err, errlen);
}

/* Program headers; their count may be in section 0 (PN_XNUM). */
static int read_phdrs(struct elf_file *f, char *err, size_t errlen)
{
	uint64_t phsz;

	f->phnum = f->eh.e_phnum;
	if (f->phnum == PN_XNUM)
		f->phnum = f->shnum ? f->sh[0].sh_info : 0;
	if (f->phnum > MAX_PHNUM)
		return elf_corrupt(f, err, errlen, "too many program headers");
	if (!f->phnum)
		return 0;
	if (f->eh.e_phentsize != sizeof(Elf64_Phdr))
		return elf_corrupt(f, err, errlen, "bad e_phentsize");
	phsz = (uint64_t)f->phnum * sizeof(Elf64_Phdr);
	return read_table(f, f->eh.e_phoff, phsz, (void **)&f->ph,
			  "program headers", err, errlen);
}

/*
 * Validate loadable segments once so that address translation can trust
 * them: file part inside the file, no wrap-around.
 */
static int check_load_segments(const struct elf_file *f, char *err,
			       size_t errlen)
{
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_filesz > ph->p_memsz ||
		    ph->p_vaddr + ph->p_memsz < ph->p_vaddr)
			return elf_corrupt(f, err, errlen,
					   "bad PT_LOAD segment");
		if (!in_file(f, ph->p_offset, ph->p_filesz))
			return elf_corrupt(f, err, errlen,
					   "PT_LOAD segment past end of file");
	}
	return 0;
}

int elf_file_open(struct elf_file *f, const char *path,
		  char *err, size_t errlen)
{
	return elf_file_open_how(f, path, 0, err, errlen);
}

int elf_file_open_how(struct elf_file *f, const char *path,
		      unsigned int flags, char *err, size_t errlen)
{
	int rc;

	memset(f, 0, sizeof(*f));
	f->path = path;
	rc = open_regular(f, path, flags, err, errlen);
	if (!rc)
		rc = read_ehdr(f, err, errlen);
	if (!rc)
		rc = read_shdrs(f, err, errlen);
	if (!rc)
		rc = read_phdrs(f, err, errlen);
	if (!rc)
		rc = check_load_segments(f, err, errlen);
	if (rc)
		elf_file_close(f);
	return rc;
}

const Elf64_Phdr *elf_vaddr_segment(const struct elf_file *f,
				    uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];

		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr - ph->p_vaddr < ph->p_memsz)
			return ph;
	}
	return NULL;
}

int elf_vaddr_to_offset(const struct elf_file *f, uint64_t vaddr,
			bool need_exec, uint64_t *off)
{
	const Elf64_Phdr *ph = elf_vaddr_segment(f, vaddr);

	if (!ph)
		return -ENOENT;
	if (vaddr - ph->p_vaddr >= ph->p_filesz)
		return -ERANGE;
	if (need_exec && !(ph->p_flags & PF_X))
		return -EPERM;
	*off = ph->p_offset + (vaddr - ph->p_vaddr);
	return 0;
}

const char *elf_offset_error(int rc)
{
	switch (rc) {
	case -EPERM:
		return "is not in an executable segment";
	case -ERANGE:
		return "is not backed by the file";
	default:
		return "is in no loadable segment";
	}
}

long elf_section_by_name(const struct elf_file *f, const char *name)
{
	const Elf64_Shdr *strsh;
	size_t len = strlen(name), i;
	char *buf;
	long found = -1;

	if (!f->shnum || f->eh.e_shstrndx == SHN_UNDEF ||
	    f->eh.e_shstrndx >= f->shnum)
		return -1;
	strsh = &f->sh[f->eh.e_shstrndx];
	if (strsh->sh_type != SHT_STRTAB ||
	    strsh->sh_size > elf_limit(ELF_LIMIT_STRTAB) ||
	    elf_read_dup(f, strsh->sh_offset, strsh->sh_size, &buf))
		return -1;
	for (i = 1; i < f->shnum && found < 0; i++) {
		uint64_t off = f->sh[i].sh_name;

		if (off < strsh->sh_size && strsh->sh_size - off > len &&
		    !memcmp(buf + off, name, len + 1))
			found = (long)i;
	}
	free(buf);
	return found;
}
