/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The general-purpose and fixed counters of an x86 CPU, from CPUID, as
 * perf's x86 drivers count them.  The decoders are pure (built into the
 * module and into the host unit test tests/unit/pmc_cpuid_test.c);
 * pmc_cpuid_read() fills the leaves in on the calling CPU (module only).
 */
#ifndef PMC_CPUID_H
#define PMC_CPUID_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <linux/types.h>
typedef __u32 u32;
#define BIT(n)	(1UL << (n))
#endif

/* The CPUID words the count depends on (0 where a leaf is absent). */
struct pmc_cpuid {
	bool amd;		/* AMD or Hygon: perf's AMD driver */
	bool hypervisor;	/* leaf 1 ECX bit 31: running in a VM */
	u32 max_leaf;		/* leaf 0 EAX */
	u32 leaf_7_1_eax;	/* bit 8: ArchPerfmonExt (leaf 0x23) */
	u32 leaf_a_eax;		/* 7:0 version, 15:8 counters */
	u32 leaf_a_ecx;		/* version 5 on: the fixed counter bitmap */
	u32 leaf_a_edx;		/* 4:0 fixed counters (versions 2 to 4) */
	u32 leaf_23_0_eax;	/* bit 0: sub-leaf 1 has the counter bitmaps */
	u32 leaf_23_1_eax;	/* the general-purpose counter bitmap */
	u32 leaf_23_1_ebx;	/* the fixed counter bitmap */
	u32 max_ext_leaf;	/* leaf 0x80000000 EAX */
	u32 ext_1_ecx;		/* leaf 0x80000001 ECX bit 23: PerfCtrExtCore */
	u32 ext_22_eax;		/* leaf 0x80000022 EAX bit 0: PerfMonV2 */
	u32 ext_22_ebx;		/* 3:0 NumPerfCtrCore */
};

unsigned int pmc_cpuid_gp_counters(const struct pmc_cpuid *c);
unsigned int pmc_cpuid_fixed_counters(const struct pmc_cpuid *c);

#ifdef __KERNEL__
void pmc_cpuid_read(struct pmc_cpuid *c);
#endif

#endif /* PMC_CPUID_H */
