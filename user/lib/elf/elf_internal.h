/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the ELF resolver share; elf.h is the public API.
 *
 *	elf_file.c	open an ELF file, bounds-checked reads, address
 *			translation, object short names
 *	elf_symtab.c	.symtab/.dynsym with versions, deduplicated
 *	elf_suggest.c	near matches for a name that is not there
 *	elf_spec.c	function specs to probe points
 *	elf_maps.c	/proc/PID/maps and load bias
 *	elf_symbolize.c	runtime addresses to symbols
 *	elf_snapshot.c	the snapshots of the maps a symbolizer names from
 *	elf_libsearch.c	DT_NEEDED closure, searched as ld.so searches
 *	elf_dso.c	one object's PT_INTERP and PT_DYNAMIC, as ld.so reads
 *			them; which file is a library ld.so accepts
 *	elf_ldcache.c	/etc/ld.so.cache
 *	elf_notes.c	ELF notes: the walker, the GNU build-id
 *	elf_usdt.c	USDT probes: .note.stapsdt
 *	elf_locate.c	the object a spec's OBJ: names
 *	elf_block.c	block specs to USDT probe sites
 *	elf_debuginfo.c	separate debug files: build-id, .gnu_debuglink
 *	elf_go.c	Go programs, where return probes are refused
 *	elf_ehframe.c	function boundaries from .eh_frame(_hdr)
 *	elf_ehfuncs.c	those as functions "OBJ+0xSTART" where no symbol is
 *
 * Functions taking (err, errlen) follow elf.h's error convention.
 */
#ifndef ISPOT_ELF_INTERNAL_H
#define ISPOT_ELF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "elf/elf.h"

/* Write a message to err (if any) and return rc. */
int elf_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* strlcpy(): fixed-size fields are filled by truncation, never overrun. */
void elf_copy_str(char *dst, size_t size, const char *src);

/*
 * What one object may cost: ispotd resolves as root files any user
 * controls, and a sparse file of a few KB on disk can claim a symbol table
 * of any size.  The biggest libraries measured (Debian 12, x86-64):
 * libLLVM.so.22 of Rust with its .symtab, 259k + 39k symbols, a 17.9 MB
 * .strtab and 28 MB of symbol data in all; librustc_driver 165k symbols,
 * a 19.7 MB .strtab; libLLVM-15.so.1 46k .dynsym symbols.  Firefox's
 * libxul has about 1M.  The bounds are 4x libxul, 13x and 18x these,
 * and what reaching them all costs stays under 1 GB.  Each environment
 * variable raises (or lowers) its bound; refusals name theirs.
 */
enum elf_limit {
	ELF_LIMIT_SYMBOLS,	/* an object's symbols, .eh_frame's functions too */
	ELF_LIMIT_STRTAB,	/* bytes of one string table */
	ELF_LIMIT_READ,		/* bytes read for an object's symbols */
};

#define ELF_MAX_SYMBOLS		(4u << 20)	/* ISPOT_ELF_MAX_SYMBOLS */
#define ELF_MAX_STRTAB_MB	256		/* ISPOT_ELF_MAX_STRTAB_MB */
#define ELF_MAX_READ_MB		512		/* ISPOT_ELF_MAX_READ_MB */

/* The bound, in symbols or bytes: its variable if set and > 0. */
uint64_t elf_limit(enum elf_limit which);

/* -E2BIG, with "PATH: ... (have) over the bound ...; raise VAR". */
int elf_over_limit(const char *path, enum elf_limit which, uint64_t have,
		   char *err, size_t errlen);

/* An open ELF file with its program and section headers. */
struct elf_file {
	int fd;
	uint64_t size;
	/* Which file was opened: what a mapping's dev and inode name. */
	uint64_t dev, ino;
	const char *path;	/* for messages; owned by the caller */
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	size_t phnum;
	Elf64_Shdr *sh;
	size_t shnum;
};

int elf_file_open(struct elf_file *f, const char *path,
		  char *err, size_t errlen);
/* Opens through no symbolic link in any component of the path. */
#define ELF_OPEN_NO_SYMLINKS	1u
/* The same, with ELF_OPEN_* @flags. */
int elf_file_open_how(struct elf_file *f, const char *path,
		      unsigned int flags, char *err, size_t errlen);
int elf_open_regular_how(const char *path, struct stat *st,
			 unsigned int flags, char *err, size_t errlen);
