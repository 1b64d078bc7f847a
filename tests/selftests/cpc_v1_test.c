// SPDX-License-Identifier: GPL-2.0
/*
 * The obsolete Solaris libcpc version 1 interface (cpc_version(3CPC) and the
 * pages it names), as a v1 program uses it: cpc_version(), cpc_getcpuver(),
 * cpc_strtoevent() of a "pic0=...,pic1=..." specification, cpc_bind_event(),
 * cpc_take_sample(), cpc_event_diff() and cpc_event_accum(), user and
 * system counting switched on and off, overflow signals with the rebinding
 * idiom, the v1 error handler, cpc_access(), and the libpctx calls on a
 * child process.  The test PMU counts only what is injected: exact counts.
 */
#include <libcpc.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <grp.h>
#include <sys/wait.h>
#include "pmc_test_util.h"
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

/* Test PMU codes (event | umask << 8). */
#define EV_INSTR	0x00c0		/* inst_retired.any_p */
#define EV_CYCLES	0x003c		/* cpu_clk_unhalted.thread_p */
#define EV_BRANCH	0x00c4		/* br_inst_retired.all_branches */
#define KERNEL_IP	0xffffffff81000000ULL
#define PRESET		(UINT64_MAX - 999ULL)	/* overflows after 1000 */

#define SPEC		"pic0=inst_retired.any_p,pic1=cpu_clk_unhalted.thread_p"

/* P6 PerfEvtSel bits */
#define USR		(1U << 16)
#define OS		(1U << 17)
#define EDGE		(1U << 18)
#define INT		(1U << 20)
#define EN		(1U << 22)
#define INV		(1U << 23)

/* What the v1 error handler was given. */
static struct {
	int calls;
	char fn[64];
	char msg[256];
	char first[256];
} errlog;

static void errfn(const char *fn, const char *fmt, va_list ap)
{
	errlog.calls++;
	snprintf(errlog.fn, sizeof(errlog.fn), "%s", fn);
	vsnprintf(errlog.msg, sizeof(errlog.msg), fmt, ap);
	if (errlog.calls == 1)
		snprintf(errlog.first, sizeof(errlog.first), "%s", errlog.msg);
	errno = ERANGE;		/* the library must keep its own errno */
}

/* What a v1 program does first; the cpuver. */
static int v1_init(void)
{
	memset(&errlog, 0, sizeof(errlog));
	cpc_seterrfn(errfn);
	if (cpc_version(CPC_VER_CURRENT) != CPC_VER_CURRENT)
		return -1;
	return cpc_getcpuver();
}

static int intel_family6(void)
{
#if !defined(__x86_64__) && !defined(__i386__)
	return 0;
#else
	unsigned int a, b, c, d;
	char vendor[13] = "";

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return 0;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	__get_cpuid(1, &a, &b, &c, &d);
	return !strcmp(vendor, "GenuineIntel") && ((a >> 8) & 0xf) == 6;
#endif
}

#define NEED_INTEL() do {						\
	if (!intel_family6())						\
		SKIP(return, "the event names are Intel family 6's");	\
} while (0)

TEST(versions)
{
	/* Solaris' cpc_getcpuver() needs no cpc_version() first */
	EXPECT_NE(-1, cpc_getcpuver());
	EXPECT_EQ((uint_t)CPC_VER_CURRENT, cpc_version(CPC_VER_NONE));
	EXPECT_EQ((uint_t)CPC_VER_NONE, cpc_version(CPC_VER_CURRENT + 1));
	EXPECT_EQ(1U, cpc_version(1));		/* Solaris 8 and 9's CPC_VER_CURRENT */
	EXPECT_NE(-1, cpc_getcpuver());
	EXPECT_EQ((uint_t)CPC_VER_CURRENT, cpc_version(CPC_VER_CURRENT));
}

struct names {
	int calls, bad_regno, found;
	uint8_t bits;
};

static void name_fn(void *arg, int regno, const char *name, uint8_t bits)
{
	struct names *n = arg;

	n->calls++;
	if (regno != 1)
		n->bad_regno++;
	if (!strcmp(name, "br_inst_retired.all_branches")) {
		n->found++;
		n->bits = bits;
	}
	if (!strncmp(name, "PAPI_", 5) || !strncmp(name, "sw_", 3))
		n->bad_regno += 100;	/* not describable in a cpc_event_t */
}

