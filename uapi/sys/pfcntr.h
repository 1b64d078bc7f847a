/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * <sys/pfcntr.h> - Tru64 UNIX pfm(7) on Linux (pmcompat /dev/pfcntr).
 *
 * Source-compatible with the Tru64 UNIX 5.1 header (2001: EV4, EV5, EV6 and
 * EV67): the same names, guard, types, structure and union layouts, inner
 * member names and constants, so that a Tru64 program compiles unchanged.
 * Like Tru64's, it brings in <sys/types.h> and <sys/ioctl.h>: ulong, u_long,
 * uint and ioctl() need nothing else.  The differences:
 *  - the open modes PCNTOPEN* have other values (see there);
 *  - the ioctl numbers are Linux-encoded (programs need only be recompiled);
 *  - in 32-bit programs (Tru64 had none) the fields declared ulong stay 64
 *    bits wide (unsigned long long), so that every layout is the same as in
 *    64-bit programs.  Requests whose argument type is long or a pointer
 *    encode a size of 4 there and so have numbers of their own.
 *
 * The bit-field layouts below are those of a little-endian machine (Alpha,
 * like x86 and little-endian arm64, allocates bit-fields from the least
 * significant bit).  The PFCNTR_* macros at the end decode and build the same
 * images with shifts; the module uses only those.
 */
#ifndef _PFCNTR_H_
#define _PFCNTR_H_

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/ioctl.h>
#else
#include <sys/types.h>
#include <sys/ioctl.h>
#include <linux/types.h>

/*
 * glibc declares ulong, u_long and uint only in its default (BSD and SVID)
 * mode; Tru64 programs use them whatever the mode, as the header's own
 * fields did, so strict ISO C modes get them here.
 */
#if defined(__GLIBC__) && !defined(__USE_MISC)
typedef unsigned long ulong;
typedef unsigned long u_long;
typedef unsigned int uint;
#endif
#endif

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "<sys/pfcntr.h>: the bit-field layouts need a little-endian target"
#endif

/*
 * Tru64's ulong: unsigned long in 64-bit programs (LP64, as on Alpha), a
 * 64-bit integer in 32-bit ones (the same layouts; not Tru64's type there).
 */
#if defined(__LP64__) || defined(_LP64)
typedef unsigned long __pfcntr_ulong_t;
#else
typedef __u64 __pfcntr_ulong_t;
#endif

/* ---- Structures ------------------------------------------------------- */

/*
 * EV4 ICCSR image (PCNTSETMUX), 8 bytes; bit numbers from the LSB.
 * iccsr_disable: 1 turns counter 0 off, 2 counter 1; 3 is refused (EINVAL).
 */
struct iccsr {
	__extension__ __pfcntr_ulong_t
		iccsr_pc1:1,	/* bit 0: counter 1 rate, PF_C1_INT_EVERY_* */
		iccsr_ign0:2,	/* bits 1-2: must be zero */
		iccsr_pc0:1,	/* bit 3: counter 0 rate, PF_C0_INT_EVERY_* */
		iccsr_ign1:4,	/* bits 4-7: must be zero */
		iccsr_mux0:4,	/* bits 8-11: counter 0 event, PF_ISSUES.. */
		iccsr_ign2:20,	/* bits 12-31: must be zero */
		iccsr_mux1:3,	/* bits 32-34: counter 1 event, PF_DCACHE.. */
		iccsr_disable:2, /* bits 35-36: counters off */
		iccsr_ign3:27;	/* bits 37-63: must be zero */
};

/*
 * EV4 counts (PCNTGETCNT): the driver's interrupt counts ("ticks") of each
 * counter, and the cycles since the last PCNTCLEARCNT.  pr_cycle is last
 * here, first in the EV5 and EV6 structures.
 */
struct pfcntrs {
	__pfcntr_ulong_t pf_cntr0;
	__pfcntr_ulong_t pf_cntr1;
	__pfcntr_ulong_t pr_cycle;
};

/* EV5 counts (PCNT5GETCNT, PCNT5READCNTRS), 32 bytes. */
struct pfcntrs_ev5 {
	__pfcntr_ulong_t pr_cycle;
	__pfcntr_ulong_t pf_cntr0;
	__pfcntr_ulong_t pf_cntr1;
	__pfcntr_ulong_t pf_cntr2;
};

/* EV6 counts (PCNT6GETCNT, PCNT6READCNTRS), 24 bytes. */
struct pfcntrs_ev6 {
	__pfcntr_ulong_t pr_cycle;
	__pfcntr_ulong_t pf_cntr0;
	__pfcntr_ulong_t pf_cntr1;
};

