// SPDX-License-Identifier: GPL-2.0
/*
 * Function specs to probe points: parse "[OBJ:]name[@ver]", find the
 * object, match the name or glob against its functions and translate
 * each match to the file offset a uprobe wants.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/demangle.h"
#include "elf/elf_internal.h"
#include "util/path.h"

/* Overloads listed in the error for an ambiguous C++ name. */
#define MAX_OVERLOADS_SHOWN	8

struct pattern {
	char *base;		/* name or glob, without version */
	const char *cxx;	/* base without a C++ return type */
	const char *ver;	/* version glob, or NULL */
	bool def_only;		/* "@@": only the default version */
	bool is_glob;
	/* "OBJ+0xSTART": the function at START of the object named OBJ */
	bool is_addr;
	uint64_t addr;
	char addr_obj[256];
};

struct cand {
	const struct esym *s;
	const char *demangled;		/* C++ only, else NULL */
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
	return elf_name_pref(a->name, b->name);
}

static int target_cmp(const void *pa, const void *pb)
{
	const struct elf_target_sym *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/*
 * The names a spec may give a function by: its linkage name and, for C++,
 * the demangled name, without the qualifiers after its parameter list
 * (so that "f(*)" is every overload) and without the list.
 */
static bool names_match(const struct pattern *p, const char *linkage,
			const char *dem)
{
	char *copy;
	bool hit;

	if (!fnmatch(p->base, linkage, 0))
		return true;
	if (!dem)
		return false;
	if (!fnmatch(p->cxx, dem, 0))
		return true;
	copy = strdup(dem);
	if (!copy)
		return false;
	copy[demangle_signature_len(dem)] = '\0';
	hit = !fnmatch(p->cxx, copy, 0);
	copy[demangle_bare_len(dem)] = '\0';
	hit = hit || !fnmatch(p->cxx, copy, 0);
	free(copy);
	return hit;
}

static bool name_matches(const struct elf_obj *o, const struct esym *s,
			 const struct pattern *p)
{
	return names_match(p, s->name, elf_sym_demangled(o, s));
}

static bool sym_matches(const struct elf_obj *o, const struct esym *s,
			const struct pattern *p)
{
	/* By address: a symbol found since (a debug file) is as good. */
	if (p->is_addr)
		return esym_is_func(s) && s->value == p->addr &&
		       !strcmp(p->addr_obj, o->base);
	if (!esym_is_func(s) || !name_matches(o, s, p))
		return false;
	if (!p->ver)
		return true;
	return s->ver && !fnmatch(p->ver, s->ver, 0) &&
	       (!p->def_only || !s->hidden);
}

static void display_name(const struct cand *c, const struct pattern *p,
			 char *buf, size_t len)
{
	const struct esym *s = c->s;
	const char *name = c->demangled ? c->demangled : s->name;

	if (s->ver && s->hidden)
		snprintf(buf, len, "%s@%s", name, s->ver);
	else if (s->ver && p->ver)
		snprintf(buf, len, "%s@@%s", name, s->ver);
	else
		elf_copy_str(buf, len, name);
}

/*
 * A C++ name given without parameter list names one function only if
 * its overloads do not share it; bpftrace would probe them all, but a
 * report line per overload nobody asked for hides the one that was meant.
 * Several addresses of one overload (constructor variants) are fine.
 */
static int check_overloads(const struct cand *c, size_t nc,
			   const char *pattern, const char *shown,
			   char *err, size_t errlen)
{
	const struct cand *first = NULL;
	size_t i, k, shown_n = 0, used;

	for (i = 0; i < nc; i++) {
		if (!c[i].demangled)
			continue;
		if (!first)
			first = &c[i];
		else if (strcmp(first->name, c[i].name))
			break;
	}
	if (i == nc)
		return 0;
	elf_fail(err, errlen, -EINVAL, "'%s' is ambiguous in %s:", pattern,
		 shown);
	for (i = 0; err && errlen && i < nc; i++) {
		bool dup = false;

		for (k = 0; k < i; k++)
			dup |= !strcmp(c[k].name, c[i].name);
		if (dup || !c[i].demangled)
			continue;
		used = strlen(err);
		if (shown_n++ == MAX_OVERLOADS_SHOWN) {
			snprintf(err + used, errlen - used, " ...");
			break;
		}
		snprintf(err + used, errlen - used, "%s %s",
			 shown_n > 1 ? "," : "", c[i].name);
	}
	if (err && errlen) {
		used = strlen(err);
		snprintf(err + used, errlen - used,
			 "; name one with its parameter list ('%s') or trace all with a glob ('%s(*)')",
			 first->name, pattern);
	}
	return -EINVAL;
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
	if (p->is_addr && strcmp(p->addr_obj, o->base))
		return elf_fail(err, errlen, -ENOENT,
				"no function '%s' in %s; its functions without symbols are spelled %s+0xSTART",
				pattern, shown, o->base);
	if (p->is_addr)
		return elf_fail(err, errlen, -ENOENT,
				"no function starts at 0x%" PRIx64 " in %s%s%s%s; take START from --auto's picks or a report",
				p->addr, shown, why, o->fde_err[0] ? "; " : "",
				o->fde_err);

	if (!p->is_glob && !p->ver) {
		for (i = 0; i < o->nsyms; i++) {
			if (strcmp(o->syms[i].name, p->base) ||
			    esym_is_func(&o->syms[i]))
				continue;
			return elf_fail(err, errlen, -ENOENT,
					"'%s' in %s is not a function", pattern,
					shown);
		}
	}
	elf_fail(err, errlen, -ENOENT, "no function '%s' in %s%s", pattern,
		 shown, why);
	if (err && errlen && !o->has_symtab)
		elf_debuginfo_hint(o, err, errlen);
	if (err && errlen)
		elf_suggest(o, p->base, err, errlen);
	return -ENOENT;
}

/* "name", "name@ver" or "name@@ver" into p (p->base is malloc'd). */
static int parse_pattern(const char *pattern, struct pattern *p,
			 char *err, size_t errlen)
{
	const char *at = strchr(pattern, '@');

	memset(p, 0, sizeof(*p));
	p->base = at ? strndup(pattern, (size_t)(at - pattern)) :
		       strdup(pattern);
	if (!p->base)
		return elf_fail(err, errlen, -ENOMEM, "out of memory");
	if (at) {
		p->def_only = at[1] == '@';
		p->ver = at + (p->def_only ? 2 : 1);
	}
	if (!*p->base || (p->ver && !*p->ver))
		return elf_fail(err, errlen, -EINVAL, "bad function name '%s'",
				pattern);
	p->is_glob = strpbrk(pattern, "*?[") != NULL;
	p->cxx = demangle_skip_return(p->base);
	if (!p->is_glob && !p->ver)
		p->is_addr = elf_addr_spelling(p->base, p->addr_obj,
					       sizeof(p->addr_obj), &p->addr);
	return 0;
}

/* The functions of o that p matches, into a malloc'd array. */
static int collect_matches(const struct elf_obj *o, const struct pattern *p,
			   struct cand **out, size_t *nout)
{
	struct cand *c = malloc((o->nsyms ? o->nsyms : 1) * sizeof(*c));
	size_t nc = 0, i;

	*out = c;
	*nout = 0;
	if (!c)
		return -ENOMEM;
	for (i = 0; i < o->nsyms; i++) {
		if (!sym_matches(o, &o->syms[i], p))
			continue;
		c[nc].s = &o->syms[i];
		c[nc].demangled = elf_sym_demangled(o, &o->syms[i]);
		display_name(&c[nc], p, c[nc].name, sizeof(c[nc].name));
		nc++;
	}
	*nout = nc;
	return 0;
}

/*
 * A plain name means what the dynamic linker would bind it to: the
 * default version.  Hidden versions of a name drop out whenever the name
 * also exists unversioned or as a default.  Returns the candidates kept.
 */
static size_t keep_default_versions(struct cand *c, size_t nc)
{
	size_t i, j, k;

	if (!nc)
		return 0;
	qsort(c, nc, sizeof(*c), cand_cmp_name);
	for (i = 0, k = 0; i < nc; i = j) {
		bool have_default = !c[i].s->hidden;
		const char *name = c[i].s->name;

		for (j = i; j < nc && !strcmp(c[j].s->name, name); j++)
			if (!have_default || !c[j].s->hidden)
				c[k++] = c[j];
	}
	return k;
}

/* The first candidate that cannot be probed, and why. */
struct unprobeable {
	const struct cand *c;
	int rc;
};

/* The probe point of the candidates c[i..j) at one address. */
static int fill_target(const struct elf_obj *o, const struct cand *c,
		       size_t i, size_t j, const char *obj_path,
		       struct elf_target_sym *t)
{
	uint64_t off = 0;
	size_t k;
	int rc;

	rc = elf_vaddr_to_offset(&o->f, c[i].s->value, true, &off);
	if (rc)
		return rc;
	elf_copy_str(t->obj, sizeof(t->obj), obj_path);
	elf_copy_str(t->name, sizeof(t->name), c[i].name);
	if (c[i].demangled)
		elf_copy_str(t->linkage_name, sizeof(t->linkage_name),
			     c[i].s->name);
	t->vaddr = c[i].s->value;
	t->offset = off;
	for (k = i; k < j; k++)
		if (c[k].s->size > t->size)
			t->size = c[k].s->size;
	if (c[i].s->type == STT_GNU_IFUNC)
		t->flags |= ELF_SYM_IFUNC;
	if (c[i].s->ver)
		t->flags |= ELF_SYM_VERSIONED;
	return 0;
}

/*
 * One probe point per address, the group's first name being its best;
 * res holds nc entries.  Returns how many were filled.
 */
static size_t fill_targets(const struct elf_obj *o, struct cand *c,
			   size_t nc, const char *obj_path,
			   struct elf_target_sym *res, struct unprobeable *bad)
{
	size_t i, j, nres = 0;
	int rc;

	qsort(c, nc, sizeof(*c), cand_cmp_value);
	for (i = 0; i < nc; i = j) {
		for (j = i; j < nc && c[j].s->value == c[i].s->value; j++)
			;
		rc = fill_target(o, c, i, j, obj_path, &res[nres]);
		if (!rc)
			nres++;
		else if (!bad->c)
			*bad = (struct unprobeable){ &c[i], rc };
	}
	return nres;
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
	struct unprobeable bad = { 0 };
	struct cand *c = NULL;
	struct pattern p;
	size_t nc = 0, nres;
	int rc;

	rc = parse_pattern(pattern, &p, err, errlen);
	if (rc)
		goto out;
	if (collect_matches(o, &p, &c, &nc)) {
		rc = elf_fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	if (!p.ver)
		nc = keep_default_versions(c, nc);
	if (!nc) {
		rc = no_match(o, &p, pattern, shown, err, errlen);
		goto out;
	}
	if (!p.is_glob && !p.is_addr) {
		rc = check_overloads(c, nc, pattern, shown, err, errlen);
		if (rc)
			goto out;
	}
	res = calloc(nc, sizeof(*res));
	if (!res) {
		rc = elf_fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	nres = fill_targets(o, c, nc, obj_path, res, &bad);

	/*
	 * An exact name that cannot be probed is an error; a glob just
	 * skips such symbols, unless that leaves nothing.
	 */
	if (bad.c && (!p.is_glob || !nres)) {
		rc = elf_fail(err, errlen, -EINVAL,
			      "function '%s' in %s (address 0x%" PRIx64 ") %s",
			      bad.c->name, shown, bad.c->s->value,
			      elf_offset_error(bad.rc));
		goto out;
	}
	qsort(res, nres, sizeof(*res), target_cmp);
	*out = res;
	*nout = nres;
	res = NULL;
out:
	free(res);
	free(c);
	free(p.base);
	return rc;
}

int elf_resolve_file_flags(const char *path, const char *pattern,
			   unsigned int flags, struct elf_target_sym **out,
			   size_t *n, char *err, size_t errlen)
{
	struct elf_obj *o;
	char canon[PATH_MAX];
	int rc;

	*out = NULL;
	*n = 0;
	if (!pattern || !*pattern)
		return elf_fail(err, errlen, -EINVAL, "empty function name");
	rc = elf_obj_load(path, &o, err, errlen);
	if (rc)
		return rc;
	if (!realpath(path, canon))
		elf_copy_str(canon, sizeof(canon), path);
	if (!(flags & ELF_RESOLVE_ENTRY_ONLY))
		rc = elf_check_return_probes(o, path, err, errlen);
	if (!rc)
		rc = resolve_obj(o, pattern, canon, path, out, n, err, errlen);
	/* A .symtab stripped of some names: its debug file has them all. */
	if (rc == -ENOENT && !o->dbg.tried && elf_debuginfo_attach(o))
		rc = resolve_obj(o, pattern, canon, path, out, n, err, errlen);
	elf_obj_free(o);
	return rc;
}

int elf_resolve_file(const char *path, const char *pattern,
		     struct elf_target_sym **out, size_t *n,
		     char *err, size_t errlen)
{
	return elf_resolve_file_flags(path, pattern, 0, out, n, err, errlen);
}

/* Whether @name is spelled PROGRAM+0xSTART for the program at @path. */
static bool start_in_program(const char *name, const char *path)
{
	char base[256];
	uint64_t start;

	return elf_addr_spelling(name, base, sizeof(base), &start) &&
	       !strcmp(base, path_base(path));
}

/*
 * Split "OBJ:name" at the last ':' before any '[' so that a bracket
 * expression such as "[[:digit:]]" stays in the name.  A C++ scope "::"
 * is never that ':'.
 */
static int split_spec(const char *spec, char **obj, const char **name)
{
	const char *end = strchr(spec, '[');
	const char *colon = NULL, *s;

	for (s = spec; *s && (!end || s < end); s++)
		if (*s == ':' && s[1] != ':' && (s == spec || s[-1] != ':'))
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

int elf_resolve_spec(const char *spec, pid_t pid, const char *exe,
		     struct elf_target_sym **out, size_t *n,
		     char *err, size_t errlen)
{
	return elf_resolve_spec_flags(spec, pid, exe, 0, out, n, err, errlen);
}

int elf_resolve_spec_flags(const char *spec, pid_t pid, const char *exe,
			   unsigned int flags, struct elf_target_sym **out,
			   size_t *n, char *err, size_t errlen)
{
	char path[PATH_MAX];
	const char *name;
	char *obj = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if (!spec || !*spec)
		return elf_fail(err, errlen, -EINVAL, "empty function spec");
	if (split_spec(spec, &obj, &name))
		return elf_fail(err, errlen, -ENOMEM, "out of memory");
	if (obj && !*obj) {
		rc = elf_fail(err, errlen, -EINVAL,
			      "bad function spec '%s': empty object name",
			      spec);
		goto out;
	}
	if (!*name) {
		rc = elf_fail(err, errlen, -EINVAL,
			      "bad function spec '%s': empty function name",
			      spec);
		goto out;
	}
	rc = elf_locate_object(obj, pid, exe, spec, path, sizeof(path), err,
			       errlen);
	if (!rc)
		rc = elf_resolve_file_flags(path, name, flags, out, n, err,
					    errlen);
	/*
	 * A bare name: where ld.so would look next, as gdb does; but not
	 * for a start in the program itself, which names its object.
	 */
	if (rc == -ENOENT && !obj && !start_in_program(name, path))
		rc = elf_resolve_in_libs(name, pid, path, flags, out, n, err,
					 errlen);
out:
	free(obj);
	return rc;
}

/* Whether an OBJ: part designates @path, as elf_locate_object() finds it. */
static bool obj_matches(const char *obj, const char *path)
{
	char canon[PATH_MAX];

	if (!strchr(obj, '/'))
		return elf_obj_name_matches(path, obj);
	return !strcmp(obj, path) ||
	       (realpath(obj, canon) && !strcmp(canon, path));
}

bool elf_spec_matches(const char *spec, const char *obj, const char *name,
		      const char *linkage_name)
{
	struct pattern p = { 0 };
	char *sobj = NULL, *base = NULL, *ver;
	const char *pat;
	bool hit = false;

	if (split_spec(spec, &sobj, &pat) || (sobj && !obj_matches(sobj, obj)))
		goto out;
	base = strdup(name);
	if (!base || parse_pattern(pat, &p, NULL, 0))
		goto out;
	/* The display name's "@ver" or "@@ver": the version it was shown. */
	ver = strchr(base, '@');
	if (ver)
		*ver++ = '\0';
	if (ver && *ver == '@')
		ver++;
	hit = names_match(&p, linkage_name && *linkage_name ? linkage_name :
			  base, base);
	if (p.ver)
		hit = hit && ver && !fnmatch(p.ver, ver, 0);
out:
	free(p.base);
	free(sobj);
	free(base);
	return hit;
}
