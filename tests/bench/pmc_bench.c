// SPDX-License-Identifier: GPL-2.0
/*
 * pmc_bench: the cost of each legacy read/start/stop path next to the perf
 * call it wraps, in guest instructions per call (issue 14).
 *
 * Run by "make bench" in the stock lane under QEMU -icount shift=0 (run-lane
 * --bench): the guest's TSC then advances by one per executed instruction,
 * so rdtsc differences are instruction counts and repeat from run to run.
 * The guest boots with one CPU online (maxcpus=1); this program onlines CPUs
 * 1..15 as it goes and measures every operation with 1, 4, 8 and 16 CPUs
 * online, pinned to CPU 0; then the slab per object with 16, 8, 4 and 1 CPUs.
 *
 * Each figure is the median of RUNS runs of N calls, minus the same loop
 * around an empty call.  README.md (Benchmark) explains every row.  Output:
 * two markdown tables on stdout, framed as TAP (one "ok" per CPU count and
 * per memory pass) so that tests/vm/run-lane can count it.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <machine/pctr.h>
#include <machine/perfmon.h>
#include <sys/pfcntr.h>
#include <libcpc.h>
#include "../selftests/pmc_test_util.h"
#include "pmc_bench.h"

#define EV_BRMISS	0x00c5

#define RUNS		7
#define OVF_PERIOD	(1ULL << 20)	/* pfcntr's EV6 interrupt period */
#define OVF_PER_CALL	16		/* overflows per injection */
#define FAKEPMU_NMI_OVF	"/sys/kernel/debug/fakepmu/nmi_overflows"
#define MAX_OPS		32
#define MAX_CONFIGS	4

static const int cpu_configs[MAX_CONFIGS] = { 1, 4, 8, MAX_CPUS };

struct op {
	const char *name;
	int n;				/* calls per run */
	int (*setup)(void);		/* 0 or -errno; NULL: none */
	int (*call)(void);		/* the measured call; 0 or -errno */
	void (*teardown)(void);
	int per;			/* events per call (overflows): divide by it */
	int minus;			/* 1 + index of the row whose raw cost to subtract */
	int minus2;			/* 1 + index of a row to subtract after dividing */
	const char *cmd;		/* the injection (overflow rows) */
	int ovfs;			/* overflows each call must cause */
	double raw[MAX_CONFIGS];	/* per call, before subtracting and dividing */
	double ipc[MAX_CONFIGS];	/* instructions per call; <0: failed */
	double spread[MAX_CONFIGS];	/* (max - min) / median of the runs */
	char note[MAX_CONFIGS][96];
};

/* rdtsc() is <machine/pctr.h>'s. */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One run: cycles of n calls of fn; -1 when a call fails. */
static int time_run(int (*fn)(void), int n, double *out)
{
	uint64_t t0, t1;
	int i;

	t0 = rdtsc();
	for (i = 0; i < n; i++)
		if (fn())
			return -1;
	t1 = rdtsc();
	*out = (double)(t1 - t0);
	return 0;
}

static int call_nothing(void)
{
	__asm__ __volatile__("" ::: "memory");
	return 0;
}

/* Median per-call count of fn over RUNS runs of n calls, loop overhead out. */
static double measure(int (*fn)(void), int n, double *spread)
{
	double r[RUNS], e[RUNS], per, empty;
	int k;

	/* warm up: caches of the guest kernel, lazy allocations */
	if (time_run(fn, n / 10 + 1, &r[0]))
		return -1;
	for (k = 0; k < RUNS; k++) {
		if (time_run(fn, n, &r[k]))
			return -1;
		time_run(call_nothing, n, &e[k]);
	}
	qsort(r, RUNS, sizeof(r[0]), cmp_double);
	qsort(e, RUNS, sizeof(e[0]), cmp_double);
	empty = e[RUNS / 2] / n;
	per = r[RUNS / 2] / n - empty;
	if (spread)
		*spread = per > 0 ? (r[RUNS - 1] - r[0]) / n / per : 0;
	return per;
}

/* ---- perf anchors ---- */

static int perf_fd = -1, group_fd[4] = { -1, -1, -1, -1 };

static int perf_one_setup(void)
{
	perf_fd = open_counter(PERF_TYPE_RAW, EV_INSTR, 0, -1, 0, 0);
	return perf_fd < 0 ? -errno : 0;
}

static void perf_one_teardown(void)
{
	close(perf_fd);
	perf_fd = -1;
}

static int perf_one_read(void)
{
	uint64_t v;

	return read(perf_fd, &v, sizeof(v)) == sizeof(v) ? 0 : -EIO;
}

static int perf_disable_enable(void)
{
	if (ioctl(perf_fd, PERF_EVENT_IOC_DISABLE, 0) ||
	    ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0))
		return -errno;
	return 0;
}

static int group_n = 4;

static int perf_group_setup(void)
{
	static const unsigned int ev[4] = { EV_INSTR, EV_CYCLES, EV_BRANCH, EV_BRMISS };
	struct perf_event_attr attr;
	int i;

	for (i = 0; i < group_n; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_RAW;
		attr.config = ev[i];
		attr.read_format = PERF_FORMAT_GROUP;
		group_fd[i] = sys_perf_event_open(&attr, 0, -1, i ? group_fd[0] : -1,
						  PERF_FLAG_FD_CLOEXEC);
		if (group_fd[i] < 0)
			return -errno;
	}
	return 0;
}

static void perf_group_teardown(void)
{
	int i;

	for (i = 3; i >= 0; i--) {
		if (group_fd[i] >= 0)
			close(group_fd[i]);
		group_fd[i] = -1;
	}
}

