// SPDX-License-Identifier: GPL-2.0
/* One tracing session, shared by attach and run; see trace.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util/afile.h"
#include "util/errors.h"
#include "analysis/drain.h"
#include "export/perfetto.h"
#include "util/format.h"
#include "recording/baseline.h"
#include "trace/progress.h"
#include "recording/recording.h"
#include "report/report.h"
#include "trace/trace.h"
#include "trace/trace_internal.h"
#include "util/path.h"

/* The kernel's internal ENOTSUPP, which uprobe_register() returns. */
#define ENOTSUPP_KERNEL		524

/* With the rings empty, a round comes at least this often. */
#define TRACE_IDLE_POLL_MS	100
/*
 * For the first TRACE_EARLY_NS, idle rounds come every TRACE_EARLY_POLL_MS
 * and `run` re-reads its command's maps each round: a process that lives
 * a few ms is named only from maps read while it lives.
 */
#define TRACE_EARLY_NS		(1000 * 1000 * 1000ull)
#define TRACE_EARLY_POLL_MS	5
/*
 * While records wait in the rings for the horizon, rounds come at this
 * pace: the device is readable as long as any record is there, so a loop
 * that polled for POLLIN would spin (ispotd did, and took a vCPU).
 */
#define TRACE_BUSY_PACE_NS	(20 * 1000 * 1000ull)
/*
 * A stack frame outside the maps snapshot re-reads them (a library loaded
 * since) at most this often: a garbage frame is outside every snapshot.
 * Above TRACE_USER_END no frame is ever user code (ASCII read off the
 * stack, 0x3833313933393630, is): no re-reading for those.
 */
#define TRACE_FRAME_REFRESH_NS	(10 * 1000 * 1000ull)
#define TRACE_USER_END		0x800000000000ull

static volatile sig_atomic_t trace_signal;

static void trace_on_signal(int sig)
{
	trace_signal = sig;
}

uint64_t trace_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * stacks_frame_fn: a frame the module's frame-pointer walk read is a
 * return address only inside the target's code; anywhere else the walk
 * went through code that keeps no frame pointer, and the stack is cut
 * there (stacks.h).  Before the first snapshot nothing can be judged.
 */
static bool trace_judge_frame(struct trace *t, uint64_t addr)
{
	uint64_t now;

	if (!t->sym || elf_symbolizer_in_code(t->sym, addr))
		return true;
	if (addr >= TRACE_USER_END)
		return false;
	now = trace_now();
	if (elf_symbolizer_knows(t->sym, addr) ||
	    now - t->frames_refreshed < TRACE_FRAME_REFRESH_NS)
		return false;
	t->frames_refreshed = now;
	elf_symbolizer_refresh(t->sym, NULL, 0);
	return elf_symbolizer_in_code(t->sym, addr);
}

/* The answer depends on the maps at the time: a recording keeps it. */
bool trace_frame_in_code(void *ctx, uint64_t addr)
{
	struct trace *t = ctx;
	bool ok = trace_judge_frame(t, addr);

	if (t->rec)
		recording_frame(t->rec, addr, ok);
	return ok;
}

void trace_on_record(void *ctx, const struct ispot_record *rec)
{
	struct trace *t = ctx;

	if (t->perfetto)
		perfetto_record(t->perfetto, rec);
	pipeline_record(t->pipe, rec);
	/* After the pipeline: the frame checks it made come first. */
	if (t->rec)
		recording_record(t->rec, rec);
}

void trace_thread_seen(struct trace *t, uint32_t tid, uint64_t ts)
{
	pipeline_thread_seen(t->pipe, tid, ts);
	if (t->rec)
		recording_thread_seen(t->rec, tid, ts);
}

void trace_thread_exit(struct trace *t, uint32_t tid, uint64_t ts,
		       uint64_t gone_ts)
{
	pipeline_thread_gone(t->pipe, tid, ts, gone_ts);
	if (t->perfetto)
		perfetto_thread_exit(t->perfetto, tid, ts);
	if (t->rec)
		recording_thread_exit(t->rec, tid, ts, gone_ts);
}

