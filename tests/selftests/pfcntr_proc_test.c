// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pfcntr (Tru64 UNIX pfm(7)) and processes: which processes an open
 * counts (LOGSELECT and its PME mark across fork, threads and exec,
 * CLEARPCBPME, LOGALL, the EV5 contexts), what an unprivileged member of
 * the device's group may do, CPU hotplug in EACH mode, the exclusive open
 * released at exit, and /dev/pfcntr counting beside /dev/perfmon and
 * perf_event_open() on one PMU.  Counting arithmetic, the ABI and the
 * request errors are pfcntr_test.c's.
 *
 * The test PMU counts a task event only while that task runs on the CPU
 * injected: so a process that must be counted pins itself to a CPU and
 * injects from there (an unprivileged one through an inject descriptor it
 * opened while still root).  Every expected value below is exact.
 *
 * Every test is a TEST_F of one fixture whose teardown closes what the test
 * opened, brings CPU 3 back online, restores the node's group and mode and
 * perf_event_paranoid, and checks that the device is free again.
 */
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <machine/perfmon.h>
#include <sys/pfcntr.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define EV_INSTR	0x00c0
#define EV_CYCLES	0x003c
#define EV_BRANCHES	0x00c4
#define KERNEL_IP	0xffffffff81000000ULL
#define HOTPLUG_CPU	3
#define MAXCPU		256
#define NOBODY		TOOL_NOBODY
#define P6		(1ULL << 20)	/* EV6 period */
#define U(x)		((unsigned long long)(x))
#define EXEC_ARG	"--pfcntr-proc-exec-injector"

/* The EV6 pair that PAPI programs: instructions on 0, cycles on 1. */
#define MUX6_INSTR_CYCLES	(PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES)
/* EV5: instructions, branches (flow changes), cycles. */
#define MUX5_ISB_CYC	(PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES)

/*
 * The exec'd image of exec_child(): pin to argv[2], inject argv[4] events
 * argv[3] there, exit 0 (or 3 when that failed).  Runs before main().
 */
__attribute__((constructor))
static void exec_injector(int argc, char **argv, char **envp)
{
	int cpu;

	if (argc != 5 || strcmp(argv[1], EXEC_ARG))
		return;
	cpu = atoi(argv[2]);
	if (pin_to_cpu(cpu))
		_exit(2);
	_exit(inject(cpu, strtoul(argv[3], NULL, 0), strtoull(argv[4], NULL, 0)) ? 3 : 0);
}

/* ---- the device ---------------------------------------------------------- */

/* pf_open(), pf_req(), pf_long(): pmc_test_util.h */

/* An EV6 image request (RESTART, CLEAR, ...) on the selected counters. */
static int pf6_image(int fd, unsigned long req, unsigned int sel, unsigned int cpu)
{
	union pmctrs_ev6 u;

	u.pmctrs_ev6_long = 0;
	u.pmctrs_ev6_select = sel;
	u.pmctrs_ev6_cpu = cpu;
	return ioctl(fd, req, &u.pmctrs_ev6_long) ? -errno : 0;
}

static int pf5_image(int fd, unsigned long req, unsigned int sel, unsigned int cpu)
{
	union pmctrs_ev5 u;

	u.pmctrs_ev5_long = 0;
	u.pmctrs_ev5_select = sel;
	u.pmctrs_ev5_cpu = cpu;
	return ioctl(fd, req, &u.pmctrs_ev5_long) ? -errno : 0;
}

/* READCNTRS / GETCNT into a caller array (ALL: [0]; EACH: [cpu]). */
static int pf6_read(int fd, struct pfcntrs_ev6 *c)
{
	struct pfcntrs_ev6 *p = c;

	memset(c, 0xcc, sizeof(*c));
	return ioctl(fd, PCNT6READCNTRS, &p) ? -errno : 0;
}

static int pf6_read_each(int fd, struct pfcntrs_ev6 *c, int n)
{
	struct pfcntrs_ev6 *p = c;

	memset(c, 0xcc, n * sizeof(*c));
	return ioctl(fd, PCNT6READCNTRS, &p) ? -errno : 0;
}

static int pf6_getcnt_each(int fd, struct pfcntrs_ev6 *c, int n)
{
	struct pfcntrs_ev6 *p = c;

	memset(c, 0xcc, n * sizeof(*c));
	return ioctl(fd, PCNT6GETCNT, &p) ? -errno : 0;
}

static int pf5_read(int fd, struct pfcntrs_ev5 *c)
{
	struct pfcntrs_ev5 *p = c;

	memset(c, 0xcc, sizeof(*c));
	return ioctl(fd, PCNT5READCNTRS, &p) ? -errno : 0;
}

/* Counter 0 of an ALL open (READCNTRS), or a value no test expects. */
static unsigned long long pf6_instr(int fd)
{
	struct pfcntrs_ev6 c;

	return pf6_read(fd, &c) ? 0xdeadULL << 48 : c.pf_cntr0;
}

static unsigned long long pf5_instr(int fd)
{
	struct pfcntrs_ev5 c;

	return pf5_read(fd, &c) ? 0xdeadULL << 48 : c.pf_cntr0;
}

/*
 * PAPI's EV6 sequence: SETITEMS COUNTERS, [LOGSELECT,] DISABLE, CLEARCNT,
 * PCNT6MUX, PCNT6RESTART of both counters on every CPU; 0 or -errno.
 */
static int pf6_start(int fd, bool logselect, long mux)
{
	int err;

	if ((err = pf_long(fd, PCNTSETITEMS, PFM_COUNTERS)))
		return err;
	if (logselect && (err = pf_req(fd, PCNTLOGSELECT)))
		return err;
	if ((err = pf_req(fd, PCNTRDISABLE)) || (err = pf_req(fd, PCNTCLEARCNT)) ||
	    (err = pf_long(fd, PCNT6MUX, mux)))
		return err;
	return pf6_image(fd, PCNT6RESTART, PF6_SEL_COUNTER_0 | PF6_SEL_COUNTER_1,
			 PMCTRS_ALL_CPUS);
}

/* ---- injection ----------------------------------------------------------- */

static int inject_mode(int cpu, unsigned int ev, unsigned long long n, bool kernel)
{
	return inject_ip(cpu, ev, n, kernel, kernel ? KERNEL_IP : 0x400000);
}

/* Through a descriptor of the inject file opened while root. */
static int inject_fd(int ifd, int cpu, unsigned int ev, unsigned long long n, bool kernel)
{
	char cmd[160];
	ssize_t len;

	len = snprintf(cmd, sizeof(cmd), "cpu=%d event=0x%x count=%llu mode=%s\n",
		       cpu, ev, n, kernel ? "kernel" : "user");
	return write(ifd, cmd, len) == len ? 0 : -errno;
}

/* ---- child processes --------------------------------------------------- */

/*
 * A child forked now that pins itself to cpu and injects n events ev there
 * (user mode unless kernel), then exits.  Its exit status: 0 when it
 * injected, or -1.
 */
static int child_inject(int cpu, unsigned int ev, unsigned long long n, bool kernel)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (pin_to_cpu(cpu))
			_exit(2);
		_exit(inject_mode(cpu, ev, n, kernel) ? 3 : 0);
	}
	return child_status(pid);
}

/*
 * A process forked now that waits on a pipe; waiter_go() makes it pin to
 * cpu, inject n events ev, and exit, and returns its exit status.
 */
struct waiter {
	pid_t pid;
	int go;
};

static int waiter_fork(struct waiter *w, int cpu, unsigned int ev,
		       unsigned long long n, bool kernel)
{
	int p[2];
	char c;

	if (pipe(p))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (w->pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(4);
		if (pin_to_cpu(cpu))
			_exit(2);
		_exit(inject_mode(cpu, ev, n, kernel) ? 3 : 0);
	}
	close(p[0]);
	w->go = p[1];
	return 0;
}

static int waiter_go(struct waiter *w)
{
	char c = 'g';
	int ok = write(w->go, &c, 1) == 1;

	close(w->go);
	w->go = -1;
	if (!ok)
		return -1;
	ok = child_status(w->pid);
	w->pid = -1;
	return ok;
}

/*
 * A child that injects pre events on cpu, then execs this program, whose
 * new image injects post more there (exec_injector()).  Its exit status.
 */
static int exec_child(int cpu, unsigned int ev, unsigned long long pre,
		      unsigned long long post)
{
	char a_cpu[16], a_ev[16], a_n[32];
	pid_t pid;

	snprintf(a_cpu, sizeof(a_cpu), "%d", cpu);
	snprintf(a_ev, sizeof(a_ev), "0x%x", ev);
	snprintf(a_n, sizeof(a_n), "%llu", post);
	pid = fork();
	if (pid == 0) {
		if (pin_to_cpu(cpu))
			_exit(2);
		if (pre && inject(cpu, ev, pre))
			_exit(3);
		execl("/proc/self/exe", "pfcntr_proc_test", EXEC_ARG, a_cpu, a_ev, a_n,
		      (char *)NULL);
		_exit(127);
	}
	return child_status(pid);
}

