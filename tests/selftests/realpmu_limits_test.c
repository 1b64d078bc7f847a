// SPDX-License-Identifier: GPL-2.0
/*
 * The real PMU driver's limits, met through the legacy front-ends (on
 * arm64: Linux's ARMv8 PMUv3 driver under QEMU, 6 event counters and the
 * cycle counter).  A set larger than the counters, or a set whose counters
 * a concurrent perf_event_open() user holds (a pinned group), must give a
 * clear error at bind, start or read, or exact counts: never a silent 0.
 * (perf itself lets a pinned group that never fits open without error and
 * read 0: the legacy APIs must not pass that on.)
 *
 * The event is instructions where they are exact (QEMU -icount, one CPU),
 * else cycles, where only "not zero" can be checked.  Skips, with the
 * reason, when the test PMU is loaded or there is no hardware PMU.
 */
#include <libcpc.h>
#include <sys/pfcntr.h>
#include "pmc_test_util.h"
#include "kselftest_harness.h"
#include "realpmu_util.h"

#define N		500000UL
#define USR		CPC_COUNT_USER
#define MAX_REQ		16
#define GROUP_MAX	16

static char cpc_msg[256];

static void cpc_quiet(const char *fn, int subcode, const char *fmt, va_list ap)
{
	vsnprintf(cpc_msg, sizeof(cpc_msg), fmt, ap);
}

#define OPEN_CPC(cpc) do {						\
	(cpc) = cpc_open(CPC_VER_CURRENT);				\
	if (!(cpc) && (errno == ENOENT || errno == ENXIO || errno == ENODEV)) \
		SKIP(return, "/dev/cpc absent: pmcompat is not loaded");	\
	ASSERT_NE(NULL, (cpc)) TH_LOG("cpc_open: %s", strerror(errno));	\
	cpc_seterrhndlr((cpc), cpc_quiet);				\
} while (0)

/* The event of these tests: exact instructions, else cycles. */
static int exact;
static uint64_t ev_config;
static const char *ev_papi;

static void choose_event(void)
{
	exact = !rp_no_exact_insns();
	ev_config = exact ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_HW_CPU_CYCLES;
	ev_papi = exact ? "PAPI_tot_ins" : "PAPI_tot_cyc";
}

/* ---- a pinned perf group that holds the counters --------------------- */

struct pgroup {
	int fd[GROUP_MAX];
	int n;
};

static void group_close(struct pgroup *g)
{
	while (g->n > 0)
		close(g->fd[--g->n]);
}

/* A pinned group of n events of ev_config: this thread (cpu < 0) or CPU cpu. */
static int group_open(struct pgroup *g, int n, int cpu)
{
	struct perf_event_attr a;
	int i;

	g->n = 0;
	for (i = 0; i < n; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = ev_config;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		if (!i) {
			a.pinned = 1;
			a.disabled = 1;
		}
		g->fd[i] = sys_perf_event_open(&a, cpu < 0 ? 0 : -1, cpu, i ? g->fd[0] : -1,
					       PERF_FLAG_FD_CLOEXEC);
		if (g->fd[i] < 0) {
			group_close(g);
			return -1;
		}
		g->n++;
	}
	return ioctl(g->fd[0], PERF_EVENT_IOC_ENABLE, 0);
}

/* Whether the group is running (its leader's running time grows). */
static int group_runs(struct pgroup *g)
{
	uint64_t v[3];

	rp_loop(1000);
	if (read(g->fd[0], v, sizeof(v)) != sizeof(v))
		return 0;
	return v[2] > 0;
}

/*
 * The largest pinned group of the event that runs: how many counters can
 * count it (6 for instructions, 7 for cycles on QEMU's Cortex-A57).
 */
static int group_capacity(int cpu)
{
	struct pgroup g;
	int n, cap = 0;

	for (n = 1; n <= GROUP_MAX; n++) {
		if (group_open(&g, n, cpu))
			break;
		if (!group_runs(&g)) {
			group_close(&g);
			break;
		}
		cap = n;
		group_close(&g);
	}
	return cap;
}

/* ---- the check: an error, or counts that are right --------------------- */

/*
 * Bind set (thread, or CPU cpu), sample around two equal loops: 0 when
 * every request counted both loops alike and not 0 (exactly 2N + the fixed
 * cost when exact); 1 when bind, a sample or a request failed clearly
 * (errno set, the error handler told why, or a CPC_* error); fails the test
 * on a silent zero or a count that is wrong.
 */
