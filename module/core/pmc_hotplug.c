// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat counter core: CPU hotplug of CPU-bound sets (one CPU, or every
 * CPU).  A CPU that goes down takes its events with it (their counts are
 * kept); one that comes up gets its events made again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "pmc_core.h"
#include "pmc_core_internal.h"

static enum cpuhp_state pmc_cpuhp_state;

/* The slot of a CPU-bound set that counts on cpu, or -1. */
static int pmc_cpu_slot(const struct pmc_set *set, unsigned int cpu)
{
	if (set->bind.scope == PMC_SCOPE_ALL_CPUS)
		return cpu < set->nslots ? cpu : -1;
	return cpu == set->bind.cpu ? 0 : -1;
}

/*
 * Bring a CPU-bound set's events in line with its CPUs.  The caller holds
 * set->lock.
 * The events of a CPU that went down are dead (perf took them out of the
 * CPU's context): they are released, their counts kept.  A CPU that is up
 * gets its events made again.  Never called under the hotplug lock: making
 * and releasing software events flips static keys, which takes it.
 */
void pmc_cpu_sync(struct pmc_set *set)
{
	unsigned int slot, i;

	lockdep_assert_held(&set->lock);

	for_each_set_bit(slot, set->offlined, set->nslots) {
		clear_bit(slot, set->offlined);
		for (i = 0; i < set->nctrs; i++) {
			struct pmc_counter *c = &set->ctr[i];
			struct pmc_slot *s = &c->slots[slot];

			pmc_slot_release(c, s, !pmc_slot_failed(c, s));
			s->failed = false;
		}
	}
	/* A slot of a CPU that is up and has no event: made (again). */
	for_each_set_bit(slot, set->online, set->nslots)
		for (i = 0; i < set->nctrs; i++)
			if (set->ctr[i].programmed && !set->ctr[i].slots[slot].event)
				pmc_slot_revive(&set->ctr[i], slot);
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

void pmc_set_hotplug_init(struct pmc_set *set)
{
	INIT_WORK(&set->cpuhp_work, pmc_cpuhp_work);
}

/*
 * A CPU-bound set follows its CPUs; marks the online CPUs' slots.
 *
 * The instance is added without calls: with them the kernel would run the
 * online callback for every online CPU on that CPU's cpuhp thread, a
 * wake-up and a wait per CPU under the hotplug lock (a cost per set that
 * grows with the CPUs, and a wait behind any CPU an RT task holds), where
 * only the set's own CPUs matter.  The slots are marked here instead, from
 * cpu_online_mask under cpus_read_lock(): no CPU changes state meanwhile
 * (the callbacks run under the write side), and a CPU online then has its
 * perf context up (perf's hotplug state comes before ours).  A CPU that
 * went down or came up between the registration and the lock had its
 * callback run on the set (the instance was on the list by then); it is
 * marked by the state it has now, which the callback left it in.  Events
 * are made later, out of the lock: a CPU that goes down before its event is
 * made is handled there (pmc_slot_create()), and one going down after by
 * the callback.
 */
int pmc_set_hotplug_add(struct pmc_set *set)
{
	unsigned int cpu;
	int ret, slot;

	ret = cpuhp_state_add_instance_nocalls(pmc_cpuhp_state, &set->cpuhp_node);
	if (ret)
		return ret;
	set->on_cpuhp = true;
	cpus_read_lock();
	if (set->bind.scope == PMC_SCOPE_CPU) {
		if (cpu_online(set->bind.cpu))
			set_bit(0, set->online);
	} else {
		for_each_online_cpu(cpu) {
			slot = pmc_cpu_slot(set, cpu);
			if (slot >= 0)
				set_bit(slot, set->online);
		}
	}
	cpus_read_unlock();
	return 0;
}

void pmc_set_hotplug_remove(struct pmc_set *set)
{
	if (!set->on_cpuhp)
		return;
	cpuhp_state_remove_instance_nocalls(pmc_cpuhp_state, &set->cpuhp_node);
	cancel_work_sync(&set->cpuhp_work);
	set->on_cpuhp = false;
}

int pmc_hotplug_init(void)
{
	int ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "pmcompat:online",
					  pmc_cpu_online, pmc_cpu_offline);

	if (ret < 0)
		return ret;
	pmc_cpuhp_state = ret;
	return 0;
}

void pmc_hotplug_exit(void)
{
	cpuhp_remove_multi_state(pmc_cpuhp_state);
}
