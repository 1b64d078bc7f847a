// SPDX-License-Identifier: GPL-2.0
/*
 * libcpc(3LIB), the Solaris CPU performance counter library, end to end on
 * /dev/cpc: the two examples of cpc_bind_curlwp(3CPC) (the programs built
 * from tests/examples, and the same flows with an exact injected count in
 * every iteration), overflow signals and restarts, inheritance by new
 * threads, process contexts and who may bind them, CPU bindings and the
 * Solaris rules around them, every applicable errno of cpc_bind_curlwp(3CPC)
 * and the error-handler subcodes, software events, eight threads at once,
 * generic events, and what is left in the kernel after close and exit.
 *
 * The test PMU counts only what a test injects, so counts are exact.  A
 * per-thread counter counts an injection only when its thread is the one
 * running on that CPU, so every thread injects on its own CPU, itself.
 * Vendor-dependent behaviour is tested by libcpc_vendor_test.c.
 */
#include <libcpc.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

/* Test PMU codes (event | umask << 8) of perf's generic events. */
#define EV_INSTR	0x00c0
#define EV_CYCLES	0x003c
#define EV_BRANCH	0x00c4
#define EV_BRANCH_MISS	0x00c5

#define PRESET		(UINT64_MAX - 999ULL)	/* overflows after 1000 */
#define KERNEL_IP	0xffffffff81000000ULL
#define HOTPLUG_CPU	3
#define NOBODY		65534
#define OTHER_UID	65533
#define PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"
#define EXAMPLE1	pmc_test_file("solaris-cpc1-example")
#define EXAMPLE2	pmc_test_file("solaris-cpc2-example")
#define USR		CPC_COUNT_USER
#define USR_SYS		(CPC_COUNT_USER | CPC_COUNT_SYSTEM)

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* A set of cpc with one request per event, each with flags, preset 0. */
#define SET(cpc, flags, ...) \
	make_set(cpc, flags, (const char *const []){ __VA_ARGS__, NULL })

static cpc_set_t *make_set(cpc_t *cpc, unsigned int flags,
			   const char *const *events)
{
	cpc_set_t *set = cpc_set_create(cpc);
	int n = 0;

	while (events[n])
		n++;
	if (set && cpc_add_events(cpc, set, flags, events) != n)
		return NULL;
	return set;
}

/* A handle whose errors go to the recording handler. */
static cpc_t *open_cpc(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	if (cpc)
		cpc_seterrhndlr(cpc, cpc_errlog_handler);
	return cpc;
}

static int errp(const void *p)
{
	return p ? 0 : errno;
}

/* Inject count user-mode events on the CPU the (pinned) caller runs on. */
/* The CPUs the calling thread may run on, as a bit mask (CPUs 0-63). */
static unsigned long long affinity_mask(void)
{
	unsigned long long m = 0;
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (i = 0; i < 64; i++)
		if (CPU_ISSET(i, &set))
			m |= 1ULL << i;
	return m;
}

/* Lines of the test PMU's state for CPU cpu. */
static int fakepmu_lines_on(int cpu)
{
	char tag[16];

	snprintf(tag, sizeof(tag), "cpu=%d ", cpu);
	return fakepmu_state_count(tag, NULL);
}

static bool no_counter_on_my_cpu(void *arg)
{
	return fakepmu_lines_on(sched_getcpu()) == 0;
}

/* The test PMU's module reference count: one per live perf event on it. */
static bool fakepmu_refcnt_is(void *arg)
{
	return module_refcnt("fakepmu") == *(int *)arg;
}

static bool task_gone(void *arg)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", *(pid_t *)arg);
	return access(path, F_OK) != 0;
}

FIXTURE(libcpc) {
	int paranoid;		/* saved perf_event_paranoid, or INT_MIN */
	int offlined;		/* CPU this test took offline, or -1 */
	long node_saved;	/* /dev/cpc group and mode to restore, or -1 */
	bool fakepmu_removed;	/* this test unloaded the test PMU */
};

FIXTURE_SETUP(libcpc)
{
	self->paranoid = INT_MIN;
	self->offlined = -1;
	self->node_saved = -1;
	self->fakepmu_removed = false;
	cpc_errlog_reset();
	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
}

/* In the parent, as root: runs even when the test process died. */
FIXTURE_TEARDOWN_PARENT(libcpc)
{
	char buf[16];

	write_file("/sys/kernel/debug/fakepmu/fail_inits", "0\n");
	if (self->offlined >= 0 && cpu_online_state(self->offlined) == 0)
		EXPECT_EQ(0, set_cpu_online(self->offlined, 1));
	if (self->paranoid != INT_MIN) {
		snprintf(buf, sizeof(buf), "%d\n", self->paranoid);
		EXPECT_EQ(0, write_file(PARANOID_PATH, buf));
	}
	if (self->fakepmu_removed && !module_loaded("fakepmu"))
		EXPECT_EQ(0, fakepmu_reload());
	EXPECT_EQ(0, node_restore(PMC_CPC_PATH, self->node_saved));
}

/* Set perf_event_paranoid; the first change saves the value to restore. */
static int set_paranoid(FIXTURE_DATA(libcpc) *self, int level)
{
	char buf[16];
	int err, old;

	if (self->paranoid == INT_MIN) {
		err = read_file_int(PARANOID_PATH, &old);
		if (err)
			return err;
		self->paranoid = old;
	}
	snprintf(buf, sizeof(buf), "%d\n", level);
	return write_file(PARANOID_PATH, buf);
}

/* Results a child process hands back (it must not use the harness macros). */
struct child_res {
	int err[16];
	unsigned long long val[8];
};

static struct child_res *child_res_new(void)
{
	return shared_zone(sizeof(struct child_res));
}

/* Run fn(r, arg) in a child; its exit status, or -1 if it did not exit. */
static int run_child(void (*fn)(struct child_res *r, void *arg),
		     struct child_res *r, void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(r, arg);
		_exit(0);
	}
	return child_status(pid);
}

/* Drop every privilege for user and group uid. */
static int become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

/* ---- the example programs ---------------------------------------------- */

struct ex_run {
	int status;		/* exit code, or -1 when killed */
	pid_t pid;
	char *out;		/* all of stdout (malloc'd) */
	char err[4096];		/* stderr (truncated) */
};

/* The whole of a file, from the start, NUL-terminated (malloc'd). */
static char *read_all(int fd)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf || lseek(fd, 0, SEEK_SET))
		return buf;
	for (;;) {
		if (cap - len < 4096) {
			char *p = realloc(buf, cap * 2);

			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	return buf;
}

/* Run an example on CPU cpu with environment entries env (NULL-terminated). */
static int run_example(struct ex_run *r, const char *path, int cpu,
		       const char *const *env)
{
	char outname[] = "/tmp/libcpc_test-outXXXXXX";
	char errname[] = "/tmp/libcpc_test-errXXXXXX";
	int out = mkstemp(outname), err = mkstemp(errname);
	int status, i;
	ssize_t n;

	if (out < 0 || err < 0)
		return -1;
	unlink(outname);
	unlink(errname);
	r->pid = fork();
	if (r->pid < 0)
		return -1;
	if (r->pid == 0) {
		if (pin_to_cpu(cpu) || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(126);
		for (i = 0; env[i]; i++)
			putenv((char *)env[i]);
		execl(path, strrchr(path, '/') + 1, (char *)NULL);
		_exit(127);
	}
	if (waitpid(r->pid, &status, 0) != r->pid)
		return -1;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r->out = read_all(out);
	lseek(err, 0, SEEK_SET);
	n = read(err, r->err, sizeof(r->err) - 1);
	r->err[n > 0 ? n : 0] = '\0';
	close(out);
	close(err);
	return r->out ? 0 : -1;
}

#define NEED_EXAMPLE(path) do {						\
	const char *example_ = (path);					\
									\
	if (access(example_, X_OK))					\
		SKIP(return, "%.900s not built", example_);			\
} while (0)

/*
 * Example 1 of cpc_bind_curlwp(3CPC): 20 lines "%3d: %lld %lld", one per
 * iteration, and nothing else; the values of the first event go to v0.
 */
static void check_example1_lines(struct __test_metadata *_metadata, char *out,
				 long long *v0)
{
	char *line, *save = NULL, again[128];
	int iter, got, n = 0;
	long long a, b;

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		got = sscanf(line, "%d: %lld %lld", &iter, &a, &b);
		ASSERT_EQ(3, got) TH_LOG("line %d: \"%s\"", n + 1, line);
		snprintf(again, sizeof(again), "%3d: %lld %lld", iter, a, b);
		EXPECT_STREQ(again, line);
		ASSERT_GT(20, n) TH_LOG("more than 20 lines");
		EXPECT_EQ(n + 1, iter);
		v0[n++] = a;
	}
	EXPECT_EQ(20, n);
}

TEST_F(libcpc, example1_program_prints_twenty_lines)
{
	char want[1024];
	long long v0[20];
	struct ex_run r;
	size_t pos = 0;
	int i;

	NEED_FAKEPMU();
	NEED_EXAMPLE(EXAMPLE1);
	/* Instructions and cycles: the test PMU counts none unless told. */
	ASSERT_EQ(0, run_example(&r, EXAMPLE1, 1, (const char *const []){ NULL }));
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.err);
	for (i = 1; i <= 20; i++)
		pos += snprintf(want + pos, sizeof(want) - pos, "%3d: 0 0\n", i);
	EXPECT_STREQ(want, r.out);
	free(r.out);

	/* Its own CPU time, in every one of the 20 computations. */
	ASSERT_EQ(0, run_example(&r, EXAMPLE1, 2, (const char *const []){
		"EVENT0=sw_task_clock", "EVENT1=sw_page_faults", NULL }));
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.err);
	memset(v0, 0, sizeof(v0));
	check_example1_lines(_metadata, r.out, v0);
	for (i = 0; i < 20; i++) {
		EXPECT_LT(0LL, v0[i]) TH_LOG("iteration %d counted no task clock", i + 1);
	}
	free(r.out);

	/* An unknown event: the library's message, then the program's. */
	ASSERT_EQ(0, run_example(&r, EXAMPLE1, 1, (const char *const []){
		"EVENT1=no_such_event", NULL }));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("libcpc: cpc_set_add_request: Unknown event\n"
		     "example1: could not add second request: Invalid argument\n",
		     r.err);
	EXPECT_STREQ("", r.out);
	free(r.out);
}

TEST_F(libcpc, example1_flow_counts_every_injection_exactly)
{
	cpc_buf_t *diff, *after, *before;
	uint64_t val0, val1;
	cpc_set_t *set;
	int iter, ind0, ind1;
	cpc_t *cpc;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	ind0 = cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, USR, 0, NULL);
	ind1 = cpc_set_add_request(cpc, set, "PAPI_tot_cyc", 0, USR, 0, NULL);
	ASSERT_EQ(0, ind0);
	ASSERT_EQ(1, ind1);
	diff = cpc_buf_create(cpc, set);
	after = cpc_buf_create(cpc, set);
	before = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, diff);
	ASSERT_NE(NULL, after);
	ASSERT_NE(NULL, before);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));

	for (iter = 1; iter <= 20; iter++) {
		ASSERT_EQ(0, cpc_set_sample(cpc, set, before));
		/* The computation: known user-mode counts, and some that are not. */
		ASSERT_EQ(0, inject_here(EV_INSTR, 1000ULL * iter + 7));
		ASSERT_EQ(0, inject_here(EV_CYCLES, 3ULL * iter));
		ASSERT_EQ(0, inject_ip(1, EV_INSTR, 50, 1, KERNEL_IP));
		ASSERT_EQ(0, inject_here(EV_BRANCH, 11));
		ASSERT_EQ(0, cpc_set_sample(cpc, set, after));

		cpc_buf_sub(cpc, diff, after, before);
		ASSERT_EQ(0, cpc_buf_get(cpc, diff, ind0, &val0));
		ASSERT_EQ(0, cpc_buf_get(cpc, diff, ind1, &val1));
		EXPECT_EQ(1000ULL * iter + 7, val0) TH_LOG("iteration %d", iter);
		EXPECT_EQ(3ULL * iter, val1) TH_LOG("iteration %d", iter);
		EXPECT_LT(0LL, cpc_buf_hrtime(cpc, before));
		EXPECT_LE(cpc_buf_hrtime(cpc, before), cpc_buf_hrtime(cpc, after));
		EXPECT_EQ(cpc_buf_hrtime(cpc, after), cpc_buf_hrtime(cpc, diff));
		EXPECT_EQ(cpc_buf_tick(cpc, after) - cpc_buf_tick(cpc, before),
			  cpc_buf_tick(cpc, diff));
	}
	/* The last sample holds the sums of the 20 iterations. */
	ASSERT_EQ(0, cpc_buf_get(cpc, after, ind0, &val0));
	ASSERT_EQ(0, cpc_buf_get(cpc, after, ind1, &val1));
	EXPECT_EQ(1000ULL * 210 + 7 * 20, val0);
	EXPECT_EQ(3ULL * 210, val1);
	EXPECT_EQ(0, cpc_close(cpc));
	EXPECT_EQ(0, cpc_errlog.calls);
}

/*
 * Example 2's output: pairs of "lwpN - si_addr P ucontext: %pc P %sp P" and
 * "0xV" (the value the handler sampled, past 2^64), then "overflows: N";
 * when cut, the output ends after a first line instead (the handler could
 * not sample).  Returns the number of pairs.
 */
static int check_example2_lines(struct __test_metadata *_metadata, char *out,
				pid_t pid, bool cut)
{
	unsigned long long addr, pc, sp, val;
	char *line, *save = NULL;
	int lwp, n = 0, total = -1;
	bool pending = false;

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		EXPECT_EQ(-1, total) TH_LOG("after the total: \"%s\"", line);
		if (sscanf(line, "lwp%d - si_addr %llx ucontext: %%pc %llx %%sp %llx",
			   &lwp, &addr, &pc, &sp) == 4) {
			EXPECT_FALSE(pending) TH_LOG("no value before \"%s\"", line);
			EXPECT_EQ(pid, lwp);
			/* A user-mode counter is interrupted in user mode. */
			EXPECT_NE(0ULL, addr);
			EXPECT_GT(1ULL << 47, addr);
			EXPECT_NE(0ULL, pc);
			EXPECT_NE(0ULL, sp);
			pending = true;
		} else if (pending && sscanf(line, "0x%llx", &val) == 1) {
			EXPECT_GT(PRESET, val) TH_LOG("sampled 0x%llx", val);
			pending = false;
			n++;
		} else if (sscanf(line, "overflows: %d", &total) != 1) {
			EXPECT_STREQ("(an example 2 line)", line);
		}
	}
	if (cut) {
		EXPECT_TRUE(pending);
		EXPECT_EQ(-1, total);
	} else {
		EXPECT_FALSE(pending);
		EXPECT_EQ(n, total);
	}
	return n;
}

TEST_F(libcpc, example2_program_handles_overflows)
{
	struct ex_run r;
	bool cut;
	int n;

	NEED_FAKEPMU();
	NEED_EXAMPLE(EXAMPLE2);
	/* Instructions: the test PMU counts none, so no overflow. */
	ASSERT_EQ(0, run_example(&r, EXAMPLE2, 1, (const char *const []){ NULL }));
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.err);
	EXPECT_STREQ("overflows: 0\n", r.out);
	free(r.out);

	/*
	 * Its task clock: an overflow every 1000 ns (perf's timer makes that
	 * 10 us at least, or a tick without high-resolution timers); the
	 * handler samples and restarts each time.  How many there are
	 * depends on time; the output must be consistent.
	 */
	ASSERT_EQ(0, run_example(&r, EXAMPLE2, 2, (const char *const []){
		"EVENT=sw_task_clock", "ITERS=20", NULL }));
	/*
	 * Its own cpc_unbind() takes time too, and an overflow then is
	 * signalled after the set is unbound, so that the handler's sample
	 * fails: see overflow_during_cpc_unbind_is_signalled_while_bound.
	 */
	cut = r.status == 1 &&
	      !strcmp(r.err, "example2: cannot sample: Invalid argument\n");
	if (cut) {
		TH_LOG("known: SIGEMT after cpc_unbind() (%s)", r.err);
	} else {
		EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	}
	EXPECT_TRUE(cut || !strcmp(r.err, "")) TH_LOG("stderr: %s", r.err);
	n = check_example2_lines(_metadata, r.out, r.pid, cut);
	TH_LOG("%d overflows", n);
	free(r.out);
}

