// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pctr: OpenBSD pctr(4) on the pmcompat counter core.
 *
 * As in OpenBSD's 2019-2024 driver, PCIOCSn puts the same event selector on
 * every CPU (here: one pinned perf event per CPU) and PCIOCRD returns the
 * selectors, the TSC and the counter values of the CPU the caller runs on.
 * Any number of opens; programming needs a writable descriptor and the
 * privilege perf asks for counting the whole system.  Values are full 64-bit
 * counts instead of OpenBSD's 40/48-bit raw counter registers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <machine/pctr.h>

#include "pmc_core.h"
#include "pmcompat.h"

/* Selector bits the driver refuses: PC (19), INT (20), ANY (21). */
#define PCTR_REFUSED_BITS	0x00380000u

/* PCIOCS0 + n for any n: same group, direction and size, consecutive numbers. */
#define PCTR_SET_NR_MAX		64

static DEFINE_MUTEX(pctr_lock);		/* serialises programming and reads */
static struct pmc_set *pctr_set;	/* PCTR_NUM counters on every CPU */
static unsigned int pctr_fn[PCTR_NUM];	/* selector of each counter */

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
	if (fn && pmc_access_check(PMC_ACCESS_CPU, NULL))
		return -EPERM;

	pmc_desc_from_evtsel(&desc, fn);
	if ((fn & PCTR_EN) && (fn & (PCTR_U | PCTR_K)))
		flags = PMC_START;

	mutex_lock(&pctr_lock);
	/* Unchanged: keeps counting, unless perf lost it (then reprogram). */
	if (fn == pctr_fn[n] && !(fn && pmc_counter_failed(pctr_set, n)))
		goto out;
	if (!fn) {
		pmc_counter_release(pctr_set, n);	/* stop and clear */
		pctr_fn[n] = 0;
		goto out;
	}
	ret = pmc_counter_program(pctr_set, n, &desc, 0, flags);
	pctr_fn[n] = ret ? 0 : fn;
	if (ret == -EACCES)	/* perf's own check of CPU-wide counting */
		ret = -EPERM;
out:
	mutex_unlock(&pctr_lock);
	return ret;
}

static int pctr_read(void __user *argp)
{
	struct pctrst st;
	u64 values[PCTR_NUM] = { 0 }, tsc = 0;
	unsigned int i;
	int ret;

	memset(&st, 0, sizeof(st));
	mutex_lock(&pctr_lock);
	ret = pmc_set_read(pctr_set, raw_smp_processor_id(), values, &tsc);
	for (i = 0; i < PCTR_NUM; i++) {
		st.pctr_fn[i] = pctr_fn[i];
		st.pctr_hwc[i] = values[i];
	}
	mutex_unlock(&pctr_lock);
	if (ret)
		return ret;
	st.pctr_tsc = tsc;
	return copy_to_user(argp, &st, sizeof(st)) ? -EFAULT : 0;
}

static long pctr_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;
	unsigned int fn, nr = _IOC_NR(cmd);

	if (cmd == PCIOCRD)
		return pctr_read(argp);

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
