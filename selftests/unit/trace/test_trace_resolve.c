// SPDX-License-Identifier: GPL-2.0
/*
 * trace_resolve() with funcs_optional, as ispotd resolves one --func list
 * for every target: a spec the process lacks (-ENOENT) is left out and
 * noted, its bit set and the first search's message kept, with no line
 * on stderr; one known lacking (skip_specs) is not searched again; with
 * nothing left it is -ENOENT, still silent; any other error (a malformed
 * spec) is the usual one line; and without funcs_optional (ispotctl) a
 * missing function is that line too.  The process resolved is this test.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ispot_test.h"
#include "stderr_capture.h"
#include "trace/trace_internal.h"

/* Probed by name only, never called: kept, and with a symbol. */
__attribute__((noipa, used)) int resolve_me(int x)
{
	return x + 1;
}

/*
 * Starts with a LOCK-prefixed instruction (after a legacy prefix too),
 * which uprobes cannot step over.
 */
__asm__(".text\n"
	".globl resolve_locked\n"
	".type resolve_locked, @function\n"
	"resolve_locked:\n"
	"	lock incl (%rdi)\n"
	"	ret\n"
	".size resolve_locked, .-resolve_locked\n"
	".globl resolve_locked_wide\n"
	".type resolve_locked_wide, @function\n"
	"resolve_locked_wide:\n"
	"	.byte 0x66, 0xf0, 0xff, 0x07\n"
	"	ret\n"
	".size resolve_locked_wide, .-resolve_locked_wide\n"
	/* A CS override, which the kernel refuses as it does LOCK. */
	".globl resolve_cs_prefixed\n"
	".type resolve_cs_prefixed, @function\n"
	"resolve_cs_prefixed:\n"
	"	.byte 0x2e, 0x48, 0x8b, 0x07\n"
	"	ret\n"
	".size resolve_cs_prefixed, .-resolve_cs_prefixed\n"
	/* LOCK after a REX prefix: still locked, still refused. */
	".globl resolve_rex_locked\n"
	".type resolve_rex_locked, @function\n"
	"resolve_rex_locked:\n"
	"	.byte 0x48, 0xf0, 0xff, 0x07\n"
	"	ret\n"
	".size resolve_rex_locked, .-resolve_rex_locked\n"
	/* FS override and REX.W: steppable (a stack protector's load). */
	".globl resolve_fs_load\n"
	".type resolve_fs_load, @function\n"
	"resolve_fs_load:\n"
	"	movq %fs:0x28, %rax\n"
	"	ret\n"
	".size resolve_fs_load, .-resolve_fs_load\n");

static bool bit_set(const uint64_t *bits, size_t i)
{
	return bits[i / 64] & 1ull << (i % 64);
}

/* trace_resolve() of this process, with @o; stderr in captured[]. */
static int resolve(struct trace *t, const struct trace_opts *o)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->opts = o;
	capture_begin();
	ret = trace_resolve(t, getpid(), NULL);
	capture_end();
	return ret;
}

TEST(a_function_the_process_lacks_is_noted_not_an_error)
{
	struct trace_opts o = { .funcs_optional = true };
	struct trace t;

	o.funcs[o.nr_funcs++] = "no_such_function_here";
	o.funcs[o.nr_funcs++] = "resolve_me";
	o.funcs[o.nr_funcs++] = "nor_this_one";
	EXPECT_EQ(resolve(&t, &o), 0);
	EXPECT_STREQ(captured, "");
	EXPECT_EQ(t.nr_funcs, 1);
	EXPECT_STREQ(t.funcs[0].sym.name, "resolve_me");
	EXPECT_EQ(t.nr_unresolved, 2);
	EXPECT_TRUE(bit_set(t.unresolved, 0));
	EXPECT_FALSE(bit_set(t.unresolved, 1));
	EXPECT_TRUE(bit_set(t.unresolved, 2));
	EXPECT_TRUE(strstr(t.unresolved_msg, "no_such_function_here"));
	trace_funcs_free(&t);
}

TEST(one_known_lacking_is_not_searched_again)
{
	uint64_t skip[OPT_SPEC_WORDS] = { 1ull << 0 };
	struct trace_opts o = { .funcs_optional = true, .skip_specs = skip };
	struct trace t;

	o.funcs[o.nr_funcs++] = "no_such_function_here";
	o.funcs[o.nr_funcs++] = "resolve_me";
	EXPECT_EQ(resolve(&t, &o), 0);
	EXPECT_EQ(t.nr_funcs, 1);
	EXPECT_EQ(t.nr_unresolved, 1);
	EXPECT_TRUE(bit_set(t.unresolved, 0));
	/* Not searched: nothing new to say. */
	EXPECT_STREQ(t.unresolved_msg, "");
	trace_funcs_free(&t);
}

TEST(nothing_left_is_enoent_and_silent)
{
	struct trace_opts o = { .funcs_optional = true };
	struct trace t;

	o.funcs[o.nr_funcs++] = "no_such_function_here";
	EXPECT_EQ(resolve(&t, &o), -ENOENT);
	EXPECT_STREQ(captured, "");
	EXPECT_EQ(t.nr_funcs, 0);
	EXPECT_EQ(t.nr_unresolved, 1);
	trace_funcs_free(&t);
}

