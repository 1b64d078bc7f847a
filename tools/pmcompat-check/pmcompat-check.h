/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pmcompat-check: what its files share.  pmcompat-check.c counts the
 * workload through each front-end and perf and prints the table; ready.c
 * prints the preamble (is this machine ready?).
 */
#ifndef PMCOMPAT_CHECK_H
#define PMCOMPAT_CHECK_H

#if defined(__x86_64__) || defined(__i386__)
#define PMC_CHECK_X86 1
#endif

#include <stdint.h>

/* pmcompat-check.c: the CPU the check runs on, and the PMU perf has there. */
extern int cpu;
const char *pmu_of(int c, uint64_t *type);

/* counters.c: who else holds counters. */
extern int nmi_watchdog;	/* 1 on, 0 off, -1 unknown */
extern int fake_watchdog;	/* the test PMU's watchdog=1 */
void read_watchdog(void);
int free_counters(void);
void describe_counters(void);
const char *contention(const char *what);
int busy(int err);

/* ready.c: the preamble: module, nodes, the caller, perf's PMU, Secure Boot. */
void ready_preamble(void);

#endif /* PMCOMPAT_CHECK_H */
