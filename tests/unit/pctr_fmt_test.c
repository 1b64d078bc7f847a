// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the pctr(1) logic (tools/pctr/pctr_fmt.c): CPU classes,
 * option handling and its messages, event-select words, their decoding,
 * and the read and list output.
 */
#include <stdio.h>
#include <string.h>

#include <machine/pctr.h>

#include "pctr_fmt.h"
#include "pctr_wrap_ref.h"
#include "kselftest_harness.h"

/*
 * The built-in tables unless a test says otherwise: libpfm4 (which pctr
 * asks first) is told no model is present.  Each test runs in a child of
 * its own, which builds its table once.
 */
__attribute__((constructor)) static void no_pfm_model(void)
{
	setenv("LIBPFM_FORCE_PMU", "none", 1);
}

static int list_has(int cpu, const char *name)
{
	const struct ctrfn *t;
	size_t i, n;

	t = pctr_events(cpu, &n);
	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return 1;
	return 0;
}

/* Apply a whole command line (without argv[0]) the way main() does. */
static int apply(int cpu, struct pctr_opts *o, const char *const *args,
		 char *err)
{
	int i, r;

	pctr_opts_init(o);
	for (i = 0; args[i]; i++) {
		const char *arg = NULL;
		int ch = args[i][1];

		if (args[i][0] != '-' || !ch)
			return -1;	/* test bug: not an option */
		if (ch == 'f' || ch == 'm' || ch == 's' || ch == 't')
			arg = args[++i];
		r = pctr_apply_opt(cpu, o, ch, arg, err, PCTR_ERRLEN);
		if (r != PCTR_OPT_OK)
			return r;
	}
	return pctr_check_opts(o);
}

/* Build the selector of a command line; returns 0 or -1 (message in err). */
static int sel_of(int cpu, const char *const *args, uint32_t *sel, char *err)
{
	struct pctr_opts o;

	err[0] = '\0';
	if (apply(cpu, &o, args, err) != PCTR_OPT_OK)
		return -2;
	return pctr_build_sel(cpu, &o, sel, err, PCTR_ERRLEN);
}

#define ARGS(...)	((const char *const []){ __VA_ARGS__, NULL })

TEST(cpu_type)
{
	ASSERT_EQ(CPU_AMD, pctr_cpu_type("amd64", "AuthenticAMD", 0xa10f11));
	ASSERT_EQ(CPU_CORE, pctr_cpu_type("amd64", "GenuineIntel", 0x906ea));
	ASSERT_EQ(CPU_UNDEF, pctr_cpu_type("amd64", "CentaurHauls", 0x6f2));
	ASSERT_EQ(-1, pctr_cpu_type("i386", "GenuineIntel", 0x6f2));
	ASSERT_EQ(-1, pctr_cpu_type("arm64", "", 0));
}

TEST(num_counters)
{
	ASSERT_EQ(4, PCTR_NUM);
	ASSERT_EQ(4, pctr_num_counters(CPU_CORE));
	ASSERT_EQ(4, pctr_num_counters(CPU_AMD));
	ASSERT_EQ(0, pctr_num_counters(CPU_UNDEF));
}

TEST(usage_strings)
{
	ASSERT_STREQ("[-AEeIiklMSu] [-f funct] [-m umask] [-s ctr] [-t thold]",
		     pctr_usage_args(CPU_CORE));
	ASSERT_STREQ("[-eilku] [-f funct] [-m umask] [-s ctr] [-t thold]",
		     pctr_usage_args(CPU_AMD));
	ASSERT_STREQ("+AcEef:IiklMm:Ss:t:u", PCTR_GETOPT);
}

TEST(options_per_cpu)
{
	const char *core_ok = "AEeIiklMSu", *amd_ok = "eilku";
	const char *all = "AcEeIiklMSu";
	struct pctr_opts o;
	char err[PCTR_ERRLEN];
	const char *p;

	for (p = all; *p; p++) {
		pctr_opts_init(&o);
		EXPECT_EQ(strchr(core_ok, *p) ? PCTR_OPT_OK : PCTR_OPT_USAGE,
			  pctr_apply_opt(CPU_CORE, &o, *p, NULL, err,
					 sizeof(err))) {
			TH_LOG("Core option -%c", *p);
		}
		pctr_opts_init(&o);
		EXPECT_EQ(strchr(amd_ok, *p) ? PCTR_OPT_OK : PCTR_OPT_USAGE,
			  pctr_apply_opt(CPU_AMD, &o, *p, NULL, err,
					 sizeof(err))) {
			TH_LOG("AMD option -%c", *p);
		}
	}
	/* getopt's answers for bad options */
	ASSERT_EQ(PCTR_OPT_USAGE, pctr_apply_opt(CPU_AMD, &o, '?', NULL, err,
						 sizeof(err)));
	ASSERT_EQ(PCTR_OPT_USAGE, pctr_apply_opt(CPU_AMD, &o, ':', NULL, err,
						 sizeof(err)));
	ASSERT_EQ(PCTR_OPT_USAGE, pctr_apply_opt(CPU_CORE, &o, 'x', NULL, err,
						 sizeof(err)));
	/* only -l on an unknown CPU */
	ASSERT_EQ(PCTR_OPT_OK, pctr_apply_opt(CPU_UNDEF, &o, 'l', NULL, err,
					      sizeof(err)));
	ASSERT_EQ(PCTR_OPT_USAGE, pctr_apply_opt(CPU_UNDEF, &o, 's', "0", err,
						 sizeof(err)));
}

