// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's config file through the option table (opttab.h): "key value"
 * lines, '#' comments, each line's option found, checked and stored as
 * on the command line, its errors at FILE:LINE.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opttab.h"
#include "cli/opttab_internal.h"
#include "util/errors.h"

/* Strip a "#" comment (at the start or after whitespace) and trim. */
static char *line_strip(char *line)
{
	char *p, *end;

	for (p = line; *p; p++) {
		if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			break;
		}
	}
	while (isspace((unsigned char)*line))
		line++;
	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return line;
}

/* One line of the file: "key value", "flag", a comment or nothing. */
static int opt_line(const struct opt_src *src, char *line,
		    opt_store_fn store, void *ctx)
{
	char *key = line_strip(line), *val;
	const struct opt_def *d;
	struct opt_val v;

	if (!*key)
		return 0;
	val = key + strcspn(key, " \t\r\n\v\f");
	if (*val) {
		*val++ = '\0';
		val += strspn(val, " \t\r\n\v\f");
	}
	d = opt_find(key, OPT_CONF);
	if (!d || !(d->cmds & OPT_CONF)) {
		if (key[0] == '-')
			return opt_error(src, "unknown option '%s': write it "
					 "without the leading dashes, e.g. "
					 "'pid 1234'", key);
		if (strchr(key, '='))
			return opt_error(src, "unknown option '%s': put a space "
					 "between the option and its value, "
					 "e.g. 'budget 1%%'", key);
		return opt_error(src, "unknown option '%s'", key);
	}
	if (d->kind == OPTK_FLAG && *val)
		return opt_error(src, "'%s' takes no value: write '%s' alone",
				 key, key);
	if (d->kind != OPTK_FLAG && !*val)
		return opt_error(src, "'%s' needs a value", key);
	v = (struct opt_val){ .opt = key, .str = d->kind == OPTK_FLAG ?
			      NULL : val };
	return opt_take(src, d, &v, store, ctx);
}

int opt_parse_file(const struct opt_cmd_info *cmd, const char *path,
		   opt_store_fn store, void *ctx)
{
	struct opt_src src = { .cmd = cmd, .path = path };
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		ispot_error("cannot read %s: %s; check the --config path",
			    path, strerror(errno));
		return -1;
	}
	errno = 0;
	while (getline(&line, &cap, f) >= 0) {
		src.line++;
		ret = opt_line(&src, line, store, ctx);
		if (ret)
			break;
		errno = 0;
	}
	/* A directory opens, then fails to read (EISDIR). */
	if (!ret && ferror(f)) {
		ispot_error("cannot read %s: %s; check the --config path",
			    path, strerror(errno ? errno : EIO));
		ret = -1;
	}
	free(line);
	fclose(f);
	return ret;
}
