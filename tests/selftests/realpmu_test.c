// SPDX-License-Identifier: GPL-2.0
/*
 * The legacy front-ends against a real PMU driver (on arm64: Linux's ARMv8
 * PMUv3 driver under QEMU), with nothing injected.
 *
 * Exact: a loop of exactly 2N instructions counted through a libcpc thread
 * binding, a CPU binding, a libpctx binding of a captured child, and
 * /dev/pfcntr opened PCNTOPENONE, PCNTOPENEACH and PCNTOPENALL (EV5
 * "issues", user mode) equals perf_event_open's own count of the same loop:
 * the counts of N and 2N iterations are subtracted, so each path's fixed
 * entry cost cancels, and the difference must be 2N on both sides.
 *
 * Overflow: a libcpc CPC_OVF_NOTIFY_EMT request on cycles delivers exactly
 * K SIGEMTs over K periods of the loop, each at a pc inside the loop (the
 * cycle counter overflows exactly under QEMU; user cycles are user
 * instructions under -icount shift=0).  uprofile names the hot function of
 * a program (pfm(7) PC profiling on real cycle samples).
 *
 * Every test skips, with the reason, when the test PMU is loaded or there
 * is no hardware PMU; the exact ones when there is no instructions event
 * (QEMU without -icount) or more than one CPU online.
 */
#include <libcpc.h>
#include <libpctx.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <sys/pfcntr.h>
#include "pmc_test_util.h"
#include "kselftest_harness.h"
#include "realpmu_util.h"

#define N		1000000UL	/* the loop's iterations: 2N instructions */
#define USR		CPC_COUNT_USER

/*
 * Tries of each pair of counts (N and 2N iterations).  A timer interrupt
 * that lands in the loop can, under QEMU, count one instruction twice (an
 * instruction restarted after the exception): perf's own counts show it as
 * readily as the legacy ones, one pair in tens.  A pair counts when one of
 * these tries gives exactly 2N.
 */
#define TRIES		3

/* perf's difference between 2N and N iterations (2N when exact). */
static uint64_t perf_diff(void)
{
	uint64_t a, b;
	int i;

	for (i = 0; i < TRIES; i++) {
		a = rp_perf_loop(PERF_COUNT_HW_INSTRUCTIONS, N);
		b = rp_perf_loop(PERF_COUNT_HW_INSTRUCTIONS, 2 * N);
		if (b - a == 2 * N)
			break;
	}
	return b - a;
}

static char cpc_msg[256];

static void cpc_quiet(const char *fn, int subcode, const char *fmt, va_list ap)
{
	vsnprintf(cpc_msg, sizeof(cpc_msg), fmt, ap);
}

/* libcpc, or a skip when /dev/cpc is absent (the module not loaded). */
static cpc_t *rp_cpc_open(struct __test_metadata *_metadata)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	if (cpc)
		cpc_seterrhndlr(cpc, cpc_quiet);
	return cpc;
}

#define OPEN_CPC(cpc) do {						\
	(cpc) = rp_cpc_open(_metadata);					\
	if (!(cpc) && (errno == ENOENT || errno == ENXIO || errno == ENODEV)) \
		SKIP(return, "/dev/cpc absent: pmcompat is not loaded");	\
	ASSERT_NE(NULL, (cpc)) TH_LOG("cpc_open: %s", strerror(errno));	\
} while (0)

/*
 * The count of rp_loop(n) through a libcpc binding of PAPI_tot_ins: this
 * thread (cpu < 0) or CPU cpu (the thread runs there).  0 and *err on error.
 */
static uint64_t cpc_loop(cpc_t *cpc, int cpu, unsigned long n, int *err)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *b0 = NULL, *b1 = NULL;
	uint64_t v0 = 0, v1 = 0;

	*err = 0;
	if (!set || cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0, USR, 0, NULL) < 0 ||
	    !(b0 = cpc_buf_create(cpc, set)) || !(b1 = cpc_buf_create(cpc, set)) ||
	    (cpu < 0 ? cpc_bind_curlwp(cpc, set, 0) : cpc_bind_cpu(cpc, cpu, set, 0)) < 0) {
		*err = errno ? errno : EIO;
		goto out;
	}
	if (cpc_set_sample(cpc, set, b0) < 0) {
		*err = errno;
		goto unbind;
	}
	rp_loop(n);
	if (cpc_set_sample(cpc, set, b1) < 0)
		*err = errno;
	cpc_buf_get(cpc, b0, 0, &v0);
	cpc_buf_get(cpc, b1, 0, &v1);