/* ---- overflow ------------------------------------------------------------ */

#define EMT_MAX	8

/* What the SIGEMT handler saw, and what it is to do. */
static struct {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
	int index;
	bool restart;		/* preset index to next_preset and restart */
	uint64_t next_preset;
	volatile sig_atomic_t count;
	int signo[EMT_MAX], code[EMT_MAX], sample_err[EMT_MAX], restart_err[EMT_MAX];
	pid_t tid[EMT_MAX];
	void *addr[EMT_MAX];
	uint64_t val[EMT_MAX];
} emt;

static void emt_handler(int sig, siginfo_t *si, void *uc)
{
	int n = emt.count, saved = errno;

	if (n < EMT_MAX) {
		emt.signo[n] = sig;
		emt.code[n] = si->si_code;
		emt.addr[n] = si->si_addr;
		emt.tid[n] = gettid();
		emt.sample_err[n] = cpc_set_sample(emt.cpc, emt.set, emt.buf) ? errno : 0;
		cpc_buf_get(emt.cpc, emt.buf, emt.index, &emt.val[n]);
		emt.restart_err[n] = -1;
		if (emt.restart) {
			emt.restart_err[n] =
				cpc_request_preset(emt.cpc, emt.index, emt.next_preset) ?
				errno : 0;
			if (!emt.restart_err[n] && cpc_set_restart(emt.cpc, emt.set))
				emt.restart_err[n] = errno;
		}
	}
	emt.count = n + 1;
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

static bool emt_reached(void *arg)
{
	return emt.count >= *(int *)arg;
}

/* Wait (2 s at most) for the n-th SIGEMT; returns how many came. */
static int wait_emt(int n)
{
	wait_until(emt_reached, &n);
	return emt.count;
}

TEST_F(libcpc, example2_flow_overflow_signal_and_restart)
{
	uint64_t v[2];
	cpc_t *cpc;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(2));
	ASSERT_EQ(0, setup_emt());
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	emt.cpc = cpc;
	emt.set = cpc_set_create(cpc);
	ASSERT_NE(NULL, emt.set);
	emt.index = cpc_set_add_request(cpc, emt.set, "PAPI_tot_ins", PRESET,
					USR | CPC_OVF_NOTIFY_EMT, 0, NULL);
	ASSERT_EQ(0, emt.index);
	ASSERT_EQ(1, cpc_set_add_request(cpc, emt.set, "PAPI_tot_cyc", 5, USR, 0, NULL));
	emt.buf = cpc_buf_create(cpc, emt.set);
	ASSERT_NE(NULL, emt.buf);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, emt.set, 0));

	/* 999 events: one short.  A signal would have come before inject returned. */
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 999, 0, 0x401000));
	EXPECT_EQ(0, emt.count);
	ASSERT_EQ(0, sample(cpc, emt.set, emt.buf, v, 2));
	EXPECT_EQ(UINT64_MAX, v[0]);
	EXPECT_EQ(5ULL, v[1]);

	/* The 1000th: SIGEMT, EMT_CPCOVF, at the interrupted pc. */
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 1, 0, 0x401234));
	ASSERT_EQ(1, wait_emt(1));
	EXPECT_EQ(SIGEMT, emt.signo[0]);
	EXPECT_EQ(EMT_CPCOVF, emt.code[0]);
	EXPECT_EQ((void *)0x401234, emt.addr[0]);
	EXPECT_EQ(gettid(), emt.tid[0]);
	EXPECT_EQ(0, emt.sample_err[0]);
	EXPECT_EQ(0ULL, emt.val[0]);		/* 2^64 */

	/* The set is frozen: nothing counts until it is restarted. */
	EXPECT_TRUE(wait_until(no_counter_on_my_cpu, NULL))
		TH_LOG("DRIVER BUG: counters still running after the overflow");
	ASSERT_EQ(0, inject_here(EV_INSTR, 50));
	ASSERT_EQ(0, inject_here(EV_CYCLES, 70));
	ASSERT_EQ(0, sample(cpc, emt.set, emt.buf, v, 2));
	EXPECT_EQ(0ULL, v[0]);
	EXPECT_EQ(5ULL, v[1]);
	EXPECT_EQ(1, emt.count);

	/* Restart after the handler, with new presets: now 500 to go. */
	ASSERT_EQ(0, cpc_request_preset(cpc, 0, UINT64_MAX - 499));
	ASSERT_EQ(0, cpc_request_preset(cpc, 1, 100));
	ASSERT_EQ(0, sample(cpc, emt.set, emt.buf, v, 2));
	EXPECT_EQ(0ULL, v[0]);			/* not before the restart */
	ASSERT_EQ(0, cpc_set_restart(cpc, emt.set));
	ASSERT_EQ(0, sample(cpc, emt.set, emt.buf, v, 2));
	EXPECT_EQ(UINT64_MAX - 499, v[0]);
	EXPECT_EQ(100ULL, v[1]);
	ASSERT_EQ(0, inject_here(EV_INSTR, 499));
	ASSERT_EQ(0, inject_here(EV_CYCLES, 8));
	EXPECT_EQ(1, emt.count);

	/* The second overflow; this time the handler restarts, as in Example 2. */
	emt.restart = true;
	emt.next_preset = PRESET;
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 1, 0, 0x402468));
	ASSERT_EQ(2, wait_emt(2));
	EXPECT_EQ(EMT_CPCOVF, emt.code[1]);
	EXPECT_EQ((void *)0x402468, emt.addr[1]);
	EXPECT_EQ(0, emt.sample_err[1]);
	EXPECT_EQ(0ULL, emt.val[1]);
	EXPECT_EQ(0, emt.restart_err[1]);
	ASSERT_EQ(0, sample(cpc, emt.set, emt.buf, v, 2));
	EXPECT_EQ(PRESET, v[0]);
	EXPECT_EQ(100ULL, v[1]);

	/* And again after exactly 1000 more. */
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 999, 0, 0x403000));
	EXPECT_EQ(2, emt.count);
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 1, 0, 0x40369c));
	ASSERT_EQ(3, wait_emt(3));
	EXPECT_EQ((void *)0x40369c, emt.addr[2]);
	EXPECT_EQ(0ULL, emt.val[2]);
	EXPECT_EQ(0, emt.restart_err[2]);

	/* Unbound, nothing overflows any more. */
	ASSERT_EQ(0, cpc_unbind(cpc, emt.set));
	ASSERT_EQ(0, inject_here(EV_INSTR, 5000));
	EXPECT_EQ(3, emt.count);
	EXPECT_EQ(0, cpc_close(cpc));
}

/* Thread: inject count events (at ip) on CPU cpu from that CPU. */
struct injector {
	int cpu;
	unsigned int event;
	unsigned long long count, ip;
	int err;
};

static void *injector_fn(void *arg)
{
	struct injector *in = arg;

	in->err = pin_to_cpu(in->cpu) ? errno :
		  -inject_ip(in->cpu, in->event, in->count, 0, in->ip);
	return NULL;
}

static int inject_from_thread(int cpu, unsigned int event,
			      unsigned long long count, unsigned long long ip)
{
	struct injector in = { cpu, event, count, ip, -1 };
	pthread_t t;

	if (pthread_create(&t, NULL, injector_fn, &in) ||
	    pthread_join(t, NULL))
		return -1;
	return in.err;
}

TEST_F(libcpc, cpu_binding_overflow_signals_the_binding_thread)
{
	cpc_set_t *set;
	cpc_t *cpc;
	uint64_t v;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_EQ(0, setup_emt());
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_ins", UINT64_MAX - 99,
					 USR_SYS | CPC_OVF_NOTIFY_EMT, 0, NULL));
	emt.cpc = cpc;
	emt.set = set;
	emt.buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, emt.buf);
	ASSERT_EQ(0, cpc_bind_cpu(cpc, 2, set, 0));

	/* Another thread's events on CPU 2 overflow it; this thread is told. */
	ASSERT_EQ(0, inject_from_thread(2, EV_INSTR, 100, 0x405000));
	ASSERT_EQ(1, wait_emt(1));
	EXPECT_EQ(EMT_CPCOVF, emt.code[0]);
	EXPECT_EQ((void *)0x405000, emt.addr[0]);
	EXPECT_EQ(gettid(), emt.tid[0]);
	EXPECT_EQ(0, emt.sample_err[0]);
	EXPECT_EQ(0ULL, emt.val[0]);
	ASSERT_EQ(0, sample(cpc, set, emt.buf, &v, 1));
	EXPECT_EQ(0ULL, v);
	EXPECT_EQ(0, cpc_close(cpc));
}

/*
 * A CPU binding sampled from another CPU while its CPU idles reads what
 * perf reads: CPU 2's software clock, bound by this thread (which binding
 * pins to CPU 2, where it then sleeps in pthread_join()) and sampled by a
 * thread on CPU 0, against perf's own cpu-clock event of CPU 2 read beside
 * it.  The idle fold of before gave 43% to 108% of perf's figure here: it
 * returned the count of the CPU's last idle entry.
 */
struct exact_read {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
	int fd;
	/* pmcompat's interval; perf's shortest and longest that contain it */
	long long pmc[3], perf_lo[3], perf_hi[3];
	int err;
};

/*
 * One end of an interval: perf's clock, pmcompat's sample, perf's clock
 * again, so that pmcompat's reading lies between the two of perf's however
 * long the system calls took (a loaded host's TCG guest can stall a vCPU
 * for tens of milliseconds between two of them).
 */
static int exact_read_end(struct exact_read *x, uint64_t *c, uint64_t *pa, uint64_t *pb)
{
	if (read(x->fd, pa, sizeof(*pa)) != sizeof(*pa) ||
	    cpc_set_sample(x->cpc, x->set, x->buf) ||
	    cpc_buf_get(x->cpc, x->buf, 0, c) ||
	    read(x->fd, pb, sizeof(*pb)) != sizeof(*pb))
		return errno ? errno : EIO;
	return 0;
}

static void *exact_read_sampler(void *arg)
{
	struct exact_read *x = arg;
	uint64_t c0, c1, p0a, p0b, p1a, p1b;
	int round;

	if (pin_to_cpu(0)) {
		x->err = errno;
		return NULL;
	}
	for (round = 0; round < 3 && !x->err; round++) {
		x->err = exact_read_end(x, &c0, &p0a, &p0b);
		if (x->err)
			break;
		usleep(500000);
		x->err = exact_read_end(x, &c1, &p1a, &p1b);
		if (x->err)
			break;
		x->pmc[round] = (long long)(c1 - c0);
		x->perf_lo[round] = (long long)(p1a - p0b);
		x->perf_hi[round] = (long long)(p1b - p0a);
	}
	return NULL;
}

TEST_F(libcpc, cpu_binding_sampled_from_another_cpu_is_exact)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
	};
	struct exact_read x = { 0 };
	pthread_t t;
	int round;

	NEED_CPUS(3);
	x.cpc = open_cpc();
	ASSERT_NE(NULL, x.cpc);
	x.set = SET(x.cpc, USR_SYS, "sw_cpu_clock");
	ASSERT_NE(NULL, x.set);
	x.buf = cpc_buf_create(x.cpc, x.set);
	ASSERT_NE(NULL, x.buf);
	ASSERT_EQ(0, cpc_bind_cpu(x.cpc, 2, x.set, 0));
	x.fd = sys_perf_event_open(&attr, -1, 2, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, x.fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, pthread_create(&t, NULL, exact_read_sampler, &x));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, x.err) TH_LOG("%s", strerror(x.err));
	for (round = 0; round < 3; round++) {
		TH_LOG("round %d: pmcompat %lld ns, perf %lld to %lld ns", round, x.pmc[round],
		       x.perf_lo[round], x.perf_hi[round]);
		EXPECT_GT(x.perf_lo[round], 400000000LL);
		/*
		 * Within perf's bracket, give or take 1 ms (the two clocks are
		 * read by two cross-calls to CPU 2, each at its own moment).
		 */
		EXPECT_GE(x.pmc[round], x.perf_lo[round] - 1000000LL);
		EXPECT_LE(x.pmc[round], x.perf_hi[round] + 1000000LL);
	}
	close(x.fd);
	EXPECT_EQ(0, cpc_close(x.cpc));
}

/*
 * ioctl(2) for this program and for libcpc, which it overrides: the real
 * system call, after ioctl_hook() when the request is ioctl_hook_req.  A
 * test can so count events exactly while a libcpc call runs.
 */
static unsigned long ioctl_hook_req;
static void (*ioctl_hook)(void);

int ioctl(int fd, unsigned long req, ...)
{
	void (*hook)(void) = ioctl_hook;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (hook && req == ioctl_hook_req) {
		ioctl_hook = NULL;
		hook();
	}
	return syscall(SYS_ioctl, fd, req, arg);
}

/* The 1000th instruction, in user mode, on this thread's CPU. */
static void overflow_now(void)
{
	inject_ip(sched_getcpu(), EV_INSTR, 1, 0, 0x407000);
}

TEST_F(libcpc, overflow_during_cpc_unbind_is_signalled_while_bound)
{
	uint64_t v;
	cpc_t *cpc;
	int i;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(2));
	ASSERT_EQ(0, setup_emt());
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	emt.cpc = cpc;
	emt.set = cpc_set_create(cpc);
	ASSERT_NE(NULL, emt.set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, emt.set, "PAPI_tot_ins", PRESET,
					 USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	emt.buf = cpc_buf_create(cpc, emt.set);
	ASSERT_NE(NULL, emt.buf);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, emt.set, 0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 999));
	ASSERT_EQ(0, sample(cpc, emt.set, emt.buf, &v, 1));
	EXPECT_EQ(UINT64_MAX, v);

	/*
	 * The counter overflows while cpc_unbind() runs (counting the
	 * library's own instructions, as far as it can tell): the signal
	 * must reach the handler while the set can still be sampled, or
	 * not at all; never once cpc_unbind() has returned.
	 */
	ioctl_hook_req = PMC_CPC_RELE;
	ioctl_hook = overflow_now;
	ASSERT_EQ(0, cpc_unbind(cpc, emt.set));
	EXPECT_EQ(NULL, ioctl_hook);
	for (i = 0; i < emt.count && i < EMT_MAX; i++) {
		EXPECT_EQ(0, emt.sample_err[i])
			TH_LOG("LIBRARY BUG: SIGEMT %d came after cpc_unbind(); %s: %s",
			       i + 1, "its handler's cpc_set_sample()",
			       strerror(emt.sample_err[i]));
	}
	EXPECT_EQ(0, cpc_close(cpc));
}

/* ---- inheritance ------------------------------------------------------- */

/* A thread created after the bind: turns of injecting and sampling. */
struct heir {
	cpc_t *cpc;
	cpc_set_t *set;
	int cpu;
	unsigned long long ins, cyc;	/* injected in each turn */
	sem_t go, done;
	int err;			/* the first errno */
	uint64_t v[4][2];		/* sampled after each turn */
};

#define TURNS	4

static void *heir_fn(void *arg)
{
	struct heir *h = arg;
	cpc_buf_t *buf = cpc_buf_create(h->cpc, h->set);
	int r;

	h->err = !buf ? errno : pin_to_cpu(h->cpu) ? errno : 0;
	for (r = 0; r < TURNS; r++) {
		sem_wait(&h->go);
		if (!h->err)
			h->err = -inject_here(EV_INSTR, h->ins);
		if (!h->err)
			h->err = -inject_here(EV_CYCLES, h->cyc);
		if (!h->err)
			h->err = sample(h->cpc, h->set, buf, h->v[r], 2);
		sem_post(&h->done);
	}
	return NULL;
}

