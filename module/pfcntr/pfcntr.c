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
 * CLEARCNT, which is what a Tru64 counter's interrupts numbered.  Without
 * PFM_IPL and PFM_PROFILING the events never interrupt and every count is
 * exact.  With them the events sample, and perf throttles an event whose
 * interrupts come faster than perf_event_max_sample_rate allows: it stops
 * the event until the next timer tick, and what it would have counted
 * meanwhile is missing from GETCNT and READCNTRS too.  At EV4's default
 * rates (an interrupt every 2^12 events) a busy cycles or instructions
 * counter of a current processor is throttled; pfm(7) CAVEATS says so.
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
 *
 * This file is the device, its opens and their requests.  What the Alpha
 * registers count is translated in pfcntr_alpha.c; the core sets that
 * count it are made, started and stopped in pfcntr_sets.c, whose tick
 * callback feeds the IPL histogram; PC profiling (the samples, the buckets
 * and read(2)) is pfcntr_prof.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/cpumask.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/user_namespace.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <sys/pfcntr.h>

#include "pfcntr_internal.h"
#include "pmc_arch.h"
#include "pmc_core.h"
#include "frontend.h"

static bool pfm_ev67;
module_param_named(pfcntr_ev67, pfm_ev67, bool, 0644);
MODULE_PARM_DESC(pfcntr_ev67, "PCNT6MUX takes EV67 values (read at open)");

/* ---- values ---------------------------------------------------------------- */

/* Slot k's values: live for the counters of mask, frozen for the others. */
int pfm_values_of(struct pfm_file *pf, unsigned int k, unsigned long mask,
		  u64 *v)
{
	struct pfm_cpu *s = &pf->slots[k];
	u64 live[PFM_NCTRS] = {};	/* a set has PFM_NCTRS counters */
	unsigned int i;
	int ret = 0;

	if (s->set && (mask & pf->cfg.on))
		ret = pmc_set_read(s->set, PMC_READ_SUM, live, NULL);
	for (i = 0; i < PFM_NCTRS; i++)
		v[i] = (mask & BIT(i)) ? live[i] : s->frozen[i];
	return ret;
}

/* The counters' current values on slot k (frozen ones as frozen). */
int pfm_values(struct pfm_file *pf, unsigned int k, u64 *v)
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
		u64 q = div64_u64(hw, p);

		c->ticks[i] = s->ticks_adj[i] + q;
		c->full[i] = (u64)s->ticks_adj[i] * p + hw;
		c->raw[i] = hw - q * p;
	}
	return 0;
}

/*
 * Each slot's counts (EACH, into an array its caller zeroed: kvcalloc()),
 * or one entry: the CPU (ONE) or the sum (ALL).
 */
