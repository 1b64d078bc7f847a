// SPDX-License-Identifier: GPL-2.0
/*
 * uprofile(1) and kprofile(1) on /dev/pfcntr: the exact flat profiles of
 * samples the test PMU was told to take at known functions, privilege,
 * and the usage errors.
 *
 * uprofile runs uprofile-hot-example (uprofile_hot.c), which writes the
 * run-time addresses of its functions hot_a and hot_b (it is a PIE, loaded
 * at a random base) and its pid to a file, and spins pinned on HOT_CPU
 * until SIGUSR1.  The test injects user-mode samples at those addresses
 * while that process runs there (inject_task()): count = k x 65536 cycles
 * gives exactly k samples at the default rate.  kprofile profiles every
 * CPU, so its command injects kernel-mode samples at a kernel function of
 * /proc/kallsyms itself.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/pfcntr.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define UPROFILE	"/usr/bin/uprofile"
#define KPROFILE	"/usr/bin/kprofile"
#define HOT		"/pmcompat/tests/uprofile-hot-example"
#define HOT_STRIPPED	"/pmcompat/tests/uprofile-hot-stripped-example"
#define NOWHERE		0x1000ULL	/* a user address nothing is mapped at */
#define EV_CYCLES	0x003c
#define EV_INSTR	0x00c0
#define P5		65536ULL	/* the EV5 default rate of counter 0 */
#define HOT_CPU		1
#define TEST_CPU	0

#define HEADER	" %time  cumulative        self  name\n" \
		"           samples     samples\n"

/* A tool started in the background, its stdout and stderr in files. */
struct bg {
	pid_t pid;
	char out[128], err[128];
};

