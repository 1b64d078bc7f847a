// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading pmcompat.ko and the test PMU through libkmod.
 */
#include "pmc_test_util.h"
#include "kselftest_harness.h"

TEST(version_in_sysfs)
{
	char buf[64] = "";
	FILE *f = fopen("/sys/module/pmcompat/version", "r");

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	EXPECT_STREQ(PMCOMPAT_VERSION, buf);
}

TEST(unload_and_reload)
{
	ASSERT_TRUE(module_loaded("pmcompat"));
	ASSERT_EQ(0, kmod_remove("pmcompat"));
	EXPECT_FALSE(module_loaded("pmcompat"));
	ASSERT_EQ(0, pmcompat_load());
	EXPECT_TRUE(module_loaded("pmcompat"));
	/* A second load of the same module is refused. */
	EXPECT_EQ(-EEXIST, pmcompat_load());
}

TEST(reload_cycles)
{
	int i;

	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, kmod_remove("pmcompat"));
		ASSERT_EQ(0, pmcompat_load());
	}
	EXPECT_TRUE(module_loaded("pmcompat"));
}

/* perf holds a reference on the test PMU's module while an event exists. */
TEST(fakepmu_unload_refused_while_event_open)
{
	int fd;

	if (!module_loaded("fakepmu"))
		SKIP(return, NO_FAKEPMU);
	fd = open_counter(PERF_TYPE_RAW, 0xc0, -1, 0, 0, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EAGAIN, kmod_remove("fakepmu"));
	EXPECT_TRUE(module_loaded("fakepmu"));
	close(fd);
	ASSERT_EQ(0, kmod_remove("fakepmu"));
	EXPECT_FALSE(module_loaded("fakepmu"));
	EXPECT_NE(0, access("/sys/bus/event_source/devices/cpu", F_OK));
	ASSERT_EQ(0, fakepmu_reload());
	EXPECT_EQ(0, access("/sys/bus/event_source/devices/cpu", F_OK));
}

/* Out-of-range parameters are refused and leave nothing behind. */
TEST(fakepmu_bad_parameters)
{
	if (!module_loaded("fakepmu"))
		SKIP(return, NO_FAKEPMU);
	ASSERT_EQ(0, kmod_remove("fakepmu"));
	EXPECT_EQ(-EINVAL, kmod_insert(FAKEPMU_KO, "ncounters=0"));
	EXPECT_EQ(-EINVAL, kmod_insert(FAKEPMU_KO, "ncounters=33"));
	EXPECT_FALSE(module_loaded("fakepmu"));
	ASSERT_EQ(0, fakepmu_reload());
}

TEST_HARNESS_MAIN
