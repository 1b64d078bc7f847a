// SPDX-License-Identifier: GPL-2.0
/*
 * cputrack(1) on libpctx: the rows of a command that creates threads,
 * forks and execs (in order, with their labels), following children or
 * not, exec or not; Solaris' exit status; page faults of a command that
 * touches a known number of pages; attaching to a running process with -p
 * and leaving it as it was; two sets taking turns; tick rows that are the
 * counts of each interval (one set and several); -T 0 and -N 0; and
 * Solaris' usage and messages.
 *
 * The commands are this program itself, run with CPCT_WORKLOAD set: a
 * constructor does the work before the test harness starts.
 */
#include <fcntl.h>
#include <pthread.h>
#include <libcpc.h>
#include "pmc_test_util.h"
#include "cpctools_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define CPUTRACK	"/usr/bin/cputrack"
#define EXEC_NAME	"cputrack_test-exec"

/* ---- the workloads ------------------------------------------------------------ */

static void *thread_fn(void *arg)
{
	return arg;
}

static void touch_pages(long n)
{
	long pg = sysconf(_SC_PAGESIZE), i;
	char *p;

	if (n <= 0)
		return;
	p = mmap(NULL, n * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(90);
	madvise(p, n * pg, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * pg] = 1;
}

__attribute__((constructor)) static void workload(void)
{
	const char *w = getenv("CPCT_WORKLOAD");
	pthread_t t;
	pid_t pid;
	int i;

	if (!w)
		return;
	if (!strcmp(w, "exit3"))
		_exit(3);
	if (!strcmp(w, "sleep")) {
		sleep(20);
		_exit(4);
	}
	if (!strcmp(w, "term")) {
		signal(SIGTERM, SIG_DFL);
		raise(SIGTERM);
		_exit(98);
	}
	if (!strcmp(w, "tfe")) {
		/* Two threads, one after the other; a child; an exec. */
		for (i = 0; i < 2; i++) {
			if (pthread_create(&t, NULL, thread_fn, NULL) || pthread_join(t, NULL))
				_exit(91);
		}
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (child_status(pid) != 0)
			_exit(92);
		execve("/proc/self/exe", (char *[]){ EXEC_NAME, NULL },
		       (char *[]){ "CPCT_WORKLOAD=exit3", NULL });
		_exit(93);
	}
	if (!strncmp(w, "pages:", 6)) {
		touch_pages(atol(w + 6));
		_exit(0);
	}
	if (!strcmp(w, "burst")) {
		/* Faults at once, then none while it sleeps (Solaris' Example 1). */
		touch_pages(256);
		usleep(700000);
		_exit(0);
	}
	if (!strcmp(w, "spread")) {
		/*
		 * Faults over about five tick periods of 0.1 s, then none:
		 * every set of several taking turns meets some of them.
		 */
		for (i = 0; i < 20; i++) {
			touch_pages(16);
			usleep(25000);
		}
		usleep(700000);
		_exit(0);
	}
	if (!strcmp(w, "busy")) {
		/* About a second of faults and sleeps. */
		for (i = 0; i < 20; i++) {
			touch_pages(4);
			usleep(50000);
		}
		_exit(0);
	}
	_exit(99);
}

/* ---- helpers --------------------------------------------------------------------- */

struct row {
	double t;
	int pid, lwp;
	char label[16];
	unsigned long long v[4];
	int nv;
	char note[128];		/* after the values: "# ..." */
};

/* Parse a row (pidcol: with the pid column); 0 or -1. */
static int parse_row(const char *line, int pidcol, struct row *r)
{
	const char *p = line;
	int n = 0, k;

	memset(r, 0, sizeof(*r));
	if (pidcol) {
		if (sscanf(p, "%lf %d %d %15s%n", &r->t, &r->pid, &r->lwp, r->label, &n) != 4)
			return -1;
	} else if (sscanf(p, "%lf %d %15s%n", &r->t, &r->lwp, r->label, &n) != 3) {
		return -1;
	}
	p += n;
	while (r->nv < 4 && sscanf(p, " %llu%n", &r->v[r->nv], &k) == 1) {
		r->nv++;
		p += k;
	}
	while (*p == ' ')
		p++;
	snprintf(r->note, sizeof(r->note), "%s", p);
	r->note[strcspn(r->note, "\n")] = '\0';
	return 0;
}

/* The exact text of a row with one value, in cputrack's format. */
static void fmt_row(char *buf, size_t n, const struct row *r, int pidcol,
		    const char *spec)
{
	int pos = snprintf(buf, n, "%7.3f ", r->t), i;

	if (pidcol)
		pos += snprintf(buf + pos, n - pos, "%6d ", r->pid);
	pos += snprintf(buf + pos, n - pos, "%3d %10s ", r->lwp, r->label);
	for (i = 0; i < r->nv; i++)
		pos += snprintf(buf + pos, n - pos, "%9lld ", (long long)r->v[i]);
	if (spec)
		pos += snprintf(buf + pos, n - pos, " # %s", spec);
	if (r->note[0] && !spec)
		pos += snprintf(buf + pos, n - pos, "%s", r->note);
	snprintf(buf + pos, n - pos, "\n");
}

/* Run cputrack on this program with workload w: exit code; rows in out. */
static int track(const char *w, char *out, size_t n, char *err, size_t en,
		 char *const args[])
{
	char *argv[32];
	char env[64];
	struct bg b;
	int i, ret;

	argv[0] = "cputrack";
	for (i = 0; args[i] && i < 24; i++)
		argv[i + 1] = args[i];
	argv[++i] = "/proc/self/exe";
	argv[++i] = NULL;
	/* cputrack runs /proc/self/exe of its own: use this program's path. */
	argv[i - 1] = realpath("/proc/self/exe", NULL);
	snprintf(env, sizeof(env), "CPCT_WORKLOAD=%s", w);
	putenv(env);
	ret = run_all(&b, CPUTRACK, argv, out, n);
	unsetenv("CPCT_WORKLOAD");
	if (err)
		snprintf(err, en, "%s", b.err);
	return ret;
}

/* Split out into rows after the title; returns how many. */
static int rows_of(char *out, int pidcol, struct row *rows, int max, char **title)
{
	char *line, *save = NULL;
	int n = 0;

	*title = strtok_r(out, "\n", &save);
	while (n < max && (line = strtok_r(NULL, "\n", &save))) {
		if (parse_row(line, pidcol, &rows[n]))
			break;
		n++;
	}
	return n;
}

FIXTURE(cputrack) {
	int unused;
};

FIXTURE_SETUP(cputrack)
{
	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	if (access(CPUTRACK, X_OK))
		SKIP(return, "no %s", CPUTRACK);
}

FIXTURE_TEARDOWN(cputrack)
{
}

struct want {
	int proc;		/* 0: the command, 1: its child */
	int lwp;
	const char *label;
};

TEST_F(cputrack, threads_fork_exec_rows_in_order)
{
	/*
	 * Solaris' order: a new LWP's init_lwp, then its lwp_create row (zeros);
	 * at its end, fini_lwp, then lwp_exit (the same counts).
	 */
	static const struct want want[] = {
		{ 0, 1, "init_lwp" }, { 0, 2, "init_lwp" }, { 0, 2, "lwp_create" },
		{ 0, 2, "fini_lwp" }, { 0, 2, "lwp_exit" }, { 0, 3, "init_lwp" },
		{ 0, 3, "lwp_create" }, { 0, 3, "fini_lwp" }, { 0, 3, "lwp_exit" },
		{ 0, 1, "fork" }, { 1, 1, "init_lwp" }, { 1, 1, "fini_lwp" },
		{ 1, 1, "exit" }, { 0, 1, "fini_lwp" }, { 0, 1, "exec" }, { 0, 1, "exec" },
		{ 0, 1, "init_lwp" }, { 0, 1, "fini_lwp" }, { 0, 1, "exit" },
	};
	char out[16384], err[4096], *title, line[512], note[64];
	struct row rows[64];
	int n, i, pid[2] = { 0, 0 };

	n = track("tfe", out, sizeof(out), err, sizeof(err),
		  ARGV("-v", "-f", "-e", "-T", "100", "-c", "sw_page_faults"));
	/* Solaris' exit status: 0 when the run ended with the processes. */
	EXPECT_EQ(0, n) TH_LOG("stderr: %s", err);
	n = rows_of(out, 1, rows, 64, &title);
	EXPECT_STREQ("   time    pid lwp      event      pic0 ", title);
	ASSERT_EQ((int)ARRAY_SIZE(want), n) TH_LOG("%s", out);
	pid[0] = rows[0].pid;
	for (i = 0; i < n; i++) {
		if (want[i].proc && !pid[1])
			pid[1] = rows[i].pid;
		EXPECT_EQ(pid[want[i].proc], rows[i].pid) TH_LOG("row %d", i);
		EXPECT_EQ(want[i].lwp, rows[i].lwp) TH_LOG("row %d", i);
		EXPECT_STREQ(want[i].label, rows[i].label) TH_LOG("row %d", i);
		/* Solaris' fork row and exec name row have blank value columns. */
		EXPECT_EQ(i == 9 || i == 15 ? 0 : 1, rows[i].nv) TH_LOG("row %d", i);
		fmt_row(line, sizeof(line), &rows[i], 1, NULL);
		(void)line;
	}
	EXPECT_NE(pid[0], pid[1]);
	/* lwp_create rows are zeros; an lwp_exit row repeats its fini_lwp row. */
	EXPECT_EQ(0ULL, rows[2].v[0]);
	EXPECT_EQ(0ULL, rows[6].v[0]);
	EXPECT_EQ(rows[3].v[0], rows[4].v[0]);
	EXPECT_EQ(rows[7].v[0], rows[8].v[0]);
	/* The fork row names the child, the exec row the new program. */
	snprintf(note, sizeof(note), "# %d", pid[1]);
	EXPECT_STREQ(note, rows[9].note);
	EXPECT_STREQ("", rows[14].note);
	EXPECT_STREQ("# '" EXEC_NAME "'", rows[15].note);
	/* The new image starts from zero; its exit row is its one LWP's count. */
	EXPECT_EQ(rows[17].v[0], rows[18].v[0]);
	/* The old image's total is at least what its LWP 1 counted. */
	EXPECT_GE(rows[14].v[0], rows[13].v[0]);
	EXPECT_GT(rows[14].v[0], 0ULL);
}

TEST_F(cputrack, without_f_and_e_children_and_exec_are_not_followed)
{
	static const struct want want[] = {
		{ 0, 2, "lwp_create" }, { 0, 2, "lwp_exit" }, { 0, 3, "lwp_create" },
		{ 0, 3, "lwp_exit" }, { 0, 1, "exec" }, { 0, 1, "exec" },
	};
	char out[16384], copy[16384], err[4096], *title, line[512];
	struct row rows[64];
	int n, i;

	n = track("tfe", out, sizeof(out), err, sizeof(err),
		  ARGV("-T", "100", "-c", "sw_page_faults"));
	memcpy(copy, out, sizeof(copy));
	/* As on Solaris: the exec handler stops the run (1); the command is killed. */
	EXPECT_EQ(1, n) TH_LOG("stderr: %s", err);
	n = rows_of(out, 0, rows, 64, &title);
	EXPECT_STREQ("   time lwp      event      pic0 ", title);
	ASSERT_EQ((int)ARRAY_SIZE(want), n) TH_LOG("%s", out);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(want[i].lwp, rows[i].lwp) TH_LOG("row %d", i);
		EXPECT_STREQ(want[i].label, rows[i].label) TH_LOG("row %d", i);
	}
	/* The exact text of the exec rows: the totals, then the name. */
	fmt_row(line, sizeof(line), &rows[4], 0, NULL);
	EXPECT_EQ(0, strncmp(line + 8, "  1       exec ", 15)) TH_LOG("%s", line);
	EXPECT_STREQ("", rows[4].note);
	EXPECT_STREQ("# '" EXEC_NAME "'", rows[5].note);
	EXPECT_EQ(0, rows[5].nv);
	{
		char *p = strstr(copy, "# '"), want[64];
		int k = snprintf(want, sizeof(want), "%3d %10s %9s %9s # '", 1, "exec", "", "");

		ASSERT_NE(NULL, p);
		/* "%3d %10s " then Solaris' "%9s %9s # '%s'". */
		EXPECT_EQ(0, strncmp(p - (k - 3), want, k)) TH_LOG("%s", p - (k - 3));
	}
}

