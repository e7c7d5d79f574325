// SPDX-License-Identifier: GPL-2.0
/*
 * The device side of a live session: the session set up on the target,
 * its per-CPU rings mapped and drained as the session's record source
 * (recording/source.h), the perf counters, enabling the probes, and what
 * the module says of drops when it stops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/trace_internal.h"
#include "util/errors.h"

/* The kernel's internal ENOTSUPP, which uprobe_register() returns. */
#define ENOTSUPP_KERNEL		524

static int live_release(void *ctx, uint32_t cpu, uint64_t tail)
{
	struct trace *t = ctx;
	struct ispot_ring_consume c = { .cpu = cpu, .tail = tail };

	return ioctl(t->live.dev.fd, ISPOT_IOC_RING_CONSUME, &c) ? -errno : 0;
}

static int live_solo(void *ctx, struct ispot_solo *arg)
{
	struct trace *t = ctx;

	return ioctl(t->live.dev.fd, ISPOT_IOC_SOLO, arg);
}

/* A drain_record_fn's call, passed on as the source's input. */
struct live_reader {
	session_input_fn fn;
	void *ctx;
};

static void live_record(void *ctx, const struct ispot_record *rec)
{
	const struct live_reader *lr = ctx;
	const struct session_input in = { .type = INPUT_RECORD, .rec = rec };

	lr->fn(lr->ctx, &in);
}

/* The record source of a live session: one drain round, to @horizon. */
static long live_read(struct record_source *src, uint64_t horizon,
		      session_input_fn fn, void *ctx)
{
	/* src is the first member of the trace's live part. */
	struct trace_live *live = (struct trace_live *)src;
	struct live_reader lr = { fn, ctx };
	long n = drain_round(live->drain, horizon, live_record, &lr);

	if (n < 0) {
		ispot_error("the module refused to release ring records "
			    "(%s): check dmesg", strerror((int)-n));
		return -1;
	}
	return n;
}

static void live_setup_refused(const struct trace *t, pid_t pid)
{
	/* Ended before it was traced: routine for ispotd (gone_quiet). */
	if (errno == ESRCH && !t->opts->gone_quiet)
		ispot_error("no process with pid %d: check it with ps, it may "
			    "have exited", (int)pid);
	else if (errno == ESRCH)
		return;
	else if (errno == EPERM || errno == EACCES)
		ispot_error("no permission to trace pid %d: run as root, or "
			    "with CAP_PERFMON as its user (and it must be "
			    "dumpable)", (int)pid);
	else if (errno == EXDEV)
		ispot_error("cannot check access to pid %d: /proc is not this "
			    "pid namespace's procfs; mount it (mount -t proc "
			    "proc /proc)", (int)pid);
	else if (errno == ENOMEM || errno == E2BIG || errno == ENOSPC)
		ispot_error("the module cannot give %s rings of %llu bytes: "
			    "use a smaller --ring-size or raise "
			    "max_buffer_mib", "per-CPU",
			    (unsigned long long)t->opts->ring_bytes);
	else
		ispot_error("the module refused the session (%s): check "
			    "dmesg", strerror(errno));
}

static int live_map_rings(struct trace *t, const struct ispot_setup *s)
{
	struct trace_live *live = &t->live;
	char err[256];

	t->sum.nr_rings = s->nr_rings;
	if (ispot_rings_map(live->dev.fd, s, &live->rings, err, sizeof(err))) {
		ispot_error("%s", err);
		return -1;
	}
	live->drain = drain_new(live->rings.base, s->nr_rings, live_release,
				t);
	if (!live->drain) {
		ispot_error("out of memory setting up the drain");
		return -1;
	}
	live->src.read = live_read;
	return 0;
}

int trace_live_setup(struct trace *t, pid_t pid)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ispot_setup s = {
		.pid = pid,
		.ring_pages = t->opts->ring_bytes / page ?
			      t->opts->ring_bytes / page : 1,
		.stack_period = t->opts->stack_period,
	};

	/* ABI 1.2 adds thread and wait records; older modules lack them. */
	if (t->live.dev.version.abi_minor >= 2) {
		s.flags = ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS;
		t->sum.tasks = t->sum.waits = true;
	}
	/* ABI 1.9: where a full ring dropped records, so no pair spans it. */
	if (t->live.dev.version.abi_minor >= 9)
		s.flags |= ISPOT_SETUP_LOST;
	if (ioctl(t->live.dev.fd, ISPOT_IOC_SETUP, &s)) {
		live_setup_refused(t, pid);
		return -1;
	}
	return live_map_rings(t, &s);
}

