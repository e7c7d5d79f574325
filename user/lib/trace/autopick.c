// SPDX-License-Identifier: GPL-2.0
/* Choosing functions from a cpu-clock sample; see autopick.h. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trace/autopick_internal.h"
#include "util/format.h"
#include "trace/offprof.h"
#include "trace/trace.h"
#include "trace/wall_folded.h"
#include "trace/wall_path.h"
#include "util/array.h"
#include "util/errors.h"

static int group_cmp(const void *a, const void *b)
{
	const struct ap_group *x = a, *y = b;
	uint64_t wx = autopick_group_ns(x), wy = autopick_group_ns(y);

	if (wx != wy)
		return wx < wy ? 1 : -1;
	return strcmp(x->name, y->name);
}

uint64_t autopick_group_ns(const struct ap_group *g)
{
	uint64_t ns = g->samples * SAMPLER_PERIOD_NS;
	int k;

	for (k = 0; k < WALL_NR_KINDS; k++)
		if (k != WALL_SLEEP)
			ns += g->off_ns[k];
	return ns;
}

struct ap_group *autopick_group(struct ap_groups *gs,
				const struct elf_addr_info *info)
{
	uint64_t start = info->vaddr - info->sym_off;
	struct ap_group *g;
	size_t j;

	for (j = 0; j < gs->n; j++)
		if (gs->g[j].start == start && !strcmp(gs->g[j].obj, info->obj))
			return &gs->g[j];
	if (ARRAY_RESERVE(gs->g, gs->cap, gs->n + 1))
		return NULL;
	g = &gs->g[gs->n++];
	memset(g, 0, sizeof(*g));
	memcpy(g->obj, info->obj, sizeof(g->obj));
	snprintf(g->name, sizeof(g->name), "%s", info->sym);
	g->start = start;
	return g;
}

/*
 * Group @r's samples by the function they hit, named with @sz; the rest
 * are counted.
 */
static int group_samples(struct elf_symbolizer *sz,
			 const struct sampler_result *r, struct ap_groups *gs,
			 uint64_t *unprobeable)
{
	struct ap_group *g;
	size_t i;

	*unprobeable = 0;
	for (i = 0; i < r->nr_ips; i++) {
		struct elf_addr_info info;

		if (elf_symbolize(sz, r->ips[i].ip, &info, NULL, 0) ||
		    !wall_probeable(&info)) {
			*unprobeable += r->ips[i].count;
			continue;
		}
		g = autopick_group(gs, &info);
		if (!g)
			return -ENOMEM;
		g->samples += r->ips[i].count;
	}
	return 0;
}

/* The probe point for @g, or -ENOENT when none can be had. */
static int group_resolve(const struct ap_group *g, struct elf_target_sym *out)
{
	struct elf_target_sym *syms;
	size_t i, n;
	int ret = -ENOENT;

	if (elf_resolve_file(g->obj, g->name, &syms, &n, NULL, 0))
		return -ENOENT;
	/* A name several local functions share: the one sampled. */
	for (i = 0; i < n; i++) {
		if (syms[i].vaddr == g->start &&
		    !(syms[i].flags & ELF_SYM_IFUNC) &&
		    trace_sym_steppable(&syms[i])) {
			*out = syms[i];
			ret = 0;
			break;
		}
	}
	free(syms);
	return ret;
}

/*
 * Whether @sz's current snapshot, read as the sampling ended, maps the
 * file @obj: not where a library was unloaded during the sampling (its
 * samples named from the snapshot kept from its start).  By path, as a
 * group knows its object: a library replaced at its path during the
 * sampling reads as mapped.
 */
static bool mapped_at_end(const struct elf_symbolizer *sz, const char *obj)
{
	size_t i, n;
	const struct elf_map *maps = elf_symbolizer_maps(sz, &n);

	for (i = 0; i < n; i++)
		if (!strcmp(maps[i].path, obj))
			return true;
	return false;
}

/* What @g's evidence makes of @f. */
static void group_to_func(const struct ap_group *g, struct autopick_func *f)
{
	f->samples = g->samples;
	memcpy(f->off_ns, g->off_ns, sizeof(f->off_ns));
	memcpy(f->partner, g->partner, sizeof(f->partner));
	f->waits = g->waits;
	f->wall_ns = autopick_group_ns(g);
}

/* autopick_choose(), naming the samples and stacks with @sz. */
static int choose_named(struct elf_symbolizer *sz,
			const struct sampler_result *r,
			const struct wallprof *wp, uint32_t top,
			struct autopick *a, char *err, size_t errlen)
{
	struct ap_groups gs = { 0 };
	size_t i;
	int k;

