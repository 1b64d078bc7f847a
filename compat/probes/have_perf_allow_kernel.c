// SPDX-License-Identifier: GPL-2.0
/*
 * perf_allow_kernel(void), exported (6.12 on): perf's own answer for
 * kernel-mode counting (perf_event_paranoid and the perf LSM hook).  Older
 * kernels have an inline that takes the attr and needs symbols modules
 * cannot use.
 *
 * pmc-probe-export: perf_allow_kernel
 */
#include <linux/perf_event.h>

int pmc_probe(void);
int pmc_probe(void)
{
	int (*fn)(void) = perf_allow_kernel;

	return fn();
}
