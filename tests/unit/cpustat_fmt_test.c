// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the output of cpustat(8) and cputrack(1)
 * (tools/cpctools/cpct_fmt.c): the column headers, titles and rows with the
 * original widths, and the wrapping of the -h lists as Solaris' caps.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpctools.h"

#include "kselftest_harness.h"

/* What fn wrote, through a memory stream. */
#define CAPTURE(buf, call) do {						\
	size_t len_;							\
	char *p_ = NULL;						\
	FILE *f = open_memstream(&p_, &len_);				\
									\
	ASSERT_NE(NULL, f);						\
	call;								\
	fclose(f);							\
	snprintf(buf, sizeof(buf), "%s", p_);				\
	free(p_);							\
} while (0)

static const struct cpct_set two = { .spec = "s", .nreqs = 2, .pic = { 0, 1 } };
static const struct cpct_set wide = { .spec = "w", .nreqs = 1, .pic = { 123 } };

TEST(pic_headers_are_ten_characters)
{
	char hdr[11];

	cpct_pic_header(hdr, 0);
	EXPECT_STREQ("     pic0 ", hdr);
	cpct_pic_header(hdr, 17);
	EXPECT_STREQ("     pic17", hdr);
	/* Three digits: the eleventh character is cut, as in the original. */
	cpct_pic_header(hdr, 123);
	EXPECT_STREQ("     pic12", hdr);
}

TEST(cpustat_title_and_rows)
{
	static const uint64_t v[2] = { 1234567, 0 };
	char out[512];

	CAPTURE(out, cpustat_title(f, 0, &two));
	EXPECT_STREQ("   time cpu event      pic0      pic1 \n", out);
	CAPTURE(out, cpustat_title(f, 1, &wide));
	EXPECT_STREQ("   time cpu event       tsc      pic12\n", out);
	CAPTURE(out, cpustat_row(f, 5.0071, 3, "tick", 0, 0, v, 2, NULL));
	EXPECT_STREQ("  5.007   3  tick   1234567         0 \n", out);
	CAPTURE(out, cpustat_row(f, 10.5, 4, "total", 1, 98765, v, 1, "pic0=a,sys"));
	EXPECT_STREQ(" 10.500   4 total     98765   1234567  # pic0=a,sys\n", out);
	/* Wider values widen the column, nothing is cut. */
	CAPTURE(out, cpustat_row(f, 1234.5, 1000, "tick", 0, 0,
				 (const uint64_t[]){ 12345678901ULL }, 1, NULL));
	EXPECT_STREQ("1234.500 1000  tick 12345678901 \n", out);
}

TEST(cputrack_title_and_rows)
{
	static const uint64_t v[2] = { 42, 7 };
	char out[512];

	CAPTURE(out, cputrack_title(f, 0, 0, &two));
	EXPECT_STREQ("   time lwp      event      pic0      pic1 \n", out);
	CAPTURE(out, cputrack_title(f, 1, 1, &two));
	EXPECT_STREQ("   time    pid lwp      event       tsc      pic0      pic1 \n", out);
	CAPTURE(out, cputrack_row(f, 1.0004, 0, 0, 1, "tick", 0, 0, v, 2, NULL, NULL));
	EXPECT_STREQ("  1.000   1       tick        42         7 \n", out);
	CAPTURE(out, cputrack_row(f, 2.5, 1, 4321, 2, "lwp_create", 1, 99, v, 1, NULL, NULL));
	EXPECT_STREQ("  2.500   4321   2 lwp_create        99        42 \n", out);
	CAPTURE(out, cputrack_row(f, 3, 1, 4321, 1, "fork", 0, 0, v, 1, NULL, "# 4322"));
	EXPECT_STREQ("  3.000   4321   1       fork        42 # 4322\n", out);
	CAPTURE(out, cputrack_row(f, 3, 0, 0, 1, "exec", 0, 0, v, 1, NULL, "# '/bin/ls'"));
	EXPECT_STREQ("  3.000   1       exec        42 # '/bin/ls'\n", out);
	CAPTURE(out, cputrack_row(f, 4, 0, 0, 1, "exit", 0, 0, v, 2, "pic0=x", NULL));
	EXPECT_STREQ("  4.000   1       exit        42         7  # pic0=x\n", out);
}

TEST(wrapping_as_solaris_caps)
{
	struct cpct_caps_col c;
	char out[1024];
	int i;

	/*
	 * Solaris' caps.c: "word " each; the column counts from the margin
	 * (17) whatever the prefix, a word goes to the next line when it and
	 * its space would pass 76: five of 9 letters a line (17 + 5 x 10 = 67).
	 */
	CAPTURE(out, ({
		fputs("\tevent[0-3]: ", f);
		cpct_caps_start(&c, f, 17, 17);
		for (i = 0; i < 11; i++)
			cpct_caps_word(&c, "abcdefghi", NULL);
		fputc('\n', f);
	}));
	EXPECT_STREQ("\tevent[0-3]: abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi \n"
		     "                 abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi \n"
		     "                 abcdefghi \n", out);
	/* the reference text: a new line and a tab, from column 8 */
	CAPTURE(out, ({
		fputs("\t", f);
		cpct_caps_start(&c, f, 8, 8);
		for (i = 0; i < 8; i++)
			cpct_caps_word(&c, "abcdefghijklmnopq", "\n\t");
		fputc('\n', f);
	}));
	EXPECT_STREQ("\tabcdefghijklmnopq abcdefghijklmnopq abcdefghijklmnopq \n"
		     "\tabcdefghijklmnopq abcdefghijklmnopq abcdefghijklmnopq \n"
		     "\tabcdefghijklmnopq abcdefghijklmnopq \n", out);
}

TEST_HARNESS_MAIN
