// SPDX-License-Identifier: GPL-2.0
/*
 * One object as ld.so reads it: its canonical path and the directory
 * $ORIGIN stands for, its PT_INTERP, and its PT_DYNAMIC's DT_NEEDED,
 * DT_RPATH, DT_RUNPATH and DF_1_NODEFLIB; and whether a file found for a
 * name is a library ld.so would accept.  elf_libsearch.c walks them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_internal.h"

void elf_dso_free(struct elf_dso *d)
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
static int dso_set_path(struct elf_dso *d, const char *path)
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
			   struct dyn_info *di, struct elf_dso *d)
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
			    struct elf_dso *d, char *err, size_t errlen)
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
static int read_dynamic(const struct elf_file *f, struct elf_dso *d, char *err,
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
int elf_dso_load(const char *path, struct elf_dso *d, char **interp,
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
		elf_dso_free(d);
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

bool elf_lib_try(const char *path, uint16_t machine, char *out,
		 size_t outlen)
{
	char canon[PATH_MAX];

	if (!lib_usable(path, machine) || !realpath(path, canon))
		return false;
	elf_copy_str(out, outlen, canon);
	return true;
}
