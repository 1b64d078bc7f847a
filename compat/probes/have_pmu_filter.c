// SPDX-License-Identifier: GPL-2.0
/*
 * pmu::filter(pmu, cpu) (6.2 on): a hybrid PMU's way to keep task events
 * off the other core type's CPUs.  Before, pmu::filter_match(event), and
 * PMUs of hybrid CPUs declared PERF_PMU_CAP_HETEROGENEOUS_CPUS.  Used by
 * the test PMU only.
 */
#include <linux/perf_event.h>

static bool pmc_probe_filter(struct pmu *pmu, int cpu)
{
	return cpu != 0;
}

struct pmu pmc_probe_pmu;
struct pmu pmc_probe_pmu = {
	.filter = pmc_probe_filter,
};
