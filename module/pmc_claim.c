// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat arbitration across front-ends and openers: single-holder claims
 * (one writer, one opener) and the Solaris CPU-binding rule.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
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
static struct cpumask pmc_cpus_claimed;
static u64 pmc_thread_generation;	/* bumped when CPU bindings appear */

/* Bind a CPU exclusively: 0, -EINVAL (no such CPU), -ENODEV (offline), -EAGAIN. */
int pmc_claim_cpu(int cpu)
{
	int ret = 0;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	if (!cpu_online(cpu))
		return -ENODEV;
	spin_lock(&pmc_cpu_claim_lock);
	if (cpumask_test_cpu(cpu, &pmc_cpus_claimed)) {
		ret = -EAGAIN;
	} else {
		if (cpumask_empty(&pmc_cpus_claimed))
			pmc_thread_generation++;
		cpumask_set_cpu(cpu, &pmc_cpus_claimed);
	}
	spin_unlock(&pmc_cpu_claim_lock);
	return ret;
}

void pmc_release_cpu(int cpu)
{
	spin_lock(&pmc_cpu_claim_lock);
	cpumask_clear_cpu(cpu, &pmc_cpus_claimed);
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
		*generation = pmc_thread_generation;
	spin_unlock(&pmc_cpu_claim_lock);
	return ret;
}

/* False once a CPU binding has been made since the thread binding began. */
bool pmc_thread_bind_valid(u64 generation)
{
	bool valid;

	spin_lock(&pmc_cpu_claim_lock);
	valid = generation == pmc_thread_generation;
	spin_unlock(&pmc_cpu_claim_lock);
	return valid;
}