TEST(processor_description)
{
	struct names n = { 0 };
	const char *s;
	int cpuver;

	cpuver = v1_init();
#if defined(__aarch64__)
	ASSERT_EQ(CPC_PMCOMPAT_ARM64, cpuver);
#else
	if (intel_family6()) {
		ASSERT_EQ(CPC_PENTIUM_PRO_MMX, cpuver);
	} else {
		ASSERT_EQ(CPC_PMCOMPAT_X86, cpuver);
	}
#endif
	EXPECT_EQ(2U, cpc_getnpic(cpuver));
	s = cpc_getcciname(cpuver);
	ASSERT_NE(NULL, s);
	EXPECT_NE('\0', s[0]);
	s = cpc_getcpuref(cpuver);
	ASSERT_NE(NULL, s);
	EXPECT_NE('\0', s[0]);
	s = cpc_getusage(cpuver);
	ASSERT_NE(NULL, s);
	EXPECT_NE(NULL, strstr(s, "pic0=<event0>,pic1=<event1>"));
	EXPECT_NE(NULL, strstr(s, "nouser"));
#if defined(__aarch64__)
	/* ARMv8 events have no unit mask */
	EXPECT_EQ(NULL, strstr(s, "umask"));
#else
	EXPECT_NE(NULL, strstr(s, "umask"));
#endif

	/* Another processor's version is refused everywhere. */
	EXPECT_EQ(NULL, cpc_getcciname(CPC_ULTRA3));
	EXPECT_EQ(NULL, cpc_getusage(CPC_PENTIUM));
	EXPECT_EQ(0U, cpc_getnpic(12345));

	if (cpuver == CPC_PENTIUM_PRO_MMX) {
		cpc_walk_names(cpuver, 1, &n, name_fn);
		EXPECT_LT(10, n.calls);
		EXPECT_EQ(0, n.bad_regno);
		EXPECT_EQ(1, n.found);
		EXPECT_EQ(0xc4, n.bits);
	}
	n.calls = 0;
	cpc_walk_names(cpuver, 2, &n, name_fn);
	EXPECT_EQ(0, n.calls);
	EXPECT_EQ(0, errlog.calls);
}

TEST(strtoevent_makes_the_event_select_images)
{
	cpc_event_t ev;
	char *s;
	int cpuver;

	NEED_INTEL();
	cpuver = v1_init();
	memset(&ev, 0xa5, sizeof(ev));
	ASSERT_EQ(0, cpc_strtoevent(cpuver, SPEC, &ev));
	EXPECT_EQ(cpuver, ev.ce_cpuver);
	EXPECT_EQ(0xc0U | USR | EDGE, ev.ce_pes[0]);	/* Solaris' default image */
	EXPECT_EQ(0x3cU | USR | EDGE, ev.ce_pes[1]);
	EXPECT_EQ(ev.ce_pes[0], ev.ce_cesr);
	EXPECT_EQ(0ULL, ev.ce_pic[0]);
	EXPECT_EQ(0ULL, ev.ce_pic[1]);
	EXPECT_EQ(0LL, ev.ce_hrt);
	EXPECT_EQ(0ULL, CPC_TICKREG(&ev));
	s = cpc_eventtostr(&ev);
	ASSERT_NE(NULL, s);
	/* Solaris' form: its Pentium Pro name, else the code */
	EXPECT_STREQ("pic0=inst_retired,pic1=0x3c", s);
	free(s);

	/* Modes and attributes, for both counters or one. */
	ASSERT_EQ(0, cpc_strtoevent(cpuver, "pic1=0xc4,umask1=0x1,sys,nouser0,"
				    "cmask0=2,inv0,noedge0,int1,pic0=0x2e,umask0=0x41",
				    &ev));
	EXPECT_EQ(0x2eU | 0x41 << 8 | 2U << 24 | INV | OS, ev.ce_pes[0]);
	EXPECT_EQ(0xc4U | 0x01 << 8 | EDGE | INT | USR | OS, ev.ce_pes[1]);
	s = cpc_eventtostr(&ev);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("pic0=l2_rqsts,pic1=br_inst_retired,cmask0=0x2,umask0=0x41,"
		     "umask1=0x1,nouser0,sys,noedge0,int1,inv0", s);
	free(s);
	EXPECT_EQ(0, errlog.calls);
}

