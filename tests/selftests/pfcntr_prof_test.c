// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pfcntr PC profiling (pfm(7) PFM_PROFILING): user and kernel ranges,
 * strides, read(2) of the buckets, EACH and ALL, PCNTCALLER, privilege and
 * every errno.  The test PMU's injections carry the sampled PC (ip=), its
 * mode (mode=) and, for PCNTCALLER, the return address on top of the
 * interrupted stack (caller=).
 *
 * The counters: EV6 counter 0 counts cycles (test PMU code 0x3c) and
 * interrupts every 2^20; an injection of k * 2^20 cycles is k samples.
 * Each test runs in a process of its own (kselftest harness).
 */
#include <sys/pfcntr.h>
#include "pmc_test_util.h"
#include <sys/wait.h>
/* Expected values are plain literals compared with __u64 fields. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define EV_CYC		0x3c
#define P6		(1ULL << 20)
#define UBASE		0x400000ULL
#define MAXB		4096
#define SAMPLE_RATE	"/proc/sys/kernel/perf_event_max_sample_rate"
#define CPU_TIME	"/proc/sys/kernel/perf_cpu_time_max_percent"

#define ERRNO_OF(expr) ({ errno = 0; long r_ = (expr); r_ == -1 ? errno : -1000 - (int)r_; })
#define EXPECT_ERR(e, expr) EXPECT_EQ(e, ERRNO_OF(expr)) TH_LOG("%s", #expr)

static long rsize(int fd)
{
	long v = -1;

	return ioctl(fd, PCNTGETRSIZE, &v) ? -1 : v;
}

static int urange(int fd, __u64 start, __u64 end, __u64 stride)
{
	addr_range_t r = { start, end, stride, 0 };

	return ioctl(fd, PCNTSETURANGE, &r);
}

static int krange(int fd, __u64 start, __u64 end, __u64 stride)
{
	addr_range_t r = { start, end, stride, 0 };

	return ioctl(fd, PCNTSETKRANGE, &r);
}

static int kaddr(int fd, __u64 start, __u64 end)
{
	struct addr_range r = { start, end };

	return ioctl(fd, PCNTSETKADDR, &r);
}

/* k samples at ip on cpu (user or kernel mode), caller on the stack if set. */
static int sample(int cpu, int kernel, __u64 ip, unsigned int k, __u64 caller)
{
	char cmd[192];

	snprintf(cmd, sizeof(cmd), "cpu=%d event=0x%x count=%llu mode=%s ip=0x%llx caller=0x%llx\n",
		 cpu, EV_CYC, (unsigned long long)k * P6, kernel ? "kernel" : "user",
		 (unsigned long long)ip, (unsigned long long)caller);
	return caller ? inject_raw(cmd) : inject_ip(cpu, EV_CYC, k * P6, kernel, ip);
}

/*
 * Open in mode (ONE: pinned to CPU 1 first), profiling on, EV6 counter 0
 * on cycles and counter 1 on branches, both modes, counting.
 */
