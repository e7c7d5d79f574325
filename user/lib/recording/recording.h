/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recordings: what `ispotctl record` writes and `ispotctl report` reads
 * (Documentation/recording.rst has the format).  A recording holds the
 * records in the order the drain gave them, with the session's other
 * inputs to the pipeline (thread lifetimes from /proc scans, the uprobe
 * trampoline, the stack-frame checks) at the point they were made, and
 * what the report needs that only the target could tell: the probe
 * table, names of the addresses the records carry, the maps, the drops.
 *
 * The reader takes the file as hostile: every size is checked against
 * what is left, every count against its bound, and a file that is not a
 * recording, is of another major version or is cut short before the
 * tables a replay needs gets one line; one cut short after them is
 * replayed from its whole chunks, and one line says what it lacks.
 */
#ifndef ISPOT_RECORDING_H
#define ISPOT_RECORDING_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/ispot.h>

#include "analysis/drain.h"
#include "recording/session.h"
#include "recording/source.h"
#include "recording/thread_names.h"

#define RECORDING_MAGIC		"ISPOTREC"
#define RECORDING_MAJOR		6	/* what the writer writes */
#define RECORDING_MINOR		1
#define RECORDING_MAJOR_OLDEST	1	/* the oldest the reader reads */
#define RECORDING_MAJOR_PACKED_NAMES	6	/* recording_names.c */
#define RECORDING_HEADER_SIZE	16
/* Format 1: its section and event heads (format 2's: recording_codec.h). */
#define RECORDING_SECTION_HEAD	16
#define RECORDING_EVENT_HEAD	8

/*
 * Section types.  The writer puts META, FUNCS, PROBES and START first
 * (format 2.1), and PROFILE (3.1) and UNLOADED (6.1, only when a pick's
 * library was unloaded), then the EVENTS, then NAMES, MAPS, THREADS
 * (4.1), STATS and END.
 */
enum recording_section {
	REC_SEC_EVENTS = 1,	/* a run of events */
	REC_SEC_META,		/* the session: versions, machine, options */
	REC_SEC_FUNCS,		/* traced functions and blocks */
	REC_SEC_PROBES,		/* probe id -> function, role */
	REC_SEC_NAMES,		/* address -> name, as the target named it */
	REC_SEC_MAPS,		/* the target's last maps snapshot */
	REC_SEC_STATS,		/* drops, times, where the recording stopped */
	REC_SEC_END,		/* empty, last: the file is whole */
	REC_SEC_START,		/* 2.1: when tracing began (u64 t_enable) */
	REC_SEC_PROFILE,	/* 3.1: --auto's wall-clock profile, or none */
	REC_SEC_THREADS,	/* 4.1: tid -> its name, as first seen */
	REC_SEC_UNLOADED,	/* 6.1: PROFILE's picks of unloaded libraries */
};

/* The last type this reader knows: a later one is skipped. */
#define REC_SEC_LAST	REC_SEC_UNLOADED

/*
 * Format 2 keeps the same sections, each with a check, and EVENTS as
 * chunks that decode on their own (recording_codec.h).  Format 1's event
 * types inside REC_SEC_EVENTS: the session's inputs
 * (enum session_input_type, source.h), with their payloads:
 *	INPUT_RECORD		the record's slots
 *	INPUT_THREAD_SEEN	u32 tid, u64 ts
 *	INPUT_THREAD_EXIT	u32 tid, u64 alive ts, u64 gone ts
 *	INPUT_TRAMPOLINE	u64 start, u64 end
 *	INPUT_FRAME		u64 addr, u8 ok: the frame check's answer
 * rec_payload() (recording_format.h) says the same to the writer and the
 * reader.
 */

/* Bounds the reader holds a file to. */
#define RECORDING_MAX_FUNCS	65536
#define RECORDING_MAX_PROBES	(1u << 20)
#define RECORDING_MAX_NAMES	(1u << 22)
#define RECORDING_MAX_ARGS	4096
#define RECORDING_MAX_SECTIONS	(1u << 24)
/* A build-id as hex, its NUL included. */
#define REC_BUILD_ID_MAX	160
/*
 * --auto's profile: its picks (each is traced: as many as functions), and
 * its folded stacks (the writer keeps the heaviest this many).
 */
#define RECORDING_MAX_PICKS	RECORDING_MAX_FUNCS
#define RECORDING_MAX_STACKS	(1u << 20)

/* --- writing (a live session) ------------------------------------------ */

struct recording;

