// SPDX-License-Identifier: GPL-2.0
/*
 * Function boundaries from .eh_frame, for code no symbol names: every
 * x86-64 object that can unwind has one FDE per function, with its start
 * and size.  The FDEs are found through .eh_frame_hdr's binary search
 * table when there is one, else by walking .eh_frame's CIEs and FDEs.
 *
 * The bytes come from a file the traced program's owner controls: every
 * length, offset and pointer is checked against the region it points
 * into before use, pointer encodings are limited to the direct ones
 * (absptr, udata/sdata 2/4/8, uleb/sleb128; absolute, pcrel or datarel),
 * and an indirect one is refused.
 *
 * An FDE is kept as a function only if the code it covers is entered by
 * a call: its CIE's initial state is a call's (CFA = rsp + 8, the return
 * address at CFA - 8) and the FDE changes nothing before its first
 * instruction.  The cold part of a split function (foo.cold, jumped to
 * with the frame already set up) and the PLT fail that test, and a
 * return probe on them would overwrite what is not a return address.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_internal.h"
#include "util/array.h"

/* DWARF pointer encodings (DW_EH_PE_*). */
#define EH_PE_ABSPTR	0x00
#define EH_PE_ULEB128	0x01
#define EH_PE_UDATA2	0x02
#define EH_PE_UDATA4	0x03
#define EH_PE_UDATA8	0x04
#define EH_PE_SLEB128	0x09
#define EH_PE_SDATA2	0x0a
#define EH_PE_SDATA4	0x0b
#define EH_PE_SDATA8	0x0c
#define EH_PE_PCREL	0x10
#define EH_PE_DATAREL	0x30
#define EH_PE_INDIRECT	0x80
#define EH_PE_OMIT	0xff

/* Call frame instructions the entry test reads. */
#define CFA_NOP			0x00
#define CFA_ADVANCE_LOC1	0x02
#define CFA_ADVANCE_LOC4	0x04
#define CFA_DEF_CFA		0x0c
#define CFA_ADVANCE_LOC		0x40	/* high two bits */
#define CFA_OFFSET		0x80	/* high two bits, low six the reg */

#define X86_64_RSP	7
#define X86_64_RA	16

/* A bounded reader over one region of the file, read whole. */
struct eh_cur {
	const uint8_t *buf;
	uint64_t size;		/* of buf */
	uint64_t pos;
	uint64_t end;		/* of the entry being read, <= size */
	uint64_t vaddr;		/* link-time address of buf[0] */
	uint64_t datarel;	/* base of DW_EH_PE_datarel, 0: none */
	uint64_t max_fdes;	/* functions kept, at most: ELF_LIMIT_SYMBOLS */
	bool bad;
};

static bool eh_take(struct eh_cur *c, void *dst, size_t n)
{
	if (c->bad || c->pos > c->end || c->end - c->pos < n) {
		c->bad = true;
		memset(dst, 0, n);
		return false;
	}
	memcpy(dst, c->buf + c->pos, n);
	c->pos += n;
	return true;
}

static uint8_t eh_u8(struct eh_cur *c)
{
	uint8_t v;

	eh_take(c, &v, 1);
	return v;
}

/* LEB128 of at most 64 significant bits, else bad. */
static uint64_t eh_leb(struct eh_cur *c, bool is_signed)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b;

	do {
		b = eh_u8(c);
		if (shift >= 64 || (shift == 63 && (b & 0x7e))) {
			c->bad = true;
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && !c->bad);
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~0ull << shift;
	return v;
}

