// SPDX-License-Identifier: BSD-2-Clause
/*
 * /dev/pfcntr for uprofile(1) and kprofile(1); see profile_dev.h.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/pfcntr.h>

#include "profile_dev.h"
#include "pmc_hint.h"

#define PFCNTR_DEV	"/dev/pfcntr"

void prof_opts_init(struct prof_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ev = prof_event_find("cycles");
}

int prof_parse_opts(struct prof_opts *o, int argc, char **argv, bool kernel,
		    void (*usage)(void))
{
	struct prof_cmdline c;
	char msg[PROF_ERRLEN];

	if (prof_parse_cmdline(&c, argc, argv, kernel, msg, sizeof(msg))) {
		if (*msg)
			warnx("%s", msg);
		usage();
	}
	if (c.ev)
		o->ev = c.ev;
	o->rate_arg = c.rate_arg;
	o->out = c.out;
	o->caller = c.caller;
	o->stride = c.stride;
	return c.cmd;
}

void prof_opts_finish(struct prof_opts *o, void (*usage)(void))
{
	char msg[PROF_ERRLEN];

	o->rate = prof_rate_default(o->ev->counter);
	if (o->rate_arg &&
	    prof_parse_rate(o->ev, o->rate_arg, &o->rate, msg, sizeof(msg))) {
		warnx("%s", msg);
		usage();
	}
	o->outf = stdout;
	if (o->out) {
		o->outf = fopen(o->out, "we");
		if (!o->outf)
			err(1, "%s", o->out);
	}
}

int prof_dev_open(void)
{
	long items = PFM_COUNTERS | PFM_PROFILING;
	int fd;

	fd = open(PFCNTR_DEV, O_RDONLY | O_CLOEXEC | PCNTOPENALL);
	if (fd < 0)	/* the error, then what to do about it */
		pmc_err(1, PFCNTR_DEV, "%s", PFCNTR_DEV);
	if (ioctl(fd, PCNTSETITEMS, &items))
		err(1, "%s: PCNTSETITEMS", PFCNTR_DEV);
	return fd;
}

/* The capabilities of this process (raw syscalls: no libcap). */
static int caps_get(struct __user_cap_header_struct *h, struct __user_cap_data_struct *d)
{
	memset(h, 0, sizeof(*h));
	h->version = _LINUX_CAPABILITY_VERSION_3;
	return syscall(SYS_capget, h, d);
}

int prof_dev_open_many(int *fds, int n)
{
	struct __user_cap_header_struct h;
	struct __user_cap_data_struct d[2], quiet[2];
	bool lowered = false;
	int i, got = 0;

	/* CAP_SYS_ADMIN is 21, CAP_PERFMON 38: word 0 and word 1. */
	if (n > 1 && !caps_get(&h, d)) {
		memcpy(quiet, d, sizeof(quiet));
		quiet[0].effective &= ~(1U << 21);
		quiet[1].effective &= ~(1U << (38 - 32));
		if (memcmp(quiet, d, sizeof(quiet)))
			lowered = !syscall(SYS_capset, &h, quiet);
	}
	for (i = 0; i < n; i++) {
		int fd = open(PFCNTR_DEV, O_RDONLY | O_CLOEXEC | PCNTOPENALL);
		long items = PFM_COUNTERS | PFM_PROFILING;

		if (fd < 0 && i > 0)
			break;		/* the first ones will do */
		if (fd < 0) {
			if (lowered)
				syscall(SYS_capset, &h, d);
			fds[0] = prof_dev_open();	/* says why, or works after all */
			return 1;
		}
		if (ioctl(fd, PCNTSETITEMS, &items))
			err(1, "%s: PCNTSETITEMS", PFCNTR_DEV);
		fds[got++] = fd;
	}
	if (lowered && syscall(SYS_capset, &h, d))
		err(1, "capset");
	return got;
}

uint64_t prof_dev_ticks(int fd, const struct prof_opts *o)
{
	struct pfcntrs_ev5 c[1], *cp = c;

	memset(c, 0, sizeof(c));
	if (ioctl(fd, PCNT5GETCNT, &cp))
		err(1, "%s: PCNT5GETCNT", PFCNTR_DEV);
	switch (o->ev->counter) {
	case 0:
		return c[0].pf_cntr0;
	case 1:
		return c[0].pf_cntr1;
	}
	return c[0].pf_cntr2;
}

