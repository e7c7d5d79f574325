/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF symbol resolution for ispotctl.
 *
 * Two directions are covered:
 *
 *  - spec -> probe points: a function SPEC (see elf_resolve_spec()) becomes
 *    a list of (object path, file offset) pairs, which is what a uprobe is
 *    registered on.  The offset is computed through the executable PT_LOAD
 *    segment that contains the symbol, so PIE, non-PIE and shared objects
 *    linked at any base are all handled the same way.
 *
 *  - runtime address -> name: an address inside a live process (a lock
 *    word, a return address) becomes "object:symbol+off", using
 *    /proc/PID/maps to find the object and its load bias.  Data symbols
 *    (STT_OBJECT) count, including ones in .bss past the file-backed pages.
 *
 * Every function that can fail takes (char *err, size_t errlen): on failure
 * it returns a negative errno and writes a one-line, human-readable message
 * there (no trailing newline) for the caller to print.  Nothing here prints
 * or exits.  err may be NULL when errlen is 0.
 *
 * Only native ELF (64-bit, host byte order) is supported.  All file reads
 * are bounds-checked against the file size, so truncated or hostile files
 * produce an error, never an out-of-bounds read.
 */
/*
 * With -Iuser/lib this file shadows the C library's <elf.h>, so it pulls that
 * one in: code asking for <elf.h> still gets the Elf64_* definitions.  It
 * sits outside the guard because a quote-include from user/lib resolves
 * #include_next through -Iuser/lib back to this file, whose second pass must
 * still reach the system header.
 */
#include_next <elf.h>

#ifndef ISPOT_ELF_H
#define ISPOT_ELF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Display names longer than this are truncated (offsets are unaffected);
 * demangled C++ names can be long.
 */
#define ELF_SYM_NAME_MAX	512

/* elf_target_sym.flags */
#define ELF_SYM_IFUNC		0x1	/* IFUNC: probe is its resolver */
#define ELF_SYM_VERSIONED	0x2	/* name carries a symbol version */
#define ELF_SYM_IN_LIB		0x4	/* a bare name found in a library */
					/* the program loads, not in it */

/* One probe point: unique per (obj, offset). */
struct elf_target_sym {
	char obj[PATH_MAX];		/* canonical path of the object */
	char name[ELF_SYM_NAME_MAX];	/* display name: "foo", "foo@V1", */
					/* C++ demangled: "ns::f(int)" */
	char linkage_name[ELF_SYM_NAME_MAX];	/* C++ mangled, else "" */
	uint64_t vaddr;			/* link-time address, st_value */
	uint64_t offset;		/* file offset: what uprobes want */
	uint64_t size;			/* st_size, may be 0 */
	unsigned int flags;		/* ELF_SYM_* */
};

/*
 * Resolve a function SPEC to probe points.
 *
 * SPEC is one of
 *	name		exact function name in the main executable
 *	glob		fnmatch(3) pattern, e.g. "worker_*"
 *	OBJ:name	name or glob in object OBJ, where OBJ is a path
 *			(contains '/') or a short name such as "libc" (see
 *			elf_obj_name_matches()); a "::" is never OBJ:
 * and name may carry a version: "foo@V1" (that version) or "foo@@V2" (only
 * if V2 is the default).  A plain "foo" picks the default version when a
 * library defines several.
 *
 * A C++ function is named by its mangled name or its demangled one, with
 * or without the return type a template function demangles with, and with
 * or without the parameter list ("ns::A::f" or "ns::A::f(int)"); a glob
 * matches any of these forms.  A name without parameter list that fits
 * several overloads is -EINVAL, the message listing them.  Display names
 * are demangled, without return type (see demangle.h).
 *
 * pid is the target process, or 0 when it has not been started yet.  exe is
 * the main executable; it may be NULL when pid > 0 (then /proc/PID/exe).
 * Short OBJ names are looked up among the objects mapped in pid, else in
 * exe's DT_NEEDED closure (elf_find_needed()), so libraries not loaded yet
 * resolve too.
 *
 * Only defined STT_FUNC/STT_GNU_IFUNC symbols are considered.  Aliases
 * (several names at one address) produce one entry named by
 * elf_pick_name()'s rule.  Entries are sorted by name.
 *
 * On success returns 0 and a malloc'd array in *out (free() it) of *n >= 1
 * entries.  -ENOENT means no such function; the message then offers up to
 * three near matches.
 */