static int prof_open(int mode)
{
	int fd;

	if (mode == PCNTOPENONE && pin_to_cpu(1))
		return -1;
	fd = open(PFCNTR_PATH, O_RDONLY | O_CLOEXEC | mode);
	if (fd < 0)
		return -1;
	if (pf_long(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_PROFILING) ||
	    pf_long(fd, PCNT6MUX, PF6_MUX0_CYCLES | PF6_MUX1_RET_COND_BRANCHES) ||
	    pf_req(fd, PCNTRENABLE)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The whole profile; returns the number of 32-bit buckets read. */
static long read_all(int fd, __u32 *b, size_t max)
{
	ssize_t n = pread(fd, b, max * sizeof(*b), 0);

	return n < 0 ? -1 : n / (long)sizeof(*b);
}

/* Address of a kernel text symbol from /proc/kallsyms (root), 0 if none. */
static __u64 ksym(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long a, found = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 &&
		    strchr("TtWw", type) && !strcmp(sym, name))
			found = a;
	fclose(f);
	return found;
}

static long read_long(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

static int write_long(const char *path, long v)
{
	char buf[32];
	int fd = open(path, O_WRONLY), n;

	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%ld\n", v);
	n = write(fd, buf, n) == n ? 0 : -1;
	close(fd);
	return n;
}

/*
 * perf stops an event whose interrupts come faster than its sample rate
 * allows until the next tick (throttling), and lowers that rate when its
 * interrupts take long, which they do under TCG: the bursts here are
 * small and the limits are lifted for the run.
 */
FIXTURE(prof) {
	long rate, pct;
};

FIXTURE_SETUP(prof)
{
	self->rate = read_long(SAMPLE_RATE);
	self->pct = read_long(CPU_TIME);
	write_long(SAMPLE_RATE, 100000);
	write_long(CPU_TIME, 0);
}

FIXTURE_TEARDOWN(prof)
{
	/* The rate cannot be written while the percentage is 0. */
	write_long(CPU_TIME, 25);
	if (self->rate > 0)
		write_long(SAMPLE_RATE, self->rate);
	if (self->pct >= 0)
		write_long(CPU_TIME, self->pct);
}

static unsigned int shift_of(__u64 stride)
{
	unsigned int s = 2;

	while (stride > 1) {
		stride >>= 1;
		s++;
	}
	return s;
}

/* ---- user ranges and strides ---------------------------------------------- */

TEST_F(prof, user_pcs_land_in_their_buckets_for_every_stride)
{
	static const struct { __u64 off; unsigned int k; } pcs[] = {
		{ 0x000, 2 }, { 0x013, 3 }, { 0x0ff, 1 }, { 0x100, 4 }, { 0xffc, 5 },
	};
	static const __u64 strides[] = { 1, 4, 8, 64, 0 };
	static __u32 b[MAXB], want[MAXB];
	unsigned int i, j;
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = prof_open(PCNTOPENONE);
	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(strides) / sizeof(strides[0]); i++) {
		__u64 st = strides[i];
		long nb = st ? 0x1000 / (4 * st) : 1;

		ASSERT_EQ(0, urange(fd, UBASE, UBASE + 0x1000, st)) TH_LOG("stride %llu", st);
		ASSERT_EQ(nb * 4, rsize(fd)) TH_LOG("stride %llu", st);
		memset(want, 0, sizeof(want));
		for (j = 0; j < sizeof(pcs) / sizeof(pcs[0]); j++) {
			ASSERT_EQ(0, sample(1, 0, UBASE + pcs[j].off, pcs[j].k, 0));
			want[st ? pcs[j].off >> shift_of(st) : 0] += pcs[j].k;
		}
		/* Outside [start, end), or in kernel mode: dropped. */
		ASSERT_EQ(0, sample(1, 0, UBASE + 0x1000, 3, 0));
		ASSERT_EQ(0, sample(1, 0, UBASE - 4, 3, 0));
		ASSERT_EQ(0, sample(1, 1, UBASE + 0x10, 3, 0));
		/* Another CPU: not this open's. */
		ASSERT_EQ(0, sample(2, 0, UBASE + 0x10, 3, 0));
		ASSERT_EQ(nb, read_all(fd, b, MAXB));
		for (j = 0; j < nb; j++)
			EXPECT_EQ(want[j], b[j]) TH_LOG("stride %llu bucket %u", st, j);
	}
	close(fd);
}

TEST_F(prof, default_stride_is_four_instructions_and_setuaddr_keeps_it)
{
	struct addr_range ar = { UBASE, UBASE + 0x100000 };
	static __u32 b[MAXB];
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = prof_open(PCNTOPENONE);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, rsize(fd));
	ASSERT_EQ(0, ioctl(fd, PCNTSETUADDR, &ar));
	EXPECT_EQ(0x100000 / 4, rsize(fd)) TH_LOG("a quarter of the range");
	ASSERT_EQ(0, urange(fd, UBASE, UBASE + 0x1000, 8));
	ar.end = UBASE + 0x2000;
	ASSERT_EQ(0, ioctl(fd, PCNTSETUADDR, &ar));
	EXPECT_EQ(0x2000 / 32 * 4, rsize(fd)) TH_LOG("SETUADDR kept stride 8");
	/* A new range starts from zero. */
	ASSERT_EQ(0, sample(1, 0, UBASE + 0x40, 2, 0));
	ASSERT_EQ(0x2000 / 32, read_all(fd, b, MAXB));
	EXPECT_EQ(2, b[2]);
	ASSERT_EQ(0, ioctl(fd, PCNTSETUADDR, &ar));
	ASSERT_EQ(0x2000 / 32, read_all(fd, b, MAXB));
	EXPECT_EQ(0, b[2]);
	close(fd);
}

