// SPDX-License-Identifier: GPL-2.0
/*
 * <sys/pfcntr.h> against the Tru64 UNIX 5.1 header (issue 23 H1, M4, M5,
 * L1), mechanically: every name, value, size, offset and bit position of
 * the 5.1 header, written below as tables of facts (taken from the 5.1
 * header, jaykrell/tru64 sysroot/usr/sys/include/sys/pfcntr.h, RCS 1.1.47.1),
 * compared with what the header under test gives; and natural Tru64 code
 * (only <sys/pfcntr.h> included, ulong/u_long/uint, ioctl(), %lu of the
 * fields, ulong * to them) compiled with gcc, clang, g++, in strict ISO C
 * and with -m32.  The installed header is a verbatim copy of uapi/sys/pfcntr.h
 * (tools/Makefile), which this test includes.
 *
 * Built three ways: as the harness test (the default); with -DLAYOUT_MAIN
 * as a program that checks the tables and prints each mismatch (the test
 * compiles and runs it with -m32, and with -D_KERNEL for the kernel-only
 * names).
 */
#include <sys/pfcntr.h>		/* first: it must need nothing before it */

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- facts of the 5.1 header --------------------------------------------- */

struct fact {
	const char *name;
	unsigned long long have, want;
};

#define K(n, v)		{ #n, (unsigned long long)(n), v##ULL }

