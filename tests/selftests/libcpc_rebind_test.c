// SPDX-License-Identifier: GPL-2.0
/*
 * One libcpc set bound again, as Solaris allows (issue 33, M1 of the
 * fourth Solaris review): several threads binding one set at once, each
 * sampling its own counts and unbinding; cpc_bind_cpu() looped over every
 * online CPU with one set (each bind replaces the set's previous CPU
 * binding, as illumos closes the previous descriptor); and a libpctx
 * init_lwp handler that binds one set again after an exec, with no unbind
 * in fini_lwp.  Solaris' libcpc never refuses these binds; pmcompat's used
 * to keep one binding per set and said EINVAL.
 *
 * With the test PMU the counts are exact injections; without it (arm64)
 * the threads count their own instructions, and the one that does more
 * work reads more.
 */
#include <libcpc.h>
#include <pthread.h>
#include <sys/wait.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define EV_INSTR	0x00c0
#define NTHR		2

/* A set of one request, PAPI_tot_ins (user) or another event. */
static cpc_set_t *one_set(cpc_t *cpc, const char *event)
{
	cpc_set_t *set = cpc_set_create(cpc);

	if (set && cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER, 0, NULL) != 0)
		return NULL;
	return set;
}

/* Some user-mode instructions, n times a fixed loop. */
static void work(long n)
{
	unsigned long x = 0;
	long i;

	for (i = 0; i < n * 100000; i++) {
		x += i;
		__asm__ __volatile__("" : "+r" (x));
	}
}

struct shared {
	cpc_t *cpc;
	cpc_set_t *set;
	pthread_barrier_t barrier;
	int exact;		/* the test PMU: inject exact counts */
};

struct thr {
	struct shared *s;
	int i;
	int bind, sample, unbind;	/* errno of each call, 0 when it worked */
	uint64_t count;
};

static void *thr_fn(void *arg)
{
	struct thr *t = arg;
	struct shared *s = t->s;
	cpc_buf_t *buf = cpc_buf_create(s->cpc, s->set);

	t->bind = -1;
	t->sample = -1;
	t->unbind = -1;
	if (!buf || (s->exact && pin_to_cpu(t->i + 1)))
		return NULL;
	/* Both bind before either samples, and both sample before either unbinds. */
	pthread_barrier_wait(&s->barrier);
	t->bind = cpc_err_of(cpc_bind_curlwp(s->cpc, s->set, 0));
	pthread_barrier_wait(&s->barrier);
	if (s->exact)
		inject_here(EV_INSTR, 100 * (t->i + 1));
	else
		work(10 * (t->i + 1) * (t->i + 1));
	pthread_barrier_wait(&s->barrier);
	t->sample = cpc_err_of(cpc_set_sample(s->cpc, s->set, buf));
	if (!t->sample)
		cpc_buf_get(s->cpc, buf, 0, &t->count);
	pthread_barrier_wait(&s->barrier);
	t->unbind = cpc_err_of(cpc_unbind(s->cpc, s->set));
	return NULL;
}