/*
 * Whether this process reads files its user could not: root, or a
 * capability that passes over file modes (ispotd's unit grants
 * CAP_DAC_READ_SEARCH); true when it cannot tell.  Such a reader opens
 * no path a target may have swapped for a link (elf_objcache.c,
 * elf_debuginfo.c).
 */
bool elf_reads_past_user(void);
void elf_file_close(struct elf_file *f);

/* Read exactly len bytes at off; -ENOEXEC if that is past the end. */
int elf_read_at(const struct elf_file *f, uint64_t off, void *buf,
		size_t len);
/*
 * As elf_read_at() into a new buffer with a NUL byte appended; -E2BIG past
 * the ELF_LIMIT_READ bound, whatever the file size.
 */
int elf_read_dup(const struct elf_file *f, uint64_t off, uint64_t len,
		 char **out);

/* A native ELF identity (class, byte order, version), or -ENOEXEC. */
int elf_check_ident(const unsigned char *id, const char *path,
		    char *err, size_t errlen);

/*
 * Translate a link-time address to a file offset through the PT_LOAD that
 * contains it.  -ENOENT: in no segment; -ERANGE: in the zero-filled tail
 * (.bss), not backed by the file; -EPERM: segment is not executable and
 * need_exec was asked for.
 */
int elf_vaddr_to_offset(const struct elf_file *f, uint64_t vaddr,
			bool need_exec, uint64_t *off);

/* elf_vaddr_to_offset()'s failure in words: "is not backed by the file". */
const char *elf_offset_error(int rc);

/* The PT_LOAD segment whose memory image contains vaddr, or NULL. */
const Elf64_Phdr *elf_vaddr_segment(const struct elf_file *f,
				    uint64_t vaddr);

/* The index of the section called name, or -1. */
long elf_section_by_name(const struct elf_file *f, const char *name);

/* One note, pointing into the region elf_note_walk() read. */
struct elf_note {
	uint32_t type;
	uint32_t namesz;	/* owner length, with its NUL if well-formed */
	uint32_t descsz;
	const char *name;	/* owner, namesz bytes */
	const void *desc;	/* descsz bytes */
};

/* Return 0 to go on, anything else to stop the walk with that value. */
typedef int (*elf_note_fn)(const struct elf_note *note, void *arg);

/*
 * Call fn for each note of the region [off, off + size) of f, whose
 * section or segment alignment is align.  Returns 0 after the last note,
 * fn's non-zero value, -ENOEXEC when a note overruns the region (after fn
 * saw the notes before it), -E2BIG for a region too large to read, or the
 * read's error.  Every size is checked before use.
 */
int elf_note_walk(const struct elf_file *f, uint64_t off, uint64_t size,
		  uint64_t align, elf_note_fn fn, void *arg);

/* Whether note has owner (a string) and type. */
bool elf_note_is(const struct elf_note *note, const char *owner,
		 uint32_t type);

/*
 * The descriptor of the first note of owner and type, from the SHT_NOTE
 * sections or, without section headers, the PT_NOTE segments.  Up to max
 * bytes are copied to desc and its full size goes to *len.  -ENOENT: no
 * such note.
 */
int elf_note_find(const struct elf_file *f, const char *owner,
		  uint32_t type, void *desc, size_t max, size_t *len);

/* The longest build-id we keep (GNU ld writes 20 bytes, sha1). */
#define ELF_BUILD_ID_MAX	64

/* One defined symbol of .symtab or .dynsym. */
struct esym {
	const char *name;	/* base name, without any @version */
	const char *ver;	/* version name or NULL */
	uint64_t value;
	uint64_t size;
	uint16_t shndx;
	unsigned char type;
	unsigned char bind;
	bool hidden;		/* non-default version: name@ver */
	bool owned;		/* name was malloc'd (split from name@ver) */
	bool synth;		/* no symbol: .eh_frame's, "OBJ+0xSTART" */
};

/* One function .eh_frame describes: link-time start and size. */
struct elf_fde_func {
	uint64_t start, size;
};

struct elf_file;

/*
 * The functions of f's .eh_frame (see elf_ehframe.c for which FDEs are
 * functions), in table or file order: a malloc'd array (NULL
 * and 0 when f has no .eh_frame).  -ENOEXEC for a truncated or corrupt
 * one, -E2BIG past ELF_LIMIT_READ.
 */
int elf_ehframe_funcs(const struct elf_file *f, struct elf_fde_func **out,
		      size_t *n, char *err, size_t errlen);

/*
 * What was looked for in a separate debug file and found (elf_debuginfo.c),
 * so that an error can say what would fix a stripped object.
 */
