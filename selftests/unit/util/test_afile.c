// SPDX-License-Identifier: GPL-2.0
/*
 * util/afile.h: a regular file is replaced whole, through a temporary
 * file beside it; anything else at the path (a FIFO, a device such as
 * /dev/null, a symbolic link) is written in place and stays what it was.
 * Renaming over /dev/null once made it a regular file in a guest, and
 * every program that then opened it read what the report wrote.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-afile-XXXXXX"
#include "scratch_dir.h"
#include "util/afile.h"

static int write_hello(FILE *f, void *ctx)
{
	(void)ctx;
	return fputs("hello\n", f) < 0 ? -EIO : 0;
}

static int fail_after_writing(FILE *f, void *ctx)
{
	(void)ctx;
	fputs("half", f);
	return -EIO;
}

static void expect_contents(const char *path, const char *want)
{
	char got[64] = "";
	FILE *f = fopen(path, "r");

	ASSERT_TRUE(f != NULL);
	if (!fgets(got, sizeof(got), f))
		got[0] = '\0';
	fclose(f);
	EXPECT_STREQ(got, want);
}

/* @n files in the directory, none hidden: no temporary one is left. */
static void expect_entries(int n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int seen = 0;

	ASSERT_TRUE(d != NULL);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		EXPECT_TRUE(e->d_name[0] != '.');
		seen++;
	}
	closedir(d);
	EXPECT_EQ(seen, n);
}

TEST(regular_file_replaced_whole_or_kept)
{
	char path[PATH_MAX];
	FILE *f;

	path_in(path, "regular");
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fputs("before\n", f);
	fclose(f);
	EXPECT_FALSE(afile_in_place(path));
	EXPECT_EQ(afile_write(path, fail_after_writing, NULL), -EIO);
	expect_contents(path, "before\n");
	EXPECT_EQ(afile_write(path, write_hello, NULL), 0);
	expect_contents(path, "hello\n");
	expect_entries(1);
	unlink(path);
}

TEST(symlink_is_written_through_and_stays_a_link)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct stat st;
	FILE *f;

	path_in(target, "target");
	path_in(path, "link");
	f = fopen(target, "w");
	ASSERT_TRUE(f != NULL);
	fclose(f);
	ASSERT_EQ(symlink(target, path), 0);
	EXPECT_TRUE(afile_in_place(path));
	EXPECT_EQ(afile_write(path, write_hello, NULL), 0);
	ASSERT_EQ(lstat(path, &st), 0);
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	expect_contents(target, "hello\n");
	expect_entries(2);
	unlink(path);
	unlink(target);
}

/* As /dev/null or a pipe a user gives as --output: it stays one. */
TEST(fifo_is_written_in_place_and_stays_a_fifo)
{
	char path[PATH_MAX], got[16] = "";
	struct stat st;
	int rd;

	path_in(path, "fifo");
	ASSERT_EQ(mkfifo(path, 0600), 0);
	/* Read and write: opening it never waits for the other end. */
	rd = open(path, O_RDWR | O_NONBLOCK);
	ASSERT_TRUE(rd >= 0);
	EXPECT_TRUE(afile_in_place(path));
	EXPECT_EQ(afile_write(path, write_hello, NULL), 0);
	EXPECT_EQ(read(rd, got, sizeof(got) - 1), 6);
	EXPECT_STREQ(got, "hello\n");
	close(rd);
	ASSERT_EQ(lstat(path, &st), 0);
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
	expect_entries(1);
	unlink(path);
}

TEST(a_missing_file_is_made)
{
	char path[PATH_MAX];

	path_in(path, "new");
	EXPECT_FALSE(afile_in_place(path));
	EXPECT_EQ(afile_write(path, write_hello, NULL), 0);
	expect_contents(path, "hello\n");
	expect_entries(1);
	unlink(path);
}

/*
 * Kept after an error worth keeping what was written (a disk that
 * filled): left whole under its temporary name, the old file untouched;
 * written in place, there is no such name.
 */
TEST(kept_under_its_temporary_name)
{
	char path[PATH_MAX];
	struct afile a;
	char *kept;

	path_in(path, "kept");
	ASSERT_EQ(afile_write(path, write_hello, NULL), 0);
	ASSERT_EQ(afile_open(&a, path), 0);
	fputs("partial\n", a.f);
	kept = afile_keep(&a);
	ASSERT_TRUE(kept != NULL);
	EXPECT_TRUE(strstr(kept, "/.kept.") != NULL);
	expect_contents(kept, "partial\n");
	expect_contents(path, "hello\n");
	EXPECT_TRUE(a.f == NULL);
	unlink(kept);
	free(kept);
	unlink(path);
	ASSERT_EQ(afile_open(&a, "/dev/null"), 0);
	EXPECT_TRUE(afile_keep(&a) == NULL);
}

TEST_HARNESS_MAIN