int prof_dev_range(int fd, bool kernel, uint64_t start, uint64_t end,
		   unsigned long min_stride, uint64_t *bucket_bytes)
{
	addr_range_t r;
	unsigned long stride;

	for (stride = min_stride; stride <= (1UL << 24); stride <<= 1) {
		memset(&r, 0, sizeof(r));
		r.start = start;
		r.end = end;
		r.stride = stride;
		if (!ioctl(fd, kernel ? PCNTSETKRANGE : PCNTSETURANGE, &r)) {
			*bucket_bytes = stride * 4;
			return 0;
		}
		if (errno != ENOMEM)
			return -errno;
	}
	return -ENOMEM;
}

int prof_dev_start(int fd, const struct prof_opts *o, long ctxts,
		   const char **what)
{
	union pmctrs_ev5 img;
	long v;

	*what = "PCNT5CTXTS";
	if (ioctl(fd, PCNT5CTXTS, &ctxts))
		return -errno;
	/* The rate first, then the events; the other two counters go off after the start. */
	*what = "PCNT5FREQ";
	v = prof_freq_value(o->ev, o->rate);
	if (ioctl(fd, PCNT5FREQ, &v))
		return -errno;
	*what = "PCNT5MUX";
	v = prof_mux_value(o->ev);
	if (ioctl(fd, PCNT5MUX, &v))
		return -errno;
	*what = "PCNTCLEARCNT";
	if (ioctl(fd, PCNTCLEARCNT))
		return -errno;
	*what = "PCNT5RESTART";
	img.pmctrs_ev5_long = PFCNTR_EV5_IMAGE(prof_select_value(o->ev),
					       PMCTRS_ALL_CPUS, 0, 0, 0);
	if (ioctl(fd, PCNT5RESTART, &img.pmctrs_ev5_long))
		return -errno;
	/*
	 * A rate field of 0 is the low rate, as on Tru64 (PF5_FREQ_KFORCE),
	 * not off: the other counters are turned off, so that only the
	 * profiled event's interrupts take samples.
	 */
	*what = "PCNT5DISABLE";
	img.pmctrs_ev5_long = PFCNTR_EV5_IMAGE(7 & ~prof_select_value(o->ev),
					       PMCTRS_ALL_CPUS, 0, 0, 0);
	if (ioctl(fd, PCNT5DISABLE, &img.pmctrs_ev5_long))
		return -errno;
	return 0;
}

void prof_dev_start_failed(const struct prof_opts *o, int e, const char *what,
			   const char *privilege)
{
	switch (e) {
	case -EPERM:
		errx(1, "%s: %s: not permitted: %s", PFCNTR_DEV, what, privilege);
	case -EINVAL:
		if (!strcmp(what, "PCNT5MUX"))
			errx(1, "%s: %s: the event %s is not available on this processor",
			     PFCNTR_DEV, what, o->ev->name);
		break;
	case -EBUSY:
		errx(1, "%s: %s: no hardware counter free for the event %s (perf, the NMI watchdog or a KVM guest has them)",
		     PFCNTR_DEV, what, o->ev->name);
	}
	errno = -e;
	err(1, "%s: %s (event %s)", PFCNTR_DEV, what, o->ev->name);
}

uint32_t *prof_dev_read(int fd, size_t *nbuckets)
{
	uint32_t *b;
	long size = 0;
	size_t got = 0;

	if (ioctl(fd, PCNTRDISABLE))
		err(1, "%s: PCNTRDISABLE", PFCNTR_DEV);
	if (ioctl(fd, PCNTGETRSIZE, &size))
		err(1, "%s: PCNTGETRSIZE", PFCNTR_DEV);
	if (size < 0 || size % 4)
		errx(1, "%s: PCNTGETRSIZE returned %ld bytes", PFCNTR_DEV, size);
	b = calloc(size / 4 + 1, sizeof(*b));
	if (!b)
		err(1, "reading the samples");
	while (got < (size_t)size) {
		ssize_t n = pread(fd, (char *)b + got, size - got, got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err(1, "%s: read", PFCNTR_DEV);
		if (!n)
			errx(1, "%s: read: %zu of %ld bytes", PFCNTR_DEV, got, size);
		got += n;
	}
	*nbuckets = size / 4;
	return b;
}

void prof_report(const struct prof_opts *o, const char *what, const char *mode,
		 struct prof_symtab *t, const struct prof_buckets *b, size_t nb,
		 uint64_t outside)
{
	struct prof_entry *e;
	char title[PROF_ERRLEN + 4096];
	uint64_t total;
	long ne;
	FILE *f = o->outf;

	ne = prof_aggregate_ranges(t, b, nb, outside, &e, &total);
	if (ne < 0)
		err(1, "making the profile");
	prof_title(title, sizeof(title), what, total, o->ev, o->rate, mode);
	prof_print(f, title, e, ne, total);
	if (fflush(f) || ferror(f) || (o->out && fclose(f)))
		err(1, "%s", o->out ? o->out : "stdout");
	free(e);
}

int prof_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