void trace_set_trampoline(struct trace *t, uint64_t start, uint64_t end)
{
	pairer_set_trampoline(t->pipe->pairer, start, end);
	if (t->perfetto)
		perfetto_set_trampoline(t->perfetto, start, end);
	if (t->rec)
		recording_trampoline(t->rec, start, end);
}

int trace_new_pipeline(struct trace *t, stacks_frame_fn frame_ok, void *ctx)
{
	t->pipe = pipeline_new();
	if (t->pipe)
		stacks_set_check(t->pipe->stacks, frame_ok, ctx);
	if (t->pipe && t->engine)
		pipeline_borrow_engine(t->pipe, t->engine);
	if (t->pipe && t->shapes)
		pipeline_borrow_shapes(t->pipe, t->shapes);
	if (t->pipe && t->args)
		pipeline_borrow_args(t->pipe, t->args);
	if (!t->pipe || (t->waits && pipeline_enable_causes(t->pipe)) ||
	    ((t->opts->svg || t->opts->html) &&
	     pipeline_enable_durations(t->pipe))) {
		ispot_error("out of memory setting up the pipeline");
		return -1;
	}
	return 0;
}

static int trace_release(void *ctx, uint32_t cpu, uint64_t tail)
{
	struct trace *t = ctx;
	struct ispot_ring_consume c = { .cpu = cpu, .tail = tail };

	return ioctl(t->dev.fd, ISPOT_IOC_RING_CONSUME, &c) ? -errno : 0;
}

static int trace_setup(struct trace *t, pid_t pid)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ispot_setup s = {
		.pid = pid,
		.ring_pages = t->opts->ring_bytes / page ?
			      t->opts->ring_bytes / page : 1,
		.stack_period = t->opts->stack_period,
	};
	uint32_t i;

	/* ABI 1.2 adds thread and wait records; older modules lack them. */
	if (t->dev.version.abi_minor >= 2) {
		s.flags = ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS;
		t->tasks = t->waits = true;
	}
	if (ioctl(t->dev.fd, ISPOT_IOC_SETUP, &s)) {
		if (errno == ESRCH)
			ispot_error("no process with pid %d: check it with "
				    "ps, it may have exited", (int)pid);
		else if (errno == EPERM || errno == EACCES)
			ispot_error("no permission to trace pid %d: run as "
				    "root, or with CAP_PERFMON as its user "
				    "(and it must be dumpable)", (int)pid);
		else if (errno == EXDEV)
			ispot_error("cannot check access to pid %d: /proc is "
				    "not this pid namespace's procfs; mount it "
				    "(mount -t proc proc /proc)", (int)pid);
		else if (errno == ENOMEM || errno == E2BIG || errno == ENOSPC)
			ispot_error("the module cannot give %s rings of %llu "
				    "bytes: use a smaller --ring-size or "
				    "raise max_buffer_mib", "per-CPU",
				    (unsigned long long)t->opts->ring_bytes);
		else
			ispot_error("the module refused the session (%s): "
				    "check dmesg", strerror(errno));
		return -1;
	}
	t->nr_rings = s.nr_rings;
	t->ring_mmap_size = s.ring_mmap_size;
	t->rings = calloc(s.nr_rings, sizeof(*t->rings));
	if (!t->rings) {
		ispot_error("out of memory mapping the rings");
		return -1;
	}
	for (i = 0; i < s.nr_rings; i++) {
		void *m = mmap(NULL, s.ring_mmap_size, PROT_READ, MAP_SHARED,
			       t->dev.fd, (off_t)i * s.ring_mmap_size);

		if (m == MAP_FAILED) {
			ispot_error("cannot map ring %u (%s): check "
				    "RLIMIT_MEMLOCK and dmesg", i,
				    strerror(errno));
			return -1;
		}
		t->rings[i] = m;
	}
	t->drain = drain_new(t->rings, t->nr_rings, trace_release, t);
	if (!t->drain) {
		ispot_error("out of memory setting up the drain");
		return -1;
	}
	return trace_new_pipeline(t, trace_frame_in_code, t);
}

