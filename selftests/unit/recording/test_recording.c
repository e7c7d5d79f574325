// SPDX-License-Identifier: GPL-2.0
/*
 * Recordings (recording/recording_*.c, recording/replay.c,
 * trace/trace_replay.c): a session driven through the live session's own
 * entry points (trace_on_record(), the thread and trampoline calls, the
 * frame check over this process's real maps) writes a recording and its
 * report; `report FILE` on it writes the same report byte for byte, and
 * re-keys it with --key.  The reader refuses, in one line each, a bad
 * magic, an unknown major version, another ABI, counts beyond their
 * bounds, a record whose slots do not match its size and one the drain
 * would refuse (a file cut short: test_cut.c); a byte flipped anywhere in the
 * events is reported or refused in one line.  --max-size stops the
 * records, keeps a valid file and both reports say so; outputs that
 * cannot be written are refused first, nothing half-written stays, and
 * the program recorded never inherits the file.  A block stays a block in
 * a replay (no Perfetto calls), and the address set stays bounded and
 * half empty.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-rec-XXXXXX"
#include "scratch_dir.h"
#include "stderr_capture.h"
#include "recording_session.h"
#include "recording_file.h"
#include "recording/recording_addrs.h"
#include "recording/recording_write.h"
#include "perfetto_reader.h"
#include "util/json_read.h"

/* The shared session, its report to @json, its recording to @rec. */
static void live_session(struct recording_session *s, const char *rec,
			 const char *json, uint64_t max_size)
{
	ASSERT_EQ(rs_start(s, rec, json, max_size), 0);
	rs_trace(s, 200);
	ASSERT_EQ(rs_stop(s), 0);
}

static int replay(const char *rec, const char *out, struct key_opt *key)
{
	struct trace_opts o = { .json = true, .output = out,
				.recording = rec };

	if (key) {
		o.keys[0] = *key;
		o.nr_keys = 1;
	}
	return trace_replay(&o);
}

/* report @rec --json -o @json --perfetto @pftrace. */
static int replay_perfetto(const char *rec, const char *json,
			   const char *pftrace)
{
	struct trace_opts o = { .json = true, .output = json,
				.recording = rec, .perfetto = pftrace };

	return trace_replay(&o);
}

/* One recorded session, shared by the tests of bad files. */
static char *good;
static size_t good_len;

static void recorded(void)
{
	struct recording_session s;
	char rec[PATH_MAX], json[PATH_MAX];

	path_in(rec, "good.isr");
	path_in(json, "good.json");
	live_session(&s, rec, json, 1ull << 30);
	trace_free(&s.t);
	good = slurp(rec, &good_len);
}

TEST(offline_report_is_the_live_report)
{
	char rec[PATH_MAX], live[PATH_MAX], off[PATH_MAX];
	struct recording_session s;
	char *a, *b;

	path_in(rec, "r.isr");
	path_in(live, "live.json");
	path_in(off, "offline.json");
	live_session(&s, rec, live, 1ull << 30);
	trace_free(&s.t);
	ASSERT_EQ(replay(rec, off, NULL), 0);
	a = slurp(live, NULL);
	b = slurp(off, NULL);
	/* Names came from the target's maps, and stacks were cut. */
	EXPECT_TRUE(strstr(a, "recording_test_caller") != NULL);
	EXPECT_TRUE(strstr(a, "recording_test_outer") != NULL);
	EXPECT_TRUE(strstr(a, "\"name\": \"worker\"") != NULL);
	EXPECT_STREQ(a, b);
	if (strcmp(a, b))
		printf("# live:    %.300s\n# offline: %.300s\n", a, b);
	free(a);
	free(b);
}

/*
 * An address of data, &recording_test_locks + 1 or + 2, in every call but
 * a thread's first and those after a call stack (every tenth), whose
 * entries are bodies (a STACK record moved the thread's sp): those are
 * the only entries that carry the first address.
 */
static uint64_t lock_of_call(unsigned int i)
{
	uint64_t base = (uint64_t)(uintptr_t)recording_test_locks;

	return i < 2 || i % 10 == 0 ? base : base + 1 + (i % 10 == 7);
}

/*
 * @rec replayed into @off: the report the live one in @live was, which
 * names data address @name ("recording_test_locks+0x2\"").
 */
static void names_as_live(const char *rec, const char *live, const char *off,
			  const char *name)
{
	char *a, *b;

	ASSERT_EQ(replay(rec, off, NULL), 0);
	a = slurp(live, NULL);
	b = slurp(off, NULL);
	EXPECT_TRUE(strstr(a, name) != NULL);
	EXPECT_STREQ(a, b);
	free(a);
	free(b);
}

/*
 * Keyed by an argument that is an address of data, whose changes only
 * MEDIUM records (format 4) carry: the replay names every key as the
 * live report did.
 */
TEST(a_changed_argument_is_named_offline)
{
	char rec[PATH_MAX], live[PATH_MAX], off[PATH_MAX];
	struct recording_session s;

	path_in(rec, "args.isr");
	path_in(live, "args_live.json");
	path_in(off, "args_offline.json");
	ASSERT_EQ(rs_start(&s, rec, live, 1ull << 30), 0);
	s.arg0 = lock_of_call;
	rs_trace(&s, 200);
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	names_as_live(rec, live, off, "recording_test_locks+0x2\"");
}

/*
 * Each thread's calls alternate between &recording_test_locks + 1 and + 2,
 * so that every entry of worker but the first two and those after a call
 * stack is MEDIUM; call boundary_call, if set, takes + 3 instead, an
 * address that no other record carries (a difference of 1 or 2 either
 * way: the same bytes, so the chunks end where they did without it).
 */
static unsigned int boundary_call = UINT_MAX;

static uint64_t alternating_lock(unsigned int i)
{
	uint64_t base = (uint64_t)(uintptr_t)recording_test_locks;

	return base + (i == boundary_call ? 3 : 1 + (i / 2 & 1));
}

/* A session of @calls with alternating_lock(), in chunks of @chunk bytes. */
static void alternating_session(const char *rec, const char *json,
				unsigned int calls, size_t chunk)
{
	struct recording_session s;

	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	recording_set_chunk(s.t.out.rec, chunk);
	s.arg0 = alternating_lock;
	rs_trace(&s, calls);
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
}

/*
 * Of @rec's records, the first that ends a chunk (the one whose bytes
 * reached the chunk's size) and is a MEDIUM entry of worker: its call,
 * or UINT_MAX if none.
 */
static unsigned int medium_entry_ending_a_chunk(const char *rec)
{
	struct recording_cursor cur = { 0 };
	struct recording_file rf;
	struct session_input ev;
	unsigned int call = 0, last = UINT_MAX, found = UINT_MAX;
	size_t section = 0;

	if (recording_open(rec, &rf))
		return UINT_MAX;
	while (found == UINT_MAX && recording_next(&rf, &cur, &ev) == 1) {
		if (cur.section != section && last != UINT_MAX)
			found = last;
		section = cur.section;
		last = UINT_MAX;
		if (ev.type != INPUT_RECORD || ev.rec->kind != ISPOT_REC_ENTRY ||
		    ev.rec->probe_id != RS_PROBE_WORKER)
			continue;
		/* Neither a thread's first call nor one after a stack. */
		if (call >= 2 && call % 10)
			last = call;
		call++;
	}
	recording_cursor_free(&cur);
	recording_close(&rf);
	return found;
}

/*
 * A MEDIUM entry that is the last record of its chunk goes through the
 * flush: its one new argument is still noted, and the replay names it.
 */
