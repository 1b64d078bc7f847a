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
int cpct_debug;

/* Solaris' cpustat_errfn()/cputrack_errfn(): the function's name with -D. */
void cpct_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode;
	fprintf(stderr, "%s: ", cpct_progname);
	if (cpct_debug)
		fprintf(stderr, "%s: ", fn);
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

/* Solaris' margins of the -h lists (caps.c). */
#define EVENT_MARGIN	17
#define ATTR_MARGIN	20

static void print_names(FILE *f, const struct names *l)
{
	struct cpct_caps_col c;
	size_t i;

	cpct_caps_start(&c, f, EVENT_MARGIN, EVENT_MARGIN);
	for (i = 0; i < l->n; i++)
		cpct_caps_word(&c, l->v[i], NULL);
	fputc('\n', f);
}

/* Each counter's names from walk; 1 if every counter has the same. */
static int collect_pics(cpc_t *cpc, struct names *pics, uint_t npic,
			void (*walk)(cpc_t *, uint_t, void *,
				     void (*)(void *, uint_t, const char *)))
{
	uint_t i;
	int equal = 1;

	for (i = 0; i < npic; i++) {
		walk(cpc, i, &pics[i], add_pic_name);
		if (i && !same_names(&pics[0], &pics[i]))
			equal = 0;
	}
	return equal;
}

/* One list: "event[0-N]: " when equal (Solaris decides by the platform events). */
static void list_events(FILE *f, cpc_t *cpc, int equal,
			void (*walk)(cpc_t *, uint_t, void *,
				     void (*)(void *, uint_t, const char *)))
{
	uint_t npic = cpc_npic(cpc), i;
	struct names *pics = calloc(npic ? npic : 1, sizeof(*pics));

	if (!pics)
		return;
	collect_pics(cpc, pics, npic, walk);
	if (equal) {
		fprintf(f, "\n\tevent[0-%d]: ", (int)npic - 1);
		print_names(f, &pics[0]);
	} else {
		for (i = 0; i < npic; i++) {
			fprintf(f, "\n\tevent%u: %s", i, i < 10 ? " " : "");
			print_names(f, &pics[i]);
		}
	}
	for (i = 0; i < npic; i++)
		free_names(&pics[i]);
	free(pics);
}

void cpct_caps(FILE *f, cpc_t *cpc)
{
	uint_t npic = cpc_npic(cpc), i;
	struct names attrs = { 0 }, *pics;
	struct cpct_caps_col c;
	const char *p;
	int equal = 1;

	pics = calloc(npic ? npic : 1, sizeof(*pics));
	if (pics) {
		equal = collect_pics(cpc, pics, npic, cpc_walk_events_pic);
		for (i = 0; i < npic; i++)
			free_names(&pics[i]);
		free(pics);
	}
	fprintf(f, "\tCPU performance counter interface: %s\n\n", cpc_cciname(cpc));
	fprintf(f, "\tevent specification syntax:\n\t%s\n", cpct_spec_syntax);
	fprintf(f, "\n\tGeneric Events:\n");
	list_events(f, cpc, equal, cpc_walk_generic_events_pic);
	fprintf(f, "\n\tSee generic_events(3CPC) for descriptions of these events\n\n");
	fprintf(f, "\tPlatform Specific Events:\n");
	list_events(f, cpc, equal, cpc_walk_events_pic);

	fprintf(f, "\n\tattributes: ");
	cpct_caps_start(&c, f, ATTR_MARGIN, ATTR_MARGIN);
	cpc_walk_attrs(cpc, &attrs, add_attr);
	for (i = 0; i < attrs.n; i++)
		cpct_caps_word(&c, attrs.v[i], NULL);
	cpct_caps_word(&c, "nouser", NULL);
	cpct_caps_word(&c, "sys", NULL);
	free_names(&attrs);

	/* The reference text, its words wrapped at column 76. */
	fprintf(f, "\n\n\t");
	cpct_caps_start(&c, f, 8, 8);
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
		cpct_caps_word(&c, word, "\n\t");
		p += strcspn(p, " \n\t");
	}
	fputc('\n', f);
}
