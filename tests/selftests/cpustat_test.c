// SPDX-License-Identifier: GPL-2.0
/*
 * cpustat(8) on /dev/cpc: the exact rows and totals for counts the test PMU
 * was told to make on each CPU, two sets taking turns, the messages of bad
 * specifications and Solaris' usage, no access to the counters, -h in
 * Solaris' layout, an interrupt, the software events, -p as Solaris (a
 * rest only between cycles of several sets, the count in cycles) and -s
 * (soakers only for system-only sets, running only while one counts).
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <libcpc.h>
#include "pmc_test_util.h"
#include "cpctools_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define CPUSTAT		"/usr/bin/cpustat"
#define EV_INSTR	0x00c0
/* PAPI_tot_cyc is perf's cycles event: 0x3c on Intel, 0x76 on AMD. */
#define EV_CYCLES	(cpu_is_amd() ? 0x0076 : 0x003c)
#define NCPU_MAX	64

static int cpu_is_amd(void)
{
	static int amd = -1;
	char line[256];
	FILE *f;

	if (amd >= 0)
		return amd;
	amd = 0;
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return amd;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "vendor_id", 9)) {
			amd = strstr(line, "AuthenticAMD") || strstr(line, "HygonGenuine");
			break;
		}
	}
	fclose(f);
	return amd;
}

FIXTURE(cpustat) {
	long node_saved;
};

FIXTURE_SETUP(cpustat)
{
	self->node_saved = -1;
	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	if (access(CPUSTAT, X_OK))
		SKIP(return, "no %s", CPUSTAT);
}

FIXTURE_TEARDOWN_PARENT(cpustat)
{
	EXPECT_EQ(0, node_restore(PMC_CPC_PATH, self->node_saved));
}

/* The expected text of a row, in cpustat's format. */
static void fmt_row(char *buf, size_t n, double t, int cpu, const char *label,
		    const unsigned long long *v, int nv, const char *spec)
{
	int pos, i;

	pos = snprintf(buf, n, "%7.3f %3d %5s ", t, cpu, label);
	for (i = 0; i < nv; i++)
		pos += snprintf(buf + pos, n - pos, "%9lld ", (long long)v[i]);
	if (spec)
		pos += snprintf(buf + pos, n - pos, " # %s", spec);
	snprintf(buf + pos, n - pos, "\n");
}

/*
 * Check one row: the label and CPU, the values, and the exact text (the
 * time is read back from the row).  0, or which part was wrong.
 */
static int check_row(const char *line, int cpu, const char *label,
		     const unsigned long long *v, int nv, const char *spec)
{
	char want[512];
	double t;

	if (sscanf(line, "%lf", &t) != 1)
		return 1;
	fmt_row(want, sizeof(want), t, cpu, label, v, nv, spec);
	return strcmp(line, want) ? 2 : 0;
}

static unsigned long long ins_count(int cpu, int iv)
{
	return 1000ULL * (cpu + 1) * iv + 17 * cpu + 3;
}

static unsigned long long cyc_count(int cpu, int iv)
{
	return 77ULL * (cpu + 2) + 5 * iv;
}

TEST_F(cpustat, rows_and_totals_are_the_injected_counts)
{
	/* Intervals of 2 s: time to inject after each interval's rows, on slow lanes too. */
	char *const *argv = ARGV("cpustat", "-c", "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc,sys",
				 "2", "2");
	unsigned long long tot[2] = { 0, 0 }, v[2];
	char line[512], rest[4096];
	int ncpus = count_online_cpus(), cpu, iv, st;
	struct bg b;

	NEED_FAKEPMU();
	NEED_CPUS(4);
	ASSERT_LE(ncpus, NCPU_MAX);
	ASSERT_EQ(0, bg_start(&b, CPUSTAT, argv));
	ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	/* The title comes once every CPU is bound. */
	EXPECT_STREQ("   time cpu event      pic0      pic1 \n", line);
	for (iv = 1; iv <= 2; iv++) {
		for (cpu = 0; cpu < 4; cpu++) {
			ASSERT_EQ(0, inject(cpu, EV_INSTR, ins_count(cpu, iv)));
			ASSERT_EQ(0, inject(cpu, EV_CYCLES, cyc_count(cpu, iv)));
		}
		for (cpu = 0; cpu < ncpus; cpu++) {
			ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
			v[0] = cpu < 4 ? ins_count(cpu, iv) : 0;
			v[1] = cpu < 4 ? cyc_count(cpu, iv) : 0;
			tot[0] += v[0];
			tot[1] += v[1];
			EXPECT_EQ(0, check_row(line, cpu, "tick", v, 2, NULL))
				TH_LOG("interval %d cpu %d: %s", iv, cpu, line);
		}
	}
	st = bg_finish(&b, rest, sizeof(rest));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("stderr: %s", b.err);
	EXPECT_EQ(0, check_row(rest, ncpus, "total", tot, 2, NULL)) TH_LOG("%s", rest);
	/* Nothing after the total. */
	EXPECT_EQ(strlen(rest), (size_t)(strchr(rest, '\n') - rest + 1));
}

