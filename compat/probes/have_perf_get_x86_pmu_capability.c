// SPDX-License-Identifier: GPL-2.0
/*
 * perf_get_x86_pmu_capability() exported to every module: perf's count of
 * general-purpose counters.  Since 6.19 it is exported only to KVM's
 * modules; the module then reads the count from CPUID (module/arch/x86/pmc_cpuid.c).
 *
 * pmc-probe-export: perf_get_x86_pmu_capability
 */
#include <linux/perf_event.h>
#include <asm/perf_event.h>

int pmc_probe(void);
int pmc_probe(void)
{
	struct x86_pmu_capability cap;
	void (*fn)(struct x86_pmu_capability *) = perf_get_x86_pmu_capability;

	fn(&cap);
	return cap.num_counters_gp;
}