/*
 * --counters/--raw-event (ABI 1.3).  A first try tells which events this
 * machine has; only those are then counted, so an event without a PMU
 * costs no slot in any record.  The report says which were unsupported.
 */
static int trace_counters(struct trace *t)
{
	const struct trace_opts *o = t->opts;
	struct ispot_counters c = {
		.nr = o->nr_counters, .flags = ISPOT_COUNTERS_TRY,
	};
	int tried[ISPOT_MAX_COUNTERS];
	size_t i;

	if (!o->nr_counters)
		return 0;
	if (t->dev.version.abi_minor < 3) {
		ispot_error("ispot.ko speaks ABI %u.%u, and perf counters need "
			    "1.3: load the module built with this ispotctl, "
			    "or drop --counters/--raw-event",
			    t->dev.version.abi_major, t->dev.version.abi_minor);
		return -1;
	}
	for (i = 0; i < o->nr_counters; i++) {
		c.spec[i].type = o->counters[i].type;
		c.spec[i].config = o->counters[i].config;
	}
	if (ioctl(t->dev.fd, ISPOT_IOC_COUNTERS, &c))
		goto refused;
	for (i = 0; i < o->nr_counters; i++)
		tried[i] = c.spec[i].result;
	memset(&c, 0, sizeof(c));
	for (i = 0; i < o->nr_counters; i++) {
		struct report_counter *rc = &t->counters[i];
		struct ispot_counter_spec *sp = &c.spec[c.nr];

		rc->name = o->counters[i].name;
		rc->hardware = event_is_hardware(&o->counters[i]);
		rc->time = event_is_time(&o->counters[i]);
		rc->slot = -1;
		if (tried[i])
			continue;
		rc->slot = c.nr++;
		sp->type = o->counters[i].type;
		sp->config = o->counters[i].config;
	}
	if (!c.nr)
		return 0;
	if (ioctl(t->dev.fd, ISPOT_IOC_COUNTERS, &c))
		goto refused;
	for (i = 0; i < o->nr_counters; i++) {
		struct report_counter *rc = &t->counters[i];

		/* Lost between the try and now (taken by another user). */
		if (rc->slot >= 0 && c.spec[rc->slot].result)
			rc->slot = -1;
		rc->supported = rc->slot >= 0;
	}
	if (pipeline_enable_counters(t->pipe)) {
		ispot_error("out of memory setting up the counters");
		return -1;
	}
	return 0;
refused:
	ispot_error("the module refused the counters (%s): check dmesg",
		    strerror(errno));
	return -1;
}

/* 0 if @path's directory takes new files, else -1 with errno set. */
static int trace_dir_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		return access(".", W_OK | X_OK);
	if (slash == path)
		return access("/", W_OK | X_OK);
	if ((size_t)(slash - path) >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, slash - path);
	dir[slash - path] = '\0';
	return access(dir, W_OK | X_OK);
}

int trace_can_write(const char *path, const char *option)
{
	int fd;

	if (!path)
		return 0;
	/* A file made only to ask is removed: a failed run leaves none. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0) {
		close(fd);
		unlink(path);
		return 0;
	}
	if (errno == EEXIST) {
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		/* Replaced by a file written beside it (util/afile.h). */
		if (fd >= 0 && !afile_in_place(path) &&
		    trace_dir_writable(path)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		ispot_error("cannot write %s (%s): choose a writable %s path",
			    path, strerror(errno), option);
		return -1;
	}
	close(fd);
	return 0;
}

/* Whether --svg's @dir (NULL: none) is, or can be made, a writable one. */
static int trace_can_write_dir(const char *dir)
{
	int ret = dir ? afile_dir(dir) : 0;

	if (ret)
		ispot_error("cannot write in %s (%s): choose a writable --svg "
			    "directory", dir, strerror(-ret));
	return ret;
}

