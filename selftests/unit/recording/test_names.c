// SPDX-License-Identifier: GPL-2.0
/*
 * The NAMES table of format 6 (recording/recording_names.c): a session
 * whose keyed argument points into 512 places of an anonymous mapping (a
 * program's buffers, as xz's 349,516 were) packs each name in a few
 * bytes, where formats 1 to 5 took 49, and its replay reports every key
 * as the live report did.  A packed table that breaks a rule (a step of 0,
 * an address that wraps, reserved bits, a repeat with nothing before, an
 * unknown kind, a varint or a string past its bound) is malformed.
 */
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-names-XXXXXX"
#include "scratch_dir.h"
#include "recording_session.h"
#include "recording_file.h"
#include "recording/recording_codec.h"
#include "recording/recording_read.h"
#include "recording/recording_write.h"

#define PLACES		512
#define PLACE_STEP	1024

static char *buffers;

/* Call i's argument: one of PLACES places of the anonymous mapping. */
static uint64_t buffer_of_call(unsigned int i)
{
	return (uint64_t)(uintptr_t)buffers + (i % PLACES) * PLACE_STEP;
}

TEST(names_of_anonymous_memory_take_a_few_bytes_each)
{
	char rec[PATH_MAX], live[PATH_MAX], off[PATH_MAX];
	struct trace_opts o = { .json = true };
	struct recording_session s;
	uint64_t names_len;
	uint32_t type, n;
	size_t len, at;
	char *buf, *a, *b;

	buffers = mmap(NULL, PLACES * PLACE_STEP, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(buffers != MAP_FAILED);
	path_in(rec, "anon.isr");
	path_in(live, "anon_live.json");
	path_in(off, "anon_offline.json");
	ASSERT_EQ(rs_start(&s, rec, live, 1ull << 30), 0);
	s.arg0 = buffer_of_call;
	rs_trace(&s, 2 * PLACES);
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	buf = slurp(rec, &len);
	at = section_at(buf, len, REC_SEC_NAMES);
	ASSERT_NE(at, 0);
	rec2_section_head(buf, at, &type, &names_len);
	memcpy(&n, buf + at + REC2_SECTION_HEAD, 4);
	printf("# %u names in %llu bytes: %.1f a name\n", n,
	       (unsigned long long)names_len, (double)names_len / n);
	/* The places, and the few call sites and frames named whole. */
	EXPECT_GE(n, PLACES);
	EXPECT_LE(n, PLACES + 8);
	/*
	 * Formats 1 to 5: 49 bytes a place.  6: 7.2 a name, the call
	 * sites' names (paths whole) among them; 12.4 with the strings
	 * written again, 13.2 with each bias whole.
	 */
	EXPECT_LT(names_len, 7 * PLACES + 1024);
	free(buf);
	o.output = off;
	o.recording = rec;
	ASSERT_EQ(trace_replay(&o), 0);
	a = slurp(live, NULL);
	b = slurp(off, NULL);
	EXPECT_TRUE(strstr(a, "\"nr_keys\": 512,") != NULL);
	EXPECT_STREQ(a, b);
	free(a);
	free(b);
	munmap(buffers, PLACES * PLACE_STEP);
}

/* @bytes as a format 6 NAMES table: whether it reads, and to its end. */
static bool packed_reads(const unsigned char *bytes, size_t len)
{
	struct recording_file rf = { .meta.major = 6 };
	struct rec_cur c = { .p = bytes, .left = len };
	bool ok;

	rec_get_names(&c, &rf);
	ok = !c.bad && !c.left;
	elf_symbolizer_free(rf.names);
	return ok;
}

/* Two names: a count, then step, flags, type, offset, size, bias, strings. */
#define TWO_NAMES(step2, flags1, flags2, bias2)			\
	2, 0, 0, 0,							\
	0x80, 0x20, (flags1), 0, 0, 0, 0, 4, 'a', 'n', 'o', 'n', 0,	\
	(step2), (flags2), 0, 0, 0, (bias2)

TEST(a_packed_table_that_breaks_a_rule_is_malformed)
{
	static const unsigned char good[] = {
		TWO_NAMES(0x40, ELF_ADDR_ANON,
			  ELF_ADDR_ANON | 0x08 | 0x10, 0)
	};
	static const unsigned char step0[] = {
		TWO_NAMES(0, ELF_ADDR_ANON, ELF_ADDR_ANON | 0x18, 0)
	};
	static const unsigned char reserved[] = {
		TWO_NAMES(0x40, ELF_ADDR_ANON, ELF_ADDR_ANON | 0x38, 0)
	};
	static const unsigned char kind[] = {
		TWO_NAMES(0x40, ELF_ADDR_ANON, 7 | 0x18, 0)
	};
	/* A repeat of the object on the first name: nothing before it. */
	static const unsigned char first_repeats[] = {
		1, 0, 0, 0, 0x10, ELF_ADDR_ANON | 0x08, 0, 0, 0, 0, 0,
	};
	/* 2^64 - 1, then a step of 1 past it. */
	static const unsigned char wraps[] = {
		2, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
		ELF_ADDR_ANON, 0, 0, 0, 0, 0, 0,
		1, ELF_ADDR_ANON | 0x18, 0, 0, 0, 0,
	};
	/* A varint of 65 bits: its tenth byte holds more than one. */
	static const unsigned char long_var[] = {
		1, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
		ELF_ADDR_ANON, 0, 0, 0, 0, 0, 0,
	};
	/* A string whose length runs past the table. */
	static const unsigned char long_str[] = {
		1, 0, 0, 0, 0x10, ELF_ADDR_ANON, 0, 0, 0, 0, 9, 'a', 'n',
	};
	/* A string with a NUL inside. */
	static const unsigned char nul_str[] = {
		1, 0, 0, 0, 0x10, ELF_ADDR_ANON, 0, 0, 0, 0, 2, 'a', 0, 0,
	};
	/* More names than the bytes could hold. */
	static const unsigned char count[] = {
		3, 0, 0, 0, 0x10, ELF_ADDR_ANON, 0, 0, 0, 0, 0, 0,
	};

	EXPECT_TRUE(packed_reads(good, sizeof(good)));
	EXPECT_FALSE(packed_reads(step0, sizeof(step0)));
	EXPECT_FALSE(packed_reads(reserved, sizeof(reserved)));
	EXPECT_FALSE(packed_reads(kind, sizeof(kind)));
	EXPECT_FALSE(packed_reads(first_repeats, sizeof(first_repeats)));
	EXPECT_FALSE(packed_reads(wraps, sizeof(wraps)));
	EXPECT_FALSE(packed_reads(long_var, sizeof(long_var)));
	EXPECT_FALSE(packed_reads(long_str, sizeof(long_str)));
	EXPECT_FALSE(packed_reads(nul_str, sizeof(nul_str)));
	EXPECT_FALSE(packed_reads(count, sizeof(count)));
}

/*
 * What the good table names: its second address told from the first's
 * step, bias and strings.
 */
TEST(a_packed_name_is_told_from_the_one_before)
{
	static const unsigned char two[] = {
		2, 0, 0, 0,
		0x80, 0x20, ELF_ADDR_ANON, 0, 0, 0, 0x10, 4, 'a', 'n', 'o',
		'n', 0,
		0x40, ELF_ADDR_ANON | 0x18, 0, 0, 0, 0x02,
	};
	struct recording_file rf = { .meta.major = 6 };
	struct rec_cur c = { .p = two, .left = sizeof(two) };
	struct elf_addr_info info;

	rec_get_names(&c, &rf);
	ASSERT_FALSE(c.bad);
	EXPECT_EQ(c.left, 0);
	/* 0x1000 (0x80 0x20), its vaddr 8 past it (zigzag 0x10). */
	ASSERT_EQ(elf_symbolize(rf.names, 0x1000, &info, NULL, 0), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_ANON);
	EXPECT_EQ(info.vaddr, 0x1008);
	EXPECT_STREQ(info.obj, "anon");
	/* 0x1040: the same bias, plus one (zigzag 2). */
	ASSERT_EQ(elf_symbolize(rf.names, 0x1040, &info, NULL, 0), 0);
	EXPECT_EQ(info.vaddr, 0x1049);
	EXPECT_STREQ(info.obj, "anon");
	EXPECT_STREQ(info.sym, "");
	EXPECT_NE(elf_symbolize(rf.names, 0x1020, &info, NULL, 0), 0);
	elf_symbolizer_free(rf.names);
}

static int names_probe_fn(int x)
{
	return x + 1;
}

/*
 * rec_put_names() and rec_get_names() on this process's own addresses:
 * every field of every name, as the live symbolizer named it, comes back
 * (a function's, the anonymous mapping's, the stack's, the heap's); an
 * address kept as itself and as the call before a return address is
 * written once (a second would be a step of 0: the whole file refused).
 */
TEST(every_field_of_a_name_round_trips)
{
	char *heap = malloc(64), *anon;
	int on_stack = 0;
	uint64_t want[6], ret_of;
	struct rec_addrs names = { 0 };
	struct session_tables tb = { 0 };
	struct rec_tables w = { .tb = &tb, .names = &names };
	struct recording_file rf = { .meta.major = 6 };
	struct elf_addr_info live, got;
	struct rec_buf b = { 0 };
	struct rec_cur c;
	size_t i;

	anon = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(anon != MAP_FAILED && heap);
	want[0] = (uint64_t)(uintptr_t)names_probe_fn + 1;
	want[1] = (uint64_t)(uintptr_t)anon + 16;
	want[2] = (uint64_t)(uintptr_t)anon + 4096;
	want[3] = (uint64_t)(uintptr_t)&on_stack;
	want[4] = (uint64_t)(uintptr_t)heap;
	want[5] = (uint64_t)(uintptr_t)strlen + 2;
	for (i = 0; i < 6; i++)
		*rec_addrs_add(&names, want[i]) |= NAME_AS_IS;
	/* A return address whose call is want[1], and one past want[0]. */
	ret_of = want[1] + 1;
	*rec_addrs_add(&names, ret_of) |= NAME_RETURN;
	*rec_addrs_add(&names, want[0] + 8) |= NAME_RETURN;
	tb.sym = elf_symbolizer_new(getpid(), NULL, 0);
	ASSERT_TRUE(tb.sym != NULL);
	rec_put_names(&b, &w);
	ASSERT_FALSE(b.nomem);
	c = (struct rec_cur){ .p = b.p, .left = b.len };
	rec_get_names(&c, &rf);
	ASSERT_FALSE(c.bad);
	EXPECT_EQ(c.left, 0);
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(elf_symbolize(tb.sym, want[i], &live, NULL, 0), 0);
		ASSERT_EQ(elf_symbolize(rf.names, want[i], &got, NULL, 0), 0);
		EXPECT_EQ(got.kind, live.kind);
		EXPECT_EQ(got.sym_type, live.sym_type);
		EXPECT_EQ(got.sym_off, live.sym_off);
		EXPECT_EQ(got.sym_size, live.sym_size);
		EXPECT_EQ(got.vaddr, live.vaddr);
		EXPECT_STREQ(got.obj, live.obj);
		EXPECT_STREQ(got.sym, live.sym);
	}
	EXPECT_EQ(elf_symbolize(rf.names, want[0] + 7, &got, NULL, 0), 0);
	EXPECT_NE(elf_symbolize(rf.names, ret_of, &got, NULL, 0), 0);
	elf_symbolizer_free(rf.names);
	elf_symbolizer_free(tb.sym);
	rec_addrs_free(&names);
	free(b.p);
	free(heap);
	munmap(anon, 8192);
}

