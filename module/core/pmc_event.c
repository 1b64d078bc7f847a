// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core: the perf events behind a counter's slots, made,
 * started, brought up to date and read.  Remote CPUs' events are refreshed
 * with one function-call interrupt per CPU for all of a set's events there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/perf_event.h>
#include <linux/smp.h>

#include "pmc_arch.h"
#include "pmc_core.h"
#include "pmc_core_internal.h"
#include "pmc_perf_internals.h"

/* The CPU a slot's event counts on; -1 for a thread's events. */
int pmc_slot_cpu(const struct pmc_set *set, unsigned int i)
{
	switch (set->bind.scope) {
	case PMC_SCOPE_CPU:
		return set->bind.cpu;
	case PMC_SCOPE_ALL_CPUS:
		return i;
	case PMC_SCOPE_TREE:
		return set->bind.cpu;
	default:
		return -1;
	}
}

bool pmc_set_cpu_bound(const struct pmc_set *set)
{
	return set->bind.scope == PMC_SCOPE_CPU || set->bind.scope == PMC_SCOPE_ALL_CPUS;
}

/* Task sets whose events count on any CPU: one slot per CPU PMU. */
bool pmc_set_per_pmu(const struct pmc_set *set)
{
	return set->bind.scope == PMC_SCOPE_THREAD ||
	       (set->bind.scope == PMC_SCOPE_TREE && set->bind.cpu < 0);
}

/* Does slot i of a counter get an event?  (Software events need only one.) */
bool pmc_slot_used(const struct pmc_counter *c, unsigned int i)
{
	const struct pmc_set *set = c->set;

	if (!pmc_set_cpu_bound(set))
		return i == 0 || c->desc.type != PERF_TYPE_SOFTWARE;
	return test_bit(i, set->online);
}

/*
 * The sample period of an overflow counter whose value is `value` and whose
 * event has counted `count` so far: the overflow is due when the value
 * passes 2^64 - 1.  perf takes periods below 2^63; a longer one (never
 * reached in practice) runs as periods of 2^62 and the overflow handler
 * waits for the event count it is due at.  A shorter one than the PMU
 * takes overflows at the shortest it does (pmc_period_raise()), and never
 * at 1: x86 makes that 2 anyway, and Intel's driver turns period 1 on
 * branch instructions into BTS, which refuses kernel counting and never
 * calls the overflow handler.
 */
u64 pmc_counter_period(struct pmc_counter *c, u64 value, u64 count)
{
	u64 needed = pmc_preset_to_period(value);

	if (!(c->flags & PMC_OVERFLOW))
		return 0;
	if (needed && needed < PMC_MAX_PERIOD) {
		WRITE_ONCE(c->long_period, false);
		return max3(needed, 2ULL, (u64)READ_ONCE(c->min_period));
	}
	if (!needed || check_add_overflow(count, needed, &needed))
		needed = U64_MAX;	/* 2^64 events: never */
	WRITE_ONCE(c->ovf_at, needed);
	WRITE_ONCE(c->long_period, true);
	return PMC_LONG_PERIOD;
}

/*
 * Real PMUs refuse sampling periods below a minimum, with EINVAL from event
 * creation and from perf_event_period(): Intel's limit_period (32 on
 * Nehalem to Haswell; 128 for INST_RETIRED.ALL on Haswell and Broadwell,
 * which also wants a multiple of 64).  Solaris and Tru64 take any preset,
 * so an overflow counter then overflows at the shortest period the PMU
 * takes, tried as powers of two up to PMC_MIN_PERIOD_LIMIT and remembered
 * as the counter's minimum; its values stay exact (they are counts, the
 * period only decides when the overflow comes).  Returns the next period to
 * try after `period` was refused, or 0 when there is none.
 */
#define PMC_MIN_PERIOD_LIMIT	256

static u64 pmc_period_raise(struct pmc_counter *c, u64 period)
{
	u64 next;

	if (period >= PMC_MIN_PERIOD_LIMIT || READ_ONCE(c->long_period))
		return 0;
	next = roundup_pow_of_two(period + 1);
	WRITE_ONCE(c->min_period, next);
	return next;
}

