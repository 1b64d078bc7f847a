// SPDX-License-Identifier: BSD-2-Clause
/*
 * pctr(1)'s event list from libpfm4's table of the processor model; see
 * pctr_fmt.h.  Each unit mask is asked of libpfm4's own encoder, so the
 * list shows the selector bits libpfm4 would program, and the default
 * unit mask is the one libpfm4 applies to the bare event.
 */
#include <sys/cdefs.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/pctr.h>
#include <perfmon/pfmlib.h>

#include "pctr_fmt.h"
#define PMC_X86CPU_PFM
#include "../common/pmc_x86cpu.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Selector bits libpfm4 sets that pctr(4) has no use for or refuses. */
#define SEL_EVENT	0x000000ffu
#define SEL_UMASK	0x0000ff00u
#define SEL_CMASK	0xff000000u
#define SEL_PC_INT_ANY	0x00380000u	/* bits 19-21: EINVAL at PCIOCSn */
/* What a unit mask may carry besides its byte: pctr's -e, -i and -t. */
#define SEL_UM_BITS	(SEL_UMASK | PCTR_E | PCTR_I | SEL_CMASK)

static struct ctrfn *pfm_tab;
static uint32_t *pfm_dfl;	/* pctr_pfm_dfl() of each pfm_tab entry */
static size_t pfm_n;
static int pfm_done = -1;	/* the cpu class pfm_tab was built for */

/*
 * Models whose libpfm4 table pctr cannot use: NetBurst's events are ESCR
 * and CCCR settings, not event-select codes, and libpfm4's architectural
 * table (a model it does not know) encodes the unit mask in the event
 * code, which the built-in table does better.
 */
static const char *const pfm_unusable[] = {
	"netburst", "netburst_p", "ix86arch",
};

/* The core PMU libpfm4 detected for the vendor (pmc_x86cpu.h's choice). */
static pfm_pmu_t pfm_core_pmu(int cpu, const char **name)
{
	size_t i;
	pfm_pmu_t pmu;

	if ((cpu != CPU_CORE && cpu != CPU_AMD) ||
	    pfm_initialize() != PFM_SUCCESS)
		return PFM_PMU_NONE;
	*name = NULL;
	pmu = pmc_pfm_core_pmu(cpu == CPU_AMD, name);
	if (pmu == PFM_PMU_NONE || !*name)
		return PFM_PMU_NONE;
	for (i = 0; i < ARRAY_SIZE(pfm_unusable); i++)
		if (!strcmp(*name, pfm_unusable[i]))
			return PFM_PMU_NONE;
	return pmu;
}

/*
 * libpfm4's selector for "pmu::event[:umask]" (user and kernel mode), or
 * 0 when it has none: it refuses the string, needs a second register, or
 * sets a bit pctr(4) refuses.  Only the bits a unit mask may carry are
 * kept; the event byte must be the event's own.
 */
static uint32_t pfm_sel(const char *pmu, const char *ev, const char *um,
			unsigned int code, int *ok)
{
	char str[256];
	uint64_t *codes = NULL;
	uint32_t w = 0;
	int count = 0;

	*ok = 0;
	snprintf(str, sizeof(str), "%s::%s%s%s", pmu, ev, um ? ":" : "",
		 um ? um : "");
	if (pfm_get_event_encoding(str, PFM_PLM0 | PFM_PLM3, NULL, NULL,
				   &codes, &count) == PFM_SUCCESS &&
	    count == 1 && (codes[0] & SEL_EVENT) == code &&
	    !(codes[0] & SEL_PC_INT_ANY & ~0x00100000u)) {
		/* bit 20 (INT) is libpfm4's own choice, not the event's */
		w = (uint32_t)codes[0] & SEL_UM_BITS;
		*ok = 1;
	}
	free(codes);
	return w;
}

/* " -e -i -t N" for the bits of w beyond the unit mask byte. */
static void sel_extras(uint32_t w, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", w & PCTR_E ? " -e" : "",
		 w & PCTR_I ? " -i" : "");
	if (w & SEL_CMASK)
		snprintf(buf + strlen(buf), len - strlen(buf), " -t %u",
			 w >> PCTR_CM_SHIFT);
}

