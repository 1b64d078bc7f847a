// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of module/pfcntr/pfcntr_alpha.c: the Alpha registers of pfm(7)
 * (EV4 ICCSR, EV5 PCNT5MUX/PCNT5FREQ/PCNT5CTXTS, EV6 and EV67 PCNT6MUX)
 * translated into perf events, modes and sampling periods, exhaustively.
 *
 * The expected events are written here with <sys/pfcntr.h>'s names and
 * perf's own constants, from pfm(7)'s "Event mapping" tables (module/pfcntr/pfm.7)
 * and the Tru64 facts (the seed pfm(7) page, the 2001 header): every value
 * of every event field, each reserved bit alone, the EV5 modes, the rates
 * and the privilege they need, and the errors of invalid images.
 */
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>

/* Tru64's kernel masks (PF5_FREQ_KMASK ...), as a Tru64 kernel file sees them. */
#define _KERNEL

#include "pfcntr_alpha.h"
#include "kselftest_harness.h"

/* ---- what a counter should count ----------------------------------------- */

struct want {
	bool ok;		/* false: not available, EINVAL */
	__u32 type;
	__u64 config;
};

#define HW(x)		{ true, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##x }
#define CACHE(c, op, res)						\
	{ true, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_##c |		\
	  (PERF_COUNT_HW_CACHE_OP_##op << 8) |				\
	  ((__u64)PERF_COUNT_HW_CACHE_RESULT_##res << 16) }

static const struct want W_CYCLES = HW(CPU_CYCLES);
static const struct want W_INSNS = HW(INSTRUCTIONS);
static const struct want W_LLC_MISSES = HW(CACHE_MISSES);

/* EV4 iccsr_mux0: 16 values, nine named (pfm(7): PALMODE, NONISSUES, EXTPIN0 n/a). */
static const struct want ev4_mux0[16] = {
	[PF_ISSUES] = HW(INSTRUCTIONS),
	[PF_PIPEDRY] = HW(STALLED_CYCLES_FRONTEND),
	[PF_LOADI] = CACHE(L1D, READ, ACCESS),
	[PF_PIPEFROZEN] = HW(STALLED_CYCLES_BACKEND),
	[PF_BRANCHI] = HW(BRANCH_INSTRUCTIONS),
	[PF_CYCLES] = HW(CPU_CYCLES),
};

/* EV4 iccsr_mux1: 8 values (DUAL, FPINST, INTOPS, EXTPIN1 n/a). */
static const struct want ev4_mux1[8] = {
	[PF_DCACHE] = CACHE(L1D, READ, MISS),
	[PF_ICACHE] = CACHE(L1I, READ, MISS),
	[PF_BRANCHMISS] = HW(BRANCH_MISSES),
	[PF_STOREI] = CACHE(L1D, WRITE, ACCESS),
};

/* EV5 counter 1, bits 7:4 below 0xF. */
#define M1(name)	((PF5_MUX1_##name >> 4) & 0xf)
static const struct want ev5_mux1[15] = {
	[M1(PIPELINE_DRY)] = HW(STALLED_CYCLES_FRONTEND),
	[M1(FLOW_CHANGE)] = HW(BRANCH_INSTRUCTIONS),
	[M1(C_LOAD_INSTRUCTIONS)] = CACHE(L1D, READ, ACCESS),
	[M1(C_STORE_INSTRUCTIONS)] = CACHE(L1D, WRITE, ACCESS),
	[M1(C_ICACHE_ACCESS)] = CACHE(L1I, READ, ACCESS),
	[M1(C_DCACHE_ACCESS)] = CACHE(L1D, READ, ACCESS),
};

/* EV5 counter 1, bits 53:51 with bits 7:4 0xF (EV5/EV56 names). */
#define X1(name)	(((__u64)PF5_MUX1_##name >> 51) & 7)
static const struct want ev5_mux1_ext[8] = {
	[X1(C_SCACHE_ACCESS)] = HW(CACHE_REFERENCES),
	[X1(C_SCACHE_READ)] = CACHE(LL, READ, ACCESS),
	[X1(C_SCACHE_WRITE)] = CACHE(LL, WRITE, ACCESS),
};

/* EV5 counter 2, bits 3:0 below 0xF. */
static const struct want ev5_mux2[15] = {
	[PF5_MUX2_C_BRANCH_MISPREDICTS] = HW(BRANCH_MISSES),
	[PF5_MUX2_C_ICACHE_MISSES] = CACHE(L1I, READ, MISS),
	[PF5_MUX2_C_ITB_MISS] = CACHE(ITLB, READ, MISS),
	[PF5_MUX2_C_DCACHE_MISSES] = CACHE(L1D, READ, MISS),
	[PF5_MUX2_C_DTB_MISS] = CACHE(DTLB, READ, MISS),
	[PF5_MUX2_C_CYCLES] = HW(CPU_CYCLES),
};

/* EV5 counter 2, bits 56:54 with bits 3:0 0xF. */
#define X2(name)	(((__u64)PF5_MUX2_##name >> 54) & 7)
static const struct want ev5_mux2_ext[8] = {
	[X2(C_SCACHE_MISS)] = HW(CACHE_MISSES),
	[X2(C_SCACHE_READ_MISS)] = CACHE(LL, READ, MISS),
	[X2(C_SCACHE_WRITE_MISS)] = CACHE(LL, WRITE, MISS),
};

/* EV6 counter 1, bits 3:0. */
static const struct want ev6_mux1[16] = {
	[PF6_MUX1_CYCLES] = HW(CPU_CYCLES),
	[PF6_MUX1_RET_COND_BRANCHES] = HW(BRANCH_INSTRUCTIONS),
	[PF6_MUX1_RET_BRANCH_MISPREDICTS] = HW(BRANCH_MISSES),
	[PF6_MUX1_RET_DTB_SINGLE_MISSES] = CACHE(DTLB, READ, MISS),
	[PF6_MUX1_RET_ITB_MISSES] = CACHE(ITLB, READ, MISS),
};

/* ---- helpers -------------------------------------------------------------- */

static int translate(enum pfm_family open_fam, enum pfm_family fam,
		     const struct pfm_regs *r, bool priv, bool ev67,
		     struct pfm_cfg *cfg)
{
	struct pfm_alpha_ctx ctx = {
		.family = open_fam, .ev67 = ev67, .privileged = priv,
	};

	memset(cfg, 0xa5, sizeof(*cfg));	/* nothing left from before */
	return pfm_alpha_cfg(&ctx, fam, r, cfg);
}

static int ev4(__u64 iccsr, bool priv, struct pfm_cfg *cfg)
{
	struct pfm_regs r = { .iccsr = iccsr };

	return translate(PFM_FAM_NONE, PFM_FAM_EV4, &r, priv, false, cfg);
}

static int ev5(__u64 mux, __u64 freq, __u64 ctxts, bool priv, struct pfm_cfg *cfg)
{
	struct pfm_regs r = {
		.ev5_mux = mux, .ev5_freq = freq, .ev5_ctxts = ctxts,
		.ev5_mux_set = true,
	};

	return translate(PFM_FAM_NONE, PFM_FAM_EV5, &r, priv, false, cfg);
}

static int ev6(__u64 mux, bool ev67, struct pfm_cfg *cfg)
{
	struct pfm_regs r = { .ev6_mux = mux };

	return translate(PFM_FAM_NONE, PFM_FAM_EV6, &r, false, ev67, cfg);
}

/* Counter i of cfg counts w in the modes given. */
static void expect_event(struct __test_metadata *_metadata, const struct pfm_cfg *cfg,
			 unsigned int i, const struct want *w, bool user, bool kernel,
			 const char *what, unsigned long long v)
{
	const struct pfm_desc *d = &cfg->desc[i];

	EXPECT_TRUE(cfg->on & (1UL << i))
		TH_LOG("%s %#llx: counter %u is off", what, v, i);
	EXPECT_EQ(w->type, d->type)
		TH_LOG("%s %#llx: counter %u type", what, v, i);
	EXPECT_EQ(w->config, d->config)
		TH_LOG("%s %#llx: counter %u config", what, v, i);
	EXPECT_EQ(!user, d->exclude_user)
		TH_LOG("%s %#llx: counter %u user mode", what, v, i);
	EXPECT_EQ(!kernel, d->exclude_kernel)
		TH_LOG("%s %#llx: counter %u kernel mode", what, v, i);
}

/* ---- every family --------------------------------------------------------- */

TEST(cfg_init_counts_nothing)
{
	struct pfm_cfg cfg;
	unsigned int i;

	memset(&cfg, 0xa5, sizeof(cfg));
	pfm_cfg_init(&cfg);
	EXPECT_EQ(PFM_FAM_NONE, cfg.family);
	EXPECT_EQ(0U, cfg.nctrs);
	EXPECT_EQ(0UL, cfg.on);
	EXPECT_FALSE(cfg.logselect);
	EXPECT_FALSE(cfg.sample);
	for (i = 0; i < PFM_NCTRS; i++)
		EXPECT_EQ(65536ULL, cfg.period[i]);
}

/* An open keeps its family: another one's register fails with EINVAL. */
TEST(family_is_kept)
{
	struct pfm_regs r = {
		.iccsr = PFCNTR_ICCSR_IMAGE(0, 0, PF_CYCLES, PF_DCACHE, 0),
		.ev5_freq = EV5_FREQ_DEFAULT, .ev6_mux = PF6_MUX0_CYCLES,
	};
	enum pfm_family open_fam, fam;
	struct pfm_cfg cfg;

	for (open_fam = PFM_FAM_NONE; open_fam <= PFM_FAM_EV6; open_fam++) {
		for (fam = PFM_FAM_EV4; fam <= PFM_FAM_EV6; fam++) {
			int ret = translate(open_fam, fam, &r, false, false, &cfg);

			if (open_fam != PFM_FAM_NONE && open_fam != fam) {
				EXPECT_EQ(-EINVAL, ret) TH_LOG("open %d, %d", open_fam, fam);
				continue;
			}
			ASSERT_EQ(0, ret) TH_LOG("open %d, %d", open_fam, fam);
			EXPECT_EQ(fam, cfg.family);
			EXPECT_EQ(fam == PFM_FAM_EV5 ? 3U : 2U, cfg.nctrs);
		}
		/* No family of its own: nothing to translate. */
		EXPECT_EQ(-EINVAL, translate(open_fam, PFM_FAM_NONE, &r, true, false, &cfg));
	}
}

/* LOGSELECT and the interrupts are the open's, copied as they are. */
TEST(logselect_and_sample_copied)
{
	struct pfm_regs r = { .ev6_mux = PF6_MUX0_RET_INSTRUCTIONS };
	struct pfm_alpha_ctx ctx = { .family = PFM_FAM_EV6 };
	struct pfm_cfg cfg;
	unsigned int k;

	for (k = 0; k < 4; k++) {
		ctx.logselect = k & 1;
		ctx.sample = k & 2;
		ASSERT_EQ(0, pfm_alpha_cfg(&ctx, PFM_FAM_EV6, &r, &cfg));
		EXPECT_EQ(ctx.logselect, cfg.logselect);
		EXPECT_EQ(ctx.sample, cfg.sample);
	}
}

/* The counter images of PCNT5* and PCNT6*: the header's fields. */
TEST(counter_image_layouts)
{
	EXPECT_EQ(3U, pfm_image_ev5.sel_bits);
	EXPECT_EQ((__u64)PFCNTR_EV5_SEL_MASK, (1ULL << pfm_image_ev5.sel_bits) - 1);
	EXPECT_EQ((unsigned int)PFCNTR_EV5_CPU_SHIFT, pfm_image_ev5.cpu_shift);
	EXPECT_EQ((unsigned int)PFCNTR_EV5_C0_SHIFT, pfm_image_ev5.shift[0]);
	EXPECT_EQ((unsigned int)PFCNTR_EV5_C1_SHIFT, pfm_image_ev5.shift[1]);
	EXPECT_EQ((unsigned int)PFCNTR_EV5_C2_SHIFT, pfm_image_ev5.shift[2]);
	EXPECT_EQ((unsigned int)PF5_C0_WIDTH, pfm_image_ev5.width[0]);
	EXPECT_EQ((unsigned int)PF5_C1_WIDTH, pfm_image_ev5.width[1]);
	EXPECT_EQ((unsigned int)PF5_C2_WIDTH, pfm_image_ev5.width[2]);

	EXPECT_EQ(2U, pfm_image_ev6.sel_bits);
	EXPECT_EQ((__u64)PFCNTR_EV6_SEL_MASK, (1ULL << pfm_image_ev6.sel_bits) - 1);
	EXPECT_EQ((unsigned int)PFCNTR_EV6_CPU_SHIFT, pfm_image_ev6.cpu_shift);
	EXPECT_EQ((unsigned int)PFCNTR_EV6_C0_SHIFT, pfm_image_ev6.shift[0]);
	EXPECT_EQ((unsigned int)PFCNTR_EV6_C1_SHIFT, pfm_image_ev6.shift[1]);
	EXPECT_EQ((unsigned int)PF6_C0_WIDTH, pfm_image_ev6.width[0]);
	EXPECT_EQ((unsigned int)PF6_C1_WIDTH, pfm_image_ev6.width[1]);
}

/* ---- EV4 ------------------------------------------------------------------ */

/* Every iccsr_mux0 value at both rates, counter 1 disabled. */
TEST(ev4_counter0_every_mux0)
{
	struct pfm_cfg cfg;
	unsigned int m, pc0;

	for (m = 0; m < 16; m++) {
		for (pc0 = 0; pc0 < 2; pc0++) {
			__u64 v = PFCNTR_ICCSR_IMAGE(pc0, 0, m, 0, 2);
			int ret = ev4(v, false, &cfg);

			if (!ev4_mux0[m].ok) {
				EXPECT_EQ(-EINVAL, ret) TH_LOG("mux0 %#x", m);
				continue;
			}
			ASSERT_EQ(0, ret) TH_LOG("mux0 %#x", m);
			EXPECT_EQ(1UL, cfg.on);
			expect_event(_metadata, &cfg, 0, &ev4_mux0[m], true, true, "mux0", m);
			/* PF_C0_INT_EVERY_65536 / _4096 */
			EXPECT_EQ(pc0 ? 4096ULL : 65536ULL, cfg.period[0]);
			EXPECT_EQ(4096ULL, cfg.period[1]);
		}
	}
}

/* Every iccsr_mux1 value at both rates, counter 0 disabled. */
TEST(ev4_counter1_every_mux1)
{
	struct pfm_cfg cfg;
	unsigned int m, pc1;

	for (m = 0; m < 8; m++) {
		for (pc1 = 0; pc1 < 2; pc1++) {
			__u64 v = PFCNTR_ICCSR_IMAGE(0, pc1, 0xf, m, 1);
			int ret = ev4(v, true, &cfg);

			if (!ev4_mux1[m].ok) {
				EXPECT_EQ(-EINVAL, ret) TH_LOG("mux1 %#x", m);
				continue;
			}
			ASSERT_EQ(0, ret) TH_LOG("mux1 %#x", m);
			EXPECT_EQ(2UL, cfg.on);
			expect_event(_metadata, &cfg, 1, &ev4_mux1[m], true, true, "mux1", m);
			/* PF_C1_INT_EVERY_4096 / _256 */
			EXPECT_EQ(pc1 ? 256ULL : 4096ULL, cfg.period[1]);
			EXPECT_EQ(65536ULL, cfg.period[0]);
		}
	}
}

/* Both counters on: the 16 x 8 pairs; valid exactly when both events are. */
TEST(ev4_every_pair)
{
	struct pfm_cfg cfg;
	unsigned int m0, m1, nok = 0;

	for (m0 = 0; m0 < 16; m0++) {
		for (m1 = 0; m1 < 8; m1++) {
			int ret = ev4(PFCNTR_ICCSR_IMAGE(0, 0, m0, m1, 0), false, &cfg);

			if (!ev4_mux0[m0].ok || !ev4_mux1[m1].ok) {
				EXPECT_EQ(-EINVAL, ret) TH_LOG("mux %#x %#x", m0, m1);
				continue;
			}
			nok++;
			ASSERT_EQ(0, ret) TH_LOG("mux %#x %#x", m0, m1);
			EXPECT_EQ(3UL, cfg.on);
			expect_event(_metadata, &cfg, 0, &ev4_mux0[m0], true, true, "mux0", m0);
			expect_event(_metadata, &cfg, 1, &ev4_mux1[m1], true, true, "mux1", m1);
		}
	}
	EXPECT_EQ(6U * 4U, nok);	/* pfm(7): 6 and 4 events counted */
}

/* A disabled counter's event is not looked at; both disabled is EINVAL. */
TEST(ev4_iccsr_disable)
{
	struct pfm_cfg cfg;
	unsigned int m;

	for (m = 0; m < 16; m++) {
		ASSERT_EQ(0, ev4(PFCNTR_ICCSR_IMAGE(0, 0, m, PF_ICACHE, 1), false, &cfg))
			TH_LOG("mux0 %#x", m);
		EXPECT_EQ(2UL, cfg.on);
		EXPECT_EQ(-EINVAL, ev4(PFCNTR_ICCSR_IMAGE(0, 0, m, PF_ICACHE, 3), true, &cfg));
	}
	for (m = 0; m < 8; m++) {
		ASSERT_EQ(0, ev4(PFCNTR_ICCSR_IMAGE(0, 1, PF_CYCLES, m, 2), false, &cfg))
			TH_LOG("mux1 %#x", m);	/* nor its rate: no privilege */
		EXPECT_EQ(1UL, cfg.on);
		EXPECT_EQ(256ULL, cfg.period[1]);
		EXPECT_EQ(-EINVAL, ev4(PFCNTR_ICCSR_IMAGE(0, 0, PF_CYCLES, m, 3), true, &cfg));
	}
}

/* iccsr_ign0..3 must be zero: each bit alone fails, and no other bit is one. */
TEST(ev4_ignored_bits)
{
	const __u64 fields = PFCNTR_ICCSR_IMAGE(1, 1, 0xf, 7, 3);
	const __u64 base = PFCNTR_ICCSR_IMAGE(0, 0, PF_CYCLES, PF_DCACHE, 0);
	struct pfm_cfg cfg;
	unsigned int b, nign = 0;

	EXPECT_EQ(~fields, (__u64)PFCNTR_ICCSR_IGN_MASK);
	ASSERT_EQ(0, ev4(base, false, &cfg));
	for (b = 0; b < 64; b++) {
		if (!(PFCNTR_ICCSR_IGN_MASK & (1ULL << b)))
			continue;
		nign++;
		EXPECT_EQ(-EINVAL, ev4(base | 1ULL << b, true, &cfg)) TH_LOG("bit %u", b);
	}
	EXPECT_EQ(2U + 4U + 20U + 27U, nign);
	EXPECT_EQ(-EINVAL, ev4(base | PFCNTR_ICCSR_IGN_MASK, true, &cfg));
}

/* The rate of 256 (iccsr_pc1) needs privilege; 4096 on counter 0 does not. */
TEST(ev4_rates_and_privilege)
{
	struct pfm_cfg cfg;

	EXPECT_EQ(-EPERM, ev4(PFCNTR_ICCSR_IMAGE(0, 1, PF_CYCLES, PF_DCACHE, 0), false, &cfg));
	EXPECT_EQ(-EPERM, ev4(PFCNTR_ICCSR_IMAGE(1, 1, PF_CYCLES, PF_DCACHE, 1), false, &cfg));
	ASSERT_EQ(0, ev4(PFCNTR_ICCSR_IMAGE(0, 1, PF_CYCLES, PF_DCACHE, 0), true, &cfg));
	EXPECT_EQ(65536ULL, cfg.period[0]);
	EXPECT_EQ(256ULL, cfg.period[1]);
	ASSERT_EQ(0, ev4(PFCNTR_ICCSR_IMAGE(1, 0, PF_CYCLES, PF_DCACHE, 0), false, &cfg));
	EXPECT_EQ(4096ULL, cfg.period[0]);
	EXPECT_EQ(4096ULL, cfg.period[1]);
}

/* Invalid images are EINVAL before the rate is looked at. */
TEST(ev4_errors_before_privilege)
{
	struct pfm_cfg cfg;

	EXPECT_EQ(-EINVAL, ev4(PFCNTR_ICCSR_IMAGE(0, 1, PF_CYCLES, PF_DUAL, 0), false, &cfg));
	EXPECT_EQ(-EINVAL, ev4(PFCNTR_ICCSR_IMAGE(0, 1, PF_PALMODE, PF_DCACHE, 0), false, &cfg));
	EXPECT_EQ(-EINVAL, ev4(PFCNTR_ICCSR_IMAGE(0, 1, PF_CYCLES, PF_DCACHE, 3), false, &cfg));
	EXPECT_EQ(-EINVAL, ev4(PFCNTR_ICCSR_IMAGE(0, 1, PF_CYCLES, PF_DCACHE, 0) | 1ULL << 40,
			       false, &cfg));
}

/* The named values pfm(7) lists as not available. */
TEST(ev4_not_available_names)
{
	static const unsigned int mux0[] = { PF_PALMODE, PF_NONISSUES, PF_EXTPIN0 };
	static const unsigned int mux1[] = { PF_DUAL, PF_FPINST, PF_INTOPS, PF_EXTPIN1 };
	struct pfm_cfg cfg;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mux0); i++)
		EXPECT_EQ(-EINVAL, ev4(PFCNTR_ICCSR_IMAGE(0, 0, mux0[i], PF_DCACHE, 0),
				       true, &cfg));
	for (i = 0; i < ARRAY_SIZE(mux1); i++)
		EXPECT_EQ(-EINVAL, ev4(PFCNTR_ICCSR_IMAGE(0, 0, PF_CYCLES, mux1[i], 0),
				       true, &cfg));
}

/* ---- EV5 ------------------------------------------------------------------ */

#define EV5_C1_OK	PF5_MUX1_FLOW_CHANGE
#define EV5_C2_OK	PF5_MUX2_C_CYCLES

/* Counter 0: bit 31, cycles or issues; either way with every mode. */
TEST(ev5_counter0)
{
	struct pfm_cfg cfg;

	ASSERT_EQ(0, ev5(PF5_MUX0_CYCLES | EV5_C1_OK | EV5_C2_OK, EV5_FREQ_DEFAULT, 0,
			 false, &cfg));
	EXPECT_EQ(7UL, cfg.on);
	expect_event(_metadata, &cfg, 0, &W_CYCLES, true, true, "mux", 0);
	ASSERT_EQ(0, ev5(PF5_MUX0_ISSUES | EV5_C1_OK | EV5_C2_OK, EV5_FREQ_DEFAULT, 0,
			 false, &cfg));
	expect_event(_metadata, &cfg, 0, &W_INSNS, true, true, "mux", PF5_MUX0_ISSUES);
	/* the default rates: 65536, 65536, 16384 */
	EXPECT_EQ(65536ULL, cfg.period[0]);
	EXPECT_EQ(65536ULL, cfg.period[1]);
	EXPECT_EQ(16384ULL, cfg.period[2]);
	EXPECT_EQ(PFM_FAM_EV5, cfg.family);
	EXPECT_EQ(3U, cfg.nctrs);
}

/* Counter 1: every value of bits 7:4 below 0xF. */
TEST(ev5_counter1_every_value)
{
	struct pfm_cfg cfg;
	unsigned int m;

	for (m = 0; m < 15; m++) {
		__u64 mux = (__u64)m << 4 | EV5_C2_OK;
		int ret = ev5(mux, EV5_FREQ_DEFAULT, 0, false, &cfg);

		if (!ev5_mux1[m].ok && m == 0) {	/* left at 0: counts nothing */
			ASSERT_EQ(0, ret);
			EXPECT_EQ(5UL, cfg.on);
			EXPECT_EQ(2UL, cfg.na);
			continue;
		}
		if (!ev5_mux1[m].ok) {
			EXPECT_EQ(-EINVAL, ret) TH_LOG("mux1 %#x", m);
			continue;
		}
		ASSERT_EQ(0, ret) TH_LOG("mux1 %#x", m);
		expect_event(_metadata, &cfg, 1, &ev5_mux1[m], true, true, "mux1", m);
	}
}

/* Counter 1: bits 7:4 0xF, every value of bits 53:51. */
TEST(ev5_counter1_every_extended_value)
{
	struct pfm_cfg cfg;
	unsigned int x;

	for (x = 0; x < 8; x++) {
		__u64 mux = 0xf0 | (__u64)x << 51 | EV5_C2_OK;
		int ret = ev5(mux, EV5_FREQ_DEFAULT, 0, false, &cfg);

		if (!ev5_mux1_ext[x].ok) {
			EXPECT_EQ(-EINVAL, ret) TH_LOG("ext %u", x);
			continue;
		}
		ASSERT_EQ(0, ret) TH_LOG("ext %u", x);
		expect_event(_metadata, &cfg, 1, &ev5_mux1_ext[x], true, true, "ext1", x);
	}
}

/* Counter 2: every value of bits 3:0 below 0xF. */
TEST(ev5_counter2_every_value)
{
	struct pfm_cfg cfg;
	unsigned int m;

	for (m = 0; m < 15; m++) {
		int ret = ev5(EV5_C1_OK | m, EV5_FREQ_DEFAULT, 0, false, &cfg);

		if (!ev5_mux2[m].ok && m == 0) {	/* left at 0: counts nothing */
			ASSERT_EQ(0, ret);
			EXPECT_EQ(3UL, cfg.on);
			EXPECT_EQ(4UL, cfg.na);
			continue;
		}
		if (!ev5_mux2[m].ok) {
			EXPECT_EQ(-EINVAL, ret) TH_LOG("mux2 %#x", m);
			continue;
		}
		ASSERT_EQ(0, ret) TH_LOG("mux2 %#x", m);
		expect_event(_metadata, &cfg, 2, &ev5_mux2[m], true, true, "mux2", m);
	}
}

/* Counter 2: bits 3:0 0xF, every value of bits 56:54. */
TEST(ev5_counter2_every_extended_value)
{
	struct pfm_cfg cfg;
	unsigned int x;

	for (x = 0; x < 8; x++) {
		__u64 mux = EV5_C1_OK | 0xf | (__u64)x << 54;
		int ret = ev5(mux, EV5_FREQ_DEFAULT, 0, false, &cfg);

		if (!ev5_mux2_ext[x].ok) {
			EXPECT_EQ(-EINVAL, ret) TH_LOG("ext %u", x);
			continue;
		}
		ASSERT_EQ(0, ret) TH_LOG("ext %u", x);
		expect_event(_metadata, &cfg, 2, &ev5_mux2_ext[x], true, true, "ext2", x);
	}
}

/* The extension bits only with 0xF below them, whatever the event. */
TEST(ev5_extension_needs_0xf)
{
	struct pfm_cfg cfg;
	unsigned int m, b;

	for (m = 0; m < 15; m++) {
		for (b = 51; b <= 53; b++)
			EXPECT_EQ(-EINVAL, ev5((__u64)m << 4 | 1ULL << b | EV5_C2_OK,
					       EV5_FREQ_DEFAULT, 0, true, &cfg))
				TH_LOG("mux1 %#x bit %u", m, b);
		for (b = 54; b <= 56; b++)
			EXPECT_EQ(-EINVAL, ev5(EV5_C1_OK | m | 1ULL << b,
					       EV5_FREQ_DEFAULT, 0, true, &cfg))
				TH_LOG("mux2 %#x bit %u", m, b);
	}
	/* ... even with the counter off */
	EXPECT_EQ(-EINVAL, ev5(EV5_C1_OK | 1ULL << 51 | EV5_C2_OK, 0, 0, true, &cfg));
}

/* Any bit outside bits 0-7, 31 and 51-56 is EINVAL (Tru64's PF5_MUX_KMASK and bit 31). */
TEST(ev5_mux_reserved_bits)
{
	const __u64 valid = PF5_MUX_KMASK | PF5_MUX0_ISSUES;
	const __u64 base = PF5_MUX0_ISSUES | 0xf0 | 0xf;	/* SCACHE_ACCESS, _MISS */
	struct pfm_cfg cfg;
	unsigned int b, n = 0;

	ASSERT_EQ(0, ev5(base, EV5_FREQ_DEFAULT, 0, false, &cfg));
	for (b = 0; b < 64; b++) {
		if (valid & (1ULL << b))
			continue;
		n++;
		EXPECT_EQ(-EINVAL, ev5(base | 1ULL << b, EV5_FREQ_DEFAULT, 0, true, &cfg))
			TH_LOG("bit %u", b);
		EXPECT_EQ(-EINVAL, ev5(base | 1ULL << b, 0, 0, true, &cfg))
			TH_LOG("bit %u, counters off", b);
	}
	EXPECT_EQ(64U - 8U - 1U - 6U, n);
}

/* The PCA56 names share the EV5 values and count as those. */
TEST(ev5_pca56_names)
{
	struct pfm_cfg cfg;

	ASSERT_EQ(0, ev5(PF5_MUX1_C_BCACHE_DREAD_HIT | PF5_MUX2_C_BCACHE_READ_FILL,
			 EV5_FREQ_DEFAULT, 0, false, &cfg));
	expect_event(_metadata, &cfg, 1, &ev5_mux1_ext[X1(C_SCACHE_READ)], true, true, "", 0);
	expect_event(_metadata, &cfg, 2, &ev5_mux2_ext[X2(C_SCACHE_WRITE_MISS)], true, true,
		     "", 0);
	EXPECT_EQ(PF5_MUX1_C_SCACHE_ACCESS, PF5_MUX1_C_BCACHE_READ);
	EXPECT_EQ(-EINVAL, ev5(PF5_MUX1_C_BCACHE_CLN_WRT_HIT | EV5_C2_OK, EV5_FREQ_DEFAULT, 0,
			       true, &cfg));
	EXPECT_EQ(-EINVAL, ev5(EV5_C1_OK | PF5_MUX2_C_READ_MISS_3, EV5_FREQ_DEFAULT, 0,
			       true, &cfg));
}

/* The EV5 names pfm(7) lists as not available. */
TEST(ev5_not_available_names)
{
	static const __u64 mux1[] = {
		PF5_MUX1_NON_ISSUE_CYCLES, PF5_MUX1_SPLIT_ISSUE_CYCLES, PF5_MUX1_REPLAY_TRAP,
		PF5_MUX1_SINGLE_ISSUE_CYCLES, PF5_MUX1_DUAL_ISSUE_CYCLES,
		PF5_MUX1_TRIPLE_ISSUE_CYCLES, PF5_MUX1_QUAD_ISSUE_CYCLES,
		PF5_MUX1_INTEGER_OPERATE, PF5_MUX1_C_FP_INSTRUCTIONS,
		PF5_MUX1_C_SCACHE_VICTIM, PF5_MUX1_C_BCACHE_REF, PF5_MUX1_C_BCACHE_VICTIM,
		PF5_MUX1_C_SYS_REQ,
	};
	static const __u64 mux2[] = {
		PF5_MUX2_C_LONG_STALLS, PF5_MUX2_C_PC_MISPR, PF5_MUX2_C_LOADS_MERGED,
		PF5_MUX2_C_LDU_REPLAYS, PF5_MUX2_C_WB_MAF_FULL_REPLAYS, PF5_MUX2_C_EXTERNAL,
		PF5_MUX2_C_MEM_BARRIER, PF5_MUX2_C_LOAD_LOCKED, PF5_MUX2_C_SCACHE_SH_WRITE,
		PF5_MUX2_C_SCACHE_WRITE, PF5_MUX2_C_BCACHE_MISS, PF5_MUX2_C_SYS_INV,
		PF5_MUX2_C_SYS_READ_REQ,
	};
	struct pfm_cfg cfg;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mux1); i++) {
		int ret = ev5(mux1[i] | EV5_C2_OK, EV5_FREQ_DEFAULT, 0, true, &cfg);

		/* 0 is a field left out: that counter counts nothing */
		EXPECT_EQ(mux1[i] ? -EINVAL : 0, ret)
			TH_LOG("%#llx", (unsigned long long)mux1[i]);
		/* a field of 0 in PCNT5FREQ is the low rate: the event counts */
		EXPECT_EQ(mux1[i] ? -EINVAL : 0,
			  ev5(mux1[i] | EV5_C2_OK, PF5_C0_INT_EVERY_65536 |
			      PF5_C2_INT_EVERY_16384, 0, false, &cfg));
	}
	for (i = 0; i < ARRAY_SIZE(mux2); i++) {
		int ret = ev5(EV5_C1_OK | mux2[i], EV5_FREQ_DEFAULT, 0, true, &cfg);

		EXPECT_EQ(mux2[i] ? -EINVAL : 0, ret)
			TH_LOG("%#llx", (unsigned long long)mux2[i]);
		EXPECT_EQ(mux2[i] ? -EINVAL : 0,
			  ev5(EV5_C1_OK | mux2[i], PF5_C0_INT_EVERY_65536 |
			      PF5_C1_INT_EVERY_65536, 0, false, &cfg));
	}
}

