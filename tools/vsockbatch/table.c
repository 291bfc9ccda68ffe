// SPDX-License-Identifier: GPL-2.0
/* table.c - text tables that fit a width (see table.h). */
#include <stdio.h>
#include <string.h>

#include "table.h"

void vb_table_init(struct vb_table *t, const struct vb_col *cols, int ncols)
{
	int c, len;

	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols < VB_TABLE_MAX_COLS ? ncols : VB_TABLE_MAX_COLS;
	for (c = 0; c < t->ncols; c++) {
		t->shown[c] = true;
		len = (int)strlen(cols[c].title);
		t->width[c] = cols[c].width > len ? cols[c].width : len;
	}
}

void vb_table_fit_cell(struct vb_table *t, int c, const char *text)
{
	int len = (int)strlen(text);

	if (c >= 0 && c < t->ncols && len > t->width[c])
		t->width[c] = len;
}

int vb_table_width(const struct vb_table *t)
{
	int c, w = 0;

	for (c = 0; c < t->ncols; c++)
		if (t->shown[c])
			w += (w ? 1 : 0) + t->width[c];
	return w;
}

void vb_table_fit(struct vb_table *t, int width, int pinned)
{
	int keep, c;

	for (keep = 1; width > 0 && vb_table_width(t) > width &&
		       keep <= VB_TABLE_MAX_COLS; keep++)
		for (c = 0; c < t->ncols; c++)
			if (t->cols[c].keep == keep && c != pinned &&
			    t->shown[c]) {
				t->shown[c] = false;
				t->ndropped++;
			}
}

void vb_table_row(const struct vb_table *t, char *buf, size_t n,
		  const char *const *cells, int hl_col, int *hl_at,
		  int *hl_len)
{
	size_t at = 0;
	int c, w;

	if (!n)
		return;
	buf[0] = 0;
	if (hl_at) {
		*hl_at = -1;
		*hl_len = 0;
	}
	for (c = 0; c < t->ncols && at < n; c++) {
		if (!t->shown[c])
			continue;
		if (at)
			at += (size_t)snprintf(buf + at, n - at, " ");
		if (at >= n)
			break;
		if (c == hl_col && hl_at) {
			*hl_at = (int)at;
			*hl_len = t->width[c];
		}
		w = t->cols[c].left ? -t->width[c] : t->width[c];
		at += (size_t)snprintf(buf + at, n - at, "%*s", w,
				       cells ? cells[c] : t->cols[c].title);
	}
}
