// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of libcpc's CPCv1 layer (tools/libcpc/libcpc_v1.c) where it
 * needs no device: cpc_version() and cpc_getcpuver() for given processors,
 * cpc_strtoevent() and cpc_eventtostr() (every event name both ways, and
 * attribute combinations), what a cpc_event_t cannot describe, the v1
 * error handler, cpc_walk_names(), cpc_event_diff() and cpc_event_accum().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc_impl.h"

#include <perfmon/pfmlib.h>

#include "kselftest_harness.h"

#define SKYLAKE_EAX1	0x000506e3	/* family 6 model 94 */
#define P4_EAX1		0x00000f29	/* family 0xf */
#define ZEN1_EAX1	0x00800f12	/* family 0x17 */

#define USR		(1U << 16)
#define OS		(1U << 17)
#define EN		(1U << 22)

static struct {
	int calls;
	char fn[64];
	char msg[256];
} errlog;

static void errfn(const char *fn, const char *fmt, va_list ap)
{
	errlog.calls++;
	snprintf(errlog.fn, sizeof(errlog.fn), "%s", fn);
	vsnprintf(errlog.msg, sizeof(errlog.msg), fmt, ap);
}

/* Describe a processor, initialise v1 as a program does: the cpuver. */
/*
 * Describe a processor to v1, with libpfm4's table for pmu (as its
 * LIBPFM_FORCE_PMU does; each test runs in a child of its own).
 */
static int use_cpu_pmu(const char *vendor, uint32_t eax1, const char *pmu)
{
	struct cpcev_cpu c;

	cpcev_cpu_init(&c, vendor, eax1, 0, 0);
	if (pmu) {
		pfm_terminate();
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		cpcev_cpu_pfm(&c);
	}
	__cpc_v1_set_cpu(&c);
	memset(&errlog, 0, sizeof(errlog));
	cpc_seterrfn(errfn);
	if (cpc_version(CPC_VER_CURRENT) != CPC_VER_CURRENT)
		return -2;
	return cpc_getcpuver();
}

static int use_cpu(const char *vendor, uint32_t eax1)
{
	return use_cpu_pmu(vendor, eax1, NULL);
}

TEST(cpuver_of_each_processor)
{
	struct cpcev_cpu c;

	cpcev_cpu_init(&c, "GenuineIntel", SKYLAKE_EAX1, 0, 0);
	__cpc_v1_set_cpu(&c);
	EXPECT_EQ(-1, cpc_getcpuver());		/* before cpc_version() */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_PENTIUM_PRO_MMX, use_cpu("GenuineIntel", SKYLAKE_EAX1));
	EXPECT_EQ(CPC_PMCOMPAT_X86, use_cpu("GenuineIntel", P4_EAX1));
	EXPECT_EQ(CPC_PMCOMPAT_X86, use_cpu("AuthenticAMD", ZEN1_EAX1));
	EXPECT_EQ(CPC_PMCOMPAT_X86, use_cpu("HygonGenuine", ZEN1_EAX1));
	EXPECT_EQ(-1, use_cpu("CentaurHauls", 0x6f1));
	EXPECT_EQ(ENOTSUP, errno);
	EXPECT_EQ(NULL, cpc_getcciname(-1));
}

struct roundtrip {
	int cpuver, names, failed;
	struct __test_metadata *md;
};

static void roundtrip_one(void *arg, int regno, const char *name, uint8_t bits)
{
	struct roundtrip *r = arg;
	cpc_event_t ev, again;
	char spec[600], *s;

	(void)regno;
	r->names++;
	snprintf(spec, sizeof(spec), "pic0=%s,pic1=%s,sys1,nouser0", name, name);
	if (cpc_strtoevent(r->cpuver, spec, &ev) ||
	    (ev.ce_pes[0] & 0xff) != bits || (ev.ce_pes[1] & 0xff) != bits ||
	    ev.ce_pes[0] & USR || !(ev.ce_pes[1] & (USR | OS))) {
		fprintf(stderr, "# %s: bad event\n", spec);
		r->failed++;
		return;
	}
	/*
	 * cpc_eventtostr() looks the name up among all of libpfm4's (hundreds
	 * on Skylake): every 10th name is enough to check the round trip.
	 */
	if (r->names % 10)
		return;
	s = cpc_eventtostr(&ev);
	if (!s || cpc_strtoevent(r->cpuver, s, &again) ||
	    memcmp(&ev, &again, sizeof(ev))) {
		fprintf(stderr, "# %s -> %s: no round trip\n", spec, s ? s : "NULL");
		r->failed++;
	}
	free(s);
}

TEST(every_name_round_trips)
{
	struct roundtrip r = { 0 };

	r.cpuver = use_cpu_pmu("GenuineIntel", SKYLAKE_EAX1, "skl");
	cpc_walk_names(r.cpuver, 0, &r, roundtrip_one);
	EXPECT_LT(20, r.names);
	EXPECT_EQ(0, r.failed);
	memset(&r, 0, sizeof(r));
	r.cpuver = use_cpu_pmu("AuthenticAMD", ZEN1_EAX1, "amd64_fam17h");
	cpc_walk_names(r.cpuver, 1, &r, roundtrip_one);
	EXPECT_LT(20, r.names);
	EXPECT_EQ(0, r.failed);
	EXPECT_EQ(0, errlog.calls);
}

