// SPDX-License-Identifier: GPL-2.0
/* --baseline FILE: another recording's solo calls; see baseline.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/sci.h"
#include "recording/baseline.h"
#include "trace/trace.h"
#include "trace/trace_internal.h"
#include "util/errors.h"

static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

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
 * The blocks of @t's engine with solo calls, under their function's
 * name.  Shadow blocks (--key auto's, above the functions' ids) are not
 * taken: an auto function takes no baseline (baseline.h).
 */
static int baseline_take(struct baseline *b, const struct trace *t)
{
	size_t n = sci_nr_blocks(t->pipe->sci), i;
	struct sci_block_min *m = calloc(n + 1, sizeof(*m));

	b->blocks = calloc(n + 1, sizeof(*b->blocks));
	if (!m || !b->blocks) {
		free(m);
		return -ENOMEM;
	}
	sci_minima(t->pipe->sci, m);
	for (i = 0; i < n; i++) {
		struct baseline_block *bb = &b->blocks[b->nr_blocks];
		const struct trace_func *f;

		if (m[i].func_id >= t->nr_funcs || !m[i].solo.solo)
			continue;
		f = &t->funcs[m[i].func_id];
		bb->name = strdup(f->sym.name);
		bb->obj = strdup(file_name(f->sym.obj));
		bb->offset = f->sym.offset;
		bb->rule = f->key;
		bb->key = m[i].key;
		bb->solo = m[i].solo;
		b->nr_blocks++;
		if (!bb->name || !bb->obj) {
			free(m);
			return -ENOMEM;
		}
	}
	free(m);
	return 0;
}

struct baseline *baseline_load(const struct trace_opts *ro)
{
	struct baseline *b = calloc(1, sizeof(*b));
	struct trace_opts o = *ro;
	struct trace t;
	int ret;

	if (!b) {
		ispot_error("out of memory reading --baseline %s",
			    ro->baseline);
		return NULL;
	}
	b->path = ro->baseline;
	/* Its report's figures only: no file is written, none re-read. */
	o.recording = ro->baseline;
	o.baseline = NULL;
	o.output = o.folded = o.perfetto = o.svg = o.html = NULL;
	ret = trace_replay_engine(&o, &t);
	if (!ret && baseline_take(b, &t)) {
		ispot_error("out of memory reading --baseline %s",
			    ro->baseline);
		ret = -1;
	}
	trace_free(&t);
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
	       !strcmp(bb->obj, file_name(f->sym.obj));
}

size_t baseline_matches(const struct baseline *b, const struct trace *t,
			size_t *other_build)
{
	size_t n = 0, other = 0, i, j;

	for (i = 0; i < t->nr_funcs; i++) {
		for (j = 0; j < b->nr_blocks; j++) {
			if (baseline_block_of(&b->blocks[j], &t->funcs[i])) {
				n++;
				other += b->blocks[j].offset !=
					 t->funcs[i].sym.offset;
				break;
			}
		}
	}
	if (other_build)
		*other_build = other;
	return n;
}

int baseline_seed(const struct baseline *b, struct trace *t)
{
	struct sci_block_min m;
	size_t i, j;

	for (i = 0; i < t->nr_funcs; i++) {
		for (j = 0; j < b->nr_blocks; j++) {
			const struct baseline_block *bb = &b->blocks[j];

			if (!baseline_block_of(bb, &t->funcs[i]))
				continue;
			/* Evidence for the reference only: no minimum. */
			memset(&m, 0, sizeof(m));
			m.func_id = (uint32_t)i;
			m.key = bb->key;
			m.min = UINT64_MAX;
			m.ref_dur = UINT64_MAX;
			m.solo = bb->solo;
			if (sci_seed(t->pipe->sci, &m))
				return -ENOMEM;
		}
	}
	return 0;
}

/* Whether paths @a and @b (either may be NULL) name one existing file. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && !stat(a, &sa) && !stat(b, &sb) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int trace_load_baseline(struct trace *t)
{
	const struct trace_opts *o = t->opts;

	if (!o->baseline)
		return 0;
	/* Its solo calls would count twice; record -o would replace it. */
	if (same_file(o->baseline, o->recording) ||
	    same_file(o->baseline, o->record)) {
		ispot_error("--baseline %s is the recording this command %s: "
			    "give a recording of another run", o->baseline,
			    o->recording ? "reports" : "writes");
		return -1;
	}
	t->baseline = baseline_load(t->opts);
	return t->baseline ? 0 : -1;
}
