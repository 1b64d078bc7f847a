// SPDX-License-Identifier: GPL-2.0
/*
 * fakepmu - a test-only CPU PMU for machines without a hardware PMU.
 *
 * Nothing counts by itself.  A test writes
 *   cpu=N event=0xXUUEE count=C [mode=user|kernel] [ctx=user|kernel]
 *   [ip=0xADDR] [tid=T] [caller=0xADDR] [repeat=R] [async=0|1]
 * to /sys/kernel/debug/fakepmu/inject (all keys in inject_parse.h); CPU N
 * then advances every running counter whose code matches and whose mode
 * filter admits the mode by C, and raises an overflow through
 * perf_event_overflow() with the given ip for every sampling period that
 * elapses; repeat=R does that R times, each in an NMI of its own.  The write
 * returns when all of that is done.
 *
 * Debugfs, /sys/kernel/debug/fakepmu/: state lists the counters in use
 * (cpu, slot=N or slot=fixedN, the config the counter runs, mode filters,
 * count, period, and masked= the raw config bits masked off, if any);
 * nmi_overflows counts the overflows delivered from NMI context,
 * events_made the events perf made on the test PMU, adds the times perf put
 * one on a counter, applied the counters injections advanced, nmi_in_kernel
 * the injection NMIs that interrupted kernel code, raw_masked the raw
 * configs whose stray bits were masked, reservations the hardware
 * reservations made.  A test that writes n to fail_inits makes the next n
 * events fail to be made (EBUSY, as a PMU whose shared resources are taken
 * refuses them).
 *
 * Parameters (/sys/module/fakepmu/parameters/): ncounters, atom_ncounters,
 * hybrid (below, here); strict_raw, limit_period, inst_limit_period, bts
 * (fakepmu_limits.c); watchdog (fakepmu_budget.c).
 *
 * What it models, because code on top of perf meets it on real hardware:
 *
 * - Overflows arrive in an NMI, as x86's PMI does: an NMI_LOCAL handler that
 *   claims only the NMIs raised for an injection (a per-CPU pending flag)
 *   does the counting and the perf_event_overflow() calls, with in_nmi()
 *   true.  By default (async=0) the target CPU sends the NMI to itself
 *   (apic->send_IPI, exported) from a function call IPI that spins,
 *   interrupts off, until it was handled.  async=1 sends it from the
 *   writer's CPU, so that it lands in whatever the target runs, pmu::read
 *   and the other PMU callbacks, perf's context switch and process-context
 *   code included.  Counters are NMI-safe as x86's are: the handler touches
 *   only counters whose active bit pmu::start set, and counts are folded
 *   with a cmpxchg on prev_count (fakepmu_nmi.c).
 *
 * - Throttling: when perf_event_overflow() returns 1 (more than perf's
 *   max_samples_per_tick in one tick) the counter stops, as x86_pmu_stop()
 *   does, and counts nothing until perf's tick starts it again.  repeat=
 *   reaches that rate: the repetitions run on the target with interrupts
 *   off, so within one tick.
 *
 * - Intel layout (the default, any vendor but AMD and Hygon): ncounters
 *   general-purpose 48-bit counters (default 4) and three fixed counters.
 *   Raw configs are PERFEVTSEL words (event, umask, edge, inv, cmask).  As on
 *   Skylake, a config of exactly 0x00c0 (INST_RETIRED.ANY) may use fixed
 *   counter 0, 0x003c (CPU_CLK_UNHALTED.CORE) fixed counter 1, both also any
 *   general-purpose counter, the fixed one preferred; 0x0300 (the
 *   CPU_CLK_UNHALTED.REF pseudo-encoding) runs on fixed counter 2 only.
 *   0x0148 (L1D_PEND_MISS.PENDING, whatever its edge/inv/cmask) runs on
 *   general-purpose counter 2 only, as on Sandy Bridge to Haswell, so two such
 *   pinned events cannot share a CPU.  perf's generic events use the
 *   architectural codes (and 0x0300 for reference cycles, as perf does on
 *   Intel), cache events Skylake's codes.
 *
 * - AMD layout, when the CPU is AMD or Hygon: six general-purpose 48-bit
 *   counters by default, no fixed counters, no constraints, raw configs in
 *   PERF_CTL layout (event select bits 7:0 and 35:32, unit mask, edge, inv,
 *   cmask) and perf's AMD codes for the generic and cache events: the
 *   K7-to-family-16h tables below family 17h (TCG's "-cpu max" is family
 *   0Fh), the Zen 1 tables from family 17h on (perf picks newer tables for
 *   Zen 2 and Zen 4; those are not modelled).  The inject file names an AMD
 *   event select's bits 11:8 in event= bits 19:16.
 *
 * - Raw configs with other bits set are masked to the layout's fields, as
 *   x86_pmu_hw_config() does (Intel's AnyThread is kept for CAP_PERFMON,
 *   EACCES otherwise).  strict_raw=1 refuses them with EINVAL instead, which
 *   catches callers that pass control bits (USR, OS, INT, EN).
 *
 * - limit_period=N: no sampling period below N (Nehalem and Haswell: 32);
 *   inst_limit_period=N: none below N for instructions retired (0x00c0,
 *   0x01c0, the generic event; Haswell and Broadwell: 128).  Event init and
 *   pmu::check_period (PERF_EVENT_IOC_PERIOD) refuse smaller fixed periods
 *   with EINVAL, and whenever a counter is programmed what is left of its
 *   period is raised to the limit, as x86_perf_event_set_period() does.
 *
 * - bts=1 (Intel layout): period 1 on branch instructions (0x00c4) is
 *   Intel's BTS: EOPNOTSUPP unless the kernel is excluded; user-only it
 *   counts but never calls the overflow handler; check_period(1) is EINVAL.
 *
 * - watchdog=1: a pinned CPU-cycles kernel counter with a 10 s period on
 *   every online CPU, as the NMI watchdog makes, following CPU hotplug (a
 *   cpuhp state of its own) and freed at unload: it takes fixed counter 1 in
 *   the Intel layout, a general-purpose counter in the AMD one.  A pinned
 *   event that finds no free counter then fails pmu::add with EAGAIN, and
 *   perf puts it in error state, as on hardware.
 *
 * - The first event reserves the hardware and the last one's destroy
 *   releases it, with the mutex, per-CPU allocations and calls on every CPU
 *   of x86_reserve_hardware()/x86_release_hardware() and the DS buffers
 *   (fakepmu_budget.c).
 *
 * - hybrid=1 registers two PMUs, like Alder Lake: "cpu_core" (type
 *   PERF_TYPE_RAW) on the first half of the CPUs online at load time (rounded
 *   up) and "cpu_atom" (a dynamic type, atom_ncounters general-purpose
 *   counters, default 3) on all the others.  Each has a sysfs "cpus" file,
 *   refuses events bound to another PMU's CPU with ENOENT as
 *   x86_pmu_event_init() does, counts task events only while the task runs on
 *   one of its CPUs (pmu::filter, pmu::filter_match before 6.2), and takes
 *   PERF_TYPE_HARDWARE and PERF_TYPE_HW_CACHE events carrying its type in
 *   config bits 63:32 (PERF_PMU_CAP_EXTENDED_HW_TYPE).  An injection counts on
 *   whichever PMU owns the CPU; the state file names it (pmu=).  hybrid=2 is
 *   hybrid=1.  hybrid=3 adds a third, like Arrow Lake-H's LP E-cores:
 *   "cpu_lowpower" (a dynamic type, atom_ncounters counters) on the last CPU
 *   online at load time; cpu_core takes the first half of the others (rounded
 *   up), cpu_atom the rest.
 *
 * perf_event_overflow() is not exported to modules (every real PMU driver is
 * built in), so this test-only module resolves its address at load time by
 * asking kprobes where the symbol is.  Never load it on a production system.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <asm/processor.h>

#include "pmc_config.h"
#include "fakepmu.h"

/* The general-purpose counter L1D_PEND_MISS.PENDING is constrained to. */
#define FAKEPMU_PEND_MISS	0x0148
#define FAKEPMU_PEND_MISS_CTR	2

