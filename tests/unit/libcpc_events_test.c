// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of libcpc (tools/libcpc): event names of every class (generic,
 * Intel and AMD platform, raw codes, software) and their perf encodings,
 * attributes, subcodes and messages, cpc_cciname() for given CPUID values,
 * and the library itself on a handle without a device (__cpc_open_fd with
 * fd -1): requests, validation before the kernel, the error handler, the
 * buffer arithmetic, the walkers, lock and signal behaviour, and libpctx.
 *
 * libcpc.c is included so that the tests see the buffer internals.
 */
#include "../../tools/libcpc/libcpc.c"

#include <perfmon/pfmlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

/* CPUID leaf 1 EAX and leaf 0xA EAX of some processors */
#define SKYLAKE_EAX1	0x000506e3	/* family 6 model 94 */
#define PERFMON_V4	0x07300804	/* version 4, 8 counters, 7 events */
#define CORE2_EAX1	0x000006f6	/* family 6 model 15 */
#define K8_EAX1		0x00020f12	/* family 0xf */
#define ZEN1_EAX1	0x00800f12	/* family 0x17 */
#define ZEN3_EAX1	0x00a20f10	/* family 0x19 */
#define HYGON_EAX1	0x00900f02	/* family 0x18 */

/*
 * libpfm4 told which model's table to use, as its LIBPFM_FORCE_PMU does:
 * every test runs in a child of its own, so a test sees only the PMUs it
 * forced (libpfm4 keeps a PMU it once found present until the process ends).
 */
static void force_pmu(struct cpcev_cpu *c, const char *pmu)
{
	pfm_terminate();
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	cpcev_cpu_pfm(c);
}

static struct cpcev_cpu intel(uint32_t ebx)
{
	struct cpcev_cpu c;

	cpcev_cpu_init(&c, "GenuineIntel", SKYLAKE_EAX1, PERFMON_V4, ebx);
	force_pmu(&c, "skl");
	return c;
}

static struct cpcev_cpu amd(void)
{
	struct cpcev_cpu c;

	cpcev_cpu_init(&c, "AuthenticAMD", ZEN1_EAX1, 0, 0);
	force_pmu(&c, "amd64_fam17h_zen1");
	return c;
}

static struct cpcev_cpu other(void)
{
	struct cpcev_cpu c;

	cpcev_cpu_init(&c, "CentaurHauls", 0x6f2, 0, 0);
	return c;
}

static const char *cciname(const char *vendor, uint32_t eax1, uint32_t eax_a)
{
	static char buf[CPC_MAX_IMPL_NAME];
	struct cpcev_cpu c;

	cpcev_cpu_init(&c, vendor, eax1, eax_a, 0);
	cpcev_cciname(&c, buf, sizeof(buf));
	return buf;
}

/* Resolve with attributes given as name, value pairs. */
static int resolve(const struct cpcev_cpu *c, const char *event,
		   struct cpcev_perf *p, unsigned int n, ...)
{
	struct cpcev_attr a[8];
	unsigned int i;
	va_list ap;

	va_start(ap, n);
	for (i = 0; i < n && i < ARRAY_SIZE(a); i++) {
		a[i].name = va_arg(ap, const char *);
		a[i].val = va_arg(ap, uint64_t);
	}
	va_end(ap);
	p->type = ~0U;
	p->config = ~0ULL;
	return cpcev_resolve(c, event, a, n, p);
}

struct names {
	int n;
	char list[65536];
};

static void collect(void *arg, const char *name)
{
	struct names *w = arg;

	w->n++;
	if (strlen(w->list) + strlen(name) + 2 < sizeof(w->list)) {
		strcat(w->list, name);
		strcat(w->list, ",");
	}
}

static int listed(const struct cpcev_cpu *c, int classes, const char *name)
{
	struct names w = { 0 };
	char key[128];

	cpcev_walk(c, classes, collect, &w);
	snprintf(key, sizeof(key), ",%s,", name);
	memmove(w.list + 1, w.list, strlen(w.list) + 1);
	w.list[0] = ',';
	return strstr(w.list, key) != NULL;
}

/* ---- names and encodings -------------------------------------------------- */

TEST(cciname_from_cpuid)
{
	EXPECT_STREQ("Intel Arch PerfMon v4 on Family 6 Model 94",
		     cciname("GenuineIntel", SKYLAKE_EAX1, PERFMON_V4));
	EXPECT_STREQ("Intel Arch PerfMon v0 on Family 6 Model 94",
		     cciname("GenuineIntel", SKYLAKE_EAX1, 0));
	EXPECT_STREQ("Core Microarchitecture",
		     cciname("GenuineIntel", CORE2_EAX1, 0x07280202));
	EXPECT_STREQ("AMD Opteron & Athlon64", cciname("AuthenticAMD", K8_EAX1, 0));
	EXPECT_STREQ("AMD Family 17h", cciname("AuthenticAMD", ZEN1_EAX1, 0));
	EXPECT_STREQ("AMD Family 19h", cciname("AuthenticAMD", ZEN3_EAX1, 0));
	EXPECT_STREQ("Hygon Family 18h", cciname("HygonGenuine", HYGON_EAX1, 0));
	EXPECT_STREQ("CentaurHauls Family 6 Model 15",
		     cciname("CentaurHauls", 0x6f2, 0));
}

TEST(cpuref_names_the_vendor_manual)
{
	char buf[CPC_MAX_CPUREF];
	struct cpcev_cpu c = intel(0);

	cpcev_cpuref(&c, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "Intel 64 and IA-32"));
	c = amd();
	cpcev_cpuref(&c, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "AMD Family 17h"));
	EXPECT_LT(strlen(buf), (size_t)CPC_MAX_CPUREF);
}

TEST(generic_events)
{
	struct cpcev_cpu c = intel(0);
	struct cpcev_perf p;

	ASSERT_EQ(0, resolve(&c, "PAPI_tot_cyc", &p, 0));
	EXPECT_EQ(PERF_TYPE_HARDWARE, p.type);
	EXPECT_EQ(PERF_COUNT_HW_CPU_CYCLES, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_tot_ins", &p, 0));
	EXPECT_EQ(PERF_COUNT_HW_INSTRUCTIONS, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_ref_cyc", &p, 0));
	EXPECT_EQ(PERF_COUNT_HW_REF_CPU_CYCLES, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_br_msp", &p, 0));
	EXPECT_EQ(PERF_COUNT_HW_BRANCH_MISSES, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_l3_tcm", &p, 0));
	EXPECT_EQ(PERF_COUNT_HW_CACHE_MISSES, p.config);
	/* cache events: id | op << 8 | result << 16 */
	ASSERT_EQ(0, resolve(&c, "PAPI_l1_dca", &p, 0));
	EXPECT_EQ(PERF_TYPE_HW_CACHE, p.type);
	EXPECT_EQ(0x00000ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_l1_dcm", &p, 0));
	EXPECT_EQ(0x10000ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_l1_icm", &p, 0));
	EXPECT_EQ(0x10001ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_l3_ldm", &p, 0));
	EXPECT_EQ(0x10002ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_tlb_dm", &p, 0));
	EXPECT_EQ(0x10003ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_tlb_im", &p, 0));
	EXPECT_EQ(0x10004ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_l1_dcw", &p, 0));
	EXPECT_EQ(0x00100ULL, p.config);

	/* the same on every vendor; case matters */
	c = other();
	EXPECT_EQ(0, resolve(&c, "PAPI_br_ins", &p, 0));
	EXPECT_EQ(PERF_COUNT_HW_BRANCH_INSTRUCTIONS, p.config);
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "papi_tot_cyc", &p, 0));
	EXPECT_EQ(0, cpcev_known(&c, "PAPI_TOT_CYC"));
}

TEST(generic_events_refuse_attributes)
{
	struct cpcev_cpu c = intel(0);
	struct cpcev_perf p;

	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE,
		  resolve(&c, "PAPI_tot_ins", &p, 1, "umask", (uint64_t)1));
	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE,
		  resolve(&c, "PAPI_tot_ins", &p, 1, "edge", (uint64_t)0));
	/* picnum is the library's, not the event's */
	EXPECT_EQ(0, resolve(&c, "PAPI_tot_ins", &p, 1, "picnum", (uint64_t)2));
	EXPECT_EQ(PERF_COUNT_HW_INSTRUCTIONS, p.config);
	/* so do the fixed-counter aliases and the software events */
	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE,
		  resolve(&c, "instr_retired.any", &p, 1, "cmask", (uint64_t)1));
	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE,
		  resolve(&c, "sw_task_clock", &p, 1, "inv", (uint64_t)1));
}

TEST(intel_platform_events)
{
	struct cpcev_cpu c = intel(0);
	struct cpcev_perf p;

	ASSERT_EQ(0, resolve(&c, "cpu_clk_unhalted.thread_p", &p, 0));
	EXPECT_EQ(PERF_TYPE_RAW, p.type);
	EXPECT_EQ(0x003cULL, p.config);
	ASSERT_EQ(0, resolve(&c, "inst_retired.any_p", &p, 0));
	EXPECT_EQ(0x00c0ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "cpu_clk_unhalted.ref_p", &p, 0));
	EXPECT_EQ(0x013cULL, p.config);
	ASSERT_EQ(0, resolve(&c, "longest_lat_cache.reference", &p, 0));
	EXPECT_EQ(0x4f2eULL, p.config);
	ASSERT_EQ(0, resolve(&c, "longest_lat_cache.miss", &p, 0));
	EXPECT_EQ(0x412eULL, p.config);
	ASSERT_EQ(0, resolve(&c, "br_inst_retired.all_branches", &p, 0));
	EXPECT_EQ(0x00c4ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "br_misp_retired.all_branches", &p, 0));
	EXPECT_EQ(0x00c5ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "uops_issued.any", &p, 0));
	EXPECT_EQ(0x010eULL, p.config);

	/* fixed-counter names: perf's generic events */
	ASSERT_EQ(0, resolve(&c, "instr_retired.any", &p, 0));
	EXPECT_EQ(PERF_TYPE_HARDWARE, p.type);
	EXPECT_EQ(PERF_COUNT_HW_INSTRUCTIONS, p.config);
	ASSERT_EQ(0, resolve(&c, "cpu_clk_unhalted.core", &p, 0));
	EXPECT_EQ(PERF_COUNT_HW_CPU_CYCLES, p.config);
	ASSERT_EQ(0, resolve(&c, "cpu_clk_unhalted.ref", &p, 0));
	EXPECT_EQ(PERF_COUNT_HW_REF_CPU_CYCLES, p.config);

	/* AMD names are not Intel's */
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "BU_cpu_clk_unhalted", &p, 0));
	EXPECT_EQ(0, cpcev_known(&c, "DC_miss"));
}