static int pfm_counts(struct pfm_file *pf, struct pfm_count *out, unsigned int *n)
{
	struct pfm_count c;
	unsigned int k, i;
	int ret;

	*n = pf->mode == PCNTOPENEACH ? pf->nslots : 1;
	if (pf->mode == PCNTOPENONE)	/* its one slot is its entry */
		return pfm_count_slot(pf, 0, out);
	if (*n == 1)	/* EACH's array comes zeroed from kvcalloc() */
		memset(out, 0, sizeof(*out));
	for (k = 0; k < pf->nslots; k++) {
		if (!pf->slots[k].set && !cpu_possible(k))
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

/* ---- the families' registers ------------------------------------------------ */

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

/*
 * The configuration that family fam's registers r make for this open
 * (pfcntr_alpha.c), with logselect and the items' interrupts.  The
 * caller's privilege is asked for only when a rate of 256 needs it, where
 * the translation stops with EPERM without it, and for kernel mode where
 * EV4 and EV6 would count it under LOGSELECT.
 */
static int pfm_translate(const struct pfm_file *pf, enum pfm_family fam,
			 const struct pfm_regs *r, bool logselect,
			 unsigned long items, struct pfm_cfg *cfg)
{
	struct pfm_alpha_ctx ctx = {
		.family = pf->cfg.family,
		.logselect = logselect,
		.sample = pfm_sampling(items),
		.ev67 = pf->ev67,
	};
	int ret;

	/*
	 * EV4 and EV6 have no mode bits and count kernel mode too; a caller
	 * who counts its own processes but may not count kernel mode (perf's
	 * rule) counts user mode only (pfm(7) DIFFERENCES).
	 */
	if (logselect && fam != PFM_FAM_EV5)
		ctx.user_only = !!pmc_access_check(PMC_ACCESS_KERNEL, NULL);
	ret = pfm_alpha_cfg(&ctx, fam, r, cfg);
	if (ret == -EPERM && pfm_privileged()) {
		ctx.privileged = true;
		ret = pfm_alpha_cfg(&ctx, fam, r, cfg);
	}
	return ret;
}

/* Rebuild the configuration of the current family with other registers. */
static int pfm_cfg_current(const struct pfm_file *pf, const struct pfm_regs *r,
			   bool logselect, unsigned long items, struct pfm_cfg *cfg)
{
	int ret = 0;

	if (pf->cfg.family != PFM_FAM_NONE) {
		ret = pfm_translate(pf, pf->cfg.family, r, logselect, items, cfg);
	} else {
		*cfg = pf->cfg;
		cfg->sample = pfm_sampling(items);
	}
	cfg->logselect = logselect;
	return ret;
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
		/* Counting starts again: with the caller's privilege of now. */
		if (on && pfm_tree_sets(pf))
			ret = pfm_access(pf, &pf->cfg);
		if (!ret)
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
	/*
	 * A thread or child of the root: its own copies.  A process without
	 * copies is not counted: it cannot be marked (EBUSY), and unmarking it
	 * changes nothing.  Any other failure is the caller's to know, and
	 * leaves the caller as it was on every CPU: the sets already switched,
	 * and the one that failed (which may have switched some copies before
	 * it found one missing), are switched back.  Their pins exist by then,
	 * so switching back needs no memory; a set that failed making its pin
	 * switched nothing.
	 */
	for (k = 0; k < pf->nslots && !ret; k++)
		if (pf->slots[k].set)
			ret = pmc_set_mark_own(pf->slots[k].set, on);
	if (ret == -ENOENT && !on)
		return 0;
	if (!ret)
		return 0;
	while (k--)
		if (pf->slots[k].set)
			pmc_set_mark_own(pf->slots[k].set, !on);
	return ret == -ENOENT ? -EBUSY : ret;
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

/*
 * Copy n entries out, or nothing: EFAULT when the caller cannot hold them
 * all.  Within one page a copy is all or nothing by itself (its first
 * write to the page faults or none does); an array over several pages is
 * faulted in writable first.
 */
static int pfm_copy_array(void __user *argp, bool compat, const void *buf, size_t size)
{
	void __user *array;
	int ret;

	ret = pfm_get_array(argp, compat, &array);
	if (ret)
		return ret;
	if (!access_ok(array, size))
		return -EFAULT;
	if (offset_in_page(array) + size > PAGE_SIZE &&
	    fault_in_safe_writeable(array, size))
		return -EFAULT;
	/* One entry (ONE, ALL) is small; EACH's whole array is not. */
	if (size <= sizeof(struct pfcntrs_ev5))
		return pmc_copy_out_small(array, buf, size);
	return copy_to_user(array, buf, size) ? -EFAULT : 0;
}

static int pfm_getcnt(struct pfm_file *pf, unsigned int cmd, void __user *argp,
		      bool compat)
{
	enum pfm_family fam = cmd == PCNTGETCNT ? PFM_FAM_EV4 :
			      (cmd == PCNT5GETCNT || cmd == PCNT5READCNTRS) ?
			      PFM_FAM_EV5 : PFM_FAM_EV6;
	bool full = cmd == PCNT5READCNTRS || cmd == PCNT6READCNTRS;
	bool each = pf->mode == PCNTOPENEACH;
	u64 cycles = pmc_arch_timestamp() - pf->tsc_clear;
	/* ONE and ALL return one entry: no allocation per read. */
	union {
		struct pfcntrs ev4;
		struct pfcntrs_ev5 ev5;
		struct pfcntrs_ev6 ev6;
	} one_buf = {};
	struct pfm_count one, *c = &one;
	unsigned int n, k;
	size_t size, esize;
	u64 *buf = (u64 *)&one_buf, *e;
	int ret;

	if (pf->cfg.family != PFM_FAM_NONE && pf->cfg.family != fam)
		return -EINVAL;
	if (!(pf->items & PFM_COUNTERS))
		return -EINVAL;
	BUILD_BUG_ON(sizeof(struct pfcntrs) != sizeof(struct pfcntrs_ev6));
	esize = fam == PFM_FAM_EV5 ? sizeof(struct pfcntrs_ev5) : sizeof(struct pfcntrs_ev6);
	if (each) {
		c = kvcalloc(pf->nslots, sizeof(*c), GFP_KERNEL);
		buf = kvcalloc(pf->nslots, esize, GFP_KERNEL);
		ret = -ENOMEM;
		if (!c || !buf)
			goto out;
	}
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
	if (each) {
		kvfree(buf);
		kvfree(c);
	}
	return ret;
}

static int pfm_getiplhis(struct pfm_file *pf, void __user *argp, bool compat)
{
	unsigned int n = pf->mode == PCNTOPENEACH ? pf->nslots : 1, k, e;
	struct pfipls *buf;
	int ret;

	if (!(pf->items & PFM_IPL))
		return -EINVAL;
	buf = kvcalloc(n, sizeof(*buf), GFP_KERNEL);
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
	kvfree(buf);
	return ret;
}

static int pfm_clearcnt(struct pfm_file *pf)
{
	unsigned int k, i, e;
	int cpu, ret;

	if (!(pf->items & (PFM_COUNTERS | PFM_IPL)))
		return -EINVAL;
	if (pf->items & PFM_COUNTERS) {
		struct pfm_count *all = kvcalloc(pf->nslots, sizeof(*all), GFP_KERNEL);

		if (!all)
			return -ENOMEM;
		for (k = 0, ret = 0; k < pf->nslots && !ret; k++)
			ret = pfm_count_slot(pf, k, &all[k]);
		for (k = 0; k < pf->nslots && !ret; k++)
			for (i = 0; i < PFM_NCTRS; i++)
				pf->slots[k].ticks_adj[i] -= all[k].ticks[i];
		kvfree(all);
		if (ret)
			return ret;
		pf->tsc_clear = pmc_arch_timestamp();
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

	/* EV5: a counter left at an unavailable event cannot be named. */
	if (op != 43 && (sel & pf->cfg.na))
		return -EINVAL;
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
		cur = kvcalloc(last - first, sizeof(*cur), GFP_KERNEL);
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
		kvfree(cur);
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
	enum pfm_family fam = PFM_FAM_EV5;
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
		fam = PFM_FAM_EV4;
		break;
	case PCNT5MUX:
		r.ev5_mux = v;
		r.ev5_mux_set = true;
		break;
	case PCNT5FREQ:
		r.ev5_freq = v;
		break;
	case PCNT5CTXTS:
		r.ev5_ctxts = v;
		logselect = v & PF5_CTXT_SEL_PROC;
		mark = v & PF5_CTXT_PME_THIS;
		break;
	default:
		r.ev6_mux = v;
		fam = PFM_FAM_EV6;
	}
	ret = pfm_translate(pf, fam, &r, pf->cfg.logselect, pf->items, &cfg);
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

static DEFINE_SPINLOCK(pfm_cpus_lock);
static struct cpumask pfm_cpus_taken;

/*
 * pfm(7): one open at a time, per CPU (ONE) or of every CPU (EACH, ALL);
 * the others get EBUSY.  That holds for openers who may count whole CPUs
 * (CAP_PERFMON, CAP_SYS_ADMIN): their CPUs are theirs (take).  Anyone else
 * may only count their own processes, which perf shares between users: such
 * an open takes nothing, so that no member of the device's group can lock
 * out root or another member, and fails only where a privileged open holds
 * the CPUs (!take).
 */
static int pfm_take_cpus(unsigned int mode, int cpu, bool take)
{
	int ret = 0;

	spin_lock(&pfm_cpus_lock);
	if (mode == PCNTOPENONE) {
		if (cpumask_test_cpu(cpu, &pfm_cpus_taken))
			ret = -EBUSY;
		else if (take)
			cpumask_set_cpu(cpu, &pfm_cpus_taken);
	} else if (!cpumask_empty(&pfm_cpus_taken)) {
		ret = -EBUSY;
	} else if (take) {
		cpumask_copy(&pfm_cpus_taken, cpu_possible_mask);
	}
	spin_unlock(&pfm_cpus_lock);
	return ret;
}

/* May the opener count whole CPUs?  No refusal is made of it: not audited. */
static bool pfm_cpu_wide_opener(void)
{
	return ns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||
	       ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
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
	bool exclusive;

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
	exclusive = pfm_cpu_wide_opener();
	ret = pfm_take_cpus(mode, cpu, exclusive);
	if (ret)
		return ret;

	ret = -ENOMEM;
	pf = kzalloc(sizeof(*pf), GFP_KERNEL_ACCOUNT);
	if (!pf)
		goto err_cpus;
	mutex_init(&pf->lock);
	pf->mode = mode;
	pf->cpu = cpu;
	pf->exclusive = exclusive;
	pf->nslots = mode == PCNTOPENONE ? 1 : nr_cpu_ids;
	pf->slots = kvcalloc(pf->nslots, sizeof(*pf->slots), GFP_KERNEL_ACCOUNT);
	pf->ipl = alloc_percpu_gfp(struct pfm_ipl, GFP_KERNEL_ACCOUNT);
	if (!pf->slots || !pf->ipl)
		goto err_free;
	pf->ev67 = READ_ONCE(pfm_ev67);
	pf->items = PFM_COUNTERS;
	pf->regs.ev5_freq = EV5_FREQ_DEFAULT;
	pf->stride = PFM_STRIDE_DEFAULT;
	pf->sel_en = GENMASK(PFM_NCTRS - 1, 0);
	pfm_cfg_init(&pf->cfg);
	pf->tsc_clear = pmc_arch_timestamp();
	file->private_data = pf;
	return 0;

err_free:
	free_percpu(pf->ipl);
	kvfree(pf->slots);
	kfree(pf);
err_cpus:
	if (exclusive)
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
	if (pf->exclusive)
		pfm_release_cpus(pf->mode, pf->cpu);
	free_percpu(pf->ipl);
	kvfree(pf->slots);
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

int __init pfcntr_init(void)
{
	pfm_find_callees();
	return misc_register(&pfm_misc);
}

void pfcntr_exit(void)
{
	misc_deregister(&pfm_misc);
}