static int ncounters = -1;
module_param(ncounters, int, 0444);
MODULE_PARM_DESC(ncounters, "general-purpose counters per CPU (1-32; default 4 on Intel, 6 on AMD)");

static int atom_ncounters = 3;
module_param(atom_ncounters, int, 0444);
MODULE_PARM_DESC(atom_ncounters, "general-purpose counters per cpu_atom (and cpu_lowpower) CPU with hybrid (1-32, default 3)");

static int hybrid;
module_param(hybrid, int, 0444);
MODULE_PARM_DESC(hybrid, "0: one PMU; 1 or 2: cpu_core and cpu_atom, half of the CPUs each; 3: and cpu_lowpower on the last CPU");

struct fakepmu {
	struct pmu pmu;
	const char *name;
	int type;			/* asked of perf_pmu_register() */
	unsigned int ngp;		/* general-purpose counters */
	cpumask_t cpus;
	bool registered;
};

static struct fakepmu fakepmu_pmus[3];
static unsigned int fakepmu_npmus;

DEFINE_PER_CPU(struct fakepmu_cpu, fakepmu_cpus);

bool fakepmu_amd;
atomic_t fakepmu_nmi_overflows = ATOMIC_INIT(0);
static atomic_t fakepmu_events_made = ATOMIC_INIT(0);
/* Tests write n: the next n events of this PMU fail to be made (EBUSY). */
static atomic_t fakepmu_fail_inits = ATOMIC_INIT(0);
static atomic_t fakepmu_adds = ATOMIC_INIT(0);