TEST(a_medium_entry_that_ends_a_chunk_is_named_offline)
{
	char rec[PATH_MAX], live[PATH_MAX], off[PATH_MAX];
	unsigned int found = UINT_MAX;
	size_t chunk;

	path_in(rec, "edge.isr");
	path_in(live, "edge_live.json");
	path_in(off, "edge_offline.json");
	/*
	 * At some chunk sizes every chunk ends on the same one of ten calls'
	 * records: try sizes until a chunk ends on a MEDIUM entry of worker.
	 */
	boundary_call = UINT_MAX;
	for (chunk = 200; chunk < 264 && found == UINT_MAX; chunk++) {
		alternating_session(rec, live, 400, chunk);
		found = medium_entry_ending_a_chunk(rec);
	}
	ASSERT_NE(found, UINT_MAX);
	boundary_call = found;
	alternating_session(rec, live, 400, chunk - 1);
	/* The same bytes: the call still ends its chunk. */
	ASSERT_EQ(medium_entry_ending_a_chunk(rec), boundary_call);
	names_as_live(rec, live, off, "recording_test_locks+0x3\"");
}

TEST(report_rekeys_a_recording)
{
	char rec[PATH_MAX], off[PATH_MAX];
	struct key_opt none = { "worker", { KEY_CALLSITE, 0, false } };
	struct key_opt typo = { "wroker", { KEY_NONE, 0, false } };
	struct recording_session s;
	char *b;

	path_in(rec, "k.isr");
	path_in(off, "k.json");
	live_session(&s, rec, off, 1ull << 30);
	trace_free(&s.t);
	b = slurp(off, NULL);
	EXPECT_TRUE(strstr(b, "\"key\": \"arg0\"") != NULL);
	free(b);
	ASSERT_EQ(replay(rec, off, &none), 0);
	b = slurp(off, NULL);
	EXPECT_TRUE(strstr(b, "\"key\": \"callsite\"") != NULL);
	EXPECT_TRUE(strstr(b, "\"key\": \"arg0\"") == NULL);
	free(b);
	capture_begin();
	EXPECT_EQ(replay(rec, off, &typo), -1);
	capture_end();
	EXPECT_TRUE(strstr(captured, "'wroker' matches no traced") != NULL);
}

/*
 * A function called fast enough for its traps to slow the program is
 * named in a note, with what to do: 10,000 calls of worker in 0.2 s
 * (50,000 a second); 2,000 (10,000 a second) are not.
 */
TEST(a_function_called_too_often_is_noted)
{
	const char *note = "worker was called 50000 times a second: two "
			   "traps a call slowed the program";
	unsigned int calls[] = { 10000, 2000 };
	struct recording_session s;
	char json[PATH_MAX];
	size_t i;
	char *a;

	path_in(json, "hot.json");
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(rs_start(&s, NULL, json, 1ull << 30), 0);
		rs_trace(&s, calls[i]);
		s.t.sum.t_end = s.t.sum.t_enable + 200 * 1000000ull;
		ASSERT_EQ(rs_stop(&s), 0);
		trace_free(&s.t);
		a = slurp(json, NULL);
		EXPECT_EQ(strstr(a, note) != NULL, i == 0);
		EXPECT_EQ(strstr(a, "times a second") != NULL, i == 0);
		free(a);
	}
}

/*
 * A function entered and never returned while traced (a thread's loop,
 * which --auto may pick) has no row: a note names it, live and replayed.
 * Here worker is entered once and calls flush 20 times.
 */
TEST(a_function_that_never_returned_is_noted)
{
	char rec[PATH_MAX], live[PATH_MAX], off[PATH_MAX];
	const char *note = "worker was entered and never returned while "
			   "traced (1 call still open at the end: ";
	uint64_t site = (uint64_t)(uintptr_t)recording_test_caller + 1;
	uint64_t sp = 0x7ffd0000, ts = 1000000;
	struct recording_session s;
	char *a, *b;
	int i;

	path_in(rec, "open.isr");
	path_in(live, "open-live.json");
	path_in(off, "open-off.json");
	ASSERT_EQ(rs_start(&s, rec, live, 1ull << 30), 0);
	s.t.sum.t_enable = ts;
	ASSERT_EQ(trace_begin_recording(&s.t), 0);
	trace_thread_seen(&s.t, 101, ts);
	rs_record(&s.t, ts += 10, ISPOT_REC_ENTRY, 101, RS_PROBE_WORKER, sp,
		  site, 0);
	for (i = 0; i < 20; i++) {
		rs_record(&s.t, ts += 100, ISPOT_REC_ENTRY, 101,
			  RS_PROBE_FLUSH, sp - 64, site, 0);
		rs_record(&s.t, ts += 500 + i, ISPOT_REC_EXIT, 101,
			  RS_PROBE_FLUSH, sp - 56, site, 0);
	}
	s.t.sum.t_end = ts + 1000;
	s.t.sum.drain.records = 41;
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	ASSERT_EQ(replay(rec, off, NULL), 0);
	a = slurp(live, NULL);
	b = slurp(off, NULL);
	EXPECT_TRUE(strstr(a, note) != NULL);
	EXPECT_TRUE(strstr(a, "\"name\": \"flush\"") != NULL);
	EXPECT_STREQ(a, b);
	free(a);
	free(b);
}

TEST(not_a_recording_is_refused)
{
	recorded();
	good[0] = 'X';
	refused(good, good_len, "is not an ispot recording: give a file");
	/* A record killed before it traced leaves an empty file. */
	refused(good, 0, "is empty, not a recording (a record killed before "
		"it traced");
}

/*
 * What is neither a regular file nor a pipe is refused at once: a
 * directory or a device gives nothing to read as a recording (SIGALRM
 * ends a test stuck reading /dev/zero).
 */
TEST(not_a_regular_file_or_pipe_is_refused_without_waiting)
{
	const char *paths[] = { NULL, "/dev/zero" };
	struct recording_file rf;
	size_t i;
	int ret;

	paths[0] = dir;
	alarm(10);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		capture_begin();
		ret = recording_open(paths[i], &rf);
		capture_end();
		recording_close(&rf);
		EXPECT_EQ(ret, -1);
		EXPECT_TRUE(strstr(captured,
				   "is not a regular file or a pipe") != NULL);
	}
	alarm(0);
}

/*
 * A FIFO is read as a file once its writer comes, however late (as cat
 * would wait for it): the same recording, event for event.
 */
TEST(a_fifo_is_read_when_its_writer_comes)
{
	struct recording_file rf;
	char fifo[PATH_MAX];
	pid_t pid;
	int fd, st;

	recorded();
	path_in(fifo, "late.isr");
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		/* Ends a writer no reader comes to, when the test failed. */
		alarm(10);
		usleep(200 * 1000);
		fd = open(fifo, O_WRONLY);
		_exit(fd < 0 || write(fd, good, good_len) != (ssize_t)good_len);
	}
	alarm(10);
	ASSERT_EQ(recording_open(fifo, &rf), 0);
	alarm(0);
	EXPECT_TRUE(rf.piped);
	EXPECT_EQ(rf.size, good_len);
	EXPECT_TRUE(rf.size == good_len && !memcmp(rf.map, good, good_len));
	EXPECT_TRUE(rf.nr_events > 0);
	recording_close(&rf);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_EQ(st, 0);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A session of 20,000 calls recorded to @fifo in chunks of 64 KiB, with a
 * timer's SIGALRM (@on, without SA_RESTART, as record's own signals are)
 * every @us µs throughout; @give_up as recording_set_give_up()'s.
 * rs_stop()'s result.
 */
static int recorded_under_a_timer(const char *fifo, const char *json,
				  void (*on)(int), long us,
				  const volatile sig_atomic_t *give_up)
{
	struct sigaction sa = { .sa_handler = on }, old;
	struct itimerval tick = { { 0, us }, { 0, us } }, off = { 0 };
	struct recording_session s;
	int ret;

	if (rs_start(&s, fifo, json, 1ull << 30))
		return -1;
	recording_set_chunk(s.t.out.rec, 64 * 1024);
	recording_set_give_up(s.t.out.rec, give_up);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &tick, NULL);
	rs_trace(&s, 20000);
	ret = rs_stop(&s);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	trace_free(&s.t);
	return ret;
}

/*
 * What a slow reader does: @in to @copy, 8 KiB at a time, sleeping @us
 * after each.  0, or -1 if a read or write failed.
 */
static int copy_slowly(int in, const char *copy, useconds_t us)
{
	char buf[8192];
	ssize_t n = -1;
	int out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n)
			break;
		usleep(us);
	}
	if (out >= 0)
		close(out);
	return out >= 0 && !n ? 0 : -1;
}

