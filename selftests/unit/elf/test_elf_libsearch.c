// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/elf/elf_libsearch.c, elf_dso.c and elf_ldcache.c:
 * the DT_NEEDED closure searched as ld.so does.
 */
#include "elf_fixtures.h"

TEST(find_needed)
{
	const char *app = fixture("app_pie");
	char out[PATH_MAX], err[ERRLEN];

	unsetenv("LD_LIBRARY_PATH");
	/* The same libc this (dynamically linked) test process runs on. */
	ASSERT_EQ(elf_find_needed(app, "libc", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, mapped_libc());
	ASSERT_EQ(elf_find_needed(app, "libc.so.6", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, mapped_libc());

	/* Through DT_RUNPATH $ORIGIN. */
	ASSERT_EQ(elf_find_needed(app, "libfx", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, canon(fixture("libfx.so")));

	/* Only libfx.so needs it. */
	ASSERT_EQ(elf_find_needed(app, "libfxdep", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, canon(fixture("libfxdep.so")));

	/* The program interpreter. */
	ASSERT_EQ(elf_find_needed(app, "ld-linux-x86-64", out, sizeof(out),
				  err, sizeof(err)), 0);
	EXPECT_TRUE(strstr(out, "ld-linux-x86-64.so"));

	EXPECT_EQ(elf_find_needed(app, "libnope", out, sizeof(out), err,
				  sizeof(err)), -ENOENT);
	EXPECT_TRUE(strstr(err, "libnope"));
	EXPECT_EQ(elf_find_needed(fixture("app.c"), "libc", out, sizeof(out),
				  err, sizeof(err)), -ENOEXEC);
}

TEST(find_needed_ld_library_path_order)
{
	char dir[] = "/tmp/test_elf_llp.XXXXXX";
	char copy[sizeof(dir) + 32], out[PATH_MAX], err[ERRLEN];
	const char *app = fixture("app_pie");
	size_t len;
	char *buf = slurp(fixture("libfxdep.so"), &len);

	/* LD_LIBRARY_PATH goes before libfx.so's DT_RUNPATH. */
	ASSERT_TRUE(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/libfxdep.so", dir);
	spit(copy, buf, len);
	setenv("LD_LIBRARY_PATH", dir, 1);
	ASSERT_EQ(elf_find_needed(app, "libfxdep", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, canon(copy));

	/* A non-ELF file of that name is passed over, as ld.so does. */
	spit(copy, "junk", 4);
	ASSERT_EQ(elf_find_needed(app, "libfxdep", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, canon(fixture("libfxdep.so")));
	unlink(copy);
	rmdir(dir);
	free(buf);
}

/*
 * ispotd resolves as root the libraries a user's program names: a FIFO in
 * the search path (which open() would wait on for a writer) is passed over
 * like any other file that is no library, and the search goes on.
 */
TEST(find_needed_passes_over_a_fifo)
{
	char dir[] = "/tmp/test_elf_fifo.XXXXXX";
	char fifo[sizeof(dir) + 32], out[PATH_MAX], err[ERRLEN];

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/libfxdep.so", dir);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	setenv("LD_LIBRARY_PATH", dir, 1);
	alarm(10);	/* a hang fails the test */
	ASSERT_EQ(elf_find_needed(fixture("app_pie"), "libfxdep", out,
				  sizeof(out), err, sizeof(err)), 0);
	alarm(0);
	EXPECT_STREQ(out, canon(fixture("libfxdep.so")));
	unlink(fifo);
	rmdir(dir);
}

TEST_HARNESS_MAIN
