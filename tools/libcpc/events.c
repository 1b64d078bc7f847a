// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libcpc event naming on x86: which names exist on this processor, and
 * what perf event (type, config) a request for one of them becomes.  Built
 * for x86 only (tools/Makefile); arm64 has events_arm64.c, and both share
 * events_common.c (the software events, the messages, the attribute list).
 *
 * Four kinds of names are resolved here:
 *  - the generic PAPI_* events, mapped to perf's generic hardware and
 *    hardware-cache events so that perf picks the right code for the CPU;
 *  - the platform events of the processor model, from libpfm4's table for
 *    it (Intel: under Intel's published names, "inst_retired.any_p", or
 *    libpfm4's, "INST_RETIRED:ANY_P"; AMD and Hygon: libpfm4's names), plus
 *    a few names libpfm4 lacks: Intel's architectural events and
 *    fixed-counter aliases, and illumos' Opteron-era AMD names that
 *    programs such as uperf use; all as raw x86 event-select images;
 *  - raw numeric event codes (strtol base 0, the whole string);
 *  - Linux software events (sw_*), so that libcpc works without a PMU.
 * A raw config never has the USR, OS, INT or EN bits: the kernel derives
 * user/system counting from the request flags.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>
#include <sys/cpc_impl.h>

#include "events.h"
#define PMC_X86CPU_PFM
#include "../common/pmc_x86cpu.h"

/* x86 event-select fields */
#define EVSEL_EVENT(c)		((uint64_t)(c) & 0xff)
#define EVSEL_UMASK_SHIFT	8
#define EVSEL_EDGE		(1ULL << 18)
#define EVSEL_INV		(1ULL << 23)
#define EVSEL_ANYTHREAD		(1ULL << 21)
#define EVSEL_CMASK_SHIFT	24
#define EVSEL_AMD_EVENT_HI(c)	((((uint64_t)(c) >> 8) & 0xf) << 32)

#define ATTR_MAX_MASK		0xff

#define CACHE(id, op, res)	((uint64_t)(id) | ((uint64_t)(op) << 8) | \
				 ((uint64_t)(res) << 16))

#define ARRAY_LEN(a)		(sizeof(a) / sizeof((a)[0]))

struct generic_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/*
 * A generic event perf has no generic event for: the first of these libpfm4
 * event names (Intel's, then AMD's) that the processor's model has.
 */
struct pfm_generic_event {
	const char *name;
	const char *pfm[3];
};

#define PFM_GENERIC(n, ...)	{ n, { __VA_ARGS__ } }

