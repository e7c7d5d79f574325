// SPDX-License-Identifier: GPL-2.0
/*
 * Counters: perf events read around every probed call.
 *
 * One pinned kernel counter per event and online CPU, counting every task
 * on that CPU.  The probe handlers read the local one; the call's delta is
 * the thread's own only if it neither left the CPU nor was switched out in
 * between, which the record says (cpu, switches) and user space checks.
 * Per-CPU counters instead of per-task ones: a task counter would have to
 * be created for every thread the target starts, from a context that may
 * not sleep, and would be switched in and out with it at every context
 * switch of the target, traced or not.
 *
 * perf_event_read_local() is not exported to modules, so the read does what
 * it does for an event of this CPU: with interrupts off, check the event is
 * active here, let the PMU driver fold the hardware count in, and read the
 * count.  An event that perf could not schedule (a pinned hardware event
 * that lost its counter) is in the error state, never active, and reads as
 * invalid instead of stale.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/perf_event.h>
#include <linux/sched.h>

#include "ispot_internal.h"

struct ispot_counters_pcpu {
	struct perf_event *event[ISPOT_MAX_COUNTERS];
};

static bool ispot_counter_type_ok(u32 type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_SOFTWARE ||
	       type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

/* Every field an ioctl caller controls, before anything is created. */
int ispot_counters_check(const struct ispot_counters *args)
{
	u32 i;

	if (!args->nr || args->nr > ISPOT_MAX_COUNTERS ||
	    (args->flags & ~ISPOT_COUNTERS_TRY) ||
	    args->reserved[0] || args->reserved[1])
		return -EINVAL;
	for (i = 0; i < ISPOT_MAX_COUNTERS; i++) {
		const struct ispot_counter_spec *sp = &args->spec[i];

		if (sp->reserved || sp->result)
			return -EINVAL;
		if (i >= args->nr) {
			/* Unused specs are reserved too. */
			if (sp->type || sp->config)
				return -EINVAL;
			continue;
		}
		if (!ispot_counter_type_ok(sp->type))
			return -EINVAL;
	}
	return 0;
}

static void ispot_counter_release(struct ispot_counters_pcpu __percpu *pcpu,
				  u32 idx)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct perf_event **ev = &per_cpu_ptr(pcpu, cpu)->event[idx];

		if (*ev)
			perf_event_release_kernel(*ev);
		*ev = NULL;
	}
}

/*
 * Spec @idx on every online CPU, or on none: an event that some CPU lacks
 * would make that CPU's calls look different from the others'.
 */
static int ispot_counter_create(struct ispot_counters_pcpu __percpu *pcpu,
				u32 idx, const struct ispot_counter_spec *sp)
{
	struct perf_event_attr attr = {
		.type		= sp->type,
		.size		= sizeof(attr),
		.config		= sp->config,
		.pinned		= 1,
	};
	int cpu;

	for_each_online_cpu(cpu) {
		struct perf_event *ev;

		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL,
						      NULL);
		if (IS_ERR(ev)) {
			ispot_counter_release(pcpu, idx);
			return PTR_ERR(ev);
		}
		per_cpu_ptr(pcpu, cpu)->event[idx] = ev;
	}
	return 0;
}

/*
 * Create the counters of @args and fill each spec's result.  A spec that
 * failed has no events; the others count.  CPUs brought online later have
 * no counters: their reads are invalid, never wrong.
 */
struct ispot_counters_pcpu __percpu *
ispot_counters_create(struct ispot_counters *args)
{
	struct ispot_counters_pcpu __percpu *pcpu;
	u32 i;

	pcpu = alloc_percpu_gfp(struct ispot_counters_pcpu, GFP_KERNEL_ACCOUNT);
	if (!pcpu)
		return ERR_PTR_PCPU(-ENOMEM);
	/*
	 * No cpus_read_lock(): creating a software event takes it itself
	 * (static_key_slow_inc), and a nested read lock deadlocks against a
	 * waiting hotplug writer.  A CPU going offline meanwhile fails the
	 * spec with -ENODEV, which is reported like any other failure.
	 */
	for (i = 0; i < args->nr; i++)
		args->spec[i].result = ispot_counter_create(pcpu, i,
							    &args->spec[i]);
	return pcpu;
}

void ispot_counters_release(struct ispot_counters_pcpu __percpu *pcpu, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		ispot_counter_release(pcpu, i);
	free_percpu(pcpu);
}

/* Under the session lock, in the READY state: no handler runs yet. */
void ispot_counters_install(struct ispot_session *s,
			    struct ispot_counters_pcpu __percpu *pcpu, u32 nr)
{
	s->nr_counters = nr;
	WRITE_ONCE(s->counters, pcpu);
}

/* After the probes are disarmed: no handler may be reading. */
void ispot_counters_free(struct ispot_session *s)
{
	if (!s->counters)
		return;
	ispot_counters_release(s->counters, s->nr_counters);
	s->counters = NULL;
	s->nr_counters = 0;
}

/* Probe handlers, preemption disabled. */
void ispot_counters_read(struct ispot_session *s,
			 struct ispot_counter_values *v)
{
	struct ispot_counters_pcpu *pc = this_cpu_ptr(s->counters);
	int cpu = smp_processor_id();
	unsigned long flags;
	u32 i, valid = 0;

	v->nr = s->nr_counters;
	local_irq_save(flags);
	v->switches = current->nvcsw + current->nivcsw;
	for (i = 0; i < ISPOT_MAX_COUNTERS; i++) {
		struct perf_event *ev = i < s->nr_counters ? pc->event[i] :
							     NULL;

		v->value[i] = 0;
		if (!ev || ev->cpu != cpu ||
		    READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE ||
		    READ_ONCE(ev->oncpu) != cpu)
			continue;
		ev->pmu->read(ev);
		v->value[i] = local64_read(&ev->count);
		valid |= 1U << i;
	}
	local_irq_restore(flags);
	v->valid = valid;
}