TEST_F_TIMEOUT(cpustat, two_sets_take_turns, 60)
{
	const char *a = "pic0=PAPI_tot_ins,sys", *c = "pic0=PAPI_tot_cyc,sys";
	char *const *argv = ARGV("cpustat", "-c", (char *)a, "-c", (char *)c, "2", "4");
	unsigned long long tot[2] = { 0, 0 }, v;
	char line[512], rest[4096], want[512];
	int ncpus = count_online_cpus(), cpu, iv, st;
	struct bg b;

	NEED_FAKEPMU();
	NEED_CPUS(4);
	ASSERT_EQ(0, bg_start(&b, CPUSTAT, argv));
	/* The first title comes once every CPU is bound. */
	ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	EXPECT_STREQ("   time cpu event      pic0 \n", line);
	for (iv = 1; iv <= 4; iv++) {
		int set = (iv - 1) % 2;

		for (cpu = 0; cpu < 4; cpu++) {
			ASSERT_EQ(0, inject(cpu, EV_INSTR, ins_count(cpu, iv)));
			ASSERT_EQ(0, inject(cpu, EV_CYCLES, cyc_count(cpu, iv)));
		}
		/* The title only once, as Solaris (review L6). */
		for (cpu = 0; cpu < ncpus; cpu++) {
			ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
			v = cpu >= 4 ? 0 : set ? cyc_count(cpu, iv) : ins_count(cpu, iv);
			tot[set] += v;
			EXPECT_EQ(0, check_row(line, cpu, "tick", &v, 1, set ? c : a))
				TH_LOG("interval %d cpu %d: %s", iv, cpu, line);
		}
	}
	st = bg_finish(&b, rest, sizeof(rest));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("stderr: %s", b.err);
	/* One total per set, each over the intervals it was bound. */
	{
		char *second = strchr(rest, '\n');
		double t;

		ASSERT_NE(NULL, second);
		second++;
		ASSERT_EQ(1, sscanf(rest, "%lf", &t));
		fmt_row(want, sizeof(want), t, ncpus, "total", &tot[0], 1, a);
		EXPECT_EQ(0, strncmp(rest, want, strlen(want))) TH_LOG("%s", rest);
		ASSERT_EQ(1, sscanf(second, "%lf", &t));
		fmt_row(want, sizeof(want), t, ncpus, "total", &tot[1], 1, c);
		EXPECT_STREQ(want, second);
	}
}

/* Solaris' usage text (illumos cpustat.c). */
static const char usage[] =
	"Usage:\n\tcpustat -c spec [-c spec]... [-p period] [-T u|d]\n"
	"\t\t[-sntD] [interval [count]]\n\n"
	"\t-c spec\t  specify processor events to be monitored\n"
	"\t-n\t  suppress titles\n"
	"\t-p period cycle through event list periodically\n"
	"\t-s\t  run user soaker thread for system-only events\n"
	"\t-t\t  include tsc register\n"
	"\t-T d|u\t  Display a timestamp in date (d) or unix time_t (u)\n"
	"\t-D\t  enable debug mode\n"
	"\t-h\t  print extended usage information\n\n"
	"\tUse cputrack(1) to monitor per-process statistics.\n";

/* Run cpustat with args; its exit code, stderr in err. */
static int cpustat_err(char *err, size_t n, char *const argv[])
{
	char out[8192];
	struct bg b;
	int ret = run_all(&b, CPUSTAT, argv, out, sizeof(out));

	snprintf(err, n, "%s", b.err);
	return ret;
}

