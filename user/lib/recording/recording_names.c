// SPDX-License-Identifier: GPL-2.0
/*
 * The NAMES table (Documentation/recording.rst): how each address a
 * report may name (an argument, a call site) was named at the end of the
 * session, so that a replay names it so without the target.
 *
 * Format 6 packs it.  On a real program most names are of arguments that
 * point into anonymous memory: xz's 349,516 buffers took 49 bytes each in
 * formats 1 to 5 (fixed-width fields, two strings whole), 13% of its
 * recording.  Sorted by address, a name is told from the one before:
 * the address's step, the mapping's bias (vaddr - address, the same
 * through one mapping) as a change, the object's path and the symbol as
 * "the same" when they are, all as varints: 6 or 7 bytes such a name.
 */
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"
#include "recording/recording_codec.h"
#include "recording/recording_read.h"
#include "recording/recording_write.h"

/* Format 6: a name's flags byte, its kind and what repeats the last's. */
#define NAME_KIND_MASK	0x07
#define NAME_SAME_OBJ	0x08
#define NAME_SAME_SYM	0x10
#define NAME_RESERVED	0xe0

/*
 * The fewest bytes a name takes: format 6's step, flags, type, offset,
 * size and bias, one each; formats 1 to 5's fixed fields and two empty
 * strings.
 */
#define NAME_PACKED_MIN	6
#define NAME_WHOLE_MIN	45

_Static_assert(ELF_ADDR_ANON <= NAME_KIND_MASK, "a kind fits its bits");

static void buf_var(struct rec_buf *b, uint64_t v)
{
	unsigned char p[REC2_VAR_MAX];

	buf_put(b, p, rec2_put_var(p, v) - p);
}

static void buf_var_str(struct rec_buf *b, const char *s)
{
	size_t n = strlen(s);

	buf_var(b, n);
	buf_put(b, s, n);
}

static int addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The addresses to name, sorted, each once: those kept as themselves, and
 * the call before each return address (a return address is named by its
 * call, build.c).  NULL with *@n 0 for none; NULL with *@n set: no memory.
 */
static uint64_t *names_wanted(const struct rec_addrs *names, size_t *n)
{
	const struct hashmap_entry *e;
	size_t pos, nr = 0, i, out;
	uint64_t *a;

	*n = 2 * rec_addrs_size(names);
	if (!*n)
		return NULL;
	a = malloc(*n * sizeof(*a));
	if (!a)
		return NULL;
	hashmap_for_each(&names->map, e, pos) {
		unsigned char bits = rec_addrs_byte(e);

		if (bits & NAME_AS_IS)
			a[nr++] = e->key;
		if (bits & NAME_RETURN && e->key > 1)
			a[nr++] = e->key - 1;
	}
	qsort(a, nr, sizeof(*a), addr_cmp);
	for (i = out = 0; i < nr; i++)
		if (!out || a[i] != a[out - 1])
			a[out++] = a[i];
	*n = out;
	return a;
}

/* The last name's bias (link-time address - address): 0 before any. */
static uint64_t name_bias(const struct elf_addr_info *last, uint64_t prev)
{
	return last ? last->vaddr - prev : 0;
}

/* @info, of @addr, told from @last (NULL: the first) at @prev. */
static void put_packed(struct rec_buf *b, uint64_t addr,
		       const struct elf_addr_info *info,
		       const struct elf_addr_info *last, uint64_t prev)
{
	uint8_t flags = (uint8_t)info->kind;
	uint64_t bias = name_bias(last, prev);

	if (last && !strcmp(info->obj, last->obj))
		flags |= NAME_SAME_OBJ;
	if (last && !strcmp(info->sym, last->sym))
		flags |= NAME_SAME_SYM;
	buf_var(b, addr - prev);
	buf_u8(b, flags);
	buf_u8(b, info->sym_type);
	buf_var(b, info->sym_off);
	buf_var(b, info->sym_size);
	buf_var(b, rec2_zz(info->vaddr - addr - bias));
	if (!(flags & NAME_SAME_OBJ))
		buf_var_str(b, info->obj);
	if (!(flags & NAME_SAME_SYM))
		buf_var_str(b, info->sym);
}

/*
 * Name now what a report may ask for, from the maps as they are now (one
 * re-read, as the report's first miss would do; a process gone keeps its
 * last snapshot), not one re-read per address: arguments that are plain
 * numbers are in no mapping, and there may be a million of them.
 */