/* Every user-level object-like constant but the ioctls and PCNTOPEN*. */
static const struct fact constants[] = {
	K(PMCTRS_ALL_CPUS, 0xFF),
	K(PFM_COUNTERS, 1), K(PFM_IPL, 2), K(PFM_PROFILING, 4),
	K(PFM_PROFME_MODE_MASK, 0xff00), K(PFM_PROFME_MODE_SHIFT, 8),
	/* EV4 */
	K(PF_ISSUES, 0x0), K(PF_PIPEDRY, 0x2), K(PF_LOADI, 0x4), K(PF_PIPEFROZEN, 0x6),
	K(PF_BRANCHI, 0x8), K(PF_CYCLES, 0xa), K(PF_PALMODE, 0xb), K(PF_NONISSUES, 0xc),
	K(PF_EXTPIN0, 0xe),
	K(PF_DCACHE, 0x0), K(PF_ICACHE, 0x1), K(PF_DUAL, 0x2), K(PF_BRANCHMISS, 0x3),
	K(PF_FPINST, 0x4), K(PF_INTOPS, 0x5), K(PF_STOREI, 0x6), K(PF_EXTPIN1, 0x7),
	K(PF_C0_INT_EVERY_65536, 0), K(PF_C0_INT_EVERY_4096, 1),
	K(PF_C1_INT_EVERY_4096, 0), K(PF_C1_INT_EVERY_256, 1),
	/* EV5 contexts */
	K(PF5_CTXT_SEL_PROC, 1), K(PF5_CTXT_PME_THIS, 2), K(PF5_CTXT_ALL_PROC, 0),
	K(PF5_CTXT_THIS_PROC, 3),
	K(PF5_CTXT_NO_USER, 0x40000000), K(PF5_CTXT_NO_PAL, 0x200), K(PF5_CTXT_NO_KERNEL, 0x100),
	K(PF5_CTXT_USER, 0x300), K(PF5_CTXT_PAL, 0x40000100), K(PF5_CTXT_USER_AND_PAL, 0x100),
	K(PF5_CTXT_KERNEL, 0x40000200), K(PF5_CTXT_USER_AND_KERNEL, 0x200),
	K(PF5_CTXT_PAL_AND_KERNEL, 0x40000000), K(PF5_CTXT_ALL_MODES, 0),
	K(PF5_CTXT_EXEC_AND_SUPER, 0x40000300),
	/* EV5 events */
	K(PF5_MUX0_CYCLES, 0), K(PF5_MUX0_ISSUES, 0x80000000),
	K(PF5_MUX1_NON_ISSUE_CYCLES, 0), K(PF5_MUX1_SPLIT_ISSUE_CYCLES, 0x10),
	K(PF5_MUX1_PIPELINE_DRY, 0x20), K(PF5_MUX1_REPLAY_TRAP, 0x30),
	K(PF5_MUX1_SINGLE_ISSUE_CYCLES, 0x40), K(PF5_MUX1_DUAL_ISSUE_CYCLES, 0x50),
	K(PF5_MUX1_TRIPLE_ISSUE_CYCLES, 0x60), K(PF5_MUX1_QUAD_ISSUE_CYCLES, 0x70),
	K(PF5_MUX1_FLOW_CHANGE, 0x80), K(PF5_MUX1_INTEGER_OPERATE, 0x90),
	K(PF5_MUX1_C_FP_INSTRUCTIONS, 0xA0), K(PF5_MUX1_C_LOAD_INSTRUCTIONS, 0xB0),
	K(PF5_MUX1_C_STORE_INSTRUCTIONS, 0xC0), K(PF5_MUX1_C_ICACHE_ACCESS, 0xD0),
	K(PF5_MUX1_C_DCACHE_ACCESS, 0xE0), K(PF5_MUX1_C_BCACHE_VICTIM, 0x300000000000F0),
	K(PF5_MUX1_C_SCACHE_ACCESS, 0xF0), K(PF5_MUX1_C_SCACHE_READ, 0x80000000000F0),
	K(PF5_MUX1_C_SCACHE_WRITE, 0x100000000000F0),
	K(PF5_MUX1_C_SCACHE_VICTIM, 0x180000000000F0),
	K(PF5_MUX1_C_BCACHE_REF, 0x280000000000F0), K(PF5_MUX1_C_SYS_REQ, 0x380000000000F0),
	K(PF5_MUX1_C_BCACHE_READ, 0xF0), K(PF5_MUX1_C_BCACHE_DREAD_HIT, 0x80000000000F0),
	K(PF5_MUX1_C_BCACHE_DREAD_FILL, 0x100000000000F0),
	K(PF5_MUX1_C_BCACHE_WRITE, 0x180000000000F0),
	K(PF5_MUX1_C_BCACHE_CLN_WRT_HIT, 0x280000000000F0),
	K(PF5_MUX1_C_READ_MISS_2, 0x380000000000F0),
	K(PF5_MUX2_C_LONG_STALLS, 0), K(PF5_MUX2_C_PC_MISPR, 2),
	K(PF5_MUX2_C_BRANCH_MISPREDICTS, 3), K(PF5_MUX2_C_ICACHE_MISSES, 4),
	K(PF5_MUX2_C_ITB_MISS, 5), K(PF5_MUX2_C_DCACHE_MISSES, 6), K(PF5_MUX2_C_DTB_MISS, 7),
	K(PF5_MUX2_C_LOADS_MERGED, 8), K(PF5_MUX2_C_LDU_REPLAYS, 9),
	K(PF5_MUX2_C_WB_MAF_FULL_REPLAYS, 0xA), K(PF5_MUX2_C_EXTERNAL, 0xB),
	K(PF5_MUX2_C_CYCLES, 0xC), K(PF5_MUX2_C_MEM_BARRIER, 0xD),
	K(PF5_MUX2_C_LOAD_LOCKED, 0xE),
	K(PF5_MUX2_C_SCACHE_MISS, 0xF), K(PF5_MUX2_C_SCACHE_READ_MISS, 0x4000000000000F),
	K(PF5_MUX2_C_SCACHE_WRITE_MISS, 0x8000000000000F),
	K(PF5_MUX2_C_SCACHE_SH_WRITE, 0xC000000000000F),
	K(PF5_MUX2_C_SCACHE_WRITE, 0x10000000000000F),
	K(PF5_MUX2_C_BCACHE_MISS, 0x14000000000000F),
	K(PF5_MUX2_C_SYS_INV, 0x18000000000000F),
	K(PF5_MUX2_C_SYS_READ_REQ, 0x1C000000000000F),
	K(PF5_MUX2_C_BCACHE_DREAD, 0xF), K(PF5_MUX2_C_BCACHE_READ_HIT, 0x4000000000000F),
	K(PF5_MUX2_C_BCACHE_READ_FILL, 0x8000000000000F),
	K(PF5_MUX2_C_BCACHE_WRITE_HIT, 0xC000000000000F),
	K(PF5_MUX2_C_BCACHE_WRITE_FILL, 0x10000000000000F),
	K(PF5_MUX2_C_SYS_READ_FLUSH_HIT, 0x14000000000000F),
	K(PF5_MUX2_C_SYS_READ_FLUSH_MISS, 0x18000000000000F),
	K(PF5_MUX2_C_READ_MISS_3, 0x1C000000000000F),
	/* EV5 rates, widths, selects */
	K(PF5_C0_INT_EVERY_256, 0x300), K(PF5_C0_INT_EVERY_65536, 0x200),
	K(PF5_C1_INT_EVERY_256, 0xC0), K(PF5_C1_INT_EVERY_65536, 0x80),
	K(PF5_C2_INT_EVERY_256, 0x30), K(PF5_C2_INT_EVERY_16384, 0x20),
	K(PF5_C0_WIDTH, 16), K(PF5_C1_WIDTH, 16), K(PF5_C2_WIDTH, 14),
	K(PF5_SEL_COUNTER_0, 1), K(PF5_SEL_COUNTER_1, 2), K(PF5_SEL_COUNTER_2, 4),
	/* EV6 */
	K(PF6_MUX0_CYCLES, 0x00), K(PF6_MUX0_RET_INSTRUCTIONS, 0x10),
	K(PF6_MUX1_CYCLES, 0x0), K(PF6_MUX1_RET_COND_BRANCHES, 0x1),
	K(PF6_MUX1_RET_BRANCH_MISPREDICTS, 0x2), K(PF6_MUX1_RET_DTB_SINGLE_MISSES, 0x3),
	K(PF6_MUX1_RET_DTB_DOUBLE_MISSES, 0x4), K(PF6_MUX1_RET_ITB_MISSES, 0x5),
	K(PF6_MUX1_RET_UNALIGNED_TRAPS, 0x6), K(PF6_MUX1_REPLAY_TRAP, 0x7),
	K(PF6_C0_INT_EVERY_1048576, 0x0), K(PF6_C1_INT_EVERY_1048576, 0x1),
	K(PF6_SEL_COUNTER_0, 1), K(PF6_SEL_COUNTER_1, 2),
	K(PF6_C0_WIDTH, 20), K(PF6_C1_WIDTH, 20),
	/* EV67 */
	K(PF67_RET_INST_AND_CYCLES, 0x00), K(PF67_CYCLES_AND_UNDEFINED, 0x04),
	K(PF67_RET_INST_AND_BCACHE_MISS, 0x08), K(PF67_CYCLES_AND_REPLAY_TRAPS, 0x0C),
	K(PF67_PROFILE_ME_MODE, 0x10), K(PF67_CYCLES_AND_RET_DELAY, 0x04),
};

