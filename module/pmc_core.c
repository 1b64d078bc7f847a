// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core on in-kernel perf events.  See include/pmc_core.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/namei.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <asm/msr.h>

#include "pmc_core.h"

static enum cpuhp_state pmc_cpuhp_state;

/* ---- overflow: NMI context, then irq_work, then process context ------- */

static void pmc_overflow_handler(struct perf_event *event,
				 struct perf_sample_data *data,
				 struct pt_regs *regs)
{
	struct pmc_counter *c = event->overflow_handler_context;
	struct pmc_set *set = c->set;

	set_bit(c->idx, &set->ovf_pending);
	atomic64_set(&set->ovf_ip, instruction_pointer(regs));
	WRITE_ONCE(set->ovf_task, current);
	if (set->ops && set->ops->overflow)
		set->ops->overflow(set, c->idx, regs);
	if (set->notify.task || (c->flags & PMC_FREEZE_SET))
		irq_work_queue(&set->ovf_irq_work);
}

static void pmc_ovf_irq_work(struct irq_work *work)
{
	struct pmc_set *set = container_of(work, struct pmc_set, ovf_irq_work);
	struct task_struct *task = set->notify.task;
	struct kernel_siginfo info;

	/*
	 * A thread that inherited the set gets its own overflow signal.  The
	 * irq_work runs on the CPU of the overflow right after it, so the
	 * thread that overflowed is still current there.
	 */
	if (set->bind.scope == PMC_SCOPE_THREAD && set->bind.inherit &&
	    current == READ_ONCE(set->ovf_task) && !(current->flags & PF_KTHREAD))
		task = current;
	if (task) {
		clear_siginfo(&info);
		info.si_signo = set->notify.signo;
		info.si_code = set->notify.si_code;
		info.si_addr = (void __user *)(unsigned long)atomic64_read(&set->ovf_ip);
		send_sig_info(set->notify.signo, &info, task);
	}
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

/* Process context: stop every counter of a set whose overflow asks for it. */
static void pmc_ovf_work(struct work_struct *work)
{
	struct pmc_set *set = container_of(work, struct pmc_set, ovf_work);
	bool freeze = false;
	unsigned int i;

	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs; i++)
		if (test_bit(i, &set->ovf_pending) &&
		    (set->ctr[i].flags & PMC_FREEZE_SET))
			freeze = true;
	for (i = 0; freeze && i < set->nctrs; i++)
		if (set->ctr[i].programmed)
			pmc_counter_halt(&set->ctr[i]);
	mutex_unlock(&set->lock);
}

/* ---- perf events -------------------------------------------------------- */

/* Is there a hardware (or test) PMU that takes raw events? */
bool pmc_hw_pmu_present(void)
{
	static const char *const paths[] = {
		"/sys/bus/event_source/devices/cpu",
		"/sys/bus/event_source/devices/cpu_core",
	};
	struct path path;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (!kern_path(paths[i], LOOKUP_FOLLOW, &path)) {
			path_put(&path);
			return true;
		}
	}
	return false;
}

static u64 pmc_counter_period(const struct pmc_counter *c)
{
	u64 period;

	if (!(c->flags & PMC_OVERFLOW))
		return 0;
	/* From the current value: the offset plus what released events counted. */
	period = pmc_preset_to_period(c->base + c->slots[0].kept);
	/* perf takes periods below 2^63; longer ones never end in practice. */
	if (period >= (1ULL << 63))
		return 0;
	return period;
}

static struct perf_event *pmc_event_create(struct pmc_counter *c, int cpu)
{
	struct pmc_set *set = c->set;
	struct perf_event_attr attr = {
		.type = c->desc.type,
		.size = sizeof(attr),
		.config = c->desc.config,
		.sample_period = pmc_counter_period(c),
		.pinned = 1,
		.disabled = 1,
		.exclude_user = c->desc.exclude_user,
		.exclude_kernel = c->desc.exclude_kernel,
		.exclude_hv = 1,
		.inherit = set->bind.scope == PMC_SCOPE_THREAD && set->bind.inherit,
	};
	struct task_struct *task = NULL;
	struct perf_event *event;

	if (set->bind.scope == PMC_SCOPE_THREAD) {
		task = set->bind.task;
		cpu = -1;
	}
	event = perf_event_create_kernel_counter(&attr, cpu, task,
						 pmc_overflow_handler, c);
	if (IS_ERR(event) && PTR_ERR(event) == -ENOENT &&
	    c->desc.type != PERF_TYPE_SOFTWARE && !pmc_hw_pmu_present())
		return ERR_PTR(-ENODEV);
	return event;
}

