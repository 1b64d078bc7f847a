// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmcompat-check: count a known workload through each legacy front-end of
 * pmcompat (/dev/pctr, /dev/perfmon, /dev/cpc through libcpc, /dev/pfcntr)
 * and through perf_event_open(2) side by side, check overflow delivery at a
 * given period, print one table and exit non-zero on any FAIL.  See
 * pmcompat-check(1).
 *
 * The workload is a loop of exactly 2 * N instructions and N conditional
 * branches (dec; jnz on x86, subs; b.ne on arm64).  /dev/pctr and
 * /dev/perfmon are x86 devices: on arm64 their rows are absent.  With --inject (or PMCOMPAT_CHECK_INJECT=1) it is an
 * injection of N events into the test PMU instead (tests/fakepmu, through
 * /sys/kernel/debug/fakepmu/inject): both sides must then agree exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "pmcompat-check.h"
#include "pmc_hint.h"

#ifdef PMC_CHECK_X86
#include <cpuid.h>
#include <machine/pctr.h>
#include <machine/perfmon.h>
#endif
#include <sys/pfcntr.h>
#include <libcpc.h>

#define INJECT_PATH	"/sys/kernel/debug/fakepmu/inject"

enum ev { EV_INS, EV_CYC, EV_BR, EV_N };
static const char *const ev_name[EV_N] = { "instructions", "cycles", "branches" };
static const char *const ev_papi[EV_N] = { "PAPI_tot_ins", "PAPI_tot_cyc", "PAPI_br_ins" };
#ifdef PMC_CHECK_X86
static const uint64_t ev_hw[EV_N] = {
	PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
	PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
};
/* Event-select codes (PerfEvtSel / PERF_CTL) of each vendor. */
static unsigned int ev_code[EV_N];
#else
/*
 * arm64: perf's ARMv8 PMU has no generic branch event; branches are the
 * common event BR_RETIRED (0x21), a raw event, where the PMU implements it
 * (its sysfs events list, from PMCEID), else their rows are skipped: a raw
 * event the PMU lacks would count 0 on both sides.
 */
#define ARM_BR_RETIRED	0x21
static const uint64_t ev_hw[EV_N] = {
	PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES, ARM_BR_RETIRED,
};
static int arm_have_br_retired;
#endif

static int inject_mode;
static unsigned long long iters = 10000000;	/* N */
static unsigned long long period = 1000000;	/* overflow period */
int cpu;					/* the CPU the check runs on */
static int fails, passes, skips;

/* ---- the workload --------------------------------------------------------- */

/* Exactly 2 * n instructions, n conditional branches (n >= 1). */
static void __attribute__((noinline)) loop(unsigned long long n)
{
#ifdef PMC_CHECK_X86
	__asm__ volatile("1:\n\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#elif defined(__aarch64__)
	__asm__ volatile("1:\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
#error "pmcompat-check: no workload loop for this architecture"
#endif
}

#ifdef PMC_CHECK_X86
static int inject_raw(const char *cmd)
{
	int fd = open(INJECT_PATH, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	if (n != (ssize_t)strlen(cmd))
		err = n < 0 ? -errno : -EIO;
	close(fd);
	return err;
}

/*
 * Inject n events of e in user mode on this thread's CPU, from this thread
 * (so a per-thread counter of this thread sees them); 0 or -errno.
 */
static int inject(enum ev e, unsigned long long n)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "cpu=%d event=0x%x count=%llu mode=user ip=0x401000\n",
		 cpu, ev_code[e], n);
	return inject_raw(cmd);
}
#else
static int inject(enum ev e, unsigned long long n)
{
	(void)e;
	(void)n;
	return -ENODEV;		/* the test PMU is x86's: no --inject */
}
#endif

/* The workload: what is expected of event e, or 0 where nothing is (cycles). */
static unsigned long long expected(enum ev e)
{
	if (inject_mode)
		return iters;
	return e == EV_INS ? 2 * iters : e == EV_BR ? iters : 0;
}

static int work(enum ev e)
{
	if (inject_mode)
		return inject(e, iters);
	loop(iters);
	return 0;
}

/* ---- perf side ------------------------------------------------------------ */

/*
 * On a hybrid CPU (perf's cpu_core and cpu_atom PMUs, and cpu_lowpower on
 * Arrow Lake-H) a generic hardware event names the PMU it is for in the
 * upper half of its config (the extended type): that of the core type of
 * the CPU it counts on (the check's CPU for a thread's events), the PMU
 * pmcompat counts on there.
 */
static const char *hybrid_pmu;	/* that of the check's CPU */

static int cpulist_has(const char *list, int c)
{
	const char *p = list;

	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p)
			return 0;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (c >= lo && c <= hi)
			return 1;
		p = *end == ',' ? end + 1 : end;
		if (*p == '\n')
			break;
	}
	return 0;
}

