// SPDX-License-Identifier: GPL-2.0
/*
 * The off-CPU half of the wall-clock profile (analysis/wallprof.c): the
 * kind of each off-CPU period (futex, io, runq, sleep), the measured time
 * per kind, each sampled stack's share of its thread's time of its kind
 * (weight times its own period, over its thread's sampled total), the
 * stack's frames and words as the ABI lays them out, a stack that is not
 * its period's, and malformed records.  Expected values are worked out in
 * the comments.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/wallprof.h"

#define MS	1000000ull

/* A record and room for the most slots an OFF_STACK takes. */
struct rec_buf {
	struct ispot_record slot[1 + ISPOT_STACK_MAX_FRAMES / 8 +
				 ISPOT_OFFCPU_MAX_WORDS / 8];
};

static void put(struct wallprof *wp, uint8_t kind, uint32_t tid, uint64_t ts,
		uint64_t d0, uint64_t d1)
{
	struct ispot_record r = {
		.ts_ns = ts, .tid = tid, .tgid = 1, .kind = kind, .nslots = 1,
		.data = { d0, d1, 0 },
	};

	wallprof_record(wp, &r);
}

/* An OFF_STACK of @tid at @ts: @nf frames 0x1000+i, @nw words 0x2000+i. */
static void stack(struct wallprof *wp, uint32_t tid, uint64_t ts,
		  uint64_t weight, uint32_t nf, uint32_t nw)
{
	struct rec_buf b;
	uint64_t *payload = (uint64_t *)&b.slot[1];
	uint32_t i, fs = (nf + 7) / 8;

	memset(&b, 0, sizeof(b));
	b.slot[0].ts_ns = ts;
	b.slot[0].tid = tid;
	b.slot[0].kind = ISPOT_REC_OFF_STACK;
	b.slot[0].nslots = 1 + fs + nw / 8;
	b.slot[0].ip = 0x7000 + tid;
	b.slot[0].sp = 0x7fff0000;
	b.slot[0].data[0] = nf | (uint64_t)nw << 16;
	b.slot[0].data[1] = weight;
	for (i = 0; i < nf; i++)
		payload[i] = 0x1000 + i;
	for (i = 0; i < nw; i++)
		payload[fs * 8 + i] = 0x2000 + i;
	wallprof_record(wp, &b.slot[0]);
}

/* One off-CPU period of @tid: @ts to @ts + @d, sampled at @weight (0: no). */
static void period(struct wallprof *wp, uint32_t tid, uint64_t ts, uint64_t d,
		   uint64_t runnable, uint64_t state, bool futex,
		   uint64_t weight)
{
	if (futex)
		put(wp, ISPOT_REC_FUTEX_ENTER, tid, ts - 1, 0, 0);
	if (weight)
		stack(wp, tid, ts, weight, 3, 16);
	put(wp, ISPOT_REC_SWITCH_OUT, tid, ts, runnable, state);
	put(wp, ISPOT_REC_SWITCH_IN, tid, ts + d, 0, 0);
	if (futex)
		put(wp, ISPOT_REC_FUTEX_EXIT, tid, ts + d + 1, 0, 0);
}

static const struct wallprof_sample *sample_of(const struct wallprof *wp,
					       uint32_t tid, size_t nth)
{
	size_t i;

	for (i = 0; i < wp->nr_samples; i++)
		if (wp->samples[i].tid == tid && !nth--)
			return &wp->samples[i];
	return NULL;
}

/*
 * Thread 1: ten 1 ms futex waits, two of them sampled at weight 5: each
 * stands for 5 x 1 of the 2 x 5 x 1 sampled, so half of the 10 ms each.
 * Thread 2: three 2 ms preemptions, one sampled (weight 3): all 6 ms.
 * Thread 3: a 4 ms uninterruptible sleep, sampled at weight 1: 4 ms io.
 * Thread 4: an 8 ms interruptible sleep, not sampled: 8 ms of sleep.
 */
