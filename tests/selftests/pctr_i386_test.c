// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pctr in the 1998 OpenBSD i386 form (pctr.h 1.9): PCTR_NUM 2, the
 * 40-byte struct pctrst with pctr_idl, P6CTR_* names, and Pentium (P5)
 * control words.  Built twice: natively and with -m32 (static), both with
 * -DPCTR_I386_1998, as a program of that time is built today.
 * Self-contained (no libkmod): the 32-bit build has no 32-bit libraries.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <machine/pctr.h>

#include "kselftest_harness.h"

#define INJECT		"/sys/kernel/debug/fakepmu/inject"
#define CPU		1
#define EV_INSTR	0xc0	/* INST_RETIRED.ANY_P */
#define EV_BRANCH	0xc4	/* BR_INST_RETIRED.ALL_BRANCHES */

static int inject(int cpu, unsigned int event, unsigned long long count)
{
	char cmd[128];
	int fd, n;

	snprintf(cmd, sizeof(cmd), "cpu=%d event=0x%x count=%llu mode=user ip=0x0\n",
		 cpu, event, count);
	fd = open(INJECT, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	close(fd);
	return n == (int)strlen(cmd) ? 0 : -EIO;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int set_ctr(int fd, int n, unsigned int fn)
{
	return ioctl(fd, n ? PCIOCS1 : PCIOCS0, &fn) ? -errno : 0;
}

FIXTURE(pctr98) {
	int fd;
};

FIXTURE_SETUP(pctr98)
{
	if (access(INJECT, W_OK))
		SKIP(return, "needs the test PMU tests/fakepmu (not loaded)");
	if (sysconf(_SC_NPROCESSORS_ONLN) <= CPU)
		SKIP(return, "needs CPU %d", CPU);
	self->fd = open(_PATH_PCTR, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("%s: %s", _PATH_PCTR, strerror(errno));
	ASSERT_EQ(0, pin(CPU));
}

FIXTURE_TEARDOWN(pctr98)
{
	if (self->fd >= 0) {
		EXPECT_EQ(0, set_ctr(self->fd, 0, 0));
		EXPECT_EQ(0, set_ctr(self->fd, 1, 0));
		close(self->fd);
	}
}

TEST(layout_of_the_1998_form)
{
	EXPECT_EQ(2, PCTR_NUM);
	EXPECT_EQ(40, (int)sizeof(struct pctrst));
	EXPECT_EQ(8, (int)offsetof(struct pctrst, pctr_tsc));
	EXPECT_EQ(16, (int)offsetof(struct pctrst, pctr_hwc));
	EXPECT_EQ(32, (int)offsetof(struct pctrst, pctr_idl));
	/* Linux's _IOR('c', 1, 40 bytes); OpenBSD's was 0x40286301. */
	EXPECT_EQ(0x80286301UL, (unsigned long)PCIOCRD);
	EXPECT_EQ(0x40046308UL, (unsigned long)PCIOCS0);
	EXPECT_EQ(0x40046309UL, (unsigned long)PCIOCS1);
	EXPECT_EQ(0x10000, P6CTR_U);
	EXPECT_EQ(0x80, P5CTR_U);
}

TEST_F(pctr98, p6_words_count_exactly)
{
	unsigned int f0 = EV_INSTR | P6CTR_U | P6CTR_EN, f1 = EV_BRANCH | P6CTR_U | P6CTR_EN;
	struct pctrst st;

	ASSERT_EQ(0, set_ctr(self->fd, 0, f0));
	ASSERT_EQ(0, set_ctr(self->fd, 1, f1));
	ASSERT_EQ(0, inject(CPU, EV_INSTR, 1000));
	ASSERT_EQ(0, inject(CPU, EV_BRANCH, 30));
	memset(&st, 0xa5, sizeof(st));
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	EXPECT_EQ(f0, st.pctr_fn[0]);
	EXPECT_EQ(f1, st.pctr_fn[1]);
	EXPECT_EQ(1000ULL, (unsigned long long)st.pctr_hwc[0]);
	EXPECT_EQ(30ULL, (unsigned long long)st.pctr_hwc[1]);
	EXPECT_NE(0ULL, (unsigned long long)st.pctr_tsc);
	/* Read-only descriptors read too; setting needs a writable one. */
	{
		int ro = open(_PATH_PCTR, O_RDONLY);

		ASSERT_LE(0, ro);
		EXPECT_EQ(0, ioctl(ro, PCIOCRD, &st));
		EXPECT_EQ(1000ULL, (unsigned long long)st.pctr_hwc[0]);
		EXPECT_EQ(-EPERM, set_ctr(ro, 0, f1));
		close(ro);
	}
}

TEST_F(pctr98, pentium_words_map_to_todays_events)
{
	struct pctrst st;

	/* 0x16 instructions executed, user; 0x12 branches, user and kernel. */
	ASSERT_EQ(0, set_ctr(self->fd, 0, 0x16 | P5CTR_U));
	ASSERT_EQ(0, set_ctr(self->fd, 1, 0x12 | P5CTR_U | P5CTR_K));
	ASSERT_EQ(0, inject(CPU, EV_INSTR, 500));
	ASSERT_EQ(0, inject(CPU, EV_BRANCH, 7));
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	EXPECT_EQ(0x16U | P5CTR_U, st.pctr_fn[0]);
	EXPECT_EQ(500ULL, (unsigned long long)st.pctr_hwc[0]);
	EXPECT_EQ(7ULL, (unsigned long long)st.pctr_hwc[1]);

	/* No equivalent today: cycle counting, bank conflicts (0x0a), FLOPs (0x22). */
	EXPECT_EQ(-EINVAL, set_ctr(self->fd, 0, 0x16 | P5CTR_U | P5CTR_C));
	EXPECT_EQ(-EINVAL, set_ctr(self->fd, 0, 0x0a | P5CTR_U));
	EXPECT_EQ(-EINVAL, set_ctr(self->fd, 0, 0x22 | P5CTR_K));
	/* Refused words change nothing. */
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	EXPECT_EQ(0x16U | P5CTR_U, st.pctr_fn[0]);
	EXPECT_EQ(500ULL, (unsigned long long)st.pctr_hwc[0]);
}

static unsigned long long tsc(void)
{
	unsigned int lo, hi;

	__asm__ __volatile__("rdtsc" : "=a" (lo), "=d" (hi));
	return ((unsigned long long)hi << 32) | lo;
}

/* CPU cpu's idle time in /proc/stat (USER_HZ ticks), or -1. */
static long long stat_idle(int cpu)
{
	char line[512], name[16];
	long long v[4];
	FILE *f = fopen("/proc/stat", "r");
	long long idle = -1;

	if (!f)
		return -1;
	snprintf(name, sizeof(name), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, strlen(name)) &&
		    sscanf(line + strlen(name), "%lld %lld %lld %lld",
			   &v[0], &v[1], &v[2], &v[3]) == 4)
			idle = v[3];
	fclose(f);
	return idle;
}

/*
 * pctr_idl: the reading CPU's idle time in TSC cycles (pctr(4)), from the
 * kernel's idle accounting, as /proc/stat's idle column: it grows when that
 * does (a debug kernel's own threads may keep the CPU busy for seconds),
 * never by more than the time passed, and hardly while the CPU is busy.
 */
TEST_F(pctr98, idle_counter_grows_while_the_cpu_idles)
{
	struct timespec ms100 = { 0, 100000000 };
	unsigned long long t0, t1, i0, i1, span;
	long long s0, s1;
	struct pctrst st;
	int naps = 0;

	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	i0 = st.pctr_idl;
	s0 = stat_idle(CPU);
	ASSERT_LE(0, s0);
	t0 = tsc();
	do {
		nanosleep(&ms100, NULL);
		s1 = stat_idle(CPU);
	} while (s1 < s0 + 2 && ++naps < 100);
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	i1 = st.pctr_idl;
	t1 = tsc();
	if (s1 < s0 + 2)
		SKIP(return, "CPU %d never idled for 10 s (/proc/stat)", CPU);
	EXPECT_LT(i0, i1) TH_LOG("/proc/stat idle grew by %lld ticks", s1 - s0);
	EXPECT_GE((t1 - t0) + (t1 - t0) / 10, i1 - i0)
		TH_LOG("idle %llu of %llu cycles", i1 - i0, t1 - t0);

	/* Busy as long: it hardly grows. */
	span = t1 - t0;
	i0 = i1;
	t0 = tsc();
	while (tsc() - t0 < span)
		;
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	t1 = tsc();
	EXPECT_GT((t1 - t0) / 2, st.pctr_idl - i0)
		TH_LOG("idle %llu of %llu busy cycles", (unsigned long long)st.pctr_idl - i0,
		       t1 - t0);
}

TEST_HARNESS_MAIN
