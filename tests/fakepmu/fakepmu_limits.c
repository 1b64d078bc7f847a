// SPDX-License-Identifier: GPL-2.0
/*
 * fakepmu: what x86's drivers check of an event's raw config and sampling
 * period (see the header comment of fakepmu_main.c for the parameters).
 *
 * - Raw configs: x86_pmu_hw_config() takes config & config_mask (event,
 *   umask, edge, inv, cmask; AMD adds event select 11:8) and drops the rest;
 *   USR and OS come from exclude_user/exclude_kernel, INT and EN are the
 *   driver's.  Intel's AnyThread bit is kept for a CAP_PERFMON caller and
 *   refused (EACCES) to others, as intel_pmu_hw_config() does where the
 *   paranoia level is above 0.  strict_raw=1 refuses every stray bit with
 *   EINVAL instead (which catches a caller passing control bits).
 * - Minimum periods: x86_pmu.limit_period (Nehalem and Haswell 32,
 *   INST_RETIRED.ALL 128 on Haswell/Broadwell): event init refuses a fixed
 *   sampling period below it, pmu::check_period a later one, and a
 *   frequency event's periods are raised to it when the counter is
 *   programmed.
 * - BTS (bts=1, Intel model): period 1 on branch instructions is Intel's
 *   branch trace store: refused with EOPNOTSUPP when the kernel is counted,
 *   accepted user-only but then never calls the overflow handler (its
 *   records go to a buffer a kernel counter does not have), and
 *   check_period(1) refuses it.
 * limit_period, inst_limit_period and bts are also writable under
 * /sys/module/fakepmu/parameters/ (root), so that one boot can test several
 * models: a change applies to events made and periods set after it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/module.h>

#include "fakepmu.h"

/* PERFEVTSEL fields a raw config may carry: event, umask, edge, inv, cmask. */
#define FAKEPMU_RAW_MASK	0xff84ffffULL
/* AMD PERF_CTL: the same plus event select bits 11:8 in bits 35:32. */
#define FAKEPMU_AMD_RAW_MASK	0xfff84ffffULL
/* Intel's AnyThread (PERFEVTSEL bit 21). */
#define FAKEPMU_ANY		BIT_ULL(21)
/* Event and umask of a config (INTEL_ARCH_EVENT_MASK). */
#define FAKEPMU_EVENT_UMASK	0xffffULL
/* INST_RETIRED.ALL (Haswell's erratum HSW11) and INST_RETIRED.ANY. */
#define FAKEPMU_INST_ALL	0x01c0
#define FAKEPMU_INST_ANY	0x00c0

static bool strict_raw;
module_param(strict_raw, bool, 0444);
MODULE_PARM_DESC(strict_raw, "refuse raw configs with bits outside the event fields (EINVAL) instead of masking them as x86 does");

static uint limit_period;
module_param(limit_period, uint, 0644);
MODULE_PARM_DESC(limit_period, "smallest sampling period of any event (Nehalem, Haswell: 32; default 0, none)");

static uint inst_limit_period;
module_param(inst_limit_period, uint, 0644);
MODULE_PARM_DESC(inst_limit_period, "smallest sampling period of instructions retired (Haswell, Broadwell: 128; default 0)");

static bool bts;
module_param(bts, bool, 0644);
MODULE_PARM_DESC(bts, "Intel model: period 1 on branch instructions is BTS (EOPNOTSUPP with the kernel counted, no overflow calls)");

/* Raw configs whose stray bits were masked off. */
static atomic_t fakepmu_raw_masked = ATOMIC_INIT(0);

int fakepmu_raw_code(u64 config, u64 *code)
{
	u64 mask = fakepmu_amd ? FAKEPMU_AMD_RAW_MASK : FAKEPMU_RAW_MASK;

	if (!fakepmu_amd && (config & FAKEPMU_ANY) && !strict_raw) {
		if (!perfmon_capable())
			return -EACCES;
		mask |= FAKEPMU_ANY;
	}
	if (config & ~mask) {
		if (strict_raw)
			return -EINVAL;
		atomic_inc(&fakepmu_raw_masked);
	}
	*code = config & mask;
	return 0;
}

static bool fakepmu_is_inst(u64 code)
{
	code &= FAKEPMU_EVENT_UMASK;
	return code == FAKEPMU_INST_ALL || code == FAKEPMU_INST_ANY;
}

static bool fakepmu_is_branch(u64 code)
{
	return !fakepmu_amd &&
	       (code & FAKEPMU_EVENT_UMASK) == fakepmu_hw_events[PERF_COUNT_HW_BRANCH_INSTRUCTIONS];
}

static s64 fakepmu_limit_of(u64 code)
{
	s64 limit = READ_ONCE(limit_period);

	if (fakepmu_is_inst(code))
		limit = max_t(s64, limit, READ_ONCE(inst_limit_period));
	return limit;
}

/* The smallest period the counter may be programmed with (0: none). */
s64 fakepmu_limit_period(struct perf_event *event)
{
	return fakepmu_limit_of(event->hw.config);
}

static bool fakepmu_bts_period(struct perf_event *event, u64 code, u64 period)
{
	return READ_ONCE(bts) && period == 1 && !event->attr.freq &&
	       !event->attr.exclude_host && fakepmu_is_branch(code);
}

/* Event init's checks of the sampling period, once the code is known. */
int fakepmu_period_init(struct perf_event *event, u64 code)
{
	struct perf_event_attr *attr = &event->attr;

	event->hw.flags = 0;
	if (!is_sampling_event(event) || attr->freq)
		return 0;
	/* x86_pmu_hw_config() checks the limit before Intel's BTS. */
	if (attr->sample_period < fakepmu_limit_of(code))
		return -EINVAL;
	if (fakepmu_bts_period(event, code, attr->sample_period)) {
		if (!attr->exclude_kernel)
			return -EOPNOTSUPP;
		event->hw.flags |= FAKEPMU_F_BTS;
	}
	return 0;
}

/* pmu::check_period: perf_event_period() asks before changing the period. */
int fakepmu_check_period(struct perf_event *event, u64 value)
{
	if (fakepmu_bts_period(event, event->hw.config, value))
		return -EINVAL;
	if (value && value < fakepmu_limit_period(event))
		return -EINVAL;
	return 0;
}

void fakepmu_limits_debugfs(struct dentry *dir)
{
	debugfs_create_atomic_t("raw_masked", 0400, dir, &fakepmu_raw_masked);
}