/* ---- credentials ------------------------------------------------------- */

/*
 * Become uid/gid 65534 with the supplementary group PMC_TEST_GID (in_group)
 * or none; every capability goes with root.  The process stays dumpable, as
 * an ordinary program of that user is.
 */
static int become_nobody(bool in_group)
{
	gid_t g = PMC_TEST_GID;

	if (setgroups(in_group ? 1 : 0, &g) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -errno;
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return -errno;
	return 0;
}

/* 1 if the calling process has cap in its effective set, 0 if not. */
static int cap_effective(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, d))
		return -1;
	return !!(d[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap));
}

/* What an unprivileged child hands back (no harness macros in a child). */
struct unpriv_out {
	int step;		/* the last step reached */
	int err[24];		/* 0 or -errno of each call */
	unsigned long long val[16];
	int caps;		/* CAP_PERFMON or CAP_SYS_ADMIN still effective */
};

#define NOT_RUN		INT_MIN

/* ---- the fixture ------------------------------------------------------- */

FIXTURE(pfp) {
	int fd;			/* the test's /dev/pfcntr descriptor, or -1 */
	int extra[4];		/* other descriptors closed by the teardown */
	long node_saved;	/* node_to_test_group()'s save, or -1 */
	int paranoid;		/* saved perf_event_paranoid, or INT_MIN */
	bool hotplug;		/* bring HOTPLUG_CPU back online */
	cpu_set_t affinity;
};

FIXTURE_SETUP(pfp)
{
	int fd, i;

	self->fd = -1;
	for (i = 0; i < 4; i++)
		self->extra[i] = -1;
	self->node_saved = -1;
	self->paranoid = INT_MIN;
	self->hotplug = false;
	sched_getaffinity(0, sizeof(self->affinity), &self->affinity);
	if (access(PFCNTR_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PFCNTR_PATH);
	NEED_FAKEPMU();
	NEED_CPUS(4);
	/* Every test starts with the device free. */
	fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd) TH_LOG("open ALL: %s (left open?)", strerror(-fd));
	close(fd);
}

FIXTURE_TEARDOWN(pfp)
{
	char buf[16];
	int i, fd;

	if (self->fd >= 0)
		close(self->fd);
	for (i = 0; i < 4; i++)
		if (self->extra[i] >= 0)
			close(self->extra[i]);
	if (self->hotplug && cpu_online_state(HOTPLUG_CPU) == 0)
		EXPECT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	if (self->node_saved >= 0)
		EXPECT_EQ(0, node_restore(PFCNTR_PATH, self->node_saved));
	if (self->paranoid != INT_MIN) {
		snprintf(buf, sizeof(buf), "%d\n", self->paranoid);
		EXPECT_EQ(0, write_file(PARANOID_PATH, buf));
	}
	sched_setaffinity(0, sizeof(self->affinity), &self->affinity);
	if (access(PFCNTR_PATH, F_OK))
		return;
	/* Whatever the test did, the device is free again. */
	fd = pf_open(PCNTOPENALL);
	EXPECT_LE(0, fd) TH_LOG("device not released: %s", strerror(-fd));
	if (fd >= 0)
		close(fd);
}

/* ---- 1. LOGSELECT: the caller and what it creates afterwards ------------- */

/* Open ALL, PAPI's EV6 sequence with LOGSELECT, the caller pinned to CPU 1. */
static int logselect_all(FIXTURE_DATA(pfp) *self)
{
	int err;

	if (pin_to_cpu(1))
		return -errno;
	self->fd = pf_open(PCNTOPENALL);
	if (self->fd < 0)
		return self->fd;
	err = pf6_start(self->fd, true, MUX6_INSTR_CYCLES);
	return err;
}

TEST_F(pfp, logselect_counts_the_callers_own_events)
{
	struct pfcntrs_ev6 c;

	ASSERT_EQ(0, logselect_all(self));
	ASSERT_EQ(0, inject(1, EV_INSTR, 3 * P6 + 12345));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 55, true));
	ASSERT_EQ(0, inject(1, EV_CYCLES, 777));
	ASSERT_EQ(0, pf6_read(self->fd, &c));
	EXPECT_EQ(U(3 * P6 + 12345 + 55), c.pf_cntr0);
	EXPECT_EQ(U(777), c.pf_cntr1);
	/* The caller is not running on CPU 2: nothing of CPU 2 is its. */
	ASSERT_EQ(0, inject(2, EV_INSTR, 1000));
	ASSERT_EQ(0, pf6_read(self->fd, &c));
	EXPECT_EQ(U(3 * P6 + 12345 + 55), c.pf_cntr0);
}

TEST_F(pfp, logselect_counts_a_child_forked_after_it)
{
	struct pfcntrs_ev6 c;

	ASSERT_EQ(0, logselect_all(self));
	ASSERT_EQ(0, inject(1, EV_INSTR, 100));
	ASSERT_EQ(0, child_inject(2, EV_INSTR, 2 * P6 + 1000, false));
	ASSERT_EQ(0, child_inject(3, EV_CYCLES, 30, true));
	ASSERT_EQ(0, pf6_read(self->fd, &c));
	EXPECT_EQ(U(100 + 2 * P6 + 1000), c.pf_cntr0);
	EXPECT_EQ(U(30), c.pf_cntr1);
	/* and a grandchild */
	pid_t pid = fork();

	if (pid == 0)
		_exit(child_inject(2, EV_INSTR, 7, false) ? 1 : 0);
	ASSERT_EQ(0, child_status(pid));
	EXPECT_EQ(U(100 + 2 * P6 + 1000 + 7), pf6_instr(self->fd));
}

static void *thread_inject(void *arg)
{
	long cpu = (long)arg;

	if (pin_to_cpu(cpu) || inject(cpu, EV_INSTR, 4444))
		return (void *)1L;
	return NULL;
}

TEST_F(pfp, logselect_counts_a_thread_created_after_it)
{
	pthread_t t;
	void *ret = (void *)2L;

	ASSERT_EQ(0, logselect_all(self));
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_inject, (void *)2L));
	ASSERT_EQ(0, pthread_join(t, &ret));
	ASSERT_EQ(NULL, ret);
	EXPECT_EQ(U(4444), pf6_instr(self->fd));
}

/* A thread of the marked tree that injects on its CPU, then waits. */
struct copy_thread {
	int cpu;
	int err;
	volatile int done, go;
};

static void *copy_thread_fn(void *arg)
{
	struct copy_thread *t = arg;

	t->err = pin_to_cpu(t->cpu) ? errno : -inject(t->cpu, EV_INSTR, 1000);
	t->done = 1;
	while (!t->go)
		usleep(1000);
	return NULL;
}

/*
 * A thread's copy of the tree's events that perf cannot schedule (every
 * counter of its CPU held by pinned CPU events) counts nothing: the read
 * fails (EIO) rather than return a sum without that thread's events.
 */
TEST_F(pfp, logselect_copy_without_a_counter_reads_eio)
{
	struct copy_thread t = { .cpu = 2 };
	struct pfcntrs_ev6 c;
	int fds[40], n = 0, gp, i, err;
	pthread_t th;

	if (!access("/sys/bus/event_source/devices/cpu_core", F_OK))
		SKIP(return, "hybrid: the raw events that take CPU %d's counters are cpu_core's",
		     t.cpu);
	gp = fakepmu_gp_counters();
	ASSERT_LT(0, gp);
	ASSERT_EQ(0, logselect_all(self));
	/* Fixed counter 0 (instructions) and every general-purpose one. */
	fds[n] = open_pinned_cpu_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 2);
	ASSERT_LE(0, fds[n]) TH_LOG("perf_event_open: %s", strerror(errno));
	n++;
	for (i = 0; i < gp; i++) {
		fds[n] = open_pinned_cpu_event(PERF_TYPE_RAW, EV_GP_ONLY, 2);
		ASSERT_LE(0, fds[n]) TH_LOG("perf_event_open: %s", strerror(errno));
		n++;
	}
	ASSERT_EQ(0, pthread_create(&th, NULL, copy_thread_fn, &t));
	while (!t.done)
		usleep(1000);
	EXPECT_EQ(0, t.err);
	err = pf6_read(self->fd, &c);
	EXPECT_EQ(-EIO, err)
		TH_LOG("read a sum without the thread's events: %llu",
		       (unsigned long long)c.pf_cntr0);
	t.go = 1;
	ASSERT_EQ(0, pthread_join(th, NULL));
	for (i = 0; i < n; i++)
		close(fds[i]);
	/* The thread is gone: what remains reads again. */
	EXPECT_EQ(0, pf6_read(self->fd, &c));
}

