// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for include/ispot.h, user/lib/elf/elf_usdt.c and elf_block.c:
 * the markers' SDT notes as our reader and readelf -n read them, the same
 * probes from <sys/sdt.h>, semaphores, prelinked and hostile notes, and
 * block specs with their errors.
 *
 * Fixtures (selftests/unit/fixtures/usdt*): usdt.c + usdt2.c mark block
 * "critical" three times (a loop, main, the other file), block "io" in an
 * inline function called twice, "half" with only a begin and "tail" with
 * only an end.
 */
#include <sys/wait.h>

#include "elf_fixtures.h"

static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

static struct elf_usdt_probe *list(const char *bin, size_t *n)
{
	struct elf_usdt_probe *p;
	char err[ERRLEN] = "";
	int rc = elf_usdt_list(bin, &p, n, err, sizeof(err));

	if (rc)
		TH_LOG("%s: %s", bin, err);
	ASSERT_EQ(rc, 0);
	return p;
}

static size_t count(const struct elf_usdt_probe *p, size_t n,
		    const char *name)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += !strcmp(p[i].provider, "ispot") &&
		     !strcmp(p[i].name, name);
	return c;
}

/* The one semaphore offset all sites of name share. */
static uint64_t shared_sem(const struct elf_usdt_probe *p, size_t n,
			   const char *name)
{
	uint64_t sem = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(p[i].name, name))
			continue;
		EXPECT_TRUE(p[i].sem_vaddr != 0);
		EXPECT_TRUE(p[i].sem_bad == NULL);
		if (!sem)
			sem = p[i].sem_offset;
		EXPECT_EQ(p[i].sem_offset, sem);
	}
	ASSERT_TRUE(sem != 0);
	return sem;
}

/* What every ispot.h-built variant of usdt.c must read as. */
static void check_usdt_fixture(const char *bin, const unsigned char *nop,
			       size_t noplen)
{
	struct elf_usdt_probe *p;
	unsigned char buf[8];
	uint16_t sem_val;
	size_t n, i;

	p = list(bin, &n);
	ASSERT_EQ(n, 12);
	EXPECT_EQ(count(p, n, "critical_begin"), 3);
	EXPECT_EQ(count(p, n, "critical_end"), 3);
	EXPECT_EQ(count(p, n, "io_begin"), 2);
	EXPECT_EQ(count(p, n, "io_end"), 2);
	EXPECT_EQ(count(p, n, "half_begin"), 1);
	EXPECT_EQ(count(p, n, "tail_end"), 1);
	for (i = 0; i < n; i++) {
		EXPECT_STREQ(p[i].provider, "ispot");
		EXPECT_STREQ(p[i].args, "");
		EXPECT_TRUE(p[i].bad == NULL);
		/* The file offset holds the probe's nop. */
		pread_all(bin, p[i].offset, buf, noplen);
		EXPECT_EQ(memcmp(buf, nop, noplen), 0);
	}
	/* One semaphore per probe, shared by its sites, in the file, 0. */
	EXPECT_NE(shared_sem(p, n, "critical_begin"),
		  shared_sem(p, n, "critical_end"));
	pread_all(bin, shared_sem(p, n, "critical_begin"), &sem_val, 2);
	EXPECT_EQ(sem_val, 0);
	free(p);
}

TEST(ispot_h_gcc_pie)
{
	check_usdt_fixture(fixture("usdt_pie"), nop5, 5);
}

TEST(ispot_h_gcc_nopie)
{
	struct elf_usdt_probe *p;
	size_t n;

	check_usdt_fixture(fixture("usdt_nopie"), nop5, 5);
	/* Non-PIE: link-time addresses are not file offsets. */
	p = list(fixture("usdt_nopie"), &n);
	EXPECT_NE(p[0].vaddr, p[0].offset);
	free(p);
}

TEST(ispot_h_clang)
{
	check_usdt_fixture(fixture("usdt_clang"), nop5, 5);
}

