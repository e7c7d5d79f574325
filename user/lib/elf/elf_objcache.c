// SPDX-License-Identifier: GPL-2.0
/*
 * The objects a symbolizer (elf_symbolize.c) reads for a process's file
 * mappings: which file is read for a mapping, how long it is kept, and
 * what all of them may hold (elf.h, elf_symbolizer_hold_at_most()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elf/elf_internal.h"
#include "util/array.h"
#include "util/errors.h"

/* An object read for a mapping, kept for as long as something maps it. */
struct elf_cached_obj {
	char *path;
	/* The file's numbers in the maps: a path may name a new file. */
	unsigned int dev_major, dev_minor;
	uint64_t inode;
	uint64_t bytes;		/* what it counts in the cache's held */
	struct elf_obj *o;	/* NULL: not a usable ELF file */
	/*
	 * Its file's last change of contents (st_mtim, ns of the real-time
	 * clock) when its symbols had been read, UINT64_MAX where fstat()
	 * failed, and whether it is the file the maps name (read through
	 * map_files, or by a path whose device and inode are the
	 * mapping's): a kept mapping's code is named from it only where
	 * both hold it to be the file that mapping mapped.
	 */
	uint64_t mtime_ns;
	bool mapped_file;
	/*
	 * o NULL from a kept mapping's path alone, whose file may be
	 * another now (rebuilt), or the same numbered otherwise than in
	 * the maps: a current mapping of the file reads it again, its own
	 * way.
	 */
	bool kept_miss;
};

void elf_objcache_init(struct elf_objcache *c, const struct elf_proc *proc)
{
	memset(c, 0, sizeof(*c));
	c->proc = *proc;
	c->hold_max = elf_limit(ELF_LIMIT_READ);
}

static void cached_obj_free(struct elf_cached_obj *t)
{
	free(t->path);
	elf_obj_free(t->o);
}

void elf_objcache_free(struct elf_objcache *c)
{
	size_t i;

	for (i = 0; i < c->nobjs; i++)
		cached_obj_free(&c->objs[i]);
	free(c->objs);
	memset(c, 0, sizeof(*c));
}

/*
 * What @o holds: what was read, its symbols, the names made for them
 * (.eh_frame's "OBJ+0xSTART", a split name@ver's) and its FDE list.
 */
static uint64_t obj_bytes(const struct elf_obj *o)
{
	uint64_t size = o->nread + o->nsyms * sizeof(*o->syms) +
			o->nfdes * sizeof(*o->fdes);
	size_t i;

	for (i = 0; i < o->nsyms; i++)
		if (o->syms[i].owned)
			size += strlen(o->syms[i].name) + 1;
	return size;
}

/* Whether file mapping @m maps the file of @path, device and inode. */
static bool maps_file(const struct elf_map *m, const char *path,
		      unsigned int dev_major, unsigned int dev_minor,
		      uint64_t inode)
{
	return m->dev_major == dev_major && m->dev_minor == dev_minor &&
	       m->inode == inode && !strcmp(m->path, path);
}

/* Whether @t is the object of file mapping @m. */
static bool cached_obj_of(const struct elf_cached_obj *t,
			  const struct elf_map *m)
{
	return maps_file(m, t->path, t->dev_major, t->dev_minor, t->inode);
}

/* The cached object of file mapping @m's file, or NULL. */
static struct elf_cached_obj *cached_find(const struct elf_objcache *c,
					  const struct elf_map *m)
{
	size_t i;

	for (i = 0; i < c->nobjs; i++)
		if (cached_obj_of(&c->objs[i], m))
			return &c->objs[i];
	return NULL;
}

static bool cached_obj_mapped(const struct elf_cached_obj *t,
			      const struct elf_map *maps, size_t nmaps)
{
	size_t i;

	for (i = 0; i < nmaps; i++)
		if (elf_is_file_map(&maps[i]) && cached_obj_of(t, &maps[i]))
			return true;
	return false;
}

