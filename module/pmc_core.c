// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core on in-kernel perf events.  See include/pmc_core.h.
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
#include <asm/msr.h>
#include <asm/tsc.h>

#include "pmc_core.h"

/* perf takes sample periods below 2^63. */
#define PMC_MAX_PERIOD		BIT_ULL(63)
/* The period of a counter whose overflow is 2^63 or more events away. */
#define PMC_LONG_PERIOD		BIT_ULL(62)

static enum cpuhp_state pmc_cpuhp_state;
static struct lock_class_key pmc_cpu_set_key, pmc_thread_set_key;

/* perf's PMU bus ("event_source"), found through an event's PMU. */
static typeof(((struct device *)NULL)->bus) pmc_pmu_bus;

/* ---- which PMUs count the CPUs -------------------------------------------- */

/*
 * The PMU types that count hardware events on this machine's CPUs: "cpu",
 * or on hybrid Intel CPUs "cpu_core" and "cpu_atom", each for its own CPUs.
 * Found by name on perf's PMU bus, as perf(1) finds them in sysfs.
 */
struct pmc_pmus {
	unsigned int n;
	u32 type[2];
};

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

static void pmc_cpu_pmus(struct pmc_pmus *p)
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
static void pmc_attr_route(struct perf_event_attr *attr, u32 pmu_type)
{
	if (attr->type == PERF_TYPE_SOFTWARE || pmu_type == PERF_TYPE_RAW)
		return;
	if (attr->type == PERF_TYPE_RAW)
		attr->type = pmu_type;
	else
		attr->config |= (u64)pmu_type << PERF_PMU_TYPE_SHIFT;
}

/* ---- overflow: NMI context, then irq_work, then process context ------- */

/*
 * The PC to report for an overflow.  A counter that does not count kernel
 * mode never reports a kernel address (interrupt skid can land there): it
 * reports where the thread last left user space.
 */
static unsigned long pmc_overflow_pc(const struct pmc_counter *c,
				     struct pt_regs *regs)
{
	unsigned long pc;

	if (!c->desc.exclude_kernel)
		return instruction_pointer(regs);
	if (user_mode(regs))
		pc = instruction_pointer(regs);
	else if (current->flags & PF_KTHREAD)
		pc = 0;
	else
		pc = instruction_pointer(task_pt_regs(current));
	return pc < TASK_SIZE_MAX ? pc : 0;
}

/*
 * NMI context: freeze the set's values at this instant.  Each event's count
 * is brought up to date if it is active here (as perf_event_read_local()
 * does) and remembered; the work item that disables the events later moves
 * each counter's offset back by what was counted after this point.  Events
 * are freed after an RCU grace period, which NMIs hold off.
 */
static void pmc_set_snapshot(struct pmc_set *set)
{
	int cpu = smp_processor_id();
	unsigned int i, j;

	for (i = 0; i < set->nctrs; i++) {
		struct pmc_counter *c = &set->ctr[i];

		for (j = 0; j < set->nslots; j++) {
			struct perf_event *event = READ_ONCE(c->slots[j].event);

			if (!event)
				continue;
			if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
			    READ_ONCE(event->oncpu) == cpu)
				event->pmu->read(event);
			c->slots[j].snap = local64_read(&event->count);
			c->slots[j].snap_event = event;
		}
	}
}

static void pmc_overflow_handler(struct perf_event *event,
				 struct perf_sample_data *data,
				 struct pt_regs *regs)
{
	struct pmc_counter *c = event->overflow_handler_context;
	struct pmc_set *set = c->set;

	if (c->flags & PMC_TICK) {
		set->tick_fn(set->tick_ctx, c->idx, regs);
		return;
	}
	/* Of a long period's steps, only the one that ends it counts. */
	if (READ_ONCE(c->long_period) &&
	    local64_read(&event->count) < READ_ONCE(c->ovf_at))
		return;
	atomic64_set(&c->ovf_ip, pmc_overflow_pc(c, regs));
	if ((c->flags & PMC_FREEZE_SET) && !test_and_set_bit(0, &set->frozen))
		pmc_set_snapshot(set);
	set_bit(c->idx, &set->ovf_pending);
	irq_work_queue(&set->ovf_irq_work);
}

/*
 * Hard interrupt (or, on PREEMPT_RT, the irq_work thread): signal the thread
 * the set was bound with, which is recorded at bind time, never guessed
 * from whichever task runs here now, and only while it runs the program
 * that bound it: a new image did not ask for the signal (whose default
 * action may kill it), as perf's sigtrap needs remove_on_exec.
 */