TEST(option_values)
{
	struct pctr_opts o;
	char err[PCTR_ERRLEN];

	ASSERT_EQ(PCTR_OPT_OK, apply(CPU_AMD, &o,
				     ARGS("-s", "3", "-f", "C0", "-m", "4f",
					  "-t", "255", "-e", "-i", "-k", "-u"),
				     err));
	ASSERT_EQ(3, o.ctr);
	ASSERT_EQ(0xc0, o.func);
	ASSERT_EQ(0x4f, o.umask);
	ASSERT_TRUE(o.umask_set);
	ASSERT_EQ(255, o.thold);
	ASSERT_TRUE(o.edge && o.inv && o.kernel && o.user);
	ASSERT_FALSE(o.list);

	ASSERT_EQ(PCTR_OPT_OK, apply(CPU_CORE, &o,
				     ARGS("-s", "0", "-f", "0x40", "-M", "-E",
					  "-S", "-I"), err));
	ASSERT_EQ(0x40, o.func);
	ASSERT_TRUE(o.mesi_m && o.mesi_e && o.mesi_s && o.mesi_i);
	ASSERT_FALSE(o.umask_set);

	ASSERT_EQ(PCTR_OPT_OK, apply(CPU_CORE, &o, ARGS("-l"), err));
	ASSERT_TRUE(o.list);
	ASSERT_EQ(-1, o.ctr);
}

TEST(option_errors)
{
	static const struct {
		int cpu;
		const char *opt, *arg, *msg;
	} c[] = {
		{ CPU_AMD, "-f", "100", "invalid function number" },
		{ CPU_AMD, "-f", "zz", "invalid function number" },
		{ CPU_CORE, "-f", "-1", "invalid function number" },
		{ CPU_CORE, "-f", "", "invalid function number" },
		{ CPU_AMD, "-m", "1ff", "invalid unit mask number" },
		{ CPU_CORE, "-m", "q", "invalid unit mask number" },
		{ CPU_AMD, "-s", "4", "counter number is too large: 4" },
		{ CPU_CORE, "-s", "4", "counter number is too large: 4" },
		{ CPU_CORE, "-s", "-1", "counter number is too small: -1" },
		{ CPU_AMD, "-s", "one", "counter number is invalid: one" },
		{ CPU_AMD, "-s", "1x", "counter number is invalid: 1x" },
		{ CPU_AMD, "-t", "256", "threshold is too large: 256" },
		{ CPU_CORE, "-t", "-2", "threshold is too small: -2" },
		{ CPU_CORE, "-t", "ff", "threshold is invalid: ff" },
	};
	struct pctr_opts o;
	char err[PCTR_ERRLEN];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		err[0] = '\0';
		pctr_opts_init(&o);
		EXPECT_EQ(PCTR_OPT_ERR,
			  pctr_apply_opt(c[i].cpu, &o, c[i].opt[1], c[i].arg,
					 err, sizeof(err))) {
			TH_LOG("%s %s", c[i].opt, c[i].arg);
		}
		EXPECT_STREQ(c[i].msg, err);
	}
}

TEST(option_combinations)
{
	struct pctr_opts o;
	char err[PCTR_ERRLEN];

	/* -A excludes the MESI letters */
	ASSERT_EQ(PCTR_OPT_USAGE, apply(CPU_CORE, &o,
					ARGS("-s", "0", "-f", "70", "-A", "-M"),
					err));
	ASSERT_EQ(PCTR_OPT_USAGE, apply(CPU_CORE, &o,
					ARGS("-I", "-A", "-s", "0"), err));
	ASSERT_EQ(PCTR_OPT_OK, apply(CPU_CORE, &o,
				     ARGS("-s", "0", "-f", "70", "-A"), err));
	/* setting options need -s */
	ASSERT_EQ(PCTR_OPT_USAGE, apply(CPU_AMD, &o, ARGS("-f", "c0"), err));
	ASSERT_EQ(PCTR_OPT_USAGE, apply(CPU_AMD, &o, ARGS("-u"), err));
	ASSERT_EQ(PCTR_OPT_USAGE, apply(CPU_CORE, &o, ARGS("-t", "1"), err));
	/* ... except that -l wins */
	ASSERT_EQ(PCTR_OPT_OK, apply(CPU_AMD, &o, ARGS("-l", "-f", "c0"), err));
	/* read mode */
	pctr_opts_init(&o);
	ASSERT_EQ(PCTR_OPT_OK, pctr_check_opts(&o));
	/* -s alone disables the counter */
	ASSERT_EQ(PCTR_OPT_OK, apply(CPU_AMD, &o, ARGS("-s", "2"), err));
}