/* sys/sdt.h's probes, with semaphores: the same probes, a 1-byte nop. */
TEST(sys_sdt_h_same_probes)
{
	static const unsigned char nop1[1] = { 0x90 };

	check_usdt_fixture(fixture("usdt_sdt"), nop1, 1);
}

/* C++: inline member function and template instances (COMDAT code). */
static void check_cxx(const char *bin)
{
	struct elf_usdt_probe *p;
	unsigned char buf[5];
	size_t n, i;

	p = list(bin, &n);
	ASSERT_EQ(n, 6);
	EXPECT_EQ(count(p, n, "lookup_begin"), 1);
	EXPECT_EQ(count(p, n, "lookup_end"), 1);
	EXPECT_EQ(count(p, n, "scan_begin"), 2);	/* int and long */
	EXPECT_EQ(count(p, n, "scan_end"), 2);
	shared_sem(p, n, "scan_begin");
	for (i = 0; i < n; i++) {
		pread_all(bin, p[i].offset, buf, 5);
		EXPECT_EQ(memcmp(buf, nop5, 5), 0);
	}
	free(p);
}

TEST(ispot_h_cxx)
{
	check_cxx(fixture("usdt_cxx"));
	check_cxx(fixture("usdt_clangxx"));
}

/* Our reading of the notes is readelf -n's, field by field, in order. */
static void check_readelf(const char *bin)
{
	char path[PATH_MAX + 8], line[512], prov[256] = "", name[256] = "";
	unsigned long long loc, base, sem;
	struct elf_usdt_probe *p;
	size_t n, seen = 0;
	FILE *fp;

	p = list(bin, &n);
	snprintf(path, sizeof(path), "%s.notes", bin);
	fp = fopen(path, "r");
	ASSERT_TRUE(fp);
	while (fgets(line, sizeof(line), fp)) {
		sscanf(line, " Provider: %255s", prov);
		sscanf(line, " Name: %255s", name);
		if (sscanf(line, " Location: %llx, Base: %llx, Semaphore: %llx",
			   &loc, &base, &sem) != 3)
			continue;
		ASSERT_LT(seen, n);
		EXPECT_STREQ(p[seen].provider, prov);
		EXPECT_STREQ(p[seen].name, name);
		EXPECT_EQ(p[seen].vaddr, loc);
		EXPECT_EQ(p[seen].note_base, base);
		EXPECT_EQ(p[seen].sem_vaddr, sem);
		seen++;
	}
	fclose(fp);
	EXPECT_EQ(seen, n);
	free(p);
}

TEST(readelf_reads_the_same_notes)
{
	check_readelf(fixture("usdt_pie"));
	check_readelf(fixture("usdt_nopie"));
	check_readelf(fixture("usdt_cxx"));
	check_readelf(fixture("libusdtlib.so"));
	check_readelf(fixture("usdt_sdt"));
}

/* A copy of bin in a temporary directory. */
static const char *tmp_copy(const char *bin, char **data, size_t *len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/ispot-usdt-XXXXXX");
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	close(fd);
	*data = slurp(bin, len);
	spit(path, *data, *len);
	chmod(path, 0700);
	return path;
}

static int run_enabled(const char *bin)
{
	char cmd[PATH_MAX + 32], out[64] = "";
	FILE *fp;

	snprintf(cmd, sizeof(cmd), "%s", bin);
	fp = popen(cmd, "r");
	ASSERT_TRUE(fp);
	ASSERT_TRUE(fgets(out, sizeof(out), fp));
	pclose(fp);
	if (!strcmp(out, "enabled=1\n"))
		return 1;
	ASSERT_STREQ(out, "enabled=0\n");
	return 0;
}

/*
 * ISPOT_BLOCK_ENABLED() reads the semaphore at the file offset we found:
 * a copy with a 1 there (what the kernel's increment leaves in memory)
 * says enabled.
 */