/*
 * Issue 23 M1: PCNT5MUX with counters 1 and 2 left at 0 (the program names
 * counter 0's event only) is not refused: 1 and 2 count nothing and are
 * marked not available; Tru64's 0 values name events x86 lacks.
 */
TEST(ev5_mux_fields_left_at_zero)
{
	struct pfm_cfg cfg;

	ASSERT_EQ(0, ev5(PF5_MUX0_ISSUES, EV5_FREQ_DEFAULT, 0, false, &cfg));
	EXPECT_EQ(1UL, cfg.on);
	EXPECT_EQ(6UL, cfg.na);
	expect_event(_metadata, &cfg, 0, &W_INSNS, true, true, "mux", PF5_MUX0_ISSUES);
	ASSERT_EQ(0, ev5(PF5_MUX0_CYCLES | PF5_MUX1_C_LOAD_INSTRUCTIONS, EV5_FREQ_DEFAULT, 0,
			 false, &cfg));
	EXPECT_EQ(3UL, cfg.on);
	EXPECT_EQ(4UL, cfg.na);
	/* a named unavailable event is still refused */
	EXPECT_EQ(-EINVAL, ev5(PF5_MUX1_REPLAY_TRAP, EV5_FREQ_DEFAULT, 0, false, &cfg));
	EXPECT_EQ(-EINVAL, ev5(PF5_MUX2_C_PC_MISPR, EV5_FREQ_DEFAULT, 0, false, &cfg));
	/* before any PCNT5MUX nothing counts and nothing is unavailable */
	{
		struct pfm_regs r = { .ev5_freq = EV5_FREQ_DEFAULT };

		ASSERT_EQ(0, translate(PFM_FAM_NONE, PFM_FAM_EV5, &r, false, false, &cfg));
		EXPECT_EQ(0UL, cfg.na);
	}
}

