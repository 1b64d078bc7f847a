// SPDX-License-Identifier: BSD-2-Clause
/*
 * perfmon(8) command-line handling; see perfmon_args.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmon_args.h"

int perfmon_getnum(const char *s, int min, int max, int *val,
		   char *err, size_t errlen)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 0);
	if (*s == '\0' || *end != '\0' || errno != 0) {
		snprintf(err, errlen, "%s: parameter must be an integer", s);
		return -1;
	}
	if (n < min || n > max) {
		snprintf(err, errlen, "%s: must be between %d and %d",
			 s, min, max);
		return -1;
	}
	*val = (int)n;
	return 0;
}

void perfmon_args_init(struct perfmon_args *a)
{
	memset(a, 0, sizeof(*a));
	a->pmc.pmc_num = 0;
	a->loops = PERFMON_DEF_LOOPS;
	a->sleeptime = 0;
	a->cmd = NULL;
}

int perfmon_apply_opt(struct perfmon_args *a, int ch, const char *arg,
		      char *err, size_t errlen)
{
	int n;

	switch (ch) {
	case 'u':
		a->pmc.pmc_flags |= PMCF_USR;
		return PERFMON_OPT_OK;
	case 'o':
		a->pmc.pmc_flags |= PMCF_OS;
		return PERFMON_OPT_OK;
	case 'e':
		a->pmc.pmc_flags |= PMCF_E;
		return PERFMON_OPT_OK;
	case 'i':
		a->pmc.pmc_flags |= PMCF_INV;
		return PERFMON_OPT_OK;
	case 'c':
		if (arg == NULL)
			return PERFMON_OPT_USAGE;
		a->cmd = arg;
		return PERFMON_OPT_OK;
	case 'l':
	case 's':
	case 'U':
	case 'm':
		break;
	default:
		return PERFMON_OPT_USAGE;
	}

	if (arg == NULL)
		return PERFMON_OPT_USAGE;

	/*
	 * The unit and counter masks are bytes, yet FreeBSD's program takes
	 * 0..256 for them; 256 is accepted here too and stored as 0.
	 */
	switch (ch) {
	case 'l':
		if (perfmon_getnum(arg, 1, INT_MAX - 1, &n, err, errlen))
			return PERFMON_OPT_ERR;
		a->loops = n;
		break;
	case 's':
		if (perfmon_getnum(arg, 0, INT_MAX - 1, &n, err, errlen))
			return PERFMON_OPT_ERR;
		a->sleeptime = n;
		break;
	case 'U':
		if (perfmon_getnum(arg, 0, 256, &n, err, errlen))
			return PERFMON_OPT_ERR;
		a->pmc.pmc_unit = (unsigned char)n;
		break;
	default: /* 'm' */
		if (perfmon_getnum(arg, 0, 256, &n, err, errlen))
			return PERFMON_OPT_ERR;
		a->pmc.pmc_mask = (unsigned char)n;
		break;
	}
	return PERFMON_OPT_OK;
}

int perfmon_apply_operands(struct perfmon_args *a, int argc,
			   char *const *argv, char *err, size_t errlen)
{
	int n;

	if (argc != 1)
		return PERFMON_OPT_USAGE;
	if (perfmon_getnum(argv[0], 0, 255, &n, err, errlen))
		return PERFMON_OPT_ERR;
	a->pmc.pmc_event = (unsigned char)n;
	return PERFMON_OPT_OK;
}
