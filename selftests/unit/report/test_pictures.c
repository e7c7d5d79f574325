// SPDX-License-Identifier: GPL-2.0
/*
 * The SVG pictures and the HTML report (report/pictures.c, svg.c, html.c,
 * util/xml.c, util/afile.c) on a synthetic trace fed through the real
 * pipeline (pictures_scenario.h).  That the pictures render, and the page
 * loads in a browser, is selftests/host/pictures_test.sh's job.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ispot_test.h"
#include "unit/pictures_scenario.h"
#include "unit/stderr_capture.h"
#include "report/html.h"
#include "util/format.h"
#include "report/pictures.h"
#include "util/xml.h"

static char *render(int (*draw)(FILE *, const struct report *,
				const struct picture_source *,
				const struct sci_result *, bool),
		    const struct pictures_scenario *s,
		    const struct sci_result *fn)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f);
	ASSERT_EQ(draw(f, &s->rep, &s->pics, fn, false), 0);
	ASSERT_EQ(fclose(f), 0);
	return buf;
}

static char *escaped(const char *s, size_t max)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f);
	xml_escape(f, s, max);
	ASSERT_EQ(fclose(f), 0);
	return buf;
}

static const struct sci_result *func(const struct pictures_scenario *s,
				     uint32_t id)
{
	const struct sci_result *fn = sci_report_func(s->sci, id);

	ASSERT_TRUE(fn);
	return fn;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay += strlen(needle))
		n++;
	return n;
}

TEST(file_names_are_safe_and_bounded)
{
	char a[PICTURE_BASE_LEN], b[PICTURE_BASE_LEN], longname[400];
	const char *const hostile[] = {
		"../../etc/passwd", "/abs/path", ".hidden", "a b\tc\n",
		"ns::Map<int, std::string>::get(int const&) const",
		"\xc3\xa9t\xc3\xa9", "", "..",
	};
	size_t i, k;

	EXPECT_STREQ(picture_base("acquire", a, sizeof(a)), "acquire");
	EXPECT_STREQ(picture_base("leveldb_put.2", a, sizeof(a)),
		     "leveldb_put.2");
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		picture_base(hostile[i], a, sizeof(a));
		EXPECT_TRUE(a[0] && a[0] != '.' && a[0] != '-');
		for (k = 0; a[k]; k++)
			EXPECT_TRUE(strchr("_.+-", a[k]) ||
				    (a[k] >= '0' && a[k] <= '9') ||
				    (a[k] >= 'a' && a[k] <= 'z') ||
				    (a[k] >= 'A' && a[k] <= 'Z'));
		EXPECT_TRUE(!strstr(a, ".."));
	}
	/* Cleaned alike, named apart. */
	picture_base("f<int>", a, sizeof(a));
	picture_base("f(int)", b, sizeof(b));
	ASSERT_STRNE(a, b);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	picture_base(longname, a, sizeof(a));
	EXPECT_LE(strlen(a), PICTURE_NAME_MAX + 9);
	longname[200] = 'y';
	picture_base(longname, b, sizeof(b));
	ASSERT_STRNE(a, b);
}

TEST(xml_escape_makes_any_bytes_well_formed_text)
{
	char *s = escaped("<script>alert(\"x&y\")</script>'", 0);

	EXPECT_STREQ(s, "&lt;script&gt;alert(&quot;x&amp;y&quot;)"
		     "&lt;/script&gt;&#39;");
	free(s);
	/* UTF-8 stays; a stray byte, an overlong form, a control do not. */
	s = escaped("\xc3\xa9-\xff-\xc0\xaf-\x01-\n", 0);
	EXPECT_STREQ(s, "\xc3\xa9-?-?" "?-?-\n");
	free(s);
	s = escaped("abcdef", 3);
	EXPECT_STREQ(s, "abc...");
	free(s);
}

/* The points of a polyline, from its "points" attribute (px, y down). */
static size_t polyline_points(const char *poly, double *xs, double *ys,
			      size_t max)
{
	const char *p = strstr(poly, "points=\"");
	int used;
	size_t n = 0;

	if (!p)
		return 0;
	for (p += 8; n < max &&
	     sscanf(p, "%lf,%lf%n", &xs[n], &ys[n], &used) == 2; p += used)
		n++;
	return n;
}

