/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call stacks the module samples (ISPOT_REC_STACK: a probe's first
 * entry and every stack_period-th one), counted per function in bounded
 * memory: at most STACKS_MAX_PATHS distinct paths each, the rest counted
 * as "other" (the first come keep their places, unless one added with
 * more calls at once outweighs the lightest: stacks_add_n()).  Frames
 * stay raw return addresses, innermost (the probed function's call site)
 * first; naming them is the report's job, done once at the end, never
 * per record.
 *
 * The module walks frame pointers, and code built without them (most
 * distributions' libraries) leaves rbp holding data: the walk then reads
 * a "return address" such as 0x3833313933393630, ASCII digits.  With a
 * check set (stacks_set_check()), a stack ends before its first frame
 * that is not an address in the target's code, and its path is marked
 * cut; what differed past that point no longer makes paths apart.
 */
#ifndef ISPOT_STACKS_H
#define ISPOT_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/ispot.h>

#define STACKS_MAX_PATHS	16
#define STACKS_MAX_FRAMES	ISPOT_STACK_MAX_FRAMES

struct stack_path {
	uint64_t frames[STACKS_MAX_FRAMES];
	uint32_t nr_frames;
	bool cut;		/* the walk went on past code: cut there */
	bool cut_tramp;		/* ... at the uretprobe trampoline */
	uint64_t calls;		/* sampled entries that had this stack */
};

struct stack_func {
	struct stack_path paths[STACKS_MAX_PATHS];
	uint32_t nr_paths;
	uint64_t other;		/* sampled entries beyond the paths' room */
	uint64_t sampled;	/* every sampled entry: paths + other */
};

struct stacks;

struct stacks *stacks_new(void);
void stacks_free(struct stacks *st);

/*
 * Whether @addr, a return address the walk read, can be one: inside the
 * target's executable mappings (the session's symbolizer knows them).
 */
typedef bool (*stacks_frame_fn)(void *ctx, uint64_t addr);

/*
 * Judge the frames of every stack added from now on by @ok (NULL: take
 * them all, the default).  The innermost frame, the call site the module
 * reads at the stack pointer, is always kept.
 */
void stacks_set_check(struct stacks *st, stacks_frame_fn ok, void *ctx);

/*
 * The target's uretprobe trampoline [@start, @end): a frame the check
 * refuses there is marked cut_tramp, since the walk read the return
 * address a return probe took, not one of the target's code.
 */
void stacks_set_trampoline(struct stacks *st, uint64_t start, uint64_t end);
/* Whether @addr is in that trampoline (false while it is unknown). */
bool stacks_in_trampoline(const struct stacks *st, uint64_t addr);

/*
 * Count one sampled stack of @func_id.  Frames past STACKS_MAX_FRAMES are
 * ignored; an empty stack is not a path and is ignored.  Returns 0 or
 * -ENOMEM (the first stack of a function allocates its table).
 */
int stacks_add(struct stacks *st, uint32_t func_id, const uint64_t *frames,
	       uint32_t nr_frames);
/* The same, for @calls sampled entries that had this stack. */
int stacks_add_n(struct stacks *st, uint32_t func_id, const uint64_t *frames,
		 uint32_t nr_frames, uint64_t calls);

/* The stacks of @func_id, NULL if none was sampled.  @st may be NULL. */
const struct stack_func *stacks_of(const struct stacks *st, uint32_t func_id);

/*
 * Folding, on frames already named (so that two call instructions in the
 * same function read as one frame): @names[i][k] is frame k of path i,
 * innermost first, @nr_frames[i] its depth.  Returns how many outer frames
 * every one of the @nr paths shares, compared from the outermost frame
 * inwards; 0 for fewer than two paths.  A path is then shown down to the
 * innermost of those shared frames, where the paths join (see
 * Documentation/usage.rst, "Call stacks").
 */
size_t stacks_common_outer(const char *const *const *names,
			   const size_t *nr_frames, size_t nr);

/* How many frames of a path of @depth to show, given stacks_common_outer. */
size_t stacks_folded_depth(size_t depth, size_t common, size_t nr_paths);

#endif /* ISPOT_STACKS_H */
