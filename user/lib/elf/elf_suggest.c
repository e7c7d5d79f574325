// SPDX-License-Identifier: GPL-2.0
/*
 * Near matches for a function name that is not there, for the "did you
 * mean" part of the error.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "elf/demangle.h"
#include "elf/elf_internal.h"

#define MAX_SUGGEST		3

/* Levenshtein distance, case-insensitive; names past 255 chars are "far". */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[256];

	if (la > 255 || lb > 255)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

struct suggestion {
	const char *name;
	size_t dist;
};

/*
 * Append "; did you mean: a, b, c?" for the function names closest to
 * what was asked: within an edit distance of a third of its length, or
 * containing it.  Glob characters are dropped from the query first.
 */
void elf_suggest(const struct elf_obj *o, const char *pattern,
		 char *msg, size_t msglen)
{
	struct suggestion best[MAX_SUGGEST];
	size_t nbest = 0, qlen = 0, maxd, i, k, used;
	char q[256];

	for (i = 0; pattern[i] && pattern[i] != '@' && qlen < sizeof(q) - 1;
	     i++)
		if (!strchr("*?[]\\", pattern[i]))
			q[qlen++] = pattern[i];
	q[qlen] = '\0';
	if (!qlen)
		return;
	maxd = qlen / 3 ? qlen / 3 : 1;

	for (i = 0; i < o->nsyms; i++) {
		const struct esym *s = &o->syms[i];
		struct suggestion c = { s->name, 0 };
		const char *dem, *cmp = s->name;
		char bare[256];
		bool dup = false;

		if (!esym_is_func(s))
			continue;
		/* C++: offer the demangled name, judged without parameters. */
		dem = elf_sym_demangled(o, s);
		if (dem && demangle_bare_len(dem) < sizeof(bare)) {
			memcpy(bare, dem, demangle_bare_len(dem));
			bare[demangle_bare_len(dem)] = '\0';
			cmp = bare;
			c.name = dem;
		}
		c.dist = edit_distance(q, cmp);
		if (c.dist > maxd && !(qlen >= 3 && strcasestr(cmp, q)))
			continue;
		for (k = 0; k < nbest; k++)
			dup |= !strcmp(best[k].name, c.name);
		if (dup)
			continue;
		/* Insertion into a sorted top-N by (distance, name). */
		for (k = nbest; k > 0; k--) {
			const struct suggestion *p = &best[k - 1];

			if (p->dist < c.dist ||
			    (p->dist == c.dist && strcmp(p->name, c.name) < 0))
				break;
			if (k < MAX_SUGGEST)
				best[k] = *p;
		}
		if (k < MAX_SUGGEST) {
			best[k] = c;
			if (nbest < MAX_SUGGEST)
				nbest++;
		}
	}
	if (!nbest)
		return;
	used = strlen(msg);
	for (k = 0; k < nbest && used < msglen; k++) {
		snprintf(msg + used, msglen - used, "%s%s%s",
			 k ? ", " : "; did you mean: ", best[k].name,
			 k == nbest - 1 ? "?" : "");
		used += strlen(msg + used);
	}
}
