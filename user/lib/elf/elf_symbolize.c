// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime addresses to names: which mapping, which object, which symbol
 * covers the address.  The objects are read and kept by elf_objcache.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_internal.h"
#include "util/array.h"
#include "util/errors.h"
#include "util/path.h"

/* An address a frozen symbolizer names, as elf_symbolize() named it. */
struct sz_named {
	uint64_t addr;
	enum elf_addr_kind kind;
	unsigned char sym_type;
	/*
	 * obj, sym point at an earlier entry's string (elf_symbolizer_add()):
	 * not freed with this one.
	 */
	bool obj_borrowed, sym_borrowed;
	uint64_t sym_off, sym_size, vaddr;
	char *obj, *sym;
};

static void sz_named_free(struct sz_named *n)
{
	if (!n->obj_borrowed)
		free(n->obj);
	if (!n->sym_borrowed)
		free(n->sym);
}

/*
 * @str, or @prev itself when they are the same: a recording's names
 * repeat their object's path (format 6 says so in one bit), and a copy
 * each would let a table of a few bytes a name take gigabytes.
 */
static char *share_or_dup(char *prev, const char *str, bool *borrowed)
{
	*borrowed = prev && !strcmp(prev, str);
	return *borrowed ? prev : strdup(str);
}

/* Of @proc (elf_proc_init()'s, or one known earlier). */
static int symbolizer_new(const struct elf_proc *proc,
			  struct elf_symbolizer **out, char *err,
			  size_t errlen)
{
	struct elf_symbolizer *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s)
		return elf_fail(err, errlen, -ENOMEM, "out of memory");
	s->proc = *proc;
	elf_objcache_init(&s->objs, &s->proc);
	rc = elf_snapshot_read(&s->proc, &s->maps, &s->nmaps, &s->maps_read_ns,
			       err, errlen);
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
	struct elf_proc proc;

	elf_proc_init(&proc, pid);
	symbolizer_new(&proc, &s, err, errlen);
	return s;
}

struct elf_symbolizer *elf_symbolizer_new_of(pid_t pid, uint64_t start_time,
					     char *err, size_t errlen)
{
	struct elf_proc proc = { .pid = pid, .start_time = start_time };
	struct elf_symbolizer *s;

	if (pid <= 0) {
		elf_fail(err, errlen, -EINVAL, "no process %d", (int)pid);
		return NULL;
	}
	symbolizer_new(&proc, &s, err, errlen);
	return s;
}

struct elf_symbolizer *elf_symbolizer_frozen(void)
{
	struct elf_symbolizer *s = calloc(1, sizeof(*s));

	if (s) {
		s->frozen = true;
		s->sorted = true;
	}
	return s;
}

int elf_symbolizer_add(struct elf_symbolizer *s, uint64_t addr,
		       const struct elf_addr_info *info)
{
	struct sz_named *n, *prev;

	if (!s->frozen)
		return -EINVAL;
	if (ARRAY_RESERVE(s->named, s->capnamed, s->nnamed + 1))
		return -ENOMEM;
	n = &s->named[s->nnamed];
	prev = s->nnamed ? n - 1 : NULL;
	*n = (struct sz_named){
		.addr = addr, .kind = info->kind,
		.sym_type = info->sym_type, .sym_off = info->sym_off,
		.sym_size = info->sym_size, .vaddr = info->vaddr,
	};
	n->obj = share_or_dup(prev ? prev->obj : NULL, info->obj,
			      &n->obj_borrowed);
	n->sym = share_or_dup(prev ? prev->sym : NULL, info->sym,
			      &n->sym_borrowed);
	if (!n->obj || !n->sym) {
		sz_named_free(n);
		return -ENOMEM;
	}
	if (prev && prev->addr >= addr)
		s->sorted = false;
	s->nnamed++;
	return 0;
}