TEST_F(pfp, logselect_counts_a_child_across_exec)
{
	struct pfcntrs_ev6 c;

	ASSERT_EQ(0, logselect_all(self));
	ASSERT_EQ(0, inject(1, EV_INSTR, 10));
	/* 500 before the exec, 4321 by the new image. */
	ASSERT_EQ(0, exec_child(2, EV_INSTR, 500, 4321));
	ASSERT_EQ(0, pf6_read(self->fd, &c));
	EXPECT_EQ(U(10 + 500 + 4321), c.pf_cntr0);
	/* Only the new image injects: it alone is counted after the exec. */
	ASSERT_EQ(0, exec_child(3, EV_CYCLES, 0, P6 + 9));
	ASSERT_EQ(0, pf6_read(self->fd, &c));
	EXPECT_EQ(U(10 + 500 + 4321), c.pf_cntr0);
	EXPECT_EQ(U(P6 + 9), c.pf_cntr1);
}

TEST_F(pfp, logselect_does_not_count_a_process_forked_before_it)
{
	struct waiter w1 = { -1, -1 }, w2 = { -1, -1 };

	/* Forked before the open and before LOGSELECT: not marked. */
	ASSERT_EQ(0, waiter_fork(&w1, 2, EV_INSTR, 5000, false));
	ASSERT_EQ(0, waiter_fork(&w2, 1, EV_INSTR, 6000, true));
	ASSERT_EQ(0, logselect_all(self));
	ASSERT_EQ(0, inject(1, EV_INSTR, 70));
	ASSERT_EQ(0, waiter_go(&w1));
	EXPECT_EQ(U(70), pf6_instr(self->fd));
	/* On the caller's own CPU too. */
	ASSERT_EQ(0, waiter_go(&w2));
	EXPECT_EQ(U(70), pf6_instr(self->fd));
	/* The caller still counts. */
	ASSERT_EQ(0, inject(1, EV_INSTR, 1));
	EXPECT_EQ(U(71), pf6_instr(self->fd));
}

/*
 * The mark is the caller's from LOGSELECT on (Tru64: a bit of the PCB
 * copied at fork), not from the first PCNT6MUX: a child forked between the
 * two is marked, and counted once counters are programmed.
 */
TEST_F(pfp, logselect_reaches_children_created_once_counters_are_set_up)
{
	int go[2], done[2];
	char ch;
	pid_t pid;

	ASSERT_EQ(0, pin_to_cpu(1));
	self->fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pf_long(self->fd, PCNTSETITEMS, PFM_COUNTERS));
	ASSERT_EQ(0, pf_req(self->fd, PCNTLOGSELECT));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	if (pid == 0) {
		if (read(go[0], &ch, 1) != 1 || pin_to_cpu(2))
			_exit(2);
		_exit(inject(2, EV_INSTR, 888) ? 3 : 0);
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, pf_req(self->fd, PCNTRDISABLE));
	ASSERT_EQ(0, pf_req(self->fd, PCNTCLEARCNT));
	ASSERT_EQ(0, pf_long(self->fd, PCNT6MUX, MUX6_INSTR_CYCLES));
	ASSERT_EQ(0, pf6_image(self->fd, PCNT6RESTART, 3, PMCTRS_ALL_CPUS));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(0, child_status(pid));
	/*
	 * pfm(7) on Linux, BUGS: perf copies a process's events to a thread
	 * only when the thread is created, so the mark reaches children
	 * created after the first PCNT6MUX, not those created before it.
	 */
	EXPECT_EQ(U(0), pf6_instr(self->fd));
	/* Forked now, after the MUX: counted. */
	ASSERT_EQ(0, child_inject(2, EV_INSTR, 777, false));
	EXPECT_EQ(U(777), pf6_instr(self->fd));
}

TEST_F(pfp, logselect_each_counts_a_child_in_the_entry_of_its_cpu)
{
	int n = sysconf(_SC_NPROCESSORS_CONF), i;
	struct pfcntrs_ev6 c[MAXCPU];

	ASSERT_GE(MAXCPU, n);
	ASSERT_EQ(0, pin_to_cpu(1));
	self->fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pf6_start(self->fd, true, MUX6_INSTR_CYCLES));
	ASSERT_EQ(0, child_inject(2, EV_INSTR, P6 + 2222, false));
	ASSERT_EQ(0, child_inject(2, EV_CYCLES, 33, true));
	ASSERT_EQ(0, inject(1, EV_CYCLES, 11));
	ASSERT_EQ(0, pf6_read_each(self->fd, c, n));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(U(i == 2 ? P6 + 2222 : 0), c[i].pf_cntr0) TH_LOG("cpu %d", i);
		EXPECT_EQ(U(i == 2 ? 33 : i == 1 ? 11 : 0), c[i].pf_cntr1) TH_LOG("cpu %d", i);
	}
	ASSERT_EQ(0, pf6_getcnt_each(self->fd, c, n));
	for (i = 0; i < n; i++)
		EXPECT_EQ(U(i == 2 ? 1 : 0), c[i].pf_cntr0) TH_LOG("cpu %d", i);
	/* The same child's events on another CPU go to that CPU's entry. */
	ASSERT_EQ(0, child_inject(0, EV_INSTR, 5, false));
	ASSERT_EQ(0, pf6_read_each(self->fd, c, n));
	for (i = 0; i < n; i++)
		EXPECT_EQ(U(i == 2 ? P6 + 2222 : i == 0 ? 5 : 0), c[i].pf_cntr0)
			TH_LOG("cpu %d", i);
}

/*
 * Other events for a process tree while a marked child lives: refused
 * (EBUSY), since perf would not give the child the new events; nothing
 * changes, and the same mux again (PAPI, at each start) is fine.
 */
TEST_F(pfp, logselect_refuses_other_events_while_a_marked_child_lives)
{
	struct waiter w = { -1, -1 };
	struct pfcntrs_ev6 c;

	ASSERT_EQ(0, logselect_all(self));
	/* Forked after LOGSELECT: marked. */
	ASSERT_EQ(0, waiter_fork(&w, 2, EV_INSTR, 3000, false));
	ASSERT_EQ(0, inject(1, EV_INSTR, 10));
	/* Counter 1: branches instead of cycles. */
	ASSERT_EQ(-EBUSY, pf_long(self->fd, PCNT6MUX,
				  PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_RET_COND_BRANCHES));
	ASSERT_EQ(0, pf_long(self->fd, PCNT6MUX, MUX6_INSTR_CYCLES));
	ASSERT_EQ(0, inject(1, EV_BRANCHES, 4));
	ASSERT_EQ(0, inject(1, EV_CYCLES, 6));
	ASSERT_EQ(0, waiter_go(&w));
	ASSERT_EQ(0, pf6_read(self->fd, &c));
	EXPECT_EQ(U(10 + 3000), c.pf_cntr0);
	EXPECT_EQ(U(6), c.pf_cntr1);
}

/* A marked child's CLEARPCBPME and LOGSELECT (on the inherited descriptor). */
static void child_unmarks_itself(int fd, unsigned long long *v)
{
	memset(v, 0xcc, 6 * sizeof(*v));
	if (pin_to_cpu(2) || inject(2, EV_INSTR, 10))
		_exit(2);
	v[0] = pf6_instr(fd);
	v[1] = pf_req(fd, PCNTCLEARPCBPME);
	if (inject(2, EV_INSTR, 100))
		_exit(3);
	v[2] = pf6_instr(fd);
	v[3] = pf_req(fd, PCNTLOGSELECT);
	if (inject(2, EV_INSTR, 1000))
		_exit(4);
	v[4] = pf6_instr(fd);
	_exit(0);
}

TEST_F(pfp, clearpcbpme_in_a_marked_child_unmarks_that_child_only)
{
	unsigned long long *v = shared_zone(6 * sizeof(*v));
	pid_t pid;

	ASSERT_NE(NULL, v);
	ASSERT_EQ(0, logselect_all(self));
	ASSERT_EQ(0, inject(1, EV_INSTR, 1));
	pid = fork();
	if (pid == 0)
		child_unmarks_itself(self->fd, v);
	ASSERT_EQ(0, child_status(pid));
	EXPECT_EQ(U(11), v[0]);
	EXPECT_EQ(U(0), v[1]) TH_LOG("CLEARPCBPME in the child");
	EXPECT_EQ(U(11), v[2]) TH_LOG("the child is still counted after its CLEARPCBPME");
	EXPECT_EQ(U(0), v[3]) TH_LOG("LOGSELECT in the child");
	EXPECT_EQ(U(1011), v[4]) TH_LOG("the child's LOGSELECT did not mark it again");
	/* The caller kept its mark. */
	ASSERT_EQ(0, inject(1, EV_INSTR, 5));
	EXPECT_EQ(U(1016), pf6_instr(self->fd));
}

/*
 * An unrelated process holding the descriptor (forked after the open,
 * before LOGSELECT) cannot become the marked root: EBUSY, and the caller
 * stays the one counted.  mux: whether the caller programmed the counters
 * before the other process tries (after: PAPI's LOGSELECT comes first).
 */
