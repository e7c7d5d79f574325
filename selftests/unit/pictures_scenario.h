/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A synthetic trace for the pictures and the HTML report: ring records fed
 * through the real pipeline, the report made by the real builder.  Shared
 * by selftests/unit/report/test_pictures.c and selftests/host/pictures_gen.c
 * (which writes the files selftests/host/pictures_test.sh renders).
 *
 *  - acquire, keyed by its lock (arg0): three locks, two threads, most
 *    calls near their lock's floor and some far above (contention);
 *  - a C++ method whose name holds '<', '>', ':', '&' and blanks;
 *  - a function named like a script, quotes and an ampersand included;
 *  - one_call: called once;
 *  - call stacks sampled for acquire and the C++ method, one frame named
 *    like markup, and a wall-clock profile as --auto would give it, on
 *    and off CPU, for the flame graphs.
 */
#ifndef ISPOT_TEST_PICTURES_SCENARIO_H
#define ISPOT_TEST_PICTURES_SCENARIO_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pipeline.h"
#include "analysis/sci.h"
#include "analysis/stacks.h"
#include "report/pictures.h"
#include "report/report.h"
#include "unit/pipeline_feed.h"

enum { PS_ACQUIRE, PS_CXX, PS_HOSTILE, PS_ONE_CALL, PS_NR_FUNCS };

static const char *const ps_names[PS_NR_FUNCS] = {
	[PS_ACQUIRE] = "acquire",
	[PS_CXX] = "ns::Map<int, std::string>::get(int const&) const",
	[PS_HOSTILE] = "<script>alert(\"x&y\")</script>'",
	[PS_ONE_CALL] = "one_call",
};

#define PS_TGID		4000
#define PS_LOCKS	3

/* The stacks' return addresses and their names; one is hostile. */
static const struct {
	uint64_t addr;
	const char *name;
} ps_frames[] = {
	{ 0x401000, "main" },
	{ 0x401100, "worker" },
	{ 0x401200, "ns::Pool<T>::run()" },
	{ 0x401300, "</svg><script>x()</script>&\"'" },
};

/* --auto's profile as --wall-folded writes it, hostile frame included. */
static const char ps_wall_folded[] =
	"main;worker;acquire;[on cpu] 42000\n"
	"main;worker;ns::Pool<T>::run();pthread_cond_wait;"
	"[off cpu: futex] 120000\n"
	"main;</svg><script>x()</script>&\"';read;[off cpu: io] 30000\n"
	"main;worker;[off cpu: runq] 5000\n"
	"main;poll;[off cpu: sleep] 60000\n";

struct pictures_scenario {
	struct pipeline *pipe;
	struct stacks *stacks;
	struct sci_report *sci;
	struct report_source_func funcs[PS_NR_FUNCS];
	struct key_rule rules[PS_NR_FUNCS];
	struct report_source src;	/* the report points into it */
	struct report_build build;
	struct report rep;
	struct picture_source pics;	/* the engine, the samples */
};

/* xorshift64*, as the unit tests' harness: the same trace every run. */
static inline uint64_t ps_rand(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

/* One call of @probe in @tid from *@ts, lasting @d ns. */
static inline void ps_call(struct pipeline *p, uint32_t tid, uint32_t probe,
			   uint64_t arg0, uint64_t *ts, uint64_t d)
{
	uint64_t args[3] = { arg0, 0, 0 };
	uint64_t sp = 0x7ffd0000ull + tid * 0x10000ull;

	pipeline_feed_record(p, *ts, ISPOT_REC_ENTRY, PS_TGID, tid, probe, sp,
			     args);
	pipeline_feed_record(p, *ts + d, ISPOT_REC_EXIT, PS_TGID, tid, probe,
			     sp + 8, NULL);
	*ts += d + 500;
}

static inline int ps_frame_name(void *ctx, uint64_t addr, bool offset,
				char *buf, size_t len)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < sizeof(ps_frames) / sizeof(ps_frames[0]); i++)
		if (ps_frames[i].addr == addr)
			return snprintf(buf, len, "%s%s", ps_frames[i].name,
					offset ? "+0x4" : "");
	return -1;
}

