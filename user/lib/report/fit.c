// SPDX-License-Identifier: GPL-2.0
/*
 * Text that fits a terminal (report.h, "Fitting the text"): C++ names as
 * short as they can be without two traced functions reading the same,
 * and notes wrapped at word boundaries instead of cut.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/demangle.h"
#include "report/report.h"

/* Past "<", the index after its matching ">" ("->" is not one). */
static size_t skip_angles(const char *s, size_t i, size_t end)
{
	int depth = 0;

	for (; i < end; i++) {
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && (i == 0 || s[i - 1] != '-') &&
			 !--depth)
			return i + 1;
	}
	return end;
}

/* "operator" as a name component: what follows it is its own. */
static bool operator_at(const char *s, size_t i)
{
	return !strncmp(s + i, "operator", 8) && (!i || s[i - 1] == ':');
}

size_t report_short_name(const char *name, char *buf, size_t len)
{
	const char *s = demangle_skip_return(name);
	size_t bare = demangle_bare_len(s), i = 0, n = 0;

	if (!len)
		return 0;
	/* No parameter list: C, Go, a block; left as it is. */
	if (bare >= demangle_signature_len(s) || !bare)
		s = name, bare = strlen(name);
	while (i < bare && n + 1 < len) {
		if (operator_at(s, i)) {
			n += snprintf(buf + n, len - n, "%.*s",
				      (int)(bare - i), s + i);
			break;
		}
		if (s[i] == '<') {
			i = skip_angles(s, i, bare);
		} else if (!strncmp(s + i, "[abi:", 5)) {
			const char *e = memchr(s + i, ']', bare - i);

			i = e ? (size_t)(e - s) + 1 : bare;
		} else {
			buf[n++] = s[i++];
		}
	}
	if (n >= len)
		n = len - 1;
	buf[n] = '\0';
	/* Nothing left of it ("<lambda>"?): the name itself. */
	if (!n && name[0])
		return (size_t)snprintf(buf, len, "%s", name) < len ?
		       strlen(buf) : len - 1;
	return n;
}

struct label_entry {
	const char *shown;	/* the short name */
	const char *name;	/* the whole one */
	size_t idx;
};

static int cmp_label(const void *a, const void *b)
{
	const struct label_entry *x = a, *y = b;

	return strcmp(x->shown, y->shown);
}

/*
 * Entries @e[from, to) read the same: whole names for all of them unless
 * they are one name (a function in two objects, a constructor's two
 * symbols), which OBJECT tells apart.
 */
static void settle_run(struct report_labels *l, struct label_entry *e,
		       size_t from, size_t to)
{
	bool same = true;
	size_t k;

	for (k = from + 1; k < to; k++)
		same = same && !strcmp(e[k].name, e[from].name);
	for (k = from; k < to; k++)
		l->label[e[k].idx] = same ? e[k].shown : e[k].name;
}

/* Every name's short form into l->text, as entries to sort. */
static size_t label_entries(struct report_labels *l, struct label_entry *e,
			    const char *const *names, size_t n)
{
	char *text = l->text;
	size_t i, m = 0;

	for (i = 0; i < n; i++) {
		if (!names[i])
			continue;
		e[m] = (struct label_entry){ text, names[i], i };
		text += report_short_name(names[i], text,
					  strlen(names[i]) + 1) + 1;
		m++;
	}
	return m;
}

int report_labels_make(struct report_labels *l, const char *const *names,
		       size_t n, bool wide)
{
	struct label_entry *e = calloc(n + 1, sizeof(*e));
	size_t i, m, from, total = 1;

	for (i = 0; i < n; i++)
		total += names[i] ? strlen(names[i]) + 1 : 0;
	l->label = calloc(n + 1, sizeof(*l->label));
	l->text = malloc(total);
	if (!e || !l->label || !l->text) {
		free(e);
		report_labels_free(l);
		return -ENOMEM;
	}
	if (wide) {
		memcpy(l->label, names, n * sizeof(*names));
		free(e);
		return 0;
	}
	m = label_entries(l, e, names, n);
	qsort(e, m, sizeof(*e), cmp_label);
	for (from = 0; from < m; from = i) {
		for (i = from + 1; i < m && !strcmp(e[i].shown, e[from].shown);
		     i++)
			;
		settle_run(l, e, from, i);
	}
	free(e);
	return 0;
}

void report_labels_free(struct report_labels *l)
{
	free(l->label);
	free(l->text);
	l->label = NULL;
	l->text = NULL;
}

const char *report_label(const struct report *r, const char *name)
{
	size_t i;

	if (!r->labels || !name)
		return name;
	for (i = 0; i < r->nr_funcs; i++)
		if (r->funcs[i].name && r->labels[i] &&
		    (r->funcs[i].name == name ||
		     !strcmp(r->funcs[i].name, name)))
			return r->labels[i];
	return name;
}

/* Columns a wrapped note keeps for its text, moving left if need be. */
#define NOTE_MIN_ROOM	60

/* Columns a word takes: UTF-8 continuation bytes take none. */
static int columns_of(const char *s, size_t n)
{
	int w = 0;

	while (n--)
		w += ((unsigned char)*s++ & 0xc0) != 0x80;
	return w;
}

void report_wrap(FILE *f, const struct report *r, int indent,
		 const char *lead, const char *text)
{
	int width = r->note_width > 0 ? r->note_width : REPORT_NOTE_WIDTH;
	int hang, col;
	bool first = true;

	/* Under a column far right, a note would be a narrow ribbon. */
	if (indent > width - NOTE_MIN_ROOM)
		indent = width > NOTE_MIN_ROOM ? width - NOTE_MIN_ROOM : 0;
	col = indent + columns_of(lead, strlen(lead));
	hang = lead[0] ? col : indent + 2;

	fprintf(f, "%*s%s", indent, "", lead);
	while (*text) {
		size_t n = strcspn(text, " ");
		int w = columns_of(text, n);

		if (n && !first && col + 1 + w > width) {
			fprintf(f, "\n%*s", hang, "");
			col = hang;
			first = true;
		}
		if (n) {
			fprintf(f, "%s%.*s", first ? "" : " ", (int)n, text);
			col += w + !first;
			first = false;
		}
		text += n;
		text += *text == ' ';
	}
	fputc('\n', f);
}
