// SPDX-License-Identifier: GPL-2.0
/*
 * The counter core under the front-ends (module/core/pmc_core.c), through
 * /dev/cpc (libcpc and raw ioctls) and /dev/pctr: CPU hotplug while sets
 * are programmed, inheritance and execve, overflow signals of several
 * threads at once, CPU sets across hotplug, presets and restarts, failed
 * binds that must leave nothing (or the previous binding) behind, per-thread
 * counts of inherited threads that switch on one CPU, sets that freeze as
 * a whole at an overflow, and the extensible-structure rules of the ioctls.
 *
 * The test PMU counts only what is injected, on the thread current on the
 * target CPU at that moment: a per-thread counter counts an injection when
 * its thread runs (or spins) on that CPU.  Run with no argument this is a
 * kselftest program; "core_test --spin READY_FD STOP_FD" is the image the
 * exec tests run: it writes one byte to READY_FD, then spins until STOP_FD
 * is readable (or closed), 20 s at most, and exits 0.
 */
#include <libcpc.h>
#include <machine/pctr.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

/* Test PMU codes (event | umask << 8). */
#define EV_INSTR	0x00c0		/* PAPI_tot_ins */
#define EV_CYCLES	0x003c		/* PAPI_tot_cyc */
#define EV_BRANCH	0x00c4		/* PAPI_br_ins */

#define PRESET		(UINT64_MAX - 999ULL)	/* overflows after 1000 */
#define HOTPLUG_CPU	3
#define USR		CPC_COUNT_USER
#define FN_INSTR	(EV_INSTR | PCTR_U | PCTR_K | PCTR_EN)
#define FN_CYCLES	(EV_CYCLES | PCTR_U | PCTR_K | PCTR_EN)
#define SELF_EXE	"/proc/self/exe"
/*
 * A request that passes /dev/cpc's checks but that perf refuses (EINVAL), on
 * the test PMU as on x86 hardware: a generic hardware event past the last
 * one.  (x86 masks stray raw config bits off instead of refusing them.)
 */
#define TYPE_REFUSED	PERF_TYPE_HARDWARE
#define CONFIG_REFUSED	PERF_COUNT_HW_MAX

#define NEED_HOTPLUG() do {						\
	if (count_online_cpus() <= HOTPLUG_CPU ||			\
	    cpu_online_state(HOTPLUG_CPU) != 1)				\
		SKIP(return, "CPU %d cannot be taken offline", HOTPLUG_CPU); \
} while (0)

/* ---- small helpers -------------------------------------------------------- */

static cpc_t *open_cpc(void)
{
	return cpc_open(CPC_VER_CURRENT);
}

/* A set with one request for event (flags, preset); NULL on failure. */
static cpc_set_t *set1(cpc_t *cpc, const char *event, uint64_t preset,
		       unsigned int flags)
{
	cpc_set_t *set = cpc_set_create(cpc);

	if (!set || cpc_set_add_request(cpc, set, event, preset, flags, 0, NULL) != 0)
		return NULL;
	return set;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Read one byte from fd within ms milliseconds; 0, or -1. */
static int read_byte_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, ms) != 1)
		return -1;
	return read(fd, &c, 1) == 1 ? 0 : -1;
}

static int write_byte(int fd)
{
	return write(fd, "x", 1) == 1 ? 0 : -1;
}

/* The most test-PMU counters for event on CPU cpu seen in n looks, 1 ms apart. */
static int counters_on(int cpu, unsigned int event, int n)
{
	char tag[16], cfg[32];
	int i, c, most = 0;

	snprintf(tag, sizeof(tag), "cpu=%d ", cpu);
	snprintf(cfg, sizeof(cfg), "config=0x%x ", event);
	for (i = 0; i < n; i++) {
		c = fakepmu_state_count(tag, cfg);
		if (c > most)
			most = c;
		if (i + 1 < n)
			sleep_ms(1);
	}
	return most;
}

/* Wait for child pid at most ms milliseconds; its wait status, or -1 (then killed). */
static int wait_child_within(pid_t pid, int ms)
{
	long long end = now_ms() + ms;
	int status;

	do {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0)
			return -1;
		sleep_ms(5);
	} while (now_ms() < end);
	/* A child stuck in the kernel may not even die: do not wait for long. */
	kill(pid, SIGKILL);
	for (end = now_ms() + 1000; now_ms() < end; sleep_ms(5))
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	return -1;
}

static const char *status_str(int status, char *buf, size_t len)
{
	if (status == -1)
		snprintf(buf, len, "did not end in time");
	else if (WIFEXITED(status))
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "status 0x%x", status);
	return buf;
}

/* ---- the kernel log ------------------------------------------------------- */

/* /dev/kmsg, positioned after the last record: reports from now on. */
static int kmsg_mark(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* 1 and the first line of the first kernel report since the mark, else 0. */
static int kmsg_report(int fd, char *out, size_t len)
{
	static const char *const splat[] = {
		"possible recursive locking", "possible circular locking",
		"inconsistent lock state", "BUG:", "WARNING:", "Oops",
		"blocked for more than", "KASAN", "bad unlock balance",
		"sleeping function called from invalid context",
	};
	char rec[4096];
	unsigned int i;
	ssize_t n;

	if (fd < 0)
		return 0;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			return 0;
		rec[n] = '\0';
		for (i = 0; i < sizeof(splat) / sizeof(splat[0]); i++) {
			if (strstr(rec, splat[i])) {
				size_t l = strcspn(rec, "\n");

				if (l >= len)
					l = len - 1;
				memcpy(out, rec, l);
				out[l] = '\0';
				return 1;
			}
		}
	}
}

/* ---- overflow signals --------------------------------------------------- */

#define SIGREC_MAX	16

/* Every SIGEMT: who got it, where, why; and an optional action in the handler. */
static struct {
	volatile int n;
	int signo[SIGREC_MAX], code[SIGREC_MAX];
	pid_t tid[SIGREC_MAX];
	void *addr[SIGREC_MAX];
	void (*action)(int n);
} sigrec;

static void sigrec_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	int n = __atomic_fetch_add(&sigrec.n, 1, __ATOMIC_SEQ_CST);

	if (n < SIGREC_MAX) {
		sigrec.signo[n] = sig;
		sigrec.code[n] = si->si_code;
		sigrec.addr[n] = si->si_addr;
		sigrec.tid[n] = gettid();
		if (sigrec.action)
			sigrec.action(n);
	}
	errno = saved;
}

static int sigrec_setup(void)
{
	struct sigaction sa;

	memset((void *)&sigrec, 0, sizeof(sigrec));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigrec_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	return sigaction(SIGEMT, &sa, NULL);
}

static bool sigrec_reached(void *arg)
{
	return __atomic_load_n(&sigrec.n, __ATOMIC_SEQ_CST) >= *(int *)arg;
}

/* Wait (2 s at most) for the n-th signal, then 50 ms for extra ones; how many came. */
static int sigrec_wait(int n)
{
	wait_until(sigrec_reached, &n);
	sleep_ms(50);
	return __atomic_load_n(&sigrec.n, __ATOMIC_SEQ_CST);
}

/* ---- the exec'd image ------------------------------------------------------ */

static int spin_main(int argc, char **argv)
{
	int ready = atoi(argv[2]), stop = atoi(argv[3]);
	struct pollfd p = { .fd = stop, .events = POLLIN };
	long long end = now_ms() + 20000;
	volatile unsigned long spins = 0;

	if (write_byte(ready))
		return 3;
	while (now_ms() < end) {
		if (poll(&p, 1, 0) == 1)
			return 0;
		for (int i = 0; i < 10000; i++)
			spins++;
	}
	return 2;
}

