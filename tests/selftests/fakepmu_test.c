// SPDX-License-Identifier: GPL-2.0
/*
 * The test PMU against perf_event_open: exact injected counts, mode filters,
 * overflow signals with the injected ip, counter scheduling and input checks.
 */
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include "pmc_test_util.h"
#include "kselftest_harness.h"

#define EV_INSTR	0x00c0
#define EV_CYCLES	0x003c

#define NEED_FAKEPMU() do {						\
	if (!have_fakepmu())						\
		SKIP(return, "test PMU not loaded");			\
} while (0)

TEST(raw_counter_counts_exactly_what_was_injected)
{
	int fd;

	NEED_FAKEPMU();
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

	NEED_FAKEPMU();
	fd = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, 2, 0, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject(2, EV_INSTR, 1000000));
	ASSERT_EQ(0, inject(3, EV_INSTR, 5));
	EXPECT_EQ(1000000ULL, read_count(fd));
	close(fd);
}

TEST(user_and_kernel_filters)
{
	int fu, fk, fb;

	NEED_FAKEPMU();
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

	NEED_FAKEPMU();
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

	NEED_FAKEPMU();
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_CYCLES;
	attr.sample_period = 10;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.wakeup_events = 1;
	fd = sys_perf_event_open(&attr, -1, 3, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	pg = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, pg);
	ASSERT_EQ(0, inject_ip(3, EV_CYCLES, 10, 1, 0xffffffff81234567ULL));
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

	NEED_FAKEPMU();
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

TEST(fifth_event_is_multiplexed)
{
	struct { __u64 value, enabled, running; } v;
	struct perf_event_attr attr;
	struct timespec ts = { 0, 100 * 1000000 };
	int fd[5], i, partial = 0;

	NEED_FAKEPMU();
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_INSTR;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	for (i = 0; i < 5; i++) {
		fd[i] = sys_perf_event_open(&attr, -1, 3, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fd[i]);
	}
	nanosleep(&ts, NULL);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ((ssize_t)sizeof(v), read(fd[i], &v, sizeof(v)));
		EXPECT_LT(0ULL, v.enabled);
		if (v.running < v.enabled)
			partial++;
	}
	EXPECT_LE(1, partial);
	for (i = 0; i < 5; i++)
		close(fd[i]);
}

TEST(fifth_pinned_event_goes_to_error_state)
{
	struct perf_event_attr attr;
	int fd[5], i, readable = 0, eof = 0;
	__u64 v;

	NEED_FAKEPMU();
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_INSTR;
	attr.pinned = 1;
	for (i = 0; i < 5; i++) {
		fd[i] = sys_perf_event_open(&attr, -1, 3, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fd[i]);
	}
	for (i = 0; i < 5; i++) {
		ssize_t n = read(fd[i], &v, sizeof(v));

		if (n == sizeof(v))
			readable++;
		else if (n == 0)
			eof++;
	}
	EXPECT_EQ(4, readable);
	EXPECT_EQ(1, eof);
	for (i = 0; i < 5; i++)
		close(fd[i]);
}

TEST(counts_past_48_bits_are_exact)
{
	unsigned long long big = (1ULL << 48) + 5;
	int fd;

	NEED_FAKEPMU();
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

TEST(generic_events_map_to_architectural_codes)
{
	int fi, fc, fl1;

	NEED_FAKEPMU();
	fi = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 2, 0, 0);
	fc = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, -1, 2, 0, 0);
	fl1 = open_counter(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D |
			   (PERF_COUNT_HW_CACHE_OP_READ << 8) |
			   (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16), -1, 2, 0, 0);
	ASSERT_LE(0, fi);
	ASSERT_LE(0, fc);
	ASSERT_LE(0, fl1);
	ASSERT_EQ(0, inject(2, 0x00c0, 3));
	ASSERT_EQ(0, inject(2, 0x412e, 4));
	ASSERT_EQ(0, inject(2, 0x81d0, 5));
	EXPECT_EQ(3ULL, read_count(fi));
	EXPECT_EQ(4ULL, read_count(fc));
	EXPECT_EQ(5ULL, read_count(fl1));
	close(fi);
	close(fc);
	close(fl1);
}

TEST(unsupported_and_invalid_events)
{
	NEED_FAKEPMU();
	/* No code on this PMU: ENOENT, as on hardware. */
	EXPECT_EQ(-1, open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
				   -1, 0, 0, 0));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, open_counter(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D |
				   (PERF_COUNT_HW_CACHE_OP_PREFETCH << 8), -1, 0, 0, 0));
	EXPECT_EQ(ENOENT, errno);
	/* An operation that does not exist: EINVAL. */
	EXPECT_EQ(-1, open_counter(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1I |
				   (PERF_COUNT_HW_CACHE_OP_WRITE << 8), -1, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	/* Raw bits outside event/umask/edge/inv/cmask: EINVAL. */
	EXPECT_EQ(-1, open_counter(PERF_TYPE_RAW, 0x100c0, -1, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, open_counter(PERF_TYPE_RAW, 0x1000000c0ULL, -1, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	/* Edge, invert and counter mask are accepted. */
	{
		int fd = open_counter(PERF_TYPE_RAW, 0x018400c0, -1, 0, 0, 0);

		EXPECT_LE(0, fd);
		close(fd);
	}
}

TEST(bad_inject_input_is_refused_and_changes_nothing)
{
	static const char *const bad[] = {
		"", "\n", "cpu=2", "cpu=2 event=0xc0", "event=0xc0 count=1",
		"cpu=2 event=0xc0 count=1 cpu=2", "cpu=2 event=0xc0 count=x",
		"cpu=2 event=0x1c0c0 count=1", "cpu=2 event=0xc0 count=1 mode=hyper",
		"cpu=2 event=0xc0 count=1 ip=", "cpu=2 event=0xc0 count=1 bogus=1",
		"cpu=2 event=0xc0 count=18446744073709551616", "cpu=-1 event=0xc0 count=1",
		"cpu=99999 event=0xc0 count=1", "cpu=2 event=0xc0 count=1 junk",
		"cpu=2,event=0xc0,count=1",
	};
	unsigned int i;
	int fd;

	NEED_FAKEPMU();
	fd = open_counter(PERF_TYPE_RAW, EV_INSTR, -1, 2, 0, 0);
	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TH_LOG("input \"%s\"", bad[i]);
		EXPECT_EQ(-EINVAL, inject_raw(bad[i]));
	}
	EXPECT_EQ(0ULL, read_count(fd));
	/* Good input in odd spacing and hex still works. */
	EXPECT_EQ(0, inject_raw("  count=0x10\tevent=192   cpu=0x2  \n"));
	EXPECT_EQ(16ULL, read_count(fd));
	close(fd);
}

TEST_HARNESS_MAIN
