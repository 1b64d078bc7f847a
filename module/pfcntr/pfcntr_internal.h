/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/pfcntr inside the module: the state of an open, shared by the
 * device and its requests (pfcntr.c), the counters on the counter core
 * (pfcntr_sets.c), PC profiling (pfcntr_prof.c) and, through
 * pfcntr_alpha.h, the translation of the Alpha registers (pfcntr_alpha.c).
 */
#ifndef PFCNTR_INTERNAL_H
#define PFCNTR_INTERNAL_H

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "pfcntr_alpha.h"

struct pmc_budget_user;

struct pmc_set;
struct pt_regs;
struct task_struct;

#define PFM_NIPL	9

#define PFM_STRIDE_DEFAULT	4		/* instructions per bucket */
#define PFM_NCALLERS		4		/* extra caller ranges */

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
	struct pmc_budget_user *user;	/* charged for the buckets */
	unsigned int nslots;
	atomic_t *buckets[] __counted_by(nslots);
};

struct pfm_file {
	struct mutex lock;		/* serialises the requests of an open */
	unsigned int mode;		/* PCNTOPENONE, _EACH or _ALL */
	int cpu;			/* ONE: the CPU */
	bool exclusive;			/* holds its CPUs: pfm_take_cpus() */
	unsigned int nslots;		/* ONE: 1; EACH, ALL: nr_cpu_ids */
	struct pfm_cpu *slots;		/* by CPU (ONE: [0]) */
	bool ev67;
	struct pfm_regs regs;
	struct pfm_cfg cfg;
	bool deferred;			/* LOGALL cfg without its events yet */
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

/* The CPU of slot k. */
static inline int pfm_slot_cpu(const struct pfm_file *pf, unsigned int k)
{
	return pf->mode == PCNTOPENONE ? pf->cpu : k;
}

static inline bool pfm_privileged(void)
{
	return capable(CAP_PERFMON) || capable(CAP_SYS_ADMIN);
}

/* pfcntr.c */
int pfm_values_of(struct pfm_file *pf, unsigned int k, unsigned long mask,
		  u64 *v);
int pfm_values(struct pfm_file *pf, unsigned int k, u64 *v);

/* pfcntr_sets.c */
int pfm_update(struct pfm_file *pf);
int pfm_access(const struct pfm_file *pf, const struct pfm_cfg *cfg);
int pfm_perf_error(int ret);
int pfm_apply(struct pfm_file *pf, const struct pfm_cfg *cfg);

/* pfcntr_prof.c */
void pfm_sample(struct pfm_file *pf, struct pt_regs *regs);
void pfm_prof_free(struct pfm_prof *p);
int pfm_kprof_access(void);
bool pfm_kprof_on(const struct pfm_file *pf, unsigned long items);
int pfm_profiling(struct pfm_file *pf, unsigned int cmd, void __user *argp,
		  bool compat);
ssize_t pfm_read(struct file *file, char __user *buf, size_t count, loff_t *ppos);
loff_t pfm_llseek(struct file *file, loff_t offset, int whence);
void __init pfm_find_callees(void);

#endif /* PFCNTR_INTERNAL_H */
