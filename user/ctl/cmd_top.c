// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl top: a live view that refreshes in place, like perf top.
 *
 * One loop waits on the source (a session's device, to drain it), the
 * keyboard and the signals at once (ppoll, with the signals blocked
 * everywhere else, so none is lost between a check and the wait).  At
 * every refresh the source adds a sample of running totals, and the view
 * shows the figures over the last --window (rates.h).
 *
 *	q			quit (status 0)
 *	s			next sort: SCI, loss/s, calls/s, p99
 *	p			pause: the screen stays, data is drained
 *	SIGINT, SIGTERM, SIGHUP	quit (status 0)
 *	SIGWINCH		lay the screen out at the new size
 *	SIGTSTP (Ctrl-Z)	give the terminal back and stop, until SIGCONT
 *	the target exits	quit (status 0), one line saying so
 *
 * The terminal is given back (modes, cursor, main screen) before anything
 * is printed after the view, errors included (term.h).  Without a
 * terminal on stdout there is nothing to refresh in place: top refuses,
 * and `ispotctl attach --json` is the tool for a pipe.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "top/rates.h"
#include "top/term.h"
#include "top/top.h"
#include "top/topview.h"
#include "trace/trace.h"
#include "util/array.h"

static volatile sig_atomic_t top_quit, top_resized, top_suspend,
	top_continued;

static void top_on_signal(int sig)
{
	switch (sig) {
	case SIGWINCH:
		top_resized = 1;
		break;
	case SIGTSTP:
		top_suspend = 1;
		break;
	case SIGCONT:
		top_continued = 1;
		break;
	default:
		top_quit = 1;
	}
}

static const int top_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGCONT,
};

struct top {
	const struct trace_opts *o;
	struct top_source src;
	struct rates *rates;
	struct term term;
	struct topview_frame frame;
	enum rates_sort sort;
	bool paused;
	uint64_t start_ns;
	/* What is on screen: the last view, a copy kept while paused. */
	struct rates_view shown;
	size_t cap_rows;
	uint64_t shown_at;
	sigset_t wait_mask;	/* the mask ppoll() waits with */
};

static int top_install_signals(struct top *tp)
{
	struct sigaction sa = { .sa_handler = top_on_signal };
	sigset_t block;
	size_t i;

	/* No SA_RESTART: a signal must end the wait. */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (i = 0; i < sizeof(top_signals) / sizeof(top_signals[0]); i++) {
		sigaction(top_signals[i], &sa, NULL);
		sigaddset(&block, top_signals[i]);
	}
	return sigprocmask(SIG_BLOCK, &block, &tp->wait_mask);
}

/* Keep a copy of @v, so that pausing can freeze it. */
static int top_keep_view(struct top *tp, const struct rates_view *v,
			 uint64_t now)
{
	if (ARRAY_RESERVE(tp->shown.rows, tp->cap_rows, v->nr_rows))
		return -ENOMEM;
	memcpy(tp->shown.rows, v->rows, v->nr_rows * sizeof(*v->rows));
	tp->shown.nr_rows = v->nr_rows;
	tp->shown.span_ns = v->span_ns;
	tp->shown.events_per_s = v->events_per_s;
	tp->shown.dropped_per_s = v->dropped_per_s;
	tp->shown.dropped = v->dropped;
	tp->shown_at = now;
	return 0;
}

static int top_draw(struct top *tp)
{
	struct topview_head h = {
		.target = tp->src.target,
		.elapsed_ns = tp->shown_at - tp->start_ns,
		.window_ns = tp->o->window_ns,
		.sort = tp->sort,
		.paused = tp->paused,
		.show_exe = tp->src.show_exe,
		.wide = tp->o->wide,
		.status = tp->src.status[0] ? tp->src.status : NULL,
	};

	int ret = topview_render(&tp->frame, tp->term.width, tp->term.height,
				 &h, &tp->shown);

	if (!ret)
		ret = term_draw(&tp->term, &tp->frame);
	if (ret)
		ispot_error("cannot draw the view: %s", strerror(-ret));
	return ret;
}

/* The figures of the latest sample, to be drawn. */
static int top_keep_latest(struct top *tp)
{
	struct rates_view v;

	if (rates_view(tp->rates, tp->sort, &v) ||
	    top_keep_view(tp, &v, trace_now())) {
		ispot_error("out of memory computing the view");
		return -1;
	}
	return 0;
}

static int top_show_latest(struct top *tp)
{
	return top_keep_latest(tp) || top_draw(tp) ? -1 : 0;
}

/* A refresh: a sample always (rates need it), a new screen unless paused. */
static int top_refresh(struct top *tp, uint64_t now)
{
	int ret = tp->src.sample(&tp->src, now, tp->rates);

	if (ret || tp->paused)
		return ret;
	return top_show_latest(tp);
}

/* Ctrl-Z: the shell gets its terminal back while top is stopped. */
static void top_stop_self(struct top *tp)
{
	sigset_t tstp;

	term_close(&tp->term);
	signal(SIGTSTP, SIG_DFL);
	sigemptyset(&tstp);
	sigaddset(&tstp, SIGTSTP);
	raise(SIGTSTP);
	/* Delivered, and stopped, once unblocked; back here on SIGCONT. */
	sigprocmask(SIG_UNBLOCK, &tstp, NULL);
	sigprocmask(SIG_BLOCK, &tstp, NULL);
	top_install_signals(tp);
	term_open(&tp->term, STDIN_FILENO, STDOUT_FILENO);
}

