// SPDX-License-Identifier: GPL-2.0
/*
 * What each legacy API answers when counters are taken, as on real
 * hardware: the NMI watchdog's pinned cycles counter (the test PMU's
 * watchdog=1: a general-purpose counter in the AMD model, fixed counter 1 in
 * the Intel one) and another perf user's pinned CPU events.  Each test
 * states the exact errno and the call that gives it; pctr(4), perfmon(4),
 * pfm(7) and cpc_bind_curlwp(3CPC) document the same answers.
 *
 * Run by the "silicon" runs of make check (tests/vm/run-all,
 * list-silicon-tests): the Intel model with watchdog=1 limit_period=32
 * inst_limit_period=128 bts=1, and the AMD model with watchdog=1
 * ncounters=4 (a pre-Zen AMD CPU or a KVM guest: four counters, one the
 * watchdog's).  Presets under the minimum period and period 1 on branches
 * (BTS) are cpc_overflow_test's (it sets those parameters itself, in every
 * lane); perf's own answers fakepmu_silicon_test's; pmcompat-check's
 * (contention and the watchdog named, an overflow row under the minimum
 * period skipped with that cause) pmcompat_check_test's.
 *
 * Test PMU code: branch instructions 0x00c4, which only a general-purpose
 * counter takes in both models.
 */
#include <machine/pctr.h>
#include <machine/perfmon.h>
#include <sys/pfcntr.h>
#include <libcpc.h>
#include "pmc_test_util.h"
#include "kselftest_harness.h"

#define EV_BR		0x00c4
#define CPU		1

/* -1 with errno e: the errno seen; 0 when the call succeeded. */
#define ERRNO_OF(expr) ({ errno = 0; long r_ = (expr); r_ == -1 ? errno : r_ < 0 ? (int)-r_ : 0; })

static int is_amd(void)
{
	unsigned int a, b, c, d;

	__cpuid(0, a, b, c, d);
	return (b == 0x68747541 && d == 0x69746e65) || b == 0x6f677948;
}

/* The general-purpose counters the watchdog leaves free on every CPU. */
static int free_gp(void)
{
	int n = fakepmu_gp_counters();

	if (n > 0 && fakepmu_param("watchdog") == 1 && is_amd())
		n--;
	return n;
}

#define NEED_SILICON() do {						\
	if (!have_fakepmu())						\
		SKIP(return, NO_FAKEPMU);				\
	if (access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0) \
		SKIP(return, "test PMU loaded as a hybrid CPU");	\
} while (0)

/*
 * n pinned perf CPU events of branches on cpu, in fd[]: another perf user
 * whose events are pinned, as the watchdog's are.  (perf stat's events are
 * flexible: pinned ones, the module's, take the counters before them.)
 */
static int hold_counters(int *fd, int n, int cpu)
{
	int i;

	for (i = 0; i < n; i++) {
		fd[i] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_BR, cpu);
		if (fd[i] < 0)
			return -1;
	}
	return 0;
}

static void release(int *fd, int n)
{
	while (n--)
		close(fd[n]);
}

#define PCTR_BR		(EV_BR | PCTR_U | PCTR_K | PCTR_EN)

/*
 * pctr: every PCIOCSn programs counter n on every CPU at once.  With the
 * watchdog on a four-counter AMD CPU, the fourth (PCIOCS3) fails EBUSY at
 * that call and changes nothing; the first three count.
 */
TEST(pctr_counter_past_the_free_ones_is_ebusy)
{
	int fd, n, free = free_gp(), ret[PCTR_NUM];
	unsigned int i;

	NEED_SILICON();
	fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = free < PCTR_NUM ? free + 1 : PCTR_NUM;
	for (i = 0; i < (unsigned int)n; i++) {
		ret[i] = pctr_set_fd(fd, i, PCTR_BR);
		TH_LOG("PCIOCS%u: %s", i, ret[i] ? strerror(-ret[i]) : "ok");
	}
	for (i = 0; i < (unsigned int)n; i++)
		EXPECT_EQ((int)i < free ? 0 : -EBUSY, ret[i]) TH_LOG("PCIOCS%u", i);
	for (i = 0; i < PCTR_NUM; i++)
		pctr_set_fd(fd, i, 0);
	close(fd);
}

