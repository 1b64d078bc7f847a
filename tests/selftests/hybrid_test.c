// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat on a hybrid CPU: P-cores and E-cores with a PMU each ("cpu_core"
 * and "cpu_atom", split over the CPUs), and with "fakepmu hybrid=3" a third
 * core type on the last CPU, Arrow Lake-H's LP E-cores ("cpu_lowpower").
 * Run with the test PMU loaded as "fakepmu hybrid=1" or "hybrid=3"
 * (tests/vm/run-lane --fakepmu hybrid=3); without a hybrid PMU every test
 * skips, without cpu_lowpower the tests of the third type.
 *
 * A legacy event word must count on every CPU whatever its core type: the
 * system-wide devices make each CPU's event on that CPU's PMU, and a
 * thread's counters count on every PMU and read as the sum.
 */
#include <libcpc.h>
#include <machine/pctr.h>
#include <machine/perfmon.h>
#include <sys/pfcntr.h>
#include "pmc_test_util.h"

#include "kselftest_harness.h"

#define EV_INSTR	0x00c0
#define PMU_DIR		"/sys/bus/event_source/devices/"
#define MAXCPU		64

/* The first CPU listed in a PMU's sysfs "cpus" file, or -1. */
static int first_cpu_of(const char *pmu)
{
	char path[128];
	int cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), PMU_DIR "%s/cpus", pmu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &cpu) != 1)
		cpu = -1;
	fclose(f);
	return cpu;
}

#define NEED_HYBRID(core, atom) do {					\
	if (!have_fakepmu())						\
		SKIP(return, NO_FAKEPMU);			\
	core = first_cpu_of("cpu_core");				\
	atom = first_cpu_of("cpu_atom");				\
	if (core < 0 || atom < 0)					\
		SKIP(return, "no hybrid PMUs (load fakepmu hybrid=1)");	\
} while (0)

/* The CPU of the third core type (fakepmu hybrid=3), or skip. */
#define NEED_LOWPOWER(lp) do {						\
	if (!have_fakepmu())						\
		SKIP(return, "test PMU not loaded");			\
	lp = first_cpu_of("cpu_lowpower");				\
	if (lp < 0)							\
		SKIP(return, "no cpu_lowpower PMU (load fakepmu hybrid=3)"); \
} while (0)

static cpc_t *open_cpc(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	if (cpc)
		cpc_seterrhndlr(cpc, cpc_errlog_handler);
	return cpc;
}

/* One request of event name with flags and preset; the set, or NULL. */
static cpc_set_t *one_request(cpc_t *cpc, const char *name, uint64_t preset,
			      unsigned int flags)
{
	cpc_set_t *set = cpc_set_create(cpc);

	if (!set || cpc_set_add_request(cpc, set, name, preset, flags, 0, NULL) != 0)
		return NULL;
	return set;
}

static int sample1(cpc_t *cpc, cpc_set_t *set, uint64_t *v)
{
	cpc_buf_t *buf = cpc_buf_create(cpc, set);
	int ret;

	if (!buf)
		return errno;
	ret = cpc_set_sample(cpc, set, buf) ? errno : 0;
	if (!ret)
		ret = cpc_buf_get(cpc, buf, 0, v) ? errno : 0;
	cpc_buf_destroy(cpc, buf);
	return ret;
}

/* /dev/pctr: the same selector counts on a P-core and on an E-core. */
TEST(pctr_counts_on_both_core_types)
{
	struct pctrst st;
	int core, atom, fd;

	NEED_HYBRID(core, atom);
	ASSERT_EQ(0, pctr_set(0, EV_INSTR | PCTR_U | PCTR_EN));
	ASSERT_EQ(0, inject(core, EV_INSTR, 1200));
	ASSERT_EQ(0, inject(atom, EV_INSTR, 3400));
	fd = open(_PATH_PCTR, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pctr_read_on(fd, core, &st));
	EXPECT_EQ(1200ULL, st.pctr_hwc[0]);
	ASSERT_EQ(0, pctr_read_on(fd, atom, &st));
	EXPECT_EQ(3400ULL, st.pctr_hwc[0]);
	close(fd);
	EXPECT_EQ(0, pctr_set(0, 0));
}

/* A thread's counter follows it across core types: the sum of both PMUs. */
TEST(thread_counter_counts_on_both_core_types)
{
	int core, atom;
	cpc_set_t *set;
	cpc_t *cpc;
	uint64_t v;

	NEED_HYBRID(core, atom);
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = one_request(cpc, "PAPI_tot_ins", 0, CPC_COUNT_USER);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, pin_to_cpu(core));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	ASSERT_EQ(0, inject(core, EV_INSTR, 100));
	ASSERT_EQ(0, pin_to_cpu(atom));
	ASSERT_EQ(0, inject(atom, EV_INSTR, 20));
	ASSERT_EQ(0, sample1(cpc, set, &v));
	EXPECT_EQ(120ULL, v);
	/* A raw platform code too. */
	EXPECT_EQ(0, cpc_unbind(cpc, set));
	EXPECT_EQ(0, cpc_close(cpc));
}

