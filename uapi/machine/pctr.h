/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * <machine/pctr.h> - OpenBSD pctr(4) on Linux (pmcompat /dev/pctr).
 *
 * Source-compatible with OpenBSD's amd64 header: same names, types, layout
 * and macro text.  The ioctl numbers are Linux-encoded (_IOR/_IOW from
 * <linux/ioctl.h>), so they differ from OpenBSD's binary values; programs
 * only need to be recompiled.
 */
#ifndef _MACHINE_PCTR_H_
#define _MACHINE_PCTR_H_

#include <linux/types.h>
#include <linux/ioctl.h>

typedef __u64 pctrval;

/*
 * The 1998 i386 form (pctr.h 1.9): two counters and the idle counter, 40
 * bytes.  A program written for it defines PCTR_I386_1998 before including
 * this header (cc -DPCTR_I386_1998), natively or with -m32; the layout is
 * the same in both.  The driver answers either form's PCIOCRD.
 */
struct pctrst_1998 {
	unsigned int pctr_fn[2];	/* event-select word of each counter */
	pctrval pctr_tsc;		/* time-stamp counter */
	pctrval pctr_hwc[2];		/* counter values (full 64 bits) */
	pctrval pctr_idl;		/* idle time of the CPU, in TSC cycles */
};

#define PCIOCRD_1998	_IOR('c', 1, struct pctrst_1998)

#ifdef PCTR_I386_1998
#define PCTR_NUM	2		/* programmable counters per CPU */
#define pctrst		pctrst_1998
#else
#define PCTR_NUM	4		/* programmable counters per CPU */

struct pctrst {
	unsigned int pctr_fn[PCTR_NUM];	/* event-select word of each counter */
	pctrval pctr_tsc;		/* time-stamp counter */
	pctrval pctr_hwc[PCTR_NUM];	/* counter values (full 64 bits) */
};
#endif

/* Bits of the event-select ("function") word, as in PerfEvtSel. */
#define PCTR_U		0x00010000	/* count in user mode */
#define PCTR_K		0x00020000	/* count in kernel mode */
#define PCTR_E		0x00040000	/* edge detect */
#define PCTR_EN		0x00400000	/* enable */
#define PCTR_I		0x00800000	/* invert counter mask */

#define PCTR_UM_M	0x0800		/* unit mask: Modified */
#define PCTR_UM_E	0x0400		/* unit mask: Exclusive */
#define PCTR_UM_S	0x0200		/* unit mask: Shared */
#define PCTR_UM_I	0x0100		/* unit mask: Invalid */
#define PCTR_UM_MESI	(PCTR_UM_M | PCTR_UM_E | PCTR_UM_S | PCTR_UM_I)
#define PCTR_UM_A	0x2000		/* any initiator */

#define PCTR_UM_SHIFT	8		/* unit mask byte */
#define PCTR_CM_SHIFT	24		/* counter mask (threshold) byte */

/* The 1998 names of the same bits (pctr.h 1.9), in either form. */
#define P6CTR_U		PCTR_U
#define P6CTR_K		PCTR_K
#define P6CTR_E		PCTR_E
#define P6CTR_EN	PCTR_EN
#define P6CTR_I		PCTR_I
#define P6CTR_UM_M	PCTR_UM_M
#define P6CTR_UM_E	PCTR_UM_E
#define P6CTR_UM_S	PCTR_UM_S
#define P6CTR_UM_I	PCTR_UM_I
#define P6CTR_UM_MESI	PCTR_UM_MESI
#define P6CTR_UM_A	PCTR_UM_A
#define P6CTR_CM_SHIFT	PCTR_CM_SHIFT

/*
 * Pentium (P5) control words, as OpenBSD's i386 header has them: a 6-bit
 * event code with these bits, below 0x200.  See pctr(4) for the codes
 * that count on today's processors.
 */
#define P5CTR_K		0x40		/* count in kernel mode */
#define P5CTR_U		0x80		/* count in user mode */
#define P5CTR_C		0x100		/* count cycles, not events */

#define PCIOCRD		_IOR('c', 1, struct pctrst)
#define PCIOCS0		_IOW('c', 8, unsigned int)
#define PCIOCS1		_IOW('c', 9, unsigned int)
#define PCIOCS2		_IOW('c', 10, unsigned int)
#define PCIOCS3		_IOW('c', 11, unsigned int)

#define _PATH_PCTR	"/dev/pctr"

#ifndef __KERNEL__
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

/*
 * Read the time-stamp counter.  OpenBSD's i386 header and its amd64 one up
 * to 1.6 define rdtsc(); the current amd64 header (1.7) does not, and a
 * program written for it may define its own rdtsc(): it defines
 * PCTR_NO_RDTSC before including this header (or defines rdtsc as a macro
 * first), and this one is left out.
 */
#if !defined(PCTR_NO_RDTSC) && !defined(rdtsc)
#define rdtsc()		__pctr_rdtsc()
#endif

static __inline__ pctrval __pctr_rdtsc(void)
{
	unsigned int lo, hi;

	__asm__ __volatile__("rdtsc" : "=a" (lo), "=d" (hi));
	return ((pctrval)hi << 32) | lo;
}

/*
 * Read counter pmc of the CPU the caller runs on.  Linux gives user space
 * no raw RDPMC access to these counters (and perf's hardware counter index
 * is not the pctr counter number), so this reads through PCIOCRD.  It never
 * returns a wrong value: on any failure it reports why and aborts.
 */
#define rdpmc(pmc)	__pctr_rdpmc(pmc)

static __inline__ pctrval __pctr_rdpmc(unsigned int pmc)
{
	static int fd = -1;
	struct pctrst st;

	if (pmc >= PCTR_NUM) {
		fprintf(stderr, "rdpmc: no counter %u (0..%d)\n", pmc, PCTR_NUM - 1);
		abort();
	}
	if (fd < 0)
#ifdef O_CLOEXEC
		fd = open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
#else
		fd = open(_PATH_PCTR, O_RDONLY);	/* strict C89/C99 */
#endif
	if (fd < 0 || ioctl(fd, PCIOCRD, &st) < 0) {
		perror("rdpmc: " _PATH_PCTR);
		abort();
	}
	return st.pctr_hwc[pmc];
}
#endif /* !__KERNEL__ */

#endif /* !_MACHINE_PCTR_H_ */
