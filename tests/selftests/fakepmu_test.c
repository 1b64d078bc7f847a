// SPDX-License-Identifier: GPL-2.0
/*
 * The test PMU against perf_event_open: exact injected counts, mode filters,
 * overflow signals with the injected ip delivered from NMI, counter scheduling
 * (fixed and constrained counters), the Intel and AMD layouts, the hybrid
 * cpu_core/cpu_atom PMUs (hybrid=1) and input checks.
 */
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include "pmc_test_util.h"
#include "kselftest_harness.h"

#define EV_INSTR	0x00c0
#define EV_CYCLES	0x003c
#define EV_REF		0x0300	/* Intel: CPU_CLK_UNHALTED.REF, fixed counter 2 only */
#define EV_BRANCH	0x00c4	/* Intel: general-purpose counters only */
#define EV_BRMISS	0x00c5
#define EV_PEND_MISS	0x0148	/* Intel: general-purpose counter 2 only */

#define FAKEPMU_NMI_OVF	"/sys/kernel/debug/fakepmu/nmi_overflows"
#define PMU_DIR		"/sys/bus/event_source/devices/"

static int is_hybrid(void)
{
	return access(PMU_DIR "cpu_core", F_OK) == 0;
}

/* The tests written for one "cpu" PMU. */
#define NEED_ONE_CPU_PMU() do {						\
	if (!have_fakepmu())						\
		SKIP(return, NO_FAKEPMU);			\
	if (is_hybrid())						\
		SKIP(return, "test PMU loaded with hybrid=1: this test is for one cpu PMU"); \
} while (0)

#define NEED_HYBRID() do {						\
	if (!have_fakepmu())						\
		SKIP(return, NO_FAKEPMU);			\
	if (!is_hybrid())						\
		SKIP(return, "no cpu_core PMU: load the test PMU with hybrid=1"); \
} while (0)

struct cpu_id {
	int amd;
	unsigned int family;
};

static struct cpu_id cpu_id(void)
{
	struct cpu_id c = { 0, 0 };
	char line[256], vendor[64];
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return c;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vendor_id : %63s", vendor) == 1)
			c.amd = !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine");
		else if (sscanf(line, "cpu family : %u", &c.family) == 1)
			break;
	}
	fclose(f);
	return c;
}

/* A boolean parameter of the test PMU (Y or N); 0 when absent. */
static int fakepmu_param_bool(const char *name)
{
	return fakepmu_param(name) == 1;
}

/* A numeric parameter of the test PMU; 0 when absent. */
static unsigned int fakepmu_param_uint(const char *name)
{
	long v = fakepmu_param(name);

	return v < 0 ? 0 : (unsigned int)v;
}

#define strict_raw()	fakepmu_param_bool("strict_raw")
#define watchdog_on()	fakepmu_param_bool("watchdog")

/* Tests of the whole state of a CPU: none but theirs may hold counters. */
#define NEED_NO_WATCHDOG() do {						\
	if (watchdog_on())						\
		SKIP(return, "watchdog=1 holds a counter on every CPU"); \
} while (0)

/* The test PMU's general-purpose counters per CPU (cpu_core with hybrid=1). */
#define gp_counters()	fakepmu_gp_counters()

static int nmi_overflows(void)
{
	int n;

	return read_file_int(FAKEPMU_NMI_OVF, &n) ? -1 : n;
}

/* 1: the event counts (reads a value); 0: error state (EOF); -1: other. */
static int readable(int fd)
{
	__u64 v;
	ssize_t n = read(fd, &v, sizeof(v));

	return n == sizeof(v) ? 1 : n == 0 ? 0 : -1;
}

TEST(raw_counter_counts_exactly_what_was_injected)
{
	int fd;

	NEED_ONE_CPU_PMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	fd = open_counter(PERF_TYPE_RAW, EV_INSTR, 0, -1, 0, 0);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	EXPECT_EQ(0ULL, read_count(fd));
	ASSERT_EQ(0, inject(1, EV_INSTR, 12345));
	EXPECT_EQ(12345ULL, read_count(fd));
	/* Another event code, or another CPU, does not count here. */
	ASSERT_EQ(0, inject(1, EV_CYCLES, 777));
	ASSERT_EQ(0, inject(2, EV_INSTR, 999));
	EXPECT_EQ(12345ULL, read_count(fd));
	ASSERT_EQ(0, inject(1, EV_INSTR, 1));
	EXPECT_EQ(12346ULL, read_count(fd));
	close(fd);
}

TEST(cpu_wide_counter)
{
	int fd;

	NEED_ONE_CPU_PMU();
	fd = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, 2, 0, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject(2, EV_INSTR, 1000000));
	ASSERT_EQ(0, inject(3, EV_INSTR, 5));
	EXPECT_EQ(1000000ULL, read_count(fd));
	close(fd);
}

/*
 * tid= counts only while that thread runs on the CPU: the caller's own tid on
 * its own CPU always counts; a thread that is asleep never does (EAGAIN, and
 * nothing is counted on that CPU).
 */
