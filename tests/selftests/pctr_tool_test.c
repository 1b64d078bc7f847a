// SPDX-License-Identifier: GPL-2.0
/*
 * pctr(1) against /dev/pctr: the exact text of read mode for counts the
 * test PMU was told to make, the selectors set mode writes, clearing, and
 * the messages of a refused set, a missing device and a bad option.  The
 * text depends on the CPU vendor (/proc/cpuinfo), so this program runs
 * under an Intel and an AMD CPU model.
 */
#include <grp.h>
#include <sys/wait.h>
#include <machine/pctr.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define PCTR_TOOL	"/usr/bin/pctr"
#define EV_INSTR	0x00c0
#define KERNEL_IP	0xffffffff81000000ULL

/*
 * Run pctr with args on CPU cpu, as root (0), nobody (1) or nobody in the
 * device group (2), at device dev if not NULL.
 */
static int run_pctr(struct tool_run *r, int cpu, int as_nobody, const char *dev,
		    const char *const *args)
{
	static const enum tool_as who[] = {
		TOOL_AS_ROOT, TOOL_AS_NOBODY, TOOL_AS_NOBODY_IN_GROUP,
	};
	char env[128];

	if (dev)
		snprintf(env, sizeof(env), "PCTR_DEVICE=%s", dev);
	return run_tool(r, PCTR_TOOL, "pctr", args, cpu, who[as_nobody], dev ? env : NULL);
}

#define PCTR(r, cpu, ...) \
	run_pctr(r, cpu, 0, NULL, (const char *const []){ __VA_ARGS__, NULL })

static int cpu_is_amd(void)
{
	char line[256];
	int amd = -1;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "vendor_id", 9)) {
			amd = strstr(line, "AuthenticAMD") ? 1 :
			      strstr(line, "GenuineIntel") ? 0 : -1;
			break;
		}
	}
	fclose(f);
	return amd;
}

/*
 * Check read-mode output: the counter lines exactly, then the TSC line
 * (when the CPU has one) with a value between lo and hi.  Returns 0, 1
 * when the counter lines differ, 5 when the TSC line is wrong or missing.
 */
static int check_read_output(const char *out, const char *counters, int tsc,
			     unsigned long long lo, unsigned long long hi)
{
	size_t n = strlen(counters);
	unsigned long long v;
	char again[64];
	int end = 0;

	if (strncmp(out, counters, n))
		return 1;
	out += n;
	if (!tsc)
		return *out ? 5 : 0;
	if (sscanf(out, "  tsc = %llu\n%n", &v, &end) != 1 || !end || out[end])
		return 5;
	snprintf(again, sizeof(again), "  tsc = %16llu\n", v);
	if (strcmp(out, again) || v < lo || v > hi)
		return 5;
	return 0;
}

FIXTURE(tool) {
	int amd;
	int tsc;
	int fd;
	long node_saved;	/* node group and mode to restore, or -1 */
};

