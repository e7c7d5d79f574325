// SPDX-License-Identifier: GPL-2.0
/*
 * What one object may cost the resolver (user/lib/elf/elf_internal.h):
 * ispotd resolves as root the files a user controls, so a file of a few
 * KB on disk that claims a huge symbol table or string table (a sparse
 * file) is refused by the bound it crosses, before anything is read,
 * instead of being read into memory.  And an object without any symbol
 * table, whose empty symbol list must not reach qsort() as NULL.
 */
#include <dlfcn.h>
#include <elf.h>
#include <sys/resource.h>
#include <time.h>

#include "elf_fixtures.h"

/*
 * qsort() as this binary sees it: the real one, after noting a NULL base
 * (undefined behaviour even with 0 elements: glibc declares it nonnull).
 */
static int qsort_null_calls;

/* Not qsort() itself, whose declaration lets the compiler assume base. */
static void qsort_checked(void *base, size_t n, size_t size,
			  int (*cmp)(const void *, const void *))
{
	void (*real)(void *, size_t, size_t,
		     int (*)(const void *, const void *));

	if (!base) {
		qsort_null_calls++;
		return;
	}
	*(void **)&real = dlsym(RTLD_NEXT, "qsort");
	real(base, n, size, cmp);
}

void qsort(void *base, size_t n, size_t size,
	   int (*cmp)(const void *, const void *))
	__attribute__((alias("qsort_checked")));

struct sparse {
	char dir[64];
	char path[128];
};

/*
 * An ELF shared object with no program headers and three sections: the
 * null one, a .symtab of symsz bytes and its .strtab of strsz bytes, laid
 * out one after the other in a sparse file: a few KB on disk whatever the
 * sizes.  Each table begins with a real entry, the rest are holes.
 */