/*
 * pctr when another perf user holds every free counter of one CPU: the
 * counter cannot be had there, so PCIOCS0 fails EBUSY.
 */
TEST(pctr_with_a_perf_user_holding_the_counters_is_ebusy)
{
	int hold[32], fd, free = free_gp(), ret;

	NEED_SILICON();
	NEED_CPUS(CPU + 1);
	ASSERT_EQ(0, hold_counters(hold, free, CPU));
	fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ret = pctr_set_fd(fd, 0, PCTR_BR);
	TH_LOG("PCIOCS0: %s", ret ? strerror(-ret) : "ok");
	EXPECT_EQ(-EBUSY, ret);
	pctr_set_fd(fd, 0, 0);
	close(fd);
	release(hold, free);
}

/*
 * A perf stat user's events are flexible: pctr's pinned counters take the
 * hardware first, and perf's events wait (multiplexed: time_running stops
 * behind time_enabled), as perf_event_open(2) orders them.
 */
TEST(pctr_wins_over_a_perf_stat_user)
{
	int hold[32], fd, free = free_gp(), i;
	__u64 rf0[3], rf[3];

	NEED_SILICON();
	NEED_CPUS(CPU + 1);
	for (i = 0; i < free; i++) {
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_RAW;
		attr.config = EV_BR;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		hold[i] = sys_perf_event_open(&attr, -1, CPU, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, hold[i]);
	}
	usleep(20000);
	ASSERT_EQ((ssize_t)sizeof(rf0), read(hold[free - 1], rf0, sizeof(rf0)));
	/* Alone, perf's events run all the time they are enabled. */
	EXPECT_EQ(rf0[1], rf0[2]);
	fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, pctr_set_fd(fd, 0, PCTR_BR));
	usleep(20000);
	ASSERT_EQ((ssize_t)sizeof(rf), read(hold[free - 1], rf, sizeof(rf)));
	TH_LOG("perf's event with pctr's counter: enabled %llu ns more, running %llu ns more",
	       (unsigned long long)(rf[1] - rf0[1]), (unsigned long long)(rf[2] - rf0[2]));
	EXPECT_LT(rf[2] - rf0[2], rf[1] - rf0[1]);
	pctr_set_fd(fd, 0, 0);
	close(fd);
	release(hold, free);
}

#define PM_BR	(EV_BR | (PMCF_USR | PMCF_OS) << 16)	/* perfmon(4)'s control word */

/*
 * perfmon: PMIOSETUP only records the control word, on every counter; the
 * hardware counter is taken at PMIOSTART, which fails EBUSY past the free
 * ones (the fourth on a four-counter AMD CPU with the watchdog).  That
 * counter stays set up and stopped: PMIOREAD gives 0, the others count.
 */
TEST(perfmon_start_past_the_free_counters_is_ebusy)
{
	int fd, n, free = free_gp(), i, ret;
	long long v;

	NEED_SILICON();
	NEED_CPUS(CPU + 1);
	ASSERT_EQ(0, pin_to_cpu(CPU));
	fd = open("/dev/perfmon", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = free < NPMC ? free + 1 : NPMC;
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, perfmon_setup_fd(fd, i, PM_BR));
		ret = perfmon_ctl_fd(fd, PMIOSTART, i);
		TH_LOG("counter %d: PMIOSTART %s", i, ret ? strerror(-ret) : "ok");
		EXPECT_EQ(i < free ? 0 : -EBUSY, ret);
	}
	ASSERT_EQ(0, inject_here(EV_BR, 100));
	for (i = 0; i < n; i++) {
		v = -1;
		EXPECT_EQ(0, perfmon_read_fd(fd, i, &v));
		EXPECT_EQ(i < free ? 100 : 0, v) TH_LOG("counter %d", i);
	}
	for (i = 0; i < n; i++)
		perfmon_ctl_fd(fd, PMIOSTOP, i);
	close(fd);
}

