// SPDX-License-Identifier: GPL-2.0
/*
 * A sampled stack inside traced calls reads the uretprobe trampoline where
 * their return addresses were (stacks_wait.h): the pipeline puts each
 * back from the return of the call that held it, nested calls in order
 * and a tail call's shared slot once, and counts the stack then, whole.
 * Where the match cannot be trusted (records lost, entries sampled, more
 * or fewer trampoline words than open calls' slots, the call left without
 * its return, a longjmp, a reused tid, a return from a function past the
 * word before, the trace's end) the stack is counted as it was before:
 * cut at the trampoline.  A stack held with many calls keeps a path of
 * its own among the 16.
 *
 * Stacks follow x86-64: at ENTRY sp points at the return address, at EXIT
 * it is 8 bytes higher, and callees sit below callers.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "pipeline_feed.h"
#include "analysis/pipeline.h"
#include "analysis/stacks.h"
#include "analysis/stacks_wait.h"

#define TGID		777
#define TID		300
#define TRAMP		0x7fffffffe000ULL
/* The target's code: a frame anywhere else ends a walk. */
#define CODE_START	0x400000ULL
#define CODE_END	0x500000ULL
#define SP(level)	(0x7ffd00000008ULL - 0x40ULL * (level))
/* Probes 1, 2, 3 of functions 10, 20, 30. */
#define OUTER		1
#define MIDDLE		2
#define INNER		3

static bool in_code(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr >= CODE_START && addr < CODE_END;
}

static struct pipeline *new_pipeline(void)
{
	struct pipeline *p = pipeline_new();
	uint32_t id;

	ASSERT_TRUE(p);
	for (id = OUTER; id <= INNER; id++)
		ASSERT_EQ(pipeline_add_probe(p, id, 10 * id, NULL), 0);
	pairer_set_trampoline(p->pairer, TRAMP, TRAMP + 0x1000);
	stacks_set_trampoline(p->stacks, TRAMP, TRAMP + 0x1000);
	stacks_set_check(p->stacks, in_code, NULL);
	return p;
}

/* An ENTRY of @probe at @sp (its call site not read: ip 0). */
static void entry(struct pipeline *p, uint32_t probe, uint64_t sp,
		  uint64_t ts)
{
	pipeline_feed_record(p, ts, ISPOT_REC_ENTRY, TGID, TID, probe, sp,
			     NULL);
}

/*
 * The EXIT of @probe's call entered at @sp, returning to @ip, of the
 * function at @func (its data[1]; 0: not given).
 */
static void exit_of(struct pipeline *p, uint32_t probe, uint64_t sp,
		    uint64_t ip, uint64_t func, uint64_t ts)
{
	struct ispot_record r;

	pipeline_feed_fill(&r, ts, ISPOT_REC_EXIT, TGID, TID, probe, sp + 8,
			   NULL);
	r.ip = ip;
	r.data[1] = func;
	pipeline_record(p, &r);
}

static void exit_to(struct pipeline *p, uint32_t probe, uint64_t sp,
		    uint64_t ip, uint64_t ts)
{
	exit_of(p, probe, sp, ip, 0, ts);
}

/* A STACK of @probe: the @nr @frames as the drain hands them over. */
static void stack(struct pipeline *p, uint32_t probe, const uint64_t *frames,
		  uint32_t nr, uint64_t ts)
{
	struct ispot_record v[1 + STACKS_MAX_FRAMES / 8];

	memset(v, 0, sizeof(v));
	v[0].ts_ns = ts;
	v[0].tid = TID;
	v[0].tgid = TGID;
	v[0].cpu = TID & 1;
	v[0].probe_id = probe;
	v[0].kind = ISPOT_REC_STACK;
	v[0].nslots = 1 + (nr + 7) / 8;
	v[0].data[0] = nr;
	memcpy(&v[1], frames, nr * sizeof(*frames));
	pipeline_record(p, v);
}

/* @func's one path is @want (@nr frames), whole: not cut. */
static void expect_path(const struct pipeline *p, uint32_t func,
			const uint64_t *want, uint32_t nr)
{
	const struct stack_func *sf = stacks_of(p->stacks, func);
	uint32_t k;

	ASSERT_TRUE(sf != NULL);
	ASSERT_EQ(sf->nr_paths, 1u);
	EXPECT_EQ(sf->sampled, 1u);
	EXPECT_FALSE(sf->paths[0].cut);
	EXPECT_FALSE(sf->paths[0].cut_tramp);
	ASSERT_EQ(sf->paths[0].nr_frames, nr);
	for (k = 0; k < nr; k++)
		EXPECT_EQ(sf->paths[0].frames[k], want[k]);
}