/*
 * Intel's architectural events (CPUID leaf 0xA) that count with unit mask
 * 00 on every model, as OpenBSD's table programs them: instructions, core
 * cycles, branches and mispredicted branches.  libpfm4's default for them
 * is sometimes narrower (Nehalem's c5 default counts mispredicted calls
 * only), so without -m they keep 00.
 */
static bool intel_arch00(int cpu, unsigned int code)
{
	return cpu == CPU_CORE &&
	       (code == 0x3c || code == 0xc0 || code == 0xc4 || code == 0xc5);
}

struct um_scan {
	char *txt;	/* "  Unit masks: A=01, B=02 (default)." */
	int nattrs;	/* unit masks libpfm4 lists */
	int numasks;	/* unit masks -m can select */
	int has00;	/* one of them is plain 00 */
	int dfl;	/* libpfm4 has a default */
};

static void um_add(struct um_scan *s, const char *item)
{
	size_t len = s->txt ? strlen(s->txt) : 0, il = strlen(item);
	char *n = realloc(s->txt, len + il + 1);

	if (!n)
		return;
	s->txt = n;
	memcpy(s->txt + len, item, il + 1);
}

/*
 * The unit masks of event idx as libpfm4 encodes them.  Those that select
 * another event code (libpfm4's pseudo-encodings for fixed counters or
 * other events) or that pctr(4) cannot program are left out.
 */
static void pfm_umasks(const char *pmu, int idx, const pfm_event_info_t *ev,
		       bool arch00, struct um_scan *s)
{
	pfm_event_attr_info_t a;
	char item[192], extra[32];
	uint32_t w;
	int i, ok;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < ev->nattrs; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE, &a) !=
		    PFM_SUCCESS || a.type != PFM_ATTR_UMASK)
			continue;
		s->nattrs++;
		w = pfm_sel(pmu, ev->name, a.name, (unsigned int)ev->code, &ok);
		if (!ok)
			continue;
		sel_extras(w, extra, sizeof(extra));
		snprintf(item, sizeof(item), "%s%s=%02x%s%s%s",
			 s->numasks ? ", " : "  Unit masks: ", a.name,
			 (w & SEL_UMASK) >> PCTR_UM_SHIFT,
			 *extra ? " with" : "", extra,
			 a.is_dfl && !arch00 ? " (default)" : "");
		if (!w)
			s->has00 = 1;
		if (a.is_dfl)
			s->dfl = 1;
		s->numasks++;
		um_add(s, item);
	}
	if (s->txt)
		um_add(s, arch00 ? ".  Without -m: 00." : ".");
}

/* ev's description followed by the unit mask text. */
static char *pfm_desc(const pfm_event_info_t *ev, const char *um)
{
	const char *d = ev->desc ? ev->desc : "";
	size_t dl = strlen(d), len = dl + (um ? strlen(um) : 0) + 2;
	char *desc = malloc(len);

	if (desc)
		snprintf(desc, len, "%s%s%s", d,
			 um && dl && d[dl - 1] != '.' ? "." : "", um ? um : "");
	return desc;
}

/*
 * The flags of a libpfm4 event for pctr: an event with unit masks of
 * which none is the default and none is plain 00 needs -m; with a
 * default, that default applies without -m.  Both vendors alike.
 */
static void pfm_flags(int cpu, struct ctrfn *f, uint32_t *dfl,
		      const char *pmu, const pfm_event_info_t *ev,
		      const struct um_scan *s, const struct ctrfn *hand,
		      size_t nhand)
{
	uint32_t w;
	size_t i;
	int ok = 0;

	f->flags = CFL_PFM;
	*dfl = 0;
	w = pfm_sel(pmu, ev->name, NULL, (unsigned int)ev->code, &ok);
	if (intel_arch00(cpu, f->fn)) {
		/* 00, with or without -m */
	} else if (s->numasks && s->dfl && ok && w) {
		f->flags |= CFL_DFL;
		*dfl = w;
	} else if (s->numasks && !s->has00 && !(s->dfl && ok)) {
		f->flags |= CFL_UM;
	}
	for (i = 0; i < nhand; i++)
		if (hand[i].fn == f->fn)
			f->flags |= hand[i].flags & (CFL_MESI | CFL_SA | CFL_ED);
}

