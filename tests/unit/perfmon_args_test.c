// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the perfmon(8) command-line handling
 * (tools/perfmon/perfmon_args.c): number parsing and its messages, the
 * options, the event operand and the resulting control word.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/perfmon.h>

#include "perfmon_args.h"
#include "kselftest_harness.h"

static char msg[PERFMON_ERRLEN];

/* perfmon_getnum() on s; returns its result, the value in *val. */
static int num(const char *s, int min, int max, int *val)
{
	msg[0] = '\0';
	*val = -12345;
	return perfmon_getnum(s, min, max, val, msg, sizeof(msg));
}

/*
 * Apply a whole command line (without argv[0]) the way main() does:
 * options first, then the operands.
 */
static int apply(struct perfmon_args *a, char *const *args)
{
	int i, n, r;

	msg[0] = '\0';
	perfmon_args_init(a);
	for (i = 0; args[i] && args[i][0] == '-'; i++) {
		const char *arg = NULL;
		int ch = args[i][1];

		if (strchr("lsUmc", ch))
			arg = args[++i];
		r = perfmon_apply_opt(a, ch, arg, msg, sizeof(msg));
		if (r != PERFMON_OPT_OK)
			return r;
	}
	for (n = 0; args[i + n]; n++)
		;
	return perfmon_apply_operands(a, n, args + i, msg, sizeof(msg));
}

#define ARGS(...)	((char *const []){ __VA_ARGS__, NULL })

TEST(getnum_bases)
{
	int v;

	ASSERT_EQ(0, num("0", 0, 255, &v));
	EXPECT_EQ(0, v);
	ASSERT_EQ(0, num("255", 0, 255, &v));
	EXPECT_EQ(255, v);
	ASSERT_EQ(0, num("0xc0", 0, 255, &v));
	EXPECT_EQ(0xc0, v);
	ASSERT_EQ(0, num("0XC0", 0, 255, &v));
	EXPECT_EQ(0xc0, v);
	ASSERT_EQ(0, num("010", 0, 255, &v));	/* octal, as strtol base 0 */
	EXPECT_EQ(8, v);
	ASSERT_EQ(0, num("+7", 0, 255, &v));
	EXPECT_EQ(7, v);
	ASSERT_EQ(0, num("-3", -5, 5, &v));
	EXPECT_EQ(-3, v);
	EXPECT_STREQ("", msg);
}

TEST(getnum_range)
{
	int v;

	ASSERT_EQ(-1, num("256", 0, 255, &v));
	EXPECT_STREQ("256: must be between 0 and 255", msg);
	EXPECT_EQ(-12345, v);
	ASSERT_EQ(-1, num("-1", 0, 255, &v));
	EXPECT_STREQ("-1: must be between 0 and 255", msg);
	ASSERT_EQ(-1, num("0x100", 0, 255, &v));
	EXPECT_STREQ("0x100: must be between 0 and 255", msg);
	ASSERT_EQ(-1, num("2147483647", 1, INT_MAX - 1, &v));
	EXPECT_STREQ("2147483647: must be between 1 and 2147483646", msg);
	ASSERT_EQ(0, num("2147483646", 1, INT_MAX - 1, &v));
	EXPECT_EQ(INT_MAX - 1, v);
	/* Beyond int but within long: still a range error, not truncated. */
	ASSERT_EQ(-1, num("4294967296", 1, INT_MAX - 1, &v));
	EXPECT_STREQ("4294967296: must be between 1 and 2147483646", msg);
}

TEST(getnum_not_integer)
{
	static const char *const bad[] = {
		"", "abc", "12abc", "5 ", "0x", "1.5", "09",
		"99999999999999999999999",	/* strtol: ERANGE */
	};
	char want[PERFMON_ERRLEN];
	size_t i;
	int v;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(-1, num(bad[i], 0, 255, &v)) TH_LOG("\"%s\"", bad[i]);
		snprintf(want, sizeof(want), "%s: parameter must be an integer",
			 bad[i]);
		EXPECT_STREQ(want, msg);
		EXPECT_EQ(-12345, v);
	}
}

TEST(getnum_long_argument_truncated_safely)
{
	char big[300];
	int v;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ASSERT_EQ(-1, num(big, 0, 255, &v));
	EXPECT_EQ(PERFMON_ERRLEN - 1, (int)strlen(msg));
}