TEST(intel_attributes)
{
	struct cpcev_cpu c = intel(0);
	struct cpcev_perf p;

	ASSERT_EQ(0, resolve(&c, "0x3c", &p, 4, "umask", (uint64_t)0x01,
			     "cmask", (uint64_t)2, "edge", (uint64_t)7,
			     "inv", (uint64_t)1));
	EXPECT_EQ(PERF_TYPE_RAW, p.type);
	EXPECT_EQ(0x3cULL | 0x01ULL << 8 | 1ULL << 18 | 1ULL << 23 | 2ULL << 24,
		  p.config);
	/* false booleans set nothing; umask replaces the event's (Solaris) */
	ASSERT_EQ(0, resolve(&c, "longest_lat_cache.miss", &p, 3,
			     "edge", (uint64_t)0, "inv", (uint64_t)0,
			     "umask", (uint64_t)0x0e));
	EXPECT_EQ(0x0e2eULL, p.config);
	ASSERT_EQ(0, resolve(&c, "longest_lat_cache.reference", &p, 1,
			     "umask", (uint64_t)0x01));
	EXPECT_EQ(0x012eULL, p.config) TH_LOG("a narrower unit mask counted the wider event");
	ASSERT_EQ(0, resolve(&c, "cpu_clk_unhalted.ref_p", &p, 1, "umask", (uint64_t)0));
	EXPECT_EQ(0x003cULL, p.config);
	/* bounds */
	EXPECT_EQ(0, resolve(&c, "0xc0", &p, 1, "umask", (uint64_t)0xff));
	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE,
		  resolve(&c, "0xc0", &p, 1, "umask", (uint64_t)0x100));
	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE,
		  resolve(&c, "0xc0", &p, 1, "cmask", (uint64_t)0x100));
	/* the USR, OS, INT and EN bits are never set */
	ASSERT_EQ(0, resolve(&c, "0xff", &p, 4, "umask", (uint64_t)0xff,
			     "cmask", (uint64_t)0xff, "edge", (uint64_t)1,
			     "inv", (uint64_t)1));
	EXPECT_EQ(0ULL, p.config & (1ULL << 16 | 1ULL << 17 | 1ULL << 20 |
				    1ULL << 22));
	/* "pc" is AMD's */
	EXPECT_EQ(CPC_INVALID_ATTRIBUTE,
		  resolve(&c, "0xc0", &p, 1, "pc", (uint64_t)1));
	EXPECT_EQ(CPC_INVALID_ATTRIBUTE,
		  resolve(&c, "0xc0", &p, 1, "anythr", (uint64_t)1));
	EXPECT_STREQ("edge,inv,umask,cmask,picnum", cpcev_attr_list(&c));
	EXPECT_EQ(1, cpcev_attr_known(&c, "cmask"));
	EXPECT_EQ(1, cpcev_attr_known(&c, "picnum"));
	EXPECT_EQ(0, cpcev_attr_known(&c, "pc"));
	EXPECT_EQ(0, cpcev_attr_known(&c, ""));
	EXPECT_EQ(0, cpcev_attr_known(&c, "umas"));
	EXPECT_EQ(0, cpcev_attr_known(&c, "picnum,"));
}

TEST(intel_architectural_events_follow_cpuid)
{
	/* EBX bit 4 set: LLC misses not available */
	struct cpcev_cpu c = intel(1U << 4);
	struct cpcev_perf p;

	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "longest_lat_cache.reference"));
	EXPECT_EQ(0, listed(&c, CPCEV_PLATFORM, "longest_lat_cache.miss"));
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "longest_lat_cache.miss", &p, 0));
	/* the raw code still works */
	EXPECT_EQ(0, resolve(&c, "0x2e", &p, 1, "umask", (uint64_t)0x41));
	EXPECT_EQ(0x412eULL, p.config);

	/* a shorter EBX vector: events past its length are absent */
	cpcev_cpu_init(&c, "GenuineIntel", SKYLAKE_EAX1, 0x05300804, 0);
	force_pmu(&c, "skl");
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "longest_lat_cache.miss"));
	EXPECT_EQ(0, listed(&c, CPCEV_PLATFORM, "br_inst_retired.all_branches"));
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "uops_issued.any"));

	/* version 0 (no CPUID information, as under TCG): all offered */
	cpcev_cpu_init(&c, "GenuineIntel", SKYLAKE_EAX1, 0, 0xff);
	force_pmu(&c, "skl");
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "br_misp_retired.all_branches"));
}

