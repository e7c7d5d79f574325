// SPDX-License-Identifier: GPL-2.0
/*
 * One report builder for both front ends (report.h, "Building a report"):
 * from the functions a front end knows by id, the shapes, the symbolizer
 * and the futex words of a timeline to the struct report that the
 * printers of report.h print.  What differs between ispotctl and ispotd
 * is in the source they hand over (which rule names a function's keys,
 * what its key is called, which futex words), never in a branch here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pipeline.h"
#include "analysis/shape.h"
#include "analysis/timeline.h"
#include "elf/elf.h"
#include "report/report.h"

static const struct report_source_func *
source_func(const struct report_source *src, uint32_t id)
{
	return id < src->nr_funcs ? &src->funcs[id] : NULL;
}

static const char *source_func_name(const void *ctx, uint32_t id)
{
	const struct report_source_func *f = source_func(ctx, id);

	return f ? f->name : NULL;
}

bool report_key_address(const struct key_rule *rule, uint64_t key,
			uint64_t *addr)
{
	/* An argument's key is its value plus one (0: none). */
	*addr = rule->kind == KEY_CALLSITE ? key : key - 1;
	return key_rule_by_address(rule);
}

int report_key_label(const struct key_rule *rule, struct elf_symbolizer *sym,
		     uint64_t key, char *buf, size_t len)
{
	struct elf_addr_info info;
	uint64_t v;

	if (rule->kind == KEY_SHAPE)
		return shape_key_label(NULL, key, "", NULL, NULL, buf, len);
	if (rule->kind == KEY_ARG && rule->log2) {
		/* A log2 bucket's key is its bucket plus one. */
		v = key - 1;
		return v ? snprintf(buf, len, "arg%u in [2^%llu, 2^%llu)",
				    rule->arg, (unsigned long long)v - 1,
				    (unsigned long long)v) :
			   snprintf(buf, len, "arg%u = 0", rule->arg);
	}
	report_key_address(rule, key, &v);
	if (sym && !elf_symbolize(sym, v, &info, NULL, 0) &&
	    info.kind == ELF_ADDR_SYMBOL) {
		int n = snprintf(buf, len, "%s", rule->kind == KEY_ARG ?
				 "&" : "from ");

		return n + elf_addr_format(&info, buf + n, len - n);
	}
	return snprintf(buf, len, "%s0x%llx",
			rule->kind == KEY_ARG ? "" : "from ",
			(unsigned long long)v);
}

/*
 * A return address names the call instruction before it: addr - 1 is
 * looked up, so a call that ends its function (a noreturn callee) is not
 * blamed on the next one, and the offset shown is the return address's.
 */
int report_return_name(struct elf_symbolizer *sym, uint64_t addr,
		       bool offset, char *buf, size_t len)
{
	struct elf_addr_info info;

	if (!sym || !addr || elf_symbolize(sym, addr - 1, &info, NULL, 0))
		return -1;
	info.sym_off++;
	info.vaddr++;
	if (!offset && info.kind == ELF_ADDR_SYMBOL)
		return snprintf(buf, len, "%s", info.sym);
	return elf_addr_format(&info, buf, len);
}

/* report_key_fn: shape keys by the shapes seen, the rest by the rule. */
static int source_key_name(void *ctx, uint32_t func_id, uint64_t key,
			   char *buf, size_t len)
{
	const struct report_source *src = ctx;
	const struct report_source_func *f = source_func(src, func_id);

	if (!f)
		return -1;
	if (f->rule->kind == KEY_SHAPE)
		return shape_key_label(src->shapes, key, f->name,
				       source_func_name, src, buf, len);
	return report_key_label(f->rule, src->sym, key, buf, len);
}

/* report_frame_fn: call stacks' and wakers' return addresses. */
static int source_frame_name(void *ctx, uint64_t addr, bool offset,
			     char *buf, size_t len)
{
	const struct report_source *src = ctx;

	return report_return_name(src->sym, addr, offset, buf, len);
}

/* report_frame_fn: the object of a return address, by its file's name. */
static int source_frame_object(void *ctx, uint64_t addr, bool offset,
			       char *buf, size_t len)
{
	const struct report_source *src = ctx;
	struct elf_addr_info info;
	const char *base;

	(void)offset;
	if (!src->sym || !addr ||
	    elf_symbolize(src->sym, addr - 1, &info, NULL, 0) ||
	    info.kind > ELF_ADDR_FILE)
		return -1;
	base = strrchr(info.obj, '/');
	return snprintf(buf, len, "%s", base ? base + 1 : info.obj);
}