static void unrelated_logselect(struct __test_metadata *_metadata,
				FIXTURE_DATA(pfp) *self, bool mux)
{
	int go[2], res[2], r = 0;
	char ch;
	pid_t pid;

	ASSERT_EQ(0, pin_to_cpu(1));
	self->fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(res));
	pid = fork();
	if (pid == 0) {
		if (read(go[0], &ch, 1) != 1 || pin_to_cpu(2))
			_exit(2);
		r = pf_req(self->fd, PCNTLOGSELECT);
		if (write(res[1], &r, sizeof(r)) != sizeof(r))
			_exit(3);
		if (read(go[0], &ch, 1) != 1)
			_exit(4);
		_exit(inject(2, EV_INSTR, 500) ? 5 : 0);
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, pf_long(self->fd, PCNTSETITEMS, PFM_COUNTERS));
	ASSERT_EQ(0, pf_req(self->fd, PCNTLOGSELECT));
	if (mux) {
		ASSERT_EQ(0, pf_long(self->fd, PCNT6MUX, MUX6_INSTR_CYCLES));
		ASSERT_EQ(0, pf6_image(self->fd, PCNT6RESTART, 3, PMCTRS_ALL_CPUS));
	}
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ((ssize_t)sizeof(r), read(res[0], &r, sizeof(r)));
	EXPECT_EQ(-EBUSY, r) TH_LOG("LOGSELECT from an unrelated process");
	if (!mux) {
		ASSERT_EQ(0, pf_long(self->fd, PCNT6MUX, MUX6_INSTR_CYCLES));
		ASSERT_EQ(0, pf6_image(self->fd, PCNT6RESTART, 3, PMCTRS_ALL_CPUS));
	}
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(0, child_status(pid));
	ASSERT_EQ(0, inject(1, EV_INSTR, 7));
	EXPECT_EQ(U(7), pf6_instr(self->fd));
}

TEST_F(pfp, logselect_from_an_unrelated_process_is_ebusy_once_counting)
{
	unrelated_logselect(_metadata, self, true);
}

TEST_F(pfp, logselect_from_an_unrelated_process_is_ebusy_before_the_mux)
{
	unrelated_logselect(_metadata, self, false);
}

/* ---- 2. CLEARPCBPME -------------------------------------------------------- */

TEST_F(pfp, clearpcbpme_unmarks_the_caller_until_logselect_again)
{
	ASSERT_EQ(0, logselect_all(self));
	ASSERT_EQ(0, inject(1, EV_INSTR, 100));
	ASSERT_EQ(U(100), pf6_instr(self->fd));
	ASSERT_EQ(0, pf_req(self->fd, PCNTCLEARPCBPME));
	ASSERT_EQ(0, inject(1, EV_INSTR, 1000));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 1000, true));
	EXPECT_EQ(U(100), pf6_instr(self->fd));
	/* A second CLEARPCBPME changes nothing. */
	ASSERT_EQ(0, pf_req(self->fd, PCNTCLEARPCBPME));
	ASSERT_EQ(0, pf_req(self->fd, PCNTLOGSELECT));
	ASSERT_EQ(0, inject(1, EV_INSTR, 20));
	EXPECT_EQ(U(120), pf6_instr(self->fd));
	/* Re-marked: what it creates now is marked again. */
	ASSERT_EQ(0, child_inject(2, EV_INSTR, 3, false));
	EXPECT_EQ(U(123), pf6_instr(self->fd));
}

/*
 * Dozens of threads of the tree, all alive at once, each in turn unmarking
 * itself (CLEARPCBPME: no longer counted), then marking itself again
 * (LOGSELECT: counted again).  The module used to keep eight such threads
 * only: from the ninth on, CLEARPCBPME returned 0 and the thread stayed
 * counted, and LOGSELECT failed with EBUSY.
 */
#define MARK_THREADS	64

struct mark_turns {
	int fd;
	pthread_mutex_t turn;
	pthread_barrier_t all_done;
	int ret_clear[MARK_THREADS], ret_select[MARK_THREADS];
	unsigned long long before[MARK_THREADS], unmarked[MARK_THREADS],
			   marked[MARK_THREADS];
};

static struct mark_turns *mark_turns;

static void *mark_turn_thread(void *arg)
{
	struct mark_turns *m = mark_turns;
	long k = (long)arg;

	if (pin_to_cpu(2))
		return (void *)1L;
	pthread_mutex_lock(&m->turn);
	m->before[k] = pf6_instr(m->fd);
	m->ret_clear[k] = pf_req(m->fd, PCNTCLEARPCBPME);
	if (inject(2, EV_INSTR, 1000))
		m->ret_clear[k] = -999;
	m->unmarked[k] = pf6_instr(m->fd);
	m->ret_select[k] = pf_req(m->fd, PCNTLOGSELECT);
	if (inject(2, EV_INSTR, 10))
		m->ret_select[k] = -999;
	m->marked[k] = pf6_instr(m->fd);
	pthread_mutex_unlock(&m->turn);
	/* Stay alive until every thread had its turn. */
	pthread_barrier_wait(&m->all_done);
	return NULL;
}

TEST_F(pfp, dozens_of_live_threads_unmark_and_mark_themselves)
{
	static struct mark_turns m;
	pthread_t t[MARK_THREADS];
	int bad = 0;
	long k;

	ASSERT_EQ(0, logselect_all(self));
	m.fd = self->fd;
	mark_turns = &m;
	ASSERT_EQ(0, pthread_mutex_init(&m.turn, NULL));
	ASSERT_EQ(0, pthread_barrier_init(&m.all_done, NULL, MARK_THREADS + 1));
	for (k = 0; k < MARK_THREADS; k++)
		ASSERT_EQ(0, pthread_create(&t[k], NULL, mark_turn_thread, (void *)k));
	pthread_barrier_wait(&m.all_done);
	for (k = 0; k < MARK_THREADS; k++)
		ASSERT_EQ(0, pthread_join(t[k], NULL));
	for (k = 0; k < MARK_THREADS; k++) {
		bool ok = m.ret_clear[k] == 0 && m.ret_select[k] == 0 &&
			  m.unmarked[k] == m.before[k] &&
			  m.marked[k] == m.before[k] + 10;

		if (!ok && bad++ < 5)
			TH_LOG("thread %ld: CLEARPCBPME %d, then %llu -> %llu counted over 1000; LOGSELECT %d, then %llu (want +10)",
			       k, m.ret_clear[k], m.before[k], m.unmarked[k],
			       m.ret_select[k], m.marked[k]);
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d threads were not unmarked and marked again",
				 bad, MARK_THREADS);
	EXPECT_EQ(U(10 * MARK_THREADS), pf6_instr(self->fd));
	pthread_barrier_destroy(&m.all_done);
}

TEST_F(pfp, clearpcbpme_keeps_children_forked_before_and_skips_those_after)
{
	int go[2];
	pid_t before;
	char ch;

	ASSERT_EQ(0, logselect_all(self));
	ASSERT_EQ(0, pipe(go));
	/* Forked while the caller is marked: stays marked. */
	before = fork();
	if (before == 0) {
		if (read(go[0], &ch, 1) != 1 || pin_to_cpu(3))
			_exit(2);
		_exit(inject(3, EV_INSTR, 7000) ? 3 : 0);
	}
	ASSERT_LT(0, before);
	ASSERT_EQ(0, inject(1, EV_INSTR, 40));
	ASSERT_EQ(0, pf_req(self->fd, PCNTCLEARPCBPME));
	/* Forked after: not marked. */
	ASSERT_EQ(0, child_inject(2, EV_INSTR, 10000, false));
	EXPECT_EQ(U(40), pf6_instr(self->fd));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(0, child_status(before));
	EXPECT_EQ(U(40 + 7000), pf6_instr(self->fd))
		TH_LOG("a child forked before CLEARPCBPME is no longer counted");
}

/* ---- 3. LOGALL ------------------------------------------------------------ */

TEST_F(pfp, logall_counts_every_process_on_the_cpus_logselect_does_not)
{
	struct waiter w1 = { -1, -1 }, w2 = { -1, -1 }, w3 = { -1, -1 };

	/* Three unrelated processes, forked before the open. */
	ASSERT_EQ(0, waiter_fork(&w1, 2, EV_INSTR, 300, false));
	ASSERT_EQ(0, waiter_fork(&w2, 2, EV_INSTR, 5000, false));
	ASSERT_EQ(0, waiter_fork(&w3, 0, EV_INSTR, 60000, true));
	ASSERT_EQ(0, pin_to_cpu(1));
	self->fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pf6_start(self->fd, false, MUX6_INSTR_CYCLES));
	/* An unrelated process, whatever runs there (the idle task), the caller. */
	ASSERT_EQ(0, waiter_go(&w1));
	ASSERT_EQ(0, inject(3, EV_INSTR, 20));
	ASSERT_EQ(0, inject(1, EV_INSTR, 4));
	EXPECT_EQ(U(324), pf6_instr(self->fd));
	/* The same under LOGSELECT: the caller alone. */
	ASSERT_EQ(0, pf_req(self->fd, PCNTLOGSELECT));
	ASSERT_EQ(0, waiter_go(&w2));
	ASSERT_EQ(0, inject(3, EV_INSTR, 20));
	ASSERT_EQ(0, inject(1, EV_INSTR, 4));
	EXPECT_EQ(U(328), pf6_instr(self->fd));
	/* And LOGALL again. */
	ASSERT_EQ(0, pf_req(self->fd, PCNTLOGALL));
	ASSERT_EQ(0, waiter_go(&w3));
	ASSERT_EQ(0, inject(3, EV_INSTR, 20));
	EXPECT_EQ(U(60348), pf6_instr(self->fd));
}

