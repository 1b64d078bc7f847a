// SPDX-License-Identifier: GPL-2.0
/*
 * perfmon(8), FreeBSD's perfmon(4) example program, against /dev/perfmon:
 * the exact output for workloads whose -c command injects a known count
 * into the test PMU each loop, the event/unit/flag options as perf sees
 * them, and the messages when the device is busy, not accessible, or
 * PMIOSETUP is refused.  After every run the writer slot is free again
 * and no counter is left set up.
 */
#include <grp.h>
#include <limits.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <machine/pctr.h>
#include <machine/perfmon.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define PERFMON_TOOL	"/usr/bin/perfmon"
#define PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"
#define STATE_COPY	"/tmp/perfmon_tool_test-state"
#define COUNTER_FILE	"/tmp/perfmon_tool_test-n"

/* -c commands: one injection per loop into the test PMU. */
#define INJECT(args)	"echo '" args "' > " FAKEPMU_INJECT

#define NEED_TOOL() do {						\
	if (access(PERFMON_TOOL, X_OK))					\
		SKIP(return, "%s not installed: perfmon(8) output not tested", \
		     PERFMON_TOOL);					\
	if (!have_fakepmu())						\
		SKIP(return, NO_FAKEPMU); \
} while (0)

/*
 * /dev/perfmon opens only where perf has a CPU PMU (ENXIO otherwise: no
 * test PMU and no hardware PMU, as in a VM without a virtual PMU).
 */
static int perfmon_no_pmu(void)
{
	int fd = open(_PATH_PERFMON, O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd < 0 && errno == ENXIO;
}

#define NEED_PERFMON_PMU() do {						\
	if (perfmon_no_pmu())						\
		SKIP(return, "no PMU at all: %s is ENXIO", _PATH_PERFMON); \
} while (0)

/* Run perfmon with args (NULL-terminated, without argv[0]) on CPU 0. */
static int run_perfmon(struct tool_run *r, enum tool_as who, const char *const *args)
{
	return run_tool(r, PERFMON_TOOL, "perfmon", args, 0, who, NULL);
}

#define PERFMON(r, who, ...) \
	run_perfmon(r, who, (const char *const []){ __VA_ARGS__, NULL })

/* The "N: count" lines, total and mean for every loop counting `each`. */
static void expect_lines(char *buf, size_t len, int loops, const long long *each)
{
	double total = 0;
	size_t pos = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < loops; i++) {
		pos += snprintf(buf + pos, len - pos, "%d: %lld\n", i + 1, each[i]);
		total += each[i];
	}
	snprintf(buf + pos, len - pos, "total: %f\nmean: %f\n", total, total / loops);
}

/* Create (or truncate) a file holding s; 0 or -errno. */
static int create_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fputs(s, f);
	return fclose(f) ? -errno : 0;
}

/*
 * Check a whole successful run: exit 0, nothing on stderr, exactly the
 * expected loop lines, and a clocks line with the driver's rate and a
 * TSC difference no larger than the one measured around the run.
 */
static void check_run(struct __test_metadata *_metadata, const struct tool_run *r,
		      int loops, const long long *each, unsigned long long span)
{
	char want[4096], tail[64];
	struct pmc_tstamp ts;
	long long clocks;
	size_t n;
	int rate, fd, got;

	EXPECT_EQ(0, r->status) TH_LOG("stderr: %s", r->err);
	EXPECT_STREQ("", r->err);
	expect_lines(want, sizeof(want), loops, each);
	n = strlen(want);
	EXPECT_EQ(0, strncmp(r->out, want, n))
		TH_LOG("output:\n%s\nwanted it to begin with:\n%s", r->out, want);
	if (strlen(r->out) < n)
		return;
	tail[0] = '\0';
	got = sscanf(r->out + n, "clocks (at %d-MHz): %lld\n%63s", &rate, &clocks, tail);
	EXPECT_EQ(2, got) TH_LOG("last line: %s", r->out + n);
	if (got != 2)
		return;
	EXPECT_EQ('\n', r->out[strlen(r->out) - 1]);
	fd = open(_PATH_PERFMON, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	if (cpu_has_tsc() > 0) {
		ASSERT_EQ(0, ioctl(fd, PMIOTSTAMP, &ts));
		EXPECT_EQ(ts.pmct_rate, rate);
		EXPECT_LT(0LL, clocks);
		EXPECT_GE((long long)span, clocks);
	}
	close(fd);
}

FIXTURE(tool) {
	int paranoid;		/* saved perf_event_paranoid, or INT_MIN */
	int held;		/* a writer this test holds, or -1 */
};

FIXTURE_SETUP(tool)
{
	self->paranoid = INT_MIN;
	self->held = -1;
	unlink(STATE_COPY);
	unlink(COUNTER_FILE);
}

FIXTURE_TEARDOWN(tool)
{
	char buf[16];
	unsigned int v;
	int fd, i;

	if (self->held >= 0)
		close(self->held);
	if (self->paranoid != INT_MIN) {
		snprintf(buf, sizeof(buf), "%d\n", self->paranoid);
		EXPECT_EQ(0, write_file(PARANOID_PATH, buf));
	}
	unlink(STATE_COPY);
	unlink(COUNTER_FILE);
	if (access(_PATH_PERFMON, F_OK))
		return;
	/* Whatever the tool did, it left the writer slot and counters free. */
	fd = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENXIO)
		return;		/* no PMU: nothing could be taken */
	EXPECT_LE(0, fd) TH_LOG("writer not released: %s", strerror(errno));
	for (i = 0; fd >= 0 && i < NPMC; i++)
		EXPECT_EQ(-EBUSY, perfmon_get_fd(fd, i, &v)) TH_LOG("counter %d", i);
	if (fd >= 0)
		close(fd);
	if (have_fakepmu())
		EXPECT_EQ(0, fakepmu_state_count("cpu=", NULL));
}

