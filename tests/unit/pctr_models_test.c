// SPDX-License-Identifier: GPL-2.0
/*
 * pctr(1) on every x86 core PMU model libpfm4 knows (LIBPFM_FORCE_PMU),
 * the models enumerated by libpfm4 itself: for each one, the
 * architectural events get the selectors OpenBSD's tables give, libpfm4's
 * default unit mask applies without -m, and every listed event either
 * gives a selector without -m or is listed as needing one.  A model
 * where an event does not exist is a TAP skip with the reason.
 *
 * Each model runs in a child of its own (pctr builds its table once per
 * process, and libpfm4 reads LIBPFM_FORCE_PMU at pfm_initialize()); the
 * child sends its results over a pipe, one line each:
 * "P<text>", "F<text>" or "S<text>".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <machine/pctr.h>
#include <perfmon/pfmlib.h>

#include "pctr_fmt.h"
#include "pctr_wrap_ref.h"
#include "kselftest.h"

#define MAX_MODELS	128
#define CHECKS		4	/* results each model sends */

/* Selector bits a unit mask may set: unit mask, E, I and threshold. */
#define UM_BITS		(0x0000ff00u | PCTR_E | PCTR_I | 0xff000000u)

static FILE *out;	/* the child's end of the pipe */
static const char *model;

static void result(char kind, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void result(char kind, const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(out, "%c%s: %s", kind, model, what);
	if (fmt && *fmt) {
		fputs(kind == 'S' ? ": " : " (", out);
		va_start(ap, fmt);
		vfprintf(out, fmt, ap);
		va_end(ap);
		if (kind != 'S')
			fputc(')', out);
	}
	fputc('\n', out);
	fflush(out);
}

/* pctr -s ctr -f code [-m umask]: 0 and the selector, or -1 and err. */
static int sel_for(int cpu, unsigned int code, int umask, uint32_t *sel,
		   char *err)
{
	struct pctr_opts o;

	pctr_opts_init(&o);
	o.ctr = 0;
	o.func = code;
	if (umask >= 0) {
		o.umask = (unsigned int)umask;
		o.umask_set = true;
	}
	err[0] = '\0';
	return pctr_build_sel(cpu, &o, sel, err, PCTR_ERRLEN);
}

/* libpfm4's own selector for the bare event (its default unit mask). */
static int pfm_bare(const char *pmu, const char *ev, uint32_t *w)
{
	char str[256];
	uint64_t *codes = NULL;
	int count = 0, ret;

	snprintf(str, sizeof(str), "%s::%s", pmu, ev);
	ret = pfm_get_event_encoding(str, PFM_PLM0 | PFM_PLM3, NULL, NULL,
				     &codes, &count);
	if (ret == PFM_SUCCESS && count >= 1)
		*w = (uint32_t)codes[0];
	free(codes);
	return ret == PFM_SUCCESS && count >= 1 ? 0 : -1;
}

struct arch_event {
	const char *what;
	unsigned int code;
	int umask;		/* -m, or -1 for none */
	uint32_t sel;		/* OpenBSD's selector for it */
};

/* OpenBSD's corefn: c0, 3c, c4, c5, and 2e with 4f or 41. */
static const struct arch_event intel_arch[] = {
	{ "instructions", 0xc0, -1, 0x4300c0 },
	{ "core cycles", 0x3c, -1, 0x43003c },
	{ "branches", 0xc4, -1, 0x4300c4 },
	{ "branch mispredicts", 0xc5, -1, 0x4300c5 },
	{ "LLC references", 0x2e, 0x4f, 0x434f2e },
	{ "LLC misses", 0x2e, 0x41, 0x43412e },
};

/*
 * OpenBSD's amdfn: c0 retired instructions, 76 CPU clocks not halted, c2
 * retired branches, c3 retired mispredicted branches, 7d requests to the
 * L2 cache, 7e L2 cache misses (the last level on K8; their unit masks are
 * the caller's on OpenBSD, libpfm4's default here, so sel is 0: compared
 * with libpfm4's own encoding instead).
 */
static const struct arch_event amd_arch[] = {
	{ "instructions", 0xc0, -1, 0x4300c0 },
	{ "core cycles", 0x76, -1, 0x430076 },
	{ "branches", 0xc2, -1, 0x4300c2 },
	{ "branch mispredicts", 0xc3, -1, 0x4300c3 },
	{ "LLC references", 0x7d, -1, 0 },
	{ "LLC misses", 0x7e, -1, 0 },
};

/* Models whose tables pctr does not use, and why. */
static const char *builtin_reason(const char *m)
{
	if (!strncmp(m, "netburst", 8))
		return "NetBurst counters are ESCR/CCCR pairs, not event-select "
		       "words: pctr uses its built-in table, and pctr(4) has no "
		       "counters there (no architectural perfmon), as on OpenBSD";
	return NULL;	/* ix86arch: the built-in table, tested as such */
}

static void check_arch(int cpu, const char *pmu, const struct arch_event *a,
		       size_t na)
{
	char err[PCTR_ERRLEN], missing[128] = "", bad[512] = "";
	const struct ctrfn *fn;
	uint32_t sel, w;
	size_t i;

	for (i = 0; i < na; i++) {
		fn = pctr_find_event(cpu, a[i].code);
		if (!fn) {
			snprintf(missing + strlen(missing),
				 sizeof(missing) - strlen(missing), "%s%02x",
				 *missing ? ", " : "", a[i].code);
			continue;
		}
		if (sel_for(cpu, a[i].code, a[i].umask, &sel, err)) {
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
				 "%s: %s; ", a[i].what, err);
			continue;
		}
		if (!a[i].sel) {
			/* libpfm4's default, or 00 when it has none */
			if (pfm_bare(pmu, fn->name, &w))
				w = 0;
			if ((sel & ~UM_BITS) != (0x430000u | a[i].code) ||
			    (sel & UM_BITS) != (w & UM_BITS))
				snprintf(bad + strlen(bad),
					 sizeof(bad) - strlen(bad),
					 "%s: %#x, libpfm4 %#x; ", a[i].what,
					 sel, w);
		} else if (sel != a[i].sel) {
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
				 "%s: %#x, not %#x; ", a[i].what, sel, a[i].sel);
		}
	}
	if (*bad)
		result('F', "architectural selectors", "%s", bad);
	else if (*missing && cpu == CPU_AMD)
		result('S', "architectural selectors",
		       "the others right; the model has no event %s (OpenBSD's "
		       "K8 L2 request and miss codes: K7 has none, Zen's L2 "
		       "and L3 events have other codes)", missing);
	else if (*missing)
		result('S', "architectural selectors",
		       "the model has no event %s (Knights Corner, a "
		       "coprocessor pctr does not run on, has no architectural "
		       "events)", missing);
	else
		result('P', "architectural selectors", NULL);
}