/* ---- 4. EV5 contexts --------------------------------------------------------- */

/* Open ALL pinned to CPU 1, PCNT5MUX then PCNT5CTXTS ctxts, RESTART all. */
static int ev5_setup(FIXTURE_DATA(pfp) *self, long ctxts)
{
	int err;

	if (pin_to_cpu(1))
		return -errno;
	self->fd = pf_open(PCNTOPENALL);
	if (self->fd < 0)
		return self->fd;
	if ((err = pf_long(self->fd, PCNT5MUX, MUX5_ISB_CYC)) ||
	    (err = pf_long(self->fd, PCNT5CTXTS, ctxts)))
		return err;
	return pf5_image(self->fd, PCNT5RESTART, 7, PMCTRS_ALL_CPUS);
}

TEST_F(pfp, ev5_this_proc_user_counts_the_callers_user_mode_only)
{
	struct waiter w = { -1, -1 };
	struct pfcntrs_ev5 c;

	ASSERT_EQ(0, waiter_fork(&w, 2, EV_INSTR, 900, false));
	ASSERT_EQ(0, ev5_setup(self, PF5_CTXT_THIS_PROC | PF5_CTXT_USER));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 65536 + 17, false));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 1000, true));
	ASSERT_EQ(0, inject_mode(1, EV_CYCLES, 5, false));
	ASSERT_EQ(0, inject_mode(1, EV_CYCLES, 6, true));
	ASSERT_EQ(0, waiter_go(&w));
	ASSERT_EQ(0, inject_mode(3, EV_INSTR, 50, false));
	ASSERT_EQ(0, pf5_read(self->fd, &c));
	EXPECT_EQ(U(65536 + 17), c.pf_cntr0);
	EXPECT_EQ(U(5), c.pf_cntr2);
	/* Marked: a child's user mode is counted, its kernel mode not. */
	ASSERT_EQ(0, child_inject(2, EV_INSTR, 8, false));
	ASSERT_EQ(0, child_inject(2, EV_INSTR, 80, true));
	EXPECT_EQ(U(65536 + 17 + 8), pf5_instr(self->fd));
}

TEST_F(pfp, ev5_all_proc_kernel_counts_kernel_mode_of_everything)
{
	struct waiter w = { -1, -1 };
	struct pfcntrs_ev5 c;

	ASSERT_EQ(0, waiter_fork(&w, 2, EV_INSTR, 900, true));
	ASSERT_EQ(0, ev5_setup(self, PF5_CTXT_ALL_PROC | PF5_CTXT_KERNEL));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 100, true));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 1000, false));
	ASSERT_EQ(0, waiter_go(&w));
	ASSERT_EQ(0, inject_mode(3, EV_INSTR, 30, true));
	ASSERT_EQ(0, inject_mode(3, EV_INSTR, 3000, false));
	ASSERT_EQ(0, inject_mode(0, EV_CYCLES, 16384 + 2, true));
	ASSERT_EQ(0, inject_mode(0, EV_CYCLES, 7, false));
	ASSERT_EQ(0, pf5_read(self->fd, &c));
	EXPECT_EQ(U(100 + 900 + 30), c.pf_cntr0);
	EXPECT_EQ(U(16384 + 2), c.pf_cntr2);
}

TEST_F(pfp, ev5_exec_and_super_counts_user_mode)
{
	struct waiter w = { -1, -1 };
	struct pfcntrs_ev5 c;

	ASSERT_EQ(0, waiter_fork(&w, 2, EV_INSTR, 900, false));
	ASSERT_EQ(0, ev5_setup(self, PF5_CTXT_ALL_PROC | PF5_CTXT_EXEC_AND_SUPER));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 100, false));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 1000, true));
	ASSERT_EQ(0, waiter_go(&w));
	ASSERT_EQ(0, inject_mode(3, EV_INSTR, 3000, true));
	ASSERT_EQ(0, pf5_read(self->fd, &c));
	EXPECT_EQ(U(100 + 900), c.pf_cntr0);
	/* THIS_PROC with it: the caller's user mode only. */
	ASSERT_EQ(0, pf_long(self->fd, PCNT5CTXTS, PF5_CTXT_THIS_PROC | PF5_CTXT_EXEC_AND_SUPER));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 1, false));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 10, true));
	ASSERT_EQ(0, inject_mode(2, EV_INSTR, 100, false));
	EXPECT_EQ(U(100 + 900 + 1), pf5_instr(self->fd));
}

/*
 * pfm(7)'s order for a LOGSELECT program: the contexts first, then the
 * events (and the unprivileged caller's only way: a MUX before the
 * contexts would count kernel mode in LOGALL).
 */
TEST_F(pfp, ev5_ctxts_before_the_mux_is_accepted)
{
	ASSERT_EQ(0, pin_to_cpu(1));
	self->fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pf_long(self->fd, PCNT5CTXTS, PF5_CTXT_THIS_PROC | PF5_CTXT_USER))
		TH_LOG("PCNT5CTXTS before any PCNT5MUX refused");
	ASSERT_EQ(0, pf_long(self->fd, PCNT5MUX, MUX5_ISB_CYC));
	ASSERT_EQ(0, pf5_image(self->fd, PCNT5RESTART, 7, PMCTRS_ALL_CPUS));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 12, false));
	ASSERT_EQ(0, inject_mode(1, EV_INSTR, 1200, true));
	EXPECT_EQ(U(12), pf5_instr(self->fd));
}

/* ---- 5. unprivileged callers -------------------------------------------- */

/*
 * fn(o, ifd, cpu) in a child that pinned itself to cpu, opened the inject
 * file (ifd) and then became uid 65534, in the node's group or not.  The
 * child's exit status (0), or -1.
 */
typedef void (*unpriv_fn)(struct unpriv_out *o, int ifd, int cpu);

static int run_unpriv(struct unpriv_out *o, bool in_group, int cpu, unpriv_fn fn)
{
	unsigned int i;
	pid_t pid;
	int ifd;

	for (i = 0; i < sizeof(o->err) / sizeof(o->err[0]); i++)
		o->err[i] = NOT_RUN;
	memset(o->val, 0xcc, sizeof(o->val));
	o->step = 0;
	o->caps = -1;
	pid = fork();
	if (pid == 0) {
		ifd = open(FAKEPMU_INJECT, O_WRONLY | O_CLOEXEC);
		if (ifd < 0 || pin_to_cpu(cpu))
			_exit(2);
		if (become_nobody(in_group))
			_exit(3);
		o->caps = cap_effective(CAP_PERFMON) != 0 || cap_effective(CAP_SYS_ADMIN) != 0;
		fn(o, ifd, cpu);
		_exit(0);
	}
	return child_status(pid);
}

/* The node as the udev rule makes it (0640, the group), paranoid 2. */
static int unpriv_prepare(FIXTURE_DATA(pfp) *self)
{
	int err = node_to_test_group(PFCNTR_PATH, 0640, &self->node_saved);

	if (err) {
		self->node_saved = -1;
		return err;
	}
	return paranoid_set(&self->paranoid, 2);
}

#define STEP(i, call)	(o->step = (i), o->err[i] = (call))

/*
 * A user-mode-only EV5 LOGSELECT program, set up without counting kernel
 * mode or whole CPUs at any step: all counters off (PCNT5FREQ 0), the
 * contexts, the events, the default rates, RESTART.  err[1..5].
 */
static int unpriv_ev5_setup(struct unpriv_out *o, int fd)
{
	STEP(1, pf_long(fd, PCNT5FREQ, 0));
	STEP(2, pf_long(fd, PCNT5CTXTS, PF5_CTXT_THIS_PROC | PF5_CTXT_USER));
	STEP(3, pf_long(fd, PCNT5MUX, MUX5_ISB_CYC));
	STEP(4, pf_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_65536 | PF5_C1_INT_EVERY_65536 |
					PF5_C2_INT_EVERY_16384));
	STEP(5, pf5_image(fd, PCNT5RESTART, 7, PMCTRS_ALL_CPUS));
	return o->err[1] || o->err[2] || o->err[3] || o->err[4] || o->err[5];
}

