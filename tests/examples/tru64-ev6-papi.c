/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A Tru64 UNIX program for the EV6 (21264) interface of pfm(7), making the
 * calls PAPI's Tru64 substrate made: it counts retired instructions and
 * cycles of itself and of every process it starts, on all CPUs together.
 *
 *	tru64-ev6-papi [seconds | command [argument ...]]
 *
 * With a command, the program runs it (fork and exec) between the start and
 * the read, so the counts are those of the command: PCNTLOGSELECT marks this
 * process, and the children it creates afterwards inherit the mark.  With a
 * number (default 1), it reads the counters once a second for that many
 * seconds.  The last lines, for scripts:
 *	retired instructions: N
 *	cycles: N
 *
 * Build against the installed header:
 *	cc -o tru64-ev6-papi tru64-ev6-papi.c $(pkg-config --cflags pmcompat-tru64)
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <sys/pfcntr.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define EV_MAX_CPUS	64	/* PAPI's array: ALL mode fills entry 0 only */

static int fd;
static struct pfcntrs_ev6 cntrs[EV_MAX_CPUS];
static ulong instructions, cycles, elapsed;	/* as PAPI's ulong cntrs[] */

static void
fail(const char *what)
{
	perror(what);
	exit(1);
}

/* PAPI's init: the device in aggregate mode, counters only, this process. */
static void
pfm_init(void)
{
	long items = PFM_COUNTERS;

	if ((fd = open("/dev/pfcntr", O_RDONLY | PCNTOPENALL)) == -1)
		fail("/dev/pfcntr");
	if (ioctl(fd, PCNTSETITEMS, &items) == -1)
		fail("PCNTSETITEMS");
	if (ioctl(fd, PCNTLOGSELECT) == -1)
		fail("PCNTLOGSELECT");
}

/* Zero both counters on every CPU and let them count. */
static void
pfm_restart(void)
{
	union pmctrs_ev6 ctl;

	ctl.pmctrs_ev6_long = 0;
	ctl.pmctrs_ev6_cpu = PMCTRS_ALL_CPUS;
	ctl.pmctrs_ev6_select = PF6_SEL_COUNTER_0 | PF6_SEL_COUNTER_1;
	if (ioctl(fd, PCNT6RESTART, &ctl.pmctrs_ev6_long) == -1)
		fail("PCNT6RESTART");
}

/* PAPI's start. */
static void
pfm_start(void)
{
	long mux = PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES;

	if (ioctl(fd, PCNTRDISABLE) == -1)
		fail("PCNTRDISABLE");
	if (ioctl(fd, PCNTCLEARCNT) == -1)
		fail("PCNTCLEARCNT");
	if (ioctl(fd, PCNT6MUX, &mux) == -1)
		fail("PCNT6MUX");
	pfm_restart();
}

/* PAPI's read: the full counts since the start, then counting goes on. */
static void
pfm_read(void)
{
	struct pfcntrs_ev6 *ptr = cntrs;

	if (ioctl(fd, PCNTRDISABLE) == -1)
		fail("PCNTRDISABLE");
	if (ioctl(fd, PCNT6READCNTRS, &ptr) == -1)
		fail("PCNT6READCNTRS");
	instructions += cntrs[0].pf_cntr0;
	cycles += cntrs[0].pf_cntr1;
	elapsed += cntrs[0].pr_cycle;
	if (ioctl(fd, PCNTCLEARCNT) == -1)
		fail("PCNTCLEARCNT");
	pfm_restart();
}

/* PAPI's stop. */
static void
pfm_stop(void)
{
	if (ioctl(fd, PCNTRDISABLE) == -1)
		fail("PCNTRDISABLE");
	close(fd);
}

static int
run(char **argv)
{
	pid_t pid;
	int status;

	switch (pid = fork()) {
	case -1:
		fail("fork");
		break;
	case 0:
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) == -1)
		fail("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int
main(int argc, char **argv)
{
	char *end;
	long seconds = 1, i;
	int status = 0;

	if (argc > 1) {
		seconds = strtol(argv[1], &end, 10);
		if (*end != '\0' || end == argv[1])
			seconds = -1;		/* a command */
	}

	pfm_init();
	pfm_start();
	if (seconds < 0) {
		status = run(argv + 1);
		pfm_read();
	} else {
		for (i = 0; i < seconds; i++) {
			sleep(1);
			pfm_read();
		}
	}
	pfm_stop();

	printf("elapsed TSC cycles: %lu\n", elapsed);
	printf("retired instructions: %lu\n", instructions);
	printf("cycles: %lu\n", cycles);
	return status;
}
