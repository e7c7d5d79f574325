// SPDX-License-Identifier: GPL-2.0
/*
 * The maps `--auto` names its window's samples from
 * (autopick_name_window()): read as the window began and once more after
 * it, and no other time, however many addresses no mapping holds; a
 * library unloaded during the window (dlclose()) is named from the first
 * read, and an address that another file took meanwhile is named by
 * neither read.  The process sampled is this test, the window is made by
 * hand: a symbolizer made, the library unloaded, the samples named.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/elf_internal.h"
#include "trace/autopick_internal.h"
#include "util/json.h"
#include "elf_fixtures.h"
#include "off_cpu_stacks.h"

#define TEST_DIR_TEMPLATE	"/tmp/ispot-autopick-maps-XXXXXX"
#include "scratch_dir.h"
#include "as_nobody.h"

#define MS		(1000 * 1000ull)
#define UNMAPPED	1000

static volatile unsigned long sink;

__attribute__((noinline, noclone, used)) void autopick_maps_test_hot(void)
{
	sink++;
}

/* A number in no mapping: nothing in the test's process maps the page. */
static uint64_t unmapped(unsigned int i)
{
	return 4096 + 8 * (uint64_t)i;
}

static bool mapped_now(uint64_t addr)
{
	struct elf_map *maps;
	char err[ERRLEN];
	bool found;
	size_t n;

	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	found = elf_maps_find(maps, n, addr) != NULL;
	elf_maps_free(maps, n);
	return found;
}

/* libfxl2.so loaded, and where its lib_twice() is: handle and address. */
static void *load_lib(uint64_t *fn)
{
	void *h = dlopen(fixture("libfxl2.so"), RTLD_NOW | RTLD_LOCAL);

	ASSERT_TRUE(h);
	*fn = (uintptr_t)dlsym(h, "lib_twice");
	ASSERT_NE(*fn, 0);
	return h;
}

/* How many times @needle is in @text. */
static int count(const char *text, const char *needle)
{
	int n = 0;

	while ((text = strstr(text, needle))) {
		n++;
		text++;
	}
	return n;
}

/*
 * What @a says of itself, its printed lines and its JSON object, into a
 * string to free.
 */
static char *said(const struct autopick *a)
{
	char *text = NULL;
	struct json j;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ASSERT_TRUE(f);
	autopick_print(f, 42, a);
	json_init(&j, f);
	json_object_begin(&j, NULL);
	autopick_json(&j, a);
	json_object_end(&j);
	json_finish(&j);
	fclose(f);
	return text;
}

/*
 * 500 samples in a library's function and 300 ms of waits that return
 * into it, the library unloaded before the window ends: its function is
 * picked, by both, named from the maps as the window began (the end's
 * have no mapping there).  Its probe would time a call only if the
 * library were loaded again: the pick says it was unloaded, where it is
 * printed and in the JSON, and the C library's is not said to be.
 */
TEST(a_library_unloaded_while_sampled_is_named)
{
	char err[ERRLEN] = "";
	struct elf_symbolizer *sz;
	struct sampler_result r;
	struct wallprof wp;
	struct autopick a;
	uint64_t fn;
	char *text;
	void *h;

	/*
	 * A reader past file modes (root) opens a gone mapping's path with
	 * openat2(), which valgrind does not know: no name, by design.
	 */
	if (under_valgrind() && elf_reads_past_user())
		SKIP("under valgrind, which has no openat2()");
	h = load_lib(&fn);
	skip_unless_maps_number_as_stat(fixture("libfxl2.so"));
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(sampler_add(&r, fn + 1, 500), 0);
	r.samples = 500;
	wallprof_init(&wp);
	off_cpu_stack(&wp, WALL_FUTEX, 300, fn + 2, NULL, 0);
	sz = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(sz);
	ASSERT_EQ(dlclose(h), 0);
	ASSERT_FALSE(mapped_now(fn));

	memset(&a, 0, sizeof(a));
	ASSERT_EQ(autopick_name_window(sz, &r, &wp, 0, &a, err, sizeof(err)),
		  0);
	ASSERT_EQ(a.nr, 2);
	EXPECT_STREQ(a.funcs[0].sym.name, "lib_twice");
	EXPECT_STREQ(a.funcs[0].sym.obj, canon(fixture("libfxl2.so")));
	EXPECT_EQ(a.funcs[0].samples, 500);
	EXPECT_EQ(a.funcs[0].off_ns[WALL_FUTEX], 300 * MS);
	EXPECT_EQ(a.unprobeable, 0);
	EXPECT_TRUE(a.funcs[0].unloaded);
	EXPECT_FALSE(a.funcs[1].unloaded);
	text = said(&a);
	TH_LOG("%.800s", text);
	EXPECT_TRUE(strstr(text, "lib_twice (libfxl2.so, unloaded during "
			   "sampling): "));
	EXPECT_EQ(count(text, "unloaded during sampling"), 1);
	EXPECT_EQ(count(text, "\"unloaded\": true"), 1);
	free(text);
	autopick_free(&a);
	elf_symbolizer_free(sz);
	wallprof_free(&wp);
	sampler_result_free(&r);
}

