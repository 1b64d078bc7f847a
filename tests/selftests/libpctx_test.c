// SPDX-License-Identifier: GPL-2.0
/*
 * cpc_terminate() of a set bound through libpctx while pctx_run() runs
 * (issue 22 item 6), as on Solaris: it only makes pctx_run() return (0).
 * A captured process runs on, untraced, and ends with its own exit status;
 * a created one stays under control until pctx_release() kills it.  From
 * a signal handler (cpc_terminate(3CPC)'s use), from the tick function,
 * and from another thread while pctx_run() waits without ticks.  The
 * counted event is the software task clock, so no test PMU is needed.
 */
#include <libcpc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include "pmc_test_util.h"
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define EXIT_CODE	7

/* What the handlers saw; set before pctx_run(). */
static struct {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
	int cmd;			/* the target's command pipe, or -1 */
	int terminate_at;		/* tick: cpc_terminate() at this one */
	volatile sig_atomic_t alarms;
	int binds, bind_errors, ticks, fini;
	pid_t pid;			/* the process of init_lwp */
	uint64_t counted;		/* the largest sample */
} g;

static void quiet(const char *fn, const char *fmt, va_list ap)
{
}

static int init_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	g.pid = pid;
	if (cpc_bind_pctx(g.cpc, pctx, lwpid, g.set, 0))
		g.bind_errors++;
	else
		g.binds++;
	return 0;
}

static int fini_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	g.fini++;
	return 0;
}

static int tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	uint64_t v = 0;
	char c = 'b';

	g.ticks++;
	if (g.ticks == 1 && g.cmd >= 0 && write(g.cmd, &c, 1) != 1)
		return 1;
	if (!cpc_set_sample(g.cpc, g.set, g.buf) &&
	    !cpc_buf_get(g.cpc, g.buf, 0, &v) && v > g.counted)
		g.counted = v;
	if (g.ticks == g.terminate_at)
		cpc_terminate(g.cpc);
	return 0;
}

static void on_alarm(int sig)
{
	g.alarms++;
	cpc_terminate(g.cpc);
}

/* A child that burns CPU time for each 'b' and acknowledges it. */
struct target {
	pid_t pid;
	int cmd, ack;
};

static int target_start(struct target *t)
{
	int cmd[2], ack[2];

	if (pipe(cmd) || pipe(ack))
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		unsigned long x = 0;
		char c;
		long i;

		close(cmd[1]);
		close(ack[0]);
		while (read(cmd[0], &c, 1) == 1) {
			for (i = 0; c == 'b' && i < 3000000; i++) {
				x += i;
				__asm__ __volatile__("" : "+r" (x));
			}
			if (write(ack[1], "K", 1) != 1)
				_exit(3);
		}
		_exit(EXIT_CODE);
	}
	close(cmd[0]);
	close(ack[1]);
	t->cmd = cmd[1];
	t->ack = ack[0];
	return 0;
}

/* Wait for n acknowledgements: 0 when they came. */
static int target_acks(struct target *t, int n)
{
	char a;

	while (n-- > 0)
		if (read(t->ack, &a, 1) != 1 || a != 'K')
			return -1;
	return 0;
}

/* The tracer of pid from /proc (0: none), or -1. */
static int tracer_of(pid_t pid)
{
	char path[64], line[256];
	int tracer = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	return tracer;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

FIXTURE(pctx) {
	struct target t;
};

FIXTURE_SETUP(pctx)
{
	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	memset(&g, 0, sizeof(g));
	g.cmd = -1;
	self->t.pid = -1;
	g.cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, g.cpc);
	g.set = cpc_set_create(g.cpc);
	ASSERT_NE(NULL, g.set);
	ASSERT_EQ(0, cpc_set_add_request(g.cpc, g.set, "sw_task_clock", 0,
					 CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL));
	g.buf = cpc_buf_create(g.cpc, g.set);
	ASSERT_NE(NULL, g.buf);
}

FIXTURE_TEARDOWN(pctx)
{
	if (self->t.pid > 0) {
		kill(self->t.pid, SIGKILL);
		waitpid(self->t.pid, NULL, 0);
	}
	if (g.cpc)
		cpc_close(g.cpc);
}

/*
 * The captured process after pctx_run() returned: alive, untraced, still
 * answering; after pctx_release() it ends with its own status.
 */
static void captured_runs_on(struct __test_metadata *_metadata, pctx_t *pctx,
			     struct target *t)
{
	int status;