/* The exit row's count of sw_page_faults for workload pages:n. */
static long long faults_of(int pages, char *err, size_t en)
{
	char out[8192], w[32], *title;
	struct row rows[16];
	int n, st;

	snprintf(w, sizeof(w), "pages:%d", pages);
	st = track(w, out, sizeof(out), err, en, ARGV("-T", "100", "-c", "sw_page_faults"));
	if (st != 0)
		return -1;
	n = rows_of(out, 0, rows, 16, &title);
	if (n != 1 || strcmp(rows[0].label, "exit") || rows[0].lwp != 1)
		return -2;
	return (long long)rows[0].v[0];
}

/*
 * As on Solaris, a command killed by a signal makes no exit system call:
 * no fini_lwp or exit row, pctx_run() fails (the process is dead) and
 * cputrack exits 1, saying so.
 */
TEST_F(cputrack, a_command_killed_by_a_signal_ends_the_run)
{
	char out[4096], copy[4096], err[1024], *title;
	struct row rows[8];
	int n;

	/*
	 * No tick in the run (-T 100): on a slow kernel the command can take
	 * longer than the default second to start and die.
	 */
	n = track("term", out, sizeof(out), err, sizeof(err),
		  ARGV("-T", "100", "-v", "-c", "sw_page_faults"));
	EXPECT_EQ(1, n) TH_LOG("%s", err);
	memcpy(copy, out, sizeof(copy));
	n = rows_of(out, 0, rows, 8, &title);
	ASSERT_EQ(1, n) TH_LOG("%s", copy);
	EXPECT_STREQ("init_lwp", rows[0].label);
	EXPECT_NE(NULL, strstr(err, ": process terminated\n")) TH_LOG("%s", err);
}

