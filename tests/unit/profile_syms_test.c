// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the symbolizer of uprofile(1) and kprofile(1)
 * (tools/profile/profile_syms.c, elfutils' libdwfl): this test process's
 * own objects (this program, a PIE loaded at a random base; the C library;
 * the vDSO) at the addresses they run at, a stripped copy of this program
 * whose symbols are in a separate debug file, the flat profile of buckets
 * in several ranges, /proc/kallsyms text, /proc/PID/maps lines and the
 * ranges uprofile profiles.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
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

/*
 * The text mapping of this program, and where it is loaded (the start of
 * its mapping at file offset 0); 0 or -1.
 */
static int own_text(char *exe, size_t len, uint64_t *start, uint64_t *end,
		    uint64_t *base)
{
	char line[4352];
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
	*base = 0;
	while (fgets(line, sizeof(line), f)) {
		if (prof_parse_maps_line(line, &m) || strcmp(m.path, exe))
			continue;
		if (!m.off && !*base)
			*base = m.start;
		if (!m.exec)
			continue;
		if (!found)
			*start = m.start;
		*end = m.end;
		found = 1;
	}
	fclose(f);
	return found && *base ? 0 : -1;
}

FIXTURE(self_elf) {
	struct prof_symtab t;
	char exe[PATH_MAX];
	uint64_t start, end, base;
};

/* Every object of this process, through dwfl_linux_proc_report(). */
FIXTURE_SETUP(self_elf)
{
	char err[PROF_ERRLEN];
	int n;

	prof_symtab_init(&self->t);
	ASSERT_EQ(0, own_text(self->exe, sizeof(self->exe), &self->start,
			      &self->end, &self->base));
	n = prof_syms_add_proc(&self->t, getpid(), self->exe, err, sizeof(err));
	ASSERT_LT(2, n) TH_LOG("%s", err);
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

/* getpid() of the C library, a shared library mapped gigabytes away. */
TEST_F(self_elf, shared_library_function)
{
	uint64_t g = (uintptr_t)getpid;
	const struct prof_module *m;
	const struct prof_sym *s;

	s = prof_symtab_lookup(&self->t, g);
	ASSERT_NE(NULL, s);
	/* Of its aliases (__getpid), the plain name; with its object. */
	EXPECT_STREQ("getpid (libc.so.6)", s->name);
	EXPECT_EQ(g, s->addr);
	m = prof_symtab_module(&self->t, g);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("(unknown in libc.so.6)", m->unknown);
	m = prof_symtab_module(&self->t, (uintptr_t)prof_test_hot_a);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("(unknown)", m->unknown);
	EXPECT_EQ(getpid(), getpid());
}

/* The vDSO has no file: libdwfl reads it from the process. */
TEST_F(self_elf, vdso_functions)
{
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	const struct prof_module *m;
	size_t i, n = 0;

	if (!vdso)
		SKIP(return, "no vDSO");
	m = prof_symtab_module(&self->t, vdso);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("(unknown in [vdso])", m->unknown);
	for (i = 0; i < self->t.n; i++) {
		const char *name = self->t.syms[i].name;
		size_t len = strlen(name);

		if (len > 9 && !strcmp(name + len - 9, " ([vdso])")) {
			EXPECT_EQ(m, prof_symtab_module(&self->t, self->t.syms[i].addr));
			n++;
		}
	}
	EXPECT_LT(0, (int)n);
}

/*
 * Buckets in this program's text and in the C library's (two ranges, as
 * uprofile's two opens give them), samples outside both, and a sample in
 * the C library where no function is: every share is of all samples.
 */
TEST_F(self_elf, flat_profile_of_two_ranges)
{
	uint64_t a = (uintptr_t)prof_test_hot_a, g = (uintptr_t)getpid, hole = 0;
	uint32_t exe_b[4] = { 300 }, lib_b[1] = { 100 }, hole_b[1] = { 50 };
	const struct prof_module *m = prof_symtab_module(&self->t, g);
	struct prof_buckets b[3] = {
		{ exe_b, 4, a, 16 },
		{ lib_b, 1, g, 16 },
		{ hole_b, 1, 0, 16 },
	};
	struct prof_entry *e;
	uint64_t total;
	char *out = NULL;
	size_t len = 0;
	long ne;
	FILE *f;

	ASSERT_NE(NULL, m);
	/* A bucket of libc's extent where no function is: its ELF header. */
	hole = m->start;
	ASSERT_EQ(NULL, prof_symtab_lookup(&self->t, hole));
	b[2].start = hole;
	ne = prof_aggregate_ranges(&self->t, b, 3, 550, &e, &total);
	ASSERT_EQ(4, ne);
	EXPECT_EQ(1000, total);
	f = open_memstream(&out, &len);
	ASSERT_NE(NULL, f);
	prof_print(f, "t", e, ne, total);
	fclose(f);
	EXPECT_STREQ("t\n\n"
		     " %time  cumulative        self  name\n"
		     "           samples     samples\n"
		     " 55.00         550         550  (outside the profiled text)\n"
		     " 30.00         850         300  prof_test_hot_a\n"
		     " 10.00         950         100  getpid (libc.so.6)\n"
		     "  5.00        1000          50  (unknown in libc.so.6)\n", out);
	free(out);
	free(e);
}

/* A scratch directory for the stripped copies; removed by the test. */
static int run(const char *cmd)
{
	int st = system(cmd);

	return st == 0 ? 0 : -1;
}

/*
 * A stripped copy of this program (no .symtab, and its functions are not
 * in .dynsym) names no function by itself; with its separate debug file
 * beside it (.gnu_debuglink) or under a debuginfo directory by build-id,
 * it names them all.
 */
TEST_F(self_elf, stripped_with_separate_debug_file)
{
	char dir[] = "/tmp/profsyms.XXXXXX", cmd[3 * PATH_MAX + 512], path[PATH_MAX];
	char err[PROF_ERRLEN];
	uint64_t a = (uintptr_t)prof_test_hot_a;
	const struct prof_sym *s;
	struct prof_symtab t;

	if (run("command -v objcopy >/dev/null 2>&1"))
		SKIP(return, "no objcopy");
	ASSERT_NE(NULL, mkdtemp(dir));
	/* x.debug, and x: stripped, with a debuglink to x.debug; y: no link. */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && objcopy --only-keep-debug '%s' x.debug && "
		 "objcopy --strip-all '%s' y && objcopy --add-gnu-debuglink=x.debug y x && "
		 "id=$(readelf -n y | sed -n 's/.*Build ID: *//p') && [ -n \"$id\" ] && "
		 "mkdir -p dbg/.build-id/${id%%${id#??}} && "
		 "cp x.debug dbg/.build-id/${id%%${id#??}}/${id#??}.debug",
		 dir, self->exe, self->exe);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", cmd);

	/* Without a debug file: the function is not known. */
	prof_symtab_init(&t);
	snprintf(path, sizeof(path), "%s/y", dir);
	ASSERT_LE(0, prof_syms_add_file(&t, path, self->base, true, "/nonexistent",
					err, sizeof(err))) TH_LOG("%s", err);
	s = prof_symtab_lookup(&t, a);
	EXPECT_TRUE(!s || strcmp(s->name, "prof_test_hot_a"));
	prof_symtab_free(&t);

	/* .gnu_debuglink: x.debug beside x. */
	prof_symtab_init(&t);
	snprintf(path, sizeof(path), "%s/x", dir);
	ASSERT_LT(0, prof_syms_add_file(&t, path, self->base, true, NULL,
					err, sizeof(err))) TH_LOG("%s", err);
	s = prof_symtab_lookup(&t, a);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("prof_test_hot_a", s->name);
	s = prof_symtab_lookup(&t, (uintptr_t)prof_test_local);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("prof_test_local", s->name);
	prof_symtab_free(&t);

	/* Build-id: DIR/.build-id/xx/yyyy.debug of a debuginfo directory. */
	prof_symtab_init(&t);
	snprintf(path, sizeof(path), "%s/y", dir);
	snprintf(cmd, sizeof(cmd), "%s/dbg", dir);
	ASSERT_LT(0, prof_syms_add_file(&t, path, self->base, true, cmd,
					err, sizeof(err))) TH_LOG("%s", err);
	s = prof_symtab_lookup(&t, a);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("prof_test_hot_a", s->name);
	prof_symtab_free(&t);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, run(cmd));
}

