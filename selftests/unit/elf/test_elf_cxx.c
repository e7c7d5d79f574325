// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for C++ names: user/lib/elf/demangle.c and the C++ side of spec
 * resolution, on fixtures/cxx_app (namespaces, overloads, templates, a
 * lambda, an anonymous namespace) built by g++.  Offsets are objdump's,
 * looked up by mangled name.
 */
#include <fcntl.h>
#include <time.h>

#include "elf/demangle.h"
#include "elf_fixtures.h"
#include "cli/options.h"

/* Resolve spec in cxx_app to one function: its offset and names. */
static void expect_one(const char *spec, const char *mangled,
		       const char *demangled)
{
	const char *app = fixture("cxx_app");
	struct elf_target_sym t = resolve_one(spec, 0, app);
	long long want = objdump_offset(app, mangled);

	ASSERT_NE(want, -1);
	EXPECT_EQ(t.offset, want);
	EXPECT_STREQ(t.name, demangled);
	EXPECT_STREQ(t.linkage_name, mangled);
}

TEST(demangled_names_resolve)
{
	/* Full names, as nm -C and the reports print them. */
	expect_one("ns::Widget::get(int)", "_ZN2ns6Widget3getEi",
		   "ns::Widget::get(int)");
	expect_one("ns::Widget::get(double) const", "_ZNK2ns6Widget3getEd",
		   "ns::Widget::get(double) const");
	/* A template keeps no return type in its name; given, it is fine. */
	expect_one("ns::twice<int>(int)", "_ZN2ns5twiceIiEET_S1_",
		   "ns::twice<int>(int)");
	expect_one("double ns::twice<double>(double)",
		   "_ZN2ns5twiceIdEET_S1_", "ns::twice<double>(double)");
	/* The mangled name still works, and is shown demangled. */
	expect_one("_ZN2ns3runEi", "_ZN2ns3runEi", "ns::run(int)");
}

TEST(name_without_parameters)
{
	expect_one("ns::Widget::make", "_ZN2ns6Widget4makeEv",
		   "ns::Widget::make()");
	/* The lambda inside ns::run(int) is not ns::run. */
	expect_one("ns::run", "_ZN2ns3runEi", "ns::run(int)");
	expect_one("ns::run(int)::{lambda(int)#1}::operator()",
		   "_ZZN2ns3runEiENKUliE_clEi",
		   "ns::run(int)::{lambda(int)#1}::operator()(int) const");
	expect_one("(anonymous namespace)::Helper::work",
		   "_ZN12_GLOBAL__N_16Helper4workEi",
		   "(anonymous namespace)::Helper::work(int)");
	expect_one("ns::twice<int>", "_ZN2ns5twiceIiEET_S1_",
		   "ns::twice<int>(int)");
}

static size_t resolve_all(const char *spec, struct elf_target_sym **t)
{
	char err[ERRLEN] = "";
	size_t n = 0;
	int rc;

	rc = elf_resolve_spec(spec, 0, fixture("cxx_app"), t, &n, err,
			      sizeof(err));
	if (rc)
		TH_LOG("%s: %s", spec, err);
	ASSERT_EQ(rc, 0);
	return n;
}

TEST(globs_over_demangled_names)
{
	struct elf_target_sym *t;

	/* Sorted by display name. */
	ASSERT_EQ(resolve_all("ns::Widget::*", &t), 3);
	EXPECT_STREQ(t[0].name, "ns::Widget::get(double) const");
	EXPECT_STREQ(t[1].name, "ns::Widget::get(int)");
	EXPECT_STREQ(t[2].name, "ns::Widget::make()");
	free(t);
	/* The form: a glob over the scope, no parameters. */
	ASSERT_EQ(resolve_all("ns::*::get", &t), 2);
	free(t);
	ASSERT_EQ(resolve_all("ns::Widget::get(*)", &t), 2);
	free(t);
	ASSERT_EQ(resolve_all("ns::twice*", &t), 2);
	free(t);
	ASSERT_EQ(resolve_all("*Helper::work", &t), 1);
	EXPECT_STREQ(t[0].name, "(anonymous namespace)::Helper::work(int)");
	free(t);
	/* Mangled globs as before. */
	ASSERT_EQ(resolve_all("_ZN2ns6Widget*", &t), 2);
	free(t);
}

