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

/* The preamble: module, nodes, the caller, perf's PMU, Secure Boot. */
void ready_preamble(void);

#endif /* PMCOMPAT_CHECK_H */
