// SPDX-License-Identifier: GPL-2.0
/*
 * The general-purpose counters of an x86 CPU, from CPUID, decided as perf's
 * x86 drivers decide them (facts from the Intel SDM's leaves 0xA and 0x23,
 * the AMD APM's 0x80000001 and 0x80000022, and perf's amd/core.c and
 * intel/core.c):
 *
 * - AMD and Hygon: 4 counters (K7 to family 15h without the core counter
 *   extension); 6 with PerfCtrExtCore (0x80000001 ECX bit 23); with it and
 *   PerfMonV2 (0x80000022 EAX bit 0), NumPerfCtrCore (0x80000022 EBX 3:0).
 *   perf looks at PerfMonV2 only when PerfCtrExtCore is there.
 * - Intel and the others that follow its architectural performance
 *   monitoring (Zhaoxin, Centaur): the counter bitmap of leaf 0x23
 *   sub-leaf 1 where the CPU has ArchPerfmonExt (leaf 7 sub-leaf 1 EAX bit
 *   8) and that sub-leaf (leaf 0x23 EAX bit 0); else leaf 0xA EAX 15:8,
 *   when leaf 0xA's version (EAX 7:0) is not 0.  On a hybrid CPU each core
 *   type answers for itself, on one of its own CPUs.
 *
 * 0 means CPUID does not tell: no architectural performance monitoring (a
 * VM without a virtual PMU, QEMU's TCG), which the caller decides on.
 */
#ifdef __KERNEL__
#include <linux/cpu.h>
#include <linux/smp.h>
#include <asm/cpufeature.h>

#include "kcompat.h"
#include "pmc_arch.h"
#include "pmc_core.h"
#endif

#include "pmc_cpuid.h"

#define PMC_AMD_COUNTERS	4	/* K7 to family 15h */
#define PMC_AMD_COUNTERS_CORE	6	/* PerfCtrExtCore */

#define PMC_EXT_PERFCTR_CORE	BIT(23)	/* 0x80000001 ECX */
#define PMC_EXT_PERFMON_V2	BIT(0)	/* 0x80000022 EAX */
#define PMC_ARCH_PERFMON_EXT	BIT(8)	/* leaf 7.1 EAX */
#define PMC_LEAF23_COUNTERS	BIT(0)	/* leaf 0x23.0 EAX */