static void pmc_ovf_irq_work(struct irq_work *work)
{
	struct pmc_set *set = container_of(work, struct pmc_set, ovf_irq_work);
	struct task_struct *task = set->notify.task;
	unsigned long pending = READ_ONCE(set->ovf_pending);
	struct kernel_siginfo info;

	if (task && pending &&
	    (u64)READ_ONCE(task->self_exec_id) == set->notify.exec_id) {
		clear_siginfo(&info);
		info.si_signo = set->notify.signo;
		info.si_code = set->notify.si_code;
		info.si_addr = (void __user *)(unsigned long)
			atomic64_read(&set->ctr[__ffs(pending)].ovf_ip);
		send_sig_info(set->notify.signo, &info, task);
	}
	if (test_bit(0, &set->frozen))
		schedule_work(&set->ovf_work);
}

/* Stop a running counter, its value frozen; set->lock held. */
static void pmc_counter_halt(struct pmc_counter *c)
{
	unsigned int i;

	if (!c->running)
		return;
	for (i = 0; i < c->set->nslots; i++)
		if (c->slots[i].event)
			perf_event_disable(c->slots[i].event);
	c->running = false;
}

/*
 * Process context: stop every counter of a set that froze at an overflow,
 * and give back what its events counted after the overflow's snapshot;
 * set->lock held.  The work item does it, or whoever takes the lock first
 * and must see the frozen values (a restart).
 */
static void pmc_set_freeze(struct pmc_set *set)
{
	unsigned int i, j;

	lockdep_assert_held(&set->lock);
	if (!test_bit(0, &set->frozen))
		return;
	for (i = 0; i < set->nctrs; i++) {
		struct pmc_counter *c = &set->ctr[i];

		if (!c->programmed)
			continue;
		pmc_counter_halt(c);
		for (j = 0; j < set->nslots; j++) {
			struct pmc_slot *s = &c->slots[j];

			/* An event made since (CPU back online) has nothing to give back. */
			if (s->event && s->event == s->snap_event)
				c->base -= local64_read(&s->event->count) - s->snap;
			s->snap_event = NULL;
		}
	}
	clear_bit(0, &set->frozen);
}

static void pmc_ovf_work(struct work_struct *work)
{
	struct pmc_set *set = container_of(work, struct pmc_set, ovf_work);

	mutex_lock(&set->lock);
	pmc_set_freeze(set);
	mutex_unlock(&set->lock);
}

/*
 * A set that froze is brought to its frozen state before anyone looks at
 * it or changes it; process context, set->lock not held.
 */
static void pmc_set_sync_freeze(struct pmc_set *set)
{
	if (!READ_ONCE(set->ovf_pending) && !test_bit(0, &set->frozen))
		return;
	irq_work_sync(&set->ovf_irq_work);
	flush_work(&set->ovf_work);
}

/* ---- perf events -------------------------------------------------------- */

/* The CPU a slot's event counts on; -1 for a thread's events. */
static int pmc_slot_cpu(const struct pmc_set *set, unsigned int i)
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

static bool pmc_set_cpu_bound(const struct pmc_set *set)
{
	return set->bind.scope == PMC_SCOPE_CPU || set->bind.scope == PMC_SCOPE_ALL_CPUS;
}

/* Task sets whose events count on any CPU: one slot per CPU PMU. */
static bool pmc_set_per_pmu(const struct pmc_set *set)
{
	return set->bind.scope == PMC_SCOPE_THREAD ||
	       (set->bind.scope == PMC_SCOPE_TREE && set->bind.cpu < 0);
}

/* Does slot i of a counter get an event?  (Software events need only one.) */
static bool pmc_slot_used(const struct pmc_counter *c, unsigned int i)
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
 * waits for the event count it is due at.
 */
static u64 pmc_counter_period(struct pmc_counter *c, u64 value, u64 count)
{
	u64 needed = pmc_preset_to_period(value);

	if (!(c->flags & PMC_OVERFLOW))
		return 0;
	if (needed && needed < PMC_MAX_PERIOD) {
		WRITE_ONCE(c->long_period, false);
		return needed;
	}
	if (!needed || check_add_overflow(count, needed, &needed))
		needed = U64_MAX;	/* 2^64 events: never */
	WRITE_ONCE(c->ovf_at, needed);
	WRITE_ONCE(c->long_period, true);
	return PMC_LONG_PERIOD;
}

