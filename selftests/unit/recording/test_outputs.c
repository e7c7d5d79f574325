// SPDX-License-Identifier: GPL-2.0
/*
 * The files a session writes besides its report (--perfetto, --folded,
 * --output) go through util/afile.h: a file already at the path is
 * replaced whole when the session succeeds and stays as it was when it
 * fails (a function that resolves to nothing, a session that ends in an
 * error), and no temporary file is left beside it.  Driven by `report
 * FILE` on a recording (recording_session.h) and by the --perfetto
 * calls a live session makes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ispot_test.h"
#include "util/path.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-out-XXXXXX"
#include "scratch_dir.h"
#include "stderr_capture.h"
#include "recording_session.h"

#define OLD	"the user's earlier file\n"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 1 << 20);

	ASSERT_TRUE(f != NULL && buf != NULL);
	fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	return buf;
}

static void spit(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	ASSERT_TRUE(f != NULL);
	fputs(s, f);
	ASSERT_EQ(fclose(f), 0);
}

static bool holds(const char *path, const char *s)
{
	char *b = slurp(path);
	bool same = !strcmp(b, s);

	free(b);
	return same;
}

/* Files whose name starts with '.': afile's temporaries. */
static int temporaries(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	ASSERT_TRUE(d != NULL);
	while ((de = readdir(d)))
		n += de->d_name[0] == '.' && strcmp(de->d_name, ".") &&
		     strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

struct outs {
	char rec[PATH_MAX], perfetto[PATH_MAX], folded[PATH_MAX];
	char output[PATH_MAX];
};

/* A recorded session, and the user's files at the three paths. */
static void outs_make(struct outs *p)
{
	struct recording_session s;
	char json[PATH_MAX];

	path_in(p->rec, "s.isr");
	path_in(json, "s.json");
	path_in(p->perfetto, "t.pftrace");
	path_in(p->folded, "t.folded");
	path_in(p->output, "t.json");
	ASSERT_EQ(rs_start(&s, p->rec, json, 1ull << 30), 0);
	rs_trace(&s, 200);
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	spit(p->perfetto, OLD);
	spit(p->folded, OLD);
	spit(p->output, OLD);
}

static int outs_replay(const struct outs *p, struct key_opt *key)
{
	struct trace_opts o = { .json = true, .output = p->output,
				.folded = p->folded,
				.perfetto = p->perfetto,
				.recording = p->rec };

	if (key) {
		o.keys[0] = *key;
		o.nr_keys = 1;
	}
	return trace_replay(&o);
}

TEST(outputs_are_replaced_whole_when_the_session_succeeds)
{
	struct outs p;
	char *b;

	outs_make(&p);
	ASSERT_EQ(outs_replay(&p, NULL), 0);
	b = slurp(p.output);
	EXPECT_TRUE(b[0] == '{' && strstr(b, "\"worker\"") != NULL);
	EXPECT_TRUE(strstr(b, "earlier") == NULL);
	free(b);
	b = slurp(p.folded);
	EXPECT_TRUE(strstr(b, "worker") != NULL);
	EXPECT_TRUE(strstr(b, "earlier") == NULL);
	free(b);
	EXPECT_FALSE(holds(p.perfetto, OLD));
	EXPECT_EQ(temporaries(), 0);
}

TEST(outputs_stay_as_they_were_when_the_session_fails)
{
	struct key_opt typo = { "wroker", { KEY_NONE, 0, false } };
	struct outs p;
	int ret;

	outs_make(&p);
	capture_begin();
	ret = outs_replay(&p, &typo);
	capture_end();
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, "'wroker' matches no traced") != NULL);
	EXPECT_TRUE(holds(p.perfetto, OLD));
	EXPECT_TRUE(holds(p.folded, OLD));
	EXPECT_TRUE(holds(p.output, OLD));
	EXPECT_EQ(temporaries(), 0);
}

/*
 * A live session's trace streams into a temporary file from its start:
 * the user's file stays until the end, and a session that fails (the
 * target could not be traced, an error later) leaves it as it was.
 */
