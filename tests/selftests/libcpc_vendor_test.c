// SPDX-License-Identifier: GPL-2.0
/*
 * libcpc(3LIB) on the processor it runs on: cpc_cciname() and cpc_cpuref()
 * against /proc/cpuinfo and CPUID, the attributes and platform event names
 * of the vendor, and what a platform name and its attributes become in perf
 * (the event-select image the test PMU is given).  The stock lane runs this
 * program under an Intel model and again under QEMU's "max" CPU, which TCG
 * presents as an AMD family 0xf processor.
 */
#include <libcpc.h>
#include <cpuid.h>
#include <stdbool.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define USR		CPC_COUNT_USER
#define USR_SYS		(CPC_COUNT_USER | CPC_COUNT_SYSTEM)

/* The processor, as /proc/cpuinfo and CPUID leaf 0xA describe it. */
struct cpu {
	char vendor[16];
	unsigned int family, model;
	unsigned int pmu_version, arch_len, arch_unavail;
};

static int cpu_read(struct cpu *c)
{
	unsigned int a, b, d, x, max = 0;
	char line[256];
	int found = 0;
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && found < 3) {
		if (sscanf(line, "vendor_id : %15s", c->vendor) == 1)
			found++;
		else if (sscanf(line, "cpu family : %u", &c->family) == 1)
			found++;
		else if (sscanf(line, "model : %u", &c->model) == 1)
			found++;
	}
	fclose(f);
	if (found != 3)
		return -1;
	__get_cpuid(0, &max, &b, &x, &d);
	if (!strcmp(c->vendor, "GenuineIntel") && max >= 0xa &&
	    __get_cpuid(0xa, &a, &b, &x, &d)) {
		c->pmu_version = a & 0xff;
		c->arch_len = a >> 24;
		c->arch_unavail = b;
	}
	return 0;
}

static bool is_intel(const struct cpu *c)
{
	return !strcmp(c->vendor, "GenuineIntel");
}

static bool is_amd(const struct cpu *c)
{
	return !strcmp(c->vendor, "AuthenticAMD") || !strcmp(c->vendor, "HygonGenuine");
}

static cpc_t *open_cpc(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	if (cpc)
		cpc_seterrhndlr(cpc, cpc_errlog_handler);
	return cpc;
}

/* Names passed to a walker, as "a,b,c,". */
struct names {
	int n;
	char list[65536];	/* libpfm4's Intel tables have hundreds */
};

static void collect(void *arg, const char *name)
{
	struct names *nm = arg;
	size_t len = strlen(nm->list);

	nm->n++;
	snprintf(nm->list + len, sizeof(nm->list) - len, "%s,", name);
}

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p++)
		if ((p == list || p[-1] == ',') && p[n] == ',')
			return true;
	return false;
}

FIXTURE(vendor) {
	struct cpu cpu;
	cpc_t *cpc;
};

FIXTURE_SETUP(vendor)
{
	self->cpc = NULL;
	cpc_errlog_reset();
	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	ASSERT_EQ(0, cpu_read(&self->cpu));
	self->cpc = open_cpc();
	ASSERT_NE(NULL, self->cpc) TH_LOG("cpc_open: %s", strerror(errno));
	TH_LOG("%s family %u model %u, PMU version %u: \"%s\"", self->cpu.vendor,
	       self->cpu.family, self->cpu.model, self->cpu.pmu_version,
	       cpc_cciname(self->cpc));
}

FIXTURE_TEARDOWN(vendor)
{
	if (self->cpc)
		EXPECT_EQ(0, cpc_close(self->cpc));
}