int elf_resolve_spec(const char *spec, pid_t pid, const char *exe,
		     struct elf_target_sym **out, size_t *n,
		     char *err, size_t errlen);

/* As elf_resolve_spec() for a name/glob in one given ELF file. */
int elf_resolve_file(const char *path, const char *pattern,
		     struct elf_target_sym **out, size_t *n,
		     char *err, size_t errlen);

/*
 * elf_resolve_spec() and elf_resolve_file() resolve for a probe at entry
 * and one at return, which is what timing a function takes.  A return
 * probe crashes a Go program (see elf_go.c), so those refuse functions of
 * one with -EPERM.  ELF_RESOLVE_ENTRY_ONLY is for probes that only fire
 * at the probed address, which are safe there.
 */
#define ELF_RESOLVE_ENTRY_ONLY	0x1

int elf_resolve_spec_flags(const char *spec, pid_t pid, const char *exe,
			   unsigned int flags, struct elf_target_sym **out,
			   size_t *n, char *err, size_t errlen);

/*
 * Whether a function resolved from object @obj (a canonical path), shown
 * as @name ("foo", "foo@V1", "ns::f(int)") with C++ @linkage_name (""
 * or NULL for C), is one that SPEC names, by the rules above: OBJ: a
 * short name or a path, no OBJ: any object (the spec picks among traced
 * functions, not where to look); the mangled name, the demangled one
 * with or without parameter list, a glob over any of them; "@VER" the
 * version in @name.
 */
bool elf_spec_matches(const char *spec, const char *obj, const char *name,
		      const char *linkage_name);
int elf_resolve_file_flags(const char *path, const char *pattern,
			   unsigned int flags, struct elf_target_sym **out,
			   size_t *n, char *err, size_t errlen);

/*
 * A stripped object's symbols come from its separate debug file, found by
 * build-id or .gnu_debuglink under /usr/lib/debug and $ISPOT_DEBUG_DIRS
 * (see elf_debuginfo.c).  Test hook: use root instead of /usr/lib/debug
 * (NULL: the default) and let every warning be printed again.
 */
void elf_debuginfo_reset(const char *root);

/*
 * Choose a display name among aliases: the shortest name that does not
 * start with '_', else the shortest; ties broken by strcmp().  Returns an
 * index into names[] (0 when n == 0).
 */
size_t elf_pick_name(const char *const *names, size_t n);

/*
 * Whether the object at path is what short name obj designates: its
 * basename equals obj, or starts with obj followed by '.' or '-'.  "libc"
 * matches "libc.so.6" and "libc-2.31.so" but not "libcrypt.so.1".
 */
bool elf_obj_name_matches(const char *path, const char *obj);

/*
 * Open a file a traced program controls (the program, its libraries, their
 * debug files) for reading, as ispotd does as root: never waiting on a
 * FIFO nor opening a device.  Anything but a regular file is refused,
 * -ENOEXEC with "PATH is a FIFO, not an ELF file" (-EISDIR for a
 * directory); what is opened is what was checked.  Returns the descriptor
 * (O_CLOEXEC, O_NONBLOCK), its fstat() in st if st is not NULL, or a
 * negative errno with the message in err.
 */
struct stat;
int elf_open_regular(const char *path, struct stat *st, char *err,
		     size_t errlen);