/* The profile-me enum, in the 5.1 order: entry i has the value i. */
static const struct fact pm_enum[] = {
	K(PF67_PM_DISABLED, 0), K(PF67_PM_ABORT, 1), K(PF67_PM_ABORT_PER_RET, 2),
	K(PF67_PM_ARITH_TRAP, 3), K(PF67_PM_CBR_TAKEN, 4), K(PF67_PM_CBR_TAKEN_PER_RET, 5),
	K(PF67_PM_CYCLES, 6), K(PF67_PM_CYCLES_PER_RET, 7), K(PF67_PM_DELAY, 8),
	K(PF67_PM_DELAY_PER_RET, 9), K(PF67_PM_DSTREAM_FAULT, 10), K(PF67_PM_DTB_MISS, 11),
	K(PF67_PM_DTB_MISS_PER_RET, 12), K(PF67_PM_DTB_MISS3, 13), K(PF67_PM_DTB_MISS4, 14),
	K(PF67_PM_EARLY_KILL, 15), K(PF67_PM_EARLY_KILL_PER_RET, 16),
	K(PF67_PM_FP_DISABLED, 17), K(PF67_PM_FREQ, 18), K(PF67_PM_ICACHE_MISS, 19),
	K(PF67_PM_ICACHE_MISS_PER_RET, 20), K(PF67_PM_ICACHE_PARITY, 21),
	K(PF67_PM_INFLT_BCACHE_MISS, 22), K(PF67_PM_INFLT_REPLAYS, 23),
	K(PF67_PM_INFLT_RETIRES, 24), K(PF67_PM_INTERRUPT, 25),
	K(PF67_PM_ISTREAM_ACCVIO, 26), K(PF67_PM_ITB_MISS, 27),
	K(PF67_PM_LDST_ALIGN_TRAP, 28), K(PF67_PM_LDST_ORDER_TRAP, 29),
	K(PF67_PM_MAP_STALL, 30), K(PF67_PM_MAP_STALL_PER_RET, 31),
	K(PF67_PM_MCHK_TRAP, 32), K(PF67_PM_MISPREDICT, 33),
	K(PF67_PM_MISPREDICT_PER_RET, 34), K(PF67_PM_MT_FPCR_TRAP, 35),
	K(PF67_PM_OPCDEC_TRAP, 36), K(PF67_PM_REPLAY_TRAP, 37),
	K(PF67_PM_REPLAY_TRAP_PER_RET, 38), K(PF67_PM_RESET, 39), K(PF67_PM_RETIRE, 40),
	K(PF67_PM_TRAP, 41), K(PF67_PM_TRAP_PER_RET, 42), K(PF67_PM_VALID, 43),
};

/*
 * pmcompat's open modes: not Tru64's 0100000/0200000/0300000/0300000
 * (O_LARGEFILE and O_DIRECTORY on Linux); README and pfm(7) say so.
 */
static const struct fact open_modes[] = {
	K(PCNTOPENONE, 0400), K(PCNTOPENEACH, 0200), K(PCNTOPENALL, 0600),
	K(PCNTOPENMASK, 0600),
};

#ifdef _KERNEL
/* Only with KERNEL / _KERNEL on Tru64. */
static const struct fact kernel_constants[] = {
	K(PFM_CLOSED, 0), K(PFM_KSAMPLES, 8), K(PFM_USAMPLES, 16), K(PFM_CALLER, 32),
	K(PFM_MASK, 7),
	K(PFDISABLE, 0), K(PFENABLE, 1), K(PFSET, 2), K(PFOPT, 3),
	K(PF5DISABLE, 0), K(PF5ENABLE, 1), K(PF5MUXSEL, 2), K(PF5OPT, 3), K(PF5FREQSEL, 4),
	K(PF5READ, 5), K(PF5WRITE, 6), K(PF5ENABRESET, 7),
	K(PF6DISABLE, 0), K(PF6ENABLE, 1), K(PF6MUXSEL, 2), K(PF6OPT, 3), K(PF6READ, 5),
	K(PF6WRITE, 6), K(PF6ENABWRITE, 7), K(PF6READISTAT, 8), K(PF6READPMPC, 9),
	K(PFRPCC, 0x17), K(PF5SETCTRS, 0x18), K(PF6SETCTRS, 0x28),
	K(PF5_ABLE_KMASK, 0x7), K(PF5_MUX_KMASK, 0x01F80000000000FF),
	K(PF5_MUX_CBOX_KMASK, 0x01F8000000000000), K(PF5_MUX_CBOX_KSHIFT, 32),
	K(PFPCA56_MUX_CBOX_KSHIFT, 43), K(PF5_CTXT_KMASK, 0x40000301),
	K(PF5_FREQ_KMASK, 0x3F0), K(PF5_FREQ_KFORCE, 0x2A0), K(PF5_FREQ_FAST_MASK, 0x150),
	K(PF5_WRITE_KMASK, 0xFFFFFFFF3FFF0000), K(PF5_CPU_KMASK, 0xFF00),
	K(PF6_CPU_KMASK, 0xFF00000000000000), K(PF6_MUX_KMASK, 0x1F),
	K(PF6_WRITE_KMASK, 0xFF00FFFFF3FFFFC3),
};
#endif

