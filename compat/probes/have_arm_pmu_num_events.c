// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: struct arm_pmu's num_events, the count of the PMU's counters (event
 * counters and the cycle counter), up to 6.10; then cntr_mask
 * (have_arm_pmu_cntr_mask).  Fails elsewhere.
 */
#include <linux/perf/arm_pmu.h>

int pmc_probe(struct pmu *pmu);
int pmc_probe(struct pmu *pmu)
{
	return to_arm_pmu(pmu)->num_events;
}