unbind:
	cpc_unbind(cpc, set);
out:
	if (b0)
		cpc_buf_destroy(cpc, b0);
	if (b1)
		cpc_buf_destroy(cpc, b1);
	if (set)
		cpc_set_destroy(cpc, set);
	return *err ? 0 : v1 - v0;
}

TEST(perf_counts_the_loop_exactly)
{
	uint64_t a, b;

	NEED_REAL_PMU();
	NEED_EXACT_INSNS();
	a = rp_perf_loop(PERF_COUNT_HW_INSTRUCTIONS, N);
	b = rp_perf_loop(PERF_COUNT_HW_INSTRUCTIONS, 2 * N);
	TH_LOG("perf: %llu for N, %llu for 2N; %s, so within %llu", (unsigned long long)a,
	       (unsigned long long)b, rp_qemu() ? "QEMU" : "real hardware",
	       (unsigned long long)rp_tol(2 * N));
	EXPECT_CLOSE(2 * N, b - a);
	EXPECT_LE(2 * N - rp_tol(2 * N), a);
	EXPECT_GT(2 * N + 1000 + rp_tol(2 * N), a);
}

TEST(libcpc_thread_binding_counts_exactly)
{
	uint64_t a, b, p;
	cpc_t *cpc;
	int err, i;

	NEED_REAL_PMU();
	NEED_EXACT_INSNS();
	OPEN_CPC(cpc);
	for (i = 0; i < TRIES; i++) {
		a = cpc_loop(cpc, -1, N, &err);
		ASSERT_EQ(0, err) TH_LOG("%s %s", strerror(err), cpc_msg);
		b = cpc_loop(cpc, -1, 2 * N, &err);
		ASSERT_EQ(0, err) TH_LOG("%s %s", strerror(err), cpc_msg);
		if (b - a == 2 * N)
			break;
	}
	p = perf_diff();
	TH_LOG("libcpc (try %d): %llu, %llu; perf's difference %llu", i + 1, (unsigned long long)a,
	       (unsigned long long)b, (unsigned long long)p);
	EXPECT_NE(0ULL, a) TH_LOG("silent zero");
	EXPECT_CLOSE(2 * N, p);
	EXPECT_CLOSE(p, b - a);
	cpc_close(cpc);
}

TEST(libcpc_cpu_binding_counts_exactly)
{
	uint64_t a, b, p;
	cpc_t *cpc;
	int err, cpu, i;

	NEED_REAL_PMU();
	NEED_EXACT_INSNS();
	cpu = sched_getcpu();
	ASSERT_LE(0, cpu);
	ASSERT_EQ(0, pin_to_cpu(cpu));
	OPEN_CPC(cpc);
	for (i = 0; i < TRIES; i++) {
		a = cpc_loop(cpc, cpu, N, &err);
		ASSERT_EQ(0, err) TH_LOG("%s %s", strerror(err), cpc_msg);
		b = cpc_loop(cpc, cpu, 2 * N, &err);
		ASSERT_EQ(0, err) TH_LOG("%s %s", strerror(err), cpc_msg);
		if (b - a == 2 * N)
			break;
	}
	p = perf_diff();
	TH_LOG("cpc_bind_cpu (try %d): %llu, %llu; perf's difference %llu", i + 1, (unsigned long long)a,
	       (unsigned long long)b, (unsigned long long)p);
	EXPECT_NE(0ULL, a) TH_LOG("silent zero");
	EXPECT_CLOSE(2 * N, p);
	EXPECT_CLOSE(p, b - a);
	cpc_close(cpc);
}

/* ---- libpctx: a captured child that runs the loop ---------------------- */

static struct {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
	int cmd;			/* the child's command pipe */
	int bind_err, sample_err, fini;
	uint64_t count;
} px;

