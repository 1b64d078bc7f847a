// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of libcpc's CPCv1 layer (tools/libcpc/libcpc_v1.c) where it
 * needs no device: cpc_getcpuver() for given processors (without
 * cpc_version() first, as on Solaris), Solaris' Pentium Pro grammar of
 * cpc_strtoevent() (default USR|E image, implicit pics, the P6 names, its
 * messages and error count) and cpc_eventtostr()'s form, every name both
 * ways, what a cpc_event_t cannot describe, the v1 error handler,
 * cpc_walk_names(), cpc_event_diff() and cpc_event_accum().
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

static struct {
	int calls;
	char fn[64];
	char msg[256];
	char first[256];		/* the first message */
} errlog;

static void errfn(const char *fn, const char *fmt, va_list ap)
{
	errlog.calls++;
	snprintf(errlog.fn, sizeof(errlog.fn), "%s", fn);
	vsnprintf(errlog.msg, sizeof(errlog.msg), fmt, ap);
	if (errlog.calls == 1)
		snprintf(errlog.first, sizeof(errlog.first), "%s", errlog.msg);
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

	/* Solaris' cpc_getcpuver() needs no cpc_version() first. */
	cpcev_cpu_init(&c, "GenuineIntel", SKYLAKE_EAX1, 0, 0);
	__cpc_v1_set_cpu(&c);
	EXPECT_EQ(CPC_PENTIUM_PRO_MMX, cpc_getcpuver());
	EXPECT_EQ(CPC_PENTIUM_PRO_MMX, use_cpu("GenuineIntel", SKYLAKE_EAX1));
	EXPECT_EQ(CPC_PMCOMPAT_X86, use_cpu("GenuineIntel", P4_EAX1));
	EXPECT_EQ(CPC_PMCOMPAT_X86, use_cpu("AuthenticAMD", ZEN1_EAX1));
	EXPECT_EQ(CPC_PMCOMPAT_X86, use_cpu("HygonGenuine", ZEN1_EAX1));
	EXPECT_EQ(-1, use_cpu("CentaurHauls", 0x6f1));
	EXPECT_EQ(ENOTSUP, errno);
	EXPECT_EQ(NULL, cpc_getcciname(-1));
}

#define E	(1U << 18)
#define PCB	(1U << 19)
#define INT	(1U << 20)
#define INV	(1U << 23)

/* cpc_strtoevent() of spec: its result; the images in pes. */
static int parse(int cpuver, const char *spec, uint32_t pes[2])
{
	cpc_event_t ev;
	int ret;

	memset(&ev, 0xa5, sizeof(ev));
	ret = cpc_strtoevent(cpuver, spec, &ev);
	pes[0] = ev.ce_pes[0];
	pes[1] = ev.ce_pes[1];
	return ret;
}

TEST(solaris_default_image_is_user_and_edge)
{
	cpc_event_t ev;
	uint32_t pes[2];
	int cpuver;

	cpuver = use_cpu("GenuineIntel", SKYLAKE_EAX1);
	memset(&ev, 0xa5, sizeof(ev));
	ASSERT_EQ(0, cpc_strtoevent(cpuver, "pic0=0xc0,pic1=0x3c", &ev));
	EXPECT_EQ(0x000500c0U, ev.ce_pes[0]);	/* Solaris': USR | E, no EN */
	EXPECT_EQ(0x0005003cU, ev.ce_pes[1]);
	EXPECT_EQ(cpuver, ev.ce_cpuver);
	EXPECT_EQ(0ULL, ev.ce_pic[0]);
	EXPECT_EQ(0LL, ev.ce_hrt);
	EXPECT_EQ(0ULL, ev.ce_tsc);
	ASSERT_EQ(0, parse(cpuver, "pic0=0xc0,pic1=0x3c,noedge", pes));
	EXPECT_EQ(0xc0U | USR, pes[0]);
	EXPECT_EQ(0x3cU | USR, pes[1]);
	ASSERT_EQ(0, parse(cpuver, "pic0=0xc0,pic1=0x3c,sys,nouser1,noedge0,"
			   "inv1,int0,pc,cmask0=2,umask1=0x41", pes));
	EXPECT_EQ(0xc0U | 2U << 24 | USR | OS | INT | PCB, pes[0]);
	EXPECT_EQ(0x3cU | 0x41U << 8 | OS | E | INV | PCB, pes[1]);
	EXPECT_EQ(0, errlog.calls);
}

TEST(implicit_pics)
{
	uint32_t pes[2];
	int cpuver;

	cpuver = use_cpu("GenuineIntel", SKYLAKE_EAX1);
	ASSERT_EQ(0, parse(cpuver, "0xc0,0x3c", pes));
	EXPECT_EQ(0xc0U | USR | E, pes[0]);
	EXPECT_EQ(0x3cU | USR | E, pes[1]);
	ASSERT_EQ(0, parse(cpuver, "inst_retired,sys,cpu_clk_unhalted", pes));
	EXPECT_EQ(0xc0U | USR | OS | E, pes[0]);
	EXPECT_EQ(0x79U | USR | OS | E, pes[1]);
	/* pic1 named: the unnamed one is pic0 */
	ASSERT_EQ(0, parse(cpuver, "pic1=0x3c,192", pes));
	EXPECT_EQ(0xc0U | USR | E, pes[0]);
	EXPECT_EQ(0x3cU | USR | E, pes[1]);
	EXPECT_EQ(0, errlog.calls);
}