TEST(defaults)
{
	struct perfmon_args a;

	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("0xc0")));
	EXPECT_EQ(0, a.pmc.pmc_num);
	EXPECT_EQ(0xc0, a.pmc.pmc_event);
	EXPECT_EQ(0, a.pmc.pmc_unit);
	EXPECT_EQ(0, a.pmc.pmc_flags);
	EXPECT_EQ(0, a.pmc.pmc_mask);
	EXPECT_EQ(50, a.loops);
	EXPECT_EQ(0, a.sleeptime);
	EXPECT_EQ(NULL, a.cmd);
}

TEST(flags)
{
	struct perfmon_args a;

	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("-u", "1")));
	EXPECT_EQ(PMCF_USR, a.pmc.pmc_flags);
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("-o", "1")));
	EXPECT_EQ(PMCF_OS, a.pmc.pmc_flags);
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("-e", "1")));
	EXPECT_EQ(PMCF_E, a.pmc.pmc_flags);
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("-i", "1")));
	EXPECT_EQ(PMCF_INV, a.pmc.pmc_flags);
	ASSERT_EQ(PERFMON_OPT_OK,
		  apply(&a, ARGS("-i", "-u", "-u", "-e", "-o", "1")));
	EXPECT_EQ(PMCF_USR | PMCF_OS | PMCF_E | PMCF_INV, a.pmc.pmc_flags);
}

TEST(control_word)
{
	struct perfmon_args a;

	/* The man page's example, and every field at once. */
	ASSERT_EQ(PERFMON_OPT_OK,
		  apply(&a, ARGS("-u", "-o", "-l", "10", "0xc0")));
	EXPECT_EQ(0x000300c0U, a.pmc.pmc_val);
	EXPECT_EQ(10, a.loops);
	ASSERT_EQ(PERFMON_OPT_OK,
		  apply(&a, ARGS("-U", "0x12", "-m", "3", "-u", "-e",
				 "-i", "0x2e")));
	EXPECT_EQ(0x0385122eU, a.pmc.pmc_val);
	EXPECT_EQ(0, a.pmc.pmc_num);
}

TEST(unit_and_mask_take_256_as_0)
{
	struct perfmon_args a;

	ASSERT_EQ(PERFMON_OPT_OK,
		  apply(&a, ARGS("-U", "255", "-m", "255", "1")));
	EXPECT_EQ(255, a.pmc.pmc_unit);
	EXPECT_EQ(255, a.pmc.pmc_mask);
	ASSERT_EQ(PERFMON_OPT_OK,
		  apply(&a, ARGS("-U", "256", "-m", "256", "1")));
	EXPECT_EQ(0, a.pmc.pmc_unit);
	EXPECT_EQ(0, a.pmc.pmc_mask);
	ASSERT_EQ(PERFMON_OPT_ERR, apply(&a, ARGS("-U", "257", "1")));
	EXPECT_STREQ("257: must be between 0 and 256", msg);
	ASSERT_EQ(PERFMON_OPT_ERR, apply(&a, ARGS("-m", "-1", "1")));
	EXPECT_STREQ("-1: must be between 0 and 256", msg);
	ASSERT_EQ(PERFMON_OPT_ERR, apply(&a, ARGS("-m", "x", "1")));
	EXPECT_STREQ("x: parameter must be an integer", msg);
}

TEST(loops_sleep_command)
{
	struct perfmon_args a;

	ASSERT_EQ(PERFMON_OPT_OK,
		  apply(&a, ARGS("-l", "1", "-s", "2", "-c", "true", "1")));
	EXPECT_EQ(1, a.loops);
	EXPECT_EQ(2, a.sleeptime);
	EXPECT_STREQ("true", a.cmd);
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("-l", "2147483646", "1")));
	EXPECT_EQ(INT_MAX - 1, a.loops);
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("-s", "0", "1")));
	EXPECT_EQ(0, a.sleeptime);
	ASSERT_EQ(PERFMON_OPT_ERR, apply(&a, ARGS("-l", "0", "1")));
	EXPECT_STREQ("0: must be between 1 and 2147483646", msg);
	ASSERT_EQ(PERFMON_OPT_ERR, apply(&a, ARGS("-s", "-1", "1")));
	EXPECT_STREQ("-1: must be between 0 and 2147483646", msg);
	ASSERT_EQ(PERFMON_OPT_ERR, apply(&a, ARGS("-l", "ten", "1")));
	EXPECT_STREQ("ten: parameter must be an integer", msg);
	/* The last of repeated options wins. */
	ASSERT_EQ(PERFMON_OPT_OK,
		  apply(&a, ARGS("-l", "3", "-l", "4", "-c", "a", "-c", "b",
				 "1")));
	EXPECT_EQ(4, a.loops);
	EXPECT_STREQ("b", a.cmd);
}

