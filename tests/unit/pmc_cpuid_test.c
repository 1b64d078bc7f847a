// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of module/arch/x86/pmc_cpuid.c: the general-purpose counter count
 * the module reads from CPUID where perf does not give it to modules
 * (perf_get_x86_pmu_capability() is exported to KVM only after 6.18).
 * Each case is a CPU's CPUID words and the count perf's driver settles on.
 */
#include "pmc_cpuid.h"
#include "kselftest_harness.h"

/* Intel Skylake client, Hyper-Threading on: leaf 0xA version 4, 4 counters. */
TEST(intel_skylake_leaf_a)
{
	struct pmc_cpuid c = { .max_leaf = 0x16, .leaf_a_eax = 0x07300404,
			       .max_ext_leaf = 0x80000008 };

	EXPECT_EQ(4U, pmc_cpuid_gp_counters(&c));
	c.leaf_a_eax = 0x07300804;	/* Hyper-Threading off: 8 */
	EXPECT_EQ(8U, pmc_cpuid_gp_counters(&c));
}

/* Sapphire Rapids: version 5, 8 counters. */
TEST(intel_sapphire_rapids_leaf_a)
{
	struct pmc_cpuid c = { .max_leaf = 0x20, .leaf_a_eax = 0x08300805 };

	EXPECT_EQ(8U, pmc_cpuid_gp_counters(&c));
}

/*
 * ArchPerfmonExt (leaf 7.1 EAX bit 8) with leaf 0x23's counter sub-leaf:
 * the bitmap decides (perf's update_pmu_cap()), even where leaf 0xA says
 * otherwise or the bitmap has holes.
 */
TEST(intel_leaf_23_bitmap)
{
	struct pmc_cpuid c = { .max_leaf = 0x23, .leaf_7_1_eax = 1u << 8,
			       .leaf_a_eax = 0x07300605, .leaf_23_0_eax = 0x3,
			       .leaf_23_1_eax = 0xff };

	EXPECT_EQ(8U, pmc_cpuid_gp_counters(&c));
	c.leaf_23_1_eax = 0xf3;
	EXPECT_EQ(6U, pmc_cpuid_gp_counters(&c));
}

/* Leaf 0x23 is read only when every condition holds; else leaf 0xA. */
TEST(intel_leaf_23_only_when_enumerated)
{
	struct pmc_cpuid c = { .max_leaf = 0x23, .leaf_7_1_eax = 0,
			       .leaf_a_eax = 0x07300605, .leaf_23_0_eax = 0x3,
			       .leaf_23_1_eax = 0xff };

	EXPECT_EQ(6U, pmc_cpuid_gp_counters(&c));	/* no ArchPerfmonExt */
	c.leaf_7_1_eax = 1u << 8;
	c.leaf_23_0_eax = 0x2;				/* no counter sub-leaf */
	EXPECT_EQ(6U, pmc_cpuid_gp_counters(&c));
	c.leaf_23_0_eax = 0x3;
	c.max_leaf = 0x20;				/* leaf 0x23 beyond the last */
	EXPECT_EQ(6U, pmc_cpuid_gp_counters(&c));
}

/*
 * No architectural performance monitoring: a VM without a virtual PMU, and
 * QEMU's TCG for every model (leaf 0xA all zeros).  CPUID does not tell.
 */
TEST(intel_without_arch_perfmon)
{
	struct pmc_cpuid c = { .max_leaf = 0x16, .leaf_a_eax = 0 };

	EXPECT_EQ(0U, pmc_cpuid_gp_counters(&c));
	c.leaf_a_eax = 0x07300400;	/* counters but version 0 */
	EXPECT_EQ(0U, pmc_cpuid_gp_counters(&c));
	c.max_leaf = 0x5;		/* no leaf 0xA at all */
	c.leaf_a_eax = 0x07300404;
	EXPECT_EQ(0U, pmc_cpuid_gp_counters(&c));
}

/* AMD K8 to family 15h without the core counter extension (TCG's -cpu max). */
TEST(amd_legacy_four)
{
	struct pmc_cpuid c = { .amd = true, .max_leaf = 0xd, .max_ext_leaf = 0x8000001a,
			       .ext_1_ecx = 0x000001f7 };

	EXPECT_EQ(4U, pmc_cpuid_gp_counters(&c));
	c.max_ext_leaf = 0x80000000;	/* no leaf 0x80000001 */
	c.ext_1_ecx = 1u << 23;
	EXPECT_EQ(4U, pmc_cpuid_gp_counters(&c));
}

/* Family 15h to Zen 3: PerfCtrExtCore, six counters. */
TEST(amd_perfctr_core_six)
{
	struct pmc_cpuid c = { .amd = true, .max_ext_leaf = 0x80000020,
			       .ext_1_ecx = (1u << 23) | 0x35c233ff };

	EXPECT_EQ(6U, pmc_cpuid_gp_counters(&c));
	/* leaf 0x80000022 words beyond the last extended leaf are ignored */
	c.ext_22_eax = 1;
	c.ext_22_ebx = 0x5;
	EXPECT_EQ(6U, pmc_cpuid_gp_counters(&c));
}

