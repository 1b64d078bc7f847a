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
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <libkmod.h>

#define FAKEPMU_INJECT	"/sys/kernel/debug/fakepmu/inject"
#define FAKEPMU_STATE	"/sys/kernel/debug/fakepmu/state"
#define PMCOMPAT_KO	"/pmcompat/pmcompat.ko"
#define FAKEPMU_KO	"/pmcompat/fakepmu.ko"

static inline int have_fakepmu(void)
{
	return access(FAKEPMU_INJECT, W_OK) == 0;
}

static inline int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

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

#endif /* PMC_TEST_UTIL_H */