TEST(injection_for_one_thread_counts_only_while_it_runs)
{
	int fd, pfd[2];
	pid_t child;
	char c;

	NEED_ONE_CPU_PMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	fd = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, 1, 0, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(pfd));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		close(pfd[1]);
		_exit(read(pfd[0], &c, 1) == 1 ? 0 : 1);	/* asleep */
	}
	close(pfd[0]);
	EXPECT_EQ(0, inject_task(1, gettid(), EV_INSTR, 100, 0, 0));
	EXPECT_EQ(-EAGAIN, inject_raw("cpu=1 event=0xc0 count=7 tid=1"));	/* init sleeps */
	{
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "cpu=1 event=0xc0 count=7 tid=%d", (int)child);
		EXPECT_EQ(-EAGAIN, inject_raw(cmd));
	}
	EXPECT_EQ(100ULL, read_count(fd))
		TH_LOG("an injection for a thread that was not running counted");
	ASSERT_EQ(1, write(pfd[1], "x", 1));
	close(pfd[1]);
	ASSERT_EQ(child, waitpid(child, NULL, 0));
	close(fd);
}

TEST(user_and_kernel_filters)
{
	int fu, fk, fb;

	NEED_ONE_CPU_PMU();
	fu = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, 2, 0, 1);
	fk = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, 2, 1, 0);
	fb = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, 2, 0, 0);
	ASSERT_LE(0, fu);
	ASSERT_LE(0, fk);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 100, 0, 0));
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 7, 1, 0));
	ASSERT_EQ(0, inject_raw("cpu=2 event=0xc0 count=20\n"));	/* default: user */
	EXPECT_EQ(120ULL, read_count(fu));
	EXPECT_EQ(7ULL, read_count(fk));
	EXPECT_EQ(127ULL, read_count(fb));
	close(fu);
	close(fk);
	close(fb);
}

static volatile sig_atomic_t sigio_count, sigio_fd, sigio_code;

static void on_sigio(int sig, siginfo_t *si, void *uc)
{
	sigio_count++;
	sigio_fd = si->si_fd;
	sigio_code = si->si_code;
}

static int wait_for_signals(int n, int ms)
{
	struct timespec ts = { 0, 1000000 };

	while (sigio_count < n && ms-- > 0)
		nanosleep(&ts, NULL);
	return sigio_count;
}

/* Find the first PERF_RECORD_SAMPLE in the ring buffer; return its ip. */
static int first_sample(struct perf_event_mmap_page *pg, __u64 *ip, __u16 *misc)
{
	char *data = (char *)pg + pg->data_offset;
	__u64 head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	__u64 off = pg->data_tail;

	while (off < head) {
		struct perf_event_header *h = (void *)(data + (off % pg->data_size));

		if (h->type == PERF_RECORD_SAMPLE) {
			memcpy(ip, h + 1, sizeof(*ip));
			*misc = h->misc;
			return 0;
		}
		off += h->size;
	}
	return -1;
}

TEST(overflow_signal_at_the_right_count_with_the_injected_ip)
{
	struct perf_event_attr attr;
	struct sigaction sa;
	struct perf_event_mmap_page *pg;
	long psz = sysconf(_SC_PAGESIZE);
	__u64 ip = 0;
	__u16 misc = 0;
	int fd;

	NEED_ONE_CPU_PMU();
	/*
	 * A task counter switched out near the end of its period is
	 * reprogrammed with at least the limit (fakepmu_silicon_test checks it).
	 */
	if (fakepmu_param_uint("limit_period") > 1 || fakepmu_param_uint("inst_limit_period") > 1)
		SKIP(return, "limit_period: the rest of a period is raised to the limit");
	ASSERT_EQ(0, pin_to_cpu(1));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigio;
	sa.sa_flags = SA_SIGINFO;
	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_INSTR;
	attr.sample_period = 1000;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.wakeup_events = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	pg = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, pg);
	ASSERT_EQ(0, fcntl(fd, F_SETOWN, getpid()));
	ASSERT_EQ(0, fcntl(fd, F_SETSIG, SIGIO));
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_ASYNC));

	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 999, 0, 0x401000));
	EXPECT_EQ(0, wait_for_signals(1, 200));
	EXPECT_EQ(999ULL, read_count(fd));
	EXPECT_NE(0, first_sample(pg, &ip, &misc));

	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 1, 0, 0x401234));
	EXPECT_EQ(1, wait_for_signals(1, 2000));
	EXPECT_EQ(fd, sigio_fd);
	EXPECT_EQ(POLL_IN, sigio_code);
	EXPECT_EQ(1000ULL, read_count(fd));
	ASSERT_EQ(0, first_sample(pg, &ip, &misc));
	EXPECT_EQ(0x401234ULL, ip);
	EXPECT_EQ(PERF_RECORD_MISC_USER, misc & PERF_RECORD_MISC_CPUMODE_MASK);

	/* The next period is a full one again. */
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 999, 0, 0x401000));
	EXPECT_EQ(1, wait_for_signals(2, 200));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 1, 0, 0x401000));
	EXPECT_EQ(2, wait_for_signals(2, 2000));
	munmap(pg, 2 * psz);
	close(fd);
}

