// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl top --from ADDR:PORT: read-only, over a running ispotd's
 * Prometheus endpoint (Documentation/ispotd.rst, "Metrics").  Every refresh
 * is one GET /metrics; its counters are running totals for rates.c.  Nothing
 * is written to the daemon and no module session is opened, so this needs no
 * privilege.
 *
 * A first read happens before the screen is taken, so a wrong address, a
 * refused connection or another kind of server is one error line.  Later,
 * a read that fails is shown in the view and retried at the next refresh;
 * after TOP_REMOTE_TRIES failures in a row the daemon is taken to be gone
 * and the view ends, as it does when a traced process exits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "top/http_get.h"
#include "top/metrics_read.h"
#include "top/top.h"

/*
 * Prometheus's default scrape_timeout.  ispotd answers from its one poll
 * loop, between drains: on a loaded host (the debug kernel under
 * emulation, with the target saturating both CPUs, took 0.4-1.9 s) a
 * shorter wait reads a busy daemon as a dead one.
 */
#define TOP_REMOTE_TIMEOUT_MS	10000
/* ispotd's exposition grows with targets x functions x buckets. */
#define TOP_REMOTE_MAX_BODY	(16u << 20)
#define TOP_REMOTE_TRIES	3

struct top_remote {
	struct http_addr addr;
	const char *spec;
	unsigned int failures;
	char why[TOP_STATUS_LEN];	/* the last failure */
};

/*
 * One read of /metrics into @m (its text in @resp).  Returns 0, or -1
 * with a sentence in @why that fits after "ADDR: ".
 */
static int remote_read(struct top_remote *tr, struct http_response *resp,
		       struct metrics_snapshot *m, char *why, size_t len)
{
	char err[200];

	memset(m, 0, sizeof(*m));
	if (http_get(&tr->addr, "/metrics", TOP_REMOTE_TIMEOUT_MS,
		     TOP_REMOTE_MAX_BODY, resp, err, sizeof(err))) {
		snprintf(why, len, "cannot read http://%s/metrics: %s",
			 tr->spec, err);
		return -1;
	}
	if (resp->status != 200) {
		snprintf(why, len, "http://%s/metrics answered HTTP %d, not "
			 "ispotd's metrics", tr->spec, resp->status);
		goto fail;
	}
	if (metrics_read(resp->body, resp->len, m, err, sizeof(err))) {
		snprintf(why, len, "http://%s/metrics is not Prometheus text "
			 "(%s)", tr->spec, err);
		goto fail;
	}
	if (!m->nr_ispot) {
		snprintf(why, len, "http://%s/metrics has no ispot_ metric: "
			 "not an ispotd", tr->spec);
		goto fail;
	}
	return 0;
fail:
	metrics_snapshot_free(m);
	http_response_free(resp);
	return -1;
}

static int remote_fill(struct top_source *s, const struct metrics_snapshot *m,
		       uint64_t now, struct rates *r)
{
	struct top_remote *tr = s->priv;
	struct rates_counts c;
	size_t i;

	if (rates_begin(r, now))
		return -ENOMEM;
	for (i = 0; i < m->nr_series; i++) {
		metrics_series_counts(&m->series[i], &c);
		if (rates_add(r, m->series[i].exe, m->series[i].function,
			      m->series[i].object, &c))
			return -ENOMEM;
	}
	rates_events(r, m->recorded, m->dropped);
	snprintf(s->target, sizeof(s->target), "ispotd at %s, %.0f target%s",
		 tr->spec, m->targets < 0 ? 0 : m->targets,
		 m->targets == 1 ? "" : "s");
	return 0;
}

static void remote_prepare(struct top_source *s, struct pollfd *pfd,
			   int *timeout_ms)
{
	(void)s;
	pfd->fd = -1;
	*timeout_ms = -1;
}

static int remote_step(struct top_source *s, uint64_t now, short revents)
{
	(void)s;
	(void)now;
	(void)revents;
	return 0;
}

static int remote_sample(struct top_source *s, uint64_t now,
			 struct rates *r)
{
	struct top_remote *tr = s->priv;
	struct metrics_snapshot m;
	struct http_response resp;
	int ret;

	if (remote_read(tr, &resp, &m, tr->why, sizeof(tr->why))) {
		if (++tr->failures >= TOP_REMOTE_TRIES)
			return 1;
		snprintf(s->status, sizeof(s->status), "%.*s; retrying",
			 (int)sizeof(s->status) - 12, tr->why);
		return 0;
	}
	tr->failures = 0;
	s->status[0] = '\0';
	ret = remote_fill(s, &m, now, r);
	metrics_snapshot_free(&m);
	http_response_free(&resp);
	if (ret) {
		ispot_error("out of memory reading the metrics");
		return -1;
	}
	return 0;
}

static void remote_end_message(struct top_source *s, uint64_t now)
{
	struct top_remote *tr = s->priv;

	(void)now;
	if (tr->failures >= TOP_REMOTE_TRIES)
		ispot_error("%s, %u times in a row: is ispotd still running?",
			    tr->why, tr->failures);
}

static void remote_close(struct top_source *s)
{
	free(s->priv);
	s->priv = NULL;
}

static const struct top_source_ops remote_ops = {
	.prepare = remote_prepare,
	.step = remote_step,
	.sample = remote_sample,
	.end_message = remote_end_message,
	.close = remote_close,
};

int top_remote_open(struct top_source *s, const struct trace_opts *o,
		    uint64_t now, struct rates *r)
{
	struct top_remote *tr = calloc(1, sizeof(*tr));
	struct metrics_snapshot m;
	struct http_response resp;
	char err[256];
	int ret;

	if (!tr) {
		ispot_error("out of memory");
		return -1;
	}
	s->priv = tr;
	s->show_exe = true;
	s->ops = &remote_ops;
	tr->spec = o->from;
	/* The form was checked with the options. */
	http_addr_parse(o->from, &tr->addr, err, sizeof(err));
	if (remote_read(tr, &resp, &m, tr->why, sizeof(tr->why))) {
		ispot_error("%s; is ispotd running with --listen %s?",
			    tr->why, o->from);
		remote_close(s);
		return -1;
	}
	ret = remote_fill(s, &m, now, r);
	metrics_snapshot_free(&m);
	http_response_free(&resp);
	if (ret) {
		ispot_error("out of memory reading the metrics");
		remote_close(s);
		return -1;
	}
	return 0;
}