TEST_F_TIMEOUT(cpustat, bad_specs_give_the_original_messages, 120)
{
	static const struct {
		const char *spec, *msg;
	} cases[] = {
		{ "pic0=PAPI_tot_ins,pic0=PAPI_tot_cyc", "cpustat: repeated 'pic0' token\n" },
		{ "pic0", "cpustat: missing 'pic0' value\n" },
		{ "pic0=", "cpustat: missing 'pic0' value\n" },
		{ "pic1=no_such_event", "cpustat: pic1 cannot measure event 'no_such_event' on this cpu\n" },
		{ "pic0=0", "cpustat: pic0 cannot measure event '0' on this cpu\n" },
		{ "pic0=sw_page_faults,frobnicate", "cpustat: bad token 'frobnicate'\n" },
		{ "pic0=sw_page_faults,nouser=1", "cpustat: bad token 'nouser=1'\n" },
#if defined(__aarch64__)
		/* ARMv8 events have no counter mask: cmask is no attribute there */
		{ "pic0=PAPI_tot_ins,cmask0=zz", "cpustat: bad token 'cmask0=zz'\n" },
#else
		{ "pic0=PAPI_tot_ins,cmask0=zz", "cpustat: invalid value 'zz' for attribute 'cmask'\n" },
#endif
	};
	char err[8192], want[8192];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		EXPECT_EQ(2, cpustat_err(err, sizeof(err),
					 ARGV("cpustat", "-c", (char *)cases[i].spec, "1", "1")))
			TH_LOG("spec %s", cases[i].spec);
		/* As Solaris: the message, then the usage (review L8) */
		snprintf(want, sizeof(want), "%s%s", cases[i].msg, usage);
		EXPECT_STREQ(want, err) TH_LOG("spec %s", cases[i].spec);
	}
	/* -D: the library function's name after the program's (review L12) */
	EXPECT_EQ(2, cpustat_err(err, sizeof(err),
				 ARGV("cpustat", "-D", "-c", "pic0=PAPI_tot_ins,pic0=PAPI_tot_cyc")));
	snprintf(want, sizeof(want), "cpustat: cpc_strtoset: repeated 'pic0' token\n%s", usage);
	EXPECT_STREQ(want, err);
}

TEST_F(cpustat, usage_errors_exit_2)
{
	char err[8192], want[8192];

	EXPECT_EQ(2, cpustat_err(err, sizeof(err), ARGV("cpustat")));
	EXPECT_STREQ(usage, err);
	EXPECT_EQ(2, cpustat_err(err, sizeof(err), ARGV("cpustat", "-c", "sw_cpu_clock", "-T", "x")));
	EXPECT_STREQ(usage, err);
	/* Solaris' messages for bad operands and periods (review L8) */
	EXPECT_EQ(2, cpustat_err(err, sizeof(err), ARGV("cpustat", "-c", "sw_cpu_clock", "abc")));
	snprintf(want, sizeof(want), "cpustat: invalid argument \"abc\"\n%s", usage);
	EXPECT_STREQ(want, err);
	EXPECT_EQ(2, cpustat_err(err, sizeof(err), ARGV("cpustat", "-c", "sw_cpu_clock", "1", "2x")));
	snprintf(want, sizeof(want), "cpustat: invalid argument \"2x\"\n%s", usage);
	EXPECT_STREQ(want, err);
	EXPECT_EQ(2, cpustat_err(err, sizeof(err), ARGV("cpustat", "-p", "1s", "-c", "sw_cpu_clock")));
	snprintf(want, sizeof(want), "cpustat: invalid parameter \"1s\"\n%s", usage);
	EXPECT_STREQ(want, err);
	EXPECT_EQ(2, cpustat_err(err, sizeof(err), ARGV("cpustat", "-c", "sw_cpu_clock", "0")));
	EXPECT_STREQ(usage, err);
	EXPECT_EQ(2, cpustat_err(err, sizeof(err), ARGV("cpustat", "-c", "sw_cpu_clock", "1", "0")));
	EXPECT_EQ(2, cpustat_err(err, sizeof(err), ARGV("cpustat", "-c", "sw_cpu_clock", "1", "1", "1")));
	EXPECT_EQ(2, cpustat_err(err, sizeof(err), ARGV("cpustat", "-x", "-c", "sw_cpu_clock")));
	/* Solaris' getopt names the bad option first. */
	EXPECT_EQ(0, strncmp(err, "cpustat: illegal option -- x\n", 29)) TH_LOG("%s", err);
	EXPECT_STREQ(usage, err + 29);
	EXPECT_EQ(2, cpustat_err(err, sizeof(err), ARGV("cpustat", "-c")));
	EXPECT_EQ(0, strncmp(err, "cpustat: option requires an argument -- c\n", 42)) TH_LOG("%s", err);
	/* accepted as Solaris accepts them: -p 0, -T by its first letter */
	EXPECT_EQ(0, cpustat_err(err, sizeof(err),
				 ARGV("cpustat", "-p", "0", "-T", "unix", "-c", "sw_cpu_clock",
				      "-c", "sw_page_faults", "0.1", "1")));
	EXPECT_STREQ("", err);
}

