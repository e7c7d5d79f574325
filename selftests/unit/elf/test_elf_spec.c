// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/elf/elf_spec.c and elf_symtab.c: function specs to
 * probe points.
 *
 * Offsets are compared with objdump's; where code is loaded into this
 * process (this test binary, libc, a dlopen()ed fixture), the bytes at the
 * resolved file offset are also compared with the bytes at the symbol's
 * runtime address.
 */
#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "elf_fixtures.h"

/* Code of our own, resolved back by the tests. */
__attribute__((noinline, noclone, used))
int elf_test_target_fn(int x)
{
	return x * 7 + 3;
}

static void check_offsets(const char *bin, const char *const *names,
			  long long vaddr_minus_offset)
{
	size_t i;

	for (i = 0; names[i]; i++) {
		struct elf_target_sym t = resolve_one(names[i], 0, bin);
		long long want = objdump_offset(bin, names[i]);

		ASSERT_NE(want, -1);
		EXPECT_EQ(t.offset, want);
		EXPECT_EQ(t.vaddr - t.offset, vaddr_minus_offset);
		EXPECT_STREQ(t.name, names[i]);
		EXPECT_STREQ(t.obj, canon(bin));
	}
}

static const char *const app_funcs[] = {
	"compute", "compute_fast", "worker_a", "worker_b", "worker_c",
	"api_entry", "api_exit", "main", NULL
};

TEST(pie_offsets_match_objdump)
{
	check_offsets(fixture("app_pie"), app_funcs, 0);
}

TEST(nopie_offsets_match_objdump)
{
	/* Linked at 0x400000: vaddr and offset differ by the base. */
	check_offsets(fixture("app_nopie"), app_funcs, 0x400000);
}

TEST(shlib_offsets_match_objdump)
{
	static const char *const names[] = {
		"fx_add", "fx_mul", "fx_nosize", NULL
	};

	/* libfx.so is linked at a 0x200000 base. */
	check_offsets(fixture("libfx.so"), names, 0x200000);
}

TEST(shlib_bytes_match_loaded_code)
{
	static const char *const names[] = { "fx_add", "fx_mul", NULL };
	const char *lib = fixture("libfx.so");
	struct elf_map *maps;
	char err[ERRLEN];
	uint64_t bias;
	size_t nmaps, i;
	void *h;

	h = dlopen(lib, RTLD_NOW);
	ASSERT_TRUE(h);
	ASSERT_EQ(elf_maps_read(0, &maps, &nmaps, err, sizeof(err)), 0);
	ASSERT_EQ(elf_load_bias(maps, nmaps, lib, &bias, err, sizeof(err)), 0);
	for (i = 0; names[i]; i++) {
		struct elf_target_sym *t;
		unsigned char file[64];
		size_t n;
		void *addr = dlsym(h, names[i]);

		ASSERT_TRUE(addr);
		ASSERT_EQ(elf_resolve_file(lib, names[i], &t, &n, err,
					   sizeof(err)), 0);
		ASSERT_EQ(n, 1);
		ASSERT_GT(t->size, 0);
		ASSERT_LE(t->size, sizeof(file));
		EXPECT_EQ(bias + t->vaddr, (uintptr_t)addr);
		pread_all(lib, t->offset, file, t->size);
		EXPECT_EQ(memcmp(file, addr, t->size), 0);
		free(t);
	}
	elf_maps_free(maps, nmaps);
	dlclose(h);
}

TEST(self_offset_bytes_match_memory)
{
	struct elf_target_sym t;
	unsigned char file[256];

	/* No OBJ and no exe: the main executable of the pid. */
	t = resolve_one("elf_test_target_fn", getpid(), NULL);
	EXPECT_STREQ(t.obj, canon("/proc/self/exe"));
	ASSERT_GT(t.size, 0);
	ASSERT_LE(t.size, sizeof(file));
	pread_all(t.obj, t.offset, file, t.size);
	EXPECT_EQ(memcmp(file, (void *)elf_test_target_fn, t.size), 0);
}

