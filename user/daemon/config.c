// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's options from argv and from the --config file; see config.h.
 * Both go through the option table ispotctl reads too
 * (cli/opttab.h), so the file takes exactly the command line's names
 * and values, a bad value reads the same in either place and in either
 * program; what is ispotd's own is where each value goes and how the file
 * merges with the command line.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util/errors.h"

/*
 * Only the usual mount point of cgroup2 is stripped from a --cgroup path;
 * see config_cgroup_normalise().
 */
#define CGROUP2_MOUNT	"/sys/fs/cgroup"

static const struct opt_cmd_info daemon_cmd = {
	OPT_DAEMON, "ispotd",
	"usage: ispotd [--config FILE] (--pid PID | --exe PATH | --cgroup PATH)...\n"
	"              (--func SPEC... | --auto[=N]) [OPTIONS]",
	"Watches processes, traces them within an overhead budget, and logs,\n"
	"window after window, the functions that lose the most time to other\n"
	"threads.", NULL, "see ispotd --help",
};

/* The file's lines: the same table, the options it takes. */
static const struct opt_cmd_info conf_cmd = {
	OPT_CONF, "the config file", NULL, NULL, NULL, "see ispotd --help",
};

/* Where the values being stored go, and what the command line set. */
struct config_ctx {
	struct ispotd_config *c;
	bool file;		/* from the config file, not the command line */
	unsigned int keep;	/* ISPOTD_SET_*: the command line's, which win */
	unsigned int seen;	/* ISPOTD_SET_*: the file's lines so far */
	size_t cli_keys;	/* keys[] below this index are the command line's */
};

void ispotd_config_usage(FILE *f)
{
	opt_usage(&daemon_cmd, f);
}

static int config_oom(void)
{
	ispot_error("out of memory reading the options");
	return -1;
}

static int config_init(struct ispotd_config *c)
{
	memset(c, 0, sizeof(*c));
	c->budget = ISPOTD_DEFAULT_BUDGET;
	c->window_ns = ISPOTD_DEFAULT_WINDOW_NS;
	c->max_functions = ISPOTD_DEFAULT_MAX_FUNCTIONS;
	c->ring_bytes = OPT_DEFAULT_RING_BYTES;
	c->solo_share = ISPOTD_DEFAULT_SOLO_SHARE;
	c->auto_time_ns = ISPOTD_DEFAULT_AUTO_TIME_NS;
	c->auto_every = ISPOTD_DEFAULT_AUTO_EVERY;
	c->log_path = strdup("-");
	return c->log_path ? 0 : config_oom();
}

void ispotd_config_free(struct ispotd_config *c)
{
	size_t i;

	free(c->config_path);
	for (i = 0; i < c->nr_exes; i++)
		free(c->exes[i]);
	for (i = 0; i < c->nr_cgroups; i++)
		free(c->cgroups[i]);
	for (i = 0; i < c->nr_funcs; i++)
		free(c->funcs[i]);
	for (i = 0; i < c->nr_keys; i++)
		free(c->keys[i].func);
	free(c->log_path);
	free(c->listen);
	memset(c, 0, sizeof(*c));
}

/* Make the borrowed *p a copy of its own; NULL, and !*ok, if none. */
static void config_own(char **p, bool *ok)
{
	if (*p && !(*p = strdup(*p)))
		*ok = false;
}

/* A deep copy; on failure @dst is freed and zeroed. */
static int config_copy(struct ispotd_config *dst,
		       const struct ispotd_config *src)
{
	bool ok = true;
	size_t i;

	*dst = *src;
	/* Every pointer is owned or NULL by the end, so free() is right. */
	config_own(&dst->config_path, &ok);
	for (i = 0; i < dst->nr_exes; i++)
		config_own(&dst->exes[i], &ok);
	for (i = 0; i < dst->nr_cgroups; i++)
		config_own(&dst->cgroups[i], &ok);
	for (i = 0; i < dst->nr_funcs; i++)
		config_own(&dst->funcs[i], &ok);
	for (i = 0; i < dst->nr_keys; i++)
		config_own(&dst->keys[i].func, &ok);
	config_own(&dst->log_path, &ok);
	config_own(&dst->listen, &ok);
	if (!ok) {
		ispotd_config_free(dst);
		return config_oom();
	}
	return 0;
}

