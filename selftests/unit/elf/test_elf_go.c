// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/elf/elf_go.c: functions of a Go program are refused
 * for return probes, which would crash it, and resolve for entry-only
 * probes.
 *
 * Fixtures: app_gobuildinfo is app_pie with a .go.buildinfo section added
 * by objcopy; app_gort is a C program with a runtime.main function.  The
 * real Go program is Debian's promtool (the prometheus package, which
 * scripts/deps.sh installs for the host tests): stripped, with a build-id
 * and a debug link, as distributions ship Go binaries.
 */
#include "elf_fixtures.h"

#define REAL_GO_BINARY	"/usr/bin/promtool"

static void expect_go_refusal(const char *err, const char *bin)
{
	EXPECT_TRUE(strstr(err, bin));
	EXPECT_TRUE(strstr(err, "is a Go program"));
	EXPECT_TRUE(strstr(err, "return probe"));
	EXPECT_TRUE(strstr(err, "Go moves stacks"));
}

static struct elf_target_sym entry_only(const char *spec, const char *bin)
{
	return resolve_one_flags(spec, 0, bin, ELF_RESOLVE_ENTRY_ONLY);
}

TEST(go_buildinfo_section_refused)
{
	const char *bin = fixture("app_gobuildinfo");
	struct elf_target_sym t;
	char spec[PATH_MAX + 16];

	expect_go_refusal(resolve_fail("compute", 0, bin, -EPERM), bin);
	/* Named through OBJ: too. */
	snprintf(spec, sizeof(spec), "%s:compute", bin);
	expect_go_refusal(resolve_fail(spec, 0, bin, -EPERM), bin);

	t = entry_only("compute", bin);
	EXPECT_EQ(t.offset, objdump_offset(fixture("app_pie"), "compute"));
}

TEST(runtime_main_symbol_refused)
{
	const char *bin = fixture("app_gort");
	struct elf_target_sym t;

	expect_go_refusal(resolve_fail("go_work", 0, bin, -EPERM), bin);
	t = entry_only("go_work", bin);
	EXPECT_EQ(t.offset, objdump_offset(bin, "go_work"));
}

TEST(c_programs_unaffected)
{
	/* The same code without the Go section resolves as before. */
	resolve_one("compute", 0, fixture("app_pie"));
	resolve_one("fx_add", 0, fixture("libfx.so"));
}

TEST(real_go_binary)
{
	struct elf_target_sym *t;
	char err[ERRLEN] = "";
	size_t n;
	int rc;

	if (access(REAL_GO_BINARY, R_OK))
		SKIP("%s missing: scripts/deps.sh installs prometheus",
		     REAL_GO_BINARY);
	expect_go_refusal(resolve_fail("main.main", 0, REAL_GO_BINARY, -EPERM),
			  REAL_GO_BINARY);

	/*
	 * Entry-only gets past the refusal; Debian strips it, so without
	 * its -dbgsym package the error says which build-id to install.
	 */
	rc = elf_resolve_spec_flags("main.main", 0, REAL_GO_BINARY,
				    ELF_RESOLVE_ENTRY_ONLY, &t, &n, err,
				    sizeof(err));
	TH_LOG("entry-only: %d: %s", rc, err);
	if (!rc) {
		free(t);
		SKIP("%s has symbols here (its -dbgsym installed?)",
		     REAL_GO_BINARY);
	}
	EXPECT_EQ(rc, -ENOENT);
	EXPECT_TRUE(strstr(err, "install the -dbgsym package for build-id "));
}

TEST_HARNESS_MAIN