/*
 * cpc_strtoevent() of spec fails with n errors, the first message want
 * (Solaris' fn "strtoevent").
 */
static int bad_spec(int cpuver, const char *spec, int n, const char *want)
{
	cpc_event_t ev;
	int ret;

	memset(&errlog, 0, sizeof(errlog));
	ret = cpc_strtoevent(cpuver, spec, &ev);
	if (ret != n || errlog.calls != n || strcmp(errlog.fn, "strtoevent") ||
	    !strstr(errlog.first, want)) {
		fprintf(stderr, "# '%s': %d, %d calls (%s: %s)\n", spec, ret,
			errlog.calls, errlog.fn, errlog.first);
		return -1;
	}
	return 0;
}

TEST(bad_specifications_go_to_the_error_handler)
{
	int cpuver;

	NEED_INTEL();
	cpuver = v1_init();
	EXPECT_EQ(0, bad_spec(cpuver, "pic0=no_such_event,pic1=0xc0", 2,
			      "PerfCtr0 cannot measure 'no_such_event' on this cpu"));
	EXPECT_EQ(0, bad_spec(cpuver, SPEC ",pic2=inst_retired.any_p", 1,
			      "bad token 'pic2=inst_retired.any_p'"));
	EXPECT_EQ(0, bad_spec(cpuver, SPEC ",frobnicate", 1, "bad token 'frobnicate'"));
	EXPECT_EQ(0, bad_spec(cpuver, "pic0,pic1=0xc0", 2, "missing 'pic0' value"));
	EXPECT_EQ(0, bad_spec(cpuver, SPEC ",pic0=0xc4", 1, "repeated 'pic0' token"));
	EXPECT_EQ(0, bad_spec(cpuver, SPEC ",umask0=0x100", 1, "bad 'umask0' value"));
	EXPECT_EQ(0, bad_spec(cpuver, SPEC ",cmask1", 1, "missing 'cmask1' value"));
	EXPECT_EQ(0, bad_spec(cpuver, SPEC ",sys=1", 1, "bad arg to 'sys'"));
	EXPECT_EQ(0, bad_spec(cpuver, "pic0=0xc0,sys", 1, "two events must be specified"));
	EXPECT_EQ(0, bad_spec(cpuver, "", 1, "two events must be specified"));
	/* perf's generic and software events have no event-select image. */
	EXPECT_EQ(0, bad_spec(cpuver, "pic0=PAPI_tot_ins,pic1=0xc0", 2, "cannot measure"));
	EXPECT_EQ(0, bad_spec(cpuver, "pic0=0xc0,pic1=sw_task_clock", 2, "cannot measure"));
	memset(&errlog, 0, sizeof(errlog));
	EXPECT_EQ(1, cpc_strtoevent(cpuver + 1, SPEC, &(cpc_event_t){ 0 }));
}

TEST(diff_and_accum)
{
	cpc_event_t a, b, d, acc;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&acc, 0, sizeof(acc));
	a.ce_cpuver = 7;
	a.ce_pes[0] = 0x4100c0;
	a.ce_pes[1] = 0x41003c;
	b = a;
	b.ce_cpuver = 8;
	b.ce_pes[0] = 0;
	b.ce_hrt = 1000;
	b.ce_tsc = 50;
	b.ce_pic[0] = 10;
	b.ce_pic[1] = UINT64_MAX;	/* wraps */
	a.ce_hrt = 3000;
	a.ce_tsc = 80;
	a.ce_pic[0] = 25;
	a.ce_pic[1] = 4;
	cpc_event_diff(&d, &a, &b);
	EXPECT_EQ(7, d.ce_cpuver);
	EXPECT_EQ(0x4100c0U, d.ce_pes[0]);
	EXPECT_EQ(0x41003cU, d.ce_pes[1]);
	EXPECT_EQ(3000LL, d.ce_hrt);
	EXPECT_EQ(30ULL, d.ce_tsc);
	EXPECT_EQ(15ULL, d.ce_pic[0]);
	EXPECT_EQ(5ULL, d.ce_pic[1]);
	acc.ce_hrt = 5000;
	cpc_event_accum(&acc, &d);
	cpc_event_accum(&acc, &d);
	EXPECT_EQ(5000LL, acc.ce_hrt);		/* the later time */
	EXPECT_EQ(60ULL, acc.ce_tsc);
	EXPECT_EQ(30ULL, acc.ce_pic[0]);
	EXPECT_EQ(10ULL, acc.ce_pic[1]);
	d.ce_hrt = 9000;
	cpc_event_accum(&acc, &d);
	EXPECT_EQ(9000LL, acc.ce_hrt);
}

