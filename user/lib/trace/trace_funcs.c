// SPDX-License-Identifier: GPL-2.0
/*
 * What a trace probes: --func specs, --sync's pthread calls, --auto's
 * picks and --func block:NAME / --block pairs of markers, resolved into
 * trace_funcs, then armed as module probes (see trace.h, trace_resolve()).
 *
 * A function is one probe at entry and return.  A block is a pair of USDT
 * markers (elf.h, elf_resolve_block()): an entry probe on every site of
 * its begin marker and of its end marker, which the pairer matches per
 * thread by nesting depth (pair.h, pairer_set_marker()); it is scored
 * exactly as a function, under its display name.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "recording/baseline.h"
#include "trace/autopick.h"
#include "trace/trace_internal.h"
#include "util/array.h"
#include "util/errors.h"
#include "util/procstat.h"

/*
 * What --sync adds: the blocking calls of COZ's Table 2 (the papers are
 * listed in Documentation/design.rst, References), then the releases,
 * whose futex wakes end the waits: a wake inside one is credited to its
 * caller, the critical section that held the lock (pipeline_set_sync()),
 * named by the return address its entry reads (trace_arm()) when no traced
 * function encloses it.  Each is also a "sync" probe when a user names it
 * with --func.
 */
static const char *const sync_specs[] = {
	"libc:pthread_mutex_lock",
	"libc:pthread_mutex_timedlock",
	"libc:pthread_rwlock_rdlock",
	"libc:pthread_rwlock_wrlock",
	"libc:pthread_cond_wait",
	"libc:pthread_cond_timedwait",
	"libc:pthread_barrier_wait",
	/*
	 * Not pthread_spin_lock: glibc's starts with a LOCK-prefixed
	 * instruction, which x86 uprobes refuse to single-step.  Its callers
	 * can be probed instead (samples/spinlock.c).  None of the others
	 * starts with one (glibc 2.36: a mov, a push or a tail call's mov).
	 */
	"libc:sem_wait",
	"libc:pthread_join",
	"libc:pthread_mutex_unlock",
	"libc:pthread_rwlock_unlock",
	"libc:pthread_cond_signal",
	"libc:pthread_cond_broadcast",
	"libc:sem_post",
};

static bool trace_func_is_sync(const struct trace_func *f)
{
	const char *name = f->sym.name;
	size_t i;

	if (f->block)
		return false;
	for (i = 0; i < sizeof(sync_specs) / sizeof(*sync_specs); i++)
		if (!strcmp(strchr(sync_specs[i], ':') + 1, name))
			return true;
	return false;
}

static int trace_add_syms(struct trace *t, const struct elf_target_sym *syms,
			  size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		struct trace_func *f;

		/* Two specs naming one function probe it once. */
		for (j = 0; j < t->nr_funcs; j++)
			if (!t->funcs[j].block &&
			    t->funcs[j].sym.offset == syms[i].offset &&
			    !strcmp(t->funcs[j].sym.obj, syms[i].obj))
				break;
		if (j < t->nr_funcs)
			continue;
		if (ARRAY_RESERVE(t->funcs, t->cap_funcs, t->nr_funcs + 1)) {
			ispot_error("out of memory resolving functions");
			return -1;
		}
		f = &t->funcs[t->nr_funcs++];
		memset(f, 0, sizeof(*f));
		f->sym = syms[i];
		f->key = trace_opts_key(t->opts, &(struct key_target){
			f->sym.obj, f->sym.name, f->sym.linkage_name },
			f->key_desc, sizeof(f->key_desc));
	}
	return 0;
}

/*
 * Spec @bit (OPT_SPEC_BITS) the target lacks, under funcs_optional: noted
 * in t->unresolved, not an error.  Whether it was so.
 */
