// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pfcntr (Tru64 UNIX pfm(7)): open modes, counting in the EV4, EV5 and
 * EV6 families, the raw-counter requests, IPL histograms, errors, 32-bit
 * callers and the EV67 aggregate pairs.  Exact values come from the test
 * PMU's injections; the specification is the design card (pfm(7) on
 * pmcompat).  LOGSELECT, process marks, unprivileged callers, hotplug and
 * coexistence with the other devices are in pfcntr_proc_test.c.
 *
 * Test PMU codes: cycles 0x3c, instructions 0xc0, branches 0xc4,
 * branch-misses 0xc5, LLC misses 0x412e.  Every test runs in a process of
 * its own (kselftest harness), so its affinity never leaks; the EV67
 * parameter is restored by a fixture's teardown.
 */
#include "pmc_test_util.h"
#include <setjmp.h>
#include <stddef.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
/* No TSC: cpu_has_tsc() is 0 and the tests that read it skip. */
static inline __u64 __rdtsc(void) { return 0; }
#endif
#include <sys/pfcntr.h>
/* Expected values are plain literals compared with __u64 fields. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define DEV		"/dev/pfcntr"
#define EV_CYC		0x3c
#define EV_INS		0xc0
#define EV_BR		0xc4
#define EV_BRM		0xc5
#define EV_LLCM		0x412e

#define P6		(1ULL << 20)	/* EV6 period */
#define P5_0		65536ULL	/* EV5 defaults */
#define P5_1		65536ULL
#define P5_2		16384ULL
#define MAXCPU		64
#define EV67_PARAM	"/sys/module/pmcompat/parameters/pfcntr_ev67"

static int pf_open(int mode)
{
	return open(DEV, O_RDONLY | mode);
}

static int ncpus(void)
{
	return sysconf(_SC_NPROCESSORS_CONF);
}

static int unpin(void)
{
	cpu_set_t set;
	int c;

	CPU_ZERO(&set);
	for (c = 0; c < ncpus(); c++)
		CPU_SET(c, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Open in mode ONE on cpu (pinning the caller there first). */
static int pf_open_one(int cpu)
{
	if (pin_to_cpu(cpu))
		return -1;
	return pf_open(PCNTOPENONE);
}

/* -1 with errno e: the errno seen, or -1000 - ret when the call did not fail. */
#define ERRNO_OF(expr) ({ errno = 0; long r_ = (expr); r_ == -1 ? errno : -1000 - (int)r_; })
#define EXPECT_ERR(e, expr) EXPECT_EQ(e, ERRNO_OF(expr)) TH_LOG("%s", #expr)
#define ASSERT_ERR(e, expr) ASSERT_EQ(e, ERRNO_OF(expr)) TH_LOG("%s", #expr)

static __u64 img6(unsigned int sel, unsigned int cpu, unsigned int c0, unsigned int c1)
{
	union pmctrs_ev6 u;

	u.pmctrs_ev6_long = 0;
	u.pmctrs_ev6_select = sel;
	u.pmctrs_ev6_cpu = cpu;
	u.pmctrs_ev6_cntr0 = c0;
	u.pmctrs_ev6_cntr1 = c1;
	return u.pmctrs_ev6_long;
}

static __u64 img5(unsigned int sel, unsigned int cpu, unsigned int c0, unsigned int c1,
		  unsigned int c2)
{
	union pmctrs_ev5 u;

	u.pmctrs_ev5_long = 0;
	u.pmctrs_ev5_select = sel;
	u.pmctrs_ev5_cpu = cpu;
	u.pmctrs_ev5_cntr0 = c0;
	u.pmctrs_ev5_cntr1 = c1;
	u.pmctrs_ev5_cntr2 = c2;
	return u.pmctrs_ev5_long;
}

/* An image request (PCNT5x / PCNT6x taking &pmctrs_evN_long). */
static int req_img(int fd, unsigned long req, __u64 image)
{
	__u64 v = image;

	return ioctl(fd, req, &v);
}

static int req_long(int fd, unsigned long req, long v)
{
	return ioctl(fd, req, &v);
}

static int set_items(int fd, long items)
{
	return req_long(fd, PCNTSETITEMS, items);
}

/* PCNT6GETCNTRS of cpu: raw residuals. */
static int raw6(int fd, unsigned int cpu, unsigned int *c0, unsigned int *c1)
{
	union pmctrs_ev6 u;

	u.pmctrs_ev6_long = img6(3, cpu, 0, 0);
	if (ioctl(fd, PCNT6GETCNTRS, &u.pmctrs_ev6_long))
		return -1;
	*c0 = u.pmctrs_ev6_cntr0;
	*c1 = u.pmctrs_ev6_cntr1;
	return 0;
}

static int raw5(int fd, unsigned int cpu, unsigned int *c)
{
	union pmctrs_ev5 u;

	u.pmctrs_ev5_long = img5(7, cpu, 0, 0, 0);
	if (ioctl(fd, PCNT5GETCNTRS, &u.pmctrs_ev5_long))
		return -1;
	c[0] = u.pmctrs_ev5_cntr0;
	c[1] = u.pmctrs_ev5_cntr1;
	c[2] = u.pmctrs_ev5_cntr2;
	return 0;
}

static int get6(int fd, unsigned long req, struct pfcntrs_ev6 *a)
{
	return ioctl(fd, req, &a);
}

static int get5(int fd, unsigned long req, struct pfcntrs_ev5 *a)
{
	return ioctl(fd, req, &a);
}

static int get4(int fd, struct pfcntrs *a)
{
	return ioctl(fd, PCNTGETCNT, &a);
}

static int getipl(int fd, struct pfipls *a)
{
	return ioctl(fd, PCNTGETIPLHIS, &a);
}

/* EV6: mux, then RESTART both counters on every CPU (counting starts). */
static int ev6_start(int fd, long mux)
{
	if (req_long(fd, PCNT6MUX, mux))
		return -1;
	return req_img(fd, PCNT6RESTART, img6(3, PMCTRS_ALL_CPUS, 0, 0));
}

static int ev5_start(int fd, long mux)
{
	if (req_long(fd, PCNT5MUX, mux))
		return -1;
	return req_img(fd, PCNT5RESTART, img5(7, PMCTRS_ALL_CPUS, 0, 0, 0));
}

static __u64 iccsr_val(unsigned int mux0, unsigned int mux1, unsigned int pc0,
		       unsigned int pc1, unsigned int disable)
{
	union { struct iccsr i; __u64 v; } u = { .v = 0 };

	u.i.iccsr_mux0 = mux0;
	u.i.iccsr_mux1 = mux1;
	u.i.iccsr_pc0 = pc0;
	u.i.iccsr_pc1 = pc1;
	u.i.iccsr_disable = disable;
	return u.v;
}

static int ev4_mux(int fd, __u64 iccsr)
{
	struct iccsr i;

	memcpy(&i, &iccsr, sizeof(i));
	return ioctl(fd, PCNTSETMUX, &i);
}

static const char *mode_name(int mode)
{
	return mode == PCNTOPENALL ? "ALL" : mode == PCNTOPENEACH ? "EACH" : "ONE";
}

/* ====================================================================== */
/* 1. Open modes                                                           */
/* ====================================================================== */

/* An array of bytes ending at a PROT_NONE page, filled with 0xa5. */
static void *page_end_array(size_t bytes, void **map)
{
	char *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + 4096, 4096, PROT_NONE))
		return NULL;
	*map = p;
	memset(p, 0xa5, 4096);
	return p + 4096 - bytes;
}

TEST(open_all_exactly_as_tru64)
{
	struct pfcntrs_ev6 *one;
	void *map;
	int fd, fd2;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = open("/dev/pfcntr", O_RDONLY | PCNTOPENALL);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	/* ALL writes one summed entry: an array of one entry suffices. */
	one = page_end_array(sizeof(*one), &map);
	ASSERT_NE(NULL, one);
	EXPECT_EQ(0, get6(fd, PCNT6READCNTRS, one)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, one->pf_cntr0);
	EXPECT_EQ(0, one->pf_cntr1);
	/* Every CPU is taken. */
	fd2 = pf_open_one(1);
	EXPECT_EQ(-1, fd2);
	EXPECT_EQ(EBUSY, errno);
	if (fd2 >= 0)
		close(fd2);
	munmap(map, 8192);
	close(fd);
}

TEST(open_each_takes_every_cpu)
{
	int n = ncpus(), fd;
	struct pfcntrs_ev6 *arr;
	void *map;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	arr = page_end_array(n * sizeof(*arr), &map);
	ASSERT_NE(NULL, arr);
	EXPECT_EQ(0, get6(fd, PCNT6READCNTRS, arr)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, arr[n - 1].pf_cntr0);
	EXPECT_ERR(EBUSY, pf_open_one(n - 1));
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENALL));
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENEACH));
	munmap(map, 8192);
	close(fd);
}

TEST(open_one_pinned_and_unpinned)
{
	struct pfcntrs_ev6 *one;
	void *map;
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_EQ(0, unpin());
	EXPECT_ERR(EINVAL, pf_open(PCNTOPENONE));
	ASSERT_EQ(0, pin_to_cpu(1));
	fd = pf_open(PCNTOPENONE);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	/* One entry for the one CPU. */
	one = page_end_array(sizeof(*one), &map);
	ASSERT_NE(NULL, one);
	EXPECT_EQ(0, get6(fd, PCNT6GETCNT, one)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, one->pf_cntr0);
	munmap(map, 8192);
	close(fd);
}

TEST(open_no_mode_bits_is_one)
{
	int fd, fd2;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_EQ(0, unpin());
	EXPECT_ERR(EINVAL, pf_open(0));
	ASSERT_EQ(0, pin_to_cpu(1));
	fd = pf_open(0);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	/* It took CPU 1 only: CPU 1 again is busy, CPU 2 is free. */
	EXPECT_ERR(EBUSY, pf_open(0));
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENONE));
	fd2 = pf_open_one(2);
	EXPECT_LE(0, fd2) TH_LOG("%s", strerror(errno));
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENALL));
	if (fd2 >= 0)
		close(fd2);
	close(fd);
}

TEST(open_all_excludes_all_each_one)
{
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENALL));
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENEACH));
	EXPECT_ERR(EBUSY, pf_open_one(0));
	close(fd);
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, unpin());
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENALL));
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENEACH));
	close(fd);
}

TEST(open_one_per_cpu)
{
	int fd1, fd2;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	fd1 = pf_open_one(1);
	ASSERT_LE(0, fd1) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, unpin());
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENALL));
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENEACH));
	EXPECT_ERR(EBUSY, pf_open_one(1));
	fd2 = pf_open_one(2);
	ASSERT_LE(0, fd2) TH_LOG("%s", strerror(errno));
	close(fd1);
	/* CPU 2 is still taken. */
	ASSERT_EQ(0, unpin());
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENALL));
	fd1 = pf_open_one(1);
	EXPECT_LE(0, fd1) TH_LOG("CPU 1 released by close: %s", strerror(errno));
	if (fd1 >= 0)
		close(fd1);
	close(fd2);
	ASSERT_EQ(0, unpin());
	fd1 = pf_open(PCNTOPENALL);
	EXPECT_LE(0, fd1) TH_LOG("%s", strerror(errno));
	if (fd1 >= 0)
		close(fd1);
}

TEST(close_releases)
{
	int i, fd;

	NEED_FAKEPMU();
	for (i = 0; i < 3; i++) {
		fd = pf_open(i == 1 ? PCNTOPENEACH : PCNTOPENALL);
		ASSERT_LE(0, fd) TH_LOG("round %d: %s", i, strerror(errno));
		ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS));
		close(fd);
	}
}

TEST(exit_releases)
{
	int go[2], done[2], fd, status;
	char c;
	pid_t pid;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int f = pf_open(PCNTOPENALL);

		c = f >= 0 ? 'y' : 'n';
		if (f >= 0)
			ev6_start(f, PF6_MUX0_CYCLES);
		if (write(done[1], &c, 1) != 1)
			_exit(2);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(0);	/* without closing */
	}
	ASSERT_EQ(1, read(done[0], &c, 1));
	ASSERT_EQ('y', c);
	EXPECT_ERR(EBUSY, pf_open(PCNTOPENALL));
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	fd = pf_open(PCNTOPENALL);
	EXPECT_LE(0, fd) TH_LOG("after the child's exit: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* ====================================================================== */
/* 2. Counting (LOGALL)                                                    */
/* ====================================================================== */

#define ONE_CPU	2

static int opened(int mode, int c)
{
	return mode != PCNTOPENONE || c == ONE_CPU;
}

/* The entry that counts of cpu c go to (ALL and ONE: entry 0). */
static int entry_of(int mode, int c)
{
	return mode == PCNTOPENEACH ? c : 0;
}

static int nentries(int mode)
{
	return mode == PCNTOPENEACH ? ncpus() : 1;
}

static int open_mode(int mode)
{
	if (mode == PCNTOPENONE)
		return pf_open_one(ONE_CPU);
	return pf_open(mode);
}

/* EV6 amounts injected on cpu c. */
static __u64 ev6_a0(int c) { return (c + 1) * P6 + 100 * c + 1; }
static __u64 ev6_a1(int c) { return c * P6 + 7 * c + 3; }

static void ev6_counting(struct __test_metadata *_metadata, int mode)
{
	struct pfcntrs_ev6 t[MAXCPU], f[MAXCPU];
	__u64 et0[MAXCPU] = {}, et1[MAXCPU] = {}, ef0[MAXCPU] = {}, ef1[MAXCPU] = {};
	int n = ncpus(), fd, c, e;
	unsigned int r0, r1;
	__u64 cyc;

	ASSERT_GE(MAXCPU, n);
	fd = open_mode(mode);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", mode_name(mode), strerror(errno));
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_RET_COND_BRANCHES))
		TH_LOG("%s", strerror(errno));
	for (c = 0; c < n; c++) {
		ASSERT_EQ(0, inject(c, EV_INS, ev6_a0(c)));
		ASSERT_EQ(0, inject(c, EV_BR, ev6_a1(c)));
		if (!opened(mode, c))
			continue;
		e = entry_of(mode, c);
		et0[e] += ev6_a0(c) / P6;
		et1[e] += ev6_a1(c) / P6;
		ef0[e] += ev6_a0(c);
		ef1[e] += ev6_a1(c);
	}
	memset(t, 0x5a, sizeof(t));
	memset(f, 0x5a, sizeof(f));
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	for (e = 0; e < nentries(mode); e++) {
		EXPECT_EQ(et0[e], t[e].pf_cntr0) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_EQ(et1[e], t[e].pf_cntr1) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_EQ(ef0[e], f[e].pf_cntr0) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_EQ(ef1[e], f[e].pf_cntr1) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_EQ((t[e].pf_cntr0 << PF6_C0_WIDTH) + ef0[e] % P6, f[e].pf_cntr0);
		EXPECT_NE(0, t[e].pr_cycle);
	}
	/* Nothing past the entries written. */
	EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, t[nentries(mode)].pr_cycle);
	/* The raw residual of CPU 2 (the ONE CPU). */
	ASSERT_EQ(0, raw6(fd, ONE_CPU, &r0, &r1)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(ev6_a0(ONE_CPU) % P6, r0);
	EXPECT_EQ(ev6_a1(ONE_CPU) % P6, r1);
	/* pr_cycle grows. */
	cyc = t[0].pr_cycle;
	usleep(2000);
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_LT(cyc, t[0].pr_cycle);
	EXPECT_EQ(et0[0], t[0].pf_cntr0);
	close(fd);
}