static int check_set(struct __test_metadata *_metadata, cpc_t *cpc, cpc_set_t *set,
		     int nreq, int cpu, const char *what)
{
	cpc_buf_t *b[3];
	uint64_t v[3][MAX_REQ];
	int i, r, ret = 0;

	for (i = 0; i < 3; i++) {
		b[i] = cpc_buf_create(cpc, set);
		if (!b[i]) {
			TH_LOG("%s: cpc_buf_create: %s", what, strerror(errno));
			return -1;
		}
	}
	cpc_msg[0] = 0;
	errno = 0;
	if ((cpu < 0 ? cpc_bind_curlwp(cpc, set, 0) : cpc_bind_cpu(cpc, cpu, set, 0)) < 0) {
		TH_LOG("%s: clear error at bind: %s (%s)", what, strerror(errno), cpc_msg);
		EXPECT_NE(0, errno);
		ret = 1;
		goto out;
	}
	if (cpc_set_sample(cpc, set, b[0]) < 0) {
		TH_LOG("%s: clear error at read: %s (%s)", what, strerror(errno), cpc_msg);
		EXPECT_NE(0, errno);
		ret = 1;
		goto unbind;
	}
	rp_loop(N);
	if (cpc_set_sample(cpc, set, b[1]) < 0) {
		TH_LOG("%s: clear error at read: %s (%s)", what, strerror(errno), cpc_msg);
		EXPECT_NE(0, errno);
		ret = 1;
		goto unbind;
	}
	rp_loop(N);
	if (cpc_set_sample(cpc, set, b[2]) < 0) {
		TH_LOG("%s: clear error at read: %s (%s)", what, strerror(errno), cpc_msg);
		EXPECT_NE(0, errno);
		ret = 1;
		goto unbind;
	}
	for (r = 0; r < nreq; r++) {
		for (i = 0; i < 3; i++)
			cpc_buf_get(cpc, b[i], r, &v[i][r]);
		uint64_t d1 = v[1][r] - v[0][r], d2 = v[2][r] - v[1][r];

		TH_LOG("%s: request %d counted %llu and %llu", what, r,
		       (unsigned long long)d1, (unsigned long long)d2);
		EXPECT_NE(0ULL, d1) TH_LOG("%s: request %d: SILENT ZERO", what, r);
		EXPECT_NE(0ULL, d2) TH_LOG("%s: request %d: SILENT ZERO", what, r);
		if (exact) {
			EXPECT_CLOSE(d1, d2);
			EXPECT_LE(2 * N - rp_tol(2 * N), d1);
			EXPECT_GT(2 * N + 5000, d1);
		}
	}
unbind:
	cpc_unbind(cpc, set);
out:
	for (i = 0; i < 3; i++)
		cpc_buf_destroy(cpc, b[i]);
	return ret;
}

/* A set of n requests of the event: NULL with the reason logged (a clear error). */
static cpc_set_t *make_set(struct __test_metadata *_metadata, cpc_t *cpc, int n, int *added)
{
	cpc_set_t *set = cpc_set_create(cpc);
	int i;

	*added = 0;
	if (!set)
		return NULL;
	for (i = 0; i < n; i++) {
		cpc_msg[0] = 0;
		if (cpc_set_add_request(cpc, set, ev_papi, 0, USR, 0, NULL) < 0) {
			TH_LOG("request %d of %d: clear error at cpc_set_add_request: %s (%s)",
			       i + 1, n, strerror(errno), cpc_msg);
			break;
		}
		(*added)++;
	}
	return set;
}

TEST(a_set_larger_than_the_counters)
{
	cpc_set_t *set;
	cpc_t *cpc;
	int cap, added, n;

	NEED_REAL_PMU();
	choose_event();
	cap = group_capacity(-1);
	ASSERT_LT(0, cap);
	OPEN_CPC(cpc);
	n = cap + 1 < MAX_REQ ? cap + 1 : MAX_REQ;
	TH_LOG("%d counters can count %s; cpc_npic %u; a set of %d", cap, ev_papi,
	       cpc_npic(cpc), n);
	set = make_set(_metadata, cpc, n, &added);
	ASSERT_NE(NULL, set);
	if (added == n)
		check_set(_metadata, cpc, set, n, -1, "thread, one request too many");
	cpc_set_destroy(cpc, set);
	/* The same on a CPU binding. */
	ASSERT_EQ(0, pin_to_cpu(sched_getcpu()));
	set = make_set(_metadata, cpc, n, &added);
	ASSERT_NE(NULL, set);
	if (added == n)
		check_set(_metadata, cpc, set, n, sched_getcpu(), "CPU, one request too many");
	cpc_set_destroy(cpc, set);
	/* And a set that fits counts right. */
	set = make_set(_metadata, cpc, cap < MAX_REQ ? cap : MAX_REQ, &added);
	ASSERT_NE(NULL, set);
	if (added == (cap < MAX_REQ ? cap : MAX_REQ) && added <= (int)cpc_npic(cpc))
		EXPECT_EQ(0, check_set(_metadata, cpc, set, added, -1, "thread, a set that fits"));
	cpc_set_destroy(cpc, set);
	cpc_close(cpc);
}

