// SPDX-License-Identifier: GPL-2.0
/*
 * The test PMU's silicon-like behaviours against perf_event_open, each in
 * the configuration the lane loaded it with (its parameters are read from
 * /sys/module/fakepmu/parameters): stray raw bits masked (strict_raw=0) or
 * refused (strict_raw=1); the NMI watchdog's pinned cycles counter on every
 * online CPU (watchdog=1) and pinned events that find no counter going to
 * error state; minimum periods (limit_period, inst_limit_period); Intel's
 * BTS at period 1 on branches (bts=1); perf's throttling reached with
 * repeat=; the hardware reservation; and async=1 NMIs landing while a
 * thread reads its counter in a tight loop, which must leave the count
 * exact.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <sys/mman.h>
#include "pmc_test_util.h"
#include "kselftest_harness.h"

#define EV_INSTR	0x00c0
#define EV_BRANCH	0x00c4	/* Intel: branch instructions (BTS at period 1) */
#define EV_BRMISS	0x00c5

#define DBG		"/sys/kernel/debug/fakepmu/"

static int is_hybrid(void)
{
	return access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

#define NEED_ONE_CPU_PMU() do {						\
	if (!have_fakepmu())						\
		SKIP(return, "test PMU not loaded");			\
	if (is_hybrid())						\
		SKIP(return, "test PMU loaded as a hybrid CPU: this test is for one cpu PMU"); \
} while (0)

static long dbg(const char *name)
{
	char path[128];
	int v;

	snprintf(path, sizeof(path), DBG "%s", name);
	return read_file_int(path, &v) ? -1 : v;
}

static int is_amd(void)
{
	char line[256], vendor[64];
	FILE *f = fopen("/proc/cpuinfo", "re");
	int amd = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "vendor_id : %63s", vendor) == 1) {
			amd = !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine");
			break;
		}
	fclose(f);
	return amd;
}

