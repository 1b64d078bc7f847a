// SPDX-License-Identifier: BSD-2-Clause
/*
 * uprofile(1) and kprofile(1) logic without I/O; see profile_fmt.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/pfcntr.h>

#include "profile_fmt.h"

#define EV(n, t, h, c)	{ n, #h, c, h, t }

/*
 * The EV5 events of pfm(7) that the module maps onto a Linux event (the
 * "same" and "approximate" rows of its tables), with the statistic names
 * of Tru64's pfm(7), uprofile(1) and kprofile(1).
 */
const struct prof_event prof_events[] = {
	EV("cycles", "cycles0", PF5_MUX0_CYCLES, 0),
	EV("issues", "issues", PF5_MUX0_ISSUES, 0),
	EV("pipeline_dry", "pipedry", PF5_MUX1_PIPELINE_DRY, 1),
	EV("flow_change", "flowchanges", PF5_MUX1_FLOW_CHANGE, 1),
	EV("load_instructions", "loads", PF5_MUX1_C_LOAD_INSTRUCTIONS, 1),
	EV("store_instructions", "stores", PF5_MUX1_C_STORE_INSTRUCTIONS, 1),
	EV("icache_access", "icacheacc", PF5_MUX1_C_ICACHE_ACCESS, 1),
	EV("dcache_access", "dcacheacc", PF5_MUX1_C_DCACHE_ACCESS, 1),
	EV("scache_access", "scacheacc", PF5_MUX1_C_SCACHE_ACCESS, 1),
	EV("scache_read", "scachereads", PF5_MUX1_C_SCACHE_READ, 1),
	EV("scache_write", "scachewrites1", PF5_MUX1_C_SCACHE_WRITE, 1),
	EV("branch_mispredicts", "branchmispredicts", PF5_MUX2_C_BRANCH_MISPREDICTS, 2),
	EV("icache_misses", "icachemisses", PF5_MUX2_C_ICACHE_MISSES, 2),
	EV("itb_miss", "itbmisses", PF5_MUX2_C_ITB_MISS, 2),
	EV("dcache_misses", "dcacheldmisses", PF5_MUX2_C_DCACHE_MISSES, 2),
	EV("dtb_miss", "dtbmisses", PF5_MUX2_C_DTB_MISS, 2),
	EV("scache_miss", "scachemisses", PF5_MUX2_C_SCACHE_MISS, 2),
	EV("scache_read_miss", "scachereadmisses", PF5_MUX2_C_SCACHE_READ_MISS, 2),
	EV("scache_write_miss", "scachewritemisses", PF5_MUX2_C_SCACHE_WRITE_MISS, 2),
};

const size_t prof_nevents = sizeof(prof_events) / sizeof(prof_events[0]);

/*
 * EV6 (21264) statistics of Tru64's pfm(7) that name what an EV5 event of
 * the table counts here: retired instructions are the instructions event,
 * and the ITB and DTB misses the EV5 ones (counted once, not only retired).
 */
static const struct {
	const char *tru64, *name;
} prof_ev6_aliases[] = {
	{ "retinst", "issues" },
	{ "retitbmiss", "itb_miss" },
	{ "retdtb1miss", "dtb_miss" },
};

const struct prof_event *prof_event_find(const char *name)
{
	size_t i;

	for (i = 0; i < prof_nevents; i++)
		if (!strcasecmp(name, prof_events[i].name) ||
		    !strcasecmp(name, prof_events[i].tru64) ||
		    !strcmp(name, prof_events[i].hdr))
			return &prof_events[i];
	for (i = 0; i < sizeof(prof_ev6_aliases) / sizeof(prof_ev6_aliases[0]); i++)
		if (!strcasecmp(name, prof_ev6_aliases[i].tru64))
			return prof_event_find(prof_ev6_aliases[i].name);
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

/*
 * Add an entry of samples for name (at addr); merge: to the entry of the
 * same name and address if there is one.
 */
static int entry_add(struct prof_entry **e, size_t *n, size_t *cap, const char *name,
		     uint64_t addr, uint64_t samples, bool merge)
{
	size_t i;

	for (i = 0; merge && i < *n; i++)
		if ((*e)[i].addr == addr && !strcmp((*e)[i].name, name)) {
			(*e)[i].samples += samples;
			return 0;
		}
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct prof_entry *ne = reallocarray(*e, c, sizeof(**e));

		if (!ne)
			return -1;
		*e = ne;
		*cap = c;
	}
	(*e)[*n].name = name;
	(*e)[*n].addr = addr;
	(*e)[*n].samples = samples;
	(*n)++;
	return 0;
}