/* One line of /proc/PID/maps. */
struct elf_map {
	uint64_t start, end;	/* [start, end) */
	uint64_t offset;	/* file offset of start */
	uint64_t inode;
	unsigned int dev_major, dev_minor;
	char perms[5];		/* "r-xp" */
	bool deleted;		/* " (deleted)" was cut off path */
	char *path;		/* file path, "[heap]" etc., or "" if anon */
};

/*
 * Read /proc/PID/maps (pid 0: the calling process) into a malloc'd array,
 * in address order.  Free with elf_maps_free().  -ESRCH if the process
 * had exited by the end of the read, which may then have been cut short.
 */
int elf_maps_read(pid_t pid, struct elf_map **maps, size_t *n,
		  char *err, size_t errlen);
void elf_maps_free(struct elf_map *maps, size_t n);

/* The mapping containing addr, or NULL. */
const struct elf_map *elf_maps_find(const struct elf_map *maps, size_t n,
				    uint64_t addr);

/*
 * Find the mapped file-backed object that OBJ designates: a path (compared
 * after canonicalisation) or a short name.  An exact basename match wins
 * over prefix matches; several distinct prefix matches are ambiguous
 * (-EINVAL).  Not mapped: -ENOENT.
 */
int elf_maps_find_object(const struct elf_map *maps, size_t n,
			 const char *obj, char *path, size_t pathlen,
			 char *err, size_t errlen);

/*
 * Load bias of the object at path as mapped in maps: runtime address =
 * bias + link-time address.  Uses the first mapping of path.
 */
int elf_load_bias(const struct elf_map *maps, size_t n, const char *path,
		  uint64_t *bias, char *err, size_t errlen);

/*
 * Find the library that short name (or soname) designates among the
 * objects exe would load: exe's DT_NEEDED entries first, then theirs
 * (breadth first, as ld.so does), then the PT_INTERP loader.  Each needed
 * name is searched like ld.so: DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH
 * ($ORIGIN expanded), /etc/ld.so.cache, then the default directories; a
 * file of the wrong class or machine is skipped.  The canonical path goes
 * to out_path.
 */
int elf_find_needed(const char *exe_path, const char *short_name,
		    char *out_path, size_t out_len, char *err, size_t errlen);

/*
 * Every object exe would load, searched as elf_find_needed() does: the
 * canonical paths of its DT_NEEDED closure in ld.so's (breadth-first)
 * order, then the PT_INTERP loader; exe itself is not listed, nor a
 * library the search path lacks.  A malloc'd array of malloc'd strings:
 * free with elf_paths_free().
 */
int elf_needed_list(const char *exe_path, char ***paths, size_t *n,
		    char *err, size_t errlen);
void elf_paths_free(char **paths, size_t n);

/*
 * USDT probes: the SystemTap SDT v3 notes (.note.stapsdt) that
 * <sys/sdt.h> and include/ispot.h write, one per probe site.
 */
#define ELF_USDT_NAME_MAX	256
#define ELF_USDT_ARGS_MAX	256

struct elf_usdt_probe {
	char provider[ELF_USDT_NAME_MAX];
	char name[ELF_USDT_NAME_MAX];
	char args[ELF_USDT_ARGS_MAX];	/* "-4@%eax 8@%rdx", "" for none; */
					/* truncated if longer */
	/*
	 * Link-time addresses, already moved by (.stapsdt.base's address -
	 * the note's base) when the object was prelinked after the notes
	 * were written.
	 */
	uint64_t vaddr;		/* the probe site */
	uint64_t sem_vaddr;	/* its semaphore, 0: none */
	uint64_t note_base;	/* .stapsdt.base as the note recorded it */
	uint64_t offset;	/* file offset of vaddr (valid when !bad) */
	uint64_t sem_offset;	/* file offset of the semaphore, 0: none */
				/* or unusable (sem_bad says why) */
	const char *bad;	/* NULL, or why the site cannot be probed */
	const char *sem_bad;	/* NULL, or why a semaphore is unusable */
};

