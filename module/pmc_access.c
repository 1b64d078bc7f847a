// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat access control, in one place.
 *
 * In-kernel perf counters mostly bypass perf_event_paranoid and CAP_PERFMON
 * (perf checks them in the perf_event_open() system call; for kernel counters
 * it checks only CPU-wide events), so every front-end asks here before it
 * counts anything, and gets perf's answer:
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
 * Both paths are resolved from the root of the initial PID 1, never from the
 * caller's own root or mount namespace, which the caller could shape (a bind
 * mount over the sysctl file must not lower the level).  Whatever cannot be
 * resolved there is refused.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/fs_struct.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/string.h>

#include "pmc_core.h"

#define PMC_PARANOID_PATH	"proc/sys/kernel/perf_event_paranoid"

/* Open a path below the root of the initial namespace's PID 1, read-only. */
static struct file *pmc_open_system_file(const char *path)
{
	struct task_struct *init;
	struct path root = {};
	struct file *f;

	rcu_read_lock();
	init = pid_task(find_pid_ns(1, &init_pid_ns), PIDTYPE_PID);
	if (init)
		get_task_struct(init);
	rcu_read_unlock();
	if (!init)
		return ERR_PTR(-ENOENT);
	task_lock(init);
	if (init->fs)
		get_fs_root(init->fs, &root);
	task_unlock(init);
	put_task_struct(init);
	if (!root.mnt)
		return ERR_PTR(-ENOENT);
	f = file_open_root(&root, path, O_RDONLY, 0);
	path_put(&root);
	return f;
}

/* The perf_event_paranoid level; the strictest (3) when it cannot be read. */
static int pmc_paranoid_level(void)
{
	char buf[16];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int level;

	f = pmc_open_system_file(PMC_PARANOID_PATH);
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
	/* Global ids: the path is resolved in the initial namespaces. */
	snprintf(path, sizeof(path), "proc/%d/task/%d/environ",
		 task_tgid_nr(target), task_pid_nr(target));
	f = pmc_open_system_file(path);
	if (IS_ERR(f))
		return pid_alive(target) ? -EACCES : -ESRCH;
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
