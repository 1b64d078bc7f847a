// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat-check(1) against the test PMU: with --inject its workload is an
 * injection of a known number of events, so every row must run and pass
 * with a difference of 0, the legacy count equal to the expected one, and
 * the overflow rows exactly 0 signals below the period and 1 past it, on
 * both sides.  Also: the test PMU's absence is a usage error with --inject,
 * the environment variable selects the same mode, and counter contention
 * (another perf user, the watchdog) is named in the rows it refuses.
 */
#include <sys/wait.h>
#if defined(__x86_64__) || defined(__i386__)
#include <machine/pctr.h>
#endif
#include "pmc_test_util.h"

#include "kselftest_harness.h"

#define PMCHECK		"/usr/bin/pmcompat-check"
/* pctr 3, perfmon 3, cpc 3 + 2 overflow rows, pfcntr 3. */
#define ROWS		14
#define HYBRID_SKIP	"SKIP: overflow requests are refused on a hybrid CPU"

/*
 * The test PMU loaded as a hybrid CPU (HYBRID_TESTS: cpu_core, cpu_atom, and
 * with hybrid=3 cpu_lowpower on the last CPU)?  0, or its hybrid= value.
 */
static int hybrid(void)
{
	const char *p = getenv("PMCOMPAT_FAKEPMU_PARAMS");

	p = p ? strstr(p, "hybrid=") : NULL;
	return p ? atoi(p + strlen("hybrid=")) : 0;
}

/* The rows that pass: on a hybrid CPU, all but the overflow row (ENOTSUP). */
/*
 * Whether the test PMU refuses sampling periods under the overflow row's
 * period (the "silicon" runs: limit_period, inst_limit_period): that row
 * then skips, naming the minimum period.
 */
static int under_min_period(unsigned int period)
{
	int lp = 0, ilp = 0;

	read_file_int("/sys/module/fakepmu/parameters/limit_period", &lp);
	read_file_int("/sys/module/fakepmu/parameters/inst_limit_period", &ilp);
	return (unsigned int)lp > period || (unsigned int)ilp > period;
}

#define MIN_PERIOD_SKIP	"SKIP: perf refuses this sampling period (EINVAL): it is under the PMU's minimum period"
static unsigned int check_period = 1000;

static int rows_expected(void)
{
	return hybrid() || under_min_period(check_period) ? ROWS - 2 : ROWS;
}

/*
 * Only the SKIP the CPU explains: none, the hybrid overflow row, or the
 * overflow row under a minimum period.
 */
static int skips_ok(const char *out)
{
	const char *p = strstr(out, "SKIP:");

	if (!hybrid() && !under_min_period(check_period))
		return !p;
	if (!p)
		return 0;
	if (hybrid())
		return !strncmp(p, HYBRID_SKIP, strlen(HYBRID_SKIP)) && !strstr(p + 1, "SKIP:");
	return !strncmp(p, MIN_PERIOD_SKIP, strlen(MIN_PERIOD_SKIP)) && !strstr(p + 1, "SKIP:");
}

/* Run pmcompat-check with args into out; its exit status, or -1. */
static int run_check(char *out, size_t size, const char *env, const char *args)
{
	char cmd[256];
	FILE *f;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s %s 2>&1", env ? env : "", PMCHECK, args);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(out, 1, size - 1, f);
	out[n] = 0;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Check every table row of out but the skipped ones: PASS, legacy ==
 * expected == perf, diff 0.  Returns the number of rows that do, -1 at the
 * first that does not (logged).
 */
static int good_rows(struct __test_metadata *_metadata, const char *out)
{
	const char *line = out;
	int rows = 0;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char buf[512], copy[512], *tok[16], *save;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		int n = 0;

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = 0;
		line = nl ? nl + 1 : NULL;
		if (strncmp(buf, "pctr ", 5) && strncmp(buf, "perfmon ", 8) &&
		    strncmp(buf, "cpc ", 4) && strncmp(buf, "pfcntr ", 7))
			continue;
		if (strstr(buf, "SKIP"))
			continue;	/* skips_ok() judges those ("[n] SKIP: why") */
		/* The event may be two words: take the columns from the right. */
		strcpy(copy, buf);
		for (tok[n] = strtok_r(copy, " ", &save); tok[n] && n < 15;
		     tok[++n] = strtok_r(NULL, " ", &save))
			;
		/* ... expected legacy perf diff result */
		if (n < 7 || strcmp(tok[n - 1], "PASS") || strcmp(tok[n - 2], "0") ||
		    strcmp(tok[n - 5], tok[n - 4]) || strcmp(tok[n - 4], tok[n - 3])) {
			TH_LOG("bad row: %s", buf);
			return -1;
		}
		rows++;
	}
	return rows;
}

