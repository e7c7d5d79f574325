// SPDX-License-Identifier: GPL-2.0
/*
 * ELF symbol resolution: function specs to uprobe file offsets, and
 * runtime addresses back to symbol names.  See elf.h for the contract.
 *
 * Files are read with pread() into private buffers rather than mmap()ed:
 * a mapped file that is truncated underneath us would SIGBUS, and only a
 * few sections (symbols, strings, versions, dynamic) are ever needed.
 * Every offset and size taken from the file is checked against the file
 * size before it is used.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ispot's own elf.h; with -Iuser the <elf.h> above is it too (see there). */
#include "elf.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ELF_HOST_DATA	ELFDATA2LSB
#else
#define ELF_HOST_DATA	ELFDATA2MSB
#endif

/* Bounds that keep hostile files from making us allocate without limit. */
#define MAX_PHNUM		4096
#define MAX_SHNUM		(1u << 20)
#define MAX_LDCACHE_SIZE	(64u << 20)
#define MAX_NEEDED_OBJS		512
#define MAX_SUGGEST		3

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* strlcpy(): fixed-size fields are filled by truncation, never overrun. */
static void copy_str(char *dst, size_t size, const char *src)
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

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ------------------------------------------------------------------ */
/* Reading the file                                                    */
/* ------------------------------------------------------------------ */

struct elf_file {
	int fd;
	uint64_t size;
	const char *path;	/* for messages; owned by the caller */
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	size_t phnum;
	Elf64_Shdr *sh;
	size_t shnum;
};