/* -p 0: no rest, and the count is of cycles through the sets. */
TEST_F(cpustat, p_0_counts_cycles_without_rest)
{
	char *const *argv = ARGV("cpustat", "-n", "-p", "0", "-c", "sw_cpu_clock",
				 "-c", "sw_page_faults", "0.2", "2");
	char out[16384], *line, *save = NULL;
	int ncpus = count_online_cpus(), ticks = 0, totals = 0;
	hrtime_t t0 = gethrtime();
	struct bg b;

	ASSERT_EQ(0, run_all(&b, CPUSTAT, argv, out, sizeof(out))) TH_LOG("%s", b.err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ticks += strstr(line, " tick ") != NULL;
		totals += strstr(line, " total ") != NULL;
	}
	/* 2 cycles of 2 sets: 4 intervals of 0.2 s, no rest */
	EXPECT_EQ(4 * ncpus, ticks);
	EXPECT_EQ(2, totals);
	EXPECT_GT(3 * 1000000000LL, gethrtime() - t0);
}

TEST_F(cpustat, no_counter_access_exits_1)
{
	char out[4096];
	struct tool_run r;

	ASSERT_EQ(0, node_to_test_group(PMC_CPC_PATH, 0660, &self->node_saved));
	ASSERT_EQ(0, run_tool(&r, CPUSTAT, "cpustat",
			      (const char *const []){ "-c", "sw_cpu_clock", "1", "1", NULL },
			      0, TOOL_AS_NOBODY, NULL));
	EXPECT_EQ(1, r.status);
	/* Solaris' line, then the hint (the group, or CAP_PERFMON). */
	EXPECT_EQ(0, strncmp(r.err, "cpustat: cannot access performance counters - Permission denied\ncpustat: ",
			     73)) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "pmcompat"));
	EXPECT_STREQ("", r.out);
	(void)out;
}