/*
 * Solaris' cputrack catches HUP, INT, QUIT, PIPE and TERM with a command
 * too: the tracking ends, the command is killed, and cputrack exits 0.
 */
TEST_F(cputrack, a_signal_ends_the_tracking_of_a_command_with_status_0)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE };
	char line[512], *me = realpath("/proc/self/exe", NULL);
	unsigned int i;
	struct bg b;
	int st;

	ASSERT_NE(NULL, me);
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		putenv("CPCT_WORKLOAD=sleep");
		ASSERT_EQ(0, bg_start(&b, CPUTRACK,
				      ARGV("cputrack", "-c", "sw_page_faults", me)));
		unsetenv("CPCT_WORKLOAD");
		/* The title: the command runs, under control. */
		ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
		usleep(200000);
		EXPECT_EQ(0, kill(b.pid, sigs[i]));
		st = bg_finish(&b, NULL, 0);
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
			TH_LOG("signal %d: status %#x, stderr %s", sigs[i], st, b.err);
	}
	free(me);
}

/*
 * -D: libcpc's messages name the function, as cputrack_errfn() does; and
 * a set never bound (the second of two, the run too short for a tick) has
 * no exit row.
 */
TEST_F(cputrack, D_names_the_function_and_unbound_sets_have_no_exit_row)
{
	char out[4096], copy[4096], err[1024], *title;
	struct row rows[8];
	int n;

	n = track("exit3", out, sizeof(out), err, sizeof(err),
		  ARGV("-D", "-c", "pic0=nosuchevent"));
	EXPECT_EQ(2, n);
	EXPECT_NE(NULL, strstr(err, "cputrack: cpc_strtoset: ")) TH_LOG("%s", err);
	n = track("exit3", out, sizeof(out), err, sizeof(err),
		  ARGV("-T", "10", "-c", "sw_page_faults", "-c", "sw_task_clock"));
	EXPECT_EQ(0, n) TH_LOG("%s", err);
	memcpy(copy, out, sizeof(copy));
	n = rows_of(out, 0, rows, 8, &title);
	ASSERT_EQ(1, n) TH_LOG("%s", copy);
	EXPECT_STREQ("exit", rows[0].label);
	EXPECT_NE(NULL, strstr(copy, "# sw_page_faults")) TH_LOG("%s", copy);
	EXPECT_EQ(NULL, strstr(copy, "# sw_task_clock")) TH_LOG("%s", copy);
}

