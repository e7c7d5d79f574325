// SPDX-License-Identifier: GPL-2.0
/*
 * The libraries an executable loads: its DT_NEEDED closure, each name
 * searched as ld.so does (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH,
 * /etc/ld.so.cache, default directories).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_internal.h"

/* Bounds that keep hostile files from making us allocate without limit. */
#define MAX_LDCACHE_SIZE	(64u << 20)
#define MAX_NEEDED_OBJS		512

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
	return elf_vaddr_to_offset(f, vaddr, false, off);
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

/* d's canonical path and the directory $ORIGIN stands for. */
static int dso_set_path(struct dso *d, const char *path)
{
	char canon[PATH_MAX], *slash;

	if (!realpath(path, canon))
		elf_copy_str(canon, sizeof(canon), path);
	d->path = strdup(canon);
	slash = d->path ? strrchr(canon, '/') : NULL;
	if (slash)
		*slash = '\0';
	d->origin = strdup(slash ? (canon[0] ? canon : "/") : ".");
	return d->path && d->origin ? 0 : -ENOMEM;
}

/* The program interpreter (PT_INTERP) of f, if any, into *interp. */
static int read_interp(const struct elf_file *f, char **interp)
{
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];

		if (ph->p_type == PT_INTERP)
			return elf_read_dup(f, ph->p_offset,
					    ph->p_filesz < PATH_MAX ?
					    ph->p_filesz : PATH_MAX, interp);
	}
	return 0;
}

static const Elf64_Phdr *find_dynamic(const struct elf_file *f)
{
	size_t i;

	for (i = 0; i < f->phnum; i++)
		if (f->ph[i].p_type == PT_DYNAMIC)
			return &f->ph[i];
	return NULL;
}

/* What the dynamic section says, before its strings are read. */
struct dyn_info {
	uint64_t strtab, strsz, rpath, runpath;
	bool have_rpath, have_runpath;
	size_t nneeded;
};

/* Scan dv up to DT_NULL; returns the entries before it. */
static size_t scan_dynamic(const Elf64_Dyn *dv, size_t ndyn,
			   struct dyn_info *di, struct dso *d)
{
	size_t i;

	memset(di, 0, sizeof(*di));
	for (i = 0; i < ndyn && dv[i].d_tag != DT_NULL; i++) {
		switch (dv[i].d_tag) {
		case DT_STRTAB:
			di->strtab = dv[i].d_un.d_ptr;
			break;
		case DT_STRSZ:
			di->strsz = dv[i].d_un.d_val;
			break;
		case DT_NEEDED:
			di->nneeded++;
			break;
		case DT_RPATH:
			di->rpath = dv[i].d_un.d_val;
			di->have_rpath = true;
			break;
		case DT_RUNPATH:
			di->runpath = dv[i].d_un.d_val;
			di->have_runpath = true;
			break;
		case DT_FLAGS_1:
			d->nodeflib = dv[i].d_un.d_val & DF_1_NODEFLIB;
			break;
		}
	}
	return i;
}

/* DT_NEEDED, DT_RPATH and DT_RUNPATH from the dynamic string table. */
static int read_dyn_strings(const struct elf_file *f, const Elf64_Dyn *dv,
			    size_t ndyn, const struct dyn_info *di,
			    struct dso *d, char *err, size_t errlen)
{
	uint64_t stroff;
	char *str = NULL;
	size_t i;
	int rc;

	if (any_vaddr_to_offset(f, di->strtab, &stroff))
		return -ENOEXEC;
	if (di->strsz > elf_limit(ELF_LIMIT_STRTAB))
		return elf_over_limit(f->path, ELF_LIMIT_STRTAB, di->strsz,
				      err, errlen);
	rc = elf_read_dup(f, stroff, di->strsz, &str);
	if (rc)
		return rc;
	d->needed = calloc(di->nneeded ? di->nneeded : 1, sizeof(*d->needed));
	rc = -ENOMEM;
	if (!d->needed)
		goto out;
	for (i = 0; i < ndyn; i++) {
		if (dv[i].d_tag != DT_NEEDED)
			continue;
		rc = dyn_str(str, di->strsz, dv[i].d_un.d_val,
			     &d->needed[d->nneeded]);
		if (rc)
			goto out;
		d->nneeded++;
	}
	rc = 0;
	if (di->have_rpath)
		rc = dyn_str(str, di->strsz, di->rpath, &d->rpath);
	if (!rc && di->have_runpath)
		rc = dyn_str(str, di->strsz, di->runpath, &d->runpath);
out:
	free(str);
	return rc;
}

