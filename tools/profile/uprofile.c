// SPDX-License-Identifier: BSD-2-Clause
/*
 * uprofile(1): run a command with user-mode PC profiling of its text on
 * /dev/pfcntr (Tru64 UNIX pfm(7)) and print a flat profile per function.
 *
 * The device profiles one range per open, so uprofile makes several opens
 * (up to UPROFILE_RANGES).  The child marks itself in each (PCNTLOGSELECT)
 * and executes the command under ptrace, which stops it right after the
 * exec; the parent lets it run to the executable's entry point, where the
 * shared libraries are mapped.  There it reads where the text was mapped
 * (/proc/PID/maps), groups the text of the executable, the libraries, the
 * dynamic linker and the vDSO into ranges, gives each open one
 * (PCNTSETURANGE), programs the EV5 event for user mode in each (which
 * needs no privilege) and lets the command run.  Every open counts the
 * same samples; the samples that no range held are the counter's
 * interrupts (PCNT5GETCNT) less those in the buckets.  The samples are
 * credited to the function symbols of the objects (libdwfl).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/pfcntr.h>

#include "profile_dev.h"
#include "pmc_hint.h"

static void usage_to(FILE *f, int status)
{
	fprintf(f, "%s", "usage: uprofile [-e event] [-f frequency] [-o file] [-stride n] [-all] [-v] [-quiet] [statistic] command [args ...]\n");
	exit(status);
}

static void usage(void)
{
	usage_to(stderr, 2);
}

/*
 * The widest span of text in one range: objects farther apart are in
 * ranges of their own (a range across the gigabytes between a
 * position-independent executable and the libraries would need buckets too
 * coarse to tell functions apart).
 */
#define USER_MAX_SPAN	(64ULL << 20)
/* Ranges, and so opens of the device, at most. */
#define UPROFILE_RANGES	4
/* Buckets of a range at most, unless -stride asks for finer (4 MiB a CPU). */
#define RANGE_BUCKETS	(1ULL << 20)

/* The text profiled: the ranges, the executable's name. */
struct text {
	char exe[PATH_MAX];
	struct prof_range r[UPROFILE_RANGES];
	int n;
	size_t left;		/* ranges not profiled */
};

#if defined(__x86_64__)
#include <sys/user.h>

/* AT_ENTRY of pid's auxiliary vector, or 0. */
static uint64_t auxv_entry(pid_t pid)
{
	char path[64];
	uint64_t av[2], entry = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fread(av, sizeof(av), 1, f) == 1 && av[0] != AT_NULL)
		if (av[0] == AT_ENTRY)
			entry = av[1];
	fclose(f);
	return entry;
}

/*
 * Let the traced child, stopped after its exec, run to the executable's
 * entry point (an int3 there), where the dynamic linker has mapped the
 * shared libraries.  0; 1 when the child ended on the way (*status);
 * -1 with errno.
 */
static int run_to_entry(pid_t pid, int *status)
{
	struct user_regs_struct regs;
	uint64_t entry = auxv_entry(pid);
	long orig, sig = 0;

	if (!entry) {
		errno = ENOENT;
		return -1;
	}
	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)entry, NULL);
	if (errno)
		return -1;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)((orig & ~0xffL) | 0xcc)))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)sig))
			return -1;
		if (waitpid(pid, status, 0) != pid)
			return -1;
		if (!WIFSTOPPED(*status))
			return 1;
		if (WSTOPSIG(*status) == SIGTRAP)
			break;
		sig = WSTOPSIG(*status);	/* the child's own signal: deliver it */
	}
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		return -1;
	if (regs.rip != entry + 1) {
		errno = EPROTO;
		return -1;
	}
	regs.rip = entry;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)orig) ||
	    ptrace(PTRACE_SETREGS, pid, NULL, &regs))
		return -1;
	return 0;
}
#else
/* Elsewhere: the executable's text only, from the exec stop. */
static int run_to_entry(pid_t pid, int *status)
{
	(void)pid;
	(void)status;
	return 0;
}
#endif

/*
 * Find the text to profile in /proc/PID/maps: at most max ranges
 * (prof_pick_ranges()), the executable's first, and add the function
 * symbols of every object of the process.  0 or -1 (message in err).
 */
static int find_text(pid_t pid, int max, struct text *tx, struct prof_symtab *syms,
		     char *err, size_t errlen)
{
	char path[64], line[4352];
	struct prof_map *m = NULL, *nm;
	size_t n = 0;
	ssize_t len;
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	len = readlink(path, tx->exe, sizeof(tx->exe) - 1);
	if (len < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	tx->exe[len] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		nm = reallocarray(m, n + 1, sizeof(*m));
		if (!nm) {
			snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
			goto out;
		}
		m = nm;
		if (!prof_parse_maps_line(line, &m[n]) && m[n].exec)
			n++;
	}
	tx->n = prof_pick_ranges(m, n, tx->exe, USER_MAX_SPAN, tx->r, max, &tx->left);
	if (tx->n <= 0) {
		snprintf(err, errlen, "%s: no executable mapping of %s", path, tx->exe);
		goto out;
	}
	if (prof_syms_add_proc(syms, pid, tx->exe, err, errlen) < 0)
		goto out;
	ret = 0;
out:
	fclose(f);
	free(m);
	return ret;
}

/* The smallest stride from min up that keeps a range within RANGE_BUCKETS. */
static unsigned long range_stride(const struct prof_range *r, unsigned long min)
{
	unsigned long s = min ? min : 1;

	while (!min && (r->end - r->start) / (4ULL * s) >= RANGE_BUCKETS)
		s <<= 1;
	return s;
}