TEST(amd_platform_events)
{
	struct cpcev_cpu c = amd();
	struct cpcev_perf p;

	ASSERT_EQ(0, resolve(&c, "BU_cpu_clk_unhalted", &p, 0));
	EXPECT_EQ(PERF_TYPE_RAW, p.type);
	EXPECT_EQ(0x76ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "FR_retired_x86_instr_w_excp_intr", &p, 0));
	EXPECT_EQ(0xc0ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "FR_retired_branches_w_excp_intr", &p, 0));
	EXPECT_EQ(0xc2ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "FR_retired_branches_mispred", &p, 0));
	EXPECT_EQ(0xc3ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "DC_access", &p, 0));
	EXPECT_EQ(0x40ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "DC_miss", &p, 0));
	EXPECT_EQ(0x41ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "IC_fetch", &p, 0));
	EXPECT_EQ(0x80ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "IC_miss", &p, 0));
	EXPECT_EQ(0x81ULL, p.config);
	/* illumos' unit: 0 without a unit mask (opteron_pcbe's tables) */
	ASSERT_EQ(0, resolve(&c, "DC_refill_from_L2", &p, 0));
	EXPECT_EQ(0x42ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "DC_refill_from_L2", &p, 1, "umask", (uint64_t)0x10));
	EXPECT_EQ(0x1042ULL, p.config);
	/* and any 8-bit unit mask, as illumos takes it */
	ASSERT_EQ(0, resolve(&c, "DC_refill_from_L2", &p, 1, "umask", (uint64_t)0xe0));
	EXPECT_EQ(0xe042ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "DC_access", &p, 1, "umask", (uint64_t)0x01));
	EXPECT_EQ(0x0140ULL, p.config);
	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE,
		  resolve(&c, "DC_access", &p, 1, "umask", (uint64_t)0x100));

	/* attributes; pc accepted with no effect; raw codes take any umask */
	ASSERT_EQ(0, resolve(&c, "0x40", &p, 5, "edge", (uint64_t)1,
			     "pc", (uint64_t)1, "inv", (uint64_t)1,
			     "cmask", (uint64_t)3, "umask", (uint64_t)0x0f));
	EXPECT_EQ(0x40ULL | 0x0fULL << 8 | 1ULL << 18 | 1ULL << 23 | 3ULL << 24,
		  p.config);
	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE,
		  resolve(&c, "DC_access", &p, 1, "cmask", (uint64_t)256));
	EXPECT_STREQ("edge,pc,inv,cmask,umask,picnum", cpcev_attr_list(&c));

	/* 12-bit codes: bits 11:8 go to event-select bits 35:32 */
	ASSERT_EQ(0, resolve(&c, "0x1d6", &p, 0));
	EXPECT_EQ(0x1000000d6ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "0xfff", &p, 0));
	EXPECT_EQ(0xf000000ffULL, p.config);
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "0x1000", &p, 0));

	/* Intel names are not AMD's; Hygon has the AMD tables */
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "inst_retired.any_p", &p, 0));
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "instr_retired.any", &p, 0));
	cpcev_cpu_init(&c, "HygonGenuine", HYGON_EAX1, 0, 0);
	EXPECT_EQ(0, resolve(&c, "IC_miss", &p, 0));
	EXPECT_EQ(0x81ULL, p.config);
}

/* ---- libpfm4's model tables ---------------------------------------------- */

/* The generic events every processor has (perf's own generic events). */
#define N_PERF_GENERIC	22

TEST(libpfm4_intel_names)
{
	struct cpcev_cpu c = intel(0);
	struct names w = { 0 };
	struct cpcev_perf p;

	EXPECT_STREQ("skl", c.pfm_name);
	/* Intel's published names and libpfm4's spelling of them */
	ASSERT_EQ(0, resolve(&c, "inst_retired.any_p", &p, 0));
	EXPECT_EQ(PERF_TYPE_RAW, p.type);
	EXPECT_EQ(0x00c0ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "INST_RETIRED:ANY_P", &p, 0));
	EXPECT_EQ(0x00c0ULL, p.config);
	/* Skylake events no hand table had */
	ASSERT_EQ(0, resolve(&c, "l2_rqsts.demand_data_rd_miss", &p, 0));
	EXPECT_EQ(0x2124ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "br_inst_retired.near_taken", &p, 0));
	EXPECT_EQ(0x20c4ULL, p.config);
	/* the event's cmask and inv come with it; no privilege bits */
	ASSERT_EQ(0, resolve(&c, "uops_issued.stall_cycles", &p, 0));
	EXPECT_EQ(0x010eULL | 1ULL << 23 | 1ULL << 24, p.config);
	/* a umask attribute replaces the unit mask (Solaris' Intel back-end) */
	ASSERT_EQ(0, resolve(&c, "inst_retired.any_p", &p, 1,
			     "umask", (uint64_t)0x01));
	EXPECT_EQ(0x01c0ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "l2_rqsts.references", &p, 1,
			     "umask", (uint64_t)0x21));
	EXPECT_EQ(0x2124ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "l2_rqsts.miss", &p, 2, "umask", (uint64_t)0x22,
			     "cmask", (uint64_t)1));
	EXPECT_EQ(0x01002224ULL, p.config);
	/* events that need more than the event select are not offered */
	EXPECT_EQ(0, cpcev_known(&c, "offcore_response_0.dmnd_data_rd"));
	/* nor AnyThread events, which pmcompat refuses */
	EXPECT_EQ(0, cpcev_known(&c, "int_misc.recovery_cycles_any"));
	EXPECT_EQ(0, listed(&c, CPCEV_PLATFORM, "int_misc.recovery_cycles_any"));
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "int_misc.recovery_cycles"));
	/* no other model's names; no other PMU */
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "RETIRED_INSTRUCTIONS", &p, 0));
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "skl::INST_RETIRED", &p, 0));
	EXPECT_EQ(CPC_INVALID_EVENT,
		  resolve(&c, "inst_retired.any_p:u=1", &p, 0));

	/* listed under Intel's names, hundreds of them */
	cpcev_walk(&c, CPCEV_PLATFORM, collect, &w);
	EXPECT_GT(w.n, 300);
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "l2_rqsts.demand_data_rd_miss"));
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "inst_retired.any_p"));
	/* libpfm4 spells these CPU_CLK_THREAD_UNHALTED: listed all the same */
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "cpu_clk_unhalted.thread_p"));
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "cpu_clk_unhalted.ref_p"));
	EXPECT_EQ(0, listed(&c, CPCEV_PLATFORM, "INST_RETIRED:ANY_P"));

	/* the generic events perf lacks, from the model */
	ASSERT_EQ(0, resolve(&c, "PAPI_br_tkn", &p, 0));
	EXPECT_EQ(PERF_TYPE_RAW, p.type);
	EXPECT_EQ(0x20c4ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_l2_tcm", &p, 0));
	EXPECT_EQ(0x3f24ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_ld_ins", &p, 0));
	EXPECT_EQ(0x81d0ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "PAPI_hw_int", &p, 0));
	EXPECT_EQ(0x01cbULL, p.config);
	EXPECT_EQ(1, listed(&c, CPCEV_GENERIC, "PAPI_br_ntk"));
}

TEST(libpfm4_amd_names)
{
	struct cpcev_cpu c = amd();
	struct cpcev_perf p;
	struct names w = { 0 };

	EXPECT_STREQ("amd64_fam17h_zen1", c.pfm_name);
	ASSERT_EQ(0, resolve(&c, "RETIRED_INSTRUCTIONS", &p, 0));
	EXPECT_EQ(0xc0ULL, p.config);
	/* no unit mask: all valid bits; a umask must be a subset of them */
	ASSERT_EQ(0, resolve(&c, "LS_DISPATCH", &p, 0));
	EXPECT_EQ(0x0729ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "LS_DISPATCH", &p, 1, "umask", (uint64_t)0x01));
	EXPECT_EQ(0x0129ULL, p.config);
	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE,
		  resolve(&c, "LS_DISPATCH", &p, 1, "umask", (uint64_t)0x08));
	ASSERT_EQ(0, resolve(&c, "LS_DISPATCH:LD_DISPATCH", &p, 0));
	EXPECT_EQ(0x0129ULL, p.config);
	/* illumos' names still work (uperf) */
	ASSERT_EQ(0, resolve(&c, "FR_retired_x86_instr_w_excp_intr", &p, 0));
	EXPECT_EQ(0xc0ULL, p.config);
	/* Intel's names are not AMD's */
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "inst_retired.any_p", &p, 0));
	cpcev_walk(&c, CPCEV_PLATFORM, collect, &w);
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "RETIRED_INSTRUCTIONS"));
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "LS_DISPATCH"));
	EXPECT_GT(w.n, 64 + 7);
	ASSERT_EQ(0, resolve(&c, "PAPI_br_cn", &p, 0));
	EXPECT_EQ(0xd1ULL, p.config);
	EXPECT_EQ(0, listed(&c, CPCEV_GENERIC, "PAPI_l2_tcm"));
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "PAPI_l2_tcm", &p, 0));
}

TEST(libpfm4_unknown_model_gets_generic_events)
{
	struct cpcev_cpu c;
	struct cpcev_perf p;
	struct names g = { 0 };

	/* a family 6 model no table has: libpfm4 finds no PMU */
	cpcev_cpu_init(&c, "GenuineIntel", 0x000f06f0, PERFMON_V4, 0);
	force_pmu(&c, "none");
	EXPECT_EQ(0, c.pfm_pmu);
	cpcev_walk(&c, CPCEV_GENERIC, collect, &g);
	EXPECT_EQ(N_PERF_GENERIC, g.n);
	EXPECT_EQ(0, resolve(&c, "PAPI_tot_ins", &p, 0));
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "PAPI_br_tkn", &p, 0));
	/* the architectural events need no model table */
	ASSERT_EQ(0, resolve(&c, "inst_retired.any_p", &p, 1,
			     "umask", (uint64_t)0x01));
	EXPECT_EQ(0x01c0ULL, p.config);
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "uops_issued.any", &p, 0));
	EXPECT_EQ(0, listed(&c, CPCEV_PLATFORM, "uops_issued.any"));

	cpcev_cpu_init(&c, "AuthenticAMD", ZEN1_EAX1, 0, 0);
	force_pmu(&c, "none");
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "RETIRED_INSTRUCTIONS", &p, 0));
	EXPECT_EQ(0, resolve(&c, "DC_miss", &p, 0));
}

