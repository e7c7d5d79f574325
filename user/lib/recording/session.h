/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracing session as plain data: what it traced (its functions and the
 * probes armed for them) and its summary (the target, what the module
 * answered, the options its report reads, and the figures it ended with).
 * This is what a recording stores and gives back, and what a report is
 * headed with; the live session (trace/trace.h) keeps its summary in
 * this form, so neither a recording nor its reader depends on the
 * session itself.
 */
#ifndef ISPOT_SESSION_H
#define ISPOT_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/ispot.h>

#include "analysis/drain.h"
#include "analysis/pipeline.h"
#include "cli/options.h"
#include "elf/elf.h"
#include "report/report.h"

struct autopick;
struct thread_names;

/* A function, or a block (then sym holds its name, object, first site). */
struct trace_func {
	struct elf_target_sym sym;
	struct key_rule key;
	char key_desc[32];
	bool key_auto;			/* --key auto chose key (report time) */
	uint32_t probe_id;		/* a block's: its first begin site's */
	struct elf_block *block;	/* NULL for a function, and replayed */
	bool is_block;			/* a block, live or replayed */
};

/* A probe the session armed: which function it counts for, as what. */
enum trace_probe_role { TRACE_PROBE_FUNC, TRACE_PROBE_BEGIN, TRACE_PROBE_END };

struct trace_probe {
	uint32_t id;
	uint32_t func;		/* index in funcs */
	uint8_t role;		/* enum trace_probe_role */
	bool sync;		/* pipeline_set_sync() */
};

/* What a session traced, and what names the addresses it saw. */
struct session_tables {
	const struct trace_func *funcs;
	size_t nr_funcs;
	const struct trace_probe *probes;
	size_t nr_probes;
	struct elf_symbolizer *sym;	/* NULL: nothing is named */
	const struct autopick *picked;	/* --auto's profile, or NULL */
	const struct thread_names *threads;	/* NULL: none named */
};

struct session_summary {
	/* The target. */
	enum trace_mode mode;
	pid_t pid;
	char command[256];

	/* The module, as it answered. */
	uint32_t abi_major, abi_minor;
	uint32_t nr_rings;
	bool tasks;		/* it reports thread start and exit */
	bool waits;		/* and context switches and futex calls */
	/*
	 * --counters/--raw-event as the module answered, in the order given
	 * (names: the options', or the recording's that was read).
	 */
	uint32_t nr_counters;
	struct report_counter counters[ISPOT_MAX_COUNTERS];

	/* The options a report of it reads. */
	uint32_t sample, stack_period;
	double solo_share;	/* --solo-blocks, 0 when off or unknown */

	/* The figures it ended with. */
	uint64_t t_enable;
	uint64_t t_end;
	bool target_exited;
	bool interrupted;
	uint64_t dropped;
	uint32_t stop_reason;		/* ISPOT_STOP_*, from the last STATS */
	/* Threads closed by a scan because their exit record was lost. */
	uint64_t lost_exits;
	/* The drain's, taken when the session stopped. */
	struct drain_stats drain;
	/* The recording stopped at --max-size: that size, its last record. */
	bool rec_full;
	uint64_t rec_full_size, rec_full_ts;
	/*
	 * report FILE of such a recording: the records of the whole live
	 * session, which its drops are a share of (not kept in the file:
	 * drain.records there is that).
	 */
	uint64_t rec_session_records;
	/*
	 * A recording replayed was cut short at that byte, before its
	 * statistics (the drops unknown) or its names (addresses unnamed).
	 */
	bool rec_cut, rec_cut_stats, rec_cut_names;
	bool rec_cut_damaged;	/* not cut: damaged from there on */
	uint64_t rec_cut_at;
	/* report FILE: its damaged chunks of events, left out. */
	uint32_t rec_lost;
	uint64_t rec_lost_ns;	/* the time they spanned (INPUT_LOST) */
};

/*
 * How long @s traced, from enabling to its end; 0 for an end before the
 * start (a damaged recording's), never a wrapped difference.
 */
static inline uint64_t session_traced_ns(const struct session_summary *s)
{
	return s->t_end > s->t_enable ? s->t_end - s->t_enable : 0;
}

/*
 * Where the time a recording of @s holds ends: stopped at --max-size,
 * at its last record kept (so its report's time ends there), else at
 * the session's end.
 */
static inline uint64_t session_kept_end(const struct session_summary *s)
{
	return s->rec_full && s->rec_full_ts > s->t_enable &&
	       s->rec_full_ts < s->t_end ? s->rec_full_ts : s->t_end;
}

#endif /* ISPOT_SESSION_H */
