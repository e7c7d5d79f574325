// SPDX-License-Identifier: GPL-2.0
/*
 * What wait tracing costs the processes it does not trace.  Runs in the
 * VM; never pass/fail.
 *
 *   waits_bench [-n ROUNDTRIPS] [-r PAIRS] [-v]
 *
 * Two untraced processes pinned to one CPU pass a byte back and forth over
 * two pipes, ROUNDTRIPS times per round: every round trip is four system
 * calls and two context switches, the events the sched_switch and raw
 * syscall probes see.  Rounds alternate between no session at all and a
 * session with ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS enabled on another,
 * sleeping, process (with one probe, which ENABLE needs, in a function it
 * never calls), so the probes are registered and run for every switch and
 * system call of the ping-pong, which they must leave alone.  The session
 * is opened before and closed after its round, outside the timed part;
 * every round, in both modes, starts right after the close of another
 * session, without flags, so that both start from the same disturbance.
 * The order within a pair alternates.  The module registers its
 * tracepoint probes at the first session that needs them and keeps them
 * until it is unloaded, so the rounds without a session run with the
 * probes registered, idle.
 *
 * untraced_switch_ratio is the median over pairs of each pair's ratio
 * (with session / without): the emulated machine's speed moves in phases,
 * so only ratios measured side by side mean much.  The ns figures are
 * medians per mode, for scale only.
 *
 * What the registered probes cost with no session at all (every system
 * call then takes the kernel's tracing slow path) is not measured: the
 * probes cannot be unregistered between rounds (Documentation/design.rst).
 */
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>

#include "kmod/ispot_kmod_test.h"

#define WAITS_FLAGS	(ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS)

static volatile int sink;

/* The probe ENABLE needs, in a function the traced sleeper never calls. */
__attribute__((noipa)) int bench_never_called(int x)
{
	sink += x;
	return x;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "waits_bench: %s: %s\n", what, strerror(err));
	exit(1);
}

static void pin_to(int cpu)
{
	if (ispot_pin_cpu(cpu))
		die("sched_setaffinity", errno);
}

static int sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