TEST_F(cpustat, h_lists_the_capabilities)
{
	char out[65536];
	struct bg b;

	ASSERT_EQ(0, run_all(&b, CPUSTAT, ARGV("cpustat", "-h"), out, sizeof(out)));
	/* Solaris' layout: usage, a blank line, the capabilities */
	EXPECT_EQ(0, strncmp(out, usage, strlen(usage)));
	EXPECT_EQ(0, strncmp(out + strlen(usage), "\n\tCPU performance counter interface: ",
			     strlen("\n\tCPU performance counter interface: ")));
	EXPECT_NE(NULL, strstr(out, "\n\tevent specification syntax:\n\t[picn=]"));
	EXPECT_NE(NULL, strstr(out, "...]\n\n\tGeneric Events:\n\n\tevent"));
	EXPECT_NE(NULL, strstr(out, " \n\n\tSee generic_events(3CPC) for descriptions of "
				    "these events\n\n\tPlatform Specific Events:\n\n\tevent"));
	EXPECT_NE(NULL, strstr(out, " \n\n\tattributes: "));
	EXPECT_NE(NULL, strstr(out, "[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>"
				    "[,attr[n][=<val>]],...]"));
	EXPECT_NE(NULL, strstr(out, "Generic Events:"));
	EXPECT_NE(NULL, strstr(out, "Platform Specific Events:"));
	/*
	 * One list when the pics are alike; on Intel with fixed-function
	 * counters one per pic, the fixed ones with their event only (L9).
	 */
	if (!strstr(out, "\tevent[0-")) {
		EXPECT_NE(NULL, strstr(out, "\n\tevent0:  ")) TH_LOG("%.2000s", out);
		EXPECT_NE(NULL, strstr(out, ":  instr_retired.any \n")) TH_LOG("%.2000s", out);
	}
	EXPECT_NE(NULL, strstr(out, " sw_page_faults"));
#if defined(__aarch64__)
	/*
	 * libpfm4's Cortex-A57 table (QEMU -cpu cortex-a57), the ARMv8
	 * generics; INST_RETIRED where the PMU has it (QEMU: with -icount).
	 */
	if (!access("/sys/bus/event_source/devices/armv8_pmuv3/events/inst_retired", F_OK)) {
		EXPECT_NE(NULL, strstr(out, " INST_RETIRED")) TH_LOG("%.2000s", out);
	} else {
		EXPECT_EQ(NULL, strstr(out, " INST_RETIRED")) TH_LOG("%.2000s", out);
	}
	EXPECT_NE(NULL, strstr(out, " CPU_CYCLES")) TH_LOG("%.2000s", out);
	EXPECT_NE(NULL, strstr(out, " PAPI_tot_ins"));
	EXPECT_NE(NULL, strstr(out, " PAPI_l1_dcm"));
	EXPECT_EQ(NULL, strstr(out, " PAPI_br_tkn"));	/* no ARMv8 event for it */
	EXPECT_EQ(NULL, strstr(out, "cmask"));
#else
	/* libpfm4's events of the model (TCG: Skylake-Client, or K8 for max) */
	EXPECT_TRUE(strstr(out, " l2_rqsts.demand_data_rd_miss") ||
		    strstr(out, " RETIRED_INSTRUCTIONS"))
		TH_LOG("%.2000s", out);
	EXPECT_NE(NULL, strstr(out, " PAPI_br_tkn"));
#endif
	EXPECT_NE(NULL, strstr(out, "nouser sys \n\n\t"));
	EXPECT_EQ(NULL, strstr(out, "picnum"));
	/* The lists are wrapped at column 76. */
	{
		char *p = out, *nl;

		while ((nl = strchr(p, '\n'))) {
			int col = 0;
			char *q;

			for (q = p; q < nl; q++)
				col = *q == '\t' ? (col / 8 + 1) * 8 : col + 1;
			/*
			 * a name too long for the width stands alone; Solaris
			 * counts the first line of a list from column 17, after
			 * a prefix of 20 ("\tevent[0-6]: ") or 18 ("\tevent0:  ")
			 */
			if (p > out + strlen(usage) && strncmp(p, "\tCPU performance", 16) &&
			    strncmp(p, "\t[picn=]", 8) &&
			    memchr(p + strspn(p, " \t"), ' ', nl - p - strspn(p, " \t") - 1))
				EXPECT_LE(col, strncmp(p, "\tevent", 6) ? 76 : 79)
					TH_LOG("%.*s", (int)(nl - p), p);
			p = nl + 1;
		}
	}
}

TEST_F(cpustat, interrupt_prints_totals_and_exits_0)
{
	char *const *argv = ARGV("cpustat", "-c", "pic0=PAPI_tot_ins,sys", "2");
	char line[512], rest[4096];
	unsigned long long v = 0;
	int ncpus = count_online_cpus(), cpu, st;
	struct bg b;

	NEED_FAKEPMU();
	ASSERT_EQ(0, bg_start(&b, CPUSTAT, argv));
	ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	ASSERT_EQ(0, inject(0, EV_INSTR, 4242));
	for (cpu = 0; cpu < ncpus; cpu++)
		ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	ASSERT_EQ(0, kill(b.pid, SIGINT));
	st = bg_finish(&b, rest, sizeof(rest));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	/* Maybe another interval's rows, then the total with the 4242. */
	{
		char *last = rest, *nl;
		double t;

		while ((nl = strchr(last, '\n')) && nl[1])
			last = nl + 1;
		v = 4242;
		ASSERT_EQ(1, sscanf(last, "%lf", &t));
		fmt_row(line, sizeof(line), t, ncpus, "total", &v, 1, NULL);
		EXPECT_STREQ(line, last);
	}
	/* Everything was unbound: CPU 0 can be bound again at once. */
	{
		cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
		cpc_set_t *set;

		ASSERT_NE(NULL, cpc);
		set = cpc_set_create(cpc);
		ASSERT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
						 CPC_COUNT_USER, 0, NULL));
		EXPECT_EQ(0, cpc_bind_cpu(cpc, 0, set, 0));
		cpc_close(cpc);
	}
}