static bool trace_lacks(struct trace *t, size_t bit, int ret,
			const char *err)
{
	if (ret != -ENOENT || !t->opts->funcs_optional)
		return false;
	if (!t->nr_unresolved++ || !t->unresolved_msg[0])
		snprintf(t->unresolved_msg, sizeof(t->unresolved_msg), "%s",
			 err);
	t->unresolved[bit / 64] |= 1ull << (bit % 64);
	return true;
}

/*
 * @syms without those a probe could not step over: how many are left.
 * The first left out is named into @first, if given (before a later
 * function moves over it).
 */
static size_t trace_keep_steppable(struct elf_target_sym *syms, size_t n,
				   char first[ELF_SYM_NAME_MAX])
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++) {
		if (trace_sym_steppable(&syms[i]))
			syms[kept++] = syms[i];
		else if (first && kept == i)	/* none left out before */
			memcpy(first, syms[i].name, ELF_SYM_NAME_MAX);
	}
	return kept;
}

/*
 * Under funcs_optional (ispotd), the functions of spec @bit (@spec) a
 * probe could not step over are left out of @syms, so that the others are
 * traced, and noted in t->left_out; if none is left, the spec is noted in
 * t->unresolved as one the target lacks.  Whether none is left.  ispotctl
 * refuses them at trace_arm().
 */
static bool trace_drop_unsteppable(struct trace *t, size_t bit,
				   const char *spec,
				   struct elf_target_sym *syms, size_t *n)
{
	char why[ELF_SYM_NAME_MAX + 512], first[ELF_SYM_NAME_MAX];
	size_t kept = trace_keep_steppable(syms, *n, first);

	if (kept == *n)
		return false;
	trace_unsteppable_why(why, sizeof(why), first, *n - kept - 1, spec);
	*n = kept;
	if (!*n) {
		trace_lacks(t, bit, -ENOENT, why);
		return true;
	}
	if (!t->nr_left_out)
		snprintf(t->left_out_msg, sizeof(t->left_out_msg), "%s", why);
	t->nr_left_out++;
	t->left_out[bit / 64] |= 1ull << (bit % 64);
	return false;
}

/* Whether spec @bit is one the caller knows the target lacks. */
static bool trace_skipped(struct trace *t, size_t bit)
{
	const uint64_t *skip = t->opts->skip_specs;

	if (!skip || !(skip[bit / 64] & 1ull << (bit % 64)))
		return false;
	t->nr_unresolved++;
	t->unresolved[bit / 64] |= 1ull << (bit % 64);
	return true;
}

/*
 * A block from `--func block:NAME` or `--block NAME=...` (@spec without
 * its "block:"), under its display name; the same block twice is traced
 * once: spec @bit, -ENOENT if the target lacks it (trace_lacks()).
 */
static int trace_add_block(struct trace *t, const char *spec, size_t bit,
			   pid_t pid, const char *exe)
{
	struct trace_func *f;
	struct elf_block *b;
	char err[1024];
	size_t j;
	int ret;

	b = calloc(1, sizeof(*b));
	if (!b) {
		ispot_error("out of memory resolving blocks");
		return -1;
	}
	if (trace_skipped(t, bit)) {
		free(b);
		return -ENOENT;
	}
	ret = elf_resolve_block(spec, pid, exe, b, err, sizeof(err));
	if (ret) {
		free(b);
		if (pid > 0 && task_exited(pid))
			trace_say_gone(t, pid);
		else if (trace_lacks(t, bit, ret, err))
			return -ENOENT;
		else
			ispot_error("%s", err);
		return -1;
	}
	if (b->warn[0])
		ispot_say("note: %s", b->warn);
	for (j = 0; j < t->nr_funcs; j++)
		if (t->funcs[j].block && !strcmp(t->funcs[j].sym.name, b->name))
			break;
	if (j < t->nr_funcs ||
	    ARRAY_RESERVE(t->funcs, t->cap_funcs, t->nr_funcs + 1)) {
		elf_block_free(b);
		free(b);
		if (j < t->nr_funcs)
			return 0;
		ispot_error("out of memory resolving blocks");
		return -1;
	}
	f = &t->funcs[t->nr_funcs++];
	memset(f, 0, sizeof(*f));
	f->block = b;
	f->is_block = true;
	snprintf(f->sym.name, sizeof(f->sym.name), "%s", b->name);
	snprintf(f->sym.obj, sizeof(f->sym.obj), "%s", b->obj);
	f->sym.offset = b->nr_begin ? b->begin[0].offset : 0;
	f->sym.vaddr = b->nr_begin ? b->begin[0].vaddr : 0;
	f->key = trace_opts_key(t->opts, &(struct key_target){
		f->sym.obj, f->sym.name, NULL }, f->key_desc,
		sizeof(f->key_desc));
	return 0;
}

