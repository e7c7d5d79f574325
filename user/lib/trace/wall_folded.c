// SPDX-License-Identifier: GPL-2.0
/* The wall-clock profile as folded stacks; see wall_folded.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/wall_folded.h"
#include "trace/wall_path.h"
#include "util/array.h"
#include "util/strindex.h"

/* A folded line's stack, as built: frames are appended outermost last. */
#define FOLDED_MAX	8192

struct folded_line {
	char *stack;
	uint64_t us;
};

struct folded {
	struct folded_line *lines;
	size_t nr, cap;
	struct strindex index;
};

/* @info's name as a frame, ';' made ',' so that it stays one frame. */
static void frame_name(const struct elf_addr_info *info, bool named,
		       char *buf, size_t len)
{
	const char *base = strrchr(info->obj, '/');
	char *p;

	base = base ? base + 1 : info->obj;
	if (!named)
		snprintf(buf, len, "[unknown]");
	else if (info->kind == ELF_ADDR_SYMBOL)
		snprintf(buf, len, "%s", info->sym);
	else
		snprintf(buf, len, "%.200s+0x%llx", base,
			 (unsigned long long)info->vaddr);
	for (p = buf; *p; p++)
		if (*p == ';')
			*p = ',';
}

/* Add @us to the line of @stack. */
static int folded_add(struct folded *fo, const char *stack, uint64_t us)
{
	size_t i = strindex_get(&fo->index, stack, 0);

	if (i != STRINDEX_NONE) {
		fo->lines[i].us += us;
		return 0;
	}
	if (ARRAY_RESERVE(fo->lines, fo->cap, fo->nr + 1))
		return -ENOMEM;
	fo->lines[fo->nr].stack = strdup(stack);
	if (!fo->lines[fo->nr].stack ||
	    strindex_put(&fo->index, fo->lines[fo->nr].stack, 0, fo->nr)) {
		free(fo->lines[fo->nr].stack);
		return -ENOMEM;
	}
	fo->lines[fo->nr++].us = us;
	return 0;
}

/*
 * The folded stack of @names[0..@n) (innermost first) ending in @leaf,
 * into @buf: outermost first.
 */
static void folded_stack(char (*names)[ELF_SYM_NAME_MAX], size_t n,
			 const char *leaf, char *buf, size_t len)
{
	size_t off = 0, i;

	buf[0] = 0;
	for (i = n; i-- > 0 && off < len;)
		off += snprintf(buf + off, len - off, "%s;", names[i]);
	if (off < len)
		snprintf(buf + off, len - off, "%s", leaf);
}

static int folded_on_cpu(struct folded *fo, struct elf_symbolizer *sz,
			 const struct sampler_result *r, char *buf,
			 char (*names)[ELF_SYM_NAME_MAX])
{
	struct elf_addr_info info;
	size_t i, j;

	for (i = 0; i < r->nr_stacks; i++) {
		const struct sampler_stack *st = &r->stacks[i];

		for (j = 0; j < st->nr; j++) {
			/* Return addresses are looked up in their call. */
			uint64_t a = j && st->frames[j] ? st->frames[j] - 1 :
				     st->frames[j];

			frame_name(&info, !elf_symbolize(sz, a, &info, NULL,
							 0),
				   names[j], ELF_SYM_NAME_MAX);
		}
		folded_stack(names, st->nr, "[on cpu]", buf, FOLDED_MAX);
		if (folded_add(fo, buf, st->count * SAMPLER_PERIOD_NS / 1000))
			return -ENOMEM;
	}
	return 0;
}

static int folded_off_cpu(struct folded *fo, struct elf_symbolizer *sz,
			  const struct wallprof *wp, char *buf,
			  char (*names)[ELF_SYM_NAME_MAX])
{
	struct elf_addr_info path[SAMPLER_MAX_FRAMES];
	char leaf[32];
	size_t i, j, n;

	for (i = 0; i < wp->nr_samples; i++) {
		const struct wallprof_sample *s = &wp->samples[i];

		if (s->off_ns < 1000)
			continue;
		n = wall_path(sz, s, path, SAMPLER_MAX_FRAMES);
		for (j = 0; j < n; j++)
			frame_name(&path[j], true, names[j], ELF_SYM_NAME_MAX);
		if (!n)
			snprintf(names[n++], ELF_SYM_NAME_MAX, "[unknown]");
		snprintf(leaf, sizeof(leaf), "[off cpu: %s]",
			 wall_kind_names[s->kind]);
		folded_stack(names, n, leaf, buf, FOLDED_MAX);
		if (folded_add(fo, buf, s->off_ns / 1000))
			return -ENOMEM;
	}
	return 0;
}

static int line_cmp(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;

	return strcmp(x->stack, y->stack);
}

int wall_folded_write(FILE *f, struct elf_symbolizer *sz,
		      const struct sampler_result *r,
		      const struct wallprof *wp)
{
	char (*names)[ELF_SYM_NAME_MAX] = calloc(SAMPLER_MAX_FRAMES,
						 sizeof(*names));
	struct folded fo = { 0 };
	char *buf = malloc(FOLDED_MAX);
	int ret = -ENOMEM;
	size_t i;

	if (!names || !buf || folded_on_cpu(&fo, sz, r, buf, names) ||
	    (wp && folded_off_cpu(&fo, sz, wp, buf, names)))
		goto out;
	if (fo.nr)
		qsort(fo.lines, fo.nr, sizeof(*fo.lines), line_cmp);
	for (i = 0; i < fo.nr; i++)
		if (fo.lines[i].us)
			fprintf(f, "%s %llu\n", fo.lines[i].stack,
				(unsigned long long)fo.lines[i].us);
	ret = fflush(f) || ferror(f) ? -EIO : 0;
out:
	for (i = 0; i < fo.nr; i++)
		free(fo.lines[i].stack);
	free(fo.lines);
	strindex_free(&fo.index);
	free(names);
	free(buf);
	return ret;
}