TEST(ambiguous_name_lists_overloads)
{
	const char *err = resolve_fail("ns::Widget::get", 0,
				       fixture("cxx_app"), -EINVAL);

	EXPECT_TRUE(strstr(err, "'ns::Widget::get' is ambiguous in "));
	EXPECT_TRUE(strstr(err, "ns::Widget::get(int)"));
	EXPECT_TRUE(strstr(err, "ns::Widget::get(double) const"));
	EXPECT_TRUE(strstr(err, "parameter list"));
	EXPECT_TRUE(strstr(err, "'ns::Widget::get(*)'"));
}

TEST(scope_is_not_obj)
{
	const char *app = fixture("cxx_app");
	char spec[PATH_MAX + 32];
	const char *err;

	/* OBJ: before a C++ name, as a short name and as a path. */
	expect_one("cxx_app:ns::Widget::make", "_ZN2ns6Widget4makeEv",
		   "ns::Widget::make()");
	snprintf(spec, sizeof(spec), "%s:ns::run", app);
	expect_one(spec, "_ZN2ns3runEi", "ns::run(int)");
	/* The error was "no library matching 'nope:'". */
	err = resolve_fail("nope::Thing::f", 0, app, -ENOENT);
	EXPECT_TRUE(strstr(err, "no function 'nope::Thing::f' in "));
	EXPECT_FALSE(strstr(err, "library"));
}

TEST(suggestions_are_demangled)
{
	const char *err = resolve_fail("ns::Widget::mak", 0,
				       fixture("cxx_app"), -ENOENT);

	EXPECT_TRUE(strstr(err, "did you mean: ns::Widget::make()"));
}