/*
 * What cpc_strtoevent() reports for spec: its result and the last message
 * (the first in errlog.first).
 */
static int bad(int cpuver, const char *spec, char *msg, size_t len)
{
	cpc_event_t ev;
	int ret;

	memset(&errlog, 0, sizeof(errlog));
	ret = cpc_strtoevent(cpuver, spec, &ev);
	snprintf(msg, len, "%s: %s", errlog.fn, errlog.msg);
	return ret;
}

TEST(solaris_errors_and_return_values)
{
	char m[400];
	int cpuver;

	cpuver = use_cpu("GenuineIntel", SKYLAKE_EAX1);
	EXPECT_EQ(1, cpc_strtoevent(cpuver, NULL, NULL));
	EXPECT_EQ(1, bad(cpuver, "pic0=0xc0", m, sizeof(m)));
	EXPECT_STREQ("strtoevent: two events must be specified\n", m);
	EXPECT_EQ(1, bad(cpuver, "pic0=0xc0,pic1=0x3c,frob", m, sizeof(m)));
	EXPECT_STREQ("strtoevent: bad token 'frob'\n", m);
	EXPECT_EQ(1, bad(cpuver, "pic0=0xc0,pic1=0x3c,umask=3", m, sizeof(m)));
	EXPECT_STREQ("strtoevent: bad token 'umask=3'\n", m);
	/* the unknown token is taken for pic1; then pic1 is missing */
	EXPECT_EQ(2, bad(cpuver, "pic0=0xc0,frob", m, sizeof(m)));
	EXPECT_EQ(2, errlog.calls);
	EXPECT_STREQ("strtoevent: two events must be specified\n", m);
	EXPECT_EQ(1, bad(cpuver, "pic0=0xc0,pic1=0x3c,pic0=0xc4", m, sizeof(m)));
	EXPECT_STREQ("strtoevent: repeated 'pic0' token\n", m);
	EXPECT_EQ(2, bad(cpuver, "pic0,pic1=0x3c", m, sizeof(m)));
	EXPECT_STREQ("missing 'pic0' value\n", errlog.first);
	EXPECT_EQ(2, bad(cpuver, "pic1=0x3c,pic0=", m, sizeof(m)));
	EXPECT_STREQ("PerfCtr0 cannot measure '' on this cpu\n", errlog.first);
	EXPECT_EQ(2, bad(cpuver, "pic0=0xc0,pic1=flops", m, sizeof(m)));
	EXPECT_STREQ("PerfCtr1 cannot measure 'flops' on this cpu\n", errlog.first);
	EXPECT_EQ(1, bad(cpuver, "pic0=0xc0,pic1=0x3c,sys=1", m, sizeof(m)));
	EXPECT_STREQ("strtoevent: bad arg to 'sys'\n", m);
	EXPECT_EQ(1, bad(cpuver, "pic0=0xc0,pic1=0x3c,umask0=0x100", m, sizeof(m)));
	EXPECT_STREQ("strtoevent: bad 'umask0' value\n", m);
	EXPECT_EQ(1, bad(cpuver, "pic0=0xc0,pic1=0x3c,cmask1", m, sizeof(m)));
	EXPECT_STREQ("strtoevent: missing 'cmask1' value\n", m);
	EXPECT_EQ(1, bad(cpuver, "pic0=0xc0,pic1=0x3c,edge", m, sizeof(m)));
	EXPECT_STREQ("strtoevent: bad token 'edge'\n", m);
	EXPECT_EQ(1, bad(CPC_ULTRA1, "pic0=0xc0,pic1=0x3c", m, sizeof(m)));
	EXPECT_EQ(0, errlog.calls);
}

TEST(eventtostr_prints_solaris_form)
{
	static const struct { const char *in, *out; } t[] = {
		{ "pic0=0xc0,pic1=0x3c", "pic0=inst_retired,pic1=0x3c" },
		{ "0x79,0xc4,sys", "pic0=cpu_clk_unhalted,pic1=br_inst_retired,sys" },
		{ "pic0=0xc0,pic1=0xc0,nouser0,sys1",
		  "pic0=inst_retired,pic1=inst_retired,nouser0,sys1" },
		{ "pic0=0x99,pic1=mul,noedge", "pic0=0x99,pic1=mul,noedge" },
		{ "pic0=flops,pic1=0x3c,cmask0=2,umask1=0x41,inv1,int,pc0",
		  "pic0=flops,pic1=0x3c,cmask0=0x2,umask1=0x41,int,inv1,pc0" },
	};
	cpc_event_t ev, again;
	size_t i;
	char *s;
	int cpuver;

	cpuver = use_cpu("GenuineIntel", SKYLAKE_EAX1);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ASSERT_EQ(0, cpc_strtoevent(cpuver, t[i].in, &ev)) TH_LOG("%s", t[i].in);
		s = cpc_eventtostr(&ev);
		ASSERT_NE(NULL, s);
		EXPECT_STREQ(t[i].out, s);
		ASSERT_EQ(0, cpc_strtoevent(cpuver, s, &again));
		EXPECT_EQ(0, memcmp(&ev, &again, sizeof(ev))) TH_LOG("%s", s);
		free(s);
	}
	EXPECT_EQ(0, errlog.calls);
}