TEST(ev6_counting_all)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	ev6_counting(_metadata, PCNTOPENALL);
}

TEST(ev6_counting_each)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	ev6_counting(_metadata, PCNTOPENEACH);
}

TEST(ev6_counting_one)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	ev6_counting(_metadata, PCNTOPENONE);
}

/* ALL: pr_cycle is the TSC since open, not a sum over the CPUs. */
TEST(all_pr_cycle_not_summed)
{
	struct pfcntrs_ev6 t[MAXCPU];
	__u64 t0, t1;
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	if (cpu_has_tsc() != 1)
		SKIP(return, "no TSC");
	ASSERT_EQ(0, pin_to_cpu(0));
	t0 = __rdtsc();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	usleep(20000);
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	t1 = __rdtsc();
	EXPECT_LT(0, t[0].pr_cycle);
	EXPECT_GE(t1 - t0, t[0].pr_cycle);
	close(fd);
}

/* EV5 (default frequencies 65536/65536/16384). */
static __u64 ev5_a0(int c) { return (c + 1) * P5_0 + c + 1; }
static __u64 ev5_a1(int c) { return c * P5_1 + 11; }
static __u64 ev5_a2(int c) { return (c + 2) * P5_2 + 16383 - c; }

static void ev5_counting(struct __test_metadata *_metadata, int mode)
{
	struct pfcntrs_ev5 t[MAXCPU], f[MAXCPU];
	__u64 et[3][MAXCPU] = {}, ef[3][MAXCPU] = {};
	int n = ncpus(), fd, c, e;
	unsigned int r[3];

	ASSERT_GE(MAXCPU, n);
	fd = open_mode(mode);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", mode_name(mode), strerror(errno));
	ASSERT_EQ(0, ev5_start(fd, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
			       PF5_MUX2_C_BRANCH_MISPREDICTS)) TH_LOG("%s", strerror(errno));
	for (c = 0; c < n; c++) {
		ASSERT_EQ(0, inject(c, EV_INS, ev5_a0(c)));
		ASSERT_EQ(0, inject(c, EV_BR, ev5_a1(c)));
		ASSERT_EQ(0, inject(c, EV_BRM, ev5_a2(c)));
		if (!opened(mode, c))
			continue;
		e = entry_of(mode, c);
		et[0][e] += ev5_a0(c) / P5_0;
		et[1][e] += ev5_a1(c) / P5_1;
		et[2][e] += ev5_a2(c) / P5_2;
		ef[0][e] += ev5_a0(c);
		ef[1][e] += ev5_a1(c);
		ef[2][e] += ev5_a2(c);
	}
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, t));
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
	for (e = 0; e < nentries(mode); e++) {
		EXPECT_EQ(et[0][e], t[e].pf_cntr0) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_EQ(et[1][e], t[e].pf_cntr1) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_EQ(et[2][e], t[e].pf_cntr2) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_EQ(ef[0][e], f[e].pf_cntr0) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_EQ(ef[1][e], f[e].pf_cntr1) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_EQ(ef[2][e], f[e].pf_cntr2) TH_LOG("%s entry %d", mode_name(mode), e);
		/* (ticks << width) + raw with the default frequencies */
		if (mode != PCNTOPENALL)
			EXPECT_EQ((t[e].pf_cntr2 << PF5_C2_WIDTH) + (ef[2][e] % P5_2),
				  f[e].pf_cntr2);
		EXPECT_NE(0, t[e].pr_cycle);
		EXPECT_NE(0, f[e].pr_cycle);
	}
	ASSERT_EQ(0, raw5(fd, ONE_CPU, r)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(ev5_a0(ONE_CPU) % P5_0, r[0]);
	EXPECT_EQ(ev5_a1(ONE_CPU) % P5_1, r[1]);
	EXPECT_EQ(ev5_a2(ONE_CPU) % P5_2, r[2]);
	close(fd);
}

TEST(ev5_counting_all)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	ev5_counting(_metadata, PCNTOPENALL);
}

TEST(ev5_counting_each)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	ev5_counting(_metadata, PCNTOPENEACH);
}

TEST(ev5_counting_one)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	ev5_counting(_metadata, PCNTOPENONE);
}

/* PCNT5FREQ: 256 against 65536 (counters 0 and 1), 256 against 16384 (counter 2). */
TEST(ev5_frequencies)
{
	struct pfcntrs_ev5 t[MAXCPU], f[MAXCPU];
	unsigned int r[3];
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
			      PF5_MUX2_C_BRANCH_MISPREDICTS));
	ASSERT_EQ(0, req_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_256 | PF5_C1_INT_EVERY_65536 |
			      PF5_C2_INT_EVERY_256)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, req_img(fd, PCNT5RESTART, img5(7, PMCTRS_ALL_CPUS, 0, 0, 0)));
	ASSERT_EQ(0, inject(1, EV_INS, 65536 + 300));
	ASSERT_EQ(0, inject(1, EV_BR, 2 * 65536 + 300));
	ASSERT_EQ(0, inject(1, EV_BRM, 1000));
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, t));
	EXPECT_EQ(257, t[1].pf_cntr0);
	EXPECT_EQ(2, t[1].pf_cntr1);
	EXPECT_EQ(3, t[1].pf_cntr2);
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
	EXPECT_EQ(65536 + 300, f[1].pf_cntr0);
	EXPECT_EQ(2 * 65536 + 300, f[1].pf_cntr1);
	EXPECT_EQ(1000, f[1].pf_cntr2);
	ASSERT_EQ(0, raw5(fd, 1, r));
	EXPECT_EQ(44, r[0]);
	EXPECT_EQ(300, r[1]);
	EXPECT_EQ(232, r[2]);

	/* Back to 65536 / 16384: ticks and raw kept, the next tick at the new period. */
	ASSERT_EQ(0, req_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_65536 | PF5_C1_INT_EVERY_65536 |
			      PF5_C2_INT_EVERY_16384));
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, t));
	EXPECT_EQ(257, t[1].pf_cntr0);
	EXPECT_EQ(3, t[1].pf_cntr2);
	ASSERT_EQ(0, inject(1, EV_INS, 65536 - 44 - 1));
	ASSERT_EQ(0, inject(1, EV_BRM, 16384 - 232));
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, t));
	EXPECT_EQ(257, t[1].pf_cntr0);
	EXPECT_EQ(4, t[1].pf_cntr2);
	ASSERT_EQ(0, inject(1, EV_INS, 1));
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, t));
	EXPECT_EQ(258, t[1].pf_cntr0);
	ASSERT_EQ(0, raw5(fd, 1, r));
	EXPECT_EQ(0, r[0]);
	EXPECT_EQ(0, r[2]);
	close(fd);
}

/*
 * PCNT5FREQ field 0: that counter counts at its low rate, as the 5.x driver
 * forced it (PF5_FREQ_KFORCE); issue 23 M1 (it used to be off, reading 0).
 */
TEST(ev5_freq_zero_is_the_low_rate)
{
	struct pfcntrs_ev5 f[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
			      PF5_MUX2_C_BRANCH_MISPREDICTS));
	ASSERT_EQ(0, req_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_65536 | PF5_C2_INT_EVERY_16384));
	ASSERT_EQ(0, req_img(fd, PCNT5RESTART, img5(7, PMCTRS_ALL_CPUS, 0, 0, 0)));
	ASSERT_EQ(0, inject(0, EV_INS, 1234));
	ASSERT_EQ(0, inject(0, EV_BR, 70000));
	ASSERT_EQ(0, inject(0, EV_BRM, 555));
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
	EXPECT_EQ(1234, f[0].pf_cntr0);
	EXPECT_EQ(70000, f[0].pf_cntr1);
	EXPECT_EQ(555, f[0].pf_cntr2);
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, f));
	EXPECT_EQ(1, f[0].pf_cntr1);		/* every 65536 */
	close(fd);
}

/*
 * PCNT5MUX naming counter 0's event only (1 and 2 left at 0, which name
 * events x86 lacks): accepted; those counters count nothing, and a request
 * that selects them fails with EINVAL.  Issue 23 M1 (EINVAL as a whole).
 */
TEST(ev5_mux_counters_left_at_zero)
{
	struct pfcntrs_ev5 f[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES)) TH_LOG("%s", strerror(errno));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT5RESTART, img5(7, PMCTRS_ALL_CPUS, 0, 0, 0)));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT5ENABLE, img5(2, PMCTRS_ALL_CPUS, 0, 0, 0)));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT5SETCNTRS, img5(4, PMCTRS_ALL_CPUS, 0, 0, 5)));
	ASSERT_EQ(0, req_img(fd, PCNT5RESTART, img5(1, PMCTRS_ALL_CPUS, 0, 0, 0)));
	ASSERT_EQ(0, req_img(fd, PCNT5DISABLE, img5(6, PMCTRS_ALL_CPUS, 0, 0, 0)));
	ASSERT_EQ(0, inject(0, EV_INS, 4321));
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
	EXPECT_EQ(4321, f[0].pf_cntr0);
	EXPECT_EQ(0, f[0].pf_cntr1);
	EXPECT_EQ(0, f[0].pf_cntr2);
	/* Counter 1 named: it counts, counter 2 is still left out. */
	ASSERT_EQ(0, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE));
	ASSERT_EQ(0, req_img(fd, PCNT5RESTART, img5(3, PMCTRS_ALL_CPUS, 0, 0, 0)));
	ASSERT_EQ(0, inject(0, EV_BR, 77));
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
	EXPECT_EQ(77, f[0].pf_cntr1);
	/* A named event that x86 lacks is still refused. */
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_REPLAY_TRAP));
	close(fd);
}

/* EV4: PCNTSETMUX with struct iccsr, PCNTRENABLE to start, PCNTGETCNT. */
static __u64 ev4_a0(int c, int pc0) { return (c + 1) * (pc0 ? 4096ULL : 65536ULL) + 5; }
static __u64 ev4_a1(int c, int pc1) { return (c + 2) * (pc1 ? 256ULL : 4096ULL) + 1; }

static void ev4_counting(struct __test_metadata *_metadata, int mode, int pc0, int pc1)
{
	__u64 e0[MAXCPU] = {}, e1[MAXCPU] = {};
	struct pfcntrs t[MAXCPU];
	int n = ncpus(), fd, c, e;
	__u64 cyc;

	fd = open_mode(mode);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", mode_name(mode), strerror(errno));
	ASSERT_EQ(0, ev4_mux(fd, iccsr_val(PF_CYCLES, PF_BRANCHMISS, pc0, pc1, 0)))
		TH_LOG("%s", strerror(errno));
	/* Interrupts are off after open: nothing counts yet. */
	ASSERT_EQ(0, inject(ONE_CPU, EV_CYC, 10 * 65536));
	ASSERT_EQ(0, get4(fd, t));
	EXPECT_EQ(0, t[0].pf_cntr0);
	ASSERT_EQ(0, ioctl(fd, PCNTRENABLE));
	for (c = 0; c < n; c++) {
		ASSERT_EQ(0, inject(c, EV_CYC, ev4_a0(c, pc0)));
		ASSERT_EQ(0, inject(c, EV_BRM, ev4_a1(c, pc1)));
		if (!opened(mode, c))
			continue;
		e = entry_of(mode, c);
		e0[e] += c + 1;
		e1[e] += c + 2;
	}
	memset(t, 0x5a, sizeof(t));
	ASSERT_EQ(0, get4(fd, t));
	for (e = 0; e < nentries(mode); e++) {
		EXPECT_EQ(e0[e], t[e].pf_cntr0) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_EQ(e1[e], t[e].pf_cntr1) TH_LOG("%s entry %d", mode_name(mode), e);
		EXPECT_NE(0, t[e].pr_cycle);
	}
	EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, t[nentries(mode)].pf_cntr0);
	cyc = t[0].pr_cycle;
	usleep(2000);
	ASSERT_EQ(0, get4(fd, t));
	EXPECT_LT(cyc, t[0].pr_cycle);
	close(fd);
}

TEST(ev4_counting_all)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	ev4_counting(_metadata, PCNTOPENALL, 0, 0);
}

TEST(ev4_counting_each_fast_rates)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	ev4_counting(_metadata, PCNTOPENEACH, 1, 1);
}