/*
 * Whether pctr can program event idx at all: libpfm4 encodes it, bare or
 * with one of its unit masks, in one event-select word pctr(4) takes.
 * Events that need a second register (the load-latency threshold, the
 * offcore response) or that this model does not have are left out.
 */
static bool pfm_usable(const char *pmu, const pfm_event_info_t *ev,
		       const struct um_scan *s)
{
	int ok;

	if (s->nattrs)
		return s->numasks > 0;
	pfm_sel(pmu, ev->name, NULL, (unsigned int)ev->code, &ok);
	return ok;
}

/*
 * libpfm4's events for the model, as pctr list entries: event code (only
 * the 8-bit ones -f can name), libpfm4's name, its description and unit
 * masks.  The MESI, any-agent and edge flags of the built-in table carry
 * over.  One entry per code: libpfm4's Intel tables also have the
 * architectural aliases (INSTRUCTION_RETIRED for INST_RETIRED), and the
 * event with the most unit masks, the model's own, wins.
 */
static void pfm_build(int cpu, const struct ctrfn *hand, size_t nhand)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t ev;
	const char *pmu_name;
	pfm_pmu_t pmu = pfm_core_pmu(cpu, &pmu_name);
	uint32_t *dfl;
	int *numasks;
	struct ctrfn *t;
	int idx;
	size_t i;

	pfm_done = cpu;
	if (pmu == PFM_PMU_NONE)
		return;
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || pinfo.nevents <= 0)
		return;
	t = calloc((size_t)pinfo.nevents, sizeof(*t));
	numasks = calloc((size_t)pinfo.nevents, sizeof(*numasks));
	dfl = calloc((size_t)pinfo.nevents, sizeof(*dfl));
	if (!t || !numasks || !dfl) {
		free(t);
		free(numasks);
		free(dfl);
		return;
	}
	for (idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		struct ctrfn *f = &t[pfm_n];
		struct um_scan s;

		memset(&ev, 0, sizeof(ev));
		ev.size = sizeof(ev);
		if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS ||
		    ev.code > PCTR_MAX_FUNCT || pfm_n >= (size_t)pinfo.nevents)
			continue;
		pfm_umasks(pmu_name, idx, &ev,
			   intel_arch00(cpu, (unsigned int)ev.code), &s);
		if (!pfm_usable(pmu_name, &ev, &s)) {
			free(s.txt);
			continue;
		}
		for (i = 0; i < pfm_n; i++)
			if (t[i].fn == ev.code)
				break;
		if (i < pfm_n) {
			if (s.numasks <= numasks[i]) {
				free(s.txt);
				continue;
			}
			free((char *)t[i].name);
			free((char *)t[i].desc);
			f = &t[i];
		} else {
			pfm_n++;
		}
		numasks[f - t] = s.numasks;
		f->fn = (uint32_t)ev.code;
		f->name = strdup(ev.name);
		f->desc = pfm_desc(&ev, s.txt);
		free(s.txt);
		pfm_flags(cpu, f, &dfl[f - t], pmu_name, &ev, &s, hand, nhand);
		if (!f->name)
			f->name = "?";
	}
	free(numasks);
	if (!pfm_n) {
		free(t);
		free(dfl);
		return;
	}
	/* in code order, as the built-in tables */
	for (i = 1; i < pfm_n; i++) {
		struct ctrfn x = t[i];
		uint32_t xd = dfl[i];
		size_t j = i;

		for (; j > 0 && t[j - 1].fn > x.fn; j--) {
			t[j] = t[j - 1];
			dfl[j] = dfl[j - 1];
		}
		t[j] = x;
		dfl[j] = xd;
	}
	pfm_tab = t;
	pfm_dfl = dfl;
}

uint32_t pctr_pfm_dfl(const struct ctrfn *fn)
{
	if (!pfm_tab || fn < pfm_tab || fn >= pfm_tab + pfm_n)
		return 0;
	return pfm_dfl[fn - pfm_tab];
}

const struct ctrfn *pctr_pfm_table(int cpu, const struct ctrfn *hand,
				   size_t nhand, size_t *n)
{
	if (pfm_done < 0)
		pfm_build(cpu, hand, nhand);
	if (pfm_done != cpu || !pfm_tab)
		return NULL;
	*n = pfm_n;
	return pfm_tab;
}
