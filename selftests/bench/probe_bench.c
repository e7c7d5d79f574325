// SPDX-License-Identifier: GPL-2.0
/*
 * What one probed call costs with full ISPOT recording, against the same
 * probe with an empty consumer (ISPOT_PROBE_COUNT_ONLY), entry and return
 * armed in both; what recording with causes (counters, task and wait
 * records) costs on top of that; and what a block between two
 * include/ispot.h markers costs against a recorded function.  Runs in the
 * VM; never pass/fail.
 *
 *   probe_bench [-n CALLS] [-r ROUNDS] [-v]
 *
 * A child pinned to one CPU has five functions doing the same work: one
 * unprobed, one under a count-only probe, one under a recording probe
 * (same session), one under a recording probe of a second session on the
 * same child that also asks for task and wait records (ISPOT_SETUP_TASKS |
 * _WAITS) and for counters (ISPOT_IOC_COUNTERS: cpu-clock, page faults,
 * cycles, instructions; the hardware ones are unsupported in the VM and
 * the note on stderr says how many are active), and one whose work sits
 * between ISPOT_BLOCK_BEGIN(bench) and ISPOT_BLOCK_END(bench), traced by a
 * third session as ispotctl traces --func block:bench: an entry probe with
 * records on every site of each marker, with its semaphore.  Each round it
 * calls each function CALLS / ROUNDS times in a tight loop, the probed
 * four in an order that cycles through every permutation, timing every
 * loop itself with CLOCK_MONOTONIC.  Rounds are short (tens of ms under
 * emulation), so a change in the host's speed hits the five modes of a
 * round alike.
 *
 * The ratios are medians over rounds of each round's own ratio: the
 * emulated machine's speed moves in phases (by 2x and more, for seconds),
 * and a median taken per mode can pick its figures from different phases.
 * probe_cost_ratio is full / empty, causes_cost_ratio causes / full,
 * block_cost_ratio block / full, each cost taken above the unprobed call.
 * A block is two entry probes where a function is an entry and a return
 * probe: both trap before Linux 6.18, so block_cost_ratio is near 1 there;
 * from 6.18 a probe on the markers' 5-byte nop becomes a call to a
 * trampoline, without the trap, and the ratio should drop.  The ns
 * figures are medians per mode, for scale only.
 *
 * The rings hold the whole run, so nothing is read while timing and
 * nothing should drop.  Prints `name: value` lines on stdout, notes (and
 * with -v every round) on stderr.
 */
#include <getopt.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>

#include "elf/elf.h"
#include "ispot.h"
#include "kmod/ispot_kmod_test.h"

#define WARMUP_CALLS	100	/* XOL slot, first call stack, page faults */
/*
 * An unprobed loop runs this many times more calls per round, so that the
 * clock reads around it (system calls under emulation) stay negligible.
 */
#define NONE_FACTOR	64

enum mode { MODE_NONE, MODE_EMPTY, MODE_FULL, MODE_CAUSES, MODE_BLOCK,
	    NR_MODES };

/* The probed modes, all but MODE_NONE, and their orders in a round. */
#define NR_PROBED	(NR_MODES - 1)
#define NR_ORDERS	24	/* NR_PROBED! */
_Static_assert(NR_PROBED == 4, "NR_ORDERS must be NR_PROBED factorial");

static volatile int sink[NR_MODES];

/* noipa: not inlined, cloned or folded into one another. */
__attribute__((noipa)) int fn_none(int x)
{
	sink[MODE_NONE] += x;
	return x + 1;
}

__attribute__((noipa)) int fn_empty(int x)
{
	sink[MODE_EMPTY] += x;
	return x + 1;
}

__attribute__((noipa)) int fn_full(int x)
{
	sink[MODE_FULL] += x;
	return x + 1;
}

__attribute__((noipa)) int fn_causes(int x)
{
	sink[MODE_CAUSES] += x;
	return x + 1;
}

/*
 * fn_full's work between the two markers of block "bench": what the block
 * costs above fn_none is what its two probes cost, the nops being free.
 */
__attribute__((noipa)) int fn_block(int x)
{
	ISPOT_BLOCK_BEGIN(bench);
	sink[MODE_BLOCK] += x;
	ISPOT_BLOCK_END(bench);
	return x + 1;
}

static int (*const mode_fn[NR_MODES])(int) = {
	fn_none, fn_empty, fn_full, fn_causes, fn_block,
};

/*
 * The order of the probed modes in round @r: permutation r % NR_ORDERS,
 * decoded from its factorial-base digits, so that every permutation comes
 * in turn and each mode follows every other as often.
 */