static int perf_group_read(void)
{
	size_t size = (1 + group_n) * sizeof(uint64_t);
	uint64_t v[5];

	return read(group_fd[0], v, size) == (ssize_t)size ? 0 : -EIO;
}

/* The same with two events: what cpc_set_sample of two requests compares to. */
static int perf_group2_setup(void)
{
	group_n = 2;
	return perf_group_setup();
}

static void perf_group2_teardown(void)
{
	perf_group_teardown();
	group_n = 4;
}

/*
 * perf's own way of counting the machine: one CPU event per online CPU,
 * each read with its own read() (a CPU other than the caller's is
 * interrupted for it), or disabled and enabled with its own ioctls.  What
 * perfmon's PMIOREAD and PMIOSTOP+PMIOSTART do for one counter.
 */
#define CPU_FDS_MAX	MAX_CPUS
static int cpu_fd[CPU_FDS_MAX], cpu_fds;

static void perf_cpus_teardown(void)
{
	while (cpu_fds > 0)
		close(cpu_fd[--cpu_fds]);
}

static int perf_cpus_setup(void)
{
	int cpu;

	cpu_fds = 0;
	for (cpu = 0; cpu < CPU_FDS_MAX; cpu++) {
		/* cpu0 may have no online file: it is always up. */
		if (cpu && cpu_online_state(cpu) != 1)
			continue;
		cpu_fd[cpu_fds] = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, cpu, 0, 0);
		if (cpu_fd[cpu_fds] < 0) {
			int err = -errno;

			perf_cpus_teardown();
			return err;
		}
		cpu_fds++;
	}
	return 0;
}

static int perf_cpus_read(void)
{
	uint64_t v, sum = 0;
	int i;

	for (i = 0; i < cpu_fds; i++) {
		if (read(cpu_fd[i], &v, sizeof(v)) != sizeof(v))
			return -EIO;
		sum += v;
	}
	return sum == ~0ULL ? -EIO : 0;	/* keeps the sum */
}

static int perf_cpus_disable_enable(void)
{
	int i;

	for (i = 0; i < cpu_fds; i++)
		if (ioctl(cpu_fd[i], PERF_EVENT_IOC_DISABLE, 0))
			return -errno;
	for (i = 0; i < cpu_fds; i++)
		if (ioctl(cpu_fd[i], PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	return 0;
}

/* ---- pctr ---- */

static int pctr_fd = -1;

static int pctr_setup(void)
{
	static const unsigned int ev[PCTR_NUM] = { EV_INSTR, EV_CYCLES, EV_BRANCH, EV_BRMISS };
	unsigned int i;
	int err;

	pctr_fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	if (pctr_fd < 0)
		return -errno;
	for (i = 0; i < PCTR_NUM; i++) {
		err = pctr_set_fd(pctr_fd, i, ev[i % 4] | PCTR_U | PCTR_K | PCTR_EN);
		if (err)
			return err;
	}
	return 0;
}

static void pctr_teardown(void)
{
	unsigned int i;

	for (i = 0; i < PCTR_NUM; i++)
		pctr_set_fd(pctr_fd, i, 0);
	close(pctr_fd);
	pctr_fd = -1;
}

static int pctr_read(void)
{
	struct pctrst st;

	return ioctl(pctr_fd, PCIOCRD, &st) ? -errno : 0;
}

static int pctr_rdpmc(void)
{
	volatile pctrval v = rdpmc(0);

	(void)v;
	return 0;
}

/* ---- perfmon ---- */

static int pm_fd = -1;

static int perfmon_setup(void)
{
	int err;

	pm_fd = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
	if (pm_fd < 0)
		return -errno;
	err = perfmon_setup_fd(pm_fd, 0, EV_INSTR | (PMCF_USR | PMCF_OS) << 16);
	if (!err)
		err = perfmon_ctl_fd(pm_fd, PMIOSTART, 0);
	return err;
}

static void perfmon_teardown(void)
{
	perfmon_ctl_fd(pm_fd, PMIOSTOP, 0);
	close(pm_fd);
	pm_fd = -1;
}

static int perfmon_read(void)
{
	long long v;

	return perfmon_read_fd(pm_fd, 0, &v);
}

static int perfmon_stop_start(void)
{
	int err = perfmon_ctl_fd(pm_fd, PMIOSTOP, 0);

	return err ? err : perfmon_ctl_fd(pm_fd, PMIOSTART, 0);
}

/* ---- pfcntr (Tru64 pfm(7)), EV6 requests ---- */

static int pf_fd = -1;

static int pf_ioc_long(unsigned long req, long v)
{
	return ioctl(pf_fd, req, &v) ? -errno : 0;
}

/* mode PCNTOPENONE (CPU 0, the caller's) or PCNTOPENALL; items PFM_*. */
static int pf_setup(int mode, long items)
{
	union pmctrs_ev6 u;
	int err;

	pf_fd = open("/dev/pfcntr", O_RDONLY | O_CLOEXEC | mode);
	if (pf_fd < 0)
		return -errno;
	err = pf_ioc_long(PCNTSETITEMS, items);
	if (!err)
		err = pf_ioc_long(PCNT6MUX, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES);
	if (err)
		return err;
	u.pmctrs_ev6_long = 0;
	u.pmctrs_ev6_select = 3;
	u.pmctrs_ev6_cpu = PMCTRS_ALL_CPUS;
	return ioctl(pf_fd, PCNT6RESTART, &u.pmctrs_ev6_long) ? -errno : 0;
}

static int pf_one_setup(void)
{
	return pf_setup(PCNTOPENONE, PFM_COUNTERS);
}

static int pf_all_setup(void)
{
	return pf_setup(PCNTOPENALL, PFM_COUNTERS);
}

static int pf_ipl_setup(void)
{
	return pf_setup(PCNTOPENONE, PFM_COUNTERS | PFM_IPL);
}

static void pf_teardown(void)
{
	close(pf_fd);
	pf_fd = -1;
}

static int pf_readcntrs(void)
{
	struct pfcntrs_ev6 c[64], *p = c;

	return ioctl(pf_fd, PCNT6READCNTRS, &p) ? -errno : 0;
}

/* ---- overflows: injections through the test PMU ---- */

/*
 * One write to the test PMU's inject file: OVF_PER_CALL sampling periods
 * of instructions on CPU 0 (this CPU), counted in one NMI.  A sampling
 * event takes OVF_PER_CALL overflows in it; a counting event none.  The
 * difference between the two, per overflow, is the overflow's cost: the
 * driver's per-interrupt work (the test PMU's counter update and new
 * period, as x86's PMI handler does), perf_event_overflow() and the
 * overflow handler, plus whatever irq_work it raises, which runs before the
 * write returns (the NMI's self-IPI).
 */
static const char *ovf_cmd;
static long ovf_calls;

static int inject_ovf(void)
{
	ovf_calls++;
	return inject_raw(ovf_cmd);
}

/* OVF_PER_CALL periods of a sampling event: as many overflows. */
#define CMD_PERIODS	"cpu=0 event=0xc0 count=16777216 mode=user ctx=user\n"
/*
 * OVF_PER_CALL times the test PMU's longest period (2^47 - 1): a counting
 * event's counter wraps as often, each wrap a PMI with its counter update and
 * new period, but no perf_event_overflow() call.
 */
#define CMD_WRAPS	"cpu=0 event=0xc0 count=2251799813685232 mode=user ctx=user\n"

static int ovf_perf_setup(int sampling)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_INSTR;
	attr.pinned = 1;
	if (sampling)
		attr.sample_period = OVF_PERIOD;
	perf_fd = sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	return perf_fd < 0 ? -errno : 0;
}

static int ovf_perf_count_setup(void)
{
	return ovf_perf_setup(0);
}

static int ovf_perf_sample_setup(void)
{
	return ovf_perf_setup(1);
}

/* ---- libcpc ---- */

static cpc_t *cpc;
static cpc_set_t *cpc_set;
static cpc_buf_t *cpc_buf;

static int cpc_setup(void)
{
	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc)
		return -errno;
	cpc_set = cpc_set_create(cpc);
	if (!cpc_set)
		return -errno;
	if (cpc_set_add_request(cpc, cpc_set, "PAPI_tot_ins", 0, CPC_COUNT_USER, 0, NULL) != 0 ||
	    cpc_set_add_request(cpc, cpc_set, "PAPI_tot_cyc", 0, CPC_COUNT_USER, 0, NULL) != 1)
		return -(errno ? errno : EINVAL);
	cpc_buf = cpc_buf_create(cpc, cpc_set);
	if (!cpc_buf)
		return -errno;
	if (cpc_bind_curlwp(cpc, cpc_set, 0))
		return -errno;
	return 0;
}