/* ---- EACH and ALL ----------------------------------------------------------- */

TEST_F(prof, each_keeps_cpus_apart_and_all_sums_them)
{
	static __u32 b[MAXB];
	int n = count_possible_cpus(), fd, c;
	long nb = 0x100 / 16;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_GE(MAXB, nb * n);
	fd = prof_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, urange(fd, UBASE, UBASE + 0x100, 4));
	EXPECT_EQ(nb * 4 * n, rsize(fd));
	ASSERT_EQ(0, sample(1, 0, UBASE + 0x10, 3, 0));
	ASSERT_EQ(0, sample(2, 0, UBASE + 0x10, 5, 0));
	ASSERT_EQ(0, sample(2, 0, UBASE + 0xf0, 7, 0));
	ASSERT_EQ(nb * n, read_all(fd, b, MAXB));
	for (c = 0; c < n; c++) {
		EXPECT_EQ(c == 1 ? 3 : c == 2 ? 5 : 0, b[c * nb + 1]) TH_LOG("CPU %d", c);
		EXPECT_EQ(c == 2 ? 7 : 0, b[c * nb + 15]) TH_LOG("CPU %d", c);
	}
	close(fd);

	fd = prof_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, urange(fd, UBASE, UBASE + 0x100, 4));
	EXPECT_EQ(nb * 4, rsize(fd));
	ASSERT_EQ(0, sample(1, 0, UBASE + 0x10, 3, 0));
	ASSERT_EQ(0, sample(2, 0, UBASE + 0x10, 5, 0));
	ASSERT_EQ(0, sample(2, 0, UBASE + 0xf0, 7, 0));
	ASSERT_EQ(nb, read_all(fd, b, MAXB));
	EXPECT_EQ(8, b[1]);
	EXPECT_EQ(7, b[15]);
	EXPECT_EQ(0, b[0]);
	close(fd);
}

/* ---- read(2) ------------------------------------------------------------------ */

TEST_F(prof, read_at_offsets_and_with_short_buffers)
{
	static __u32 b[64];
	unsigned char bytes[256], *p = (unsigned char *)b;
	void *volatile bad = (void *)8;
	size_t got = 0;
	ssize_t n;
	int fd, i;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = prof_open(PCNTOPENONE);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, urange(fd, UBASE, UBASE + 0x100, 1));	/* 64 buckets */
	for (i = 0; i < 64; i += 9)
		ASSERT_EQ(0, sample(1, 0, UBASE + 4 * i, 1 + i % 5, 0));
	ASSERT_EQ(64, read_all(fd, b, 64));
	EXPECT_EQ(1, b[0]);
	EXPECT_EQ(5, b[9]);
	EXPECT_EQ(0, b[10]);

	/* read(2) in 3-byte pieces from the start: the same bytes. */
	ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	while ((n = read(fd, bytes + got, 3)) > 0)
		got += n;
	EXPECT_EQ(0, n);
	EXPECT_EQ(256, got);
	EXPECT_EQ(0, memcmp(bytes, p, 256));
	/* At an unaligned offset; past the end; SEEK_END is the size. */
	memset(bytes, 0xee, sizeof(bytes));
	EXPECT_EQ(5, pread(fd, bytes, 5, 37));
	EXPECT_EQ(0, memcmp(bytes, p + 37, 5));
	EXPECT_EQ(0xee, bytes[5]);
	EXPECT_EQ(2, pread(fd, bytes, 100, 254));
	EXPECT_EQ(0, pread(fd, bytes, 100, 256));
	EXPECT_EQ(256, lseek(fd, 0, SEEK_END));
	ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	EXPECT_ERR(EFAULT, read(fd, bad, 4));
	EXPECT_EQ(0, lseek(fd, 0, SEEK_CUR)) TH_LOG("a failed read moved the offset");
	/* Profiling off: nothing to read. */
	ASSERT_EQ(0, pf_long(fd, PCNTSETITEMS, PFM_COUNTERS));
	EXPECT_EQ(0, rsize(fd));
	EXPECT_EQ(0, pread(fd, bytes, 4, 0));
	ASSERT_EQ(0, pf_long(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_PROFILING));
	EXPECT_EQ(256, rsize(fd));
	EXPECT_EQ(4, pread(fd, bytes, 4, 0));
	close(fd);
}