/*
 * A target in a mount namespace of its own runs its program from a path
 * that here names another file (a decoy: this test's own binary, whose
 * elf_test_target_fn the program lacks).  The path is not read here: the
 * spec resolves in what the process runs, through /proc/PID/exe, and
 * fails; before, it resolved in the decoy.
 */
TEST(exe_path_of_another_mount_namespace_not_read_here)
{
	char dir[] = "/tmp/test_elf_ns.XXXXXX", prog[64], decoy[64];
	char cmd[256], link[64], got[PATH_MAX];
	ssize_t r = -1;
	pid_t pid;
	int i;

	if (geteuid())
		SKIP("needs root to make a mount namespace");
	ASSERT_TRUE(mkdtemp(dir));
	snprintf(prog, sizeof(prog), "%s/sleep", dir);
	snprintf(decoy, sizeof(decoy), "%s/decoy", dir);
	snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s && cp /proc/%d/exe %s",
		 prog, (int)getpid(), decoy);
	ASSERT_EQ(system(cmd), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount(prog, decoy, NULL, MS_BIND, NULL))
			_exit(3);
		execl(decoy, "decoy", "30", (char *)NULL);
		_exit(4);
	}
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	for (i = 0; i < 200; i++) {
		r = readlink(link, got, sizeof(got) - 1);
		if (r > 0 && (got[r] = '\0', !strcmp(got, decoy)))
			break;
		usleep(10000);
	}
	if (r <= 0 || strcmp(got, decoy)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		SKIP("no mount namespace of its own here");
	}
	resolve_fail("elf_test_target_fn", pid, NULL, -ENOENT);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ASSERT_EQ(system(cmd), 0);
}

TEST(glob_matches)
{
	static const char *const want[] = {
		"worker_a", "worker_b", "worker_c"
	};
	static const char *const globs[] = { "worker_*", "worker_?",
					     "worker_[abc]", "*orker*" };
	const char *app = fixture("app_pie");
	struct elf_target_sym *t;
	char err[ERRLEN];
	size_t n, i, g;

	for (g = 0; g < sizeof(globs) / sizeof(globs[0]); g++) {
		ASSERT_EQ(elf_resolve_spec(globs[g], 0, app, &t, &n, err,
					   sizeof(err)), 0);
		ASSERT_EQ(n, 3);
		for (i = 0; i < n; i++) {
			EXPECT_STREQ(t[i].name, want[i]);
			EXPECT_EQ(t[i].offset, objdump_offset(app, want[i]));
		}
		free(t);
	}
	resolve_fail("worker_[xyz]", 0, app, -ENOENT);
}

TEST(aliases_probed_once)
{
	static const char *const names[] = {
		"process_item", "proc_item", "__process_item_internal"
	};
	static const char *const pick1[] = { "__a", "_b", "zz", "aa", "ccc" };
	static const char *const pick2[] = { "__y", "_x" };
	const char *app = fixture("app_pie");
	struct elf_target_sym *t;
	char err[ERRLEN];
	long long want = objdump_offset(app, "__process_item_internal");
	size_t n, i;

	/* objdump labels the shared address with one of the names. */
	if (want < 0)
		want = objdump_offset(app, "process_item");
	if (want < 0)
		want = objdump_offset(app, "proc_item");
	ASSERT_NE(want, -1);
	for (i = 0; i < 3; i++) {
		struct elf_target_sym r = resolve_one(names[i], 0, app);

		EXPECT_EQ(r.offset, want);
		EXPECT_STREQ(r.name, names[i]);
	}

	/* A glob hitting all three names yields one probe, best name. */
	ASSERT_EQ(elf_resolve_spec("*item*", 0, app, &t, &n, err,
				   sizeof(err)), 0);
	ASSERT_EQ(n, 1);
	EXPECT_STREQ(t[0].name, "proc_item");
	EXPECT_EQ(t[0].offset, want);
	free(t);

	EXPECT_STREQ(pick1[elf_pick_name(pick1, 5)], "aa");
	EXPECT_STREQ(pick2[elf_pick_name(pick2, 2)], "_x");
	EXPECT_EQ(elf_pick_name(pick1, 0), 0);
}