/*
 * The hybrid PMU whose CPUs include c: its name and type in *type, or NULL
 * (not a hybrid CPU).
 */
const char *pmu_of(int c, uint64_t *type)
{
	static const char *const pmus[] = { "cpu_core", "cpu_atom", "cpu_lowpower" };
	unsigned int i;

	for (i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++) {
		char path[128], buf[256];
		unsigned long t;
		FILE *f;
		int in;

		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpus", pmus[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		in = fgets(buf, sizeof(buf), f) && cpulist_has(buf, c);
		fclose(f);
		if (!in)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmus[i]);
		f = fopen(path, "re");
		in = f && fscanf(f, "%lu", &t) == 1;
		if (f)
			fclose(f);
		if (!in)
			return NULL;
		*type = t;
		return pmus[i];
	}
	return NULL;
}

static int perf_open(enum ev e, pid_t pid, int on_cpu, int user_only,
		     unsigned long long sample_period)
{
	struct perf_event_attr a;
	uint64_t type;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = ev_hw[e];
#ifndef PMC_CHECK_X86
	if (e == EV_BR) {
		if (!arm_have_br_retired) {
			errno = ENOENT;
			return -1;
		}
		a.type = PERF_TYPE_RAW;
	}
#endif
	if (pmu_of(on_cpu >= 0 ? on_cpu : cpu, &type))
		a.config |= type << 32;		/* PERF_PMU_TYPE_SHIFT */
	a.exclude_kernel = user_only;
	a.exclude_hv = 1;
	if (sample_period) {
		a.sample_period = sample_period;
		a.wakeup_events = 1;
		a.disabled = 1;
	}
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(__NR_perf_event_open, &a, pid, on_cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Set when one of perf's own counting events was not on a counter all the
 * time it was enabled (perf multiplexed it: every counter was taken), so
 * that its count cannot be compared.
 */
static int perf_starved;

static uint64_t perf_read(int fd)
{
	uint64_t v[3] = { 0, 0, 0 };

	if (read(fd, v, sizeof(v)) != sizeof(v))
		return 0;
	if (v[2] < v[1])
		perf_starved = 1;
	return v[0];
}

/* ---- the table ------------------------------------------------------------ */

/*
 * The table: 80 columns for the counts, then the result; a SKIP row names
 * its reason by number, and each reason is printed once below the table
 * ("[n] SKIP: why"), however many rows it explains.
 */
#define ROW_FMT(c)	"%-8s %-20s %12" c " %12" c " %12" c " %10"
#define MAX_NOTES	32
static char notes[MAX_NOTES][256];
static int nnotes;

static void row_head(void)
{
	printf(ROW_FMT("s") "s  %s\n", "front-end", "event", "expected", "legacy", "perf", "diff",
	       "result");
}

/* The number of a SKIP reason, recorded once. */
static int note(const char *why)
{
	int i;

	for (i = 0; i < nnotes; i++)
		if (!strcmp(notes[i], why))
			return i + 1;
	if (nnotes == MAX_NOTES)
		return MAX_NOTES;
	snprintf(notes[nnotes], sizeof(notes[0]), "%s", why);
	return ++nnotes;
}

static void print_notes(void)
{
	int i;

	for (i = 0; i < nnotes; i++)
		printf("  [%d] SKIP: %s\n", i + 1, notes[i]);
}

static void row_skip(const char *fe, const char *what, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	printf(ROW_FMT("s") "s  SKIP [%d]\n", fe, what, "-", "-", "-", "-", note(why));
	skips++;
}

/* Tolerance on hardware (pmcompat-check(1)); 0 with the test PMU. */
static unsigned long long tolerance(enum ev e, unsigned long long base, int kernel_too)
{
	if (inject_mode)
		return 0;
	if (e == EV_CYC)
		return base / 50 + 100000;		/* 2% + 100000 */
	return base / 1000 + (kernel_too ? 200000 : 10000);	/* 0.1% + fixed */
}

static void row(const char *fe, const char *what, unsigned long long exp,
		unsigned long long legacy, unsigned long long perf,
		unsigned long long tol)
{
	long long d = (long long)(legacy - perf);
	unsigned long long ad = d < 0 ? -(unsigned long long)d : (unsigned long long)d;
	int ok = ad <= tol;
	char e[24];

	if (perf_starved) {
		perf_starved = 0;
		row_skip(fe, what, "%s", contention("perf's event was multiplexed"));
		return;
	}

	if (exp)
		snprintf(e, sizeof(e), "%llu", exp);
	else
		snprintf(e, sizeof(e), "-");
	printf("%-8s %-20s %12s %12llu %12llu %10lld  %s\n", fe, what, e, legacy, perf, d,
	       ok ? "PASS" : "FAIL");
	if (ok)
		passes++;
	else
		fails++;
}

/* A row whose both counts must equal exp exactly (signals). */
static void row_exact(const char *fe, const char *what, int exp, int legacy, int perf)
{
	int ok = legacy == exp && perf == exp;

	printf(ROW_FMT("d") "d  %s\n", fe, what, exp, legacy, perf, legacy - perf,
	       ok ? "PASS" : "FAIL");
	if (ok)
		passes++;
	else
		fails++;
}

/* Why a device or perf cannot be used, for a SKIP row. */
static const char *why_open(const char *dev, int err)
{
	static char buf[160];

	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		snprintf(buf, sizeof(buf), "the devices are absent: the module is not loaded (sudo modprobe pmcompat)");
		break;
	case EACCES:
		snprintf(buf, sizeof(buf), "%s: permission denied (not in the group pmcompat, or needs root)", dev);
		break;
	case EPERM:
		snprintf(buf, sizeof(buf), "%s: needs CAP_PERFMON", dev);
		break;
	case EBUSY:
		snprintf(buf, sizeof(buf), "%s: busy (another program holds it)", dev);
		break;
	default:
		snprintf(buf, sizeof(buf), "%s: %s", dev, strerror(err));
	}
	return buf;
}

static const char *why_perf(int err)
{
	static char buf[160];

#ifndef PMC_CHECK_X86
	/* the ARMv8 PMU refuses an event PMCEID says it lacks */
	if (err == ENOENT || err == EOPNOTSUPP)
		return "the PMU does not implement this event (PMCEID; QEMU counts "
		       "instructions only under -icount, and no branches)";
#endif
	if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
		return "no hardware PMU (perf has no such event here: a VM without a virtual PMU?)";
	if (err == EACCES || err == EPERM)
		return "perf_event_open refused (perf_event_paranoid; run as root)";
	snprintf(buf, sizeof(buf), "perf_event_open: %s", strerror(err));
	return buf;
}

#ifdef PMC_CHECK_X86
/* ---- /dev/pctr: CPU-wide counters, read on this CPU ----------------------- */

static void check_pctr(void)
{
	int fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	struct pctrst s0, s1, saved;
	int e;

	if (fd < 0) {
		row_skip("pctr", "-", "%s", why_open(_PATH_PCTR, errno));
		return;
	}
	/* Counter 0's setup before the check, given back after it. */
	memset(&saved, 0, sizeof(saved));
	if (ioctl(fd, PCIOCRD, &saved) < 0)
		saved.pctr_fn[0] = 0;
	for (e = 0; e < EV_N; e++) {
		int pfd = perf_open(e, -1, cpu, 1, 0);
		uint64_t p0, p1;

		if (pfd < 0) {
			row_skip("pctr", ev_name[e], "%s", why_perf(errno));
			continue;
		}
		unsigned int fn = ev_code[e] | PCTR_U | PCTR_EN;

		perf_starved = 0;
		if (ioctl(fd, PCIOCS0, &fn) < 0) {
			if (busy(errno))
				row_skip("pctr", ev_name[e], "%s", contention("PCIOCS0: EBUSY"));
			else
				row_skip("pctr", ev_name[e], "PCIOCS0: %s", strerror(errno));
			close(pfd);
			continue;
		}
		p0 = perf_read(pfd);
		if (ioctl(fd, PCIOCRD, &s0) < 0 || work(e) ||
		    ioctl(fd, PCIOCRD, &s1) < 0) {
			if (errno == EIO)
				row_skip("pctr", ev_name[e], "%s", contention("PCIOCRD: EIO"));
			else
				row_skip("pctr", ev_name[e], "PCIOCRD or workload: %s", strerror(errno));
		} else {
			p1 = perf_read(pfd);
			row("pctr", ev_name[e], expected(e), s1.pctr_hwc[0] - s0.pctr_hwc[0],
			    p1 - p0, tolerance(e, p1 - p0, 0));
		}
		close(pfd);
	}
	{
		/* Counter 0 as it was: root's setup (its count restarts), or off. */
		unsigned int fn = saved.pctr_fn[0];

		ioctl(fd, PCIOCS0, &fn);
	}
	close(fd);
}

/* ---- /dev/perfmon: the sum over CPUs --------------------------------------- */

static void check_perfmon(void)
{
	int fd = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), e, c;
	int pfd[256];

	if (fd < 0) {
		row_skip("perfmon", "-", "%s", why_open(_PATH_PERFMON, errno));
		return;
	}
	if (ncpu > 256)
		ncpu = 256;
	for (e = 0; e < EV_N; e++) {
		struct pmc p = { .pmc_num = 0 };
		struct pmc_data d0 = { .pmcd_num = 0 }, d1 = { .pmcd_num = 0 };
		uint64_t p0 = 0, p1 = 0;
		int bad = 0, num = 0;

		for (c = 0; c < ncpu; c++) {
			pfd[c] = perf_open(e, -1, c, 1, 0);
			if (pfd[c] < 0 && errno != ENODEV && errno != EINVAL)
				bad = errno;	/* (an offline CPU is no error) */
			num += pfd[c] >= 0;
		}
		if (bad || !num) {
			row_skip("perfmon", ev_name[e], "%s", why_perf(bad ? bad : ENOENT));
			goto next;
		}
		p.pmc_event = ev_code[e] & 0xff;
		p.pmc_unit = (ev_code[e] >> 8) & 0xff;
		p.pmc_flags = PMCF_USR;
		perf_starved = 0;
		if (ioctl(fd, PMIOSETUP, &p) < 0 || ioctl(fd, PMIOSTART, &p.pmc_num) < 0) {
			if (busy(errno))
				row_skip("perfmon", ev_name[e], "%s",
					 contention("PMIOSETUP/PMIOSTART: EBUSY"));
			else
				row_skip("perfmon", ev_name[e], "PMIOSETUP/PMIOSTART: %s",
					 strerror(errno));
			goto next;
		}
		for (c = 0; c < ncpu; c++)
			if (pfd[c] >= 0)
				p0 += perf_read(pfd[c]);
		if (ioctl(fd, PMIOREAD, &d0) < 0 || work(e) || ioctl(fd, PMIOREAD, &d1) < 0) {
			if (errno == EIO)
				row_skip("perfmon", ev_name[e], "%s", contention("PMIOREAD: EIO"));
			else
				row_skip("perfmon", ev_name[e], "PMIOREAD or workload: %s",
					 strerror(errno));
		} else {
			for (c = 0; c < ncpu; c++)
				if (pfd[c] >= 0)
					p1 += perf_read(pfd[c]);
			row("perfmon", ev_name[e], expected(e),
			    (uint64_t)(d1.pmcd_value - d0.pmcd_value), p1 - p0,
			    tolerance(e, p1 - p0, 0) * (inject_mode ? 1 : ncpu));
		}
		ioctl(fd, PMIOSTOP, &p.pmc_num);
next:
		for (c = 0; c < ncpu; c++)
			if (pfd[c] >= 0)
				close(pfd[c]);
	}
	close(fd);
}

