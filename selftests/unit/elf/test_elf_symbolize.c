// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/elf/elf_symbolize.c: runtime addresses to names.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elf_fixtures.h"
#include "stderr_capture.h"

/* Code and data of our own, named back by the symbolizer. */
__attribute__((noinline, noclone, used))
int elf_test_target_fn(int x)
{
	return x * 7 + 3;
}

int gm_test_lock[8];				/* .bss */
int gm_test_data[4] = { 1, 2, 3, 4 };		/* .data */
char gm_big_bss[1 << 20];	/* big enough to spill past the file pages */

/* "test_elf_symbolize:" or whatever this binary is called. */
static const char *self_prefix(void)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s:", strrchr(canon("/proc/self/exe"),
						  '/') + 1);
	return buf;
}

/*
 * The kernel's name for the mapping at addr.  Under valgrind the heap and
 * the client stack are plain anonymous memory, so expectations about
 * "[heap]"/"[stack]" follow the maps rather than assume them.
 */
static const char *map_name(const void *addr)
{
	static char buf[PATH_MAX];
	const struct elf_map *m;
	struct elf_map *maps;
	char err[ERRLEN];
	size_t n;

	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	m = elf_maps_find(maps, n, (uintptr_t)addr);
	ASSERT_TRUE(m);
	snprintf(buf, sizeof(buf), "%s", m->path);
	elf_maps_free(maps, n);
	return buf;
}

static void expect_data_sym(struct elf_symbolizer *s, const void *addr,
			    const char *name, uint64_t off)
{
	struct elf_addr_info info;
	char err[ERRLEN];

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)addr, &info, err, sizeof(err)),
		  0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, name);
	EXPECT_EQ(info.sym_off, off);
	EXPECT_EQ(info.sym_type, STT_OBJECT);
}

TEST(addr_to_symbol_function)
{
	struct elf_addr_info info;
	char err[ERRLEN], buf[PATH_MAX + 64];

	ASSERT_EQ(elf_addr_to_symbol(getpid(),
				     (uintptr_t)elf_test_target_fn + 3, &info,
				     err, sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "elf_test_target_fn");
	EXPECT_EQ(info.sym_off, 3);
	EXPECT_EQ(info.sym_type, STT_FUNC);
	EXPECT_STREQ(info.obj, canon("/proc/self/exe"));
	elf_addr_format(&info, buf, sizeof(buf));
	EXPECT_EQ(strncmp(buf, self_prefix(), strlen(self_prefix())), 0);
	EXPECT_STREQ(buf + strlen(self_prefix()), "elf_test_target_fn+0x3");
}

/*
 * A function named from .eh_frame (no symbol) is spelled OBJ+0xSTART,
 * which names its object: a frame in it is not prefixed with it again.
 */
TEST(a_function_without_a_symbol_names_its_object_once)
{
	struct elf_addr_info info = {
		.kind = ELF_ADDR_SYMBOL, .obj = "/usr/lib/libc.so.6",
		.sym = "libc.so.6+0x88ef0", .sym_off = 0x305,
	};
	char buf[128];

	elf_addr_format(&info, buf, sizeof(buf));
	EXPECT_STREQ(buf, "libc.so.6+0x88ef0+0x305");
	info.sym_off = 0;
	elf_addr_format(&info, buf, sizeof(buf));
	EXPECT_STREQ(buf, "libc.so.6+0x88ef0");
	/* A symbol that only begins like it keeps its object. */
	snprintf(info.sym, sizeof(info.sym), "libc.so.6_init");
	elf_addr_format(&info, buf, sizeof(buf));
	EXPECT_STREQ(buf, "libc.so.6:libc.so.6_init");
}

TEST(addr_to_symbol_data)
{
	struct elf_symbolizer *s;
	struct elf_map *maps;
	const struct elf_map *m;
	char err[ERRLEN], buf[PATH_MAX + 64];
	struct elf_addr_info info;
	size_t n;

	/* Touch the tail so that its anonymous pages exist. */
	((volatile char *)gm_big_bss)[900000] = 1;
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	expect_data_sym(s, &gm_test_lock[2], "gm_test_lock", 8);
	expect_data_sym(s, &gm_test_data[1], "gm_test_data", 4);
	expect_data_sym(s, &gm_big_bss[900000], "gm_big_bss", 900000);

	/* That last one really lay in an anonymous mapping. */
	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	m = elf_maps_find(maps, n, (uintptr_t)&gm_big_bss[900000]);
	ASSERT_TRUE(m);
	EXPECT_STREQ(m->path, "");
	elf_maps_free(maps, n);

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)&gm_test_lock[1], &info, err,
				sizeof(err)), 0);
	elf_addr_format(&info, buf, sizeof(buf));
	EXPECT_EQ(strncmp(buf, self_prefix(), strlen(self_prefix())), 0);
	EXPECT_STREQ(buf + strlen(self_prefix()), "gm_test_lock+0x4");
	elf_symbolizer_free(s);
}