/* PAPI_* names: perf's generic events. */
static const struct generic_event generic_events[] = {
	{ "PAPI_tot_cyc", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "PAPI_tot_ins", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "PAPI_ref_cyc", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "PAPI_br_ins", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "PAPI_br_msp", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "PAPI_l3_tca", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "PAPI_l3_tcm", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "PAPI_l1_dca", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "PAPI_l1_dcr", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "PAPI_l1_dcw", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_WRITE,
		PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "PAPI_l1_dcm", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "PAPI_l1_ldm", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "PAPI_l1_stm", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_WRITE,
		PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "PAPI_l1_ica", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "PAPI_l1_icm", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "PAPI_l3_dcr", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "PAPI_l3_dcw", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_WRITE,
		PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
	{ "PAPI_l3_ldm", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "PAPI_l3_stm", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_WRITE,
		PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "PAPI_tlb_dm", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "PAPI_tlb_im", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_MISS) },
	{ "PAPI_l1_icr", PERF_TYPE_HW_CACHE,
	  CACHE(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ,
		PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
};

/* perf has no generic event for these: the model's, from libpfm4 */
static const struct pfm_generic_event pfm_generic_events[] = {
	PFM_GENERIC("PAPI_br_cn", "BR_INST_RETIRED:CONDITIONAL",
		    "RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS"),
	PFM_GENERIC("PAPI_br_tkn", "BR_INST_RETIRED:NEAR_TAKEN",
		    "RETIRED_TAKEN_BRANCH_INSTRUCTIONS"),
	PFM_GENERIC("PAPI_br_ntk", "BR_INST_RETIRED:NOT_TAKEN"),
	PFM_GENERIC("PAPI_hw_int", "HW_INTERRUPTS:RECEIVED",
		    "INTERRUPTS_TAKEN"),
	PFM_GENERIC("PAPI_ld_ins", "MEM_INST_RETIRED:ALL_LOADS",
		    "MEM_UOPS_RETIRED:ALL_LOADS"),
	PFM_GENERIC("PAPI_sr_ins", "MEM_INST_RETIRED:ALL_STORES",
		    "MEM_UOPS_RETIRED:ALL_STORES"),
	PFM_GENERIC("PAPI_res_stl", "RESOURCE_STALLS:ANY"),
	PFM_GENERIC("PAPI_l2_tca", "L2_RQSTS:REFERENCES"),
	PFM_GENERIC("PAPI_l2_tcm", "L2_RQSTS:MISS"),
	PFM_GENERIC("PAPI_l2_ldm", "L2_RQSTS:DEMAND_DATA_RD_MISS"),
	PFM_GENERIC("PAPI_l2_stm", "L2_RQSTS:RFO_MISS"),
	PFM_GENERIC("PAPI_l2_ica", "L2_RQSTS:ALL_CODE_RD"),
	PFM_GENERIC("PAPI_l2_icm", "L2_RQSTS:CODE_RD_MISS"),
	PFM_GENERIC("PAPI_l2_dca", "L2_RQSTS:ALL_DEMAND_DATA_RD"),
};

/*
 * Intel fixed-counter names: perf's generic events, which perf places on
 * the fixed counters.
 */
static const struct generic_event intel_fixed_events[] = {
	{ "instr_retired.any", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cpu_clk_unhalted.core", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu_clk_unhalted.thread", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu_clk_unhalted.ref", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_REF_CPU_CYCLES },
};

struct raw_event {
	const char *name;
	uint16_t code;		/* event select (AMD: up to 12 bits) */
	/*
	 * Intel: the event's unit mask, which a "umask" attribute replaces.
	 * AMD: the unit mask bits the event has (for reference only: as in
	 * illumos' opteron_pcbe, these names count with unit mask 0 unless a
	 * "umask" attribute, any 8-bit value, gives one).
	 */
	uint8_t umask;
	int8_t arch_bit;	/* Intel: CPUID 0xA EBX bit, or -1 */
};

/*
 * Intel's architectural events (CPUID leaf 0xA), which need no model table:
 * offered on every Intel model, as CPUID says.  libpfm4's model table, when
 * it has the name, gives the encoding.
 */
static const struct raw_event intel_events[] = {
	{ "cpu_clk_unhalted.thread_p", 0x3c, 0x00, 0 },
	{ "inst_retired.any_p", 0xc0, 0x00, 1 },
	{ "cpu_clk_unhalted.ref_p", 0x3c, 0x01, 2 },
	{ "longest_lat_cache.reference", 0x2e, 0x4f, 3 },
	{ "longest_lat_cache.miss", 0x2e, 0x41, 4 },
	{ "br_inst_retired.all_branches", 0xc4, 0x00, 5 },
	{ "br_misp_retired.all_branches", 0xc5, 0x00, 6 },
};

/*
 * AMD (and Hygon) events under illumos' Opteron-era names, which libpfm4
 * does not have and programs such as uperf use.
 */
static const struct raw_event amd_events[] = {
	{ "FP_dispatched_fpu_ops", 0x00, 0x3f, -1 },
	{ "FP_cycles_no_fpu_ops_retired", 0x01, 0x00, -1 },
	{ "FP_dispatched_fpu_ops_ff", 0x02, 0x00, -1 },
	{ "LS_seg_reg_load", 0x20, 0x7f, -1 },
	{ "LS_uarch_resync_self_modify", 0x21, 0x00, -1 },
	{ "LS_uarch_resync_snoop", 0x22, 0x00, -1 },
	{ "LS_buffer_2_full", 0x23, 0x00, -1 },
	{ "LS_locked_operation", 0x24, 0x00, -1 },
	{ "LS_retired_cflush", 0x26, 0x00, -1 },
	{ "LS_retired_cpuid", 0x27, 0x00, -1 },
	{ "DC_access", 0x40, 0x00, -1 },
	{ "DC_miss", 0x41, 0x00, -1 },
	{ "DC_refill_from_L2", 0x42, 0x1f, -1 },
	{ "DC_refill_from_system", 0x43, 0x1f, -1 },
	{ "DC_copyback", 0x44, 0x1f, -1 },
	{ "DC_dtlb_L1_miss_L2_hit", 0x45, 0x00, -1 },
	{ "DC_dtlb_L1_miss_L2_miss", 0x46, 0x00, -1 },
	{ "DC_misaligned_data_ref", 0x47, 0x00, -1 },
	{ "DC_uarch_late_cancel_access", 0x48, 0x00, -1 },
	{ "DC_uarch_early_cancel_access", 0x49, 0x00, -1 },
	{ "DC_1bit_ecc_error_found", 0x4a, 0x03, -1 },
	{ "DC_dispatched_prefetch_instr", 0x4b, 0x07, -1 },
	{ "DC_dcache_accesses_by_locks", 0x4c, 0x03, -1 },
	{ "BU_memory_requests", 0x65, 0x83, -1 },
	{ "BU_data_prefetch", 0x67, 0x03, -1 },
	{ "BU_system_read_responses", 0x6c, 0x07, -1 },
	{ "BU_cpu_clk_unhalted", 0x76, 0x00, -1 },
	{ "BU_internal_L2_req", 0x7d, 0x1f, -1 },
	{ "BU_fill_req_missed_L2", 0x7e, 0x07, -1 },
	{ "BU_fill_into_L2", 0x7f, 0x03, -1 },
	{ "IC_fetch", 0x80, 0x00, -1 },
	{ "IC_miss", 0x81, 0x00, -1 },
	{ "IC_refill_from_L2", 0x82, 0x00, -1 },
	{ "IC_refill_from_system", 0x83, 0x00, -1 },
	{ "IC_itlb_L1_miss_L2_hit", 0x84, 0x00, -1 },
	{ "IC_itlb_L1_miss_L2_miss", 0x85, 0x00, -1 },
	{ "IC_uarch_resync_snoop", 0x86, 0x00, -1 },
	{ "IC_instr_fetch_stall", 0x87, 0x00, -1 },
	{ "IC_return_stack_hit", 0x88, 0x00, -1 },
	{ "IC_return_stack_overflow", 0x89, 0x00, -1 },
	{ "FR_retired_x86_instr_w_excp_intr", 0xc0, 0x00, -1 },
	{ "FR_retired_uops", 0xc1, 0x00, -1 },
	{ "FR_retired_branches_w_excp_intr", 0xc2, 0x00, -1 },
	{ "FR_retired_branches_mispred", 0xc3, 0x00, -1 },
	{ "FR_retired_taken_branches", 0xc4, 0x00, -1 },
	{ "FR_retired_taken_branches_mispred", 0xc5, 0x00, -1 },
	{ "FR_retired_far_ctl_transfer", 0xc6, 0x00, -1 },
	{ "FR_retired_resyncs", 0xc7, 0x00, -1 },
	{ "FR_retired_near_rets", 0xc8, 0x00, -1 },
	{ "FR_retired_near_rets_mispred", 0xc9, 0x00, -1 },
	{ "FR_retired_taken_branches_mispred_addr_miscomp", 0xca, 0x00, -1 },
	{ "FR_retired_fpu_instr", 0xcb, 0x0f, -1 },
	{ "FR_retired_fastpath_double_op_instr", 0xcc, 0x07, -1 },
	{ "FR_intr_masked_cycles", 0xcd, 0x00, -1 },
	{ "FR_intr_masked_while_pending_cycles", 0xce, 0x00, -1 },
	{ "FR_taken_hardware_intrs", 0xcf, 0x00, -1 },
	{ "FR_nothing_to_dispatch", 0xd0, 0x00, -1 },
	{ "FR_dispatch_stalls", 0xd1, 0x00, -1 },
	{ "FR_dispatch_stall_branch_abort_to_retire", 0xd2, 0x00, -1 },
	{ "FR_dispatch_stall_serialization", 0xd3, 0x00, -1 },
	{ "FR_dispatch_stall_segment_load", 0xd4, 0x00, -1 },
	{ "FR_dispatch_stall_reorder_buffer_full", 0xd5, 0x00, -1 },
	{ "FR_dispatch_stall_resv_station_full", 0xd6, 0x00, -1 },
	{ "FR_dispatch_stall_fpu_full", 0xd7, 0x00, -1 },
	{ "FR_dispatch_stall_ls_full", 0xd8, 0x00, -1 },
	{ "FR_dispatch_stall_waiting_all_quiet", 0xd9, 0x00, -1 },
	{ "FR_dispatch_stall_far_ctl_trsfr_resync_branch_pend", 0xda, 0x00, -1 },
	{ "FR_fpu_exception", 0xdb, 0x0f, -1 },
	{ "FR_num_brkpts_dr0", 0xdc, 0x00, -1 },
	{ "FR_num_brkpts_dr1", 0xdd, 0x00, -1 },
	{ "FR_num_brkpts_dr2", 0xde, 0x00, -1 },
	{ "FR_num_brkpts_dr3", 0xdf, 0x00, -1 },
};

/* ---- the processor ------------------------------------------------------- */

void cpcev_cpu_init(struct cpcev_cpu *cpu, const char vendor[12],
		    uint32_t eax1, uint32_t eax_a, uint32_t ebx_a)
{
	memset(cpu, 0, sizeof(*cpu));
	memcpy(cpu->vendor_id, vendor, 12);
	cpu->vendor_id[12] = '\0';
	if (!strcmp(cpu->vendor_id, "GenuineIntel"))
		cpu->vendor = CPCEV_INTEL;
	else if (!strcmp(cpu->vendor_id, "AuthenticAMD"))
		cpu->vendor = CPCEV_AMD;
	else if (!strcmp(cpu->vendor_id, "HygonGenuine"))
		cpu->vendor = CPCEV_HYGON;
	else
		cpu->vendor = CPCEV_OTHER;

	pmc_cpuid_fms(eax1, &cpu->family, &cpu->model, &cpu->stepping);

	if (cpu->vendor == CPCEV_INTEL) {
		cpu->pmu_version = eax_a & 0xff;
		cpu->arch_len = (eax_a >> 24) & 0xff;
		cpu->arch_unavail = ebx_a;
	}
}

void cpcev_cpu_fixed(struct cpcev_cpu *cpu, uint32_t ecx_a, uint32_t edx_a,
		     int hypervisor, int leaf23, uint32_t ebx23_1)
{
	unsigned int n;

	cpu->nfixed = 0;
	if (cpu->vendor != CPCEV_INTEL || cpu->pmu_version < 2)
		return;
	if (leaf23) {
		n = (unsigned int)__builtin_popcount(ebx23_1);
	} else if (cpu->pmu_version >= 5) {
		n = (unsigned int)__builtin_popcount(ecx_a);
	} else {
		n = edx_a & 0x1f;
		if (!hypervisor && n < 3)
			n = 3;
	}
	cpu->nfixed = n;
}

void cpcev_cciname(const struct cpcev_cpu *cpu, char *buf, size_t len)
{
	switch (cpu->vendor) {
	case CPCEV_INTEL:
		/* Core 2 era parts before architectural version 3 */
		if (cpu->pmu_version < 3 && cpu->family == 6 &&
		    (cpu->model == 15 || cpu->model == 23 || cpu->model == 29))
			snprintf(buf, len, "Core Microarchitecture");
		else
			snprintf(buf, len,
				 "Intel Arch PerfMon v%u on Family %u Model %u",
				 cpu->pmu_version, cpu->family, cpu->model);
		break;
	case CPCEV_AMD:
		if (cpu->family == 0xf)
			snprintf(buf, len, "AMD Opteron & Athlon64");
		else
			snprintf(buf, len, "AMD Family %02xh", cpu->family);
		break;
	case CPCEV_HYGON:
		snprintf(buf, len, "Hygon Family %02xh", cpu->family);
		break;
	default:
		snprintf(buf, len, "%s Family %u Model %u",
			 cpu->vendor_id[0] ? cpu->vendor_id : "Unknown",
			 cpu->family, cpu->model);
		break;
	}
}

void cpcev_cpuref(const struct cpcev_cpu *cpu, char *buf, size_t len)
{
	switch (cpu->vendor) {
	case CPCEV_INTEL:
		snprintf(buf, len,
			 "See the chapters on performance monitoring in the "
			 "Intel 64 and IA-32 Architectures Software Developer's "
			 "Manual, Volume 3 (System Programming Guide), and the "
			 "event tables for Family %u Model %u published by "
			 "Intel at https://perfmon-events.intel.com/.",
			 cpu->family, cpu->model);
		break;
	case CPCEV_AMD:
	case CPCEV_HYGON:
		snprintf(buf, len,
			 "See the performance counter sections of the BIOS and "
			 "Kernel Developer's Guide (BKDG) or the Processor "
			 "Programming Reference (PPR) for %s Family %02xh "
			 "processors, and the AMD64 Architecture Programmer's "
			 "Manual, Volume 2 (System Programming).",
			 cpu->vendor == CPCEV_AMD ? "AMD" : "Hygon",
			 cpu->family);
		break;
	default:
		snprintf(buf, len,
			 "No event reference is known for this processor; "
			 "the generic PAPI_* events, the Linux software sw_* "
			 "events and raw event codes can be requested.");
		break;
	}
}

/* ---- names --------------------------------------------------------------- */

const char *cpcev_attr_list(const struct cpcev_cpu *cpu)
{
	switch (cpu->vendor) {
	case CPCEV_INTEL:
		return "edge,inv,umask,cmask,picnum";
	case CPCEV_AMD:
	case CPCEV_HYGON:
		return "edge,pc,inv,cmask,umask,picnum";
	default:
		return "picnum";
	}
}

static int pfm_lookup(const struct cpcev_cpu *cpu, const char *name,
		      uint64_t *config, uint64_t *valid);

static int intel_listed(const struct cpcev_cpu *cpu, const struct raw_event *e)
{
	uint64_t config, valid;

	if (e->arch_bit < 0)
		return 1;
	/*
	 * Version 0: CPUID says nothing (no leaf 0xA: NetBurst and older,
	 * or a VM); the event exists only if the model's table has it.
	 */
	if (cpu->pmu_version == 0)
		return pfm_lookup(cpu, e->name, &config, &valid);
	return (unsigned int)e->arch_bit < cpu->arch_len &&
	       !(cpu->arch_unavail & (1U << e->arch_bit));
}

static const struct raw_event *raw_table(const struct cpcev_cpu *cpu,
					 size_t *n)
{
	switch (cpu->vendor) {
	case CPCEV_INTEL:
		*n = ARRAY_LEN(intel_events);
		return intel_events;
	case CPCEV_AMD:
	case CPCEV_HYGON:
		*n = ARRAY_LEN(amd_events);
		return amd_events;
	default:
		*n = 0;
		return NULL;
	}
}

static const struct raw_event *find_raw_any(const struct cpcev_cpu *cpu,
					    const char *name)
{
	const struct raw_event *raw;
	size_t i, n;

	raw = raw_table(cpu, &n);
	for (i = 0; i < n; i++)
		if (!strcmp(raw[i].name, name))
			return &raw[i];
	return NULL;
}

/* ---- libpfm4 ------------------------------------------------------------- */

/* Event-select bits a config never carries: USR, OS, PC, INT, EN. */
#define EVSEL_PRIV_BITS		(1ULL << 16 | 1ULL << 17 | 1ULL << 19 | \
				 1ULL << 20 | 1ULL << 22)
#define PFM_NAME_MAX		160

static int amd_like(const struct cpcev_cpu *cpu)
{
	return cpu->vendor == CPCEV_AMD || cpu->vendor == CPCEV_HYGON;
}

int cpcev_cpu_pfm(struct cpcev_cpu *cpu)
{
	static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
	const char *name = "";
	pfm_pmu_t pmu;
	int ret;

	cpu->pfm_pmu = 0;
	cpu->pfm_name[0] = '\0';
	if (cpu->vendor == CPCEV_OTHER)
		return 0;
	/* cpc_open() may run in several threads; libpfm4's setup may not */
	pthread_mutex_lock(&init_lock);
	ret = pfm_initialize();
	pthread_mutex_unlock(&init_lock);
	if (ret != PFM_SUCCESS)
		return 0;
	pmu = pmc_pfm_core_pmu(amd_like(cpu), &name);
	if (pmu == PFM_PMU_NONE)
		return 0;
	cpu->pfm_pmu = pmu;
	snprintf(cpu->pfm_name, sizeof(cpu->pfm_name), "%s", name);
	return cpu->pfm_pmu != 0;
}

/*
 * The libpfm4 spelling of name on cpu's PMU ("skl::INST_RETIRED:ANY_P"):
 * Intel's dotted names become libpfm4's by their dots.  0 if name cannot
 * be one of the PMU's events.
 */
static int pfm_spell(const struct cpcev_cpu *cpu, const char *name,
		     char *buf, size_t len)
{
	size_t n;
	char *p;

	if (!*name || strpbrk(name, "=, \t") || !isalpha((unsigned char)name[0]) ||
	    !cpcev_pfm_ready(cpu))
		return 0;
	n = snprintf(buf, len, "%s::%s", cpu->pfm_name, name);
	if (n >= len)
		return 0;
	for (p = buf + strlen(cpu->pfm_name) + 2; *p; p++)
		if (*p == '.')
			*p = ':';
	return 1;
}

/* The unit-mask bits an event has: the OR of its unit masks' codes. */
static uint64_t pfm_valid_umask(int idx)
{
	pfm_event_info_t ev;
	pfm_event_attr_info_t a;
	uint64_t valid = 0;
	int i;

	memset(&ev, 0, sizeof(ev));
	ev.size = sizeof(ev);
	if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS)
		return 0;
	for (i = 0; i < ev.nattrs; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE, &a) ==
		    PFM_SUCCESS && a.type == PFM_ATTR_UMASK)
			valid |= a.code & 0xff;
	}
	return valid;
}