static int open_attr(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	attr->size = sizeof(*attr);
	return sys_perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* A sampling event of the raw code with a fixed period; fd or -1. */
static int open_sampling(__u64 config, __u64 period, int exclude_kernel, int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_RAW;
	attr.config = config;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.exclude_kernel = exclude_kernel;
	return open_attr(&attr, -1, cpu);
}

/* Stray bits: masked as x86_pmu_hw_config() does, or refused with strict_raw=1. */
TEST(stray_raw_bits_are_masked_as_x86_does)
{
	/* USR, OS, INT, EN, then bits no x86 layout has. */
	static const unsigned long long stray[] = {
		0x10000, 0x20000, 0x100000, 0x400000, 0x530000,
		1ULL << 40, 1ULL << 63,
	};
	long strict = fakepmu_param("strict_raw"), masked;
	unsigned int i;
	int fd;

	NEED_ONE_CPU_PMU();
	ASSERT_LE(0, strict);
	for (i = 0; i < sizeof(stray) / sizeof(stray[0]); i++) {
		long before = dbg("raw_masked");

		ASSERT_LE(0, before);
		fd = open_counter(PERF_TYPE_RAW, stray[i] | EV_BRMISS, -1, 2, 0, 0);
		if (strict) {
			EXPECT_EQ(-1, fd) TH_LOG("config %#llx", stray[i] | EV_BRMISS);
			EXPECT_EQ(EINVAL, errno);
			EXPECT_EQ(before, dbg("raw_masked"));
			continue;
		}
		ASSERT_LE(0, fd) TH_LOG("config %#llx: %s", stray[i] | EV_BRMISS, strerror(errno));
		EXPECT_EQ(before + 1, dbg("raw_masked"));
		/* The counter runs the masked code: the state shows it, injections count. */
		EXPECT_EQ(1, fakepmu_state_count("cpu=2 ", "config=0xc5 "));
		{
			char m[48];

			snprintf(m, sizeof(m), " masked=%#llx\n", stray[i]);
			EXPECT_EQ(1, fakepmu_state_count("cpu=2 ", m)) TH_LOG("no%s", m);
		}
		ASSERT_EQ(0, inject(2, EV_BRMISS, 42));
		EXPECT_EQ(42ULL, read_count(fd));
		close(fd);
	}
	/* A clean config is never counted as masked. */
	masked = dbg("raw_masked");
	fd = open_counter(PERF_TYPE_RAW, 0x018400c5, -1, 2, 0, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(masked, dbg("raw_masked"));
	EXPECT_EQ(0, fakepmu_state_count("masked=", NULL));
	close(fd);
}

/* Intel's AnyThread (bit 21) is kept for a privileged caller; AMD has no such bit. */
TEST(any_thread_bit_of_the_vendor)
{
	long strict = fakepmu_param("strict_raw");
	int fd;

	NEED_ONE_CPU_PMU();
	fd = open_counter(PERF_TYPE_RAW, 0x2000c5, -1, 2, 0, 0);
	if (strict) {
		EXPECT_EQ(-1, fd);
		EXPECT_EQ(EINVAL, errno);
		return;
	}
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, fakepmu_state_count("cpu=2 ", is_amd() ? "config=0xc5 " : "config=0x2000c5 "));
	close(fd);
}

/*
 * watchdog=1: a pinned cycles counter on every online CPU, on fixed counter 1
 * (Intel) or a general-purpose counter (AMD), following CPU hotplug.
 */
TEST(watchdog_holds_a_counter_on_every_online_cpu)
{
	int amd = is_amd(), ncpu = count_online_cpus(), lines;
	const char *where = amd ? "slot=0 " : "slot=fixed1 ";
	const char *what = amd ? "config=0x76 " : "config=0x3c ";

	NEED_ONE_CPU_PMU();
	lines = fakepmu_state_count(where, what);
	if (fakepmu_param("watchdog") != 1) {
		EXPECT_EQ(0, lines);
		SKIP(return, "test PMU loaded without watchdog=1");
	}
	EXPECT_EQ(ncpu, lines);
	EXPECT_EQ(ncpu, fakepmu_state_count(" period=30000000000", NULL));
	if (cpu_online_state(3) != 1)
		SKIP(return, "CPU 3 cannot be taken offline");
	ASSERT_EQ(0, set_cpu_online(3, 0));
	EXPECT_EQ(0, fakepmu_state_count("cpu=3 ", NULL));
	EXPECT_EQ(ncpu - 1, fakepmu_state_count(where, what));
	ASSERT_EQ(0, set_cpu_online(3, 1));
	/* Back online, the watchdog's counter is made again. */
	EXPECT_EQ(1, fakepmu_state_count("cpu=3 ", what));
	EXPECT_EQ(ncpu, fakepmu_state_count(where, what));
}

/*
 * The counter budget: the general-purpose counters left (the watchdog takes
 * one on AMD) hold that many pinned CPU events; perf puts the next one in
 * error state, where read() returns 0 (end of file), as perf documents.
 */
TEST(pinned_events_beyond_the_budget_go_to_error_state)
{
	int free = fakepmu_gp_counters(), fd[34], i, n, counting = 0, eof = 0;
	__u64 v;

	NEED_ONE_CPU_PMU();
	if (fakepmu_param("watchdog") == 1 && is_amd())
		free--;
	ASSERT_LE(1, free);
	ASSERT_GE(33, free);
	n = free + 1;
	for (i = 0; i < n; i++) {
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_RAW;
		attr.config = EV_BRANCH;
		attr.pinned = 1;
		fd[i] = open_attr(&attr, -1, 3);
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, inject(3, EV_BRANCH, 9));
	for (i = 0; i < n; i++) {
		ssize_t r = read(fd[i], &v, sizeof(v));

		if (r == sizeof(v)) {
			counting++;
			EXPECT_EQ(9ULL, v);
		}
		eof += r == 0;
	}
	EXPECT_EQ(free, counting);
	EXPECT_EQ(1, eof);
	/* Error state is for good: a counter freed does not bring it back. */
	close(fd[0]);
	for (i = 1, eof = 0; i < n; i++)
		eof += read(fd[i], &v, sizeof(v)) == 0;
	EXPECT_EQ(1, eof);
	for (i = 1; i < n; i++)
		close(fd[i]);
}

/* limit_period and inst_limit_period: event init and PERF_EVENT_IOC_PERIOD. */
TEST(minimum_periods)
{
	long lp = fakepmu_param("limit_period"), ilp = fakepmu_param("inst_limit_period");
	long limit[2], l;
	__u64 p;
	unsigned int k;
	int fd;

	NEED_ONE_CPU_PMU();
	ASSERT_LE(0, lp);
	ASSERT_LE(0, ilp);
	limit[0] = lp;			/* any event */
	limit[1] = lp > ilp ? lp : ilp;	/* instructions retired */
	for (k = 0; k < 2; k++) {
		__u64 code = k ? EV_INSTR : EV_BRMISS;

		l = limit[k] > 2 ? limit[k] : 2;
		TH_LOG("config %#llx: smallest period %ld", code, limit[k]);
		fd = open_sampling(code, l - 1, 0, 2);
		if (limit[k] > 1) {
			EXPECT_EQ(-1, fd);
			EXPECT_EQ(EINVAL, errno);
		} else {
			EXPECT_LE(0, fd);
			close(fd);
		}
		fd = open_sampling(code, l, 0, 2);
		ASSERT_LE(0, fd) TH_LOG("period %ld: %s", l, strerror(errno));
		p = l - 1;
		EXPECT_EQ(limit[k] > 1 ? -1 : 0, ioctl(fd, PERF_EVENT_IOC_PERIOD, &p));
		p = l + 1;
		EXPECT_EQ(0, ioctl(fd, PERF_EVENT_IOC_PERIOD, &p));
		close(fd);
	}
	/* Generic instructions are instructions retired too. */
	{
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_INSTRUCTIONS;
		attr.sample_period = limit[1] > 1 ? limit[1] - 1 : 1;
		fd = open_attr(&attr, -1, 2);
		EXPECT_EQ(limit[1] > 1 ? -1 : 0, fd < 0 ? -1 : 0);
		if (fd >= 0)
			close(fd);
	}
}

/*
 * The limit applies whenever the counter is programmed, as in
 * x86_perf_event_set_period(): a counter stopped and started again (here by
 * disable/enable) with 1 left of its period runs for the limit.
 */
TEST(reprogrammed_counter_runs_at_least_the_limit)
{
	long lp = fakepmu_param("limit_period"), before;
	int fd;

	NEED_ONE_CPU_PMU();
	ASSERT_LE(0, lp);
	fd = open_sampling(EV_BRMISS, 1000, 0, 2);
	ASSERT_LE(0, fd);
	before = dbg("nmi_overflows");
	ASSERT_EQ(0, inject(2, EV_BRMISS, 999));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, inject(2, EV_BRMISS, 1));
	EXPECT_EQ(before + (lp > 1 ? 0 : 1), dbg("nmi_overflows"));
	if (lp > 1) {
		ASSERT_EQ(0, inject(2, EV_BRMISS, lp - 2));
		EXPECT_EQ(before, dbg("nmi_overflows"));
		ASSERT_EQ(0, inject(2, EV_BRMISS, 1));
		EXPECT_EQ(before + 1, dbg("nmi_overflows"));
	}
	EXPECT_EQ(1000ULL + (lp > 1 ? lp - 1 : 0), read_count(fd));
	close(fd);
}