TEST(raw_codes)
{
	struct cpcev_cpu c = intel(0);
	struct cpcev_perf p;

	EXPECT_EQ(1, cpcev_known(&c, "0xc0"));
	EXPECT_EQ(1, cpcev_known(&c, "192"));
	EXPECT_EQ(1, cpcev_known(&c, "0300"));	/* octal 192 */
	EXPECT_EQ(0, cpcev_known(&c, ""));
	EXPECT_EQ(0, cpcev_known(&c, "0xc0 "));
	EXPECT_EQ(0, cpcev_known(&c, "12abc"));
	EXPECT_EQ(0, cpcev_known(&c, "no_such_event"));
	ASSERT_EQ(0, resolve(&c, "192", &p, 0));
	EXPECT_EQ(0xc0ULL, p.config);
	ASSERT_EQ(0, resolve(&c, "0300", &p, 0));
	EXPECT_EQ(0xc0ULL, p.config);
	/* known (it parses) but not an event code */
	EXPECT_EQ(1, cpcev_known(&c, "-1"));
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "-1", &p, 0));
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "0x100", &p, 0));
	EXPECT_EQ(CPC_INVALID_EVENT, resolve(&c, "0x1d6", &p, 0));
	EXPECT_EQ(CPC_INVALID_EVENT,
		  resolve(&c, "99999999999999999999999", &p, 0));
	EXPECT_EQ(CPC_INVALID_ATTRIBUTE,
		  resolve(&c, "0xc0", &p, 1, "bogus", (uint64_t)1));
}

