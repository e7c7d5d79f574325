// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/elf/elf_ehframe.c and elf_ehfuncs.c: functions
 * without symbols, from .eh_frame.
 *
 * The setup copies samples/two_callers (built by make) and a stripped
 * copy of it (strip(1)) under the same file name into two directories:
 * the stripped copy's .eh_frame functions must be the unstripped copy's
 * function symbols, and "two_callers+0xSTART" must resolve on both to
 * the offsets the names give.  Debian's stripped /usr/bin/zstd (package
 * zstd, scripts/deps.sh) must yield its functions too; bad .eh_frame
 * bytes must give a clean error.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "elf/elf_internal.h"
#include "elf_fixtures.h"

#define SAMPLE	"two_callers"

/* samples/NAME of this tree, found from the test binary. */
static const char *sample(const char *name)
{
	static char p[PATH_MAX];
	char self[PATH_MAX / 2], *slash;
	ssize_t r = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ASSERT_GT(r, 0);
	self[r] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(p, sizeof(p), "%s/../../../samples/%s", self, name);
	ASSERT_EQ(access(p, R_OK), 0);
	return p;
}

FIXTURE(eh) {
	char dir[64];
	char full[PATH_MAX];	/* dir/full/two_callers */
	char bare[PATH_MAX];	/* dir/bare/two_callers, stripped */
};

FIXTURE_SETUP(eh)
{
	char cmd[5 * PATH_MAX];

	snprintf(self->dir, sizeof(self->dir), "/tmp/test_elf_eh.XXXXXX");
	ASSERT_TRUE(mkdtemp(self->dir));
	snprintf(self->full, sizeof(self->full), "%s/full/" SAMPLE,
		 self->dir);
	snprintf(self->bare, sizeof(self->bare), "%s/bare/" SAMPLE,
		 self->dir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir %s/full %s/bare && cp '%s' '%s' && strip -o '%s' '%s'",
		 self->dir, self->dir, sample(SAMPLE), self->full, self->bare,
		 self->full);
	ASSERT_EQ(system(cmd), 0);
	/* No debug file of the host's may name the stripped copy. */
	elf_debuginfo_reset(self->dir);
	unsetenv("ISPOT_DEBUG_DIRS");
}

FIXTURE_TEARDOWN(eh)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	ASSERT_EQ(system(cmd), 0);
	elf_debuginfo_reset(NULL);
}

static void eh_of(const char *path, struct elf_fde_func **fn, size_t *n)
{
	struct elf_file f;
	char err[ERRLEN] = "";

	ASSERT_EQ(elf_file_open(&f, path, err, sizeof(err)), 0);
	ASSERT_EQ(elf_ehframe_funcs(&f, fn, n, err, sizeof(err)), 0);
	elf_file_close(&f);
}

/* The symbol function of @o at @start, or NULL. */
static const struct esym *func_at(const struct elf_obj *o, uint64_t start)
{
	size_t i;

	for (i = 0; i < o->nsyms; i++)
		if (esym_is_func(&o->syms[i]) && !o->syms[i].synth &&
		    o->syms[i].value == start)
			return &o->syms[i];
	return NULL;
}

/*
 * The stripped copy's functions from .eh_frame are the unstripped copy's
 * function symbols, start and size.
 */
TEST_F(eh, functions_match_symbols)
{
	struct elf_obj *o, *bare;
	char err[ERRLEN];
	size_t i, n = 0, nfunc = 0;

	ASSERT_EQ(elf_obj_load(self->full, &o, err, sizeof(err)), 0);
	ASSERT_EQ(elf_obj_load(self->bare, &bare, err, sizeof(err)), 0);
	for (i = 0; i < o->nsyms; i++)
		nfunc += esym_is_func(&o->syms[i]) && o->syms[i].size;
	for (i = 0; i < bare->nsyms; i++) {
		const struct esym *b = &bare->syms[i], *s;

		if (!b->synth)
			continue;
		n++;
		s = func_at(o, b->value);
		if (!s)
			TH_LOG("no symbol at 0x%lx", (long)b->value);
		ASSERT_TRUE(s);
		EXPECT_EQ(s->size, b->size);
	}
	TH_LOG("%zu .eh_frame functions, %zu sized function symbols", n,
	       nfunc);
	/* _start's FDE marks no caller: it is no function to time. */
	ASSERT_GE(n + 1, nfunc);
	for (i = 0; i < bare->nsyms; i++)
		if (bare->syms[i].synth)
			ASSERT_NE(bare->syms[i].value,
				  resolve_one("_start", 0, self->full).vaddr);
	ASSERT_GE(n, 10);
	/* Named, none is made up: the symbols cover them all. */
	for (i = 0; i < o->nsyms; i++)
		ASSERT_FALSE(o->syms[i].synth);
	elf_obj_free(bare);
	elf_obj_free(o);
}