static void round_order(int r, enum mode order[NR_PROBED])
{
	enum mode left[NR_PROBED];
	int i, j, n = NR_PROBED, code = r % NR_ORDERS;

	for (i = 0; i < n; i++)
		left[i] = MODE_NONE + 1 + i;
	for (i = 0; i < NR_PROBED; i++) {
		int f = 1;

		for (j = 2; j < n; j++)
			f *= j;
		order[i] = left[code / f];
		for (j = code / f; j < n - 1; j++)
			left[j] = left[j + 1];
		code %= f;
		n--;
	}
}

struct plan {
	long per_round;	/* probed calls per round */
	int rounds;
	int cpu;
	int result;	/* write end: the child's loop times */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static uint64_t timed_calls(enum mode m, long calls)
{
	int (*fn)(int) = mode_fn[m];
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < calls; i++)
		fn(i);
	return now_ns() - t0;
}

/* The child: times[round][mode] in ns, written to the result pipe. */
static int child_work(void *arg)
{
	const struct plan *pl = arg;
	uint64_t (*times)[NR_MODES];
	size_t bytes = pl->rounds * sizeof(*times);
	int r, m;

	if (ispot_pin_cpu(pl->cpu))
		return 1;
	times = calloc(pl->rounds, sizeof(*times));
	if (!times)
		return 1;
	for (m = 0; m < NR_MODES; m++)
		timed_calls(m, WARMUP_CALLS);
	for (r = 0; r < pl->rounds; r++) {
		enum mode order[NR_PROBED];

		round_order(r, order);
		times[r][MODE_NONE] = timed_calls(MODE_NONE,
						  pl->per_round * NONE_FACTOR);
		for (m = 0; m < NR_PROBED; m++)
			times[r][order[m]] = timed_calls(order[m],
							 pl->per_round);
	}
	return write(pl->result, times, bytes) == (ssize_t)bytes ? 0 : 1;
}

static int read_full(int fd, void *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0)
			return -1;
		buf = (char *)buf + n;
		len -= n;
	}
	return 0;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "probe_bench: %s: %s\n", what, strerror(err));
	exit(1);
}

/* Data pages per ring for @slots slots, as a power of two. */
static uint32_t ring_pages_for(uint64_t slots)
{
	uint64_t bytes = slots * ISPOT_SLOT_SIZE;
	uint32_t pages = 1;

	while ((uint64_t)pages * 4096 < bytes)
		pages <<= 1;
	return pages;
}

/*
 * The second session, on the same child: task and wait records, counters,
 * and a recording probe on fn_causes with the flags of fn_full's.  Enabled;
 * returns its fd.
 */
static int causes_session(pid_t pid, uint64_t full_calls, uint64_t stacks_max,
			  struct ispot_setup *setup)
{
	static const struct { uint32_t type; uint64_t config; } ev[] = {
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	};
	struct ispot_counters c;
	int fd, ret, active = 0;
	uint32_t i;

	fd = ispot_open();
	if (fd < 0)
		die(ISPOT_DEV, errno);
	memset(setup, 0, sizeof(*setup));
	setup->pid = pid;
	setup->flags = ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS;
	/*
	 * Entry and exit of two slots each per call, call stacks, and room
	 * for the child's switches and futex calls.
	 */
	setup->ring_pages = ring_pages_for(4 * full_calls + 5 * stacks_max +
					   16384);
	setup->watermark = setup->ring_pages * 4096;
	ret = ispot_ioctl(fd, ISPOT_IOC_SETUP, setup);
	if (ret)
		die("ISPOT_IOC_SETUP (causes)", -ret);
	if (setup->nr_rings > 256)
		die("too many rings", E2BIG);

	memset(&c, 0, sizeof(c));
	c.nr = sizeof(ev) / sizeof(ev[0]);
	for (i = 0; i < c.nr; i++) {
		c.spec[i].type = ev[i].type;
		c.spec[i].config = ev[i].config;
	}
	ret = ispot_ioctl(fd, ISPOT_IOC_COUNTERS, &c);
	if (ret)
		die("ISPOT_IOC_COUNTERS", -ret);
	for (i = 0; i < c.nr; i++) {
		active += !c.spec[i].result;
		if (c.spec[i].result)
			fprintf(stderr,
				"# probe: causes: counter %u (type %u config %llu): %s\n",
				i, c.spec[i].type,
				(unsigned long long)c.spec[i].config,
				strerror(-c.spec[i].result));
	}
	fprintf(stderr, "# probe: causes: %d of %u counters active\n", active,
		c.nr);

