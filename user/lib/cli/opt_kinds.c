// SPDX-License-Identifier: GPL-2.0
/*
 * One function per kind of value of the option table (enum opt_kind):
 * each parses a value as its kind says and writes the one-line message
 * that says what a good one looks like.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opttab.h"
#include "cli/opttab_internal.h"
#include "export/perfetto.h"
#include "util/netaddr.h"

/* Each writes the one-line message for a bad @v->str to @err. */
typedef bool (*kind_fn)(struct opt_val *v, bool file, char *err,
			size_t len);

static bool kind_none(struct opt_val *v, bool file, char *err, size_t len)
{
	(void)v, (void)file, (void)err, (void)len;
	return true;
}

static bool kind_count_opt(struct opt_val *v, bool file, char *err,
			   size_t len)
{
	uint32_t n = 0;

	(void)file;
	if (v->str && !options_parse_u32(v->str, 1, &n)) {
		snprintf(err, len, "%s=%s: N must be a whole number >= 1",
			 v->opt, v->str);
		return false;
	}
	v->u64 = n;
	return true;
}

static bool kind_pid(struct opt_val *v, bool file, char *err, size_t len)
{
	uint32_t n;

	(void)file;
	if (!options_parse_u32(v->str, 1, &n) || n > INT_MAX) {
		snprintf(err, len, "%s '%s' is not a process id (a whole "
			 "number >= 1)", v->opt, v->str);
		return false;
	}
	v->u64 = n;
	return true;
}

static bool kind_text(struct opt_val *v, bool file, char *err, size_t len)
{
	(void)file;
	if (!*v->str) {
		snprintf(err, len, "%s needs %s", v->opt, v->def->what);
		return false;
	}
	return true;
}

static bool kind_count(struct opt_val *v, bool file, char *err, size_t len)
{
	uint32_t n;

	(void)file;
	if (!options_parse_u32(v->str, 1, &n)) {
		snprintf(err, len, "%s '%s' must be a whole number >= 1%s",
			 v->opt, v->str, v->def->what ? v->def->what : "");
		return false;
	}
	v->u64 = n;
	return true;
}

/* The longest time option @d takes, ns; 0: no bound. */
static uint64_t duration_max(const struct opt_def *d)
{
	return d->id == OPT_AUTO_TIME || d->id == OPT_DAUTO_TIME ?
	       AUTO_TIME_MAX_NS : 0;
}

static bool kind_duration(struct opt_val *v, bool file, char *err,
			  size_t len)
{
	const struct opt_def *d = v->def;
	uint64_t max = duration_max(d);
	bool bare;

	(void)file;
	v->u64 = options_parse_duration(v->str);
	/* Past the parser's range too (it refuses over 1e7 of a unit). */
	if (max && (v->u64 > max || (!v->u64 && strtod(v->str, NULL) > 1e7))) {
		bare = strspn(v->str, "0123456789.") == strlen(v->str);
		snprintf(err, len, "%s '%s' must be a time of at most %llus%s, "
			 "e.g. %s", v->opt, v->str,
			 (unsigned long long)(max / NS_PER_SEC),
			 bare ? " (a bare number is seconds)" : "", d->what);
		return false;
	}
	if (v->u64 >= d->min)
		return true;
	if (d->min >= NS_PER_SEC)
		snprintf(err, len, "%s '%s' must be a time of at least %llus, "
			 "e.g. %s", v->opt, v->str,
			 (unsigned long long)(d->min / NS_PER_SEC), d->what);
	else if (d->min > 1)
		snprintf(err, len, "%s '%s' must be a time of %llums or more",
			 v->opt, v->str,
			 (unsigned long long)(d->min / 1000000));
	else
		snprintf(err, len, "%s '%s' is not a time such as %s", v->opt,
			 v->str, d->what);
	return false;
}

static bool kind_size(struct opt_val *v, bool file, char *err, size_t len)
{
	(void)file;
	v->u64 = options_parse_ring_size(v->str);
	if (!v->u64)
		snprintf(err, len, "%s '%s' must be a power of two from 4K "
			 "to 1G", v->opt, v->str);
	return v->u64;
}