/*
 * Look name up in libpfm4's table of cpu's model: 1 with the raw config
 * (event select, unit mask, and any edge/inv/cmask the event implies) and
 * the event's valid unit-mask bits, else 0.  An AMD event named without a
 * unit mask that needs one counts all of them, as libcpc's AMD tables do.
 */
static int pfm_lookup(const struct cpcev_cpu *cpu, const char *name,
		      uint64_t *config, uint64_t *valid)
{
	char spelled[PFM_NAME_MAX];
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int ret, idx;

	if (!pfm_spell(cpu, name, spelled, sizeof(spelled)))
		return 0;
	/*
	 * libpfm4's NetBurst configs are ESCR/CCCR pairs, not event selects:
	 * the bits this library clears and sets would change what they count.
	 */
	if (!strncmp(cpu->pfm_name, "netburst", 8))
		return 0;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &attr;
	ret = pfm_get_os_event_encoding(spelled, PFM_PLM3, PFM_OS_PERF_EVENT,
					&arg);
	if (ret == PFM_SUCCESS) {
		/*
		 * Not offered: events that need more than the event select
		 * (config1), and Intel's AnyThread events (bit 21), which
		 * count the other hyperthread too and which pmcompat refuses.
		 */
		if (attr.type != PERF_TYPE_RAW || attr.config1 ||
		    attr.config2 || (attr.config & EVSEL_ANYTHREAD))
			return 0;
		*config = attr.config & ~EVSEL_PRIV_BITS;
		*valid = pfm_valid_umask(arg.idx);
		return 1;
	}
	if (ret != PFM_ERR_UMASK || !amd_like(cpu) || strchr(name, '.'))
		return 0;
	idx = pfm_find_event(spelled);
	if (idx < 0)
		return 0;
	{
		pfm_event_info_t ev;

		memset(&ev, 0, sizeof(ev));
		ev.size = sizeof(ev);
		if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS)
			return 0;
		*valid = pfm_valid_umask(idx);
		*config = EVSEL_EVENT(ev.code) | EVSEL_AMD_EVENT_HI(ev.code) |
			  *valid << EVSEL_UMASK_SHIFT;
	}
	return 1;
}