FIXTURE_SETUP(tool)
{
	self->fd = -1;
	self->node_saved = -1;
	if (access(PCTR_TOOL, X_OK))
		SKIP(return, "%s not installed", PCTR_TOOL);
	if (access(_PATH_PCTR, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", _PATH_PCTR);
	self->amd = cpu_is_amd();
	ASSERT_LE(0, self->amd) TH_LOG("neither an Intel nor an AMD CPU");
	self->tsc = cpu_has_tsc();
	ASSERT_LE(0, self->tsc);
	TH_LOG("%s CPU, %s TSC", self->amd ? "AMD" : "Intel", self->tsc ? "with" : "without");
	ASSERT_EQ(0, pctr_clear_all());
	self->fd = open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(tool)
{
	if (self->fd >= 0)
		close(self->fd);
	EXPECT_EQ(0, node_restore(_PATH_PCTR, self->node_saved));
	EXPECT_EQ(0, pctr_clear_all());
}

/*
 * Read mode with the test on cpu: the output must be the counter lines of
 * the running CPU's vendor, then a TSC line with a value read in between.
 */
static void expect_read_output(struct __test_metadata *_metadata, int amd,
			       int tsc, int cpu, const char *intel_txt,
			       const char *amd_txt)
{
	const char *want = amd ? amd_txt : intel_txt;
	unsigned long long lo, hi;
	struct tool_run r;
	int line;

	ASSERT_EQ(0, pin_to_cpu(cpu));
	lo = rdtsc();
	ASSERT_EQ(0, PCTR(&r, cpu, NULL));
	hi = rdtsc();
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.err);
	line = check_read_output(r.out, want, tsc, lo, hi);
	EXPECT_EQ(0, line) TH_LOG("wrong from line %d on; output:\n%sexpected:\n%s",
				  line, r.out, want);
}

#define EXPECT_READ_OUTPUT(cpu, intel_txt, amd_txt) \
	expect_read_output(_metadata, self->amd, self->tsc, cpu, intel_txt, amd_txt)

TEST_F(tool, set_then_read_an_injected_count)
{
	const char *intel, *amd;
	struct pctrst st;
	struct tool_run r;
	int cpu = count_online_cpus() - 1;

	NEED_FAKEPMU();
	ASSERT_EQ(0, PCTR(&r, cpu, "-s", "0", "-f", "c0", "-u"));
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ("", r.err);
	ASSERT_EQ(0, pctr_read_on(self->fd, 0, &st));
	EXPECT_EQ(0x004100c0U, st.pctr_fn[0]);

	ASSERT_EQ(0, inject(cpu, EV_INSTR, 12345));
	ASSERT_EQ(0, inject_ip(cpu, EV_INSTR, 99, 1, KERNEL_IP));	/* not counted */
	ASSERT_EQ(0, inject(0, EV_INSTR, 777));			/* another CPU */
	intel =
		" ctr0 =            12345  [---u c0 00   INST_RETIRED]\n"
		" ctr1 =                0  [---- 00 00   unknown function]\n"
		" ctr2 =                0  [---- 00 00   unknown function]\n"
		" ctr3 =                0  [---- 00 00   unknown function]\n";
	amd =
		" ctr0 =            12345  [---u c0 00 ]\n"
		" ctr1 =                0  [---- 00 00 ]\n"
		" ctr2 =                0  [---- 00 00 ]\n"
		" ctr3 =                0  [---- 00 00 ]\n";
	EXPECT_READ_OUTPUT(cpu, intel, amd);
	intel =
		" ctr0 =              777  [---u c0 00   INST_RETIRED]\n"
		" ctr1 =                0  [---- 00 00   unknown function]\n"
		" ctr2 =                0  [---- 00 00   unknown function]\n"
		" ctr3 =                0  [---- 00 00   unknown function]\n";
	amd =
		" ctr0 =              777  [---u c0 00 ]\n"
		" ctr1 =                0  [---- 00 00 ]\n"
		" ctr2 =                0  [---- 00 00 ]\n"
		" ctr3 =                0  [---- 00 00 ]\n";
	EXPECT_READ_OUTPUT(0, intel, amd);
}

TEST_F(tool, selector_flags_unit_mask_and_threshold)
{
	const char *intel, *amd;
	struct pctrst st;
	struct tool_run r;

	NEED_FAKEPMU();
	ASSERT_EQ(0, PCTR(&r, 1, "-s", "1", "-f", "c0", "-e", "-i"));
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ(0, PCTR(&r, 1, "-s", "2", "-f", "c4", "-k", "-t", "3"));
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	/* Cache misses: Intel's 2e; AMD's table has no 2e (L2 misses: 7e). */
	ASSERT_EQ(0, PCTR(&r, 1, "-s", "3", "-f", self->amd ? "7e" : "2e",
			  "-m", "41", "-u"));
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	EXPECT_EQ(0U, st.pctr_fn[0]);
	EXPECT_EQ(0x00c700c0U, st.pctr_fn[1]);
	EXPECT_EQ(0x034200c4U, st.pctr_fn[2]);
	EXPECT_EQ(self->amd ? 0x0041417eU : 0x0041412eU, st.pctr_fn[3]);

	ASSERT_EQ(0, inject(1, EV_INSTR, 3));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 4, 1, KERNEL_IP));
	ASSERT_EQ(0, inject_ip(1, 0x00c4, 77, 1, KERNEL_IP));
	ASSERT_EQ(0, inject(1, 0x00c4, 1000));			/* user: not counted */
	ASSERT_EQ(0, inject(1, self->amd ? 0x417e : 0x412e, 5));
	intel =
		" ctr0 =                0  [---- 00 00   unknown function]\n"
		" ctr1 =                7  [ieku c0 00   INST_RETIRED]\n"
		" ctr2 =               77  [--k- c4 00 +3  BR_INST_RETIRED]\n"
		" ctr3 =                5  [---u 2e 41   LONGEST_LAT_CACHE]\n";
	amd =
		" ctr0 =                0  [---- 00 00 ]\n"
		" ctr1 =                7  [ieku c0 00 ]\n"
		" ctr2 =               77  [--k- c4 00 +3]\n"
		" ctr3 =                5  [---u 7e 41 ]\n";
	EXPECT_READ_OUTPUT(1, intel, amd);
}