TEST_F(cpustat, software_events_count_on_every_cpu)
{
	char *const *argv = ARGV("cpustat", "-t", "-c", "sw_cpu_clock,sys", "0.5", "1");
	char out[8192], *p;
	int ncpus = count_online_cpus(), cpu, n = 0;
	struct bg b;

	ASSERT_EQ(0, run_all(&b, CPUSTAT, argv, out, sizeof(out))) TH_LOG("%s", b.err);
	p = strchr(out, '\n');
	ASSERT_NE(NULL, p);
	*p = '\0';
	EXPECT_STREQ("   time cpu event       tsc      pic0 ", out);
	for (cpu = 0; cpu < ncpus; cpu++) {
		unsigned long long tsc, ns;
		char label[16];
		double t;
		int c;

		ASSERT_EQ(5, sscanf(p + 1, "%lf %d %15s %llu %llu", &t, &c, label, &tsc, &ns));
		EXPECT_EQ(cpu, c);
		EXPECT_STREQ("tick", label);
		/* The CPU clock runs, idle or not: about 0.5 s of it. */
		EXPECT_GT(ns, 100000000ULL);
		EXPECT_LT(ns, 5000000000ULL);
		p = strchr(p + 1, '\n');
		ASSERT_NE(NULL, p);
		n++;
	}
	EXPECT_EQ(ncpus, n);
	EXPECT_NE(NULL, strstr(p + 1, " total "));
}

TEST_F_TIMEOUT(cpustat, p_with_one_set_does_not_rest, 60)
{
	/*
	 * Solaris rests only between cycles of several sets: with one, -p
	 * changes nothing; the second interval's rows come at 4 s, not 12.
	 */
	char *const *argv = ARGV("cpustat", "-p", "12", "-c", "pic0=PAPI_tot_ins,sys", "2", "2");
	char line[512], rest[4096];
	unsigned long long v;
	int ncpus = count_online_cpus(), cpu, st, round;
	double t = 0;
	struct bg b;

	NEED_FAKEPMU();
	ASSERT_EQ(0, bg_start(&b, CPUSTAT, argv));
	ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	ASSERT_EQ(0, inject(0, EV_INSTR, 1111));
	for (round = 0; round < 2; round++) {
		for (cpu = 0; cpu < ncpus; cpu++) {
			ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
			v = cpu || round ? 0 : 1111;
			EXPECT_EQ(0, check_row(line, cpu, "tick", &v, 1, NULL)) TH_LOG("%s", line);
			ASSERT_EQ(1, sscanf(line, "%lf", &t));
		}
	}
	EXPECT_LT(t, 8.0);
	st = bg_finish(&b, rest, sizeof(rest));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	v = 1111;
	EXPECT_EQ(0, check_row(rest, ncpus, "total", &v, 1, NULL)) TH_LOG("%s", rest);
}

TEST_F_TIMEOUT(cpustat, p_rests_between_cycles_and_counts_cycles, 90)
{
	/*
	 * Two sets of 2 s each, a period of 8 s: 4 s unbound after each
	 * cycle; a count of 2 is two cycles, four intervals (Solaris
	 * multiplies the count by the sets).  The third interval ends at
	 * 10 s, and what comes during the rest is not counted.
	 */
	char *const *argv = ARGV("cpustat", "-p", "8", "-c", "pic0=PAPI_tot_ins,sys",
				 "-c", "pic0=PAPI_tot_cyc,sys", "2", "2");
	char line[512], rest[4096];
	unsigned long long v;
	int ncpus = count_online_cpus(), cpu, st, iv;
	double t;
	struct bg b;

	NEED_FAKEPMU();
	ASSERT_EQ(0, bg_start(&b, CPUSTAT, argv));
	/* the title once every CPU counts, and only then (L6) */
	ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	ASSERT_EQ(0, inject(0, EV_INSTR, 1111));
	for (iv = 0; iv < 4; iv++) {
		for (cpu = 0; cpu < ncpus; cpu++) {
			ASSERT_NE(NULL, bg_line(&b, line, sizeof(line))) TH_LOG("interval %d", iv);
			v = !cpu && !iv ? 1111 : 0;
			EXPECT_EQ(0, check_row(line, cpu, "tick", &v, 1,
					       iv % 2 ? "pic0=PAPI_tot_cyc,sys" :
					       "pic0=PAPI_tot_ins,sys")) TH_LOG("%s", line);
			ASSERT_EQ(1, sscanf(line, "%lf", &t));
			if (iv == 2)
				EXPECT_GT(t, 9.5);
			if (iv == 1)
				EXPECT_LT(t, 7.0);
		}
		if (iv == 1) {
			/* resting: nothing is bound */
			usleep(1000000);
			ASSERT_EQ(0, inject(0, EV_INSTR, 2222));
		}
	}
	st = bg_finish(&b, rest, sizeof(rest));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	v = 1111;
	{
		char want[512];
		double tt;

		ASSERT_EQ(1, sscanf(rest, "%lf", &tt));
		fmt_row(want, sizeof(want), tt, ncpus, "total", &v, 1, "pic0=PAPI_tot_ins,sys");
		EXPECT_EQ(0, strncmp(rest, want, strlen(want))) TH_LOG("%s", rest);
	}
}