/*
 * PCNT5FREQ: every value of the three 2-bit fields, with and without
 * privilege.  As the 5.x driver, which ORed PF5_FREQ_KFORCE in: 0 and 2
 * are the low rate, 1 and 3 the rate of 256 (EPERM without privilege,
 * any bit of PF5_FREQ_FAST_MASK).  Every counter counts (issue 23 M1: 0
 * used to turn the counter off, 1 to fail with EINVAL).
 */
TEST(ev5_freq_every_value)
{
	static const __u64 low[PFM_NCTRS] = { 65536, 65536, 16384 };
	static const unsigned int shift[PFM_NCTRS] = { 8, 6, 4 };
	struct pfm_cfg cfg;
	unsigned int v, priv, i;

	EXPECT_EQ((__u64)PF5_FREQ_KFORCE, (__u64)EV5_FREQ_DEFAULT);
	for (v = 0; v < 64; v++) {
		for (priv = 0; priv < 2; priv++) {
			__u64 freq = 0;
			int want, ret;

			for (i = 0; i < PFM_NCTRS; i++)
				freq |= (__u64)((v >> (2 * i)) & 3) << shift[i];
			want = (freq & PF5_FREQ_FAST_MASK) && !priv ? -EPERM : 0;
			ret = ev5(PF5_MUX0_ISSUES | EV5_C1_OK | EV5_C2_OK, freq, 0, priv, &cfg);
			EXPECT_EQ(want, ret) TH_LOG("freq %#llx priv %u",
						    (unsigned long long)freq, priv);
			if (want || ret)
				continue;
			EXPECT_EQ(7UL, cfg.on) TH_LOG("freq %#llx", (unsigned long long)freq);
			for (i = 0; i < PFM_NCTRS; i++) {
				unsigned int f = (v >> (2 * i)) & 3;
				unsigned long long fv = freq;

				EXPECT_EQ(f & 1 ? 256ULL : low[i], cfg.period[i])
					TH_LOG("freq %#llx counter %u", fv, i);
			}
		}
	}
	/* the header's names */
	ASSERT_EQ(0, ev5(EV5_C1_OK | EV5_C2_OK, PF5_C0_INT_EVERY_256 | PF5_C1_INT_EVERY_256 |
			 PF5_C2_INT_EVERY_256, 0, true, &cfg));
	EXPECT_EQ(256ULL, cfg.period[0]);
	EXPECT_EQ(256ULL, cfg.period[1]);
	EXPECT_EQ(256ULL, cfg.period[2]);
	/* one counter's rate named, the others left 0: all at the low rate */
	ASSERT_EQ(0, ev5(PF5_MUX0_CYCLES | EV5_C1_OK | EV5_C2_OK, PF5_C1_INT_EVERY_65536, 0,
			 false, &cfg));
	EXPECT_EQ(7UL, cfg.on);
	EXPECT_EQ(65536ULL, cfg.period[0]);
	EXPECT_EQ(16384ULL, cfg.period[2]);
}