TEST(versioned_symbols)
{
	const char *lib = fixture("libfxver.so");
	long long v1 = objdump_offset(lib, "foo@V1");
	long long v2 = objdump_offset(lib, "foo@@V2");
	struct elf_target_sym r, *t;
	char err[ERRLEN];
	size_t n;

	ASSERT_NE(v1, -1);
	ASSERT_NE(v2, -1);
	ASSERT_NE(v1, v2);

	/* Plain name: the default version only. */
	r = resolve_one("foo", 0, lib);
	EXPECT_EQ(r.offset, v2);
	EXPECT_STREQ(r.name, "foo");
	EXPECT_TRUE(r.flags & ELF_SYM_VERSIONED);

	r = resolve_one("foo@V1", 0, lib);
	EXPECT_EQ(r.offset, v1);
	EXPECT_STREQ(r.name, "foo@V1");

	r = resolve_one("foo@@V2", 0, lib);
	EXPECT_EQ(r.offset, v2);
	EXPECT_STREQ(r.name, "foo@@V2");

	r = resolve_one("foo@V2", 0, lib);
	EXPECT_EQ(r.offset, v2);

	r = resolve_one("bar", 0, lib);
	EXPECT_EQ(r.offset, objdump_offset(lib, "bar"));

	/* V1 exists but is not the default. */
	resolve_fail("foo@@V1", 0, lib, -ENOENT);
	resolve_fail("foo@V3", 0, lib, -ENOENT);

	/*
	 * foo_v1/foo_v2 are the local names behind the versions: foo_v2
	 * folds into foo, foo_v1 stays on its own (foo@V1 is hidden).
	 */
	ASSERT_EQ(elf_resolve_file(lib, "foo*", &t, &n, err, sizeof(err)), 0);
	ASSERT_EQ(n, 2);
	EXPECT_STREQ(t[0].name, "foo");
	EXPECT_EQ(t[0].offset, v2);
	EXPECT_STREQ(t[1].name, "foo_v1");
	EXPECT_EQ(t[1].offset, v1);
	free(t);
}

TEST(stripped_binary)
{
	const char *app = fixture("app_stripped");
	const char *err;
	struct elf_target_sym r;

	err = resolve_fail("compute", 0, app, -ENOENT);
	EXPECT_TRUE(strstr(err, "no function 'compute' in "));
	EXPECT_TRUE(strstr(err, "stripped"));

	err = resolve_fail("api_entr", 0, app, -ENOENT);
	EXPECT_TRUE(strstr(err, "stripped"));
	EXPECT_TRUE(strstr(err, "; did you mean: api_entry?"));

	/* .dynsym survives strip and gives the same offset. */
	r = resolve_one("api_entry", 0, app);
	EXPECT_EQ(r.offset, objdump_offset(fixture("app_pie"), "api_entry"));
}

TEST(unresolvable_name_suggestions)
{
	const char *app = fixture("app_pie");
	char want[ERRLEN + PATH_MAX];
	const char *err;

	err = resolve_fail("comput", 0, app, -ENOENT);
	snprintf(want, sizeof(want),
		 "no function 'comput' in %s, nor in the 4 libraries it loads (libfx.so, libc.so.6, libfxdep.so, ld-linux-x86-64.so.2); did you mean: compute, compute_fast?",
		 app);
	EXPECT_STREQ(err, want);

	err = resolve_fail("wroker_b", 0, app, -ENOENT);
	EXPECT_TRUE(strstr(err, "did you mean: worker_b"));

	err = resolve_fail("zzqqxxjj", 0, app, -ENOENT);
	EXPECT_FALSE(strstr(err, "did you mean"));

	err = resolve_fail("gm_ridlock", 0, app, -ENOENT);
	EXPECT_TRUE(strstr(err, "not a function"));
}