/*
 * An Intel architectural event that CPUID says is absent is absent whatever
 * the model table says.
 */
static int arch_hidden(const struct cpcev_cpu *cpu, const char *name)
{
	const struct raw_event *r;
	char lower[PFM_NAME_MAX];
	size_t i;

	if (cpu->vendor != CPCEV_INTEL)
		return 0;
	for (i = 0; name[i] && i < sizeof(lower) - 1; i++)
		lower[i] = name[i] == ':' ? '.' :
			   tolower((unsigned char)name[i]);
	lower[i] = '\0';
	r = find_raw_any(cpu, lower);
	return r && !intel_listed(cpu, r);
}

struct pfm_walk {
	const struct cpcev_cpu *cpu;
	void (*fn)(void *arg, const char *name);
	void *arg;
};

static void walk_one_name(struct pfm_walk *w, const char *name)
{
	uint64_t config, valid;

	/* the architectural events are listed from their own table */
	if (arch_hidden(w->cpu, name) || find_raw_any(w->cpu, name))
		return;
	if (pfm_lookup(w->cpu, name, &config, &valid))
		w->fn(w->arg, name);
}

/*
 * libpfm4's events for cpu: Intel's as Intel publishes them, one name per
 * unit mask ("br_inst_retired.near_taken"); AMD's by libpfm4's event name,
 * the unit masks being the "umask" attribute.
 */
