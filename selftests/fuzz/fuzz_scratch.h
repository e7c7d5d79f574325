/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scratch directory of a harness that hands its input to a reader as
 * a file (elf.c, recording.c).  It lives in $TMPDIR (scripts/fuzz.sh and
 * the smoke test make one in /dev/shm, and remove it even after a crash,
 * which skips atexit()), else in /dev/shm: on ext4, a file rewritten from
 * empty is flushed at its close (auto_da_alloc), which made each input
 * cost milliseconds.
 */
#ifndef ISPOT_FUZZ_SCRATCH_H
#define ISPOT_FUZZ_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Make the directory into @dir (@len bytes); aborts if it cannot. */
static inline void fuzz_scratch_dir(char *dir, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp)
		tmp = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	snprintf(dir, len, "%s/ispot-fuzz-XXXXXX", tmp);
	if (!mkdtemp(dir))
		abort();
}

#endif /* ISPOT_FUZZ_SCRATCH_H */
