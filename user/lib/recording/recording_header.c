// SPDX-License-Identifier: GPL-2.0
/*
 * `report FILE --header`: what a recording holds, read from its tables
 * without replaying a record (recording.h).  For the user handed a file
 * from a production host who wants to know what it is before the
 * report: what ran, where, when, for how long, what was traced, how
 * big it is and why, and whether it is whole.  Lines of "name  value",
 * as `perf report --header-only` gives a perf.data's.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "recording/recording.h"
#include "trace/autopick.h"
#include "util/format.h"

/* One line: its name in a column of 14, then the value. */
#define HEAD(f, name, ...)					\
	(fprintf(f, "%-14s", name), fprintf(f, __VA_ARGS__),	\
	 fputc('\n', f))

/*
 * One argument, as a shell would take it back: bare when it can be, else
 * in '...'.  A control byte (a newline, an escape to the terminal) of a
 * file from elsewhere is a '?': the line stays one line.
 */
static void header_arg(FILE *f, const char *arg)
{
	const char *p = arg + strspn(arg, "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789_./=:,+@%-");

	if (*arg && !*p) {
		fprintf(f, " %s", arg);
		return;
	}
	fputs(" '", f);
	for (p = arg; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(iscntrl((unsigned char)*p) ? '?' : *p, f);
	}
	fputc('\'', f);
}

static void header_command_line(FILE *f, const struct recording_file *rf)
{
	uint32_t i;

	if (!rf->meta.nr_args)
		return;
	/* The arguments from the command's name: "record -o ...". */
	fprintf(f, "%-14sispotctl", "command line");
	for (i = 0; i < rf->meta.nr_args; i++)
		header_arg(f, rf->meta.args[i]);
	fputc('\n', f);
}

