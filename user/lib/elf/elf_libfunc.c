// SPDX-License-Identifier: GPL-2.0
/*
 * A bare function name found where gdb would find it: after the program,
 * in the libraries it loads (its DT_NEEDED closure, which is known before
 * they are mapped: a uprobe wants a file and an offset, not an address)
 * and, for a running process, the objects it has mapped (dlopen()ed
 * ones).  What one object has is used; several objects having it is
 * ambiguous, the candidates listed; in none, the error names every object
 * searched before it blames missing debug info.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_internal.h"
#include "util/array.h"
#include "util/path.h"

/* Objects and candidates named in one message. */
#define MAX_OBJS_SHOWN		12
#define MAX_CANDS_SHOWN		6

/* One object that has the name (or a function it cannot probe by it). */
struct lib_hit {
	const char *path;
	struct elf_target_sym *syms;	/* rc == 0 */
	size_t n;
	int rc;
	char err[512];			/* rc != 0 */
};

static bool listed(char **paths, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(paths[i], path))
			return true;
	return false;
}

/* Append a copy of @path to *@paths, an array of *@cap elements. */
static int list_add(char ***paths, size_t *n, size_t *cap, const char *path)
{
	if (ARRAY_RESERVE(*paths, *cap, *n + 1))
		return -ENOMEM;
	(*paths)[*n] = strdup(path);
	if (!(*paths)[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The executable file mappings of pid not in the list yet. */
static int add_mapped(pid_t pid, char ***paths, size_t *n)
{
	struct elf_map *maps;
	size_t nmaps, i;
	size_t cap = *n;	/* elf_needed_list()'s array is at least that */
	int rc;

	if (elf_maps_read(pid, &maps, &nmaps, NULL, 0))
		return 0;	/* gone: what it loads still counts */
	for (i = 0, rc = 0; i < nmaps && !rc; i++) {
		const struct elf_map *m = &maps[i];

		if (!elf_is_file_map(m) || m->deleted || m->perms[2] != 'x' ||
		    listed(*paths, *n, m->path))
			continue;
		rc = list_add(paths, n, &cap, m->path);
	}
	elf_maps_free(maps, nmaps);
	return rc;
}

/* What a bare name is looked for in after exe: exe itself left out. */
static int lib_list(pid_t pid, const char *exe, char ***paths, size_t *n)
{
	char canon[PATH_MAX];
	size_t i;
	int rc;

	if (elf_needed_list(exe, paths, n, NULL, 0)) {
		*paths = NULL;
		*n = 0;
	}
	rc = pid > 0 ? add_mapped(pid, paths, n) : 0;
	if (!realpath(exe, canon))
		elf_copy_str(canon, sizeof(canon), exe);
	for (i = 0; i < *n; i++) {
		if (strcmp((*paths)[i], canon))
			continue;
		free((*paths)[i]);
		memmove(&(*paths)[i], &(*paths)[i + 1],
			(*n - i - 1) * sizeof(**paths));
		(*n)--;
		break;
	}
	return rc;
}

/* Append to err, as much as fits. */
static void __attribute__((format(printf, 3, 4)))
append(char *err, size_t errlen, const char *fmt, ...)
{
	size_t used = strlen(err);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err + used, errlen - used, fmt, ap);
	va_end(ap);
}

/*
 * Found nowhere: the program's message (err) gets the libraries searched
 * after its first clause, before its hints (debug info, near matches).
 */
static void say_searched(char **paths, size_t n, char *err, size_t errlen)
{
	const char *semi = strstr(err, "; ");
	size_t head = semi ? (size_t)(semi - err) : strlen(err), i;
	char *tail = strdup(err + head);

	if (!tail || !n) {
		free(tail);
		return;
	}
	err[head] = '\0';
	/* "no function 'f' in P" or "'f' in P is not a function" */
	append(err, errlen, "%s", strncmp(err, "no function ", 12) ?
	       "; nor is it a function in" : ", nor in");
	if (n == 1)
		append(err, errlen, " the library it loads (");
	else
		append(err, errlen, " the %zu libraries it loads (", n);
	for (i = 0; i < n && i < MAX_OBJS_SHOWN; i++)
		append(err, errlen, "%s%s", i ? ", " : "",
		       path_base(paths[i]));
	append(err, errlen, "%s)%s", n > MAX_OBJS_SHOWN ? ", ..." : "",
	       tail);
	free(tail);
}

/* Several objects have it: list them, with what each calls it. */
static int say_candidates(const char *name, const char *exe,
			  const struct lib_hit *hits, size_t nhits,
			  char *err, size_t errlen)
{
	size_t i;

	elf_fail(err, errlen, -EINVAL,
		 "'%s' is not in %s but in %zu libraries it loads:", name,
		 exe, nhits);
	for (i = 0; err && i < nhits && i < MAX_CANDS_SHOWN; i++) {
		const struct lib_hit *h = &hits[i];

		append(err, errlen, "%s %s (%s%s)", i ? "," : "",
		       path_base(h->path),
		       h->rc ? name : h->syms[0].name,
		       h->n > 1 ? ", ..." : "");
	}
	if (err)
		append(err, errlen,
		       "%s; name the one meant as OBJ:NAME, e.g. '%s:%s'",
		       nhits > MAX_CANDS_SHOWN ? ", ..." : "",
		       path_base(hits[0].path), name);
	return -EINVAL;
}

static void hits_free(struct lib_hit *hits, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(hits[i].syms);
	free(hits);
}

/* Each listed object's matches; an object that lacks it is left out. */
static struct lib_hit *search_libs(char **paths, size_t n, const char *name,
				   unsigned int flags, size_t *nhits)
{
	struct lib_hit *hits = calloc(n ? n : 1, sizeof(*hits));
	size_t i;

	*nhits = 0;
	for (i = 0; hits && i < n; i++) {
		struct lib_hit *h = &hits[*nhits];

		h->path = paths[i];
		h->rc = elf_resolve_file_flags(paths[i], name, flags,
					       &h->syms, &h->n, h->err,
					       sizeof(h->err));
		/* Unreadable, or not there: only a match or a refusal. */
		if (!h->rc || h->rc == -EINVAL || h->rc == -EPERM)
			(*nhits)++;
	}
	return hits;
}

int elf_resolve_in_libs(const char *name, pid_t pid, const char *exe,
			unsigned int flags, struct elf_target_sym **out,
			size_t *n, char *err, size_t errlen)
{
	struct lib_hit *hits;
	char **paths = NULL;
	size_t npaths = 0, nhits = 0, i;
	int rc;

	if (lib_list(pid, exe, &paths, &npaths) ||
	    !(hits = search_libs(paths, npaths, name, flags, &nhits))) {
		elf_paths_free(paths, npaths);
		return elf_fail(err, errlen, -ENOMEM, "out of memory");
	}
	rc = -ENOENT;
	if (!nhits && err && errlen)
		say_searched(paths, npaths, err, errlen);
	else if (nhits > 1)
		rc = say_candidates(name, exe, hits, nhits, err, errlen);
	else if (nhits && hits[0].rc)
		rc = elf_fail(err, errlen, hits[0].rc, "%s", hits[0].err);
	else if (nhits) {
		for (i = 0; i < hits[0].n; i++)
			hits[0].syms[i].flags |= ELF_SYM_IN_LIB;
		*out = hits[0].syms;
		*n = hits[0].n;
		hits[0].syms = NULL;
		rc = 0;
	}
	hits_free(hits, npaths);
	elf_paths_free(paths, npaths);
	return rc;
}