static void pfm_walk_events(const struct cpcev_cpu *cpu,
			    void (*fn)(void *arg, const char *name), void *arg)
{
	struct pfm_walk w = { cpu, fn, arg };
	pfm_pmu_info_t pinfo;
	pfm_event_info_t ev;
	pfm_event_attr_info_t a;
	char name[PFM_NAME_MAX];
	int idx, i, numasks;
	char *p;

	if (!cpcev_pfm_ready(cpu))
		return;
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (pfm_get_pmu_info(cpu->pfm_pmu, &pinfo) != PFM_SUCCESS)
		return;
	for (idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		memset(&ev, 0, sizeof(ev));
		ev.size = sizeof(ev);
		if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS)
			continue;
		numasks = 0;
		for (i = 0; cpu->vendor == CPCEV_INTEL && i < ev.nattrs; i++) {
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE, &a) !=
			    PFM_SUCCESS || a.type != PFM_ATTR_UMASK)
				continue;
			numasks++;
			if ((size_t)snprintf(name, sizeof(name), "%s.%s",
					     ev.name, a.name) >= sizeof(name))
				continue;
			for (p = name; *p; p++)
				*p = tolower((unsigned char)*p);
			walk_one_name(&w, name);
		}
		if (numasks)
			continue;
		if ((size_t)snprintf(name, sizeof(name), "%s", ev.name) >=
		    sizeof(name))
			continue;
		if (cpu->vendor == CPCEV_INTEL)
			for (p = name; *p; p++)
				*p = tolower((unsigned char)*p);
		walk_one_name(&w, name);
	}
}

