// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of tools/common/pmc_x86cpu.h, the user-space tools' one
 * CPUID reading and libpfm4 core-PMU choice (issue 22 L8): the display
 * family and model of known processors, the vendor string against
 * <cpuid.h>, and that libcpc (cpcev_cpu_pfm()) and pctr(1) get the PMU of
 * the helper for Intel and AMD tables (LIBPFM_FORCE_PMU).
 */
#include <cpuid.h>
#include <stdlib.h>
#include <string.h>

#define PMC_X86CPU_PFM
#include "pmc_x86cpu.h"
#include "events.h"
#include "kselftest_harness.h"

TEST(display_family_and_model)
{
	static const struct {
		uint32_t eax1;
		unsigned int family, model, stepping;
	} t[] = {
		{ 0x000506e3, 6, 0x5e, 3 },	/* Skylake client */
		{ 0x000a0671, 6, 0xa7, 1 },	/* Rocket Lake */
		{ 0x00000f29, 0xf, 2, 9 },	/* Pentium 4 */
		{ 0x00800f12, 0x17, 1, 2 },	/* Zen 1 */
		{ 0x00a20f10, 0x19, 0x21, 0 },	/* Zen 3 */
		{ 0x00000633, 6, 3, 3 },	/* Pentium II */
		{ 0x00000543, 5, 4, 3 },	/* Pentium MMX: no extended model */
	};
	unsigned int f, m, s;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		pmc_cpuid_fms(t[i].eax1, &f, &m, &s);
		EXPECT_EQ(t[i].family, f) TH_LOG("%#x", t[i].eax1);
		EXPECT_EQ(t[i].model, m) TH_LOG("%#x", t[i].eax1);
		EXPECT_EQ(t[i].stepping, s) TH_LOG("%#x", t[i].eax1);
	}
}

TEST(vendor_and_leaves_as_cpuid_h)
{
	unsigned int a, b, c, d, max;
	struct pmc_cpuid_regs r;
	char v[13], w[13];

	ASSERT_NE(0, __get_cpuid(0, &max, &b, &c, &d));
	memcpy(w, &b, 4);
	memcpy(w + 4, &d, 4);
	memcpy(w + 8, &c, 4);
	w[12] = '\0';
	pmc_cpuid_vendor(v);
	EXPECT_STREQ(w, v);
	ASSERT_EQ(0, pmc_cpuid(1, &r));
	__get_cpuid(1, &a, &b, &c, &d);
	EXPECT_EQ(a, r.eax);
	/* a leaf beyond the maximum: -1 and zeroes */
	EXPECT_EQ(-1, pmc_cpuid(max + 1, &r));
	EXPECT_EQ(0U, r.eax | r.ebx | r.ecx | r.edx);
}

/* The core PMU that libpfm4 forced to pmu gives libcpc and the helper. */
static void same_pmu(struct __test_metadata *_metadata, const char *vendor,
		     uint32_t eax1, const char *pmu)
{
	struct cpcev_cpu c;
	const char *name = NULL;
	pfm_pmu_t p;

	pfm_terminate();
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	cpcev_cpu_init(&c, vendor, eax1, 0, 0);
	ASSERT_EQ(1, cpcev_cpu_pfm(&c));
	p = pmc_pfm_core_pmu(c.vendor != CPCEV_INTEL, &name);
	EXPECT_EQ(p, c.pfm_pmu);
	ASSERT_NE(NULL, name);
	EXPECT_STREQ(pmu, name);
	EXPECT_STREQ(pmu, c.pfm_name);
	/* the other vendor's tables are not chosen */
	name = NULL;
	p = pmc_pfm_core_pmu(c.vendor == CPCEV_INTEL, &name);
	if (p != PFM_PMU_NONE)
		EXPECT_EQ(c.vendor == CPCEV_INTEL, !strncmp(name, "amd64", 5))
			TH_LOG("%s", name);
}

TEST(libcpc_takes_the_helpers_pmu)
{
	same_pmu(_metadata, "GenuineIntel", 0x000506e3, "skl");
	same_pmu(_metadata, "AuthenticAMD", 0x00800f12, "amd64_fam17h");
}

TEST_HARNESS_MAIN