TEST_F(cputrack, page_faults_of_touched_pages)
{
	long long base, more, base2;
	char err[4096];

	base = faults_of(0, err, sizeof(err));
	ASSERT_GT(base, 0) TH_LOG("stderr: %s", err);
	more = faults_of(1024, err, sizeof(err));
	ASSERT_GT(more, 0) TH_LOG("stderr: %s", err);
	base2 = faults_of(0, err, sizeof(err));
	ASSERT_GT(base2, 0);
	/*
	 * 1024 more pages, 1024 more faults, give or take a few of the
	 * program's own (its heap and stack need not line up the same way).
	 */
	EXPECT_GE(more - base, 1024 - 8) TH_LOG("base %lld more %lld", base, more);
	EXPECT_LE(more - base, 1024 + 48) TH_LOG("base %lld more %lld", base, more);
	EXPECT_LE(llabs(base2 - base), 48) TH_LOG("base %lld base2 %lld", base, base2);
}

struct shared {
	volatile long count;
	volatile int stop;
};

static int traced_by(pid_t pid)
{
	char path[64], line[256];
	int tracer = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	return tracer;
}

static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

static void *worker(void *arg)
{
	struct shared *sh = arg;

	while (!sh->stop) {
		__atomic_add_fetch(&sh->count, 1, __ATOMIC_RELAXED);
		usleep(5000);
	}
	return NULL;
}