/* A value in @enc's format (its low four bits), sign-extended if signed. */
static uint64_t eh_value(struct eh_cur *c, uint8_t enc)
{
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (enc & 0x0f) {
	case EH_PE_ABSPTR:
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		eh_take(c, &u64, 8);
		return u64;
	case EH_PE_ULEB128:
		return eh_leb(c, false);
	case EH_PE_SLEB128:
		return eh_leb(c, true);
	case EH_PE_UDATA2:
		eh_take(c, &u16, 2);
		return u16;
	case EH_PE_SDATA2:
		eh_take(c, &u16, 2);
		return (uint64_t)(int64_t)(int16_t)u16;
	case EH_PE_UDATA4:
		eh_take(c, &u32, 4);
		return u32;
	case EH_PE_SDATA4:
		eh_take(c, &u32, 4);
		return (uint64_t)(int64_t)(int32_t)u32;
	}
	c->bad = true;
	return 0;
}

/*
 * A pointer in encoding @enc, as a link-time address: absolute, relative
 * to where it is read, or to the datarel base.  Indirect, omitted and
 * other bases are bad.
 */
static uint64_t eh_ptr(struct eh_cur *c, uint8_t enc)
{
	uint64_t at = c->vaddr + c->pos, base;

	if (enc == EH_PE_OMIT || (enc & EH_PE_INDIRECT)) {
		c->bad = true;
		return 0;
	}
	switch (enc & 0x70) {
	case 0:
		base = 0;
		break;
	case EH_PE_PCREL:
		base = at;
		break;
	case EH_PE_DATAREL:
		base = c->datarel;
		c->bad |= !base;
		break;
	default:
		c->bad = true;
		return 0;
	}
	/* Modular: a pcrel offset below its field wraps to the address. */
	return base + eh_value(c, enc);
}

/*
 * The entry at c->pos: its length, and c->end set past it.  Returns
 * false at the terminator (length 0) or when it overruns the region.
 */
static bool eh_entry(struct eh_cur *c)
{
	uint32_t len32;
	uint64_t len;

	c->end = c->size;
	if (!eh_take(c, &len32, 4) || !len32)
		return false;
	len = len32;
	if (len32 == 0xffffffff && !eh_take(c, &len, 8))
		return false;
	if (len > c->size - c->pos) {
		c->bad = true;
		return false;
	}
	c->end = c->pos + len;
	return true;
}

/* What an FDE needs of its CIE. */
struct eh_cie {
	uint8_t fde_enc;	/* 'R', else absptr */
	bool has_aug;		/* 'z': FDEs carry augmentation data */
	bool call_entry;	/* initial state is a call's */
};

/* Whether @c's instructions up to its end set a call's initial state. */
static bool eh_call_state(struct eh_cur *c, int64_t data_align)
{
	bool cfa = false, ra = false;

	while (c->pos < c->end && !c->bad) {
		uint8_t op = eh_u8(c);
		uint64_t reg, off;

		if (op == CFA_NOP)
			continue;
		if (op == CFA_DEF_CFA) {
			reg = eh_leb(c, false);
			off = eh_leb(c, false);
			cfa = reg == X86_64_RSP && off == 8;
			if (!cfa)
				return false;
		} else if ((op & 0xc0) == CFA_OFFSET &&
			   (op & 0x3f) == X86_64_RA) {
			off = eh_leb(c, false);
			ra = data_align == -8 && off == 1;
			if (!ra)
				return false;
		} else {
			return false;
		}
	}
	return cfa && ra && !c->bad;
}

/* The augmentation string's letters and data after the 'z'. */
static bool eh_cie_aug(struct eh_cur *c, const char *aug,
		       struct eh_cie *cie)
{
	uint64_t len, end;
	const char *a;

	if (!*aug)
		return true;
	if (*aug != 'z')
		return false;	/* old "eh" and the like: sizes unknown */
	len = eh_leb(c, false);
	if (c->bad || len > c->end - c->pos)
		return false;
	end = c->pos + len;
	cie->has_aug = true;
	for (a = aug + 1; *a && !c->bad; a++) {
		uint8_t enc;

		if (*a == 'L') {
			eh_u8(c);
		} else if (*a == 'R') {
			cie->fde_enc = eh_u8(c);
		} else if (*a == 'S') {
			cie->call_entry = false;	/* a signal frame */
		} else if (*a == 'P') {
			/* Only skipped: its indirection is never followed. */
			enc = eh_u8(c);
			if (enc == EH_PE_OMIT)
				return false;
			eh_value(c, enc);
		} else {
			return false;
		}
	}
	if (c->bad || c->pos > end)
		return false;
	c->pos = end;
	return true;
}