static unsigned long long tsc_now(void)
{
	return cpu_has_tsc() > 0 ? rdtsc() : 0;
}

TEST_F(tool, each_loop_reports_exactly_the_injected_count)
{
	static const long long each[] = { 1000, 1000, 1000, 1000, 1000 };
	unsigned long long t0;
	struct tool_run r;

	NEED_TOOL();
	t0 = tsc_now();
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT, "-u", "-l", "5", "-c",
			     INJECT("cpu=1 event=0xc0 count=1000"), "0xc0"));
	check_run(_metadata, &r, 5, each, tsc_now() - t0);
}

TEST_F(tool, counter_is_reset_between_loops)
{
	static const long long each[] = { 100, 200, 300, 400 };
	unsigned long long t0;
	struct tool_run r;

	NEED_TOOL();
	ASSERT_EQ(0, create_file(COUNTER_FILE, "0\n"));
	t0 = tsc_now();
	/* Loop i injects 100 * i, alternately on CPUs 2 and 1. */
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT, "-u", "-l", "4", "-c",
			     "n=$(($(cat " COUNTER_FILE ") + 100)); echo $n > " COUNTER_FILE
			     "; echo cpu=$((1 + n / 100 % 2)) event=0xc0 count=$n > "
			     FAKEPMU_INJECT, "192"));
	check_run(_metadata, &r, 4, each, tsc_now() - t0);
}

TEST_F(tool, injections_on_every_cpu_add_up)
{
	static const long long each[] = { 10 + 20 + 30 + 40, 100, 100 };
	unsigned long long t0;
	struct tool_run r;

	NEED_TOOL();
	if (count_online_cpus() < 4)
		SKIP(return, "needs 4 CPUs");
	ASSERT_EQ(0, create_file(COUNTER_FILE, "0\n"));
	t0 = tsc_now();
	/* The first loop injects on CPUs 0-3, later loops 100 on CPU 0. */
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT, "-u", "-l", "3", "-c",
			     "if [ $(cat " COUNTER_FILE ") = 0 ]; then echo 1 > " COUNTER_FILE
			     "; for c in 0 1 2 3; do echo cpu=$c event=0xc0 count=$((10 * c + 10)) > "
			     FAKEPMU_INJECT "; done; else echo cpu=0 event=0xc0 count=100 > "
			     FAKEPMU_INJECT "; fi", "0xc0"));
	check_run(_metadata, &r, 3, each, tsc_now() - t0);
}

TEST_F(tool, mode_options_select_user_and_kernel_counts)
{
	static const long long zero[] = { 0, 0, 0 };
	static const long long k[] = { 7, 7, 7 };
	static const long long uk[] = { 107, 107, 107 };
	static const char both[] =
		INJECT("cpu=1 event=0xc0 count=100 mode=user") "; "
		INJECT("cpu=2 event=0xc0 count=7 mode=kernel");
	struct tool_run r;

	NEED_TOOL();
	/* Neither -u nor -o: the counter counts nothing (as on a P6). */
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT, "-l", "3", "-c", both, "0xc0"));
	check_run(_metadata, &r, 3, zero, ULLONG_MAX >> 1);
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT, "-o", "-l", "3", "-c", both, "0xc0"));
	check_run(_metadata, &r, 3, k, ULLONG_MAX >> 1);
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT, "-u", "-o", "-l", "3", "-c", both, "0xc0"));
	check_run(_metadata, &r, 3, uk, ULLONG_MAX >> 1);
}