/* ---- the fixed-function counters ------------------------------------------ */

static const struct generic_event *find_generic(const struct generic_event *t,
						size_t n, const char *name);

/*
 * What each of Intel's first three fixed counters counts: illumos' names
 * for it (core_pcbe), then the generic event perf places there.
 */
static const char *const fixed_names[][3] = {
	{ "instr_retired.any", NULL, "PAPI_tot_ins" },
	{ "cpu_clk_unhalted.thread", "cpu_clk_unhalted.core", "PAPI_tot_cyc" },
	{ "cpu_clk_unhalted.ref", NULL, "PAPI_ref_cyc" },
};

int cpcev_fixed_walk(const struct cpcev_cpu *cpu, unsigned int k, int classes,
		     void (*fn)(void *arg, const char *name), void *arg)
{
	int n = 0;

	if (cpu->vendor != CPCEV_INTEL || k >= ARRAY_LEN(fixed_names))
		return 0;
	if (classes & CPCEV_PLATFORM) {
		fn(arg, fixed_names[k][0]);
		n++;
		if (fixed_names[k][1]) {
			fn(arg, fixed_names[k][1]);
			n++;
		}
	}
	if (classes & CPCEV_GENERIC) {
		fn(arg, fixed_names[k][2]);
		n++;
	}
	return n;
}

