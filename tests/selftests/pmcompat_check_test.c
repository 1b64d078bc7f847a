// SPDX-License-Identifier: GPL-2.0
/*
 * pmcompat-check(1) against the test PMU: with --inject its workload is an
 * injection of a known number of events, so every row must run and pass
 * with a difference of 0, the legacy count equal to the expected one, and
 * the overflow rows exactly 0 signals below the period and 1 past it, on
 * both sides.  Also: the test PMU's absence is a usage error with --inject,
 * and the environment variable selects the same mode.
 */
#include <sys/wait.h>
#include "pmc_test_util.h"

#include "kselftest_harness.h"

#define PMCHECK		"/usr/bin/pmcompat-check"
/* pctr 3, perfmon 3, cpc 3 + 2 overflow rows, pfcntr 3. */
#define ROWS		14
#define HYBRID_SKIP	"SKIP: overflow requests are refused on a hybrid CPU"

/* The test PMU loaded as a hybrid CPU (HYBRID_TESTS: cpu_core, cpu_atom)? */
static int hybrid(void)
{
	const char *p = getenv("PMCOMPAT_FAKEPMU_PARAMS");

	return p && strstr(p, "hybrid=1");
}

/* The rows that pass: on a hybrid CPU, all but the overflow row (ENOTSUP). */
static int rows_expected(void)
{
	return hybrid() ? ROWS - 2 : ROWS;
}

/* Only the SKIP the CPU explains: none, or the hybrid overflow row. */
static int skips_ok(const char *out)
{
	const char *p = strstr(out, "SKIP:");

	if (!hybrid())
		return !p;
	return p && !strncmp(p, HYBRID_SKIP, strlen(HYBRID_SKIP)) && !strstr(p + 1, "SKIP:");
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
		if (strstr(buf, "SKIP:"))
			continue;	/* skips_ok() judges those */
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
 * last CPU (on a hybrid CPU one of cpu_atom's, whose perf events take that
 * PMU's extended type).
 */
TEST(inject_from_the_environment_on_another_cpu)
{
	char args[64], want[64];
	int rc, last = count_online_cpus() - 1;

	if (!have_fakepmu())
		SKIP(return, NO_FAKEPMU);
	if (last < 1)
		SKIP(return, "one CPU");
	snprintf(args, sizeof(args), "-c %d -n 7 -p 3", last);
	rc = run_check(out, sizeof(out), "PMCOMPAT_CHECK_INJECT=1", args);
	ASSERT_EQ(0, rc) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "%sCPU %d, injected", hybrid() ? "cpu_atom, " : "", last);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_EQ(rows_expected(), good_rows(_metadata, out)) TH_LOG("%s", out);
	EXPECT_TRUE(skips_ok(out)) TH_LOG("%s", out);
}

TEST(usage_errors)
{
	EXPECT_EQ(2, run_check(out, sizeof(out), NULL, "-p 1"));
	EXPECT_EQ(2, run_check(out, sizeof(out), NULL, "extra"));
	EXPECT_EQ(0, run_check(out, sizeof(out), NULL, "-h"));
}

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