TEST(counters_held_by_a_pinned_perf_group_of_the_thread)
{
	struct pgroup g;
	cpc_set_t *set;
	cpc_t *cpc;
	int cap, added;

	NEED_REAL_PMU();
	choose_event();
	cap = group_capacity(-1);
	ASSERT_LT(0, cap);
	ASSERT_EQ(0, group_open(&g, cap, -1));
	ASSERT_TRUE(group_runs(&g));
	OPEN_CPC(cpc);
	set = make_set(_metadata, cpc, 1, &added);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(1, added);
	check_set(_metadata, cpc, set, 1, -1, "thread, counters held by perf");
	cpc_set_destroy(cpc, set);
	cpc_close(cpc);
	group_close(&g);
}

TEST(counters_held_by_a_pinned_perf_group_of_the_cpu)
{
	struct pgroup g;
	cpc_set_t *set;
	cpc_t *cpc;
	int cap, added, cpu = sched_getcpu();

	NEED_REAL_PMU();
	choose_event();
	ASSERT_EQ(0, pin_to_cpu(cpu));
	cap = group_capacity(cpu);
	ASSERT_LT(0, cap);
	ASSERT_EQ(0, group_open(&g, cap, cpu));
	ASSERT_TRUE(group_runs(&g));
	OPEN_CPC(cpc);
	set = make_set(_metadata, cpc, 1, &added);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(1, added);
	check_set(_metadata, cpc, set, 1, -1, "thread, CPU counters held by perf");
	cpc_set_destroy(cpc, set);
	set = make_set(_metadata, cpc, 1, &added);
	ASSERT_NE(NULL, set);
	check_set(_metadata, cpc, set, 1, cpu, "CPU binding, CPU counters held by perf");
	cpc_set_destroy(cpc, set);
	cpc_close(cpc);
	group_close(&g);
}

/* pfcntr: EV5 counter 0 (issues or cycles) while perf holds the counters. */
TEST(pfcntr_with_counters_held_by_perf)
{
	struct pfcntrs_ev5 f[256], *p = f;
	long ctx = PF5_CTXT_THIS_PROC | PF5_CTXT_NO_KERNEL, mux;
	union pmctrs_ev5 img;
	struct pgroup g;
	int cap, fd, err = 0;

	NEED_REAL_PMU();
	choose_event();
	mux = exact ? PF5_MUX0_ISSUES : PF5_MUX0_CYCLES;
	ASSERT_GE(256, sysconf(_SC_NPROCESSORS_CONF));
	cap = group_capacity(-1);
	ASSERT_LT(0, cap);
	fd = pf_open(PCNTOPENALL);
	if (fd == -ENOENT || fd == -ENXIO || fd == -ENODEV)
		SKIP(return, "/dev/pfcntr absent: pmcompat is not loaded");
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	ASSERT_EQ(0, group_open(&g, cap, -1));
	ASSERT_TRUE(group_runs(&g));
	img.pmctrs_ev5_long = 0;
	img.pmctrs_ev5_select = PF5_SEL_COUNTER_0;
	img.pmctrs_ev5_cpu = PMCTRS_ALL_CPUS;
	memset(f, 0, sizeof(f));
	if (ioctl(fd, PCNT5CTXTS, &ctx) || ioctl(fd, PCNT5MUX, &mux) ||
	    ioctl(fd, PCNT5RESTART, &img.pmctrs_ev5_long)) {
		err = errno;
		TH_LOG("clear error at start: %s", strerror(err));
	} else {
		rp_loop(N);
		if (ioctl(fd, PCNT5DISABLE, &img.pmctrs_ev5_long) ||
		    ioctl(fd, PCNT5READCNTRS, &p)) {
			err = errno;
			TH_LOG("clear error at read: %s", strerror(err));
		}
	}
	if (!err) {
		TH_LOG("counted %llu", (unsigned long long)f[0].pf_cntr0);
		EXPECT_NE(0ULL, f[0].pf_cntr0) TH_LOG("SILENT ZERO");
		if (exact) {
			EXPECT_LE(2 * N, f[0].pf_cntr0);
			EXPECT_GT(2 * N + 5000, f[0].pf_cntr0);
		}
	}
	close(fd);
	group_close(&g);
}

TEST_HARNESS_MAIN
