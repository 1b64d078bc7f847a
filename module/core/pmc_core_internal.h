/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmcompat counter core: what its files share, and no front-end uses (the
 * front-ends' calls are in pmc_core.h).  One concern per file:
 *
 *   pmc_core.c      sets and counters: the calls of pmc_core.h
 *   pmc_event.c     the perf events behind a counter's slots: made,
 *                   started, brought up to date (pmc_set_refresh()), read
 *   pmc_overflow.c  overflow: NMI handler, signal (irq_work), freeze (work)
 *   pmc_hotplug.c   CPU hotplug of CPU-bound sets
 *   pmc_tree.c      inherited thread sets: a thread's own counts and marks
 *   pmc_pmu.c       which PMUs count the CPUs (hybrid), perf's PMU bus
 *   pmc_perf_internals.c/.h
 *                   every read of perf's internal fields (event state,
 *                   oncpu, counts, inherited copies, pinned order, the
 *                   PMU bus) and every direct pmu->read(), each with the
 *                   rule of perf it relies on and build-time checks
 *
 * What differs between architectures is in pmc_arch.h
 * (module/arch/<arch>/), what differs between kernels in kcompat.h.
 *
 * A function whose comment says that the caller holds set->lock (or has
 * interrupts off) checks it with lockdep_assert_held() (or
 * lockdep_assert_irqs_disabled()).
 */
#ifndef PMC_CORE_INTERNAL_H
#define PMC_CORE_INTERNAL_H

#include <linux/perf_event.h>
#include <linux/types.h>

#include "pmc_core.h"

/* perf takes sample periods below 2^63. */
#define PMC_MAX_PERIOD		BIT_ULL(63)
/* The period of a counter whose overflow is 2^63 or more events away. */
#define PMC_LONG_PERIOD		BIT_ULL(62)

/* ---- pmc_pmu.c ------------------------------------------------------------ */

/*
 * The PMU types that count hardware events on this machine's CPUs, each for
 * its own CPUs, where there are several (hybrid Intel CPUs, heterogeneous
 * arm64); else one entry, PERF_TYPE_RAW: perf picks the one CPU PMU.
 * pmc_cpu_pmus() fails (-EOPNOTSUPP) with more than PMC_CPU_PMUS_MAX.
 */
struct pmc_pmus {
	unsigned int n;
	u32 type[PMC_CPU_PMUS_MAX];
};

void pmc_pmu_init(void);
int pmc_cpu_pmus(struct pmc_pmus *p);
unsigned int pmc_cpu_pmu_counters(void);
void pmc_attr_route(struct perf_event_attr *attr, u32 pmu_type);

/* ---- pmc_event.c ---------------------------------------------------------- */

int pmc_slot_cpu(const struct pmc_set *set, unsigned int i);
bool pmc_set_cpu_bound(const struct pmc_set *set);
bool pmc_set_per_pmu(const struct pmc_set *set);
bool pmc_slot_used(const struct pmc_counter *c, unsigned int i);
u64 pmc_counter_period(struct pmc_counter *c, u64 value, u64 count);
int pmc_event_period(struct pmc_counter *c, struct perf_event *event, u64 period);
struct perf_event *pmc_create_on_cpu(struct perf_event_attr *attr, int cpu,
				     struct task_struct *task,
				     perf_overflow_handler_t handler, void *ctx);
struct perf_event *pmc_event_create(struct pmc_counter *c, unsigned int i);
bool pmc_event_one_shot(const struct pmc_counter *c, const struct perf_event *event);
struct pmc_slot *pmc_event_slot(const struct pmc_counter *c,
				const struct perf_event *event);
int pmc_event_start(struct pmc_counter *c, struct perf_event *event);
bool pmc_slot_failed(const struct pmc_counter *c, const struct pmc_slot *s);
u64 pmc_event_own_count(struct perf_event *event);
u64 pmc_slot_count(const struct pmc_slot *s, const struct cpumask *fresh);
void pmc_set_refresh(struct pmc_set *set, unsigned long ctrs, int cpu);
int pmc_set_read_here(struct pmc_set *set, unsigned long ctrs, int cpu, u64 *values);
void pmc_slot_release(const struct pmc_counter *c, struct pmc_slot *s, bool keep);
int pmc_counter_value(struct pmc_counter *c, int cpu, u64 *val,
		      const struct cpumask *fresh);
void pmc_counter_set_value(struct pmc_counter *c, u64 value);
void pmc_counter_set_value_fresh(struct pmc_counter *c, u64 value,
				 const struct cpumask *fresh);
void pmc_counter_clear(struct pmc_counter *c);
void pmc_slot_revive(struct pmc_counter *c, unsigned int i);

/* ---- pmc_overflow.c ------------------------------------------------------- */

void pmc_overflow_handler(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs);
void pmc_set_overflow_init(struct pmc_set *set);
void pmc_set_overflow_drain(struct pmc_set *set);
void pmc_counter_halt(struct pmc_counter *c);
void pmc_set_freeze(struct pmc_set *set);
void pmc_set_sync_freeze_wait(struct pmc_set *set);

/*
 * A set that froze is brought to its frozen state before anyone looks at
 * it or changes it; process context, set->lock not held.
 */
static inline void pmc_set_sync_freeze(struct pmc_set *set)
{
	if (READ_ONCE(set->ovf_pending) || test_bit(PMC_SET_FROZEN, &set->frozen))
		pmc_set_sync_freeze_wait(set);
}

/* ---- pmc_hotplug.c -------------------------------------------------------- */

int pmc_hotplug_init(void);
void pmc_hotplug_exit(void);
void pmc_set_hotplug_init(struct pmc_set *set);
int pmc_set_hotplug_add(struct pmc_set *set);
void pmc_set_hotplug_remove(struct pmc_set *set);
void pmc_cpu_sync(struct pmc_set *set);

/* ---- pmc_tree.c ----------------------------------------------------------- */

void pmc_set_unpin(struct pmc_set *set, bool all);

#endif /* PMC_CORE_INTERNAL_H */