/*
 * perf_event_period() of an overflow counter's event, raised to what the
 * PMU takes (pmc_period_raise()); the error of the last try.
 */
int pmc_event_period(struct pmc_counter *c, struct perf_event *event, u64 period)
{
	int ret = perf_event_period(event, period);

	while (ret == -EINVAL && (period = pmc_period_raise(c, period)))
		ret = perf_event_period(event, period);
	return ret;
}

/*
 * Make an event that counts on one CPU (of a CPU set, or a task's while it
 * runs there): on hybrid CPUs, with the PMU of that CPU's core type, which
 * is the one that does not refuse the CPU.
 */
struct perf_event *pmc_create_on_cpu(struct perf_event_attr *attr, int cpu,
				     struct task_struct *task,
				     perf_overflow_handler_t handler, void *ctx)
{
	struct perf_event *event = ERR_PTR(-ENOENT);
	struct pmc_pmus p;
	unsigned int k;

	if (pmc_cpu_pmus(&p))
		return ERR_PTR(-EOPNOTSUPP);
	for (k = 0; k < p.n; k++) {
		struct perf_event_attr a = *attr;

		pmc_attr_route(&a, p.type[k]);
		event = perf_event_create_kernel_counter(&a, cpu, task, handler, ctx);
		if (!IS_ERR(event) || PTR_ERR(event) != -ENOENT)
			break;
	}
	return event;
}

/* Make slot i's event of attr (left as it is: a retry may change it). */
static struct perf_event *pmc_event_make(struct pmc_counter *c, unsigned int i,
					 const struct perf_event_attr *attr)
{
	struct pmc_set *set = c->set;
	struct perf_event_attr a = *attr;

	if (pmc_set_per_pmu(set)) {
		pmc_attr_route(&a, set->slot_pmu[i]);
		return perf_event_create_kernel_counter(&a, -1, set->bind.task,
							pmc_overflow_handler, c);
	}
	return pmc_create_on_cpu(&a, pmc_slot_cpu(set, i),
				 set->bind.scope == PMC_SCOPE_TREE ? set->bind.task : NULL,
				 pmc_overflow_handler, c);
}

/*
 * An overflow counter's event that the PMU refused with EINVAL: again with
 * a longer period while there is one to try (pmc_period_raise()); when none
 * is left and the same event counting without a period is accepted, the
 * preset is what the PMU cannot do: -ERANGE.
 */
static struct perf_event *pmc_event_make_sampling(struct pmc_counter *c,
						  unsigned int i,
						  struct perf_event_attr *attr,
						  struct perf_event *event)
{
	u64 next;

	while (IS_ERR(event) && PTR_ERR(event) == -EINVAL) {
		next = pmc_period_raise(c, attr->sample_period);
		if (!next)
			break;
		attr->sample_period = next;
		event = pmc_event_make(c, i, attr);
	}
	if (!IS_ERR(event) || PTR_ERR(event) != -EINVAL)
		return event;
	attr->sample_period = 0;
	event = pmc_event_make(c, i, attr);
	if (IS_ERR(event))
		return event;
	perf_event_release_kernel(event);
	return ERR_PTR(-ERANGE);
}

struct perf_event *pmc_event_create(struct pmc_counter *c, unsigned int i)
{
	struct pmc_set *set = c->set;
	bool thread = set->bind.scope == PMC_SCOPE_THREAD;
	bool tree = set->bind.scope == PMC_SCOPE_TREE;
	struct perf_event_attr attr = {
		.type = c->desc.type,
		.size = sizeof(attr),
		.config = c->desc.config,
		.sample_period = (c->flags & PMC_TICK) ? c->desc.tick_period :
				 pmc_counter_period(c, c->base + c->slots[0].kept, 0),
		.pinned = 1,
		.disabled = 1,
		.exclude_user = c->desc.exclude_user,
		.exclude_kernel = c->desc.exclude_kernel,
		.exclude_hv = 1,
		/*
		 * As perf(1) sets it by default (event_attr_init()): on a KVM
		 * host, a guest's execution is not the host's.
		 */
		.exclude_guest = 1,
		/* A thread's counters end with its image, as on Solaris. */
		.remove_on_exec = thread,
		.inherit = (thread && set->bind.inherit) || tree,
		/* Context switches between threads keep each one's own counts. */
		.inherit_stat = thread && set->bind.inherit,
	};
	struct perf_event *event;