/* Whether [off, off + len) lies inside the file, without overflowing. */
static bool in_file(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static int read_at(const struct elf_file *f, uint64_t off, void *buf,
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
static int read_dup(const struct elf_file *f, uint64_t off, uint64_t len,
		    char **out)
{
	char *buf;
	int rc;

	*out = NULL;
	if (!in_file(f, off, len) || len >= SIZE_MAX)
		return -ENOEXEC;
	buf = malloc((size_t)len + 1);
	if (!buf)
		return -ENOMEM;
	rc = read_at(f, off, buf, (size_t)len);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static void elf_file_close(struct elf_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->ph);
	free(f->sh);
	f->fd = -1;
	f->ph = NULL;
	f->sh = NULL;
}

static int check_ident(const unsigned char *id, const char *path,
		       char *err, size_t errlen)
{
	if (memcmp(id, ELFMAG, SELFMAG))
		return fail(err, errlen, -ENOEXEC, "%s: not an ELF file", path);
	if (id[EI_CLASS] != ELFCLASS64)
		return fail(err, errlen, -ENOEXEC,
			    "%s: only 64-bit ELF is supported", path);
	if (id[EI_DATA] != ELF_HOST_DATA)
		return fail(err, errlen, -ENOEXEC,
			    "%s: ELF byte order differs from the host's", path);
	if (id[EI_VERSION] != EV_CURRENT)
		return fail(err, errlen, -ENOEXEC,
			    "%s: unknown ELF version %u", path, id[EI_VERSION]);
	return 0;
}

static int elf_file_open(struct elf_file *f, const char *path,
			 char *err, size_t errlen)
{
	const char *corrupt = NULL;
	struct stat st;
	uint64_t phsz, shsz;
	int rc;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->path = path;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return fail(err, errlen, -errno, "cannot open %s: %s", path,
			    strerror(errno));
	if (fstat(f->fd, &st)) {
		rc = -errno;
		fail(err, errlen, rc, "cannot stat %s: %s", path,
		     strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = fail(err, errlen, -EISDIR, "%s: is a directory", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = fail(err, errlen, -ENOEXEC, "%s: not a regular file",
			  path);
		goto out;
	}
	f->size = (uint64_t)st.st_size;

	if (f->size < SELFMAG) {
		rc = fail(err, errlen, -ENOEXEC, "%s: not an ELF file", path);
		goto out;
	}
	if (f->size < sizeof(f->eh)) {
		/* Distinguish "text file" from "cut-off ELF header". */
		unsigned char id[SELFMAG];

		rc = read_at(f, 0, id, sizeof(id));
		if (!rc && memcmp(id, ELFMAG, SELFMAG))
			rc = fail(err, errlen, -ENOEXEC,
				  "%s: not an ELF file", path);
		else
			rc = fail(err, errlen, -ENOEXEC,
				  "%s: truncated ELF header", path);
		goto out;
	}
	rc = read_at(f, 0, &f->eh, sizeof(f->eh));
	if (rc) {
		fail(err, errlen, rc, "%s: cannot read ELF header", path);
		goto out;
	}
	rc = check_ident(f->eh.e_ident, path, err, errlen);
	if (rc)
		goto out;
	if (f->eh.e_type != ET_EXEC && f->eh.e_type != ET_DYN) {
		rc = fail(err, errlen, -ENOEXEC,
			  "%s: not an executable or shared object (e_type %u)",
			  path, f->eh.e_type);
		goto out;
	}

	/* Section headers; section 0 holds the real counts on overflow. */
	if (f->eh.e_shoff) {
		Elf64_Shdr sh0;

		if (f->eh.e_shentsize != sizeof(Elf64_Shdr)) {
			corrupt = "bad e_shentsize";
			goto bad;
		}
		if (read_at(f, f->eh.e_shoff, &sh0, sizeof(sh0))) {
			corrupt = "section headers past end of file";
			goto bad;
		}
		f->shnum = f->eh.e_shnum ? f->eh.e_shnum : sh0.sh_size;
		if (f->shnum > MAX_SHNUM) {
			corrupt = "too many sections";
			goto bad;
		}
		shsz = (uint64_t)f->shnum * sizeof(Elf64_Shdr);
		if (!in_file(f, f->eh.e_shoff, shsz)) {
			corrupt = "section headers past end of file";
			goto bad;
		}
		f->sh = malloc(shsz ? shsz : 1);
		if (!f->sh) {
			rc = fail(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
		rc = read_at(f, f->eh.e_shoff, f->sh, shsz);
		if (rc) {
			fail(err, errlen, rc, "%s: cannot read section headers",
			     path);
			goto out;
		}
	}

	f->phnum = f->eh.e_phnum;
	if (f->phnum == PN_XNUM)
		f->phnum = f->shnum ? f->sh[0].sh_info : 0;
	if (f->phnum > MAX_PHNUM) {
		corrupt = "too many program headers";
		goto bad;
	}
	if (f->phnum) {
		if (f->eh.e_phentsize != sizeof(Elf64_Phdr)) {
			corrupt = "bad e_phentsize";
			goto bad;
		}
		phsz = (uint64_t)f->phnum * sizeof(Elf64_Phdr);
		if (!in_file(f, f->eh.e_phoff, phsz)) {
			corrupt = "program headers past end of file";
			goto bad;
		}
		f->ph = malloc(phsz);
		if (!f->ph) {
			rc = fail(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
		rc = read_at(f, f->eh.e_phoff, f->ph, phsz);
		if (rc) {
			fail(err, errlen, rc, "%s: cannot read program headers",
			     path);
			goto out;
		}
	}

	/*
	 * Validate loadable segments once so that address translation can
	 * trust them: file part inside the file, no wrap-around.
	 */
	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_filesz > ph->p_memsz ||
		    ph->p_vaddr + ph->p_memsz < ph->p_vaddr) {
			corrupt = "bad PT_LOAD segment";
			goto bad;
		}
		if (!in_file(f, ph->p_offset, ph->p_filesz)) {
			corrupt = "PT_LOAD segment past end of file";
			goto bad;
		}
	}
	return 0;

bad:
	rc = fail(err, errlen, -ENOEXEC,
		  "%s: truncated or corrupt ELF file (%s)", path, corrupt);
out:
	elf_file_close(f);
	return rc;
}

/*
 * Translate a link-time address to a file offset through the PT_LOAD that
 * contains it.  -ENOENT: in no segment; -ERANGE: in the zero-filled tail
 * (.bss), not backed by the file; -EPERM: segment is not executable and
 * need_exec was asked for.
 */
static int vaddr_to_offset(const struct elf_file *f, uint64_t vaddr,
			   bool need_exec, uint64_t *off)
{
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];
		uint64_t delta;

		if (ph->p_type != PT_LOAD || vaddr < ph->p_vaddr)
			continue;
		delta = vaddr - ph->p_vaddr;
		if (delta >= ph->p_memsz)
			continue;
		if (delta >= ph->p_filesz)
			return -ERANGE;
		if (need_exec && !(ph->p_flags & PF_X))
			return -EPERM;
		*off = ph->p_offset + delta;
		return 0;
	}
	return -ENOENT;
}

/* ------------------------------------------------------------------ */
/* Symbols                                                             */
/* ------------------------------------------------------------------ */

struct esym {
	const char *name;	/* base name, without any @version */
	const char *ver;	/* version name or NULL */
	uint64_t value;
	uint64_t size;
	uint16_t shndx;
	unsigned char type;
	unsigned char bind;
	bool hidden;		/* non-default version: name@ver */
	bool owned;		/* name was malloc'd (split from name@ver) */
};

struct elf_obj {
	struct elf_file f;
	char *bufs[4];		/* string tables the names point into */
	size_t nbufs;
	struct esym *syms;	/* sorted by (value, name) */
	size_t nsyms;
	uint64_t max_size;	/* largest st_size, bounds address lookup */
	bool has_symtab;
	bool has_dynsym;
};

static bool is_func(const struct esym *s)
{
	return s->type == STT_FUNC || s->type == STT_GNU_IFUNC;
}

static void elf_obj_free(struct elf_obj *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->nsyms; i++)
		if (o->syms[i].owned)
			free((char *)o->syms[i].name);
	free(o->syms);
	for (i = 0; i < o->nbufs; i++)
		free(o->bufs[i]);
	elf_file_close(&o->f);
	free(o);
}

static int keep_buf(struct elf_obj *o, char *buf)
{
	if (o->nbufs == sizeof(o->bufs) / sizeof(o->bufs[0])) {
		free(buf);
		return -ENOMEM;
	}
	o->bufs[o->nbufs++] = buf;
	return 0;
}

/* The first section of a type, or -1. */
static long find_section(const struct elf_file *f, uint32_t type)
{
	size_t i;

	for (i = 1; i < f->shnum; i++)
		if (f->sh[i].sh_type == type)
			return (long)i;
	return -1;
}

/* Load the string table section idx links to. */
static int load_strtab(struct elf_obj *o, uint32_t link, char **str,
		       uint64_t *strsz)
{
	const Elf64_Shdr *sh;
	char *buf;
	int rc;

	if (link == 0 || link >= o->f.shnum)
		return -ENOEXEC;
	sh = &o->f.sh[link];
	if (sh->sh_type != SHT_STRTAB)
		return -ENOEXEC;
	rc = read_dup(&o->f, sh->sh_offset, sh->sh_size, &buf);
	if (rc)
		return rc;
	rc = keep_buf(o, buf);
	if (rc)
		return rc;
	*str = buf;
	*strsz = sh->sh_size;
	return 0;
}

/*
 * Version names of a .gnu.version_d section, indexed by vd_ndx.  Entries
 * are walked by their vd_next/vd_aux links, each checked against the
 * section bounds; a loop in the links is cut off by sh_info and by the
 * byte count.
 */
static int load_verdef(struct elf_obj *o, const char ***names, size_t *nnames)
{
	const Elf64_Shdr *sh;
	const char **v = NULL;
	uint64_t strsz, off = 0;
	size_t nv = 0, count;
	char *buf = NULL, *str;
	long idx;
	int rc;

	*names = NULL;
	*nnames = 0;
	idx = find_section(&o->f, SHT_GNU_verdef);
	if (idx < 0)
		return 0;
	sh = &o->f.sh[idx];
	rc = load_strtab(o, sh->sh_link, &str, &strsz);
	if (rc)
		return rc;
	rc = read_dup(&o->f, sh->sh_offset, sh->sh_size, &buf);
	if (rc)
		return rc;

	for (count = 0; count < sh->sh_info; count++) {
		Elf64_Verdef vd;
		Elf64_Verdaux va;

		rc = -ENOEXEC;
		if (off > sh->sh_size || sh->sh_size - off < sizeof(vd))
			goto out;
		memcpy(&vd, buf + off, sizeof(vd));
		if (vd.vd_version != VER_DEF_CURRENT)
			goto out;
		if (vd.vd_cnt && !(vd.vd_flags & VER_FLG_BASE)) {
			uint64_t aoff = off + vd.vd_aux;

			if (aoff > sh->sh_size ||
			    sh->sh_size - aoff < sizeof(va))
				goto out;
			memcpy(&va, buf + aoff, sizeof(va));
			if (va.vda_name >= strsz)
				goto out;
			if ((size_t)(vd.vd_ndx & 0x7fff) >= nv) {
				size_t nn = (vd.vd_ndx & 0x7fff) + 1;
				const char **t = realloc(v, nn * sizeof(*v));

				rc = -ENOMEM;
				if (!t)
					goto out;
				memset(t + nv, 0, (nn - nv) * sizeof(*v));
				v = t;
				nv = nn;
			}
			v[vd.vd_ndx & 0x7fff] = str + va.vda_name;
		}
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
	rc = 0;
	*names = v;
	*nnames = nv;
	v = NULL;
out:
	free(v);
	free(buf);
	return rc;
}

/*
 * Add the defined symbols of one symbol table section to o->syms.  For
 * .dynsym, version names come from .gnu.version/.gnu.version_d; .symtab
 * spells them into the name ("foo@V1", "foo@@V2"), which is split here so
 * both tables describe a symbol the same way.
 */
static int load_symbols(struct elf_obj *o, uint32_t type)
{
	const char **vernames = NULL;
	uint16_t *versym = NULL;
	Elf64_Sym *raw = NULL;
	const Elf64_Shdr *sh;
	size_t nraw, nvernames = 0, nversym = 0, i;
	uint64_t strsz, entsz;
	struct esym *t;
	char *str, *tmp;
	long idx;
	int rc;

	idx = find_section(&o->f, type);
	if (idx < 0)
		return 0;
	sh = &o->f.sh[idx];
	entsz = sh->sh_entsize ? sh->sh_entsize : sizeof(Elf64_Sym);
	if (entsz != sizeof(Elf64_Sym))
		return -ENOEXEC;
	rc = load_strtab(o, sh->sh_link, &str, &strsz);
	if (rc)
		return rc;
	nraw = sh->sh_size / sizeof(Elf64_Sym);
	rc = read_dup(&o->f, sh->sh_offset, nraw * sizeof(Elf64_Sym), &tmp);
	if (rc)
		return rc;
	raw = (Elf64_Sym *)tmp;

	if (type == SHT_DYNSYM) {
		long vi = find_section(&o->f, SHT_GNU_versym);

		if (vi >= 0 && o->f.sh[vi].sh_link == (uint64_t)idx) {
			const Elf64_Shdr *vs = &o->f.sh[vi];

			nversym = vs->sh_size / sizeof(uint16_t);
			rc = read_dup(&o->f, vs->sh_offset,
				      nversym * sizeof(uint16_t), &tmp);
			if (rc)
				goto out;
			versym = (uint16_t *)tmp;
			rc = load_verdef(o, &vernames, &nvernames);
			if (rc)
				goto out;
		}
		o->has_dynsym = nraw > 1;
	} else {
		o->has_symtab = nraw > 1;
	}

	t = realloc(o->syms, (o->nsyms + nraw) * sizeof(*t) + 1);
	rc = -ENOMEM;
	if (!t)
		goto out;
	o->syms = t;

	for (i = 1; i < nraw; i++) {
		const Elf64_Sym *s = &raw[i];
		struct esym *e = &o->syms[o->nsyms];
		unsigned char st = ELF64_ST_TYPE(s->st_info);
		const char *name, *at;

		if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS)
			continue;
		if (st != STT_FUNC && st != STT_GNU_IFUNC &&
		    st != STT_OBJECT && st != STT_NOTYPE)
			continue;
		if (s->st_name == 0 || s->st_name >= strsz)
			continue;
		name = str + s->st_name;

		memset(e, 0, sizeof(*e));
		e->name = name;
		e->value = s->st_value;
		e->size = s->st_size;
		e->shndx = s->st_shndx;
		e->type = st;
		e->bind = ELF64_ST_BIND(s->st_info);

		at = strchr(name, '@');
		if (at && at != name) {
			/* String tables share suffixes: copy, don't cut. */
			e->name = strndup(name, (size_t)(at - name));
			if (!e->name)
				goto out;
			e->owned = true;
			e->ver = at + (at[1] == '@' ? 2 : 1);
			e->hidden = at[1] != '@';
			if (!*e->ver) {
				e->ver = NULL;
				e->hidden = false;
			}
		} else if (versym && i < nversym) {
			uint16_t vi = versym[i] & 0x7fff;

			/* 0 is local, 1 the unversioned global. */
			if (vi >= 2 && vi < nvernames && vernames[vi]) {
				e->ver = vernames[vi];
				e->hidden = versym[i] & 0x8000;
			}
		}
		if (e->size > o->max_size)
			o->max_size = e->size;
		o->nsyms++;
	}
	rc = 0;
out:
	free(vernames);
	free(versym);
	free(raw);
	return rc;
}

static int ver_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int esym_cmp(const void *pa, const void *pb)
{
	const struct esym *a = pa, *b = pb;
	int c;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	c = ver_cmp(a->ver, b->ver);
	if (c)
		return c;
	return (int)a->hidden - (int)b->hidden;
}

/*
 * .symtab and .dynsym overlap: keep one entry per (address, name,
 * version).  A versionless copy of a name that also exists with a version
 * at the same address (bar in .symtab, bar@@V2 in .dynsym) is the same
 * symbol and goes too.
 */
static void dedupe_symbols(struct elf_obj *o)
{
	size_t i, j, k = 0;

	qsort(o->syms, o->nsyms, sizeof(*o->syms), esym_cmp);
	for (i = 0; i < o->nsyms; i = j) {
		const struct esym *first = &o->syms[i];
		bool any_ver = false;

		for (j = i; j < o->nsyms && o->syms[j].value == first->value &&
		     !strcmp(o->syms[j].name, first->name); j++)
			any_ver |= o->syms[j].ver != NULL;
		for (size_t m = i; m < j; m++) {
			struct esym *s = &o->syms[m];
			bool drop = (any_ver && !s->ver) ||
				    (k && !esym_cmp(&o->syms[k - 1], s));

			/* Keep the stronger type if copies disagree. */
			if (drop && k && !esym_cmp(&o->syms[k - 1], s) &&
			    s->type == STT_GNU_IFUNC)
				o->syms[k - 1].type = STT_GNU_IFUNC;
			if (drop) {
				if (s->owned)
					free((char *)s->name);
				continue;
			}
			o->syms[k++] = *s;
		}
	}
	o->nsyms = k;
}

static int elf_obj_load(const char *path, struct elf_obj **out,
			char *err, size_t errlen)
{
	struct elf_obj *o;
	int rc;

	*out = NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return fail(err, errlen, -ENOMEM, "out of memory");
	rc = elf_file_open(&o->f, path, err, errlen);
	if (rc) {
		free(o);
		return rc;
	}
	rc = load_symbols(o, SHT_SYMTAB);
	if (!rc)
		rc = load_symbols(o, SHT_DYNSYM);
	if (rc) {
		if (rc == -ENOMEM)
			fail(err, errlen, rc, "out of memory");
		else
			fail(err, errlen, rc,
			     "%s: truncated or corrupt ELF file (symbols)",
			     path);
		elf_obj_free(o);
		return rc;
	}
	dedupe_symbols(o);
	*out = o;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

/* Order for elf_pick_name(): < 0 when a is the better display name. */
static int name_pref(const char *a, const char *b)
{
	bool ua = a[0] == '_', ub = b[0] == '_';
	size_t la, lb;

	if (ua != ub)
		return ua ? 1 : -1;
	la = strlen(a);
	lb = strlen(b);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a, b);
}

size_t elf_pick_name(const char *const *names, size_t n)
{
	size_t best = 0, i;

	for (i = 1; i < n; i++)
		if (name_pref(names[i], names[best]) < 0)
			best = i;
	return best;
}

bool elf_obj_name_matches(const char *path, const char *obj)
{
	const char *b = base_name(path);
	size_t len = strlen(obj);

	if (!len || strncmp(b, obj, len))
		return false;
	return b[len] == '\0' || b[len] == '.' || b[len] == '-';
}

/* Levenshtein distance, case-insensitive; names past 255 chars are "far". */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[256];

	if (la > 255 || lb > 255)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

struct suggestion {
	const char *name;
	size_t dist;
};

/*
 * Append "; did you mean: a, b, c?" for the function names closest to
 * what was asked: within an edit distance of a third of its length, or
 * containing it.  Glob characters are dropped from the query first.
 */
static void suggest(const struct elf_obj *o, const char *pattern,
		    char *msg, size_t msglen)
{
	struct suggestion best[MAX_SUGGEST];
	size_t nbest = 0, qlen = 0, maxd, i, k, used;
	char q[256];

	for (i = 0; pattern[i] && pattern[i] != '@' && qlen < sizeof(q) - 1;
	     i++)
		if (!strchr("*?[]\\", pattern[i]))
			q[qlen++] = pattern[i];
	q[qlen] = '\0';
	if (!qlen)
		return;
	maxd = qlen / 3 ? qlen / 3 : 1;

	for (i = 0; i < o->nsyms; i++) {
		const struct esym *s = &o->syms[i];
		struct suggestion c = { s->name, 0 };
		bool dup = false;

		if (!is_func(s))
			continue;
		c.dist = edit_distance(q, s->name);
		if (c.dist > maxd && !(qlen >= 3 && strcasestr(s->name, q)))
			continue;
		for (k = 0; k < nbest; k++)
			dup |= !strcmp(best[k].name, c.name);
		if (dup)
			continue;
		/* Insertion into a sorted top-N by (distance, name). */
		for (k = nbest; k > 0; k--) {
			const struct suggestion *p = &best[k - 1];

			if (p->dist < c.dist ||
			    (p->dist == c.dist && strcmp(p->name, c.name) < 0))
				break;
			if (k < MAX_SUGGEST)
				best[k] = *p;
		}
		if (k < MAX_SUGGEST) {
			best[k] = c;
			if (nbest < MAX_SUGGEST)
				nbest++;
		}
	}
	if (!nbest)
		return;
	used = strlen(msg);
	for (k = 0; k < nbest && used < msglen; k++) {
		snprintf(msg + used, msglen - used, "%s%s%s",
			 k ? ", " : "; did you mean: ", best[k].name,
			 k == nbest - 1 ? "?" : "");
		used += strlen(msg + used);
	}
}

/* ------------------------------------------------------------------ */
/* Spec resolution                                                     */
/* ------------------------------------------------------------------ */

struct pattern {
	char *base;		/* name or glob, without version */
	const char *ver;	/* version glob, or NULL */
	bool def_only;		/* "@@": only the default version */
	bool is_glob;
};

struct cand {
	const struct esym *s;
	char name[ELF_SYM_NAME_MAX];	/* display name */
};

static int cand_cmp_name(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	int c = strcmp(a->s->name, b->s->name);

	if (c)
		return c;
	return (int)a->s->hidden - (int)b->s->hidden;
}

static int cand_cmp_value(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->s->value != b->s->value)
		return a->s->value < b->s->value ? -1 : 1;
	return name_pref(a->name, b->name);
}

static int target_cmp(const void *pa, const void *pb)
{
	const struct elf_target_sym *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static bool sym_matches(const struct esym *s, const struct pattern *p)
{
	if (!is_func(s) || fnmatch(p->base, s->name, 0))
		return false;
	if (!p->ver)
		return true;
	return s->ver && !fnmatch(p->ver, s->ver, 0) &&
	       (!p->def_only || !s->hidden);
}

static void display_name(const struct esym *s, const struct pattern *p,
			 char *buf, size_t len)
{
	if (s->ver && s->hidden)
		snprintf(buf, len, "%s@%s", s->name, s->ver);
	else if (s->ver && p->ver)
		snprintf(buf, len, "%s@@%s", s->name, s->ver);
	else
		copy_str(buf, len, s->name);
}

/* Why no candidate matched, in the caller's words. */
static int no_match(const struct elf_obj *o, const struct pattern *p,
		    const char *pattern, const char *shown,
		    char *err, size_t errlen)
{
	const char *why = "";
	size_t i;

	if (!o->has_symtab && !o->has_dynsym)
		why = " (stripped: no symbol tables)";
	else if (!o->has_symtab)
		why = " (stripped: no .symtab, only .dynsym searched)";

	if (!p->is_glob && !p->ver) {
		for (i = 0; i < o->nsyms; i++) {
			if (strcmp(o->syms[i].name, p->base) ||
			    is_func(&o->syms[i]))
				continue;
			return fail(err, errlen, -ENOENT,
				    "'%s' in %s is not a function", pattern,
				    shown);
		}
	}
	fail(err, errlen, -ENOENT, "no function '%s' in %s%s", pattern, shown,
	     why);
	if (err && errlen)
		suggest(o, p->base, err, errlen);
	return -ENOENT;
}

static const char *offset_error(int rc)
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

/*
 * The core of resolution for one parsed object: match, apply the
 * default-version rule, fold aliases, translate to offsets.
 */
static int resolve_obj(const struct elf_obj *o, const char *pattern,
		       const char *obj_path, const char *shown,
		       struct elf_target_sym **out, size_t *nout,
		       char *err, size_t errlen)
{
	struct elf_target_sym *res = NULL;
	struct cand *c = NULL;
	struct pattern p = { 0 };
	size_t nc = 0, nres = 0, i, j, k;
	int rc, first_bad = 0;
	const struct cand *bad = NULL;
	const char *at;

	at = strchr(pattern, '@');
	p.base = at ? strndup(pattern, (size_t)(at - pattern)) :
		      strdup(pattern);
	if (!p.base)
		return fail(err, errlen, -ENOMEM, "out of memory");
	if (at) {
		p.def_only = at[1] == '@';
		p.ver = at + (p.def_only ? 2 : 1);
	}
	if (!*p.base || (p.ver && !*p.ver)) {
		rc = fail(err, errlen, -EINVAL, "bad function name '%s'",
			  pattern);
		goto out;
	}
	p.is_glob = strpbrk(pattern, "*?[") != NULL;

	c = malloc((o->nsyms ? o->nsyms : 1) * sizeof(*c));
	if (!c) {
		rc = fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < o->nsyms; i++) {
		if (!sym_matches(&o->syms[i], &p))
			continue;
		c[nc].s = &o->syms[i];
		display_name(&o->syms[i], &p, c[nc].name, sizeof(c[nc].name));
		nc++;
	}

	/*
	 * A plain name means what the dynamic linker would bind it to: the
	 * default version.  Hidden versions of a name drop out whenever the
	 * name also exists unversioned or as a default.
	 */
	if (!p.ver && nc) {
		qsort(c, nc, sizeof(*c), cand_cmp_name);
		for (i = 0, k = 0; i < nc; i = j) {
			bool have_default = !c[i].s->hidden;
			const char *name = c[i].s->name;

			for (j = i; j < nc && !strcmp(c[j].s->name, name); j++)
				if (!have_default || !c[j].s->hidden)
					c[k++] = c[j];
		}
		nc = k;
	}
	if (!nc) {
		rc = no_match(o, &p, pattern, shown, err, errlen);
		goto out;
	}

	/* One entry per address; the group's first name is its best. */
	qsort(c, nc, sizeof(*c), cand_cmp_value);
	res = calloc(nc, sizeof(*res));
	if (!res) {
		rc = fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nc; i = j) {
		struct elf_target_sym *t = &res[nres];
		uint64_t off = 0;

		for (j = i; j < nc && c[j].s->value == c[i].s->value; j++)
			;
		rc = vaddr_to_offset(&o->f, c[i].s->value, true, &off);
		if (rc) {
			if (!bad) {
				bad = &c[i];
				first_bad = rc;
			}
			continue;
		}
		copy_str(t->obj, sizeof(t->obj), obj_path);
		copy_str(t->name, sizeof(t->name), c[i].name);
		t->vaddr = c[i].s->value;
		t->offset = off;
		for (k = i; k < j; k++)
			if (c[k].s->size > t->size)
				t->size = c[k].s->size;
		if (c[i].s->type == STT_GNU_IFUNC)
			t->flags |= ELF_SYM_IFUNC;
		if (c[i].s->ver)
			t->flags |= ELF_SYM_VERSIONED;
		nres++;
	}

	/*
	 * An exact name that cannot be probed is an error; a glob just
	 * skips such symbols, unless that leaves nothing.
	 */
	if (bad && (!p.is_glob || !nres)) {
		rc = fail(err, errlen, -EINVAL,
			  "function '%s' in %s (address 0x%" PRIx64 ") %s",
			  bad->name, shown, bad->s->value,
			  offset_error(first_bad));
		goto out;
	}
	qsort(res, nres, sizeof(*res), target_cmp);
	*out = res;
	*nout = nres;
	res = NULL;
	rc = 0;
out:
	free(res);
	free(c);
	free(p.base);
	return rc;
}

int elf_resolve_file(const char *path, const char *pattern,
		     struct elf_target_sym **out, size_t *n,
		     char *err, size_t errlen)
{
	struct elf_obj *o;
	char canon[PATH_MAX];
	int rc;

	*out = NULL;
	*n = 0;
	if (!pattern || !*pattern)
		return fail(err, errlen, -EINVAL, "empty function name");
	rc = elf_obj_load(path, &o, err, errlen);
	if (rc)
		return rc;
	if (!realpath(path, canon))
		copy_str(canon, sizeof(canon), path);
	rc = resolve_obj(o, pattern, canon, path, out, n, err, errlen);
	elf_obj_free(o);
	return rc;
}

/*
 * Split "OBJ:name" at the last ':' before any '[' so that a bracket
 * expression such as "[[:digit:]]" stays in the name.
 */
static int split_spec(const char *spec, char **obj, const char **name)
{
	const char *end = strchr(spec, '[');
	const char *colon = NULL, *s;

	for (s = spec; *s && (!end || s < end); s++)
		if (*s == ':')
			colon = s;
	*obj = NULL;
	*name = spec;
	if (!colon)
		return 0;
	*obj = strndup(spec, (size_t)(colon - spec));
	if (!*obj)
		return -ENOMEM;
	*name = colon + 1;
	return 0;
}

/* The main executable of pid: its path if still reachable, else the link. */
static void pid_exe(pid_t pid, char *buf, size_t len)
{
	char link[64], target[PATH_MAX];
	ssize_t r;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	r = readlink(link, target, sizeof(target) - 1);
	if (r > 0) {
		target[r] = '\0';
		if (!strstr(target, " (deleted)") && !access(target, R_OK)) {
			copy_str(buf, len, target);
			return;
		}
	}
	copy_str(buf, len, link);
}

int elf_resolve_spec(const char *spec, pid_t pid, const char *exe,
		     struct elf_target_sym **out, size_t *n,
		     char *err, size_t errlen)
{
	char exe_buf[PATH_MAX], path[PATH_MAX];
	const char *name;
	char *obj = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if (!spec || !*spec)
		return fail(err, errlen, -EINVAL, "empty function spec");
	if (split_spec(spec, &obj, &name))
		return fail(err, errlen, -ENOMEM, "out of memory");
	if (obj && !*obj) {
		rc = fail(err, errlen, -EINVAL,
			  "bad function spec '%s': empty object name", spec);
		goto out;
	}
	if (!*name) {
		rc = fail(err, errlen, -EINVAL,
			  "bad function spec '%s': empty function name", spec);
		goto out;
	}
	if (exe && !*exe)
		exe = NULL;
	if (!exe && pid > 0) {
		pid_exe(pid, exe_buf, sizeof(exe_buf));
		exe = exe_buf;
	}
	if (!exe && (!obj || !strchr(obj, '/'))) {
		rc = fail(err, errlen, -EINVAL,
			  "no executable or process to resolve '%s' in", spec);
		goto out;
	}

	if (!obj || strchr(obj, '/')) {
		rc = elf_resolve_file(obj ? obj : exe, name, out, n, err,
				      errlen);
		goto out;
	}

	/* A short object name: mapped objects first, then what exe loads. */
	rc = -ENOENT;
	if (pid > 0) {
		struct elf_map *maps;
		size_t nmaps;

		rc = elf_maps_read(pid, &maps, &nmaps, err, errlen);
		if (rc)
			goto out;
		rc = elf_maps_find_object(maps, nmaps, obj, path, sizeof(path),
					  err, errlen);
		elf_maps_free(maps, nmaps);
		if (rc && rc != -ENOENT)
			goto out;
	}
	if (rc == -ENOENT && elf_obj_name_matches(exe, obj)) {
		copy_str(path, sizeof(path), exe);
		rc = 0;
	}
	if (rc == -ENOENT)
		rc = elf_find_needed(exe, obj, path, sizeof(path), err, errlen);
	if (!rc)
		rc = elf_resolve_file(path, name, out, n, err, errlen);
out:
	free(obj);
	return rc;
}

/* ------------------------------------------------------------------ */
/* /proc/PID/maps                                                      */
/* ------------------------------------------------------------------ */

void elf_maps_free(struct elf_map *maps, size_t n)
{
	size_t i;

	if (!maps)
		return;
	for (i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

static int parse_maps_line(char *line, struct elf_map *m)
{
	static const char deleted[] = " (deleted)";
	size_t len;
	int pos = -1;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %"
		   SCNu64 " %n", &m->start, &m->end, m->perms, &m->offset,
		   &m->dev_major, &m->dev_minor, &m->inode, &pos) < 7 ||
	    pos < 0 || m->end < m->start)
		return -EINVAL;
	line += pos;
	len = strlen(line);
	while (len && (line[len - 1] == '\n' || line[len - 1] == ' '))
		line[--len] = '\0';
	if (len >= sizeof(deleted) - 1 &&
	    !strcmp(line + len - (sizeof(deleted) - 1), deleted)) {
		m->deleted = true;
		line[len - (sizeof(deleted) - 1)] = '\0';
	}
	m->path = strdup(line);
	return m->path ? 0 : -ENOMEM;
}

int elf_maps_read(pid_t pid, struct elf_map **maps, size_t *n,
		  char *err, size_t errlen)
{
	struct elf_map *v = NULL;
	size_t nv = 0, cap = 0, linecap = 0;
	char fname[64], *line = NULL;
	FILE *fp;
	int rc = 0;

	*maps = NULL;
	*n = 0;
	if (pid > 0)
		snprintf(fname, sizeof(fname), "/proc/%d/maps", (int)pid);
	else
		snprintf(fname, sizeof(fname), "/proc/self/maps");
	fp = fopen(fname, "re");
	if (!fp)
		return fail(err, errlen, -errno, "cannot read %s: %s", fname,
			    strerror(errno));
	while (getline(&line, &linecap, fp) > 0) {
		if (nv == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct elf_map *t = realloc(v, nc * sizeof(*v));

			if (!t) {
				rc = -ENOMEM;
				break;
			}
			v = t;
			cap = nc;
		}
		rc = parse_maps_line(line, &v[nv]);
		if (rc)
			break;
		nv++;
	}
	if (!rc && ferror(fp))
		rc = -EIO;
	free(line);
	fclose(fp);
	if (rc) {
		elf_maps_free(v, nv);
		return fail(err, errlen, rc, "cannot parse %s: %s", fname,
			    strerror(-rc));
	}
	*maps = v;
	*n = nv;
	return 0;
}

const struct elf_map *elf_maps_find(const struct elf_map *maps, size_t n,
				    uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < maps[mid].start)
			hi = mid;
		else if (addr >= maps[mid].end)
			lo = mid + 1;
		else
			return &maps[mid];
	}
	return NULL;
}

static bool is_file_map(const struct elf_map *m)
{
	return m->path[0] == '/';
}

int elf_maps_find_object(const struct elf_map *maps, size_t n,
			 const char *obj, char *path, size_t pathlen,
			 char *err, size_t errlen)
{
	const char *found = NULL, *other = NULL;
	bool exact = false;
	char canon[PATH_MAX];
	size_t i;

	if (strchr(obj, '/')) {
		if (!realpath(obj, canon))
			copy_str(canon, sizeof(canon), obj);
		for (i = 0; i < n; i++) {
			if (!is_file_map(&maps[i]) ||
			    strcmp(maps[i].path, canon))
				continue;
			copy_str(path, pathlen, canon);
			return 0;
		}
		return fail(err, errlen, -ENOENT, "%s is not mapped", obj);
	}

	for (i = 0; i < n; i++) {
		const char *p = maps[i].path;
		bool ex;

		if (!is_file_map(&maps[i]) || !elf_obj_name_matches(p, obj))
			continue;
		ex = !strcmp(base_name(p), obj);
		if (found && !strcmp(found, p))
			continue;
		if (!found || (ex && !exact)) {
			if (found && !exact)
				other = NULL;	/* exact beats prefixes */
			found = p;
			exact = ex;
		} else if (ex == exact && !other) {
			other = p;
		}
	}
	if (!found)
		return fail(err, errlen, -ENOENT,
			    "no mapped object matches '%s'", obj);
	if (other)
		return fail(err, errlen, -EINVAL,
			    "object name '%s' is ambiguous: %s, %s", obj, found,
			    other);
	copy_str(path, pathlen, found);
	return 0;
}

/*
 * Load bias from one file mapping of the object: the mapping shows file
 * byte fo at m->start + (fo - m->offset), and the segment that covers
 * m->offset puts p_offset at bias + p_vaddr.  Where two segments share a
 * file page, the later one is the one this mapping was made for.
 */
static int bias_from_map(const struct elf_file *f, const struct elf_map *m,
			 uint64_t *bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const Elf64_Phdr *best = NULL;
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];
		uint64_t pstart = ph->p_offset & ~(page - 1);

		if (ph->p_type != PT_LOAD || !ph->p_filesz)
			continue;
		if (pstart > m->offset ||
		    m->offset >= ph->p_offset + ph->p_filesz)
			continue;
		if (!best || pstart > (best->p_offset & ~(page - 1)))
			best = ph;
	}
	if (!best)
		return -ENOENT;
	*bias = m->start - m->offset + best->p_offset - best->p_vaddr;
	return 0;
}