TEST(first_bad_option_stops)
{
	struct perfmon_args a;

	ASSERT_EQ(PERFMON_OPT_ERR,
		  apply(&a, ARGS("-l", "0", "-U", "999", "1")));
	EXPECT_STREQ("0: must be between 1 and 2147483646", msg);
}

TEST(usage_cases)
{
	struct perfmon_args a;

	perfmon_args_init(&a);
	EXPECT_EQ(PERFMON_OPT_USAGE,
		  perfmon_apply_opt(&a, '?', NULL, msg, sizeof(msg)));
	EXPECT_EQ(PERFMON_OPT_USAGE,
		  perfmon_apply_opt(&a, ':', NULL, msg, sizeof(msg)));
	EXPECT_EQ(PERFMON_OPT_USAGE,
		  perfmon_apply_opt(&a, 'x', NULL, msg, sizeof(msg)));
	EXPECT_EQ(PERFMON_OPT_USAGE,
		  perfmon_apply_opt(&a, 'l', NULL, msg, sizeof(msg)));
	EXPECT_EQ(PERFMON_OPT_USAGE,
		  perfmon_apply_opt(&a, 'c', NULL, msg, sizeof(msg)));
	/* Exactly one operand. */
	EXPECT_EQ(PERFMON_OPT_USAGE, apply(&a, ARGS("-u")));
	EXPECT_EQ(PERFMON_OPT_USAGE, apply(&a, ARGS("1", "2")));
	EXPECT_EQ(PERFMON_OPT_USAGE, apply(&a, ARGS("-u", "1", "2")));
}

TEST(event_operand)
{
	struct perfmon_args a;

	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("255")));
	EXPECT_EQ(255, a.pmc.pmc_event);
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("0")));
	EXPECT_EQ(0, a.pmc.pmc_event);
	ASSERT_EQ(PERFMON_OPT_ERR, apply(&a, ARGS("256")));
	EXPECT_STREQ("256: must be between 0 and 255", msg);
	ASSERT_EQ(PERFMON_OPT_ERR, apply(&a, ARGS("0xc0xx")));
	EXPECT_STREQ("0xc0xx: parameter must be an integer", msg);
}

/* ---- perfmon.8 is the spec: what the page says, the parser does ------- */

