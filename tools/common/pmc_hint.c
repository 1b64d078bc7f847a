// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_hint: one line of advice after a tool's original error message
 * (README: Troubleshooting).  The first line stays the original system's;
 * this adds what a newcomer needs to act on it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmc_hint.h"

#ifndef PMCOMPAT_VERSION
#error "PMCOMPAT_VERSION must be defined (tools/Makefile, from VERSION)"
#endif

const char pmc_version[] = PMCOMPAT_VERSION;

#define PMC_GROUP "pmcompat"

/* Is this process in the group (effective or supplementary)? */
static int in_group(gid_t gid)
{
	gid_t groups[256];
	int i, n;

	if (getegid() == gid)
		return 1;
	n = getgroups(sizeof(groups) / sizeof(groups[0]), groups);
	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return 1;
	return 0;
}

/* Does the group database list the user (a grant not yet in this login)? */
static int listed_in_group(const struct group *gr)
{
	struct passwd *pw = getpwuid(getuid());
	char **m;

	if (!pw)
		return 0;
	if (pw->pw_gid == gr->gr_gid)
		return 1;
	for (m = gr->gr_mem; m && *m; m++)
		if (!strcmp(*m, pw->pw_name))
			return 1;
	return 0;
}

enum pmc_group_state pmc_group_state(void)
{
	struct group *gr = getgrnam(PMC_GROUP);

	if (!gr)
		return PMC_GROUP_MISSING;
	if (in_group(gr->gr_gid))
		return PMC_GROUP_IN;
	if (listed_in_group(gr))
		return PMC_GROUP_RELOGIN;
	return PMC_GROUP_OUT;
}

static void access_hint(char *buf, size_t len)
{
	switch (pmc_group_state()) {
	case PMC_GROUP_MISSING:
		snprintf(buf, len, "there is no group " PMC_GROUP
			 ": install pmcompat's udev rule and group (make install, or the pmcompat-dkms package)");
		break;
	case PMC_GROUP_IN:
		snprintf(buf, len, "you are in group " PMC_GROUP
			 ", but this needs CAP_PERFMON or root (whole CPUs, kernel mode; see the page's security notes)");
		break;
	case PMC_GROUP_RELOGIN:
		snprintf(buf, len, "you were added to group " PMC_GROUP
			 " after this login: log out and in again (id must list " PMC_GROUP ")");
		break;
	case PMC_GROUP_OUT:
		snprintf(buf, len, "not in group " PMC_GROUP
			 ": sudo usermod -aG " PMC_GROUP " $USER, then log in again");
		break;
	}
}

/* Is the NMI watchdog on (it holds one counter per CPU)? -1: unknown. */
static int nmi_watchdog(void)
{
	FILE *f = fopen("/proc/sys/kernel/nmi_watchdog", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

const char *pmc_hint_text(char *buf, size_t len, const char *dev, int err)
{
	struct stat st;
	const char *d = dev ? dev : "the device";
	int missing = dev && stat(dev, &st) < 0 && errno == ENOENT;

	buf[0] = '\0';
	switch (err) {
	case ENOENT:
	case ENXIO:
		snprintf(buf, len, "%s is missing: load the module (sudo modprobe pmcompat)", d);
		break;
	case ENODEV:
		if (missing)
			snprintf(buf, len, "%s is missing: load the module (sudo modprobe pmcompat)", d);
		else
			snprintf(buf, len,
				 "no hardware PMU (a VM without a virtual PMU?): the sw_* events count without one, e.g. cpustat -c sw_task_clock 1 3");
		break;
	case EACCES:
	case EPERM:
		access_hint(buf, len);
		break;
	case EBUSY:
		if (nmi_watchdog() > 0)
			snprintf(buf, len,
				 "the counters are taken: the NMI watchdog holds one (sudo sysctl kernel.nmi_watchdog=0), or another perf user (a profiler, a KVM guest)");
		else
			snprintf(buf, len,
				 "the counters are taken by another perf user (a profiler, a KVM guest's virtual PMU)");
		break;
	}
	return buf;
}

void pmc_hint(const char *dev, int err)
{
	char buf[256];

	if (*pmc_hint_text(buf, sizeof(buf), dev, err))
		fprintf(stderr, "%s: %s\n", program_invocation_short_name, buf);
}

void pmc_err(int eval, const char *dev, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(e));
	pmc_hint(dev, e);
	exit(eval);
}

void pmc_version_opt(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("%s (pmcompat) %s\n", program_invocation_short_name, pmc_version);
		exit(0);
	}
}