TEST_F(cpustat, T_u_prints_the_time_before_each_row)
{
	char *const *argv = ARGV("cpustat", "-T", "u", "-n", "-c", "sw_cpu_clock", "0.2", "2");
	char out[8192], *line, *save = NULL;
	int ncpus = count_online_cpus(), n = 0, stamps = 0, rows = 0;
	long long ts, now = time(NULL);
	struct bg b;

	ASSERT_EQ(0, run_all(&b, CPUSTAT, argv, out, sizeof(out))) TH_LOG("%s", b.err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		char end;

		if (sscanf(line, "%lld%c", &ts, &end) == 1) {
			/* As Solaris' print_sample(): the time before every CPU's row (L5) */
			EXPECT_EQ(0, n % 2) TH_LOG("line %d: %s", n, line);
			EXPECT_LE(llabs(ts - now), 30);
			stamps++;
		} else {
			EXPECT_TRUE(strstr(line, " tick ") || strstr(line, " total ")) TH_LOG("%s", line);
			rows++;
		}
	}
	/* -n: no title; a stamp per row of two rounds, and the total without. */
	EXPECT_EQ(2 * ncpus, stamps);
	EXPECT_EQ(2 * ncpus + 1, rows);
}

TEST_F(cpustat, T_d_is_the_date_of_date_1)
{
	char *const *argv = ARGV("cpustat", "-T", "d", "-n", "-c", "sw_cpu_clock", "0.2", "1");
	char out[8192], *line, *save = NULL, zone[64], year[16], want_zone[64];
	int ncpus = count_online_cpus(), stamps = 0;
	time_t now = time(NULL);
	struct bg b;

	/* date(1) prints the zone: "Sat Nov 28 21:00:00 UTC 2026" */
	strftime(want_zone, sizeof(want_zone), "%Z", localtime(&now));
	ASSERT_EQ(0, run_all(&b, CPUSTAT, argv, out, sizeof(out))) TH_LOG("%s", b.err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, " tick ") || strstr(line, " total "))
			continue;
		stamps++;
		ASSERT_EQ(2, sscanf(line, "%*s %*s %*d %*d:%*d:%*d %63s %15s", zone, year))
			TH_LOG("%s", line);
		EXPECT_STREQ(want_zone, zone) TH_LOG("%s", line);
		EXPECT_EQ(4U, strlen(year)) TH_LOG("%s", line);
	}
	EXPECT_EQ(ncpus, stamps);
}

/*
 * One CPU that cannot be bound (another binding holds it) stops only that
 * CPU, as Solaris' gtick(): "cpustat: cpuN - reason", the others' rows,
 * the totals, exit 1 (review L7).
 */