TEST(kernel_mode_sample)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	long psz = sysconf(_SC_PAGESIZE);
	struct pollfd pfd;
	__u64 ip = 0;
	__u16 misc = 0;
	int fd;

	NEED_ONE_CPU_PMU();
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_CYCLES;
	attr.sample_period = 128;	/* at least any limit_period */
	attr.sample_type = PERF_SAMPLE_IP;
	attr.wakeup_events = 1;
	fd = sys_perf_event_open(&attr, -1, 3, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	pg = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, pg);
	ASSERT_EQ(0, inject_ip(3, EV_CYCLES, 128, 1, 0xffffffff81234567ULL));
	pfd.fd = fd;
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, 2000));
	ASSERT_EQ(0, first_sample(pg, &ip, &misc));
	EXPECT_EQ(0xffffffff81234567ULL, ip);
	EXPECT_EQ(PERF_RECORD_MISC_KERNEL, misc & PERF_RECORD_MISC_CPUMODE_MASK);
	munmap(pg, 2 * psz);
	close(fd);
}

TEST(two_counters_on_one_cpu)
{
	char line[256];
	int fa, fb, slots = 0;
	FILE *f;

	NEED_ONE_CPU_PMU();
	NEED_NO_WATCHDOG();
	fa = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, 3, 0, 0);
	fb = open_counter(PERF_TYPE_RAW, EV_CYCLES, -1, 3, 0, 1);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, inject(3, EV_INSTR, 11));
	ASSERT_EQ(0, inject(3, EV_CYCLES, 22));
	EXPECT_EQ(11ULL, read_count(fa));
	EXPECT_EQ(22ULL, read_count(fb));

	f = fopen(FAKEPMU_STATE, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu=3 ", 6))
			slots++;
		if (strstr(line, "cpu=3 ") && strstr(line, "config=0x3c "))
			EXPECT_NE(NULL, strstr(line, "user=1 kernel=0 count=22 period=0"));
	}
	fclose(f);
	EXPECT_EQ(2, slots);
	close(fa);
	close(fb);
}

/* One event more than there are general-purpose counters (no fixed one fits). */
TEST(one_event_too_many_is_multiplexed)
{
	struct { __u64 value, enabled, running; } v;
	struct perf_event_attr attr;
	struct timespec ts = { 0, 100 * 1000000 };
	int fd[33], i, n, partial = 0;

	NEED_ONE_CPU_PMU();
	n = gp_counters() + 1;
	ASSERT_LE(2, n);
	ASSERT_GE(33, n);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_BRANCH;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	for (i = 0; i < n; i++) {
		fd[i] = sys_perf_event_open(&attr, -1, 3, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fd[i]);
	}
	nanosleep(&ts, NULL);
	for (i = 0; i < n; i++) {
		ASSERT_EQ((ssize_t)sizeof(v), read(fd[i], &v, sizeof(v)));
		EXPECT_LT(0ULL, v.enabled);
		if (v.running < v.enabled)
			partial++;
	}
	EXPECT_LE(1, partial);
	for (i = 0; i < n; i++)
		close(fd[i]);
}

TEST(one_pinned_event_too_many_goes_to_error_state)
{
	int fd[33], i, n, counting = 0, eof = 0;

	NEED_ONE_CPU_PMU();
	/* The watchdog (watchdog=1) holds a general-purpose counter on AMD. */
	n = gp_counters() + 1 - (watchdog_on() && cpu_id().amd);
	ASSERT_LE(2, n);
	ASSERT_GE(33, n);
	for (i = 0; i < n; i++) {
		fd[i] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_BRANCH, 3);
		ASSERT_LE(0, fd[i]);
	}
	/* perf puts a pinned event it cannot schedule in error state: read() is EOF. */
	for (i = 0; i < n; i++) {
		int r = readable(fd[i]);

		counting += r == 1;
		eof += r == 0;
	}
	EXPECT_EQ(n - 1, counting);
	EXPECT_EQ(1, eof);
	for (i = 0; i < n; i++)
		close(fd[i]);
}

TEST(counts_past_48_bits_are_exact)
{
	unsigned long long big = (1ULL << 48) + 5;
	int fd;

	NEED_ONE_CPU_PMU();
	fd = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, 2, 0, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject(2, EV_INSTR, big));
	EXPECT_EQ(big, read_count(fd));
	ASSERT_EQ(0, inject(2, EV_INSTR, 3ULL << 47));
	EXPECT_EQ(big + (3ULL << 47), read_count(fd));
	ASSERT_EQ(0, inject(2, EV_INSTR, (1ULL << 50) + 1));
	EXPECT_EQ(big + (3ULL << 47) + (1ULL << 50) + 1, read_count(fd));
	close(fd);
}

