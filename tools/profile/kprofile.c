// SPDX-License-Identifier: BSD-2-Clause
/*
 * kprofile(1): PC profiling of the kernel's text on /dev/pfcntr (Tru64
 * UNIX pfm(7)) on every CPU, for some seconds, while a command runs, or
 * until interrupted; prints a flat profile per kernel function, with the
 * symbols of /proc/kallsyms.
 */
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/pfcntr.h>

#include "profile_dev.h"
#include "pmc_hint.h"

#define KALLSYMS	"/proc/kallsyms"
#define NEED_PRIV	"kernel profiling needs privilege (CAP_PERFMON or CAP_SYS_ADMIN, " \
			"and CAP_SYSLOG to see the addresses of " KALLSYMS ")"

static void usage_to(FILE *f, int status)
{
	fprintf(f, "%s", "usage: kprofile [-c] [-e event] [-f frequency] [-o file] [-stride n] [-ra] [-all] [-v] [-quiet] [statistic] [seconds | command [args ...]]\n");
	exit(status);
}

static void usage(void)
{
	usage_to(stderr, 2);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Sleep until the time is up (secs > 0) or a signal stops it. */
static void wait_seconds(unsigned long secs)
{
	struct timespec end, now, left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	while (!stop) {
		if (!secs) {
			pause();
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		nanosleep(&left, NULL);
	}
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The kernel's text range and symbols; exits 1 when they are hidden. */
static void kernel_text(struct prof_symtab *t, uint64_t *start, uint64_t *end)
{
	uint64_t stext, etext, lo = UINT64_MAX, hi = 0;
	size_t i;
	FILE *f = fopen(KALLSYMS, "re");

	if (!f)
		err(1, "%s", KALLSYMS);
	if (prof_syms_add_kallsyms(t, f, &stext, &etext) < 0)
		err(1, "%s", KALLSYMS);
	fclose(f);
	for (i = 0; i < t->n; i++) {
		if (t->syms[i].addr < lo)
			lo = t->syms[i].addr;
		if (t->syms[i].addr > hi)
			hi = t->syms[i].addr;
	}
	if (!hi)
		errx(1, "%s shows no addresses: %s", KALLSYMS, NEED_PRIV);
	/* _stext.._etext, or else the span of the text symbols. */
	*start = stext ? stext : lo;
	*end = etext > *start ? etext : hi + 1;
}

/*
 * -c: memcpy() and memset() jump to out-of-line variants on processors
 * without fast short string instructions; they have no exported name for
 * the module to find, so their ranges are added after PCNTCALLER (4 at
 * most).  Those of them this kernel has.
 */
static const char *const caller_variants[] = {
	"memcpy_orig", "memcpy_erms", "memset_orig", "memset_erms",
};

static void add_caller_variants(int fd, struct prof_symtab *t)
{
	struct addr_range r;
	size_t i, j;

	prof_symtab_sort(t);
	for (i = 0; i < sizeof(caller_variants) / sizeof(caller_variants[0]); i++) {
		for (j = 0; j < t->n; j++)
			if (!strcmp(t->syms[j].name, caller_variants[i]))
				break;
		if (j == t->n)
			continue;
		r.start = t->syms[j].addr;
		if (t->syms[j].size)
			r.end = r.start + t->syms[j].size;
		else if (j + 1 < t->n)
			r.end = t->syms[j + 1].addr;
		else
			continue;
		if (ioctl(fd, PCNTSETKADDR, &r))
			warn("/dev/pfcntr: PCNTSETKADDR %s (PCNTCALLER)", caller_variants[i]);
	}
}

int main(int argc, char **argv)
{
	struct prof_opts o;
	struct prof_symtab syms;
	struct sigaction sa;
	uint64_t start, end, bucket_bytes;
	unsigned long secs = 0;
	const char *req;
	uint32_t *buckets;
	size_t nbuckets;
	struct prof_buckets b;
	uint64_t ticks, in = 0;
	size_t j;
	int fd, e, status = 0;
	pid_t pid = -1;

	prof_opts_init(&o);
	pmc_version_opt(argc, argv);
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		usage_to(stdout, 0);
	optind = prof_parse_opts(&o, argc, argv, true, usage);
	prof_opts_finish(&o, usage);
	if (optind == argc - 1 && all_digits(argv[optind])) {
		char *endp;

		errno = 0;
		secs = strtoul(argv[optind], &endp, 10);
		if (errno || !secs) {
			warnx("bad number of seconds: %s", argv[optind]);
			usage();
		}
		optind++;
	}

	prof_symtab_init(&syms);
	kernel_text(&syms, &start, &end);
	fd = prof_dev_open();
	e = prof_dev_range(fd, true, start, end, o.stride ? o.stride : 4, &bucket_bytes);
	if (e == -EPERM)
		errx(1, "/dev/pfcntr: PCNTSETKRANGE: not permitted: %s", NEED_PRIV);
	if (e)
		errno = -e, err(1, "/dev/pfcntr: PCNTSETKRANGE 0x%" PRIx64 "-0x%" PRIx64,
		     start, end);
	if (o.caller && ioctl(fd, PCNTCALLER))
		err(1, "/dev/pfcntr: PCNTCALLER");
	if (o.caller)
		add_caller_variants(fd, &syms);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	e = prof_dev_start(fd, &o, PF5_CTXT_ALL_PROC | PF5_CTXT_KERNEL, &req);
	if (e)
		prof_dev_start_failed(&o, e, req, NEED_PRIV);

	if (optind < argc) {
		pid = fork();
		if (pid < 0)
			err(1, "fork");
		if (pid == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			execvp(argv[optind], argv + optind);
			warn("%s", argv[optind]);
			_exit(errno == ENOENT ? 127 : 126);
		}
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		while (waitpid(pid, &status, 0) != pid)
			if (errno != EINTR)
				err(1, "waitpid");
	} else {
		wait_seconds(secs);
	}

	buckets = prof_dev_read(fd, &nbuckets);
	/* The samples outside the kernel's text (modules), or dropped by -c. */
	ticks = prof_dev_ticks(fd, &o);
	for (j = 0; j < nbuckets; j++)
		in += buckets[j];
	close(fd);
	b.counts = buckets;
	b.n = nbuckets;
	b.start = start;
	b.bucket_bytes = bucket_bytes;
	prof_report(&o, "kprofile", o.caller ? "kernel mode, callers" : "kernel mode",
		    &syms, &b, 1, ticks > in ? ticks - in : 0);
	free(buckets);
	prof_symtab_free(&syms);
	return pid > 0 ? prof_exit_code(status) : 0;
}