static void cpc_teardown(void)
{
	if (cpc) {
		cpc_unbind(cpc, cpc_set);
		cpc_close(cpc);
	}
	cpc = NULL;
	cpc_set = NULL;
	cpc_buf = NULL;
}

static int cpc_sample(void)
{
	return cpc_set_sample(cpc, cpc_set, cpc_buf) ? -errno : 0;
}

static int cpc_restart(void)
{
	return cpc_set_restart(cpc, cpc_set) ? -errno : 0;
}

/*
 * libcpc's overflow, end to end: a CPU binding of CPU 0 (this thread's)
 * whose request overflows after 1000 instructions and signals this thread
 * (CPC_OVF_NOTIFY_EMT).  One cycle: inject 1000 instructions, which
 * overflow in the NMI (the handler freezes the set; irq_work and a work
 * item send SIGEMT and stop the events), the signal handler runs, and
 * cpc_set_restart() starts the set again.  The baseline is the same cycle
 * with a request that does not overflow.
 */
#define CMD_THOUSAND	"cpu=0 event=0xc0 count=1000 mode=user ctx=user\n"

static volatile sig_atomic_t emt_count;

static void on_emt(int sig)
{
	(void)sig;
	emt_count++;
}

static int cpc_cpu_setup(int ovf)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_emt;
	sigaction(SIGEMT, &sa, NULL);
	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc)
		return -errno;
	cpc_set = cpc_set_create(cpc);
	if (!cpc_set)
		return -errno;
	if (cpc_set_add_request(cpc, cpc_set, "PAPI_tot_ins", ovf ? UINT64_MAX - 999 : 0,
				CPC_COUNT_USER | CPC_COUNT_SYSTEM |
				(ovf ? CPC_OVF_NOTIFY_EMT : 0), 0, NULL) != 0)
		return -(errno ? errno : EINVAL);
	if (cpc_bind_cpu(cpc, 0, cpc_set, 0))
		return -errno;
	return 0;
}

static int cpc_cpu_ovf_setup(void)
{
	return cpc_cpu_setup(1);
}

static int cpc_cpu_count_setup(void)
{
	return cpc_cpu_setup(0);
}

static int cpc_ovf_cycle(void)
{
	int err;

	ovf_calls++;
	err = inject_raw(ovf_cmd);
	if (!err && cpc_set_restart(cpc, cpc_set))
		err = -errno;
	return err;
}