/*
 * Start writing a recording to @path, through a temporary file beside it
 * (util/afile.h: closed on exec, so `record -- CMD` never hands it to the
 * target) that recording_finish() syncs and renames: a failed session
 * leaves nothing, but for a disk that filled after whole chunks of
 * events (recording_finish()).  @argv (@argc strings) is the command
 * line that made it, kept in the file.  @path "-" is standard output,
 * written as it goes (a pipe's reader sees each chunk as it is flushed);
 * fd 1 then becomes a copy of standard error, for the report and
 * record's command.
 * Events stop once the file would pass @max_size.  NULL after one line.
 * SIGXFSZ (and SIGPIPE for "-" or a path written in place, a FIFO), if
 * at its default, is caught for the rest of the process (the write then
 * fails with EFBIG or EPIPE, said), and reset at an exec.
 */
struct recording *recording_create(const char *path, uint64_t max_size,
				   char *const *argv, int argc);

/*
 * The probes are armed and tracing has begun (@s->t_enable): write the
 * tables a replay needs (the session, its functions and probes, when it
 * began) ahead of the events, so that a file cut short by a crash still
 * reports the chunks written before the cut.  Once; recording_finish()
 * writes them if it was never called.  0 (also when the reader of a
 * pipe has gone: recording_finish() says so), or -1 after one line.
 */
int recording_begin(struct recording *r, const struct session_summary *s,
		    const struct session_tables *tb);

/*
 * The events taken so far out to the file now, as a chunk of their own
 * (none if there are none): a live session calls it every
 * TRACE_SYNC_NS, so that a crash or a kill of a slow session loses that
 * much of its events at most, not the 1 MiB a chunk fills at.
 */
void recording_sync(struct recording *r);

/* Chunks of events of about @bytes (0: the default, 1 MiB); for tests. */
void recording_set_chunk(struct recording *r, size_t bytes);

/*
 * A write a signal interrupts goes on where it stopped, unless *@flag is
 * set then: the signal that gives up (trace_report() says which) ends a
 * write blocked on a reader that never reads, and the recording with it.
 */
void recording_set_give_up(struct recording *r,
			   const volatile sig_atomic_t *flag);

/*
 * The session's inputs to its pipeline, in the order it gets them, and
 * the answers of its stack-frame check (an INPUT_FRAME of their own).
 */
void recording_input(struct recording *r, const struct session_input *in);
void recording_frame(struct recording *r, uint64_t addr, bool ok);

/*
 * Whether the events stopped at --max-size: the size, and the record
 * time of the last record kept.
 */
bool recording_full(const struct recording *r, uint64_t *size,
		    uint64_t *last_ts);

/*
 * The session has stopped: name the addresses seen (by @tb->sym), write
 * @s and the tables, and rename the file into place.  0, or -1 after one
 * line (the temporary file is removed, or kept when ENOSPC, EDQUOT or
 * EFBIG came after whole chunks of events: a recording cut short).
 */
int recording_finish(struct recording *r, const struct session_summary *s,
		     const struct session_tables *tb);

/* Free; a recording not finished is removed. */
void recording_free(struct recording *r);

/* --- reading (ispotctl report) ----------------------------------------- */

struct autopick;

/* What only the file tells, beside the session's summary. */
struct recording_meta {
	uint16_t major, minor;		/* the file's format version */
	uint32_t ctl_abi_major, ctl_abi_minor;	/* the writer's */
	char version[64];		/* ispotctl's version */
	char kernel[128];		/* uname -r */
	uint32_t clock_id;		/* CLOCK_MONOTONIC */
	uint64_t start_realtime_ns;	/* wall clock at the start */
	uint64_t start_boottime_ns;	/* CLOCK_BOOTTIME at the start */
	uint64_t max_size;
	uint64_t records;		/* records in the file */
	/* What sum.counters[i].name points to. */
	char counter_names[ISPOT_MAX_COUNTERS][64];
	uint32_t nr_args;		/* record's command line */
	char **args;
};

struct recording_file {
	const char *path;
	unsigned char *map;
	size_t size;
	bool piped;		/* read from a pipe, not its file */
	struct session_summary sum;	/* the session, as it ended */
	struct recording_meta meta;
	struct trace_func *funcs;
	uint32_t nr_funcs;
	struct trace_probe *probes;
	uint32_t nr_probes;
	struct elf_symbolizer *names;	/* frozen: the NAMES section */
	/*
	 * The EVENTS sections, in file order (format 2: the sound ones),
	 * each marked if damaged bytes (a chunk left out) came before it.
	 */
	struct {
		const unsigned char *p;
		uint64_t len;
		bool after_loss;
	} *events;
	size_t nr_events, cap_events;
	/* Format 2: damaged chunks, left out, and the first of them. */
	uint32_t lost;
	size_t lost_chunk;
	uint64_t lost_from, lost_to;
	bool lost_tail;		/* the last damaged bytes ran to the end */
	bool loss_pending;	/* lost bytes no sound chunk followed yet */
	/*
	 * Format 2.1 cut short (no END): what it lacks (1 << section type)
	 * and where its whole sections end; the replay's duration then runs
	 * from START's t_enable to the last event kept.
	 */
	bool cut;
	unsigned int cut_missing;
	uint64_t cut_at;
	/*
	 * Format 2 on: not cut but damaged from cut_at (a table after the
	 * events, the end section, or section heads to the end of the
	 * file): read as the cut it amounts to, this says what was damaged.
	 */
	const char *tail_damage;
	const char *left_out;	/* a damaged table no report needs */
	uint64_t start_ns;	/* START's t_enable */
	struct autopick *picked;	/* 3.1: --auto's profile, or NULL */
	struct thread_names threads;	/* 4.1: THREADS, else empty */
	/* Each table's bytes read, by section type, heads left out. */
	uint64_t table_bytes[REC_SEC_LAST + 1];
};

