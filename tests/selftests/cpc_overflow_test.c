// SPDX-License-Identifier: GPL-2.0
/*
 * libcpc overflow requests (CPC_OVF_NOTIFY_EMT) as real x86 PMUs meet them:
 * - exactly one overflow per freeze, whatever stopped and started the set
 *   before (cpc_disable()/cpc_enable(), a restart caused by another counter,
 *   a preset that moved from a long to a short period while running);
 * - a software overflow counter (page faults, counted in process context
 *   with interrupts on) freezing a set that has a hardware counter;
 * - minimum sampling periods (Nehalem/Haswell's limit_period, Haswell's
 *   INST_RETIRED.ALL) and BTS at period 1 on branches, with the test PMU's
 *   limit_period, inst_limit_period and bts parameters.
 *
 * The test PMU counts what a test injects and counts the overflows it
 * delivers in NMI context (debugfs nmi_overflows): an injection of ten
 * periods in one NMI overflows once when perf stops the event at its first
 * overflow, as pmcompat asks (perf_event_refresh(event, 1)), and up to ten
 * times when perf was given more than one refresh credit.
 */
#include <libcpc.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <time.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define EV_INSTR	0x00c0
#define EV_BRANCH	0x00c4
#define USR		CPC_COUNT_USER
#define NMI_OVF		"/sys/kernel/debug/fakepmu/nmi_overflows"
#define LIMIT_PARAM	"limit_period"	/* the test PMU's parameters */
#define INST_PARAM	"inst_limit_period"
#define BTS_PARAM	"bts"
#define P100		(UINT64_MAX - 99ULL)	/* overflows after 100 */
#define CPU		1

static int nmi_overflows(void)
{
	int v;

	return read_file_int(NMI_OVF, &v) ? -1 : v;
}

/* SIGEMTs received; the handler restarts the set when asked to. */
static struct {
	cpc_t *cpc;
	cpc_set_t *set;
	volatile sig_atomic_t count;
	bool restart;
	int restart_err;
} emt;

static void emt_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	emt.count++;
	if (emt.restart && cpc_set_restart(emt.cpc, emt.set))
		emt.restart_err = errno;
	errno = saved;
}

static int setup_emt(void)
{
	struct sigaction sa;

	memset(&emt, 0, sizeof(emt));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emt_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	return sigaction(SIGEMT, &sa, NULL);
}

/* Let any late signal arrive: the freeze runs from a work item. */
static void settle(void)
{
	struct timespec t = { 0, 200 * 1000 * 1000 };

	nanosleep(&t, NULL);
}

/* count user-mode events of code on CPU for this (pinned) thread. */
static int inject_self(unsigned int code, unsigned long long count)
{
	return inject_task(CPU, gettid(), code, count, 0, 0x401000);
}

static uint64_t sample0(cpc_t *cpc, cpc_set_t *set, int index)
{
	cpc_buf_t *buf = cpc_buf_create(cpc, set);
	uint64_t v = 0xdeadULL;

	if (buf && !cpc_set_sample(cpc, set, buf))
		cpc_buf_get(cpc, buf, index, &v);
	if (buf)
		cpc_buf_destroy(cpc, buf);
	return v;
}

FIXTURE(ovf) {
	cpc_t *cpc;
	char saved_limit[24], saved_inst[24], saved_bts[24];
};

FIXTURE_SETUP(ovf)
{
	self->cpc = NULL;
	self->saved_limit[0] = self->saved_inst[0] = self->saved_bts[0] = '\0';
	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	NEED_FAKEPMU();
	NEED_CPUS(CPU + 1);
	ASSERT_EQ(0, pin_to_cpu(CPU));
	ASSERT_EQ(0, setup_emt());
	self->cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, self->cpc);
	emt.cpc = self->cpc;
}

FIXTURE_TEARDOWN(ovf)
{
	if (self->cpc)
		cpc_close(self->cpc);
	if (self->saved_limit[0])
		fakepmu_param_write(LIMIT_PARAM, self->saved_limit);
	if (self->saved_inst[0])
		fakepmu_param_write(INST_PARAM, self->saved_inst);
	if (self->saved_bts[0])
		fakepmu_param_write(BTS_PARAM, self->saved_bts);
}

