// SPDX-License-Identifier: GPL-2.0
/*
 * Separate debug files: a stripped object's .symtab, found the way gdb
 * and Debian's -dbgsym packages lay it out.
 *
 * Roots are /usr/lib/debug, then each directory of $ISPOT_DEBUG_DIRS
 * (colon-separated).  For an object /dir/obj, tried in this order:
 *
 *	ROOT/.build-id/xx/yyyy.debug	NT_GNU_BUILD_ID note, every root
 *	/dir/LINK			its .gnu_debuglink name
 *	/dir/.debug/LINK
 *	ROOT/dir/LINK			every root
 *
 * A file found by build-id must carry the same build-id; one found by
 * debug link must have the CRC-32 the link records.  A file that does not
 * match belongs to another build: its symbols would name the wrong code,
 * so it is skipped, with a warning on stderr (once per file) because
 * whoever installed it probably expects it to be used.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_internal.h"
#include "util/array.h"
#include "util/errors.h"

#define DEFAULT_DEBUG_ROOT	"/usr/lib/debug"

/*
 * The debug files warned about, each once: ispotd resolves in its picker
 * threads and its loop at once, hence the lock; and the files are any
 * user's to make, hence the bound, past which one line says that the
 * rest go unsaid.
 */
#define MAX_WARNED	64

static const char *debug_root = DEFAULT_DEBUG_ROOT;
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static char **warned;
static size_t nwarned, capwarned;
static bool warned_full;

void elf_debuginfo_reset(const char *root)
{
	size_t i;

	pthread_mutex_lock(&warned_lock);
	debug_root = root ? root : DEFAULT_DEBUG_ROOT;
	for (i = 0; i < nwarned; i++)
		free(warned[i]);
	free(warned);
	warned = NULL;
	nwarned = 0;
	capwarned = 0;
	warned_full = false;
	pthread_mutex_unlock(&warned_lock);
}

/*
 * Whether @path is new to the list (taken in if there is room); *@full
 * set when this call found the list full for the first time.
 */
static bool warned_first(const char *path, bool *full)
{
	bool first = true;
	size_t i;

	*full = false;
	pthread_mutex_lock(&warned_lock);
	for (i = 0; i < nwarned && first; i++)
		first = strcmp(warned[i], path) != 0;
	if (first && nwarned >= MAX_WARNED) {
		first = false;
		*full = !warned_full;
		warned_full = true;
	} else if (first && !ARRAY_RESERVE(warned, capwarned, nwarned + 1)) {
		warned[nwarned] = strdup(path);
		if (warned[nwarned])
			nwarned++;
	}
	pthread_mutex_unlock(&warned_lock);
	return first;
}

static void warn_once(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn_once(const char *path, const char *fmt, ...)
{
	char msg[2 * PATH_MAX + 512];	/* two paths, two build-ids */
	va_list ap;
	bool full;

	if (warned_first(path, &full)) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	} else if (full) {
		snprintf(msg, sizeof(msg), "more than %d debug files "
			 "ignored: the rest without a warning", MAX_WARNED);
	} else {
		return;
	}
	/*
	 * Not ispot_error(): before an error its hook takes back what owns
	 * the terminal (a status line, a live view's screen), which a
	 * warning must leave as it is.
	 */
	ispot_say("warning: %s", msg);
}

static uint32_t crc_table[256];