/*
 * Make an event that counts on one CPU (of a CPU set, or a task's while it
 * runs there): on hybrid CPUs, with the PMU of that CPU's core type, which
 * is the one that does not refuse the CPU.
 */
static struct perf_event *pmc_create_on_cpu(struct perf_event_attr *attr, int cpu,
					    struct task_struct *task,
					    perf_overflow_handler_t handler, void *ctx)
{
	struct perf_event *event = ERR_PTR(-ENOENT);
	struct pmc_pmus p;
	unsigned int k;

	pmc_cpu_pmus(&p);
	for (k = 0; k < p.n; k++) {
		struct perf_event_attr a = *attr;

		pmc_attr_route(&a, p.type[k]);
		event = perf_event_create_kernel_counter(&a, cpu, task, handler, ctx);
		if (!IS_ERR(event) || PTR_ERR(event) != -ENOENT)
			break;
	}
	return event;
}

static struct perf_event *pmc_event_create(struct pmc_counter *c, unsigned int i)
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
		/* A thread's counters end with its image, as on Solaris. */
		.remove_on_exec = thread,
		.inherit = (thread && set->bind.inherit) || tree,
		/* Context switches between threads keep each one's own counts. */
		.inherit_stat = thread && set->bind.inherit,
	};
	struct perf_event *event;

	if (pmc_set_per_pmu(set)) {
		pmc_attr_route(&attr, set->slot_pmu[i]);
		event = perf_event_create_kernel_counter(&attr, -1, set->bind.task,
							 pmc_overflow_handler, c);
	} else {
		event = pmc_create_on_cpu(&attr, pmc_slot_cpu(set, i),
					  tree ? set->bind.task : NULL,
					  pmc_overflow_handler, c);
	}
	if (IS_ERR(event) && PTR_ERR(event) == -ENOENT &&
	    c->desc.type != PERF_TYPE_SOFTWARE && !pmc_hw_pmu_present())
		return ERR_PTR(-ENODEV);
	return event;
}

/* Start one event; a pinned event perf could not schedule is an error. */
static int pmc_event_start(struct pmc_counter *c, struct perf_event *event)
{
	if ((c->flags & PMC_FREEZE_SET) && event->attr.sample_period &&
	    !c->long_period && !event->attr.inherit) {
		/* Exactly one overflow, then perf stops the event. */
		int ret = perf_event_refresh(event, 1);

		if (ret)
			return ret;
	} else {
		perf_event_enable(event);
	}
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ERROR) {
		perf_event_disable(event);
		return -EBUSY;
	}
	return 0;
}

/*
 * The slot should count but does not: not recreated after a CPU came back,
 * or, while the counter runs, not schedulable (perf's error state).
 */
static bool pmc_slot_failed(const struct pmc_counter *c, const struct pmc_slot *s)
{
	return s->failed || (c->running && s->event &&
			     READ_ONCE(s->event->state) == PERF_EVENT_STATE_ERROR);
}

/*
 * An event's own count, without its inherited copies', brought up to date
 * when it is active on this CPU (as perf_event_read_local() does).
 */
static u64 pmc_event_own_count(struct perf_event *event)
{
	unsigned long flags;
	u64 v;

	local_irq_save(flags);
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
	    event->oncpu == smp_processor_id())
		event->pmu->read(event);
	v = local64_read(&event->count);
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
	int cpu;

	local_irq_save(flags);
	cpu = READ_ONCE(event->oncpu);
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE) {
		if (cpu == smp_processor_id())
			event->pmu->read(event);
		else if (!fresh || cpu < 0 || cpu >= nr_cpu_ids ||
			 !cpumask_test_cpu(cpu, fresh))
			goto remote;
	}
	/* Pairs with perf updating the count before it changes the state. */
	smp_rmb();
	v = local64_read(&event->count) + atomic64_read(&event->child_count);
	local_irq_restore(flags);
	return v;

remote:
	local_irq_restore(flags);
	return perf_event_read_value(event, &enabled, &running);
}

/* What a slot has counted, failed or not (fresh: see pmc_event_count()). */
static u64 pmc_slot_count(const struct pmc_slot *s, const struct cpumask *fresh)
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
	if (!event || event->attr.inherit ||
	    READ_ONCE(event->state) != PERF_EVENT_STATE_ACTIVE)
		return -1;
	return READ_ONCE(event->oncpu);
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
				event->pmu->read(event);
}

