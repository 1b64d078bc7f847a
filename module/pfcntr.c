// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pfcntr: Tru64 UNIX pfm(7) on the pmcompat counter core.
 *
 * An open takes one CPU (PCNTOPENONE) or every CPU (EACH, ALL).  Each taken
 * CPU gets one core set of up to three counters: a CPU set under LOGALL, a
 * process-tree set of the LOGSELECT caller (counted only while it runs on
 * that CPU) under LOGSELECT.  Every counter interrupts every P events (its
 * period: the Alpha frequency); the interrupts feed the IPL histogram.  The
 * tick counts that GETCNT returns are derived from perf's exact count: the
 * number of times the CPU's counter passed a multiple of P since the last
 * CLEARCNT, which is what a Tru64 counter's interrupts numbered, without
 * the losses of perf's interrupt throttling.
 *
 * Per taken CPU and counter the front-end keeps:
 *   hw      = value - hw_base          the Alpha counter, 64 bits wide
 *   ticks   = ticks_adj + hw / P       GETCNT
 *   raw     = hw % P                   GETCNTRS (events since the last tick)
 *   full    = ticks_adj * P + hw       READCNTRS: ticks * P + raw
 * Writing the raw counter moves hw_base, CLEARCNT moves ticks_adj, and a
 * change of period or event keeps both ticks and raw.  A counter that does
 * not record (disabled) reads its value frozen at the disable; the events
 * counted meanwhile are given back when it records again.
 *
 * Locking: pfm_file.lock serialises every request of an open and is taken
 * before any core set's lock.  The tick callback runs in NMI context on
 * real hardware: it reads two words of the open and increments per-CPU
 * atomics.  Sets are destroyed (irq_work and NMIs drained) before the open
 * is freed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <asm/msr.h>
#include <asm/unwind.h>
#include <sys/pfcntr.h>

#include "pmc_core.h"
#include "pmcompat.h"

#define PFM_NCTRS	3
#define PFM_NIPL	9
#define PFM_IPL_IDLE	7
#define PFM_IPL_USER	8

#define PFM_INSN_BYTES		4		/* an Alpha instruction */
#define PFM_STRIDE_DEFAULT	4		/* instructions per bucket */
#define PFM_STRIDE_MAX		BIT_ULL(60)
#define PFM_NCALLERS		4		/* extra caller ranges */
#define PFM_CALLER_DEPTH	4		/* frames to leave the routines */
#define PFM_PROF_MAX		(16UL << 20)	/* bytes of buckets per CPU */
#define PFM_PROF_MAX_TOTAL	(256UL << 20)	/* ... for every CPU */

static bool pfm_ev67;
module_param_named(pfcntr_ev67, pfm_ev67, bool, 0644);
MODULE_PARM_DESC(pfcntr_ev67, "PCNT6MUX takes EV67 values (read at open)");

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
#define ICCSR_DISABLE(v)	(((v) >> 35) & 0x3)
#define ICCSR_IGN		(~(BIT_ULL(0) | BIT_ULL(3) | GENMASK_ULL(11, 8) | \
				   GENMASK_ULL(36, 32)))

#define EV5_MUX_VALID		(GENMASK_ULL(7, 0) | BIT_ULL(31) | GENMASK_ULL(56, 51))
#define EV5_CTXT_MODES		(PF5_CTXT_NO_USER | PF5_CTXT_NO_PAL | PF5_CTXT_NO_KERNEL)
#define EV5_FREQ_DEFAULT	(PF5_C0_INT_EVERY_65536 | PF5_C1_INT_EVERY_65536 | \
				 PF5_C2_INT_EVERY_16384)

/* union pmctrs_ev5 / pmctrs_ev6 images */
static const struct pfm_image {
	unsigned int sel_bits;
	unsigned int cpu_shift;
	unsigned int shift[PFM_NCTRS];
	unsigned int width[PFM_NCTRS];
} pfm_image_ev5 = {
	.sel_bits = 3, .cpu_shift = 8,
	.shift = { 48, 32, 16 }, .width = { 16, 16, 14 },
}, pfm_image_ev6 = {
	.sel_bits = 2, .cpu_shift = 56,
	.shift = { 28, 6 }, .width = { 20, 20 },
};

/* ---- the state of an open ------------------------------------------------- */

enum pfm_family { PFM_FAM_NONE, PFM_FAM_EV4, PFM_FAM_EV5, PFM_FAM_EV6 };

/* What the counters count: derived from the family's registers. */
struct pfm_cfg {
	enum pfm_family family;
	unsigned int nctrs;
	bool logselect;
	bool sample;				/* interrupts wanted (PFM_IPL) */
	unsigned long on;			/* counters that count something */
	u64 period[PFM_NCTRS];
	struct pmc_event_desc desc[PFM_NCTRS];
};

/* The family's registers as the caller wrote them. */
struct pfm_regs {
	u64 iccsr;
	u64 ev5_mux, ev5_freq, ev5_ctxts;
	bool ev5_mux_set;		/* nothing counts before a PCNT5MUX */
	u64 ev6_mux;
};

struct pfm_cpu {
	struct pmc_set *set;
	s64 ticks_adj[PFM_NCTRS];
	u64 hw_base[PFM_NCTRS];
	u64 frozen[PFM_NCTRS];
};

struct pfm_ipl {
	atomic64_t ipl[PFM_NIPL];
};

/* A text range [start, end). */
struct pfm_range {
	unsigned long start, end;
};

/*
 * A PC profile: one array of 32-bit buckets per slot (per CPU), written
 * only by that CPU's counter interrupts.  Replaced whole by a new range
 * (RCU); the caller ranges are appended in place (release/acquire).
 */
struct pfm_prof {
	bool kernel;			/* kernel-mode PCs, else user-mode */
	bool whole;			/* stride 0: one bucket */
	bool caller;			/* PCNTCALLER: credit the callers */
	unsigned int shift;		/* log2 of a bucket's bytes */
	unsigned int ncallers;
	struct pfm_range range;
	struct pfm_range callers[PFM_NCALLERS];
	size_t nbuckets;
	unsigned int nslots;
	atomic_t *buckets[] __counted_by(nslots);
};

struct pfm_file {
	struct mutex lock;		/* serialises the requests of an open */
	unsigned int mode;		/* PCNTOPENONE, _EACH or _ALL */
	int cpu;			/* ONE: the CPU */
	unsigned int nslots;		/* ONE: 1; EACH, ALL: nr_cpu_ids */
	struct pfm_cpu *slots;		/* by CPU (ONE: [0]) */
	bool ev67;
	struct pfm_regs regs;
	struct pfm_cfg cfg;
	bool intr_on;			/* PCNTRENABLE */
	unsigned long sel_en;		/* per-counter enables */
	unsigned long recording;	/* read in NMI context */
	unsigned long items;		/* read in NMI context */
	struct task_struct *root;	/* LOGSELECT: the marked caller */
	bool root_marked;
	u64 tsc_clear;
	struct pfm_ipl __percpu *ipl;
	u64 stride;			/* profiling: instructions per bucket */
	struct pfm_prof __rcu *prof;	/* read in NMI context */
};

static DEFINE_SPINLOCK(pfm_cpus_lock);
static struct cpumask pfm_cpus_taken;

static int pfm_slot_cpu(const struct pfm_file *pf, unsigned int k)
{
	return pf->mode == PCNTOPENONE ? pf->cpu : k;
}

static bool pfm_privileged(void)
{
	return capable(CAP_PERFMON) || capable(CAP_SYS_ADMIN);
}

/* ---- interrupt time -------------------------------------------------------- */

/*
 * The IPL histogram entry of an interrupted context: 8 user mode; in the
 * kernel 0 task context, 1 bottom halves disabled, 2 softirq, 3 interrupts
 * off, 4 hard interrupt, 5 another NMI.  The NMI we run in is not counted.
 */
static unsigned int pfm_ipl_entry(struct pt_regs *regs)
{
	unsigned long pc = preempt_count();
	unsigned int hard = (pc & HARDIRQ_MASK) >> HARDIRQ_SHIFT;
	unsigned int nmi = (pc & NMI_MASK) >> NMI_SHIFT;

	if (user_mode(regs))
		return PFM_IPL_USER;
	if (in_nmi()) {		/* nmi_enter() counts itself in both */
		nmi--;
		hard--;
	}
	if (nmi)
		return 5;
	if (hard)
		return 4;
	if (!(regs->flags & X86_EFLAGS_IF))
		return 3;
	if (in_serving_softirq())
		return 2;
	if (softirq_count())
		return 1;
	return 0;
}

