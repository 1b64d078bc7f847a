/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uprofile(1) and kprofile(1) logic without I/O: the EV5 event names of
 * pfm(7) and their interrupt rates, the registers that program them, and
 * the flat profile made of a bucket array.
 */
#ifndef PROFILE_FMT_H
#define PROFILE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile_syms.h"

/* An EV5 event of pfm(7): the counter that counts it and its PCNT5MUX bits. */
struct prof_event {
	const char *name;	/* -e: the header name without PF5_MUXn_, C_; lower case */
	const char *hdr;	/* the <sys/pfcntr.h> name */
	int counter;		/* 0, 1 or 2 */
	uint64_t mux;
	const char *tru64;	/* the statistic's name in Tru64's pfm(7) */
};

extern const struct prof_event prof_events[];
extern const size_t prof_nevents;

/*
 * The event named name (-e, or a statistic operand): the short name or
 * Tru64's statistic name (EV5, and the EV6 names retinst, retitbmiss and
 * retdtb1miss), in any case, or the header name; NULL if there is none.
 */
const struct prof_event *prof_event_find(const char *name);

/* The default rate of a counter (65536, 65536, 16384) and the high one (256). */
unsigned long prof_rate_default(int counter);
#define PROF_RATE_HIGH	256UL

/*
 * The rate of -f (a number) for the event's counter: 0, or -1 with a
 * message in err (a rate the counter does not have).
 */
int prof_parse_rate(const struct prof_event *ev, const char *arg,
		    unsigned long *rate, char *err, size_t errlen);

/* The PCNT5MUX, PCNT5FREQ and select values of an event at a rate. */
uint64_t prof_mux_value(const struct prof_event *ev);
uint64_t prof_freq_value(const struct prof_event *ev, unsigned long rate);
unsigned int prof_select_value(const struct prof_event *ev);

/* One line of the flat profile. */
struct prof_entry {
	const char *name;	/* points into the symbol table */
	uint64_t addr;		/* the function's address, for the order of equal names */
	uint64_t samples;
};

#define PROF_UNKNOWN	"(unknown)"
#define PROF_OUTSIDE	"(outside the profiled text)"

/* The buckets of one profiled range. */
struct prof_buckets {
	const uint32_t *counts;
	size_t n;
	uint64_t start, bucket_bytes;
};

/*
 * Credit the buckets (nbuckets counts, bucket i covering
 * [start + i * bucket_bytes, start + (i + 1) * bucket_bytes)) to the
 * functions of t: a bucket goes to the function that contains its first
 * byte, else to the first function that begins inside it, else to
 * PROF_UNKNOWN.  The entries come sorted: most samples first, equal counts
 * by name.  Returns the number of entries (functions with samples) in
 * *out (to be freed), or -1 when out of memory; *total gets the sum.
 */
long prof_aggregate(struct prof_symtab *t, const uint32_t *buckets,
		    size_t nbuckets, uint64_t start, uint64_t bucket_bytes,
		    struct prof_entry **out, uint64_t *total);

/*
 * The same over the nb ranges b, where a bucket that no function covers
 * goes to its object's "(unknown in OBJECT)" (prof_symtab_add_module()),
 * else to PROF_UNKNOWN; outside is the number of samples taken outside
 * every range, a line PROF_OUTSIDE of its own, and *total counts them.
 */
long prof_aggregate_ranges(struct prof_symtab *t, const struct prof_buckets *b,
			   size_t nb, uint64_t outside, struct prof_entry **out,
			   uint64_t *total);

/*
 * The title line: "WHAT: N samples, one every RATE events of EVENT (MODE)".
 */
void prof_title(char *buf, size_t len, const char *what, uint64_t total,
		const struct prof_event *ev, unsigned long rate, const char *mode);

/*
 * Print the flat profile: the title line, then the table: %time,
 * cumulative samples, self samples, name.
 */
void prof_print(FILE *f, const char *title, const struct prof_entry *e,
		size_t n, uint64_t total);

/* A command line of uprofile(1) or kprofile(1). */
struct prof_cmdline {
	const struct prof_event *ev;	/* -e or a statistic operand; NULL: cycles */
	const char *rate_arg;		/* -f */
	const char *out;		/* -o */
	bool caller;			/* -c, -ra (kprofile) */
	unsigned long stride;		/* -stride (instructions a bucket); 0: not given */
	int cmd;			/* argv index of the command (argc: none) */
};

/*
 * Parse argv: this tool's options (-e event, -f frequency, -o file, and
 * for kprofile (kernel) -c), Tru64's options that mean something here
 * (-stride n; -all, the only mode; -v and -quiet, which change nothing;
 * kprofile's -ra, as -c) and Tru64's statistic operands before the
 * command (one, by any name prof_event_find() takes).  Tru64's other
 * options are refused by name.  0, or -1 on a usage error, with a message
 * in err when there is more to say than the usage line.
 */
int prof_parse_cmdline(struct prof_cmdline *c, int argc, char *const argv[],
		       bool kernel, char *err, size_t errlen);

#endif /* PROFILE_FMT_H */
