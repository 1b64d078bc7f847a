// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pctr: OpenBSD pctr(4) on the pmcompat counter core.
 *
 * As in OpenBSD's 2019-2024 driver, PCIOCSn puts the same event selector on
 * every CPU (here: one pinned perf event per CPU) and PCIOCRD returns the
 * selectors, the TSC and the counter values of the CPU the caller runs on.
 * Any number of opens; programming needs a writable descriptor and the
 * privilege perf asks for counting the whole system.  Values are full 64-bit
 * counts instead of OpenBSD's 40/48-bit raw counter registers.  The 1998
 * i386 form (PCTR_I386_1998: two counters and pctr_idl) has a PCIOCRD of
 * its own, and Pentium (P5) control words are taken where they still mean
 * something.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kernel_stat.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/tick.h>
#include <linux/uaccess.h>
#include <asm/tsc.h>
#include <machine/pctr.h>

#include "pmc_arch.h"
#include "pmc_core.h"
#include "frontend.h"

/* Selector bits the driver refuses: PC (19), INT (20), ANY (21). */
#define PCTR_REFUSED_BITS	0x00380000u

/* PCIOCS0 + n for any n: same group, direction and size, consecutive numbers. */
#define PCTR_SET_NR_MAX		64

static DEFINE_MUTEX(pctr_lock);		/* serialises programming */
static struct pmc_set *pctr_set;	/* PCTR_NUM counters on every CPU */
static unsigned int pctr_fn[PCTR_NUM];	/* selector of each counter */
/*
 * A sequence count of programming: odd while a counter is being programmed
 * (written under pctr_lock only).  A read that overlapped programming is
 * done again under pctr_lock, so that the selectors it returns are those of
 * its values; other reads take no global lock.  Not a seqcount_t: its
 * writers disable preemption, and programming sleeps (perf calls); readers
 * never wait for an even count here, they take the lock instead.
 */
static unsigned int pctr_gen;

static void pctr_gen_bump(void)
{
	lockdep_assert_held(&pctr_lock);
	/* Even only after the changes (pairs with pctr_snapshot()'s smp_rmb()). */
	smp_wmb();
	WRITE_ONCE(pctr_gen, pctr_gen + 1);
	/* Odd before any change (pairs with pctr_snapshot()'s smp_rmb()). */
	smp_wmb();
}

/*
 * Pentium (P5) control words, below 0x200 with P5CTR_U or P5CTR_K: a P6 word
 * that small has neither mode bit and counts nothing, so the two never mix
 * up.  The Pentium events that today's processors count the same way are
 * given to perf as its generic events; the others are EINVAL.
 */