static void crc_table_fill(void)
{
	uint32_t c;
	size_t i;
	int k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

/*
 * CRC-32 as .gnu_debuglink uses it: reflected, polynomial 0xEDB88320.
 * The table filled once for all threads: one that saw it half filled
 * would find a debug file another build's.
 */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const uint32_t *table = crc_table;
	size_t i;

	pthread_once(&once, crc_table_fill);
	crc = ~crc;
	for (i = 0; i < n; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static int file_crc32(const struct elf_file *f, uint32_t *crc)
{
	unsigned char buf[65536];
	uint64_t off = 0;
	int rc;

	*crc = 0;
	while (off < f->size) {
		size_t n = f->size - off < sizeof(buf) ?
			   (size_t)(f->size - off) : sizeof(buf);

		rc = elf_read_at(f, off, buf, n);
		if (rc)
			return rc;
		*crc = crc32_update(*crc, buf, n);
		off += n;
	}
	return 0;
}

/* The name and CRC of f's .gnu_debuglink, if it has one. */
static void read_debuglink(const struct elf_file *f, struct elf_debuginfo *d)
{
	long idx = elf_section_by_name(f, ".gnu_debuglink");
	const Elf64_Shdr *sh;
	size_t len;
	char *buf;

	if (idx < 0)
		return;
	sh = &f->sh[idx];
	if (sh->sh_type != SHT_PROGBITS || sh->sh_size > sizeof(d->link) + 8 ||
	    elf_read_dup(f, sh->sh_offset, sh->sh_size, &buf))
		return;
	len = strlen(buf);
	/* The name, NUL-padded to 4 bytes, then the CRC; no path in it. */
	if (len && len < sizeof(d->link) && !strchr(buf, '/') &&
	    ((len + 4) & ~3u) + 4 <= sh->sh_size) {
		memcpy(d->link, buf, len + 1);
		memcpy(&d->link_crc, buf + ((len + 4) & ~3u), 4);
	}
	free(buf);
}

static void hex(const unsigned char *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = '\0';
}

static void build_id_hex(const struct elf_file *f, char *out)
{
	unsigned char id[ELF_BUILD_ID_MAX];
	size_t len = 0;

	out[0] = '\0';
	if (!elf_note_find(f, "GNU", NT_GNU_BUILD_ID, id, sizeof(id), &len) &&
	    len >= 2 && len <= sizeof(id))
		hex(id, len, out);
}

enum how_found { BY_BUILD_ID, BY_LINK };

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * Use path as o's debug file if it is one and matches.  -ENOENT: nothing
 * there (keep looking, quietly); -ESTALE: there but not o's.
 */
static int try_file(struct elf_obj *o, const char *path, enum how_found how,
		    unsigned int flags)
{
	struct elf_file df;
	char err[PATH_MAX + 256], id[sizeof(o->dbg.build_id)];
	uint32_t crc;
	int rc;

	/* Opened before it is looked at: it may change under a stat(). */
	rc = elf_file_open_how(&df, path, flags, err, sizeof(err));
	/* ELOOP: a link where no link is followed, as good as none. */
	if (rc == -ENOENT || rc == -ENOTDIR || rc == -ELOOP)
		return -ENOENT;
	if (rc) {
		warn_once(path, "ignoring debug file %s: %s", path, err);
		return -ESTALE;
	}
	rc = -ENOENT;
	/* A debug link naming the object's own file is no debug file. */
	if (same_file(o->f.fd, df.fd))
		goto out;
	rc = -ESTALE;
	if (how == BY_LINK && df.size > elf_limit(ELF_LIMIT_READ)) {
		/*
		 * The CRC reads the whole file, and a sparse file of any
		 * size costs nothing to make: past the read bound, a hostile
		 * link could hold the caller for hours.  A genuine debug
		 * file that large (DWARF, mostly) carries the object's
		 * build-id, which tells as well.
		 */
		build_id_hex(&df, id);
		if (!*id || strcmp(id, o->dbg.build_id)) {
			warn_once(path, "ignoring debug file %s: over the "
				  "bound of %llu MB to read for its CRC, and "
				  "not the build-id of %s (if it is genuine, "
				  "set ISPOT_ELF_MAX_READ_MB higher)",
				  path,
				  (unsigned long long)(elf_limit(ELF_LIMIT_READ)
						       >> 20), o->f.path);
			goto out;
		}
	} else if (how == BY_LINK) {
		if (file_crc32(&df, &crc)) {
			warn_once(path, "ignoring debug file %s: cannot read it",
				  path);
			goto out;
		}
		if (crc != o->dbg.link_crc) {
			/* Not its CRC: a file the caller could not read. */
			warn_once(path,
				  "ignoring debug file %s: its CRC does not match 0x%08x in %s's debug link (another build?)",
				  path, o->dbg.link_crc, o->f.path);
			goto out;
		}
	} else {
		build_id_hex(&df, id);
		if (strcmp(id, o->dbg.build_id)) {
			warn_once(path,
				  "ignoring debug file %s: its build-id does not match %s's %s (another build?)",
				  path, o->f.path, o->dbg.build_id);
			goto out;
		}
	}
	rc = elf_obj_add_debug_symbols(o, &df);
	if (rc == -E2BIG) {
		elf_over_limit(path, o->over, o->over_have, err, sizeof(err));
		warn_once(path, "ignoring debug file %s: %s", path, err);
	} else if (rc) {
		warn_once(path, "ignoring debug file %s: no usable symbol table",
			  path);
	}
	if (rc) {
		rc = -ESTALE;
		goto out;
	}
	o->dbg.path = strdup(path);
	rc = 0;
out:
	elf_file_close(&df);
	return rc;
}

/* Try ROOT/sub in every root; stop at the first that matches. */
static int each_root(struct elf_obj *o, const char *sub, enum how_found how)
{
	char path[PATH_MAX];
	const char *env = getenv("ISPOT_DEBUG_DIRS"), *p, *end;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", debug_root, sub);
	if (!try_file(o, path, how, 0))
		return 0;
	for (p = env; p && *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		len = (size_t)(end - p);
		if (!len)
			continue;
		if (snprintf(path, sizeof(path), "%.*s/%s", (int)len, p, sub) >=
		    (int)sizeof(path))
			continue;
		if (!try_file(o, path, how, 0))
			return 0;
	}
	return -ENOENT;
}

/*
 * Try dir/sub/link (sub may be ""); a path too long is not there.  The
 * object's own directory is the target's to change (and its debug link
 * names what it likes): a reader that passes over file modes opens
 * there through no symbolic link, and a debug file must carry the
 * object's CRC, which no message tells of another file.
 */
static int try_in(struct elf_obj *o, const char *dir, const char *sub)
{
	char path[PATH_MAX];
	int len;

	len = snprintf(path, sizeof(path), "%s/%s%s", dir, sub, o->dbg.link);
	if (len < 0 || len >= (int)sizeof(path))
		return -ENOENT;
	return try_file(o, path, BY_LINK,
			elf_reads_past_user() ? ELF_OPEN_NO_SYMLINKS : 0);
}

/*
 * The directory of @o's file into @dir, canonical.  For a reader that
 * passes over file modes, that of the file it opened (its descriptor's
 * link, which walks no path): realpath() of the path would follow a link
 * the target swapped in since.  try_in() then opens through no link.
 */
static bool obj_dir(const struct elf_obj *o, char *dir)
{
	char fd_link[32];
	ssize_t len;
	char *slash;

	if (!elf_reads_past_user()) {
		if (!realpath(o->f.path, dir))
			return false;
	} else {
		snprintf(fd_link, sizeof(fd_link), "/proc/self/fd/%d",
			 o->f.fd);
		len = readlink(fd_link, dir, PATH_MAX - 1);
		if (len <= 0 || dir[0] != '/')
			return false;
		dir[len] = '\0';
	}
	slash = strrchr(dir, '/');
	*slash = '\0';		/* "" for a file in / */
	return true;
}

bool elf_debuginfo_attach(struct elf_obj *o)
{
	struct elf_debuginfo *d = &o->dbg;
	char dir[PATH_MAX], path[PATH_MAX + 300];

	if (d->tried)
		return d->path != NULL;
	d->tried = true;
	build_id_hex(&o->f, d->build_id);
	read_debuglink(&o->f, d);

	if (*d->build_id) {
		snprintf(path, sizeof(path), ".build-id/%.2s/%s.debug",
			 d->build_id, d->build_id + 2);
		if (!each_root(o, path, BY_BUILD_ID))
			return true;
	}
	if (!*d->link || !obj_dir(o, dir))
		return false;
	if (!try_in(o, dir, "") || !try_in(o, dir, ".debug/"))
		return true;
	/* dir is absolute: ROOT + dir is ROOT/usr/bin/LINK. */
	snprintf(path, sizeof(path), "%s/%s", *dir ? dir + 1 : "", d->link);
	return !each_root(o, path, BY_LINK);
}

void elf_debuginfo_hint(const struct elf_obj *o, char *msg, size_t msglen)
{
	const struct elf_debuginfo *d = &o->dbg;
	size_t used = strlen(msg);

	if (*d->build_id && *d->link)
		snprintf(msg + used, msglen - used,
			 "; install the -dbgsym package for build-id %s (debug file '%s'), or name its directory in ISPOT_DEBUG_DIRS",
			 d->build_id, d->link);
	else if (*d->build_id)
		snprintf(msg + used, msglen - used,
			 "; install the -dbgsym package for build-id %s, or name its debug root in ISPOT_DEBUG_DIRS",
			 d->build_id);
	else if (*d->link)
		snprintf(msg + used, msglen - used,
			 "; put its debug file '%s' next to it, in .debug/ there, or under a directory of ISPOT_DEBUG_DIRS",
			 d->link);
	else
		snprintf(msg + used, msglen - used,
			 "; it has no build-id or debug link to find debug info by: trace an unstripped build");
}

int elf_build_id(const char *path, char *out, size_t len)
{
	char id[2 * ELF_BUILD_ID_MAX + 1];
	struct elf_file f;
	int rc;

	out[0] = '\0';
	rc = elf_file_open(&f, path, NULL, 0);
	if (rc)
		return rc;
	build_id_hex(&f, id);
	elf_file_close(&f);
	snprintf(out, len, "%s", id);
	return 0;
}
