// SPDX-License-Identifier: GPL-2.0
/*
 * `report FILE --header --json`: what recording_header.c says in lines,
 * as one JSON object, for a script that sorts or checks recordings
 * (which kernel, which target, how long, whole or not) without parsing
 * text.  Named as the report's JSON and status --json name the same
 * figures.  Figures a file does not hold (a recording cut before its
 * statistics) are null, not 0.  The members are in
 * Documentation/usage.rst, "report FILE --header".
 */
#include <errno.h>
#include <stdio.h>

#include "recording/recording.h"
#include "trace/autopick.h"
#include "util/json.h"

/* A string the file may not hold ("": unknown): null then. */
static void hj_known(struct json *j, const char *key, const char *value)
{
	if (value[0])
		json_string(j, key, value);
	else
		json_null(j, key);
}

/* "1.9", as status --json gives an ABI. */
static void hj_abi(struct json *j, const char *key, uint32_t major,
		   uint32_t minor)
{
	char v[24];

	snprintf(v, sizeof(v), "%u.%u", major, minor);
	json_string(j, key, v);
}

static void hj_written_by(struct json *j, const struct recording_file *rf)
{
	const struct session_summary *s = &rf->sum;
	uint32_t i;

	hj_known(j, "ispot_version", rf->meta.version);
	hj_abi(j, "ispotctl_abi", rf->meta.ctl_abi_major,
	       rf->meta.ctl_abi_minor);
	hj_abi(j, "module_abi", s->abi_major, s->abi_minor);
	hj_known(j, "kernel", rf->meta.kernel);
	/* The arguments from the command's name: "record", "-o", ... */
	json_array_begin(j, "command_line");
	for (i = 0; i < rf->meta.nr_args; i++)
		json_string(j, NULL, rf->meta.args[i]);
	json_array_end(j);
}

static const char *hj_ending(const struct session_summary *s)
{
	return s->stop_reason == ISPOT_STOP_SECURE_EXEC ? "secure_exec" :
	       s->target_exited ? "target_exited" :
	       s->interrupted ? "interrupted" : "end";
}

/* When, how long, how it ended: null where the statistics were cut. */
static void hj_session(struct json *j, const struct recording_file *rf)
{
	const struct session_summary *s = &rf->sum;
	bool stats = !(rf->cut_missing & (1u << REC_SEC_STATS));

	json_object_begin(j, "target");
	json_i64(j, "pid", s->pid);
	json_string(j, "command", s->command);
	json_string(j, "mode", s->mode == MODE_ATTACH ? "attach" : "run");
	json_object_end(j);
	if (rf->meta.start_realtime_ns)
		json_u64(j, "began_unix_ns", rf->meta.start_realtime_ns);
	else
		json_null(j, "began_unix_ns");
	if (stats) {
		json_u64(j, "duration_ns", session_traced_ns(s));
		json_string(j, "ended", hj_ending(s));
	} else {
		json_null(j, "duration_ns");
		json_null(j, "ended");
	}
}

/* A count of the statistics, null when the file was cut before them. */
static void hj_stat(struct json *j, const char *key, bool known,
		    uint64_t value)
{
	if (known)
		json_u64(j, key, value);
	else
		json_null(j, key);
}

/* The report's "events" members, and where their bytes went. */
static void hj_records(struct json *j, const struct recording_file *rf)
{
	bool stats = !(rf->cut_missing & (1u << REC_SEC_STATS));
	uint64_t events = 0;
	size_t i;

	for (i = 0; i < rf->nr_events; i++)
		events += rf->events[i].len;
	json_object_begin(j, "events");
	hj_stat(j, "recorded", stats, rf->meta.records);
	hj_stat(j, "dropped", stats, rf->sum.dropped);
	hj_stat(j, "late", stats, rf->sum.drain.late);
	hj_stat(j, "corrupt", stats, rf->sum.drain.corrupt);
	hj_stat(j, "drained", stats, rf->sum.drain.records);
	json_u64(j, "chunks", rf->nr_events);
	json_u64(j, "bytes", events);
	if (stats && rf->meta.records)
		json_double(j, "bytes_per_record",
			    (double)events / rf->meta.records);
	else
		json_null(j, "bytes_per_record");
	if (stats)
		json_bool(j, "stopped_at_max_size", rf->sum.rec_full);
	else
		json_null(j, "stopped_at_max_size");
	json_object_end(j);
}

