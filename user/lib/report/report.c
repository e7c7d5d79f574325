// SPDX-License-Identifier: GPL-2.0
/*
 * The text report put together (report.h): the "Traced ..." line, the
 * table (report_table.c), the counters (report_counters.c), the futexes,
 * the footer with its warnings; and the names every part of the report
 * gives to what the engine numbers.  The JSON is report_json.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/format.h"
#include "analysis/solo.h"
#include "report/report.h"
#include "report/report_internal.h"

/* ---- naming what the engine numbers ---- */

const struct report_func *report_func_of(const struct report *r, uint32_t id)
{
	if (r->funcs && id < r->nr_funcs && r->funcs[id].name)
		return &r->funcs[id];
	return NULL;
}

const char *report_func_shape_note(const struct report *r, uint32_t id)
{
	const struct report_func *fn = report_func_of(r, id);

	return fn ? fn->shape_note : NULL;
}

/* An id the caller did not name still gets a stable, greppable label. */
const char *report_func_name(const struct report *r, uint32_t id,
			     char *buf, size_t len)
{
	const struct report_func *fn = report_func_of(r, id);

	if (fn && r->labels && r->labels[id])
		return r->labels[id];
	if (fn)
		return fn->name;
	snprintf(buf, len, "func#%" PRIu32, id);
	return buf;
}

const char *report_func_object(const struct report *r, uint32_t id)
{
	const struct report_func *fn = report_func_of(r, id);

	return fn && fn->object ? fn->object : "";
}

const char *report_func_key(const struct report *r, uint32_t id)
{
	const struct report_func *fn = report_func_of(r, id);

	return fn && fn->key ? fn->key : "";
}

bool report_func_key_auto(const struct report *r, uint32_t id)
{
	const struct report_func *fn = report_func_of(r, id);

	return fn && fn->key_auto;
}

void report_key_name(const struct report *r, uint32_t id, uint64_t key,
		     char *buf, size_t len)
{
	if (!r->key_name || r->key_name(r->key_ctx, id, key, buf, len) < 0)
		snprintf(buf, len, "0x%" PRIx64, key);
}