/* pfm(7)'s order: PCNT5CTXTS, PCNT5MUX, PCNT5RESTART; then counts. */
static void unpriv_ev5_papi_order(struct unpriv_out *o, int ifd, int cpu)
{
	int fd = pf_open(PCNTOPENALL);

	STEP(0, fd < 0 ? fd : 0);
	if (fd < 0)
		return;
	STEP(1, pf_long(fd, PCNT5CTXTS, PF5_CTXT_THIS_PROC | PF5_CTXT_USER));
	STEP(2, pf_long(fd, PCNT5MUX, MUX5_ISB_CYC));
	STEP(3, pf5_image(fd, PCNT5RESTART, 7, PMCTRS_ALL_CPUS));
	STEP(4, inject_fd(ifd, cpu, EV_INSTR, 65536 + 3, false));
	STEP(5, inject_fd(ifd, cpu, EV_INSTR, 500, true));
	o->val[0] = pf5_instr(fd);
}

TEST_F(pfp, unprivileged_ev5_user_logselect_in_pfm7_order)
{
	struct unpriv_out *o = shared_zone(sizeof(*o));

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, unpriv_prepare(self));
	ASSERT_EQ(0, run_unpriv(o, true, 2, unpriv_ev5_papi_order));
	EXPECT_EQ(0, o->caps);
	EXPECT_EQ(0, o->err[0]) TH_LOG("open as a member of the group");
	EXPECT_EQ(0, o->err[1]) TH_LOG("PCNT5CTXTS(THIS_PROC|USER)");
	EXPECT_EQ(0, o->err[2]) TH_LOG("PCNT5MUX");
	EXPECT_EQ(0, o->err[3]) TH_LOG("PCNT5RESTART");
	EXPECT_EQ(U(65536 + 3), o->val[0]);
}

static void unpriv_ev5_counts(struct unpriv_out *o, int ifd, int cpu)
{
	int fd = pf_open(PCNTOPENALL), other = cpu == 2 ? 3 : 2;
	struct pfcntrs_ev5 c;

	STEP(0, fd < 0 ? fd : 0);
	if (fd < 0 || unpriv_ev5_setup(o, fd))
		return;
	STEP(6, inject_fd(ifd, cpu, EV_INSTR, 2 * 65536 + 5, false));
	STEP(7, inject_fd(ifd, cpu, EV_INSTR, 1000, true));	/* kernel: no */
	STEP(8, inject_fd(ifd, cpu, EV_CYCLES, 16384 + 1, false));
	STEP(9, inject_fd(ifd, other, EV_INSTR, 77, false));	/* not running there */
	STEP(10, pf5_read(fd, &c));
	o->val[0] = c.pf_cntr0;
	o->val[1] = c.pf_cntr2;
	STEP(11, ioctl(fd, PCNT5GETCNT, &(struct pfcntrs_ev5 *){ &c }) ? -errno : 0);
	o->val[2] = c.pf_cntr0;
	o->val[3] = c.pf_cntr2;
}

TEST_F(pfp, unprivileged_ev5_user_logselect_counts_exactly)
{
	struct unpriv_out *o = shared_zone(sizeof(*o));
	int i;

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, unpriv_prepare(self));
	ASSERT_EQ(0, run_unpriv(o, true, 2, unpriv_ev5_counts));
	EXPECT_EQ(0, o->caps);
	for (i = 0; i <= 11; i++)
		EXPECT_EQ(0, o->err[i]) TH_LOG("step %d", i);
	EXPECT_EQ(U(2 * 65536 + 5), o->val[0]);
	EXPECT_EQ(U(16384 + 1), o->val[1]);
	EXPECT_EQ(U(2), o->val[2]);
	EXPECT_EQ(U(1), o->val[3]);
}

static void unpriv_logall_refused(struct unpriv_out *o, int ifd, int cpu)
{
	int fd = pf_open(PCNTOPENALL);
	struct waiter w = { -1, -1 };

	STEP(0, fd < 0 ? fd : 0);
	if (fd < 0 || unpriv_ev5_setup(o, fd))
		return;
	STEP(6, inject_fd(ifd, cpu, EV_INSTR, 40, false));
	/* Counting whole CPUs: refused, and nothing changes. */
	STEP(7, pf_req(fd, PCNTLOGALL));
	STEP(8, pf_long(fd, PCNT5CTXTS, PF5_CTXT_ALL_PROC | PF5_CTXT_USER));
	STEP(9, pf_long(fd, PCNT5CTXTS, PF5_CTXT_SEL_PROC | PF5_CTXT_USER_AND_KERNEL));
	o->val[0] = pf5_instr(fd);
	/* Still the caller's user mode alone, and still its children. */
	STEP(10, inject_fd(ifd, cpu, EV_INSTR, 2, false));
	STEP(11, inject_fd(ifd, cpu, EV_INSTR, 200, true));
	w.pid = fork();
	if (w.pid == 0)
		_exit(inject_fd(ifd, cpu, EV_INSTR, 3, false) ? 3 : 0);
	STEP(12, child_status(w.pid));
	o->val[1] = pf5_instr(fd);
}

TEST_F(pfp, unprivileged_logall_with_counters_is_eperm_and_changes_nothing)
{
	struct unpriv_out *o = shared_zone(sizeof(*o));
	int i;

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, unpriv_prepare(self));
	ASSERT_EQ(0, run_unpriv(o, true, 2, unpriv_logall_refused));
	for (i = 0; i <= 6; i++)
		EXPECT_EQ(0, o->err[i]) TH_LOG("step %d", i);
	EXPECT_EQ(-EPERM, o->err[7]) TH_LOG("PCNTLOGALL with counters");
	EXPECT_EQ(-EPERM, o->err[8]) TH_LOG("PCNT5CTXTS ALL_PROC|USER");
	EXPECT_EQ(-EPERM, o->err[9]) TH_LOG("PCNT5CTXTS SEL_PROC|USER_AND_KERNEL");
	EXPECT_EQ(U(40), o->val[0]);
	for (i = 10; i <= 12; i++)
		EXPECT_EQ(0, o->err[i]) TH_LOG("step %d", i);
	EXPECT_EQ(U(45), o->val[1]);
}

/*
 * Issue 23 M2: EV6 has no mode bits.  A member of the group at paranoid 2
 * may count its own processes in user mode only, so EV6 under LOGSELECT
 * counts user mode for it (pfm(7) DIFFERENCES); and choosing the events in
 * the open's default LOGALL state is not refused before the program says
 * LOGSELECT (the CPU events are made only when counting starts).
 */
static void unpriv_ev6(struct unpriv_out *o, int ifd, int cpu)
{
	int fd = pf_open(PCNTOPENALL);
	struct pfcntrs_ev6 c;

	STEP(0, fd < 0 ? fd : 0);
	if (fd < 0)
		return;
	STEP(1, pf_long(fd, PCNTSETITEMS, PFM_COUNTERS));
	/* LOGALL (the open's mode), nothing counting yet: kept. */
	STEP(2, pf_long(fd, PCNT6MUX, MUX6_INSTR_CYCLES));
	/* Counting whole CPUs: refused when it would start. */
	STEP(3, pf_req(fd, PCNTRENABLE));
	STEP(4, pf_req(fd, PCNTLOGSELECT));
	/* Under LOGSELECT: user mode of the caller's processes. */
	STEP(5, pf_req(fd, PCNTRENABLE));
	STEP(6, inject_fd(ifd, cpu, EV_INSTR, 10, false));
	STEP(7, inject_fd(ifd, cpu, EV_INSTR, 1000, true));	/* kernel: no */
	o->val[0] = pf6_instr(fd);
	close(fd);
	/* A fresh open: PAPI's EV6 sequence, then counts from zero. */
	fd = pf_open(PCNTOPENALL);
	STEP(8, fd < 0 ? fd : 0);
	if (fd < 0)
		return;
	STEP(9, pf6_start(fd, true, MUX6_INSTR_CYCLES));
	STEP(10, inject_fd(ifd, cpu, EV_INSTR, (1 << 20) + 7, false));
	STEP(11, inject_fd(ifd, cpu, EV_INSTR, 500, true));
	STEP(12, pf_req(fd, PCNTRDISABLE));
	STEP(13, ioctl(fd, PCNT6READCNTRS, &(struct pfcntrs_ev6 *){ &c }) ? -errno : 0);
	o->val[1] = c.pf_cntr0;
	STEP(14, ioctl(fd, PCNT6GETCNT, &(struct pfcntrs_ev6 *){ &c }) ? -errno : 0);
	o->val[2] = c.pf_cntr0;
	close(fd);
}

TEST_F(pfp, unprivileged_ev6_logselect_counts_user_mode)
{
	struct unpriv_out *o = shared_zone(sizeof(*o));
	int i;

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, unpriv_prepare(self));
	ASSERT_EQ(0, run_unpriv(o, true, 2, unpriv_ev6));
	EXPECT_EQ(0, o->caps);
	EXPECT_EQ(0, o->err[0]);
	EXPECT_EQ(0, o->err[1]);
	EXPECT_EQ(0, o->err[2]) TH_LOG("PCNT6MUX in the open's LOGALL");
	EXPECT_EQ(-EPERM, o->err[3]) TH_LOG("PCNTRENABLE under LOGALL");
	for (i = 4; i <= 14; i++)
		EXPECT_EQ(0, o->err[i]) TH_LOG("step %d", i);
	EXPECT_EQ(U(10), o->val[0]);
	EXPECT_EQ(U((1 << 20) + 7), o->val[1]) TH_LOG("PAPI's EV6 sequence");
	EXPECT_EQ(U(1), o->val[2]);
}