TEST(sel_amd)
{
	char err[PCTR_ERRLEN];
	uint32_t sel;

	ASSERT_EQ(0, sel_of(CPU_AMD, ARGS("-s", "0", "-f", "c0", "-u"), &sel,
			    err));
	ASSERT_EQ(PCTR_EN | PCTR_U | 0xc0, sel);
	ASSERT_EQ(0x4100c0, sel);

	ASSERT_EQ(0, sel_of(CPU_AMD, ARGS("-s", "1", "-f", "76"), &sel, err));
	ASSERT_EQ(0x430076, sel);

	ASSERT_EQ(0, sel_of(CPU_AMD, ARGS("-s", "3", "-f", "c2", "-k"), &sel,
			    err));
	ASSERT_EQ(PCTR_EN | PCTR_K | 0xc2, sel);

	ASSERT_EQ(0, sel_of(CPU_AMD, ARGS("-s", "2", "-f", "42", "-m", "1f",
					  "-t", "3", "-e", "-i", "-k"),
			    &sel, err));
	ASSERT_EQ(0x03c61f42, sel);

	/* as OpenBSD: an AMD code outside the table is refused too */
	sel = 0x1234;
	ASSERT_EQ(-1, sel_of(CPU_AMD, ARGS("-s", "0", "-f", "99"), &sel, err));
	ASSERT_STREQ("function 99 is not supported", err);
	ASSERT_EQ(0x1234, sel);
	ASSERT_EQ(-1, sel_of(CPU_AMD, ARGS("-s", "0", "-f", "3"), &sel, err));
	ASSERT_STREQ("function 03 is not supported", err);
	/* AMD's built-in table never insists on -m, as OpenBSD's */
	ASSERT_EQ(0, sel_of(CPU_AMD, ARGS("-s", "0", "-f", "7d"), &sel, err));
	ASSERT_EQ(0x43007d, sel);

	/* -f 0 (or no -f) writes 0: counter off */
	ASSERT_EQ(0, sel_of(CPU_AMD, ARGS("-s", "0", "-f", "0"), &sel, err));
	ASSERT_EQ(0, sel);
	ASSERT_EQ(0, sel_of(CPU_AMD, ARGS("-s", "1"), &sel, err));
	ASSERT_EQ(0, sel);
}

TEST(sel_core)
{
	char err[PCTR_ERRLEN];
	uint32_t sel;

	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "c0", "-u"), &sel,
			    err));
	ASSERT_EQ(0x4100c0, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "3", "-f", "c4"), &sel, err));
	ASSERT_EQ(0x4300c4, sel);
	/*
	 * pctr.1's example: core cycles are 3c with unit mask 00, with or
	 * without -m 0 (OpenBSD's table refuses both)
	 */
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "1", "-f", "3c", "-m", "0"),
			    &sel, err)) TH_LOG("%s", err);
	ASSERT_EQ(0x43003c, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "1", "-f", "3c"), &sel, err));
	ASSERT_EQ(0x43003c, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "1", "-f", "3c", "-m", "1",
					   "-k", "-t", "2", "-i", "-e"),
			    &sel, err));
	ASSERT_EQ(0x02c6013c, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "2", "-f", "2e", "-m", "4f"),
			    &sel, err));
	ASSERT_EQ(0x434f2e, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "0"), &sel, err));
	ASSERT_EQ(0, sel);
}

TEST(sel_core_unit_masks)
{
	char err[PCTR_ERRLEN];
	uint32_t sel;

	/* MESI events: the letters given, or all four */
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "40", "-u", "-k"),
			    &sel, err));
	ASSERT_EQ(PCTR_EN | PCTR_K | PCTR_U | PCTR_UM_MESI | 0x40, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "40", "-u", "-k",
					   "-M", "-E", "-S", "-I"),
			    &sel, err));
	ASSERT_EQ(0x430f40, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "41", "-M", "-S"),
			    &sel, err));
	ASSERT_EQ(PCTR_EN | PCTR_K | PCTR_U | PCTR_UM_M | PCTR_UM_S | 0x41,
		  sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "42", "-I"),
			    &sel, err));
	ASSERT_EQ(0x430142, sel);
	/* MESI letters mean nothing for other events */
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "c0", "-M"),
			    &sel, err));
	ASSERT_EQ(0x4300c0, sel);

	/* any-agent events: A only when asked, ORed with -m */
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "1", "-f", "70"), &sel, err));
	ASSERT_EQ(0x430070, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "1", "-f", "70", "-A"), &sel,
			    err));
	ASSERT_EQ(PCTR_EN | PCTR_K | PCTR_U | PCTR_UM_A | 0x70, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "1", "-f", "6f", "-A", "-m",
					   "c0"), &sel, err));
	ASSERT_EQ(0x43e06f, sel);
	/* -A means nothing for other events */
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "1", "-f", "c5", "-A"), &sel,
			    err));
	ASSERT_EQ(0x4300c5, sel);
}

