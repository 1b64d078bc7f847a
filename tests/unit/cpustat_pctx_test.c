// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of what cpustat(8) and cputrack(1) stand on, without a
 * counter device: cpc_strtoset() on a handle without a device (requests,
 * flags, attributes and the original error messages), and libpctx's
 * ptrace machinery (the order of its events for a program that creates
 * threads, forks and execs; capture, ticks and detach).
 *
 * libcpc.c is included so that the tests can make a handle without a device.
 */
#include "../../tools/libcpc/libcpc.c"

#include <pthread.h>
#include <sys/ptrace.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/time.h>

#include "kselftest_harness.h"

#define SKYLAKE_EAX1	0x000506e3
#define PERFMON_V4	0x07300804

static char err_msg[512];
static int err_calls, err_subcode;

static void record(const char *fn, int subcode, const char *fmt, va_list ap)
{
	err_calls++;
	err_subcode = subcode;
	if (strcmp(fn, "cpc_strtoset"))
		err_subcode = -100;
	vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
}

static cpc_t *handle(uint_t npic)
{
	struct pmc_cpc_info info = {
		.size = sizeof(info), .abi_version = PMC_CPC_ABI_VERSION,
		.npic = npic, .caps = 0, .hw_pmu = 1,
	};
	struct cpcev_cpu c;
	cpc_t *cpc;

	cpcev_cpu_init(&c, "GenuineIntel", SKYLAKE_EAX1, PERFMON_V4, 0);
	cpc = __cpc_open_fd(-1, &info, &c);
	if (cpc)
		cpc_seterrhndlr(cpc, record);
	err_calls = 0;
	err_msg[0] = '\0';
	return cpc;
}

struct reqs {
	int n;
	char event[8][64];
	uint_t flags[8];
	char attrs[8][256];	/* "name=val name=val" */
};

static void collect(void *arg, int index, const char *event, uint64_t preset,
		    uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	struct reqs *r = arg;
	int i, pos = 0;

	(void)preset;
	if (index < 0 || index >= 8)
		return;
	snprintf(r->event[index], sizeof(r->event[index]), "%s", event);
	r->flags[index] = flags;
	r->attrs[index][0] = '\0';
	for (i = 0; i < nattrs; i++)
		pos += snprintf(r->attrs[index] + pos, sizeof(r->attrs[index]) - pos,
				"%s%s=%llu", i ? " " : "", attrs[i].ca_name,
				(unsigned long long)attrs[i].ca_val);
	if (index + 1 > r->n)
		r->n = index + 1;
}

static int parse(cpc_t *cpc, const char *spec, struct reqs *r)
{
	cpc_set_t *set = cpc_strtoset(cpc, spec, 0);

	memset(r, 0, sizeof(*r));
	if (!set)
		return -1;
	cpc_walk_requests(cpc, set, r, collect);
	cpc_set_destroy(cpc, set);
	return 0;
}

#define UA	CPC_COUNT_USER
#define SY	CPC_COUNT_SYSTEM