/*
 * A child on CPU cpu that runs pre(arg) (a result code < 0 ends it with
 * that code's exit status 100 - code), then execs the spinning image.
 * *ready: read end that gets one byte once the image runs; *stop: closing
 * it ends the image.
 */
struct spinner {
	pid_t pid;
	int ready, stop;
};

static int spinner_start(struct spinner *s, int cpu, int (*pre)(void *arg), void *arg)
{
	int rp[2], sp[2];
	char a[16], b[16];

	if (pipe(rp) || pipe(sp))
		return -1;
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		int err;

		close(rp[0]);
		close(sp[1]);
		if (pin_to_cpu(cpu))
			_exit(90);
		err = pre ? pre(arg) : 0;
		if (err < 0)
			_exit(100 - err);
		snprintf(a, sizeof(a), "%d", rp[1]);
		snprintf(b, sizeof(b), "%d", sp[0]);
		execl(SELF_EXE, "core_test", "--spin", a, b, (char *)NULL);
		_exit(91);
	}
	close(rp[1]);
	close(sp[0]);
	s->ready = rp[0];
	s->stop = sp[1];
	return 0;
}

/* End the image; its wait status, or -1. */
static int spinner_end(struct spinner *s)
{
	close(s->stop);
	close(s->ready);
	return wait_child_within(s->pid, 10000);
}

/* ---- fixture ------------------------------------------------------------------ */

FIXTURE(core) {
	int offlined;		/* CPU this test took offline, or -1 */
	bool hung;		/* a hotplug deadlock: leave the CPUs alone */
	bool pctr_used;		/* clear /dev/pctr's counters at the end */
};

FIXTURE_SETUP(core)
{
	self->offlined = -1;
	self->hung = false;
	self->pctr_used = false;
	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
}

/* In the parent: runs even when the test process died. */
FIXTURE_TEARDOWN_PARENT(core)
{
	unsigned int n;

	if (self->hung)
		return;
	write_file("/sys/kernel/debug/fakepmu/fail_inits", "0\n");
	if (self->offlined >= 0 && cpu_online_state(self->offlined) == 0)
		EXPECT_EQ(0, set_cpu_online(self->offlined, 1));
	if (self->pctr_used)
		for (n = 0; n < PCTR_NUM; n++)
			pctr_set(n, 0);
}

/* ---- 1. CPU hotplug while counters are bound and programmed ------------- */

#define HOTPLUG_ROUNDS	30

struct hotplug_res {
	volatile int stop;
	int rounds_done, binds_done;
	int err_hotplug, err_thread, err_cpu, err_pctr;
	int where_thread, where_cpu, where_pctr;
	unsigned long long bad_count;
};

static void *hotplug_fn(void *arg)
{
	struct hotplug_res *r = arg;
	int i, err;

	if (pin_to_cpu(0)) {
		r->err_hotplug = errno;
		return NULL;
	}
	for (i = 0; i < HOTPLUG_ROUNDS && !r->stop; i++) {
		err = set_cpu_online(HOTPLUG_CPU, 0);
		if (!err)
			err = set_cpu_online(HOTPLUG_CPU, 1);
		if (err) {
			r->err_hotplug = -err;
			break;
		}
		r->rounds_done = i + 1;
	}
	return NULL;
}

/* One round of binds: a thread set, a CPU set, a /dev/pctr counter. */
static void bind_round(struct hotplug_res *r, int i, cpc_t *cpc, cpc_set_t *thr,
		       cpc_set_t *cpu, cpc_buf_t *buf, int pctr_fd)
{
	uint64_t v;
	int err;

	err = cpc_err_of(cpc_bind_curlwp(cpc, thr, 0));
	if (!err)
		err = -inject_here(EV_INSTR, 10);
	if (!err)
		err = sample(cpc, thr, buf, &v, 1);
	if (!err && v != 10)
		r->bad_count = v;
	if (!err)
		err = cpc_err_of(cpc_unbind(cpc, thr));
	if (err && !r->err_thread) {
		r->err_thread = err;
		r->where_thread = i;
	}

	err = cpc_err_of(cpc_bind_cpu(cpc, 2, cpu, 0));
	if (!err)
		err = cpc_err_of(cpc_unbind(cpc, cpu));
	if (err && !r->err_cpu) {
		r->err_cpu = err;
		r->where_cpu = i;
	}

	err = pctr_set_fd(pctr_fd, 0, FN_INSTR);
	if (!err)
		err = pctr_set_fd(pctr_fd, 0, 0);
	if (err && !r->err_pctr) {
		r->err_pctr = -err;
		r->where_pctr = i;
	}
	r->binds_done = i + 1;
}

static void hotplug_child(struct hotplug_res *r)
{
	cpc_t *cpc = open_cpc();
	cpc_set_t *thr = cpc ? set1(cpc, "PAPI_tot_ins", 0, USR) : NULL;
	cpc_set_t *cpu = cpc ? set1(cpc, "PAPI_tot_ins", 0, USR) : NULL;
	cpc_buf_t *buf = thr ? cpc_buf_create(cpc, thr) : NULL;
	int pctr_fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	pthread_t t;
	int i;

	if (!buf || pctr_fd < 0 || pin_to_cpu(1)) {
		r->err_thread = -1;
		return;
	}
	if (pthread_create(&t, NULL, hotplug_fn, r)) {
		r->err_hotplug = -1;
		return;
	}
	for (i = 0; i < HOTPLUG_ROUNDS; i++) {
		/*
		 * Halfway, give perf time (1 s) to drop its scheduling hooks
		 * once no thread counter is left, so that the next thread
		 * bind enables them again while CPUs come and go.
		 */
		if (i == HOTPLUG_ROUNDS / 2)
			sleep_ms(1100);
		bind_round(r, i, cpc, thr, cpu, buf, pctr_fd);
	}
	pthread_join(t, NULL);
	close(pctr_fd);
	cpc_close(cpc);
}

TEST_F_TIMEOUT(core, hotplug_while_binding_thread_cpu_and_pctr_counters, 150)
{
	struct hotplug_res *r = shared_zone(sizeof(*r));
	char report[512], st[64];
	int kmsg, status;
	pid_t pid;

	NEED_FAKEPMU();
	NEED_HOTPLUG();
	ASSERT_NE(NULL, r);
	memset(r, 0, sizeof(*r));
	self->pctr_used = true;
	self->offlined = HOTPLUG_CPU;
	kmsg = kmsg_mark();
	ASSERT_LE(0, kmsg) TH_LOG("/dev/kmsg: %s", strerror(errno));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		hotplug_child(r);
		_exit(0);
	}
	/* A deadlock leaves the child (and CPU hotplug) stuck for good. */
	status = wait_child_within(pid, 120000);
	if (status == -1) {
		self->hung = true;
		r->stop = 1;
	}
	ASSERT_NE(-1, status)
		TH_LOG("DRIVER BUG: deadlock: after %d hotplug rounds and %d bind rounds not done after 120 s",
		       r->rounds_done, r->binds_done);
	EXPECT_EQ(0, status) TH_LOG("child: %s", status_str(status, st, sizeof(st)));
	EXPECT_EQ(HOTPLUG_ROUNDS, r->rounds_done) TH_LOG("hotplug: %s", strerror(r->err_hotplug));
	EXPECT_EQ(HOTPLUG_ROUNDS, r->binds_done);
	EXPECT_EQ(0, r->err_thread)
		TH_LOG("thread bind round %d: %s", r->where_thread, strerror(r->err_thread));
	EXPECT_EQ(0, r->err_cpu) TH_LOG("CPU bind round %d: %s", r->where_cpu, strerror(r->err_cpu));
	EXPECT_EQ(0, r->err_pctr) TH_LOG("pctr round %d: %s", r->where_pctr, strerror(r->err_pctr));
	EXPECT_EQ(0ULL, r->bad_count) TH_LOG("a thread set read %llu, not 10", r->bad_count);
	EXPECT_EQ(1, cpu_online_state(HOTPLUG_CPU));
	EXPECT_EQ(0, kmsg_report(kmsg, report, sizeof(report)))
		TH_LOG("DRIVER BUG: kernel report: %s", report);
	close(kmsg);
	munmap(r, sizeof(*r));
}

