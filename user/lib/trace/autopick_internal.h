/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What autopick.c (on-CPU samples, the choice) and autopick_wall.c
 * (off-CPU stacks) share: the evidence gathered per function before it is
 * resolved to a probe point.
 */
#ifndef ISPOT_AUTOPICK_INTERNAL_H
#define ISPOT_AUTOPICK_INTERNAL_H

#include "trace/autopick.h"

struct ap_group {
	char obj[PATH_MAX];
	char name[ELF_SYM_NAME_MAX];
	uint64_t start;		/* link-time address of the function */
	uint64_t samples;	/* on-CPU */
	uint64_t off_ns[WALL_NR_KINDS];
	/* The other end of its largest off-CPU share: see autopick_func. */
	char partner[ELF_SYM_NAME_MAX];
	uint64_t partner_ns;
	bool waits;		/* partner is its caller, not its wait */
};

struct ap_groups {
	struct ap_group *g;
	size_t n, cap;
};

/* @info's group, made if new; NULL when out of memory. */
struct ap_group *autopick_group(struct ap_groups *gs,
				const struct elf_addr_info *info);
/* A group's evidence in ns: on-CPU samples, and the off-CPU kinds that
 * count (not idle sleep). */
uint64_t autopick_group_ns(const struct ap_group *g);
/*
 * Add @wp's off-CPU stacks to @gs and to @a's totals: each sample's time
 * to the function it waits in and to the first function of the program
 * (outside the C and C++ runtimes and the loader) on its way there.
 * -ENOMEM or 0.
 */
int autopick_add_offcpu(struct elf_symbolizer *sz, const struct wallprof *wp,
			struct ap_groups *gs, struct autopick *a);

/*
 * What a window of sampling found, into @a: the on-CPU samples @r and
 * the off-CPU stacks @wp (NULL: none) named with @sz, made as the window
 * began and read once more now (autopick_sample()'s naming).  0 or
 * -ENOMEM, with @err.
 */
int autopick_name_window(struct elf_symbolizer *sz,
			 const struct sampler_result *r,
			 const struct wallprof *wp, uint32_t top,
			 struct autopick *a, char *err, size_t errlen);

/*
 * The one line for a target that ended before --auto's sampling did
 * (autopick.c): how it ended when it is this process's child (run's
 * command, not reaped), what the profile said and the --func options to
 * run it again with.
 */
void autopick_exited(pid_t pid, uint64_t duration_ns,
		     const struct autopick *a, char *err, size_t errlen);

#endif /* ISPOT_AUTOPICK_INTERNAL_H */
