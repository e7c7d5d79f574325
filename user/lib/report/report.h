/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The end of a trace: an SCI report as a human table and as ispotctl's
 * JSON object (Documentation/usage.rst, "JSON output").
 *
 * The module knows nothing about names, so everything the engine identifies
 * by number (function ids, keys) is named here from what the caller
 * resolved when it set the probes up.  Both printers read the same struct
 * and share the warnings, so --json never says less than the table.
 */
#ifndef ISPOT_REPORT_H
#define ISPOT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/argbuckets.h"
#include "analysis/excess.h"
#include "analysis/sci.h"
#include "analysis/stacks.h"

/* What the report says about one function id (index = func_id). */
struct report_func {
	const char *name;	/* display name, e.g. "acquire"; NULL = unused id */
	const char *object;	/* path of the object it lives in */
	const char *key;	/* key kind: "" for none, "arg0", "arg1:log2",
				 * "callsite", "shape" */
	const char *linkage_name;	/* C++: mangled; NULL/"" = name */
	bool key_auto;		/* --key FUNC=auto chose @key ("" = none) */
	/* Its executions made different probed calls (shape.h). */
	bool shapes_differ;
	const char *shape_note;	/* printed under its rows; NULL = none */
};

/* A perf event the module was asked to count; hardware ones may be absent. */
struct report_counter {
	const char *name;
	bool supported;
	bool hardware;		/* needs a PMU */
	bool time;		/* counts ns (cpu-clock), not occurrences */
	int slot;		/* its index in pair_exec.counter_delta, -1 if
				 * it is not counted */
};

/* Wait time on a futex word ended by wakes from one function. */
#define REPORT_WAKER_NAME	256

struct report_waker {
	const char *function;	/* or "(untraced)", "(other)" */
	uint64_t wait_ns;
	/* Where function points for a caller named by a call site. */
	char caller[REPORT_WAKER_NAME];
};

/* A futex word that the traced threads waited on. */
struct report_futex {
	uint64_t address;
	const char *symbol;	/* e.g. "app:gm_lock", or "" */
	uint64_t wait_ns;
	uint64_t waits;
	uint32_t threads;
	const char *const *functions;	/* probed functions that waited on it */
	size_t nr_functions;
	/* Who woke them, by wait_ns descending (report_wakers()). */
	const struct report_waker *woken_from;
	size_t nr_woken_from;
};

/*
 * Formats the key value of block (func_id, key) for display, e.g.
 * "0x7f..40", "lock_contention:worker+0x21" or "2^12".  Returns what
 * snprintf would.  May be NULL in struct report: keys are then shown in hex.
 */
typedef int (*report_key_fn)(void *ctx, uint32_t func_id, uint64_t key,
			     char *buf, size_t len);

/*
 * Names a return address of a call stack: "worker" (@offset false, for
 * the table) or "app:worker+0x21" (@offset true, for JSON).  Returns what
 * snprintf would, < 0 to fall back on hex.  May be NULL in struct report.
 */
typedef int (*report_frame_fn)(void *ctx, uint64_t addr, bool offset,
			       char *buf, size_t len);

struct json;