/*
 * bts=1 (Intel): period 1 on branch instructions is BTS: EOPNOTSUPP with the
 * kernel counted; user-only counts but never calls the overflow handler;
 * PERF_EVENT_IOC_PERIOD to 1 is EINVAL.
 */
TEST(bts_at_period_one_on_branches)
{
	long b = fakepmu_param("bts"), lp = fakepmu_param("limit_period");
	int bts = b == 1 && !is_amd(), fd;
	long before;
	__u64 p = 1;

	NEED_ONE_CPU_PMU();
	if (lp > 1)
		SKIP(return, "limit_period=%ld refuses period 1 first", lp);
	fd = open_sampling(EV_BRANCH, 1, 0, 2);
	if (bts) {
		EXPECT_EQ(-1, fd);
		EXPECT_EQ(EOPNOTSUPP, errno);
	} else {
		EXPECT_LE(0, fd);
		close(fd);
	}
	/* Another event at period 1 is no BTS. */
	fd = open_sampling(EV_BRMISS, 1, 0, 2);
	EXPECT_LE(0, fd);
	close(fd);

	fd = open_sampling(EV_BRANCH, 1, 1, 2);
	ASSERT_LE(0, fd);
	before = dbg("nmi_overflows");
	ASSERT_EQ(0, inject(2, EV_BRANCH, 5));
	EXPECT_EQ(5ULL, read_count(fd));
	EXPECT_EQ(before + (bts ? 0 : 5), dbg("nmi_overflows"));
	close(fd);

	fd = open_sampling(EV_BRANCH, 2, 0, 2);
	ASSERT_LE(0, fd);
	EXPECT_EQ(bts ? -1 : 0, ioctl(fd, PERF_EVENT_IOC_PERIOD, &p));
	close(fd);
}