/* @func's one path, of any count, is @want (@nr frames), whole. */
static void expect_path_frames(const struct pipeline *p, uint32_t func,
			       const uint64_t *want, uint32_t nr)
{
	const struct stack_func *sf = stacks_of(p->stacks, func);

	ASSERT_TRUE(sf != NULL);
	ASSERT_EQ(sf->nr_paths, 1u);
	EXPECT_FALSE(sf->paths[0].cut);
	ASSERT_EQ(sf->paths[0].nr_frames, nr);
	EXPECT_EQ(memcmp(sf->paths[0].frames, want, nr * sizeof(*want)), 0);
}

/* @func's one path is cut at the trampoline after @nr frames. */
static void expect_cut(const struct pipeline *p, uint32_t func, uint32_t nr)
{
	const struct stack_func *sf = stacks_of(p->stacks, func);

	ASSERT_TRUE(sf != NULL);
	ASSERT_EQ(sf->nr_paths, 1u);
	EXPECT_EQ(sf->sampled, 1u);
	EXPECT_TRUE(sf->paths[0].cut_tramp);
	EXPECT_EQ(sf->paths[0].nr_frames, nr);
}

/* Inner's call site in outer, outer's return slot, and main's frames. */
static const uint64_t nested[] = { 0x401100, TRAMP, 0x400900, 0x400500 };

TEST(a_traced_callers_return_address_is_put_back_at_its_return)
{
	const uint64_t want[] = { 0x401100, 0x400800, 0x400900, 0x400500 };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, nested, 4, 110);
	entry(p, INNER, SP(1), 110);
	exit_to(p, INNER, SP(1), 0x401100, 120);
	/* Not counted while the word is missing. */
	EXPECT_TRUE(stacks_of(p->stacks, 30) == NULL);
	exit_to(p, OUTER, SP(0), 0x400800, 130);
	expect_path(p, 30, want, 4);
	pipeline_finish(p, 1000);
	EXPECT_EQ(stacks_of(p->stacks, 30)->sampled, 1u);
	pipeline_free(p);
}

/*
 * A tail call: inner's own return slot is outer's, taken already, so its
 * call site reads the trampoline; both return together to outer's caller.
 */
TEST(a_tail_calls_call_site_is_its_callers_return)
{
	const uint64_t frames[] = { TRAMP, 0x400900 };
	const uint64_t want[] = { 0x400800, 0x400900 };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, frames, 2, 110);
	entry(p, INNER, SP(0), 110);
	exit_to(p, INNER, SP(0), 0x400800, 120);
	exit_to(p, OUTER, SP(0), 0x400800, 120);
	expect_path(p, 30, want, 2);
	pipeline_free(p);
}

/* Two traced callers: each word from its own call's return, in order. */
TEST(two_traced_callers_words_come_back_in_order)
{
	const uint64_t frames[] = { 0x401100, TRAMP, 0x402200, TRAMP,
				    0x400500 };
	const uint64_t want[] = { 0x401100, 0x401800, 0x402200, 0x400800,
				  0x400500 };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	entry(p, MIDDLE, SP(1), 105);
	stack(p, INNER, frames, 5, 110);
	entry(p, INNER, SP(2), 110);
	exit_to(p, INNER, SP(2), 0x401100, 120);
	exit_to(p, MIDDLE, SP(1), 0x401800, 125);
	EXPECT_TRUE(stacks_of(p->stacks, 30) == NULL);
	exit_to(p, OUTER, SP(0), 0x400800, 130);
	expect_path(p, 30, want, 5);
	pipeline_free(p);
}

TEST(records_lost_since_the_stack_leave_it_cut)
{
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, nested, 4, 110);
	entry(p, INNER, SP(1), 110);
	ASSERT_EQ(pipeline_lost(p, 115, 118), 0);
	exit_to(p, OUTER, SP(0), 0x400800, 130);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/* An entry of the thread lost inside outer before the stack. */
