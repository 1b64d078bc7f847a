// SPDX-License-Identifier: BSD-2-Clause
/*
 * pctr(1) logic without I/O; see pctr_fmt.h.
 */
#include <sys/cdefs.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/pctr.h>

#include "pctr_fmt.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/*
 * Intel Core: the architectural events of CPUID leaf 0xA first, then
 * common model-specific events that exist from Nehalem/Sandy Bridge on,
 * and the Core 2 events that take MESI or any-agent unit-mask bits.
 * Most model-specific events mean nothing without a unit mask, so they
 * are CFL_UM and pctr insists on -m.  Not 3c, whose unit mask 00 is the
 * architectural core-cycles event (OpenBSD's table marks it, so that
 * core cycles cannot be counted there).
 */
static const struct ctrfn corefn[] = {
	{ 0x3c, 0, "CPU_CLK_UNHALTED",
	  "Cycles in which the core is not halted.  Unit mask 00 counts core "
	  "clock cycles at the current frequency, 01 counts reference cycles "
	  "at a fixed rate." },
	{ 0xc0, 0, "INST_RETIRED",
	  "Instructions retired (completed and not cancelled)." },
	{ 0x2e, CFL_UM, "LONGEST_LAT_CACHE",
	  "Requests that reach the last-level cache.  Unit mask 4f counts all "
	  "references, 41 counts the references that miss." },
	{ 0xc4, 0, "BR_INST_RETIRED",
	  "Branch instructions retired." },
	{ 0xc5, 0, "BR_MISP_RETIRED",
	  "Mispredicted branch instructions retired." },
	{ 0x08, CFL_UM, "DTLB_LOAD_MISSES",
	  "Loads that miss the first-level data TLB; the unit mask chooses "
	  "between misses, page walks started and page walks completed." },
	{ 0x0e, CFL_UM, "UOPS_ISSUED",
	  "Micro-operations sent from the front end to the out-of-order "
	  "engine.  Unit mask 01 counts all of them." },
	{ 0x14, CFL_UM, "ARITH",
	  "Cycles during which the divider is busy (unit mask 01 on most "
	  "cores)." },
	{ 0x24, CFL_UM, "L2_RQSTS",
	  "Requests to the L2 cache; the unit mask selects the request type "
	  "(demand loads, stores, code fetches, prefetches) and hit or miss." },
	{ 0x40, CFL_MESI, "L1D_CACHE_LD",
	  "Core 2 and Nehalem: loads from the L1 data cache, by the MESI "
	  "state of the line (-M, -E, -S, -I; all four by default)." },
	{ 0x41, CFL_MESI, "L1D_CACHE_ST",
	  "Core 2 and Nehalem: stores to the L1 data cache, by the MESI state "
	  "of the line." },
	{ 0x42, CFL_MESI, "L1D_CACHE_LOCK",
	  "Core 2 and Nehalem: locked loads from the L1 data cache, by the "
	  "MESI state of the line." },
	{ 0x48, CFL_UM, "L1D_PEND_MISS",
	  "Outstanding L1 data cache misses, counted per cycle; with a "
	  "threshold of 1 it gives the cycles with at least one pending "
	  "miss." },
	{ 0x49, CFL_UM, "DTLB_STORE_MISSES",
	  "Stores that miss the first-level data TLB; the unit mask selects "
	  "misses or page walks." },
	{ 0x51, CFL_UM, "L1D",
	  "Lines brought into the L1 data cache (unit mask 01)." },
	{ 0x60, CFL_UM, "OFFCORE_REQUESTS_OUTSTANDING",
	  "Requests to the uncore waiting for data, counted per cycle; the "
	  "unit mask selects the request type." },
	{ 0x6f, CFL_SA, "BUS_TRANS_MEM",
	  "Core 2: memory transactions on the front-side bus, by this "
	  "processor or, with -A, by any bus agent." },
	{ 0x70, CFL_SA, "BUS_TRANS_ANY",
	  "Core 2: all transactions on the front-side bus, by this processor "
	  "or, with -A, by any bus agent." },
	{ 0x80, CFL_UM, "ICACHE",
	  "Instruction cache activity: fetches, misses or fetch stalls, "
	  "depending on the unit mask and the core generation." },
	{ 0x85, CFL_UM, "ITLB_MISSES",
	  "Code fetches that miss the first-level instruction TLB; the unit "
	  "mask selects misses or page walks." },
	{ 0x87, CFL_UM, "ILD_STALL",
	  "Cycles the instruction length decoder is stalled, e.g. by "
	  "length-changing prefixes (unit mask 01)." },
	{ 0x9c, CFL_UM, "IDQ_UOPS_NOT_DELIVERED",
	  "Issue slots the front end left empty while the back end could "
	  "have taken micro-operations (unit mask 01)." },
	{ 0xa2, CFL_UM, "RESOURCE_STALLS",
	  "Cycles issue was stalled because a back-end resource (load or "
	  "store buffer, reservation station, reorder buffer) was full." },
	{ 0xa3, CFL_UM, "CYCLE_ACTIVITY",
	  "Cycles with outstanding memory loads or execution stalls; the "
	  "unit mask and a threshold select the condition." },
	{ 0xb0, CFL_UM, "OFFCORE_REQUESTS",
	  "Requests sent from the core to the uncore; the unit mask selects "
	  "the request type." },
	{ 0xc2, CFL_UM, "UOPS_RETIRED",
	  "Micro-operations retired; the unit mask selects all of them or "
	  "the retirement slots used." },
	{ 0xc3, CFL_UM, "MACHINE_CLEARS",
	  "Pipeline clears caused by memory ordering, self-modifying code or "
	  "assists, selected by the unit mask." },
	{ 0xc7, CFL_UM, "FP_ARITH_INST_RETIRED",
	  "Floating-point arithmetic instructions retired; the unit mask "
	  "selects scalar or packed, single or double precision." },
	{ 0xca, CFL_UM, "FP_ASSIST",
	  "Cycles with floating-point operations that needed a microcode "
	  "assist." },
	{ 0xd0, CFL_UM, "MEM_INST_RETIRED",
	  "Memory instructions retired; the unit mask selects loads or "
	  "stores and refinements such as locked, split or TLB missing "
	  "accesses." },
	{ 0xd1, CFL_UM, "MEM_LOAD_RETIRED",
	  "Retired load instructions by where the data came from: L1, L2 or "
	  "L3 hit or miss, or a fill buffer, according to the unit mask." },
	{ 0xe6, CFL_UM, "BACLEARS",
	  "Front-end re-steers: the decoder corrected the branch predictor's "
	  "target." },
	{ 0xf0, CFL_UM, "L2_TRANS",
	  "Transactions that access the L2 cache, by type." },
	{ 0xf1, CFL_UM, "L2_LINES_IN",
	  "Lines filled into the L2 cache, by the state of the line." },
	{ 0xf2, CFL_UM, "L2_LINES_OUT",
	  "Lines evicted from the L2 cache, clean or dirty." },
};