/* @copy is a whole recording: none of it cut, lost or damaged. */
static void expect_whole(const char *copy)
{
	struct recording_file rf;

	ASSERT_EQ(recording_open(copy, &rf), 0);
	EXPECT_FALSE(rf.cut);
	EXPECT_EQ(rf.lost, 0u);
	EXPECT_EQ(rf.tail_damage, NULL);
	EXPECT_TRUE(rf.nr_events > 4);
	recording_close(&rf);
}

/*
 * A reader that lags (ssh, `zstd -19`) behind `record -o -`, and signals
 * that arrive while a chunk's write waits for it (a timer's here; record's
 * SIGINT, SIGTERM and SIGHUP are caught so, without SA_RESTART): the
 * recording still arrives whole.  Through stdio, a write interrupted
 * before its first byte failed and the recording was lost.
 */
TEST(signals_amid_a_blocked_write_lose_nothing)
{
	char fifo[PATH_MAX], copy[PATH_MAX], json[PATH_MAX];
	pid_t pid;
	int ret, st;

	path_in(fifo, "slow.isr");
	path_in(copy, "slow_copy.isr");
	path_in(json, "slow.json");
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		alarm(60);
		_exit(copy_slowly(open(fifo, O_RDONLY), copy, 1000) ? 1 : 0);
	}
	ret = recorded_under_a_timer(fifo, json, on_alarm, 500, NULL);
	EXPECT_EQ(ret, 0);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_EQ(st, 0);
	expect_whole(copy);
}

/*
 * A reader of a FIFO (or of `-o -`) that is gone before the first tables
 * (it took the file's first 16 bytes, as `head -c 16` would) costs the
 * recording, said in one line when the write fails, not at the end: an
 * attached record traces on until stopped, and its user should know.
 * Not the session or its report.  Before, SIGPIPE killed a recording to
 * a FIFO, and a write that failed with the tables ended the session at
 * its start.
 */
TEST(a_reader_gone_before_the_tables_costs_only_the_recording)
{
	char fifo[PATH_MAX], json[PATH_MAX], head[16];
	struct recording_session s;
	int in, ret;

	path_in(fifo, "gone.isr");
	path_in(json, "gone.json");
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	in = open(fifo, O_RDONLY | O_NONBLOCK);
	ASSERT_TRUE(in >= 0);
	ASSERT_EQ(rs_start(&s, fifo, json, 1ull << 30), 0);
	ASSERT_EQ(read(in, head, sizeof(head)), (ssize_t)sizeof(head));
	close(in);
	/* rs_trace() exits the test if the tables' write ends the session. */
	capture_begin();
	rs_trace(&s, 200);
	capture_end();
	EXPECT_TRUE(strstr(captured, "(Broken pipe): its reader exited "
			   "before the end") != NULL);
	EXPECT_EQ(strchr(captured, '\n'), captured + strlen(captured) - 1);
	/* Said once: the end says nothing more, and the report comes. */
	capture_begin();
	ret = rs_stop(&s);
	capture_end();
	trace_free(&s.t);
	EXPECT_EQ(ret, -1);
	EXPECT_STREQ(captured, "");
	EXPECT_EQ(access(json, F_OK), 0);
}

static volatile sig_atomic_t alarms, give_up;

static void on_alarm_twice(int sig)
{
	(void)sig;
	if (++alarms >= 2)
		give_up = 1;
}

/*
 * A reader that never reads, and a signal: the write waits (above).  A
 * second (recording_set_give_up(), set by record's second Ctrl-C or
 * SIGTERM) ends it, and the recording, rather than hang until SIGKILL.
 */
TEST(a_second_signal_ends_a_write_that_never_ends)
{
	char fifo[PATH_MAX], json[PATH_MAX];
	pid_t pid;
	int ret, fd;

	path_in(fifo, "stuck.isr");
	path_in(json, "stuck.json");
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		fd = open(fifo, O_RDONLY);
		sleep(30);
		_exit(fd < 0);
	}
	ret = recorded_under_a_timer(fifo, json, on_alarm_twice, 20000,
				     &give_up);
	EXPECT_NE(ret, 0);
	EXPECT_TRUE(give_up);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * Whether child @pid ends within @tenths tenths of a second, its status
 * in *@st; else it is killed (a writer that never gives up fails).
 */
static bool child_ends_within(pid_t pid, int tenths, int *st)
{
	int i;

	for (i = 0; i < tenths && waitpid(pid, st, WNOHANG) != pid; i++)
		usleep(100 * 1000);
	if (i < tenths)
		return true;
	kill(pid, SIGKILL);
	waitpid(pid, st, 0);
	return false;
}

/*
 * The first signal before the write (the Ctrl-C that stopped the trace),
 * the second amid it, once some bytes went: writev() returns them, not
 * EINTR, and the write must still give up rather than wait in the next
 * writev() for a third signal (record_test.sh's stalled last write hung
 * so).  A pipe of one page, nobody reading.
 */
TEST(a_second_signal_ends_a_write_it_cut_short)
{
	struct sigaction sa = { .sa_handler = on_alarm_twice };
	static char bytes[64 * 1024];
	int pipefd[2], st = -1, i, ready = 0;
	pid_t pid;

	ASSERT_EQ(pipe(pipefd), 0);
	ASSERT_TRUE(fcntl(pipefd[1], F_SETPIPE_SZ, 4096) >= 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		struct iovec iov = { bytes, sizeof(bytes) };
		struct afile out = { .f = fdopen(pipefd[1], "w") };

		alarms = give_up = 0;
		sigemptyset(&sa.sa_mask);	/* no SA_RESTART, as record */
		sigaction(SIGUSR1, &sa, NULL);
		raise(SIGUSR1);
		_exit(out.f && rec_dest_writev(&out, &iov, 1, &give_up) ==
		      EINTR ? 0 : 1);
	}
	close(pipefd[1]);
	/*
	 * Its second signal only once a page is in the pipe: the rest of
	 * the write waits in writev() (or is about to, and sees it then).
	 */
	for (i = 0; i < 300 && (ioctl(pipefd[0], FIONREAD, &ready) ||
				ready < 4096); i++)
		usleep(10 * 1000);
	if (i == 300) {		/* never a page written: end it, and fail */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(pipefd[0]);
	}
	ASSERT_LT(i, 300);
	kill(pid, SIGUSR1);
	/* 10 s, then a writer waiting for a third signal is ended. */
	EXPECT_TRUE(child_ends_within(pid, 100, &st));
	close(pipefd[0]);
	EXPECT_EQ(st, 0);
}

/*
 * The same through a standard output left non-blocking, whose write
 * waits in poll() rather than in writev(): a second signal ends it too.
 */
TEST(a_second_signal_ends_a_wait_on_a_non_blocking_output)
{
	char json[PATH_MAX];
	int pipefd[2], st;
	pid_t pid;

	path_in(json, "stuck_nb.json");
	ASSERT_EQ(pipe(pipefd), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		alarms = give_up = 0;
		close(pipefd[0]);
		if (dup2(pipefd[1], STDOUT_FILENO) < 0 ||
		    fcntl(STDOUT_FILENO, F_SETFL, O_NONBLOCK))
			_exit(2);
		_exit(recorded_under_a_timer("-", json, on_alarm_twice, 20000,
					     &give_up) && give_up ? 0 : 1);
	}
	/* Nobody reads: the pipe fills, and stays full. */
	close(pipefd[1]);
	/* 30 s, then a writer that never gives up is ended: it failed. */
	EXPECT_TRUE(child_ends_within(pid, 300, &st));
	close(pipefd[0]);
	EXPECT_EQ(st, 0);
}

/*
 * `record -o -` to a pipe another program left O_NONBLOCK (it is the
 * open file's, shared with whoever else holds it): a chunk bigger than
 * the pipe's room waits for the reader (poll()) rather than fail with
 * EAGAIN.
 */