int elf_load_bias(const struct elf_map *maps, size_t n, const char *path,
		  uint64_t *bias, char *err, size_t errlen)
{
	struct elf_file f;
	char canon[PATH_MAX];
	size_t i;
	int rc;

	if (!realpath(path, canon))
		copy_str(canon, sizeof(canon), path);
	rc = elf_file_open(&f, path, err, errlen);
	if (rc)
		return rc;
	rc = fail(err, errlen, -ENOENT, "%s is not mapped", path);
	for (i = 0; i < n; i++) {
		if (!is_file_map(&maps[i]) || strcmp(maps[i].path, canon))
			continue;
		if (!bias_from_map(&f, &maps[i], bias)) {
			rc = 0;
			break;
		}
		rc = fail(err, errlen, -ENOEXEC,
			  "mapping of %s at 0x%" PRIx64
			  " matches no PT_LOAD segment", path, maps[i].start);
	}
	elf_file_close(&f);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Address to symbol                                                   */
/* ------------------------------------------------------------------ */

struct sz_obj {
	char *path;
	struct elf_obj *o;	/* NULL: not a usable ELF file */
};

struct elf_symbolizer {
	pid_t pid;
	struct elf_map *maps;
	size_t nmaps;
	struct sz_obj *objs;
	size_t nobjs;
};

static int symbolizer_new(pid_t pid, struct elf_symbolizer **out,
			  char *err, size_t errlen)
{
	struct elf_symbolizer *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s)
		return fail(err, errlen, -ENOMEM, "out of memory");
	s->pid = pid;
	rc = elf_maps_read(pid, &s->maps, &s->nmaps, err, errlen);
	if (rc) {
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

struct elf_symbolizer *elf_symbolizer_new(pid_t pid, char *err,
					  size_t errlen)
{
	struct elf_symbolizer *s;

	symbolizer_new(pid, &s, err, errlen);
	return s;
}

void elf_symbolizer_free(struct elf_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nobjs; i++) {
		free(s->objs[i].path);
		elf_obj_free(s->objs[i].o);
	}
	free(s->objs);
	elf_maps_free(s->maps, s->nmaps);
	free(s);
}

/*
 * The parsed object behind a file mapping, cached by path (failures too,
 * so a non-ELF mapping is only opened once).  A deleted or unreachable
 * file is read through /proc/PID/map_files when that is permitted.
 */
static struct elf_obj *sz_get(struct elf_symbolizer *s,
			      const struct elf_map *m)
{
	struct sz_obj *t;
	struct elf_obj *o = NULL;
	size_t i;

	for (i = 0; i < s->nobjs; i++)
		if (!strcmp(s->objs[i].path, m->path))
			return s->objs[i].o;
	if (m->deleted || elf_obj_load(m->path, &o, NULL, 0)) {
		char alt[96];

		snprintf(alt, sizeof(alt), "/proc/%d/map_files/%" PRIx64 "-%"
			 PRIx64, s->pid > 0 ? (int)s->pid : (int)getpid(),
			 m->start, m->end);
		if (elf_obj_load(alt, &o, NULL, 0))
			o = NULL;
	}
	t = realloc(s->objs, (s->nobjs + 1) * sizeof(*t));
	if (!t)
		goto nomem;
	s->objs = t;
	t[s->nobjs].path = strdup(m->path);
	if (!t[s->nobjs].path)
		goto nomem;
	t[s->nobjs++].o = o;
	return o;
nomem:
	elf_obj_free(o);
	return NULL;
}

static bool addr_sym_type(const struct esym *s)
{
	return s->type != STT_NOTYPE || s->size;
}

/* Whether a is a better name for an address than b (see sym_lookup()). */
static bool sym_better(const struct esym *a, const struct esym *b,
		       uint64_t vaddr)
{
	bool ca = a->size && vaddr - a->value < a->size;
	bool cb = b->size && vaddr - b->value < b->size;

	if (ca != cb)
		return ca;
	if (a->value != b->value)
		return a->value > b->value;
	if ((a->type != STT_NOTYPE) != (b->type != STT_NOTYPE))
		return a->type != STT_NOTYPE;
	if ((a->bind == STB_LOCAL) != (b->bind == STB_LOCAL))
		return b->bind == STB_LOCAL;
	return name_pref(a->name, b->name) < 0;
}

/*
 * The symbol covering vaddr: sized symbols that contain it beat zero-sized
 * labels sitting exactly on it; then the nearest start (the innermost
 * symbol), typed over untyped, global over local, and elf_pick_name()'s
 * order among aliases.
 */
static const struct esym *sym_lookup(const struct elf_obj *o, uint64_t vaddr)
{
	const struct esym *best = NULL;
	size_t lo = 0, hi = o->nsyms;

	/* First symbol above vaddr; candidates lie below it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct esym *s = &o->syms[lo];
		uint64_t d = vaddr - s->value;

		if (d && d >= o->max_size)
			break;	/* nothing further down can reach vaddr */
		if (!addr_sym_type(s))
			continue;
		if (!(s->size ? d < s->size : d == 0))
			continue;
		if (!best || sym_better(s, best, vaddr))
			best = s;
	}
	return best;
}

