/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the open-addressing tables (sci.c, pair.c, timeline.c) share:
 * deletion by backward shift under linear probing (Knuth, TAOCP vol. 3,
 * 6.4, Algorithm R), which keeps every probe sequence whole without
 * tombstones, so tables that lose threads for ever stay short to probe.
 */
#ifndef ISPOT_OPENADDR_H
#define ISPOT_OPENADDR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Walking the run after a @hole, the entry found at slot @j whose home
 * slot is @home may move into the hole unless its home lies cyclically in
 * (hole, j]: there its probe sequence does not pass through the hole.
 */
static inline bool openaddr_may_fill(size_t home, size_t hole, size_t j)
{
	return j > hole ? (home <= hole || home > j) :
			  (home <= hole && home > j);
}

#endif /* ISPOT_OPENADDR_H */
