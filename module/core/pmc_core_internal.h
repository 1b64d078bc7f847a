/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmcompat counter core: what its files share, and no front-end uses (the
 * front-ends' calls are in pmc_core.h).  One concern per file:
 *
 *   pmc_core.c      sets and counters: the calls of pmc_core.h
 *   pmc_event.c     the perf events behind a counter's slots: made,
 *                   started, brought up to date (pmc_set_refresh()), read
 *   pmc_overflow.c  overflow: NMI handler, signal (irq_work), freeze (work)
 *   pmc_hotplug.c   CPU hotplug of CPU-bound sets
 *   pmc_tree.c      inherited thread sets: a thread's own counts and marks
 *   pmc_pmu.c       which PMUs count the CPUs (hybrid), perf's PMU bus
 *   pmc_perf_internals.c/.h
 *                   every read of perf's internal fields (event state,
 *                   oncpu, counts, inherited copies, pinned order, the
 *                   PMU bus) and every direct pmu->read(), each with the
 *                   rule of perf it relies on and build-time checks
 *
 * What differs between architectures is in pmc_arch.h
 * (module/arch/<arch>/), what differs between kernels in kcompat.h.
 *
 * A function whose comment says that the caller holds set->lock (or has
 * interrupts off) checks it with lockdep_assert_held() (or
 * lockdep_assert_irqs_disabled()).
 */
#ifndef PMC_CORE_INTERNAL_H
#define PMC_CORE_INTERNAL_H

#include <linux/cpuhotplug.h>
#include <linux/irq_work.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "pmc_core.h"

/* ---- sets, counters and slots (opaque to the front-ends) ---------------- */

struct pmc_slot {
	struct perf_event *event;	/* NULL: not programmed, or CPU offline */
	u64 kept;			/* counted by events since released */
	u64 snap;			/* perf count when the set froze (NMI) */
	struct perf_event *snap_event;	/* the event snap was taken of */
	bool failed;			/* could not be (re)created or scheduled */
	/*
	 * The event while perf holds its one refresh credit (a one-shot
	 * overflow counter: pmc_event_start()), NULL once an overflow used it.
	 */
	struct perf_event *armed;
};

struct pmc_counter {
	struct pmc_set *set;
	unsigned int idx;
	bool programmed;
	bool running;
	unsigned int flags;
	struct pmc_event_desc desc;
	u64 preset;			/* value it was programmed with */
	u64 base;			/* added to the sum of the slots */
	bool long_period;		/* overflow 2^63 or more events away */
	u32 min_period;			/* shortest period the PMU took, or 0 */
	u64 ovf_at;			/* long_period: event count it is due at */
	atomic64_t ovf_ip;		/* PC of the last overflow (NMI) */
	struct pmc_slot *slots;		/* see pmc_set.nslots */
};

/* A tree thread's own, disabled event that keeps its perf context its own. */
struct pmc_pin {
	struct list_head node;
	struct task_struct *task;	/* a reference is held */
	struct perf_event *event;
	bool sw;			/* of perf's software context */
};

/* Overflow notification, delivered from irq_work to the bound thread. */
struct pmc_notify {
	struct task_struct *task;	/* NULL: none */
	u64 exec_id;			/* its image: none after it execs */
	int signo;
	int si_code;
};

/*
 * The bit of pmc_set.frozen that an overflow of a PMC_FREEZE_SET counter
 * sets (in NMI context) when it took the set's snapshots, and that
 * pmc_set_freeze() clears once it gave back what was counted after them:
 * while it is set, the snapshots are valid and a freeze is pending.
 */
#define PMC_SET_FROZEN	0

/*
 * Slots: the perf events behind one counter.  ALL_CPUS sets have one per
 * possible CPU (indexed by CPU), CPU sets one, and thread sets one per CPU
 * PMU: one on most machines, two on hybrid Intel CPUs (P- and E-cores have
 * PMUs of their own, and a thread is counted on both), one per core type on
 * heterogeneous arm64.
 */
struct pmc_set {
	struct mutex lock;		/* serialises every call on the set */
	struct pmc_bind bind;
	unsigned int nctrs;
	unsigned int nslots;
	u32 slot_pmu[PMC_CPU_PMUS_MAX];	/* thread sets: the PMU type of each slot */
	struct hlist_node cpuhp_node;	/* CPU and ALL_CPUS sets */
	bool on_cpuhp;
	/*
	 * CPU-bound sets: slots whose CPU is up, and slots whose CPU went
	 * down since their events were last made.  Written by the hotplug
	 * callbacks without set->lock (atomic bitops); cpuhp_work brings the
	 * events in line, out of the hotplug lock.
	 */
	unsigned long *online;
	unsigned long *offlined;
	struct work_struct cpuhp_work;
	cpumask_var_t refresh_cpus;	/* pmc_set_refresh(), under lock */
	struct perf_event *anchor[2];	/* inherited sets: see pmc_set_anchor() */
	struct list_head pins;		/* TREE: struct pmc_pin, see pmc_set_pin_current() */