/* The stripped copy's functions, spelled by address, probe the same. */
TEST_F(eh, spelling_resolves_like_names)
{
	static const char *const names[] = {
		"step", "parse", "store", "worker", "compute", "main", NULL
	};
	struct elf_target_sym *t;
	struct elf_obj *o;
	char err[ERRLEN], spec[64];
	size_t n, i, k;

	ASSERT_EQ(elf_obj_load(self->full, &o, err, sizeof(err)), 0);
	for (i = 0; names[i]; i++) {
		struct elf_target_sym by_name = resolve_one(names[i], 0,
							     self->full);
		struct elf_target_sym on_full, on_bare;

		snprintf(spec, sizeof(spec), SAMPLE "+0x%lx",
			 (long)by_name.vaddr);
		on_bare = resolve_one(spec, 0, self->bare);
		on_full = resolve_one(spec, 0, self->full);
		EXPECT_EQ(on_bare.offset, by_name.offset);
		EXPECT_EQ(on_bare.size, by_name.size);
		EXPECT_STREQ(on_bare.name, spec);
		EXPECT_STREQ(on_bare.obj, canon(self->bare));
		/* Where a symbol names it, the name is shown. */
		EXPECT_EQ(on_full.offset, by_name.offset);
		EXPECT_STREQ(on_full.name, names[i]);
	}
	/* A glob over the stripped copy has every one of them. */
	ASSERT_EQ(elf_resolve_file(self->bare, SAMPLE "+0x*", &t, &n, err,
				   sizeof(err)), 0);
	ASSERT_GE(n, 10);
	for (k = 0; k < n; k++)
		ASSERT_TRUE(func_at(o, t[k].vaddr));
	free(t);
	elf_obj_free(o);
}

/* Addresses in stripped code are named by the function's spelling. */
TEST_F(eh, symbolized_by_spelling)
{
	struct elf_target_sym s = resolve_one("parse", 0, self->full);
	char want[64], got[256];
	struct elf_addr_info info;
	struct elf_obj *o;
	char err[ERRLEN];

	ASSERT_EQ(elf_obj_load(self->bare, &o, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), SAMPLE "+0x%lx", (long)s.vaddr);
	/* elf_symbolize()'s look-up, through what autopick reads. */
	memset(&info, 0, sizeof(info));
	ASSERT_TRUE(elf_addr_spelling(want, got, sizeof(got), &s.vaddr));
	EXPECT_STREQ(got, SAMPLE);
	ASSERT_FALSE(elf_addr_spelling("parse", got, sizeof(got), &s.vaddr));
	ASSERT_FALSE(elf_addr_spelling("x+0x", got, sizeof(got), &s.vaddr));
	ASSERT_FALSE(elf_addr_spelling("x+0x12g", got, sizeof(got),
				       &s.vaddr));
	ASSERT_FALSE(elf_addr_spelling("x+0x12345678123456789", got,
				       sizeof(got), &s.vaddr));
	elf_obj_free(o);
}

static size_t synth_count(const struct elf_obj *o)
{
	size_t i, n = 0;

	for (i = 0; i < o->nsyms; i++)
		n += o->syms[i].synth;
	return n;
}

/*
 * Functions from .eh_frame become symbols: they count against
 * ISPOT_ELF_MAX_SYMBOLS as a symbol table's do (a sparse .eh_frame
 * within the read bound holds tens of millions).  Past the bound the
 * FDEs are refused in one line naming it; the made-up names stop where
 * the named and made-up symbols reach it.
 */
