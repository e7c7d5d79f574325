// SPDX-License-Identifier: GPL-2.0
/*
 * The names a session lends its live Perfetto trace (trace_perfetto.c),
 * taken from the writer trace_perfetto_open() starts, as it calls them:
 * call_key gives the key call() labels a call by beside its probe (an
 * argument's value plus one, a call site, none), and the same name for
 * every call with that key; generation is 0 before the first snapshot of
 * the maps and never after, and moves when, and only when, the maps'
 * (elf_symbolizer_generation()) does.  A name the writer kept before the
 * first snapshot is made again from it.  The target is this process.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-trace-perfetto-XXXXXX"
#include "scratch_dir.h"
#include "export/perfetto_internal.h"
#include "perfetto_reader.h"
#include "report/report.h"
#include "trace/trace_internal.h"

/* The session's functions, one a key kind; a probe each, id F_ + 1. */
enum {
	F_ARG,		/* arg1 */
	F_LOG2,		/* arg0:log2 */
	F_SITE,		/* callsite */
	F_NONE,
	F_AUTO,
	F_SHAPE,
	F_BLOCK,	/* a block: its begin marker is no call */
	NR_F,
};
#define PROBE(f)	((uint32_t)(f) + 1)
#define PROBE_UNKNOWN	77
/* Numbers in no mapping: labelled as numbers, with or without the maps. */
#define LOCK_A		0x1230
#define LOCK_B		0x1238
#define FILE_SIZE	4096

struct session {
	struct trace_opts o;
	struct trace t;
	struct trace_func funcs[NR_F];
	char path[PATH_MAX];
};

/* Somewhere in this program's code, for a call site the maps name. */
static __attribute__((noinline)) int code_here(int x)
{
	return x * 3 + 1;
}

/*
 * A live session of this process with a function of each key kind, its
 * Perfetto trace open; no maps read yet (trace_snapshot_maps() does).
 */
static void session_start(struct session *s, const char *name)
{
	static const struct key_rule keys[NR_F] = {
		[F_ARG] = { .kind = KEY_ARG, .arg = 1 },
		[F_LOG2] = { .kind = KEY_ARG, .arg = 0, .log2 = true },
		[F_SITE] = { .kind = KEY_CALLSITE },
		[F_NONE] = { .kind = KEY_NONE },
		[F_AUTO] = { .kind = KEY_AUTO },
		[F_SHAPE] = { .kind = KEY_SHAPE },
		[F_BLOCK] = { .kind = KEY_NONE },
	};
	static const char *const names[NR_F] = {
		"lock", "spin", "site", "plain", "auto", "shaped", "region",
	};
	unsigned int i;

	memset(s, 0, sizeof(*s));
	path_in(s->path, name);
	s->o.perfetto = s->path;
	s->t.opts = &s->o;
	s->t.sum.pid = getpid();
	snprintf(s->t.sum.command, sizeof(s->t.sum.command), "trace_perfetto");
	s->t.funcs = s->funcs;
	s->t.nr_funcs = NR_F;
	s->t.pipe = pipeline_new();
	ASSERT_TRUE(s->t.pipe);
	for (i = 0; i < NR_F; i++) {
		s->funcs[i].key = keys[i];
		snprintf(s->funcs[i].sym.name, ELF_SYM_NAME_MAX, "%s",
			 names[i]);
		if (i == F_BLOCK)
			continue;
		ASSERT_EQ(pipeline_add_probe(s->t.pipe, PROBE(i), i,
					     &keys[i]), 0);
	}
	s->funcs[F_BLOCK].is_block = true;
	ASSERT_EQ(pipeline_add_marker(s->t.pipe, PROBE(F_BLOCK), F_BLOCK,
				      false, &keys[F_BLOCK]), 0);
	/* A live session's, of no ring: nothing is drained here. */
	s->t.live.drain = drain_new(NULL, 0, NULL, NULL);
	ASSERT_TRUE(s->t.live.drain);
	ASSERT_EQ(trace_perfetto_open(&s->t, NULL), 0);
	ASSERT_TRUE(s->t.out.perfetto);
}

static void session_end(struct session *s, bool keep)
{
	EXPECT_EQ(trace_perfetto_close(&s->t, keep), 0);
	drain_free(s->t.live.drain);
	pipeline_free(s->t.pipe);
	if (s->t.sym)
		elf_symbolizer_free(s->t.sym);
}

