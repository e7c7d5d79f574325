// SPDX-License-Identifier: GPL-2.0
/*
 * Perf event names, as --counters and --raw-event take them: every known
 * name maps to perf's own (type, config), lists and duplicates, the limit,
 * malformed lists and raw codes rejected with a message naming the bad
 * part, and the hardware/time classification the report relies on.
 */
#include <stdint.h>
#include <linux/ispot.h>
#include <linux/perf_event.h>

#include "ispot_test.h"
#include "cli/events.h"

#define ERRLEN	512

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
	bool hardware;
	bool time;
} expected[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true, false },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  true, false },
	{ "cache-references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES, true, false },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  true, false },
	/* perf's LLC-load-misses: LL | READ << 8 | MISS << 16. */
	{ "llc-load-misses", PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
	  (PERF_COUNT_HW_CACHE_RESULT_MISS << 16), true, false },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  true, false },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
	  true, false },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
	  false, true },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  false, false },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	  false, false },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	  false, false },
	{ "alignment-faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS, false, false },
	{ "emulation-faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS, false, false },
};

#define NR_EXPECTED	(sizeof(expected) / sizeof(expected[0]))

/* Parse @list into a fresh array; returns what events_parse() did. */
static int parse(const char *list, struct event_spec *out, size_t *n,
		 size_t max, char *err)
{
	memset(out, 0xa5, sizeof(*out) * ISPOT_MAX_COUNTERS);
	*n = 0;
	err[0] = '\0';
	return events_parse(list, out, n, max, err, ERRLEN);
}

static int parse_raw(const char *hex, struct event_spec *out, size_t *n,
		     char *err)
{
	*n = 0;
	err[0] = '\0';
	return events_parse_raw(hex, out, n, ISPOT_MAX_COUNTERS, err, ERRLEN);
}

TEST(known_names_map_to_perf_events)
{
	struct event_spec out[ISPOT_MAX_COUNTERS];
	char err[ERRLEN];
	size_t i, n;

	/* Literal values too, so a header mix-up would show. */
	EXPECT_EQ(PERF_TYPE_HARDWARE, 0);
	EXPECT_EQ(PERF_TYPE_SOFTWARE, 1);
	EXPECT_EQ(PERF_TYPE_HW_CACHE, 3);
	EXPECT_EQ(PERF_TYPE_RAW, 4);
	EXPECT_EQ(expected[4].config, 0x10002);	/* LL 2, READ 0, MISS 1 */
	for (i = 0; i < NR_EXPECTED; i++) {
		if (parse(expected[i].name, out, &n, ISPOT_MAX_COUNTERS, err))
			TH_LOG("%s: %s", expected[i].name, err);
		ASSERT_EQ(n, 1);
		EXPECT_STREQ(out[0].name, expected[i].name);
		EXPECT_EQ(out[0].type, expected[i].type);
		EXPECT_TRUE(out[0].config == expected[i].config);
		EXPECT_EQ(event_is_hardware(&out[0]), expected[i].hardware);
		EXPECT_EQ(event_is_time(&out[0]), expected[i].time);
		EXPECT_STREQ(err, "");
	}
}

/* A comma-separated list keeps its order; the array is appended to. */
TEST(lists_append_in_order)
{
	struct event_spec out[ISPOT_MAX_COUNTERS];
	char err[ERRLEN];
	size_t n;

	ASSERT_EQ(parse("cpu-clock,page-faults,cycles", out, &n,
			ISPOT_MAX_COUNTERS, err), 0);
	ASSERT_EQ(n, 3);
	EXPECT_STREQ(out[0].name, "cpu-clock");
	EXPECT_STREQ(out[1].name, "page-faults");
	EXPECT_STREQ(out[2].name, "cycles");
	EXPECT_EQ(out[0].type, PERF_TYPE_SOFTWARE);
	EXPECT_TRUE(out[0].config == PERF_COUNT_SW_CPU_CLOCK);
	EXPECT_EQ(out[1].type, PERF_TYPE_SOFTWARE);
	EXPECT_TRUE(out[1].config == PERF_COUNT_SW_PAGE_FAULTS);
	EXPECT_EQ(out[2].type, PERF_TYPE_HARDWARE);
	EXPECT_TRUE(out[2].config == PERF_COUNT_HW_CPU_CYCLES);

	/* A second --counters adds to the first. */
	ASSERT_EQ(events_parse("instructions,llc-load-misses", out, &n,
			       ISPOT_MAX_COUNTERS, err, ERRLEN), 0);
	ASSERT_EQ(n, 5);
	EXPECT_STREQ(out[0].name, "cpu-clock");
	EXPECT_STREQ(out[3].name, "instructions");
	EXPECT_STREQ(out[4].name, "llc-load-misses");
	EXPECT_EQ(out[4].type, PERF_TYPE_HW_CACHE);

	/* And --raw-event after them. */
	ASSERT_EQ(events_parse_raw("0x1cd", out, &n, ISPOT_MAX_COUNTERS, err,
				   ERRLEN), 0);
	ASSERT_EQ(n, 6);
	EXPECT_STREQ(out[5].name, "raw:0x1cd");
	EXPECT_STREQ(out[4].name, "llc-load-misses");
}

/* The same event asked twice is counted once, in any spelling. */
TEST(duplicates_counted_once)
{
	struct event_spec out[ISPOT_MAX_COUNTERS];
	char err[ERRLEN];
	size_t n;

	ASSERT_EQ(parse("cycles,cycles", out, &n, ISPOT_MAX_COUNTERS, err), 0);
	EXPECT_EQ(n, 1);
	ASSERT_EQ(parse("cycles,page-faults,cycles,page-faults,cycles", out,
			&n, ISPOT_MAX_COUNTERS, err), 0);
	ASSERT_EQ(n, 2);
	EXPECT_STREQ(out[0].name, "cycles");
	EXPECT_STREQ(out[1].name, "page-faults");
	/* Across calls, and for raw codes. */
	ASSERT_EQ(events_parse("page-faults", out, &n, ISPOT_MAX_COUNTERS, err,
			       ERRLEN), 0);
	EXPECT_EQ(n, 2);
	ASSERT_EQ(events_parse_raw("0x1cd", out, &n, ISPOT_MAX_COUNTERS, err,
				   ERRLEN), 0);
	ASSERT_EQ(events_parse_raw("0X1CD", out, &n, ISPOT_MAX_COUNTERS, err,
				   ERRLEN), 0);
	EXPECT_EQ(n, 3);
	/* A duplicate does not count against the limit. */
	ASSERT_EQ(parse("cycles,cycles,cycles", out, &n, 1, err), 0);
	EXPECT_EQ(n, 1);
	/* Same config, other type: two events (cycles vs cpu-clock, 0/0). */
	ASSERT_EQ(parse("cycles,cpu-clock", out, &n, ISPOT_MAX_COUNTERS, err),
		  0);
	EXPECT_EQ(n, 2);
}

/* perf's spellings work whatever their case (LLC-load-misses). */
TEST(names_match_any_case)
{
	struct event_spec out[ISPOT_MAX_COUNTERS];
	char err[ERRLEN];
	size_t n;

	ASSERT_EQ(parse("LLC-load-misses,Cycles", out, &n, ISPOT_MAX_COUNTERS,
			err), 0);
	ASSERT_EQ(n, 2);
	EXPECT_EQ(out[0].type, PERF_TYPE_HW_CACHE);
	EXPECT_EQ(out[0].config, 0x10002);
	EXPECT_STREQ(out[0].name, "llc-load-misses");
	EXPECT_EQ(out[1].type, PERF_TYPE_HARDWARE);
	EXPECT_EQ(out[1].config, PERF_COUNT_HW_CPU_CYCLES);
}

/* Unknown names fail and say which one, and what is known. */
TEST(unknown_name_rejected)
{
	static const char *const bad[] = {
		"bogus", "cycles,bogus", "Cyclez", "cycle", "cycles-x",
		"cycles ", " cycles", "task-clock", "context-switches",
	};
	static const char *const token[] = {
		"'bogus'", "'bogus'", "'Cyclez'", "'cycle'", "'cycles-x'",
		"'cycles '", "' cycles'", "'task-clock'", "'context-switches'",
	};
	struct event_spec out[ISPOT_MAX_COUNTERS];
	char err[ERRLEN];
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(parse(bad[i], out, &n, ISPOT_MAX_COUNTERS, err), -1);
		if (!strstr(err, token[i]))
			TH_LOG("%s: message '%s' lacks %s", bad[i], err,
			       token[i]);
		EXPECT_TRUE(strstr(err, token[i]) != NULL);
		EXPECT_TRUE(strstr(err, "unknown counter") != NULL);
		/* The known names, so the user can pick one. */
		EXPECT_TRUE(strstr(err, "cpu-clock") != NULL);
		EXPECT_TRUE(strstr(err, "--raw-event") != NULL);
	}
	/* Only the good part before the bad token was taken. */
	ASSERT_EQ(parse("cycles,bogus,instructions", out, &n,
			ISPOT_MAX_COUNTERS, err), -1);
	EXPECT_EQ(n, 1);
	EXPECT_TRUE(strstr(err, "'bogus'") != NULL);
	EXPECT_TRUE(strstr(err, "instructions'") == NULL);
}

