// SPDX-License-Identifier: GPL-2.0
/*
 * The libraries an executable loads: its DT_NEEDED closure, each name
 * searched as ld.so does (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH,
 * /etc/ld.so.cache, default directories).  What one object asks for is
 * read by elf_dso.c, the cache by elf_ldcache.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_internal.h"
#include "util/array.h"

/* A bound that keeps hostile files from making us allocate without limit. */
#define MAX_NEEDED_OBJS		512

/*
 * Search a colon-separated list (';' too for LD_LIBRARY_PATH, as ld.so
 * allows).  "$ORIGIN"/"${ORIGIN}" expand to origin; entries with other
 * substitution tokens are skipped, an empty entry is the current
 * directory.
 */
static bool search_list(const char *list, const char *seps,
			const char *origin, const char *name,
			uint16_t machine, char *out, size_t outlen)
{
	const char *p = list;

	while (p) {
		size_t len = strcspn(p, seps);
		char dir[PATH_MAX], cand[PATH_MAX];
		size_t dl = 0, i = 0;
		bool skip = false;

		while (i < len && dl < sizeof(dir) - 1) {
			size_t tl = 0;

			if (!strncmp(p + i, "$ORIGIN", 7))
				tl = 7;
			else if (!strncmp(p + i, "${ORIGIN}", 9))
				tl = 9;
			if (tl && i + tl <= len && origin) {
				dl += (size_t)snprintf(dir + dl,
						       sizeof(dir) - dl, "%s",
						       origin);
				if (dl >= sizeof(dir))
					dl = sizeof(dir) - 1;
				i += tl;
				continue;
			}
			if (p[i] == '$')
				skip = true;
			dir[dl++] = p[i++];
		}
		dir[dl] = '\0';
		if (!skip && i == len &&
		    (size_t)snprintf(cand, sizeof(cand), "%s/%s",
				     dl ? dir : ".", name) < sizeof(cand) &&
		    elf_lib_try(cand, machine, out, outlen))
			return true;
		p = p[len] ? p + len + 1 : NULL;
	}
	return false;
}

static const char *const default_lib_dirs =
	"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:"
	"/usr/lib:/lib";

/*
 * Locate needed library name for requester req, in ld.so's order.  Only
 * the requester's and the executable's DT_RPATH are consulted, not those
 * of the objects in between.
 */
static bool search_lib(const char *name, const struct elf_dso *req,
		       const struct elf_dso *exe,
		       const struct elf_ldcache *cache, uint16_t machine,
		       char *out, size_t outlen)
{
	const char *env = getenv("LD_LIBRARY_PATH");

	if (strchr(name, '/'))
		return elf_lib_try(name, machine, out, outlen);
	if (!req->runpath) {
		if (req->rpath && search_list(req->rpath, ":", req->origin,
					      name, machine, out, outlen))
			return true;
		if (req != exe && !exe->runpath && exe->rpath &&
		    search_list(exe->rpath, ":", exe->origin, name, machine,
				out, outlen))
			return true;
	}
	if (env && *env && search_list(env, ":;", exe->origin, name, machine,
				       out, outlen))
		return true;
	if (req->runpath && search_list(req->runpath, ":", req->origin, name,
					machine, out, outlen))
		return true;
	if (req->nodeflib)
		return false;
	if (elf_ldcache_lookup(cache, name, machine, out, outlen))
		return true;
	return search_list(default_lib_dirs, ":", NULL, name, machine, out,
			   outlen);
}

/*
 * Called for each DT_NEEDED entry as ld.so meets it, breadth first:
 * @found is where it is, NULL when the search path lacks it; then once
 * for the PT_INTERP loader (@name its path, @req NULL).  Nonzero stops
 * the walk and is what walk_needed() returns.
 */
typedef int (*needed_fn)(void *ctx, const char *name, const char *found,
			 const char *req);