/* ---- errors ------------------------------------------------------------------- */

TEST_F(prof, every_errno_and_a_failed_call_changes_nothing)
{
	struct addr_range ar = { UBASE, UBASE + 0x1000 };
	static __u32 b[MAXB];
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = prof_open(PCNTOPENONE);
	ASSERT_LE(0, fd);
	EXPECT_ERR(EINVAL, ioctl(fd, PCNTCALLER));		/* kernel profiling off */
	ASSERT_EQ(0, urange(fd, UBASE, UBASE + 0x1000, 4));
	ASSERT_EQ(0, sample(1, 0, UBASE, 3, 0));
	EXPECT_ERR(EINVAL, ioctl(fd, PCNTCALLER));		/* user profiling only */
	EXPECT_ERR(EINVAL, urange(fd, UBASE, UBASE + 0x1000, 3));
	EXPECT_ERR(EINVAL, urange(fd, UBASE, UBASE + 0x1000, 12));
	EXPECT_ERR(EINVAL, urange(fd, UBASE, UBASE, 4));
	EXPECT_ERR(EINVAL, urange(fd, UBASE + 4, UBASE, 4));
	EXPECT_ERR(ENOMEM, urange(fd, 0, 0x7ffffffff000ULL, 1));
	EXPECT_ERR(EINVAL, urange(fd, UBASE, UBASE + 0x1000, 1ULL << 61));
	EXPECT_EQ(0, urange(fd, UBASE, UBASE + 0x1000, 1ULL << 60) ? errno : 0);
	EXPECT_EQ(4, rsize(fd)) TH_LOG("stride 2^60: one bucket");
	ASSERT_EQ(0, urange(fd, UBASE, UBASE + 0x1000, 4));
	ASSERT_EQ(0, sample(1, 0, UBASE, 3, 0));
	{
		addr_range_t r = { UBASE, UBASE + 0x2000, 4, 1 };

		EXPECT_ERR(EINVAL, ioctl(fd, PCNTSETURANGE, &r));	/* res0 */
	}
	EXPECT_ERR(EFAULT, urange(fd, 0xffffffff81000000ULL, 0xffffffff81001000ULL, 4));
	EXPECT_ERR(EFAULT, krange(fd, UBASE, UBASE + 0x1000, 4));	/* not kernel text */
	EXPECT_ERR(EFAULT, ioctl(fd, PCNTSETUADDR, NULL));
	EXPECT_ERR(EFAULT, ioctl(fd, PCNTGETRSIZE, NULL));
	/* Still the first profile, with its sample. */
	EXPECT_EQ(0x1000 / 4, rsize(fd));
	ASSERT_EQ(0x1000 / 16, read_all(fd, b, MAXB));
	EXPECT_EQ(3, b[0]);
	/* Without PFM_PROFILING: EINVAL. */
	ASSERT_EQ(0, pf_long(fd, PCNTSETITEMS, PFM_COUNTERS));
	EXPECT_ERR(EINVAL, ioctl(fd, PCNTSETUADDR, &ar));
	EXPECT_ERR(EINVAL, urange(fd, UBASE, UBASE + 0x1000, 4));
	EXPECT_ERR(EINVAL, krange(fd, 0xffffffff81000000ULL, 0xffffffff81001000ULL, 4));
	close(fd);
}