/* vaddr lies in the memory image of some PT_LOAD of f. */
static bool in_load(const struct elf_file *f, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];

		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr - ph->p_vaddr < ph->p_memsz)
			return true;
	}
	return false;
}

static void set_pseudo(struct elf_addr_info *info, enum elf_addr_kind kind,
		       const char *name, uint64_t off)
{
	info->kind = kind;
	copy_str(info->obj, sizeof(info->obj), name);
	info->vaddr = off;
}

int elf_symbolize(struct elf_symbolizer *s, uint64_t addr,
		  struct elf_addr_info *info, char *err, size_t errlen)
{
	const struct elf_map *m, *fm = NULL;
	const struct esym *sym;
	struct elf_obj *o;
	uint64_t bias, vaddr;
	size_t idx;

	memset(info, 0, sizeof(*info));
	m = elf_maps_find(s->maps, s->nmaps, addr);
	if (!m) {
		struct elf_map *nm;
		size_t nn;
		int rc = elf_maps_read(s->pid, &nm, &nn, err, errlen);

		if (rc)
			return rc;
		elf_maps_free(s->maps, s->nmaps);
		s->maps = nm;
		s->nmaps = nn;
		m = elf_maps_find(s->maps, s->nmaps, addr);
	}
	if (!m)
		return fail(err, errlen, -ENOENT,
			    "address 0x%" PRIx64 " is not mapped", addr);