TEST(attribute_combinations_round_trip)
{
	static const char *const attrs[] = {
		"", ",sys", ",nouser", ",edge0", ",inv1", ",int", ",pc0",
		",cmask=3", ",umask1=0x10", ",cmask0=0xff,inv0,edge0",
		",sys0,nouser1,umask0=0x2", ",noedge,edge1",
	};
	cpc_event_t ev, again;
	char spec[200], *s;
	size_t i, j;
	int cpuver;

	cpuver = use_cpu("GenuineIntel", SKYLAKE_EAX1);
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		for (j = 0; j < sizeof(attrs) / sizeof(attrs[0]); j++) {
			snprintf(spec, sizeof(spec), "pic0=0xc4,pic1=0x2e%s%s",
				 attrs[i], attrs[j]);
			ASSERT_EQ(0, cpc_strtoevent(cpuver, spec, &ev)) TH_LOG("%s", spec);
			s = cpc_eventtostr(&ev);
			ASSERT_NE(NULL, s);
			ASSERT_EQ(0, cpc_strtoevent(cpuver, s, &again)) TH_LOG("%s", s);
			EXPECT_EQ(0, memcmp(&ev, &again, sizeof(ev)))
				TH_LOG("%s -> %s", spec, s);
			free(s);
		}
	EXPECT_EQ(0, errlog.calls);
}

TEST(what_a_cpc_event_t_cannot_describe)
{
	cpc_event_t ev;
	int cpuver;

	cpuver = use_cpu("AuthenticAMD", ZEN1_EAX1);
	/* An AMD event code above 0xff: its bits 11:8 are beyond 32 bits. */
	EXPECT_EQ(-1, cpc_strtoevent(cpuver, "pic0=0x1c0", &ev));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, errlog.calls);
	EXPECT_STREQ("cpc_strtoevent", errlog.fn);
	EXPECT_EQ(0, cpc_strtoevent(cpuver, "pic0=0xc0", &ev));
	EXPECT_EQ(0xc0U | USR | EN, ev.ce_pes[0]);
	EXPECT_EQ(-1, cpc_strtoevent(cpuver, "pic0=PAPI_tot_cyc", &ev));
	EXPECT_EQ(-1, cpc_strtoevent(cpuver, "pic1=sw_cpu_clock", &ev));
	EXPECT_EQ(3, errlog.calls);
	/* An image with a bit this layer cannot count (AnyThread). */
	ev.ce_pes[0] |= 1U << 21;
	EXPECT_EQ(NULL, cpc_eventtostr(&ev));
	EXPECT_EQ(EINVAL, errno);
	ev.ce_pes[0] = 0;
	ev.ce_pes[1] = 0;
	EXPECT_EQ(NULL, cpc_eventtostr(&ev));	/* nothing programmed */
	/* Another processor's event. */
	ev.ce_pes[0] = 0xc0U | USR | EN;
	ev.ce_cpuver = CPC_ULTRA1;
	EXPECT_EQ(NULL, cpc_eventtostr(&ev));
}

TEST(default_handler_prints_on_stderr)
{
	cpc_event_t ev;
	char buf[256] = "";
	int cpuver, fds[2], saved;
	ssize_t n;

	cpuver = use_cpu("GenuineIntel", SKYLAKE_EAX1);
	cpc_seterrfn(NULL);
	ASSERT_EQ(0, pipe(fds));
	saved = dup(2);
	dup2(fds[1], 2);
	EXPECT_EQ(-1, cpc_strtoevent(cpuver, "pic0=nonesuch", &ev));
	dup2(saved, 2);
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	ASSERT_LT(0, n);
	EXPECT_STREQ("libcpc: cpc_strtoevent: pic0 cannot measure event 'nonesuch' on this cpu\n",
		     buf);
	EXPECT_EQ(0, errlog.calls);
}

TEST(diff_and_accum)
{
	cpc_event_t a = { 0 }, b = { 0 }, d, acc = { 0 };

	a.ce_cpuver = CPC_PENTIUM_PRO_MMX;
	a.ce_pes[0] = 0x4100c0;
	a.ce_hrt = 200;
	a.ce_tsc = 1000;
	a.ce_pic[0] = 5;
	a.ce_pic[1] = 100;
	b.ce_hrt = 100;
	b.ce_tsc = 400;
	b.ce_pic[0] = 6;
	b.ce_pic[1] = 40;
	cpc_event_diff(&d, &a, &b);
	EXPECT_EQ(CPC_PENTIUM_PRO_MMX, d.ce_cpuver);
	EXPECT_EQ(0x4100c0U, d.ce_pes[0]);
	EXPECT_EQ(0U, d.ce_pes[1]);
	EXPECT_EQ(200LL, d.ce_hrt);
	EXPECT_EQ(600ULL, d.ce_tsc);
	EXPECT_EQ(UINT64_MAX, d.ce_pic[0]);	/* modulo 2^64 */
	EXPECT_EQ(60ULL, d.ce_pic[1]);
	cpc_event_accum(&acc, &d);
	cpc_event_accum(&acc, &a);
	EXPECT_EQ(200LL, acc.ce_hrt);
	EXPECT_EQ(1600ULL, acc.ce_tsc);
	EXPECT_EQ(4ULL, acc.ce_pic[0]);
	EXPECT_EQ(160ULL, acc.ce_pic[1]);
	EXPECT_EQ(0, acc.ce_cpuver);		/* accumulating leaves the rest */
	EXPECT_EQ(0U, acc.ce_pes[0]);
}

TEST_HARNESS_MAIN