TEST_F_TIMEOUT(cputrack, p_attaches_and_detaches_leaving_the_process_running, 120)
{
	struct shared *sh = shared_zone(sizeof(*sh));
	char line[512], rest[8192], pidstr[16];
	struct row r;
	struct bg b;
	long before;
	int st, ticks = 0, lwps = 0, i;
	pid_t pid;

	ASSERT_NE(NULL, sh);
	sh->count = 0;
	sh->stop = 0;
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pthread_t t;

		/* Two LWPs that keep counting, until told to stop. */
		if (pthread_create(&t, NULL, worker, sh))
			_exit(90);
		worker(sh);
		pthread_join(t, NULL);
		_exit(5);
	}
	while (sh->count < 10)
		usleep(1000);
	snprintf(pidstr, sizeof(pidstr), "%d", pid);

	/* Tracked, then interrupted: rows for both LWPs, then let go. */
	ASSERT_EQ(0, bg_start(&b, CPUTRACK, ARGV("cputrack", "-T", "0.2", "-c",
						   "sw_context_switches", "-p", pidstr)));
	ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	EXPECT_STREQ("   time lwp      event      pic0 \n", line);
	for (i = 0; i < 4; i++) {
		ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
		ASSERT_EQ(0, parse_row(line, 0, &r)) TH_LOG("%s", line);
		EXPECT_STREQ("tick", r.label);
		EXPECT_TRUE(r.lwp == 1 || r.lwp == 2) TH_LOG("lwp %d", r.lwp);
		lwps |= 1 << r.lwp;
		ticks++;
	}
	EXPECT_EQ(6, lwps);
	EXPECT_GT(traced_by(pid), 0);
	ASSERT_EQ(0, kill(b.pid, SIGINT));
	st = bg_finish(&b, rest, sizeof(rest));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("stderr: %s", b.err);
	EXPECT_EQ(NULL, strstr(rest, "exit")) TH_LOG("%s", rest);

	/* Left running and untraced, still counting. */
	EXPECT_EQ(0, traced_by(pid));
	EXPECT_NE('t', proc_state(pid));
	EXPECT_NE('T', proc_state(pid));
	before = sh->count;
	usleep(100000);
	EXPECT_GT(sh->count, before);

	/* Again with -N 2: two rounds of ticks, then let go by itself. */
	ASSERT_EQ(0, bg_start(&b, CPUTRACK, ARGV("cputrack", "-N", "2", "-T", "0.1", "-c",
						   "sw_context_switches", "-p", pidstr)));
	st = bg_finish(&b, rest, sizeof(rest));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("stderr: %s", b.err);
	{
		char *p = rest;
		int n = 0;

		while ((p = strstr(p, " tick "))) {
			n++;
			p++;
		}
		EXPECT_EQ(4, n) TH_LOG("%s", rest);
	}
	EXPECT_EQ(0, traced_by(pid));

	/* Tracked to its exit: the exit row; the parent still gets status 5. */
	ASSERT_EQ(0, bg_start(&b, CPUTRACK, ARGV("cputrack", "-T", "0.2", "-c",
						   "sw_context_switches", "-p", pidstr)));
	ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	ASSERT_NE(NULL, bg_line(&b, line, sizeof(line)));
	sh->stop = 1;
	st = bg_finish(&b, rest, sizeof(rest));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("stderr: %s", b.err);
	{
		char *last = rest, *nl;

		while ((nl = strchr(last, '\n')) && nl[1])
			last = nl + 1;
		ASSERT_EQ(0, parse_row(last, 0, &r)) TH_LOG("%s", rest);
		EXPECT_STREQ("exit", r.label);
	}
	EXPECT_EQ(5, child_status(pid));
	(void)ticks;
}

