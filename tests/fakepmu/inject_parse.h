/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser for the fakepmu inject file, shared by the module and the host unit
 * tests: plain C, no kernel or libc dependencies beyond errno values.
 */
#ifndef FAKEPMU_INJECT_PARSE_H
#define FAKEPMU_INJECT_PARSE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#endif

#define FAKEPMU_INJECT_MAX_LEN	256

struct fakepmu_inject {
	unsigned int cpu;
	/*
	 * umask << 8 | event select bits 7:0, plus (AMD) event select bits
	 * 11:8 (PERF_CTL bits 35:32) in bits 19:16
	 */
	unsigned int event;
	unsigned long long count;
	unsigned long long ip;
	int kernel;			/* 1: mode=kernel, 0: mode=user */
	int ctx_kernel;			/* interrupted context: ctx=, default mode */
	int tid;			/* tid=: only if this thread runs there, 0 any */
	unsigned long long caller;	/* caller=: return address on top of stack */
	unsigned int repeat;		/* repeat=: that many NMIs, default 1 */
	int async;			/* async=1: NMI from the writer's CPU */
};

/* The largest repeat=. */
#define FAKEPMU_INJECT_MAX_REPEAT	100000

/*
 * Parse "cpu=N event=0xXUUEE count=C [mode=user|kernel] [ctx=user|kernel]
 * [ip=0xADDR] [tid=T] [caller=0xADDR] [repeat=R] [async=0|1]".  mode= is what was counted; ctx= the
 * context the interrupt found (a different one models skid: a user-mode event
 * whose interrupt lands in the kernel), by default the same.  tid= makes the
 * injection conditional: it counts only if thread T is the one running on the
 * CPU (else the write fails with EAGAIN and nothing is counted).  caller=
 * puts a return address on top of the interrupted context's stack, as a call
 * into a frameless routine leaves it (kernel contexts only).  repeat= (1 to
 * FAKEPMU_INJECT_MAX_REPEAT, default 1) does the injection that many times,
 * each in its own NMI.  async=1 sends the NMI from the writing CPU, landing
 * in whatever the target CPU runs; async=0 (the default) has the target
 * raise it itself from a function call IPI.
 * Numbers are decimal or 0x-prefixed hex.  Keys may come in any order,
 * each at most once; cpu, event and count are required.  One trailing
 * newline is accepted.  Returns 0 or -EINVAL; *out is written only on
 * success.
 */
int fakepmu_parse_inject(const char *buf, size_t len, struct fakepmu_inject *out);

#endif /* FAKEPMU_INJECT_PARSE_H */
