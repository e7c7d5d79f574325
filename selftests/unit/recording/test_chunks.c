// SPDX-License-Identifier: GPL-2.0
/*
 * The events of formats 2 to 6 (recording/recording_codec.c,
 * recording_chunks.c): every record kind round-trips exactly through
 * chunks of random records (wide and narrow fields, times that go back,
 * threads that share a slot, call stacks and counters' slots), and so do
 * the other inputs; a damaged chunk, its bytes or its head, is left out
 * and named, and the other chunks are read whole; a record of a bad size,
 * at the drain's sentinel time or an op of no known type is refused in
 * one line.  SMALL records (format 3) round-trip at the bounds of their
 * fields, and MEDIUM ones (format 4) at every length of their difference,
 * a bad one refused in one line; a replay's runs of records
 * (recording_next_records()) are the events one by one; a frame's answer
 * is kept whenever it changes.
 * Format 1's reader: test_format1.c.
 */
#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-chunks-XXXXXX"
#include "scratch_dir.h"
#include "stderr_capture.h"
#include "recording_file.h"
#include "trace/trace.h"

#define NR_RANDOM	60000	/* records: three chunks */
#define FRAMES_ASKED	1000	/* past the writer's look-aside */

/* A xorshift of @x: the records of a seed, again when read back. */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A value of one of the widths a field takes, from @x. */
static uint64_t rnd_field(uint64_t *x, uint64_t last)
{
	switch (rnd(x) % 5) {
	case 0:
		return 0;
	case 1:
		return last;
	case 2:
		return rnd(x) % 300;
	case 3:
		return last - 64 + rnd(x) % 128;
	default:
		return rnd(x);
	}
}

/*
 * The @i-th event of the random stream into @slots or @in: records of
 * every kind (one in nine a call stack of up to four frame slots, one in
 * nine an entry or exit with a counters' slot), the thread inputs, the
 * trampoline; the same @x gives the same stream.
 */
static void random_event(uint64_t *x, uint64_t *ts, unsigned int i,
			 struct ispot_record *slots, struct session_input *in)
{
	uint64_t *w = (uint64_t *)(slots + 1);
	unsigned int k, n;

	memset(in, 0, sizeof(*in));
	in->type = i % 50 == 7 ? INPUT_THREAD_SEEN + rnd(x) % 3 :
				 INPUT_RECORD;
	if (in->type != INPUT_RECORD) {
		/* What the event carries (rec_payload()), the rest 0. */
		in->tid = in->type == INPUT_TRAMPOLINE ? 0 : (uint32_t)rnd(x);
		in->a = rnd(x);
		in->b = in->type == INPUT_THREAD_SEEN ? 0 : rnd(x);
		return;
	}
	memset(slots, 0, ISPOT_SLOT_SIZE * DRAIN_MAX_SLOTS);
	*ts += rnd(x) % 4 ? rnd(x) % 5000 : -(rnd(x) % 100000);
	if (rnd(x) % 1000 == 0)
		*ts = rnd(x) % UINT64_MAX;
	slots->ts_ns = *ts;
	slots->tid = 100 + rnd(x) % 100;	/* slots shared */
	slots->tgid = rnd(x) % 20 ? 4321 : (uint32_t)rnd(x);
	slots->probe_id = rnd(x) % 10 ? rnd(x) % 40 : (uint32_t)rnd(x);
	slots->cpu = rnd(x) % 8 ? slots->tid & 3 : (uint16_t)rnd(x);
	k = rnd(x) % 9;
	slots->kind = k < 6 ? ISPOT_REC_ENTRY + (k & 1) :
		      k == 6 ? ISPOT_REC_STACK : (uint8_t)rnd(x);
	n = slots->kind == ISPOT_REC_STACK ? 2 + rnd(x) % 4 :
	    k == 5 ? 2 : 1;
	slots->nslots = n;
	slots->sp = rnd_field(x, 0x7ffd0000);
	slots->ip = rnd_field(x, 0x401000);
	for (k = 0; k < 3; k++)
		slots->data[k] = rnd_field(x, 0x1000);
	for (k = 0; k < (n - 1) * ISPOT_SLOT_SIZE / 8; k++)
		w[k] = rnd_field(x, 0x401000);
}

