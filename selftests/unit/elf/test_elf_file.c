// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/elf/elf_file.c: files that are not ELF, truncated
 * or corrupt, and what is not a file at all.
 */
#include <elf.h>

#include "elf_fixtures.h"

TEST(not_elf_file)
{
	char tmp[] = "/tmp/test_elf_empty.XXXXXX";
	const char *err;
	int fd;

	err = resolve_fail("main", 0, fixture("app.c"), -ENOEXEC);
	EXPECT_TRUE(strstr(err, "not an ELF file"));

	fd = mkstemp(tmp);
	ASSERT_GE(fd, 0);
	close(fd);
	err = resolve_fail("main", 0, tmp, -ENOEXEC);
	EXPECT_TRUE(strstr(err, "not an ELF file"));
	unlink(tmp);
}

TEST(truncated_elf_file)
{
	const char *err = resolve_fail("main", 0, fixture("truncated.elf"),
				       -ENOEXEC);

	EXPECT_TRUE(strstr(err, "truncated"));
}

TEST(truncation_sweep)
{
	char tmp[] = "/tmp/test_elf_trunc.XXXXXX";
	struct elf_target_sym *t;
	char err[ERRLEN];
	size_t len, cut, n;
	char *buf = slurp(fixture("app_pie"), &len);
	int fd = mkstemp(tmp);

	ASSERT_GE(fd, 0);
	close(fd);
	/* Section headers sit at the end: every cut must be refused. */
	for (cut = 0; cut < len; cut += cut < 256 ? 1 : 97) {
		spit(tmp, buf, cut);
		ASSERT_NE(elf_resolve_file(tmp, "compute", &t, &n, err,
					   sizeof(err)), 0);
		ASSERT_TRUE(t == NULL);
	}
	spit(tmp, buf, len);
	ASSERT_EQ(elf_resolve_file(tmp, "compute", &t, &n, err, sizeof(err)),
		  0);
	free(t);
	unlink(tmp);
	free(buf);
}

/*
 * Corrupt headers, section headers and random bytes of real files and make
 * sure nothing crashes (a crash fails the forked test; valgrind catches
 * reads out of bounds).  Results themselves may be anything.  One byte is
 * patched in place at a time, then restored.
 */
TEST(corruption_fuzz)
{
	static const unsigned char vals[] = { 0x00, 0xff, 0x7f, 0x80 };
	static const char *const files[] = { "libfx.so", "libfxver.so" };
	char dir[] = "/tmp/test_elf_fuzz.XXXXXX";
	char path[sizeof(dir) + 16], out[PATH_MAX], err[ERRLEN];
	struct elf_target_sym *t;
	uint32_t seed = 12345;
	size_t f, len, i, n, v;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/app", dir);
	for (f = 0; f < 2; f++) {
		char *orig = slurp(fixture(files[f]), &len);
		Elf64_Ehdr *eh = (Elf64_Ehdr *)orig;
		size_t shtab = eh->e_shoff, shlen = eh->e_shnum * 64;
		size_t phlen = eh->e_phnum * sizeof(Elf64_Phdr);
		int fd;

		ASSERT_LE(shtab + shlen, len);
		spit(path, orig, len);
		fd = open(path, O_WRONLY);
		ASSERT_GE(fd, 0);
		for (i = 0; i < 64 + phlen + shlen + 1000; i++) {
			size_t at;

			if (i < 64 + phlen) {
				at = i;	/* ELF and program headers */
			} else if (i < 64 + phlen + shlen) {
				at = shtab + i - 64 - phlen;
			} else {
				seed = seed * 1103515245 + 12345;
				at = (seed >> 8) % len;
			}
			for (v = 0; v < sizeof(vals); v++) {
				ASSERT_EQ(pwrite(fd, &vals[v], 1, at), 1);
				if (!elf_resolve_file(path, "*", &t, &n, err,
						      sizeof(err)))
					free(t);
				/* The DT_NEEDED walk reads PT_DYNAMIC. */
				if (i < 64 + phlen || !(i % 8))
					elf_find_needed(path, "libnope", out,
							sizeof(out), err,
							sizeof(err));
			}
			ASSERT_EQ(pwrite(fd, orig + at, 1, at), 1);
		}
		close(fd);
		free(orig);
	}
	unlink(path);
	rmdir(dir);
}

TEST(directory_and_missing_file)
{
	const char *err;

	err = resolve_fail("main", 0, fixture(""), -EISDIR);
	EXPECT_TRUE(strstr(err, "is a directory"));
	err = resolve_fail("main", 0, "/nonexistent/app", -ENOENT);
	EXPECT_TRUE(strstr(err, "cannot open"));
}

/*
 * A FIFO, or a device, named as the program: refused by what it is, at
 * once, rather than waited on (a FIFO's open() blocks until a writer
 * comes) or read.
 */
TEST(fifo_and_device_refused)
{
	char dir[] = "/tmp/test_elf_fifo.XXXXXX";
	char fifo[sizeof(dir) + 16], msg[sizeof(fifo) + 64];
	const char *err;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/app", dir);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	alarm(10);	/* a hang fails the test */
	err = resolve_fail("main", 0, fifo, -ENOEXEC);
	snprintf(msg, sizeof(msg), "%s is a FIFO, not an ELF file", fifo);
	EXPECT_STREQ(err, msg);
	err = resolve_fail("main", 0, "/dev/zero", -ENOEXEC);
	EXPECT_STREQ(err, "/dev/zero is a character device, not an ELF file");
	alarm(0);
	unlink(fifo);
	rmdir(dir);
}

TEST_HARNESS_MAIN