TEST_F(eh, functions_count_against_the_symbol_bound)
{
	struct elf_fde_func *fn = (void *)1;
	struct elf_obj *o;
	char err[ERRLEN] = "", bound[32];
	struct elf_file f;
	size_t n, all, nraw;

	ASSERT_EQ(elf_obj_load(self->bare, &o, err, sizeof(err)), 0);
	all = synth_count(o);
	nraw = o->nraw;
	elf_obj_free(o);
	eh_of(self->bare, &fn, &n);
	free(fn);
	TH_LOG("%zu FDE functions, %zu made-up names, %zu symbols", n, all,
	       nraw);
	ASSERT_GE(all, 10);

	/* One FDE short: refused, every one. */
	snprintf(bound, sizeof(bound), "%zu", n - 1);
	setenv("ISPOT_ELF_MAX_SYMBOLS", bound, 1);
	ASSERT_EQ(elf_file_open(&f, self->bare, err, sizeof(err)), 0);
	EXPECT_EQ(elf_ehframe_funcs(&f, &fn, &n, err, sizeof(err)), -E2BIG);
	elf_file_close(&f);
	TH_LOG("%s", err);
	EXPECT_TRUE(fn == NULL);
	EXPECT_EQ(n, 0);
	EXPECT_TRUE(strstr(err, "ISPOT_ELF_MAX_SYMBOLS"));
	EXPECT_TRUE(strchr(err, '\n') == NULL);

	/* Room for every FDE, and for three names past the symbols. */
	unsetenv("ISPOT_ELF_MAX_SYMBOLS");
	eh_of(self->bare, &fn, &n);
	free(fn);
	snprintf(bound, sizeof(bound), "%zu", nraw + 3 > n ? nraw + 3 : n);
	setenv("ISPOT_ELF_MAX_SYMBOLS", bound, 1);
	ASSERT_EQ(elf_obj_load(self->bare, &o, err, sizeof(err)), 0);
	EXPECT_EQ(synth_count(o), nraw + 3 > n ? 3 : n - nraw);
	/* Not in silence: a spec naming one of the rest says why. */
	TH_LOG("%s", o->fde_err);
	if (synth_count(o) < all)
		EXPECT_TRUE(strstr(o->fde_err, "ISPOT_ELF_MAX_SYMBOLS"));
	elf_obj_free(o);
	unsetenv("ISPOT_ELF_MAX_SYMBOLS");

	/* With room for all, nothing is said. */
	ASSERT_EQ(elf_obj_load(self->bare, &o, err, sizeof(err)), 0);
	EXPECT_EQ(synth_count(o), all);
	EXPECT_STREQ(o->fde_err, "");
	elf_obj_free(o);
}

/* A spelling that fits no function says what would. */
TEST_F(eh, bad_spelling_is_a_clean_error)
{
	const char *e;

	e = resolve_fail(SAMPLE "+0x1", 0, self->bare, -ENOENT);
	EXPECT_TRUE(strstr(e, "no function starts at 0x1"));
	/* The program's own start: no library searched, the hint last. */
	EXPECT_FALSE(strstr(e, "libraries it loads"));
	EXPECT_TRUE(strstr(e, "; take START from --auto's picks or a report") &&
		    !strcmp(strstr(e, "; take START"),
			    "; take START from --auto's picks or a report"));
	e = resolve_fail("nosuch+0x1000", 0, self->bare, -ENOENT);
	EXPECT_TRUE(e[0]);
}

/* Debian's stripped zstd: its .eh_frame names its functions. */
TEST(zstd_has_functions)
{
	struct elf_target_sym *t;
	struct elf_fde_func *fn;
	char err[ERRLEN];
	size_t n, nt;

	if (access("/usr/bin/zstd", R_OK))
		SKIP("/usr/bin/zstd missing: install package zstd "
		     "(scripts/deps.sh)");
	eh_of("/usr/bin/zstd", &fn, &n);
	TH_LOG("/usr/bin/zstd: %zu functions from .eh_frame", n);
	ASSERT_GT(n, 500);
	free(fn);
	ASSERT_EQ(elf_resolve_file("/usr/bin/zstd", "zstd+0x*", &t, &nt, err,
				   sizeof(err)), 0);
	TH_LOG("%zu of them without a symbol", nt);
	ASSERT_GT(nt, 500);
	free(t);
}