TEST(cpc_access_needs_the_node)
{
	pid_t pid;

	v1_init();
	EXPECT_EQ(0, cpc_access());
	EXPECT_EQ(0, errlog.calls);
	/* Someone who may not open /dev/cpc: EACCES, and a message. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(10);
		if (cpc_access() != -1 || errno != EACCES)
			_exit(11);
		_exit(errlog.calls == 1 && !strcmp(errlog.fn, "cpc_access") ? 0 : 12);
	}
	EXPECT_EQ(0, child_status(pid));
}

TEST(bind_sample_and_release_count_exactly)
{
	cpc_event_t ev, before, after, diff, acc;
	int cpuver, i;

	NEED_FAKEPMU();
	NEED_INTEL();
	ASSERT_EQ(0, pin_to_cpu(1));
	cpuver = v1_init();
	ASSERT_EQ(0, cpc_strtoevent(cpuver, SPEC, &ev));
	errno = 0;
	EXPECT_EQ(-1, cpc_take_sample(&before));	/* nothing bound yet */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_rele());
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, cpc_bind_event(&ev, 0));
	memset(&acc, 0, sizeof(acc));
	for (i = 1; i <= 10; i++) {
		ASSERT_EQ(0, cpc_take_sample(&before));
		ASSERT_EQ(0, inject_here(EV_INSTR, 1000ULL * i + 7));
		ASSERT_EQ(0, inject_here(EV_CYCLES, 3ULL * i));
		/* Not counted: kernel mode, and an event nobody asked for. */
		ASSERT_EQ(0, inject_ip(1, EV_INSTR, 50, 1, KERNEL_IP));
		ASSERT_EQ(0, inject_here(EV_BRANCH, 11));
		ASSERT_EQ(0, cpc_take_sample(&after));
		cpc_event_diff(&diff, &after, &before);
		EXPECT_EQ(1000ULL * i + 7, diff.ce_pic[0]) TH_LOG("iteration %d", i);
		EXPECT_EQ(3ULL * i, diff.ce_pic[1]) TH_LOG("iteration %d", i);
		EXPECT_EQ(cpuver, after.ce_cpuver);
		EXPECT_EQ(ev.ce_pes[0], after.ce_pes[0]);
		EXPECT_EQ(ev.ce_pes[1], after.ce_pes[1]);
		EXPECT_LT(0LL, before.ce_hrt);
		EXPECT_LE(before.ce_hrt, after.ce_hrt);
		EXPECT_EQ(after.ce_hrt, diff.ce_hrt);
		cpc_event_accum(&acc, &diff);
	}
	EXPECT_EQ(1000ULL * 55 + 70, acc.ce_pic[0]);
	EXPECT_EQ(3ULL * 55, acc.ce_pic[1]);
	EXPECT_EQ(acc.ce_pic[0], after.ce_pic[0]);
	EXPECT_EQ(acc.ce_pic[1], after.ce_pic[1]);
	EXPECT_EQ(after.ce_hrt, acc.ce_hrt);

	/* Released: nothing to sample or release any more. */
	ASSERT_EQ(0, cpc_rele());
	EXPECT_EQ(-1, cpc_take_sample(&after));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_rele());
	EXPECT_EQ(EINVAL, errno);

	/* The presets are the event's ce_pic[] at the bind. */
	ev.ce_pic[0] = 500;
	ev.ce_pic[1] = 7;
	ASSERT_EQ(0, cpc_bind_event(&ev, 0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 20));
	ASSERT_EQ(0, cpc_take_sample(&after));
	EXPECT_EQ(520ULL, after.ce_pic[0]);
	EXPECT_EQ(7ULL, after.ce_pic[1]);
	/* A NULL event releases the binding. */
	ASSERT_EQ(0, cpc_bind_event(NULL, 0));
	EXPECT_EQ(-1, cpc_take_sample(&after));
	EXPECT_EQ(0, errlog.calls);
}

