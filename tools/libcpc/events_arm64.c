// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libcpc event naming on arm64 (events.c is x86's; both share
 * events_common.c).  Linux's ARMv8 PMUv3 driver takes an event as its
 * ARMv8 event number (PMEVTYPER<n>_EL0.evtCount, up to 16 bits) in a raw
 * config, or as one of perf's generic events, which it maps to the
 * architectural event the processor implements (and refuses with ENOENT
 * when PMCEID says it does not).  Four kinds of names:
 *  - the generic PAPI_* events: perf's generic hardware and cache events
 *    where the driver's map has them (cycles, instructions, branch
 *    mispredictions, L1 and TLB refills, stalls), else the Arm common event
 *    by its libpfm4 name (L2D_CACHE, LD_RETIRED, ...) when the model's
 *    table has it;
 *  - the platform events of the processor model, from libpfm4's table for
 *    it ("arm_ac57" for Cortex-A57: CPU_CYCLES, INST_RETIRED, ...), as
 *    their event numbers;
 *  - raw event numbers, 0 to 0xffff;
 * a common event (0x00 to 0x3f) that the PMU says it does not implement
 * (PMCEID0, through the driver's sysfs events) is neither listed nor taken;
 *  - Linux software events (sw_*).
 * ARMv8 events have no unit or counter masks: the only attribute is
 * "picnum".  The processor is named by MIDR_EL1 (implementer, part,
 * variant, revision), as the kernel shows it.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>
#include <sys/cpc_impl.h>

#include "events.h"

#define ARRAY_LEN(a)		(sizeof(a) / sizeof((a)[0]))
#define CACHE(id, op, res)	((uint64_t)(id) | ((uint64_t)(op) << 8) | \
				 ((uint64_t)(res) << 16))
#define ARM_EVENT_MAX		0xffff		/* PMUv3p1's 16-bit evtCount */
#define PFM_NAME_MAX		160

/* A PAPI name: perf's generic event (type != -1), else libpfm4 names. */
struct arm_generic {
	const char *name;
	int type;			/* PERF_TYPE_*, or -1: by pfm[] */
	uint64_t config;
	const char *pfm[3];		/* Arm common events, libpfm4's names */
};

