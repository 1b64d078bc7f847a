// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core: which PMUs count the CPUs (one, or on hybrid Intel
 * CPUs cpu_core and cpu_atom), found on perf's PMU bus.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/perf_event.h>

#include "pmc_core.h"
#include "pmc_core_internal.h"

/* perf's PMU bus ("event_source"), found through an event's PMU. */
static typeof(((struct device *)NULL)->bus) pmc_pmu_bus;

/* ---- which PMUs count the CPUs -------------------------------------------- */

/*
 * The PMU types that count hardware events on this machine's CPUs: "cpu",
 * or on hybrid Intel CPUs "cpu_core" and "cpu_atom", each for its own CPUs.
 * Found by name on perf's PMU bus, as perf(1) finds them in sysfs.
 */
static bool pmc_pmu_type(const char *name, u32 *type)
{
	struct device *dev;
	struct pmu *pmu;

	if (!pmc_pmu_bus)
		return false;
	dev = bus_find_device_by_name(pmc_pmu_bus, NULL, name);
	if (!dev)
		return false;
	pmu = dev_get_drvdata(dev);
	if (pmu)
		*type = pmu->type;
	put_device(dev);
	return pmu;
}

void pmc_cpu_pmus(struct pmc_pmus *p)
{
	static const char *const hybrid[] = { "cpu_core", "cpu_atom" };
	unsigned int i;

	p->n = 0;
	for (i = 0; i < ARRAY_SIZE(hybrid); i++)
		if (pmc_pmu_type(hybrid[i], &p->type[p->n]))
			p->n++;
	if (!p->n) {
		p->n = 1;
		p->type[0] = PERF_TYPE_RAW;
	}
}

/* Is there a hardware (or test) PMU that takes raw events? */
bool pmc_hw_pmu_present(void)
{
	u32 type;

	return pmc_pmu_type("cpu", &type) || pmc_pmu_type("cpu_core", &type);
}

/* Are the CPUs' PMUs hybrid (a PMU per core type)? */
bool pmc_hybrid(void)
{
	struct pmc_pmus p;

	pmc_cpu_pmus(&p);
	return p.n > 1;
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
	if (event->pmu->dev)
		pmc_pmu_bus = event->pmu->dev->bus;
	perf_event_release_kernel(event);
}