TEST(perfetto_trace_replaces_the_file_only_at_the_end)
{
	struct trace_opts o = { 0 };
	struct trace t;
	char path[PATH_MAX];

	path_in(path, "live.pftrace");
	spit(path, OLD);
	memset(&t, 0, sizeof(t));
	o.perfetto = path;
	t.opts = &o;
	t.sum.pid = 1234;
	snprintf(t.sum.command, sizeof(t.sum.command), "worker_app");
	ASSERT_EQ(trace_perfetto_open(&t, NULL), 0);
	EXPECT_TRUE(holds(path, OLD));
	EXPECT_EQ(temporaries(), 1);
	EXPECT_EQ(trace_perfetto_close(&t, false), 0);
	EXPECT_TRUE(holds(path, OLD));
	EXPECT_EQ(temporaries(), 0);

	ASSERT_EQ(trace_perfetto_open(&t, NULL), 0);
	EXPECT_EQ(trace_perfetto_close(&t, true), 0);
	EXPECT_FALSE(holds(path, OLD));
	EXPECT_EQ(temporaries(), 0);
	/* Closed twice (trace_report(), then trace_free()): the once. */
	EXPECT_EQ(trace_perfetto_close(&t, false), 0);
	EXPECT_FALSE(holds(path, OLD));
}

/*
 * Two outputs that name one file (whatever the spelling, made yet or
 * not), or an output naming the recording report reads, are refused in
 * one line before any work: the last one written would replace the
 * other.  Every file stays as it was.
 */
TEST(outputs_naming_one_file_are_refused)
{
	char other[PATH_MAX], cwd[PATH_MAX], dotted[PATH_MAX];
	char linked[PATH_MAX];
	struct outs p;
	struct {
		const char *output, *perfetto, *html, *folded;
		bool to_recording;
		const char *says;
	} cases[] = {
		{ NULL, NULL, NULL, NULL, true, "--output" },
		/* Made already: one inode, two spellings. */
		{ linked, NULL, NULL, NULL, true, "the recording" },
		{ other, other, NULL, NULL, false, "--perfetto" },
		{ other, NULL, other, NULL, false, "--html" },
		{ NULL, other, dotted, NULL, false, "--html" },
		{ NULL, NULL, other, dotted, false, "--folded" },
	};
	size_t i;
	int ret;

	outs_make(&p);
	ASSERT_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	ASSERT_EQ(chdir(dir), 0);
	/* Not made yet: one name in one directory, spelt two ways. */
	snprintf(other, sizeof(other), "new.out");
	snprintf(dotted, sizeof(dotted), "%s/./new.out", dir);
	snprintf(linked, sizeof(linked), "%s/hard.isr", dir);
	ASSERT_EQ(link(p.rec, linked), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace_opts o = { .recording = p.rec,
					.output = cases[i].output,
					.perfetto = cases[i].perfetto,
					.html = cases[i].html,
					.folded = cases[i].folded };

		if (cases[i].to_recording && !o.output)
			o.output = p.rec;
		else if (cases[i].to_recording)
			o.recording = "s.isr";	/* relative, made: p.rec */
		capture_begin();
		ret = trace_replay(&o);
		capture_end();
		EXPECT_EQ(ret, -1);
		EXPECT_TRUE(strstr(captured, "are one file: give each output "
					     "a file of its own") != NULL);
		EXPECT_TRUE(strstr(captured, cases[i].says) != NULL);
		EXPECT_TRUE(strchr(captured, '\n') &&
			    !strchr(captured, '\n')[1]);
		EXPECT_EQ(access("new.out", F_OK), -1);
	}
	/* An output over its --baseline, before the baseline is read. */
	{
		struct trace_opts o = { .recording = p.rec,
					.baseline = p.folded,
					.folded = p.folded };

		capture_begin();
		ret = trace_replay(&o);
		capture_end();
		EXPECT_EQ(ret, -1);
		EXPECT_TRUE(strstr(captured, "--folded") != NULL &&
			    strstr(captured, "--baseline") != NULL &&
			    strstr(captured, "are one file") != NULL);
	}
	ASSERT_EQ(chdir(cwd), 0);
	/* The recording is still one. */
	{
		struct trace_opts o = { .json = true, .output = p.output,
					.recording = p.rec };

		EXPECT_EQ(trace_replay(&o), 0);
	}
	EXPECT_TRUE(holds(p.perfetto, OLD));
	EXPECT_TRUE(holds(p.folded, OLD));
	EXPECT_EQ(temporaries(), 0);
}