	idx = (size_t)(m - s->maps);
	if (is_file_map(m)) {
		fm = m;
	} else if (!m->path[0]) {
		/*
		 * .bss beyond the last file page is an anonymous mapping
		 * placed right after the object's file mappings.
		 */
		while (idx-- > 0) {
			if (is_file_map(&s->maps[idx])) {
				fm = &s->maps[idx];
				break;
			}
		}
	} else if (!strcmp(m->path, "[heap]")) {
		set_pseudo(info, ELF_ADDR_HEAP, "[heap]", addr - m->start);
		return 0;
	} else if (!strncmp(m->path, "[stack", 6)) {
		set_pseudo(info, ELF_ADDR_STACK, "[stack]", addr - m->start);
		return 0;
	} else {
		set_pseudo(info, ELF_ADDR_ANON, m->path, addr - m->start);
		return 0;
	}

	o = fm ? sz_get(s, fm) : NULL;
	if (!o || bias_from_map(&o->f, fm, &bias)) {
		if (fm == m)
			set_pseudo(info, ELF_ADDR_FILE, m->path,
				   addr - m->start + m->offset);
		else
			set_pseudo(info, ELF_ADDR_ANON, "anon",
				   addr - m->start);
		return 0;
	}
	vaddr = addr - bias;
	if (fm != m && !in_load(&o->f, vaddr)) {
		set_pseudo(info, ELF_ADDR_ANON, "anon",
			   addr - m->start);
		return 0;
	}
	set_pseudo(info, ELF_ADDR_OBJECT, fm->path, vaddr);
	sym = sym_lookup(o, vaddr);
	if (sym) {
		info->kind = ELF_ADDR_SYMBOL;
		copy_str(info->sym, sizeof(info->sym), sym->name);
		info->sym_off = vaddr - sym->value;
		info->sym_size = sym->size;
		info->sym_type = sym->type;
	}
	return 0;
}