/* set->lock held; ctrs: a bit per counter; cpu as for pmc_set_read(). */
static void pmc_set_refresh(struct pmc_set *set, unsigned long ctrs, int cpu)
{
	struct pmc_refresh r = { .set = set, .ctrs = ctrs, .cpu = cpu };
	struct perf_event *event;
	unsigned int i, first, last, k;
	int this, on;

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

static int pmc_slot_value(const struct pmc_counter *c, const struct pmc_slot *s,
			  u64 *val, const struct cpumask *fresh)
{
	if (pmc_slot_failed(c, s))
		return -EIO;
	*val = pmc_slot_count(s, fresh);
	return 0;
}

static void pmc_slot_release(const struct pmc_counter *c, struct pmc_slot *s,
			     bool keep)
{
	struct perf_event *event = s->event;

	if (!event)
		return;
	if (keep)
		s->kept = pmc_slot_count(s, NULL);
	WRITE_ONCE(s->event, NULL);
	perf_event_release_kernel(event);
}

/*
 * The sum of a counter's slots plus its base, or with cpu one CPU's slot of
 * an ALL_CPUS set; set->lock held.  fresh: the CPUs pmc_set_refresh() just
 * read, or NULL.
 */
static int pmc_counter_value(struct pmc_counter *c, int cpu, u64 *val,
			     const struct cpumask *fresh)
{
	struct pmc_set *set = c->set;
	u64 v, sum = c->base;
	unsigned int i;
	int ret;

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

/* Make the counter read `value` from now on, failed slots or not. */
static void pmc_counter_set_value(struct pmc_counter *c, u64 value)
{
	u64 sum = c->base;
	unsigned int i;

	for (i = 0; i < c->set->nslots; i++)
		sum += pmc_slot_count(&c->slots[i], NULL);
	WRITE_ONCE(c->base, c->base + value - sum);
	clear_bit(c->idx, &c->set->ovf_pending);
}

static void pmc_counter_clear(struct pmc_counter *c)
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
	clear_bit(c->idx, &c->set->ovf_pending);
}

/* Create (stopped) the event of a slot whose CPU came up; set->lock held. */
static void pmc_slot_revive(struct pmc_counter *c, unsigned int i)
{
	struct pmc_slot *s = &c->slots[i];
	struct perf_event *event;

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

/* ---- CPU hotplug (CPU and ALL_CPUS sets) ----------------------------------- */

/* The slot of a CPU-bound set that counts on cpu, or -1. */
static int pmc_cpu_slot(const struct pmc_set *set, unsigned int cpu)
{
	if (set->bind.scope == PMC_SCOPE_ALL_CPUS)
		return cpu < set->nslots ? cpu : -1;
	return cpu == set->bind.cpu ? 0 : -1;
}

/*
 * Bring a CPU-bound set's events in line with its CPUs; set->lock held.
 * The events of a CPU that went down are dead (perf took them out of the
 * CPU's context): they are released, their counts kept.  A CPU that is up
 * gets its events made again.  Never called under the hotplug lock: making
 * and releasing software events flips static keys, which takes it.
 */
static void pmc_cpu_sync(struct pmc_set *set)
{
	unsigned int slot, i;

	for (slot = 0; slot < set->nslots; slot++) {
		if (test_and_clear_bit(slot, set->offlined)) {
			for (i = 0; i < set->nctrs; i++) {
				struct pmc_counter *c = &set->ctr[i];
				struct pmc_slot *s = &c->slots[slot];

				pmc_slot_release(c, s, !pmc_slot_failed(c, s));
				s->failed = false;
			}
		}
		if (test_bit(slot, set->online))
			for (i = 0; i < set->nctrs; i++)
				pmc_slot_revive(&set->ctr[i], slot);
	}
}

static void pmc_cpuhp_work(struct work_struct *work)
{
	struct pmc_set *set = container_of(work, struct pmc_set, cpuhp_work);

	mutex_lock(&set->lock);
	pmc_cpu_sync(set);
	mutex_unlock(&set->lock);
}

/* Software events flip static keys when made or freed: hotplug lock. */
static bool pmc_set_has_sw(const struct pmc_set *set)
{
	unsigned int i;

	for (i = 0; i < set->nctrs; i++)
		if (set->ctr[i].programmed && set->ctr[i].desc.type == PERF_TYPE_SOFTWARE)
			return true;
	return false;
}

/*
 * The hotplug callbacks run under the hotplug lock, which perf takes
 * itself when it makes or frees a software event, and set->lock is held
 * around such calls elsewhere: so they never wait for set->lock.  When it
 * is free and the set has no software event, the events follow the CPU at
 * once, as perf's own do; else a work item does it right after.
 */
static void pmc_cpu_changed(struct pmc_set *set)
{
	if (mutex_trylock(&set->lock)) {
		bool now = !pmc_set_has_sw(set);

		if (now)
			pmc_cpu_sync(set);
		mutex_unlock(&set->lock);
		if (now)
			return;
	}
	schedule_work(&set->cpuhp_work);
}

static int pmc_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct pmc_set *set = hlist_entry_safe(node, struct pmc_set, cpuhp_node);
	int slot = pmc_cpu_slot(set, cpu);

	if (slot < 0)
		return 0;
	set_bit(slot, set->online);
	pmc_cpu_changed(set);
	return 0;
}

/* Counts already made on a CPU that goes offline are kept. */
static int pmc_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct pmc_set *set = hlist_entry_safe(node, struct pmc_set, cpuhp_node);
	int slot = pmc_cpu_slot(set, cpu);

	if (slot < 0)
		return 0;
	clear_bit(slot, set->online);
	set_bit(slot, set->offlined);
	pmc_cpu_changed(set);
	return 0;
}

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
		pmc_cpu_pmus(&p);
		set->nslots = p.n;
		memcpy(set->slot_pmu, p.type, sizeof(set->slot_pmu));
	}
	init_irq_work(&set->ovf_irq_work, pmc_ovf_irq_work);
	INIT_WORK(&set->ovf_work, pmc_ovf_work);
	INIT_WORK(&set->cpuhp_work, pmc_cpuhp_work);
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
		ret = cpuhp_state_add_instance(pmc_cpuhp_state, &set->cpuhp_node);
		if (ret)
			goto err;
		set->on_cpuhp = true;
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