/* The closure of @exe_path's DT_NEEDED, each object met given to @fn. */
static int walk_needed(const char *exe_path, needed_fn fn, void *ctx,
		       size_t *nobjs, char *err, size_t errlen)
{
	struct elf_dso *q = calloc(MAX_NEEDED_OBJS, sizeof(*q));
	struct elf_ldcache cache;
	char *interp = NULL, found[PATH_MAX];
	size_t nq = 0, qi, i, j;
	uint16_t machine;
	int rc;

	if (!q)
		return elf_fail(err, errlen, -ENOMEM, "out of memory");
	rc = elf_dso_load(exe_path, &q[0], &interp, &machine, err, errlen);
	if (rc) {
		free(q);
		return rc;
	}
	nq = 1;
	elf_ldcache_load(&cache);
	for (qi = 0; qi < nq && !rc; qi++) {
		for (i = 0; i < q[qi].nneeded && !rc; i++) {
			const char *name = q[qi].needed[i];
			bool ok = search_lib(name, &q[qi], &q[0], &cache,
					     machine, found, sizeof(found));
			bool seen = false;

			rc = fn(ctx, name, ok ? found : NULL, q[qi].path);
			for (j = 0; j < nq && !seen && ok; j++)
				seen = !strcmp(q[j].path, found);
			if (rc || !ok || seen || nq == MAX_NEEDED_OBJS)
				continue;
			/* An unreadable dependency just isn't walked. */
			if (!elf_dso_load(found, &q[nq], NULL, NULL, NULL, 0))
				nq++;
		}
	}
	if (!rc && interp && realpath(interp, found))
		rc = fn(ctx, interp, found, NULL);
	*nobjs = nq;
	for (i = 0; i < nq; i++)
		elf_dso_free(&q[i]);
	free(q);
	free(interp);
	elf_ldcache_free(&cache);
	return rc;
}

/* elf_find_needed()'s search: the first object short_name designates. */
struct find_needed {
	const char *short_name;
	char *out;
	size_t out_len;
	char *err;
	size_t errlen;
	bool reported;
};

static int find_needed_one(void *ctx, const char *name, const char *found,
			   const char *req)
{
	struct find_needed *fn = ctx;

	if (!elf_obj_name_matches(name, fn->short_name))
		return 0;
	if (!found) {
		elf_fail(fn->err, fn->errlen, -ENOENT,
			 "%s (needed by %s) not found in the library search path",
			 name, req);
		fn->reported = true;
		return 0;
	}
	elf_copy_str(fn->out, fn->out_len, found);
	return 1;
}

int elf_find_needed(const char *exe_path, const char *short_name,
		    char *out_path, size_t out_len, char *err, size_t errlen)
{
	struct find_needed fn = { short_name, out_path, out_len, err, errlen,
				  false };
	size_t nobjs = 0;
	int rc;

	if (!short_name || !*short_name)
		return elf_fail(err, errlen, -EINVAL, "empty object name");
	rc = walk_needed(exe_path, find_needed_one, &fn, &nobjs, err, errlen);
	if (rc == 1)
		return 0;
	if (!rc && fn.reported)
		return -ENOENT;
	if (!rc)
		rc = elf_fail(err, errlen, -ENOENT,
			      "no library matching '%s' among the %zu objects %s loads",
			      short_name, nobjs, exe_path);
	return rc;
}

/* elf_needed_list()'s gathering: each object once, in load order. */
struct needed_list {
	char **paths;
	size_t n, cap;
};

static int needed_list_add(void *ctx, const char *name, const char *found,
			   const char *req)
{
	struct needed_list *l = ctx;
	size_t i;

	(void)name;
	(void)req;
	for (i = 0; found && i < l->n; i++)
		if (!strcmp(l->paths[i], found))
			return 0;
	if (!found || l->n == MAX_NEEDED_OBJS)
		return 0;
	if (ARRAY_RESERVE(l->paths, l->cap, l->n + 1))
		return -ENOMEM;
	l->paths[l->n] = strdup(found);
	if (!l->paths[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

int elf_needed_list(const char *exe_path, char ***paths, size_t *n,
		    char *err, size_t errlen)
{
	struct needed_list l = { 0 };
	size_t nobjs;
	int rc;

	*paths = NULL;
	*n = 0;
	rc = walk_needed(exe_path, needed_list_add, &l, &nobjs, err, errlen);
	if (rc == -ENOMEM)
		elf_fail(err, errlen, rc, "out of memory");
	if (rc) {
		elf_paths_free(l.paths, l.n);
		return rc;
	}
	*paths = l.paths;
	*n = l.n;
	return 0;
}

void elf_paths_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
