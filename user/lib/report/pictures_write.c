// SPDX-License-Identifier: GPL-2.0
/*
 * --svg DIR (pictures.h): each function's pictures as files, named from
 * the function by picture_base(), each written whole or not at all, and
 * all of them taken back on an error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/afile.h"
#include "util/array.h"
#include "util/errors.h"
#include "util/strindex.h"
#include "report/pictures.h"
#include "report/report.h"

/* The most of a function's name picture_base() reads, with the NUL. */
#define NAME_LEN	160

static bool name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '+' ||
	       c == '-';
}

/* FNV-1a, 32 bits: short, and stable from one run to the next. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

char *picture_base(const char *name, char *buf, size_t len)
{
	char clean[PICTURE_NAME_MAX + 1];
	const char *s;
	size_t n = 0;
	bool changed = false;

	for (s = name; *s && n < PICTURE_NAME_MAX; s++) {
		/* No leading '.', no "..": a name, never a path. */
		if (name_char((unsigned char)*s) &&
		    !(*s == '.' && (n == 0 || clean[n - 1] == '.'))) {
			clean[n++] = *s;
			continue;
		}
		changed = true;
		if (!n || clean[n - 1] != '_')
			clean[n++] = '_';
	}
	changed |= *s != '\0' || !n;
	clean[n] = '\0';
	if (changed)
		snprintf(buf, len, "%s-%08" PRIx32, n ? clean : "func",
			 name_hash(name));
	else
		snprintf(buf, len, "%s", clean);
	return buf;
}

/* The files this call wrote, to take back on an error. */
struct written {
	char **path;
	size_t nr, cap;
	struct strindex bases;	/* the bases taken: O(1) a look-up */
};

typedef int picture_fn(FILE *f, const struct report *r,
		       const struct picture_source *src,
		       const struct sci_result *fn, bool inline_svg);

struct picture_pass {
	picture_fn *draw;
	const struct report *r;
	const struct picture_source *src;
	const struct sci_result *fn;
};

static int picture_draw_to(FILE *f, void *ctx)
{
	const struct picture_pass *pp = ctx;

	return pp->draw(f, pp->r, pp->src, pp->fn, false);
}

/* @dir/@base.@kind.svg, whole or not at all (util/afile.h). */
static int picture_file(const char *dir, const char *base, const char *kind,
			picture_fn *draw, const struct report *r,
			const struct picture_source *src,
			const struct sci_result *fn, struct written *w)
{
	struct picture_pass pp = { draw, r, src, fn };
	char *path = NULL;
	int ret;

	if (ARRAY_RESERVE(w->path, w->cap, w->nr + 1) ||
	    asprintf(&path, "%s/%s.%s.svg", dir, base, kind) < 0) {
		path = NULL;
		ret = -ENOMEM;
	} else {
		ret = afile_write(path, picture_draw_to, &pp);
	}
	if (ret) {
		ispot_error("cannot write %s (%s): choose a writable --svg "
			    "directory", path ? path : dir, strerror(-ret));
		free(path);
		return ret;
	}
	w->path[w->nr++] = path;
	return 0;
}

int pictures_write(const char *dir, const struct report *r,
		   const struct picture_source *src)
{
	struct written w = { 0 };
	char name[NAME_LEN], base[PICTURE_BASE_LEN];
	size_t i;
	int ret = 0;

	for (i = 0; !ret && r->sci && i < r->sci->nr_funcs; i++) {
		const struct sci_result *fn = &r->sci->funcs[i];
		size_t len;

		picture_base(report_func_name(r, fn->func_id, name,
					      sizeof(name)),
			     base, sizeof(base));
		/* Two functions of one name (two objects): ids part them. */
		if (strindex_get(&w.bases, base, 0) != STRINDEX_NONE) {
			len = strlen(base);
			snprintf(base + len, sizeof(base) - len, "-%" PRIu32,
				 fn->func_id);
		}
		if (strindex_put(&w.bases, base, 0, i)) {
			ispot_error("out of memory writing the pictures");
			ret = -ENOMEM;
			break;
		}
		ret = picture_file(dir, base, "sorted", picture_sorted, r, src,
				   fn, &w) ||
		      picture_file(dir, base, "hist", picture_hist, r, src,
				   fn, &w);
	}
	for (i = 0; i < w.nr; i++) {
		if (ret)
			unlink(w.path[i]);
		free(w.path[i]);
	}
	free(w.path);
	strindex_free(&w.bases);
	return ret ? -1 : 0;
}