TEST(a_non_blocking_standard_output_is_waited_for)
{
	char copy[PATH_MAX], json[PATH_MAX];
	struct recording_session s;
	int pipefd[2], st;
	pid_t pid;

	path_in(copy, "nonblock.isr");
	path_in(json, "nonblock.json");
	ASSERT_EQ(pipe(pipefd), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		/* The writer: its standard output the pipe, non-blocking. */
		alarm(60);
		close(pipefd[0]);
		if (dup2(pipefd[1], STDOUT_FILENO) < 0 ||
		    fcntl(STDOUT_FILENO, F_SETFL, O_NONBLOCK) ||
		    rs_start(&s, "-", json, 1ull << 30))
			_exit(2);
		recording_set_chunk(s.t.out.rec, 100 * 1024);
		rs_trace(&s, 20000);
		_exit(rs_stop(&s) ? 1 : 0);
	}
	close(pipefd[1]);
	EXPECT_EQ(copy_slowly(pipefd[0], copy, 200), 0);
	close(pipefd[0]);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_EQ(st, 0);
	expect_whole(copy);
}

TEST(unknown_major_version_is_refused)
{
	char want[128];

	recorded();
	good[8] = 9;
	snprintf(want, sizeof(want), "recording of format 9.%d; this "
		 "ispotctl reads %d.x to %d.x", RECORDING_MINOR,
		 RECORDING_MAJOR_OLDEST, RECORDING_MAJOR);
	refused(good, good_len, want);
}

TEST(another_abi_is_refused)
{
	size_t meta;

	recorded();
	meta = section_at(good, good_len, REC_SEC_META);
	ASSERT_GT(meta, 0);
	good[meta + REC2_SECTION_HEAD] = 99;
	rec2_reseal(good, meta);
	refused(good, good_len, "holds records of ispot ABI 99.");
}

TEST(counts_past_their_bounds_are_refused)
{
	static const uint32_t types[] = { REC_SEC_FUNCS, REC_SEC_PROBES,
					  REC_SEC_NAMES, REC_SEC_THREADS };
	size_t i, at;

	recorded();
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		char *bad = malloc(good_len);

		memcpy(bad, good, good_len);
		at = section_at(bad, good_len, types[i]);
		ASSERT_GT(at, 0);
		memset(bad + at + REC2_SECTION_HEAD, 0xff, 4);
		rec2_reseal(bad, at);
		refused(bad, good_len, "is malformed");
		free(bad);
	}
}

#define RS_PROBE_BEGIN	3
#define RS_PROBE_END	4

/*
 * Whether the Perfetto trace at @path names a slice that begins with
 * @name, or (@within) holds it.
 */
static bool perfetto_slice_named(const char *path, const char *name,
				 bool within)
{
	struct pr_trace d;
	size_t len, i;
	char *buf = slurp(path, &len);
	bool found = false;

	memset(&d, 0, sizeof(d));
	ASSERT_EQ(pr_read(buf, len, &d), 0);
	for (i = 0; i < d.nr_ev; i++)
		found |= within ? strstr(d.ev[i].name, name) != NULL :
				  !strncmp(d.ev[i].name, name, strlen(name));
	pr_free(&d);
	free(buf);
	return found;
}

static bool perfetto_names(const char *path, const char *name)
{
	return perfetto_slice_named(path, name, false);
}

TEST(a_block_is_no_perfetto_call_live_or_replayed)
{
	char rec[PATH_MAX], json[PATH_MAX], live[PATH_MAX], off[PATH_MAX];
	struct recording_session s;
	struct recording_file rf;
	struct trace *t = &s.t;
	struct trace_func *f;
	uint32_t i;

	path_in(rec, "block.isr");
	path_in(json, "block.json");
	path_in(live, "block-live.pftrace");
	path_in(off, "block-off.pftrace");
	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	/* A third function, a block of one begin and one end marker. */
	f = realloc(t->funcs, 3 * sizeof(*t->funcs));
	ASSERT_TRUE(f != NULL);
	t->funcs = f;
	memset(&f[2], 0, sizeof(f[2]));
	snprintf(f[2].sym.name, ELF_SYM_NAME_MAX, "region");
	snprintf(f[2].sym.obj, PATH_MAX, "%s", s.exe);
	f[2].is_block = true;
	f[2].probe_id = RS_PROBE_BEGIN;
	t->nr_funcs = t->cap_funcs = 3;
	ASSERT_EQ(trace_pipe_probe(t, RS_PROBE_BEGIN, 2, TRACE_PROBE_BEGIN,
				   false), 0);
	ASSERT_EQ(trace_pipe_probe(t, RS_PROBE_END, 2, TRACE_PROBE_END,
				   false), 0);
	s.o.perfetto = live;
	ASSERT_EQ(trace_perfetto_open(t, NULL), 0);
	rs_trace(&s, 20);
	for (i = 0; i < 5; i++) {
		uint64_t ts = t->sum.t_end + 10 + i * 1000;

		rs_record(t, ts, ISPOT_REC_ENTRY, 101, RS_PROBE_BEGIN,
			  0x7ffd0000, 0, 0);
		rs_record(t, ts + 500, ISPOT_REC_ENTRY, 101, RS_PROBE_END,
			  0x7ffd0000, 0, 0);
	}
	t->sum.t_end += 10000;
	ASSERT_EQ(rs_stop(&s), 0);
	ASSERT_EQ(trace_perfetto_close(t, true), 0);
	trace_free(t);
	/* The file keeps which function is a block. */
	ASSERT_EQ(recording_open(rec, &rf), 0);
	ASSERT_EQ(rf.nr_funcs, 3);
	EXPECT_FALSE(rf.funcs[0].is_block);
	EXPECT_FALSE(rf.funcs[1].is_block);
	EXPECT_TRUE(rf.funcs[2].is_block);
	recording_close(&rf);
	ASSERT_EQ(replay_perfetto(rec, json, off), 0);
	/* Calls are slices; a block's markers are not, live or replayed. */
	EXPECT_TRUE(perfetto_names(live, "worker"));
	EXPECT_TRUE(perfetto_names(off, "worker"));
	EXPECT_FALSE(perfetto_names(live, "region"));
	EXPECT_FALSE(perfetto_names(off, "region"));
}

/*
 * Keyed by an argument that is an address of data: the replay's Perfetto
 * trace names each key as the live one did.  The names were handed to
 * the replay only after it, so its trace read "worker [0x55...]".
 */
TEST(keys_are_named_in_a_replayed_perfetto_trace)
{
	char rec[PATH_MAX], json[PATH_MAX], live[PATH_MAX], off[PATH_MAX];
	struct recording_session s;

	path_in(rec, "keys.isr");
	path_in(json, "keys.json");
	path_in(live, "keys-live.pftrace");
	path_in(off, "keys-off.pftrace");
	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	s.arg0 = lock_of_call;
	s.o.perfetto = live;
	ASSERT_EQ(trace_perfetto_open(&s.t, NULL), 0);
	rs_trace(&s, 200);
	ASSERT_EQ(rs_stop(&s), 0);
	ASSERT_EQ(trace_perfetto_close(&s.t, true), 0);
	trace_free(&s.t);
	ASSERT_EQ(replay_perfetto(rec, json, off), 0);
	EXPECT_TRUE(perfetto_slice_named(live, "recording_test_locks+0x2",
					 true));
	EXPECT_TRUE(perfetto_slice_named(off, "recording_test_locks+0x2",
					 true));
	EXPECT_FALSE(perfetto_slice_named(off, "[0x", true));
}

/* The name of thread @tid's track in the Perfetto trace at @path. */
static void perfetto_thread_name(const char *path, uint64_t tid, char *buf,
				 size_t len)
{
	struct pr_trace d;
	size_t n, i;
	char *bytes = slurp(path, &n);

	memset(&d, 0, sizeof(d));
	buf[0] = '\0';
	ASSERT_EQ(pr_read(bytes, n, &d), 0);
	for (i = 0; i < d.nr_tr; i++)
		if (d.tr[i].tid == tid)
			snprintf(buf, len, "%s", d.tr[i].name);
	pr_free(&d);
	free(bytes);
}