struct elf_debuginfo {
	bool tried;
	char *path;		/* debug file whose symbols were added */
	char build_id[2 * ELF_BUILD_ID_MAX + 1];	/* hex, or "" */
	char link[256];		/* .gnu_debuglink name, or "" */
	uint32_t link_crc;
};

/* A parsed object: its file and its symbols. */
struct elf_obj {
	struct elf_file f;
	char *bufs[8];		/* string tables the names point into */
	size_t nbufs;
	struct esym *syms;	/* sorted by (value, name) */
	size_t nsyms;
	uint64_t max_size;	/* largest st_size, bounds address lookup */
	char **demangled;	/* per symbol, filled on first use; NULL */
				/* when no name is mangled */
	bool has_symtab;
	bool has_dynsym;
	struct elf_debuginfo dbg;
	char base[256];		/* file name, as functions "base+0xSTART" */
	/* .eh_frame's functions, read once (elf_ehfuncs.c) */
	struct elf_fde_func *fdes;
	size_t nfdes;
	bool fdes_read;
	char fde_err[160];	/* why .eh_frame was not read, or "" */
	bool fdes_cut;		/* fde_err: the symbol bound cut names */
	/* What loading the symbols cost so far, against the bounds. */
	uint64_t nraw;		/* symbol table entries */
	uint64_t nread;		/* bytes read */
	enum elf_limit over;	/* the bound crossed, with -E2BIG */
	uint64_t over_have;	/* what would have crossed it */
};

static inline bool esym_is_func(const struct esym *s)
{
	return s->type == STT_FUNC || s->type == STT_GNU_IFUNC;
}

int elf_obj_load(const char *path, struct elf_obj **out,
		 char *err, size_t errlen);
/*
 * The same from @path, named @name (messages, OBJ+0xSTART names) when not
 * NULL: a file read through /proc/PID/map_files is named as the mapping
 * is.  @name must outlive the object (its f.path points to it).  @flags:
 * ELF_OPEN_*.
 */
int elf_obj_load_as(const char *path, const char *name, unsigned int flags,
		    struct elf_obj **out, char *err, size_t errlen);
void elf_obj_free(struct elf_obj *o);

/*
 * Add the .symtab of dbg, a separate debug file of o, to o's symbols.
 * Their values are link-time addresses of o, so offsets still come from
 * o's program headers.  -ENOENT: dbg has no .symtab.
 */
int elf_obj_add_debug_symbols(struct elf_obj *o, const struct elf_file *dbg);

/*
 * Replace o's symbols named from .eh_frame (esym.synth) by the n of add,
 * whose names o now owns.  0 or -ENOMEM (add's names freed).
 */
int elf_obj_set_synth(struct elf_obj *o, struct esym *add, size_t n);

/*
 * Give o a function "base+0xSTART" for each of its .eh_frame functions
 * no function symbol covers the start of, in executable code.  Read
 * once; again after debug symbols are added, which may name them.  A
 * corrupt .eh_frame adds none and says why in o->fde_err.
 */
void elf_obj_add_ehframe(struct elf_obj *o);

/*
 * Whether name spells a function by address, "base+0xSTART" (as
 * elf_obj_add_ehframe() names them): its base into base (size len) and
 * START into *vaddr.
 */
bool elf_addr_spelling(const char *name, char *base, size_t len,
		       uint64_t *vaddr);

/*
 * Look for o's separate debug file once and add its symbols (see
 * elf_debuginfo.c for where).  A candidate that does not match is skipped
 * with a warning on stderr, once per file.  Returns whether symbols were
 * added.
 */
bool elf_debuginfo_attach(struct elf_obj *o);

/* Append what would give stripped o its symbols to msg ("; install ..."). */
void elf_debuginfo_hint(const struct elf_obj *o, char *msg, size_t msglen);

/*
 * Whether o is a Go program: a .go.buildinfo section or a runtime.main
 * symbol.
 */
bool elf_obj_is_go(const struct elf_obj *o);

/*
 * Whether return probes may go into o: -EPERM, with a message naming
 * shown, for a Go program.
 */
int elf_check_return_probes(const struct elf_obj *o, const char *shown,
			    char *err, size_t errlen);

/*
 * The demangled name of C++ symbol s of o, without return type; NULL for
 * other symbols or when it cannot be demangled.  Cached in o.
 */
const char *elf_sym_demangled(const struct elf_obj *o, const struct esym *s);