static bool kind_bytes(struct opt_val *v, bool file, char *err, size_t len)
{
	_Static_assert(MIN_RING_BYTES >= PERFETTO_MIN_SIZE,
		       "a --perfetto-max-size the parser takes is kept whole");
	(void)file;
	v->u64 = options_parse_bytes(v->str, MIN_RING_BYTES);
	if (!v->u64)
		snprintf(err, len, "%s '%s' must be a size of 4K or more, e.g. "
			 "100M or 2G", v->opt, v->str);
	return v->u64;
}

static bool kind_percent(struct opt_val *v, bool file, char *err,
			 size_t len)
{
	(void)file;
	if (v->def->id == OPT_SOLO_BLOCKS) {
		/* Beyond half the run, blocks would be the program. */
		if (options_parse_percent(v->str, &v->fraction) &&
		    v->fraction <= OPT_MAX_SOLO_SHARE)
			return true;
		snprintf(err, len, "%s '%s' must be a percentage from 0 to "
			 "%g, e.g. 2%% (0: no solo blocks)", v->opt, v->str,
			 100 * OPT_MAX_SOLO_SHARE);
		return false;
	}
	if (options_parse_percent(v->str, &v->fraction))
		return true;
	snprintf(err, len, "%s '%s' must be a percentage from 0 to 100, e.g. "
		 "1%% or 0.5%% (0: always armed)", v->opt, v->str);
	return false;
}

/*
 * FUNC=RULE, split at the last '=': no rule holds one, and a C++
 * "operator=" or "operator==" does, so "operator===shape" keys
 * operator==.  FUNC is checked against the traced functions later.
 */
static bool kind_key(struct opt_val *v, bool file, char *err, size_t len)
{
	const char *eq = strrchr(v->str, '=');

	if (!eq || eq == v->str) {
		snprintf(err, len, "%s '%s' needs FUNC=RULE, e.g. %s",
			 v->opt, v->str, file ? "key worker=arg0:log2" :
			 "--key 'worker=arg0:log2'");
		return false;
	}
	if (!key_rule_parse(eq + 1, &v->rule)) {
		snprintf(err, len, "%s '%s': the rule must be argN (N = 0-2), "
			 "argN:log2, callsite, shape, auto or none", v->opt,
			 v->str);
		return false;
	}
	v->func_len = eq - v->str;
	return true;
}

static bool kind_block(struct opt_val *v, bool file, char *err, size_t len)
{
	(void)file;
	if (!strchr(v->str, '=')) {
		snprintf(err, len, "%s wants NAME=[OBJ:]PROV:BEGIN,PROV:END, "
			 "not '%s'", v->opt, v->str);
		return false;
	}
	if (strlen(OPT_BLOCK_PREFIX) + strlen(v->str) >= OPT_BLOCK_SPEC_MAX) {
		snprintf(err, len, "%s '%.40s...' is too long", v->opt, v->str);
		return false;
	}
	return true;
}

static bool kind_addr(struct opt_val *v, bool file, char *err, size_t len)
{
	const char *problem;
	char host[256];
	uint16_t port;

	(void)file;
	problem = netaddr_split(v->str, host, sizeof(host), &port);
	if (problem)
		snprintf(err, len, "%s '%s' %s", v->opt, v->str, problem);
	return !problem;
}

static const kind_fn kind_fns[] = {
	[OPTK_FLAG] = kind_none,
	[OPTK_COUNT_OPT] = kind_count_opt,
	[OPTK_PID] = kind_pid,
	[OPTK_TEXT] = kind_text,
	[OPTK_COUNT] = kind_count,
	[OPTK_DURATION] = kind_duration,
	[OPTK_SIZE] = kind_size,
	[OPTK_BYTES] = kind_bytes,
	[OPTK_PERCENT] = kind_percent,
	[OPTK_KEY] = kind_key,
	[OPTK_BLOCK] = kind_block,
	[OPTK_COUNTERS] = kind_none,
	[OPTK_RAW_EVENT] = kind_none,
	[OPTK_ADDR] = kind_addr,
	[OPTK_HELP] = kind_none,
};

bool opt_kind_parse(struct opt_val *v, bool file, char *err, size_t len)
{
	return kind_fns[v->def->kind](v, file, err, len);
}