TEST(addr_to_symbol_pseudo)
{
	struct elf_symbolizer *s;
	struct elf_addr_info info;
	char err[ERRLEN], buf[64];
	int on_stack = 0;
	void *heap = malloc(64);
	void *anon = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_TRUE(heap);
	ASSERT_TRUE(anon != MAP_FAILED);
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)heap, &info, err, sizeof(err)),
		  0);
	if (!strcmp(map_name(heap), "[heap]")) {
		EXPECT_EQ(info.kind, ELF_ADDR_HEAP);
		EXPECT_STREQ(info.obj, "[heap]");
		elf_addr_format(&info, buf, sizeof(buf));
		EXPECT_STREQ(buf, "[heap]");
	} else {
		TH_LOG("malloc() memory is not in [heap] here");
		EXPECT_TRUE(under_valgrind());
	}

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)&on_stack, &info, err,
				sizeof(err)), 0);
	if (!strcmp(map_name(&on_stack), "[stack]")) {
		EXPECT_EQ(info.kind, ELF_ADDR_STACK);
		EXPECT_STREQ(info.obj, "[stack]");
	} else {
		TH_LOG("the stack is not [stack] here");
		EXPECT_TRUE(under_valgrind());
	}

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)anon + 100, &info, err,
				sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_ANON);
	EXPECT_STREQ(info.obj, "anon");
	EXPECT_EQ(info.vaddr, 100);

	EXPECT_EQ(elf_symbolize(s, 16, &info, err, sizeof(err)), -ENOENT);
	EXPECT_TRUE(strstr(err, "not mapped"));
	elf_symbolizer_free(s);
	munmap(anon, 1 << 16);
	free(heap);
}

#define BSS_CHILD_ENV "ISPOT_TEST_BSS_CHILD"
/* The child's status when this host cannot make the layout: a skip. */
#define BSS_CHILD_CANNOT	77

extern char end[];	/* the linker's: the end of .bss */

/*
 * This binary run again by the test below, without address-space
 * randomisation, where the heap starts right at the end of .bss: it
 * touches gm_big_bss's tail, grows the heap, writes where both lie to
 * the fd in BSS_CHILD_ENV, and waits to be killed.  Some kernels show
 * .bss's anonymous tail and the heap as one "[heap]" mapping then;
 * others keep them apart, so the child joins them itself, contents and
 * all (mremap() over both), from the page of the tail it touched.
 */
__attribute__((constructor)) static void bss_child(void)
{
	const char *fd = getenv(BSS_CHILD_ENV);
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	char *lo = (char *)((uintptr_t)&gm_big_bss[900000] & ~(page - 1));
	uint64_t where[2];
	size_t len;
	void *join;

	if (!fd)
		return;
	/* A heap a gap above .bss (randomised after all): no such layout. */
	if ((uintptr_t)sbrk(0) - (uintptr_t)end >= page)
		_exit(BSS_CHILD_CANNOT);
	((volatile char *)gm_big_bss)[900000] = 1;
	where[0] = (uintptr_t)&gm_big_bss[900000];
	where[1] = (uintptr_t)sbrk(1 << 16);
	len = (char *)sbrk(0) - lo;
	join = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (join == MAP_FAILED)
		_exit(3);
	memcpy(join, lo, len);
	if (mremap(join, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, lo) != lo)
		_exit(BSS_CHILD_CANNOT);
	if (write(atoi(fd), where, sizeof(where)) != sizeof(where))
		_exit(4);
	pause();
	_exit(0);
}