TEST_F(tool, counts_wider_than_the_column_print_in_full)
{
	const char *intel, *amd;
	struct tool_run r;

	NEED_FAKEPMU();
	ASSERT_EQ(0, PCTR(&r, 2, "-s", "0", "-f", "c0"));
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ(0, inject(2, EV_INSTR, 12345678901234567ULL));
	intel =
		" ctr0 = 12345678901234567  [--ku c0 00   INST_RETIRED]\n"
		" ctr1 =                0  [---- 00 00   unknown function]\n"
		" ctr2 =                0  [---- 00 00   unknown function]\n"
		" ctr3 =                0  [---- 00 00   unknown function]\n";
	amd =
		" ctr0 = 12345678901234567  [--ku c0 00 ]\n"
		" ctr1 =                0  [---- 00 00 ]\n"
		" ctr2 =                0  [---- 00 00 ]\n"
		" ctr3 =                0  [---- 00 00 ]\n";
	EXPECT_READ_OUTPUT(2, intel, amd);
}

TEST_F(tool, function_zero_turns_a_counter_off)
{
	const char *intel, *amd;
	struct pctrst st;
	struct tool_run r;

	NEED_FAKEPMU();
	ASSERT_EQ(0, PCTR(&r, 1, "-s", "0", "-f", "c0"));
	EXPECT_EQ(0, r.status);
	ASSERT_EQ(0, PCTR(&r, 1, "-s", "1", "-f", "c0", "-k"));
	EXPECT_EQ(0, r.status);
	ASSERT_EQ(0, inject(1, EV_INSTR, 500));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	EXPECT_EQ(0x004300c0U, st.pctr_fn[0]);
	EXPECT_EQ(500ULL, st.pctr_hwc[0]);

	ASSERT_EQ(0, PCTR(&r, 1, "-s", "0", "-f", "0"));
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ("", r.err);
	ASSERT_EQ(0, inject(1, EV_INSTR, 20));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 30, 1, KERNEL_IP));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	EXPECT_EQ(0U, st.pctr_fn[0]);
	EXPECT_EQ(0ULL, st.pctr_hwc[0]);
	intel =
		" ctr0 =                0  [---- 00 00   unknown function]\n"
		" ctr1 =               30  [--k- c0 00   INST_RETIRED]\n"
		" ctr2 =                0  [---- 00 00   unknown function]\n"
		" ctr3 =                0  [---- 00 00   unknown function]\n";
	amd =
		" ctr0 =                0  [---- 00 00 ]\n"
		" ctr1 =               30  [--k- c0 00 ]\n"
		" ctr2 =                0  [---- 00 00 ]\n"
		" ctr3 =                0  [---- 00 00 ]\n";
	EXPECT_READ_OUTPUT(1, intel, amd);
}

/*
 * /dev/pctr is 0640: outside its group (root without udev, pmcompat with
 * the rule, emulated here) nobody reads; in the group, pctr reads but
 * cannot set.
 */