#define CACHE(t, op, res) (PERF_COUNT_HW_CACHE_##t | (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
			   (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

/* perf's codes on this vendor: Intel, AMD before family 17h, AMD Zen. */
TEST(generic_events_map_to_the_vendors_codes)
{
	struct cpu_id c = cpu_id();
	unsigned int instr = 0x00c0, miss, l1d, cycles;
	int fi, fc, fl1, fcy;

	NEED_ONE_CPU_PMU();
	if (!c.amd) {
		cycles = 0x003c, miss = 0x412e, l1d = 0x81d0;
	} else if (c.family < 0x17) {
		cycles = 0x0076, miss = 0x077e, l1d = 0x0040;
	} else {
		cycles = 0x0076, miss = 0x0964, l1d = 0x0040;
	}
	TH_LOG("%s family %#x", c.amd ? "AMD" : "Intel", c.family);
	fi = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 2, 0, 0);
	fc = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, -1, 2, 0, 0);
	fl1 = open_counter(PERF_TYPE_HW_CACHE, CACHE(L1D, READ, ACCESS), -1, 2, 0, 0);
	fcy = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, -1, 2, 0, 0);
	ASSERT_LE(0, fi);
	ASSERT_LE(0, fc);
	ASSERT_LE(0, fl1);
	ASSERT_LE(0, fcy);
	ASSERT_EQ(0, inject(2, instr, 3));
	ASSERT_EQ(0, inject(2, miss, 4));
	ASSERT_EQ(0, inject(2, l1d, 5));
	ASSERT_EQ(0, inject(2, cycles, 6));
	EXPECT_EQ(3ULL, read_count(fi));
	EXPECT_EQ(4ULL, read_count(fc));
	EXPECT_EQ(5ULL, read_count(fl1));
	EXPECT_EQ(6ULL, read_count(fcy));
	close(fi);
	close(fc);
	close(fl1);
	close(fcy);
}

TEST(unsupported_and_invalid_events)
{
	struct cpu_id c = cpu_id();
	int fd;

	NEED_ONE_CPU_PMU();
	/* No code on this PMU: ENOENT, as on hardware. */
	EXPECT_EQ(-1, open_counter(PERF_TYPE_HARDWARE, c.amd ? PERF_COUNT_HW_REF_CPU_CYCLES :
				   PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, -1, 0, 0, 0));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, open_counter(PERF_TYPE_HW_CACHE, CACHE(LL, PREFETCH, ACCESS),
				   -1, 0, 0, 0));
	EXPECT_EQ(ENOENT, errno);
	/* An operation that does not exist: EINVAL. */
	EXPECT_EQ(-1, open_counter(PERF_TYPE_HW_CACHE, CACHE(L1I, WRITE, ACCESS),
				   -1, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	/* Raw control bits (USR here): masked as x86 does, EINVAL with strict_raw=1. */
	fd = open_counter(PERF_TYPE_RAW, 0x100c0, -1, 0, 0, 0);
	if (strict_raw()) {
		EXPECT_EQ(-1, fd);
		EXPECT_EQ(EINVAL, errno);
	} else {
		EXPECT_LE(0, fd);
		close(fd);
	}
	/* Edge, invert and counter mask are accepted. */
	fd = open_counter(PERF_TYPE_RAW, 0x018400c0, -1, 0, 0, 0);
	EXPECT_LE(0, fd);
	close(fd);
}

/*
 * Intel PERFEVTSEL has nothing above bit 31; AMD PERF_CTL has event select
 * 11:8 in 35:32.  Other bits are masked off (the counter runs the event
 * fields alone), or refused with strict_raw=1.
 */
TEST(raw_config_layout_of_the_vendor)
{
	static const unsigned long long stray[] = {
		1ULL << 16, 1ULL << 17, 1ULL << 20, 1ULL << 22,
		1ULL << 36, 1ULL << 40, 1ULL << 41, 1ULL << 63,
	};
	struct cpu_id c = cpu_id();
	int strict = strict_raw();
	unsigned int i;
	int fd, fl;

	NEED_ONE_CPU_PMU();
	for (i = 0; i < sizeof(stray) / sizeof(stray[0]); i++) {
		fd = open_counter(PERF_TYPE_RAW, stray[i] | 0x40, -1, 2, 0, 0);
		if (strict) {
			EXPECT_EQ(-1, fd) TH_LOG("config %#llx", stray[i] | 0x40);
			EXPECT_EQ(EINVAL, errno);
			continue;
		}
		ASSERT_LE(0, fd) TH_LOG("config %#llx", stray[i] | 0x40);
		EXPECT_EQ(1, fakepmu_state_count("cpu=2 ", "config=0x40 "));
		close(fd);
	}
	fd = open_counter(PERF_TYPE_RAW, 0x100000040ULL, -1, 2, 0, 0);
	if (!c.amd) {
		/* Bits 35:32 are stray on Intel. */
		if (strict) {
			EXPECT_EQ(-1, fd);
			EXPECT_EQ(EINVAL, errno);
		} else {
			ASSERT_LE(0, fd);
			EXPECT_EQ(1, fakepmu_state_count("cpu=2 ", "config=0x40 "));
			close(fd);
		}
		/* The inject file refuses AMD's extended event selects too. */
		EXPECT_EQ(-EINVAL, inject(2, 0x10040, 1));
		return;
	}
	/* Event select 0x140 (bits 35:32 = 1) and its unit mask and flags. */
	ASSERT_LE(0, fd);
	fl = open_counter(PERF_TYPE_RAW, 0x1ff841040ULL, -1, 2, 0, 0);
	ASSERT_LE(0, fl);
	ASSERT_EQ(0, inject(2, 0x10040, 7));
	ASSERT_EQ(0, inject(2, 0x00040, 100));
	ASSERT_EQ(0, inject(2, 0x11040, 9));
	EXPECT_EQ(7ULL, read_count(fd));
	EXPECT_EQ(9ULL, read_count(fl));
	EXPECT_EQ(1, fakepmu_state_count("cpu=2 ", "config=0x100000040 "));
	close(fd);
	close(fl);
}

TEST(amd_generic_and_cache_tables)
{
	struct cpu_id c = cpu_id();
	int zen, fd;

	NEED_ONE_CPU_PMU();
	if (!c.amd)
		SKIP(return, "Intel CPU: AMD tables do not apply (Intel ones: generic_events_map_to_the_vendors_codes)");
	zen = c.family >= 0x17;
	TH_LOG("AMD family %#x: %s tables", c.family, zen ? "Zen 1" : "K7 to family 16h");
	fd = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, -1, 2, 0, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject(2, zen ? 0x0287 : 0x00d0, 11));
	EXPECT_EQ(11ULL, read_count(fd));
	close(fd);
	fd = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, -1, 2, 0, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject(2, zen ? 0xff60 : 0x077d, 12));
	EXPECT_EQ(12ULL, read_count(fd));
	close(fd);
	fd = open_counter(PERF_TYPE_HW_CACHE, CACHE(L1D, READ, MISS), -1, 2, 0, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject(2, zen ? 0xc860 : 0x0141, 13));
	EXPECT_EQ(13ULL, read_count(fd));
	close(fd);
	/* The Zen table has no last-level cache events; the older one does. */
	fd = open_counter(PERF_TYPE_HW_CACHE, CACHE(LL, READ, ACCESS), -1, 2, 0, 0);
	if (zen) {
		EXPECT_EQ(-1, fd);
		EXPECT_EQ(ENOENT, errno);
	} else {
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, inject(2, 0x037d, 14));
		EXPECT_EQ(14ULL, read_count(fd));
	}
	close(fd);
	/* Branches: 0xc2/0xc3, not Intel's 0xc4/0xc5. */
	fd = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, -1, 2, 0, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject(2, 0x00c4, 1));
	ASSERT_EQ(0, inject(2, 0x00c2, 15));
	EXPECT_EQ(15ULL, read_count(fd));
	close(fd);
}