/*
 * A global in .bss's tail, inside the "[heap]" mapping that starts there
 * (above), is named by its symbol; what lies past .bss is still heap.
 */
TEST(a_bss_global_the_heap_mapping_took_in_is_named_by_its_symbol)
{
	const char *self = canon("/proc/self/exe");
	struct elf_addr_info info;
	const struct elf_map *maps, *m;
	struct elf_symbolizer *s;
	char err[ERRLEN], fd[16];
	uint64_t where[2], heap_start;
	int pfd[2];
	size_t n;
	pid_t pid;

	ASSERT_EQ(pipe(pfd), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		close(pfd[0]);
		snprintf(fd, sizeof(fd), "%d", pfd[1]);
		setenv(BSS_CHILD_ENV, fd, 1);
		/* Killed with the test, should it end on an ASSERT. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (personality(personality(0xffffffff) | ADDR_NO_RANDOMIZE) <
		    0)
			_exit(BSS_CHILD_CANNOT);
		execl(self, self, (char *)NULL);
		_exit(2);
	}
	close(pfd[1]);
	if (read(pfd[0], where, sizeof(where)) != sizeof(where)) {
		int status = -1;

		close(pfd[0]);
		waitpid(pid, &status, 0);
		if (WIFEXITED(status) &&
		    WEXITSTATUS(status) == BSS_CHILD_CANNOT)
			SKIP("no heap joined to .bss can be made here");
		/* Anything else (a failed exec, a crash) is a failure. */
		TH_LOG("the child ended with status 0x%x", status);
		ASSERT_TRUE(false);
	}
	close(pfd[0]);
	s = elf_symbolizer_new(pid, err, sizeof(err));
	ASSERT_TRUE(s);
	maps = elf_symbolizer_maps(s, &n);
	m = elf_maps_find(maps, n, where[0]);
	ASSERT_TRUE(m);
	ASSERT_STREQ(m->path, "[heap]");
	heap_start = m->start;
	ASSERT_LT(heap_start, where[1]);

	ASSERT_EQ(elf_symbolize(s, where[0], &info, err, sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.obj, self);
	EXPECT_STREQ(info.sym, "gm_big_bss");
	EXPECT_EQ(info.sym_off, 900000);
	EXPECT_EQ(info.sym_type, STT_OBJECT);

	ASSERT_EQ(elf_symbolize(s, where[1], &info, err, sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_HEAP);
	EXPECT_STREQ(info.obj, "[heap]");
	EXPECT_EQ(info.vaddr, where[1] - heap_start);
	elf_symbolizer_free(s);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * With randomisation on, the heap lies a gap above the program, and an
 * address in it is heap whatever file is mapped just below it: here a
 * library's first page, put there on purpose, whose segments' addresses
 * a heap address past that page would fall into, were any segment
 * taken for .bss rather than the .bss of a segment that page maps.
 */
TEST(a_file_page_just_below_the_heap_names_no_heap_address)
{
	long page = sysconf(_SC_PAGESIZE);
	struct elf_addr_info info;
	struct elf_symbolizer *s;
	const struct elf_map *maps, *m;
	char err[ERRLEN];
	char *heap = malloc(64);
	uint64_t at;
	void *below;
	size_t n;
	int fd;

	ASSERT_TRUE(heap);
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	maps = elf_symbolizer_maps(s, &n);
	m = elf_maps_find(maps, n, (uintptr_t)heap);
	ASSERT_TRUE(m);
	if (strcmp(m->path, "[heap]")) {
		elf_symbolizer_free(s);
		free(heap);
		SKIP("malloc() memory is not in [heap] here");
	}
	fd = open(fixture("libfx.so"), O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	below = mmap((void *)(uintptr_t)(m->start - page), page, PROT_READ,
		     MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
	close(fd);
	elf_symbolizer_free(s);
	/* Before Linux 4.17 MAP_FIXED_NOREPLACE is only a hint. */
	if (below != (void *)(uintptr_t)(m->start - page)) {
		if (below != MAP_FAILED)
			munmap(below, page);
		free(heap);
		SKIP("the page below the heap is taken here");
	}
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	maps = elf_symbolizer_maps(s, &n);
	m = elf_maps_find(maps, n, (uintptr_t)heap);
	ASSERT_TRUE(m);
	/* Its first 64 KiB: past the page, the library's segments'. */
	for (at = m->start; at < m->end && at < m->start + (64 << 10);
	     at += 16) {
		ASSERT_EQ(elf_symbolize(s, at, &info, err, sizeof(err)), 0);
		if (info.kind != ELF_ADDR_HEAP)
			break;
	}
	EXPECT_EQ(info.kind, ELF_ADDR_HEAP);
	EXPECT_STREQ(info.obj, "[heap]");
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)heap, &info, err, sizeof(err)),
		  0);
	EXPECT_EQ(info.kind, ELF_ADDR_HEAP);
	EXPECT_EQ(info.vaddr, (uintptr_t)heap - m->start);
	elf_symbolizer_free(s);
	munmap(below, page);
	free(heap);
}

TEST(symbolizer_sees_new_mappings)
{
	const char *lib = fixture("libfx.so");
	struct elf_addr_info info;
	struct elf_symbolizer *s;
	char err[ERRLEN];
	void *h, *counter;

	/* Created before the library is loaded: must re-read the maps. */
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	h = dlopen(lib, RTLD_NOW);
	ASSERT_TRUE(h);
	counter = dlsym(h, "fx_counter");
	ASSERT_TRUE(counter);
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)counter, &info, err,
				sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "fx_counter");
	EXPECT_STREQ(info.obj, canon(lib));
	/* Link-time address, with libfx.so's 0x200000 base. */
	EXPECT_GE(info.vaddr, 0x200000);
	elf_symbolizer_free(s);
	dlclose(h);
}