/*
 * Forget the objects that neither of @sn's snapshots maps any more (a
 * library unloaded, a plugin replaced): what they held is given back.
 * Only when an object would not fit: a process that maps the same object
 * again meanwhile does not pay for reading it twice, and this costs
 * objects x mappings.  Both snapshots, whichever the object to fit is
 * for: an object only the kept one maps, let go for one only the current
 * one maps, would be read again for the next address of the window, and
 * that one let go for it in turn, each call.
 */
static void prune(struct elf_objcache *c, const struct elf_snapshots *sn)
{
	size_t i, n = 0;

	for (i = 0; i < c->nobjs; i++) {
		struct elf_cached_obj *t = &c->objs[i];

		if (cached_obj_mapped(t, sn->maps, sn->nmaps) ||
		    cached_obj_mapped(t, sn->kept, sn->nkept)) {
			c->objs[n++] = *t;
			continue;
		}
		c->held -= t->bytes;
		cached_obj_free(t);
	}
	c->nobjs = n;
}

static bool fits(const struct elf_objcache *c, uint64_t size)
{
	return size <= c->hold_max && c->held <= c->hold_max - size;
}

/*
 * Whether @o fits in what @c may hold, once unmapped objects are gone if
 * need be: then it is counted in, its size in *@bytes.
 */
static bool hold(struct elf_objcache *c, const struct elf_snapshots *sn,
		 const struct elf_obj *o, uint64_t *bytes)
{
	uint64_t size = obj_bytes(o);

	if (!fits(c, size))
		prune(c, sn);
	if (!fits(c, size)) {
		if (!c->held_noted)
			ispot_say("note: %s: symbols not read: the "
				  "process's objects hold %.1f of the %.1f MB "
				  "kept at most (raise ISPOT_ELF_MAX_READ_MB)",
				  o->f.path, c->held / 1048576.0,
				  c->hold_max / 1048576.0);
		c->held_noted = true;
		return false;
	}
	c->held += size;
	*bytes = size;
	return true;
}

/* Whether @o was read from the file @m maps (its dev and inode). */
static bool is_mapped_file(const struct elf_obj *o, const struct elf_map *m)
{
	return major((dev_t)o->f.dev) == m->dev_major &&
	       minor((dev_t)o->f.dev) == m->dev_minor &&
	       o->f.ino == m->inode;
}

/*
 * The file @m maps, through /proc/PID/map_files (which needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), named @name: 0 or -errno.
 * -ESRCH if the pid is another process's, before the open or by the end
 * of the read, whatever the read gave (one that maps a file at the very
 * addresses has an entry of the same name, and a file of its that is no
 * ELF object must not be taken for the process's either).  Not checked
 * against the mapping's inode: overlayfs shows other numbers there on
 * some kernels.
 */
static int load_mapped(const struct elf_objcache *c, const struct elf_map *m,
		       const char *name, struct elf_obj **out)
{
	char alt[96];
	int rc;

	if (!elf_proc_same(&c->proc))
		return -ESRCH;
	snprintf(alt, sizeof(alt), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 c->proc.pid ? (int)c->proc.pid : (int)getpid(), m->start,
		 m->end);
	rc = elf_obj_load_as(alt, name, 0, out, NULL, 0);
	if (!elf_proc_same(&c->proc)) {
		elf_obj_free(*out);
		*out = NULL;
		rc = -ESRCH;
	}
	return rc;
}

/* Whether map_files said no, or had no such entry (vs. no ELF file). */
static bool not_opened(int rc)
{
	return rc == -ENOENT || rc == -ESRCH || rc == -EPERM || rc == -EACCES;
}