/* The partner echoes every byte until the pipe closes. */
static pid_t echo_start(int cpu, int *to, int *from)
{
	int ab[2], ba[2];
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		die("pipe", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (pid == 0) {
		char x;

		close(ab[1]);
		close(ba[0]);
		pin_to(cpu);
		while (read(ab[0], &x, 1) == 1)
			if (write(ba[1], &x, 1) != 1)
				break;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	*to = ab[1];
	*from = ba[0];
	return pid;
}

static uint64_t roundtrips(int to, int from, long n)
{
	uint64_t t0 = now_ns();
	char x = 'w';
	long i;

	for (i = 0; i < n; i++)
		if (write(to, &x, 1) != 1 || read(from, &x, 1) != 1)
			die("ping-pong", errno);
	return now_ns() - t0;
}

/* An enabled session on @pid with setup @flags; exits on error. */
static int session_open(pid_t pid, uint32_t flags, struct ispot_setup *s)
{
	int fd = ispot_open(), ret;

	if (fd < 0)
		die(ISPOT_DEV, errno);
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->ring_pages = 16;
	s->flags = flags;
	ret = ispot_ioctl(fd, ISPOT_IOC_SETUP, s);
	if (ret)
		die("ISPOT_IOC_SETUP", -ret);
	ret = ispot_add_probe_fn(fd, (void *)bench_never_called,
				 ISPOT_PROBE_BOTH, 0);
	if (ret < 0)
		die("ISPOT_IOC_PROBE_ADD", -ret);
	ret = ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL);
	if (ret)
		die("ISPOT_IOC_ENABLE", -ret);
	return fd;
}

/*
 * Close the session; returns the records it wrote about anything but
 * @target, and adds every record it wrote to @produced.
 */
static uint64_t session_close(int fd, const struct ispot_setup *s,
			      pid_t target, uint64_t *produced)
{
	struct ispot_record *recs = NULL;
	struct ispot_ring_stats rs[256];
	struct ispot_stats st;
	struct ispot_rings r;
	size_t cap = 0, n, i;
	uint64_t others = 0;
	int ret;

	if (s->nr_rings > 256)
		die("too many rings", E2BIG);
	ret = ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL);
	if (ret)
		die("ISPOT_IOC_DISABLE", -ret);
	ret = ispot_map_rings(fd, s, &r);
	if (ret)
		die("mmap", -ret);
	n = ispot_drain(fd, &r, &recs, &cap, 0);
	for (i = 0; i < n; i += recs[i].nslots)
		others += recs[i].tgid != (uint32_t)target;
	memset(&st, 0, sizeof(st));
	st.rings = (uintptr_t)rs;
	st.nr_rings = s->nr_rings;
	ret = ispot_ioctl(fd, ISPOT_IOC_STATS, &st);
	if (ret)
		die("ISPOT_IOC_STATS", -ret);
	for (i = 0; i < s->nr_rings; i++) {
		*produced += rs[i].produced;
		munmap(r.maps[i], r.size);
	}
	free(r.maps);
	free(recs);
	close(fd);
	return others;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	uint64_t others = 0, produced = 0, t[2] = { 1, 1 };
	double *ratio, *ns[2], med;
	struct ispot_setup setup, dummy;
	struct ispot_child sleeper;
	long n = 100, warmup = 200;
	int pairs = 601, c, p, to, from;
	bool verbose = false;
	pid_t echo;

	while ((c = getopt(argc, argv, "n:r:v")) != -1) {
		switch (c) {
		case 'n':
			n = atol(optarg);
			break;
		case 'r':
			pairs = atoi(optarg);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n ROUNDTRIPS] [-r PAIRS] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (n < 1 || pairs < 1 || pairs > 4096) {
		fprintf(stderr,
			"waits_bench: need ROUNDTRIPS >= 1 and 1 <= PAIRS <= 4096\n");
		return 2;
	}
	ratio = calloc(pairs, sizeof(*ratio));
	ns[0] = calloc(pairs, sizeof(double));
	ns[1] = calloc(pairs, sizeof(double));
	if (!ratio || !ns[0] || !ns[1])
		die("calloc", ENOMEM);

	/* The traced process: it sleeps, so it records next to nothing. */
	if (ispot_child_start(&sleeper, sleep_forever, NULL))
		die("fork", errno);
	ispot_child_go(&sleeper);
	pin_to(0);
	echo = echo_start(0, &to, &from);
	roundtrips(to, from, warmup);
	/* The first session registers the probes; they stay. */
	session_close(session_open(sleeper.pid, WAITS_FLAGS, &setup), &setup,
		      sleeper.pid, &produced);

	for (p = 0; p < pairs; p++) {
		int k;

		for (k = 0; k < 2; k++) {
			/* Alternate which mode goes first. */
			bool on = (k ^ p) & 1;
			int fd = -1;

			if (on)
				fd = session_open(sleeper.pid, WAITS_FLAGS,
						  &setup);
			/*
			 * Closing a session frees its rings, and the kernel
			 * TLB flush that goes with it slows the next round
			 * trips down under TCG: both modes start right
			 * after the same close, of a session without flags.
			 */
			close(session_open(sleeper.pid, 0, &dummy));
			t[on] = roundtrips(to, from, n);
			if (on)
				others += session_close(fd, &setup,
							sleeper.pid, &produced);
		}
		ratio[p] = (double)t[1] / t[0];
		ns[0][p] = (double)t[0] / n;
		ns[1][p] = (double)t[1] / n;
		if (verbose)
			fprintf(stderr,
				"# waits pair %d: ns/roundtrip without %.0f with %.0f ratio %.3f\n",
				p + 1, ns[0][p], ns[1][p], ratio[p]);
	}
	close(to);
	close(from);
	waitpid(echo, NULL, 0);
	kill(sleeper.pid, SIGKILL);
	ispot_child_wait(&sleeper);

	fprintf(stderr,
		"# waits: %d pairs of rounds x %ld round trips on CPU 0, medians of emulated times\n",
		pairs, n);
	med = median(ratio, pairs);	/* sorts ratio[] */
	fprintf(stderr,
		"# waits: per-pair ratios: p25 %.3f, p75 %.3f; %llu records in all\n",
		ratio[pairs / 4], ratio[3 * pairs / 4],
		(unsigned long long)produced);
	if (others)
		fprintf(stderr,
			"# waits: warning: %llu records about untraced processes\n",
			(unsigned long long)others);
	printf("untraced_switch_ratio: %.2f\n", med);
	printf("untraced_roundtrip_ns_off: %.0f\n", median(ns[0], pairs));
	printf("untraced_roundtrip_ns_on: %.0f\n", median(ns[1], pairs));
	printf("waits_untraced_records: %llu\n", (unsigned long long)others);
	return 0;
}