/* Any PCNT5FREQ bit outside bits 4-9 (PF5_FREQ_KMASK) is EINVAL. */
TEST(ev5_freq_reserved_bits)
{
	struct pfm_cfg cfg;
	unsigned int b;

	EXPECT_EQ(0x3f0ULL, (__u64)PF5_FREQ_KMASK);
	for (b = 0; b < 64; b++) {
		if (PF5_FREQ_KMASK & (1ULL << b))
			continue;
		EXPECT_EQ(-EINVAL, ev5(EV5_C1_OK | EV5_C2_OK, EV5_FREQ_DEFAULT | 1ULL << b, 0,
				       true, &cfg)) TH_LOG("bit %u", b);
	}
}

/* Nothing counts before the first PCNT5MUX, and no event is looked at. */
TEST(ev5_nothing_before_mux)
{
	struct pfm_regs r = { .ev5_freq = EV5_FREQ_DEFAULT };
	struct pfm_cfg cfg;

	ASSERT_EQ(0, translate(PFM_FAM_NONE, PFM_FAM_EV5, &r, false, false, &cfg));
	EXPECT_EQ(0UL, cfg.on);
	EXPECT_EQ(PFM_FAM_EV5, cfg.family);
	r.ev5_freq = PF5_C0_INT_EVERY_256;	/* still needs privilege */
	EXPECT_EQ(-EPERM, translate(PFM_FAM_NONE, PFM_FAM_EV5, &r, false, false, &cfg));
	r.ev5_freq = 0x100;			/* and 1 is 256 as well */
	EXPECT_EQ(-EPERM, translate(PFM_FAM_NONE, PFM_FAM_EV5, &r, false, false, &cfg));
	EXPECT_EQ(0, translate(PFM_FAM_NONE, PFM_FAM_EV5, &r, true, false, &cfg));
	r.ev5_freq = EV5_FREQ_DEFAULT;
	r.ev5_ctxts = PF5_CTXT_PAL;
	EXPECT_EQ(-EINVAL, translate(PFM_FAM_NONE, PFM_FAM_EV5, &r, true, false, &cfg));
}