/*
 * The file behind mapping @m, named @name.  First through
 * /proc/PID/map_files, which opens the very file mapped.  Where that is
 * closed (-EPERM without CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE) or gone
 * (the process exited, or unmapped it), by its path.  The path is the
 * target's to change between the read of the maps and this open (a
 * rename, a symlink swapped in): a reader that passes over file modes
 * would name the symbols of whatever file it named then (in ispotd's
 * /metrics).  Such a reader takes the path's file only through no
 * symbolic link and with the mapping's device and inode, which leaves a
 * target the files it can rename into a directory it may write, and
 * hard links where protected_hardlinks is off: of those, only one made
 * after the mapped file was unlinked can take its inode number (the
 * known gap, Documentation/evaluation.rst).  A caller that reads no file
 * its user could not takes the path's file as it is (it learns nothing),
 * which keeps names where stat() numbers a file otherwise than the maps
 * (a btrfs subvolume, an overlay whose layers are on another file
 * system).  A mapping of a kept snapshot (@kept) whose file the current
 * one does not map is read by its path alone: the map_files entry of its
 * addresses, if any, is another file's mapped there since.  Its file may
 * be gone as well (a plugin rebuilt at its path and loaded again), so
 * whoever reads it takes only the file of the mapping's device and
 * inode: a new one would name the old code's samples with its own
 * symbols (read_in() refuses one changed since, which the numbers do not
 * show).  Where stat() numbers files otherwise, the files only a kept
 * snapshot maps go unnamed, and so, for a reader without map_files, do
 * kept mappings of a file the current snapshot maps elsewhere
 * (kept_unchanged()).  NULL: no object; its addresses are named as file
 * offsets.  *@mapped_file: whether the object is of the file the maps
 * name (map_files', taken as the mapped file, or its path's with the
 * mapping's numbers).
 */
static struct elf_obj *load(struct elf_objcache *c, const struct elf_map *m,
			    const char *name, bool kept, bool *mapped_file)
{
	bool past = elf_reads_past_user();
	struct elf_obj *o = NULL;
	int rc;

	*mapped_file = false;
	/* No path leads to a kept mapping's deleted file: nothing opened. */
	if (kept && m->deleted)
		return NULL;
	c->objects_read++;
	rc = kept ? -ENOENT : load_mapped(c, m, name, &o);
	if (!rc) {
		*mapped_file = true;
		return o;
	}
	/* Not ELF, or past a bound: the path's file would be no better. */
	if (!not_opened(rc) || m->deleted ||
	    elf_obj_load_as(m->path, name, past ? ELF_OPEN_NO_SYMLINKS : 0,
			    &o, NULL, 0))
		return NULL;
	*mapped_file = is_mapped_file(o, m);
	if ((!past && !kept) || *mapped_file)
		return o;
	elf_obj_free(o);
	return NULL;
}

/*
 * @o's file's last change of contents, *@mtime_ns, and of contents or
 * status, *@ctime_ns, now that its symbols are read (a change while they
 * were counts); UINT64_MAX both where fstat() fails, which refuses the
 * object for kept mappings only.
 */
static void file_times(const struct elf_obj *o, uint64_t *mtime_ns,
		       uint64_t *ctime_ns)
{
	struct stat st;

	if (fstat(o->f.fd, &st)) {
		*mtime_ns = *ctime_ns = UINT64_MAX;
		return;
	}
	*mtime_ns = elf_ts_ns(st.st_mtim);
	*ctime_ns = elf_ts_ns(st.st_ctim);
}

/*
 * @m's object read and cached, failures too (@kept: @m is a kept mapping).
 * A kept mapping's file, read by its path, is refused where its status
 * changed after the kept snapshot was read (a later st_ctim): its device
 * and inode do not show a file rewritten in place, or one made since and
 * given the freed number of the file mapped, unlinked since.  Its entry,
 * or NULL out of memory.
 */
