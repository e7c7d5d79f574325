// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's config file through the option table (opttab.h): "key value"
 * lines, '#' comments, each line's option found, checked and stored as
 * on the command line, its errors at FILE:LINE.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/opttab.h"
#include "cli/opttab_internal.h"
#include "util/errors.h"

/* The longest config file read: a config is a few hundred bytes. */
#define OPT_FILE_MAX	(256 * 1024)

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

/*
 * The config file as ispotd (root) opens it: not blocking (a FIFO would
 * hang every reload), a regular file only (/dev/zero has no end of line
 * and would take all memory), and no bigger than OPT_FILE_MAX.
 */
static FILE *opt_file_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	const char *why = NULL;
	struct stat st;
	FILE *f;

	if (fd < 0 || fstat(fd, &st)) {
		why = strerror(errno);
	} else if (S_ISDIR(st.st_mode)) {
		why = strerror(EISDIR);
	} else if (!S_ISREG(st.st_mode)) {
		why = "not a regular file";
	} else if (st.st_size > OPT_FILE_MAX) {
		ispot_error("cannot read %s: over %d KiB, no config is that "
			    "long; check the --config path", path,
			    OPT_FILE_MAX / 1024);
		close(fd);
		return NULL;
	}
	f = why ? NULL : fdopen(fd, "r");
	if (!f) {
		ispot_error("cannot read %s: %s; check the --config path",
			    path, why ? why : strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

int opt_parse_file(const struct opt_cmd_info *cmd, const char *path,
		   opt_store_fn store, void *ctx)
{
	struct opt_src src = { .cmd = cmd, .path = path };
	size_t cap = 0, total = 0;
	char *line = NULL;
	int ret = 0;
	ssize_t n;
	FILE *f;

	f = opt_file_open(path);
	if (!f)
		return -1;
	errno = 0;
	while ((n = getline(&line, &cap, f)) >= 0) {
		src.line++;
		/* It may have grown since it was opened. */
		total += (size_t)n;
		if (total > OPT_FILE_MAX) {
			ret = opt_error(&src, "the file grew past %d KiB while "
					"it was read", OPT_FILE_MAX / 1024);
			break;
		}
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