TEST(sel_errors)
{
	struct pctr_opts o;
	char err[PCTR_ERRLEN];
	uint32_t sel = 0x1234;

	ASSERT_EQ(-1, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "99"), &sel, err));
	ASSERT_STREQ("function 99 is not supported", err);
	ASSERT_EQ(-1, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "3"), &sel, err));
	ASSERT_STREQ("function 03 is not supported", err);
	ASSERT_EQ(-1, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "24"), &sel, err));
	ASSERT_STREQ("function 24 needs unit mask specification", err);
	ASSERT_EQ(-1, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "2e", "-u"), &sel,
			     err));
	ASSERT_STREQ("function 2e needs unit mask specification", err);
	/* the built-in table keeps OpenBSD's rule: -m 0 is no unit mask */
	ASSERT_EQ(-1, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "2e", "-m", "0"),
			     &sel, err));
	ASSERT_STREQ("function 2e needs unit mask specification", err);
	ASSERT_EQ(0x1234, sel);	/* untouched on error */

	/* the counter limit (only reachable past the -s range check) */
	pctr_opts_init(&o);
	o.ctr = 4;
	o.func = 0xc0;
	ASSERT_EQ(-1, pctr_build_sel(CPU_AMD, &o, &sel, err, sizeof(err)));
	ASSERT_STREQ("only 4 counters are supported", err);
	ASSERT_EQ(-1, pctr_build_sel(CPU_CORE, &o, &sel, err, sizeof(err)));
	ASSERT_STREQ("only 4 counters are supported", err);
	o.ctr = -1;
	ASSERT_EQ(-1, pctr_build_sel(CPU_CORE, &o, &sel, err, sizeof(err)));
	o.ctr = 0;
	ASSERT_EQ(-1, pctr_build_sel(CPU_UNDEF, &o, &sel, err, sizeof(err)));
	ASSERT_STREQ("only 0 counters are supported", err);
	ASSERT_EQ(0x1234, sel);
}

TEST(decode_core)
{
	char buf[128];

	pctr_decode_sel(CPU_CORE, 0x4300c0, buf, sizeof(buf));
	ASSERT_STREQ("--ku c0 00   INST_RETIRED", buf);
	pctr_decode_sel(CPU_CORE, 0x4100c0, buf, sizeof(buf));
	ASSERT_STREQ("---u c0 00   INST_RETIRED", buf);
	pctr_decode_sel(CPU_CORE, 0x02c6013c, buf, sizeof(buf));
	ASSERT_STREQ("iek- 3c 01 +2  CPU_CLK_UNHALTED", buf);
	pctr_decode_sel(CPU_CORE, 0xff000000 | PCTR_U | 0xc5, buf, sizeof(buf));
	ASSERT_STREQ("---u c5 00 +255  BR_MISP_RETIRED", buf);
	/* MESI letters */
	pctr_decode_sel(CPU_CORE, 0x430f40, buf, sizeof(buf));
	ASSERT_STREQ("--ku 40 0f  MESI L1D_CACHE_LD", buf);
	pctr_decode_sel(CPU_CORE, 0x410a41, buf, sizeof(buf));
	ASSERT_STREQ("---u 41 0a  M-S- L1D_CACHE_ST", buf);
	pctr_decode_sel(CPU_CORE, 0x430042, buf, sizeof(buf));
	ASSERT_STREQ("--ku 42 00  ---- L1D_CACHE_LOCK", buf);
	/* any agent */
	pctr_decode_sel(CPU_CORE, 0x432070, buf, sizeof(buf));
	ASSERT_STREQ("--ku 70 20  A BUS_TRANS_ANY", buf);
	pctr_decode_sel(CPU_CORE, 0x43c06f, buf, sizeof(buf));
	ASSERT_STREQ("--ku 6f c0  - BUS_TRANS_MEM", buf);
	/* unknown and unprogrammed */
	pctr_decode_sel(CPU_CORE, 0x430099, buf, sizeof(buf));
	ASSERT_STREQ("--ku 99 00   unknown function", buf);
	pctr_decode_sel(CPU_CORE, 0, buf, sizeof(buf));
	ASSERT_STREQ("---- 00 00   unknown function", buf);
}

