// SPDX-License-Identifier: GPL-2.0
/*
 * Dumpability in the mm (get_dumpable(), SUID_DUMP_USER, mm->user_ns): the
 * kernels before task->exec_state.
 */
#include <linux/mm_types.h>
#include <linux/sched/coredump.h>
#include <linux/user_namespace.h>

bool pmc_probe(struct mm_struct *mm, struct user_namespace **ns);
bool pmc_probe(struct mm_struct *mm, struct user_namespace **ns)
{
	*ns = mm->user_ns;
	return get_dumpable(mm) == SUID_DUMP_USER;
}