	EXPECT_EQ(0, kill(t->pid, 0));
	EXPECT_EQ(0, tracer_of(t->pid));
	EXPECT_EQ(1, write(t->cmd, "b", 1));
	EXPECT_EQ(0, target_acks(t, 1)) TH_LOG("the captured process did not run on");
	pctx_release(pctx);
	EXPECT_EQ(0, kill(t->pid, 0));
	close(t->cmd);		/* it exits EXIT_CODE at the end of its commands */
	close(t->ack);
	ASSERT_EQ(t->pid, waitpid(t->pid, &status, 0));
	t->pid = -1;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_CODE)
		TH_LOG("status %#x", status);
}

TEST_F_TIMEOUT(pctx, cpc_terminate_in_a_signal_handler_ends_pctx_run, 60)
{
	struct itimerval it = { .it_value = { 0, 600000 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	pctx_t *pctx;
	double t0, dt;
	int ret;

	ASSERT_EQ(0, target_start(&self->t));
	g.cmd = self->t.cmd;
	pctx = pctx_capture(self->t.pid, NULL, 0, quiet);
	ASSERT_NE(NULL, pctx);
	ASSERT_EQ(0, pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp,
				     PCTX_FINI_LWP_EVENT, fini_lwp, PCTX_NULL_EVENT));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	t0 = now_s();
	ret = pctx_run(pctx, 100, 0, tick);
	dt = now_s() - t0;
	signal(SIGALRM, SIG_DFL);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(1, g.alarms);
	EXPECT_GE(dt, 0.55);
	EXPECT_LT(dt, 5.0);
	EXPECT_EQ(1, g.binds);
	EXPECT_EQ(0, g.bind_errors);
	EXPECT_LE(2, g.ticks);
	EXPECT_LT(0ULL, (unsigned long long)g.counted) TH_LOG("the bound set counted nothing");
	EXPECT_EQ(0, target_acks(&self->t, 1));		/* the tick's 'b' */
	captured_runs_on(_metadata, pctx, &self->t);
}

TEST_F_TIMEOUT(pctx, cpc_terminate_in_the_tick_ends_pctx_run_of_a_created_process, 60)
{
	char *const argv[] = { "sh", "-c", "while :; do :; done", NULL };
	pctx_t *pctx;
	int ret;

	g.terminate_at = 3;
	pctx = pctx_create("/bin/sh", argv, NULL, 0, quiet);
	ASSERT_NE(NULL, pctx);
	ASSERT_EQ(0, pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp,
				     PCTX_NULL_EVENT));
	ret = pctx_run(pctx, 50, 0, tick);
	EXPECT_EQ(0, ret);
	/* the loop ends at the tick that called it */
	EXPECT_EQ(3, g.ticks);
	EXPECT_EQ(1, g.binds);
	EXPECT_LT(0ULL, (unsigned long long)g.counted);
	ASSERT_LT(0, g.pid);
	/* created: still there, under control, until pctx_release() kills it */
	EXPECT_EQ(0, kill(g.pid, 0));
	EXPECT_EQ(getpid(), tracer_of(g.pid));
	pctx_release(pctx);
	errno = 0;
	EXPECT_EQ(-1, kill(g.pid, 0));
	EXPECT_EQ(ESRCH, errno);
}

static void *terminate_later(void *arg)
{
	usleep(300000);
	cpc_terminate(g.cpc);
	return NULL;
}

TEST_F_TIMEOUT(pctx, cpc_terminate_from_another_thread_ends_pctx_run_without_ticks, 60)
{
	pthread_t thr;
	pctx_t *pctx;
	double t0, dt;
	int ret;

	ASSERT_EQ(0, target_start(&self->t));
	pctx = pctx_capture(self->t.pid, NULL, 0, quiet);
	ASSERT_NE(NULL, pctx);
	ASSERT_EQ(0, pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp,
				     PCTX_NULL_EVENT));
	ASSERT_EQ(0, pthread_create(&thr, NULL, terminate_later, NULL));
	t0 = now_s();
	ret = pctx_run(pctx, 0, 0, NULL);	/* msec 0: the events only */
	dt = now_s() - t0;
	pthread_join(thr, NULL);
	EXPECT_EQ(0, ret);
	EXPECT_GE(dt, 0.25);
	EXPECT_LT(dt, 3.0);
	EXPECT_EQ(1, g.binds);
	EXPECT_EQ(0, g.ticks);
	captured_runs_on(_metadata, pctx, &self->t);
}