/* pctr(4) takes a word below 0x200 with bit 6 or 7 as a Pentium word */
TEST(decode_pentium_words)
{
	char buf[128];

	ASSERT_TRUE(pctr_is_p5(0xc0));
	ASSERT_FALSE(pctr_is_p5(0x4300c0));
	ASSERT_FALSE(pctr_is_p5(0x3c));
	ASSERT_FALSE(pctr_is_p5(0x200 | P5CTR_U));
	ASSERT_FALSE(pctr_is_p5(0));
	/* "INST_RETIRED, not yet enabled" counts Pentium event 0 */
	pctr_decode_sel(CPU_CORE, 0xc0, buf, sizeof(buf));
	ASSERT_STREQ("-uk 00 data read", buf);
	pctr_decode_sel(CPU_AMD, P5CTR_U | 0x16, buf, sizeof(buf));
	ASSERT_STREQ("-u- 16 instructions executed", buf);
	pctr_decode_sel(CPU_CORE, P5CTR_C | P5CTR_K | 0x12, buf, sizeof(buf));
	ASSERT_STREQ("c-k 12 branches", buf);
	pctr_decode_sel(CPU_CORE, P5CTR_K | 0x0c, buf, sizeof(buf));
	ASSERT_STREQ("--k 0c unknown function", buf);
	/* a P6 word that small without a mode bit stays a P6 word */
	pctr_decode_sel(CPU_CORE, 0x3c, buf, sizeof(buf));
	ASSERT_STREQ("---- 3c 00   CPU_CLK_UNHALTED", buf);
}

TEST(decode_amd)
{
	char buf[128];

	pctr_decode_sel(CPU_AMD, 0x4300c0, buf, sizeof(buf));
	ASSERT_STREQ("--ku c0 00 ", buf);
	pctr_decode_sel(CPU_AMD, 0x03c61f42, buf, sizeof(buf));
	ASSERT_STREQ("iek- 42 1f +3", buf);
	pctr_decode_sel(CPU_AMD, 0, buf, sizeof(buf));
	ASSERT_STREQ("---- 00 00 ", buf);
	pctr_decode_sel(CPU_UNDEF, 0x4300c0, buf, sizeof(buf));
	ASSERT_STREQ("", buf);
	/* truncation stays terminated */
	pctr_decode_sel(CPU_CORE, 0x4300c0, buf, 6);
	ASSERT_STREQ("--ku ", buf);
}

TEST(read_lines)
{
	char buf[256];

	pctr_fmt_counter(buf, sizeof(buf), CPU_AMD, 0, 0x4300c0, 123);
	ASSERT_STREQ(" ctr0 =              123  [--ku c0 00 ]\n", buf);
	pctr_fmt_counter(buf, sizeof(buf), CPU_CORE, 3, 0x4100c0,
			 18446744073709551615ULL);
	ASSERT_STREQ(" ctr3 = 18446744073709551615  [---u c0 00   INST_RETIRED]\n",
		     buf);
	pctr_fmt_counter(buf, sizeof(buf), CPU_CORE, 1, 0, 0);
	ASSERT_STREQ(" ctr1 =                0  [---- 00 00   unknown function]\n",
		     buf);
	pctr_fmt_tsc(buf, sizeof(buf), 42);
	ASSERT_STREQ("  tsc =               42\n", buf);
	pctr_fmt_tsc(buf, sizeof(buf), 1234567890123456789ULL);
	ASSERT_STREQ("  tsc = 1234567890123456789\n", buf);
}

TEST(list_entry)
{
	static const struct ctrfn plain = { 0x76, 0, "CPU clocks not halted",
					    NULL };
	static const struct ctrfn flagged = {
		0x12, CFL_MESI | CFL_C1 | CFL_UM, "MUL", "Multiplies." };
	static const struct ctrfn sa = { 0x62, CFL_SA | CFL_C0, "BUS", "" };
	char buf[512];

	ASSERT_EQ(strlen("76  CPU clocks not halted\n"),
		  pctr_fmt_event(buf, sizeof(buf), &plain));
	ASSERT_STREQ("76  CPU clocks not halted\n", buf);

	pctr_fmt_event(buf, sizeof(buf), &flagged);
	ASSERT_STREQ("12  MUL  (MESI)  (ctr1 only)  (needs unit mask)\n"
		     "      Multiplies.\n", buf);

	pctr_fmt_event(buf, sizeof(buf), &sa);
	ASSERT_STREQ("62  BUS  (A)  (ctr0 only)\n", buf);

	pctr_fmt_event(buf, sizeof(buf), pctr_find_event(CPU_CORE, 0xc0));
	ASSERT_STREQ("c0  INST_RETIRED\n"
		     "      Instructions retired (completed and not cancelled).\n",
		     buf);
	pctr_fmt_event(buf, sizeof(buf), pctr_find_event(CPU_CORE, 0x3c));
	ASSERT_EQ(0, strncmp("3c  CPU_CLK_UNHALTED\n      ", buf, 27));
	pctr_fmt_event(buf, sizeof(buf), pctr_find_event(CPU_CORE, 0x2e));
	ASSERT_EQ(0, strncmp("2e  LONGEST_LAT_CACHE  (needs unit mask)\n      ",
			     buf, 47));
	pctr_fmt_event(buf, sizeof(buf), pctr_find_event(CPU_CORE, 0x40));
	ASSERT_EQ(0, strncmp("40  L1D_CACHE_LD  (MESI)\n", buf, 25));
	pctr_fmt_event(buf, sizeof(buf), pctr_find_event(CPU_CORE, 0x70));
	ASSERT_EQ(0, strncmp("70  BUS_TRANS_ANY  (A)\n", buf, 23));
}