TEST_F(libcpc, inherited_threads_count_their_own_events)
{
	struct heir h[2];
	pthread_t t[2];
	cpc_buf_t *buf;
	cpc_set_t *set;
	uint64_t v[2];
	cpc_t *cpc;
	int i, r;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 10, USR, 0, NULL));
	ASSERT_EQ(1, cpc_set_add_request(cpc, set, "PAPI_tot_cyc", UINT64_MAX - 100000,
					 USR, 0, NULL));
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT));
	ASSERT_EQ(0, inject_here(EV_INSTR, 1000));
	ASSERT_EQ(0, inject_here(EV_CYCLES, 40));

	/* Thread 0 takes turns with this one on CPU 1; thread 1 is on CPU 2. */
	for (i = 0; i < 2; i++) {
		memset(&h[i], 0, sizeof(h[i]));
		h[i].cpc = cpc;
		h[i].set = set;
		h[i].cpu = 1 + i;
		h[i].ins = 100 + 11 * i;
		h[i].cyc = 7 + i;
		ASSERT_EQ(0, sem_init(&h[i].go, 0, 0));
		ASSERT_EQ(0, sem_init(&h[i].done, 0, 0));
		ASSERT_EQ(0, pthread_create(&t[i], NULL, heir_fn, &h[i]));
	}
	for (r = 0; r < TURNS; r++) {
		ASSERT_EQ(0, inject_here(EV_INSTR, 3));
		for (i = 0; i < 2; i++) {
			sem_post(&h[i].go);
			sem_wait(&h[i].done);
		}
		/* This thread's counts go on from its own presets. */
		ASSERT_EQ(0, sample(cpc, set, buf, v, 2));
		EXPECT_EQ(1010 + 3ULL * (r + 1), v[0]) TH_LOG("turn %d", r);
		EXPECT_EQ(UINT64_MAX - 100000 + 40, v[1]) TH_LOG("turn %d", r);
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		ASSERT_EQ(0, h[i].err) TH_LOG("thread %d: %s", i, strerror(h[i].err));
		for (r = 0; r < TURNS; r++) {
			/* Its own counts, from the presets. */
			EXPECT_EQ(10 + h[i].ins * (r + 1), h[i].v[r][0])
				TH_LOG("thread %d, turn %d", i, r);
			EXPECT_EQ(UINT64_MAX - 100000 + h[i].cyc * (r + 1), h[i].v[r][1])
				TH_LOG("thread %d, turn %d", i, r);
		}
	}
	EXPECT_EQ(0, cpc_close(cpc));
}

/*
 * A thread's copy of an inherited event that perf cannot schedule (the
 * CPU's counters are all taken by pinned CPU events) counts nothing: the
 * thread's sample is EIO, never its preset as if it had counted.
 */
struct unschedulable {
	cpc_t *cpc;
	cpc_set_t *set;
	int err, sample_err;
	uint64_t v;
};

static void *unschedulable_fn(void *arg)
{
	struct unschedulable *u = arg;
	cpc_buf_t *buf = cpc_buf_create(u->cpc, u->set);

	if (!buf || pin_to_cpu(2) || inject_here(EV_GP_ONLY, 5)) {
		u->err = errno ? errno : EIO;
		return NULL;
	}
	u->sample_err = cpc_err_of(cpc_set_sample(u->cpc, u->set, buf));
	if (!u->sample_err)
		cpc_buf_get(u->cpc, buf, 0, &u->v);
	return NULL;
}

TEST_F(libcpc, inherited_copy_that_perf_cannot_schedule_samples_eio)
{
	struct unschedulable u = { 0 };
	struct perf_event_attr attr;
	int n, i, fds[32];
	cpc_buf_t *buf;
	uint64_t v;
	pthread_t t;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	n = fakepmu_gp_counters();
	ASSERT_LT(0, n);
	ASSERT_GE(32, n);
	ASSERT_EQ(0, pin_to_cpu(1));
	u.cpc = open_cpc();
	ASSERT_NE(NULL, u.cpc);
	u.set = cpc_set_create(u.cpc);
	ASSERT_NE(NULL, u.set);
	ASSERT_EQ(0, cpc_set_add_request(u.cpc, u.set, "0xc4", 0, USR, 0, NULL));
	buf = cpc_buf_create(u.cpc, u.set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(u.cpc, u.set, CPC_BIND_LWP_INHERIT));

	/* Every general-purpose counter of CPU 2 pinned by a CPU event. */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_GP_ONLY;
	attr.pinned = 1;
	for (i = 0; i < n; i++) {
		fds[i] = sys_perf_event_open(&attr, -1, 2, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fds[i]) TH_LOG("pinned CPU event %d: %s", i, strerror(errno));
	}
	ASSERT_EQ(0, pthread_create(&t, NULL, unschedulable_fn, &u));
	ASSERT_EQ(0, pthread_join(t, NULL));
	for (i = 0; i < n; i++)
		close(fds[i]);
	ASSERT_EQ(0, u.err) TH_LOG("%s", strerror(u.err));
	EXPECT_EQ(EIO, u.sample_err)
		TH_LOG("DRIVER BUG: a copy perf could not schedule sampled %llu", (unsigned long long)u.v);

	/* The binder's own events were never in the way: it samples. */
	ASSERT_EQ(0, inject_here(EV_GP_ONLY, 7));
	ASSERT_EQ(0, sample(u.cpc, u.set, buf, &v, 1));
	EXPECT_EQ(7ULL, v);
	EXPECT_EQ(0, cpc_close(u.cpc));
}

/*
 * perf neither limits nor freezes the copies threads inherit, so overflow
 * notification with inheritance is refused (ENOTSUP) and nothing is bound.
 */
TEST_F(libcpc, inherited_overflow_notification_is_enotsup)
{
	cpc_set_t *set;
	cpc_t *cpc;

	NEED_FAKEPMU();
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_cyc", UINT64_MAX - 1000,
					 USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	errno = 0;
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT));
	EXPECT_EQ(ENOTSUP, errno);
	errno = 0;
	EXPECT_EQ(-1, cpc_unbind(cpc, set));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(0, cpc_close(cpc));
}

/* A thread that samples set when told to; err is the errno (0: it could). */
struct sampler {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_set_t *own;			/* if not NULL, then binds this one */
	sem_t go;
	int err, own_err;
};

static void *sampler_fn(void *arg)
{
	struct sampler *s = arg;
	cpc_buf_t *buf = cpc_buf_create(s->cpc, s->set);

	sem_wait(&s->go);
	s->err = !buf ? -1 : cpc_err_of(cpc_set_sample(s->cpc, s->set, buf));
	if (s->own) {
		buf = cpc_buf_create(s->cpc, s->own);
		s->own_err = cpc_err_of(cpc_bind_curlwp(s->cpc, s->own, 0));
		if (!s->own_err)
			s->own_err = cpc_err_of(cpc_set_sample(s->cpc, s->own, buf));
	}
	return NULL;
}

static int sampler_start(struct sampler *s, pthread_t *t, cpc_t *cpc,
			 cpc_set_t *set, cpc_set_t *own)
{
	memset(s, 0, sizeof(*s));
	s->cpc = cpc;
	s->set = set;
	s->own = own;
	s->err = -1;
	s->own_err = -1;
	if (sem_init(&s->go, 0, 0))
		return -1;
	return pthread_create(t, NULL, sampler_fn, s);
}

static int sampler_finish(struct sampler *s, pthread_t t)
{
	sem_post(&s->go);
	return pthread_join(t, NULL);
}

TEST_F(libcpc, only_threads_created_after_an_inheriting_bind_have_counters)
{
	struct sampler before, after, plain;
	pthread_t tb, ta, tp;
	cpc_set_t *set, *own;
	cpc_t *cpc;

	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = SET(cpc, USR_SYS, "sw_task_clock", "sw_context_switches");
	own = SET(cpc, USR_SYS, "sw_task_clock");
	ASSERT_NE(NULL, set);
	ASSERT_NE(NULL, own);
	ASSERT_EQ(0, sampler_start(&before, &tb, cpc, set, NULL));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT));
	ASSERT_EQ(0, sampler_start(&after, &ta, cpc, set, NULL));
	ASSERT_EQ(0, sampler_finish(&before, tb));
	ASSERT_EQ(0, sampler_finish(&after, ta));
	EXPECT_EQ(EINVAL, before.err) TH_LOG("a thread that existed before the bind");
	EXPECT_EQ(0, after.err) TH_LOG("a thread created after the bind");

	/* Without CPC_BIND_LWP_INHERIT, new threads have no counters... */
	ASSERT_EQ(0, cpc_unbind(cpc, set));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	ASSERT_EQ(0, sampler_start(&plain, &tp, cpc, set, own));
	ASSERT_EQ(0, sampler_finish(&plain, tp));
	EXPECT_EQ(EINVAL, plain.err);
	/* ...but may bind sets of their own. */
	EXPECT_EQ(0, plain.own_err);
	EXPECT_EQ(0, cpc_close(cpc));
}

/* A thread on CPU 2 that counts n instructions, then waits to be told to end. */
struct busy_heir {
	cpc_t *cpc;
	cpc_set_t *set;
	unsigned long long n;
	sem_t counted, go;
	int err;
	uint64_t v;		/* its own count, sampled at the end */
};

static void *busy_heir_fn(void *arg)
{
	struct busy_heir *h = arg;
	cpc_buf_t *buf = cpc_buf_create(h->cpc, h->set);

	h->err = !buf ? -1 : pin_to_cpu(2) ? errno : -inject_here(EV_INSTR, h->n);
	sem_post(&h->counted);
	sem_wait(&h->go);
	if (!h->err)
		h->err = sample(h->cpc, h->set, buf, &h->v, 1);
	return NULL;
}

TEST_F(libcpc, restart_of_an_inherited_set_starts_the_binder_at_its_presets)
{
	struct busy_heir h;
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint64_t v[2];
	pthread_t t;
	cpc_t *cpc;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = SET(cpc, USR, "PAPI_tot_ins", "PAPI_tot_cyc");
	ASSERT_NE(NULL, set);
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT));
	ASSERT_EQ(0, inject_here(EV_INSTR, 10));
	memset(&h, 0, sizeof(h));
	h.cpc = cpc;
	h.set = set;
	h.n = 50;
	ASSERT_EQ(0, sem_init(&h.counted, 0, 0));
	ASSERT_EQ(0, sem_init(&h.go, 0, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, busy_heir_fn, &h));
	sem_wait(&h.counted);
	ASSERT_EQ(0, sample(cpc, set, buf, v, 2));
	EXPECT_EQ(10ULL, v[0]);

	/* The binder restarts from its presets, whatever its heirs counted. */
	ASSERT_EQ(0, cpc_request_preset(cpc, 0, 5));
	ASSERT_EQ(0, cpc_set_restart(cpc, set));
	ASSERT_EQ(0, sample(cpc, set, buf, v, 2));
	EXPECT_EQ(5ULL, v[0])
		TH_LOG("DRIVER BUG: restarted at 5, reads %lld (the new thread counted %llu)",
		       (long long)v[0], h.n);
	EXPECT_EQ(0ULL, v[1]);
	ASSERT_EQ(0, inject_here(EV_INSTR, 1));
	ASSERT_EQ(0, sample(cpc, set, buf, v, 2));
	EXPECT_EQ(6ULL, v[0]);
	sem_post(&h.go);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, h.err);
	EXPECT_EQ(0, cpc_close(cpc));
}

static void *return_at_once(void *arg)
{
	return arg;
}

TEST_F(libcpc, disable_stops_the_binder_of_an_inherited_set)
{
	uint64_t v, v0;
	cpc_set_t *set;
	cpc_buf_t *buf;
	pthread_t t;
	cpc_t *cpc;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = SET(cpc, USR, "PAPI_tot_ins");
	ASSERT_NE(NULL, set);
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_disable(cpc)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_enable(cpc)));

	/* Without inheritance. */
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	ASSERT_EQ(0, cpc_disable(cpc));
	ASSERT_EQ(0, inject_here(EV_INSTR, 100));
	ASSERT_EQ(0, cpc_enable(cpc));
	ASSERT_EQ(0, inject_here(EV_INSTR, 3));
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(3ULL, v);
	ASSERT_EQ(0, cpc_unbind(cpc, set));

	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT));
	ASSERT_EQ(0, inject_here(EV_INSTR, 10));
	/*
	 * A thread that runs on this CPU while this one waits for it, and
	 * ends: perf may swap the two threads' counter contexts when one
	 * switches to the other, so that this thread goes on counting in a
	 * copy of each event, and the thread that ended took the originals.
	 */
	ASSERT_EQ(0, pthread_create(&t, NULL, return_at_once, NULL));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(10ULL, v);

	ASSERT_EQ(0, cpc_disable(cpc));
	ASSERT_EQ(0, inject_here(EV_INSTR, 100));
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(10ULL, v) TH_LOG("DRIVER BUG: disabled, yet counted %lld", (long long)v - 10);
	ASSERT_EQ(0, cpc_enable(cpc));
	ASSERT_EQ(0, sample(cpc, set, buf, &v0, 1));
	ASSERT_EQ(0, inject_here(EV_INSTR, 1));
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(v0 + 1, v);
	EXPECT_EQ(0, cpc_close(cpc));
}

/* ---- process contexts ---------------------------------------------------- */

static int pctx_errors;

static void pctx_quiet(const char *fn, const char *fmt, va_list ap)
{
	pctx_errors++;
}

/* A child process pinned to a CPU that runs one-letter commands. */
struct target {
	pid_t pid;
	int cmd;		/* commands to it */
	int ack;		/* 'K' (done) or 'E' from it */
};

static void target_loop(int cpu, int cmd, int ack)
{
	unsigned long x = 0;
	char c;
	long i;

	if (pin_to_cpu(cpu))
		_exit(2);
	while (read(cmd, &c, 1) == 1) {
		int err = 0;

		switch (c) {
		case 'i':	/* 777 instructions in user mode */
			err = inject(cpu, EV_INSTR, 777);
			break;
		case 'k':	/* 5 in kernel mode */
			err = inject_ip(cpu, EV_INSTR, 5, 1, KERNEL_IP);
			break;
		case 'c':	/* 55 cycles */
			err = inject(cpu, EV_CYCLES, 55);
			break;
		case 'b':	/* burn some CPU time */
			for (i = 0; i < 2000000; i++) {
				x += i;
				__asm__ __volatile__("" : "+r" (x));
			}
			break;
		}
		c = err ? 'E' : 'K';
		if (write(ack, &c, 1) != 1)
			_exit(3);
	}
	_exit(0);
}

static int target_start(struct target *t, int cpu)
{
	int cmd[2], ack[2];

	if (pipe(cmd) || pipe(ack))
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		target_loop(cpu, cmd[0], ack[1]);
	}
	close(cmd[0]);
	close(ack[1]);
	t->cmd = cmd[1];
	t->ack = ack[0];
	return 0;
}

/* Have the target run command c: 0 when it did. */
static int target_do(struct target *t, char c)
{
	char a = 0;

	if (write(t->cmd, &c, 1) != 1 || read(t->ack, &a, 1) != 1)
		return -1;
	return a == 'K' ? 0 : -1;
}

static void target_end(struct target *t)
{
	close(t->cmd);
	close(t->ack);
	kill(t->pid, SIGKILL);
	waitpid(t->pid, NULL, 0);
}

