/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table.h - text tables that fit a width: columns sized to their data,
 * and when a row is still too wide, columns left out in a fixed order
 * (lowest `keep` first; keep 0 = never).  Used by top's flow table and
 * report's flow table, so both drop columns the same way.
 */
#ifndef VB_TABLE_H
#define VB_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#define VB_TABLE_MAX_COLS 16

struct vb_col {
	const char *title;
	int width;		/* minimum */
	int keep;		/* drop order, lowest first; 0 = never */
	bool left;		/* left-aligned (addresses), else right */
};

struct vb_table {
	const struct vb_col *cols;
	int ncols;
	bool shown[VB_TABLE_MAX_COLS];
	int width[VB_TABLE_MAX_COLS];
	int ndropped;
};

/* Every column shown, as wide as its minimum and its title. */
void vb_table_init(struct vb_table *t, const struct vb_col *cols, int ncols);
/* Widen column c to hold text. */
void vb_table_fit_cell(struct vb_table *t, int c, const char *text);
/*
 * Leave out columns (in keep order, never column `pinned`, -1 = none)
 * until a row fits in width (0 = no limit).  What still does not fit is
 * the caller's to cut.
 */
void vb_table_fit(struct vb_table *t, int width, int pinned);
/* Row width of the shown columns, one space apart. */
int vb_table_width(const struct vb_table *t);
/*
 * One row of the shown columns into buf: cells[c] for each column (NULL:
 * the titles).  hl_at, hl_len (if hl_at): where column hl_col starts and
 * how wide it is, -1/0 when it is not shown.
 */
void vb_table_row(const struct vb_table *t, char *buf, size_t n,
		  const char *const *cells, int hl_col, int *hl_at,
		  int *hl_len);

#endif