TEST(strtoset_requests)
{
	cpc_t *cpc = handle(4);
	struct reqs r;

	ASSERT_NE(NULL, cpc);
	ASSERT_EQ(0, parse(cpc, "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc,sys", &r));
	ASSERT_EQ(2, r.n);
	EXPECT_STREQ("PAPI_tot_ins", r.event[0]);
	EXPECT_STREQ("PAPI_tot_cyc", r.event[1]);
	EXPECT_EQ(UA | SY, r.flags[0]);
	EXPECT_EQ(UA | SY, r.flags[1]);
	EXPECT_STREQ("picnum=0", r.attrs[0]);
	EXPECT_STREQ("picnum=1", r.attrs[1]);

	/* Bare events: the counter after the highest one taken. */
	ASSERT_EQ(0, parse(cpc, "pic2=PAPI_tot_ins,sw_page_faults", &r));
	ASSERT_EQ(2, r.n);
	EXPECT_STREQ("picnum=2", r.attrs[0]);
	EXPECT_STREQ("sw_page_faults", r.event[1]);
	EXPECT_STREQ("picnum=3", r.attrs[1]);
	EXPECT_EQ(UA, r.flags[1]);
	ASSERT_EQ(0, parse(cpc, "sw_page_faults,sw_cpu_clock", &r));
	EXPECT_STREQ("picnum=0", r.attrs[0]);
	EXPECT_STREQ("picnum=1", r.attrs[1]);

	/* Requests are in counter order, whatever the order of the tokens. */
	ASSERT_EQ(0, parse(cpc, "pic3=sw_cpu_clock,pic1=0xc0", &r));
	EXPECT_STREQ("0xc0", r.event[0]);
	EXPECT_STREQ("sw_cpu_clock", r.event[1]);

	/* Per-counter flags, and nouser for all. */
	ASSERT_EQ(0, parse(cpc, "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc,nouser1,sys0", &r));
	EXPECT_EQ(UA | SY, r.flags[0]);
	EXPECT_EQ(0U, r.flags[1]);
	ASSERT_EQ(0, parse(cpc, "nouser,pic0=PAPI_tot_ins,sys", &r));
	EXPECT_EQ((uint_t)SY, r.flags[0]);

	/* Attributes: numbered for one counter, plain for all; no value is 1. */
	ASSERT_EQ(0, parse(cpc, "pic0=0xc0,pic1=0x3c,umask0=0x3,cmask=2,edge1", &r));
	EXPECT_STREQ("picnum=0 umask=3 cmask=2", r.attrs[0]);
	EXPECT_STREQ("picnum=1 cmask=2 edge=1", r.attrs[1]);
	/* A numbered value is not overridden by a later plain one. */
	ASSERT_EQ(0, parse(cpc, "pic0=0xc0,cmask0=5,cmask=2", &r));
	EXPECT_STREQ("picnum=0 cmask=5", r.attrs[0]);
	EXPECT_EQ(0, err_calls);
	cpc_close(cpc);
}

TEST(strtoset_errors)
{
	static const struct {
		const char *spec, *msg;
	} cases[] = {
		{ "pic0=PAPI_tot_ins,pic0=PAPI_tot_cyc", "repeated 'pic0' token\n" },
		{ "pic1", "missing 'pic1' value\n" },
		{ "pic1=", "missing 'pic1' value\n" },
		{ "pic2=nonesuch", "pic2 cannot measure event 'nonesuch' on this cpu\n" },
		{ "pic0=0", "pic0 cannot measure event '0' on this cpu\n" },
		{ "pic0=0x0", "pic0 cannot measure event '0x0' on this cpu\n" },
		{ "pic4=PAPI_tot_ins", "bad token 'pic4'\n" },
		{ "PAPI_tot_ins,bogus", "bad token 'bogus'\n" },
		{ "PAPI_tot_ins,nouser=1", "bad token 'nouser=1'\n" },
		{ "PAPI_tot_ins,picnum=1", "bad token 'picnum=1'\n" },
		{ "a,b", "bad token 'a'\n" },
		{ "0xc0,0xc0,0xc0,0xc0,0xc0", "bad token '0xc0'\n" },
		{ "PAPI_tot_ins,umask=zz", "invalid value 'zz' for attribute 'umask'\n" },
		{ "PAPI_tot_ins,umask0=", "invalid value '' for attribute 'umask'\n" },
		{ "", "bad token ''\n" },
		{ "sys", "bad token 'sys'\n" },
	};
	cpc_t *cpc = handle(4);
	struct reqs r;
	size_t i;

	ASSERT_NE(NULL, cpc);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		err_calls = 0;
		errno = 0;
		EXPECT_EQ(-1, parse(cpc, cases[i].spec, &r)) TH_LOG("%s", cases[i].spec);
		EXPECT_EQ(EINVAL, errno);
		/* One message, through the handler, with subcode 0. */
		EXPECT_EQ(1, err_calls) TH_LOG("%s", cases[i].spec);
		EXPECT_EQ(0, err_subcode);
		EXPECT_STREQ(cases[i].msg, err_msg) TH_LOG("%s", cases[i].spec);
	}
	/* Nothing is left behind by a failed parse. */
	EXPECT_EQ(NULL, cpc->sets);
	cpc_close(cpc);
}

/* ---- libpctx ----------------------------------------------------------------------- */

static char events[64][128];
static int nevents, stop_at_exec, ticks;

static void ev(const char *fmt, ...)
{
	va_list ap;

	if (nevents >= 64)
		return;
	va_start(ap, fmt);
	vsnprintf(events[nevents++], sizeof(events[0]), fmt, ap);
	va_end(ap);
}

