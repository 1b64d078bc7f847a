/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmcompat's kernel compatibility, in one place.
 *
 * What differs between the kernels pmcompat builds for (6.1 to the newest)
 * is decided when the module is built, by feature probes compiled against
 * the target kernel's headers and checked against its Module.symvers
 * (compat/probe, compat/probes/<name>.c); their answers are the PMC_HAVE_*
 * macros of the generated pmc_config.h.  Only this header reads them: the
 * rest of the module calls the helpers below.  A kernel that lacks a
 * feature with no fallback stops the build with a message naming it.
 */
#ifndef PMC_COMPAT_H
#define PMC_COMPAT_H

#include "pmc_config.h"

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>

#ifdef CONFIG_X86_64
/* CPUID helpers: <asm/cpuid/api.h> since 6.15, <asm/processor.h> before. */
#ifdef PMC_HAVE_ASM_CPUID_API_H
#include <asm/cpuid/api.h>
#else
#include <asm/processor.h>
#endif
#endif

#ifdef CONFIG_ARM64
#include <linux/bitmap.h>
#include <linux/perf/arm_pmu.h>
#endif

/* ---- a task's dumpability -------------------------------------------------- */

#if defined(PMC_HAVE_TASK_EXEC_STATE)
#include <linux/sched/exec_state.h>

/*
 * The dumpability part of __ptrace_may_access(): the target is dumpable by
 * its owner, or the caller has CAP_SYS_PTRACE in the user namespace that
 * goes with the dumpability.  Here both live in task->exec_state; the
 * caller holds the target's mm (mm_struct's home of them before).
 */
static inline bool pmc_task_dumpable(struct task_struct *task, struct mm_struct *mm)
{
	const struct task_exec_state *es;
	bool ok;

	rcu_read_lock();
	es = rcu_dereference(task->exec_state);
	ok = es && (READ_ONCE(es->dumpable) == TASK_DUMPABLE_OWNER ||
		    ns_capable(es->user_ns, CAP_SYS_PTRACE));
	rcu_read_unlock();
	return ok;
}
#elif defined(PMC_HAVE_MM_DUMPABLE)
#include <linux/sched/coredump.h>

/* The same, on kernels that keep both in the mm. */
static inline bool pmc_task_dumpable(struct task_struct *task, struct mm_struct *mm)
{
	return get_dumpable(mm) == SUID_DUMP_USER || ns_capable(mm->user_ns, CAP_SYS_PTRACE);
}
#else
/* No way to tell whether a process may be read: see generated/pmc_config.h.log */
#error "pmcompat: this kernel has neither task->exec_state nor get_dumpable(mm)"
#endif

/* ---- perf ------------------------------------------------------------------ */

/*
 * May the caller count kernel mode?  perf's own answer where perf exports it
 * (6.12 on): perf_event_paranoid <= 1 or CAP_PERFMON, then the perf LSM
 * hook.  Elsewhere CAP_PERFMON (or CAP_SYS_ADMIN): a module cannot read
 * the paranoid level there.
 */
static inline bool pmc_perf_allows_kernel(void)
{
#ifdef PMC_HAVE_PERF_ALLOW_KERNEL
	return !perf_allow_kernel();
#else
	return perfmon_capable();
#endif
}

/*
 * perf's count of general-purpose counters (and in *fixed, of fixed ones),
 * where perf gives it to modules (not after 6.18: exported to KVM only).
 * 0 when it does not, or has no x86 PMU; the caller then decodes CPUID as
 * perf does (pmc_cpuid.c).
 */
static inline unsigned int pmc_perf_gp_counters(unsigned int *fixed)
{
#ifdef PMC_HAVE_PERF_GET_X86_PMU_CAPABILITY
	struct x86_pmu_capability cap;

	perf_get_x86_pmu_capability(&cap);
	*fixed = cap.num_counters_fixed > 0 ? cap.num_counters_fixed : 0;
	return cap.num_counters_gp > 0 ? cap.num_counters_gp : 0;
#else
	*fixed = 0;
	return 0;
#endif
}

/*
 * The counters of a CPU PMU, as its driver counts them, or 0 where a module
 * cannot know.  On arm64 every CPU PMU (a PMU of perf's hardware context,
 * core/pmc_pmu.c) is an arm_pmu, whose count is the event counters plus the
 * cycle counter (and, with FEAT_PMUv3_ICNTR, the instruction counter):
 * num_events up to 6.10, the cntr_mask bitmap of the counters from 6.11 on.
 */
#ifdef CONFIG_ARM64
static inline unsigned int pmc_perf_pmu_counters(struct pmu *pmu)
{
	struct arm_pmu *armpmu = to_arm_pmu(pmu);

#if defined(PMC_HAVE_ARM_PMU_CNTR_MASK)
	return bitmap_weight(armpmu->cntr_mask, ARMPMU_MAX_HWEVENTS);
#elif defined(PMC_HAVE_ARM_PMU_NUM_EVENTS)
	return armpmu->num_events > 0 ? armpmu->num_events : 0;
#else
/* No way to count an arm_pmu's counters: see generated/pmc_config.h.log */
#error "pmcompat: this kernel's struct arm_pmu has neither cntr_mask nor num_events"
#endif
}
#endif

#endif /* PMC_COMPAT_H */
