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
			      NULL : val, .line = src->line };
	return opt_take(src, d, &v, store, ctx);
}

/*
 * The config file's text, NUL-terminated, into *@text (free it), as
 * ispotd (root) reads it, again at each SIGHUP: only a regular file, told
 * before it is opened (opening some devices does something: a watchdog
 * starts, a tape rewinds) and again after (the same file, not one put in
 * its place), opened without blocking (a FIFO would hang a reload), and
 * read to at most OPT_FILE_MAX bytes whatever its size says (/dev/zero
 * has no end of line; a /proc file says 0).  Returns 0, or -1 after one
 * line.
 */
static int opt_file_read(const char *path, char **text)
{
	struct stat before, st;
	const char *why = NULL;
	char *buf = NULL;
	ssize_t n = 0, got;
	int fd = -1;

	if (stat(path, &before))
		why = strerror(errno);
	else if (S_ISDIR(before.st_mode))
		why = strerror(EISDIR);
	else if (!S_ISREG(before.st_mode))
		why = "not a regular file";
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
			    O_NOCTTY)) < 0 || fstat(fd, &st))
		why = strerror(errno);
	else if (st.st_dev != before.st_dev || st.st_ino != before.st_ino ||
		 !S_ISREG(st.st_mode))
		why = "replaced while it was opened";
	else if (!(buf = malloc(OPT_FILE_MAX + 1)))
		why = strerror(ENOMEM);
	while (!why && n <= OPT_FILE_MAX) {
		got = read(fd, buf + n, OPT_FILE_MAX + 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			why = strerror(errno);
		if (got <= 0)
			break;
		n += got;
	}
	if (fd >= 0)
		close(fd);
	if (!why && n > OPT_FILE_MAX) {
		ispot_error("cannot read %s: over %d KiB, no config is that "
			    "long; check the --config path", path,
			    OPT_FILE_MAX / 1024);
		free(buf);
		return -1;
	}
	if (why) {
		ispot_error("cannot read %s: %s; check the --config path",
			    path, why);
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	*text = buf;
	return 0;
}

int opt_parse_file(const struct opt_cmd_info *cmd, const char *path,
		   opt_store_fn store, void *ctx)
{
	struct opt_src src = { .cmd = cmd, .path = path };
	char *text, *line, *next;
	int ret = 0;

	if (opt_file_read(path, &text))
		return -1;
	for (line = text; !ret && *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		src.line++;
		ret = opt_line(&src, line, store, ctx);
	}
	free(text);
	return ret;
}