TEST_F(cpustat, one_failing_cpu_stops_only_that_cpu)
{
	char *const *argv = ARGV("cpustat", "-c", "sw_cpu_clock", "0.2", "2");
	char out[16384], *line, *save = NULL, want[256];
	int ncpus = count_online_cpus(), rows = 0, totals = 0, st;
	cpu_set_t mask;
	cpc_set_t *set;
	cpc_t *cpc;
	struct bg b;

	NEED_CPUS(2);
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	set = cpc_strtoset(cpc, "sw_cpu_clock", 0);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(mask), &mask));
	ASSERT_EQ(0, cpc_bind_cpu(cpc, 1, set, 0));
	/* cpustat inherits the affinity: every CPU, not the bound one's */
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(mask), &mask));
	st = run_all(&b, CPUSTAT, argv, out, sizeof(out));
	cpc_unbind(cpc, set);
	cpc_close(cpc);
	EXPECT_EQ(1, st);
	snprintf(want, sizeof(want), "cpustat: cpu1 - %s\n", strerror(EAGAIN));
	EXPECT_STREQ(want, b.err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int cpu;

		if (strstr(line, " total ")) {
			totals++;
			EXPECT_EQ(1, sscanf(line, "%*f %d", &cpu));
			EXPECT_EQ(ncpus, cpu);
		} else if (strstr(line, " tick ")) {
			rows++;
			EXPECT_EQ(1, sscanf(line, "%*f %d", &cpu));
			EXPECT_NE(1, cpu) TH_LOG("%s", line);
		}
	}
	EXPECT_EQ(2 * (ncpus - 1), rows);
	EXPECT_EQ(1, totals);
}

/* The states (R, S, ...) of cpustat's soaker threads: their number. */
static int soaker_states(pid_t pid, char *states, int max)
{
	char path[320], comm[64], stat[512], *p;
	struct dirent *d;
	int n = 0;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && n < max) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		comm[0] = '\0';
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		if (strncmp(comm, "cpustat-soaker", 14))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(stat, sizeof(stat), f) && (p = strrchr(stat, ')')))
			states[n++] = p[2];
		fclose(f);
	}
	closedir(dir);
	states[n] = '\0';
	return n;
}

TEST_F(cpustat, s_without_a_system_only_set_starts_no_soaker)
{
	char *const *argv = ARGV("cpustat", "-s", "-n", "-c", "sw_context_switches,sys", "0.5", "2");
	char line[512], states[NCPU_MAX + 1], rest[8192];
	struct bg b;

	ASSERT_EQ(0, bg_start(&b, CPUSTAT, argv));
	ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	EXPECT_EQ(0, soaker_states(b.pid, states, NCPU_MAX));
	EXPECT_LE(0, bg_finish(&b, rest, sizeof(rest)));
}

/*
 * Wait up to ms for ncpus soakers all in state want (R spinning, S waiting),
 * looking every 10 ms: a slow kernel (the debug lane) starts them late, and
 * each state lasts a whole interval.  The soakers' number, states in states.
 */
static int soakers_become(pid_t pid, int ncpus, char want, char *states, int ms)
{
	int n, waited;

	for (waited = 0;; waited += 10) {
		n = soaker_states(pid, states, NCPU_MAX);
		if ((n == ncpus && strspn(states, (char[]){ want, 0 }) == (size_t)n) ||
		    waited >= ms)
			return n;
		usleep(10000);
	}
}

TEST_F_TIMEOUT(cpustat, s_soakers_run_only_while_a_system_only_set_counts, 90)
{
	/* Sets: system only (soakers run), user and system (they wait). */
	char *const *argv = ARGV("cpustat", "-s", "-n", "-c", "sw_context_switches,sys,nouser",
				 "-c", "sw_context_switches,sys", "2", "3");
	char line[512], states[NCPU_MAX + 1], rest[8192];
	int ncpus = count_online_cpus(), cpu, n, st;
	struct bg b;

	ASSERT_EQ(0, bg_start(&b, CPUSTAT, argv));
	/* the first interval: the system-only set is bound, soakers spin */
	n = soakers_become(b.pid, ncpus, 'R', states, 20000);
	EXPECT_EQ(ncpus, n);
	EXPECT_EQ(strlen(states), strspn(states, "R")) TH_LOG("%s", states);
	for (cpu = 0; cpu < ncpus; cpu++)
		ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	/* the second: the user and system set is bound, soakers wait */
	n = soakers_become(b.pid, ncpus, 'S', states, 1500);
	EXPECT_EQ(ncpus, n);
	EXPECT_EQ(strlen(states), strspn(states, "S")) TH_LOG("%s", states);
	for (cpu = 0; cpu < ncpus; cpu++)
		ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	/* the third: the system-only set again, soakers spin */
	n = soakers_become(b.pid, ncpus, 'R', states, 1500);
	EXPECT_EQ(ncpus, n);
	EXPECT_EQ(strlen(states), strspn(states, "R")) TH_LOG("%s", states);
	st = bg_finish(&b, rest, sizeof(rest));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

TEST_HARNESS_MAIN
