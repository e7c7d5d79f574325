// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd: the always-on daemon.  It finds the processes to trace (--pid,
 * --exe, --cgroup), arms their probes in short bursts whose share of the
 * time keeps the estimated cost under --budget, and writes each target's
 * window of scores as one JSON line (Documentation/ispotd.rst, "A
 * window").
 *
 * One thread, one poll loop: the proc connector's socket, the armed
 * sessions' device fds, a signalfd and, with --listen, the metrics
 * endpoint's sockets (http.c; what it serves is metrics.c's, fed by every
 * window that closes).  Nothing blocks it for long: a burst's setup is
 * the longest step, and it only runs when one is due.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "trace/device.h"
#include "discover.h"
#include "util/errors.h"
#include "http.h"
#include "metrics.h"
#include "module_watch.h"
#include "notify.h"
#include "target.h"
#include "util/procstat.h"

struct ispotd {
	struct ispotd_config cfg;
	struct trace_opts topts;
	struct target_auto auto_pick;	/* --auto, from cfg */
	struct discover *disc;
	FILE *log;
	int sfd;
	struct metrics *metrics;
	struct http_server *http;	/* --listen; NULL: off */

	/* Each target where it was made: see target.h's target_list. */
	struct target_list targets;

	uint64_t window_start;
	struct module_watch mod;
	bool stop;
};

/* --auto as the targets see it, from the config. */
static void ispotd_auto_opts(struct ispotd *d)
{
	d->auto_pick = (struct target_auto){
		.on = d->cfg.auto_pick,
		.top = d->cfg.auto_top,
		.max = d->cfg.max_functions,
		.time_ns = d->cfg.auto_time_ns,
		.every = d->cfg.auto_every,
	};
}

static int ispotd_observe(void *metrics, const struct window_figures *wf)
{
	return metrics_add_window(metrics, wf);
}

static int ispotd_render(void *metrics, FILE *body)
{
	return metrics_render(metrics, body);
}

/* The metrics endpoint on @addr, or NULL with the reason in @err. */
static struct http_server *ispotd_serve(struct ispotd *d, const char *addr,
					char *err, size_t len)
{
	struct http_server *s = http_listen(addr, err, len);

	if (s && http_route(s, "/metrics", METRICS_CONTENT_TYPE,
			    ispotd_render, d->metrics)) {
		snprintf(err, len, "out of memory serving %s", addr);
		http_free(s);
		s = NULL;
	}
	return s;
}

/*
 * SIGHUP with another --listen: the new socket first, so that a failure
 * keeps the old one serving (one line says so).
 */
static void ispotd_relisten(struct ispotd *d)
{
	const char *want = d->cfg.listen;
	const char *cur = d->http ? http_addr(d->http) : NULL;
	struct http_server *s;
	char err[512];

	if (want && cur && !strcmp(want, cur))
		return;
	if (!want) {
		if (cur)
			ispot_say("no --listen any more: "
				  "metrics endpoint closed");
		http_free(d->http);
		d->http = NULL;
		return;
	}
	s = ispotd_serve(d, want, err, sizeof(err));
	if (!s) {
		if (cur)
			ispot_error("%s; still serving on %s", err, cur);
		else
			ispot_error("%s", err);
		return;
	}
	http_free(d->http);
	d->http = s;
	ispot_say("metrics at http://%s/metrics", want);
}

static const char *target_source(const struct ispotd *d,
				 const struct discover_proc *p)
{
	if (p->source == DISCOVER_CGROUP && p->index < d->cfg.nr_cgroups)
		return d->cfg.cgroups[p->index];
	return "";
}

/*
 * Whether the module is there; bursts that failed while it was away
 * need not wait their backoff once it is back.
 */
static bool ispotd_module(struct ispotd *d, uint64_t now)
{
	size_t i;

	if (!module_watch_check(&d->mod, now))
		return false;
	if (d->mod.back) {
		for (i = 0; i < d->targets.nr; i++)
			target_resume(d->targets.v[i], now);
		d->mod.back = false;
	}
	return true;
}

static struct target *ispotd_find(struct ispotd *d,
				  const struct discover_proc *p)
{
	size_t i;

	for (i = 0; i < d->targets.nr; i++)
		if (d->targets.v[i]->pid == p->pid &&
		    d->targets.v[i]->start_time == p->start_time)
			return d->targets.v[i];
	return NULL;
}

