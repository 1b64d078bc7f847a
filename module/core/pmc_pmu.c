// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core: which PMUs count the CPUs (one, or one per core
 * type: cpu_core and cpu_atom on hybrid Intel CPUs, an arm_pmu per core type
 * on heterogeneous arm64), found on perf's PMU bus.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/perf_event.h>

#include "kcompat.h"
#include "pmc_arch.h"
#include "pmc_core.h"
#include "pmc_core_internal.h"

/* perf's PMU bus ("event_source"), found through an event's PMU. */
static typeof(((struct device *)NULL)->bus) pmc_pmu_bus;

/* ---- which PMUs count the CPUs -------------------------------------------- */

static struct pmu *pmc_pmu_of(struct device *dev)
{
	return dev_get_drvdata(dev);
}

#ifdef PMC_ARCH_HYBRID_PMUS
/*
 * x86: one PMU, "cpu", or on hybrid Intel CPUs "cpu_core" and "cpu_atom",
 * each for its own CPUs.  Found by name on perf's PMU bus, as perf(1) finds
 * them in sysfs.
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
	pmu = pmc_pmu_of(dev);
	if (pmu)
		*type = pmu->type;
	put_device(dev);
	return pmu;
}

void pmc_cpu_pmus(struct pmc_pmus *p)
{
	static const char *const hybrid[] = PMC_ARCH_HYBRID_PMUS;
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
	static const char *const hybrid[] = PMC_ARCH_HYBRID_PMUS;
	u32 type;

	return pmc_pmu_type(PMC_ARCH_CPU_PMU, &type) || pmc_pmu_type(hybrid[0], &type);
}
#else
/*
 * Elsewhere (arm64) the CPU PMUs have no fixed names: each arm_pmu instance
 * is named after its CPU ("armv8_cortex_a57") or the architecture
 * ("armv8_pmuv3", "armv8_pmuv3_0"), one per core type.  They are the PMUs of
 * perf's hardware context (pmu->task_ctx_nr, which only CPU PMUs have:
 * uncore PMUs have none, and SPE and trace PMUs use the software one).
 */
struct pmc_pmu_walk {
	struct pmc_pmus *p;
	unsigned int counters;		/* the smallest count, UINT_MAX: none */
};

static int pmc_pmu_visit(struct device *dev, void *data)
{
	struct pmc_pmu_walk *w = data;
	struct pmu *pmu = pmc_pmu_of(dev);
	unsigned int n;

	if (!pmu || pmu->task_ctx_nr != perf_hw_context)
		return 0;
	if (w->p && w->p->n < ARRAY_SIZE(w->p->type))
		w->p->type[w->p->n++] = pmu->type;
	n = pmc_perf_pmu_counters(pmu);
	if (n && n < w->counters)
		w->counters = n;
	return 0;
}

static void pmc_pmu_walk(struct pmc_pmu_walk *w)
{
	if (w->p)
		w->p->n = 0;
	w->counters = UINT_MAX;
	if (pmc_pmu_bus)
		bus_for_each_dev(pmc_pmu_bus, NULL, w, pmc_pmu_visit);
}

void pmc_cpu_pmus(struct pmc_pmus *p)
{
	struct pmc_pmu_walk w = { .p = p };

	pmc_pmu_walk(&w);
	/* One PMU for every CPU: perf picks it, events are not routed. */
	if (p->n <= 1) {
		p->n = 1;
		p->type[0] = PERF_TYPE_RAW;
	}
}

/* Is there a CPU PMU? */
bool pmc_hw_pmu_present(void)
{
	struct pmc_pmus p;
	struct pmc_pmu_walk w = { .p = &p };

	pmc_pmu_walk(&w);
	return p.n;
}

/* The real driver's counter count, the smallest over the CPU PMUs; 0: none. */
unsigned int pmc_cpu_pmu_counters(void)
{
	struct pmc_pmu_walk w = {};

	pmc_pmu_walk(&w);
	return w.counters == UINT_MAX ? 0 : w.counters;
}
#endif

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