TEST(enabled_reads_the_semaphore)
{
	const char *bins[] = { "usdt_pie", "usdt_nopie", "usdt_clang",
			       "usdt_sdt" };
	size_t i, n, len;

	for (i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		const char *bin = fixture(bins[i]), *copy;
		struct elf_usdt_probe *p = list(bin, &n);
		uint64_t sem = shared_sem(p, n, "critical_begin");
		char *data;

		EXPECT_EQ(run_enabled(bin), 0);
		copy = tmp_copy(bin, &data, &len);
		ASSERT_LT(sem + 1, len);
		data[sem] = 1;
		spit(copy, data, len);
		EXPECT_EQ(run_enabled(copy), 1);
		unlink(copy);
		free(data);
		free(p);
	}
}

/* The shared library is linked at 0x200000: offsets differ from vaddrs. */
TEST(shared_library)
{
	const char *lib = fixture("libusdtlib.so");
	struct elf_usdt_probe *p;
	unsigned char buf[5];
	size_t n, i;

	p = list(lib, &n);
	ASSERT_EQ(n, 2);
	for (i = 0; i < n; i++) {
		EXPECT_NE(p[i].vaddr, p[i].offset);
		pread_all(lib, p[i].offset, buf, 5);
		EXPECT_EQ(memcmp(buf, nop5, 5), 0);
		EXPECT_TRUE(p[i].sem_offset != 0);
	}
	free(p);
}

TEST(no_notes_is_an_empty_list)
{
	struct elf_usdt_probe *p;
	size_t n;

	p = list(fixture("app_pie"), &n);
	EXPECT_EQ(n, 0);
	EXPECT_TRUE(p == NULL);
}

TEST(unusable_semaphores)
{
	struct elf_usdt_probe *p;
	size_t n;

	p = list(fixture("usdt_badsem"), &n);
	ASSERT_EQ(n, 2);
	EXPECT_STREQ(p[0].name, "inbss");
	EXPECT_TRUE(p[0].sem_vaddr != 0);
	EXPECT_EQ(p[0].sem_offset, 0);
	ASSERT_TRUE(p[0].sem_bad);
	EXPECT_TRUE(strstr(p[0].sem_bad, "not backed by the file"));
	EXPECT_STREQ(p[1].name, "readonly");
	EXPECT_EQ(p[1].sem_offset, 0);
	ASSERT_TRUE(p[1].sem_bad);
	EXPECT_TRUE(strstr(p[1].sem_bad, "not in a writable segment"));
	free(p);
}

/* The section headers' location of .note.stapsdt in an image of bin. */
static void find_notes(const char *data, size_t len, uint64_t *off,
		       uint64_t *size, uint64_t *shdr_off)
{
	const Elf64_Ehdr *eh = (const void *)data;
	const Elf64_Shdr *sh = (const void *)(data + eh->e_shoff);
	const char *names = data + sh[eh->e_shstrndx].sh_offset;
	size_t i;

	ASSERT_LT(eh->e_shoff, len);
	for (i = 1; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, ".note.stapsdt")) {
			*off = sh[i].sh_offset;
			*size = sh[i].sh_size;
			*shdr_off = eh->e_shoff + i * sizeof(*sh);
			return;
		}
	ASSERT_TRUE(0);
}

/*
 * A prelinked object: the notes still hold the old addresses, the
 * section headers the new ones; moving every note's pc, base and
 * semaphore back by the same amount must give the same probes.
 */
TEST(prelinked_notes_are_moved)
{
	const char *bin = fixture("usdt_pie"), *copy;
	struct elf_usdt_probe *p, *q;
	uint64_t off, size, shdr, pos;
	size_t n, m, len, i;
	char *data;

	p = list(bin, &n);
	copy = tmp_copy(bin, &data, &len);
	find_notes(data, len, &off, &size, &shdr);
	for (pos = off; pos < off + size;) {
		Elf64_Nhdr nh;
		uint64_t a[3];
		char *desc;

		memcpy(&nh, data + pos, sizeof(nh));
		desc = data + pos + sizeof(nh) + ((nh.n_namesz + 3) & ~3u);
		memcpy(a, desc, sizeof(a));
		for (i = 0; i < 3; i++)
			if (a[i])
				a[i] -= 0x1000;
		memcpy(desc, a, sizeof(a));
		pos = (uint64_t)(desc - data) + ((nh.n_descsz + 3) & ~3u);
	}
	spit(copy, data, len);
	q = list(copy, &m);
	ASSERT_EQ(m, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(q[i].vaddr, p[i].vaddr);
		EXPECT_EQ(q[i].offset, p[i].offset);
		EXPECT_EQ(q[i].sem_vaddr, p[i].sem_vaddr);
		EXPECT_EQ(q[i].sem_offset, p[i].sem_offset);
		EXPECT_EQ(q[i].note_base + 0x1000, p[i].note_base);
	}
	unlink(copy);
	free(data);
	free(p);
	free(q);
}