TEST(ev4_counting_each_slow_rates)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	ev4_counting(_metadata, PCNTOPENEACH, 0, 0);
}

TEST(ev4_counting_one)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	ev4_counting(_metadata, PCNTOPENONE, 1, 0);
}

/* iccsr_disable 1 turns counter 0 off, 2 counter 1. */
TEST(ev4_iccsr_disable)
{
	struct pfcntrs t[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev4_mux(fd, iccsr_val(PF_ISSUES, PF_ICACHE, 1, 1, 1)));
	ASSERT_EQ(0, ioctl(fd, PCNTRENABLE));
	ASSERT_EQ(0, inject(0, EV_INS, 3 * 4096));
	ASSERT_EQ(0, inject_raw("cpu=0 event=0x0283 count=768"));	/* L1I-rd-miss */
	ASSERT_EQ(0, get4(fd, t));
	EXPECT_EQ(0, t[0].pf_cntr0);
	EXPECT_EQ(3, t[0].pf_cntr1);
	ASSERT_EQ(0, ev4_mux(fd, iccsr_val(PF_ISSUES, PF_ICACHE, 1, 1, 2)));
	ASSERT_EQ(0, inject(0, EV_INS, 3 * 4096));
	ASSERT_EQ(0, inject_raw("cpu=0 event=0x0283 count=768"));
	ASSERT_EQ(0, get4(fd, t));
	EXPECT_EQ(3, t[0].pf_cntr0);
	EXPECT_EQ(3, t[0].pf_cntr1);
	close(fd);
}

/* ====================================================================== */
/* 3. CLEARCNT, SETCNTRS, CLEAR, RESTART, ENABWRITE, DISABLE/ENABLE        */
/* ====================================================================== */

TEST(clearcnt_zeroes_ticks_not_raw)
{
	struct pfcntrs_ev6 t[MAXCPU], f[MAXCPU];
	unsigned int r0, r1;
	__u64 before;
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	ASSERT_EQ(0, inject(1, EV_INS, 2 * P6 + 500));
	ASSERT_EQ(0, inject(1, EV_CYC, 3 * P6 + 9));
	usleep(20000);
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(2, t[1].pf_cntr0);
	EXPECT_EQ(3, t[1].pf_cntr1);
	before = t[1].pr_cycle;
	ASSERT_EQ(0, ioctl(fd, PCNTCLEARCNT));
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(0, t[1].pf_cntr0);
	EXPECT_EQ(0, t[1].pf_cntr1);
	EXPECT_GT(before, t[1].pr_cycle) TH_LOG("pr_cycle base not reset");
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(500, f[1].pf_cntr0);
	EXPECT_EQ(9, f[1].pf_cntr1);
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(500, r0);
	EXPECT_EQ(9, r1);
	/* The next tick comes P - 500 events later. */
	ASSERT_EQ(0, inject(1, EV_INS, P6 - 501));
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(0, t[1].pf_cntr0);
	ASSERT_EQ(0, inject(1, EV_INS, 1));
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(1, t[1].pf_cntr0);
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(P6, f[1].pf_cntr0);
	close(fd);
}

TEST(ev6_setcntrs)
{
	struct pfcntrs_ev6 t[MAXCPU], f[MAXCPU];
	unsigned int r0, r1;
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	ASSERT_EQ(0, inject(2, EV_INS, P6 + 5));
	ASSERT_EQ(0, inject(1, EV_INS, 77));
	/* Counter 0 of CPU 2 only. */
	ASSERT_EQ(0, req_img(fd, PCNT6SETCNTRS, img6(PF6_SEL_COUNTER_0, 2, P6 - 10, 12345)));
	ASSERT_EQ(0, raw6(fd, 2, &r0, &r1));
	EXPECT_EQ(P6 - 10, r0);
	EXPECT_EQ(0, r1);	/* not selected */
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(77, r0);	/* other CPU */
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(1, t[2].pf_cntr0);	/* ticks kept */
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(P6 + P6 - 10, f[2].pf_cntr0);
	ASSERT_EQ(0, inject(2, EV_INS, 9));
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(1, t[2].pf_cntr0);
	ASSERT_EQ(0, inject(2, EV_INS, 1));
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(2, t[2].pf_cntr0);
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(2 * P6, f[2].pf_cntr0);
	ASSERT_EQ(0, raw6(fd, 2, &r0, &r1));
	EXPECT_EQ(0, r0);

	/* Both counters of every CPU. */
	ASSERT_EQ(0, req_img(fd, PCNT6SETCNTRS, img6(3, PMCTRS_ALL_CPUS, 1000, P6 - 1)));
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(1000, r0);
	EXPECT_EQ(P6 - 1, r1);
	ASSERT_EQ(0, inject(0, EV_CYC, 1));
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(1, t[0].pf_cntr1);
	EXPECT_EQ(0, t[1].pf_cntr1);
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(P6, f[0].pf_cntr1);
	EXPECT_EQ(P6 - 1, f[1].pf_cntr1);
	EXPECT_EQ(1000, f[0].pf_cntr0);
	close(fd);
}

/* GETCNTRS writes back the image with select and cpu kept. */
TEST(ev6_getcntrs_image)
{
	union pmctrs_ev6 u;
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_CYCLES | PF6_MUX1_RET_COND_BRANCHES));
	ASSERT_EQ(0, inject(2, EV_CYC, 3 * P6 + 4321));
	ASSERT_EQ(0, inject(2, EV_BR, 99));
	u.pmctrs_ev6_long = img6(PF6_SEL_COUNTER_1, 2, 0xfffff, 0xfffff);
	ASSERT_EQ(0, ioctl(fd, PCNT6GETCNTRS, &u.pmctrs_ev6_long));
	EXPECT_EQ(4321, (unsigned int)u.pmctrs_ev6_cntr0);
	EXPECT_EQ(99, (unsigned int)u.pmctrs_ev6_cntr1);
	EXPECT_EQ(2, (unsigned int)u.pmctrs_ev6_cpu);
	EXPECT_EQ(PF6_SEL_COUNTER_1, (unsigned int)u.pmctrs_ev6_select);
	close(fd);
}

TEST(ev5_setcntrs_14_bit_counter2)
{
	struct pfcntrs_ev5 t[MAXCPU], f[MAXCPU];
	unsigned int r[3];
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev5_start(fd, PF5_MUX0_CYCLES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_BRANCH_MISPREDICTS));
	ASSERT_EQ(0, req_img(fd, PCNT5SETCNTRS, img5(7, 1, 65535, 65530, 16383)));
	ASSERT_EQ(0, raw5(fd, 1, r));
	EXPECT_EQ(65535, r[0]);
	EXPECT_EQ(65530, r[1]);
	EXPECT_EQ(16383, r[2]);
	ASSERT_EQ(0, inject(1, EV_BRM, 1));
	ASSERT_EQ(0, inject(1, EV_CYC, 1));
	ASSERT_EQ(0, inject(1, EV_BR, 5));
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, t));
	EXPECT_EQ(1, t[1].pf_cntr0);
	EXPECT_EQ(0, t[1].pf_cntr1);
	EXPECT_EQ(1, t[1].pf_cntr2);
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
	EXPECT_EQ(1ULL << 16, f[1].pf_cntr0);
	EXPECT_EQ(65535, f[1].pf_cntr1);
	EXPECT_EQ(1ULL << 14, f[1].pf_cntr2);
	ASSERT_EQ(0, raw5(fd, 1, r));
	EXPECT_EQ(0, r[0]);
	EXPECT_EQ(65535, r[1]);
	EXPECT_EQ(0, r[2]);
	close(fd);
}

TEST(clear_and_restart_zero_raw)
{
	struct pfcntrs_ev5 t5[MAXCPU];
	struct pfcntrs_ev6 t6[MAXCPU];
	unsigned int r[3], r0, r1;
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	/* EV5: PCNT5CLEAR of counter 1 only. */
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev5_start(fd, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES));
	ASSERT_EQ(0, inject(1, EV_INS, P5_0 + 17));
	ASSERT_EQ(0, inject(1, EV_BR, 2 * P5_1 + 18));
	ASSERT_EQ(0, inject(1, EV_CYC, 19));
	ASSERT_EQ(0, req_img(fd, PCNT5CLEAR, img5(PF5_SEL_COUNTER_1, 1, 0, 0, 0)));
	ASSERT_EQ(0, raw5(fd, 1, r));
	EXPECT_EQ(17, r[0]);
	EXPECT_EQ(0, r[1]);
	EXPECT_EQ(19, r[2]);
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, t5));
	EXPECT_EQ(1, t5[1].pf_cntr0);
	EXPECT_EQ(2, t5[1].pf_cntr1);	/* ticks kept */
	ASSERT_EQ(0, inject(1, EV_BR, 3));
	ASSERT_EQ(0, raw5(fd, 1, r));
	EXPECT_EQ(3, r[1]);		/* and still counting */
	close(fd);

	/* EV6: PCNT6CLEAR; RESTART after a disable zeroes and enables. */
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	ASSERT_EQ(0, inject(1, EV_INS, 40));
	ASSERT_EQ(0, inject(1, EV_CYC, 50));
	ASSERT_EQ(0, req_img(fd, PCNT6CLEAR, img6(PF6_SEL_COUNTER_0, PMCTRS_ALL_CPUS, 0, 0)));
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(0, r0);
	EXPECT_EQ(50, r1);
	ASSERT_EQ(0, ioctl(fd, PCNTRDISABLE));
	ASSERT_EQ(0, inject(1, EV_INS, 1000));
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(0, r0);
	ASSERT_EQ(0, req_img(fd, PCNT6RESTART, img6(3, 1, 0, 0)));
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(0, r0);
	EXPECT_EQ(0, r1);
	ASSERT_EQ(0, inject(1, EV_INS, 6));
	ASSERT_EQ(0, inject(1, EV_CYC, P6 + 7));
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(6, r0);
	EXPECT_EQ(7, r1);
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t6));
	EXPECT_EQ(1, t6[1].pf_cntr1);
	close(fd);
}

TEST(ev6_enabwrite)
{
	struct pfcntrs_ev6 t[MAXCPU];
	unsigned int r0, r1;
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, req_long(fd, PCNT6MUX, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	/* Not enabled yet (interrupts off after open). */
	ASSERT_EQ(0, inject(1, EV_INS, 1000));
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(0, r0);
	ASSERT_EQ(0, req_img(fd, PCNT6ENABWRITE, img6(PF6_SEL_COUNTER_0, 1, P6 - 3, 0)));
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(P6 - 3, r0);
	ASSERT_EQ(0, inject(1, EV_INS, 3));
	ASSERT_EQ(0, inject(1, EV_CYC, 100));
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(1, t[1].pf_cntr0);
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(0, r0);
	/* Counter 1's own enable was on (initially all): it records too. */
	EXPECT_EQ(100, r1);
	/* Counter 1 disabled: an ENABWRITE of counter 0 leaves it off. */
	ASSERT_EQ(0, req_img(fd, PCNT6DISABLE, img6(3, PMCTRS_ALL_CPUS, 0, 0)));
	ASSERT_EQ(0, req_img(fd, PCNT6ENABWRITE, img6(PF6_SEL_COUNTER_0, PMCTRS_ALL_CPUS, 7, 5)));
	ASSERT_EQ(0, inject(1, EV_INS, 3));
	ASSERT_EQ(0, inject(1, EV_CYC, 50));
	ASSERT_EQ(0, raw6(fd, 1, &r0, &r1));
	EXPECT_EQ(10, r0);
	EXPECT_EQ(100, r1);
	ASSERT_EQ(0, raw6(fd, 0, &r0, &r1));
	EXPECT_EQ(7, r0);	/* every CPU written */
	close(fd);
}

TEST(global_disable_freezes_exactly)
{
	struct pfcntrs_ev6 a[MAXCPU], b[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	ASSERT_EQ(0, inject(0, EV_INS, P6 + 10));
	ASSERT_EQ(0, inject(1, EV_CYC, 20));
	ASSERT_EQ(0, ioctl(fd, PCNTRDISABLE));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, a));
	EXPECT_EQ(P6 + 10, a[0].pf_cntr0);
	EXPECT_EQ(20, a[0].pf_cntr1);
	ASSERT_EQ(0, inject(0, EV_INS, 3 * P6));
	ASSERT_EQ(0, inject(1, EV_CYC, 333));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, b));
	EXPECT_EQ(P6 + 10, b[0].pf_cntr0);
	EXPECT_EQ(20, b[0].pf_cntr1);
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, b));
	EXPECT_EQ(1, b[0].pf_cntr0);
	ASSERT_EQ(0, ioctl(fd, PCNTRENABLE));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, b));
	EXPECT_EQ(P6 + 10, b[0].pf_cntr0);
	EXPECT_EQ(20, b[0].pf_cntr1);
	ASSERT_EQ(0, inject(0, EV_INS, 7));
	ASSERT_EQ(0, inject(1, EV_CYC, 8));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, b));
	EXPECT_EQ(P6 + 17, b[0].pf_cntr0);
	EXPECT_EQ(28, b[0].pf_cntr1);
	close(fd);
}

TEST(ev5_per_counter_disable)
{
	struct pfcntrs_ev5 f[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev5_start(fd, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES));
	ASSERT_EQ(0, inject(0, EV_INS, 100));
	ASSERT_EQ(0, inject(0, EV_BR, 200));
	ASSERT_EQ(0, inject(0, EV_CYC, 300));
	ASSERT_EQ(0, req_img(fd, PCNT5DISABLE, img5(PF5_SEL_COUNTER_1, PMCTRS_ALL_CPUS, 0, 0, 0)));
	ASSERT_EQ(0, inject(0, EV_INS, 1));
	ASSERT_EQ(0, inject(0, EV_BR, 70000));
	ASSERT_EQ(0, inject(0, EV_CYC, 2));
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
	EXPECT_EQ(101, f[0].pf_cntr0);
	EXPECT_EQ(200, f[0].pf_cntr1);
	EXPECT_EQ(302, f[0].pf_cntr2);
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
	EXPECT_EQ(200, f[0].pf_cntr1);
	ASSERT_EQ(0, req_img(fd, PCNT5ENABLE, img5(PF5_SEL_COUNTER_1, PMCTRS_ALL_CPUS, 0, 0, 0)));
	ASSERT_EQ(0, inject(0, EV_BR, 5));
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
	EXPECT_EQ(205, f[0].pf_cntr1);
	EXPECT_EQ(101, f[0].pf_cntr0);
	close(fd);
}