/* A recording of the random stream of @seed, with its frame answers. */
static void write_random(const char *path, uint64_t seed)
{
	static struct ispot_record slots[DRAIN_MAX_SLOTS];
	struct session_summary s = { .mode = MODE_RUN,
				     .abi_major = ISPOT_ABI_MAJOR };
	const struct session_tables tb = { 0 };
	struct session_input in;
	struct recording *r = recording_create(path, 1ull << 30, NULL, 0);
	uint64_t x = seed, ts = 1000;
	unsigned int i;

	ASSERT_TRUE(r != NULL);
	for (i = 0; i < NR_RANDOM; i++) {
		random_event(&x, &ts, i, slots, &in);
		in.rec = slots;
		recording_input(r, &in);
		if (i % 100 == 3)
			recording_frame(r, 0x400000 + i, i & 1);
	}
	ASSERT_EQ(recording_finish(r, &s, &tb), 0);
	recording_free(r);
}

/* The next event of @rf must be the random stream's @i-th. */
static void expect_event(const struct recording_file *rf,
			 struct recording_cursor *cur, uint64_t *x,
			 uint64_t *ts, unsigned int i)
{
	static struct ispot_record slots[DRAIN_MAX_SLOTS];
	struct session_input in, ev;

	random_event(x, ts, i, slots, &in);
	ASSERT_EQ(recording_next(rf, cur, &ev), 1);
	ASSERT_EQ(ev.type, in.type);
	if (in.type == INPUT_RECORD) {
		ASSERT_EQ(memcmp(ev.rec, slots,
				 slots->nslots * ISPOT_SLOT_SIZE), 0);
	} else {
		ASSERT_EQ(ev.tid, in.tid);
		ASSERT_EQ(ev.a, in.a);
		ASSERT_EQ(ev.b, in.b);
	}
	if (i % 100 == 3) {
		ASSERT_EQ(recording_next(rf, cur, &ev), 1);
		ASSERT_EQ(ev.type, INPUT_FRAME);
		ASSERT_EQ(ev.a, 0x400000 + i);
		ASSERT_EQ(ev.b, i & 1);
	}
}

TEST(every_record_round_trips_exactly)
{
	struct recording_cursor cur = { 0 };
	struct recording_file rf;
	struct session_input ev;
	char path[PATH_MAX];
	uint64_t x = 88172645463325252ull, ts = 1000;
	unsigned int i;

	path_in(path, "random.isr");
	write_random(path, x);
	ASSERT_EQ(recording_open(path, &rf), 0);
	EXPECT_GE(rf.nr_events, 3);
	EXPECT_EQ(rf.meta.major, RECORDING_MAJOR);
	for (i = 0; i < NR_RANDOM; i++)
		expect_event(&rf, &cur, &x, &ts, i);
	EXPECT_EQ(recording_next(&rf, &cur, &ev), 0);
	recording_cursor_free(&cur);
	recording_close(&rf);
}

/*
 * The events of @path read as a replay reads them, runs of records and
 * the rest, against the same read one by one: the same, in order.
 */
static void runs_are_the_events(const char *path)
{
	struct recording_cursor one = { 0 }, runs = { 0 };
	struct recording_file rf;
	struct session_input ev, run;
	const struct ispot_record *r;
	uint64_t latest;
	uint32_t i;
	int n;

	ASSERT_EQ(recording_open(path, &rf), 0);
	while ((n = recording_next_records(&rf, &runs, &run)) > 0) {
		if (run.type != INPUT_RECORDS) {
			ASSERT_EQ(recording_next(&rf, &one, &ev), 1);
			ASSERT_EQ(ev.type, run.type);
			ASSERT_EQ(ev.a, run.a);
			continue;
		}
		ASSERT_GT(run.nr, 0);
		latest = 0;
		for (i = 0, r = run.rec; i < run.nr; i++, r += r->nslots) {
			ASSERT_EQ(recording_next(&rf, &one, &ev), 1);
			ASSERT_EQ(ev.type, INPUT_RECORD);
			ASSERT_EQ(memcmp(ev.rec, r,
					 r->nslots * ISPOT_SLOT_SIZE), 0);
			latest = r->ts_ns > latest ? r->ts_ns : latest;
		}
		EXPECT_EQ(run.a, latest);
	}
	EXPECT_EQ(n, 0);
	EXPECT_EQ(recording_next(&rf, &one, &ev), 0);
	recording_cursor_free(&one);
	recording_cursor_free(&runs);
	recording_close(&rf);
}

TEST(a_replays_runs_of_records_are_the_events)
{
	char path[PATH_MAX];

	path_in(path, "runs.isr");
	write_random(path, 0x9e3779b97f4a7c15ull);
	runs_are_the_events(path);
}

/*
 * @path's events are @n records, @want's, and read as a replay reads them
 * the same: the length of its first chunk.
 */