TEST(empty_lists_and_stray_commas_rejected)
{
	struct event_spec out[ISPOT_MAX_COUNTERS];
	char err[ERRLEN];
	size_t n;

	EXPECT_EQ(parse("", out, &n, ISPOT_MAX_COUNTERS, err), -1);
	EXPECT_EQ(n, 0);
	EXPECT_TRUE(strstr(err, "--counters needs a list") != NULL);

	EXPECT_EQ(parse("cycles,", out, &n, ISPOT_MAX_COUNTERS, err), -1);
	EXPECT_TRUE(strstr(err, "ends with a comma") != NULL);

	EXPECT_EQ(parse(",", out, &n, ISPOT_MAX_COUNTERS, err), -1);
	EXPECT_NE(err[0], '\0');
	EXPECT_EQ(parse(",cycles", out, &n, ISPOT_MAX_COUNTERS, err), -1);
	EXPECT_TRUE(strstr(err, "''") != NULL);		/* an empty name */
	EXPECT_EQ(parse("cycles,,instructions", out, &n, ISPOT_MAX_COUNTERS,
			err), -1);
	EXPECT_TRUE(strstr(err, "''") != NULL);
}

/* At most @max distinct events, whatever mix of names and raw codes. */
TEST(limit_of_counters)
{
	struct event_spec out[ISPOT_MAX_COUNTERS];
	char err[ERRLEN];
	size_t n;

	ASSERT_EQ(ISPOT_MAX_COUNTERS, 6);
	ASSERT_EQ(parse("cycles,instructions,cache-references,cache-misses,"
			"llc-load-misses,branches", out, &n,
			ISPOT_MAX_COUNTERS, err), 0);
	EXPECT_EQ(n, 6);
	/* A duplicate still fits: nothing is added. */
	EXPECT_EQ(events_parse("cycles", out, &n, ISPOT_MAX_COUNTERS, err,
			       ERRLEN), 0);
	EXPECT_EQ(n, 6);
	err[0] = '\0';
	EXPECT_EQ(events_parse("cpu-clock", out, &n, ISPOT_MAX_COUNTERS, err,
			       ERRLEN), -1);
	EXPECT_EQ(n, 6);
	EXPECT_TRUE(strstr(err, "at most 6 counters") != NULL);
	err[0] = '\0';
	EXPECT_EQ(events_parse_raw("0x1cd", out, &n, ISPOT_MAX_COUNTERS, err,
				   ERRLEN), -1);
	EXPECT_EQ(n, 6);
	EXPECT_TRUE(strstr(err, "at most 6 counters") != NULL);

	/* Seven in one list. */
	EXPECT_EQ(parse("cycles,instructions,cache-references,cache-misses,"
			"llc-load-misses,branches,branch-misses", out, &n,
			ISPOT_MAX_COUNTERS, err), -1);
	EXPECT_EQ(n, 6);
	EXPECT_TRUE(strstr(err, "at most 6") != NULL);

	/* A smaller limit is the caller's. */
	EXPECT_EQ(parse("cycles,instructions", out, &n, 1, err), -1);
	EXPECT_EQ(n, 1);
	EXPECT_TRUE(strstr(err, "at most 1 counters") != NULL);
}