	event = pmc_event_make(c, i, &attr);
	if ((c->flags & PMC_OVERFLOW) && attr.sample_period)
		event = pmc_event_make_sampling(c, i, &attr, event);
	if (IS_ERR(event) && PTR_ERR(event) == -ENOENT &&
	    c->desc.type != PERF_TYPE_SOFTWARE && !pmc_hw_pmu_present())
		return ERR_PTR(-ENODEV);
	return event;
}

/*
 * Does perf stop the event at its first overflow (a short-period overflow
 * counter of a set that freezes)?  perf's refresh credits add up
 * (perf_event_refresh() adds to the event's limit, an overflow takes one,
 * nothing else resets it), so such an event is given a credit only when it
 * holds none: s->armed, set when the credit is given, with the event
 * stopped (no overflow can race it), cleared by the overflow that uses it
 * (pmc_overflow_handler()).  A long period's steps are never one-shot.
 */
bool pmc_event_one_shot(const struct pmc_counter *c, const struct perf_event *event)
{
	return (c->flags & PMC_FREEZE_SET) && event->attr.sample_period &&
	       !READ_ONCE(c->long_period) && !event->attr.inherit;
}

/* The counter's slot of an event, or NULL. */
struct pmc_slot *pmc_event_slot(const struct pmc_counter *c,
				const struct perf_event *event)
{
	unsigned int i;

	for (i = 0; i < c->set->nslots; i++)
		if (READ_ONCE(c->slots[i].event) == event)
			return &c->slots[i];
	return NULL;
}

/*
 * Start one stopped event (of a slot of c); a pinned event perf could not
 * schedule is an error.
 */
int pmc_event_start(struct pmc_counter *c, struct perf_event *event)
{
	/* Only a one-shot needs its slot: no search over every CPU's slots. */
	struct pmc_slot *s = pmc_event_one_shot(c, event) ? pmc_event_slot(c, event) : NULL;

	if (s && READ_ONCE(s->armed) != event) {
		/* Exactly one overflow, then perf stops the event. */
		int ret;

		WRITE_ONCE(s->armed, event);
		ret = perf_event_refresh(event, 1);
		if (ret) {
			WRITE_ONCE(s->armed, NULL);
			return ret;
		}
	} else {
		perf_event_enable(event);
	}
	if (pmc_perf_failed(event)) {
		perf_event_disable(event);
		return -EBUSY;
	}
	return 0;
}

/*
 * The slot should count but does not: not recreated after a CPU came back,
 * or, while the counter runs, not schedulable (perf's error state).
 */
bool pmc_slot_failed(const struct pmc_counter *c, const struct pmc_slot *s)
{
	return s->failed || (c->running && s->event && pmc_perf_failed(s->event));
}

/*
 * An event's own count, without its inherited copies', brought up to date
 * when it is active on this CPU (as perf_event_read_local() does).
 */
u64 pmc_event_own_count(struct perf_event *event)
{
	unsigned long flags;
	u64 v;

	local_irq_save(flags);
	pmc_perf_update_here(event, smp_processor_id());
	v = pmc_perf_count(event);
	local_irq_restore(flags);
	return v;
}

/*
 * The count of an event that has no inherited copies:
 * - active on this CPU: brought up to date here, interrupts off (as
 *   perf_event_read_local() does);
 * - active on a CPU of `fresh`: as pmc_set_refresh() brought it up to date
 *   there; on any other CPU (fresh NULL, or the reader moved to the CPU
 *   it was refreshed from): read by perf on its CPU;
 * - not active: perf brought its count up to date when it stopped it.
 */
