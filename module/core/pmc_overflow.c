// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core: overflow delivery.  NMI context first (record per
 * counter, snapshot the set), then irq_work (the signal to the thread bound
 * at bind time), then a work item in process context (the set's freeze).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/perf_event.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/workqueue.h>

#include "pmc_core.h"
#include "pmc_core_internal.h"
#include "pmc_perf_internals.h"

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
 * NMI context, or a software event's site with interrupts off (see
 * pmc_overflow_handler()): freeze the set's values at this instant.  Each
 * event's count is brought up to date if it is active here (as
 * perf_event_read_local() does) and remembered; the work item that disables
 * the events later moves each counter's offset back by what was counted
 * after this point.  Events are freed after an RCU grace period, which NMIs
 * and interrupts-off sections hold off.  Only sets of one
 * CPU or one thread freeze (cpc's), so an event that is not active here is
 * this CPU's or, on a hybrid CPU, the interrupted thread's on another core
 * type's PMU, whose count perf stored before the thread came to this CPU:
 * ordered on every architecture (see pmc_perf_settled()).
 */
static void pmc_set_snapshot(struct pmc_set *set)
{
	int cpu = smp_processor_id();
	unsigned int i, j;

	lockdep_assert_irqs_disabled();
	for (i = 0; i < set->nctrs; i++) {
		struct pmc_counter *c = &set->ctr[i];

		for (j = 0; j < set->nslots; j++) {
			struct perf_event *event = READ_ONCE(c->slots[j].event);

			if (!event)
				continue;
			pmc_perf_update_here(event, cpu);
			c->slots[j].snap = pmc_perf_count(event);
			c->slots[j].snap_event = event;
		}
	}
}

void pmc_overflow_handler(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs)
{
	struct pmc_counter *c = event->overflow_handler_context;
	struct pmc_set *set = c->set;
	struct pmc_slot *s;
	unsigned long flags;

	if (c->flags & PMC_TICK) {
		set->tick_fn(set->tick_ctx, c->idx, regs);
		return;
	}
	/*
	 * perf used the one-shot's refresh credit (see pmc_event_one_shot()).
	 * Only a freezing counter's own (not inherited) events are ever armed:
	 * no other overflow searches the slots.
	 */
	if ((c->flags & PMC_FREEZE_SET) && !event->attr.inherit) {
		s = pmc_event_slot(c, event);
		if (s && READ_ONCE(s->armed) == event)
			WRITE_ONCE(s->armed, NULL);
	}
	/* Of a long period's steps, only the one that ends it counts. */
	if (READ_ONCE(c->long_period) &&
	    pmc_perf_count(event) < READ_ONCE(c->ovf_at))
		return;
	atomic64_set(&c->ovf_ip, pmc_overflow_pc(c, regs));
	if ((c->flags & PMC_FREEZE_SET) && !test_and_set_bit(PMC_SET_FROZEN, &set->frozen)) {
		/*
		 * A software counter's overflow comes from its event site: the
		 * snapshot reads the set's hardware events as
		 * perf_event_read_local() does, interrupts off, so that no
		 * cross-call schedules one out between the check and the read.
		 * (Kernels since a 2025 stable fix call software overflows
		 * with interrupts off anyway; older ones from page faults
		 * with them on.)
		 */
		local_irq_save(flags);
		pmc_set_snapshot(set);
		local_irq_restore(flags);
	}
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
	if (test_bit(PMC_SET_FROZEN, &set->frozen))
		schedule_work(&set->ovf_work);
}

/*
 * Stop a running counter; its value stays as it was when it stopped.  The
 * caller holds the set's lock.
 */
void pmc_counter_halt(struct pmc_counter *c)
{
	unsigned int i;

	lockdep_assert_held(&c->set->lock);
	if (!c->running)
		return;
	for (i = 0; i < c->set->nslots; i++)
		if (c->slots[i].event)
			perf_event_disable(c->slots[i].event);
	c->running = false;
}

/*
 * Process context: stop every counter of a set that froze at an overflow,
 * and give back what its events counted after the overflow's snapshot.
 * The caller holds set->lock.  The work item does it, or whoever takes the lock first
 * and must see the frozen values (a restart).
 */
void pmc_set_freeze(struct pmc_set *set)
{
	unsigned int i, j;

	lockdep_assert_held(&set->lock);
	if (!test_bit(PMC_SET_FROZEN, &set->frozen))
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
				c->base -= pmc_perf_count(s->event) - s->snap;
			s->snap_event = NULL;
		}
	}
	clear_bit(PMC_SET_FROZEN, &set->frozen);
}

static void pmc_ovf_work(struct work_struct *work)
{
	struct pmc_set *set = container_of(work, struct pmc_set, ovf_work);

	mutex_lock(&set->lock);
	pmc_set_freeze(set);
	mutex_unlock(&set->lock);
}

/* The slow part of pmc_set_sync_freeze(): the set froze, or may. */
void pmc_set_sync_freeze_wait(struct pmc_set *set)
{
	irq_work_sync(&set->ovf_irq_work);
	flush_work(&set->ovf_work);
}

/* Before the set's counters are programmed. */
void pmc_set_overflow_init(struct pmc_set *set)
{
	init_irq_work(&set->ovf_irq_work, pmc_ovf_irq_work);
	INIT_WORK(&set->ovf_work, pmc_ovf_work);
}

/* Once no event of the set can overflow: drain what is in flight. */
void pmc_set_overflow_drain(struct pmc_set *set)
{
	irq_work_sync(&set->ovf_irq_work);
	cancel_work_sync(&set->ovf_work);
}
