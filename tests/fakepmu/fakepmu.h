/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fakepmu's private interface between its files: fakepmu_main.c (the PMU,
 * event codes, hybrid PMUs, state file, load/unload), fakepmu_nmi.c
 * (injection, the NMI, NMI-reentrant counter updates), fakepmu_limits.c
 * (raw masks, minimum periods, BTS) and fakepmu_budget.c (the watchdog's
 * counters and the hardware reservation).
 */
#ifndef FAKEPMU_H
#define FAKEPMU_H

#include <linux/bitops.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>

#define FAKEPMU_MAX_COUNTERS	32
#define FAKEPMU_FIXED		32	/* index of fixed counter 0, as on Intel */
#define FAKEPMU_NFIXED		3
#define FAKEPMU_NSLOTS		(FAKEPMU_FIXED + FAKEPMU_NFIXED)
#define FAKEPMU_WIDTH		48
#define FAKEPMU_MASK		((1ULL << FAKEPMU_WIDTH) - 1)
#define FAKEPMU_MAX_PERIOD	((1ULL << (FAKEPMU_WIDTH - 1)) - 1)

/* hw_perf_event::flags of this PMU's events. */
#define FAKEPMU_F_BTS		0x1	/* Intel's BTS: no overflow handler call */

struct fakepmu;

/*
 * One CPU's counters.  slot[] and hw[] of a counter change in process
 * context with interrupts off (pmu::add/del/start/stop/read) and in the
 * injection NMI, which may land anywhere in between (async=1).  The NMI
 * touches a counter only while its bit in active is set: pmu::start sets it
 * after programming the counter, pmu::stop clears it before the final
 * update (both atomic bitops, as the NMI's own throttling stop clears bits
 * too), as x86's cpuc->active_mask does.  hw[] and hwc->prev_count are
 * updated as x86_perf_event_update() does: cmpxchg on prev_count, so
 * that a read interrupted by the NMI retries.
 */
struct fakepmu_cpu {
	struct fakepmu *owner;
	struct perf_event *slot[FAKEPMU_NSLOTS];
	u64 hw[FAKEPMU_NSLOTS];		/* the 48-bit counter registers */
	unsigned long active[BITS_TO_LONGS(FAKEPMU_NSLOTS)];
	int nmi_pending;		/* an NMI was raised for an injection */
	int nmi_ret;			/* its result (tid= not running: -EAGAIN) */
};

DECLARE_PER_CPU(struct fakepmu_cpu, fakepmu_cpus);

extern bool fakepmu_amd;
extern const u16 *fakepmu_hw_events;
extern atomic_t fakepmu_nmi_overflows;
extern int (*fakepmu_overflow)(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs);

/* fakepmu_main.c */
u32 fakepmu_inject_code(u64 config);
bool fakepmu_set_period(struct fakepmu_cpu *fc, struct perf_event *event);
void fakepmu_stop(struct perf_event *event, int flags);

/* fakepmu_nmi.c */
void fakepmu_update(struct fakepmu_cpu *fc, struct perf_event *event);
int fakepmu_nmi_init(struct dentry *dir);
void fakepmu_nmi_exit(void);

/* fakepmu_limits.c */
int fakepmu_raw_code(u64 config, u64 *code);
int fakepmu_period_init(struct perf_event *event, u64 code);
s64 fakepmu_limit_period(struct perf_event *event);
int fakepmu_check_period(struct perf_event *event, u64 value);
void fakepmu_limits_debugfs(struct dentry *dir);

/* fakepmu_budget.c */
int fakepmu_reserve(struct perf_event *event);
int fakepmu_budget_init(struct dentry *dir);
void fakepmu_budget_exit(void);

#endif /* FAKEPMU_H */