static size_t reads_back(const char *path, const struct ispot_record *want,
			 unsigned int n)
{
	struct recording_cursor cur = { 0 };
	struct recording_file rf;
	struct session_input ev;
	unsigned int i;
	size_t len;

	ASSERT_EQ(recording_open(path, &rf), 0);
	len = rf.events[0].len;
	for (i = 0; i < n; i++) {
		ASSERT_EQ(recording_next(&rf, &cur, &ev), 1);
		ASSERT_EQ(ev.type, INPUT_RECORD);
		ASSERT_EQ(memcmp(ev.rec, &want[i], sizeof(want[i])), 0);
	}
	EXPECT_EQ(recording_next(&rf, &cur, &ev), 0);
	recording_cursor_free(&cur);
	recording_close(&rf);
	runs_are_the_events(path);
	return len;
}

/*
 * Entries and exits that repeat their thread's call site, arguments and
 * cpu, at the bounds of a SMALL record's fields and one past each: every
 * one round-trips, SMALL or not, and most are SMALL (5 bytes).
 */
TEST(small_records_round_trip_at_their_bounds)
{
	static const int64_t dts[] = { 0, 1, 65535, 65536, 7 };
	static const int64_t dsp[] = { -128, 127, 128, -129, 0 };
	static const uint32_t probe[] = { 0, 127, 128, 5, 1u << 31 };
	struct session_summary s = { .mode = MODE_RUN,
				     .abi_major = ISPOT_ABI_MAJOR };
	const struct session_tables tb = { 0 };
	struct ispot_record r = { .ts_ns = 1000, .tid = 101, .tgid = 4321,
				  .ip = 0x401000, .data = { 3 },
				  .kind = ISPOT_REC_ENTRY, .nslots = 1,
				  .sp = 0x7ffd0000 };
	struct ispot_record want[200];
	const struct session_input in = { .type = INPUT_RECORD, .rec = &r };
	struct recording *rec;
	char path[PATH_MAX];
	unsigned int i;

	path_in(path, "small.isr");
	rec = recording_create(path, 1ull << 30, NULL, 0);
	ASSERT_TRUE(rec != NULL);
	for (i = 0; i < 200; i++) {
		r.ts_ns += dts[i % 5];
		r.sp += dsp[(i / 5) % 5];
		r.probe_id = probe[(i / 25) % 5];
		r.kind = i & 1 ? ISPOT_REC_EXIT : ISPOT_REC_ENTRY;
		r.cpu = i % 50 == 49;	/* now and then, another cpu */
		want[i] = r;
		recording_input(rec, &in);
	}
	ASSERT_EQ(recording_finish(rec, &s, &tb), 0);
	recording_free(rec);
	/*
	 * About 28% are in every bound (5 bytes each), the rest 7 to 12
	 * bytes: under 8 a record only if those were SMALL.
	 */
	EXPECT_LT(reads_back(path, want, 200), 200 * 8);
}

/*
 * @buf (@len bytes, of @path), its chunk at @at sealed again, written and
 * read to its end: refused, in one line that says @why.  Frees @buf.
 */
static void events_refused(const char *path, char *buf, size_t len,
			   size_t at, const char *why)
{
	struct recording_cursor cur = { 0 };
	struct recording_file rf;
	struct session_input ev;
	int n;

	rec2_reseal(buf, at);
	spit(path, buf, len);
	ASSERT_EQ(recording_open(path, &rf), 0);
	capture_begin();
	while ((n = recording_next(&rf, &cur, &ev)) > 0)
		;
	capture_end();
	EXPECT_EQ(n, -1);
	EXPECT_TRUE(strstr(captured, why) != NULL);
	EXPECT_TRUE(strchr(captured, '\n') == captured + strlen(captured) - 1);
	recording_cursor_free(&cur);
	recording_close(&rf);
	free(buf);
}

/*
 * Entries and exits that repeat all but one argument (each of the three
 * in turn, by a difference of every length from 1 to 8 bytes, up and
 * down), and some that change two: every one round-trips; one argument
 * changed is MEDIUM (6 bytes and the difference), two are a body.
 */
