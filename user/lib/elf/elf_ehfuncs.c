// SPDX-License-Identifier: GPL-2.0
/*
 * Functions without symbols: a stripped program's own functions, and a
 * library's static ones, are still described by .eh_frame
 * (elf_ehframe.c).  Each one no function symbol covers becomes a
 * function named "OBJ+0xSTART": OBJ the object's file name, START its
 * link-time address (what "app+0x1234" names an address by elsewhere,
 * and what objdump and nm print), so that --auto can pick it, a report
 * can show it, and --func can trace it by that same spelling.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_internal.h"
#include "util/array.h"

bool elf_addr_spelling(const char *name, char *base, size_t len,
		       uint64_t *vaddr)
{
	const char *plus = strrchr(name, '+');
	const char *hex;
	uint64_t v = 0;

	if (!plus || plus == name || (size_t)(plus - name) >= len ||
	    plus[1] != '0' || (plus[2] != 'x' && plus[2] != 'X'))
		return false;
	hex = plus + 3;
	if (!*hex || strlen(hex) > 16)
		return false;
	for (; *hex; hex++) {
		if (!isxdigit((unsigned char)*hex))
			return false;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)*hex) ?
					*hex - '0' :
					tolower((unsigned char)*hex) - 'a' + 10);
	}
	memcpy(base, name, (size_t)(plus - name));
	base[plus - name] = '\0';
	*vaddr = v;
	return true;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct elf_fde_func *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

/* Sorted by start; one function per start, none inside the one before. */
static size_t eh_sort(struct elf_fde_func *fn, size_t n)
{
	size_t i, k = 0;

	if (n > 1)
		qsort(fn, n, sizeof(*fn), fde_cmp);
	for (i = 0; i < n; i++) {
		if (k && fn[i].start < fn[k - 1].start + fn[k - 1].size)
			continue;
		fn[k++] = fn[i];
	}
	return k;
}

/* Read o's .eh_frame functions once; a failure is kept in words. */
static void read_fdes(struct elf_obj *o)
{
	char err[sizeof(o->fde_err)];

	if (o->fdes_read)
		return;
	o->fdes_read = true;
	err[0] = '\0';
	if (elf_ehframe_funcs(&o->f, &o->fdes, &o->nfdes, err, sizeof(err)))
		elf_copy_str(o->fde_err, sizeof(o->fde_err), err);
	o->nfdes = eh_sort(o->fdes, o->nfdes);
}

/* How far the function symbols starting at or below some address reach. */
struct cover {
	const struct elf_obj *o;
	size_t next;		/* first symbol not yet taken in */
	uint64_t reach;		/* end of the furthest-reaching one */
};

/* Whether a function symbol covers @start (taken in increasing order). */
static bool covered(struct cover *c, uint64_t start)
{
	const struct esym *s;
	uint64_t end;

	for (; c->next < c->o->nsyms; c->next++) {
		s = &c->o->syms[c->next];
		if (s->value > start)
			break;
		if (!esym_is_func(s) || s->synth)
			continue;
		/* A size 0 symbol covers its own address only. */
		end = s->value + (s->size ? s->size : 1);
		if (end < s->value)
			end = UINT64_MAX;
		if (end > c->reach)
			c->reach = end;
	}
	return c->reach > start;
}

static int make_synth(const struct elf_obj *o, const struct elf_fde_func *fn,
		      struct esym *e)
{
	char name[sizeof(o->base) + 24];

	snprintf(name, sizeof(name), "%s+0x%" PRIx64, o->base, fn->start);
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	if (!e->name)
		return -ENOMEM;
	e->value = fn->start;
	e->size = fn->size;
	e->type = STT_FUNC;
	e->bind = STB_LOCAL;
	e->owned = true;
	e->synth = true;
	return 0;
}

/*
 * The PLT sections' ranges: stubs that jump to a library's function have
 * FDEs, but are no function of the object.
 */
struct plts {
	uint64_t start[4], size[4];
	size_t n;
};

static void find_plts(const struct elf_obj *o, struct plts *p)
{
	static const char *const plt[] = {
		".plt", ".plt.got", ".plt.sec", ".iplt", NULL
	};
	size_t i;
	long k;

	p->n = 0;
	for (i = 0; plt[i]; i++) {
		k = elf_section_by_name(&o->f, plt[i]);
		if (k <= 0)
			continue;
		p->start[p->n] = o->f.sh[k].sh_addr;
		p->size[p->n++] = o->f.sh[k].sh_size;
	}
}

static bool in_plt(const struct plts *p, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (vaddr >= p->start[i] && vaddr - p->start[i] < p->size[i])
			return true;
	return false;
}

/*
 * Say why functions past the symbol bound have no name (@cut), where a
 * spec that names one by address will show it (o->fde_err); a later
 * pass that fits (debug symbols cover more) takes the words back.
 */
static void note_cut(struct elf_obj *o, bool cut)
{
	if (cut && (!o->fde_err[0] || o->fdes_cut))
		snprintf(o->fde_err, sizeof(o->fde_err),
			 "functions past the bound of %llu symbols have no "
			 "names (ISPOT_ELF_MAX_SYMBOLS)",
			 (unsigned long long)elf_limit(ELF_LIMIT_SYMBOLS));
	else if (!cut && o->fdes_cut)
		o->fde_err[0] = '\0';
	o->fdes_cut = cut;
}

void elf_obj_add_ehframe(struct elf_obj *o)
{
	struct cover c = { .o = o };
	struct esym *add = NULL;
	struct plts plts;
	size_t i, n = 0, cap = 0;
	uint64_t off, room = elf_limit(ELF_LIMIT_SYMBOLS);

	read_fdes(o);
	/* Old names first: what covers an FDE is a true symbol. */
	if (elf_obj_set_synth(o, NULL, 0) || !o->nfdes)
		return;
	find_plts(o, &plts);
	/* Named functions and these together: the bound on symbols. */
	room = o->nraw < room ? room - o->nraw : 0;
	for (i = 0; i < o->nfdes && n < room; i++) {
		const struct elf_fde_func *fn = &o->fdes[i];

		if (covered(&c, fn->start) || in_plt(&plts, fn->start) ||
		    elf_vaddr_to_offset(&o->f, fn->start, true, &off))
			continue;
		if (ARRAY_RESERVE(add, cap, n + 1) ||
		    make_synth(o, fn, &add[n]))
			break;
		n++;
	}
	note_cut(o, i < o->nfdes && n >= room);
	elf_obj_set_synth(o, add, n);
	free(add);
}
