// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core: inherited thread sets (PMC_SCOPE_THREAD with
 * inherit, PMC_SCOPE_TREE).  perf gives each thread created after the bind
 * its own copy of every event; here a thread reads its own copy, and marks
 * or unmarks itself (Tru64's PME bit), its perf context pinned to it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irqflags.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "pmc_core.h"
#include "pmc_core_internal.h"
#include "pmc_perf_internals.h"

/*
 * Release the pins of threads that exited, or all of them.  The caller
 * holds set->lock.
 */
void pmc_set_unpin(struct pmc_set *set, bool all)
{
	struct pmc_pin *pin, *next;

	lockdep_assert_held(&set->lock);

	list_for_each_entry_safe(pin, next, &set->pins, node) {
		if (!all && !(READ_ONCE(pin->task->flags) & PF_EXITING))
			continue;
		list_del(&pin->node);
		perf_event_release_kernel(pin->event);
		put_task_struct(pin->task);
		kfree(pin);
	}
}

/* The calling thread's own count of one slot's event; -ENOENT without a copy. */
static int pmc_own_count(struct perf_event *parent, u64 *v)
{
	unsigned long irqflags;
	struct perf_event *own;
	int ret;

	mutex_lock(pmc_perf_copies_mutex(parent));
	local_irq_save(irqflags);
	own = pmc_perf_own_copy(parent);
	if (own)
		*v += pmc_event_own_count(own);
	/* A copy perf could not schedule (pinned, no counter) counts nothing. */
	ret = !own ? -ENOENT : pmc_perf_failed(own) ? -EIO : 0;
	local_irq_restore(irqflags);
	mutex_unlock(pmc_perf_copies_mutex(parent));
	return ret;
}

/*
 * Read the calling thread's own counts of an inherited thread set.  perf
 * gives every thread created after the bind its own copy of each event
 * (a child event), found by its context and read on this CPU.  The binding
 * thread's values continue from its offset; a later thread's start from the
 * presets.  -ENOENT when the caller has no copy of some counter.
 */
int pmc_set_read_own(struct pmc_set *set, u64 *values)
{
	bool binder = current == set->bind.task;
	unsigned int i, j;
	int ret = 0;

	if (set->bind.scope != PMC_SCOPE_THREAD || !set->bind.inherit)
		return -EINVAL;
	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs && !ret; i++) {
		struct pmc_counter *c = &set->ctr[i];
		u64 v = 0;

		if (!c->programmed) {
			values[i] = c->base;
			continue;
		}
		for (j = 0; j < set->nslots && !ret; j++) {
			/* An event that could not be made again counts nothing. */
			if (c->slots[j].failed)
				ret = -EIO;
			else if (c->slots[j].event)
				ret = pmc_own_count(c->slots[j].event, &v);
		}
		values[i] = (binder ? c->base : c->preset) + v;
	}
	mutex_unlock(&set->lock);
	return ret;
}

/*
 * A copy of a tree's event lives in a perf context that perf may swap with
 * an equivalent one (a sibling's) at a context switch, taking the copy to
 * the other thread.  A disabled, non-inherited event of the caller's own
 * makes perf unclone the caller's context and never clone it again, so its
 * copies stay its own.  One per thread and perf context class, kept while
 * the thread lives: as many as the tree has threads that marked themselves,
 * no fixed number.  The caller holds set->lock.
 */
