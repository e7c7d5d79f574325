// SPDX-License-Identifier: GPL-2.0
/*
 * A symbolizer's kept snapshot (elf_symbolizer_keep()): the objects of
 * what only it maps, and of what only the current one maps, side by side
 * in the cache within its bound.  Libraries are loaded and unloaded in
 * this process between the two reads of its maps.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf_internal.h"
#include "elf_fixtures.h"
#include "stderr_capture.h"

#define TEST_DIR_TEMPLATE	"/tmp/ispot-elf-kept-XXXXXX"
#include "scratch_dir.h"
#include "as_nobody.h"

#define ROUNDS	10

/*
 * @path loaded, and where its lib_twice() is: handle and address; NULL,
 * dlerror() said, where it does not load (a scratch directory may be
 * noexec).
 */
static void *load_path(const char *path, uint64_t *fn)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		TH_LOG("%s", dlerror());
		return NULL;
	}
	*fn = (uintptr_t)dlsym(h, "lib_twice");
	ASSERT_NE(*fn, 0);
	return h;
}

/* Fixture @lib loaded: handle and address of its lib_twice(). */
static void *load_lib(const char *lib, uint64_t *fn)
{
	void *h = load_path(fixture(lib), fn);

	ASSERT_TRUE(h);
	return h;
}

/*
 * libfxl2.so's copy @name in the scratch directory (path into @lib),
 * loaded; the test skipped where no library loads from there.
 */
static void *load_copy(const char *name, char *lib, uint64_t *fn)
{
	void *h;

	path_in(lib, name);
	copy_file(fixture("libfxl2.so"), lib);
	h = load_path(lib, fn);
	if (!h)
		SKIP("no library loads from %s (dlerror() above)", dir);
	return h;
}

static void name(struct elf_symbolizer *sz, uint64_t addr,
		 struct elf_addr_info *info)
{
	char err[ERRLEN] = "";

	ASSERT_EQ(elf_symbolize(sz, addr, info, err, sizeof(err)), 0);
}

/* A symbolizer of this process that keeps its snapshot of now. */
static struct elf_symbolizer *keeping_now(void)
{
	struct elf_symbolizer *sz;
	char err[ERRLEN] = "";

	sz = elf_symbolizer_new(0, err, sizeof(err));
	if (!sz)
		TH_LOG("%s", err);
	ASSERT_TRUE(sz);
	elf_symbolizer_keep(sz);
	return sz;
}

/*
 * A symbolizer of this process that keeps its snapshot of now; then @h,
 * whose lib_twice() is at @fn, unloaded and the maps read again.
 */
static struct elf_symbolizer *unloaded_since_kept(void *h, uint64_t fn)
{
	struct elf_symbolizer *sz;
	char err[ERRLEN] = "";

	sz = keeping_now();
	ASSERT_EQ(dlclose(h), 0);
	ASSERT_EQ(elf_symbolizer_refresh(sz, err, sizeof(err)), 0);
	ASSERT_FALSE(elf_symbolizer_knows(sz, fn));
	return sz;
}

/* Where a library lies: from its first mapping to past its last. */
struct place {
	uint64_t start, end;
};

/* Where @lib, loaded, lies. */
static struct place place_of(const char *lib)
{
	struct place p = { .start = UINT64_MAX, .end = 0 };
	const char *real = canon(lib);
	struct elf_map *maps;
	char err[ERRLEN];
	size_t n, i;

	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	for (i = 0; i < n; i++) {
		if (strcmp(maps[i].path, real))
			continue;
		if (maps[i].start < p.start)
			p.start = maps[i].start;
		if (maps[i].end > p.end)
			p.end = maps[i].end;
	}
	elf_maps_free(maps, n);
	ASSERT_LT(p.start, p.end);
	return p;
}

/*
 * @p taken by a mapping of @fd, readable, or anonymous and closed (@fd
 * -1); the test skipped where it cannot be.
 */
