/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of a session's threads (their comm), tid -> name: read live
 * as each thread is first seen, then the one its exit record gives (ABI
 * 1.10), kept in a recording's THREADS table
 * (format 4.1, Documentation/recording.rst), so that a replay's Perfetto
 * tracks are named as the live ones were.  A tid that names a second
 * thread later (reused) keeps the later name.
 */
#ifndef ISPOT_THREAD_NAMES_H
#define ISPOT_THREAD_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/drain.h"
#include "util/hashmap.h"

/* A comm, as a TASK_EXIT record gives it. */
#define THREAD_NAME_LEN		RECORD_COMM_LEN
/* More threads than this keep no name: a bound on a hostile file too. */
#define THREAD_NAMES_MAX	(1u << 20)

struct thread_name {
	uint32_t tid;
	char name[THREAD_NAME_LEN];
};

struct thread_names {
	struct hashmap idx;		/* tid -> index in v */
	struct thread_name *v;
	size_t n, cap;
};

/*
 * @tid's name is @name (cut to THREAD_NAME_LEN - 1 bytes): 0, or -ENOMEM
 * (or -ENOSPC past THREAD_NAMES_MAX) and nothing kept.
 */
int thread_names_set(struct thread_names *tn, uint32_t tid,
		     const char *name);
/* @tid's name, or NULL if none is known. */
const char *thread_names_get(const struct thread_names *tn, uint32_t tid);
void thread_names_free(struct thread_names *tn);

#endif /* ISPOT_THREAD_NAMES_H */