TEST(two_threads_bind_sample_and_unbind_one_set)
{
	struct shared s = { 0 };
	struct thr t[NTHR];
	pthread_t id[NTHR];
	int i;

	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	s.exact = have_fakepmu();
	if (s.exact)
		NEED_CPUS(NTHR + 1);
	s.cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, s.cpc);
	s.set = one_set(s.cpc, "PAPI_tot_ins");
	ASSERT_NE(NULL, s.set);
	/*
	 * Without the test PMU, a PMU may have no instruction event (QEMU's
	 * arm64 one without -icount): then each thread's CPU time.
	 */
	if (!s.exact && cpc_bind_curlwp(s.cpc, s.set, 0)) {
		TH_LOG("no PAPI_tot_ins here (%s): sw_task_clock", strerror(errno));
		ASSERT_EQ(0, cpc_set_destroy(s.cpc, s.set));
		s.set = one_set(s.cpc, "sw_task_clock");
		ASSERT_NE(NULL, s.set);
	} else if (!s.exact) {
		ASSERT_EQ(0, cpc_unbind(s.cpc, s.set));
	}
	ASSERT_EQ(0, pthread_barrier_init(&s.barrier, NULL, NTHR));
	for (i = 0; i < NTHR; i++) {
		t[i] = (struct thr){ .s = &s, .i = i };
		ASSERT_EQ(0, pthread_create(&id[i], NULL, thr_fn, &t[i]));
	}
	for (i = 0; i < NTHR; i++)
		ASSERT_EQ(0, pthread_join(id[i], NULL));
	for (i = 0; i < NTHR; i++) {
		/* Solaris: 0, 0, 0 in each thread. */
		EXPECT_EQ(0, t[i].bind) TH_LOG("thread %d: bind %s", i, strerror(t[i].bind));
		EXPECT_EQ(0, t[i].sample) TH_LOG("thread %d: sample %s", i, strerror(t[i].sample));
		EXPECT_EQ(0, t[i].unbind) TH_LOG("thread %d: unbind %s", i, strerror(t[i].unbind));
		TH_LOG("thread %d counted %llu", i, (unsigned long long)t[i].count);
	}
	/* Each thread's own counts. */
	if (s.exact) {
		EXPECT_EQ(100ULL, t[0].count);
		EXPECT_EQ(200ULL, t[1].count);
	} else {
		EXPECT_LT(0ULL, t[0].count);
		EXPECT_LT(t[0].count, t[1].count);
	}
	/* Unbound by both: not bound any more. */
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(s.cpc, s.set)));
	pthread_barrier_destroy(&s.barrier);
	EXPECT_EQ(0, cpc_close(s.cpc));
}

static int cpu_ok(int c)
{
	cpu_set_t m;

	return !sched_getaffinity(0, sizeof(m), &m) && CPU_ISSET(c, &m);
}

TEST(cpc_bind_cpu_over_every_cpu_with_one_set)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), c, bound = 0, exact;
	cpu_set_t before, after;
	cpc_buf_t *buf;
	cpc_set_t *set;
	uint64_t v;
	cpc_t *cpc;

	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	exact = have_fakepmu();
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(before), &before));
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	set = one_set(cpc, exact ? "PAPI_tot_ins" : "sw_cpu_clock");
	ASSERT_NE(NULL, set);
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	for (c = 0; c < ncpu && c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &before) || cpu_online_state(c) == 0)
			continue;
		/* Solaris: 0 for every CPU, the same set each time. */
		ASSERT_EQ(0, cpc_err_of(cpc_bind_cpu(cpc, c, set, 0))) TH_LOG("cpu %d", c);
		bound++;
		EXPECT_EQ(c, sched_getcpu());
		EXPECT_TRUE(cpu_ok(c));
		if (exact) {
			ASSERT_EQ(0, inject_here(EV_INSTR, 10 + c));
		} else {
			work(5);
		}
		ASSERT_EQ(0, cpc_err_of(cpc_set_sample(cpc, set, buf))) TH_LOG("cpu %d", c);
		ASSERT_EQ(0, cpc_buf_get(cpc, buf, 0, &v));
		/* This CPU's counts, from its own bind. */
		if (exact) {
			EXPECT_EQ(10ULL + c, v) TH_LOG("cpu %d", c);
		} else {
			EXPECT_LT(0ULL, v) TH_LOG("cpu %d", c);
		}
	}
	EXPECT_LE(1, bound);
	/* One unbind ends it, and gives back the affinity the first bind found. */
	EXPECT_EQ(0, cpc_err_of(cpc_unbind(cpc, set)));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(after), &after));
	EXPECT_TRUE(CPU_EQUAL(&before, &after));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc, set)));
	/* Every CPU is free again: another handle binds one. */
	{
		cpc_t *other = cpc_open(CPC_VER_CURRENT);
		cpc_set_t *os = other ? one_set(other, "sw_cpu_clock") : NULL;

		ASSERT_NE(NULL, os);
		for (c = 0; c < ncpu; c++)
			if (CPU_ISSET(c, &before) && cpu_online_state(c) != 0)
				break;
		EXPECT_EQ(0, cpc_err_of(cpc_bind_cpu(other, c, os, 0)));
		EXPECT_EQ(0, cpc_close(other));
	}
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(before), &before));
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST(rebinding_the_same_cpu_replaces_the_binding)
{
	cpc_set_t *set;
	cpc_buf_t *buf;
	cpu_set_t before;
	uint64_t v;
	cpc_t *cpc;

	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(before), &before));
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	set = one_set(cpc, "PAPI_tot_ins");
	ASSERT_NE(NULL, set);
	buf = cpc_buf_create(cpc, set);
	ASSERT_EQ(0, cpc_bind_cpu(cpc, 1, set, 0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 7));
	/* Bound again to the same CPU: counting from zero. */
	ASSERT_EQ(0, cpc_err_of(cpc_bind_cpu(cpc, 1, set, 0)));
	ASSERT_EQ(0, inject_here(EV_INSTR, 3));
	ASSERT_EQ(0, cpc_set_sample(cpc, set, buf));
	ASSERT_EQ(0, cpc_buf_get(cpc, buf, 0, &v));
	EXPECT_EQ(3ULL, v);
	EXPECT_EQ(0, cpc_unbind(cpc, set));
	EXPECT_EQ(0, cpc_close(cpc));
	sched_setaffinity(0, sizeof(before), &before);
}