/* Kernel-only names seen without KERNEL/_KERNEL (should be none). */
static const char *const kernel_leaks[] = {
#if defined(PFM_CLOSED) || defined(PFM_KSAMPLES) || defined(PFM_MASK)
	"PFM_CLOSED..PFM_MASK",
#endif
#if defined(PFDISABLE) || defined(PF5MUXSEL) || defined(PF6READPMPC) || defined(PFRPCC)
	"wrperfmon codes",
#endif
#if defined(PF5_MUX_KMASK) || defined(PF5_FREQ_KFORCE) || defined(PF6_WRITE_KMASK)
	"request masks",
#endif
	NULL
};

/*
 * The ioctls: group 'P', number and direction as on Tru64 (BSD IOC_IN is
 * Linux's _IOC_WRITE); the size of the argument type, where long and
 * pointers are the program's own (8 bytes on LP64 as on Alpha).
 */
#define SZ_LONG		(-1)
#define SZ_PTR		(-2)
#define IO(n, nr, d, sz)	{ #n, n, nr, d, sz }
#define N	_IOC_NONE
#define W	_IOC_WRITE
#define R	_IOC_READ
static const struct {
	const char *name;
	unsigned long have;
	unsigned int nr, dir;
	int size;
} ioctls[] = {
	IO(PCNTRDISABLE, 0, N, 0), IO(PCNTRENABLE, 1, N, 0), IO(PCNTLOGALL, 3, N, 0),
	IO(PCNTLOGSELECT, 4, N, 0), IO(PCNTCLEARCNT, 5, N, 0), IO(PCNTCLEARPCBPME, 7, N, 0),
	IO(PCNTCALLER, 8, N, 0), IO(PCNTGETRSIZE, 10, R, SZ_LONG),
	IO(PCNTGETIPLHIS, 11, W, SZ_PTR), IO(PCNTSETITEMS, 31, W, SZ_LONG),
	IO(PCNTSETUADDR, 32, W, 16), IO(PCNTSETKADDR, 33, W, 16),
	IO(PCNTSETURANGE, 34, W, 32), IO(PCNTSETKRANGE, 35, W, 32),
	IO(PCNTSETMUX, 2, W, 8), IO(PCNTGETCNT, 6, W, SZ_PTR),
	IO(PCNT5CTXTS, 40, W, SZ_LONG), IO(PCNT5MUX, 41, W, SZ_LONG),
	IO(PCNT5FREQ, 42, W, SZ_LONG), IO(PCNT5DISABLE, 43, W, SZ_LONG),
	IO(PCNT5ENABLE, 44, W, SZ_LONG), IO(PCNT5CLEAR, 45, W, SZ_LONG),
	IO(PCNT5RESTART, 46, W, SZ_LONG), IO(PCNT5SETCNTRS, 47, W, SZ_LONG),
	IO(PCNT5GETCNTRS, 48, R | W, SZ_LONG), IO(PCNT5GETCNT, 49, W, SZ_PTR),
	IO(PCNT5READCNTRS, 50, W, SZ_PTR),
	IO(PCNT6MUX, 51, W, SZ_LONG), IO(PCNT6ENABWRITE, 52, W, SZ_LONG),
	IO(PCNT6DISABLE, 53, W, SZ_LONG), IO(PCNT6ENABLE, 54, W, SZ_LONG),
	IO(PCNT6CLEAR, 55, W, SZ_LONG), IO(PCNT6RESTART, 56, W, SZ_LONG),
	IO(PCNT6SETCNTRS, 57, W, SZ_LONG), IO(PCNT6GETCNTRS, 58, R | W, SZ_LONG),
	IO(PCNT6GETCNT, 59, W, SZ_PTR), IO(PCNT6READCNTRS, 60, W, SZ_PTR),
};
#undef N
#undef W
#undef R