TEST(medium_records_round_trip_at_their_bounds)
{
	struct session_summary s = { .mode = MODE_RUN,
				     .abi_major = ISPOT_ABI_MAJOR };
	const struct session_tables tb = { 0 };
	struct ispot_record r = { .ts_ns = 1000, .tid = 101, .tgid = 4321,
				  .ip = 0x401000, .data = { 3, 4, 5 },
				  .kind = ISPOT_REC_ENTRY, .nslots = 1,
				  .sp = 0x7ffd0000, .probe_id = 9 };
	const struct session_input in = { .type = INPUT_RECORD, .rec = &r };
	struct ispot_record want[2 + 96 + 8];
	struct recording *rec;
	char path[PATH_MAX];
	unsigned int i, n = 0, k, bytes;
	uint64_t last[2][3];
	size_t medium = 0, len;

	path_in(path, "medium.isr");
	rec = recording_create(path, 1ull << 30, NULL, 0);
	ASSERT_TRUE(rec != NULL);
	/* An entry and an exit the next ones are told from. */
	for (i = 0; i < 2; i++, n++) {
		r.kind = i ? ISPOT_REC_EXIT : ISPOT_REC_ENTRY;
		want[n] = r;
		recording_input(rec, &in);
	}
	/* Each kind's arguments, told from its own last. */
	memcpy(last[0], r.data, sizeof(r.data));
	memcpy(last[1], r.data, sizeof(r.data));
	for (i = 0; i < 96; i++, n++) {
		uint64_t *d = last[i & 1];

		k = (i / 2) % 3;
		bytes = 1 + (i / 6) % 8;
		/* A zigzag of @bytes bytes: its top byte not 0. */
		d[k] += i < 48 ? (1ull << (8 * bytes - 2)) :
			-(1ull << (8 * bytes - 2)) - 1;
		r.kind = i & 1 ? ISPOT_REC_EXIT : ISPOT_REC_ENTRY;
		memcpy(r.data, d, sizeof(r.data));
		/* Steps a body takes 2 and 1 bytes for, a MEDIUM none. */
		r.ts_ns += 1000;
		r.sp -= 8;
		want[n] = r;
		recording_input(rec, &in);
		medium += 6 + bytes;
	}
	for (i = 0; i < 8; i++, n++) {
		r.data[i % 3] += 7;
		r.data[(i + 1) % 3] += 9;
		r.kind = ISPOT_REC_ENTRY;
		want[n] = r;
		recording_input(rec, &in);
	}
	ASSERT_EQ(recording_finish(rec, &s, &tb), 0);
	recording_free(rec);
	/*
	 * The 96 are MEDIUM, @medium bytes (as bodies, 2 bytes more each).
	 * The rest, 89: the thread's op (5), the first entry's body (17:
	 * time, stack pointer, probe id, call site and three arguments, all
	 * new), the first exit's (11: probe id, call site and the three
	 * arguments, its probe's first exit: format 5 tells a body from its
	 * probe's last call) and the last eight entries' (7 each: probe id
	 * and two arguments).
	 */
	len = reads_back(path, want, n);
	EXPECT_EQ(len, medium + 89);
}

/*
 * A MEDIUM record of each length, 1 to 8 bytes of difference, that ends
 * its chunk: the reader loads 8 bytes of it only where the chunk has
 * them (8), and copies the tail otherwise (1 to 7); each round-trips and
 * takes 6 bytes and its difference.
 */
TEST(a_medium_record_that_ends_its_chunk_round_trips)
{
	struct session_summary s = { .mode = MODE_RUN,
				     .abi_major = ISPOT_ABI_MAJOR };
	const struct session_tables tb = { 0 };
	struct ispot_record r, want[3];
	const struct session_input in = { .type = INPUT_RECORD, .rec = &r };
	struct recording *rec;
	char path[PATH_MAX];
	unsigned int bytes, i;
	size_t first = 0, len;

	path_in(path, "medium_end.isr");
	for (bytes = 1; bytes <= 8; bytes++) {
		r = (struct ispot_record){ .ts_ns = 1000, .tid = 101,
					   .tgid = 4321, .ip = 0x401000,
					   .data = { 3, 4, 5 },
					   .kind = ISPOT_REC_ENTRY,
					   .nslots = 1, .sp = 0x7ffd0000,
					   .probe_id = 9 };
		rec = recording_create(path, 1ull << 30, NULL, 0);
		ASSERT_TRUE(rec != NULL);
		/* The entry the last is told from, and an exit between. */
		for (i = 0; i < 2; i++) {
			r.kind = i ? ISPOT_REC_EXIT : ISPOT_REC_ENTRY;
			r.ts_ns += 100;
			want[i] = r;
			recording_input(rec, &in);
		}
		r.kind = ISPOT_REC_ENTRY;
		r.ts_ns += 100;
		/* A zigzag of @bytes bytes: its top byte not 0. */
		r.data[bytes % 3] += 1ull << (8 * bytes - 2);
		want[2] = r;
		recording_input(rec, &in);
		ASSERT_EQ(recording_finish(rec, &s, &tb), 0);
		recording_free(rec);
		len = reads_back(path, want, 3);
		if (bytes == 1)
			first = len - 7;
		EXPECT_EQ(len, first + 6 + bytes);
	}
}

