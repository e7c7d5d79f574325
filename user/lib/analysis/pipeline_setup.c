// SPDX-License-Identifier: GPL-2.0
/*
 * The pipeline's setup: made, freed, its engine and tallies borrowed,
 * its probes declared and the analyses turned on; the records' flow is
 * pipeline.c's.  See pipeline.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "util/array.h"
#include "analysis/pipeline_internal.h"

uint64_t key_value(const struct key_rule *rule, const struct pair_exec *e)
{
	struct key_sel s = key_sel_of(rule);

	return key_of(&s, e);
}

int pipeline_enable_causes(struct pipeline *p)
{
	if (!p->tl)
		p->tl = timeline_new();
	return p->tl ? 0 : -ENOMEM;
}

int pipeline_enable_durations(struct pipeline *p)
{
	if (!p->durations)
		p->durations = durations_new();
	return p->durations ? 0 : -ENOMEM;
}

int pipeline_enable_counters(struct pipeline *p)
{
	if (!p->excess)
		p->excess = excess_new();
	return p->excess ? 0 : -ENOMEM;
}

struct pipeline *pipeline_new(void)
{
	struct pipeline *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	fifo_init(&p->exits, sizeof(struct pipeline_exit));
	p->pairer = pairer_new(NULL, NULL);
	p->sci = sci_new();
	if (p->sci)
		p->sci_folds = sci_folds(p->sci);
	p->stacks = stacks_new();
	p->args = argbuckets_new();
	p->shapes = shapes_new();
	if (!p->pairer || !p->sci || !p->stacks || !p->args || !p->shapes) {
		pipeline_free(p);
		return NULL;
	}
	return p;
}

void pipeline_free(struct pipeline *p)
{
	if (!p)
		return;
	pipeline_threads_free(p);
	pairer_free(p->pairer);
	if (!p->sci_borrowed)
		sci_free(p->sci);
	timeline_free(p->tl);
	excess_free(p->excess);
	durations_free(p->durations);
	stacks_free(p->stacks);
	if (!p->args_borrowed)
		argbuckets_free(p->args);
	if (!p->shapes_borrowed)
		shapes_free(p->shapes);
	free(p->probes);
	fifo_free(&p->exits);
	free(p);
}

void pipeline_borrow_engine(struct pipeline *p, struct sci_engine *sci)
{
	if (!p->sci_borrowed)
		sci_free(p->sci);
	p->sci = sci;
	p->sci_folds = sci_folds(sci);
	p->sci_borrowed = true;
	/* The handles were the old engine's. */
	pipeline_threads_unhold(p);
}

void pipeline_borrow_shapes(struct pipeline *p, struct shapes *shapes)
{
	if (!p->shapes_borrowed)
		shapes_free(p->shapes);
	p->shapes = shapes;
	p->shapes_borrowed = true;
}

void pipeline_borrow_args(struct pipeline *p, struct argbuckets *args)
{
	if (!p->args_borrowed)
		argbuckets_free(p->args);
	p->args = args;
	p->args_borrowed = true;
}

int pipeline_add_probe(struct pipeline *p, uint32_t probe_id,
		       uint32_t func_id, const struct key_rule *rule)
{
	static const struct key_rule none = { .kind = KEY_NONE };

	if (!probe_id || (rule && rule->kind == KEY_ARG && rule->arg > 2))
		return -EINVAL;
	if (idarray_reserve(&p->probes, &p->nr_probes, sizeof(*p->probes),
			    probe_id))
		return -ENOMEM;
	p->probes[probe_id].used = true;
	p->probes[probe_id].func_id = func_id;
	p->probes[probe_id].key = rule ? *rule : none;
	p->probes[probe_id].sel = key_sel_of(&p->probes[probe_id].key);
	/* Shapes name functions, not probes: a block has several sites. */
	return pairer_set_callee(p->pairer, probe_id, func_id);
}

int pipeline_set_shadows(struct pipeline *p, uint32_t probe_id,
			 uint32_t shadow)
{
	if (probe_id >= p->nr_probes || !p->probes[probe_id].used)
		return -EINVAL;
	p->probes[probe_id].shadow = shadow;
	return 0;
}

int pipeline_set_sync(struct pipeline *p, uint32_t probe_id)
{
	if (probe_id >= p->nr_probes || !p->probes[probe_id].used)
		return -EINVAL;
	p->probes[probe_id].sync = true;
	return 0;
}

bool pipeline_probe_func(const struct pipeline *p, uint32_t probe_id,
			 uint32_t *func_id, bool *marker)
{
	if (!probe_id || probe_id >= p->nr_probes ||
	    !p->probes[probe_id].used)
		return false;
	*func_id = p->probes[probe_id].func_id;
	*marker = p->probes[probe_id].marker;
	return true;
}

int pipeline_add_marker(struct pipeline *p, uint32_t probe_id,
			uint32_t func_id, bool end, const struct key_rule *rule)
{
	int ret = pipeline_add_probe(p, probe_id, func_id, rule);

	if (ret)
		return ret;
	p->probes[probe_id].marker = true;
	p->probes[probe_id].end_marker = end;
	return pairer_set_marker(p->pairer, probe_id, func_id, end);
}
