// SPDX-License-Identifier: GPL-2.0
/* Choosing functions from a cpu-clock sample; see autopick.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/autopick.h"
#include "util/array.h"

/* x86's LOCK prefix: uprobes refuse to single-step such an instruction. */
#define X86_LOCK_PREFIX		0xf0

/* The samples of one function, before it is resolved to a probe point. */
struct ap_group {
	char obj[PATH_MAX];
	char name[ELF_SYM_NAME_MAX];
	uint64_t start;		/* link-time address of the function */
	uint64_t samples;
};

static int group_cmp(const void *a, const void *b)
{
	const struct ap_group *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Whether @info names a function a probe can sit on at all. */
static bool probeable_code(const struct elf_addr_info *info)
{
	/* An IFUNC symbol's code is its resolver, which runs once. */
	return info->kind == ELF_ADDR_SYMBOL && info->sym_type == STT_FUNC;
}

/*
 * Group @r's samples by the function they hit, named with @sz; the rest
 * are counted.
 */
static int group_samples(struct elf_symbolizer *sz,
			 const struct sampler_result *r,
			 struct ap_group **out, size_t *nr,
			 uint64_t *unprobeable, char *err, size_t errlen)
{
	struct ap_group *g = NULL;
	size_t i, j, n = 0, cap = 0;

	*unprobeable = 0;
	for (i = 0; i < r->nr_ips; i++) {
		struct elf_addr_info info;
		uint64_t start;

		if (elf_symbolize(sz, r->ips[i].ip, &info, NULL, 0) ||
		    !probeable_code(&info)) {
			*unprobeable += r->ips[i].count;
			continue;
		}
		start = info.vaddr - info.sym_off;
		for (j = 0; j < n; j++)
			if (g[j].start == start && !strcmp(g[j].obj, info.obj))
				break;
		if (j == n) {
			if (ARRAY_RESERVE(g, cap, n + 1))
				goto nomem;
			memset(&g[n], 0, sizeof(g[n]));
			memcpy(g[n].obj, info.obj, sizeof(g[n].obj));
			snprintf(g[n].name, sizeof(g[n].name), "%s", info.sym);
			g[n].start = start;
			n++;
		}
		g[j].samples += r->ips[i].count;
	}
	if (n)
		qsort(g, n, sizeof(*g), group_cmp);
	*out = g;
	*nr = n;
	return 0;
nomem:
	free(g);
	snprintf(err, errlen, "out of memory naming the samples");
	return -ENOMEM;
}

/* Whether the first instruction at @sym can be stepped over by uprobes. */
static bool steppable(const struct elf_target_sym *sym)
{
	unsigned char c = 0;
	int fd = elf_open_regular(sym->obj, NULL, NULL, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = pread(fd, &c, 1, sym->offset) == 1 && c != X86_LOCK_PREFIX;
	close(fd);
	return ok;
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
		    !(syms[i].flags & ELF_SYM_IFUNC) && steppable(&syms[i])) {
			*out = syms[i];
			ret = 0;
			break;
		}
	}
	free(syms);
	return ret;
}

/* autopick_choose(), naming the samples with @sz. */
static int choose_named(struct elf_symbolizer *sz,
			const struct sampler_result *r, uint32_t top,
			struct autopick *a, char *err, size_t errlen)
{
	struct ap_group *g = NULL;
	size_t i, n = 0;
	int ret;

	memset(a, 0, sizeof(*a));
	a->samples = r->samples;
	a->top = top;
	ret = group_samples(sz, r, &g, &n, &a->unprobeable, err, errlen);
	if (ret)
		return ret;
	a->funcs = calloc(n + 1, sizeof(*a->funcs));
	if (!a->funcs) {
		free(g);
		snprintf(err, errlen, "out of memory choosing functions");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct autopick_func *f = &a->funcs[a->nr];

		if (top ? a->nr == top :
		    g[i].samples < AUTOPICK_MIN_SHARE * r->samples)
			break;
		if (group_resolve(&g[i], &f->sym)) {
			a->unprobeable += g[i].samples;
			continue;
		}
		f->samples = g[i].samples;
		a->nr++;
	}
	free(g);
	return 0;
}

int autopick_choose(pid_t pid, const struct sampler_result *r, uint32_t top,
		    struct autopick *a, char *err, size_t errlen)
{
	struct elf_symbolizer *sz = elf_symbolizer_new(pid, err, errlen);
	int ret;

	memset(a, 0, sizeof(*a));
	if (!sz)
		return -ESRCH;
	ret = choose_named(sz, r, top, a, err, errlen);
	elf_symbolizer_free(sz);
	return ret;
}

/* How many of @a's functions autopick_exited() names in its advice. */
#define AUTOPICK_ADVISED	4