/*
 * The USDT probes of the ELF file at path, in note order, as a malloc'd
 * array (free() it).  No notes: 0 with *n == 0 and *out == NULL.  Notes
 * that overrun their section or lack their strings' NULs: -ENOEXEC.
 */
int elf_usdt_list(const char *path, struct elf_usdt_probe **out, size_t *n,
		  char *err, size_t errlen);

/* One site of a USDT probe, what a uprobe is registered on. */
struct elf_usdt_site {
	char obj[PATH_MAX];	/* canonical path of the object */
	uint64_t vaddr;		/* link-time address of the site */
	uint64_t offset;	/* its file offset */
	uint64_t sem_offset;	/* file offset of the probe's semaphore */
				/* (uprobe ref_ctr_offset); 0: none */
};

/* A block timed between two USDT probes of one object. */
struct elf_block {
	char name[ELF_SYM_NAME_MAX];	/* display name: "block:critical" */
					/* or --block's NAME */
	char obj[PATH_MAX];		/* canonical path of the object */
	struct elf_usdt_site *begin, *end;	/* sorted by offset */
	size_t nr_begin, nr_end;
	/*
	 * Added to the API: "" or a one-line warning the caller may print,
	 * e.g. that a semaphore is unusable (ISPOT_BLOCK_ENABLED() then
	 * stays false while traced).
	 */
	char warn[512];
};

/*
 * Resolve a block SPEC to the sites of its begin and end probes.
 *
 * SPEC is one of
 *	NAME		(from --func block:NAME) the probes ispot:NAME_begin
 *			and ispot:NAME_end of include/ispot.h, in the main
 *			executable; display name "block:NAME"
 *	NAME=[OBJ:]PROV:BEGIN,PROV:END
 *			(from --block) any two USDT probes of one object,
 *			possibly of different providers; display name NAME.
 *			OBJ is as in elf_resolve_spec().
 * pid and exe are as for elf_resolve_spec().  Every site of each probe is
 * returned (a marker used in several places, inlined copies).  These are
 * entry-only probes, so a Go program is fine.  -ENOENT when a probe is
 * missing, the message naming what the object does have; -EINVAL for a
 * malformed spec.  Free with elf_block_free().
 */
int elf_resolve_block(const char *spec, pid_t pid, const char *exe,
		      struct elf_block *out, char *err, size_t errlen);
void elf_block_free(struct elf_block *b);

/* What a runtime address turned out to be. */
enum elf_addr_kind {
	ELF_ADDR_SYMBOL,	/* inside a symbol of obj: sym + sym_off */
	ELF_ADDR_OBJECT,	/* inside obj but no symbol covers it */
	ELF_ADDR_FILE,		/* file mapping but not a usable ELF */
	ELF_ADDR_HEAP,		/* obj = "[heap]" */
	ELF_ADDR_STACK,		/* obj = "[stack]" */
	ELF_ADDR_ANON,		/* obj = "anon", "[vdso]", ... */
};

struct elf_addr_info {
	enum elf_addr_kind kind;
	char obj[PATH_MAX];	/* object path or pseudo name, see kind */
	char sym[ELF_SYM_NAME_MAX];	/* "" unless ELF_ADDR_SYMBOL; */
					/* C++: demangled */
	uint64_t sym_off;	/* addr - symbol start */
	uint64_t sym_size;
	unsigned char sym_type;	/* STT_* */
	/*
	 * SYMBOL/OBJECT: link-time address in obj.  FILE: file offset.
	 * Otherwise: offset from the start of the mapping.
	 */
	uint64_t vaddr;
};

/*
 * A cache of one process's maps and parsed objects, for naming many
 * addresses cheaply.  pid 0 is the calling process.  The process is the
 * one that has the pid when it is made, and nothing is read of another
 * given its pid after it exits (its snapshot stays).
 */
struct elf_symbolizer;

struct elf_symbolizer *elf_symbolizer_new(pid_t pid, char *err,
					  size_t errlen);