int trace_check_outputs(const struct trace_opts *o)
{
	return trace_can_write(o->output, "--output") ||
	       trace_can_write(o->folded, "--folded") ||
	       trace_can_write(o->perfetto, "--perfetto") ||
	       trace_can_write(o->html, "--html") ||
	       trace_can_write_dir(o->svg) ? -1 : 0;
}

int trace_open(struct trace *t, const struct trace_opts *o,
	       enum trace_mode mode)
{
	char err[256];

	memset(t, 0, sizeof(*t));
	t->opts = o;
	t->mode = mode;
	if (ispot_device_open(&t->dev, err, sizeof(err))) {
		ispot_error("%s", err);
		return -1;
	}
	/* Fail before tracing, not after; an existing file is kept as is. */
	if (trace_check_outputs(o) || trace_load_baseline(t))
		return -1;
	if (o->record) {
		t->rec = recording_create(o->record, o->max_size);
		if (!t->rec)
			return -1;
	}
	return 0;
}

int trace_check_pid(pid_t pid)
{
	if (kill(pid, 0) && errno == ESRCH) {
		ispot_error("no process with pid %d: check it with ps",
			    (int)pid);
		return -1;
	}
	if (kill(pid, 0) && errno == EPERM) {
		ispot_error("no permission to trace pid %d: run as root, or "
			    "with CAP_PERFMON as its user", (int)pid);
		return -1;
	}
	return 0;
}

/*
 * Read the target's maps now, while it lives: the futex report and the
 * key labels name addresses from the last snapshot taken, and the maps
 * vanish with the process (a target may live a few ms).
 */
static void trace_snapshot_maps(struct trace *t)
{
	if (t->sym)
		elf_symbolizer_refresh(t->sym, NULL, 0);
	else
		t->sym = elf_symbolizer_new(t->pid, NULL, 0);
}

void trace_exec_seen(struct trace *t)
{
	trace_snapshot_maps(t);
}

struct futex_peek {
	struct elf_symbolizer *sym;
	uint64_t unknown[8];
	size_t n;
};

static void trace_peek_record(void *ctx, const struct ispot_record *rec)
{
	struct futex_peek *fp = ctx;

	if (rec->kind == ISPOT_REC_FUTEX_ENTER &&
	    fp->n < sizeof(fp->unknown) / sizeof(*fp->unknown) &&
	    !elf_symbolizer_knows(fp->sym, rec->data[0]))
		fp->unknown[fp->n++] = rec->data[0];
}

/*
 * The first wait on a word outside the snapshot (a library loaded since,
 * a heap that grew) re-reads the maps, and names the word at once, which
 * reads its object while the process is alive to lend it.
 */
static void trace_peek_futexes(struct trace *t)
{
	struct futex_peek fp = { .sym = t->sym };
	struct elf_addr_info info;
	size_t i;

	if (!t->sym || !t->waits)
		return;
	drain_peek(t->drain, trace_peek_record, &fp);
	if (!fp.n || elf_symbolizer_refresh(t->sym, NULL, 0))
		return;
	for (i = 0; i < fp.n; i++)
		elf_symbolize(t->sym, fp.unknown[i], &info, NULL, 0);
}