/* The library names and search paths of f's PT_DYNAMIC, if any. */
static int read_dynamic(const struct elf_file *f, struct dso *d, char *err,
			size_t errlen)
{
	const Elf64_Phdr *dyn = find_dynamic(f);
	struct dyn_info di;
	Elf64_Dyn *dv;
	size_t ndyn;
	char *tmp;
	int rc;

	if (!dyn)
		return 0;	/* static: needs nothing */
	ndyn = dyn->p_filesz / sizeof(Elf64_Dyn);
	rc = elf_read_dup(f, dyn->p_offset, ndyn * sizeof(Elf64_Dyn), &tmp);
	if (rc)
		return rc;
	dv = (Elf64_Dyn *)tmp;
	ndyn = scan_dynamic(dv, ndyn, &di, d);
	if (di.nneeded || di.have_rpath || di.have_runpath)
		rc = read_dyn_strings(f, dv, ndyn, &di, d, err, errlen);
	free(dv);
	return rc;
}

/*
 * Read PT_DYNAMIC: DT_NEEDED, DT_RPATH, DT_RUNPATH and DF_1_NODEFLIB.
 * Program headers are used rather than sections so that section-stripped
 * files work.  The interpreter (PT_INTERP), if any, goes to *interp.
 */
static int dso_load(const char *path, struct dso *d, char **interp,
		    uint16_t *machine, char *err, size_t errlen)
{
	struct elf_file f;
	int rc;

	memset(d, 0, sizeof(*d));
	if (interp)
		*interp = NULL;
	rc = elf_file_open(&f, path, err, errlen);
	if (rc)
		return rc;
	if (machine)
		*machine = f.eh.e_machine;
	rc = dso_set_path(d, path);
	if (!rc && interp)
		rc = read_interp(&f, interp);
	if (!rc)
		rc = read_dynamic(&f, d, err, errlen);
	if (rc == -ENOMEM)
		elf_fail(err, errlen, rc, "out of memory");
	else if (rc && rc != -E2BIG)	/* which bound, said already */
		elf_fail(err, errlen, rc,
			 "%s: truncated or corrupt dynamic section", path);
	if (rc) {
		dso_free(d);
		if (interp) {
			free(*interp);
			*interp = NULL;
		}
	}
	elf_file_close(&f);
	return rc;
}

/* A library file the loader would accept for an object of this machine. */
static bool lib_usable(const char *path, uint16_t machine)
{
	struct elf_file f = { .fd = -1 };
	Elf64_Ehdr eh;
	struct stat st;
	bool ok;

	f.fd = elf_open_regular(path, &st, NULL, 0);
	if (f.fd < 0)
		return false;
	f.size = (uint64_t)st.st_size;
	ok = !elf_read_at(&f, 0, &eh, sizeof(eh)) &&
	     !elf_check_ident(eh.e_ident, path, NULL, 0) &&
	     eh.e_type == ET_DYN && eh.e_machine == machine;
	close(f.fd);
	return ok;
}