TEST(counters_of_the_vendor)
{
	struct cpu_id c = cpu_id();
	int fd[40], n = 0, i, gp, counting = 0;

	NEED_ONE_CPU_PMU();
	NEED_NO_WATCHDOG();
	gp = gp_counters();
	ASSERT_LE(1, gp);
	if (c.amd) {
		/* Six general-purpose counters by default, no fixed ones. */
		EXPECT_EQ(6, gp);
		for (i = 0; i < gp + 1; i++) {
			fd[n] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_INSTR, 3);
			ASSERT_LE(0, fd[n]);
			n++;
		}
		for (i = 0; i < n; i++)
			counting += readable(fd[i]) == 1;
		EXPECT_EQ(gp, counting);
		EXPECT_EQ(0, fakepmu_state_count("cpu=3 ", "slot=fixed"));
		/* The constrained Intel code is an ordinary event here. */
		for (i = 0; i < n; i++)
			close(fd[i]);
		fd[0] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_PEND_MISS, 3);
		fd[1] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_PEND_MISS, 3);
		EXPECT_EQ(1, readable(fd[0]));
		EXPECT_EQ(1, readable(fd[1]));
		close(fd[0]);
		close(fd[1]);
		return;
	}
	/* Intel: the three fixed-counter events first, then gp others: all pinned. */
	EXPECT_EQ(4, gp);
	fd[n++] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_INSTR, 3);
	fd[n++] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_CYCLES, 3);
	fd[n++] = open_pinned_cpu_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 3);
	fd[n++] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_INSTR, 3);
	fd[n++] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_CYCLES, 3);
	fd[n++] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_BRANCH, 3);
	fd[n++] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_BRMISS, 3);
	for (i = 0; i < n; i++)
		ASSERT_LE(0, fd[i]) TH_LOG("event %d: %s", i, strerror(errno));
	EXPECT_EQ(1, fakepmu_state_count("cpu=3 slot=fixed0 ", "config=0xc0 "));
	EXPECT_EQ(1, fakepmu_state_count("cpu=3 slot=fixed1 ", "config=0x3c "));
	EXPECT_EQ(1, fakepmu_state_count("cpu=3 slot=fixed2 ", "config=0x300 "));
	EXPECT_EQ(7, fakepmu_state_count("cpu=3 ", NULL));
	ASSERT_EQ(0, inject(3, EV_INSTR, 10));
	ASSERT_EQ(0, inject(3, EV_CYCLES, 20));
	ASSERT_EQ(0, inject(3, EV_REF, 30));
	ASSERT_EQ(0, inject(3, EV_BRANCH, 40));
	ASSERT_EQ(0, inject(3, EV_BRMISS, 50));
	EXPECT_EQ(10ULL, read_count(fd[0]));
	EXPECT_EQ(20ULL, read_count(fd[1]));
	EXPECT_EQ(30ULL, read_count(fd[2]));
	EXPECT_EQ(10ULL, read_count(fd[3]));
	EXPECT_EQ(20ULL, read_count(fd[4]));
	EXPECT_EQ(40ULL, read_count(fd[5]));
	EXPECT_EQ(50ULL, read_count(fd[6]));
	/* Everything is taken: one more of either kind is in error state. */
	fd[n] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_INSTR, 3);
	ASSERT_LE(0, fd[n]);
	EXPECT_EQ(0, readable(fd[n]));
	n++;
	/* 0x0300 is a pseudo-encoding for fixed counter 2: never a general-purpose one. */
	fd[n] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_REF, 2);
	ASSERT_LE(0, fd[n]);
	fd[n + 1] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_REF, 2);
	ASSERT_LE(0, fd[n + 1]);
	EXPECT_EQ(1, readable(fd[n]));
	EXPECT_EQ(0, readable(fd[n + 1]));
	n += 2;
	for (i = 0; i < n; i++)
		close(fd[i]);
	/* Edge, inv or cmask take the event off the fixed counter. */
	fd[0] = open_pinned_cpu_event(PERF_TYPE_RAW, 0x010000c0, 3);
	ASSERT_LE(0, fd[0]);
	EXPECT_EQ(1, fakepmu_state_count("cpu=3 slot=0 ", "config=0x10000c0 "));
	close(fd[0]);
}