TEST(ev6_per_counter_disable)
{
	struct pfcntrs_ev6 f[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	ASSERT_EQ(0, inject(0, EV_INS, 10));
	ASSERT_EQ(0, inject(0, EV_CYC, 20));
	ASSERT_EQ(0, req_img(fd, PCNT6DISABLE, img6(PF6_SEL_COUNTER_0, PMCTRS_ALL_CPUS, 0, 0)));
	ASSERT_EQ(0, inject(0, EV_INS, P6));
	ASSERT_EQ(0, inject(0, EV_CYC, 5));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(10, f[0].pf_cntr0);
	EXPECT_EQ(25, f[0].pf_cntr1);
	ASSERT_EQ(0, req_img(fd, PCNT6ENABLE, img6(PF6_SEL_COUNTER_0, PMCTRS_ALL_CPUS, 0, 0)));
	ASSERT_EQ(0, inject(0, EV_INS, 1));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(11, f[0].pf_cntr0);
	close(fd);
}

/* PAPI sets the mux at every start: an identical PCNT6MUX keeps the counts. */
TEST(ev6_same_mux_keeps_counts)
{
	struct pfcntrs_ev6 f[MAXCPU], t[MAXCPU];
	long mux = PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_RET_COND_BRANCHES;
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, mux));
	ASSERT_EQ(0, inject(0, EV_INS, 2 * P6 + 3));
	ASSERT_EQ(0, inject(0, EV_BR, 44));
	ASSERT_EQ(0, req_long(fd, PCNT6MUX, mux));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(2 * P6 + 3, f[0].pf_cntr0);
	EXPECT_EQ(44, f[0].pf_cntr1);
	ASSERT_EQ(0, inject(0, EV_INS, 1));
	ASSERT_EQ(0, inject(0, EV_BR, 1));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(2 * P6 + 4, f[0].pf_cntr0);
	EXPECT_EQ(45, f[0].pf_cntr1);
	/* Another event on counter 1: its ticks and raw value are kept. */
	ASSERT_EQ(0, req_long(fd, PCNT6MUX, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	ASSERT_EQ(0, inject(0, EV_BR, 1000));
	ASSERT_EQ(0, inject(0, EV_CYC, 5));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(2 * P6 + 4, f[0].pf_cntr0);
	EXPECT_EQ(50, f[0].pf_cntr1);
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(2, t[0].pf_cntr0);
	close(fd);
}

/* ====================================================================== */
/* 4. PAPI's EV6 sequence                                                  */
/* ====================================================================== */

TEST(papi_ev6_sequence)
{
	struct pfcntrs_ev6 cntrs[MAXCPU], *p = cntrs;
	long items = PFM_COUNTERS, mux = PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES;
	static const __u64 in0[3] = { 3 * 1048576 + 12345, 4321, 2 * 1048576 };
	static const __u64 in1[3] = { 777, 1048576 + 1, 9 };
	__u64 acc0 = 0, acc1 = 0;
	union pmctrs_ev6 u;
	int fd, start, i, k = 0;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	fd = open("/dev/pfcntr", O_RDONLY | PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PCNTSETITEMS, &items));
	ASSERT_EQ(0, ioctl(fd, PCNTLOGSELECT));
	for (start = 0; start < 2; start++) {
		/* _papi_hwd_start */
		ASSERT_EQ(0, ioctl(fd, PCNTRDISABLE));
		ASSERT_EQ(0, ioctl(fd, PCNTCLEARCNT));
		ASSERT_EQ(0, ioctl(fd, PCNT6MUX, &mux));
		u.pmctrs_ev6_long = 0;
		u.pmctrs_ev6_cpu = PMCTRS_ALL_CPUS;
		u.pmctrs_ev6_select = PF6_SEL_COUNTER_0 | PF6_SEL_COUNTER_1;
		ASSERT_EQ(0, ioctl(fd, PCNT6RESTART, &u.pmctrs_ev6_long));
		/* the read loop */
		for (i = 0; i < (start ? 1 : 2); i++, k++) {
			ASSERT_EQ(0, inject(1, EV_INS, in0[k]));
			ASSERT_EQ(0, inject(1, EV_CYC, in1[k]));
			memset(cntrs, 0, sizeof(cntrs));
			ASSERT_EQ(0, ioctl(fd, PCNT6READCNTRS, &p));
			EXPECT_EQ(in0[k], cntrs[0].pf_cntr0) TH_LOG("read %d", k);
			EXPECT_EQ(in1[k], cntrs[0].pf_cntr1) TH_LOG("read %d", k);
			acc0 += cntrs[0].pf_cntr0;
			acc1 += cntrs[0].pf_cntr1;
			ASSERT_EQ(0, ioctl(fd, PCNTCLEARCNT));
			ASSERT_EQ(0, ioctl(fd, PCNT6RESTART, &u.pmctrs_ev6_long));
		}
	}
	EXPECT_EQ(in0[0] + in0[1] + in0[2], acc0);
	EXPECT_EQ(in1[0] + in1[1] + in1[2], acc1);
	/* Stopped: PCNTRDISABLE, nothing more counted. */
	ASSERT_EQ(0, ioctl(fd, PCNTRDISABLE));
	ASSERT_EQ(0, inject(1, EV_INS, 5));
	ASSERT_EQ(0, ioctl(fd, PCNT6READCNTRS, &p));
	EXPECT_EQ(0, cntrs[0].pf_cntr0);
	close(fd);
}

/* ====================================================================== */
/* 5. IPL histograms                                                       */
/* ====================================================================== */

TEST(ipl_histogram)
{
	struct pfipls h[MAXCPU];
	int n = ncpus(), fd, c, e;

	NEED_FAKEPMU();
	NEED_CPUS(4);
	ASSERT_EQ(0, pin_to_cpu(0));
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_items(fd, PFM_COUNTERS | PFM_IPL));
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	/* From the pinned CPU: task context. */
	ASSERT_EQ(0, inject_raw("cpu=0 event=0xc0 count=3145728 mode=user ctx=user"));
	ASSERT_EQ(0, inject_raw("cpu=0 event=0x3c count=1048576 mode=user ctx=user"));
	ASSERT_EQ(0, inject_raw("cpu=0 event=0xc0 count=2097152 mode=kernel ctx=kernel"));
	/* Another CPU, idle: inside the test PMU's IPI. */
	ASSERT_EQ(0, inject_raw("cpu=3 event=0xc0 count=4194304 mode=kernel ctx=kernel"));
	ASSERT_EQ(0, inject_raw("cpu=3 event=0x3c count=1048576 mode=kernel ctx=kernel"));
	/* Not a whole period: no interrupt. */
	ASSERT_EQ(0, inject_raw("cpu=2 event=0xc0 count=1048575 mode=kernel ctx=kernel"));
	memset(h, 0x5a, sizeof(h));
	ASSERT_EQ(0, getipl(fd, h));
	for (c = 0; c < n; c++)
		TH_LOG("cpu%d ipl %lu %lu %lu %lu %lu %lu %lu %lu %lu", c,
		       h[c].ipl[0], h[c].ipl[1], h[c].ipl[2], h[c].ipl[3], h[c].ipl[4],
		       h[c].ipl[5], h[c].ipl[6], h[c].ipl[7], h[c].ipl[8]);
	EXPECT_EQ(4, h[0].ipl[8]);
	EXPECT_EQ(2, h[0].ipl[0]);
	EXPECT_EQ(0, h[0].ipl[4]);
	EXPECT_EQ(0, h[0].ipl[7]);
	/*
	 * Entry 7 is Tru64's "IPL 0 and the idle thread", a subset of entry 0
	 * (issue 23 M6).  The test PMU's interrupts on idle CPU 3 come inside
	 * its function call: an IPI (entry 4), or, when the CPU was polling
	 * in its idle loop, the idle task itself, which the kernel has run the
	 * call without an interrupt (entry 0, and 7 as well).
	 */
	EXPECT_EQ(5, h[3].ipl[4] + h[3].ipl[0]);
	EXPECT_EQ(h[3].ipl[0], h[3].ipl[7]);
	EXPECT_EQ(0, h[3].ipl[8]);
	for (c = 0; c < n; c++) {
		__u64 sum = 0;

		EXPECT_EQ(0, h[c].ipl[6]) TH_LOG("cpu %d", c);
		for (e = 0; e < 9; e++)
			if (e != 7)
				sum += h[c].ipl[e];
		/* interrupts = count / P per counter */
		EXPECT_EQ(c == 0 ? 6 : c == 3 ? 5 : 0, sum) TH_LOG("cpu %d", c);
	}
	EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, h[n].ipl[0]);

	/* CLEARCNT with PFM_IPL only: histogram zeroed, ticks kept. */
	ASSERT_EQ(0, set_items(fd, PFM_IPL));
	ASSERT_EQ(0, ioctl(fd, PCNTCLEARCNT));
	ASSERT_EQ(0, getipl(fd, h));
	for (c = 0; c < n; c++)
		for (e = 0; e < 9; e++)
			EXPECT_EQ(0, h[c].ipl[e]) TH_LOG("cpu %d entry %d", c, e);
	ASSERT_EQ(0, set_items(fd, PFM_COUNTERS));
	{
		struct pfcntrs_ev6 t[MAXCPU];

		ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
		EXPECT_EQ(5, t[0].pf_cntr0);
		EXPECT_EQ(4, t[3].pf_cntr0);
	}
	/* Without PFM_IPL: EINVAL, and no interrupt is recorded meanwhile. */
	EXPECT_ERR(EINVAL, getipl(fd, h));
	ASSERT_EQ(0, inject_raw("cpu=0 event=0xc0 count=1048576 ctx=user"));
	ASSERT_EQ(0, set_items(fd, PFM_COUNTERS | PFM_IPL));
	ASSERT_EQ(0, getipl(fd, h));
	EXPECT_EQ(0, h[0].ipl[8]);
	ASSERT_EQ(0, inject_raw("cpu=0 event=0xc0 count=1048576 ctx=user"));
	ASSERT_EQ(0, getipl(fd, h));
	EXPECT_EQ(1, h[0].ipl[8]);
	/* CLEARCNT with both: zeroes both. */
	ASSERT_EQ(0, ioctl(fd, PCNTCLEARCNT));
	ASSERT_EQ(0, getipl(fd, h));
	EXPECT_EQ(0, h[0].ipl[8]);
	close(fd);
}

/* ALL and ONE: one histogram (the sum; the CPU). */
TEST(ipl_all_and_one)
{
	struct pfipls h[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(4);
	ASSERT_EQ(0, pin_to_cpu(0));
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_items(fd, PFM_COUNTERS | PFM_IPL));
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_CYCLES | PF6_MUX1_RET_COND_BRANCHES));
	ASSERT_EQ(0, inject_raw("cpu=0 event=0x3c count=1048576 ctx=user"));
	ASSERT_EQ(0, inject_raw("cpu=2 event=0x3c count=2097152 ctx=user"));
	ASSERT_EQ(0, inject_raw("cpu=3 event=0xc4 count=3145728 mode=kernel ctx=kernel"));
	memset(h, 0x5a, sizeof(h));
	ASSERT_EQ(0, getipl(fd, h));
	EXPECT_EQ(3, h[0].ipl[8]);
	/* CPU 3's: in an IPI, or in its idle task (see ipl_histogram). */
	EXPECT_EQ(3, h[0].ipl[4] + h[0].ipl[0]);
	EXPECT_EQ(h[0].ipl[0], h[0].ipl[7]);
	EXPECT_EQ(0, h[0].ipl[6]);
	EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, h[1].ipl[0]);
	close(fd);

	fd = pf_open_one(2);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_items(fd, PFM_COUNTERS | PFM_IPL));
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_CYCLES | PF6_MUX1_RET_COND_BRANCHES));
	ASSERT_EQ(0, inject_raw("cpu=2 event=0x3c count=2097152 mode=kernel ctx=kernel"));
	ASSERT_EQ(0, inject_raw("cpu=3 event=0x3c count=2097152 ctx=user"));
	ASSERT_EQ(0, getipl(fd, h));
	EXPECT_EQ(2, h[0].ipl[0]);
	EXPECT_EQ(0, h[0].ipl[8]);
	close(fd);
}

/* ====================================================================== */
/* 6. Errors                                                               */
/* ====================================================================== */

TEST(err_iccsr)
{
	static const __u64 ign[] = { 1ULL << 1, 1ULL << 2, 1ULL << 4, 1ULL << 7,
				     1ULL << 12, 1ULL << 31, 1ULL << 37, 1ULL << 63 };
	struct pfcntrs t[MAXCPU];
	unsigned int i;
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	EXPECT_ERR(EINVAL, ev4_mux(fd, iccsr_val(PF_CYCLES, PF_BRANCHMISS, 0, 0, 3)));
	for (i = 0; i < sizeof(ign) / sizeof(ign[0]); i++)
		EXPECT_EQ(EINVAL, ERRNO_OF(ev4_mux(fd, iccsr_val(PF_CYCLES, PF_BRANCHMISS,
								  0, 0, 0) | ign[i])))
			TH_LOG("ign bit %#llx", ign[i]);
	/* Not available events */
	EXPECT_ERR(EINVAL, ev4_mux(fd, iccsr_val(PF_PALMODE, PF_BRANCHMISS, 0, 0, 0)));
	EXPECT_ERR(EINVAL, ev4_mux(fd, iccsr_val(PF_NONISSUES, PF_BRANCHMISS, 0, 0, 0)));
	EXPECT_ERR(EINVAL, ev4_mux(fd, iccsr_val(PF_CYCLES, PF_DUAL, 0, 0, 0)));
	EXPECT_ERR(EINVAL, ev4_mux(fd, iccsr_val(PF_CYCLES, PF_EXTPIN1, 0, 0, 0)));
	/* None of these fixed the family. */
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_CYCLES)) TH_LOG("%s", strerror(errno));
	EXPECT_ERR(EINVAL, get4(fd, t));
	close(fd);
}

