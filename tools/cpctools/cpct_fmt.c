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

#define WRAP_COL	76

static int width_of(const char *s, int col)
{
	for (; *s; s++)
		col = *s == '\t' ? (col / 8 + 1) * 8 : col + 1;
	return col;
}

void cpct_wrap_start(struct cpct_wrap *w, FILE *f, const char *prefix, int margin)
{
	w->f = f;
	w->margin = margin;
	w->words = 0;
	fputs(prefix, f);
	w->col = width_of(prefix, 0);
}

void cpct_wrap_word(struct cpct_wrap *w, const char *word)
{
	int len = (int)strlen(word);

	if (w->words && w->col + 1 + len > WRAP_COL) {
		fprintf(w->f, "\n%*s", w->margin, "");
		w->col = w->margin;
	} else if (w->words) {
		fputc(' ', w->f);
		w->col++;
	}
	fputs(word, w->f);
	w->col += len;
	w->words++;
}

void cpct_wrap_end(struct cpct_wrap *w)
{
	fputc('\n', w->f);
}