TEST(one_counter_and_system_mode)
{
	cpc_event_t ev, s;
	int cpuver;

	NEED_FAKEPMU();
	NEED_INTEL();
	ASSERT_EQ(0, pin_to_cpu(2));
	cpuver = v1_init();
	ASSERT_EQ(0, cpc_strtoevent(cpuver, "pic0=0x3c,pic1=inst_retired.any_p,sys,nouser", &ev));
	ev.ce_pes[0] = 0;		/* an image of 0: counter 0 unused */
	ASSERT_EQ(0, cpc_bind_event(&ev, 0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 30));
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 40, 1, KERNEL_IP));
	ASSERT_EQ(0, cpc_take_sample(&s));
	EXPECT_EQ(0ULL, s.ce_pic[0]);
	EXPECT_EQ(40ULL, s.ce_pic[1]);

	/* Both modes; a new bind replaces the old. */
	ASSERT_EQ(0, cpc_strtoevent(cpuver, "pic0=inst_retired.any_p,pic1=0x3c,sys", &ev));
	ev.ce_pes[1] = 0;
	ASSERT_EQ(0, cpc_bind_event(&ev, 0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 30));
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 40, 1, KERNEL_IP));
	ASSERT_EQ(0, cpc_take_sample(&s));
	EXPECT_EQ(70ULL, s.ce_pic[0]);
	EXPECT_EQ(0ULL, s.ce_pic[1]);
	EXPECT_EQ(0, cpc_rele());
	EXPECT_EQ(0, errlog.calls);
}

TEST(count_usr_and_sys_events_switch_modes)
{
	cpc_event_t ev, s;
	int cpuver;

	NEED_FAKEPMU();
	NEED_INTEL();
	ASSERT_EQ(0, pin_to_cpu(1));
	cpuver = v1_init();
	errno = 0;
	EXPECT_EQ(-1, cpc_count_usr_events(1));		/* no context */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_count_sys_events(1));
	EXPECT_EQ(EINVAL, errno);

	/* As in cpc_count_usr_events(3CPC): bound with nouser, then enabled. */
	ASSERT_EQ(0, cpc_strtoevent(cpuver, SPEC ",nouser", &ev));
	ASSERT_EQ(0, cpc_bind_event(&ev, 0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 100));
	ASSERT_EQ(0, cpc_take_sample(&s));
	EXPECT_EQ(0ULL, s.ce_pic[0]);
	ASSERT_EQ(0, cpc_count_usr_events(1));
	ASSERT_EQ(0, inject_here(EV_INSTR, 200));
	ASSERT_EQ(0, inject_here(EV_CYCLES, 9));
	ASSERT_EQ(0, cpc_take_sample(&s));
	EXPECT_EQ(200ULL, s.ce_pic[0]);
	EXPECT_EQ(9ULL, s.ce_pic[1]);
	EXPECT_EQ(ev.ce_pes[0] | USR, s.ce_pes[0]);
	ASSERT_EQ(0, cpc_count_usr_events(1));		/* already on */
	ASSERT_EQ(0, cpc_count_usr_events(0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 300));
	ASSERT_EQ(0, cpc_take_sample(&s));
	EXPECT_EQ(200ULL, s.ce_pic[0]);
	EXPECT_EQ(9ULL, s.ce_pic[1]);
	EXPECT_EQ(ev.ce_pes[0], s.ce_pes[0]);
	ASSERT_EQ(0, cpc_count_usr_events(1));
	ASSERT_EQ(0, inject_here(EV_INSTR, 5));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 60, 1, KERNEL_IP));
	ASSERT_EQ(0, cpc_count_sys_events(1));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 7, 1, KERNEL_IP));
	ASSERT_EQ(0, cpc_take_sample(&s));
	EXPECT_EQ(212ULL, s.ce_pic[0]);
	EXPECT_EQ(ev.ce_pes[0] | USR | OS, s.ce_pes[0]);
	ASSERT_EQ(0, cpc_count_sys_events(0));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 8, 1, KERNEL_IP));
	ASSERT_EQ(0, cpc_take_sample(&s));
	EXPECT_EQ(212ULL, s.ce_pic[0]);
	EXPECT_EQ(0, cpc_rele());
	EXPECT_EQ(0, errlog.calls);
}