/*
 * IPL histogram (PCNTGETIPLHIS): entries 0-5 are IPL 0-5, 6 is always
 * empty (the counter interrupt's own level), 7 counts the ticks of entry 0
 * that interrupted the idle task (a subset of 0, as on Tru64), 8 user-mode
 * ticks.
 */
struct pfipls {
	__pfcntr_ulong_t ipl[9];
};

/* Text address range to profile (PCNTSETUADDR, PCNTSETKADDR). */
struct addr_range {
	__pfcntr_ulong_t start;
	__pfcntr_ulong_t end;
};

/* Address range and stride (PCNTSETURANGE, PCNTSETKRANGE). */
typedef struct {
	__pfcntr_ulong_t start;
	__pfcntr_ulong_t end;
	__pfcntr_ulong_t stride;	/* instructions per bucket, 0 or 2^n */
	__pfcntr_ulong_t res0;
} addr_range_t;

/* pmctrs_ev5_cpu / pmctrs_ev6_cpu: every CPU the device has open. */
#define PMCTRS_ALL_CPUS		0xFF

/*
 * EV5 counter image (PCNT5ENABLE .. PCNT5GETCNTRS take &pmctrs_ev5_long):
 * bits 0-2 select, 8-15 cpu, 16-29 counter 2, 32-47 counter 1,
 * 48-63 counter 0.  Programs use the pmctrs_ev5_* names defined below.
 */
union pmctrs_ev5 {
	__pfcntr_ulong_t pmctrs_ev5_long;
	struct {
		__extension__ __pfcntr_ulong_t
			pmctrs_ev5_s_sel:3,	/* PF5_SEL_COUNTER_* */
			: 5,
			pmctrs_ev5_s_cpu:8,	/* a CPU or PMCTRS_ALL_CPUS */
			pmctrs_ev5_s_c2:14,
			: 2,
			pmctrs_ev5_s_c1:16,
			pmctrs_ev5_s_c0:16;
	} pmctrs_ev5_struct;
};

#define pmctrs_ev5_select	pmctrs_ev5_struct.pmctrs_ev5_s_sel
#define pmctrs_ev5_cpu		pmctrs_ev5_struct.pmctrs_ev5_s_cpu
#define pmctrs_ev5_cntr0	pmctrs_ev5_struct.pmctrs_ev5_s_c0
#define pmctrs_ev5_cntr1	pmctrs_ev5_struct.pmctrs_ev5_s_c1
#define pmctrs_ev5_cntr2	pmctrs_ev5_struct.pmctrs_ev5_s_c2

/*
 * EV6 counter image (PCNT6ENABWRITE .. PCNT6GETCNTRS take &pmctrs_ev6_long):
 * bits 0-1 select, 6-25 counter 1, 28-47 counter 0, 56-63 cpu.
 */
union pmctrs_ev6 {
	__pfcntr_ulong_t pmctrs_ev6_long;
	struct {
		__extension__ __pfcntr_ulong_t
			pmctrs_ev6_s_sel:2,	/* PF6_SEL_COUNTER_* */
			: 4,
			pmctrs_ev6_s_c1:20,
			: 2,
			pmctrs_ev6_s_c0:20,
			: 8,
			pmctrs_ev6_s_cpu:8;	/* a CPU or PMCTRS_ALL_CPUS */
	} pmctrs_ev6_struct;
};

#define pmctrs_ev6_select	pmctrs_ev6_struct.pmctrs_ev6_s_sel
#define pmctrs_ev6_cpu		pmctrs_ev6_struct.pmctrs_ev6_s_cpu
#define pmctrs_ev6_cntr0	pmctrs_ev6_struct.pmctrs_ev6_s_c0
#define pmctrs_ev6_cntr1	pmctrs_ev6_struct.pmctrs_ev6_s_c1

/*
 * EV67 ProfileMe registers (the profile-me mode is refused on Linux; these
 * are here so that programs compile): the whole register, or its fields.
 */
typedef union ev67_istat_reg {
	__pfcntr_ulong_t qval;
	struct {
		__extension__ __pfcntr_ulong_t
			res_0:29,	/* bits 0-28 */
			par:1,		/* 29: Icache parity error */
			ovr:3,		/* 30-32: counter 0 overcount */
			icm:1,		/* 33: Icache miss */
			ttype:4,	/* 34-37: trap type */
			lso:1,		/* 38: load-store order trap */
			trp:1,		/* 39: trap */
			mis:1,		/* 40: mispredict (with trp) */
			res_1:23;	/* 41-63 */
	} fields;
} ev67_istat_reg_t;