/* The entry's text is its title line and OpenBSD's wrapping of desc. */
static void check_wrap(struct __test_metadata *_metadata,
		       const struct ctrfn *fn)
{
	char buf[4096], expect[4096], first[8];
	char *body, *line, *save = NULL;
	size_t n;

	n = pctr_fmt_event(buf, sizeof(buf), fn);
	ASSERT_LT(n, sizeof(buf));
	ASSERT_EQ(n, strlen(buf));
	ASSERT_EQ('\n', buf[n - 1]);
	snprintf(first, sizeof(first), "%02x  ", fn->fn);
	ASSERT_EQ(0, strncmp(first, buf, 4));
	body = strchr(buf, '\n') + 1;
	openbsd_wrap(fn->desc ? fn->desc : "", expect, sizeof(expect));
	ASSERT_STREQ(expect, body) TH_LOG("%02x %s", fn->fn, fn->name);
	/* no line past 77 columns unless it is one word */
	for (line = strtok_r(body, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		ASSERT_TRUE(strlen(line) <= 77 || !strchr(line + 6, ' '));
}

TEST(list_wrapping)
{
	static const struct ctrfn longdesc = {
		0xab, 0, "LONG",
		"Aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll "
		"mmmm nnnn oooo pppp qqqq rrrr ssss tttt uuuu vvvv wwww xxxx "
		"yyyy zzzz "
		"Supercalifragilisticexpialidocious_and_much_longer_than_any_line_can_be_at_all "
		"end." };
	/* 69 characters: whole, even with a space to break at */
	static const struct ctrfn short69 = {
		0xcd, 0, "SHORT",
		"123456789 123456789 123456789 123456789 123456789 123456789 123456789" };
	/* 70 characters: broken at the last space */
	static const struct ctrfn at70 = {
		0xce, 0, "AT70",
		"123456789 123456789 123456789 123456789 123456789 123456789 123456789x" };
	/* a space at index 71 makes a 77-column line */
	static const struct ctrfn col77 = {
		0xcf, 0, "COL77",
		"123456789 123456789 123456789 123456789 123456789 123456789 12345678901 x"
		" y" };
	char buf[1024];

	check_wrap(_metadata, &longdesc);
	pctr_fmt_event(buf, sizeof(buf), &longdesc);
	ASSERT_STREQ("ab  LONG\n"
		     "      Aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn\n"
		     "      oooo pppp qqqq rrrr ssss tttt uuuu vvvv wwww xxxx yyyy zzzz\n"
		     "      Supercalifragilisticexpialidocious_and_much_longer_than_any_line_can_be_at_all\n"
		     "      end.\n", buf);

	ASSERT_EQ(69, strlen(short69.desc));
	pctr_fmt_event(buf, sizeof(buf), &short69);
	ASSERT_STREQ("cd  SHORT\n"
		     "      123456789 123456789 123456789 123456789 123456789 123456789 123456789\n",
		     buf);

	ASSERT_EQ(70, strlen(at70.desc));
	pctr_fmt_event(buf, sizeof(buf), &at70);
	ASSERT_STREQ("ce  AT70\n"
		     "      123456789 123456789 123456789 123456789 123456789 123456789\n"
		     "      123456789x\n", buf);

	pctr_fmt_event(buf, sizeof(buf), &col77);
	ASSERT_STREQ("cf  COL77\n"
		     "      123456789 123456789 123456789 123456789 123456789 123456789 12345678901\n"
		     "      x y\n", buf);
	ASSERT_EQ(6 + 71, strchr(buf + 10, '\n') - (buf + 10));
}

TEST(list_tables)
{
	static const int cpus[] = { CPU_CORE, CPU_AMD };
	const struct ctrfn *tab;
	unsigned int c;
	size_t i, j, n;

	for (c = 0; c < 2; c++) {
		tab = pctr_events(cpus[c], &n);
		ASSERT_NE(NULL, tab);
		ASSERT_GT(n, 10);
		for (i = 0; i < n; i++) {
			ASSERT_LE(tab[i].fn, PCTR_MAX_FUNCT);
			ASSERT_NE(NULL, tab[i].name);
			ASSERT_EQ(&tab[i], pctr_find_event(cpus[c], tab[i].fn));
			for (j = i + 1; j < n; j++)
				ASSERT_NE(tab[i].fn, tab[j].fn);
			check_wrap(_metadata, &tab[i]);
		}
	}
	/* the events the facts name */
	ASSERT_EQ(0, pctr_find_event(CPU_CORE, 0x3c)->flags);
	ASSERT_EQ(CFL_UM, pctr_find_event(CPU_CORE, 0x2e)->flags);
	ASSERT_STREQ("INST_RETIRED", pctr_find_event(CPU_CORE, 0xc0)->name);
	ASSERT_NE(NULL, pctr_find_event(CPU_CORE, 0x2e));
	ASSERT_NE(NULL, pctr_find_event(CPU_CORE, 0xc4));
	ASSERT_NE(NULL, pctr_find_event(CPU_CORE, 0xc5));
	ASSERT_STREQ("CPU clocks not halted",
		     pctr_find_event(CPU_AMD, 0x76)->name);
	ASSERT_STREQ("Retired instructions",
		     pctr_find_event(CPU_AMD, 0xc0)->name);
	for (i = 0; i < 8; i++) {
		static const unsigned int amd[] = {
			0xc2, 0xc3, 0x40, 0x41, 0x80, 0x81, 0x76, 0xc0 };

		ASSERT_NE(NULL, pctr_find_event(CPU_AMD, amd[i]));
	}
	ASSERT_EQ(NULL, pctr_events(CPU_UNDEF, &n));
	ASSERT_EQ(0, n);
}

TEST(list_truncation)
{
	const struct ctrfn *fn = pctr_find_event(CPU_CORE, 0x3c);
	char full[1024], small[20];
	size_t n;

	n = pctr_fmt_event(full, sizeof(full), fn);
	ASSERT_EQ(n, pctr_fmt_event(small, sizeof(small), fn));
	ASSERT_EQ(sizeof(small) - 1, strlen(small));
	ASSERT_EQ(0, strncmp(full, small, sizeof(small) - 1));
	ASSERT_EQ(n, pctr_fmt_event(NULL, 0, fn));
}


/* pctr -l lists libpfm4's table of the model (Skylake) */
TEST(list_libpfm4_skylake)
{
	const struct ctrfn *fn;
	char buf[4096], err[PCTR_ERRLEN];
	uint32_t sel;
	size_t n;

	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	pctr_events(CPU_CORE, &n);
	EXPECT_GT(n, 60);
	/* Skylake events no built-in table has */
	EXPECT_EQ(1, list_has(CPU_CORE, "HW_INTERRUPTS"));
	EXPECT_EQ(1, list_has(CPU_CORE, "IDQ"));
	fn = pctr_find_event(CPU_CORE, 0x24);
	ASSERT_NE(NULL, fn);
	EXPECT_STREQ("L2_RQSTS", fn->name);
	pctr_fmt_event(buf, sizeof(buf), fn);
	EXPECT_NE(NULL, strstr(buf, "DEMAND_DATA_RD_MISS=21")) TH_LOG("%s", buf);
	/* the default is marked in the list */
	EXPECT_NE(NULL, strstr(buf, "REFERENCES=ff (default)")) TH_LOG("%s", buf);
	/* L2_RQSTS has a default unit mask; LONGEST_LAT_CACHE has none */
	EXPECT_EQ(0, fn->flags & CFL_UM);
	EXPECT_EQ(CFL_DFL, fn->flags & CFL_DFL);
	fn = pctr_find_event(CPU_CORE, 0x2e);
	ASSERT_NE(NULL, fn);
	EXPECT_EQ(CFL_UM, fn->flags & CFL_UM);
	EXPECT_EQ(-1, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "2e"), &sel, err));
	EXPECT_STREQ("function 2e needs unit mask specification", err);
	EXPECT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "2e", "-m", "41"),
			    &sel, err));
	EXPECT_EQ(0x43412e, sel);
	/* -m 0 is a unit mask in libpfm4's table */
	EXPECT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "2e", "-m", "0"),
			    &sel, err));
	EXPECT_EQ(0x43002e, sel);
	/* codes wider than -f's byte are not listed */
	EXPECT_EQ(NULL, pctr_find_event(CPU_CORE, 0xb7));
}

