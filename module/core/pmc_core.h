/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmcompat counter core: every front-end (pctr, perfmon, pfm, cpc) translates
 * its API into these calls.  All counter state lives here, on in-kernel perf
 * events (perf_event_create_kernel_counter), the way KVM's vPMU does.
 *
 * A set binds up to PMC_MAX_COUNTERS counters to one CPU, to every online CPU
 * (one perf event per CPU, readable per CPU or summed), or to a thread
 * (optionally inherited by the threads and children it creates later).
 *
 * A counter's value is an offset plus perf's count: writing, resetting or
 * presetting a value adjusts the offset and never recreates the event.
 *
 * Locking: every call below may sleep (perf control calls do) and must be
 * made from process context, never with cpus_read_lock() held: creating the
 * first task event flips perf's scheduling static key, which takes the
 * hotplug lock itself.  Calls on one set are serialised by the set's mutex.
 * Sets that own per-CPU events are kept current by CPU hotplug callbacks,
 * which take the set's mutex under the hotplug lock; those sets have a lock
 * class of their own, so that the order "thread set -> perf -> hotplug lock"
 * and "hotplug lock -> CPU set" never meet in one class.
 *
 * Overflows: the handler runs in NMI context on real hardware.  It records
 * per counter and per CPU with atomics only, snapshots the set's other
 * counters on that CPU (a set freezes as a whole, at the overflow) and
 * defers the signal to an irq_work and the freeze to a work item.
 */
#ifndef PMC_CORE_H
#define PMC_CORE_H

#include <linux/hashtable.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/types.h>

#define PMC_MAX_COUNTERS	8
/* CPU PMUs, one per core type: 2 on hybrid Intel CPUs, up to 3 on arm64 DynamIQ. */
#define PMC_CPU_PMUS_MAX	4

/* pmc_set_read() cpu argument: sum over all CPUs. */
#define PMC_READ_SUM		(-1)

enum pmc_scope {
	PMC_SCOPE_CPU,		/* one CPU, everything that runs there */
	PMC_SCOPE_ALL_CPUS,	/* every online CPU, one instance per CPU */
	PMC_SCOPE_THREAD,	/* one thread, wherever it runs */
	PMC_SCOPE_TREE,		/* a thread and all it creates later, summed */
};

/*
 * PMC_SCOPE_TREE counts a thread and every thread and child it creates
 * afterwards (perf's inherited events), across exec, as one sum; with cpu
 * >= 0 only while they run on that CPU.  perf itself drops a task's events
 * when it execs an image it may not be watched in (setuid and the like).
 */
struct pmc_bind {
	enum pmc_scope scope;
	int cpu;			/* PMC_SCOPE_CPU; PMC_SCOPE_TREE: -1 = any */
	struct task_struct *task;	/* THREAD and TREE (a reference is taken) */
	bool inherit;			/* PMC_SCOPE_THREAD: follow new threads and children */
};

/* What a counter counts. */
struct pmc_event_desc {
	u32 type;		/* PERF_TYPE_RAW, _HARDWARE, _HW_CACHE or _SOFTWARE */
	u64 config;		/* for RAW: the PMU's own encoding (x86: pmc_desc_from_evtsel()) */
	bool exclude_user;
	bool exclude_kernel;
	u64 tick_period;	/* PMC_TICK: events between two ticks */
};

/* pmc_counter_program() flags */
#define PMC_START	0x1	/* start counting at once (else stopped) */
#define PMC_OVERFLOW	0x2	/* overflow when the value passes 2^64 - 1 */
#define PMC_FREEZE_SET	0x4	/* an overflow stops every counter of the set */
#define PMC_TICK	0x8	/* interrupt every desc.tick_period events: pmc_set_ticks() */

/*
 * Tick callback of a set: called in NMI context (on real hardware) on the
 * CPU that counted, for every tick_period events of a PMC_TICK counter, with
 * the interrupted registers.  Per-CPU data and atomics only.
 */
