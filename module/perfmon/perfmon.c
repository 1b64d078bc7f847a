// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/perfmon: FreeBSD perfmon(4) on the pmcompat counter core.
 *
 * FreeBSD's counters were global to a one-CPU machine.  Here each of the
 * NPMC counters is one pinned perf event per online CPU and PMIOREAD returns
 * their sum, so a program that measures "the machine" gets the machine.
 * Any number of read-only opens, one writer at a time; the writer's counters
 * are released when it closes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include <machine/perfmon.h>

#include "pmc_arch.h"
#include "pmc_core.h"
#include "frontend.h"

#define PERFMON_FLAG(f)		((unsigned int)(f) << 16)

static DEFINE_MUTEX(perfmon_lock);	/* serialises everything below */
static struct pmc_set *perfmon_set;	/* NPMC counters on every CPU */
static unsigned int perfmon_ctl[NPMC];	/* control words, EN while running */
static unsigned long perfmon_setup_mask;	/* counters set up by the writer */
static struct pmc_claim perfmon_writer;

static int perfmon_open(struct inode *inode, struct file *file)
{
	int ret;

	if (!pmc_hw_pmu_present())
		return -ENXIO;
	if (file->f_mode & FMODE_WRITE) {
		/*
		 * The one writer counts the whole machine: only a caller with
		 * that privilege may take the slot, so nobody else can lock
		 * root out by holding it.
		 */
		if (pmc_access_check(PMC_ACCESS_CPU, NULL))
			return -EPERM;
		ret = pmc_claim_try(&perfmon_writer);
		if (ret)
			return ret;
	}
	return nonseekable_open(inode, file);
}

static int perfmon_release(struct inode *inode, struct file *file)
{
	unsigned int i;

	if (!(file->f_mode & FMODE_WRITE))
		return 0;
	mutex_lock(&perfmon_lock);
	for (i = 0; i < NPMC; i++) {
		if (!test_bit(i, &perfmon_setup_mask))
			continue;
		pmc_counter_release(perfmon_set, i);
		perfmon_ctl[i] = 0;
	}
	perfmon_setup_mask = 0;
	mutex_unlock(&perfmon_lock);
	pmc_claim_release(&perfmon_writer);
	return 0;
}

static int perfmon_setup(unsigned int n, unsigned int ctl)
{
	struct pmc_event_desc desc;
	int ret;

	ctl &= ~PERFMON_FLAG(PMCF_SYS_FLAGS);
	if (pmc_access_check(PMC_ACCESS_CPU, NULL))
		return -EPERM;
	pmc_desc_from_evtsel(&desc, ctl);

	/* Set up cleared and stopped. */
	ret = pmc_counter_program(perfmon_set, n, &desc, 0, 0);
	if (ret) {
		clear_bit(n, &perfmon_setup_mask);
		perfmon_ctl[n] = 0;
		return ret == -EACCES ? -EPERM : ret;
	}
	set_bit(n, &perfmon_setup_mask);
	perfmon_ctl[n] = ctl;
	return 0;
}

static int perfmon_start(unsigned int n)
{
	unsigned int ctl = perfmon_ctl[n];
	int ret;

	/* Starting counts the whole system: the privilege, whoever set it up. */
	if (pmc_access_check(PMC_ACCESS_CPU, NULL))
		return -EPERM;
	if (!(ctl & (PERFMON_FLAG(PMCF_USR) | PERFMON_FLAG(PMCF_OS)))) {
		/* Neither mode selected: running, counting nothing. */
		perfmon_ctl[n] |= PERFMON_FLAG(PMCF_EN);
		return 0;
	}
	ret = pmc_counter_start(perfmon_set, n);
	if (!ret)
		perfmon_ctl[n] |= PERFMON_FLAG(PMCF_EN);
	return ret;
}

static int perfmon_stop(unsigned int n)
{
	int ret = pmc_counter_stop(perfmon_set, n);

	if (!ret)
		perfmon_ctl[n] &= ~PERFMON_FLAG(PMCF_EN);
	return ret;
}

static int perfmon_read(unsigned int n, s64 *value)
{
	u64 v;
	int ret;

	ret = pmc_counter_read(perfmon_set, n, PMC_READ_SUM, &v);
	if (!ret)
		*value = v;
	return ret;
}

/* TSC rate in whole MHz, and the TSC; -ENOTTY when the rate is unknown. */
static int perfmon_tsc(int *rate, s64 *value)
{
	if (!tsc_khz)
		return -ENOTTY;
	*rate = tsc_khz / 1000;
	*value = rdtsc_ordered();
	return 0;
}

static int perfmon_tstamp(void __user *argp)
{
	struct pmc_tstamp ts;
	int ret;

	memset(&ts, 0, sizeof(ts));
	ret = perfmon_tsc(&ts.pmct_rate, &ts.pmct_value);
	if (ret)
		return ret;
	return copy_to_user(argp, &ts, sizeof(ts)) ? -EFAULT : 0;
}

/* Fetch the counter number a request names, and check it: 0 or -errno. */
static int perfmon_get_num(unsigned int cmd, void __user *argp, unsigned int *n)
{
	int num;

	switch (cmd) {
	case PMIOSETUP:
	case PMIOGET:
		if (get_user(num, &((struct pmc __user *)argp)->pmc_num))
			return -EFAULT;
		break;
	case PMIOREAD:
		if (get_user(num, &((struct pmc_data __user *)argp)->pmcd_num))
			return -EFAULT;
		break;
	default:
		if (get_user(num, (int __user *)argp))
			return -EFAULT;
	}
	if (num < 0 || num >= NPMC)
		return -EINVAL;
	*n = num;
	return 0;
}