/*
 * The CIE at @off: 1, 0 if it is one no function can be taken from, or
 * -ENOEXEC if it is corrupt.
 */
static int eh_cie_at(const struct eh_cur *region, uint64_t off,
		     struct eh_cie *cie)
{
	struct eh_cur c = *region;
	char aug[8];
	int64_t data_align;
	uint32_t id;
	uint8_t version;
	size_t i;

	memset(cie, 0, sizeof(*cie));
	c.pos = off;
	if (!eh_entry(&c) || !eh_take(&c, &id, 4) || id)
		return -ENOEXEC;
	version = eh_u8(&c);
	if (version != 1 && version != 3)
		return c.bad ? -ENOEXEC : 0;
	for (i = 0; i < sizeof(aug); i++) {
		aug[i] = (char)eh_u8(&c);
		if (!aug[i] || c.bad)
			break;
	}
	if (i == sizeof(aug) || c.bad)
		return c.bad ? -ENOEXEC : 0;
	eh_leb(&c, false);			/* code alignment */
	data_align = (int64_t)eh_leb(&c, true);
	if ((version == 1 ? eh_u8(&c) : eh_leb(&c, false)) != X86_64_RA)
		return c.bad ? -ENOEXEC : 0;
	cie->call_entry = true;
	if (!eh_cie_aug(&c, aug, cie))
		return c.bad ? -ENOEXEC : 0;
	cie->call_entry = cie->call_entry && eh_call_state(&c, data_align);
	return c.bad ? -ENOEXEC : 1;
}

/*
 * The FDE at @off into @fn.  Returns 1 for a function, 0 for an entry
 * that is none (a CIE, an FDE that fails the entry test or covers
 * nothing), -ENOEXEC for one that is corrupt.  c->pos ends past it.
 */
static int eh_fde_at(struct eh_cur *c, uint64_t off, struct elf_fde_func *fn)
{
	struct eh_cie cie;
	uint64_t id_pos, end, len;
	uint32_t id;
	uint8_t op;
	int rc;

	c->pos = off;
	if (!eh_entry(c)) {
		c->pos = off;		/* the terminator: nothing past it */
		return c->bad ? -ENOEXEC : 0;
	}
	end = c->end;
	id_pos = c->pos;
	if (!eh_take(c, &id, 4))
		return -ENOEXEC;
	c->pos = end;
	if (!id)
		return 0;			/* a CIE */
	if (id > id_pos)
		return -ENOEXEC;
	rc = eh_cie_at(c, id_pos - id, &cie);
	if (rc <= 0)
		return rc;
	c->pos = id_pos + 4;
	c->end = end;
	fn->start = eh_ptr(c, cie.fde_enc);
	fn->size = eh_value(c, cie.fde_enc & 0x0f);
	if (cie.has_aug) {
		len = eh_leb(c, false);
		if (!c->bad && len <= c->end - c->pos)
			c->pos += len;
		else
			c->bad = true;
	}
	if (c->bad || fn->start + fn->size < fn->start)
		return -ENOEXEC;
	/* Anything before the first advance: entered mid-function. */
	op = CFA_NOP;
	while (c->pos < end && (op = eh_u8(c)) == CFA_NOP)
		;
	c->pos = end;
	if ((op & 0xc0) != CFA_ADVANCE_LOC && op != CFA_NOP &&
	    (op < CFA_ADVANCE_LOC1 || op > CFA_ADVANCE_LOC4))
		return 0;
	return cie.call_entry && fn->size ? 1 : 0;
}