/*
 * The same, of the process that started at @start_time (clock ticks, as
 * util/procstat.h's proc_start_time() gives it): NULL, and @err says
 * why, if the pid is another's now.
 */
struct elf_symbolizer *elf_symbolizer_new_of(pid_t pid, uint64_t start_time,
					     char *err, size_t errlen);
/*
 * Name addr.  An address the current snapshot does not map makes it
 * re-read the maps once (the process may have mapped something since),
 * unless told not to (elf_symbolizer_reread_on_miss()); still unmapped,
 * by a kept snapshot too (elf_symbolizer_keep()), is -ENOENT.
 */
int elf_symbolize(struct elf_symbolizer *s, uint64_t addr,
		  struct elf_addr_info *info, char *err, size_t errlen);
void elf_symbolizer_free(struct elf_symbolizer *s);
/*
 * What the objects kept may hold in all, in bytes of symbols and names
 * (at first the ELF_MAX_READ_MB bound of one object, ISPOT_ELF_MAX_READ_MB):
 * a process can map any number of files, each within the bound of one.
 * An object past it is not loaded once the objects nothing maps any more
 * are forgotten; its addresses are named as file offsets, and a note says
 * so once.
 */
void elf_symbolizer_hold_at_most(struct elf_symbolizer *s, uint64_t bytes);
/* What the objects kept hold now, in the same bytes. */
uint64_t elf_symbolizer_held(const struct elf_symbolizer *s);
/*
 * How many times it has opened a mapped file for its object since it was
 * made (its reads of the maps are elf_symbolizer_reads()), whether or not
 * the object was kept: once a file, unless the bound made it let the
 * object go and the file was named again, or a kept mapping's read found
 * no object and a current mapping of the file reads it again (twice
 * then).  A kept mapping of a deleted file (elf_symbolizer_keep()) opens
 * nothing and is not counted.
 */
uint64_t elf_symbolizer_objects_read(const struct elf_symbolizer *s);

/*
 * Take a new snapshot of the maps, and keep the old one if the process is
 * gone: addresses are named from the last snapshot taken while it lived
 * (the objects themselves are read from their files, which outlive it).
 */
int elf_symbolizer_refresh(struct elf_symbolizer *s, char *err,
			   size_t errlen);
/*
 * Whether elf_symbolize() re-reads the maps for an address outside them
 * (true at first).  A report names every key it has, most of them maybe
 * numbers in no mapping, and each read costs tens of microseconds: it
 * reads them once itself, then names from that snapshot alone.
 */
void elf_symbolizer_reread_on_miss(struct elf_symbolizer *s, bool on);
/* How many times it has read the maps since it was made (the first not). */
uint64_t elf_symbolizer_reads(const struct elf_symbolizer *s);
/*
 * Keep the snapshot @s names from now when the maps are read again, for
 * what later snapshots no longer map: an address of a library unloaded
 * since (dlclose()) is named from it, by elf_symbolize() and
 * elf_symbolizer_in_code().  elf_symbolize() re-reads the maps for it
 * first where it re-reads on a miss (each such address costs a read):
 * where the new snapshot maps it, the two names are compared (below);
 * where it does not, or the read fails (the process gone), the kept
 * snapshot names it.  An address it
 * names otherwise than the current snapshot does (a library unloaded and
 * another file mapped at its place) may have been either's when it was
 * seen: named by neither, -ENOENT.  A kept mapping's file is read as a
 * current mapping of it (the same path, device and inode) is, if the
 * current snapshot has one; else by its path, and only where that is
 * still the file mapped (its device and inode), whoever reads it: a
 * library rebuilt at its path since is not taken for the old one, nor,
 * read for a current mapping, a file other than the one the maps name
 * (a reader without map_files takes the path's file as it is for
 * current addresses).  Nor one whose contents changed after the kept
 * snapshot was read (a later st_mtim when its symbols had been read: a
 * file rewritten in place keeps its inode), nor, read by its path, one
 * whose status did (a later st_ctim: a file made since may have been
 * given the freed number of the one mapped, and a rewrite that put its
 * old mtime back still shows).  Still taken: a change within the tick of
 * the clock the file system stamps times from (or of a network file
 * system's server), and, through a current mapping, contents rewritten
 * or a file made since at the freed inode number, with an old mtime, or
 * another file mapped at the very place after the maps were read (a
 * map_files entry is taken for the file mapped).  An address the kept
 * snapshot maps as the current one does (the same file and part at the
 * same place), a file's whose contents are unchanged since the kept
 * snapshot was read as far as the object read for it tells, keeps the
 * current snapshot's name unchecked; an anonymous mapping (named from
 * the file below it) is still compared.  Where
 * stat() numbers a file otherwise than the maps (a btrfs subvolume, an
 * overlay whose layers are on another file system), a file only the kept
 * snapshot maps is named as file offsets, and, for a reader without
 * map_files, so are the kept places of a file the current snapshot maps
 * elsewhere.  Reads nothing; the first snapshot kept stays kept.
 */