TEST(non_executable_symbol_rejected)
{
	const char *lib = fixture("libfx.so");
	struct elf_target_sym *t;
	char err[ERRLEN];
	const char *msg;
	size_t n, i;

	msg = resolve_fail("fx_datafunc", 0, lib, -EINVAL);
	EXPECT_TRUE(strstr(msg, "not in an executable segment"));

	/* A glob quietly leaves it out. */
	ASSERT_EQ(elf_resolve_file(lib, "fx_*", &t, &n, err, sizeof(err)), 0);
	ASSERT_GE(n, 4);
	for (i = 0; i < n; i++)
		EXPECT_NE(strcmp(t[i].name, "fx_datafunc"), 0);
	free(t);
}

TEST(ifunc_flagged)
{
	const char *lib = fixture("libfx.so");
	struct elf_target_sym r = resolve_one("fx_fast", 0, lib);

	EXPECT_TRUE(r.flags & ELF_SYM_IFUNC);
	EXPECT_EQ(r.offset, objdump_offset(lib, "fx_fast_resolver"));
}

TEST(bad_specs)
{
	const char *app = fixture("app_pie");

	resolve_fail("", 0, app, -EINVAL);
	resolve_fail(":compute", 0, app, -EINVAL);
	resolve_fail("libc:", 0, app, -EINVAL);
	resolve_fail("foo@", 0, app, -EINVAL);
	resolve_fail("@V1", 0, app, -EINVAL);
	resolve_fail("compute", 0, NULL, -EINVAL);
	resolve_fail("libnope:compute", 0, app, -ENOENT);
}

TEST(object_name_matching)
{
	EXPECT_TRUE(elf_obj_name_matches("/usr/lib/x86_64-linux-gnu/libc.so.6",
					 "libc"));
	EXPECT_TRUE(elf_obj_name_matches("/lib/libc-2.31.so", "libc"));
	EXPECT_TRUE(elf_obj_name_matches("libc.so.6", "libc.so.6"));
	EXPECT_TRUE(elf_obj_name_matches("/usr/bin/app", "app"));
	EXPECT_FALSE(elf_obj_name_matches("/usr/lib/libcrypt.so.1", "libc"));
	EXPECT_FALSE(elf_obj_name_matches("/usr/lib/libc.so.6", "libc.so.7"));
	EXPECT_FALSE(elf_obj_name_matches("/usr/lib/libc.so.6", "usr"));
	EXPECT_FALSE(elf_obj_name_matches("/usr/lib/libc.so.6", ""));
}

TEST(run_mode_specs)
{
	const char *app = fixture("app_pie");
	char spec[PATH_MAX + 16];
	struct elf_target_sym r;

	/* Not started: OBJ found through DT_NEEDED. */
	r = resolve_one("libfx:fx_add", 0, app);
	EXPECT_STREQ(r.obj, canon(fixture("libfx.so")));
	EXPECT_EQ(r.offset, objdump_offset(fixture("libfx.so"), "fx_add"));

	r = resolve_one("libc:pthread_mutex_lock", 0, app);
	EXPECT_STREQ(r.obj, mapped_libc());

	/* The executable's own short name, and OBJ as a path. */
	r = resolve_one("app_pie:compute", 0, app);
	EXPECT_EQ(r.offset, objdump_offset(app, "compute"));
	snprintf(spec, sizeof(spec), "%s:fx_mul", fixture("libfx.so"));
	r = resolve_one(spec, 0, app);
	EXPECT_STREQ(r.obj, canon(fixture("libfx.so")));
	EXPECT_EQ(r.offset, objdump_offset(fixture("libfx.so"), "fx_mul"));
}

TEST_HARNESS_MAIN