	a->samples = r->samples;
	a->top = top;
	if (group_samples(sz, r, &gs, &a->unprobeable) ||
	    (wp && autopick_add_offcpu(sz, wp, &gs, a)))
		goto nomem;
	/* Every on-CPU sample, and every off-CPU wait that is not idle. */
	a->wall_ns = r->samples * SAMPLER_PERIOD_NS;
	for (k = 0; wp && k < WALL_NR_KINDS; k++)
		if (k != WALL_SLEEP)
			a->wall_ns += wp->off_ns[k];
	if (gs.n)
		qsort(gs.g, gs.n, sizeof(*gs.g), group_cmp);
	a->funcs = calloc(gs.n + 1, sizeof(*a->funcs));
	if (!a->funcs)
		goto nomem;
	for (i = 0; i < gs.n; i++) {
		struct autopick_func *f = &a->funcs[a->nr];
		uint64_t ns = autopick_group_ns(&gs.g[i]);

		/* Sorted by ns: past here no time to pick a function for. */
		if (!ns || (top ? a->nr == top :
			    ns < AUTOPICK_MIN_SHARE * a->wall_ns))
			break;
		if (group_resolve(&gs.g[i], &f->sym)) {
			a->unprobeable += gs.g[i].samples;
			continue;
		}
		group_to_func(&gs.g[i], f);
		f->unloaded = !mapped_at_end(sz, gs.g[i].obj);
		a->nr++;
	}
	free(gs.g);
	return 0;
nomem:
	free(gs.g);
	snprintf(err, errlen, "out of memory choosing functions");
	return -ENOMEM;
}

int autopick_choose(pid_t pid, const struct sampler_result *r,
		    const struct wallprof *wp, uint32_t top,
		    struct autopick *a, char *err, size_t errlen)
{
	struct elf_symbolizer *sz = elf_symbolizer_new(pid, err, errlen);
	int ret;

	memset(a, 0, sizeof(*a));
	if (!sz)
		return -ESRCH;
	/* Just read: see autopick_name_window(). */
	elf_symbolizer_reread_on_miss(sz, false);
	a->offcpu = wp != NULL;
	ret = choose_named(sz, r, wp, top, a, err, errlen);
	elf_symbolizer_free(sz);
	return ret;
}

/* A child that is exiting is given this long to become a zombie. */
#define EXIT_STATUS_WAIT_MS	100

/*
 * How @pid ended, into @how ("exited with status 3", "was killed by
 * signal 11 (Segmentation fault)"), when it is this process's child
 * (run's command; a child handed down to attach too): looked at, not
 * reaped, so that its parent still waits for it.  A child the sampler
 * saw go may still be exiting (its other threads, its mm): it is given
 * EXIT_STATUS_WAIT_MS.  Just "exited" for another's.  True when it
 * failed: a non-zero status or a signal.
 */
static bool exit_status(pid_t pid, char *how, size_t len)
{
	const struct timespec nap = { 0, 10 * 1000000L };
	siginfo_t si = { 0 };
	int i;

	snprintf(how, len, "exited");
	for (i = 0; i <= EXIT_STATUS_WAIT_MS / 10; i++) {
		/* si_pid 0: our child, not exited yet; ECHILD: not ours. */
		if (waitid(P_PID, (id_t)pid, &si,
			   WEXITED | WNOHANG | WNOWAIT))
			return false;
		if (si.si_pid == pid)
			break;
		nanosleep(&nap, NULL);
	}
	if (si.si_pid != pid)
		return false;
	if (si.si_code == CLD_EXITED) {
		snprintf(how, len, "exited with status %d", si.si_status);
		return si.si_status != 0;
	}
	snprintf(how, len, "was killed by signal %d (%s)", si.si_status,
		 strsignal(si.si_status));
	return true;
}

/* How many of @a's functions autopick_exited() names in its advice. */
#define AUTOPICK_ADVISED	4

/*
 * @pid ended before the sampling did: what the profile said, and the
 * --func options that trace it next time, as one line in @err.  The
 * shares are of the time the functions were chosen by (on-CPU samples
 * and the off-CPU waits that count, autopick_group_ns()), so a function
 * picked for its waits is not shown at 0% of the on-CPU samples.
 */
