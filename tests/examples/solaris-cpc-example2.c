/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A Solaris-style libcpc program, after Example 2 of cpc_bind_curlwp(3CPC):
 * a request preset 1000 events short of overflow, with CPC_OVF_NOTIFY_EMT,
 * makes the kernel send SIGEMT every 1000 events; the handler prints where
 * the LWP was, samples the counter, and restarts it from the preset.  The
 * event is $EVENT (default: instructions); the computation runs $ITERS
 * times (default 20).  At the end the program prints the number of
 * overflows it handled.
 *
 * Build against the installed headers:
 *	cc solaris-cpc-example2.c $(pkg-config --cflags --libs libcpc)
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <libcpc.h>
#include <errno.h>

#define	PRESET (UINT64_MAX - 999ull)

cpc_t *cpc;
cpc_set_t *set;
cpc_buf_t *buf;
int index;
volatile sig_atomic_t overflows;

static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) fprintf(stderr, "example2: ");
	(void) vfprintf(stderr, fmt, ap);
	(void) fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	ucontext_t *uap = arg;
	uint64_t val;

	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		psignal(sig, "example");
		psiginfo(sip, "example");
		return;
	}

	overflows++;
	(void) printf("lwp%d - si_addr %p ucontext: %%pc %p %%sp %p\n",
	    _lwp_self(), (void *)sip->si_addr,
	    (void *)uap->uc_mcontext.gregs[PC],
	    (void *)uap->uc_mcontext.gregs[SP]);

	if (cpc_set_sample(cpc, set, buf) != 0)
		error("cannot sample: %s", strerror(errno));

	cpc_buf_get(cpc, buf, index, &val);

	(void) printf("0x%" PRIx64 "\n", val);
	(void) fflush(stdout);

	/*
	 * Update the request's preset and restart the counters.
	 */
	if (cpc_request_preset(cpc, index, PRESET) != 0)
		error("cannot set preset for request %d: %s", index,
		    strerror(errno));
	if (cpc_set_restart(cpc, set) != 0)
		error("cannot restart lwp%d: %s", _lwp_self(), strerror(errno));
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
	struct sigaction act;
	char *event, *s;
	int iter, iters = 20;

	(void) argc;
	(void) argv;

	if ((event = getenv("EVENT")) == NULL)
		event = "PAPI_tot_ins";
	if ((s = getenv("ITERS")) != NULL)
		iters = atoi(s);

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		error("perf counters unavailable: %s", strerror(errno));

	if ((cpc_caps(cpc) & CPC_CAP_OVERFLOW_INTERRUPT) == 0)
		error("overflow interrupts are not available");

	if ((set = cpc_set_create(cpc)) == NULL)
		error("could not create set: %s", strerror(errno));

	act.sa_sigaction = emt_handler;
	bzero(&act.sa_mask, sizeof (act.sa_mask));
	act.sa_flags = SA_RESTART|SA_SIGINFO;
	if (sigaction(SIGEMT, &act, NULL) == -1)
		error("sigaction: %s", strerror(errno));

	if ((index = cpc_set_add_request(cpc, set, event, PRESET,
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL)) != 0)
		error("cannot add request to set: %s", strerror(errno));

	if ((buf = cpc_buf_create(cpc, set)) == NULL)
		error("cannot create buffer: %s", strerror(errno));

	if (cpc_bind_curlwp(cpc, set, 0) == -1)
		error("cannot bind lwp%d: %s", _lwp_self(), strerror(errno));

	for (iter = 1; iter <= iters; iter++) {
		compute(iter);
	}

	cpc_unbind(cpc, set);	/* done */

	(void) printf("overflows: %d\n", (int)overflows);
	cpc_close(cpc);

	return (0);
}
