/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the pmcompat selftests: CPU pinning, test-PMU
 * injection, perf_event_open and module load/unload through libkmod.
 */
#ifndef PMC_TEST_UTIL_H
#define PMC_TEST_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#if defined(__x86_64__) || defined(__i386__)
#define PMC_TEST_X86 1
#include <cpuid.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <libkmod.h>

#define FAKEPMU_INJECT	"/sys/kernel/debug/fakepmu/inject"
#define FAKEPMU_STATE	"/sys/kernel/debug/fakepmu/state"
#define PMCOMPAT_KO	"/pmcompat/pmcompat.ko"
#define FAKEPMU_KO	"/pmcompat/fakepmu.ko"

static inline int have_fakepmu(void)
{
	return access(FAKEPMU_INJECT, W_OK) == 0;
}

/*
 * Why a test skips without the test PMU: on a machine with a real PMU
 * (the suite installed there: run_kselftest.sh) exact injected counts and
 * overflows cannot be had, and the reason names what would give them.
 */
#define NO_FAKEPMU	"needs the test PMU tests/fakepmu (not loaded)"

/*
 * A file installed beside the test programs (the example programs, which
 * the tests' Makefile builds into the same directory): the directory of
 * this program, /pmcompat/tests in the VMs, the installed collection's on a
 * user's machine.  Returns a static buffer.
 */
static inline const char *pmc_test_file(const char *name)
{
	static char path[PATH_MAX];
	char *slash;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0 || (size_t)n + strlen(name) + 2 > sizeof(path)) {
		snprintf(path, sizeof(path), "/pmcompat/tests/%s", name);
		return path;
	}
	path[n] = 0;
	slash = strrchr(path, '/');
	snprintf(slash + 1, sizeof(path) - (slash + 1 - path), "%s", name);
	return path;
}

static inline int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

#ifdef PMC_TEST_X86
/*
 * The general-purpose counters perf's x86 driver finds on the CPU this
 * thread runs on, read from CPUID here in user space (the test's own
 * reading, not the module's): AMD and Hygon 4, 6 with PerfCtrExtCore
 * (0x80000001 ECX bit 23), PerfMonV2's NumPerfCtrCore (0x80000022) with
 * both; others leaf 0x23's counter bitmap where enumerated, else leaf 0xA
 * EAX 15:8.  0 when leaf 0xA's version is 0: no architectural PMU, as
 * under QEMU's TCG for every model.
 */
static inline unsigned int cpuid_gp_counters_here(void)
{
	unsigned int a, b, c, d, max, ext, n = 0;
	char vendor[13];

	__cpuid(0, max, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	ext = __get_cpuid_max(0x80000000, NULL);
	if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) {
		__cpuid(0x80000001, a, b, c, d);
		if (ext < 0x80000001 || !(c & (1u << 23)))
			return 4;
		if (ext < 0x80000022)
			return 6;
		__cpuid_count(0x80000022, 0, a, b, c, d);
		return (a & 1) ? (b & 0xf) : 6;
	}
	if (max < 0xa)
		return 0;
	__cpuid(0xa, a, b, c, d);
	if (!(a & 0xff))
		return 0;
	n = (a >> 8) & 0xff;
	if (max >= 0x23) {
		unsigned int e7;

		__cpuid_count(7, 1, e7, b, c, d);
		__cpuid_count(0x23, 0, a, b, c, d);
		if ((e7 & (1u << 8)) && (a & 1)) {
			__cpuid_count(0x23, 1, a, b, c, d);
			n = __builtin_popcount(a);
		}
	}
	return n;
}

/*
 * cpc_npic() as it should be on this machine: the smallest CPUID count over
 * the online CPUs (each core type of a hybrid CPU answers for itself), 4
 * where none is known, at most 8 (a set's requests).  Leaves the thread
 * free to run anywhere.
 */
