// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pfcntr: the counters of an open on the pmcompat counter core.
 *
 * A configuration (struct pfm_cfg, from pfcntr_alpha.c) becomes one core
 * set per taken CPU, made and swapped in all or nothing (pfm_apply()),
 * after the access checks of what it counts (whole CPUs, kernel mode,
 * another process).  pfm_update() brings the counters that record in line
 * with the enables.  The sets' tick callback, at every interrupt of a
 * recording counter, feeds the IPL histogram and the PC profile.
 *
 * Locking: all under pfm_file.lock (pfcntr.c), but the tick callback, which
 * runs in NMI context on real hardware.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/hardirq.h>
#include <linux/math64.h>
#include <linux/preempt.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <sys/pfcntr.h>

#include "pfcntr_internal.h"
#include "pmc_arch.h"
#include "pmc_core.h"

/* ---- interrupt time -------------------------------------------------------- */

/* The IPL histogram entry of an interrupted context (pfcntr_alpha.c). */
static unsigned int pfm_ipl_of(struct pt_regs *regs, bool *idle)
{
	unsigned long pc = preempt_count();
	struct pfm_ipl_ctx c = {
		.user = user_mode(regs),
		.hard = (pc & HARDIRQ_MASK) >> HARDIRQ_SHIFT,
		.nmi = (pc & NMI_MASK) >> NMI_SHIFT,
		.irqs_off = pmc_arch_irqs_off(regs),
		.softirq = in_serving_softirq(),
		.bh_off = softirq_count(),
		.idle_task = is_idle_task(current),
	};

	if (in_nmi()) {		/* nmi_enter() counts itself in both */
		c.nmi--;
		c.hard--;
	} else if (!PMC_ARCH_PMI_ALWAYS_NMI && c.hard) {
		c.hard--;	/* the counter interrupt itself, an ordinary one */
	}
	return pfm_ipl_entry(&c, idle);
}

static void pfm_tick(void *ctx, unsigned int idx, struct pt_regs *regs)
{
	struct pfm_file *pf = ctx;
	unsigned long items;
	struct pfm_ipl *h;
	unsigned int e;
	bool idle;

	if (!(READ_ONCE(pf->recording) & BIT(idx)))
		return;
	items = READ_ONCE(pf->items);
	if (items & PFM_IPL) {
		h = this_cpu_ptr(pf->ipl);
		e = pfm_ipl_of(regs, &idle);
		atomic64_inc(&h->ipl[e]);
		if (idle)
			atomic64_inc(&h->ipl[PFM_IPL_IDLE]);
	}
	if (items & PFM_PROFILING)
		pfm_sample(pf, regs);
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

static int pfm_lock_target(const struct pfm_file *pf, const struct pfm_cfg *cfg,
			   struct rw_semaphore **lock);
static void pfm_unlock_target(struct rw_semaphore *lock);

/*
 * Bring the counters that record in line with the enables.  Under LOGALL
 * the core starts and stops the CPUs' events; under LOGSELECT the events
 * keep counting (perf cannot stop the copies of a process tree) and only
 * the values freeze.  Counts made while frozen are given back.
 */
int pfm_update(struct pfm_file *pf)
{
	unsigned long want = pfm_want(pf), old = pf->recording;
	unsigned long on = want & ~old, off = old & ~want;
	struct rw_semaphore *lock;
	u64 v[PFM_NCTRS];
	unsigned int k, i;
	int ret;

	if (!on && !off)
		return 0;
	/* Counting starts on a configuration kept without its CPU events. */
	if (on && pf->deferred)
		return pfm_apply(pf, &pf->cfg);
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
	kvfree(sets);
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
int pfm_access(const struct pfm_file *pf, const struct pfm_cfg *cfg)
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
int pfm_perf_error(int ret)
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
		struct pmc_event_desc desc = {
			.type = cfg->desc[i].type,
			.config = cfg->desc[i].config,
			.exclude_user = cfg->desc[i].exclude_user,
			.exclude_kernel = cfg->desc[i].exclude_kernel,
			.tick_period = cfg->period[i],
		};

		ret = pmc_counter_program(set, i, &desc, 0,
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
 *
 * Under LOGALL, before anything records, a caller who may not count whole
 * CPUs gets the configuration without its events (pf->deferred): a Tru64
 * program may choose its events before PCNTLOGSELECT, in the open's
 * default LOGALL state.  The events are made, and the access asked again,
 * when counting starts (pfm_update()) or LOGSELECT comes.
 */
int pfm_apply(struct pfm_file *pf, const struct pfm_cfg *cfg)
{
	unsigned long want = pf->intr_on ? pf->sel_en & cfg->on : 0;
	struct rw_semaphore *lock;
	struct pmc_set **sets;
	bool defer = false;
	unsigned int k, i;
	u64 v[PFM_NCTRS];
	int ret;

	if (cfg->logselect && !pf->root)
		return -EINVAL;
	ret = pfm_lock_target(pf, cfg, &lock);
	if (ret)
		return ret;
	ret = pfm_access(pf, cfg);
	if (ret == -EPERM && !cfg->logselect && !want) {
		defer = true;
		ret = 0;
	}
	if (ret)
		goto unlock;
	ret = -ENOMEM;
	sets = kvcalloc(pf->nslots, sizeof(*sets), GFP_KERNEL);
	if (!sets)
		goto unlock;
	for (k = 0; k < pf->nslots && cfg->on && !defer; k++) {
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
	kvfree(sets);
	pf->cfg = *cfg;
	pf->deferred = defer;
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