int cpcev_fixed_counts(const struct cpcev_cpu *cpu, unsigned int k,
		       const char *event)
{
	size_t i;

	if (cpu->vendor != CPCEV_INTEL || k >= ARRAY_LEN(fixed_names))
		return 0;
	for (i = 0; i < ARRAY_LEN(fixed_names[k]); i++)
		if (fixed_names[k][i] && !strcmp(fixed_names[k][i], event))
			return 1;
	return 0;
}

int cpcev_fixed_only(const struct cpcev_cpu *cpu, const char *event)
{
	return cpu->vendor == CPCEV_INTEL &&
	       find_generic(intel_fixed_events, ARRAY_LEN(intel_fixed_events),
			    event) != NULL;
}

/* ---- names, again -------------------------------------------------------- */

/* A libpfm4-backed generic event this processor has: 1 with its config. */
static int pfm_generic_on(const struct cpcev_cpu *cpu,
			  const struct pfm_generic_event *g,
			  struct cpcev_perf *out)
{
	uint64_t config, valid;
	size_t i;

	for (i = 0; i < ARRAY_LEN(g->pfm) && g->pfm[i]; i++) {
		if (!pfm_lookup(cpu, g->pfm[i], &config, &valid))
			continue;
		if (out) {
			out->type = PERF_TYPE_RAW;
			out->config = config;
		}
		return 1;
	}
	return 0;
}

static int generic_on(const struct generic_event *g, struct cpcev_perf *out)
{
	if (out) {
		out->type = g->type;
		out->config = g->config;
	}
	return 1;
}

void cpcev_walk(const struct cpcev_cpu *cpu, int classes,
		void (*fn)(void *arg, const char *name), void *arg)
{
	const struct raw_event *raw;
	size_t i, n;

	if (classes & CPCEV_GENERIC) {
		for (i = 0; i < ARRAY_LEN(generic_events); i++)
			fn(arg, generic_events[i].name);
		for (i = 0; i < ARRAY_LEN(pfm_generic_events); i++)
			if (pfm_generic_on(cpu, &pfm_generic_events[i], NULL))
				fn(arg, pfm_generic_events[i].name);
	}
	if (!(classes & CPCEV_PLATFORM))
		return;
	raw = raw_table(cpu, &n);
	for (i = 0; i < n; i++) {
		if (cpu->vendor != CPCEV_INTEL) {
			fn(arg, raw[i].name);
			continue;
		}
		if (intel_listed(cpu, &raw[i]))
			fn(arg, raw[i].name);
	}
	pfm_walk_events(cpu, fn, arg);
	if (cpu->vendor == CPCEV_INTEL)
		for (i = 0; i < ARRAY_LEN(intel_fixed_events); i++)
			fn(arg, intel_fixed_events[i].name);
	cpcev_sw_walk(fn, arg);
}