int elf_addr_to_symbol(pid_t pid, uint64_t addr, struct elf_addr_info *info,
		       char *err, size_t errlen)
{
	struct elf_symbolizer *s;
	int rc;

	memset(info, 0, sizeof(*info));
	rc = symbolizer_new(pid, &s, err, errlen);
	if (rc)
		return rc;
	rc = elf_symbolize(s, addr, info, err, errlen);
	elf_symbolizer_free(s);
	return rc;
}

int elf_addr_format(const struct elf_addr_info *info, char *buf, size_t len)
{
	const char *obj = base_name(info->obj);

	switch (info->kind) {
	case ELF_ADDR_SYMBOL:
		if (!info->sym_off)
			return snprintf(buf, len, "%s:%s", obj, info->sym);
		return snprintf(buf, len, "%s:%s+0x%" PRIx64, obj, info->sym,
				info->sym_off);
	case ELF_ADDR_OBJECT:
	case ELF_ADDR_FILE:
		return snprintf(buf, len, "%s+0x%" PRIx64, obj, info->vaddr);
	default:
		return snprintf(buf, len, "%s", info->obj);
	}
}

/* ------------------------------------------------------------------ */
/* DT_NEEDED search                                                    */
/* ------------------------------------------------------------------ */

/* What the loader needs to know about one object. */
struct dso {
	char *path;		/* canonical */
	char *origin;		/* directory of path, for $ORIGIN */
	char *rpath;
	char *runpath;
	char **needed;
	size_t nneeded;
	bool nodeflib;
};