/* A region of the file read whole: [off, off + size) at vaddr. */
static int eh_read(const struct elf_file *f, uint64_t off, uint64_t size,
		   uint64_t vaddr, struct eh_cur *c, char **buf)
{
	int rc;

	memset(c, 0, sizeof(*c));
	if (size > elf_limit(ELF_LIMIT_READ))
		return -E2BIG;
	rc = elf_read_dup(f, off, size, buf);
	if (rc)
		return rc;
	c->buf = (const uint8_t *)*buf;
	c->size = size;
	c->end = size;
	c->vaddr = vaddr;
	c->max_fdes = elf_limit(ELF_LIMIT_SYMBOLS);
	return 0;
}

/*
 * Each function kept becomes a symbol (elf_ehfuncs.c): -EOVERFLOW past
 * the bound on symbols, which a sparse .eh_frame could pass by millions.
 */
static int eh_add(const struct eh_cur *c, struct elf_fde_func **out,
		  size_t *n, size_t *cap, const struct elf_fde_func *fn)
{
	if (*n >= c->max_fdes)
		return -EOVERFLOW;
	if (ARRAY_RESERVE(*out, *cap, *n + 1))
		return -ENOMEM;
	(*out)[(*n)++] = *fn;
	return 0;
}

/* Every FDE of .eh_frame, in file order. */
static int eh_walk(struct eh_cur *c, struct elf_fde_func **out, size_t *n)
{
	struct elf_fde_func fn;
	size_t cap = 0;
	uint64_t off = 0;
	int rc;

	while (off < c->size) {
		rc = eh_fde_at(c, off, &fn);
		if (rc < 0)
			return rc;
		if (c->pos <= off)	/* the terminator */
			break;
		off = c->pos;
		rc = rc > 0 ? eh_add(c, out, n, &cap, &fn) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

/* Where .eh_frame_hdr or .eh_frame lies: file offset, size, address. */
struct eh_place {
	uint64_t off, size, vaddr;
	bool found;
};

static struct eh_place eh_section(const struct elf_file *f, const char *name)
{
	long i = elf_section_by_name(f, name);
	struct eh_place p = { 0 };

	if (i > 0 && f->sh[i].sh_type == SHT_PROGBITS)
		p = (struct eh_place){ f->sh[i].sh_offset, f->sh[i].sh_size,
				       f->sh[i].sh_addr, true };
	return p;
}

static struct eh_place eh_hdr_place(const struct elf_file *f)
{
	struct eh_place p = eh_section(f, ".eh_frame_hdr");
	size_t i;

	for (i = 0; !p.found && i < f->phnum; i++)
		if (f->ph[i].p_type == PT_GNU_EH_FRAME)
			p = (struct eh_place){ f->ph[i].p_offset,
					       f->ph[i].p_filesz,
					       f->ph[i].p_vaddr, true };
	return p;
}

/* .eh_frame at @vaddr: its section, else the rest of its segment. */
static int eh_frame_place(const struct elf_file *f, uint64_t vaddr,
			  struct eh_place *p)
{
	const Elf64_Phdr *ph;

	*p = eh_section(f, ".eh_frame");
	if (p->found && p->vaddr == vaddr)
		return 0;
	ph = elf_vaddr_segment(f, vaddr);
	if (!ph || vaddr - ph->p_vaddr >= ph->p_filesz)
		return -ENOEXEC;
	*p = (struct eh_place){ ph->p_offset + (vaddr - ph->p_vaddr),
				ph->p_filesz - (vaddr - ph->p_vaddr), vaddr,
				true };
	return 0;
}

/* The bytes one table field takes in @enc, 0 if not fixed. */
static unsigned int eh_fixed_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case EH_PE_UDATA2:
	case EH_PE_SDATA2:
		return 2;
	case EH_PE_UDATA4:
	case EH_PE_SDATA4:
		return 4;
	case EH_PE_ABSPTR:
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		return 8;
	}
	return 0;
}

/*
 * The FDEs .eh_frame_hdr's table lists, each checked against the FDE it
 * points to.  @hdr is the header read whole, @fr .eh_frame.
 */