typedef union ev67_pctr_ctl_reg {
	__pfcntr_ulong_t qval;
	struct {
		__extension__ __pfcntr_ulong_t
			tak:1,		/* bit 0: branch taken */
			val:1,		/* 1: instruction valid */
			sl1:2,		/* 2-3: selector 1 */
			sl0:1,		/* 4: selector 0 */
			res_0:1,	/* 5 */
			pctr1:20,	/* 6-25: counter 1 */
			kb4map:1,	/* 26: killed before map */
			mstall:1,	/* 27: stalled between fetch and map */
			pctr0:20,	/* 28-47: counter 0 */
			sext:16;	/* 48-63: sign extension of pctr0 */
	} fields;
} ev67_pctr_ctl_reg_t;

/* ---- Open modes ------------------------------------------------------- */

/*
 * ORed into the open(2) flags (O_RDONLY suffices).  No mode bit is the same
 * as PCNTOPENONE.
 *
 * Not Tru64's values: its 0100000 and 0200000 are O_LARGEFILE (set by the
 * kernel on every 64-bit open) and O_DIRECTORY (an open of a character
 * device fails with ENOTDIR) on Linux.  These are O_NOCTTY and O_EXCL,
 * which the VFS passes to the driver's open unchanged (it clears them only
 * afterwards), and which have no effect on a character device that is not
 * a terminal, opened without O_CREAT.
 */
#define PCNTOPENONE		0400	/* the CPU the caller is bound to */
#define PCNTOPENEACH		0200	/* every CPU, data kept per CPU */
#define PCNTOPENALL		0600	/* every CPU, data summed */
#define PCNTOPENMASK		0600

/* ---- Items (PCNTSETITEMS), ORed ---------------------------------------- */

#define PFM_COUNTERS		1	/* the default */
#define PFM_IPL			2
#define PFM_PROFILING		4
#define PFM_PROFME_MODE_MASK	0xff00	/* EV67 profile-me (refused) */
#define PFM_PROFME_MODE_SHIFT	8

/* The 5.x driver's own states: its kernel only, as on Tru64. */
#if defined(KERNEL) || defined(__KERNEL__)
#define PFM_CLOSED		0
#define PFM_KSAMPLES		8
#define PFM_USAMPLES		16
#define PFM_CALLER		32
#define PFM_MASK		7
#endif

/* ---- ioctl requests ---------------------------------------------------- */

/*
 * Group 'P' with the numbers, directions and argument types of Tru64 5.1.
 * "struct X *" requests take the address of a pointer to the caller's
 * array; "long" requests the address of a long; the PCNT5* and PCNT6*
 * image requests the address of pmctrs_ev5_long / pmctrs_ev6_long (8 bytes
 * in every program).
 */
#define PCNTRDISABLE		_IO('P', 0)
#define PCNTRENABLE		_IO('P', 1)
#define PCNTSETMUX		_IOW('P', 2, struct iccsr)	/* EV4 */
#define PCNTLOGALL		_IO('P', 3)	/* count every process */
#define PCNTLOGSELECT		_IO('P', 4)	/* count marked processes */
#define PCNTCLEARCNT		_IO('P', 5)
#define PCNTGETCNT		_IOW('P', 6, struct pfcntrs *)	/* EV4 */
#define PCNTCLEARPCBPME		_IO('P', 7)
#define PCNTCALLER		_IO('P', 8)
#define PCNTGETRSIZE		_IOR('P', 10, long)
#define PCNTGETIPLHIS		_IOW('P', 11, struct pfipls *)
#define PCNTSETITEMS		_IOW('P', 31, long)
#define PCNTSETUADDR		_IOW('P', 32, struct addr_range)
#define PCNTSETKADDR		_IOW('P', 33, struct addr_range)
#define PCNTSETURANGE		_IOW('P', 34, addr_range_t)
#define PCNTSETKRANGE		_IOW('P', 35, addr_range_t)

#define PCNT5CTXTS		_IOW('P', 40, long)	/* PF5_CTXT_* */
#define PCNT5MUX		_IOW('P', 41, long)	/* PF5_MUX0/1/2_* */
#define PCNT5FREQ		_IOW('P', 42, long)	/* PF5_C*_INT_EVERY_* */
#define PCNT5DISABLE		_IOW('P', 43, long)
#define PCNT5ENABLE		_IOW('P', 44, long)
#define PCNT5CLEAR		_IOW('P', 45, long)
#define PCNT5RESTART		_IOW('P', 46, long)
#define PCNT5SETCNTRS		_IOW('P', 47, long)
#define PCNT5GETCNTRS		_IOWR('P', 48, long)
#define PCNT5GETCNT		_IOW('P', 49, struct pfcntrs_ev5 *)
#define PCNT5READCNTRS		_IOW('P', 50, struct pfcntrs_ev5 *)

