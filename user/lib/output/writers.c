// SPDX-License-Identifier: GPL-2.0
/* The table of a session's outputs; see writers.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/writers.h"
#include "report/html.h"
#include "report/pictures.h"
#include "report/report.h"
#include "util/errors.h"
#include "util/path.h"
#include "util/same_file.h"

/* Where a writer's output goes. */
enum output_dest {
	OUTPUT_FILE,		/* its option's file, replaced whole */
	OUTPUT_FILE_OR_STDOUT,	/* that, or stdout without the option */
	OUTPUT_DIR,		/* files in its option's directory */
	OUTPUT_STREAM,		/* a file the session writes as it runs */
};

struct output_writer {
	const char *name;
	const char *option;
	enum output_dest dest;
	size_t path_at;		/* its path: offsetof(struct trace_opts) */
	/* Whether @o asks for it; NULL: whenever its path is given. */
	bool (*wanted)(const struct trace_opts *o);
	/* A file's contents (0 or -errno); a directory's (0 or -1). */
	int (*to_file)(FILE *f, const struct output_doc *d);
	int (*to_dir)(const char *dir, const struct output_doc *d);
};

static int text_to(FILE *f, const struct output_doc *d)
{
	return report_text(f, d->r, d->top);
}

static int json_to(FILE *f, const struct output_doc *d)
{
	return report_json(f, d->r);
}

static int folded_to(FILE *f, const struct output_doc *d)
{
	return report_folded(f, d->r);
}

static int html_to(FILE *f, const struct output_doc *d)
{
	return report_html(f, d->r, d->pic);
}

static int svg_to(const char *dir, const struct output_doc *d)
{
	return pictures_write(dir, d->r, d->pic);
}

static bool text_wanted(const struct trace_opts *o)
{
	return !o->json;
}

static bool json_wanted(const struct trace_opts *o)
{
	return o->json;
}

/* A writer of the report to --output or stdout, when @wanted says. */
#define REPORT(name, wanted, to)					\
	{ name, "--output", OUTPUT_FILE_OR_STDOUT,			\
	  offsetof(struct trace_opts, output), wanted, to, NULL }
/* One whose --OPT names its file, directory or stream (@opt's path). */
#define WRITER(opt, dest, to_file, to_dir)				\
	{ #opt, "--" #opt, dest, offsetof(struct trace_opts, opt),	\
	  NULL, to_file, to_dir }

/*
 * Checked in this order before the work, written in it at the report
 * (the stdout one last).
 */
static const struct output_writer writers[] = {
	REPORT("text", text_wanted, text_to),
	REPORT("json", json_wanted, json_to),
	WRITER(folded, OUTPUT_FILE, folded_to, NULL),
	WRITER(perfetto, OUTPUT_STREAM, NULL, NULL),
	WRITER(html, OUTPUT_FILE, html_to, NULL),
	WRITER(svg, OUTPUT_DIR, NULL, svg_to),
};

#define NR_WRITERS	(sizeof(writers) / sizeof(writers[0]))

static const char *output_path(const struct output_writer *w,
			       const struct trace_opts *o)
{
	return *(const char *const *)((const char *)o + w->path_at);
}

static bool output_wanted(const struct output_writer *w,
			  const struct trace_opts *o)
{
	return w->wanted ? w->wanted(o) : output_path(w, o) != NULL;
}

static const struct output_writer *output_find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_WRITERS; i++)
		if (!strcmp(writers[i].name, name))
			return &writers[i];
	return NULL;
}

/* The one line every output that cannot be written gets. */
static void output_refused(const struct output_writer *w, const char *path,
			   int error)
{
	ispot_error("cannot write %s (%s): choose a writable %s path", path,
		    strerror(error), w->option);
}

/* 0 if @path's directory takes new files, else -1 with errno set. */
static int dir_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		return access(".", W_OK | X_OK);
	if (slash == path)
		return access("/", W_OK | X_OK);
	if ((size_t)(slash - path) >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, slash - path);
	dir[slash - path] = '\0';
	return access(dir, W_OK | X_OK);
}