static inline int ps_wall_fold(FILE *f, const void *ctx)
{
	(void)ctx;
	return fputs(ps_wall_folded, f) < 0 ? -EIO : 0;
}

/* acquire: 3 stacks through Pool::run, 1 through the hostile frame. */
static inline int ps_stacks(struct pictures_scenario *s)
{
	const uint64_t run[] = { 0x401200, 0x401100, 0x401000 };
	const uint64_t odd[] = { 0x401300, 0x401000 };
	const uint64_t cxx[] = { 0x401100, 0x401000 };
	int i, ret = 0;

	s->stacks = stacks_new();
	if (!s->stacks)
		return -1;
	for (i = 0; i < 3; i++)
		ret |= stacks_add(s->stacks, PS_ACQUIRE, run, 3) |
		       stacks_add(s->stacks, PS_CXX, cxx, 2);
	ret |= stacks_add(s->stacks, PS_ACQUIRE, odd, 2);
	return ret ? -1 : 0;
}

/* 0 on success; the caller frees with pictures_scenario_free(). */
static inline int pictures_scenario_build(struct pictures_scenario *s)
{
	uint64_t ts[2] = { 1000, 1000 }, rng = 42;
	uint32_t f, t, i;

	memset(s, 0, sizeof(*s));
	s->pipe = pipeline_new();
	if (!s->pipe || pipeline_enable_durations(s->pipe))
		return -1;
	for (f = 0; f < PS_NR_FUNCS; f++) {
		s->rules[f].kind = f == PS_ACQUIRE ? KEY_ARG : KEY_NONE;
		if (pipeline_add_probe(s->pipe, f + 1, f, &s->rules[f]))
			return -1;
		s->funcs[f].name = ps_names[f];
		s->funcs[f].object = "/usr/bin/app";
		s->funcs[f].key_desc = f == PS_ACQUIRE ? "arg0" : "";
		s->funcs[f].rule = &s->rules[f];
	}
	for (t = 0; t < 2; t++) {
		uint32_t tid = PS_TGID + t;

		pipeline_thread_seen(s->pipe, tid, 500);
		for (i = 0; i < 600; i++) {
			uint64_t lock = i % PS_LOCKS, slow;

			slow = ps_rand(&rng) % 8 == 0 ?
			       ps_rand(&rng) % 400000 : 0;
			ps_call(s->pipe, tid, 1 + PS_ACQUIRE, 0x1000 + lock *
				0x40, &ts[t], 2000 * (lock + 1) +
				ps_rand(&rng) % 300 + slow);
			if (i % 3 == 0)
				ps_call(s->pipe, tid, 1 + PS_CXX, 0, &ts[t],
					50000 + ps_rand(&rng) % 90000);
			if (i % 10 == 0)
				ps_call(s->pipe, tid, 1 + PS_HOSTILE, 0,
					&ts[t], 800 + ps_rand(&rng) %
					5000);
		}
	}
	ps_call(s->pipe, PS_TGID, 1 + PS_ONE_CALL, 0, &ts[0], 12345);
	pipeline_finish(s->pipe, (ts[0] > ts[1] ? ts[0] : ts[1]) + 1000);
	s->sci = sci_report(s->pipe->sci, 0);
	if (!s->sci)
		return -1;
	s->src.funcs = s->funcs;
	s->src.nr_funcs = PS_NR_FUNCS;
	s->rep.sci = s->sci;
	if (report_build(&s->build, &s->src, &s->rep))
		return -1;
	s->rep.pid = PS_TGID;
	s->rep.command = "app --flag <&>";
	s->rep.duration_ns = ts[0];
	s->rep.recorded = 2 * sci_nr_events(s->pipe->sci);
	s->pics.sci = s->pipe->sci;
	s->pics.durations = s->pipe->durations;
	if (ps_stacks(s))
		return -1;
	s->rep.stacks = s->stacks;
	s->rep.frame_name = ps_frame_name;
	s->pics.wall_folded = ps_wall_fold;
	return 0;
}

static inline void pictures_scenario_free(struct pictures_scenario *s)
{
	report_build_free(&s->build);
	sci_report_free(s->sci);
	pipeline_free(s->pipe);
	stacks_free(s->stacks);
}

#endif /* ISPOT_TEST_PICTURES_SCENARIO_H */
