// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: struct arm_pmu's cntr_mask, the bitmap of the PMU's counters (event
 * counters, the cycle counter and any fixed instruction counter), from 6.11
 * on; before it, num_events (have_arm_pmu_num_events).  Fails elsewhere.
 */
#include <linux/bitmap.h>
#include <linux/perf/arm_pmu.h>

unsigned int pmc_probe(struct pmu *pmu);
unsigned int pmc_probe(struct pmu *pmu)
{
	return bitmap_weight(to_arm_pmu(pmu)->cntr_mask, ARMPMU_MAX_HWEVENTS);
}