static pid_t first;

/* Processes by order of appearance: P0, P1, ... */
static pid_t procs[8];

static int pnum(pid_t pid)
{
	int i;

	for (i = 0; i < 8 && procs[i]; i++)
		if (procs[i] == pid)
			return i;
	if (i < 8)
		procs[i] = pid;
	return i;
}

static int on_init(pctx_t *p, pid_t pid, id_t lwp, void *arg)
{
	(void)arg;
	/* Inside a handler, the context is the handler's process. */
	if (__pctx_pid(p) != pid || __pctx_tid(p, lwp) <= 0)
		ev("bad context");
	ev("P%d %d init", pnum(pid), (int)lwp);
	return 0;
}

static int on_fini(pctx_t *p, pid_t pid, id_t lwp, void *arg)
{
	(void)p;
	(void)arg;
	ev("P%d %d fini", pnum(pid), (int)lwp);
	return 0;
}

static int on_create(pctx_t *p, pid_t pid, id_t lwp, void *arg)
{
	(void)p;
	(void)arg;
	ev("P%d %d lwp_create", pnum(pid), (int)lwp);
	return 0;
}

static int on_lwp_exit(pctx_t *p, pid_t pid, id_t lwp, void *arg)
{
	(void)p;
	(void)arg;
	ev("P%d %d lwp_exit", pnum(pid), (int)lwp);
	return 0;
}

static void on_fork(pctx_t *p, pid_t pid, id_t lwp, pid_t child, void *arg)
{
	(void)p;
	(void)arg;
	ev("P%d %d fork P%d", pnum(pid), (int)lwp, pnum(child));
}

static int on_exec(pctx_t *p, pid_t pid, id_t lwp, char *name, void *arg)
{
	(void)p;
	(void)arg;
	ev("P%d %d exec %s", pnum(pid), (int)lwp, name);
	return stop_at_exec;
}

static void on_exit_ev(pctx_t *p, pid_t pid, id_t lwp, int status, void *arg)
{
	(void)p;
	(void)arg;
	ev("P%d %d exit %d", pnum(pid), (int)lwp,
	   WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
}

static int on_tick(pctx_t *p, pid_t pid, id_t lwp, void *arg)
{
	(void)p;
	(void)arg;
	(void)pid;
	(void)lwp;
	ticks++;
	return 0;
}

static void reset(void)
{
	nevents = 0;
	ticks = 0;
	stop_at_exec = 0;
	memset(procs, 0, sizeof(procs));
}

static void set_all(pctx_t *p, int with_fork)
{
	pctx_set_events(p, PCTX_INIT_LWP_EVENT, on_init, PCTX_FINI_LWP_EVENT, on_fini,
			PCTX_SYSC_LWP_CREATE_EVENT, on_create,
			PCTX_SYSC_LWP_EXIT_EVENT, on_lwp_exit,
			PCTX_SYSC_FORK_EVENT, with_fork ? on_fork : NULL,
			PCTX_SYSC_EXEC_EVENT, on_exec, PCTX_SYSC_EXIT_EVENT, on_exit_ev,
			PCTX_NULL_EVENT);
}

static void *thread_fn(void *arg)
{
	return arg;
}

static void *exec_thread(void *arg)
{
	execve("/proc/self/exe", (char *[]){ "pctx-exec", NULL },
	       (char *[]){ "PCTX_WORKLOAD=exit7", NULL });
	_exit(93);
	return arg;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* The workload, when this program is run with PCTX_WORKLOAD set. */
__attribute__((constructor)) static void workload(void)
{
	const char *w = getenv("PCTX_WORKLOAD");
	pthread_t t;
	pid_t pid;

	if (!w)
		return;
	if (!strcmp(w, "exit7"))
		_exit(7);
	if (!strcmp(w, "texec")) {
		/* A thread other than the leader execs. */
		if (pthread_create(&t, NULL, exec_thread, NULL))
			_exit(91);
		for (;;)
			pause();
	}
	if (!strcmp(w, "longexec")) {
		static char arg[200];

		memset(arg, 'x', sizeof(arg) - 1);
		execve("/proc/self/exe", (char *[]){ "pctx-exec", arg, NULL },
		       (char *[]){ "PCTX_WORKLOAD=exit7", NULL });
		_exit(93);
	}
	if (!strcmp(w, "killed")) {
		/* A thread, then death by a signal. */
		if (pthread_create(&t, NULL, sleeper, NULL))
			_exit(91);
		usleep(20000);
		signal(SIGTERM, SIG_DFL);
		raise(SIGTERM);
		_exit(98);
	}
	if (!strcmp(w, "live")) {
		/* exit() while another thread still runs. */
		if (pthread_create(&t, NULL, sleeper, NULL))
			_exit(91);
		usleep(20000);
		exit(6);
	}
	if (!strcmp(w, "all")) {
		if (pthread_create(&t, NULL, thread_fn, NULL) || pthread_join(t, NULL))
			_exit(91);
		pid = fork();
		if (pid == 0)
			_exit(4);
		if (waitpid(pid, NULL, 0) != pid)
			_exit(92);
		/* Solaris' exec name is the command line (pr_psargs). */
		execve("/proc/self/exe", (char *[]){ "pctx-exec", "a", "", "b", NULL },
		       (char *[]){ "PCTX_WORKLOAD=exit7", NULL });
		_exit(93);
	}
	_exit(99);
}

static pctx_t *create_workload(const char *w)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	pctx_t *p;

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	setenv("PCTX_WORKLOAD", w, 1);
	p = pctx_create(path, (char *[]){ "pctx-test", NULL }, NULL, 0, NULL);
	unsetenv("PCTX_WORKLOAD");
	return p;
}

/* ptrace may be forbidden where the tests run (a container, seccomp). */
static int can_ptrace(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		pause();
		_exit(0);
	}
	if (pid < 0)
		return 0;
	st = ptrace(PTRACE_SEIZE, pid, 0L, 0L) == 0;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return st;
}