/*
 * Every listed event: its list text (wrapped as OpenBSD does), its selector without -m (or the
 * "needs unit mask" refusal for exactly the events the list marks so),
 * and, without -m, libpfm4's default unit mask where it has one.
 */
static void check_events(int cpu, const char *pmu, bool pfm)
{
	char err[PCTR_ERRLEN], buf[8192], wrap[8192];
	char first[512] = "", dflbad[512] = "";
	const struct ctrfn *tab;
	size_t i, n, len;
	int ndfl = 0;

	tab = pctr_events(cpu, &n);
	for (i = 0; i < n; i++) {
		const struct ctrfn *fn = &tab[i];
		bool um = fn->flags & CFL_UM;
		uint32_t sel = 0, w;
		int r;

		len = pctr_fmt_event(buf, sizeof(buf), fn);
		openbsd_wrap(fn->desc ? fn->desc : "", wrap, sizeof(wrap));
		if (len < sizeof(buf) && strchr(buf, '\n') &&
		    strcmp(strchr(buf, '\n') + 1, wrap)) {
			snprintf(first, sizeof(first),
				 "list text of %02x %s not wrapped as OpenBSD",
				 fn->fn, fn->name);
			break;
		}
		if (!fn->fn) {
			/* as OpenBSD: -f 0 turns the counter off */
			if (sel_for(cpu, 0, -1, &sel, err) || sel)
				snprintf(first, sizeof(first), "-f 0: %#x", sel);
			continue;
		}
		if (len >= sizeof(buf) || strlen(buf) != len ||
		    !!strstr(buf, "(needs unit mask)") != um) {
			snprintf(first, sizeof(first), "list text of %02x %s",
				 fn->fn, fn->name);
			break;
		}
		r = sel_for(cpu, fn->fn, -1, &sel, err);
		if (um) {
			if (!r || !strstr(err, "needs unit mask")) {
				snprintf(first, sizeof(first),
					 "%02x %s: marked, but %s", fn->fn,
					 fn->name, r ? err : "programmed");
				break;
			}
			/* the list's first unit mask then works */
			r = sel_for(cpu, fn->fn, 1, &sel, err);
		}
		if (r || (sel & 0xff) != fn->fn || !(sel & PCTR_EN)) {
			snprintf(first, sizeof(first), "%02x %s: %s %#x",
				 fn->fn, fn->name, r ? err : "selector", sel);
			break;
		}
		if (!pfm || um)
			continue;
		if (cpu == CPU_CORE && (fn->fn == 0x3c || fn->fn == 0xc0 ||
					fn->fn == 0xc4 || fn->fn == 0xc5)) {
			/* architectural: 00 whatever libpfm4's default */
			if (sel & UM_BITS)
				snprintf(dflbad + strlen(dflbad),
					 sizeof(dflbad) - strlen(dflbad),
					 "%02x: %#x; ", fn->fn, sel);
			continue;
		}
		/*
		 * Without -m: libpfm4's own encoding of the bare event, or
		 * 00 listed when libpfm4 wants a unit mask.
		 */
		if (!pfm_bare(pmu, fn->name, &w)) {
			if (fn->flags & CFL_MESI)
				continue;	/* -M/-E/-S/-I, tested elsewhere */
			if ((sel & UM_BITS) != (w & UM_BITS))
				snprintf(dflbad + strlen(dflbad),
					 sizeof(dflbad) - strlen(dflbad),
					 "%02x %s: %#x, libpfm4 %#llx; ",
					 fn->fn, fn->name, sel,
					 (unsigned long long)w);
			if (w & UM_BITS)
				ndfl++;
		} else if (!strstr(fn->desc ? fn->desc : "", "=00") ||
			   (sel & UM_BITS)) {
			snprintf(dflbad + strlen(dflbad),
				 sizeof(dflbad) - strlen(dflbad),
				 "%02x %s: no default and no 00, yet %#x; ",
				 fn->fn, fn->name, sel);
		}
	}
	if (*first)
		result('F', "every listed event", "%s", first);
	else if (!n)
		result('F', "every listed event", "empty list");
	else
		result('P', "every listed event", "%zu events", n);

	if (!pfm)
		result('S', "default unit masks",
		       "the built-in table has no defaults");
	else if (*dflbad)
		result('F', "default unit masks", "%s", dflbad);
	else
		result('P', "default unit masks", "%d events with a default",
		       ndfl);
}