/* Report a failure of the child before its exec through the pipe, and exit. */
static void child_fail(int wfd, const char *what, int e)
{
	char msg[512];
	int len;

	len = snprintf(msg, sizeof(msg), "%s: %s", what, strerror(e));
	if (write(wfd, msg, len) < 0)
		_exit(127);
	_exit(e == ENOENT ? 127 : 126);
}

int main(int argc, char **argv)
{
	struct prof_opts o;
	struct prof_symtab syms;
	struct prof_buckets b[UPROFILE_RANGES];
	uint32_t *counts[UPROFILE_RANGES];
	struct text tx;
	char msg[PROF_ERRLEN], what[PATH_MAX + 16];
	const char *req;
	uint64_t bucket_bytes, ticks, total = 0, in = 0;
	size_t nbuckets, j;
	int fds[UPROFILE_RANGES], nfd, cmd, status, p[2], e, i, k;
	ssize_t n;
	pid_t pid;

	prof_opts_init(&o);
	pmc_version_opt(argc, argv);
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		usage_to(stdout, 0);
	cmd = prof_parse_opts(&o, argc, argv, false, usage);
	if (cmd >= argc)
		usage();
	prof_opts_finish(&o, usage);

	nfd = prof_dev_open_many(fds, UPROFILE_RANGES);
	if (pipe2(p, O_CLOEXEC))
		err(1, "pipe");
	pid = fork();
	if (pid < 0)
		err(1, "fork");
	if (pid == 0) {
		close(p[0]);
		/* Count this process and what it runs (the PME mark), in every open. */
		for (i = 0; i < nfd; i++)
			if (ioctl(fds[i], PCNTLOGSELECT))
				child_fail(p[1], "/dev/pfcntr: PCNTLOGSELECT", errno);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			child_fail(p[1], "ptrace", errno);
		execvp(argv[cmd], argv + cmd);
		child_fail(p[1], argv[cmd], errno);
	}
	close(p[1]);
	if (waitpid(pid, &status, 0) != pid)
		err(1, "waitpid");
	if (!WIFSTOPPED(status)) {
		n = read(p[0], msg, sizeof(msg) - 1);
		if (n > 0) {
			msg[n] = '\0';
			errx(prof_exit_code(status), "%s", msg);
		}
		errx(1, "%s did not start", argv[cmd]);
	}
	close(p[0]);
	/* Should uprofile die while the command is stopped, the command dies too. */
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL)) {
		kill(pid, SIGKILL);
		err(1, "ptrace");
	}

	/* Stopped after the exec: run to the entry point, where the libraries are. */
	e = run_to_entry(pid, &status);
	if (e > 0)
		errx(prof_exit_code(status), "%s ended before its entry point", argv[cmd]);
	if (e < 0) {
		kill(pid, SIGKILL);
		err(1, "ptrace: %s", argv[cmd]);
	}
	/* Find the text, set up the device, go. */
	prof_symtab_init(&syms);
	if (find_text(pid, nfd, &tx, &syms, msg, sizeof(msg))) {
		kill(pid, SIGKILL);
		errx(1, "%s", msg);
	}
	/* One open a range; an open that gets no memory or no counter is left out. */
	for (i = 0, k = 0; i < nfd; i++) {
		if (i >= tx.n) {
			close(fds[i]);
			continue;
		}
		e = prof_dev_range(fds[i], false, tx.r[i].start, tx.r[i].end,
				   range_stride(&tx.r[i], o.stride), &bucket_bytes);
		if (e && i == 0) {
			kill(pid, SIGKILL);
			errno = -e, err(1, "/dev/pfcntr: PCNTSETURANGE 0x%" PRIx64 "-0x%" PRIx64,
			     tx.r[0].start, tx.r[0].end);
		}
		if (!e)
			e = prof_dev_start(fds[i], &o, PF5_CTXT_SEL_PROC | PF5_CTXT_USER, &req);
		if (e && i == 0) {
			kill(pid, SIGKILL);
			if (e == -EPERM)
				errx(1, "/dev/pfcntr: %s: not permitted (the rate %lu needs CAP_PERFMON)",
				     req, o.rate);
			prof_dev_start_failed(&o, e, req, "");
		}
		if (e) {
			close(fds[i]);
			tx.left++;
			continue;
		}
		fds[k] = fds[i];
		b[k].start = tx.r[i].start;
		b[k].bucket_bytes = bucket_bytes;
		k++;
	}
	nfd = k;
	if (ptrace(PTRACE_DETACH, pid, NULL, NULL)) {
		kill(pid, SIGKILL);
		err(1, "ptrace");
	}

	/* As time(1): the command gets the terminal's signals. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(pid, &status, 0) != pid)
		if (errno != EINTR)
			err(1, "waitpid");

	/*
	 * Every open counted every sample: the most any counted is the total
	 * (they differ only by what interrupts came between their starts).
	 */
	for (i = 0; i < nfd; i++) {
		counts[i] = prof_dev_read(fds[i], &nbuckets);
		b[i].counts = counts[i];
		b[i].n = nbuckets;
		ticks = prof_dev_ticks(fds[i], &o);
		if (ticks > total)
			total = ticks;
		for (j = 0; j < nbuckets; j++)
			in += counts[i][j];
		close(fds[i]);
	}
	snprintf(what, sizeof(what), "uprofile: %s", tx.exe);
	prof_report(&o, what, "user mode", &syms, b, nfd, total > in ? total - in : 0);
	for (i = 0; i < nfd; i++)
		free(counts[i]);
	prof_symtab_free(&syms);
	return prof_exit_code(status);
}