TEST(pctx_events_in_order)
{
	static const char *const want[] = {
		"P0 1 init", "P0 2 init", "P0 2 lwp_create", "P0 2 fini", "P0 2 lwp_exit",
		"P0 1 fork P1", "P1 1 init", "P1 1 fini", "P1 1 exit 4",
		"P0 1 fini", "P0 1 exec pctx-exec a  b", "P0 1 init", "P0 1 fini", "P0 1 exit 7",
	};
	pctx_t *p;
	int i;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	p = create_workload("all");
	ASSERT_NE(NULL, p);
	first = __pctx_pid(p);
	pnum(first);
	set_all(p, 1);
	EXPECT_EQ(0, pctx_run(p, 0, 0, NULL));
	pctx_release(p);
	ASSERT_EQ((int)ARRAY_SIZE(want), nevents);
	for (i = 0; i < nevents; i++)
		EXPECT_STREQ(want[i], events[i]) TH_LOG("event %d", i);
	/* Reaped by pctx_run. */
	EXPECT_EQ(-1, waitpid(first, NULL, WNOHANG));
}

TEST(pctx_exit_with_threads_running)
{
	pctx_t *p;
	int i, f1 = 0, f2 = 0;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	p = create_workload("live");
	ASSERT_NE(NULL, p);
	pnum(__pctx_pid(p));
	set_all(p, 1);
	EXPECT_EQ(0, pctx_run(p, 0, 0, NULL));
	pctx_release(p);
	ASSERT_EQ(6, nevents);
	EXPECT_STREQ("P0 1 init", events[0]);
	EXPECT_STREQ("P0 2 init", events[1]);
	EXPECT_STREQ("P0 2 lwp_create", events[2]);
	/* Both LWPs finish (in either order), then the process exits. */
	for (i = 3; i < 5; i++) {
		f1 += !strcmp(events[i], "P0 1 fini");
		f2 += !strcmp(events[i], "P0 2 fini");
	}
	EXPECT_EQ(1, f1);
	EXPECT_EQ(1, f2);
	EXPECT_STREQ("P0 1 exit 6", events[5]);
}

TEST(pctx_exec_by_a_thread_other_than_the_leader)
{
	static const char *const want[] = {
		"P0 1 init", "P0 2 init", "P0 2 lwp_create", "P0 1 fini", "P0 2 fini",
		"P0 2 exec pctx-exec", "P0 1 init", "P0 1 fini", "P0 1 exit 7",
	};
	pctx_t *p;
	int i;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	p = create_workload("texec");
	ASSERT_NE(NULL, p);
	pnum(__pctx_pid(p));
	set_all(p, 1);
	EXPECT_EQ(0, pctx_run(p, 0, 0, NULL));
	pctx_release(p);
	ASSERT_EQ((int)ARRAY_SIZE(want), nevents);
	for (i = 0; i < nevents; i++)
		EXPECT_STREQ(want[i], events[i]) TH_LOG("event %d", i);
}