/*
 * A name that repeats the last's object and symbol is 6 bytes of the
 * file: the reader keeps one copy of them, not one a name (40,000 names
 * of a 4,095-byte path and a 511-byte symbol would otherwise be 180 MB,
 * from 240 KB; RECORDING_MAX_NAMES of them 19 GB).
 */
TEST(repeated_strings_are_kept_once)
{
	uint32_t n = 40000, i;
	size_t len = 4 + 10 + 4095 + 2 + 511 + (size_t)n * 6, at = 4;
	unsigned char *p = malloc(len);
	struct recording_file rf = { .meta.major = 6 };
	struct rec_cur c;
	size_t before;

	ASSERT_TRUE(p != NULL);
	memcpy(p, &n, 4);
	memcpy(p + at, "\x10\x05\x00\x00\x00\x00\xff\x1f", 8);
	at += 8;
	memset(p + at, 'o', 4095);
	at += 4095;
	p[at++] = 0xff;
	p[at++] = 0x03;
	memset(p + at, 's', 511);
	at += 511;
	for (i = 1; i < n; i++, at += 6)
		memcpy(p + at, "\x01\x1d\x00\x00\x00\x00", 6);
	c = (struct rec_cur){ .p = p, .left = at };
	before = mallinfo2().uordblks;
	rec_get_names(&c, &rf);
	ASSERT_FALSE(c.bad);
	EXPECT_EQ(c.left, 0);
	EXPECT_LT(mallinfo2().uordblks - before, 16u << 20);
	elf_symbolizer_free(rf.names);
	free(p);
}

/* One name whose object is @obj_len bytes and symbol @sym_len. */
static bool packed_strings_read(size_t obj_len, size_t sym_len)
{
	unsigned char *p = malloc(16 + obj_len + sym_len), *q = p;
	bool ok;

	memcpy(q, "\x01\x00\x00\x00\x10\x05\x00\x00\x00\x00", 10);
	q = rec2_put_var(q + 10, obj_len);
	memset(q, 'o', obj_len);
	q = rec2_put_var(q + obj_len, sym_len);
	memset(q, 's', sym_len);
	ok = packed_reads(p, q + sym_len - p);
	free(p);
	return ok;
}

/* A string fits its field with its NUL (PATH_MAX, ELF_SYM_NAME_MAX). */
TEST(a_packed_string_past_its_field_is_malformed)
{
	EXPECT_TRUE(packed_strings_read(PATH_MAX - 1, ELF_SYM_NAME_MAX - 1));
	EXPECT_FALSE(packed_strings_read(PATH_MAX, 0));
	EXPECT_FALSE(packed_strings_read(0, ELF_SYM_NAME_MAX));
}

TEST_HARNESS_MAIN