/* ---- a libpctx handler that binds again after an exec ------------------------- */

static struct {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
	int binds, bind_errors, execs, ticks, samples;
	int bind_errno;
} g;

static void quiet(const char *fn, const char *fmt, va_list ap)
{
}

static int init_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	/* The one set, bound to every LWP; fini_lwp never unbinds it. */
	if (cpc_bind_pctx(g.cpc, pctx, lwpid, g.set, 0)) {
		g.bind_errors++;
		g.bind_errno = errno;
		return -1;
	}
	g.binds++;
	return 0;
}

static int fini_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	return 0;
}

static int on_exec(pctx_t *pctx, pid_t pid, id_t lwpid, char *name, void *arg)
{
	g.execs++;
	return 0;
}

static int tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	g.ticks++;
	if (!cpc_set_sample(g.cpc, g.set, g.buf))
		g.samples++;
	return 0;
}

/* The workload: when run with REBIND_WORKLOAD set, before the harness. */
__attribute__((constructor)) static void workload(void)
{
	const char *w = getenv("REBIND_WORKLOAD");

	if (!w)
		return;
	if (!strcmp(w, "exec")) {
		usleep(150000);
		execve("/proc/self/exe", (char *[]){ "rebind-exec", NULL },
		       (char *[]){ "REBIND_WORKLOAD=sleep", NULL });
		_exit(93);
	}
	if (!strcmp(w, "sleep")) {
		usleep(300000);
		_exit(7);
	}
	_exit(99);
}

TEST(pctx_init_lwp_binds_one_set_again_after_an_exec)
{
	char path[4096];
	ssize_t n;
	pctx_t *pctx;
	int ret;

	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	memset(&g, 0, sizeof(g));
	g.cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, g.cpc);
	g.set = one_set(g.cpc, "sw_task_clock");
	ASSERT_NE(NULL, g.set);
	g.buf = cpc_buf_create(g.cpc, g.set);
	ASSERT_NE(NULL, g.buf);
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	ASSERT_LT(0, n);
	path[n] = '\0';
	setenv("REBIND_WORKLOAD", "exec", 1);
	pctx = pctx_create(path, (char *[]){ "rebind", NULL }, NULL, 0, quiet);
	unsetenv("REBIND_WORKLOAD");
	ASSERT_NE(NULL, pctx);
	ASSERT_EQ(0, pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp,
				     PCTX_FINI_LWP_EVENT, fini_lwp,
				     PCTX_SYSC_EXEC_EVENT, on_exec, PCTX_NULL_EVENT));
	ret = pctx_run(pctx, 50, 0, tick);
	pctx_release(pctx);
	/* Solaris: the second bind works, and pctx_run() ends with the process. */
	EXPECT_EQ(0, ret);
	EXPECT_EQ(1, g.execs);
	EXPECT_EQ(2, g.binds);
	EXPECT_EQ(0, g.bind_errors) TH_LOG("bind: %s", strerror(g.bind_errno));
	EXPECT_LT(0, g.ticks);
	EXPECT_EQ(g.ticks, g.samples);
	EXPECT_EQ(0, cpc_close(g.cpc));
}

TEST_HARNESS_MAIN