/*
 * Programming a CPU-wide counter while a CPU goes down and up: every
 * request succeeds.  perf refuses events for a CPU once it is offline,
 * after the module's hotplug callback ran; a request that raced it failed
 * with ENODEV, instead of leaving that CPU to the hotplug path (which makes
 * its events when it comes back).
 */
struct program_race {
	volatile int stop;
	int rounds, err;
};

static void *program_race_hotplug(void *arg)
{
	struct program_race *pr = arg;
	int i, err = 0;

	if (pin_to_cpu(0))
		err = -errno;
	for (i = 0; i < HOTPLUG_ROUNDS && !err; i++) {
		err = set_cpu_online(HOTPLUG_CPU, 0);
		if (!err)
			err = set_cpu_online(HOTPLUG_CPU, 1);
		pr->rounds = i + 1;
	}
	pr->err = err;
	pr->stop = 1;
	return NULL;
}

TEST_F_TIMEOUT(core, pctr_programming_racing_cpu_hotplug_always_succeeds, 150)
{
	struct program_race pr = { 0 };
	int fd, err, n = 0, enodev = 0, other = 0, last = 0;
	pthread_t t;

	NEED_FAKEPMU();
	NEED_HOTPLUG();
	fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	self->pctr_used = true;
	self->offlined = HOTPLUG_CPU;
	ASSERT_EQ(0, pin_to_cpu(1));
	ASSERT_EQ(0, pthread_create(&t, NULL, program_race_hotplug, &pr));
	while (!pr.stop) {
		err = pctr_set_fd(fd, 0, (n & 1) ? FN_INSTR : FN_CYCLES);
		n++;
		if (err == -ENODEV)
			enodev++;
		else if (err)
			other++, last = err;
	}
	ASSERT_EQ(0, pthread_join(t, NULL));
	ksft_print_msg("%d requests over %d hotplug rounds: %d ENODEV, %d other errors\n",
		       n, pr.rounds, enodev, other);
	EXPECT_EQ(0, pr.err) TH_LOG("hotplug: %s", strerror(-pr.err));
	EXPECT_EQ(0, enodev) TH_LOG("DRIVER BUG: requests failed with ENODEV while a CPU went down");
	EXPECT_EQ(0, other) TH_LOG("last: %s", strerror(-last));
	/* The CPU that came back counts again. */
	ASSERT_EQ(0, pctr_set_fd(fd, 0, FN_INSTR));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 100));
	EXPECT_EQ(0, pctr_set_fd(fd, 0, 0));
	close(fd);
}

/* ---- 2. inheritance and exec -------------------------------------------- */

TEST_F(core, inherited_overflow_notification_is_enotsup)
{
	struct pmc_cpc_request req[2];
	cpc_set_t *ovf, *mixed, *plain;
	cpc_buf_t *buf;
	uint64_t v;
	cpc_t *cpc;
	__u64 raw;
	int fd;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	ovf = set1(cpc, "PAPI_tot_ins", PRESET, USR | CPC_OVF_NOTIFY_EMT);
	mixed = set1(cpc, "PAPI_tot_ins", 0, USR);
	plain = set1(cpc, "PAPI_tot_ins", 0, USR);
	ASSERT_NE(NULL, ovf);
	ASSERT_NE(NULL, mixed);
	ASSERT_NE(NULL, plain);
	ASSERT_EQ(1, cpc_set_add_request(cpc, mixed, "PAPI_br_ins", PRESET,
					 USR | CPC_OVF_NOTIFY_EMT, 0, NULL));
	buf = cpc_buf_create(cpc, plain);
	ASSERT_NE(NULL, buf);

	EXPECT_EQ(ENOTSUP, cpc_err_of(cpc_bind_curlwp(cpc, ovf, CPC_BIND_LWP_INHERIT)))
		TH_LOG("DRIVER BUG: an inherited overflow request was accepted");
	EXPECT_EQ(ENOTSUP, cpc_err_of(cpc_bind_curlwp(cpc, mixed, CPC_BIND_LWP_INHERIT)))
		TH_LOG("DRIVER BUG: an inherited set with one overflow request was accepted");
	/* Nothing is left bound to this thread; without inheritance it binds. */
	EXPECT_EQ(EINVAL, cpc_err_of(cpc_set_sample(cpc, plain, buf)));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, ovf, 0));
	ASSERT_EQ(0, cpc_unbind(cpc, ovf));
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, plain, CPC_BIND_LWP_INHERIT));
	ASSERT_EQ(0, inject_here(EV_INSTR, 7));
	ASSERT_EQ(0, sample(cpc, plain, buf, &v, 1));
	EXPECT_EQ(7ULL, v);
	EXPECT_EQ(0, cpc_close(cpc));

	/* The same through the ioctl. */
	fd = cpc_dev_open();
	ASSERT_LE(0, fd);
	cpc_req(&req[0], PERF_TYPE_RAW, EV_INSTR, USR, 0, 0);
	cpc_req(&req[1], PERF_TYPE_RAW, EV_BRANCH, USR | CPC_OVF_NOTIFY_EMT, PRESET, 1);
	EXPECT_EQ(-EOPNOTSUPP, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, CPC_BIND_LWP_INHERIT,
					    req, 2, NULL));
	EXPECT_EQ(-EINVAL, cpc_dev_sample(fd, 0, &raw, 1));
	close(fd);
}

/* Before the exec: how many counters of the child run on its CPU (a control). */
static int *carried_before_exec;

static int count_before_exec(void *arg)
{
	*carried_before_exec = counters_on(sched_getcpu(), EV_INSTR, 1);
	return 0;
}

TEST_F(core, inherited_counters_do_not_follow_exec)
{
	struct spinner s;
	cpc_set_t *set;
	cpc_buf_t *buf;
	char st[64];
	int status, after;
	uint64_t v;
	cpc_t *cpc;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	carried_before_exec = shared_zone(sizeof(int));
	ASSERT_NE(NULL, carried_before_exec);
	ASSERT_EQ(0, pin_to_cpu(0));
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = set1(cpc, "PAPI_tot_ins", 0, USR);
	ASSERT_NE(NULL, set);
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT));
	ASSERT_EQ(0, inject_here(EV_INSTR, 5));

	/* A child inherits the counters, then execs an image that spins on CPU 1. */
	ASSERT_EQ(0, spinner_start(&s, 1, count_before_exec, NULL));
	ASSERT_EQ(0, read_byte_within(s.ready, 10000)) TH_LOG("the exec'd image never ran");
	EXPECT_LT(0, *carried_before_exec)
		TH_LOG("the forked child had no counter before its exec (inheritance broken?)");
	ASSERT_EQ(0, inject_task(1, s.pid, EV_INSTR, 1000, 0, 0x401234));
	after = counters_on(1, EV_INSTR, 20);
	status = spinner_end(&s);

	EXPECT_EQ(0, after)
		TH_LOG("DRIVER BUG: the exec'd image still carries %d inherited counter(s)", after);
	EXPECT_EQ(0, status) TH_LOG("child: %s", status_str(status, st, sizeof(st)));
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(5ULL, v);
	EXPECT_EQ(0, cpc_close(cpc));
	munmap(carried_before_exec, sizeof(int));
}