static inline unsigned int expected_npic(void)
{
	unsigned int n, min = UINT_MAX;
	long cpu, ncpu = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t all;

	CPU_ZERO(&all);
	for (cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE; cpu++) {
		CPU_SET(cpu, &all);
		if (pin_to_cpu(cpu))
			continue;	/* offline */
		n = cpuid_gp_counters_here();
		if (n && n < min)
			min = n;
	}
	sched_setaffinity(0, sizeof(all), &all);
	if (min == UINT_MAX)
		return 4;
	return min < 8 ? min : 8;
}
#endif /* PMC_TEST_X86 */

/* Write one raw command to the inject file; 0 or -errno. */
static inline int inject_raw(const char *cmd)
{
	int fd = open(FAKEPMU_INJECT, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	err = n < 0 ? -errno : (n == (ssize_t)strlen(cmd) ? 0 : -EIO);
	close(fd);
	return err;
}

static inline int inject_ip(int cpu, unsigned int event, unsigned long long count,
			    int kernel, unsigned long long ip)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "cpu=%d event=0x%x count=%llu mode=%s ip=0x%llx\n",
		 cpu, event, count, kernel ? "kernel" : "user", ip);
	return inject_raw(cmd);
}

/*
 * inject_ip() that counts only while thread tid is the one running on cpu: a
 * thread spinning on another CPU may be preempted for a moment (a kworker, an
 * RT lane's interrupt thread), and an injection then would count for
 * whatever ran instead.  Retries for up to 10 s; 0 or -errno.
 */
static inline int inject_task(int cpu, pid_t tid, unsigned int event,
			      unsigned long long count, int kernel,
			      unsigned long long ip)
{
	struct timespec pause = { 0, 1000000 };
	char cmd[192];
	int err, i;

	snprintf(cmd, sizeof(cmd),
		 "cpu=%d tid=%d event=0x%x count=%llu mode=%s ip=0x%llx\n",
		 cpu, (int)tid, event, count, kernel ? "kernel" : "user", ip);
	for (i = 0; i < 10000; i++) {
		err = inject_raw(cmd);
		if (err != -EAGAIN)
			return err;
		nanosleep(&pause, NULL);
	}
	return err;
}

static inline int inject(int cpu, unsigned int event, unsigned long long count)
{
	return inject_ip(cpu, event, count, 0, 0);
}

static inline int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				      int cpu, int group, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group, flags);
}

static inline int open_counter(__u32 type, __u64 config, pid_t pid, int cpu,
			       int exclude_user, int exclude_kernel)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.exclude_user = exclude_user;
	attr.exclude_kernel = exclude_kernel;
	return sys_perf_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * A pinned CPU-wide counting event on cpu: another perf user whose events
 * are pinned, as the NMI watchdog's are (they take counters before flexible
 * ones and go to perf's error state when none is free).
 */
static inline int open_pinned_cpu_event(__u32 type, __u64 config, int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.pinned = 1;
	return sys_perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Read a plain counting event; returns the value or ~0 on a short read. */
static inline unsigned long long read_count(int fd)
{
	unsigned long long v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return ~0ULL;
	return v;
}

static inline int count_online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* nr_cpu_ids: the highest possible CPU + 1, or -1. */
static inline int count_possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	int a = 0, b = -1, n;

	if (!f)
		return -1;
	n = fscanf(f, "%d-%d", &a, &b);
	fclose(f);
	return n == 2 ? b + 1 : n == 1 ? a + 1 : -1;
}

/* Insert a module from a path, or remove one by name; 0 or -errno. */
static inline int kmod_insert(const char *path, const char *params)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);
	struct kmod_module *mod;
	int err;

	if (!ctx)
		return -ENOMEM;
	err = kmod_module_new_from_path(ctx, path, &mod);
	if (!err) {
		err = kmod_module_insert_module(mod, 0, params);
		kmod_module_unref(mod);
	}
	kmod_unref(ctx);
	return err;
}