/*
 * Whether to store a scalar's value: not when the command line gave it
 * and this is the file.  On the command line the last value wins, as
 * with most tools (a wrapper can append an override); in the file, a
 * second line for one setting is a mistake: -1, whether or not the
 * command line overrides it (the file must not turn bad without it).
 */
static int config_take(struct config_ctx *x, unsigned int bit,
		       const struct opt_val *v, char *err, size_t len)
{
	if (x->file && (x->seen & bit)) {
		snprintf(err, len, "%s is given twice: give it once", v->opt);
		return -1;
	}
	if (x->file)
		x->seen |= bit;
	if (x->keep & bit)
		return 0;
	x->c->set |= bit;
	return 1;
}

static int config_replace(char **p, const char *val)
{
	char *s = strdup(val);

	if (!s)
		return config_oom();
	free(*p);
	*p = s;
	return 0;
}

/*
 * The scalars: where each goes, and its ISPOTD_SET_* bit (a value the
 * command line gave wins over the file's).
 */
enum config_kind { CONFIG_FRACTION, CONFIG_U64, CONFIG_U32, CONFIG_STR };

static const struct config_scalar {
	enum opt_id id;
	unsigned int bit;
	enum config_kind kind;
	size_t off;		/* in struct ispotd_config */
} config_scalars[] = {
	{ OPT_BUDGET, ISPOTD_SET_BUDGET, CONFIG_FRACTION,
	  offsetof(struct ispotd_config, budget) },
	{ OPT_DWINDOW, ISPOTD_SET_WINDOW, CONFIG_U64,
	  offsetof(struct ispotd_config, window_ns) },
	{ OPT_LOG, ISPOTD_SET_LOG, CONFIG_STR,
	  offsetof(struct ispotd_config, log_path) },
	{ OPT_LISTEN, ISPOTD_SET_LISTEN, CONFIG_STR,
	  offsetof(struct ispotd_config, listen) },
	{ OPT_MAX_FUNCTIONS, ISPOTD_SET_MAX_FUNCTIONS, CONFIG_U32,
	  offsetof(struct ispotd_config, max_functions) },
	{ OPT_RING_SIZE, ISPOTD_SET_RING_SIZE, CONFIG_U64,
	  offsetof(struct ispotd_config, ring_bytes) },
	{ OPT_SOLO_BLOCKS, ISPOTD_SET_SOLO_BLOCKS, CONFIG_FRACTION,
	  offsetof(struct ispotd_config, solo_share) },
	{ OPT_DAUTO_TIME, ISPOTD_SET_AUTO_TIME, CONFIG_U64,
	  offsetof(struct ispotd_config, auto_time_ns) },
	{ OPT_AUTO_EVERY, ISPOTD_SET_AUTO_EVERY, CONFIG_U32,
	  offsetof(struct ispotd_config, auto_every) },
};

static const struct config_scalar *config_scalar_of(enum opt_id id)
{
	size_t i;

	for (i = 0; i < sizeof(config_scalars) / sizeof(*config_scalars); i++)
		if (config_scalars[i].id == id)
			return &config_scalars[i];
	return NULL;
}

