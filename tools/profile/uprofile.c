// SPDX-License-Identifier: BSD-2-Clause
/*
 * uprofile(1): run a command with user-mode PC profiling of its text on
 * /dev/pfcntr (Tru64 UNIX pfm(7)) and print a flat profile per function.
 *
 * The child marks itself (PCNTLOGSELECT) and executes the command under
 * ptrace, which stops it right after the exec.  There the parent reads
 * where the executable's text was mapped (/proc/PID/maps), sets the
 * profiling range to it (PCNTSETURANGE), programs the EV5 event for user
 * mode (which needs no privilege) and lets the command run.  The samples
 * are credited to the executable's ELF function symbols at their load
 * address.
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

/* The executable's text: its exec mappings, and the load bias. */
struct text {
	char exe[PATH_MAX];
	uint64_t start, end;
	int64_t bias;
};

/* Find the text of pid's executable in /proc/PID/maps; 0 or -1 (message in err). */
static int find_text(pid_t pid, struct text *tx, char *err, size_t errlen)
{
	char path[64], line[4352];
	struct prof_map m;
	bool found = false;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, tx->exe, sizeof(tx->exe) - 1);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	tx->exe[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (prof_parse_maps_line(line, &m) || !m.exec || strcmp(m.path, tx->exe))
			continue;
		if (!found) {
			if (prof_elf_bias(tx->exe, m.start, m.off, &tx->bias, err, errlen)) {
				fclose(f);
				return -1;
			}
			tx->start = m.start;
			found = true;
		}
		tx->end = m.end;
	}
	fclose(f);
	if (!found) {
		snprintf(err, errlen, "%s: no executable mapping of %s", path, tx->exe);
		return -1;
	}
	return 0;
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

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
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
			errx(exit_code(status), "%s", msg);
		}
		errx(1, "%s did not start", argv[optind]);
	}
	close(p[0]);

	/* Stopped after the exec: find the text, set up the device, go. */
	if (find_text(pid, &tx, msg, sizeof(msg))) {
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
		errno = -e, err(1, "/dev/pfcntr: %s (event %s)", req, o.ev->name);
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
	prof_symtab_init(&syms);
	if (prof_syms_add_elf(&syms, tx.exe, tx.bias, msg, sizeof(msg)) < 0)
		warnx("%s", msg);
	snprintf(what, sizeof(what), "uprofile: %s", tx.exe);
	prof_report(&o, what, "user mode", &syms, buckets, nbuckets, tx.start,
		    bucket_bytes);
	free(buckets);
	prof_symtab_free(&syms);
	return exit_code(status);
}