static unsigned int pmc_popcount32(u32 v)
{
	unsigned int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

unsigned int pmc_cpuid_gp_counters(const struct pmc_cpuid *c)
{
	if (c->amd) {
		if (c->max_ext_leaf < 0x80000001 || !(c->ext_1_ecx & PMC_EXT_PERFCTR_CORE))
			return PMC_AMD_COUNTERS;
		if (c->max_ext_leaf >= 0x80000022 && (c->ext_22_eax & PMC_EXT_PERFMON_V2))
			return c->ext_22_ebx & 0xf;
		return PMC_AMD_COUNTERS_CORE;
	}
	if (c->max_leaf < 0xa || !(c->leaf_a_eax & 0xff))
		return 0;
	if (c->max_leaf >= 0x23 && (c->leaf_7_1_eax & PMC_ARCH_PERFMON_EXT) &&
	    (c->leaf_23_0_eax & PMC_LEAF23_COUNTERS))
		return pmc_popcount32(c->leaf_23_1_eax);
	return (c->leaf_a_eax >> 8) & 0xff;
}

/*
 * The fixed-function counters (instructions, core cycles, reference cycles,
 * and on newer CPUs more), as perf's intel/core.c counts them: leaf 0x23's
 * fixed bitmap where the CPU enumerates it; for versions 2 to 4 of leaf
 * 0xA, EDX 4:0, but at least 3 outside a VM (version 2 CPUs do not report
 * them); from version 5, leaf 0xA ECX's bitmap.  None on AMD and Hygon
 * (their core PMU has general-purpose counters only) or before version 2.
 */
unsigned int pmc_cpuid_fixed_counters(const struct pmc_cpuid *c)
{
	unsigned int version, n;

	if (c->amd || c->max_leaf < 0xa)
		return 0;
	version = c->leaf_a_eax & 0xff;
	if (version < 2)
		return 0;
	if (c->max_leaf >= 0x23 && (c->leaf_7_1_eax & PMC_ARCH_PERFMON_EXT) &&
	    (c->leaf_23_0_eax & PMC_LEAF23_COUNTERS))
		return pmc_popcount32(c->leaf_23_1_ebx);
	if (version >= 5)
		return pmc_popcount32(c->leaf_a_ecx);
	n = c->leaf_a_edx & 0x1f;
	return !c->hypervisor && n < 3 ? 3 : n;
}

#ifdef __KERNEL__
void pmc_cpuid_read(struct pmc_cpuid *c)
{
	unsigned int eax, ebx, ecx, edx;

	memset(c, 0, sizeof(*c));
	c->amd = boot_cpu_data.x86_vendor == X86_VENDOR_AMD ||
		 boot_cpu_data.x86_vendor == X86_VENDOR_HYGON;
	c->hypervisor = boot_cpu_has(X86_FEATURE_HYPERVISOR);
	c->max_leaf = cpuid_eax(0);
	if (c->max_leaf >= 7) {
		cpuid_count(7, 1, &eax, &ebx, &ecx, &edx);
		c->leaf_7_1_eax = eax;
	}
	if (c->max_leaf >= 0xa) {
		cpuid(0xa, &eax, &ebx, &ecx, &edx);
		c->leaf_a_eax = eax;
		c->leaf_a_ecx = ecx;
		c->leaf_a_edx = edx;
	}
	if (c->max_leaf >= 0x23) {
		cpuid_count(0x23, 0, &eax, &ebx, &ecx, &edx);
		c->leaf_23_0_eax = eax;
		cpuid_count(0x23, 1, &eax, &ebx, &ecx, &edx);
		c->leaf_23_1_eax = eax;
		c->leaf_23_1_ebx = ebx;
	}
	c->max_ext_leaf = cpuid_eax(0x80000000);
	if (c->max_ext_leaf >= 0x80000001)
		c->ext_1_ecx = cpuid_ecx(0x80000001);
	if (c->max_ext_leaf >= 0x80000022) {
		cpuid_count(0x80000022, 0, &eax, &ebx, &ecx, &edx);
		c->ext_22_eax = eax;
		c->ext_22_ebx = ebx;
	}
}

/* CPUID's count on the calling CPU: its core type's, on a hybrid CPU. */
struct pmc_cpuid_min {
	unsigned int gp, fixed;		/* the smallest over the CPUs */
};

static void pmc_cpuid_cpu_counters(void *min)
{
	struct pmc_cpuid_min *m = min;
	struct pmc_cpuid c;
	unsigned int n;

	pmc_cpuid_read(&c);
	n = pmc_cpuid_gp_counters(&c);
	if (n && n < m->gp)
		m->gp = n;
	m->fixed = min(m->fixed, pmc_cpuid_fixed_counters(&c));
}

/*
 * The counters a set may use, general-purpose and fixed ones, as Solaris
 * counts its pics (illumos' core_pcbe: general-purpose plus fixed-function):
 * perf's count where perf gives it to modules and the CPU is not hybrid
 * (perf's answer does not cover hybrid CPUs: it WARNs there); else CPUID's,
 * decoded as perf does, on every CPU, and the smallest (a thread's set must
 * fit on every core type).  4 general-purpose ones and no fixed one when
 * nothing says (no architectural PMU: a VM without one).
 */
unsigned int pmc_arch_counters(void)
{
	struct pmc_cpuid_min m = { 0, 0 };
	unsigned int cpu;

	if (!boot_cpu_has(X86_FEATURE_HYBRID_CPU) && !pmc_hybrid())
		m.gp = pmc_perf_gp_counters(&m.fixed);
	if (!m.gp) {
		m.gp = UINT_MAX;
		m.fixed = UINT_MAX;
		cpus_read_lock();
		for_each_online_cpu(cpu)
			smp_call_function_single(cpu, pmc_cpuid_cpu_counters, &m, 1);
		cpus_read_unlock();
		if (m.fixed == UINT_MAX)
			m.fixed = 0;
	}
	if (!m.gp || m.gp == UINT_MAX) {
		m.gp = 4;
		m.fixed = 0;
	}
	return m.gp + m.fixed;
}
#endif