/* Store @v unless the command line gave it; 0 or -1. */
static int config_store_scalar(struct config_ctx *x,
			       const struct config_scalar *sc,
			       const struct opt_val *v, char *err, size_t len)
{
	char *field = (char *)x->c + sc->off;
	int take = config_take(x, sc->bit, v, err, len);

	if (take <= 0)
		return take;
	switch (sc->kind) {
	case CONFIG_FRACTION:
		*(double *)field = v->fraction;
		break;
	case CONFIG_U64:
		*(uint64_t *)field = v->u64;
		break;
	case CONFIG_U32:
		*(uint32_t *)field = v->u64;
		/* The check against --auto=N names where it came from. */
		if (sc->id == OPT_MAX_FUNCTIONS)
			x->c->max_functions_line = v->line;
		break;
	case CONFIG_STR:
		return config_replace((char **)field, v->str);
	}
	return 0;
}

static int too_many(const struct opt_val *v, size_t max, char *err,
		    size_t len)
{
	snprintf(err, len, "too many %s options (max %zu)", v->opt, max);
	return -1;
}

/* Append a copy of @val to a list, unless it is there already. */
static int config_add_str(char **list, size_t *nr, size_t max,
			  const struct opt_val *v, const char *val, char *err,
			  size_t len)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp(list[i], val))
			return 0;
	if (*nr == max)
		return too_many(v, max, err, len);
	list[*nr] = strdup(val);
	if (!list[*nr])
		return config_oom();
	(*nr)++;
	return 0;
}

static int config_add_pid(struct ispotd_config *c, const struct opt_val *v,
			  char *err, size_t len)
{
	size_t i;

	for (i = 0; i < c->nr_pids; i++)
		if (c->pids[i] == (pid_t)v->u64)
			return 0;
	if (c->nr_pids == ISPOTD_MAX_TARGETS)
		return too_many(v, ISPOTD_MAX_TARGETS, err, len);
	c->pids[c->nr_pids++] = v->u64;
	return 0;
}

/*
 * The path relative to the cgroup2 root, with a leading "/" and single
 * slashes: "a/b", "/a/b/" and "/sys/fs/cgroup/a/b" are all "/a/b".
 *
 * The parser does not look up where cgroup2 is mounted: the daemon may
 * start before the mount, and a path must mean the same on every reload.
 * It strips the usual mount point only, so that a path copied from there
 * works; under another mount point (/sys/fs/cgroup/unified on a hybrid
 * v1/v2 system), give the path relative to the cgroup2 root.  "." and
 * ".." are refused (NULL, @err says why): a group is named, not
 * navigated to.
 */
