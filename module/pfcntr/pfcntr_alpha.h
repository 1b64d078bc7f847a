/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/pfcntr: the Alpha registers of pfm(7) (EV4 ICCSR, EV5 PCNT5MUX,
 * PCNT5FREQ and PCNT5CTXTS, EV6 and EV67 PCNT6MUX) translated into what
 * each counter counts: a perf generic or cache event, user and kernel
 * mode, and the sampling period.  Pure: built into the module
 * (pfcntr_alpha.c) and into the host unit test
 * tests/unit/pfcntr_alpha_test.c.
 */
#ifndef PFCNTR_ALPHA_H
#define PFCNTR_ALPHA_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
#endif
#include <sys/pfcntr.h>

#define PFM_NCTRS	3

/* iccsr_disable: the counters that do not collect (bit 0 counter 0). */
#define ICCSR_DISABLE(v)	(((v) >> 35) & 0x3)

/* PCNT5FREQ before any: the low rates (Tru64's PF5_FREQ_KFORCE). */
#define EV5_FREQ_DEFAULT	(PF5_C0_INT_EVERY_65536 | PF5_C1_INT_EVERY_65536 | \
				 PF5_C2_INT_EVERY_16384)

enum pfm_family { PFM_FAM_NONE, PFM_FAM_EV4, PFM_FAM_EV5, PFM_FAM_EV6 };

/* What a counter counts: one of perf's generic or cache events. */
struct pfm_desc {
	u32 type;		/* PERF_TYPE_HARDWARE or PERF_TYPE_HW_CACHE */
	u64 config;
	bool exclude_user;
	bool exclude_kernel;
};

/* What the counters count: derived from the family's registers. */
struct pfm_cfg {
	enum pfm_family family;
	unsigned int nctrs;
	bool logselect;
	bool sample;				/* interrupts wanted (PFM_IPL) */
	unsigned long on;			/* counters that count something */
	unsigned long na;			/* EV5: left at an unavailable 0 */
	u64 period[PFM_NCTRS];
	struct pfm_desc desc[PFM_NCTRS];	/* of the counters on */
};

/* The family's registers as the caller wrote them. */
struct pfm_regs {
	u64 iccsr;
	u64 ev5_mux, ev5_freq, ev5_ctxts;
	bool ev5_mux_set;		/* nothing counts before a PCNT5MUX */
	u64 ev6_mux;
};

/* What the translation needs of the open and of the caller. */
struct pfm_alpha_ctx {
	enum pfm_family family;		/* the open's: PFM_FAM_NONE before any */
	bool logselect;			/* copied into the configuration */
	bool sample;			/* copied into the configuration */
	bool ev67;			/* PCNT6MUX takes EV67 values */
	bool privileged;		/* may count at the rate of 256 */
	bool user_only;			/* EV4, EV6: no kernel mode (pfm(7)) */
};

/* union pmctrs_ev5 / pmctrs_ev6 images */
struct pfm_image {
	unsigned int sel_bits;
	unsigned int cpu_shift;
	unsigned int shift[PFM_NCTRS];
	unsigned int width[PFM_NCTRS];
};

extern const struct pfm_image pfm_image_ev5, pfm_image_ev6;

/* What an interrupt found running (pfm_ipl_entry()). */
struct pfm_ipl_ctx {
	bool user;			/* user mode */
	unsigned int nmi, hard;		/* NMI and hard interrupt nesting */
	bool irqs_off;			/* interrupts were disabled */
	bool softirq;			/* serving a softirq */
	bool bh_off;			/* bottom halves disabled */
	bool idle_task;			/* the CPU's idle task was current */
};

#define PFM_IPL_IDLE		7
#define PFM_IPL_USER		8

unsigned int pfm_ipl_entry(const struct pfm_ipl_ctx *c, bool *idle);

void pfm_cfg_init(struct pfm_cfg *cfg);
bool pfm_cfg_equal(const struct pfm_cfg *a, const struct pfm_cfg *b);
int pfm_alpha_cfg(const struct pfm_alpha_ctx *ctx, enum pfm_family fam,
		  const struct pfm_regs *r, struct pfm_cfg *cfg);

#endif /* PFCNTR_ALPHA_H */
