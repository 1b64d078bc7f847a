/* SPDX-License-Identifier: GPL-2.0 */
/* What pmc_bench.c and pmc_bench_cpus.c share. */
#ifndef PMC_BENCH_H
#define PMC_BENCH_H

#define EV_INSTR	0x00c0
#define EV_CYCLES	0x003c
#define EV_BRANCH	0x00c4

/* The most CPUs online in a run (run-lane --bench: -smp 16). */
#define MAX_CPUS	16

/* pmc_bench_cpus.c: setups and teardowns, and the measured calls (0 or -errno). */
int cpc_bind_setup(void);
int cpc_bind_unbind(void);
void cpc_cpus_teardown(void);
int perf_open_close_cpu0(void);
int cpustat_setup(void);
int cpustat_interval(void);
int perf_cpus2_setup(void);
int perf_cpustat_interval(void);
void perf_cpus2_teardown(void);
int pf_each_logall_setup(void);
int pf_all_logall_setup(void);
int pf_mux_change(void);
void pf_logall_teardown(void);
int perf_reopen_all(void);

#endif /* PMC_BENCH_H */
