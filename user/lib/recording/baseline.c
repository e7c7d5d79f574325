// SPDX-License-Identifier: GPL-2.0
/* --baseline FILE: another recording's solo calls; see baseline.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sci.h"
#include "recording/baseline.h"
#include "util/path.h"

void baseline_free(struct baseline *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nr_blocks; i++) {
		free(b->blocks[i].name);
		free(b->blocks[i].obj);
	}
	free(b->blocks);
	free(b);
}

/*
 * Shadow blocks (--key auto's, above the functions' ids) are not taken:
 * an auto function takes no baseline (baseline.h).
 */
static int baseline_add(struct baseline *b, const struct trace_func *funcs,
			size_t nr_funcs, const struct sci_block_min *m)
{
	struct baseline_block *bb = &b->blocks[b->nr_blocks];
	const struct trace_func *f;

	if (m->func_id >= nr_funcs || !m->solo.solo)
		return 0;
	f = &funcs[m->func_id];
	bb->name = strdup(f->sym.name);
	bb->obj = strdup(path_base(f->sym.obj));
	bb->offset = f->sym.offset;
	bb->rule = f->key;
	bb->key = m->key;
	bb->solo = m->solo;
	b->nr_blocks++;
	return bb->name && bb->obj ? 0 : -ENOMEM;
}

struct baseline *baseline_take(const char *path,
			       const struct trace_func *funcs,
			       size_t nr_funcs, const struct sci_engine *sci)
{
	size_t n = sci_nr_blocks(sci), i;
	struct sci_block_min *m = calloc(n + 1, sizeof(*m));
	struct baseline *b = calloc(1, sizeof(*b));
	int ret = -ENOMEM;

	if (b)
		b->blocks = calloc(n + 1, sizeof(*b->blocks));
	if (m && b && b->blocks) {
		b->path = path;
		sci_minima(sci, m);
		for (ret = 0, i = 0; !ret && i < n; i++)
			ret = baseline_add(b, funcs, nr_funcs, &m[i]);
	}
	free(m);
	if (ret) {
		baseline_free(b);
		return NULL;
	}
	return b;
}

/* The same function, keyed the same way (a key value means nothing else). */
static bool baseline_block_of(const struct baseline_block *bb,
			      const struct trace_func *f)
{
	return f->key.kind != KEY_AUTO && bb->rule.kind != KEY_AUTO &&
	       bb->rule.kind == f->key.kind &&
	       (f->key.kind != KEY_ARG || (bb->rule.arg == f->key.arg &&
					   bb->rule.log2 == f->key.log2)) &&
	       !strcmp(bb->name, f->sym.name) &&
	       !strcmp(bb->obj, path_base(f->sym.obj));
}

size_t baseline_matches(const struct baseline *b,
			const struct trace_func *funcs, size_t nr_funcs,
			size_t *other_build)
{
	size_t n = 0, other = 0, i, j;

	for (i = 0; i < nr_funcs; i++) {
		for (j = 0; j < b->nr_blocks; j++) {
			if (baseline_block_of(&b->blocks[j], &funcs[i])) {
				n++;
				other += b->blocks[j].offset !=
					 funcs[i].sym.offset;
				break;
			}
		}
	}
	if (other_build)
		*other_build = other;
	return n;
}

int baseline_seed(const struct baseline *b, const struct trace_func *funcs,
		  size_t nr_funcs, struct sci_engine *sci)
{
	struct sci_block_min m;
	size_t i, j;

	for (i = 0; i < nr_funcs; i++) {
		for (j = 0; j < b->nr_blocks; j++) {
			const struct baseline_block *bb = &b->blocks[j];

			if (!baseline_block_of(bb, &funcs[i]))
				continue;
			/* Evidence for the reference only: no minimum. */
			memset(&m, 0, sizeof(m));
			m.func_id = (uint32_t)i;
			m.key = bb->key;
			m.min = UINT64_MAX;
			m.ref_dur = UINT64_MAX;
			m.solo = bb->solo;
			if (sci_seed(sci, &m))
				return -ENOMEM;
		}
	}
	return 0;
}