TEST_F(tool, unit_mask_edge_and_invert_reach_perf)
{
	static const long long each[] = { 9, 9 };
	char line[256];
	int found = 0;
	FILE *f;
	struct tool_run r;

	NEED_TOOL();
	/* unit 1, mask 2, USR|E|INV: config 0x0284013c for perf. */
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT, "-u", "-e", "-i", "-U", "1", "-m", "2",
			     "-l", "2", "-c",
			     INJECT("cpu=3 event=0x13c count=9") "; "
			     INJECT("cpu=3 event=0x3c count=1000") "; "
			     "cat " FAKEPMU_STATE " > " STATE_COPY, "0x3c"));
	check_run(_metadata, &r, 2, each, ULLONG_MAX >> 1);
	f = fopen(STATE_COPY, "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		EXPECT_NE(NULL, strstr(line, "config=0x284013c user=1 kernel=0 "))
			TH_LOG("state: %s", line);
		found++;
	}
	fclose(f);
	EXPECT_EQ(count_online_cpus(), found);
}

/*
 * FreeBSD's message as the first line, then pmcompat's hint line (what to
 * do: tools/common/pmc_hint.c) naming want.
 */
#define EXPECT_MSG_AND_HINT(first, want, err)						\
	do {										\
		EXPECT_EQ(0, strncmp((err), (first), strlen(first))) TH_LOG("%s", (err));	\
		EXPECT_EQ(0, strncmp((err) + strlen(first), "perfmon: ", 9)) TH_LOG("%s", (err)); \
		EXPECT_NE(NULL, strstr((err) + strlen(first), (want))) TH_LOG("%s", (err));	\
	} while (0)

TEST_F(tool, busy_device_is_reported)
{
	struct tool_run r;

	if (access(PERFMON_TOOL, X_OK))
		SKIP(return, "%s not installed", PERFMON_TOOL);
	NEED_PERFMON_PMU();
	self->held = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->held);
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT, "-u", "-l", "1", "0xc0"));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	EXPECT_MSG_AND_HINT("perfmon: open: /dev/perfmon: Device or resource busy\n",
			    "the counters are taken", r.err);
}

/*
 * perfmon(8) opens for writing: the node (0640) refuses others and the
 * group alike, and where a careless rule lets the group write (0660) the
 * module refuses whoever lacks CAP_PERFMON/CAP_SYS_ADMIN.
 */
TEST_F(tool, unprivileged_user_cannot_open)
{
	struct tool_run r;
	long saved = -1;

	if (access(PERFMON_TOOL, X_OK))
		SKIP(return, "%s not installed", PERFMON_TOOL);
	NEED_PERFMON_PMU();
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_NOBODY, "-u", "-l", "1", "0xc0"));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	EXPECT_MSG_AND_HINT("perfmon: open: /dev/perfmon: Permission denied\n", "pmcompat", r.err);

	ASSERT_EQ(0, node_to_test_group(_PATH_PERFMON, 0640, &saved));
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_NOBODY_IN_GROUP, "-u", "-l", "1", "0xc0"));
	EXPECT_EQ(1, r.status);
	EXPECT_MSG_AND_HINT("perfmon: open: /dev/perfmon: Permission denied\n", "pmcompat", r.err);
	ASSERT_EQ(0, chmod(_PATH_PERFMON, 0660));
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_NOBODY_IN_GROUP, "-u", "-l", "1", "0xc0"));
	EXPECT_EQ(0, node_restore(_PATH_PERFMON, saved));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	EXPECT_MSG_AND_HINT("perfmon: open: /dev/perfmon: Operation not permitted\n", "pmcompat", r.err);
}

TEST_F(tool, setup_refused_without_privilege)
{
	struct tool_run r;
	int level;

	NEED_TOOL();
	ASSERT_EQ(0, read_file_int(PARANOID_PATH, &level));
	if (level <= 0) {
		self->paranoid = level;
		ASSERT_EQ(0, write_file(PARANOID_PATH, "2\n"));
	}
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT_WITHOUT_CAPS, "-u", "-l", "1", "0xc0"));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	/* Refused at the writable open now, before PMIOSETUP. */
	EXPECT_MSG_AND_HINT("perfmon: open: /dev/perfmon: Operation not permitted\n", "pmcompat", r.err);
}

TEST_F(tool, missing_operand_prints_usage)
{
	struct tool_run r;

	if (access(PERFMON_TOOL, X_OK))
		SKIP(return, "%s not installed", PERFMON_TOOL);
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT, "-u"));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ("usage: perfmon [-eiou] [-c command] [-l nloops] [-m mask] [-s sleeptime]\n"
		     "       [-U unit] counter\n", r.err);
}

/*
 * FreeBSD's getopt stops at the first operand: what follows the counter is
 * operands too (here: too many), never options (GNU getopt would permute).
 */
TEST_F(tool, options_after_the_counter_are_operands)
{
	struct tool_run r;

	if (access(PERFMON_TOOL, X_OK))
		SKIP(return, "%s not installed", PERFMON_TOOL);
	ASSERT_EQ(0, PERFMON(&r, TOOL_AS_ROOT, "-u", "0xc0", "-l", "1"));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ("usage: perfmon [-eiou] [-c command] [-l nloops] [-m mask] [-s sleeptime]\n"
		     "       [-U unit] counter\n", r.err);
}

TEST_HARNESS_MAIN