/* perfmon when another perf user's pinned events hold every free counter. */
TEST(perfmon_with_a_perf_user_holding_the_counters_is_ebusy)
{
	int hold[32], fd, free = free_gp();

	NEED_SILICON();
	NEED_CPUS(CPU + 1);
	ASSERT_EQ(0, hold_counters(hold, free, CPU));
	ASSERT_EQ(0, pin_to_cpu(CPU));
	fd = open("/dev/perfmon", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, perfmon_setup_fd(fd, 0, PM_BR));
	EXPECT_EQ(-EBUSY, perfmon_ctl_fd(fd, PMIOSTART, 0));
	close(fd);
	release(hold, free);
}

/*
 * libcpc: cpc_npic() reports the counters the CPU has, the watchdog's
 * included; a set of npic general-purpose requests fails at the bind with
 * EINVAL and CPC_RESOURCE_UNAVAIL when the watchdog holds one of them.
 */
TEST(cpc_npic_set_with_the_watchdog)
{
	cpc_t *cpc;
	cpc_set_t *set;
	unsigned int npic, i, ngp;
	int err, wd_gp = fakepmu_param("watchdog") == 1 && is_amd();

	NEED_SILICON();
	NEED_CPUS(CPU + 1);
	ASSERT_EQ(0, pin_to_cpu(CPU));
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	npic = cpc_npic(cpc);
	ngp = fakepmu_gp_counters();
	TH_LOG("cpc_npic %u, general-purpose counters %u, watchdog %s", npic, ngp,
	       wd_gp ? "on a general-purpose counter" : "off or on a fixed counter");
	EXPECT_EQ(expected_npic(), npic);
	cpc_seterrhndlr(cpc, cpc_errlog_handler);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	for (i = 0; i < ngp; i++)
		ASSERT_EQ((int)i, cpc_set_add_request(cpc, set, "PAPI_br_ins", 0,
						      CPC_COUNT_USER, 0, NULL));
	cpc_errlog_reset();
	err = cpc_err_of(cpc_bind_curlwp(cpc, set, 0));
	TH_LOG("%u branch requests: bind %s, handler subcode %d \"%s\"", ngp,
	       err ? strerror(err) : "ok", cpc_errlog.subcode, cpc_errlog.msg);
	if (wd_gp) {
		EXPECT_EQ(EINVAL, err);
		EXPECT_EQ(CPC_RESOURCE_UNAVAIL, cpc_errlog.subcode);
	} else {
		EXPECT_EQ(0, err);
		cpc_unbind(cpc, set);
	}
	cpc_set_destroy(cpc, set);
	cpc_close(cpc);
}

/* libcpc when another perf user holds every free counter of the CPU. */
TEST(cpc_bind_cpu_with_a_perf_user_holding_the_counters)
{
	int hold[32], free = free_gp(), err;
	cpc_t *cpc;
	cpc_set_t *set;

	NEED_SILICON();
	NEED_CPUS(CPU + 1);
	ASSERT_EQ(0, hold_counters(hold, free, CPU));
	ASSERT_EQ(0, pin_to_cpu(CPU));
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	cpc_seterrhndlr(cpc, cpc_errlog_handler);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_br_ins", 0,
					 CPC_COUNT_USER, 0, NULL));
	cpc_errlog_reset();
	err = cpc_err_of(cpc_bind_cpu(cpc, CPU, set, 0));
	TH_LOG("cpc_bind_cpu: %s, handler subcode %d \"%s\"", err ? strerror(err) : "ok",
	       cpc_errlog.subcode, cpc_errlog.msg);
	EXPECT_EQ(EINVAL, err);
	EXPECT_EQ(CPC_RESOURCE_UNAVAIL, cpc_errlog.subcode);
	if (!err)
		cpc_unbind(cpc, set);
	cpc_errlog_reset();
	err = cpc_err_of(cpc_bind_curlwp(cpc, set, 0));
	TH_LOG("cpc_bind_curlwp: %s, handler subcode %d \"%s\"", err ? strerror(err) : "ok",
	       cpc_errlog.subcode, cpc_errlog.msg);
	EXPECT_EQ(EINVAL, err);
	EXPECT_EQ(CPC_RESOURCE_UNAVAIL, cpc_errlog.subcode);
	if (!err)
		cpc_unbind(cpc, set);
	cpc_set_destroy(cpc, set);
	cpc_close(cpc);
	release(hold, free);
}