/* Where .eh_frame_hdr and .eh_frame sit in @buf (a native ELF). */
static void eh_sections(const char *buf, size_t len, Elf64_Shdr *hdr,
			Elf64_Shdr *frame)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
	const char *names = buf + sh[eh->e_shstrndx].sh_offset;
	size_t i;

	ASSERT_TRUE(eh->e_shoff + eh->e_shnum * sizeof(*sh) <= len);
	memset(hdr, 0, sizeof(*hdr));
	memset(frame, 0, sizeof(*frame));
	for (i = 0; i < eh->e_shnum; i++) {
		if (!strcmp(names + sh[i].sh_name, ".eh_frame_hdr"))
			*hdr = sh[i];
		if (!strcmp(names + sh[i].sh_name, ".eh_frame"))
			*frame = sh[i];
	}
	ASSERT_TRUE(hdr->sh_size && frame->sh_size);
}

/* 0 with functions, or -ENOEXEC with a one-line message. */
static int eh_try(const char *path, size_t *n)
{
	struct elf_fde_func *fn = NULL;
	struct elf_file f;
	char err[ERRLEN] = "";
	int rc;

	*n = 0;
	if (elf_file_open(&f, path, err, sizeof(err)))
		return 1;
	rc = elf_ehframe_funcs(&f, &fn, n, err, sizeof(err));
	elf_file_close(&f);
	free(fn);
	if (rc) {
		EXPECT_EQ(rc, -ENOEXEC);
		EXPECT_TRUE(strstr(err, "corrupt .eh_frame"));
		EXPECT_TRUE(strchr(err, '\n') == NULL);
		EXPECT_EQ(*n, 0);
	}
	return rc;
}

/* Named fields broken on purpose: each a clean -ENOEXEC. */
TEST_F(eh, corrupt_fields_refused)
{
	size_t len, n;
	char *orig = slurp(self->bare, &len), *buf = malloc(len);
	char path[PATH_MAX + 8];
	Elf64_Shdr hdr, frame;
	uint32_t big = 0x7ffffff0;

	ASSERT_TRUE(buf);
	eh_sections(orig, len, &hdr, &frame);
	snprintf(path, sizeof(path), "%s.bad", self->bare);
	/* The first CIE's length past the section. */
	memcpy(buf, orig, len);
	memcpy(buf + frame.sh_offset, &big, 4);
	spit(path, buf, len);
	EXPECT_EQ(eh_try(path, &n), -ENOEXEC);
	/* An indirect eh_frame_ptr. */
	memcpy(buf, orig, len);
	buf[hdr.sh_offset + 1] = (char)0x9b;
	spit(path, buf, len);
	EXPECT_EQ(eh_try(path, &n), -ENOEXEC);
	/* A table entry pointing past .eh_frame. */
	memcpy(buf, orig, len);
	memcpy(buf + hdr.sh_offset + 16, &big, 4);
	spit(path, buf, len);
	EXPECT_EQ(eh_try(path, &n), -ENOEXEC);
	/* A count larger than the table. */
	memcpy(buf, orig, len);
	memcpy(buf + hdr.sh_offset + 8, &big, 4);
	spit(path, buf, len);
	EXPECT_EQ(eh_try(path, &n), -ENOEXEC);
	/* And the object still loads, saying why when asked by address. */
	resolve_fail(SAMPLE "+0x1000", 0, path, -ENOENT);
	free(buf);
	free(orig);
}

/* Every byte of both sections flipped, and every cut: never a crash. */
TEST_F(eh, corruption_sweep)
{
	size_t len, n, i, ok = 0, bad = 0;
	char *orig = slurp(self->bare, &len), *buf = malloc(len);
	char path[PATH_MAX + 8];
	Elf64_Shdr hdr, frame;
	uint64_t start, end;

	ASSERT_TRUE(buf);
	eh_sections(orig, len, &hdr, &frame);
	snprintf(path, sizeof(path), "%s.bad", self->bare);
	start = hdr.sh_offset;
	end = frame.sh_offset + frame.sh_size;
	for (i = start; i < end; i++) {
		memcpy(buf, orig, len);
		buf[i] ^= (char)(i & 1 ? 0xff : 0x80);
		spit(path, buf, len);
		if (eh_try(path, &n))
			bad++;
		else
			ok++;
	}
	TH_LOG("%zu flips read, %zu refused", ok, bad);
	EXPECT_GT(bad, 0);
	/* Cut inside the sections: the reads stop at the file's end. */
	for (i = start; i < end; i += 7) {
		spit(path, orig, i);
		eh_try(path, &n);
	}
	free(buf);
	free(orig);
}

TEST_HARNESS_MAIN
