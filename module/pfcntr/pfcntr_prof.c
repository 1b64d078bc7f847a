// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pfcntr: PC profiling (pfm(7) PFM_PROFILING, uprofile(1), kprofile(1)).
 *
 * PCNTSETUADDR/URANGE and PCNTSETKADDR/KRANGE set up a profile of user or
 * kernel text: one 32-bit bucket per stride of instructions (a power of 2;
 * 0: one bucket for the whole range), per CPU the open takes.  Each
 * interrupt of a recording counter (pfcntr.c's tick) adds the interrupted
 * PC to its CPU's buckets; read(2) gives the buckets of the CPU (ONE),
 * of every CPU one after another (EACH) or their sums (ALL).  PCNTCALLER
 * credits the samples in some kernel routines to their callers.  Each user
 * (real uid) has a budget of buckets over all its opens, and each open at
 * most PFM_PROF_MAX per CPU; the buckets are charged to the memory cgroup
 * of the opener too.
 *
 * Locking: the profile is set up, replaced and read under pfm_file.lock;
 * the interrupt reads it under RCU (pfm_file.prof), in NMI context on real
 * hardware.
 */
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#ifdef CONFIG_UNWINDER_ORC
#include <asm/unwind.h>
#endif
#include <sys/pfcntr.h>

#include "pfcntr_internal.h"
#include "pmc_arch.h"
#include "pmc_core.h"

#define PFM_INSN_BYTES		4		/* an Alpha instruction */
#define PFM_STRIDE_MAX		BIT_ULL(60)
#define PFM_CALLER_DEPTH	4		/* frames to leave the routines */
#define PFM_PROF_MAX		(16UL << 20)	/* bytes of buckets per CPU */

static unsigned long pfm_prof_user_max = 256UL << 20;
module_param_named(pfcntr_profile_bytes_per_user, pfm_prof_user_max, ulong, 0644);
MODULE_PARM_DESC(pfcntr_profile_bytes_per_user,
		 "most bytes of /dev/pfcntr profile buckets per user, over all opens (default 256 MiB)");

/* ---- the samples, at interrupt time ---------------------------------------- */

/*
 * The kernel routines whose samples PCNTCALLER credits to their caller:
 * Tru64 named bcopy, bzero and simple_lock.  Found at load time from their
 * exported addresses; kallsyms gives each one's size.
 */
static const unsigned long pfm_callee_fns[] __initconst = {
	(unsigned long)memcpy, (unsigned long)memmove, (unsigned long)memset,
	/* Where the kernel inlines them (arm64), they are not functions. */
#ifndef CONFIG_INLINE_SPIN_LOCK
	(unsigned long)_raw_spin_lock,
#endif
#ifndef CONFIG_INLINE_SPIN_LOCK_IRQSAVE
	(unsigned long)_raw_spin_lock_irqsave,
#endif
#ifndef CONFIG_INLINE_SPIN_LOCK_IRQ
	(unsigned long)_raw_spin_lock_irq,
#endif
#ifndef CONFIG_INLINE_SPIN_LOCK_BH
	(unsigned long)_raw_spin_lock_bh,
#endif
#ifdef CONFIG_PREEMPT_RT
	(unsigned long)rt_spin_lock,
#endif
#if defined(CONFIG_QUEUED_SPINLOCKS) && defined(CONFIG_PARAVIRT_SPINLOCKS)
	(unsigned long)native_queued_spin_lock_slowpath,
	(unsigned long)__pv_queued_spin_lock_slowpath,	/* in KVM guests */
#elif defined(CONFIG_QUEUED_SPINLOCKS)
	(unsigned long)queued_spin_lock_slowpath,
#endif
};

static struct pfm_range pfm_callees[ARRAY_SIZE(pfm_callee_fns)] __ro_after_init;
static unsigned int pfm_ncallees __ro_after_init;

static bool pfm_in_range(const struct pfm_range *r, unsigned long pc)
{
	return pc - r->start < r->end - r->start;
}

static bool __maybe_unused pfm_in_callee(const struct pfm_prof *p, unsigned long pc)
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
 * routines, the kernel's ORC unwinder (as perf's call chains) steps out to
 * the first return address outside them, and the sample goes to the call
 * instruction before it (the return address less 1: a call that ends a
 * function or a bucket stays in it); 0 when it cannot (dropped).  Only x86
 * has ORC; elsewhere PCNTCALLER is refused (pfm_prof_ioctl()).
 */