/*
 * The kernel routines whose samples PCNTCALLER credits to their caller:
 * Tru64 named bcopy, bzero and simple_lock.  Found at load time from their
 * exported addresses; kallsyms gives each one's size.
 */
static void *const pfm_callee_fns[] = {
	memcpy, memmove, memset,
	_raw_spin_lock, _raw_spin_lock_irqsave, _raw_spin_lock_irq,
	_raw_spin_lock_bh,
#ifdef CONFIG_PREEMPT_RT
	rt_spin_lock,
#endif
#if defined(CONFIG_QUEUED_SPINLOCKS) && defined(CONFIG_PARAVIRT_SPINLOCKS)
	native_queued_spin_lock_slowpath,
#elif defined(CONFIG_QUEUED_SPINLOCKS)
	queued_spin_lock_slowpath,
#endif
};

static struct pfm_range pfm_callees[ARRAY_SIZE(pfm_callee_fns)];
static unsigned int pfm_ncallees;

static bool pfm_in_range(const struct pfm_range *r, unsigned long pc)
{
	return pc - r->start < r->end - r->start;
}

static bool pfm_in_callee(const struct pfm_prof *p, unsigned long pc)
{
	/* Pairs with the release in pfm_set_range(): the entries are set. */
	unsigned int i, n = smp_load_acquire(&p->ncallers);

	for (i = 0; i < pfm_ncallees; i++)
		if (pfm_in_range(&pfm_callees[i], pc))
			return true;
	for (i = 0; i < n; i++)
		if (pfm_in_range(&p->callers[i], pc))
			return true;
	return false;
}

/*
 * PCNTCALLER: the PC a kernel sample is credited to.  Inside one of the
 * routines, the kernel's unwinder (ORC on distribution kernels, as perf's
 * call chains) steps out to the first return address outside them; 0 when
 * it cannot (the sample is dropped).
 */
static unsigned long pfm_caller_pc(const struct pfm_prof *p, struct pt_regs *regs)
{
	unsigned long pc = instruction_pointer(regs);
	struct unwind_state state;
	unsigned int depth;

	if (!pfm_in_callee(p, pc))
		return pc;
	unwind_start(&state, current, regs, NULL);
	for (depth = 0; depth < PFM_CALLER_DEPTH && !unwind_done(&state); depth++) {
		pc = unwind_get_return_address(&state);
		if (!pc || !pfm_in_callee(p, pc))
			return pc;
		unwind_next_frame(&state);
	}
	return 0;
}

/* A PC sample of this CPU's counter interrupt, if it falls in the profile. */
static void pfm_sample(struct pfm_file *pf, struct pt_regs *regs)
{
	unsigned int cpu = smp_processor_id(), k = cpu;
	struct pfm_prof *p;
	unsigned long pc;
	size_t b;

	if (pf->mode == PCNTOPENONE) {
		if (cpu != pf->cpu)
			return;
		k = 0;
	}
	rcu_read_lock();
	p = rcu_dereference(pf->prof);
	if (!p || k >= p->nslots || user_mode(regs) == p->kernel)
		goto out;
	pc = instruction_pointer(regs);
	if (p->kernel && READ_ONCE(p->caller))
		pc = pfm_caller_pc(p, regs);
	if (!pfm_in_range(&p->range, pc))
		goto out;
	b = p->whole ? 0 : (pc - p->range.start) >> p->shift;
	/* Saturates at 0xffffffff rather than wrap to a small count. */
	atomic_add_unless(&p->buckets[k][b], 1, -1);
out:
	rcu_read_unlock();
}

static void pfm_tick(void *ctx, unsigned int idx, struct pt_regs *regs)
{
	struct pfm_file *pf = ctx;
	unsigned long items;
	struct pfm_ipl *h;
	unsigned int e;

	if (!(READ_ONCE(pf->recording) & BIT(idx)))
		return;
	items = READ_ONCE(pf->items);
	if (items & PFM_IPL) {
		h = this_cpu_ptr(pf->ipl);
		e = pfm_ipl_entry(regs);
		atomic64_inc(&h->ipl[e]);
		if (e != PFM_IPL_USER && is_idle_task(current))
			atomic64_inc(&h->ipl[PFM_IPL_IDLE]);
	}
	if (items & PFM_PROFILING)
		pfm_sample(pf, regs);
}

/* ---- values ---------------------------------------------------------------- */

/* Slot k's values: live for the counters of mask, frozen for the others. */
static int pfm_values_of(struct pfm_file *pf, unsigned int k, unsigned long mask,
			 u64 *v)
{
	struct pfm_cpu *s = &pf->slots[k];
	u64 live[PMC_MAX_COUNTERS] = {};
	unsigned int i;
	int ret = 0;

	if (s->set && (mask & pf->cfg.on))
		ret = pmc_set_read(s->set, PMC_READ_SUM, live, NULL);
	for (i = 0; i < PFM_NCTRS; i++)
		v[i] = (mask & BIT(i)) ? live[i] : s->frozen[i];
	return ret;
}

/* The counters' current values on slot k (frozen ones as frozen). */
static int pfm_values(struct pfm_file *pf, unsigned int k, u64 *v)
{
	return pfm_values_of(pf, k, pf->recording, v);
}

struct pfm_count {
	u64 ticks[PFM_NCTRS];
	u64 full[PFM_NCTRS];
	u64 raw[PFM_NCTRS];
};

static int pfm_count_slot(struct pfm_file *pf, unsigned int k, struct pfm_count *c)
{
	struct pfm_cpu *s = &pf->slots[k];
	u64 v[PFM_NCTRS];
	unsigned int i;
	int ret;

	ret = pfm_values(pf, k, v);
	if (ret)
		return ret;
	for (i = 0; i < PFM_NCTRS; i++) {
		u64 p = pf->cfg.period[i], hw = v[i] - s->hw_base[i];

		c->ticks[i] = s->ticks_adj[i] + div64_u64(hw, p);
		c->full[i] = (u64)s->ticks_adj[i] * p + hw;
		c->raw[i] = hw - div64_u64(hw, p) * p;
	}
	return 0;
}

/* Each slot's counts (EACH), or one entry: the CPU (ONE) or the sum (ALL). */
static int pfm_counts(struct pfm_file *pf, struct pfm_count *out, unsigned int *n)
{
	struct pfm_count c;
	unsigned int k, i;
	int ret;

	*n = pf->mode == PCNTOPENEACH ? pf->nslots : 1;
	memset(out, 0, sizeof(*out) * *n);
	for (k = 0; k < pf->nslots; k++) {
		if (!pf->slots[k].set && pf->mode != PCNTOPENONE &&
		    !cpu_possible(k))
			continue;
		ret = pfm_count_slot(pf, k, &c);
		if (ret)
			return ret;
		if (pf->mode == PCNTOPENEACH) {
			out[k] = c;
			continue;
		}
		for (i = 0; i < PFM_NCTRS; i++) {
			out[0].ticks[i] += c.ticks[i];
			out[0].full[i] += c.full[i];
			out[0].raw[i] += c.raw[i];
		}
	}
	return 0;
}

/* Make slot k's counter i read hw = value from now on; ticks are kept. */
static void pfm_write_hw(struct pfm_file *pf, unsigned int k, unsigned int i,
			 u64 cur, u64 value)
{
	struct pfm_cpu *s = &pf->slots[k];
	u64 hw = cur - s->hw_base[i];

	s->ticks_adj[i] += div64_u64(hw, pf->cfg.period[i]);
	s->hw_base[i] = cur - value;
}

/* ---- recording: which counters count now ---------------------------------- */

static void pfm_stop_counters(struct pmc_set *set, unsigned long mask)
{
	unsigned int i;

	for_each_set_bit(i, &mask, PFM_NCTRS)
		if (set)
			pmc_counter_stop(set, i);
}

static unsigned long pfm_want(const struct pfm_file *pf)
{
	return pf->intr_on ? pf->sel_en & pf->cfg.on : 0;
}

/*
 * Bring the counters that record in line with the enables.  Under LOGALL
 * the core starts and stops the CPUs' events; under LOGSELECT the events
 * keep counting (perf cannot stop the copies of a process tree) and only
 * the values freeze.  Counts made while frozen are given back.
 */