/* The callbacks the writer was handed. */
static const struct perfetto_names *names_of(const struct session *s)
{
	return &s->t.out.perfetto->names;
}

static struct ispot_record entry(uint32_t probe, uint64_t ip, uint64_t a0,
				 uint64_t a1, uint64_t a2)
{
	struct ispot_record r;

	memset(&r, 0, sizeof(r));
	r.kind = ISPOT_REC_ENTRY;
	r.nslots = 1;
	r.tid = r.tgid = (uint32_t)getpid();
	r.ts_ns = trace_now();
	r.probe_id = probe;
	r.ip = ip;
	r.data[0] = a0;
	r.data[1] = a1;
	r.data[2] = a2;
	return r;
}

/*
 * call_key() of @r: its return, *@key and *@keyed, which are given 99
 * and the other truth first, so that both are seen written.
 */
static int key_of_call(const struct session *s, const struct ispot_record *r,
		       uint64_t *key, bool *keyed)
{
	const struct perfetto_names *n = names_of(s);

	*key = 99;
	*keyed = !*keyed;
	return n->call_key(n->ctx, r, key, keyed);
}

/* call()'s name of @r into @buf (128). */
static void name_of_call(const struct session *s,
			 const struct ispot_record *r, char *buf)
{
	const struct perfetto_names *n = names_of(s);

	ASSERT_GT(n->call(n->ctx, r, buf, 128), 0);
}

/* "FUNC [label of @key]", the name call() gives a call keyed @key. */
static void keyed_name(const struct session *s, unsigned int f, uint64_t key,
		       char *buf)
{
	char label[96];

	report_key_label(&s->funcs[f].key, s->t.sym, key, label,
			 sizeof(label));
	ASSERT_LT(snprintf(buf, 128, "%s [%s]", s->funcs[f].sym.name, label),
		  128);
}

/*
 * call_key of a keyed call: 1, keyed, and the key call()'s name shows,
 * the pipeline's own: an argument's value plus one, a log2 bucket's
 * bucket plus one, a call site's return address.  Two calls with one key
 * (other arguments, another call site) are named alike; another key,
 * otherwise.
 */
TEST(call_key_is_the_key_the_call_is_named_by)
{
	struct ispot_record a, b, c;
	char name[128], want[128], other[128];
	uint64_t ka, kb, kc;
	struct session s;
	bool keyed = false;

	session_start(&s, "keys.pftrace");
	trace_snapshot_maps(&s.t);
	ASSERT_TRUE(s.t.sym);

	/* By argument 1: its value plus one, whatever else differs. */
	a = entry(PROBE(F_ARG), 0x5000, 7, LOCK_A, 9);
	b = entry(PROBE(F_ARG), 0, 8, LOCK_A, 10);
	c = entry(PROBE(F_ARG), 0x5000, 7, LOCK_B, 9);
	EXPECT_EQ(key_of_call(&s, &a, &ka, &keyed), 1);
	EXPECT_TRUE(keyed);
	EXPECT_EQ(ka, LOCK_A + 1);
	EXPECT_EQ(key_of_call(&s, &b, &kb, &keyed), 1);
	EXPECT_TRUE(keyed);
	EXPECT_EQ(kb, ka);
	EXPECT_EQ(key_of_call(&s, &c, &kc, &keyed), 1);
	EXPECT_TRUE(keyed);
	EXPECT_EQ(kc, LOCK_B + 1);
	name_of_call(&s, &a, name);
	keyed_name(&s, F_ARG, ka, want);
	EXPECT_STREQ(name, want);
	EXPECT_STREQ(name, "lock [0x1230]");
	name_of_call(&s, &b, other);
	EXPECT_STREQ(other, name);
	name_of_call(&s, &c, other);
	keyed_name(&s, F_ARG, kc, want);
	EXPECT_STREQ(other, want);
	EXPECT_TRUE(strcmp(other, name) != 0);

	/* By argument 0's log2 bucket: one bucket, one key. */
	a = entry(PROBE(F_LOG2), 0, 4096, 1, 2);
	b = entry(PROBE(F_LOG2), 0, 5000, 3, 4);
	c = entry(PROBE(F_LOG2), 0, 8192, 1, 2);
	EXPECT_EQ(key_of_call(&s, &a, &ka, &keyed), 1);
	EXPECT_TRUE(keyed);
	EXPECT_EQ(ka, 13 + 1);	/* 4096 = 2^12: bucket 13, plus one */
	EXPECT_EQ(key_of_call(&s, &b, &kb, &keyed), 1);
	EXPECT_EQ(kb, ka);
	EXPECT_EQ(key_of_call(&s, &c, &kc, &keyed), 1);
	EXPECT_EQ(kc, ka + 1);
	name_of_call(&s, &b, name);
	keyed_name(&s, F_LOG2, kb, want);
	EXPECT_STREQ(name, want);
	EXPECT_STREQ(name, "spin [arg0 in [2^12, 2^13)]");
	name_of_call(&s, &c, other);
	keyed_name(&s, F_LOG2, kc, want);
	EXPECT_STREQ(other, want);

	/* By call site: the return address, named from the maps. */
	a = entry(PROBE(F_SITE), (uintptr_t)code_here + 1, 1, 2, 3);
	b = entry(PROBE(F_SITE), (uintptr_t)code_here + 1, 4, 5, 6);
	EXPECT_EQ(key_of_call(&s, &a, &ka, &keyed), 1);
	EXPECT_TRUE(keyed);
	EXPECT_EQ(ka, (uintptr_t)code_here + 1);
	EXPECT_EQ(key_of_call(&s, &b, &kb, &keyed), 1);
	EXPECT_EQ(kb, ka);
	name_of_call(&s, &a, name);
	keyed_name(&s, F_SITE, ka, want);
	EXPECT_STREQ(name, want);
	EXPECT_TRUE(strstr(name, "code_here") != NULL);
	/* One without it (not read at entry): the function's name alone. */
	c = entry(PROBE(F_SITE), 0, 1, 2, 3);
	EXPECT_EQ(key_of_call(&s, &c, &kc, &keyed), 1);
	EXPECT_FALSE(keyed);
	EXPECT_EQ(kc, 0);
	name_of_call(&s, &c, name);
	EXPECT_STREQ(name, "site");
	session_end(&s, false);
}

