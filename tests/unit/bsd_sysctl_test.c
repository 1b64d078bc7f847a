// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of sysctl(3) in libpmcompat-bsd: every MIB it answers,
 * checked against the CPUID instruction and sysconf() directly, and the
 * BSD error semantics (size query, ENOMEM, EPERM, EOPNOTSUPP, ENOTDIR,
 * EINVAL).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/sysctl.h>
#include <machine/cpu.h>
#include <machine/specialreg.h>

#include "kselftest_harness.h"

struct regs {
	uint32_t a, b, c, d;
};

static struct regs cpuid(uint32_t leaf)
{
	struct regs r;

	__asm__ __volatile__("cpuid"
			     : "=a" (r.a), "=b" (r.b), "=c" (r.c), "=d" (r.d)
			     : "a" (leaf), "c" (0));
	return r;
}

static int has_leaf(uint32_t leaf)
{
	return cpuid(leaf & 0x80000000).a >= leaf;
}

static void vendor(char v[13])
{
	struct regs r = cpuid(0);

	memcpy(v, &r.b, 4);
	memcpy(v + 4, &r.d, 4);
	memcpy(v + 8, &r.c, 4);
	v[12] = '\0';
}

/* Expected TSC frequency, or 0 if no source knows it. */
static uint64_t expected_tsc_hz(void)
{
	unsigned long long khz;
	struct regs r;
	char v[13];
	FILE *f;

	if (has_leaf(0x15)) {
		r = cpuid(0x15);
		if (r.a && r.b && r.c)
			return (uint64_t)r.c * r.b / r.a;
	}
	if (cpuid(1).c & (1U << 31)) {
		r = cpuid(0x40000000);
		if (r.a >= 0x40000010 && r.a < 0x40010000 &&
		    cpuid(0x40000010).a)
			return (uint64_t)cpuid(0x40000010).a * 1000;
	}
	vendor(v);
	if (!strcmp(v, "GenuineIntel") && has_leaf(0x16) &&
	    (cpuid(0x16).a & 0xffff))
		return (uint64_t)(cpuid(0x16).a & 0xffff) * 1000000;
	f = fopen("/sys/devices/system/cpu/cpu0/tsc_freq_khz", "r");
	if (f) {
		if (fscanf(f, "%llu", &khz) != 1)
			khz = 0;
		fclose(f);
		return khz * 1000;
	}
	return 0;
}

static int get(int top, int node, void *buf, size_t *len)
{
	int mib[2] = { top, node };

	return sysctl(mib, 2, buf, len, NULL, 0);
}

static int get_int(int top, int node, int *val)
{
	size_t len = sizeof(*val);
	int ret = get(top, node, val, &len);

	if (ret == 0 && len != sizeof(*val))
		return -2;
	return ret;
}

/* All the leaves that are answered, with their size (0: string). */
static const struct {
	int top, node;
	size_t size;
} answered[] = {
	{ CTL_HW, HW_MACHINE, 0 },
	{ CTL_HW, HW_MODEL, 0 },
	{ CTL_HW, HW_NCPU, sizeof(int) },
	{ CTL_HW, HW_BYTEORDER, sizeof(int) },
	{ CTL_HW, HW_PAGESIZE, sizeof(int) },
	{ CTL_MACHDEP, CPU_CPUVENDOR, 0 },
	{ CTL_MACHDEP, CPU_CPUID, sizeof(int) },
	{ CTL_MACHDEP, CPU_CPUFEATURE, sizeof(int) },
	{ CTL_MACHDEP, CPU_INVARIANTTSC, sizeof(int) },
	{ CTL_MACHDEP, CPU_TSCFREQ, sizeof(uint64_t) },
};

#define N_ANSWERED	ARRAY_SIZE(answered)

static int tsc_known(void)
{
	return expected_tsc_hz() != 0;
}

TEST(mib_numbers)
{
	ASSERT_EQ(0, CTL_UNSPEC);
	ASSERT_EQ(1, CTL_KERN);
	ASSERT_EQ(6, CTL_HW);
	ASSERT_EQ(7, CTL_MACHDEP);
	ASSERT_EQ(1, HW_MACHINE);
	ASSERT_EQ(2, HW_MODEL);
	ASSERT_EQ(3, HW_NCPU);
	ASSERT_EQ(4, HW_BYTEORDER);
	ASSERT_EQ(7, HW_PAGESIZE);
	ASSERT_EQ(6, CPU_CPUVENDOR);
	ASSERT_EQ(7, CPU_CPUID);
	ASSERT_EQ(8, CPU_CPUFEATURE);
	ASSERT_EQ(16, CPU_TSCFREQ);
	ASSERT_EQ(17, CPU_INVARIANTTSC);
	ASSERT_EQ(20, CPU_MAXID);
	ASSERT_EQ(0x10, CPUID_TSC);
	ASSERT_EQ(0x20, CPUID_MSR);
}