TEST_F(cputrack, two_sets_take_turns_at_each_tick)
{
	static const char *specs[2] = { "sw_page_faults", "sw_task_clock" };
	char out[16384], err[4096], *title, want[256];
	struct row rows[64];
	int n, i, ticks = 0;

	n = track("busy", out, sizeof(out), err, sizeof(err),
		  ARGV("-T", "0.1", "-c", (char *)specs[0], "-c", (char *)specs[1]));
	EXPECT_EQ(0, n) TH_LOG("stderr: %s", err);
	n = rows_of(out, 0, rows, 64, &title);
	EXPECT_STREQ("   time lwp      event      pic0 ", title);
	ASSERT_GE(n, 5) TH_LOG("%s", out);
	for (i = 0; i < n - 2; i++) {
		EXPECT_STREQ("tick", rows[i].label);
		snprintf(want, sizeof(want), "# %s", specs[i % 2]);
		EXPECT_STREQ(want, rows[i].note) TH_LOG("row %d", i);
		ticks++;
	}
	EXPECT_GE(ticks, 3);
	/* An exit row per set. */
	EXPECT_STREQ("exit", rows[n - 2].label);
	EXPECT_STREQ("# sw_page_faults", rows[n - 2].note);
	EXPECT_STREQ("exit", rows[n - 1].label);
	EXPECT_STREQ("# sw_task_clock", rows[n - 1].note);
	/* Page faults only grow. */
	EXPECT_GE(rows[n - 2].v[0], rows[0].v[0]);
}

/* The values of the rows labelled label with note (NULL: any). */
static int values_of(const struct row *rows, int n, const char *label,
		     const char *note, unsigned long long *v, int max)
{
	int i, k = 0;

	for (i = 0; i < n && k < max; i++)
		if (!strcmp(rows[i].label, label) && (!note || !strcmp(rows[i].note, note)))
			v[k++] = rows[i].v[0];
	return k;
}

TEST_F(cputrack, tick_rows_are_the_counts_of_each_interval)
{
	char out[16384], err[4096], *title;
	unsigned long long t[64], e[2], sum = 0;
	struct row rows[64];
	int n, k, i;

	n = track("burst", out, sizeof(out), err, sizeof(err),
		  ARGV("-T", "0.1", "-c", "sw_page_faults"));
	EXPECT_EQ(0, n) TH_LOG("stderr: %s", err);
	n = rows_of(out, 0, rows, 64, &title);
	k = values_of(rows, n, "tick", NULL, t, 64);
	ASSERT_GE(k, 4) TH_LOG("%s", out);
	ASSERT_EQ(1, values_of(rows, n, "exit", NULL, e, 2)) TH_LOG("%s", out);
	/*
	 * The faults come first (Solaris' Example 1: 765308, then 0); while
	 * it sleeps, each interval counts nothing, where cumulative rows would
	 * repeat the total so far.  (Which interval the faults fall in is
	 * the guest scheduler's: a loaded host can keep the command off its
	 * vCPU for all of the first 0.1 s, so the first row may be 0.)
	 */
	EXPECT_EQ(0ULL, t[k - 1]) TH_LOG("%s", out);
	EXPECT_EQ(0ULL, t[k - 2]) TH_LOG("%s", out);
	/* The intervals add up to the exit row's total, less the last part. */
	for (i = 0; i < k; i++)
		sum += t[i];
	EXPECT_GE(sum, 256ULL) TH_LOG("%s", out);
	EXPECT_LE(sum, e[0]) TH_LOG("%s", out);
	EXPECT_GE(sum + 16, e[0]) TH_LOG("%s", out);
}