enum damage {
	HUGE_DESCSZ, SHORT_DESCSZ, HUGE_NAMESZ, NO_NULS, HUGE_SECTION,
	SECTION_PAST_EOF, NR_DAMAGE
};

static const char *const damage_name[] = {
	"huge n_descsz", "n_descsz too short", "huge n_namesz",
	"strings without NUL", "huge sh_size", "section past end of file",
};

/* What the message says about each. */
static const char *const damage_why[] = {
	"a note overruns the section", "too short", "overruns",
	"lack their NUL", "past the end of the file", "past the end",
};

TEST(hostile_notes_are_refused)
{
	const char *bin = fixture("usdt_pie");
	uint64_t off, size, shdr;
	int d;

	for (d = 0; d < NR_DAMAGE; d++) {
		struct elf_usdt_probe *p = (void *)1;
		char err[ERRLEN] = "", *data;
		const char *copy;
		Elf64_Nhdr nh;
		Elf64_Shdr sh;
		size_t len, n = 99;
		int rc;

		copy = tmp_copy(bin, &data, &len);
		find_notes(data, len, &off, &size, &shdr);
		memcpy(&nh, data + off, sizeof(nh));
		memcpy(&sh, data + shdr, sizeof(sh));
		switch (d) {
		case HUGE_DESCSZ:
			nh.n_descsz = 0xfffffff0u;
			break;
		case SHORT_DESCSZ:
			nh.n_descsz = 20;
			break;
		case HUGE_NAMESZ:
			nh.n_namesz = 0xfffffff0u;
			break;
		case NO_NULS:
			/* Every byte of the names, up to the padding. */
			memset(data + off + sizeof(nh) + 8 + 24, 'A',
			       nh.n_descsz - 24);
			break;
		case HUGE_SECTION:
			sh.sh_size = 1ull << 40;
			break;
		case SECTION_PAST_EOF:
			sh.sh_offset = len - 8;
			break;
		}
		memcpy(data + off, &nh, sizeof(nh));
		memcpy(data + shdr, &sh, sizeof(sh));
		spit(copy, data, len);
		rc = elf_usdt_list(copy, &p, &n, err, sizeof(err));
		TH_LOG("%s -> %d: %s", damage_name[d], rc, err);
		EXPECT_EQ(rc, -ENOEXEC);
		EXPECT_TRUE(p == NULL);
		EXPECT_EQ(n, 0);
		EXPECT_TRUE(strstr(err, copy));
		EXPECT_TRUE(strstr(err, ".note.stapsdt"));
		EXPECT_TRUE(strstr(err, damage_why[d]));
		EXPECT_TRUE(strchr(err, '\n') == NULL);
		unlink(copy);
		free(data);
	}
}

static struct elf_block resolve_ok(const char *spec, pid_t pid,
				   const char *exe)
{
	struct elf_block b;
	char err[ERRLEN] = "";
	int rc = elf_resolve_block(spec, pid, exe, &b, err, sizeof(err));

	if (rc)
		TH_LOG("%s: %s", spec, err);
	ASSERT_EQ(rc, 0);
	return b;
}

