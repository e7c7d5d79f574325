/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scene run as nobody (uid 65534) in a child, when the test is root:
 * a reader that passes no file modes and opens no map_files entry, for
 * the tests of what such a reader may take (test_autopick_maps.c,
 * test_elf_kept.c).  Include after scratch_dir.h: the scratch directory
 * is opened to nobody (0711) and the scene's files given to it.
 */
#ifndef ISPOT_TEST_AS_NOBODY_H
#define ISPOT_TEST_AS_NOBODY_H

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ispot_test.h"

#define NOBODY	65534

/*
 * @paths[0..@n) (directories first, then files) given to nobody, and the
 * scratch directory opened to it, when this is root; the test skipped
 * in a user namespace that maps no uid 65534.
 */
static inline void give_to_nobody(const char *const *paths, size_t n)
{
	size_t i;
	int rc;

	if (geteuid())
		return;
	rc = chown(paths[0], NOBODY, NOBODY);
	if (rc && errno == EINVAL)
		SKIP("no uid %d to be in this user namespace", NOBODY);
	ASSERT_EQ(rc, 0);
	ASSERT_EQ(chmod(dir, 0711), 0);
	for (i = 1; i < n; i++)
		ASSERT_EQ(chown(paths[i], NOBODY, NOBODY), 0);
}

/*
 * @scene(@ctx) in a child, as nobody when this is root: its exit status,
 * @broken where the child could not become nobody; a SKIP in the scene
 * skips the test, and an ASSERT or EXPECT that failed there fails it.
 * The child asks elf_reads_past_user() only once it is nobody, whose
 * answer a process works out once: the test's process must not have
 * asked before.  A scene's status is not 0 to 4, which the harness's
 * ends take.
 */
static inline int as_nobody(int (*scene)(void *ctx), void *ctx, int broken)
{
	bool root = !geteuid();
	int status, end;
	pid_t pid;

	/* Nothing buffered is written twice, by the child too. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (root && (setgroups(0, NULL) ||
			     setresgid(NOBODY, NOBODY, NOBODY) ||
			     setresuid(NOBODY, NOBODY, NOBODY)))
			_exit(broken);
		/* The scene's own EXPECTs, not the test's before it. */
		ispot_test_failed = 0;
		end = scene(ctx);
		fflush(stdout);
		_exit(ispot_test_failed ? KSFT_FAIL : end);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == KSFT_SKIP)
		SKIP("the scene run as nobody skipped (above)");
	/* The scene's own failure, said above. */
	ASSERT_NE(WEXITSTATUS(status), KSFT_FAIL);
	return WEXITSTATUS(status);
}

#endif /* ISPOT_TEST_AS_NOBODY_H */
