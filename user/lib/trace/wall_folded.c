// SPDX-License-Identifier: GPL-2.0
/* The wall-clock profile as folded stacks; see wall_folded.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/wall_folded.h"
#include "trace/wall_path.h"
#include "util/afile.h"
#include "util/array.h"
#include "util/strindex.h"

struct folded {
	struct wall_lines *w;
	struct strindex index;
};

/*
 * @info's name as a frame, ';' made ',' so that it stays one frame, and a
 * control character '?' so that a line stays one line (the names are the
 * target's).
 */
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
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* Add @us to the line of @stack. */
static int folded_add(struct folded *fo, const char *stack, uint64_t us)
{
	struct wall_lines *w = fo->w;
	size_t i = strindex_get(&fo->index, stack, 0);

	if (i != STRINDEX_NONE) {
		w->lines[i].us += us;
		return 0;
	}
	if (ARRAY_RESERVE(w->lines, w->cap, w->nr + 1))
		return -ENOMEM;
	w->lines[w->nr].stack = strdup(stack);
	if (!w->lines[w->nr].stack ||
	    strindex_put(&fo->index, w->lines[w->nr].stack, 0, w->nr)) {
		free(w->lines[w->nr].stack);
		return -ENOMEM;
	}
	w->lines[w->nr++].us = us;
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
		folded_stack(names, st->nr, "[on cpu]", buf, WALL_FOLDED_MAX);
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
	struct wall_names wn;
	char leaf[32];
	int ret = -ENOMEM;
	size_t i, j, n;

	wall_names_init(&wn, sz);
	for (i = 0; i < wp->nr_samples; i++) {
		const struct wallprof_sample *s = &wp->samples[i];

		if (s->off_ns < 1000)
			continue;
		n = wall_path(&wn, s, path, SAMPLER_MAX_FRAMES);
		for (j = 0; j < n; j++)
			frame_name(&path[j], true, names[j], ELF_SYM_NAME_MAX);
		if (!n)
			snprintf(names[n++], ELF_SYM_NAME_MAX, "[unknown]");
		snprintf(leaf, sizeof(leaf), "[off cpu: %s]",
			 wall_kind_names[s->kind]);
		folded_stack(names, n, leaf, buf, WALL_FOLDED_MAX);
		if (folded_add(fo, buf, s->off_ns / 1000))
			goto out;
	}
	ret = 0;
out:
	wall_names_free(&wn);
	return ret;
}

static int line_cmp(const void *a, const void *b)
{
	const struct wall_line *x = a, *y = b;

	return strcmp(x->stack, y->stack);
}

int wall_folded_build(struct wall_lines *out, struct elf_symbolizer *sz,
		      const struct sampler_result *r,
		      const struct wallprof *wp)
{
	char (*names)[ELF_SYM_NAME_MAX] = calloc(SAMPLER_MAX_FRAMES,
						 sizeof(*names));
	struct folded fo = { .w = out };
	char *buf = malloc(WALL_FOLDED_MAX);
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!names || !buf || folded_on_cpu(&fo, sz, r, buf, names) ||
	    (wp && folded_off_cpu(&fo, sz, wp, buf, names)))
		goto out;
	if (out->nr)
		qsort(out->lines, out->nr, sizeof(*out->lines), line_cmp);
	ret = 0;
out:
	strindex_free(&fo.index);
	free(names);
	free(buf);
	return ret;
}

int wall_folded_print(FILE *f, const struct wall_lines *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		if (w->lines[i].us)
			fprintf(f, "%s %llu\n", w->lines[i].stack,
				(unsigned long long)w->lines[i].us);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

int wall_folded_write(const char *path, const struct wall_lines *w,
			char *err, size_t errlen)
{
	struct afile af;
	int ret = afile_open(&af, path);

	if (!ret) {
		ret = wall_folded_print(af.f, w);
		if (ret)
			afile_abort(&af);
		else
			ret = afile_commit(&af);
	}
	if (ret)
		snprintf(err, errlen, "cannot write the wall-clock profile to "
			 "%s (%s): give --wall-folded a writable path", path,
			 strerror(-ret));
	return ret;
}

void wall_lines_free(struct wall_lines *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		free(w->lines[i].stack);
	free(w->lines);
	memset(w, 0, sizeof(*w));
}