/* ---- kernel ranges ------------------------------------------------------------- */

TEST_F(prof, kernel_pcs_land_in_their_buckets_user_pcs_do_not)
{
	static __u32 b[MAXB];
	__u64 k = ksym("vfs_read");
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_NE(0, k) TH_LOG("vfs_read not in /proc/kallsyms");
	fd = prof_open(PCNTOPENONE);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, krange(fd, k, k + 0x100, 2));		/* 8-byte buckets */
	EXPECT_EQ(0x100 / 8 * 4, rsize(fd));
	ASSERT_EQ(0, sample(1, 1, k + 0x11, 4, 0));
	ASSERT_EQ(0, sample(1, 1, k + 0xff, 1, 0));
	ASSERT_EQ(0, sample(1, 0, k + 0x11, 9, 0));		/* user mode */
	ASSERT_EQ(0, sample(1, 1, k + 0x100, 9, 0));		/* past the end */
	ASSERT_EQ(0x100 / 8, read_all(fd, b, MAXB));
	EXPECT_EQ(4, b[2]);
	EXPECT_EQ(1, b[31]);
	EXPECT_EQ(0, b[0]);
	close(fd);
}

TEST_F(prof, pcntcaller_credits_memcpy_to_its_caller)
{
	static __u32 b[MAXB];
	__u64 k, mc, extra, x[4];
	int fd, i;

	/* First: /proc/kallsyms is long to read under emulation (arm64 TCG). */
	NEED_FAKEPMU();
	NEED_CPUS(2);
	k = ksym("vfs_read");
	mc = ksym("memcpy");
	extra = ksym("vfs_write");
	x[0] = ksym("vfs_readv");
	x[1] = ksym("vfs_writev");
	x[2] = ksym("vfs_fsync");
	x[3] = ksym("vfs_open");
	ASSERT_NE(0, k);
	ASSERT_NE(0, mc);
	ASSERT_NE(0, extra);
	fd = prof_open(PCNTOPENONE);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, krange(fd, k, k + 0x100, 1));
	/* Without PCNTCALLER a sample in memcpy is memcpy's: outside, dropped. */
	ASSERT_EQ(0, sample(1, 1, mc, 2, k + 0x20));
	ASSERT_EQ(0x100 / 4, read_all(fd, b, MAXB));
	EXPECT_EQ(0, b[0x20 / 4]);
	ASSERT_EQ(0, ioctl(fd, PCNTCALLER));
	ASSERT_EQ(0, sample(1, 1, mc, 3, k + 0x20));
	/* One more routine of the caller's choice: vfs_write. */
	ASSERT_EQ(0, kaddr(fd, extra, extra + 0x40));
	ASSERT_EQ(0, sample(1, 1, extra + 4, 5, k + 0x44));
	/* Credited to the call instruction: the return address less 1. */
	ASSERT_EQ(0x100 / 4, read_all(fd, b, MAXB));
	EXPECT_EQ(3, b[0x1f / 4]) TH_LOG("memcpy's samples were not its caller's");
	EXPECT_EQ(5, b[0x43 / 4]) TH_LOG("the extra range's samples were not its caller's");
	EXPECT_EQ(0, b[0x20 / 4]);
	EXPECT_EQ(0, b[0x44 / 4]);
	/* Up to 4 extra ranges; an invalid one is EFAULT and does not count. */
	EXPECT_ERR(EFAULT, kaddr(fd, UBASE, UBASE + 0x40));
	EXPECT_ERR(EINVAL, kaddr(fd, k + 0x40, k + 0x40));
	for (i = 0; i < 3; i++) {
		ASSERT_NE(0, x[i]);
		EXPECT_EQ(0, kaddr(fd, x[i], x[i] + 0x10)) TH_LOG("range %d", i + 2);
	}
	EXPECT_ERR(ENOSPC, kaddr(fd, x[3] ? x[3] : k, (x[3] ? x[3] : k) + 0x10));
	/* The profile itself is unchanged by the caller ranges. */
	EXPECT_EQ(0x100, rsize(fd));
	ASSERT_EQ(0x100 / 4, read_all(fd, b, MAXB));
	EXPECT_EQ(3, b[0x1f / 4]);
	EXPECT_EQ(5, b[0x43 / 4]);
	close(fd);
}