/*
 * Give a fakepmu parameter the value v (when it has another, it must be
 * writable), remembering the value to put back.
 */
static int set_param(const char *name, char *saved, size_t len, int v)
{
	char buf[16];
	long old = fakepmu_param(name);

	if (old < 0)
		return -1;
	if (old == v)
		return 0;
	if (!saved[0])
		snprintf(saved, len, "%ld\n", old);
	snprintf(buf, sizeof(buf), "%d\n", v);
	return fakepmu_param_write(name, buf);
}

#define SET_PARAM(name, saved, v) do {					\
	if (set_param(name, saved, sizeof(saved), v))			\
		SKIP(return, "the test PMU's %s cannot be set to %d here "	\
		     "(boot the lane with --fakepmu)", name, v);		\
} while (0)

/* ---- M1: one overflow per freeze --------------------------------------- */

/*
 * Review M1's reproducer: disable/enable cycles before any overflow must not
 * let perf count on past the first overflow.
 */
TEST_F(ovf, disable_enable_cycles_leave_exactly_one_overflow)
{
	cpc_set_t *set = cpc_set_create(self->cpc);
	int before, k;

	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "PAPI_tot_ins", P100,
					 USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, set, 0));
	for (k = 0; k < 5; k++) {
		ASSERT_EQ(0, cpc_disable(self->cpc));
		ASSERT_EQ(0, cpc_enable(self->cpc));
	}
	before = nmi_overflows();
	ASSERT_LE(0, before);
	/* Ten periods in one NMI: perf stops the event at the first. */
	ASSERT_EQ(0, inject_self(EV_INSTR, 1000));
	settle();
	EXPECT_EQ(before + 1, nmi_overflows())
		TH_LOG("perf did not stop the counter at its overflow");
	EXPECT_EQ(1, emt.count);
	/* Frozen at the overflow: 100 events from the preset. */
	EXPECT_EQ(0ULL, sample0(self->cpc, set, 0));
	EXPECT_EQ(0, cpc_unbind(self->cpc, set));
}

/*
 * Two overflow counters: the first one's overflow freezes (halts) the
 * second, and the handler's restart starts both again; the second must
 * still stop at its own first overflow.
 */
TEST_F(ovf, restart_driven_by_another_counter_leaves_one_overflow)
{
	cpc_set_t *set = cpc_set_create(self->cpc);
	int before;

	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "PAPI_tot_ins", P100,
					 USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	ASSERT_EQ(1, cpc_set_add_request(self->cpc, set, "PAPI_br_ins", P100,
					 USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, set, 0));
	emt.set = set;
	emt.restart = true;
	ASSERT_EQ(0, inject_self(EV_INSTR, 100));
	settle();
	ASSERT_EQ(1, emt.count);
	ASSERT_EQ(0, emt.restart_err);
	emt.restart = false;

	before = nmi_overflows();
	ASSERT_EQ(0, inject_self(EV_BRANCH, 300));
	settle();
	EXPECT_EQ(before + 1, nmi_overflows())
		TH_LOG("the restart left the second counter more than one overflow");
	EXPECT_EQ(2, emt.count);
	EXPECT_EQ(0, cpc_unbind(self->cpc, set));
}

/*
 * A counter bound with a preset far from overflowing (a long period), given
 * a short one and restarted while it runs: it stops at its first overflow.
 */
TEST_F(ovf, long_to_short_preset_restart_leaves_one_overflow)
{
	cpc_set_t *set = cpc_set_create(self->cpc);
	int before;

	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "PAPI_tot_ins", 0,
					 USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, set, 0));
	ASSERT_EQ(0, inject_self(EV_INSTR, 5));
	ASSERT_EQ(0, cpc_request_preset(self->cpc, 0, P100));
	ASSERT_EQ(0, cpc_set_restart(self->cpc, set));
	EXPECT_EQ(P100, sample0(self->cpc, set, 0));
	before = nmi_overflows();
	ASSERT_EQ(0, inject_self(EV_INSTR, 1000));
	settle();
	EXPECT_EQ(before + 1, nmi_overflows())
		TH_LOG("perf did not stop the counter at its overflow");
	EXPECT_EQ(1, emt.count);
	EXPECT_EQ(0ULL, sample0(self->cpc, set, 0));
	EXPECT_EQ(0, cpc_unbind(self->cpc, set));
}

