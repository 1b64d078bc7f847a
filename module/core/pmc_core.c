// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core on in-kernel perf events: sets and counters, the
 * calls of pmc_core.h.  The core's other files are listed in
 * pmc_core_internal.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/device.h>
#include <linux/rculist.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>

#include "pmc_arch.h"
#include "pmc_core.h"
#include "pmc_core_internal.h"
#include "pmc_perf_internals.h"

static struct lock_class_key pmc_cpu_set_key, pmc_thread_set_key;

/* ---- sets ----------------------------------------------------------------- */

static void pmc_set_free(struct pmc_set *set)
{
	unsigned int i;

	for (i = 0; i < set->nctrs; i++)
		kfree(set->ctr[i].slots);
	bitmap_free(set->online);
	bitmap_free(set->offlined);
	free_cpumask_var(set->refresh_cpus);
	kfree(set);
}

struct pmc_set *pmc_set_create(const struct pmc_bind *bind, unsigned int nctrs)
{
	bool cpu_bound = bind->scope == PMC_SCOPE_CPU || bind->scope == PMC_SCOPE_ALL_CPUS;
	struct pmc_set *set;
	struct pmc_pmus p;
	unsigned int i;
	int ret;

	if (!nctrs || nctrs > PMC_MAX_COUNTERS)
		return ERR_PTR(-EINVAL);
	switch (bind->scope) {
	case PMC_SCOPE_CPU:
		if (bind->cpu < 0 || bind->cpu >= nr_cpu_ids)
			return ERR_PTR(-EINVAL);
		break;
	case PMC_SCOPE_ALL_CPUS:
		break;
	case PMC_SCOPE_THREAD:
		if (!bind->task)
			return ERR_PTR(-EINVAL);
		break;
	case PMC_SCOPE_TREE:
		if (!bind->task || bind->cpu < -1 || bind->cpu >= (int)nr_cpu_ids)
			return ERR_PTR(-EINVAL);
		break;
	default:
		return ERR_PTR(-EINVAL);
	}

	set = kzalloc(struct_size(set, ctr, nctrs), GFP_KERNEL_ACCOUNT);
	if (!set)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&set->pins);
	/* See "Locking" in pmc_core.h. */
	if (cpu_bound)
		__mutex_init(&set->lock, "pmc_cpu_set", &pmc_cpu_set_key);
	else
		__mutex_init(&set->lock, "pmc_thread_set", &pmc_thread_set_key);
	set->bind = *bind;
	set->nctrs = nctrs;
	switch (bind->scope) {
	case PMC_SCOPE_ALL_CPUS:
		set->nslots = nr_cpu_ids;
		break;
	case PMC_SCOPE_CPU:
		set->nslots = 1;
		break;
	case PMC_SCOPE_TREE:
		if (bind->cpu >= 0) {
			set->nslots = 1;
			break;
		}
		fallthrough;
	default:
		ret = pmc_cpu_pmus(&p);
		if (ret)
			goto err;
		set->nslots = p.n;
		memcpy(set->slot_pmu, p.type, sizeof(set->slot_pmu));
	}
	pmc_set_overflow_init(set);
	pmc_set_hotplug_init(set);
	ret = -ENOMEM;
	if (!zalloc_cpumask_var(&set->refresh_cpus, GFP_KERNEL_ACCOUNT))
		goto err;
	if (cpu_bound) {
		set->online = bitmap_zalloc(set->nslots, GFP_KERNEL_ACCOUNT);
		set->offlined = bitmap_zalloc(set->nslots, GFP_KERNEL_ACCOUNT);
		if (!set->online || !set->offlined)
			goto err;
	}
	for (i = 0; i < nctrs; i++) {
		set->ctr[i].set = set;
		set->ctr[i].idx = i;
		set->ctr[i].slots = kcalloc(set->nslots, sizeof(struct pmc_slot),
					    GFP_KERNEL_ACCOUNT);
		if (!set->ctr[i].slots)
			goto err;
	}
	if (cpu_bound) {
		/* Marks the online CPUs' slots (no counter is programmed yet). */
		ret = pmc_set_hotplug_add(set);
		if (ret)
			goto err;
	}
	if (bind->task)
		get_task_struct(bind->task);
	return set;

err:
	pmc_set_free(set);
	return ERR_PTR(ret);
}

