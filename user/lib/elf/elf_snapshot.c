// SPDX-License-Identifier: GPL-2.0
/*
 * The snapshots of a process's maps that a symbolizer (elf_symbolize.c)
 * names addresses from: reading them again, the generation that moves
 * with the files they map, what the current one maps where, and an
 * earlier one kept for what the current one no longer maps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elf/elf_internal.h"

const struct elf_map *elf_symbolizer_maps(const struct elf_symbolizer *s,
					  size_t *n)
{
	*n = s->nmaps;
	return s->maps;
}

int elf_snapshot_read(const struct elf_proc *proc, struct elf_map **maps,
		      size_t *n, uint64_t *read_ns, char *err, size_t errlen)
{
	struct timespec now;

	/* Never fails; if it did, 0 would refuse nearly every kept file. */
	if (clock_gettime(CLOCK_REALTIME, &now))
		now = (struct timespec){ 0 };
	*read_ns = elf_ts_ns(now);
	return elf_proc_maps_read(proc, maps, n, err, errlen);
}

/*
 * The next file mapping of @m[0..@n) from *@i on, *@i moved past it; NULL
 * past the last.
 */
static const struct elf_map *next_file_map(const struct elf_map *m,
					   size_t n, size_t *i)
{
	while (*i < n && !elf_is_file_map(&m[*i]))
		(*i)++;
	return *i < n ? &m[(*i)++] : NULL;
}

bool elf_map_same(const struct elf_map *x, const struct elf_map *y)
{
	return x->start == y->start && x->end == y->end &&
	       x->offset == y->offset && x->inode == y->inode &&
	       x->dev_major == y->dev_major && x->dev_minor == y->dev_minor &&
	       x->deleted == y->deleted && !strcmp(x->perms, y->perms) &&
	       !strcmp(x->path, y->path);
}

/*
 * Whether @a[0..@na) and @b[0..@nb) map the same files at the same
 * places.  Anonymous mappings are passed over: a heap or a stack that
 * grows names nothing otherwise, where a library loaded, unloaded or
 * replaced (dlclose(), then dlopen() at the same address) does.
 */
static bool same_file_maps(const struct elf_map *a, size_t na,
			   const struct elf_map *b, size_t nb)
{
	const struct elf_map *x, *y;
	size_t i = 0, j = 0;

	for (;;) {
		x = next_file_map(a, na, &i);
		y = next_file_map(b, nb, &j);
		if (!x || !y)
			return x == y;
		if (!elf_map_same(x, y))
			return false;
	}
}

int elf_symbolizer_refresh(struct elf_symbolizer *s, char *err,
			   size_t errlen)
{
	struct elf_map *nm;
	uint64_t read_ns;
	bool same;
	size_t nn;
	int rc;

	if (s->frozen)
		return elf_fail(err, errlen, -ESRCH, "no process to read");
	rc = elf_snapshot_read(&s->proc, &nm, &nn, &read_ns, err, errlen);
	s->reads++;
	/*
	 * Gone, or exiting (a zombie has no maps left, and one that exits
	 * while they are read leaves a part): the last snapshot is all
	 * there will ever be.
	 */
	if (rc)
		return rc;
	same = same_file_maps(s->maps, s->nmaps, nm, nn);
	if (!same)
		s->generation++;
	/* The snapshot kept is the one just compared, the first time. */
	if (s->keep && !s->kept) {
		s->kept = s->maps;
		s->nkept = s->nmaps;
		s->kept_read_ns = s->maps_read_ns;
		s->kept_differs = !same;
	} else {
		elf_maps_free(s->maps, s->nmaps);
		if (s->kept)
			s->kept_differs = !same_file_maps(s->kept, s->nkept,
							  nm, nn);
	}
	s->maps = nm;
	s->nmaps = nn;
	s->maps_read_ns = read_ns;
	return 0;
}

void elf_symbolizer_keep(struct elf_symbolizer *s)
{
	s->keep = true;
}

const struct elf_map *elf_snapshot_kept_find(const struct elf_symbolizer *s,
					     uint64_t addr)
{
	return s->kept_differs ? elf_maps_find(s->kept, s->nkept, addr) : NULL;
}

void elf_symbolizer_reread_on_miss(struct elf_symbolizer *s, bool on)
{
	s->no_reread = !on;
}

uint64_t elf_symbolizer_reads(const struct elf_symbolizer *s)
{
	return s->reads;
}

uint64_t elf_symbolizer_generation(const struct elf_symbolizer *s)
{
	return s->generation;
}

bool elf_symbolizer_knows(const struct elf_symbolizer *s, uint64_t addr)
{
	return elf_maps_find(s->maps, s->nmaps, addr) != NULL;
}

/* The uretprobe trampoline's page, as the kernel names it in maps. */
static bool map_is_trampoline(const struct elf_map *m)
{
	return !strcmp(m->path, "[uprobes]");
}

bool elf_symbolizer_in_code(const struct elf_symbolizer *s, uint64_t addr)
{
	const struct elf_map *m = elf_maps_find(s->maps, s->nmaps, addr);

	if (!m)
		m = elf_snapshot_kept_find(s, addr);
	/*
	 * [uprobes] is executable, but a frame there is the uretprobe
	 * trampoline standing in for the return address it took: no code
	 * of the target's, and no name to give it.
	 */
	return m && m->perms[2] == 'x' && !map_is_trampoline(m);
}

bool elf_symbolizer_in_trampoline(const struct elf_symbolizer *s,
				  uint64_t addr, uint64_t *start,
				  uint64_t *end)
{
	const struct elf_map *m = elf_maps_find(s->maps, s->nmaps, addr);

	if (!m || !map_is_trampoline(m))
		return false;
	*start = m->start;
	*end = m->end;
	return true;
}