struct report {
	int pid;
	const char *command;
	uint64_t duration_ns;
	/* Events (records) read from the rings, lost in them, never paired. */
	uint64_t recorded;
	/* The records the drops are a share of, if not these (0). */
	uint64_t drop_base;
	uint64_t dropped;
	bool dropped_unknown;	/* a recording cut before its STATS */
	/*
	 * Drops the rings told of (LOST records, ISPOT_SETUP_LOST): how many
	 * times, how many records, the calls open in their threads then
	 * (not scored), and the threads' time left out of their lifetimes.
	 */
	uint64_t drop_bursts;
	uint64_t dropped_told;
	uint64_t open_at_drops;
	uint64_t dropped_time_ns;
	uint64_t unpaired;
	const struct sci_report *sci;
	const struct report_func *funcs;	/* by func_id */
	size_t nr_funcs;
	report_key_fn key_name;
	void *key_ctx;
	const struct report_counter *counters;
	size_t nr_counters;
	const struct excess *excess;	/* counter deltas, NULL if none */
	const struct report_futex *futexes;
	size_t nr_futexes;
	const struct stacks *stacks;	/* sampled call stacks, may be NULL */
	report_frame_fn frame_name;
	/*
	 * The object of a return address ("libleveldb.so.1d"), where a
	 * cut stack's walk ended; NULL or < 0: "?".  Also on frame_ctx.
	 */
	report_frame_fn frame_object;
	void *frame_ctx;
	/* Workload verdicts by func_id (argbuckets.h), NULL = none. */
	const struct argb_verdict *verdicts;
	const char *const *notes;	/* extra footer lines, may be 0 */
	size_t nr_notes;
	const char *baseline;	/* the --baseline FILE, or NULL */
	/* Solo blocks and the gate (solo.h); NULL when none was made. */
	const struct solo_stats *solo;
	/*
	 * Members the caller adds to the JSON object, before "counters"
	 * (ispotctl's --auto evidence); NULL: none.
	 */
	void (*json_extra)(struct json *j, const void *ctx);
	const void *json_extra_ctx;
	/*
	 * ispotd: the window's end (CLOCK_MONOTONIC), to tell how old a
	 * reference carried from earlier windows is; 0 elsewhere.
	 */
	uint64_t now_ns;
	/*
	 * Columns the table should fit in, by eliding long function names:
	 * 0 = the terminal's width when the output is one, else no limit
	 * (as perf does, a pipe gets whole names); < 0 = no limit.
	 */
	int width;
	/*
	 * --wide: C++ names whole in the text, as in JSON; by default the
	 * table says "ns::A::get", and the signature only where two traced
	 * functions would otherwise read the same (report_labels_make()).
	 */
	bool wide;
	/*
	 * --all-futexes: every futex word and every waker in the text; by
	 * default only the words traced functions waited on, and "woken
	 * from" only when it names something.  JSON always has them all.
	 */
	bool all_futexes;
	/* --sync was on: the lock calls are traced, so say what else wakes. */
	bool sync;
	/* Set by report_text() for the text's parts; callers leave them 0. */
	const char *const *labels;	/* by func_id: the names shown */
	int note_width;			/* notes wrap at this column */
};

/*
 * The rows of report_text()'s table, cell by cell, for a writer other
 * than the text (the HTML report): the header, then each function's row
 * and its key rows as the table shows them (same labels, same figures),
 * without the notes under them.  @res is the row's figures (NULL for the
 * header and for "(+N more keys)"); @cells has @nr of them, an empty one
 * where the table leaves the column blank; @left says which columns
 * are read from the left (names) rather than the right (figures).
 */
enum report_row_kind {
	REPORT_ROW_HEAD,
	REPORT_ROW_FUNCTION,
	REPORT_ROW_KEY,
	REPORT_ROW_MORE,	/* "(+N more keys, see --json)" */
};

typedef void report_row_fn(void *ctx, enum report_row_kind kind,
			   const struct sci_result *res,
			   const char *const *cells, const bool *left,
			   int nr);
void report_table_rows(const struct report *r, size_t max_rows,
		       report_row_fn *emit, void *ctx);

/*
 * What the table prints under function @fn's row, each line indented by
 * @indent: its shape note, the interference notes, the WORKLOAD-DEPENDENT
 * line and the CALLED FROM block.
 */
void report_function_notes(FILE *f, const struct report *r,
			   const struct sci_result *fn, int indent);

/*
 * One part of report_text() besides the table, for a writer that lays
 * the report out otherwise (the HTML report): the "Traced ..." line, the
 * counters' excess table, the futex lines, the counters' line, and the
 * footer (totals, events, warnings, notes).  0 or -errno.
 */
enum report_part {
	REPORT_PART_HEADER,
	REPORT_PART_EXCESS,
	REPORT_PART_FUTEXES,
	REPORT_PART_COUNTERS,
	REPORT_PART_FOOTER,
};

int report_text_part(FILE *f, const struct report *r, enum report_part part);

/* Function @id's name as the table shows it ("func#N" if unnamed). */
const char *report_func_name(const struct report *r, uint32_t id,
			     char *buf, size_t len);
/* Key @key of function @id as the table names it (hex if unnamed). */
void report_key_name(const struct report *r, uint32_t id, uint64_t key,
		     char *buf, size_t len);

/* Above this share of recorded + dropped events, a loss is warned about. */
#define REPORT_WARN_RATIO	0.01
/* Keys listed under a keyed function in the table; JSON lists them all. */
#define REPORT_TEXT_KEYS	5
#define REPORT_WARNING_LEN	512

/*
 * Warnings (drops or unpaired events above REPORT_WARN_RATIO, ...) as
 * one-line strings without a "warning: " prefix, each saying what to do.
 * Returns how many were written, at most @max.  Shared by text and JSON.
 */
size_t report_warnings(const struct report *r,
		       char (*out)[REPORT_WARNING_LEN], size_t max);