TEST(constrained_event_fits_one_counter_only)
{
	struct cpu_id c = cpu_id();
	int fa, fb, fc[3], i;

	NEED_ONE_CPU_PMU();
	if (c.amd)
		SKIP(return, "AMD CPU: no counter constraints (counters_of_the_vendor checks 0x0148 is not constrained)");
	ASSERT_LE(3, gp_counters());
	fa = open_pinned_cpu_event(PERF_TYPE_RAW, EV_PEND_MISS, 3);
	fb = open_pinned_cpu_event(PERF_TYPE_RAW, 0x01000148, 3);	/* the cmask=1 variant */
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	/* Like hardware: the second cannot be scheduled, the pinned event goes to error state. */
	EXPECT_EQ(1, readable(fa));
	EXPECT_EQ(0, readable(fb));
	EXPECT_EQ(1, fakepmu_state_count("cpu=3 slot=2 ", "config=0x148 "));
	/* The other general-purpose counters stay free. */
	for (i = 0; i < 3; i++) {
		fc[i] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_BRANCH, 3);
		ASSERT_LE(0, fc[i]);
		EXPECT_EQ(1, readable(fc[i]));
	}
	ASSERT_EQ(0, inject(3, EV_PEND_MISS, 8));
	EXPECT_EQ(8ULL, read_count(fa));
	for (i = 0; i < 3; i++)
		close(fc[i]);
	close(fa);
	close(fb);
}

static int count_samples(struct perf_event_mmap_page *pg)
{
	char *data = (char *)pg + pg->data_offset;
	__u64 head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	__u64 off = pg->data_tail;
	int n = 0;

	while (off < head) {
		struct perf_event_header *h = (void *)(data + (off % pg->data_size));

		n += h->type == PERF_RECORD_SAMPLE;
		off += h->size;
	}
	return n;
}

/* Every overflow is delivered from the NMI the test PMU raised, as a PMI. */
TEST(overflows_are_delivered_from_nmi)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	struct sigaction sa;
	long psz = sysconf(_SC_PAGESIZE);
	int fd, fc, before;

	NEED_ONE_CPU_PMU();
	ASSERT_EQ(0, access(FAKEPMU_NMI_OVF, R_OK));
	ASSERT_EQ(0, pin_to_cpu(1));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigio;
	sa.sa_flags = SA_SIGINFO;
	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));
	sigio_count = 0;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_BRANCH;
	attr.sample_period = 100;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.wakeup_events = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	pg = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, pg);
	ASSERT_EQ(0, fcntl(fd, F_SETOWN, getpid()));
	ASSERT_EQ(0, fcntl(fd, F_SETSIG, SIGIO));
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_ASYNC));
	/* A counting event on the same code overflows nothing. */
	fc = open_counter(PERF_TYPE_RAW, EV_BRANCH, 0, -1, 0, 0);
	ASSERT_LE(0, fc);

	before = nmi_overflows();
	ASSERT_LE(0, before);
	ASSERT_EQ(0, inject_ip(1, EV_BRANCH, 350, 0, 0x401000));
	/* The write returns after the overflows were raised. */
	EXPECT_EQ(before + 3, nmi_overflows());
	EXPECT_EQ(1, wait_for_signals(1, 2000) >= 1);
	EXPECT_EQ(fd, sigio_fd);
	EXPECT_EQ(3, count_samples(pg));
	EXPECT_EQ(350ULL, read_count(fd));
	EXPECT_EQ(350ULL, read_count(fc));
	ASSERT_EQ(0, inject_ip(1, EV_BRANCH, 50, 0, 0x401000));
	EXPECT_EQ(before + 4, nmi_overflows());
	EXPECT_EQ(4, count_samples(pg));
	munmap(pg, 2 * psz);
	close(fd);
	close(fc);
}