static void make_sparse(struct sparse *s, uint64_t symsz, uint64_t strsz)
{
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
			     ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_DYN,
		.e_machine = EM_X86_64,
		.e_version = EV_CURRENT,
		.e_ehsize = sizeof(Elf64_Ehdr),
		.e_shoff = 4096,
		.e_shentsize = sizeof(Elf64_Shdr),
		.e_shnum = 3,
	};
	Elf64_Shdr sh[3] = {
		[1] = { .sh_type = SHT_SYMTAB, .sh_offset = 8192,
			.sh_size = symsz, .sh_link = 2,
			.sh_entsize = sizeof(Elf64_Sym) },
		[2] = { .sh_type = SHT_STRTAB, .sh_offset = 8192 + symsz,
			.sh_size = strsz },
	};
	Elf64_Sym sym = { .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL,
								 STT_FUNC),
			  .st_shndx = 1 };
	int fd;

	snprintf(s->dir, sizeof(s->dir), "/tmp/test_elf_limits.XXXXXX");
	ASSERT_TRUE(mkdtemp(s->dir));
	snprintf(s->path, sizeof(s->path), "%s/sparse.so", s->dir);
	fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, (off_t)(8192 + symsz + strsz)), 0);
	ASSERT_EQ(pwrite(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	ASSERT_EQ(pwrite(fd, sh, sizeof(sh), 4096), (ssize_t)sizeof(sh));
	if (symsz >= 2 * sizeof(sym))
		ASSERT_EQ(pwrite(fd, &sym, sizeof(sym), 8192 + sizeof(sym)),
			  (ssize_t)sizeof(sym));
	if (strsz >= 3)
		ASSERT_EQ(pwrite(fd, "\0f", 3, (off_t)(8192 + symsz)), 3);
	close(fd);
}

static void sparse_done(struct sparse *s)
{
	unlink(s->path);
	rmdir(s->dir);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long max_rss_mb(void)
{
	struct rusage ru;

	ASSERT_EQ(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss / 1024;
}

/*
 * Resolve "f" in s, expecting the refusal of a bound: within 0.5 s and
 * 64 MB of memory, with a message naming the bound (want) and the
 * environment variable that raises it.
 */
static void expect_refused(const struct sparse *s, const char *want,
			   const char *env)
{
	struct elf_target_sym *out = NULL;
	char err[ERRLEN] = "";
	double t0 = now_s();
	size_t n;
	int rc;

	rc = elf_resolve_file(s->path, "f", &out, &n, err, sizeof(err));
	TH_LOG("%d: %s (%.3f s, max RSS %ld MB)", rc, err, now_s() - t0,
	       max_rss_mb());
	EXPECT_EQ(rc, -E2BIG);
	EXPECT_TRUE(strstr(err, s->path));
	EXPECT_TRUE(strstr(err, want));
	EXPECT_TRUE(strstr(err, env));
	EXPECT_LT((now_s() - t0) * 1000, 500);
	EXPECT_LT(max_rss_mb(), 64);
	free(out);
}

/* 1 GiB of symbol table, 44 million symbols, in 16 KB on disk. */
TEST(sparse_symbol_table_refused)
{
	struct sparse s;

	unsetenv("ISPOT_ELF_MAX_SYMBOLS");
	make_sparse(&s, 1ull << 30, 16);
	expect_refused(&s, "symbols", "ISPOT_ELF_MAX_SYMBOLS");
	sparse_done(&s);
}

TEST(sparse_string_table_refused)
{
	struct sparse s;

	unsetenv("ISPOT_ELF_MAX_STRTAB_MB");
	make_sparse(&s, 2 * sizeof(Elf64_Sym), 1ull << 30);
	expect_refused(&s, "string table", "ISPOT_ELF_MAX_STRTAB_MB");
	sparse_done(&s);
}

/* Loaded: "f" is found, though in no segment (there is none). */
static void expect_loaded(const struct sparse *s)
{
	struct elf_target_sym *out = NULL;
	char err[ERRLEN] = "";
	size_t n;
	int rc;

	rc = elf_resolve_file(s->path, "f", &out, &n, err, sizeof(err));
	TH_LOG("%d: %s", rc, err);
	EXPECT_EQ(rc, -EINVAL);
	EXPECT_TRUE(strstr(err, "is in no loadable segment"));
	free(out);
}

/* Each table under its bound, the two together over what may be read. */
TEST(total_read_bound)
{
	struct sparse s;

	make_sparse(&s, 2ull << 20, 1ull << 20);
	expect_loaded(&s);
	setenv("ISPOT_ELF_MAX_READ_MB", "2", 1);
	expect_refused(&s, "MB of symbols to read", "ISPOT_ELF_MAX_READ_MB");
	unsetenv("ISPOT_ELF_MAX_READ_MB");
	sparse_done(&s);
}

/* The bounds are the defaults' when their variables make no sense. */
TEST(bad_limit_variables_ignored)
{
	struct sparse s;

	make_sparse(&s, 2ull << 20, 1ull << 20);
	setenv("ISPOT_ELF_MAX_READ_MB", "lots", 1);
	setenv("ISPOT_ELF_MAX_SYMBOLS", "0", 1);
	expect_loaded(&s);
	unsetenv("ISPOT_ELF_MAX_READ_MB");
	unsetenv("ISPOT_ELF_MAX_SYMBOLS");
	sparse_done(&s);
}

/* app_pie without its section headers: no symbol table at all. */
TEST(object_without_symbols)
{
	char dir[] = "/tmp/test_elf_nosyms.XXXXXX", path[64];
	const char *err;
	Elf64_Ehdr *eh;
	size_t len;
	char *buf = slurp(fixture("app_pie"), &len);

	ASSERT_TRUE(mkdtemp(dir));
	elf_debuginfo_reset(dir);
	unsetenv("ISPOT_DEBUG_DIRS");
	snprintf(path, sizeof(path), "%s/app", dir);
	eh = (Elf64_Ehdr *)buf;
	eh->e_shoff = 0;
	eh->e_shnum = 0;
	eh->e_shstrndx = 0;
	spit(path, buf, len);
	err = resolve_fail("main", 0, path, -ENOENT);
	EXPECT_TRUE(strstr(err, "no symbol tables"));
	EXPECT_EQ(qsort_null_calls, 0);
	unlink(path);
	rmdir(dir);
	free(buf);
}

TEST_HARNESS_MAIN