/*
 * The threads' names a live session read as it first saw them (here:
 * given, the session's tids being made up) are kept in the recording
 * (THREADS, 4.1), and the replay's Perfetto tracks carry them, as the
 * live ones do; a thread never named keeps a track without a name.  A
 * replay named none before.
 */
TEST(thread_names_name_a_replayed_perfettos_tracks)
{
	char rec[PATH_MAX], json[PATH_MAX], off[PATH_MAX], name[128];
	struct recording_session s;
	struct recording_file rf;

	path_in(rec, "names.isr");
	path_in(json, "names.json");
	path_in(off, "names-off.pftrace");
	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	rs_trace(&s, 20);
	ASSERT_EQ(thread_names_set(&s.t.threads, 101, "worker-one"), 0);
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	ASSERT_EQ(recording_open(rec, &rf), 0);
	EXPECT_EQ(rf.meta.minor, RECORDING_MINOR);
	EXPECT_STREQ(thread_names_get(&rf.threads, 101), "worker-one");
	EXPECT_TRUE(thread_names_get(&rf.threads, 102) == NULL);
	recording_close(&rf);
	ASSERT_EQ(replay_perfetto(rec, json, off), 0);
	perfetto_thread_name(off, 101, name, sizeof(name));
	EXPECT_STREQ(name, "worker-one");
	perfetto_thread_name(off, 102, name, sizeof(name));
	EXPECT_TRUE(strcmp(name, "worker-one") != 0);
}

/*
 * Member @key of the report @json (of its function @name, unless NULL),
 * or -1.
 */
static double report_value(const char *json, const char *name,
			   const char *key)
{
	size_t len, i;
	char *text = slurp(json, &len);
	const char *err;
	struct json_value *v = json_parse(text, len, &err);
	const struct json_value *fns = json_get(v, "functions"), *x = NULL;
	double ret;

	if (!name)
		x = json_get(v, key);
	for (i = 0; name && fns && i < fns->n; i++) {
		const struct json_value *fn_name = json_get(&fns->items[i],
							    "name");

		if (fn_name && fn_name->s && !strcmp(fn_name->s, name))
			x = json_get(&fns->items[i], key);
	}
	ret = x ? x->d : -1;
	json_value_free(v);
	free(text);
	return ret;
}

/* @key of the report's "events" object in @json, or -1. */
static double events_value(const char *json, const char *key)
{
	size_t len;
	char *text = slurp(json, &len);
	const char *err;
	struct json_value *v = json_parse(text, len, &err);
	const struct json_value *x = json_get(json_get(v, "events"), key);
	double ret = x ? x->d : -1;

	json_value_free(v);
	free(text);
	return ret;
}

/* The time a report's note says its lost chunks spanned, in ns, or -1. */
static double note_lost_ns(const char *report)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	const char *p = strstr(report, "and the threads' time leaves out the ");
	double v, scale = 1;
	char *end;
	size_t i;

	if (!p)
		return -1;
	v = strtod(p + strlen("and the threads' time leaves out the "), &end);
	for (i = 0; i < 4; i++, scale *= 1000)
		if (!strncmp(end, units[i], strlen(units[i])) &&
		    end[strlen(units[i])] == ' ')
			return v * scale;
	return -1;
}

/*
 * @rec, whose report is @json, with its chunk of events @nth (from 0)
 * damaged: its worker's and flush's SCI over the whole file's.  The
 * report's note says the time left out, more than none and less than
 * the report's own (at most a quarter here).
 */
static void sci_without_chunk(const char *rec, const char *json, size_t nth,
			      double *worker, double *flush)
{
	char bad[PATH_MAX], bad_json[PATH_MAX], want[64];
	size_t len, at;
	char *buf, *report;
	double lost;

	path_in(bad, "lost_bad.isr");
	path_in(bad_json, "lost_bad.json");
	buf = slurp(rec, &len);
	at = rec2_nth_section(buf, len, REC_SEC_EVENTS, nth);
	ASSERT_GT(at, 0);
	buf[at + REC2_SECTION_HEAD + 100] ^= 0xff;
	spit(bad, buf, len);
	capture_begin();
	ASSERT_EQ(replay(bad, bad_json, NULL), 0);
	capture_end();
	snprintf(want, sizeof(want), "events chunk %zu (bytes ", nth + 1);
	EXPECT_TRUE(strstr(captured, want) != NULL);
	*worker = report_value(bad_json, "worker", "sci") /
		  report_value(json, "worker", "sci");
	*flush = report_value(bad_json, "flush", "sci") /
		 report_value(json, "flush", "sci");
	/*
	 * No call longer than the whole file's longest: a call open at the
	 * loss is left out, not paired with a later call's return.
	 */
	EXPECT_GT(report_value(bad_json, "worker", "max_ns"), 0);
	EXPECT_GT(report_value(bad_json, "flush", "max_ns"), 0);
	EXPECT_LE(report_value(bad_json, "worker", "max_ns"),
		  report_value(json, "worker", "max_ns"));
	EXPECT_LE(report_value(bad_json, "flush", "max_ns"),
		  report_value(json, "flush", "max_ns"));
	printf("# chunk %zu of the events lost: SCI %.4f and %.4f of the "
	       "whole file's\n", nth + 1, *worker, *flush);
	report = slurp(bad_json, NULL);
	lost = note_lost_ns(report);
	printf("# the note: %.0f ns lost, of %.0f\n", lost,
	       report_value(bad_json, NULL, "duration_ns"));
	EXPECT_GT(lost, 0);
	EXPECT_LT(lost, report_value(bad_json, NULL, "duration_ns") / 3);
	free(report);
	free(buf);
}

/*
 * @calls calls recorded into @rec (at most @max_size bytes) in chunks of
 * 16 KiB, and reported whole into @json, whose worker must show an SCI:
 * the number of chunks.
 */
static size_t chunked_recording(const char *rec, const char *json,
				uint64_t max_size, unsigned int calls)
{
	struct recording_session s;
	size_t len, chunks = 0;
	char *buf;

	if (rs_start(&s, rec, json, max_size))
		return 0;
	recording_set_chunk(s.t.out.rec, 16 * 1024);
	rs_trace(&s, calls);
	EXPECT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	EXPECT_EQ(replay(rec, json, NULL), 0);
	EXPECT_GT(report_value(json, "worker", "sci"), 0.05);
	buf = slurp(rec, &len);
	while (rec2_nth_section(buf, len, REC_SEC_EVENTS, chunks))
		chunks++;
	free(buf);
	return chunks;
}

/*
 * A damaged chunk's time is left out of the threads' time, not only its
 * calls out of the figures: each SCI is then the share of the time the
 * file holds, as live (the synthetic session's calls are alike all
 * along).  With the time kept, the third of nine chunks lost took 12 %
 * off every SCI.  The first chunk's time runs from the trace's start,
 * the last's to its end.
 */
TEST(a_damaged_chunks_time_is_left_out_of_the_threads)
{
	char rec[PATH_MAX], json[PATH_MAX];
	size_t nth, chunks;
	double worker, flush;

	path_in(rec, "lost.isr");
	path_in(json, "lost.json");
	chunks = chunked_recording(rec, json, 1ull << 30, 5000);
	ASSERT_GE(chunks, 5);
	/* The first, one in the middle, the last. */
	for (nth = 0; nth < chunks; nth += nth ? chunks - 1 - nth : 2) {
		sci_without_chunk(rec, json, nth, &worker, &flush);
		EXPECT_LT(fabs(worker - 1), 0.005);
		EXPECT_LT(fabs(flush - 1), 0.005);
		if (nth == chunks - 1)
			break;
	}
}

/*
 * A recording stopped at --max-size, its last chunk damaged: the time
 * left out ends where the replay's time does, at the last record kept,
 * not at the live session's end (which took every thread's time).
 */