static char out[16384];

TEST(every_front_end_agrees_with_perf_exactly)
{
	int rc;

	if (!have_fakepmu())
		SKIP(return, NO_FAKEPMU);
	rc = run_check(out, sizeof(out), NULL, "--inject -n 12345 -p 1000");
	TH_LOG("%s", out);
	ASSERT_EQ(0, rc);
	EXPECT_EQ(rows_expected(), good_rows(_metadata, out));
	EXPECT_TRUE(skips_ok(out));
	EXPECT_NE(NULL, strstr(out, hybrid() ? "summary: 12 PASS, 0 FAIL, 1 SKIP" :
			       "summary: 14 PASS, 0 FAIL, 0 SKIP"));
}

/*
 * The environment variable the lanes may set instead of the option; -c: the
 * last CPU (on a hybrid CPU one of cpu_atom's, or with hybrid=3
 * cpu_lowpower's, whose perf events take that PMU's extended type).
 */
TEST(inject_from_the_environment_on_another_cpu)
{
	char args[64], want[64];
	int rc, last = count_online_cpus() - 1;

	if (!have_fakepmu())
		SKIP(return, NO_FAKEPMU);
	if (last < 1)
		SKIP(return, "one CPU");
	check_period = 3;
	snprintf(args, sizeof(args), "-c %d -n 7 -p 3", last);
	rc = run_check(out, sizeof(out), "PMCOMPAT_CHECK_INJECT=1", args);
	ASSERT_EQ(0, rc) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "%sCPU %d, injected",
		 hybrid() == 3 ? "cpu_lowpower, " : hybrid() ? "cpu_atom, " : "", last);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_EQ(rows_expected(), good_rows(_metadata, out)) TH_LOG("%s", out);
	EXPECT_TRUE(skips_ok(out)) TH_LOG("%s", out);
}

TEST(usage_errors)
{
	EXPECT_EQ(2, run_check(out, sizeof(out), NULL, "-p 1"));
	EXPECT_EQ(2, run_check(out, sizeof(out), NULL, "extra"));
	EXPECT_EQ(0, run_check(out, sizeof(out), NULL, "-h"));
	/* A bad number is named, not read as 0 (issue 34). */
	EXPECT_EQ(2, run_check(out, sizeof(out), NULL, "-c abc"));
	EXPECT_NE(NULL, strstr(out, "pmcompat-check: -c abc: not a number")) TH_LOG("%s", out);
	EXPECT_EQ(0, run_check(out, sizeof(out), NULL, "--version"));
	EXPECT_EQ(0, strncmp(out, "pmcompat-check (pmcompat) ", 26)) TH_LOG("%s", out);
}

/*
 * The preamble (is this machine ready?), a table within 100 columns, and
 * each SKIP reason printed once however many rows it explains (issue 34).
 */