/*
 * Format 5: a record that is no entry or exit (here a solo gate's, ip 0,
 * data: the block, the ns waited, flags) is told from the thread's last
 * such record, not from its last entry's arguments and ip.  A gate before
 * every entry, whose first argument changes (so it is MEDIUM: it sets the
 * thread's entry class, which a gate told as an entry would be told
 * from): the gate takes 10 bytes (op, slot, kind, slots, three
 * descriptor bytes, time, probe id, its wait), the entry 7 (MEDIUM, a
 * one-byte step).  A gate told from the entry class (formats 2 to 4:
 * rec2_reset() with format 4's classes) writes its ip, data[0] and
 * data[2] against the entry's, and a wider wait: 28 a pair.  (Format 5
 * keeps no entry class, rec2_keeps_classes(); and an entry that is a body
 * is told from its probe's call.)
 */
TEST(a_gate_between_entries_is_told_from_the_last_gate)
{
	const struct session_summary s = { .t_enable = 1, .t_end = 1 << 20,
				     .abi_major = ISPOT_ABI_MAJOR };
	const struct session_tables tb = { 0 };
	struct ispot_record e = { .ts_ns = 1000, .tid = 101, .tgid = 4321,
				  .ip = 0x401000,
				  .data = { 0x7f0000001000, 4096, 3 },
				  .kind = ISPOT_REC_ENTRY, .nslots = 1,
				  .sp = 0x7ffd0000, .probe_id = 9 };
	struct ispot_record g = e;
	struct session_input in = { .type = INPUT_RECORD };
	struct ispot_record want[2 * 64];
	struct recording *rec;
	char path[PATH_MAX];
	unsigned int i, n = 0;
	size_t len;

	g.kind = ISPOT_REC_GATE;
	g.ip = 0;
	path_in(path, "gates.isr");
	rec = recording_create(path, 1ull << 30, NULL, 0);
	ASSERT_TRUE(rec != NULL);
	for (i = 0; i < 64; i++) {
		g.ts_ns = e.ts_ns + 100;
		g.data[0] = 7;			/* the block */
		g.data[1] = 100 + i % 50;	/* ns waited */
		g.data[2] = 0;
		e.ts_ns = g.ts_ns + 100;
		e.data[0] += 64;
		want[n++] = g;
		want[n++] = e;
		in.rec = &g;
		recording_input(rec, &in);
		in.rec = &e;
		recording_input(rec, &in);
	}
	ASSERT_EQ(recording_finish(rec, &s, &tb), 0);
	recording_free(rec);
	len = reads_back(path, want, n);
	printf("# %zu bytes for 64 gates and entries: %.1f a pair\n", len,
	       len / 64.0);
	/* The first pair and the thread's op take their fields whole. */
	EXPECT_TRUE(len <= 64 * 18 + 64);
}

/*
 * Format 5: an entry's or exit's body is told from its probe's last call
 * in the thread, not from the thread's last entry or exit (another
 * function's, whose arguments tell nothing of this one's).  Two nested
 * functions of unlike arguments (pointers, small numbers), two of each
 * changing every call so that their entries are bodies: an entry takes
 * 8 or 9 bytes (op, descriptor, time, probe id, two one-byte steps), an
 * exit 5 (SMALL), 28 to 30 a pair of calls.  Told from the thread's
 * last, as format 4 did, the entries took their arguments' differences
 * from the other function's, 5 to 6 bytes each: 59 a pair.
 */
