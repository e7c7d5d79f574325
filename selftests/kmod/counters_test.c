// SPDX-License-Identifier: GPL-2.0
/*
 * Counters (ABI 1.3): perf events read around every probed call.  Software
 * events give exact per-call deltas, hardware events the VM lacks are
 * reported per spec and leave the rest working, a call that was switched
 * out or moved to another CPU says so, ISPOT_COUNTERS_TRY keeps nothing,
 * sessions without counters keep one-slot records, and sessions closed (and
 * the module unloaded) while the target is counting leave no trace.
 */
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <time.h>

#include "ispot_kmod_test.h"

#define FAULT_PAGES	16	/* fresh pages touched per call */
#define FAULT_CALLS	64
#define PAGE		4096

static volatile int sink;

/* Writes one byte to each of @n pages from @p on: n page faults. */
__attribute__((noipa)) int touch_pages(volatile char *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[(size_t)i * PAGE] = 1;
	return n;
}

__attribute__((noipa)) int quick_fn(int x)
{
	sink += x;
	return x + 1;
}

/* Sleeps inside the call: the thread is switched out. */
__attribute__((noipa)) int sleepy_fn(int us)
{
	usleep(us);
	return us;
}

/* Moves the calling thread to @to_cpu from inside the call. */
__attribute__((noipa)) int migrate_fn(int to_cpu)
{
	ispot_pin_cpu(to_cpu);
	sink++;
	return to_cpu;
}

static int last_cpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 1 ? (int)n - 1 : 0;
}

/* A traced child, its session and what was drained from it. */
struct csess {
	int fd;
	struct ispot_setup setup;
	struct ispot_rings rings;
	struct ispot_child child;
	struct ispot_record *slots;	/* every slot, as drained */
	size_t n, cap;
};

static void cs_start(struct csess *cs, int (*work)(void *), void *arg)
{
	memset(cs, 0, sizeof(*cs));
	cs->fd = ispot_open_or_skip();
	ASSERT_GE(cs->fd, 0);
	ASSERT_EQ(ispot_child_start(&cs->child, work, arg), 0);
	cs->setup.pid = cs->child.pid;
	cs->setup.ring_pages = 64;
	ASSERT_EQ(ispot_ioctl(cs->fd, ISPOT_IOC_SETUP, &cs->setup), 0);
	ASSERT_EQ(ispot_map_rings(cs->fd, &cs->setup, &cs->rings), 0);
}

static void spec_set(struct ispot_counters *c, uint32_t i, uint32_t type,
		     uint64_t config)
{
	c->spec[i].type = type;
	c->spec[i].config = config;
	if (c->nr <= i)
		c->nr = i + 1;
}

static int cs_probe(struct csess *cs, void *fn)
{
	int id = ispot_add_probe_fn(cs->fd, fn, ISPOT_PROBE_BOTH, 0);

	ASSERT_GT(id, 0);
	return id;
}

/* Enable, let the child run to its end, disable and drain everything. */
static void cs_run(struct csess *cs)
{
	ASSERT_EQ(ispot_ioctl(cs->fd, ISPOT_IOC_ENABLE, NULL), 0);
	ispot_child_go(&cs->child);
	ASSERT_EQ(ispot_child_wait(&cs->child), 0);
	ASSERT_EQ(ispot_ioctl(cs->fd, ISPOT_IOC_DISABLE, NULL), 0);
	cs->n = ispot_drain(cs->fd, &cs->rings, &cs->slots, &cs->cap, 0);
}

/* No ring dropped anything and every record was consumed. */
static void cs_expect_no_drops(struct csess *cs)
{
	ispot_expect_no_drops(cs->fd, cs->setup.nr_rings, true);
}

static void cs_close(struct csess *cs)
{
	int i;

	for (i = 0; cs->rings.maps && i < cs->rings.nr; i++)
		if (cs->rings.maps[i] && cs->rings.maps[i] != MAP_FAILED)
			munmap(cs->rings.maps[i], cs->rings.size);
	free(cs->rings.maps);
	free(cs->slots);
	close(cs->fd);
	memset(cs, 0, sizeof(*cs));
	cs->fd = -1;
}

