// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/maps: reading it, of one process (struct elf_proc), finding
 * an object among the mappings, and the load bias an object was mapped
 * with.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_internal.h"
#include "util/array.h"
#include "util/path.h"
#include "util/procstat.h"

void elf_maps_free(struct elf_map *maps, size_t n)
{
	size_t i;

	if (!maps)
		return;
	for (i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

static int parse_maps_line(char *line, struct elf_map *m)
{
	static const char deleted[] = " (deleted)";
	size_t len;
	int pos = -1;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %"
		   SCNu64 " %n", &m->start, &m->end, m->perms, &m->offset,
		   &m->dev_major, &m->dev_minor, &m->inode, &pos) < 7 ||
	    pos < 0 || m->end < m->start)
		return -EINVAL;
	line += pos;
	len = strlen(line);
	while (len && (line[len - 1] == '\n' || line[len - 1] == ' '))
		line[--len] = '\0';
	if (len >= sizeof(deleted) - 1 &&
	    !strcmp(line + len - (sizeof(deleted) - 1), deleted)) {
		m->deleted = true;
		line[len - (sizeof(deleted) - 1)] = '\0';
	}
	m->path = strdup(line);
	return m->path ? 0 : -ENOMEM;
}

void elf_proc_init(struct elf_proc *p, pid_t pid)
{
	p->pid = pid > 0 ? pid : 0;
	p->start_time = 0;	/* the caller's: never compared */
	/*
	 * Gone already: a start time no process has, so that every read
	 * fails (the maps' own open says why, as it did before).
	 */
	if (p->pid && proc_start_time(pid, &p->start_time))
		p->start_time = UINT64_MAX;
}

/*
 * Whether @p's pid is still its process's (pid 0, the caller, always
 * is), and that process still has its memory: one past exit_mm() shows
 * a size of 0 in statm, and never gets memory back.  The start time is
 * read last: while it is the process's, the pid was never another's, so
 * all read before it by the pid was of the process.
 */
bool elf_proc_same(const struct elf_proc *p)
{
	char fname[64];
	unsigned long size;
	bool alive;
	FILE *fp;

	if (!p->pid)
		return true;
	snprintf(fname, sizeof(fname), "/proc/%d/statm", (int)p->pid);
	fp = fopen(fname, "re");
	if (!fp)
		return false;
	alive = fscanf(fp, "%lu", &size) == 1 && size;
	fclose(fp);
	return alive && proc_is(p->pid, p->start_time);
}

int elf_proc_maps_read(const struct elf_proc *p, struct elf_map **maps,
		       size_t *n, char *err, size_t errlen)
{
	struct elf_map *v = NULL;
	size_t nv = 0, cap = 0, linecap = 0;
	char fname[64], *line = NULL;
	FILE *fp;
	int rc = 0;

	*maps = NULL;
	*n = 0;
	if (p->pid)
		snprintf(fname, sizeof(fname), "/proc/%d/maps", (int)p->pid);
	else
		snprintf(fname, sizeof(fname), "/proc/self/maps");
	fp = fopen(fname, "re");
	if (!fp)
		return elf_fail(err, errlen, -errno, "cannot read %s: %s",
				fname, strerror(errno));
	while (getline(&line, &linecap, fp) > 0) {
		if (ARRAY_RESERVE(v, cap, nv + 1)) {
			rc = -ENOMEM;
			break;
		}
		rc = parse_maps_line(line, &v[nv]);
		if (rc)
			break;
		nv++;
	}
	if (!rc && ferror(fp))
		rc = -EIO;
	free(line);
	fclose(fp);
	if (rc) {
		elf_maps_free(v, nv);
		return elf_fail(err, errlen, rc, "cannot parse %s: %s", fname,
				strerror(-rc));
	}
	/*
	 * The kernel hands the maps out a page per read(), each read taking
	 * the process's memory anew: once the process drops it (exits), the
	 * next read finds none and ends the file, and what came before is
	 * only the lowest mappings, without the libraries above.  Memory
	 * dropped stays dropped, so if it is there now, the end was real.
	 * And the maps are of another process if the pid came round to one.
	 */
	if (!elf_proc_same(p)) {
		elf_maps_free(v, nv);
		return elf_fail(err, errlen, -ESRCH,
				"process %d is gone (it exited while %s was "
				"read, or before)", (int)p->pid, fname);
	}
	*maps = v;
	*n = nv;
	return 0;
}

int elf_maps_read(pid_t pid, struct elf_map **maps, size_t *n,
		  char *err, size_t errlen)
{
	struct elf_proc p;

	elf_proc_init(&p, pid);
	return elf_proc_maps_read(&p, maps, n, err, errlen);
}

const struct elf_map *elf_maps_find(const struct elf_map *maps, size_t n,
				    uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < maps[mid].start)
			hi = mid;
		else if (addr >= maps[mid].end)
			lo = mid + 1;
		else
			return &maps[mid];
	}
	return NULL;
}