TEST(sorted_picture_has_a_rising_line_per_key_on_a_log_axis)
{
	struct pictures_scenario s;
	const struct sci_result *fn;
	char *svg, *p;
	static double xs[20000], ys[20000];
	size_t n, i, lines = 0;

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	fn = func(&s, PS_ACQUIRE);
	ASSERT_EQ(fn->nr_keys, PS_LOCKS);
	svg = render(picture_sorted, &s, fn);
	EXPECT_TRUE(!strncmp(svg, "<?xml", 5));
	EXPECT_TRUE(strstr(svg, "<title>acquire [arg0]: its durations, "
			    "sorted</title>"));
	EXPECT_TRUE(!strstr(svg, "<script"));
	EXPECT_TRUE(!strstr(svg, "href"));
	for (p = svg; (p = strstr(p, "<polyline")); p++) {
		/*
		 * Sorted ascending: left to right, each point as high as
		 * the one before or higher (y grows downwards).
		 */
		n = polyline_points(p, xs, ys, sizeof(ys) / sizeof(ys[0]));
		EXPECT_GT(n, 2);
		for (i = 1; i < n; i++) {
			EXPECT_GE(xs[i], xs[i - 1]);
			EXPECT_LE(ys[i], ys[i - 1] + 1e-9);
		}
		lines++;
	}
	EXPECT_EQ(lines, PS_LOCKS);
	/* Decades: the fastest call (~2us) and the slowest (~400us). */
	EXPECT_TRUE(strstr(svg, ">1us</text>"));
	EXPECT_TRUE(strstr(svg, ">10us</text>"));
	EXPECT_TRUE(strstr(svg, ">100us</text>"));
	EXPECT_TRUE(strstr(svg, ">1ms</text>"));
	EXPECT_TRUE(!strstr(svg, ">2us</text>"));
	EXPECT_TRUE(strstr(svg, "duration (log scale)"));
	EXPECT_TRUE(strstr(svg, "share of its calls"));
	free(svg);
	pictures_scenario_free(&s);
}

TEST(one_key_gets_a_sorted_line_per_thread)
{
	struct pictures_scenario s;
	char *svg;

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	svg = render(picture_sorted, &s, func(&s, PS_CXX));
	EXPECT_EQ(count(svg, "<polyline"), 2);
	EXPECT_TRUE(strstr(svg, ">tid 4000 (200)</text>"));
	EXPECT_TRUE(strstr(svg, ">tid 4001 (200)</text>"));
	/* Every call kept: no word of sampling. */
	EXPECT_TRUE(!strstr(svg, "uniform sample"));
	free(svg);
	/* Without samples, one line from the histogram. */
	s.pics.durations = NULL;
	svg = render(picture_sorted, &s, func(&s, PS_CXX));
	EXPECT_EQ(count(svg, "<polyline"), 1);
	EXPECT_TRUE(strstr(svg, ">all calls (400)</text>"));
	free(svg);
	pictures_scenario_free(&s);
}

TEST(a_sampled_thread_says_so)
{
	struct pictures_scenario s;
	char *svg;
	uint64_t ts = 1ull << 40;
	uint32_t i;

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	sci_report_free(s.sci);
	for (i = 0; i < DURATIONS_CAP + 10; i++)
		ps_call(s.pipe, PS_TGID + 1, 1 + PS_ONE_CALL, 0, &ts, 900);
	s.rep.sci = s.sci = sci_report(s.pipe->sci, 0);
	ASSERT_TRUE(s.sci);
	svg = render(picture_sorted, &s, func(&s, PS_ONE_CALL));
	EXPECT_EQ(count(svg, "<polyline"), 2);
	EXPECT_TRUE(strstr(svg, "uniform sample"));
	free(svg);
	pictures_scenario_free(&s);
}