TEST_F(cputrack, tick_rows_of_several_sets_are_each_sets_period)
{
	char out[16384], err[4096], *title;
	unsigned long long t[64], e[2], sum = 0;
	struct row rows[64];
	int n, k, i;

	/*
	 * The faults are spread over several periods, so that set 0 meets
	 * some of them whichever periods the guest runs the command in.
	 */
	n = track("spread", out, sizeof(out), err, sizeof(err),
		  ARGV("-T", "0.1", "-c", "sw_page_faults", "-c", "sw_context_switches"));
	EXPECT_EQ(0, n) TH_LOG("stderr: %s", err);
	n = rows_of(out, 0, rows, 64, &title);
	k = values_of(rows, n, "tick", "# sw_page_faults", t, 64);
	ASSERT_GE(k, 2) TH_LOG("%s", out);
	ASSERT_EQ(1, values_of(rows, n, "exit", "# sw_page_faults", e, 2)) TH_LOG("%s", out);
	/* The set's last period, while the command sleeps: nothing. */
	EXPECT_EQ(0ULL, t[k - 1]) TH_LOG("%s", out);
	for (i = 0; i < k; i++)
		sum += t[i];
	EXPECT_GT(sum, 0ULL) TH_LOG("%s", out);
	EXPECT_LE(sum, e[0]) TH_LOG("%s", out);
	/* A sleeping LWP switches about once per period, not more and more. */
	k = values_of(rows, n, "tick", "# sw_context_switches", t, 64);
	ASSERT_GE(k, 2) TH_LOG("%s", out);
	EXPECT_LE(t[k - 1], 3ULL) TH_LOG("%s", out);
}

TEST_F(cputrack, T_0_samples_only_at_the_events_and_N_0_is_unlimited)
{
	char out[16384], err[4096], *title;
	struct row rows[64];
	int n, i;

	n = track("busy", out, sizeof(out), err, sizeof(err),
		  ARGV("-T", "0", "-N", "0", "-v", "-c", "sw_page_faults"));
	EXPECT_EQ(0, n) TH_LOG("stderr: %s", err);
	n = rows_of(out, 0, rows, 64, &title);
	/* About a second of work, and no tick row: init, fini, exit. */
	ASSERT_EQ(3, n) TH_LOG("%s", out);
	for (i = 0; i < n; i++)
		EXPECT_STRNE("tick", rows[i].label);
	EXPECT_STREQ("exit", rows[2].label);
	EXPECT_GT(rows[2].v[0], 80ULL);
	/* -N 0 with ticks: unlimited. */
	n = track("burst", out, sizeof(out), err, sizeof(err),
		  ARGV("-T", "0.1", "-N", "0", "-c", "sw_page_faults"));
	EXPECT_EQ(0, n) TH_LOG("stderr: %s", err);
	n = rows_of(out, 0, rows, 64, &title);
	ASSERT_GE(n, 4) TH_LOG("%s", out);
	EXPECT_STREQ("exit", rows[n - 1].label);
}

TEST_F(cputrack, o_writes_the_rows_to_a_file)
{
	char out[4096], err[1024], buf[4096], path[] = "/tmp/cputrack-o-XXXXXX";
	int fd, n;

	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	n = track("pages:1", out, sizeof(out), err, sizeof(err),
		  ARGV("-o", path, "-c", "sw_page_faults"));
	EXPECT_EQ(0, n) TH_LOG("%s", err);
	EXPECT_STREQ("", out);
	n = read(fd, buf, sizeof(buf) - 1);
	ASSERT_GT(n, 0);
	buf[n] = '\0';
	EXPECT_EQ(0, strncmp(buf, "   time lwp      event      pic0 \n", 33)) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "   1       exit ")) TH_LOG("%s", buf);
	close(fd);
	unlink(path);
}

static int cputrack_err(char *err, size_t n, char *const argv[])
{
	char out[8192];
	struct bg b;
	int ret = run_all(&b, CPUTRACK, argv, out, sizeof(out));

	snprintf(err, n, "%s", b.err);
	return ret;
}

