// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol tables: the defined symbols of .symtab and .dynsym, with their
 * versions, merged into one list sorted by address.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/demangle.h"
#include "elf/elf_internal.h"
#include "util/array.h"

/* elf_obj.demangled[i] for a symbol that does not demangle. */
static char not_cxx[1];

void elf_obj_free(struct elf_obj *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->nsyms; i++) {
		if (o->syms[i].owned)
			free((char *)o->syms[i].name);
		if (o->demangled && o->demangled[i] != not_cxx)
			free(o->demangled[i]);
	}
	free(o->demangled);
	free(o->syms);
	free(o->fdes);
	free(o->dbg.path);
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

/* Note that bound which was crossed by have: -E2BIG. */
static int over(struct elf_obj *o, enum elf_limit which, uint64_t have)
{
	o->over = which;
	o->over_have = have;
	return -E2BIG;
}

/* elf_read_dup() counted against what o may read. */
static int obj_read(struct elf_obj *o, const struct elf_file *f,
		    uint64_t off, uint64_t len, char **out)
{
	int rc;

	*out = NULL;
	if (o->nread > elf_limit(ELF_LIMIT_READ) ||
	    len > elf_limit(ELF_LIMIT_READ) - o->nread)
		return over(o, ELF_LIMIT_READ, o->nread + len);
	rc = elf_read_dup(f, off, len, out);
	if (!rc)
		o->nread += len;
	return rc;
}

/* The first section of a type, or NULL. */
static const Elf64_Shdr *find_section(const struct elf_file *f, uint32_t type)
{
	size_t i;

	for (i = 1; i < f->shnum; i++)
		if (f->sh[i].sh_type == type)
			return &f->sh[i];
	return NULL;
}