static unsigned long pfm_caller_pc(const struct pfm_prof *p, struct pt_regs *regs)
{
	unsigned long pc = instruction_pointer(regs);
#ifdef CONFIG_UNWINDER_ORC
	struct unwind_state state;
	unsigned int depth;

	if (!pfm_in_callee(p, pc))
		return pc;
	unwind_start(&state, current, regs, NULL);
	for (depth = 0; depth < PFM_CALLER_DEPTH && !unwind_done(&state); depth++) {
		pc = unwind_get_return_address(&state);
		if (!pc)
			return 0;
		if (!pfm_in_callee(p, pc - 1))
			return pc - 1;
		unwind_next_frame(&state);
	}
	return 0;
#else
	return pc;
#endif
}

/* A PC sample of this CPU's counter interrupt, if it falls in the profile. */
void pfm_sample(struct pfm_file *pf, struct pt_regs *regs)
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

/* ---- the profile ------------------------------------------------------------- */

/* Bytes of buckets of each user, against pfm_prof_user_max. */
static struct pmc_budget pfm_prof_users = PMC_BUDGET_INIT(pfm_prof_users);

static struct pfm_prof *pfm_prof(const struct pfm_file *pf)
{
	return rcu_dereference_protected(pf->prof, lockdep_is_held(&pf->lock));
}

void pfm_prof_free(struct pfm_prof *p)
{
	unsigned int k;

	if (!p)
		return;
	for (k = 0; k < p->nslots; k++)
		kvfree(p->buckets[k]);
	pmc_budget_uncharge(&pfm_prof_users, p->user, p->nbuckets * sizeof(u32) * p->nslots);
	kfree(p);
}

/*
 * Kernel text addresses are secrets under KASLR.  Kernel profiling needs
 * what perf needs to sample kernel mode, and a capability that shows
 * kernel addresses (kptr_restrict is not visible to modules: at paranoid
 * 1 or less this is stricter than perf, never looser).
 */
int pfm_kprof_access(void)
{
	if (!pfm_privileged() && !capable(CAP_SYSLOG))
		return -EPERM;
	return pmc_access_check(PMC_ACCESS_KERNEL, NULL) ? -EPERM : 0;
}

/* Kernel PCs are being profiled (or would be, with these items). */
bool pfm_kprof_on(const struct pfm_file *pf, unsigned long items)
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

static int pfm_get_range(void __user *argp, bool with_stride, u64 *start,
			 u64 *end, u64 *stride)
{
	addr_range_t r = {};

	if (copy_from_user(&r, argp, with_stride ? sizeof(r) : sizeof(struct addr_range)))
		return -EFAULT;
	if (r.res0)
		return -EINVAL;		/* reserved */
	*start = r.start;
	*end = r.end;
	if (with_stride)
		*stride = r.stride;
	return 0;
}