/* Sizes and offsets: 8-byte fields in every program (LP64 as on Alpha). */
#define SIZE(t, v)		{ #t, sizeof(t), v }
#define OFF(t, m, v)		{ #t "." #m, offsetof(t, m), v }
static const struct {
	const char *name;
	size_t have, want;
} sizes[] = {
	SIZE(struct iccsr, 8), SIZE(struct pfcntrs, 24), SIZE(struct pfcntrs_ev5, 32),
	SIZE(struct pfcntrs_ev6, 24), SIZE(struct pfipls, 72), SIZE(struct addr_range, 16),
	SIZE(addr_range_t, 32), SIZE(union pmctrs_ev5, 8), SIZE(union pmctrs_ev6, 8),
	SIZE(ev67_istat_reg_t, 8), SIZE(union ev67_istat_reg, 8),
	SIZE(ev67_pctr_ctl_reg_t, 8), SIZE(union ev67_pctr_ctl_reg, 8),
	OFF(struct pfcntrs, pf_cntr0, 0), OFF(struct pfcntrs, pf_cntr1, 8),
	OFF(struct pfcntrs, pr_cycle, 16),
	OFF(struct pfcntrs_ev5, pr_cycle, 0), OFF(struct pfcntrs_ev5, pf_cntr0, 8),
	OFF(struct pfcntrs_ev5, pf_cntr1, 16), OFF(struct pfcntrs_ev5, pf_cntr2, 24),
	OFF(struct pfcntrs_ev6, pr_cycle, 0), OFF(struct pfcntrs_ev6, pf_cntr0, 8),
	OFF(struct pfcntrs_ev6, pf_cntr1, 16), OFF(struct pfipls, ipl, 0),
	OFF(struct addr_range, start, 0), OFF(struct addr_range, end, 8),
	OFF(addr_range_t, start, 0), OFF(addr_range_t, end, 8),
	OFF(addr_range_t, stride, 16), OFF(addr_range_t, res0, 24),
	OFF(union pmctrs_ev5, pmctrs_ev5_long, 0), OFF(union pmctrs_ev6, pmctrs_ev6_long, 0),
	OFF(ev67_istat_reg_t, qval, 0), OFF(ev67_pctr_ctl_reg_t, qval, 0),
};

/* A bit-field's bits in the 8-byte image: the field set to all ones. */
#define BITS(t, f, lo, hi)						\
	{ #t "." #f, ({ t x_; unsigned long long v_;			\
			memset(&x_, 0, sizeof(x_)); x_.f = 0; x_.f--;	\
			memcpy(&v_, &x_, sizeof(v_)); v_; }),		\
	  (~0ULL >> (63 - (hi))) & (~0ULL << (lo)) }

static int check_bits(void (*bad)(const char *, unsigned long long, unsigned long long))
{
	const struct fact b[] = {
		BITS(struct iccsr, iccsr_pc1, 0, 0), BITS(struct iccsr, iccsr_ign0, 1, 2),
		BITS(struct iccsr, iccsr_pc0, 3, 3), BITS(struct iccsr, iccsr_ign1, 4, 7),
		BITS(struct iccsr, iccsr_mux0, 8, 11), BITS(struct iccsr, iccsr_ign2, 12, 31),
		BITS(struct iccsr, iccsr_mux1, 32, 34),
		BITS(struct iccsr, iccsr_disable, 35, 36),
		BITS(struct iccsr, iccsr_ign3, 37, 63),
		BITS(union pmctrs_ev5, pmctrs_ev5_struct.pmctrs_ev5_s_sel, 0, 2),
		BITS(union pmctrs_ev5, pmctrs_ev5_struct.pmctrs_ev5_s_cpu, 8, 15),
		BITS(union pmctrs_ev5, pmctrs_ev5_struct.pmctrs_ev5_s_c2, 16, 29),
		BITS(union pmctrs_ev5, pmctrs_ev5_struct.pmctrs_ev5_s_c1, 32, 47),
		BITS(union pmctrs_ev5, pmctrs_ev5_struct.pmctrs_ev5_s_c0, 48, 63),
		BITS(union pmctrs_ev5, pmctrs_ev5_select, 0, 2),
		BITS(union pmctrs_ev5, pmctrs_ev5_cpu, 8, 15),
		BITS(union pmctrs_ev5, pmctrs_ev5_cntr2, 16, 29),
		BITS(union pmctrs_ev5, pmctrs_ev5_cntr1, 32, 47),
		BITS(union pmctrs_ev5, pmctrs_ev5_cntr0, 48, 63),
		BITS(union pmctrs_ev5, pmctrs_ev5_long, 0, 63),
		BITS(union pmctrs_ev6, pmctrs_ev6_struct.pmctrs_ev6_s_sel, 0, 1),
		BITS(union pmctrs_ev6, pmctrs_ev6_struct.pmctrs_ev6_s_c1, 6, 25),
		BITS(union pmctrs_ev6, pmctrs_ev6_struct.pmctrs_ev6_s_c0, 28, 47),
		BITS(union pmctrs_ev6, pmctrs_ev6_struct.pmctrs_ev6_s_cpu, 56, 63),
		BITS(union pmctrs_ev6, pmctrs_ev6_select, 0, 1),
		BITS(union pmctrs_ev6, pmctrs_ev6_cntr1, 6, 25),
		BITS(union pmctrs_ev6, pmctrs_ev6_cntr0, 28, 47),
		BITS(union pmctrs_ev6, pmctrs_ev6_cpu, 56, 63),
		BITS(union pmctrs_ev6, pmctrs_ev6_long, 0, 63),
		BITS(union ev67_istat_reg, fields.res_0, 0, 28),
		BITS(union ev67_istat_reg, fields.par, 29, 29),
		BITS(union ev67_istat_reg, fields.ovr, 30, 32),
		BITS(union ev67_istat_reg, fields.icm, 33, 33),
		BITS(union ev67_istat_reg, fields.ttype, 34, 37),
		BITS(union ev67_istat_reg, fields.lso, 38, 38),
		BITS(union ev67_istat_reg, fields.trp, 39, 39),
		BITS(union ev67_istat_reg, fields.mis, 40, 40),
		BITS(union ev67_istat_reg, fields.res_1, 41, 63),
		BITS(ev67_istat_reg_t, qval, 0, 63),
		BITS(union ev67_pctr_ctl_reg, fields.tak, 0, 0),
		BITS(union ev67_pctr_ctl_reg, fields.val, 1, 1),
		BITS(union ev67_pctr_ctl_reg, fields.sl1, 2, 3),
		BITS(union ev67_pctr_ctl_reg, fields.sl0, 4, 4),
		BITS(union ev67_pctr_ctl_reg, fields.res_0, 5, 5),
		BITS(union ev67_pctr_ctl_reg, fields.pctr1, 6, 25),
		BITS(union ev67_pctr_ctl_reg, fields.kb4map, 26, 26),
		BITS(union ev67_pctr_ctl_reg, fields.mstall, 27, 27),
		BITS(union ev67_pctr_ctl_reg, fields.pctr0, 28, 47),
		BITS(union ev67_pctr_ctl_reg, fields.sext, 48, 63),
		BITS(ev67_pctr_ctl_reg_t, qval, 0, 63),
	};
	unsigned int i;
	int n = 0;

	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		if (b[i].have != b[i].want) {
			bad(b[i].name, b[i].have, b[i].want);
			n++;
		}
	}
	return n;
}