#define PCNT6MUX		_IOW('P', 51, long)	/* PF6_MUX*, PF67_* */
#define PCNT6ENABWRITE		_IOW('P', 52, long)
#define PCNT6DISABLE		_IOW('P', 53, long)
#define PCNT6ENABLE		_IOW('P', 54, long)
#define PCNT6CLEAR		_IOW('P', 55, long)
#define PCNT6RESTART		_IOW('P', 56, long)
#define PCNT6SETCNTRS		_IOW('P', 57, long)
#define PCNT6GETCNTRS		_IOWR('P', 58, long)
#define PCNT6GETCNT		_IOW('P', 59, struct pfcntrs_ev6 *)
#define PCNT6READCNTRS		_IOW('P', 60, struct pfcntrs_ev6 *)

/* ---- EV4 (iccsr_mux0, iccsr_mux1, iccsr_pc0, iccsr_pc1) ---------------- */

#define PF_ISSUES		0x0	/* total issues / 2 */
#define PF_PIPEDRY		0x2
#define PF_LOADI		0x4
#define PF_PIPEFROZEN		0x6
#define PF_BRANCHI		0x8
#define PF_CYCLES		0xa
#define PF_PALMODE		0xb
#define PF_NONISSUES		0xc	/* total non-issues / 2 */
#define PF_EXTPIN0		0xe

#define PF_DCACHE		0x0
#define PF_ICACHE		0x1
#define PF_DUAL			0x2
#define PF_BRANCHMISS		0x3
#define PF_FPINST		0x4
#define PF_INTOPS		0x5
#define PF_STOREI		0x6
#define PF_EXTPIN1		0x7

#define PF_C0_INT_EVERY_65536	0
#define PF_C0_INT_EVERY_4096	1
#define PF_C1_INT_EVERY_4096	0
#define PF_C1_INT_EVERY_256	1

/* ---- EV5 contexts (PCNT5CTXTS) ----------------------------------------- */

/* One of: */
#define PF5_CTXT_ALL_PROC	0
#define PF5_CTXT_SEL_PROC	1
#define PF5_CTXT_PME_THIS	2
#define PF5_CTXT_THIS_PROC	3

/* ORed with any of: */
#define PF5_CTXT_NO_USER	0x40000000
#define PF5_CTXT_NO_PAL		0x200
#define PF5_CTXT_NO_KERNEL	0x100

/*
 * or exactly one of these.  Unix user mode is what PAL calls "Executive"
 * mode, so user-only counting is PF5_CTXT_EXEC_AND_SUPER.
 */
#define PF5_CTXT_USER		0x300
#define PF5_CTXT_PAL		0x40000100
#define PF5_CTXT_USER_AND_PAL	0x100
#define PF5_CTXT_KERNEL		0x40000200
#define PF5_CTXT_USER_AND_KERNEL 0x200
#define PF5_CTXT_PAL_AND_KERNEL	0x40000000
#define PF5_CTXT_ALL_MODES	0
#define PF5_CTXT_EXEC_AND_SUPER	0x40000300

/* ---- EV5 events (PCNT5MUX): one per counter, ORed ---------------------- */

/* Counter 0 (bit 31) */
#define PF5_MUX0_CYCLES		0
#define PF5_MUX0_ISSUES		0x80000000

/* Counter 1 (bits 4-7 and 51-53), all EV5 implementations */
#define PF5_MUX1_NON_ISSUE_CYCLES	0
#define PF5_MUX1_SPLIT_ISSUE_CYCLES	0x10
#define PF5_MUX1_PIPELINE_DRY		0x20
#define PF5_MUX1_REPLAY_TRAP		0x30
#define PF5_MUX1_SINGLE_ISSUE_CYCLES	0x40
#define PF5_MUX1_DUAL_ISSUE_CYCLES	0x50
#define PF5_MUX1_TRIPLE_ISSUE_CYCLES	0x60
#define PF5_MUX1_QUAD_ISSUE_CYCLES	0x70
#define PF5_MUX1_FLOW_CHANGE		0x80
#define PF5_MUX1_INTEGER_OPERATE	0x90
#define PF5_MUX1_C_FP_INSTRUCTIONS	0xA0
#define PF5_MUX1_C_LOAD_INSTRUCTIONS	0xB0
#define PF5_MUX1_C_STORE_INSTRUCTIONS	0xC0
#define PF5_MUX1_C_ICACHE_ACCESS	0xD0
#define PF5_MUX1_C_DCACHE_ACCESS	0xE0
#define PF5_MUX1_C_BCACHE_VICTIM	0x300000000000F0