TEST(software_events)
{
	static const struct { const char *name; uint64_t config; } sw[] = {
		{ "sw_cpu_clock", PERF_COUNT_SW_CPU_CLOCK },
		{ "sw_task_clock", PERF_COUNT_SW_TASK_CLOCK },
		{ "sw_page_faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "sw_context_switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "sw_cpu_migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "sw_minor_faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "sw_major_faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	};
	struct cpcev_cpu cpus[3] = { intel(0), amd(), other() };
	struct cpcev_perf p;
	unsigned int i, j;

	for (j = 0; j < ARRAY_SIZE(cpus); j++) {
		for (i = 0; i < ARRAY_SIZE(sw); i++) {
			ASSERT_EQ(0, resolve(&cpus[j], sw[i].name, &p, 0));
			EXPECT_EQ(PERF_TYPE_SOFTWARE, p.type);
			EXPECT_EQ(sw[i].config, p.config);
			EXPECT_EQ(1, listed(&cpus[j], CPCEV_PLATFORM, sw[i].name));
			EXPECT_EQ(0, listed(&cpus[j], CPCEV_GENERIC, sw[i].name));
		}
	}
}

TEST(other_vendor_lists)
{
	struct cpcev_cpu c = other();
	struct names w = { 0 };
	struct cpcev_perf p;

	cpcev_walk(&c, CPCEV_PLATFORM, collect, &w);
	EXPECT_EQ(7, w.n);	/* the software events */
	EXPECT_STREQ("picnum", cpcev_attr_list(&c));
	/* raw codes, without attributes */
	EXPECT_EQ(0, resolve(&c, "0xc0", &p, 0));
	EXPECT_EQ(CPC_INVALID_ATTRIBUTE,
		  resolve(&c, "0xc0", &p, 1, "umask", (uint64_t)1));
}

TEST(walk_classes)
{
	struct cpcev_cpu c = intel(0);
	struct names g = { 0 }, pl = { 0 }, all = { 0 };

	cpcev_walk(&c, CPCEV_GENERIC, collect, &g);
	cpcev_walk(&c, CPCEV_PLATFORM, collect, &pl);
	cpcev_walk(&c, CPCEV_GENERIC | CPCEV_PLATFORM, collect, &all);
	EXPECT_EQ(N_PERF_GENERIC + 14, g.n);
	EXPECT_EQ(g.n + pl.n, all.n);
	EXPECT_EQ(0, strncmp(g.list, "PAPI_tot_cyc,PAPI_tot_ins,", 26));
	EXPECT_EQ(NULL, strstr(pl.list, "PAPI"));
	EXPECT_EQ(1, listed(&c, CPCEV_PLATFORM, "cpu_clk_unhalted.thread"));
	/* every listed name resolves */
	{
		char *save, *name;

		for (name = strtok_r(all.list, ",", &save); name;
		     name = strtok_r(NULL, ",", &save)) {
			struct cpcev_perf p;

			EXPECT_EQ(1, cpcev_known(&c, name));
			EXPECT_EQ(0, resolve(&c, name, &p, 0)) {
				TH_LOG("%s", name);
			}
		}
	}
}

TEST(subcode_messages)
{
	static const char *const msgs[] = {
		NULL,
		"Unknown event\n",
		"Invalid counter number\n",
		"Unknown attribute\n",
		"Attribute out of range\n",
		"Hardware resource unavailable\n",
		"Counter cannot count requested event\n",
		"Invalid flags in a request\n",
		"Requests conflict with each other\n",
		"Attribute requires the cpc_cpu privilege\n",
		"Couldn't bind LWP to requested processor\n",
		"Hypervisor event access denied\n",
	};
	int i;

	EXPECT_EQ(1, CPC_INVALID_EVENT);
	EXPECT_EQ(11, CPC_HV_NO_ACCESS);
	for (i = 1; i < (int)ARRAY_SIZE(msgs); i++)
		EXPECT_STREQ(msgs[i], cpcev_errstr(i));
	EXPECT_EQ(NULL, cpcev_errstr(0));
	EXPECT_EQ(NULL, cpcev_errstr(-1));
	EXPECT_EQ(NULL, cpcev_errstr(12));
}

TEST(solaris_definitions)
{
	EXPECT_EQ(2, CPC_VER_CURRENT);
	EXPECT_EQ(40, SIGEMT);
	EXPECT_EQ(2, EMT_CPCOVF);
	EXPECT_EQ(REG_RIP, PC);
	EXPECT_EQ(REG_RSP, SP);
	EXPECT_EQ(REG_RIP, REG_PC);
	EXPECT_EQ((id_t)gettid(), _lwp_self());
	EXPECT_EQ(8, (int)sizeof(hrtime_t));
	EXPECT_EQ(1, (hrtime_t)-1 < 0);
	EXPECT_EQ(1, SIGEMT >= SIGRTMIN && SIGEMT <= SIGRTMAX);
}

/* ---- the library on a handle without a device ------------------------------ */

static int err_calls, err_subcode;
static char err_fn[64], err_msg[256];
static cpc_t *err_cpc;

static void record(const char *fn, int subcode, const char *fmt, va_list ap)
{
	err_calls++;
	err_subcode = subcode;
	snprintf(err_fn, sizeof(err_fn), "%s", fn);
	vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
	/* The library's lock is not held: this would deadlock otherwise. */
	if (err_cpc)
		cpc_set_destroy(err_cpc, cpc_set_create(err_cpc));
	errno = 12345;	/* the library keeps its own errno */
}

static cpc_t *handle(const struct cpcev_cpu *c, uint_t npic, uint_t caps)
{
	struct pmc_cpc_info info = {
		.size = sizeof(info), .abi_version = PMC_CPC_ABI_VERSION,
		.npic = npic, .caps = caps, .hw_pmu = 1,
	};
	cpc_t *cpc = __cpc_open_fd(-1, &info, c);

	if (cpc)
		cpc_seterrhndlr(cpc, record);
	err_calls = 0;
	err_subcode = 0;
	err_cpc = cpc;
	alarm(20);	/* a deadlock fails the test */
	return cpc;
}

#define CAPS	(CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE)

TEST(open_and_describe)
{
	struct cpcev_cpu c = intel(0);
	cpc_t *cpc = handle(&c, 4, CAPS);

	ASSERT_NE(NULL, cpc);
	EXPECT_EQ(4U, cpc_npic(cpc));
	EXPECT_EQ((uint_t)CAPS, cpc_caps(cpc));
	EXPECT_STREQ("Intel Arch PerfMon v4 on Family 6 Model 94",
		     cpc_cciname(cpc));
	EXPECT_NE(NULL, strstr(cpc_cpuref(cpc), "Intel"));
	EXPECT_EQ(0, cpc_close(cpc));

	errno = 0;
	EXPECT_EQ(NULL, cpc_open(1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, cpc_open(3));
	EXPECT_EQ(EINVAL, errno);
	if (access(PMC_CPC_PATH, F_OK) == 0)
		SKIP(return, "%s exists here", PMC_CPC_PATH);
	errno = 0;
	EXPECT_EQ(NULL, cpc_open(CPC_VER_CURRENT));
	EXPECT_EQ(ENOENT, errno);
}

struct walked {
	int n;
	int index[8];
	char event[8][64];
	uint64_t preset[8];
	uint_t flags[8];
	int nattrs[8];
	char attr0[8][32];
	uint64_t val0[8];
};

static void walk_req(void *arg, int index, const char *event, uint64_t preset,
		     uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	struct walked *w = arg;
	int i = w->n++;

	w->index[i] = index;
	snprintf(w->event[i], sizeof(w->event[i]), "%s", event);
	w->preset[i] = preset;
	w->flags[i] = flags;
	w->nattrs[i] = nattrs;
	if (nattrs) {
		snprintf(w->attr0[i], sizeof(w->attr0[i]), "%s", attrs[0].ca_name);
		w->val0[i] = attrs[0].ca_val;
	}
}

TEST(add_request_indexes_and_walk)
{
	struct cpcev_cpu c = intel(0);
	cpc_t *cpc = handle(&c, 4, CAPS);
	char name[] = "umask";
	cpc_attr_t attrs[] = { { name, 0x41 }, { (char *)"picnum", 3 } };
	struct walked w = { 0 };
	cpc_set_t *set;

	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	EXPECT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 5,
					 CPC_COUNT_USER, 0, NULL));
	EXPECT_EQ(1, cpc_set_add_request(cpc, set, "0x2e", 0,
					 CPC_COUNT_USER | CPC_COUNT_SYSTEM, 2,
					 attrs));
	/* the library keeps copies */
	strcpy(name, "xxxxx");
	EXPECT_EQ(2, cpc_set_add_request(cpc, set, "sw_page_faults", 7,
					 CPC_COUNT_SYSTEM, 0, NULL));
	EXPECT_EQ(0, err_calls);

	cpc_walk_requests(cpc, set, &w, walk_req);
	ASSERT_EQ(3, w.n);
	/* newest first, as Solaris' list */
	EXPECT_EQ(2, w.index[0]);
	EXPECT_STREQ("sw_page_faults", w.event[0]);
	EXPECT_EQ(7ULL, w.preset[0]);
	EXPECT_EQ((uint_t)CPC_COUNT_SYSTEM, w.flags[0]);
	EXPECT_EQ(1, w.index[1]);
	EXPECT_STREQ("0x2e", w.event[1]);
	EXPECT_EQ(2, w.nattrs[1]);
	EXPECT_STREQ("umask", w.attr0[1]);
	EXPECT_EQ(0x41ULL, w.val0[1]);
	EXPECT_EQ(0, w.index[2]);
	EXPECT_EQ(5ULL, w.preset[2]);
	EXPECT_EQ(0, cpc_set_destroy(cpc, set));
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST(add_request_errors)
{
	struct cpcev_cpu c = intel(0);
	cpc_t *cpc = handle(&c, 4, CAPS);
	cpc_t *cpc2 = handle(&c, 4, CAPS);
	cpc_attr_t bad[] = { { (char *)"bogus", 1 } };
	cpc_attr_t empty[] = { { (char *)"", 1 } };
	cpc_attr_t pic4[] = { { (char *)"picnum", 4 } };
	cpc_attr_t pic3[] = { { (char *)"picnum", 3 } };
	char longname[CPC_MAX_EVENT_LEN + 8];
	cpc_set_t *set, *other_set;

	ASSERT_NE(NULL, cpc);
	ASSERT_NE(NULL, cpc2);
	err_cpc = cpc;
	set = cpc_set_create(cpc);
	other_set = cpc_set_create(cpc2);

	errno = 0;
	EXPECT_EQ(-1, cpc_set_add_request(cpc, set, "EC_ref", 0,
					  CPC_COUNT_USER, 0, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, err_calls);
	EXPECT_EQ(CPC_INVALID_EVENT, err_subcode);
	EXPECT_STREQ("cpc_set_add_request", err_fn);
	EXPECT_STREQ("Unknown event\n", err_msg);

	EXPECT_EQ(-1, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
					  CPC_COUNT_USER, 1, bad));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_INVALID_ATTRIBUTE, err_subcode);
	EXPECT_STREQ("Unknown attribute\n", err_msg);
	EXPECT_EQ(-1, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
					  CPC_COUNT_USER, 1, empty));
	EXPECT_EQ(CPC_INVALID_ATTRIBUTE, err_subcode);
	EXPECT_EQ(-1, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
					  CPC_COUNT_USER, 1, pic4));
	EXPECT_EQ(CPC_INVALID_PICNUM, err_subcode);
	EXPECT_STREQ("Invalid counter number\n", err_msg);
	EXPECT_EQ(4, err_calls);

	memset(longname, '1', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	EXPECT_EQ(-1, cpc_set_add_request(cpc, set, longname, 0,
					  CPC_COUNT_USER, 0, NULL));
	EXPECT_EQ(CPC_INVALID_EVENT, err_subcode);

	/* no subcode: the handler is not called */
	err_calls = 0;
	EXPECT_EQ(-1, cpc_set_add_request(cpc, other_set, "PAPI_tot_ins", 0,
					  CPC_COUNT_USER, 0, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
					  CPC_COUNT_USER, 1, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, err_calls);
	EXPECT_EQ(-1, cpc_set_destroy(cpc, other_set));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, cpc_buf_create(cpc, other_set));
	EXPECT_EQ(EINVAL, errno);

	/* nothing was added; valid requests still start at 0 */
	EXPECT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
					 CPC_COUNT_USER, 1, pic3));
	/* flags are checked when binding */
	EXPECT_EQ(1, cpc_set_add_request(cpc, set, "PAPI_tot_cyc", 0,
					 0x100, 0, NULL));
	cpc_close(cpc2);
	cpc_close(cpc);
}

TEST(default_error_handler)
{
	struct cpcev_cpu c = intel(0);
	cpc_t *cpc = handle(&c, 4, CAPS);
	char out[256] = "";
	FILE *f = tmpfile();
	cpc_set_t *set;
	int saved;

	ASSERT_NE(NULL, cpc);
	ASSERT_NE(NULL, f);
	EXPECT_EQ(0, cpc_seterrhndlr(cpc, NULL));
	set = cpc_set_create(cpc);
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(f), 2);
	EXPECT_EQ(-1, cpc_set_add_request(cpc, set, "nonsense", 0,
					  CPC_COUNT_USER, 0, NULL));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	EXPECT_NE(NULL, fgets(out, sizeof(out), f));
	EXPECT_STREQ("libcpc: cpc_set_add_request: Unknown event\n", out);
	fclose(f);
	cpc_close(cpc);
}