int elf_maps_find_object(const struct elf_map *maps, size_t n,
			 const char *obj, char *path, size_t pathlen,
			 char *err, size_t errlen)
{
	const char *found = NULL, *other = NULL;
	bool exact = false;
	char canon[PATH_MAX];
	size_t i;

	if (strchr(obj, '/')) {
		if (!realpath(obj, canon))
			elf_copy_str(canon, sizeof(canon), obj);
		for (i = 0; i < n; i++) {
			if (!elf_is_file_map(&maps[i]) ||
			    strcmp(maps[i].path, canon))
				continue;
			elf_copy_str(path, pathlen, canon);
			return 0;
		}
		return elf_fail(err, errlen, -ENOENT, "%s is not mapped", obj);
	}

	for (i = 0; i < n; i++) {
		const char *p = maps[i].path;
		bool ex;

		if (!elf_is_file_map(&maps[i]) || !elf_obj_name_matches(p, obj))
			continue;
		ex = !strcmp(path_base(p), obj);
		if (found && !strcmp(found, p))
			continue;
		if (!found || (ex && !exact)) {
			if (found && !exact)
				other = NULL;	/* exact beats prefixes */
			found = p;
			exact = ex;
		} else if (ex == exact && !other) {
			other = p;
		}
	}
	if (!found)
		return elf_fail(err, errlen, -ENOENT,
				"no mapped object matches '%s'", obj);
	if (other)
		return elf_fail(err, errlen, -EINVAL,
				"object name '%s' is ambiguous: %s, %s", obj,
				found, other);
	elf_copy_str(path, pathlen, found);
	return 0;
}

/*
 * Whether mapping @m of the object can be where a segment of it lies at
 * load bias @bias: its addresses inside one PT_LOAD's pages, at that
 * segment's file offsets.
 */
static bool map_fits(const struct elf_file *f, const struct elf_map *m,
		     uint64_t bias, uint64_t page)
{
	uint64_t lo = m->start - bias, hi = m->end - bias;
	size_t i;

	if (m->start < bias)
		return false;
	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];
		uint64_t first = ph->p_vaddr & ~(page - 1);
		uint64_t last = (ph->p_vaddr + ph->p_memsz + page - 1) &
				~(page - 1);

		if (ph->p_type == PT_LOAD && lo >= first && hi <= last &&
		    lo - m->offset == ph->p_vaddr - ph->p_offset)
			return true;
	}
	return false;
}

/* How many of @maps (@m among them) of @m's file fit the object at @bias. */
static size_t maps_fitting(const struct elf_file *f,
			   const struct elf_map *maps, size_t n,
			   const struct elf_map *m, uint64_t bias,
			   uint64_t page)
{
	size_t i, fit = 0;

	if (!map_fits(f, m, bias, page))
		return 0;
	for (i = 0; i < n; i++)
		fit += maps[i].inode == m->inode &&
		       maps[i].dev_major == m->dev_major &&
		       maps[i].dev_minor == m->dev_minor &&
		       !strcmp(maps[i].path, m->path) &&
		       map_fits(f, &maps[i], bias, page);
	return fit;
}

/* Whether segment @ph's file pages hold mapping @m's first byte. */
static bool covers(const Elf64_Phdr *ph, const struct elf_map *m,
		   uint64_t page)
{
	return ph->p_type == PT_LOAD && ph->p_filesz &&
	       (ph->p_offset & ~(page - 1)) <= m->offset &&
	       m->offset < ph->p_offset + ph->p_filesz;
}

/*
 * Load bias from one file mapping of the object: the mapping shows file
 * byte fo at m->start + (fo - m->offset), and the segment that covers
 * m->offset puts p_offset at bias + p_vaddr.  Two segments can share a
 * file page (.rodata's last and .data's first, in a small program): the
 * page is mapped twice, once for each, and which one @m is shows only
 * against the object's other mappings in @maps (a bias that puts them
 * all inside segments at their offsets).  Right after an exec, before
 * the loader splits off RELRO, .data's one mapping holds that page too.
 */
int elf_bias_from_map(const struct elf_file *f, const struct elf_map *maps,
		      size_t n, const struct elf_map *m, uint64_t *bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), b, best_pstart = 0;
	size_t i, fit, best_fit = 0, candidates = 0;
	bool found = false;

	for (i = 0; i < f->phnum; i++)
		candidates += covers(&f->ph[i], m, page);
	for (i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *ph = &f->ph[i];
		uint64_t pstart = ph->p_offset & ~(page - 1);

		if (!covers(ph, m, page))
			continue;
		b = m->start - m->offset + ph->p_offset - ph->p_vaddr;
		/* Nearly always one segment: nothing to weigh. */
		if (candidates == 1) {
			*bias = b;
			return 0;
		}
		fit = maps_fitting(f, maps, n, m, b, page);
		/* As many fit: the later segment, then the first of those. */
		if (!found || fit > best_fit ||
		    (fit == best_fit && pstart > best_pstart)) {
			*bias = b;
			best_fit = fit;
			best_pstart = pstart;
			found = true;
		}
	}
	return found ? 0 : -ENOENT;
}

int elf_load_bias(const struct elf_map *maps, size_t n, const char *path,
		  uint64_t *bias, char *err, size_t errlen)
{
	struct elf_file f;
	char canon[PATH_MAX];
	size_t i;
	int rc;

	if (!realpath(path, canon))
		elf_copy_str(canon, sizeof(canon), path);
	rc = elf_file_open(&f, path, err, errlen);
	if (rc)
		return rc;
	rc = elf_fail(err, errlen, -ENOENT, "%s is not mapped", path);
	for (i = 0; i < n; i++) {
		if (!elf_is_file_map(&maps[i]) || strcmp(maps[i].path, canon))
			continue;
		if (!elf_bias_from_map(&f, maps, n, &maps[i], bias)) {
			rc = 0;
			break;
		}
		rc = elf_fail(err, errlen, -ENOEXEC,
			      "mapping of %s at 0x%" PRIx64
			      " matches no PT_LOAD segment", path,
			      maps[i].start);
	}
	elf_file_close(&f);
	return rc;
}
