// SPDX-License-Identifier: GPL-2.0
/*
 * Shared code of cpustat(8) and cputrack(1): sets from specifications, the
 * error handler, and the -h capability listing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cpctools.h"

const char *cpct_progname = "cpc";

void cpct_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn;
	(void)subcode;
	fprintf(stderr, "%s: ", cpct_progname);
	vfprintf(stderr, fmt, ap);
}

static void collect_pic(void *arg, int index, const char *event, uint64_t preset,
			uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	struct cpct_set *s = arg;
	int i;

	(void)event;
	(void)preset;
	(void)flags;
	if (index < 0 || index >= CPCT_MAX_REQS)
		return;
	for (i = 0; i < nattrs; i++)
		if (!strcmp(attrs[i].ca_name, "picnum"))
			s->pic[index] = (int)attrs[i].ca_val;
	if (index + 1 > s->nreqs)
		s->nreqs = index + 1;
}

int cpct_set_make(cpc_t *cpc, const char *spec, struct cpct_set *s)
{
	memset(s, 0, sizeof(*s));
	s->spec = spec;
	s->set = cpc_strtoset(cpc, spec, 0);
	if (!s->set)
		return -1;
	cpc_walk_requests(cpc, s->set, s, collect_pic);
	return 0;
}

/* ---- -h ---------------------------------------------------------------------- */

struct names {
	char **v;
	size_t n, cap;
};

static void add_name(struct names *l, const char *name)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(name);
	if (l->v[l->n])
		l->n++;
}

static void add_pic_name(void *arg, uint_t picno, const char *event)
{
	(void)picno;
	add_name(arg, event);
}

static void add_attr(void *arg, const char *attr)
{
	/* picnum is set by the specification syntax itself. */
	if (strcmp(attr, "picnum"))
		add_name(arg, attr);
}

static void free_names(struct names *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int same_names(const struct names *a, const struct names *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]))
			return 0;
	return 1;
}

static void print_names(FILE *f, const char *prefix, const struct names *l)
{
	struct cpct_wrap w;
	size_t i;

	cpct_wrap_start(&w, f, prefix, 17);
	for (i = 0; i < l->n; i++)
		cpct_wrap_word(&w, l->v[i]);
	cpct_wrap_end(&w);
}

static void list_events(FILE *f, cpc_t *cpc, const char *title,
			void (*walk)(cpc_t *, uint_t, void *,
				     void (*)(void *, uint_t, const char *)))
{
	uint_t npic = cpc_npic(cpc), i;
	struct names *pics = calloc(npic ? npic : 1, sizeof(*pics));
	char prefix[32];
	int equal = 1;

	if (!pics)
		return;
	for (i = 0; i < npic; i++) {
		walk(cpc, i, &pics[i], add_pic_name);
		if (i && !same_names(&pics[0], &pics[i]))
			equal = 0;
	}
	fprintf(f, "%s\n\n", title);
	if (npic && equal) {
		snprintf(prefix, sizeof(prefix), "\tevent[0-%u]: ", npic - 1);
		print_names(f, prefix, &pics[0]);
	} else {
		for (i = 0; i < npic; i++) {
			snprintf(prefix, sizeof(prefix), "\tevent%u: ", i);
			print_names(f, prefix, &pics[i]);
		}
	}
	fputc('\n', f);
	for (i = 0; i < npic; i++)
		free_names(&pics[i]);
	free(pics);
}

void cpct_caps(FILE *f, cpc_t *cpc)
{
	struct names attrs = { 0 };
	struct cpct_wrap w;
	const char *p;
	size_t i;

	fprintf(f, "\tCPU performance counter interface: %s\n\n", cpc_cciname(cpc));
	fprintf(f, "\tevent specification syntax:\n\t%s\n\n", cpct_spec_syntax);
	list_events(f, cpc, "Generic Events:", cpc_walk_generic_events_pic);
	list_events(f, cpc, "Platform Specific Events:", cpc_walk_events_pic);

	cpc_walk_attrs(cpc, &attrs, add_attr);
	cpct_wrap_start(&w, f, "\tattributes: ", 20);
	for (i = 0; i < attrs.n; i++)
		cpct_wrap_word(&w, attrs.v[i]);
	cpct_wrap_word(&w, "nouser");
	cpct_wrap_word(&w, "sys");
	cpct_wrap_end(&w);
	fputc('\n', f);
	free_names(&attrs);

	/* The reference text, wrapped at word boundaries. */
	cpct_wrap_start(&w, f, "\t", 8);
	for (p = cpc_cpuref(cpc); *p; ) {
		char word[256];
		size_t n;

		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		n = strcspn(p, " \n\t");
		if (!n)
			break;
		if (n >= sizeof(word))
			n = sizeof(word) - 1;
		memcpy(word, p, n);
		word[n] = '\0';
		cpct_wrap_word(&w, word);
		p += strcspn(p, " \n\t");
	}
	cpct_wrap_end(&w);
}