TEST_F(vendor, cciname_and_cpuref_name_the_processor)
{
	const struct cpu *c = &self->cpu;
	char want[128], ref[128];

	if (is_intel(c)) {
		if (c->pmu_version < 3 && c->family == 6 &&
		    (c->model == 15 || c->model == 23 || c->model == 29))
			snprintf(want, sizeof(want), "Core Microarchitecture");
		else
			snprintf(want, sizeof(want),
				 "Intel Arch PerfMon v%u on Family %u Model %u",
				 c->pmu_version, c->family, c->model);
		snprintf(ref, sizeof(ref), "Family %u Model %u", c->family, c->model);
		EXPECT_NE(NULL, strstr(cpc_cpuref(self->cpc), "Intel"));
	} else if (!strcmp(c->vendor, "AuthenticAMD")) {
		if (c->family == 0xf)
			snprintf(want, sizeof(want), "AMD Opteron & Athlon64");
		else
			snprintf(want, sizeof(want), "AMD Family %02xh", c->family);
		snprintf(ref, sizeof(ref), "AMD Family %02xh", c->family);
	} else if (!strcmp(c->vendor, "HygonGenuine")) {
		snprintf(want, sizeof(want), "Hygon Family %02xh", c->family);
		snprintf(ref, sizeof(ref), "Hygon Family %02xh", c->family);
	} else {
		snprintf(want, sizeof(want), "%s Family %u Model %u", c->vendor,
			 c->family, c->model);
		snprintf(ref, sizeof(ref), "PAPI");
	}
	EXPECT_STREQ(want, cpc_cciname(self->cpc));
	EXPECT_NE(NULL, strstr(cpc_cpuref(self->cpc), ref))
		TH_LOG("\"%s\" not in \"%s\"", ref, cpc_cpuref(self->cpc));
	EXPECT_GT(CPC_MAX_IMPL_NAME, (int)strlen(cpc_cciname(self->cpc)));
	EXPECT_GT(CPC_MAX_CPUREF, (int)strlen(cpc_cpuref(self->cpc)));
}

TEST_F(vendor, attributes_of_the_vendor)
{
	struct names nm;

	memset(&nm, 0, sizeof(nm));
	cpc_walk_attrs(self->cpc, &nm, collect);
	if (is_intel(&self->cpu)) {
		EXPECT_STREQ("edge,inv,umask,cmask,picnum,", nm.list);
	} else if (is_amd(&self->cpu)) {
		EXPECT_STREQ("edge,pc,inv,cmask,umask,picnum,", nm.list);
	} else {
		EXPECT_STREQ("picnum,", nm.list);
	}
}

/* The architectural events, in CPUID leaf 0xA EBX bit order. */
static const char *const intel_arch[] = {
	"cpu_clk_unhalted.thread_p", "inst_retired.any_p", "cpu_clk_unhalted.ref_p",
	"longest_lat_cache.reference", "longest_lat_cache.miss",
	"br_inst_retired.all_branches", "br_misp_retired.all_branches",
};

static const char *const intel_other[] = {
	"uops_issued.any", "l1d.replacement", "mem_load_retired.l3_miss",
	"br_inst_retired.near_call", "instr_retired.any", "cpu_clk_unhalted.core",
	"cpu_clk_unhalted.thread", "cpu_clk_unhalted.ref",
};

static const char *const amd_names[] = {
	"FR_retired_x86_instr_w_excp_intr", "BU_cpu_clk_unhalted", "DC_access",
	"DC_miss", "IC_fetch", "IC_miss", "FR_retired_branches_w_excp_intr",
	"FR_retired_branches_mispred", "FP_dispatched_fpu_ops", "FR_num_brkpts_dr3",
};

/* The software events, last in every platform list. */
static const char *const sw_events[] = {
	"sw_cpu_clock", "sw_task_clock", "sw_page_faults", "sw_context_switches",
	"sw_cpu_migrations", "sw_minor_faults", "sw_major_faults",
};

/* The generic events perf has: the same on every processor, first. */
static const char *const generic_events[] = {
	"PAPI_tot_cyc", "PAPI_tot_ins", "PAPI_ref_cyc", "PAPI_br_ins", "PAPI_br_msp",
	"PAPI_l3_tca", "PAPI_l3_tcm", "PAPI_l1_dca", "PAPI_l1_dcr", "PAPI_l1_dcw",
	"PAPI_l1_dcm", "PAPI_l1_ldm", "PAPI_l1_stm", "PAPI_l1_ica", "PAPI_l1_icm",
	"PAPI_l3_dcr", "PAPI_l3_dcw", "PAPI_l3_ldm", "PAPI_l3_stm", "PAPI_tlb_dm",
	"PAPI_tlb_im", "PAPI_l1_icr",
};

/* names, as "a,b,c," in buf. */
static void join(char *buf, size_t len, const char *const *names, unsigned int n)
{
	unsigned int i;
	size_t pos = 0;

	buf[0] = '\0';
	for (i = 0; i < n && pos < len; i++)
		pos += snprintf(buf + pos, len - pos, "%s,", names[i]);
}