TEST(pctx_children_and_exec_not_followed)
{
	static const char *const want[] = {
		"P0 1 init", "P0 2 init", "P0 2 lwp_create", "P0 2 fini", "P0 2 lwp_exit",
		"P0 1 fini", "P0 1 exec pctx-exec a  b",
	};
	pctx_t *p;
	int i, st;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	stop_at_exec = 1;
	p = create_workload("all");
	ASSERT_NE(NULL, p);
	first = __pctx_pid(p);
	pnum(first);
	set_all(p, 0);
	/* The exec handler stops the run: -1, as on Solaris. */
	EXPECT_EQ(-1, pctx_run(p, 0, 0, NULL));
	ASSERT_EQ((int)ARRAY_SIZE(want), nevents);
	for (i = 0; i < nevents; i++)
		EXPECT_STREQ(want[i], events[i]) TH_LOG("event %d", i);
	/* Still under control until the release, which kills what pctx_create() made. */
	EXPECT_EQ(0, waitpid(first, &st, WNOHANG));
	pctx_release(p);
	EXPECT_EQ(-1, waitpid(first, &st, WNOHANG));
	EXPECT_EQ(ESRCH, kill(first, 0) ? errno : 0);
}

/* Solaris passes pr_psargs: the arguments joined, at most 79 characters. */
TEST(pctx_exec_name_is_the_command_line_up_to_80_bytes)
{
	char want[128];
	pctx_t *p;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	p = create_workload("longexec");
	ASSERT_NE(NULL, p);
	pnum(__pctx_pid(p));
	set_all(p, 0);
	EXPECT_EQ(0, pctx_run(p, 0, 0, NULL));
	pctx_release(p);
	ASSERT_LE(3, nevents);
	EXPECT_STREQ("P0 1 fini", events[1]);
	snprintf(want, sizeof(want), "P0 1 exec pctx-exec %.*s", 79 - 10,
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	EXPECT_STREQ(want, events[2]);
	EXPECT_EQ(79U, strlen(events[2]) - strlen("P0 1 exec "));
}

/*
 * A process killed by a signal, as on Solaris (no exit system call stop):
 * neither fini_lwp nor the exit handler, and pctx_run() returns -1.
 */
TEST(pctx_process_killed_by_a_signal)
{
	pctx_t *p;
	int i;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	p = create_workload("killed");
	ASSERT_NE(NULL, p);
	pnum(__pctx_pid(p));
	set_all(p, 1);
	EXPECT_EQ(-1, pctx_run(p, 0, 0, NULL));
	pctx_release(p);
	ASSERT_EQ(3, nevents);
	EXPECT_STREQ("P0 1 init", events[0]);
	EXPECT_STREQ("P0 2 init", events[1]);
	EXPECT_STREQ("P0 2 lwp_create", events[2]);
	for (i = 0; i < nevents; i++)
		EXPECT_EQ(NULL, strstr(events[i], "fini"));
}

static int chatter;

static void count_chatter(const char *fn, const char *fmt, va_list ap)
{
	(void)fn;
	(void)fmt;
	(void)ap;
	chatter++;
}

/* Solaris' libpctx is verbose only about trouble: nothing for a capture or a create. */
TEST(pctx_verbose_says_nothing_when_all_goes_well)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	pctx_t *p;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	ASSERT_LT(0, n);
	path[n] = '\0';
	chatter = 0;
	p = pctx_capture(getpid(), NULL, 1, count_chatter);
	ASSERT_NE(NULL, p);
	pctx_release(p);
	setenv("PCTX_WORKLOAD", "exit7", 1);
	p = pctx_create(path, (char *[]){ "pctx-test", NULL }, NULL, 1, count_chatter);
	unsetenv("PCTX_WORKLOAD");
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, pctx_run(p, 0, 0, NULL));
	pctx_release(p);
	EXPECT_EQ(0, chatter);
}

TEST(pctx_create_failure)
{
	errno = 0;
	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	err_calls = 0;
	EXPECT_EQ(NULL, pctx_create("/nonexistent/x", (char *[]){ "x", NULL }, NULL, 0, NULL));
	EXPECT_EQ(ENOENT, errno);
}