long prof_aggregate_ranges(struct prof_symtab *t, const struct prof_buckets *b,
			   size_t nb, uint64_t outside, struct prof_entry **out,
			   uint64_t *total)
{
	struct prof_entry *e = NULL;
	uint64_t *per_sym = NULL, *per_mod = NULL, unknown = 0;
	size_t i, r, n = 0, cap = 0;

	*out = NULL;
	*total = 0;
	prof_symtab_sort(t);
	per_sym = calloc(t->n + 1, sizeof(*per_sym));
	per_mod = calloc(t->nmods + 1, sizeof(*per_mod));
	if (!per_sym || !per_mod)
		goto nomem;
	for (r = 0; r < nb; r++) {
		for (i = 0; i < b[r].n; i++) {
			uint64_t addr = b[r].start + i * b[r].bucket_bytes;
			const struct prof_module *m;
			const struct prof_sym *s;

			if (!b[r].counts[i])
				continue;
			*total += b[r].counts[i];
			s = bucket_sym(t, addr, b[r].bucket_bytes);
			m = s ? NULL : prof_symtab_module(t, addr);
			if (s)
				per_sym[s - t->syms] += b[r].counts[i];
			else if (m)
				per_mod[m - t->mods] += b[r].counts[i];
			else
				unknown += b[r].counts[i];
		}
	}
	for (i = 0; i < t->n; i++)
		if (per_sym[i] && entry_add(&e, &n, &cap, t->syms[i].name,
					    t->syms[i].addr, per_sym[i], false))
			goto nomem;
	/* Objects without a function there; two labels alike are one line. */
	for (i = 0; i < t->nmods; i++)
		if (per_mod[i] && entry_add(&e, &n, &cap, t->mods[i].unknown,
					    UINT64_MAX, per_mod[i], true))
			goto nomem;
	if (unknown && entry_add(&e, &n, &cap, PROF_UNKNOWN, UINT64_MAX, unknown, true))
		goto nomem;
	if (outside && entry_add(&e, &n, &cap, PROF_OUTSIDE, UINT64_MAX, outside, false))
		goto nomem;
	*total += outside;
	free(per_sym);
	free(per_mod);
	if (n)
		qsort(e, n, sizeof(*e), entry_cmp);
	*out = e ? e : calloc(1, sizeof(*e));
	if (!*out)
		return -1;
	return n;
nomem:
	free(per_sym);
	free(per_mod);
	free(e);
	return -1;
}

long prof_aggregate(struct prof_symtab *t, const uint32_t *buckets,
		    size_t nbuckets, uint64_t start, uint64_t bucket_bytes,
		    struct prof_entry **out, uint64_t *total)
{
	struct prof_buckets b = {
		.counts = buckets, .n = nbuckets, .start = start,
		.bucket_bytes = bucket_bytes,
	};

	return prof_aggregate_ranges(t, &b, 1, 0, out, total);
}

void prof_title(char *buf, size_t len, const char *what, uint64_t total,
		const struct prof_event *ev, unsigned long rate, const char *mode)
{
	snprintf(buf, len, "%s: %llu sample%s, one every %lu events of %s (%s)",
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

/* Tru64 options that have no meaning here: refused, by name. */
static const char *const prof_tru64_unsupported[] = {
	"-each", "-one", "-dirname", "-pids", "-nopids", "-average", "-pixie",
	"-display", "-k", "-t",
};

int prof_parse_cmdline(struct prof_cmdline *c, int argc, char *const argv[],
		       bool kernel, char *err, size_t errlen)
{
	const struct prof_event *ev;
	int i = 1;
	size_t k;

	memset(c, 0, sizeof(*c));
	*err = '\0';
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i], *val = NULL;
		char opt;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		/* Tru64's word options. */
		if (!strcmp(a, "-stride")) {
			char *end;

			if (i + 1 >= argc)
				return -1;
			errno = 0;
			c->stride = strtoul(argv[++i], &end, 0);
			if (errno || end == argv[i] || *end || argv[i][0] == '-' ||
			    !c->stride || (c->stride & (c->stride - 1)) ||
			    c->stride > (1UL << 24)) {
				snprintf(err, errlen,
					 "-stride %s: a power of 2 from 1 to 16777216 instructions",
					 argv[i]);
				return -1;
			}
			continue;
		}
		if (!strcmp(a, "-all") || !strcmp(a, "-v") || !strcmp(a, "-quiet"))
			continue;
		if (kernel && !strcmp(a, "-ra")) {
			c->caller = true;
			continue;
		}
		for (k = 0; k < sizeof(prof_tru64_unsupported) / sizeof(prof_tru64_unsupported[0]); k++)
			if (!strcmp(a, prof_tru64_unsupported[k]))
				break;
		if (k < sizeof(prof_tru64_unsupported) / sizeof(prof_tru64_unsupported[0])) {
			snprintf(err, errlen,
				 "%s: Tru64's option is not supported (see COMPATIBILITY in the manual)", a);
			return -1;
		}
		/* This tool's letters: -c, -e event, -f frequency, -o file. */
		opt = a[1];
		if (opt == 'c' && kernel && !a[2]) {
			c->caller = true;
			continue;
		}
		if (opt != 'e' && opt != 'f' && opt != 'o') {
			snprintf(err, errlen, "unknown option %s", a);
			return -1;
		}
		if (a[2])
			val = a + 2;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return -1;
		if (opt == 'e') {
			c->ev = prof_event_find(val);
			if (!c->ev) {
				snprintf(err, errlen,
					 "unknown event %s (see the EVENTS section of the manual)", val);
				return -1;
			}
		} else if (opt == 'f') {
			c->rate_arg = val;
		} else {
			c->out = val;
		}
	}
	/* Tru64's statistic operands before the program: one here. */
	for (; i < argc && (ev = prof_event_find(argv[i])); i++) {
		if (c->ev && c->ev != ev) {
			snprintf(err, errlen,
				 "%s: one statistic at a time (the device profiles one event)",
				 argv[i]);
			return -1;
		}
		c->ev = ev;
	}
	c->cmd = i;
	return 0;
}