/*
 * The first try tells which events this machine has (into @tried); only
 * those are then counted (into @c), so an event without a PMU costs no
 * slot in any record.  The report says which were unsupported.
 */
static void live_counter_slots(struct trace *t, const int *tried,
			       struct ispot_counters *c)
{
	const struct trace_opts *o = t->opts;
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < o->nr_counters; i++) {
		struct report_counter *rc = &t->sum.counters[i];
		struct ispot_counter_spec *sp = &c->spec[c->nr];

		rc->name = o->counters[i].name;
		rc->hardware = event_is_hardware(&o->counters[i]);
		rc->time = event_is_time(&o->counters[i]);
		rc->slot = -1;
		if (tried[i])
			continue;
		rc->slot = c->nr++;
		sp->type = o->counters[i].type;
		sp->config = o->counters[i].config;
	}
}

int trace_live_counters(struct trace *t)
{
	const struct trace_opts *o = t->opts;
	struct ispot_counters c = {
		.nr = o->nr_counters, .flags = ISPOT_COUNTERS_TRY,
	};
	int tried[ISPOT_MAX_COUNTERS];
	size_t i;

	if (!o->nr_counters)
		return 0;
	if (t->live.dev.version.abi_minor < 3) {
		ispot_error("ispot.ko speaks ABI %u.%u, and perf counters need "
			    "1.3: load the module built with this ispotctl, "
			    "or drop --counters/--raw-event",
			    t->live.dev.version.abi_major,
			    t->live.dev.version.abi_minor);
		return -1;
	}
	for (i = 0; i < o->nr_counters; i++) {
		c.spec[i].type = o->counters[i].type;
		c.spec[i].config = o->counters[i].config;
	}
	if (ioctl(t->live.dev.fd, ISPOT_IOC_COUNTERS, &c))
		goto refused;
	for (i = 0; i < o->nr_counters; i++)
		tried[i] = c.spec[i].result;
	live_counter_slots(t, tried, &c);
	if (!c.nr)
		return 0;
	if (ioctl(t->live.dev.fd, ISPOT_IOC_COUNTERS, &c))
		goto refused;
	for (i = 0; i < o->nr_counters; i++) {
		struct report_counter *rc = &t->sum.counters[i];

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

int trace_live_enable(struct trace *t)
{
	if (ioctl(t->live.dev.fd, ISPOT_IOC_ENABLE)) {
		if (errno == EBADFD || errno == ESRCH)
			trace_say_gone(t, t->sum.pid);
		else if (errno == ENOTSUPP_KERNEL)
			ispot_error("a probed function starts with an "
				    "instruction uprobes cannot step over "
				    "(e.g. a LOCK prefix): probe its callers");
		else
			ispot_error("cannot enable the probes (%s): check "
				    "dmesg", strerror(errno));
		return -1;
	}
	t->live.enabled = true;
	/* Solo blocks (ABI 1.6) where asked; an older module has none. */
	if (t->opts->solo_share > 0 && t->live.dev.version.abi_minor >= 6) {
		t->sum.solo_share = t->opts->solo_share;
		solo_sched_init(&t->live.solo, t->opts->solo_share,
				trace_now(), trace_now() ^ (uint64_t)getpid(),
				live_solo, t);
		solo_sched_cap(&t->live.solo, t->opts->solo_cover);
		if (t->opts->solo_burst)
			solo_sched_burst(&t->live.solo);
	}
	return 0;
}

void trace_live_disable(struct trace *t)
{
	if (t->live.enabled)
		ioctl(t->live.dev.fd, ISPOT_IOC_DISABLE);
	t->live.enabled = false;
}

void trace_live_stats(struct trace *t)
{
	uint32_t nr = t->sum.nr_rings, i;
	struct ispot_ring_stats *rs = calloc(nr, sizeof(*rs));
	struct ispot_stats st = {
		.rings = (uintptr_t)rs,
		.nr_rings = nr,
	};
	uint64_t dropped = 0;

	if (rs && !ioctl(t->live.dev.fd, ISPOT_IOC_STATS, &st)) {
		for (i = 0; i < st.nr_rings && i < nr; i++)
			dropped += rs[i].dropped;
		t->sum.stop_reason = st.stop_reason;
	}
	free(rs);
	t->sum.dropped = dropped;
}

void trace_live_free(struct trace *t)
{
	struct trace_live *live = &t->live;

	trace_live_disable(t);
	ispot_rings_unmap(&live->rings);
	drain_free(live->drain);
	task_set_free(&live->alive);
	task_set_free(&live->scan);
	free(live->exits);
	ispot_device_close(&live->dev);
}