/*
 * PCNT5CTXTS: every process selection with every combination of the three
 * mode bits; user and kernel mode as pfm(7)'s table of the named values.
 */
TEST(ev5_contexts_every_mode)
{
	static const struct {
		__u64 v;
		int ret;
		bool user, kernel;
	} modes[8] = {
		{ PF5_CTXT_ALL_MODES, 0, true, true },
		{ PF5_CTXT_USER_AND_PAL, 0, true, false },	/* NO_KERNEL */
		{ PF5_CTXT_USER_AND_KERNEL, 0, true, true },	/* NO_PAL */
		{ PF5_CTXT_USER, 0, true, false },		/* NO_PAL|NO_KERNEL */
		{ PF5_CTXT_PAL_AND_KERNEL, 0, false, true },	/* NO_USER */
		{ PF5_CTXT_PAL, -EINVAL, false, false },	/* NO_USER|NO_KERNEL */
		{ PF5_CTXT_KERNEL, 0, false, true },		/* NO_USER|NO_PAL */
		{ PF5_CTXT_EXEC_AND_SUPER, 0, true, false },	/* all three */
	};
	static const __u64 sel[] = {
		PF5_CTXT_ALL_PROC, PF5_CTXT_SEL_PROC, PF5_CTXT_PME_THIS, PF5_CTXT_THIS_PROC,
	};
	struct pfm_cfg cfg;
	unsigned int m, s, i;

	for (m = 0; m < 8; m++) {
		/* the table is in the order of the three bits */
		EXPECT_EQ((__u64)((m & 1 ? PF5_CTXT_NO_KERNEL : 0) |
				  (m & 2 ? PF5_CTXT_NO_PAL : 0) |
				  (m & 4 ? PF5_CTXT_NO_USER : 0)), modes[m].v);
		for (s = 0; s < 4; s++) {
			int ret = ev5(PF5_MUX0_ISSUES | EV5_C1_OK | EV5_C2_OK, EV5_FREQ_DEFAULT,
				      modes[m].v | sel[s], false, &cfg);

			EXPECT_EQ(modes[m].ret, ret)
				TH_LOG("ctxts %#llx", (unsigned long long)(modes[m].v | sel[s]));
			if (ret)
				continue;
			EXPECT_EQ(7UL, cfg.on);
			for (i = 0; i < PFM_NCTRS; i++) {
				EXPECT_EQ(!modes[m].user, cfg.desc[i].exclude_user)
					TH_LOG("ctxts %#llx counter %u",
					       (unsigned long long)modes[m].v, i);
				EXPECT_EQ(!modes[m].kernel, cfg.desc[i].exclude_kernel)
					TH_LOG("ctxts %#llx counter %u",
					       (unsigned long long)modes[m].v, i);
			}
		}
	}
}

