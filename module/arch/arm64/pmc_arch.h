/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pmcompat's portable parts need from arm64 (module/arch/x86/ has the
 * same names for x86-64).  The x86-only front-ends (pctr, perfmon) are not
 * built here.
 */
#ifndef PMC_ARCH_H
#define PMC_ARCH_H

#include <linux/perf_event.h>
#include <linux/types.h>
#include <asm/arch_timer.h>
#include <asm/memory.h>
#include <asm/pgtable.h>
#include <asm/ptrace.h>
#include <asm/timex.h>

/*
 * The timestamp of the legacy APIs' "cycles" and ticks: the generic timer's
 * virtual counter (CNTVCT_EL0), as get_cycles() reads it: through the
 * timer driver's exported reader, which applies the errata workarounds of
 * the CPUs that need them, with an ISB before the read as rdtsc_ordered()
 * orders the TSC.  It runs at a fixed rate on every CPU.
 */
static __always_inline u64 pmc_arch_timestamp(void)
{
	return get_cycles();
}

/*
 * Its rate in kHz: CNTFRQ_EL0, which firmware sets to the counter's rate
 * (the timer driver takes a device tree's "clock-frequency" instead where
 * firmware got it wrong; that rate is not exported).
 */
static inline u32 pmc_arch_timestamp_khz(void)
{
	return arch_timer_get_cntfrq() / 1000;
}

/*
 * Were interrupts off where a counter interrupt came in?  PSTATE.I, or the
 * GIC priority mask where the kernel masks interrupts that way (pseudo-NMI):
 * interrupts_enabled() looks at both.
 */
static __always_inline bool pmc_arch_irqs_off(const struct pt_regs *regs)
{
	return !interrupts_enabled(regs);
}

/*
 * Does [start, end) lie where kernel text can?  The kernel image sits at
 * KIMAGE_VADDR (the end of the module area) plus the KASLR offset, inside
 * the vmalloc area; modules are in the module area or, with PLTs, in the
 * vmalloc area within reach of the image.  Both lie between MODULES_VADDR
 * (the end of the linear map) and VMALLOC_END on every kernel from 6.1 on;
 * the linear map below and the vmemmap above hold no text.
 */
static inline bool pmc_arch_kernel_text(u64 start, u64 end)
{
	return start >= MODULES_VADDR && end <= VMALLOC_END;
}

/*
 * The CPU PMUs are arm_pmu instances ("armv8_pmuv3", "armv8_pmuv3_0",
 * "armv8_cortex_a57", ...; one per core type on a heterogeneous system), found
 * on perf's PMU bus by their context: the CPU PMUs are the ones of perf's
 * hardware context (core/pmc_pmu.c), all of them (SPE and the trace PMUs
 * take the software context, uncore PMUs none).
 */
static inline bool pmc_arch_cpu_pmu(const struct pmu *pmu)
{
	return true;
}

/* An arm_pmu's counters, as its driver counts them (kcompat.h). */
#define pmc_arch_pmu_counters(pmu)	pmc_perf_pmu_counters(pmu)

unsigned int pmc_cpu_pmu_counters(void);

/*
 * The counters a set may use: the real driver's count (the event counters
 * and the cycle counter, which counts only cycles), the smallest over the
 * core types.  0 when there is no CPU PMU.
 */
static inline unsigned int pmc_arch_counters(void)
{
	return pmc_cpu_pmu_counters();
}

/*
 * arm64 may make stores visible to other CPUs out of program order: an
 * inactive event's count is read here without perf's lock only where the
 * reader is ordered after perf's store (core/pmc_perf_internals.h:
 * pmc_perf_settled()).
 */
#define PMC_ARCH_STORES_IN_ORDER	0

/*
 * The arm_pmu driver takes the counter interrupt as an NMI only where the
 * kernel has pseudo-NMIs (GICv3 priority masking, irqchip.gicv3_pseudo_nmi=1);
 * else it is an ordinary interrupt, taken only where interrupts are on.
 */
#define PMC_ARCH_PMI_ALWAYS_NMI		0

#endif /* PMC_ARCH_H */
