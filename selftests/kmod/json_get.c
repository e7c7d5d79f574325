// SPDX-License-Identifier: GPL-2.0
/*
 * json_get: the one JSON reader of the shell selftests, in the guest and
 * on the host.  It reads ISPOT's JSON with the library's strict reader
 * (util/json_read.h), so that a test asks for a field by where it is
 * instead of cutting the text at commas and braces and taking the first
 * line that looks right.
 *
 *	json_get FILE PATH		every value PATH selects, one a line
 *	json_get FILE PATH PATH...	for each document, the first value
 *					of each PATH, joined by tabs (a
 *					document lacking one is left out)
 *	json_get -l FILE [PATH]		every scalar (and empty object or
 *					array) below PATH, by default the
 *					document, as "WHERE<tab>VALUE",
 *					WHERE a PATH naming it exactly
 *
 * FILE ("-": stdin) holds one JSON document a line, as ISPOT writes them:
 * a report (ispotctl --json), ispotctl status --json, or ispotd's window
 * log, each of whose lines is looked up in turn.  A line that does not
 * start with '{' or '[' is not a document but, say, what a sample printed
 * on the stdout it shares with ispotctl's report: it is passed over.  A
 * last line without its newline that does not parse is one still being
 * written: it is left out.
 *
 * A PATH is "." (the document) or steps from the document:
 *	.KEY		member KEY of an object
 *	[N]		element N of an array, from 0
 *	[]		every element of an array
 *	[KEY=VALUE]	every element of an array whose member KEY is VALUE
 *			(a string, or a number or boolean as printed here)
 * e.g. .functions[0].sci, .functions[name=acquire].keys[].key,
 * .target.pid.  KEY runs to the next '.' or '['; VALUE to the ']'.
 *
 * Strings print decoded, without quotes; integers as written, other
 * numbers in the shortest form that reads back the same (ISPOT writes
 * %.6g: the same digits); true, false, null; an object or an array as one
 * line of JSON.
 *
 * Exits 0 when it printed something, 1 when PATH selected nothing, and 2
 * (one line on stderr) on a usage error, a file that cannot be read or a
 * line that is not JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/json.h"
#include "util/json_read.h"

enum step_kind { STEP_KEY, STEP_INDEX, STEP_ALL, STEP_MATCH };

struct step {
	enum step_kind kind;
	char *key;		/* STEP_KEY, STEP_MATCH */
	char *value;		/* STEP_MATCH */
	size_t index;		/* STEP_INDEX */
};

struct path {
	struct step *steps;
	size_t n, cap;
};

/* Where a value is, as a PATH (json_get -l prints it). */
struct where {
	char s[4096];
	size_t len;
};

static int usage(void)
{
	fprintf(stderr, "usage: json_get FILE PATH...\n"
			"       json_get -l FILE [PATH]\n");
	return 2;
}

static int bad_path(const char *text, const char *why)
{
	fprintf(stderr, "json_get: path '%s': %s\n", text, why);
	return -1;
}

/* [...]: an index, every element, or KEY=VALUE; @p after the '['. */
static int parse_bracket(const char *text, const char **p, struct step *s)
{
	const char *close = strchr(*p, ']');
	const char *eq;
	char *end;

	if (!close)
		return bad_path(text, "'[' without ']'");
	eq = memchr(*p, '=', close - *p);
	if (close == *p) {
		s->kind = STEP_ALL;
	} else if (eq) {
		s->kind = STEP_MATCH;
		s->key = strndup(*p, eq - *p);
		s->value = strndup(eq + 1, close - eq - 1);
		if (!s->key || !s->value)
			return bad_path(text, "out of memory");
	} else {
		s->kind = STEP_INDEX;
		s->index = strtoull(*p, &end, 10);
		if (end != close || **p < '0' || **p > '9')
			return bad_path(text, "an index is a number from 0");
	}
	*p = close + 1;
	return 0;
}

static int parse_path(const char *text, struct path *path)
{
	const char *p = text;
	struct step *s;
	size_t len;

	if (strcmp(text, ".") == 0)
		return 0;
	while (*p) {
		if (ARRAY_RESERVE(path->steps, path->cap, path->n + 1))
			return bad_path(text, "out of memory");
		s = &path->steps[path->n++];
		memset(s, 0, sizeof(*s));
		if (*p == '[') {
			p++;
			if (parse_bracket(text, &p, s))
				return -1;
			continue;
		}
		if (*p != '.')
			return bad_path(text, "a step starts with '.' or '['");
		p++;
		len = strcspn(p, ".[");
		if (!len)
			return bad_path(text, "'.' without a key");
		s->kind = STEP_KEY;
		s->key = strndup(p, len);
		if (!s->key)
			return bad_path(text, "out of memory");
		p += len;
	}
	return path->n ? 0 : bad_path(text, "empty");
}