/*
 * Load pmcompat again: the VMs' copy (PMCOMPAT_KO), or where it is
 * installed (modprobe's lookup: make install, DKMS) on a user's machine.
 */
static inline int pmcompat_load(void)
{
	struct kmod_ctx *ctx;
	struct kmod_module *mod;
	int err;

	if (access(PMCOMPAT_KO, R_OK) == 0)
		return kmod_insert(PMCOMPAT_KO, NULL);
	ctx = kmod_new(NULL, NULL);
	if (!ctx)
		return -ENOMEM;
	err = kmod_module_new_from_name(ctx, "pmcompat", &mod);
	if (!err) {
		err = kmod_module_probe_insert_module(mod, KMOD_PROBE_FAIL_ON_LOADED,
						      NULL, NULL, NULL, NULL);
		kmod_module_unref(mod);
	}
	kmod_unref(ctx);
	return err;
}

/* Load the test PMU again with the lane's parameters (e.g. hybrid=1). */
static inline int fakepmu_reload(void)
{
	return kmod_insert(FAKEPMU_KO, getenv("PMCOMPAT_FAKEPMU_PARAMS"));
}

static inline int kmod_remove(const char *name)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);
	struct kmod_module *mod;
	int err;

	if (!ctx)
		return -ENOMEM;
	err = kmod_module_new_from_name(ctx, name, &mod);
	if (!err) {
		err = kmod_module_remove_module(mod, KMOD_REMOVE_NOWAIT);
		kmod_module_unref(mod);
	}
	kmod_unref(ctx);
	return err;
}

static inline int module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

/* Write a string to a sysfs/procfs file; 0 or -errno. */
static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : (n == (ssize_t)strlen(s) ? 0 : -EIO);
	close(fd);
	return err;
}

/* Read a file holding one integer; 0 or -errno. */
static inline int read_file_int(const char *path, int *val)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", val) == 1;
	fclose(f);
	return ok ? 0 : -EIO;
}

#define PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"

/* Set perf_event_paranoid; the first change saves the level (*saved: INT_MIN) to restore. */
static inline int paranoid_set(int *saved, int level)
{
	char buf[16];
	int err;

	if (*saved == INT_MIN) {
		err = read_file_int(PARANOID_PATH, saved);
		if (err)
			return err;
	}
	snprintf(buf, sizeof(buf), "%d\n", level);
	return write_file(PARANOID_PATH, buf);
}

/*
 * The 32-bit system call entry (int $0x80), usable from a 64-bit process
 * when the kernel has IA32 emulation: ioctl goes through compat_ioctl.
 */
#define IA32_NR_GETPID	20
#define IA32_NR_IOCTL	54

#if defined(__x86_64__)
static inline long ia32_syscall3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a" (ret)
		     : "a" (nr), "b" (a), "c" (b), "d" (c)
		     : "memory", "cc", "r8", "r9", "r10", "r11");
	return ret;
}
#endif

/* A module's reference count (/sys/module/NAME/refcnt), or -1. */
static inline int module_refcnt(const char *name)
{
	char path[128];
	int v;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", name);
	return read_file_int(path, &v) ? -1 : v;
}

/* CPU hotplug through sysfs; 0 or -errno. */
static inline int set_cpu_online(int cpu, int online)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return write_file(path, online ? "1\n" : "0\n");
}

/* 1 online, 0 offline, -errno when the CPU cannot be hot-plugged. */
static inline int cpu_online_state(int cpu)
{
	char path[64];
	int v, err;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	err = read_file_int(path, &v);
	return err ? err : !!v;
}

/*
 * /dev/pctr helpers, for the tests that include <machine/pctr.h> before
 * this header.
 */
#ifdef _MACHINE_PCTR_H_
/* PCIOCS0 + n on fd; 0 or -errno. */
static inline int pctr_set_fd(int fd, unsigned int n, unsigned int fn)
{
	return ioctl(fd, PCIOCS0 + n, &fn) ? -errno : 0;
}