TEST_F(core, overflow_binding_does_not_signal_a_child_that_execs)
{
	struct spinner s;
	cpc_set_t *set;
	char st[64];
	cpc_t *cpc;
	int status;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, sigrec_setup());
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = set1(cpc, "PAPI_tot_ins", UINT64_MAX - 99, USR | CPC_OVF_NOTIFY_EMT);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));

	/* The child (and its new image) has no counters and gets no SIGEMT. */
	ASSERT_EQ(0, spinner_start(&s, 1, NULL, NULL));
	ASSERT_EQ(0, read_byte_within(s.ready, 10000)) TH_LOG("the exec'd image never ran");
	ASSERT_EQ(0, inject_task(1, s.pid, EV_INSTR, 1000, 0, 0x401234));
	sleep_ms(100);
	status = spinner_end(&s);
	EXPECT_EQ(0, status) TH_LOG("DRIVER BUG? child: %s (SIGEMT is %d)",
				     status_str(status, st, sizeof(st)), SIGEMT);
	EXPECT_EQ(0, sigrec.n);

	/* The binder's own overflow still signals the binder (a control). */
	ASSERT_EQ(0, inject_ip(0, EV_INSTR, 100, 0, 0x405000));
	EXPECT_EQ(1, sigrec_wait(1));
	EXPECT_EQ(gettid(), sigrec.tid[0]);
	EXPECT_EQ((void *)0x405000, sigrec.addr[0]);
	EXPECT_EQ(0, cpc_close(cpc));
}

/* Before the exec: bind CURLWP on a descriptor the exec keeps open, count 10. */
static int bind_and_keep_fd(void *arg)
{
	struct pmc_cpc_request r;
	__u64 v = 0;
	int fd = open(PMC_CPC_PATH, O_RDWR);	/* no O_CLOEXEC */

	if (fd < 0)
		return -1;
	cpc_req(&r, PERF_TYPE_RAW, EV_INSTR, USR, 0, 0);
	if (cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, &r, 1, NULL))
		return -2;
	if (inject_here(EV_INSTR, 10) || cpc_dev_sample(fd, 0, &v, 1))
		return -3;
	if (v != 10)
		return -4;
	return counters_on(sched_getcpu(), EV_INSTR, 1) > 0 ? 0 : -5;
}

TEST_F(core, execve_stops_the_callers_own_binding)
{
	struct spinner s;
	int status, after;
	char st[64];

	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, spinner_start(&s, 1, bind_and_keep_fd, NULL));
	if (read_byte_within(s.ready, 10000)) {
		status = spinner_end(&s);
		ASSERT_TRUE(false) TH_LOG("the child failed before its exec: %s",
					  status_str(status, st, sizeof(st)));
	}
	ASSERT_EQ(0, inject_task(1, s.pid, EV_INSTR, 1000, 0, 0x401234));
	after = counters_on(1, EV_INSTR, 20);
	status = spinner_end(&s);
	EXPECT_EQ(0, after)
		TH_LOG("DRIVER BUG: the thread's binding still counts after its execve (%d counter(s) on its CPU)",
		       after);
	EXPECT_EQ(0, status) TH_LOG("child: %s", status_str(status, st, sizeof(st)));
}

/*
 * Before the exec: bind this CPU with an overflow request 100 events from
 * overflowing, on a descriptor the exec keeps open.
 */
static int bind_cpu_overflow_and_keep_fd(void *arg)
{
	struct pmc_cpc_bind b = { .cpu = sched_getcpu() };
	struct pmc_cpc_request r;
	int fd = open(PMC_CPC_PATH, O_RDWR);	/* no O_CLOEXEC */

	if (fd < 0)
		return -1;
	cpc_req(&r, PERF_TYPE_RAW, EV_INSTR, USR | CPC_OVF_NOTIFY_EMT, UINT64_MAX - 99, 0);
	return cpc_dev_bind(fd, PMC_CPC_BIND_CPU, 0, &r, 1, &b) ? -2 : 0;
}

static int nmi_overflows(void)
{
	int v;

	return read_file_int("/sys/kernel/debug/fakepmu/nmi_overflows", &v) ? -1 : v;
}

/*
 * A CPU binding's overflow signal is for the program that bound it: after
 * that program execs, with the descriptor still open, the new image is not
 * signalled (the signal's default action would kill it).
 */
TEST_F(core, cpu_binding_overflow_does_not_signal_the_binders_new_image)
{
	int status, before;
	struct spinner s;
	char st[64];

	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_EQ(0, pin_to_cpu(0));
	before = nmi_overflows();
	ASSERT_LE(0, before);
	ASSERT_EQ(0, spinner_start(&s, 1, bind_cpu_overflow_and_keep_fd, NULL));
	if (read_byte_within(s.ready, 10000)) {
		status = spinner_end(&s);
		ASSERT_TRUE(false) TH_LOG("the child failed before its exec: %s",
					  status_str(status, st, sizeof(st)));
	}
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 200, 0, 0x401234));
	sleep_ms(100);
	EXPECT_LT(before, nmi_overflows()) TH_LOG("no overflow happened: the test proves nothing");
	status = spinner_end(&s);
	EXPECT_EQ(0, status) TH_LOG("DRIVER BUG: the binder's new image got the overflow signal: %s",
				     status_str(status, st, sizeof(st)));
}

/* Before the exec: say so, then wait (spinning on this CPU) for the go. */
static int spin_until_go(void *arg)
{
	int *fds = arg;		/* [0]: write "spinning", [1]: read "go" */
	struct pollfd p = { .fd = fds[1], .events = POLLIN };
	long long end = now_ms() + 20000;

	if (write_byte(fds[0]))
		return -1;
	while (now_ms() < end)
		if (poll(&p, 1, 0) == 1)
			return 0;
	return -2;
}

TEST_F(core, execve_stops_a_pctx_binding_of_the_thread)
{
	int pre[2], go[2], fds[2];
	struct pmc_cpc_request r;
	struct pmc_cpc_bind b;
	struct spinner s;
	char st[64];
	int fd, status, err;
	__u64 v;

	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, pipe(pre));
	ASSERT_EQ(0, pipe(go));
	fds[0] = pre[1];
	fds[1] = go[0];
	ASSERT_EQ(0, spinner_start(&s, 1, spin_until_go, fds));
	close(pre[1]);
	close(go[0]);
	ASSERT_EQ(0, read_byte_within(pre[0], 10000));

	/* Bound from here while it spins on CPU 1 before its exec: it counts. */
	fd = cpc_dev_open();
	ASSERT_LE(0, fd);
	cpc_req(&r, PERF_TYPE_RAW, EV_INSTR, USR, 0, 0);
	memset(&b, 0, sizeof(b));
	b.pid = s.pid;
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_PCTX, 0, &r, 1, &b));
	ASSERT_EQ(0, inject_task(1, s.pid, EV_INSTR, 100, 0, 0x401000));
	ASSERT_EQ(0, cpc_dev_sample(fd, b.id, &v, 1));
	EXPECT_EQ(100ULL, v);

	/* After its execve, the image it runs is not counted. */
	ASSERT_EQ(0, write_byte(go[1]));
	ASSERT_EQ(0, read_byte_within(s.ready, 10000)) TH_LOG("the exec'd image never ran");
	ASSERT_EQ(0, inject_task(1, s.pid, EV_INSTR, 1000, 0, 0x401234));
	err = cpc_dev_sample(fd, b.id, &v, 1);
	if (err)
		TH_LOG("sampling after the exec: %s (accepted: the binding ended)",
		       strerror(-err));
	else
		EXPECT_EQ(100ULL, v)
			TH_LOG("DRIVER BUG: the counters of the thread followed it through execve");
	status = spinner_end(&s);
	EXPECT_EQ(0, status) TH_LOG("child: %s", status_str(status, st, sizeof(st)));
	close(pre[0]);
	close(go[1]);
	close(fd);
}