/*
 * @pid ended before the sampling did: what its samples said, and the
 * --func options that trace it next time, as one line in @err.
 */
static void autopick_exited(pid_t pid, uint64_t duration_ns,
			    const struct autopick *a, char *err,
			    size_t errlen)
{
	size_t i, off;

	off = snprintf(err, errlen, "pid %d exited before the %.1fs of --auto "
		       "sampling ended", (int)pid, duration_ns / 1e9);
	if (!a->nr) {
		snprintf(err + off, off < errlen ? errlen - off : 0,
			 ", with %llu samples in functions a probe can time: "
			 "lower --auto-time, or name functions with --func",
			 (unsigned long long)(a->samples - a->unprobeable));
		return;
	}
	off += snprintf(err + off, off < errlen ? errlen - off : 0,
			"; of its %llu samples,",
			(unsigned long long)a->samples);
	for (i = 0; i < a->nr && i < AUTOPICK_ADVISED; i++)
		off += snprintf(err + off, off < errlen ? errlen - off : 0,
				"%s %s %.0f%%", i ? "," : "",
				a->funcs[i].sym.name,
				100.0 * a->funcs[i].samples / a->samples);
	off += snprintf(err + off, off < errlen ? errlen - off : 0,
			": run it again with");
	for (i = 0; i < a->nr && i < AUTOPICK_ADVISED; i++)
		off += snprintf(err + off, off < errlen ? errlen - off : 0,
				" --func '%s'", a->funcs[i].sym.name);
	snprintf(err + off, off < errlen ? errlen - off : 0,
		 " instead of --auto");
}

int autopick_sample(pid_t pid, uint64_t duration_ns, uint32_t top,
		    struct autopick *a, char *err, size_t errlen)
{
	struct elf_symbolizer *sz;
	struct sampler_result r;
	char sz_err[256];
	int ret;

	memset(a, 0, sizeof(*a));
	/*
	 * The mappings are read now, while the process lives: one that ends
	 * before the sampling does can still have its samples named.
	 */
	sz = elf_symbolizer_new(pid, sz_err, sizeof(sz_err));
	ret = sampler_run(pid, duration_ns, &r, err, errlen);
	if (!ret && !sz && !r.exited) {
		snprintf(err, errlen, "%s", sz_err);
		ret = -ESRCH;
	}
	if (!ret && sz && r.samples)
		ret = choose_named(sz, &r, top, a, err, errlen);
	if (!ret && r.exited) {
		autopick_exited(pid, duration_ns, a, err, errlen);
		ret = -ESRCH;
	}
	if (!ret && !r.samples) {
		snprintf(err, errlen, "pid %d ran no user code in %.1fs of "
			 "sampling (idle?): run --auto while it is busy, "
			 "raise --auto-time, or name functions with --func",
			 (int)pid, duration_ns / 1e9);
		ret = -ENODATA;
	}
	if (!ret && !a->nr) {
		snprintf(err, errlen, "none of pid %d's %llu samples fell in "
			 "a function a probe can time (vdso, PLT or code "
			 "without symbols): name functions with --func",
			 (int)pid, (unsigned long long)r.samples);
		ret = -ENODATA;
	}
	a->duration_ns = duration_ns;
	elf_symbolizer_free(sz);
	sampler_result_free(&r);
	return ret;
}

void autopick_print(FILE *f, pid_t pid, const struct autopick *a)
{
	const char *s = a->nr == 1 ? "" : "s";
	size_t i;

	if (a->top)
		fprintf(f, "auto: %llu samples of pid %d in %.1fs; tracing the "
			"%zu function%s with the most (--auto=%u):\n",
			(unsigned long long)a->samples, (int)pid,
			a->duration_ns / 1e9, a->nr, s, a->top);
	else
		fprintf(f, "auto: %llu samples of pid %d in %.1fs; tracing the "
			"%zu function%s with at least %.0f%% of them:\n",
			(unsigned long long)a->samples, (int)pid,
			a->duration_ns / 1e9, a->nr, s,
			AUTOPICK_MIN_SHARE * 100);
	for (i = 0; i < a->nr; i++)
		fprintf(f, "  %5.1f%%  %s (%s)\n",
			100.0 * a->funcs[i].samples / a->samples,
			a->funcs[i].sym.name,
			strrchr(a->funcs[i].sym.obj, '/') ?
			strrchr(a->funcs[i].sym.obj, '/') + 1 :
			a->funcs[i].sym.obj);
	if (a->unprobeable)
		fprintf(f, "  %5.1f%%  in code no probe can time (vdso, PLT, "
			"no symbol)\n", 100.0 * a->unprobeable / a->samples);
}

void autopick_free(struct autopick *a)
{
	free(a->funcs);
	memset(a, 0, sizeof(*a));
}