/*
 * 1: quit, 0: go on (and whether the screen must be drawn again), -1: an
 * error, printed.
 */
static int top_keys(struct top *tp, bool *redraw)
{
	char keys[64];
	size_t n = term_keys(&tp->term, keys, sizeof(keys)), i;

	/* An escape sequence (arrows, F-keys) is not a command. */
	if (n && keys[0] == '\033')
		return 0;
	for (i = 0; i < n; i++) {
		switch (keys[i]) {
		case 'q':
		case 'Q':
			return 1;
		case 's':
		case 'S':
			tp->sort = (tp->sort + 1) % RATES_NR_SORTS;
			rates_sort_rows(tp->shown.rows, tp->shown.nr_rows,
					tp->sort);
			*redraw = true;
			break;
		case 'p':
		case 'P':
			tp->paused = !tp->paused;
			/* Back from a pause: what was sampled meanwhile. */
			if (!tp->paused && top_keep_latest(tp))
				return -1;
			*redraw = true;
			break;
		}
	}
	return 0;
}

/* Returns 0 (quit, or the source ended: ended says which) or -1. */
static int top_loop(struct top *tp, bool *ended)
{
	uint64_t refresh = tp->o->refresh_ns;
	uint64_t next = tp->start_ns + refresh;
	int ret;

	if (top_draw(tp))
		return -1;
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = -1 },
			{ .fd = tp->term.keys ? tp->term.in : -1,
			  .events = POLLIN },
		};
		int timeout = -1;
		uint64_t now = trace_now();
		struct timespec ts;
		bool redraw = false;

		tp->src.prepare(&tp->src, &pfd[0], &timeout);
		if (next > now && (timeout < 0 ||
				   (next - now) / 1000000 < (uint64_t)timeout))
			timeout = (next - now + 999999) / 1000000;
		else if (next <= now)
			timeout = 0;
		ts.tv_sec = timeout / 1000;
		ts.tv_nsec = (timeout % 1000) * 1000000L;
		if (ppoll(pfd, 2, &ts, &tp->wait_mask) < 0 && errno != EINTR) {
			ispot_error("poll failed: %s", strerror(errno));
			return -1;
		}
		now = trace_now();
		ret = tp->src.step(&tp->src, now, pfd[0].revents);
		if (ret) {
			*ended = ret > 0;
			return ret > 0 ? 0 : -1;
		}
		ret = top_quit ? 1 : top_keys(tp, &redraw);
		if (ret)
			return ret > 0 ? 0 : -1;
		if (top_suspend) {
			top_suspend = 0;
			top_stop_self(tp);
			top_resized = 1;
		}
		if (top_continued) {
			/* Stopped from outside: the shell had the terminal. */
			top_continued = 0;
			term_close(&tp->term);
			term_open(&tp->term, STDIN_FILENO, STDOUT_FILENO);
			top_resized = 1;
		}
		if (top_resized) {
			top_resized = 0;
			term_update_size(&tp->term);
			redraw = true;
		}
		if (now >= next) {
			ret = top_refresh(tp, now);
			if (ret) {
				*ended = ret > 0;
				return ret > 0 ? 0 : -1;
			}
			/* Behind (a slow read): skip, do not catch up. */
			next = next + refresh > now ? next + refresh :
			       now + refresh;
			if (!tp->paused)
				redraw = false;	/* just drawn */
		}
		if (redraw && top_draw(tp))
			return -1;
	}
}

int cmd_top(int argc, char **argv)
{
	struct trace_opts o;
	struct top tp;
	bool ended = false;
	int ret;

	ret = trace_opts_parse(MODE_TOP, argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	if (!isatty(STDOUT_FILENO)) {
		ispot_error("top refreshes a terminal, and stdout is not one: "
			    "run it in a terminal, or use 'ispotctl attach "
			    "--json' for a report");
		return EXIT_USAGE;
	}
	memset(&tp, 0, sizeof(tp));
	tp.o = &o;
	tp.rates = rates_new(o.window_ns);
	if (!tp.rates) {
		ispot_error("out of memory");
		return EXIT_RUNTIME;
	}
	tp.start_ns = tp.shown_at = trace_now();
	/* Everything that can fail on the way in fails before the screen. */
	if (o.from ? top_remote_open(&tp.src, &o, tp.start_ns, tp.rates) :
		     top_session_open(&tp.src, &o, tp.start_ns, tp.rates)) {
		rates_free(tp.rates);
		return EXIT_RUNTIME;
	}
	if (top_install_signals(&tp) ||
	    term_open(&tp.term, STDIN_FILENO, STDOUT_FILENO)) {
		ispot_error("cannot take over the terminal: %s",
			    strerror(errno));
		ret = -1;
	} else {
		ret = top_loop(&tp, &ended);
	}
	term_close(&tp.term);
	if (ended)
		tp.src.end_message(&tp.src, trace_now());
	tp.src.close(&tp.src);
	topview_free(&tp.frame);
	free(tp.shown.rows);
	rates_free(tp.rates);
	return ret ? EXIT_RUNTIME : EXIT_OK;
}