static int check_facts(const struct fact *f, size_t nf,
		       void (*bad)(const char *, unsigned long long, unsigned long long))
{
	size_t i;
	int n = 0;

	for (i = 0; i < nf; i++) {
		if (f[i].have != f[i].want) {
			bad(f[i].name, f[i].have, f[i].want);
			n++;
		}
	}
	return n;
}

static int check_ioctls(void (*bad)(const char *, unsigned long long, unsigned long long))
{
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++) {
		unsigned long v = ioctls[i].have;
		int size = ioctls[i].size == SZ_LONG ? (int)sizeof(long) :
			   ioctls[i].size == SZ_PTR ? (int)sizeof(void *) : ioctls[i].size;
		unsigned long want = _IOC(ioctls[i].dir, 'P', ioctls[i].nr, size);

		if (v != want) {
			bad(ioctls[i].name, v, want);
			n++;
		}
	}
	return n;
}

static int check_sizes(void (*bad)(const char *, unsigned long long, unsigned long long))
{
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (sizes[i].have != sizes[i].want) {
			bad(sizes[i].name, sizes[i].have, sizes[i].want);
			n++;
		}
	}
	return n;
}

#define NF(a)	(sizeof(a) / sizeof((a)[0]))

#ifdef LAYOUT_MAIN
/* Standalone (-m32, -D_KERNEL): each mismatch printed, their count returned. */
static void print_bad(const char *name, unsigned long long have, unsigned long long want)
{
	printf("%s: %#llx, the 5.1 header: %#llx\n", name, have, want);
}

int main(void)
{
	int n = check_facts(constants, NF(constants), print_bad) +
		check_facts(pm_enum, NF(pm_enum), print_bad) +
		check_facts(open_modes, NF(open_modes), print_bad) +
		check_ioctls(print_bad) + check_sizes(print_bad) + check_bits(print_bad);
#ifdef _KERNEL
	n += check_facts(kernel_constants, NF(kernel_constants), print_bad);
#else
	if (kernel_leaks[0]) {
		printf("kernel-only names without _KERNEL: %s\n", kernel_leaks[0]);
		n++;
	}
#endif
	return n > 100 ? 100 : n;
}
#else
#include <stdarg.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

static struct __test_metadata *cur;

static void log_bad(const char *name, unsigned long long have, unsigned long long want)
{
	struct __test_metadata *_metadata = cur;

	TH_LOG("%s: %#llx, the 5.1 header: %#llx", name, have, want);
}

TEST(constants_are_tru64s)
{
	cur = _metadata;
	EXPECT_EQ(0, check_facts(constants, NF(constants), log_bad));
	EXPECT_EQ(136U, NF(constants));
}

TEST(pf67_pm_enum_is_tru64s)
{
	cur = _metadata;
	EXPECT_EQ(0, check_facts(pm_enum, NF(pm_enum), log_bad));
	EXPECT_EQ(44U, NF(pm_enum));
}

TEST(open_modes_renumbered_as_documented)
{
	cur = _metadata;
	EXPECT_EQ(0, check_facts(open_modes, NF(open_modes), log_bad));
}

TEST(ioctls_are_tru64s)
{
	cur = _metadata;
	EXPECT_EQ(0, check_ioctls(log_bad));
	EXPECT_EQ(37U, NF(ioctls));
}

TEST(sizes_and_offsets)
{
	cur = _metadata;
	EXPECT_EQ(0, check_sizes(log_bad));
}

TEST(bit_positions)
{
	cur = _metadata;
	EXPECT_EQ(0, check_bits(log_bad));
}