/*
 * The table: a header line, one row per function sorted as r->sci->funcs
 * (by SCI), up to REPORT_TEXT_KEYS key rows under a keyed function, then
 * totals, warnings and notes.  @max_rows limits the function rows, 0 = all.
 * Function names too long for r->width are elided; JSON never elides.
 * Both printers return 0, or -errno if writing @f failed.
 */
int report_text(FILE *f, const struct report *r, size_t max_rows);
int report_json(FILE *f, const struct report *r);

/*
 * The "functions" and "futexes" members of report_json()'s object, for
 * ispotd's windows, which wrap the same objects in an envelope of their
 * own (Documentation/ispotd.rst, "A window").
 */
struct json;
void report_json_functions(struct json *j, const struct report *r);
void report_json_futexes(struct json *j, const struct report *r);

/* A note line before wrapping, and the interference parts of a report. */
#define REPORT_NOTE_LEN	512

/*
 * The INTERF cell of a function or key ("12.0%", "<=62.0%" when only a
 * bound can be given, "-" without wait records); the notes under a
 * function's row that say why SCI and INTERF differ, and how much of its
 * time other processes took; and the interference members of a function's
 * or key's JSON object (report_interference.c).
 */
void report_interference_cell(const struct sci_result *res, char *buf,
			      size_t len);
void report_interference_text(FILE *f, const struct report *r,
			      const struct sci_result *fn, int indent);
void report_interference_json(struct json *j, const struct report *r,
			      const struct sci_result *res);
/* The run's "solo_blocks" object, when blocks were on (r->solo). */
void report_solo_json(struct json *j, const struct report *r);

/*
 * The sampled call stacks as folded lines (report_stacks.c), one per path
 * of each function: "outer;...;caller;function N", N the function's loss
 * in ns times the path's share of its sampled calls; the calls beyond the
 * kept paths as "(other stacks);function N", a function without stacks
 * as "function N".  What flamegraph.pl, inferno and speedscope read; ';'
 * in a name becomes ':'.  Returns 0 or -errno.
 */
int report_folded(FILE *f, const struct report *r);

/* Call paths listed under a function in the table; JSON lists them all. */
#define REPORT_TEXT_STACKS	5
/* Frames of one path in the table; deeper ones end in "> ...". */
#define REPORT_TEXT_FRAMES	6

/*
 * The "CALLED FROM" block under function @fn's rows, each line indented
 * by @indent columns (report_stacks.c), and the function's "stacks"
 * member in JSON.  Nothing is printed for a function without stacks.
 */
void report_stacks_text(FILE *f, const struct report *r,
			const struct sci_result *fn, int indent);
void report_stacks_json(struct json *j, const struct report *r,
			const struct sci_result *fn);

/*
 * The WORKLOAD-DEPENDENT line under function @fn's row when its verdict
 * flags it (report_workload.c), and its "workload_dependent",
 * "suggested_key" (and, when an argument could be judged,
 * "workload_evidence", "workload_ratio" and "key_loss_cut") members in
 * JSON.  Nothing without r->verdicts.
 */
void report_workload_text(FILE *f, const struct report *r,
			  const struct sci_result *fn, int indent);
void report_workload_json(struct json *j, const struct report *r,
			  const struct sci_result *fn);

/*
 * The futex lines of the text report (report_futex.c), one per word:
 * "futex 0x… app:gm_lock: waited 461ms (…) in acquire; woken from
 * update_stats (92%), flush (8%)".
 */
void report_text_futexes(FILE *f, const struct report *r);
/*
 * A futex word's wakers (timeline.h) as the report shows them, into @out
 * (TL_WAKERS + 1 of them): named by @name(@ctx, function id), a call
 * site's caller by @caller(@caller_ctx, address, false, ...) (NULL: none
 * can be named), or "(untraced)" / "(other)"; wakers of one name add up
 * (a traced function and call sites in it), and are sorted by wait_ns
 * descending.  Returns how many.
 */
struct timeline_wakers;
typedef const char *(*report_func_name_fn)(const void *ctx, uint32_t id);
size_t report_wakers(struct report_waker *out,
		     const struct timeline_wakers *tw,
		     report_func_name_fn name, const void *ctx,
		     report_frame_fn caller, void *caller_ctx);

/*
 * Fitting the text (fit.c).  report_short_name: a demangled C++ function
 * name as the table shows it, without return type, parameter list (and
 * what follows it) and template arguments, as uftrace's "simple"
 * demangling: "leveldb::DB::Put", "std::vector::push_back"; an operator
 * stays whole ("ns::Less::operator<", "ns::F::operator()").  A name
 * without a parameter list (C, Go, a block) is left as it is.  Writes at
 * most @len bytes with the NUL; returns the length written.
 */