static void unpriv_freq256(struct unpriv_out *o, int ifd, int cpu)
{
	int fd = pf_open(PCNTOPENALL);
	struct pfcntrs_ev5 c;

	STEP(0, fd < 0 ? fd : 0);
	if (fd < 0)
		return;
	if (unpriv_ev5_setup(o, fd))
		return;
	STEP(6, pf_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_256 | PF5_C1_INT_EVERY_65536 |
					PF5_C2_INT_EVERY_16384));
	STEP(7, pf_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_65536 | PF5_C1_INT_EVERY_65536 |
					PF5_C2_INT_EVERY_256));
	/* Still every 65536 and 16384: 300 events are no tick. */
	STEP(8, inject_fd(ifd, cpu, EV_INSTR, 300, false));
	STEP(9, inject_fd(ifd, cpu, EV_CYCLES, 300, false));
	STEP(10, ioctl(fd, PCNT5GETCNT, &(struct pfcntrs_ev5 *){ &c }) ? -errno : 0);
	o->val[0] = c.pf_cntr0;
	o->val[1] = c.pf_cntr2;
	o->val[2] = pf5_instr(fd);
}

TEST_F(pfp, unprivileged_frequency_256_is_eperm)
{
	struct unpriv_out *o = shared_zone(sizeof(*o));
	int i;

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, unpriv_prepare(self));
	ASSERT_EQ(0, run_unpriv(o, true, 2, unpriv_freq256));
	for (i = 0; i <= 5; i++)
		EXPECT_EQ(0, o->err[i]) TH_LOG("setup step %d", i);
	EXPECT_EQ(-EPERM, o->err[6]) TH_LOG("PCNT5FREQ C0 256");
	EXPECT_EQ(-EPERM, o->err[7]) TH_LOG("PCNT5FREQ C2 256");
	for (i = 8; i <= 10; i++)
		EXPECT_EQ(0, o->err[i]) TH_LOG("step %d", i);
	EXPECT_EQ(U(0), o->val[0]);
	EXPECT_EQ(U(0), o->val[1]);
	EXPECT_EQ(U(300), o->val[2]);
}

static void unpriv_freq256_fresh(struct unpriv_out *o, int ifd, int cpu)
{
	int fd = pf_open(PCNTOPENALL);

	STEP(0, fd < 0 ? fd : 0);
	if (fd < 0)
		return;
	STEP(1, pf_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_256 | PF5_C1_INT_EVERY_65536 |
					PF5_C2_INT_EVERY_16384));
}

TEST_F(pfp, unprivileged_frequency_256_on_a_fresh_open_is_eperm)
{
	struct unpriv_out *o = shared_zone(sizeof(*o));

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, unpriv_prepare(self));
	ASSERT_EQ(0, run_unpriv(o, true, 2, unpriv_freq256_fresh));
	EXPECT_EQ(0, o->err[0]);
	EXPECT_EQ(-EPERM, o->err[1]);
}

static void unpriv_open(struct unpriv_out *o, int ifd, int cpu)
{
	int fd;

	fd = pf_open(PCNTOPENALL);
	STEP(0, fd < 0 ? fd : 0);
	if (fd >= 0)
		close(fd);
	fd = pf_open(PCNTOPENEACH);
	STEP(1, fd < 0 ? fd : 0);
	if (fd >= 0)
		close(fd);
	fd = pf_open(PCNTOPENONE);
	STEP(2, fd < 0 ? fd : 0);
	if (fd >= 0)
		close(fd);
}

TEST_F(pfp, unprivileged_opens_in_the_group_and_not_outside_it)
{
	struct unpriv_out *o = shared_zone(sizeof(*o));

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, unpriv_prepare(self));
	ASSERT_EQ(0, run_unpriv(o, true, 2, unpriv_open));
	EXPECT_EQ(0, o->caps);
	EXPECT_EQ(0, o->err[0]) TH_LOG("ALL");
	EXPECT_EQ(0, o->err[1]) TH_LOG("EACH");
	EXPECT_EQ(0, o->err[2]) TH_LOG("ONE");
	ASSERT_EQ(0, run_unpriv(o, false, 2, unpriv_open));
	EXPECT_EQ(0, o->caps);
	EXPECT_EQ(-EACCES, o->err[0]) TH_LOG("ALL");
	EXPECT_EQ(-EACCES, o->err[1]) TH_LOG("EACH");
	EXPECT_EQ(-EACCES, o->err[2]) TH_LOG("ONE");
}

/*
 * An unprivileged member's open takes no CPU exclusively: all it may count
 * is its own processes, which perf shares between users.  So it locks out
 * neither root nor another member (root got EBUSY while a member held the
 * device open, read-only).  A privileged holder's CPUs stay its own, as on
 * Tru64: a member's open of them is EBUSY, of another CPU succeeds.
 */
TEST_F(pfp, member_open_locks_out_neither_root_nor_other_members)
{
	int ready[2], go[2], fd, one;
	int *r = shared_zone(4 * sizeof(int));
	char c = 0;
	pid_t pid;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, unpriv_prepare(self));
	ASSERT_EQ(0, pin_to_cpu(1));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int held, f;

		if (pin_to_cpu(2) || become_nobody(true))
			_exit(2);
		held = pf_open(PCNTOPENALL);
		r[0] = held < 0 ? held : 0;
		/* A second member's open (here the same user's) beside it. */
		f = pf_open(PCNTOPENALL);
		r[1] = f < 0 ? f : 0;
		if (f >= 0)
			close(f);
		if (write(ready[1], "o", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		/* Root holds CPU 1 now. */
		f = pf_open(PCNTOPENALL);
		r[2] = f < 0 ? f : 0;
		if (f >= 0)
			close(f);
		f = pf_open(PCNTOPENONE);	/* CPU 2 */
		r[3] = f < 0 ? f : 0;
		if (f >= 0)
			close(f);
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(0, r[0]) TH_LOG("the member's open: %s", strerror(-r[0]));
	EXPECT_EQ(0, r[1]) TH_LOG("a second member open: %s", strerror(-r[1]));
	fd = pf_open(PCNTOPENALL);
	EXPECT_LE(0, fd) TH_LOG("DRIVER BUG: root's open ALL while a member holds the device: %s",
				strerror(-fd));
	if (fd >= 0)
		close(fd);
	one = pf_open(PCNTOPENONE);
	EXPECT_LE(0, one) TH_LOG("DRIVER BUG: root's open ONE while a member holds the device: %s",
				 strerror(-one));
	ASSERT_EQ(1, write(go[1], "g", 1));
	EXPECT_EQ(0, child_status(pid));
	if (one >= 0) {
		EXPECT_EQ(-EBUSY, r[2]) TH_LOG("a member's open ALL of root's CPU");
	}
	EXPECT_EQ(0, r[3]) TH_LOG("a member's open ONE of a CPU root does not hold: %s",
				  strerror(-r[3]));
	if (one >= 0)
		close(one);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	munmap(r, 4 * sizeof(int));
}

/* What the unprivileged caller is refused, root may do. */
TEST_F(pfp, root_may_do_what_an_unprivileged_caller_may_not)
{
	struct pfcntrs_ev5 c5;
	struct waiter w = { -1, -1 };
	int fd;

	ASSERT_EQ(0, waiter_fork(&w, 2, EV_INSTR, 1000, true));
	ASSERT_EQ(0, pin_to_cpu(1));
	/* PCNT6MUX in LOGALL: counts everything, kernel mode included. */
	self->fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pf_long(self->fd, PCNT6MUX, MUX6_INSTR_CYCLES));
	ASSERT_EQ(0, pf_req(self->fd, PCNTRENABLE));
	ASSERT_EQ(0, waiter_go(&w));
	EXPECT_EQ(U(1000), pf6_instr(self->fd));
	close(self->fd);
	/* PCNTLOGALL after a LOGSELECT setup with counters. */
	self->fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pf6_start(self->fd, true, MUX6_INSTR_CYCLES));
	ASSERT_EQ(0, inject(3, EV_INSTR, 5));
	EXPECT_EQ(U(0), pf6_instr(self->fd));
	ASSERT_EQ(0, pf_req(self->fd, PCNTLOGALL));
	ASSERT_EQ(0, inject(3, EV_INSTR, 5));
	EXPECT_EQ(U(5), pf6_instr(self->fd));
	close(self->fd);
	/* EV5: whole CPUs in user mode, the 256 rates. */
	self->fd = fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pf_long(fd, PCNT5MUX, MUX5_ISB_CYC));
	ASSERT_EQ(0, pf_long(fd, PCNT5CTXTS, PF5_CTXT_ALL_PROC | PF5_CTXT_USER));
	ASSERT_EQ(0, pf_long(fd, PCNT5FREQ, PF5_C0_INT_EVERY_256 | PF5_C1_INT_EVERY_65536 |
					   PF5_C2_INT_EVERY_256));
	ASSERT_EQ(0, pf5_image(fd, PCNT5RESTART, 7, PMCTRS_ALL_CPUS));
	ASSERT_EQ(0, inject(3, EV_INSTR, 300));
	ASSERT_EQ(0, inject(2, EV_CYCLES, 600));
	ASSERT_EQ(0, ioctl(fd, PCNT5GETCNT, &(struct pfcntrs_ev5 *){ &c5 }));
	EXPECT_EQ(U(1), c5.pf_cntr0);
	EXPECT_EQ(U(2), c5.pf_cntr2);
}