TEST(err_items)
{
	struct pfipls h[MAXCPU];
	struct pfcntrs_ev6 t[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	EXPECT_ERR(EINVAL, set_items(fd, 0));
	EXPECT_ERR(EINVAL, set_items(fd, PFM_COUNTERS | PFM_IPL | (1 << PFM_PROFME_MODE_SHIFT)));
	EXPECT_ERR(EINVAL, set_items(fd, PFM_COUNTERS | (PF67_PM_VALID << PFM_PROFME_MODE_SHIFT)));
	EXPECT_ERR(EINVAL, set_items(fd, PFM_COUNTERS | 8));
	/* Nothing changed: items still PFM_COUNTERS. */
	EXPECT_ERR(EINVAL, getipl(fd, h));
	EXPECT_EQ(0, get6(fd, PCNT6GETCNT, t));

	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_CYCLES | PF6_MUX1_RET_COND_BRANCHES));
	ASSERT_EQ(0, inject(0, EV_CYC, 2 * P6 + 1));
	/* CLEARCNT with only PFM_PROFILING: EINVAL, ticks kept. */
	ASSERT_EQ(0, set_items(fd, PFM_PROFILING));
	EXPECT_ERR(EINVAL, ioctl(fd, PCNTCLEARCNT));
	/* GETCNT without PFM_COUNTERS */
	memset(t, 0x77, sizeof(t));
	EXPECT_ERR(EINVAL, get6(fd, PCNT6GETCNT, t));
	EXPECT_ERR(EINVAL, get6(fd, PCNT6READCNTRS, t));
	EXPECT_EQ(0x7777777777777777ULL, t[0].pf_cntr0);
	ASSERT_EQ(0, set_items(fd, PFM_IPL));
	EXPECT_ERR(EINVAL, get6(fd, PCNT6GETCNT, t));
	ASSERT_EQ(0, set_items(fd, PFM_COUNTERS));
	ASSERT_EQ(0, get6(fd, PCNT6GETCNT, t));
	EXPECT_EQ(2, t[0].pf_cntr0);
	close(fd);

	/* EV5 and EV4 GETCNT without PFM_COUNTERS */
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_items(fd, PFM_IPL));
	{
		struct pfcntrs_ev5 t5[MAXCPU];
		struct pfcntrs t4[MAXCPU];

		EXPECT_ERR(EINVAL, get5(fd, PCNT5GETCNT, t5));
		EXPECT_ERR(EINVAL, get5(fd, PCNT5READCNTRS, t5));
		EXPECT_ERR(EINVAL, get4(fd, t4));
	}
	close(fd);
}

TEST(err_other_family)
{
	struct pfcntrs_ev5 t5[MAXCPU];
	struct pfcntrs_ev6 t6[MAXCPU];
	struct pfcntrs t4[MAXCPU];
	unsigned int r[3] = {}, r0, r1;
	int fd;

	NEED_FAKEPMU();
	/* Before any mux: reads of every family are zeros, and fix nothing. */
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	memset(t4, 0x33, sizeof(t4));
	EXPECT_EQ(0, get4(fd, t4));
	EXPECT_EQ(0, t4[0].pf_cntr0);
	EXPECT_EQ(0, t4[0].pf_cntr1);
	EXPECT_EQ(0, get5(fd, PCNT5GETCNT, t5));
	EXPECT_EQ(0, get5(fd, PCNT5READCNTRS, t5));
	EXPECT_EQ(0, t5[0].pf_cntr2);
	EXPECT_EQ(0, raw5(fd, 0, r));
	EXPECT_EQ(0, r[0]);
	EXPECT_EQ(0, get6(fd, PCNT6GETCNT, t6));
	EXPECT_EQ(0, raw6(fd, 0, &r0, &r1));
	/* EV6 fixed */
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	ASSERT_EQ(0, inject(0, EV_INS, 1234));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
				    PF5_MUX2_C_CYCLES));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_65536));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5CTXTS, PF5_CTXT_ALL_MODES));
	EXPECT_ERR(EINVAL, ev4_mux(fd, iccsr_val(PF_CYCLES, PF_BRANCHMISS, 0, 0, 0)));
	EXPECT_ERR(EINVAL, get4(fd, t4));
	EXPECT_ERR(EINVAL, get5(fd, PCNT5GETCNT, t5));
	EXPECT_ERR(EINVAL, get5(fd, PCNT5READCNTRS, t5));
	EXPECT_ERR(EINVAL, raw5(fd, 0, r));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT5RESTART, img5(7, PMCTRS_ALL_CPUS, 0, 0, 0)));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT5DISABLE, img5(7, PMCTRS_ALL_CPUS, 0, 0, 0)));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT5SETCNTRS, img5(7, PMCTRS_ALL_CPUS, 1, 1, 1)));
	/* Still EV6, still counting */
	ASSERT_EQ(0, inject(0, EV_INS, 1));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, t6));
	EXPECT_EQ(1235, t6[0].pf_cntr0);
	close(fd);

	/* EV5 fixed */
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev5_start(fd, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES));
	EXPECT_ERR(EINVAL, get4(fd, t4));
	EXPECT_ERR(EINVAL, ev4_mux(fd, iccsr_val(PF_CYCLES, PF_BRANCHMISS, 0, 0, 0)));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT6MUX, PF6_MUX0_CYCLES));
	EXPECT_ERR(EINVAL, get6(fd, PCNT6READCNTRS, t6));
	EXPECT_ERR(EINVAL, get6(fd, PCNT6GETCNT, t6));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT6RESTART, img6(3, PMCTRS_ALL_CPUS, 0, 0)));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT6ENABWRITE, img6(3, PMCTRS_ALL_CPUS, 0, 0)));
	EXPECT_ERR(EINVAL, raw6(fd, 0, &r0, &r1));
	close(fd);

	/* EV4 fixed */
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev4_mux(fd, iccsr_val(PF_CYCLES, PF_BRANCHMISS, 0, 0, 0)));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT6MUX, PF6_MUX0_CYCLES));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
				    PF5_MUX2_C_CYCLES));
	EXPECT_ERR(EINVAL, get5(fd, PCNT5GETCNT, t5));
	EXPECT_ERR(EINVAL, get6(fd, PCNT6GETCNT, t6));
	EXPECT_EQ(0, get4(fd, t4));
	close(fd);
}

TEST(err_unknown_requests)
{
	long v = 0;
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	EXPECT_ERR(EINVAL, ioctl(fd, _IO('P', 20)));
	EXPECT_ERR(EINVAL, ioctl(fd, _IO('P', 9)));
	EXPECT_ERR(EINVAL, ioctl(fd, _IO('P', 61)));
	EXPECT_ERR(EINVAL, ioctl(fd, _IOW('P', 51, int), &v));	/* wrong size */
	EXPECT_ERR(ENOTTY, ioctl(fd, _IO('Q', 1)));
	EXPECT_ERR(ENOTTY, ioctl(fd, _IOW('Q', 51, long), &v));
	close(fd);
}

TEST(err_not_available_events)
{
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_REPLAY_TRAP |
				    PF5_MUX2_C_CYCLES));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
				    PF5_MUX2_C_PC_MISPR));
	/* LONG_STALLS is 0: counter 2 left out, refused once selected (M1) */
	EXPECT_ERR(EINVAL, ev5_start(fd, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
				     PF5_MUX2_C_LONG_STALLS));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_C_BCACHE_VICTIM |
				    PF5_MUX2_C_CYCLES));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5MUX, (1L << 8) | PF5_MUX1_FLOW_CHANGE |
				    PF5_MUX2_C_CYCLES));	/* outside the fields */
	close(fd);
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	EXPECT_ERR(EINVAL, req_long(fd, PCNT6MUX, PF6_MUX0_CYCLES | PF6_MUX1_RET_UNALIGNED_TRAPS));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT6MUX, PF6_MUX0_CYCLES | PF6_MUX1_REPLAY_TRAP));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT6MUX, PF6_MUX0_CYCLES | PF6_MUX1_RET_DTB_DOUBLE_MISSES));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT6MUX, 0x20));
	close(fd);
}

TEST(err_ev5_freq_and_ctxts)
{
	struct pfcntrs_ev5 f[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev5_start(fd, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES));
	/* Bits outside Tru64's PF5_FREQ_KMASK (a field of 1 is the rate 256). */
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5FREQ, 0x400 | PF5_C1_INT_EVERY_65536 |
				    PF5_C2_INT_EVERY_16384));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_65536 | 0x8 |
				    PF5_C2_INT_EVERY_16384));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_65536 |
				    PF5_C1_INT_EVERY_65536 | 0x1));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5CTXTS, PF5_CTXT_PAL));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5CTXTS, 0x1000));
	/* The refused calls changed nothing: default periods, all modes. */
	ASSERT_EQ(0, inject(0, EV_INS, 65536 + 1));
	ASSERT_EQ(0, inject_raw("cpu=0 event=0x3c count=16384 mode=kernel"));
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, f));
	EXPECT_EQ(1, f[0].pf_cntr0);
	EXPECT_EQ(1, f[0].pf_cntr2);
	close(fd);
}

TEST(err_image_cpu_not_open)
{
	union pmctrs_ev6 u;
	unsigned int r0, r1;
	int fd;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	fd = pf_open_one(1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	ASSERT_EQ(0, inject(1, EV_INS, 66));
	EXPECT_ERR(EINVAL, raw6(fd, 2, &r0, &r1));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT6SETCNTRS, img6(3, 2, 5, 5)));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT6CLEAR, img6(3, 0, 0, 0)));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT6RESTART, img6(3, 2, 0, 0)));
	/* ONE: PMCTRS_ALL_CPUS and the opened CPU are that CPU. */
	ASSERT_EQ(0, raw6(fd, PMCTRS_ALL_CPUS, &r0, &r1));
	EXPECT_EQ(66, r0);
	u.pmctrs_ev6_long = img6(3, 1, 0, 0);
	ASSERT_EQ(0, ioctl(fd, PCNT6GETCNTRS, &u.pmctrs_ev6_long));
	EXPECT_EQ(66, (unsigned int)u.pmctrs_ev6_cntr0);
	close(fd);

	/* EACH: a CPU that does not exist; GETCNTRS of every CPU. */
	ASSERT_EQ(0, unpin());
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	EXPECT_ERR(EINVAL, raw6(fd, 200, &r0, &r1));
	EXPECT_ERR(EINVAL, raw6(fd, ncpus(), &r0, &r1));
	EXPECT_ERR(EINVAL, raw6(fd, PMCTRS_ALL_CPUS, &r0, &r1));
	EXPECT_ERR(EINVAL, req_img(fd, PCNT6SETCNTRS, img6(3, 200, 5, 5)));
	close(fd);
}

TEST(err_profiling)
{
	struct addr_range ar = { 0x400000, 0x500000 };
	addr_range_t rt = { 0x400000, 0x500000, 4, 0 };
	long rsize = -1;
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, PCNTGETRSIZE, &rsize));
	EXPECT_EQ(0, rsize);
	EXPECT_ERR(EINVAL, ioctl(fd, PCNTSETUADDR, &ar));
	EXPECT_ERR(EINVAL, ioctl(fd, PCNTSETKADDR, &ar));
	EXPECT_ERR(EINVAL, ioctl(fd, PCNTSETURANGE, &rt));
	EXPECT_ERR(EINVAL, ioctl(fd, PCNTSETKRANGE, &rt));
	EXPECT_ERR(EINVAL, ioctl(fd, PCNTCALLER));
	ASSERT_EQ(0, set_items(fd, PFM_COUNTERS | PFM_PROFILING));
	rsize = -1;
	EXPECT_EQ(0, ioctl(fd, PCNTGETRSIZE, &rsize));
	EXPECT_EQ(0, rsize) TH_LOG("no range yet");
	/* Kernel mode with user addresses; the rest: pfcntr_prof_test.c */
	EXPECT_ERR(EFAULT, ioctl(fd, PCNTSETKADDR, &ar));
	EXPECT_ERR(EFAULT, ioctl(fd, PCNTSETKRANGE, &rt));
	EXPECT_ERR(EINVAL, ioctl(fd, PCNTCALLER));
	EXPECT_EQ(0, ioctl(fd, PCNTSETURANGE, &rt));
	EXPECT_EQ(0, ioctl(fd, PCNTGETRSIZE, &rsize));
	EXPECT_EQ(0x100000 / 4, rsize);
	close(fd);
}

/* EACH arrays of ncpus - 1 entries ending at a PROT_NONE page: EFAULT, nothing written. */
static void check_untouched(struct __test_metadata *_metadata, const void *p, size_t n,
			    const char *what)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0xa5)
			break;
	EXPECT_EQ(n, i) TH_LOG("%s: byte %zu written", what, i);
}

/*
 * One entry (PCNTOPENONE) that the caller cannot hold: across a page
 * boundary into a PROT_NONE page (faulted in first: EFAULT, nothing
 * written), or on a read-only page (EFAULT).  Within one page the entry is
 * copied without faulting it in first: on a page not yet present it is
 * filled all the same.
 */