/* Without -m, libpfm4's default unit mask (review M1) */
TEST(default_umask_skylake)
{
	char err[PCTR_ERRLEN];
	uint32_t sel;

	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	/* L1D REPLACEMENT=01 */
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "51"), &sel, err));
	EXPECT_EQ(0x430151, sel);
	/* L2_RQSTS REFERENCES=ff */
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "24", "-u"), &sel,
			    err));
	EXPECT_EQ(0x41ff24, sel);
	/* -m wins, -m 0 included */
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "24", "-m", "21"),
			    &sel, err));
	EXPECT_EQ(0x432124, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "51", "-m", "0"),
			    &sel, err));
	EXPECT_EQ(0x430051, sel);
	/* the architectural events keep their selectors */
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "c0"), &sel, err));
	EXPECT_EQ(0x4300c0, sel);
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", "3c"), &sel, err));
	EXPECT_EQ(0x43003c, sel);
}

/* Ice Lake: the architectural events have 00 listed and no default (H1) */
TEST(architectural_icelake)
{
	static const char *const codes[] = { "c0", "c4", "c5", "3c" };
	char err[PCTR_ERRLEN];
	uint32_t sel;
	unsigned int i;

	setenv("LIBPFM_FORCE_PMU", "icl", 1);
	for (i = 0; i < ARRAY_SIZE(codes); i++) {
		const struct ctrfn *fn;

		fn = pctr_find_event(CPU_CORE, strtoul(codes[i], NULL, 16));
		ASSERT_NE(NULL, fn);
		EXPECT_EQ(0, fn->flags & CFL_UM) TH_LOG("%s", fn->name);
		err[0] = '\0';
		EXPECT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "0", "-f", codes[i]),
				    &sel, err)) TH_LOG("%s: %s", codes[i], err);
		EXPECT_EQ(0x430000 | strtoul(codes[i], NULL, 16), sel);
		EXPECT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "1", "-f", codes[i],
						   "-m", "0"), &sel, err))
			TH_LOG("%s -m 0: %s", codes[i], err);
		EXPECT_EQ(0x430000 | strtoul(codes[i], NULL, 16), sel);
	}
	/* reference cycles: 3c with 01 */
	ASSERT_EQ(0, sel_of(CPU_CORE, ARGS("-s", "1", "-f", "3c", "-m", "1"),
			    &sel, err));
	EXPECT_EQ(0x43013c, sel);
}