static long perfmon_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;
	struct pmc_data data;
	struct pmc pmc;
	unsigned int n;
	int ret;

	switch (cmd) {
	case PMIOTSTAMP:
		return perfmon_tstamp(argp);
	case PMIOSETUP:
	case PMIOSTART:
	case PMIOSTOP:
	case PMIORESET:
		if (!(file->f_mode & FMODE_WRITE))
			return -EPERM;
		break;
	case PMIOGET:
	case PMIOREAD:
		break;
	default:
		return -ENOTTY;
	}

	ret = perfmon_get_num(cmd, argp, &n);
	if (ret)
		return ret;
	if (cmd == PMIOSETUP &&
	    copy_from_user(&pmc, argp, sizeof(pmc)))
		return -EFAULT;

	mutex_lock(&perfmon_lock);
	if (cmd != PMIOSETUP && !test_bit(n, &perfmon_setup_mask)) {
		ret = -EBUSY;
		goto out;
	}
	switch (cmd) {
	case PMIOSETUP:
		ret = perfmon_setup(n, pmc.pmc_val);
		break;
	case PMIOSTART:
		ret = perfmon_start(n);
		break;
	case PMIOSTOP:
		ret = perfmon_stop(n);
		break;
	case PMIORESET:
		ret = pmc_counter_write(perfmon_set, n, 0);
		break;
	case PMIOGET:
		memset(&pmc, 0, sizeof(pmc));
		pmc.pmc_num = n;
		pmc.pmc_val = perfmon_ctl[n];
		mutex_unlock(&perfmon_lock);
		return copy_to_user(argp, &pmc, sizeof(pmc)) ? -EFAULT : 0;
	case PMIOREAD:
		memset(&data, 0, sizeof(data));
		data.pmcd_num = n;
		ret = perfmon_read(n, &data.pmcd_value);
		mutex_unlock(&perfmon_lock);
		if (ret)
			return ret;
		return copy_to_user(argp, &data, sizeof(data)) ? -EFAULT : 0;
	}
out:
	mutex_unlock(&perfmon_lock);
	return ret;
}

#ifdef CONFIG_COMPAT
/*
 * FreeBSD's perfmon was i386-only: in 32-bit programs quad_t is 4-byte
 * aligned, so struct pmc_data and struct pmc_tstamp are 12 bytes and their
 * requests have other numbers.  The other structures are the same.
 */
struct perfmon_data32 {
	s32 pmcd_num;
	compat_s64 pmcd_value;
};

struct perfmon_tstamp32 {
	s32 pmct_rate;
	compat_s64 pmct_value;
};

#define PMIOREAD32	_IOWR('5', 4, struct perfmon_data32)
#define PMIOTSTAMP32	_IOR('5', 6, struct perfmon_tstamp32)

static long perfmon_compat_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	void __user *argp = compat_ptr(arg);
	struct perfmon_tstamp32 ts;
	struct perfmon_data32 data;
	s64 value;
	int ret, num;

	switch (cmd) {
	case PMIOREAD32:
		if (get_user(num, &((struct perfmon_data32 __user *)argp)->pmcd_num))
			return -EFAULT;
		if (num < 0 || num >= NPMC)
			return -EINVAL;
		mutex_lock(&perfmon_lock);
		ret = test_bit(num, &perfmon_setup_mask) ? perfmon_read(num, &value) : -EBUSY;
		mutex_unlock(&perfmon_lock);
		if (ret)
			return ret;
		memset(&data, 0, sizeof(data));
		data.pmcd_num = num;
		data.pmcd_value = value;
		return copy_to_user(argp, &data, sizeof(data)) ? -EFAULT : 0;
	case PMIOTSTAMP32:
		memset(&ts, 0, sizeof(ts));
		ret = perfmon_tsc(&ts.pmct_rate, &value);
		if (ret)
			return ret;
		ts.pmct_value = value;
		return copy_to_user(argp, &ts, sizeof(ts)) ? -EFAULT : 0;
	default:
		return perfmon_ioctl(file, cmd, (unsigned long)argp);
	}
}
#endif

static const struct file_operations perfmon_fops = {
	.owner		= THIS_MODULE,
	.open		= perfmon_open,
	.release	= perfmon_release,
	.unlocked_ioctl	= perfmon_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= perfmon_compat_ioctl,
#endif
};

static struct miscdevice perfmon_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "perfmon",
	.fops	= &perfmon_fops,
	.mode	= 0640,
};

int perfmon_init(void)
{
	struct pmc_bind bind = { .scope = PMC_SCOPE_ALL_CPUS };
	int ret;

	perfmon_set = pmc_set_create(&bind, NPMC);
	if (IS_ERR(perfmon_set))
		return PTR_ERR(perfmon_set);
	ret = misc_register(&perfmon_misc);
	if (ret) {
		pmc_set_destroy(perfmon_set);
		return ret;
	}
	return 0;
}

void perfmon_exit(void)
{
	misc_deregister(&perfmon_misc);
	pmc_set_destroy(perfmon_set);
}