/* --auto: sample the running target, then trace where its time goes. */
static int trace_auto(struct trace *t, pid_t pid)
{
	struct autopick a;
	char err[512];
	size_t i;
	int ret;

	/* Caught until the trace ends: a signal between ends it in order. */
	trace_catch_signals();
	ret = autopick_sample(pid, t->opts->auto_time_ns, t->opts->auto_top,
			      t->opts->wall_folded, &trace_signal, &a, err,
			      sizeof(err));
	if (!ret && a.stopped) {
		/* What it would have traced is said: nothing was. */
		autopick_print(stderr, pid, &a);
		ispot_error("interrupted while sampling pid %d (--auto): "
			    "nothing traced; name the functions above with "
			    "--func, or give a shorter --auto-time", (int)pid);
		autopick_free(&a);
		return -1;
	}
	if (ret) {
		ispot_error("%s", err);
		autopick_free(&a);
		return -1;
	}
	autopick_print(stderr, pid, &a);
	for (i = 0; !ret && i < a.nr; i++)
		ret = trace_add_syms(t, &a.funcs[i].sym, 1);
	/* Kept for the JSON report; it goes without it if memory is short. */
	t->picked = malloc(sizeof(*t->picked));
	if (t->picked)
		*t->picked = a;
	else
		autopick_free(&a);
	return ret;
}

int trace_resolve(struct trace *t, pid_t pid, const char *exe)
{
	const struct trace_opts *o = t->opts;
	struct elf_target_sym *syms;
	char err[1024];
	size_t i, n;
	int ret;

	if (o->auto_pick && trace_auto(t, pid))
		return -1;
	for (i = 0; i < o->nr_funcs; i++) {
		if (!strncmp(o->funcs[i], OPT_BLOCK_PREFIX,
			     strlen(OPT_BLOCK_PREFIX))) {
			ret = trace_add_block(t, o->funcs[i] +
					      strlen(OPT_BLOCK_PREFIX), i,
					      pid, exe);
			if (ret && ret != -ENOENT)
				return -1;
			continue;
		}
		if (trace_skipped(t, i))
			continue;
		ret = elf_resolve_spec(o->funcs[i], pid, exe, &syms, &n, err,
				       sizeof(err));
		/* Its /proc files vanish with it: say what really happened. */
		if (ret && pid > 0 && task_exited(pid)) {
			trace_say_gone(t, pid);
			return -1;
		}
		if (ret && trace_lacks(t, i, ret, err))
			continue;
		if (ret) {
			ispot_error("%s", err);
			return -1;
		}
		if (t->opts->funcs_optional &&
		    trace_drop_unsteppable(t, i, o->funcs[i], syms,
					   &n))
			ret = 0;	/* none left: said as one it lacks */
		else
			ret = trace_add_syms(t, syms, n);
		free(syms);
		if (ret)
			return -1;
	}
	if (o->nr_syms && trace_add_syms(t, o->syms, o->nr_syms))
		return -1;
	for (i = 0; i < o->nr_blocks; i++) {
		ret = trace_add_block(t, o->blocks[i], OPT_MAX_FUNCS + i, pid,
				      exe);
		if (ret && ret != -ENOENT)
			return -1;
	}
	/* A program that does not use one of them simply lacks it. */
	for (i = 0; o->sync && i < sizeof(sync_specs) / sizeof(*sync_specs);
	     i++) {
		if (elf_resolve_spec(sync_specs[i], pid, exe, &syms, &n, err,
				     sizeof(err)))
			continue;
		/*
		 * A function --sync adds that cannot be probed is left out,
		 * as one the program lacks is: not the whole session lost.
		 */
		n = trace_keep_steppable(syms, n, NULL);
		ret = trace_add_syms(t, syms, n);
		free(syms);
		if (ret)
			return -1;
	}
	/* The caller says what was not found. */
	if (!t->nr_funcs && t->nr_unresolved)
		return -ENOENT;
	if (!t->nr_funcs) {
		ispot_error("--sync found no pthread function in the target "
			    "(statically linked?); name functions with --func");
		return -1;
	}
	return 0;
}