/* Records of the ring buffer: samples, throttle and unthrottle records. */
static void count_records(struct perf_event_mmap_page *pg, int *samples,
			  int *throttle, int *unthrottle)
{
	char *data = (char *)pg + pg->data_offset;
	__u64 head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	__u64 off = pg->data_tail;

	*samples = *throttle = *unthrottle = 0;
	while (off < head) {
		struct perf_event_header *h = (void *)(data + (off % pg->data_size));

		*samples += h->type == PERF_RECORD_SAMPLE;
		*throttle += h->type == PERF_RECORD_THROTTLE;
		*unthrottle += h->type == PERF_RECORD_UNTHROTTLE;
		if (!h->size)
			break;
		off += h->size;
	}
}

/*
 * repeat=: one NMI per period, 2000 in a row on a CPU with interrupts off
 * (so within one tick): perf throttles the event past max_samples_per_tick
 * (at most 1000 with HZ >= 100), the counter stops and counts nothing until
 * the tick restarts it.
 */
TEST(throttling_stops_the_counter_until_the_tick)
{
	struct perf_event_mmap_page *pg;
	long psz = sysconf(_SC_PAGESIZE);
	struct timespec t0, t;
	int fd, samples, thr, unthr;
	unsigned long long c1, c2;

	NEED_ONE_CPU_PMU();
	fd = open_sampling(EV_INSTR, 1000, 0, 2);
	ASSERT_LE(0, fd);
	pg = mmap(NULL, 33 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, pg);
	ASSERT_EQ(0, inject_raw("cpu=2 event=0xc0 count=1000 repeat=2000"));
	c1 = read_count(fd);
	count_records(pg, &samples, &thr, &unthr);
	TH_LOG("2000 periods injected: %d samples, count %llu", samples, c1);
	EXPECT_LE(1, thr);
	EXPECT_GT(2000, samples);
	EXPECT_LT(0, samples);
	/* Stopped from the throttling period on. */
	EXPECT_EQ(1000ULL * samples, c1);
	/* The tick restarts it: keep CPU 2 busy (not idle without a tick). */
	ASSERT_EQ(0, pin_to_cpu(2));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 200);
	ASSERT_EQ(0, inject_raw("cpu=2 event=0xc0 count=999"));
	c2 = read_count(fd);
	EXPECT_EQ(c1 + 999, c2);
	count_records(pg, &samples, &thr, &unthr);
	EXPECT_LE(1, unthr);
	munmap(pg, 33 * psz);
	close(fd);
}

/* The first event reserves the hardware, the last one's release frees it. */
TEST(hardware_reserved_at_first_event_released_at_last)
{
	long r0, r1, r2, r3;
	int wd = fakepmu_param("watchdog") == 1, a, b, c;

	NEED_ONE_CPU_PMU();
	r0 = dbg("reservations");
	ASSERT_LE(0, r0);
	a = open_counter(PERF_TYPE_RAW, EV_BRMISS, -1, 2, 0, 0);
	ASSERT_LE(0, a);
	r1 = dbg("reservations");
	b = open_counter(PERF_TYPE_RAW, EV_BRMISS, -1, 3, 0, 0);
	ASSERT_LE(0, b);
	r2 = dbg("reservations");
	close(a);
	close(b);
	c = open_counter(PERF_TYPE_RAW, EV_BRMISS, -1, 2, 0, 0);
	ASSERT_LE(0, c);
	r3 = dbg("reservations");
	close(c);
	/* With the watchdog the hardware stays reserved. */
	EXPECT_EQ(r0 + !wd, r1);
	EXPECT_EQ(r1, r2);
	EXPECT_EQ(r2 + !wd, r3);
}