size_t report_short_name(const char *name, char *buf, size_t len);

/*
 * The names @names[0, n) (NULL entries stay NULL) as the text shows
 * them: each one's short name, unless another one's reads the same with
 * a different whole name (two overloads, two instances of a template):
 * then those keep their whole names.  @wide: every name whole.
 * 0 or -ENOMEM; report_labels_free() what it made.
 */
struct report_labels {
	const char **label;	/* by index */
	char *text;
};

int report_labels_make(struct report_labels *l, const char *const *names,
		       size_t n, bool wide);
void report_labels_free(struct report_labels *l);

/* A traced function's @name as r->labels show it; other names as given. */
const char *report_label(const struct report *r, const char *name);

/* Notes wrap here when the output is not a terminal (nor r->width set). */
#define REPORT_NOTE_WIDTH	100

/*
 * One note of the text: @indent blanks, @lead ("note: ", "warning: ",
 * or ""), then @text wrapped at word boundaries to r->note_width (or
 * REPORT_NOTE_WIDTH), each further line hanging under the text after
 * @lead (two blanks in without one).  A word is never cut.
 */
void report_wrap(FILE *f, const struct report *r, int indent,
		 const char *lead, const char *text);

/* "61.2%", "0.35%", "<0.01%": the SCI as the table shows it. */
char *report_format_pct(char *buf, size_t len, double ratio);

/*
 * Building a report (build.c), for both front ends: what a front end
 * knows of each function id and of the target becomes the functions, the
 * key and frame names and the futex words of a struct report.  The
 * front ends differ only in what they put here: ispotctl its session's
 * functions and timeline, ispotd its window set's functions (ids of its
 * own, stable across bursts) and the futex words of the window.
 */
struct key_rule;
struct shapes;
struct elf_symbolizer;
struct timeline_futex;

struct report_source_func {
	const char *name;
	const char *linkage_name;
	const char *object;
	const char *key_desc;		/* report_func.key */
	bool key_auto;			/* --key FUNC=auto chose key_desc */
	const struct key_rule *rule;	/* what its keys are named by */
};

struct report_source {
	const struct report_source_func *funcs;	/* by func_id */
	size_t nr_funcs;
	const struct shapes *shapes;	/* names shape keys, may be NULL */
	struct elf_symbolizer *sym;	/* names keys, words, frames; or NULL */
	/* Function ids in .funcs are the source's ids. */
	const struct timeline_futex *futexes;
	size_t nr_futexes;
};

/* What report_build() allocated; the report points into it. */
struct report_build {
	const struct report_source *src;
	struct report_func *funcs;
	char *shape_notes;		/* SHAPE_NOTE_LEN each */
	struct report_futex *futexes;
	char *futex_names;		/* ELF_SYM_NAME_MAX each */
	const char **futex_funcs;
	struct report_waker *wakers;	/* TL_WAKERS + 1 per word */
};

/*
 * Set @r's funcs, key_name, frame_name and futexes from @src, which must
 * outlive @r; the caller sets the rest (the target, the events, the
 * verdicts, the notes, the sections it shows).  0 or -ENOMEM.
 */
int report_build(struct report_build *b, const struct report_source *src,
		 struct report *r);
void report_build_free(struct report_build *b);

/*
 * Name a key value the way the user would look for it: "&app:gm_lock",
 * "from app:worker+0x21", "arg2 in [2^11, 2^12)".  @sym may be NULL.
 * Shape keys need the shapes seen to be named (shape_key_label()); here
 * they are "shape 0x…".
 * Returns what snprintf would.
 */
int report_key_label(const struct key_rule *rule, struct elf_symbolizer *sym,
		     uint64_t key, char *buf, size_t len);
/*
 * The address report_key_label() names @key by, from the maps (a call
 * site's, an argument's), in *@addr; false when the rule's keys are not
 * addresses (key_rule_by_address(): a log2 bucket, a shape, none): a
 * label the maps cannot change.
 */
bool report_key_address(const struct key_rule *rule, uint64_t key,
			uint64_t *addr);

/*
 * Name the function that a return address @addr returns into, "worker"
 * (or "worker+0x21" with @offset), by @sym (may be NULL).  Returns what
 * snprintf would, or -1 if it cannot be named.
 */
int report_return_name(struct elf_symbolizer *sym, uint64_t addr,
		       bool offset, char *buf, size_t len);

#endif /* ISPOT_REPORT_H */