/* ---- 3. two threads overflow at once ------------------------------------- */

struct ovf_thread {
	cpc_t *cpc;		/* NULL: a handle of its own */
	int cpu;
	pid_t tid;
	volatile int bound, stop;
	int err;
};

static void *ovf_thread_fn(void *arg)
{
	struct ovf_thread *t = arg;
	cpc_t *cpc = t->cpc ? t->cpc : open_cpc();
	cpc_set_t *set = cpc ? set1(cpc, "PAPI_tot_ins", PRESET,
				    USR | CPC_OVF_NOTIFY_EMT) : NULL;
	long long end = now_ms() + 10000;
	int me = -1;

	t->tid = gettid();
	t->err = !set ? -1 : pin_to_cpu(t->cpu) ? errno :
		 cpc_err_of(cpc_bind_curlwp(cpc, set, 0));
	t->bound = 1;
	/* Spin on its CPU until its signal came and the test says stop. */
	while (!t->stop && now_ms() < end)
		me = sched_getcpu();
	if (!t->err && me != t->cpu)
		t->err = -2;
	if (set)
		cpc_unbind(cpc, set);
	if (!t->cpc && cpc)
		cpc_close(cpc);
	return NULL;
}

static void two_threads_overflow(struct __test_metadata *_metadata, bool own_handles)
{
	static const unsigned long long ip[2] = { 0x401111, 0x402222 };
	struct ovf_thread t[2];
	pthread_t th[2];
	cpc_t *cpc = NULL;
	int i, j, n;

	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, sigrec_setup());
	if (!own_handles) {
		cpc = open_cpc();
		ASSERT_NE(NULL, cpc);
	}
	for (i = 0; i < 2; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].cpc = cpc;
		t[i].cpu = 1 + i;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, ovf_thread_fn, &t[i]));
	}
	for (i = 0; i < 2; i++) {
		long long end = now_ms() + 5000;

		while (!t[i].bound && now_ms() < end)
			sleep_ms(1);
	}
	sleep_ms(5);	/* both spinning */
	EXPECT_EQ(0, inject_task(1, t[0].tid, EV_INSTR, 1000, 0, ip[0]));
	EXPECT_EQ(0, inject_task(2, t[1].tid, EV_INSTR, 1000, 0, ip[1]));
	n = sigrec_wait(2);
	for (i = 0; i < 2; i++)
		t[i].stop = 1;
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_join(th[i], NULL));
	ASSERT_EQ(0, t[0].err) TH_LOG("thread on CPU 1: %d", t[0].err);
	ASSERT_EQ(0, t[1].err) TH_LOG("thread on CPU 2: %d", t[1].err);

	EXPECT_EQ(2, n) TH_LOG("DRIVER BUG: %d overflow signals for two overflows", n);
	for (i = 0; i < 2; i++) {
		int got = 0;

		for (j = 0; j < n && j < SIGREC_MAX; j++) {
			if (sigrec.tid[j] != t[i].tid)
				continue;
			got++;
			EXPECT_EQ(SIGEMT, sigrec.signo[j]);
			EXPECT_EQ(EMT_CPCOVF, sigrec.code[j]);
			EXPECT_EQ((void *)(uintptr_t)ip[i], sigrec.addr[j])
				TH_LOG("DRIVER BUG: thread on CPU %d got si_addr %p", t[i].cpu,
				       sigrec.addr[j]);
		}
		EXPECT_EQ(1, got) TH_LOG("DRIVER BUG: the thread on CPU %d got %d signals",
					 t[i].cpu, got);
	}
	if (cpc)
		EXPECT_EQ(0, cpc_close(cpc));
}

TEST_F(core, two_threads_overflow_at_once_one_handle)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	two_threads_overflow(_metadata, false);
}

TEST_F(core, two_threads_overflow_at_once_own_handles)
{
	NEED_FAKEPMU();
	NEED_CPUS(3);
	two_threads_overflow(_metadata, true);
}

/* ---- 4. CPU sets across hotplug ---------------------------------------- */

TEST_F(core, cpu_binding_counts_again_after_its_cpu_comes_back)
{
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint64_t v;
	cpc_t *cpc;

	NEED_FAKEPMU();
	NEED_HOTPLUG();
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = set1(cpc, "PAPI_tot_ins", 0, USR);
	ASSERT_NE(NULL, set);
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_cpu(cpc, HOTPLUG_CPU, set, 0));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 100));
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(100ULL, v);

	ASSERT_EQ(0, pin_to_cpu(0));
	self->offlined = HOTPLUG_CPU;
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 0));
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	ASSERT_EQ(0, pin_to_cpu(HOTPLUG_CPU));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 100));
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(200ULL, v)
		TH_LOG("DRIVER BUG: the CPU set went stale when CPU %d went offline", HOTPLUG_CPU);
	EXPECT_EQ(0, cpc_unbind(cpc, set));
	EXPECT_EQ(0, cpc_close(cpc));
}

/*
 * A CPU binding whose events cannot be made again when its CPU comes back
 * reads EIO, never the count of before as if it counted: after the CPU's
 * return, and after a restart that cannot make them either (a start used
 * to clear the failure of every slot, event or none).  Once they can be
 * made, a restart counts again from the preset.
 */
TEST_F(core, cpu_binding_that_cannot_count_again_reads_eio_until_it_can)
{
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint64_t v;
	cpc_t *cpc;

	NEED_FAKEPMU();
	NEED_HOTPLUG();
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = set1(cpc, "PAPI_tot_ins", 0, USR);
	ASSERT_NE(NULL, set);
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_cpu(cpc, HOTPLUG_CPU, set, 0));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 100));
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(100ULL, v);

	ASSERT_EQ(0, pin_to_cpu(0));
	self->offlined = HOTPLUG_CPU;
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 0));
	/* The next two events of the test PMU cannot be made. */
	ASSERT_EQ(0, write_file("/sys/kernel/debug/fakepmu/fail_inits", "2\n"));
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	ASSERT_EQ(0, pin_to_cpu(HOTPLUG_CPU));
	EXPECT_EQ(EIO, cpc_err_of(cpc_set_sample(cpc, set, buf)));
	EXPECT_EQ(0, cpc_set_restart(cpc, set));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 100));
	EXPECT_EQ(EIO, cpc_err_of(cpc_set_sample(cpc, set, buf)))
		TH_LOG("DRIVER BUG: a restart that could not make the CPU's events read a stale count");

	/* Events can be made again: a restart counts from the preset. */
	EXPECT_EQ(0, cpc_set_restart(cpc, set));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 50));
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(50ULL, v);
	EXPECT_EQ(0, cpc_unbind(cpc, set));
	EXPECT_EQ(0, cpc_close(cpc));
}