static void header_began(FILE *f, const struct recording_file *rf)
{
	time_t t = (time_t)(rf->meta.start_realtime_ns / 1000000000ull);
	char when[64] = "an unknown time";
	struct tm tm;

	if (rf->meta.start_realtime_ns && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	HEAD(f, "began", "%s", when);
}

/* How long it traced, and how it ended: unknown if cut before STATS. */
static void header_ended(FILE *f, const struct recording_file *rf)
{
	const struct session_summary *s = &rf->sum;
	char d[32];

	if (rf->cut_missing & (1u << REC_SEC_STATS)) {
		HEAD(f, "ended", "unknown: %s before its statistics",
		     rf->tail_damage ? "damaged" : "cut short");
		return;
	}
	format_ns(d, sizeof(d), (double)session_traced_ns(s));
	HEAD(f, "traced", "%s, %s", d,
	     s->stop_reason == ISPOT_STOP_SECURE_EXEC ?
	     "stopped at a privileged exec" :
	     s->target_exited ? "until the target exited" :
	     s->interrupted ? "until interrupted" : "until its end");
}

/* Sizes: the events' bytes a record, and what the tables take. */
static void header_records(FILE *f, const struct recording_file *rf)
{
	uint64_t events = 0;
	size_t i;

	for (i = 0; i < rf->nr_events; i++)
		events += rf->events[i].len;
	if (rf->cut_missing & (1u << REC_SEC_STATS))
		HEAD(f, "records", "unknown (no statistics); %zu whole "
		     "chunk%s of events, %" PRIu64 " bytes", rf->nr_events,
		     rf->nr_events == 1 ? "" : "s", events);
	else
		HEAD(f, "records", "%" PRIu64 " in %zu chunk%s of events, "
		     "%" PRIu64 " bytes: %.2f bytes a record",
		     rf->meta.records, rf->nr_events,
		     rf->nr_events == 1 ? "" : "s", events,
		     rf->meta.records ? (double)events / rf->meta.records : 0);
	if (rf->sum.rec_full)
		HEAD(f, "", "stopped at --max-size %" PRIu64 " bytes",
		     rf->sum.rec_full_size);
	if (!(rf->cut_missing & (1u << REC_SEC_STATS)))
		HEAD(f, "drops", "%" PRIu64 " dropped, %" PRIu64 " late, %"
		     PRIu64 " corrupt, of %" PRIu64 " drained",
		     rf->sum.dropped, rf->sum.drain.late, rf->sum.drain.corrupt,
		     rf->sum.drain.records);
}

const struct rec_table_name *rec_table_names(size_t *n)
{
	static const struct rec_table_name names[] = {
		{ REC_SEC_NAMES, "names" }, { REC_SEC_MAPS, "maps" },
		{ REC_SEC_THREADS, "threads" }, { REC_SEC_PROFILE, "profile" },
		{ REC_SEC_META, "session" }, { REC_SEC_FUNCS, "functions" },
		{ REC_SEC_PROBES, "probes" }, { REC_SEC_STATS, "statistics" },
		{ REC_SEC_START, "start" }, { REC_SEC_UNLOADED, "unloaded" },
	};

	*n = sizeof(names) / sizeof(names[0]);
	return names;
}

/*
 * What each table takes (read, not damaged): where a file's bytes go
 * besides its events.
 */
static void header_tables(FILE *f, const struct recording_file *rf)
{
	size_t i, nr;
	const struct rec_table_name *shown = rec_table_names(&nr);
	uint64_t total = 0;
	unsigned int n = 0;

	for (i = 0; i < nr; i++)
		total += rf->table_bytes[shown[i].type];
	fprintf(f, "%-14s%" PRIu64 " bytes:", "tables", total);
	for (i = 0; i < nr; i++)
		if (rf->table_bytes[shown[i].type])
			fprintf(f, "%s %s %" PRIu64, n++ ? "," : "",
				shown[i].name,
				rf->table_bytes[shown[i].type]);
	fputc('\n', f);
}

static void header_funcs(FILE *f, const struct recording_file *rf)
{
	uint32_t i;

	HEAD(f, "functions", "%u traced, %u probe%s", rf->nr_funcs,
	     rf->nr_probes, rf->nr_probes == 1 ? "" : "s");
	for (i = 0; i < rf->nr_funcs; i++) {
		const struct trace_func *fn = &rf->funcs[i];

		fprintf(f, "  %s%s  %s", fn->is_block ? "block " : "",
			fn->sym.name, fn->sym.obj);
		if (fn->key_desc[0])
			fprintf(f, "  key %s", fn->key_desc);
		fputc('\n', f);
	}
}

static void header_options(FILE *f, const struct recording_file *rf)
{
	const struct session_summary *s = &rf->sum;
	char max[32];
	uint32_t i;

	format_bytes(max, sizeof(max), rf->meta.max_size);
	HEAD(f, "options", "sample 1 in %u, stack period %u, max size %s; "
	     "thread events %s, waits %s", s->sample ? s->sample : 1,
	     s->stack_period, max, s->tasks ? "on" : "off",
	     s->waits ? "on" : "off");
	for (i = 0; i < s->nr_counters; i++)
		HEAD(f, i ? "" : "counters", "%s%s", s->counters[i].name,
		     s->counters[i].supported ? "" : " (unsupported)");
}

/* Whether it is whole, as recording_open() found it. */
static void header_state(FILE *f, const struct recording_file *rf)
{
	if (rf->lost)
		HEAD(f, "damage", "%u chunk%s of events lost, the first "
		     "number %zu (bytes %" PRIu64 " to %" PRIu64 ")", rf->lost,
		     rf->lost == 1 ? "" : "s", rf->lost_chunk, rf->lost_from,
		     rf->lost_to);
	if (rf->cut && !rf->tail_damage)
		HEAD(f, "cut", "short at byte %zu; read to the end of its "
		     "whole sections, byte %" PRIu64, rf->size, rf->cut_at);
	if (rf->tail_damage)
		HEAD(f, "damage", "%s, at byte %" PRIu64 ": read as cut there",
		     rf->tail_damage, rf->cut_at);
	if (rf->left_out)
		HEAD(f, "left out", "%s", rf->left_out);
	if (recording_whole(rf))
		HEAD(f, "state", "whole");
}

int recording_header(FILE *f, const struct recording_file *rf)
{
	const struct session_summary *s = &rf->sum;

	HEAD(f, "recording", "%s, format %u.%u, %zu bytes%s", rf->path,
	     rf->meta.major, rf->meta.minor, rf->size,
	     rf->piped ? " (read from a pipe)" : "");
	HEAD(f, "written by", "ispotctl %s (ABI %u.%u), module ABI %u.%u, "
	     "Linux %s", rf->meta.version[0] ? rf->meta.version : "?",
	     rf->meta.ctl_abi_major, rf->meta.ctl_abi_minor, s->abi_major,
	     s->abi_minor, rf->meta.kernel[0] ? rf->meta.kernel : "?");
	header_command_line(f, rf);
	HEAD(f, "target", "%s, pid %d (%s)", s->command, (int)s->pid,
	     s->mode == MODE_ATTACH ? "attached" : "run");
	header_began(f, rf);
	header_ended(f, rf);
	header_records(f, rf);
	header_tables(f, rf);
	header_options(f, rf);
	header_funcs(f, rf);
	if (rf->picked)
		HEAD(f, "auto", "picked %zu from %" PRIu64 " samples in %.1f s",
		     rf->picked->nr, rf->picked->samples,
		     rf->picked->duration_ns / 1e9);
	if (rec_format_has_threads(rf))
		HEAD(f, "threads", "%zu named", rf->threads.n);
	header_state(f, rf);
	errno = 0;
	if (fflush(f) || ferror(f))
		return errno ? errno : EIO;
	return 0;
}
