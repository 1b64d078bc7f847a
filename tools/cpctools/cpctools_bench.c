// SPDX-License-Identifier: GPL-2.0
/*
 * The overhead of cpustat(8) and cputrack(1) on the software events (a
 * benchmark, not a test: it reports figures and fails only when a tool
 * fails).  `make bench` runs it in the stock VM lane, where /dev/cpc is.
 *
 *   cpustat:  CPU time (user + system, from wait4()) per CPU per interval:
 *             the difference between runs of 10 + N and 10 intervals of
 *             20 ms (the cheapest of 3 runs each);
 *             one set, then two sets taking turns.
 *   cputrack: CPU time per LWP per tick, attached (-p) to a process whose
 *             LWPs sleep or spin: the difference between runs of 20 + N and
 *             20 ticks of 10 ms (the cheapest of 3 runs each); and how much
 *             slower the target runs meanwhile.
 *   A getppid() system call is timed too, to scale the figures (the test
 *   VMs emulate the CPU: everything is much slower than on hardware).
 *
 * The tools are /usr/bin/cpustat and /usr/bin/cputrack, or $CPUSTAT and
 * $CPUTRACK.  Output is TAP, with the figures as comments.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

static int tests, failed;

static void result(int ok, const char *name)
{
	tests++;
	if (!ok)
		failed++;
	printf("%s %d %s\n", ok ? "ok" : "not ok", tests, name);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double last_user, last_sys;

/* Repetitions of each run: the figures use the cheapest (least disturbed). */
#define REPEAT	3

/* Run argv with stdout to /dev/null: CPU seconds used, wall seconds; -1 on failure. */
static double run(char *const argv[], double *wall)
{
	struct rusage ru;
	double t0 = now();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	*wall = now() - t0;
	last_user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	last_sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static const char *tool(const char *env, const char *dflt)
{
	const char *p = getenv(env);

	return p ? p : dflt;
}

/* cpustat with nsets sets, count intervals of 20 ms: CPU seconds, or -1. */
static double cpustat_run(int nsets, int count, double *wall)
{
	const char *path = tool("CPUSTAT", "/usr/bin/cpustat");
	char *argv[12], cnt[16];
	int i = 0;

	snprintf(cnt, sizeof(cnt), "%d", count);
	argv[i++] = (char *)path;
	argv[i++] = "-c";
	argv[i++] = "sw_cpu_clock,sys";
	if (nsets > 1) {
		argv[i++] = "-c";
		argv[i++] = "sw_context_switches,sys";
	}
	argv[i++] = "0.02";
	argv[i++] = cnt;
	argv[i] = NULL;
	return run(argv, wall);
}

/*
 * The cost of an interval: the difference between runs of 110 and 10
 * intervals, so that starting and ending (threads, binding) do not count.
 */
static void bench_cpustat(int nsets, int more)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	double c1 = 1e9, c2 = 1e9, w1 = 0, w2 = 0, u1 = 0, s1 = 0, u2 = 0, s2 = 0, c, w;
	char name[64];
	int i;

	snprintf(name, sizeof(name), "cpustat, %d set%s", nsets, nsets > 1 ? "s" : "");
	for (i = 0; i < REPEAT; i++) {
		c = cpustat_run(nsets, 10, &w);
		if (c < 0)
			break;
		if (c < c1) {
			c1 = c;
			w1 = w;
			u1 = last_user;
			s1 = last_sys;
		}
		c = cpustat_run(nsets, 10 + more, &w);
		if (c < 0)
			break;
		if (c < c2) {
			c2 = c;
			w2 = w;
			u2 = last_user;
			s2 = last_sys;
		}
	}
	if (i < REPEAT) {
		result(0, name);
		return;
	}
	printf("# cpustat (%d set%s, %ld CPUs, intervals of 20 ms): %.1f us of CPU time per CPU "
	       "per interval (user %.1f us, system %.1f us; %d more intervals took %.3f s more "
	       "CPU time, %.2f s more wall time; best of %d)\n", nsets, nsets > 1 ? "s" : "",
	       ncpus, (c2 - c1) * 1e6 / (ncpus * (double)more),
	       (u2 - u1) * 1e6 / (ncpus * (double)more), (s2 - s1) * 1e6 / (ncpus * (double)more),
	       more, c2 - c1, w2 - w1, REPEAT);
	result(1, name);
}

struct spin {
	volatile unsigned long count[8];
	volatile int stop;
};

static struct spin *sp;

static int sleepy;

static void *spinner(void *arg)
{
	long i = (long)arg;

	while (!sp->stop) {
		sp->count[i]++;
		if (sleepy)
			usleep(1000);
	}
	return NULL;
}

