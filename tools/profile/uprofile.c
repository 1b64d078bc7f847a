// SPDX-License-Identifier: BSD-2-Clause
/*
 * uprofile(1): run a command with user-mode PC profiling of its text on
 * /dev/pfcntr (Tru64 UNIX pfm(7)) and print a flat profile per function.
 *
 * The child marks itself (PCNTLOGSELECT) and executes the command under
 * ptrace, which stops it right after the exec; the parent lets it run to
 * the executable's entry point, where the shared libraries are mapped.
 * There it reads where the text was mapped (/proc/PID/maps), sets the
 * profiling range to the executable's text and the libraries near enough
 * (PCNTSETURANGE), programs the EV5 event for user mode (which needs no
 * privilege) and lets the command run.  The samples are credited to the
 * ELF function symbols of those files at their load addresses.
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

static void usage(void)
{
	fprintf(stderr,
		"usage: uprofile [-e event] [-f frequency] [-o file] command [args ...]\n");
	exit(2);
}

/*
 * The widest span of text profiled with the executable: shared libraries
 * farther away are left out (the device's buckets have a size limit, and
 * a range across the hole between the executable and the libraries would
 * need buckets too coarse to tell functions apart).
 */
#define USER_MAX_SPAN	(64ULL << 20)

/* The text profiled: [start, end), the executable's name. */
struct text {
	char exe[PATH_MAX];
	uint64_t start, end;
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
 * Find the text to profile in /proc/PID/maps: the executable's, with the
 * shared libraries that fit (prof_pick_text()), and add the function
 * symbols of every file in it at its load bias.  0 or -1 (message in err).
 */
static int find_text(pid_t pid, struct text *tx, struct prof_symtab *syms,
		     char *err, size_t errlen)
{
	char path[64], line[4352], msg[PROF_ERRLEN];
	struct prof_map *m = NULL, *nm;
	size_t n = 0, i, j;
	bool *in = NULL;
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
		if (!nm)
			goto nomem;
		m = nm;
		if (!prof_parse_maps_line(line, &m[n]) && m[n].exec)
			n++;
	}
	fclose(f);
	f = NULL;
	in = calloc(n + 1, sizeof(*in));
	if (!in)
		goto nomem;
	if (prof_pick_text(m, n, tx->exe, USER_MAX_SPAN, &tx->start, &tx->end, in)) {
		snprintf(err, errlen, "%s: no executable mapping of %s", path, tx->exe);
		goto out;
	}
	/* Each file once, at the bias of its first text mapping. */
	for (i = 0; i < n; i++) {
		int64_t bias;

		if (!in[i])
			continue;
		for (j = 0; j < i; j++)
			if (in[j] && !strcmp(m[j].path, m[i].path))
				break;
		if (j < i)
			continue;
		if (prof_elf_bias(m[i].path, m[i].start, m[i].off, &bias, msg, sizeof(msg)) ||
		    prof_syms_add_elf(syms, m[i].path, bias, msg, sizeof(msg)) < 0) {
			if (!strcmp(m[i].path, tx->exe)) {
				snprintf(err, errlen, "%s", msg);
				goto out;
			}
			warnx("%s", msg);	/* a library without symbols */
		}
	}
	ret = 0;
	goto out;
nomem:
	snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	if (f)
		fclose(f);
out:
	free(in);
	free(m);
	return ret;
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
	struct text tx;
	char msg[PROF_ERRLEN], what[PATH_MAX + 16];
	const char *req;
	uint64_t bucket_bytes;
	uint32_t *buckets;
	size_t nbuckets;
	int fd, ch, status, p[2], e;
	ssize_t n;
	pid_t pid;

	prof_opts_init(&o);
	while ((ch = getopt(argc, argv, "+e:f:o:")) != -1)
		if (prof_common_opt(&o, ch, optarg, usage))
			usage();
	if (optind == argc)
		usage();
	prof_opts_finish(&o, usage);

	fd = prof_dev_open();
	if (pipe2(p, O_CLOEXEC))
		err(1, "pipe");
	pid = fork();
	if (pid < 0)
		err(1, "fork");
	if (pid == 0) {
		close(p[0]);
		/* Count this process and what it runs (the PME mark). */
		if (ioctl(fd, PCNTLOGSELECT))
			child_fail(p[1], "/dev/pfcntr: PCNTLOGSELECT", errno);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			child_fail(p[1], "ptrace", errno);
		execvp(argv[optind], argv + optind);
		child_fail(p[1], argv[optind], errno);
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
		errx(1, "%s did not start", argv[optind]);
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
		errx(prof_exit_code(status), "%s ended before its entry point", argv[optind]);
	if (e < 0) {
		kill(pid, SIGKILL);
		err(1, "ptrace: %s", argv[optind]);
	}
	/* Find the text, set up the device, go. */
	prof_symtab_init(&syms);
	if (find_text(pid, &tx, &syms, msg, sizeof(msg))) {
		kill(pid, SIGKILL);
		errx(1, "%s", msg);
	}
	e = prof_dev_range(fd, false, tx.start, tx.end, 1, &bucket_bytes);
	if (e) {
		kill(pid, SIGKILL);
		errno = -e, err(1, "/dev/pfcntr: PCNTSETURANGE 0x%" PRIx64 "-0x%" PRIx64,
		     tx.start, tx.end);
	}
	e = prof_dev_start(fd, &o, PF5_CTXT_SEL_PROC | PF5_CTXT_USER, &req);
	if (e) {
		kill(pid, SIGKILL);
		if (e == -EPERM)
			errx(1, "/dev/pfcntr: %s: not permitted (the rate %lu needs CAP_PERFMON)",
			     req, o.rate);
		prof_dev_start_failed(&o, e, req, "");
	}
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

	buckets = prof_dev_read(fd, &nbuckets);
	close(fd);
	snprintf(what, sizeof(what), "uprofile: %s", tx.exe);
	prof_report(&o, what, "user mode", &syms, buckets, nbuckets, tx.start,
		    bucket_bytes);
	free(buckets);
	prof_symtab_free(&syms);
	return prof_exit_code(status);
}