TEST(raw_events)
{
	static const struct {
		const char *hex;
		uint64_t config;
		const char *name;
	} good[] = {
		{ "0x1cd", 0x1cd, "raw:0x1cd" },
		{ "0X1CD", 0x1cd, "raw:0x1cd" },
		{ "0x0", 0, "raw:0x0" },
		{ "0x00c0", 0xc0, "raw:0xc0" },
		{ "0x530152", 0x530152, "raw:0x530152" },
		{ "0xffffffffffffffff", UINT64_MAX,
		  "raw:0xffffffffffffffff" },
	};
	struct event_spec out[ISPOT_MAX_COUNTERS];
	char err[ERRLEN];
	size_t i, n;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (parse_raw(good[i].hex, out, &n, err))
			TH_LOG("%s: %s", good[i].hex, err);
		ASSERT_EQ(n, 1);
		EXPECT_EQ(out[0].type, PERF_TYPE_RAW);
		EXPECT_TRUE(out[0].config == good[i].config);
		EXPECT_STREQ(out[0].name, good[i].name);
		EXPECT_TRUE(event_is_hardware(&out[0]));
		EXPECT_FALSE(event_is_time(&out[0]));
	}
}

TEST(raw_events_malformed)
{
	static const char *const bad[] = {
		"1cd", "", "0x", "0X", "0xzz", "0x1 ", "0x1g", "x1cd",
		"0x-1", "0x+1", "0x 1", "0x0x1", "-0x1", " 0x1",
		"0x10000000000000000",	/* 65 bits */
		"rcd", "r1cd",
	};
	struct event_spec out[ISPOT_MAX_COUNTERS];
	char err[ERRLEN], want[64];
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse_raw(bad[i], out, &n, err);

		if (rc != -1)
			TH_LOG("'%s' accepted as 0x%llx", bad[i],
			       n ? (unsigned long long)out[0].config : 0ULL);
		EXPECT_EQ(rc, -1);
		EXPECT_EQ(n, 0);
		snprintf(want, sizeof(want), "'%s'", bad[i]);
		if (!strstr(err, want))
			TH_LOG("message '%s' lacks %s", err, want);
		EXPECT_TRUE(strstr(err, want) != NULL);
		EXPECT_TRUE(strstr(err, "--raw-event") != NULL);
	}
}