static int px_init(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	if (cpc_bind_pctx(px.cpc, pctx, lwpid, px.set, 0))
		px.bind_err = errno ? errno : EIO;
	/* Bound: now the child may run its loop. */
	if (write(px.cmd, "g", 1) != 1)
		px.bind_err = errno;
	return 0;
}

static int px_fini(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	px.fini++;
	if (cpc_set_sample(px.cpc, px.set, px.buf))
		px.sample_err = errno ? errno : EIO;
	else
		cpc_buf_get(px.cpc, px.buf, 0, &px.count);
	return 0;
}

static void px_quiet(const char *fn, const char *fmt, va_list ap)
{
}

/* The count of a child's rp_loop(n), bound through libpctx; 0 on error. */
static uint64_t pctx_loop(cpc_t *cpc, unsigned long n, int *err)
{
	int cmd[2];
	pctx_t *pctx;
	pid_t pid;
	int st;

	*err = 0;
	memset(&px, 0, sizeof(px));
	px.cpc = cpc;
	px.set = cpc_set_create(cpc);
	if (!px.set || cpc_set_add_request(cpc, px.set, "PAPI_tot_ins", 0, USR, 0, NULL) < 0 ||
	    !(px.buf = cpc_buf_create(cpc, px.set)) || pipe(cmd)) {
		*err = errno;
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		char c;

		close(cmd[1]);
		if (read(cmd[0], &c, 1) != 1)
			_exit(2);
		rp_loop(n);
		_exit(0);
	}
	close(cmd[0]);
	px.cmd = cmd[1];
	pctx = pctx_capture(pid, NULL, 0, px_quiet);
	if (!pctx) {
		*err = errno;
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 0;
	}
	if (pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, px_init, PCTX_FINI_LWP_EVENT, px_fini,
			    PCTX_NULL_EVENT) || pctx_run(pctx, 0, 0, NULL)) {
		*err = errno ? errno : EIO;
	}
	pctx_release(pctx);
	close(cmd[1]);
	waitpid(pid, &st, 0);
	cpc_buf_destroy(cpc, px.buf);
	cpc_set_destroy(cpc, px.set);
	if (!*err)
		*err = px.bind_err ? px.bind_err : px.sample_err;
	if (!*err && px.fini != 1)
		*err = ECHILD;
	return *err ? 0 : px.count;
}

TEST(libpctx_binding_counts_a_child_exactly)
{
	uint64_t a, b, p;
	cpc_t *cpc;
	int err, i;

	NEED_REAL_PMU();
	NEED_EXACT_INSNS();
	/* The child's fixed cost must not vary with the stack's placement. */
	personality(personality(0xffffffff) | ADDR_NO_RANDOMIZE);
	OPEN_CPC(cpc);
	for (i = 0; i < TRIES; i++) {
		a = pctx_loop(cpc, N, &err);
		ASSERT_EQ(0, err) TH_LOG("%s %s", strerror(err), cpc_msg);
		b = pctx_loop(cpc, 2 * N, &err);
		ASSERT_EQ(0, err) TH_LOG("%s %s", strerror(err), cpc_msg);
		if (b - a == 2 * N)
			break;
	}
	p = perf_diff();
	TH_LOG("libpctx (try %d): %llu, %llu; perf's difference %llu", i + 1, (unsigned long long)a,
	       (unsigned long long)b, (unsigned long long)p);
	EXPECT_NE(0ULL, a) TH_LOG("silent zero");
	EXPECT_CLOSE(2 * N, p);
	EXPECT_CLOSE(p, b - a);
	cpc_close(cpc);
}

/* ---- /dev/pfcntr: EV5 issues, user mode, this process ------------------ */

#define RP_MAXCPU	256

static uint64_t pf_img5(unsigned int sel)
{
	union pmctrs_ev5 u;

	u.pmctrs_ev5_long = 0;
	u.pmctrs_ev5_select = sel;
	u.pmctrs_ev5_cpu = PMCTRS_ALL_CPUS;
	return u.pmctrs_ev5_long;
}