TEST(bad_inject_input_is_refused_and_changes_nothing)
{
	static const char *const bad[] = {
		"", "\n", "cpu=2", "cpu=2 event=0xc0", "event=0xc0 count=1",
		"cpu=2 event=0xc0 count=1 cpu=2", "cpu=2 event=0xc0 count=x",
		"cpu=2 event=0x1000c0 count=1", "cpu=2 event=0xc0 count=1 mode=hyper",
		"cpu=2 event=0xc0 count=1 ip=", "cpu=2 event=0xc0 count=1 bogus=1",
		"cpu=2 event=0xc0 count=18446744073709551616", "cpu=-1 event=0xc0 count=1",
		"cpu=99999 event=0xc0 count=1", "cpu=2 event=0xc0 count=1 junk",
		"cpu=2,event=0xc0,count=1",
	};
	unsigned int i;
	int fd;

	NEED_ONE_CPU_PMU();
	fd = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, 2, 0, 0);
	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TH_LOG("input \"%s\"", bad[i]);
		EXPECT_EQ(-EINVAL, inject_raw(bad[i]));
	}
	/* An AMD extended event select is not this event either way. */
	EXPECT_EQ(cpu_id().amd ? 0 : -EINVAL, inject_raw("cpu=2 event=0x1c0c0 count=1"));
	EXPECT_EQ(0ULL, read_count(fd));
	/* Good input in odd spacing and hex still works. */
	EXPECT_EQ(0, inject_raw("  count=0x10\tevent=192   cpu=0x2  \n"));
	EXPECT_EQ(16ULL, read_count(fd));
	close(fd);
}

/* ---- hybrid=1 ------------------------------------------------------------ */

struct hybrid {
	int atom_type;
	cpu_set_t core, atom;
	int core_cpu, atom_cpu;	/* one of each */
};

/* Parse a sysfs CPU list ("0-1,3") into set. */
static int parse_cpus(const char *path, cpu_set_t *set)
{
	char buf[256], *p, *end;
	FILE *f = fopen(path, "re");
	long a, b;

	CPU_ZERO(set);
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (p = buf; *p && *p != '\n'; p = end + (*end == ',')) {
		a = strtol(p, &end, 10);
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (end == p || a > b)
			return -1;
		for (; a <= b; a++)
			CPU_SET(a, set);
	}
	return 0;
}

static int hybrid_info(struct hybrid *h)
{
	int cpu;

	if (read_file_int(PMU_DIR "cpu_atom/type", &h->atom_type) ||
	    parse_cpus(PMU_DIR "cpu_core/cpus", &h->core) ||
	    parse_cpus(PMU_DIR "cpu_atom/cpus", &h->atom))
		return -1;
	h->core_cpu = h->atom_cpu = -1;
	for (cpu = count_online_cpus() - 1; cpu >= 0; cpu--) {
		if (CPU_ISSET(cpu, &h->core))
			h->core_cpu = cpu;
		if (CPU_ISSET(cpu, &h->atom))
			h->atom_cpu = cpu;
	}
	return h->core_cpu < 0 || h->atom_cpu < 0 ? -1 : 0;
}

TEST(hybrid_pmus_split_the_cpus)
{
	struct hybrid h;
	cpu_set_t both, lp;
	int core_type, cpu, n = count_online_cpus();

	NEED_HYBRID();
	ASSERT_EQ(0, hybrid_info(&h));
	ASSERT_EQ(0, read_file_int(PMU_DIR "cpu_core/type", &core_type));
	EXPECT_EQ(PERF_TYPE_RAW, core_type);
	EXPECT_LT(PERF_TYPE_MAX, h.atom_type);
	EXPECT_NE(0, access(PMU_DIR "cpu", F_OK));
	CPU_AND(&both, &h.core, &h.atom);
	EXPECT_EQ(0, CPU_COUNT(&both));
	/* hybrid=3: the last online CPU is cpu_lowpower's, and only it. */
	if (!parse_cpus(PMU_DIR "cpu_lowpower/cpus", &lp)) {
		EXPECT_EQ(1, CPU_COUNT(&lp));
		EXPECT_TRUE(CPU_ISSET(n - 1, &lp));
		n--;
	}
	/* The first half (rounded up) of the other online CPUs are cores. */
	for (cpu = 0; cpu < n; cpu++)
		EXPECT_EQ(cpu < (n + 1) / 2, CPU_ISSET(cpu, &h.core)) TH_LOG("CPU %d", cpu);
	for (cpu = 0; cpu < n; cpu++)
		EXPECT_EQ(cpu >= (n + 1) / 2, CPU_ISSET(cpu, &h.atom)) TH_LOG("CPU %d", cpu);
}

TEST(hybrid_cpu_events_only_on_their_own_cpus)
{
	struct hybrid h;
	int fd, fa, fh;

	NEED_HYBRID();
	ASSERT_EQ(0, hybrid_info(&h));
	/* Each PMU refuses the other's CPUs with ENOENT, as x86_pmu_event_init(). */
	EXPECT_EQ(-1, open_counter(PERF_TYPE_RAW, EV_INSTR, -1, h.atom_cpu, 0, 0));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, open_counter(h.atom_type, EV_INSTR, -1, h.core_cpu, 0, 0));
	EXPECT_EQ(ENOENT, errno);

	fd = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, h.core_cpu, 0, 0);
	fa = open_counter(h.atom_type, EV_INSTR, -1, h.atom_cpu, 0, 0);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, fa);
	EXPECT_EQ(1, fakepmu_state_count("pmu=cpu_core", NULL));
	EXPECT_EQ(1, fakepmu_state_count("pmu=cpu_atom", NULL));
	/* A plain hardware event: perf core tries cpu_core, then every PMU. */
	fh = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, h.atom_cpu, 0, 0);
	ASSERT_LE(0, fh) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, inject(h.core_cpu, EV_INSTR, 5));
	ASSERT_EQ(0, inject(h.atom_cpu, EV_INSTR, 7));
	EXPECT_EQ(5ULL, read_count(fd));
	EXPECT_EQ(7ULL, read_count(fa));
	EXPECT_EQ(7ULL, read_count(fh));
	close(fd);
	close(fa);
	close(fh);
}