static int named_cmp(const void *a, const void *b)
{
	const struct sz_named *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A frozen symbolizer's answer: the name it was given for @addr, if any. */
static int frozen_symbolize(struct elf_symbolizer *s, uint64_t addr,
			    struct elf_addr_info *info, char *err,
			    size_t errlen)
{
	struct sz_named key = { .addr = addr }, *n;

	if (!s->sorted) {
		qsort(s->named, s->nnamed, sizeof(*s->named), named_cmp);
		s->sorted = true;
	}
	n = s->nnamed ? bsearch(&key, s->named, s->nnamed, sizeof(*n),
				named_cmp) : NULL;
	if (!n)
		return elf_fail(err, errlen, -ENOENT,
				"address 0x%" PRIx64 " was not named", addr);
	info->kind = n->kind;
	info->sym_type = n->sym_type;
	info->sym_off = n->sym_off;
	info->sym_size = n->sym_size;
	info->vaddr = n->vaddr;
	snprintf(info->obj, sizeof(info->obj), "%s", n->obj);
	snprintf(info->sym, sizeof(info->sym), "%s", n->sym);
	return 0;
}

void elf_symbolizer_free(struct elf_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nnamed; i++)
		sz_named_free(&s->named[i]);
	free(s->named);
	elf_objcache_free(&s->objs);
	elf_maps_free(s->maps, s->nmaps);
	elf_maps_free(s->kept, s->nkept);
	free(s);
}

uint64_t elf_symbolizer_held(const struct elf_symbolizer *s)
{
	return s->objs.held;
}

void elf_symbolizer_hold_at_most(struct elf_symbolizer *s, uint64_t bytes)
{
	s->objs.hold_max = bytes;
}

uint64_t elf_symbolizer_objects_read(const struct elf_symbolizer *s)
{
	return s->objs.objects_read;
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
	return elf_name_pref(a->name, b->name) < 0;
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

/*
 * vaddr lies in the part of some PT_LOAD of f past its file bytes (the
 * zeroed tail, .bss, that a heap joined to it holds), and that segment's
 * file bytes end inside [lo, hi), the file mapping below the heap, in
 * f's addresses: any other object mapped there names no heap address.
 */
static bool in_bss(const struct elf_file *f, uint64_t vaddr, uint64_t lo,
		   uint64_t hi)
{
	size_t i;

	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];
		uint64_t file_end = ph->p_vaddr + ph->p_filesz;

		if (ph->p_type == PT_LOAD && ph->p_memsz > ph->p_filesz &&
		    file_end > lo && file_end <= hi && vaddr >= file_end &&
		    vaddr - ph->p_vaddr < ph->p_memsz)
			return true;
	}
	return false;
}

static bool map_is_heap(const struct elf_map *m)
{
	return !strcmp(m->path, "[heap]");
}

/*
 * Whether heap mapping @maps[@idx] begins where the mapping below it
 * ends: only then may it hold a .bss tail (no randomisation).  With it,
 * the heap lies a random gap above, and its addresses are named heap at
 * once, with no object read.
 */
static bool heap_joins_below(const struct elf_map *maps, size_t idx)
{
	return idx && maps[idx - 1].end == maps[idx].start;
}

static void set_pseudo(struct elf_addr_info *info, enum elf_addr_kind kind,
		       const char *name, uint64_t off)
{
	info->kind = kind;
	elf_copy_str(info->obj, sizeof(info->obj), name);
	info->vaddr = off;
}

/* An address in anonymous mapping @m that no object's segment holds. */
static void set_unowned(struct elf_addr_info *info, const struct elf_map *m,
			uint64_t addr)
{
	if (map_is_heap(m))
		set_pseudo(info, ELF_ADDR_HEAP, "[heap]", addr - m->start);
	else
		set_pseudo(info, ELF_ADDR_ANON, "anon", addr - m->start);
}

/* @s's snapshots and the kept one's time, as the object cache sees them. */
static struct elf_snapshots snapshots_of(const struct elf_symbolizer *s)
{
	return (struct elf_snapshots){ .maps = s->maps, .nmaps = s->nmaps,
				       .kept = s->kept, .nkept = s->nkept,
				       .kept_read_ns = s->kept_read_ns };
}

/*
 * @addr named into @info (zeroed) from mapping @m of the snapshot
 * @maps[0..@nmaps), the current one or the kept one (@kept).
 */
