// SPDX-License-Identifier: GPL-2.0
/*
 * Where a function is called from: the "CALLED FROM" block of the table,
 * the "stacks" member of JSON, and --folded's lines for flame graphs,
 * from the sampled stacks (stacks.h).
 *
 * Frames are named here, at report time, never while tracing.  The table
 * names them without offsets and folds the paths (stacks.h,
 * stacks_common_outer()), so two paths that differ only in the call
 * instruction of an outer function read as one line and their calls add
 * up; JSON keeps every distinct path whole, with offsets.
 *
 * Loss share: when the function is keyed by call site, each key's loss is
 * that of one call instruction, which is a path's innermost frame.  A call
 * site reached by several paths splits its loss between them in
 * proportion to their sampled calls.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "report/report.h"

#define FRAME_LEN	128
#define CUT_LEN		(FRAME_LEN + 40)
#define LINE_LEN	(REPORT_TEXT_FRAMES * (FRAME_LEN + 3) + 8 + CUT_LEN)

struct stack_line {
	char text[LINE_LEN];
	uint64_t calls;
	double loss_ns;
};

static void frame_label(const struct report *r, uint64_t addr, bool offset,
			char *buf, size_t len)
{
	if (!r->frame_name ||
	    r->frame_name(r->frame_ctx, addr, offset, buf, len) < 0)
		snprintf(buf, len, "0x%" PRIx64, addr);
}

/*
 * The object a cut path's walk ended in: its last frame's, the code that
 * kept no frame pointer (stacks.h).
 */
static void cut_object(const struct report *r, const struct stack_path *p,
		       char *buf, size_t len)
{
	if (!p->nr_frames || !r->frame_object ||
	    r->frame_object(r->frame_ctx, p->frames[p->nr_frames - 1], false,
			    buf, len) < 0)
		snprintf(buf, len, "?");
}

static bool keyed_by_callsite(const struct report *r, uint32_t func_id)
{
	return r->funcs && func_id < r->nr_funcs && r->funcs[func_id].key &&
	       !strcmp(r->funcs[func_id].key, "callsite");
}

/* The loss of call site @addr's key block, 0 if it has none. */
static uint64_t callsite_loss(const struct report *r, uint32_t func_id,
			      uint64_t addr)
{
	size_t i;

	for (i = 0; r->sci && i < r->sci->nr_blocks; i++) {
		const struct sci_result *b = &r->sci->blocks[i];

		if (b->func_id == func_id && b->key == addr)
			return b->loss_ns;
	}
	return 0;
}

/* Path @i's part of its call site's loss (see the header comment). */
static double path_loss(const struct report *r, const struct stack_func *sf,
			uint32_t func_id, uint32_t i)
{
	uint64_t site = sf->paths[i].frames[0], calls = 0;
	uint32_t k;

	for (k = 0; k < sf->nr_paths; k++)
		if (sf->paths[k].frames[0] == site)
			calls += sf->paths[k].calls;
	return (double)callsite_loss(r, func_id, site) *
	       (double)sf->paths[i].calls / (double)calls;
}

/*
 * Name every frame of every path, fold, and merge the paths that read the
 * same.  Returns the number of lines in @lines (sorted by calls), or -1
 * if memory ran out.
 */