void autopick_exited(pid_t pid, uint64_t duration_ns,
		     const struct autopick *a, char *err, size_t errlen)
{
	char wall[32], how[64];
	bool failed = exit_status(pid, how, sizeof(how));
	size_t i, off;

	off = snprintf(err, errlen, "pid %d %s before the %.1fs of --auto "
		       "sampling ended", (int)pid, how, duration_ns / 1e9);
	if (!a->nr || !a->wall_ns) {
		snprintf(err + off, off < errlen ? errlen - off : 0,
			 ", with %llu samples in functions a probe can time: "
			 "%s", (unsigned long long)(a->samples - a->unprobeable),
			 failed ? "check the command, which failed on its own" :
			 "lower --auto-time, or name functions with --func");
		return;
	}
	off += snprintf(err + off, off < errlen ? errlen - off : 0,
			"; of its %s of thread time on and off the CPU,",
			format_ns(wall, sizeof(wall), (double)a->wall_ns));
	for (i = 0; i < a->nr && i < AUTOPICK_ADVISED; i++)
		off += snprintf(err + off, off < errlen ? errlen - off : 0,
				"%s %s %.0f%%", i ? "," : "",
				a->funcs[i].sym.name,
				100.0 * a->funcs[i].wall_ns / a->wall_ns);
	off += snprintf(err + off, off < errlen ? errlen - off : 0,
			": run it again with");
	for (i = 0; i < a->nr && i < AUTOPICK_ADVISED; i++)
		off += snprintf(err + off, off < errlen ? errlen - off : 0,
				" --func '%s'", a->funcs[i].sym.name);
	snprintf(err + off, off < errlen ? errlen - off : 0,
		 " instead of --auto");
}

/* Off-CPU time that is a reason to pick: every kind but idle sleep. */
static uint64_t counted_off_ns(const struct wallprof *wp)
{
	uint64_t ns = 0;
	int k;

	for (k = 0; k < WALL_NR_KINDS; k++)
		if (k != WALL_SLEEP)
			ns += wp->off_ns[k];
	return ns;
}

int autopick_name_window(struct elf_symbolizer *sz,
			 const struct sampler_result *r,
			 const struct wallprof *wp, uint32_t top,
			 struct autopick *a, char *err, size_t errlen)
{
	int ret = 0;

	/*
	 * Named from the maps as the sampling left them (the last snapshot
	 * if it is gone): read once, not once for each address outside
	 * them, which a frame read through code without frame pointers is.
	 * The window's first snapshot is kept for what they no longer map
	 * (a library unloaded meanwhile); an address the two name
	 * otherwise (another file mapped at its place) is named by
	 * neither, since either may have run there.
	 */
	elf_symbolizer_keep(sz);
	elf_symbolizer_refresh(sz, NULL, 0);
	elf_symbolizer_reread_on_miss(sz, false);
	if (r->samples || (wp && counted_off_ns(wp)))
		ret = choose_named(sz, r, wp, top, a, err, errlen);
	if (!ret && wall_folded_build(&a->wall, sz, r, wp)) {
		snprintf(err, errlen, "out of memory building the profile");
		ret = -ENOMEM;
	}
	return ret;
}

int autopick_sample(pid_t pid, uint64_t duration_ns, uint32_t top,
		    const char *folded, const volatile sig_atomic_t *stop,
		    struct autopick *a, char *err, size_t errlen)
{
	struct elf_symbolizer *sz;
	struct sampler_result r;
	struct offprof op;
	char sz_err[256], off_err[160], swap_note[64] = "";
	bool off;
	int ret;