/*
 * What @rf holds, in lines of "name  value", to @f: its format, who
 * wrote it where and when, what ran and was traced, its size, and
 * whether it is whole (recording_header.c).  0, or the errno of @f's
 * failure.
 */
int recording_header(FILE *f, const struct recording_file *rf);
/* The same as one JSON object (recording_header_json.c). */
int recording_header_json(FILE *f, const struct recording_file *rf);

/* A table of the file, as --header names it. */
struct rec_table_name {
	uint32_t type;		/* REC_SEC_* */
	const char *name;
};

/*
 * The tables --header tells, in its order (the names, most often the
 * largest, first); *@n of them.
 */
const struct rec_table_name *rec_table_names(size_t *n);

/* Whether @rf was read whole: nothing lost, cut, damaged or left out. */
static inline bool recording_whole(const struct recording_file *rf)
{
	return !rf->lost && !rf->cut && !rf->tail_damage && !rf->left_out;
}

/* Whether @rf's format may keep thread names (4.1 on: THREADS). */
static inline bool rec_format_has_threads(const struct recording_file *rf)
{
	return rf->meta.major > 4 ||
	       (rf->meta.major == 4 && rf->meta.minor >= 1);
}

/* Whether @rf's format keeps --auto's profile (3.1 on: PROFILE). */
static inline bool rec_format_has_profile(const struct recording_file *rf)
{
	return rf->meta.major > 3 ||
	       (rf->meta.major == 3 && rf->meta.minor >= 1);
}

struct rec_addrs;
struct rec2_state;

/* Where a replay is, and the frame checks' answers so far. */
struct recording_cursor {
	size_t section;
	uint64_t off;
	struct rec_addrs *frames;
	struct ispot_record slots[DRAIN_MAX_SLOTS];
	struct rec2_state *st;		/* format 2: the chunk's */
	struct ispot_record *batch;	/* recording_next_records() runs */
	/*
	 * The chunk begun is the first after a damaged one: the replay
	 * leaves the time between out of its threads' (replay.c).
	 */
	bool loss_pending;
};

/*
 * Read and check the file at @path: every section but the events' is
 * decoded here.  0, or -1 after one line saying what to do.  Format 2:
 * a damaged chunk of events is left out, in one line that says which.
 * "-" or a FIFO is kept whole in a file first (recording_pipe.c), and
 * SIGXFSZ is then caught for the process, as recording_create() does.
 */
int recording_open(const char *path, struct recording_file *rf);

/*
 * The next event (@ev->rec points at an aligned copy of a record's slots,
 * in the cursor): 1, 0 at the end, -1 after one line if malformed.
 */
int recording_next(const struct recording_file *rf,
		   struct recording_cursor *c, struct session_input *ev);

/*
 * As recording_next(), but a run of records comes as one INPUT_RECORDS
 * (source.h) of those of one chunk up to the next other event: what a
 * replay reads, where a call an event would cost as much as decoding it.
 */
int recording_next_records(const struct recording_file *rf,
			   struct recording_cursor *c,
			   struct session_input *ev);
/*
 * A stacks_frame_fn for a replay (@ctx: the cursor): the answer the
 * session's check gave for @addr at this point of the events.
 */
bool recording_frame_ok(void *ctx, uint64_t addr);

void recording_cursor_free(struct recording_cursor *c);
void recording_close(struct recording_file *rf);

/* --- replaying (recording/replay.c) ------------------------------------ */

/* A recording's events as a session's record source (source.h). */
struct recording_source {
	struct record_source src;
	const struct recording_file *rf;
	struct recording_cursor cur;	/* recording_frame_ok()'s @ctx */
	uint64_t last_ts;		/* the latest time of an event read */
	bool tail_loss_told;		/* INPUT_LOST of lost last chunks */
	/* The last time read before a loss, once its next chunk began. */
	uint64_t loss_since_ns;
	bool loss_since_set;
};

/* Read @rf's events from the start; @rf must outlive @s. */
void recording_source_init(struct recording_source *s,
			   const struct recording_file *rf);
void recording_source_free(struct recording_source *s);

#endif /* ISPOT_RECORDING_H */