/*
 * The library unloaded, and a copy of it mapped at its place before the
 * window ends, so that both reads name the sampled address, as different
 * files' lib_twice: either may have run there, and neither is picked.
 */
TEST(a_library_replaced_at_its_place_is_named_by_neither)
{
	long page = sysconf(_SC_PAGESIZE);
	char err[ERRLEN] = "", copy[PATH_MAX];
	struct elf_symbolizer *sz, *now;
	struct elf_addr_info info;
	struct sampler_result r;
	struct autopick a;
	uint64_t fn, base;
	size_t len;
	Dl_info dl;
	void *h, *at;
	int fd, e;

	h = load_lib(&fn);
	ASSERT_TRUE(dladdr((void *)(uintptr_t)fn, &dl));
	base = (uintptr_t)dl.dli_fbase;
	len = (fn + 1 - base + page) & ~(uint64_t)(page - 1);
	path_in(copy, "libcopy.so");
	copy_file(fixture("libfxl2.so"), copy);
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(sampler_add(&r, fn + 1, 500), 0);
	r.samples = 500;
	sz = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(sz);
	ASSERT_EQ(dlclose(h), 0);
	ASSERT_FALSE(mapped_now(fn));
	fd = open(copy, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	/* Read, not run: a scratch directory may be noexec. */
	at = mmap((void *)(uintptr_t)base, len, PROT_READ,
		  MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
	e = errno;
	close(fd);
	if (at == MAP_FAILED && e == EEXIST)
		SKIP("the library's place was taken");
	if (at == MAP_FAILED)
		TH_LOG("mmap at the library's place: %s", strerror(e));
	ASSERT_NE(at, MAP_FAILED);
	/* A kernel before 4.17 takes the place asked for as a hint. */
	if (at != (void *)(uintptr_t)base) {
		munmap(at, len);
		SKIP("the library's place was taken (mapped elsewhere)");
	}
	/* The maps of now alone name it: the copy's lib_twice. */
	now = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(now);
	ASSERT_EQ(elf_symbolize(now, fn + 1, &info, err, sizeof(err)), 0);
	EXPECT_STREQ(info.sym, "lib_twice");
	EXPECT_STREQ(info.obj, canon(copy));
	elf_symbolizer_free(now);

	memset(&a, 0, sizeof(a));
	ASSERT_EQ(autopick_name_window(sz, &r, NULL, 0, &a, err, sizeof(err)),
		  0);
	EXPECT_EQ(a.nr, 0);
	if (a.nr)
		TH_LOG("picked %s (%s)", a.funcs[0].sym.name,
		       a.funcs[0].sym.obj);
	EXPECT_EQ(a.unprobeable, 500);
	autopick_free(&a);
	elf_symbolizer_free(sz);
	munmap(at, len);
	sampler_result_free(&r);
}

/*
 * How reload_scene() ended, as its process's exit status: past the
 * harness's ends (as_nobody.h), a child's failed ASSERT exiting 1.
 */
enum reload_end {
	RELOAD_NOTHING_PICKED = 10,
	RELOAD_PICKED,		/* from the new file: the bug */
	RELOAD_PAST_USER,	/* still reads what its user could not */
	RELOAD_NOT_LOADED,	/* the copy does not load (noexec, EACCES) */
	RELOAD_BROKEN,		/* the scene could not be set up */
};

/*
 * A plugin hot-reloaded: @lib (libfxl2.so's copy) loaded, 500 samples in
 * its lib_twice, unloaded, and @rebuilt (libfxl1.so's) renamed over its
 * path before the window ends.  At lib_twice's offset the new file has
 * code of its own (store::DB::Put): were it read for the old mapping,
 * that would be picked.  Run by a user that reads no file it could not:
 * such a reader once took a path's file as it was.
 */
struct reload_paths {
	char lib[PATH_MAX], rebuilt[PATH_MAX];
};

static int reload_scene(void *ctx)
{
	const struct reload_paths *rp = ctx;
	const char *lib = rp->lib, *rebuilt = rp->rebuilt;
	struct sampler_result r;
	struct elf_symbolizer *sz;
	struct autopick a;
	char err[ERRLEN] = "";
	enum reload_end end;
	uint64_t fn;
	void *h;

	if (elf_reads_past_user())
		return RELOAD_PAST_USER;
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "# %s\n", dlerror());
		return RELOAD_NOT_LOADED;
	}
	fn = (uintptr_t)dlsym(h, "lib_twice");
	memset(&r, 0, sizeof(r));
	if (!fn || sampler_add(&r, fn + 1, 500))
		return RELOAD_BROKEN;
	r.samples = 500;
	sz = elf_symbolizer_new(0, err, sizeof(err));
	if (!sz || dlclose(h) || rename(rebuilt, lib))
		return RELOAD_BROKEN;
	memset(&a, 0, sizeof(a));
	if (autopick_name_window(sz, &r, NULL, 0, &a, err, sizeof(err)))
		return RELOAD_BROKEN;
	end = a.nr ? RELOAD_PICKED : RELOAD_NOTHING_PICKED;
	if (a.nr)
		fprintf(stderr, "# picked %s (%s)\n", a.funcs[0].sym.name,
			a.funcs[0].sym.obj);
	autopick_free(&a);
	elf_symbolizer_free(sz);
	sampler_result_free(&r);
	return end;
}