/*
 * PROBE_ADD on @obj at @offset; returns the probe id, or 0 after printing
 * why not.  @sem: the USDT semaphore's file offset, 0 for none.
 */
static uint32_t trace_add_probe(struct trace *t, const char *obj,
				uint64_t offset, uint32_t flags, uint64_t sem,
				const char *name)
{
	struct ispot_probe_add a = {
		.flags = flags,
		.offset = offset,
		.sample_period = t->opts->sample,
		.ref_ctr_offset = sem,
	};
	char why[PATH_MAX + 64];
	int fd = elf_open_regular(obj, NULL, why, sizeof(why));
	int e;

	if (fd < 0) {
		ispot_error("%s%s", why,
			    fd == -ENOENT ? ": is it still there?" : "");
		return 0;
	}
	a.fd = fd;
	e = ioctl(t->live.dev.fd, ISPOT_IOC_PROBE_ADD, &a) ? errno : 0;
	close(fd);
	if (!e)
		return a.probe_id;
	if (e == EBADFD)
		trace_say_gone(t, t->sum.pid);
	else if (e == ENOSPC || e == E2BIG)
		ispot_error("too many probes for the module: narrow the --func "
			    "globs or raise the module's max_probes");
	else if (e == EEXIST)
		ispot_error("%s in %s is probed twice: a block marker sits at "
			    "the entry of a function also traced; trace one "
			    "or the other", name, obj);
	else
		ispot_error("cannot probe %s in %s (%s)", name, obj,
			    strerror(e));
	return 0;
}

/* Every site of a block's markers, as entry probes the pairer matches. */
static int trace_arm_block(struct trace *t, size_t func)
{
	struct trace_func *f = &t->funcs[func];
	const struct elf_block *b = f->block;
	/* Older modules take no semaphore: the markers still fire. */
	bool sems = t->live.dev.version.abi_minor >= 5;
	size_t i, n = b->nr_begin + b->nr_end;
	static bool noted;

	if (!sems && !noted && b->nr_begin && b->begin[0].sem_offset) {
		ispot_say("note: the loaded ispot.ko predates USDT semaphores "
			  "(ABI 1.5): ISPOT_BLOCK_ENABLED() stays false while "
			  "traced");
		noted = true;
	}

	for (i = 0; i < n; i++) {
		bool end = i >= b->nr_begin;
		const struct elf_usdt_site *site =
			end ? &b->end[i - b->nr_begin] : &b->begin[i];
		uint32_t id;

		id = trace_add_probe(t, site->obj, site->offset,
				     ISPOT_PROBE_ENTRY | ISPOT_PROBE_NO_CALLSITE,
				     sems ? site->sem_offset : 0, b->name);
		if (!id)
			return -1;
		if (!f->probe_id)
			f->probe_id = id;
		if (trace_pipe_probe(t, id, func, end ? TRACE_PROBE_END :
				     TRACE_PROBE_BEGIN, false))
			return -1;
	}
	return 0;
}

