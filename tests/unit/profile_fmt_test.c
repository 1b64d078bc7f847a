// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the flat profile of uprofile(1) and kprofile(1)
 * (tools/profile/profile_fmt.c): buckets credited to functions, the order
 * and the exact text, the event names and rates of -e and -f, and the
 * EV5 register values they give.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/pfcntr.h>

#include "profile_fmt.h"
#include "kselftest_harness.h"

/* The flat profile of buckets over t as text (to be freed). */
static char *profile_text(struct prof_symtab *t, const uint32_t *b, size_t n,
			  uint64_t start, uint64_t bytes, const char *title)
{
	struct prof_entry *e;
	uint64_t total;
	char *buf = NULL;
	size_t len = 0;
	long ne;
	FILE *f;

	ne = prof_aggregate(t, b, n, start, bytes, &e, &total);
	if (ne < 0)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	prof_print(f, title, e, ne, total);
	fclose(f);
	free(e);
	return buf;
}

/* hot_a [0x1000, 0x1040), hot_b [0x1040, 0x1060), main [0x1060, 0x1100). */
static void three_functions(struct prof_symtab *t)
{
	prof_symtab_init(t);
	prof_symtab_add(t, 0x1060, 0xa0, "main", true);
	prof_symtab_add(t, 0x1000, 0x40, "hot_a", true);
	prof_symtab_add(t, 0x1040, 0x20, "hot_b", false);
}

#define HEADER	" %time  cumulative        self  name\n" \
		"           samples     samples\n"

TEST(two_hot_functions)
{
	struct prof_symtab t;
	uint32_t b[16] = { 0 };
	char *out;

	three_functions(&t);
	b[0] = 100;	/* 0x1000: hot_a */
	b[3] = 200;	/* 0x1030: hot_a */
	b[4] = 100;	/* 0x1040: hot_b */
	out = profile_text(&t, b, 16, 0x1000, 16, "T");
	ASSERT_NE(NULL, out);
	EXPECT_STREQ("T\n\n" HEADER
		     " 75.00         300         300  hot_a\n"
		     " 25.00         400         100  hot_b\n", out);
	free(out);
	prof_symtab_free(&t);
}

TEST(ties_by_name_and_unknown)
{
	struct prof_symtab t;
	uint32_t b[32] = { 0 };
	char *out;

	three_functions(&t);
	b[6] = 5;	/* 0x1060: main */
	b[0] = 5;	/* hot_a */
	b[5] = 5;	/* 0x1050: hot_b */
	b[16] = 1;	/* 0x1100: past main's end */
	b[31] = 4;	/* 0x11f0 */
	out = profile_text(&t, b, 32, 0x1000, 16, "title");
	ASSERT_NE(NULL, out);
	EXPECT_STREQ("title\n\n" HEADER
		     " 25.00           5           5  (unknown)\n"
		     " 25.00          10           5  hot_a\n"
		     " 25.00          15           5  hot_b\n"
		     " 25.00          20           5  main\n", out);
	free(out);
	prof_symtab_free(&t);
}

/* A bucket goes to the function at its first byte, else the first inside it. */
TEST(bucket_across_functions)
{
	struct prof_symtab t;
	uint32_t b[4] = { 0 };
	char *out;

	prof_symtab_init(&t);
	prof_symtab_add(&t, 0x2008, 0x10, "f", true);
	prof_symtab_add(&t, 0x2018, 0x30, "g", true);
	b[0] = 7;	/* [0x2000, 0x2010): before f, f begins inside: f */
	b[1] = 3;	/* [0x2010, 0x2020): f at its first byte */
	b[2] = 1;	/* [0x2020, 0x2030): g */
	out = profile_text(&t, b, 4, 0x2000, 16, "x");
	ASSERT_NE(NULL, out);
	EXPECT_STREQ("x\n\n" HEADER
		     " 90.91          10          10  f\n"
		     "  9.09          11           1  g\n", out);
	free(out);
	prof_symtab_free(&t);
}

/* Stride 0: one bucket for the whole range. */
TEST(one_bucket)
{
	struct prof_symtab t;
	uint32_t b[1] = { 42 };
	char *out;

	three_functions(&t);
	out = profile_text(&t, b, 1, 0x1000, 0x100, "x");
	ASSERT_NE(NULL, out);
	EXPECT_STREQ("x\n\n" HEADER
		     "100.00          42          42  hot_a\n", out);
	free(out);
	prof_symtab_free(&t);
}

TEST(no_samples)
{
	struct prof_symtab t;
	uint32_t b[8] = { 0 };
	char *out;

	three_functions(&t);
	out = profile_text(&t, b, 8, 0x1000, 16, "empty");
	ASSERT_NE(NULL, out);
	EXPECT_STREQ("empty\n\n" HEADER "(no samples)\n", out);
	free(out);
	prof_symtab_free(&t);
}