/* ---- privilege ------------------------------------------------------------------- */

/*
 * In a child as uid nobody in the device's group: SETKRANGE is EPERM and
 * changes nothing; a user range works.  0, or the step that failed.
 */
static int unprivileged_kernel_range(__u64 k)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		long n;
		int fd;

		if (setgroups(1, &(gid_t){ PMC_TEST_GID }) ||
		    setgid(TOOL_NOBODY) || setuid(TOOL_NOBODY))
			_exit(100);
		/* Its own process only (LOGSELECT): whole CPUs are not its to count. */
		if (pin_to_cpu(1))
			_exit(101);
		fd = open(PFCNTR_PATH, O_RDONLY | O_CLOEXEC | PCNTOPENONE);
		if (fd < 0)
			_exit(106);
		if (pf_long(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_PROFILING))
			_exit(107);
		/* EV5: this process, user mode (EV6 counts the kernel too). */
		if (pf_long(fd, PCNT5CTXTS, PF5_CTXT_THIS_PROC | PF5_CTXT_USER) ||
		    pf_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
			    PF5_MUX2_C_CYCLES))
			_exit(108);
		/* A user range is fine. */
		if (urange(fd, UBASE, UBASE + 0x100, 4) || rsize(fd) != 0x100 / 4)
			_exit(105);
		if (!krange(fd, k, k + 0x100, 4))
			_exit(102);
		if (errno != EPERM)
			_exit(103);
		/* The user profile is still there, unchanged. */
		n = rsize(fd);
		if (n != 0x100 / 4)
			_exit(104);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

TEST_F(prof, unprivileged_callers_cannot_profile_the_kernel)
{
	__u64 k = ksym("vfs_read");
	long saved;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_NE(0, k);
	ASSERT_EQ(0, node_to_test_group(PFCNTR_PATH, 0660, &saved));
	EXPECT_EQ(0, unprivileged_kernel_range(k)) TH_LOG("uid nobody: see the exit codes");
	EXPECT_EQ(0, node_restore(PFCNTR_PATH, saved));
}

/*
 * A kernel profile set up by root, in a descriptor a child inherits and
 * then drops privilege: the child cannot turn profiling back on.  (The
 * child counts its parent's marked tree in user mode with the IPL items,
 * which needs no privilege of its own beyond reading the parent: here the
 * parent is root, so only requests that build nothing are tried.)
 */
TEST_F(prof, a_kernel_profile_handed_to_a_user_cannot_be_turned_back_on)
{
	__u64 k = ksym("vfs_read");
	int fd, st;
	pid_t pid;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_NE(0, k);
	ASSERT_EQ(0, pin_to_cpu(1));
	fd = open(PFCNTR_PATH, O_RDONLY | O_CLOEXEC | PCNTOPENONE);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pf_long(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_IPL | PFM_PROFILING));
	ASSERT_EQ(0, pf_long(fd, PCNT5CTXTS, PF5_CTXT_THIS_PROC | PF5_CTXT_USER));
	ASSERT_EQ(0, pf_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
			     PF5_MUX2_C_CYCLES));
	ASSERT_EQ(0, krange(fd, k, k + 0x100, 4));
	ASSERT_EQ(0x100 / 4, rsize(fd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgroups(0, NULL) || setgid(TOOL_NOBODY) || setuid(TOOL_NOBODY))
			_exit(100);
		/* Off needs nothing; on again needs the privilege. */
		if (pf_long(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_IPL))
			_exit(101);
		if (rsize(fd) != 0)
			_exit(102);
		if (pf_long(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_IPL | PFM_PROFILING) != -EPERM)
			_exit(103);
		if (rsize(fd) != 0)
			_exit(104);
		/* Nor set up another kernel range. */
		if (ioctl(fd, PCNTSETKRANGE, &(addr_range_t){ k, k + 0x40, 4, 0 }) != -1)
			_exit(105);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("the child failed at step %d", WEXITSTATUS(st));
	/* Root may. */
	EXPECT_EQ(0, pf_long(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_IPL | PFM_PROFILING));
	EXPECT_EQ(0x100 / 4, rsize(fd));
	close(fd);
}