/* The page, read whole (PERFMON_PAGE is its path). */
static char *page(void)
{
	static char buf[65536];
	FILE *f = fopen(PERFMON_PAGE, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/*
 * The SYNOPSIS lists the options: ".Op Fl eiou" for the flags and
 * ".Op Fl X Ar arg" for those with an argument; together they are
 * PERFMON_GETOPT, and each one is taken by perfmon_apply_opt().
 */
TEST(page_synopsis_is_getopt)
{
	char flags[32] = "", withargs[32] = "", *p, *end;
	const char *g;
	char *txt = page();

	ASSERT_NE(NULL, txt);
	p = strstr(txt, ".Sh SYNOPSIS\n");
	ASSERT_NE(NULL, p);
	end = strstr(p, ".Sh DESCRIPTION");
	ASSERT_NE(NULL, end);
	*end = '\0';
	while ((p = strstr(p, ".Op Fl "))) {
		char word[32];

		p += strlen(".Op Fl ");
		ASSERT_EQ(1, sscanf(p, "%31s", word));
		if (strncmp(p + strlen(word), " Ar ", 4))
			strcat(flags, word);
		else
			strncat(withargs, word, 1);
	}
	*end = '.';
	EXPECT_STREQ("eiou", flags);
	/* every getopt letter is on the page, with or without argument */
	for (g = PERFMON_GETOPT + 1; *g; g++) {
		if (*g == ':')
			continue;
		const char *set = g[1] == ':' ? withargs : flags;

		EXPECT_NE(NULL, strchr(set, *g)) TH_LOG("-%c", *g);
	}
	EXPECT_EQ(strlen(flags) + strlen(withargs),
		  strlen(PERFMON_GETOPT + 1) - strlen(withargs));
	/* and the parser takes each one */
	for (g = flags; *g; g++) {
		struct perfmon_args a;

		perfmon_args_init(&a);
		EXPECT_EQ(PERFMON_OPT_OK,
			  perfmon_apply_opt(&a, *g, NULL, msg, sizeof(msg)));
	}
	for (g = withargs; *g; g++) {
		struct perfmon_args a;

		perfmon_args_init(&a);
		EXPECT_EQ(PERFMON_OPT_OK,
			  perfmon_apply_opt(&a, *g, "1", msg, sizeof(msg)))
			TH_LOG("-%c 1", *g);
	}
}

/*
 * The range the page gives an option (".It Fl X Ar arg" ... "from MIN to
 * MAX"), or the operand's ("a number from MIN to MAX").
 */
static int page_range(const char *txt, const char *item, long *min,
		      long *max)
{
	const char *p = strstr(txt, item), *stop;

	if (!p)
		return -1;
	stop = strstr(p + 1, "\n.It ");
	p = strstr(p, "from ");
	if (!p || (stop && p > stop))
		return -1;
	return sscanf(p, "from %ld to %ld", min, max) == 2 ? 0 : -1;
}

/* Every range on the page: both ends taken, one beyond each refused. */
TEST(page_ranges)
{
	static const struct {
		const char *item;
		int ch;		/* 0: the operand */
	} r[] = {
		{ ".It Fl l Ar nloops", 'l' },
		{ ".It Fl m Ar mask", 'm' },
		{ ".It Fl s Ar sleeptime", 's' },
		{ ".It Fl U Ar unit", 'U' },
		{ "is, despite its name, the event to count: a number", 0 },
	};
	char *txt = page();
	unsigned int i, k;

	ASSERT_NE(NULL, txt);
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		long min, max, v[4];
		char want[64];

		ASSERT_EQ(0, page_range(txt, r[i].item, &min, &max))
			TH_LOG("%s", r[i].item);
		v[0] = min;
		v[1] = max;
		v[2] = min - 1;
		v[3] = max + 1;
		for (k = 0; k < 4; k++) {
			struct perfmon_args a;
			char arg[32];
			int res;

			snprintf(arg, sizeof(arg), "%ld", v[k]);
			perfmon_args_init(&a);
			msg[0] = '\0';
			if (r[i].ch)
				res = perfmon_apply_opt(&a, r[i].ch, arg, msg,
							sizeof(msg));
			else
				res = perfmon_apply_operands(&a, 1,
							     (char *[]){ arg },
							     msg, sizeof(msg));
			EXPECT_EQ(k < 2 ? PERFMON_OPT_OK : PERFMON_OPT_ERR, res)
				TH_LOG("%s %s", r[i].item, arg);
			if (k < 2)
				continue;
			snprintf(want, sizeof(want),
				 "%s: must be between %ld and %ld", arg, min,
				 max);
			EXPECT_STREQ(want, msg);
		}
	}
}

/* "in decimal, in hexadecimal with a leading 0x, or in octal with 0" */
TEST(page_operand_bases)
{
	struct perfmon_args a;
	char *txt = page();

	ASSERT_NE(NULL, txt);
	ASSERT_NE(NULL, strstr(txt, "in hexadecimal with a leading\n.Ql 0x"));
	ASSERT_NE(NULL, strstr(txt, "or in octal with a leading\n.Ql 0 ."));
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("0xc0")));
	EXPECT_EQ(0xc0, a.pmc.pmc_event);
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("0300")));
	EXPECT_EQ(0xc0, a.pmc.pmc_event);
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("192")));
	EXPECT_EQ(0xc0, a.pmc.pmc_event);
	/* the page's examples parse */
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("-u", "-o", "-l", "10",
						 "0xc0")));
	EXPECT_EQ(10, a.loops);
	EXPECT_EQ(PMCF_USR | PMCF_OS, a.pmc.pmc_flags);
	ASSERT_EQ(PERFMON_OPT_OK, apply(&a, ARGS("-u", "-o", "-s", "1", "-l",
						 "5", "0x3c")));
	EXPECT_EQ(1, a.sleeptime);
	EXPECT_EQ(5, a.loops);
	EXPECT_EQ(0x3c, a.pmc.pmc_event);
}

TEST_HARNESS_MAIN
