// SPDX-License-Identifier: GPL-2.0
/* Sampled call stacks per function; see stacks.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "analysis/stacks.h"

struct stacks {
	struct stack_func **funcs;	/* by func_id, NULL until sampled */
	uint32_t nr_funcs;
	stacks_frame_fn ok;		/* NULL: every frame is taken */
	void *ok_ctx;
	uint64_t tramp_start, tramp_end;	/* [uprobes], 0 0: unknown */
};

struct stacks *stacks_new(void)
{
	return calloc(1, sizeof(struct stacks));
}

void stacks_free(struct stacks *st)
{
	uint32_t i;

	if (!st)
		return;
	for (i = 0; i < st->nr_funcs; i++)
		free(st->funcs[i]);
	free(st->funcs);
	free(st);
}

void stacks_set_check(struct stacks *st, stacks_frame_fn ok, void *ctx)
{
	st->ok = ok;
	st->ok_ctx = ctx;
}

void stacks_set_trampoline(struct stacks *st, uint64_t start, uint64_t end)
{
	st->tramp_start = start;
	st->tramp_end = end;
}

bool stacks_in_trampoline(const struct stacks *st, uint64_t addr)
{
	return addr >= st->tramp_start && addr < st->tramp_end;
}

static struct stack_func *stacks_func(struct stacks *st, uint32_t func_id)
{
	if (idarray_reserve(&st->funcs, &st->nr_funcs, sizeof(*st->funcs),
			    func_id))
		return NULL;
	if (!st->funcs[func_id])
		st->funcs[func_id] = calloc(1, sizeof(struct stack_func));
	return st->funcs[func_id];
}

/*
 * The frames up to the first the check refuses.  The call site stays
 * whatever the check says, but is shown to it too: it may be the first
 * sight of a library mapped since the last look.
 */
static uint32_t stacks_kept(const struct stacks *st, const uint64_t *frames,
			    uint32_t nr_frames)
{
	uint32_t k;

	if (!st->ok)
		return nr_frames;
	st->ok(st->ok_ctx, frames[0]);
	for (k = 1; k < nr_frames; k++)
		if (!st->ok(st->ok_ctx, frames[k]))
			return k;
	return nr_frames;
}

/* The path of @sf with the fewest calls (the first of those). */
static struct stack_path *lightest(struct stack_func *sf)
{
	uint32_t i, min = 0;

	for (i = 1; i < sf->nr_paths; i++)
		if (sf->paths[i].calls < sf->paths[min].calls)
			min = i;
	return &sf->paths[min];
}

int stacks_add(struct stacks *st, uint32_t func_id, const uint64_t *frames,
	       uint32_t nr_frames)
{
	return stacks_add_n(st, func_id, frames, nr_frames, 1);
}

int stacks_add_n(struct stacks *st, uint32_t func_id, const uint64_t *frames,
		 uint32_t nr_frames, uint64_t calls)
{
	struct stack_func *sf;
	struct stack_path *p;
	uint32_t i, kept;
	bool cut, tramp;

	if (!nr_frames)
		return 0;
	if (nr_frames > STACKS_MAX_FRAMES)
		nr_frames = STACKS_MAX_FRAMES;
	kept = stacks_kept(st, frames, nr_frames);
	cut = kept < nr_frames;
	tramp = cut && stacks_in_trampoline(st, frames[kept]);
	sf = stacks_func(st, func_id);
	if (!sf)
		return -ENOMEM;
	sf->sampled += calls;
	/* Linear: at most 16 paths, and one stack per 100 calls. */
	for (i = 0; i < sf->nr_paths; i++) {
		p = &sf->paths[i];
		if (p->nr_frames == kept && p->cut == cut &&
		    p->cut_tramp == tramp &&
		    !memcmp(p->frames, frames, kept * sizeof(*frames))) {
			p->calls += calls;
			return 0;
		}
	}
	if (sf->nr_paths == STACKS_MAX_PATHS) {
		p = lightest(sf);
		/*
		 * A stack counted late with many calls (stacks_wait.h) takes
		 * the place of the lightest path, which it outweighs: the
		 * paths kept are the heaviest, not the first come.
		 */
		if (p->calls >= calls) {
			sf->other += calls;
			return 0;
		}
		sf->other += p->calls;
	} else {
		p = &sf->paths[sf->nr_paths++];
	}
	memcpy(p->frames, frames, kept * sizeof(*frames));
	p->nr_frames = kept;
	p->cut = cut;
	p->cut_tramp = tramp;
	p->calls = calls;
	return 0;
}

const struct stack_func *stacks_of(const struct stacks *st, uint32_t func_id)
{
	if (!st || func_id >= st->nr_funcs)
		return NULL;
	return st->funcs[func_id];
}

size_t stacks_common_outer(const char *const *const *names,
			   const size_t *nr_frames, size_t nr)
{
	size_t common = 0, i;

	if (nr < 2)
		return 0;
	for (;;) {
		const char *outer;

		if (common == nr_frames[0])
			return common;
		outer = names[0][nr_frames[0] - 1 - common];
		for (i = 1; i < nr; i++)
			if (common == nr_frames[i] ||
			    strcmp(names[i][nr_frames[i] - 1 - common], outer))
				return common;
		common++;
	}
}

size_t stacks_folded_depth(size_t depth, size_t common, size_t nr_paths)
{
	/* One path has nothing to differ from: it is shown whole. */
	if (nr_paths < 2 || !common)
		return depth;
	/* Down to the innermost shared frame, the one where paths join. */
	return depth - common + 1;
}