TEST(a_body_is_told_from_its_probes_last_call)
{
	const struct session_summary s = { .t_enable = 1, .t_end = 1 << 20,
				     .abi_major = ISPOT_ABI_MAJOR };
	const struct session_tables tb = { 0 };
	struct ispot_record a = { .ts_ns = 1000, .tid = 101, .tgid = 4321,
				  .ip = 0x401000,
				  .data = { 0x7f0000001000, 4096, 3 },
				  .kind = ISPOT_REC_ENTRY, .nslots = 1,
				  .sp = 0x7ffd0000, .probe_id = 3 };
	struct ispot_record b = { .tid = 101, .tgid = 4321, .ip = 0x401200,
				  .data = { 5, 0x555500001000, 0x7ffd1000 },
				  .kind = ISPOT_REC_ENTRY, .nslots = 1,
				  .sp = 0x7ffcffc0, .probe_id = 4 };
	struct session_input in = { .type = INPUT_RECORD };
	struct ispot_record want[4 * 64], *order[4];
	struct recording *rec;
	char path[PATH_MAX];
	unsigned int i, j, n = 0;
	size_t len;

	path_in(path, "nested.isr");
	rec = recording_create(path, 1ull << 30, NULL, 0);
	ASSERT_TRUE(rec != NULL);
	for (i = 0; i < 64; i++) {
		struct ispot_record ax = a, bx;

		a.data[0] += 64;
		a.data[1] += 1;
		a.kind = ISPOT_REC_ENTRY;
		a.ts_ns += 300;
		b.data[1] += 8;
		b.data[2] -= 16;
		b.kind = ISPOT_REC_ENTRY;
		b.ts_ns = a.ts_ns + 100;
		bx = b;
		bx.kind = ISPOT_REC_EXIT;
		bx.ts_ns = b.ts_ns + 100;
		bx.data[0] = bx.data[1] = bx.data[2] = 0;
		ax = a;
		ax.kind = ISPOT_REC_EXIT;
		ax.ts_ns = bx.ts_ns + 50;
		ax.data[0] = ax.data[1] = ax.data[2] = 0;
		a.ts_ns = ax.ts_ns;
		order[0] = &a;
		order[1] = &b;
		order[2] = &bx;
		order[3] = &ax;
		for (j = 0; j < 4; j++) {
			want[n++] = *order[j];
			in.rec = order[j];
			recording_input(rec, &in);
		}
	}
	ASSERT_EQ(recording_finish(rec, &s, &tb), 0);
	recording_free(rec);
	len = reads_back(path, want, n);
	printf("# %zu bytes for 64 pairs of nested calls: %.1f a pair\n",
	       len, len / 64.0);
	/* The first pair takes its fields whole. */
	EXPECT_TRUE(len <= 64 * 30 + 64);
}

/*
 * A recording of an entry and a MEDIUM one after it, its last event, with
 * its byte @off (from the MEDIUM op) set to @v: refused in one line.
 */
static void medium_refused(size_t off, unsigned char v, const char *why)
{
	struct ispot_record r = { .ts_ns = 1000, .tid = 101, .tgid = 4321,
				  .ip = 0x401000, .kind = ISPOT_REC_ENTRY,
				  .nslots = 1, .sp = 0x7ffd0000 };
	struct session_summary s = { .mode = MODE_RUN,
				     .abi_major = ISPOT_ABI_MAJOR };
	const struct session_tables tb = { 0 };
	const struct session_input in = { .type = INPUT_RECORD, .rec = &r };
	struct recording *rec;
	char path[PATH_MAX];
	size_t len, at, end;
	uint64_t chunk;
	char *buf;

	path_in(path, "bad_medium.isr");
	rec = recording_create(path, 1ull << 30, NULL, 0);
	ASSERT_TRUE(rec != NULL);
	recording_input(rec, &in);
	r.data[1] = 1;		/* a difference of 1 byte: 7 in all */
	r.ts_ns += 5;
	recording_input(rec, &in);
	ASSERT_EQ(recording_finish(rec, &s, &tb), 0);
	recording_free(rec);
	buf = slurp(path, &len);
	at = rec2_nth_section(buf, len, REC_SEC_EVENTS, 0);
	ASSERT_GT(at, 0);
	memcpy(&chunk, buf + at + 8, 8);
	end = at + REC2_SECTION_HEAD + chunk;
	ASSERT_EQ((unsigned char)buf[end - 7], REC2_OP_MEDIUM);
	ASSERT_EQ((unsigned char)buf[end - 6] >> 6, 1);
	buf[end - 7 + off] = v;
	events_refused(path, buf, len, at, why);
}

TEST(a_bad_medium_record_is_refused_in_one_line)
{
	/* Its argument 3 (of 0 to 2). */
	medium_refused(1, 0xc0, "a record's fields are malformed");
	/* A difference of 8 bytes, where the chunk holds 1. */
	medium_refused(0, REC2_OP_MEDIUM | 7, "an event runs past its chunk");
	/* A difference of 2 bytes, where the chunk holds 1. */
	medium_refused(0, REC2_OP_MEDIUM | 1, "an event runs past its chunk");
	/* A slot that holds no thread. */
	medium_refused(1, 0x40 | 63, "a record names no thread");
}

/*
 * The random recording with its second chunk damaged at @off (from that
 * chunk's head): the first and third chunks are read whole, the second
 * is left out, and one line names it.
 */