static void run_model(const char *m, bool amd)
{
	int cpu = amd ? CPU_AMD : CPU_CORE;
	const char *why = builtin_reason(m);
	const struct ctrfn *tab;
	size_t n;
	bool pfm;

	model = m;
	setenv("LIBPFM_FORCE_PMU", m, 1);
	if (pfm_initialize() != PFM_SUCCESS) {
		result('F', "libpfm4", "pfm_initialize failed");
		return;
	}
	tab = pctr_events(cpu, &n);
	pfm = tab && (tab[0].flags & CFL_PFM);
	if (why) {
		int k;

		for (k = 0; k < CHECKS; k++)
			result('S', "table", "%s", why);
		return;
	}
	/* the table in use: libpfm4's, or the built-in one for ix86arch */
	if (!strcmp(m, "ix86arch"))
		result(pfm ? 'F' : 'P', "table",
		       "libpfm4's architectural table: the built-in one");
	else
		result(pfm ? 'P' : 'F', "table", "libpfm4's, %zu events", n);
	if (amd)
		check_arch(cpu, m, amd_arch, ARRAY_SIZE(amd_arch));
	else
		check_arch(cpu, m, intel_arch, ARRAY_SIZE(intel_arch));
	check_events(cpu, m, pfm);
}

int main(void)
{
	static char names[MAX_MODELS][64];
	bool amd[MAX_MODELS];
	pfm_pmu_info_t info;
	pfm_pmu_t pmu;
	int nm = 0, i;

	/* every core PMU libpfm4 has a table for, present or not */
	unsetenv("LIBPFM_FORCE_PMU");
	if (pfm_initialize() != PFM_SUCCESS)
		ksft_exit_fail_msg("pfm_initialize\n");
	pfm_for_all_pmus(pmu) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS ||
		    info.type != PFM_PMU_TYPE_CORE || nm >= MAX_MODELS)
			continue;
		snprintf(names[nm], sizeof(names[nm]), "%s", info.name);
		amd[nm] = !strncmp(info.name, "amd64", 5);
		nm++;
	}
	pfm_terminate();

	ksft_print_header();
	ksft_print_msg("%d x86 core PMU models in libpfm4\n", nm);
	if (nm < 40)	/* Debian 12's libpfm4 4.13 has 49 */
		ksft_exit_fail_msg("only %d core PMU models\n", nm);
	ksft_set_plan(nm * CHECKS);

	for (i = 0; i < nm; i++) {
		char line[1024];
		int fds[2], got = 0, status;
		FILE *in;
		pid_t pid;

		if (pipe(fds))
			ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pid) {
			close(fds[0]);
			out = fdopen(fds[1], "w");
			if (!out)
				_exit(2);
			run_model(names[i], amd[i]);
			fclose(out);
			_exit(0);
		}
		close(fds[1]);
		in = fdopen(fds[0], "r");
		while (in && fgets(line, sizeof(line), in)) {
			line[strcspn(line, "\n")] = '\0';
			got++;
			if (line[0] == 'P')
				ksft_test_result_pass("%s\n", line + 1);
			else if (line[0] == 'S')
				ksft_test_result_skip("%s\n", line + 1);
			else
				ksft_test_result_fail("%s\n", line + 1);
		}
		if (in)
			fclose(in);
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ksft_test_result_fail("%s: the child died (status %#x)\n",
					      names[i], status);
		for (; got < CHECKS; got++)
			ksft_test_result_fail("%s: result missing\n", names[i]);
	}
	ksft_finished();
}
