// SPDX-License-Identifier: GPL-2.0
/* Records -> pairs -> SCI; see pipeline.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

struct pipeline_probe {
	bool used;
	uint32_t func_id;
	struct key_rule key;
};

uint64_t key_value(const struct key_rule *rule, const struct pair_exec *e)
{
	uint64_t v;

	switch (rule->kind) {
	case KEY_ARG:
		v = e->args[rule->arg];
		if (rule->log2)
			v = v ? 64 - (uint64_t)__builtin_clzll(v) : 0;
		/*
		 * Shifted so that a keyed block never has key 0, which reads
		 * as "unkeyed"; UINT64_MAX wraps to 0 and is named correctly
		 * all the same, since names undo the shift.
		 */
		return v + 1;
	case KEY_CALLSITE:
		return e->callsite ? e->callsite : 1;
	case KEY_NONE:
	default:
		return 0;
	}
}

static void pipeline_exec(const struct pair_exec *e, void *ctx)
{
	struct pipeline *p = ctx;
	const struct pipeline_probe *probe = &p->probes[e->probe_id];

	if (sci_add(p->sci, probe->func_id, key_value(&probe->key, e), e->tid,
		    e->exit_ts - e->entry_ts, e->exit_ts, NULL))
		p->stats.nomem++;
}

struct pipeline *pipeline_new(void)
{
	struct pipeline *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pairer = pairer_new(pipeline_exec, p);
	p->sci = sci_new();
	if (!p->pairer || !p->sci) {
		pipeline_free(p);
		return NULL;
	}
	return p;
}

void pipeline_free(struct pipeline *p)
{
	if (!p)
		return;
	pairer_free(p->pairer);
	sci_free(p->sci);
	free(p->probes);
	free(p);
}

int pipeline_add_probe(struct pipeline *p, uint32_t probe_id,
		       uint32_t func_id, const struct key_rule *rule)
{
	static const struct key_rule none = { .kind = KEY_NONE };

	if (!probe_id || (rule && rule->kind == KEY_ARG && rule->arg > 2))
		return -EINVAL;
	if (probe_id >= p->nr_probes) {
		uint32_t n = probe_id + 1 > 2 * p->nr_probes ?
			     probe_id + 1 : 2 * p->nr_probes;
		struct pipeline_probe *np = realloc(p->probes, n * sizeof(*np));

		if (!np)
			return -ENOMEM;
		memset(np + p->nr_probes, 0,
		       (n - p->nr_probes) * sizeof(*np));
		p->probes = np;
		p->nr_probes = n;
	}
	p->probes[probe_id].used = true;
	p->probes[probe_id].func_id = func_id;
	p->probes[probe_id].key = rule ? *rule : none;
	return 0;
}

void pipeline_record(void *ctx, const struct ispot_record *rec)
{
	struct pipeline *p = ctx;

	switch (rec->kind) {
	case ISPOT_REC_ENTRY:
	case ISPOT_REC_EXIT:
		/* Checked here so the pair callback can index blindly. */
		if (rec->probe_id >= p->nr_probes ||
		    !p->probes[rec->probe_id].used) {
			p->stats.unknown_probe++;
			return;
		}
		if (rec->kind == ISPOT_REC_ENTRY)
			p->stats.entries++;
		else
			p->stats.exits++;
		pairer_feed(p->pairer, rec);
		return;
	case ISPOT_REC_STACK:
		p->stats.stacks++;
		return;
	default:
		p->stats.unknown_kind++;
		return;
	}
}

int pipeline_thread_seen(struct pipeline *p, uint32_t tid, uint64_t ts)
{
	return sci_thread_seen(p->sci, tid, ts);
}

int pipeline_thread_exit(struct pipeline *p, uint32_t tid, uint64_t ts)
{
	pairer_thread_exit(p->pairer, tid);
	return sci_thread_exit(p->sci, tid, ts);
}

void pipeline_finish(struct pipeline *p, uint64_t ts)
{
	pairer_flush(p->pairer);
	sci_finish(p->sci, ts);
}
