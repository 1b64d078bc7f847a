// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the tools' hint line (tools/common/pmc_hint.c, issue 34):
 * which advice follows which errno, the device's name in it, and
 * --version.  The group checks run as whoever runs the tests: what is
 * asserted is that some advice naming the group pmcompat or CAP_PERFMON
 * is given.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmc_hint.h"
#include "kselftest_harness.h"

static char buf[256];

static const char *hint(const char *dev, int err)
{
	return pmc_hint_text(buf, sizeof(buf), dev, err);
}

TEST(missing_device_says_load_the_module)
{
	EXPECT_STREQ("/dev/cpc is missing: load the module (sudo modprobe pmcompat)",
		     hint("/dev/cpc", ENOENT));
	EXPECT_STREQ("/dev/pctr is missing: load the module (sudo modprobe pmcompat)",
		     hint("/dev/pctr", ENXIO));
	EXPECT_STREQ("the device is missing: load the module (sudo modprobe pmcompat)",
		     hint(NULL, ENOENT));
}

TEST(enodev_on_a_missing_node_is_the_module)
{
	EXPECT_NE(NULL, strstr(hint("/nonexistent/pmc-hint-test", ENODEV), "modprobe pmcompat"));
}

TEST(enodev_on_a_present_node_is_no_pmu)
{
	hint("/dev/null", ENODEV);
	EXPECT_NE(NULL, strstr(buf, "no hardware PMU"));
	EXPECT_NE(NULL, strstr(buf, "sw_"));
}

TEST(permission_names_the_group_or_the_capability)
{
	int errs[] = { EACCES, EPERM };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		hint("/dev/cpc", errs[i]);
		EXPECT_TRUE(strstr(buf, "group pmcompat") || strstr(buf, "CAP_PERFMON"))
			TH_LOG("%s", buf);
	}
}

TEST(busy_names_who_holds_the_counters)
{
	hint("/dev/pctr", EBUSY);
	EXPECT_NE(NULL, strstr(buf, "the counters are taken"));
	EXPECT_NE(NULL, strstr(buf, "perf user"));
}

TEST(other_errors_add_nothing)
{
	EXPECT_STREQ("", hint("/dev/cpc", EINVAL));
	EXPECT_STREQ("", hint("/dev/cpc", EIO));
}

TEST(version_option_prints_the_version)
{
	char out[128] = "", *argv[] = { "pmc_hint_test", "--version", NULL };
	int p[2], st;
	ssize_t n;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		dup2(p[1], 1);
		pmc_version_opt(2, argv);
		_exit(3);	/* not reached if --version was taken */
	}
	close(p[1]);
	n = read(p[0], out, sizeof(out) - 1);
	ASSERT_LT(0, n);
	out[n] = '\0';
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_NE(NULL, strstr(out, "(pmcompat) "));
	EXPECT_NE(NULL, strstr(out, pmc_version));
	EXPECT_LT(0, (int)strlen(pmc_version));
}

TEST(other_arguments_are_not_version)
{
	char *argv[] = { "pmc_hint_test", "-h", NULL };

	pmc_version_opt(2, argv);	/* returns */
	pmc_version_opt(1, argv);
}

TEST_HARNESS_MAIN