/*
 * AMD: the classic K8 / family 10h core events.  On Zen some numbers
 * count something related but not identical; the core events (cycles,
 * retired instructions and branches) keep their meaning.
 */
static const struct ctrfn amdfn[] = {
	{ 0x00, 0, "Dispatched FPU operations",
	  "Operations dispatched to the FPU pipes; the unit mask selects "
	  "the pipes (add, multiply, store) and fast-path or not." },
	{ 0x01, 0, "Cycles with no FPU operations retired", NULL },
	{ 0x02, 0, "Dispatched fast flag FPU operations", NULL },
	{ 0x20, 0, "Segment register loads",
	  "The unit mask selects the segment registers (ES, CS, SS, DS, FS, "
	  "GS, HS)." },
	{ 0x21, 0, "Pipeline restarts due to self-modifying code", NULL },
	{ 0x22, 0, "Pipeline restarts due to probe hits", NULL },
	{ 0x23, 0, "LS buffer 2 full", NULL },
	{ 0x24, 0, "Locked operations",
	  "Locked instructions executed and the cycles spent on them, "
	  "according to the unit mask." },
	{ 0x40, 0, "Data cache accesses", NULL },
	{ 0x41, 0, "Data cache misses", NULL },
	{ 0x42, 0, "Data cache refills from L2 or system",
	  "The unit mask selects the MOESI state of the line filled." },
	{ 0x43, 0, "Data cache refills from system",
	  "The unit mask selects the MOESI state of the line filled." },
	{ 0x44, 0, "Data cache lines evicted",
	  "The unit mask selects the MOESI state of the line evicted." },
	{ 0x45, 0, "L1 DTLB misses that hit the L2 DTLB", NULL },
	{ 0x46, 0, "L1 and L2 DTLB misses", NULL },
	{ 0x47, 0, "Misaligned data accesses", NULL },
	{ 0x48, 0, "Microarchitectural late cancels of an access", NULL },
	{ 0x49, 0, "Microarchitectural early cancels of an access", NULL },
	{ 0x4a, 0, "Single-bit ECC errors found by the scrubber", NULL },
	{ 0x4b, 0, "Prefetch instructions dispatched",
	  "The unit mask selects load, store or non-temporal prefetches." },
	{ 0x4c, 0, "Data cache misses by locked instructions", NULL },
	{ 0x65, 0, "Memory requests by type",
	  "Requests to non-cacheable, write-combining or streaming-store "
	  "memory, selected by the unit mask." },
	{ 0x67, 0, "Data prefetcher requests", NULL },
	{ 0x6c, 0, "System read responses by coherency state", NULL },
	{ 0x6d, 0, "Quadwords written to system", NULL },
	{ 0x76, 0, "CPU clocks not halted", NULL },
	{ 0x7d, 0, "Requests to the L2 cache",
	  "The unit mask selects instruction fetches, data fills, TLB "
	  "walks, snoops or prefetches." },
	{ 0x7e, 0, "L2 cache misses",
	  "The unit mask selects instruction fetches, data fills, TLB walks "
	  "or prefetches." },
	{ 0x7f, 0, "L2 fills and writebacks", NULL },
	{ 0x80, 0, "Instruction cache fetches", NULL },
	{ 0x81, 0, "Instruction cache misses", NULL },
	{ 0x82, 0, "Instruction cache refills from L2", NULL },
	{ 0x83, 0, "Instruction cache refills from system", NULL },
	{ 0x84, 0, "L1 ITLB misses that hit the L2 ITLB", NULL },
	{ 0x85, 0, "L1 and L2 ITLB misses", NULL },
	{ 0x86, 0, "Pipeline restarts due to instruction stream probes",
	  NULL },
	{ 0x87, 0, "Instruction fetch stall cycles", NULL },
	{ 0x88, 0, "Return stack hits", NULL },
	{ 0x89, 0, "Return stack overflows", NULL },
	{ 0xc0, 0, "Retired instructions", NULL },
	{ 0xc1, 0, "Retired micro-ops", NULL },
	{ 0xc2, 0, "Retired branches", NULL },
	{ 0xc3, 0, "Retired mispredicted branches", NULL },
	{ 0xc4, 0, "Retired taken branches", NULL },
	{ 0xc5, 0, "Retired taken branches mispredicted", NULL },
	{ 0xc6, 0, "Retired far control transfers", NULL },
	{ 0xc7, 0, "Retired branch resyncs", NULL },
	{ 0xc8, 0, "Retired near returns", NULL },
	{ 0xc9, 0, "Retired near returns mispredicted", NULL },
	{ 0xca, 0, "Retired indirect branches mispredicted", NULL },
	{ 0xcb, 0, "Retired MMX and FP instructions",
	  "The unit mask selects x87, MMX/3DNow! or SSE instructions." },
	{ 0xcc, 0, "Retired fastpath double-op instructions", NULL },
	{ 0xcd, 0, "Cycles with interrupts masked", NULL },
	{ 0xce, 0, "Cycles with interrupts masked while one is pending",
	  NULL },
	{ 0xcf, 0, "Interrupts taken", NULL },
	{ 0xd0, 0, "Decoder empty cycles", NULL },
	{ 0xd1, 0, "Dispatch stall cycles", NULL },
	{ 0xd2, 0, "Dispatch stalls waiting for a branch abort to retire",
	  NULL },
	{ 0xd3, 0, "Dispatch stalls for serialization", NULL },
	{ 0xd4, 0, "Dispatch stalls for segment loads", NULL },
	{ 0xd5, 0, "Dispatch stalls with the reorder buffer full", NULL },
	{ 0xd6, 0, "Dispatch stalls with the reservation stations full",
	  NULL },
	{ 0xd7, 0, "Dispatch stalls with the FPU full", NULL },
	{ 0xd8, 0, "Dispatch stalls with the load/store unit full", NULL },
	{ 0xd9, 0, "Dispatch stalls waiting for all quiet", NULL },
	{ 0xda, 0, "Dispatch stalls waiting for a far transfer or resync",
	  NULL },
	{ 0xdb, 0, "FPU exceptions", NULL },
	{ 0xdc, 0, "DR0 breakpoint matches", NULL },
	{ 0xdd, 0, "DR1 breakpoint matches", NULL },
	{ 0xde, 0, "DR2 breakpoint matches", NULL },
	{ 0xdf, 0, "DR3 breakpoint matches", NULL },
};