/* The overflow handler: sample, count, and bind again with the preset. */
static struct {
	cpc_event_t ev;
	int flags;
	volatile sig_atomic_t count;
	int code, sample_err, bind_err;
	uint64_t pic0, pic1;
} ovf;

static void emt_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	ovf.code = si->si_code;
	ovf.sample_err = cpc_take_sample(&ovf.ev) ? errno : 0;
	ovf.pic0 = ovf.ev.ce_pic[0];
	ovf.pic1 = ovf.ev.ce_pic[1];
	ovf.ev.ce_pic[0] = PRESET;
	ovf.bind_err = cpc_bind_event(&ovf.ev, ovf.flags) ? errno : 0;
	ovf.count++;
	errno = saved;
}

static bool ovf_reached(void *arg)
{
	return ovf.count >= *(int *)arg;
}

TEST(overflow_signal_and_rebind_in_the_handler)
{
	struct sigaction sa;
	cpc_event_t s;
	int cpuver, n;

	NEED_FAKEPMU();
	NEED_INTEL();
	ASSERT_EQ(0, pin_to_cpu(2));
	cpuver = v1_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emt_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	ASSERT_EQ(0, sigaction(SIGEMT, &sa, NULL));
	ASSERT_EQ(0, cpc_strtoevent(cpuver, SPEC, &ovf.ev));
	ovf.ev.ce_pic[0] = PRESET;
	ovf.flags = CPC_BIND_EMT_OVF;
	EXPECT_EQ(-1, cpc_bind_event(&ovf.ev, 0x10));	/* no such flag */
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, cpc_bind_event(&ovf.ev, CPC_BIND_EMT_OVF));

	ASSERT_EQ(0, inject_here(EV_INSTR, 999));
	ASSERT_EQ(0, inject_here(EV_CYCLES, 5));
	EXPECT_EQ(0, ovf.count);
	ASSERT_EQ(0, inject_here(EV_INSTR, 1));
	n = 1;
	ASSERT_TRUE(wait_until(ovf_reached, &n));
	EXPECT_EQ(EMT_CPCOVF, ovf.code);
	EXPECT_EQ(0, ovf.sample_err);
	EXPECT_EQ(0ULL, ovf.pic0);		/* 2^64 */
	EXPECT_EQ(5ULL, ovf.pic1);
	EXPECT_EQ(0, ovf.bind_err);
	/* Counting again from the preset, pic1 from where it was. */
	ASSERT_EQ(0, cpc_take_sample(&s));
	EXPECT_EQ(PRESET, s.ce_pic[0]);
	EXPECT_EQ(5ULL, s.ce_pic[1]);
	ASSERT_EQ(0, inject_here(EV_CYCLES, 2));
	ASSERT_EQ(0, inject_here(EV_INSTR, 1000));
	n = 2;
	ASSERT_TRUE(wait_until(ovf_reached, &n));
	EXPECT_EQ(7ULL, ovf.pic1);
	EXPECT_EQ(0, ovf.bind_err);
	EXPECT_EQ(0, cpc_rele());
	ASSERT_EQ(0, inject_here(EV_INSTR, 5000));
	EXPECT_EQ(2, ovf.count);
	EXPECT_EQ(0, errlog.calls);
}

