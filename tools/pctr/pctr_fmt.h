/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pctr(1) logic without I/O: CPU classification, option handling, event
 * tables, event-select word building and decoding, and the text of the
 * read and list modes.  pctr.c does the sysctl/ioctl/stdio part; the host
 * unit tests link this file alone.
 */
#ifndef PCTR_FMT_H
#define PCTR_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPU classes, numbered as in OpenBSD's pctr(1). */
#define CPU_UNDEF	0
#define CPU_P5		1
#define CPU_P6		2
#define CPU_CORE	3
#define CPU_AMD		4

/* Event flags. */
#define CFL_MESI	0x01	/* takes the M/E/S/I unit-mask bits */
#define CFL_SA		0x02	/* takes the "any agent" unit-mask bit */
#define CFL_C0		0x04	/* counter 0 only */
#define CFL_C1		0x08	/* counter 1 only */
#define CFL_ED		0x10	/* set edge detect */
#define CFL_UM		0x20	/* needs an explicit unit mask (-m) */
#define CFL_DFL		0x40	/* without -m, ctrfn.dfl applies */
#define CFL_PFM		0x80	/* from libpfm4's table: -m, even -m 0, is a mask */

#define PCTR_MAX_FUNCT	0xff
#define PCTR_MAX_UMASK	0xff
#define PCTR_MAX_THOLD	0xff

/*
 * List mode, as OpenBSD's pctr(1): a description shorter than
 * PCTR_WRAP_WHOLE characters is printed whole; a longer one is broken at
 * the last space before character PCTR_WRAP_BREAK, each line indented by
 * PCTR_WRAP_INDENT columns (so lines reach 6 + 71 = 77 columns).
 */
#define PCTR_WRAP_WHOLE	70
#define PCTR_WRAP_BREAK	72
#define PCTR_WRAP_INDENT 6

#define PCTR_ERRLEN	128	/* room for any message of this module */

struct ctrfn {
	uint32_t fn;
	int flags;
	const char *name;
	const char *desc;	/* may be NULL */
};

/* Everything the command line can say. */
struct pctr_opts {
	bool list;		/* -l */
	int ctr;		/* -s ctr, or -1 for read mode */
	unsigned int func;	/* -f, hex */
	unsigned int umask;	/* -m, hex */
	bool umask_set;		/* -m was given */
	unsigned int thold;	/* -t */
	bool set_opts;		/* any option that only makes sense with -s */
	bool any;		/* -A */
	bool cycles;		/* -c */
	bool edge;		/* -e */
	bool inv;		/* -i */
	bool kernel;		/* -k */
	bool user;		/* -u */
	bool mesi_m;		/* -M */
	bool mesi_e;		/* -E */
	bool mesi_s;		/* -S */
	bool mesi_i;		/* -I */
};

/* Results of pctr_apply_opt() and pctr_check_opts(). */
#define PCTR_OPT_OK	0
#define PCTR_OPT_USAGE	1	/* print the usage text, exit 1 */
#define PCTR_OPT_ERR	2	/* errx(1) with the message */

/* "+": stop at the first operand, as BSD getopt does. */
#define PCTR_GETOPT	"+AcEef:IiklMm:Ss:t:u"

/*
 * Class of the CPU from hw.machine and machdep.cpuvendor/cpuid.  Returns
 * -1 for a machine other than "amd64" (the only one implemented).
 */
int pctr_cpu_type(const char *machine, const char *vendor, uint32_t cpu_id);

/* Number of counters read and programmable (4 on both vendors here). */
int pctr_num_counters(int cpu);

/* The option part of the usage line: "usage: %s %s". */
const char *pctr_usage_args(int cpu);

void pctr_opts_init(struct pctr_opts *o);

/*
 * Apply getopt result ch with argument arg (may be NULL).  On PCTR_OPT_ERR
 * err holds the message.
 */
int pctr_apply_opt(int cpu, struct pctr_opts *o, int ch, const char *arg,
		   char *err, size_t errlen);

/* Checks across options once getopt is done: PCTR_OPT_OK or _USAGE. */
int pctr_check_opts(const struct pctr_opts *o);

/*
 * The events of the processor: libpfm4's table of the model when libpfm4
 * knows it (pfm_initialize() detects it from CPUID), else the built-in
 * table of the vendor.  Built once per process, for one cpu class.
 */
const struct ctrfn *pctr_events(int cpu, size_t *n);

/*
 * pctr_pfm.c: libpfm4's table of the model for cpu (CPU_CORE or CPU_AMD),
 * with the flags of the built-in table's entries of the same codes, or
 * NULL when libpfm4 has no table pctr can use.  *n is its length; the
 * table lives as long as the process.
 */
const struct ctrfn *pctr_pfm_table(int cpu, const struct ctrfn *hand,
				   size_t nhand, size_t *n);

/*
 * For a CFL_DFL entry of that table: the selector bits libpfm4's default
 * unit mask sets (the unit mask byte, and PCTR_E, PCTR_I and a threshold
 * where it has them); 0 for any other entry.
 */
uint32_t pctr_pfm_dfl(const struct ctrfn *fn);

/* Whether read mode prints the TSC line: as OpenBSD, not for CPU_UNDEF. */
int pctr_prints_tsc(int cpu, int tsc_avail);
const struct ctrfn *pctr_find_event(int cpu, unsigned int fn);

/*
 * Event-select word for o->ctr from the options.  Returns 0, or -1 with
 * the message in err.
 */
int pctr_build_sel(int cpu, const struct pctr_opts *o, uint32_t *sel,
		   char *err, size_t errlen);

/*
 * Whether sel is a Pentium (P5) word, which pctr(4) takes on any
 * processor: below 0x200 with P5CTR_U or P5CTR_K.
 */
bool pctr_is_p5(uint32_t sel);

/*
 * The bracketed decoding of an event-select word in read mode; a Pentium
 * word as OpenBSD decodes one ("-uk 16 instructions executed").
 */
void pctr_decode_sel(int cpu, uint32_t sel, char *buf, size_t len);

/* " ctr%d = %16llu  [%s]\n" */
int pctr_fmt_counter(char *buf, size_t len, int cpu, int ctr, uint32_t sel,
		     uint64_t val);

/* "  tsc = %16llu\n" */
int pctr_fmt_tsc(char *buf, size_t len, uint64_t tsc);

/*
 * One list-mode entry: "%02x  %s" with flag notes, then the description
 * wrapped as OpenBSD does (PCTR_WRAP_*).  Returns the length the full
 * text needs (like snprintf).
 */
size_t pctr_fmt_event(char *buf, size_t len, const struct ctrfn *fn);

#endif /* PCTR_FMT_H */
