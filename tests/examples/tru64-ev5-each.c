/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A Tru64 UNIX program for the EV5 (21164) interface of pfm(7): it counts
 * everything that runs on each CPU (PCNTLOGALL), kept per CPU
 * (PCNTOPENEACH), with all three counters:
 *	counter 0: PF5_MUX0_ISSUES (instructions), a tick every 65536
 *	counter 1: PF5_MUX1_FLOW_CHANGE (branches, jumps, returns), every 65536
 *	counter 2: PF5_MUX2_C_CYCLES (cycles), every 16384
 *
 *	tru64-ev5-each [seconds | command [argument ...]]
 *
 * It counts while the command runs (fork and exec), or for the given number
 * of seconds (default 1), then prints one line per CPU:
 *	cpu N: ticks T0 T1 T2 raw R0 R1 R2 counts C0 C1 C2
 * the interrupt counts (PCNT5GETCNT), the raw counters (PCNT5GETCNTRS) and
 * the full counts (PCNT5READCNTRS: ticks * period + raw), and the cycles
 * the measurement took (pr_cycle).  Counting whole CPUs needs privilege.
 *
 * Build against the installed header:
 *	cc -o tru64-ev5-each tru64-ev5-each.c $(pkg-config --cflags pmcompat-tru64)
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <sys/pfcntr.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fd;

static void
fail(const char *what)
{
	perror(what);
	exit(1);
}

static void
set(unsigned long request, const char *name, long value)
{
	if (ioctl(fd, request, &value) == -1)
		fail(name);
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
	struct pfcntrs_ev5 *ticks, *counts, *p;
	union pmctrs_ev5 ctl;
	long ncpu, seconds = 1, cpu;
	char *end;
	int status = 0;

	if (argc > 1) {
		seconds = strtol(argv[1], &end, 10);
		if (*end != '\0' || end == argv[1])
			seconds = -1;		/* a command */
	}

	/* PCNTOPENEACH: one entry per CPU in every array. */
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	ticks = calloc(ncpu, sizeof(*ticks));
	counts = calloc(ncpu, sizeof(*counts));
	if (ticks == NULL || counts == NULL)
		fail("calloc");

	if ((fd = open("/dev/pfcntr", O_RDONLY | PCNTOPENEACH)) == -1)
		fail("/dev/pfcntr");
	if (ioctl(fd, PCNTLOGALL) == -1)
		fail("PCNTLOGALL");
	set(PCNT5MUX, "PCNT5MUX",
	    PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES);
	set(PCNT5FREQ, "PCNT5FREQ",
	    PF5_C0_INT_EVERY_65536 | PF5_C1_INT_EVERY_65536 |
	    PF5_C2_INT_EVERY_16384);
	set(PCNT5CTXTS, "PCNT5CTXTS", PF5_CTXT_ALL_PROC | PF5_CTXT_ALL_MODES);

	/* Zero the tallies and the raw counters, then count. */
	if (ioctl(fd, PCNTCLEARCNT) == -1)
		fail("PCNTCLEARCNT");
	ctl.pmctrs_ev5_long = 0;
	ctl.pmctrs_ev5_cpu = PMCTRS_ALL_CPUS;
	ctl.pmctrs_ev5_select = PF5_SEL_COUNTER_0 | PF5_SEL_COUNTER_1 |
	    PF5_SEL_COUNTER_2;
	if (ioctl(fd, PCNT5RESTART, &ctl.pmctrs_ev5_long) == -1)
		fail("PCNT5RESTART");
	if (ioctl(fd, PCNTRENABLE) == -1)
		fail("PCNTRENABLE");

	if (seconds < 0)
		status = run(argv + 1);
	else
		sleep(seconds);

	if (ioctl(fd, PCNTRDISABLE) == -1)
		fail("PCNTRDISABLE");
	p = ticks;
	if (ioctl(fd, PCNT5GETCNT, &p) == -1)
		fail("PCNT5GETCNT");
	p = counts;
	if (ioctl(fd, PCNT5READCNTRS, &p) == -1)
		fail("PCNT5READCNTRS");

	for (cpu = 0; cpu < ncpu; cpu++) {
		ctl.pmctrs_ev5_long = 0;
		ctl.pmctrs_ev5_cpu = cpu;
		if (ioctl(fd, PCNT5GETCNTRS, &ctl.pmctrs_ev5_long) == -1)
			fail("PCNT5GETCNTRS");
		printf("cpu %ld: ticks %lu %lu %lu raw %u %u %u "
		    "counts %lu %lu %lu\n", cpu,
		    ticks[cpu].pf_cntr0, ticks[cpu].pf_cntr1,
		    ticks[cpu].pf_cntr2,
		    (unsigned)ctl.pmctrs_ev5_cntr0,
		    (unsigned)ctl.pmctrs_ev5_cntr1,
		    (unsigned)ctl.pmctrs_ev5_cntr2,
		    counts[cpu].pf_cntr0, counts[cpu].pf_cntr1,
		    counts[cpu].pf_cntr2);
	}
	printf("pr_cycle: %lu\n", counts[0].pr_cycle);
	close(fd);
	return status;
}
