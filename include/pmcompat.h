/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmcompat front-ends: each registers its device on top of the counter core.
 */
#ifndef PMCOMPAT_H
#define PMCOMPAT_H

int pctr_init(void);
void pctr_exit(void);
int perfmon_init(void);
void perfmon_exit(void);
int cpc_init(void);
void cpc_exit(void);
int __init pfcntr_init(void);
void pfcntr_exit(void);

#endif /* PMCOMPAT_H */
