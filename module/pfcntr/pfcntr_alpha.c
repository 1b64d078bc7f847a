// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pfcntr: the Alpha registers translated into perf events (pfm(7),
 * "Event mapping", "EV5 contexts", "Rates and privilege").
 *
 * Each Alpha event is counted with the nearest of perf's generic hardware
 * or cache events; one with no x86 counterpart is "not available" and
 * fails with EINVAL when a counter that counts chooses it, but for EV5's
 * counter 1 or 2 left at 0 by a PCNT5MUX (the program did not name it):
 * that counter counts nothing, and requests that select it fail.  EV4 and
 * EV6 count user and kernel mode, but only user mode for a caller who may
 * not count kernel mode and counts its own processes (LOGSELECT); EV5's
 * contexts choose.  A PCNT5FREQ field of 0 is the low rate, as the 5.x
 * driver forced it (PF5_FREQ_KFORCE).  A rate of 256 (EV5, EV4's counter 1)
 * needs privilege: EPERM without.
 *
 * Pure: no state, nothing of the kernel beyond its types.  The host unit
 * test tests/unit/pfcntr_alpha_test.c compiles this file as it is.
 */
#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <string.h>
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK_ULL(h, l)	((~0ULL >> (63 - (h))) & (~0ULL << (l)))
#endif
/* The uapi header in both builds: perf's event types and numbers. */
#include <linux/perf_event.h>

#include "pfcntr_alpha.h"

/* ---- the events ----------------------------------------------------------- */

enum pfm_event {
	PFM_NA,		/* not available: EINVAL */
	PFM_OFF,	/* EV67's "undefined": the counter counts nothing */
	PFM_CYCLES, PFM_INSNS, PFM_BRANCHES, PFM_BRANCH_MISSES,
	PFM_LLC_REFS, PFM_LLC_MISSES, PFM_STALL_FE, PFM_STALL_BE,
	PFM_L1D_RD, PFM_L1D_RD_MISS, PFM_L1D_WR, PFM_L1I_RD, PFM_L1I_RD_MISS,
	PFM_LL_RD, PFM_LL_RD_MISS, PFM_LL_WR, PFM_LL_WR_MISS,
	PFM_DTLB_RD_MISS, PFM_ITLB_RD_MISS,
};

#define PFM_HW(x)	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_##x }
#define PFM_CACHE(c, op, res)						\
	{ PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_##c |			\
	  (PERF_COUNT_HW_CACHE_OP_##op << 8) |				\
	  (PERF_COUNT_HW_CACHE_RESULT_##res << 16) }

static const struct {
	u32 type;
	u64 config;
} pfm_perf_events[] = {
	[PFM_CYCLES] = PFM_HW(CPU_CYCLES),
	[PFM_INSNS] = PFM_HW(INSTRUCTIONS),
	[PFM_BRANCHES] = PFM_HW(BRANCH_INSTRUCTIONS),
	[PFM_BRANCH_MISSES] = PFM_HW(BRANCH_MISSES),
	[PFM_LLC_REFS] = PFM_HW(CACHE_REFERENCES),
	[PFM_LLC_MISSES] = PFM_HW(CACHE_MISSES),
	[PFM_STALL_FE] = PFM_HW(STALLED_CYCLES_FRONTEND),
	[PFM_STALL_BE] = PFM_HW(STALLED_CYCLES_BACKEND),
	[PFM_L1D_RD] = PFM_CACHE(L1D, READ, ACCESS),
	[PFM_L1D_RD_MISS] = PFM_CACHE(L1D, READ, MISS),
	[PFM_L1D_WR] = PFM_CACHE(L1D, WRITE, ACCESS),
	[PFM_L1I_RD] = PFM_CACHE(L1I, READ, ACCESS),
	[PFM_L1I_RD_MISS] = PFM_CACHE(L1I, READ, MISS),
	[PFM_LL_RD] = PFM_CACHE(LL, READ, ACCESS),
	[PFM_LL_RD_MISS] = PFM_CACHE(LL, READ, MISS),
	[PFM_LL_WR] = PFM_CACHE(LL, WRITE, ACCESS),
	[PFM_LL_WR_MISS] = PFM_CACHE(LL, WRITE, MISS),
	[PFM_DTLB_RD_MISS] = PFM_CACHE(DTLB, READ, MISS),
	[PFM_ITLB_RD_MISS] = PFM_CACHE(ITLB, READ, MISS),
};

/* EV4 iccsr_mux0 and iccsr_mux1 (pfm(7); the man page has the table). */
static const u8 pfm_ev4_mux0[16] = {
	[0x0] = PFM_INSNS, [0x2] = PFM_STALL_FE, [0x4] = PFM_L1D_RD,
	[0x6] = PFM_STALL_BE, [0x8] = PFM_BRANCHES, [0xa] = PFM_CYCLES,
};

static const u8 pfm_ev4_mux1[8] = {
	[0x0] = PFM_L1D_RD_MISS, [0x1] = PFM_L1I_RD_MISS,
	[0x3] = PFM_BRANCH_MISSES, [0x6] = PFM_L1D_WR,
};

/* EV5 PCNT5MUX counter 1: bits 7:4, and bits 53:51 when those are 0xF. */
static const u8 pfm_ev5_mux1[16] = {
	[0x2] = PFM_STALL_FE, [0x8] = PFM_BRANCHES, [0xb] = PFM_L1D_RD,
	[0xc] = PFM_L1D_WR, [0xd] = PFM_L1I_RD, [0xe] = PFM_L1D_RD,
};

static const u8 pfm_ev5_mux1_ext[8] = {
	[0] = PFM_LLC_REFS, [1] = PFM_LL_RD, [2] = PFM_LL_WR,
};

/* EV5 counter 2: bits 3:0, and bits 56:54 when those are 0xF. */
static const u8 pfm_ev5_mux2[16] = {
	[0x3] = PFM_BRANCH_MISSES, [0x4] = PFM_L1I_RD_MISS,
	[0x5] = PFM_ITLB_RD_MISS, [0x6] = PFM_L1D_RD_MISS,
	[0x7] = PFM_DTLB_RD_MISS, [0xc] = PFM_CYCLES,
};

static const u8 pfm_ev5_mux2_ext[8] = {
	[0] = PFM_LLC_MISSES, [1] = PFM_LL_RD_MISS, [2] = PFM_LL_WR_MISS,
};

/* EV6 counter 1: bits 3:0 (counter 0 is bit 4). */
static const u8 pfm_ev6_mux1[16] = {
	[0x0] = PFM_CYCLES, [0x1] = PFM_BRANCHES, [0x2] = PFM_BRANCH_MISSES,
	[0x3] = PFM_DTLB_RD_MISS, [0x5] = PFM_ITLB_RD_MISS,
};

/* Field positions of the registers' images (sys/pfcntr.h bit fields). */
#define ICCSR_PC1(v)		((v) & 1)
#define ICCSR_PC0(v)		(((v) >> 3) & 1)
#define ICCSR_MUX0(v)		(((v) >> 8) & 0xf)
#define ICCSR_MUX1(v)		(((v) >> 32) & 0x7)
#define ICCSR_IGN		(~(BIT_ULL(0) | BIT_ULL(3) | GENMASK_ULL(11, 8) | \
				   GENMASK_ULL(36, 32)))

#define EV5_MUX_VALID		(GENMASK_ULL(7, 0) | BIT_ULL(31) | GENMASK_ULL(56, 51))
#define EV5_CTXT_MODES		(PF5_CTXT_NO_USER | PF5_CTXT_NO_PAL | PF5_CTXT_NO_KERNEL)
#define EV5_FREQ_VALID		GENMASK_ULL(9, 4)	/* Tru64: PF5_FREQ_KMASK */

/* union pmctrs_ev5 / pmctrs_ev6 images */
const struct pfm_image pfm_image_ev5 = {
	.sel_bits = 3, .cpu_shift = 8,
	.shift = { 48, 32, 16 }, .width = { 16, 16, 14 },
}, pfm_image_ev6 = {
	.sel_bits = 2, .cpu_shift = 56,
	.shift = { 28, 6 }, .width = { 20, 20 },
};

/* ---- the families' registers ------------------------------------------------ */

static void pfm_cfg_event(struct pfm_cfg *cfg, unsigned int i, u8 ev, u64 period,
			  bool user, bool kernel)
{
	cfg->period[i] = period;
	if (ev == PFM_OFF)
		return;
	cfg->on |= BIT(i);
	cfg->desc[i] = (struct pfm_desc) {
		.type = pfm_perf_events[ev].type,
		.config = pfm_perf_events[ev].config,
		.exclude_user = !user,
		.exclude_kernel = !kernel,
	};
}

void pfm_cfg_init(struct pfm_cfg *cfg)
{
	unsigned int i;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < PFM_NCTRS; i++)
		cfg->period[i] = 1 << 16;	/* any: nothing counts */
}

/* Start a configuration of family fam. */
static int pfm_cfg_begin(const struct pfm_alpha_ctx *ctx, enum pfm_family fam,
			 struct pfm_cfg *cfg)
{
	if (ctx->family != PFM_FAM_NONE && ctx->family != fam)
		return -EINVAL;
	pfm_cfg_init(cfg);
	cfg->family = fam;
	cfg->logselect = ctx->logselect;
	cfg->sample = ctx->sample;
	cfg->nctrs = fam == PFM_FAM_EV5 ? 3 : 2;
	return 0;
}

static int pfm_cfg_ev4(const struct pfm_alpha_ctx *ctx, u64 iccsr, struct pfm_cfg *cfg)
{
	unsigned int dis = ICCSR_DISABLE(iccsr);
	u8 ev0 = pfm_ev4_mux0[ICCSR_MUX0(iccsr)];
	u8 ev1 = pfm_ev4_mux1[ICCSR_MUX1(iccsr)];
	int ret;

	ret = pfm_cfg_begin(ctx, PFM_FAM_EV4, cfg);
	if (ret)
		return ret;
	if ((iccsr & ICCSR_IGN) || dis == 3)
		return -EINVAL;
	if ((!(dis & 1) && ev0 == PFM_NA) || (!(dis & 2) && ev1 == PFM_NA))
		return -EINVAL;
	if (!(dis & 2) && ICCSR_PC1(iccsr) && !ctx->privileged)
		return -EPERM;		/* every 2^8 events: Tru64's superuser rate */
	pfm_cfg_event(cfg, 0, dis & 1 ? PFM_OFF : ev0,
		      ICCSR_PC0(iccsr) ? 1 << 12 : 1 << 16, true, !ctx->user_only);
	pfm_cfg_event(cfg, 1, dis & 2 ? PFM_OFF : ev1,
		      ICCSR_PC1(iccsr) ? 1 << 8 : 1 << 12, true, !ctx->user_only);
	return 0;
}

/* PCNT5CTXTS modes: 0 on success, with what is counted. */
static int pfm_ev5_modes(u64 ctxts, bool *user, bool *kernel)
{
	u64 modes = ctxts & EV5_CTXT_MODES;

	if (ctxts & ~(EV5_CTXT_MODES | PF5_CTXT_THIS_PROC))
		return -EINVAL;
	*kernel = !(modes & PF5_CTXT_NO_KERNEL);
	/* Unix user mode is PAL's "executive": EXEC_AND_SUPER counts it. */
	*user = !(modes & PF5_CTXT_NO_USER) || modes == EV5_CTXT_MODES;
	if (!*user && !*kernel)
		return -EINVAL;		/* PAL mode only: nothing on x86 */
	return 0;
}

static int pfm_cfg_ev5(const struct pfm_alpha_ctx *ctx, const struct pfm_regs *r,
		       struct pfm_cfg *cfg)
{
	static const u64 fast[PFM_NCTRS] = { 65536, 65536, 16384 };
	static const unsigned int fshift[PFM_NCTRS] = { 8, 6, 4 };
	u64 mux = r->ev5_mux, low1 = (mux >> 4) & 0xf, low2 = mux & 0xf;
	/* A counter's whole field at 0: 1 and 2 then name an unavailable event. */
	bool zero[PFM_NCTRS] = {
		false,
		!(mux & (GENMASK_ULL(7, 4) | GENMASK_ULL(53, 51))),
		!(mux & (GENMASK_ULL(3, 0) | GENMASK_ULL(56, 54))),
	};
	u8 ev[PFM_NCTRS];
	bool user, kernel;
	unsigned int i;
	int ret;

	ret = pfm_cfg_begin(ctx, PFM_FAM_EV5, cfg);
	if (ret)
		return ret;
	if ((mux & ~EV5_MUX_VALID) || (r->ev5_freq & ~EV5_FREQ_VALID))
		return -EINVAL;
	if ((low1 != 0xf && (mux & GENMASK_ULL(53, 51))) ||
	    (low2 != 0xf && (mux & GENMASK_ULL(56, 54))))
		return -EINVAL;
	ret = pfm_ev5_modes(r->ev5_ctxts, &user, &kernel);
	if (ret)
		return ret;
	ev[0] = mux & BIT_ULL(31) ? PFM_INSNS : PFM_CYCLES;
	ev[1] = low1 == 0xf ? pfm_ev5_mux1_ext[(mux >> 51) & 7] : pfm_ev5_mux1[low1];
	ev[2] = low2 == 0xf ? pfm_ev5_mux2_ext[(mux >> 54) & 7] : pfm_ev5_mux2[low2];
	for (i = 0; i < PFM_NCTRS; i++) {
		/* Tru64 ORed PF5_FREQ_KFORCE in: 0 is the low rate, 1 is 256. */
		unsigned int f = ((r->ev5_freq >> fshift[i]) & 3) | 2;

		if (f == 3 && !ctx->privileged)
			return -EPERM;
		if (r->ev5_mux_set && ev[i] == PFM_NA) {
			if (!zero[i])
				return -EINVAL;
			cfg->na |= BIT(i);
			ev[i] = PFM_OFF;
		}
		pfm_cfg_event(cfg, i, r->ev5_mux_set ? ev[i] : PFM_OFF,
			      f == 3 ? 256 : fast[i], user, kernel);
	}
	return 0;
}

static int pfm_cfg_ev6(const struct pfm_alpha_ctx *ctx, u64 mux, struct pfm_cfg *cfg)
{
	u8 ev0, ev1;
	int ret;

	ret = pfm_cfg_begin(ctx, PFM_FAM_EV6, cfg);
	if (ret)
		return ret;
	if (mux & ~0x1fULL)
		return -EINVAL;
	if (ctx->ev67) {
		/* Aggregate pairs only; profile-me mode (0x10) is refused. */
		switch (mux) {
		case PF67_RET_INST_AND_CYCLES:
			ev0 = PFM_INSNS;
			ev1 = PFM_CYCLES;
			break;
		case PF67_CYCLES_AND_UNDEFINED:
			ev0 = PFM_CYCLES;
			ev1 = PFM_OFF;
			break;
		case PF67_RET_INST_AND_BCACHE_MISS:
			ev0 = PFM_INSNS;
			ev1 = PFM_LLC_MISSES;
			break;
		default:	/* replay traps: not available; profile-me */
			return -EINVAL;
		}
	} else {
		ev0 = mux & 0x10 ? PFM_INSNS : PFM_CYCLES;
		ev1 = pfm_ev6_mux1[mux & 0xf];
	}
	if (ev1 == PFM_NA)
		return -EINVAL;
	pfm_cfg_event(cfg, 0, ev0, 1 << 20, true, !ctx->user_only);
	pfm_cfg_event(cfg, 1, ev1, 1 << 20, true, !ctx->user_only);
	return 0;
}

/*
 * The configuration that family fam's registers r make, for an open of
 * ctx->family (EINVAL if that is another family).  EPERM only where a rate
 * of 256 needs privilege that ctx does not have: the caller can then ask
 * for the privilege and translate again.
 */
int pfm_alpha_cfg(const struct pfm_alpha_ctx *ctx, enum pfm_family fam,
		  const struct pfm_regs *r, struct pfm_cfg *cfg)
{
	switch (fam) {
	case PFM_FAM_EV4:
		return pfm_cfg_ev4(ctx, r->iccsr, cfg);
	case PFM_FAM_EV5:
		return pfm_cfg_ev5(ctx, r, cfg);
	case PFM_FAM_EV6:
		return pfm_cfg_ev6(ctx, r->ev6_mux, cfg);
	default:
		return -EINVAL;
	}
}

bool pfm_cfg_equal(const struct pfm_cfg *a, const struct pfm_cfg *b)
{
	unsigned int i;

	if (a->family != b->family || a->logselect != b->logselect ||
	    a->sample != b->sample || a->on != b->on || a->na != b->na)
		return false;
	for (i = 0; i < PFM_NCTRS; i++) {
		const struct pfm_desc *x = &a->desc[i], *y = &b->desc[i];

		if (a->period[i] != b->period[i])
			return false;
		if ((a->on & BIT(i)) &&
		    (x->type != y->type || x->config != y->config ||
		     x->exclude_user != y->exclude_user ||
		     x->exclude_kernel != y->exclude_kernel))
			return false;
	}
	return true;
}

/*
 * The IPL histogram entry of an interrupted context: 8 user mode; in the
 * kernel 0 task context, 1 bottom halves disabled, 2 softirq, 3 interrupts
 * off, 4 hard interrupt, 5 another NMI.  *idle: entry 7 counts it too,
 * which on Tru64 was IPL 0 with the idle thread current, so 7 is a subset
 * of 0.  Linux's idle task waits with interrupts off (do_idle() disables
 * them before the idle state), yet it is the idle thread at base level:
 * its task context is entry 0 whatever the interrupt flag says.
 */
unsigned int pfm_ipl_entry(const struct pfm_ipl_ctx *c, bool *idle)
{
	unsigned int e;

	*idle = false;
	if (c->user)
		return PFM_IPL_USER;
	if (c->nmi)
		return 5;
	if (c->hard)
		return 4;
	if (c->irqs_off && !c->idle_task)
		return 3;
	if (c->softirq)
		e = 2;
	else if (c->bh_off)
		e = 1;
	else
		e = 0;
	*idle = !e && c->idle_task;
	return e;
}