/*
 * The marked process itself: set up by root with a kernel profile,
 * unmarked, then it gives up root: marking itself again would start
 * kernel profiling without the privilege.
 */
TEST_F(prof, a_marked_process_that_drops_privilege_cannot_mark_itself_again)
{
	__u64 k = ksym("vfs_read");
	int st;
	pid_t pid;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_NE(0, k);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd;

		if (pin_to_cpu(1))
			_exit(100);
		fd = open(PFCNTR_PATH, O_RDONLY | O_CLOEXEC | PCNTOPENONE);
		if (fd < 0 || pf_long(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_PROFILING) ||
		    pf_long(fd, PCNT5CTXTS, PF5_CTXT_THIS_PROC | PF5_CTXT_USER) ||
		    pf_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
			    PF5_MUX2_C_CYCLES) ||
		    krange(fd, k, k + 0x100, 4))
			_exit(101);
		if (pf_req(fd, PCNTCLEARPCBPME) || pf_req(fd, PCNTLOGSELECT))
			_exit(102);		/* root may */
		if (pf_req(fd, PCNTCLEARPCBPME))
			_exit(103);
		if (setgroups(0, NULL) || setgid(TOOL_NOBODY) || setuid(TOOL_NOBODY))
			_exit(104);
		if (pf_req(fd, PCNTLOGSELECT) != -EPERM)
			_exit(105);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("the child failed at step %d", WEXITSTATUS(st));
}

/*
 * The profile budget is each user's: one user at its budget takes nothing
 * from another (root here), and gets back what it frees.  It used to be one
 * budget for every open of every user, first come first served.
 */
#define BUDGET_PARAM	"/sys/module/pmcompat/parameters/pfcntr_profile_bytes_per_user"
#define BUDGET		(64L << 10)
/* A stride-4 range: one 4-byte bucket per 16 bytes of text. */
#define BUDGET_TEXT	((__u64)BUDGET / 4 * 16)

static int budget_open(int cpu)
{
	int fd;

	if (pin_to_cpu(cpu))
		return -1;
	fd = open(PFCNTR_PATH, O_RDONLY | O_CLOEXEC | PCNTOPENONE);
	if (fd >= 0 && pf_long(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_PROFILING)) {
		close(fd);
		return -1;
	}
	return fd;
}

TEST_F(prof, profile_budget_is_each_users_own)
{
	int ready[2], go[2], *r = shared_zone(4 * sizeof(int)), fd, st;
	long saved_node = -1, saved_budget;
	char c;
	pid_t pid;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_NE(NULL, r);
	saved_budget = read_long(BUDGET_PARAM);
	ASSERT_LT(0, saved_budget) TH_LOG("no per-user profile budget (%s)", BUDGET_PARAM);
	ASSERT_EQ(0, write_long(BUDGET_PARAM, BUDGET));
	ASSERT_EQ(0, node_to_test_group(PFCNTR_PATH, 0660, &saved_node));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd1, fd2;

		if (setgroups(1, &(gid_t){ PMC_TEST_GID }) ||
		    setgid(TOOL_NOBODY) || setuid(TOOL_NOBODY))
			_exit(100);
		fd1 = budget_open(2);
		fd2 = budget_open(2);
		if (fd1 < 0 || fd2 < 0)
			_exit(101);
		/* The whole budget, then one bucket more on another open. */
		r[0] = urange(fd1, UBASE, UBASE + BUDGET_TEXT, 4) ? errno : 0;
		r[1] = urange(fd2, UBASE, UBASE + 16, 4) ? errno : 0;
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(102);
		/* What it frees, it has again. */
		close(fd1);
		r[2] = urange(fd2, UBASE, UBASE + BUDGET_TEXT, 4) ? errno : 0;
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(0, r[0]) TH_LOG("the user's whole budget: %s", strerror(r[0]));
	EXPECT_EQ(ENOMEM, r[1]) TH_LOG("past the user's budget");
	/* Root's budget is its own. */
	fd = budget_open(1);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, urange(fd, UBASE, UBASE + BUDGET_TEXT, 4))
		TH_LOG("DRIVER BUG: another user's profile took root's budget: %s", strerror(errno));
	close(fd);
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("child status %#x", st);
	EXPECT_EQ(0, r[2]) TH_LOG("after freeing: %s", strerror(r[2]));
	EXPECT_EQ(0, write_long(BUDGET_PARAM, saved_budget));
	EXPECT_EQ(0, node_restore(PFCNTR_PATH, saved_node));
	munmap(r, 4 * sizeof(int));
}

