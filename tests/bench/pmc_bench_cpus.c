// SPDX-License-Identifier: GPL-2.0
/*
 * pmc_bench rows of issue 32: CPU-bound sets made and remade (cpc_bind_cpu,
 * a cpustat interval with two sets, pfcntr PCNT6MUX changes under EACH and
 * ALL with PCNTLOGALL) beside perf opening and closing the same CPU events.
 * The table is in pmc_bench.c.
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/pfcntr.h>
#include <libcpc.h>
#include "../selftests/pmc_test_util.h"
#include "pmc_bench.h"
/*
 * Making a CPU-bound set costs work on its own CPUs only, as a perf CPU
 * event does: the rows below against perf opening and closing the same CPU
 * events, with 1, 4, 8 and 16 CPUs online.
 *
 * cpc_bind_cpu of CPU 0 (this thread's), 2 requests, and cpc_unbind; perf's
 * anchor opens the 2 events on CPU 0 and closes them.
 */
#define BIND_REQS	2
static const char *const bind_events[2][BIND_REQS] = {
	{ "PAPI_tot_ins", "PAPI_tot_cyc" }, { "PAPI_br_ins", "PAPI_tot_cyc" },
};

static cpc_t *cpu_cpc[MAX_CPUS];
static cpc_set_t *cpu_set[MAX_CPUS][2];
static cpc_buf_t *cpu_buf[MAX_CPUS];
static int cpu_cur[MAX_CPUS];		/* the set bound, or -1 */
static int bind_cpus;			/* CPUs 0..bind_cpus-1 have handles */

void cpc_cpus_teardown(void)
{
	int c;

	for (c = 0; c < bind_cpus; c++) {
		if (!cpu_cpc[c])
			continue;
		if (cpu_cur[c] >= 0 && !pin_to_cpu(c))
			cpc_unbind(cpu_cpc[c], cpu_set[c][cpu_cur[c]]);
		cpc_close(cpu_cpc[c]);
		cpu_cpc[c] = NULL;
	}
	bind_cpus = 0;
	pin_to_cpu(0);
}

/* A libcpc handle and two 2-request sets for each of the first n CPUs. */
static int cpc_cpus_setup(int n)
{
	int c, k, i;

	for (c = 0; c < n; c++) {
		cpu_cur[c] = -1;
		cpu_cpc[c] = cpc_open(CPC_VER_CURRENT);
		bind_cpus = c + 1;
		if (!cpu_cpc[c])
			goto fail;
		for (k = 0; k < 2; k++) {
			cpu_set[c][k] = cpc_set_create(cpu_cpc[c]);
			if (!cpu_set[c][k])
				goto fail;
			for (i = 0; i < BIND_REQS; i++)
				if (cpc_set_add_request(cpu_cpc[c], cpu_set[c][k], bind_events[k][i], 0,
							CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
							NULL) != i)
					goto fail;
		}
		cpu_buf[c] = cpc_buf_create(cpu_cpc[c], cpu_set[c][0]);
		if (!cpu_buf[c])
			goto fail;
	}
	return 0;
fail:
	i = -(errno ? errno : EINVAL);
	cpc_cpus_teardown();
	return i;
}

int cpc_bind_setup(void)
{
	return cpc_cpus_setup(1);
}

int cpc_bind_unbind(void)
{
	if (cpc_bind_cpu(cpu_cpc[0], 0, cpu_set[0][0], 0))
		return -errno;
	return cpc_unbind(cpu_cpc[0], cpu_set[0][0]) ? -errno : 0;
}

static const __u64 bind_codes[2][BIND_REQS] = {
	{ EV_INSTR, EV_CYCLES }, { EV_BRANCH, EV_CYCLES },
};
static int cpus_fd[MAX_CPUS][BIND_REQS];

static void perf_cpu_close(int c)
{
	int i;

	for (i = 0; i < BIND_REQS; i++) {
		if (cpus_fd[c][i] >= 0)
			close(cpus_fd[c][i]);
		cpus_fd[c][i] = -1;
	}
}

/* The 2 events of set k as CPU events of CPU c; 0 or -errno. */
static int perf_cpu_open(int c, int k)
{
	int i;

	for (i = 0; i < BIND_REQS; i++) {
		cpus_fd[c][i] = open_counter(PERF_TYPE_RAW, bind_codes[k][i], -1, c, 0, 0);
		if (cpus_fd[c][i] < 0) {
			int err = -errno;

			perf_cpu_close(c);
			return err;
		}
	}
	return 0;
}

int perf_open_close_cpu0(void)
{
	int err = perf_cpu_open(0, 0);

	perf_cpu_close(0);
	return err;
}

/*
 * A cpustat interval with two sets (cpustat -c set1 -c set2) on every
 * online CPU: on each CPU, pinned there as cpustat's per-CPU thread is, the
 * bound set is sampled and unbound and the other one bound.  perf's
 * anchor, pinned alike: the CPU's 2 events read and closed, the other
 * set's 2 opened.
 */
