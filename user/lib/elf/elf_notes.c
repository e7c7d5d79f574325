// SPDX-License-Identifier: GPL-2.0
/*
 * ELF notes: one bounds-checked walker over a note region, and the GNU
 * build-id that names a binary's separate debug file.
 *
 * Notes are read from the SHT_NOTE sections when there are section
 * headers, because a separate debug file keeps its notes there while its
 * PT_NOTE segments may describe the stripped binary's layout; a file
 * without section headers still has its PT_NOTE segments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_internal.h"

/*
 * A note region larger than this is not read, nor are more bytes than
 * this in one search of all of a file's.  Build-ids are tiny; USDT notes
 * run to about 100 bytes a probe, so this is ~100k probes.
 */
#define MAX_NOTE_REGION		(16u << 20)

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

int elf_note_walk(const struct elf_file *f, uint64_t off, uint64_t size,
		  uint64_t align, elf_note_fn fn, void *arg)
{
	uint64_t pos = 0;
	char *buf;
	int rc;

	if (size > MAX_NOTE_REGION)
		return -E2BIG;
	rc = elf_read_dup(f, off, size, &buf);
	if (rc)
		return rc;
	/* Notes are 4-aligned, or 8-aligned in an 8-aligned section. */
	align = align == 8 ? 8 : 4;
	rc = 0;
	while (!rc && pos < size) {
		struct elf_note note;
		Elf64_Nhdr nh;
		uint64_t name_off, desc_off;

		if (size - pos < sizeof(nh)) {
			rc = -ENOEXEC;
			break;
		}
		memcpy(&nh, buf + pos, sizeof(nh));
		name_off = pos + sizeof(nh);
		desc_off = name_off + align_up(nh.n_namesz, align);
		if (desc_off > size || nh.n_descsz > size - desc_off) {
			rc = -ENOEXEC;
			break;
		}
		note.type = nh.n_type;
		note.name = buf + name_off;
		note.namesz = nh.n_namesz;
		note.desc = buf + desc_off;
		note.descsz = nh.n_descsz;
		rc = fn(&note, arg);
		pos = align_up(desc_off + nh.n_descsz, align);
	}
	free(buf);
	return rc;
}

bool elf_note_is(const struct elf_note *note, const char *owner,
		 uint32_t type)
{
	size_t len = strlen(owner) + 1;

	return note->type == type && note->namesz == len &&
	       !memcmp(note->name, owner, len);
}

struct note_find {
	const char *owner;
	uint32_t type;
	void *desc;
	size_t max;
	size_t *len;
};

static int note_find_one(const struct elf_note *note, void *arg)
{
	struct note_find *nf = arg;

	if (!elf_note_is(note, nf->owner, nf->type))
		return 0;
	memcpy(nf->desc, note->desc,
	       note->descsz < nf->max ? note->descsz : nf->max);
	*nf->len = note->descsz;
	return 1;
}

/*
 * One region of elf_note_find()'s search, charged to its @budget: every
 * section header may name the same large region, and each would be read
 * again.
 */
static int note_find_in(const struct elf_file *f, uint64_t off,
			uint64_t size, uint64_t align, struct note_find *nf,
			uint64_t *budget)
{
	if (size > *budget)
		return -E2BIG;
	*budget -= size;
	return elf_note_walk(f, off, size, align, note_find_one, nf);
}

/*
 * A malformed note ends the search of its region only: the note asked
 * for may still be intact in another.  The regions searched read
 * MAX_NOTE_REGION bytes in all, at most.
 */
int elf_note_find(const struct elf_file *f, const char *owner,
		  uint32_t type, void *desc, size_t max, size_t *len)
{
	struct note_find nf = { owner, type, desc, max, len };
	uint64_t budget = MAX_NOTE_REGION;
	size_t i;

	for (i = 1; i < f->shnum; i++) {
		const Elf64_Shdr *sh = &f->sh[i];

		if (sh->sh_type == SHT_NOTE &&
		    note_find_in(f, sh->sh_offset, sh->sh_size,
				 sh->sh_addralign, &nf, &budget) == 1)
			return 0;
	}
	if (f->shnum)
		return -ENOENT;
	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];

		if (ph->p_type == PT_NOTE &&
		    note_find_in(f, ph->p_offset, ph->p_filesz, ph->p_align,
				 &nf, &budget) == 1)
			return 0;
	}
	return -ENOENT;
}
