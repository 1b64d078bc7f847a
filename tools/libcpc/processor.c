// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * processor_bind(2) on sched_setaffinity(2): a binding is an affinity of
 * exactly one CPU; PBIND_NONE gives a thread every CPU back.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libcpc_impl.h"
#include "sys/processor.h"

/* The binding a thread has now: its CPU, or PBIND_NONE. */
static int pb_query(pid_t tid, processorid_t *cpu)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(tid, sizeof(set), &set))
		return -1;
	*cpu = PBIND_NONE;
	if (CPU_COUNT(&set) == 1)
		for (i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &set))
				*cpu = i;
	return 0;
}

static int pb_one(pid_t tid, processorid_t cpu, processorid_t *obind)
{
	processorid_t old;
	cpu_set_t set;
	int i;

	if (pb_query(tid, &old))
		return -1;
	if (cpu != PBIND_QUERY) {
		CPU_ZERO(&set);
		if (cpu == PBIND_NONE)
			for (i = 0; i < CPU_SETSIZE; i++)
				CPU_SET(i, &set);
		else
			CPU_SET(cpu, &set);
		if (sched_setaffinity(tid, sizeof(set), &set))
			return -1;
	}
	if (obind)
		*obind = old;
	return 0;
}

CPC_EXPORT int processor_bind(idtype_t idtype, id_t id, processorid_t cpu,
			      processorid_t *obind)
{
	char path[64];
	struct dirent *d;
	int ret = 0, n = 0;
	DIR *dir;

	if (cpu != PBIND_NONE && cpu != PBIND_QUERY &&
	    (cpu < 0 || cpu >= CPU_SETSIZE || sysconf(_SC_NPROCESSORS_CONF) <= cpu)) {
		errno = EINVAL;
		return -1;
	}
	if (idtype == P_LWPID)
		return pb_one(id == (id_t)P_MYID ? (pid_t)syscall(SYS_gettid) : (pid_t)id,
			      cpu, obind);
	if (idtype != P_PID) {
		errno = EINVAL;
		return -1;
	}
	/* A process: every thread it has (the binding reported is its first's). */
	snprintf(path, sizeof(path), "/proc/%d/task",
		 id == (id_t)P_MYID ? (int)getpid() : (int)id);
	dir = opendir(path);
	if (!dir) {
		errno = ESRCH;
		return -1;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (pb_one(atoi(d->d_name), cpu, n ? NULL : obind) && errno != ESRCH) {
			ret = -1;
			break;
		}
		n++;
	}
	closedir(dir);
	if (!ret && !n) {
		errno = ESRCH;
		ret = -1;
	}
	return ret;
}