TEST(a_full_recordings_lost_last_chunk_ends_at_its_last_record)
{
	char rec[PATH_MAX], json[PATH_MAX], *report;
	size_t chunks;
	double worker, flush;

	path_in(rec, "full_lost.isr");
	path_in(json, "full_lost.json");
	/* 20,000 calls take far more than 64 KiB: stopped at it. */
	chunks = chunked_recording(rec, json, 64 * 1024, 20000);
	ASSERT_GE(chunks, 2);
	report = slurp(json, NULL);
	EXPECT_TRUE(strstr(report, "(--max-size)") != NULL);
	free(report);
	sci_without_chunk(rec, json, chunks - 1, &worker, &flush);
	EXPECT_LT(fabs(worker - 1), 0.005);
	EXPECT_LT(fabs(flush - 1), 0.005);
}

/*
 * A recording of one chunk, damaged: no record is read, and the time
 * lost runs from the trace's start to its end, not from 0 (the note
 * said days).
 */
TEST(a_lost_only_chunk_spans_the_trace)
{
	char rec[PATH_MAX], json[PATH_MAX], bad[PATH_MAX];
	size_t len, at;
	char *buf, *report;
	double lost, duration;

	path_in(rec, "lost_one.isr");
	path_in(json, "lost_one.json");
	path_in(bad, "lost_one_bad.isr");
	ASSERT_EQ(chunked_recording(rec, json, 1ull << 30, 40), 1);
	buf = slurp(rec, &len);
	at = rec2_nth_section(buf, len, REC_SEC_EVENTS, 0);
	buf[at + REC2_SECTION_HEAD + 10] ^= 0xff;
	spit(bad, buf, len);
	capture_begin();
	ASSERT_EQ(replay(bad, json, NULL), 0);
	capture_end();
	report = slurp(json, NULL);
	lost = note_lost_ns(report);
	duration = report_value(json, NULL, "duration_ns");
	printf("# the note: %.0f ns lost, of %.0f\n", lost, duration);
	EXPECT_GT(lost, duration * 0.9);
	EXPECT_LE(lost, duration);
	free(report);
	free(buf);
}

/*
 * Thread 101's worker calls each span 200 of thread 102's flush calls:
 * a 16 KiB chunk holds several of them, so a lost one holds a worker's
 * return and a later one's entry.  Recorded into @rec, reported whole
 * into @json; the number of chunks.
 */
static size_t long_calls_recording(const char *rec, const char *json)
{
	uint64_t site = (uint64_t)(uintptr_t)recording_test_caller + 1;
	uint64_t ts = 1000000, sp1 = 0x7ffd0000 - 101 * 0x1000;
	uint64_t sp2 = 0x7ffd0000 - 102 * 0x1000;
	struct recording_session s;
	size_t len, chunks = 0;
	unsigned int i, j;
	char *buf;

	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	recording_set_chunk(s.t.out.rec, 16 * 1024);
	s.t.sum.t_enable = ts;
	ASSERT_EQ(trace_begin_recording(&s.t), 0);
	trace_thread_seen(&s.t, 101, ts);
	trace_thread_seen(&s.t, 102, ts);
	for (i = 0; i < 60; i++) {
		rs_record(&s.t, ts += 100, ISPOT_REC_ENTRY, 101,
			  RS_PROBE_WORKER, sp1, site, 0);
		for (j = 0; j < 200; j++) {
			rs_record(&s.t, ts += 100, ISPOT_REC_ENTRY, 102,
				  RS_PROBE_FLUSH, sp2, site, 0);
			rs_record(&s.t, ts += 1000 + (j % 5) * 100,
				  ISPOT_REC_EXIT, 102, RS_PROBE_FLUSH,
				  sp2 + 8, site, 0);
		}
		rs_record(&s.t, ts += 100, ISPOT_REC_EXIT, 101,
			  RS_PROBE_WORKER, sp1 + 8, site, 0);
	}
	s.t.sum.t_end = ts + 1000;
	s.t.sum.drain.records = 60 * 402;
	EXPECT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	EXPECT_EQ(replay(rec, json, NULL), 0);
	buf = slurp(rec, &len);
	while (rec2_nth_section(buf, len, REC_SEC_EVENTS, chunks))
		chunks++;
	free(buf);
	return chunks;
}

/*
 * The longest slice whose name begins with @name in the Perfetto trace at
 * @path, from its begin to the end that closes it on its track; 0 if
 * none.
 */
static uint64_t perfetto_longest(const char *path, const char *name)
{
	struct pr_trace d;
	size_t len, i, j;
	char *buf = slurp(path, &len);
	uint64_t longest = 0;

	memset(&d, 0, sizeof(d));
	ASSERT_EQ(pr_read(buf, len, &d), 0);
	for (i = 0; i < d.nr_ev; i++) {
		unsigned int depth = 0;

		if (d.ev[i].type != 1 ||
		    strncmp(d.ev[i].name, name, strlen(name)))
			continue;
		for (j = i + 1; j < d.nr_ev; j++) {
			if (d.ev[j].track != d.ev[i].track)
				continue;
			if (d.ev[j].type == 1)
				depth++;
			else if (d.ev[j].type == 2 && !depth--)
				break;
		}
		ASSERT_LT(j, d.nr_ev);
		if (d.ev[j].ts - d.ev[i].ts > longest)
			longest = d.ev[j].ts - d.ev[i].ts;
	}
	pr_free(&d);
	free(buf);
	return longest;
}

/*
 * A call open when a chunk was lost is left out: its return may be among
 * the lost records, and a worker return after them is another call's.
 * Paired with it, one call of several and the stretch between came out
 * (2.34 ms, nine times the longest worker call of the whole file), in
 * the report and as a Perfetto slice; now none is longer than the whole
 * file's longest, and the note counts the call left out.
 */
TEST(a_call_open_at_a_lost_chunk_is_left_out)
{
	char rec[PATH_MAX], json[PATH_MAX], bad[PATH_MAX], bad_json[PATH_MAX];
	char pftrace[PATH_MAX];
	size_t len, at, chunks;
	char *buf, *report, *open_note;
	unsigned int open_calls = 0;

	path_in(rec, "open_lost.isr");
	path_in(json, "open_lost.json");
	path_in(bad, "open_lost_bad.isr");
	path_in(bad_json, "open_lost_bad.json");
	path_in(pftrace, "open_lost_bad.pftrace");
	chunks = long_calls_recording(rec, json);
	ASSERT_GE(chunks, 3);
	EXPECT_EQ(report_value(json, "worker", "calls"), 60);
	buf = slurp(rec, &len);
	at = rec2_nth_section(buf, len, REC_SEC_EVENTS, chunks / 2);
	buf[at + REC2_SECTION_HEAD + 100] ^= 0xff;
	spit(bad, buf, len);
	capture_begin();
	ASSERT_EQ(replay_perfetto(bad, bad_json, pftrace), 0);
	capture_end();
	/* The Perfetto trace's slices end where the loss began. */
	printf("# longest worker slice %llu ns\n",
	       (unsigned long long)perfetto_longest(pftrace, "worker"));
	EXPECT_LE(perfetto_longest(pftrace, "worker"),
		  report_value(json, "worker", "max_ns"));
	printf("# worker: %.0f calls, longest %.0f ns; whole: %.0f, %.0f\n",
	       report_value(bad_json, "worker", "calls"),
	       report_value(bad_json, "worker", "max_ns"),
	       report_value(json, "worker", "calls"),
	       report_value(json, "worker", "max_ns"));
	EXPECT_LE(report_value(bad_json, "worker", "max_ns"),
		  report_value(json, "worker", "max_ns"));
	EXPECT_LE(report_value(bad_json, "worker", "sci"), 1);
	/* The lost chunk held a worker's return: its call was open then. */
	report = slurp(bad_json, NULL);
	open_note = strstr(report, "miss their calls and the ");
	ASSERT_TRUE(open_note != NULL);
	EXPECT_EQ(sscanf(open_note, "miss their calls and the %u call",
			 &open_calls), 1);
	EXPECT_GE(open_calls, 1);
	EXPECT_TRUE(strstr(open_note, "open when it began") != NULL);
	free(report);
	free(buf);
}

/*
 * A LOST record (a full ring's drops, ABI 1.9) is recorded and replayed:
 * the report of the file stops the same open call from pairing and tells
 * the same drops as the live one.
 */