/* Order for elf_pick_name(): < 0 when a is the better display name. */
int elf_name_pref(const char *a, const char *b);

/*
 * Append "; did you mean: a, b, c?" to msg for the function names of o
 * closest to pattern.
 */
void elf_suggest(const struct elf_obj *o, const char *pattern,
		 char *msg, size_t msglen);

static inline bool elf_is_file_map(const struct elf_map *m)
{
	return m->path[0] == '/';
}

/*
 * Load bias of @f from its file mapping @m, told apart by its other
 * mappings in @maps[0..@n) where two segments share a file page;
 * -ENOENT if no segment covers @m.
 */
int elf_bias_from_map(const struct elf_file *f, const struct elf_map *maps,
		      size_t n, const struct elf_map *m, uint64_t *bias);

/*
 * elf_maps.c: a process, known by its pid and its start time.  A pid
 * comes round again to another process after the first exits, and that
 * one's files have the same names (its map_files entries too, where it
 * maps a file at the same addresses): what is read by the pid is the
 * process's only if elf_proc_same() says so after the read.  Pid 0 (or
 * less) is the caller.
 */
struct elf_proc {
	pid_t pid;		/* 0: the caller */
	uint64_t start_time;	/* clock ticks since boot (util/procstat.h) */
};

void elf_proc_init(struct elf_proc *p, pid_t pid);
/* Whether @p's pid is still its process's, and it still has memory. */
bool elf_proc_same(const struct elf_proc *p);
/* elf_maps_read(), of @p's process (-ESRCH: not, or no longer). */
int elf_proc_maps_read(const struct elf_proc *p, struct elf_map **maps,
		       size_t *n, char *err, size_t errlen);

/*
 * The snapshots of a process's maps a symbolizer names from
 * (elf_snapshot.c): the current one, and the one kept
 * (elf_symbolizer_keep()), NULL and 0 if none.
 */
struct elf_snapshots {
	const struct elf_map *maps;
	size_t nmaps;
	const struct elf_map *kept;
	size_t nkept;
	uint64_t kept_read_ns;	/* when the kept one was read (see below) */
};

/*
 * elf_objcache.c: the objects read for one process's file mappings (@proc:
 * the caller's if its pid is 0), kept while the maps name them, within a
 * bound.
 */
struct elf_cached_obj;
struct elf_objcache {
	struct elf_proc proc;
	struct elf_cached_obj *objs;
	size_t nobjs, capobjs;
	/* What the objects hold, against the bound (elf.h). */
	uint64_t held, hold_max;
	bool held_noted;
	/*
	 * The files opened for an object, elf_symbolizer_objects_read()
	 * (the symbolizer's own reads count reads of the maps).
	 */
	uint64_t objects_read;
};

void elf_objcache_init(struct elf_objcache *c, const struct elf_proc *proc);
void elf_objcache_free(struct elf_objcache *c);
/*
 * The object of file mapping @m, one of @sn's current snapshot or, @kept,
 * of its kept one, whose mapping may be gone, its addresses another
 * file's now, from @c: read on first sight (failures are kept too, so a
 * file that is no ELF object is opened once), the one cached if the same
 * file is mapped at the same path.  A kept mapping whose file the
 * current snapshot maps too is read through the current mapping; one
 * whose file was not taken is read again for a current mapping of it.
 * To make room, only objects neither snapshot maps are let go.  NULL:
 * none (not ELF, past the bound, or no memory).
 */
struct elf_obj *elf_objcache_get(struct elf_objcache *c,
				 const struct elf_snapshots *sn,
				 const struct elf_map *m, bool kept);
/*
 * Whether the object cached for file mapping @m was read from contents
 * changed after @sn's kept snapshot was read (or of times unknown):
 * false where it was not, and where none is cached or none could be
 * read (a file offset then names the address in both snapshots alike).
 */
bool elf_objcache_changed_since_kept(const struct elf_objcache *c,
				     const struct elf_snapshots *sn,
				     const struct elf_map *m);

/*
 * A symbolizer (elf.h): elf_symbolize.c names addresses, elf_snapshot.c
 * keeps the maps they are named from.
 */