static int pfm_access(const struct pfm_file *pf, const struct pfm_cfg *cfg);
static bool pfm_kprof_on(const struct pfm_file *pf, unsigned long items);
static int pfm_kprof_access(void);
static int pfm_lock_target(const struct pfm_file *pf, const struct pfm_cfg *cfg,
			   struct rw_semaphore **lock);
static void pfm_unlock_target(struct rw_semaphore *lock);

static int pfm_update(struct pfm_file *pf)
{
	unsigned long want = pfm_want(pf), old = pf->recording;
	unsigned long on = want & ~old, off = old & ~want;
	struct rw_semaphore *lock;
	u64 v[PFM_NCTRS];
	unsigned int k, i;
	int ret;

	if (!on && !off)
		return 0;
	if (on) {
		/* Whoever enables must be allowed to count what is set up. */
		ret = pfm_lock_target(pf, &pf->cfg, &lock);
		if (ret)
			return ret;
		ret = pfm_access(pf, &pf->cfg);
		pfm_unlock_target(lock);
		if (ret)
			return ret;
	}
	if (on && !pf->cfg.logselect) {
		for (k = 0; k < pf->nslots; k++) {
			if (!pf->slots[k].set)
				continue;
			ret = pmc_set_start(pf->slots[k].set, on);
			if (ret) {
				while (k--)
					pfm_stop_counters(pf->slots[k].set, on);
				return ret;
			}
		}
	}
	for (k = 0; k < pf->nslots; k++) {
		struct pfm_cpu *s = &pf->slots[k];

		if (!s->set)
			continue;
		ret = pfm_values_of(pf, k, old | on, v);
		if (ret)
			memcpy(v, s->frozen, sizeof(v));
		for_each_set_bit(i, &off, PFM_NCTRS) {
			s->frozen[i] = v[i];
			if (!pf->cfg.logselect)
				pmc_counter_stop(s->set, i);
		}
		for_each_set_bit(i, &on, PFM_NCTRS)
			s->hw_base[i] += v[i] - s->frozen[i];
	}
	WRITE_ONCE(pf->recording, want);
	return 0;
}

/* ---- (re)building the sets ------------------------------------------------ */

static void pfm_free_sets(struct pmc_set **sets, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		pmc_set_destroy(sets[k]);
	kfree(sets);
}

/* The process LOGSELECT counts, when it is not the caller's own. */
static struct task_struct *pfm_target(const struct pfm_file *pf,
				      const struct pfm_cfg *cfg)
{
	if (!cfg->logselect || !pf->root || same_thread_group(pf->root, current))
		return NULL;
	return pf->root;
}

/*
 * May the caller count what cfg says: whole CPUs (LOGALL), kernel mode,
 * another process (LOGSELECT set up by a process the descriptor came from)?
 * With another process, its exec_update_lock is held (pfm_lock_target())
 * from the check until its events are installed, as perf_event_open() does.
 */
static int pfm_access(const struct pfm_file *pf, const struct pfm_cfg *cfg)
{
	unsigned int what = PMC_ACCESS_THREAD, i;

	if (!cfg->on)
		return 0;
	if (!cfg->logselect)
		what |= PMC_ACCESS_CPU;
	for_each_set_bit(i, &cfg->on, PFM_NCTRS) {
		if (!cfg->desc[i].exclude_kernel)
			what |= PMC_ACCESS_KERNEL;
		/* Tru64's superuser rate, whoever set it up. */
		if (cfg->period[i] <= 256 && !pfm_privileged())
			return -EPERM;
	}
	if (pfm_kprof_on(pf, pf->items) && pfm_kprof_access())
		return -EPERM;
	return pmc_access_check(what, pfm_target(pf, cfg)) ? -EPERM : 0;
}

static int pfm_lock_target(const struct pfm_file *pf, const struct pfm_cfg *cfg,
			   struct rw_semaphore **lock)
{
	struct task_struct *target = pfm_target(pf, cfg);

	*lock = NULL;
	if (!target || !cfg->on)
		return 0;
	if (down_read_killable(&target->signal->exec_update_lock))
		return -EINTR;
	*lock = &target->signal->exec_update_lock;
	return 0;
}

static void pfm_unlock_target(struct rw_semaphore *lock)
{
	if (lock)
		up_read(lock);
}

/* perf has no such event on this CPU: the man page's "not available". */
static int pfm_perf_error(int ret)
{
	return ret == -ENOENT || ret == -EOPNOTSUPP ? -EINVAL : ret;
}

static struct pmc_set *pfm_make_set(struct pfm_file *pf, const struct pfm_cfg *cfg,
				    int cpu)
{
	struct pmc_bind bind = { .scope = PMC_SCOPE_CPU, .cpu = cpu };
	struct pmc_set *set;
	unsigned int i;
	int ret;

	if (cfg->logselect) {
		bind.scope = PMC_SCOPE_TREE;
		bind.task = pf->root;
	}
	set = pmc_set_create(&bind, PFM_NCTRS);
	if (IS_ERR(set))
		return set;
	pmc_set_ticks(set, pfm_tick, pf);
	for_each_set_bit(i, &cfg->on, PFM_NCTRS) {
		ret = pmc_counter_program(set, i, &cfg->desc[i], 0,
					  cfg->sample ? PMC_TICK : 0);
		if (ret) {
			pmc_set_destroy(set);
			return ERR_PTR(pfm_perf_error(ret));
		}
	}
	return set;
}

/*
 * Count what cfg says from now on, all or nothing: new sets are made and
 * started while the old ones are stopped; on failure the old ones resume.
 * The Alpha counters keep their ticks and raw values across the change.
 */
static int pfm_apply(struct pfm_file *pf, const struct pfm_cfg *cfg)
{
	unsigned long want = pf->intr_on ? pf->sel_en & cfg->on : 0;
	struct rw_semaphore *lock;
	struct pmc_set **sets;
	unsigned int k, i;
	u64 v[PFM_NCTRS];
	int ret;

	if (cfg->logselect && !pf->root)
		return -EINVAL;
	ret = pfm_lock_target(pf, cfg, &lock);
	if (ret)
		return ret;
	ret = pfm_access(pf, cfg);
	if (ret)
		goto unlock;
	ret = -ENOMEM;
	sets = kcalloc(pf->nslots, sizeof(*sets), GFP_KERNEL);
	if (!sets)
		goto unlock;
	for (k = 0; k < pf->nslots && cfg->on; k++) {
		int cpu = pfm_slot_cpu(pf, k);

		/* Hybrid PMUs refuse CPUs that never came up: none runs there. */
		if (!cpu_possible(cpu) || (cfg->logselect && !cpu_present(cpu)))
			continue;
		sets[k] = pfm_make_set(pf, cfg, cpu);
		if (IS_ERR(sets[k])) {
			ret = PTR_ERR(sets[k]);
			sets[k] = NULL;
			goto fail;
		}
	}

	/* The old events give back the hardware, then the new ones start. */
	for (k = 0; k < pf->nslots; k++) {
		ret = pfm_values(pf, k, v);
		if (ret)
			memcpy(v, pf->slots[k].frozen, sizeof(v));
		memcpy(pf->slots[k].frozen, v, sizeof(v));
		/* A tree's own events stop; its copies in other threads cannot. */
		if (pf->slots[k].set)
			pmc_set_stop(pf->slots[k].set);
	}
	for (k = 0; k < pf->nslots; k++) {
		if (!sets[k])
			continue;
		if (cfg->logselect)
			ret = pf->root_marked ? pmc_set_start(sets[k], cfg->on) : 0;
		else
			ret = want ? pmc_set_start(sets[k], want) : 0;
		if (ret) {
			ret = pfm_perf_error(ret);
			goto restore;
		}
	}

	/* Fold: each counter keeps its ticks and its raw value. */
	for (k = 0; k < pf->nslots; k++) {
		struct pfm_cpu *s = &pf->slots[k];

		for (i = 0; i < PFM_NCTRS; i++) {
			u64 p = pf->cfg.period[i], hw = s->frozen[i] - s->hw_base[i];
			u64 t = div64_u64(hw, p);

			s->ticks_adj[i] += t;
			s->hw_base[i] = -(hw - t * p);	/* new value 0: hw = raw */
			s->frozen[i] = 0;
		}
		pmc_set_destroy(s->set);
		s->set = sets[k];
	}
	kfree(sets);
	pf->cfg = *cfg;
	WRITE_ONCE(pf->recording, want);
	pfm_unlock_target(lock);
	return 0;

restore:
	pfm_free_sets(sets, pf->nslots);
	sets = NULL;
	for (k = 0; k < pf->nslots; k++) {
		unsigned long mask = pf->cfg.logselect ?
				     (pf->root_marked ? pf->cfg.on : 0) : pf->recording;

		if (pf->slots[k].set && mask && pmc_set_start(pf->slots[k].set, mask))
			pr_warn_ratelimited("pfcntr: counters could not be restarted\n");
	}
fail:
	if (sets)
		pfm_free_sets(sets, pf->nslots);
unlock:
	pfm_unlock_target(lock);
	return ret;
}