	memset(a, 0, sizeof(*a));
	/*
	 * The mappings are read now, while the process lives: one that ends
	 * before the sampling does can still have its samples named.
	 */
	sz = elf_symbolizer_new(pid, sz_err, sizeof(sz_err));
	/* Where it waits, too, where the module can tell: else on-CPU. */
	off = !offprof_start(&op, pid, off_err, sizeof(off_err));
	ret = sampler_run(pid, duration_ns, &r, off ? offprof_round : NULL,
			  &op, stop, err, errlen);
	offprof_stop(&op);
	if (r.swapped)
		snprintf(swap_note, sizeof(swap_note), ", and %u slot%s of "
			 "idle threads went to busier ones", r.swapped,
			 r.swapped == 1 ? "" : "s");
	if (!ret && r.unsampled)
		ispot_say("note: pid %d: %u threads sampled over the run, "
			  "up to %u more at once left out (SAMPLER_MAX_THREADS:"
			  " the busiest are taken%s)", (int)pid, r.threads,
			  r.unsampled, swap_note);
	if (!ret && !sz && !r.exited && !r.stopped) {
		snprintf(err, errlen, "%s", sz_err);
		ret = -ESRCH;
	}
	if (!ret && sz)
		ret = autopick_name_window(sz, &r, off ? &op.wp : NULL, top, a,
					   err, errlen);
	if (!ret && folded)
		ret = wall_folded_write(folded, &a->wall, err, errlen);
	a->offcpu = off;
	a->off_stacks = off ? op.wp.nr_samples : 0;
	if (!off)
		snprintf(a->offcpu_note, sizeof(a->offcpu_note), "%s",
			 off_err);
	/* Stopped: what it would have picked, whatever that is. */
	if (!ret && r.stopped)
		goto out;
	if (!ret && r.exited) {
		autopick_exited(pid, duration_ns, a, err, errlen);
		ret = -ESRCH;
	}
	if (!ret && !a->wall_ns) {
		snprintf(err, errlen, "pid %d ran no user code and waited for "
			 "nothing but its own sleeps (poll, epoll_wait, "
			 "nanosleep) in %.1fs of sampling (idle?): run --auto "
			 "while it is busy, raise --auto-time, or name "
			 "functions with --func", (int)pid, duration_ns / 1e9);
		ret = -ENODATA;
	}
	if (!ret && !a->nr) {
		snprintf(err, errlen, "none of pid %d's %llu samples fell in "
			 "a function a probe can time (vdso, PLT or code "
			 "without symbols): name functions with --func",
			 (int)pid, (unsigned long long)r.samples);
		ret = -ENODATA;
	}
out:
	a->duration_ns = r.stopped ? r.stopped_after_ns : duration_ns;
	a->stopped = r.stopped;
	offprof_free(&op);
	elf_symbolizer_free(sz);
	sampler_result_free(&r);
	return ret;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Why @fn was picked: its on-CPU and off-CPU shares, and its other end. */
static void print_why(FILE *f, const struct autopick *a,
		      const struct autopick_func *fn)
{
	double wall = a->wall_ns ? (double)a->wall_ns : 1;
	const char *sep = ": ";
	int k;

	if (fn->samples) {
		fprintf(f, "%s%.0f%% on CPU", sep,
			100.0 * fn->samples * SAMPLER_PERIOD_NS / wall);
		sep = ", ";
	}
	for (k = 0; k < WALL_NR_KINDS; k++) {
		if (k == WALL_SLEEP || !fn->off_ns[k])
			continue;
		fprintf(f, "%s%.0f%% waiting (%s)", sep,
			100.0 * fn->off_ns[k] / wall, wall_kind_names[k]);
		sep = ", ";
	}
	if (fn->partner[0])
		fprintf(f, ", %s %s", fn->waits ? "via" : "waiting in",
			fn->partner);
}

void autopick_print(FILE *f, pid_t pid, const struct autopick *a)
{
	const char *s = a->nr == 1 ? "" : "s";
	double wall = a->wall_ns ? (double)a->wall_ns : 1;
	size_t i;

	fprintf(f, "auto: %llu samples of pid %d in %.1fs",
		(unsigned long long)a->samples, (int)pid,
		a->duration_ns / 1e9);
	if (a->offcpu)
		fprintf(f, ", off CPU %.2fs waiting (futex %.2fs, io %.2fs, "
			"run queue %.2fs) and %.2fs idle",
			(a->off_ns[WALL_FUTEX] + a->off_ns[WALL_IO] +
			 a->off_ns[WALL_RUNQ]) / 1e9,
			a->off_ns[WALL_FUTEX] / 1e9, a->off_ns[WALL_IO] / 1e9,
			a->off_ns[WALL_RUNQ] / 1e9, a->off_ns[WALL_SLEEP] / 1e9);
	if (a->top)
		fprintf(f, "; %s the %zu function%s with the most wall time "
			"(--auto=%u):\n", a->stopped ? "would have traced" :
			"tracing", a->nr, s, a->top);
	else
		fprintf(f, "; %s the %zu function%s with at least %.0f%% of "
			"the wall time:\n", a->stopped ? "would have traced" :
			"tracing", a->nr, s, AUTOPICK_MIN_SHARE * 100);
	if (!a->offcpu && a->offcpu_note[0])
		fprintf(f, "  (on CPU only: %s)\n", a->offcpu_note);
	if (a->samples + a->off_stacks < AUTOPICK_FEW_STACKS)
		fprintf(f, "  (only %llu stacks: the picks may be chance; a "
			"longer --auto-time takes more)\n",
			(unsigned long long)(a->samples + a->off_stacks));
	for (i = 0; i < a->nr; i++) {
		fprintf(f, "  %5.1f%%  %s (%s%s)", 100.0 * a->funcs[i].wall_ns /
			wall, a->funcs[i].sym.name,
			base_name(a->funcs[i].sym.obj),
			a->funcs[i].unloaded ? ", unloaded during sampling" :
			"");
		print_why(f, a, &a->funcs[i]);
		fputc('\n', f);
	}
	if (a->unprobeable)
		fprintf(f, "  %5.1f%%  in code no probe can time (vdso, PLT, "
			"no symbol)\n",
			100.0 * a->unprobeable * SAMPLER_PERIOD_NS / wall);
	if (a->off_unnamed_ns * 1000 >= a->wall_ns && a->off_unnamed_ns)
		fprintf(f, "  %5.1f%%  waiting where no function is named "
			"(stacks cut short)\n", 100.0 * a->off_unnamed_ns / wall);
}

void autopick_free(struct autopick *a)
{
	free(a->funcs);
	wall_lines_free(&a->wall);
	memset(a, 0, sizeof(*a));
}