/*
 * Unkeyed (a shape is known at the exit, an auto key at the report):
 * named by the function alone, key 0, every call alike.  A block's
 * marker and a probe never added are no calls: -1, as call() says.
 */
TEST(call_key_of_calls_named_by_their_function_alone)
{
	static const struct {
		unsigned int f;
		const char *name;
	} unkeyed[] = {
		{ F_NONE, "plain" }, { F_AUTO, "auto" }, { F_SHAPE, "shaped" },
	};
	const struct perfetto_names *n;
	struct ispot_record r;
	char name[128];
	struct session s;
	bool keyed = true;
	uint64_t key;
	size_t i;

	session_start(&s, "unkeyed.pftrace");
	trace_snapshot_maps(&s.t);
	n = names_of(&s);
	for (i = 0; i < sizeof(unkeyed) / sizeof(*unkeyed); i++) {
		r = entry(PROBE(unkeyed[i].f), 0x5000, LOCK_A, LOCK_B, 3);
		EXPECT_EQ(key_of_call(&s, &r, &key, &keyed), 1);
		EXPECT_FALSE(keyed);
		EXPECT_EQ(key, 0);
		name_of_call(&s, &r, name);
		EXPECT_STREQ(name, unkeyed[i].name);
	}
	r = entry(PROBE(F_BLOCK), 0x5000, 1, 2, 3);
	EXPECT_EQ(key_of_call(&s, &r, &key, &keyed), -1);
	EXPECT_EQ(n->call(n->ctx, &r, name, sizeof(name)), -1);
	r = entry(PROBE_UNKNOWN, 0x5000, 1, 2, 3);
	EXPECT_EQ(key_of_call(&s, &r, &key, &keyed), -1);
	EXPECT_EQ(n->call(n->ctx, &r, name, sizeof(name)), -1);
	session_end(&s, false);
}

/* The writer's generation now, and the maps' (0 without a snapshot). */
static void generations(const struct session *s, uint64_t *names,
			uint64_t *maps)
{
	const struct perfetto_names *n = names_of(s);

	*names = n->generation(n->ctx);
	*maps = s->t.sym ? elf_symbolizer_generation(s->t.sym) : 0;
}

/*
 * Read the maps again (trace_snapshot_maps()); the writer's generation
 * is never 0 after, and moves if and only if the maps' did.  Returns
 * whether they moved.
 */