/* Whether file @path (NULL: none) can be written, said if not. */
static int file_writable(const struct output_writer *w, const char *path)
{
	int fd;

	if (!path)
		return 0;
	/* A file made only to ask is removed: a failed run leaves none. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0) {
		close(fd);
		unlink(path);
		return 0;
	}
	if (errno == EEXIST) {
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		/* Replaced by a file written beside it (util/afile.h). */
		if (fd >= 0 && !afile_in_place(path) && dir_writable(path)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		output_refused(w, path, errno);
		return -1;
	}
	close(fd);
	return 0;
}

/* Whether directory @dir is, or can be made, a writable one. */
static int dir_usable(const struct output_writer *w, const char *dir)
{
	int ret = afile_dir(dir);

	if (ret)
		ispot_error("cannot write in %s (%s): choose a writable %s "
			    "directory", dir, strerror(-ret), w->option);
	return ret;
}

/* An output's path (or an input's) and the option that gave it. */
struct output_named {
	const char *path;
	const char *option;
	bool input;
	bool dir;		/* a directory its writer fills (--svg) */
};

/*
 * @path, or where it leads when it is a symbolic link (outputs are
 * written through links, util/afile.h): a dangling link's target as
 * written, taken from the link's directory when relative.
 */
static const char *link_target(const char *path, char *buf, size_t len)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	size_t dir;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode))
		return path;
	if (len >= PATH_MAX && realpath(path, buf))
		return buf;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return path;
	target[n] = '\0';
	dir = (size_t)(path_base(path) - path);
	if (target[0] == '/' || !dir)
		return snprintf(buf, len, "%s", target) < (int)len ? buf : path;
	return snprintf(buf, len, "%.*s%s", (int)dir, path, target) <
	       (int)len ? buf : path;
}

/*
 * Whether file @path is an SVG in directory @dir: a picture --svg writes
 * there, named after a function not known till the report, could be it.
 */
static bool svg_in_dir(const char *file, const char *dir)
{
	char real[PATH_MAX];
	const char *path = link_target(file, real, sizeof(real));
	const char *base = path_base(path);
	size_t n = strlen(base), len = (size_t)(base - path);
	char parent[PATH_MAX], d[PATH_MAX];

	if (n < 4 || strcmp(base + n - 4, ".svg"))
		return false;
	/* Both without a trailing '/': "pics/" is "pics", "/" stays. */
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (n >= sizeof(d) || len >= sizeof(parent))
		return false;
	memcpy(d, dir, n);
	d[n] = '\0';
	memcpy(parent, len ? path : ".", len ? len : 1);
	parent[len ? len : 1] = '\0';
	return same_file(parent, d);
}

/* Whether @a and @b clash: one file, or a file where @b's pictures go. */
static bool outputs_clash(const struct output_named *a,
			  const struct output_named *b)
{
	if (a->input && b->input)
		return false;
	if (same_file(a->path, b->path))
		return true;
	if (a->dir != b->dir)
		return a->dir ? svg_in_dir(b->path, a->path) :
				svg_in_dir(a->path, b->path);
	return false;
}

/*
 * Whether two outputs of @o, or an output and a file it reads, name one
 * file: the last one written would replace the other (a recording by its
 * report, a trace by its HTML, the recording report reads by what it
 * writes).  Said once.
 */
static int outputs_collide(const struct trace_opts *o)
{
	struct output_named all[NR_WRITERS + 4], *file, *dir;
	size_t n = 0, i, j;

	for (i = 0; i < NR_WRITERS; i++)
		if (output_wanted(&writers[i], o) &&
		    output_path(&writers[i], o))
			all[n++] = (struct output_named){
				.path = output_path(&writers[i], o),
				.option = writers[i].option,
				.dir = writers[i].dest == OUTPUT_DIR,
			};
	if (o->record)
		all[n++] = (struct output_named){ .path = o->record,
						  .option = "-o/--output" };
	if (o->wall_folded)
		all[n++] = (struct output_named){ .path = o->wall_folded,
						  .option = "--wall-folded" };
	if (o->recording)
		all[n++] = (struct output_named){ .path = o->recording,
						  .option = "the recording",
						  .input = true };
	if (o->baseline)
		all[n++] = (struct output_named){ .path = o->baseline,
						  .option = "--baseline",
						  .input = true };
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			if (!outputs_clash(&all[i], &all[j]))
				continue;
			file = all[i].dir ? &all[j] : &all[i];
			dir = all[i].dir ? &all[i] : &all[j];
			if (all[i].dir != all[j].dir &&
			    !same_file(all[i].path, all[j].path))
				ispot_error("%s %s is in the %s directory %s, "
					    "where its pictures go: give it "
					    "another name or directory",
					    file->option, file->path,
					    dir->option, dir->path);
			else
				ispot_error("%s %s and %s %s are one file: "
					    "give each output a file of its "
					    "own", all[i].option, all[i].path,
					    all[j].option, all[j].path);
			return -1;
		}
	return 0;
}