#endif /* PMC_CHECK_X86: pctr, perfmon */

/* ---- /dev/cpc through libcpc: this thread, and an overflow --------------- */

static char cpc_err[256];
static int cpc_subcode = -1;

static void cpc_quiet(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn;
	cpc_subcode = subcode;
	vsnprintf(cpc_err, sizeof(cpc_err), fmt, ap);
}

/* Why a libcpc call failed: contention named, or libcpc's message. */
static const char *cpc_why(void)
{
	static char buf[320];

	if (cpc_subcode == CPC_RESOURCE_UNAVAIL || busy(errno))
		return contention("cpc: CPC_RESOURCE_UNAVAIL");
	snprintf(buf, sizeof(buf), "cpc: %s", cpc_err[0] ? cpc_err : strerror(errno));
	return buf;
}

static volatile sig_atomic_t emt_signals, perf_signals;

static void on_emt(int sig)
{
	(void)sig;
	emt_signals++;
}

static void on_perf(int sig)
{
	(void)sig;
	perf_signals++;
}

/* Wait up to a second for the signals that a step should have raised. */
static void settle(int want_emt, int want_perf)
{
	int i;

	for (i = 0; i < 1000 && (emt_signals < want_emt || perf_signals < want_perf); i++) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
}

/*
 * Intel's driver refuses sampling periods under a model's minimum
 * (x86_pmu.limit_period: 32 on Nehalem and Haswell, 128 for instructions
 * retired on Haswell and Broadwell) with EINVAL; pmcompat tries presets up
 * to 256 events short.  Below that, EINVAL from perf is that limit.
 */