static const char *resolve_bad(const char *spec, const char *exe,
			       int want_rc)
{
	static char err[ERRLEN];
	struct elf_block b;
	int rc;

	memset(&b, 0xcc, sizeof(b));
	err[0] = '\0';
	rc = elf_resolve_block(spec, 0, exe, &b, err, sizeof(err));
	TH_LOG("%s -> %d: %s", spec, rc, err);
	EXPECT_EQ(rc, want_rc);
	EXPECT_TRUE(b.begin == NULL && b.end == NULL);
	EXPECT_TRUE(b.nr_begin == 0 && b.nr_end == 0);
	EXPECT_TRUE(err[0] && strchr(err, '\n') == NULL);
	return err;
}

static void check_sites(const struct elf_usdt_site *s, size_t n,
			const char *obj)
{
	size_t i;

	for (i = 0; i < n; i++) {
		EXPECT_STREQ(s[i].obj, obj);
		EXPECT_TRUE(s[i].sem_offset != 0);
		EXPECT_EQ(s[i].sem_offset, s[0].sem_offset);
		if (i)
			EXPECT_GT(s[i].offset, s[i - 1].offset);
	}
}

TEST(block_marker_spec)
{
	const char *bin = fixture("usdt_pie");
	struct elf_block b = resolve_ok("critical", 0, bin);

	EXPECT_STREQ(b.name, "block:critical");
	EXPECT_STREQ(b.obj, canon(bin));
	EXPECT_EQ(b.nr_begin, 3);
	EXPECT_EQ(b.nr_end, 3);
	EXPECT_STREQ(b.warn, "");
	check_sites(b.begin, b.nr_begin, canon(bin));
	check_sites(b.end, b.nr_end, canon(bin));
	EXPECT_NE(b.begin[0].sem_offset, b.end[0].sem_offset);
	elf_block_free(&b);

	/* Through the running process: /proc/PID/exe. */
	b = resolve_ok("lookup", getpid(), fixture("usdt_cxx"));
	EXPECT_EQ(b.nr_begin, 1);
	elf_block_free(&b);
}

TEST(block_pair_spec)
{
	const char *bin = fixture("usdt_pie");
	const char *exe = fixture("usdt_uselib");
	char spec[PATH_MAX + 64];
	struct elf_block b;

	b = resolve_ok("outer=ispot:critical_begin,ispot:io_end", 0, bin);
	EXPECT_STREQ(b.name, "outer");
	EXPECT_EQ(b.nr_begin, 3);
	EXPECT_EQ(b.nr_end, 2);
	elf_block_free(&b);

	/* OBJ as a short name, found in the DT_NEEDED closure. */
	b = resolve_ok("fl=libusdtlib:ispot:flush_begin,ispot:flush_end", 0,
		       exe);
	EXPECT_STREQ(b.obj, canon(fixture("libusdtlib.so")));
	EXPECT_EQ(b.nr_begin, 1);
	EXPECT_NE(b.begin[0].vaddr, b.begin[0].offset);
	elf_block_free(&b);

	/* OBJ as a path, two providers' probes. */
	snprintf(spec, sizeof(spec), "x=%s:app:inbss,app:readonly",
		 fixture("usdt_badsem"));
	b = resolve_ok(spec, 0, exe);
	EXPECT_STREQ(b.obj, canon(fixture("usdt_badsem")));
	/* Unusable semaphores: traced without, and said so. */
	EXPECT_EQ(b.begin[0].sem_offset, 0);
	EXPECT_TRUE(strstr(b.warn, "app:inbss"));
	EXPECT_TRUE(strstr(b.warn, "not backed by the file"));
	elf_block_free(&b);
}

/* Markers are entry-only probes: a Go program's are fine. */
TEST(go_program_blocks)
{
	struct elf_block b = resolve_ok("gc", 0, fixture("usdt_gort"));

	EXPECT_EQ(b.nr_begin, 1);
	elf_block_free(&b);
}

static int occurrences(const char *s, const char *word)
{
	int n = 0;

	while ((s = strstr(s, word))) {
		n++;
		s += strlen(word);
	}
	return n;
}

