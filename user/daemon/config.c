// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's options from argv and from the --config file; see config.h.
 * One table and one setter serve both, so the file takes exactly the
 * command line's names and values, and a bad value reads the same in
 * either place.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util/errors.h"
#include "util/netaddr.h"

/*
 * Only the usual mount point of cgroup2 is stripped from a --cgroup path;
 * see config_cgroup_normalise().
 */
#define CGROUP2_MOUNT	"/sys/fs/cgroup"

/* getopt_long's values: above every character, so none is taken for one. */
enum config_opt {
	CFG_CONFIG = 256,
	CFG_PID,
	CFG_EXE,
	CFG_CGROUP,
	CFG_FUNC,
	CFG_BLOCK,
	CFG_SYNC,
	CFG_KEY,
	CFG_BUDGET,
	CFG_WINDOW,
	CFG_LOG,
	CFG_LISTEN,
	CFG_MAX_FUNCTIONS,
	CFG_RING_SIZE,
};

/* The command line's long options, and the keys of the config file. */
static const struct option config_opts[] = {
	{ "config", required_argument, NULL, CFG_CONFIG },
	{ "pid", required_argument, NULL, CFG_PID },
	{ "exe", required_argument, NULL, CFG_EXE },
	{ "cgroup", required_argument, NULL, CFG_CGROUP },
	{ "func", required_argument, NULL, CFG_FUNC },
	{ "block", required_argument, NULL, CFG_BLOCK },
	{ "sync", no_argument, NULL, CFG_SYNC },
	{ "key", required_argument, NULL, CFG_KEY },
	{ "budget", required_argument, NULL, CFG_BUDGET },
	{ "window", required_argument, NULL, CFG_WINDOW },
	{ "log", required_argument, NULL, CFG_LOG },
	{ "listen", required_argument, NULL, CFG_LISTEN },
	{ "max-functions", required_argument, NULL, CFG_MAX_FUNCTIONS },
	{ "ring-size", required_argument, NULL, CFG_RING_SIZE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Where the values being set come from, for the error line and merging. */
struct config_src {
	const char *path;	/* the config file; NULL: the command line */
	unsigned int line;	/* 0: the file as a whole */
	unsigned int keep;	/* ISPOTD_SET_*: the command line's, which win */
	size_t cli_keys;	/* keys[] below this index are the command line's */
};

void ispotd_config_usage(FILE *f)
{
	fprintf(f,
		"usage: ispotd [--config FILE] (--pid PID | --exe PATH | --cgroup PATH)...\n"
		"              --func SPEC... [OPTIONS]\n"
		"\n"
		"Watches processes, traces them within an overhead budget, and logs,\n"
		"window after window, the functions that lose the most time to other\n"
		"threads.\n"
		"\n"
		"targets (at least one; each repeatable):\n"
		"      --pid PID         a running process\n"
		"      --exe PATH        processes running PATH (need not exist yet)\n"
		"      --cgroup PATH     processes in a cgroup2 group: /sys/fs/cgroup/a/b,\n"
		"                        or a/b relative to the cgroup2 root\n"
		"what to trace:\n"
		"      --func SPEC       function to trace: name, glob ('worker_*') or\n"
		"                        OBJ:name ('libc:pthread_mutex_lock'), or\n"
		"                        block:NAME (include/ispot.h markers); repeatable\n"
		"      --block NAME=[OBJ:]PROV:BEGIN,PROV:END\n"
		"                        trace from one USDT probe to another as NAME\n"
		"      --key FUNC=RULE   compare FUNC's executions only with those of the\n"
		"                        same argN[:log2], callsite, shape (probed calls\n"
		"                        made), or none; auto: the argument the work\n"
		"                        follows, if any; repeatable\n"
		"      --sync            also trace pthread lock, wait and barrier calls\n"
		"options:\n"
		"      --budget PCT      overhead allowed, as a share of the targets' time\n"
		"                        (e.g. 1%%, 0.5%%; default 1%%; 0: always armed)\n"
		"      --window TIME     length of a window (e.g. 60s, 5m; default 60s,\n"
		"                        at least 1s)\n"
		"      --log FILE|-      write one JSON line per target per window to FILE\n"
		"                        (default -: stdout)\n"
		"      --listen ADDR:PORT\n"
		"                        serve Prometheus metrics at /metrics, e.g.\n"
		"                        127.0.0.1:9464 or [::1]:9464 (default off)\n"
		"      --max-functions N\n"
		"                        functions per target before the rest are summed\n"
		"                        as \"(other)\" (default 50)\n"
		"      --ring-size SIZE  ring buffer per CPU (e.g. 512K, 4M; default 2M)\n"
		"      --config FILE     more options, one per line: 'exe /usr/bin/app',\n"
		"                        'budget 0.5%%', 'sync'; '#' comments; lists add\n"
		"                        up, the command line's other values win;\n"
		"                        SIGHUP re-reads it\n"
		"  -h, --help            this help\n");
}

/*
 * One line on stderr: "FILE:LINE: MSG; see ispotd --help" for the config
 * file, "MSG; see ispotd --help" for the command line.  Returns -1.
 */
static int __attribute__((format(printf, 2, 3)))
config_error(const struct config_src *src, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (src->path && src->line)
		ispot_error("%s:%u: %s; see ispotd --help", src->path,
			    src->line, msg);
	else if (src->path)
		ispot_error("%s: %s; see ispotd --help", src->path, msg);
	else
		ispot_error("%s; see ispotd --help", msg);
	return -1;
}

static int config_oom(void)
{
	ispot_error("out of memory reading the options");
	return -1;
}

static const struct option *config_opt_by_id(int id)
{
	const struct option *o;

	for (o = config_opts; o->name; o++)
		if (o->val == id)
			return o;
	return NULL;
}

static const struct option *config_opt_by_name(const char *name)
{
	const struct option *o;

	for (o = config_opts; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static int config_init(struct ispotd_config *c)
{
	memset(c, 0, sizeof(*c));
	c->budget = ISPOTD_DEFAULT_BUDGET;
	c->window_ns = ISPOTD_DEFAULT_WINDOW_NS;
	c->max_functions = ISPOTD_DEFAULT_MAX_FUNCTIONS;
	c->ring_bytes = OPT_DEFAULT_RING_BYTES;
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

/* Whether to store a value of scalar @bit: not if the command line gave it. */
static bool config_take(struct ispotd_config *c, const struct config_src *src,
			unsigned int bit)
{
	if (src->keep & bit)
		return false;
	c->set |= bit;
	return true;
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

/* Append a copy of @val to a list, unless it is there already. */
static int config_add_str(char **list, size_t *nr, size_t max,
			  const struct config_src *src, const char *opt,
			  const char *val)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp(list[i], val))
			return 0;
	if (*nr == max)
		return config_error(src, "too many %s options (max %zu)", opt,
				    max);
	list[*nr] = strdup(val);
	if (!list[*nr])
		return config_oom();
	(*nr)++;
	return 0;
}

static int config_add_pid(struct ispotd_config *c,
			  const struct config_src *src, const char *opt,
			  const char *val)
{
	uint32_t v;
	size_t i;

	if (!options_parse_u32(val, 1, &v) || v > INT_MAX)
		return config_error(src, "%s '%s' is not a process id (a whole "
				    "number >= 1)", opt, val);
	for (i = 0; i < c->nr_pids; i++)
		if (c->pids[i] == (pid_t)v)
			return 0;
	if (c->nr_pids == ISPOTD_MAX_TARGETS)
		return config_error(src, "too many %s options (max %d)", opt,
				    ISPOTD_MAX_TARGETS);
	c->pids[c->nr_pids++] = v;
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
 * ".." are refused: a group is named, not navigated to.
 */
static char *config_cgroup_normalise(const struct config_src *src,
				     const char *opt, const char *val)
{
	size_t mlen = strlen(CGROUP2_MOUNT), n = 0;
	const char *p = val;
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
			config_error(src, "%s '%s': name the group without "
				     "'.' or '..', e.g. "
				     "/system.slice/foo.service", opt, val);
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

static int config_add_cgroup(struct ispotd_config *c,
			     const struct config_src *src, const char *opt,
			     const char *val)
{
	char *path;
	int ret;

	if (!*val)
		return config_error(src, "%s needs a path, e.g. "
				    "/system.slice/foo.service", opt);
	path = config_cgroup_normalise(src, opt, val);
	if (!path)
		return -1;
	ret = config_add_str(c->cgroups, &c->nr_cgroups, ISPOTD_MAX_TARGETS,
			     src, opt, path);
	free(path);
	return ret;
}

static int config_add_key(struct ispotd_config *c,
			  const struct config_src *src, const char *opt,
			  const char *val)
{
	/* The last '=': no rule holds one, a C++ "operator=" does. */
	const char *eq = strrchr(val, '=');
	struct key_rule rule;
	char *func;
	size_t i;

	if (!eq || eq == val)
		return config_error(src, "%s '%s' needs FUNC=RULE, e.g. %s",
				    opt, val, src->path ?
				    "key worker=arg0:log2" :
				    "--key 'worker=arg0:log2'");
	if (!key_rule_parse(eq + 1, &rule))
		return config_error(src, "%s '%s': the rule must be argN "
				    "(N = 0-2), argN:log2, callsite, shape, auto "
				    "or none", opt, val);
	func = strndup(val, eq - val);
	if (!func)
		return config_oom();
	/* The last matching key decides: keep the file's from overriding. */
	for (i = 0; i < src->cli_keys; i++) {
		if (!strcmp(c->keys[i].func, func)) {
			free(func);
			return 0;
		}
	}
	if (c->nr_keys == OPT_MAX_KEYS) {
		free(func);
		return config_error(src, "too many %s options (max %d)", opt,
				    OPT_MAX_KEYS);
	}
	c->keys[c->nr_keys].func = func;
	c->keys[c->nr_keys++].rule = rule;
	return 0;
}

/*
 * "1%", "0.5%", "1" (a percentage too), "0" -> 0.01, 0.005, 0.01, 0.
 * Digits and a point only: no sign, exponent, hex, "nan" or "inf".
 */
static bool config_parse_budget(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || strspn(s, "0123456789.") != (size_t)(end - s))
		return false;
	if (*end == '%')
		end++;
	if (*end || !(v >= 0 && v <= 100))
		return false;
	*out = v / 100;
	return true;
}

/*
 * "HOST:PORT" or "[V6ADDR]:PORT": NULL if well formed, else what is wrong
 * (the server's own split, so that what passes here binds there).  HOST
 * itself is resolved by the server when it binds.
 */
static const char *config_listen_problem(const char *s)
{
	char host[256];
	uint16_t port;

	return netaddr_split(s, host, sizeof(host), &port);
}

/*
 * Set option @id to @val (NULL for a flag).  @opt is the option as the
 * user spelled it where it came from: "--budget", or "budget" in the file.
 */
static int config_set(struct ispotd_config *c, const struct config_src *src,
		      int id, const char *val)
{
	const char *problem;
	char opt[32];
	uint64_t u64;
	uint32_t u32;
	double budget;

	snprintf(opt, sizeof(opt), "%s%s", src->path ? "" : "--",
		 config_opt_by_id(id)->name);
	switch (id) {
	case CFG_CONFIG:
		if (src->path)
			return config_error(src, "'config' cannot be used in "
					    "a config file: ispotd reads the "
					    "one file --config names");
		if (!*val)
			return config_error(src, "--config needs a file name");
		return config_replace(&c->config_path, val);
	case CFG_PID:
		return config_add_pid(c, src, opt, val);
	case CFG_EXE:
		if (!*val)
			return config_error(src, "%s needs a path", opt);
		return config_add_str(c->exes, &c->nr_exes, ISPOTD_MAX_TARGETS,
				      src, opt, val);
	case CFG_CGROUP:
		return config_add_cgroup(c, src, opt, val);
	case CFG_FUNC:
		if (!*val)
			return config_error(src, "%s needs a function name",
					    opt);
		return config_add_str(c->funcs, &c->nr_funcs, OPT_MAX_FUNCS,
				      src, opt, val);
	case CFG_BLOCK: {
		/* A block travels as the --func spec ispotctl would make. */
		char spec[OPT_BLOCK_SPEC_MAX];

		if (!strchr(val, '='))
			return config_error(src, "%s wants NAME=[OBJ:]PROV:"
					    "BEGIN,PROV:END, not '%s'", opt,
					    val);
		if (snprintf(spec, sizeof(spec), "%s%s", OPT_BLOCK_PREFIX,
			     val) >= (int)sizeof(spec))
			return config_error(src, "%s '%.40s...' is too long",
					    opt, val);
		return config_add_str(c->funcs, &c->nr_funcs, OPT_MAX_FUNCS,
				      src, opt, spec);
	}
	case CFG_SYNC:
		/* A flag can only be turned on: the union, like the lists. */
		c->sync = true;
		return 0;
	case CFG_KEY:
		return config_add_key(c, src, opt, val);
	case CFG_BUDGET:
		if (!config_parse_budget(val, &budget))
			return config_error(src, "%s '%s' must be a percentage "
					    "from 0 to 100, e.g. 1%% or 0.5%% "
					    "(0: always armed)", opt, val);
		if (config_take(c, src, ISPOTD_SET_BUDGET))
			c->budget = budget;
		return 0;
	case CFG_WINDOW:
		u64 = options_parse_duration(val);
		if (u64 < ISPOTD_MIN_WINDOW_NS)
			return config_error(src, "%s '%s' must be a time of at "
					    "least 1s, e.g. 60s or 5m", opt,
					    val);
		if (config_take(c, src, ISPOTD_SET_WINDOW))
			c->window_ns = u64;
		return 0;
	case CFG_LOG:
		if (!*val)
			return config_error(src, "%s needs a file name, or - "
					    "for stdout", opt);
		if (config_take(c, src, ISPOTD_SET_LOG))
			return config_replace(&c->log_path, val);
		return 0;
	case CFG_LISTEN:
		problem = config_listen_problem(val);
		if (problem)
			return config_error(src, "%s '%s' %s", opt, val,
					    problem);
		if (config_take(c, src, ISPOTD_SET_LISTEN))
			return config_replace(&c->listen, val);
		return 0;
	case CFG_MAX_FUNCTIONS:
		if (!options_parse_u32(val, 1, &u32))
			return config_error(src, "%s '%s' must be a whole "
					    "number >= 1", opt, val);
		if (config_take(c, src, ISPOTD_SET_MAX_FUNCTIONS))
			c->max_functions = u32;
		return 0;
	case CFG_RING_SIZE:
		u64 = options_parse_ring_size(val);
		if (!u64)
			return config_error(src, "%s '%s' must be a power of "
					    "two from 4K to 1G", opt, val);
		if (config_take(c, src, ISPOTD_SET_RING_SIZE))
			c->ring_bytes = u64;
		return 0;
	}
	/* An option added to the table without its case above. */
	return config_error(src, "%s is not handled", opt);
}

/* After merging: something to watch and something to trace. */
static int config_check(const struct ispotd_config *c, const char *path)
{
	const struct config_src src = { .path = path };

	if (!c->nr_pids && !c->nr_exes && !c->nr_cgroups)
		return config_error(&src, path ?
				    "nothing to watch: add a 'pid', 'exe' or "
				    "'cgroup' line, or give --pid, --exe or "
				    "--cgroup" :
				    "nothing to watch: give --pid PID, --exe "
				    "PATH or --cgroup PATH");
	if (!c->nr_funcs && !c->sync)
		return config_error(&src, path ?
				    "nothing to trace: add a 'func SPEC' line, "
				    "or give --func SPEC or --sync" :
				    "nothing to trace: give --func SPEC (e.g. "
				    "--func 'worker_*') or --sync");
	return 0;
}

int ispotd_config_parse_args(int argc, char **argv, struct ispotd_config *cli)
{
	const struct config_src src = { 0 };
	int c;

	if (config_init(cli))
		return -1;
	/* 0, not 1: a full reset, for a caller (a test) that parses again. */
	optind = 0;
	opterr = 0;
	/*
	 * '+': ispotd takes no operands, so stop at the first one and name
	 * it; ':': tell an option that lacks its value from an unknown one.
	 */
	while ((c = getopt_long(argc, argv, "+:h", config_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			ispotd_config_usage(stdout);
			ispotd_config_free(cli);
			return 1;
		case ':':
			config_error(&src, "%s needs a value",
				     argv[optind - 1]);
			goto fail;
		case '?':
			/* optopt: the short option, or a long one's value. */
			if (optopt > 0 && optopt < 256)
				config_error(&src, "unknown option '-%c'",
					     optopt);
			else
				config_error(&src, "option '%s' is unknown or "
					     "takes no value",
					     argv[optind - 1]);
			goto fail;
		default:
			if (config_set(cli, &src, c, optarg))
				goto fail;
		}
	}
	if (optind < argc) {
		config_error(&src, "unexpected argument '%s'", argv[optind]);
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

/* Strip a "#" comment (at the start or after whitespace) and trim. */
static char *config_strip(char *line)
{
	char *p, *end;

	for (p = line; *p; p++) {
		if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			break;
		}
	}
	while (isspace((unsigned char)*line))
		line++;
	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return line;
}

/* One line of the file: "key value", "flag", a comment or nothing. */
static int config_apply_line(struct ispotd_config *c,
			     const struct config_src *src, char *line)
{
	const struct option *o;
	char *key = config_strip(line), *val;

	if (!*key)
		return 0;
	for (val = key; *val && !isspace((unsigned char)*val); val++)
		;
	if (*val) {
		*val++ = '\0';
		while (isspace((unsigned char)*val))
			val++;
	}
	o = config_opt_by_name(key);
	if (!o || o->val == 'h') {
		if (key[0] == '-')
			return config_error(src, "unknown option '%s': write "
					    "it without the leading dashes, "
					    "e.g. 'pid 1234'", key);
		if (strchr(key, '='))
			return config_error(src, "unknown option '%s': put a "
					    "space between the option and its "
					    "value, e.g. 'budget 1%%'", key);
		return config_error(src, "unknown option '%s'", key);
	}
	if (o->has_arg == no_argument && *val)
		return config_error(src, "'%s' takes no value: write '%s' "
				    "alone", key, key);
	if (o->has_arg == required_argument && !*val)
		return config_error(src, "'%s' needs a value", key);
	return config_set(c, src, o->val, o->has_arg == no_argument ?
			  NULL : val);
}

/* Add the file's options to @c, a copy of the command line's @cli. */
static int config_read_file(struct ispotd_config *c,
			    const struct ispotd_config *cli)
{
	struct config_src src = {
		.path = cli->config_path,
		.keep = cli->set,
		.cli_keys = cli->nr_keys,
	};
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(src.path, "re");
	if (!f) {
		ispot_error("cannot read %s: %s; check the --config path",
			    src.path, strerror(errno));
		return -1;
	}
	errno = 0;
	while (getline(&line, &cap, f) >= 0) {
		src.line++;
		ret = config_apply_line(c, &src, line);
		if (ret)
			break;
		errno = 0;
	}
	/* A directory opens, then fails to read (EISDIR). */
	if (!ret && ferror(f)) {
		ispot_error("cannot read %s: %s; check the --config path",
			    src.path, strerror(errno ? errno : EIO));
		ret = -1;
	}
	free(line);
	fclose(f);
	return ret;
}

int ispotd_config_load(const struct ispotd_config *cli,
		       struct ispotd_config *out)
{
	struct ispotd_config c;

	if (config_copy(&c, cli))
		return -1;
	if (cli->config_path && config_read_file(&c, cli))
		goto fail;
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
}
