// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's options (user/daemon/config.c over the option table of
 * user/lib/cli/opttab.c).  The input is read twice:
 *
 *  - as the config file: `ispotd --config FILE`, then
 *    ispotd_config_load(), as at start and on every SIGHUP (the file is a
 *    memfd, named by its /proc/self/fd path);
 *  - as the command line: its lines are ispotd's arguments (at most 64),
 *    through ispotd_config_parse_args().
 *
 * A config that loads must hold what config.h promises: counts within
 * their arrays, every string there.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"

static void check(const struct ispotd_config *c)
{
	size_t i;

	if (c->nr_pids > ISPOTD_MAX_TARGETS ||
	    c->nr_exes > ISPOTD_MAX_TARGETS ||
	    c->nr_cgroups > ISPOTD_MAX_TARGETS ||
	    c->nr_funcs > OPT_MAX_FUNCS || c->nr_keys > OPT_MAX_KEYS)
		__builtin_trap();
	for (i = 0; i < c->nr_exes; i++)
		(void)strlen(c->exes[i]);
	for (i = 0; i < c->nr_cgroups; i++)
		if (c->cgroups[i][0] != '/')
			__builtin_trap();
	for (i = 0; i < c->nr_funcs; i++)
		(void)strlen(c->funcs[i]);
	for (i = 0; i < c->nr_keys; i++)
		(void)strlen(c->keys[i].func);
	if (c->log_path)
		(void)strlen(c->log_path);
	if (c->listen)
		(void)strlen(c->listen);
}

static void as_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct ispotd_config cli, out;
	char *argv[] = { "ispotd", "--config", path, NULL };

	if (fd < 0) {
		fd = memfd_create("ispotd.conf", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (ispotd_config_parse_args(3, argv, &cli))
		abort();
	if (!ispotd_config_load(&cli, &out)) {
		check(&out);
		ispotd_config_free(&out);
	}
	ispotd_config_free(&cli);
}

static void as_argv(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *argv[66], *p, *nl;
	struct ispotd_config cli;
	int argc = 0;

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	argv[argc++] = "ispotd";
	for (p = text; p && argc < 65; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		if (nl || *p)
			argv[argc++] = p;
	}
	argv[argc] = NULL;
	if (!ispotd_config_parse_args(argc, argv, &cli))
		check(&cli);
	ispotd_config_free(&cli);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_file(data, size);
	as_argv(data, size);
	return 0;
}
