// SPDX-License-Identifier: GPL-2.0
/*
 * A task's dumpability and the user namespace that goes with it in
 * task->exec_state (7.2 has it; the mm held them before): what
 * __ptrace_may_access() reads after the credentials.
 */
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/exec_state.h>

bool pmc_probe(struct task_struct *t, struct user_namespace **ns);
bool pmc_probe(struct task_struct *t, struct user_namespace **ns)
{
	const struct task_exec_state *es = rcu_dereference(t->exec_state);

	*ns = es->user_ns;
	return READ_ONCE(es->dumpable) == TASK_DUMPABLE_OWNER;
}