TEST(bind_checks_before_the_kernel)
{
	struct cpcev_cpu c = intel(0);
	cpc_t *cpc = handle(&c, 4, CAPS);
	cpc_attr_t big[] = { { (char *)"umask", 0x100 } };
	cpc_attr_t pic1[] = { { (char *)"picnum", 1 } };
	cpc_set_t *set;
	int i;

	ASSERT_NE(NULL, cpc);
	err_cpc = cpc;
	/* empty set: EINVAL without subcode */
	set = cpc_set_create(cpc);
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, err_calls);
	/* bad bind flags */
	cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, CPC_COUNT_USER, 0, NULL);
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, CPC_BIND_EMT_OVF));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_bind_cpu(cpc, 0, set, CPC_BIND_LWP_INHERIT));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, err_calls);
	/* a valid set reaches the (missing) device */
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(0, err_calls);
	cpc_set_destroy(cpc, set);

	/* attribute value */
	set = cpc_set_create(cpc);
	EXPECT_EQ(0, cpc_set_add_request(cpc, set, "0xc0", 0, CPC_COUNT_USER,
					 1, big));
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE, err_subcode);
	EXPECT_STREQ("cpc_bind_curlwp", err_fn);
	EXPECT_STREQ("Attribute out of range\n", err_msg);
	cpc_set_destroy(cpc, set);

	/* raw code out of range */
	set = cpc_set_create(cpc);
	EXPECT_EQ(0, cpc_set_add_request(cpc, set, "0x1c0", 0, CPC_COUNT_USER,
					 0, NULL));
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(CPC_INVALID_EVENT, err_subcode);
	cpc_set_destroy(cpc, set);

	/* request flags */
	set = cpc_set_create(cpc);
	cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, 0x10, 0, NULL);
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_REQ_INVALID_FLAGS, err_subcode);
	cpc_set_destroy(cpc, set);

	/* two requests for one counter */
	set = cpc_set_create(cpc);
	cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, CPC_COUNT_USER, 1, pic1);
	cpc_set_add_request(cpc, set, "PAPI_tot_cyc", 0, CPC_COUNT_USER, 1, pic1);
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(CPC_RESOURCE_UNAVAIL, err_subcode);
	cpc_set_destroy(cpc, set);

	/* more requests than the kernel takes */
	set = cpc_set_create(cpc);
	for (i = 0; i <= PMC_CPC_MAX_REQS; i++)
		cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, CPC_COUNT_USER,
				    0, NULL);
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_RESOURCE_UNAVAIL, err_subcode);
	EXPECT_STREQ("Hardware resource unavailable\n", err_msg);
	cpc_set_destroy(cpc, set);
	cpc_close(cpc);

	/* overflow without the capability */
	cpc = handle(&c, 4, 0);
	set = cpc_set_create(cpc);
	cpc_set_add_request(cpc, set, "PAPI_tot_ins", UINT64_MAX - 999,
			    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(ENOTSUP, errno);
	EXPECT_EQ(0, err_calls);
	cpc_close(cpc);
}

/* The first CPU the calling thread may run on. */
static int allowed_cpu(void)
{
	cpu_set_t m;
	int i;

	if (sched_getaffinity(0, sizeof(m), &m))
		return -1;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &m))
			return i;
	return -1;
}

TEST(bind_cpu_pins_and_restores)
{
	struct cpcev_cpu c = intel(0);
	cpc_t *cpc = handle(&c, 4, CAPS);
	cpu_set_t before, after;
	cpc_set_t *set;
	int cpu = allowed_cpu();

	ASSERT_NE(NULL, cpc);
	ASSERT_LE(0, cpu);
	set = cpc_set_create(cpc);
	cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, CPC_COUNT_USER, 0, NULL);

	EXPECT_EQ(-1, cpc_bind_cpu(cpc, -1, set, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_PBIND_FAILED, err_subcode);
	EXPECT_STREQ("cpc_bind_cpu", err_fn);
	EXPECT_STREQ("Couldn't bind LWP to requested processor\n", err_msg);

	/* a CPU that does not exist */
	err_subcode = 0;
	EXPECT_EQ(-1, cpc_bind_cpu(cpc, 100000, set, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_PBIND_FAILED, err_subcode);

	/* pinned, the kernel fails (no device), the affinity comes back */
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(before), &before));
	err_subcode = 0;
	EXPECT_EQ(-1, cpc_bind_cpu(cpc, cpu, set, 0));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(0, err_subcode);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(after), &after));
	EXPECT_EQ(1, CPU_EQUAL(&before, &after));
	cpc_close(cpc);
}

TEST(bind_pctx_and_unbound_sets)
{
	struct cpcev_cpu c = intel(0);
	cpc_t *cpc = handle(&c, 4, CAPS);
	cpc_set_t *set;
	cpc_buf_t *buf;
	pctx_t *pctx;

	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, CPC_COUNT_USER, 0, NULL);
	buf = cpc_buf_create(cpc, set);
	pctx = pctx_capture(getppid(), NULL, 0, NULL);
	ASSERT_NE(NULL, pctx);

	EXPECT_EQ(-1, cpc_bind_pctx(cpc, pctx, 1, set, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_bind_pctx(cpc, NULL, 1, set, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_bind_pctx(cpc, pctx, 1, set, 0));
	EXPECT_EQ(EBADF, errno);

	/* nothing is bound */
	EXPECT_EQ(-1, cpc_unbind(cpc, set));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_set_sample(cpc, set, buf));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_set_restart(cpc, set));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_request_preset(cpc, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_request_preset(cpc, 0, 0));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, cpc_enable(cpc));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, cpc_disable(cpc));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(0, err_calls);
	cpc_terminate(cpc);	/* nothing bound: kills nobody */
	pctx_release(pctx);
	cpc_close(cpc);
}

/* The calls of a SIGEMT handler never wait for the handle's lock. */
TEST(handler_calls_take_no_lock)
{
	struct cpcev_cpu c = intel(0);
	cpc_t *cpc = handle(&c, 4, CAPS);
	struct cpc_bind fake = { .kind = CS_BOUND_CURLWP, .thr = gettid() };
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint64_t v;
	int kind;

	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, CPC_COUNT_USER, 0, NULL);
	buf = cpc_buf_create(cpc, set);
	/* As if bound: to this thread, then to an LWP of a process context. */
	for (kind = CS_BOUND_CURLWP; kind <= CS_BOUND_PCTX; kind++) {
		fake.kind = kind;
		set->binds = &fake;
		set->state = kind;

		pthread_mutex_lock(&cpc->lock);
		EXPECT_EQ(-1, cpc_set_sample(cpc, set, buf));
		EXPECT_EQ(EBADF, errno);
		EXPECT_EQ(-1, cpc_set_restart(cpc, set));
		EXPECT_EQ(EBADF, errno);
		EXPECT_EQ(-1, cpc_request_preset(cpc, 0, 5));
		EXPECT_EQ(0, cpc_buf_get(cpc, buf, 0, &v));
		pthread_mutex_unlock(&cpc->lock);
	}

	/* SIGEMT is blocked while the lock is held, and only then */
	{
		sigset_t now;

		__cpc_lock(cpc, &now);
		{
			sigset_t in;

			pthread_sigmask(SIG_BLOCK, NULL, &in);
			EXPECT_EQ(1, sigismember(&in, SIGEMT));
		}
		__cpc_unlock(cpc, &now);
		pthread_sigmask(SIG_BLOCK, NULL, &now);
		EXPECT_EQ(0, sigismember(&now, SIGEMT));
	}
	set->binds = NULL;
	set->state = CS_UNBOUND;
	cpc_close(cpc);
}

/* ---- buffers -------------------------------------------------------------- */

