// SPDX-License-Identifier: GPL-2.0
/*
 * ELF notes: the GNU build-id that names a binary's separate debug file.
 *
 * Notes are read from the SHT_NOTE sections when there are section
 * headers, because a separate debug file keeps its notes there while its
 * PT_NOTE segments may describe the stripped binary's layout; a file
 * without section headers still has its PT_NOTE segments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf_internal.h"

/* A note region larger than this is not read (build-ids are tiny). */
#define MAX_NOTE_REGION		(1u << 20)

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Look for the note in one region of the file. */
static int note_in_region(const struct elf_file *f, uint64_t off,
			  uint64_t size, uint64_t align, const char *owner,
			  uint32_t type, void *desc, size_t max, size_t *len)
{
	size_t owner_len = strlen(owner) + 1;
	uint64_t pos = 0;
	char *buf;
	int rc = -ENOENT;

	if (size > MAX_NOTE_REGION || elf_read_dup(f, off, size, &buf))
		return -ENOENT;
	/* Notes are 4-aligned, or 8-aligned in an 8-aligned section. */
	align = align == 8 ? 8 : 4;
	while (size - pos >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		uint64_t name_off, desc_off;

		memcpy(&nh, buf + pos, sizeof(nh));
		name_off = pos + sizeof(nh);
		desc_off = name_off + align_up(nh.n_namesz, align);
		if (desc_off > size || nh.n_descsz > size - desc_off)
			break;
		if (nh.n_type == type && nh.n_namesz == owner_len &&
		    !memcmp(buf + name_off, owner, owner_len)) {
			memcpy(desc, buf + desc_off,
			       nh.n_descsz < max ? nh.n_descsz : max);
			*len = nh.n_descsz;
			rc = 0;
			break;
		}
		pos = align_up(desc_off + nh.n_descsz, align);
	}
	free(buf);
	return rc;
}

int elf_note_find(const struct elf_file *f, const char *owner,
		  uint32_t type, void *desc, size_t max, size_t *len)
{
	size_t i;

	for (i = 1; i < f->shnum; i++) {
		const Elf64_Shdr *sh = &f->sh[i];

		if (sh->sh_type == SHT_NOTE &&
		    !note_in_region(f, sh->sh_offset, sh->sh_size,
				    sh->sh_addralign, owner, type, desc, max,
				    len))
			return 0;
	}
	if (f->shnum)
		return -ENOENT;
	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];

		if (ph->p_type == PT_NOTE &&
		    !note_in_region(f, ph->p_offset, ph->p_filesz,
				    ph->p_align, owner, type, desc, max, len))
			return 0;
	}
	return -ENOENT;
}
