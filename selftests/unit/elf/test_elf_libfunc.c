// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for a bare --func name found where gdb would find it
 * (user/lib/elf/elf_libfunc.c): in the program, else in the libraries it
 * loads (its DT_NEEDED closure) and, for a running process, the objects
 * it has mapped.
 */
#include <dlfcn.h>

#include "elf_fixtures.h"
#include "trace/trace_internal.h"

TEST(found_in_the_library_only)
{
	const char *app = fixture("app_libs");
	const char *lib = fixture("libfxl1.so");
	struct elf_target_sym r;

	unsetenv("LD_LIBRARY_PATH");
	r = resolve_one("lib_only_one", 0, app);
	EXPECT_STREQ(r.obj, canon(lib));
	EXPECT_EQ(r.offset, objdump_offset(lib, "lib_only_one"));
	EXPECT_TRUE(r.flags & ELF_SYM_IN_LIB);

	/* A C++ method by its demangled name, as gdb takes it. */
	r = resolve_one("store::DB::Put", 0, app);
	EXPECT_STREQ(r.obj, canon(lib));
	EXPECT_STREQ(r.name, "store::DB::Put(int, int)");
	EXPECT_EQ(r.offset, objdump_offset(lib, "_ZN5store2DB3PutEii"));
	EXPECT_TRUE(r.flags & ELF_SYM_IN_LIB);

	/* A library's library (libfx.so needs libfxdep.so). */
	r = resolve_one("fxdep_value", 0, fixture("app_pie"));
	EXPECT_STREQ(r.obj, canon(fixture("libfxdep.so")));
}

TEST(the_program_comes_first)
{
	const char *app = fixture("app_libs");
	struct elf_target_sym r;

	/* libfxl2.so has it too, but ld.so binds the program's. */
	r = resolve_one("lib_shadowed", 0, app);
	EXPECT_STREQ(r.obj, canon(app));
	EXPECT_FALSE(r.flags & ELF_SYM_IN_LIB);
}

TEST(several_libraries_list_the_candidates)
{
	const char *err;

	err = resolve_fail("lib_twice", 0, fixture("app_libs"), -EINVAL);
	EXPECT_TRUE(strstr(err, "libfxl1.so (lib_twice)"));
	EXPECT_TRUE(strstr(err, "libfxl2.so (lib_twice)"));
	EXPECT_TRUE(strstr(err, "'libfxl1.so:lib_twice'"));
}

TEST(stripped_program)
{
	const char *app = fixture("app_libs_stripped");
	const char *err, *libs, *hint;
	struct elf_target_sym r;

	r = resolve_one("store::DB::Put", 0, app);
	EXPECT_STREQ(r.obj, canon(fixture("libfxl1.so")));

	/* Nowhere: every object searched is named, debug info blamed last. */
	err = resolve_fail("no_such_function", 0, app, -ENOENT);
	EXPECT_TRUE(strstr(err, "no function 'no_such_function' in "));
	EXPECT_TRUE(strstr(err, "stripped"));
	libs = strstr(err, "nor in the 7 libraries it loads (");
	ASSERT_TRUE(libs);
	EXPECT_TRUE(strstr(libs, "libfxl1.so"));
	EXPECT_TRUE(strstr(libs, "libfxl2.so"));
	EXPECT_TRUE(strstr(libs, "libstdc++.so.6"));
	EXPECT_TRUE(strstr(libs, "libc.so.6"));
	hint = strstr(err, "install the -dbgsym package");
	ASSERT_TRUE(hint);
	EXPECT_TRUE(hint > libs);
}

TEST(a_process_maps_what_it_dlopens)
{
	void *h = dlopen(fixture("libfxl2.so"), RTLD_NOW);
	struct elf_target_sym r;

	ASSERT_TRUE(h);
	/* Not in this test's DT_NEEDED closure, only in its maps. */
	r = resolve_one("lib_shadowed", getpid(), NULL);
	EXPECT_STREQ(r.obj, canon(fixture("libfxl2.so")));
	EXPECT_TRUE(r.flags & ELF_SYM_IN_LIB);
	dlclose(h);
}

TEST(an_object_spec_stays_in_its_object)
{
	resolve_fail("libfxl2:lib_only_one", 0, fixture("app_libs"),
		     -ENOENT);
}

TEST(the_report_says_where)
{
	struct trace_func f[2] = { 0 };
	struct trace t = { .funcs = f, .nr_funcs = 2 };
	char note[256], small[24];

	f[0].sym = resolve_one("lib_shadowed", 0, fixture("app_libs"));
	f[1].sym = resolve_one("store::DB::Put", 0, fixture("app_libs"));
	ASSERT_TRUE(trace_lib_note(&t, note, sizeof(note)));
	EXPECT_STREQ(note, "store::DB::Put(int, int) found in libfxl1.so");

	ASSERT_TRUE(trace_lib_note(&t, small, sizeof(small)));
	EXPECT_STREQ(small, "store::DB::Put(int, ...");

	t.nr_funcs = 1;
	EXPECT_FALSE(trace_lib_note(&t, note, sizeof(note)));
}

TEST_HARNESS_MAIN