static void ispotd_add(struct ispotd *d, const struct discover_proc *p,
		       uint64_t now)
{
	struct target *tg = target_list_add(&d->targets);
	int err;

	if (!tg) {
		ispot_error("out of memory adding pid %d", (int)p->pid);
		return;
	}
	err = target_init(tg, p->pid, p->start_time, target_source(d, p),
			  d->cfg.budget, d->mod.call_cost_ns,
			  d->mod.session_ns, now,
			  d->window_start + d->cfg.window_ns,
			  d->cfg.window_ns);
	if (err) {
		target_list_remove(&d->targets, d->targets.nr - 1);
		/*
		 * Gone since it was found: not added.  Discovery drops it
		 * at its next pass (a second at most); each round till
		 * then tries again, at a read of its stat.
		 */
		if (err != -ESRCH)
			ispot_error("out of memory adding pid %d",
				    (int)p->pid);
		return;
	}
	tg->win.observer = ispotd_observe;
	tg->win.observer_ctx = d->metrics;
	if (metrics_add_exe(d->metrics, tg->exe))
		ispot_error("out of memory: pid %d has no metrics yet",
			    (int)p->pid);
	ispot_say("tracing pid %d (%s)", (int)tg->pid, tg->exe);
}

/* Write what a target that is gone had, and forget it. */
static void ispotd_drop(struct ispotd *d, size_t i, uint64_t now)
{
	struct target *tg = d->targets.v[i];
	char link[32], now_exe[PATH_MAX];
	ssize_t n;

	target_disarm(tg);
	if (target_close_window(tg, d->log, &d->auto_pick, now,
				d->cfg.window_ns))
		ispot_error("cannot write the window of pid %d: %s",
			    (int)tg->pid, strerror(errno));
	/*
	 * Still running as the same process (a zombie has no exe): it
	 * exec'd away, or left the cgroup.
	 */
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)tg->pid);
	n = readlink(link, now_exe, sizeof(now_exe) - 1);
	if (n <= 0 || !proc_is(tg->pid, tg->start_time)) {
		ispot_say("pid %d is gone", (int)tg->pid);
	} else if (tg->cgroup[0]) {
		ispot_say("pid %d is gone: it left %s", (int)tg->pid,
			  tg->cgroup);
	} else {
		now_exe[n] = '\0';
		ispot_say("pid %d is gone: it exec'd %s", (int)tg->pid,
			  now_exe);
	}
	metrics_drop_exe(d->metrics, tg->exe);
	target_list_remove(&d->targets, i);
}

/* Bring the target list in line with what discovery sees. */
static void ispotd_reconcile(struct ispotd *d, uint64_t now)
{
	const struct discover_proc *procs;
	size_t n = discover_procs(d->disc, &procs), i, j;

	for (i = 0; i < n; i++)
		if (!ispotd_find(d, &procs[i]))
			ispotd_add(d, &procs[i], now);
	for (i = d->targets.nr; i-- > 0;) {
		struct target *tg = d->targets.v[i];
		bool listed = false;

		for (j = 0; j < n && !listed; j++)
			listed = procs[j].pid == tg->pid &&
				 procs[j].start_time == tg->start_time;
		if (!listed || tg->gone)
			ispotd_drop(d, i, now);
	}
}

/*
 * The loop's own time in its last round (@ns: its poll, signals,
 * discovery, reconcile and Prometheus service, not what targets counted
 * themselves) is the armed bursts': their rings and solo blocks are what
 * wake it.  Shared evenly among them; with none armed, the daemon's idle
 * cost, charged to no target.
 */
static void ispotd_charge_loop(struct ispotd *d, uint64_t ns)
{
	size_t i, armed = 0;

	for (i = 0; i < d->targets.nr; i++)
		armed += d->targets.v[i]->armed;
	if (!armed)
		return;
	for (i = 0; i < d->targets.nr; i++)
		target_charge_loop(d->targets.v[i], ns / armed);
}

/*
 * Every target's window written at @now.  A burst never spans two
 * windows: it is cut, and the next window plans its own
 * (target_close_window()).
 */
static void ispotd_write_windows(struct ispotd *d, uint64_t now)
{
	size_t i;

	for (i = 0; i < d->targets.nr; i++) {
		struct target *tg = d->targets.v[i];

		target_disarm(tg);
		if (target_close_window(tg, d->log, &d->auto_pick, now,
					d->cfg.window_ns))
			ispot_error("cannot write the window of pid %d: %s",
				    (int)tg->pid, strerror(errno));
	}
}

static void ispotd_close_windows(struct ispotd *d, uint64_t now)
{
	ispotd_write_windows(d, now);
	d->window_start = now;
	/* What the old windows freed in the heap goes back too. */
	malloc_trim(0);
}