static u64 pmc_event_count(struct perf_event *event, const struct cpumask *fresh)
{
	u64 enabled, running, v;
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = pmc_perf_read_here(event, smp_processor_id(), fresh, &v);
	local_irq_restore(flags);
	if (ret)
		return perf_event_read_value(event, &enabled, &running);
	return v;
}

/* What a slot has counted, failed or not (fresh: see pmc_event_count()). */
u64 pmc_slot_count(const struct pmc_slot *s, const struct cpumask *fresh)
{
	u64 enabled, running, v = s->kept;
	struct perf_event *event = s->event;

	/*
	 * An inherited thread set's value is the bound thread's, not the sum
	 * (only those have inherit_stat; a tree's value is the sum).
	 */
	if (!event)
		return v;
	if (event->attr.inherit && event->attr.inherit_stat)
		v += pmc_event_own_count(event);
	else if (event->attr.inherit)
		v += perf_event_read_value(event, &enabled, &running);
	else
		v += pmc_event_count(event, fresh);
	return v;
}

/*
 * Reads of counts active on other CPUs, batched: pmc_set_refresh() brings
 * every event of the chosen counters that is active on another CPU up to
 * date with one call on each such CPU, all CPUs at once, each reading all
 * of its events in that one interrupt (as perf's own read does on the
 * event's CPU, interrupts off there).  A thread's event that moves to
 * another CPU meanwhile keeps the count perf saved when it left, as with
 * perf's read.  The reads that follow take the counts of those CPUs as
 * they are (pmc_event_count()).  Events on the reader's own CPU are read
 * there by pmc_event_count() itself, without a call: so a thread's reads
 * of its own events never make one.
 */
struct pmc_refresh {
	struct pmc_set *set;
	unsigned long ctrs;
	int cpu;		/* PMC_READ_SUM, or an ALL_CPUS set's slot */
};

/* The slots [*first, *last) a refresh looks at on `cpu` (-1: any CPU). */
static void pmc_refresh_slots(const struct pmc_refresh *r, int cpu,
			      unsigned int *first, unsigned int *last)
{
	const struct pmc_set *set = r->set;

	*first = 0;
	*last = set->nslots;
	if (set->bind.scope != PMC_SCOPE_ALL_CPUS)
		return;
	if (r->cpu != PMC_READ_SUM && r->cpu >= 0 && r->cpu < set->nslots)
		cpu = r->cpu;
	if (cpu >= 0) {
		*first = min_t(unsigned int, cpu, set->nslots);
		*last = min_t(unsigned int, cpu + 1, set->nslots);
	}
}

/* An event of the refresh that is active, and on which CPU (or -1). */
static int pmc_refresh_event_cpu(const struct pmc_counter *c, unsigned int i,
				 struct perf_event **eventp)
{
	struct perf_event *event = READ_ONCE(c->slots[i].event);

	*eventp = event;
	if (!event || event->attr.inherit)
		return -1;
	return pmc_perf_active_cpu(event);
}

/* On each CPU of the refresh, interrupts off: read the events active here. */
static void pmc_refresh_here(void *info)
{
	const struct pmc_refresh *r = info;
	int this = smp_processor_id();
	struct perf_event *event;
	unsigned int i, first, last, k;

	pmc_refresh_slots(r, this, &first, &last);
	for_each_set_bit(k, &r->ctrs, r->set->nctrs)
		for (i = first; i < last; i++)
			if (pmc_refresh_event_cpu(&r->set->ctr[k], i, &event) == this)
				pmc_perf_update_here(event, this);
}

/*
 * Bring the events of the counters of ctrs (a bit per counter) that are
 * active on other CPUs up to date there; cpu is as for pmc_set_read().
 * The caller holds set->lock, which also guards set->refresh_cpus.
 */