#define MIN_PERIOD_SAFE	256
#define MIN_PERIOD_SKIP	"perf refuses this sampling period (EINVAL): it is under the PMU's minimum period"

static void check_cpc_overflow(cpc_t *cpc)
{
	struct sigaction sa;
	struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	cpc_set_t *set;
	int pfd, sig = SIGRTMIN + 1;
	int e0, p0, e1, p1;
	char label[64];

	snprintf(label, sizeof(label), "overflow/%llu", period);
	pfd = perf_open(EV_INS, 0, -1, 1, period);
	if (pfd < 0 && errno == EINVAL && period < MIN_PERIOD_SAFE) {
		row_skip("cpc", label, MIN_PERIOD_SKIP " (Nehalem and Haswell: 32, 128 for instructions); "
			 "take a larger -p");
		return;
	}
	if (pfd < 0) {
		row_skip("cpc", label, "%s", why_perf(errno));
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_emt;
	sigaction(SIGEMT, &sa, NULL);
	sa.sa_handler = on_perf;
	sigaction(sig, &sa, NULL);
	if (fcntl(pfd, F_SETOWN_EX, &owner) < 0 || fcntl(pfd, F_SETSIG, sig) < 0 ||
	    fcntl(pfd, F_SETFL, O_ASYNC) < 0) {
		row_skip("cpc", label, "perf signal setup: %s", strerror(errno));
		close(pfd);
		return;
	}
	set = cpc_set_create(cpc);
	if (!set || cpc_set_add_request(cpc, set, ev_papi[EV_INS], UINT64_MAX - period + 1,
					CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL) < 0 ||
	    cpc_bind_curlwp(cpc, set, 0) < 0) {
		if (errno == ENOTSUP && hybrid_pmu)
			row_skip("cpc", label, "overflow requests are refused on a hybrid CPU (ENOTSUP)");
		else
			row_skip("cpc", label, "%s", cpc_why());
		goto out;
	}
	emt_signals = perf_signals = 0;
	/* One-shot: perf stops after one overflow, as the cpc set freezes. */
	ioctl(pfd, PERF_EVENT_IOC_REFRESH, 1);
	/* Below the period: no signal from either. */
	if (inject_mode)
		inject(EV_INS, period - 1);
	else
		loop(period / 4);
	settle(0, 0);
	e0 = emt_signals;
	p0 = perf_signals;
	/* Past it: one signal from each. */
	if (inject_mode)
		inject(EV_INS, 1);
	else
		loop(period);
	settle(1, 1);
	e1 = emt_signals;
	p1 = perf_signals;
	cpc_unbind(cpc, set);
	/* Signals: SIGEMT against perf's signal, before and past the period. */
	perf_starved = 0;
	perf_read(pfd);
	snprintf(label, sizeof(label), "signals <%llu", period);
	if (perf_starved)
		row_skip("cpc", label, "%s", contention("perf's event was multiplexed"));
	else
		row_exact("cpc", label, 0, e0, p0);
	snprintf(label, sizeof(label), "signals >=%llu", period);
	if (perf_starved)
		row_skip("cpc", label, "%s", contention("perf's event was multiplexed"));
	else
		row_exact("cpc", label, 1, e1 - e0, p1 - p0);
	perf_starved = 0;
out:
	if (set)
		cpc_set_destroy(cpc, set);
	close(pfd);
	signal(SIGEMT, SIG_DFL);
	signal(sig, SIG_IGN);
}

static void check_cpc(void)
{
	cpc_t *cpc;
	int e;

	if (access("/dev/cpc", F_OK) < 0) {
		row_skip("cpc", "-", "%s", why_open("/dev/cpc", errno));
		return;
	}
	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc) {
		row_skip("cpc", "-", "%s", why_open("/dev/cpc", errno));
		return;
	}
	cpc_seterrhndlr(cpc, cpc_quiet);
	for (e = 0; e < EV_N; e++) {
		cpc_set_t *set = cpc_set_create(cpc);
		cpc_buf_t *b0 = NULL, *b1 = NULL;
		uint64_t l0 = 0, l1 = 0, p0, p1;
		int pfd = perf_open(e, 0, -1, 1, 0);

		cpc_err[0] = 0;
		cpc_subcode = -1;
		perf_starved = 0;
		if (pfd < 0) {
			row_skip("cpc", ev_name[e], "%s", why_perf(errno));
			goto next;
		}
		if (!set || cpc_set_add_request(cpc, set, ev_papi[e], 0, CPC_COUNT_USER, 0, NULL) < 0 ||
		    !(b0 = cpc_buf_create(cpc, set)) || !(b1 = cpc_buf_create(cpc, set)) ||
		    cpc_bind_curlwp(cpc, set, 0) < 0) {
			row_skip("cpc", ev_name[e], "%s", cpc_why());
			goto next;
		}
		p0 = perf_read(pfd);
		if (cpc_set_sample(cpc, set, b0) < 0 || work(e) || cpc_set_sample(cpc, set, b1) < 0) {
			if (busy(errno))
				row_skip("cpc", ev_name[e], "%s", contention("cpc_set_sample: EIO"));
			else
				row_skip("cpc", ev_name[e], "cpc_set_sample or workload: %s",
					 cpc_err[0] ? cpc_err : strerror(errno));
		} else {
			p1 = perf_read(pfd);
			cpc_buf_get(cpc, b0, 0, &l0);
			cpc_buf_get(cpc, b1, 0, &l1);
			row("cpc", ev_name[e], expected(e), l1 - l0, p1 - p0,
			    tolerance(e, p1 - p0, 0));
		}
		cpc_unbind(cpc, set);
next:
		if (b0)
			cpc_buf_destroy(cpc, b0);
		if (b1)
			cpc_buf_destroy(cpc, b1);
		if (set)
			cpc_set_destroy(cpc, set);
		if (pfd >= 0)
			close(pfd);
	}
	cpc_err[0] = 0;
	cpc_subcode = -1;
	check_cpc_overflow(cpc);
	cpc_close(cpc);
}

