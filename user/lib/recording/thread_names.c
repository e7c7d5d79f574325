// SPDX-License-Identifier: GPL-2.0
/* A session's thread names, tid -> comm; see thread_names.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "recording/thread_names.h"
#include "util/array.h"

int thread_names_set(struct thread_names *tn, uint32_t tid,
		     const char *name)
{
	struct hashmap_entry *e = hashmap_entry_of(&tn->idx, tid);
	struct thread_name *t;

	if (!e) {
		if (tn->n >= THREAD_NAMES_MAX)
			return -ENOSPC;
		if (ARRAY_RESERVE(tn->v, tn->cap, tn->n + 1) ||
		    hashmap_insert(&tn->idx, tid, tn->n))
			return -ENOMEM;
		t = &tn->v[tn->n++];
		t->tid = tid;
	} else {
		t = &tn->v[e->value];
	}
	snprintf(t->name, sizeof(t->name), "%s", name);
	return 0;
}

const char *thread_names_get(const struct thread_names *tn, uint32_t tid)
{
	uint64_t i;

	return hashmap_find(&tn->idx, tid, &i) ? tn->v[i].name : NULL;
}

void thread_names_free(struct thread_names *tn)
{
	hashmap_free(&tn->idx);
	free(tn->v);
	tn->v = NULL;
	tn->n = tn->cap = 0;
}