/* No single counter sees a hybrid thread's events: overflow is ENOTSUP. */
TEST(thread_overflow_request_is_enotsup)
{
	int core, atom;
	cpc_set_t *set;
	cpc_t *cpc;

	NEED_HYBRID(core, atom);
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = one_request(cpc, "PAPI_tot_ins", UINT64_MAX - 999,
			  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT);
	ASSERT_NE(NULL, set);
	errno = 0;
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(ENOTSUP, errno);
	EXPECT_EQ(0, cpc_close(cpc));
}

/* A CPU binding of an E-core counts there, with overflow. */
static volatile sig_atomic_t emt_seen;

static void emt_handler(int sig, siginfo_t *si, void *uc)
{
	emt_seen++;
}

TEST(cpu_binding_of_an_e_core_counts_and_overflows)
{
	struct sigaction sa = { .sa_sigaction = emt_handler, .sa_flags = SA_SIGINFO };
	int core, atom, i;
	cpc_set_t *set;
	cpc_t *cpc;
	uint64_t v;

	NEED_HYBRID(core, atom);
	ASSERT_EQ(0, sigaction(SIGEMT, &sa, NULL));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = one_request(cpc, "PAPI_tot_ins", UINT64_MAX - 999,
			  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_bind_cpu(cpc, atom, set, 0));
	ASSERT_EQ(0, inject(atom, EV_INSTR, 999));
	ASSERT_EQ(0, sample1(cpc, set, &v));
	EXPECT_EQ(UINT64_MAX, v);
	ASSERT_EQ(0, inject(atom, EV_INSTR, 1));
	for (i = 0; i < 200 && !emt_seen; i++)
		usleep(5000);
	EXPECT_EQ(1, emt_seen);
	EXPECT_EQ(0, cpc_unbind(cpc, set));
	EXPECT_EQ(0, cpc_close(cpc));
}

/* The counters a set may use: as many as the smaller PMU has, at least one. */
TEST(npic_is_at_least_one)
{
	int core, atom;
	cpc_t *cpc;

	NEED_HYBRID(core, atom);
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	EXPECT_LE(1U, cpc_npic(cpc));
	EXPECT_GE(8U, cpc_npic(cpc));
	/* CPUID on every CPU (each core type answers for itself), smallest */
	EXPECT_EQ(expected_npic(), cpc_npic(cpc));
	EXPECT_EQ(0, cpc_close(cpc));
}

/* ---- a third core type: cpu_lowpower ------------------------------------ */

/* /dev/pctr: a counter of every CPU, the cpu_lowpower one counting too. */
TEST(lowpower_pctr_counts_on_every_cpu)
{
	struct pctrst st;
	int lp, fd;

	NEED_LOWPOWER(lp);
	ASSERT_EQ(0, pctr_set(0, EV_INSTR | PCTR_U | PCTR_EN));
	ASSERT_EQ(0, inject(lp, EV_INSTR, 4321));
	fd = open(_PATH_PCTR, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pctr_read_on(fd, lp, &st));
	EXPECT_EQ(4321ULL, st.pctr_hwc[0]);
	close(fd);
	EXPECT_EQ(0, pctr_set(0, 0));
}

/* /dev/perfmon: a counter set up over every CPU sums the cpu_lowpower one's. */
TEST(lowpower_perfmon_counts)
{
	unsigned int ctl = EV_INSTR | (unsigned int)PMCF_USR << 16;
	long long v = -1;
	int lp, fd;

	NEED_LOWPOWER(lp);
	fd = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, perfmon_setup_fd(fd, 0, ctl));
	ASSERT_EQ(0, perfmon_ctl_fd(fd, PMIOSTART, 0));
	ASSERT_EQ(0, inject(lp, EV_INSTR, 2468));
	ASSERT_EQ(0, perfmon_read_fd(fd, 0, &v));
	EXPECT_EQ(2468LL, v);
	EXPECT_EQ(0, perfmon_ctl_fd(fd, PMIOSTOP, 0));
	close(fd);
}

static int pf_img(int fd, unsigned long req, __u64 image)
{
	__u64 v = image;

	return ioctl(fd, req, &v) ? -errno : 0;
}