/*
 * --svg DIR names its pictures after the report's functions, so a file
 * output ending in .svg in that directory could be one of them: refused
 * before any work, however the directory is spelt and whether or not it
 * is made yet.  Another name in it, or an SVG elsewhere, is no clash.
 */
TEST(an_svg_output_in_the_pictures_directory_is_refused)
{
	char made[PATH_MAX], in_made[PATH_MAX], cwd[PATH_MAX];
	const char *pics = "where its pictures go", *one = "are one file";
	struct outs p;
	struct {
		const char *svg, *html, *perfetto;
		int ret;
		const char *says;
	} cases[] = {
		{ "pics", "pics/r.svg", NULL, -1, pics },	/* neither made */
		{ "./pics/", "pics/r.svg", NULL, -1, pics },
		{ made, NULL, in_made, -1, pics },	/* made: its inode */
		{ ".", "r.svg", NULL, -1, pics },
		/* Through a link, dangling or not, to an SVG there. */
		{ made, "to-svg.html", NULL, -1, pics },
		{ made, NULL, "to-new-svg.pftrace", -1, pics },
		/* The directory itself, made or not. */
		{ "x", "x", NULL, -1, one },
		{ made, NULL, made, -1, one },
		{ made, "r.svg", NULL, 0, NULL },	/* elsewhere */
		{ made, NULL, "pics2.svg.html", 0, NULL },
	};
	size_t i;
	int ret;

	outs_make(&p);
	ASSERT_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	ASSERT_EQ(chdir(dir), 0);
	snprintf(made, sizeof(made), "%s/made", dir);
	ASSERT_EQ(mkdir(made, 0755), 0);
	snprintf(in_made, sizeof(in_made), "%s/../%s/made/x.svg", dir,
		 path_base(dir));
	ASSERT_EQ(close(open("made/old.svg", O_CREAT | O_WRONLY, 0644)), 0);
	ASSERT_EQ(symlink("made/old.svg", "to-svg.html"), 0);
	ASSERT_EQ(symlink("made/new.svg", "to-new-svg.pftrace"), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace_opts o = { .recording = p.rec,
					.svg = cases[i].svg,
					.html = cases[i].html,
					.perfetto = cases[i].perfetto };

		capture_begin();
		ret = trace_replay(&o);
		capture_end();
		EXPECT_EQ(ret, cases[i].ret);
		if (cases[i].ret)
			EXPECT_TRUE(strstr(captured, cases[i].says) &&
				    strchr(captured, '\n') &&
				    !strchr(captured, '\n')[1]);
		else
			EXPECT_TRUE(strstr(captured, pics) == NULL);
	}
	EXPECT_EQ(access("pics", F_OK), -1);
	EXPECT_EQ(access("x", F_OK), -1);
	ASSERT_EQ(chdir(cwd), 0);
}

/*
 * An output that cannot be written (a full disk: /dev/full, written in
 * place as a device is) is said with the disk's own error, and the
 * report still comes: exit status 1, the JSON report whole in its file.
 */
TEST(a_full_disk_for_one_output_keeps_the_report)
{
	struct outs p;
	char *b;
	int ret;

	if (access("/dev/full", W_OK))
		SKIP("no /dev/full");
	outs_make(&p);
	{
		struct trace_opts o = { .json = true, .output = p.output,
					.html = "/dev/full",
					.recording = p.rec };

		capture_begin();
		ret = trace_replay(&o);
		capture_end();
	}
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, "/dev/full (No space left on device)") !=
		    NULL);
	b = slurp(p.output);
	EXPECT_TRUE(b[0] == '{' && strstr(b, "\"worker\"") != NULL);
	free(b);

	/* The trace, written as the replay goes: the same. */
	spit(p.output, OLD);
	{
		struct trace_opts o = { .json = true, .output = p.output,
					.perfetto = "/dev/full",
					.recording = p.rec };

		capture_begin();
		ret = trace_replay(&o);
		capture_end();
	}
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, "No space left on device") != NULL);
	b = slurp(p.output);
	EXPECT_TRUE(b[0] == '{' && strstr(b, "\"worker\"") != NULL);
	free(b);
}

TEST_HARNESS_MAIN
