// SPDX-License-Identifier: GPL-2.0
/*
 * The target's maps, read while it lives (they vanish with the process,
 * and a target may live a few ms): snapshots that name call sites and
 * futex words, and judge the stack frames the module read.
 */
#include "recording/recording.h"
#include "trace/trace_internal.h"

/*
 * An address outside the maps snapshot re-reads them (a library loaded
 * since) at most this often: a garbage stack frame, or an integer
 * argument taken for an address, is outside every snapshot, and a read of
 * /proc/PID/maps costs tens of microseconds, far more than a record.
 * Above TRACE_USER_END nothing is ever user memory (ASCII read off the
 * stack, 0x3833313933393630, is): no re-reading for those.
 */
#define TRACE_MAPS_MISS_NS	(10 * 1000 * 1000ull)
/* How often a live Perfetto trace's names look at the maps anyway. */
#define TRACE_MAPS_FOLLOW_NS	(1000 * 1000 * 1000ull)
#define TRACE_USER_END		0x800000000000ull

bool trace_maps_hold(struct trace *t, uint64_t addr)
{
	uint64_t now;

	if (!t->sym)
		return false;
	if (elf_symbolizer_knows(t->sym, addr))
		return true;
	if (addr >= TRACE_USER_END)
		return false;
	now = trace_now();
	if (now - t->live.maps_reread_ns < TRACE_MAPS_MISS_NS)
		return false;
	t->live.maps_reread_ns = now;
	elf_symbolizer_refresh(t->sym, NULL, 0);
	return elf_symbolizer_knows(t->sym, addr);
}

/*
 * The kernel maps [uprobes] at the first return probe hit, often after
 * the session's last scan of the maps: the first frame found in it makes
 * it known at once, so that this very stack is cut with the trampoline's
 * note (stacks.c reads it after the check).  Returns false: not code.
 */
static bool trace_note_trampoline(struct trace *t, uint64_t addr)
{
	uint64_t start, end;

	if (!t->live.trampoline &&
	    elf_symbolizer_in_trampoline(t->sym, addr, &start, &end)) {
		t->live.trampoline = true;
		trace_set_trampoline(t, start, end);
	}
	return false;
}

/*
 * stacks_frame_fn: a frame the module's frame-pointer walk read is a
 * return address only inside the target's code; anywhere else the walk
 * went through code that keeps no frame pointer, and the stack is cut
 * there (stacks.h).  Before the first snapshot nothing can be judged.
 */
static bool trace_judge_frame(struct trace *t, uint64_t addr)
{
	if (!t->sym || elf_symbolizer_in_code(t->sym, addr))
		return true;
	if (trace_maps_hold(t, addr) && elf_symbolizer_in_code(t->sym, addr))
		return true;
	return trace_note_trampoline(t, addr);
}

/*
 * Whether a traced function's key is labelled from an address (a call
 * site, an argument not bucketed): what a live trace's names read the
 * maps for.
 */
static bool trace_keys_by_address(const struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nr_funcs; i++)
		if (key_rule_by_address(&t->funcs[i].key))
			return true;
	return false;
}

void trace_maps_follow(struct trace *t, uint64_t now)
{
	/* @now is after every read so far: trace_step()'s come after it. */
	if (!t->sym || !t->out.perfetto ||
	    now - t->live.maps_reread_ns < TRACE_MAPS_FOLLOW_NS ||
	    !trace_keys_by_address(t))
		return;
	t->live.maps_reread_ns = now;
	elf_symbolizer_refresh(t->sym, NULL, 0);
}

void trace_maps_for_report(struct trace *t)
{
	if (!t->sym)
		return;
	elf_symbolizer_refresh(t->sym, NULL, 0);
	elf_symbolizer_reread_on_miss(t->sym, false);
}

/* The answer depends on the maps at the time: a recording keeps it. */
bool trace_frame_in_code(void *ctx, uint64_t addr)
{
	struct trace *t = ctx;
	bool ok = trace_judge_frame(t, addr);

	if (t->out.rec)
		recording_frame(t->out.rec, addr, ok);
	return ok;
}

/*
 * The futex report and the key labels name addresses from the last
 * snapshot taken.
 */
void trace_snapshot_maps(struct trace *t)
{
	if (t->sym)
		elf_symbolizer_refresh(t->sym, NULL, 0);
	else
		t->sym = trace_symbolizer_new(t);
}

struct elf_symbolizer *trace_symbolizer_new(const struct trace *t)
{
	if (t->pid_start)
		return elf_symbolizer_new_of(t->sum.pid, t->pid_start, NULL, 0);
	return elf_symbolizer_new(t->sum.pid, NULL, 0);
}

void trace_exec_seen(struct trace *t)
{
	trace_snapshot_maps(t);
}

struct futex_peek {
	struct elf_symbolizer *sym;
	uint64_t unknown[8];
	size_t n;
};

static void trace_peek_record(void *ctx, const struct ispot_record *rec)
{
	struct futex_peek *fp = ctx;

	if (rec->kind == ISPOT_REC_FUTEX_ENTER &&
	    fp->n < sizeof(fp->unknown) / sizeof(*fp->unknown) &&
	    !elf_symbolizer_knows(fp->sym, rec->data[0]))
		fp->unknown[fp->n++] = rec->data[0];
}

/*
 * The first wait on a word outside the snapshot (a library loaded since,
 * a heap that grew) re-reads the maps, and names the word at once, which
 * reads its object while the process is alive to lend it.
 */
void trace_peek_futexes(struct trace *t)
{
	struct futex_peek fp = { .sym = t->sym };
	struct elf_addr_info info;
	size_t i;

	if (!t->sym || !t->sum.waits)
		return;
	drain_peek(t->live.drain, trace_peek_record, &fp);
	if (!fp.n || elf_symbolizer_refresh(t->sym, NULL, 0))
		return;
	for (i = 0; i < fp.n; i++)
		elf_symbolize(t->sym, fp.unknown[i], &info, NULL, 0);
}