/* ---- /dev/pfcntr: EV6 counters of this process (user and kernel) --------- */

static void check_pfcntr(void)
{
	static const struct { enum ev e; long mux; int ctr; } req[] = {
		{ EV_INS, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES, 0 },
#ifdef PMC_CHECK_X86
		{ EV_CYC, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES, 1 },
#else
		/*
		 * arm64: cycles on both counters, so that the row runs where the
		 * PMU has no instructions event (pfm(7): such a mux is EINVAL).
		 */
		{ EV_CYC, PF6_MUX0_CYCLES | PF6_MUX1_CYCLES, 1 },
#endif
		{ EV_BR, PF6_MUX0_CYCLES | PF6_MUX1_RET_COND_BRANCHES, 1 },
	};
	long items = PFM_COUNTERS;
	unsigned int i;
	int fd = open("/dev/pfcntr", O_RDONLY | O_CLOEXEC | PCNTOPENALL);

	if (fd < 0) {
		row_skip("pfcntr", "-", "%s", why_open("/dev/pfcntr", errno));
		return;
	}
	if (ioctl(fd, PCNTSETITEMS, &items) < 0 || ioctl(fd, PCNTLOGSELECT) < 0) {
		row_skip("pfcntr", "-", "PCNTSETITEMS/PCNTLOGSELECT: %s", strerror(errno));
		close(fd);
		return;
	}
	for (i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		enum ev e = req[i].e;
		struct pfcntrs_ev6 c[64], *ptr = c;
		union pmctrs_ev6 ctl;
		long mux = req[i].mux;
		uint64_t p0, p1, l;
		/*
		 * EV6 counts kernel mode too, for a caller who may (pfm(7)); for
		 * one who may not, user mode only, and perf refuses it kernel mode.
		 */
		int pfd = perf_open(e, 0, -1, 0, 0);
		char what[40];

		if (pfd < 0 && (errno == EACCES || errno == EPERM))
			pfd = perf_open(e, 0, -1, 1, 0);

		snprintf(what, sizeof(what), "%s (EV6)", ev_name[e]);
		if (pfd < 0) {
			row_skip("pfcntr", what, "%s", why_perf(errno));
			continue;
		}
		memset(c, 0, sizeof(c));
		ctl.pmctrs_ev6_long = 0;
		ctl.pmctrs_ev6_cpu = PMCTRS_ALL_CPUS;
		ctl.pmctrs_ev6_select = PF6_SEL_COUNTER_0 | PF6_SEL_COUNTER_1;
		perf_starved = 0;
		if (ioctl(fd, PCNTRDISABLE) < 0 || ioctl(fd, PCNTCLEARCNT) < 0 ||
		    ioctl(fd, PCNT6MUX, &mux) < 0) {
			if (busy(errno))
				row_skip("pfcntr", what, "%s", contention("PCNT6MUX: EBUSY"));
			else
				row_skip("pfcntr", what, "PCNT6MUX: %s", strerror(errno));
			close(pfd);
			continue;
		}
		p0 = perf_read(pfd);
		if (ioctl(fd, PCNT6RESTART, &ctl.pmctrs_ev6_long) < 0 || work(e) ||
		    ioctl(fd, PCNTRDISABLE) < 0 || ioctl(fd, PCNT6READCNTRS, &ptr) < 0) {
			if (busy(errno))
				row_skip("pfcntr", what, "%s",
					 contention("PCNT6RESTART/READCNTRS: EBUSY or EIO"));
			else
				row_skip("pfcntr", what, "PCNT6RESTART/READCNTRS or workload: %s",
					 strerror(errno));
		} else {
			p1 = perf_read(pfd);
			l = req[i].ctr ? c[0].pf_cntr1 : c[0].pf_cntr0;
			row("pfcntr", what, expected(e), l, p1 - p0, tolerance(e, p1 - p0, 1));
		}
		close(pfd);
	}
	ioctl(fd, PCNTRDISABLE);
	close(fd);
}