int trace_start(struct trace *t, pid_t pid)
{
	size_t i;

	t->pid = pid;
	/* A child still waiting to exec is a copy of ispotctl. */
	if (t->mode == MODE_RUN)
		snprintf(t->command, sizeof(t->command), "%s",
			 path_base(t->opts->cmd[0]));
	else
		task_comm(pid, t->command, sizeof(t->command));
	if (trace_setup(t, pid) || trace_counters(t) || trace_arm(t) ||
	    trace_perfetto_open(t, NULL))
		return -1;
	if (ioctl(t->dev.fd, ISPOT_IOC_ENABLE)) {
		if (errno == EBADFD || errno == ESRCH)
			ispot_error("process %d exited before tracing "
				    "started", (int)pid);
		else if (errno == ENOTSUPP_KERNEL)
			ispot_error("a probed function starts with an "
				    "instruction uprobes cannot step over "
				    "(e.g. a LOCK prefix): probe its callers");
		else
			ispot_error("cannot enable the probes (%s): check "
				    "dmesg", strerror(errno));
		return -1;
	}
	t->enabled = true;
	t->t_enable = trace_now();
	/* Run's child has not exec'd yet: trace_exec_seen() comes later. */
	if (t->mode != MODE_RUN)
		trace_snapshot_maps(t);
	t->last_scan = t->t_enable;
	/* Threads that exist now count from now. */
	if (task_set_scan(&t->alive, pid)) {
		ispot_error("process %d exited before tracing started",
			    (int)pid);
		return -1;
	}
	for (i = 0; i < t->alive.n; i++)
		trace_thread_seen(t, t->alive.tids[i], t->t_enable);
	return 0;
}

/* [uprobes] is where uretprobes return through: tail calls show it. */
static void trace_find_trampoline(struct trace *t)
{
	struct elf_map *maps;
	size_t n, i;

	if (t->trampoline || elf_maps_read(t->pid, &maps, &n, NULL, 0))
		return;
	for (i = 0; i < n; i++) {
		if (!strcmp(maps[i].path, "[uprobes]")) {
			trace_set_trampoline(t, maps[i].start, maps[i].end);
			t->trampoline = true;
		}
	}
	elf_maps_free(maps, n);
	/* The objects are mapped by now: a snapshot names call sites. */
	if (t->trampoline && !t->sym)
		t->sym = elf_symbolizer_new(t->pid, NULL, 0);
}

static void trace_queue_exit(struct trace *t, uint32_t tid,
			     uint64_t alive_ts, uint64_t now)
{
	struct trace_exit *e;

	if (t->nr_exits == t->cap_exits) {
		size_t cap = t->cap_exits ? 2 * t->cap_exits : 16;

		e = realloc(t->exits, cap * sizeof(*e));
		if (!e)
			return;	/* it will close at the end of the trace */
		t->exits = e;
		t->cap_exits = cap;
	}
	e = &t->exits[t->nr_exits++];
	e->tid = tid;
	e->alive_ts = alive_ts;
	e->gone_ts = now;
}

/*
 * With task records, a thread that the engine holds open but the scan no
 * longer lists has exited, and its exit record was lost (a full ring
 * drops records, it never blocks): without it the thread would be held,
 * and ispotd's memory grow, for as long as the target runs.  It closes at
 * its last record, once the drain is past the scan (trace_apply_exits()),
 * unless the record turns up by then.
 */
static void trace_scan_lost_exit(void *ctx, uint32_t tid, uint64_t last)
{
	struct trace *t = ctx;
	size_t i;

	/* Called once the scan just taken is t->alive, at t->last_scan. */
	if (task_set_contains(&t->alive, tid))
		return;
	for (i = 0; i < t->nr_exits; i++)
		if (t->exits[i].tid == tid)
			return;
	trace_queue_exit(t, tid, last, t->last_scan);
}

static void trace_scan(struct trace *t, uint64_t now)
{
	struct task_set tmp;
	size_t i;

	if (task_set_scan(&t->scan, t->pid)) {
		t->target_exited = true;
		return;
	}
	/* Without task records, lifetimes come from the scans. */
	for (i = 0; !t->tasks && i < t->scan.n; i++)
		if (!task_set_contains(&t->alive, t->scan.tids[i]))
			trace_thread_seen(t, t->scan.tids[i], t->last_scan +
					  (now - t->last_scan) / 2);
	for (i = 0; !t->tasks && i < t->alive.n; i++)
		if (!task_set_contains(&t->scan, t->alive.tids[i]))
			trace_queue_exit(t, t->alive.tids[i], t->last_scan,
					 now);
	tmp = t->alive;
	t->alive = t->scan;
	t->scan = tmp;
	t->last_scan = now;
	if (t->tasks)
		sci_each_open_thread(t->pipe->sci, trace_scan_lost_exit, t);
	trace_find_trampoline(t);
}

