// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core: the reads of perf's internal fields that are off
 * the hot paths (inherited copies, pinned order, the PMU bus), and the
 * build-time checks of every field and value that pmc_perf_internals.h
 * and this file read.  See pmc_perf_internals.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/device.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched.h>

#include "pmc_perf_internals.h"

/*
 * What the helpers read, as 6.1 and 6.12 define it.  A change of type
 * (or of the states' values, which perf compares by order in places:
 * "state <= PERF_EVENT_STATE_OFF") fails the build here.
 */
static_assert(PERF_EVENT_STATE_ERROR == -2);
static_assert(PERF_EVENT_STATE_OFF == -1);
static_assert(PERF_EVENT_STATE_INACTIVE == 0);
static_assert(PERF_EVENT_STATE_ACTIVE == 1);
static_assert(__same_type(typeof_member(struct perf_event, state), enum perf_event_state));
static_assert(__same_type(typeof_member(struct perf_event, oncpu), int));
static_assert(__same_type(typeof_member(struct perf_event, cpu), int));
static_assert(__same_type(typeof_member(struct perf_event, count), local64_t));
static_assert(__same_type(typeof_member(struct perf_event, child_count), atomic64_t));
static_assert(__same_type(typeof_member(struct perf_event, group_index), u64));
static_assert(__same_type(typeof_member(struct perf_event, ctx), struct perf_event_context *));
static_assert(__same_type(typeof_member(struct perf_event, child_list), struct list_head));
static_assert(__same_type(typeof_member(struct perf_event, child_mutex), struct mutex));
static_assert(__same_type(typeof_member(struct perf_event, pmu), struct pmu *));
static_assert(__same_type(typeof_member(struct perf_event_context, task), struct task_struct *));
static_assert(__same_type(typeof_member(struct perf_event_context, pinned_groups.index), u64));
static_assert(__same_type(typeof_member(struct pmu, read), void (*)(struct perf_event *)));
static_assert(__same_type(typeof_member(struct pmu, task_ctx_nr), int));
static_assert(__same_type(typeof_member(struct pmu, dev), struct device *));

/*
 * The mutex that guards a parent event's list of inherited copies
 * (event->child_mutex, taken by perf_event_read_value() and
 * inherit_event() before they walk or extend event->child_list).
 * perf takes a context's mutex before it: never call perf_event_enable()
 * or the like on an event of the list while holding it.
 */
struct mutex *pmc_perf_copies_mutex(struct perf_event *parent)
{
	return &parent->child_mutex;
}

/*
 * The event of the calling thread among a parent event's copies (the
 * parent itself when the parent's context is the caller's), or NULL.
 * The caller holds the parent's child_mutex, which keeps the list
 * (inherit_event() adds, perf_event_exit_event() removes under it), and
 * has interrupts off, so that the caller's own context cannot switch away
 * while its task is compared (ctx->task changes only when a context is
 * swapped or freed: perf_event_context_sched_out(), which runs on the
 * owning task's CPU with interrupts off).
 */
struct perf_event *pmc_perf_own_copy(struct perf_event *parent)
{
	struct perf_event *child;

	lockdep_assert_held(&parent->child_mutex);
	lockdep_assert_irqs_disabled();
	if (READ_ONCE(parent->ctx->task) == current)
		return parent;
	list_for_each_entry(child, &parent->child_list, child_list)
		if (READ_ONCE(child->ctx->task) == current)
			return child;
	return NULL;
}

/*
 * Has a live copy of the parent event (another thread's, inherited) gone
 * to perf's error state (see pmc_perf_failed())?  A copy leaves the list
 * when its thread exits, its count folded into the parent's child_count
 * (perf_event_exit_event()).  Takes the parent's child_mutex.
 */
bool pmc_perf_copy_failed(struct perf_event *parent)
{
	struct perf_event *child;
	bool failed = false;

	mutex_lock(&parent->child_mutex);
	list_for_each_entry(child, &parent->child_list, child_list) {
		if (pmc_perf_failed(child)) {
			failed = true;
			break;
		}
	}
	mutex_unlock(&parent->child_mutex);
	return failed;
}

/* Does the parent event have a live inherited copy?  Takes its child_mutex. */
bool pmc_perf_has_copies(struct perf_event *parent)
{
	bool copies;

	mutex_lock(&parent->child_mutex);
	copies = !list_empty(&parent->child_list);
	mutex_unlock(&parent->child_mutex);
	return copies;
}

/*
 * How many pinned events perf has added to this event's context since
 * this event.  perf_event_groups_insert() gives each event added to a
 * context's groups the groups' next index (++groups->index), under
 * ctx->lock; merge_sched_in() visits pinned events in that order.  The
 * context's index is read once, without the lock: a racing insert only
 * makes the answer one newer.
 */
u64 pmc_perf_pinned_since(const struct perf_event *event)
{
	return READ_ONCE(event->ctx->pinned_groups.index) - event->group_index;
}

/* Was pinned event e added to the same context after event? (As above.) */
bool pmc_perf_pinned_after(const struct perf_event *e, const struct perf_event *event)
{
	return e->ctx == event->ctx && e->group_index > event->group_index;
}

/*
 * The PMU of a device on perf's PMU bus: pmu_dev_alloc() sets each PMU's
 * device's driver data to the PMU (dev_set_drvdata(pmu->dev, pmu)).
 */
struct pmu *pmc_perf_dev_pmu(struct device *dev)
{
	return dev_get_drvdata(dev);
}

/*
 * Does the PMU count the CPUs' hardware events?  Only CPU PMUs take perf's
 * hardware context (pmu->task_ctx_nr == perf_hw_context, checked by
 * perf_pmu_register()); uncore, power, cstate and the like have none, and
 * the trace and software-like PMUs take perf's software context.
 */
bool pmc_perf_pmu_counts_cpus(const struct pmu *pmu)
{
	return pmu->task_ctx_nr == perf_hw_context;
}

/*
 * perf's PMU bus ("event_source"), found through an event's PMU's device
 * (pmu_dev_alloc() puts every PMU's device on it); NULL when the PMU has
 * no device (perf_pmu_register() before pmu_bus_running).
 */
typeof(((struct device *)NULL)->bus) pmc_perf_pmu_bus(const struct perf_event *event)
{
	return event->pmu->dev ? event->pmu->dev->bus : NULL;
}