/* Counter 1, EV5 and EV56 */
#define PF5_MUX1_C_SCACHE_ACCESS	0xF0
#define PF5_MUX1_C_SCACHE_READ		0x80000000000F0
#define PF5_MUX1_C_SCACHE_WRITE		0x100000000000F0
#define PF5_MUX1_C_SCACHE_VICTIM	0x180000000000F0
#define PF5_MUX1_C_BCACHE_REF		0x280000000000F0
#define PF5_MUX1_C_SYS_REQ		0x380000000000F0

/* Counter 1, PCA56 */
#define PF5_MUX1_C_BCACHE_READ		0xF0
#define PF5_MUX1_C_BCACHE_DREAD_HIT	0x80000000000F0
#define PF5_MUX1_C_BCACHE_DREAD_FILL	0x100000000000F0
#define PF5_MUX1_C_BCACHE_WRITE		0x180000000000F0
#define PF5_MUX1_C_BCACHE_CLN_WRT_HIT	0x280000000000F0
#define PF5_MUX1_C_READ_MISS_2		0x380000000000F0

/* Counter 2 (bits 0-3 and 54-56), all EV5 implementations */
#define PF5_MUX2_C_LONG_STALLS		0
#define PF5_MUX2_C_PC_MISPR		2
#define PF5_MUX2_C_BRANCH_MISPREDICTS	3
#define PF5_MUX2_C_ICACHE_MISSES	4
#define PF5_MUX2_C_ITB_MISS		5
#define PF5_MUX2_C_DCACHE_MISSES	6
#define PF5_MUX2_C_DTB_MISS		7
#define PF5_MUX2_C_LOADS_MERGED		8
#define PF5_MUX2_C_LDU_REPLAYS		9
#define PF5_MUX2_C_WB_MAF_FULL_REPLAYS	0xA
#define PF5_MUX2_C_EXTERNAL		0xB
#define PF5_MUX2_C_CYCLES		0xC
#define PF5_MUX2_C_MEM_BARRIER		0xD
#define PF5_MUX2_C_LOAD_LOCKED		0xE

/* Counter 2, EV5 and EV56 */
#define PF5_MUX2_C_SCACHE_MISS		0xF
#define PF5_MUX2_C_SCACHE_READ_MISS	0x4000000000000F
#define PF5_MUX2_C_SCACHE_WRITE_MISS	0x8000000000000F
#define PF5_MUX2_C_SCACHE_SH_WRITE	0xC000000000000F
#define PF5_MUX2_C_SCACHE_WRITE		0x10000000000000F
#define PF5_MUX2_C_BCACHE_MISS		0x14000000000000F
#define PF5_MUX2_C_SYS_INV		0x18000000000000F
#define PF5_MUX2_C_SYS_READ_REQ		0x1C000000000000F

/* Counter 2, PCA56 */
#define PF5_MUX2_C_BCACHE_DREAD		0xF
#define PF5_MUX2_C_BCACHE_READ_HIT	0x4000000000000F
#define PF5_MUX2_C_BCACHE_READ_FILL	0x8000000000000F
#define PF5_MUX2_C_BCACHE_WRITE_HIT	0xC000000000000F
#define PF5_MUX2_C_BCACHE_WRITE_FILL	0x10000000000000F
#define PF5_MUX2_C_SYS_READ_FLUSH_HIT	0x14000000000000F
#define PF5_MUX2_C_SYS_READ_FLUSH_MISS	0x18000000000000F
#define PF5_MUX2_C_READ_MISS_3		0x1C000000000000F

/* ---- EV5 interrupt rates (PCNT5FREQ): one per counter, ORed ------------ */

/*
 * The 256 rates need privilege.  A counter whose field is left 0 counts at
 * its low rate, as on Tru64 (1 is the rate of 256, as 3).
 */
#define PF5_C0_INT_EVERY_256	0x300
#define PF5_C0_INT_EVERY_65536	0x200
#define PF5_C1_INT_EVERY_256	0xC0
#define PF5_C1_INT_EVERY_65536	0x80
#define PF5_C2_INT_EVERY_256	0x30
#define PF5_C2_INT_EVERY_16384	0x20