TEST(other_errors_are_still_errors)
{
	struct trace_opts o = { .funcs_optional = true };
	struct trace t;

	o.funcs[o.nr_funcs++] = "resolve_me";
	o.funcs[o.nr_funcs++] = ":";
	EXPECT_EQ(resolve(&t, &o), -1);
	EXPECT_TRUE(strchr(captured, '\n'));
	EXPECT_EQ(strchr(captured, '\n')[1], '\0');
	EXPECT_EQ(t.nr_unresolved, 0);
	trace_funcs_free(&t);
}

TEST(without_funcs_optional_a_missing_function_is_an_error)
{
	struct trace_opts o = { 0 };
	struct trace t;

	o.funcs[o.nr_funcs++] = "resolve_me";
	o.funcs[o.nr_funcs++] = "no_such_function_here";
	EXPECT_EQ(resolve(&t, &o), -1);
	EXPECT_TRUE(strstr(captured, "no_such_function_here"));
	EXPECT_EQ(t.nr_unresolved, 0);
	trace_funcs_free(&t);
}

/*
 * A probe on a LOCK-prefixed first instruction never fires where the
 * file is mapped after it is armed (run's exec): trace_arm() refuses
 * such a function by name, and lets any other through.
 */
TEST(a_lock_prefixed_first_instruction_is_not_steppable)
{
	struct trace_opts o = { 0 };
	struct trace t;

	o.funcs[o.nr_funcs++] = "resolve_me";
	o.funcs[o.nr_funcs++] = "resolve_locked";
	o.funcs[o.nr_funcs++] = "resolve_locked_wide";
	ASSERT_EQ(resolve(&t, &o), 0);
	ASSERT_EQ(t.nr_funcs, 3);
	EXPECT_TRUE(trace_sym_steppable(&t.funcs[0].sym));
	EXPECT_FALSE(trace_sym_steppable(&t.funcs[1].sym));
	EXPECT_FALSE(trace_sym_steppable(&t.funcs[2].sym));
	trace_funcs_free(&t);
}

/* What the kernel's is_prefix_bad() refuses besides LOCK, and after REX. */
TEST(segment_prefixes_and_lock_after_rex_are_not_steppable)
{
	struct trace_opts o = { 0 };
	struct trace t;

	o.funcs[o.nr_funcs++] = "resolve_cs_prefixed";
	o.funcs[o.nr_funcs++] = "resolve_rex_locked";
	o.funcs[o.nr_funcs++] = "resolve_fs_load";
	ASSERT_EQ(resolve(&t, &o), 0);
	ASSERT_EQ(t.nr_funcs, 3);
	EXPECT_FALSE(trace_sym_steppable(&t.funcs[0].sym));
	EXPECT_FALSE(trace_sym_steppable(&t.funcs[1].sym));
	EXPECT_TRUE(trace_sym_steppable(&t.funcs[2].sym));
	trace_funcs_free(&t);
}

/*
 * ispotd (funcs_optional): such a function is left out as one the target
 * lacks, said once by its caller, and the others are traced.
 */
TEST(under_funcs_optional_an_unsteppable_function_is_left_out)
{
	struct trace_opts o = { .funcs_optional = true };
	struct trace t;

	o.funcs[o.nr_funcs++] = "resolve_locked";
	o.funcs[o.nr_funcs++] = "resolve_me";
	o.funcs[o.nr_funcs++] = "resolve_locked*";
	EXPECT_EQ(resolve(&t, &o), 0);
	EXPECT_STREQ(captured, "");
	ASSERT_EQ(t.nr_funcs, 1);
	EXPECT_STREQ(t.funcs[0].sym.name, "resolve_me");
	EXPECT_EQ(t.nr_unresolved, 2);
	EXPECT_TRUE(bit_set(t.unresolved, 0));
	EXPECT_FALSE(bit_set(t.unresolved, 1));
	EXPECT_TRUE(bit_set(t.unresolved, 2));
	EXPECT_TRUE(strstr(t.unresolved_msg, "'resolve_locked' starts with an "
			   "instruction uprobes cannot step over"));
	EXPECT_EQ(t.nr_left_out, 0);
	trace_funcs_free(&t);
}

/*
 * A glob matching some such functions among others: those are left out
 * and noted in left_out, with how many, for the caller to say once; the
 * others are traced, and the spec is not one the target lacks.
 */
TEST(a_glob_keeps_its_steppable_matches_and_notes_the_rest)
{
	struct trace_opts o = { .funcs_optional = true };
	struct trace t;
	size_t i;

	o.funcs[o.nr_funcs++] = "resolve_me";
	o.funcs[o.nr_funcs++] = "resolve_*";
	EXPECT_EQ(resolve(&t, &o), 0);
	EXPECT_STREQ(captured, "");
	/* resolve_me twice (traced once) and resolve_fs_load. */
	ASSERT_GE(t.nr_funcs, 2);
	for (i = 0; i < t.nr_funcs; i++)
		EXPECT_TRUE(trace_sym_steppable(&t.funcs[i].sym));
	EXPECT_EQ(t.nr_unresolved, 0);
	EXPECT_EQ(t.nr_left_out, 1);
	EXPECT_FALSE(bit_set(t.left_out, 0));
	EXPECT_TRUE(bit_set(t.left_out, 1));
	EXPECT_TRUE(strstr(t.left_out_msg, "' (and 3 more of 'resolve_*') "
			   "starts with an instruction uprobes cannot step "
			   "over"));
	trace_funcs_free(&t);
}

TEST_HARNESS_MAIN
