/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of cpustat_test and cputrack_test: run a tool in the background
 * and read its output line by line while the test acts on the system.
 */
#ifndef CPCTOOLS_TEST_UTIL_H
#define CPCTOOLS_TEST_UTIL_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

struct bg {
	pid_t pid;
	FILE *out;
	int errfd;
	char err[4096];
};

/* Start path with argv (argv[0] included); stdout and stderr piped. */
static inline int bg_start(struct bg *b, const char *path, char *const argv[])
{
	int out[2], err[2];

	memset(b, 0, sizeof(*b));
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -1;
	fflush(NULL);
	b->pid = fork();
	if (b->pid < 0)
		return -1;
	if (b->pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(path, argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	b->out = fdopen(out[0], "r");
	b->errfd = err[0];
	return b->out ? 0 : -1;
}

/* The next line of stdout (newline kept), or NULL at EOF. */
static inline char *bg_line(struct bg *b, char *buf, size_t n)
{
	return fgets(buf, (int)n, b->out);
}

/* Read the rest of stdout into rest, stderr into b->err; the wait status. */
static inline int bg_finish(struct bg *b, char *rest, size_t n)
{
	size_t pos = 0, k;
	int status = -1;
	ssize_t r;

	if (rest && n) {
		while (pos + 1 < n && (k = fread(rest + pos, 1, n - 1 - pos, b->out)) > 0)
			pos += k;
		rest[pos] = '\0';
	}
	fclose(b->out);
	pos = 0;
	while (pos + 1 < sizeof(b->err) &&
	       (r = read(b->errfd, b->err + pos, sizeof(b->err) - 1 - pos)) > 0)
		pos += r;
	b->err[pos] = '\0';
	close(b->errfd);
	if (waitpid(b->pid, &status, 0) != b->pid)
		return -1;
	return status;
}

/* Run to the end: stdout in out, the exit code (-1 if killed). */
static inline int run_all(struct bg *b, const char *path, char *const argv[],
			  char *out, size_t n)
{
	int st;

	if (bg_start(b, path, argv))
		return -2;
	st = bg_finish(b, out, n);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define ARGV(...) ((char *const []){ __VA_ARGS__, NULL })

#endif /* CPCTOOLS_TEST_UTIL_H */