/* Load the string table section idx links to. */
static int load_strtab(struct elf_obj *o, const struct elf_file *f,
		       uint32_t link, char **str,
		       uint64_t *strsz)
{
	const Elf64_Shdr *sh;
	char *buf;
	int rc;

	if (link == 0 || link >= f->shnum)
		return -ENOEXEC;
	sh = &f->sh[link];
	if (sh->sh_type != SHT_STRTAB)
		return -ENOEXEC;
	if (sh->sh_size > elf_limit(ELF_LIMIT_STRTAB))
		return over(o, ELF_LIMIT_STRTAB, sh->sh_size);
	rc = obj_read(o, f, sh->sh_offset, sh->sh_size, &buf);
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
static int load_verdef(struct elf_obj *o, const struct elf_file *f,
		       const char ***names, size_t *nnames)
{
	const Elf64_Shdr *sh = find_section(f, SHT_GNU_verdef);
	const char **v = NULL;
	uint64_t strsz, off = 0;
	uint32_t nv = 0;
	size_t count;
	char *buf = NULL, *str;
	int rc;

	*names = NULL;
	*nnames = 0;
	if (!sh)
		return 0;
	rc = load_strtab(o, f, sh->sh_link, &str, &strsz);
	if (rc)
		return rc;
	rc = obj_read(o, f, sh->sh_offset, sh->sh_size, &buf);
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
			uint32_t ndx = vd.vd_ndx & 0x7fff;

			if (aoff > sh->sh_size ||
			    sh->sh_size - aoff < sizeof(va))
				goto out;
			memcpy(&va, buf + aoff, sizeof(va));
			if (va.vda_name >= strsz)
				goto out;
			rc = idarray_reserve(&v, &nv, sizeof(*v), ndx);
			if (rc)
				goto out;
			v[ndx] = str + va.vda_name;
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

/* The version of each .dynsym entry: .gnu.version and its names. */
struct sym_versions {
	uint16_t *versym;	/* per symbol, or NULL */
	size_t nversym;
	const char **names;	/* by version index */
	size_t nnames;
};

static void versions_free(struct sym_versions *v)
{
	free(v->versym);
	free(v->names);
}

/* The versions of the symbol table section @symtab, if it has any. */
static int load_versions(struct elf_obj *o, const struct elf_file *f,
			 const Elf64_Shdr *symtab, struct sym_versions *v)
{
	const Elf64_Shdr *vs = find_section(f, SHT_GNU_versym);
	char *tmp;
	int rc;

	memset(v, 0, sizeof(*v));
	if (!vs || vs->sh_link != (uint64_t)(symtab - f->sh))
		return 0;
	v->nversym = vs->sh_size / sizeof(uint16_t);
	rc = obj_read(o, f, vs->sh_offset, v->nversym * sizeof(uint16_t),
		      &tmp);
	if (rc)
		return rc;
	v->versym = (uint16_t *)tmp;
	return load_verdef(o, f, &v->names, &v->nnames);
}

/*
 * The version of symbol i into e: spelled into its name by .symtab
 * ("foo@V1", "foo@@V2"), which is split here, or given by .gnu.version.
 */
static int set_version(struct esym *e, size_t i, const struct sym_versions *v)
{
	const char *at = strchr(e->name, '@');

	if (at && at != e->name) {
		/* String tables share suffixes: copy, don't cut. */
		e->name = strndup(e->name, (size_t)(at - e->name));
		if (!e->name)
			return -ENOMEM;
		e->owned = true;
		e->ver = at + (at[1] == '@' ? 2 : 1);
		e->hidden = at[1] != '@';
		if (!*e->ver) {
			e->ver = NULL;
			e->hidden = false;
		}
	} else if (v->versym && i < v->nversym) {
		uint16_t vi = v->versym[i] & 0x7fff;

		/* 0 is local, 1 the unversioned global. */
		if (vi >= 2 && vi < v->nnames && v->names[vi]) {
			e->ver = v->names[vi];
			e->hidden = v->versym[i] & 0x8000;
		}
	}
	return 0;
}

/* Append raw symbol i to o->syms if it is a defined, named one. */
static int add_symbol(struct elf_obj *o, const Elf64_Sym *s, size_t i,
		      const char *str, uint64_t strsz,
		      const struct sym_versions *v)
{
	struct esym *e = &o->syms[o->nsyms];
	unsigned char st = ELF64_ST_TYPE(s->st_info);
	int rc;

	if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS)
		return 0;
	if (st != STT_FUNC && st != STT_GNU_IFUNC &&
	    st != STT_OBJECT && st != STT_NOTYPE)
		return 0;
	if (s->st_name == 0 || s->st_name >= strsz)
		return 0;
	memset(e, 0, sizeof(*e));
	e->name = str + s->st_name;
	e->value = s->st_value;
	e->size = s->st_size;
	e->shndx = s->st_shndx;
	e->type = st;
	e->bind = ELF64_ST_BIND(s->st_info);
	rc = set_version(e, i, v);
	if (rc)
		return rc;
	if (e->size > o->max_size)
		o->max_size = e->size;
	o->nsyms++;
	return 0;
}

/*
 * Add the defined symbols of one symbol table section to o->syms.  For
 * .dynsym, version names come from .gnu.version/.gnu.version_d; .symtab
 * spells them into the name ("foo@V1", "foo@@V2"), which is split here so
 * both tables describe a symbol the same way.
 */
static int load_symbols(struct elf_obj *o, const struct elf_file *f,
			uint32_t type)
{
	const Elf64_Shdr *sh = find_section(f, type);
	struct sym_versions v = { 0 };
	Elf64_Sym *raw = NULL;
	size_t nraw, i;
	uint64_t strsz, entsz;
	struct esym *t;
	char *str, *tmp;
	int rc;

	if (!sh)
		return 0;
	entsz = sh->sh_entsize ? sh->sh_entsize : sizeof(Elf64_Sym);
	if (entsz != sizeof(Elf64_Sym))
		return -ENOEXEC;
	nraw = sh->sh_size / sizeof(Elf64_Sym);
	if (o->nraw > elf_limit(ELF_LIMIT_SYMBOLS) ||
	    nraw > elf_limit(ELF_LIMIT_SYMBOLS) - o->nraw)
		return over(o, ELF_LIMIT_SYMBOLS, o->nraw + nraw);
	rc = load_strtab(o, f, sh->sh_link, &str, &strsz);
	if (rc)
		return rc;
	rc = obj_read(o, f, sh->sh_offset, nraw * sizeof(Elf64_Sym), &tmp);
	if (rc)
		return rc;
	o->nraw += nraw;
	raw = (Elf64_Sym *)tmp;

	if (type == SHT_DYNSYM) {
		rc = load_versions(o, f, sh, &v);
		if (rc)
			goto out;
		o->has_dynsym = nraw > 1;
	} else {
		o->has_symtab = nraw > 1;
	}

	t = realloc(o->syms, (o->nsyms + nraw) * sizeof(*t) + 1);
	rc = -ENOMEM;
	if (!t)
		goto out;
	o->syms = t;
	for (i = 1, rc = 0; i < nraw && !rc; i++)
		rc = add_symbol(o, &raw[i], i, str, strsz, &v);
out:
	versions_free(&v);
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

	if (o->nsyms > 1)	/* o->syms is NULL without symbol tables */
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

/* Sort and deduplicate; demangling waits until a name is asked for. */
static void symbols_done(struct elf_obj *o)
{
	size_t i;

	dedupe_symbols(o);
	for (i = 0; i < o->nsyms && !o->demangled; i++)
		if (demangle_is_mangled(o->syms[i].name))
			o->demangled = calloc(o->nsyms, sizeof(*o->demangled));
}

/* The demangled names are cached by index: they go with the order. */
static void drop_demangled(struct elf_obj *o)
{
	size_t i;

	if (!o->demangled)
		return;
	for (i = 0; i < o->nsyms; i++)
		if (o->demangled[i] != not_cxx)
			free(o->demangled[i]);
	free(o->demangled);
	o->demangled = NULL;
}

int elf_obj_set_synth(struct elf_obj *o, struct esym *add, size_t n)
{
	struct esym *t;
	size_t i, k = 0;
	bool had = false;

	for (i = 0; i < o->nsyms; i++)
		had |= o->syms[i].synth;
	if (!had && !n)
		return 0;
	drop_demangled(o);
	for (i = 0; i < o->nsyms; i++) {
		if (!o->syms[i].synth)
			o->syms[k++] = o->syms[i];
		else
			free((char *)o->syms[i].name);
	}
	o->nsyms = k;
	t = n ? realloc(o->syms, (o->nsyms + n) * sizeof(*t)) : o->syms;
	if (n && !t) {
		for (i = 0; i < n; i++)
			free((char *)add[i].name);
		symbols_done(o);
		return -ENOMEM;
	}
	o->syms = t;
	for (i = 0; i < n; i++) {
		o->syms[o->nsyms++] = add[i];
		if (add[i].size > o->max_size)
			o->max_size = add[i].size;
	}
	symbols_done(o);
	return 0;
}

/* The file name functions are named after (@path, canonical if @canon). */
static void set_base(struct elf_obj *o, const char *path, bool canon)
{
	char buf[PATH_MAX];
	const char *p = canon && realpath(path, buf) ? buf : path;
	const char *slash = strrchr(p, '/');

	elf_copy_str(o->base, sizeof(o->base), slash ? slash + 1 : p);
}

int elf_obj_load(const char *path, struct elf_obj **out,
		 char *err, size_t errlen)
{
	return elf_obj_load_as(path, NULL, 0, out, err, errlen);
}

int elf_obj_load_as(const char *path, const char *name, unsigned int flags,
		    struct elf_obj **out, char *err, size_t errlen)
{
	struct elf_obj *o;
	int rc;

	*out = NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return elf_fail(err, errlen, -ENOMEM, "out of memory");
	rc = elf_file_open_how(&o->f, path, flags, err, errlen);
	if (rc) {
		free(o);
		return rc;
	}
	if (name)
		o->f.path = name;
	rc = load_symbols(o, &o->f, SHT_SYMTAB);
	if (!rc)
		rc = load_symbols(o, &o->f, SHT_DYNSYM);
	if (rc) {
		if (rc == -E2BIG)
			elf_over_limit(o->f.path, o->over, o->over_have, err,
				       errlen);
		else if (rc == -ENOMEM)
			elf_fail(err, errlen, rc, "out of memory");
		else
			elf_fail(err, errlen, rc,
				 "%s: truncated or corrupt ELF file (symbols)",
				 o->f.path);
		elf_obj_free(o);
		return rc;
	}
	symbols_done(o);
	set_base(o, name ? name : path, !name);
	/* A stripped object may have its symbols in a debug file. */
	if (!o->has_symtab)
		elf_debuginfo_attach(o);
	/* What no symbol names: the functions .eh_frame knows. */
	elf_obj_add_ehframe(o);
	*out = o;
	return 0;
}

int elf_obj_add_debug_symbols(struct elf_obj *o, const struct elf_file *dbg)
{
	int rc;

	drop_demangled(o);
	rc = load_symbols(o, dbg, SHT_SYMTAB);
	if (!rc && !o->has_symtab)
		rc = -ENOENT;
	symbols_done(o);
	/* Functions named from .eh_frame may have names now. */
	if (o->fdes_read)
		elf_obj_add_ehframe(o);
	return rc;
}

const char *elf_sym_demangled(const struct elf_obj *o, const struct esym *s)
{
	size_t i = (size_t)(s - o->syms);
	char *d;

	if (!o->demangled || !demangle_is_mangled(s->name))
		return NULL;
	if (!o->demangled[i]) {
		d = demangle(s->name);
		o->demangled[i] = d ? strdup(demangle_skip_return(d)) : NULL;
		free(d);
		if (!o->demangled[i])
			o->demangled[i] = not_cxx;
	}
	return o->demangled[i] == not_cxx ? NULL : o->demangled[i];
}

int elf_name_pref(const char *a, const char *b)
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
		if (elf_name_pref(names[i], names[best]) < 0)
			best = i;
	return best;
}