#define HW(n, c)	{ n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, { NULL } }
#define HWC(n, id, op, res) \
	{ n, PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_##id, \
		PERF_COUNT_HW_CACHE_OP_##op, PERF_COUNT_HW_CACHE_RESULT_##res), { NULL } }
#define PFM(n, ...)	{ n, -1, 0, { __VA_ARGS__ } }

static const struct arm_generic arm_generic_events[] = {
	HW("PAPI_tot_cyc", CPU_CYCLES),			/* CPU_CYCLES 0x11 */
	HW("PAPI_tot_ins", INSTRUCTIONS),		/* INST_RETIRED 0x08 */
	HW("PAPI_br_msp", BRANCH_MISSES),		/* BR_MIS_PRED 0x10 */
	HW("PAPI_stl_icy", STALLED_CYCLES_FRONTEND),	/* STALL_FRONTEND 0x23 */
	HW("PAPI_res_stl", STALLED_CYCLES_BACKEND),	/* STALL_BACKEND 0x24 */
	HWC("PAPI_l1_dca", L1D, READ, ACCESS),		/* L1D_CACHE 0x04 */
	HWC("PAPI_l1_dcr", L1D, READ, ACCESS),
	HWC("PAPI_l1_dcm", L1D, READ, MISS),		/* L1D_CACHE_REFILL 0x03 */
	HWC("PAPI_l1_ldm", L1D, READ, MISS),
	HWC("PAPI_l1_dcw", L1D, WRITE, ACCESS),		/* model maps only (A57: 0x41) */
	HWC("PAPI_l1_stm", L1D, WRITE, MISS),		/* model maps only (A57: 0x43) */
	HWC("PAPI_l1_ica", L1I, READ, ACCESS),		/* L1I_CACHE 0x14 */
	HWC("PAPI_l1_icr", L1I, READ, ACCESS),
	HWC("PAPI_l1_icm", L1I, READ, MISS),		/* L1I_CACHE_REFILL 0x01 */
	HWC("PAPI_tlb_dm", DTLB, READ, MISS),		/* L1D_TLB_REFILL 0x05 */
	HWC("PAPI_tlb_im", ITLB, READ, MISS),		/* L1I_TLB_REFILL 0x02 */
	PFM("PAPI_br_ins", "BR_RETIRED"),		/* 0x21 */
	PFM("PAPI_br_cn", "BR_COND_RETIRED"),
	PFM("PAPI_l2_dca", "L2D_CACHE", "L2D_CACHE_ACCESS"),	/* 0x16 */
	PFM("PAPI_l2_tca", "L2D_CACHE", "L2D_CACHE_ACCESS"),
	PFM("PAPI_l2_dcm", "L2D_CACHE_REFILL"),		/* 0x17 */
	PFM("PAPI_l2_tcm", "L2D_CACHE_REFILL"),
	PFM("PAPI_l2_dcw", "L2D_CACHE_WR", "L2D_WRITE_ACCESS"),	/* 0x51 */
	PFM("PAPI_l2_dcr", "L2D_CACHE_RD", "L2D_READ_ACCESS"),	/* 0x50 */
	/* retired where the processor has it, else speculatively executed */
	PFM("PAPI_ld_ins", "LD_RETIRED", "LD_SPEC", "INST_SPEC_EXEC_LOAD"), /* 0x06, 0x70 */
	PFM("PAPI_sr_ins", "ST_RETIRED", "ST_SPEC", "INST_SPEC_EXEC_STORE"), /* 0x07, 0x71 */
	PFM("PAPI_hw_int", "EXC_IRQ", "EXCEPTION_IRQ"),	/* 0x86 */
	PFM("PAPI_l3_tca", "L3D_CACHE"),		/* 0x2b */
	PFM("PAPI_l3_tcm", "L3D_CACHE_REFILL"),		/* 0x2a */
};

/* ---- the processor ------------------------------------------------------- */

static const struct {
	unsigned int impl;
	const char *name;
} arm_implementers[] = {
	{ 0x41, "Arm" }, { 0x42, "Broadcom" }, { 0x43, "Cavium" },
	{ 0x46, "Fujitsu" }, { 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },
	{ 0x50, "Applied Micro" }, { 0x51, "Qualcomm" }, { 0x61, "Apple" },
	{ 0xc0, "Ampere" },
};

static const char *impl_name(unsigned int impl)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(arm_implementers); i++)
		if (arm_implementers[i].impl == impl)
			return arm_implementers[i].name;
	return NULL;
}

void cpcev_arm_cpu_init(struct cpcev_cpu *cpu, uint32_t midr)
{
	memset(cpu, 0, sizeof(*cpu));
	cpu->vendor = CPCEV_ARM;
	cpu->midr_impl = midr >> 24;
	cpu->midr_variant = (midr >> 20) & 0xf;
	cpu->midr_part = (midr >> 4) & 0xfff;
	cpu->midr_rev = midr & 0xf;
	snprintf(cpu->vendor_id, sizeof(cpu->vendor_id), "ARM 0x%02x",
		 cpu->midr_impl);
	/* Display values, for the code that prints "family" and "model". */
	cpu->family = 8;
	cpu->model = cpu->midr_part;
	cpu->stepping = cpu->midr_rev;
}

/* The value after "key<spaces>:" of a /proc/cpuinfo line, or -1. */
static long cpuinfo_field(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	if (strncmp(line, key, n) || (line[n] != ' ' && line[n] != '\t' && line[n] != ':'))
		return -1;
	p = strchr(line + n, ':');
	return p ? strtol(p + 1, NULL, 0) : -1;
}