/* Zen 4 and later: PerfMonV2's NumPerfCtrCore (EBX 3:0), other bits masked. */
TEST(amd_perfmon_v2)
{
	struct pmc_cpuid c = { .amd = true, .max_ext_leaf = 0x80000028,
			       .ext_1_ecx = 1u << 23, .ext_22_eax = 0x7,
			       .ext_22_ebx = 0x00044106 };

	EXPECT_EQ(6U, pmc_cpuid_gp_counters(&c));
	c.ext_22_ebx = 0x00044105;
	EXPECT_EQ(5U, pmc_cpuid_gp_counters(&c));
	c.ext_22_eax = 0x6;		/* PerfMonV2 bit clear */
	EXPECT_EQ(6U, pmc_cpuid_gp_counters(&c));
}

/* perf reads PerfMonV2 only when PerfCtrExtCore is there. */
TEST(amd_perfmon_v2_needs_perfctr_core)
{
	struct pmc_cpuid c = { .amd = true, .max_ext_leaf = 0x80000028,
			       .ext_1_ecx = 0, .ext_22_eax = 1, .ext_22_ebx = 0x6 };

	EXPECT_EQ(4U, pmc_cpuid_gp_counters(&c));
}

/* The vendor decides the driver: AMD words on an Intel CPU mean nothing. */
TEST(vendor_picks_the_driver)
{
	struct pmc_cpuid c = { .amd = false, .max_leaf = 0xd,
			       .max_ext_leaf = 0x80000028, .ext_1_ecx = 1u << 23,
			       .ext_22_eax = 1, .ext_22_ebx = 0x6 };

	EXPECT_EQ(0U, pmc_cpuid_gp_counters(&c));
	c.amd = true;
	c.leaf_a_eax = 0x07300804;
	EXPECT_EQ(6U, pmc_cpuid_gp_counters(&c));
}

/* ---- fixed counters (Solaris counts them among its pics) ----------------- */

/* Skylake client: version 4, EDX 4:0 = 3 fixed counters. */
TEST(fixed_intel_skylake_leaf_a)
{
	struct pmc_cpuid c = { .max_leaf = 0x16, .leaf_a_eax = 0x07300404,
			       .leaf_a_edx = 0x00008603 };

	EXPECT_EQ(3U, pmc_cpuid_fixed_counters(&c));
}

/* Version 2 CPUs do not report them: perf assumes 3, but not in a VM. */
TEST(fixed_version_2_assumes_three_outside_a_vm)
{
	struct pmc_cpuid c = { .max_leaf = 0xd, .leaf_a_eax = 0x07280202,
			       .leaf_a_edx = 0 };

	EXPECT_EQ(3U, pmc_cpuid_fixed_counters(&c));
	c.hypervisor = true;
	EXPECT_EQ(0U, pmc_cpuid_fixed_counters(&c));
	c.leaf_a_edx = 2;
	EXPECT_EQ(2U, pmc_cpuid_fixed_counters(&c));
	c.hypervisor = false;
	EXPECT_EQ(3U, pmc_cpuid_fixed_counters(&c));
}

/* Version 5 (Ice Lake on): ECX is the bitmap, holes and all; EDX is not read. */
TEST(fixed_version_5_bitmap)
{
	struct pmc_cpuid c = { .max_leaf = 0x1b, .leaf_a_eax = 0x08300805,
			       .leaf_a_ecx = 0xf, .leaf_a_edx = 0x8603 };

	EXPECT_EQ(4U, pmc_cpuid_fixed_counters(&c));
	c.leaf_a_ecx = 0x5;
	EXPECT_EQ(2U, pmc_cpuid_fixed_counters(&c));
}

/* Leaf 0x23 sub-leaf 1 EBX, where enumerated, decides. */
TEST(fixed_leaf_23_bitmap)
{
	struct pmc_cpuid c = { .max_leaf = 0x23, .leaf_7_1_eax = 1u << 8,
			       .leaf_a_eax = 0x08300805, .leaf_a_ecx = 0x7,
			       .leaf_23_0_eax = 0x3, .leaf_23_1_eax = 0xff,
			       .leaf_23_1_ebx = 0x7f };

	EXPECT_EQ(7U, pmc_cpuid_fixed_counters(&c));
	c.leaf_23_0_eax = 0x2;		/* no counter sub-leaf: leaf 0xA */
	EXPECT_EQ(3U, pmc_cpuid_fixed_counters(&c));
}

/* None before version 2, without leaf 0xA, on AMD, or under TCG (no PMU). */
TEST(fixed_none)
{
	struct pmc_cpuid c = { .max_leaf = 0xd, .leaf_a_eax = 0x07280201,
			       .leaf_a_edx = 0x603 };

	EXPECT_EQ(0U, pmc_cpuid_fixed_counters(&c));
	c.max_leaf = 0x9;
	c.leaf_a_eax = 0x07300404;
	EXPECT_EQ(0U, pmc_cpuid_fixed_counters(&c));
	c.max_leaf = 0x16;
	c.amd = true;
	EXPECT_EQ(0U, pmc_cpuid_fixed_counters(&c));
	c.amd = false;
	c.leaf_a_eax = 0;
	c.leaf_a_edx = 0;
	c.hypervisor = true;
	EXPECT_EQ(0U, pmc_cpuid_fixed_counters(&c));
}

TEST_HARNESS_MAIN