int pctr_cpu_type(const char *machine, const char *vendor, uint32_t cpu_id)
{
	(void)cpu_id;	/* amd64 classifies by vendor alone */
	if (strcmp(machine, "amd64") != 0)
		return -1;
	if (strcmp(vendor, "AuthenticAMD") == 0)
		return CPU_AMD;
	if (strcmp(vendor, "GenuineIntel") == 0)
		return CPU_CORE;
	return CPU_UNDEF;
}

int pctr_num_counters(int cpu)
{
	switch (cpu) {
	case CPU_CORE:
	case CPU_AMD:
		return PCTR_NUM;
	default:
		return 0;
	}
}

const char *pctr_usage_args(int cpu)
{
	switch (cpu) {
	case CPU_CORE:
		return "[-AEeIiklMSu] [-f funct] [-m umask] [-s ctr] [-t thold]";
	case CPU_AMD:
		return "[-eilku] [-f funct] [-m umask] [-s ctr] [-t thold]";
	default:
		return "[-l]";
	}
}

/* Options each CPU class accepts, as its usage line shows them. */
static const char *cpu_opts(int cpu)
{
	switch (cpu) {
	case CPU_CORE:
		return "AEeIiklMSufmst";
	case CPU_AMD:
		return "eilkufmst";
	default:
		return "l";
	}
}