/* Adding name to a set fails with CPC_INVALID_EVENT. */
static bool unknown_here(cpc_t *cpc, const char *name)
{
	cpc_set_t *set = cpc_set_create(cpc);
	int ret, err;

	cpc_errlog_reset();
	ret = cpc_set_add_request(cpc, set, name, 0, USR, 0, NULL);
	err = errno;
	cpc_set_destroy(cpc, set);
	return ret == -1 && err == EINVAL && cpc_errlog.subcode == CPC_INVALID_EVENT;
}

/* Each of names is listed (or not) and may be added (or not). */
static void check_names(struct __test_metadata *_metadata, cpc_t *cpc,
			const char *list, const char *const *names, unsigned int n,
			bool here)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const char *name = names[i] ? names[i] : "?";

		EXPECT_EQ(here, listed(list, name)) TH_LOG("%s", name);
		EXPECT_EQ(!here, unknown_here(cpc, name)) TH_LOG("%s", name);
	}
}

TEST_F(vendor, platform_event_names_are_the_vendors)
{
	const struct cpu *c = &self->cpu;
	char sw_names[256], generic_names[512];
	struct names all, generic;
	unsigned int i;
	size_t len;

	join(sw_names, sizeof(sw_names), sw_events, NELEM(sw_events));
	join(generic_names, sizeof(generic_names), generic_events, NELEM(generic_events));

	memset(&all, 0, sizeof(all));
	cpc_walk_events_all(self->cpc, &all, collect);
	memset(&generic, 0, sizeof(generic));
	cpc_walk_generic_events_all(self->cpc, &generic, collect);
	/*
	 * perf's generic events everywhere, then those the model's libpfm4
	 * table has (Skylake and K8 both have taken branches); the software
	 * events last.
	 */
	EXPECT_EQ(0, strncmp(generic_names, generic.list, strlen(generic_names)))
		TH_LOG("%s", generic.list);
	if (is_intel(c) || is_amd(c))
		EXPECT_TRUE(listed(generic.list, "PAPI_br_tkn"));
	len = strlen(all.list);
	ASSERT_LE(strlen(sw_names), len);
	EXPECT_STREQ(sw_names, all.list + len - strlen(sw_names));

	if (is_intel(c)) {
		/* Architectural events: those CPUID leaf 0xA does not deny. */
		for (i = 0; i < NELEM(intel_arch); i++) {
			bool avail = c->pmu_version == 0 ||
				     (i < c->arch_len && !(c->arch_unavail & (1U << i)));

			check_names(_metadata, self->cpc, all.list, &intel_arch[i], 1, avail);
		}
		check_names(_metadata, self->cpc, all.list, intel_other,
			    NELEM(intel_other), true);
		check_names(_metadata, self->cpc, all.list, amd_names,
			    NELEM(amd_names), false);
	} else if (is_amd(c)) {
		check_names(_metadata, self->cpc, all.list, amd_names,
			    NELEM(amd_names), true);
		check_names(_metadata, self->cpc, all.list, intel_arch,
			    NELEM(intel_arch), false);
		check_names(_metadata, self->cpc, all.list, intel_other,
			    NELEM(intel_other), false);
	} else {
		EXPECT_STREQ(sw_names, all.list);
	}
	/* Case matters. */
	EXPECT_TRUE(unknown_here(self->cpc, "papi_tot_ins"));
	EXPECT_TRUE(unknown_here(self->cpc, "SW_TASK_CLOCK"));
}

/* A platform request as perf gets it, and the test PMU counts it. */
struct platform_case {
	const char *event;
	unsigned int flags;
	unsigned int nattrs;
	cpc_attr_t attrs[5];
	unsigned long long config;	/* the raw config perf is given */
	unsigned int inject;		/* event | umask << 8, as injected */
};