TEST(histogram_marks_the_fastest_call_the_mean_and_the_loss)
{
	struct pictures_scenario s;
	const struct sci_result *fn;
	char *svg, want[128], ns[32];

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	fn = func(&s, PS_CXX);
	svg = render(picture_hist, &s, fn);
	snprintf(want, sizeof(want), ">fastest %s</text>",
		 format_ns(ns, sizeof(ns), (double)fn->min_ns));
	EXPECT_TRUE(strstr(svg, want));
	snprintf(want, sizeof(want), "loss %s:",
		 format_ns(ns, sizeof(ns), (double)fn->loss_ns));
	EXPECT_TRUE(strstr(svg, want));
	EXPECT_TRUE(strstr(svg, "INTERF"));
	EXPECT_TRUE(strstr(svg, "ns::Map&lt;int, std::string&gt;::get(int "
			    "const&amp;) const"));
	EXPECT_GT(count(svg, "<rect"), 5);
	free(svg);
	pictures_scenario_free(&s);
}

TEST(one_call_and_no_call_still_draw)
{
	struct pictures_scenario s;
	struct sci_result none;
	char *svg;

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	svg = render(picture_sorted, &s, func(&s, PS_ONE_CALL));
	EXPECT_EQ(count(svg, "<polyline"), 1);
	EXPECT_TRUE(strstr(svg, ">10us</text>"));
	EXPECT_TRUE(!strstr(svg, "nan") && !strstr(svg, "inf"));
	free(svg);
	svg = render(picture_hist, &s, func(&s, PS_ONE_CALL));
	EXPECT_TRUE(strstr(svg, "fastest 12.3us"));
	free(svg);
	/* A function id the engine never saw. */
	memset(&none, 0, sizeof(none));
	none.func_id = 77;
	svg = render(picture_sorted, &s, &none);
	EXPECT_TRUE(strstr(svg, "no call of it completed"));
	EXPECT_EQ(count(svg, "<polyline"), 0);
	EXPECT_TRUE(!strstr(svg, "nan") && !strstr(svg, "inf"));
	free(svg);
	svg = render(picture_hist, &s, &none);
	EXPECT_TRUE(strstr(svg, "no call of it completed"));
	free(svg);
	pictures_scenario_free(&s);
}

static char *html_page(const struct pictures_scenario *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f);
	ASSERT_EQ(report_html(f, &s->rep, &s->pics), 0);
	ASSERT_EQ(fclose(f), 0);
	return buf;
}

TEST(html_escapes_every_name_and_runs_only_its_own_script)
{
	struct pictures_scenario s;
	char *page;

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	page = html_page(&s);
	EXPECT_TRUE(!strncmp(page, "<!DOCTYPE html>", 15));
	EXPECT_TRUE(strstr(page, "Content-Security-Policy"));
	EXPECT_TRUE(strstr(page, "default-src 'none'"));
	/* Ours, with its nonce; the target's is text. */
	EXPECT_EQ(count(page, "<script"), 1);
	EXPECT_TRUE(strstr(page, "<script nonce=\""));
	EXPECT_TRUE(!strstr(page, "alert(\"x"));
	EXPECT_TRUE(strstr(page, "&lt;script&gt;alert(&quot;x&amp;y&quot;)"
			     "&lt;/script&gt;&#39;"));
	EXPECT_TRUE(strstr(page, "app --flag &lt;&amp;&gt;"));
	EXPECT_TRUE(!strstr(page, "<&>"));
	/* Nothing fetched: no source, no link out. */
	EXPECT_TRUE(!strstr(page, "src="));
	EXPECT_TRUE(!strstr(page, "<link"));
	EXPECT_EQ(count(page, "http"), count(page, "xmlns=\"http://www.w3"
			".org/2000/svg\"") + 1);	/* + http-equiv */
	free(page);
	pictures_scenario_free(&s);
}