static int eh_table(struct eh_cur *hdr, uint8_t tenc, uint64_t count,
		    struct eh_cur *fr, struct elf_fde_func **out, size_t *n)
{
	unsigned int esize = eh_fixed_size(tenc);
	struct elf_fde_func fn;
	size_t cap = 0;
	uint64_t i, loc, at;
	int rc;

	if (!esize || (tenc & EH_PE_INDIRECT) ||
	    count > (hdr->size - hdr->pos) / (2 * esize))
		return -ENOEXEC;
	for (i = 0; i < count; i++) {
		loc = eh_ptr(hdr, tenc);
		at = eh_ptr(hdr, tenc);
		if (hdr->bad || at - fr->vaddr >= fr->size)
			return -ENOEXEC;
		rc = eh_fde_at(fr, at - fr->vaddr, &fn);
		if (rc < 0 || (rc > 0 && fn.start != loc))
			return -ENOEXEC;
		rc = rc > 0 ? eh_add(fr, out, n, &cap, &fn) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

/* Through .eh_frame_hdr at @hp: its table, or a walk when it has none. */
static int eh_from_hdr(const struct elf_file *f, const struct eh_place *hp,
		       struct elf_fde_func **out, size_t *n)
{
	struct eh_cur hdr, fr;
	struct eh_place fp;
	char *hbuf = NULL, *fbuf = NULL;
	uint8_t penc, cenc, tenc;
	uint64_t frame, count = 0;
	int rc;

	rc = eh_read(f, hp->off, hp->size, hp->vaddr, &hdr, &hbuf);
	if (rc)
		return rc;
	hdr.datarel = hp->vaddr;
	rc = -ENOEXEC;
	if (eh_u8(&hdr) != 1)
		goto out;
	penc = eh_u8(&hdr);
	cenc = eh_u8(&hdr);
	tenc = eh_u8(&hdr);
	frame = eh_ptr(&hdr, penc);
	if (cenc != EH_PE_OMIT && tenc != EH_PE_OMIT)
		count = eh_value(&hdr, cenc);
	if (hdr.bad || eh_frame_place(f, frame, &fp))
		goto out;
	rc = eh_read(f, fp.off, fp.size, fp.vaddr, &fr, &fbuf);
	if (rc)
		goto out;
	if (cenc == EH_PE_OMIT || tenc == EH_PE_OMIT)
		rc = eh_walk(&fr, out, n);
	else
		rc = eh_table(&hdr, tenc, count, &fr, out, n);
out:
	free(hbuf);
	free(fbuf);
	return rc;
}

int elf_ehframe_funcs(const struct elf_file *f, struct elf_fde_func **out,
		      size_t *n, char *err, size_t errlen)
{
	struct eh_place hp = eh_hdr_place(f), fp = { 0 };
	struct eh_cur c;
	char *buf = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if (hp.found) {
		rc = eh_from_hdr(f, &hp, out, n);
	} else {
		fp = eh_section(f, ".eh_frame");
		if (!fp.found)
			return 0;
		rc = eh_read(f, fp.off, fp.size, fp.vaddr, &c, &buf);
		if (!rc)
			rc = eh_walk(&c, out, n);
		free(buf);
	}
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
		if (rc == -ENOMEM)
			return elf_fail(err, errlen, rc, "out of memory");
		if (rc == -EOVERFLOW)
			return elf_over_limit(f->path, ELF_LIMIT_SYMBOLS,
					      elf_limit(ELF_LIMIT_SYMBOLS) + 1,
					      err, errlen);
		if (rc == -E2BIG)
			return elf_over_limit(f->path, ELF_LIMIT_READ,
					      hp.found ? hp.size : fp.size,
					      err, errlen);
		return elf_fail(err, errlen, -ENOEXEC,
				"%s: truncated or corrupt .eh_frame", f->path);
	}
	return 0;
}