/*
 * The count of rp_loop(n) on /dev/pfcntr opened in mode (ONE: the CPU this
 * thread is bound to; EACH: this CPU's entry; ALL: the sum): EV5 counter 0
 * counting issues (instructions), user mode, this process only.
 */
static uint64_t pf_loop(int mode, unsigned long n, int *err)
{
	static struct pfcntrs_ev5 f[RP_MAXCPU];
	struct pfcntrs_ev5 *p = f;
	long ctx = PF5_CTXT_THIS_PROC | PF5_CTXT_NO_KERNEL, mux = PF5_MUX0_ISSUES;
	uint64_t img = pf_img5(PF5_SEL_COUNTER_0);
	int fd = pf_open(mode), cpu = sched_getcpu();

	*err = 0;
	if (fd < 0) {
		*err = -fd;
		return 0;
	}
	memset(f, 0, sizeof(f));
	if (ioctl(fd, PCNT5CTXTS, &ctx) || ioctl(fd, PCNT5MUX, &mux) ||
	    ioctl(fd, PCNT5RESTART, &img)) {
		*err = errno;
		close(fd);
		return 0;
	}
	rp_loop(n);
	if (ioctl(fd, PCNT5DISABLE, &img) || ioctl(fd, PCNT5READCNTRS, &p))
		*err = errno;
	close(fd);
	if (*err)
		return 0;
	return mode == PCNTOPENEACH ? f[cpu].pf_cntr0 : f[0].pf_cntr0;
}

static void pf_exact(struct __test_metadata *_metadata, int mode, const char *name)
{
	uint64_t a, b, p;
	int err, i;

	for (i = 0; i < TRIES; i++) {
		a = pf_loop(mode, N, &err);
		if (err == ENOENT || err == ENXIO || err == ENODEV)
			SKIP(return, "/dev/pfcntr absent: pmcompat is not loaded");
		ASSERT_EQ(0, err) TH_LOG("%s: %s", name, strerror(err));
		b = pf_loop(mode, 2 * N, &err);
		ASSERT_EQ(0, err) TH_LOG("%s: %s", name, strerror(err));
		if (b - a == 2 * N)
			break;
	}
	p = perf_diff();
	TH_LOG("pfcntr %s (try %d): %llu, %llu; perf's difference %llu", name, i + 1, (unsigned long long)a,
	       (unsigned long long)b, (unsigned long long)p);
	EXPECT_NE(0ULL, a) TH_LOG("silent zero");
	EXPECT_CLOSE(2 * N, p);
	EXPECT_CLOSE(p, b - a);
}

TEST(pfcntr_one_counts_exactly)
{
	NEED_REAL_PMU();
	NEED_EXACT_INSNS();
	ASSERT_EQ(0, pin_to_cpu(sched_getcpu()));
	pf_exact(_metadata, PCNTOPENONE, "PCNTOPENONE");
}

TEST(pfcntr_each_counts_exactly)
{
	NEED_REAL_PMU();
	NEED_EXACT_INSNS();
	ASSERT_GE(RP_MAXCPU, sysconf(_SC_NPROCESSORS_CONF));
	ASSERT_EQ(0, pin_to_cpu(sched_getcpu()));
	pf_exact(_metadata, PCNTOPENEACH, "PCNTOPENEACH");
}

TEST(pfcntr_all_counts_exactly)
{
	NEED_REAL_PMU();
	NEED_EXACT_INSNS();
	pf_exact(_metadata, PCNTOPENALL, "PCNTOPENALL");
}

/* ---- overflow: CPC_OVF_NOTIFY_EMT on the cycle counter ----------------- */

#define OVF_PERIOD	200000UL
#define OVF_K		10
#define OVF_MAX		64

static struct {
	cpc_t *cpc;
	cpc_set_t *set;
	volatile sig_atomic_t n;
	int restart_err, code[OVF_MAX];
	void *pc[OVF_MAX];
} ovf;

static void ovf_handler(int sig, siginfo_t *si, void *uc)
{
	int n = ovf.n, saved = errno;

	if (n < OVF_MAX) {
		ovf.pc[n] = si->si_addr;
		ovf.code[n] = si->si_code;
	}
	if (cpc_set_restart(ovf.cpc, ovf.set) && !ovf.restart_err)
		ovf.restart_err = errno;
	ovf.n = n + 1;
	errno = saved;
}