TEST(preamble_narrow_table_reasons_once)
{
	const char *line, *p;
	char why[300];
	int n;

	run_check(out, sizeof(out), NULL, have_fakepmu() ? "--inject -n 1000 -p 100" : "-n 1000 -p 1000");
	TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "  module:      pmcompat "));
	EXPECT_NE(NULL, strstr(out, " loaded; these tools are "));
	EXPECT_NE(NULL, strstr(out, "  nodes:       "));
	EXPECT_NE(NULL, strstr(out, "/dev/cpc      root:"));
	EXPECT_NE(NULL, strstr(out, "  you:         root: may do everything"));
	EXPECT_NE(NULL, strstr(out, "  perf PMU:    "));
	if (have_fakepmu())
		EXPECT_NE(NULL, strstr(out, "the test PMU (tests/fakepmu), not hardware"));
	EXPECT_NE(NULL, strstr(out, "  secure boot: "));
	EXPECT_NE(NULL, strstr(out, "  lockdown:    "));
	for (line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t len = strcspn(line, "\n");

		if (!strncmp(line, "pctr ", 5) || !strncmp(line, "perfmon ", 8) ||
		    !strncmp(line, "cpc ", 4) || !strncmp(line, "pfcntr ", 7) ||
		    !strncmp(line, "front-end ", 10))
			EXPECT_GE(100, (int)len) TH_LOG("%.*s", (int)len, line);
	}
	/* Every reason once. */
	for (p = out; (p = strstr(p, "] SKIP: ")); p++) {
		snprintf(why, sizeof(why), "%.*s", (int)strcspn(p + 8, "\n"), p + 8);
		for (n = 0, line = out; (line = strstr(line, why)); line++)
			n++;
		EXPECT_EQ(1, n) TH_LOG("reason printed %d times: %s", n, why);
	}
}

#if defined(__x86_64__) || defined(__i386__)
/*
 * The pctr row reprograms counter 0; root's own setup of it is given back
 * afterwards (its count restarts), not left cleared.
 */
TEST(pctr_row_gives_counter_0_back)
{
	unsigned int fn = 0x004100c0;	/* instructions retired, user, enabled */
	struct pctrst st;
	int fd;

	if (!have_fakepmu())
		SKIP(return, NO_FAKEPMU);
	ASSERT_EQ(0, pctr_set(0, fn));
	run_check(out, sizeof(out), NULL, "--inject -n 1000 -p 100");
	fd = open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(0, ioctl(fd, PCIOCRD, &st));
	close(fd);
	EXPECT_EQ(fn, st.pctr_fn[0]) TH_LOG("%s", out);
	EXPECT_EQ(0, pctr_set(0, 0));
}
#endif

/*
 * Without the test PMU, --inject cannot inject: a usage error (2), never a
 * table of passes.  The test PMU is unloaded for this (pmcompat holds no
 * event once the check has exited) and loaded again with the lane's
 * parameters.
 */
TEST(inject_without_the_test_pmu_is_an_error)
{
	if (!have_fakepmu())
		SKIP(return, NO_FAKEPMU);
	if (kmod_remove("fakepmu"))
		SKIP(return, "the test PMU cannot be unloaded here");
	EXPECT_EQ(2, run_check(out, sizeof(out), NULL, "--inject -n 10"));
	EXPECT_NE(NULL, strstr(out, "the test PMU is not loaded")) TH_LOG("%s", out);
	ASSERT_EQ(0, fakepmu_reload());
}

/*
 * Counter contention.  Another perf user's pinned CPU-wide events that only
 * a general-purpose counter takes (x86: branches; arm64: SW_INCR, which
 * never goes on the cycle counter) take every one of the check's CPU that
 * is left: their number, or -1 when perf refuses the first (no PMU).
 * hog_release() closes them.
 */
#ifdef PMC_TEST_X86
#define HOG_TYPE	PERF_TYPE_HARDWARE
#define HOG_CONFIG	PERF_COUNT_HW_BRANCH_INSTRUCTIONS
#else
#define HOG_TYPE	PERF_TYPE_RAW
#define HOG_CONFIG	0	/* SW_INCR */
#endif
static int hogs[64], nhogs;

static int hog_counters(int cpu)
{
	int n;

	nhogs = 0;
	for (n = 0; n < 64; n++) {
		struct perf_event_attr a = { .size = sizeof(a), .type = HOG_TYPE,
					     .config = HOG_CONFIG, .pinned = 1, .exclude_kernel = 1 };
		unsigned long long v;
		int fd = sys_perf_event_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0)
			return n ? n : -1;
		if (read(fd, &v, sizeof(v)) != sizeof(v)) {
			close(fd);	/* in error: that was one too many */
			return n;
		}
		hogs[nhogs++] = fd;
	}
	return n;
}