static int traced_by(pid_t pid)
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

/* ---- Solaris semantics of the ends of a run (issue 22: H1, M6) ---- */

static char errfn_buf[8][160];
static int nerrfn;

static void errfn_rec(const char *fn, const char *fmt, va_list ap)
{
	char msg[128];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (nerrfn < 8)
		snprintf(errfn_buf[nerrfn++], sizeof(errfn_buf[0]), "%s: %s", fn, msg);
}

/* A child that counts in shared memory until killed; exits 5 on SIGUSR2. */
static volatile long *spin_count;

static void on_usr2(int sig)
{
	(void)sig;
	_exit(5);
}

static pid_t spawn_counter(void)
{
	pid_t pid;

	spin_count = mmap(NULL, sizeof(*spin_count), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (spin_count == MAP_FAILED)
		return -1;
	*spin_count = 0;
	pid = fork();
	if (pid == 0) {
		signal(SIGUSR2, on_usr2);
		for (;;) {
			(*spin_count)++;
			usleep(1000);
		}
	}
	while (pid > 0 && *spin_count < 5)
		usleep(1000);
	return pid;
}

static pctx_t *term_pctx;
static int term_after, tick_result;

static int tick_term(pctx_t *p, pid_t pid, id_t lwp, void *arg)
{
	(void)pid;
	(void)lwp;
	(void)arg;
	if (++ticks == term_after)
		pctx_terminate(p);
	return tick_result;
}

TEST(pctx_terminate_leaves_a_captured_process_running)
{
	pctx_t *p;
	pid_t child;
	long c;
	int st;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	child = spawn_counter();
	ASSERT_LT(0, child);
	p = pctx_capture(child, NULL, 0, NULL);
	ASSERT_NE(NULL, p);
	set_all(p, 0);
	/* pctx_terminate() from the tick: pctx_run() returns 0 at once. */
	term_pctx = p;
	term_after = 2;
	tick_result = 0;
	EXPECT_EQ(0, pctx_run(p, 20, 0, tick_term));
	EXPECT_EQ(2, ticks);
	/* pctx_terminate() after the run, as cpc_terminate() may be, too. */
	pctx_terminate(p);
	pctx_release(p);
	/* Running, untraced, not killed. */
	EXPECT_EQ(0, waitpid(child, &st, WNOHANG | WUNTRACED));
	EXPECT_EQ(0, traced_by(child));
	c = *spin_count;
	usleep(50000);
	EXPECT_GT(*spin_count, c);
	/* Its exit status is its own. */
	kill(child, SIGUSR2);
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(5, WEXITSTATUS(st));
	munmap((void *)spin_count, sizeof(*spin_count));
}

static pctx_t *sig_pctx;

static void on_alarm(int sig)
{
	(void)sig;
	pctx_terminate(sig_pctx);
}

static void on_other(int sig)
{
	(void)sig;
}

TEST(pctx_terminate_from_a_signal_handler_and_other_signals)
{
	struct sigaction sa = { .sa_handler = on_other };
	struct itimerval it = { .it_value = { .tv_usec = 300000 } };
	struct timespec t0, t1;
	pctx_t *p;
	pid_t child, helper;
	int st;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	child = spawn_counter();
	ASSERT_LT(0, child);
	p = pctx_capture(child, NULL, 0, NULL);
	ASSERT_NE(NULL, p);
	sig_pctx = p;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* A signal whose handler does not call pctx_terminate(): the run goes on. */
	helper = fork();
	if (helper == 0) {
		usleep(100000);
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	setitimer(ITIMER_REAL, &it, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* msec 0: no ticks, events only; nsamples is not looked at. */
	EXPECT_EQ(0, pctx_run(p, 0, 1, on_tick));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_EQ(0, ticks);
	/* Returned at the SIGALRM (300 ms), not at the SIGUSR1 (100 ms). */
	EXPECT_GE((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000, 250);
	pctx_release(p);
	waitpid(helper, NULL, 0);
	EXPECT_EQ(0, waitpid(child, &st, WNOHANG | WUNTRACED));
	kill(child, SIGUSR2);
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(5, WEXITSTATUS(st));
	signal(SIGALRM, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
	munmap((void *)spin_count, sizeof(*spin_count));
}

TEST(pctx_run_returns_minus_1_when_the_tick_stops_it)
{
	pctx_t *p;
	pid_t child;
	int st;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	child = spawn_counter();
	ASSERT_LT(0, child);
	p = pctx_capture(child, NULL, 0, NULL);
	ASSERT_NE(NULL, p);
	set_all(p, 0);
	term_after = 0;
	tick_result = 1;
	EXPECT_EQ(-1, pctx_run(p, 20, 0, tick_term));
	EXPECT_EQ(1, ticks);
	/* nsamples reached: 0. */
	pctx_release(p);
	p = pctx_capture(child, NULL, 0, NULL);
	ASSERT_NE(NULL, p);
	tick_result = 0;
	ticks = 0;
	EXPECT_EQ(0, pctx_run(p, 20, 2, tick_term));
	EXPECT_EQ(2, ticks);
	pctx_release(p);
	kill(child, SIGUSR2);
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_EQ(5, WEXITSTATUS(st));
	munmap((void *)spin_count, sizeof(*spin_count));
}

TEST(pctx_release_kills_what_pctx_create_made)
{
	pctx_t *p;
	pid_t pid;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	/* Never run: killed at the release. */
	p = pctx_create("sleep", (char *[]){ "sleep", "5", NULL }, NULL, 0, NULL);
	ASSERT_NE(NULL, p);
	pid = __pctx_pid(p);
	pctx_release(p);
	EXPECT_EQ(-1, waitpid(pid, NULL, WNOHANG));
	EXPECT_EQ(-1, kill(pid, 0));
	/* Stopped after two samples, then released: killed too. */
	p = pctx_create("sleep", (char *[]){ "sleep", "5", NULL }, NULL, 0, NULL);
	ASSERT_NE(NULL, p);
	pid = __pctx_pid(p);
	EXPECT_EQ(0, pctx_run(p, 20, 2, on_tick));
	EXPECT_EQ(2, ticks);
	EXPECT_EQ(0, kill(pid, 0));
	pctx_release(p);
	EXPECT_EQ(-1, kill(pid, 0));
}

TEST(pctx_stops_at_an_exec_without_an_exec_handler)
{
	pctx_t *p;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	p = create_workload("all");
	ASSERT_NE(NULL, p);
	pnum(__pctx_pid(p));
	pctx_set_events(p, PCTX_INIT_LWP_EVENT, on_init, PCTX_FINI_LWP_EVENT, on_fini,
			PCTX_NULL_EVENT);
	EXPECT_EQ(0, pctx_run(p, 0, 0, NULL));
	pctx_release(p);
	/* Up to the exec; nothing of the new image. */
	ASSERT_EQ(4, nevents);
	EXPECT_STREQ("P0 1 init", events[0]);
	EXPECT_STREQ("P0 2 init", events[1]);
	EXPECT_STREQ("P0 2 fini", events[2]);
	EXPECT_STREQ("P0 1 fini", events[3]);
}

TEST(pctx_error_function_names_and_messages)
{
	pid_t gone;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	nerrfn = 0;
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	EXPECT_EQ(NULL, pctx_capture(gone, NULL, 0, errfn_rec));
	EXPECT_EQ(NULL, pctx_create("/nonexistent/x", (char *[]){ "x", NULL }, NULL, 0,
				    errfn_rec));
	ASSERT_EQ(2, nerrfn);
	{
		char want[128];

		snprintf(want, sizeof(want), "capture: pid %d doesn't exist\n", (int)gone);
		EXPECT_STREQ(want, errfn_buf[0]);
	}
	EXPECT_STREQ("create: cannot find program '/nonexistent/x'\n", errfn_buf[1]);
}

static void *spin_thread(void *arg)
{
	for (;;)
		usleep(2000);
	return arg;
}

TEST(pctx_capture_ticks_and_detach)
{
	pctx_t *p;
	pid_t child;
	int st;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	reset();
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		pthread_t t;

		pthread_create(&t, NULL, spin_thread, NULL);
		spin_thread(NULL);
	}
	usleep(50000);
	pnum(child);
	p = pctx_capture(child, NULL, 0, NULL);
	ASSERT_NE(NULL, p);
	set_all(p, 1);
	/* Three rounds of ticks for two LWPs, then let go. */
	EXPECT_EQ(0, pctx_run(p, 20, 3, on_tick));
	EXPECT_EQ(6, ticks);
	EXPECT_EQ(0, traced_by(child));
	ASSERT_EQ(4, nevents);
	EXPECT_STREQ("P0 1 init", events[0]);
	EXPECT_STREQ("P0 2 init", events[1]);
	EXPECT_STREQ("P0 1 fini", events[2]);
	EXPECT_STREQ("P0 2 fini", events[3]);
	pctx_release(p);
	/* Still running, not stopped. */
	EXPECT_EQ(0, waitpid(child, &st, WNOHANG | WUNTRACED));
	kill(child, SIGKILL);
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_TRUE(WIFSIGNALED(st));
}

/* The state letter of /proc/pid/stat. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

static volatile long *zl_count;

static void *zl_spin(void *arg)
{
	for (;;) {
		(*zl_count)++;
		usleep(1000);
	}
	return arg;
}

TEST(pctx_detach_with_the_leader_gone)
{
	pctx_t *p;
	pid_t child;
	long c;
	int st;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	zl_count = mmap(NULL, sizeof(*zl_count), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)zl_count);
	*zl_count = 0;
	reset();
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		pthread_t t;

		pthread_create(&t, NULL, zl_spin, NULL);
		/* Long enough for a loaded host to capture it first. */
		usleep(1000000);
		/* The leader goes, the process runs on (SYS_exit: no unwinding). */
		syscall(SYS_exit, 0);
	}
	usleep(50000);
	pnum(child);
	p = pctx_capture(child, NULL, 0, NULL);
	ASSERT_NE(NULL, p);
	set_all(p, 1);
	/* The leader exits during the run; the run ends and lets go. */
	EXPECT_EQ(0, pctx_run(p, 50, 100, on_tick));
	pctx_release(p);
	for (c = 0; c < nevents && nevents != 5; c++)
		TH_LOG("event %ld: %s", c, events[c]);
	ASSERT_EQ(5, nevents);
	EXPECT_STREQ("P0 1 init", events[0]);
	EXPECT_STREQ("P0 2 init", events[1]);
	EXPECT_STREQ("P0 1 fini", events[2]);
	EXPECT_STREQ("P0 1 lwp_exit", events[3]);
	EXPECT_STREQ("P0 2 fini", events[4]);
	c = *zl_count;
	usleep(50000);
	EXPECT_GT(*zl_count, c);
	kill(child, SIGKILL);
	ASSERT_EQ(child, waitpid(child, &st, 0));
	munmap((void *)zl_count, sizeof(*zl_count));
}

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

struct sigshared {
	volatile long count;
	volatile int usr1;
};

TEST(pctx_signals_and_job_control_pass_through)
{
	struct sigshared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pctx_t *p;
	pid_t child, helper;
	long c;
	int st;

	if (!can_ptrace())
		SKIP(return, "ptrace is not allowed here");
	ASSERT_NE(MAP_FAILED, sh);
	reset();
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		signal(SIGUSR1, on_usr1);
		for (;;) {
			sh->count++;
			sh->usr1 = usr1;
			usleep(1000);
		}
	}
	usleep(50000);
	p = pctx_capture(child, NULL, 0, NULL);
	ASSERT_NE(NULL, p);
	set_all(p, 1);
	/* Signals while it runs traced: from a helper, during pctx_run(). */
	helper = fork();
	if (helper == 0) {
		usleep(100000);
		kill(child, SIGUSR1);
		usleep(100000);
		kill(child, SIGSTOP);
		usleep(200000);
		_exit(0);
	}
	/* 30 rounds of 20 ms: the helper has sent both signals by then. */
	EXPECT_EQ(0, pctx_run(p, 20, 30, on_tick));
	pctx_release(p);
	/* pctx_run() waits for its tracees only: the helper is still ours to collect. */
	EXPECT_EQ(helper, waitpid(helper, NULL, 0));
	/* The handler ran once; the process is stopped, untraced. */
	EXPECT_EQ(1, sh->usr1);
	EXPECT_EQ(0, traced_by(child));
	c = sh->count;
	usleep(50000);
	EXPECT_EQ(c, sh->count);
	EXPECT_EQ('T', proc_state(child));
	/* And goes on after SIGCONT. */
	kill(child, SIGCONT);
	usleep(50000);
	EXPECT_GT(sh->count, c);
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