TEST_F(core, pctr_counts_again_after_its_cpu_comes_back)
{
	struct pctrst st;
	int fd;

	NEED_FAKEPMU();
	NEED_HOTPLUG();
	fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	self->pctr_used = true;
	ASSERT_EQ(0, pctr_set_fd(fd, 0, FN_INSTR));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 100));
	ASSERT_EQ(0, pin_to_cpu(0));
	self->offlined = HOTPLUG_CPU;
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 0));
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 100));
	ASSERT_EQ(0, pctr_read_on(fd, HOTPLUG_CPU, &st));
	EXPECT_EQ(200ULL, st.pctr_hwc[0]);
	EXPECT_EQ(0, pctr_set_fd(fd, 0, 0));
	close(fd);
}

/* ---- 5. presets and restarts ------------------------------------------------ */

TEST_F(core, overflow_request_with_a_long_period_restarts_with_a_short_one)
{
	static const uint64_t long_presets[] = { 0, 1ULL << 62, 1ULL << 63 };
	cpc_set_t *set;
	cpc_buf_t *buf;
	unsigned int i;
	uint64_t v;
	cpc_t *cpc;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	ASSERT_EQ(0, sigrec_setup());
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	/* Periods of 2^63 and more bind (they never end in practice). */
	for (i = 1; i < sizeof(long_presets) / sizeof(long_presets[0]); i++) {
		set = set1(cpc, "PAPI_tot_ins", long_presets[i], USR | CPC_OVF_NOTIFY_EMT);
		ASSERT_NE(NULL, set);
		EXPECT_EQ(0, cpc_bind_curlwp(cpc, set, 0)) TH_LOG("preset %#llx",
			(unsigned long long)long_presets[i]);
		EXPECT_EQ(0, cpc_unbind(cpc, set));
	}

	set = set1(cpc, "PAPI_tot_ins", 0, USR | CPC_OVF_NOTIFY_EMT);
	ASSERT_NE(NULL, set);
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));
	ASSERT_EQ(0, inject_here(EV_INSTR, 5));
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(5ULL, v);

	/* Now 1000 to go. */
	ASSERT_EQ(0, cpc_request_preset(cpc, 0, PRESET));
	EXPECT_EQ(0, cpc_err_of(cpc_set_restart(cpc, set)))
		TH_LOG("DRIVER BUG: restart with a short period after a long one");
	ASSERT_EQ(0, sample(cpc, set, buf, &v, 1));
	EXPECT_EQ(PRESET, v);
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 999, 0, 0x401000));
	EXPECT_EQ(0, sigrec.n);
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 1, 0, 0x401234));
	EXPECT_EQ(1, sigrec_wait(1)) TH_LOG("DRIVER BUG: no (or more than one) overflow signal");
	EXPECT_EQ((void *)0x401234, sigrec.addr[0]);
	EXPECT_EQ(0, cpc_close(cpc));
}

/* What the handler does at the n-th signal: new presets and a restart. */
static struct {
	cpc_t *cpc;
	cpc_set_t *set;
	bool restart;
	uint64_t preset[2];
	int err[SIGREC_MAX];
} hr;

static void restart_in_handler(int n)
{
	int err = 0;

	if (!hr.restart)
		return;
	if (cpc_request_preset(hr.cpc, 0, hr.preset[0]) ||
	    cpc_request_preset(hr.cpc, 1, hr.preset[1]) ||
	    cpc_set_restart(hr.cpc, hr.set))
		err = errno;
	hr.err[n] = err;
}

TEST_F(core, restart_resumes_from_the_presets_in_and_out_of_the_handler)
{
	cpc_buf_t *buf;
	uint64_t v[2];

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	ASSERT_EQ(0, sigrec_setup());
	memset(&hr, 0, sizeof(hr));
	hr.cpc = open_cpc();
	ASSERT_NE(NULL, hr.cpc);
	hr.set = set1(hr.cpc, "PAPI_tot_ins", PRESET, USR | CPC_OVF_NOTIFY_EMT);
	ASSERT_NE(NULL, hr.set);
	ASSERT_EQ(1, cpc_set_add_request(hr.cpc, hr.set, "PAPI_br_ins", 5, USR, 0, NULL));
	buf = cpc_buf_create(hr.cpc, hr.set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(hr.cpc, hr.set, 0));
	ASSERT_EQ(0, inject_here(EV_BRANCH, 3));

	/* Overflow; the handler restarts with 500 to go and 100. */
	hr.restart = true;
	hr.preset[0] = UINT64_MAX - 499;
	hr.preset[1] = 100;
	sigrec.action = restart_in_handler;
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 1000, 0, 0x401000));
	ASSERT_EQ(1, sigrec_wait(1));
	EXPECT_EQ(0, hr.err[0]) TH_LOG("restart in the handler: %s", strerror(hr.err[0]));
	ASSERT_EQ(0, sample(hr.cpc, hr.set, buf, v, 2));
	EXPECT_EQ(UINT64_MAX - 499, v[0]);
	EXPECT_EQ(100ULL, v[1]);
	ASSERT_EQ(0, inject_here(EV_INSTR, 10));
	ASSERT_EQ(0, inject_here(EV_BRANCH, 20));
	ASSERT_EQ(0, sample(hr.cpc, hr.set, buf, v, 2));
	EXPECT_EQ(UINT64_MAX - 489, v[0]);
	EXPECT_EQ(120ULL, v[1]);

	/* The next overflow after 490 more; restarted from normal code this time. */
	hr.restart = false;
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 490, 0, 0x402000));
	ASSERT_EQ(2, sigrec_wait(2));
	EXPECT_EQ((void *)0x402000, sigrec.addr[1]);
	ASSERT_EQ(0, sample(hr.cpc, hr.set, buf, v, 2));
	EXPECT_EQ(0ULL, v[0]);
	EXPECT_EQ(120ULL, v[1]);
	ASSERT_EQ(0, cpc_request_preset(hr.cpc, 0, UINT64_MAX - 199));
	ASSERT_EQ(0, cpc_request_preset(hr.cpc, 1, 7));
	ASSERT_EQ(0, cpc_set_restart(hr.cpc, hr.set));
	ASSERT_EQ(0, sample(hr.cpc, hr.set, buf, v, 2));
	EXPECT_EQ(UINT64_MAX - 199, v[0]);
	EXPECT_EQ(7ULL, v[1]);
	ASSERT_EQ(0, inject_here(EV_INSTR, 3));
	ASSERT_EQ(0, inject_here(EV_BRANCH, 4));
	ASSERT_EQ(0, sample(hr.cpc, hr.set, buf, v, 2));
	EXPECT_EQ(UINT64_MAX - 196, v[0]);
	EXPECT_EQ(11ULL, v[1]);
	/* And it overflows again after exactly 197 more. */
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 196, 0, 0x403000));
	EXPECT_EQ(2, sigrec.n);
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 1, 0, 0x404000));
	ASSERT_EQ(3, sigrec_wait(3));
	EXPECT_EQ((void *)0x404000, sigrec.addr[2]);
	sigrec.action = NULL;
	EXPECT_EQ(0, cpc_close(hr.cpc));
}

