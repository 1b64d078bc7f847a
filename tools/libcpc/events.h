/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libcpc event tables and name resolution (events.c): pure functions, no
 * I/O, so that the host unit tests can cover them.  Internal to libcpc.
 */
#ifndef LIBCPC_EVENTS_H
#define LIBCPC_EVENTS_H

#include <stddef.h>
#include <stdint.h>

enum cpcev_vendor {
	CPCEV_OTHER,
	CPCEV_INTEL,
	CPCEV_AMD,
	CPCEV_HYGON,
	CPCEV_ARM,		/* arm64: events_arm64.c */
};

/* What the tables depend on: from CPUID on x86, from MIDR_EL1 on arm64. */
struct cpcev_cpu {
	int vendor;			/* enum cpcev_vendor */
	char vendor_id[13];		/* CPUID 0 vendor string */
	unsigned int family;		/* display family */
	unsigned int model;		/* display model */
	unsigned int stepping;
	unsigned int pmu_version;	/* Intel CPUID 0xA EAX[7:0] */
	unsigned int arch_len;		/* Intel CPUID 0xA EAX[31:24] */
	uint32_t arch_unavail;		/* Intel CPUID 0xA EBX */
	int pfm_pmu;			/* libpfm4's pfm_pmu_t, 0: none */
	char pfm_name[32];		/* its name, e.g. "skl" */
	int pfm_lazy;			/* pfm_pmu not looked up yet: cpcev_cpu_pfm_lazy() */
	/* arm64: MIDR_EL1's fields (vendor CPCEV_ARM) */
	unsigned int midr_impl, midr_variant, midr_part, midr_rev;
	char pfm_desc[64];		/* libpfm4's description of pfm_pmu */
	/*
	 * Intel's fixed-function counters (cpcev_cpu_fixed()): the last
	 * nfixed pics, after the general-purpose ones, as illumos' core_pcbe
	 * numbers them.  0: every pic is general-purpose.
	 */
	unsigned int nfixed;
};

/* The event classes of cpcev_walk(). */
#define CPCEV_GENERIC	0x1		/* PAPI_* */
#define CPCEV_PLATFORM	0x2		/* everything else, sw_* included */

/* An attribute of a request. */
struct cpcev_attr {
	const char *name;
	uint64_t val;
};

/* The perf event a request resolves to. */
struct cpcev_perf {
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config;
};

/*
 * Fill cpu from CPUID: vendor is the 12-byte vendor string of leaf 0,
 * eax1 leaf 1's EAX, eax_a/ebx_a leaf 0xA's EAX/EBX (0 when absent).
 */
void cpcev_cpu_init(struct cpcev_cpu *cpu, const char vendor[12],
		    uint32_t eax1, uint32_t eax_a, uint32_t ebx_a);

/*
 * The fixed-function counters of an Intel processor, decoded as perf's
 * intel/core.c and the pmcompat module (module/arch/x86/pmc_cpuid.c)
 * decode them, into cpu->nfixed: leaf 0x23's bitmap (subleaf 1 EBX) where
 * the CPU enumerates it (leaf23), else leaf 0xA EDX 4:0 for versions 2 to
 * 4 (at least 3 outside a VM) and the ECX bitmap from version 5; none
 * before version 2 or on other vendors.  cpcev_cpu_init() must have run.
 */
void cpcev_cpu_fixed(struct cpcev_cpu *cpu, uint32_t ecx_a, uint32_t edx_a,
		     int hypervisor, int leaf23, uint32_t ebx23_1);

/*
 * Fixed-function counter k (0: instructions, 1: core cycles, 2: reference
 * cycles): call fn for each of its names of the classes (illumos' fixed
 * names and the PAPI_* ones perf places there).  Returns the count.
 */
int cpcev_fixed_walk(const struct cpcev_cpu *cpu, unsigned int k, int classes,
		     void (*fn)(void *arg, const char *name), void *arg);

/* 1 if fixed counter k can count event. */
int cpcev_fixed_counts(const struct cpcev_cpu *cpu, unsigned int k,
		       const char *event);

/* 1 if event is one only a fixed counter counts ("instr_retired.any"). */
int cpcev_fixed_only(const struct cpcev_cpu *cpu, const char *event);

/* 1 if event needs no counter at all (the Linux software events). */
int cpcev_software(const char *event);

/*
 * Choose the libpfm4 core PMU of the processor: the one libpfm4 detected
 * (pfm_initialize() reads CPUID) whose vendor is cpu's.  Without one (a
 * model libpfm4 does not know) only the generic, architectural, software
 * and raw events exist.  Returns 1 if a PMU was chosen.
 */
int cpcev_cpu_pfm(struct cpcev_cpu *cpu);
void cpcev_cpu_pfm_lazy(struct cpcev_cpu *cpu);
int cpcev_pfm_ready(const struct cpcev_cpu *cpu);

/* cpc_cciname() and cpc_cpuref() texts. */
void cpcev_cciname(const struct cpcev_cpu *cpu, char *buf, size_t len);
void cpcev_cpuref(const struct cpcev_cpu *cpu, char *buf, size_t len);

/* The comma-separated attribute list, "picnum" last. */
const char *cpcev_attr_list(const struct cpcev_cpu *cpu);

/* 1 if attr is in the attribute list, else 0. */
int cpcev_attr_known(const struct cpcev_cpu *cpu, const char *attr);

/* Call fn for each event name of the classes, in table order. */
void cpcev_walk(const struct cpcev_cpu *cpu, int classes,
		void (*fn)(void *arg, const char *name), void *arg);

/* 1 if event is a listed name or a raw code (strtol, base 0, whole string). */
int cpcev_known(const struct cpcev_cpu *cpu, const char *event);

/*
 * Resolve event and its attributes ("picnum" is skipped: it is the
 * library's) to a perf type and config.  Returns 0, or the CPC_* subcode:
 * CPC_INVALID_EVENT, CPC_INVALID_ATTRIBUTE or CPC_ATTRIBUTE_OUT_OF_RANGE.
 */
int cpcev_resolve(const struct cpcev_cpu *cpu, const char *event,
		  const struct cpcev_attr *attrs, unsigned int nattrs,
		  struct cpcev_perf *out);

/* The error handler message of a CPC_* subcode ("\n"-terminated), or NULL. */
const char *cpcev_errstr(int subcode);

/* events_common.c: the Linux software events (sw_*), and raw codes. */
void cpcev_sw_walk(void (*fn)(void *arg, const char *name), void *arg);
int cpcev_sw_find(const char *name, struct cpcev_perf *out);
int cpcev_parse_code(const char *s, long *code);

/*
 * arm64 (events_arm64.c, which implements the functions above for arm64,
 * cpcev_cpu_init() excepted): describe the processor of MIDR_EL1 value midr.
 * cpcev_arm_midr() reads this machine's (sysfs, else /proc/cpuinfo): 0 if
 * neither says.
 */
void cpcev_arm_cpu_init(struct cpcev_cpu *cpu, uint32_t midr);
uint32_t cpcev_arm_midr(void);

#endif /* LIBCPC_EVENTS_H */
