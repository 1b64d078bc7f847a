// SPDX-License-Identifier: GPL-2.0
/*
 * The libcpc usage pattern of uperf's src/hwcounter.c, written anew: its
 * uperf.h defines hrtime_t as a macro (autoconf finds no hrtime_t on Linux)
 * before <libcpc.h> is included, and the program then uses either the CPCv2
 * calls (-DUSE_CPCv2) or the CPCv1 ones (-DUSE_CPCv1) to count two events of
 * the calling LWP around a loop.  Built with "cc prog.c -lcpc" by
 * tests/unit/solaris_build_test.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#ifndef HAVE_HRTIME_T
#define hrtime_t uint64_t
#endif
#define MY_THREAD_ID()	_lwp_self()

#include <libcpc.h>

struct counters {
	hrtime_t started;
#ifdef USE_CPCv1
	cpc_event_t event, start, end;
#else
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *start, *end, *diff;
#endif
};

static int counters_init(struct counters *c, const char *ev1, const char *ev2)
{
#ifdef USE_CPCv1
	char spec[256];
	int cpuver;

	if (cpc_version(CPC_VER_CURRENT) != CPC_VER_CURRENT)
		return -1;
	snprintf(spec, sizeof(spec), "pic0=%s,pic1=%s", ev1, ev2);
	cpuver = cpc_getcpuver();
	if (cpuver == -1 || cpc_strtoevent(cpuver, spec, &c->event) != 0)
		return -1;
	if (cpc_access() == -1 || cpc_bind_event(&c->event, 0) == -1) {
		fprintf(stderr, "cannot bind lwp%d: %s\n", (int)MY_THREAD_ID(),
			strerror(errno));
		return -1;
	}
#else
	c->cpc = cpc_open(CPC_VER_CURRENT);
	if (!c->cpc)
		return -1;
	c->set = cpc_set_create(c->cpc);
	if (cpc_set_add_request(c->cpc, c->set, ev1, 0,
				CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL) == -1 ||
	    cpc_set_add_request(c->cpc, c->set, ev2, 0,
				CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL) == -1 ||
	    cpc_bind_curlwp(c->cpc, c->set, CPC_BIND_LWP_INHERIT) != 0)
		return -1;
	c->start = cpc_buf_create(c->cpc, c->set);
	c->end = cpc_buf_create(c->cpc, c->set);
	c->diff = cpc_buf_create(c->cpc, c->set);
	if (!c->start || !c->end || !c->diff)
		return -1;
#endif
	c->started = gethrtime();
	return 0;
}

static int counters_snap(struct counters *c, int end)
{
#ifdef USE_CPCv1
	return cpc_take_sample(end ? &c->end : &c->start);
#else
	return cpc_set_sample(c->cpc, c->set, end ? c->end : c->start);
#endif
}

static uint64_t counters_get(struct counters *c, int i)
{
	uint64_t v;

#ifdef USE_CPCv1
	v = c->end.ce_pic[i] - c->start.ce_pic[i];
#else
	cpc_buf_sub(c->cpc, c->diff, c->end, c->start);
	cpc_buf_get(c->cpc, c->diff, i, &v);
#endif
	return v;
}

int main(int argc, char **argv)
{
	const char *ev1 = argc > 2 ? argv[1] : "sw_page_faults";
	const char *ev2 = argc > 2 ? argv[2] : "sw_task_clock";
	struct counters c;
	volatile int total = 0;
	int i;

	if (counters_init(&c, ev1, ev2) != 0) {
		fprintf(stderr, "no counters: %s\n", strerror(errno));
		return 1;
	}
	counters_snap(&c, 0);
	for (i = 0; i < 1000000; i++)
		total++;
	counters_snap(&c, 1);
	printf("%llu %llu %llu\n", (unsigned long long)counters_get(&c, 0),
	       (unsigned long long)counters_get(&c, 1),
	       (unsigned long long)(gethrtime() - c.started));
	return 0;
}