/* Start one event; a pinned event perf could not schedule is an error. */
static int pmc_event_start(struct pmc_counter *c, struct perf_event *event)
{
	bool limited = (c->flags & PMC_FREEZE_SET) && pmc_counter_period(c) &&
		       !event->attr.inherit;

	if (limited) {
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

static int pmc_slot_value(const struct pmc_counter *c, const struct pmc_slot *s,
			  u64 *val)
{
	u64 enabled, running, v = s->kept;

	if (pmc_slot_failed(c, s))
		return -EIO;
	/* An inherited set's value is the bound thread's, not the sum. */
	if (s->event && s->event->attr.inherit)
		v += pmc_event_own_count(s->event);
	else if (s->event)
		v += perf_event_read_value(s->event, &enabled, &running);
	*val = v;
	return 0;
}

static void pmc_slot_release(const struct pmc_counter *c, struct pmc_slot *s,
			     bool keep)
{
	u64 v;

	if (!s->event)
		return;
	if (keep && !pmc_slot_value(c, s, &v))
		s->kept = v;
	perf_event_release_kernel(s->event);
	s->event = NULL;
}

/* The sum of a counter's slots plus its base; set->lock held. */
static int pmc_counter_value(struct pmc_counter *c, int cpu, u64 *val)
{
	struct pmc_set *set = c->set;
	u64 v, sum = c->base;
	unsigned int i;
	int ret;

	if (set->bind.scope == PMC_SCOPE_ALL_CPUS && cpu != PMC_READ_SUM) {
		if (cpu < 0 || cpu >= set->nslots)
			return -EINVAL;
		return pmc_slot_value(c, &c->slots[cpu], val);
	}
	for (i = 0; i < set->nslots; i++) {
		ret = pmc_slot_value(c, &c->slots[i], &v);
		if (ret)
			return ret;
		sum += v;
	}
	*val = sum;
	return 0;
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

/* ---- CPU hotplug (PMC_SCOPE_ALL_CPUS) ------------------------------------ */

static int pmc_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct pmc_set *set = hlist_entry_safe(node, struct pmc_set, cpuhp_node);
	struct perf_event *event;
	unsigned int i;

	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs; i++) {
		struct pmc_counter *c = &set->ctr[i];

		if (!c->programmed || c->slots[cpu].event)
			continue;
		/* A CPU that cannot count again reads as an error, never stale. */
		event = pmc_event_create(c, cpu);
		if (IS_ERR(event)) {
			c->slots[cpu].failed = true;
			continue;
		}
		c->slots[cpu].event = event;
		if (c->running && pmc_event_start(c, event))
			c->slots[cpu].failed = true;
	}
	mutex_unlock(&set->lock);
	return 0;
}

/* Counts already made on a CPU that goes offline are kept. */
static int pmc_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct pmc_set *set = hlist_entry_safe(node, struct pmc_set, cpuhp_node);
	unsigned int i;

	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs; i++)
		pmc_slot_release(&set->ctr[i], &set->ctr[i].slots[cpu], true);
	mutex_unlock(&set->lock);
	return 0;
}

/* ---- sets ----------------------------------------------------------------- */

struct pmc_set *pmc_set_create(const struct pmc_bind *bind, unsigned int nctrs,
			       const struct pmc_set_ops *ops)
{
	struct pmc_set *set;
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
	default:
		return ERR_PTR(-EINVAL);
	}

	set = kzalloc(struct_size(set, ctr, nctrs), GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	mutex_init(&set->lock);
	set->bind = *bind;
	set->ops = ops;
	set->nctrs = nctrs;
	set->nslots = bind->scope == PMC_SCOPE_ALL_CPUS ? nr_cpu_ids : 1;
	init_irq_work(&set->ovf_irq_work, pmc_ovf_irq_work);
	INIT_WORK(&set->ovf_work, pmc_ovf_work);
	for (i = 0; i < nctrs; i++) {
		set->ctr[i].set = set;
		set->ctr[i].idx = i;
		set->ctr[i].slots = kcalloc(set->nslots, sizeof(struct pmc_slot),
					    GFP_KERNEL);
		if (!set->ctr[i].slots) {
			ret = -ENOMEM;
			goto err;
		}
	}
	if (bind->scope == PMC_SCOPE_ALL_CPUS) {
		ret = cpuhp_state_add_instance_nocalls(pmc_cpuhp_state, &set->cpuhp_node);
		if (ret)
			goto err;
		set->on_cpuhp = true;
	}
	if (bind->task)
		get_task_struct(bind->task);
	return set;

err:
	for (i = 0; i < nctrs; i++)
		kfree(set->ctr[i].slots);
	kfree(set);
	return ERR_PTR(ret);
}

