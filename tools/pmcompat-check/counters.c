// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmcompat-check: who else holds counters.  The NMI watchdog, the general-
 * purpose counters free on the check's CPU (the "counters:" line), and the
 * reason given when a counter is refused or lost: counter contention, and
 * what to do about it.  See pmcompat-check(1), Counter contention.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "pmcompat-check.h"

/* ---- who else holds counters --------------------------------------------- */

/*
 * The NMI watchdog (the hardlockup detector): with a hardware PMU it is a
 * pinned cycles event on every CPU, on Intel usually the fixed cycles
 * counter, on AMD a general-purpose one.  1 on, 0 off, -1 unknown.  The
 * test PMU's stand-in (tests/fakepmu's watchdog=1) counts as on.
 */
int nmi_watchdog = -1;
#ifdef PMC_CHECK_X86
#define WATCHDOG_HOLDS	"with a hardware PMU it holds a counter on every CPU"
#define WATCHDOG_ROW	"the NMI watchdog holds one on every CPU"
#else
#define WATCHDOG_HOLDS	"it holds a counter on every CPU where the PMU interrupt is an NMI (pseudo-NMI)"
#define WATCHDOG_ROW	"the NMI watchdog is on, and holds one on every CPU if the PMU interrupt is a pseudo-NMI"
#endif
int fake_watchdog;

void read_watchdog(void)
{
	char buf[8] = "";
	FILE *f = fopen("/proc/sys/kernel/nmi_watchdog", "re");

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			nmi_watchdog = atoi(buf) != 0;
		fclose(f);
	}
	f = fopen("/sys/module/fakepmu/parameters/watchdog", "re");
	if (f) {
		fake_watchdog = fgets(buf, sizeof(buf), f) && (buf[0] == 'Y' || buf[0] == '1');
		fclose(f);
	}
}

/*
 * How many general-purpose counters of the check's CPU are free now: pinned
 * CPU-wide branch events (which only a general-purpose counter takes) are
 * opened on it until perf can place no more (the event reads as nothing:
 * its error state).  -1 when perf will not let this caller count a CPU.
 */
int free_counters(void)
{
	int fds[64], n, i, got = -1;

	for (n = 0; n < 64; n++) {
		struct perf_event_attr a;
		uint64_t v, type;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
#ifdef PMC_CHECK_X86
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
		if (pmu_of(cpu, &type))
			a.config |= type << 32;
#else
		/* SW_INCR (0x00): any event counter, never the cycle counter */
		(void)type;
		a.type = PERF_TYPE_RAW;
		a.config = 0;
#endif
		a.pinned = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fds[n] = (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[n] < 0) {
			got = n ? n : -1;	/* the first refused: no PMU, or no permission */
			break;
		}
		if (read(fds[n], &v, sizeof(v)) != sizeof(v)) {
			got = n++;	/* in error: no counter left for it */
			break;
		}
	}
	if (n == 64)
		got = 64;
	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return got;
}

/* The header line: the watchdog and the counters free on the check's CPU. */
void describe_counters(void)
{
	int n = free_counters();
	char freebuf[96];

	if (n < 0)
		snprintf(freebuf, sizeof(freebuf), "free counters of CPU %d unknown (perf will not count it for this caller)", cpu);
	else
		snprintf(freebuf, sizeof(freebuf), "%d general-purpose counter%s free on CPU %d",
			 n, n == 1 ? "" : "s", cpu);
	printf("counters: NMI watchdog %s%s; %s\n",
	       nmi_watchdog < 0 ? "unknown (no /proc/sys/kernel/nmi_watchdog)" :
	       nmi_watchdog ? "on (kernel.nmi_watchdog=1: " WATCHDOG_HOLDS ")" :
	       "off (kernel.nmi_watchdog=0)",
	       fake_watchdog ? ", and the test PMU's watchdog (fakepmu watchdog=1)" : "", freebuf);
}

/*
 * Why a counter was refused (EBUSY, CPC_RESOURCE_UNAVAIL) or lost (EIO),
 * or perf's own event could not stay on a counter: who holds the counters,
 * and what to do.  Returns a static buffer.
 */
const char *contention(const char *what)
{
	static char buf[320];
	int n = free_counters();
	size_t len;

	len = snprintf(buf, sizeof(buf), "%s: counter contention", what);
	if (n >= 0 && len < sizeof(buf))
		len += snprintf(buf + len, sizeof(buf) - len, " (%d general-purpose free on CPU %d)",
				n, cpu);
	if (fake_watchdog && len < sizeof(buf))
		len += snprintf(buf + len, sizeof(buf) - len,
				": the test PMU's watchdog holds one on every CPU (fakepmu watchdog=1)");
	else if (nmi_watchdog > 0 && len < sizeof(buf))
		len += snprintf(buf + len, sizeof(buf) - len, ": %s (free it: sysctl kernel.nmi_watchdog=0)",
				WATCHDOG_ROW);
	if (len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len,
			 "%s other perf users (perf, profilers, KVM guests' virtual PMUs) may hold others",
			 fake_watchdog || nmi_watchdog > 0 ? ";" : ":");
	return buf;
}

/* An errno that says the counters are taken. */
int busy(int err)
{
	return err == EBUSY || err == EIO;
}