TEST(list_libpfm4_amd)
{
	const struct ctrfn *fn;
	char err[PCTR_ERRLEN];
	uint32_t sel;
	size_t n;

	setenv("LIBPFM_FORCE_PMU", "amd64_fam17h_zen1", 1);
	pctr_events(CPU_AMD, &n);
	EXPECT_GT(n, 40);
	EXPECT_EQ(1, list_has(CPU_AMD, "RETIRED_INSTRUCTIONS"));
	EXPECT_EQ(1, list_has(CPU_AMD, "LS_DISPATCH"));
	/*
	 * An event whose unit masks are all bits with none the default
	 * counts nothing with 00: libpfm4's table marks it on AMD too.
	 */
	fn = pctr_find_event(CPU_AMD, 0x29);
	ASSERT_NE(NULL, fn);
	EXPECT_EQ(CFL_UM, fn->flags & CFL_UM);
	EXPECT_EQ(-1, sel_of(CPU_AMD, ARGS("-s", "0", "-f", "29"), &sel, err));
	EXPECT_STREQ("function 29 needs unit mask specification", err);
	EXPECT_EQ(0, sel_of(CPU_AMD, ARGS("-s", "0", "-f", "29", "-m", "3"),
			    &sel, err));
	EXPECT_EQ(0x430329, sel);
	EXPECT_EQ(0, sel_of(CPU_AMD, ARGS("-s", "0", "-f", "c0"), &sel, err));
	EXPECT_EQ(0x4300c0, sel);
	/* a code outside libpfm4's AMD table */
	EXPECT_EQ(-1, sel_of(CPU_AMD, ARGS("-s", "0", "-f", "fe"), &sel, err));
	EXPECT_STREQ("function fe is not supported", err);
	/* an Intel model's table is not AMD's */
	EXPECT_EQ(0, list_has(CPU_AMD, "HW_INTERRUPTS"));
}

/* K8: the default (all unit mask bits) instead of 00, which counts nothing */
TEST(default_umask_k8)
{
	char err[PCTR_ERRLEN];
	uint32_t sel;

	setenv("LIBPFM_FORCE_PMU", "amd64_k8_revg", 1);
	ASSERT_EQ(0, sel_of(CPU_AMD, ARGS("-s", "0", "-f", "7d"), &sel, err));
	EXPECT_EQ(0x431f7d, sel);
}

TEST(list_unknown_model_builtin)
{
	/* no model libpfm4 knows: the built-in table */
	EXPECT_EQ(1, list_has(CPU_CORE, "CPU_CLK_UNHALTED"));
	EXPECT_EQ(0, list_has(CPU_CORE, "HW_INTERRUPTS"));
}

TEST(tsc_line)
{
	/* as OpenBSD: nothing at all for a processor without a table */
	EXPECT_EQ(1, pctr_prints_tsc(CPU_CORE, 1));
	EXPECT_EQ(1, pctr_prints_tsc(CPU_AMD, 1));
	EXPECT_EQ(0, pctr_prints_tsc(CPU_CORE, 0));
	EXPECT_EQ(0, pctr_prints_tsc(CPU_UNDEF, 1));
}

TEST_HARNESS_MAIN
