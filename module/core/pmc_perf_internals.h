/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmcompat counter core: every read of perf's internal fields, in one
 * place (this header, for the reads on hot paths and in NMIs, and
 * pmc_perf_internals.c for the rest).  The rest of the module calls only
 * these helpers.  perf exports no call that reads a kernel counter's count
 * in one pass with interrupts off, finds a thread's inherited copy of an
 * event, or lists the PMUs, so these read struct perf_event, struct
 * perf_event_context and struct pmu as perf itself does.  Each helper
 * names the rule of perf it relies on (6.12 kernel/events/core.c, the same
 * in 6.1); pmc_perf_internals.c checks at build time the types and
 * values these rules read, so that a change in perf's layout or meaning
 * breaks the build instead of the counts.
 */
#ifndef PMC_PERF_INTERNALS_H
#define PMC_PERF_INTERNALS_H

#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/smp.h>
#include <linux/types.h>

#include "pmc_arch.h"

/*
 * Has perf put the event in its error state?  perf does so when a pinned
 * event finds no counter (merge_sched_in()), and the event then counts
 * nothing until it is enabled again.  perf stores the state with
 * WRITE_ONCE() (perf_event_set_state()); a plain READ_ONCE() is enough,
 * as in perf_event_read().
 */
static __always_inline bool pmc_perf_failed(const struct perf_event *event)
{
	return READ_ONCE(event->state) == PERF_EVENT_STATE_ERROR;
}

/*
 * The CPU the event is active on, or -1 when it is not active.
 * event_sched_in() stores event->oncpu, then smp_wmb(), then the state
 * ACTIVE; perf_event_read() reads the state, then smp_rmb(), then oncpu.
 * So a reader that sees ACTIVE sees the CPU of that activation, as here.
 */
static __always_inline int pmc_perf_active_cpu(const struct perf_event *event)
{
	if (READ_ONCE(event->state) != PERF_EVENT_STATE_ACTIVE)
		return -1;
	/* Pairs with the smp_wmb() in event_sched_in(). */
	smp_rmb();
	return READ_ONCE(event->oncpu);
}

/*
 * Bring the count of an event active on this CPU up to date, as
 * perf_event_read_local() does: with interrupts off on the event's own
 * CPU, no sched-out, rotation or cross-call of perf can change it
 * meanwhile, so pmu->read() may be called without ctx->lock.  The
 * caller has interrupts off; `this` is smp_processor_id().
 */
static __always_inline void pmc_perf_update_here(struct perf_event *event, int this)
{
	if (pmc_perf_active_cpu(event) == this)
		event->pmu->read(event);
}

/*
 * The event's own count as it stands (event->count; local64_t, updated by
 * the PMU driver on the event's CPU, in NMIs too: x86_perf_event_update()
 * and armpmu_event_update() are NMI-reentrant).
 */
static __always_inline u64 pmc_perf_count(const struct perf_event *event)
{
	return local64_read(&((struct perf_event *)event)->count);
}

/*
 * May the count of an event that is not active be read here as it is,
 * without perf's context lock?  When perf stops an event
 * (event_sched_out()), it stores the event's last count (pmu->del()) and
 * then its new state (perf_event_set_state()), with no barrier between:
 * perf orders the two for other CPUs only by ctx->lock, which
 * perf_event_read() takes for an inactive event.
 * - x86 (PMC_ARCH_STORES_IN_ORDER): stores become visible in program
 *   order (TSO), so a reader that sees the new state and then, after
 *   smp_rmb(), reads the count sees the count stored before it.
 * - Weakly ordered CPUs (arm64): only an event of this CPU's context,
 *   read with interrupts off on this CPU, is safe: perf changes a CPU's
 *   events on that CPU (its cross-calls, excluded while interrupts are
 *   off here) or while it is offline (CPU hotplug orders that).  Every
 *   other inactive event is read by perf_event_read_value(), under
 *   ctx->lock.
 * Counts that pmcompat's own calls brought to rest (perf_event_disable()
 * under set->lock) are ordered by the cross-call's completion and
 * set->lock anyway.
 */
static __always_inline bool pmc_perf_settled(const struct perf_event *event, int this)
{
	return PMC_ARCH_STORES_IN_ORDER || event->cpu == this;
}

/*
 * The count of an event without inherited copies, read here in one pass
 * with interrupts off (`this` is smp_processor_id()), into *v; -EAGAIN
 * when perf must read it (perf_event_read_value()):
 * - active on this CPU: brought up to date here (pmc_perf_update_here());
 * - active on a CPU of `fresh` (may be NULL): as pmc_set_refresh() brought
 *   it up to date there, the IPI's completion (csd unlock, a release, and
 *   the caller's wait, an acquire) ordering that count before this read;
 * - not active: where pmc_perf_settled() allows it.
 * The sum adds event->child_count, as perf_event_count() does; it is 0
 * for an event that is not inherited.
 */
static __always_inline int pmc_perf_read_here(struct perf_event *event, int this,
					      const struct cpumask *fresh, u64 *v)
{
	int cpu;

	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE) {
		/* Pairs with the smp_wmb() in event_sched_in(). */
		smp_rmb();
		cpu = READ_ONCE(event->oncpu);
		if (cpu == this)
			event->pmu->read(event);
		else if (!fresh || cpu < 0 || cpu >= nr_cpu_ids ||
			 !cpumask_test_cpu(cpu, fresh))
			return -EAGAIN;
	} else if (!pmc_perf_settled(event, this)) {
		return -EAGAIN;
	}
	/* The state before the count: see pmc_perf_settled(). */
	smp_rmb();
	*v = local64_read(&event->count) + atomic64_read(&event->child_count);
	return 0;
}

/* pmc_perf_internals.c: the reads off the hot paths. */
struct mutex *pmc_perf_copies_mutex(struct perf_event *parent);
struct perf_event *pmc_perf_own_copy(struct perf_event *parent);
bool pmc_perf_copy_failed(struct perf_event *parent);
bool pmc_perf_has_copies(struct perf_event *parent);
u64 pmc_perf_pinned_since(const struct perf_event *event);
bool pmc_perf_pinned_after(const struct perf_event *e, const struct perf_event *event);
struct pmu *pmc_perf_dev_pmu(struct device *dev);
bool pmc_perf_pmu_counts_cpus(const struct pmu *pmu);
typeof(((struct device *)NULL)->bus) pmc_perf_pmu_bus(const struct perf_event *event);

#endif /* PMC_PERF_INTERNALS_H */