TEST_F(libcpc, pctx_binds_the_threads_of_a_child_process)
{
	cpc_set_t *s1, *s2, *s3, *s4;
	char *const argv[] = { "true", NULL };
	cpc_buf_t *b1, *b2, *b4;
	struct target t;
	pctx_t *pctx;
	uint64_t v[2], clock0;
	cpc_t *cpc;
	int status, err;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, target_start(&t, 2));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	pctx = pctx_capture(t.pid, NULL, 0, pctx_quiet);
	ASSERT_NE(NULL, pctx) TH_LOG("pctx_capture: %s", strerror(errno));
	s1 = SET(cpc, USR, "PAPI_tot_ins", "sw_task_clock");
	s2 = SET(cpc, USR, "PAPI_tot_cyc");
	s3 = SET(cpc, USR, "sw_task_clock");
	s4 = SET(cpc, USR, "PAPI_tot_ins");
	ASSERT_NE(NULL, s1);
	ASSERT_NE(NULL, s2);
	ASSERT_NE(NULL, s3);
	ASSERT_NE(NULL, s4);
	b1 = cpc_buf_create(cpc, s1);
	b2 = cpc_buf_create(cpc, s2);
	b4 = cpc_buf_create(cpc, s4);
	ASSERT_NE(NULL, b1);
	ASSERT_NE(NULL, b2);
	ASSERT_NE(NULL, b4);

	/* LWP 1 is the main thread, as on Solaris. */
	ASSERT_EQ(0, cpc_bind_pctx(cpc, pctx, 1, s1, 0));
	ASSERT_EQ(0, sample(cpc, s1, b1, v, 2));
	EXPECT_EQ(0ULL, v[0]);
	ASSERT_EQ(0, target_do(&t, 'i'));
	ASSERT_EQ(0, target_do(&t, 'k'));	/* not counted: user mode only */
	ASSERT_EQ(0, sample(cpc, s1, b1, v, 2));
	EXPECT_EQ(777ULL, v[0]);
	clock0 = v[1];
	/* Another process's events on that CPU are not the child's. */
	ASSERT_EQ(0, inject_from_thread(2, EV_INSTR, 1000, 0));
	ASSERT_EQ(0, target_do(&t, 'b'));
	ASSERT_EQ(0, sample(cpc, s1, b1, v, 2));
	EXPECT_EQ(777ULL, v[0]);
	EXPECT_LT(clock0, v[1]) TH_LOG("the child's CPU time was not counted");

	/* Its thread id names the main thread as well. */
	ASSERT_EQ(0, cpc_bind_pctx(cpc, pctx, t.pid, s2, 0));
	ASSERT_EQ(0, target_do(&t, 'c'));
	ASSERT_EQ(0, sample(cpc, s2, b2, v, 1));
	EXPECT_EQ(55ULL, v[0]);
	/*
	 * That second set for the same thread either counts beside the first,
	 * or replaced it (one set per LWP, as cpc_bind_curlwp() does) and then
	 * the first is no longer bound: it takes requests again.
	 */
	err = sample(cpc, s1, b1, v, 2);
	if (!err) {
		EXPECT_EQ(777ULL, v[0]);
	} else {
		EXPECT_EQ(EINVAL, err);
		EXPECT_EQ(2, cpc_set_add_request(cpc, s1, "sw_task_clock", 0, USR, 0, NULL))
			TH_LOG("LIBRARY BUG: %s (sampling it: %s), %s (adding a request: %s)",
			       "a second set bound to the LWP dropped the first in the kernel",
			       strerror(err), "but the library keeps it bound", strerror(errno));
	}

	/* Flags, an LWP that is not in the process. */
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_pctx(cpc, pctx, 1, s3, 1)));
	EXPECT_EQ(ESRCH, cpc_err_of(cpc_bind_pctx(cpc, pctx, 999999, s3, 0)));
	EXPECT_EQ(ESRCH, cpc_err_of(cpc_bind_pctx(cpc, pctx, getpid(), s3, 0)));
	/* A bound set binds again, as on Solaris: it replaces that LWP's binding. */
	EXPECT_EQ(0, cpc_err_of(cpc_bind_pctx(cpc, pctx, 1, s2, 0)));
	EXPECT_EQ(0, cpc_errlog.calls);

	ASSERT_EQ(0, cpc_unbind(cpc, s2));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_sample(cpc, s2, b2)));
	cpc_unbind(cpc, s1);

	/* Releasing the context unbinds what was bound through it. */
	ASSERT_EQ(0, cpc_bind_pctx(cpc, pctx, 1, s4, 0));
	ASSERT_EQ(0, target_do(&t, 'i'));
	ASSERT_EQ(0, sample(cpc, s4, b4, v, 1));
	EXPECT_EQ(777ULL, v[0]);
	pctx_release(pctx);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_sample(cpc, s4, b4)));

	/*
	 * cpc_terminate() only makes pctx_run() return, as on Solaris: the
	 * captured process runs on, released, and ends with its own status.
	 */
	pctx = pctx_capture(t.pid, NULL, 0, pctx_quiet);
	ASSERT_NE(NULL, pctx);
	ASSERT_EQ(0, cpc_bind_pctx(cpc, pctx, 1, s3, 0));
	cpc_terminate(cpc);
	pctx_release(pctx);
	EXPECT_EQ(0, target_do(&t, 'i')) TH_LOG("the captured process did not run on");
	EXPECT_EQ(0, cpc_close(cpc));
	close(t.cmd);		/* it exits 0 at the end of its commands */
	close(t.ack);
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("status %#x", status);

	pctx_errors = 0;
	EXPECT_EQ(ESRCH, errp(pctx_capture(t.pid, NULL, 0, pctx_quiet)));
	/* pctx_create() runs programs (cputrack_test): one that does not exist fails. */
	EXPECT_EQ(ENOENT, errp(pctx_create("/nonexistent/true", argv, NULL, 0, pctx_quiet)));
	EXPECT_EQ(2, pctx_errors);
}

/* A child that becomes uid (unless 0), dumpable if asked, and sleeps. */
static pid_t start_sleeper(uid_t uid, bool dumpable)
{
	int p[2];
	char c = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (uid && become(uid))
			_exit(2);
		if (dumpable && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(3);
		if (write(p[1], "r", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

struct sleepers {
	pid_t root;		/* a root process */
	pid_t nobody;		/* a process of another user */
	pid_t mine;		/* a dumpable process of the caller's user */
	pid_t mine_nd;		/* one that is not dumpable (uid changed) */
};

/* Capture the sleepers as root, then, as OTHER_UID, bind to each. */
static void bind_as_other_user(struct child_res *r, void *arg)
{
	struct sleepers *sl = arg;
	pctx_t *p_root, *p_nobody, *p_mine, *p_mine_nd;
	cpc_set_t *s[4];
	cpc_t *cpc;
	int i;

	p_root = pctx_capture(sl->root, NULL, 0, pctx_quiet);
	p_nobody = pctx_capture(sl->nobody, NULL, 0, pctx_quiet);
	p_mine = pctx_capture(sl->mine, NULL, 0, pctx_quiet);
	p_mine_nd = pctx_capture(sl->mine_nd, NULL, 0, pctx_quiet);
	cpc = open_cpc();
	r->err[0] = !p_root || !p_nobody || !p_mine || !p_mine_nd || !cpc;
	for (i = 0; i < 4 && !r->err[0]; i++) {
		s[i] = SET(cpc, USR, "sw_task_clock");
		if (!s[i])
			r->err[0] = 2;
	}
	if (r->err[0])
		return;
	r->err[1] = -become(OTHER_UID);
	r->err[2] = cpc_err_of(cpc_bind_pctx(cpc, p_root, 1, s[0], 0));
	r->err[3] = cpc_err_of(cpc_bind_pctx(cpc, p_nobody, 1, s[1], 0));
	r->err[4] = cpc_err_of(cpc_bind_pctx(cpc, p_mine, 1, s[2], 0));
	r->err[9] = cpc_err_of(cpc_bind_pctx(cpc, p_mine_nd, 1, s[3], 0));
	r->err[5] = errp(pctx_capture(sl->root, NULL, 0, pctx_quiet));
	r->err[6] = errp(pctx_capture(sl->mine, NULL, 0, pctx_quiet));
	r->err[7] = geteuid();
	r->err[8] = cpc_errlog.calls;
	cpc_close(cpc);
}

static bool is_access_error(int err)
{
	return err == EACCES || err == EPERM;
}

TEST_F(libcpc, pctx_bind_needs_ptrace_access_to_the_process)
{
	struct child_res *r = child_res_new();
	struct sleepers sl;
	int status;

	ASSERT_NE(NULL, r);
	/* Users may count threads; what decides is the access to the process. */
	ASSERT_EQ(0, set_paranoid(self, 2));
	sl.root = start_sleeper(0, false);
	sl.nobody = start_sleeper(NOBODY, false);
	sl.mine = start_sleeper(OTHER_UID, true);
	sl.mine_nd = start_sleeper(OTHER_UID, false);
	status = sl.root > 0 && sl.nobody > 0 && sl.mine > 0 && sl.mine_nd > 0 ?
		 run_child(bind_as_other_user, r, &sl) : -2;
	kill(sl.root, SIGKILL);
	kill(sl.nobody, SIGKILL);
	kill(sl.mine, SIGKILL);
	kill(sl.mine_nd, SIGKILL);
	waitpid(sl.root, NULL, 0);
	waitpid(sl.nobody, NULL, 0);
	waitpid(sl.mine, NULL, 0);
	waitpid(sl.mine_nd, NULL, 0);
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, r->err[0]) TH_LOG("capturing as root, or making the sets");
	ASSERT_EQ(0, r->err[1]) TH_LOG("becoming uid %d", OTHER_UID);
	EXPECT_EQ(OTHER_UID, r->err[7]);
	EXPECT_TRUE(is_access_error(r->err[2]))
		TH_LOG("root's process: %s", strerror(r->err[2]));
	EXPECT_TRUE(is_access_error(r->err[3]))
		TH_LOG("another user's process: %s", strerror(r->err[3]));
	EXPECT_EQ(0, r->err[4]) TH_LOG("own process: %s", strerror(r->err[4]));
	/*
	 * The same user's process, not dumpable: its uid change made it so
	 * (ptrace's dumpability rule; the mm keeps it up to 6.x, the task's
	 * exec state on 7.x).
	 */
	EXPECT_TRUE(is_access_error(r->err[9]))
		TH_LOG("own process, not dumpable: %s", strerror(r->err[9]));
	EXPECT_TRUE(is_access_error(r->err[5]))
		TH_LOG("capturing root's process: %s", strerror(r->err[5]));
	EXPECT_EQ(0, r->err[6]) TH_LOG("capturing own process: %s", strerror(r->err[6]));
	EXPECT_EQ(0, r->err[8]);
	munmap(r, sizeof(*r));
}

/* ---- CPU bindings --------------------------------------------------------- */

static void bind_cpu2_elsewhere(struct child_res *r, void *arg)
{
	cpc_t *cpc = open_cpc();
	cpc_set_t *set = cpc ? SET(cpc, USR, "PAPI_tot_ins") : NULL;

	r->err[0] = set ? cpc_err_of(cpc_bind_cpu(cpc, 2, set, 0)) : -1;
}

TEST_F(libcpc, cpu_binding_is_exclusive_and_invalidates_thread_sets)
{
	cpc_set_t *set_thr, *set_cpu2, *set_cpu3, *set_new;
	cpc_buf_t *buf_thr, *buf_cpu2, *buf_cpu3, *buf_new;
	struct child_res *r = child_res_new();
	cpc_t *cpc_thr, *cpc_a, *cpc_b;
	pctx_t *me;
	uint64_t v[2];

	NEED_FAKEPMU();
	NEED_CPUS(4);
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc_thr = open_cpc();
	cpc_a = open_cpc();
	cpc_b = open_cpc();
	ASSERT_NE(NULL, cpc_thr);
	ASSERT_NE(NULL, cpc_a);
	ASSERT_NE(NULL, cpc_b);
	set_thr = SET(cpc_thr, USR, "PAPI_tot_ins");
	set_cpu2 = SET(cpc_a, USR_SYS, "PAPI_tot_ins", "PAPI_tot_cyc");
	set_cpu3 = SET(cpc_b, USR, "PAPI_tot_ins");
	set_new = SET(cpc_b, USR, "PAPI_tot_ins");
	ASSERT_NE(NULL, set_thr);
	ASSERT_NE(NULL, set_cpu2);
	ASSERT_NE(NULL, set_cpu3);
	ASSERT_NE(NULL, set_new);
	buf_thr = cpc_buf_create(cpc_thr, set_thr);
	buf_cpu2 = cpc_buf_create(cpc_a, set_cpu2);
	buf_cpu3 = cpc_buf_create(cpc_b, set_cpu3);
	buf_new = cpc_buf_create(cpc_b, set_new);
	me = pctx_capture(getpid(), NULL, 0, pctx_quiet);
	ASSERT_NE(NULL, me);

	/* A thread set, bound before any CPU binding. */
	ASSERT_EQ(0, cpc_bind_curlwp(cpc_thr, set_thr, 0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 10));
	ASSERT_EQ(0, sample(cpc_thr, set_thr, buf_thr, v, 1));
	EXPECT_EQ(10ULL, v[0]);

	/* Binding CPU 2 pins this thread there. */
	ASSERT_EQ(0, cpc_bind_cpu(cpc_a, 2, set_cpu2, 0));
	EXPECT_EQ(1ULL << 2, affinity_mask());
	EXPECT_EQ(2, sched_getcpu());

	/* The thread set is invalid now, and new ones are refused. */
	EXPECT_EQ(EAGAIN, cpc_err_of(cpc_set_sample(cpc_thr, set_thr, buf_thr)));
	EXPECT_EQ(EAGAIN, cpc_err_of(cpc_bind_curlwp(cpc_b, set_new, 0)));
	EXPECT_EQ(EAGAIN, cpc_err_of(cpc_bind_curlwp(cpc_thr, set_thr, 0)));
	EXPECT_EQ(EAGAIN, cpc_err_of(cpc_bind_pctx(cpc_b, me, 1, set_new, 0)));
	/* One binding per CPU: another handle, another process. */
	EXPECT_EQ(EAGAIN, cpc_err_of(cpc_bind_cpu(cpc_b, 2, set_cpu3, 0)));
	EXPECT_EQ(1ULL << 2, affinity_mask());
	ASSERT_EQ(0, run_child(bind_cpu2_elsewhere, r, NULL));
	EXPECT_EQ(EAGAIN, r->err[0]);
	EXPECT_EQ(0, cpc_errlog.calls);

	/* Everything on CPU 2 counts: this thread, another one, both modes. */
	ASSERT_EQ(0, inject_here(EV_INSTR, 500));
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 20, 1, KERNEL_IP));
	ASSERT_EQ(0, inject_from_thread(2, EV_INSTR, 250, 0));
	ASSERT_EQ(0, inject_from_thread(2, EV_CYCLES, 30, 0));
	ASSERT_EQ(0, inject_from_thread(1, EV_INSTR, 1000, 0));
	ASSERT_EQ(0, sample(cpc_a, set_cpu2, buf_cpu2, v, 2));
	EXPECT_EQ(770ULL, v[0]);
	EXPECT_EQ(30ULL, v[1]);

	/* Another CPU is free for another handle, with counts of its own. */
	ASSERT_EQ(0, cpc_bind_cpu(cpc_b, 3, set_cpu3, 0));
	EXPECT_EQ(1ULL << 3, affinity_mask());
	ASSERT_EQ(0, inject_here(EV_INSTR, 33));
	ASSERT_EQ(0, sample(cpc_b, set_cpu3, buf_cpu3, v, 1));
	EXPECT_EQ(33ULL, v[0]);
	ASSERT_EQ(0, sample(cpc_a, set_cpu2, buf_cpu2, v, 2));
	EXPECT_EQ(770ULL, v[0]);

	/* Unbinding gives back the affinity each bind found. */
	ASSERT_EQ(0, cpc_unbind(cpc_b, set_cpu3));
	EXPECT_EQ(1ULL << 2, affinity_mask());
	ASSERT_EQ(0, cpc_unbind(cpc_a, set_cpu2));
	EXPECT_EQ(1ULL << 1, affinity_mask());

	/* No CPU binding is left: thread sets bind again; the old one stays invalid until it is. */
	EXPECT_EQ(EAGAIN, cpc_err_of(cpc_set_sample(cpc_thr, set_thr, buf_thr)));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc_b, set_new, 0));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc_thr, set_thr, 0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 9));
	ASSERT_EQ(0, sample(cpc_thr, set_thr, buf_thr, v, 1));
	EXPECT_EQ(9ULL, v[0]);
	ASSERT_EQ(0, sample(cpc_b, set_new, buf_new, v, 1));
	EXPECT_EQ(9ULL, v[0]);
	/* And CPU 2 can be bound again. */
	EXPECT_EQ(0, cpc_bind_cpu(cpc_a, 2, set_cpu2, 0));
	EXPECT_EQ(EAGAIN, cpc_err_of(cpc_set_sample(cpc_thr, set_thr, buf_thr)));
	pctx_release(me);
	EXPECT_EQ(0, cpc_close(cpc_thr));
	EXPECT_EQ(0, cpc_close(cpc_a));
	EXPECT_EQ(0, cpc_close(cpc_b));
	EXPECT_EQ(0, cpc_errlog.calls);
	munmap(r, sizeof(*r));
}

/*
 * A CPU bind that fails (here: perf cannot make its event) invalidates no
 * thread binding: the CPU binding rule applies to bindings made, not tried.
 * It used to bump the invalidation at the CPU's claim, before the events
 * were made, and every thread binding of the system then sampled EAGAIN.
 */