/* PCIOCS0 + n on a descriptor of its own; 0 or -errno. */
static inline int pctr_set(unsigned int n, unsigned int fn)
{
	int fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = pctr_set_fd(fd, n, fn);
	close(fd);
	return err;
}

/* Stop and clear all PCTR_NUM counters; 0 or the first -errno. */
static inline int pctr_clear_all(void)
{
	unsigned int n;
	int err, first = 0;

	for (n = 0; n < PCTR_NUM; n++) {
		err = pctr_set(n, 0);
		if (err && !first)
			first = err;
	}
	return first;
}

/* PCIOCRD on CPU cpu (the caller stays pinned there); 0 or -errno. */
static inline int pctr_read_on(int fd, int cpu, struct pctrst *st)
{
	if (pin_to_cpu(cpu))
		return -errno;
	return ioctl(fd, PCIOCRD, st) ? -errno : 0;
}
#endif /* _MACHINE_PCTR_H_ */

/*
 * The test PMU's general-purpose counters per CPU (4 on the Intel model, 6 on
 * the AMD one), or -1.  Besides them, the Intel model has fixed counters for
 * 0x00c0, 0x003c and 0x0300; 0x00c4 (branches) fits only a general-purpose
 * counter, so that many pinned 0x00c4 events fill a CPU.
 */
#define EV_GP_ONLY	0x00c4

#define FAKEPMU_PARAMS	"/sys/module/fakepmu/parameters/"

/*
 * A parameter of the test PMU as a number (a bool reads Y or N: 1 or 0), or
 * -1 when the test PMU is not loaded or has no such parameter.
 */
static inline long fakepmu_param(const char *name)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), FAKEPMU_PARAMS "%s", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	if (buf[0] == 'Y')
		return 1;
	if (buf[0] == 'N')
		return 0;
	return strtol(buf, NULL, 0);
}

/* Give a writable parameter of the test PMU the value s. */
static inline int fakepmu_param_write(const char *name, const char *s)
{
	char path[128];

	snprintf(path, sizeof(path), FAKEPMU_PARAMS "%s", name);
	return write_file(path, s);
}

static inline int fakepmu_gp_counters(void)
{
	return fakepmu_param("ncounters");
}

/* Skip a test (kselftest harness) without the test PMU, or without n CPUs. */
#define NEED_FAKEPMU() do {						\
	if (!have_fakepmu())						\
		SKIP(return, NO_FAKEPMU); \
} while (0)

/*
 * Whether perf has a CPU PMU at all (a hardware one, or the test PMU): a
 * counting cycles event of this thread opens.  Without one (a VM without a
 * virtual PMU, the test PMU not loaded) the x86 devices cannot program a
 * counter (ENODEV) and /dev/perfmon does not open (ENXIO).
 */
static inline int have_cpu_pmu(void)
{
	int fd = open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, -1, 0, 1);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

#define NEED_CPU_PMU() do {							\
	if (!have_cpu_pmu())						\
		SKIP(return, "no PMU at all: perf has no cycles event (no hardware PMU, no test PMU)"); \
} while (0)

#define NEED_CPUS(n) do {						\
	int need_ = (n);						\
									\
	if (count_online_cpus() < need_)				\
		SKIP(return, "needs %d online CPUs", need_);		\
} while (0)

/* Lines of the test PMU's state that contain a and, if not NULL, b. */
static inline int fakepmu_state_count(const char *a, const char *b)
{
	char line[256];
	int n = 0;
	FILE *f = fopen(FAKEPMU_STATE, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, a) && (!b || strstr(line, b)))
			n++;
	fclose(f);
	return n;
}

/*
 * /dev/perfmon helpers, for the tests that include <machine/perfmon.h>
 * before this header.  Each returns 0 or -errno.
 */