int (*fakepmu_overflow)(struct perf_event *event,
			struct perf_sample_data *data,
			struct pt_regs *regs);

static struct fakepmu *to_fakepmu(struct pmu *pmu)
{
	return container_of(pmu, struct fakepmu, pmu);
}

/* ---- event codes ------------------------------------------------------- */

/* Generic hardware events; 0: none (ENOENT). */
static const u16 fakepmu_intel_hw_events[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = 0x003c,
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0x4f2e,
	[PERF_COUNT_HW_CACHE_MISSES] = 0x412e,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c4,
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c5,
	[PERF_COUNT_HW_REF_CPU_CYCLES] = 0x0300,
};

/* perf's map for AMD K7 to family 16h. */
static const u16 fakepmu_amd_hw_events[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = 0x0076,
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0x077d,
	[PERF_COUNT_HW_CACHE_MISSES] = 0x077e,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c2,
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c3,
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = 0x00d0,
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = 0x00d1,
};

/* perf's map for AMD family 17h (Zen 1). */
static const u16 fakepmu_zen1_hw_events[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = 0x0076,
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0xff60,
	[PERF_COUNT_HW_CACHE_MISSES] = 0x0964,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c2,
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c3,
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = 0x0287,
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = 0x0187,
};

#define C(x) PERF_COUNT_HW_CACHE_##x
#define NA (-1)		/* the operation does not exist: EINVAL */