static void *take_place(struct place p, int fd)
{
	int flags = MAP_PRIVATE | MAP_FIXED_NOREPLACE;
	void *at;

	at = mmap((void *)(uintptr_t)p.start, p.end - p.start,
		  fd < 0 ? PROT_NONE : PROT_READ,
		  fd < 0 ? flags | MAP_ANONYMOUS : flags, fd, 0);
	/* A kernel before 4.17 takes the place asked for as a hint. */
	if (at != (void *)(uintptr_t)p.start)
		SKIP("the library's place was taken (%s)",
		     at == MAP_FAILED ? strerror(errno) : "mapped elsewhere");
	return at;
}

/*
 * @lib, unloaded from @was, loaded again elsewhere: its place is held
 * meanwhile (ld.so would take it again), and free again after.
 */
static void *load_elsewhere(const char *lib, struct place was, uint64_t *fn)
{
	void *h, *at = take_place(was, -1);

	h = load_path(lib, fn);
	ASSERT_TRUE(h);
	ASSERT_EQ(munmap(at, was.end - was.start), 0);
	return h;
}

/*
 * Whether this process opens its own /proc/self/map_files entries
 * (CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE in the first user namespace).
 */
static bool opens_map_files(void)
{
	char err[ERRLEN], path[96];
	struct elf_map *maps;
	size_t n, i;
	int fd;

	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	for (i = 0; i < n && maps[i].path[0] != '/'; i++)
		;
	ASSERT_LT(i, n);
	snprintf(path, sizeof(path), "/proc/self/map_files/%" PRIx64
		 "-%" PRIx64, maps[i].start, maps[i].end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	elf_maps_free(maps, n);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/*
 * Two symbolizers of this process keep their first snapshot; libfxl1.so
 * is loaded, libfxl2.so (loaded before, so never at the other's place)
 * unloaded, and the maps read again: @gone is in what only the kept
 * snapshot maps, @loaded in what only the current one does.
 */
static void two_snapshots(struct elf_symbolizer *sz[2], uint64_t *gone,
			  uint64_t *loaded)
{
	char err[ERRLEN] = "";
	void *old, *new;
	int i;

	old = load_lib("libfxl2.so", gone);
	skip_unless_maps_number_as_stat(fixture("libfxl2.so"));
	for (i = 0; i < 2; i++) {
		sz[i] = elf_symbolizer_new(0, err, sizeof(err));
		ASSERT_TRUE(sz[i]);
		elf_symbolizer_keep(sz[i]);
	}
	new = load_lib("libfxl1.so", loaded);
	ASSERT_EQ(dlclose(old), 0);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(elf_symbolizer_refresh(sz[i], err, sizeof(err)), 0);
	ASSERT_FALSE(elf_symbolizer_knows(sz[0], *gone));
	ASSERT_TRUE(elf_symbolizer_knows(sz[0], *loaded));
	(void)new;	/* stays loaded for the rest of the test's process */
}

/*
 * With room for either object but not both, addresses of what only the
 * kept snapshot maps and of what only the current one does, by turns:
 * each object is read once.  The first named keeps its room (it is
 * mapped, by the kept snapshot) and its names; the other is named as a
 * file offset, said once.  Making room from the current snapshot's view
 * alone let each go for the other, and read it again, every call.
 */
TEST(at_the_bound_the_kept_and_current_objects_are_read_once)
{
	struct elf_symbolizer *sz[2];
	struct elf_addr_info info;
	uint64_t gone, loaded, held_gone, held_loaded;
	int i;

	two_snapshots(sz, &gone, &loaded);
	/* What each object holds, with no bound (the second symbolizer). */
	name(sz[1], gone, &info);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	held_gone = elf_symbolizer_held(sz[1]);
	name(sz[1], loaded, &info);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	held_loaded = elf_symbolizer_held(sz[1]) - held_gone;
	ASSERT_GT(held_gone, 0);
	ASSERT_GT(held_loaded, 0);

	elf_symbolizer_hold_at_most(sz[0], held_gone > held_loaded ?
				    held_gone : held_loaded);
	capture_begin();
	for (i = 0; i < ROUNDS; i++) {
		name(sz[0], gone + 1, &info);
		EXPECT_STREQ(info.sym, "lib_twice");
		EXPECT_STREQ(info.obj, canon(fixture("libfxl2.so")));
		name(sz[0], loaded + 1, &info);
		EXPECT_EQ(info.kind, ELF_ADDR_FILE);
	}
	capture_end();
	EXPECT_EQ(elf_symbolizer_objects_read(sz[0]), 2);
	EXPECT_TRUE(strstr(captured, "libfxl1.so: symbols not read"));
	EXPECT_EQ(strchr(captured, '\n'), captured + strlen(captured) - 1);
	elf_symbolizer_free(sz[0]);
	elf_symbolizer_free(sz[1]);
}

/*
 * A process that unloads a library between the two reads of its maps,
 * then exits: the library's address is the kept snapshot's.  With the
 * re-read on a miss off (as --auto names), it is named from it with no
 * read; with it on (as it is at first), after a read that fails for the
 * process being gone, not lost to that read.
 */
TEST(a_kept_address_needs_no_read_of_the_maps)
{
	int go[2], done[2];
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	char err[ERRLEN] = "", c = 0;
	uint64_t fn;
	pid_t pid;
	void *h;

	h = load_lib("libfxl2.so", &fn);
	skip_unless_maps_number_as_stat(fixture("libfxl2.so"));
	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(done), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		/*
		 * Our layout, the library in it: unloaded when told, then
		 * alive until the end of @go is closed, by the test or by
		 * its end (an ASSERT on the way leaves nothing behind).
		 */
		close(go[1]);
		close(done[0]);
		if (read(go[0], &c, 1) != 1 || dlclose(h) ||
		    write(done[1], &c, 1) != 1)
			_exit(1);
		while (read(go[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	sz = elf_symbolizer_new(pid, err, sizeof(err));
	ASSERT_TRUE(sz);
	elf_symbolizer_keep(sz);
	ASSERT_EQ(write(go[1], &c, 1), 1);
	ASSERT_EQ(read(done[0], &c, 1), 1);
	ASSERT_EQ(elf_symbolizer_refresh(sz, err, sizeof(err)), 0);
	ASSERT_FALSE(elf_symbolizer_knows(sz, fn));
	close(go[1]);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);

	elf_symbolizer_reread_on_miss(sz, false);
	name(sz, fn + 1, &info);
	EXPECT_STREQ(info.sym, "lib_twice");
	EXPECT_EQ(elf_symbolizer_reads(sz), 1);
	elf_symbolizer_reread_on_miss(sz, true);
	EXPECT_EQ(elf_symbolize(sz, fn + 1, &info, err, sizeof(err)), 0);
	EXPECT_STREQ(err, "");
	EXPECT_STREQ(info.sym, "lib_twice");
	EXPECT_EQ(elf_symbolizer_reads(sz), 2);
	elf_symbolizer_free(sz);
}

/*
 * A library unloaded between the two reads of the maps, and another file
 * mapped at its place after them, named with the re-read on a miss on:
 * a miss in the current snapshot is read again though the kept one maps
 * the address, and the two reads name it otherwise: by neither.  Named
 * from the kept snapshot without the read, the address was the unloaded
 * library's, which the file mapped since may have run instead.
 */
TEST(a_kept_place_mapped_since_by_another_file_is_named_by_neither)
{
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	char err[ERRLEN] = "";
	struct place was;
	uint64_t fn;
	void *h;
	int fd;

	h = load_lib("libfxl2.so", &fn);
	was = place_of(fixture("libfxl2.so"));
	sz = unloaded_since_kept(h, fn);
	fd = open(fixture("libfxl1.so"), O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	take_place(was, fd);
	close(fd);

	EXPECT_EQ(elf_symbolize(sz, fn + 1, &info, err, sizeof(err)), -ENOENT);
	TH_LOG("%s", err);
	EXPECT_EQ(info.kind, 0);
	EXPECT_EQ(elf_symbolizer_reads(sz), 2);
	elf_symbolizer_free(sz);
}

/*
 * A library whose file was deleted while mapped, unloaded between the
 * two reads of the maps: no path leads to its file any more, and nothing
 * is opened for it (it is not counted as a read); named as a file offset.
 */
TEST(a_kept_mapping_of_a_deleted_file_opens_nothing)
{
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	char lib[PATH_MAX];
	uint64_t fn;
	void *h;

	h = load_copy("libdeleted.so", lib, &fn);
	ASSERT_EQ(unlink(lib), 0);
	sz = unloaded_since_kept(h, fn);

	name(sz, fn + 1, &info);
	EXPECT_EQ(info.kind, ELF_ADDR_FILE);
	EXPECT_EQ(elf_symbolizer_objects_read(sz), 0);
	elf_symbolizer_free(sz);
}

/*
 * More than a tick of the clock file systems stamp times from: a file
 * changed after this has later times than a snapshot read before it.
 */
#define PAST_A_TICK_US	50000

/*
 * Fixture @with written over @lib in place (the same inode, as cp onto
 * it or a build writing its output where it was does), a tick after @since
 * (the kept snapshot's read), with its old st_mtim put back where
 * @old_mtime (as cp -p or tar would).  The test skipped where the stamp
 * the symbolizer compares (st_ctim where the mtime was put back, else
 * st_mtim) is no later than @since: a file system whose times are
 * coarser than a tick (ext4's small inodes, vfat, a network file
 * system's server clock).
 */
static void rewrite_in_place(const char *lib, const char *with,
			     uint64_t since, bool old_mtime)
{
	struct timespec times[2];
	struct stat was, now;

	ASSERT_EQ(stat(lib, &was), 0);
	usleep(PAST_A_TICK_US);
	copy_file(fixture(with), lib);
	times[0] = was.st_atim;
	times[1] = was.st_mtim;
	if (old_mtime)
		ASSERT_EQ(utimensat(AT_FDCWD, lib, times, 0), 0);
	ASSERT_EQ(stat(lib, &now), 0);
	ASSERT_EQ(now.st_ino, was.st_ino);
	if (elf_ts_ns(old_mtime ? now.st_ctim : now.st_mtim) <= since)
		SKIP("%s's file system stamps times coarser than %d ms", dir,
		     PAST_A_TICK_US / 1000);
}

/*
 * A plugin unloaded after the snapshot the symbolizer keeps, then
 * another library written over its file in place, its old mtime put
 * back, before the second read of the maps: its kept mapping's file,
 * changed since the kept snapshot was read (not since the second), is
 * not read for it, where its device and inode alone let the other
 * library's symbols name the old code's addresses.  Its status change
 * (st_ctim) tells it, which no caller can set back.
 */
TEST(a_kept_mapping_of_a_file_rewritten_in_place_is_not_read)
{
	char err[ERRLEN] = "", lib[PATH_MAX];
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	uint64_t fn;
	void *h;

	h = load_copy("librewritten.so", lib, &fn);
	sz = keeping_now();
	ASSERT_EQ(dlclose(h), 0);
	rewrite_in_place(lib, "libfxl1.so", sz->maps_read_ns, true);
	ASSERT_EQ(elf_symbolizer_refresh(sz, err, sizeof(err)), 0);
	ASSERT_FALSE(elf_symbolizer_knows(sz, fn));

	name(sz, fn + 1, &info);
	EXPECT_EQ(info.kind, ELF_ADDR_FILE);
	EXPECT_EQ(elf_symbolizer_objects_read(sz), 1);
	elf_symbolizer_free(sz);
}

/*
 * The same, the rewritten file (its mtime the rewrite's) loaded again
 * elsewhere before the second read: the kept mapping's file is read
 * through the current mapping, which maps it (the same path, device and
 * inode), once; its new contents (st_mtim) name the current place, and
 * not the kept one.
 */
TEST(a_kept_mapping_of_a_file_rewritten_and_loaded_again_is_not_named)
{
	char err[ERRLEN] = "", lib[PATH_MAX];
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	uint64_t fn, now;
	struct place was;
	void *h, *at;

	h = load_copy("librewritten2.so", lib, &fn);
	was = place_of(lib);
	sz = keeping_now();
	ASSERT_EQ(dlclose(h), 0);
	rewrite_in_place(lib, "libfxl1.so", sz->maps_read_ns, false);
	at = take_place(was, -1);
	h = load_path(lib, &now);
	ASSERT_TRUE(h);
	ASSERT_EQ(munmap(at, was.end - was.start), 0);
	ASSERT_EQ(elf_symbolizer_refresh(sz, err, sizeof(err)), 0);
	ASSERT_FALSE(elf_symbolizer_knows(sz, fn));

	name(sz, fn + 1, &info);
	EXPECT_EQ(info.kind, ELF_ADDR_FILE);
	name(sz, now + 1, &info);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "lib_twice");
	EXPECT_EQ(elf_symbolizer_objects_read(sz), 1);
	ASSERT_EQ(dlclose(h), 0);
	elf_symbolizer_free(sz);
}

/*
 * A plugin rewritten in place (the same bytes, a new mtime) and loaded
 * again at its very place, another library loaded meanwhile (so that
 * the kept snapshot is looked at): the kept mapping is the current one
 * in every field, but the contents changed since the kept read, and its
 * address may have been either's: named by neither.
 */
TEST(a_library_rewritten_and_loaded_again_at_its_place_is_named_by_neither)
{
	char err[ERRLEN] = "", lib[PATH_MAX];
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	uint64_t fn, extra, again;
	void *h, *hx;

	h = load_copy("libsameplace.so", lib, &fn);
	sz = keeping_now();
	hx = load_lib("libfxl1.so", &extra);
	ASSERT_EQ(dlclose(h), 0);
	rewrite_in_place(lib, "libfxl2.so", sz->maps_read_ns, false);
	h = load_path(lib, &again);
	ASSERT_TRUE(h);
	if (again != fn)
		SKIP("the library came back at another place");
	ASSERT_EQ(elf_symbolizer_refresh(sz, err, sizeof(err)), 0);

	EXPECT_EQ(elf_symbolize(sz, fn + 1, &info, err, sizeof(err)),
		  -ENOENT);
	TH_LOG("%s", err);
	ASSERT_EQ(dlclose(h), 0);
	(void)hx;	/* stays loaded for the rest of the test's process */
	elf_symbolizer_free(sz);
}

/*
 * How a scene run as nobody ended: its exit status, past the harness's
 * ends (a child's ASSERT exits 1).
 */
enum scene_end {
	SCENE_UNNAMED = 10,	/* the address named by no file */
	SCENE_NAMED,		/* named: other_file_scene()'s bug */
	SCENE_NOT_LOADED,	/* the library does not load from there */
	SCENE_PRIVILEGED,	/* map_files opens, or file modes are passed */
	SCENE_BROKEN,		/* the child could not become nobody */
	SCENE_LOST,		/* a loaded library's address not named */
	SCENE_MISNAMED,		/* named, not as lib_twice */
	SCENE_KEPT_NAME,	/* lib_twice: still_loaded_scene()'s end */
};

/*
 * In a child of its own (see other_file_as_user()): @lib, in directory
 * @d, loaded, the symbolizer's snapshot kept, @lib unloaded and loaded
 * again elsewhere, and the maps read again; then @d renamed to @gone and
 * made again, and @rebuilt (another library) put at @lib's path with
 * @lib's mtime (install -p, rsync -t, a package).  The maps still name
 * the path, not deleted (read before the move, or read in another mount
 * namespace), and a reader without map_files reads the current mapping's
 * file by that path: the other file, which names the current place, but
 * must not name the kept one.
 */
struct other_paths {
	char d[PATH_MAX], gone[PATH_MAX], lib[PATH_MAX], rebuilt[PATH_MAX];
	char extra[PATH_MAX];
	bool still_loaded;	/* still_loaded_scene()'s */
};

/*
 * @op->d moved to @op->gone and made again, and @op->rebuilt (another
 * library) put at @op->lib's path with its mtime (install -p, rsync -t,
 * a package): the maps read before still name the path, not deleted (as
 * they would in another mount namespace), and a reader without
 * map_files that reads the path finds another file.
 */
static void other_file_at_path(const struct other_paths *op)
{
	struct timespec times[2];
	struct stat st;

	ASSERT_EQ(stat(op->lib, &st), 0);
	ASSERT_EQ(rename(op->d, op->gone), 0);
	ASSERT_EQ(mkdir(op->d, 0755), 0);
	ASSERT_EQ(rename(op->rebuilt, op->lib), 0);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	ASSERT_EQ(utimensat(AT_FDCWD, op->lib, times, 0), 0);
}

static int other_file_scene(void *ctx)
{
	const struct other_paths *op = ctx;
	const char *lib = op->lib;
	char err[ERRLEN] = "";
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	uint64_t fn, again;
	struct place was;
	void *h;

	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return SCENE_NOT_LOADED;
	if (opens_map_files() || elf_reads_past_user())
		return SCENE_PRIVILEGED;
	fn = (uintptr_t)dlsym(h, "lib_twice");
	was = place_of(lib);
	sz = keeping_now();
	/* As --auto names: the maps not read again, which would see the move. */
	elf_symbolizer_reread_on_miss(sz, false);
	ASSERT_EQ(dlclose(h), 0);
	h = load_elsewhere(lib, was, &again);
	ASSERT_EQ(elf_symbolizer_refresh(sz, err, sizeof(err)), 0);
	ASSERT_FALSE(elf_symbolizer_knows(sz, fn));
	other_file_at_path(op);
	name(sz, fn + 1, &info);
	return info.kind == ELF_ADDR_FILE ? SCENE_UNNAMED : SCENE_NAMED;
}

/*
 * The same reader, @op->lib still loaded, another library loaded during
 * the window (the snapshots differ), then a copy of the same library
 * (another inode, the old mtime) put at @op->lib's path: as on a btrfs
 * subvolume, where stat() numbers the very file otherwise, the path's
 * file is no proof.  The kept snapshot maps @op->lib as the current one
 * does, and its address keeps the current snapshot's name, lib_twice.
 * The kept lookup, refused for want of proof of the file, once made the
 * two names differ and every address of every library still loaded
 * unnamed (-ENOENT).
 */
static int still_loaded_scene(void *ctx)
{
	const struct other_paths *op = ctx;
	char err[ERRLEN] = "";
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	uint64_t fn, extra;
	void *h, *hx;

	h = dlopen(op->lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return SCENE_NOT_LOADED;
	if (opens_map_files() || elf_reads_past_user())
		return SCENE_PRIVILEGED;
	fn = (uintptr_t)dlsym(h, "lib_twice");
	sz = keeping_now();
	elf_symbolizer_reread_on_miss(sz, false);
	hx = load_path(op->extra, &extra);
	ASSERT_TRUE(hx);
	ASSERT_EQ(elf_symbolizer_refresh(sz, err, sizeof(err)), 0);
	ASSERT_TRUE(elf_symbolizer_knows(sz, fn));
	other_file_at_path(op);
	if (elf_symbolize(sz, fn + 1, &info, err, sizeof(err)))
		return SCENE_LOST;
	return info.kind == ELF_ADDR_SYMBOL && !strcmp(info.sym, "lib_twice") ?
	       SCENE_KEPT_NAME : SCENE_MISNAMED;
}

static int scene(void *ctx)
{
	const struct other_paths *op = ctx;

	return op->still_loaded ? still_loaded_scene(ctx) :
				  other_file_scene(ctx);
}

/* @rest under @top in the scratch directory, into @path. */
static void path_under(char *path, const char *top, const char *rest)
{
	char name[64];

	snprintf(name, sizeof(name), "%s/%s", top, rest);
	path_in(path, name);
}

/*
 * other_file_scene(), or @still_loaded still_loaded_scene(), in a child,
 * as nobody when this is root, in a directory nobody owns: its end.
 * Nothing in this test's process asks elf_reads_past_user() before the
 * fork (its answer is worked out once a process).
 */
static enum scene_end other_file_as_user(bool still_loaded)
{
	struct other_paths op = { .still_loaded = still_loaded };
	char sub[PATH_MAX];
	const char *const given[] = { sub, op.d, op.lib, op.rebuilt,
				      op.extra };

	/* Each test's own: the scratch directory is the binary's. */
	const char *top = still_loaded ? "loaded" : "other";

	path_in(sub, top);
	path_under(op.d, top, "d");
	path_under(op.gone, top, "gone");
	path_under(op.lib, top, "d/libplugin.so");
	path_under(op.rebuilt, top, "libplugin.so.new");
	path_under(op.extra, top, "libextra.so");
	ASSERT_EQ(mkdir(sub, 0755), 0);
	ASSERT_EQ(mkdir(op.d, 0755), 0);
	copy_file(fixture("libfxl2.so"), op.lib);
	copy_file(fixture(still_loaded ? "libfxl2.so" : "libfxl1.so"),
		  op.rebuilt);
	copy_file(fixture("libfxl1.so"), op.extra);
	give_to_nobody(given, sizeof(given) / sizeof(*given));
	return as_nobody(scene, &op, SCENE_BROKEN);
}

/*
 * A kept mapping is named only from the file the maps name: not from
 * another file at its path (renamed over it, its old mtime kept), which
 * a reader without map_files takes for the current mapping.
 */
TEST(a_kept_mapping_is_not_named_from_another_file_at_its_path)
{
	enum scene_end end = other_file_as_user(false);

	if (end == SCENE_NOT_LOADED)
		SKIP("the library copied to %s does not load", dir);
	if (end == SCENE_PRIVILEGED)
		SKIP("the scene's process opens map_files or reads past file "
		     "modes");
	EXPECT_EQ(end, SCENE_UNNAMED);
}

/* What the kept snapshot maps as the current one does keeps its name. */
TEST(a_library_still_loaded_keeps_its_names_when_the_kept_lookup_fails)
{
	enum scene_end end = other_file_as_user(true);

	if (end == SCENE_NOT_LOADED)
		SKIP("the library copied to %s does not load", dir);
	if (end == SCENE_PRIVILEGED)
		SKIP("the scene's process opens map_files or reads past file "
		     "modes");
	EXPECT_EQ(end, SCENE_KEPT_NAME);
}

/*
 * A plugin unloaded and loaded again from the same file, at another
 * place, between the two reads of the maps, then rebuilt at its path (the
 * same code, a new file): the kept snapshot's mapping, named first, is
 * read through the current one, which maps the same file (its path,
 * device and inode), and both places are named.  Its path's file, not
 * the mapping's, was refused for the kept mapping and the refusal cached
 * under the file's key, which is the current mapping's too: the new
 * place was named as a file offset.  A reader without map_files reads
 * the current mapping's path, the rebuilt file: that names the new
 * place, and not the old one, which is no proof it is the file mapped.
 */
TEST(a_file_loaded_again_elsewhere_is_named_after_its_old_place)
{
	char err[ERRLEN] = "", lib[PATH_MAX], rebuilt[PATH_MAX];
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	uint64_t old, fn;
	struct place was;
	void *h;

	/*
	 * Past file modes but with no map_files (CAP_DAC_READ_SEARCH
	 * alone, root in a user namespace), a current mapping's path is
	 * taken with the mapping's numbers too: nothing names the file.
	 */
	if (elf_reads_past_user() && !opens_map_files())
		SKIP("reads past file modes without map_files");
	h = load_copy("libreloaded.so", lib, &old);
	path_in(rebuilt, "libreloaded.so.new");
	copy_file(fixture("libfxl2.so"), rebuilt);
	sz = keeping_now();
	/* As --auto names: no read of the maps after the rebuild. */
	elf_symbolizer_reread_on_miss(sz, false);
	was = place_of(lib);
	ASSERT_EQ(dlclose(h), 0);
	h = load_elsewhere(lib, was, &fn);
	ASSERT_EQ(elf_symbolizer_refresh(sz, err, sizeof(err)), 0);
	ASSERT_FALSE(elf_symbolizer_knows(sz, old));
	ASSERT_TRUE(elf_symbolizer_knows(sz, fn));
	ASSERT_EQ(rename(rebuilt, lib), 0);

	name(sz, old + 1, &info);
	if (opens_map_files())
		EXPECT_STREQ(info.sym, "lib_twice");
	else
		EXPECT_EQ(info.kind, ELF_ADDR_FILE);
	name(sz, fn + 1, &info);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "lib_twice");
	EXPECT_EQ(elf_symbolizer_objects_read(sz), 1);
	elf_symbolizer_free(sz);
}

/*
 * A plugin unloaded between the two reads of the maps, named while
 * another file stands at its path (its kept mapping's read refused),
 * then loaded again from its own file, at another place, and the maps
 * read again: its new place is named from its file, not from the
 * refusal cached for the old one (the same file's key).
 */
TEST(a_file_refused_for_a_kept_mapping_is_read_for_a_current_one)
{
	char err[ERRLEN] = "", lib[PATH_MAX], held[PATH_MAX], other[PATH_MAX];
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	uint64_t old, fn;
	struct place was;
	void *h;

	h = load_copy("libswapped.so", lib, &old);
	skip_unless_maps_number_as_stat(lib);
	path_in(held, "libswapped.so.held");
	path_in(other, "libswapped.so.other");
	copy_file(fixture("libfxl1.so"), other);
	was = place_of(lib);
	sz = unloaded_since_kept(h, old);
	ASSERT_EQ(rename(lib, held), 0);
	ASSERT_EQ(rename(other, lib), 0);
	name(sz, old + 1, &info);
	EXPECT_EQ(info.kind, ELF_ADDR_FILE);

	ASSERT_EQ(rename(held, lib), 0);
	h = load_elsewhere(lib, was, &fn);
	ASSERT_EQ(elf_symbolizer_refresh(sz, err, sizeof(err)), 0);
	ASSERT_FALSE(elf_symbolizer_knows(sz, old));
	name(sz, fn + 1, &info);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "lib_twice");
	name(sz, old + 1, &info);
	EXPECT_STREQ(info.sym, "lib_twice");
	EXPECT_EQ(elf_symbolizer_objects_read(sz), 2);
	elf_symbolizer_free(sz);
}

/*
 * A kept mapping's file read whole but refused by the bound is the
 * bound's refusal, not a read that found no object: a current mapping of
 * the same file later (the plugin loaded again elsewhere) takes the
 * refusal as it is, and the file is not read again for it.
 */
TEST(a_kept_object_the_bound_refused_is_not_read_again)
{
	char err[ERRLEN] = "", lib[PATH_MAX];
	struct elf_addr_info info;
	struct elf_symbolizer *sz;
	uint64_t old, fn;
	struct place was;
	void *h;

	h = load_copy("libbounded.so", lib, &old);
	skip_unless_maps_number_as_stat(lib);
	was = place_of(lib);
	sz = unloaded_since_kept(h, old);
	elf_symbolizer_hold_at_most(sz, 1);
	capture_begin();
	name(sz, old + 1, &info);
	EXPECT_EQ(info.kind, ELF_ADDR_FILE);
	EXPECT_EQ(elf_symbolizer_objects_read(sz), 1);

	h = load_elsewhere(lib, was, &fn);
	ASSERT_EQ(elf_symbolizer_refresh(sz, err, sizeof(err)), 0);
	name(sz, fn + 1, &info);
	capture_end();
	EXPECT_EQ(info.kind, ELF_ADDR_FILE);
	EXPECT_EQ(elf_symbolizer_objects_read(sz), 1);
	EXPECT_TRUE(strstr(captured, "symbols not read"));
	EXPECT_EQ(strchr(captured, '\n'), captured + strlen(captured) - 1);
	elf_symbolizer_free(sz);
	dlclose(h);
}

TEST_HARNESS_MAIN
