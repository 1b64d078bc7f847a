// SPDX-License-Identifier: GPL-2.0
/*
 * fakepmu: who else holds the hardware (see the header comment of
 * fakepmu_main.c).
 *
 * - watchdog=1: what the hardlockup detector makes on every online CPU, a
 *   pinned, enabled kernel CPU-cycles counter with a long period, made when
 *   a CPU comes online and freed when it goes (a cpuhp state of its own, as
 *   the detector has), all freed at unload.  The PMU places it as it places
 *   any cycles event: fixed counter 1 in the Intel model, a general-purpose
 *   counter in the AMD one.
 *
 * - The hardware reservation: the first event of the test PMU reserves "the
 *   hardware" and the last one's destroy releases it, as
 *   x86_reserve_hardware() and x86_release_hardware() do (6.12): a global
 *   mutex, an atomic reference count taken without it when not zero,
 *   GFP_KERNEL per-CPU buffers (the DS buffers), a synchronous call on every
 *   possible CPU that programs them (wrmsr_on_cpu; offline CPUs fail and are
 *   ignored), and at release the same calls plus an IPI to every online CPU
 *   (the TLB flush of the buffers' mapping).  So lockdep sees these chains
 *   wherever events are made or freed, CPU-hotplug callbacks included.
 *   Debugfs "reservations" counts the reservations made (reference count
 *   from 0 to 1).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "fakepmu.h"

static bool watchdog;
module_param(watchdog, bool, 0444);
MODULE_PARM_DESC(watchdog, "hold a pinned CPU-cycles counter on every online CPU, as the NMI watchdog does");

/* The hardlockup detector's period: 10 s of a 3 GHz clock. */
#define FAKEPMU_WATCHDOG_PERIOD	(30ULL * 1000 * 1000 * 1000)
/* The size of one CPU's debug store buffer. */
#define FAKEPMU_DS_SIZE		PAGE_SIZE

static DEFINE_PER_CPU(struct perf_event *, fakepmu_watchdog_event);
static enum cpuhp_state fakepmu_watchdog_state;

static void fakepmu_watchdog_overflow(struct perf_event *event,
				      struct perf_sample_data *data,
				      struct pt_regs *regs)
{
}

static int fakepmu_watchdog_online(unsigned int cpu)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_HARDWARE,
		.config		= PERF_COUNT_HW_CPU_CYCLES,
		.size		= sizeof(attr),
		.pinned		= 1,
		.sample_period	= FAKEPMU_WATCHDOG_PERIOD,
	};
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr, cpu, NULL,
						 fakepmu_watchdog_overflow, NULL);
	if (IS_ERR(event)) {
		pr_err("no watchdog counter on CPU %u (%ld)\n", cpu, PTR_ERR(event));
		return PTR_ERR(event);
	}
	/*
	 * The event holds a reference to this module, which would keep it
	 * from unloading: drop it; the offline callback (at the latest at
	 * unload) takes it back before the event goes.
	 */
	module_put(THIS_MODULE);
	per_cpu(fakepmu_watchdog_event, cpu) = event;
	return 0;
}

static int fakepmu_watchdog_offline(unsigned int cpu)
{
	struct perf_event *event = per_cpu(fakepmu_watchdog_event, cpu);

	per_cpu(fakepmu_watchdog_event, cpu) = NULL;
	if (event) {
		__module_get(THIS_MODULE);
		perf_event_release_kernel(event);
	}
	return 0;
}

/* ---- the hardware reservation ------------------------------------------ */

static DEFINE_MUTEX(fakepmu_reserve_mutex);
static atomic_t fakepmu_refcount = ATOMIC_INIT(0);
static atomic_t fakepmu_reservations = ATOMIC_INIT(0);
/* Under fakepmu_reserve_mutex while reserved. */
static DEFINE_PER_CPU(void *, fakepmu_ds);
static DEFINE_PER_CPU(void *, fakepmu_ds_programmed);

static void fakepmu_ds_program(void *arg)
{
	/* In a function call IPI: interrupts off. */
	*this_cpu_ptr(&fakepmu_ds_programmed) = arg ? *this_cpu_ptr(&fakepmu_ds) : NULL;
}

static void fakepmu_flush(void *arg)
{
}

/* Under fakepmu_reserve_mutex. */
static void fakepmu_release_ds(void)
{
	unsigned int cpu;

	/* Offline CPUs fail here, as wrmsr_on_cpu() does; ignored. */
	for_each_possible_cpu(cpu)
		smp_call_function_single(cpu, fakepmu_ds_program, NULL, 1);
	on_each_cpu(fakepmu_flush, NULL, 1);
	for_each_possible_cpu(cpu) {
		kfree(per_cpu(fakepmu_ds, cpu));
		per_cpu(fakepmu_ds, cpu) = NULL;
		per_cpu(fakepmu_ds_programmed, cpu) = NULL;
	}
}

/* Under fakepmu_reserve_mutex. */
static int fakepmu_reserve_ds(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu(fakepmu_ds, cpu) = kzalloc_node(FAKEPMU_DS_SIZE, GFP_KERNEL,
							cpu_to_node(cpu));
		if (!per_cpu(fakepmu_ds, cpu)) {
			fakepmu_release_ds();
			return -ENOMEM;
		}
	}
	for_each_possible_cpu(cpu)
		smp_call_function_single(cpu, fakepmu_ds_program, (void *)1, 1);
	return 0;
}

static void fakepmu_release(struct perf_event *event)
{
	if (atomic_dec_and_mutex_lock(&fakepmu_refcount, &fakepmu_reserve_mutex)) {
		fakepmu_release_ds();
		mutex_unlock(&fakepmu_reserve_mutex);
	}
}

/* Event init: take the reservation; the event's destroy drops it. */
int fakepmu_reserve(struct perf_event *event)
{
	int ret = 0;

	if (!atomic_inc_not_zero(&fakepmu_refcount)) {
		mutex_lock(&fakepmu_reserve_mutex);
		if (!atomic_read(&fakepmu_refcount)) {
			ret = fakepmu_reserve_ds();
			if (!ret)
				atomic_inc(&fakepmu_reservations);
		}
		if (!ret)
			atomic_inc(&fakepmu_refcount);
		mutex_unlock(&fakepmu_reserve_mutex);
	}
	if (!ret)
		event->destroy = fakepmu_release;
	return ret;
}

int fakepmu_budget_init(struct dentry *dir)
{
	int ret;

	debugfs_create_atomic_t("reservations", 0400, dir, &fakepmu_reservations);
	if (!watchdog)
		return 0;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "fakepmu/watchdog:online",
				fakepmu_watchdog_online, fakepmu_watchdog_offline);
	if (ret < 0)
		return ret;
	fakepmu_watchdog_state = ret;
	return 0;
}

void fakepmu_budget_exit(void)
{
	if (fakepmu_watchdog_state)
		cpuhp_remove_state(fakepmu_watchdog_state);
	fakepmu_watchdog_state = 0;
}