static void name_in(struct elf_symbolizer *s, const struct elf_map *maps,
		    size_t nmaps, bool kept, const struct elf_map *m,
		    uint64_t addr, struct elf_addr_info *info)
{
	const struct elf_snapshots sn = snapshots_of(s);
	const struct elf_map *fm = NULL;
	const struct esym *sym;
	struct elf_obj *o;
	uint64_t bias, vaddr;
	size_t idx = (size_t)(m - maps);

	if (elf_is_file_map(m)) {
		fm = m;
	} else if (!m->path[0] ||
		   (map_is_heap(m) && heap_joins_below(maps, idx))) {
		/*
		 * .bss beyond the last file page is an anonymous mapping
		 * placed right after the object's file mappings.  Without
		 * address-space randomisation (setarch -R, gdb) the heap
		 * starts where .bss ends, and the maps can show .bss's tail
		 * as the start of "[heap]": only what the .bss of the
		 * object below holds is not heap.
		 */
		while (idx-- > 0) {
			if (elf_is_file_map(&maps[idx])) {
				fm = &maps[idx];
				break;
			}
		}
	} else if (map_is_heap(m)) {
		set_unowned(info, m, addr);
		return;
	} else if (!strncmp(m->path, "[stack", 6)) {
		set_pseudo(info, ELF_ADDR_STACK, "[stack]", addr - m->start);
		return;
	} else {
		set_pseudo(info, ELF_ADDR_ANON, m->path, addr - m->start);
		return;
	}

	o = fm ? elf_objcache_get(&s->objs, &sn, fm, kept) : NULL;
	if (!o || elf_bias_from_map(&o->f, maps, nmaps, fm, &bias)) {
		if (fm == m)
			set_pseudo(info, ELF_ADDR_FILE, m->path,
				   addr - m->start + m->offset);
		else
			set_unowned(info, m, addr);
		return;
	}
	vaddr = addr - bias;
	if (fm != m && !(map_is_heap(m) ?
			 in_bss(&o->f, vaddr, fm->start - bias,
				fm->end - bias) :
			 in_load(&o->f, vaddr))) {
		set_unowned(info, m, addr);
		return;
	}
	set_pseudo(info, ELF_ADDR_OBJECT, fm->path, vaddr);
	sym = sym_lookup(o, vaddr);
	if (sym) {
		const char *dem = elf_sym_demangled(o, sym);

		info->kind = ELF_ADDR_SYMBOL;
		elf_copy_str(info->sym, sizeof(info->sym),
			     dem ? dem : sym->name);
		info->sym_off = vaddr - sym->value;
		info->sym_size = sym->size;
		info->sym_type = sym->type;
	}
}

/*
 * Whether @a and @b name an address alike: the same object, symbol and
 * offset, or the same memory of no object (a stack that grew down gives
 * its addresses offsets from another start).
 */
static bool same_name(const struct elf_addr_info *a,
		      const struct elf_addr_info *b)
{
	if (a->kind != b->kind || strcmp(a->obj, b->obj))
		return false;
	if (a->kind == ELF_ADDR_HEAP || a->kind == ELF_ADDR_STACK ||
	    a->kind == ELF_ADDR_ANON)
		return true;
	return a->vaddr == b->vaddr && a->sym_off == b->sym_off &&
	       !strcmp(a->sym, b->sym);
}

/*
 * Whether kept mapping @k is current mapping @m, a file's, the same file
 * and part at the same place, of contents unchanged since the kept
 * snapshot as far as the object read for it tells: then the kept
 * snapshot names nothing else there, and is not asked.  Asked, it would
 * refuse where it cannot prove the file (a reader without map_files on
 * a btrfs subvolume, elf_objcache.c's kept_unchanged()), and the names
 * of every library still loaded would be lost.  A file rewritten and
 * loaded again at the very place still differs (its mtime).  An
 * anonymous mapping is named from the file below it (.bss): not enough.
 */
static bool kept_is_current(const struct elf_symbolizer *s,
			    const struct elf_map *k, const struct elf_map *m)
{
	const struct elf_snapshots sn = snapshots_of(s);

	return elf_is_file_map(m) && elf_map_same(k, m) &&
	       !elf_objcache_changed_since_kept(&s->objs, &sn, m);
}

/*
 * @addr, which the current snapshot maps (named into @info) and the kept
 * one maps at @k: one name in both, or it may have been either's when it
 * was seen (a library unloaded, another loaded at its place), and no
 * name is sure: -ENOENT, @info zeroed.  Not inlined: the kept snapshot's
 * name and the message's take some 4.6 KB of stack, which would
 * otherwise be in the frame of every elf_symbolize() call (the live
 * drain's), where few addresses are in both.
 */