TEST(not_an_elf_file)
{
	struct prof_symtab t;
	char err[PROF_ERRLEN];

	prof_symtab_init(&t);
	EXPECT_EQ(-1, prof_syms_add_file(&t, "/proc/self/status", 0, true, NULL, err,
					 sizeof(err)));
	EXPECT_EQ(0, strncmp(err, "/proc/self/status: ", 19)) TH_LOG("%s", err);
	EXPECT_EQ(-1, prof_syms_add_file(&t, "/nonexistent/x", 0, true, NULL, err,
					 sizeof(err)));
	EXPECT_EQ(0, strncmp(err, "/nonexistent/x: ", 16)) TH_LOG("%s", err);
	EXPECT_EQ(0, (int)t.n);
	EXPECT_EQ(-1, prof_syms_add_proc(&t, 0x7ffffff0, NULL, err, sizeof(err)));
	prof_symtab_free(&t);
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

/*
 * A PIE far from its libraries: its text is one range, the libraries, the
 * dynamic linker and the vDSO (all in the mmap area) another; [vsyscall]
 * and anonymous or data mappings none.
 */
TEST(pick_ranges_far_libraries)
{
	struct prof_map m[] = {
		map(0x7ffff7dd0000, 0x7ffff7f20000, true, "/lib/libc.so.6"),
		map(0x555555554000, 0x555555556000, false, "/bin/x"),
		map(0x555555556000, 0x555555558000, true, "/bin/x"),
		map(0x7ffff7fc5000, 0x7ffff7feb000, true, "/lib/ld-linux-x86-64.so.2"),
		map(0x7ffff7fc1000, 0x7ffff7fc3000, true, "[vdso]"),
		map(0x7ffff7fb0000, 0x7ffff7fb1000, true, ""),
		map(0xffffffffff600000, 0xffffffffff601000, true, "[vsyscall]"),
	};
	struct prof_range r[4];
	size_t left;

	ASSERT_EQ(2, prof_pick_ranges(m, 7, "/bin/x", 64 << 20, r, 4, &left));
	EXPECT_EQ(0x555555556000ULL, r[0].start);
	EXPECT_EQ(0x555555558000ULL, r[0].end);
	EXPECT_EQ(0x7ffff7dd0000ULL, r[1].start);
	EXPECT_EQ(0x7ffff7feb000ULL, r[1].end);
	EXPECT_EQ(0, (int)left);
	/* One open only: the executable's range; the other is left out. */
	ASSERT_EQ(1, prof_pick_ranges(m, 7, "/bin/x", 64 << 20, r, 1, &left));
	EXPECT_EQ(0x555555556000ULL, r[0].start);
	EXPECT_EQ(1, (int)left);
	EXPECT_EQ(-1, prof_pick_ranges(m, 7, "/bin/y", 64 << 20, r, 4, &left));
}

/* Ranges within the span; the executable's first, then by address. */
TEST(pick_ranges_span)
{
	struct prof_map m[] = {
		map(0x10000000, 0x10100000, true, "/lib/liba.so"),
		map(0x10500000, 0x10600000, true, "/bin/x"),
		map(0x10600000, 0x10700000, true, "/bin/x"),
		map(0x10800000, 0x10900000, true, "/lib/libb.so"),
		map(0x30000000, 0x30100000, true, "/lib/libc.so"),
		map(0x40000000, 0x48000000, true, "/lib/huge.so"),	/* 128 MiB */
	};
	struct prof_range r[4];
	size_t left;

	ASSERT_EQ(3, prof_pick_ranges(m, 6, "/bin/x", 9 << 20, r, 4, &left));
	EXPECT_EQ(0x10000000ULL, r[0].start);
	EXPECT_EQ(0x10900000ULL, r[0].end);
	EXPECT_EQ(0x30000000ULL, r[1].start);
	EXPECT_EQ(0x30100000ULL, r[1].end);
	/* Larger than the span: a range of its own. */
	EXPECT_EQ(0x40000000ULL, r[2].start);
	EXPECT_EQ(0x48000000ULL, r[2].end);
	EXPECT_EQ(0, (int)left);
	/* A smaller span: liba alone, the executable with libb. */
	ASSERT_EQ(4, prof_pick_ranges(m, 6, "/bin/x", 5 << 20, r, 4, &left));
	EXPECT_EQ(0x10500000ULL, r[0].start);
	EXPECT_EQ(0x10900000ULL, r[0].end);
	EXPECT_EQ(0x10000000ULL, r[1].start);
	EXPECT_EQ(0x10100000ULL, r[1].end);
	EXPECT_EQ(0x30000000ULL, r[2].start);
	EXPECT_EQ(0x40000000ULL, r[3].start);
	EXPECT_EQ(0, (int)left);
	ASSERT_EQ(2, prof_pick_ranges(m, 6, "/bin/x", 5 << 20, r, 2, &left));
	EXPECT_EQ(2, (int)left);
}

TEST_HARNESS_MAIN