/* Apply the exits whose records have all been drained by @horizon. */
static void trace_apply_exits(struct trace *t, uint64_t horizon)
{
	size_t i, kept = 0;

	for (i = 0; i < t->nr_exits; i++) {
		struct trace_exit *e = &t->exits[i];

		if (e->gone_ts >= horizon) {
			t->exits[kept++] = *e;
			continue;
		}
		if (t->tasks) {
			/* The lost record (trace_scan_lost_exit()) came. */
			if (!sci_thread_is_open(t->pipe->sci, e->tid))
				continue;
			t->lost_exits++;
		}
		trace_thread_exit(t, e->tid, e->alive_ts, e->gone_ts);
	}
	t->nr_exits = kept;
}

static int trace_round(struct trace *t, uint64_t horizon)
{
	long n = drain_round(t->drain, horizon, trace_on_record, t);

	if (n < 0) {
		ispot_error("the module refused to release ring records "
			    "(%s): check dmesg", strerror((int)-n));
		return -1;
	}
	trace_apply_exits(t, horizon);
	return 0;
}

int trace_step(struct trace *t, uint64_t now)
{
	/*
	 * A command just started maps its libraries (and, right at the
	 * exec, may not have its own segments in place yet): follow its
	 * maps for its first moments, which are all a short one has.
	 */
	if (t->mode == MODE_RUN && t->sym &&
	    now - t->t_enable < TRACE_EARLY_NS)
		elf_symbolizer_refresh(t->sym, NULL, 0);
	trace_peek_futexes(t);
	if (trace_round(t, now > DRAIN_SLACK_NS ? now - DRAIN_SLACK_NS : 0))
		return -1;
	if (now - t->last_scan >= TRACE_SCAN_NS)
		trace_scan(t, now);
	return 0;
}

uint64_t trace_next_step(const struct trace *t, uint64_t now, short *events)
{
	if (drain_pending(t->drain)) {
		*events = 0;
		return now + TRACE_BUSY_PACE_NS;
	}
	*events = POLLIN;
	/*
	 * Only `run` re-reads maps early (trace_step()): ispotd's bursts,
	 * attached, need not wake more often at their start.
	 */
	if (t->mode == MODE_RUN && now - t->t_enable < TRACE_EARLY_NS)
		return now + TRACE_EARLY_POLL_MS * 1000000ull;
	return now + TRACE_IDLE_POLL_MS * 1000000ull;
}

int trace_loop(struct trace *t, trace_stop_fn stop, void *ctx)
{
	struct sigaction sa = { .sa_handler = trace_on_signal };
	struct pollfd pfd = { .fd = t->dev.fd, .events = POLLIN };
	uint64_t deadline = t->opts->duration_ns ?
			    t->t_enable + t->opts->duration_ns : UINT64_MAX;
	struct progress progress;
	int ret = 0;

	/* No SA_RESTART: poll() must return to notice Ctrl-C. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	/* A status line on stderr, if it is a terminal; gone before the
	 * report. */
	progress_start(&progress, STDERR_FILENO, t->t_enable);
	for (;;) {
		uint64_t now = trace_now();
		uint64_t next = trace_next_step(t, now, &pfd.events);

		pfd.revents = 0;
		if (poll(&pfd, 1, (int)((next - now + 999999) / 1000000)) < 0 &&
		    errno != EINTR) {
			ispot_error("poll on %s failed: %s", ISPOT_DEVICE_PATH,
				    strerror(errno));
			ret = -1;
			break;
		}
		now = trace_now();
		if (trace_step(t, now)) {
			ret = -1;
			break;
		}
		if (pfd.revents & POLLHUP)
			t->target_exited = true;
		progress_update(&progress, now, drain_stats(t->drain)->records,
				drain_dropped(t->drain));
		if (trace_signal) {
			t->interrupted = true;
			break;
		}
		if (t->target_exited || now >= deadline || (stop && stop(ctx)))
			break;
	}
	progress_stop(&progress);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	return ret;
}