/* ---- lwp_create: the new LWP, after its init_lwp (Solaris) ---------------- */

static struct {
	cpc_set_t *set;			/* bound in lwp_create */
	cpc_buf_t *buf;
	char order[8][16];
	int n;
	id_t created;			/* the lwp_create handler's LWP */
	int bind_err;
	uint64_t counted;		/* its task clock, read at its fini */
} lc;

static void lc_ev(const char *what, id_t lwpid)
{
	if (lc.n < 8)
		snprintf(lc.order[lc.n++], sizeof(lc.order[0]), "%s %d", what, (int)lwpid);
}

static int lc_init(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	lc_ev("init", lwpid);
	return 0;
}

static int lc_create(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	lc_ev("create", lwpid);
	lc.created = lwpid;
	/* A Solaris client binds the new thread here. */
	lc.bind_err = cpc_bind_pctx(g.cpc, pctx, lwpid, lc.set, 0) ? errno : 0;
	return 0;
}

static int lc_fini(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	lc_ev("fini", lwpid);
	if (lwpid == lc.created && !cpc_set_sample(g.cpc, lc.set, lc.buf))
		cpc_buf_get(g.cpc, lc.buf, 0, &lc.counted);
	return 0;
}

static int lc_exit(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	lc_ev("exit", lwpid);
	return 0;
}

static void *burn(void *arg)
{
	double t0 = now_s();
	unsigned long x = 0;

	while (now_s() - t0 < 0.2)
		__asm__ __volatile__("" : "+r" (x) : "r" (x + 1));
	return arg;
}

/* The workload, when this program runs with PCTX_WORKLOAD set. */
__attribute__((constructor)) static void workload(void)
{
	const char *w = getenv("PCTX_WORKLOAD");
	pthread_t t;

	if (!w)
		return;
	if (!strcmp(w, "thread")) {
		/* The main thread sleeps while a new one burns 0.2 s of CPU. */
		if (pthread_create(&t, NULL, burn, NULL) || pthread_join(t, NULL))
			_exit(91);
		_exit(EXIT_CODE);
	}
	_exit(99);
}

TEST_F_TIMEOUT(pctx, lwp_create_gets_the_new_lwp_after_its_init, 60)
{
	static const char *const want[] = {
		"init 1", "init 2", "create 2", "fini 2", "exit 2", "fini 1",
	};
	char path[4096];
	pctx_t *pctx;
	ssize_t n;
	int i;

	memset(&lc, 0, sizeof(lc));
	lc.set = cpc_set_create(g.cpc);
	ASSERT_NE(NULL, lc.set);
	ASSERT_EQ(0, cpc_set_add_request(g.cpc, lc.set, "sw_task_clock", 0,
					 CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL));
	lc.buf = cpc_buf_create(g.cpc, lc.set);
	ASSERT_NE(NULL, lc.buf);
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	ASSERT_LT(0, n);
	path[n] = '\0';
	setenv("PCTX_WORKLOAD", "thread", 1);
	pctx = pctx_create(path, (char *[]){ "lwp-create", NULL }, NULL, 0, quiet);
	unsetenv("PCTX_WORKLOAD");
	ASSERT_NE(NULL, pctx);
	ASSERT_EQ(0, pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, lc_init,
				     PCTX_SYSC_LWP_CREATE_EVENT, lc_create,
				     PCTX_FINI_LWP_EVENT, lc_fini,
				     PCTX_SYSC_LWP_EXIT_EVENT, lc_exit, PCTX_NULL_EVENT));
	EXPECT_EQ(0, pctx_run(pctx, 0, 0, NULL));
	pctx_release(pctx);
	ASSERT_EQ((int)(sizeof(want) / sizeof(want[0])), lc.n);
	for (i = 0; i < lc.n; i++)
		EXPECT_STREQ(want[i], lc.order[i]) TH_LOG("event %d", i);
	EXPECT_EQ(2U, lc.created);
	EXPECT_EQ(0, lc.bind_err) TH_LOG("%s", strerror(lc.bind_err));
	/* The new thread's CPU time (0.2 s), not the sleeping creator's. */
	EXPECT_LT(100000000ULL, lc.counted) TH_LOG("counted %llu ns",
						 (unsigned long long)lc.counted);
}

TEST_HARNESS_MAIN