static void check_platform(struct __test_metadata *_metadata, cpc_t *cpc,
			   const struct platform_case *pc)
{
	char cfg[96];
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint64_t v;

	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, pc->event, 0, pc->flags, pc->nattrs,
					 pc->attrs)) TH_LOG("%s", pc->event);
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0))
		TH_LOG("%s: %s (subcode %d)", pc->event, strerror(errno), cpc_errlog.subcode);
	snprintf(cfg, sizeof(cfg), "config=%#llx user=1 kernel=%d ", pc->config,
		 !!(pc->flags & CPC_COUNT_SYSTEM));
	EXPECT_EQ(1, fakepmu_state_count("cpu=1 ", cfg))
		TH_LOG("%s: no \"%s\" in the test PMU's state", pc->event, cfg);
	/* The event the config selects counts; its neighbours do not. */
	ASSERT_EQ(0, inject(1, pc->inject, 321));
	ASSERT_EQ(0, inject(1, pc->inject ^ 0x100, 5));
	ASSERT_EQ(0, inject(1, pc->inject ^ 0x1, 7));
	ASSERT_EQ(0, cpc_set_sample(cpc, set, buf));
	ASSERT_EQ(0, cpc_buf_get(cpc, buf, 0, &v));
	EXPECT_EQ(321ULL, v) TH_LOG("%s", pc->event);
	EXPECT_EQ(0, cpc_set_destroy(cpc, set));
}

TEST_F(vendor, platform_events_and_attributes_reach_perf)
{
	static const struct platform_case intel[] = {
		/* The example: umask and cmask (and edge, inv) into PERFEVTSEL. */
		{ "inst_retired.any_p", USR, 4,
		  { { "umask", 0x01 }, { "cmask", 0x02 }, { "edge", 1 }, { "inv", 1 } },
		  0x028401c0, 0x01c0 },
		{ "inst_retired.any_p", USR_SYS, 0, { }, 0xc0, 0x00c0 },
		{ "cpu_clk_unhalted.ref_p", USR, 0, { }, 0x013c, 0x013c },
		/* A default unit mask, and one that replaces it (never ORed). */
		{ "longest_lat_cache.miss", USR, 0, { }, 0x412e, 0x412e },
		{ "longest_lat_cache.reference", USR, 1, { { "umask", 0x01 } }, 0x012e, 0x012e },
		{ "l1d.replacement", USR, 2, { { "cmask", 0xff }, { "picnum", 1 } },
		  0xff000151, 0x0151 },
		{ "mem_load_retired.l1_miss", USR, 0, { }, 0x08d1, 0x08d1 },
		/* Raw codes take the same attributes. */
		{ "0xc4", USR, 1, { { "umask", 0x02 } }, 0x02c4, 0x02c4 },
		{ "196", USR, 0, { }, 0xc4, 0x00c4 },
		/* The fixed-counter names are perf's generic events. */
		{ "instr_retired.any", USR, 0, { }, 0xc0, 0x00c0 },
		{ "cpu_clk_unhalted.thread", USR, 0, { }, 0x3c, 0x003c },
		{ "cpu_clk_unhalted.core", USR, 0, { }, 0x3c, 0x003c },
		/* perf counts generic reference cycles with 0x0300 (fixed counter 2). */
		{ "cpu_clk_unhalted.ref", USR, 0, { }, 0x0300, 0x0300 },
	};
	static const struct platform_case amd[] = {
		/* pc is accepted and has no effect (bit 19 stays clear). */
		{ "0xc0", USR, 5,
		  { { "umask", 0x01 }, { "cmask", 0x03 }, { "edge", 1 }, { "inv", 1 },
		    { "pc", 1 } },
		  0x038401c0, 0x01c0 },
		{ "FR_retired_x86_instr_w_excp_intr", USR_SYS, 0, { }, 0xc0, 0x00c0 },
		{ "BU_cpu_clk_unhalted", USR, 0, { }, 0x76, 0x0076 },
		/* illumos' unit 0, or any 8-bit unit mask given */
		{ "DC_refill_from_L2", USR, 0, { }, 0x42, 0x0042 },
		{ "DC_refill_from_L2", USR, 1, { { "umask", 0x10 } }, 0x1042, 0x1042 },
		{ "DC_refill_from_L2", USR, 1, { { "umask", 0xe0 } }, 0xe042, 0xe042 },
		{ "IC_miss", USR, 1, { { "cmask", 0x10 } }, 0x10000081, 0x0081 },
		{ "0xc4", USR, 1, { { "umask", 0x02 } }, 0x02c4, 0x02c4 },
	};
	const struct platform_case *cases;
	unsigned int i, n;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	if (is_intel(&self->cpu)) {
		cases = intel;
		n = NELEM(intel);
	} else if (is_amd(&self->cpu)) {
		cases = amd;
		n = NELEM(amd);
	} else {
		SKIP(return, "no platform events for %s", self->cpu.vendor);
	}
	for (i = 0; i < n; i++)
		check_platform(_metadata, self->cpc, &cases[i]);
	EXPECT_EQ(0, cpc_errlog.calls);
}