TEST(hw_machine)
{
	char buf[32];
	size_t len = sizeof(buf);

	ASSERT_EQ(0, get(CTL_HW, HW_MACHINE, buf, &len));
	ASSERT_EQ(6, len);
	ASSERT_STREQ("amd64", buf);
}

TEST(hw_model)
{
	char buf[64], brand[49] = "", *p;
	size_t len = sizeof(buf), n;
	struct regs r;
	int i;

	if (has_leaf(0x80000004)) {
		for (i = 0; i < 3; i++) {
			r = cpuid(0x80000002 + i);
			memcpy(brand + 16 * i, &r, 16);
		}
		brand[48] = '\0';
	}
	for (p = brand; *p == ' '; p++)
		;
	n = strlen(p);
	while (n && p[n - 1] == ' ')
		p[--n] = '\0';
	if (!n) {
		vendor(brand);
		p = brand;
	}

	ASSERT_EQ(0, get(CTL_HW, HW_MODEL, buf, &len));
	ASSERT_STREQ(p, buf);
	ASSERT_EQ(strlen(p) + 1, len);
	TH_LOG("hw.model = %s", buf);
}

TEST(hw_ints)
{
	int v;

	ASSERT_EQ(0, get_int(CTL_HW, HW_NCPU, &v));
	ASSERT_EQ(sysconf(_SC_NPROCESSORS_ONLN), v);
	ASSERT_GE(v, 1);
	ASSERT_EQ(0, get_int(CTL_HW, HW_BYTEORDER, &v));
	ASSERT_EQ(1234, v);
	ASSERT_EQ(0, get_int(CTL_HW, HW_PAGESIZE, &v));
	ASSERT_EQ(getpagesize(), v);
}

TEST(machdep_cpu)
{
	char buf[32], v[13];
	size_t len = sizeof(buf);
	int val;

	vendor(v);
	ASSERT_EQ(0, get(CTL_MACHDEP, CPU_CPUVENDOR, buf, &len));
	ASSERT_EQ(13, len);
	ASSERT_STREQ(v, buf);

	ASSERT_EQ(0, get_int(CTL_MACHDEP, CPU_CPUID, &val));
	ASSERT_EQ(cpuid(1).a, (uint32_t)val);
	ASSERT_EQ(0, get_int(CTL_MACHDEP, CPU_CPUFEATURE, &val));
	ASSERT_EQ(cpuid(1).d, (uint32_t)val);
	ASSERT_TRUE(val & CPUID_TSC);
	ASSERT_TRUE(val & CPUID_MSR);

	ASSERT_EQ(0, get_int(CTL_MACHDEP, CPU_INVARIANTTSC, &val));
	ASSERT_EQ(has_leaf(0x80000007) ?
		  !!(cpuid(0x80000007).d & CPUIDEDX_ITSC) : 0, val);
}