TEST_F(libcpc, failed_cpu_bind_leaves_thread_bindings_valid)
{
	cpc_set_t *set_thr, *set_cpu;
	cpc_t *cpc_thr, *cpc_a;
	cpc_buf_t *buf_thr;
	uint64_t v;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc_thr = open_cpc();
	cpc_a = open_cpc();
	ASSERT_NE(NULL, cpc_thr);
	ASSERT_NE(NULL, cpc_a);
	set_thr = SET(cpc_thr, USR, "PAPI_tot_ins");
	set_cpu = SET(cpc_a, USR, "PAPI_tot_ins");
	ASSERT_NE(NULL, set_thr);
	ASSERT_NE(NULL, set_cpu);
	buf_thr = cpc_buf_create(cpc_thr, set_thr);
	ASSERT_NE(NULL, buf_thr);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc_thr, set_thr, 0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 10));
	ASSERT_EQ(0, sample(cpc_thr, set_thr, buf_thr, &v, 1));
	EXPECT_EQ(10ULL, v);

	/* The next event of the test PMU cannot be made: the CPU bind fails. */
	ASSERT_EQ(0, write_file("/sys/kernel/debug/fakepmu/fail_inits", "1\n"));
	EXPECT_EQ(-1, cpc_bind_cpu(cpc_a, 2, set_cpu, 0));
	EXPECT_EQ(1ULL << 1, affinity_mask());
	ASSERT_EQ(0, write_file("/sys/kernel/debug/fakepmu/fail_inits", "0\n"));

	/* The thread binding still counts and samples; new ones bind. */
	ASSERT_EQ(0, inject_here(EV_INSTR, 5));
	EXPECT_EQ(0, cpc_err_of(cpc_set_sample(cpc_thr, set_thr, buf_thr)))
		TH_LOG("DRIVER BUG: a CPU bind that failed invalidated the thread binding");
	ASSERT_EQ(0, sample(cpc_thr, set_thr, buf_thr, &v, 1));
	EXPECT_EQ(15ULL, v);
	EXPECT_EQ(0, cpc_bind_curlwp(cpc_a, set_cpu, 0));

	/* A CPU bind that succeeds still invalidates it, as on Solaris. */
	EXPECT_EQ(0, cpc_unbind(cpc_a, set_cpu));
	ASSERT_EQ(0, cpc_bind_cpu(cpc_a, 2, set_cpu, 0));
	EXPECT_EQ(EAGAIN, cpc_err_of(cpc_set_sample(cpc_thr, set_thr, buf_thr)));
	EXPECT_EQ(0, cpc_close(cpc_thr));
	EXPECT_EQ(0, cpc_close(cpc_a));
}

TEST_F(libcpc, cpu_binding_of_an_offline_cpu_is_enosys)
{
	cpc_set_t *hw, *sw;
	cpc_t *cpc;
	int err;

	NEED_FAKEPMU();
	NEED_CPUS(4);
	if (cpu_online_state(HOTPLUG_CPU) < 0)
		SKIP(return, "CPU %d cannot be taken offline", HOTPLUG_CPU);
	ASSERT_EQ(0, pin_to_cpu(0));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	hw = SET(cpc, USR, "PAPI_tot_ins");
	sw = SET(cpc, USR, "sw_cpu_clock");
	ASSERT_NE(NULL, hw);
	ASSERT_NE(NULL, sw);
	self->offlined = HOTPLUG_CPU;
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 0));

	err = cpc_err_of(cpc_bind_cpu(cpc, HOTPLUG_CPU, hw, 0));
	EXPECT_EQ(ENOSYS, err)
		TH_LOG("LIBRARY BUG: binding offline CPU %d: %s (subcode %d), want ENOSYS",
		       HOTPLUG_CPU, strerror(err), cpc_errlog.subcode);
	cpc_errlog_reset();
	err = cpc_err_of(cpc_bind_cpu(cpc, HOTPLUG_CPU, sw, 0));
	EXPECT_EQ(ENOSYS, err)
		TH_LOG("LIBRARY BUG: software set on offline CPU %d: %s, want ENOSYS",
		       HOTPLUG_CPU, strerror(err));
	EXPECT_EQ(1ULL << 0, affinity_mask());

	/* Online again, it can be bound. */
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	EXPECT_EQ(0, cpc_bind_cpu(cpc, HOTPLUG_CPU, hw, 0));
	EXPECT_EQ(0, cpc_unbind(cpc, hw));
	EXPECT_EQ(1ULL << 0, affinity_mask());
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST_F(libcpc, cpu_binding_of_a_cpu_that_does_not_exist_is_einval)
{
	const int bad[] = { count_possible_cpus(), 4096, 1 << 20, -1 };
	unsigned long long mask;
	cpc_set_t *set;
	cpc_t *cpc;
	unsigned int i;

	ASSERT_LT(0, bad[0]);
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = SET(cpc, USR, "sw_cpu_clock");
	ASSERT_NE(NULL, set);
	mask = affinity_mask();
	for (i = 0; i < NELEM(bad); i++) {
		cpc_errlog_reset();
		EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_cpu(cpc, bad[i], set, 0)))
			TH_LOG("CPU %d", bad[i]);
		EXPECT_EQ(1, cpc_errlog.calls);
		EXPECT_EQ(CPC_PBIND_FAILED, cpc_errlog.subcode) TH_LOG("CPU %d", bad[i]);
		EXPECT_STREQ("cpc_bind_cpu", cpc_errlog.fn);
		EXPECT_EQ(mask, affinity_mask());
	}
	/* flags must be 0 */
	cpc_errlog_reset();
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_cpu(cpc, 0, set, 1)));
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(mask, affinity_mask());
	/* The set is still unbound. */
	EXPECT_EQ(1, cpc_set_add_request(cpc, set, "sw_task_clock", 0, USR, 0, NULL));
	EXPECT_EQ(0, cpc_close(cpc));
}

/* ---- cpc_bind_curlwp(3CPC) ERRORS ------------------------------------------ */

static void collect_attr(void *arg, const char *attr)
{
	char *list = arg;

	if (strlen(list) + strlen(attr) + 2 < 256) {
		strcat(list, attr);
		strcat(list, ",");
	}
}

/* 1 if cpc_walk_attrs() lists attr. */
static int attr_listed(cpc_t *cpc, const char *attr)
{
	char list[256] = ",", want[64];

	cpc_walk_attrs(cpc, list, collect_attr);
	snprintf(want, sizeof(want), ",%s,", attr);
	return !!strstr(list, want);
}

/* The handler was called once, by fn, with subcode and msg (then forget it). */
#define EXPECT_HANDLER(fn_, subcode_, msg_) do {			\
	EXPECT_EQ(1, cpc_errlog.calls);					\
	EXPECT_STREQ(fn_, cpc_errlog.fn);				\
	EXPECT_EQ(subcode_, cpc_errlog.subcode);			\
	EXPECT_STREQ(msg_, cpc_errlog.msg);				\
	cpc_errlog_reset();						\
} while (0)

TEST_F(libcpc, binding_an_empty_set_is_einval)
{
	cpc_set_t *set;
	cpc_buf_t *buf;
	pctx_t *me;
	cpc_t *cpc;

	ASSERT_EQ(0, pin_to_cpu(1));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	me = pctx_capture(getpid(), NULL, 0, pctx_quiet);
	ASSERT_NE(NULL, me);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, set, 0)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_cpu(cpc, 2, set, 0)));
	EXPECT_EQ(1ULL << 1, affinity_mask());
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_pctx(cpc, me, 1, set, 0)));
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_sample(cpc, set, buf)));
	EXPECT_EQ(0, cpc_errlog.calls);
	/* With a request, it binds. */
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "sw_task_clock", 0, USR, 0, NULL));
	EXPECT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	pctx_release(me);
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST_F(libcpc, attribute_value_out_of_range_is_einval)
{
	static const struct {
		const char *event;
		const char *attr;
		uint64_t val;
		bool ok;
	} cases[] = {
		{ "0xc0", "umask", 0x100, false },
		{ "0xc0", "cmask", 0x100, false },
		{ "0xc0", "umask", UINT64_MAX, false },
		{ "0xc0", "umask", 0xff, true },
		{ "0xc0", "cmask", 0xff, true },
		{ "PAPI_tot_ins", "umask", 1, false },
		{ "PAPI_tot_cyc", "edge", 1, false },
		{ "sw_task_clock", "cmask", 1, false },
		{ "PAPI_tot_ins", "picnum", 0, true },
		{ "sw_task_clock", "picnum", 1, true },
	};
	cpc_attr_t attr;
	cpc_set_t *set;
	unsigned int i;
	cpc_t *cpc;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	if (!attr_listed(cpc, "umask") || !attr_listed(cpc, "cmask") ||
	    !attr_listed(cpc, "edge"))
		SKIP(return, "no umask, cmask and edge attributes on this processor");
	for (i = 0; i < NELEM(cases); i++) {
		attr.ca_name = (char *)cases[i].attr;
		attr.ca_val = cases[i].val;
		set = cpc_set_create(cpc);
		ASSERT_NE(NULL, set);
		/* Values are checked when binding, not when adding. */
		ASSERT_EQ(0, cpc_set_add_request(cpc, set, cases[i].event, 0, USR, 1, &attr))
			TH_LOG("%s with %s", cases[i].event, cases[i].attr);
		cpc_errlog_reset();
		if (cases[i].ok) {
			EXPECT_EQ(0, cpc_bind_curlwp(cpc, set, 0))
				TH_LOG("%s with %s=%#llx", cases[i].event, cases[i].attr,
				       (unsigned long long)cases[i].val);
			EXPECT_EQ(0, cpc_errlog.calls);
		} else {
			EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, set, 0)))
				TH_LOG("%s with %s=%#llx", cases[i].event, cases[i].attr,
				       (unsigned long long)cases[i].val);
			EXPECT_HANDLER("cpc_bind_curlwp", CPC_ATTRIBUTE_OUT_OF_RANGE,
				       "Attribute out of range\n");
		}
		EXPECT_EQ(0, cpc_set_destroy(cpc, set));
	}
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST_F(libcpc, more_requests_than_counters_is_einval)
{
	static const char *const sw[] = {
		"sw_task_clock", "sw_cpu_clock", "sw_page_faults",
		"sw_context_switches", "sw_cpu_migrations", "sw_minor_faults",
		"sw_major_faults", "sw_task_clock", "sw_cpu_clock",
	};
	unsigned int npic, n[2], i, j;
	cpc_set_t *set;
	cpc_t *cpc;

	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	npic = cpc_npic(cpc);
	ASSERT_LE(1U, npic);
	ASSERT_GE(8U, npic);
	/* npic + 1 requests, and more than the kernel takes (8). */
	n[0] = npic + 1;
	n[1] = 9;
	for (j = 0; j < 2; j++) {
		set = cpc_set_create(cpc);
		ASSERT_NE(NULL, set);
		for (i = 0; i < n[j]; i++) {
			ASSERT_EQ((int)i, cpc_set_add_request(cpc, set, sw[i], 0, USR, 0, NULL));
		}
		cpc_errlog_reset();
		EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, set, 0)))
			TH_LOG("%u requests", n[j]);
		EXPECT_HANDLER("cpc_bind_curlwp", CPC_RESOURCE_UNAVAIL,
			       "Hardware resource unavailable\n");
		EXPECT_EQ(0, cpc_set_destroy(cpc, set));
	}
	/* As many as there are counters: fine. */
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	for (i = 0; i < npic; i++) {
		ASSERT_EQ((int)i, cpc_set_add_request(cpc, set, sw[i], 0, USR, 0, NULL));
	}
	EXPECT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(0, cpc_close(cpc));
}


TEST_F(libcpc, requests_that_cannot_be_counted_together_are_einval)
{
	/* Events only general-purpose counters count (no fixed counter). */
	static const char *const hw[] = {
		"PAPI_br_ins", "PAPI_br_msp", "PAPI_l3_tca", "PAPI_l3_tcm",
		"PAPI_l1_dcm", "PAPI_br_ins", "PAPI_br_msp", "PAPI_l3_tca",
	};
	cpc_attr_t pic0 = { "picnum", 0 }, pic1 = { "picnum", 1 };
	cpc_set_t *set, *full, *one, *sw;
	cpc_t *cpc_a, *cpc_b;
	int i, n;

	NEED_FAKEPMU();
	n = fakepmu_gp_counters();
	ASSERT_LE(2, n);
	ASSERT_GE(8, n);
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc_a = open_cpc();
	cpc_b = open_cpc();
	ASSERT_NE(NULL, cpc_a);
	ASSERT_NE(NULL, cpc_b);

	/* Two requests for the same counter number. */
	set = cpc_set_create(cpc_a);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc_a, set, "PAPI_tot_ins", 0, USR, 1, &pic1));
	ASSERT_EQ(1, cpc_set_add_request(cpc_a, set, "PAPI_tot_cyc", 0, USR, 1, &pic1));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc_a, set, 0)));
	EXPECT_HANDLER("cpc_bind_curlwp", CPC_RESOURCE_UNAVAIL,
		       "Hardware resource unavailable\n");
	set = cpc_set_create(cpc_a);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc_a, set, "PAPI_tot_ins", 0, USR, 1, &pic1));
	ASSERT_EQ(1, cpc_set_add_request(cpc_a, set, "PAPI_tot_cyc", 0, USR, 1, &pic0));
	EXPECT_EQ(0, cpc_bind_curlwp(cpc_a, set, 0));
	EXPECT_EQ(0, cpc_unbind(cpc_a, set));

	/* Every counter of the PMU taken by one handle; another gets none. */
	full = cpc_set_create(cpc_a);
	ASSERT_NE(NULL, full);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(i, cpc_set_add_request(cpc_a, full, hw[i], 0, USR, 0, NULL));
	}
	ASSERT_EQ(0, cpc_bind_curlwp(cpc_a, full, 0));
	one = SET(cpc_b, USR, "PAPI_br_ins");
	sw = SET(cpc_b, USR, "sw_task_clock");
	ASSERT_NE(NULL, one);
	ASSERT_NE(NULL, sw);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc_b, one, 0)));
	EXPECT_HANDLER("cpc_bind_curlwp", CPC_RESOURCE_UNAVAIL,
		       "Hardware resource unavailable\n");
	/* The first handle's counters still count. */
	ASSERT_EQ(0, inject_here(EV_INSTR, 12));
	EXPECT_EQ(n, fakepmu_lines_on(1));
	/* A software event needs no counter. */
	EXPECT_EQ(0, cpc_bind_curlwp(cpc_b, sw, 0));
	EXPECT_EQ(0, cpc_unbind(cpc_b, sw));
	/* Once the first handle lets go, the counter is there. */
	EXPECT_EQ(0, cpc_unbind(cpc_a, full));
	EXPECT_EQ(0, cpc_bind_curlwp(cpc_b, one, 0));
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(0, cpc_close(cpc_a));
	EXPECT_EQ(0, cpc_close(cpc_b));
}

TEST_F(libcpc, sets_and_buffers_of_another_handle_are_einval)
{
	cpc_set_t *set1, *set2;
	cpc_buf_t *buf1, *buf2;
	unsigned long long mask;
	cpc_t *cpc1, *cpc2;
	pctx_t *me;

	cpc1 = open_cpc();
	cpc2 = open_cpc();
	ASSERT_NE(NULL, cpc1);
	ASSERT_NE(NULL, cpc2);
	set1 = SET(cpc1, USR, "sw_task_clock");
	set2 = SET(cpc2, USR, "sw_task_clock");
	ASSERT_NE(NULL, set1);
	ASSERT_NE(NULL, set2);
	buf1 = cpc_buf_create(cpc1, set1);
	buf2 = cpc_buf_create(cpc2, set2);
	ASSERT_NE(NULL, buf1);
	ASSERT_NE(NULL, buf2);
	me = pctx_capture(getpid(), NULL, 0, pctx_quiet);
	ASSERT_NE(NULL, me);
	mask = affinity_mask();

	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc2, set1, 0)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_cpu(cpc2, 0, set1, 0)));
	EXPECT_EQ(mask, affinity_mask());
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_pctx(cpc2, me, 1, set1, 0)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_add_request(cpc2, set1, "sw_task_clock",
							 0, USR, 0, NULL)));
	EXPECT_EQ(EINVAL, errp(cpc_buf_create(cpc2, set1)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc2, set1)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_restart(cpc2, set1)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_buf_destroy(cpc2, buf1)));

	/* Bound through its own handle, the other still cannot use it. */
	ASSERT_EQ(0, cpc_bind_curlwp(cpc1, set1, 0));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_sample(cpc2, set1, buf1)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_restart(cpc2, set1)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc2, set1)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_destroy(cpc2, set1)));
	EXPECT_EQ(0, cpc_set_sample(cpc1, set1, buf1));
	EXPECT_EQ(0, cpc_errlog.calls);
	pctx_release(me);
	EXPECT_EQ(0, cpc_close(cpc1));
	EXPECT_EQ(0, cpc_close(cpc2));
}

