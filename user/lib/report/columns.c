// SPDX-License-Identifier: GPL-2.0
/* The column engine of the text tables; see columns.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report/columns.h"

void columns_init(struct columns *t, const struct column *col, int nr,
		  bool trim, bool cut)
{
	int i;

	memset(t, 0, sizeof(*t));
	t->col = col;
	t->nr = nr < COLUMNS_MAX ? nr : COLUMNS_MAX;
	t->trim = trim;
	t->cut = cut;
	for (i = 0; i < t->nr; i++) {
		t->on[i] = true;
		t->width[i] = col[i].width;
	}
}

void columns_headers(const struct columns *t, column_cell *cell)
{
	int i;

	for (i = 0; i < t->nr; i++)
		snprintf(cell[i], COLUMN_CELL_LEN, "%s",
			 t->on[i] ? t->col[i].header : "");
}

void columns_cells(const struct columns *t, const void *row,
		   column_cell *cell)
{
	int i;

	for (i = 0; i < t->nr; i++) {
		cell[i][0] = '\0';
		if (t->on[i] && t->col[i].print)
			t->col[i].print(&t->col[i], row, cell[i],
					COLUMN_CELL_LEN);
	}
}

/* The last column the line shows: no padding after it. */
static int last_cell(const struct columns *t, column_cell *cell)
{
	int last = t->nr - 1;

	while (last > 0 && (!t->on[last] || (t->trim && !cell[last][0])))
		last--;
	return last;
}

void columns_measure(struct columns *t, column_cell *cell)
{
	int i, last = last_cell(t, cell);

	for (i = 0; i <= last; i++) {
		int w = (int)strlen(cell[i]);

		if (!t->on[i] || (i == last && t->col[i].left))
			continue;
		if (w > t->width[i])
			t->width[i] = w;
	}
}

int columns_offset(const struct columns *t, int id)
{
	int i, x = 0;

	for (i = 0; i < id && i < t->nr; i++)
		if (t->on[i])
			x += t->width[i] + COLUMN_GAP;
	return x;
}

/* snprintf at @buf + *@used, which stays below @len. */
static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used = *used + n < len ? *used + n : len - 1;
}

char *columns_line(const struct columns *t, column_cell *cell, char *buf,
		   size_t len)
{
	int i, last = last_cell(t, cell);
	bool first = true;
	size_t used = 0;

	buf[0] = '\0';
	for (i = 0; i <= last; i++) {
		const char *s = cell[i];
		int w = t->width[i];

		if (!t->on[i])
			continue;
		if (!first)
			append(buf, len, &used, "%*s", COLUMN_GAP, "");
		first = false;
		if (t->cut && (int)strlen(s) > w)
			/* Say so: the end of a name is often what differs. */
			append(buf, len, &used, "%.*s~", w - 1, s);
		else if (i == last && t->col[i].left)
			append(buf, len, &used, "%s", s);
		else
			append(buf, len, &used, t->col[i].left ? "%-*s" :
			       "%*s", w, s);
	}
	return buf;
}
