/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The user-space tools' one reading of CPUID (libcpc, libpmcompat-bsd's
 * sysctl(3), pctr(1) through it) and one choice of libpfm4's core PMU
 * (libcpc's event tables, pctr(1)'s function list).  Header-only: each
 * library keeps its exports to itself.  The kernel module decodes CPUID
 * on its own (module/arch/x86/pmc_cpuid.c), where no user-space code may go.
 */
#ifndef PMC_X86CPU_H
#define PMC_X86CPU_H

#include <cpuid.h>
#include <stdint.h>
#include <string.h>

struct pmc_cpuid_regs {
	unsigned int eax, ebx, ecx, edx;
};

/* CPUID leaf (subleaf 0): 0, or -1 if the processor has no such leaf. */
static inline int pmc_cpuid(unsigned int leaf, struct pmc_cpuid_regs *r)
{
	unsigned int max = __get_cpuid_max(leaf & 0x80000000, NULL);

	memset(r, 0, sizeof(*r));
	if (!max || max < leaf)
		return -1;
	__cpuid_count(leaf, 0, r->eax, r->ebx, r->ecx, r->edx);
	return 0;
}

/* The 12-character vendor string of leaf 0, NUL-terminated. */
static inline void pmc_cpuid_vendor(char buf[13])
{
	struct pmc_cpuid_regs r;

	pmc_cpuid(0, &r);
	memcpy(buf, &r.ebx, 4);
	memcpy(buf + 4, &r.edx, 4);
	memcpy(buf + 8, &r.ecx, 4);
	buf[12] = '\0';
}

/* Display family, model and stepping of leaf 1's EAX, as the vendors define them. */
static inline void pmc_cpuid_fms(uint32_t eax1, unsigned int *family,
				 unsigned int *model, unsigned int *stepping)
{
	unsigned int f = (eax1 >> 8) & 0xf, m = (eax1 >> 4) & 0xf;

	if (f == 0xf)
		f += (eax1 >> 20) & 0xff;
	if (f == 0x6 || f >= 0xf)
		m |= ((eax1 >> 16) & 0xf) << 4;
	*family = f;
	*model = m;
	if (stepping)
		*stepping = eax1 & 0xf;
}

#ifdef PMC_X86CPU_PFM
#include <perfmon/pfmlib.h>

/*
 * libpfm4's table for this processor (pfm_initialize() done): of the core
 * PMUs it detected for the vendor (AMD's are named amd64*), the one with
 * the most events, the model's table rather than the architectural one.
 * PFM_PMU_NONE if there is none; its name in *name if asked.
 */
static inline pfm_pmu_t pmc_pfm_core_pmu(int amd, const char **name)
{
	pfm_pmu_t pmu, best = PFM_PMU_NONE;
	pfm_pmu_info_t info;
	int best_events = 0;

	pfm_for_all_pmus(pmu) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS ||
		    !info.is_present || info.type != PFM_PMU_TYPE_CORE)
			continue;
		if (!strncmp(info.name, "amd64", 5) != !!amd)
			continue;
		if (info.nevents <= best_events)
			continue;
		best_events = info.nevents;
		best = pmu;
		if (name)
			*name = info.name;
	}
	return best;
}
#endif /* PMC_X86CPU_PFM */

#endif /* PMC_X86CPU_H */