TEST(a_rings_lost_record_is_replayed)
{
	uint64_t site = (uint64_t)(uintptr_t)recording_test_caller + 1;
	uint64_t sp = 0x7ffd0000 - 101 * 0x1000, ts = 1000000;
	char rec[PATH_MAX], json[PATH_MAX], off[PATH_MAX];
	struct recording_session s;
	static const char *const keys[] = {
		"drop_bursts", "dropped_told", "open_at_drops",
		"dropped_time_ns",
	};
	struct ispot_record lost;
	size_t i;

	path_in(rec, "ring_lost.isr");
	path_in(json, "ring_lost.json");
	path_in(off, "ring_lost_off.json");
	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	s.t.sum.t_enable = ts;
	ASSERT_EQ(trace_begin_recording(&s.t), 0);
	trace_thread_seen(&s.t, 101, ts);
	rs_record(&s.t, ts += 100, ISPOT_REC_ENTRY, 101, RS_PROBE_WORKER, sp,
		  site, 0);
	pipeline_feed_fill(&lost, ts += 100, ISPOT_REC_LOST, 0, 101, 0, 0,
			   NULL);
	lost.data[0] = 7;
	lost.data[1] = ts + 500;
	trace_on_record(&s.t, &lost);
	rs_record(&s.t, ts += 1000, ISPOT_REC_EXIT, 101, RS_PROBE_WORKER,
		  sp + 8, site, 0);
	for (i = 0; i < 3; i++) {
		rs_record(&s.t, ts += 100, ISPOT_REC_ENTRY, 101,
			  RS_PROBE_WORKER, sp, site, 0);
		rs_record(&s.t, ts += 200, ISPOT_REC_EXIT, 101,
			  RS_PROBE_WORKER, sp + 8, site, 0);
	}
	s.t.sum.t_end = ts + 1000;
	s.t.sum.drain.records = 9;
	EXPECT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	ASSERT_EQ(replay(rec, off, NULL), 0);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		EXPECT_EQ(events_value(json, keys[i]),
			  events_value(off, keys[i]));
	EXPECT_EQ(events_value(off, "drop_bursts"), 1);
	EXPECT_EQ(events_value(off, "dropped_told"), 7);
	EXPECT_EQ(events_value(off, "open_at_drops"), 1);
	/* From the open call's entry to the last drop, then to its return. */
	EXPECT_EQ(events_value(off, "dropped_time_ns"), 601 + 499);
	EXPECT_EQ(report_value(json, "worker", "calls"), 3);
	EXPECT_EQ(report_value(off, "worker", "calls"), 3);
}

/* Flips in MAPS or THREADS whose table alone was left out. */
static size_t flips_spared;

/* Where a flipped byte is, and so what its report must be. */
enum flip_in {
	FLIP_EVENTS,	/* a chunk of events: left out, reported */
	FLIP_LATE,	/* a table after the events, or END: read as a cut */
	FLIP_SPARE,	/* MAPS, THREADS: its bytes left out, or a cut */
	FLIP_EARLY,	/* a table the events need: refused */
};

/*
 * One byte of @buf flipped, the file reported, in one line on stderr: a
 * flip in the chunk of events (its head or its bytes) leaves the chunk
 * out, and the report is made; one in a table written after the events
 * (or in the end section, or in their heads) is read as a cut there, the
 * events whole; one in a table before them refuses the file.
 * Whether it was refused.
 */
static bool flip_one(char *buf, size_t len, size_t off, enum flip_in in,
		     const char *bad, const char *json)
{
	bool ok;
	char *nl;
	int ret;

	buf[off] ^= 0xff;
	spit(bad, buf, len);
	buf[off] ^= 0xff;
	capture_begin();
	ret = replay(bad, json, NULL);
	capture_end();
	nl = strchr(captured, '\n');
	EXPECT_TRUE(nl && !nl[1] && nl != captured);
	if (in == FLIP_EVENTS) {
		char *report = slurp(json, NULL);

		ok = ret == 0 && strstr(captured, "events chunk 1 (bytes ") &&
		     strstr(captured, "is damaged: the report leaves out its "
			    "events");
		/* The report says so too, not only stderr. */
		EXPECT_TRUE(strstr(report, "1 chunk of the recording's events "
				   "was damaged and left out") != NULL);
		free(report);
	} else if ((in == FLIP_LATE || in == FLIP_SPARE) && ret == 0) {
		bool spared = in == FLIP_SPARE &&
			      strstr(captured, "the report is made without "
				     "them");

		ok = spared || (strstr(captured, " at byte ") &&
				strstr(captured, ", after its events: the "
				       "report holds the events of its 1 "
				       "whole chunk"));
		/* Left out alone: the statistics after it still read. */
		if (spared) {
			char *report = slurp(json, NULL);

			flips_spared++;
			EXPECT_TRUE(strstr(report, "\"dropped_known\"") ==
				    NULL);
			free(report);
		}
	} else {
		ok = ret == -1 && strstr(captured, "damaged");
	}
	EXPECT_TRUE(ok);
	if (!nl || nl[1] || nl == captured || !ok)
		printf("# byte %zu: %s", off, captured);
	return ret != 0;
}

/*
 * Every byte of the events and of every section head flipped in turn, in
 * a small recording, and a sample of the tables' bytes (flip_one()); no
 * read outside the file (build with -fsanitize=address,undefined to see
 * that too).
 */
TEST(a_flipped_byte_loses_its_chunk_or_is_refused)
{
	char rec[PATH_MAX], json[PATH_MAX], bad[PATH_MAX];
	struct recording_session s;
	size_t len, at, off, end, tried = 0, refused_n = 0, late = 0;
	size_t late_refused = 0;
	char *buf;

	path_in(rec, "flip.isr");
	path_in(json, "flip.json");
	path_in(bad, "flipped.isr");
	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	rs_trace(&s, 40);
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	buf = slurp(rec, &len);
	for (at = RECORDING_HEADER_SIZE; at + REC2_SECTION_HEAD <= len;
	     at = end) {
		enum flip_in in;
		uint32_t type;
		uint64_t l;
		bool r;

		rec2_section_head(buf, at, &type, &l);
		ASSERT_LE(l, len - at - REC2_SECTION_HEAD);
		end = at + REC2_SECTION_HEAD + l;
		in = type == REC_SEC_EVENTS ? FLIP_EVENTS :
		     type == REC_SEC_MAPS || type == REC_SEC_THREADS ?
		     FLIP_SPARE :
		     type == REC_SEC_NAMES || type == REC_SEC_STATS ||
		     type == REC_SEC_END ?
		     FLIP_LATE : FLIP_EARLY;
		/* Heads and events: every byte; tables: every seventh. */
		for (off = at; off < end;
		     off += off < at + REC2_SECTION_HEAD ||
			    type == REC_SEC_EVENTS ? 1 : 7) {
			r = flip_one(buf, len, off, in, bad, json);
			refused_n += r;
			late += in == FLIP_LATE || in == FLIP_SPARE;
			late_refused += (in == FLIP_LATE ||
					 in == FLIP_SPARE) && r;
			tried++;
		}
	}
	EXPECT_GT(tried, 1000);
	EXPECT_GT(refused_n, 0);
	/* Every flip after the events leaves a report. */
	EXPECT_EQ(late_refused, 0);
	EXPECT_GT(flips_spared, 0);
	printf("# %zu bytes, %zu flips, %zu refused; after the events %zu "
	       "flips, %zu refused\n", len, tried, refused_n, late,
	       late_refused);
	free(buf);
}

/*
 * Bytes appended after a whole recording are no part of it: the report
 * is the recording's, with one line saying how many were left out.  It
 * was refused ("data after its end").
 */