TEST(records_lost_inside_the_outermost_call_leave_it_cut)
{
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	ASSERT_EQ(pipeline_lost(p, 102, 105), 0);
	stack(p, INNER, nested, 4, 110);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/*
 * The word before the slot is a return address inside the returning
 * function: past its start (the EXIT's data[1]), or the slot was not its.
 */
TEST(a_return_of_a_function_past_its_callers_word_leaves_it_cut)
{
	const uint64_t want[] = { 0x401100, 0x400800, 0x400900, 0x400500 };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, nested, 4, 110);
	exit_of(p, OUTER, SP(0), 0x400800, 0x401000, 130);
	expect_path(p, 30, want, 4);
	pipeline_free(p);
	p = new_pipeline();
	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, nested, 4, 110);
	exit_of(p, OUTER, SP(0), 0x400800, 0x401200, 130);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

TEST(sampled_entries_leave_it_cut)
{
	struct pipeline *p = new_pipeline();

	p->calls_sampled = true;
	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, nested, 4, 110);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/* Another tracer's return probe: more words than calls open. */
TEST(more_trampoline_words_than_open_calls_leave_it_cut)
{
	const uint64_t frames[] = { 0x401100, TRAMP, 0x402200, TRAMP };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, frames, 4, 110);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/* A longjmp past outer: the next entry is above its frame. */
TEST(a_caller_left_without_its_return_leaves_it_cut)
{
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(1), 100);
	stack(p, INNER, nested, 4, 110);
	entry(p, INNER, SP(2), 110);
	entry(p, MIDDLE, SP(0), 140);
	expect_cut(p, 30, 1);
	/* Its return, had it come, would not be put back now. */
	exit_to(p, OUTER, SP(1), 0x400800, 150);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

TEST(the_traces_end_counts_a_waiting_stack_once)
{
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, nested, 4, 110);
	EXPECT_TRUE(stacks_of(p->stacks, 30) == NULL);
	pipeline_finish(p, 1000);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/*
 * Three call sites in one call of outer, as parse() calls step(): each
 * stack waits, and outer's return completes all three.
 */
TEST(stacks_of_several_call_sites_wait_for_one_return)
{
	struct pipeline *p = new_pipeline();
	const struct stack_func *sf;
	uint64_t frames[4];
	uint32_t i, k;

	memcpy(frames, nested, sizeof(frames));
	entry(p, OUTER, SP(0), 100);
	for (i = 0; i < 3; i++) {
		frames[0] = 0x401100 + 0x10 * i;
		stack(p, INNER, frames, 4, 110 + 10 * i);
		entry(p, INNER, SP(1), 110 + 10 * i);
		exit_to(p, INNER, SP(1), frames[0], 115 + 10 * i);
	}
	EXPECT_TRUE(stacks_of(p->stacks, 30) == NULL);
	exit_to(p, OUTER, SP(0), 0x400800, 150);
	sf = stacks_of(p->stacks, 30);
	ASSERT_TRUE(sf != NULL);
	EXPECT_EQ(sf->sampled, 3u);
	ASSERT_EQ(sf->nr_paths, 3u);
	for (i = 0; i < 3; i++) {
		EXPECT_FALSE(sf->paths[i].cut);
		ASSERT_EQ(sf->paths[i].nr_frames, 4u);
		EXPECT_EQ(sf->paths[i].frames[1], 0x400800u);
		for (k = 0; k < 3; k++)
			if (sf->paths[i].frames[0] == 0x401100 + 0x10 * k)
				break;
		EXPECT_LT(k, 3u);
	}
	pipeline_free(p);
}

/*
 * A loop of a thousand calls inside one long call: alike stacks wait as
 * one, with their count, and past STACKS_WAIT_MAX different ones the
 * one added to least recently is counted as it is.
 */