/* Every table's bytes, by the names the text form gives them. */
static void hj_tables(struct json *j, const struct recording_file *rf)
{
	size_t i, n;
	const struct rec_table_name *t = rec_table_names(&n);

	json_object_begin(j, "tables");
	for (i = 0; i < n; i++)
		json_u64(j, t[i].name, rf->table_bytes[t[i].type]);
	json_object_end(j);
}

static void hj_options(struct json *j, const struct recording_file *rf)
{
	const struct session_summary *s = &rf->sum;
	uint32_t i;

	json_object_begin(j, "options");
	json_u64(j, "sample", s->sample ? s->sample : 1);
	json_u64(j, "stack_period", s->stack_period);
	json_u64(j, "max_size", rf->meta.max_size);
	json_bool(j, "thread_events", s->tasks);
	json_bool(j, "waits", s->waits);
	json_object_end(j);
	/* As the report's: {"<event>": "supported"|"unsupported"}. */
	json_object_begin(j, "counters");
	for (i = 0; i < s->nr_counters; i++)
		json_string(j, s->counters[i].name,
			    s->counters[i].supported ? "supported" :
						       "unsupported");
	json_object_end(j);
}

static void hj_funcs(struct json *j, const struct recording_file *rf)
{
	uint32_t i;

	json_u64(j, "probes", rf->nr_probes);
	json_array_begin(j, "functions");
	for (i = 0; i < rf->nr_funcs; i++) {
		const struct trace_func *fn = &rf->funcs[i];

		json_object_begin(j, NULL);
		json_string(j, "name", fn->sym.name);
		json_string(j, "object", fn->sym.obj);
		json_bool(j, "block", fn->is_block);
		if (fn->key_desc[0])
			json_string(j, "key", fn->key_desc);
		else
			json_null(j, "key");
		json_object_end(j);
	}
	json_array_end(j);
	if (rf->picked) {
		json_object_begin(j, "auto");
		json_u64(j, "picked", rf->picked->nr);
		json_u64(j, "samples", rf->picked->samples);
		json_u64(j, "duration_ns", rf->picked->duration_ns);
		json_object_end(j);
	} else {
		json_null(j, "auto");
	}
	if (rec_format_has_threads(rf))
		json_u64(j, "threads_named", rf->threads.n);
	else
		json_null(j, "threads_named");
}

/* Whether it is whole, and if not, where, as recording_open() found. */
static void hj_state(struct json *j, const struct recording_file *rf)
{
	json_object_begin(j, "state");
	json_bool(j, "whole", recording_whole(rf));
	json_u64(j, "lost_chunks", rf->lost);
	if (rf->lost) {
		json_u64(j, "first_lost_chunk", rf->lost_chunk);
		json_u64(j, "first_lost_from", rf->lost_from);
		json_u64(j, "first_lost_to", rf->lost_to);
	} else {
		json_null(j, "first_lost_chunk");
		json_null(j, "first_lost_from");
		json_null(j, "first_lost_to");
	}
	if (rf->cut || rf->tail_damage)
		json_u64(j, "read_to", rf->cut_at);
	else
		json_null(j, "read_to");
	json_bool(j, "cut", rf->cut && !rf->tail_damage);
	if (rf->tail_damage)
		json_string(j, "tail_damage", rf->tail_damage);
	else
		json_null(j, "tail_damage");
	if (rf->left_out)
		json_string(j, "left_out", rf->left_out);
	else
		json_null(j, "left_out");
	json_object_end(j);
}

int recording_header_json(FILE *f, const struct recording_file *rf)
{
	struct json j;

	json_init(&j, f);
	json_object_begin(&j, NULL);
	json_string(&j, "recording", rf->path);
	json_object_begin(&j, "format");
	json_u64(&j, "major", rf->meta.major);
	json_u64(&j, "minor", rf->meta.minor);
	json_object_end(&j);
	json_u64(&j, "bytes", rf->size);
	json_bool(&j, "piped", rf->piped);
	hj_written_by(&j, rf);
	hj_session(&j, rf);
	hj_records(&j, rf);
	hj_tables(&j, rf);
	hj_options(&j, rf);
	hj_funcs(&j, rf);
	hj_state(&j, rf);
	json_object_end(&j);
	json_finish(&j);
	errno = 0;
	if (fflush(f) || ferror(f))
		return errno ? errno : EIO;
	return 0;
}