/* Large counts keep their columns' alignment up to 11 digits. */
TEST(wide_counts)
{
	struct prof_symtab t;
	uint32_t b[2] = { 4000000000U, 4000000000U };
	char *out;

	prof_symtab_init(&t);
	prof_symtab_add(&t, 0x1000, 0x10, "a", true);
	prof_symtab_add(&t, 0x1010, 0x10, "b", true);
	out = profile_text(&t, b, 2, 0x1000, 16, "w");
	ASSERT_NE(NULL, out);
	EXPECT_STREQ("w\n\n" HEADER
		     " 50.00  4000000000  4000000000  a\n"
		     " 50.00  8000000000  4000000000  b\n", out);
	free(out);
	prof_symtab_free(&t);
}

TEST(title)
{
	char buf[256];

	prof_title(buf, sizeof(buf), "uprofile: /bin/x", 400, prof_event_find("cycles"),
		   65536, "user mode");
	EXPECT_STREQ("uprofile: /bin/x: 400 samples, one every 65536 events of cycles (user mode)",
		     buf);
	prof_title(buf, sizeof(buf), "kprofile", 1, prof_event_find("dcache_misses"),
		   256, "kernel mode");
	EXPECT_STREQ("kprofile: 1 sample, one every 256 events of dcache_misses (kernel mode)",
		     buf);
}

TEST(events)
{
	const struct prof_event *ev;

	ev = prof_event_find("cycles");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->counter);
	EXPECT_EQ(PF5_MUX0_CYCLES, prof_mux_value(ev));
	EXPECT_EQ(ev, prof_event_find("PF5_MUX0_CYCLES"));
	EXPECT_EQ(ev, prof_event_find("CYCLES"));

	ev = prof_event_find("issues");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(PF5_MUX0_ISSUES, prof_mux_value(ev));

	ev = prof_event_find("flow_change");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1, ev->counter);
	EXPECT_EQ(PF5_MUX1_FLOW_CHANGE, prof_mux_value(ev));

	ev = prof_event_find("PF5_MUX2_C_SCACHE_READ_MISS");
	ASSERT_NE(NULL, ev);
	EXPECT_STREQ("scache_read_miss", ev->name);
	EXPECT_EQ(2, ev->counter);

	EXPECT_EQ(NULL, prof_event_find("replay_trap"));	/* not available */
	EXPECT_EQ(NULL, prof_event_find("pf5_mux0_cycles"));
	EXPECT_EQ(NULL, prof_event_find(""));
}

/* Tru64's statistic names (pfm(7): EV5, and three EV6 ones), any case. */
TEST(tru64_statistic_names)
{
	static const char *const pairs[][2] = {
		{ "cycles0", "cycles" }, { "issues", "issues" },
		{ "pipedry", "pipeline_dry" }, { "flowchanges", "flow_change" },
		{ "loads", "load_instructions" }, { "stores", "store_instructions" },
		{ "icacheacc", "icache_access" }, { "dcacheacc", "dcache_access" },
		{ "scacheacc", "scache_access" }, { "scachereads", "scache_read" },
		{ "scachewrites1", "scache_write" },
		{ "branchmispredicts", "branch_mispredicts" },
		{ "icachemisses", "icache_misses" }, { "itbmisses", "itb_miss" },
		{ "dcacheldmisses", "dcache_misses" }, { "dtbmisses", "dtb_miss" },
		{ "scachemisses", "scache_miss" }, { "scachereadmisses", "scache_read_miss" },
		{ "scachewritemisses", "scache_write_miss" },
		{ "retinst", "issues" }, { "retitbmiss", "itb_miss" },
		{ "retdtb1miss", "dtb_miss" }, { "Flowchanges", "flow_change" },
	};
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const struct prof_event *ev = prof_event_find(pairs[i][0]);

		ASSERT_NE(NULL, ev) TH_LOG("%s", pairs[i][0]);
		EXPECT_STREQ(pairs[i][1], ev->name);
	}
	/* EV6 statistics with no EV5 event that counts them here. */
	EXPECT_EQ(NULL, prof_event_find("retcondbranch"));
	EXPECT_EQ(NULL, prof_event_find("replay"));
}

static int parse(struct prof_cmdline *c, bool kernel, char *err, const char *const *args)
{
	char *argv[16];
	int argc = 0;

	argv[argc++] = "prof";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	return prof_parse_cmdline(c, argc, argv, kernel, err, PROF_ERRLEN);
}