TEST_F(vendor, raw_codes_beyond_the_vendors_range_are_unknown)
{
	/* Intel event selects have 8 bits, AMD's 12. */
	const char *bad = is_amd(&self->cpu) ? "0x1000" : "0x100";
	cpc_set_t *set;

	set = cpc_set_create(self->cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, bad, 0, USR, 0, NULL));
	cpc_errlog_reset();
	EXPECT_EQ(-1, cpc_bind_curlwp(self->cpc, set, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_INVALID_EVENT, cpc_errlog.subcode);
	/* Fixed-counter and generic names take no unit mask. */
	if (is_intel(&self->cpu)) {
		cpc_attr_t umask = { "umask", 1 };

		set = cpc_set_create(self->cpc);
		ASSERT_NE(NULL, set);
		ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "instr_retired.any", 0,
						 USR, 1, &umask));
		cpc_errlog_reset();
		EXPECT_EQ(-1, cpc_bind_curlwp(self->cpc, set, 0));
		EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE, cpc_errlog.subcode);
	} else {
		/* AMD: a unit mask beyond 8 bits (illumos' range check). */
		cpc_attr_t umask = { "umask", 0x100 };

		set = cpc_set_create(self->cpc);
		ASSERT_NE(NULL, set);
		ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "DC_refill_from_L2", 0,
						 USR, 1, &umask));
		cpc_errlog_reset();
		EXPECT_EQ(-1, cpc_bind_curlwp(self->cpc, set, 0));
		EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE, cpc_errlog.subcode);
	}
}

/*
 * cpc_npic(): the counters perf's driver finds on this model, as the test
 * reads them from CPUID (expected_npic()).  Where perf does not export its
 * count to modules (6.19 on) the module decodes CPUID itself; before, it
 * asks perf, which has no x86 PMU under TCG and so leaves it to CPUID too.
 * TCG gives every Intel model leaf 0xA version 0 (the module's default, 4)
 * and its AMD "max" model no PerfCtrExtCore (AMD's 4): other branches of the
 * decoding are unit-tested on the host (tests/unit/pmc_cpuid_test.c).
 */
TEST_F(vendor, npic_is_the_models_counter_count)
{
	unsigned int here = cpuid_gp_counters_here();

	TH_LOG("%s: CPUID says %u general-purpose counters%s", self->cpu.vendor, here,
	       here ? "" : " (no architectural PMU)");
	EXPECT_EQ(expected_npic(), cpc_npic(self->cpc));
	/* The lanes' models under TCG: AMD family 0Fh, or Intel without 0xA */
	if (have_fakepmu()) {
		EXPECT_EQ(4U, cpc_npic(self->cpc));
	}
}

/* Every platform name binds: perf takes what it resolves to. */
TEST_F(vendor, every_listed_platform_event_binds)
{
	struct names all;
	char *name, *save = NULL;
	cpc_set_t *set;
	int n = 0;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	memset(&all, 0, sizeof(all));
	cpc_walk_events_all(self->cpc, &all, collect);
	for (name = strtok_r(all.list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		set = cpc_set_create(self->cpc);
		ASSERT_NE(NULL, set);
		ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, name, 0, USR, 0, NULL))
			TH_LOG("%s", name);
		EXPECT_EQ(0, cpc_bind_curlwp(self->cpc, set, 0))
			TH_LOG("%s: %s (subcode %d)", name, strerror(errno), cpc_errlog.subcode);
		if (strncmp(name, "sw_", 3)) {
			EXPECT_EQ(1, fakepmu_state_count("cpu=1 ", "user=1 kernel=0 "))
				TH_LOG("%s", name);
		}
		EXPECT_EQ(0, cpc_set_destroy(self->cpc, set));
		n++;
	}
	EXPECT_EQ(all.n, n);
	EXPECT_EQ(0, cpc_errlog.calls);
}

TEST_HARNESS_MAIN