TEST(machdep_tscfreq)
{
	uint64_t hz = 0, want = expected_tsc_hz();
	size_t len = sizeof(hz);
	int ret;

	errno = 0;
	ret = get(CTL_MACHDEP, CPU_TSCFREQ, &hz, &len);
	if (!want) {
		ASSERT_EQ(-1, ret);
		ASSERT_EQ(EOPNOTSUPP, errno);
		TH_LOG("TSC frequency unknown here: EOPNOTSUPP, as expected");
		return;
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(sizeof(uint64_t), len);
	ASSERT_EQ(want, hz);
	TH_LOG("machdep.tscfreq = %llu", (unsigned long long)hz);
}

TEST(size_query)
{
	char buf[64];
	size_t i, len, qlen;

	for (i = 0; i < N_ANSWERED; i++) {
		if (answered[i].node == CPU_TSCFREQ && !tsc_known())
			continue;
		qlen = 12345;
		ASSERT_EQ(0, get(answered[i].top, answered[i].node, NULL,
				 &qlen));
		len = sizeof(buf);
		ASSERT_EQ(0, get(answered[i].top, answered[i].node, buf,
				 &len));
		ASSERT_EQ(len, qlen);
		ASSERT_EQ(answered[i].size ? answered[i].size :
			  strlen(buf) + 1, qlen);
		/* no oldp and no oldlenp: nothing to report, but fine */
		ASSERT_EQ(0, get(answered[i].top, answered[i].node, NULL,
				 NULL));
		/* a buffer of exactly the size */
		len = qlen;
		ASSERT_EQ(0, get(answered[i].top, answered[i].node, buf,
				 &len));
		ASSERT_EQ(qlen, len);
	}
}

TEST(enomem_int)
{
	unsigned char buf[8];
	size_t len;
	int i;

	for (i = 0; i < 4; i++) {
		memset(buf, 0xa5, sizeof(buf));
		len = i;
		errno = 0;
		ASSERT_EQ(-1, get(CTL_HW, HW_NCPU, buf, &len));
		ASSERT_EQ(ENOMEM, errno);
		ASSERT_EQ(0xa5, buf[0]);
	}
	if (tsc_known()) {
		len = 4;
		errno = 0;
		ASSERT_EQ(-1, get(CTL_MACHDEP, CPU_TSCFREQ, buf, &len));
		ASSERT_EQ(ENOMEM, errno);
	}
}

TEST(enomem_string)
{
	char buf[16], v[13];
	size_t len;

	memset(buf, 'x', sizeof(buf));
	len = 3;
	errno = 0;
	ASSERT_EQ(-1, get(CTL_HW, HW_MACHINE, buf, &len));
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(0, memcmp(buf, "amdxx", 5));	/* what fits, no more */

	/* one short: no room for the NUL */
	memset(buf, 'x', sizeof(buf));
	len = 12;
	vendor(v);
	errno = 0;
	ASSERT_EQ(-1, get(CTL_MACHDEP, CPU_CPUVENDOR, buf, &len));
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(0, memcmp(buf, v, 12));
	ASSERT_EQ('x', buf[12]);

	len = 0;
	errno = 0;
	ASSERT_EQ(-1, get(CTL_HW, HW_MODEL, buf, &len));
	ASSERT_EQ(ENOMEM, errno);
}

TEST(eperm_on_write)
{
	char buf[64];
	int newval = 1;
	size_t i, len;
	int mib[2];

	for (i = 0; i < N_ANSWERED; i++) {
		if (answered[i].node == CPU_TSCFREQ && !tsc_known())
			continue;
		mib[0] = answered[i].top;
		mib[1] = answered[i].node;
		len = sizeof(buf);
		errno = 0;
		EXPECT_EQ(-1, sysctl(mib, 2, buf, &len, &newval,
				     sizeof(newval)));
		EXPECT_EQ(EPERM, errno);
		errno = 0;
		EXPECT_EQ(-1, sysctl(mib, 2, NULL, NULL, &newval,
				     sizeof(newval)));
		EXPECT_EQ(EPERM, errno);
		/* newp counts even with newlen 0 */
		errno = 0;
		EXPECT_EQ(-1, sysctl(mib, 2, NULL, &len, &newval, 0));
		EXPECT_EQ(EPERM, errno);
	}
}

TEST(eopnotsupp)
{
	static const int bad[][2] = {
		{ CTL_HW, 0 }, { CTL_HW, 5 }, { CTL_HW, 99 }, { CTL_HW, -1 },
		{ CTL_MACHDEP, 0 }, { CTL_MACHDEP, CPU_CONSDEV },
		{ CTL_MACHDEP, CPU_BIOS }, { CTL_MACHDEP, CPU_ALLOWAPERTURE },
		{ CTL_MACHDEP, CPU_MAXID }, { CTL_MACHDEP, 1000 },
		{ CTL_UNSPEC, 0 }, { CTL_KERN, 1 }, { CTL_VM, 1 },
		{ CTL_FS, 1 }, { CTL_NET, 1 }, { CTL_DEBUG, 1 },
		{ 8, 1 }, { 42, 1 }, { -1, 1 },
	};
	char buf[64];
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		len = sizeof(buf);
		errno = 0;
		EXPECT_EQ(-1, sysctl(bad[i], 2, buf, &len, NULL, 0)) {
			TH_LOG("{ %d, %d }", bad[i][0], bad[i][1]);
		}
		EXPECT_EQ(EOPNOTSUPP, errno);
		errno = 0;
		EXPECT_EQ(-1, sysctl(bad[i], 2, NULL, &len, NULL, 0));
		EXPECT_EQ(EOPNOTSUPP, errno);
	}
}

TEST(name_length)
{
	int mib[CTL_MAXNAME + 1] = { CTL_HW, HW_MACHINE };
	char buf[64];
	size_t len = sizeof(buf);

	/* below a leaf */
	errno = 0;
	ASSERT_EQ(-1, sysctl(mib, 3, buf, &len, NULL, 0));
	ASSERT_EQ(ENOTDIR, errno);
	mib[0] = CTL_MACHDEP;
	mib[1] = CPU_CPUID;
	errno = 0;
	ASSERT_EQ(-1, sysctl(mib, CTL_MAXNAME, buf, &len, NULL, 0));
	ASSERT_EQ(ENOTDIR, errno);
	/* too short or too long */
	errno = 0;
	ASSERT_EQ(-1, sysctl(mib, 1, buf, &len, NULL, 0));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_EQ(-1, sysctl(mib, 0, buf, &len, NULL, 0));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_EQ(-1, sysctl(mib, CTL_MAXNAME + 1, buf, &len, NULL, 0));
	ASSERT_EQ(EINVAL, errno);
	/* a buffer without a length */
	errno = 0;
	ASSERT_EQ(-1, sysctl(mib, 2, buf, NULL, NULL, 0));
	ASSERT_EQ(EFAULT, errno);
}

TEST(larger_buffer_reports_size)
{
	char buf[64];
	size_t len = sizeof(buf);
	int v = 0;

	ASSERT_EQ(0, get(CTL_HW, HW_BYTEORDER, buf, &len));
	ASSERT_EQ(sizeof(int), len);
	memcpy(&v, buf, sizeof(v));
	ASSERT_EQ(1234, v);
}

TEST_HARNESS_MAIN