	ret = ispot_add_probe_fn(fd, (void *)fn_causes, ISPOT_PROBE_BOTH |
				 ISPOT_PROBE_NO_CALLSITE, 0);
	if (ret < 0)
		die("ISPOT_IOC_PROBE_ADD (causes)", -ret);
	ret = ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL);
	if (ret)
		die("ISPOT_IOC_ENABLE (causes)", -ret);
	return fd;
}

/*
 * The third session: block "bench" as ispotctl arms --func block:bench
 * (trace_arm_block()), an entry probe with records on every site of its
 * begin and end markers, each with the marker's semaphore.  Enabled;
 * returns its fd, and the number of probes in *nr_probes.
 */
static int block_session(pid_t pid, uint64_t full_calls, uint64_t stacks_max,
			 struct ispot_setup *setup, uint32_t *nr_probes)
{
	struct elf_block b;
	char err[512];
	size_t i;
	int fd, ret;

	ret = elf_resolve_block("bench", getpid(), NULL, &b, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "probe_bench: %s\n", err);
		exit(1);
	}
	fd = ispot_open();
	if (fd < 0)
		die(ISPOT_DEV, errno);
	memset(setup, 0, sizeof(*setup));
	setup->pid = pid;
	/* Two entry records per call, a call stack per probe and period. */
	setup->ring_pages = ring_pages_for(2 * full_calls + 10 * stacks_max);
	setup->watermark = setup->ring_pages * 4096;
	ret = ispot_ioctl(fd, ISPOT_IOC_SETUP, setup);
	if (ret)
		die("ISPOT_IOC_SETUP (block)", -ret);
	if (setup->nr_rings > 256)
		die("too many rings", E2BIG);

	*nr_probes = b.nr_begin + b.nr_end;
	for (i = 0; i < *nr_probes; i++) {
		const struct elf_usdt_site *site = i < b.nr_begin ?
			&b.begin[i] : &b.end[i - b.nr_begin];
		struct ispot_probe_add a;

		memset(&a, 0, sizeof(a));
		a.fd = -1;
		a.path = (uintptr_t)site->obj;
		a.offset = site->offset;
		a.flags = ISPOT_PROBE_ENTRY | ISPOT_PROBE_NO_CALLSITE;
		a.ref_ctr_offset = site->sem_offset;
		ret = ispot_ioctl(fd, ISPOT_IOC_PROBE_ADD, &a);
		if (ret)
			die("ISPOT_IOC_PROBE_ADD (block)", -ret);
	}
	fprintf(stderr, "# probe: block: %zu begin and %zu end sites%s\n",
		b.nr_begin, b.nr_end,
		b.begin[0].sem_offset ? ", with semaphores" : "");
	if (b.warn[0])
		fprintf(stderr, "# probe: block: %s\n", b.warn);
	elf_block_free(&b);
	ret = ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL);
	if (ret)
		die("ISPOT_IOC_ENABLE (block)", -ret);
	return fd;
}