TEST(kinds_and_shares)
{
	const struct wallprof_sample *s;
	struct wallprof wp;
	uint64_t t = 1000 * MS;
	int i;

	wallprof_init(&wp);
	for (i = 0; i < 10; i++, t += 2 * MS)
		period(&wp, 1, t, MS, 0, 1, true, i == 2 || i == 7 ? 5 : 0);
	for (i = 0; i < 3; i++, t += 3 * MS)
		period(&wp, 2, t, 2 * MS, 1, 0, false, i == 1 ? 3 : 0);
	period(&wp, 3, t, 4 * MS, 0, 2, false, 1);
	period(&wp, 4, t, 8 * MS, 0, 1, false, 0);
	wallprof_finish(&wp);

	EXPECT_EQ(wp.off_ns[WALL_FUTEX], 10 * MS);
	EXPECT_EQ(wp.off_ns[WALL_RUNQ], 6 * MS);
	EXPECT_EQ(wp.off_ns[WALL_IO], 4 * MS);
	EXPECT_EQ(wp.off_ns[WALL_SLEEP], 8 * MS);
	EXPECT_EQ(wp.periods, 15);
	ASSERT_EQ(wp.nr_samples, 4);
	for (i = 0; i < 2; i++) {
		s = sample_of(&wp, 1, i);
		ASSERT_TRUE(s);
		EXPECT_EQ(s->kind, WALL_FUTEX);
		EXPECT_EQ(s->weight, 5);
		EXPECT_EQ(s->period_ns, MS);
		EXPECT_EQ(s->off_ns, 5 * MS);
	}
	s = sample_of(&wp, 2, 0);
	ASSERT_TRUE(s);
	EXPECT_EQ(s->kind, WALL_RUNQ);
	EXPECT_EQ(s->off_ns, 6 * MS);
	s = sample_of(&wp, 3, 0);
	ASSERT_TRUE(s);
	EXPECT_EQ(s->kind, WALL_IO);
	EXPECT_EQ(s->off_ns, 4 * MS);
	wallprof_free(&wp);
}

/* Frames and words land where the ABI puts them, with ip and sp. */
TEST(frames_and_words_as_laid_out)
{
	const struct wallprof_sample *s;
	struct wallprof wp;
	uint32_t i;

	wallprof_init(&wp);
	stack(&wp, 9, 100, 1, 11, 24);
	put(&wp, ISPOT_REC_SWITCH_OUT, 9, 100, 0, 1);
	put(&wp, ISPOT_REC_SWITCH_IN, 9, 200, 0, 0);
	wallprof_finish(&wp);
	s = sample_of(&wp, 9, 0);
	ASSERT_TRUE(s);
	EXPECT_EQ(s->nframes, 11);
	EXPECT_EQ(s->nwords, 24);
	for (i = 0; i < 11; i++)
		EXPECT_EQ(s->frames[i], 0x1000 + i);
	for (i = 0; i < 24; i++)
		EXPECT_EQ(s->words[i], 0x2000 + i);
	EXPECT_EQ(s->ip, 0x7009);
	EXPECT_EQ(s->sp, 0x7fff0000);
	EXPECT_EQ(s->off_ns, 100);
	wallprof_free(&wp);
}

/*
 * A stack whose SWITCH_OUT does not follow at its moment is no period's
 * (its switch was lost): it gets no time, and the period that follows
 * still counts.  Records whose counts disagree with their slots are
 * refused.
 */
TEST(stray_and_malformed_stacks)
{
	struct rec_buf b;
	struct wallprof wp;

	wallprof_init(&wp);
	stack(&wp, 5, 100, 1, 3, 8);
	put(&wp, ISPOT_REC_SWITCH_OUT, 5, 150, 0, 1);
	put(&wp, ISPOT_REC_SWITCH_IN, 5, 250, 0, 0);
	memset(&b, 0, sizeof(b));
	b.slot[0].kind = ISPOT_REC_OFF_STACK;
	b.slot[0].tid = 6;
	b.slot[0].nslots = 2;
	b.slot[0].data[0] = 3 | 8ull << 16;	/* needs 3 slots */
	b.slot[0].data[1] = 1;
	wallprof_record(&wp, &b.slot[0]);
	b.slot[0].nslots = 3;
	b.slot[0].data[0] = 3 | 7ull << 16;	/* words in part of a slot */
	wallprof_record(&wp, &b.slot[0]);
	b.slot[0].data[0] = 3 | 8ull << 16;
	b.slot[0].data[1] = 0;			/* no weight */
	wallprof_record(&wp, &b.slot[0]);
	wallprof_finish(&wp);
	EXPECT_EQ(wp.malformed, 3);
	ASSERT_EQ(wp.nr_samples, 1);
	EXPECT_EQ(wp.samples[0].off_ns, 0);
	EXPECT_EQ(wp.off_ns[WALL_SLEEP], 100);
	wallprof_free(&wp);
}

TEST_HARNESS_MAIN