static double share(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

double report_finite_or_zero(double v)
{
	return isfinite(v) ? v : 0.0;
}

size_t report_nr_results(const struct report *r)
{
	return r->sci ? r->sci->nr_funcs : 0;
}

/* Declared function ids, for "N of M probed functions were called". */
static size_t nr_declared(const struct report *r)
{
	size_t i, n = 0;

	for (i = 0; r->funcs && i < r->nr_funcs; i++)
		n += r->funcs[i].name != NULL;
	return n;
}

int report_stream_status(FILE *f)
{
	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	return errno ? -errno : -EIO;
}

/* ---- warnings ---- */

static bool above_threshold(uint64_t part, uint64_t total)
{
	return total && (double)part > REPORT_WARN_RATIO * (double)total;
}

/*
 * "N% of events were @what (P of T)@then" as the next of @out's @max
 * warnings when @part is above REPORT_WARN_RATIO of @total; how many
 * there are then.
 */
static size_t warn_share(char (*out)[REPORT_WARNING_LEN], size_t n,
			 size_t max, uint64_t part, uint64_t total,
			 const char *what, const char *then)
{
	if (n >= max || !above_threshold(part, total))
		return n;
	snprintf(out[n], REPORT_WARNING_LEN, "%.1f%% of events were %s (%"
		 PRIu64 " of %" PRIu64 ")%s", share(part, total), what, part,
		 total, then);
	return n + 1;
}

/*
 * Every solo block timed out: a thread inside a traced function waited
 * for another one to enter one too (a hand-off through a condition
 * variable, a producer and its consumer), so holding the others out
 * cannot work, and no call of the run is a reference.
 */
static size_t warn_solo_blocks(char (*out)[REPORT_WARNING_LEN], size_t n,
			       size_t max, const struct solo_stats *s)
{
	if (n >= max || !s || !s->blocks || s->contaminated < s->blocks)
		return n;
	snprintf(out[n], REPORT_WARNING_LEN, "all %" PRIu64 " solo blocks "
		 "timed out: the traced functions wait for each other, so "
		 "none runs alone; trace those that do the work, not those "
		 "that hand it over, or use --solo-blocks 0", s->blocks);
	return n + 1;
}

/*
 * Blocks were made and admitted calls, and no timeout explains it, yet
 * no call ran alone: threads were already inside traced calls when the
 * blocks began (the gate lets them finish) and stayed in them, calls that
 * outlast a block (a worker's loop over its whole job, a wait for the
 * workers).  A longer run makes more such blocks, not references: name
 * the functions whose calls outlast the blocks (p99 at least the longest
 * block's admission), which to trace without.
 */
static size_t warn_solo_crowded(const struct report *r,
				char (*out)[REPORT_WARNING_LEN], size_t n,
				size_t max)
{
	const struct solo_stats *s = r->solo;
	char names[200], p99[16], blk[16];
	size_t i, off = 0, named = 0;

	if (n >= max || !solo_crowded_out(s))
		return n;
	names[0] = '\0';
	for (i = 0; r->sci && i < report_nr_results(r) && named < 3; i++) {
		const struct sci_result *fn = &r->sci->funcs[i];
		const char *name = fn->func_id < r->nr_funcs ?
				   r->funcs[fn->func_id].name : NULL;

		if (!name || fn->p99_ns < s->longest_block_ns)
			continue;
		format_ns(p99, sizeof(p99), (double)fn->p99_ns);
		off += snprintf(names + off, sizeof(names) - off,
				"%s%s (p99 %s)", named++ ? ", " : "", name,
				p99);
		/* Cut: what fitted stays, NUL-terminated. */
		if (off >= sizeof(names))
			off = sizeof(names) - 1;
	}
	format_ns(blk, sizeof(blk), (double)s->longest_block_ns);
	snprintf(out[n], REPORT_WARNING_LEN, "the %" PRIu64 " solo blocks "
		 "admitted %" PRIu64 " calls and none ran alone: %" PRIu64
		 " began with a thread already inside a traced call, which the "
		 "gate lets finish%s%s%s%s; a longer run will not help: trace "
		 "the functions those call, not the ones that span a block or "
		 "wait in it", s->blocks, s->gated_calls, s->crowded,
		 named ? ", and calls of " : "", names,
		 named ? " outlast a block of " : "", named ? blk : "");
	return n + 1;
}

size_t report_warnings(const struct report *r,
		       char (*out)[REPORT_WARNING_LEN], size_t max)
{
	uint64_t total = r->recorded + r->dropped;
	size_t n;

	n = warn_share(out, 0, max, r->dropped, r->drop_base ?
		       r->drop_base + r->dropped : total, "dropped",
		       ", so scores miss those calls: use --ring-size to "
		       "enlarge the rings or --sample N");
	n = warn_share(out, n, max, r->unpaired, total, "unpaired",
		       ": functions left by longjmp/exceptions, or a trace "
		       "that started inside a call");
	n = warn_solo_blocks(out, n, max, r->solo);
	return warn_solo_crowded(r, out, n, max);
}

static void text_header(FILE *f, const struct report *r)
{
	char dur[32];
	size_t called = report_nr_results(r), declared = nr_declared(r);

	format_ns(dur, sizeof(dur), (double)r->duration_ns);
	fprintf(f, "Traced %s (pid %d) for %s: ",
		r->command && r->command[0] ? r->command : "?", r->pid, dur);
	if (declared && declared >= called)
		fprintf(f, "%zu of %zu probed functions called\n", called,
			declared);
	else
		fprintf(f, "%zu functions called\n", called);
}

static void text_footer(FILE *f, const struct report *r)
{
	char warn[4][REPORT_WARNING_LEN], dur[32], life[32], dropped[48];
	uint64_t total = r->recorded + r->dropped, calls = 0, threads;
	size_t i, n;

	for (i = 0; i < report_nr_results(r); i++)
		calls += r->sci->funcs[i].calls;
	if (report_nr_results(r)) {
		format_ns(life, sizeof(life),
			  (double)r->sci->total_lifetime_ns);
		threads = (uint64_t)r->sci->nr_threads +
			  r->sci->folded_threads;
		fprintf(f, "total: %" PRIu64 " call%s in %" PRIu64
			" thread%s, %s of thread time\n", calls,
			calls == 1 ? "" : "s", threads,
			threads == 1 ? "" : "s", life);
	}
	format_ns(dur, sizeof(dur), (double)r->duration_ns);
	if (r->dropped_unknown)
		snprintf(dropped, sizeof(dropped), "dropped unknown");
	else
		snprintf(dropped, sizeof(dropped), "%" PRIu64 " dropped "
			 "(%.2f%%)", r->dropped, share(r->dropped, total));
	fprintf(f, "duration %s, events: %" PRIu64 " recorded, %s, %" PRIu64
		" unpaired (%.2f%%)\n", dur, r->recorded, dropped,
		r->unpaired, share(r->unpaired, total));
	n = report_warnings(r, warn, 4);
	for (i = 0; i < n; i++)
		report_wrap(f, r, 0, "warning: ", warn[i]);
	for (i = 0; i < r->nr_notes; i++)
		report_wrap(f, r, 0, "", r->notes[i]);
}

/* The width the text should fit in, 0 for none (see report.h). */
static int text_width(FILE *f, const struct report *r)
{
	struct winsize ws;
	int fd = fileno(f);

	if (r->width)
		return r->width > 0 ? r->width : 0;
	if (fd >= 0 && isatty(fd) && !ioctl(fd, TIOCGWINSZ, &ws))
		return ws.ws_col;
	return 0;
}

/* The names the text shows, by func_id (r->labels); whole if no memory. */
void report_text_labels(const struct report *r, struct report_labels *l)
{
	const char **names = calloc(r->nr_funcs + 1, sizeof(*names));
	size_t i;

	memset(l, 0, sizeof(*l));
	for (i = 0; names && r->funcs && i < r->nr_funcs; i++)
		names[i] = r->funcs[i].name;
	if (names && r->funcs)
		report_labels_make(l, names, r->nr_funcs, r->wide);
	free(names);
}

static void text_body(FILE *f, const struct report *r, size_t max_rows)
{
	size_t rows = report_nr_results(r);

	text_header(f, r);
	if (max_rows && max_rows < rows)
		rows = max_rows;
	if (!rows) {
		fputs("no probed function was called while tracing\n", f);
	} else {
		report_table_text(f, r, rows, r->wide ? 0 : text_width(f, r));
		if (rows < report_nr_results(r))
			fprintf(f, "(+%zu more functions, see --json)\n",
				report_nr_results(r) - rows);
	}
	report_text_excess(f, r, rows);
	report_text_futexes(f, r);
	report_text_counters(f, r);
	text_footer(f, r);
}

int report_text_part(FILE *f, const struct report *r,
		     enum report_part part)
{
	struct report view = *r;
	struct report_labels l;

	report_text_labels(r, &l);
	view.labels = l.label;
	view.note_width = REPORT_NOTE_WIDTH;
	switch (part) {
	case REPORT_PART_HEADER:
		text_header(f, &view);
		break;
	case REPORT_PART_EXCESS:
		report_text_excess(f, &view, report_nr_results(r));
		break;
	case REPORT_PART_FUTEXES:
		report_text_futexes(f, &view);
		break;
	case REPORT_PART_COUNTERS:
		report_text_counters(f, &view);
		break;
	case REPORT_PART_FOOTER:
		text_footer(f, &view);
		break;
	}
	report_labels_free(&l);
	return report_stream_status(f);
}

int report_text(FILE *f, const struct report *r, size_t max_rows)
{
	struct report view = *r;
	struct report_labels l;

	report_text_labels(r, &l);
	view.labels = l.label;
	view.note_width = text_width(f, r);
	text_body(f, &view, max_rows);
	report_labels_free(&l);
	return report_stream_status(f);
}
