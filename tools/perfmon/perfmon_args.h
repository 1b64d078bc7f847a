/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perfmon(8) command-line handling without I/O: number parsing with the
 * messages of FreeBSD's example program, the options and the event
 * operand.  perfmon.c does the err(3), device and stdio part; the host
 * unit tests link this file alone.
 */
#ifndef PERFMON_ARGS_H
#define PERFMON_ARGS_H

#include <stddef.h>

#include <machine/perfmon.h>

/* "+": stop at the first operand, as FreeBSD getopt does. */
#define PERFMON_GETOPT		"+s:l:uoeiU:m:c:"
#define PERFMON_DEF_LOOPS	50
#define PERFMON_ERRLEN		128	/* room for any message of this module */

/* Everything the command line can say. */
struct perfmon_args {
	struct pmc pmc;		/* setup of counter 0: event, -U, flags, -m */
	int loops;		/* -l */
	int sleeptime;		/* -s, seconds */
	const char *cmd;	/* -c, or NULL */
};

/* Results of perfmon_apply_opt() and perfmon_apply_operands(). */
#define PERFMON_OPT_OK		0
#define PERFMON_OPT_USAGE	1	/* print the usage text, exit 1 */
#define PERFMON_OPT_ERR		2	/* errx(1) with the message */

/*
 * Parse s as a C integer (strtol base 0: decimal, 0x hex, 0 octal) in
 * min..max.  Returns 0 with the value in *val, or -1 with the message in
 * err: "S: must be between MIN and MAX" or "S: parameter must be an
 * integer".
 */
int perfmon_getnum(const char *s, int min, int max, int *val,
		   char *err, size_t errlen);

/* Defaults: counter 0, nothing counted, 50 loops, no sleep, no command. */
void perfmon_args_init(struct perfmon_args *a);

/*
 * Apply getopt result ch with argument arg (NULL for flags).  Anything
 * that is not an option of PERFMON_GETOPT gives PERFMON_OPT_USAGE.
 */
int perfmon_apply_opt(struct perfmon_args *a, int ch, const char *arg,
		      char *err, size_t errlen);

/*
 * The operands left after the options: exactly one, the event number
 * 0..255.  Other counts give PERFMON_OPT_USAGE.
 */
int perfmon_apply_operands(struct perfmon_args *a, int argc,
			   char *const *argv, char *err, size_t errlen);

#endif /* PERFMON_ARGS_H */
