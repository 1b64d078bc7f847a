// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core: which PMUs count the CPUs (one, or one per core
 * type: cpu_core, cpu_atom and cpu_lowpower on hybrid Intel CPUs, an arm_pmu
 * per core type on heterogeneous arm64), found on perf's PMU bus.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/perf_event.h>

#include "kcompat.h"
#include "pmc_arch.h"
#include "pmc_core.h"
#include "pmc_core_internal.h"
#include "pmc_perf_internals.h"

/* perf's PMU bus ("event_source"), found through an event's PMU. */
static typeof(((struct device *)NULL)->bus) pmc_pmu_bus;

/* ---- which PMUs count the CPUs -------------------------------------------- */

/*
 * The CPU PMUs are the PMUs of perf's hardware context (pmc_perf_pmu_counts_cpus()),
 * which uncore, power, cstate and the like do not take (they have none),
 * nor the trace and software-like PMUs (intel_pt, intel_bts, msr,
 * breakpoint, tracepoint, kprobe, SPE: perf's software context); of those,
 * the ones pmc_arch_cpu_pmu() keeps (x86: "cpu" or "cpu_<core type>", not
 * AMD's IBS PMUs).  One PMU counts every CPU on most machines ("cpu",
 * "armv8_pmuv3"); hybrid Intel CPUs have one per core type ("cpu_core",
 * "cpu_atom", and "cpu_lowpower" on Arrow Lake-H), heterogeneous arm64 one
 * arm_pmu per core type.  Found on perf's PMU bus, in the order they were
 * registered.
 */
struct pmc_pmu_walk {
	struct pmc_pmus *p;
	unsigned int found;		/* all of them, kept or not */
	unsigned int counters;		/* the smallest count, UINT_MAX: none */
};

static int pmc_pmu_visit(struct device *dev, void *data)
{
	struct pmc_pmu_walk *w = data;
	struct pmu *pmu = pmc_perf_dev_pmu(dev);
	unsigned int n;

	if (!pmu || !pmc_perf_pmu_counts_cpus(pmu) || !pmu->name ||
	    !pmc_arch_cpu_pmu(pmu))
		return 0;
	if (w->p && w->found < ARRAY_SIZE(w->p->type))
		w->p->type[w->found] = pmu->type;
	w->found++;
	n = pmc_arch_pmu_counters(pmu);
	if (n && n < w->counters)
		w->counters = n;
	return 0;
}

static void pmc_pmu_walk(struct pmc_pmu_walk *w)
{
	w->found = 0;
	w->counters = UINT_MAX;
	if (pmc_pmu_bus)
		bus_for_each_dev(pmc_pmu_bus, NULL, w, pmc_pmu_visit);
}

/*
 * The CPU PMUs, each for its own CPUs; with one PMU, PERF_TYPE_RAW (perf
 * picks it and events are not routed).  More CPU PMUs than a set has slots
 * for (PMC_CPU_PMUS_MAX) is refused, loudly, rather than leaving a core
 * type's CPUs uncounted: -EOPNOTSUPP.
 */
int pmc_cpu_pmus(struct pmc_pmus *p)
{
	struct pmc_pmu_walk w = { .p = p };

	pmc_pmu_walk(&w);
	if (w.found > ARRAY_SIZE(p->type)) {
		pr_warn_once("%u CPU PMUs (core types) found, at most %zu supported: CPU-bound and thread counters refused\n",
			     w.found, ARRAY_SIZE(p->type));
		p->n = 0;
		return -EOPNOTSUPP;
	}
	p->n = w.found;
	if (p->n <= 1) {
		p->n = 1;
		p->type[0] = PERF_TYPE_RAW;
	}
	return 0;
}

/* Is there a CPU PMU (a hardware or test PMU that takes raw events)? */
bool pmc_hw_pmu_present(void)
{
	struct pmc_pmu_walk w = {};

	pmc_pmu_walk(&w);
	return w.found;
}

/* The real driver's counter count, the smallest over the CPU PMUs; 0: none. */
unsigned int pmc_cpu_pmu_counters(void)
{
	struct pmc_pmu_walk w = {};

	pmc_pmu_walk(&w);
	return w.counters == UINT_MAX ? 0 : w.counters;
}

/* Are the CPUs' PMUs hybrid (a PMU per core type)? */
bool pmc_hybrid(void)
{
	struct pmc_pmus p;

	return pmc_cpu_pmus(&p) || p.n > 1;
}

/* Point a hardware event at one PMU: raw events by type, generic ones by config. */
void pmc_attr_route(struct perf_event_attr *attr, u32 pmu_type)
{
	if (attr->type == PERF_TYPE_SOFTWARE || pmu_type == PERF_TYPE_RAW)
		return;
	if (attr->type == PERF_TYPE_RAW)
		attr->type = pmu_type;
	else
		attr->config |= (u64)pmu_type << PERF_PMU_TYPE_SHIFT;
}

/*
 * Find perf's PMU bus through a software event's PMU, once at load.  A CPU
 * event, not a task event: the first task event in the system flips perf's
 * scheduling static key (perf_sched_events) for good.  A dummy software
 * event still takes and drops perf's swevent static key and hash list, which
 * is harmless once.
 */
void pmc_pmu_init(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
	};
	struct perf_event *event = ERR_PTR(-ENODEV);
	unsigned int cpu;

	/* A CPU that goes offline meanwhile gives -ENODEV: try the next. */
	for_each_online_cpu(cpu) {
		event = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		if (!IS_ERR(event))
			break;
	}
	if (IS_ERR(event))
		return;
	pmc_pmu_bus = pmc_perf_pmu_bus(event);
	perf_event_release_kernel(event);
}
