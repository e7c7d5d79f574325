// SPDX-License-Identifier: GPL-2.0
/*
 * USDT probes: the SystemTap SDT v3 notes that <sys/sdt.h> and
 * include/ispot.h leave in .note.stapsdt, one per probe site.
 *
 * Each note (owner "stapsdt", type 3) describes one site:
 *
 *	8 bytes	pc		link-time address of the probe's nop
 *	8 bytes	base		link-time address of .stapsdt.base
 *	8 bytes	semaphore	address of its unsigned short, or 0
 *	provider\0 name\0 args\0
 *
 * The addresses are those the notes were written with.  A tool that moved
 * the object afterwards (prelink) updated the section headers but not the
 * notes, so every address is moved by .stapsdt.base's address now minus
 * the base recorded, as the SystemTap and libbpf consumers do.
 *
 * A uprobe wants file offsets: the site's through the executable segment
 * holding it, the semaphore's (the kernel's ref_ctr_offset) through a
 * writable segment whose file backs it, since the kernel updates it in
 * the file's pages as they are mapped.  A 32-bit object would have 4-byte
 * addresses here; only 64-bit ELF files are opened at all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_internal.h"
#include "util/array.h"

#define NT_STAPSDT		3
#define STAPSDT_ADDRS		(3 * sizeof(uint64_t))

struct usdt_walk {
	struct elf_usdt_probe *v;
	size_t n, cap;
	const char *corrupt;	/* why a note was refused */
};

/*
 * The next NUL-terminated string of [*p, end) into dst; NULL when it has
 * no NUL before end or does not fit (and must not be truncated).
 */
static const char *take_str(const char **p, const char *end, char *dst,
			    size_t size, bool may_truncate)
{
	const char *s = *p;
	size_t len = strnlen(s, (size_t)(end - s));

	if (len == (size_t)(end - s) || (!may_truncate && len >= size))
		return NULL;
	elf_copy_str(dst, size, s);
	*p = s + len + 1;
	return dst;
}

static int usdt_note(const struct elf_note *note, void *arg)
{
	struct usdt_walk *w = arg;
	struct elf_usdt_probe *pr;
	const char *p, *end;
	uint64_t addrs[3];

	if (!elf_note_is(note, "stapsdt", NT_STAPSDT))
		return 0;
	if (note->descsz < STAPSDT_ADDRS + 3) {
		w->corrupt = "a note too short for its addresses and names";
		return -ENOEXEC;
	}
	if (ARRAY_RESERVE(w->v, w->cap, w->n + 1))
		return -ENOMEM;
	pr = &w->v[w->n];
	memset(pr, 0, sizeof(*pr));
	memcpy(addrs, note->desc, sizeof(addrs));
	pr->vaddr = addrs[0];
	pr->note_base = addrs[1];
	pr->sem_vaddr = addrs[2];
	p = (const char *)note->desc + STAPSDT_ADDRS;
	end = (const char *)note->desc + note->descsz;
	if (!take_str(&p, end, pr->provider, sizeof(pr->provider), false) ||
	    !take_str(&p, end, pr->name, sizeof(pr->name), false) ||
	    !take_str(&p, end, pr->args, sizeof(pr->args), true)) {
		w->corrupt = "a note whose names lack their NUL or are too long";
		return -ENOEXEC;
	}
	if (!pr->provider[0] || !pr->name[0]) {
		w->corrupt = "a note with an empty provider or probe name";
		return -ENOEXEC;
	}
	w->n++;
	return 0;
}

/* Why the semaphore at sem cannot serve as a uprobe ref_ctr, or NULL. */
static const char *sem_check(const struct elf_file *f, uint64_t sem,
			     uint64_t *off)
{
	const Elf64_Phdr *ph = elf_vaddr_segment(f, sem);

	if (!ph)
		return "is in no loadable segment";
	if (sem - ph->p_vaddr >= ph->p_filesz ||
	    ph->p_filesz - (sem - ph->p_vaddr) < sizeof(unsigned short))
		return "is not backed by the file (.bss): define it in section .probes";
	if (!(ph->p_flags & PF_W))
		return "is not in a writable segment";
	*off = ph->p_offset + (sem - ph->p_vaddr);
	return NULL;
}

/* Prelink adjustment and file offsets, once the notes are read. */
static void adjust(const struct elf_file *f, struct elf_usdt_probe *pr,
		   bool have_base, uint64_t base)
{
	int rc;

	if (have_base && pr->note_base) {
		pr->vaddr += base - pr->note_base;
		if (pr->sem_vaddr)
			pr->sem_vaddr += base - pr->note_base;
	}
	rc = elf_vaddr_to_offset(f, pr->vaddr, true, &pr->offset);
	if (rc)
		pr->bad = elf_offset_error(rc);
	if (pr->sem_vaddr)
		pr->sem_bad = sem_check(f, pr->sem_vaddr, &pr->sem_offset);
}

int elf_usdt_list(const char *path, struct elf_usdt_probe **out, size_t *n,
		  char *err, size_t errlen)
{
	struct usdt_walk w = { 0 };
	struct elf_file f;
	const Elf64_Shdr *sh;
	uint64_t base = 0;
	long idx;
	size_t i;
	int rc;

	*out = NULL;
	*n = 0;
	rc = elf_file_open(&f, path, err, errlen);
	if (rc)
		return rc;
	idx = elf_section_by_name(&f, ".note.stapsdt");
	if (idx < 0)
		goto done;
	sh = &f.sh[idx];
	if (sh->sh_type != SHT_NOTE) {
		rc = elf_fail(err, errlen, -ENOEXEC,
			      "%s: corrupt .note.stapsdt (not a note section)",
			      path);
		goto done;
	}
	if (sh->sh_offset > f.size || sh->sh_size > f.size - sh->sh_offset) {
		rc = elf_fail(err, errlen, -ENOEXEC,
			      "%s: corrupt .note.stapsdt (past the end of the file)",
			      path);
		goto done;
	}
	rc = elf_note_walk(&f, sh->sh_offset, sh->sh_size, sh->sh_addralign,
			   usdt_note, &w);
	if (rc == -ENOMEM) {
		elf_fail(err, errlen, rc, "out of memory");
		goto done;
	}
	if (rc) {
		elf_fail(err, errlen, -ENOEXEC,
			 "%s: corrupt .note.stapsdt (%s)", path,
			 rc == -E2BIG ? "too large" : w.corrupt ? w.corrupt : "a note overruns the section");
		rc = -ENOEXEC;
		goto done;
	}
	idx = elf_section_by_name(&f, ".stapsdt.base");
	if (idx >= 0)
		base = f.sh[idx].sh_addr;
	for (i = 0; i < w.n; i++)
		adjust(&f, &w.v[i], idx >= 0, base);
	if (w.n) {
		*out = w.v;
		*n = w.n;
		w.v = NULL;
	}
done:
	free(w.v);
	elf_file_close(&f);
	return rc;
}