struct sz_named;
struct elf_symbolizer {
	struct elf_proc proc;	/* the process: not its pid's next one */
	struct elf_map *maps;
	size_t nmaps;
	/*
	 * When the maps were read, and the kept ones: the real-time clock
	 * just before the read, in ns, as st_mtim and st_ctim count.
	 */
	uint64_t maps_read_ns;
	uint64_t kept_read_ns;
	struct elf_objcache objs;	/* what its mappings' files hold */
	uint64_t generation;	/* elf_symbolizer_generation() */
	uint64_t reads;		/* elf_symbolizer_reads() */
	bool no_reread;		/* elf_symbolizer_reread_on_miss() */
	/*
	 * elf_symbolizer_keep(): asked for, the snapshot kept, and whether
	 * it maps other files or the same at other places than the
	 * current one (else the current one answers alone).
	 */
	bool keep;
	struct elf_map *kept;
	size_t nkept;
	bool kept_differs;
	/* Frozen (elf_symbolizer_frozen()): these names, no process. */
	bool frozen;
	bool sorted;
	struct sz_named *named;
	size_t nnamed, capnamed;
};

/*
 * A time of the real-time clock in ns, as the snapshots' read times and
 * files' stamps are compared; one before 1970 reads as 0.
 */
static inline uint64_t elf_ts_ns(struct timespec ts)
{
	if (ts.tv_sec < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Whether @x and @y map the same file, the same part, at the same place
 * (for anonymous mappings, the same place, path and permissions only).
 */
bool elf_map_same(const struct elf_map *x, const struct elf_map *y);
/*
 * @proc's maps read into *@maps[0..*@n) (elf_proc_maps_read()), and
 * *@read_ns the real-time clock just before: a file changed since then
 * (its st_mtim or st_ctim later) may not be the file they map.
 */
int elf_snapshot_read(const struct elf_proc *proc, struct elf_map **maps,
		      size_t *n, uint64_t *read_ns, char *err, size_t errlen);
/*
 * The kept snapshot's mapping of @addr (elf_snapshot.c), where the kept
 * snapshot maps other files or other places than the current one; NULL
 * where it does not, or maps nothing there.
 */
const struct elf_map *elf_snapshot_kept_find(const struct elf_symbolizer *s,
					     uint64_t addr);

/* What ld.so needs to know about one object (elf_dso.c). */
struct elf_dso {
	char *path;		/* canonical */
	char *origin;		/* directory of path, for $ORIGIN */
	char *rpath;
	char *runpath;
	char **needed;
	size_t nneeded;
	bool nodeflib;
};

/*
 * Read @path's DT_NEEDED, DT_RPATH, DT_RUNPATH and DF_1_NODEFLIB into @d,
 * its PT_INTERP (if @interp) and its e_machine (if @machine).
 */
int elf_dso_load(const char *path, struct elf_dso *d, char **interp,
		 uint16_t *machine, char *err, size_t errlen);
void elf_dso_free(struct elf_dso *d);

/*
 * Whether @path is a library ld.so would load for an object of @machine;
 * if so, its canonical path goes to @out.
 */
bool elf_lib_try(const char *path, uint16_t machine, char *out,
		 size_t outlen);

/* /etc/ld.so.cache, read whole (elf_ldcache.c); nlibs 0 if unusable. */
struct elf_ldcache {
	char *buf;
	size_t size;
	const char *base;	/* string offsets are relative to this */
	const uint8_t *entries;
	uint32_t nlibs;
};

void elf_ldcache_load(struct elf_ldcache *c);
/* The cache's library for @name that elf_lib_try() accepts, into @out. */
bool elf_ldcache_lookup(const struct elf_ldcache *c, const char *name,
			uint16_t machine, char *out, size_t outlen);
void elf_ldcache_free(struct elf_ldcache *c);

/*
 * The object a spec's OBJ designates (see elf_resolve_spec()): NULL for
 * the main executable (exe, else /proc/PID/exe), a path (contains '/'),
 * or a short name looked up among pid's mapped objects, else exe's
 * DT_NEEDED closure.  spec is only quoted in messages.
 */
int elf_locate_object(const char *obj, pid_t pid, const char *exe,
		      const char *spec, char *path, size_t pathlen,
		      char *err, size_t errlen);

/*
 * A bare name the program lacks (err holds why, -ENOENT), looked for in
 * the objects it loads and, when pid > 0, has mapped (elf_libfunc.c).
 * Found in one: its probe points, flagged ELF_SYM_IN_LIB.  In several:
 * -EINVAL listing them.  In none: -ENOENT, err naming them too.
 */
int elf_resolve_in_libs(const char *name, pid_t pid, const char *exe,
			unsigned int flags, struct elf_target_sym **out,
			size_t *n, char *err, size_t errlen);

#endif /* ISPOT_ELF_INTERNAL_H */