struct roundtrip {
	int cpuver, names, failed, p6;
	struct __test_metadata *md;
};

static void roundtrip_one(void *arg, int regno, const char *name, uint8_t bits)
{
	struct roundtrip *r = arg;
	cpc_event_t ev, again;
	char spec[600], *s;

	r->names++;
	/* the name on counter regno, an event every counter counts on the other */
	snprintf(spec, sizeof(spec), regno ? "pic0=0x3c,pic1=%s,sys1,nouser0" :
		 "pic0=%s,pic1=0x3c,sys1,nouser0", name);
	if (cpc_strtoevent(r->cpuver, spec, &ev) ||
	    (ev.ce_pes[regno] & 0xff) != bits || ev.ce_pes[0] & USR ||
	    !(ev.ce_pes[1] & (USR | OS))) {
		fprintf(stderr, "# %s: bad event\n", spec);
		r->failed++;
		return;
	}
	s = cpc_eventtostr(&ev);
	/* Solaris' names come back as they went in; libpfm4's as codes */
	snprintf(spec, sizeof(spec), "pic%d=%s,", regno, name);
	if (s && strstr(s, spec))
		r->p6++;
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
	EXPECT_EQ(75, r.p6);		/* Solaris' 78 less the three of pic1 */
	EXPECT_EQ(0, r.failed);
	memset(&r, 0, sizeof(r));
	r.cpuver = use_cpu_pmu("GenuineIntel", SKYLAKE_EAX1, "skl");
	cpc_walk_names(r.cpuver, 1, &r, roundtrip_one);
	EXPECT_EQ(75, r.p6);
	EXPECT_EQ(0, r.failed);
	memset(&r, 0, sizeof(r));
	r.cpuver = use_cpu_pmu("AuthenticAMD", ZEN1_EAX1, "amd64_fam17h");
	cpc_walk_names(r.cpuver, 1, &r, roundtrip_one);
	EXPECT_LT(20, r.names);
	EXPECT_EQ(0, r.p6);
	EXPECT_EQ(0, r.failed);
	EXPECT_EQ(0, errlog.calls);
}

TEST(usage_is_solaris_text)
{
	int cpuver = use_cpu("GenuineIntel", SKYLAKE_EAX1);

	EXPECT_STREQ("pic0=<event0>,pic1=<event1> [,sys[0|1]] [,nouser[0|1]] "
		     "[,noedge[0|1]] [,pc[0|1]] [,int[0|1]] [,inv[0|1]] "
		     "[,cmask[0|1]=<maskspec>] [,umask[0|1]=<maskspec>] ",
		     cpc_getusage(cpuver));
}

TEST(what_a_cpc_event_t_cannot_describe)
{
	cpc_event_t ev;
	char m[400];
	int cpuver;

	cpuver = use_cpu("AuthenticAMD", ZEN1_EAX1);
	/* An AMD event code above 0xff: its bits 11:8 are beyond 32 bits. */
	EXPECT_EQ(2, bad(cpuver, "pic0=0xc0,pic1=0x1c0", m, sizeof(m)));
	EXPECT_STREQ("PerfCtr1 cannot measure '0x1c0' on this cpu\n", errlog.first);
	EXPECT_EQ(0, cpc_strtoevent(cpuver, "pic0=0xc0,pic1=0x76", &ev));
	EXPECT_EQ(0xc0U | USR | E, ev.ce_pes[0]);
	EXPECT_EQ(2, bad(cpuver, "pic0=PAPI_tot_cyc,pic1=0xc0", m, sizeof(m)));
	EXPECT_STREQ("PerfCtr0 cannot measure 'PAPI_tot_cyc' on this cpu\n", errlog.first);
	EXPECT_EQ(2, bad(cpuver, "pic0=0xc0,pic1=sw_cpu_clock", m, sizeof(m)));
	/* Solaris' Pentium Pro names are Intel family 6's */
	EXPECT_EQ(2, bad(cpuver, "pic0=0xc0,pic1=inst_retired", m, sizeof(m)));
	/* another processor's event */
	ev.ce_cpuver = CPC_ULTRA1;
	EXPECT_EQ(NULL, cpc_eventtostr(&ev));
	EXPECT_EQ(EINVAL, errno);
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
	EXPECT_EQ(2, cpc_strtoevent(cpuver, "pic0=nonesuch,pic1=0xc0", &ev));
	dup2(saved, 2);
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	ASSERT_LT(0, n);
	EXPECT_STREQ("libcpc: strtoevent: PerfCtr0 cannot measure 'nonesuch' on this cpu\n"
		     "libcpc: strtoevent: two events must be specified\n", buf);
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