#ifdef _MACHINE_PERFMON_H_
/* PMIOSETUP of counter n with control word val. */
static inline int perfmon_setup_fd(int fd, int n, unsigned int val)
{
	struct pmc pmc;

	pmc.pmc_num = n;
	pmc.pmc_val = val;
	return ioctl(fd, PMIOSETUP, &pmc) ? -errno : 0;
}

/* A request whose argument is the counter number alone (START, STOP, RESET). */
static inline int perfmon_ctl_fd(int fd, unsigned long cmd, int n)
{
	return ioctl(fd, cmd, &n) ? -errno : 0;
}

/* PMIOGET of counter n: its control word in *val. */
static inline int perfmon_get_fd(int fd, int n, unsigned int *val)
{
	struct pmc pmc;

	memset(&pmc, 0, sizeof(pmc));
	pmc.pmc_num = n;
	if (ioctl(fd, PMIOGET, &pmc))
		return -errno;
	*val = pmc.pmc_val;
	return 0;
}

/* PMIOREAD of counter n: its value in *val. */
static inline int perfmon_read_fd(int fd, int n, long long *val)
{
	struct pmc_data d;

	memset(&d, 0, sizeof(d));
	d.pmcd_num = n;
	if (ioctl(fd, PMIOREAD, &d))
		return -errno;
	*val = d.pmcd_value;
	return 0;
}
#endif /* _MACHINE_PERFMON_H_ */

/*
 * libcpc helpers, for the tests that include <libcpc.h> before this header.
 */
#ifdef _LIBCPC_H
/* errno of a libcpc call that returns -1 on failure; 0 when it succeeded. */
static inline int cpc_err_of(int ret)
{
	return ret == -1 ? errno : 0;
}

/* What the recording error handler was last given. */
struct cpc_errlog {
	int calls;
	int subcode;
	char fn[64];
	char msg[256];
};

static struct cpc_errlog cpc_errlog;

static inline void cpc_errlog_reset(void)
{
	memset(&cpc_errlog, 0, sizeof(cpc_errlog));
}

/*
 * A cpc_errhndlr_t that records its call.  It clobbers errno, which the
 * library must preserve around the call.
 */
static inline void cpc_errlog_handler(const char *fn, int subcode,
				      const char *fmt, va_list ap)
{
	cpc_errlog.calls++;
	cpc_errlog.subcode = subcode;
	snprintf(cpc_errlog.fn, sizeof(cpc_errlog.fn), "%s", fn);
	vsnprintf(cpc_errlog.msg, sizeof(cpc_errlog.msg), fmt, ap);
	errno = ERANGE;
}

/*
 * Add requests for the events of a NULL-terminated list, all with flags
 * and preset 0; returns how many were added (their indices are 0, 1, ...).
 */
static inline int cpc_add_events(cpc_t *cpc, cpc_set_t *set, unsigned int flags,
				 const char *const *events)
{
	int n;

	for (n = 0; events[n]; n++)
		if (cpc_set_add_request(cpc, set, events[n], 0, flags, 0, NULL) != n)
			break;
	return n;
}
#endif /* _LIBCPC_H */

/* ---- running a tool and capturing its output -------------------------- */

#include <grp.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <linux/capability.h>

#define TOOL_NOBODY	65534
/* Stands for the pmcompat group of the udev rule: tests chgrp the nodes to it. */
#define PMC_TEST_GID	4242

enum tool_as {
	TOOL_AS_ROOT, TOOL_AS_NOBODY, TOOL_AS_ROOT_WITHOUT_CAPS,
	TOOL_AS_NOBODY_IN_GROUP,	/* uid 65534 with PMC_TEST_GID */
};

struct tool_run {
	int status;		/* exit code, or -1 when killed */
	char out[8192];
	char err[1024];
};