static int stack_lines(const struct report *r, const struct stack_func *sf,
		       uint32_t func_id, struct stack_line *lines)
{
	const char **rows[STACKS_MAX_PATHS];
	size_t depth[STACKS_MAX_PATHS], common, shown, i, k, n = 0;
	char (*names)[STACKS_MAX_FRAMES][FRAME_LEN];
	bool loss = keyed_by_callsite(r, func_id);
	const char *ptrs[STACKS_MAX_PATHS][STACKS_MAX_FRAMES];

	names = calloc(sf->nr_paths + 1, sizeof(*names));
	if (!names)
		return -1;
	for (i = 0; i < sf->nr_paths; i++) {
		depth[i] = sf->paths[i].nr_frames;
		for (k = 0; k < depth[i]; k++) {
			frame_label(r, sf->paths[i].frames[k], false,
				    names[i][k], FRAME_LEN);
			ptrs[i][k] = names[i][k];
		}
		rows[i] = ptrs[i];
	}
	common = stacks_common_outer((const char *const *const *)rows, depth,
				     sf->nr_paths);
	for (i = 0; i < sf->nr_paths; i++) {
		struct stack_line line = { .calls = sf->paths[i].calls };
		size_t used = 0;

		shown = stacks_folded_depth(depth[i], common, sf->nr_paths);
		for (k = 0; k < shown && k < REPORT_TEXT_FRAMES; k++)
			used += snprintf(line.text + used, LINE_LEN - used,
					 "%s%s", k ? " > " : "", names[i][k]);
		if (shown > REPORT_TEXT_FRAMES)
			used += snprintf(line.text + used, LINE_LEN - used,
					 " > ...");
		if (sf->paths[i].cut_tramp) {
			snprintf(line.text + used, LINE_LEN - used,
				 " (cut: a return probe holds the return address)");
		} else if (sf->paths[i].cut) {
			char obj[FRAME_LEN];

			cut_object(r, &sf->paths[i], obj, sizeof(obj));
			snprintf(line.text + used, LINE_LEN - used,
				 " (cut: frame pointers end in %s)", obj);
		}
		if (loss)
			line.loss_ns = path_loss(r, sf, func_id, i);
		for (k = 0; k < n; k++)
			if (!strcmp(lines[k].text, line.text))
				break;
		if (k < n) {
			lines[k].calls += line.calls;
			lines[k].loss_ns += line.loss_ns;
		} else {
			lines[n++] = line;
		}
	}
	free(names);
	/* Insertion sort: at most STACKS_MAX_PATHS lines. */
	for (i = 1; i < n; i++) {
		struct stack_line tmp = lines[i];

		for (k = i; k > 0 && lines[k - 1].calls < tmp.calls; k--)
			lines[k] = lines[k - 1];
		lines[k] = tmp;
	}
	return (int)n;
}

static double pct(double part, double total)
{
	return total > 0 ? 100.0 * part / total : 0.0;
}

void report_stacks_text(FILE *f, const struct report *r,
			const struct sci_result *fn, int indent)
{
	const struct stack_func *sf = stacks_of(r->stacks, fn->func_id);
	struct stack_line *lines;
	bool loss = keyed_by_callsite(r, fn->func_id) && fn->loss_ns;
	int n, i;

	if (!sf || !sf->sampled)
		return;
	lines = calloc(STACKS_MAX_PATHS, sizeof(*lines));
	n = lines ? stack_lines(r, sf, fn->func_id, lines) : -1;
	if (n < 0) {
		fprintf(f, "%*sCALLED FROM: out of memory naming the stacks\n",
			indent, "");
		free(lines);
		return;
	}
	/*
	 * Always shown, even for one path: that path is the answer to
	 * "which caller is this", and a missing block then means that no
	 * stack was sampled, not that there was nothing to see.
	 */
	if (n == 1 && !sf->other) {
		fprintf(f, "%*sCALLED FROM %s (all %" PRIu64 " sampled calls)\n",
			indent, "", lines[0].text, sf->sampled);
		free(lines);
		return;
	}
	fprintf(f, "%*sCALLED FROM, share of %" PRIu64 " sampled calls%s:\n",
		indent, "", sf->sampled, loss ? " and of the loss" : "");
	for (i = 0; i < n && i < REPORT_TEXT_STACKS; i++) {
		fprintf(f, "%*s%4.0f%%", indent + 2, "",
			pct((double)lines[i].calls, (double)sf->sampled));
		if (loss)
			fprintf(f, "  %4.0f%%",
				pct(lines[i].loss_ns, (double)fn->loss_ns));
		fprintf(f, "  %s\n", lines[i].text);
	}
	if (n > REPORT_TEXT_STACKS)
		fprintf(f, "%*s(+%d more paths, see --json)\n", indent + 2, "",
			n - REPORT_TEXT_STACKS);
	if (sf->other)
		fprintf(f, "%*s%4.0f%%%s  (other paths, not kept)\n",
			indent + 2, "",
			pct((double)sf->other, (double)sf->sampled),
			loss ? "       " : "");
	free(lines);
}

