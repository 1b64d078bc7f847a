// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the symbolizer of uprofile(1) and kprofile(1)
 * (tools/profile/profile_syms.c): this test program's own ELF symbols
 * mapped to the addresses it runs at (it is a PIE, loaded at a random
 * base), the flat profile of buckets at its functions, /proc/kallsyms text
 * and /proc/PID/maps lines.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile_fmt.h"
#include "profile_syms.h"
#include "kselftest_harness.h"

/* Two functions of this program, with symbols of their own. */
__attribute__((noinline, aligned(64))) int prof_test_hot_a(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline, aligned(64))) int prof_test_hot_b(int x)
{
	return x * 5 + 2;
}

/* A static function: a local symbol. */
__attribute__((noinline, aligned(64))) static int prof_test_local(int x)
{
	return x ^ 0x55;
}

/* The text mapping of this program, and its load bias; 0 or -1. */
static int own_text(char *exe, size_t len, uint64_t *start, uint64_t *end,
		    int64_t *bias)
{
	char line[4352], err[PROF_ERRLEN];
	struct prof_map m;
	ssize_t n;
	FILE *f;
	int found = 0;

	n = readlink("/proc/self/exe", exe, len - 1);
	if (n < 0)
		return -1;
	exe[n] = '\0';
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (prof_parse_maps_line(line, &m) || !m.exec || strcmp(m.path, exe))
			continue;
		if (!found && prof_elf_bias(exe, m.start, m.off, bias, err, sizeof(err)))
			break;
		if (!found)
			*start = m.start;
		*end = m.end;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

FIXTURE(self_elf) {
	struct prof_symtab t;
	char exe[PATH_MAX];
	uint64_t start, end;
	int64_t bias;
};

FIXTURE_SETUP(self_elf)
{
	char err[PROF_ERRLEN];
	int n;

	prof_symtab_init(&self->t);
	ASSERT_EQ(0, own_text(self->exe, sizeof(self->exe), &self->start,
			      &self->end, &self->bias));
	n = prof_syms_add_elf(&self->t, self->exe, self->bias, err, sizeof(err));
	ASSERT_LT(0, n) TH_LOG("%s", err);
}

FIXTURE_TEARDOWN(self_elf)
{
	prof_symtab_free(&self->t);
}

TEST_F(self_elf, functions_at_their_run_time_addresses)
{
	uint64_t a = (uintptr_t)prof_test_hot_a, b = (uintptr_t)prof_test_hot_b;
	uint64_t l = (uintptr_t)prof_test_local;
	const struct prof_sym *s;

	ASSERT_LE(self->start, a);
	ASSERT_GT(self->end, a);
	s = prof_symtab_lookup(&self->t, a);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("prof_test_hot_a", s->name);
	EXPECT_EQ(a, s->addr);
	EXPECT_TRUE(s->global);
	/* Inside the function, at its last byte: still it. */
	s = prof_symtab_lookup(&self->t, a + s->size - 1);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("prof_test_hot_a", s->name);
	s = prof_symtab_lookup(&self->t, b + 1);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("prof_test_hot_b", s->name);
	s = prof_symtab_lookup(&self->t, l);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("prof_test_local", s->name);
	EXPECT_FALSE(s->global);
	/* Below the text: nothing. */
	EXPECT_EQ(NULL, prof_symtab_lookup(&self->t, self->start - 4096));
	/* The functions were called, really. */
	EXPECT_EQ(7, prof_test_hot_a(2));
	EXPECT_EQ(12, prof_test_hot_b(2));
	EXPECT_EQ(0x55, prof_test_local(0));
}

/* The whole chain: buckets over this program's text, as uprofile reads them. */
TEST_F(self_elf, flat_profile_of_own_text)
{
	uint64_t a = (uintptr_t)prof_test_hot_a, b = (uintptr_t)prof_test_hot_b;
	uint64_t bytes = 4;	/* stride 1 */
	size_t n = (self->end - self->start + bytes - 1) / bytes;
	uint32_t *buckets = calloc(n, sizeof(*buckets));
	struct prof_entry *e;
	uint64_t total;
	char *out = NULL;
	size_t len = 0;
	long ne;
	FILE *f;

	ASSERT_NE(NULL, buckets);
	buckets[(a - self->start) / bytes] = 300;
	buckets[(b - self->start) / bytes + 1] = 100;	/* b + 4: its ret */
	ne = prof_aggregate(&self->t, buckets, n, self->start, bytes, &e, &total);
	ASSERT_EQ(2, ne);
	EXPECT_EQ(400, total);
	f = open_memstream(&out, &len);
	ASSERT_NE(NULL, f);
	prof_print(f, "t", e, ne, total);
	fclose(f);
	EXPECT_STREQ("t\n\n"
		     " %time  cumulative        self  name\n"
		     "           samples     samples\n"
		     " 75.00         300         300  prof_test_hot_a\n"
		     " 25.00         400         100  prof_test_hot_b\n", out);
	free(out);
	free(e);
	free(buckets);
}

TEST(not_an_elf_file)
{
	struct prof_symtab t;
	char err[PROF_ERRLEN];
	int64_t bias;

	prof_symtab_init(&t);
	EXPECT_EQ(-1, prof_syms_add_elf(&t, "/proc/self/status", 0, err, sizeof(err)));
	EXPECT_STREQ("/proc/self/status: not an ELF file", err);
	EXPECT_EQ(-1, prof_syms_add_elf(&t, "/nonexistent/x", 0, err, sizeof(err)));
	EXPECT_STREQ("/nonexistent/x: No such file or directory", err);
	EXPECT_EQ(-1, prof_elf_bias("/nonexistent/x", 0, 0, &bias, err, sizeof(err)));
	EXPECT_EQ(0, (int)t.n);
}

static const char kallsyms[] =
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 t _text_alias\n"
	"ffffffff81001000 T do_one\n"
	"ffffffff81001000 t do_one_alias\n"
	"ffffffff81001080 t local_fn\n"
	"ffffffff81002000 W weak_fn\n"
	"ffffffff81003000 D some_data\n"
	"ffffffff81004000 T _etext\n"
	"ffffffff81005000 T __memcpy\n"
	"ffffffff81005000 W memcpy\n"
	"ffffffffc0000000 t mod_fn\t[somemod]\n";

TEST(kallsyms_text)
{
	struct prof_symtab t;
	uint64_t stext, etext;
	const struct prof_sym *s;
	FILE *f = fmemopen((void *)kallsyms, sizeof(kallsyms) - 1, "r");

	ASSERT_NE(NULL, f);
	prof_symtab_init(&t);
	EXPECT_EQ(10, prof_syms_add_kallsyms(&t, f, &stext, &etext));
	fclose(f);
	EXPECT_EQ(0xffffffff81000000ULL, stext);
	EXPECT_EQ(0xffffffff81004000ULL, etext);
	/* Aliases: the global symbol, the fewest underscores, the smallest name. */
	s = prof_symtab_lookup(&t, 0xffffffff81000010ULL);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("startup_64", s->name);
	s = prof_symtab_lookup(&t, 0xffffffff81005000ULL);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("memcpy", s->name);
	s = prof_symtab_lookup(&t, 0xffffffff81001010ULL);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("do_one", s->name);
	s = prof_symtab_lookup(&t, 0xffffffff81001080ULL);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("local_fn", s->name);
	/* No size: up to the next symbol (data symbols are not kept). */
	s = prof_symtab_lookup(&t, 0xffffffff81003abcULL);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("weak_fn", s->name);
	EXPECT_EQ(NULL, prof_symtab_lookup(&t, 0xffffffff80000000ULL));
	prof_symtab_free(&t);
}

/* What an unprivileged reader sees: every address 0. */
TEST(kallsyms_hidden)
{
	static const char hidden[] = "0000000000000000 T _stext\n"
				     "0000000000000000 T do_one\n";
	struct prof_symtab t;
	uint64_t stext, etext;
	FILE *f = fmemopen((void *)hidden, sizeof(hidden) - 1, "r");

	ASSERT_NE(NULL, f);
	prof_symtab_init(&t);
	EXPECT_EQ(2, prof_syms_add_kallsyms(&t, f, &stext, &etext));
	fclose(f);
	EXPECT_EQ(0, stext);
	EXPECT_EQ(0, etext);
	EXPECT_EQ(0, t.syms[0].addr);
	prof_symtab_free(&t);
}

TEST(maps_lines)
{
	struct prof_map m;

	ASSERT_EQ(0, prof_parse_maps_line(
		"55d0c4a2e000-55d0c4a33000 r-xp 00002000 fe:01 1234   /usr/bin/true\n", &m));
	EXPECT_EQ(0x55d0c4a2e000ULL, m.start);
	EXPECT_EQ(0x55d0c4a33000ULL, m.end);
	EXPECT_EQ(0x2000ULL, m.off);
	EXPECT_TRUE(m.exec);
	EXPECT_STREQ("/usr/bin/true", m.path);
	ASSERT_EQ(0, prof_parse_maps_line(
		"7ffd1c5e0000-7ffd1c601000 rw-p 00000000 00:00 0          [stack]\n", &m));
	EXPECT_FALSE(m.exec);
	EXPECT_STREQ("[stack]", m.path);
	ASSERT_EQ(0, prof_parse_maps_line(
		"7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n", &m));
	EXPECT_STREQ("", m.path);
	ASSERT_EQ(0, prof_parse_maps_line(
		"400000-401000 r-xp 00000000 08:01 5 /tmp/a b (deleted)\n", &m));
	EXPECT_STREQ("/tmp/a b (deleted)", m.path);
	EXPECT_EQ(-1, prof_parse_maps_line("garbage\n", &m));
}

static struct prof_map map(uint64_t start, uint64_t end, bool exec, const char *path)
{
	struct prof_map m = { .start = start, .end = end, .exec = exec };

	snprintf(m.path, sizeof(m.path), "%s", path);
	return m;
}

/* A PIE far from its libraries: the executable's text alone. */
TEST(pick_text_far_libraries)
{
	struct prof_map m[] = {
		map(0x555555556000, 0x555555558000, true, "/bin/x"),
		map(0x7ffff7dd0000, 0x7ffff7f20000, true, "/lib/libc.so.6"),
		map(0x7ffff7fc5000, 0x7ffff7feb000, true, "/lib/ld-linux-x86-64.so.2"),
		map(0x7ffff7fc1000, 0x7ffff7fc3000, true, "[vdso]"),
	};
	bool in[4];
	uint64_t lo, hi;

	ASSERT_EQ(0, prof_pick_text(m, 4, "/bin/x", 64 << 20, &lo, &hi, in));
	EXPECT_EQ(0x555555556000ULL, lo);
	EXPECT_EQ(0x555555558000ULL, hi);
	EXPECT_TRUE(in[0]);
	EXPECT_FALSE(in[1]);
	EXPECT_FALSE(in[2]);
	EXPECT_FALSE(in[3]);
	EXPECT_EQ(-1, prof_pick_text(m, 4, "/bin/y", 64 << 20, &lo, &hi, in));
}

/* Libraries near the executable join it, nearest first, while the span allows. */
TEST(pick_text_near_libraries)
{
	struct prof_map m[] = {
		map(0x10000000, 0x10100000, true, "/lib/liba.so"),	/* 4 MiB below */
		map(0x10400000, 0x10500000, false, "/bin/x"),
		map(0x10500000, 0x10600000, true, "/bin/x"),
		map(0x10600000, 0x10700000, true, "/bin/x"),
		map(0x10800000, 0x10900000, true, "/lib/libb.so"),	/* just above */
		map(0x30000000, 0x30100000, true, "/lib/libc.so"),	/* far */
		map(0x10900000, 0x10a00000, true, ""),			/* anonymous */
	};
	bool in[7];
	uint64_t lo, hi;

	ASSERT_EQ(0, prof_pick_text(m, 7, "/bin/x", 9 << 20, &lo, &hi, in));
	EXPECT_EQ(0x10000000ULL, lo);
	EXPECT_EQ(0x10900000ULL, hi);
	EXPECT_TRUE(in[0]);
	EXPECT_FALSE(in[1]);	/* not text */
	EXPECT_TRUE(in[2]);
	EXPECT_TRUE(in[3]);
	EXPECT_TRUE(in[4]);
	EXPECT_FALSE(in[5]);
	EXPECT_FALSE(in[6]);
	/* A smaller span: libb only. */
	ASSERT_EQ(0, prof_pick_text(m, 7, "/bin/x", 5 << 20, &lo, &hi, in));
	EXPECT_EQ(0x10500000ULL, lo);
	EXPECT_EQ(0x10900000ULL, hi);
	EXPECT_FALSE(in[0]);
	EXPECT_TRUE(in[4]);
	/* Smaller than the executable itself: still the executable. */
	ASSERT_EQ(0, prof_pick_text(m, 7, "/bin/x", 4096, &lo, &hi, in));
	EXPECT_EQ(0x10500000ULL, lo);
	EXPECT_EQ(0x10700000ULL, hi);
	EXPECT_FALSE(in[4]);
}

TEST_HARNESS_MAIN