/* ---- main ----------------------------------------------------------------- */

#ifdef PMC_CHECK_X86
#define LOOP_NAME	"iterations of dec/jnz"

/* The vendor, and its event-select codes (the architectural events). */
static void describe_cpu(char *vendor, size_t len)
{
	unsigned int a, b, c, d;

	(void)len;
	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) {
		ev_code[EV_INS] = 0x00c0;
		ev_code[EV_CYC] = 0x0076;
		ev_code[EV_BR] = 0x00c2;
	} else {
		ev_code[EV_INS] = 0x00c0;
		ev_code[EV_CYC] = 0x003c;
		ev_code[EV_BR] = 0x00c4;
	}
}
#else
#define LOOP_NAME	"iterations of subs/b.ne"

/*
 * arm64: the PMU perf drives (armv8_pmuv3, or a model's name such as
 * armv8_cortex_a57) and whether it implements BR_RETIRED.
 */
static void describe_cpu(char *vendor, size_t len)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;

	snprintf(vendor, len, "arm64");
	while (d && (de = readdir(d))) {
		char path[512];

		if (strncmp(de->d_name, "armv8", 5))
			continue;
		snprintf(vendor, len, "arm64 %.40s", de->d_name);
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events/br_retired",
			 de->d_name);
		arm_have_br_retired = !access(path, F_OK);
		break;
	}
	if (d)
		closedir(d);
}
#endif