void pmc_set_destroy(struct pmc_set *set)
{
	unsigned int i;

	if (!set)
		return;
	if (set->on_cpuhp)
		cpuhp_state_remove_instance_nocalls(pmc_cpuhp_state, &set->cpuhp_node);
	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs; i++)
		pmc_counter_clear(&set->ctr[i]);
	for (i = 0; i < ARRAY_SIZE(set->anchor); i++)
		if (set->anchor[i])
			perf_event_release_kernel(set->anchor[i]);
	mutex_unlock(&set->lock);
	/* No event is left to overflow; drain what is in flight. */
	irq_work_sync(&set->ovf_irq_work);
	cancel_work_sync(&set->ovf_work);
	if (set->notify.task)
		put_task_struct(set->notify.task);
	if (set->bind.task)
		put_task_struct(set->bind.task);
	for (i = 0; i < set->nctrs; i++)
		kfree(set->ctr[i].slots);
	kfree(set);
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
 * prevents that.  It never runs and takes no counter.
 */
static int pmc_set_anchor(struct pmc_set *set, const struct pmc_event_desc *desc)
{
	unsigned int class = desc->type == PERF_TYPE_SOFTWARE;
	struct perf_event_attr attr = {
		.type = desc->type,
		.size = sizeof(attr),
		.config = desc->config,
		.disabled = 1,
		.exclude_user = desc->exclude_user,
		.exclude_kernel = desc->exclude_kernel,
		.exclude_hv = 1,
	};
	struct perf_event *event;

	if (set->bind.scope != PMC_SCOPE_THREAD || !set->bind.inherit ||
	    set->anchor[class])
		return 0;
	event = perf_event_create_kernel_counter(&attr, -1, set->bind.task, NULL, NULL);
	if (IS_ERR(event))
		return PTR_ERR(event);
	set->anchor[class] = event;
	return 0;
}

int pmc_counter_program(struct pmc_set *set, unsigned int idx,
			const struct pmc_event_desc *desc, u64 preset,
			unsigned int flags)
{
	struct pmc_counter *c;
	struct perf_event *event;
	unsigned int cpu;
	int ret;

	if (idx >= set->nctrs || pmc_desc_valid(desc) ||
	    (flags & ~(PMC_START | PMC_OVERFLOW | PMC_FREEZE_SET)))
		return -EINVAL;
	if ((flags & PMC_OVERFLOW) && set->bind.scope == PMC_SCOPE_ALL_CPUS)
		return -EOPNOTSUPP;
	c = &set->ctr[idx];

	cpus_read_lock();
	mutex_lock(&set->lock);
	pmc_counter_clear(c);
	c->desc = *desc;
	c->flags = flags;
	c->preset = preset;
	c->base = preset;
	ret = pmc_set_anchor(set, desc);
	if (ret)
		goto fail;

	for (cpu = 0; cpu < set->nslots; cpu++) {
		int target = set->bind.scope == PMC_SCOPE_CPU ? set->bind.cpu : cpu;

		if (set->bind.scope == PMC_SCOPE_ALL_CPUS && !cpu_online(cpu))
			continue;
		event = pmc_event_create(c, target);
		if (IS_ERR(event)) {
			ret = PTR_ERR(event);
			goto fail;
		}
		c->slots[cpu].event = event;
		if (flags & PMC_START) {
			ret = pmc_event_start(c, event);
			if (ret)
				goto fail;
		}
	}
	c->programmed = true;
	c->running = flags & PMC_START;
	mutex_unlock(&set->lock);
	cpus_read_unlock();
	return 0;

fail:
	pmc_counter_clear(c);
	mutex_unlock(&set->lock);
	cpus_read_unlock();
	return ret;
}

void pmc_counter_release(struct pmc_set *set, unsigned int idx)
{
	if (idx >= set->nctrs)
		return;
	mutex_lock(&set->lock);
	pmc_counter_clear(&set->ctr[idx]);
	mutex_unlock(&set->lock);
}

/*
 * Start a stopped slot.  Its event is created afresh (the count so far is
 * kept): perf schedules pinned events in the order they were made, so an
 * event made long ago and enabled now would push out a pinned event that
 * another perf user made since, where it must fail with EBUSY instead.
 * Inherited thread events are only enabled: releasing one would drop the
 * copies of the threads that inherited it.
 */
