// SPDX-License-Identifier: BSD-2-Clause
/*
 * uprofile(1) and kprofile(1) logic without I/O; see profile_fmt.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/pfcntr.h>

#include "profile_fmt.h"

#define EV(n, h, c)	{ n, #h, c, h }

/*
 * The EV5 events of pfm(7) that the module maps onto a Linux event (the
 * "same" and "approximate" rows of its tables).
 */
const struct prof_event prof_events[] = {
	EV("cycles", PF5_MUX0_CYCLES, 0),
	EV("issues", PF5_MUX0_ISSUES, 0),
	EV("pipeline_dry", PF5_MUX1_PIPELINE_DRY, 1),
	EV("flow_change", PF5_MUX1_FLOW_CHANGE, 1),
	EV("load_instructions", PF5_MUX1_C_LOAD_INSTRUCTIONS, 1),
	EV("store_instructions", PF5_MUX1_C_STORE_INSTRUCTIONS, 1),
	EV("icache_access", PF5_MUX1_C_ICACHE_ACCESS, 1),
	EV("dcache_access", PF5_MUX1_C_DCACHE_ACCESS, 1),
	EV("scache_access", PF5_MUX1_C_SCACHE_ACCESS, 1),
	EV("scache_read", PF5_MUX1_C_SCACHE_READ, 1),
	EV("scache_write", PF5_MUX1_C_SCACHE_WRITE, 1),
	EV("branch_mispredicts", PF5_MUX2_C_BRANCH_MISPREDICTS, 2),
	EV("icache_misses", PF5_MUX2_C_ICACHE_MISSES, 2),
	EV("itb_miss", PF5_MUX2_C_ITB_MISS, 2),
	EV("dcache_misses", PF5_MUX2_C_DCACHE_MISSES, 2),
	EV("dtb_miss", PF5_MUX2_C_DTB_MISS, 2),
	EV("scache_miss", PF5_MUX2_C_SCACHE_MISS, 2),
	EV("scache_read_miss", PF5_MUX2_C_SCACHE_READ_MISS, 2),
	EV("scache_write_miss", PF5_MUX2_C_SCACHE_WRITE_MISS, 2),
};

const size_t prof_nevents = sizeof(prof_events) / sizeof(prof_events[0]);

const struct prof_event *prof_event_find(const char *name)
{
	size_t i;

	for (i = 0; i < prof_nevents; i++)
		if (!strcasecmp(name, prof_events[i].name) ||
		    !strcmp(name, prof_events[i].hdr))
			return &prof_events[i];
	return NULL;
}

unsigned long prof_rate_default(int counter)
{
	return counter == 2 ? 16384 : 65536;
}

int prof_parse_rate(const struct prof_event *ev, const char *arg,
		    unsigned long *rate, char *err, size_t errlen)
{
	unsigned long r;
	char *end;

	errno = 0;
	r = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' ||
	    (r != PROF_RATE_HIGH && r != prof_rate_default(ev->counter))) {
		snprintf(err, errlen,
			 "frequency %s: %s (counter %d) interrupts every %lu or every %lu events",
			 arg, ev->name, ev->counter, prof_rate_default(ev->counter),
			 PROF_RATE_HIGH);
		return -1;
	}
	*rate = r;
	return 0;
}

uint64_t prof_mux_value(const struct prof_event *ev)
{
	return ev->mux;
}

uint64_t prof_freq_value(const struct prof_event *ev, unsigned long rate)
{
	/* The 2-bit field of each counter: 2 the low rate, 3 the rate 256. */
	static const unsigned int shift[3] = { 8, 6, 4 };
	uint64_t field = rate == PROF_RATE_HIGH ? 3 : 2;

	return field << shift[ev->counter];
}

unsigned int prof_select_value(const struct prof_event *ev)
{
	return 1U << ev->counter;	/* PF5_SEL_COUNTER_0, _1, _2 */
}

/* Most samples first; equal counts by name, then address. */
static int entry_cmp(const void *a, const void *b)
{
	const struct prof_entry *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The function a bucket is credited to, or NULL. */
static const struct prof_sym *bucket_sym(struct prof_symtab *t, uint64_t addr,
					 uint64_t len)
{
	const struct prof_sym *s = prof_symtab_lookup(t, addr);
	size_t lo = 0, hi = t->n;

	if (s)
		return s;
	/* The first symbol at or above addr (the table is sorted now). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && t->syms[lo].addr - addr < len)
		return &t->syms[lo];
	return NULL;
}

long prof_aggregate(struct prof_symtab *t, const uint32_t *buckets,
		    size_t nbuckets, uint64_t start, uint64_t bucket_bytes,
		    struct prof_entry **out, uint64_t *total)
{
	struct prof_entry *e = NULL;
	uint64_t *per_sym = NULL, unknown = 0;
	size_t i, n = 0;

	*out = NULL;
	*total = 0;
	prof_symtab_sort(t);
	if (t->n) {
		per_sym = calloc(t->n, sizeof(*per_sym));
		if (!per_sym)
			return -1;
	}
	for (i = 0; i < nbuckets; i++) {
		const struct prof_sym *s;

		if (!buckets[i])
			continue;
		*total += buckets[i];
		s = bucket_sym(t, start + i * bucket_bytes, bucket_bytes);
		if (s)
			per_sym[s - t->syms] += buckets[i];
		else
			unknown += buckets[i];
	}
	e = calloc(t->n + 1, sizeof(*e));
	if (!e) {
		free(per_sym);
		return -1;
	}
	for (i = 0; i < t->n; i++) {
		if (!per_sym[i])
			continue;
		e[n].name = t->syms[i].name;
		e[n].addr = t->syms[i].addr;
		e[n].samples = per_sym[i];
		n++;
	}
	if (unknown) {
		e[n].name = PROF_UNKNOWN;
		e[n].addr = UINT64_MAX;
		e[n].samples = unknown;
		n++;
	}
	free(per_sym);
	qsort(e, n, sizeof(*e), entry_cmp);
	*out = e;
	return n;
}

void prof_title(char *buf, size_t len, const char *what, uint64_t total,
		const struct prof_event *ev, unsigned long rate, const char *mode)
{
	snprintf(buf, len, "%s: %llu sample%s, one every %lu %s events (%s)",
		 what, (unsigned long long)total, total == 1 ? "" : "s", rate,
		 ev->name, mode);
}

void prof_print(FILE *f, const char *title, const struct prof_entry *e,
		size_t n, uint64_t total)
{
	uint64_t cum = 0;
	size_t i;

	fprintf(f, "%s\n\n", title);
	fprintf(f, " %%time  cumulative        self  name\n");
	fprintf(f, "           samples     samples\n");
	for (i = 0; i < n; i++) {
		cum += e[i].samples;
		fprintf(f, "%6.2f %11llu %11llu  %s\n",
			total ? 100.0 * e[i].samples / total : 0.0,
			(unsigned long long)cum,
			(unsigned long long)e[i].samples, e[i].name);
	}
	if (!n)
		fprintf(f, "(no samples)\n");
}