/* A thread that binds set, and unbinds it when told to. */
struct binder {
	cpc_t *cpc;
	cpc_set_t *set;
	sem_t bound, go;
	int bind_err, unbind_err;
};

static void *binder_fn(void *arg)
{
	struct binder *b = arg;

	b->bind_err = cpc_err_of(cpc_bind_curlwp(b->cpc, b->set, 0));
	sem_post(&b->bound);
	sem_wait(&b->go);
	b->unbind_err = cpc_err_of(cpc_unbind(b->cpc, b->set));
	return NULL;
}

TEST_F(libcpc, unbinding_a_set_that_is_not_bound_is_einval)
{
	struct binder b = { .bind_err = -1, .unbind_err = -1 };
	cpc_set_t *set;
	pthread_t t;
	cpc_t *cpc;

	NEED_CPUS(2);
	ASSERT_EQ(0, pin_to_cpu(0));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = SET(cpc, USR, "sw_task_clock");
	ASSERT_NE(NULL, set);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc, set)));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(0, cpc_unbind(cpc, set));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc, set)));
	ASSERT_EQ(0, cpc_bind_cpu(cpc, 1, set, 0));
	EXPECT_EQ(0, cpc_unbind(cpc, set));
	EXPECT_EQ(1ULL << 0, affinity_mask());
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc, set)));

	/* Bound by another thread: only that thread unbinds its binding. */
	b.cpc = cpc;
	b.set = set;
	ASSERT_EQ(0, sem_init(&b.bound, 0, 0));
	ASSERT_EQ(0, sem_init(&b.go, 0, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, binder_fn, &b));
	sem_wait(&b.bound);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc, set)));
	/* As on Solaris, this thread binds it too, and unbinds its own binding. */
	EXPECT_EQ(0, cpc_err_of(cpc_bind_curlwp(cpc, set, 0)));
	EXPECT_EQ(0, cpc_err_of(cpc_unbind(cpc, set)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc, set)));
	sem_post(&b.go);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, b.bind_err);
	EXPECT_EQ(0, b.unbind_err);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc, set)));
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(0, cpc_close(cpc));
}

static void *preset_without_binding(void *arg)
{
	cpc_t *cpc = arg;

	return (void *)(long)cpc_err_of(cpc_request_preset(cpc, 0, 5));
}

TEST_F(libcpc, preset_and_restart_need_a_bound_set)
{
	cpc_set_t *set, *other;
	cpc_buf_t *buf;
	uint64_t v[2];
	pthread_t t;
	void *ret;
	cpc_t *cpc;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = SET(cpc, USR, "PAPI_tot_ins", "PAPI_tot_cyc");
	ASSERT_NE(NULL, set);
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_request_preset(cpc, 0, 5)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_restart(cpc, set)));

	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_request_preset(cpc, 2, 5)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_request_preset(cpc, -1, 5)));
	/* A preset is used at the next restart, not before. */
	EXPECT_EQ(0, cpc_request_preset(cpc, 1, 1000));
	ASSERT_EQ(0, inject_here(EV_INSTR, 7));
	ASSERT_EQ(0, inject_here(EV_CYCLES, 5));
	ASSERT_EQ(0, sample(cpc, set, buf, v, 2));
	EXPECT_EQ(7ULL, v[0]);
	EXPECT_EQ(5ULL, v[1]);
	ASSERT_EQ(0, cpc_set_restart(cpc, set));
	ASSERT_EQ(0, sample(cpc, set, buf, v, 2));
	EXPECT_EQ(0ULL, v[0]);
	EXPECT_EQ(1000ULL, v[1]);
	ASSERT_EQ(0, inject_here(EV_INSTR, 3));
	ASSERT_EQ(0, inject_here(EV_CYCLES, 4));
	ASSERT_EQ(0, sample(cpc, set, buf, v, 2));
	EXPECT_EQ(3ULL, v[0]);
	EXPECT_EQ(1004ULL, v[1]);
	/* Every restart goes back to the presets. */
	ASSERT_EQ(0, cpc_set_restart(cpc, set));
	ASSERT_EQ(0, sample(cpc, set, buf, v, 2));
	EXPECT_EQ(0ULL, v[0]);
	EXPECT_EQ(1000ULL, v[1]);
	/* A thread without a bound set of its own. */
	ASSERT_EQ(0, pthread_create(&t, NULL, preset_without_binding, cpc));
	ASSERT_EQ(0, pthread_join(t, &ret));
	EXPECT_EQ(EINVAL, (long)ret);

	/* Binding the set again starts it over from the presets it was made with. */
	ASSERT_EQ(0, inject_here(EV_INSTR, 4));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	ASSERT_EQ(0, sample(cpc, set, buf, v, 2));
	EXPECT_EQ(0ULL, v[0]);
	EXPECT_EQ(0ULL, v[1]);
	/* Binding another set with the handle replaces this thread's binding. */
	other = SET(cpc, USR, "PAPI_br_ins");
	ASSERT_NE(NULL, other);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, other, 0));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_sample(cpc, set, buf)));
	EXPECT_EQ(2, cpc_set_add_request(cpc, set, "PAPI_br_msp", 0, USR, 0, NULL));
	ASSERT_EQ(0, cpc_unbind(cpc, other));

	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc, set)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_request_preset(cpc, 0, 5)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_restart(cpc, set)));
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST_F(libcpc, other_invalid_uses_are_einval)
{
	cpc_buf_t *small, *buf;
	cpc_set_t *set, *bad;
	cpc_t *cpc;

	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "sw_task_clock", 0, USR, 0, NULL));
	small = cpc_buf_create(cpc, set);
	ASSERT_EQ(1, cpc_set_add_request(cpc, set, "sw_page_faults", 0, USR, 0, NULL));
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, small);
	ASSERT_NE(NULL, buf);

	/* Sampling a set that is not bound. */
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_sample(cpc, set, buf)));
	/* Bind flags other than CPC_BIND_LWP_INHERIT (CPCv1's EMT_OVF too). */
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, set, CPC_BIND_EMT_OVF)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, set, 0x80)));
	EXPECT_EQ(0, cpc_errlog.calls);
	/* Request flags beyond KCPC_REQ_ALL_FLAGS. */
	bad = cpc_set_create(cpc);
	ASSERT_NE(NULL, bad);
	ASSERT_EQ(0, cpc_set_add_request(cpc, bad, "sw_task_clock", 0, USR | 0x10, 0, NULL));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, bad, 0)));
	EXPECT_HANDLER("cpc_bind_curlwp", CPC_REQ_INVALID_FLAGS, "Invalid flags in a request\n");

	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	/* A buffer made before the set's last request. */
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_sample(cpc, set, small)));
	EXPECT_EQ(0, cpc_set_sample(cpc, set, buf));
	/* Requests cannot be added to a bound set. */
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_add_request(cpc, set, "sw_task_clock",
							 0, USR, 0, NULL)));
	/* Buffer indices outside the buffer. */
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_buf_set(cpc, buf, 2, 1)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_buf_set(cpc, buf, -1, 1)));
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(EINVAL, errp(cpc_open(1)));
	EXPECT_EQ(EINVAL, errp(cpc_open(CPC_VER_CURRENT + 1)));
	EXPECT_EQ(-1, cpc_seterrhndlr(NULL, cpc_errlog_handler));
	EXPECT_EQ(0, cpc_close(cpc));
}

/*
 * ENOTSUP (CPC_OVF_NOTIFY_EMT without overflow interrupts) cannot happen
 * here: pmcompat reports both overflow capabilities and perf lets every
 * event it takes report overflows.  Checked: every kind of event binds
 * with CPC_OVF_NOTIFY_EMT.
 */
TEST_F(libcpc, overflow_notification_is_always_available)
{
	static const char *const events[] = {
		"PAPI_tot_ins", "0xc4", "PAPI_l1_dcm", "sw_task_clock",
		"sw_page_faults", "sw_context_switches",
	};
	cpc_set_t *set;
	unsigned int i;
	cpc_t *cpc;

	NEED_FAKEPMU();
	/* Far from overflowing, but sampling; should one overflow, no matter. */
	ASSERT_NE(SIG_ERR, signal(SIGEMT, SIG_IGN));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	EXPECT_EQ((unsigned int)(CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE),
		  cpc_caps(cpc));
	for (i = 0; i < NELEM(events); i++) {
		set = cpc_set_create(cpc);
		ASSERT_NE(NULL, set);
		ASSERT_EQ(0, cpc_set_add_request(cpc, set, events[i], UINT64_MAX - (1ULL << 40),
						 USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
		EXPECT_EQ(0, cpc_bind_curlwp(cpc, set, 0)) TH_LOG("%s: %s", events[i],
								  strerror(errno));
		EXPECT_EQ(0, cpc_set_destroy(cpc, set));
	}
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST_F(libcpc, hardware_events_without_a_pmu_are_enodev)
{
	cpc_set_t *hw, *sw, *cpu;
	cpc_t *cpc;

	NEED_FAKEPMU();
	if (module_refcnt("fakepmu") != 0)
		SKIP(return, "the test PMU is in use");
	ASSERT_EQ(0, pin_to_cpu(1));
	self->fakepmu_removed = true;
	ASSERT_EQ(0, kmod_remove("fakepmu"));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	hw = SET(cpc, USR, "PAPI_tot_ins");
	sw = SET(cpc, USR, "sw_task_clock");
	cpu = SET(cpc, USR, "0xc0");
	ASSERT_NE(NULL, hw);
	ASSERT_NE(NULL, sw);
	ASSERT_NE(NULL, cpu);
	EXPECT_EQ(ENODEV, cpc_err_of(cpc_bind_curlwp(cpc, hw, 0)));
	EXPECT_EQ(ENODEV, cpc_err_of(cpc_bind_cpu(cpc, 2, cpu, 0)));
	EXPECT_EQ(1ULL << 1, affinity_mask());
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(0, cpc_bind_curlwp(cpc, sw, 0));
	EXPECT_EQ(0, cpc_close(cpc));
	ASSERT_EQ(0, fakepmu_reload());
	self->fakepmu_removed = false;
}

/* 1 when the kernel exports perf_allow_kernel() to modules. */
static int perf_allow_kernel_exported(void)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " __ksymtab_perf_allow_kernel\n") != NULL;
	fclose(f);
	return found;
}

/*
 * As nobody, in the device group if arg: open, then bind a user-mode, a
 * user+system and a CPU set; see the errors.
 */
static void nobody_binds(struct child_res *r, void *arg)
{
	gid_t g = PMC_TEST_GID;
	cpc_set_t *user, *sys, *cpu;
	cpc_t *cpc;

	r->err[0] = -(setgroups(arg ? 1 : 0, &g) || setresgid(NOBODY, NOBODY, NOBODY) ||
		      setresuid(NOBODY, NOBODY, NOBODY) ? errno : 0);
	if (r->err[0])
		return;
	r->err[5] = 0;
	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc) {
		r->err[5] = errno;
		return;
	}
	user = SET(cpc, USR, "sw_task_clock");
	sys = SET(cpc, USR_SYS, "sw_task_clock");
	cpu = SET(cpc, USR, "sw_cpu_clock");
	if (!user || !sys || !cpu) {
		r->err[0] = -1;
		return;
	}
	r->val[0] = affinity_mask();
	r->err[1] = cpc_err_of(cpc_bind_curlwp(cpc, user, 0));
	r->err[2] = cpc_err_of(cpc_bind_curlwp(cpc, sys, 0));
	r->err[3] = cpc_err_of(cpc_bind_cpu(cpc, 1, cpu, 0));
	r->val[1] = affinity_mask();
	r->err[4] = cpc_errlog.calls;
	cpc_close(cpc);
}

/*
 * The node is the first gate (0660, group root without udev, the pmcompat
 * group with the rule); then own threads in user mode are free, kernel mode
 * needs CAP_PERFMON (or what perf_allow_kernel() allows, where the kernel
 * exports it), CPUs need CAP_PERFMON whatever the paranoid level.
 */
TEST_F(libcpc, unprivileged_binds_follow_the_group_and_capabilities)
{
	static const int levels[] = { 3, 2, 1, 0, -1 };
	struct child_res *r = child_res_new();
	int kexp = perf_allow_kernel_exported();
	unsigned int i;
	int sys;

	ASSERT_NE(NULL, r);
	TH_LOG("the kernel %s perf_allow_kernel()", kexp ? "exports" : "does not export");
	/* Outside the group: cpc_open() itself fails, at any level. */
	ASSERT_EQ(0, set_paranoid(self, -1));
	ASSERT_EQ(0, run_child(nobody_binds, r, NULL));
	ASSERT_EQ(0, r->err[0]) TH_LOG("setting up as nobody");
	EXPECT_EQ(EACCES, r->err[5]) TH_LOG("cpc_open outside the group: %s",
					    r->err[5] ? strerror(r->err[5]) : "opened");

	ASSERT_EQ(0, node_to_test_group(PMC_CPC_PATH, 0660, &self->node_saved));
	for (i = 0; i < NELEM(levels); i++) {
		sys = kexp && levels[i] <= 1 ? 0 : EACCES;
		memset(r, 0, sizeof(*r));
		ASSERT_EQ(0, set_paranoid(self, levels[i]));
		ASSERT_EQ(0, run_child(nobody_binds, r, (void *)1));
		ASSERT_EQ(0, r->err[0]) TH_LOG("setting up as nobody");
		ASSERT_EQ(0, r->err[5]) TH_LOG("cpc_open in the group: %s", strerror(r->err[5]));
		EXPECT_EQ(0, r->err[1])
			TH_LOG("paranoid %d, user mode: %s", levels[i], strerror(r->err[1]));
		EXPECT_EQ(sys, r->err[2])
			TH_LOG("paranoid %d, CPC_COUNT_SYSTEM: %s", levels[i],
			       strerror(r->err[2]));
		EXPECT_EQ(EACCES, r->err[3])
			TH_LOG("paranoid %d, cpc_bind_cpu: %s", levels[i],
			       strerror(r->err[3]));
		/* A refused CPU binding leaves the affinity as it was. */
		EXPECT_EQ(r->val[0], r->val[1]);
		EXPECT_EQ(0, r->err[4]);
	}
	munmap(r, sizeof(*r));
}

/* ---- the error handler ------------------------------------------------------- */