static bool try_lib(const char *path, uint16_t machine, char *out,
		    size_t outlen)
{
	char canon[PATH_MAX];

	if (!lib_usable(path, machine) || !realpath(path, canon))
		return false;
	elf_copy_str(out, outlen, canon);
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
	f.fd = elf_open_regular("/etc/ld.so.cache", &st, NULL, 0);
	if (f.fd < 0)
		return;
	if ((uint64_t)st.st_size > MAX_LDCACHE_SIZE)
		goto out;
	f.size = (uint64_t)st.st_size;
	if (elf_read_dup(&f, 0, f.size, &c->buf))
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

/*
 * Called for each DT_NEEDED entry as ld.so meets it, breadth first:
 * @found is where it is, NULL when the search path lacks it; then once
 * for the PT_INTERP loader (@name its path, @req NULL).  Nonzero stops
 * the walk and is what walk_needed() returns.
 */
typedef int (*needed_fn)(void *ctx, const char *name, const char *found,
			 const char *req);

/* The closure of @exe_path's DT_NEEDED, each object met given to @fn. */
static int walk_needed(const char *exe_path, needed_fn fn, void *ctx,
		       size_t *nobjs, char *err, size_t errlen)
{
	struct dso *q = calloc(MAX_NEEDED_OBJS, sizeof(*q));
	struct ldcache cache;
	char *interp = NULL, found[PATH_MAX];
	size_t nq = 0, qi, i, j;
	uint16_t machine;
	int rc;

	if (!q)
		return elf_fail(err, errlen, -ENOMEM, "out of memory");
	rc = dso_load(exe_path, &q[0], &interp, &machine, err, errlen);
	if (rc) {
		free(q);
		return rc;
	}
	nq = 1;
	ldcache_load(&cache);
	for (qi = 0; qi < nq && !rc; qi++) {
		for (i = 0; i < q[qi].nneeded && !rc; i++) {
			const char *name = q[qi].needed[i];
			bool ok = search_lib(name, &q[qi], &q[0], &cache,
					     machine, found, sizeof(found));
			bool seen = false;

			rc = fn(ctx, name, ok ? found : NULL, q[qi].path);
			for (j = 0; j < nq && !seen && ok; j++)
				seen = !strcmp(q[j].path, found);
			if (rc || !ok || seen || nq == MAX_NEEDED_OBJS)
				continue;
			/* An unreadable dependency just isn't walked. */
			if (!dso_load(found, &q[nq], NULL, NULL, NULL, 0))
				nq++;
		}
	}
	if (!rc && interp && realpath(interp, found))
		rc = fn(ctx, interp, found, NULL);
	*nobjs = nq;
	for (i = 0; i < nq; i++)
		dso_free(&q[i]);
	free(q);
	free(interp);
	free(cache.buf);
	return rc;
}

/* elf_find_needed()'s search: the first object short_name designates. */
struct find_needed {
	const char *short_name;
	char *out;
	size_t out_len;
	char *err;
	size_t errlen;
	bool reported;
};

static int find_needed_one(void *ctx, const char *name, const char *found,
			   const char *req)
{
	struct find_needed *fn = ctx;

	if (!elf_obj_name_matches(name, fn->short_name))
		return 0;
	if (!found) {
		elf_fail(fn->err, fn->errlen, -ENOENT,
			 "%s (needed by %s) not found in the library search path",
			 name, req);
		fn->reported = true;
		return 0;
	}
	elf_copy_str(fn->out, fn->out_len, found);
	return 1;
}

int elf_find_needed(const char *exe_path, const char *short_name,
		    char *out_path, size_t out_len, char *err, size_t errlen)
{
	struct find_needed fn = { short_name, out_path, out_len, err, errlen,
				  false };
	size_t nobjs = 0;
	int rc;

	if (!short_name || !*short_name)
		return elf_fail(err, errlen, -EINVAL, "empty object name");
	rc = walk_needed(exe_path, find_needed_one, &fn, &nobjs, err, errlen);
	if (rc == 1)
		return 0;
	if (!rc && fn.reported)
		return -ENOENT;
	if (!rc)
		rc = elf_fail(err, errlen, -ENOENT,
			      "no library matching '%s' among the %zu objects %s loads",
			      short_name, nobjs, exe_path);
	return rc;
}

/* elf_needed_list()'s gathering: each object once, in load order. */
struct needed_list {
	char **paths;
	size_t n;
};

static int needed_list_add(void *ctx, const char *name, const char *found,
			   const char *req)
{
	struct needed_list *l = ctx;
	char **grown;
	size_t i;

	(void)name;
	(void)req;
	for (i = 0; found && i < l->n; i++)
		if (!strcmp(l->paths[i], found))
			return 0;
	if (!found || l->n == MAX_NEEDED_OBJS)
		return 0;
	grown = realloc(l->paths, (l->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	l->paths = grown;
	l->paths[l->n] = strdup(found);
	if (!l->paths[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

int elf_needed_list(const char *exe_path, char ***paths, size_t *n,
		    char *err, size_t errlen)
{
	struct needed_list l = { NULL, 0 };
	size_t nobjs;
	int rc;

	*paths = NULL;
	*n = 0;
	rc = walk_needed(exe_path, needed_list_add, &l, &nobjs, err, errlen);
	if (rc == -ENOMEM)
		elf_fail(err, errlen, rc, "out of memory");
	if (rc) {
		elf_paths_free(l.paths, l.n);
		return rc;
	}
	*paths = l.paths;
	*n = l.n;
	return 0;
}

void elf_paths_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