static void damaged_second_chunk(size_t off)
{
	struct recording_cursor cur = { 0 };
	struct recording_file rf;
	struct session_input ev;
	char path[PATH_MAX];
	uint64_t x = 0x2545f4914f6cdd1dull, ts = 1000;
	size_t len, second, third, n = 0;
	char *buf;

	path_in(path, "damaged.isr");
	write_random(path, x);
	buf = slurp(path, &len);
	second = rec2_nth_section(buf, len, REC_SEC_EVENTS, 1);
	third = rec2_nth_section(buf, len, REC_SEC_EVENTS, 2);
	ASSERT_GT(second, 0);
	ASSERT_GT(third, second);
	buf[second + off] ^= 0x10;
	spit(path, buf, len);
	capture_begin();
	ASSERT_EQ(recording_open(path, &rf), 0);
	capture_end();
	EXPECT_EQ(rf.nr_events, 2);
	EXPECT_EQ(rf.lost, 1);
	EXPECT_TRUE(strstr(captured, "events chunk 2 (bytes ") != NULL);
	EXPECT_TRUE(strchr(captured, '\n') == captured + strlen(captured) - 1);
	/* The first chunk's events, whole. */
	while (cur.section == 0 && n < NR_RANDOM) {
		expect_event(&rf, &cur, &x, &ts, n++);
		if (cur.off == rf.events[0].len)
			break;
	}
	/* The third's are read, and end the events. */
	while (recording_next(&rf, &cur, &ev) == 1)
		n++;
	EXPECT_EQ(cur.section, 2);
	EXPECT_LT(n, NR_RANDOM);
	EXPECT_GT(n, NR_RANDOM / 3);
	recording_cursor_free(&cur);
	recording_close(&rf);
	free(buf);
}

TEST(a_damaged_chunk_is_left_out_and_named)
{
	damaged_second_chunk(REC2_SECTION_HEAD + 4000);
}

TEST(a_damaged_chunk_head_is_passed_over)
{
	damaged_second_chunk(9);	/* its length */
}

/*
 * The random recording written to @name in the scratch directory (its
 * path into @path) and read back (*@len bytes), and where its first
 * section of @type is, *@at.
 */
static char *random_section(const char *name, char *path, uint32_t type,
			    size_t *len, size_t *at)
{
	char *buf;

	path_in(path, name);
	write_random(path, 7);
	buf = slurp(path, len);
	*at = rec2_nth_section(buf, *len, type, 0);
	ASSERT_GT(*at, 0);
	return buf;
}

/* The random recording's first chunk, at byte @off, set to @v: refused. */
static void first_chunk_refused(size_t off, unsigned char v, const char *why)
{
	char path[PATH_MAX];
	size_t len, at;
	char *buf;

	buf = random_section("bad.isr", path, REC_SEC_EVENTS, &len, &at);
	buf[at + REC2_SECTION_HEAD + off] = v;
	events_refused(path, buf, len, at, why);
}

/* A recording of the one record @r (the writer keeps what it is given). */
static size_t write_one(const char *path, const struct ispot_record *r)
{
	struct session_summary s = { .mode = MODE_RUN,
				     .abi_major = ISPOT_ABI_MAJOR };
	const struct session_tables tb = { 0 };
	const struct session_input in = { .type = INPUT_RECORD, .rec = r };
	struct recording *rec = recording_create(path, 1ull << 30, NULL, 0);

	ASSERT_TRUE(rec != NULL);
	recording_input(rec, &in);
	ASSERT_EQ(recording_finish(rec, &s, &tb), 0);
	recording_free(rec);
	return 0;
}

TEST(a_bad_record_or_op_is_refused_in_one_line)
{
	struct ispot_record r[2] = { { .ts_ns = 5, .tid = 101, .tgid = 4321,
				       .kind = ISPOT_REC_STACK,
				       .nslots = 2 } };
	char path[PATH_MAX];
	size_t len, at;
	char *buf;

	/* Its ops: thread 6 slot 101 4321(2 bytes), record 1 slot 3 2. */
	path_in(path, "one.isr");
	write_one(path, r);
	buf = slurp(path, &len);
	at = rec2_nth_section(buf, len, REC_SEC_EVENTS, 0) +
	     REC2_SECTION_HEAD;
	ASSERT_EQ(buf[at], REC2_OP_THREAD);
	ASSERT_EQ(buf[at + 5], REC2_OP_RECORD);
	ASSERT_EQ(buf[at + 8], 2);
	free(buf);
	first_chunk_refused(0, 0x07, "an event of an unknown type");
	first_chunk_refused(0, REC2_OP_SHORT | 63, "names no thread");
	/* The random stream's first event is a record of thread 6's. */
	first_chunk_refused(1, REC2_SLOTS, "a thread slot is out of range");
}