TEST(parts_of_demangled_names)
{
	static const struct {
		const char *in, *noret;
		size_t bare;
	} cases[] = {
		{ "ns::A::f(int) const", "ns::A::f(int) const", 8 },
		{ "int ns::max<int>(int, int)", "ns::max<int>(int, int)", 12 },
		{ "unsigned long f<char>(char)", "f<char>(char)", 7 },
		{ "ns::A::operator<(ns::A const&) const",
		  "ns::A::operator<(ns::A const&) const", 16 },
		{ "ns::A::operator new(unsigned long)",
		  "ns::A::operator new(unsigned long)", 19 },
		{ "ns::A::operator unsigned long() const",
		  "ns::A::operator unsigned long() const", 29 },
		{ "f(int) [clone .cold]", "f(int) [clone .cold]", 1 },
		{ "(anonymous namespace)::H::w(int) &&",
		  "(anonymous namespace)::H::w(int) &&", 27 },
		{ "ns::counter", "ns::counter", 11 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TH_LOG("%s", cases[i].in);
		EXPECT_STREQ(demangle_skip_return(cases[i].in),
			     cases[i].noret);
		EXPECT_EQ(demangle_bare_len(cases[i].in) -
			  (strlen(cases[i].in) - strlen(cases[i].noret)),
			  cases[i].bare);
	}
	EXPECT_TRUE(demangle_is_mangled("_ZN2ns3runEi"));
	EXPECT_FALSE(demangle_is_mangled("main"));
	EXPECT_TRUE(demangle("main") == NULL);
	EXPECT_TRUE(demangle("_Zbogus") == NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A real C++ library: libstdc++ itself, found as cxx_app's DT_NEEDED.
 * Its symbols are versioned and only in .dynsym; a glob demangles all of
 * them (about 4,500 functions), whose time is logged.
 */
TEST(real_libstdcxx)
{
	static const char glob[] = "std::__cxx11::basic_string<*>::_M_create";
	static const char params[] = "::_M_create(unsigned long&, unsigned long)";
	char lib[PATH_MAX], err[ERRLEN], spec[PATH_MAX + 64];
	struct elf_target_sym r, *t;
	double t0;
	size_t n, i;

	ASSERT_EQ(elf_find_needed(fixture("cxx_app"), "libstdc++", lib,
				  sizeof(lib), err, sizeof(err)), 0);
	snprintf(spec, sizeof(spec), "%s:std::locale::classic", lib);
	r = resolve_one(spec, 0, NULL);
	EXPECT_STREQ(r.name, "std::locale::classic()");
	EXPECT_STREQ(r.linkage_name, "_ZNSt6locale7classicEv");
	EXPECT_TRUE(r.flags & ELF_SYM_VERSIONED);

	t0 = now_s();
	ASSERT_EQ(elf_resolve_file(lib, glob, &t, &n, err, sizeof(err)), 0);
	TH_LOG("glob over libstdc++'s demangled names: %.0f ms",
	       (now_s() - t0) * 1e3);
	/* char and wchar_t, maybe more character types. */
	ASSERT_GE(n, 2);
	for (i = 0; i < n; i++)
		EXPECT_TRUE(strstr(t[i].name, params));
	free(t);
}

/* --key names a C++ function as --func does, parameter list optional. */
TEST(key_takes_cxx_names)
{
	static char func[] = "ns::Widget::get";
	struct trace_opts o = { .nr_keys = 1 };
	struct key_rule r;
	char desc[32];

	o.keys[0].func = func;
	o.keys[0].rule.kind = KEY_ARG;
	o.keys[0].rule.arg = 1;
	r = trace_opts_key(&o, &(struct key_target){ "/bin/app",
			   "ns::Widget::get(double) const", NULL }, desc,
			   sizeof(desc));
	EXPECT_EQ(r.kind, KEY_ARG);
	EXPECT_STREQ(desc, "arg1");
	r = trace_opts_key(&o, &(struct key_target){ "/bin/app",
			   "ns::Widget::make()", NULL }, desc, sizeof(desc));
	EXPECT_EQ(r.kind, KEY_NONE);
}

/* Run fn with stderr going to a file; what it wrote is returned. */
static const char *capture_stderr(void (*fn)(void))
{
	static char buf[4096];
	char path[] = "/tmp/test_elf_cxx.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t r;

	ASSERT_GE(fd, 0);
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	r = pread(fd, buf, sizeof(buf) - 1, 0);
	ASSERT_GE(r, 0);
	buf[r] = '\0';
	close(fd);
	unlink(path);
	return buf;
}

static void resolve_without_demangler(void)
{
	static const char *const none[] = { "libnope-demangler.so.9", NULL };
	const char *app = fixture("cxx_app");
	struct elf_target_sym t;

	demangle_reset(none);
	t = resolve_one("_ZN2ns3runEi", 0, app);
	EXPECT_STREQ(t.name, "_ZN2ns3runEi");
	EXPECT_STREQ(t.linkage_name, "");
	t = resolve_one("_ZN2ns6Widget4makeEv", 0, app);
	EXPECT_STREQ(t.name, "_ZN2ns6Widget4makeEv");
	resolve_fail("ns::run", 0, app, -ENOENT);
	demangle_reset(NULL);
}

TEST(no_demangler_names_stay_mangled)
{
	const char *out = capture_stderr(resolve_without_demangler);
	const char *note = strstr(out, "no C++ demangler found");

	TH_LOG("stderr: %s", out);
	ASSERT_TRUE(note);
	/* Once per process, however many names. */
	EXPECT_FALSE(strstr(note + 1, "no C++ demangler found"));
	EXPECT_FALSE(strchr(out, '\n') != strrchr(out, '\n'));
}

TEST_HARNESS_MAIN
