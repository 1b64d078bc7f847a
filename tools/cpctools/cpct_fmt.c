// SPDX-License-Identifier: GPL-2.0
/*
 * Output formats of cpustat(8) and cputrack(1) (see legacy-apis.md 4.7):
 * the column widths of the originals.
 */
#include <string.h>

#include "cpctools.h"

const char cpct_spec_syntax[] =
	"[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]";

void cpct_pic_header(char hdr[11], int pic)
{
	/* "%8s%-2d " is 11 characters; the original keeps the first 10. */
	char full[32];

	snprintf(full, sizeof(full), "%8s%-2d ", "pic", pic);
	memcpy(hdr, full, 10);
	hdr[10] = '\0';
}

static void headers(FILE *f, const struct cpct_set *s)
{
	char hdr[11];
	int i;

	for (i = 0; i < s->nreqs; i++) {
		cpct_pic_header(hdr, s->pic[i]);
		fputs(hdr, f);
	}
}

static void values(FILE *f, const uint64_t *vals, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fprintf(f, "%9lld ", (long long)vals[i]);
}

void cpustat_title(FILE *f, int tsc, const struct cpct_set *s)
{
	fprintf(f, "%7s %3s %5s ", "time", "cpu", "event");
	if (tsc)
		fprintf(f, "%9s ", "tsc");
	headers(f, s);
	fputc('\n', f);
}

void cpustat_row(FILE *f, double secs, int cpu, const char *label, int tsc,
		 uint64_t tick, const uint64_t *vals, int n, const char *spec)
{
	fprintf(f, "%7.3f %3d %5s ", secs, cpu, label);
	if (tsc)
		fprintf(f, "%9lld ", (long long)tick);
	values(f, vals, n);
	if (spec)
		fprintf(f, " # %s", spec);
	fputc('\n', f);
}

void cputrack_title(FILE *f, int pidcol, int tsc, const struct cpct_set *s)
{
	fprintf(f, "%7s ", "time");
	if (pidcol)
		fprintf(f, "%6s ", "pid");
	fprintf(f, "%3s %10s ", "lwp", "event");
	if (tsc)
		fprintf(f, "%9s ", "tsc");
	headers(f, s);
	fputc('\n', f);
}

void cputrack_row(FILE *f, double secs, int pidcol, int pid, int lwp,
		  const char *label, int tsc, uint64_t tick,
		  const uint64_t *vals, int n, const char *spec,
		  const char *note)
{
	fprintf(f, "%7.3f ", secs);
	if (pidcol)
		fprintf(f, "%6d ", pid);
	fprintf(f, "%3d %10s ", lwp, label);
	if (tsc)
		fprintf(f, "%9lld ", (long long)tick);
	values(f, vals, n);
	if (spec)
		fprintf(f, " # %s", spec);
	if (note)
		fputs(note, f);
	fputc('\n', f);
}

/* ---- wrapping ---------------------------------------------------------------- */

/*
 * Solaris' -h lists (caps.c): each word followed by a space, a new line
 * indented to the margin before a word that would pass column 76, the
 * column counted from the margin whatever the prefix printed before.
 */
#define CAPS_RHS	76

void cpct_caps_start(struct cpct_caps_col *c, FILE *f, int col, int margin)
{
	c->f = f;
	c->col = col;
	c->margin = margin;
}

void cpct_caps_word(struct cpct_caps_col *c, const char *word, const char *newline)
{
	if (c->col + (int)strlen(word) + 1 > CAPS_RHS) {
		if (newline) {
			fputs(newline, c->f);
		} else {
			fputc('\n', c->f);
			fprintf(c->f, "%*s", c->margin, "");
		}
		c->col = c->margin;
	}
	c->col += fprintf(c->f, "%s ", word);
}
