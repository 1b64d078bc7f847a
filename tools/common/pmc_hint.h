/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pmc_hint: the one line every pmcompat tool adds after the original
 * system's own error message, saying what to do about it, and --version.
 */
#ifndef PMC_HINT_H
#define PMC_HINT_H

#include <stddef.h>

/*
 * pmc_hint_text() - the advice for @err when opening or using the device
 * @dev ("/dev/cpc"; NULL: "the device") failed, in @buf, or "" when the
 * original message says it all.  Returns @buf.
 *   ENOENT, ENXIO (or ENODEV with no such node): the module is not loaded.
 *   ENODEV: no hardware PMU; the sw_* events count without one.
 *   EACCES, EPERM: the group pmcompat (and logging in again), or
 *     CAP_PERFMON for what the group does not allow.
 *   EBUSY: who holds the counters (the NMI watchdog, another perf user).
 */
const char *pmc_hint_text(char *buf, size_t len, const char *dev, int err);

/* pmc_hint() - pmc_hint_text() on stderr as "PROG: ADVICE", if any. */
void pmc_hint(const char *dev, int err);

/*
 * pmc_err() - err(3) with the hint: "PROG: FMT...: strerror(errno)", the
 * hint line, then exit(@eval).
 */
void pmc_err(int eval, const char *dev, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

/*
 * pmc_version_opt() - if argv[1] is "--version", print
 * "PROG (pmcompat) VERSION" on stdout and exit 0.
 */
void pmc_version_opt(int argc, char **argv);

/* The caller and the group pmcompat (the udev rule's group of the nodes). */
enum pmc_group_state {
	PMC_GROUP_MISSING,	/* no such group on this system */
	PMC_GROUP_IN,		/* this process is in it */
	PMC_GROUP_RELOGIN,	/* listed in it, but not in this login's groups */
	PMC_GROUP_OUT,		/* not in it */
};
enum pmc_group_state pmc_group_state(void);

/* The version of pmcompat these tools are (the file VERSION). */
extern const char pmc_version[];

#endif /* PMC_HINT_H */