typedef void (*pmc_tick_fn)(void *ctx, unsigned int idx, struct pt_regs *regs);

/* Opaque to the front-ends: see pmc_core_internal.h. */
struct pmc_set;

int pmc_core_init(void);
bool pmc_hw_pmu_present(void);
bool pmc_hybrid(void);
void pmc_core_exit(void);

struct pmc_set *pmc_set_create(const struct pmc_bind *bind, unsigned int nctrs);
void pmc_set_destroy(struct pmc_set *set);
void pmc_set_notify(struct pmc_set *set, struct task_struct *task, int signo,
		    int si_code);
void pmc_set_ticks(struct pmc_set *set, pmc_tick_fn fn, void *ctx);
int pmc_set_mark_own(struct pmc_set *set, bool on);
bool pmc_set_has_copies(struct pmc_set *set);

int pmc_counter_program(struct pmc_set *set, unsigned int idx,
			const struct pmc_event_desc *desc, u64 preset,
			unsigned int flags);
void pmc_counter_release(struct pmc_set *set, unsigned int idx);
int pmc_counter_start(struct pmc_set *set, unsigned int idx);
int pmc_counter_stop(struct pmc_set *set, unsigned int idx);
int pmc_counter_write(struct pmc_set *set, unsigned int idx, u64 value);

/* Whole sets, all or nothing: a counter that cannot start stops them all. */
#define PMC_ALL_COUNTERS	(~0UL)
int pmc_set_start(struct pmc_set *set, unsigned long mask);
unsigned long pmc_set_stop(struct pmc_set *set);
int pmc_set_restart(struct pmc_set *set, const u64 *presets);

int pmc_set_read(struct pmc_set *set, int cpu, u64 *values, u64 *tsc);
int pmc_counter_read(struct pmc_set *set, unsigned int idx, int cpu, u64 *value);
int pmc_set_read_own(struct pmc_set *set, u64 *values);
int pmc_set_read_timed(struct pmc_set *set, u64 *values, u64 *running_ns);
bool pmc_counter_failed(struct pmc_set *set, unsigned int idx);

/* ---- access control (pmc_access.c) ---------------------------------- */

#define PMC_ACCESS_CPU		0x1	/* counts a whole CPU (system-wide) */
#define PMC_ACCESS_KERNEL	0x2	/* counts kernel mode */
#define PMC_ACCESS_THREAD	0x4	/* counts a thread (perf's baseline) */

int pmc_access_check(unsigned int what, struct task_struct *target);

/* ---- arbitration (pmc_claim.c) -------------------------------------- */

/* One holder at a time (one writer, one opener): 0 or -EBUSY. */
struct pmc_claim {
	atomic_t taken;
};

int pmc_claim_try(struct pmc_claim *claim);
void pmc_claim_release(struct pmc_claim *claim);

/*
 * Solaris rule: one binding per CPU; while any CPU binding exists, new
 * per-thread bindings are refused, and the first CPU binding invalidates
 * every per-thread set bound before it.
 */
int pmc_claim_cpu(int cpu);			/* 0, -EAGAIN, -EINVAL, -ENODEV */
void pmc_claim_cpu_commit(int cpu);
void pmc_release_cpu(int cpu);
int pmc_thread_bind_begin(u64 *generation);	/* 0 or -EAGAIN */
bool pmc_thread_bind_valid(u64 generation);

/* A resource each user (real uid) has a share of: x = PMC_BUDGET_INIT(x). */
struct pmc_budget {
	struct mutex lock;		/* protects users and their use */
	DECLARE_HASHTABLE(users, 6);
};

#define PMC_BUDGET_INIT(budget) { .lock = __MUTEX_INITIALIZER((budget).lock) }

struct pmc_budget_user;
struct pmc_budget_user *pmc_budget_charge(struct pmc_budget *b, u64 amount, u64 limit);
void pmc_budget_uncharge(struct pmc_budget *b, struct pmc_budget_user *u, u64 amount);

#endif /* PMC_CORE_H */
