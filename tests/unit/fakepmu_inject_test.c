// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the test PMU's inject-command parser.
 */
#include <errno.h>
#include <string.h>
#include "../fakepmu/inject_parse.h"
#include "kselftest_harness.h"

static int parse(const char *s, struct fakepmu_inject *r)
{
	return fakepmu_parse_inject(s, strlen(s), r);
}

TEST(minimal_command)
{
	struct fakepmu_inject r;

	memset(&r, 0xcc, sizeof(r));
	ASSERT_EQ(0, parse("cpu=3 event=0x01c0 count=42", &r));
	EXPECT_EQ(3U, r.cpu);
	EXPECT_EQ(0x1c0U, r.event);
	EXPECT_EQ(42ULL, r.count);
	EXPECT_EQ(0ULL, r.ip);
	EXPECT_EQ(0, r.kernel);
}

TEST(all_keys_any_order_trailing_newline)
{
	struct fakepmu_inject r;

	ASSERT_EQ(0, parse("ip=0xFFFFffff81000000 mode=kernel count=0x10 event=192 cpu=0\n", &r));
	EXPECT_EQ(0U, r.cpu);
	EXPECT_EQ(0xc0U, r.event);
	EXPECT_EQ(16ULL, r.count);
	EXPECT_EQ(0xffffffff81000000ULL, r.ip);
	EXPECT_EQ(1, r.kernel);
	ASSERT_EQ(0, parse("cpu=1 event=0xc0 count=1 mode=user", &r));
	EXPECT_EQ(0, r.kernel);
}

/* ctx= is the interrupted context (skid); by default the counted mode's. */
TEST(interrupted_context)
{
	struct fakepmu_inject r;

	ASSERT_EQ(0, parse("cpu=1 event=0xc0 count=1 mode=kernel", &r));
	EXPECT_EQ(1, r.ctx_kernel);
	ASSERT_EQ(0, parse("cpu=1 event=0xc0 count=1", &r));
	EXPECT_EQ(0, r.ctx_kernel);
	ASSERT_EQ(0, parse("cpu=1 ctx=kernel event=0xc0 count=1 mode=user", &r));
	EXPECT_EQ(0, r.kernel);
	EXPECT_EQ(1, r.ctx_kernel);
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 ctx=both", &r));
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 ctx=user ctx=user", &r));
}

/* tid= limits the injection to one running thread; caller= fills the stack. */
TEST(thread_and_caller)
{
	struct fakepmu_inject r;

	ASSERT_EQ(0, parse("cpu=1 event=0xc0 count=1", &r));
	EXPECT_EQ(0, r.tid);
	EXPECT_EQ(0ULL, r.caller);
	ASSERT_EQ(0, parse("tid=4242 cpu=1 event=0xc0 count=1 caller=0xffffffff81234567", &r));
	EXPECT_EQ(4242, r.tid);
	EXPECT_EQ(0xffffffff81234567ULL, r.caller);
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 tid=0", &r));
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 tid=1073741824", &r));
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 tid=1 tid=1", &r));
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 caller=", &r));
}

/* repeat= (1 to FAKEPMU_INJECT_MAX_REPEAT, default 1) and async= (0 or 1, default 0). */
TEST(repeat_and_async)
{
	struct fakepmu_inject r;

	ASSERT_EQ(0, parse("cpu=1 event=0xc0 count=1", &r));
	EXPECT_EQ(1U, r.repeat);
	EXPECT_EQ(0, r.async);
	ASSERT_EQ(0, parse("repeat=1000 cpu=1 async=1 event=0xc0 count=1", &r));
	EXPECT_EQ(1000U, r.repeat);
	EXPECT_EQ(1, r.async);
	ASSERT_EQ(0, parse("cpu=1 event=0xc0 count=1 async=0 repeat=100000", &r));
	EXPECT_EQ(100000U, r.repeat);
	EXPECT_EQ(0, r.async);
	memset(&r, 0xcc, sizeof(r));
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 repeat=0", &r));
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 repeat=100001", &r));
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 repeat=1 repeat=1", &r));
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 async=2", &r));
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 async=", &r));
	EXPECT_EQ(-EINVAL, parse("cpu=1 event=0xc0 count=1 async=1 async=1", &r));
	/* A refused command leaves the output alone. */
	EXPECT_EQ(0xccccccccU, r.repeat);
}

TEST(full_64_bit_count)
{
	struct fakepmu_inject r;

	ASSERT_EQ(0, parse("cpu=0 event=0xc0 count=18446744073709551615", &r));
	EXPECT_EQ(~0ULL, r.count);
	ASSERT_EQ(0, parse("cpu=0 event=0xc0 count=0xffffffffffffffff", &r));
	EXPECT_EQ(~0ULL, r.count);
	EXPECT_EQ(-EINVAL, parse("cpu=0 event=0xc0 count=18446744073709551616", &r));
	EXPECT_EQ(-EINVAL, parse("cpu=0 event=0xc0 count=0x10000000000000000", &r));
}

TEST(amd_extended_event_select)
{
	struct fakepmu_inject r;

	/* Event select bits 11:8 (PERF_CTL bits 35:32) go in bits 19:16. */
	ASSERT_EQ(0, parse("cpu=0 event=0x101d0 count=1", &r));
	EXPECT_EQ(0x101d0U, r.event);
	ASSERT_EQ(0, parse("cpu=0 event=0xfffff count=1", &r));
	EXPECT_EQ(0xfffffU, r.event);
	EXPECT_EQ(-EINVAL, parse("cpu=0 event=0x100000 count=1", &r));
}

TEST(rejects_bad_input_and_leaves_output_alone)
{
	static const char *const bad[] = {
		"", "\n", "cpu=1", "cpu=1 event=2", "event=2 count=3", "cpu=1 count=3",
		"cpu=1 event=2 count=3 cpu=1", "cpu=1 event=0x100000 count=1",
		"cpu=1 event=2 count=3 mode=", "cpu=1 event=2 count=3 mode=User",
		"cpu=1 event=2 count=3 ip=", "cpu=1 event=2 count=3 ip=0x",
		"cpu=1 event=2 count=3 what=4", "cpu=-1 event=2 count=3",
		"cpu=1 event=2 count=3 x", "cpu=1 event=2 count=3=4", "cpu=1event=2 count=3",
		"cpu=0x1000000 event=2 count=3", "cpu=1 event=2 count=3\n\n",
		"cpu=1 event=2 count=1e3", "cpu=1 event=0xg count=3",
	};
	struct fakepmu_inject r;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&r, 0x5a, sizeof(r));
		EXPECT_EQ(-EINVAL, parse(bad[i], &r)) TH_LOG("input \"%s\"", bad[i]);
		EXPECT_EQ(0x5a5a5a5aU, r.cpu);
	}
}

TEST(length_limit)
{
	char buf[FAKEPMU_INJECT_MAX_LEN + 2];
	struct fakepmu_inject r;
	size_t n;

	memset(buf, ' ', sizeof(buf));
	n = strlen("cpu=1 event=2 count=3");
	memcpy(buf, "cpu=1 event=2 count=3", n);
	EXPECT_EQ(0, fakepmu_parse_inject(buf, FAKEPMU_INJECT_MAX_LEN, &r));
	EXPECT_EQ(-EINVAL, fakepmu_parse_inject(buf, FAKEPMU_INJECT_MAX_LEN + 1, &r));
}

TEST_HARNESS_MAIN