/* Whether this process may open the map_files entry of @addr's mapping. */
static bool map_files_open(const void *addr)
{
	const struct elf_map *m;
	struct elf_map *maps;
	char err[ERRLEN], alt[96];
	size_t n;
	int fd;

	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	m = elf_maps_find(maps, n, (uintptr_t)addr);
	ASSERT_TRUE(m);
	snprintf(alt, sizeof(alt), "/proc/self/map_files/%" PRIx64 "-%" PRIx64,
		 m->start, m->end);
	elf_maps_free(maps, n);
	fd = open(alt, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/*
 * A copy of libfx.so (and its dependency) in a new directory, readable by
 * all, and a copy of this program, an ELF file with none of libfx.so's
 * names, beside it as "other" (mode 0600: only its owner may read it).
 */
struct swap_dir {
	char dir[64], lib[96], dep[96], other[96];
};

static void swap_dir_make(struct swap_dir *w)
{
	size_t len;
	char *buf;

	snprintf(w->dir, sizeof(w->dir), "/tmp/ispot_swapXXXXXX");
	ASSERT_TRUE(mkdtemp(w->dir));
	ASSERT_EQ(chmod(w->dir, 0755), 0);
	snprintf(w->lib, sizeof(w->lib), "%s/libswap.so", w->dir);
	snprintf(w->dep, sizeof(w->dep), "%s/libfxdep.so", w->dir);
	snprintf(w->other, sizeof(w->other), "%s/other", w->dir);
	buf = slurp(fixture("libfx.so"), &len);
	spit(w->lib, buf, len);
	free(buf);
	/* Its dependency, found beside it ($ORIGIN). */
	buf = slurp(fixture("libfxdep.so"), &len);
	spit(w->dep, buf, len);
	free(buf);
	ASSERT_EQ(chmod(w->lib, 0644), 0);
	ASSERT_EQ(chmod(w->dep, 0644), 0);
	buf = slurp("/proc/self/exe", &len);
	spit(w->other, buf, len);
	free(buf);
}

static void swap_dir_remove(struct swap_dir *w)
{
	unlink(w->lib);
	unlink(w->dep);
	unlink(w->other);
	rmdir(w->dir);
}

/*
 * Load @w's library, read the maps, rename "other" over the library's
 * path, and name fx_counter's address then, into @info.
 */
static int swap_and_name(struct swap_dir *w, struct elf_addr_info *info,
			 bool *map_files)
{
	struct elf_symbolizer *s;
	char err[ERRLEN];
	void *h, *counter;
	int rc;

	h = dlopen(w->lib, RTLD_NOW);
	if (!h)
		return -ENOENT;
	counter = dlsym(h, "fx_counter");
	s = elf_symbolizer_new(0, err, sizeof(err));
	if (!counter || !s || !elf_symbolizer_knows(s, (uintptr_t)counter) ||
	    rename(w->other, w->lib))
		return -EINVAL;
	*map_files = map_files_open(counter);
	rc = elf_symbolize(s, (uintptr_t)counter, info, err, sizeof(err));
	elf_symbolizer_free(s);
	dlclose(h);
	return rc;
}

/*
 * The path of a mapping names another file by the time its symbols are
 * read (here a rename over it; a target may as well swap in a symlink to
 * a file only root may read, or mount over it in its own namespace): the
 * names come from the file mapped, through /proc/self/map_files, not from
 * whatever the path names now, and under the mapping's path.
 */
TEST(a_path_renamed_over_after_the_maps_names_the_mapped_file)
{
	struct elf_addr_info info;
	struct swap_dir w;
	bool map_files;

	swap_dir_make(&w);
	ASSERT_EQ(swap_and_name(&w, &info, &map_files), 0);
	if (!map_files) {
		TH_LOG("map_files is closed to this user: see the next test");
	} else {
		EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
		EXPECT_STREQ(info.sym, "fx_counter");
		EXPECT_STREQ(info.obj, w.lib);
	}
	swap_dir_remove(&w);
}

/*
 * @scene(@w) in a child that is nobody with CAP_DAC_READ_SEARCH alone,
 * as ispotd's unit runs it without CAP_CHECKPOINT_RESTORE (map_files
 * closed), in @w's directory, now nobody's: its exit status (10: could
 * not become nobody).
 */
static int as_nobody_past_modes(struct swap_dir *w,
				int (*scene)(struct swap_dir *w))
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };
	int status;
	pid_t pid;

	if (chown(w->dir, 65534, 65534))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		d[0].permitted = d[0].effective = 1u << CAP_DAC_READ_SEARCH;
		if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
		    setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) ||
		    syscall(SYS_capset, &h, d))
			_exit(10);
		_exit(scene(w));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* How an address was named: 0 as a file offset, 1 by a symbol. */
