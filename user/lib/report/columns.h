/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The column engine of the text tables: `ispotctl`'s report table
 * (report_table.c) and the screen of `ispotctl top` (top/topview.c).
 *
 * Columns are data, as uftrace's display fields are: an id (the column's
 * index in its table), a header, a width and an alignment, and a print
 * function that writes one row's cell.  A row is laid out as cells first,
 * so that a measuring pass can widen the columns before a second pass
 * prints them (the report), or a layout can give fixed widths and drop
 * columns that do not fit (top).
 *
 * A line holds the cells of the shown columns, two blanks apart: names
 * (left) padded on the right, figures on the left, except that a name
 * that ends the line is not padded, so no line ends in blanks.
 */
#ifndef ISPOT_COLUMNS_H
#define ISPOT_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#define COLUMNS_MAX		16
#define COLUMN_CELL_LEN		512	/* longer cells are cut */
#define COLUMN_GAP		2
#define COLUMNS_LINE_LEN	(COLUMNS_MAX * (COLUMN_CELL_LEN + COLUMN_GAP))

typedef char column_cell[COLUMN_CELL_LEN];

struct column;

/* Write @row's cell of column @c into @buf[len]. */
typedef void column_print_fn(const struct column *c, const void *row,
			     char *buf, size_t len);

struct column {
	int id;			/* its index in the table */
	const char *header;
	int width;		/* the width it starts from */
	bool left;		/* names read from the left, figures right */
	int drop;		/* 0: always shown, else highest goes first */
	column_print_fn *print;
};

/* A table's entry for column @id: COLUMN(id, header, width, left, drop, print) */
#define COLUMN(id, ...)	[id] = { id, __VA_ARGS__ }

/* A table: its columns, and which are shown and how wide. */
struct columns {
	const struct column *col;
	int nr;
	bool on[COLUMNS_MAX];
	int width[COLUMNS_MAX];
	bool trim;	/* a line ends at its last non-empty cell */
	bool cut;	/* a cell wider than its column is cut, with a '~' */
};

/* Every column shown, at its own width. */
void columns_init(struct columns *t, const struct column *col, int nr,
		  bool trim, bool cut);
/* The header row's cells; the hidden columns' are empty. */
void columns_headers(const struct columns *t, column_cell *cell);
/* @row's cells, by the columns' print functions. */
void columns_cells(const struct columns *t, const void *row,
		   column_cell *cell);
/*
 * Widen the columns to fit @cell, but for a name that ends its line: it
 * may run past its column (a long key label then does not push what
 * follows it in other rows to the right).
 */
void columns_measure(struct columns *t, column_cell *cell);
/* Where column @id starts in a line. */
int columns_offset(const struct columns *t, int id);
/* The line of @cell into @buf[len] (COLUMNS_LINE_LEN holds any); @buf. */
char *columns_line(const struct columns *t, column_cell *cell, char *buf,
		   size_t len);

#endif /* ISPOT_COLUMNS_H */