#define P5CTR_LIMIT		0x200
#define P5CTR_EVENT		0x3f
#define PCTR_CACHE(c, op, res)	((c) | (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
				 (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

static const struct {
	u8 code;
	u8 type;
	u32 config;
} pctr_p5_events[] = {
	{ 0x00, PERF_TYPE_HW_CACHE, PCTR_CACHE(PERF_COUNT_HW_CACHE_L1D, READ, ACCESS) },
	{ 0x01, PERF_TYPE_HW_CACHE, PCTR_CACHE(PERF_COUNT_HW_CACHE_L1D, WRITE, ACCESS) },
	{ 0x03, PERF_TYPE_HW_CACHE, PCTR_CACHE(PERF_COUNT_HW_CACHE_L1D, READ, MISS) },
	{ 0x0d, PERF_TYPE_HW_CACHE, PCTR_CACHE(PERF_COUNT_HW_CACHE_ITLB, READ, MISS) },
	{ 0x0e, PERF_TYPE_HW_CACHE, PCTR_CACHE(PERF_COUNT_HW_CACHE_L1I, READ, MISS) },
	{ 0x12, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ 0x16, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
};

static bool pctr_is_p5(unsigned int fn)
{
	return fn && fn < P5CTR_LIMIT && (fn & (P5CTR_U | P5CTR_K));
}

static int pctr_desc_p5(struct pmc_event_desc *desc, unsigned int fn)
{
	unsigned int i;

	if (fn & P5CTR_C)
		return -EINVAL;	/* cycles while an event holds: none today */
	for (i = 0; i < ARRAY_SIZE(pctr_p5_events); i++) {
		if (pctr_p5_events[i].code != (fn & P5CTR_EVENT))
			continue;
		memset(desc, 0, sizeof(*desc));
		desc->type = pctr_p5_events[i].type;
		desc->config = pctr_p5_events[i].config;
		desc->exclude_user = !(fn & P5CTR_U);
		desc->exclude_kernel = !(fn & P5CTR_K);
		return 0;
	}
	return -EINVAL;
}

static int pctr_set_counter(struct file *file, unsigned int n, unsigned int fn)
{
	struct pmc_event_desc desc;
	unsigned int flags = 0;
	int ret = 0;

	if (n >= PCTR_NUM)
		return -EINVAL;
	if (!(file->f_mode & FMODE_WRITE))
		return -EPERM;
	if (fn & PCTR_REFUSED_BITS)
		return -EINVAL;
	if (pctr_is_p5(fn)) {
		/* A Pentium counter counts as soon as it has a mode. */
		ret = pctr_desc_p5(&desc, fn);
		if (ret)
			return ret;
		flags = PMC_START;
	} else {
		pmc_desc_from_evtsel(&desc, fn);
		if ((fn & PCTR_EN) && (fn & (PCTR_U | PCTR_K)))
			flags = PMC_START;
	}
	if (fn && pmc_access_check(PMC_ACCESS_CPU, NULL))
		return -EPERM;

	mutex_lock(&pctr_lock);
	/* Unchanged: keeps counting, unless perf lost it (then reprogram). */
	if (fn == pctr_fn[n] && !(fn && pmc_counter_failed(pctr_set, n)))
		goto unlock;
	pctr_gen_bump();
	if (!fn) {
		pmc_counter_release(pctr_set, n);	/* stop and clear */
		WRITE_ONCE(pctr_fn[n], 0);
		goto out;
	}
	ret = pmc_counter_program(pctr_set, n, &desc, 0, flags);
	WRITE_ONCE(pctr_fn[n], ret ? 0 : fn);
	if (ret == -EACCES)	/* perf's own check of CPU-wide counting */
		ret = -EPERM;
	else if (ret == -ENOENT || ret == -EOPNOTSUPP)
		ret = -EINVAL;	/* a generic event this processor lacks */
out:
	pctr_gen_bump();
unlock:
	mutex_unlock(&pctr_lock);
	return ret;
}

/* The selectors, the counts of the CPU the caller runs on, and the TSC. */
static int pctr_read_here(unsigned int *fn, u64 *values, u64 *tsc, int *cpu)
{
	unsigned int i;

	for (i = 0; i < PCTR_NUM; i++)
		fn[i] = READ_ONCE(pctr_fn[i]);
	*cpu = raw_smp_processor_id();
	return pmc_set_read(pctr_set, *cpu, values, tsc);
}

/*
 * The selectors and this CPU's counts: without pctr_lock unless a counter
 * was being programmed meanwhile (pctr_gen), so that threads reading their
 * own CPUs do not serialise machine-wide.
 */
static int pctr_snapshot(unsigned int *fn, u64 *values, u64 *tsc, int *cpu)
{
	unsigned int gen = READ_ONCE(pctr_gen);
	int ret;

	/* The count before the reads (pairs with pctr_gen_bump()'s smp_wmb()). */
	smp_rmb();
	if (!(gen & 1)) {
		ret = pctr_read_here(fn, values, tsc, cpu);
		/* The reads before the count again. */
		smp_rmb();
		if (READ_ONCE(pctr_gen) == gen)
			return ret;
	}
	mutex_lock(&pctr_lock);
	ret = pctr_read_here(fn, values, tsc, cpu);
	mutex_unlock(&pctr_lock);
	return ret;
}

static int pctr_read(void __user *argp)
{
	struct pctrst st;
	int ret, cpu;

	/* The snapshot fills every member, and there is no padding between. */
	BUILD_BUG_ON(sizeof(st) != sizeof(st.pctr_fn) + sizeof(st.pctr_tsc) +
		     sizeof(st.pctr_hwc));
	ret = pctr_snapshot(st.pctr_fn, st.pctr_hwc, &st.pctr_tsc, &cpu);
	if (ret)
		return ret;
	return pmc_copy_out_small(argp, &st, sizeof(st));
}

/*
 * The idle time of a CPU in TSC cycles: pctr_idl of the 1998 form.  OpenBSD
 * counted passes of its idle loop, which grew with the time a CPU idled;
 * Linux's idle loop halts instead of spinning, so its time is the measure.
 */
static u64 pctr_idle_cycles(int cpu)
{
	u64 us = get_cpu_idle_time_us(cpu, NULL);

	if (us == (u64)-1)	/* no NOHZ idle accounting: the tick's */
		us = div_u64(kcpustat_cpu(cpu).cpustat[CPUTIME_IDLE], NSEC_PER_USEC);
	/* us * tsc_khz would wrap after 71 days of idle time at 3 GHz. */
	return mul_u64_u32_div(us, tsc_khz, USEC_PER_MSEC);
}

/* PCIOCRD of the 1998 form: counters 0 and 1, and the idle time. */
static int pctr_read_1998(void __user *argp)
{
	u64 values[PCTR_NUM] = { 0 }, tsc = 0;
	unsigned int fn[PCTR_NUM];
	struct pctrst_1998 st;
	unsigned int i;
	int ret, cpu;

	ret = pctr_snapshot(fn, values, &tsc, &cpu);
	if (ret)
		return ret;
	memset(&st, 0, sizeof(st));
	for (i = 0; i < ARRAY_SIZE(st.pctr_fn); i++) {
		st.pctr_fn[i] = fn[i];
		st.pctr_hwc[i] = values[i];
	}
	st.pctr_tsc = tsc;
	st.pctr_idl = pctr_idle_cycles(cpu);
	return copy_to_user(argp, &st, sizeof(st)) ? -EFAULT : 0;
}

static long pctr_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;
	unsigned int fn, nr = _IOC_NR(cmd);

	if (cmd == PCIOCRD)
		return pctr_read(argp);
	/* Same layout for 32- and 64-bit callers: compat_ptr_ioctl suffices. */
	if (cmd == PCIOCRD_1998)
		return pctr_read_1998(argp);

	/* PCIOCS0 + n: n beyond the last counter is EINVAL, as on OpenBSD. */
	if (_IOC_TYPE(cmd) == _IOC_TYPE(PCIOCS0) &&
	    _IOC_DIR(cmd) == _IOC_DIR(PCIOCS0) &&
	    _IOC_SIZE(cmd) == _IOC_SIZE(PCIOCS0) &&
	    nr >= _IOC_NR(PCIOCS0) && nr < _IOC_NR(PCIOCS0) + PCTR_SET_NR_MAX) {
		if (get_user(fn, (unsigned int __user *)argp))
			return -EFAULT;
		return pctr_set_counter(file, nr - _IOC_NR(PCIOCS0), fn);
	}
	return -ENOTTY;
}

static const struct file_operations pctr_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= pctr_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice pctr_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "pctr",
	.fops	= &pctr_fops,
	.mode	= 0640,		/* udev gives it to group pmcompat */
};

int pctr_init(void)
{
	struct pmc_bind bind = { .scope = PMC_SCOPE_ALL_CPUS };
	int ret;

	pctr_set = pmc_set_create(&bind, PCTR_NUM);
	if (IS_ERR(pctr_set))
		return PTR_ERR(pctr_set);
	ret = misc_register(&pctr_misc);
	if (ret) {
		pmc_set_destroy(pctr_set);
		return ret;
	}
	return 0;
}

void pctr_exit(void)
{
	misc_deregister(&pctr_misc);
	pmc_set_destroy(pctr_set);
}
