/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared code of cpustat(8) and cputrack(1): output formats, the -h
 * capability listing and the sets of the -c specifications.
 */
#ifndef CPCTOOLS_H
#define CPCTOOLS_H

#include <stdint.h>
#include <stdio.h>

#include <libcpc.h>

#define CPCT_MAX_REQS	64

/* A -c specification turned into a set, with its counters' numbers. */
struct cpct_set {
	const char *spec;
	cpc_set_t *set;
	int nreqs;
	int pic[CPCT_MAX_REQS];		/* picnum of request i */
};

/* The column header of a request on counter pic: "     pic0 " (10 chars). */
void cpct_pic_header(char hdr[11], int pic);

/* The title of cpustat: time, cpu, event, [tsc], one header per request. */
void cpustat_title(FILE *f, int tsc, const struct cpct_set *s);

/* One row of cpustat: time, cpu (or CPU count), label, [tick], values, [# spec]. */
void cpustat_row(FILE *f, double secs, int cpu, const char *label, int tsc,
		 uint64_t tick, const uint64_t *vals, int n, const char *spec);

/* The title of cputrack: time, [pid], lwp, event, [tsc], headers. */
void cputrack_title(FILE *f, int pidcol, int tsc, const struct cpct_set *s);

/*
 * One row of cputrack: time, [pid], lwp, label, [tick], values, then
 * " # spec" (several sets) and the note ("# 'name'", "# pid"), if any.
 */
void cputrack_row(FILE *f, double secs, int pidcol, int pid, int lwp,
		  const char *label, int tsc, uint64_t tick,
		  const uint64_t *vals, int n, const char *spec,
		  const char *note);

/* The -h listing: interface, spec syntax, events, attributes, reference. */
void cpct_caps(FILE *f, cpc_t *cpc);

/* The spec syntax line printed by -h. */
extern const char cpct_spec_syntax[];

/*
 * Solaris' -h lists: "word " each, a new line before one that would pass
 * column 76 (newline, or "\n" and margin spaces), col counted as caps.c
 * counts it.
 */
struct cpct_caps_col {
	FILE *f;
	int col;
	int margin;
};

void cpct_caps_start(struct cpct_caps_col *c, FILE *f, int col, int margin);
void cpct_caps_word(struct cpct_caps_col *c, const char *word, const char *newline);

/*
 * Turn spec into s (set and counter numbers): 0, or -1 after cpc_strtoset()
 * reported the error.
 */
int cpct_set_make(cpc_t *cpc, const char *spec, struct cpct_set *s);

/* The program name the error handler prefixes. */
extern const char *cpct_progname;
/* -D: the error handler names the libcpc function (Solaris' errfn). */
extern int cpct_debug;
void cpct_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap);

#endif /* CPCTOOLS_H */