int trace_arm(struct trace *t)
{
	/* The exit record carries the call site (ABI 1.2). */
	uint32_t flags = ISPOT_PROBE_BOTH |
			 (t->live.dev.version.abi_minor >= 2 ?
			  ISPOT_PROBE_NO_CALLSITE : 0);
	size_t i;

	for (i = 0; i < t->nr_funcs; i++) {
		struct trace_func *f = &t->funcs[i];

		if (f->block) {
			if (trace_arm_block(t, i))
				return -1;
			continue;
		}
		if (!trace_sym_steppable(&f->sym)) {
			char why[ELF_SYM_NAME_MAX + 512];

			trace_unsteppable_why(why, sizeof(why), f->sym.name, 0,
					      NULL);
			ispot_error("%s", why);
			return -1;
		}
		/*
		 * A lock call reads its return address at entry: a wake
		 * inside it, before its exit, names its caller by it.
		 */
		f->probe_id = trace_add_probe(t, f->sym.obj, f->sym.offset,
					      trace_func_is_sync(f) ?
					      ISPOT_PROBE_BOTH : flags,
					      0, f->sym.name);
		if (!f->probe_id ||
		    trace_pipe_probe(t, f->probe_id, i, TRACE_PROBE_FUNC,
				     trace_func_is_sync(f)))
			return -1;
	}
	return 0;
}

bool trace_lib_note(const struct trace *t, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < t->nr_funcs && used < len; i++) {
		const struct elf_target_sym *s = &t->funcs[i].sym;
		const char *base = strrchr(s->obj, '/');

		if (!(s->flags & ELF_SYM_IN_LIB))
			continue;
		used += (size_t)snprintf(buf + used, len - used,
					 "%s%s found in %s", used ? "; " : "",
					 s->name, base ? base + 1 : s->obj);
	}
	/* Cut short: say so rather than end mid-name. */
	if (used >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf[0] != '\0';
}

void trace_funcs_free(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nr_funcs; i++) {
		if (t->funcs[i].block) {
			elf_block_free(t->funcs[i].block);
			free(t->funcs[i].block);
		}
	}
	free(t->funcs);
	t->funcs = NULL;
	t->nr_funcs = t->cap_funcs = 0;
}

/*
 * --baseline must give some traced function solo calls: else it is the
 * wrong recording, or one made without a moment alone (an error; a note
 * with --auto, whose picks the baseline could not know).
 */
static int trace_check_baseline(const struct trace *t)
{
	char msg[PATH_MAX + 160];

	if (!t->baseline ||
	    baseline_matches(t->baseline, t->funcs, t->nr_funcs, NULL))
		return 0;
	snprintf(msg, sizeof(msg), "--baseline %s has no solo calls of any "
		 "traced function keyed as here: record it with the same "
		 "--func and --key and one worker of the program",
		 t->baseline->path);
	if (t->opts->auto_pick) {
		ispot_say("note: %s", msg);
		return 0;
	}
	ispot_error("%s", msg);
	return -1;
}

int trace_check_keys(const struct trace *t)
{
	struct key_target *fs = calloc(t->nr_funcs + 1, sizeof(*fs));
	char err[512];
	size_t i;

	if (!fs) {
		ispot_error("out of memory checking --key");
		return -1;
	}
	for (i = 0; i < t->nr_funcs; i++)
		fs[i] = (struct key_target){ t->funcs[i].sym.obj,
			t->funcs[i].sym.name, t->funcs[i].sym.linkage_name };
	i = trace_opts_unmatched_key(t->opts, fs, t->nr_funcs, err,
				     sizeof(err));
	free(fs);
	if (!i)
		return trace_check_baseline(t);
	if (t->opts->auto_pick) {
		ispot_say("note: %s", err);
		return trace_check_baseline(t);
	}
	ispot_error("%s", err);
	return -1;
}

void trace_say_gone(const struct trace *t, pid_t pid)
{
	if (!t->opts->gone_quiet)
		ispot_error("process %d exited before tracing started",
			    (int)pid);
}