TEST(guard_and_types)
{
	struct pfcntrs_ev5 c;
	union pmctrs_ev6 u;

#ifndef _PFCNTR_H_
	EXPECT_TRUE(0) TH_LOG("no _PFCNTR_H_ guard");
#endif
	/* Tru64's ulong fields: unsigned long in LP64 programs. */
	EXPECT_TRUE(__builtin_types_compatible_p(__typeof__(c.pf_cntr0), unsigned long));
	EXPECT_TRUE(__builtin_types_compatible_p(__typeof__(u.pmctrs_ev6_long), ulong));
	EXPECT_TRUE(__builtin_types_compatible_p(__typeof__(((struct pfipls *)0)->ipl[0]),
						 u_long));
	EXPECT_TRUE(__builtin_types_compatible_p(__typeof__(((addr_range_t *)0)->stride),
						 unsigned long));
}

TEST(kernel_only_names_hidden)
{
	EXPECT_EQ(NULL, kernel_leaks[0]) TH_LOG("%s", kernel_leaks[0] ? kernel_leaks[0] : "");
}

/* ---- compiling programs ---------------------------------------------------- */

static char dir[64];

/* A natural Tru64 program: only <sys/pfcntr.h> for the counters' names. */
static const char tru64_prog[] =
"#include <sys/pfcntr.h>\n"
"#include <fcntl.h>\n"
"#include <stdio.h>\n"
"\n"
"/* Tru64 assumed LP64; 32-bit programs see 64-bit fields (pfm(7)). */\n"
"#if defined(__LP64__)\n"
"#define W ulong\n"
"#define F \"%lu\"\n"
"#else\n"
"#define W unsigned long long\n"
"#define F \"%llu\"\n"
"#endif\n"
"\n"
"static void show(const char *what, W *v, int n)\n"
"{\n"
"\tint i;\n"
"\n"
"\tfor (i = 0; i < n; i++)\n"
"\t\tprintf(\"%s[%d] = \" F \"\\n\", what, i, v[i]);\n"
"}\n"
"\n"
"int main(void)\n"
"{\n"
"\tstruct pfcntrs_ev6 c[1], *p = c;\n"
"\tstruct pfcntrs_ev5 c5[1], *p5 = c5;\n"
"\tstruct pfipls ipl[1], *ip = ipl;\n"
"\tstruct iccsr mux4;\n"
"\tstruct addr_range ar;\n"
"\taddr_range_t rt;\n"
"\tunion pmctrs_ev5 u5;\n"
"\tunion pmctrs_ev6 u6;\n"
"\tev67_istat_reg_t is;\n"
"\tunion ev67_pctr_ctl_reg pc;\n"
"\tulong items = PFM_COUNTERS | PFM_IPL;\n"
"\tu_long mux = PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES;\n"
"\tlong size;\n"
"\tuint bucket = 0;\n"
"\tint fd = open(\"/dev/pfcntr\", O_RDONLY | PCNTOPENALL);\n"
"\n"
"\tioctl(fd, PCNTSETITEMS, &items);\n"
"\tioctl(fd, PCNTLOGSELECT);\n"
"\tioctl(fd, PCNT6MUX, &mux);\n"
"\tioctl(fd, PCNT6READCNTRS, &p);\n"
"\tioctl(fd, PCNT5GETCNT, &p5);\n"
"\tioctl(fd, PCNTGETIPLHIS, &ip);\n"
"\tioctl(fd, PCNTGETRSIZE, &size);\n"
"\tprintf(F \" \" F \" \" F \"\\n\", c[0].pr_cycle, c[0].pf_cntr0, c[0].pf_cntr1);\n"
"\tshow(\"ipl\", ipl[0].ipl, 9);\n"
"\tshow(\"cycle\", &c[0].pr_cycle, 1);\n"
"\tshow(\"ev5\", &c5[0].pf_cntr2, 1);\n"
"\tmux4.iccsr_mux0 = PF_CYCLES;\n"
"\tmux4.iccsr_mux1 = PF_BRANCHMISS;\n"
"\tmux4.iccsr_pc0 = PF_C0_INT_EVERY_65536;\n"
"\tioctl(fd, PCNTSETMUX, &mux4);\n"
"\tar.start = 0x120000000;\n"
"\tar.end = ar.start + 4096;\n"
"\tioctl(fd, PCNTSETUADDR, &ar);\n"
"\trt.start = ar.start;\n"
"\trt.end = ar.end;\n"
"\trt.stride = 4;\n"
"\trt.res0 = 0;\n"
"\tioctl(fd, PCNTSETURANGE, &rt);\n"
"\tu5.pmctrs_ev5_long = 0;\n"
"\tu5.pmctrs_ev5_struct.pmctrs_ev5_s_sel = PF5_SEL_COUNTER_0;\n"
"\tu5.pmctrs_ev5_cpu = PMCTRS_ALL_CPUS;\n"
"\tioctl(fd, PCNT5RESTART, &u5.pmctrs_ev5_long);\n"
"\tshow(\"ev5 image\", &u5.pmctrs_ev5_long, 1);\n"
"\tu6.pmctrs_ev6_long = 0;\n"
"\tu6.pmctrs_ev6_struct.pmctrs_ev6_s_cpu = 1;\n"
"\tioctl(fd, PCNT6GETCNTRS, &u6.pmctrs_ev6_long);\n"
"\tprintf(F \"\\n\", (W)u6.pmctrs_ev6_cntr0);\n"
"\tis.qval = 0;\n"
"\tis.fields.par = 1;\n"
"\tpc.qval = 0;\n"
"\tpc.fields.pctr0 = 1;\n"
"\tprintf(F \" \" F \" %u %d\\n\", is.qval, pc.qval, bucket, (int)PF67_PM_VALID);\n"
"\treturn 0;\n"
"}\n";