/* ---- L1: a software overflow counter freezes a hardware one ------------ */

/*
 * Page faults overflow in process context with interrupts on; the freeze
 * snapshot then reads the set's hardware counter as perf_event_read_local()
 * does, interrupts off (the debug kernel's lockdep checks it).
 */
TEST_F(ovf, software_overflow_freezes_a_hardware_counter)
{
	cpc_set_t *set = cpc_set_create(self->cpc);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t ins;
	char *p;
	int i;

	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "sw_page_faults",
					 UINT64_MAX - 9, USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	ASSERT_EQ(1, cpc_set_add_request(self->cpc, set, "PAPI_tot_ins", 0,
					 USR, 0, NULL));
	p = mmap(NULL, 64 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, set, 0));
	ASSERT_EQ(0, inject_self(EV_INSTR, 77));
	for (i = 0; i < 64; i++)
		p[i * page] = 1;
	settle();
	EXPECT_LE(1, emt.count);
	/* Frozen: what is injected after the freeze is not counted. */
	ASSERT_EQ(0, inject_self(EV_INSTR, 5));
	ins = sample0(self->cpc, set, 1);
	EXPECT_EQ(77ULL, ins);
	EXPECT_EQ(0, cpc_unbind(self->cpc, set));
	munmap(p, 64 * page);
}

/* ---- L2: minimum periods and BTS ---------------------------------------- */

/*
 * A task counter switched out and back in is reprogrammed with at least the
 * PMU's minimum period left, as on x86: the tests that count up to a limit
 * run as SCHED_FIFO, so that no other task preempts them between their
 * injections (the timing of the fair class's preemption differs between
 * kernels).
 */
static int run_fifo(void)
{
	struct sched_param sp = { .sched_priority = 10 };

	return sched_setscheduler(0, SCHED_FIFO, &sp);
}

#define NEED_PARAM(name) do {						\
	if (fakepmu_param(name) < 0)					\
		SKIP(return, "this test PMU has no parameter %s", name);	\
} while (0)

/*
 * With a minimum period of 32 (Nehalem/Haswell), a preset 10 events from
 * overflowing binds and overflows at the smallest period the PMU accepts;
 * the values read stay exact.
 */
TEST_F(ovf, short_preset_under_limit_period_overflows_at_the_limit)
{
	cpc_set_t *set;
	int before;

	NEED_PARAM(LIMIT_PARAM);
	SET_PARAM(LIMIT_PARAM, self->saved_limit, 32);
	ASSERT_EQ(0, run_fifo());
	set = cpc_set_create(self->cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "PAPI_tot_ins",
					 UINT64_MAX - 9, USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, set, 0))
		TH_LOG("bind refused a preset under the PMU's minimum period");
	ASSERT_EQ(0, inject_self(EV_INSTR, 9));
	EXPECT_EQ(UINT64_MAX, sample0(self->cpc, set, 0));
	EXPECT_EQ(0, emt.count);
	before = nmi_overflows();
	/*
	 * The overflow comes at the PMU's minimum, 32 events in.  No sleep
	 * before it: as on x86, a counter switched out and back in is
	 * reprogrammed with at least the minimum period left.  The NMI count
	 * is read as soon as each injection returns.
	 */
	ASSERT_EQ(0, inject_self(EV_INSTR, 31 - 9));
	EXPECT_EQ(before, nmi_overflows());
	ASSERT_EQ(0, inject_self(EV_INSTR, 1));
	settle();
	EXPECT_EQ(1, emt.count);
	EXPECT_EQ(before + 1, nmi_overflows());
	/* Frozen at the overflow: 32 events past the preset, exactly. */
	EXPECT_EQ(22ULL, sample0(self->cpc, set, 0));

	/* A restart with the same short preset works the same way. */
	ASSERT_EQ(0, cpc_request_preset(self->cpc, 0, UINT64_MAX - 1));
	ASSERT_EQ(0, cpc_set_restart(self->cpc, set));
	ASSERT_EQ(0, inject_self(EV_INSTR, 40));
	settle();
	EXPECT_EQ(2, emt.count);
	EXPECT_EQ(30ULL, sample0(self->cpc, set, 0));
	EXPECT_EQ(0, cpc_unbind(self->cpc, set));
}

