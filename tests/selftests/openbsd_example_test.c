// SPDX-License-Identifier: GPL-2.0
/*
 * The OpenBSD-style example program (tests/examples/openbsd-pctr.c), built
 * against the installed headers with README's compile line, prints exact
 * injected counts through PCIOCRD and rdpmc().
 */
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <machine/pctr.h>
#include "pmc_test_util.h"
#include "kselftest_harness.h"

#define EXAMPLE pmc_test_file("openbsd-pctr-example")

/* Run the example; parse "fn0 %x tsc_ok %d ctr0 %llu rdpmc0 %llu". */
static int run_example(unsigned int *fn, int *tsc_ok, unsigned long long *ctr,
		       unsigned long long *pmc)
{
	char line[256] = "";
	FILE *p = popen(EXAMPLE, "r");
	int n;

	if (!p)
		return -1;
	if (!fgets(line, sizeof(line), p))
		line[0] = 0;
	if (pclose(p) != 0)
		return -1;
	n = sscanf(line, "fn0 %x tsc_ok %d ctr0 %llu rdpmc0 %llu", fn, tsc_ok, ctr, pmc);
	return n == 4 ? 0 : -1;
}

static void clear_counter0(void)
{
	unsigned int zero = 0;
	int fd = open(_PATH_PCTR, O_RDWR);

	if (fd >= 0) {
		ioctl(fd, PCIOCS0, &zero);
		close(fd);
	}
}

TEST(example_prints_exact_injected_counts)
{
	unsigned long long ctr, pmc;
	unsigned int fn;
	int tsc_ok;

	if (!have_fakepmu())
		SKIP(return, NO_FAKEPMU);
	ASSERT_EQ(0, pin_to_cpu(1));
	clear_counter0();

	ASSERT_EQ(0, run_example(&fn, &tsc_ok, &ctr, &pmc));
	EXPECT_EQ((unsigned int)(0xc0 | PCTR_U | PCTR_K | PCTR_EN), fn);
	EXPECT_EQ(1, tsc_ok);
	EXPECT_EQ(0ULL, ctr);
	EXPECT_EQ(0ULL, pmc);

	ASSERT_EQ(0, inject(1, 0xc0, 4242));
	ASSERT_EQ(0, inject_ip(1, 0xc0, 58, 1, 0xffffffff81000000ULL));
	ASSERT_EQ(0, inject(2, 0xc0, 1000));	/* another CPU's counter */
	ASSERT_EQ(0, run_example(&fn, &tsc_ok, &ctr, &pmc));
	EXPECT_EQ(4300ULL, ctr);
	EXPECT_EQ(4300ULL, pmc);
	clear_counter0();
}

TEST_HARNESS_MAIN
