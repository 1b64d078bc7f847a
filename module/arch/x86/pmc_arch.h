/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pmcompat's portable parts need from x86-64 (module/arch/arm64/ has
 * the same names for arm64).  Only the x86-only front-ends (pctr, perfmon)
 * use the event-select helpers at the end.
 */
#ifndef PMC_ARCH_H
#define PMC_ARCH_H

#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/msr.h>
#include <asm/page.h>
#include <asm/pgtable_types.h>
#include <asm/ptrace.h>
#include <asm/tsc.h>

#include "pmc_core.h"

/* The timestamp of the legacy APIs' "cycles" and ticks: the TSC, read in order. */
static __always_inline u64 pmc_arch_timestamp(void)
{
	return rdtsc_ordered();
}

/* Its rate in kHz (0 before the TSC is calibrated). */
static inline u32 pmc_arch_timestamp_khz(void)
{
	return tsc_khz;
}

/* Were interrupts off where a counter interrupt (NMI) came in? */
static __always_inline bool pmc_arch_irqs_off(const struct pt_regs *regs)
{
	return !(regs->flags & X86_EFLAGS_IF);
}

/* Does [start, end) lie where kernel text can: the kernel image and the module area? */
static inline bool pmc_arch_kernel_text(u64 start, u64 end)
{
	return start >= __START_KERNEL_map && end <= MODULES_END;
}

/*
 * Is a PMU of perf's hardware context a CPU PMU (core/pmc_pmu.c)?  x86's
 * CPU PMU is "cpu", or on hybrid Intel CPUs one per core type, "cpu_" and
 * the type: "cpu_core", "cpu_atom", and "cpu_lowpower" (Arrow Lake-H's
 * LP E-cores, upstream after 6.12).  AMD's IBS PMUs (ibs_fetch, ibs_op)
 * take the hardware context too, and are not CPU PMUs; uncore, cstate,
 * power (RAPL), msr, intel_pt and intel_bts take none or the software one.
 */
static inline bool pmc_arch_cpu_pmu(const struct pmu *pmu)
{
	return !strcmp(pmu->name, "cpu") || !strncmp(pmu->name, "cpu_", 4);
}

/*
 * A CPU PMU's counters as its driver counts them: not asked here, CPUID
 * says (pmc_arch_counters()).
 */
static inline unsigned int pmc_arch_pmu_counters(struct pmu *pmu)
{
	return 0;
}

/*
 * The counters a set may use (general-purpose and fixed ones, as illumos
 * counts its pics): arch/x86/pmc_cpuid.c.
 */
unsigned int pmc_arch_counters(void);

/*
 * An x86 event-select (PerfEvtSel) word as the legacy APIs give it: event,
 * unit mask, edge, invert and counter mask go to perf as a raw config; the
 * USR (16) and OS (17) bits become perf's mode filters.  INT and EN are
 * perf's business and are left out.
 */
#define PMC_EVTSEL_RAW_BITS	0xff84ffffu
#define PMC_EVTSEL_USR		0x00010000u
#define PMC_EVTSEL_OS		0x00020000u

static inline void pmc_desc_from_evtsel(struct pmc_event_desc *desc, u32 sel)
{
	desc->type = PERF_TYPE_RAW;
	desc->config = sel & PMC_EVTSEL_RAW_BITS;
	desc->exclude_user = !(sel & PMC_EVTSEL_USR);
	desc->exclude_kernel = !(sel & PMC_EVTSEL_OS);
}

/*
 * x86 makes stores visible to other CPUs in program order (TSO): perf's
 * store of a stopped event's count before its state is seen in that order
 * (core/pmc_perf_internals.h: pmc_perf_settled()).
 */
#define PMC_ARCH_STORES_IN_ORDER	1

/* perf's x86 drivers take the counter interrupt as an NMI. */
#define PMC_ARCH_PMI_ALWAYS_NMI		1

#endif /* PMC_ARCH_H */