/* Any PCNT5CTXTS bit but 0, 1, 8, 9 and 30 is EINVAL. */
TEST(ev5_contexts_reserved_bits)
{
	const __u64 valid = PF5_CTXT_KMASK | PF5_CTXT_PME_THIS;
	struct pfm_cfg cfg;
	unsigned int b, n = 0;

	EXPECT_EQ(0x40000303ULL, valid);
	for (b = 0; b < 64; b++) {
		if (valid & (1ULL << b))
			continue;
		n++;
		EXPECT_EQ(-EINVAL, ev5(EV5_C1_OK | EV5_C2_OK, EV5_FREQ_DEFAULT, 1ULL << b,
				       true, &cfg)) TH_LOG("bit %u", b);
	}
	EXPECT_EQ(59U, n);
}

/*
 * The order of the errors: the mux, freq and contexts bits, the modes,
 * then per counter in order its rate (EPERM for 256 without privilege)
 * before its event.
 */
TEST(ev5_error_order)
{
	const __u64 na1 = PF5_MUX1_REPLAY_TRAP | EV5_C2_OK;
	struct pfm_cfg cfg;

	/* counter 0 at 256 comes before counter 1's unavailable event */
	EXPECT_EQ(-EPERM, ev5(na1, EV5_FREQ_DEFAULT | PF5_C0_INT_EVERY_256, 0, false, &cfg));
	EXPECT_EQ(-EINVAL, ev5(na1, EV5_FREQ_DEFAULT | PF5_C0_INT_EVERY_256, 0, true, &cfg));
	/* counter 1's own rate comes before its event */
	EXPECT_EQ(-EPERM, ev5(na1, PF5_C1_INT_EVERY_256, 0, false, &cfg));
	EXPECT_EQ(-EINVAL, ev5(na1, PF5_C1_INT_EVERY_256, 0, true, &cfg));
	/* counter 1's unavailable event comes before counter 2's rate */
	EXPECT_EQ(-EINVAL, ev5(na1, PF5_C1_INT_EVERY_65536 | PF5_C2_INT_EVERY_256, 0,
			       false, &cfg));
	/* bits and modes come before any rate */
	EXPECT_EQ(-EINVAL, ev5(EV5_C1_OK | EV5_C2_OK, PF5_C0_INT_EVERY_256,
			       PF5_CTXT_PAL, false, &cfg));
	EXPECT_EQ(-EINVAL, ev5(EV5_C1_OK | EV5_C2_OK, PF5_C0_INT_EVERY_256, 1ULL << 4,
			       false, &cfg));
	EXPECT_EQ(-EINVAL, ev5(EV5_C1_OK | EV5_C2_OK | 1ULL << 8, PF5_C0_INT_EVERY_256, 0,
			       false, &cfg));
	EXPECT_EQ(-EINVAL, ev5(EV5_C1_OK | EV5_C2_OK, PF5_C0_INT_EVERY_256 | 1, 0,
			       false, &cfg));
}