/* ---- 6. CPU hotplug --------------------------------------------------------- */

#define NEED_HOTPLUG() do {						\
	if (cpu_online_state(HOTPLUG_CPU) != 1)				\
		SKIP(return, "CPU %d cannot be taken offline", HOTPLUG_CPU); \
} while (0)

TEST_F(pfp, hotplug_each_keeps_the_counts_of_an_offline_cpu)
{
	int n = sysconf(_SC_NPROCESSORS_CONF);
	struct pfcntrs_ev6 c[MAXCPU];

	NEED_HOTPLUG();
	ASSERT_GE(MAXCPU, n);
	ASSERT_EQ(0, pin_to_cpu(1));
	self->fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pf6_start(self->fd, false, MUX6_INSTR_CYCLES));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, P6 + 1234));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_CYCLES, 56));
	ASSERT_EQ(0, inject(2, EV_INSTR, 9));
	ASSERT_EQ(0, pf6_read_each(self->fd, c, n));
	EXPECT_EQ(U(P6 + 1234), c[HOTPLUG_CPU].pf_cntr0);
	EXPECT_EQ(U(56), c[HOTPLUG_CPU].pf_cntr1);

	self->hotplug = true;
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 0));
	ASSERT_EQ(0, pf6_read_each(self->fd, c, n));
	EXPECT_EQ(U(P6 + 1234), c[HOTPLUG_CPU].pf_cntr0);
	EXPECT_EQ(U(56), c[HOTPLUG_CPU].pf_cntr1);
	EXPECT_EQ(U(9), c[2].pf_cntr0);
	ASSERT_EQ(0, pf6_getcnt_each(self->fd, c, n));
	EXPECT_EQ(U(1), c[HOTPLUG_CPU].pf_cntr0);
	EXPECT_EQ(U(0), c[HOTPLUG_CPU].pf_cntr1);
	/* The other CPUs count on. */
	ASSERT_EQ(0, inject(2, EV_INSTR, 1));
	ASSERT_EQ(0, pf6_read_each(self->fd, c, n));
	EXPECT_EQ(U(10), c[2].pf_cntr0);
	EXPECT_EQ(U(P6 + 1234), c[HOTPLUG_CPU].pf_cntr0);

	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	ASSERT_EQ(0, pf6_read_each(self->fd, c, n));
	EXPECT_EQ(U(P6 + 1234), c[HOTPLUG_CPU].pf_cntr0);
	EXPECT_EQ(U(56), c[HOTPLUG_CPU].pf_cntr1);
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, P6 - 1234 + 1));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_CYCLES, 4));
	ASSERT_EQ(0, pf6_read_each(self->fd, c, n));
	EXPECT_EQ(U(2 * P6 + 1), c[HOTPLUG_CPU].pf_cntr0);
	EXPECT_EQ(U(60), c[HOTPLUG_CPU].pf_cntr1);
	EXPECT_EQ(U(10), c[2].pf_cntr0);
	ASSERT_EQ(0, pf6_getcnt_each(self->fd, c, n));
	EXPECT_EQ(U(2), c[HOTPLUG_CPU].pf_cntr0);
}

/* ---- 7. the exclusive open ---------------------------------------------------- */

/*
 * A child opens ALL (and counts, when program), reports 'o' on ready[1],
 * and exits without closing when go[0] gives a byte or is closed, or waits
 * to be killed.
 */
static pid_t holder_fork(int *ready, int *go, bool program)
{
	pid_t pid = fork();
	char c;
	int fd;

	if (pid == 0) {
		fd = pf_open(PCNTOPENALL);
		if (fd < 0)
			c = 'e';
		else
			c = program && pf6_start(fd, false, MUX6_INSTR_CYCLES) ? 'p' : 'o';
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		if (read(go[0], &c, 1) < 0)
			_exit(3);
		_exit(0);	/* no close(fd) */
	}
	return pid;
}

TEST_F(pfp, exclusive_open_is_released_when_the_holder_exits)
{
	int ready[2], go[2], fd, st;
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, pin_to_cpu(1));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = holder_fork(ready, go, true);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ('o', c);
	EXPECT_EQ(-EBUSY, pf_open(PCNTOPENALL));
	EXPECT_EQ(-EBUSY, pf_open(PCNTOPENEACH));
	EXPECT_EQ(-EBUSY, pf_open(PCNTOPENONE));
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(0, child_status(pid));
	self->fd = fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd) TH_LOG("open after the holder exited: %s", strerror(-fd));
	/* A new open: nothing of the holder's counters is left. */
	ASSERT_EQ(0, pf6_start(fd, false, MUX6_INSTR_CYCLES));
	ASSERT_EQ(0, inject(2, EV_INSTR, 5));
	EXPECT_EQ(U(5), pf6_instr(fd));
	close(fd);
	self->fd = -1;

	/* Killed instead of exiting. */
	pid = holder_fork(ready, go, true);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ('o', c);
	EXPECT_EQ(-EBUSY, pf_open(PCNTOPENALL));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFSIGNALED(st));
	self->fd = fd = pf_open(PCNTOPENALL);
	ASSERT_LE(0, fd) TH_LOG("open after the holder was killed: %s", strerror(-fd));
	close(go[1]);
	close(ready[0]);
}

/* ---- 8. beside /dev/perfmon and perf_event_open() on one PMU ------------------ */

TEST_F(pfp, counts_beside_perfmon_and_perf_event_open)
{
	int n = sysconf(_SC_NPROCESSORS_CONF), pm, pe;
	struct pfcntrs_ev6 c[MAXCPU];
	long long v = -1;

	ASSERT_GE(MAXCPU, n);
	if (access(_PATH_PERFMON, F_OK))
		SKIP(return, "no %s", _PATH_PERFMON);
	ASSERT_EQ(0, pin_to_cpu(1));
	self->fd = pf_open(PCNTOPENEACH);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pf6_start(self->fd, false, MUX6_INSTR_CYCLES));
	/* perfmon(4): instructions, user and kernel, summed over the CPUs. */
	pm = self->extra[0] = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, pm);
	ASSERT_EQ(0, perfmon_setup_fd(pm, 0, EV_INSTR | (PMCF_USR | PMCF_OS) << 16));
	ASSERT_EQ(0, perfmon_ctl_fd(pm, PMIOSTART, 0));
	/* perf: instructions on CPU 2. */
	pe = self->extra[1] = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
					   -1, 2, 0, 0);
	ASSERT_LE(0, pe);
	/* Three instruction counters and one cycle counter on each CPU. */
	EXPECT_EQ(2 * n + n + 1, fakepmu_state_count("cpu=", NULL));

	ASSERT_EQ(0, inject(2, EV_INSTR, P6 + 12345));
	ASSERT_EQ(0, inject_mode(2, EV_INSTR, 100, true));
	ASSERT_EQ(0, inject(2, EV_CYCLES, 77));
	ASSERT_EQ(0, inject(1, EV_INSTR, 50));
	ASSERT_EQ(0, pf6_read_each(self->fd, c, n));
	EXPECT_EQ(U(P6 + 12445), c[2].pf_cntr0);
	EXPECT_EQ(U(77), c[2].pf_cntr1);
	EXPECT_EQ(U(50), c[1].pf_cntr0);
	ASSERT_EQ(0, perfmon_read_fd(pm, 0, &v));
	EXPECT_EQ((long long)(P6 + 12445 + 50), v);
	EXPECT_EQ(U(P6 + 12445), read_count(pe));

	/* Stopping the perfmon counter leaves the others counting. */
	ASSERT_EQ(0, perfmon_ctl_fd(pm, PMIOSTOP, 0));
	ASSERT_EQ(0, inject(2, EV_INSTR, 3));
	ASSERT_EQ(0, pf6_read_each(self->fd, c, n));
	EXPECT_EQ(U(P6 + 12448), c[2].pf_cntr0);
	ASSERT_EQ(0, perfmon_read_fd(pm, 0, &v));
	EXPECT_EQ((long long)(P6 + 12445 + 50), v);
	EXPECT_EQ(U(P6 + 12448), read_count(pe));
	/* Closing /dev/pfcntr leaves perf counting. */
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, inject(2, EV_INSTR, 1));
	EXPECT_EQ(U(P6 + 12449), read_count(pe));
}

TEST_HARNESS_MAIN