/*
 * reload_scene() in a child, as nobody when this is root (which reads
 * past file modes), in a directory nobody owns, the two libraries copied
 * there for it: its end.  Nothing in this test's process asks
 * elf_reads_past_user() before the fork, or the child would inherit
 * root's answer (RELOAD_PAST_USER).
 */
static enum reload_end reload_as_user(void)
{
	struct reload_paths rp;
	char sub[PATH_MAX];
	const char *const given[] = { sub, rp.lib, rp.rebuilt };

	path_in(sub, "reload");
	path_in(rp.lib, "reload/libplugin.so");
	path_in(rp.rebuilt, "reload/libplugin.so.new");
	ASSERT_EQ(mkdir(sub, 0755), 0);
	copy_file(fixture("libfxl2.so"), rp.lib);
	copy_file(fixture("libfxl1.so"), rp.rebuilt);
	give_to_nobody(given, sizeof(given) / sizeof(*given));
	return as_nobody(reload_scene, &rp, RELOAD_BROKEN);
}

/*
 * A library rebuilt at its path and loaded again (a plugin's hot
 * reload): the window's samples of the old one are named by the old file
 * or not at all, never by the new file's symbols.
 */
TEST(a_library_rebuilt_at_its_path_names_none_of_the_old_samples)
{
	enum reload_end end = reload_as_user();

	if (end == RELOAD_NOT_LOADED)
		SKIP("the library copied to %s does not load (dlerror() "
		     "above)", dir);
	/* Not root, but with CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH. */
	if (end == RELOAD_PAST_USER)
		SKIP("the scene's process reads past file modes");
	EXPECT_EQ(end, RELOAD_NOTHING_PICKED);
}

/*
 * A window whose samples, stacks and off-CPU stacks hold a thousand
 * addresses no mapping holds (frames read through code without frame
 * pointers) is named after one read of the maps past the one that began
 * it; its one function is still named.
 */
TEST(a_window_is_named_after_one_read_of_the_maps)
{
	uint64_t hot = (uintptr_t)autopick_maps_test_hot + 1;
	char err[ERRLEN] = "";
	struct elf_symbolizer *sz;
	struct sampler_result r;
	struct wallprof wp;
	struct autopick a;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	wallprof_init(&wp);
	ASSERT_EQ(sampler_add(&r, hot, 200), 0);
	for (i = 0; i < UNMAPPED; i++) {
		uint64_t chain[] = { unmapped(i), hot };

		ASSERT_EQ(sampler_add(&r, unmapped(i), 1), 0);
		ASSERT_EQ(sampler_add_stack(&r, chain, 2), 0);
		if (i % 10 == 0)
			off_cpu_stack(&wp, WALL_FUTEX, 1, unmapped(i) + 1,
				      chain, 2);
	}
	r.samples = 200 + UNMAPPED;
	sz = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(sz);
	EXPECT_EQ(elf_symbolizer_reads(sz), 0);

	memset(&a, 0, sizeof(a));
	ASSERT_EQ(autopick_name_window(sz, &r, &wp, 1, &a, err, sizeof(err)),
		  0);
	EXPECT_EQ(elf_symbolizer_reads(sz), 1);
	ASSERT_EQ(a.nr, 1);
	EXPECT_STREQ(a.funcs[0].sym.name, "autopick_maps_test_hot");
	EXPECT_EQ(a.unprobeable, UNMAPPED);
	autopick_free(&a);
	elf_symbolizer_free(sz);
	wallprof_free(&wp);
	sampler_result_free(&r);
}

TEST_HARNESS_MAIN