TEST(html_has_the_table_every_function_and_its_pictures)
{
	struct pictures_scenario s;
	char *page, id[32], name[600], *want;
	size_t i;

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	page = html_page(&s);
	EXPECT_TRUE(strstr(page, "<th scope=\"col\">SCI</th>"));
	EXPECT_TRUE(strstr(page, "<th scope=\"col\">INTERF</th>"));
	EXPECT_TRUE(strstr(page, "<th scope=\"col\">FUNCTION</th>"));
	for (i = 0; i < s.sci->nr_funcs; i++) {
		const struct sci_result *fn = &s.sci->funcs[i];
		char pct[16];

		snprintf(id, sizeof(id), "<section id=\"f%u\">", fn->func_id);
		EXPECT_TRUE(strstr(page, id));
		snprintf(id, sizeof(id), "href=\"#f%u\"", fn->func_id);
		EXPECT_TRUE(strstr(page, id));
		/* The table's SCI cell, as the text prints it. */
		snprintf(name, sizeof(name), "<td class=\"num\">%s</td>",
			 report_format_pct(pct, sizeof(pct), fn->sci));
		EXPECT_TRUE(strstr(page, name));
		want = escaped(ps_names[fn->func_id], 0);
		snprintf(name, sizeof(name), "<h2>%s</h2>", want);
		EXPECT_TRUE(strstr(page, name));
		free(want);
	}
	/* Two pictures per function and two flame graphs, inline. */
	EXPECT_EQ(count(page, "<svg "), 2 * s.sci->nr_funcs + 2);
	EXPECT_EQ(count(page, "<?xml"), 0);
	/* The keys' rows, and the footer the text ends with. */
	EXPECT_TRUE(strstr(page, "<tr class=\"key\">"));
	EXPECT_TRUE(strstr(page, "total: "));
	free(page);
	pictures_scenario_free(&s);
}

/* Flame graph @kind's <svg> element in @page, as a string to free. */
static char *flame_of(const char *page, const char *kind)
{
	const char *start, *end;
	char id[64];

	snprintf(id, sizeof(id), "version=\"1.1\" id=\"flame-%s\"", kind);
	start = strstr(page, id);
	ASSERT_TRUE(start);
	end = strstr(start, "</svg>");
	ASSERT_TRUE(end);
	return strndup(start, (size_t)(end - start));
}

/*
 * The flame graphs, before the functions' parts: the loss over the
 * sampled stacks (their frames named, the hostile one escaped), and the
 * wall-clock profile, on and off CPU.
 */
TEST(html_draws_the_loss_and_wall_flame_graphs)
{
	static const struct {
		const char *kind, *text;
		bool there;
	} want[] = {
		{ "loss", "<title>ns::Pool&lt;T&gt;::run()\n", true },
		{ "loss", "<title>acquire\n", true },
		{ "loss", "<title>&lt;/svg&gt;&lt;script&gt;x()&lt;/script&gt;"
			  "&amp;&quot;&#39;\n", true },
		{ "loss", "off CPU", false },
		{ "wall", "<title>[off cpu: futex]\n", true },
		{ "wall", "<title>[on cpu]\n", true },
		{ "wall", "Blue: off CPU", true },
	};
	struct pictures_scenario s;
	char *page, *graph, first[32];
	size_t i;

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	page = html_page(&s);
	EXPECT_EQ(count(page, "<section id=\"flames\">"), 1);
	EXPECT_EQ(count(page, "data-flame=\"loss\""), 1);
	EXPECT_EQ(count(page, "data-flame=\"wall\""), 1);
	EXPECT_EQ(count(page, "No flame graph"), 0);
	snprintf(first, sizeof(first), "<section id=\"f%u\">",
		 s.sci->funcs[0].func_id);
	EXPECT_TRUE(strstr(page, first) &&
		    strstr(page, "id=\"flame-wall\"") < strstr(page, first));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		graph = flame_of(page, want[i].kind);
		if (!strstr(graph, want[i].text) != !want[i].there)
			TH_LOG("the %s graph %s \"%s\"", want[i].kind,
			       want[i].there ? "lacks" : "has", want[i].text);
		EXPECT_EQ(!strstr(graph, want[i].text), !want[i].there);
		free(graph);
	}
	free(page);
	pictures_scenario_free(&s);
}