void pmc_set_refresh(struct pmc_set *set, unsigned long ctrs, int cpu)
{
	struct pmc_refresh r = { .set = set, .ctrs = ctrs, .cpu = cpu };
	struct perf_event *event;
	unsigned int i, first, last, k;
	int this, on;

	lockdep_assert_held(&set->lock);

	cpumask_clear(set->refresh_cpus);
	pmc_refresh_slots(&r, -1, &first, &last);
	this = raw_smp_processor_id();	/* a hint: see pmc_event_count() */
	for_each_set_bit(k, &ctrs, set->nctrs) {
		if (!set->ctr[k].programmed)
			continue;
		for (i = first; i < last; i++) {
			on = pmc_refresh_event_cpu(&set->ctr[k], i, &event);
			if (on >= 0 && on != this && on < nr_cpu_ids)
				cpumask_set_cpu(on, set->refresh_cpus);
		}
	}
	if (!cpumask_empty(set->refresh_cpus))
		on_each_cpu_mask(set->refresh_cpus, pmc_refresh_here, &r, true);
}

/*
 * One slot's part of pmc_set_read_here(): its count added to *sum; -EIO if it failed,
 * -EAGAIN if it must be read elsewhere.  The caller has interrupts off.
 */
static __always_inline int pmc_slot_read_here(const struct pmc_counter *c,
					      const struct pmc_slot *s, int this,
					      u64 *sum)
{
	struct perf_event *event = s->event;
	u64 v;
	int ret;

	lockdep_assert_irqs_disabled();
	if (pmc_slot_failed(c, s))
		return -EIO;
	*sum += s->kept;
	if (!event)
		return 0;
	if (event->attr.inherit)
		return -EAGAIN;
	ret = pmc_perf_read_here(event, this, NULL, &v);
	if (!ret)
		*sum += v;
	return ret;
}

/*
 * The read of every slot of the chosen counters in one pass, interrupts
 * off, when none needs another CPU: each event is active on this CPU
 * (read here through its PMU, as perf_event_read_local() does) or not
 * active (perf brought its count up to date when it stopped it).  So a
 * thread's read of its own counters and a read of this CPU's counters
 * make no call to another CPU and take no lock but set->lock.  -EAGAIN
 * when an event is active on another CPU or has inherited copies: the
 * caller reads through pmc_set_refresh() and pmc_counter_value() then.
 * values[k] for each counter k of ctrs, as pmc_counter_value() would give
 * it (-EIO and -EINVAL alike).  The caller holds set->lock.
 */
int pmc_set_read_here(struct pmc_set *set, unsigned long ctrs, int cpu, u64 *values)
{
	bool one = set->bind.scope == PMC_SCOPE_ALL_CPUS && cpu != PMC_READ_SUM;
	unsigned int first = 0, last = set->nslots, i, k;
	unsigned long flags;
	int this, ret = 0;

	lockdep_assert_held(&set->lock);

	/* One CPU's instance, which has no share of the counter's base. */
	if (one && cpu >= 0 && cpu < set->nslots) {
		first = cpu;
		last = cpu + 1;
	} else if (one) {
		last = 0;	/* no such CPU: -EINVAL below */
	} else if (set->bind.scope == PMC_SCOPE_ALL_CPUS && num_online_cpus() > 1) {
		/* A sum over several CPUs: some of them are to be read there. */
		return -EAGAIN;
	}
	local_irq_save(flags);
	this = smp_processor_id();
	/* A plain walk: find_next_bit() costs more than it saves here. */
	for (k = 0; k < set->nctrs; k++) {
		const struct pmc_counter *c = &set->ctr[k];
		u64 sum;

		if (!(ctrs & BIT(k)))
			continue;
		if (!c->programmed) {
			values[k] = c->base;
			continue;
		}
		sum = one ? 0 : c->base;
		if (last == first + 1) {
			/* One slot (one CPU's, or a thread's): no inner walk. */
			ret = pmc_slot_read_here(c, &c->slots[first], this, &sum);
		} else if (one) {
			ret = -EINVAL;
		} else {
			for (i = first; i < last && !ret; i++)
				ret = pmc_slot_read_here(c, &c->slots[i], this, &sum);
		}
		if (ret)
			break;
		values[k] = sum;
	}
	local_irq_restore(flags);
	return ret;
}