void pctr_opts_init(struct pctr_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ctr = -1;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__printflike(3, 4);

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* A hex byte the way sscanf("%x") reads it. */
static int parse_hex(const char *arg, unsigned int max, unsigned int *val)
{
	unsigned int v;

	if (!arg || sscanf(arg, "%x", &v) != 1 || v > max)
		return -1;
	*val = v;
	return 0;
}

int pctr_apply_opt(int cpu, struct pctr_opts *o, int ch, const char *arg,
		   char *err, size_t errlen)
{
	const char *errstr = NULL;
	long long v;

	if (ch <= 0 || ch == ':' || !strchr(cpu_opts(cpu), ch))
		return PCTR_OPT_USAGE;
	if (ch != 'l' && ch != 's')
		o->set_opts = true;

	switch (ch) {
	case 'A':
		o->any = true;
		break;
	case 'c':
		o->cycles = true;
		break;
	case 'E':
		o->mesi_e = true;
		break;
	case 'e':
		o->edge = true;
		break;
	case 'f':
		if (parse_hex(arg, PCTR_MAX_FUNCT, &o->func) < 0) {
			set_err(err, errlen, "invalid function number");
			return PCTR_OPT_ERR;
		}
		break;
	case 'I':
		o->mesi_i = true;
		break;
	case 'i':
		o->inv = true;
		break;
	case 'k':
		o->kernel = true;
		break;
	case 'l':
		o->list = true;
		break;
	case 'M':
		o->mesi_m = true;
		break;
	case 'm':
		if (parse_hex(arg, PCTR_MAX_UMASK, &o->umask) < 0) {
			set_err(err, errlen, "invalid unit mask number");
			return PCTR_OPT_ERR;
		}
		o->umask_set = true;
		break;
	case 'S':
		o->mesi_s = true;
		break;
	case 's':
		v = strtonum(arg ? arg : "", 0, PCTR_NUM - 1, &errstr);
		if (errstr) {
			set_err(err, errlen, "counter number is %s: %s",
				errstr, arg ? arg : "");
			return PCTR_OPT_ERR;
		}
		o->ctr = (int)v;
		break;
	case 't':
		v = strtonum(arg ? arg : "", 0, PCTR_MAX_THOLD, &errstr);
		if (errstr) {
			set_err(err, errlen, "threshold is %s: %s",
				errstr, arg ? arg : "");
			return PCTR_OPT_ERR;
		}
		o->thold = (unsigned int)v;
		break;
	case 'u':
		o->user = true;
		break;
	default:
		return PCTR_OPT_USAGE;
	}
	return PCTR_OPT_OK;
}

int pctr_check_opts(const struct pctr_opts *o)
{
	if (o->any && (o->mesi_m || o->mesi_e || o->mesi_s || o->mesi_i))
		return PCTR_OPT_USAGE;
	/* Setting options without -s would otherwise be dropped silently. */
	if (!o->list && o->ctr < 0 && o->set_opts)
		return PCTR_OPT_USAGE;
	return PCTR_OPT_OK;
}

static const struct ctrfn *hand_events(int cpu, size_t *n)
{
	switch (cpu) {
	case CPU_CORE:
		*n = ARRAY_SIZE(corefn);
		return corefn;
	case CPU_AMD:
		*n = ARRAY_SIZE(amdfn);
		return amdfn;
	default:
		*n = 0;
		return NULL;
	}
}

const struct ctrfn *pctr_events(int cpu, size_t *n)
{
	const struct ctrfn *hand = hand_events(cpu, n);
	const struct ctrfn *pfm;
	size_t npfm;

	pfm = pctr_pfm_table(cpu, hand, *n, &npfm);
	if (pfm) {
		*n = npfm;
		return pfm;
	}
	return hand;
}

int pctr_prints_tsc(int cpu, int tsc_avail)
{
	/* OpenBSD's pctr prints nothing at all for an unknown processor */
	return tsc_avail && pctr_num_counters(cpu) > 0;
}

const struct ctrfn *pctr_find_event(int cpu, unsigned int fn)
{
	const struct ctrfn *tab;
	size_t i, n;

	tab = pctr_events(cpu, &n);
	for (i = 0; i < n; i++)
		if (tab[i].fn == fn)
			return &tab[i];
	return NULL;
}

/*
 * Whether fn needs -m: as OpenBSD, a built-in table's CFL_UM event wants a
 * unit mask other than 0; for libpfm4's table -m itself is enough, -m 0
 * included (0 is a unit mask there like any other).
 */
static bool needs_umask(const struct ctrfn *fn, const struct pctr_opts *o)
{
	if (!(fn->flags & CFL_UM))
		return false;
	if (fn->flags & CFL_PFM)
		return !o->umask_set;
	return !o->umask;
}

int pctr_build_sel(int cpu, const struct pctr_opts *o, uint32_t *sel,
		   char *err, size_t errlen)
{
	unsigned int umask = o->umask, mesi = 0, thold = o->thold;
	const struct ctrfn *fn = NULL;
	uint32_t val = 0;
	int n = pctr_num_counters(cpu);

	if (o->ctr < 0 || o->ctr >= n) {
		set_err(err, errlen, "only %d counters are supported", n);
		return -1;
	}

	/* As OpenBSD: a code outside the table is refused, on AMD too. */
	if ((cpu == CPU_CORE || cpu == CPU_AMD) && o->func) {
		fn = pctr_find_event(cpu, o->func);
		if (!fn) {
			set_err(err, errlen, "function %02x is not supported",
				o->func);
			return -1;
		}
		if (needs_umask(fn, o)) {
			set_err(err, errlen,
				"function %02x needs unit mask specification",
				o->func);
			return -1;
		}
		/* libpfm4's default unit mask when -m is absent */
		if ((fn->flags & CFL_DFL) && !o->umask_set) {
			uint32_t dfl = pctr_pfm_dfl(fn);

			umask = (dfl >> PCTR_UM_SHIFT) & 0xff;
			val |= dfl & (PCTR_E | PCTR_I);
			if (!thold)
				thold = dfl >> PCTR_CM_SHIFT;
		}
	}

	if (cpu == CPU_CORE && fn) {
		if ((fn->flags & CFL_SA) && o->any)
			umask |= PCTR_UM_A >> PCTR_UM_SHIFT;
		if (fn->flags & CFL_MESI) {
			if (o->mesi_m)
				mesi |= PCTR_UM_M;
			if (o->mesi_e)
				mesi |= PCTR_UM_E;
			if (o->mesi_s)
				mesi |= PCTR_UM_S;
			if (o->mesi_i)
				mesi |= PCTR_UM_I;
			if (!mesi)
				mesi = PCTR_UM_MESI;
			/* the letters replace a default's MESI bits */
			if ((fn->flags & CFL_DFL) && !o->umask_set)
				umask &= ~(PCTR_UM_MESI >> PCTR_UM_SHIFT);
			umask |= mesi >> PCTR_UM_SHIFT;
		}
		if (fn->flags & CFL_ED)
			val |= PCTR_E;
	}

	if (o->edge)
		val |= PCTR_E;
	if (o->inv)
		val |= PCTR_I;
	if (o->kernel)
		val |= PCTR_K;
	if (o->user)
		val |= PCTR_U;
	if (o->func && !o->kernel && !o->user)
		val |= PCTR_K | PCTR_U;
	val |= (uint32_t)umask << PCTR_UM_SHIFT;
	val |= (uint32_t)thold << PCTR_CM_SHIFT;
	val |= o->func;
	if (o->func)
		val |= PCTR_EN;

	*sel = val;
	return 0;
}

/*
 * The Pentium events pctr(4) takes (module/pctr/pctr.c): a word below
 * 0x200 with P5CTR_U or P5CTR_K is one of these, on either vendor.
 */
static const struct ctrfn p5fn[] = {
	{ 0x00, 0, "data read", NULL },
	{ 0x01, 0, "data write", NULL },
	{ 0x03, 0, "data read miss", NULL },
	{ 0x0d, 0, "code TLB miss", NULL },
	{ 0x0e, 0, "code cache miss", NULL },
	{ 0x12, 0, "branches", NULL },
	{ 0x16, 0, "instructions executed", NULL },
};

#define P5CTR_LIMIT	0x200
#define P5CTR_EVENT	0x3f

bool pctr_is_p5(uint32_t sel)
{
	return sel && sel < P5CTR_LIMIT && (sel & (P5CTR_U | P5CTR_K));
}

/* OpenBSD's Pentium decoding: "%c%c%c %02x %s" (c, u, k; event; name). */
static void decode_p5(uint32_t sel, char *buf, size_t len)
{
	const char *name = "unknown function";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(p5fn); i++)
		if (p5fn[i].fn == (sel & P5CTR_EVENT))
			name = p5fn[i].name;
	snprintf(buf, len, "%c%c%c %02x %s", sel & P5CTR_C ? 'c' : '-',
		 sel & P5CTR_U ? 'u' : '-', sel & P5CTR_K ? 'k' : '-',
		 sel & P5CTR_EVENT, name);
}