/* Skylake's codes for the generic cache events; 0: not counted (ENOENT). */
static const int fakepmu_intel_cache_events[C(MAX)][C(OP_MAX)][C(RESULT_MAX)] = {
	[C(L1D)] = {
		[C(OP_READ)] = { 0x81d0, 0x0151 },
		[C(OP_WRITE)] = { 0x82d0, 0 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(L1I)] = {
		[C(OP_READ)] = { 0, 0x0283 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(LL)] = {
		[C(OP_READ)] = { 0x01b7, 0x01b7 },
		[C(OP_WRITE)] = { 0x01b7, 0x01b7 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(DTLB)] = {
		[C(OP_READ)] = { 0x81d0, 0x0e08 },
		[C(OP_WRITE)] = { 0x82d0, 0x0e49 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(ITLB)] = {
		[C(OP_READ)] = { 0x2085, 0x0e85 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(BPU)] = {
		[C(OP_READ)] = { 0x00c4, 0x00c5 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(NODE)] = {
		[C(OP_READ)] = { 0x01b7, 0x01b7 },
		[C(OP_WRITE)] = { 0x01b7, 0x01b7 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
};

/* perf's AMD cache events for K7 to family 16h. */
static const int fakepmu_amd_cache_events[C(MAX)][C(OP_MAX)][C(RESULT_MAX)] = {
	[C(L1D)] = {
		[C(OP_READ)] = { 0x0040, 0x0141 },
		[C(OP_WRITE)] = { 0, 0 },
		[C(OP_PREFETCH)] = { 0x0267, 0x0167 },
	},
	[C(L1I)] = {
		[C(OP_READ)] = { 0x0080, 0x0081 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { 0x014b, 0 },
	},
	[C(LL)] = {
		[C(OP_READ)] = { 0x037d, 0x037e },
		[C(OP_WRITE)] = { 0x017f, 0 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(DTLB)] = {
		[C(OP_READ)] = { 0x0040, 0x0746 },
		[C(OP_WRITE)] = { 0, 0 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(ITLB)] = {
		[C(OP_READ)] = { 0x0080, 0x0385 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(BPU)] = {
		[C(OP_READ)] = { 0x00c2, 0x00c3 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(NODE)] = {
		[C(OP_READ)] = { 0xb8e9, 0x98e9 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
};

/* perf's AMD cache events from family 17h on. */
static const int fakepmu_zen1_cache_events[C(MAX)][C(OP_MAX)][C(RESULT_MAX)] = {
	[C(L1D)] = {
		[C(OP_READ)] = { 0x0040, 0xc860 },
		[C(OP_WRITE)] = { 0, 0 },
		[C(OP_PREFETCH)] = { 0xff5a, 0 },
	},
	[C(L1I)] = {
		[C(OP_READ)] = { 0x0080, 0x0081 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(DTLB)] = {
		[C(OP_READ)] = { 0xff45, 0xf045 },
		[C(OP_WRITE)] = { 0, 0 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(ITLB)] = {
		[C(OP_READ)] = { 0x0084, 0xff85 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(BPU)] = {
		[C(OP_READ)] = { 0x00c2, 0x00c3 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(NODE)] = {
		[C(OP_READ)] = { 0, 0 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
};

static const int (*fakepmu_cache_events)[C(OP_MAX)][C(RESULT_MAX)] = fakepmu_intel_cache_events;

#undef C

const u16 *fakepmu_hw_events = fakepmu_intel_hw_events;

static void fakepmu_pick_vendor(void)
{
	fakepmu_amd = boot_cpu_data.x86_vendor == X86_VENDOR_AMD ||
		      boot_cpu_data.x86_vendor == X86_VENDOR_HYGON;
	if (!fakepmu_amd)
		return;
	if (boot_cpu_data.x86 >= 0x17) {
		fakepmu_hw_events = fakepmu_zen1_hw_events;
		fakepmu_cache_events = fakepmu_zen1_cache_events;
	} else {
		fakepmu_hw_events = fakepmu_amd_hw_events;
		fakepmu_cache_events = fakepmu_amd_cache_events;
	}
}

static int fakepmu_cache_code(u64 config, u64 *code)
{
	unsigned int type = config & 0xff;
	unsigned int op = (config >> 8) & 0xff;
	unsigned int result = (config >> 16) & 0xff;
	int val;

	if (config >> 24 || type >= PERF_COUNT_HW_CACHE_MAX ||
	    op >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return -EINVAL;
	val = fakepmu_cache_events[type][op][result];
	if (val == NA)
		return -EINVAL;
	if (!val)
		return -ENOENT;
	*code = val;
	return 0;
}

/* The inject file's name for a config: umask << 8 | event | evsel[11:8] << 16. */
u32 fakepmu_inject_code(u64 config)
{
	return (config & 0xffff) | (((config >> 32) & 0xf) << 16);
}

/* ---- the PMU ----------------------------------------------------------- */

static int fakepmu_event_init(struct perf_event *event)
{
	struct fakepmu *fp = to_fakepmu(event->pmu);
	struct perf_event_attr *attr = &event->attr;
	struct hw_perf_event *hwc = &event->hw;
	u64 code;
	int ret;

	if (attr->type != event->pmu->type && attr->type != PERF_TYPE_HARDWARE &&
	    attr->type != PERF_TYPE_HW_CACHE)
		return -ENOENT;
	/* A hybrid PMU refuses another PMU's CPUs, as x86_pmu_event_init(). */
	if (hybrid && event->cpu != -1 && !cpumask_test_cpu(event->cpu, &fp->cpus))
		return -ENOENT;

	if (attr->type == event->pmu->type) {
		ret = fakepmu_raw_code(attr->config, &code);
		if (ret)
			return ret;
	} else if (attr->type == PERF_TYPE_HARDWARE) {
		/* perf core has stripped an extended type from bits 63:32. */
		if (attr->config >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		code = fakepmu_hw_events[attr->config];
		if (!code)
			return -ENOENT;
	} else {
		ret = fakepmu_cache_code(attr->config, &code);
		if (ret)
			return ret;
	}

	if (attr->precise_ip || has_branch_stack(event))
		return -EOPNOTSUPP;
	ret = fakepmu_period_init(event, code);
	if (ret)
		return ret;
	if (atomic_dec_if_positive(&fakepmu_fail_inits) >= 0)
		return -EBUSY;
	ret = fakepmu_reserve(event);
	if (ret)
		return ret;

	hwc->config = code;
	hwc->idx = -1;
	if (!is_sampling_event(event)) {
		/* Counting events still take a "PMI" when the counter wraps. */
		hwc->sample_period = FAKEPMU_MAX_PERIOD;
		hwc->last_period = hwc->sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
	}
	atomic_inc(&fakepmu_events_made);
	return 0;
}

/*
 * Program the counter to wrap after what is left of the period (at most
 * FAKEPMU_MAX_PERIOD at a time).  Returns true when a new period began, i.e.
 * when the previous one has fully elapsed.
 */
bool fakepmu_set_period(struct fakepmu_cpu *fc, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);
	s64 period = hwc->sample_period;
	bool elapsed = false;

	if (unlikely(left <= -period)) {
		left = period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
		elapsed = true;
	} else if (unlikely(left <= 0)) {
		left += period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
		elapsed = true;
	}
	if (left > FAKEPMU_MAX_PERIOD)
		left = FAKEPMU_MAX_PERIOD;
	/* x86's limit_period: a frequency event's period is raised to it. */
	left = max(left, fakepmu_limit_period(event));

	/* Not running (add, start) or in the NMI: nothing races these. */
	local64_set(&hwc->prev_count, (u64)-left);
	WRITE_ONCE(fc->hw[hwc->idx], (u64)-left & FAKEPMU_MASK);
	perf_event_update_userpage(event);
	return elapsed;
}

static void fakepmu_start(struct perf_event *event, int flags)
{
	struct fakepmu_cpu *fc = this_cpu_ptr(&fakepmu_cpus);
	struct hw_perf_event *hwc = &event->hw;

	if (WARN_ON_ONCE(!(hwc->state & PERF_HES_STOPPED)))
		return;
	if (flags & PERF_EF_RELOAD) {
		WARN_ON_ONCE(!(hwc->state & PERF_HES_UPTODATE));
		fakepmu_set_period(fc, event);
	}
	hwc->state = 0;
	/*
	 * The injection NMI counts from here on (x86_pmu_start() sets
	 * active_mask last too).  set_bit() is atomic and, being a locked
	 * instruction with a "memory" clobber, orders the counter's
	 * programming before it for the NMI on this CPU.
	 */
	set_bit(hwc->idx, fc->active);
}

void fakepmu_stop(struct perf_event *event, int flags)
{
	struct fakepmu_cpu *fc = this_cpu_ptr(&fakepmu_cpus);
	struct hw_perf_event *hwc = &event->hw;

	/* The NMI leaves the counter alone from here on (atomic: it may clear bits too). */
	test_and_clear_bit(hwc->idx, fc->active);
	hwc->state |= PERF_HES_STOPPED;
	if ((flags & PERF_EF_UPDATE) && !(hwc->state & PERF_HES_UPTODATE)) {
		fakepmu_update(fc, event);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

/* The fixed counter a config may use, or -1. */
static int fakepmu_fixed_counter(u64 config)
{
	if (fakepmu_amd)
		return -1;
	switch (config) {
	case 0x00c0:
		return 0;
	case 0x003c:
		return 1;
	case 0x0300:
		return 2;
	}
	return -1;
}

/* Pick a free counter the event may use, as x86's scheduler would. */
static int fakepmu_pick_counter(struct fakepmu_cpu *fc, u64 config)
{
	int fixed = fakepmu_fixed_counter(config);
	unsigned int i;

	if (fixed >= 0 && !fc->slot[FAKEPMU_FIXED + fixed])
		return FAKEPMU_FIXED + fixed;
	if (config == 0x0300)		/* a pseudo-encoding: fixed only */
		return -EAGAIN;
	if (!fakepmu_amd && (config & 0xffff) == FAKEPMU_PEND_MISS) {
		if (fc->owner->ngp > FAKEPMU_PEND_MISS_CTR &&
		    !fc->slot[FAKEPMU_PEND_MISS_CTR])
			return FAKEPMU_PEND_MISS_CTR;
		return -EAGAIN;
	}
	for (i = 0; i < fc->owner->ngp; i++)
		if (!fc->slot[i])
			return i;
	return -EAGAIN;
}

static int fakepmu_add(struct perf_event *event, int flags)
{
	struct fakepmu_cpu *fc = this_cpu_ptr(&fakepmu_cpus);
	struct hw_perf_event *hwc = &event->hw;

	atomic_inc(&fakepmu_adds);
	int idx;

	/* The filter keeps task events off other PMUs' CPUs; be sure. */
	if (fc->owner != to_fakepmu(event->pmu))
		return -EAGAIN;
	idx = fakepmu_pick_counter(fc, hwc->config);
	if (idx < 0)
		return idx;

	/* Before pmu::start sets the active bit the NMI looks at. */
	WRITE_ONCE(fc->slot[idx], event);
	hwc->idx = idx;
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		fakepmu_start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	return 0;
}

static void fakepmu_del(struct perf_event *event, int flags)
{
	struct fakepmu_cpu *fc = this_cpu_ptr(&fakepmu_cpus);
	struct hw_perf_event *hwc = &event->hw;

	fakepmu_stop(event, PERF_EF_UPDATE);
	/* The active bit is clear: the NMI no longer looks at the slot. */
	WRITE_ONCE(fc->slot[hwc->idx], NULL);
	hwc->idx = -1;
	perf_event_update_userpage(event);
}

static void fakepmu_read(struct perf_event *event)
{
	if (event->hw.idx >= 0)
		fakepmu_update(this_cpu_ptr(&fakepmu_cpus), event);
}

/*
 * Hybrid: task events run only on the PMU's own CPUs.  6.2 replaced
 * pmu::filter_match by pmu::filter (the PMC_HAVE_PMU_FILTER probe, in
 * compat/probes/) and dropped PERF_PMU_CAP_HETEROGENEOUS_CPUS in the same
 * change.
 */
#ifdef PMC_HAVE_PMU_FILTER
static bool fakepmu_filter(struct pmu *pmu, int cpu)
{
	return !cpumask_test_cpu(cpu, &to_fakepmu(pmu)->cpus);
}
#else
static int fakepmu_filter_match(struct perf_event *event)
{
	return cpumask_test_cpu(smp_processor_id(), &to_fakepmu(event->pmu)->cpus);
}
#endif

static ssize_t cpus_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return cpumap_print_to_pagebuf(true, buf, &to_fakepmu(pmu)->cpus);
}
static DEVICE_ATTR_RO(cpus);

static struct attribute *fakepmu_hybrid_attrs[] = {
	&dev_attr_cpus.attr,
	NULL,
};

static const struct attribute_group fakepmu_hybrid_group = {
	.attrs = fakepmu_hybrid_attrs,
};

static const struct attribute_group *fakepmu_hybrid_groups[] = {
	&fakepmu_hybrid_group,
	NULL,
};

/*
 * Before 6.2 (no pmu::filter), perf_pmu_register() remembers for good that a
 * PMU took the per-task hardware context and WARNs on the next one, so
 * reloading this module would lose per-task events.  PMUs that declare
 * heterogeneous CPUs are exempt (and two hybrid PMUs need it to share that
 * context); the flag changes nothing else and is gone with pmu::filter.
 */
#ifdef PMC_HAVE_PMU_FILTER
#define FAKEPMU_CAPS	0
#else
#define FAKEPMU_CAPS	PERF_PMU_CAP_HETEROGENEOUS_CPUS
#endif

static void fakepmu_setup(struct fakepmu *fp, const char *name, int type,
			  unsigned int ngp)
{
	fp->name = name;
	fp->type = type;
	fp->ngp = ngp;
	fp->pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.capabilities	= FAKEPMU_CAPS,
		.task_ctx_nr	= perf_hw_context,
		.event_init	= fakepmu_event_init,
		.add		= fakepmu_add,
		.del		= fakepmu_del,
		.start		= fakepmu_start,
		.stop		= fakepmu_stop,
		.read		= fakepmu_read,
	};
	if (!hybrid)
		return;
	fp->pmu.capabilities |= PERF_PMU_CAP_EXTENDED_HW_TYPE;
	fp->pmu.attr_groups = fakepmu_hybrid_groups;
#ifdef PMC_HAVE_PMU_FILTER
	fp->pmu.filter = fakepmu_filter;
#else
	fp->pmu.filter_match = fakepmu_filter_match;
#endif
}

struct fakepmu_snap {
	unsigned int n;
	const char *pmu;
	struct {
		unsigned int slot;
		u64 config, count, period;
		u64 masked;		/* raw config bits masked off */
		bool user, kernel;
	} c[FAKEPMU_NSLOTS];
};

static void fakepmu_snapshot(void *arg)
{
	struct fakepmu_cpu *fc = this_cpu_ptr(&fakepmu_cpus);
	struct fakepmu_snap *s = arg;
	unsigned int i;

	s->n = 0;
	s->pmu = fc->owner ? fc->owner->name : "?";
	for (i = 0; i < FAKEPMU_NSLOTS; i++) {
		struct perf_event *event = fc->slot[i];

		if (!event)
			continue;
		if (test_bit(i, fc->active))
			fakepmu_update(fc, event);
		s->c[s->n].slot = i;
		s->c[s->n].config = event->hw.config;
		s->c[s->n].user = !event->attr.exclude_user;
		s->c[s->n].kernel = !event->attr.exclude_kernel;
		s->c[s->n].count = local64_read(&event->count);
		s->c[s->n].period = is_sampling_event(event) ? event->hw.sample_period : 0;
		s->c[s->n].masked = event->attr.type == event->pmu->type ?
				    event->attr.config & ~event->hw.config : 0;
		s->n++;
	}
}

static int fakepmu_state_show(struct seq_file *m, void *v)
{
	struct fakepmu_snap *s;
	unsigned int cpu, i;
	char slot[16];

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (smp_call_function_single(cpu, fakepmu_snapshot, s, 1))
			continue;
		for (i = 0; i < s->n; i++) {
			if (s->c[i].slot >= FAKEPMU_FIXED)
				snprintf(slot, sizeof(slot), "fixed%u",
					 s->c[i].slot - FAKEPMU_FIXED);
			else
				snprintf(slot, sizeof(slot), "%u", s->c[i].slot);
			seq_printf(m, "cpu=%u slot=%s config=0x%llx user=%d kernel=%d count=%llu period=%llu",
				   cpu, slot, s->c[i].config, s->c[i].user,
				   s->c[i].kernel, s->c[i].count, s->c[i].period);
			if (s->c[i].masked)
				seq_printf(m, " masked=0x%llx", s->c[i].masked);
			if (hybrid)
				seq_printf(m, " pmu=%s", s->pmu);
			seq_putc(m, '\n');
		}
	}
	cpus_read_unlock();
	kfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fakepmu_state);

/* ---- load / unload ------------------------------------------------------ */

static struct dentry *fakepmu_dir;

static int fakepmu_resolve_overflow(void)
{
	static const char name[] = "perf_event_overflow";
	struct kprobe kp = { .symbol_name = name };
	char sym[KSYM_SYMBOL_LEN];
	unsigned long addr, off = 0;
	const char *p;
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);

	/* kprobes may step over an ENDBR: go back to the symbol's start. */
	sprint_symbol(sym, addr);
	if (strncmp(sym, name, sizeof(name) - 1) || sym[sizeof(name) - 1] != '+')
		return -ENOENT;
	p = sym + sizeof(name);
	if (sscanf(p, "0x%lx/", &off) != 1 || off > 16)
		return -ENOENT;
	fakepmu_overflow = (void *)(addr - off);
	return 0;
}

static bool fakepmu_pmu_present(const char *name)
{
	char p[64];
	struct path path;

	snprintf(p, sizeof(p), "/sys/bus/event_source/devices/%s", name);
	if (kern_path(p, LOOKUP_FOLLOW, &path))
		return false;
	path_put(&path);
	return true;
}

/*
 * Split the CPUs between the PMUs and point every CPU at its own: with
 * hybrid=3 the last online CPU is cpu_lowpower's, of the others the first
 * half cpu_core's, the rest (and every CPU offline now) cpu_atom's.
 */
static int fakepmu_assign_cpus(void)
{
	unsigned int cpu, ncore, nonline, i, n = 0;
	bool lp = fakepmu_npmus == 3;

	if (!hybrid) {
		cpumask_copy(&fakepmu_pmus[0].cpus, cpu_possible_mask);
	} else {
		cpus_read_lock();
		nonline = num_online_cpus();
		ncore = (nonline - lp + 1) / 2;
		for_each_online_cpu(cpu) {
			n++;
			if (n <= ncore)
				cpumask_set_cpu(cpu, &fakepmu_pmus[0].cpus);
			else if (lp && n == nonline)
				cpumask_set_cpu(cpu, &fakepmu_pmus[2].cpus);
		}
		cpus_read_unlock();
		cpumask_andnot(&fakepmu_pmus[1].cpus, cpu_possible_mask,
			       &fakepmu_pmus[0].cpus);
		if (lp)
			cpumask_andnot(&fakepmu_pmus[1].cpus, &fakepmu_pmus[1].cpus,
				       &fakepmu_pmus[2].cpus);
		for (i = 0; i < fakepmu_npmus; i++)
			if (cpumask_empty(&fakepmu_pmus[i].cpus))
				return -EINVAL;
	}
	for_each_possible_cpu(cpu)
		for (i = 0; i < fakepmu_npmus; i++)
			if (cpumask_test_cpu(cpu, &fakepmu_pmus[i].cpus))
				per_cpu(fakepmu_cpus, cpu).owner = &fakepmu_pmus[i];
	return 0;
}

static void fakepmu_unregister(void)
{
	unsigned int i;

	for (i = 0; i < fakepmu_npmus; i++)
		if (fakepmu_pmus[i].registered)
			perf_pmu_unregister(&fakepmu_pmus[i].pmu);
}

static int __init fakepmu_init(void)
{
	unsigned int i;
	int ret;

	fakepmu_pick_vendor();
	if (ncounters == -1)
		ncounters = fakepmu_amd ? 6 : 4;
	if (ncounters < 1 || ncounters > FAKEPMU_MAX_COUNTERS ||
	    atom_ncounters < 1 || atom_ncounters > FAKEPMU_MAX_COUNTERS ||
	    hybrid < 0 || hybrid > 3)
		return -EINVAL;
	if (fakepmu_pmu_present("cpu") || fakepmu_pmu_present("cpu_core")) {
		pr_err("a CPU PMU is already registered; fakepmu is only for machines without one\n");
		return -EEXIST;
	}
	ret = fakepmu_resolve_overflow();
	if (ret) {
		pr_err("cannot locate perf_event_overflow (%d); needs CONFIG_KPROBES\n", ret);
		return ret;
	}

	if (hybrid) {
		fakepmu_setup(&fakepmu_pmus[0], "cpu_core", PERF_TYPE_RAW, ncounters);
		fakepmu_setup(&fakepmu_pmus[1], "cpu_atom", -1, atom_ncounters);
		fakepmu_npmus = 2;
		if (hybrid == 3) {
			fakepmu_setup(&fakepmu_pmus[2], "cpu_lowpower", -1, atom_ncounters);
			fakepmu_npmus = 3;
		}
	} else {
		fakepmu_setup(&fakepmu_pmus[0], "cpu", PERF_TYPE_RAW, ncounters);
		fakepmu_npmus = 1;
	}
	ret = fakepmu_assign_cpus();
	if (ret) {
		pr_err("hybrid=%d needs %u online CPUs\n", hybrid, fakepmu_npmus);
		return ret;
	}

	fakepmu_dir = debugfs_create_dir("fakepmu", NULL);
	ret = fakepmu_nmi_init(fakepmu_dir);
	if (ret) {
		debugfs_remove_recursive(fakepmu_dir);
		return ret;
	}
	for (i = 0; i < fakepmu_npmus; i++) {
		struct fakepmu *fp = &fakepmu_pmus[i];

		fp->pmu.check_period = fakepmu_check_period;
		ret = perf_pmu_register(&fp->pmu, fp->name, fp->type);
		if (ret)
			goto fail;
		fp->registered = true;
		if (fp->type == PERF_TYPE_RAW && fp->pmu.type != PERF_TYPE_RAW) {
			pr_err("PERF_TYPE_RAW is taken by another PMU\n");
			ret = -EEXIST;
			goto fail;
		}
	}

	debugfs_create_file("state", 0400, fakepmu_dir, NULL, &fakepmu_state_fops);
	debugfs_create_atomic_t("nmi_overflows", 0400, fakepmu_dir, &fakepmu_nmi_overflows);
	debugfs_create_atomic_t("events_made", 0400, fakepmu_dir, &fakepmu_events_made);
	debugfs_create_atomic_t("fail_inits", 0600, fakepmu_dir, &fakepmu_fail_inits);
	debugfs_create_atomic_t("adds", 0400, fakepmu_dir, &fakepmu_adds);
	fakepmu_limits_debugfs(fakepmu_dir);
	ret = fakepmu_budget_init(fakepmu_dir);
	if (ret)
		goto fail;
	for (i = 0; hybrid && i < fakepmu_npmus; i++)
		pr_info("test PMU registered: %s (type %d, CPUs %*pbl, %u counters), %d bits\n",
			fakepmu_pmus[i].name, fakepmu_pmus[i].pmu.type,
			cpumask_pr_args(&fakepmu_pmus[i].cpus), fakepmu_pmus[i].ngp,
			FAKEPMU_WIDTH);
	if (!hybrid)
		pr_info("test PMU registered: %s layout, %u counters per CPU%s, %d bits\n",
			fakepmu_amd ? "AMD" : "Intel", ncounters,
			fakepmu_amd ? "" : " and 3 fixed", FAKEPMU_WIDTH);
	return 0;

fail:
	fakepmu_budget_exit();
	debugfs_remove_recursive(fakepmu_dir);
	fakepmu_unregister();
	fakepmu_nmi_exit();
	return ret;
}

static void __exit fakepmu_exit(void)
{
	fakepmu_budget_exit();
	debugfs_remove_recursive(fakepmu_dir);
	fakepmu_unregister();
	fakepmu_nmi_exit();
}

module_init(fakepmu_init);
module_exit(fakepmu_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pmcompat test-only PMU with injected counts");
