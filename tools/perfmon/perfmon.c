// SPDX-License-Identifier: BSD-2-Clause
/*
 * perfmon - count one CPU event with counter 0 of /dev/perfmon over a
 * number of intervals and print the count of each, with the interface and
 * output of the example program shipped with FreeBSD's perfmon(4).
 *
 * Written as a FreeBSD program: <machine/cpu.h> and <machine/perfmon.h>,
 * err(3), __dead2 and quad_t.  On Linux it builds with the pmcompat-bsd
 * flags (the pmcompat headers plus libbsd-overlay).
 */
#include <sys/cdefs.h>
#include <sys/types.h>
#include <sys/ioctl.h>

#include <machine/cpu.h>
#include <machine/perfmon.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfmon_args.h"
#include "pmc_hint.h"

static __dead2 void usage(const char *pname)
{
	fprintf(stderr,
		"usage: %s [-eiou] [-c command] [-l nloops] [-m mask] [-s sleeptime]\n"
		"       [-U unit] counter\n", pname);
	exit(1);
}

/*
 * The device node.  PERFMON_DEVICE overrides it, so that tests can point
 * the tool at another node.
 */
static const char *perfmon_path(void)
{
	const char *p = getenv("PERFMON_DEVICE");

	return p && *p ? p : _PATH_PERFMON;
}

/*
 * PMIOSTART failed.  EBUSY on Linux: perf found no hardware counter for the
 * event on some CPU, because the NMI watchdog or another perf user holds it.
 */
static __dead2 void start_failed(void)
{
	if (errno == EBUSY)
		errx(1, "ioctl(PMIOSTART): %s: no hardware counter free for this event on some CPU "
		     "(held by another perf user or the NMI watchdog, kernel.nmi_watchdog)",
		     strerror(EBUSY));
	err(1, "ioctl(PMIOSTART)");
}

int main(int argc, char **argv)
{
	struct perfmon_args a;
	struct pmc_tstamp then, now;
	struct pmc_data value;
	char msg[PERFMON_ERRLEN];
	const char *path;
	quad_t *buf;
	double total;
	int ch, fd, i, num;

	pmc_version_opt(argc, argv);
	perfmon_args_init(&a);

	opterr = 0;	/* report bad options the way FreeBSD's getopt does */
	while ((ch = getopt(argc, argv, PERFMON_GETOPT)) != -1) {
		if (ch == '?') {
			if (optopt && optopt != ':' && optopt != '+' &&
			    strchr(PERFMON_GETOPT, optopt))
				warnx("option requires an argument -- %c",
				      optopt);
			else
				warnx("illegal option -- %c", optopt);
		}
		switch (perfmon_apply_opt(&a, ch, optarg, msg, sizeof(msg))) {
		case PERFMON_OPT_OK:
			break;
		case PERFMON_OPT_ERR:
			errx(1, "%s", msg);
		default:
			usage(argv[0]);
		}
	}
	switch (perfmon_apply_operands(&a, argc - optind, argv + optind,
				       msg, sizeof(msg))) {
	case PERFMON_OPT_OK:
		break;
	case PERFMON_OPT_ERR:
		errx(1, "%s", msg);
	default:
		usage(argv[0]);
	}

	/* One value per interval, and the one after the last. */
	buf = malloc((size_t)(a.loops + 1) * sizeof(*buf));
	if (buf == NULL)
		err(1, "malloc");

	path = perfmon_path();
	fd = open(path, O_RDWR);
	if (fd == -1)
		pmc_err(1, path, "open: %s", path);

	num = a.pmc.pmc_num;
	if (ioctl(fd, PMIOSETUP, &a.pmc) == -1)
		err(1, "ioctl(PMIOSETUP)");
	if (ioctl(fd, PMIOTSTAMP, &then) == -1)
		err(1, "ioctl(PMIOTSTAMP)");
	if (ioctl(fd, PMIOSTART, &num) == -1)
		start_failed();

	value.pmcd_num = num;
	for (i = 0; i < a.loops; i++) {
		if (ioctl(fd, PMIOSTOP, &num) == -1)
			err(1, "ioctl(PMIOSTOP)");
		if (ioctl(fd, PMIOREAD, &value) == -1)
			err(1, "ioctl(PMIOREAD)");
		buf[i] = value.pmcd_value;
		if (ioctl(fd, PMIORESET, &value.pmcd_num) == -1)
			err(1, "ioctl(PMIORESET)");
		if (ioctl(fd, PMIOSTART, &num) == -1)
			start_failed();
		if (a.sleeptime)
			sleep(a.sleeptime);
		if (a.cmd)
			(void)system(a.cmd);
	}

	if (ioctl(fd, PMIOSTOP, &num) == -1)
		err(1, "ioctl(PMIOSTOP)");
	if (ioctl(fd, PMIOREAD, &value) == -1)
		err(1, "ioctl(PMIOREAD)");
	buf[a.loops] = value.pmcd_value;
	if (ioctl(fd, PMIOTSTAMP, &now) == -1)
		err(1, "ioctl(PMIOTSTAMP)");

	/*
	 * buf[i] counts the i-th sleep and command; buf[0], from the first
	 * start to the first stop, covers neither and is not reported.
	 * quad_t is long on LP64 glibc and %qd means long long: cast.
	 */
	total = 0;
	for (i = 1; i <= a.loops; i++) {
		total += buf[i];
		printf("%d: %qd\n", i, (long long)buf[i]);
	}
	printf("total: %f\nmean: %f\n", total, total / a.loops);
	printf("clocks (at %d-MHz): %qd\n", now.pmct_rate,
	       (long long)(now.pmct_value - then.pmct_value));

	close(fd);
	free(buf);
	return 0;
}