/*
 * pfcntr when another perf user's pinned events hold every counter of a CPU
 * able to count the EV6 pair (instructions and cycles: the general-purpose
 * counters, and the Intel model's fixed ones): PCNT6MUX succeeds, the
 * PCNT6RESTART that starts counting fails EBUSY.
 */
TEST(pfcntr_with_a_perf_user_holding_the_counters)
{
	int hold[34], free = free_gp(), fd, err_mux, err_start;
	long mux = PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES;
	__u64 img;
	union pmctrs_ev6 u;

	NEED_SILICON();
	NEED_CPUS(CPU + 1);
	ASSERT_EQ(0, hold_counters(hold, free, CPU));
	/* And the Intel model's fixed counters of instructions and cycles. */
	hold[free] = open_pinned_cpu_event(PERF_TYPE_RAW, 0x00c0, CPU);
	hold[free + 1] = open_pinned_cpu_event(PERF_TYPE_RAW, 0x003c, CPU);
	ASSERT_LE(0, hold[free]);
	ASSERT_LE(0, hold[free + 1]);
	ASSERT_EQ(0, pin_to_cpu(CPU));
	fd = open("/dev/pfcntr", O_RDONLY | PCNTOPENONE);
	ASSERT_LE(0, fd);
	err_mux = ERRNO_OF(ioctl(fd, PCNT6MUX, &mux));
	u.pmctrs_ev6_long = 0;
	u.pmctrs_ev6_select = 3;
	u.pmctrs_ev6_cpu = PMCTRS_ALL_CPUS;
	img = u.pmctrs_ev6_long;
	err_start = ERRNO_OF(ioctl(fd, PCNT6RESTART, &img));
	TH_LOG("PCNT6MUX %s, PCNT6RESTART %s", err_mux ? strerror(err_mux) : "ok",
	       err_start ? strerror(err_start) : "ok");
	EXPECT_EQ(0, err_mux);
	EXPECT_EQ(EBUSY, err_start);
	close(fd);
	release(hold, free + 2);
}

/*
 * pctr(1) and perfmon(8) name the cause of EBUSY: the counters are held by
 * another perf user or the NMI watchdog.
 */
TEST(tools_name_who_holds_the_counters)
{
	static const char cause[] = "held by another perf user or the NMI watchdog, kernel.nmi_watchdog";
	int hold[32], free = free_gp();
	struct tool_run r;

	NEED_SILICON();
	NEED_CPUS(CPU + 1);
	if (access("/usr/bin/pctr", X_OK) || access("/usr/bin/perfmon", X_OK))
		SKIP(return, "pctr(1) or perfmon(8) not installed in /usr/bin");
	ASSERT_EQ(0, hold_counters(hold, free, CPU));
	ASSERT_EQ(0, run_tool(&r, "/usr/bin/pctr", "pctr",
			      (const char *const []){ "-s", "0", "-f", "c4", "-u", NULL },
			      0, TOOL_AS_ROOT, NULL));
	TH_LOG("pctr: exit %d: %s", r.status, r.err);
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.err, "pctr_set_cntr: Device or resource busy: "));
	EXPECT_NE(NULL, strstr(r.err, cause));
	ASSERT_EQ(0, run_tool(&r, "/usr/bin/perfmon", "perfmon",
			      (const char *const []){ "-u", "-l", "1", "0xc4", NULL },
			      0, TOOL_AS_ROOT, NULL));
	TH_LOG("perfmon: exit %d: %s", r.status, r.err);
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.err, "ioctl(PMIOSTART): Device or resource busy: "));
	EXPECT_NE(NULL, strstr(r.err, cause));
	release(hold, free);
}

TEST_HARNESS_MAIN