void elf_symbolizer_keep(struct elf_symbolizer *s);
/*
 * A number that changes whenever a snapshot maps other files, or the
 * same at other places, than the one before it (a library loaded,
 * unloaded, or replaced at the same address): a name elf_symbolize() gave
 * from a file holds while it stays the same.  Shared memory mapped from a
 * path (a memfd, SysV shm) moves it too.  A frozen one's never does.
 */
uint64_t elf_symbolizer_generation(const struct elf_symbolizer *s);
/* Whether the current snapshot maps @addr (no re-read). */
bool elf_symbolizer_knows(const struct elf_symbolizer *s, uint64_t addr);
/*
 * Whether the current snapshot maps @addr executable: code (no re-read),
 * or, where it maps nothing, the one kept (elf_symbolizer_keep()).  The
 * uretprobe trampoline ([uprobes]) is not.
 */
bool elf_symbolizer_in_code(const struct elf_symbolizer *s, uint64_t addr);
/*
 * Whether the current snapshot maps @addr in the uretprobe trampoline's
 * page ([uprobes]); if so, that mapping's bounds in @start and @end.
 */
bool elf_symbolizer_in_trampoline(const struct elf_symbolizer *s,
				  uint64_t addr, uint64_t *start,
				  uint64_t *end);

/*
 * The snapshot of the maps @s names addresses from (*@n entries, in
 * address order; NULL and 0 before any), owned by @s.
 */
const struct elf_map *elf_symbolizer_maps(const struct elf_symbolizer *s,
					  size_t *n);

/*
 * A symbolizer that reads no process: it names exactly the addresses
 * given to elf_symbolizer_add(), each as it was named then, and no other
 * (-ENOENT).  A recording's report names its addresses through one
 * (Documentation/recording.rst).
 */
struct elf_symbolizer *elf_symbolizer_frozen(void);
/* 0, -ENOMEM, or -EINVAL when @s is not frozen. */
int elf_symbolizer_add(struct elf_symbolizer *s, uint64_t addr,
		       const struct elf_addr_info *info);

/* @path's GNU build-id in hex into @out ("" if it has none); 0 or -errno. */
int elf_build_id(const char *path, char *out, size_t len);

/* One-shot elf_symbolize(). */
int elf_addr_to_symbol(pid_t pid, uint64_t addr, struct elf_addr_info *info,
		       char *err, size_t errlen);

/*
 * Format info as "app:gm_ridlock+0x8" (basename of obj), "app+0x1234" when
 * no symbol covers it, or the pseudo name ("[heap]", "anon", ...).  Returns
 * what snprintf() would.
 */
int elf_addr_format(const struct elf_addr_info *info, char *buf, size_t len);

#endif /* ISPOT_ELF_H */