/* Haswell/Broadwell's 128 for INST_RETIRED.ALL, 32 for the others. */
TEST_F(ovf, instruction_limit_is_per_event)
{
	cpc_set_t *set;
	int before;

	NEED_PARAM(INST_PARAM);
	SET_PARAM(INST_PARAM, self->saved_inst, 128);
	ASSERT_EQ(0, run_fifo());
	set = cpc_set_create(self->cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "PAPI_tot_ins",
					 UINT64_MAX - 49, USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	ASSERT_EQ(1, cpc_set_add_request(self->cpc, set, "PAPI_br_ins",
					 UINT64_MAX - 49, USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, set, 0));
	/* Branches take their period of 50. */
	ASSERT_EQ(0, inject_self(EV_BRANCH, 50));
	settle();
	EXPECT_EQ(1, emt.count);
	EXPECT_EQ(0ULL, sample0(self->cpc, set, 1));
	ASSERT_EQ(0, cpc_set_restart(self->cpc, set));
	/* Instructions overflow at 128, not 50 (no sleep: see above). */
	before = nmi_overflows();
	ASSERT_EQ(0, inject_self(EV_INSTR, 127));
	EXPECT_EQ(before, nmi_overflows());
	ASSERT_EQ(0, inject_self(EV_INSTR, 1));
	EXPECT_EQ(before + 1, nmi_overflows());
	settle();
	EXPECT_EQ(2, emt.count);
	EXPECT_EQ(78ULL, sample0(self->cpc, set, 0));
	EXPECT_EQ(0, cpc_unbind(self->cpc, set));
}

/*
 * A preset one event from overflowing on branches: never period 1 (Intel's
 * BTS, which would refuse kernel counting and never call the handler).
 */
TEST_F(ovf, branch_preset_one_is_not_bts)
{
	cpc_set_t *set;
	int before;

	NEED_PARAM(BTS_PARAM);
	SET_PARAM(BTS_PARAM, self->saved_bts, 1);
	set = cpc_set_create(self->cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "PAPI_br_ins",
					 UINT64_MAX, USR | CPC_COUNT_SYSTEM |
					 CPC_OVF_NOTIFY_EMT, 0, NULL));
	ASSERT_EQ(0, cpc_bind_curlwp(self->cpc, set, 0))
		TH_LOG("period 1 on branches reached BTS");
	before = nmi_overflows();
	ASSERT_EQ(0, inject_self(EV_BRANCH, 2));
	settle();
	EXPECT_EQ(1, emt.count);
	EXPECT_EQ(before + 1, nmi_overflows());
	EXPECT_EQ(1ULL, sample0(self->cpc, set, 0));
	EXPECT_EQ(0, cpc_unbind(self->cpc, set));
}

/*
 * A minimum period beyond what pmcompat tries (256): the bind fails, and the
 * subcode names the preset, not the event.
 */
TEST_F(ovf, preset_under_an_unreachable_limit_names_the_preset)
{
	cpc_set_t *set;
	int ret;

	NEED_PARAM(LIMIT_PARAM);
	SET_PARAM(LIMIT_PARAM, self->saved_limit, 100000);
	cpc_errlog_reset();
	cpc_seterrhndlr(self->cpc, cpc_errlog_handler);
	set = cpc_set_create(self->cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "PAPI_tot_ins",
					 UINT64_MAX - 9, USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	ret = cpc_bind_curlwp(self->cpc, set, 0);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(CPC_ATTRIBUTE_OUT_OF_RANGE, cpc_errlog.subcode);
	/* A preset far from overflowing binds. */
	ASSERT_EQ(0, cpc_set_destroy(self->cpc, set));
	set = cpc_set_create(self->cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(self->cpc, set, "PAPI_tot_ins",
					 UINT64_MAX - 999999, USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	EXPECT_EQ(0, cpc_bind_curlwp(self->cpc, set, 0));
	EXPECT_EQ(0, cpc_unbind(self->cpc, set));
}

TEST_HARNESS_MAIN