TEST(alike_stacks_wait_as_one_and_the_least_recent_gives_way)
{
	const uint64_t want[] = { 0x401100, 0x400800, 0x400900, 0x400500 };
	struct pipeline *p = new_pipeline();
	const struct stack_func *sf;
	uint64_t frames[4];
	uint32_t i;

	entry(p, OUTER, SP(0), 100);
	for (i = 0; i < 1000; i++)
		stack(p, INNER, nested, 4, 110 + i);
	memcpy(frames, nested, sizeof(frames));
	for (i = 0; i < STACKS_WAIT_MAX; i++) {
		frames[0] = 0x402000 + 0x10 * i;
		stack(p, MIDDLE, frames, 4, 2000 + i);
	}
	/* The thousand, added to least recently, gave way: cut, counted once each. */
	sf = stacks_of(p->stacks, 30);
	ASSERT_TRUE(sf != NULL);
	EXPECT_EQ(sf->sampled, 1000u);
	ASSERT_EQ(sf->nr_paths, 1u);
	EXPECT_TRUE(sf->paths[0].cut_tramp);
	EXPECT_TRUE(stacks_of(p->stacks, 20) == NULL);
	for (i = 0; i < 1000; i++)
		stack(p, INNER, nested, 4, 3000 + i);
	exit_to(p, OUTER, SP(0), 0x400800, 5000);
	sf = stacks_of(p->stacks, 30);
	EXPECT_EQ(sf->sampled, 2000u);
	ASSERT_EQ(sf->nr_paths, 2u);
	EXPECT_EQ(sf->paths[1].calls, 1000u);
	EXPECT_FALSE(sf->paths[1].cut);
	EXPECT_EQ(memcmp(sf->paths[1].frames, want, sizeof(want)), 0);
	/* One of the sixteen gave way to them, cut; the rest whole. */
	sf = stacks_of(p->stacks, 20);
	ASSERT_TRUE(sf != NULL);
	EXPECT_EQ(sf->sampled, (uint64_t)STACKS_WAIT_MAX);
	EXPECT_EQ(sf->nr_paths, (uint32_t)STACKS_WAIT_MAX);
	for (i = 0; i < sf->nr_paths; i++)
		EXPECT_EQ(sf->paths[i].cut_tramp, sf->paths[i].frames[0] ==
						  0x402000);
	pipeline_free(p);
}

/*
 * Outer entered at SP(1); inner longjmps out to outer's caller, which
 * calls middle at that very sp from another site: middle's return is not
 * outer's, and the word stays cut.
 */
TEST(a_longjmp_then_a_call_in_the_same_slot_leaves_it_cut)
{
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(1), 100);
	stack(p, INNER, nested, 4, 110);
	entry(p, INNER, SP(2), 110);
	entry(p, MIDDLE, SP(1), 140);
	exit_of(p, MIDDLE, SP(1), 0x400a00, 0x401000, 150);
	entry(p, MIDDLE, SP(1), 160);
	exit_of(p, MIDDLE, SP(1), 0x400a00, 0x401000, 170);
	pipeline_finish(p, 1000);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/*
 * Middle's ENTRY dropped before the stack, the LOST record read after it
 * (a ring tells a drop at its next record): middle's return, unpaired,
 * puts nothing back.
 */
TEST(a_drop_before_the_stack_told_after_it_leaves_it_cut)
{
	const uint64_t frames[] = { 0x402200, TRAMP };
	struct pipeline *p = new_pipeline();
	struct ispot_record lost;

	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, frames, 2, 110);
	entry(p, INNER, SP(2), 110);
	pipeline_feed_fill(&lost, 105, ISPOT_REC_LOST, TGID, TID, 0, 0, NULL);
	lost.data[0] = 1;
	lost.data[1] = 106;
	pipeline_ring_lost(p, &lost);
	exit_to(p, INNER, SP(2), 0x402200, 120);
	exit_to(p, MIDDLE, SP(1), 0x401800, 125);
	exit_to(p, OUTER, SP(0), 0x400800, 130);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/*
 * Middle, inside outer, left by a longjmp to outer, which then returns:
 * outer's return pairs outer, not middle, whose word stays cut.
 */