/* pfm(7)'s example: user mode only, without privilege. */
TEST(ev5_man_page_example)
{
	static const struct want branches = HW(BRANCH_INSTRUCTIONS);
	struct pfm_cfg cfg;

	ASSERT_EQ(0, ev5(PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES,
			 PF5_C0_INT_EVERY_65536 | PF5_C1_INT_EVERY_65536 |
			 PF5_C2_INT_EVERY_16384,
			 PF5_CTXT_THIS_PROC | PF5_CTXT_EXEC_AND_SUPER, false, &cfg));
	EXPECT_EQ(7UL, cfg.on);
	expect_event(_metadata, &cfg, 0, &W_INSNS, true, false, "", 0);
	expect_event(_metadata, &cfg, 1, &branches, true, false, "", 0);
	expect_event(_metadata, &cfg, 2, &W_CYCLES, true, false, "", 0);
}

/* ---- EV6 and EV67 --------------------------------------------------------- */

/* Every PCNT6MUX value of bits 4:0; user and kernel mode, every 2^20. */
TEST(ev6_every_mux)
{
	struct pfm_cfg cfg;
	unsigned int m, nok = 0;

	for (m = 0; m < 32; m++) {
		int ret = ev6(m, false, &cfg);

		if (!ev6_mux1[m & 0xf].ok) {
			EXPECT_EQ(-EINVAL, ret) TH_LOG("mux %#x", m);
			continue;
		}
		nok++;
		ASSERT_EQ(0, ret) TH_LOG("mux %#x", m);
		EXPECT_EQ(3UL, cfg.on);
		expect_event(_metadata, &cfg, 0, m & PF6_MUX0_RET_INSTRUCTIONS ? &W_INSNS :
			     &W_CYCLES, true, true, "mux", m);
		expect_event(_metadata, &cfg, 1, &ev6_mux1[m & 0xf], true, true, "mux", m);
		EXPECT_EQ(1ULL << 20, cfg.period[0]);
		EXPECT_EQ(1ULL << 20, cfg.period[1]);
		EXPECT_EQ(PFM_FAM_EV6, cfg.family);
		EXPECT_EQ(2U, cfg.nctrs);
	}
	EXPECT_EQ(2U * 5U, nok);
	/* pfm(7): not available */
	EXPECT_EQ(-EINVAL, ev6(PF6_MUX1_RET_DTB_DOUBLE_MISSES, false, &cfg));
	EXPECT_EQ(-EINVAL, ev6(PF6_MUX1_RET_UNALIGNED_TRAPS, false, &cfg));
	EXPECT_EQ(-EINVAL, ev6(PF6_MUX1_REPLAY_TRAP, false, &cfg));
}

/* Any bit above bit 4 (PF6_MUX_KMASK) is EINVAL, EV6 and EV67. */
TEST(ev6_reserved_bits)
{
	struct pfm_cfg cfg;
	unsigned int b;

	EXPECT_EQ(0x1fULL, (__u64)PF6_MUX_KMASK);
	for (b = 5; b < 64; b++) {
		EXPECT_EQ(-EINVAL, ev6(1ULL << b, false, &cfg)) TH_LOG("bit %u", b);
		EXPECT_EQ(-EINVAL, ev6(1ULL << b, true, &cfg)) TH_LOG("EV67 bit %u", b);
	}
}

/* EV67: the three aggregate pairs; replay traps and profile-me are EINVAL. */
TEST(ev67_every_mux)
{
	struct pfm_cfg cfg;
	unsigned int m;

	for (m = 0; m < 32; m++) {
		int ret = ev6(m, true, &cfg);

		switch (m) {
		case PF67_RET_INST_AND_CYCLES:
			ASSERT_EQ(0, ret);
			EXPECT_EQ(3UL, cfg.on);
			expect_event(_metadata, &cfg, 0, &W_INSNS, true, true, "mux", m);
			expect_event(_metadata, &cfg, 1, &W_CYCLES, true, true, "mux", m);
			break;
		case PF67_CYCLES_AND_UNDEFINED:	/* = PF67_CYCLES_AND_RET_DELAY */
			ASSERT_EQ(0, ret);
			EXPECT_EQ(1UL, cfg.on);		/* counter 1 counts nothing */
			expect_event(_metadata, &cfg, 0, &W_CYCLES, true, true, "mux", m);
			break;
		case PF67_RET_INST_AND_BCACHE_MISS:
			ASSERT_EQ(0, ret);
			EXPECT_EQ(3UL, cfg.on);
			expect_event(_metadata, &cfg, 0, &W_INSNS, true, true, "mux", m);
			expect_event(_metadata, &cfg, 1, &W_LLC_MISSES, true, true, "mux", m);
			break;
		default:
			EXPECT_EQ(-EINVAL, ret) TH_LOG("mux %#x", m);
			continue;
		}
		EXPECT_EQ(1ULL << 20, cfg.period[0]);
		EXPECT_EQ(1ULL << 20, cfg.period[1]);
	}
	EXPECT_EQ(-EINVAL, ev6(PF67_CYCLES_AND_REPLAY_TRAPS, true, &cfg));
	EXPECT_EQ(-EINVAL, ev6(PF67_PROFILE_ME_MODE, true, &cfg));
	EXPECT_EQ(-EINVAL, ev6(PF67_PROFILE_ME_MODE | PF67_CYCLES_AND_RET_DELAY, true, &cfg));
}