static void dso_free(struct dso *d)
{
	size_t i;

	free(d->path);
	free(d->origin);
	free(d->rpath);
	free(d->runpath);
	for (i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	memset(d, 0, sizeof(*d));
}

/* Link-time address to file offset for any loadable, file-backed byte. */
static int any_vaddr_to_offset(const struct elf_file *f, uint64_t vaddr,
			       uint64_t *off)
{
	return vaddr_to_offset(f, vaddr, false, off);
}

/* The string at offset stroff of a dynamic string table, duplicated. */
static int dyn_str(const char *str, uint64_t strsz, uint64_t stroff,
		   char **out)
{
	if (stroff >= strsz)
		return -ENOEXEC;
	*out = strdup(str + stroff);
	return *out ? 0 : -ENOMEM;
}

/*
 * Read PT_DYNAMIC: DT_NEEDED, DT_RPATH, DT_RUNPATH and DF_1_NODEFLIB.
 * Program headers are used rather than sections so that section-stripped
 * files work.  The interpreter (PT_INTERP), if any, goes to *interp.
 */
static int dso_load(const char *path, struct dso *d, char **interp,
		    uint16_t *machine, char *err, size_t errlen)
{
	uint64_t strtab = 0, strsz = 0, stroff, rpath = 0, runpath = 0;
	bool have_rpath = false, have_runpath = false;
	const Elf64_Phdr *dyn = NULL;
	Elf64_Dyn *dv = NULL;
	char *str = NULL, canon[PATH_MAX], *slash, *tmp;
	struct elf_file f;
	size_t ndyn, i, nneed = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	if (interp)
		*interp = NULL;
	rc = elf_file_open(&f, path, err, errlen);
	if (rc)
		return rc;
	if (machine)
		*machine = f.eh.e_machine;
	if (!realpath(path, canon))
		copy_str(canon, sizeof(canon), path);
	d->path = strdup(canon);
	slash = d->path ? strrchr(canon, '/') : NULL;
	if (slash)
		*slash = '\0';
	d->origin = strdup(slash ? (canon[0] ? canon : "/") : ".");
	rc = -ENOMEM;
	if (!d->path || !d->origin)
		goto nomem;

	for (i = 0; i < f.phnum; i++) {
		const Elf64_Phdr *ph = &f.ph[i];

		if (ph->p_type == PT_DYNAMIC && !dyn)
			dyn = ph;
		if (ph->p_type == PT_INTERP && interp && !*interp) {
			rc = read_dup(&f, ph->p_offset,
				      ph->p_filesz < PATH_MAX ?
				      ph->p_filesz : PATH_MAX, interp);
			if (rc)
				goto corrupt;
		}
	}
	if (!dyn) {
		rc = 0;		/* static: needs nothing */
		goto out;
	}
	ndyn = dyn->p_filesz / sizeof(Elf64_Dyn);
	rc = read_dup(&f, dyn->p_offset, ndyn * sizeof(Elf64_Dyn), &tmp);
	if (rc)
		goto corrupt;
	dv = (Elf64_Dyn *)tmp;
	for (i = 0; i < ndyn && dv[i].d_tag != DT_NULL; i++) {
		switch (dv[i].d_tag) {
		case DT_STRTAB:
			strtab = dv[i].d_un.d_ptr;
			break;
		case DT_STRSZ:
			strsz = dv[i].d_un.d_val;
			break;
		case DT_NEEDED:
			nneed++;
			break;
		case DT_RPATH:
			rpath = dv[i].d_un.d_val;
			have_rpath = true;
			break;
		case DT_RUNPATH:
			runpath = dv[i].d_un.d_val;
			have_runpath = true;
			break;
		case DT_FLAGS_1:
			d->nodeflib = dv[i].d_un.d_val & DF_1_NODEFLIB;
			break;
		}
	}
	ndyn = i;
	if (!nneed && !have_rpath && !have_runpath) {
		rc = 0;
		goto out;
	}
	if (any_vaddr_to_offset(&f, strtab, &stroff)) {
		rc = -ENOEXEC;
		goto corrupt;
	}
	rc = read_dup(&f, stroff, strsz, &str);
	if (rc)
		goto corrupt;
	d->needed = calloc(nneed ? nneed : 1, sizeof(*d->needed));
	rc = -ENOMEM;
	if (!d->needed)
		goto nomem;
	for (i = 0; i < ndyn; i++) {
		if (dv[i].d_tag != DT_NEEDED)
			continue;
		rc = dyn_str(str, strsz, dv[i].d_un.d_val,
			     &d->needed[d->nneeded]);
		if (rc)
			goto corrupt;
		d->nneeded++;
	}
	if (have_rpath && (rc = dyn_str(str, strsz, rpath, &d->rpath)))
		goto corrupt;
	if (have_runpath && (rc = dyn_str(str, strsz, runpath, &d->runpath)))
		goto corrupt;
	rc = 0;
	goto out;

corrupt:
	if (rc == -ENOMEM)
		goto nomem;
	fail(err, errlen, rc, "%s: truncated or corrupt dynamic section",
	     path);
	goto out;
nomem:
	fail(err, errlen, -ENOMEM, "out of memory");
out:
	if (rc) {
		dso_free(d);
		if (interp) {
			free(*interp);
			*interp = NULL;
		}
	}
	free(str);
	free(dv);
	elf_file_close(&f);
	return rc;
}

/* A library file the loader would accept for an object of this machine. */
static bool lib_usable(const char *path, uint16_t machine)
{
	struct elf_file f = { .fd = -1 };
	Elf64_Ehdr eh;
	struct stat st;
	bool ok = false;

	f.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f.fd < 0)
		return false;
	if (!fstat(f.fd, &st) && S_ISREG(st.st_mode)) {
		f.size = (uint64_t)st.st_size;
		ok = !read_at(&f, 0, &eh, sizeof(eh)) &&
		     !check_ident(eh.e_ident, path, NULL, 0) &&
		     eh.e_type == ET_DYN && eh.e_machine == machine;
	}
	close(f.fd);
	return ok;
}

static bool try_lib(const char *path, uint16_t machine, char *out,
		    size_t outlen)
{
	char canon[PATH_MAX];

	if (!lib_usable(path, machine) || !realpath(path, canon))
		return false;
	copy_str(out, outlen, canon);
	return true;
}

/*
 * Search a colon-separated list (';' too for LD_LIBRARY_PATH, as ld.so
 * allows).  "$ORIGIN"/"${ORIGIN}" expand to origin; entries with other
 * substitution tokens are skipped, an empty entry is the current
 * directory.
 */
static bool search_list(const char *list, const char *seps,
			const char *origin, const char *name,
			uint16_t machine, char *out, size_t outlen)
{
	const char *p = list;

	while (p) {
		size_t len = strcspn(p, seps);
		char dir[PATH_MAX], cand[PATH_MAX];
		size_t dl = 0, i = 0;
		bool skip = false;

		while (i < len && dl < sizeof(dir) - 1) {
			size_t tl = 0;

			if (!strncmp(p + i, "$ORIGIN", 7))
				tl = 7;
			else if (!strncmp(p + i, "${ORIGIN}", 9))
				tl = 9;
			if (tl && i + tl <= len && origin) {
				dl += (size_t)snprintf(dir + dl,
						       sizeof(dir) - dl, "%s",
						       origin);
				if (dl >= sizeof(dir))
					dl = sizeof(dir) - 1;
				i += tl;
				continue;
			}
			if (p[i] == '$')
				skip = true;
			dir[dl++] = p[i++];
		}
		dir[dl] = '\0';
		if (!skip && i == len &&
		    (size_t)snprintf(cand, sizeof(cand), "%s/%s",
				     dl ? dir : ".", name) < sizeof(cand) &&
		    try_lib(cand, machine, out, outlen))
			return true;
		p = p[len] ? p + len + 1 : NULL;
	}
	return false;
}