static int named_how(const struct elf_addr_info *info)
{
	return info->kind == ELF_ADDR_FILE ? 0 :
	       info->kind == ELF_ADDR_SYMBOL ? 1 : 2;
}

/* The swap of the test above, the map_files entry closed. */
static int swap_scene(struct swap_dir *w)
{
	struct elf_addr_info info;
	bool map_files;

	if (swap_and_name(w, &info, &map_files))
		return 11;
	if (map_files)
		return 12;
	/* A name here could only come from the file swapped in. */
	return named_how(&info);
}

/*
 * The same, read by a user that may read any file (ispotd's unit:
 * nobody with CAP_DAC_READ_SEARCH) but not open map_files (no
 * CAP_CHECKPOINT_RESTORE): the file now at the path, one only root may
 * read, is not read; the address is named as an offset in the file.
 */
TEST(a_reader_past_file_modes_does_not_read_a_file_swapped_in)
{
	struct swap_dir w;

	if (geteuid())
		SKIP("not root: cannot become another user");
	swap_dir_make(&w);
	/* 1: the file swapped in was read, and one of its names given. */
	EXPECT_EQ(as_nobody_past_modes(&w, swap_scene), 0);
	swap_dir_remove(&w);
}

/* The library's path made a link to the file mapped, moved aside. */
static int link_scene(struct swap_dir *w)
{
	struct elf_addr_info info;
	struct elf_symbolizer *s;
	char err[ERRLEN], keep[128];
	void *lib, *counter;

	snprintf(keep, sizeof(keep), "%s/keep.so", w->dir);
	lib = dlopen(w->lib, RTLD_NOW);
	counter = lib ? dlsym(lib, "fx_counter") : NULL;
	s = elf_symbolizer_new(0, err, sizeof(err));
	if (!counter || !s || rename(w->lib, keep) ||
	    symlink("keep.so", w->lib))
		return 11;
	if (elf_symbolize(s, (uintptr_t)counter, &info, err, sizeof(err)))
		return 12;
	unlink(w->lib);
	rename(keep, w->lib);
	return named_how(&info);
}