/* Call fn(ctx, ...) at the ticks of PMC_TICK counters; before they are programmed. */
void pmc_set_ticks(struct pmc_set *set, pmc_tick_fn fn, void *ctx)
{
	set->tick_fn = fn;
	set->tick_ctx = ctx;
}

/* Signal task with signo/si_code at overflows; before counters are programmed. */
void pmc_set_notify(struct pmc_set *set, struct task_struct *task, int signo,
		    int si_code)
{
	set->notify.task = get_task_struct(task);
	set->notify.exec_id = READ_ONCE(task->self_exec_id);
	set->notify.signo = signo;
	set->notify.si_code = si_code;
}

void pmc_set_destroy(struct pmc_set *set)
{
	unsigned int i;

	if (!set)
		return;
	pmc_set_hotplug_remove(set);
	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs; i++)
		pmc_counter_clear(&set->ctr[i]);
	for (i = 0; i < ARRAY_SIZE(set->anchor); i++)
		if (set->anchor[i])
			perf_event_release_kernel(set->anchor[i]);
	pmc_set_unpin(set, true);
	mutex_unlock(&set->lock);
	/* No event is left to overflow; drain what is in flight. */
	pmc_set_overflow_drain(set);
	if (set->notify.task)
		put_task_struct(set->notify.task);
	if (set->bind.task)
		put_task_struct(set->bind.task);
	mutex_destroy(&set->lock);
	pmc_set_free(set);
}

/* ---- counters ------------------------------------------------------------- */