/* Read a pipe to EOF; keep what fits in buf (NUL-terminated). */
static inline void tool_slurp(int fd, char *buf, size_t len)
{
	char skip[512];
	size_t pos = 0;
	ssize_t n;

	for (;;) {
		if (pos + 1 < len)
			n = read(fd, buf + pos, len - 1 - pos);
		else
			n = read(fd, skip, sizeof(skip));
		if (n <= 0)
			break;
		if (pos + 1 < len)
			pos += n;
	}
	buf[pos] = '\0';
	close(fd);
}

/* In a child about to run a tool: take who's credentials, or _exit(125/126). */
static inline void tool_set_creds(enum tool_as who)
{
	if (who == TOOL_AS_NOBODY &&
	    (setgroups(0, NULL) || setgid(TOOL_NOBODY) || setuid(TOOL_NOBODY)))
		_exit(126);
	if (who == TOOL_AS_NOBODY_IN_GROUP &&
	    (setgroups(1, &(gid_t){ PMC_TEST_GID }) || setgid(TOOL_NOBODY) ||
	     setuid(TOOL_NOBODY)))
		_exit(126);
	/* Lose CAP_PERFMON and CAP_SYS_ADMIN for good, across execve. */
	if (who == TOOL_AS_ROOT_WITHOUT_CAPS &&
	    (prctl(PR_CAPBSET_DROP, CAP_PERFMON, 0, 0, 0) ||
	     prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0)))
		_exit(125);
}

/*
 * Run path with argv[0] = name and args (NULL-terminated) on CPU cpu, as
 * who, with environment entry env ("NAME=value") when not NULL.
 */
static inline int run_tool(struct tool_run *r, const char *path, const char *name,
			   const char *const *args, int cpu, enum tool_as who,
			   const char *env)
{
	char *argv[16];
	int out[2], err[2], status, i;
	pid_t pid;

	argv[0] = (char *)name;
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	if (pin_to_cpu(cpu) || pipe(out) || pipe(err))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		tool_set_creds(who);
		if (env)
			putenv((char *)env);
		execv(path, argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	tool_slurp(out[0], r->out, sizeof(r->out));
	tool_slurp(err[0], r->err, sizeof(r->err));
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return 0;
}

/* 1 if /proc/cpuinfo lists the tsc flag, 0 if not, -1 if it cannot be read. */
static inline int cpu_has_tsc(void)
{
	char line[4096];
	int tsc = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "flags", 5)) {
			line[strcspn(line, "\n")] = ' ';
			tsc = !!strstr(line, " tsc ");
			break;
		}
	}
	fclose(f);
	return tsc;
}

/*
 * Emulate the udev rule for one node: group PMC_TEST_GID, mode mode.  The
 * previous group and mode go to *saved (gid << 16 | mode) for
 * node_restore(); 0 or -errno.
 */
#include <sys/stat.h>

static inline int node_to_test_group(const char *path, mode_t mode, long *saved)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	*saved = (long)st.st_gid << 16 | (st.st_mode & 07777);
	if (chown(path, 0, PMC_TEST_GID) || chmod(path, mode))
		return -errno;
	return 0;
}

static inline int node_restore(const char *path, long saved)
{
	if (saved < 0)
		return 0;
	if (chown(path, 0, saved >> 16) || chmod(path, saved & 07777))
		return -errno;
	return 0;
}

/* ---- child processes ------------------------------------------------------ */

#include <sys/mman.h>

/* Memory shared with forked children, filled with 0x5a; NULL on failure. */
static inline void *shared_zone(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0x5a, size);
	return p;
}

