// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat access control, in one place.
 *
 * In-kernel perf counters skip every check perf_event_open() makes (the
 * paranoid level, the perf LSM hooks, seccomp filters on the system call),
 * so the module is the only gate.  It is built from what the kernel offers
 * modules, and never allows more than perf would:
 *
 *   the device node       who may use the device at all: the udev rule gives
 *                         the nodes to the system group "pmcompat" (like
 *                         /dev/kvm's group); without it, root only
 *   a thread, user mode   whoever opened the node: the administrator's grant
 *   kernel mode           where perf exports perf_allow_kernel() (6.12 on),
 *                         what it allows: perf_event_paranoid <= 1 or
 *                         CAP_PERFMON, and the perf LSM hook; elsewhere
 *                         CAP_PERFMON (or CAP_SYS_ADMIN)
 *   whole CPUs            CAP_PERFMON (or CAP_SYS_ADMIN): a module cannot
 *                         read the paranoid level on every kernel
 *   another process       CAP_PERFMON (as perf), or ptrace-read access by
 *                         real credentials (below); the caller holds the
 *                         target's exec_update_lock from check to install
 *
 * ptrace_may_access() is not exported, so the credential rules of
 * __ptrace_may_access() for PTRACE_MODE_READ_REALCREDS are applied here:
 * same thread group; or the caller's real uid and gid equal every uid and
 * gid of the target and the target is dumpable; or CAP_SYS_PTRACE in the
 * target's user namespace.  Then the capability LSM's rule, which every
 * kernel applies (cap_ptrace_access_check()): caller and target in one
 * user namespace and the target's permitted capabilities a subset of the
 * caller's, or CAP_SYS_PTRACE in the target's user namespace.  Other LSMs'
 * ptrace hooks cannot be called from a module (not exported): an LSM that
 * restricts ptrace reads further is not consulted, which the README's
 * security section says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/uidgid.h>

#include "kcompat.h"
#include "pmc_core.h"

/* The credential part of ptrace_may_access(PTRACE_MODE_READ_REALCREDS). */
static bool pmc_may_read_task(struct task_struct *target)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	if (same_thread_group(target, current))
		return true;
	rcu_read_lock();
	tcred = __task_cred(target);
	ok = uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	     uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	     gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid);
	if (!ok)
		ok = ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	/* The capability LSM: no reading a process that holds more. */
	if (ok && !(cred->user_ns == tcred->user_ns &&
		    cap_issubset(tcred->cap_permitted, cred->cap_permitted)))
		ok = ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!ok)
		return false;

	/* A target without an mm (exiting) counts nothing: refuse. */
	mm = get_task_mm(target);
	if (!mm)
		return false;
	/* Dumpability after the credentials, as ptrace (commit_creds()'s barrier). */
	smp_rmb();
	ok = pmc_task_dumpable(target, mm);
	mmput(mm);
	return ok;
}

/*
 * May the current task count `what` (PMC_ACCESS_*), on `target` if not NULL?
 * Returns 0 or -EACCES.  With a target in another process, the caller must
 * hold target->signal->exec_update_lock until the events are installed.
 */
int pmc_access_check(unsigned int what, struct task_struct *target)
{
	/*
	 * Capabilities are asked only where the request needs them, as perf
	 * does: a refusal is audited, and counting one's own thread in user
	 * mode needs none.  perfmon_capable() audits CAP_SYS_ADMIN only.
	 */
	if ((what & PMC_ACCESS_CPU) && !perfmon_capable())
		return -EACCES;
	if ((what & PMC_ACCESS_KERNEL) && !pmc_perf_allows_kernel())
		return -EACCES;
	if (target && !perfmon_capable() && !pmc_may_read_task(target))
		return -EACCES;
	return 0;
}