TEST(a_record_of_no_slots_or_too_many_is_refused)
{
	struct ispot_record r[2] = { { .ts_ns = 5, .tid = 101, .tgid = 4321,
				       .kind = ISPOT_REC_STACK,
				       .nslots = 2 } };
	struct recording_cursor cur = { 0 };
	static const unsigned char bad[] = { 0, DRAIN_MAX_SLOTS + 1, 255 };
	struct recording_file rf;
	struct session_input ev;
	char path[PATH_MAX];
	size_t len, at, i;
	char *buf;

	path_in(path, "slots.isr");
	write_one(path, r);
	buf = slurp(path, &len);
	at = rec2_nth_section(buf, len, REC_SEC_EVENTS, 0);
	for (i = 0; i < sizeof(bad); i++) {
		buf[at + REC2_SECTION_HEAD + 8] = bad[i];
		rec2_reseal(buf, at);
		spit(path, buf, len);
		ASSERT_EQ(recording_open(path, &rf), 0);
		capture_begin();
		EXPECT_EQ(recording_next(&rf, &cur, &ev), -1);
		capture_end();
		EXPECT_TRUE(strstr(captured, "a record has a bad size") !=
			    NULL);
		recording_cursor_free(&cur);
		recording_close(&rf);
	}
	free(buf);
}

TEST(a_record_at_the_drain_sentinel_is_refused)
{
	struct ispot_record r = { .ts_ns = UINT64_MAX, .tid = 1, .tgid = 1,
				  .kind = ISPOT_REC_ENTRY, .nslots = 1 };
	struct recording_cursor cur = { 0 };
	struct recording_file rf;
	struct session_input ev;
	char path[PATH_MAX];

	path_in(path, "sentinel.isr");
	write_one(path, &r);
	ASSERT_EQ(recording_open(path, &rf), 0);
	capture_begin();
	EXPECT_EQ(recording_next(&rf, &cur, &ev), -1);
	capture_end();
	EXPECT_TRUE(strstr(captured, "a record is malformed: the recording "
			   "is damaged") != NULL);
	recording_cursor_free(&cur);
	recording_close(&rf);
}

/*
 * A frame's answer is an event when it is new or changed, whatever the
 * writer's look-aside of the answers asked for last: addresses enough to
 * share its slots, each asked six times in a row, the answer of a third
 * of them changing every second time.
 */
TEST(a_frame_answer_is_kept_when_it_changes)
{
	struct session_summary s = { .mode = MODE_RUN,
				     .abi_major = ISPOT_ABI_MAJOR };
	const struct session_tables tb = { 0 };
	struct recording_cursor cur = { 0 };
	static signed char last[FRAMES_ASKED];
	struct recording_file rf;
	struct session_input ev;
	struct recording *r;
	char path[PATH_MAX];
	unsigned int round, i, k, events = 0, want = 0;
	bool ok;

	path_in(path, "frames.isr");
	r = recording_create(path, 1ull << 30, NULL, 0);
	ASSERT_TRUE(r != NULL);
	memset(last, -1, sizeof(last));
	for (round = 0; round < 2; round++)
		for (i = 0; i < FRAMES_ASKED; i++)
			for (k = 0; k < 6; k++) {
				ok = i % 3 ? i & 1 : (k + round) / 2 & 1;
				recording_frame(r, 0x400000 + 16 * i, ok);
				want += last[i] != ok;
				last[i] = ok;
			}
	ASSERT_EQ(recording_finish(r, &s, &tb), 0);
	recording_free(r);
	ASSERT_EQ(recording_open(path, &rf), 0);
	memset(last, -1, sizeof(last));
	while (recording_next(&rf, &cur, &ev) == 1) {
		ASSERT_EQ(ev.type, INPUT_FRAME);
		i = (ev.a - 0x400000) / 16;
		ASSERT_LT(i, FRAMES_ASKED);
		EXPECT_NE(last[i], (signed char)ev.b);
		last[i] = ev.b;
		events++;
	}
	EXPECT_EQ(events, want);
	recording_cursor_free(&cur);
	recording_close(&rf);
}

/*
 * The function table's head damaged: the reader passes over it to the
 * probe table's head, and says the damage, not what it finds after it
 * (probes with no functions before them).
 */
TEST(a_damaged_function_table_head_is_said_as_damage)
{
	struct recording_file rf;
	char path[PATH_MAX];
	size_t len, at;
	char *buf;

	buf = random_section("funcshead.isr", path, REC_SEC_FUNCS, &len, &at);
	buf[at + 9] ^= 0x10;	/* its length */
	spit(path, buf, len);
	capture_begin();
	EXPECT_EQ(recording_open(path, &rf), -1);
	capture_end();
	EXPECT_TRUE(strstr(captured, "a table section is damaged: the "
			   "recording is damaged; record again") != NULL);
	EXPECT_TRUE(strchr(captured, '\n') == captured + strlen(captured) - 1);
	free(buf);
}

TEST_HARNESS_MAIN