int output_check(const struct trace_opts *o)
{
	size_t i;

	if (outputs_collide(o))
		return -1;
	for (i = 0; i < NR_WRITERS; i++) {
		const struct output_writer *w = &writers[i];
		const char *path = output_path(w, o);

		if (!output_wanted(w, o) || !path)
			continue;
		if (w->dest == OUTPUT_DIR ? dir_usable(w, path) :
		    file_writable(w, path))
			return -1;
	}
	return 0;
}

/* A report stdout could not take was said (output_stdout_said()). */
static bool stdout_said;

bool output_stdout_said(void)
{
	return stdout_said;
}

void output_stdout_failed(int err)
{
	ispot_error("cannot write the report (%s)", strerror(err));
	stdout_said = true;
}

struct output_job {
	const struct output_writer *w;
	const struct output_doc *d;
};

static int output_to(FILE *f, void *ctx)
{
	const struct output_job *job = ctx;

	return job->w->to_file(f, job->d);
}

static int output_one(const struct output_writer *w, const char *path,
		      const struct output_doc *d)
{
	struct output_job job = { w, d };
	int ret;

	if (w->dest == OUTPUT_DIR)
		return w->to_dir(path, d);
	if (!path) {
		/* Flushed and its errno taken (report_stream_status()). */
		ret = w->to_file(stdout, d);
		if (ret)
			output_stdout_failed(-ret);
		return ret ? -1 : 0;
	}
	ret = afile_write(path, output_to, &job);
	if (ret)
		output_refused(w, path, -ret);
	return ret ? -1 : 0;
}

int output_write(const struct trace_opts *o, const struct output_doc *d)
{
	const struct output_writer *last = NULL;
	int failed = 0;
	size_t i;

	/* One that fails (a full disk) is said, and the others written. */
	for (i = 0; i < NR_WRITERS; i++) {
		const struct output_writer *w = &writers[i];

		if (w->dest == OUTPUT_STREAM || !output_wanted(w, o))
			continue;
		if (w->dest == OUTPUT_FILE_OR_STDOUT)
			last = w;
		else if (output_one(w, output_path(w, o), d))
			failed = -1;
	}
	if (last && output_one(last, output_path(last, o), d))
		failed = -1;
	return failed;
}

void output_none(struct trace_opts *o)
{
	size_t i;

	for (i = 0; i < NR_WRITERS; i++)
		*(const char **)((char *)o + writers[i].path_at) = NULL;
}

int output_stream_open(const struct trace_opts *o, const char *name,
		       struct afile *f)
{
	const struct output_writer *w = output_find(name);
	const char *path = output_path(w, o);
	int ret;

	if (!path)
		return 0;
	ret = afile_open(f, path);
	if (ret) {
		output_refused(w, path, -ret);
		return -1;
	}
	return 0;
}

int output_stream_close(const struct trace_opts *o, const char *name,
			struct afile *f, bool keep, int error)
{
	const struct output_writer *w = output_find(name);

	if (!f->f)
		return 0;
	/* Nothing half-written is left behind; the file before stays. */
	if (!keep || error) {
		afile_abort(f);
		if (!keep)
			return 0;
	} else {
		error = afile_commit(f);
		if (!error)
			return 0;
	}
	ispot_error("cannot write %s (%s): check the disk",
		    output_path(w, o), strerror(-error));
	return -1;
}