static const struct generic_event *find_generic(const struct generic_event *t,
						size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/*
 * A generic, fixed-alias or software event: no attributes, no raw code.
 * 1 with its perf event.
 */
static int find_named(const struct cpcev_cpu *cpu, const char *name,
		      struct cpcev_perf *out)
{
	const struct generic_event *e;
	size_t i;

	for (i = 0; i < ARRAY_LEN(pfm_generic_events); i++)
		if (!strcmp(pfm_generic_events[i].name, name))
			return pfm_generic_on(cpu, &pfm_generic_events[i], out);
	e = find_generic(generic_events, ARRAY_LEN(generic_events), name);
	if (!e && cpcev_sw_find(name, out))
		return 1;
	if (!e && cpu->vendor == CPCEV_INTEL)
		e = find_generic(intel_fixed_events,
				 ARRAY_LEN(intel_fixed_events), name);
	return e && generic_on(e, out);
}

/*
 * A platform event: 1 with its event code, default unit mask and the valid
 * unit-mask bits (AMD), or the whole config from libpfm4 (*code = -1).
 */
static int find_platform(const struct cpcev_cpu *cpu, const char *name,
			 long *code, uint64_t *umask, uint64_t *valid,
			 uint64_t *config)
{
	const struct raw_event *r = find_raw_any(cpu, name);

	if (r && cpu->vendor == CPCEV_INTEL && !intel_listed(cpu, r))
		return 0;
	if (arch_hidden(cpu, name))
		return 0;
	/*
	 * illumos' AMD names first: libpfm4 does not know them.  Their unit
	 * is 0, as illumos' tables have it, and any 8-bit umask is taken.
	 */
	if (r && cpu->vendor != CPCEV_INTEL) {
		*code = r->code;
		*umask = 0;
		*valid = ATTR_MAX_MASK;
		return 1;
	}
	if (pfm_lookup(cpu, name, config, valid)) {
		*code = -1;
		return 1;
	}
	if (r) {
		*code = r->code;
		*umask = r->umask;
		*valid = ATTR_MAX_MASK;
		return 1;
	}
	return 0;
}

int cpcev_known(const struct cpcev_cpu *cpu, const char *event)
{
	uint64_t umask, valid, config;
	long code;
	int saved = errno;
	int ok;

	if (find_named(cpu, event, NULL) ||
	    find_platform(cpu, event, &code, &umask, &valid, &config))
		return 1;
	ok = cpcev_parse_code(event, &code);
	errno = saved;
	return ok;
}

int cpcev_resolve(const struct cpcev_cpu *cpu, const char *event,
		  const struct cpcev_attr *attrs, unsigned int nattrs,
		  struct cpcev_perf *out)
{
	uint64_t umask = 0, valid = ATTR_MAX_MASK, cmask = 0, config = 0;
	int edge = 0, inv = 0, saved = errno, have_cmask = 0;
	int amd = amd_like(cpu);
	unsigned long max_code;
	unsigned int i;
	long code;

	if (find_named(cpu, event, out)) {
		for (i = 0; i < nattrs; i++)
			if (strcmp(attrs[i].name, "picnum"))
				return CPC_ATTRIBUTE_OUT_OF_RANGE;
		return 0;
	}

	if (find_platform(cpu, event, &code, &umask, &valid, &config)) {
		if (!amd)
			valid = ATTR_MAX_MASK;
		if (code >= 0)
			config = EVSEL_EVENT(code) |
				 umask << EVSEL_UMASK_SHIFT;
		if (amd && code >= 0)
			config |= EVSEL_AMD_EVENT_HI(code);
	} else {
		int ok = cpcev_parse_code(event, &code);

		errno = saved;
		max_code = amd ? 0xfff : 0xff;
		if (!ok || code < 0 || (unsigned long)code > max_code)
			return CPC_INVALID_EVENT;
		config = EVSEL_EVENT(code);
		if (amd)
			config |= EVSEL_AMD_EVENT_HI(code);
	}

	for (i = 0; i < nattrs; i++) {
		const char *n = attrs[i].name;
		uint64_t v = attrs[i].val;

		if (!strcmp(n, "picnum"))
			continue;
		if (!cpcev_attr_known(cpu, n))
			return CPC_INVALID_ATTRIBUTE;
		if (!strcmp(n, "umask") || !strcmp(n, "cmask")) {
			if (v > ATTR_MAX_MASK)
				return CPC_ATTRIBUTE_OUT_OF_RANGE;
			/*
			 * A unit mask replaces the event's (Intel); on AMD it
			 * must be within the event's valid bits.
			 */
			if (n[0] == 'u' && (v & ~valid))
				return CPC_ATTRIBUTE_OUT_OF_RANGE;
			if (n[0] == 'u') {
				config &= ~(0xffULL << EVSEL_UMASK_SHIFT);
				config |= v << EVSEL_UMASK_SHIFT;
			} else {
				cmask = v;
				have_cmask = 1;
			}
		} else if (!strcmp(n, "edge")) {
			edge = v != 0;
		} else if (!strcmp(n, "inv")) {
			inv = v != 0;
		}
		/* "pc" (AMD): accepted, no effect (perf owns the pins). */
	}

	if (have_cmask) {
		config &= ~(0xffULL << EVSEL_CMASK_SHIFT);
		config |= cmask << EVSEL_CMASK_SHIFT;
	}
	if (edge)
		config |= EVSEL_EDGE;
	if (inv)
		config |= EVSEL_INV;
	out->type = PERF_TYPE_RAW;
	out->config = config;
	return 0;
}