/* pfcntr EACH and ALL (LOGALL): the cpu_lowpower CPU's counts are there. */
static void pf_lowpower(struct __test_metadata *_metadata, int mode)
{
	static struct pfcntrs_ev6 f[MAXCPU];
	struct pfcntrs_ev6 *a = f;
	union pmctrs_ev6 img = { .pmctrs_ev6_long = 0 };
	int lp, fd;

	NEED_LOWPOWER(lp);
	ASSERT_GT(MAXCPU, count_possible_cpus());
	fd = pf_open(mode);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	ASSERT_EQ(0, pf_req(fd, PCNTLOGALL));
	ASSERT_EQ(0, pf_long(fd, PCNT6MUX, PF6_MUX0_RET_INSTRUCTIONS));
	img.pmctrs_ev6_select = 3;
	img.pmctrs_ev6_cpu = PMCTRS_ALL_CPUS;
	ASSERT_EQ(0, pf_img(fd, PCNT6RESTART, img.pmctrs_ev6_long));
	ASSERT_EQ(0, inject(lp, EV_INSTR, 1357));
	memset(f, 0, sizeof(f));
	ASSERT_EQ(0, ioctl(fd, PCNT6READCNTRS, &a)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(1357ULL, f[mode == PCNTOPENEACH ? lp : 0].pf_cntr0);
	close(fd);
}

TEST(lowpower_pfcntr_each_counts)
{
	pf_lowpower(_metadata, PCNTOPENEACH);
}

TEST(lowpower_pfcntr_all_counts)
{
	pf_lowpower(_metadata, PCNTOPENALL);
}

/* cpc_bind_cpu() of the cpu_lowpower CPU counts there. */
TEST(lowpower_cpu_binding_counts)
{
	cpc_set_t *set;
	cpc_t *cpc;
	uint64_t v;
	int lp;

	NEED_LOWPOWER(lp);
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = one_request(cpc, "PAPI_tot_ins", 0, CPC_COUNT_USER);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_bind_cpu(cpc, lp, set, 0)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, inject(lp, EV_INSTR, 9753));
	ASSERT_EQ(0, sample1(cpc, set, &v));
	EXPECT_EQ(9753ULL, v);
	EXPECT_EQ(0, cpc_unbind(cpc, set));
	EXPECT_EQ(0, cpc_close(cpc));
}

/*
 * A raw event (a platform code) bound to the cpu_lowpower CPU counts there:
 * a raw code goes to each core type's PMU by its type, with no fallback by
 * perf (a generic event finds the CPU's PMU through perf's own search).
 */
TEST(lowpower_raw_cpu_binding_counts)
{
	struct pmc_cpc_request r;
	struct pmc_cpc_bind b;
	__u64 v = 0;
	int lp, fd, ret;

	NEED_LOWPOWER(lp);
	ASSERT_EQ(0, pin_to_cpu(lp));
	fd = cpc_dev_open();
	ASSERT_LE(0, fd);
	cpc_req(&r, PERF_TYPE_RAW, EV_INSTR, CPC_COUNT_USER, 0, 0);
	memset(&b, 0, sizeof(b));
	b.cpu = lp;
	ret = cpc_dev_bind(fd, PMC_CPC_BIND_CPU, 0, &r, 1, &b);
	ASSERT_EQ(0, ret) TH_LOG("%s, subcode %d", strerror(-ret), b.subcode);
	ASSERT_EQ(0, inject(lp, EV_INSTR, 8642));
	ASSERT_EQ(0, cpc_dev_sample(fd, b.id, &v, 1));
	EXPECT_EQ(8642ULL, v);
	EXPECT_EQ(0, cpc_dev_id_op(fd, PMC_CPC_RELE, b.id));
	close(fd);
}

/* A thread bound and running on the cpu_lowpower CPU is counted there. */
TEST(lowpower_thread_counter_counts)
{
	int core, atom, lp;
	cpc_set_t *set;
	cpc_t *cpc;
	uint64_t v;

	NEED_HYBRID(core, atom);
	NEED_LOWPOWER(lp);
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = one_request(cpc, "PAPI_tot_ins", 0, CPC_COUNT_USER);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, pin_to_cpu(lp));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	ASSERT_EQ(0, inject(lp, EV_INSTR, 77));
	ASSERT_EQ(0, sample1(cpc, set, &v));
	EXPECT_EQ(77ULL, v);
	/* On all three core types: the sum. */
	ASSERT_EQ(0, pin_to_cpu(core));
	ASSERT_EQ(0, inject(core, EV_INSTR, 100));
	ASSERT_EQ(0, pin_to_cpu(atom));
	ASSERT_EQ(0, inject(atom, EV_INSTR, 20));
	ASSERT_EQ(0, sample1(cpc, set, &v));
	EXPECT_EQ(197ULL, v);
	EXPECT_EQ(0, cpc_unbind(cpc, set));
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST_HARNESS_MAIN
