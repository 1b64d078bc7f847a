// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat - classic UNIX CPU performance-counter APIs on Linux perf_events.
 *
 * Module entry: brings up the shared counter core, then each front-end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "pmc_core.h"
#include "frontend.h"

static int __init pmcompat_init(void)
{
	int ret;

	ret = pmc_core_init();
	if (ret)
		return ret;
	ret = pctr_init();
	if (ret)
		goto err_core;
	ret = perfmon_init();
	if (ret)
		goto err_pctr;
	ret = cpc_init();
	if (ret)
		goto err_perfmon;
	ret = pfcntr_init();
	if (ret)
		goto err_cpc;
	pr_info("version %s loaded\n", PMCOMPAT_VERSION);
	return 0;

err_cpc:
	cpc_exit();
err_perfmon:
	perfmon_exit();
err_pctr:
	pctr_exit();
err_core:
	pmc_core_exit();
	return ret;
}

static void __exit pmcompat_exit(void)
{
	pfcntr_exit();
	cpc_exit();
	perfmon_exit();
	pctr_exit();
	pmc_core_exit();
	pr_info("unloaded\n");
}

module_init(pmcompat_init);
module_exit(pmcompat_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(PMCOMPAT_VERSION);
MODULE_DESCRIPTION("OpenBSD pctr, FreeBSD perfmon, Tru64 pfm and Solaris cpc on perf_events");