TEST_F(libcpc, error_handler_gets_the_function_subcode_and_message)
{
	cpc_attr_t attr;
	cpc_set_t *set;
	cpc_t *cpc;
	unsigned int i, npic;

	NEED_FAKEPMU();
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	npic = cpc_npic(cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);

	/* cpc_set_add_request() checks names at once; errno stays the call's. */
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_add_request(cpc, set, "no_such_event", 0,
							 USR, 0, NULL)));
	EXPECT_HANDLER("cpc_set_add_request", CPC_INVALID_EVENT, "Unknown event\n");
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_add_request(cpc, set, "", 0, USR, 0, NULL)));
	EXPECT_HANDLER("cpc_set_add_request", CPC_INVALID_EVENT, "Unknown event\n");
	attr.ca_name = "no_such_attribute";
	attr.ca_val = 1;
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
							 USR, 1, &attr)));
	EXPECT_HANDLER("cpc_set_add_request", CPC_INVALID_ATTRIBUTE, "Unknown attribute\n");
	attr.ca_name = "";
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
							 USR, 1, &attr)));
	EXPECT_HANDLER("cpc_set_add_request", CPC_INVALID_ATTRIBUTE, "Unknown attribute\n");
	attr.ca_name = "picnum";
	attr.ca_val = npic;
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
							 USR, 1, &attr)));
	EXPECT_HANDLER("cpc_set_add_request", CPC_INVALID_PICNUM, "Invalid counter number\n");
	/* Failed requests take no index. */
	EXPECT_EQ(0, cpc_set_add_request(cpc, set, "sw_task_clock", 0, USR, 0, NULL));

	/* Binding checks values, flags, sizes, and what perf accepts. */
	set = SET(cpc, USR, "0x1000");		/* beyond every vendor's codes */
	ASSERT_NE(NULL, set);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, set, 0)));
	EXPECT_HANDLER("cpc_bind_curlwp", CPC_INVALID_EVENT, "Unknown event\n");
	set = SET(cpc, USR, "PAPI_l1_ica");	/* the test PMU has no such event */
	ASSERT_NE(NULL, set);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, set, 0)));
	EXPECT_HANDLER("cpc_bind_curlwp", CPC_INVALID_EVENT, "Unknown event\n");
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	for (i = 0; i <= npic; i++) {
		ASSERT_EQ((int)i, cpc_set_add_request(cpc, set, "sw_cpu_clock", 0, USR, 0, NULL));
	}
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, set, 0)));
	EXPECT_HANDLER("cpc_bind_curlwp", CPC_RESOURCE_UNAVAIL,
		       "Hardware resource unavailable\n");
	set = SET(cpc, 0x20, "sw_cpu_clock");
	ASSERT_NE(NULL, set);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, set, 0)));
	EXPECT_HANDLER("cpc_bind_curlwp", CPC_REQ_INVALID_FLAGS, "Invalid flags in a request\n");
	set = SET(cpc, USR, "sw_cpu_clock");
	ASSERT_NE(NULL, set);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_cpu(cpc, -1, set, 0)));
	EXPECT_HANDLER("cpc_bind_cpu", CPC_PBIND_FAILED,
		       "Couldn't bind LWP to requested processor\n");

	/* Errors without a subcode do not call it. */
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_unbind(cpc, set)));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_bind_curlwp(cpc, cpc_set_create(cpc), 0)));
	EXPECT_EQ(0, cpc_errlog.calls);
	/* Without a handler, nothing is recorded (the default one prints). */
	EXPECT_EQ(0, cpc_seterrhndlr(cpc, NULL));
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(0, cpc_close(cpc));
}

/* The default handler, on the child's stderr (a pipe). */
static void default_handler_child(struct child_res *r, void *arg)
{
	int fd = *(int *)arg;
	cpc_set_t *set;
	cpc_t *cpc;
	unsigned int i;

	if (dup2(fd, 2) < 0)
		_exit(2);
	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc)
		_exit(3);
	set = cpc_set_create(cpc);
	r->err[0] = cpc_err_of(cpc_set_add_request(cpc, set, "no_such_event", 0, USR,
						   0, NULL));
	set = cpc_set_create(cpc);
	for (i = 0; i <= cpc_npic(cpc); i++)
		cpc_set_add_request(cpc, set, "sw_cpu_clock", 0, USR, 0, NULL);
	r->err[1] = cpc_err_of(cpc_bind_curlwp(cpc, set, 0));
	/* A handler of its own silences it; NULL brings the default back. */
	cpc_seterrhndlr(cpc, cpc_errlog_handler);
	r->err[2] = cpc_err_of(cpc_set_add_request(cpc, set, "no_such_event", 0, USR,
						   0, NULL));
	cpc_seterrhndlr(cpc, NULL);
	r->err[3] = cpc_err_of(cpc_bind_cpu(cpc, -1, set, 0));
	r->err[4] = cpc_errlog.calls;
	cpc_close(cpc);
}

TEST_F(libcpc, default_error_handler_prints_libcpc_function_message)
{
	struct child_res *r = child_res_new();
	char out[1024];
	int p[2];
	ssize_t n;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, run_child(default_handler_child, r, &p[1]));
	close(p[1]);
	n = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	out[n > 0 ? n : 0] = '\0';
	EXPECT_STREQ("libcpc: cpc_set_add_request: Unknown event\n"
		     "libcpc: cpc_bind_curlwp: Hardware resource unavailable\n"
		     "libcpc: cpc_bind_cpu: Couldn't bind LWP to requested processor\n",
		     out);
	EXPECT_EQ(EINVAL, r->err[0]);
	EXPECT_EQ(EINVAL, r->err[1]);
	EXPECT_EQ(EINVAL, r->err[2]);
	EXPECT_EQ(EINVAL, r->err[3]);
	EXPECT_EQ(1, r->err[4]);
	munmap(r, sizeof(*r));
}

/* ---- software events and many threads ------------------------------------------ */

/* Touch n fresh pages, one write each; 0 or -1. */
static int touch_pages(int n)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		return -1;
	madvise(p, n * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * psz] = 1;
	munmap(p, n * psz);
	return 0;
}

TEST_F(libcpc, page_faults_are_counted)
{
	cpc_buf_t *before, *after, *diff;
	cpc_set_t *set;
	uint64_t v[3];
	cpc_t *cpc;
	int i;

	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "sw_page_faults", 0, USR_SYS, 0, NULL));
	ASSERT_EQ(1, cpc_set_add_request(cpc, set, "sw_minor_faults", 0, USR, 0, NULL));
	ASSERT_EQ(2, cpc_set_add_request(cpc, set, "sw_page_faults", 0, 0, 0, NULL));
	before = cpc_buf_create(cpc, set);
	after = cpc_buf_create(cpc, set);
	diff = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, diff);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	ASSERT_EQ(0, cpc_set_sample(cpc, set, before));
	ASSERT_EQ(0, touch_pages(64));
	ASSERT_EQ(0, cpc_set_sample(cpc, set, after));
	cpc_buf_sub(cpc, diff, after, before);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, cpc_buf_get(cpc, diff, i, &v[i]));
	}
	EXPECT_LE(64ULL, v[0]);
	EXPECT_LE(64ULL, v[1]);
	/* Neither user nor system: counts nothing. */
	EXPECT_EQ(0ULL, v[2]);
	EXPECT_EQ(0, cpc_close(cpc));
}

#define NTHREADS	8
#define NROUNDS		3

struct worker {
	cpc_t *cpc;
	pthread_barrier_t *barrier;
	int i;
	int err;			/* the first errno, or -step */
	uint64_t ins[NROUNDS];		/* instructions of each round */
	uint64_t total[NROUNDS];	/* and the total after it */
	uint64_t faults[NROUNDS];	/* page faults of each round */
};

static unsigned long long worker_ins(int i, int round)
{
	return 100ULL * (i + 1) + round;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	cpc_buf_t *before, *after;
	uint64_t b[2], a[2];
	cpc_set_t *set;
	int r;

	w->err = pin_to_cpu(w->i % 4) ? errno : 0;
	set = SET(w->cpc, USR, "PAPI_tot_ins");
	if (!set || cpc_set_add_request(w->cpc, set, "sw_page_faults", 0, USR_SYS, 0, NULL) != 1)
		w->err = -1;
	before = set ? cpc_buf_create(w->cpc, set) : NULL;
	after = set ? cpc_buf_create(w->cpc, set) : NULL;
	if (!before || !after)
		w->err = -2;
	/* All bind at once. */
	pthread_barrier_wait(w->barrier);
	if (!w->err)
		w->err = cpc_err_of(cpc_bind_curlwp(w->cpc, set, 0));
	pthread_barrier_wait(w->barrier);
	for (r = 0; r < NROUNDS; r++) {
		if (!w->err)
			w->err = sample(w->cpc, set, before, b, 2);
		if (!w->err)
			w->err = -inject_here(EV_INSTR, worker_ins(w->i, r));
		if (!w->err && touch_pages(4 * (w->i + 1)))
			w->err = -3;
		if (!w->err)
			w->err = sample(w->cpc, set, after, a, 2);
		if (!w->err) {
			w->ins[r] = a[0] - b[0];
			w->total[r] = a[0];
			w->faults[r] = a[1] - b[1];
		}
		pthread_barrier_wait(w->barrier);
	}
	/* Half unbind; the others exit with their sets bound. */
	if (!w->err && w->i % 2)
		w->err = cpc_err_of(cpc_unbind(w->cpc, set));
	return NULL;
}

TEST_F(libcpc, eight_threads_bind_and_sample_at_once)
{
	struct worker w[NTHREADS];
	pthread_barrier_t barrier;
	pthread_t t[NTHREADS];
	unsigned long long sum;
	int i, r, base;
	cpc_t *cpc;

	NEED_FAKEPMU();
	NEED_CPUS(4);
	base = module_refcnt("fakepmu");
	ASSERT_LE(0, base);
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	ASSERT_EQ(0, pthread_barrier_init(&barrier, NULL, NTHREADS));
	for (i = 0; i < NTHREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].cpc = cpc;
		w[i].barrier = &barrier;
		w[i].i = i;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, worker_fn, &w[i]));
	}
	for (i = 0; i < NTHREADS; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
	}
	for (i = 0; i < NTHREADS; i++) {
		EXPECT_EQ(0, w[i].err) TH_LOG("thread %d: %d (%s)", i, w[i].err,
					      w[i].err > 0 ? strerror(w[i].err) : "setup");
		sum = 0;
		for (r = 0; r < NROUNDS; r++) {
			sum += worker_ins(i, r);
			/* Its own instructions only, though two threads share each CPU. */
			EXPECT_EQ(worker_ins(i, r), w[i].ins[r]) TH_LOG("thread %d round %d", i, r);
			EXPECT_EQ(sum, w[i].total[r]) TH_LOG("thread %d round %d", i, r);
			EXPECT_LE(4ULL * (i + 1), w[i].faults[r])
				TH_LOG("thread %d round %d", i, r);
		}
	}
	pthread_barrier_destroy(&barrier);
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(0, cpc_close(cpc));
	/* Closing releases the sets the exited threads left bound. */
	EXPECT_TRUE(wait_until(fakepmu_refcnt_is, &base))
		TH_LOG("DRIVER BUG: %d events left on the test PMU",
		       module_refcnt("fakepmu") - base);
	EXPECT_EQ(0, fakepmu_state_count("cpu=", NULL));
}

/* ---- what is left behind ------------------------------------------------------- */

/*
 * A thread on CPU 2 that binds set (unless it inherited it), counts 5
 * instructions in it and exits without unbinding.
 */
struct leaver {
	cpc_t *cpc;
	cpc_set_t *set;
	bool bind;
	pid_t tid;
	int err;
};

static void *leaver_fn(void *arg)
{
	struct leaver *l = arg;
	cpc_buf_t *buf = cpc_buf_create(l->cpc, l->set);
	uint64_t v[2];

	l->tid = gettid();
	l->err = !buf ? -1 : pin_to_cpu(2) ? errno : 0;
	if (!l->err && l->bind)
		l->err = cpc_err_of(cpc_bind_curlwp(l->cpc, l->set, 0));
	if (!l->err)
		l->err = -inject_here(EV_INSTR, 5);
	if (!l->err)
		l->err = sample(l->cpc, l->set, buf, v, 2);
	if (!l->err && v[0] != 5)
		l->err = -2;
	return NULL;
}

static void exit_while_bound(struct child_res *r, void *arg)
{
	cpc_t *cpc = open_cpc();
	cpc_set_t *set = cpc ? SET(cpc, USR, "PAPI_tot_ins", "PAPI_tot_cyc") : NULL;

	r->err[0] = set ? cpc_err_of(cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT)) : -1;
	r->val[0] = module_refcnt("fakepmu");
	_exit(0);
}

TEST_F(libcpc, close_and_exit_leave_nothing_behind)
{
	struct child_res *r = child_res_new();
	cpc_set_t *set_main, *set_inh, *set_cpu;
	struct leaver l;
	struct target tg;
	pthread_t t;
	pctx_t *pctx;
	cpc_t *cpc;
	int base;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_NE(NULL, r);
	base = module_refcnt("fakepmu");
	ASSERT_LE(0, base);
	ASSERT_EQ(0, pin_to_cpu(1));

	/* This thread's set: four counters on CPU 1 while it runs. */
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set_main = SET(cpc, USR, "PAPI_tot_ins", "PAPI_tot_cyc", "PAPI_br_ins", "PAPI_br_msp");
	ASSERT_NE(NULL, set_main);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set_main, 0));
	EXPECT_EQ(4, fakepmu_lines_on(1));
	EXPECT_EQ(base + 4, module_refcnt("fakepmu"));
	/* A thread that exits with its set bound; the next bind drops it. */
	memset(&l, 0, sizeof(l));
	l.cpc = cpc;
	l.set = SET(cpc, USR, "PAPI_tot_ins", "sw_task_clock");
	l.bind = true;
	ASSERT_NE(NULL, l.set);
	ASSERT_EQ(0, pthread_create(&t, NULL, leaver_fn, &l));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, l.err);
	ASSERT_TRUE(wait_until(task_gone, &l.tid));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set_main, 0));
	EXPECT_EQ(base + 4, module_refcnt("fakepmu"))
		TH_LOG("DRIVER BUG: the exited thread's counters are kept");
	/* Closing releases everything. */
	EXPECT_EQ(0, cpc_close(cpc));
	EXPECT_TRUE(wait_until(fakepmu_refcnt_is, &base));
	EXPECT_EQ(0, fakepmu_state_count("cpu=", NULL));

	/* Inherited counters of a thread that came and went. */
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set_inh = SET(cpc, USR, "PAPI_tot_ins", "PAPI_tot_cyc");
	ASSERT_NE(NULL, set_inh);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set_inh, CPC_BIND_LWP_INHERIT));
	memset(&l, 0, sizeof(l));
	l.cpc = cpc;
	l.set = set_inh;
	l.bind = false;
	ASSERT_EQ(0, pthread_create(&t, NULL, leaver_fn, &l));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, l.err);
	/*
	 * perf may have swapped this thread's context with the new thread's
	 * and the new one left with the original events: how many events
	 * remain until close depends on that.  After close, none.
	 */
	EXPECT_EQ(0, cpc_close(cpc));
	EXPECT_TRUE(wait_until(fakepmu_refcnt_is, &base));

	/* A CPU binding: closing unbinds, gives the CPU back and the affinity. */
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set_cpu = SET(cpc, USR_SYS, "PAPI_tot_ins");
	ASSERT_NE(NULL, set_cpu);
	ASSERT_EQ(0, cpc_bind_cpu(cpc, 2, set_cpu, 0));
	EXPECT_EQ(1, fakepmu_lines_on(2));
	EXPECT_EQ(0, cpc_close(cpc));
	EXPECT_EQ(1ULL << 1, affinity_mask());
	EXPECT_TRUE(wait_until(fakepmu_refcnt_is, &base));
	EXPECT_EQ(0, fakepmu_state_count("cpu=", NULL));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set_cpu = SET(cpc, USR_SYS, "sw_cpu_clock");
	ASSERT_NE(NULL, set_cpu);
	EXPECT_EQ(0, cpc_bind_cpu(cpc, 2, set_cpu, 0));
	EXPECT_EQ(0, cpc_close(cpc));

	/* A binding to another process. */
	ASSERT_EQ(0, target_start(&tg, 2));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	pctx = pctx_capture(tg.pid, NULL, 0, pctx_quiet);
	ASSERT_NE(NULL, pctx);
	set_main = SET(cpc, USR, "PAPI_tot_ins", "PAPI_tot_cyc");
	ASSERT_NE(NULL, set_main);
	ASSERT_EQ(0, cpc_bind_pctx(cpc, pctx, 1, set_main, 0));
	EXPECT_EQ(0, target_do(&tg, 'i'));
	EXPECT_EQ(base + 2, module_refcnt("fakepmu"));
	EXPECT_EQ(0, cpc_close(cpc));
	EXPECT_TRUE(wait_until(fakepmu_refcnt_is, &base));
	pctx_release(pctx);
	target_end(&tg);

	/* A process that exits without closing. */
	ASSERT_EQ(0, run_child(exit_while_bound, r, NULL));
	EXPECT_EQ(0, r->err[0]);
	EXPECT_LT((unsigned long long)base + 1, r->val[0]);
	EXPECT_TRUE(wait_until(fakepmu_refcnt_is, &base))
		TH_LOG("DRIVER BUG: %d events left", module_refcnt("fakepmu") - base);
	EXPECT_EQ(0, fakepmu_state_count("cpu=", NULL));
	munmap(r, sizeof(*r));
}

/* ---- events ------------------------------------------------------------------------ */