TEST(buffers)
{
	struct cpcev_cpu c = intel(0);
	cpc_t *cpc = handle(&c, 4, CAPS);
	cpc_buf_t *a, *b, *d, *small;
	cpc_set_t *set, *set1;
	uint64_t v = 0;
	int i;

	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	set1 = cpc_set_create(cpc);
	for (i = 0; i < 3; i++)
		cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, CPC_COUNT_USER,
				    0, NULL);
	cpc_set_add_request(cpc, set1, "PAPI_tot_ins", 0, CPC_COUNT_USER, 0, NULL);
	a = cpc_buf_create(cpc, set);
	b = cpc_buf_create(cpc, set);
	d = cpc_buf_create(cpc, set);
	small = cpc_buf_create(cpc, set1);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, small);
	EXPECT_EQ(3 * sizeof(uint64_t), a->size);

	/* new buffers are zero */
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, cpc_buf_get(cpc, a, i, &v));
		EXPECT_EQ(0ULL, v);
	}
	EXPECT_EQ(0LL, cpc_buf_hrtime(cpc, a));
	EXPECT_EQ(0ULL, cpc_buf_tick(cpc, a));

	/* set, get, bounds */
	EXPECT_EQ(0, cpc_buf_set(cpc, a, 0, 100));
	EXPECT_EQ(0, cpc_buf_set(cpc, a, 1, 5));
	EXPECT_EQ(0, cpc_buf_set(cpc, a, 2, UINT64_MAX));
	EXPECT_EQ(-1, cpc_buf_set(cpc, a, 3, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_buf_get(cpc, a, -1, &v));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, cpc_buf_set(cpc, b, 0, 40));
	EXPECT_EQ(0, cpc_buf_set(cpc, b, 1, 10));
	EXPECT_EQ(0, cpc_buf_set(cpc, b, 2, 2));
	a->hrtime = 2000;
	a->tick = 900;
	b->hrtime = 1000;
	b->tick = 300;

	/* sub: values and tick subtract, hrtime is the later one */
	cpc_buf_sub(cpc, d, a, b);
	cpc_buf_get(cpc, d, 0, &v);
	EXPECT_EQ(60ULL, v);
	cpc_buf_get(cpc, d, 1, &v);
	EXPECT_EQ((uint64_t)-5, v);	/* wraps, as uint64_t */
	cpc_buf_get(cpc, d, 2, &v);
	EXPECT_EQ(UINT64_MAX - 2, v);
	EXPECT_EQ(2000LL, cpc_buf_hrtime(cpc, d));
	EXPECT_EQ(600ULL, cpc_buf_tick(cpc, d));
	cpc_buf_sub(cpc, d, b, a);
	EXPECT_EQ(2000LL, cpc_buf_hrtime(cpc, d));
	EXPECT_EQ((uint64_t)-600, cpc_buf_tick(cpc, d));

	/* add */
	cpc_buf_add(cpc, d, a, b);
	cpc_buf_get(cpc, d, 0, &v);
	EXPECT_EQ(140ULL, v);
	cpc_buf_get(cpc, d, 2, &v);
	EXPECT_EQ(1ULL, v);
	EXPECT_EQ(2000LL, cpc_buf_hrtime(cpc, d));
	EXPECT_EQ(1200ULL, cpc_buf_tick(cpc, d));

	/* in place: ds may be an operand */
	cpc_buf_sub(cpc, a, a, b);
	cpc_buf_get(cpc, a, 0, &v);
	EXPECT_EQ(60ULL, v);

	/* size mismatches are ignored */
	cpc_buf_set(cpc, small, 0, 77);
	cpc_buf_sub(cpc, d, a, small);
	cpc_buf_add(cpc, small, a, b);
	cpc_buf_copy(cpc, small, a);
	cpc_buf_get(cpc, d, 0, &v);
	EXPECT_EQ(140ULL, v);
	cpc_buf_get(cpc, small, 0, &v);
	EXPECT_EQ(77ULL, v);

	/* copy and zero */
	cpc_buf_copy(cpc, d, b);
	cpc_buf_get(cpc, d, 1, &v);
	EXPECT_EQ(10ULL, v);
	EXPECT_EQ(1000LL, cpc_buf_hrtime(cpc, d));
	EXPECT_EQ(300ULL, cpc_buf_tick(cpc, d));
	cpc_buf_zero(cpc, d);
	cpc_buf_get(cpc, d, 1, &v);
	EXPECT_EQ(0ULL, v);
	EXPECT_EQ(0LL, cpc_buf_hrtime(cpc, d));
	EXPECT_EQ(0ULL, cpc_buf_tick(cpc, d));

	/* a buffer is sized when created; sampling checks the size */
	cpc_set_add_request(cpc, set1, "PAPI_tot_cyc", 0, CPC_COUNT_USER, 0, NULL);
	set1->state = CS_BOUND_PCTX;	/* as if bound */
	EXPECT_EQ(-1, cpc_set_sample(cpc, set1, small));
	EXPECT_EQ(EINVAL, errno);
	set1->state = CS_UNBOUND;

	EXPECT_EQ(0, cpc_buf_destroy(cpc, d));
	EXPECT_EQ(-1, cpc_buf_destroy(cpc, d));
	EXPECT_EQ(EINVAL, errno);
	/* an empty set's buffer */
	{
		cpc_set_t *e = cpc_set_create(cpc);
		cpc_buf_t *eb = cpc_buf_create(cpc, e);

		ASSERT_NE(NULL, eb);
		EXPECT_EQ(-1, cpc_buf_get(cpc, eb, 0, &v));
		cpc_buf_zero(cpc, eb);
	}
	EXPECT_EQ(0, cpc_close(cpc));	/* frees the rest */
}

/* ---- walkers --------------------------------------------------------------- */

struct picwalk {
	int n;
	uint_t picno;
	int has_picnum;
	char last[32];
};

static void on_pic(void *arg, uint_t picno, const char *event)
{
	struct picwalk *w = arg;

	w->n++;
	w->picno = picno;
	(void)event;
}

static void on_name(void *arg, const char *name)
{
	struct picwalk *w = arg;

	w->n++;
	if (!strcmp(name, "picnum"))
		w->has_picnum = 1;
	snprintf(w->last, sizeof(w->last), "%s", name);
}

TEST(walk_functions)
{
	struct cpcev_cpu c = amd();
	cpc_t *cpc = handle(&c, 6, CAPS);
	struct picwalk all = { 0 }, pic = { 0 }, gen = { 0 }, gpic = { 0 };
	struct picwalk attrs = { 0 }, none = { 0 };

	ASSERT_NE(NULL, cpc);
	cpc_walk_events_all(cpc, &all, on_name);
	cpc_walk_events_pic(cpc, 5, &pic, on_pic);
	cpc_walk_generic_events_all(cpc, &gen, on_name);
	cpc_walk_generic_events_pic(cpc, 0, &gpic, on_pic);
	/* libpfm4's Zen events besides the 72 illumos and 7 software names */
	EXPECT_LT(72 + 7 + 50, all.n);
	EXPECT_EQ(all.n, pic.n);
	EXPECT_EQ(5U, pic.picno);
	EXPECT_EQ(N_PERF_GENERIC + 2, gen.n);	/* + PAPI_br_cn, PAPI_br_tkn on Zen */
	EXPECT_EQ(gen.n, gpic.n);
	EXPECT_STREQ("sw_major_faults", all.last);

	errno = 0;
	cpc_walk_events_pic(cpc, 6, &none, on_pic);
	EXPECT_EQ(EINVAL, errno);
	cpc_walk_generic_events_pic(cpc, 6, &none, on_pic);
	EXPECT_EQ(0, none.n);

	cpc_walk_attrs(cpc, &attrs, on_name);
	EXPECT_EQ(6, attrs.n);
	EXPECT_EQ(1, attrs.has_picnum);
	EXPECT_STREQ("picnum", attrs.last);
	cpc_close(cpc);
}

/*
 * Intel's fixed-function counters are pics of their own (illumos'
 * core_pcbe, review L9): after the 4 general-purpose pics, pic4 counts
 * instructions only, pic5 core cycles, pic6 reference cycles.
 */
struct piclist {
	int n;
	char list[65536];
};

static void on_pic_name(void *arg, uint_t picno, const char *event)
{
	struct piclist *w = arg;

	(void)picno;
	w->n++;
	if (strlen(w->list) + strlen(event) + 2 < sizeof(w->list)) {
		strcat(w->list, event);
		strcat(w->list, " ");
	}
}

static int pic_lists(cpc_t *cpc, uint_t pic, int generic, const char *name)
{
	struct piclist w = { 0 };
	char key[128];

	if (generic)
		cpc_walk_generic_events_pic(cpc, pic, &w, on_pic_name);
	else
		cpc_walk_events_pic(cpc, pic, &w, on_pic_name);
	snprintf(key, sizeof(key), " %s ", name);
	memmove(w.list + 1, w.list, strlen(w.list) + 1);
	w.list[0] = ' ';
	return strstr(w.list, key) != NULL;
}