static int pmc_slot_value(const struct pmc_counter *c, const struct pmc_slot *s,
			  u64 *val, const struct cpumask *fresh)
{
	if (pmc_slot_failed(c, s))
		return -EIO;
	/*
	 * A live copy of a tree's event (another thread's) that perf could
	 * not schedule counts nothing until it is enabled again, so the
	 * tree's sum would silently fall short: the read is an error
	 * instead, as for an inherited thread set's own copy (pmc_own_count()).
	 */
	if (c->running && s->event && s->event->attr.inherit &&
	    !s->event->attr.inherit_stat && pmc_perf_copy_failed(s->event))
		return -EIO;
	*val = pmc_slot_count(s, fresh);
	return 0;
}

void pmc_slot_release(const struct pmc_counter *c, struct pmc_slot *s, bool keep)
{
	struct perf_event *event = s->event;

	if (!event)
		return;
	if (keep)
		s->kept = pmc_slot_count(s, NULL);
	WRITE_ONCE(s->event, NULL);
	/* Its address may come back as another event's. */
	WRITE_ONCE(s->armed, NULL);
	perf_event_release_kernel(event);
}

/*
 * The sum of a counter's slots plus its base, or with cpu one CPU's slot of
 * an ALL_CPUS set.  fresh: the CPUs pmc_set_refresh() just read, or NULL.
 * The caller holds the set's lock.
 */
int pmc_counter_value(struct pmc_counter *c, int cpu, u64 *val,
		      const struct cpumask *fresh)
{
	struct pmc_set *set = c->set;
	u64 v, sum = c->base;
	unsigned int i;
	int ret;

	lockdep_assert_held(&set->lock);

	if (set->bind.scope == PMC_SCOPE_ALL_CPUS && cpu != PMC_READ_SUM) {
		if (cpu < 0 || cpu >= set->nslots)
			return -EINVAL;
		return pmc_slot_value(c, &c->slots[cpu], val, fresh);
	}
	for (i = 0; i < set->nslots; i++) {
		ret = pmc_slot_value(c, &c->slots[i], &v, fresh);
		if (ret)
			return ret;
		sum += v;
	}
	*val = sum;
	return 0;
}

/*
 * Make the counter read `value` from now on, failed slots or not; fresh:
 * the CPUs pmc_set_refresh() just read, or NULL.
 */
void pmc_counter_set_value_fresh(struct pmc_counter *c, u64 value,
				 const struct cpumask *fresh)
{
	u64 sum = c->base;
	unsigned int i;

	for (i = 0; i < c->set->nslots; i++)
		sum += pmc_slot_count(&c->slots[i], fresh);
	WRITE_ONCE(c->base, c->base + value - sum);
	clear_bit(c->idx, &c->set->ovf_pending);
}

void pmc_counter_set_value(struct pmc_counter *c, u64 value)
{
	pmc_counter_set_value_fresh(c, value, NULL);
}

void pmc_counter_clear(struct pmc_counter *c)
{
	unsigned int i;

	for (i = 0; i < c->set->nslots; i++) {
		pmc_slot_release(c, &c->slots[i], false);
		c->slots[i].kept = 0;
		c->slots[i].failed = false;
	}
	c->programmed = false;
	c->running = false;
	c->base = 0;
	c->flags = 0;
	c->min_period = 0;
	clear_bit(c->idx, &c->set->ovf_pending);
}

/*
 * Create (stopped) the event of a slot whose CPU came up.  The caller holds
 * the set's lock.
 */
void pmc_slot_revive(struct pmc_counter *c, unsigned int i)
{
	struct pmc_slot *s = &c->slots[i];
	struct perf_event *event;

	lockdep_assert_held(&c->set->lock);
	if (!c->programmed || s->event)
		return;
	/* A CPU that cannot count again reads as an error, never stale. */
	event = pmc_event_create(c, i);
	if (IS_ERR(event)) {
		s->failed = true;
		return;
	}
	WRITE_ONCE(s->event, event);
	s->failed = c->running && pmc_event_start(c, event);
}