/* /etc/ld.so.cache, new format ("glibc-ld.so.cache1.1") only. */
struct ldcache {
	char *buf;
	size_t size;
	const char *base;	/* string offsets are relative to this */
	const uint8_t *entries;
	uint32_t nlibs;
};

#define LDCACHE_OLD_MAGIC	"ld.so-1.7.0"
#define LDCACHE_NEW_MAGIC	"glibc-ld.so.cache1.1"
#define LDCACHE_NEW_HDR		48	/* magic, version, counts... */
#define LDCACHE_NEW_ENT		24	/* flags, key, value, hwcap */
#define LDCACHE_OLD_HDR		16	/* magic, pad, nlibs */
#define LDCACHE_OLD_ENT		12	/* flags, key, value */
#define LDCACHE_FLAG_TYPE_MASK	0x00ff
#define LDCACHE_FLAG_ELF_LIBC6	0x0003

static void ldcache_load(struct ldcache *c)
{
	struct elf_file f = { .fd = -1 };
	struct stat st;
	size_t off = 0;
	uint32_t n;

	memset(c, 0, sizeof(*c));
	f.fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	if (f.fd < 0)
		return;
	if (fstat(f.fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > MAX_LDCACHE_SIZE)
		goto out;
	f.size = (uint64_t)st.st_size;
	if (read_dup(&f, 0, f.size, &c->buf))
		goto out;
	c->size = (size_t)f.size;

	/* An old-format cache may carry the new one after its entries. */
	if (c->size >= LDCACHE_OLD_HDR &&
	    !memcmp(c->buf, LDCACHE_OLD_MAGIC, sizeof(LDCACHE_OLD_MAGIC) - 1)) {
		memcpy(&n, c->buf + 12, sizeof(n));
		if (n > (c->size - LDCACHE_OLD_HDR) / LDCACHE_OLD_ENT)
			goto bad;
		off = LDCACHE_OLD_HDR + (size_t)n * LDCACHE_OLD_ENT;
		off = (off + 7) & ~(size_t)7;
	}
	if (off > c->size || c->size - off < LDCACHE_NEW_HDR ||
	    memcmp(c->buf + off, LDCACHE_NEW_MAGIC,
		   sizeof(LDCACHE_NEW_MAGIC) - 1))
		goto bad;
	memcpy(&n, c->buf + off + 20, sizeof(n));
	if (n > (c->size - off - LDCACHE_NEW_HDR) / LDCACHE_NEW_ENT)
		goto bad;
	c->base = c->buf + off;
	c->entries = (const uint8_t *)c->buf + off + LDCACHE_NEW_HDR;
	c->nlibs = n;
	goto out;
bad:
	free(c->buf);
	memset(c, 0, sizeof(*c));
out:
	close(f.fd);
}

/* A NUL-terminated string at offset so of the cache, or NULL. */
static const char *ldcache_str(const struct ldcache *c, uint32_t so)
{
	size_t start = (size_t)(c->base - c->buf) + so;

	if (start >= c->size || !memchr(c->buf + start, '\0', c->size - start))
		return NULL;
	return c->buf + start;
}

/*
 * Entries for other ABIs (lib32 next to lib64) share the key, so each hit
 * is checked for the right machine.  Hardware-capability variants come
 * last: ld.so prefers them only on matching CPUs, which we cannot judge.
 */
static bool ldcache_lookup(const struct ldcache *c, const char *name,
			   uint16_t machine, char *out, size_t outlen)
{
	int pass;
	uint32_t i;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < c->nlibs; i++) {
			const uint8_t *e = c->entries +
					   (size_t)i * LDCACHE_NEW_ENT;
			int32_t flags;
			uint32_t key, value;
			uint64_t hwcap;
			const char *k, *v;

			memcpy(&flags, e, 4);
			memcpy(&key, e + 4, 4);
			memcpy(&value, e + 8, 4);
			memcpy(&hwcap, e + 16, 8);
			if ((flags & LDCACHE_FLAG_TYPE_MASK) !=
			    LDCACHE_FLAG_ELF_LIBC6 || (hwcap != 0) != pass)
				continue;
			k = ldcache_str(c, key);
			v = ldcache_str(c, value);
			if (k && v && !strcmp(k, name) &&
			    try_lib(v, machine, out, outlen))
				return true;
		}
	}
	return false;
}

static const char *const default_lib_dirs =
	"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:"
	"/usr/lib:/lib";

/*
 * Locate needed library name for requester req, in ld.so's order.  Only
 * the requester's and the executable's DT_RPATH are consulted, not those
 * of the objects in between.
 */
static bool search_lib(const char *name, const struct dso *req,
		       const struct dso *exe, const struct ldcache *cache,
		       uint16_t machine, char *out, size_t outlen)
{
	const char *env = getenv("LD_LIBRARY_PATH");

	if (strchr(name, '/'))
		return try_lib(name, machine, out, outlen);
	if (!req->runpath) {
		if (req->rpath && search_list(req->rpath, ":", req->origin,
					      name, machine, out, outlen))
			return true;
		if (req != exe && !exe->runpath && exe->rpath &&
		    search_list(exe->rpath, ":", exe->origin, name, machine,
				out, outlen))
			return true;
	}
	if (env && *env && search_list(env, ":;", exe->origin, name, machine,
				       out, outlen))
		return true;
	if (req->runpath && search_list(req->runpath, ":", req->origin, name,
					machine, out, outlen))
		return true;
	if (req->nodeflib)
		return false;
	if (ldcache_lookup(cache, name, machine, out, outlen))
		return true;
	return search_list(default_lib_dirs, ":", NULL, name, machine, out,
			   outlen);
}

int elf_find_needed(const char *exe_path, const char *short_name,
		    char *out_path, size_t out_len, char *err, size_t errlen)
{
	struct dso *q = NULL;
	struct ldcache cache;
	char *interp = NULL, found[PATH_MAX];
	size_t nq = 0, qi, i, j;
	bool reported = false;
	uint16_t machine;
	int rc;

	if (!short_name || !*short_name)
		return fail(err, errlen, -EINVAL, "empty object name");
	q = calloc(MAX_NEEDED_OBJS, sizeof(*q));
	if (!q)
		return fail(err, errlen, -ENOMEM, "out of memory");
	rc = dso_load(exe_path, &q[0], &interp, &machine, err, errlen);
	if (rc) {
		free(q);
		return rc;
	}
	nq = 1;
	ldcache_load(&cache);

	/* Breadth first, the order in which ld.so loads and searches. */
	rc = -ENOENT;
	for (qi = 0; qi < nq && rc == -ENOENT; qi++) {
		for (i = 0; i < q[qi].nneeded && rc == -ENOENT; i++) {
			const char *name = q[qi].needed[i];
			bool want = elf_obj_name_matches(name, short_name);
			bool seen = false;

			if (!search_lib(name, &q[qi], &q[0], &cache, machine,
					found, sizeof(found))) {
				if (!want)
					continue;
				rc = fail(err, errlen, -ENOENT,
					  "%s (needed by %s) not found in the library search path",
					  name, q[qi].path);
				reported = true;
				continue;
			}
			if (want) {
				copy_str(out_path, out_len, found);
				rc = 0;
				break;
			}
			for (j = 0; j < nq && !seen; j++)
				seen = !strcmp(q[j].path, found);
			if (seen || nq == MAX_NEEDED_OBJS)
				continue;
			/* An unreadable dependency just isn't walked. */
			if (!dso_load(found, &q[nq], NULL, NULL, NULL, 0))
				nq++;
		}
	}
	if (rc == -ENOENT && interp &&
	    elf_obj_name_matches(interp, short_name) &&
	    realpath(interp, found)) {
		copy_str(out_path, out_len, found);
		rc = 0;
	}
	if (rc == -ENOENT && !reported)
		rc = fail(err, errlen, -ENOENT,
			  "no library matching '%s' among the %zu objects %s loads",
			  short_name, nq, exe_path);

	for (i = 0; i < nq; i++)
		dso_free(&q[i]);
	free(q);
	free(interp);
	free(cache.buf);
	return rc;
}