/* Ring and probe figures of session @fd, summed over rings: 0 or -errno. */
static int session_stats(int fd, const struct ispot_setup *setup,
			 struct ispot_ring_stats *rs, struct ispot_probe_stats *ps,
			 uint32_t nr_probes, uint64_t *produced,
			 uint64_t *dropped)
{
	struct ispot_stats st;
	uint32_t i;
	int ret;

	memset(&st, 0, sizeof(st));
	st.rings = (uintptr_t)rs;
	st.probes = (uintptr_t)ps;
	st.nr_rings = setup->nr_rings;
	st.nr_probes = nr_probes;
	ret = ispot_ioctl(fd, ISPOT_IOC_STATS, &st);
	if (ret)
		return ret;
	*produced = *dropped = 0;
	for (i = 0; i < setup->nr_rings; i++) {
		*produced += rs[i].produced;
		*dropped += rs[i].dropped;
	}
	return 0;
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

/*
 * The median over rounds of mode @num's cost over mode @den's, each
 * taken above that round's unprobed call; 0 when no round has a cost
 * for @den.  @v is scratch room for @rounds values.
 */
static double cost_ratio(uint64_t (*times)[NR_MODES], int rounds,
			 enum mode num, enum mode den, double *v)
{
	int r, k = 0;

	for (r = 0; r < rounds; r++) {
		double none = (double)times[r][MODE_NONE] / NONE_FACTOR;
		double d = times[r][den] - none;

		if (d > 0)
			v[k++] = (times[r][num] - none) / d;
	}
	return k ? median(v, k) : 0;
}

int main(int argc, char **argv)
{
	struct ispot_ring_stats rs[256];
	struct ispot_probe_stats ps[2], cps, bps[16];
	struct ispot_setup setup, csetup, bsetup;
	struct ispot_child child;
	struct plan pl = { .rounds = 80 };
	uint64_t (*times)[NR_MODES];
	uint64_t produced = 0, dropped = 0, full_calls, stacks_max;
	uint64_t cproduced = 0, cdropped = 0, bproduced = 0, bdropped = 0;
	uint64_t bhits = 0;
	double per_call[NR_MODES], *v, cost_empty, cost_full, ratio;
	double cost_causes, causes_ratio, cost_block, block_ratio;
	long calls = 40000, ncpu;
	int p[2], fd, cfd, bfd, ret, r, m, c;
	uint32_t nr_bprobes, i;
	bool verbose = false;
	size_t bytes;

	while ((c = getopt(argc, argv, "n:r:v")) != -1) {
		switch (c) {
		case 'n':
			calls = atol(optarg);
			break;
		case 'r':
			pl.rounds = atoi(optarg);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n CALLS] [-r ROUNDS] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (pl.rounds < 1 || pl.rounds > 4096 || calls < pl.rounds) {
		fprintf(stderr,
			"probe_bench: need 1 <= ROUNDS <= 4096 and CALLS >= ROUNDS\n");
		return 2;
	}
	pl.per_round = calls / pl.rounds;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pl.cpu = ncpu > 1 ? (int)ncpu - 1 : 0;
	full_calls = pl.per_round * pl.rounds + WARMUP_CALLS;
	stacks_max = full_calls / 10000 + 2;	/* default stack period */

	if (pipe(p))
		die("pipe", errno);
	pl.result = p[1];
	if (ispot_child_start(&child, child_work, &pl))
		die("fork", errno);
	close(p[1]);

	fd = ispot_open();
	if (fd < 0)
		die(ISPOT_DEV, errno);
	memset(&setup, 0, sizeof(setup));
	setup.pid = child.pid;
	/* Entry and exit per call, plus call stacks of up to 5 slots. */
	setup.ring_pages = ring_pages_for(2 * full_calls + 5 * stacks_max);
	setup.watermark = setup.ring_pages * 4096;	/* never wake anyone */
	ret = ispot_ioctl(fd, ISPOT_IOC_SETUP, &setup);
	if (ret)
		die("ISPOT_IOC_SETUP", -ret);
	if (setup.nr_rings > 256)
		die("too many rings", E2BIG);
	ret = ispot_add_probe_fn(fd, (void *)fn_empty,
				 ISPOT_PROBE_BOTH | ISPOT_PROBE_COUNT_ONLY, 0);
	if (ret < 0)
		die("ISPOT_IOC_PROBE_ADD (count only)", -ret);
	/* Recording as ispotctl does it: the exit carries the call site. */
	ret = ispot_add_probe_fn(fd, (void *)fn_full, ISPOT_PROBE_BOTH |
				 ISPOT_PROBE_NO_CALLSITE, 0);
	if (ret < 0)
		die("ISPOT_IOC_PROBE_ADD", -ret);
	ret = ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL);
	if (ret)
		die("ISPOT_IOC_ENABLE", -ret);
	cfd = causes_session(child.pid, full_calls, stacks_max, &csetup);
	bfd = block_session(child.pid, full_calls, stacks_max, &bsetup,
			    &nr_bprobes);
	if (nr_bprobes > sizeof(bps) / sizeof(bps[0]))
		die("too many block sites", E2BIG);

	ispot_child_go(&child);
	bytes = pl.rounds * sizeof(*times);
	times = malloc(bytes);
	v = calloc(pl.rounds, sizeof(*v));
	if (!times || !v)
		die("malloc", ENOMEM);
	if (read_full(p[0], times, bytes))
		bytes = 0;
	close(p[0]);
	ret = ispot_child_wait(&child);
	if (ret || !bytes) {
		fprintf(stderr, "probe_bench: the child failed (%d)\n", ret);
		return 1;
	}

	ret = session_stats(fd, &setup, rs, ps, 2, &produced, &dropped);
	if (ret)
		die("ISPOT_IOC_STATS", -ret);
	close(fd);
	ret = session_stats(cfd, &csetup, rs, &cps, 1, &cproduced, &cdropped);
	if (ret)
		die("ISPOT_IOC_STATS (causes)", -ret);
	close(cfd);
	ret = session_stats(bfd, &bsetup, rs, bps, nr_bprobes, &bproduced,
			    &bdropped);
	if (ret)
		die("ISPOT_IOC_STATS (block)", -ret);
	close(bfd);
	for (i = 0; i < nr_bprobes; i++)
		bhits += bps[i].entry_hits;

	for (r = 0; verbose && r < pl.rounds; r++)
		fprintf(stderr,
			"# probe round %d: ns/call none %.1f empty %.0f full %.0f causes %.0f block %.0f\n",
			r + 1, (double)times[r][MODE_NONE] / NONE_FACTOR /
			pl.per_round,
			(double)times[r][MODE_EMPTY] / pl.per_round,
			(double)times[r][MODE_FULL] / pl.per_round,
			(double)times[r][MODE_CAUSES] / pl.per_round,
			(double)times[r][MODE_BLOCK] / pl.per_round);
	for (m = 0; m < NR_MODES; m++) {
		long n = pl.per_round * (m == MODE_NONE ? NONE_FACTOR : 1);

		for (r = 0; r < pl.rounds; r++)
			v[r] = (double)times[r][m] / n;
		per_call[m] = median(v, pl.rounds);
	}
	cost_empty = per_call[MODE_EMPTY] - per_call[MODE_NONE];
	cost_full = per_call[MODE_FULL] - per_call[MODE_NONE];
	cost_causes = per_call[MODE_CAUSES] - per_call[MODE_NONE];
	cost_block = per_call[MODE_BLOCK] - per_call[MODE_NONE];
	ratio = cost_ratio(times, pl.rounds, MODE_FULL, MODE_EMPTY, v);
	causes_ratio = cost_ratio(times, pl.rounds, MODE_CAUSES, MODE_FULL, v);
	block_ratio = cost_ratio(times, pl.rounds, MODE_BLOCK, MODE_FULL, v);

	fprintf(stderr,
		"# probe: %d rounds x %ld calls per probed mode on CPU %d, medians of emulated times\n",
		pl.rounds, pl.per_round, pl.cpu);
	for (m = 0; m < 2; m++)
		if (ps[m].entry_hits != full_calls ||
		    ps[m].return_hits != full_calls)
			fprintf(stderr,
				"# probe: warning: probe %u counted %llu entries, %llu returns, expected %llu\n",
				ps[m].probe_id,
				(unsigned long long)ps[m].entry_hits,
				(unsigned long long)ps[m].return_hits,
				(unsigned long long)full_calls);
	/* Only the recording probe writes: two records per call + stacks. */
	if (produced < 2 * full_calls ||
	    produced > 2 * full_calls + stacks_max)
		fprintf(stderr,
			"# probe: warning: %llu records for %llu recorded calls\n",
			(unsigned long long)produced,
			(unsigned long long)full_calls);
	if (cps.entry_hits != full_calls || cps.return_hits != full_calls)
		fprintf(stderr,
			"# probe: warning: causes probe counted %llu entries, %llu returns, expected %llu\n",
			(unsigned long long)cps.entry_hits,
			(unsigned long long)cps.return_hits,
			(unsigned long long)full_calls);
	/* Two records per call, stacks, and the child's task and waits. */
	if (cproduced < 2 * full_calls || cdropped)
		fprintf(stderr,
			"# probe: warning: causes session: %llu records (%llu dropped) for %llu calls\n",
			(unsigned long long)cproduced,
			(unsigned long long)cdropped,
			(unsigned long long)full_calls);
	else
		fprintf(stderr,
			"# probe: causes session: %llu records for %llu calls, none dropped\n",
			(unsigned long long)cproduced,
			(unsigned long long)full_calls);
	/* Each call hits a begin and an end site: two entry records. */
	if (bhits != 2 * full_calls || bproduced < 2 * full_calls || bdropped)
		fprintf(stderr,
			"# probe: warning: block session: %llu hits, %llu records (%llu dropped) for %llu calls\n",
			(unsigned long long)bhits,
			(unsigned long long)bproduced,
			(unsigned long long)bdropped,
			(unsigned long long)full_calls);

	printf("probe_cost_ratio: %.2f\n", ratio);
	printf("probe_cost_ns_empty: %.0f\n", cost_empty);
	printf("probe_cost_ns_full: %.0f\n", cost_full);
	printf("call_ns_unprobed: %.0f\n", per_call[MODE_NONE]);
	printf("probe_records_dropped: %llu\n", (unsigned long long)dropped);
	printf("causes_cost_ratio: %.2f\n", causes_ratio);
	printf("causes_cost_ns: %.0f\n", cost_causes);
	printf("block_cost_ratio: %.2f\n", block_ratio);
	printf("block_cost_ns: %.0f\n", cost_block);
	return 0;
}