#define PF5_C0_WIDTH		16
#define PF5_C1_WIDTH		16
#define PF5_C2_WIDTH		14

/* pmctrs_ev5_select */
#define PF5_SEL_COUNTER_0	1
#define PF5_SEL_COUNTER_1	2
#define PF5_SEL_COUNTER_2	4

/* ---- EV6 (PCNT6MUX): one event per counter, ORed ----------------------- */

#define PF6_MUX0_CYCLES			0x00
#define PF6_MUX0_RET_INSTRUCTIONS	0x10

#define PF6_MUX1_CYCLES			0x0
#define PF6_MUX1_RET_COND_BRANCHES	0x1
#define PF6_MUX1_RET_BRANCH_MISPREDICTS	0x2	/* Alpha: counts cycles */
#define PF6_MUX1_RET_DTB_SINGLE_MISSES	0x3	/* Alpha: 2 per miss (pass 1) */
#define PF6_MUX1_RET_DTB_DOUBLE_MISSES	0x4
#define PF6_MUX1_RET_ITB_MISSES		0x5
#define PF6_MUX1_RET_UNALIGNED_TRAPS	0x6
#define PF6_MUX1_REPLAY_TRAP		0x7

#define PF6_C0_INT_EVERY_1048576	0x0
#define PF6_C1_INT_EVERY_1048576	0x1

/* pmctrs_ev6_select */
#define PF6_SEL_COUNTER_0	1
#define PF6_SEL_COUNTER_1	2

#define PF6_C0_WIDTH		20
#define PF6_C1_WIDTH		20

/* ---- EV67 (values for PCNT6MUX) ---------------------------------------- */

/* Aggregate counting: one pair */
#define PF67_RET_INST_AND_CYCLES	0x00
#define PF67_CYCLES_AND_UNDEFINED	0x04
#define PF67_RET_INST_AND_BCACHE_MISS	0x08
#define PF67_CYCLES_AND_REPLAY_TRAPS	0x0C

/* Profile-me */
#define PF67_PROFILE_ME_MODE		0x10
#define PF67_CYCLES_AND_RET_DELAY	0x04

/*
 * Profile-me statistics (PFM_PROFME_MODE_MASK of the items), in the 5.1
 * header's order.  /dev/pfcntr refuses the profile-me mode on Linux
 * (EINVAL), so these values carry no meaning here.
 */
enum {
	PF67_PM_DISABLED,		/* 0: must be first */
	PF67_PM_ABORT,
	PF67_PM_ABORT_PER_RET,
	PF67_PM_ARITH_TRAP,
	PF67_PM_CBR_TAKEN,
	PF67_PM_CBR_TAKEN_PER_RET,	/* 5 */
	PF67_PM_CYCLES,
	PF67_PM_CYCLES_PER_RET,
	PF67_PM_DELAY,
	PF67_PM_DELAY_PER_RET,
	PF67_PM_DSTREAM_FAULT,		/* 10 */
	PF67_PM_DTB_MISS,
	PF67_PM_DTB_MISS_PER_RET,
	PF67_PM_DTB_MISS3,
	PF67_PM_DTB_MISS4,
	PF67_PM_EARLY_KILL,		/* 15 */
	PF67_PM_EARLY_KILL_PER_RET,
	PF67_PM_FP_DISABLED,
	PF67_PM_FREQ,
	PF67_PM_ICACHE_MISS,
	PF67_PM_ICACHE_MISS_PER_RET,	/* 20 */
	PF67_PM_ICACHE_PARITY,
	PF67_PM_INFLT_BCACHE_MISS,
	PF67_PM_INFLT_REPLAYS,
	PF67_PM_INFLT_RETIRES,
	PF67_PM_INTERRUPT,		/* 25 */
	PF67_PM_ISTREAM_ACCVIO,
	PF67_PM_ITB_MISS,
	PF67_PM_LDST_ALIGN_TRAP,
	PF67_PM_LDST_ORDER_TRAP,
	PF67_PM_MAP_STALL,		/* 30 */
	PF67_PM_MAP_STALL_PER_RET,
	PF67_PM_MCHK_TRAP,
	PF67_PM_MISPREDICT,
	PF67_PM_MISPREDICT_PER_RET,
	PF67_PM_MT_FPCR_TRAP,		/* 35 */
	PF67_PM_OPCDEC_TRAP,
	PF67_PM_REPLAY_TRAP,
	PF67_PM_REPLAY_TRAP_PER_RET,
	PF67_PM_RESET,
	PF67_PM_RETIRE,			/* 40 */
	PF67_PM_TRAP,
	PF67_PM_TRAP_PER_RET,
	PF67_PM_VALID			/* 43 */
};