TEST(block_not_found_lists_what_is_there)
{
	const char *bin = fixture("usdt_pie"), *err;
	char want[PATH_MAX + 128];

	err = resolve_bad("foo", bin, -ENOENT);
	snprintf(want, sizeof(want),
		 "no block 'foo' in %s: its ispot blocks are: ", bin);
	EXPECT_TRUE(strstr(err, want));
	/*
	 * Each block once, whatever the number of its sites; counted after
	 * the path, which is the tree's and may hold any word ("wt-io").
	 */
	if (strstr(err, want))
		err = strstr(err, want) + strlen(want);
	EXPECT_EQ(occurrences(err, "critical"), 1);
	EXPECT_EQ(occurrences(err, "io"), 1);
	EXPECT_TRUE(strstr(err, "half"));
	EXPECT_TRUE(strstr(err, "tail"));
	EXPECT_TRUE(strstr(err, "; providers present: ispot"));
	EXPECT_EQ(occurrences(err, "ispot"), 1);	/* the provider */

	err = resolve_bad("x=ispot:critical_begin,app:nope", bin, -ENOENT);
	EXPECT_TRUE(strstr(err, "no USDT probe 'app:nope'"));
	EXPECT_TRUE(strstr(err, "providers present: ispot"));
	err = resolve_bad("x=ispot:nope,ispot:io_end", bin, -ENOENT);
	EXPECT_TRUE(strstr(err, "its ispot probes are: "));
	EXPECT_TRUE(strstr(err, "critical_begin"));
}

TEST(object_without_probes)
{
	const char *err = resolve_bad("critical", fixture("app_pie"),
				      -ENOENT);

	EXPECT_TRUE(strstr(err, "has no USDT probes (.note.stapsdt): build it with include/ispot.h or sys/sdt.h"));
}

TEST(half_a_block)
{
	const char *bin = fixture("usdt_pie"), *err;

	err = resolve_bad("half", bin, -ENOENT);
	EXPECT_TRUE(strstr(err, "has a begin marker but no end marker"));
	EXPECT_TRUE(strstr(err, "ISPOT_BLOCK_END(half)"));
	err = resolve_bad("tail", bin, -ENOENT);
	EXPECT_TRUE(strstr(err, "has an end marker but no begin marker"));
	EXPECT_TRUE(strstr(err, "ISPOT_BLOCK_BEGIN(tail)"));
}

TEST(malformed_block_specs)
{
	const char *bin = fixture("usdt_pie");
	const char *bad[] = {
		"x=ispot:critical_begin",		/* no end */
		"x=ispot:critical_begin,",		/* empty end */
		"x=ispot:critical_begin,ispot",		/* end not PROV:END */
		"x=ispot:critical_begin,a:b:c",		/* end with OBJ */
		"x=critical_begin,ispot:io_end",	/* begin not PROV:B */
		"x=:critical_begin,ispot:io_end",	/* empty provider */
		"x=:ispot:critical_begin,ispot:io_end",	/* empty OBJ */
		"=ispot:critical_begin,ispot:io_end",	/* empty NAME */
		"x=",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_TRUE(strstr(resolve_bad(bad[i], bin, -EINVAL),
				   "--block wants NAME=[OBJ:]PROV:BEGIN,PROV:END"));
}

TEST(bad_block_names)
{
	const char *bin = fixture("usdt_pie"), *err;
	char name[400], spec[500];

	err = resolve_bad("", bin, -EINVAL);
	EXPECT_TRUE(strstr(err, "empty block name"));
	err = resolve_bad("two words", bin, -EINVAL);
	EXPECT_TRUE(strstr(err, "C identifier"));

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	err = resolve_bad(name, bin, -EINVAL);
	EXPECT_TRUE(strstr(err, "too long (399 characters)"));
	snprintf(spec, sizeof(spec), "%s=ispot:io_begin,ispot:io_end", name);
	err = resolve_bad(spec, bin, -EINVAL);
	EXPECT_TRUE(strstr(err, "too long"));
}

TEST_HARNESS_MAIN