static struct elf_cached_obj *read_in(struct elf_objcache *c,
				      const struct elf_snapshots *sn,
				      const struct elf_map *m, bool kept)
{
	uint64_t bytes = 0, mtime_ns = 0, ctime_ns = 0;
	struct elf_cached_obj *t;
	bool loaded, mapped_file;
	struct elf_obj *o;
	char *name;

	if (ARRAY_RESERVE(c->objs, c->capobjs, c->nobjs + 1))
		return NULL;
	/* The object's name, as the mapping's, for as long as it is kept. */
	name = strdup(m->path);
	if (!name)
		return NULL;
	o = load(c, m, name, kept, &mapped_file);
	if (o)
		file_times(o, &mtime_ns, &ctime_ns);
	if (o && kept && ctime_ns > sn->kept_read_ns) {
		elf_obj_free(o);
		o = NULL;
	}
	/* Not read, as against read and refused by the bound: said once. */
	loaded = o != NULL;
	if (o && !hold(c, sn, o, &bytes)) {
		elf_obj_free(o);
		o = NULL;
	}
	t = &c->objs[c->nobjs++];
	*t = (struct elf_cached_obj){ .path = name,
				      .dev_major = m->dev_major,
				      .dev_minor = m->dev_minor,
				      .inode = m->inode, .bytes = bytes,
				      .o = o, .mtime_ns = mtime_ns,
				      .mapped_file = mapped_file,
				      .kept_miss = kept && !loaded };
	return t;
}

/*
 * @t's object, for a kept mapping (@kept) only where it is of the file
 * the maps name (not a path's other file, which a reader without
 * map_files takes for a current mapping) and that file's contents had
 * not changed since the kept snapshot was read when its symbols were
 * (st_mtim: its status changes when the file mapped is unlinked or
 * renamed over, which a plugin rebuilt at its path does, its code the
 * same): else the kept code would be named from other contents.
 */
static struct elf_obj *kept_unchanged(const struct elf_cached_obj *t,
				      const struct elf_snapshots *sn,
				      bool kept)
{
	if (!t || (kept && (!t->mapped_file ||
			    t->mtime_ns > sn->kept_read_ns)))
		return NULL;
	return t->o;
}

/* The current snapshot's mapping of kept mapping @m's file, or NULL. */
static const struct elf_map *mapped_now(const struct elf_snapshots *sn,
					const struct elf_map *m)
{
	size_t i;

	for (i = 0; i < sn->nmaps; i++)
		if (maps_file(&sn->maps[i], m->path, m->dev_major,
			      m->dev_minor, m->inode))
			return &sn->maps[i];
	return NULL;
}

bool elf_objcache_changed_since_kept(const struct elf_objcache *c,
				     const struct elf_snapshots *sn,
				     const struct elf_map *m)
{
	const struct elf_cached_obj *t = cached_find(c, m);

	return t && t->o && t->mtime_ns > sn->kept_read_ns;
}

/*
 * One object for a file mapped at a path, whether kept mappings or
 * current ones map it.  A kept mapping's file that the current snapshot
 * maps too is read as the current mapping's is (its map_files entry,
 * where that opens), not by the path alone.  A kept mapping's read that
 * found no object (kept_miss) is tried again for a current mapping of the
 * file, or for a kept one once the current snapshot maps it: else a
 * plugin unloaded and loaded again from the same file, at another place,
 * had its new addresses named as file offsets when an old one was named
 * first (its path's file rebuilt since, or numbered otherwise than the
 * maps).  For a kept mapping, whichever way it was read, not an object
 * of contents changed since the kept snapshot (kept_unchanged()).
 */
struct elf_obj *elf_objcache_get(struct elf_objcache *c,
				 const struct elf_snapshots *sn,
				 const struct elf_map *m, bool kept)
{
	struct elf_cached_obj *t = cached_find(c, m);
	const struct elf_map *now = NULL;

	if (t && !t->kept_miss)
		return kept_unchanged(t, sn, kept);
	if (kept)
		now = mapped_now(sn, m);
	if (t) {
		if (kept && !now)
			return NULL;
		c->held -= t->bytes;
		cached_obj_free(t);
		*t = c->objs[--c->nobjs];
	}
	t = now ? read_in(c, sn, now, false) : read_in(c, sn, m, kept);
	return kept_unchanged(t, sn, kept);
}