TEST(err_one_entry_unwritable_nothing_written)
{
	size_t sz = sizeof(struct pfcntrs_ev6);
	void *base;
	char *p, *a;
	int fd;

	NEED_FAKEPMU();
	fd = pf_open_one(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_items(fd, PFM_COUNTERS));
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	ASSERT_EQ(0, inject(0, EV_INS, 1000));

	ASSERT_NE(NULL, page_end_array(sz, &base));
	p = base;
	/* Across the boundary: half on the writable page. */
	a = p + 4096 - sz / 2;
	EXPECT_ERR(EFAULT, get6(fd, PCNT6READCNTRS, (struct pfcntrs_ev6 *)a));
	check_untouched(_metadata, a, sz / 2, "READCNTRS across a boundary");
	EXPECT_ERR(EFAULT, get6(fd, PCNT6GETCNT, (struct pfcntrs_ev6 *)a));
	check_untouched(_metadata, a, sz / 2, "GETCNT across a boundary");
	/* Within a read-only page. */
	a = p + 4096 - sz;
	ASSERT_EQ(0, mprotect(p, 4096, PROT_READ));
	EXPECT_ERR(EFAULT, get6(fd, PCNT6READCNTRS, (struct pfcntrs_ev6 *)a));
	check_untouched(_metadata, a, sz, "READCNTRS on a read-only page");
	ASSERT_EQ(0, mprotect(p, 4096, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, get6(fd, PCNT6READCNTRS, (struct pfcntrs_ev6 *)a));
	EXPECT_EQ(1000, ((struct pfcntrs_ev6 *)a)->pf_cntr0);
	/* The page dropped: the copy faults it in. */
	ASSERT_EQ(0, madvise(p, 4096, MADV_DONTNEED));
	EXPECT_EQ(0, get6(fd, PCNT6READCNTRS, (struct pfcntrs_ev6 *)a));
	EXPECT_EQ(1000, ((struct pfcntrs_ev6 *)a)->pf_cntr0);
	munmap(p, 8192);
	close(fd);
}

TEST(err_each_array_too_small)
{
	int n = ncpus(), fd;
	size_t sz;
	void *map, *a;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_items(fd, PFM_COUNTERS | PFM_IPL));
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES));
	ASSERT_EQ(0, inject(0, EV_INS, P6 + 1));

	sz = (n - 1) * sizeof(struct pfcntrs_ev6);
	a = page_end_array(sz, &map);
	ASSERT_NE(NULL, a);
	EXPECT_ERR(EFAULT, get6(fd, PCNT6READCNTRS, a));
	check_untouched(_metadata, a, sz, "PCNT6READCNTRS");
	EXPECT_ERR(EFAULT, get6(fd, PCNT6GETCNT, a));
	check_untouched(_metadata, a, sz, "PCNT6GETCNT");
	munmap(map, 8192);

	sz = (n - 1) * sizeof(struct pfipls);
	a = page_end_array(sz, &map);
	ASSERT_NE(NULL, a);
	EXPECT_ERR(EFAULT, getipl(fd, a));
	check_untouched(_metadata, a, sz, "PCNTGETIPLHIS");
	munmap(map, 8192);

	/* Exactly ncpus entries fit. */
	sz = n * sizeof(struct pfcntrs_ev6);
	a = page_end_array(sz, &map);
	ASSERT_NE(NULL, a);
	EXPECT_EQ(0, get6(fd, PCNT6READCNTRS, a));
	EXPECT_EQ(P6 + 1, ((struct pfcntrs_ev6 *)a)[0].pf_cntr0);
	munmap(map, 8192);
	/* An unmapped or kernel pointer, and a bad address of the pointer */
	EXPECT_ERR(EFAULT, get6(fd, PCNT6READCNTRS, (void *)0x10));
	EXPECT_ERR(EFAULT, ioctl(fd, PCNT6READCNTRS, (void *)0x10));
	close(fd);

	/* EV5 and EV4 */
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev5_start(fd, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES));
	sz = (n - 1) * sizeof(struct pfcntrs_ev5);
	a = page_end_array(sz, &map);
	ASSERT_NE(NULL, a);
	EXPECT_ERR(EFAULT, get5(fd, PCNT5GETCNT, a));
	EXPECT_ERR(EFAULT, get5(fd, PCNT5READCNTRS, a));
	check_untouched(_metadata, a, sz, "PCNT5READCNTRS");
	munmap(map, 8192);
	close(fd);

	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev4_mux(fd, iccsr_val(PF_CYCLES, PF_BRANCHMISS, 0, 0, 0)));
	sz = (n - 1) * sizeof(struct pfcntrs);
	a = page_end_array(sz, &map);
	ASSERT_NE(NULL, a);
	EXPECT_ERR(EFAULT, get4(fd, a));
	check_untouched(_metadata, a, sz, "PCNTGETCNT");
	munmap(map, 8192);
	close(fd);
}

/* A refused mux: the old events still read and still count. */
TEST(err_refused_mux_changes_nothing)
{
	struct pfcntrs_ev6 f[MAXCPU];
	struct pfcntrs_ev5 f5[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_RET_COND_BRANCHES));
	ASSERT_EQ(0, inject(0, EV_INS, 1000));
	ASSERT_EQ(0, inject(0, EV_BR, 2000));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT6MUX, PF6_MUX0_CYCLES | PF6_MUX1_RET_UNALIGNED_TRAPS));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(1000, f[0].pf_cntr0);
	EXPECT_EQ(2000, f[0].pf_cntr1);
	ASSERT_EQ(0, inject(0, EV_INS, 500));
	ASSERT_EQ(0, inject(0, EV_BR, 5));
	ASSERT_EQ(0, inject(0, EV_CYC, 7));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(1500, f[0].pf_cntr0);
	EXPECT_EQ(2005, f[0].pf_cntr1);
	close(fd);

	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev5_start(fd, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES));
	ASSERT_EQ(0, inject(0, EV_BR, 300));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_REPLAY_TRAP |
				    PF5_MUX2_C_CYCLES));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5FREQ, 0x400));
	ASSERT_EQ(0, inject(0, EV_BR, 65536));
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f5));
	EXPECT_EQ(65836, f5[0].pf_cntr1);
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, f5));
	EXPECT_EQ(1, f5[0].pf_cntr1);
	close(fd);
}

/* ====================================================================== */
/* 7. 32-bit callers                                                       */
/* ====================================================================== */

#ifdef __x86_64__
/* 0 or the errno of a 32-bit ioctl */
static int ia32_ioctl(int fd, unsigned long cmd, void *arg)
{
	return -ia32_syscall3(IA32_NR_IOCTL, fd, cmd, (long)arg);
}

static int have_ia32(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(ia32_syscall3(IA32_NR_GETPID, 0, 0, 0) == getpid() ? 0 : 1);
	return child_status(pid) == 0;
}

#define PCNTSETITEMS32		_IOC(_IOC_WRITE, 'P', 31, 4)
#define PCNT6MUX32		_IOC(_IOC_WRITE, 'P', 51, 4)
#define PCNT6RESTART32		_IOC(_IOC_WRITE, 'P', 56, 4)
#define PCNT6GETCNTRS32		_IOC(_IOC_READ | _IOC_WRITE, 'P', 58, 4)
#define PCNT6GETCNT32		_IOC(_IOC_WRITE, 'P', 59, 4)
#define PCNT6READCNTRS32	_IOC(_IOC_WRITE, 'P', 60, 4)
#define PCNTGETIPLHIS32		_IOC(_IOC_WRITE, 'P', 11, 4)
#define PCNTGETRSIZE32		_IOC(_IOC_READ, 'P', 10, 4)

TEST(compat_32_bit_callers)
{
	int n = ncpus(), fd;
	struct pfcntrs_ev6 *arr;
	struct pfipls *h;
	__u32 *l32, *ptr32, *rsz;
	__u64 *img;
	char *low;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	if (!have_ia32())
		SKIP(return, "no 32-bit system call entry (IA32 emulation)");
	low = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, low);
	ASSERT_GT(0x100000000UL, (unsigned long)low + 8192);
	memset(low, 0xa5, 8192);
	l32 = (__u32 *)low;		/* a 32-bit long, then garbage */
	img = (__u64 *)(low + 16);
	ptr32 = (__u32 *)(low + 32);
	rsz = (__u32 *)(low + 48);
	arr = (struct pfcntrs_ev6 *)(low + 64);
	h = (struct pfipls *)(low + 4096);

	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	/* 4-byte long: the next 4 bytes (0xa5a5a5a5) would be invalid bits. */
	l32[0] = PFM_COUNTERS | PFM_IPL;
	EXPECT_EQ(0, ia32_ioctl(fd, PCNTSETITEMS32, l32));
	l32[0] = PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_RET_COND_BRANCHES;
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT6MUX32, l32));
	*img = img6(3, PMCTRS_ALL_CPUS, 0, 0);
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT6RESTART32, img));
	ASSERT_EQ(0, inject(1, EV_INS, 2 * P6 + 33));
	ASSERT_EQ(0, inject(1, EV_BR, P6 + 44));

	*ptr32 = (__u32)(unsigned long)arr;
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT6READCNTRS32, ptr32));
	EXPECT_EQ(2 * P6 + 33, arr[1].pf_cntr0);
	EXPECT_EQ(P6 + 44, arr[1].pf_cntr1);
	EXPECT_EQ(0, arr[0].pf_cntr0);
	EXPECT_NE(0, arr[1].pr_cycle);
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, arr[n].pr_cycle);
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT6GETCNT32, ptr32));
	EXPECT_EQ(2, arr[1].pf_cntr0);
	EXPECT_EQ(1, arr[1].pf_cntr1);
	/* the image stays 8 bytes */
	*img = img6(3, 1, 0, 0);
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT6GETCNTRS32, img));
	EXPECT_EQ(33, PFCNTR_EV6_C0(*img));
	EXPECT_EQ(44, PFCNTR_EV6_C1(*img));
	EXPECT_EQ(1, PFCNTR_EV6_CPU(*img));
	*ptr32 = (__u32)(unsigned long)h;
	EXPECT_EQ(0, ia32_ioctl(fd, PCNTGETIPLHIS32, ptr32));
	EXPECT_EQ(3, h[1].ipl[8]);
	/* GETRSIZE writes 4 bytes */
	rsz[0] = 0x12345678;
	rsz[1] = 0x9abcdef0;
	EXPECT_EQ(0, ia32_ioctl(fd, PCNTGETRSIZE32, rsz));
	EXPECT_EQ(0, rsz[0]);
	EXPECT_EQ(0x9abcdef0, rsz[1]);
	/* What the 32-bit calls did, seen natively. */
	{
		struct pfcntrs_ev6 f[MAXCPU];
		struct pfipls hh[MAXCPU];

		ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
		EXPECT_EQ(2 * P6 + 33, f[1].pf_cntr0);
		EXPECT_EQ(0, getipl(fd, hh));	/* items were COUNTERS|IPL */
	}
	close(fd);
	munmap(low, 8192);
}

#else
TEST(compat_32_bit_callers)
{
	SKIP(return, "32-bit x86 callers (int $0x80): x86-64 only");
}
#endif /* __x86_64__ */

/* ====================================================================== */
/* 8. EV67                                                                 */
/* ====================================================================== */

FIXTURE(ev67) {
	int fd;
};

FIXTURE_SETUP(ev67)
{
	self->fd = -1;
	if (access(EV67_PARAM, W_OK))
		SKIP(return, "no pfcntr_ev67 parameter");
	ASSERT_EQ(0, write_file(EV67_PARAM, "Y"));
}

FIXTURE_TEARDOWN(ev67)
{
	if (self->fd >= 0)
		close(self->fd);
	if (!access(EV67_PARAM, W_OK))
		EXPECT_EQ(0, write_file(EV67_PARAM, "N"));
}

TEST_F(ev67, ret_inst_and_cycles)
{
	struct pfcntrs_ev6 f[MAXCPU], t[MAXCPU];

	NEED_FAKEPMU();
	self->fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ev6_start(self->fd, PF67_RET_INST_AND_CYCLES));
	ASSERT_EQ(0, inject(1, EV_INS, P6 + 11));
	ASSERT_EQ(0, inject(1, EV_CYC, 2 * P6 + 22));
	ASSERT_EQ(0, get6(self->fd, PCNT6READCNTRS, f));
	EXPECT_EQ(P6 + 11, f[0].pf_cntr0);
	EXPECT_EQ(2 * P6 + 22, f[0].pf_cntr1);
	ASSERT_EQ(0, get6(self->fd, PCNT6GETCNT, t));
	EXPECT_EQ(1, t[0].pf_cntr0);
	EXPECT_EQ(2, t[0].pf_cntr1);
}

TEST_F(ev67, ret_inst_and_bcache_miss)
{
	struct pfcntrs_ev6 f[MAXCPU];

	NEED_FAKEPMU();
	self->fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, self->fd);
	/* The parameter is read at open. */
	ASSERT_EQ(0, write_file(EV67_PARAM, "N"));
	ASSERT_EQ(0, ev6_start(self->fd, PF67_RET_INST_AND_BCACHE_MISS));
	ASSERT_EQ(0, inject(2, EV_LLCM, 3 * P6 + 5));
	ASSERT_EQ(0, inject(2, EV_INS, 6));
	ASSERT_EQ(0, inject(2, EV_BR, 7));
	ASSERT_EQ(0, get6(self->fd, PCNT6READCNTRS, f));
	EXPECT_EQ(6, f[0].pf_cntr0);
	EXPECT_EQ(3 * P6 + 5, f[0].pf_cntr1);
}