TEST_F(tool, unprivileged_user_reads_in_the_group_but_cannot_set)
{
	const char *const set[] = { "-s", "0", "-f", "c0", NULL };
	const char *const none[] = { NULL };
	struct pctrst st;
	struct tool_run r;

	NEED_FAKEPMU();
	ASSERT_EQ(0, PCTR(&r, 1, "-s", "3", "-f", "c0", "-u"));
	ASSERT_EQ(0, inject(1, EV_INSTR, 64));

	ASSERT_EQ(0, run_pctr(&r, 1, 1, NULL, none));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	/* OpenBSD's line, then the hint (the group, or CAP_PERFMON). */
	EXPECT_EQ(0, strncmp(r.err, "pctr: pctr_read: Permission denied\npctr: ", 41)) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "pmcompat"));
	ASSERT_EQ(0, run_pctr(&r, 1, 1, NULL, set));
	EXPECT_EQ(1, r.status);
	EXPECT_EQ(0, strncmp(r.err, "pctr: pctr_set_cntr: Permission denied\npctr: ", 45)) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "pmcompat"));

	ASSERT_EQ(0, node_to_test_group(_PATH_PCTR, 0640, &self->node_saved));
	ASSERT_EQ(0, run_pctr(&r, 1, 2, NULL, none));
	EXPECT_EQ(0, r.status) TH_LOG("stderr: %s", r.err);
	EXPECT_EQ(0, strncmp(r.out, " ctr0 =", 7));
	EXPECT_NE(NULL, strstr(r.out, " ctr3 =               64  [---u c0 00 "))
		TH_LOG("output:\n%s", r.out);

	ASSERT_EQ(0, run_pctr(&r, 1, 2, NULL, set));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	EXPECT_EQ(0, strncmp(r.err, "pctr: pctr_set_cntr: Permission denied\npctr: ", 45)) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "pmcompat"));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	EXPECT_EQ(0U, st.pctr_fn[0]);
	EXPECT_EQ(0x004100c0U, st.pctr_fn[3]);
}

TEST_F(tool, missing_device_is_reported)
{
	const char *const none[] = { NULL };
	const char *const set[] = { "-s", "0", "-f", "c0", NULL };
	struct tool_run r;

	ASSERT_EQ(0, run_pctr(&r, 0, 0, "/dev/no-such-pctr", none));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ("pctr: pctr_read: No such file or directory\n"
		     "pctr: /dev/no-such-pctr is missing: load the module (sudo modprobe pmcompat)\n", r.err);
	ASSERT_EQ(0, run_pctr(&r, 0, 0, "/dev/no-such-pctr", set));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("pctr: pctr_set_cntr: No such file or directory\n"
		     "pctr: /dev/no-such-pctr is missing: load the module (sudo modprobe pmcompat)\n", r.err);
}

TEST_F(tool, usage_and_list_follow_the_cpu_vendor)
{
	struct tool_run r;

	ASSERT_EQ(0, PCTR(&r, 0, "-x"));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("", r.out);
	EXPECT_STREQ(self->amd ?
		     "pctr: unknown option -- x\n"
		     "usage: pctr [-eilku] [-f funct] [-m umask] [-s ctr] [-t thold]\n" :
		     "pctr: unknown option -- x\n"
		     "usage: pctr [-AEeIiklMSu] [-f funct] [-m umask] [-s ctr] [-t thold]\n",
		     r.err);

	ASSERT_EQ(0, PCTR(&r, 0, "-l"));
	EXPECT_EQ(0, r.status);
	/* libpfm4's table of the model (TCG: Skylake-Client, or K8 for max) */
	if (self->amd) {
		EXPECT_NE(NULL, strstr(r.out, "\nc0  RETIRED_INSTRUCTIONS\n"))
			TH_LOG("output starts:\n%.300s", r.out);
		EXPECT_EQ(NULL, strstr(r.out, "Retired instructions\n"));
	} else {
		EXPECT_NE(NULL, strstr(r.out, "\nc0  INST_RETIRED\n"))
			TH_LOG("output starts:\n%.300s", r.out);
		/* Skylake events the built-in table lacks */
		EXPECT_EQ(0, strncmp(r.out, "03  LD_BLOCKS  (needs unit mask)\n", 33));
		EXPECT_NE(NULL, strstr(r.out, "\n79  IDQ  (needs unit mask)\n"));
		EXPECT_NE(NULL, strstr(r.out, "DEMAND_DATA_RD_MISS=21"));
	}
}

TEST_HARNESS_MAIN