/*
 * As nobody with CAP_DAC_READ_SEARCH, the library's path made a symbolic
 * link after the maps were read, to the very file mapped (so that device
 * and inode agree: a file the target let go can give its inode number to
 * a file of root's, which the link would name): the link is not followed,
 * and the address is named as an offset in the file.
 */
TEST(a_reader_past_file_modes_follows_no_link_at_a_mapped_path)
{
	struct swap_dir w;

	if (geteuid())
		SKIP("not root: cannot become another user");
	swap_dir_make(&w);
	/* 1: the link was followed, and the file it names read. */
	EXPECT_EQ(as_nobody_past_modes(&w, link_scene), 0);
	swap_dir_remove(&w);
}

/*
 * A target that lives a few ms: what was snapshotted while it lived names
 * its addresses after it is gone, and refreshing then keeps the snapshot.
 * The forked child has our own layout, so our globals are its globals.
 */
TEST(snapshot_names_a_process_that_has_exited)
{
	struct elf_addr_info info;
	struct elf_symbolizer *s;
	char err[ERRLEN];
	siginfo_t si;
	pid_t pid = fork();

	ASSERT_GE(pid, 0);
	if (!pid) {
		pause();
		_exit(0);
	}
	s = elf_symbolizer_new(pid, err, sizeof(err));
	kill(pid, SIGKILL);
	/* A zombie first: its maps read empty, which is no new snapshot. */
	ASSERT_EQ(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	ASSERT_TRUE(s);
	EXPECT_NE(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_TRUE(elf_symbolizer_knows(s, (uintptr_t)&gm_test_lock[2]));
	waitpid(pid, NULL, 0);
	EXPECT_NE(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_TRUE(elf_symbolizer_knows(s, (uintptr_t)&gm_test_lock[2]));
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)&gm_test_lock[2], &info, err,
				sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "gm_test_lock");
	EXPECT_EQ(info.sym_off, 2 * sizeof(int));
	elf_symbolizer_free(s);

	/* Without a snapshot from its lifetime there is nothing to name. */
	EXPECT_EQ(elf_addr_to_symbol(pid, (uintptr_t)&gm_test_lock[2], &info,
				     err, sizeof(err)) < 0, 1);
}

TEST(refresh_takes_mappings_made_since)
{
	struct elf_symbolizer *s;
	char err[ERRLEN];
	void *m;

	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	m = mmap(NULL, 1 << 16, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	ASSERT_NE(m, MAP_FAILED);
	EXPECT_FALSE(elf_symbolizer_knows(s, (uintptr_t)m + 8));
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_TRUE(elf_symbolizer_knows(s, (uintptr_t)m + 8));
	elf_symbolizer_free(s);
	munmap(m, 1 << 16);
}

/*
 * Told not to, a miss does not re-read the maps: a mapping made since the
 * snapshot stays unknown (-ENOENT) until an explicit refresh, as a report
 * that read the maps once names only from them; told to again, the next
 * miss re-reads them.
 */
TEST(a_miss_rereads_the_maps_only_when_told)
{
	struct elf_symbolizer *s;
	struct elf_addr_info info;
	char err[ERRLEN];
	void *first, *second;

	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	elf_symbolizer_reread_on_miss(s, false);
	first = mmap(NULL, 1 << 16, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	ASSERT_NE(first, MAP_FAILED);
	EXPECT_EQ(elf_symbolize(s, (uintptr_t)first, &info, err, sizeof(err)),
		  -ENOENT);
	EXPECT_FALSE(elf_symbolizer_knows(s, (uintptr_t)first));
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_EQ(elf_symbolize(s, (uintptr_t)first, &info, err, sizeof(err)),
		  0);
	second = mmap(NULL, 1 << 16, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	ASSERT_NE(second, MAP_FAILED);
	elf_symbolizer_reread_on_miss(s, true);
	EXPECT_EQ(elf_symbolize(s, (uintptr_t)second, &info, err,
				sizeof(err)), 0);
	EXPECT_TRUE(elf_symbolizer_knows(s, (uintptr_t)second));
	elf_symbolizer_free(s);
	munmap(first, 1 << 16);
	munmap(second, 1 << 16);
}

/*
 * The generation moves with the files mapped, not with anonymous memory:
 * a file mapped, another put in its place, that one moved, then unmapped,
 * each moves it; anonymous memory mapped, or a refresh that finds the
 * same files, leaves it.  A name given from a file holds while it stays
 * (the live Perfetto trace keeps names by it).
 */
TEST(generation_moves_with_the_files_mapped)
{
	const char *path = canon("/proc/self/exe");
	char other[] = "/tmp/ispot_generation_XXXXXX";
	struct elf_symbolizer *s;
	char err[ERRLEN];
	uint64_t g;
	void *anon, *file, *moved;
	int fd;

	fd = mkstemp(other);
	ASSERT_GE(fd, 0);
	close(fd);

	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	g = elf_symbolizer_generation(s);
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_EQ(elf_symbolizer_generation(s), g);
	anon = mmap(NULL, 1 << 16, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(anon, MAP_FAILED);
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_TRUE(elf_symbolizer_knows(s, (uintptr_t)anon));
	EXPECT_EQ(elf_symbolizer_generation(s), g);
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	file = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(file, MAP_FAILED);
	close(fd);
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_TRUE(elf_symbolizer_knows(s, (uintptr_t)file));
	EXPECT_EQ(elf_symbolizer_generation(s), g + 1);
	/*
	 * Another file at the same address, as many file mappings as
	 * before (dlclose(), then dlopen()): moved; then the same file
	 * moved elsewhere: moved again.
	 */
	fd = open(other, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, 4096), 0);
	ASSERT_EQ(mmap(file, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0),
		  file);
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_EQ(elf_symbolizer_generation(s), g + 2);
	moved = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(moved, MAP_FAILED);
	munmap(file, 4096);
	close(fd);
	unlink(other);
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_EQ(elf_symbolizer_generation(s), g + 3);
	munmap(moved, 4096);
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_EQ(elf_symbolizer_generation(s), g + 4);
	munmap(anon, 1 << 16);
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	EXPECT_EQ(elf_symbolizer_generation(s), g + 4);
	elf_symbolizer_free(s);
}

/*
 * A process may map any number of files, each within the bound of one
 * object: what the symbolizer keeps of them all is bounded too.  With
 * room for this program's symbols alone, libc's address is named as a
 * file offset, one note says why, and this program's names still come.
 */
TEST(objects_kept_within_a_bound)
{
	struct elf_addr_info info;
	struct elf_symbolizer *s;
	char err[ERRLEN];
	void *libc_fn = dlsym(RTLD_DEFAULT, "getpid");

	ASSERT_TRUE(libc_fn);
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)elf_test_target_fn, &info, err,
				sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	elf_symbolizer_hold_at_most(s, 0);	/* what it holds, no more */
	capture_begin();
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)libc_fn, &info, err,
				sizeof(err)), 0);
	EXPECT_EQ(elf_symbolize(s, (uintptr_t)libc_fn + 1, &info, err,
				sizeof(err)), 0);
	capture_end();
	EXPECT_EQ(info.kind, ELF_ADDR_FILE);
	TH_LOG("%s", captured);
	EXPECT_TRUE(strstr(captured, "note: "));
	EXPECT_TRUE(strstr(captured, "libc"));
	EXPECT_TRUE(strstr(captured, "ISPOT_ELF_MAX_READ_MB"));
	EXPECT_EQ(strchr(captured, '\n'), captured + strlen(captured) - 1);
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)elf_test_target_fn + 1, &info,
				err, sizeof(err)), 0);
	EXPECT_STREQ(info.sym, "elf_test_target_fn");
	elf_symbolizer_free(s);
}