TEST(hybrid_task_events_count_only_on_their_own_cpus)
{
	struct hybrid h;
	int fd, fa;

	NEED_HYBRID();
	ASSERT_EQ(0, hybrid_info(&h));
	fd = open_counter(PERF_TYPE_RAW, EV_INSTR, 0, -1, 0, 0);
	fa = open_counter(h.atom_type, EV_INSTR, 0, -1, 0, 0);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, pin_to_cpu(h.core_cpu));
	ASSERT_EQ(0, inject(h.core_cpu, EV_INSTR, 100));
	ASSERT_EQ(0, pin_to_cpu(h.atom_cpu));
	ASSERT_EQ(0, inject(h.atom_cpu, EV_INSTR, 20));
	EXPECT_EQ(100ULL, read_count(fd));
	EXPECT_EQ(20ULL, read_count(fa));
	ASSERT_EQ(0, pin_to_cpu(h.core_cpu));
	ASSERT_EQ(0, inject(h.core_cpu, EV_INSTR, 3));
	EXPECT_EQ(103ULL, read_count(fd));
	EXPECT_EQ(20ULL, read_count(fa));
	close(fd);
	close(fa);
}

TEST(hybrid_extended_hardware_type_routes)
{
	struct hybrid h;
	__u64 atom = 0, core = (__u64)PERF_TYPE_RAW << 32;
	int fd, fa, fc;

	NEED_HYBRID();
	ASSERT_EQ(0, hybrid_info(&h));
	atom = (__u64)h.atom_type << 32;
	EXPECT_EQ(-1, open_counter(PERF_TYPE_HARDWARE, atom | PERF_COUNT_HW_INSTRUCTIONS,
				   -1, h.core_cpu, 0, 0));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, open_counter(PERF_TYPE_HARDWARE, core | PERF_COUNT_HW_INSTRUCTIONS,
				   -1, h.atom_cpu, 0, 0));
	EXPECT_EQ(ENOENT, errno);
	fa = open_counter(PERF_TYPE_HARDWARE, atom | PERF_COUNT_HW_INSTRUCTIONS, -1, h.atom_cpu, 0, 0);
	fd = open_counter(PERF_TYPE_HARDWARE, core | PERF_COUNT_HW_INSTRUCTIONS, -1, h.core_cpu, 0, 0);
	fc = open_counter(PERF_TYPE_HW_CACHE, atom | CACHE(L1D, READ, ACCESS), -1, h.atom_cpu, 0, 0);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, fc);
	EXPECT_EQ(2, fakepmu_state_count("pmu=cpu_atom", NULL));
	EXPECT_EQ(1, fakepmu_state_count("pmu=cpu_core", NULL));
	ASSERT_EQ(0, inject(h.atom_cpu, EV_INSTR, 4));
	ASSERT_EQ(0, inject(h.core_cpu, EV_INSTR, 6));
	ASSERT_EQ(0, inject(h.atom_cpu, 0x81d0, 9));
	EXPECT_EQ(4ULL, read_count(fa));
	EXPECT_EQ(6ULL, read_count(fd));
	EXPECT_EQ(9ULL, read_count(fc));
	close(fa);
	close(fd);
	close(fc);
}

TEST(hybrid_atom_has_fewer_counters)
{
	struct hybrid h;
	int fd[34], n, i, counting = 0, atom_gp;

	NEED_HYBRID();
	ASSERT_EQ(0, hybrid_info(&h));
	ASSERT_EQ(0, read_file_int("/sys/module/fakepmu/parameters/atom_ncounters", &atom_gp));
	EXPECT_GT(gp_counters(), atom_gp);
	n = atom_gp + 1;
	for (i = 0; i < n; i++) {
		fd[i] = open_pinned_cpu_event(h.atom_type, EV_BRANCH, h.atom_cpu);
		ASSERT_LE(0, fd[i]);
	}
	for (i = 0; i < n; i++)
		counting += readable(fd[i]) == 1;
	EXPECT_EQ(atom_gp, counting);
	for (i = 0; i < n; i++)
		close(fd[i]);
	/* The same number fits on a core. */
	counting = 0;
	for (i = 0; i < n; i++) {
		fd[i] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_BRANCH, h.core_cpu);
		ASSERT_LE(0, fd[i]);
	}
	for (i = 0; i < n; i++)
		counting += readable(fd[i]) == 1;
	EXPECT_EQ(n, counting);
	for (i = 0; i < n; i++)
		close(fd[i]);
}

TEST_HARNESS_MAIN