TEST(hardware_and_time_classes)
{
	struct event_spec e;

	memset(&e, 0, sizeof(e));
	e.type = PERF_TYPE_SOFTWARE;
	e.config = PERF_COUNT_SW_PAGE_FAULTS;
	EXPECT_FALSE(event_is_hardware(&e));
	EXPECT_FALSE(event_is_time(&e));
	e.config = PERF_COUNT_SW_CPU_CLOCK;
	EXPECT_FALSE(event_is_hardware(&e));
	EXPECT_TRUE(event_is_time(&e));
	e.type = PERF_TYPE_HARDWARE;	/* cycles has config 0 as cpu-clock */
	e.config = PERF_COUNT_HW_CPU_CYCLES;
	EXPECT_TRUE(event_is_hardware(&e));
	EXPECT_FALSE(event_is_time(&e));
	e.type = PERF_TYPE_HW_CACHE;
	EXPECT_TRUE(event_is_hardware(&e));
	EXPECT_FALSE(event_is_time(&e));
	e.type = PERF_TYPE_RAW;
	EXPECT_TRUE(event_is_hardware(&e));
	EXPECT_FALSE(event_is_time(&e));
}

/* events_known() lists exactly the names that parse, as a valid list. */
TEST(known_list_is_complete)
{
	struct event_spec out[ISPOT_MAX_COUNTERS];
	const char *known = events_known();
	char copy[512], err[ERRLEN], *tok, *save = NULL;
	size_t i, n, count = 0;

	ASSERT_LT(strlen(known), sizeof(copy));
	strcpy(copy, known);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		bool listed = false;

		if (parse(tok, out, &n, ISPOT_MAX_COUNTERS, err))
			TH_LOG("listed '%s' does not parse: %s", tok, err);
		EXPECT_EQ(n, 1);
		for (i = 0; i < NR_EXPECTED; i++)
			listed |= !strcmp(tok, expected[i].name);
		EXPECT_TRUE(listed);
		count++;
	}
	EXPECT_EQ(count, NR_EXPECTED);
	/* Stable across calls (it is cached). */
	EXPECT_TRUE(events_known() == known);
	EXPECT_STREQ(events_known(), known);
}

/* What `ispotctl status` probes are all known names. */
TEST(status_probe_names_parse)
{
	struct event_spec out[ISPOT_MAX_COUNTERS];
	char err[ERRLEN];
	size_t i, n, hw = 0, sw = 0;

	for (i = 0; events_status_probe[i]; i++) {
		if (parse(events_status_probe[i], out, &n, ISPOT_MAX_COUNTERS,
			  err))
			TH_LOG("%s: %s", events_status_probe[i], err);
		ASSERT_EQ(n, 1);
		if (event_is_hardware(&out[0]))
			hw++;
		else
			sw++;
	}
	EXPECT_LE(i, ISPOT_MAX_COUNTERS);
	EXPECT_GT(hw, 0);
	EXPECT_GT(sw, 0);
}

TEST_HARNESS_MAIN