/* Release the pins of threads that exited, or all of them; set->lock held. */
static void pmc_set_unpin(struct pmc_set *set, bool all)
{
	struct pmc_pin *pin, *next;

	list_for_each_entry_safe(pin, next, &set->pins, node) {
		if (!all && !(READ_ONCE(pin->task->flags) & PF_EXITING))
			continue;
		list_del(&pin->node);
		perf_event_release_kernel(pin->event);
		put_task_struct(pin->task);
		kfree(pin);
	}
}

void pmc_set_destroy(struct pmc_set *set)
{
	unsigned int i;

	if (!set)
		return;
	if (set->on_cpuhp) {
		cpuhp_state_remove_instance_nocalls(pmc_cpuhp_state, &set->cpuhp_node);
		cancel_work_sync(&set->cpuhp_work);
	}
	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs; i++)
		pmc_counter_clear(&set->ctr[i]);
	for (i = 0; i < ARRAY_SIZE(set->anchor); i++)
		if (set->anchor[i])
			perf_event_release_kernel(set->anchor[i]);
	pmc_set_unpin(set, true);
	mutex_unlock(&set->lock);
	/* No event is left to overflow; drain what is in flight. */
	irq_work_sync(&set->ovf_irq_work);
	cancel_work_sync(&set->ovf_work);
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
		event = pmc_event_create(c, i);
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

	if (!(c->flags & PMC_OVERFLOW) || !s->event)
		return 0;
	return perf_event_period(s->event,
				 pmc_counter_period(c, value, pmc_slot_count(s, NULL) - s->kept));
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
	struct perf_event_context *ctx = event->ctx;
	u64 newer = READ_ONCE(ctx->pinned_groups.index) - event->group_index;
	unsigned int i, j;

	for (i = 0; i < set->nctrs && newer; i++) {
		for (j = 0; j < set->nslots; j++) {
			struct perf_event *e = set->ctr[i].slots[j].event;

			if (e && e->ctx == ctx && e->group_index > event->group_index)
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
	} else if (s->event->attr.inherit) {
		return 0;
	} else if (!pmc_slot_overtaken(c->set, s->event)) {
		if (!(c->flags & PMC_OVERFLOW))
			return 0;
		if (pmc_counter_value(c, PMC_READ_SUM, &value, NULL))
			value = c->base + pmc_slot_count(s, NULL);
		return pmc_counter_rearm(c, value);
	} else {
		pmc_slot_release(c, s, true);
	}
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
 * stops the others again and its error is returned.  set->lock held.
 */
static int pmc_counters_start(struct pmc_set *set, unsigned long mask)
{
	unsigned int idx, i;
	int ret = 0;

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
		set->ctr[idx].running = true;
		for (i = 0; i < set->nslots; i++)
			if (set->ctr[idx].slots[i].event)
				set->ctr[idx].slots[i].failed = false;
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
	u64 cur;
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
	ret = pmc_counter_value(c, PMC_READ_SUM, &cur, NULL);
	if (ret)
		goto out;
	pmc_counter_set_value(c, value);
	ret = pmc_counter_rearm(c, value);
out:
	mutex_unlock(&set->lock);
	return ret;
}

/*
 * Read every counter of the set: one CPU's instance (ALL_CPUS sets) or the
 * sum, then the TSC.  Unprogrammed counters read 0.  A counter perf could
 * not keep scheduled reads as -EIO, never as a stale value.
 */
int pmc_set_read(struct pmc_set *set, int cpu, u64 *values, u64 *tsc)
{
	unsigned int i;
	int ret = 0;

	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	pmc_set_refresh(set, BIT(set->nctrs) - 1, cpu);
	for (i = 0; i < set->nctrs && !ret; i++) {
		struct pmc_counter *c = &set->ctr[i];

		if (!c->programmed)
			values[i] = c->base;
		else
			ret = pmc_counter_value(c, cpu, &values[i], set->refresh_cpus);
	}
	if (tsc)
		*tsc = rdtsc_ordered();
	mutex_unlock(&set->lock);
	return ret;
}

/* Read one counter (see pmc_set_read()). */
int pmc_counter_read(struct pmc_set *set, unsigned int idx, int cpu, u64 *value)
{
	struct pmc_counter *c;
	int ret = 0;

	if (idx >= set->nctrs)
		return -EINVAL;
	c = &set->ctr[idx];
	pmc_set_sync_freeze(set);
	mutex_lock(&set->lock);
	if (!c->programmed) {
		*value = c->base;
	} else {
		pmc_set_refresh(set, BIT(idx), cpu);
		ret = pmc_counter_value(c, cpu, value, set->refresh_cpus);
	}
	mutex_unlock(&set->lock);
	return ret;
}

/* The event of the calling thread among a counter's copies; irqs off. */
static struct perf_event *pmc_own_copy(struct perf_event *parent)
{
	struct perf_event *child;

	lockdep_assert_irqs_disabled();
	if (READ_ONCE(parent->ctx->task) == current)
		return parent;
	list_for_each_entry(child, &parent->child_list, child_list)
		if (READ_ONCE(child->ctx->task) == current)
			return child;
	return NULL;
}

/* The calling thread's own count of one slot's event; -ENOENT without a copy. */
static int pmc_own_count(struct perf_event *parent, u64 *v)
{
	unsigned long irqflags;
	struct perf_event *own;
	int ret;

	mutex_lock(&parent->child_mutex);
	local_irq_save(irqflags);
	own = pmc_own_copy(parent);
	if (own)
		*v += pmc_event_own_count(own);
	/* A copy perf could not schedule (pinned, no counter) counts nothing. */
	ret = !own ? -ENOENT : READ_ONCE(own->state) == PERF_EVENT_STATE_ERROR ? -EIO : 0;
	local_irq_restore(irqflags);
	mutex_unlock(&parent->child_mutex);
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
 * no fixed number.  set->lock held.
 */
static int pmc_set_pin_current(struct pmc_set *set)
{
	struct pmc_pin *pin;
	unsigned int i;

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
			mutex_lock(&parent->child_mutex);
			local_irq_save(irqflags);
			found = !!pmc_own_copy(parent);
			local_irq_restore(irqflags);
			mutex_unlock(&parent->child_mutex);
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
			mutex_lock(&parent->child_mutex);
			local_irq_save(irqflags);
			own = pmc_own_copy(parent);
			local_irq_restore(irqflags);
			mutex_unlock(&parent->child_mutex);
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
			mutex_lock(&parent->child_mutex);
			copies = !list_empty(&parent->child_list);
			mutex_unlock(&parent->child_mutex);
		}
	}
	mutex_unlock(&set->lock);
	return copies;
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

/*
 * Find perf's PMU bus through a software event's PMU.  A CPU event, not a
 * task event: the first task event in the system flips perf's scheduling
 * static key, which patches kernel text at every module load for nothing.
 */
static void pmc_find_pmu_bus(void)
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

int pmc_core_init(void)
{
	int ret;

	pmc_find_pmu_bus();
	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "pmcompat:online",
				      pmc_cpu_online, pmc_cpu_offline);
	if (ret < 0)
		return ret;
	pmc_cpuhp_state = ret;
	return 0;
}

void pmc_core_exit(void)
{
	cpuhp_remove_multi_state(pmc_cpuhp_state);
}