TEST(an_outer_return_after_an_inner_one_lost_puts_nothing_back)
{
	const uint64_t frames[] = { 0x402200, TRAMP, 0x401800, TRAMP };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	entry(p, MIDDLE, SP(1), 105);
	stack(p, INNER, frames, 4, 110);
	exit_to(p, OUTER, SP(0), 0x400800, 130);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/* The thread exits inside outer; its tid comes back on the same stack. */
TEST(a_reused_tids_return_puts_nothing_back)
{
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, nested, 4, 110);
	entry(p, INNER, SP(1), 110);
	ASSERT_EQ(pipeline_thread_exit(p, TID, 200), 0);
	entry(p, OUTER, SP(0), 300);
	exit_to(p, OUTER, SP(0), 0x400c00, 310);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/*
 * A traced function without a frame pointer (middle, inside outer) is
 * passed over by the walk: one word for two slots, which would match
 * outer's slot with middle's return.  Left cut.
 */
TEST(fewer_trampoline_words_than_open_calls_leave_it_cut)
{
	const uint64_t frames[] = { 0x402200, TRAMP, 0x400500 };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	entry(p, MIDDLE, SP(1), 105);
	stack(p, INNER, frames, 3, 110);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/*
 * Outer tail-called middle before the stack: one slot for both, their
 * returns fired together, the word from the outermost's (outer's), even
 * where middle's code lies below outer's start.
 */
TEST(a_tail_call_chain_open_at_the_stack_is_one_slot)
{
	const uint64_t frames[] = { 0x401100, TRAMP, 0x400900 };
	const uint64_t want[] = { 0x401100, 0x400800, 0x400900 };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	entry(p, MIDDLE, SP(0), 105);
	stack(p, INNER, frames, 3, 110);
	entry(p, INNER, SP(1), 110);
	exit_of(p, INNER, SP(1), 0x401100, 0x401000, 115);
	exit_of(p, MIDDLE, SP(0), 0x400800, 0x401000, 120);
	EXPECT_TRUE(stacks_of(p->stacks, 30) == NULL);
	exit_of(p, OUTER, SP(0), 0x400800, 0x401200, 120);
	expect_path(p, 30, want, 3);
	pipeline_free(p);
}

/* Outer calling itself: each slot gets its own call's return. */
TEST(a_recursive_callers_words_are_each_its_own)
{
	const uint64_t frames[] = { 0x401100, TRAMP, 0x401150, TRAMP,
				    0x400500 };
	const uint64_t want[] = { 0x401100, 0x401150, 0x401150, 0x400800,
				  0x400500 };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	entry(p, OUTER, SP(1), 105);
	stack(p, INNER, frames, 5, 110);
	entry(p, INNER, SP(2), 110);
	exit_of(p, INNER, SP(2), 0x401100, 0x401000, 115);
	exit_of(p, OUTER, SP(1), 0x401150, 0x401000, 120);
	exit_of(p, OUTER, SP(0), 0x400800, 0x401000, 130);
	expect_path(p, 30, want, 5);
	pipeline_free(p);
}

/*
 * An exit at another sp, or one that leaves a call of the slot open, is
 * not the awaited return: the stack keeps waiting for it.
 */
TEST(only_the_slots_last_return_puts_its_word_back)
{
	const uint64_t want[] = { 0x401100, 0x400800, 0x400900, 0x400500 };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	entry(p, MIDDLE, SP(0), 102);
	stack(p, INNER, nested, 4, 110);
	entry(p, INNER, SP(1), 110);
	/* Inner's return, one slot deeper. */
	exit_to(p, INNER, SP(1), 0x401100, 115);
	/* Middle's, the chain's callee: outer's return still to come. */
	exit_to(p, MIDDLE, SP(0), 0x400800, 120);
	EXPECT_TRUE(stacks_of(p->stacks, 30) == NULL);
	exit_to(p, OUTER, SP(0), 0x400800, 120);
	expect_path(p, 30, want, 4);
	pipeline_free(p);
}

/*
 * Middle called a hundred times inside one long call of outer, inner's
 * stack taken in each: as each middle returns, its stack waits for outer
 * alike the ones before, and joins them; outer's return completes one
 * path of a hundred calls.
 */
TEST(a_loops_stacks_join_once_their_inner_words_are_back)
{
	const uint64_t frames[] = { 0x402200, TRAMP, 0x401800, TRAMP,
				    0x400500 };
	const uint64_t want[] = { 0x402200, 0x401800, 0x401800, 0x400800,
				  0x400500 };
	struct pipeline *p = new_pipeline();
	uint64_t ts = 100;
	uint32_t i;

	entry(p, OUTER, SP(0), ts);
	for (i = 0; i < 100; i++) {
		entry(p, MIDDLE, SP(1), ++ts);
		stack(p, INNER, frames, 5, ++ts);
		entry(p, INNER, SP(2), ts);
		exit_to(p, INNER, SP(2), 0x402200, ++ts);
		exit_to(p, MIDDLE, SP(1), 0x401800, ++ts);
	}
	EXPECT_TRUE(stacks_of(p->stacks, 30) == NULL);
	exit_to(p, OUTER, SP(0), 0x400800, ++ts);
	ASSERT_TRUE(stacks_of(p->stacks, 30) != NULL);
	EXPECT_EQ(stacks_of(p->stacks, 30)->sampled, 100u);
	EXPECT_EQ(stacks_of(p->stacks, 30)->paths[0].calls, 100u);
	expect_path_frames(p, 30, want, 5);
	pipeline_free(p);
}

/*
 * A hot stack held inside a long call is counted last: it takes the
 * place of the lightest of 16 paths that came before it.
 */
TEST(a_held_hot_stack_keeps_a_path_of_its_own)
{
	const uint64_t want[] = { 0x401100, 0x400800, 0x400900, 0x400500 };
	struct pipeline *p = new_pipeline();
	const struct stack_func *sf;
	uint64_t frames[2] = { 0, 0x400900 };
	uint32_t i, k;

	entry(p, OUTER, SP(0), 100);
	for (i = 0; i < 100; i++)
		stack(p, INNER, nested, 4, 110 + i);
	for (i = 0; i < STACKS_MAX_PATHS; i++) {
		frames[0] = 0x402000 + 0x10 * i;
		stack(p, INNER, frames, 2, 300 + i);
	}
	exit_to(p, OUTER, SP(0), 0x400800, 400);
	sf = stacks_of(p->stacks, 30);
	ASSERT_TRUE(sf != NULL);
	EXPECT_EQ(sf->sampled, 100u + STACKS_MAX_PATHS);
	EXPECT_EQ(sf->other, 1u);
	for (k = 0; k < sf->nr_paths; k++)
		if (sf->paths[k].calls == 100)
			break;
	ASSERT_LT(k, sf->nr_paths);
	EXPECT_EQ(memcmp(sf->paths[k].frames, want, sizeof(want)), 0);
	pipeline_free(p);
}

/*
 * Two stacks alike waiting, a third joining the first: the stack moved
 * into the place given up is looked at too, and every call counted.
 */
TEST(a_join_not_at_the_end_looks_at_the_stack_moved_in)
{
	const uint64_t f1[] = { 0x402200, TRAMP, 0x401800, TRAMP, 0x400500 };
	const uint64_t f2[] = { 0x402300, TRAMP, 0x401800, TRAMP, 0x400500 };
	struct pipeline *p = new_pipeline();
	const struct stack_func *sf;
	uint32_t k;

	entry(p, OUTER, SP(0), 100);
	entry(p, MIDDLE, SP(1), 101);
	stack(p, INNER, f1, 5, 102);
	entry(p, INNER, SP(2), 102);
	exit_to(p, INNER, SP(2), 0x402200, 103);
	exit_to(p, MIDDLE, SP(1), 0x401800, 104);
	entry(p, MIDDLE, SP(1), 105);
	stack(p, INNER, f1, 5, 106);
	entry(p, INNER, SP(2), 106);
	exit_to(p, INNER, SP(2), 0x402200, 107);
	stack(p, INNER, f2, 5, 108);
	entry(p, INNER, SP(2), 108);
	exit_to(p, INNER, SP(2), 0x402300, 109);
	exit_to(p, MIDDLE, SP(1), 0x401800, 110);
	exit_to(p, OUTER, SP(0), 0x400800, 120);
	sf = stacks_of(p->stacks, 30);
	ASSERT_TRUE(sf != NULL);
	EXPECT_EQ(sf->sampled, 3u);
	EXPECT_EQ(sf->nr_paths, 2u);
	for (k = 0; k < sf->nr_paths; k++) {
		EXPECT_FALSE(sf->paths[k].cut);
		EXPECT_EQ(sf->paths[k].calls,
			  sf->paths[k].frames[0] == 0x402200 ? 2u : 1u);
	}
	pipeline_free(p);
}

/* Three traced callers: the deepest returns first, right after the stack. */
TEST(an_awaited_call_two_slots_deep_returns_first)
{
	const uint64_t frames[] = { 0x401100, TRAMP, 0x401150, TRAMP,
				    0x401160, TRAMP, 0x400500 };
	const uint64_t want[] = { 0x401100, 0x401150, 0x401150, 0x401160,
				  0x401160, 0x400800, 0x400500 };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	entry(p, OUTER, SP(1), 101);
	entry(p, OUTER, SP(2), 102);
	stack(p, INNER, frames, 7, 110);
	exit_to(p, OUTER, SP(2), 0x401150, 120);
	exit_to(p, OUTER, SP(1), 0x401160, 121);
	exit_to(p, OUTER, SP(0), 0x400800, 122);
	expect_path(p, 30, want, 7);
	pipeline_free(p);
}

/* An EXIT that did not read its return address (ip 0): no word. */
TEST(an_exit_without_its_return_address_puts_nothing_back)
{
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, nested, 4, 110);
	exit_to(p, OUTER, SP(0), 0, 130);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/* Records lost after outer began, before middle did: an entry may be. */
TEST(a_loss_between_the_outer_and_inner_calls_leaves_it_cut)
{
	const uint64_t frames[] = { 0x402200, TRAMP, 0x401800, TRAMP, 0x400500 };
	struct pipeline *p = new_pipeline();

	entry(p, OUTER, SP(0), 100);
	ASSERT_EQ(pipeline_lost(p, 102, 104), 0);
	entry(p, MIDDLE, SP(1), 105);
	stack(p, INNER, frames, 5, 110);
	exit_to(p, MIDDLE, SP(1), 0x401800, 120);
	exit_to(p, OUTER, SP(0), 0x400800, 130);
	expect_cut(p, 30, 1);
	pipeline_free(p);
}

/* A STACK of more frames than a path keeps: cut to STACKS_MAX_FRAMES. */
TEST(a_stack_longer_than_kept_is_cut_to_it)
{
	uint64_t frames[STACKS_MAX_FRAMES + 8];
	struct ispot_record v[1 + (STACKS_MAX_FRAMES + 8) / 8];
	struct pipeline *p = new_pipeline();
	const struct stack_func *sf;
	uint32_t k;

	for (k = 0; k < STACKS_MAX_FRAMES + 8; k++)
		frames[k] = 0x400100 + 8 * k;
	frames[1] = TRAMP;
	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, nested, 4, 105);
	memset(v, 0, sizeof(v));
	v[0].ts_ns = 110;
	v[0].tid = TID;
	v[0].tgid = TGID;
	v[0].probe_id = INNER;
	v[0].kind = ISPOT_REC_STACK;
	v[0].nslots = 1 + (STACKS_MAX_FRAMES + 8) / 8;
	v[0].data[0] = STACKS_MAX_FRAMES + 8;
	memcpy(&v[1], frames, sizeof(frames));
	pipeline_record(p, v);
	exit_to(p, OUTER, SP(0), 0x400800, 130);
	sf = stacks_of(p->stacks, 30);
	ASSERT_TRUE(sf != NULL);
	EXPECT_EQ(sf->sampled, 2u);
	for (k = 0; k < sf->nr_paths; k++)
		EXPECT_LE(sf->paths[k].nr_frames, (uint32_t)STACKS_MAX_FRAMES);
	pipeline_free(p);
}

/* The one added to most recently stays, though made first. */
TEST(the_stack_added_to_least_recently_gives_way)
{
	struct pipeline *p = new_pipeline();
	uint64_t frames[4];
	uint32_t i;

	memcpy(frames, nested, sizeof(frames));
	entry(p, OUTER, SP(0), 100);
	stack(p, INNER, nested, 4, 110);	/* A, made first */
	for (i = 0; i < STACKS_WAIT_MAX - 1; i++) {
		frames[0] = 0x402000 + 0x10 * i;
		stack(p, MIDDLE, frames, 4, 200 + i);
	}
	stack(p, INNER, nested, 4, 300);	/* A again: most recent */
	frames[0] = 0x403000;
	stack(p, MIDDLE, frames, 4, 400);	/* one gives way */
	EXPECT_TRUE(stacks_of(p->stacks, 30) == NULL);
	ASSERT_TRUE(stacks_of(p->stacks, 20) != NULL);
	EXPECT_EQ(stacks_of(p->stacks, 20)->paths[0].frames[0], 0x402000u);
	pipeline_free(p);
}

TEST_HARNESS_MAIN