static void trace_finish(struct trace *t)
{
	uint64_t last;

	/* Stop the producers first, so the last round empties the rings. */
	if (t->enabled && !t->target_exited)
		ioctl(t->dev.fd, ISPOT_IOC_DISABLE);
	t->enabled = false;
	t->t_end = trace_now();
	if (trace_round(t, UINT64_MAX))
		return;
	if (t->target_exited) {
		/* It died after the last scan that saw it alive. */
		last = sci_last_ts(t->pipe->sci);
		t->t_end = t->last_scan > last ? t->last_scan : last;
		if (t->t_end < t->t_enable)
			t->t_end = t->t_enable;
	}
	trace_apply_exits(t, UINT64_MAX);
	trace_close_pipeline(t);
}

void trace_close_pipeline(struct trace *t)
{
	uint64_t open = pairer_stats(t->pipe->pairer)->unpaired_entries;

	pipeline_finish(t->pipe, t->t_end);
	t->open_at_stop = pairer_stats(t->pipe->pairer)->unpaired_entries -
			  open;
}

static uint64_t trace_dropped(struct trace *t)
{
	struct ispot_ring_stats *rs = calloc(t->nr_rings, sizeof(*rs));
	struct ispot_stats st = {
		.rings = (uintptr_t)rs,
		.nr_rings = t->nr_rings,
	};
	uint64_t dropped = 0;
	uint32_t i;

	if (rs && !ioctl(t->dev.fd, ISPOT_IOC_STATS, &st)) {
		for (i = 0; i < st.nr_rings && i < t->nr_rings; i++)
			dropped += rs[i].dropped;
		t->stop_reason = st.stop_reason;
	}
	free(rs);
	return dropped;
}

const struct drain_stats *trace_drain_stats(const struct trace *t)
{
	return t->drain ? drain_stats(t->drain) : &t->replayed;
}

void trace_stop(struct trace *t)
{
	trace_finish(t);
	t->dropped = trace_dropped(t);
	if (t->rec)
		t->rec_full = recording_full(t->rec, &t->rec_full_size,
					     &t->rec_full_ts);
}

int trace_report(struct trace *t)
{
	trace_stop(t);
	if (trace_perfetto_close(t, true))
		return -1;
	if (t->stop_reason == ISPOT_STOP_SECURE_EXEC)
		ispot_error("pid %d executed a privileged (set-user-ID, "
			    "set-group-ID or file-capability) program: tracing "
			    "stopped there, as perf does; attach to it as root "
			    "once it runs instead", (int)t->pid);
	else if (t->target_exited && t->mode == MODE_ATTACH)
		ispot_error("process %d exited after %.2fs of tracing; the "
			    "report covers that time", (int)t->pid,
			    (t->t_end - t->t_enable) / 1e9);
	/* Named now, before the report's own look-ups re-read any maps. */
	if (t->rec && recording_finish(t->rec, t))
		return -1;
	return trace_print_report(t);
}

void trace_free(struct trace *t)
{
	uint32_t i;

	if (t->enabled)
		ioctl(t->dev.fd, ISPOT_IOC_DISABLE);
	trace_perfetto_close(t, false);
	for (i = 0; t->rings && i < t->nr_rings; i++)
		if (t->rings[i])
			munmap(t->rings[i], t->ring_mmap_size);
	free(t->rings);
	drain_free(t->drain);
	pipeline_free(t->pipe);
	elf_symbolizer_free(t->sym);
	task_set_free(&t->alive);
	task_set_free(&t->scan);
	free(t->exits);
	free(t->probes);
	recording_free(t->rec);
	baseline_free(t->baseline);
	trace_funcs_free(t);
	ispot_device_close(&t->dev);
	memset(t, 0, sizeof(*t));
	t->dev.fd = -1;
}