void rec_put_names(struct rec_buf *b, const struct rec_tables *w)
{
	struct elf_symbolizer *sym = w->tb->sym;
	struct elf_addr_info *pair = NULL;	/* this name's and the last's */
	size_t count_at = b->len, nr = 0, i;
	uint64_t *addrs = NULL, prev = 0;
	uint32_t n = 0;

	buf_u32(b, 0);
	if (!sym)
		return;
	elf_symbolizer_refresh(sym, NULL, 0);
	addrs = names_wanted(w->names, &nr);
	pair = malloc(2 * sizeof(*pair));
	if ((nr && !addrs) || !pair) {
		b->nomem = true;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		struct elf_addr_info *info = &pair[n & 1];

		/* Outside the snapshot: the report's look-up finds none. */
		if (!elf_symbolizer_knows(sym, addrs[i]) ||
		    elf_symbolize(sym, addrs[i], info, NULL, 0))
			continue;
		put_packed(b, addrs[i], info, n ? &pair[~n & 1] : NULL, prev);
		prev = addrs[i];
		n++;
	}
	if (!b->nomem)
		for (i = 0; i < 4; i++)
			b->p[count_at + i] = (unsigned char)(n >> (8 * i));
out:
	free(addrs);
	free(pair);
}

/* A varint of at most 64 bits (rec2_get_var()). */
static uint64_t cur_var(struct rec_cur *c)
{
	const unsigned char *p = c->p;
	uint64_t v;

	if (c->bad || !rec2_get_var(&p, c->p + c->left, &v)) {
		c->bad = true;
		return 0;
	}
	c->left -= p - c->p;
	c->p = p;
	return v;
}

/* A string of a varint's length into @buf, which it must fit with its NUL. */
static void cur_var_str(struct rec_cur *c, char *buf, size_t len)
{
	uint64_t n = cur_var(c);

	cur_str_of(c, n, buf, len);
}

/* Format 6's name into @info, told from @last (NULL: the first). */
static uint64_t get_packed(struct rec_cur *c, struct elf_addr_info *info,
			   const struct elf_addr_info *last, uint64_t prev)
{
	uint64_t step = cur_var(c), addr = prev + step;
	uint64_t bias = name_bias(last, prev);
	uint8_t flags = cur_u8(c);

	/* Sorted and each once: a step of 0, or one that wraps, is damage. */
	if ((last && !step) || addr < prev || (flags & NAME_RESERVED) ||
	    (flags & NAME_KIND_MASK) > ELF_ADDR_ANON ||
	    (!last && (flags & (NAME_SAME_OBJ | NAME_SAME_SYM))))
		c->bad = true;
	info->kind = flags & NAME_KIND_MASK;
	info->sym_type = cur_u8(c);
	info->sym_off = cur_var(c);
	info->sym_size = cur_var(c);
	info->vaddr = addr + bias + rec2_unzz(cur_var(c));
	if (c->bad)
		return addr;
	if (flags & NAME_SAME_OBJ)
		strcpy(info->obj, last->obj);
	else
		cur_var_str(c, info->obj, sizeof(info->obj));
	if (flags & NAME_SAME_SYM)
		strcpy(info->sym, last->sym);
	else
		cur_var_str(c, info->sym, sizeof(info->sym));
	return addr;
}

/* Formats 1 to 5's name, its fields whole. */
static uint64_t get_whole(struct rec_cur *c, struct elf_addr_info *info)
{
	uint64_t addr = cur_u64(c);

	info->kind = cur_u32(c);
	info->sym_type = cur_u8(c);
	info->sym_off = cur_u64(c);
	info->sym_size = cur_u64(c);
	info->vaddr = cur_u64(c);
	cur_str(c, info->obj, sizeof(info->obj));
	cur_str(c, info->sym, sizeof(info->sym));
	if (info->kind > ELF_ADDR_ANON)
		c->bad = true;
	return addr;
}

void rec_get_names(struct rec_cur *c, struct recording_file *rf)
{
	bool packed = rf->meta.major >= RECORDING_MAJOR_PACKED_NAMES;
	uint64_t min = packed ? NAME_PACKED_MIN : NAME_WHOLE_MIN, addr = 0;
	struct elf_addr_info *pair = malloc(2 * sizeof(*pair));
	uint32_t n = cur_count(c, RECORDING_MAX_NAMES, min);
	uint32_t i;

	rf->names = elf_symbolizer_frozen();
	if (!rf->names || !pair) {
		c->bad = true;
		goto out;
	}
	for (i = 0; i < n && !c->bad; i++) {
		struct elf_addr_info *info = &pair[i & 1];

		addr = packed ? get_packed(c, info, i ? &pair[~i & 1] : NULL,
					   addr) :
				get_whole(c, info);
		if (!c->bad && elf_symbolizer_add(rf->names, addr, info))
			c->bad = true;
	}
out:
	free(pair);
}