static __attribute__((noinline)) int
named_alike_in_kept(struct elf_symbolizer *s, const struct elf_map *k,
		    uint64_t addr, struct elf_addr_info *info, char *err,
		    size_t errlen)
{
	struct elf_addr_info then;
	char was[128], now[128];

	memset(&then, 0, sizeof(then));
	name_in(s, s->kept, s->nkept, true, k, addr, &then);
	if (same_name(info, &then))
		return 0;
	elf_addr_format(&then, was, sizeof(was));
	elf_addr_format(info, now, sizeof(now));
	memset(info, 0, sizeof(*info));
	return elf_fail(err, errlen, -ENOENT, "address 0x%" PRIx64 " was %s, "
			"then %s", addr, was, now);
}

int elf_symbolize(struct elf_symbolizer *s, uint64_t addr,
		  struct elf_addr_info *info, char *err, size_t errlen)
{
	const struct elf_map *m, *k;

	memset(info, 0, sizeof(*info));
	if (s->frozen)
		return frozen_symbolize(s, addr, info, err, errlen);
	m = elf_maps_find(s->maps, s->nmaps, addr);
	/*
	 * Re-read for an address the current snapshot does not map (a
	 * library loaded since), the kept one's too: another file may have
	 * been mapped at its place since, and the two are compared.  Where
	 * no read can be had any more (the process gone), the kept one
	 * names it.
	 */
	if (!m && !s->no_reread) {
		int rc = elf_symbolizer_refresh(s, err, errlen);

		if (!rc)
			m = elf_maps_find(s->maps, s->nmaps, addr);
		else if (!elf_snapshot_kept_find(s, addr))
			return rc;
		else if (err && errlen)
			err[0] = '\0';	/* named all the same */
	}
	k = elf_snapshot_kept_find(s, addr);
	if (!m && !k)
		return elf_fail(err, errlen, -ENOENT,
				"address 0x%" PRIx64 " is not mapped", addr);
	if (!m) {
		name_in(s, s->kept, s->nkept, true, k, addr, info);
		return 0;
	}
	name_in(s, s->maps, s->nmaps, false, m, addr, info);
	if (!k || kept_is_current(s, k, m))
		return 0;
	return named_alike_in_kept(s, k, addr, info, err, errlen);
}

int elf_addr_to_symbol(pid_t pid, uint64_t addr, struct elf_addr_info *info,
		       char *err, size_t errlen)
{
	struct elf_symbolizer *s;
	struct elf_proc proc;
	int rc;

	memset(info, 0, sizeof(*info));
	elf_proc_init(&proc, pid);
	rc = symbolizer_new(&proc, &s, err, errlen);
	if (rc)
		return rc;
	rc = elf_symbolize(s, addr, info, err, errlen);
	elf_symbolizer_free(s);
	return rc;
}

/*
 * Whether @sym is @obj's own spelling of a function without a symbol
 * (OBJ+0xSTART, from .eh_frame): it names its object already.
 */
static bool names_its_object(const char *sym, const char *obj)
{
	size_t n = strlen(obj);

	return !strncmp(sym, obj, n) && !strncmp(sym + n, "+0x", 3);
}

int elf_addr_format(const struct elf_addr_info *info, char *buf, size_t len)
{
	const char *obj = path_base(info->obj);
	const char *sep = ":";

	switch (info->kind) {
	case ELF_ADDR_SYMBOL:
		/* "libc.so.6+0x88ef0+0x305", not "libc.so.6:libc.so.6+..." */
		if (names_its_object(info->sym, obj))
			obj = sep = "";
		if (!info->sym_off)
			return snprintf(buf, len, "%s%s%s", obj, sep,
					info->sym);
		return snprintf(buf, len, "%s%s%s+0x%" PRIx64, obj, sep,
				info->sym, info->sym_off);
	case ELF_ADDR_OBJECT:
	case ELF_ADDR_FILE:
		return snprintf(buf, len, "%s+0x%" PRIx64, obj, info->vaddr);
	default:
		return snprintf(buf, len, "%s", info->obj);
	}
}