static unsigned long total(int n)
{
	unsigned long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += sp->count[i];
	return s;
}

/* cputrack -p pid for ticks ticks of 10 ms: CPU seconds, or -1. */
static double cputrack_run(pid_t pid, int ticks, double *wall)
{
	const char *path = tool("CPUTRACK", "/usr/bin/cputrack");
	char pidstr[16], ticks_s[16];

	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	snprintf(ticks_s, sizeof(ticks_s), "%d", ticks);
	return run((char *[]){ (char *)path, "-T", "0.01", "-N", ticks_s, "-c",
			       "sw_task_clock,sw_page_faults", "-p", pidstr, NULL }, wall);
}

/*
 * cputrack on a target of nlwps LWPs that spin, or sleep (1 ms at a time):
 * the cost of a tick is the difference between runs of 20 + more and 20 ticks.
 */
static void bench_cputrack(int nlwps, int sleeping, int more)
{
	double c1, c2, w1, w2, u1, s1, u2, s2, rate_free, rate_tracked, t0;
	char name[64];
	unsigned long c0;
	pid_t pid;
	int i;

	snprintf(name, sizeof(name), "cputrack, %d %s LWP%s", nlwps,
		 sleeping ? "sleeping" : "spinning", nlwps > 1 ? "s" : "");
	sp = mmap(NULL, sizeof(*sp), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sp == MAP_FAILED) {
		result(0, name);
		return;
	}
	memset((void *)sp, 0, sizeof(*sp));
	sleepy = sleeping;
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		for (i = 1; i < nlwps; i++)
			pthread_create(&t, NULL, spinner, (void *)(long)i);
		spinner(0);
		_exit(0);
	}
	usleep(200000);
	c0 = total(nlwps);
	t0 = now();
	usleep(500000);
	rate_free = (total(nlwps) - c0) / (now() - t0);

	c1 = c2 = 1e9;
	u1 = s1 = u2 = s2 = w1 = w2 = 0;
	for (i = 0; i < REPEAT; i++) {
		double c, w;

		c = cputrack_run(pid, 20, &w);
		if (c < 0)
			break;
		if (c < c1) {
			c1 = c;
			w1 = w;
			u1 = last_user;
			s1 = last_sys;
		}
		c0 = total(nlwps);
		t0 = now();
		c = cputrack_run(pid, 20 + more, &w);
		if (c < 0)
			break;
		if (c < c2) {
			c2 = c;
			w2 = w;
			u2 = last_user;
			s2 = last_sys;
		}
	}
	rate_tracked = (total(nlwps) - c0) / (now() - t0);
	sp->stop = 1;
	waitpid(pid, NULL, 0);
	munmap((void *)sp, sizeof(*sp));
	if (i < REPEAT) {
		result(0, name);
		return;
	}
	printf("# cputrack (-p, %d %s LWP%s, ticks of 10 ms, 2 events): %.1f us of CPU time "
	       "per LWP per tick (user %.1f us, system %.1f us; %d more ticks took %.3f s more "
	       "CPU time, %.2f s more wall time; best of %d); the target ran at %.1f%% of its "
	       "untracked speed\n", nlwps, sleeping ? "sleeping" : "spinning",
	       nlwps > 1 ? "s" : "", (c2 - c1) * 1e6 / ((double)more * nlwps),
	       (u2 - u1) * 1e6 / ((double)more * nlwps), (s2 - s1) * 1e6 / ((double)more * nlwps),
	       more, c2 - c1, w2 - w1, REPEAT, 100.0 * rate_tracked / rate_free);
	result(1, name);
}

/* The cost of a system call here, to scale the figures (TCG is slow). */
static void calibrate(void)
{
	int i, n = 200000;
	double t0 = now();

	for (i = 0; i < n; i++)
		getppid();
	printf("# calibration: a getppid() system call takes %.0f ns on this machine\n",
	       (now() - t0) * 1e9 / n);
}

int main(void)
{
	if (access("/dev/cpc", F_OK)) {
		printf("TAP version 13\n1..0 # SKIP no /dev/cpc (pmcompat not loaded)\n");
		return 0;
	}
	printf("TAP version 13\n1..6\n");
	calibrate();
	/* Fewer rounds where the emulated kernel work is heavy (rebinding, IPIs). */
	bench_cpustat(1, 200);
	bench_cpustat(2, 40);
	bench_cputrack(1, 1, 200);
	bench_cputrack(4, 1, 200);
	bench_cputrack(1, 0, 100);
	bench_cputrack(2, 0, 50);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n", tests - failed, failed);
	return failed ? 1 : 0;
}
