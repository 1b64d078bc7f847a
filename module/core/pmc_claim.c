// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat arbitration across front-ends and openers: single-holder claims
 * (one writer, one opener), the Solaris CPU-binding rule, and budgets that
 * each user (real uid) draws on alone.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "pmc_core.h"

int pmc_claim_try(struct pmc_claim *claim)
{
	return atomic_cmpxchg_acquire(&claim->taken, 0, 1) ? -EBUSY : 0;
}

void pmc_claim_release(struct pmc_claim *claim)
{
	atomic_set_release(&claim->taken, 0);
}

static DEFINE_SPINLOCK(pmc_cpu_claim_lock);
static struct cpumask pmc_cpus_claimed;	/* bound, or being bound */
static struct cpumask pmc_cpus_bound;	/* bound: pmc_claim_cpu_commit() */
/* Bumped when CPU bindings appear, under the lock; read without it. */
static atomic64_t pmc_thread_generation = ATOMIC64_INIT(0);

/*
 * Claim a CPU for a binding exclusively: 0, -EINVAL (no such CPU), -ENODEV
 * (offline), -EAGAIN.  Thread bindings are invalidated only once the
 * binding is made (pmc_claim_cpu_commit()): one that fails takes nothing.
 */
int pmc_claim_cpu(int cpu)
{
	int ret = 0;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	if (!cpu_online(cpu))
		return -ENODEV;
	spin_lock(&pmc_cpu_claim_lock);
	if (cpumask_test_cpu(cpu, &pmc_cpus_claimed))
		ret = -EAGAIN;
	else
		cpumask_set_cpu(cpu, &pmc_cpus_claimed);
	spin_unlock(&pmc_cpu_claim_lock);
	return ret;
}

/*
 * The binding of a claimed CPU took effect: as on Solaris, the first one
 * invalidates every thread binding of the system (none can begin while a
 * CPU is claimed, so one bump covers them all).
 */
void pmc_claim_cpu_commit(int cpu)
{
	spin_lock(&pmc_cpu_claim_lock);
	if (cpumask_empty(&pmc_cpus_bound))
		atomic64_inc(&pmc_thread_generation);
	cpumask_set_cpu(cpu, &pmc_cpus_bound);
	spin_unlock(&pmc_cpu_claim_lock);
}

void pmc_release_cpu(int cpu)
{
	spin_lock(&pmc_cpu_claim_lock);
	cpumask_clear_cpu(cpu, &pmc_cpus_claimed);
	cpumask_clear_cpu(cpu, &pmc_cpus_bound);
	spin_unlock(&pmc_cpu_claim_lock);
}

/* A per-thread binding may begin only while no CPU is bound. */
int pmc_thread_bind_begin(u64 *generation)
{
	int ret = 0;

	spin_lock(&pmc_cpu_claim_lock);
	if (!cpumask_empty(&pmc_cpus_claimed))
		ret = -EAGAIN;
	else
		*generation = atomic64_read(&pmc_thread_generation);
	spin_unlock(&pmc_cpu_claim_lock);
	return ret;
}

/* False once a CPU binding has been made since the thread binding began. */
bool pmc_thread_bind_valid(u64 generation)
{
	return generation == (u64)atomic64_read(&pmc_thread_generation);
}

/* ---- per-user budgets -------------------------------------------------- */

struct pmc_budget_user {
	struct hlist_node node;
	kuid_t uid;
	u64 used;
};

/*
 * Charge amount to the caller's real uid in budget b, up to limit: the
 * user's entry, to give back with pmc_budget_uncharge(); NULL past the
 * limit or without memory.  One user's use never limits another's.
 */
struct pmc_budget_user *pmc_budget_charge(struct pmc_budget *b, u64 amount, u64 limit)
{
	kuid_t uid = current_uid();
	struct pmc_budget_user *u, *new;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	mutex_lock(&b->lock);
	hash_for_each_possible(b->users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			goto found;
	u = new;
	new = NULL;
	if (u) {
		u->uid = uid;
		hash_add(b->users, &u->node, __kuid_val(uid));
	}
found:
	if (u && (amount > limit || u->used > limit - amount)) {
		if (!u->used) {
			hash_del(&u->node);
			kfree(u);
		}
		u = NULL;
	} else if (u) {
		u->used += amount;
	}
	mutex_unlock(&b->lock);
	kfree(new);
	return u;
}

void pmc_budget_uncharge(struct pmc_budget *b, struct pmc_budget_user *u, u64 amount)
{
	if (!u)
		return;
	mutex_lock(&b->lock);
	u->used -= min(amount, u->used);
	if (!u->used) {
		hash_del(&u->node);
		kfree(u);
	}
	mutex_unlock(&b->lock);
}
