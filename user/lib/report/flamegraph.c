// SPDX-License-Identifier: GPL-2.0
/* Folded stacks merged into a flame graph's tree; see flamegraph.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "report/flamegraph.h"

/* A new node @name (its first @len bytes) called from @parent. */
static int flame_node_new(struct flame *fg, const char *name, size_t len,
			  size_t parent, size_t *out)
{
	struct flame_node *n;

	if (ARRAY_RESERVE(fg->nodes, fg->cap, fg->nr + 1))
		return -ENOMEM;
	n = &fg->nodes[fg->nr];
	memset(n, 0, sizeof(*n));
	n->name = strndup(name, len);
	if (!n->name)
		return -ENOMEM;
	n->parent = parent;
	n->depth = fg->nodes[parent].depth + 1;
	if (strindex_put(&fg->callee, n->name, (int64_t)parent, fg->nr)) {
		free(n->name);
		return -ENOMEM;
	}
	*out = fg->nr++;
	return 0;
}

int flame_init(struct flame *fg)
{
	memset(fg, 0, sizeof(*fg));
	/* Not indexed: a frame named "all" is not the root. */
	if (ARRAY_RESERVE(fg->nodes, fg->cap, 1))
		return -ENOMEM;
	fg->nodes[0].name = strdup("all");
	if (!fg->nodes[0].name)
		return -ENOMEM;
	fg->nr = 1;
	return 0;
}

void flame_free(struct flame *fg)
{
	size_t i;

	for (i = 0; i < fg->nr; i++)
		free(fg->nodes[i].name);
	free(fg->nodes);
	strindex_free(&fg->callee);
	memset(fg, 0, sizeof(*fg));
}

/*
 * The callee @name (its first @len bytes) of @parent, made if need be;
 * STRINDEX_NONE, with no error, when a bound stops the stack here.
 */
static int flame_callee(struct flame *fg, size_t parent, const char *name,
			size_t len, size_t *out)
{
	char key[FLAME_NAME_MAX + 1];

	if (len > FLAME_NAME_MAX)
		len = FLAME_NAME_MAX;
	memcpy(key, name, len);
	key[len] = '\0';
	*out = strindex_get(&fg->callee, key, (int64_t)parent);
	if (*out != STRINDEX_NONE)
		return 0;
	if (fg->nodes[parent].depth >= FLAME_MAX_DEPTH ||
	    fg->nr >= FLAME_MAX_NODES)
		return 0;
	return flame_node_new(fg, key, len, parent, out);
}

static void flame_weigh(struct flame_node *n, uint64_t weight, bool off)
{
	n->weight += weight;
	if (off)
		n->off += weight;
}

int flame_add(struct flame *fg, const char *stack, uint64_t weight,
	      bool off)
{
	size_t at = 0, next, len;
	const char *end;
	int ret;

	if (!weight)
		return 0;
	/* A total past 2^64 would draw nonsense: the line is refused. */
	if (fg->nodes[0].weight + weight < weight) {
		fg->bad_lines++;
		return 0;
	}
	flame_weigh(&fg->nodes[0], weight, off);
	for (; *stack; stack = *end ? end + 1 : end) {
		end = strchrnul(stack, ';');
		len = (size_t)(end - stack);
		if (!len)
			continue;
		ret = flame_callee(fg, at, stack, len, &next);
		if (ret)
			return ret;
		if (next == STRINDEX_NONE) {
			/* The rest of the stack stays in @at's own weight. */
			fg->cut_lines++;
			return 0;
		}
		at = next;
		flame_weigh(&fg->nodes[at], weight, off);
	}
	return 0;
}

/* The weight after a line's last blank: digits only, and no overflow. */
static bool folded_weight(const char *s, const char *end, uint64_t *w)
{
	uint64_t v = 0;

	if (s == end)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*w = v;
	return true;
}

/* Whether the stack [@s, @end) ends in an off-CPU frame. */
static bool folded_off(const char *s, const char *end)
{
	const char *leaf = end;

	while (leaf > s && leaf[-1] != ';')
		leaf--;
	return (size_t)(end - leaf) >= strlen(FLAME_OFF_CPU) &&
	       !strncmp(leaf, FLAME_OFF_CPU, strlen(FLAME_OFF_CPU));
}

int flame_add_folded(struct flame *fg, const char *text)
{
	const char *line, *end, *blank;
	char *stack;
	uint64_t w;
	int ret;

	for (line = text; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		blank = end;
		while (blank > line && blank[-1] != ' ')
			blank--;
		if (blank - 1 <= line || !folded_weight(blank, end, &w)) {
			fg->bad_lines += end > line;
			continue;
		}
		/* The stack may hold blanks ("operator new"): not the last. */
		stack = strndup(line, (size_t)(blank - 1 - line));
		if (!stack)
			return -ENOMEM;
		ret = flame_add(fg, stack, w, folded_off(line, blank - 1));
		free(stack);
		if (ret)
			return ret;
	}
	return 0;
}

int flame_draw_folded(FILE *f, flame_fold_fn *fold, const void *ctx,
		      const struct flame_style *st)
{
	struct flame fg = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int ret = m ? fold(m, ctx) : -ENOMEM;

	if (m && fclose(m) && !ret)
		ret = -ENOMEM;
	if (!ret)
		ret = flame_init(&fg);
	if (!ret) {
		ret = flame_add_folded(&fg, text);
		if (!ret && !fg.nodes[0].weight)
			ret = 1;
		if (!ret)
			ret = flame_svg(f, &fg, st);
	}
	flame_free(&fg);
	free(text);
	return ret;
}