TEST(intel_fixed_counter_pics)
{
	struct cpcev_cpu c = intel(0);
	cpc_attr_t pic5[] = { { (char *)"picnum", 5 } };
	cpc_attr_t pic4[] = { { (char *)"picnum", 4 } };
	struct piclist w = { 0 };
	cpc_set_t *set;
	cpc_t *cpc;
	int i;

	c.nfixed = 3;
	cpc = handle(&c, 7, CAPS);
	ASSERT_NE(NULL, cpc);
	EXPECT_EQ(7U, cpc_npic(cpc));	/* the module's count, unchanged */

	/* the fixed pics list their own event only */
	cpc_walk_events_pic(cpc, 4, &w, on_pic_name);
	EXPECT_EQ(1, w.n);
	EXPECT_STREQ("instr_retired.any ", w.list);
	EXPECT_TRUE(pic_lists(cpc, 5, 0, "cpu_clk_unhalted.thread"));
	EXPECT_TRUE(pic_lists(cpc, 5, 0, "cpu_clk_unhalted.core"));
	EXPECT_FALSE(pic_lists(cpc, 5, 0, "br_inst_retired.all_branches"));
	EXPECT_TRUE(pic_lists(cpc, 6, 0, "cpu_clk_unhalted.ref"));
	EXPECT_TRUE(pic_lists(cpc, 4, 1, "PAPI_tot_ins"));
	EXPECT_FALSE(pic_lists(cpc, 4, 1, "PAPI_br_ins"));
	EXPECT_TRUE(pic_lists(cpc, 5, 1, "PAPI_tot_cyc"));
	/* the general-purpose ones everything else */
	for (i = 0; i < 4; i++) {
		EXPECT_TRUE(pic_lists(cpc, i, 0, "br_inst_retired.all_branches"));
		EXPECT_FALSE(pic_lists(cpc, i, 0, "instr_retired.any"));
		EXPECT_TRUE(pic_lists(cpc, i, 1, "PAPI_br_ins"));
	}
	EXPECT_TRUE(listed(&c, CPCEV_PLATFORM, "instr_retired.any"));

	/* a general-purpose event on a fixed counter: CPC_PIC_NOT_CAPABLE */
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	err_calls = 0;
	EXPECT_EQ(-1, cpc_set_add_request(cpc, set, "br_inst_retired.all_branches",
					  0, CPC_COUNT_USER, 1, pic5));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_PIC_NOT_CAPABLE, err_subcode);
	EXPECT_EQ(-1, cpc_set_add_request(cpc, set, "0xc4", 0, CPC_COUNT_USER,
					  1, pic5));
	EXPECT_EQ(CPC_PIC_NOT_CAPABLE, err_subcode);
	EXPECT_EQ(0, cpc_set_add_request(cpc, set, "instr_retired.any", 0,
					 CPC_COUNT_USER, 1, pic4));
	EXPECT_EQ(1, cpc_set_add_request(cpc, set, "PAPI_tot_cyc", 0,
					 CPC_COUNT_USER, 1, pic5));
	cpc_set_destroy(cpc, set);

	/* cpc_strtoset: the same, in its own words */
	err_calls = 0;
	EXPECT_EQ(NULL, cpc_strtoset(cpc, "pic5=br_inst_retired.all_branches", 0));
	EXPECT_STREQ("pic5 cannot measure event 'br_inst_retired.all_branches' on this cpu\n",
		     err_msg);
	/* a bare fixed-counter name goes to its fixed counter */
	set = cpc_strtoset(cpc, "br_inst_retired.all_branches,instr_retired.any", 0);
	ASSERT_NE(NULL, set);
	EXPECT_EQ(4, (int)req_picnum(set->reqs->nattrs, set->reqs->attrs));
	cpc_set_destroy(cpc, set);
	/* five general-purpose events on four counters: refused */
	EXPECT_EQ(NULL, cpc_strtoset(cpc, "0xc4,0xc5,0x3c,0x2e,0xc0", 0));
	EXPECT_STREQ("bad token '0xc0'\n", err_msg);
	set = cpc_strtoset(cpc, "0xc4,0xc5,0x3c,0x2e,instr_retired.any,"
			   "cpu_clk_unhalted.thread,cpu_clk_unhalted.ref", 0);
	EXPECT_NE(NULL, set);
	cpc_set_destroy(cpc, set);

	/* requests without counters: five general-purpose ones do not fit */
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(i, cpc_set_add_request(cpc, set, "PAPI_br_ins", 0,
						 CPC_COUNT_USER, 0, NULL));
	EXPECT_EQ(4, cpc_set_add_request(cpc, set, "instr_retired.any", 0,
					 CPC_COUNT_USER, 0, NULL));
	EXPECT_EQ(5, cpc_set_add_request(cpc, set, "sw_page_faults", 0,
					 CPC_COUNT_USER, 0, NULL));
	err_subcode = 0;
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(EBADF, errno);	/* fits: reaches the (missing) device */
	EXPECT_EQ(6, cpc_set_add_request(cpc, set, "0xc0", 0, CPC_COUNT_USER,
					 0, NULL));
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_RESOURCE_UNAVAIL, err_subcode);
	cpc_set_destroy(cpc, set);
	cpc_close(cpc);

	/* AMD, or Intel without fixed counters: every pic alike */
	c.nfixed = 0;
	cpc = handle(&c, 4, CAPS);
	ASSERT_NE(NULL, cpc);
	EXPECT_TRUE(pic_lists(cpc, 3, 0, "instr_retired.any"));
	set = cpc_strtoset(cpc, "pic3=instr_retired.any,pic0=0xc4", 0);
	ASSERT_NE(NULL, set);
	EXPECT_EQ(2, cpc_set_add_request(cpc, set, "instr_retired.any", 0,
					 CPC_COUNT_USER, 0, NULL));
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(EBADF, errno);
	cpc_set_destroy(cpc, set);
	cpc_close(cpc);
}

TEST(intel_fixed_counters_from_cpuid)
{
	struct cpcev_cpu c;

	cpcev_cpu_init(&c, "GenuineIntel", SKYLAKE_EAX1, PERFMON_V4, 0);
	cpcev_cpu_fixed(&c, 0, 3, 0, 0, 0);
	EXPECT_EQ(3U, c.nfixed);
	cpcev_cpu_fixed(&c, 0, 0, 0, 0, 0);	/* version 2 parts report none */
	EXPECT_EQ(3U, c.nfixed);
	cpcev_cpu_fixed(&c, 0, 0, 1, 0, 0);	/* a VM without them */
	EXPECT_EQ(0U, c.nfixed);
	cpcev_cpu_init(&c, "GenuineIntel", SKYLAKE_EAX1, 0x07300805, 0);
	cpcev_cpu_fixed(&c, 0xf, 0x4, 0, 0, 0);	/* version 5: the bitmap */
	EXPECT_EQ(4U, c.nfixed);
	/* leaf 0x23's bitmap wins where the CPU enumerates it */
	cpcev_cpu_fixed(&c, 0xf, 0x4, 0, 1, 0x7f);
	EXPECT_EQ(7U, c.nfixed);
	cpcev_cpu_init(&c, "GenuineIntel", SKYLAKE_EAX1, 0x07300801, 0);
	cpcev_cpu_fixed(&c, 0, 3, 0, 0, 0);
	EXPECT_EQ(0U, c.nfixed);
	cpcev_cpu_init(&c, "AuthenticAMD", ZEN1_EAX1, 0, 0);
	cpcev_cpu_fixed(&c, 0, 3, 0, 0, 0);
	EXPECT_EQ(0U, c.nfixed);
}

/* ---- libpctx ---------------------------------------------------------------- */

static int pctx_errs;

static void pctx_err(const char *fn, const char *fmt, va_list ap)
{
	(void)fn;
	(void)fmt;
	(void)ap;
	pctx_errs++;
}

TEST(pctx)
{
	pctx_t *p;
	pid_t child;
	int status;

	p = pctx_capture(getppid(), NULL, 0, pctx_err);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(getppid(), __pctx_pid(p));
	pctx_release(p);
	EXPECT_EQ(0, pctx_errs);

	errno = 0;
	EXPECT_EQ(NULL, pctx_capture(0x3ffffff0, NULL, 0, pctx_err));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(NULL, pctx_capture(-5, NULL, 0, pctx_err));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(2, pctx_errs);

	/* No argv, no context: EINVAL (cpustat_pctx_test runs programs). */
	EXPECT_EQ(NULL, pctx_create("/bin/true", NULL, NULL, 0, pctx_err));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pctx_set_events(NULL, PCTX_NULL_EVENT));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pctx_run(NULL, 1000, 1, NULL));
	EXPECT_EQ(EINVAL, errno);

	/* As on Solaris, terminate only ends pctx_run(): the process lives on. */
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		pause();
		_exit(0);
	}
	p = pctx_capture(child, NULL, 0, pctx_err);
	ASSERT_NE(NULL, p);
	pctx_terminate(p);
	usleep(20000);
	EXPECT_EQ(0, waitpid(child, &status, WNOHANG));
	pctx_release(p);
	EXPECT_EQ(0, waitpid(child, &status, WNOHANG));
	kill(child, SIGTERM);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(SIGTERM, WTERMSIG(status));
}

TEST_HARNESS_MAIN