/* ---- the families' registers ------------------------------------------------ */

static void pfm_cfg_event(struct pfm_cfg *cfg, unsigned int i, u8 ev, u64 period,
			  bool user, bool kernel)
{
	cfg->period[i] = period;
	if (ev == PFM_OFF)
		return;
	cfg->on |= BIT(i);
	cfg->desc[i] = (struct pmc_event_desc) {
		.type = pfm_perf_events[ev].type,
		.config = pfm_perf_events[ev].config,
		.exclude_user = !user,
		.exclude_kernel = !kernel,
		.tick_period = period,
	};
}

/*
 * The counters interrupt only when something is made of the interrupts
 * (the IPL histogram): perf stops a sampling event whose interrupts come
 * too often until the next timer tick (throttling), and what it would have
 * counted meanwhile is lost.  Counting events are never stopped.
 */
static bool pfm_sampling(unsigned long items)
{
	return items & (PFM_IPL | PFM_PROFILING);
}

static void pfm_cfg_init(struct pfm_cfg *cfg)
{
	unsigned int i;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < PFM_NCTRS; i++)
		cfg->period[i] = 1 << 16;	/* any: nothing counts */
}

/* Start a configuration of family fam from the current one. */
static int pfm_cfg_begin(const struct pfm_file *pf, enum pfm_family fam,
			 struct pfm_cfg *cfg)
{
	if (pf->cfg.family != PFM_FAM_NONE && pf->cfg.family != fam)
		return -EINVAL;
	pfm_cfg_init(cfg);
	cfg->family = fam;
	cfg->logselect = pf->cfg.logselect;
	cfg->sample = pfm_sampling(pf->items);
	cfg->nctrs = fam == PFM_FAM_EV5 ? 3 : 2;
	return 0;
}

static int pfm_cfg_ev4(const struct pfm_file *pf, u64 iccsr, struct pfm_cfg *cfg)
{
	unsigned int dis = ICCSR_DISABLE(iccsr);
	u8 ev0 = pfm_ev4_mux0[ICCSR_MUX0(iccsr)];
	u8 ev1 = pfm_ev4_mux1[ICCSR_MUX1(iccsr)];
	int ret;

	ret = pfm_cfg_begin(pf, PFM_FAM_EV4, cfg);
	if (ret)
		return ret;
	if ((iccsr & ICCSR_IGN) || dis == 3)
		return -EINVAL;
	if ((!(dis & 1) && ev0 == PFM_NA) || (!(dis & 2) && ev1 == PFM_NA))
		return -EINVAL;
	if (!(dis & 2) && ICCSR_PC1(iccsr) && !pfm_privileged())
		return -EPERM;		/* every 2^8 events: Tru64's superuser rate */
	pfm_cfg_event(cfg, 0, dis & 1 ? PFM_OFF : ev0,
		      ICCSR_PC0(iccsr) ? 1 << 12 : 1 << 16, true, true);
	pfm_cfg_event(cfg, 1, dis & 2 ? PFM_OFF : ev1,
		      ICCSR_PC1(iccsr) ? 1 << 8 : 1 << 12, true, true);
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

static int pfm_cfg_ev5(const struct pfm_file *pf, const struct pfm_regs *r,
		       struct pfm_cfg *cfg)
{
	static const u64 fast[PFM_NCTRS] = { 65536, 65536, 16384 };
	static const unsigned int fshift[PFM_NCTRS] = { 8, 6, 4 };
	u64 mux = r->ev5_mux, low1 = (mux >> 4) & 0xf, low2 = mux & 0xf;
	u8 ev[PFM_NCTRS];
	bool user, kernel;
	unsigned int i;
	int ret;

	ret = pfm_cfg_begin(pf, PFM_FAM_EV5, cfg);
	if (ret)
		return ret;
	if ((mux & ~EV5_MUX_VALID) || (r->ev5_freq & ~0x3f0ULL))
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
		unsigned int f = (r->ev5_freq >> fshift[i]) & 3;

		if (f == 1)
			return -EINVAL;
		if (f == 3 && !pfm_privileged())
			return -EPERM;
		if (f && r->ev5_mux_set && ev[i] == PFM_NA)
			return -EINVAL;
		pfm_cfg_event(cfg, i, f && r->ev5_mux_set ? ev[i] : PFM_OFF,
			      f == 3 ? 256 : fast[i], user, kernel);
	}
	return 0;
}