static int pmc_set_pin_current(struct pmc_set *set)
{
	struct pmc_pin *pin;
	unsigned int i;

	lockdep_assert_held(&set->lock);

	/* The pins of threads that exited are of no use: their tasks go. */
	pmc_set_unpin(set, false);
	for (i = 0; i < set->nctrs; i++) {
		struct pmc_counter *c = &set->ctr[i];
		bool sw = c->desc.type == PERF_TYPE_SOFTWARE;
		struct perf_event_attr attr = {
			.type = c->desc.type,
			.size = sizeof(attr),
			.config = c->desc.config,
			.disabled = 1,
			.exclude_user = c->desc.exclude_user,
			.exclude_kernel = c->desc.exclude_kernel,
			.exclude_hv = 1,
		};
		struct perf_event *event;
		bool have = false;

		if (!c->programmed)
			continue;
		list_for_each_entry(pin, &set->pins, node)
			if (pin->task == current && pin->sw == sw)
				have = true;
		if (have)
			continue;
		pin = kzalloc(sizeof(*pin), GFP_KERNEL_ACCOUNT);
		if (!pin)
			return -ENOMEM;
		if (pmc_set_per_pmu(set)) {
			pmc_attr_route(&attr, set->slot_pmu[0]);
			event = perf_event_create_kernel_counter(&attr, -1, current,
								 NULL, NULL);
		} else {
			event = pmc_create_on_cpu(&attr, set->bind.cpu, current, NULL, NULL);
		}
		if (IS_ERR(event)) {
			kfree(pin);
			return PTR_ERR(event);
		}
		pin->task = get_task_struct(current);
		pin->event = event;
		pin->sw = sw;
		list_add(&pin->node, &set->pins);
	}
	return 0;
}

/* Does the calling thread have its own copy of the tree's events? */
static bool pmc_set_has_own_copy(struct pmc_set *set)
{
	unsigned long irqflags;
	unsigned int i, j;
	bool found = false;

	for (i = 0; i < set->nctrs && !found; i++) {
		struct pmc_counter *c = &set->ctr[i];

		for (j = 0; c->programmed && j < set->nslots && !found; j++) {
			struct perf_event *parent = c->slots[j].event;

			if (!parent)
				continue;
			mutex_lock(pmc_perf_copies_mutex(parent));
			local_irq_save(irqflags);
			found = !!pmc_perf_own_copy(parent);
			local_irq_restore(irqflags);
			mutex_unlock(pmc_perf_copies_mutex(parent));
		}
	}
	return found;
}

/*
 * PMC_SCOPE_TREE: count the calling thread from now on, or stop counting
 * it; the threads and children it creates afterwards follow.  Its own copy
 * of each event (the bound thread's are the events themselves) is found as
 * pmc_own_count() finds it and switched outside the parent's child_mutex
 * (perf takes a context's mutex before it).  The caller's context is
 * pinned first (pmc_set_pin_current()), so the copy stays in it and cannot
 * go away meanwhile: only its thread's exit or the parent's release (under
 * set->lock) frees it.  -ENOENT when the caller has no copy of some event.
 */
int pmc_set_mark_own(struct pmc_set *set, bool on)
{
	unsigned long irqflags;
	unsigned int i, j;
	int ret = 0;

	if (set->bind.scope != PMC_SCOPE_TREE)
		return -EINVAL;
	mutex_lock(&set->lock);
	if (current != set->bind.task) {
		/* A thread outside the tree (the descriptor was passed) gets no pin. */
		if (!pmc_set_has_own_copy(set)) {
			ret = -ENOENT;
			goto out;
		}
		ret = pmc_set_pin_current(set);
		if (ret)
			goto out;
	}
	for (i = 0; i < set->nctrs; i++) {
		struct pmc_counter *c = &set->ctr[i];

		for (j = 0; c->programmed && j < set->nslots; j++) {
			struct perf_event *parent = c->slots[j].event, *own;

			if (!parent)
				continue;
			mutex_lock(pmc_perf_copies_mutex(parent));
			local_irq_save(irqflags);
			own = pmc_perf_own_copy(parent);
			local_irq_restore(irqflags);
			mutex_unlock(pmc_perf_copies_mutex(parent));
			if (!own)
				ret = -ENOENT;
			else if (on)
				perf_event_enable(own);
			else
				perf_event_disable(own);
		}
	}
out:
	mutex_unlock(&set->lock);
	return ret;
}

/* Does a live thread other than the bound one count in this tree? */
bool pmc_set_has_copies(struct pmc_set *set)
{
	bool copies = false;
	unsigned int i, j;

	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs && !copies; i++) {
		struct pmc_counter *c = &set->ctr[i];

		for (j = 0; c->programmed && j < set->nslots && !copies; j++) {
			struct perf_event *parent = c->slots[j].event;

			if (!parent)
				continue;
			copies = pmc_perf_has_copies(parent);
		}
	}
	mutex_unlock(&set->lock);
	return copies;
}