static char *config_cgroup_normalise(const struct opt_val *v, char *err,
				     size_t errlen)
{
	size_t mlen = strlen(CGROUP2_MOUNT), n = 0;
	const char *p = v->str;
	char *s;

	if (!strncmp(p, CGROUP2_MOUNT, mlen) && (!p[mlen] || p[mlen] == '/'))
		p += mlen;
	s = malloc(strlen(p) + 2);
	if (!s) {
		config_oom();
		return NULL;
	}
	while (*p) {
		size_t len;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (!len)
			break;
		if ((len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.')) {
			free(s);
			snprintf(err, errlen, "%s '%s': name the group without "
				 "'.' or '..', e.g. /system.slice/foo.service",
				 v->opt, v->str);
			return NULL;
		}
		s[n++] = '/';
		memcpy(s + n, p, len);
		n += len;
		p += len;
	}
	if (!n)
		s[n++] = '/';
	s[n] = '\0';
	return s;
}

static int config_add_cgroup(struct ispotd_config *c, const struct opt_val *v,
			     char *err, size_t len)
{
	char *path;
	int ret;

	path = config_cgroup_normalise(v, err, len);
	if (!path)
		return -1;
	ret = config_add_str(c->cgroups, &c->nr_cgroups, ISPOTD_MAX_TARGETS,
			     v, path, err, len);
	free(path);
	return ret;
}

static int config_add_key(struct config_ctx *x, const struct opt_val *v,
			  char *err, size_t len)
{
	struct ispotd_config *c = x->c;
	char *func = strndup(v->str, v->func_len);
	size_t i;

	if (!func)
		return config_oom();
	/* The last matching key decides: keep the file's from overriding. */
	for (i = 0; i < x->cli_keys; i++) {
		if (!strcmp(c->keys[i].func, func)) {
			free(func);
			return 0;
		}
	}
	if (c->nr_keys == OPT_MAX_KEYS) {
		free(func);
		return too_many(v, OPT_MAX_KEYS, err, len);
	}
	c->keys[c->nr_keys].func = func;
	c->keys[c->nr_keys++].rule = v->rule;
	return 0;
}

/* A block travels as the --func spec ispotctl would make of it. */
static int config_add_block(struct ispotd_config *c, const struct opt_val *v,
			    char *err, size_t len)
{
	char spec[OPT_BLOCK_SPEC_MAX];

	snprintf(spec, sizeof(spec), "%s%s", OPT_BLOCK_PREFIX, v->str);
	return config_add_str(c->funcs, &c->nr_funcs, OPT_MAX_FUNCS, v, spec,
			      err, len);
}

/* Where each option of the table goes in an ispotd_config. */
static int config_store(void *ctx, const struct opt_val *v, char *err,
			size_t len)
{
	struct config_ctx *x = ctx;
	struct ispotd_config *c = x->c;
	const struct config_scalar *sc;
	int ret;

	switch (v->def->id) {
	case OPT_CONFIG:
		if (x->file) {
			snprintf(err, len, "'config' cannot be used in a config "
				 "file: ispotd reads the one file --config "
				 "names");
			return -1;
		}
		if (c->config_path) {
			snprintf(err, len, "--config is given twice: ispotd "
				 "reads one file");
			return -1;
		}
		return config_replace(&c->config_path, v->str);
	case OPT_PID:
		return config_add_pid(c, v, err, len);
	case OPT_EXE:
		return config_add_str(c->exes, &c->nr_exes, ISPOTD_MAX_TARGETS,
				      v, v->str, err, len);
	case OPT_CGROUP:
		return config_add_cgroup(c, v, err, len);
	case OPT_FUNC:
		return config_add_str(c->funcs, &c->nr_funcs, OPT_MAX_FUNCS,
				      v, v->str, err, len);
	case OPT_BLOCK:
		return config_add_block(c, v, err, len);
	case OPT_SYNC:
		/* A flag can only be turned on: the union, like the lists. */
		c->sync = true;
		return 0;
	case OPT_KEY:
		return config_add_key(x, v, err, len);
	case OPT_DAUTO:
		/* A scalar: the command line's --auto=N wins over the file's. */
		ret = config_take(x, ISPOTD_SET_AUTO, v, err, len);
		if (ret > 0) {
			c->auto_pick = true;
			c->auto_top = (uint32_t)v->u64;
			c->auto_line = v->line;
		}
		return ret < 0 ? -1 : 0;
	default:
		sc = config_scalar_of(v->def->id);
		if (sc)
			return config_store_scalar(x, sc, v, err, len);
		/* An option the table gives ispotd without a place. */
		snprintf(err, len, "%s is not handled", v->opt);
		return -1;
	}
}

/* After merging: something to watch and something to trace. */
static int config_check(const struct ispotd_config *c, const char *path)
{
	const struct opt_src src = { .cmd = &daemon_cmd, .path = path };
	const struct opt_src cmdline = { .cmd = &daemon_cmd };
	struct opt_src at = src;

	if (!c->nr_pids && !c->nr_exes && !c->nr_cgroups)
		return opt_error(&src, path ?
				 "nothing to watch: add a 'pid', 'exe' or "
				 "'cgroup' line, or give --pid, --exe or "
				 "--cgroup" :
				 "nothing to watch: give --pid PID, --exe "
				 "PATH or --cgroup PATH");
	if (!c->nr_funcs && !c->sync && !c->auto_pick)
		return opt_error(&src, path ?
				 "nothing to trace: add a 'func SPEC' or an "
				 "'auto' line, or give --func SPEC, --auto or "
				 "--sync" :
				 "nothing to trace: give --func SPEC (e.g. "
				 "--func 'worker_*'), --auto or --sync");
	if (c->auto_top <= c->max_functions)
		return 0;
	/* N or the bound from the file: its line, the other's value. */
	at.line = c->auto_line ? c->auto_line : c->max_functions_line;
	/*
	 * 'auto N' in the file: the bound as it was given (on the command
	 * line, where a file's line would not count, or in the file).
	 */
	if (c->auto_line) {
		const char *mf = !c->max_functions_line &&
				 (c->set & ISPOTD_SET_MAX_FUNCTIONS) ?
				 "--max-functions" : "max-functions";

		return opt_error(&at, "'auto %u' picks more functions than "
				 "%s %u reports: lower it or raise %s",
				 c->auto_top, mf, c->max_functions, mf);
	}
	if (at.line)
		return opt_error(&at, "--auto=%u picks more functions than "
				 "'max-functions %u' here reports: raise it or "
				 "lower --auto's N", c->auto_top,
				 c->max_functions);
	return opt_error(&cmdline, "--auto=%u picks more functions than "
			 "--max-functions %u reports: lower N or raise "
			 "--max-functions", c->auto_top, c->max_functions);
}

int ispotd_config_parse_args(int argc, char **argv, struct ispotd_config *cli)
{
	const struct opt_src src = { .cmd = &daemon_cmd };
	struct config_ctx x = { .c = cli };
	int next, ret;

	if (config_init(cli))
		return -1;
	ret = opt_parse_argv(&daemon_cmd, argc, argv, config_store, &x, &next);
	if (ret == 1) {
		ispotd_config_free(cli);
		return 1;
	}
	if (ret)
		goto fail;
	/* ispotd takes no operands. */
	if (next < argc) {
		opt_error(&src, "unexpected argument '%s'", argv[next]);
		goto fail;
	}
	/* With a file, what is missing may be in it: see the load. */
	if (!cli->config_path && config_check(cli, NULL))
		goto fail;
	return 0;
fail:
	ispotd_config_free(cli);
	return -1;
}

int ispotd_config_load(const struct ispotd_config *cli,
		       struct ispotd_config *out)
{
	struct ispotd_config c;

	if (config_copy(&c, cli))
		return -1;
	if (cli->config_path) {
		struct config_ctx x = {
			.c = &c,
			.file = true,
			.keep = cli->set,
			.cli_keys = cli->nr_keys,
		};

		if (opt_parse_file(&conf_cmd, cli->config_path, config_store,
				   &x))
			goto fail;
	}
	if (config_check(&c, cli->config_path))
		goto fail;
	*out = c;
	return 0;
fail:
	ispotd_config_free(&c);
	return -1;
}

void ispotd_config_trace_opts(const struct ispotd_config *c,
			      struct trace_opts *t)
{
	size_t i;

	/*
	 * Zero: pid 0 (the caller sets one per target), no --duration (the
	 * daemon decides when a session ends), no --json, --output,
	 * counters or sampling, and no command, as for attach.
	 */
	memset(t, 0, sizeof(*t));
	for (i = 0; i < c->nr_funcs; i++)
		t->funcs[i] = c->funcs[i];
	t->nr_funcs = c->nr_funcs;
	memcpy(t->keys, c->keys, c->nr_keys * sizeof(*t->keys));
	t->nr_keys = c->nr_keys;
	t->sync = c->sync;
	t->ring_bytes = c->ring_bytes;
	t->solo_share = c->solo_share;
	/*
	 * Blocks cover at most the share: --budget counts the gate's waits
	 * against the target's CPU time, and a pool that mostly waits uses
	 * little of it, so cheap blocks over a quarter of the armed time
	 * would spend the budget on the gate.
	 */
	t->solo_cover = c->solo_share;
	t->solo_burst = true;
	t->funcs_optional = true;
	t->gone_quiet = true;
}