TEST_F(core, bind_whose_result_cannot_be_copied_back_leaves_no_binding)
{
	long page = sysconf(_SC_PAGESIZE);
	struct pmc_cpc_request *r;
	struct pmc_cpc_bind *b;
	char *mem;
	__u64 v;
	int fd, ret;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	mem = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	r = (struct pmc_cpc_request *)mem;
	b = (struct pmc_cpc_bind *)(mem + page);
	cpc_req(r, PERF_TYPE_RAW, EV_INSTR, USR, 0, 0);
	memset(b, 0, sizeof(*b));
	b->size = sizeof(*b);
	b->scope = PMC_CPC_BIND_CURLWP;
	b->nreqs = 1;
	b->reqs = (uintptr_t)r;
	b->signo = SIGEMT;
	b->si_code = EMT_CPCOVF;
	/* The kernel can read the structure but not write the result back. */
	ASSERT_EQ(0, mprotect(mem + page, page, PROT_READ));
	fd = cpc_dev_open();
	ASSERT_LE(0, fd);
	ret = ioctl(fd, PMC_CPC_BIND, b);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-EINVAL, cpc_dev_sample(fd, 0, &v, 1))
		TH_LOG("DRIVER BUG: a bind that failed with EFAULT left a binding behind");
	EXPECT_EQ(-EINVAL, cpc_dev_id_op(fd, PMC_CPC_RELE, 0));

	/* A new bind works. */
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, r, 1, NULL));
	ASSERT_EQ(0, inject_here(EV_INSTR, 12));
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, &v, 1));
	EXPECT_EQ(12ULL, v);
	close(fd);
	munmap(mem, 2 * page);
}

TEST_F(core, failed_rebind_keeps_the_previous_binding)
{
	struct pmc_cpc_request good, bad[2];
	struct pmc_cpc_bind out;
	__u64 v[2];
	int fd;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	fd = cpc_dev_open();
	ASSERT_LE(0, fd);
	cpc_req(&good, PERF_TYPE_RAW, EV_INSTR, USR, 0, 0);
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, &good, 1, NULL));
	ASSERT_EQ(0, inject_here(EV_INSTR, 10));
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, v, 1));
	EXPECT_EQ(10ULL, v[0]);

	/*
	 * The second request passes /dev/cpc's checks (a raw config is the
	 * PMU's business) and perf refuses it: the bind fails while programming.
	 */
	cpc_req(&bad[0], PERF_TYPE_RAW, EV_BRANCH, USR, 0, 0);
	cpc_req(&bad[1], TYPE_REFUSED, CONFIG_REFUSED, USR, 0, 1);
	memset(&out, 0, sizeof(out));
	EXPECT_EQ(-EINVAL, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, bad, 2, &out));
	EXPECT_EQ(CPC_INVALID_EVENT, out.subcode);

	EXPECT_EQ(0, cpc_dev_sample(fd, 0, v, 1))
		TH_LOG("DRIVER BUG: a failed rebind dropped the thread's binding");
	EXPECT_EQ(10ULL, v[0]);
	ASSERT_EQ(0, inject_here(EV_INSTR, 5));
	EXPECT_EQ(0, cpc_dev_sample(fd, 0, v, 1));
	EXPECT_EQ(15ULL, v[0]);
	close(fd);
}

/* Inherited descendants that switch on one CPU keep their own counts. */
#define PINGPONG	200

struct relay {
	cpc_t *cpc;
	cpc_set_t *set;
	int p12[2], p21[2];	/* C1 -> C2, C2 -> C1 */
	volatile int spinning, release;	/* 1: C1, 2: C2 */
	volatile pid_t tid[2];		/* C1's and C2's */
	int err[2];
	uint64_t v[2];
};

/* Spin (10 s at most) as thread `who` until released. */
static void relay_spin(struct relay *rl, int who)
{
	long long end = now_ms() + 10000;

	rl->tid[who - 1] = gettid();
	rl->spinning = who;
	while (rl->release != who && now_ms() < end)
		;
	rl->spinning = 0;
}

static int relay_sample(struct relay *rl, uint64_t *v)
{
	cpc_buf_t *buf = cpc_buf_create(rl->cpc, rl->set);

	return buf ? sample(rl->cpc, rl->set, buf, v, 1) : errno;
}

static void *c2_fn(void *arg)
{
	struct relay *rl = arg;
	int i;

	for (i = 0; i < PINGPONG; i++)
		if (read_byte_within(rl->p12[0], 10000) || write_byte(rl->p21[1]))
			goto fail;
	/* Its turn to spin (C1 waits on the pipe). */
	if (read_byte_within(rl->p12[0], 10000))
		goto fail;
	relay_spin(rl, 2);
	for (i = 0; i < PINGPONG + 1; i++)
		if (write_byte(rl->p21[1]) || read_byte_within(rl->p12[0], 10000))
			goto fail;
	rl->err[1] = relay_sample(rl, &rl->v[1]);
	write_byte(rl->p21[1]);
	return NULL;
fail:
	rl->err[1] = -1;
	return NULL;
}

static void *c1_fn(void *arg)
{
	struct relay *rl = arg;
	pthread_t c2;
	int i;

	if (pin_to_cpu(2) || pthread_create(&c2, NULL, c2_fn, rl)) {
		rl->err[0] = -1;
		return NULL;
	}
	/* C2 inherits this thread's pinning to CPU 2. */
	for (i = 0; i < PINGPONG; i++)
		if (write_byte(rl->p12[1]) || read_byte_within(rl->p21[0], 10000))
			goto fail;
	relay_spin(rl, 1);
	if (write_byte(rl->p12[1]))
		goto fail;
	for (i = 0; i < PINGPONG + 1; i++)
		if (read_byte_within(rl->p21[0], 10000) || write_byte(rl->p12[1]))
			goto fail;
	/* C2 sampled, then handed over once more. */
	if (read_byte_within(rl->p21[0], 10000))
		goto fail;
	rl->err[0] = relay_sample(rl, &rl->v[0]);
	pthread_join(c2, NULL);
	return NULL;
fail:
	rl->err[0] = -1;
	pthread_join(c2, NULL);
	return NULL;
}

static bool relay_is_spinning(void *arg)
{
	struct relay *rl = arg;

	return rl->spinning == rl->release + 1;
}

TEST_F(core, inherited_threads_switching_on_one_cpu_keep_their_own_counts)
{
	struct relay rl;
	cpc_buf_t *buf;
	pthread_t c1;
	uint64_t v;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_EQ(0, pin_to_cpu(0));
	memset(&rl, 0, sizeof(rl));
	ASSERT_EQ(0, pipe(rl.p12));
	ASSERT_EQ(0, pipe(rl.p21));
	rl.cpc = open_cpc();
	ASSERT_NE(NULL, rl.cpc);
	rl.set = set1(rl.cpc, "PAPI_tot_ins", 0, USR);
	ASSERT_NE(NULL, rl.set);
	buf = cpc_buf_create(rl.cpc, rl.set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(rl.cpc, rl.set, CPC_BIND_LWP_INHERIT));
	ASSERT_EQ(0, pthread_create(&c1, NULL, c1_fn, &rl));

	/* 1000 while C1 runs on CPU 2, 50 while C2 does. */
	rl.release = 0;
	EXPECT_TRUE(wait_until(relay_is_spinning, &rl) ||
		    wait_until(relay_is_spinning, &rl) ||
		    wait_until(relay_is_spinning, &rl));
	/* Only while that thread is the one on CPU 2. */
	EXPECT_EQ(0, inject_task(2, rl.tid[0], EV_INSTR, 1000, 0, 0x401000));
	rl.release = 1;
	EXPECT_TRUE(wait_until(relay_is_spinning, &rl) ||
		    wait_until(relay_is_spinning, &rl));
	EXPECT_EQ(0, inject_task(2, rl.tid[1], EV_INSTR, 50, 0, 0x402000));
	rl.release = 2;
	ASSERT_EQ(0, pthread_join(c1, NULL));

	EXPECT_EQ(0, rl.err[0]);
	EXPECT_EQ(0, rl.err[1]);
	EXPECT_EQ(1000ULL, rl.v[0])
		TH_LOG("DRIVER BUG: C1 reads %llu, C2 %llu: counts moved between the threads",
		       (unsigned long long)rl.v[0], (unsigned long long)rl.v[1]);
	EXPECT_EQ(50ULL, rl.v[1]);
	/* The binder counted nothing of it. */
	ASSERT_EQ(0, sample(rl.cpc, rl.set, buf, &v, 1));
	EXPECT_EQ(0ULL, v);
	EXPECT_EQ(0, cpc_close(rl.cpc));
	close(rl.p12[0]);
	close(rl.p12[1]);
	close(rl.p21[0]);
	close(rl.p21[1]);
}