/*
 * ---- Tru64's kernel: wrperfmon PAL function codes and request masks ----
 * (seen only with _KERNEL, as on Tru64, and by the module)
 */
#if defined(_KERNEL) || defined(__KERNEL__)
/* EV4 */
#define PFDISABLE		0
#define PFENABLE		1
#define PFSET			2
#define PFOPT			3

/* EV5 */
#define PF5DISABLE		0
#define PF5ENABLE		1
#define PF5MUXSEL		2
#define PF5OPT			3
#define PF5FREQSEL		4
#define PF5READ			5
#define PF5WRITE		6
#define PF5ENABRESET		7

/* EV6 (no frequency function) */
#define PF6DISABLE		0
#define PF6ENABLE		1
#define PF6MUXSEL		2
#define PF6OPT			3
#define PF6READ			5
#define PF6WRITE		6
#define PF6ENABWRITE		7
#define PF6READISTAT		8
#define PF6READPMPC		9

/* Not wrperfmon functions */
#define PFRPCC			0x17
#define PF5SETCTRS		0x18
#define PF6SETCTRS		0x28

/*
 * The bits each request may carry.  PF5_MUX_KMASK lacks PF5_MUX0_ISSUES'
 * bit 31, as on Tru64.  A PCNT5FREQ argument is masked with PF5_FREQ_KMASK
 * and ORed with PF5_FREQ_KFORCE (the high bit of each counter's field), so
 * a field of 0 is the low rate and any bit of PF5_FREQ_FAST_MASK is a rate
 * of 256.
 */
#define PF5_ABLE_KMASK		0x7
#define PF5_MUX_KMASK		0x01F80000000000FF
#define PF5_MUX_CBOX_KMASK	0x01F8000000000000
#define PF5_MUX_CBOX_KSHIFT	32
#define PFPCA56_MUX_CBOX_KSHIFT	43
#define PF5_CTXT_KMASK		0x40000301
#define PF5_FREQ_KMASK		0x3F0
#define PF5_FREQ_KFORCE		0x2A0
#define PF5_FREQ_FAST_MASK	0x150
#define PF5_WRITE_KMASK		0xFFFFFFFF3FFF0000
#define PF5_CPU_KMASK		0xFF00

#define PF6_CPU_KMASK		0xFF00000000000000
#define PF6_MUX_KMASK		0x1F
#define PF6_WRITE_KMASK		0xFF00FFFFF3FFFFC3
#endif /* _KERNEL */

/* ---- pmcompat: field helpers for the images, with shifts --------------- */

/*
 * PFCNTR_x_F(v) extracts field F from image v; PFCNTR_x_F_SHIFT and
 * PFCNTR_x_F_MASK (unshifted) describe it; PFCNTR_x_IMAGE() builds an
 * image (each argument masked to its field).
 */
#define __PFCNTR_GET(v, f)	(((__u64)(v) >> f##_SHIFT) & f##_MASK)
#define __PFCNTR_PUT(x, f)	(((__u64)(x) & f##_MASK) << f##_SHIFT)

/* union pmctrs_ev5 */
#define PFCNTR_EV5_SEL_SHIFT	0
#define PFCNTR_EV5_SEL_MASK	0x7
#define PFCNTR_EV5_CPU_SHIFT	8
#define PFCNTR_EV5_CPU_MASK	0xff
#define PFCNTR_EV5_C2_SHIFT	16
#define PFCNTR_EV5_C2_MASK	0x3fff		/* PF5_C2_WIDTH bits */
#define PFCNTR_EV5_C1_SHIFT	32
#define PFCNTR_EV5_C1_MASK	0xffff		/* PF5_C1_WIDTH bits */
#define PFCNTR_EV5_C0_SHIFT	48
#define PFCNTR_EV5_C0_MASK	0xffff		/* PF5_C0_WIDTH bits */

