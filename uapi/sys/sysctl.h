/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * <sys/sysctl.h> - the BSD sysctl(3) MIB interface for pmcompat.
 *
 * glibc dropped <sys/sysctl.h> and sysctl() in 2.32.  This header gives BSD
 * programs the OpenBSD top-level and CTL_HW numbers they use to identify the
 * machine; libpmcompat-bsd (pkg-config pmcompat-bsd) implements sysctl() for
 * the nodes OpenBSD's pctr(1) and its kind read: hw.machine, hw.model,
 * hw.ncpu, hw.byteorder, hw.pagesize, and machdep.cpuvendor, cpuid,
 * cpufeature, tscfreq and invarianttsc, answered from CPUID (there is no
 * sysctl(3) page of pmcompat; the README's "Building legacy programs").
 *
 * Do not include this together with <linux/sysctl.h>: the Linux numbers of
 * the same names differ.
 */
#ifndef _SYS_SYSCTL_H_
#define _SYS_SYSCTL_H_

#include <stddef.h>

#define CTL_MAXNAME	12	/* maximum number of name components */

/* Top-level names. */
#define CTL_UNSPEC	0	/* unused */
#define CTL_KERN	1	/* kernel: "high kernel" limits, tunables */
#define CTL_VM		2	/* virtual memory */
#define CTL_FS		3	/* file system */
#define CTL_NET		4	/* network */
#define CTL_DEBUG	5	/* debugging */
#define CTL_HW		6	/* generic CPU and hardware */
#define CTL_MACHDEP	7	/* machine dependent, see <machine/cpu.h> */

/* Second level names under CTL_HW. */
#define HW_MACHINE	1	/* string: machine class ("amd64") */
#define HW_MODEL	2	/* string: CPU model */
#define HW_NCPU		3	/* int: number of CPUs (online) */
#define HW_BYTEORDER	4	/* int: 1234 (little) or 4321 (big) */
#define HW_PAGESIZE	7	/* int: software page size */

#ifndef __KERNEL__
#ifdef __cplusplus
extern "C" {
#endif

int sysctl(const int *name, unsigned int namelen, void *oldp, size_t *oldlenp,
	   void *newp, size_t newlen);

#ifdef __cplusplus
}
#endif
#endif /* !__KERNEL__ */

#endif /* !_SYS_SYSCTL_H_ */