void pctr_decode_sel(int cpu, uint32_t sel, char *buf, size_t len)
{
	const struct ctrfn *fn;
	unsigned int event = sel & 0xff;
	unsigned int umask = (sel >> PCTR_UM_SHIFT) & 0xff;
	unsigned int thold = sel >> PCTR_CM_SHIFT;
	char th[8] = "", um[5] = "";
	char fi = sel & PCTR_I ? 'i' : '-';
	char fe = sel & PCTR_E ? 'e' : '-';
	char fk = sel & PCTR_K ? 'k' : '-';
	char fu = sel & PCTR_U ? 'u' : '-';

	if (!len)
		return;
	buf[0] = '\0';
	if (thold)
		snprintf(th, sizeof(th), "+%u", thold);
	if ((cpu == CPU_CORE || cpu == CPU_AMD) && pctr_is_p5(sel)) {
		decode_p5(sel, buf, len);
		return;
	}

	switch (cpu) {
	case CPU_CORE:
		fn = pctr_find_event(cpu, event);
		if (fn && (fn->flags & CFL_MESI)) {
			um[0] = sel & PCTR_UM_M ? 'M' : '-';
			um[1] = sel & PCTR_UM_E ? 'E' : '-';
			um[2] = sel & PCTR_UM_S ? 'S' : '-';
			um[3] = sel & PCTR_UM_I ? 'I' : '-';
			um[4] = '\0';
		} else if (fn && (fn->flags & CFL_SA)) {
			um[0] = sel & PCTR_UM_A ? 'A' : '-';
			um[1] = '\0';
		}
		snprintf(buf, len, "%c%c%c%c %02x %02x %s %s %s",
			 fi, fe, fk, fu, event, umask, th, um,
			 fn ? fn->name : "unknown function");
		break;
	case CPU_AMD:
		snprintf(buf, len, "%c%c%c%c %02x %02x %s",
			 fi, fe, fk, fu, event, umask, th);
		break;
	default:
		break;
	}
}