uint32_t cpcev_arm_midr(void)
{
	long impl = -1, var = -1, part = -1, rev = -1, v;
	unsigned long long midr;
	char line[256];
	FILE *f;

	/* The boot CPU's MIDR_EL1, as the kernel exports it */
	f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "re");
	if (f) {
		if (fscanf(f, "%llx", &midr) == 1) {
			fclose(f);
			return (uint32_t)midr;
		}
		fclose(f);
	}
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if ((v = cpuinfo_field(line, "CPU implementer")) >= 0 && impl < 0)
			impl = v;
		else if ((v = cpuinfo_field(line, "CPU variant")) >= 0 && var < 0)
			var = v;
		else if ((v = cpuinfo_field(line, "CPU part")) >= 0 && part < 0)
			part = v;
		else if ((v = cpuinfo_field(line, "CPU revision")) >= 0 && rev < 0)
			rev = v;
	}
	fclose(f);
	if (impl < 0 || part < 0)
		return 0;
	return (uint32_t)impl << 24 | (uint32_t)(var < 0 ? 0 : var & 0xf) << 20 |
	       0xfu << 16 | (uint32_t)(part & 0xfff) << 4 | (uint32_t)(rev < 0 ? 0 : rev & 0xf);
}

/*
 * libpfm4's core PMU for this processor (pfm_initialize() reads
 * /proc/cpuinfo's implementer and part): the present core PMU with the
 * most events.  Without one (a part libpfm4 does not know, QEMU's
 * "-cpu max") only the generic, software and raw events exist.
 */
int cpcev_cpu_pfm(struct cpcev_cpu *cpu)
{
	static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
	pfm_pmu_info_t info;
	pfm_pmu_t pmu;
	int ret, best = 0;

	cpu->pfm_pmu = 0;
	cpu->pfm_name[0] = '\0';
	cpu->pfm_desc[0] = '\0';
	pthread_mutex_lock(&init_lock);
	ret = pfm_initialize();
	pthread_mutex_unlock(&init_lock);
	if (ret != PFM_SUCCESS)
		return 0;
	pfm_for_all_pmus(pmu) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS ||
		    !info.is_present || info.type != PFM_PMU_TYPE_CORE ||
		    info.nevents <= best)
			continue;
		best = info.nevents;
		cpu->pfm_pmu = pmu;
		snprintf(cpu->pfm_name, sizeof(cpu->pfm_name), "%s", info.name);
		snprintf(cpu->pfm_desc, sizeof(cpu->pfm_desc), "%s",
			 info.desc ? info.desc : info.name);
	}
	return cpu->pfm_pmu != 0;
}

void cpcev_cciname(const struct cpcev_cpu *cpu, char *buf, size_t len)
{
	const char *impl = impl_name(cpu->midr_impl);

	if (cpcev_pfm_ready(cpu))
		snprintf(buf, len, "%s (ARMv8 PMUv3)", cpu->pfm_desc);
	else if (impl)
		snprintf(buf, len, "%s part 0x%03x (ARMv8 PMUv3)", impl,
			 cpu->midr_part);
	else
		snprintf(buf, len, "ARM implementer 0x%02x part 0x%03x (ARMv8 PMUv3)",
			 cpu->midr_impl, cpu->midr_part);
}

void cpcev_cpuref(const struct cpcev_cpu *cpu, char *buf, size_t len)
{
	int pfm = cpcev_pfm_ready(cpu);

	snprintf(buf, len,
		 "See the chapter on the Performance Monitors Extension in the "
		 "Arm Architecture Reference Manual for A-profile architecture "
		 "(ARM DDI 0487), which defines the common events, and the "
		 "performance monitoring unit chapter of the Technical Reference "
		 "Manual of this processor (MIDR_EL1 implementer 0x%02x, part "
		 "0x%03x, variant %u, revision %u) for its other events.%s",
		 cpu->midr_impl, cpu->midr_part, cpu->midr_variant,
		 cpu->midr_rev,
		 pfm ? "" : "  libpfm4 has no table for this "
		 "processor: the generic PAPI_* events, the Linux software sw_* "
		 "events and raw event numbers can be requested.");
}

