/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A Solaris-style libcpc program, after Example 1 of cpc_bind_curlwp(3CPC):
 * it binds a set of two requests to the calling LWP and, for 20 iterations
 * of a computation, prints how many of each event the iteration took.  The
 * events are $EVENT0 and $EVENT1 (defaults: instructions and cycles, as
 * generic events, so that the program runs on any processor).
 *
 * Build against the installed headers:
 *	cc solaris-cpc-example1.c $(pkg-config --cflags --libs libcpc)
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <libcpc.h>
#include <errno.h>

static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) fprintf(stderr, "example1: ");
	(void) vfprintf(stderr, fmt, ap);
	(void) fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* The computation to be measured. */
static volatile uint64_t sink;

static void
compute(int iter)
{
	uint64_t i, x = (uint64_t)iter;

	for (i = 0; i < 100000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

int
main(int argc, char *argv[])
{
	int iter;
	char *event0 = NULL, *event1 = NULL;
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *diff, *after, *before;
	int ind0, ind1;
	uint64_t val0, val1;

	(void) argc;
	(void) argv;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		error("perf counters unavailable: %s", strerror(errno));

	if ((event0 = getenv("EVENT0")) == NULL)
		event0 = "PAPI_tot_ins";
	if ((event1 = getenv("EVENT1")) == NULL)
		event1 = "PAPI_tot_cyc";

	if ((set = cpc_set_create(cpc)) == NULL)
		error("could not create set: %s", strerror(errno));

	if ((ind0 = cpc_set_add_request(cpc, set, event0, 0, CPC_COUNT_USER, 0,
	    NULL)) == -1)
		error("could not add first request: %s", strerror(errno));

	if ((ind1 = cpc_set_add_request(cpc, set, event1, 0, CPC_COUNT_USER, 0,
	    NULL)) == -1)
		error("could not add second request: %s", strerror(errno));

	if ((diff = cpc_buf_create(cpc, set)) == NULL)
		error("could not create buffer: %s", strerror(errno));
	if ((after = cpc_buf_create(cpc, set)) == NULL)
		error("could not create buffer: %s", strerror(errno));
	if ((before = cpc_buf_create(cpc, set)) == NULL)
		error("could not create buffer: %s", strerror(errno));

	if (cpc_bind_curlwp(cpc, set, 0) == -1)
		error("cannot bind lwp%d: %s", _lwp_self(), strerror(errno));

	for (iter = 1; iter <= 20; iter++) {

		if (cpc_set_sample(cpc, set, before) == -1)
			break;

		compute(iter);

		if (cpc_set_sample(cpc, set, after) == -1)
			break;

		cpc_buf_sub(cpc, diff, after, before);
		cpc_buf_get(cpc, diff, ind0, &val0);
		cpc_buf_get(cpc, diff, ind1, &val1);

		(void) printf("%3d: %" PRId64 " %" PRId64 "\n", iter,
		    val0, val1);
	}

	if (iter != 21)
		error("cannot sample set: %s", strerror(errno));

	cpc_close(cpc);

	return (0);
}
