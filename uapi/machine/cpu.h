/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * <machine/cpu.h> - machine-dependent sysctl names (CTL_MACHDEP) for pmcompat.
 *
 * The numbers are those of OpenBSD/amd64.  libpmcompat-bsd answers
 * CPU_CPUVENDOR, CPU_CPUID, CPU_CPUFEATURE, CPU_TSCFREQ and CPU_INVARIANTTSC;
 * the others are defined so that programs naming them compile, and sysctl()
 * fails on them with EOPNOTSUPP.
 *
 * FreeBSD programs (e.g. the perfmon example) include <machine/cpu.h> for
 * kernel-side declarations they do not use in user space; for them this
 * header only has to compile, and it deliberately pulls in nothing else.
 */
#ifndef _MACHINE_CPU_H_
#define _MACHINE_CPU_H_

/* Second level names under CTL_MACHDEP. */
#define CPU_CONSDEV		1	/* dev_t: console terminal device */
#define CPU_BIOS		2	/* node: BIOS variables */
#define CPU_BLK2CHR		3	/* convert blk maj into chr one */
#define CPU_CHR2BLK		4	/* convert chr maj into blk one */
#define CPU_ALLOWAPERTURE	5	/* allow mmap of /dev/xf86 */
#define CPU_CPUVENDOR		6	/* string: CPUID vendor, e.g. "GenuineIntel" */
#define CPU_CPUID		7	/* int: CPUID.1:EAX (family/model/stepping) */
#define CPU_CPUFEATURE		8	/* int: CPUID.1:EDX feature bits */
#define CPU_TSCFREQ		16	/* u_int64_t: TSC frequency in Hz */
#define CPU_INVARIANTTSC	17	/* int: 1 if the TSC is invariant */
#define CPU_MAXID		20	/* number of valid machdep ids */

#endif /* !_MACHINE_CPU_H_ */
