// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat on a hybrid CPU: P-cores and E-cores with a PMU each ("cpu_core"
 * and "cpu_atom", split over the CPUs).  Run with the test PMU loaded as
 * "fakepmu hybrid=1" (tests/vm/run-lane --fakepmu hybrid=1); without a
 * hybrid PMU every test skips.
 *
 * A legacy event word must count on every CPU whatever its core type: the
 * system-wide devices make each CPU's event on that CPU's PMU, and a
 * thread's counters count on both PMUs and read as the sum.
 */
#include <libcpc.h>
#include <machine/pctr.h>
#include "pmc_test_util.h"

#include "kselftest_harness.h"

#define EV_INSTR	0x00c0
#define PMU_DIR		"/sys/bus/event_source/devices/"

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

TEST_HARNESS_MAIN