static int online_cpus;

int cpustat_setup(void)
{
	int c, err;

	online_cpus = count_online_cpus();
	err = cpc_cpus_setup(online_cpus);
	for (c = 0; c < online_cpus && !err; c++) {
		err = pin_to_cpu(c) ? -errno : 0;
		if (!err && cpc_bind_cpu(cpu_cpc[c], c, cpu_set[c][0], 0))
			err = -errno;
		if (!err)
			cpu_cur[c] = 0;
	}
	if (err)
		cpc_cpus_teardown();
	pin_to_cpu(0);
	return err;
}

int cpustat_interval(void)
{
	int c, k;

	for (c = 0; c < online_cpus; c++) {
		k = cpu_cur[c];
		if (pin_to_cpu(c) ||
		    cpc_set_sample(cpu_cpc[c], cpu_set[c][k], cpu_buf[c]) ||
		    cpc_unbind(cpu_cpc[c], cpu_set[c][k]))
			return -errno;
		cpu_cur[c] = -1;
		if (cpc_bind_cpu(cpu_cpc[c], c, cpu_set[c][!k], 0))
			return -errno;
		cpu_cur[c] = !k;
	}
	return pin_to_cpu(0) ? -errno : 0;
}

static int perf_cur[MAX_CPUS];

void perf_cpus2_teardown(void)
{
	int c;

	for (c = 0; c < MAX_CPUS; c++)
		perf_cpu_close(c);
	pin_to_cpu(0);
}

int perf_cpus2_setup(void)
{
	int c, err = 0;

	for (c = 0; c < MAX_CPUS; c++)
		cpus_fd[c][0] = cpus_fd[c][1] = -1;
	online_cpus = count_online_cpus();
	for (c = 0; c < online_cpus && !err; c++) {
		err = perf_cpu_open(c, 0);
		perf_cur[c] = 0;
	}
	if (err)
		perf_cpus2_teardown();
	return err;
}

int perf_cpustat_interval(void)
{
	uint64_t v;
	int c, i, err;

	for (c = 0; c < online_cpus; c++) {
		if (pin_to_cpu(c))
			return -errno;
		for (i = 0; i < BIND_REQS; i++)
			if (read(cpus_fd[c][i], &v, sizeof(v)) != sizeof(v))
				return -EIO;
		perf_cpu_close(c);
		perf_cur[c] = !perf_cur[c];
		err = perf_cpu_open(c, perf_cur[c]);
		if (err)
			return err;
	}
	return pin_to_cpu(0) ? -errno : 0;
}

/*
 * pfcntr PCNTOPENEACH and PCNTOPENALL under PCNTLOGALL: a PCNT6MUX change
 * makes the per-CPU sets again (events on every online CPU).  perf's
 * anchor: the 2 CPU events of every online CPU closed and opened again,
 * from CPU 0.
 */
static int pf_mux_k;

static int pf_fd = -1;

static int pf_ioc_long(unsigned long req, long v)
{
	return ioctl(pf_fd, req, &v) ? -errno : 0;
}

/* Counting on every CPU: PCNT6MUX, PCNTLOGALL, both counters restarted. */
static int pf_logall_setup(int mode)
{
	union pmctrs_ev6 u;
	int err;

	pf_mux_k = 0;
	pf_fd = open("/dev/pfcntr", O_RDONLY | O_CLOEXEC | mode);
	if (pf_fd < 0)
		return -errno;
	err = pf_ioc_long(PCNT6MUX, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_CYCLES);
	if (!err)
		err = ioctl(pf_fd, PCNTLOGALL) ? -errno : 0;
	if (err)
		return err;
	u.pmctrs_ev6_long = 0;
	u.pmctrs_ev6_select = 3;
	u.pmctrs_ev6_cpu = PMCTRS_ALL_CPUS;
	return ioctl(pf_fd, PCNT6RESTART, &u.pmctrs_ev6_long) ? -errno : 0;
}

void pf_logall_teardown(void)
{
	if (pf_fd >= 0)
		close(pf_fd);
	pf_fd = -1;
}

int pf_each_logall_setup(void)
{
	return pf_logall_setup(PCNTOPENEACH);
}

int pf_all_logall_setup(void)
{
	return pf_logall_setup(PCNTOPENALL);
}

int pf_mux_change(void)
{
	pf_mux_k = !pf_mux_k;
	return pf_ioc_long(PCNT6MUX, PF6_MUX0_RET_INSTRUCTIONS |
			   (pf_mux_k ? PF6_MUX1_RET_COND_BRANCHES : PF6_MUX1_CYCLES));
}

int perf_reopen_all(void)
{
	int c, err;

	for (c = 0; c < online_cpus; c++) {
		perf_cpu_close(c);
		perf_cur[c] = !perf_cur[c];
		err = perf_cpu_open(c, perf_cur[c]);
		if (err)
			return err;
	}
	return 0;
}
