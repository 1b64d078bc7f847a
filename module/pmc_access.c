// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat access control, in one place.
 *
 * In-kernel perf counters bypass perf_event_paranoid and CAP_PERFMON (those
 * checks live in the perf_event_open() system call), so every front-end asks
 * here before it counts anything, and gets perf's answer:
 *
 *   counting a whole CPU        CAP_PERFMON, or perf_event_paranoid <= 0
 *   counting kernel mode        CAP_PERFMON, or perf_event_paranoid <= 1
 *   counting a thread at all    CAP_PERFMON, or perf_event_paranoid <= 2
 *   counting another process    ptrace-read access to it
 *
 * Neither sysctl_perf_event_paranoid nor ptrace_may_access() is exported to
 * modules, so the paranoid level is read from its sysctl file and ptrace
 * access is asked of procfs, whose /proc/PID/task/TID/environ open performs
 * exactly ptrace_may_access(PTRACE_MODE_READ_FSCREDS), LSM hooks included.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "pmc_core.h"

#define PMC_PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"

/* The perf_event_paranoid level; the strictest (3) when it cannot be read. */
static int pmc_paranoid_level(void)
{
	char buf[16];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int level;

	f = filp_open(PMC_PARANOID_PATH, O_RDONLY, 0);
	if (IS_ERR(f))
		return 3;
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		return 3;
	buf[n] = '\0';
	if (kstrtoint(strim(buf), 10, &level))
		return 3;
	return level;
}

static bool pmc_perfmon_capable(void)
{
	return capable(CAP_PERFMON) || capable(CAP_SYS_ADMIN);
}

static int pmc_may_read_task(struct task_struct *target)
{
	char path[64];
	struct file *f;

	if (same_thread_group(target, current))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/environ",
		 task_tgid_vnr(target), task_pid_vnr(target));
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f) == -ENOENT ? -ESRCH : -EACCES;
	filp_close(f, NULL);
	return 0;
}

/*
 * May the current task count `what` (PMC_ACCESS_*), on `target` if not NULL?
 * Returns 0, -EACCES (not permitted) or -ESRCH (target gone).
 */
int pmc_access_check(unsigned int what, struct task_struct *target)
{
	bool capable = pmc_perfmon_capable();
	int level = pmc_paranoid_level();

	if ((what & PMC_ACCESS_CPU) && level > 0 && !capable)
		return -EACCES;
	if ((what & PMC_ACCESS_KERNEL) && level > 1 && !capable)
		return -EACCES;
	if ((what & PMC_ACCESS_THREAD) && level > 2 && !capable)
		return -EACCES;
	if (target)
		return pmc_may_read_task(target);
	return 0;
}
