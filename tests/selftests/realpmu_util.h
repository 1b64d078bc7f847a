/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the tests that run against a real PMU driver (realpmu_test,
 * realpmu_limits_test): on arm64, Linux's own ARMv8 PMUv3 driver, as QEMU's
 * TCG emulates it (exact counts); on a user's machine, its x86 or arm64
 * PMU (counts within rp_tol()).  Include after pmc_test_util.h and
 * kselftest_harness.h.
 *
 * What QEMU's arm64 PMU gives (../shared/reviews/arm64-pmu-facts-2026-11-28.md):
 *  - INST_RETIRED exists only under "-icount shift=N": without it perf's
 *    instructions event fails with ENOENT; with it and -smp 1 a user-mode
 *    count of the loop below is exactly 2N + a fixed entry cost;
 *  - under -icount shift=0 user-mode cycles equal user-mode instructions,
 *    and the cycle counter (PMCCNTR) overflows exactly; the general
 *    counters raise their overflow late (a QEMU defect), so the overflow
 *    tests count cycles;
 *  - with more than one vCPU under icount, INST_RETIRED takes in the other
 *    vCPUs' instructions: the exact parts need one online CPU.
 */
#ifndef REALPMU_UTIL_H
#define REALPMU_UTIL_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/ioctl.h>

/*
 * The workload: rp_loop(n) runs exactly 2n instructions in its loop
 * (n >= 1), plus its return.  rp_loop_end is the address after it, so
 * that a sampled pc can be checked to be inside.
 */
#if defined(__aarch64__)
__asm__(".text\n"
	".p2align 4\n"
	".global rp_loop\n"
	".type rp_loop, %function\n"
	"rp_loop:\n"
	"1:	subs x0, x0, #1\n"
	"	b.ne 1b\n"
	"	ret\n"
	".size rp_loop, .-rp_loop\n"
	".global rp_loop_end\n"
	"rp_loop_end:\n"
	"	nop\n");
#elif defined(__x86_64__)
__asm__(".text\n"
	".p2align 4\n"
	".global rp_loop\n"
	".type rp_loop, @function\n"
	"rp_loop:\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	".size rp_loop, .-rp_loop\n"
	".global rp_loop_end\n"
	"rp_loop_end:\n"
	"	nop\n");
#else
#error "realpmu tests: no workload loop for this architecture"
#endif
void rp_loop(unsigned long n);
extern char rp_loop_end[];

static inline int rp_in_loop(const void *pc)
{
	return (const char *)pc >= (const char *)rp_loop &&
	       (const char *)pc < rp_loop_end;
}

/* A user-mode perf event of this thread, disabled: fd or -errno. */
static inline int rp_perf_open(uint32_t type, uint64_t config, int pinned)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.pinned = pinned;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* perf's own count of rp_loop(n) on this thread: 0 if it cannot count. */
static inline uint64_t rp_perf_loop(uint64_t config, unsigned long n)
{
	uint64_t v = 0;
	int fd = rp_perf_open(PERF_TYPE_HARDWARE, config, 0);

	if (fd < 0)
		return 0;
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	rp_loop(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	close(fd);
	return v;
}

/*
 * Why the real-PMU tests cannot run here, or NULL: the test PMU is loaded
 * (its counts are injected, not counted), or perf has no hardware cycles
 * event (no PMU driver, or a VM without a virtual PMU).
 */
static inline const char *rp_no_real_pmu(void)
{
	int fd;

	if (have_fakepmu() || access("/sys/module/fakepmu", F_OK) == 0)
		return "the test PMU is loaded: these tests count with the real PMU driver";
	fd = rp_perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);
	if (fd < 0)
		return "no hardware PMU: perf has no cycles event here";
	close(fd);
	return NULL;
}

/*
 * Whether this machine is QEMU's (x86: DMI vendor; arm64's virt machine:
 * its device tree), where instruction counts are exact under -icount and
 * one vCPU, or a real one, where they are compared within a tolerance.
 */
static inline int rp_qemu(void)
{
	static int q = -1;
	char buf[128] = "";
	size_t n;
	FILE *f;

	if (q >= 0)
		return q;
	q = 0;
	f = fopen("/sys/devices/virtual/dmi/id/sys_vendor", "re");
	if (f) {
		q = fgets(buf, sizeof(buf), f) && !strncmp(buf, "QEMU", 4);
		fclose(f);
	}
	f = fopen("/proc/device-tree/compatible", "re");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = 0;
		q |= !strcmp(buf, "linux,dummy-virt");	/* the first string */
		fclose(f);
	}
	return q;
}

/*
 * How far two counts of the same instructions may be apart: 0 under QEMU
 * (exact); on real hardware 0.01% plus 100 (an interrupt in the loop can
 * add an instruction to a user-mode count, on AMD one per interrupt).
 */
static inline uint64_t rp_tol(uint64_t v)
{
	return rp_qemu() ? 0 : v / 10000 + 100;
}

static inline uint64_t rp_absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* a and b within rp_tol(a): equal under QEMU. */
#define EXPECT_CLOSE(a, b) do {						\
	uint64_t a_ = (a), b_ = (b);					\
									\
	EXPECT_GE(rp_tol(a_), rp_absdiff(a_, b_))			\
		TH_LOG("%s = %llu, %s = %llu: more than %llu apart", #a,	\
		       (unsigned long long)a_, #b, (unsigned long long)b_, \
		       (unsigned long long)rp_tol(a_));			\
} while (0)

/*
 * Why exact (under QEMU) or close (on real hardware) instruction counts
 * cannot be had, or NULL: no instructions event (QEMU emulates INST_RETIRED
 * only under -icount), or under QEMU more than one CPU online (QEMU's
 * INST_RETIRED is the global icount: other vCPUs' instructions leak in).
 */
static inline const char *rp_no_exact_insns(void)
{
	int fd = rp_perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0);

	if (fd == -ENOENT || fd == -EOPNOTSUPP)
		return "no instructions event: needs -icount (QEMU emulates INST_RETIRED only then)";
	if (fd < 0)
		return "perf cannot open the instructions event";
	close(fd);
	if (rp_qemu() && count_online_cpus() != 1)
		return "exact instruction counts need one online CPU (QEMU's INST_RETIRED "
		       "counts every vCPU under -icount)";
	return NULL;
}

/*
 * Whether user-mode cycles equal user-mode instructions here (QEMU's
 * -icount shift=0): perf's cycles and instructions of the same loop agree.
 */
static inline int rp_cycles_are_insns(void)
{
	uint64_t c1, i1, c2, i2;

	if (rp_no_exact_insns())
		return 0;
	c1 = rp_perf_loop(PERF_COUNT_HW_CPU_CYCLES, 100000);
	i1 = rp_perf_loop(PERF_COUNT_HW_INSTRUCTIONS, 100000);
	c2 = rp_perf_loop(PERF_COUNT_HW_CPU_CYCLES, 200000);
	i2 = rp_perf_loop(PERF_COUNT_HW_INSTRUCTIONS, 200000);
	return c1 && c1 == i1 && c2 == i2 && c2 - c1 == 200000;
}

#define NEED_REAL_PMU() do {						\
	const char *why_ = rp_no_real_pmu();				\
									\
	if (why_)							\
		SKIP(return, "%s", why_);				\
} while (0)

#define NEED_EXACT_INSNS() do {						\
	const char *why_ = rp_no_exact_insns();				\
									\
	if (why_)							\
		SKIP(return, "%s", why_);				\
} while (0)

#endif /* REALPMU_UTIL_H */