static void free_path(struct path *path)
{
	size_t i;

	for (i = 0; i < path->n; i++) {
		free(path->steps[i].key);
		free(path->steps[i].value);
	}
	free(path->steps);
}

/*
 * A scalar as json_get prints it, into @buf; NULL for an object or an
 * array.  A string is returned itself, decoded.
 */
static const char *scalar_text(const struct json_value *v, char *buf,
			       size_t len)
{
	int prec;

	switch (v->t) {
	case JSON_NULL:
		return "null";
	case JSON_BOOL:
		return v->b ? "true" : "false";
	case JSON_STR:
		return v->s;
	case JSON_NUM:
		if (v->is_uint)
			snprintf(buf, len, "%" PRIu64, v->u);
		else if (v->is_int)
			snprintf(buf, len, "%" PRId64, v->i);
		else
			for (prec = 1; prec <= 17; prec++) {
				snprintf(buf, len, "%.*g", prec, v->d);
				if (strtod(buf, NULL) == v->d)
					break;
			}
		return buf;
	default:
		return NULL;
	}
}

/* An object or an array as one line of JSON, by the library's writer. */
static void write_value(struct json *j, const char *key,
			const struct json_value *v)
{
	size_t i;

	switch (v->t) {
	case JSON_OBJ:
	case JSON_ARR:
		if (v->t == JSON_OBJ)
			json_object_begin(j, key);
		else
			json_array_begin(j, key);
		for (i = 0; i < v->n; i++)
			write_value(j, v->t == JSON_OBJ ? v->keys[i] : NULL,
				    &v->items[i]);
		if (v->t == JSON_OBJ)
			json_object_end(j);
		else
			json_array_end(j);
		break;
	case JSON_NULL:
		json_null(j, key);
		break;
	case JSON_BOOL:
		json_bool(j, key, v->b);
		break;
	case JSON_STR:
		json_string(j, key, v->s);
		break;
	case JSON_NUM:
		if (v->is_uint)
			json_u64(j, key, v->u);
		else if (v->is_int)
			json_i64(j, key, v->i);
		else
			json_double(j, key, v->d);
		break;
	}
}

/* A value without its newline: a scalar as text, else one line of JSON. */
static void put_value(const struct json_value *v)
{
	char buf[64];
	const char *text = scalar_text(v, buf, sizeof(buf));
	struct json j;

	if (text) {
		fputs(text, stdout);
		return;
	}
	json_init(&j, stdout);
	write_value(&j, NULL, v);
}

/* Element @v of an array has member @key printed as @want. */
static int member_is(const struct json_value *v, const char *key,
		     const char *want)
{
	const struct json_value *m = json_get(v, key);
	char buf[64];
	const char *text = m ? scalar_text(m, buf, sizeof(buf)) : NULL;

	return text && strcmp(text, want) == 0;
}

/* Steps appended to @w: ".KEY", "[N]"; where_pop(w, LEN) undoes them. */
static void where_add(struct where *w, const char *key, size_t index)
{
	size_t room = sizeof(w->s) - w->len;
	int n = key ? snprintf(w->s + w->len, room, ".%s", key) :
		      snprintf(w->s + w->len, room, "[%zu]", index);

	if (n > 0 && (size_t)n < room)
		w->len += n;
}

static void where_pop(struct where *w, size_t mark)
{
	w->len = mark;
	w->s[mark] = '\0';
}

/*
 * Calls @visit on every value the steps select below @v (@w: where @v
 * is); stops, returning true, as soon as @visit returns true.
 */
typedef bool (*visit_fn)(const struct json_value *v, struct where *w,
			 void *ctx);

static bool walk(const struct json_value *v, const struct step *s,
		 size_t left, struct where *w, visit_fn visit, void *ctx)
{
	const struct json_value *m;
	size_t i, mark = w->len;
	bool stop = false;

	if (!left)
		return visit(v, w, ctx);
	switch (s->kind) {
	case STEP_KEY:
		m = json_get(v, s->key);
		if (!m)
			return false;
		where_add(w, s->key, 0);
		stop = walk(m, s + 1, left - 1, w, visit, ctx);
		break;
	case STEP_INDEX:
		if (v->t != JSON_ARR || s->index >= v->n)
			return false;
		where_add(w, NULL, s->index);
		stop = walk(&v->items[s->index], s + 1, left - 1, w, visit,
			    ctx);
		break;
	case STEP_ALL:
	case STEP_MATCH:
		if (v->t != JSON_ARR)
			return false;
		for (i = 0; i < v->n && !stop; i++) {
			if (s->kind == STEP_MATCH &&
			    !member_is(&v->items[i], s->key, s->value))
				continue;
			where_add(w, NULL, i);
			stop = walk(&v->items[i], s + 1, left - 1, w, visit,
				    ctx);
			where_pop(w, mark);
		}
		return stop;
	}
	where_pop(w, mark);
	return stop;
}