/* A record with its counter slot, if it has one. */
struct crec {
	struct ispot_record r;
	struct ispot_counter_values cv;
	size_t seq;
};

/* One call: its entry and its exit. */
struct call {
	struct crec in, out;
};

static int crec_cmp(const void *a, const void *b)
{
	const struct crec *x = a, *y = b;

	if (x->r.ts_ns != y->r.ts_ns)
		return x->r.ts_ns < y->r.ts_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Pair the ENTRY and EXIT records of probe @id by thread and sp (an exit's
 * sp is its entry's + 8), in time order.  Every ENTRY and EXIT record of
 * every probe must take @nslots slots; a second slot is kept with it.
 * Returns the calls, *ncalls their number; *unpaired counts the rest.
 */
static struct call *cs_calls(struct csess *cs, uint32_t id, uint32_t nslots,
			     size_t *ncalls, size_t *unpaired)
{
	struct crec *recs, *stack[64];
	struct call *calls;
	size_t i, m = 0, nopen = 0, nc = 0;

	recs = calloc(cs->n + 1, sizeof(*recs));
	calls = calloc(cs->n + 1, sizeof(*calls));
	ASSERT_NE(recs, NULL);
	ASSERT_NE(calls, NULL);
	*unpaired = 0;
	for (i = 0; i < cs->n; i += cs->slots[i].nslots) {
		const struct ispot_record *r = &cs->slots[i];

		ASSERT_GE(r->nslots, 1);
		ASSERT_LE(i + r->nslots, cs->n);
		if (r->kind != ISPOT_REC_ENTRY && r->kind != ISPOT_REC_EXIT)
			continue;
		if (r->nslots != nslots)
			TH_LOG("record %zu, kind %u: %u slots", i, r->kind,
			       r->nslots);
		ASSERT_EQ(r->nslots, nslots);
		if (r->probe_id != id)
			continue;
		recs[m].r = *r;
		if (nslots == 2)
			memcpy(&recs[m].cv, &cs->slots[i + 1],
			       sizeof(recs[m].cv));
		recs[m].seq = m;
		m++;
	}
	qsort(recs, m, sizeof(*recs), crec_cmp);
	for (i = 0; i < m; i++) {
		size_t j;

		if (recs[i].r.kind == ISPOT_REC_ENTRY) {
			ASSERT_LT(nopen, 64);
			stack[nopen++] = &recs[i];
			continue;
		}
		for (j = nopen; j > 0; j--)
			if (stack[j - 1]->r.tid == recs[i].r.tid &&
			    stack[j - 1]->r.sp + 8 == recs[i].r.sp)
				break;
		if (!j) {
			(*unpaired)++;
			continue;
		}
		calls[nc].in = *stack[j - 1];
		calls[nc].out = recs[i];
		nc++;
		/* Entries above it in the stack will never return. */
		*unpaired += nopen - j;
		nopen = j - 1;
	}
	*unpaired += nopen;
	free(recs);
	*ncalls = nc;
	return calls;
}

/* The delta of a call belongs to it alone. */
static int call_clean(const struct call *c)
{
	return c->in.r.cpu == c->out.r.cpu &&
	       c->in.cv.switches == c->out.cv.switches;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* FAULT_CALLS calls, each writing to FAULT_PAGES pages never touched. */
static int fault_work(void *arg)
{
	size_t bytes = (size_t)FAULT_CALLS * FAULT_PAGES * PAGE;
	char *p;
	int i;

	(void)arg;
	if (ispot_pin_cpu(last_cpu()))
		return 1;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	/* One fault per page, not one per huge page. */
	madvise(p, bytes, MADV_NOHUGEPAGE);
	for (i = 0; i < FAULT_CALLS; i++)
		if (touch_pages(p + (size_t)i * FAULT_PAGES * PAGE,
				FAULT_PAGES) != FAULT_PAGES)
			return 3;
	return 0;
}

/*
 * The guest's clocksource into @buf: "tsc" unless the TSC was marked
 * unstable (emulation often is, at boot or by the watchdog), and then
 * the scheduler's clock, which cpu-clock counts, may only advance
 * within a tick of the clocksource's: on a loaded host most short calls
 * read 0 and a few a whole tick (4 ms).
 */
static void clocksource(char *buf, size_t len)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/"
			"current_clocksource", "re");

	snprintf(buf, len, "unknown");
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

TEST(software_events_give_exact_deltas)
{
	struct ispot_counters c = { 0 };
	double ratio[FAULT_CALLS];
	size_t i, ncalls, unpaired, clean = 0, exact = 0, sane = 0, zero = 0;
	char clock[32];
	struct call *calls;
	struct csess cs;
	int id;

	cs_start(&cs, fault_work, NULL);
	id = cs_probe(&cs, touch_pages);
	spec_set(&c, 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	spec_set(&c, 1, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	ASSERT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_COUNTERS, &c), 0);
	ASSERT_EQ(c.nr, 2);
	ASSERT_EQ(c.spec[0].result, 0);
	ASSERT_EQ(c.spec[1].result, 0);
	cs_run(&cs);
	cs_expect_no_drops(&cs);

	calls = cs_calls(&cs, id, 2, &ncalls, &unpaired);
	EXPECT_EQ(ncalls, FAULT_CALLS);
	EXPECT_EQ(unpaired, 0);
	for (i = 0; i < ncalls; i++) {
		const struct call *k = &calls[i];
		uint64_t pf, ns, dts;

		ASSERT_EQ(k->in.cv.nr, 2);
		ASSERT_EQ(k->out.cv.nr, 2);
		ASSERT_EQ(k->in.cv.valid, 0x3);
		ASSERT_EQ(k->out.cv.valid, 0x3);
		/* Unused values read as 0. */
		ASSERT_EQ(k->in.cv.value[2] | k->out.cv.value[5], 0);
		/* Counters only go up, switched out or not. */
		if (k->in.r.cpu == k->out.r.cpu) {
			ASSERT_GE(k->out.cv.value[0], k->in.cv.value[0]);
			ASSERT_GE(k->out.cv.value[1], k->in.cv.value[1]);
		}
		ASSERT_GE(k->out.cv.switches, k->in.cv.switches);
		if (!call_clean(k))
			continue;
		pf = k->out.cv.value[0] - k->in.cv.value[0];
		ns = k->out.cv.value[1] - k->in.cv.value[1];
		dts = k->out.r.ts_ns - k->in.r.ts_ns;
		/* The first call may fault in the XOL page too. */
		if (pf != FAULT_PAGES)
			TH_LOG("call %zu: %llu page faults", i,
			       (unsigned long long)pf);
		EXPECT_GE(pf, FAULT_PAGES);
		EXPECT_LE(pf, FAULT_PAGES + 2);
		exact += pf == FAULT_PAGES;
		/*
		 * The counters are read just outside the timestamps (after
		 * at the entry, before at the exit): a little more, never
		 * much more, than the call's own time.  But cpu-clock is the
		 * scheduler's clock: in a VM whose TSC is marked unstable it
		 * stands still at times and catches up at a tick, so a few
		 * calls read 0 or milliseconds; the median must be right.
		 */
		zero += !ns;
		if (ns > 0 && ns <= dts + dts / 8 + 100000)
			sane++;
		else
			TH_LOG("call %zu: cpu-clock %llu ns, timestamps %llu ns",
			       i, (unsigned long long)ns,
			       (unsigned long long)dts);
		ratio[clean++] = (double)ns / (dts ? dts : 1);
	}
	TH_LOG("%zu of %zu calls clean, %zu with exactly %d faults", clean,
	       ncalls, exact, FAULT_PAGES);
	TH_LOG("%zu clean calls with a cpu-clock delta within their time",
	       sane);
	/* Pinned, nothing else to run: hardly any call is disturbed. */
	EXPECT_GE(clean * 4, (size_t)FAULT_CALLS * 3);
	EXPECT_GE(exact + 2, clean);
	/* The page faults count exactly whatever the clock does. */
	clocksource(clock, sizeof(clock));
	TH_LOG("clocksource %s; %zu clean calls read cpu-clock 0", clock,
	       zero);
	/*
	 * Most runs keep a clock that serves (the median right), whatever
	 * the clocksource; only with the TSC unstable and most calls at 0
	 * is it the tick's.
	 */
	if (strcmp(clock, "tsc") && zero * 2 > clean) {
		TH_LOG("the TSC marked unstable and most calls at 0: "
		       "cpu-clock moves at ticks, its deltas not checked");
		free(calls);
		cs_close(&cs);
		return;
	}
	EXPECT_GE(sane * 2, clean);
	if (clean) {
		qsort(ratio, clean, sizeof(ratio[0]), cmp_double);
		TH_LOG("cpu-clock / timestamps per call: median %.3f",
		       ratio[clean / 2]);
		EXPECT_GE(ratio[clean / 2], 0.9);
		EXPECT_LE(ratio[clean / 2], 1.25);
	}
	free(calls);
	cs_close(&cs);
}

static int quick_work(void *arg)
{
	int i, n = (int)(long)arg;

	if (ispot_pin_cpu(last_cpu()))
		return 1;
	for (i = 0; i < n; i++)
		quick_fn(i);
	return 0;
}

TEST(hardware_events_unsupported_others_count)
{
	struct ispot_counters c = { 0 };
	size_t i, ncalls, unpaired;
	uint32_t want = 1u << 2;
	uint64_t faults = 0;
	struct call *calls;
	struct csess cs;
	int id, k;

	cs_start(&cs, quick_work, (void *)200L);
	id = cs_probe(&cs, quick_fn);
	spec_set(&c, 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	spec_set(&c, 1, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	spec_set(&c, 2, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	ASSERT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_COUNTERS, &c), 0);
	ASSERT_EQ(c.nr, 3);
	ASSERT_EQ(c.spec[2].result, 0);
	for (k = 0; k < 2; k++) {
		TH_LOG("hardware spec %d: result %d (%s)", k,
		       c.spec[k].result,
		       c.spec[k].result ? strerror(-c.spec[k].result) :
					  "counting");
		ASSERT_LE(c.spec[k].result, 0);
		ASSERT_GT(c.spec[k].result, -4096);
		/* A machine with a PMU counts them instead. */
		if (!c.spec[k].result)
			want |= 1u << k;
	}
	/* The inputs come back as they were. */
	EXPECT_EQ(c.spec[0].type, PERF_TYPE_HARDWARE);
	EXPECT_EQ(c.spec[1].config, PERF_COUNT_HW_INSTRUCTIONS);
	EXPECT_EQ(c.spec[2].config, PERF_COUNT_SW_PAGE_FAULTS);
	EXPECT_EQ(c.flags, 0);

	cs_run(&cs);
	cs_expect_no_drops(&cs);
	calls = cs_calls(&cs, id, 2, &ncalls, &unpaired);
	EXPECT_EQ(ncalls, 200);
	EXPECT_EQ(unpaired, 0);
	for (i = 0; i < ncalls; i++) {
		const struct ispot_counter_values *v[2] = {
			&calls[i].in.cv, &calls[i].out.cv,
		};

		for (k = 0; k < 2; k++) {
			ASSERT_EQ(v[k]->nr, 3);
			ASSERT_EQ(v[k]->valid, want);
			if (!(want & 1))
				ASSERT_EQ(v[k]->value[0], 0);
			if (!(want & 2))
				ASSERT_EQ(v[k]->value[1], 0);
			ASSERT_EQ(v[k]->value[3], 0);
		}
		/*
		 * A quick call touches no new page; the first may fault in
		 * the page its probe steps and returns through.
		 */
		if (call_clean(&calls[i]))
			faults += v[1]->value[2] - v[0]->value[2];
	}
	EXPECT_LE(faults, 2);
	free(calls);
	cs_close(&cs);
}

/* Sleeping calls and quick ones, alternating, on one CPU. */
static int sleepy_work(void *arg)
{
	int i;

	(void)arg;
	if (ispot_pin_cpu(last_cpu()))
		return 1;
	for (i = 0; i < 20; i++) {
		sleepy_fn(1000);
		quick_fn(i);
	}
	return 0;
}

TEST(switched_out_call_shows_in_switches)
{
	struct ispot_counters c = { 0 };
	size_t i, ns, nq, unpaired, quick_clean = 0, slept = 0;
	struct call *sleeps, *quicks;
	struct csess cs;
	int sid, qid;

	cs_start(&cs, sleepy_work, NULL);
	sid = cs_probe(&cs, sleepy_fn);
	qid = cs_probe(&cs, quick_fn);
	spec_set(&c, 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	ASSERT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_COUNTERS, &c), 0);
	ASSERT_EQ(c.spec[0].result, 0);
	cs_run(&cs);
	cs_expect_no_drops(&cs);

	sleeps = cs_calls(&cs, sid, 2, &ns, &unpaired);
	EXPECT_EQ(ns, 20);
	EXPECT_EQ(unpaired, 0);
	for (i = 0; i < ns; i++) {
		EXPECT_EQ(sleeps[i].in.cv.valid, 1);
		EXPECT_EQ(sleeps[i].out.cv.valid, 1);
		/* Slept: a voluntary switch inside the call... */
		slept += sleeps[i].out.cv.switches > sleeps[i].in.cv.switches;
		EXPECT_GE(sleeps[i].out.cv.switches, sleeps[i].in.cv.switches);
		EXPECT_GE(sleeps[i].out.r.ts_ns - sleeps[i].in.r.ts_ns,
			  1000000);
	}
	/*
	 * ...unless the 1 ms timer had already fired when the thread would
	 * have blocked: do_nanosleep() then returns without scheduling.  On
	 * the debug kernel under TCG the path from hrtimer_start() to
	 * schedule() can take that long (1 of 20 calls there, once).
	 */
	TH_LOG("%zu of %zu sleeping calls were switched out", slept, ns);
	EXPECT_GE(slept, ns / 2);
	/* The control: the quick calls are hardly ever switched out. */
	quicks = cs_calls(&cs, qid, 2, &nq, &unpaired);
	EXPECT_EQ(nq, 20);
	for (i = 0; i < nq; i++)
		quick_clean += call_clean(&quicks[i]);
	EXPECT_GE(quick_clean, 15);
	/* Switches only grow along the thread's calls. */
	for (i = 1; i < ns; i++)
		EXPECT_GE(sleeps[i].in.cv.switches,
			  sleeps[i - 1].out.cv.switches);
	free(sleeps);
	free(quicks);
	cs_close(&cs);
}

static int migrate_work(void *arg)
{
	int i;

	(void)arg;
	if (ispot_pin_cpu(0))
		return 1;
	for (i = 0; i < 50; i++)
		migrate_fn(!(i & 1));
	return 0;
}

TEST(migrated_call_shows_in_cpu)
{
	struct ispot_counters c = { 0 };
	size_t i, n, unpaired, moved = 0;
	struct call *calls;
	struct csess cs;
	int id;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("needs 2 CPUs");
	cs_start(&cs, migrate_work, NULL);
	id = cs_probe(&cs, migrate_fn);
	spec_set(&c, 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	spec_set(&c, 1, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	ASSERT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_COUNTERS, &c), 0);
	cs_run(&cs);
	cs_expect_no_drops(&cs);
	calls = cs_calls(&cs, id, 2, &n, &unpaired);
	EXPECT_EQ(n, 50);
	EXPECT_EQ(unpaired, 0);
	for (i = 0; i < n; i++) {
		const struct call *k = &calls[i];

		/* Each side read its own CPU's counters. */
		EXPECT_EQ(k->in.cv.valid, 0x3);
		EXPECT_EQ(k->out.cv.valid, 0x3);
		/* Every call asks for the CPU it is not on. */
		EXPECT_NE(k->in.r.cpu, k->out.r.cpu);
		if (k->in.r.cpu == k->out.r.cpu)
			continue;
		moved++;
		/* A running thread changes CPU only through a switch. */
		EXPECT_GT(k->out.cv.switches, k->in.cv.switches);
		EXPECT_FALSE(call_clean(k));
	}
	EXPECT_EQ(moved, 50);
	free(calls);
	cs_close(&cs);
}

TEST(try_creates_and_releases_in_any_state)
{
	struct ispot_counters c = { 0 }, keep = { 0 };
	size_t n, unpaired;
	struct call *calls;
	struct csess cs;
	int fd, id, i;

	spec_set(&c, 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	spec_set(&c, 1, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	c.flags = ISPOT_COUNTERS_TRY;

	/* NEW, twice: the same answers, and nothing kept. */
	fd = ispot_open_or_skip();
	for (i = 0; i < 2; i++) {
		c.spec[0].result = c.spec[1].result = 0;
		ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_COUNTERS, &c), 0);
		EXPECT_EQ(c.spec[0].result, 0);
		EXPECT_LE(c.spec[1].result, 0);
		EXPECT_EQ(c.flags, ISPOT_COUNTERS_TRY);
		TH_LOG("TRY %d: cpu-clock %d, cycles %d", i,
		       c.spec[0].result, c.spec[1].result);
	}
	/* Results are outputs: one left in the input is refused. */
	if (c.spec[1].result)
		EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_COUNTERS, &c), -EINVAL);
	c.spec[0].result = c.spec[1].result = 0;
	/* Still NEW: SETUP works, and the real thing after it. */
	EXPECT_EQ(ispot_setup(fd, getpid(), 1, NULL), 0);
	spec_set(&keep, 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_COUNTERS, &keep), 0);
	EXPECT_EQ(keep.spec[0].result, 0);
	/* TRY still works with counters kept. */
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_COUNTERS, &c), 0);
	EXPECT_EQ(c.spec[0].result, 0);
	close(fd);

	/* A session that only tried keeps one-slot records. */
	cs_start(&cs, quick_work, (void *)100L);
	c.spec[0].result = c.spec[1].result = 0;
	ASSERT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_COUNTERS, &c), 0);
	id = cs_probe(&cs, quick_fn);
	c.spec[0].result = c.spec[1].result = 0;
	ASSERT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_COUNTERS, &c), 0);
	ASSERT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_ENABLE, NULL), 0);
	/* And in ENABLED too. */
	c.spec[0].result = c.spec[1].result = 0;
	EXPECT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_COUNTERS, &c), 0);
	EXPECT_EQ(c.spec[0].result, 0);
	ispot_child_go(&cs.child);
	ASSERT_EQ(ispot_child_wait(&cs.child), 0);
	ASSERT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_DISABLE, NULL), 0);
	cs.n = ispot_drain(cs.fd, &cs.rings, &cs.slots, &cs.cap, 0);
	calls = cs_calls(&cs, id, 1, &n, &unpaired);
	EXPECT_EQ(n, 100);
	EXPECT_EQ(unpaired, 0);
	free(calls);
	/* The target has exited: only TRY is left. */
	keep.spec[0].result = 0;
	EXPECT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_COUNTERS, &keep), -EBADFD);
	c.spec[0].result = c.spec[1].result = 0;
	EXPECT_EQ(ispot_ioctl(cs.fd, ISPOT_IOC_COUNTERS, &c), 0);
	cs_close(&cs);
}