/* What the report says of each function id, its shape note included. */
static void build_funcs(struct report_build *b)
{
	const struct report_source *src = b->src;
	size_t i;

	for (i = 0; i < src->nr_funcs; i++) {
		const struct report_source_func *f = &src->funcs[i];
		struct report_func *rf = &b->funcs[i];
		char *note = b->shape_notes + i * SHAPE_NOTE_LEN;

		rf->name = f->name;
		rf->linkage_name = f->linkage_name;
		rf->object = f->object;
		rf->key = f->key_desc;
		rf->key_auto = f->key_auto;
		if (shape_note(src->shapes, i, f->name,
			       f->rule->kind == KEY_SHAPE,
			       f->rule->kind == KEY_NONE, source_func_name,
			       src, &rf->shapes_differ, note, SHAPE_NOTE_LEN))
			rf->shape_note = note;
	}
}

/* Futex word @i: its figures, its symbol, who waited and who woke. */
static void build_futex(struct report_build *b, size_t i,
			const char **waiters)
{
	const struct report_source *src = b->src;
	const struct timeline_futex *f = &src->futexes[i];
	struct report_futex *rf = &b->futexes[i];
	struct report_waker *wk = b->wakers + i * (TL_WAKERS + 1);
	char *name = b->futex_names + i * ELF_SYM_NAME_MAX;
	struct elf_addr_info info;
	size_t j, n = 0;

	rf->address = f->uaddr;
	rf->wait_ns = f->wait_ns;
	rf->waits = f->waits;
	rf->threads = f->threads;
	if (src->sym && !elf_symbolize(src->sym, f->uaddr, &info, NULL, 0))
		elf_addr_format(&info, name, ELF_SYM_NAME_MAX);
	rf->symbol = name;
	for (j = 0; j < f->nr_funcs; j++)
		if (source_func(src, f->funcs[j]))
			waiters[n++] = src->funcs[f->funcs[j]].name;
	rf->functions = waiters;
	rf->nr_functions = n;
	rf->woken_from = wk;
	rf->nr_woken_from = report_wakers(wk, &f->woken_from,
					  source_func_name, src,
					  source_frame_name, (void *)src);
}

/* The futex words waited on, named like the user's variables. */
static void build_futexes(struct report_build *b)
{
	const char **waiters = b->futex_funcs;
	size_t i;

	for (i = 0; i < b->src->nr_futexes; i++) {
		build_futex(b, i, waiters);
		waiters += b->futexes[i].nr_functions;
	}
}

static int build_alloc(struct report_build *b)
{
	const struct report_source *src = b->src;
	size_t i, nr_waiters = 0;

	for (i = 0; i < src->nr_futexes; i++)
		nr_waiters += src->futexes[i].nr_funcs;
	/* +1: calloc(0) may return NULL, which would read as a failure. */
	b->funcs = calloc(src->nr_funcs + 1, sizeof(*b->funcs));
	b->shape_notes = calloc(src->nr_funcs + 1, SHAPE_NOTE_LEN);
	b->futexes = calloc(src->nr_futexes + 1, sizeof(*b->futexes));
	b->futex_names = calloc(src->nr_futexes + 1, ELF_SYM_NAME_MAX);
	b->futex_funcs = calloc(nr_waiters + 1, sizeof(*b->futex_funcs));
	b->wakers = calloc(src->nr_futexes * (TL_WAKERS + 1) + 1,
			   sizeof(*b->wakers));
	return b->funcs && b->shape_notes && b->futexes && b->futex_names &&
	       b->futex_funcs && b->wakers ? 0 : -ENOMEM;
}

int report_build(struct report_build *b, const struct report_source *src,
		 struct report *r)
{
	memset(b, 0, sizeof(*b));
	b->src = src;
	if (build_alloc(b)) {
		report_build_free(b);
		return -ENOMEM;
	}
	build_funcs(b);
	build_futexes(b);
	r->funcs = b->funcs;
	r->nr_funcs = src->nr_funcs;
	r->key_name = source_key_name;
	r->key_ctx = (void *)src;
	r->frame_name = source_frame_name;
	r->frame_object = source_frame_object;
	r->frame_ctx = (void *)src;
	r->futexes = b->futexes;
	r->nr_futexes = src->nr_futexes;
	return 0;
}

void report_build_free(struct report_build *b)
{
	free(b->funcs);
	free(b->shape_notes);
	free(b->futexes);
	free(b->futex_names);
	free(b->futex_funcs);
	free(b->wakers);
	memset(b, 0, sizeof(*b));
}