const char *cpcev_attr_list(const struct cpcev_cpu *cpu)
{
	(void)cpu;
	return "picnum";
}

/* ---- the common events the PMU implements -------------------------------- */

/*
 * The driver takes any raw event number, and one the processor does not
 * implement counts nothing.  For the common events (0x00 to 0x3f) it says
 * which exist: its sysfs events directory shows those that PMCEID0_EL0
 * has.  Such an event that is absent is not offered (never a silent 0).
 * Implementation-defined events (0x40 and up) have no such register.
 */
#define ARM_COMMON_EVENTS	0x40
#define PMU_DIR			"/sys/bus/event_source/devices"

static pthread_once_t pmceid_once = PTHREAD_ONCE_INIT;
static uint64_t pmceid;		/* bit e: common event e is implemented */
static int pmceid_known;	/* an ARMv8 PMU's events directory was read */

static void pmceid_read(void)
{
	DIR *d = opendir(PMU_DIR), *ev;
	struct dirent *de, *e;
	char path[640], buf[64];
	unsigned int code;
	FILE *f;

	while (d && (de = readdir(d))) {
		/* armv8_pmuv3, armv8_cortex_a57, ...: every core PMU (big.LITTLE) */
		if (strncmp(de->d_name, "armv8", 5))
			continue;
		snprintf(path, sizeof(path), PMU_DIR "/%s/events", de->d_name);
		ev = opendir(path);
		if (!ev)
			continue;
		pmceid_known = 1;
		while ((e = readdir(ev))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), PMU_DIR "/%s/events/%s", de->d_name,
				 e->d_name);
			f = fopen(path, "re");
			if (!f)
				continue;
			if (fgets(buf, sizeof(buf), f) && sscanf(buf, "event=%x", &code) == 1 &&
			    code < ARM_COMMON_EVENTS)
				pmceid |= 1ULL << code;
			fclose(f);
		}
		closedir(ev);
	}
	if (d)
		closedir(d);
}

/* 0 if event number code is a common event the PMU says it lacks. */
static int implemented(uint64_t code)
{
	pthread_once(&pmceid_once, pmceid_read);
	return code >= ARM_COMMON_EVENTS || !pmceid_known || (pmceid >> code) & 1;
}

/* ---- libpfm4 ------------------------------------------------------------- */

/* name's event number in the model's libpfm4 table: 1 and *config, else 0. */
static int pfm_lookup(const struct cpcev_cpu *cpu, const char *name,
		      uint64_t *config)
{
	char spelled[PFM_NAME_MAX];
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;

	if (!*name || strpbrk(name, "=, \t.") || !isalpha((unsigned char)name[0]) ||
	    !cpcev_pfm_ready(cpu))
		return 0;
	if ((size_t)snprintf(spelled, sizeof(spelled), "%s::%s", cpu->pfm_name,
			     name) >= sizeof(spelled))
		return 0;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &attr;
	if (pfm_get_os_event_encoding(spelled, PFM_PLM3, PFM_OS_PERF_EVENT,
				      &arg) != PFM_SUCCESS)
		return 0;
	/* An event number, nothing else: what the armv8 PMU takes. */
	if (attr.type != PERF_TYPE_RAW || attr.config > ARM_EVENT_MAX ||
	    attr.config1 || attr.config2 || !implemented(attr.config))
		return 0;
	*config = attr.config;
	return 1;
}

static void pfm_walk_events(const struct cpcev_cpu *cpu,
			    void (*fn)(void *arg, const char *name), void *arg)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t ev;
	uint64_t config;
	int idx;

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
		if (pfm_lookup(cpu, ev.name, &config))
			fn(arg, ev.name);
	}
}

/* ---- names --------------------------------------------------------------- */