static int pfm_cfg_ev6(const struct pfm_file *pf, u64 mux, struct pfm_cfg *cfg)
{
	u8 ev0, ev1;
	int ret;

	ret = pfm_cfg_begin(pf, PFM_FAM_EV6, cfg);
	if (ret)
		return ret;
	if (mux & ~0x1fULL)
		return -EINVAL;
	if (pf->ev67) {
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
	pfm_cfg_event(cfg, 0, ev0, 1 << 20, true, true);
	pfm_cfg_event(cfg, 1, ev1, 1 << 20, true, true);
	return 0;
}

/* Rebuild the configuration of the current family with other registers. */
static int pfm_cfg_current(const struct pfm_file *pf, const struct pfm_regs *r,
			   bool logselect, unsigned long items, struct pfm_cfg *cfg)
{
	struct pfm_file tmp = *pf;
	int ret;

	tmp.cfg.logselect = logselect;
	tmp.items = items;
	switch (pf->cfg.family) {
	case PFM_FAM_EV4:
		ret = pfm_cfg_ev4(&tmp, r->iccsr, cfg);
		break;
	case PFM_FAM_EV5:
		ret = pfm_cfg_ev5(&tmp, r, cfg);
		break;
	case PFM_FAM_EV6:
		ret = pfm_cfg_ev6(&tmp, r->ev6_mux, cfg);
		break;
	default:
		*cfg = pf->cfg;
		cfg->sample = pfm_sampling(items);
		ret = 0;
	}
	cfg->logselect = logselect;
	return ret;
}

static bool pfm_cfg_equal(const struct pfm_cfg *a, const struct pfm_cfg *b)
{
	unsigned int i;

	if (a->family != b->family || a->logselect != b->logselect ||
	    a->sample != b->sample || a->on != b->on)
		return false;
	for (i = 0; i < PFM_NCTRS; i++) {
		const struct pmc_event_desc *x = &a->desc[i], *y = &b->desc[i];

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

/* Apply cfg unless it is what is counted already (PAPI sets the mux at every start). */
static int pfm_apply_changed(struct pfm_file *pf, const struct pfm_cfg *cfg)
{
	if (pfm_cfg_equal(cfg, &pf->cfg)) {
		pf->cfg.family = cfg->family;
		return 0;
	}
	if (!cfg->on && !pf->cfg.on) {
		pf->cfg = *cfg;
		return 0;
	}
	return pfm_apply(pf, cfg);
}

/* ---- LOGALL, LOGSELECT and the PME mark ------------------------------------- */

static bool pfm_tree_sets(const struct pfm_file *pf)
{
	return pf->cfg.logselect && pf->cfg.on;
}

/* Start or stop the root's own events (its mark) on every taken CPU. */
static int pfm_root_events(struct pfm_file *pf, bool on)
{
	unsigned int k;
	int ret;

	for (k = 0; k < pf->nslots && pfm_tree_sets(pf); k++) {
		if (!pf->slots[k].set)
			continue;
		if (!on) {
			pmc_set_stop(pf->slots[k].set);
			continue;
		}
		ret = pmc_set_start(pf->slots[k].set, pf->cfg.on);
		if (ret) {
			while (k--)
				if (pf->slots[k].set)
					pmc_set_stop(pf->slots[k].set);
			return pfm_perf_error(ret);
		}
	}
	return 0;
}

/*
 * Mark (or unmark) the caller: it and what it creates from now on are
 * counted.  One marked process per open: the first LOGSELECT's caller (the
 * root), and the threads and children it creates once counters are set up.
 * Another process's LOGSELECT is refused (EBUSY) unless nobody is marked
 * and no counters follow a process yet.
 */
static int pfm_mark(struct pfm_file *pf, bool on)
{
	unsigned int k;
	int ret = 0;

	if (pf->root == current) {
		if (pf->root_marked == on)
			return 0;
		ret = pfm_root_events(pf, on);
		if (!ret)
			pf->root_marked = on;
		return ret;
	}
	if (!pf->root || (!pfm_tree_sets(pf) && !pf->root_marked)) {
		if (!on)
			return 0;
		if (pf->root)
			put_task_struct(pf->root);
		pf->root = get_task_struct(current);
		pf->root_marked = true;
		return 0;
	}
	if (!pfm_tree_sets(pf))
		return on ? -EBUSY : 0;
	/* A thread or child of the root: its own copies. */
	for (k = 0; k < pf->nslots; k++)
		if (pf->slots[k].set && pmc_set_mark_own(pf->slots[k].set, on))
			ret = -EBUSY;
	return on ? ret : 0;
}

/* Do threads other than the root count (copies made at their creation)? */
static bool pfm_has_copies(struct pfm_file *pf)
{
	unsigned int k;

	for (k = 0; k < pf->nslots && pfm_tree_sets(pf); k++)
		if (pf->slots[k].set && pmc_set_has_copies(pf->slots[k].set))
			return true;
	return false;
}

/*
 * Count what cfg says (LOGALL or LOGSELECT included) and mark the caller if
 * asked, all or nothing.  LOGSELECT without a marked process yet follows
 * the caller, unmarked until it is marked.  perf gives a thread copies of
 * a process's events only when it is created, so new events would not
 * reach the threads and children counted so far: a change of what a
 * process tree counts is refused (EBUSY) while they live (LOGALL, which
 * counts them anyway, is not).
 */
static int pfm_switch(struct pfm_file *pf, const struct pfm_cfg *cfg, bool mark)
{
	struct task_struct *old_root = pf->root;
	bool old_marked = pf->root_marked;
	int ret = 0;

	if (pfm_tree_sets(pf) && cfg->logselect && !pfm_cfg_equal(cfg, &pf->cfg) &&
	    pfm_has_copies(pf))
		return -EBUSY;
	if (old_root)
		get_task_struct(old_root);
	if (mark) {
		ret = pfm_mark(pf, true);
	} else if (cfg->logselect && !pf->root) {
		pf->root = get_task_struct(current);
		pf->root_marked = false;
	}
	if (!ret)
		ret = pfm_apply_changed(pf, cfg);
	if (ret && pf->root != old_root) {
		/* The caller became the root: the old one comes back. */
		if (pf->root)
			put_task_struct(pf->root);
		pf->root = old_root;
		pf->root_marked = old_marked;
		return ret;
	}
	if (ret && pf->root_marked != old_marked)
		pfm_mark(pf, old_marked);
	if (old_root)
		put_task_struct(old_root);
	return ret;
}

static int pfm_select(struct pfm_file *pf, bool logselect, bool mark)
{
	struct pfm_cfg cfg;
	int ret;

	ret = pfm_cfg_current(pf, &pf->regs, logselect, pf->items, &cfg);
	if (ret)
		return ret;
	ret = pfm_switch(pf, &cfg, mark);
	if (ret)
		return ret;
	return pfm_update(pf);
}

/* ---- requests ------------------------------------------------------------------ */

static int pfm_get_long(void __user *argp, bool compat, s64 *v)
{
	if (compat) {
		u32 v32;	/* register images: PF5_MUX0_ISSUES is bit 31 */

		if (get_user(v32, (u32 __user *)argp))
			return -EFAULT;
		*v = v32;
		return 0;
	}
	return get_user(*v, (s64 __user *)argp) ? -EFAULT : 0;
}

/* The array pointer that the "struct X *" requests take the address of. */
static int pfm_get_array(void __user *argp, bool compat, void __user **array)
{
	if (compat) {
		compat_uptr_t p;

		if (get_user(p, (compat_uptr_t __user *)argp))
			return -EFAULT;
		*array = compat_ptr(p);
		return 0;
	}
	return get_user(*array, (void __user * __user *)argp) ? -EFAULT : 0;
}

/* Copy n entries out, or nothing: EFAULT when the caller cannot hold them all. */
static int pfm_copy_array(void __user *argp, bool compat, const void *buf, size_t size)
{
	void __user *array;
	int ret;

	ret = pfm_get_array(argp, compat, &array);
	if (ret)
		return ret;
	if (!access_ok(array, size) || fault_in_safe_writeable(array, size))
		return -EFAULT;
	return copy_to_user(array, buf, size) ? -EFAULT : 0;
}

static int pfm_getcnt(struct pfm_file *pf, unsigned int cmd, void __user *argp,
		      bool compat)
{
	enum pfm_family fam = cmd == PCNTGETCNT ? PFM_FAM_EV4 :
			      (cmd == PCNT5GETCNT || cmd == PCNT5READCNTRS) ?
			      PFM_FAM_EV5 : PFM_FAM_EV6;
	bool full = cmd == PCNT5READCNTRS || cmd == PCNT6READCNTRS;
	u64 cycles = rdtsc_ordered() - pf->tsc_clear;
	struct pfm_count *c;
	unsigned int n, k;
	size_t size, esize;
	u64 *buf, *e;
	int ret;

	if (pf->cfg.family != PFM_FAM_NONE && pf->cfg.family != fam)
		return -EINVAL;
	if (!(pf->items & PFM_COUNTERS))
		return -EINVAL;
	c = kcalloc(pf->nslots, sizeof(*c), GFP_KERNEL);
	esize = fam == PFM_FAM_EV5 ? sizeof(struct pfcntrs_ev5) : sizeof(struct pfcntrs_ev6);
	buf = kcalloc(pf->nslots, esize, GFP_KERNEL);
	ret = -ENOMEM;
	if (!c || !buf)
		goto out;
	ret = pfm_counts(pf, c, &n);
	if (ret)
		goto out;
	for (k = 0; k < n; k++) {
		const u64 *val = full ? c[k].full : c[k].ticks;

		e = (u64 *)((char *)buf + k * esize);
		switch (fam) {
		case PFM_FAM_EV4: {
			struct pfcntrs *p = (struct pfcntrs *)e;

			p->pf_cntr0 = val[0];
			p->pf_cntr1 = val[1];
			p->pr_cycle = cycles;
			break;
		}
		case PFM_FAM_EV5: {
			struct pfcntrs_ev5 *p = (struct pfcntrs_ev5 *)e;

			p->pr_cycle = cycles;
			p->pf_cntr0 = val[0];
			p->pf_cntr1 = val[1];
			p->pf_cntr2 = val[2];
			break;
		}
		default: {
			struct pfcntrs_ev6 *p = (struct pfcntrs_ev6 *)e;

			p->pr_cycle = cycles;
			p->pf_cntr0 = val[0];
			p->pf_cntr1 = val[1];
			break;
		}
		}
	}
	size = n * esize;
	ret = pfm_copy_array(argp, compat, buf, size);
out:
	kfree(buf);
	kfree(c);
	return ret;
}

static int pfm_getiplhis(struct pfm_file *pf, void __user *argp, bool compat)
{
	unsigned int n = pf->mode == PCNTOPENEACH ? pf->nslots : 1, k, e;
	struct pfipls *buf;
	int ret;

	if (!(pf->items & PFM_IPL))
		return -EINVAL;
	buf = kcalloc(n, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (k = 0; k < pf->nslots; k++) {
		int cpu = pfm_slot_cpu(pf, k);
		struct pfipls *d = &buf[pf->mode == PCNTOPENEACH ? k : 0];

		if (!cpu_possible(cpu))
			continue;
		for (e = 0; e < PFM_NIPL; e++)
			d->ipl[e] += atomic64_read(&per_cpu_ptr(pf->ipl, cpu)->ipl[e]);
	}
	ret = pfm_copy_array(argp, compat, buf, n * sizeof(*buf));
	kfree(buf);
	return ret;
}

static int pfm_clearcnt(struct pfm_file *pf)
{
	unsigned int k, i, e;
	int cpu, ret;

	if (!(pf->items & (PFM_COUNTERS | PFM_IPL)))
		return -EINVAL;
	if (pf->items & PFM_COUNTERS) {
		struct pfm_count *all = kcalloc(pf->nslots, sizeof(*all), GFP_KERNEL);

		if (!all)
			return -ENOMEM;
		for (k = 0, ret = 0; k < pf->nslots && !ret; k++)
			ret = pfm_count_slot(pf, k, &all[k]);
		for (k = 0; k < pf->nslots && !ret; k++)
			for (i = 0; i < PFM_NCTRS; i++)
				pf->slots[k].ticks_adj[i] -= all[k].ticks[i];
		kfree(all);
		if (ret)
			return ret;
		pf->tsc_clear = rdtsc_ordered();
	}
	if (pf->items & PFM_IPL)
		for_each_possible_cpu(cpu)
			for (e = 0; e < PFM_NIPL; e++)
				atomic64_set(&per_cpu_ptr(pf->ipl, cpu)->ipl[e], 0);
	return 0;
}

/* The slots an image's cpu field selects: [*first, *last). */
static int pfm_image_cpus(const struct pfm_file *pf, unsigned int cpu,
			  unsigned int *first, unsigned int *last)
{
	if (cpu == PMCTRS_ALL_CPUS) {
		*first = 0;
		*last = pf->nslots;
		return 0;
	}
	if (pf->mode == PCNTOPENONE) {
		if (cpu != pf->cpu)
			return -EINVAL;
		*first = 0;
	} else {
		if (cpu >= pf->nslots || !cpu_possible(cpu))
			return -EINVAL;
		*first = cpu;
	}
	*last = *first + 1;
	return 0;
}

/* PCNT5* and PCNT6* requests that take a union pmctrs_ev5/ev6 image. */
static int pfm_image_request(struct pfm_file *pf, unsigned int op, bool ev5,
			     u64 __user *argp)
{
	const struct pfm_image *img = ev5 ? &pfm_image_ev5 : &pfm_image_ev6;
	enum pfm_family fam = ev5 ? PFM_FAM_EV5 : PFM_FAM_EV6;
	unsigned int nctrs = ev5 ? 3 : 2, first, last, k, i;
	unsigned long sel, old_sel = pf->sel_en;
	bool old_on = pf->intr_on;
	u64 image, (*cur)[PFM_NCTRS];
	int ret;

	if (get_user(image, argp))
		return -EFAULT;
	if (pf->cfg.family != PFM_FAM_NONE && pf->cfg.family != fam)
		return -EINVAL;
	sel = image & GENMASK(img->sel_bits - 1, 0);
	ret = pfm_image_cpus(pf, (image >> img->cpu_shift) & 0xff, &first, &last);
	if (ret)
		return ret;

	if (op == 48 || op == 58) {		/* GETCNTRS */
		struct pfm_count c;

		if (first + 1 != last)
			return -EINVAL;
		ret = pfm_count_slot(pf, first, &c);
		if (ret)
			return ret;
		for (i = 0; i < nctrs; i++) {
			u64 mask = GENMASK_ULL(img->width[i] - 1, 0);

			image &= ~(mask << img->shift[i]);
			image |= (c.raw[i] & mask) << img->shift[i];
		}
		return put_user(image, argp) ? -EFAULT : 0;
	}

	switch (op) {
	case 43: case 53:			/* DISABLE */
		pf->sel_en &= ~sel;
		break;
	case 44: case 54:			/* ENABLE */
		pf->sel_en |= sel;
		pf->intr_on = true;
		break;
	case 45: case 55:			/* CLEAR */
	case 46: case 56:			/* RESTART */
	case 47: case 57:			/* SETCNTRS */
	case 52:				/* ENABWRITE */
		cur = kcalloc(last - first, sizeof(*cur), GFP_KERNEL);
		if (!cur)
			return -ENOMEM;
		for (k = first, ret = 0; k < last && !ret; k++)
			ret = pfm_values(pf, k, cur[k - first]);
		for (k = first; k < last && !ret; k++) {
			for_each_set_bit(i, &sel, nctrs) {
				u64 val = 0;

				if (op == 47 || op == 57 || op == 52)
					val = (image >> img->shift[i]) &
					      GENMASK_ULL(img->width[i] - 1, 0);
				pfm_write_hw(pf, k, i, cur[k - first][i], val);
			}
		}
		kfree(cur);
		if (ret)
			return ret;
		if (op == 46 || op == 56 || op == 52) {
			pf->sel_en |= sel;
			pf->intr_on = true;
		}
		break;
	default:
		return -EINVAL;
	}
	ret = pfm_update(pf);
	if (ret) {
		pf->sel_en = old_sel;
		pf->intr_on = old_on;
	}
	return ret;
}

static int pfm_set_enable(struct pfm_file *pf, bool on)
{
	bool old = pf->intr_on;
	int ret;

	pf->intr_on = on;
	ret = pfm_update(pf);
	if (ret)
		pf->intr_on = old;
	return ret;
}

static int pfm_mux(struct pfm_file *pf, unsigned int cmd, void __user *argp,
		   bool compat)
{
	struct pfm_regs r = pf->regs;
	unsigned long old_sel = pf->sel_en;
	struct pfm_cfg cfg;
	s64 v = 0;
	bool mark = false, logselect = pf->cfg.logselect;
	int ret;

	if (cmd == PCNTSETMUX) {
		if (copy_from_user(&r.iccsr, argp, sizeof(r.iccsr)))
			return -EFAULT;
	} else {
		ret = pfm_get_long(argp, compat, &v);
		if (ret)
			return ret;
	}
	switch (cmd) {
	case PCNTSETMUX:
		ret = pfm_cfg_ev4(pf, r.iccsr, &cfg);
		break;
	case PCNT5MUX:
		r.ev5_mux = v;
		r.ev5_mux_set = true;
		ret = pfm_cfg_ev5(pf, &r, &cfg);
		break;
	case PCNT5FREQ:
		r.ev5_freq = v;
		ret = pfm_cfg_ev5(pf, &r, &cfg);
		break;
	case PCNT5CTXTS:
		r.ev5_ctxts = v;
		logselect = v & PF5_CTXT_SEL_PROC;
		mark = v & PF5_CTXT_PME_THIS;
		ret = pfm_cfg_ev5(pf, &r, &cfg);
		break;
	default:
		r.ev6_mux = v;
		ret = pfm_cfg_ev6(pf, r.ev6_mux, &cfg);
	}
	if (ret)
		return ret;
	if (cmd == PCNTSETMUX) {
		/* iccsr_disable bits: counters that do not collect. */
		pf->sel_en = ~ICCSR_DISABLE(r.iccsr) & 3;
	}
	cfg.logselect = logselect;
	ret = pfm_switch(pf, &cfg, mark);
	if (ret)
		goto fail;
	pf->regs = r;
	return pfm_update(pf);
fail:
	pf->sel_en = old_sel;
	return ret;
}

static int pfm_setitems(struct pfm_file *pf, void __user *argp, bool compat)
{
	s64 v;
	int ret;

	ret = pfm_get_long(argp, compat, &v);
	if (ret)
		return ret;
	/* EV67 profile-me statistics are not available on x86. */
	if (!v || (v & ~(s64)PFM_MASK))
		return -EINVAL;
	if (pfm_kprof_on(pf, v) && !pfm_kprof_on(pf, pf->items) && pfm_kprof_access())
		return -EPERM;
	/* Interrupts on or off: the counters are made again (counts kept). */
	if (pfm_sampling(v) != pf->cfg.sample) {
		struct pfm_cfg cfg;

		ret = pfm_cfg_current(pf, &pf->regs, pf->cfg.logselect, v, &cfg);
		if (!ret)
			ret = pfm_switch(pf, &cfg, false);
		if (ret)
			return ret;
	}
	WRITE_ONCE(pf->items, v);
	return 0;
}

/* ---- PC profiling ------------------------------------------------------------ */

static struct pfm_prof *pfm_prof(const struct pfm_file *pf)
{
	return rcu_dereference_protected(pf->prof, lockdep_is_held(&pf->lock));
}

static void pfm_prof_free(struct pfm_prof *p)
{
	unsigned int k;

	if (!p)
		return;
	for (k = 0; k < p->nslots; k++)
		kvfree(p->buckets[k]);
	kfree(p);
}

/*
 * Kernel text addresses are secrets under KASLR.  Kernel profiling needs
 * what perf needs to sample kernel mode, and a capability that shows
 * kernel addresses (kptr_restrict is not visible to modules: at paranoid
 * 1 or less this is stricter than perf, never looser).
 */
static int pfm_kprof_access(void)
{
	if (!capable(CAP_PERFMON) && !capable(CAP_SYSLOG) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	return pmc_access_check(PMC_ACCESS_KERNEL, NULL) ? -EPERM : 0;
}

/* Kernel PCs are being profiled (or would be, with these items). */
static bool pfm_kprof_on(const struct pfm_file *pf, unsigned long items)
{
	struct pfm_prof *p = pfm_prof(pf);

	return p && p->kernel && (items & PFM_PROFILING);
}

/* The profile's bytes for read(2): 0 unless profiling is set up and on. */
static size_t pfm_rsize(const struct pfm_file *pf)
{
	struct pfm_prof *p = pfm_prof(pf);

	if (!p || !(pf->items & PFM_PROFILING))
		return 0;
	return p->nbuckets * sizeof(u32) * (pf->mode == PCNTOPENEACH ? p->nslots : 1);
}

/* x86-64's kernel image and module area: where kernel text lives. */
static bool pfm_kernel_text(u64 start, u64 end)
{
	return start >= __START_KERNEL_map && end <= MODULES_END;
}

static int pfm_get_range(void __user *argp, bool with_stride, u64 *start,
			 u64 *end, u64 *stride)
{
	addr_range_t r = {};

	if (copy_from_user(&r, argp, with_stride ? sizeof(r) : sizeof(struct addr_range)))
		return -EFAULT;
	*start = r.start;
	*end = r.end;
	if (with_stride)
		*stride = r.stride;
	return 0;
}

static struct pfm_prof *pfm_prof_alloc(const struct pfm_file *pf, bool kernel,
				       u64 start, u64 end, u64 stride)
{
	unsigned int shift = stride ? ilog2(stride) + ilog2(PFM_INSN_BYTES) : 0;
	unsigned int nslots = pf->nslots, k;
	struct pfm_prof *p;
	size_t nbuckets;

	if (!stride || shift >= BITS_PER_LONG)
		nbuckets = 1;
	else
		nbuckets = ((end - start - 1) >> shift) + 1;
	if (nbuckets > PFM_PROF_MAX / sizeof(u32) ||
	    nbuckets * sizeof(u32) * nslots > PFM_PROF_MAX_TOTAL)
		return ERR_PTR(-ENOMEM);
	p = kzalloc(struct_size(p, buckets, nslots), GFP_KERNEL_ACCOUNT);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->nslots = nslots;
	for (k = 0; k < nslots; k++) {
		p->buckets[k] = kvcalloc(nbuckets, sizeof(atomic_t),
					 GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!p->buckets[k]) {
			pfm_prof_free(p);
			return ERR_PTR(-ENOMEM);
		}
	}
	p->kernel = kernel;
	p->whole = nbuckets == 1 && (!stride || shift >= BITS_PER_LONG);
	p->shift = shift;
	p->range.start = start;
	p->range.end = end;
	p->nbuckets = nbuckets;
	return p;
}

/*
 * PCNTSETUADDR/URANGE/KADDR/KRANGE: a new profile, zeroed, replaces the
 * old one; or, after PCNTCALLER, a kernel range is one more routine whose
 * samples go to its caller.
 */
static int pfm_set_range(struct pfm_file *pf, unsigned int cmd, void __user *argp)
{
	bool kernel = cmd == PCNTSETKADDR || cmd == PCNTSETKRANGE;
	bool with_stride = cmd == PCNTSETURANGE || cmd == PCNTSETKRANGE;
	struct pfm_prof *old = pfm_prof(pf), *p;
	u64 start, end, stride = pf->stride;
	int ret;

	ret = pfm_get_range(argp, with_stride, &start, &end, &stride);
	if (ret)
		return ret;
	if (!(pf->items & PFM_PROFILING))
		return -EINVAL;
	if (kernel) {
		ret = pfm_kprof_access();
		if (ret)
			return ret;
	}
	if (old && old->kernel && old->caller && kernel) {
		unsigned int n = old->ncallers;

		if (start >= end || !pfm_kernel_text(start, end))
			return -EFAULT;
		if (n == PFM_NCALLERS)
			return -ENOSPC;
		old->callers[n].start = start;
		old->callers[n].end = end;
		/* The entry before the count that shows it to interrupts. */
		smp_store_release(&old->ncallers, n + 1);
		return 0;
	}
	if ((stride && !is_power_of_2(stride)) || stride > PFM_STRIDE_MAX ||
	    start >= end)
		return -EINVAL;
	if (kernel ? !pfm_kernel_text(start, end) : end > TASK_SIZE_MAX)
		return -EFAULT;
	p = pfm_prof_alloc(pf, kernel, start, end, stride);
	if (IS_ERR(p))
		return PTR_ERR(p);
	rcu_assign_pointer(pf->prof, p);
	pf->stride = stride;
	if (old) {
		synchronize_rcu();	/* no interrupt writes the old buckets */
		pfm_prof_free(old);
	}
	return 0;
}

static int pfm_profiling(struct pfm_file *pf, unsigned int cmd, void __user *argp,
			 bool compat)
{
	struct pfm_prof *p = pfm_prof(pf);
	size_t size;

	switch (cmd) {
	case PCNTGETRSIZE:
		size = pfm_rsize(pf);
		if (compat)
			return put_user(size, (s32 __user *)argp) ? -EFAULT : 0;
		return put_user(size, (long __user *)argp) ? -EFAULT : 0;
	case PCNTCALLER:
		if (!p || !p->kernel || !(pf->items & PFM_PROFILING))
			return -EINVAL;		/* kernel profiling is not on */
		WRITE_ONCE(p->caller, true);
		return 0;
	default:
		return pfm_set_range(pf, cmd, argp);
	}
}

/*
 * read(2): the profile as a file of pfm_rsize() bytes: the buckets of the
 * CPU (ONE), of every CPU one after another (EACH), or their sums (ALL).
 */
static u32 pfm_bucket(const struct pfm_file *pf, const struct pfm_prof *p, size_t w)
{
	unsigned int k;
	u32 v, sum = 0;

	if (pf->mode == PCNTOPENEACH)
		return atomic_read(&p->buckets[w / p->nbuckets][w % p->nbuckets]);
	for (k = 0; k < p->nslots; k++) {
		v = atomic_read(&p->buckets[k][w]);
		sum = v > U32_MAX - sum ? U32_MAX : sum + v;
	}
	return sum;
}

static ssize_t pfm_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct pfm_file *pf = file->private_data;
	size_t size, done = 0, n, w0, nw, i;
	struct pfm_prof *p;
	loff_t pos = *ppos;
	u32 *words;
	ssize_t ret = 0;

	if (pos < 0)
		return -EINVAL;
	words = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!words)
		return -ENOMEM;
	mutex_lock(&pf->lock);
	p = pfm_prof(pf);
	size = pfm_rsize(pf);
	if (pos >= size)
		goto out;
	count = min_t(size_t, count, size - pos);
	while (done < count) {
		size_t off = (pos + done) % sizeof(u32);

		n = min_t(size_t, count - done, PAGE_SIZE - sizeof(u32));
		w0 = (pos + done) / sizeof(u32);
		nw = DIV_ROUND_UP(off + n, sizeof(u32));
		for (i = 0; i < nw; i++)
			words[i] = pfm_bucket(pf, p, w0 + i);
		if (copy_to_user(buf + done, (char *)words + off, n)) {
			if (!done)
				ret = -EFAULT;
			break;
		}
		done += n;
	}
	*ppos = pos + done;
out:
	mutex_unlock(&pf->lock);
	kfree(words);
	return ret ? ret : done;
}

static loff_t pfm_llseek(struct file *file, loff_t offset, int whence)
{
	struct pfm_file *pf = file->private_data;
	loff_t ret;

	mutex_lock(&pf->lock);
	ret = fixed_size_llseek(file, offset, whence, pfm_rsize(pf));
	mutex_unlock(&pf->lock);
	return ret;
}

static long pfm_request(struct file *file, unsigned int cmd, void __user *argp,
			bool compat)
{
	struct pfm_file *pf = file->private_data;
	long ret;

	if (_IOC_TYPE(cmd) != 'P')
		return -ENOTTY;
	mutex_lock(&pf->lock);
	switch (cmd) {
	case PCNTRDISABLE:
		ret = pfm_set_enable(pf, false);
		break;
	case PCNTRENABLE:
		ret = pfm_set_enable(pf, true);
		break;
	case PCNTLOGALL:
		ret = pfm_select(pf, false, false);
		break;
	case PCNTLOGSELECT:
		ret = pfm_select(pf, true, true);
		break;
	case PCNTCLEARPCBPME:
		ret = pfm_mark(pf, false);
		break;
	case PCNTCLEARCNT:
		ret = pfm_clearcnt(pf);
		break;
	case PCNTSETITEMS:
		ret = pfm_setitems(pf, argp, compat);
		break;
	case PCNTSETMUX:
	case PCNT5MUX:
	case PCNT5FREQ:
	case PCNT5CTXTS:
	case PCNT6MUX:
		ret = pfm_mux(pf, cmd, argp, compat);
		break;
	case PCNTGETCNT:
	case PCNT5GETCNT:
	case PCNT5READCNTRS:
	case PCNT6GETCNT:
	case PCNT6READCNTRS:
		ret = pfm_getcnt(pf, cmd, argp, compat);
		break;
	case PCNTGETIPLHIS:
		ret = pfm_getiplhis(pf, argp, compat);
		break;
	case PCNT5DISABLE: case PCNT5ENABLE: case PCNT5CLEAR:
	case PCNT5RESTART: case PCNT5SETCNTRS: case PCNT5GETCNTRS:
		ret = pfm_image_request(pf, _IOC_NR(cmd), true, argp);
		break;
	case PCNT6ENABWRITE: case PCNT6DISABLE: case PCNT6ENABLE:
	case PCNT6CLEAR: case PCNT6RESTART: case PCNT6SETCNTRS:
	case PCNT6GETCNTRS:
		ret = pfm_image_request(pf, _IOC_NR(cmd), false, argp);
		break;
	case PCNTGETRSIZE:
	case PCNTCALLER:
	case PCNTSETUADDR:
	case PCNTSETKADDR:
	case PCNTSETURANGE:
	case PCNTSETKRANGE:
		ret = pfm_profiling(pf, cmd, argp, compat);
		break;
	default:
		ret = -EINVAL;		/* Tru64's driver: unknown requests */
	}
	mutex_unlock(&pf->lock);
	return ret;
}

static long pfm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return pfm_request(file, cmd, (void __user *)arg, false);
}

#ifdef CONFIG_COMPAT
/*
 * 32-bit programs: requests typed "long" or "struct X *" carry size 4; the
 * argument is a 32-bit long or pointer.  The register images stay 64-bit.
 */
static long pfm_compat_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (_IOC_TYPE(cmd) == 'P' && _IOC_SIZE(cmd) == 4) {
		unsigned int native = (cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
				      (8 << _IOC_SIZESHIFT);

		switch (native) {
		case PCNTGETCNT: case PCNTGETRSIZE: case PCNTGETIPLHIS:
		case PCNTSETITEMS: case PCNT5CTXTS: case PCNT5MUX: case PCNT5FREQ:
		case PCNT5DISABLE: case PCNT5ENABLE: case PCNT5CLEAR:
		case PCNT5RESTART: case PCNT5SETCNTRS: case PCNT5GETCNTRS:
		case PCNT5GETCNT: case PCNT5READCNTRS: case PCNT6MUX:
		case PCNT6ENABWRITE: case PCNT6DISABLE: case PCNT6ENABLE:
		case PCNT6CLEAR: case PCNT6RESTART: case PCNT6SETCNTRS:
		case PCNT6GETCNTRS: case PCNT6GETCNT: case PCNT6READCNTRS:
			return pfm_request(file, native, compat_ptr(arg), true);
		}
	}
	return pfm_request(file, cmd, compat_ptr(arg), true);
}
#endif

/* ---- open and close ------------------------------------------------------------ */

static int pfm_take_cpus(unsigned int mode, int cpu)
{
	int ret = 0;

	spin_lock(&pfm_cpus_lock);
	if (mode == PCNTOPENONE) {
		if (cpumask_test_cpu(cpu, &pfm_cpus_taken))
			ret = -EBUSY;
		else
			cpumask_set_cpu(cpu, &pfm_cpus_taken);
	} else if (!cpumask_empty(&pfm_cpus_taken)) {
		ret = -EBUSY;
	} else {
		cpumask_copy(&pfm_cpus_taken, cpu_possible_mask);
	}
	spin_unlock(&pfm_cpus_lock);
	return ret;
}

static void pfm_release_cpus(unsigned int mode, int cpu)
{
	spin_lock(&pfm_cpus_lock);
	if (mode == PCNTOPENONE)
		cpumask_clear_cpu(cpu, &pfm_cpus_taken);
	else
		cpumask_clear(&pfm_cpus_taken);
	spin_unlock(&pfm_cpus_lock);
}

static int pfm_open(struct inode *inode, struct file *file)
{
	unsigned int mode = file->f_flags & PCNTOPENMASK;
	struct pfm_file *pf;
	int cpu = -1, ret;

	if (!pmc_hw_pmu_present())
		return -ENXIO;
	if (!mode)
		mode = PCNTOPENONE;
	if (mode == PCNTOPENONE) {
		/* The caller must be bound to the one CPU it opens. */
		if (cpumask_weight(current->cpus_ptr) != 1)
			return -EINVAL;
		cpu = cpumask_first(current->cpus_ptr);
	}
	ret = pfm_take_cpus(mode, cpu);
	if (ret)
		return ret;

	ret = -ENOMEM;
	pf = kzalloc(sizeof(*pf), GFP_KERNEL_ACCOUNT);
	if (!pf)
		goto err_cpus;
	mutex_init(&pf->lock);
	pf->mode = mode;
	pf->cpu = cpu;
	pf->nslots = mode == PCNTOPENONE ? 1 : nr_cpu_ids;
	pf->slots = kcalloc(pf->nslots, sizeof(*pf->slots), GFP_KERNEL_ACCOUNT);
	pf->ipl = alloc_percpu_gfp(struct pfm_ipl, GFP_KERNEL_ACCOUNT);
	if (!pf->slots || !pf->ipl)
		goto err_free;
	pf->ev67 = READ_ONCE(pfm_ev67);
	pf->items = PFM_COUNTERS;
	pf->regs.ev5_freq = EV5_FREQ_DEFAULT;
	pf->stride = PFM_STRIDE_DEFAULT;
	pf->sel_en = GENMASK(PFM_NCTRS - 1, 0);
	pfm_cfg_init(&pf->cfg);
	pf->tsc_clear = rdtsc_ordered();
	file->private_data = pf;
	return 0;

err_free:
	free_percpu(pf->ipl);
	kfree(pf->slots);
	kfree(pf);
err_cpus:
	pfm_release_cpus(mode, cpu);
	return ret;
}

static int pfm_release(struct inode *inode, struct file *file)
{
	struct pfm_file *pf = file->private_data;
	bool had_sets = false;
	unsigned int k;

	for (k = 0; k < pf->nslots; k++) {
		had_sets |= !!pf->slots[k].set;
		pmc_set_destroy(pf->slots[k].set);
	}
	/* A tick handler still running on another CPU (NMI) reads pf. */
	if (had_sets)
		synchronize_rcu();
	if (pf->root)
		put_task_struct(pf->root);
	/* After the sets: no interrupt reads the profile any more. */
	pfm_prof_free(rcu_dereference_protected(pf->prof, true));
	pfm_release_cpus(pf->mode, pf->cpu);
	free_percpu(pf->ipl);
	kfree(pf->slots);
	mutex_destroy(&pf->lock);
	kfree(pf);
	return 0;
}

static const struct file_operations pfm_fops = {
	.owner		= THIS_MODULE,
	.open		= pfm_open,
	.release	= pfm_release,
	.unlocked_ioctl	= pfm_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= pfm_compat_ioctl,
#endif
	.read		= pfm_read,
	.llseek		= pfm_llseek,
};

static struct miscdevice pfm_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "pfcntr",
	.fops	= &pfm_fops,
	.mode	= 0640,
};

/* The PCNTCALLER routines' extents, from kallsyms ("name+0x0/0xsize"). */
static void pfm_find_callees(void)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long size;
	unsigned int i;
	char *slash;

	for (i = 0; i < ARRAY_SIZE(pfm_callee_fns); i++) {
		unsigned long start = (unsigned long)pfm_callee_fns[i];

		sprint_symbol(sym, start);
		slash = strchr(sym, '/');
		if (!slash || sscanf(slash + 1, "%lx", &size) != 1 || !size)
			continue;
		pfm_callees[pfm_ncallees].start = start;
		pfm_callees[pfm_ncallees].end = start + size;
		pfm_ncallees++;
	}
}

int pfcntr_init(void)
{
	pfm_find_callees();
	return misc_register(&pfm_misc);
}

void pfcntr_exit(void)
{
	misc_deregister(&pfm_misc);
}