/* Start path with args (NULL-terminated, argv[0] included) as who. */
static int bg_start(struct bg *b, const char *dir, const char *path,
		    const char *const *args, enum tool_as who)
{
	snprintf(b->out, sizeof(b->out), "%s/stdout", dir);
	snprintf(b->err, sizeof(b->err), "%s/stderr", dir);
	b->pid = fork();
	if (b->pid < 0)
		return -1;
	if (b->pid == 0) {
		int o = open(b->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(b->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(124);
		pin_to_cpu(TEST_CPU);
		tool_set_creds(who);
		execv(path, (char *const *)args);
		_exit(127);
	}
	return 0;
}

static int bg_wait(struct bg *b)
{
	int st = child_status(b->pid);

	b->pid = -1;
	return st;
}

/* A whole file into buf (NUL-terminated); the length or -1. */
static ssize_t slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

/* The helper's report: wait (20 s at most) for the file, then parse it. */
struct hot {
	unsigned long long a, b, libc, lib;
	int pid;
};

static int hot_report(const char *path, struct hot *h)
{
	struct timespec ts = { 0, 10000000 };
	char buf[256];
	int i;

	for (i = 0; i < 2000; i++) {
		if (slurp(path, buf, sizeof(buf)) > 0 &&
		    sscanf(buf, "hot_a %llx hot_b %llx pid %d libc %llx hotlib %llx", &h->a,
			   &h->b, &h->pid, &h->libc, &h->lib) == 5)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* Address of a kernel text symbol (root's /proc/kallsyms), 0 if none. */
static unsigned long long ksym(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 &&
		    strchr("TtWw", type) && !strcmp(sym, name) &&
		    !strchr(line, '[')) {
			fclose(f);
			return a;
		}
	}
	fclose(f);
	return 0;
}

FIXTURE(prof) {
	char dir[64];
	char addrs[128];
	struct bg bg;
	long node_saved;
	cpu_set_t affinity;
	char out[8192];
	char err[2048];
	const char *prog;		/* the helper: HOT unless set */
	const char *stat;		/* a statistic operand before it */
	unsigned long long klib, knowhere;	/* samples at hot_lib and NOWHERE */
};

FIXTURE_SETUP(prof)
{
	self->bg.pid = -1;
	self->node_saved = -1;
	sched_getaffinity(0, sizeof(self->affinity), &self->affinity);
	if (access(UPROFILE, X_OK) || access(KPROFILE, X_OK))
		SKIP(return, "uprofile or kprofile not installed");
	if (access(PFCNTR_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PFCNTR_PATH);
	NEED_FAKEPMU();
	NEED_CPUS(2);
	ASSERT_EQ(0, access(HOT, X_OK)) TH_LOG("%s missing", HOT);
	strcpy(self->dir, "/tmp/uprofile.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	/* Unprivileged runs write here too. */
	ASSERT_EQ(0, chmod(self->dir, 0777));
	snprintf(self->addrs, sizeof(self->addrs), "%s/addrs", self->dir);
	ASSERT_EQ(0, pin_to_cpu(TEST_CPU));
}

FIXTURE_TEARDOWN(prof)
{
	char path[384];
	struct dirent *d;
	DIR *dir;

	if (self->bg.pid > 0) {
		kill(self->bg.pid, SIGKILL);
		child_status(self->bg.pid);
	}
	if (self->node_saved >= 0)
		EXPECT_EQ(0, node_restore(PFCNTR_PATH, self->node_saved));
	sched_setaffinity(0, sizeof(self->affinity), &self->affinity);
	dir = opendir(self->dir);
	if (dir) {
		while ((d = readdir(dir)))
			if (d->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", self->dir, d->d_name);
				unlink(path);
			}
		closedir(dir);
		rmdir(self->dir);
	}
}

/*
 * Run uprofile on the helper (extra options first), inject ka samples at
 * hot_a and kb at hot_b (at rate rate), stop the helper; uprofile's exit
 * status.  Its output is in self->out (stdout, or the -o file when
 * outfile) and self->err.
 */
static int uprofile_hot(FIXTURE_DATA(prof) *self, enum tool_as who,
			const char *opt, const char *optarg, bool outfile,
			unsigned int ev, unsigned long long ka, unsigned long long kb,
			unsigned long long klibc, unsigned long long rate,
			struct __test_metadata *_metadata)
{
	char cpu[8], ofile[128];
	const char *args[12];
	struct hot h;
	int n = 0, st;

	snprintf(cpu, sizeof(cpu), "%d", HOT_CPU);
	snprintf(ofile, sizeof(ofile), "%s/profile", self->dir);
	args[n++] = "uprofile";
	if (opt) {
		args[n++] = opt;
		args[n++] = optarg;
	}
	if (outfile) {
		args[n++] = "-o";
		args[n++] = ofile;
	}
	if (self->stat)
		args[n++] = self->stat;
	args[n++] = self->prog ? self->prog : HOT;
	args[n++] = cpu;
	args[n++] = self->addrs;
	args[n] = NULL;
	if (bg_start(&self->bg, self->dir, UPROFILE, args, who))
		return -1;
	if (hot_report(self->addrs, &h)) {
		slurp(self->bg.err, self->err, sizeof(self->err));
		TH_LOG("no report from the helper");
		return -1;
	}
	if (ka && inject_task(HOT_CPU, h.pid, ev, ka * rate, 0, h.a))
		return -2;
	if (kb && inject_task(HOT_CPU, h.pid, ev, kb * rate, 0, h.b))
		return -3;
	if (klibc && inject_task(HOT_CPU, h.pid, ev, klibc * rate, 0, h.libc))
		return -4;
	if (self->klib && inject_task(HOT_CPU, h.pid, ev, self->klib * rate, 0, h.lib))
		return -5;
	if (self->knowhere && inject_task(HOT_CPU, h.pid, ev, self->knowhere * rate, 0, NOWHERE))
		return -6;
	kill(h.pid, SIGUSR1);
	st = bg_wait(&self->bg);
	slurp(outfile ? ofile : self->bg.out, self->out, sizeof(self->out));
	slurp(self->bg.err, self->err, sizeof(self->err));
	return st;
}

TEST_F(prof, uprofile_two_hot_functions)
{
	ASSERT_EQ(0, uprofile_hot(self, TOOL_AS_ROOT, NULL, NULL, true, EV_CYCLES, 300, 100, 0, P5,
				  _metadata)) TH_LOG("stderr: %s", self->err);
	EXPECT_STREQ("uprofile: " HOT ": 400 samples, one every 65536 events of cycles (user mode)\n\n"
		     HEADER
		     " 75.00         300         300  hot_a\n"
		     " 25.00         400         100  hot_b\n", self->out);
	EXPECT_STREQ("", self->err);
}

/*
 * The C library and the helper's own library are mapped gigabytes away
 * from the executable (a PIE): another range, another open.  A sample
 * where nothing is mapped is outside every range: shown, and counted in
 * every share.
 */
TEST_F(prof, uprofile_shared_libraries)
{
	self->klib = 6;
	self->knowhere = 4;
	ASSERT_EQ(0, uprofile_hot(self, TOOL_AS_ROOT, NULL, NULL, false, EV_CYCLES, 30, 0, 12,
				  P5, _metadata)) TH_LOG("stderr: %s", self->err);
	EXPECT_STREQ("uprofile: " HOT ": 52 samples, one every 65536 events of cycles (user mode)\n\n"
		     HEADER
		     " 57.69          30          30  hot_a\n"
		     " 23.08          42          12  getpid (libc.so.6)\n"
		     " 11.54          48           6  hot_lib (libuprofile-hot-example)\n"
		     "  7.69          52           4  (outside the profiled text)\n", self->out);
	EXPECT_STREQ("", self->err);
}

/* The same as a member of the device's group: its opens coexist too. */
TEST_F(prof, uprofile_shared_libraries_as_group_member)
{
	self->klib = 2;
	ASSERT_EQ(0, node_to_test_group(PFCNTR_PATH, 0640, &self->node_saved));
	ASSERT_EQ(0, uprofile_hot(self, TOOL_AS_NOBODY_IN_GROUP, NULL, NULL, false, EV_CYCLES,
				  6, 0, 0, P5, _metadata)) TH_LOG("stderr: %s", self->err);
	EXPECT_STREQ("uprofile: " HOT ": 8 samples, one every 65536 events of cycles (user mode)\n\n"
		     HEADER
		     " 75.00           6           6  hot_a\n"
		     " 25.00           8           2  hot_lib (libuprofile-hot-example)\n",
		     self->out);
}

/*
 * A stripped executable (no .symtab; its functions not in .dynsym): the
 * names come from its separate debug file, found by .gnu_debuglink.
 */
TEST_F(prof, uprofile_stripped_binary_debug_file)
{
	self->prog = HOT_STRIPPED;
	ASSERT_EQ(0, uprofile_hot(self, TOOL_AS_ROOT, NULL, NULL, false, EV_CYCLES, 5, 3, 0,
				  P5, _metadata)) TH_LOG("stderr: %s", self->err);
	EXPECT_STREQ("uprofile: " HOT_STRIPPED ": 8 samples, one every 65536 events of cycles (user mode)\n\n"
		     HEADER
		     " 62.50           5           5  hot_a\n"
		     " 37.50           8           3  hot_b\n", self->out);
}

/* Tru64's command line: options, then the statistic, then the program. */
TEST_F(prof, uprofile_tru64_statistic_operand)
{
	self->stat = "retinst";
	ASSERT_EQ(0, uprofile_hot(self, TOOL_AS_ROOT, "-stride", "1", false, EV_INSTR, 0, 9, 0,
				  P5, _metadata)) TH_LOG("stderr: %s", self->err);
	EXPECT_STREQ("uprofile: " HOT ": 9 samples, one every 65536 events of issues (user mode)\n\n"
		     HEADER
		     "100.00           9           9  hot_b\n", self->out);
}

/* A member of the device's group profiles its own program: user mode needs no privilege. */
TEST_F(prof, uprofile_as_group_member_to_stdout)
{
	ASSERT_EQ(0, node_to_test_group(PFCNTR_PATH, 0640, &self->node_saved));
	ASSERT_EQ(0, uprofile_hot(self, TOOL_AS_NOBODY_IN_GROUP, NULL, NULL, false, EV_CYCLES, 20, 50, 0,
				  P5, _metadata)) TH_LOG("stderr: %s", self->err);
	EXPECT_STREQ("uprofile: " HOT ": 70 samples, one every 65536 events of cycles (user mode)\n\n"
		     HEADER
		     " 71.43          50          50  hot_b\n"
		     " 28.57          70          20  hot_a\n", self->out);
}

TEST_F(prof, uprofile_rate_256)
{
	ASSERT_EQ(0, uprofile_hot(self, TOOL_AS_ROOT, "-f", "256", false, EV_CYCLES, 7, 7, 0, 256,
				  _metadata)) TH_LOG("stderr: %s", self->err);
	EXPECT_STREQ("uprofile: " HOT ": 14 samples, one every 256 events of cycles (user mode)\n\n"
		     HEADER
		     " 50.00           7           7  hot_a\n"
		     " 50.00          14           7  hot_b\n", self->out);
}

/* -e: retired instructions (EV5 counter 0's PF5_MUX0_ISSUES). */
TEST_F(prof, uprofile_event_issues)
{
	ASSERT_EQ(0, uprofile_hot(self, TOOL_AS_ROOT, "-e", "issues", false, EV_INSTR, 0, 9, 0,
				  P5, _metadata)) TH_LOG("stderr: %s", self->err);
	EXPECT_STREQ("uprofile: " HOT ": 9 samples, one every 65536 events of issues (user mode)\n\n"
		     HEADER
		     "100.00           9           9  hot_b\n", self->out);
}

/*
 * -e of a counter-1 event: only its interrupts take samples.  Counter 0
 * (instructions, PCNT5MUX's counter 0 field) is left at the rate field 0,
 * which is the low rate, not off (Tru64's PF5_FREQ_KFORCE): its interrupts
 * used to land in the profile as samples of the other event.
 */
TEST_F(prof, uprofile_event_of_counter_1_samples_only_that_event)
{
	ASSERT_EQ(0, uprofile_hot(self, TOOL_AS_ROOT, "-e", "flow_change", false, EV_INSTR,
				  9, 0, 0, P5, _metadata)) TH_LOG("stderr: %s", self->err);
	EXPECT_NE(NULL, strstr(self->out, " 0 samples, one every "))
		TH_LOG("instructions (counter 0) were sampled for flow_change:\n%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "hot_a"));
}

/* The command's exit status; a program without samples. */
TEST_F(prof, uprofile_exit_status)
{
	struct tool_run r;

	ASSERT_EQ(0, run_tool(&r, UPROFILE, "uprofile",
			      (const char *[]){ "/bin/busybox", "sh", "-c", "exit 3", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(3, r.status) TH_LOG("%s", r.err);
	EXPECT_STREQ("uprofile: /bin/busybox: 0 samples, one every 65536 events of cycles (user mode)\n\n"
		     HEADER "(no samples)\n", r.out);
	EXPECT_STREQ("", r.err);
}

/* An EV5 event that the processor's perf driver does not map (Intel: L1I accesses). */
TEST_F(prof, uprofile_event_not_available)
{
	struct tool_run r;

	ASSERT_EQ(0, run_tool(&r, UPROFILE, "uprofile",
			      (const char *[]){ "-e", "icache_access", "/bin/busybox", "true", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("uprofile: /dev/pfcntr: PCNT5MUX: the event icache_access is not available on this processor\n",
		     r.err);
	EXPECT_STREQ("", r.out);
}

TEST_F(prof, uprofile_rate_256_needs_privilege)
{
	char cpu[8];
	const char *args[] = { "uprofile", "-f", "256", HOT, cpu, self->addrs, NULL };

	snprintf(cpu, sizeof(cpu), "%d", HOT_CPU);
	ASSERT_EQ(0, node_to_test_group(PFCNTR_PATH, 0640, &self->node_saved));
	ASSERT_EQ(0, bg_start(&self->bg, self->dir, UPROFILE, args, TOOL_AS_NOBODY_IN_GROUP));
	EXPECT_EQ(1, bg_wait(&self->bg));
	slurp(self->bg.err, self->err, sizeof(self->err));
	EXPECT_STREQ("uprofile: /dev/pfcntr: PCNT5FREQ: not permitted (the rate 256 needs CAP_PERFMON)\n",
		     self->err);
	EXPECT_NE(0, access(self->addrs, F_OK)) TH_LOG("the command ran");
}

TEST_F(prof, uprofile_usage_errors)
{
	struct tool_run r;

	ASSERT_EQ(0, run_tool(&r, UPROFILE, "uprofile", (const char *[]){ NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(2, r.status);
	EXPECT_STREQ("usage: uprofile [-e event] [-f frequency] [-o file] [-stride n] [-all] [-v] [-quiet] [statistic] command [args ...]\n", r.err);
	/* -h: the usage on stdout, status 0; a bad option is named. */
	ASSERT_EQ(0, run_tool(&r, UPROFILE, "uprofile", (const char *[]){ "-h", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ("usage: uprofile [-e event] [-f frequency] [-o file] [-stride n] [-all] [-v] [-quiet] [statistic] command [args ...]\n", r.out);
	ASSERT_EQ(0, run_tool(&r, UPROFILE, "uprofile", (const char *[]){ "-Z", "true", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(2, r.status);
	EXPECT_STREQ("uprofile: unknown option -Z\nusage: uprofile [-e event] [-f frequency] [-o file] [-stride n] [-all] [-v] [-quiet] [statistic] command [args ...]\n", r.err);
	ASSERT_EQ(0, run_tool(&r, UPROFILE, "uprofile",
			      (const char *[]){ "-e", "nosuch", "true", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.err, "uprofile: unknown event nosuch"));
	ASSERT_EQ(0, run_tool(&r, UPROFILE, "uprofile",
			      (const char *[]){ "-f", "4096", "true", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.err,
		  "uprofile: frequency 4096: cycles (counter 0) interrupts every 65536 or every 256 events\n"));
	ASSERT_EQ(0, run_tool(&r, UPROFILE, "uprofile",
			      (const char *[]){ "/nonexistent/cmd", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(127, r.status);
	EXPECT_STREQ("uprofile: /nonexistent/cmd: No such file or directory\n", r.err);
	EXPECT_STREQ("", r.out);
	/* -o is created before the command runs. */
	ASSERT_EQ(0, run_tool(&r, UPROFILE, "uprofile",
			      (const char *[]){ "-o", "/nonexistent/profile", "/bin/busybox",
						"echo", "ran", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("uprofile: /nonexistent/profile: No such file or directory\n", r.err);
	EXPECT_STREQ("", r.out);
}

/* kprofile CMD, where CMD injects n kernel samples at ip (caller when not 0). */
static int kprofile_inject(FIXTURE_DATA(prof) *self, bool caller, unsigned long long ip,
			   unsigned long long ret, unsigned long long n)
{
	char cmd[256], ofile[128];
	struct tool_run r;
	int len;

	len = snprintf(cmd, sizeof(cmd), "echo cpu=%d event=0x%x count=%llu mode=kernel ip=0x%llx",
		       HOT_CPU, EV_CYCLES, n * P5, ip);
	if (ret)
		len += snprintf(cmd + len, sizeof(cmd) - len, " caller=0x%llx", ret);
	snprintf(cmd + len, sizeof(cmd) - len, " >%s", FAKEPMU_INJECT);
	snprintf(ofile, sizeof(ofile), "%s/kprofile", self->dir);
	if (run_tool(&r, KPROFILE, "kprofile",
		     caller ? (const char *[]){ "-c", "-o", ofile, "sh", "-c", cmd, NULL } :
			      (const char *[]){ "-o", ofile, "sh", "-c", cmd, NULL },
		     TEST_CPU, TOOL_AS_ROOT, NULL))
		return -1;
	snprintf(self->err, sizeof(self->err), "%s", r.err);
	slurp(ofile, self->out, sizeof(self->out));
	return r.status;
}

TEST_F(prof, kprofile_kernel_function)
{
	unsigned long long k = ksym("vfs_read");

	ASSERT_NE(0ULL, k) TH_LOG("vfs_read not in /proc/kallsyms");
	ASSERT_EQ(0, kprofile_inject(self, false, k + 0x10, 0, 5)) TH_LOG("%s", self->err);
	EXPECT_STREQ("kprofile: 5 samples, one every 65536 events of cycles (kernel mode)\n\n"
		     HEADER
		     "100.00           5           5  vfs_read\n", self->out);
	EXPECT_STREQ("", self->err);
}

/* -c: a sample in memcpy is its caller's (the return address on the stack). */
TEST_F(prof, kprofile_caller)
{
	unsigned long long k = ksym("vfs_read"), mc = ksym("memcpy");

	ASSERT_NE(0ULL, k);
	ASSERT_NE(0ULL, mc);
	ASSERT_EQ(0, kprofile_inject(self, true, mc, k + 0x20, 3)) TH_LOG("%s", self->err);
	EXPECT_STREQ("kprofile: 3 samples, one every 65536 events of cycles (kernel mode, callers)\n\n"
		     HEADER
		     "100.00           3           3  vfs_read\n", self->out);
	/* The out-of-line memcpy that kprofile -c adds from kallsyms. */
	mc = ksym("memcpy_orig");
	if (mc) {
		ASSERT_EQ(0, kprofile_inject(self, true, mc, k + 0x30, 2)) TH_LOG("%s", self->err);
		EXPECT_STREQ("kprofile: 2 samples, one every 65536 events of cycles (kernel mode, callers)\n\n"
			     HEADER
			     "100.00           2           2  vfs_read\n", self->out);
	} else {
		TH_LOG("no memcpy_orig in this kernel: that part not checked");
	}
	mc = ksym("memcpy");
	/* Without -c, memcpy's own. */
	ASSERT_EQ(0, kprofile_inject(self, false, mc, k + 0x20, 3)) TH_LOG("%s", self->err);
	EXPECT_STREQ("kprofile: 3 samples, one every 65536 events of cycles (kernel mode)\n\n"
		     HEADER
		     "100.00           3           3  memcpy\n", self->out);
}

TEST_F(prof, kprofile_seconds_without_samples)
{
	struct tool_run r;

	ASSERT_EQ(0, run_tool(&r, KPROFILE, "kprofile", (const char *[]){ "1", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_STREQ("kprofile: 0 samples, one every 65536 events of cycles (kernel mode)\n\n"
		     HEADER "(no samples)\n", r.out);
}

TEST_F(prof, kprofile_needs_privilege)
{
	static const char hidden[] = "kprofile: /proc/kallsyms shows no addresses: kernel profiling needs "
		"privilege (CAP_PERFMON or CAP_SYS_ADMIN, and CAP_SYSLOG to see the addresses of "
		"/proc/kallsyms)\n";
	struct tool_run r;

	ASSERT_EQ(0, run_tool(&r, KPROFILE, "kprofile", (const char *[]){ "1", NULL },
			      TEST_CPU, TOOL_AS_NOBODY, NULL));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ(hidden, r.err);
	ASSERT_EQ(0, node_to_test_group(PFCNTR_PATH, 0640, &self->node_saved));
	ASSERT_EQ(0, run_tool(&r, KPROFILE, "kprofile", (const char *[]){ "1", NULL },
			      TEST_CPU, TOOL_AS_NOBODY_IN_GROUP, NULL));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ(hidden, r.err);
	/* root without CAP_PERFMON and CAP_SYS_ADMIN sees kallsyms; the device refuses. */
	ASSERT_EQ(0, run_tool(&r, KPROFILE, "kprofile", (const char *[]){ "1", NULL },
			      TEST_CPU, TOOL_AS_ROOT_WITHOUT_CAPS, NULL));
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("kprofile: /dev/pfcntr: PCNTSETKRANGE: not permitted: kernel profiling needs "
		     "privilege (CAP_PERFMON or CAP_SYS_ADMIN, and CAP_SYSLOG to see the addresses of "
		     "/proc/kallsyms)\n", r.err);
	EXPECT_STREQ("", r.out);
}

TEST_F(prof, kprofile_usage_errors)
{
	struct tool_run r;

	ASSERT_EQ(0, run_tool(&r, KPROFILE, "kprofile", (const char *[]){ "-x", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(2, r.status);
	EXPECT_STREQ("kprofile: unknown option -x\n"
		     "usage: kprofile [-c] [-e event] [-f frequency] [-o file] [-stride n] [-ra] [-all] [-v] [-quiet] [statistic] [seconds | command [args ...]]\n",
		     r.err);
	/* -h: the usage on stdout, status 0 (no device needed). */
	ASSERT_EQ(0, run_tool(&r, KPROFILE, "kprofile", (const char *[]){ "-h", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0, strncmp(r.out, "usage: kprofile [-c]", 20));
	ASSERT_EQ(0, run_tool(&r, KPROFILE, "kprofile", (const char *[]){ "0", NULL },
			      TEST_CPU, TOOL_AS_ROOT, NULL));
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.err, "kprofile: bad number of seconds: 0\n"));
}

TEST_HARNESS_MAIN