/*
 * perf's own equivalent of that cycle (issue 21): a CPU event of CPU 0
 * sampling every 1000 instructions that signals this thread (O_ASYNC,
 * F_SETOWN_EX to the thread, F_SETSIG) and stops after one overflow
 * (event_limit); one cycle injects 1000 instructions (perf disables the
 * event and sends the signal from irq_work), the handler runs, and
 * PERF_EVENT_IOC_REFRESH 1 re-arms it.  The baseline is the same cycle with
 * a period that is never reached.
 */
static volatile sig_atomic_t perf_sig_count;
static int perf_ovf_expected;	/* signals per cycle: 1 or 0 */

static void on_perf_sig(int sig)
{
	(void)sig;
	perf_sig_count++;
}

static int perf_refresh_setup(int ovf)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = gettid() };
	struct perf_event_attr attr;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_perf_sig;
	sigaction(SIGRTMIN + 2, &sa, NULL);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_INSTR;
	attr.pinned = 1;
	attr.disabled = 1;
	attr.sample_period = ovf ? 1000 : 1ULL << 40;
	perf_ovf_expected = ovf;
	attr.wakeup_events = 1;
	perf_fd = sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (perf_fd < 0)
		return -errno;
	if (fcntl(perf_fd, F_SETOWN_EX, &owner) || fcntl(perf_fd, F_SETSIG, SIGRTMIN + 2) ||
	    fcntl(perf_fd, F_SETFL, O_ASYNC) || ioctl(perf_fd, PERF_EVENT_IOC_REFRESH, 1))
		return -errno;
	return 0;
}

static int perf_refresh_ovf_setup(void)
{
	return perf_refresh_setup(1);
}

static int perf_refresh_count_setup(void)
{
	return perf_refresh_setup(0);
}

static int perf_ovf_cycle(void)
{
	sig_atomic_t before = perf_sig_count;
	int err;

	ovf_calls++;
	err = inject_raw(ovf_cmd);
	/* The signal was handled on the write's return, or the row fails. */
	if (!err && perf_sig_count - before != perf_ovf_expected)
		err = -(errno = EPROTO);
	if (!err && ioctl(perf_fd, PERF_EVENT_IOC_REFRESH, 1))
		err = -errno;
	return err;
}

/* ---- memory: slab per object ---- */

#define MEM_OPENS	1000
#define MEM_THREADS	200
#define MEM_RUNS	5