	/* Overflow bookkeeping: written in NMI context, atomics only. */
	unsigned long ovf_pending;	/* bit per counter */
	unsigned long frozen;		/* bit PMC_SET_FROZEN */
	struct pmc_notify notify;	/* set before counters are programmed */
	pmc_tick_fn tick_fn;		/* set before counters are programmed */
	void *tick_ctx;
	struct irq_work ovf_irq_work;
	struct work_struct ovf_work;	/* freezes the set (PMC_FREEZE_SET) */

	struct pmc_counter ctr[];
};

/* Sample period for a preset that overflows after 2^64 - preset events. */
static inline u64 pmc_preset_to_period(u64 preset)
{
	return -preset;		/* 0 means 2^64: never, in practice */
}

/* perf takes sample periods below 2^63. */
#define PMC_MAX_PERIOD		BIT_ULL(63)
/* The period of a counter whose overflow is 2^63 or more events away. */
#define PMC_LONG_PERIOD		BIT_ULL(62)

/* ---- pmc_pmu.c ------------------------------------------------------------ */

/*
 * The PMU types that count hardware events on this machine's CPUs, each for
 * its own CPUs, where there are several (hybrid Intel CPUs, heterogeneous
 * arm64); else one entry, PERF_TYPE_RAW: perf picks the one CPU PMU.
 * pmc_cpu_pmus() fails (-EOPNOTSUPP) with more than PMC_CPU_PMUS_MAX.
 */
struct pmc_pmus {
	unsigned int n;
	u32 type[PMC_CPU_PMUS_MAX];
};

void pmc_pmu_init(void);
int pmc_cpu_pmus(struct pmc_pmus *p);
unsigned int pmc_cpu_pmu_counters(void);
void pmc_attr_route(struct perf_event_attr *attr, u32 pmu_type);

/* ---- pmc_event.c ---------------------------------------------------------- */

int pmc_slot_cpu(const struct pmc_set *set, unsigned int i);
bool pmc_set_cpu_bound(const struct pmc_set *set);
bool pmc_set_per_pmu(const struct pmc_set *set);
bool pmc_slot_used(const struct pmc_counter *c, unsigned int i);
u64 pmc_counter_period(struct pmc_counter *c, u64 value, u64 count);
int pmc_event_period(struct pmc_counter *c, struct perf_event *event, u64 period);
struct perf_event *pmc_create_on_cpu(struct perf_event_attr *attr, int cpu,
				     struct task_struct *task,
				     perf_overflow_handler_t handler, void *ctx);
struct perf_event *pmc_event_create(struct pmc_counter *c, unsigned int i);
bool pmc_event_one_shot(const struct pmc_counter *c, const struct perf_event *event);
struct pmc_slot *pmc_event_slot(const struct pmc_counter *c,
				const struct perf_event *event);
int pmc_event_start(struct pmc_counter *c, struct perf_event *event);
bool pmc_slot_failed(const struct pmc_counter *c, const struct pmc_slot *s);
u64 pmc_event_own_count(struct perf_event *event);
u64 pmc_slot_count(const struct pmc_slot *s, const struct cpumask *fresh);
void pmc_set_refresh(struct pmc_set *set, unsigned long ctrs, int cpu);
int pmc_set_read_here(struct pmc_set *set, unsigned long ctrs, int cpu, u64 *values);
void pmc_slot_release(const struct pmc_counter *c, struct pmc_slot *s, bool keep);
int pmc_counter_value(struct pmc_counter *c, int cpu, u64 *val,
		      const struct cpumask *fresh);
void pmc_counter_set_value(struct pmc_counter *c, u64 value);
void pmc_counter_set_value_fresh(struct pmc_counter *c, u64 value,
				 const struct cpumask *fresh);
void pmc_counter_clear(struct pmc_counter *c);
void pmc_slot_revive(struct pmc_counter *c, unsigned int i);

/* ---- pmc_overflow.c ------------------------------------------------------- */

void pmc_overflow_handler(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs);
void pmc_set_overflow_init(struct pmc_set *set);
void pmc_set_overflow_drain(struct pmc_set *set);
void pmc_counter_halt(struct pmc_counter *c);
void pmc_set_freeze(struct pmc_set *set);
void pmc_set_sync_freeze_wait(struct pmc_set *set);

/*
 * A set that froze is brought to its frozen state before anyone looks at
 * it or changes it; process context, set->lock not held.
 */
static inline void pmc_set_sync_freeze(struct pmc_set *set)
{
	if (READ_ONCE(set->ovf_pending) || test_bit(PMC_SET_FROZEN, &set->frozen))
		pmc_set_sync_freeze_wait(set);
}

/* ---- pmc_hotplug.c -------------------------------------------------------- */

int pmc_hotplug_init(void);
void pmc_hotplug_exit(void);
void pmc_set_hotplug_init(struct pmc_set *set);
int pmc_set_hotplug_add(struct pmc_set *set);
void pmc_set_hotplug_remove(struct pmc_set *set);
void pmc_cpu_sync(struct pmc_set *set);

/* ---- pmc_tree.c ----------------------------------------------------------- */

void pmc_set_unpin(struct pmc_set *set, bool all);

#endif /* PMC_CORE_INTERNAL_H */
