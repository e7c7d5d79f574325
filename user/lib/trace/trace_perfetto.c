// SPDX-License-Identifier: GPL-2.0
/*
 * --perfetto FILE: a session's records as a Perfetto trace, written while
 * it drains (export/perfetto.h).  This file lends the writer the session's
 * names: its functions by probe id, their keys, its threads' names.
 */
#include <stdio.h>
#include <string.h>

#include "export/perfetto.h"
#include "output/writers.h"
#include "trace/trace_internal.h"
#include "util/errors.h"
#include "util/procstat.h"

/*
 * The traced function @entry is a call of, or NULL (a block's marker, an
 * unknown probe); *@keyed whether the entry tells its key, and *@e the
 * execution that key is read from.
 */
static const struct trace_func *trace_perfetto_func(
	const struct trace *t, const struct ispot_record *entry,
	struct pair_exec *e, bool *keyed)
{
	const struct trace_func *f;
	uint32_t func_id;
	bool marker;

	/*
	 * The probe's function from the pipeline's table, O(1) a record:
	 * under its index in funcs (a session's pipeline has no other ids;
	 * ispotd's, which writes no trace, would).
	 */
	if (t->borrowed.func_ids || !t->pipe ||
	    !pipeline_probe_func(t->pipe, entry->probe_id, &func_id,
				 &marker) ||
	    func_id >= t->nr_funcs)
		return NULL;
	f = &t->funcs[func_id];
	if (marker || f->is_block)
		return NULL;	/* a block's marker: not a call */
	/*
	 * An argument is there at entry, a call site when the probe reads
	 * it; a shape is known only at the exit, and an auto key at the
	 * report: those calls are named by their function alone.
	 */
	memset(e, 0, sizeof(*e));
	memcpy(e->args, entry->data, sizeof(e->args));
	e->callsite = entry->ip;
	*keyed = f->key.kind == KEY_ARG ||
		 (f->key.kind == KEY_CALLSITE && entry->ip);
	return f;
}

/* perfetto_names.call: the function, and its key when the entry has it. */
static int trace_perfetto_call(void *ctx, const struct ispot_record *entry,
			       char *buf, size_t len)
{
	struct trace *t = ctx;
	struct elf_symbolizer *sym = t->sym;
	const struct trace_func *f;
	struct pair_exec e;
	uint64_t v, addr;
	char key[256];
	bool keyed;

	f = trace_perfetto_func(t, entry, &e, &keyed);
	if (!f)
		return -1;
	if (keyed) {
		v = key_value(&f->key, &e);
		/*
		 * Live, an address the maps do not hold is named without
		 * them, as the symbolizer would after reading them again:
		 * trace_maps_hold() reads them at most every 10 ms, where an
		 * integer argument would have them read at every call.
		 */
		if (t->live.drain && report_key_address(&f->key, v, &addr) &&
		    !trace_maps_hold(t, addr))
			sym = NULL;
		report_key_label(&f->key, sym, v, key, sizeof(key));
		return snprintf(buf, len, "%s [%s]", f->sym.name, key);
	}
	return snprintf(buf, len, "%s", f->sym.name);
}

/*
 * perfetto_names.call_key: the key trace_perfetto_call() labels.  Its
 * label holds while the maps map the same files: a generation of them
 * (trace_perfetto_generation()).  That of an address outside them too: a
 * library mapped over it since moves the generation, and a live trace
 * reads them at least once a second (trace_maps_follow()).  A replay's
 * names are the recording's, which never change.
 */
static int trace_perfetto_call_key(void *ctx,
				   const struct ispot_record *entry,
				   uint64_t *key, bool *keyed)
{
	const struct trace *t = ctx;
	const struct trace_func *f;
	struct pair_exec e;

	f = trace_perfetto_func(t, entry, &e, keyed);
	if (!f)
		return -1;
	*key = *keyed ? key_value(&f->key, &e) : 0;
	return 1;
}

/*
 * perfetto_names.generation: live, the maps' (elf_symbolizer_generation()),
 * one more, so that the labels made before the first snapshot (0) are
 * made again from it.
 */
static uint64_t trace_perfetto_generation(void *ctx)
{
	const struct trace *t = ctx;

	return t->live.drain && t->sym ?
	       elf_symbolizer_generation(t->sym) + 1 : 0;
}

/*
 * perfetto_names.thread: its comm, read while it lives.  A replay has no
 * live target (the tid may be another process's by now): the names the
 * recording kept (4.1 on), or none.
 */
static int trace_perfetto_thread(void *ctx, uint32_t tid, char *buf,
				 size_t len)
{
	const struct trace *t = ctx;
	const char *name;

	if (!t->live.drain) {
		name = thread_names_get(&t->threads, tid);
		return name ? snprintf(buf, len, "%s", name) : -1;
	}
	task_comm((pid_t)tid, buf, len);
	return strcmp(buf, "?") ? (int)strlen(buf) : -1;
}

int trace_perfetto_open(struct trace *t, const struct perfetto_clock *clock)
{
	const struct perfetto_names names = {
		.call = trace_perfetto_call,
		.call_key = trace_perfetto_call_key,
		.generation = trace_perfetto_generation,
		.thread = trace_perfetto_thread,
		.ctx = t,
	};

	/*
	 * The trace streams into a temporary file beside the path, renamed
	 * over it when the session ends well: a file already there is
	 * replaced whole or left as it was.
	 */
	if (output_stream_open(t->opts, "perfetto", &t->out.perfetto_file))
		return -1;
	if (!t->out.perfetto_file.f)
		return 0;
	t->out.perfetto = perfetto_open(t->out.perfetto_file.f,
					(uint32_t)t->sum.pid, t->sum.command,
					&names, clock);
	if (!t->out.perfetto) {
		ispot_error("out of memory starting the Perfetto trace");
		return -1;
	}
	perfetto_set_max_size(t->out.perfetto, t->opts->perfetto_max_size);
	return 0;
}

int trace_perfetto_close(struct trace *t, bool keep)
{
	int ret = 0;

	if (t->out.perfetto) {
		t->out.perfetto_full = perfetto_full(t->out.perfetto,
						     &t->out.perfetto_full_ts);
		ret = perfetto_close(t->out.perfetto);
	}
	t->out.perfetto = NULL;
	return output_stream_close(t->opts, "perfetto", &t->out.perfetto_file,
				   keep, ret);
}