/* libfx.so and its dependency copied into @dir; libfx.so's path. */
static const char *copy_libfx(const char *dir, char *lib, size_t len)
{
	char dep[PATH_MAX];
	size_t n;
	char *buf;

	snprintf(lib, len, "%s/libfx.so", dir);
	snprintf(dep, sizeof(dep), "%s/libfxdep.so", dir);
	buf = slurp(fixture("libfx.so"), &n);
	spit(lib, buf, n);
	free(buf);
	buf = slurp(fixture("libfxdep.so"), &n);
	spit(dep, buf, n);
	free(buf);
	return lib;
}

/*
 * An object that is no longer mapped gives its room back: a long-lived
 * process that loads and unloads plugins would otherwise fill the bound
 * with objects it has let go of, and have no names for the next ones.
 * Room for one libfx.so only: the first copy, unloaded, makes room for
 * the second, loaded from another path.
 */
TEST(an_unmapped_object_gives_its_room_back)
{
	char d1[] = "/tmp/ispot_plugAXXXXXX", d2[] = "/tmp/ispot_plugBXXXXXX";
	char lib1[PATH_MAX], lib2[PATH_MAX], err[ERRLEN];
	struct elf_addr_info info;
	struct elf_symbolizer *s;
	void *h, *counter;

	ASSERT_TRUE(mkdtemp(d1));
	ASSERT_TRUE(mkdtemp(d2));
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	h = dlopen(copy_libfx(d1, lib1, sizeof(lib1)), RTLD_NOW);
	ASSERT_TRUE(h);
	counter = dlsym(h, "fx_counter");
	ASSERT_TRUE(counter);
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)counter, &info, err,
				sizeof(err)), 0);
	EXPECT_STREQ(info.sym, "fx_counter");
	ASSERT_GT(elf_symbolizer_held(s), 0);
	elf_symbolizer_hold_at_most(s, elf_symbolizer_held(s));
	ASSERT_EQ(dlclose(h), 0);
	h = dlopen(copy_libfx(d2, lib2, sizeof(lib2)), RTLD_NOW);
	ASSERT_TRUE(h);
	counter = dlsym(h, "fx_counter");
	ASSERT_TRUE(counter);
	/* It may lie where the first one lay: the maps as they are now. */
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	capture_begin();
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)counter, &info, err,
				sizeof(err)), 0);
	capture_end();
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "fx_counter");
	EXPECT_STREQ(info.obj, lib2);
	EXPECT_STREQ(captured, "");
	elf_symbolizer_free(s);
	dlclose(h);
	unlink(lib1);
	unlink(lib2);
	snprintf(lib1, sizeof(lib1), "%s/libfxdep.so", d1);
	snprintf(lib2, sizeof(lib2), "%s/libfxdep.so", d2);
	unlink(lib1);
	unlink(lib2);
	rmdir(d1);
	rmdir(d2);
}