static bool visit_print(const struct json_value *v, struct where *w,
			void *ctx)
{
	(void)w;
	*(bool *)ctx = true;
	put_value(v);
	putchar('\n');
	return false;
}

/* json_get -l: every scalar below @v, where it is, a tab, its value. */
static void print_leaves(const struct json_value *v, struct where *w)
{
	char buf[64];
	const char *text = scalar_text(v, buf, sizeof(buf));
	size_t i, mark = w->len;

	/* An empty object or array is a leaf too: its key is there. */
	if (!text && !v->n)
		text = v->t == JSON_OBJ ? "{}" : "[]";
	if (text) {
		printf("%s\t%s\n", w->len ? w->s : ".", text);
		return;
	}
	for (i = 0; i < v->n; i++) {
		if (v->t == JSON_OBJ)
			where_add(w, v->keys[i], 0);
		else
			where_add(w, NULL, i);
		print_leaves(&v->items[i], w);
		where_pop(w, mark);
	}
}

static bool visit_leaves(const struct json_value *v, struct where *w,
			 void *ctx)
{
	*(bool *)ctx = true;
	print_leaves(v, w);
	return false;
}

static bool visit_first(const struct json_value *v, struct where *w,
			void *ctx)
{
	(void)w;
	*(const struct json_value **)ctx = v;
	return true;
}

/* What was asked, and room for the first value of each path. */
struct query {
	bool leaves;			/* -l */
	struct path *paths;
	size_t nr_paths;
	const struct json_value **found;
};

/* One line of the paths' first values, if the document has them all. */
static bool print_columns(const struct json_value *doc,
			  const struct query *q)
{
	struct where w = { .len = 0 };
	size_t i;

	for (i = 0; i < q->nr_paths; i++) {
		q->found[i] = NULL;
		walk(doc, q->paths[i].steps, q->paths[i].n, &w, visit_first,
		     &q->found[i]);
		if (!q->found[i])
			return false;
	}
	for (i = 0; i < q->nr_paths; i++) {
		if (i)
			putchar('\t');
		put_value(q->found[i]);
	}
	putchar('\n');
	return true;
}

/* Prints what @doc has of @q; true if that was something. */
static bool answer(const struct json_value *doc, const struct query *q)
{
	struct where w = { .len = 0 };
	bool printed = false;

	if (q->nr_paths > 1)
		return print_columns(doc, q);
	walk(doc, q->paths[0].steps, q->paths[0].n, &w,
	     q->leaves ? visit_leaves : visit_print, &printed);
	return printed;
}

/* Each document of @f answered; 0, 1 (nothing printed) or 2. */
static int read_documents(FILE *f, const char *name, const struct query *q)
{
	struct json_value *doc;
	size_t cap = 0, lineno = 0;
	bool printed = false, whole;
	char *line = NULL;
	const char *why;
	ssize_t len;

	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		whole = line[len - 1] == '\n';
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		/* A traced sample's own output, sharing stdout with a report. */
		if (!len || (line[0] != '{' && line[0] != '['))
			continue;
		why = NULL;
		doc = json_parse(line, len, &why);
		if (!doc && !whole)
			break;		/* the last line, still being written */
		if (!doc) {
			fprintf(stderr, "json_get: %s:%zu: %s\n", name, lineno,
				why ? why : "not JSON");
			free(line);
			return 2;
		}
		printed |= answer(doc, q);
		json_value_free(doc);
	}
	free(line);
	if (ferror(f)) {
		fprintf(stderr, "json_get: %s: read error\n", name);
		return 2;
	}
	return printed ? 0 : 1;
}

int main(int argc, char **argv)
{
	bool leaves = argc > 1 && strcmp(argv[1], "-l") == 0;
	char **args = argv + 1 + leaves;
	int nr_args = argc - 1 - leaves;
	struct query q = { .leaves = leaves };
	const char *name;
	int ret = 2;
	size_t i;
	FILE *f;

	if (nr_args < 1 + !leaves || (leaves && nr_args > 2))
		return usage();
	name = args[0];
	q.nr_paths = nr_args > 1 ? nr_args - 1 : 1;
	q.paths = calloc(q.nr_paths, sizeof(*q.paths));
	q.found = calloc(q.nr_paths, sizeof(*q.found));
	if (!q.paths || !q.found)
		goto out;
	for (i = 0; i < q.nr_paths; i++)
		if (nr_args > 1 && parse_path(args[1 + i], &q.paths[i]))
			goto out;
	f = strcmp(name, "-") == 0 ? stdin : fopen(name, "r");
	if (!f) {
		fprintf(stderr, "json_get: %s: %s\n", name, strerror(errno));
		goto out;
	}
	ret = read_documents(f, name, &q);
	if (f != stdin)
		fclose(f);
out:
	for (i = 0; q.paths && i < q.nr_paths; i++)
		free_path(&q.paths[i]);
	free(q.paths);
	free(q.found);
	return ret;
}
