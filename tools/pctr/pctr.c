// SPDX-License-Identifier: BSD-2-Clause
/*
 * pctr - list, program and read the CPU performance counters through
 * /dev/pctr, with the options and output of OpenBSD's pctr(1) on amd64.
 *
 * Written as a BSD program: the CPU is identified with sysctl(3) MIBs,
 * the device is driven with the <machine/pctr.h> ioctls, and options are
 * checked with strtonum(3) and reported with err(3).  On Linux it builds
 * with libpmcompat-bsd and libbsd-overlay.
 */
#include <sys/cdefs.h>
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/sysctl.h>

#include <machine/cpu.h>
#include <machine/pctr.h>
#include <machine/specialreg.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pctr_fmt.h"
#include "pmc_hint.h"

extern char *__progname;

static int cpu_type;
static int tsc_avail;

static __dead2 void usage(void)
{
	fprintf(stderr, "usage: %s %s\n", __progname,
		pctr_usage_args(cpu_type));
	exit(1);
}

/*
 * The device node.  PCTR_DEVICE overrides it, so that tests can point the
 * tool at another node.
 */
static const char *pctr_path(void)
{
	const char *p = getenv("PCTR_DEVICE");

	return p && *p ? p : _PATH_PCTR;
}

static void pctr_cpu_creds(void)
{
	int mib[2];
	char arch[16], vendor[16];
	u_int32_t cpu_id = 0, cpu_feature = 0;
	size_t len;

	mib[0] = CTL_HW;
	mib[1] = HW_MACHINE;
	len = sizeof(arch);
	if (sysctl(mib, 2, arch, &len, NULL, 0) == -1)
		err(1, "HW_MACHINE");

	mib[0] = CTL_MACHDEP;
	mib[1] = CPU_CPUVENDOR;
	len = sizeof(vendor);
	if (sysctl(mib, 2, vendor, &len, NULL, 0) == -1)
		err(1, "CPU_CPUVENDOR");

	mib[1] = CPU_CPUID;
	len = sizeof(cpu_id);
	if (sysctl(mib, 2, &cpu_id, &len, NULL, 0) == -1)
		err(1, "CPU_CPUID");

	mib[1] = CPU_CPUFEATURE;
	len = sizeof(cpu_feature);
	if (sysctl(mib, 2, &cpu_feature, &len, NULL, 0) == -1)
		err(1, "CPU_CPUFEATURE");

	cpu_type = pctr_cpu_type(arch, vendor, cpu_id);
	if (cpu_type < 0)
		errx(1, "architecture %s is not supported", arch);
	tsc_avail = !!(cpu_feature & CPUID_TSC);
}

static void pctr_list_fnct(void)
{
	const struct ctrfn *tab;
	char buf[1024];
	size_t i, n;

	tab = pctr_events(cpu_type, &n);
	for (i = 0; i < n; i++) {
		pctr_fmt_event(buf, sizeof(buf), &tab[i]);
		fputs(buf, stdout);
	}
}

static int pctr_read(struct pctrst *st)
{
	int fd, ret;

	fd = open(pctr_path(), O_RDONLY);
	if (fd == -1)
		return -1;
	ret = ioctl(fd, PCIOCRD, st);
	close(fd);
	return ret;
}

static void pctr_printvals(const struct pctrst *st)
{
	char buf[256];
	int i, n = pctr_num_counters(cpu_type);

	for (i = 0; i < n; i++) {
		pctr_fmt_counter(buf, sizeof(buf), cpu_type, i,
				 st->pctr_fn[i], st->pctr_hwc[i]);
		fputs(buf, stdout);
	}
	if (pctr_prints_tsc(cpu_type, tsc_avail)) {
		pctr_fmt_tsc(buf, sizeof(buf), st->pctr_tsc);
		fputs(buf, stdout);
	}
}

/* What EBUSY and EIO mean on Linux, where perf shares the counters. */
#define PCTR_HELD	"no hardware counter free for this event on some CPU " \
			"(held by another perf user or the NMI watchdog, kernel.nmi_watchdog)"
#define PCTR_LOST	"a counter lost its hardware counter on this CPU " \
			"(to another perf user or the NMI watchdog, kernel.nmi_watchdog); set it again"

static int pctr_set_cntr(int ctr, unsigned int val)
{
	int fd, ret;

	fd = open(pctr_path(), O_WRONLY);
	if (fd == -1)
		return -1;
	ret = ioctl(fd, PCIOCS0 + ctr, &val);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	struct pctr_opts o;
	struct pctrst st;
	char msg[PCTR_ERRLEN];
	u_int32_t sel;
	int ch;

	pmc_version_opt(argc, argv);
	pctr_cpu_creds();
	pctr_opts_init(&o);

	opterr = 0;	/* report bad options the BSD way, below */
	while ((ch = getopt(argc, argv, PCTR_GETOPT)) != -1) {
		if (ch == '?') {
			if (optopt && optopt != ':' && optopt != '+' &&
			    strchr(PCTR_GETOPT, optopt))
				warnx("option requires an argument -- %c",
				      optopt);
			else
				warnx("unknown option -- %c", optopt);
		}
		switch (pctr_apply_opt(cpu_type, &o, ch, optarg, msg,
				       sizeof(msg))) {
		case PCTR_OPT_OK:
			break;
		case PCTR_OPT_ERR:
			errx(1, "%s", msg);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	if (argc || pctr_check_opts(&o) != PCTR_OPT_OK)
		usage();

	if (o.list) {
		pctr_list_fnct();
	} else if (o.ctr >= 0) {
		if (pctr_build_sel(cpu_type, &o, &sel, msg, sizeof(msg)) < 0)
			errx(1, "%s", msg);
		if (pctr_set_cntr(o.ctr, sel) == -1) {
			if (errno == EBUSY)
				errx(1, "pctr_set_cntr: %s: " PCTR_HELD, strerror(EBUSY));
			pmc_err(1, pctr_path(), "pctr_set_cntr");
		}
	} else {
		memset(&st, 0, sizeof(st));
		if (pctr_read(&st) == -1) {
			if (errno == EIO)
				errx(1, "pctr_read: %s: " PCTR_LOST, strerror(EIO));
			pmc_err(1, pctr_path(), "pctr_read");
		}
		pctr_printvals(&st);
	}
	return 0;
}