/* Tru64's command lines, and this tool's. */
TEST(command_lines)
{
	struct prof_cmdline c;
	char err[PROF_ERRLEN];

	/* uprofile -stride 2 -all dcacheldmisses ./a.out 1 */
	ASSERT_EQ(0, parse(&c, false, err, (const char *[]){ "-v", "-quiet", "-stride", "2",
		  "-all", "dcacheldmisses", "./a.out", "1", NULL }));
	EXPECT_STREQ("dcache_misses", c.ev->name);
	EXPECT_EQ(2UL, c.stride);
	EXPECT_EQ(7, c.cmd);
	/* A command named like no statistic is the command. */
	ASSERT_EQ(0, parse(&c, false, err, (const char *[]){ "-e", "issues", "-o", "f", "make",
		  "cycles", NULL }));
	EXPECT_STREQ("issues", c.ev->name);
	EXPECT_STREQ("f", c.out);
	EXPECT_EQ(5, c.cmd);
	ASSERT_EQ(0, parse(&c, false, err, (const char *[]){ "-f256", "--", "cycles0", "x", NULL }));
	EXPECT_STREQ("256", c.rate_arg);
	EXPECT_STREQ("cycles", c.ev->name);	/* a statistic operand after -- too */
	EXPECT_EQ(4, c.cmd);
	ASSERT_EQ(0, parse(&c, false, err, (const char *[]){ "./cycles", NULL }));
	EXPECT_EQ(NULL, c.ev);
	EXPECT_EQ(1, c.cmd);
	/* kprofile -ra retinst 10 */
	ASSERT_EQ(0, parse(&c, true, err, (const char *[]){ "-ra", "retinst", "10", NULL }));
	EXPECT_TRUE(c.caller);
	EXPECT_STREQ("issues", c.ev->name);
	EXPECT_EQ(3, c.cmd);
	ASSERT_EQ(0, parse(&c, true, err, (const char *[]){ "-c", NULL }));
	EXPECT_TRUE(c.caller);
	EXPECT_EQ(2, c.cmd);
	/* Errors. */
	EXPECT_EQ(-1, parse(&c, false, err, (const char *[]){ "-ra", "x", NULL }));
	EXPECT_EQ(-1, parse(&c, false, err, (const char *[]){ "-c", "x", NULL }));
	EXPECT_EQ(-1, parse(&c, false, err, (const char *[]){ "-stride", "3", "x", NULL }));
	EXPECT_STREQ("-stride 3: a power of 2 from 1 to 16777216 instructions", err);
	EXPECT_EQ(-1, parse(&c, false, err, (const char *[]){ "-each", "x", NULL }));
	EXPECT_STREQ("-each: Tru64's option is not supported (see COMPATIBILITY in the manual)",
		     err);
	EXPECT_EQ(-1, parse(&c, false, err, (const char *[]){ "cycles", "issues", "x", NULL }));
	EXPECT_STREQ("issues: one statistic at a time (the device profiles one event)", err);
	EXPECT_EQ(-1, parse(&c, false, err, (const char *[]){ "-e", "nosuch", "x", NULL }));
	EXPECT_STREQ("unknown event nosuch (see the EVENTS section of the manual)", err);
	EXPECT_EQ(-1, parse(&c, false, err, (const char *[]){ "-e", NULL }));
}

TEST(rates)
{
	const struct prof_event *c0 = prof_event_find("cycles");
	const struct prof_event *c1 = prof_event_find("flow_change");
	const struct prof_event *c2 = prof_event_find("dcache_misses");
	unsigned long r;
	char err[PROF_ERRLEN];

	EXPECT_EQ(65536UL, prof_rate_default(0));
	EXPECT_EQ(16384UL, prof_rate_default(2));
	EXPECT_EQ(0, prof_parse_rate(c0, "65536", &r, err, sizeof(err)));
	EXPECT_EQ(65536UL, r);
	EXPECT_EQ(0, prof_parse_rate(c0, "256", &r, err, sizeof(err)));
	EXPECT_EQ(256UL, r);
	EXPECT_EQ(0, prof_parse_rate(c2, "16384", &r, err, sizeof(err)));
	EXPECT_EQ(-1, prof_parse_rate(c2, "65536", &r, err, sizeof(err)));
	EXPECT_STREQ("frequency 65536: dcache_misses (counter 2) interrupts every 16384 or every 256 events",
		     err);
	EXPECT_EQ(-1, prof_parse_rate(c0, "4096", &r, err, sizeof(err)));
	EXPECT_EQ(-1, prof_parse_rate(c0, "", &r, err, sizeof(err)));
	EXPECT_EQ(-1, prof_parse_rate(c0, "256x", &r, err, sizeof(err)));
	EXPECT_EQ(-1, prof_parse_rate(c0, "-256", &r, err, sizeof(err)));

	/* PCNT5FREQ: the event's counter at its rate, the others off. */
	EXPECT_EQ((uint64_t)PF5_C0_INT_EVERY_65536, prof_freq_value(c0, 65536));
	EXPECT_EQ((uint64_t)PF5_C0_INT_EVERY_256, prof_freq_value(c0, 256));
	EXPECT_EQ((uint64_t)PF5_C1_INT_EVERY_65536, prof_freq_value(c1, 65536));
	EXPECT_EQ((uint64_t)PF5_C1_INT_EVERY_256, prof_freq_value(c1, 256));
	EXPECT_EQ((uint64_t)PF5_C2_INT_EVERY_16384, prof_freq_value(c2, 16384));
	EXPECT_EQ((uint64_t)PF5_C2_INT_EVERY_256, prof_freq_value(c2, 256));
	EXPECT_EQ((unsigned int)PF5_SEL_COUNTER_0, prof_select_value(c0));
	EXPECT_EQ((unsigned int)PF5_SEL_COUNTER_1, prof_select_value(c1));
	EXPECT_EQ((unsigned int)PF5_SEL_COUNTER_2, prof_select_value(c2));
}

TEST_HARNESS_MAIN