static int pmc_slot_start(struct pmc_counter *c, unsigned int i)
{
	struct pmc_set *set = c->set;
	struct pmc_slot *s = &c->slots[i];
	struct perf_event *event;

	if (!s->event)
		return 0;	/* CPU offline */
	if (!s->event->attr.inherit) {
		pmc_slot_release(c, s, true);
		event = pmc_event_create(c, set->bind.scope == PMC_SCOPE_CPU ?
					 set->bind.cpu : i);
		if (IS_ERR(event)) {
			s->failed = true;
			return PTR_ERR(event);
		}
		s->event = event;
	}
	return pmc_event_start(c, s->event);
}

int pmc_counter_start(struct pmc_set *set, unsigned int idx)
{
	struct pmc_counter *c;
	unsigned int i;
	int ret = 0;

	if (idx >= set->nctrs)
		return -EINVAL;
	c = &set->ctr[idx];
	cpus_read_lock();	/* events are created per CPU */
	mutex_lock(&set->lock);
	if (!c->programmed) {
		ret = -ENXIO;
	} else if (!c->running) {
		for (i = 0; i < set->nslots && !ret; i++)
			ret = pmc_slot_start(c, i);
		if (ret) {
			for (i = 0; i < set->nslots; i++)
				if (c->slots[i].event)
					perf_event_disable(c->slots[i].event);
		} else {
			c->running = true;
		}
	}
	mutex_unlock(&set->lock);
	cpus_read_unlock();
	return ret;
}

int pmc_counter_stop(struct pmc_set *set, unsigned int idx)
{
	struct pmc_counter *c;
	int ret = 0;

	if (idx >= set->nctrs)
		return -EINVAL;
	c = &set->ctr[idx];
	mutex_lock(&set->lock);
	if (!c->programmed)
		ret = -ENXIO;
	else
		pmc_counter_halt(c);
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
	u64 cur, period;
	int ret;

	if (idx >= set->nctrs)
		return -EINVAL;
	c = &set->ctr[idx];
	mutex_lock(&set->lock);
	if (!c->programmed) {
		ret = -ENXIO;
		goto out;
	}
	ret = pmc_counter_value(c, PMC_READ_SUM, &cur);
	if (ret)
		goto out;
	c->base += value - cur;
	clear_bit(idx, &set->ovf_pending);
	if (c->flags & PMC_OVERFLOW) {
		period = pmc_preset_to_period(value);
		if (c->slots[0].event && period && period < (1ULL << 63))
			ret = perf_event_period(c->slots[0].event, period);
	}
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

	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs && !ret; i++) {
		struct pmc_counter *c = &set->ctr[i];

		if (!c->programmed)
			values[i] = c->base;
		else
			ret = pmc_counter_value(c, cpu, &values[i]);
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
	mutex_lock(&set->lock);
	if (!c->programmed)
		*value = c->base;
	else
		ret = pmc_counter_value(c, cpu, value);
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

/*
 * Read the calling thread's own counts of an inherited thread set.  perf
 * gives every thread created after the bind its own copy of each event
 * (a child event), found by its context and read on this CPU.  The binding
 * thread's values continue from its offset; a later thread's start from the
 * presets, and a counter that overflows reads UINT64_MAX there, as on
 * Solaris.  -ENOENT when the caller has no copy of some counter.
 */
int pmc_set_read_own(struct pmc_set *set, u64 *values)
{
	bool binder = current == set->bind.task;
	unsigned long irqflags;
	unsigned int i;
	int ret = 0;

	if (set->bind.scope != PMC_SCOPE_THREAD || !set->bind.inherit)
		return -EINVAL;
	mutex_lock(&set->lock);
	for (i = 0; i < set->nctrs && !ret; i++) {
		struct pmc_counter *c = &set->ctr[i];
		struct perf_event *parent = c->slots[0].event, *own;
		u64 v = 0;

		if (!c->programmed || !parent) {
			values[i] = c->base;
			continue;
		}
		mutex_lock(&parent->child_mutex);
		local_irq_save(irqflags);
		own = pmc_own_copy(parent);
		if (own)
			v = pmc_event_own_count(own);
		local_irq_restore(irqflags);
		mutex_unlock(&parent->child_mutex);
		if (!own)
			ret = -ENOENT;
		else if (binder)
			values[i] = c->base + v;
		else
			values[i] = (c->flags & PMC_OVERFLOW) ? U64_MAX : c->preset + v;
	}
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
	int ret;

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
