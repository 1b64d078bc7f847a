// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmcompat-check's preamble: is this machine ready?  The module (loaded, its
 * version; else whether it is installed for the running kernel), the device
 * nodes with their owners and modes, the caller (the group pmcompat,
 * CAP_PERFMON), whether perf sees a hardware PMU, and the Secure Boot and
 * lockdown state.  Everything comes from files any user may read under
 * /sys, /dev and /lib/modules (user space may; the module itself opens no
 * files).  See pmcompat-check(1).
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>

#include "pmc_hint.h"
#include "pmcompat-check.h"

#define EFI_SECUREBOOT	"/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define LOCKDOWN	"/sys/kernel/security/lockdown"
#define PMU_DIR		"/sys/bus/event_source/devices"

/* The first line of a file, without its newline; -1 if it cannot be read. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The module: loaded and its version, or where it is (not) installed. */
static void ready_module(const char *release)
{
	static const char *const where[] = { "extra", "updates/dkms", "updates" };
	static const char *const ext[] = { "", ".xz", ".zst", ".gz" };
	char ver[64], path[512];
	struct stat st;
	unsigned int i, j;

	if (!stat("/sys/module/pmcompat", &st)) {
		if (read_line("/sys/module/pmcompat/version", ver, sizeof(ver)))
			snprintf(ver, sizeof(ver), "(version unknown)");
		printf("  %-12s pmcompat %s loaded; these tools are %s\n", "module:", ver, pmc_version);
		return;
	}
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		for (j = 0; j < sizeof(ext) / sizeof(ext[0]); j++) {
			snprintf(path, sizeof(path), "/lib/modules/%s/%s/pmcompat.ko%s", release,
				 where[i], ext[j]);
			if (!stat(path, &st)) {
				printf("  %-12s not loaded (installed: %s): sudo modprobe pmcompat\n",
				       "module:", path);
				return;
			}
		}
	}
	printf("  %-12s not built for the running kernel %s:\n"
	       "  %-12s install linux-headers-%s, then make install (or sudo dkms autoinstall)\n",
	       "module:", release, "", release);
}

/* The nodes, their owners and modes. */
static void ready_nodes(void)
{
	static const char *const nodes[] = {
#ifdef PMC_CHECK_X86
		"/dev/pctr", "/dev/perfmon",
#endif
		"/dev/cpc", "/dev/pfcntr",
	};
	unsigned int i;

	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		struct passwd *pw;
		struct group *gr;
		struct stat st;
		char u[32], g[32];

		if (stat(nodes[i], &st) < 0) {
			printf("  %-12s %s: absent\n", i ? "" : "nodes:", nodes[i]);
			continue;
		}
		pw = getpwuid(st.st_uid);
		gr = getgrgid(st.st_gid);
		if (pw)
			snprintf(u, sizeof(u), "%s", pw->pw_name);
		else
			snprintf(u, sizeof(u), "%u", (unsigned int)st.st_uid);
		if (gr)
			snprintf(g, sizeof(g), "%s", gr->gr_name);
		else
			snprintf(g, sizeof(g), "%u", (unsigned int)st.st_gid);
		printf("  %-12s %-13s %s:%s %04o\n", i ? "" : "nodes:", nodes[i], u, g,
		       (unsigned int)(st.st_mode & 07777));
	}
}

/* Does this process have CAP_PERFMON (or CAP_SYS_ADMIN) in its effective set? */
static int has_perfmon(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return 0;
#ifdef CAP_PERFMON
	if (d[CAP_PERFMON / 32].effective & (1U << (CAP_PERFMON % 32)))
		return 1;
#endif
	return !!(d[CAP_SYS_ADMIN / 32].effective & (1U << (CAP_SYS_ADMIN % 32)));
}

static void ready_caller(void)
{
	struct passwd *pw = getpwuid(getuid());
	const char *name = pw ? pw->pw_name : "?";
	const char *grp = "";

	if (!getuid() && !geteuid()) {
		printf("  %-12s root: may do everything\n", "you:");
		return;
	}
	switch (pmc_group_state()) {
	case PMC_GROUP_MISSING:
		grp = "no group pmcompat on this system (install the udev rule and group)";
		break;
	case PMC_GROUP_IN:
		grp = "in group pmcompat";
		break;
	case PMC_GROUP_RELOGIN:
		grp = "added to group pmcompat, but not in this login: log out and in again";
		break;
	case PMC_GROUP_OUT:
		grp = "not in group pmcompat: sudo usermod -aG pmcompat $USER, then log in again";
		break;
	}
	printf("  %-12s %s (uid %u): %s\n", "you:", name, (unsigned int)getuid(), grp);
	printf("  %-12s %s\n", "",
	       has_perfmon() ? "CAP_PERFMON: yes (whole CPUs, kernel mode)" :
	       "CAP_PERFMON: no (counting whole CPUs and kernel profiles need it)");
}

/* A PMU name perf's hardware context uses for the CPUs. */
static int cpu_pmu(const char *n)
{
	return !strcmp(n, "cpu") || !strncmp(n, "cpu_", 4) || !strncmp(n, "armv8_", 6) ||
	       !strcmp(n, "arm_pmu") || !strncmp(n, "arm_cortex", 10);
}

static void ready_pmu(void)
{
	DIR *d = opendir(PMU_DIR);
	struct dirent *de;
	struct stat st;
	char list[160] = "";
	size_t len = 0;

	while (d && (de = readdir(d))) {
		if (!cpu_pmu(de->d_name) || len + strlen(de->d_name) + 3 >= sizeof(list))
			continue;
		len += snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", de->d_name);
	}
	if (d)
		closedir(d);
	if (!len)
		printf("  %-12s none: only software events count here (the sw_* events of cpustat and libcpc)\n",
		       "perf PMU:");
	else if (!stat("/sys/module/fakepmu", &st))
		printf("  %-12s %s: the test PMU (tests/fakepmu), not hardware\n", "perf PMU:", list);
	else
		printf("  %-12s %s (hardware)\n", "perf PMU:", list);
}

static void ready_boot(void)
{
	unsigned char v[5];
	char lock[128], *b, *e;
	const char *sb = "off (no EFI)";
	FILE *f;

	if (!access("/sys/firmware/efi", F_OK)) {
		sb = "unknown (EFI)";
		f = fopen(EFI_SECUREBOOT, "re");
		if (f) {
			if (fread(v, 1, sizeof(v), f) == sizeof(v))
				sb = v[4] == 1 ? "on: the module must be signed with an enrolled key (mokutil)" :
				     "off";
			fclose(f);
		}
	}
	printf("  %-12s %s\n", "secure boot:", sb);
	if (read_line(LOCKDOWN, lock, sizeof(lock))) {
		printf("  %-12s unknown (%s not readable)\n", "lockdown:", LOCKDOWN);
		return;
	}
	b = strchr(lock, '[');
	e = b ? strchr(b, ']') : NULL;
	if (b && e) {
		*e = '\0';
		b++;
	} else {
		b = lock;
	}
	printf("  %-12s %s\n", "lockdown:", b);
}

void ready_preamble(void)
{
	struct utsname u;

	uname(&u);
	printf("pmcompat-check %s: Linux %s %s\n", pmc_version, u.release, u.machine);
	ready_module(u.release);
	ready_nodes();
	ready_caller();
	ready_pmu();
	ready_boot();
}