static struct pfm_prof *pfm_prof_alloc(const struct pfm_file *pf, bool kernel,
				       u64 start, u64 end, u64 stride)
{
	/* stride <= 2^60: shift <= 62 */
	unsigned int shift = stride ? ilog2(stride) + ilog2(PFM_INSN_BYTES) : 0;
	unsigned int nslots = pf->nslots, k;
	struct pfm_prof *p;
	size_t nbuckets, bytes;

	nbuckets = stride ? ((end - start - 1) >> shift) + 1 : 1;
	if (nbuckets > PFM_PROF_MAX / sizeof(u32))
		return ERR_PTR(-ENOMEM);
	bytes = nbuckets * sizeof(u32) * nslots;
	p = kzalloc(struct_size(p, buckets, nslots), GFP_KERNEL_ACCOUNT);
	if (!p)
		return ERR_PTR(-ENOMEM);
	/* The user's budget, over all its opens: per-open caps would multiply. */
	p->user = pmc_budget_charge(&pfm_prof_users, bytes, READ_ONCE(pfm_prof_user_max));
	if (!p->user) {
		kfree(p);
		return ERR_PTR(-ENOMEM);
	}
	p->nslots = nslots;
	p->nbuckets = nbuckets;	/* pfm_prof_free() gives back the budget */
	for (k = 0; k < nslots; k++) {
		p->buckets[k] = kvcalloc(nbuckets, sizeof(atomic_t),
					 GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!p->buckets[k]) {
			pfm_prof_free(p);
			return ERR_PTR(-ENOMEM);
		}
	}
	p->kernel = kernel;
	p->whole = !stride;
	p->shift = shift;
	p->range.start = start;
	p->range.end = end;
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

	if (!(pf->items & PFM_PROFILING))
		return -EINVAL;		/* not open for profiling */
	ret = pfm_get_range(argp, with_stride, &start, &end, &stride);
	if (ret)
		return ret;
	if (kernel) {
		ret = pfm_kprof_access();
		if (ret)
			return ret;
	}
	if (old && old->kernel && old->caller && kernel) {
		unsigned int n = old->ncallers;

		if (start >= end)
			return -EINVAL;
		if (!pmc_arch_kernel_text(start, end))
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
	if (kernel ? !pmc_arch_kernel_text(start, end) : end > TASK_SIZE_MAX)
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

int pfm_profiling(struct pfm_file *pf, unsigned int cmd, void __user *argp,
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
		/*
		 * Only ORC finds the return address of a frameless routine
		 * (memcpy): the frame-pointer unwinder would skip the caller.
		 * arm64 has no ORC, and its frame-record unwinder would skip
		 * the caller of a leaf routine in the same way.
		 */
		if (!IS_ENABLED(CONFIG_UNWINDER_ORC))
			return -EOPNOTSUPP;
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

ssize_t pfm_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct pfm_file *pf = file->private_data;
	size_t size, done = 0, n = 0, w0, nw, off, i;
	struct pfm_prof *p;
	loff_t pos = *ppos;
	ssize_t ret = 0;
	u32 *words;

	if (pos < 0)
		return -EINVAL;
	words = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!words)
		return -ENOMEM;
	/*
	 * A page of buckets at a time, filled under the lock and copied out
	 * after it: a faulting buffer holds up no request of the open.
	 */
	while (done < count) {
		mutex_lock(&pf->lock);
		p = pfm_prof(pf);
		size = pfm_rsize(pf);
		if (pos + done < size) {
			off = (pos + done) % sizeof(u32);
			n = min3(count - done, (size_t)(size - pos - done),
				 (size_t)PAGE_SIZE - sizeof(u32));
			w0 = (pos + done) / sizeof(u32);
			nw = DIV_ROUND_UP(off + n, sizeof(u32));
			for (i = 0; i < nw; i++)
				words[i] = pfm_bucket(pf, p, w0 + i);
		} else {
			n = 0;
		}
		mutex_unlock(&pf->lock);
		if (!n)
			break;
		if (copy_to_user(buf + done, (char *)words + off, n)) {
			ret = -EFAULT;
			break;
		}
		done += n;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	kfree(words);
	*ppos = pos + done;
	return done ? done : ret;
}

loff_t pfm_llseek(struct file *file, loff_t offset, int whence)
{
	struct pfm_file *pf = file->private_data;
	loff_t ret;

	mutex_lock(&pf->lock);
	ret = fixed_size_llseek(file, offset, whence, pfm_rsize(pf));
	mutex_unlock(&pf->lock);
	return ret;
}

/* The PCNTCALLER routines' extents, from kallsyms ("name+0x0/0xsize"). */
void __init pfm_find_callees(void)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long size;
	unsigned int i;
	char *slash;

	for (i = 0; i < ARRAY_SIZE(pfm_callee_fns); i++) {
		unsigned long start = (unsigned long)pfm_callee_fns[i];

		sprint_symbol(sym, start);
		slash = strchr(sym, '/');
		/* "+0x0/": the address is the start of its symbol. */
		if (!slash || slash - sym < 4 || strncmp(slash - 4, "+0x0", 4) ||
		    sscanf(slash + 1, "%lx", &size) != 1 || !size)
			continue;
		pfm_callees[pfm_ncallees].start = start;
		pfm_callees[pfm_ncallees].end = start + size;
		pfm_ncallees++;
	}
}