TEST(bytes_after_the_end_are_left_out)
{
	char rec[PATH_MAX], json[PATH_MAX], bad[PATH_MAX];
	char *a, *b, *buf;
	size_t len;
	int ret;

	recorded();
	path_in(rec, "appended.isr");
	path_in(json, "appended.json");
	path_in(bad, "appended-off.json");
	buf = malloc(good_len + 5000);
	ASSERT_TRUE(buf != NULL);
	memcpy(buf, good, good_len);
	for (len = good_len; len < good_len + 5000; len++)
		buf[len] = (char)(len * 131);
	spit(rec, good, good_len);
	ASSERT_EQ(replay(rec, json, NULL), 0);
	spit(rec, buf, good_len + 5000);
	capture_begin();
	ret = replay(rec, bad, NULL);
	capture_end();
	EXPECT_EQ(ret, 0);
	EXPECT_TRUE(strstr(captured, ": 5000 bytes after its end section are "
			   "no part of it") != NULL);
	EXPECT_EQ(strchr(captured, '\n'), captured + strlen(captured) - 1);
	a = slurp(json, NULL);
	b = slurp(bad, NULL);
	EXPECT_STREQ(a, b);
	free(a);
	free(b);
	free(buf);
}

/*
 * Stopped at --max-size: the drops, which the file keeps for the whole
 * session, are set against the session's records, not the file's (the
 * warning reads as live), and the note says whose they are.
 */
TEST(max_size_drops_are_a_share_of_the_session)
{
	char rec[PATH_MAX], live[PATH_MAX], off[PATH_MAX];
	struct recording_session s;
	char *a, *b, *wa, *wb;

	path_in(rec, "drops.isr");
	path_in(live, "drops-live.json");
	path_in(off, "drops-off.json");
	ASSERT_EQ(rs_start(&s, rec, live, 4096), 0);
	rs_trace(&s, 200);
	s.t.sum.dropped = s.t.sum.drain.records / 50;	/* 2% */
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	ASSERT_EQ(replay(rec, off, NULL), 0);
	a = slurp(live, NULL);
	b = slurp(off, NULL);
	wa = strstr(a, "were dropped (");
	wb = strstr(b, "were dropped (");
	ASSERT_TRUE(wa && wb);
	EXPECT_EQ(strncmp(wa, wb, strcspn(wa, ")")), 0);
	EXPECT_TRUE(strstr(b, "its drops are the whole session's") != NULL);
	free(a);
	free(b);
}

/* The number after "@name": in the JSON report @json; 0 if none. */
static uint64_t json_u64_field(const char *json, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\": ", name);
	p = strstr(json, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

TEST(max_size_stops_the_records_with_a_note)
{
	char rec[PATH_MAX], live[PATH_MAX], off[PATH_MAX];
	struct recording_file rf;
	struct stat st;
	struct recording_session s;
	uint64_t rf_full_ts, rf_enable;
	char *a, *b;

	path_in(rec, "small.isr");
	path_in(live, "small-live.json");
	path_in(off, "small-off.json");
	live_session(&s, rec, live, 4096);
	EXPECT_TRUE(s.t.sum.rec_full);
	trace_free(&s.t);
	ASSERT_EQ(recording_open(rec, &rf), 0);
	EXPECT_TRUE(rf.sum.rec_full);
	EXPECT_GT(rf.meta.records, 0);
	EXPECT_LT(rf.meta.records, 1000);
	rf_full_ts = rf.sum.rec_full_ts;
	rf_enable = rf.sum.t_enable;
	recording_close(&rf);
	ASSERT_EQ(stat(rec, &st), 0);
	ASSERT_EQ(replay(rec, off, NULL), 0);
	a = slurp(live, NULL);
	b = slurp(off, NULL);
	EXPECT_TRUE(strstr(a, "the recording stopped at 4.00KiB") != NULL);
	EXPECT_TRUE(strstr(b, "the recording stopped at 4.00KiB") != NULL);
	/*
	 * The file's report covers what it holds: its time ends at the last
	 * record kept, not at the live session's end (every thread's time,
	 * so every SCI, would be set against time with no record).
	 */
	EXPECT_EQ(json_u64_field(b, "duration_ns"),
		  rf_full_ts - rf_enable);
	EXPECT_LT(json_u64_field(b, "duration_ns"),
		  json_u64_field(a, "duration_ns"));
	free(a);
	free(b);
}

TEST(unwritable_outputs_are_refused_first)
{
	char rec[PATH_MAX];
	struct recording *r;
	struct dirent *de;
	DIR *d;
	int left = 0;

	capture_begin();
	r = recording_create("/nonexistent/x.isr", 1 << 20, NULL, 0);
	capture_end();
	EXPECT_TRUE(r == NULL);
	EXPECT_TRUE(strstr(captured, "cannot write /nonexistent/x.isr") !=
		    NULL);
	capture_begin();
	r = recording_create(dir, 1 << 20, NULL, 0);
	capture_end();
	EXPECT_TRUE(r == NULL);
	EXPECT_TRUE(strstr(captured, "(a directory): give -o a file") != NULL);
	recorded();
	path_in(rec, "good.isr");
	capture_begin();
	EXPECT_EQ(replay(rec, "/nonexistent/r.json", NULL), -1);
	capture_end();
	EXPECT_TRUE(strstr(captured, "cannot write /nonexistent/r.json") !=
		    NULL);
	/* A report that fails leaves no output behind, not even empty. */
	path_in(rec, "out.json");
	capture_begin();
	EXPECT_EQ(replay("/nonexistent/in.isr", rec, NULL), -1);
	capture_end();
	EXPECT_EQ(access(rec, F_OK), -1);
	/* A recording never finished leaves nothing, not even its temp. */
	path_in(rec, "never.isr");
	r = recording_create(rec, 1 << 20, NULL, 0);
	ASSERT_TRUE(r != NULL);
	recording_input(r, &(struct session_input){ .type = INPUT_TRAMPOLINE,
						    .a = 1, .b = 2 });
	recording_free(r);
	d = opendir(dir);
	ASSERT_TRUE(d != NULL);
	while ((de = readdir(d)))
		left += !strcmp(de->d_name, "never.isr") ||
			!strncmp(de->d_name, ".never.isr", 10);
	closedir(d);
	EXPECT_EQ(left, 0);
}

TEST(the_recording_is_not_inherited)
{
	char rec[PATH_MAX], fdpath[64], target[PATH_MAX];
	struct recording *r;
	struct dirent *de;
	DIR *d;
	int found = 0;

	path_in(rec, "cloexec.isr");
	r = recording_create(rec, 1 << 20, NULL, 0);
	ASSERT_TRUE(r != NULL);
	/* Every descriptor on its temporary file is closed on exec. */
	d = opendir("/proc/self/fd");
	ASSERT_TRUE(d != NULL);
	while ((de = readdir(d))) {
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		n = readlink(fdpath, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (!strstr(target, "/.cloexec.isr."))
			continue;
		found++;
		EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	}
	closedir(d);
	EXPECT_EQ(found, 1);
	recording_free(r);
}

TEST(the_address_set_stays_half_empty)
{
	struct rec_addrs s = { 0 };
	uint64_t a;
	unsigned char *v;

	/* What the old fixed hash put in one slot: a multiple of 2^40. */
	for (a = 1; a <= REC_MAX_ADDRS + 100; a++) {
		v = rec_addrs_add(&s, a << 40);
		if (a <= REC_MAX_ADDRS) {
			ASSERT_TRUE(v != NULL);
			*v = (unsigned char)a;
		} else {
			ASSERT_TRUE(v == NULL);
		}
	}
	EXPECT_EQ(rec_addrs_size(&s), REC_MAX_ADDRS);
	EXPECT_EQ(s.refused, 100);
	EXPECT_LE(2 * rec_addrs_size(&s), s.map.cap);
	/* Looking up never adds, and finds what was kept. */
	EXPECT_TRUE(rec_addrs_find(&s, (uint64_t)(REC_MAX_ADDRS + 1) << 40) ==
		    NULL);
	EXPECT_EQ(*rec_addrs_find(&s, 5ull << 40), 5);
	EXPECT_TRUE(rec_addrs_find(&s, 0) != NULL);
	EXPECT_EQ(rec_addrs_size(&s), REC_MAX_ADDRS);
	/* A known address is still found when the set is full. */
	EXPECT_TRUE(rec_addrs_add(&s, 7ull << 40) != NULL);
	rec_addrs_free(&s);
}

TEST_HARNESS_MAIN