struct reader {
	int fd;
	atomic_int stop;
	atomic_int started;
	pid_t tid;
	unsigned long long reads, final;
};

/* On CPU 1: read the counter in a tight loop (pmu::read under the NMIs). */
static void *read_loop(void *arg)
{
	struct reader *r = arg;
	__u64 v;

	if (pin_to_cpu(1))
		return NULL;
	r->tid = gettid();
	if (r->fd < 0)
		r->fd = open_counter(PERF_TYPE_RAW, EV_INSTR, 0, -1, 0, 0);
	atomic_store(&r->started, 1);
	while (!atomic_load(&r->stop)) {
		if (read(r->fd, &v, sizeof(v)) == sizeof(v))
			r->reads++;
	}
	r->final = read_count(r->fd);
	return NULL;
}

/*
 * async=1 injections land on CPU 1 while a thread there reads its counter in
 * a tight loop: the count is exactly the sum of what the injections applied.
 * A task counter (cpu_event 0) may be switched out when one lands: the
 * "applied" counter says whether it counted.  A pinned CPU counter
 * (cpu_event 1) always counts; with a sampling period (period) the NMI also
 * reprograms the counter under the reads (a period elapses every other
 * injection or so), which a read that is not NMI-safe turns into garbage.
 */
static void async_reads(struct __test_metadata *_metadata, int cpu_event, __u64 period)
{
	struct reader r = { .fd = -1 };
	struct timespec t0, t;
	unsigned long long sum = 0, n = 0, landed = 0;
	long kernel0 = dbg("nmi_in_kernel");
	pthread_t th;
	char cmd[96];

	ASSERT_LE(0, kernel0);
	if (cpu_event) {
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_RAW;
		attr.config = EV_INSTR;
		attr.pinned = 1;
		attr.sample_period = period;
		r.fd = open_attr(&attr, -1, 1);
		ASSERT_LE(0, r.fd);
	}
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, pthread_create(&th, NULL, read_loop, &r));
	while (!atomic_load(&r.started))
		usleep(1000);
	ASSERT_LE(0, r.fd);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		unsigned long long count = 1 + n % 997;
		long before = dbg("applied"), after;
		int err;

		snprintf(cmd, sizeof(cmd), "cpu=1 event=0xc0 count=%llu async=1", count);
		err = inject_raw(cmd);
		ASSERT_EQ(0, err);
		after = dbg("applied");
		ASSERT_GE(1, after - before);
		if (after - before == 1) {
			sum += count;
			landed++;
		}
		n++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (n < 20000 && (t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < 3000);
	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	TH_LOG("%llu injections, %llu counted, %llu reads, %ld NMIs in kernel code",
	       n, landed, r.reads, dbg("nmi_in_kernel") - kernel0);
	if (cpu_event)
		EXPECT_EQ(n, landed);
	EXPECT_LT(0ULL, landed);
	EXPECT_LT(0ULL, r.reads);
	EXPECT_LT(kernel0, dbg("nmi_in_kernel"));
	EXPECT_EQ(sum, r.final);
	close(r.fd);
}

TEST(async_nmis_during_tight_task_counter_reads_keep_the_count_exact)
{
	NEED_ONE_CPU_PMU();
	async_reads(_metadata, 0, 0);
}

TEST(async_nmis_during_tight_cpu_counter_reads_keep_the_count_exact)
{
	NEED_ONE_CPU_PMU();
	async_reads(_metadata, 1, 0);
}

TEST(async_nmis_during_tight_sampling_counter_reads_keep_the_count_exact)
{
	NEED_ONE_CPU_PMU();
	async_reads(_metadata, 1, 1000);
}

TEST_HARNESS_MAIN