/* A number argument of an option, or exit 2 naming it. */
static unsigned long long number(const char *s, const char *opt, unsigned long long min,
				 unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v < min || v > max) {
		fprintf(stderr, "pmcompat-check: %s %s: not a number from %llu to %llu\n", opt, s,
			min, max);
		exit(2);
	}
	return v;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pmcompat-check [-i] [-c cpu] [-n iterations] [-p period] [--version]\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "inject", no_argument, NULL, 'i' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "period", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char vendor[64];
	const char *env = getenv("PMCOMPAT_CHECK_INJECT");
	cpu_set_t set;
	int opt;

	inject_mode = env && *env && strcmp(env, "0");
	cpu = -1;
	while ((opt = getopt_long(argc, argv, "+ic:n:p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			inject_mode = 1;
			break;
		case 'c':
			cpu = (int)number(optarg, "-c", 0, 1 << 20);
			break;
		case 'n':
			iters = number(optarg, "-n", 1, 1ULL << 40);
			break;
		case 'p':
			period = number(optarg, "-p", 2, 1ULL << 40);
			break;
		case 'V':
			printf("pmcompat-check (pmcompat) %s\n", pmc_version);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !iters || period < 2) {
		usage(stderr);
		return 2;
	}
	describe_cpu(vendor, sizeof(vendor));
	/* One CPU for the whole check: the CPU-wide counters are read there. */
	if (cpu < 0) {
		cpu = sched_getcpu();
		if (cpu < 0)
			cpu = 0;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "pmcompat-check: cannot run on CPU %d: %s\n", cpu, strerror(errno));
		return 2;
	}
	{
		uint64_t type;

		hybrid_pmu = pmu_of(cpu, &type);
	}
	if (inject_mode && access(INJECT_PATH, W_OK) < 0) {
		fprintf(stderr, "pmcompat-check: --inject: %s: %s (the test PMU is not loaded)\n",
			INJECT_PATH, strerror(errno));
		return 2;
	}
	ready_preamble();
	printf("pmcompat-check: %s%s%s, CPU %d, %s workload: %llu %s; overflow period %llu\n",
	       vendor, hybrid_pmu ? " hybrid, " : "", hybrid_pmu ? hybrid_pmu : "", cpu, inject_mode ? "injected (test PMU)" : "loop",
	       iters, inject_mode ? "events per row" : LOOP_NAME, period);
	read_watchdog();
	describe_counters();
	row_head();
#ifdef PMC_CHECK_X86
	check_pctr();
	check_perfmon();
#endif
	check_cpc();
	check_pfcntr();
	print_notes();
	printf("summary: %d PASS, %d FAIL, %d SKIP\n", passes, fails, skips);
	if (fails)
		return 1;
	return passes ? 0 : 3;	/* 3: nothing could be checked */
}