static int ispotd_start_discovery(struct ispotd *d)
{
	char err[256];

	d->disc = discover_new(d->cfg.pids, d->cfg.nr_pids,
			       (const char *const *)d->cfg.exes,
			       d->cfg.nr_exes,
			       (const char *const *)d->cfg.cgroups,
			       d->cfg.nr_cgroups, err, sizeof(err));
	if (!d->disc) {
		ispot_error("%s", err);
		return -1;
	}
	if (!discover_netlink(d->disc))
		ispot_say("no proc connector (CAP_NET_ADMIN on older kernels, "
			  "and the initial pid namespace): new processes are "
			  "found by scanning /proc every second");
	return 0;
}

/*
 * The window log @path names (none or "-": stdout), line-buffered; or
 * NULL after one line saying why, ending in @then.  The log in use is
 * the caller's to close once this one is open: a reload that cannot open
 * its log keeps the running one (ispotd_reload()).
 */
static FILE *ispotd_open_log(const char *path, const char *then)
{
	static bool stdout_buffered;
	FILE *f;

	if (!path || !strcmp(path, "-")) {
		/* Before stdout's first write, as setvbuf() must be. */
		if (!stdout_buffered)
			setvbuf(stdout, NULL, _IOLBF, 0);
		stdout_buffered = true;
		return stdout;
	}
	f = fopen(path, "ae");
	if (!f) {
		ispot_error("cannot write %s (%s): %s", path, strerror(errno),
			    then);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

static void ispotd_close_log(FILE *f)
{
	if (f && f != stdout)
		fclose(f);
}

/*
 * SIGHUP: read the config again.  A bad file keeps the old config, as
 * nginx and systemd do, and so does a log that cannot be opened: the
 * windows go on to the log in use.  A good one takes effect for the next
 * bursts, its log (opened again: rotated logs start anew) for the next
 * windows, and targets that no longer match write their last window and
 * go.
 */
static void ispotd_reload(struct ispotd *d, const struct ispotd_config *cli,
			  uint64_t now)
{
	struct ispotd_config fresh;
	struct discover *old = d->disc;
	bool kept_targets;
	FILE *log;

	notify_send("RELOADING=1");
	if (ispotd_config_load(cli, &fresh)) {
		ispot_say("keeping the running configuration");
		notify_send("READY=1");
		return;
	}
	log = ispotd_open_log(fresh.log_path,
			      "keeping the running configuration");
	if (!log) {
		ispotd_config_free(&fresh);
		notify_send("READY=1");
		return;
	}
	ispotd_close_log(d->log);
	d->log = log;
	ispotd_config_free(&d->cfg);
	d->cfg = fresh;
	ispotd_config_trace_opts(&d->cfg, &d->topts);
	ispotd_auto_opts(d);
	kept_targets = ispotd_start_discovery(d) != 0;
	if (kept_targets) {
		d->disc = old;
	} else {
		discover_keep_pids(d->disc, old);
		discover_free(old);
	}
	metrics_set_max_functions(d->metrics, d->cfg.max_functions);
	ispotd_relisten(d);
	discover_update(d->disc, now);
	ispotd_reconcile(d, now);
	/* One line: all of it, or all but the targets (said above why). */
	ispot_say(kept_targets ? "configuration reloaded but for its targets: "
		  "the previous targets are kept" : "configuration reloaded");
	notify_send("READY=1");
}

static int ispotd_signals(struct ispotd *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	d->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return d->sfd < 0 ? -1 : 0;
}

static void ispotd_read_signals(struct ispotd *d,
				const struct ispotd_config *cli, uint64_t now)
{
	struct signalfd_siginfo si;

	while (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			ispotd_reload(d, cli, now);
		else if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT)
			d->stop = true;
	}
}

static int ispotd_poll(struct ispotd *d, uint64_t now)
{
	struct pollfd *pfd = calloc(d->targets.nr + 2 + HTTP_MAX_POLLFDS,
				    sizeof(*pfd));
	uint64_t next = d->window_start + d->cfg.window_ns;
	size_t i, n = 0, web = 0, nr_web = 0;
	int timeout, ret;

	if (!pfd)
		return -1;
	pfd[n++] = (struct pollfd){ .fd = d->sfd, .events = POLLIN };
	if (discover_fd(d->disc) >= 0)
		pfd[n++] = (struct pollfd){ .fd = discover_fd(d->disc),
					    .events = POLLIN };
	for (i = 0; i < d->targets.nr; i++) {
		short events;
		uint64_t t = target_next_event(d->targets.v[i], now, &events);

		if (t < next)
			next = t;
		if (target_fd(d->targets.v[i]) >= 0)
			pfd[n++] = (struct pollfd){
				.fd = target_fd(d->targets.v[i]),
				.events = events };
	}
	if (d->http) {
		web = n;
		nr_web = http_pollfds(d->http, pfd + web);
		n += nr_web;
		if (http_deadline(d->http) < next)
			next = http_deadline(d->http);
	}
	/* Discovery rescans once a second without netlink. */
	if (next > now + 1000000000ull)
		next = now + 1000000000ull;
	if (!d->mod.ok && next > d->mod.next_check)
		next = d->mod.next_check;
	timeout = next > now ? (int)((next - now + 999999) / 1000000) : 0;
	ret = poll(pfd, n, timeout);
	/* A readable ring means records: the next tick drains them. */
	if (d->http)
		http_service(d->http, pfd + web, ret > 0 ? nr_web : 0,
			     trace_now());
	free(pfd);
	return ret < 0 && errno != EINTR ? -1 : 0;
}

static void ispotd_shutdown(struct ispotd *d, uint64_t now)
{
	notify_send("STOPPING=1");
	ispotd_write_windows(d, now);
	target_list_free(&d->targets);
	http_free(d->http);
	metrics_free(d->metrics);
	discover_free(d->disc);
	ispotd_close_log(d->log);
	ispotd_config_free(&d->cfg);
}

int main(int argc, char **argv)
{
	struct ispotd_config cli;
	struct ispotd d = { .sfd = -1 };
	char status[128];
	uint64_t now, round_cpu, counted = 0;
	size_t i;
	int ret;

	ispot_progname = "ispotd";
	/*
	 * A window's engine grows with the threads it saw and is freed
	 * when the window is written: big tables in their own mappings go
	 * back to the kernel at once, instead of leaving holes in the heap
	 * that a long-lived daemon's RSS would keep (glibc raises this
	 * threshold by itself after such frees unless it is set).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	ret = ispotd_config_parse_args(argc, argv, &cli);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	if (ispotd_config_load(&cli, &d.cfg)) {
		ispotd_config_free(&cli);
		return EXIT_USAGE;
	}
	ispotd_config_trace_opts(&d.cfg, &d.topts);
	ispotd_auto_opts(&d);
	d.metrics = metrics_new(d.cfg.max_functions);
	if (!d.metrics)
		ispot_error("out of memory starting");
	else if (d.cfg.listen)
		ispotd_relisten(&d);
	/* Nothing made on disk for a run that cannot trace anything. */
	if (!d.metrics || (d.cfg.listen && !d.http) ||
	    ispotd_start_discovery(&d) || discover_say_absent(d.disc) ||
	    !(d.log = ispotd_open_log(d.cfg.log_path,
				       "choose a writable --log")) ||
	    ispotd_signals(&d)) {
		ispotd_close_log(d.log);
		discover_free(d.disc);
		http_free(d.http);
		metrics_free(d.metrics);
		ispotd_config_free(&cli);
		ispotd_config_free(&d.cfg);
		return EXIT_RUNTIME;
	}
	now = trace_now();
	d.window_start = now;
	ispotd_module(&d, now);
	snprintf(status, sizeof(status),
		 "READY=1\nSTATUS=budget %.2f%%, window %llus",
		 d.cfg.budget * 100,
		 (unsigned long long)(d.cfg.window_ns / 1000000000ull));
	notify_send(status);

	/*
	 * The thread's CPU time at the last round's start, and what the
	 * targets counted themselves in it (ispotd_charge_loop()).
	 */
	round_cpu = budget_thread_cpu_ns();
	while (!d.stop) {
		uint64_t cpu = budget_thread_cpu_ns();

		if (cpu > round_cpu + counted)
			ispotd_charge_loop(&d, cpu - round_cpu - counted);
		round_cpu = cpu;
		now = trace_now();
		ispotd_read_signals(&d, &cli, now);
		if (d.stop)
			break;
		discover_update(d.disc, now);
		if (d.mod.calibrated || ispotd_module(&d, now))
			ispotd_reconcile(&d, now);
		metrics_set_targets(d.metrics, d.targets.nr);
		/*
		 * The device node goes with the module: a stat per round
		 * notices an unload between bursts too, so that it is said
		 * when it happens and the module's return restarts the
		 * bursts at once.
		 */
		if (d.mod.ok && access(ISPOT_DEVICE_PATH, F_OK))
			module_watch_lost(&d.mod);
		cpu = budget_thread_cpu_ns();
		if (ispotd_module(&d, now))
			for (i = 0; i < d.targets.nr; i++)
				target_tick(d.targets.v[i], &d.topts,
					    &d.auto_pick, now);
		if (now >= d.window_start + d.cfg.window_ns)
			ispotd_close_windows(&d, now);
		counted = budget_thread_cpu_ns() - cpu;
		if (ispotd_poll(&d, trace_now())) {
			ispot_error("poll failed: %s", strerror(errno));
			break;
		}
	}
	ispotd_shutdown(&d, trace_now());
	ispotd_config_free(&cli);
	return EXIT_OK;
}