static int pmc_desc_valid(const struct pmc_event_desc *desc)
{
	switch (desc->type) {
	case PERF_TYPE_RAW:
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_SOFTWARE:
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * perf marks a new thread's context a clone of its creator's when every
 * event there is inherited, and then swaps the two contexts at context
 * switches instead of rescheduling events: the bound thread's events would
 * wander to the threads it created.  One disabled, non-inherited event in
 * the bound thread's context (per perf context class: hardware, software)
 * prevents that.  It never runs and takes no counter.  (Between the threads
 * created later, contexts may still be swapped; inherit_stat makes perf
 * swap the counts along, so each thread keeps its own.)
 */
static int pmc_set_anchor(struct pmc_set *set, const struct pmc_event_desc *desc)
{
	unsigned int class = desc->type == PERF_TYPE_SOFTWARE;
	bool tree = set->bind.scope == PMC_SCOPE_TREE;
	struct perf_event_attr attr = {
		.type = desc->type,
		.size = sizeof(attr),
		.config = desc->config,
		.disabled = 1,
		.exclude_user = desc->exclude_user,
		.exclude_kernel = desc->exclude_kernel,
		.exclude_hv = 1,
		.remove_on_exec = !tree,
	};
	struct perf_event *event;

	if (!(tree || (set->bind.scope == PMC_SCOPE_THREAD && set->bind.inherit)) ||
	    set->anchor[class])
		return 0;
	if (pmc_set_per_pmu(set)) {
		pmc_attr_route(&attr, set->slot_pmu[0]);
		event = perf_event_create_kernel_counter(&attr, -1, set->bind.task,
							 NULL, NULL);
	} else {
		event = pmc_create_on_cpu(&attr, set->bind.cpu, set->bind.task, NULL, NULL);
	}
	if (IS_ERR(event))
		return PTR_ERR(event);
	set->anchor[class] = event;
	return 0;
}

/*
 * Overflow requests need one event per counter that perf can stop at the
 * overflow: not inherited copies (perf neither limits nor freezes a copy),
 * not a thread counted on two PMUs of a hybrid CPU (no single period).
 */
static int pmc_overflow_supported(const struct pmc_set *set,
				  const struct pmc_event_desc *desc)
{
	switch (set->bind.scope) {
	case PMC_SCOPE_ALL_CPUS:
		return -EOPNOTSUPP;
	case PMC_SCOPE_TREE:
		return -EOPNOTSUPP;
	case PMC_SCOPE_THREAD:
		if (set->bind.inherit)
			return -EOPNOTSUPP;
		if (set->nslots > 1 && desc->type != PERF_TYPE_SOFTWARE)
			return -EOPNOTSUPP;
		return 0;
	default:
		return 0;
	}
}

/*
 * Make a slot's event; NULL when the slot's CPU is not in perf's hands.
 * perf refuses a CPU's events (-ENODEV) from the moment its own hotplug
 * callback takes the CPU down until the one that brings it up, a window
 * wider than cpu_online()'s.  Ours runs inside it (after perf's on the
 * way up, before it on the way down), so the set's online bit is clear
 * for all of it: such a slot stays empty, as for any CPU that is down,
 * and pmc_cpu_sync() makes its event when ours marks the CPU up.  A CPU
 * that came up since the refusal is tried again.  The request does not
 * fail for a CPU that is changing state.
 */
static struct perf_event *pmc_slot_create(struct pmc_counter *c, unsigned int i)
{
	struct pmc_set *set = c->set;
	struct perf_event *event;
	int tries = 2;

	do {
		event = pmc_event_create(c, i);
		if (PTR_ERR_OR_ZERO(event) != -ENODEV || !pmc_set_cpu_bound(set))
			return event;
		if (!test_bit(i, set->online))
			return NULL;
	} while (--tries);
	return event;
}

int pmc_counter_program(struct pmc_set *set, unsigned int idx,
			const struct pmc_event_desc *desc, u64 preset,
			unsigned int flags)
{
	struct pmc_counter *c;
	struct perf_event *event;
	unsigned int i;
	int ret;

	if (idx >= set->nctrs || pmc_desc_valid(desc) ||
	    (flags & ~(PMC_START | PMC_OVERFLOW | PMC_FREEZE_SET | PMC_TICK)))
		return -EINVAL;
	if ((flags & PMC_TICK) &&
	    ((flags & (PMC_OVERFLOW | PMC_FREEZE_SET)) || !set->tick_fn ||
	     !desc->tick_period || desc->tick_period >= PMC_MAX_PERIOD))
		return -EINVAL;
	if (flags & PMC_OVERFLOW) {
		ret = pmc_overflow_supported(set, desc);
		if (ret)
			return ret;
	}
	c = &set->ctr[idx];

	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	pmc_counter_clear(c);
	c->desc = *desc;
	c->flags = flags;
	c->preset = preset;
	c->base = preset;
	ret = pmc_set_anchor(set, desc);
	if (ret)
		goto fail;

	for (i = 0; i < set->nslots; i++) {
		if (!pmc_slot_used(c, i))
			continue;
		event = pmc_slot_create(c, i);
		if (!event)
			continue;
		if (IS_ERR(event)) {
			ret = PTR_ERR(event);
			goto fail;
		}
		WRITE_ONCE(c->slots[i].event, event);
		if (flags & PMC_START) {
			ret = pmc_event_start(c, event);
			if (ret)
				goto fail;
		}
	}
	c->programmed = true;
	c->running = flags & PMC_START;
	mutex_unlock(&set->lock);
	return 0;

fail:
	pmc_counter_clear(c);
	mutex_unlock(&set->lock);
	return ret;
}

void pmc_counter_release(struct pmc_set *set, unsigned int idx)
{
	if (idx >= set->nctrs)
		return;
	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	pmc_counter_clear(&set->ctr[idx]);
	mutex_unlock(&set->lock);
}

/*
 * An overflow counter reading `value` now: its period starts again, so that
 * it overflows after 2^64 - value events (one event: see
 * pmc_overflow_supported()).
 */
static int pmc_counter_rearm(struct pmc_counter *c, u64 value)
{
	struct pmc_slot *s = &c->slots[0];
	u64 period;
	int ret;

	if (!(c->flags & PMC_OVERFLOW) || !s->event)
		return 0;
	period = pmc_counter_period(c, value, pmc_slot_count(s, NULL) - s->kept);
	if (!c->running || !pmc_event_one_shot(c, s->event) ||
	    READ_ONCE(s->armed) == s->event)
		return pmc_event_period(c, s->event, period);
	/*
	 * A running counter that becomes one-shot (a long period made short)
	 * needs its refresh credit: stopped for it, so that no overflow races
	 * the flag, and started again, its count kept.  (One-shot made long,
	 * the credit stays: the first of the long period's 2^62-event steps
	 * would stop the event, never reached in practice.)
	 */
	perf_event_disable(s->event);
	ret = pmc_event_period(c, s->event, period);
	if (!ret)
		ret = pmc_event_start(c, s->event);
	if (ret)
		c->running = false;
	return ret;
}

/* Does a slot of the counter fail to count (see pmc_slot_failed())? */
static bool pmc_counter_failing(const struct pmc_counter *c)
{
	unsigned int i;

	for (i = 0; i < c->set->nslots; i++)
		if (pmc_slot_failed(c, &c->slots[i]))
			return true;
	return false;
}

/*
 * Has perf been given a pinned event in this event's context since it was
 * made, other than this set's own?  perf schedules pinned events in the
 * order they were added to their context (each takes the context's next
 * group index), so a stopped event enabled again would go before such an
 * event, and could push it out where the newcomer must fail instead.
 */
static bool pmc_slot_overtaken(const struct pmc_set *set, struct perf_event *event)
{
	u64 newer = pmc_perf_pinned_since(event);
	unsigned int i, j;

	for (i = 0; i < set->nctrs && newer; i++) {
		for (j = 0; j < set->nslots; j++) {
			struct perf_event *e = set->ctr[i].slots[j].event;

			if (e && pmc_perf_pinned_after(e, event))
				newer--;
		}
	}
	return newer;
}

/*
 * Get a stopped slot's event ready to start.  It is kept, unless another
 * pinned event came after it (pmc_slot_overtaken()): then it is made
 * afresh (the count so far is kept), to take its turn behind the
 * newcomer, which must not lose its counter to a restart.  Inherited
 * thread events are always kept: releasing one would drop the copies of
 * the threads that inherited it.  A kept overflow counter's period starts
 * again from its value, as a new event's would.
 */
static int pmc_slot_renew(struct pmc_counter *c, unsigned int i)
{
	struct pmc_slot *s = &c->slots[i];
	struct perf_event *event;
	u64 value;

	if (!s->event) {
		/* A CPU's events are made when it is up (pmc_cpu_sync()). */
		if (pmc_set_cpu_bound(c->set) || !pmc_slot_used(c, i))
			return 0;
		/* A thread's event that could not be made again: try now. */
		goto make;
	}
	if (s->event->attr.inherit)
		return 0;
	if (!pmc_slot_overtaken(c->set, s->event)) {
		if (!(c->flags & PMC_OVERFLOW))
			return 0;
		if (pmc_counter_value(c, PMC_READ_SUM, &value, NULL))
			value = c->base + pmc_slot_count(s, NULL);
		return pmc_counter_rearm(c, value);
	}
	pmc_slot_release(c, s, true);
make:
	event = pmc_event_create(c, i);
	if (IS_ERR(event)) {
		s->failed = true;
		return PTR_ERR(event);
	}
	WRITE_ONCE(s->event, event);
	return 0;
}

static void pmc_counter_disable(struct pmc_counter *c)
{
	unsigned int i;

	for (i = 0; i < c->set->nslots; i++)
		if (c->slots[i].event)
			perf_event_disable(c->slots[i].event);
}

/*
 * Start the stopped counters of mask, all or none: every event is made
 * afresh first, then all are enabled; one that perf cannot make or schedule
 * stops the others again and its error is returned.  The caller holds
 * set->lock.
 */
static int pmc_counters_start(struct pmc_set *set, unsigned long mask)
{
	unsigned int idx, i;
	int ret = 0;

	lockdep_assert_held(&set->lock);

	/* No event of a CPU that went down is made again below. */
	if (pmc_set_cpu_bound(set))
		pmc_cpu_sync(set);

	for_each_set_bit(idx, &mask, set->nctrs) {
		struct pmc_counter *c = &set->ctr[idx];

		if (!c->programmed || c->running) {
			__clear_bit(idx, &mask);
			continue;
		}
		for (i = 0; i < set->nslots && !ret; i++)
			ret = pmc_slot_renew(c, i);
		if (ret)
			return ret;
	}
	for_each_set_bit(idx, &mask, set->nctrs) {
		struct pmc_counter *c = &set->ctr[idx];

		for (i = 0; i < set->nslots && !ret; i++)
			if (c->slots[i].event)
				ret = pmc_event_start(c, c->slots[i].event);
		if (ret)
			break;
	}
	if (ret) {
		for_each_set_bit(idx, &mask, set->nctrs)
			pmc_counter_disable(&set->ctr[idx]);
		return ret;
	}
	/* Only slots that count now are no longer failed (a CPU's that is down is). */
	for_each_set_bit(idx, &mask, set->nctrs) {
		struct pmc_slot *s = set->ctr[idx].slots;

		set->ctr[idx].running = true;
		for (i = 0; i < set->nslots; i++, s++)
			if (s->event && s->failed)
				s->failed = false;
	}
	return 0;
}

int pmc_counter_start(struct pmc_set *set, unsigned int idx)
{
	int ret;

	if (idx >= set->nctrs)
		return -EINVAL;
	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	if (!set->ctr[idx].programmed)
		ret = -ENXIO;
	else
		ret = pmc_counters_start(set, BIT(idx));
	mutex_unlock(&set->lock);
	return ret;
}

int pmc_counter_stop(struct pmc_set *set, unsigned int idx)
{
	struct pmc_counter *c;
	int ret = 0;

	if (idx >= set->nctrs)
		return -EINVAL;
	c = &set->ctr[idx];
	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	if (!c->programmed)
		ret = -ENXIO;
	else
		pmc_counter_halt(c);
	mutex_unlock(&set->lock);
	return ret;
}

/* Start the counters of mask (bit per counter), all or none. */
int pmc_set_start(struct pmc_set *set, unsigned long mask)
{
	int ret;

	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	ret = pmc_counters_start(set, mask & GENMASK(set->nctrs - 1, 0));
	mutex_unlock(&set->lock);
	return ret;
}

/* Stop every counter; returns the mask of those that were running. */
unsigned long pmc_set_stop(struct pmc_set *set)
{
	unsigned long running = 0;
	unsigned int i;

	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs; i++) {
		if (set->ctr[i].running)
			__set_bit(i, &running);
		pmc_counter_halt(&set->ctr[i]);
	}
	mutex_unlock(&set->lock);
	return running;
}

/*
 * Stop the set, put every programmed counter back to its preset (presets[i]
 * for counter i) and start them all again, all or none.
 */
int pmc_set_restart(struct pmc_set *set, const u64 *presets)
{
	unsigned int i;
	int ret;

	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	/*
	 * An overflow since the sync froze the set at a point before this
	 * restart: freeze it now, so that the work item, once it runs, finds
	 * nothing to do and leaves the restarted set alone.
	 */
	pmc_set_freeze(set);
	for (i = 0; i < set->nctrs; i++) {
		struct pmc_counter *c = &set->ctr[i];

		if (!c->programmed)
			continue;
		/*
		 * A counter that runs well goes on running from its preset
		 * (its offset moves, an overflow period starts again), with
		 * no perf call; a stopped or failed one is started afresh.
		 */
		if (pmc_counter_failing(c))
			pmc_counter_halt(c);
		pmc_counter_set_value(c, presets[i]);
		if (c->running) {
			ret = pmc_counter_rearm(c, presets[i]);
			if (ret)
				goto out;
		}
	}
	ret = pmc_counters_start(set, GENMASK(set->nctrs - 1, 0));
out:
	mutex_unlock(&set->lock);
	return ret;
}

/*
 * Make the counter's value (its sum, for an all-CPU counter) read `value`
 * from now on, by moving the offset; a sampling counter's period restarts
 * so that it overflows after 2^64 - value events.
 */
int pmc_counter_write(struct pmc_set *set, unsigned int idx, u64 value)
{
	struct pmc_counter *c;
	int ret;

	if (idx >= set->nctrs)
		return -EINVAL;
	c = &set->ctr[idx];
	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	if (!c->programmed) {
		ret = -ENXIO;
		goto out;
	}
	/* A counter that reads as an error is not written. */
	if (pmc_counter_failing(c)) {
		ret = -EIO;
		goto out;
	}
	/*
	 * Its counts read once: one cross-call to all the CPUs where its
	 * events are active, at once (not one perf read per CPU in turn).
	 */
	pmc_set_refresh(set, BIT(idx), PMC_READ_SUM);
	pmc_counter_set_value_fresh(c, value, set->refresh_cpus);
	ret = pmc_counter_rearm(c, value);
out:
	mutex_unlock(&set->lock);
	return ret;
}

/* pmc_set_read_locked() when some count is to be read on another CPU. */
static noinline int pmc_set_read_refresh(struct pmc_set *set, unsigned long ctrs,
					 int cpu, u64 *values)
{
	unsigned int i;
	int ret;

	pmc_set_refresh(set, ctrs, cpu);
	for (i = 0; i < set->nctrs; i++) {
		struct pmc_counter *c = &set->ctr[i];

		if (!(ctrs & BIT(i)))
			continue;
		if (!c->programmed) {
			values[i] = c->base;
			continue;
		}
		ret = pmc_counter_value(c, cpu, &values[i], set->refresh_cpus);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The values of the counters of ctrs, as pmc_set_read() gives them.  The
 * caller holds set->lock.
 */
static __always_inline int pmc_set_read_locked(struct pmc_set *set, unsigned long ctrs,
					       int cpu, u64 *values)
{
	int ret;

	lockdep_assert_held(&set->lock);
	ret = pmc_set_read_here(set, ctrs, cpu, values);

	if (likely(ret != -EAGAIN))
		return ret;
	return pmc_set_read_refresh(set, ctrs, cpu, values);
}

/*
 * Read every counter of the set: one CPU's instance (ALL_CPUS sets) or the
 * sum, then the timestamp (pmc_arch_timestamp(): the TSC on x86, the generic
 * timer's virtual counter on arm64).  Unprogrammed counters read 0.  A counter
 * perf could not keep scheduled reads as -EIO, never as a stale value.
 */
int pmc_set_read(struct pmc_set *set, int cpu, u64 *values, u64 *tsc)
{
	int ret;

	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	ret = pmc_set_read_locked(set, BIT(set->nctrs) - 1, cpu, values);
	if (tsc)
		*tsc = pmc_arch_timestamp();
	mutex_unlock(&set->lock);
	return ret;
}

/*
 * pmc_set_read() of a thread set, with how long it has been on a CPU, in
 * nanoseconds: perf's running time of the events of its first programmed
 * counter (summed over a hybrid CPU's PMUs), which perf gives only with a
 * read of its own (perf_event_read_value()).  The counts are read first, all
 * in one pass, as pmc_set_read() reads them, so that they stay one snapshot;
 * the running time follows under the same lock.  Not for inherited sets
 * (perf keeps one running time for a parent and its copies): -EINVAL.  The
 * running time of an event made afresh (pmc_slot_renew()) starts again.
 */
int pmc_set_read_timed(struct pmc_set *set, u64 *values, u64 *running_ns)
{
	u64 enabled, running;
	unsigned int f, i;
	int ret;

	if (set->bind.scope != PMC_SCOPE_THREAD || set->bind.inherit)
		return -EINVAL;
	*running_ns = 0;
	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	ret = pmc_set_read_locked(set, BIT(set->nctrs) - 1, PMC_READ_SUM, values);
	for (f = 0; f < set->nctrs && !set->ctr[f].programmed; f++)
		;
	for (i = 0; !ret && f < set->nctrs && i < set->nslots; i++) {
		struct perf_event *event = set->ctr[f].slots[i].event;

		if (!event)
			continue;
		perf_event_read_value(event, &enabled, &running);
		*running_ns += running;
	}
	mutex_unlock(&set->lock);
	return ret;
}

/* Read one counter (see pmc_set_read()). */
int pmc_counter_read(struct pmc_set *set, unsigned int idx, int cpu, u64 *value)
{
	u64 values[PMC_MAX_COUNTERS];
	int ret;

	if (idx >= set->nctrs)
		return -EINVAL;
	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	ret = pmc_set_read_locked(set, BIT(idx), cpu, values);
	if (!ret)
		*value = values[idx];
	mutex_unlock(&set->lock);
	return ret;
}

/* True when some instance of a programmed counter no longer counts. */
bool pmc_counter_failed(struct pmc_set *set, unsigned int idx)
{
	struct pmc_counter *c;
	bool failed = false;
	unsigned int i;

	if (idx >= set->nctrs)
		return false;
	c = &set->ctr[idx];
	mutex_lock(&set->lock);
	for (i = 0; c->programmed && i < set->nslots; i++)
		if (pmc_slot_failed(c, &c->slots[i]))
			failed = true;
	mutex_unlock(&set->lock);
	return failed;
}

int pmc_core_init(void)
{
	pmc_pmu_init();
	return pmc_hotplug_init();
}

void pmc_core_exit(void)
{
	pmc_hotplug_exit();
}

