/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the code under test writes on stderr, captured in a file between
 * capture_begin() and capture_end() and left in captured[], for tests of
 * one-line errors.  Include after ispot_test.h.
 */
#ifndef ISPOT_STDERR_CAPTURE_H
#define ISPOT_STDERR_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static char captured[1 << 16];
static FILE *capture_file;
static int capture_saved_fd = -1;

static inline void capture_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	ASSERT_TRUE(capture_file);
	capture_saved_fd = dup(2);
	ASSERT_GE(capture_saved_fd, 0);
	ASSERT_GE(dup2(fileno(capture_file), 2), 0);
}

static inline void capture_end(void)
{
	size_t n;

	fflush(stderr);
	ASSERT_GE(dup2(capture_saved_fd, 2), 0);
	close(capture_saved_fd);
	rewind(capture_file);
	n = fread(captured, 1, sizeof(captured) - 1, capture_file);
	captured[n] = '\0';
	fclose(capture_file);
}

#endif /* ISPOT_STDERR_CAPTURE_H */