int pctr_fmt_counter(char *buf, size_t len, int cpu, int ctr, uint32_t sel,
		     uint64_t val)
{
	char dec[128];

	pctr_decode_sel(cpu, sel, dec, sizeof(dec));
	return snprintf(buf, len, " ctr%d = %16llu  [%s]\n", ctr,
			(unsigned long long)val, dec);
}

int pctr_fmt_tsc(char *buf, size_t len, uint64_t tsc)
{
	return snprintf(buf, len, "  tsc = %16llu\n", (unsigned long long)tsc);
}

/* snprintf-style appender: counts what it could not store. */
struct sbuf {
	char *buf;
	size_t len;
	size_t pos;
};

static void sb_printf(struct sbuf *sb, const char *fmt, ...)
	__printflike(2, 3);

static void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	size_t room = sb->pos < sb->len ? sb->len - sb->pos : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? sb->buf + sb->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->pos += (size_t)n;
}

/*
 * OpenBSD's rule: a description shorter than PCTR_WRAP_WHOLE is printed
 * whole; a longer one is broken at the last space before character
 * PCTR_WRAP_BREAK (a word without such a space is printed whole up to
 * the next space).  Every line is indented by PCTR_WRAP_INDENT.
 */
static void fmt_desc(struct sbuf *sb, const char *p)
{
	size_t rest, cut, i;

	while (*p == ' ')
		p++;
	while (*p) {
		rest = strlen(p);
		if (rest < PCTR_WRAP_WHOLE) {
			cut = rest;
		} else {
			cut = 0;
			for (i = 0; i < PCTR_WRAP_BREAK && i < rest; i++)
				if (p[i] == ' ')
					cut = i;
			if (!cut)
				cut = strcspn(p, " ");
		}
		sb_printf(sb, "%*s%.*s\n", PCTR_WRAP_INDENT, "", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

size_t pctr_fmt_event(char *buf, size_t len, const struct ctrfn *fn)
{
	struct sbuf sb = { buf, len, 0 };

	if (len)
		buf[0] = '\0';

	sb_printf(&sb, "%02x  %s", fn->fn, fn->name);
	if (fn->flags & CFL_MESI)
		sb_printf(&sb, "  (MESI)");
	else if (fn->flags & CFL_SA)
		sb_printf(&sb, "  (A)");
	if (fn->flags & CFL_C0)
		sb_printf(&sb, "  (ctr0 only)");
	else if (fn->flags & CFL_C1)
		sb_printf(&sb, "  (ctr1 only)");
	if (fn->flags & CFL_UM)
		sb_printf(&sb, "  (needs unit mask)");
	sb_printf(&sb, "\n");
	if (fn->desc)
		fmt_desc(&sb, fn->desc);
	return sb.pos;
}