static const char *const c_flags =
	"-Wall -Werror=implicit-function-declaration -Werror=incompatible-pointer-types "
	"-Wformat -Werror=format";

static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

FIXTURE(cc) {
	char src[128];
};

FIXTURE_SETUP(cc)
{
	FILE *f;

	strcpy(dir, "/tmp/pfcntr-header-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(self->src, sizeof(self->src), "%s/tru64.c", dir);
	f = fopen(self->src, "w");
	ASSERT_NE(NULL, f);
	fputs(tru64_prog, f);
	fclose(f);
}

FIXTURE_TEARDOWN(cc)
{
	sh("rm -rf %s", dir);
}

static int have(const char *tool)
{
	return sh("command -v %s >/dev/null 2>&1", tool) == 0;
}

/* gcc, default mode (gnu17): the flags of GCC 14's defaults, -Wformat. */
TEST_F(cc, tru64_program_gcc)
{
	EXPECT_EQ(0, sh("gcc %s -I%s -o %s/a.gcc %s", c_flags, PFCNTR_UAPI, dir, self->src));
}

/* Strict ISO C: glibc has no ulong/u_long/uint there; the header gives them. */
TEST_F(cc, tru64_program_gcc_strict_c99_and_c89)
{
	EXPECT_EQ(0, sh("gcc -std=c99 -pedantic-errors %s -I%s -o %s/a.c99 %s", c_flags,
			PFCNTR_UAPI, dir, self->src));
	EXPECT_EQ(0, sh("gcc -std=c89 -pedantic-errors -Wno-long-long %s -I%s "
			"-fsyntax-only -x c - <%s", c_flags, PFCNTR_UAPI, self->src));
}

TEST_F(cc, tru64_program_clang)
{
	if (!have("clang"))
		SKIP(return, "clang is not installed");
	EXPECT_EQ(0, sh("clang %s -I%s -o %s/a.clang %s", c_flags, PFCNTR_UAPI, dir,
			self->src));
}

/* C++: ulong * to a field is an error there unless the field is ulong. */
TEST_F(cc, tru64_program_gxx)
{
	if (!have("g++"))
		SKIP(return, "g++ is not installed");
	EXPECT_EQ(0, sh("g++ -Wall -Wformat -Werror=format -Werror -I%s -o %s/a.gxx -x c++ %s",
			PFCNTR_UAPI, dir, self->src));
}

/*
 * -m32: the fields stay 64 bits wide (the layouts and the module's compat
 * path unchanged), so a 32-bit port prints them with %llu; all else as is.
 * The 32-bit compiler is Debian's i686 cross compiler where installed (it
 * installs beside the aarch64 one; gcc-multilib conflicts with both), else
 * a multilib gcc -m32.  The layout program runs where the host kernel runs
 * 32-bit programs (not every host has IA32 emulation); it is compiled
 * everywhere.
 */
TEST_F(cc, tru64_program_m32)
{
	const char *cc32 = have("i686-linux-gnu-gcc") ? "i686-linux-gnu-gcc" : "gcc -m32";
	bool run32;

	if (sh("echo 'int main(void){return 0;}' | %s -x c -o %s/m32probe - "
	       ">/dev/null 2>&1", cc32, dir))
		SKIP(return, "no 32-bit compiler and libc (gcc-i686-linux-gnu or gcc-multilib)");
	run32 = sh("%s/m32probe >/dev/null 2>&1", dir) == 0;
	EXPECT_EQ(0, sh("%s %s -I%s -o %s/a.m32 %s", cc32, c_flags,
			PFCNTR_UAPI, dir, self->src));
	/* and the facts: the same sizes, offsets and bit positions */
	EXPECT_EQ(0, sh("%s -DLAYOUT_MAIN -D_GNU_SOURCE -I%s -o %s/layout32 %s", cc32,
			PFCNTR_UAPI, dir, PFCNTR_HEADER_TEST_SRC));
	if (run32) {
		EXPECT_EQ(0, sh("%s/layout32", dir));
	} else {
		TH_LOG("this host runs no 32-bit programs: the layout program was built, not run");
	}
}

/* With _KERNEL (and KERNEL), as a Tru64 kernel file: the kernel-only names. */
TEST_F(cc, kernel_names_with__KERNEL)
{
	EXPECT_EQ(0, sh("gcc -DLAYOUT_MAIN -D_KERNEL -DKERNEL -I%s -o %s/layoutk %s && "
			"%s/layoutk", PFCNTR_UAPI, dir, PFCNTR_HEADER_TEST_SRC, dir));
	/* strict C, no glibc BSD types: the facts still hold */
	EXPECT_EQ(0, sh("gcc -std=c11 -DLAYOUT_MAIN -I%s -o %s/layoutc11 %s && %s/layoutc11",
			PFCNTR_UAPI, dir, PFCNTR_HEADER_TEST_SRC, dir));
}

TEST_HARNESS_MAIN
#endif