TEST(without_counters_records_keep_one_slot)
{
	size_t i, n, unpaired, heads = 0;
	struct call *calls;
	struct csess cs;
	int id;

	cs_start(&cs, quick_work, (void *)300L);
	id = cs_probe(&cs, quick_fn);
	cs_run(&cs);
	cs_expect_no_drops(&cs);
	calls = cs_calls(&cs, id, 1, &n, &unpaired);
	EXPECT_EQ(n, 300);
	EXPECT_EQ(unpaired, 0);
	/* Every slot but a stack's frames is a record of its own. */
	for (i = 0; i < cs.n; i += cs.slots[i].nslots, heads++)
		if (cs.slots[i].kind != ISPOT_REC_STACK)
			ASSERT_EQ(cs.slots[i].nslots, 1);
	EXPECT_GE(heads, 600);
	free(calls);
	cs_close(&cs);
}

/* Calls quick_fn until killed. */
static int forever_work(void *arg)
{
	int i = 0;

	(void)arg;
	for (;;)
		quick_fn(i++);
	return 0;
}

TEST(close_and_unload_while_counting)
{
	uint64_t rnd = 4242;
	size_t recorded = 0;
	struct ispot_child c;
	int i, status;

	ispot_require_module();
	ASSERT_EQ(ispot_child_start(&c, forever_work, NULL), 0);
	ispot_child_go(&c);
	for (i = 0; i < 50; i++) {
		struct ispot_counters ctr = { 0 };
		struct ispot_record *recs = NULL;
		struct ispot_setup s;
		struct ispot_rings r;
		size_t cap = 0, n, j;
		int fd = ispot_open();

		ASSERT_GE(fd, 0);
		ASSERT_EQ(ispot_setup(fd, c.pid, 2, &s), 0);
		ASSERT_EQ(ispot_map_rings(fd, &s, &r), 0);
		spec_set(&ctr, 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
		spec_set(&ctr, 1, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
		spec_set(&ctr, 2, PERF_TYPE_SOFTWARE,
			 PERF_COUNT_SW_PAGE_FAULTS);
		ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_COUNTERS, &ctr), 0);
		ASSERT_GT(ispot_add_probe_fn(fd, quick_fn, ISPOT_PROBE_BOTH,
					     0), 0);
		ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
		usleep(ispot_test_rand(&rnd) % 5000);
		if (!(i & 1)) {
			/* Some rounds read what came, while it goes on. */
			n = ispot_drain(fd, &r, &recs, &cap, 0);
			for (j = 0; j < n; j += recs[j].nslots)
				if (recs[j].kind == ISPOT_REC_ENTRY ||
				    recs[j].kind == ISPOT_REC_EXIT) {
					ASSERT_EQ(recs[j].nslots, 2);
					recorded++;
				}
			free(recs);
		}
		for (j = 0; j < (size_t)r.nr; j++)
			munmap(r.maps[j], r.size);
		free(r.maps);
		/* Closed while enabled and the target is calling. */
		close(fd);
		ASSERT_EQ(kill(c.pid, 0), 0);
	}
	/* Unloaded right after the last close, the target still calling. */
	{
		struct ispot_counters ctr = { 0 };
		int fd = ispot_open();

		ASSERT_GE(fd, 0);
		ASSERT_EQ(ispot_setup(fd, c.pid, 2, NULL), 0);
		spec_set(&ctr, 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
		ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_COUNTERS, &ctr), 0);
		ASSERT_GT(ispot_add_probe_fn(fd, quick_fn, ISPOT_PROBE_BOTH,
					     0), 0);
		ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
		usleep(2000);
		close(fd);
		ASSERT_EQ(system("rmmod ispot"), 0);
		usleep(20000);
		ASSERT_EQ(system("/ispot/selftests/kmod/load_ispot.sh"), 0);
	}
	TH_LOG("%zu records read while counting", recorded);
	EXPECT_GT(recorded, 0);
	/* The target never noticed: still alive, killed only by us. */
	ASSERT_EQ(kill(c.pid, SIGKILL), 0);
	ASSERT_EQ(waitpid(c.pid, &status, 0), c.pid);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST_HARNESS_MAIN