/* Each graph only with its data; with neither, one line says so. */
TEST(html_flame_graphs_need_their_data)
{
	struct pictures_scenario s;
	const struct stacks *stacks;
	char *page;

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	stacks = s.rep.stacks;
	s.pics.wall_folded = NULL;
	page = html_page(&s);
	EXPECT_EQ(count(page, "data-flame=\"loss\""), 1);
	EXPECT_EQ(count(page, "data-flame=\"wall\""), 0);
	free(page);
	s.rep.stacks = NULL;
	page = html_page(&s);
	EXPECT_EQ(count(page, "data-flame="), 0);
	EXPECT_EQ(count(page, "<p>No flame graph: no call stack was sampled, "
			"and no wall-clock profile was taken (--auto takes "
			"one).</p>\n"), 1);
	free(page);
	s.pics.wall_folded = ps_wall_fold;
	page = html_page(&s);
	EXPECT_EQ(count(page, "data-flame=\"loss\""), 0);
	EXPECT_EQ(count(page, "data-flame=\"wall\""), 1);
	EXPECT_EQ(count(page, "No flame graph"), 0);
	free(page);
	s.rep.stacks = stacks;
	pictures_scenario_free(&s);
}

static size_t files_in(const char *dir, const char *suffix)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	size_t n = 0;

	ASSERT_TRUE(dp);
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);

		if (len > strlen(suffix) &&
		    !strcmp(d->d_name + len - strlen(suffix), suffix))
			n++;
		else if (d->d_name[0] == '.' && strcmp(d->d_name, ".") &&
			 strcmp(d->d_name, ".."))
			n += 1000;	/* a temporary file left behind */
	}
	closedir(dp);
	return n;
}

TEST(svg_dir_gets_two_files_per_function_named_from_it)
{
	struct pictures_scenario s;
	char dir[] = "/tmp/ispot-pictures-XXXXXX", path[256];
	struct stat st;

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	ASSERT_TRUE(mkdtemp(dir));
	ASSERT_EQ(pictures_write(dir, &s.rep, &s.pics), 0);
	EXPECT_EQ(files_in(dir, ".sorted.svg"), s.sci->nr_funcs);
	EXPECT_EQ(files_in(dir, ".hist.svg"), s.sci->nr_funcs);
	snprintf(path, sizeof(path), "%s/acquire.sorted.svg", dir);
	EXPECT_EQ(stat(path, &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0644);
	snprintf(path, sizeof(path), "%s/one_call.hist.svg", dir);
	EXPECT_EQ(stat(path, &st), 0);
	EXPECT_GT(st.st_size, 500);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	EXPECT_EQ(system(path), 0);
	pictures_scenario_free(&s);
}

TEST(two_functions_of_one_name_keep_apart)
{
	struct pictures_scenario s;
	char dir[] = "/tmp/ispot-pictures-XXXXXX", cmd[256];

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	/* one_call and the C++ method now read the same. */
	s.build.funcs[PS_ONE_CALL].name = s.build.funcs[PS_CXX].name;
	ASSERT_TRUE(mkdtemp(dir));
	ASSERT_EQ(pictures_write(dir, &s.rep, &s.pics), 0);
	EXPECT_EQ(files_in(dir, ".sorted.svg"), s.sci->nr_funcs);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(system(cmd), 0);
	pictures_scenario_free(&s);
}

TEST(unwritable_dir_is_one_line_and_leaves_nothing)
{
	struct pictures_scenario s;
	char dir[] = "/tmp/ispot-pictures-XXXXXX", sub[300], cmd[300];

	ASSERT_EQ(pictures_scenario_build(&s), 0);
	ASSERT_TRUE(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/missing", dir);
	capture_begin();
	EXPECT_EQ(pictures_write(sub, &s.rep, &s.pics), -1);
	capture_end();
	EXPECT_TRUE(strstr(captured, "choose a writable --svg directory"));
	EXPECT_EQ(count(captured, "\n"), 1);
	EXPECT_EQ(files_in(dir, ".svg"), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(system(cmd), 0);
	pictures_scenario_free(&s);
}

TEST_HARNESS_MAIN