static bool snapshot(struct session *s, uint64_t *names, uint64_t *maps)
{
	uint64_t was_names = *names, was_maps = *maps;
	bool had = s->t.sym != NULL;

	trace_snapshot_maps(&s->t);
	ASSERT_TRUE(s->t.sym);
	generations(s, names, maps);
	EXPECT_NE(*names, 0);
	if (had)
		EXPECT_EQ(*names != was_names, *maps != was_maps);
	return *maps != was_maps;
}

/*
 * generation: 0 before the first snapshot; from it on never 0 (the names
 * made before are made again), the same while the maps map the same
 * files, another when a file is mapped or unmapped.  A replay's is 0
 * always: its names are the recording's.
 */
TEST(generation_is_the_maps_and_never_0_after_a_snapshot)
{
	const struct perfetto_names *n;
	char file[PATH_MAX];
	uint64_t g, m, first;
	struct session s;
	void *mapped;
	int fd;

	session_start(&s, "generation.pftrace");
	n = names_of(&s);
	generations(&s, &g, &m);
	EXPECT_EQ(g, 0);
	/* The first snapshot: the maps' generation is 0, the names' not. */
	snapshot(&s, &g, &m);
	EXPECT_EQ(m, 0);
	first = g;
	/* The same files: the same. */
	EXPECT_FALSE(snapshot(&s, &g, &m));
	EXPECT_EQ(g, first);
	/* A file mapped: moved; read again, still that one. */
	path_in(file, "mapped");
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, FILE_SIZE), 0);
	mapped = mmap(NULL, FILE_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	ASSERT_NE(mapped, MAP_FAILED);
	EXPECT_TRUE(snapshot(&s, &g, &m));
	EXPECT_NE(g, first);
	EXPECT_FALSE(snapshot(&s, &g, &m));
	/* Unmapped: moved again. */
	munmap(mapped, FILE_SIZE);
	EXPECT_TRUE(snapshot(&s, &g, &m));
	EXPECT_FALSE(snapshot(&s, &g, &m));
	/* A replay, the same maps read: 0. */
	drain_free(s.t.live.drain);
	s.t.live.drain = NULL;
	EXPECT_EQ(n->generation(n->ctx), 0);
	session_end(&s, false);
}

/* The begins' names in the trace at @path, in order, into @names. */
static size_t slice_names(const char *path, char (*names)[128], size_t max)
{
	struct pr_trace d;
	size_t len, i, nr = 0;
	char *buf;
	FILE *f;

	f = fopen(path, "rb");
	ASSERT_TRUE(f);
	buf = malloc(1 << 20);
	ASSERT_TRUE(buf);
	len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(pr_read(buf, len, &d), 0);
	for (i = 0; i < d.nr_ev; i++)
		if (d.ev[i].type == 1 && nr < max)
			snprintf(names[nr++], 128, "%s", d.ev[i].name);
	pr_free(&d);
	free(buf);
	return nr;
}

/* A call of @f from call site @ip, begun and ended, into the trace. */
static void traced_call(struct session *s, unsigned int f, uint64_t ip)
{
	struct ispot_record r = entry(PROBE(f), ip, 1, 2, 3);

	perfetto_record(s->t.out.perfetto, &r);
	r.kind = ISPOT_REC_EXIT;
	r.ts_ns += 100;
	perfetto_record(s->t.out.perfetto, &r);
}

/*
 * Through the writer: a call site named before the first snapshot (a
 * number) is kept for its key, then named again from the maps once they
 * are read; the same name after, kept.
 */
TEST(a_name_kept_before_the_first_snapshot_is_made_again)
{
	uint64_t site = (uintptr_t)code_here + 1;
	char names[4][128], before[128], after[128];
	struct session s;

	session_start(&s, "first.pftrace");
	traced_call(&s, F_SITE, site);
	traced_call(&s, F_SITE, site);
	trace_snapshot_maps(&s.t);
	ASSERT_TRUE(s.t.sym);
	traced_call(&s, F_SITE, site);
	traced_call(&s, F_SITE, site);
	keyed_name(&s, F_SITE, site, after);
	session_end(&s, true);
	ASSERT_EQ(slice_names(s.path, names, 4), 4);
	snprintf(before, sizeof(before), "site [from 0x%llx]",
		 (unsigned long long)site);
	EXPECT_STREQ(names[0], before);
	EXPECT_STREQ(names[1], before);
	EXPECT_TRUE(strstr(after, "code_here") != NULL);
	EXPECT_STREQ(names[2], after);
	EXPECT_STREQ(names[3], after);
}

TEST_HARNESS_MAIN