static void hog_release(void)
{
	while (nhogs > 0)
		close(hogs[--nhogs]);
}

/* Rows whose reason is counter contention and contains want (or NULL). */
static int contention_rows(const char *out, const char *want)
{
	const char *p = out;
	int n = 0;

	while ((p = strstr(p, "SKIP: "))) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char buf[512];

		snprintf(buf, sizeof(buf), "%.*s", (int)(len < 511 ? len : 511), p);
		if (strstr(buf, "counter contention") && (!want || strstr(buf, want)))
			n++;
		p += len;
	}
	return n;
}

/* The check's arguments: --inject with the test PMU, else the real loop. */
static const char *check_mode(void)
{
	return have_fakepmu() ? "--inject" : "";
}

/*
 * With every general-purpose counter of its CPU taken by another perf user,
 * pmcompat-check says so: its header counts none free, and the rows whose
 * counter could not be had (x86: at least branches, which take only a
 * general-purpose counter; arm64: instructions) are skipped naming counter
 * contention, never failed.  Then, the
 * counters given back, no row names contention.  Runs with the test PMU
 * (injected) or a real PMU (the loop).
 */
TEST(counter_contention_is_named)
{
	int cpu = count_online_cpus() - 1, rc, n;
	char args[96], want[96];

	if (access("/dev/cpc", F_OK))
		SKIP(return, "pmcompat is not loaded");
	n = hog_counters(cpu);
	if (n < 0)
		SKIP(return, "perf cannot count CPU %d here (no PMU)", cpu);
	snprintf(args, sizeof(args), "%s -c %d -n 100000 -p 1000", check_mode(), cpu);
	rc = run_check(out, sizeof(out), NULL, args);
	hog_release();
	TH_LOG("%d counters taken; %s", n, out);
	EXPECT_NE(1, rc);
	EXPECT_EQ(NULL, strstr(out, "FAIL\n"));
	snprintf(want, sizeof(want), "0 general-purpose counters free on CPU %d", cpu);
	EXPECT_NE(NULL, strstr(out, want));
	snprintf(want, sizeof(want), "counter contention (0 general-purpose free on CPU %d)", cpu);
	EXPECT_LE(1, contention_rows(out, want));
	EXPECT_LE(1, contention_rows(out, "other perf users"));

	rc = run_check(out, sizeof(out), NULL, args);
	EXPECT_EQ(0, contention_rows(out, NULL)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "%d general-purpose counter%s free on CPU %d", n,
		 n == 1 ? "" : "s", cpu);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
}

#define FAKE_WATCHDOG	"/sys/module/fakepmu/parameters/watchdog"

/* Load the test PMU again with the lane's parameters and extra. */
static int fakepmu_reload_with(const char *extra)
{
	const char *lane = getenv("PMCOMPAT_FAKEPMU_PARAMS");
	char params[256];
	int err = kmod_remove("fakepmu");

	if (err)
		return err;
	snprintf(params, sizeof(params), "%s %s", lane ? lane : "", extra);
	return kmod_insert(FAKEPMU_KO, params);
}

static int cpu_is_amd(void)
{
#ifdef PMC_TEST_X86
	unsigned int a, b, c, d;

	__cpuid(0, a, b, c, d);
	return (b == 0x68747541 && d == 0x69746e65) || b == 0x6f677948;	/* Auth.., Hygo.. */
#else
	return 0;
#endif
}

/*
 * The test PMU's watchdog (fakepmu watchdog=1: a pinned kernel cycles
 * event on every CPU, as the NMI watchdog's) is named in the header, takes
 * a general-purpose counter on the AMD model (a fixed one on the Intel
 * model), and is named in the rows refused once another perf user has
 * taken the general-purpose counters left.
 */
