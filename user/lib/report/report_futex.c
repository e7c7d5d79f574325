// SPDX-License-Identifier: GPL-2.0
/*
 * The contended-futex part of the reports, text and JSON: per futex word,
 * the wait time, the functions that waited and the functions whose wakes
 * ended the waits (the critical sections that held the lock).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/json.h"
#include "report/report.h"
#include "analysis/timeline.h"

/* Its own copy while the entries move: function may point into one. */
static const char *waker_label(const struct report_waker *w)
{
	return w->caller[0] ? w->caller : w->function ? w->function : "";
}

static int cmp_waker(const void *a, const void *b)
{
	const struct report_waker *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	return strcmp(waker_label(x), waker_label(y));
}

/* @out[@k]'s name: a traced function's, or its call site's caller's. */
static const char *waker_name(struct report_waker *out, uint32_t k,
			      const struct timeline_waker *w,
			      report_func_name_fn name, const void *ctx,
			      report_frame_fn caller, void *caller_ctx)
{
	out[k].caller[0] = 0;
	if (w->func == TL_WAKER_OTHER)
		return "(other)";
	if (w->func != TL_NO_FUNC)
		return name(ctx, w->func);
	/* Without its offset, so that all of one function's wakes add up. */
	if (w->callsite && caller &&
	    caller(caller_ctx, w->callsite, false, out[k].caller,
		   sizeof(out[k].caller)) > 0)
		return out[k].caller;
	return NULL;
}

size_t report_wakers(struct report_waker *out,
		     const struct timeline_wakers *tw,
		     report_func_name_fn name, const void *ctx,
		     report_frame_fn caller, void *caller_ctx)
{
	const char *s;
	uint32_t k, i, n = 0;

	for (k = 0; k < tw->nr; k++) {
		s = waker_name(out, n, &tw->w[k], name, ctx, caller,
			       caller_ctx);
		if (!s)
			s = "(untraced)";
		for (i = 0; i < n && strcmp(out[i].function, s); i++)
			;
		if (i < n) {
			out[i].wait_ns += tw->w[k].wait_ns;
			continue;
		}
		out[n].function = s;
		out[n].wait_ns = tw->w[k].wait_ns;
		n++;
	}
	if (n)
		qsort(out, n, sizeof(*out), cmp_waker);
	/* The sort moved the names held in the entries themselves. */
	for (k = 0; k < n; k++)
		if (out[k].caller[0])
			out[k].function = out[k].caller;
	return n;
}

/* Shares are of the waits that were woken, so they add up to 100%. */
static uint64_t woken_ns(const struct report_futex *x)
{
	uint64_t sum = 0;
	size_t k;

	for (k = 0; k < x->nr_woken_from; k++)
		sum += x->woken_from[k].wait_ns;
	return sum;
}

static double waker_share(const struct report_waker *w, uint64_t sum)
{
	return sum ? (double)w->wait_ns / (double)sum : 0.0;
}

/* Whether a waker is named: a traced function or a call site's caller. */
static bool waker_named(const struct report_waker *w)
{
	return w->function && strcmp(w->function, "(untraced)") &&
	       strcmp(w->function, "(other)");
}

/* Whether the line of @x says "woken from": it names someone, or --all. */
static bool woken_shown(const struct report *r, const struct report_futex *x)
{
	size_t k;

	for (k = 0; k < x->nr_woken_from; k++)
		if (r->all_futexes || waker_named(&x->woken_from[k]))
			return true;
	return false;
}

static void text_futex(FILE *f, const struct report *r,
		       const struct report_futex *x)
{
	uint64_t sum = woken_ns(x);
	char wait[32];
	size_t k;

	format_ns(wait, sizeof(wait), (double)x->wait_ns);
	fprintf(f, "futex 0x%" PRIx64 "%s%s: waited %s (%" PRIu64
		" wait%s, %" PRIu32 " thread%s)", x->address,
		x->symbol && x->symbol[0] ? " " : "",
		x->symbol ? x->symbol : "", wait, x->waits,
		x->waits == 1 ? "" : "s", x->threads,
		x->threads == 1 ? "" : "s");
	for (k = 0; k < x->nr_functions; k++)
		fprintf(f, "%s%s", k ? ", " : " in ",
			x->functions[k] ?
			report_label(r, x->functions[k]) : "?");
	for (k = 0; woken_shown(r, x) && k < x->nr_woken_from; k++)
		fprintf(f, "%s%s (%.0f%%)", k ? ", " : "; woken from ",
			x->woken_from[k].function ?
			report_label(r, x->woken_from[k].function) : "?",
			100.0 * waker_share(&x->woken_from[k], sum));
	fputc('\n', f);
}

/*
 * By default, only the words traced functions waited on, counted in one
 * line, and "woken from" only where it names someone, with one line that
 * says what would (see report.h, all_futexes).
 */
void report_text_futexes(FILE *f, const struct report *r)
{
	size_t i, hidden = 0, unnamed = 0;
	char line[128];

	for (i = 0; i < r->nr_futexes; i++) {
		const struct report_futex *x = &r->futexes[i];

		if (!r->all_futexes && !x->nr_functions) {
			hidden++;
			continue;
		}
		unnamed += x->nr_woken_from && !woken_shown(r, x);
		text_futex(f, r, x);
	}
	if (hidden) {
		snprintf(line, sizeof(line), "%zu futex%s waited on outside "
			 "traced functions: --all-futexes shows %s", hidden,
			 hidden > 1 ? "es" : "", hidden > 1 ? "them" : "it");
		report_wrap(f, r, 0, "", line);
	}
	if (unnamed && r->sync)
		report_wrap(f, r, 0, "", "woken from untraced code (a thread's "
			    "exit wakes its joiner, a call --sync does not "
			    "cover): tracing the waking functions names them");
	else if (unnamed)
		report_wrap(f, r, 0, "", "woken from untraced code: --sync or "
			    "tracing the lock's holders names who woke them");
}

void report_json_futexes(struct json *j, const struct report *r)
{
	char addr[32];
	size_t i, k;

	json_array_begin(j, "futexes");
	for (i = 0; i < r->nr_futexes; i++) {
		const struct report_futex *x = &r->futexes[i];
		uint64_t sum = woken_ns(x);

		/* A string: JSON numbers lose 64-bit addresses in doubles. */
		snprintf(addr, sizeof(addr), "0x%" PRIx64, x->address);
		json_object_begin(j, NULL);
		json_string(j, "address", addr);
		json_string(j, "symbol", x->symbol);
		json_u64(j, "wait_ns", x->wait_ns);
		json_u64(j, "waits", x->waits);
		json_u64(j, "threads", x->threads);
		json_array_begin(j, "functions");
		for (k = 0; k < x->nr_functions; k++)
			json_string(j, NULL, x->functions[k]);
		json_array_end(j);
		json_array_begin(j, "woken_from");
		for (k = 0; k < x->nr_woken_from; k++) {
			json_object_begin(j, NULL);
			json_string(j, "function", x->woken_from[k].function);
			json_u64(j, "wait_ns", x->woken_from[k].wait_ns);
			json_double(j, "share",
				    waker_share(&x->woken_from[k], sum));
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}