void report_stacks_json(struct json *j, const struct report *r,
			const struct sci_result *fn)
{
	const struct stack_func *sf = stacks_of(r->stacks, fn->func_id);
	bool loss = keyed_by_callsite(r, fn->func_id);
	char name[FRAME_LEN];
	uint32_t i, k;

	/* A report without stacks (ispotd's windows) says nothing of them. */
	if (!r->stacks)
		return;
	json_array_begin(j, "stacks");
	for (i = 0; sf && i < sf->nr_paths; i++) {
		const struct stack_path *p = &sf->paths[i];

		json_object_begin(j, NULL);
		json_array_begin(j, "frames");
		for (k = 0; k < p->nr_frames; k++) {
			frame_label(r, p->frames[k], true, name, sizeof(name));
			json_string(j, NULL, name);
		}
		json_array_end(j);
		json_u64(j, "calls", p->calls);
		if (loss)
			json_double(j, "loss_share",
				    fn->loss_ns ? path_loss(r, sf, fn->func_id,
							    i) /
						  (double)fn->loss_ns : 0.0);
		if (p->cut_tramp) {
			json_string(j, "cut_in", "[uprobes]");
		} else if (p->cut) {
			cut_object(r, p, name, sizeof(name));
			json_string(j, "cut_in", name);
		}
		json_object_end(j);
	}
	json_array_end(j);
	json_u64(j, "stacks_sampled", sf ? sf->sampled : 0);
	json_u64(j, "stacks_other", sf ? sf->other : 0);
}

/* A folded frame: ';' separates frames and a newline ends the line. */
static void folded_put(FILE *f, const char *name)
{
	for (; *name; name++)
		fputc(*name == ';' ? ':' : *name == '\n' ? '?' : *name, f);
}

static const char *folded_func(const struct report *r, uint32_t id,
			       char *buf, size_t len)
{
	if (r->funcs && id < r->nr_funcs && r->funcs[id].name)
		return r->funcs[id].name;
	snprintf(buf, len, "func#%" PRIu32, id);
	return buf;
}

/*
 * One path (NULL: none, @lead alone), outermost frame first, the function
 * last; only when N > 0.
 */
static void folded_path(FILE *f, const struct report *r, const char *lead,
			const struct stack_path *p, const char *func,
			uint64_t weight)
{
	char name[FRAME_LEN];
	uint32_t k;

	if (!weight)
		return;
	if (lead)
		fprintf(f, "%s;", lead);
	for (k = p ? p->nr_frames : 0; k-- > 0;) {
		frame_label(r, p->frames[k], false, name, sizeof(name));
		folded_put(f, name);
		fputc(';', f);
	}
	folded_put(f, func);
	fprintf(f, " %" PRIu64 "\n", weight);
}

/* @loss's part for @calls of @sampled, rounded. */
static uint64_t folded_share(uint64_t loss, uint64_t calls, uint64_t sampled)
{
	return sampled ? (uint64_t)((double)loss * calls / sampled + 0.5) : 0;
}

int report_folded(FILE *f, const struct report *r)
{
	char buf[32];
	size_t i;
	uint32_t k;

	for (i = 0; r->sci && i < r->sci->nr_funcs; i++) {
		const struct sci_result *fn = &r->sci->funcs[i];
		const struct stack_func *sf = stacks_of(r->stacks, fn->func_id);
		const char *func = folded_func(r, fn->func_id, buf,
					       sizeof(buf));

		if (!sf || !sf->sampled) {
			folded_path(f, r, NULL, NULL, func, fn->loss_ns);
			continue;
		}
		for (k = 0; k < sf->nr_paths; k++)
			folded_path(f, r, NULL, &sf->paths[k], func,
				    folded_share(fn->loss_ns,
						 sf->paths[k].calls,
						 sf->sampled));
		folded_path(f, r, "(other stacks)", NULL, func,
			    folded_share(fn->loss_ns, sf->other, sf->sampled));
	}
	errno = 0;
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