TEST_F(libcpc, generic_events_count_what_perf_maps_them_to)
{
	static const struct {
		const char *name;
		unsigned int code;	/* the test PMU's code for perf's event */
	} generic[] = {
		{ "PAPI_tot_ins", 0x00c0 }, { "PAPI_tot_cyc", 0x003c },
		{ "PAPI_ref_cyc", 0x0300 }, { "PAPI_br_ins", 0x00c4 },
		{ "PAPI_br_msp", 0x00c5 }, { "PAPI_l3_tca", 0x4f2e },
		{ "PAPI_l3_tcm", 0x412e }, { "PAPI_l1_dca", 0x81d0 },
		{ "PAPI_l1_dcw", 0x82d0 }, { "PAPI_l1_dcm", 0x0151 },
		{ "PAPI_l1_icm", 0x0283 }, { "PAPI_l3_dcr", 0x01b7 },
		{ "PAPI_tlb_dm", 0x0e08 }, { "PAPI_tlb_im", 0x0e85 },
	};
	const unsigned int n = NELEM(generic);
	char cfg[64];
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint64_t v;
	unsigned int i, j;
	cpc_t *cpc;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	for (i = 0; i < n; i += 2) {
		/* Two at a time, so that no two share a code. */
		set = SET(cpc, USR, generic[i].name, generic[i + 1].name);
		ASSERT_NE(NULL, set);
		buf = cpc_buf_create(cpc, set);
		ASSERT_NE(NULL, buf);
		ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0))
			TH_LOG("%s, %s: %s", generic[i].name, generic[i + 1].name,
			       strerror(errno));
		for (j = i; j < i + 2; j++) {
			snprintf(cfg, sizeof(cfg), "config=%#x user=1 kernel=0 ", generic[j].code);
			EXPECT_EQ(1, fakepmu_state_count("cpu=1 ", cfg))
				TH_LOG("%s is not %s", generic[j].name, cfg);
			ASSERT_EQ(0, inject_here(generic[j].code, 100 + j));
		}
		for (j = i; j < i + 2; j++) {
			ASSERT_EQ(0, cpc_set_sample(cpc, set, buf));
			ASSERT_EQ(0, cpc_buf_get(cpc, buf, j - i, &v));
			EXPECT_EQ(100ULL + j, v) TH_LOG("%s", generic[j].name);
		}
		EXPECT_EQ(0, cpc_set_destroy(cpc, set));
	}
	EXPECT_EQ(0, cpc_errlog.calls);
	EXPECT_EQ(0, cpc_close(cpc));
}

struct names {
	int n, generic, sw, bad;
	char list[65536];	/* libpfm4's Intel tables have hundreds */
};

static void collect_event(void *arg, const char *event)
{
	struct names *nm = arg;
	size_t len = strlen(nm->list);

	nm->n++;
	if (!strncmp(event, "PAPI_", 5))
		nm->generic++;
	/* Linux software events (Intel has sw_prefetch_access.* too) */
	if (!strncmp(event, "sw_", 3) && !strchr(event, '.'))
		nm->sw++;
	if (len + strlen(event) + 2 < sizeof(nm->list))
		snprintf(nm->list + len, sizeof(nm->list) - len, "%s,", event);
	else
		nm->bad++;
}

/* 1 if a list "a,b,...," has name. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p++)
		if ((p == list || p[-1] == ',') && p[n] == ',')
			return true;
	return false;
}

static void collect_event_pic(void *arg, uint_t picno, const char *event)
{
	collect_event(arg, event);
}

/* Add every name of a comma-separated list to a set of its own: failures. */
static int add_each(cpc_t *cpc, char *list)
{
	char *name, *save = NULL;
	cpc_set_t *set;
	int bad = 0;

	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		set = cpc_set_create(cpc);
		if (!set || cpc_set_add_request(cpc, set, name, 0, USR, 0, NULL) != 0)
			bad++;
		if (set)
			cpc_set_destroy(cpc, set);
	}
	return bad;
}

static void collect_request(void *arg, int index, const char *event, uint64_t preset,
			    uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	char *buf = arg;
	size_t len = strlen(buf);

	snprintf(buf + len, 1024 - len, "%d:%s:%llu:%#x:%d%s%s;", index, event,
		 (unsigned long long)preset, flags, nattrs, nattrs ? ":" : "",
		 nattrs ? attrs[0].ca_name : "");
}

TEST_F(libcpc, event_lists_and_requests)
{
	static const char *const sw[] = {
		"sw_cpu_clock", "sw_task_clock", "sw_page_faults", "sw_context_switches",
		"sw_cpu_migrations", "sw_minor_faults", "sw_major_faults",
	};
	struct names all, generic, pic;
	char name[32] = "sw_task_clock", attrname[32] = "picnum", walk[1024] = "";
	cpc_attr_t attr = { attrname, 1 };
	unsigned int i, npic;
	cpc_set_t *set;
	cpc_t *cpc;

	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	npic = cpc_npic(cpc);
	if (have_fakepmu()) {
		EXPECT_EQ(4U, npic);	/* no x86 PMU: 4 */
	EXPECT_EQ((unsigned int)(CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE),
		  cpc_caps(cpc));
	}
	EXPECT_NE(0U, strlen(cpc_cciname(cpc)));
	EXPECT_NE(0U, strlen(cpc_cpuref(cpc)));

	memset(&generic, 0, sizeof(generic));
	cpc_walk_generic_events_all(cpc, &generic, collect_event);
	EXPECT_LT(0, generic.n);
	EXPECT_EQ(generic.n, generic.generic);
	EXPECT_TRUE(listed(generic.list, "PAPI_tot_ins"));
	EXPECT_TRUE(listed(generic.list, "PAPI_tot_cyc"));
	memset(&all, 0, sizeof(all));
	cpc_walk_events_all(cpc, &all, collect_event);
	EXPECT_EQ(0, all.generic);
	EXPECT_EQ(7, all.sw);
	for (i = 0; i < NELEM(sw); i++) {
		EXPECT_TRUE(listed(all.list, sw[i])) TH_LOG("software event %u", i);
	}
	/* Every counter lists the same events. */
	for (i = 0; i < npic; i++) {
		memset(&pic, 0, sizeof(pic));
		cpc_walk_events_pic(cpc, i, &pic, collect_event_pic);
		EXPECT_STREQ(all.list, pic.list);
		memset(&pic, 0, sizeof(pic));
		cpc_walk_generic_events_pic(cpc, i, &pic, collect_event_pic);
		EXPECT_STREQ(generic.list, pic.list);
	}
	memset(&pic, 0, sizeof(pic));
	errno = 0;
	cpc_walk_events_pic(cpc, npic, &pic, collect_event_pic);
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	cpc_walk_generic_events_pic(cpc, npic, &pic, collect_event_pic);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, pic.n);
	EXPECT_TRUE(attr_listed(cpc, "picnum"));
	/* Every listed name is accepted. */
	EXPECT_EQ(0, add_each(cpc, generic.list));
	EXPECT_EQ(0, add_each(cpc, all.list));
	EXPECT_EQ(0, cpc_errlog.calls);

	/* Requests: indices in order, walked newest first, copies of the arguments. */
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	EXPECT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 5, USR, 0, NULL));
	EXPECT_EQ(1, cpc_set_add_request(cpc, set, name, 7, USR_SYS, 1, &attr));
	EXPECT_EQ(2, cpc_set_add_request(cpc, set, "0xc4", PRESET,
					 USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	snprintf(name, sizeof(name), "changed");
	snprintf(attrname, sizeof(attrname), "changed");
	cpc_walk_requests(cpc, set, walk, collect_request);
	EXPECT_STREQ("2:0xc4:18446744073709550616:0x3:0;"
		     "1:sw_task_clock:7:0x6:1:picnum;"
		     "0:PAPI_tot_ins:5:0x2:0;", walk);
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST_F(libcpc, buffer_arithmetic)
{
	cpc_buf_t *a, *b, *d, *other;
	cpc_set_t *set, *set1;
	uint64_t v;
	cpc_t *cpc;

	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = SET(cpc, USR, "sw_task_clock", "sw_cpu_clock");
	set1 = SET(cpc, USR, "sw_task_clock");
	ASSERT_NE(NULL, set);
	ASSERT_NE(NULL, set1);
	a = cpc_buf_create(cpc, set);
	b = cpc_buf_create(cpc, set);
	d = cpc_buf_create(cpc, set);
	other = cpc_buf_create(cpc, set1);
	ASSERT_NE(NULL, other);
	/* New buffers hold zeros. */
	ASSERT_EQ(0, cpc_buf_get(cpc, a, 1, &v));
	EXPECT_EQ(0ULL, v);
	EXPECT_EQ(0LL, cpc_buf_hrtime(cpc, a));
	EXPECT_EQ(0ULL, cpc_buf_tick(cpc, a));
	ASSERT_EQ(0, cpc_buf_set(cpc, a, 0, 10));
	ASSERT_EQ(0, cpc_buf_set(cpc, a, 1, 3));
	ASSERT_EQ(0, cpc_buf_set(cpc, b, 0, 4));
	ASSERT_EQ(0, cpc_buf_set(cpc, b, 1, 5));
	cpc_buf_sub(cpc, d, a, b);
	ASSERT_EQ(0, cpc_buf_get(cpc, d, 0, &v));
	EXPECT_EQ(6ULL, v);
	ASSERT_EQ(0, cpc_buf_get(cpc, d, 1, &v));
	EXPECT_EQ((uint64_t)-2, v);
	cpc_buf_add(cpc, d, d, b);
	ASSERT_EQ(0, cpc_buf_get(cpc, d, 1, &v));
	EXPECT_EQ(3ULL, v);
	cpc_buf_copy(cpc, b, a);
	ASSERT_EQ(0, cpc_buf_get(cpc, b, 0, &v));
	EXPECT_EQ(10ULL, v);
	/* Buffers of another size are left alone. */
	cpc_buf_copy(cpc, other, a);
	cpc_buf_sub(cpc, other, a, b);
	ASSERT_EQ(0, cpc_buf_get(cpc, other, 0, &v));
	EXPECT_EQ(0ULL, v);
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_buf_get(cpc, other, 1, &v)));
	cpc_buf_zero(cpc, a);
	ASSERT_EQ(0, cpc_buf_get(cpc, a, 0, &v));
	EXPECT_EQ(0ULL, v);
	EXPECT_EQ(0, cpc_buf_destroy(cpc, a));
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_buf_destroy(cpc, a)));
	EXPECT_EQ(0, cpc_close(cpc));
}

static unsigned long long tsc_now(void)
{
#if defined(__aarch64__)
	unsigned long long v;

	/* arm64: the generic timer's virtual count */
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	unsigned int lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi));
	return ((unsigned long long)hi << 32) | lo;
#endif
}

/*
 * cpc_buf_create(3CPC): the tick is the TSC cycles since the set was
 * bound, not the time-stamp counter itself; for LWP and CPU bindings.
 */
TEST(buffer_tick_counts_from_the_bind)
{
	unsigned long long t0, t1, tick1, tick2;
	cpc_buf_t *buf;
	cpc_set_t *set;
	cpc_t *cpc;
	int pass;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_EQ(0, pin_to_cpu(2));
	for (pass = 0; pass < 2; pass++) {
		cpc = cpc_open(CPC_VER_CURRENT);
		ASSERT_NE(NULL, cpc);
		set = cpc_set_create(cpc);
		ASSERT_NE(NULL, set);
		ASSERT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, USR, 0, NULL));
		buf = cpc_buf_create(cpc, set);
		ASSERT_NE(NULL, buf);
		t0 = tsc_now();
		if (pass) {
			ASSERT_EQ(0, cpc_bind_cpu(cpc, 2, set, 0));
		} else {
			ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
		}
		usleep(20000);
		ASSERT_EQ(0, cpc_set_sample(cpc, set, buf));
		tick1 = cpc_buf_tick(cpc, buf);
		usleep(20000);
		ASSERT_EQ(0, cpc_set_sample(cpc, set, buf));
		tick2 = cpc_buf_tick(cpc, buf);
		t1 = tsc_now();
		EXPECT_LT(0ULL, tick1) TH_LOG("pass %d", pass);
		EXPECT_LT(tick1, tick2) TH_LOG("pass %d", pass);
		EXPECT_GT(t1 - t0, tick2)
			TH_LOG("pass %d: tick %llu is not counted from the bind (%llu cycles ago)",
			       pass, tick2, t1 - t0);
		EXPECT_EQ(0, cpc_close(cpc));
	}
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Solaris' tick of an LWP binding is virtualised: it advances only while
 * the set is on a CPU.  A thread that spins 150 ms and then sleeps 300 ms
 * has a tick of about its spin, not of the whole 450 ms (the wall time
 * since the bind, which it used to be); a CPU binding's stays the wall
 * time.
 */
TEST(thread_binding_tick_counts_only_time_on_a_cpu)
{
	unsigned long long t0, t_spin, t1, tick;
	cpc_buf_t *buf;
	cpc_set_t *set;
	long long end;
	cpc_t *cpc;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, USR, 0, NULL));
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	t0 = tsc_now();
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	end = mono_ns() + 150000000LL;
	while (mono_ns() < end)
		;
	t_spin = tsc_now() - t0;
	usleep(300000);
	ASSERT_EQ(0, cpc_set_sample(cpc, set, buf));
	t1 = tsc_now();
	tick = cpc_buf_tick(cpc, buf);
	ksft_print_msg("tick %llu; spin %llu, since the bind %llu TSC cycles\n",
		       tick, t_spin, t1 - t0);
	EXPECT_LT(t_spin / 2, tick) TH_LOG("the spin was not counted");
	EXPECT_GT(t_spin + (t1 - t0 - t_spin) / 3, tick)
		TH_LOG("DRIVER BUG: the tick counts the time the thread slept");
	EXPECT_EQ(0, cpc_close(cpc));
}

/* The test PMU's count of events put on a counter (perf's add calls). */
static int fakepmu_adds(void)
{
	int n;

	return read_file_int("/sys/kernel/debug/fakepmu/adds", &n) ? -1 : n;
}

/*
 * cpc_set_restart() of a set that counts: every counter goes on from its
 * preset, exactly, with no perf call (no counter is taken off and put back).
 */
TEST(restart_of_a_counting_set_moves_only_the_values)
{
	struct rusage ru0, ru1;
	uint64_t v0, v1;
	long switches;
	cpc_buf_t *buf;
	cpc_set_t *set;
	cpc_t *cpc;
	int adds, i;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_EQ(0, pin_to_cpu(2));
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 100, USR, 0, NULL));
	ASSERT_EQ(1, cpc_set_add_request(cpc, set, "PAPI_tot_cyc", 7, USR, 0, NULL));
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	ASSERT_EQ(0, getrusage(RUSAGE_THREAD, &ru0));
	adds = fakepmu_adds();
	ASSERT_LE(0, adds);
	for (i = 1; i <= 10; i++) {
		ASSERT_EQ(0, inject_here(EV_INSTR, 50));
		ASSERT_EQ(0, cpc_set_restart(cpc, set));
		ASSERT_EQ(0, inject_here(EV_INSTR, i));
		ASSERT_EQ(0, inject_here(EV_CYCLES, 2 * i));
		ASSERT_EQ(0, cpc_set_sample(cpc, set, buf));
		ASSERT_EQ(0, cpc_buf_get(cpc, buf, 0, &v0));
		ASSERT_EQ(0, cpc_buf_get(cpc, buf, 1, &v1));
		EXPECT_EQ(100ULL + i, v0) TH_LOG("restart %d", i);
		EXPECT_EQ(7ULL + 2 * i, v1) TH_LOG("restart %d", i);
	}
	/*
	 * Only a context switch takes the thread's two events off and puts
	 * them back (an RT kernel's threaded interrupts preempt it now and
	 * then); ten restarts that did so would add 20 more.
	 */
	adds = fakepmu_adds() - adds;
	ASSERT_EQ(0, getrusage(RUSAGE_THREAD, &ru1));
	switches = (ru1.ru_nvcsw - ru0.ru_nvcsw) + (ru1.ru_nivcsw - ru0.ru_nivcsw);
	EXPECT_GE(2 * switches, adds)
		TH_LOG("%d adds for %ld context switches", adds, switches);
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST_HARNESS_MAIN