TEST_F(ev67, cycles_and_undefined)
{
	struct pfcntrs_ev6 f[MAXCPU];

	NEED_FAKEPMU();
	self->fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ev6_start(self->fd, PF67_CYCLES_AND_UNDEFINED));
	ASSERT_EQ(0, inject(0, EV_CYC, 123));
	ASSERT_EQ(0, inject(0, EV_BR, 45));
	ASSERT_EQ(0, inject(0, EV_INS, 67));
	ASSERT_EQ(0, get6(self->fd, PCNT6READCNTRS, f));
	EXPECT_EQ(123, f[0].pf_cntr0);
	EXPECT_EQ(0, f[0].pf_cntr1);
}

TEST_F(ev67, refused_values)
{
	NEED_FAKEPMU();
	self->fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, self->fd);
	EXPECT_ERR(EINVAL, req_long(self->fd, PCNT6MUX, PF67_PROFILE_ME_MODE));
	EXPECT_ERR(EINVAL, req_long(self->fd, PCNT6MUX, PF67_CYCLES_AND_REPLAY_TRAPS));
	EXPECT_ERR(EINVAL, req_long(self->fd, PCNT6MUX, PF67_RET_INST_AND_CYCLES | 0x01));
	EXPECT_ERR(EINVAL, set_items(self->fd, PFM_COUNTERS |
				     (PF67_PM_RETIRE << PFM_PROFME_MODE_SHIFT)));
}

/* Without EV67, value 0x00 is EV6's cycles on both counters. */
TEST(ev6_value_zero_is_cycles_on_both)
{
	struct pfcntrs_ev6 f[MAXCPU];
	int fd, ev67 = 0;
	char buf[8] = "";
	FILE *fp;

	NEED_FAKEPMU();
	fp = fopen(EV67_PARAM, "r");
	if (fp) {
		if (fgets(buf, sizeof(buf), fp))
			ev67 = buf[0] == 'Y';
		fclose(fp);
	}
	ASSERT_EQ(0, ev67) TH_LOG("pfcntr_ev67 left on");
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev6_start(fd, 0x00));
	ASSERT_EQ(0, inject(1, EV_CYC, 1000));
	ASSERT_EQ(0, inject(1, EV_INS, 50));
	ASSERT_EQ(0, inject(1, EV_LLCM, 60));
	ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f));
	EXPECT_EQ(1000, f[0].pf_cntr0);
	EXPECT_EQ(1000, f[0].pf_cntr1);
	close(fd);
	/* EV6 has no mux1 event 8: EV67 value 0x08 is refused */
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	EXPECT_ERR(EINVAL, req_long(fd, PCNT6MUX, PF67_RET_INST_AND_BCACHE_MISS));
	close(fd);
}

/* ====================================================================== */
/* ABI: the header's layouts and numbers                                   */
/* ====================================================================== */

TEST(abi_header_layout)
{
	/* Open modes: O_NOCTTY and O_EXCL, not Tru64's values. */
	EXPECT_EQ(O_NOCTTY, PCNTOPENONE);
	EXPECT_EQ(O_EXCL, PCNTOPENEACH);
	EXPECT_EQ(O_NOCTTY | O_EXCL, PCNTOPENALL);
	EXPECT_EQ(PCNTOPENALL, PCNTOPENMASK);

	EXPECT_EQ(8, sizeof(struct iccsr));
	EXPECT_EQ(24, sizeof(struct pfcntrs));
	EXPECT_EQ(16, offsetof(struct pfcntrs, pr_cycle));
	EXPECT_EQ(32, sizeof(struct pfcntrs_ev5));
	EXPECT_EQ(0, offsetof(struct pfcntrs_ev5, pr_cycle));
	EXPECT_EQ(24, offsetof(struct pfcntrs_ev5, pf_cntr2));
	EXPECT_EQ(24, sizeof(struct pfcntrs_ev6));
	EXPECT_EQ(16, offsetof(struct pfcntrs_ev6, pf_cntr1));
	EXPECT_EQ(72, sizeof(struct pfipls));
	EXPECT_EQ(16, sizeof(struct addr_range));
	EXPECT_EQ(32, sizeof(addr_range_t));
	EXPECT_EQ(8, sizeof(union pmctrs_ev5));
	EXPECT_EQ(8, sizeof(union pmctrs_ev6));

	/* Image bit positions */
	EXPECT_EQ(0xabULL << 56, img6(0, 0xab, 0, 0));
	EXPECT_EQ(0xfffffULL << 28, img6(0, 0, 0xfffff, 0));
	EXPECT_EQ(0xfffffULL << 6, img6(0, 0, 0, 0xfffff));
	EXPECT_EQ(3ULL, img6(3, 0, 0, 0));
	EXPECT_EQ(7ULL, img5(7, 0, 0, 0, 0));
	EXPECT_EQ(0xabULL << 8, img5(0, 0xab, 0, 0, 0));
	EXPECT_EQ(0xffffULL << 48, img5(0, 0, 0xffff, 0, 0));
	EXPECT_EQ(0xffffULL << 32, img5(0, 0, 0, 0xffff, 0));
	EXPECT_EQ(0x3fffULL << 16, img5(0, 0, 0, 0, 0x3fff));
	EXPECT_EQ(PFCNTR_EV6_IMAGE(2, 5, 77, 88), img6(2, 5, 77, 88));
	EXPECT_EQ(PFCNTR_EV5_IMAGE(5, 3, 1, 2, 3), img5(5, 3, 1, 2, 3));
	EXPECT_EQ(0xaULL << 8, iccsr_val(0xa, 0, 0, 0, 0));
	EXPECT_EQ(0x7ULL << 32, iccsr_val(0, 7, 0, 0, 0));
	EXPECT_EQ(1ULL << 3, iccsr_val(0, 0, 1, 0, 0));
	EXPECT_EQ(1ULL, iccsr_val(0, 0, 0, 1, 0));
	EXPECT_EQ(3ULL << 35, iccsr_val(0, 0, 0, 0, 3));

	/* ioctl numbers: group 'P', Tru64's numbers, directions and sizes */
	EXPECT_EQ(_IO('P', 0), PCNTRDISABLE);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 2, 8), PCNTSETMUX);
	EXPECT_EQ(_IO('P', 5), PCNTCLEARCNT);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 6, 8), PCNTGETCNT);
	EXPECT_EQ(_IOC(_IOC_READ, 'P', 10, 8), PCNTGETRSIZE);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 11, 8), PCNTGETIPLHIS);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 31, 8), PCNTSETITEMS);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 32, 16), PCNTSETUADDR);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 35, 32), PCNTSETKRANGE);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 40, 8), PCNT5CTXTS);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 43, 8), PCNT5DISABLE);
	EXPECT_EQ(_IOC(_IOC_READ | _IOC_WRITE, 'P', 48, 8), PCNT5GETCNTRS);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 50, 8), PCNT5READCNTRS);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 52, 8), PCNT6ENABWRITE);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 57, 8), PCNT6SETCNTRS);
	EXPECT_EQ(_IOC(_IOC_READ | _IOC_WRITE, 'P', 58, 8), PCNT6GETCNTRS);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'P', 60, 8), PCNT6READCNTRS);
}

/* ====================================================================== */
/* Event mapping (test PMU, Intel layout)                                  */
/* ====================================================================== */

struct mapping {
	const char *name;
	__u64 value;		/* mux value (EV4: mux0 or mux1 field) */
	unsigned int code;	/* inject code; 0: not available (EINVAL) */
};

#define M(n, c) { #n, n, c }

static const struct mapping ev4_mux0_map[] = {
	M(PF_ISSUES, EV_INS), M(PF_PIPEDRY, 0), M(PF_LOADI, 0x81d0),
	M(PF_PIPEFROZEN, 0), M(PF_BRANCHI, EV_BR), M(PF_CYCLES, EV_CYC),
	M(PF_PALMODE, 0), M(PF_NONISSUES, 0), M(PF_EXTPIN0, 0),
};

static const struct mapping ev4_mux1_map[] = {
	M(PF_DCACHE, 0x0151), M(PF_ICACHE, 0x0283), M(PF_DUAL, 0),
	M(PF_BRANCHMISS, EV_BRM), M(PF_FPINST, 0), M(PF_INTOPS, 0),
	M(PF_STOREI, 0x82d0), M(PF_EXTPIN1, 0),
};

static const struct mapping ev5_mux0_map[] = {
	M(PF5_MUX0_CYCLES, EV_CYC), M(PF5_MUX0_ISSUES, EV_INS),
};

static const struct mapping ev5_mux1_map[] = {
	M(PF5_MUX1_NON_ISSUE_CYCLES, 0), M(PF5_MUX1_SPLIT_ISSUE_CYCLES, 0),
	M(PF5_MUX1_PIPELINE_DRY, 0),	/* stalled-fe: not on Intel */
	M(PF5_MUX1_REPLAY_TRAP, 0), M(PF5_MUX1_SINGLE_ISSUE_CYCLES, 0),
	M(PF5_MUX1_DUAL_ISSUE_CYCLES, 0), M(PF5_MUX1_TRIPLE_ISSUE_CYCLES, 0),
	M(PF5_MUX1_QUAD_ISSUE_CYCLES, 0), M(PF5_MUX1_FLOW_CHANGE, EV_BR),
	M(PF5_MUX1_INTEGER_OPERATE, 0), M(PF5_MUX1_C_FP_INSTRUCTIONS, 0),
	M(PF5_MUX1_C_LOAD_INSTRUCTIONS, 0x81d0), M(PF5_MUX1_C_STORE_INSTRUCTIONS, 0x82d0),
	M(PF5_MUX1_C_ICACHE_ACCESS, 0),	/* L1I-rd-acc: not on Intel */
	M(PF5_MUX1_C_DCACHE_ACCESS, 0x81d0), M(PF5_MUX1_C_SCACHE_ACCESS, 0x4f2e),
	M(PF5_MUX1_C_SCACHE_READ, 0x01b7), M(PF5_MUX1_C_SCACHE_WRITE, 0x01b7),
	M(PF5_MUX1_C_SCACHE_VICTIM, 0), M(PF5_MUX1_C_BCACHE_REF, 0),
	M(PF5_MUX1_C_BCACHE_VICTIM, 0), M(PF5_MUX1_C_SYS_REQ, 0),
};

static const struct mapping ev5_mux2_map[] = {
	M(PF5_MUX2_C_LONG_STALLS, 0), M(PF5_MUX2_C_PC_MISPR, 0),
	M(PF5_MUX2_C_BRANCH_MISPREDICTS, EV_BRM), M(PF5_MUX2_C_ICACHE_MISSES, 0x0283),
	M(PF5_MUX2_C_ITB_MISS, 0x0e85), M(PF5_MUX2_C_DCACHE_MISSES, 0x0151),
	M(PF5_MUX2_C_DTB_MISS, 0x0e08), M(PF5_MUX2_C_LOADS_MERGED, 0),
	M(PF5_MUX2_C_LDU_REPLAYS, 0), M(PF5_MUX2_C_WB_MAF_FULL_REPLAYS, 0),
	M(PF5_MUX2_C_EXTERNAL, 0), M(PF5_MUX2_C_CYCLES, EV_CYC),
	M(PF5_MUX2_C_MEM_BARRIER, 0), M(PF5_MUX2_C_LOAD_LOCKED, 0),
	M(PF5_MUX2_C_SCACHE_MISS, EV_LLCM), M(PF5_MUX2_C_SCACHE_READ_MISS, 0x01b7),
	M(PF5_MUX2_C_SCACHE_WRITE_MISS, 0x01b7), M(PF5_MUX2_C_SCACHE_SH_WRITE, 0),
	M(PF5_MUX2_C_SCACHE_WRITE, 0), M(PF5_MUX2_C_BCACHE_MISS, 0),
	M(PF5_MUX2_C_SYS_INV, 0), M(PF5_MUX2_C_SYS_READ_REQ, 0),
};

static const struct mapping ev6_mux0_map[] = {
	M(PF6_MUX0_CYCLES, EV_CYC), M(PF6_MUX0_RET_INSTRUCTIONS, EV_INS),
};

static const struct mapping ev6_mux1_map[] = {
	M(PF6_MUX1_CYCLES, EV_CYC), M(PF6_MUX1_RET_COND_BRANCHES, EV_BR),
	M(PF6_MUX1_RET_BRANCH_MISPREDICTS, EV_BRM), M(PF6_MUX1_RET_DTB_SINGLE_MISSES, 0x0e08),
	M(PF6_MUX1_RET_DTB_DOUBLE_MISSES, 0), M(PF6_MUX1_RET_ITB_MISSES, 0x0e85),
	M(PF6_MUX1_RET_UNALIGNED_TRAPS, 0), M(PF6_MUX1_REPLAY_TRAP, 0),
};

#define NMAP(a) (sizeof(a) / sizeof(a[0]))

/* EV4: the other counter off (iccsr_disable); 3 periods + 1 of the event: 3 ticks. */
TEST(ev4_event_mapping)
{
	struct pfcntrs t[MAXCPU];
	unsigned int i, ctr;
	int fd;

	NEED_FAKEPMU();
	for (ctr = 0; ctr < 2; ctr++) {
		const struct mapping *m = ctr ? ev4_mux1_map : ev4_mux0_map;
		unsigned int n = ctr ? NMAP(ev4_mux1_map) : NMAP(ev4_mux0_map);

		for (i = 0; i < n; i++) {
			__u64 iccsr = ctr ? iccsr_val(PF_CYCLES, m[i].value, 0, 1, 1) :
					    iccsr_val(m[i].value, PF_DCACHE, 1, 0, 2);
			char cmd[96];

			fd = pf_open(PCNTOPENALL);
			ASSERT_LE(0, fd);
			if (!m[i].code) {
				EXPECT_EQ(EINVAL, ERRNO_OF(ev4_mux(fd, iccsr)))
				TH_LOG("%s", m[i].name);
				close(fd);
				continue;
			}
			ASSERT_EQ(0, ev4_mux(fd, iccsr)) TH_LOG("%s: %s", m[i].name, strerror(errno));
			ASSERT_EQ(0, ioctl(fd, PCNTRENABLE));
			snprintf(cmd, sizeof(cmd), "cpu=1 event=0x%x count=%u", m[i].code,
				 3 * (ctr ? 256 : 4096) + 1);
			ASSERT_EQ(0, inject_raw(cmd));
			ASSERT_EQ(0, get4(fd, t));
			EXPECT_EQ(3, ctr ? t[0].pf_cntr1 : t[0].pf_cntr0) TH_LOG("%s", m[i].name);
			EXPECT_EQ(0, ctr ? t[0].pf_cntr0 : t[0].pf_cntr1) TH_LOG("%s", m[i].name);
			close(fd);
		}
	}
}