/* ---- throttling (pfm(7) CAVEATS) --------------------------------------------- */

/* Busy on the current CPU for ms milliseconds: its tick keeps running. */
static void spin_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/*
 * A profiling counter samples, and perf throttles it: past
 * max_samples_per_tick interrupts within one tick (DIV_ROUND_UP of
 * perf_event_max_sample_rate by HZ; the rate 1 makes it 1 whatever HZ is)
 * the event stops until the next tick, and the events counted meanwhile
 * are lost to GETCNT, READCNTRS and the profile alike.  2000 periods are
 * injected within one tick (repeat=, interrupts off); after a tick the
 * counter counts exactly again.  The fixture restores the rate.
 */
TEST_F(prof, throttling_loses_counts_until_the_next_tick)
{
	struct pfcntrs_ev6 t, *tp = &t;
	static __u32 b[MAXB];
	__u64 ticks, full, samples;
	char cmd[160];
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	/* The rate can be written only while the percentage is not 0. */
	ASSERT_EQ(0, write_long(CPU_TIME, 25));
	ASSERT_EQ(0, write_long(SAMPLE_RATE, 1));
	ASSERT_EQ(0, write_long(CPU_TIME, 0));
	ASSERT_EQ(1, read_long(SAMPLE_RATE));
	fd = prof_open(PCNTOPENONE);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, urange(fd, UBASE, UBASE + 0x1000, 0));
	/* Start on a fresh tick, far from the next one. */
	spin_ms(20);
	snprintf(cmd, sizeof(cmd), "cpu=1 event=0x%x count=%llu mode=user ip=0x%llx repeat=2000",
		 EV_CYC, P6, UBASE + 0x10);
	ASSERT_EQ(0, inject_raw(cmd));
	ASSERT_EQ(0, ioctl(fd, PCNT6GETCNT, &tp));
	ticks = t.pf_cntr0;
	ASSERT_EQ(0, ioctl(fd, PCNT6READCNTRS, &tp));
	full = t.pf_cntr0;
	ASSERT_EQ(1, read_all(fd, b, MAXB));
	samples = b[0];
	TH_LOG("2000 periods injected: GETCNT %llu, READCNTRS %llu periods + %llu, profile %llu",
	       ticks, full / P6, full % P6, samples);
	/*
	 * The first interrupt of the tick is a sample, the second throttles:
	 * perf stops the event there, and the 1999 periods from the second on
	 * are lost (measured on 6.1, 6.12, 6.12-rt and 7.2: one period counted).
	 */
	EXPECT_EQ(1, ticks);
	EXPECT_EQ(ticks * P6, full);
	EXPECT_EQ(ticks, samples);
	/* The tick restarts the event: a further period counts exactly. */
	spin_ms(200);
	ASSERT_EQ(0, sample(1, 0, UBASE + 0x10, 1, 0));
	ASSERT_EQ(0, ioctl(fd, PCNT6GETCNT, &tp));
	EXPECT_EQ(ticks + 1, t.pf_cntr0);
	ASSERT_EQ(0, ioctl(fd, PCNT6READCNTRS, &tp));
	EXPECT_EQ(full + P6, t.pf_cntr0);
	ASSERT_EQ(1, read_all(fd, b, MAXB));
	EXPECT_EQ(samples + 1, b[0]);
	close(fd);
}

TEST_HARNESS_MAIN