TEST(watchdog_is_named)
{
	int cpu = count_online_cpus() - 1, rc, n, gp;
	char args[96], want[96];

	if (!have_fakepmu())
		SKIP(return, NO_FAKEPMU);
	if (access(FAKE_WATCHDOG, F_OK))
		SKIP(return, "the test PMU has no watchdog parameter (%s)", FAKE_WATCHDOG);
	ASSERT_EQ(0, fakepmu_reload_with("watchdog=1"));
	gp = fakepmu_gp_counters();
	/* A hybrid test PMU's last CPU is an E-core's (cpu_atom, cpu_lowpower). */
	if (hybrid())
		ASSERT_EQ(0, read_file_int("/sys/module/fakepmu/parameters/atom_ncounters", &gp));
	snprintf(args, sizeof(args), "--inject -c %d -n 100000 -p 1000", cpu);
	rc = run_check(out, sizeof(out), NULL, args);
	TH_LOG("%s", out);
	EXPECT_EQ(0, rc);
	EXPECT_NE(NULL, strstr(out, "the test PMU's watchdog (fakepmu watchdog=1)"));
	snprintf(want, sizeof(want), "%d general-purpose counters free on CPU %d",
		 gp - cpu_is_amd(), cpu);
	EXPECT_NE(NULL, strstr(out, want));

	n = hog_counters(cpu);
	EXPECT_EQ(gp - cpu_is_amd(), n);
	rc = run_check(out, sizeof(out), NULL, args);
	hog_release();
	TH_LOG("%s", out);
	EXPECT_NE(1, rc);
	EXPECT_EQ(NULL, strstr(out, "FAIL\n"));
	EXPECT_LE(1, contention_rows(out, "the test PMU's watchdog holds one on every CPU"));
	ASSERT_EQ(0, fakepmu_reload_with(""));
}

/*
 * Against a real PMU driver (the arm64 lane: Linux's ARMv8 PMUv3 driver
 * under QEMU), without --inject: every row that runs passes, and a row is
 * skipped only because the PMU does not implement its event (QEMU: no
 * branch event, and instructions only under -icount).  The pctr and
 * perfmon rows are absent on arm64.
 */
#define REAL_SKIP_OK	"SKIP: the PMU does not implement this event"

TEST(real_pmu_every_row_passes)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_CPU_CYCLES, .exclude_kernel = 1 };
	const char *p;
	int rc, fd, passes = 0;

	if (have_fakepmu() || access("/sys/module/fakepmu", F_OK) == 0)
		SKIP(return, "the test PMU is loaded: this test counts with the real PMU driver");
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd < 0)
		SKIP(return, "no hardware PMU: perf has no cycles event here");
	close(fd);
	/*
	 * A PMU without an instructions event is QEMU's arm64 one without
	 * -icount, where cycles are host time: two counts of one loop differ
	 * by more than any tolerance (the lane runs this under -icount).
	 */
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd < 0)
		SKIP(return, "no instructions event (QEMU without -icount): cycles are host time there");
	close(fd);
	if (access("/dev/cpc", F_OK) && access("/dev/pfcntr", F_OK))
		SKIP(return, "pmcompat is not loaded");
	rc = run_check(out, sizeof(out), NULL, "-n 1000000 -p 100000");
	TH_LOG("%s", out);
	EXPECT_EQ(0, rc);
	EXPECT_EQ(NULL, strstr(out, "FAIL\n"));
	for (p = out; (p = strstr(p, "PASS\n")); p++)
		passes++;
	/* cycles through cpc and pfcntr at least; instructions too where they exist */
	EXPECT_LE(2, passes);
	for (p = out; (p = strstr(p, "SKIP: ")); p++) {
		char why[96];

		snprintf(why, sizeof(why), "%.80s", p);
		EXPECT_EQ(0, strncmp(why, REAL_SKIP_OK, strlen(REAL_SKIP_OK)))
			TH_LOG("a skip for another reason: %s", why);
	}
#if defined(__aarch64__)
	EXPECT_EQ(NULL, strstr(out, "\npctr "));
	EXPECT_EQ(NULL, strstr(out, "\nperfmon "));
#endif
}

TEST_HARNESS_MAIN