#define PFCNTR_EV5_SEL(v)	__PFCNTR_GET(v, PFCNTR_EV5_SEL)
#define PFCNTR_EV5_CPU(v)	__PFCNTR_GET(v, PFCNTR_EV5_CPU)
#define PFCNTR_EV5_C0(v)	__PFCNTR_GET(v, PFCNTR_EV5_C0)
#define PFCNTR_EV5_C1(v)	__PFCNTR_GET(v, PFCNTR_EV5_C1)
#define PFCNTR_EV5_C2(v)	__PFCNTR_GET(v, PFCNTR_EV5_C2)
#define PFCNTR_EV5_IMAGE(sel, cpu, c0, c1, c2)			\
	(__PFCNTR_PUT(sel, PFCNTR_EV5_SEL) |			\
	 __PFCNTR_PUT(cpu, PFCNTR_EV5_CPU) |			\
	 __PFCNTR_PUT(c0, PFCNTR_EV5_C0) |			\
	 __PFCNTR_PUT(c1, PFCNTR_EV5_C1) |			\
	 __PFCNTR_PUT(c2, PFCNTR_EV5_C2))

/* union pmctrs_ev6 */
#define PFCNTR_EV6_SEL_SHIFT	0
#define PFCNTR_EV6_SEL_MASK	0x3
#define PFCNTR_EV6_C1_SHIFT	6
#define PFCNTR_EV6_C1_MASK	0xfffff		/* PF6_C1_WIDTH bits */
#define PFCNTR_EV6_C0_SHIFT	28
#define PFCNTR_EV6_C0_MASK	0xfffff		/* PF6_C0_WIDTH bits */
#define PFCNTR_EV6_CPU_SHIFT	56
#define PFCNTR_EV6_CPU_MASK	0xff

#define PFCNTR_EV6_SEL(v)	__PFCNTR_GET(v, PFCNTR_EV6_SEL)
#define PFCNTR_EV6_CPU(v)	__PFCNTR_GET(v, PFCNTR_EV6_CPU)
#define PFCNTR_EV6_C0(v)	__PFCNTR_GET(v, PFCNTR_EV6_C0)
#define PFCNTR_EV6_C1(v)	__PFCNTR_GET(v, PFCNTR_EV6_C1)
#define PFCNTR_EV6_IMAGE(sel, cpu, c0, c1)			\
	(__PFCNTR_PUT(sel, PFCNTR_EV6_SEL) |			\
	 __PFCNTR_PUT(cpu, PFCNTR_EV6_CPU) |			\
	 __PFCNTR_PUT(c0, PFCNTR_EV6_C0) |			\
	 __PFCNTR_PUT(c1, PFCNTR_EV6_C1))

/* struct iccsr, read as one __u64 */
#define PFCNTR_ICCSR_PC1_SHIFT		0
#define PFCNTR_ICCSR_PC1_MASK		0x1
#define PFCNTR_ICCSR_PC0_SHIFT		3
#define PFCNTR_ICCSR_PC0_MASK		0x1
#define PFCNTR_ICCSR_MUX0_SHIFT		8
#define PFCNTR_ICCSR_MUX0_MASK		0xf
#define PFCNTR_ICCSR_MUX1_SHIFT		32
#define PFCNTR_ICCSR_MUX1_MASK		0x7
#define PFCNTR_ICCSR_DISABLE_SHIFT	35
#define PFCNTR_ICCSR_DISABLE_MASK	0x3
/* iccsr_ign0..3: bits 1-2, 4-7, 12-31 and 37-63 */
#define PFCNTR_ICCSR_IGN_MASK		(((__u64)0x7ffffff << 37) | 0xfffff0f6)

#define PFCNTR_ICCSR_PC1(v)	__PFCNTR_GET(v, PFCNTR_ICCSR_PC1)
#define PFCNTR_ICCSR_PC0(v)	__PFCNTR_GET(v, PFCNTR_ICCSR_PC0)
#define PFCNTR_ICCSR_MUX0(v)	__PFCNTR_GET(v, PFCNTR_ICCSR_MUX0)
#define PFCNTR_ICCSR_MUX1(v)	__PFCNTR_GET(v, PFCNTR_ICCSR_MUX1)
#define PFCNTR_ICCSR_DISABLE(v)	__PFCNTR_GET(v, PFCNTR_ICCSR_DISABLE)
#define PFCNTR_ICCSR_IMAGE(pc0, pc1, mux0, mux1, disable)	\
	(__PFCNTR_PUT(pc0, PFCNTR_ICCSR_PC0) |			\
	 __PFCNTR_PUT(pc1, PFCNTR_ICCSR_PC1) |			\
	 __PFCNTR_PUT(mux0, PFCNTR_ICCSR_MUX0) |		\
	 __PFCNTR_PUT(mux1, PFCNTR_ICCSR_MUX1) |		\
	 __PFCNTR_PUT(disable, PFCNTR_ICCSR_DISABLE))

#endif /* !_PFCNTR_H_ */