/* The same numbers mean other events on EV6 and EV67. */
TEST(ev67_differs_from_ev6)
{
	struct pfm_cfg cfg;

	ASSERT_EQ(0, ev6(0x00, false, &cfg));	/* cycles, cycles */
	expect_event(_metadata, &cfg, 0, &W_CYCLES, true, true, "EV6", 0);
	expect_event(_metadata, &cfg, 1, &W_CYCLES, true, true, "EV6", 0);
	ASSERT_EQ(0, ev6(0x00, true, &cfg));	/* instructions, cycles */
	expect_event(_metadata, &cfg, 0, &W_INSNS, true, true, "EV67", 0);

	EXPECT_EQ(-EINVAL, ev6(0x04, false, &cfg));	/* DTB double misses */
	EXPECT_EQ(0, ev6(0x04, true, &cfg));
	EXPECT_EQ(-EINVAL, ev6(0x08, false, &cfg));	/* EV6: no 8 */
	EXPECT_EQ(0, ev6(0x08, true, &cfg));
	EXPECT_EQ(0, ev6(0x01, false, &cfg));		/* EV67: pairs only */
	EXPECT_EQ(-EINVAL, ev6(0x01, true, &cfg));
	EXPECT_EQ(0, ev6(0x10, false, &cfg));		/* EV67: profile-me */
	EXPECT_EQ(-EINVAL, ev6(0x10, true, &cfg));
}

/*
 * Issue 23 M2: EV4 and EV6 count user mode only when the caller may not
 * count kernel mode (an ordinary user's LOGSELECT, pfm(7) DIFFERENCES);
 * EV5 keeps what its contexts say.
 */
TEST(ev4_ev6_user_only)
{
	struct pfm_regs r = {
		.iccsr = PFCNTR_ICCSR_IMAGE(0, 0, PF_CYCLES, PF_BRANCHMISS, 0),
		.ev6_mux = PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_RET_COND_BRANCHES,
		.ev5_mux = PF5_MUX0_ISSUES, .ev5_mux_set = true,
		.ev5_freq = EV5_FREQ_DEFAULT,
	};
	struct pfm_alpha_ctx ctx = { .user_only = true };
	static const struct want branches = HW(BRANCH_INSTRUCTIONS);
	static const struct want bmiss = HW(BRANCH_MISSES);
	struct pfm_cfg cfg;

	ASSERT_EQ(0, pfm_alpha_cfg(&ctx, PFM_FAM_EV4, &r, &cfg));
	expect_event(_metadata, &cfg, 0, &W_CYCLES, true, false, "EV4", 0);
	expect_event(_metadata, &cfg, 1, &bmiss, true, false, "EV4", 0);
	ASSERT_EQ(0, pfm_alpha_cfg(&ctx, PFM_FAM_EV6, &r, &cfg));
	expect_event(_metadata, &cfg, 0, &W_INSNS, true, false, "EV6", 0);
	expect_event(_metadata, &cfg, 1, &branches, true, false, "EV6", 0);
	ctx.ev67 = true;
	r.ev6_mux = PF67_RET_INST_AND_CYCLES;
	ASSERT_EQ(0, pfm_alpha_cfg(&ctx, PFM_FAM_EV6, &r, &cfg));
	expect_event(_metadata, &cfg, 1, &W_CYCLES, true, false, "EV67", 0);
	ASSERT_EQ(0, pfm_alpha_cfg(&ctx, PFM_FAM_EV5, &r, &cfg));
	expect_event(_metadata, &cfg, 0, &W_INSNS, true, true, "EV5", 0);
}

/* ---- comparing configurations --------------------------------------------- */

TEST(cfg_equal)
{
	struct pfm_cfg a, b;

	ASSERT_EQ(0, ev5(PF5_MUX0_ISSUES | EV5_C2_OK,
			 PF5_C0_INT_EVERY_65536 | PF5_C2_INT_EVERY_16384, 0, false, &a));
	ASSERT_EQ(0, ev5(PF5_MUX0_ISSUES | EV5_C2_OK,
			 PF5_C0_INT_EVERY_65536 | PF5_C2_INT_EVERY_16384, 0, false, &b));
	EXPECT_TRUE(pfm_cfg_equal(&a, &b));
	b.desc[1].config++;			/* counter 1 is left out */
	EXPECT_TRUE(pfm_cfg_equal(&a, &b));
	b.desc[2].exclude_user = true;
	EXPECT_FALSE(pfm_cfg_equal(&a, &b));
	b = a;
	b.desc[0].type = PERF_TYPE_HW_CACHE;
	EXPECT_FALSE(pfm_cfg_equal(&a, &b));
	b = a;
	b.period[1] = 256;			/* off, but its period counts */
	EXPECT_FALSE(pfm_cfg_equal(&a, &b));
	b = a;
	b.logselect = true;
	EXPECT_FALSE(pfm_cfg_equal(&a, &b));
	b = a;
	b.sample = true;
	EXPECT_FALSE(pfm_cfg_equal(&a, &b));
	b = a;
	b.on = 1;
	EXPECT_FALSE(pfm_cfg_equal(&a, &b));
	b = a;
	b.family = PFM_FAM_EV6;
	EXPECT_FALSE(pfm_cfg_equal(&a, &b));
	b = a;
	b.na = 0;
	EXPECT_FALSE(pfm_cfg_equal(&a, &b));
	/* another user-mode choice is another configuration */
	ASSERT_EQ(0, ev5(PF5_MUX0_ISSUES | EV5_C2_OK,
			 PF5_C0_INT_EVERY_65536 | PF5_C2_INT_EVERY_16384,
			 PF5_CTXT_KERNEL, false, &b));
	EXPECT_FALSE(pfm_cfg_equal(&a, &b));
}

/* ---- IPL histogram entries ------------------------------------------------ */

/*
 * Issue 23 M6: entry 7 is Tru64's "IPL 0 and the idle thread", a subset of
 * entry 0.  The idle task's own context (which waits with interrupts off
 * on Linux) is entry 0 and 7; an interrupt taken in the idle task is its
 * level only.
 */
TEST(ipl_entries)
{
	static const struct {
		struct pfm_ipl_ctx c;
		unsigned int e;
		bool idle;
	} t[] = {
		{ { .user = true }, 8, false },
		{ { .user = true, .idle_task = true }, 8, false },
		{ { }, 0, false },
		{ { .idle_task = true }, 0, true },
		{ { .idle_task = true, .irqs_off = true }, 0, true },
		{ { .irqs_off = true }, 3, false },
		{ { .bh_off = true }, 1, false },
		{ { .bh_off = true, .idle_task = true }, 1, false },
		{ { .softirq = true, .bh_off = true }, 2, false },
		{ { .softirq = true, .bh_off = true, .idle_task = true }, 2, false },
		{ { .hard = 1, .irqs_off = true }, 4, false },
		{ { .hard = 1, .irqs_off = true, .idle_task = true }, 4, false },
		{ { .nmi = 1, .hard = 1, .irqs_off = true }, 5, false },
		{ { .nmi = 1, .idle_task = true }, 5, false },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		bool idle = !t[i].idle;

		EXPECT_EQ(t[i].e, pfm_ipl_entry(&t[i].c, &idle)) TH_LOG("case %u", i);
		EXPECT_EQ(t[i].idle, idle) TH_LOG("case %u", i);
	}
}

TEST_HARNESS_MAIN