TEST(libcpc_overflow_on_cycles_is_exact)
{
	struct sigaction sa;
	cpc_t *cpc;
	int i, in_loop = 0;

	NEED_REAL_PMU();
	if (!rp_cycles_are_insns())
		SKIP(return, "user cycles equal user instructions only under QEMU's "
		     "-icount shift=0 with one CPU: the expected overflow count is not known");
	OPEN_CPC(cpc);
	memset(&ovf, 0, sizeof(ovf));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = ovf_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	ASSERT_EQ(0, sigaction(SIGEMT, &sa, NULL));
	ovf.cpc = cpc;
	ovf.set = cpc_set_create(cpc);
	ASSERT_NE(NULL, ovf.set);
	ASSERT_EQ(0, cpc_set_add_request(cpc, ovf.set, "PAPI_tot_cyc", UINT64_MAX - OVF_PERIOD + 1,
					 USR | CPC_OVF_NOTIFY_EMT, 0, NULL)) TH_LOG("%s", cpc_msg);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, ovf.set, 0)) TH_LOG("%s %s", strerror(errno), cpc_msg);
	/* K periods of loop; the handlers' own cycles stay below one period. */
	rp_loop(OVF_K * OVF_PERIOD / 2);
	cpc_unbind(cpc, ovf.set);
	signal(SIGEMT, SIG_DFL);
	TH_LOG("%d overflows at period %lu over %d periods of loop", (int)ovf.n, OVF_PERIOD,
	       OVF_K);
	EXPECT_EQ(OVF_K, ovf.n);
	EXPECT_EQ(0, ovf.restart_err);
	for (i = 0; i < ovf.n && i < OVF_MAX; i++) {
		in_loop += rp_in_loop(ovf.pc[i]);
		EXPECT_EQ(EMT_CPCOVF, ovf.code[i]);
	}
	EXPECT_EQ(ovf.n < OVF_MAX ? ovf.n : OVF_MAX, in_loop)
		TH_LOG("samples outside the loop [%p, %p)", (void *)rp_loop, (void *)rp_loop_end);
	cpc_set_destroy(cpc, ovf.set);
	cpc_close(cpc);
}

/* ---- pfm(7) PC profiling of the loop on cycles ------------------------- */

#define PROF_K		8
#define PROF_RATE	65536UL		/* EV5 counter 0's low rate */

/*
 * /dev/pfcntr PC profiling (pfm(7)): EV5 counter 0 counting cycles in user
 * mode, a sample every 65536, the loop's text as the one range (stride 0:
 * one bucket).  K periods of loop give exactly K ticks, all K in the loop's
 * bucket (the cycle counter overflows exactly; user cycles are user
 * instructions under -icount shift=0).
 */
TEST(pfcntr_pc_profile_of_cycles_is_exact)
{
	struct pfcntrs_ev5 c[1], *cp = c;
	long items = PFM_COUNTERS | PFM_PROFILING, size = 0;
	long ctx = PF5_CTXT_THIS_PROC | PF5_CTXT_NO_KERNEL, freq = PF5_C0_INT_EVERY_65536;
	long mux = PF5_MUX0_CYCLES;
	uint64_t img = pf_img5(PF5_SEL_COUNTER_0);
	addr_range_t r;
	uint32_t bucket = 0;
	int fd;

	NEED_REAL_PMU();
	if (!rp_cycles_are_insns())
		SKIP(return, "user cycles equal user instructions only under QEMU's "
		     "-icount shift=0 with one CPU: the expected sample count is not known");
	ASSERT_EQ(0, pin_to_cpu(sched_getcpu()));
	fd = pf_open(PCNTOPENONE);
	if (fd == -ENOENT || fd == -ENXIO || fd == -ENODEV)
		SKIP(return, "/dev/pfcntr absent: pmcompat is not loaded");
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	memset(&r, 0, sizeof(r));
	r.start = (unsigned long)rp_loop;
	r.end = (unsigned long)rp_loop_end;
	r.stride = 0;
	ASSERT_EQ(0, ioctl(fd, PCNTSETITEMS, &items)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PCNTSETURANGE, &r)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PCNT5CTXTS, &ctx)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PCNT5FREQ, &freq)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PCNT5MUX, &mux)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PCNTCLEARCNT)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PCNT5RESTART, &img)) TH_LOG("%s", strerror(errno));
	rp_loop(PROF_K * PROF_RATE / 2);
	ASSERT_EQ(0, ioctl(fd, PCNT5DISABLE, &img)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PCNTRDISABLE)) TH_LOG("%s", strerror(errno));
	memset(c, 0, sizeof(c));
	ASSERT_EQ(0, ioctl(fd, PCNT5GETCNT, &cp)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PCNTGETRSIZE, &size)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(4, size);
	ASSERT_EQ(4, pread(fd, &bucket, sizeof(bucket), 0)) TH_LOG("%s", strerror(errno));
	TH_LOG("%llu ticks, %u samples in the loop, over %d periods of %lu cycles",
	       (unsigned long long)c[0].pf_cntr0, bucket, PROF_K, PROF_RATE);
	EXPECT_EQ((unsigned long long)PROF_K, (unsigned long long)c[0].pf_cntr0);
	EXPECT_EQ((uint32_t)PROF_K, bucket);
	close(fd);
}