TEST_F_TIMEOUT(cputrack, usage_and_spec_errors, 120)
{
	/* Solaris' usage, word for word (but cpustat(8) for cpustat(1M)). */
	static const char usage[] =
		"Usage:\n\tcputrack [-T secs] [-N count] [-Defhnv] [-o file]\n"
		"\t\t-c events [command [args] | -p pid]\n\n"
		"\t-T secs\t  seconds between samples, default 1\n"
		"\t-N count  number of samples, default unlimited\n"
		"\t-D\t  enable debug mode\n"
		"\t-e\t  follow exec(2), and execve(2)\n"
		"\t-f\t  follow fork(2), fork1(2), and vfork(2)\n"
		"\t-h\t  print extended usage information\n"
		"\t-n\t  suppress titles\n"
		"\t-t\t  include virtualized tsc register\n"
		"\t-v\t  verbose mode\n"
		"\t-o file\t  write cpu statistics to this file\n"
		"\t-c events specify processor events to be monitored\n"
		"\t-p pid\t  pid of existing process to capture\n\n"
		"\tUse cpustat(8) to monitor system-wide statistics.\n";
	char err[4096], out[65536];
	struct bg b;

	EXPECT_EQ(2, cputrack_err(err, sizeof(err), ARGV("cputrack", "true")));
	EXPECT_STREQ(usage, err);
	EXPECT_EQ(2, cputrack_err(err, sizeof(err), ARGV("cputrack", "-c", "sw_page_faults")));
	EXPECT_STREQ(usage, err);
	EXPECT_EQ(2, cputrack_err(err, sizeof(err),
				  ARGV("cputrack", "-c", "sw_page_faults", "-p", "1", "true")));
	EXPECT_EQ(2, cputrack_err(err, sizeof(err),
				  ARGV("cputrack", "-r", "-c", "sw_page_faults", "true")));
	EXPECT_STREQ(usage, err);
	EXPECT_EQ(2, cputrack_err(err, sizeof(err),
				  ARGV("cputrack", "-T", "-1", "-c", "sw_page_faults", "true")));
	EXPECT_STREQ(usage, err);
	EXPECT_EQ(2, cputrack_err(err, sizeof(err),
				  ARGV("cputrack", "-N", "-1", "-c", "sw_page_faults", "true")));
	/* -h: the usage on stdout, a blank line, the events. */
	EXPECT_EQ(0, run_all(&b, CPUTRACK, ARGV("cputrack", "-h"), out, sizeof(out)));
	EXPECT_EQ(0, strncmp(out, usage, strlen(usage)));
	EXPECT_EQ('\n', out[strlen(usage)]);
	/* -o that cannot be written. */
	EXPECT_EQ(1, cputrack_err(err, sizeof(err),
				  ARGV("cputrack", "-o", "/nonexistent/f", "-c", "sw_page_faults",
				       "true")));
	EXPECT_STREQ("cputrack: cannot open '/nonexistent/f' for writing\n", err);
	EXPECT_EQ(2, cputrack_err(err, sizeof(err),
				  ARGV("cputrack", "-c", "sw_page_faults,bogus", "true")));
	EXPECT_STREQ("cputrack: bad token 'bogus'\n", err);
	EXPECT_EQ(2, cputrack_err(err, sizeof(err),
				  ARGV("cputrack", "-c", "pic0=sw_page_faults,pic0=sw_cpu_clock",
				       "true")));
	EXPECT_STREQ("cputrack: repeated 'pic0' token\n", err);
	/* A command that cannot be run. */
	EXPECT_EQ(1, cputrack_err(err, sizeof(err),
				  ARGV("cputrack", "-c", "sw_page_faults", "/nonexistent/cmd")));
	EXPECT_STREQ("cputrack: cannot find program '/nonexistent/cmd'\n"
		     "cputrack: failed to start program '/nonexistent/cmd'\n", err);
	/* A process that does not exist. */
	EXPECT_EQ(1, cputrack_err(err, sizeof(err),
				  ARGV("cputrack", "-c", "sw_page_faults", "-p", "999999999")));
	EXPECT_STREQ("cputrack: pid 999999999 doesn't exist\n"
		     "cputrack: failed to capture pid 999999999\n", err);
}

TEST_HARNESS_MAIN