TEST(bind_errors)
{
	cpc_event_t ev;
	int cpuver;

	NEED_INTEL();
	cpuver = v1_init();
	ASSERT_EQ(0, cpc_strtoevent(cpuver, SPEC, &ev));
	ev.ce_cpuver = CPC_ULTRA3;
	errno = 0;
	EXPECT_EQ(-1, cpc_bind_event(&ev, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, errlog.calls);
	EXPECT_STREQ("cpc_bind_event", errlog.fn);
	ev.ce_cpuver = cpuver;
	ev.ce_pes[0] = ev.ce_pes[1] = 0;
	EXPECT_EQ(-1, cpc_bind_event(&ev, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(2, errlog.calls);
	ev.ce_pes[1] = 0xc0 | USR | EN | (1U << 21);	/* AnyThread */
	EXPECT_EQ(-1, cpc_bind_event(&ev, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(3, errlog.calls);
	ev.ce_pes[1] = 0xc0 | USR | EN;
	EXPECT_EQ(-1, cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT | 0x4));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_pctx_bind_event(NULL, 1, &ev, 0));
	EXPECT_EQ(EINVAL, errno);
}

/* A child pinned to cpu that injects 777 user-mode instructions per 'i'. */
static void target_loop(int cpu, int cmd, int ack)
{
	char c;

	if (pin_to_cpu(cpu))
		_exit(2);
	while (read(cmd, &c, 1) == 1) {
		c = inject(cpu, EV_INSTR, 777) ? 'E' : 'K';
		if (write(ack, &c, 1) != 1)
			_exit(3);
	}
	_exit(0);
}

static int target_do(int cmd, int ack)
{
	char c = 'i';

	if (write(cmd, &c, 1) != 1 || read(ack, &c, 1) != 1)
		return -1;
	return c == 'K' ? 0 : -1;
}

static void pctx_quiet(const char *fn, const char *fmt, va_list ap)
{
}

/* Wait (up to 5 s) until pid sleeps: then it is not the thread on its CPU. */
static int wait_sleeping(pid_t pid)
{
	char path[64], buf[256], *p;
	int i, fd, n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 5000; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return -errno;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -EIO;
		buf[n] = '\0';
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && (p[2] == 'S' || p[2] == 't'))
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

TEST(pctx_binds_an_lwp_of_a_child)
{
	int cmd[2], ack[2], cpuver;
	cpc_event_t ev, s;
	pctx_t *pctx;
	pid_t pid;

	NEED_FAKEPMU();
	NEED_INTEL();
	NEED_CPUS(3);
	ASSERT_EQ(0, pin_to_cpu(0));
	cpuver = v1_init();
	ASSERT_EQ(0, pipe(cmd));
	ASSERT_EQ(0, pipe(ack));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		target_loop(2, cmd[0], ack[1]);
	}
	close(cmd[0]);
	close(ack[1]);
	pctx = pctx_capture(pid, NULL, 0, pctx_quiet);
	ASSERT_NE(NULL, pctx);
	ASSERT_EQ(0, cpc_strtoevent(cpuver, SPEC, &ev));

	errno = 0;
	EXPECT_EQ(-1, cpc_pctx_take_sample(pctx, 1, &s));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_pctx_bind_event(pctx, 1, &ev, CPC_BIND_LWP_INHERIT));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_pctx_bind_event(pctx, 1, &ev, CPC_BIND_EMT_OVF));
	EXPECT_EQ(ENOTSUP, errno);
	ASSERT_EQ(0, cpc_pctx_bind_event(pctx, 1, &ev, 0));
	ASSERT_EQ(0, target_do(cmd[1], ack[0]));
	/* Not while the child runs: it may still be on CPU 2 after its ack. */
	ASSERT_EQ(0, wait_sleeping(pid));
	ASSERT_EQ(0, inject(2, EV_INSTR, 1000));
	ASSERT_EQ(0, cpc_pctx_take_sample(pctx, 1, &s));
	EXPECT_EQ(777ULL, s.ce_pic[0]);
	EXPECT_EQ(cpuver, s.ce_cpuver);
	EXPECT_EQ(ev.ce_pes[0], s.ce_pes[0]);

	/* Invalidated: EAGAIN until bound again. */
	ASSERT_EQ(0, cpc_pctx_invalidate(pctx, 1));
	EXPECT_EQ(-1, cpc_pctx_take_sample(pctx, 1, &s));
	EXPECT_EQ(EAGAIN, errno);
	ev.ce_pic[0] = 3;
	ASSERT_EQ(0, cpc_pctx_bind_event(pctx, 1, &ev, 0));
	ASSERT_EQ(0, target_do(cmd[1], ack[0]));
	ASSERT_EQ(0, cpc_pctx_take_sample(pctx, 1, &s));
	EXPECT_EQ(780ULL, s.ce_pic[0]);

	ASSERT_EQ(0, cpc_pctx_rele(pctx, 1));
	EXPECT_EQ(-1, cpc_pctx_take_sample(pctx, 1, &s));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_pctx_rele(pctx, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, cpc_pctx_invalidate(pctx, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, errlog.calls);
	pctx_release(pctx);
	close(cmd[1]);
	close(ack[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

TEST_HARNESS_MAIN