/* Slab: in /proc/meminfo, in bytes, once RCU callbacks and caches settled. */
static long long slab_bytes(void)
{
	char line[128];
	long long kb = -1;
	FILE *f;

	write_file("/proc/sys/vm/drop_caches", "2\n");
	usleep(200000);
	f = fopen("/proc/meminfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

static int fds[MEM_OPENS];

static int open_perf(void)
{
	return open_counter(PERF_TYPE_RAW, EV_INSTR, 0, -1, 0, 0);
}

static int open_cpc(void)
{
	return open("/dev/cpc", O_RDWR | O_CLOEXEC);
}

static int open_pctr(void)
{
	return open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
}

/* Slab bytes per descriptor over MEM_OPENS opens; -1 on failure. */
static double per_open1(int (*op)(void))
{
	long long before, after;
	int i, n, fail = 0;

	before = slab_bytes();
	for (n = 0; n < MEM_OPENS; n++) {
		fds[n] = op();
		if (fds[n] < 0) {
			fail = 1;
			break;
		}
	}
	after = slab_bytes();
	for (i = 0; i < n; i++)
		close(fds[i]);
	return fail || before < 0 ? -1 : (double)(after - before) / MEM_OPENS;
}

static pthread_barrier_t mem_bar;
static int mem_fail;

/*
 * A thread with its own libcpc handle and set.  Phases, each ended by the
 * barrier: made (the main thread reads Slab), bound, (Slab read again),
 * closed.
 */
static void *bind_thread(void *arg)
{
	cpc_t *h = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set = h ? cpc_set_create(h) : NULL;

	if (!set ||
	    cpc_set_add_request(h, set, "PAPI_tot_ins", 0, CPC_COUNT_USER, 0, NULL) != 0 ||
	    cpc_set_add_request(h, set, "PAPI_tot_cyc", 0, CPC_COUNT_USER, 0, NULL) != 1)
		__atomic_add_fetch(&mem_fail, 1, __ATOMIC_RELAXED);
	pthread_barrier_wait(&mem_bar);
	pthread_barrier_wait(&mem_bar);
	if (set && cpc_bind_curlwp(h, set, 0))
		__atomic_add_fetch(&mem_fail, 1, __ATOMIC_RELAXED);
	pthread_barrier_wait(&mem_bar);
	pthread_barrier_wait(&mem_bar);
	if (h)
		cpc_close(h);
	return arg;
}

/*
 * Slab bytes per libcpc binding: MEM_THREADS threads, each with its handle
 * and set, before and after each binds its set (the same threads in both
 * readings, so only the bindings differ).
 */
static double per_binding1(void)
{
	pthread_t t[MEM_THREADS];
	long long before, after;
	int i, n;

	mem_fail = 0;
	pthread_barrier_init(&mem_bar, NULL, MEM_THREADS + 1);
	for (n = 0; n < MEM_THREADS; n++)
		if (pthread_create(&t[n], NULL, bind_thread, NULL)) {
			/* cannot happen in the bench VM; the barrier needs them all */
			fprintf(stderr, "pthread_create failed after %d threads\n", n);
			exit(1);
		}
	pthread_barrier_wait(&mem_bar);
	before = slab_bytes();
	pthread_barrier_wait(&mem_bar);
	pthread_barrier_wait(&mem_bar);
	after = slab_bytes();
	pthread_barrier_wait(&mem_bar);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&mem_bar);
	return mem_fail || before < 0 ? -1 : (double)(after - before) / MEM_THREADS;
}

/* per_binding1(), median of MEM_RUNS. */
static double per_binding(void)
{
	double d[MEM_RUNS];
	int k;

	for (k = 0; k < MEM_RUNS; k++) {
		d[k] = per_binding1();
		if (d[k] < 0)
			return -1;
	}
	qsort(d, MEM_RUNS, sizeof(d[0]), cmp_double);
	return d[MEM_RUNS / 2];
}

/* per_open1(), median of MEM_RUNS. */
static double per_open(int (*op)(void))
{
	double d[MEM_RUNS];
	int k;

	for (k = 0; k < MEM_RUNS; k++) {
		d[k] = per_open1(op);
		if (d[k] < 0)
			return -1;
	}
	qsort(d, MEM_RUNS, sizeof(d[0]), cmp_double);
	return d[MEM_RUNS / 2];
}

struct mem {
	const char *name;
	int (*open)(void);		/* per_open() of it, or */
	double (*fn)(void);		/* a measurement of its own */
	double bytes[MAX_CONFIGS];
};

static struct mem mems[] = {
	{ .name = "perf_event_open(), one task event (the anchor)", .open = open_perf },
	{ .name = "open(\"/dev/cpc\")", .open = open_cpc },
	{ .name = "libcpc binding, cpc_bind_curlwp of 2 requests", .fn = per_binding },
	{ .name = "open(\"/dev/pctr\")", .open = open_pctr },
};

#define NMEMS	(int)(sizeof(mems) / sizeof(mems[0]))

static void run_mem(int c)
{
	int i;

	for (i = 0; i < NMEMS; i++) {
		mems[i].bytes[c] = mems[i].open ? per_open(mems[i].open) : mems[i].fn();
		printf("# %d CPUs: slab per %s: %.0f bytes\n", cpu_configs[c], mems[i].name,
		       mems[i].bytes[c]);
	}
}

#define OP(nm, calls, su, fn, td) \
	{ .name = nm, .n = calls, .setup = su, .call = fn, .teardown = td, .per = 1 }
/* an injection, its cost per call */
#define INJ(nm, c, su, td) \
	{ .name = nm, .n = 20, .setup = su, .call = inject_ovf, .teardown = td, \
	  .per = 1, .cmd = c }
/* an injection, (its cost - row m's) / OVF_PER_CALL - row m2's */
#define OVF(nm, c, su, td, m, m2) \
	{ .name = nm, .n = 20, .setup = su, .call = inject_ovf, .teardown = td, \
	  .per = OVF_PER_CALL, .minus = m, .minus2 = m2, .cmd = c, \
	  .ovfs = strcmp(c, CMD_PERIODS) ? 0 : OVF_PER_CALL }
/* libcpc: an injection of 1000 events and cpc_set_restart() */
#define CPC_OVF(nm, su, m, o) \
	{ .name = nm, .n = 100, .setup = su, .call = cpc_ovf_cycle, .teardown = cpc_teardown, \
	  .per = 1, .minus = m, .cmd = CMD_THOUSAND, .ovfs = o }

static struct op ops[] = {
	OP("perf read() of one event (the anchor)", 1000, perf_one_setup, perf_one_read,
	   perf_one_teardown),
	OP("perf read() of a 4-event group", 1000, perf_group_setup, perf_group_read,
	   perf_group_teardown),
	OP("perf DISABLE+ENABLE ioctls", 500, perf_one_setup, perf_disable_enable,
	   perf_one_teardown),
	OP("pctr PCIOCRD (4 counters + TSC)", 1000, pctr_setup, pctr_read, pctr_teardown),
	OP("pctr rdpmc(0) (PCIOCRD underneath)", 1000, pctr_setup, pctr_rdpmc, pctr_teardown),
	OP("perfmon PMIOREAD, 1 counter (sum over CPUs)", 500, perfmon_setup, perfmon_read,
	   perfmon_teardown),
	OP("perfmon PMIOSTOP+PMIOSTART", 200, perfmon_setup, perfmon_stop_start,
	   perfmon_teardown),
	OP("cpc_set_sample, 2 requests", 1000, cpc_setup, cpc_sample, cpc_teardown),
	OP("cpc_set_restart, 2 requests", 200, cpc_setup, cpc_restart, cpc_teardown),
	OP("pfcntr PCNT6READCNTRS, PCNTOPENONE (this CPU)", 1000, pf_one_setup, pf_readcntrs,
	   pf_teardown),
	OP("pfcntr PCNT6READCNTRS, PCNTOPENALL (summed)", 500, pf_all_setup, pf_readcntrs,
	   pf_teardown),
	/* rows 11-15: see inject_ovf() and README */
	INJ("(one injection of 16 periods, perf counting event: no PMI)", CMD_PERIODS,
	    ovf_perf_count_setup, perf_one_teardown),
	OVF("(PMI without overflow: counter update and new period, per wrap)", CMD_WRAPS,
	    ovf_perf_count_setup, perf_one_teardown, 12, 0),
	OVF("overflow: perf_event_overflow() + perf's handler (no ring buffer)", CMD_PERIODS,
	    ovf_perf_sample_setup, perf_one_teardown, 12, 13),
	INJ("(one injection of 16 periods, pfcntr counting: no PMI)", CMD_PERIODS,
	    pf_one_setup, pf_teardown),
	OVF("overflow: perf_event_overflow() + pfcntr's IPL handler", CMD_PERIODS,
	    pf_ipl_setup, pf_teardown, 15, 13),
	/* rows 16-17 */
	CPC_OVF("(libcpc CPU binding: inject 1000 + cpc_set_restart, no overflow)",
		cpc_cpu_count_setup, 0, 0),
	CPC_OVF("libcpc overflow end to end (handler, SIGEMT, restart), per overflow",
		cpc_cpu_ovf_setup, 17, 1),
	/* Last, so that the row numbers above stay: cpc_set_sample's anchor. */
	OP("perf read() of a 2-event group (as cpc_set_sample of 2 requests)", 1000,
	   perf_group2_setup, perf_group_read, perf_group2_teardown),
	/* rows 19-20: perf's own overflow cycle, libcpc's anchor (rows 16-17) */
	{ .name = "(perf CPU event: inject 1000 + IOC_REFRESH, no overflow)", .n = 100,
	  .setup = perf_refresh_count_setup, .call = perf_ovf_cycle,
	  .teardown = perf_one_teardown, .per = 1, .cmd = CMD_THOUSAND },
	{ .name = "perf overflow end to end (F_SETSIG signal, handler, IOC_REFRESH), per overflow",
	  .n = 100, .setup = perf_refresh_ovf_setup, .call = perf_ovf_cycle,
	  .teardown = perf_one_teardown, .per = 1, .minus = 19, .cmd = CMD_THOUSAND, .ovfs = 1 },
	/* rows 21-22: perf counting the machine, perfmon's anchors (rows 6-7) */
	OP("perf read() of a CPU event on each online CPU, summed (as PMIOREAD)", 200,
	   perf_cpus_setup, perf_cpus_read, perf_cpus_teardown),
	OP("perf DISABLE+ENABLE of a CPU event on each online CPU (as PMIOSTOP+PMIOSTART)", 100,
	   perf_cpus_setup, perf_cpus_disable_enable, perf_cpus_teardown),
	/* rows 23-29: CPU-bound sets made and remade (issue 32) */
	OP("cpc_bind_cpu(0) + cpc_unbind, 2 requests", 50, cpc_bind_setup, cpc_bind_unbind,
	   cpc_cpus_teardown),
	OP("perf open + close of the same 2 CPU events on CPU 0 (as cpc_bind_cpu)", 50, NULL,
	   perf_open_close_cpu0, NULL),
	OP("cpustat interval, 2 sets: on each CPU sample, unbind, bind the other", 10,
	   cpustat_setup, cpustat_interval, cpc_cpus_teardown),
	OP("perf, the same on each CPU: read, close, open the other 2 events", 10,
	   perf_cpus2_setup, perf_cpustat_interval, perf_cpus2_teardown),
	OP("pfcntr PCNT6MUX change, PCNTOPENEACH + PCNTLOGALL", 10, pf_each_logall_setup,
	   pf_mux_change, pf_logall_teardown),
	OP("pfcntr PCNT6MUX change, PCNTOPENALL + PCNTLOGALL", 10, pf_all_logall_setup,
	   pf_mux_change, pf_logall_teardown),
	OP("perf, 2 CPU events of each CPU closed and opened again", 10, perf_cpus2_setup,
	   perf_reopen_all, perf_cpus2_teardown),
};

#define NOPS	(int)(sizeof(ops) / sizeof(ops[0]))

static void run_config(int c, int ncpu)
{
	int i, err;

	for (i = 0; i < NOPS; i++) {
		struct op *o = &ops[i];

		err = o->setup ? o->setup() : 0;
		if (err) {
			o->ipc[c] = -1;
			snprintf(o->note[c], sizeof(o->note[c]), "setup: %s", strerror(-err));
		} else {
			int nmi0 = -1, nmi1 = -1;
			long calls0 = ovf_calls, want;

			ovf_cmd = o->cmd;
			read_file_int(FAKEPMU_NMI_OVF, &nmi0);
			o->raw[c] = o->ipc[c] = measure(o->call, o->n, &o->spread[c]);
			if (o->ipc[c] < 0) {
				snprintf(o->note[c], sizeof(o->note[c]), "call failed: %s",
					 strerror(errno));
			} else {
				if (o->minus)
					o->ipc[c] -= ops[o->minus - 1].raw[c];
				o->ipc[c] /= o->per;
				if (o->minus2)
					o->ipc[c] -= ops[o->minus2 - 1].ipc[c];
			}
			read_file_int(FAKEPMU_NMI_OVF, &nmi1);
			/* Every overflow taken (none throttled away), and no other? */
			want = (ovf_calls - calls0) * o->ovfs;
			if (o->cmd && o->ipc[c] >= 0 && nmi1 - nmi0 != want) {
				snprintf(o->note[c], sizeof(o->note[c]),
					 "%d overflows, expected %ld", nmi1 - nmi0, want);
				o->ipc[c] = -1;
			}
		}
		if (o->teardown)
			o->teardown();
		printf("# %d CPUs: %-45s %8.0f (spread %.1f%%)%s%s\n", ncpu, o->name, o->ipc[c],
		       100 * o->spread[c], o->note[c][0] ? " " : "", o->note[c]);
		fflush(stdout);
	}
}

/*
 * Issue 21's goals, each a ratio of two rows in the same boot (den -1: the
 * row's own cost with one CPU), and the limit for 1, 4 and 8 CPUs (0: no
 * goal there, the ratio is shown for comparison).  Rows are 0-based here.
 */
static const struct goal {
	const char *name;
	int num, den;
	double limit[MAX_CONFIGS];
} goals[] = {
	{ "PCIOCRD / perf read() of one event", 3, 0, { 1.0, 1.0, 1.0 } },
	{ "cpc_set_sample (2 requests) / perf read() of one event", 7, 0, { 1.0, 1.0, 1.0 } },
	{ "PCNT6READCNTRS PCNTOPENONE / perf read() of one event", 9, 0, { 1.0, 1.0, 1.0 } },
	{ "PMIOREAD / perf read() of one event", 5, 0, { 1.0, 0, 1.1 } },
	{ "PCNT6READCNTRS PCNTOPENALL / perf read() of one event", 10, 0, { 0, 0, 1.3 } },
	{ "PMIOSTOP+PMIOSTART / perf DISABLE+ENABLE", 6, 2, { 1.0, 0, 0 } },
	{ "PMIOSTOP+PMIOSTART / its own cost with 1 CPU", 6, -1, { 0, 0, 1.5 } },
	{ "cpc_set_restart / perf DISABLE+ENABLE", 8, 2, { 1.0, 1.0, 1.0 } },
	{ "libcpc overflow end to end / perf's (F_SETSIG, IOC_REFRESH)", 17, 20, { 1.0, 1.0, 1.0 } },
	/* beside perf's own way of doing the same: no goal, for comparison */
	{ "(PCIOCRD / perf read() of a 4-event group)", 3, 1, { 0, 0, 0 } },
	{ "(cpc_set_sample / perf read() of a 2-event group)", 7, 18, { 0, 0, 0 } },
	{ "(PMIOREAD / perf read() of a CPU event on each CPU, summed)", 5, 21, { 0, 0, 0 } },
	{ "(PMIOSTOP+PMIOSTART / perf DISABLE+ENABLE on each CPU)", 6, 22, { 0, 0, 0 } },
	/* issue 32: CPU-bound sets cost what perf's CPU events cost, per CPU */
	{ "(cpc_bind_cpu + cpc_unbind / its own cost with 1 CPU)", 23, -1, { 0, 0, 0 } },
	{ "(cpc_bind_cpu + cpc_unbind / perf open + close on CPU 0)", 23, 24, { 0, 0, 0 } },
	{ "(cpustat interval, 2 sets / perf's, on each CPU)", 25, 26, { 0, 0, 0 } },
	{ "(cpustat interval, 2 sets / its own cost with 1 CPU)", 25, -1, { 0, 0, 0 } },
	{ "(PCNT6MUX, EACH + LOGALL / perf reopening each CPU's events)", 27, 29, { 0, 0, 0 } },
	{ "(PCNT6MUX, ALL + LOGALL / perf reopening each CPU's events)", 28, 29, { 0, 0, 0 } },
	{ "(PCNT6MUX, EACH + LOGALL / its own cost with 1 CPU)", 27, -1, { 0, 0, 0 } },
};

#define NGOALS	(int)(sizeof(goals) / sizeof(goals[0]))

/* A table's CPU-count columns after its first, and the line under them. */
static void print_cpu_columns(void)
{
	int c;

	for (c = 0; c < MAX_CONFIGS; c++)
		printf(" %d CPU%s |", cpu_configs[c], cpu_configs[c] > 1 ? "s" : "");
	printf("\n|---|");
	for (c = 0; c < MAX_CONFIGS; c++)
		printf("---:|");
	printf("\n");
}

static void print_goal_cell(double num, double den, double limit)
{
	double r;

	if (num < 0 || den <= 0) {
		printf(" - |");
		return;
	}
	r = num / den;
	if (limit <= 0)
		printf(" %.2f |", r);
	else
		printf(" %.2f (≤ %.1f: %s) |", r, limit, r <= limit ? "met" : "not met");
}

/* The rows the goals name, by what their names say: a moved row is caught. */
static const struct { int row; const char *has; } goal_rows[] = {
	{ 0, "perf read() of one event" }, { 1, "4-event group" }, { 2, "perf DISABLE+ENABLE" },
	{ 3, "PCIOCRD" }, { 5, "PMIOREAD" }, { 6, "PMIOSTOP" }, { 7, "cpc_set_sample" },
	{ 8, "cpc_set_restart" }, { 9, "PCNTOPENONE" }, { 10, "PCNTOPENALL" },
	{ 17, "libcpc overflow end to end" }, { 18, "2-event group" },
	{ 20, "perf overflow end to end" }, { 21, "as PMIOREAD" }, { 22, "as PMIOSTOP" },
	{ 23, "cpc_bind_cpu(0)" }, { 24, "as cpc_bind_cpu" }, { 25, "cpustat interval" },
	{ 26, "perf, the same on each CPU" }, { 27, "PCNTOPENEACH + PCNTLOGALL" },
	{ 28, "PCNTOPENALL + PCNTLOGALL" }, { 29, "closed and opened again" },
};

static void print_goals(void)
{
	int g, c;

	for (g = 0; g < (int)(sizeof(goal_rows) / sizeof(goal_rows[0])); g++) {
		if (goal_rows[g].row >= NOPS ||
		    !strstr(ops[goal_rows[g].row].name, goal_rows[g].has)) {
			printf("# goals: row %d is not \"%s\"\n", goal_rows[g].row,
			       goal_rows[g].has);
			return;
		}
	}

	printf("\nGoals (issue 21): ratios of the rows above, in the same boot\n\n| goal |");
	print_cpu_columns();
	for (g = 0; g < NGOALS; g++) {
		const struct goal *gl = &goals[g];

		printf("| %s |", gl->name);
		for (c = 0; c < MAX_CONFIGS; c++)
			print_goal_cell(ops[gl->num].ipc[c],
					gl->den < 0 ? ops[gl->num].ipc[0] : ops[gl->den].ipc[c],
					gl->limit[c]);
		printf("\n");
	}
	/* Memory: a binding of 2 requests against perf's cost of 2 events. */
	printf("| libcpc binding (2 requests) slab / 2 × perf's per event |");
	for (c = 0; c < MAX_CONFIGS; c++)
		print_goal_cell(mems[2].bytes[c], 2 * mems[0].bytes[c], 1.0);
	printf("\n");
}

int main(void)
{
	int c, cpu, online = count_online_cpus(), failed = 0, tests = 0;
	double anchor;
	int i;

	struct rlimit nofile = { 4 * MEM_OPENS, 4 * MEM_OPENS };

	setvbuf(stdout, NULL, _IOLBF, 0);
	setrlimit(RLIMIT_NOFILE, &nofile);
	/*
	 * No throttling of the overflow rows: perf's limit per tick well above
	 * what they take, and no lowering of it for slow NMIs (TCG is slow).
	 */
	write_file("/proc/sys/kernel/perf_event_max_sample_rate", "10000000\n");
	write_file("/proc/sys/kernel/perf_cpu_time_max_percent", "0\n");
	_Static_assert(OVF_PER_CALL * OVF_PERIOD == 16777216, "CMD_PERIODS");
	printf("TAP version 13\n1..%d\n", 2 * MAX_CONFIGS);
	if (pin_to_cpu(0))
		printf("# cannot pin to CPU 0: %s\n", strerror(errno));
	for (c = 0; c < MAX_CONFIGS; c++) {
		int ncpu = cpu_configs[c], ok = 1;

		for (cpu = 1; cpu < ncpu; cpu++)
			if (cpu_online_state(cpu) != 1 && set_cpu_online(cpu, 1))
				ok = 0;
		online = count_online_cpus();
		if (!ok || online != ncpu) {
			printf("not ok %d %d CPUs online # %d online\n", ++tests, ncpu, online);
			failed++;
			for (i = 0; i < NOPS; i++)
				ops[i].ipc[c] = -1;
			continue;
		}
		run_config(c, ncpu);
		ok = 1;
		for (i = 0; i < NOPS; i++)
			if (ops[i].ipc[c] < 0)
				ok = 0;
		printf("%s %d %d CPUs online\n", ok ? "ok" : "not ok", ++tests, ncpu);
		failed += !ok;
	}
	/*
	 * Memory after all timings (its thousands of objects and threads would
	 * shift the next timings a little): 8 CPUs, then 4, then 1.
	 */
	for (c = MAX_CONFIGS - 1; c >= 0; c--) {
		int ncpu = cpu_configs[c], ok = 1;

		for (cpu = ncpu; cpu < cpu_configs[MAX_CONFIGS - 1]; cpu++)
			if (cpu_online_state(cpu) == 1 && set_cpu_online(cpu, 0))
				ok = 0;
		if (!ok || count_online_cpus() != ncpu) {
			printf("not ok %d memory, %d CPUs online # %d online\n", ++tests, ncpu,
			       count_online_cpus());
			failed++;
			for (i = 0; i < NMEMS; i++)
				mems[i].bytes[c] = -1;
			continue;
		}
		run_mem(c);
		for (i = 0; i < NMEMS; i++)
			if (mems[i].bytes[c] < 0)
				ok = 0;
		printf("%s %d memory, %d CPUs online\n", ok ? "ok" : "not ok", ++tests, ncpu);
		failed += !ok;
	}

	printf("\nGuest instructions per call (QEMU -icount shift=0; median of %d runs,"
	       " loop overhead subtracted)\n\n", RUNS);
	printf("| operation |");
	for (c = 0; c < MAX_CONFIGS; c++)
		printf(" %d CPU%s |", cpu_configs[c], cpu_configs[c] > 1 ? "s" : "");
	for (c = 0; c < MAX_CONFIGS; c++)
		printf(" × perf read(), %d CPU%s |", cpu_configs[c], cpu_configs[c] > 1 ? "s" : "");
	printf("\n|---|");
	for (c = 0; c < 2 * MAX_CONFIGS; c++)
		printf("---:|");
	printf("\n");
	for (i = 0; i < NOPS; i++) {
		printf("| %s |", ops[i].name);
		for (c = 0; c < MAX_CONFIGS; c++) {
			if (ops[i].ipc[c] < 0)
				printf(" failed |");
			else
				printf(" %.0f |", ops[i].ipc[c]);
		}
		for (c = 0; c < MAX_CONFIGS; c++) {
			anchor = ops[0].ipc[c];
			if (ops[i].ipc[c] < 0 || anchor <= 0)
				printf(" - |");
			else
				printf(" %.2f |", ops[i].ipc[c] / anchor);
		}
		printf("\n");
	}
	printf("\nSlab bytes per object (/proc/meminfo Slab before and after %d opens, or"
	       " before and after %d threads bind; median of %d)\n\n| object |",
	       MEM_OPENS, MEM_THREADS, MEM_RUNS);
	print_cpu_columns();
	for (i = 0; i < NMEMS; i++) {
		printf("| %s |", mems[i].name);
		for (c = 0; c < MAX_CONFIGS; c++)
			printf(mems[i].bytes[c] < 0 ? " failed |" : " %.0f |", mems[i].bytes[c]);
		printf("\n");
	}
	print_goals();
	printf("\n# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       tests - failed, failed);
	return failed ? 1 : 0;
}