/* ---- 6. a set freezes as a whole at an overflow ----------------------- */

#define FREEZE_ROUNDS	10

TEST_F(core, overflow_freezes_the_whole_set_at_once)
{
	int round, late = 0, first_late = -1;
	uint64_t v[2], late_v = 0;
	cpc_set_t *set;
	cpc_buf_t *buf;
	cpc_t *cpc;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	ASSERT_EQ(0, sigrec_setup());
	cpc = open_cpc();
	ASSERT_NE(NULL, cpc);
	set = set1(cpc, "PAPI_tot_ins", PRESET, USR | CPC_OVF_NOTIFY_EMT);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(1, cpc_set_add_request(cpc, set, "PAPI_br_ins", 0, USR, 0, NULL));
	buf = cpc_buf_create(cpc, set);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0));

	for (round = 0; round < FREEZE_ROUNDS; round++) {
		if (round)
			ASSERT_EQ(0, cpc_set_restart(cpc, set));
		ASSERT_EQ(0, inject_here(EV_BRANCH, 30));
		/* The overflow, and at once 500 events that must not count. */
		ASSERT_EQ(0, inject_ip(1, EV_INSTR, 1000, 0, 0x401000));
		ASSERT_EQ(0, inject_here(EV_BRANCH, 500));
		ASSERT_EQ(round + 1, sigrec_wait(round + 1));
		ASSERT_EQ(0, sample(cpc, set, buf, v, 2));
		EXPECT_EQ(0ULL, v[0]);
		if (v[1] != 30) {
			if (!late++) {
				first_late = round;
				late_v = v[1];
			}
		}
	}
	EXPECT_EQ(0, late)
		TH_LOG("DRIVER BUG: in %d of %d rounds (first: round %d, %llu) counter 1 counted after the overflow that froze the set",
		       late, FREEZE_ROUNDS, first_late, (unsigned long long)late_v);
	EXPECT_EQ(0, cpc_close(cpc));
}

/* ---- 7. extensible structures --------------------------------------- */

#define TAIL	8

/* ioctl cmd on a structure of size bytes (its size field says usize), then a tail. */
static int ioctl_sized(int fd, unsigned long cmd, const void *st, size_t size,
		       __u32 usize, __u64 tail, void *out)
{
	char buf[256];
	int ret;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, st, size);
	memcpy(buf, &usize, sizeof(usize));
	memcpy(buf + size, &tail, sizeof(tail));
	ret = ioctl(fd, cmd, buf) < 0 ? -errno : 0;
	if (out)
		memcpy(out, buf, size);
	return ret;
}

TEST_F(core, ioctl_structures_are_extensible)
{
	struct pmc_cpc_info info, info_out;
	struct pmc_cpc_request r;
	struct pmc_cpc_bind b;
	struct pmc_cpc_sample s;
	struct pmc_cpc_preset p;
	__u64 v = ~0ULL;
	int fd;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	fd = cpc_dev_open();
	ASSERT_LE(0, fd);

	/* PMC_CPC_INFO */
	memset(&info, 0, sizeof(info));
	memset(&info_out, 0, sizeof(info_out));
	EXPECT_EQ(0, ioctl_sized(fd, PMC_CPC_INFO, &info, sizeof(info), sizeof(info) + TAIL,
				 0, &info_out)) TH_LOG("info, larger size, zero tail");
	EXPECT_EQ((__u32)PMC_CPC_ABI_VERSION, info_out.abi_version);
	EXPECT_LE(1U, info_out.npic);
	EXPECT_EQ(-E2BIG, ioctl_sized(fd, PMC_CPC_INFO, &info, sizeof(info),
				      sizeof(info) + TAIL, 1, NULL));
	EXPECT_EQ(-EINVAL, ioctl_sized(fd, PMC_CPC_INFO, &info, sizeof(info),
				       sizeof(info) - 4, 0, NULL));

	/* PMC_CPC_BIND */
	cpc_req(&r, PERF_TYPE_RAW, EV_INSTR, USR, 0, 0);
	memset(&b, 0, sizeof(b));
	b.scope = PMC_CPC_BIND_CURLWP;
	b.nreqs = 1;
	b.reqs = (uintptr_t)&r;
	b.signo = SIGEMT;
	b.si_code = EMT_CPCOVF;
	EXPECT_EQ(-E2BIG, ioctl_sized(fd, PMC_CPC_BIND, &b, sizeof(b), sizeof(b) + TAIL,
				      0xff, NULL));
	EXPECT_EQ(-EINVAL, ioctl_sized(fd, PMC_CPC_BIND, &b, sizeof(b), sizeof(b) - 8, 0, NULL));
	EXPECT_EQ(-EINVAL, cpc_dev_sample(fd, 0, &v, 1)) TH_LOG("a refused bind left a binding");
	EXPECT_EQ(0, ioctl_sized(fd, PMC_CPC_BIND, &b, sizeof(b), sizeof(b) + TAIL, 0, NULL))
		TH_LOG("bind, larger size, zero tail");
	ASSERT_EQ(0, inject_here(EV_INSTR, 21));

	/* PMC_CPC_SAMPLE */
	memset(&s, 0, sizeof(s));
	s.nvals = 1;
	s.vals = (uintptr_t)&v;
	v = ~0ULL;
	EXPECT_EQ(0, ioctl_sized(fd, PMC_CPC_SAMPLE, &s, sizeof(s), sizeof(s) + TAIL, 0, NULL))
		TH_LOG("sample, larger size, zero tail");
	EXPECT_EQ(21ULL, v);
	EXPECT_EQ(-E2BIG, ioctl_sized(fd, PMC_CPC_SAMPLE, &s, sizeof(s), sizeof(s) + TAIL,
				      1ULL << 63, NULL));
	EXPECT_EQ(-EINVAL, ioctl_sized(fd, PMC_CPC_SAMPLE, &s, sizeof(s), sizeof(s) - 8, 0, NULL));

	/* PMC_CPC_PRESET, seen at the next restart */
	memset(&p, 0, sizeof(p));
	p.index = 0;
	p.preset = 1000;
	EXPECT_EQ(0, ioctl_sized(fd, PMC_CPC_PRESET, &p, sizeof(p), sizeof(p) + TAIL, 0, NULL))
		TH_LOG("preset, larger size, zero tail");
	p.preset = 2000;
	EXPECT_EQ(-E2BIG, ioctl_sized(fd, PMC_CPC_PRESET, &p, sizeof(p), sizeof(p) + TAIL,
				      2, NULL));
	EXPECT_EQ(-EINVAL, ioctl_sized(fd, PMC_CPC_PRESET, &p, sizeof(p), sizeof(p) - 8, 0, NULL));
	EXPECT_EQ(0, cpc_dev_id_op(fd, PMC_CPC_RESTART, 0));
	EXPECT_EQ(0, cpc_dev_sample(fd, 0, &v, 1));
	EXPECT_EQ(1000ULL, v) TH_LOG("only the accepted preset applies");
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--spin"))
		return spin_main(argc, argv);
	return test_harness_run(argc, argv);
}