/* ---- uprofile: the hot function of a program ---------------------------- */

#define UPROFILE	"/usr/bin/uprofile"
#define HOT		pmc_test_file("uprofile-hot-example")
#define HOT_ADDRS	"/tmp/realpmu-hot.addrs"

/*
 * uprofile(1) profiles uprofile-hot-example (hot_a runs three times as
 * long as hot_b, hot_lib in its library less) with real cycle samples
 * (pfm(7) PC profiling): the first function of its profile is hot_a.
 */
TEST(uprofile_names_the_hot_function)
{
	char out[8192], cpu[16], *row, *name;
	int pipefd[2], hotpid = 0, i, st;
	size_t n = 0;
	ssize_t r;
	pid_t pid;
	FILE *f;

	NEED_REAL_PMU();
	if (access(UPROFILE, X_OK) || access(HOT, X_OK))
		SKIP(return, "%s or %.900s is not installed", UPROFILE, HOT);
	if (access("/dev/pfcntr", F_OK))
		SKIP(return, "/dev/pfcntr absent: pmcompat is not loaded");
	unlink(HOT_ADDRS);
	snprintf(cpu, sizeof(cpu), "%d", count_online_cpus() - 1);
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execl(UPROFILE, "uprofile", HOT, cpu, HOT_ADDRS, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	/* The program writes its pid once it runs; let it run for 2 s. */
	for (i = 0; i < 200 && !hotpid; i++) {
		usleep(50000);
		f = fopen(HOT_ADDRS, "re");
		if (f) {
			char line[128];

			while (fgets(line, sizeof(line), f))
				sscanf(line, "pid %d", &hotpid);
			fclose(f);
		}
	}
	ASSERT_LT(0, hotpid) TH_LOG("the profiled program did not start");
	sleep(2);
	kill(hotpid, SIGUSR1);
	while (n < sizeof(out) - 1 && (r = read(pipefd[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += r;
	out[n] = 0;
	close(pipefd[0]);
	waitpid(pid, &st, 0);
	TH_LOG("%s", out);
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	/*
	 * The first named row after the header's "samples" line is hot_a (not
	 * "(outside the profiled text)": the library's hot_lib, which without
	 * -icount takes more of QEMU's time than its instructions' share).
	 */
	row = strstr(out, "samples\n");
	ASSERT_NE(NULL, row);
	row += 8;
	name = NULL;
	while (*row && !name) {
		char *nl = row + strcspn(row, "\n");
		int last = !*nl;

		*nl = 0;
		name = strrchr(row, ' ');
		if (name && (!strncmp(name + 1, "text)", 5) ||
			     strstr(row, "(outside") || strstr(row, "(unknown")))
			name = NULL;
		row = last ? nl : nl + 1;
	}
	ASSERT_NE(NULL, name);
	EXPECT_STREQ("hot_a", name + 1);
}

TEST_HARNESS_MAIN