static int generic_on(const struct cpcev_cpu *cpu, const struct arm_generic *g,
		      struct cpcev_perf *out)
{
	uint64_t config;
	size_t i;

	if (g->type >= 0) {
		if (out) {
			out->type = (uint32_t)g->type;
			out->config = g->config;
		}
		return 1;
	}
	for (i = 0; i < ARRAY_LEN(g->pfm) && g->pfm[i]; i++) {
		if (!pfm_lookup(cpu, g->pfm[i], &config))
			continue;
		if (out) {
			out->type = PERF_TYPE_RAW;
			out->config = config;
		}
		return 1;
	}
	return 0;
}

void cpcev_walk(const struct cpcev_cpu *cpu, int classes,
		void (*fn)(void *arg, const char *name), void *arg)
{
	size_t i;

	if (classes & CPCEV_GENERIC)
		for (i = 0; i < ARRAY_LEN(arm_generic_events); i++)
			if (generic_on(cpu, &arm_generic_events[i], NULL))
				fn(arg, arm_generic_events[i].name);
	if (!(classes & CPCEV_PLATFORM))
		return;
	pfm_walk_events(cpu, fn, arg);
	cpcev_sw_walk(fn, arg);
}

/* A generic or software event: 1 with its perf event. */
static int find_named(const struct cpcev_cpu *cpu, const char *name,
		      struct cpcev_perf *out)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(arm_generic_events); i++)
		if (!strcmp(arm_generic_events[i].name, name))
			return generic_on(cpu, &arm_generic_events[i], out);
	return cpcev_sw_find(name, out);
}

int cpcev_known(const struct cpcev_cpu *cpu, const char *event)
{
	uint64_t config;
	long code;
	int saved = errno, ok;

	if (find_named(cpu, event, NULL) || pfm_lookup(cpu, event, &config))
		return 1;
	ok = cpcev_parse_code(event, &code) && code >= 0 && code <= ARM_EVENT_MAX &&
	     implemented((uint64_t)code);
	errno = saved;
	return ok;
}

int cpcev_resolve(const struct cpcev_cpu *cpu, const char *event,
		  const struct cpcev_attr *attrs, unsigned int nattrs,
		  struct cpcev_perf *out)
{
	uint64_t config;
	unsigned int i;
	int saved = errno, ok;
	long code;

	for (i = 0; i < nattrs; i++)
		if (strcmp(attrs[i].name, "picnum"))
			return cpcev_attr_known(cpu, attrs[i].name) ?
			       CPC_ATTRIBUTE_OUT_OF_RANGE : CPC_INVALID_ATTRIBUTE;
	if (find_named(cpu, event, out))
		return 0;
	if (pfm_lookup(cpu, event, &config)) {
		out->type = PERF_TYPE_RAW;
		out->config = config;
		return 0;
	}
	ok = cpcev_parse_code(event, &code);
	errno = saved;
	if (!ok || code < 0 || code > ARM_EVENT_MAX || !implemented((uint64_t)code))
		return CPC_INVALID_EVENT;
	out->type = PERF_TYPE_RAW;
	out->config = (uint64_t)code;
	return 0;
}

/*
 * Every counter of an Arm PMU is listed alike (the cycle counter counts
 * cycles only, but perf places a cycles request where it likes): no pic
 * is a fixed-function one, nfixed stays 0.
 */
int cpcev_fixed_walk(const struct cpcev_cpu *cpu, unsigned int k, int classes,
		     void (*fn)(void *arg, const char *name), void *arg)
{
	(void)cpu;
	(void)k;
	(void)classes;
	(void)fn;
	(void)arg;
	return 0;
}

int cpcev_fixed_counts(const struct cpcev_cpu *cpu, unsigned int k,
		       const char *event)
{
	(void)cpu;
	(void)k;
	(void)event;
	return 0;
}

int cpcev_fixed_only(const struct cpcev_cpu *cpu, const char *event)
{
	(void)cpu;
	(void)event;
	return 0;
}