/* Wait for child pid (< 0: fork failed); its exit status, or -1. */
static inline int child_status(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* ---- polling ---------------------------------------------------------------- */

#include <stdbool.h>
#include <time.h>

/* Wait (2 s at most) until cond() is true; returns it. */
static inline bool wait_until(bool (*cond)(void *arg), void *arg)
{
	struct timespec ts = { 0, 1000000 };
	int ms;

	for (ms = 0; ms < 2000; ms++) {
		if (cond(arg))
			return true;
		nanosleep(&ts, NULL);
	}
	return cond(arg);
}

/*
 * Raw /dev/cpc ioctls, for the tests that include <sys/cpc_impl.h> (or
 * <libcpc.h>) before this header.  Overflow requests signal 40 (libcpc's
 * SIGEMT) with si_code 2 (EMT_CPCOVF).
 */
#ifdef _SYS_CPC_IMPL_H
#define CPC_DEV_OVF_SIG		40
#define CPC_DEV_OVF_CODE	2

static inline int cpc_dev_open(void)
{
	return open(PMC_CPC_PATH, O_RDWR | O_CLOEXEC);
}

static inline void cpc_req(struct pmc_cpc_request *r, __u32 type, __u64 config,
			   __u32 flags, __u64 preset, __u32 index)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->config = config;
	r->flags = flags;
	r->preset = preset;
	r->index = index;
}

/*
 * PMC_CPC_BIND of n requests; pid, tid and cpu come from *out when it is
 * not NULL, which receives the structure as the kernel left it.  0 or -errno.
 */
static inline int cpc_dev_bind(int fd, __u32 scope, __u32 flags,
			       struct pmc_cpc_request *reqs, __u32 n,
			       struct pmc_cpc_bind *out)
{
	struct pmc_cpc_bind b;

	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.scope = scope;
	b.flags = flags;
	b.nreqs = n;
	b.reqs = (uintptr_t)reqs;
	b.signo = CPC_DEV_OVF_SIG;
	b.si_code = CPC_DEV_OVF_CODE;
	if (out) {
		b.pid = out->pid;
		b.tid = out->tid;
		b.cpu = out->cpu;
	}
	if (ioctl(fd, PMC_CPC_BIND, &b) < 0) {
		if (out)
			*out = b;
		return -errno;
	}
	if (out)
		*out = b;
	return 0;
}

/* PMC_CPC_SAMPLE of binding id into n values; 0 or -errno. */
static inline int cpc_dev_sample(int fd, __u32 id, __u64 *vals, __u32 n)
{
	struct pmc_cpc_sample s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.id = id;
	s.nvals = n;
	s.vals = (uintptr_t)vals;
	return ioctl(fd, PMC_CPC_SAMPLE, &s) < 0 ? -errno : 0;
}

/* A request whose argument is a binding id (RELE, RESTART, ...); 0 or -errno. */
static inline int cpc_dev_id_op(int fd, unsigned long cmd, __u32 id)
{
	return ioctl(fd, cmd, &id) < 0 ? -errno : 0;
}
#endif /* _SYS_CPC_IMPL_H */

#ifdef _LIBCPC_H
/* Sample set into buf and copy its n values to v; 0 or errno. */
static inline int sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf, uint64_t *v, int n)
{
	int i;

	if (cpc_set_sample(cpc, set, buf))
		return errno;
	for (i = 0; i < n; i++)
		if (cpc_buf_get(cpc, buf, i, &v[i]))
			return errno;
	return 0;
}

/* Inject on the CPU the caller runs on (pinned). */
static inline int inject_here(unsigned int event, unsigned long long count)
{
	return inject(sched_getcpu(), event, count);
}
#endif /* _LIBCPC_H */

#ifdef _PFCNTR_H_
/* /dev/pfcntr: read-only is enough, as pfm(7)'s programs open it.  -errno. */
#define PFCNTR_PATH	"/dev/pfcntr"

static inline int pf_open(int mode)
{
	int fd = open(PFCNTR_PATH, O_RDONLY | O_CLOEXEC | mode);

	return fd < 0 ? -errno : fd;
}

static inline int pf_req(int fd, unsigned long req)
{
	return ioctl(fd, req) ? -errno : 0;
}

static inline int pf_long(int fd, unsigned long req, long v)
{
	return ioctl(fd, req, &v) ? -errno : 0;
}
#endif /* _PFCNTR_H_ */

#endif /* PMC_TEST_UTIL_H */
