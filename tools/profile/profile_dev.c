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
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/pfcntr.h>

#include "profile_dev.h"

#define PFCNTR_DEV	"/dev/pfcntr"

void prof_opts_init(struct prof_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ev = prof_event_find("cycles");
}

int prof_common_opt(struct prof_opts *o, int ch, const char *arg,
		    void (*usage)(void))
{
	switch (ch) {
	case 'e':
		o->ev = prof_event_find(arg);
		if (!o->ev) {
			warnx("unknown event %s (see the EVENTS section of the manual)", arg);
			usage();
		}
		return 0;
	case 'f':
		o->rate_arg = arg;
		return 0;
	case 'o':
		o->out = arg;
		return 0;
	}
	return -1;
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
	if (fd < 0) {
		switch (errno) {
		case ENOENT:
			errx(1, "%s: no such device (is the pmcompat module loaded?)",
			     PFCNTR_DEV);
		case EACCES:
			errx(1, "%s: permission denied (the device belongs to root and the group pmcompat)",
			     PFCNTR_DEV);
		case EBUSY:
			errx(1, "%s: busy: another program has the counters open",
			     PFCNTR_DEV);
		}
		err(1, "%s", PFCNTR_DEV);
	}
	if (ioctl(fd, PCNTSETITEMS, &items))
		err(1, "%s: PCNTSETITEMS", PFCNTR_DEV);
	return fd;
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
	/* The rate first: the other two counters off, so their events do not matter. */
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
		 struct prof_symtab *t, const uint32_t *buckets, size_t n,
		 uint64_t start, uint64_t bucket_bytes)
{
	struct prof_entry *e;
	char title[PROF_ERRLEN + 4096];
	uint64_t total;
	long ne;
	FILE *f = o->outf;

	ne = prof_aggregate(t, buckets, n, start, bucket_bytes, &e, &total);
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