/* EV5/EV6: one counter under test, the others on available events. */
static void mapping_check(struct __test_metadata *_metadata, int ev5, unsigned int ctr,
			  const struct mapping *m, unsigned int n)
{
	static const __u64 fill5[3] = { PF5_MUX0_CYCLES, PF5_MUX1_FLOW_CHANGE, PF5_MUX2_C_CYCLES };
	struct pfcntrs_ev5 f5[MAXCPU];
	struct pfcntrs_ev6 f6[MAXCPU];
	unsigned int i, k;
	__u64 mux, got;
	char cmd[96];
	int fd;

	for (i = 0; i < n; i++) {
		if (ev5) {
			mux = m[i].value;
			for (k = 0; k < 3; k++)
				if (k != ctr)
					mux |= fill5[k];
		} else {
			mux = ctr ? (PF6_MUX0_CYCLES | m[i].value) :
				    (m[i].value | PF6_MUX1_RET_COND_BRANCHES);
		}
		fd = pf_open(PCNTOPENALL);
		ASSERT_LE(0, fd);
		if (!m[i].code) {
			/* an EV5 field left 0: refused when the counter is selected */
			EXPECT_EQ(EINVAL, ERRNO_OF(ev5 ? ev5_start(fd, mux) :
						   req_long(fd, PCNT6MUX, mux)))
				TH_LOG("%s", m[i].name);
			close(fd);
			continue;
		}
		ASSERT_EQ(0, ev5 ? ev5_start(fd, mux) : ev6_start(fd, mux))
			TH_LOG("%s: %s", m[i].name, strerror(errno));
		snprintf(cmd, sizeof(cmd), "cpu=1 event=0x%x count=%u", m[i].code, 1000 + i);
		ASSERT_EQ(0, inject_raw(cmd));
		if (ev5) {
			ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f5));
			got = ctr == 0 ? f5[0].pf_cntr0 : ctr == 1 ? f5[0].pf_cntr1 : f5[0].pf_cntr2;
		} else {
			ASSERT_EQ(0, get6(fd, PCNT6READCNTRS, f6));
			got = ctr ? f6[0].pf_cntr1 : f6[0].pf_cntr0;
		}
		EXPECT_EQ(1000 + i, got) TH_LOG("%s (code %#x)", m[i].name, m[i].code);
		close(fd);
	}
}

TEST(ev5_event_mapping)
{
	NEED_FAKEPMU();
	mapping_check(_metadata, 1, 0, ev5_mux0_map, NMAP(ev5_mux0_map));
	mapping_check(_metadata, 1, 1, ev5_mux1_map, NMAP(ev5_mux1_map));
	mapping_check(_metadata, 1, 2, ev5_mux2_map, NMAP(ev5_mux2_map));
}

TEST(ev6_event_mapping)
{
	NEED_FAKEPMU();
	mapping_check(_metadata, 0, 0, ev6_mux0_map, NMAP(ev6_mux0_map));
	mapping_check(_metadata, 0, 1, ev6_mux1_map, NMAP(ev6_mux1_map));
}

/* ====================================================================== */
/* EV5 contexts (LOGALL: PF5_CTXT_ALL_PROC with the mode bits)             */
/* ====================================================================== */

TEST(ev5_context_modes)
{
	static const struct { const char *name; long v; int user, kernel; } t[] = {
		{ "ALL_MODES", PF5_CTXT_ALL_MODES, 1, 1 },
		{ "USER", PF5_CTXT_USER, 1, 0 },
		{ "EXEC_AND_SUPER", PF5_CTXT_EXEC_AND_SUPER, 1, 0 },
		{ "KERNEL", PF5_CTXT_KERNEL, 0, 1 },
		{ "USER_AND_KERNEL", PF5_CTXT_USER_AND_KERNEL, 1, 1 },
		{ "USER_AND_PAL", PF5_CTXT_USER_AND_PAL, 1, 0 },
		{ "PAL_AND_KERNEL", PF5_CTXT_PAL_AND_KERNEL, 0, 1 },
	};
	struct pfcntrs_ev5 f[MAXCPU];
	unsigned int i;
	int fd;

	NEED_FAKEPMU();
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		fd = pf_open(PCNTOPENALL);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
				      PF5_MUX2_C_CYCLES));
		ASSERT_EQ(0, req_long(fd, PCNT5CTXTS, PF5_CTXT_ALL_PROC | t[i].v))
			TH_LOG("%s: %s", t[i].name, strerror(errno));
		ASSERT_EQ(0, req_img(fd, PCNT5RESTART, img5(7, PMCTRS_ALL_CPUS, 0, 0, 0)));
		ASSERT_EQ(0, inject_raw("cpu=1 event=0xc0 count=100 mode=user"));
		ASSERT_EQ(0, inject_raw("cpu=1 event=0xc0 count=1000 mode=kernel"));
		ASSERT_EQ(0, inject_raw("cpu=2 event=0x3c count=20 mode=user"));
		ASSERT_EQ(0, inject_raw("cpu=2 event=0x3c count=300 mode=kernel"));
		ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
		EXPECT_EQ((t[i].user ? 100 : 0) + (t[i].kernel ? 1000 : 0), f[0].pf_cntr0)
			TH_LOG("%s", t[i].name);
		EXPECT_EQ((t[i].user ? 20 : 0) + (t[i].kernel ? 300 : 0), f[0].pf_cntr2)
			TH_LOG("%s", t[i].name);
		close(fd);
	}
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
			      PF5_MUX2_C_CYCLES));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5CTXTS, PF5_CTXT_PAL));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5CTXTS, PF5_CTXT_NO_USER | PF5_CTXT_NO_KERNEL));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT5CTXTS, 4));
	close(fd);
}

/*
 * The design names PCNT5FREQ and PCNT5CTXTS among the calls that can be the
 * first configuration call (they fix the EV5 family): before any PCNT5MUX.
 */
TEST(ev5_freq_and_ctxts_before_mux)
{
	struct pfcntrs_ev5 f[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, req_long(fd, PCNT5CTXTS, PF5_CTXT_ALL_PROC | PF5_CTXT_ALL_MODES))
		TH_LOG("PCNT5CTXTS first: %s", strerror(errno));
	EXPECT_ERR(EINVAL, req_long(fd, PCNT6MUX, PF6_MUX0_CYCLES));	/* EV5 fixed */
	close(fd);

	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, req_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_256 | PF5_C1_INT_EVERY_65536 |
			      PF5_C2_INT_EVERY_16384))
		TH_LOG("PCNT5FREQ first: %s", strerror(errno));
	ASSERT_EQ(0, ev5_start(fd, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES));
	ASSERT_EQ(0, inject(1, EV_INS, 1000));
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, f));
	EXPECT_EQ(1000 / 256, f[0].pf_cntr0) TH_LOG("the frequency set before the mux");
	close(fd);
}

#ifdef __x86_64__
/* 32-bit EV5: PF5_MUX0_ISSUES is bit 31, a negative 32-bit long. */
#define PCNT5MUX32		_IOC(_IOC_WRITE, 'P', 41, 4)
#define PCNT5FREQ32		_IOC(_IOC_WRITE, 'P', 42, 4)
#define PCNT5RESTART32		_IOC(_IOC_WRITE, 'P', 46, 4)
#define PCNT5GETCNTRS32		_IOC(_IOC_READ | _IOC_WRITE, 'P', 48, 4)
#define PCNT5READCNTRS32	_IOC(_IOC_WRITE, 'P', 50, 4)

TEST(compat_32_bit_ev5)
{
	struct pfcntrs_ev5 *arr;
	__u32 *l32, *ptr32;
	__u64 *img;
	char *low;
	int fd;

	NEED_FAKEPMU();
	if (!have_ia32())
		SKIP(return, "no 32-bit system call entry (IA32 emulation)");
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, low);
	memset(low, 0xa5, 4096);
	l32 = (__u32 *)low;
	img = (__u64 *)(low + 16);
	ptr32 = (__u32 *)(low + 32);
	arr = (struct pfcntrs_ev5 *)(low + 64);

	/* A mux that is positive as a 32-bit long */
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	l32[0] = PF5_MUX0_CYCLES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_BRANCH_MISPREDICTS;
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT5MUX32, l32));
	l32[0] = PF5_C0_INT_EVERY_256 | PF5_C1_INT_EVERY_65536 | PF5_C2_INT_EVERY_256;
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT5FREQ32, l32));
	*img = img5(7, PMCTRS_ALL_CPUS, 0, 0, 0);
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT5RESTART32, img));
	ASSERT_EQ(0, inject(1, EV_CYC, 1000));
	ASSERT_EQ(0, inject(1, EV_BR, 2000));
	ASSERT_EQ(0, inject(1, EV_BRM, 3000));
	*ptr32 = (__u32)(unsigned long)arr;
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT5READCNTRS32, ptr32));
	EXPECT_EQ(1000, arr[0].pf_cntr0);
	EXPECT_EQ(2000, arr[0].pf_cntr1);
	EXPECT_EQ(3000, arr[0].pf_cntr2);
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, arr[1].pr_cycle);
	*img = img5(7, 1, 0, 0, 0);
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT5GETCNTRS32, img));
	EXPECT_EQ(1000 % 256, PFCNTR_EV5_C0(*img));
	EXPECT_EQ(2000, PFCNTR_EV5_C1(*img));
	EXPECT_EQ(3000 % 256, PFCNTR_EV5_C2(*img));
	EXPECT_EQ(1, PFCNTR_EV5_CPU(*img));
	EXPECT_EQ(7, PFCNTR_EV5_SEL(*img));
	close(fd);

	/* What a 32-bit program's long mux = PF5_MUX0_ISSUES | ... holds: bit 31 set */
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	l32[0] = (__u32)(PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_BRANCH_MISPREDICTS);
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT5MUX32, l32)) TH_LOG("PF5_MUX0_ISSUES from a 32-bit long");
	*img = img5(7, PMCTRS_ALL_CPUS, 0, 0, 0);
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT5RESTART32, img));
	ASSERT_EQ(0, inject(1, EV_INS, 4000));
	ASSERT_EQ(0, inject(1, EV_CYC, 5));
	EXPECT_EQ(0, ia32_ioctl(fd, PCNT5READCNTRS32, ptr32));
	EXPECT_EQ(4000, arr[0].pf_cntr0);
	close(fd);
	munmap(low, 4096);
}
#else
TEST(compat_32_bit_ev5)
{
	SKIP(return, "32-bit x86 callers (int $0x80): x86-64 only");
}
#endif /* __x86_64__ */

/* Ticks come from the exact count: none lost to perf's interrupt throttling. */
TEST(ticks_not_lost_to_throttling)
{
	struct pfcntrs_ev5 t[MAXCPU], f[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, req_long(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
			      PF5_MUX2_C_CYCLES));
	ASSERT_EQ(0, req_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_256 | PF5_C1_INT_EVERY_65536 |
			      PF5_C2_INT_EVERY_16384));
	ASSERT_EQ(0, req_img(fd, PCNT5RESTART, img5(7, PMCTRS_ALL_CPUS, 0, 0, 0)));
	ASSERT_EQ(0, inject(1, EV_INS, 256ULL * 200000 + 17));
	ASSERT_EQ(0, inject(1, EV_INS, 256ULL * 100000));
	ASSERT_EQ(0, get5(fd, PCNT5GETCNT, t));
	EXPECT_EQ(300000, t[1].pf_cntr0);
	ASSERT_EQ(0, get5(fd, PCNT5READCNTRS, f));
	EXPECT_EQ(256ULL * 300000 + 17, f[1].pf_cntr0);
	close(fd);
}

/* EV4: CLEARCNT zeroes the ticks; counting continues from the raw value. */
TEST(ev4_clearcnt)
{
	struct pfcntrs t[MAXCPU];
	int fd;

	NEED_FAKEPMU();
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ev4_mux(fd, iccsr_val(PF_ISSUES, PF_BRANCHMISS, 1, 1, 0)));
	ASSERT_EQ(0, ioctl(fd, PCNTRENABLE));
	ASSERT_EQ(0, inject(2, EV_INS, 5 * 4096 + 4000));
	ASSERT_EQ(0, inject(2, EV_BRM, 7 * 256 + 200));
	ASSERT_EQ(0, get4(fd, t));
	EXPECT_EQ(5, t[0].pf_cntr0);
	EXPECT_EQ(7, t[0].pf_cntr1);
	ASSERT_EQ(0, ioctl(fd, PCNTCLEARCNT));
	ASSERT_EQ(0, get4(fd, t));
	EXPECT_EQ(0, t[0].pf_cntr0);
	EXPECT_EQ(0, t[0].pf_cntr1);
	ASSERT_EQ(0, inject(2, EV_INS, 96));
	ASSERT_EQ(0, inject(2, EV_BRM, 55));
	ASSERT_EQ(0, get4(fd, t));
	EXPECT_EQ(1, t[0].pf_cntr0);
	EXPECT_EQ(0, t[0].pf_cntr1);
	ASSERT_EQ(0, ioctl(fd, PCNTRDISABLE));
	ASSERT_EQ(0, inject(2, EV_BRM, 1000));
	ASSERT_EQ(0, get4(fd, t));
	EXPECT_EQ(0, t[0].pf_cntr1);
	close(fd);
}

TEST_HARNESS_MAIN
