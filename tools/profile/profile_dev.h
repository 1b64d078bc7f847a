/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What uprofile(1) and kprofile(1) share: the command line (-e, -f, -o),
 * /dev/pfcntr programmed for EV5 PC profiling, reading the buckets and
 * writing the flat profile.  Errors end the program (err(3) style).
 */
#ifndef PROFILE_DEV_H
#define PROFILE_DEV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile_fmt.h"

struct prof_opts {
	const struct prof_event *ev;	/* -e, default cycles */
	unsigned long rate;		/* -f, default: the counter's low rate */
	const char *rate_arg;		/* -f as given, checked once -e is known */
	const char *out;		/* -o, NULL: stdout */
	FILE *outf;			/* -o's file, opened by prof_opts_finish() */
	bool caller;			/* -c, -ra (kprofile) */
	unsigned long stride;		/* -stride; 0: the tool's default */
};

void prof_opts_init(struct prof_opts *o);

/*
 * Parse the command line (prof_parse_cmdline(); kernel: kprofile's) into
 * o; returns the index of the command.  Usage errors exit 2 after usage().
 */
int prof_parse_opts(struct prof_opts *o, int argc, char **argv, bool kernel,
		    void (*usage)(void));

/*
 * After getopt: check -f against the event's counter (exit 2), and create
 * -o's file now, before anything runs (exit 1).
 */
void prof_opts_finish(struct prof_opts *o, void (*usage)(void));

/* Open /dev/pfcntr (PCNTOPENALL) with PFM_COUNTERS | PFM_PROFILING. */
int prof_dev_open(void);

/*
 * Up to n such opens in fds, for profiles of several ranges: made without
 * the capabilities that would make an open hold every CPU (CAP_PERFMON,
 * CAP_SYS_ADMIN: put out of the effective set for the opens and back), so
 * that they can coexist.  Returns how many were made (at least 1; the
 * first failure ends the program).
 */
int prof_dev_open_many(int *fds, int n);

/*
 * The samples taken (the interrupts of the event's counter, PCNT5GETCNT),
 * in and outside the range; after prof_dev_read().
 */
uint64_t prof_dev_ticks(int fd, const struct prof_opts *o);

/* A command's wait status as a shell would give it: its code, 128 + signal. */
int prof_exit_code(int status);

/*
 * PCNTSETURANGE or PCNTSETKRANGE of [start, end): the smallest stride from
 * min_stride up that the device has memory for.  Returns 0 with the bytes
 * per bucket in *bucket_bytes, or -errno.
 */
int prof_dev_range(int fd, bool kernel, uint64_t start, uint64_t end,
		   unsigned long min_stride, uint64_t *bucket_bytes);

/*
 * Program the event at its rate with the EV5 contexts ctxts and start
 * counting (PCNT5CTXTS, PCNT5FREQ, PCNT5MUX, PCNT5RESTART).  0 or -errno,
 * with the request that failed in *what.
 */
int prof_dev_start(int fd, const struct prof_opts *o, long ctxts,
		   const char **what);

/*
 * Exit 1 with the message of prof_dev_start()'s failure: err is its
 * -errno, what the request, privilege what the caller lacks for EPERM.
 */
void prof_dev_start_failed(const struct prof_opts *o, int err, const char *what,
			   const char *privilege) __attribute__((noreturn));

/* Stop and read the buckets (PCNTRDISABLE, PCNTGETRSIZE, read(2)). */
uint32_t *prof_dev_read(int fd, size_t *nbuckets);

/*
 * Credit the buckets of the nb ranges b to the functions of t, with the
 * samples outside every range on a line of their own, and write the
 * profile to -o or stdout, under prof_title()'s title.
 */
void prof_report(const struct prof_opts *o, const char *what, const char *mode,
		 struct prof_symtab *t, const struct prof_buckets *b, size_t nb,
		 uint64_t outside);

#endif /* PROFILE_DEV_H */