/*
 * A library replaced on disk (a new file renamed over its path, as a
 * package upgrade does) and loaded again: the same path, another file,
 * read anew rather than named from the object the old one left.
 */
TEST(a_new_file_at_a_known_path_is_read_anew)
{
	char d[] = "/tmp/ispot_upgradeXXXXXX", lib[PATH_MAX], old[PATH_MAX];
	char dep[PATH_MAX], err[ERRLEN];
	struct elf_addr_info info;
	struct elf_symbolizer *s;
	void *h, *fn;
	size_t n;
	char *buf;

	ASSERT_TRUE(mkdtemp(d));
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	h = dlopen(copy_libfx(d, lib, sizeof(lib)), RTLD_NOW);
	ASSERT_TRUE(h);
	fn = dlsym(h, "fx_counter");
	ASSERT_TRUE(fn);
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)fn, &info, err, sizeof(err)),
		  0);
	EXPECT_STREQ(info.sym, "fx_counter");
	ASSERT_EQ(dlclose(h), 0);
	/* Kept aside, so that the new file cannot take its inode number. */
	snprintf(old, sizeof(old), "%s/old.so", d);
	ASSERT_EQ(rename(lib, old), 0);
	buf = slurp(fixture("libfxdep.so"), &n);
	spit(lib, buf, n);
	free(buf);
	h = dlopen(lib, RTLD_NOW);
	ASSERT_TRUE(h);
	fn = dlsym(h, "fxdep_value");
	ASSERT_TRUE(fn);
	ASSERT_EQ(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)fn, &info, err, sizeof(err)),
		  0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "fxdep_value");
	elf_symbolizer_free(s);
	dlclose(h);
	snprintf(dep, sizeof(dep), "%s/libfxdep.so", d);
	unlink(lib);
	unlink(old);
	unlink(dep);
	rmdir(d);
}

TEST_HARNESS_MAIN
