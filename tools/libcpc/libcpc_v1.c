// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The obsolete Solaris libcpc version 1 interface (Solaris 8 and 9), as a
 * layer over the version 2 calls of libcpc.c, the way Solaris 10 kept it.
 *
 * A v1 event (cpc_event_t, x86 form) describes two counters by the images
 * of their P6 event-select registers (ce_pes[]): event code, unit mask,
 * USR, OS, edge, PC, INT, EN, INV and counter mask.  cpc_strtoevent() makes
 * them from a "pic0=...,pic1=...,sys,nouser,..." specification with the
 * event names of events.c; a bind turns each used image back into a
 * version 2 request for the raw event code with its attributes, so only
 * events that are raw x86 event-select codes can be described (not the
 * PAPI_* generic events, nor Linux software events).
 *
 * The calling thread's v1 binding is thread-local state; the bindings made
 * through libpctx are kept in a list under v1_lock.  Every binding is a
 * set of one shared cpc_t, opened on first use.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <linux/perf_event.h>

#include "libcpc_impl.h"

/* P6 event-select (PerfEvtSel) fields */
#define PES_EVENT	0x000000ffU
#define PES_UMASK_SHIFT	8
#define PES_USR		(1U << 16)
#define PES_OS		(1U << 17)
#define PES_E		(1U << 18)
#define PES_PC		(1U << 19)
#define PES_INT		(1U << 20)
#define PES_ANY		(1U << 21)
#define PES_EN		(1U << 22)
#define PES_INV		(1U << 23)
#define PES_CMASK_SHIFT	24

#define V1_NPIC		2
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))
#define V1_BIND_FLAGS	(CPC_BIND_LWP_INHERIT | CPC_BIND_EMT_OVF)

/* One v1 binding: a version 2 set and buffer, and what it was made from. */
struct v1_bind {
	cpc_set_t *set;
	cpc_buf_t *buf;
	int idx[V1_NPIC];		/* request index of each counter, or -1 */
	int cpuver;
	uint32_t pes[V1_NPIC];
	int flags;
};

/* A binding to an LWP of a libpctx process. */
struct v1_pctx {
	struct v1_pctx *next;
	pctx_t *pctx;
	id_t lwpid;
	int invalid;			/* cpc_pctx_invalidate(): EAGAIN */
	struct v1_bind b;
};

static pthread_mutex_t v1_lock = PTHREAD_MUTEX_INITIALIZER;
static cpc_errfn_t *v1_errfn;
static cpc_t *v1_cpc;			/* the shared handle, under v1_lock */
static struct cpcev_cpu v1_cpu;
static int v1_have_cpu;
static struct v1_pctx *v1_pctxs;

static __thread struct v1_bind v1_self;	/* set == NULL: not bound */
static __thread const char *v1_fn;	/* the v1 call in progress */

/* ---- errors ------------------------------------------------------------- */

static void v1_verr(const char *fn, const char *fmt, va_list ap)
{
	cpc_errfn_t *errfn = __atomic_load_n(&v1_errfn, __ATOMIC_ACQUIRE);
	int saved = errno;

	if (errfn) {
		errfn(fn, fmt, ap);
	} else {
		fprintf(stderr, "libcpc: %s: ", fn);
		vfprintf(stderr, fmt, ap);
	}
	errno = saved;
}

static void v1_err(const char *fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	v1_verr(fn, fmt, ap);
	va_end(ap);
}

/* The version 2 handle's errors go to the v1 handler, as the v1 call's. */
static void v1_bridge(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode;
	v1_verr(v1_fn ? v1_fn : fn, fmt, ap);
}

CPC_EXPORT void cpc_seterrfn(cpc_errfn_t *errfn)
{
	__atomic_store_n(&v1_errfn, errfn, __ATOMIC_RELEASE);
}

/* ---- the processor ------------------------------------------------------- */

/* For the unit tests: describe another processor. */
void __cpc_v1_set_cpu(const struct cpcev_cpu *cpu)
{
	pthread_mutex_lock(&v1_lock);
	v1_cpu = *cpu;
	v1_have_cpu = 1;
	pthread_mutex_unlock(&v1_lock);
}

static const struct cpcev_cpu *v1_get_cpu(void)
{
	pthread_mutex_lock(&v1_lock);
	if (!v1_have_cpu) {
		__cpc_cpu_detect(&v1_cpu);
		v1_have_cpu = 1;
	}
	pthread_mutex_unlock(&v1_lock);
	return &v1_cpu;
}

static int v1_cpuver_of(const struct cpcev_cpu *cpu)
{
	switch (cpu->vendor) {
	case CPCEV_INTEL:
		if (cpu->family == 6)
			return CPC_PENTIUM_PRO_MMX;
		return CPC_PMCOMPAT_X86;
	case CPCEV_AMD:
	case CPCEV_HYGON:
		return CPC_PMCOMPAT_X86;
	case CPCEV_ARM:
		return CPC_PMCOMPAT_ARM64;
	default:
		return -1;
	}
}

static int v1_cpuver_ok(int cpuver)
{
	return cpuver != -1 && cpuver == v1_cpuver_of(v1_get_cpu());
}

/* The versions a program may ask for; nothing depends on the call. */
CPC_EXPORT uint_t cpc_version(uint_t ver)
{
	if (ver == CPC_VER_NONE)
		return CPC_VER_CURRENT;
	if (ver > CPC_VER_CURRENT)
		return CPC_VER_NONE;
	return ver;
}

/* As on Solaris, no cpc_version() is needed first. */
CPC_EXPORT int cpc_getcpuver(void)
{
	int cpuver;

	cpuver = v1_cpuver_of(v1_get_cpu());
	if (cpuver == -1)
		errno = ENOTSUP;
	return cpuver;
}

CPC_EXPORT const char *cpc_getcciname(int cpuver)
{
	static char name[CPC_MAX_IMPL_NAME];

	if (!v1_cpuver_ok(cpuver)) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&v1_lock);
	if (!name[0])
		cpcev_cciname(&v1_cpu, name, sizeof(name));
	pthread_mutex_unlock(&v1_lock);
	return name;
}

CPC_EXPORT const char *cpc_getcpuref(int cpuver)
{
	static char ref[CPC_MAX_CPUREF];

	if (!v1_cpuver_ok(cpuver)) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&v1_lock);
	if (!ref[0])
		cpcev_cpuref(&v1_cpu, ref, sizeof(ref));
	pthread_mutex_unlock(&v1_lock);
	return ref;
}

CPC_EXPORT const char *cpc_getusage(int cpuver)
{
	if (!v1_cpuver_ok(cpuver)) {
		errno = EINVAL;
		return NULL;
	}
	if (cpuver == CPC_PMCOMPAT_ARM64)
		return "pic0=<event0>,pic1=<event1> [,sys[0|1]] [,nouser[0|1]] ";
	/* Solaris' Pentium Pro text */
	return "pic0=<event0>,pic1=<event1> [,sys[0|1]] [,nouser[0|1]] "
	       "[,noedge[0|1]] [,pc[0|1]] [,int[0|1]] [,inv[0|1]] "
	       "[,cmask[0|1]=<maskspec>] [,umask[0|1]=<maskspec>] ";
}

CPC_EXPORT uint_t cpc_getnpic(int cpuver)
{
	if (!v1_cpuver_ok(cpuver)) {
		errno = EINVAL;
		return 0;
	}
	return V1_NPIC;
}

/* The PerfEvtSel image of a raw event; 0 if it has none (not raw, too wide). */
static uint32_t v1_image(const struct cpcev_cpu *cpu, const char *event,
			 const struct cpcev_attr *attrs, unsigned int nattrs,
			 int *subcode)
{
	struct cpcev_perf perf;
	int sc;

	sc = cpcev_resolve(cpu, event, attrs, nattrs, &perf);
	if (subcode)
		*subcode = sc;
	if (sc || perf.type != PERF_TYPE_RAW || perf.config > 0xffffffffULL)
		return 0;
	/* arm64: the event number in the event field, nothing else */
	if (cpu->vendor == CPCEV_ARM && perf.config > PES_EVENT)
		return 0;
	return (uint32_t)perf.config | PES_EN;
}

/* ---- cpc_strtoevent and cpc_eventtostr ------------------------------------- */

/*
 * The Pentium Pro event names of the Solaris specification, with their
 * event-select codes (Intel, Pentium Pro Family Developer's Manual vol. 3,
 * appendix A.1) and the counters that may count them.  They are the v1
 * names of CPC_PENTIUM_PRO_MMX; the codes are programmed as they are, so
 * on a later processor a code counts what that processor's manual says.
 */
#define P6_ANY		0
#define P6_PIC0		1		/* counter 0 only */
#define P6_PIC1		2		/* counter 1 only */

static const struct v1_p6name {
	const char *name;
	uint8_t code;
	uint8_t only;
} v1_p6names[] = {
	{ "data_mem_refs", 0x43, P6_ANY },
	{ "dcu_lines_in", 0x45, P6_ANY },
	{ "dcu_m_lines_in", 0x46, P6_ANY },
	{ "dcu_m_lines_out", 0x47, P6_ANY },
	{ "dcu_miss_outstanding", 0x48, P6_ANY },
	{ "ifu_ifetch", 0x80, P6_ANY },
	{ "ifu_ifetch_miss", 0x81, P6_ANY },
	{ "itlb_miss", 0x85, P6_ANY },
	{ "ifu_mem_stall", 0x86, P6_ANY },
	{ "ild_stall", 0x87, P6_ANY },
	{ "l2_ifetch", 0x28, P6_ANY },
	{ "l2_ld", 0x29, P6_ANY },
	{ "l2_st", 0x2a, P6_ANY },
	{ "l2_lines_in", 0x24, P6_ANY },
	{ "l2_lines_out", 0x26, P6_ANY },
	{ "l2_m_lines_inm", 0x25, P6_ANY },
	{ "l2_m_lines_outm", 0x27, P6_ANY },
	{ "l2_rqsts", 0x2e, P6_ANY },
	{ "l2_ads", 0x21, P6_ANY },
	{ "l2_dbus_busy", 0x22, P6_ANY },
	{ "l2_dbus_busy_rd", 0x23, P6_ANY },
	{ "bus_drdy_clocks", 0x62, P6_ANY },
	{ "bus_lock_clocks", 0x63, P6_ANY },
	{ "bus_req_outstanding", 0x60, P6_ANY },
	{ "bus_tran_brd", 0x65, P6_ANY },
	{ "bus_tran_rfo", 0x66, P6_ANY },
	{ "bus_trans_wb", 0x67, P6_ANY },
	{ "bus_tran_ifetch", 0x68, P6_ANY },
	{ "bus_tran_inval", 0x69, P6_ANY },
	{ "bus_tran_pwr", 0x6a, P6_ANY },
	{ "bus_trans_p", 0x6b, P6_ANY },
	{ "bus_trans_io", 0x6c, P6_ANY },
	{ "bus_tran_def", 0x6d, P6_ANY },
	{ "bus_tran_burst", 0x6e, P6_ANY },
	{ "bus_tran_any", 0x70, P6_ANY },
	{ "bus_tran_mem", 0x6f, P6_ANY },
	{ "bus_data_rcv", 0x64, P6_ANY },
	{ "bus_bnr_drv", 0x61, P6_ANY },
	{ "bus_hit_drv", 0x7a, P6_ANY },
	{ "bus_hitm_drv", 0x7b, P6_ANY },
	{ "bus_snoop_stall", 0x7e, P6_ANY },
	{ "flops", 0xc1, P6_PIC0 },
	{ "fp_comp_ops_exe", 0x10, P6_PIC0 },
	{ "fp_assist", 0x11, P6_PIC1 },
	{ "mul", 0x12, P6_PIC1 },
	{ "div", 0x13, P6_PIC1 },
	{ "cycles_div_busy", 0x14, P6_PIC0 },
	{ "ld_blocks", 0x03, P6_ANY },
	{ "sb_drains", 0x04, P6_ANY },
	{ "misalign_mem_ref", 0x05, P6_ANY },
	{ "inst_retired", 0xc0, P6_ANY },
	{ "uops_retired", 0xc2, P6_ANY },
	{ "inst_decoder", 0xd0, P6_ANY },
	{ "hw_int_rx", 0xc8, P6_ANY },
	{ "cycles_int_masked", 0xc6, P6_ANY },
	{ "cycles_int_pending_and_masked", 0xc7, P6_ANY },
	{ "br_inst_retired", 0xc4, P6_ANY },
	{ "br_miss_pred_retired", 0xc5, P6_ANY },
	{ "br_taken_retired", 0xc9, P6_ANY },
	{ "br_miss_pred_taken_ret", 0xca, P6_ANY },
	{ "br_inst_decoded", 0xe0, P6_ANY },
	{ "btb_misses", 0xe2, P6_ANY },
	{ "br_bogus", 0xe4, P6_ANY },
	{ "baclears", 0xe6, P6_ANY },
	{ "resource_stalls", 0xa2, P6_ANY },
	{ "partial_rat_stalls", 0xd2, P6_ANY },
	{ "segment_reg_loads", 0x06, P6_ANY },
	{ "cpu_clk_unhalted", 0x79, P6_ANY },
	{ "mmx_instr_exec", 0xb0, P6_ANY },
	{ "mmx_sat_instr_exec", 0xb1, P6_ANY },
	{ "mmx_uops_exec", 0xb2, P6_ANY },
	{ "mmx_instr_type_exec", 0xb3, P6_ANY },
	{ "fp_mmx_trans", 0xcc, P6_ANY },
	{ "mmx_assists", 0xcd, P6_ANY },
	{ "mmx_instr_ret", 0xce, P6_ANY },
	{ "seg_rename_stalls", 0xd4, P6_ANY },
	{ "seg_reg_renames", 0xd5, P6_ANY },
	{ "ret_seg_renames", 0xd6, P6_ANY },
};

/* Whether counter regno may count P6 name n. */
static int v1_p6_on(const struct v1_p6name *n, int regno)
{
	return n->only == P6_ANY || n->only == (regno ? P6_PIC1 : P6_PIC0);
}

/*
 * The code of Pentium Pro name on counter regno: 0 to 0xff; -2 if counter
 * regno cannot count it, -1 if it is none.
 */
static int v1_p6_code(int cpuver, int regno, const char *name)
{
	size_t i;

	if (cpuver != CPC_PENTIUM_PRO_MMX)
		return -1;
	for (i = 0; i < ARRAY_LEN(v1_p6names); i++)
		if (!strcmp(name, v1_p6names[i].name))
			return v1_p6_on(&v1_p6names[i], regno) ?
			       v1_p6names[i].code : -2;
	return -1;
}

/* The P6 name of code on counter regno, or NULL. */
static const char *v1_p6_name(int cpuver, int regno, uint8_t code)
{
	size_t i;

	if (cpuver != CPC_PENTIUM_PRO_MMX)
		return NULL;
	for (i = 0; i < ARRAY_LEN(v1_p6names); i++)
		if (v1_p6names[i].code == code && v1_p6_on(&v1_p6names[i], regno))
			return v1_p6names[i].name;
	return NULL;
}

struct v1_walk {
	const struct cpcev_cpu *cpu;
	int cpuver;
	int regno;
	void *arg;
	void (*action)(void *arg, int regno, const char *name, uint8_t bits);
};

static void v1_walk_one(void *p, const char *name)
{
	struct v1_walk *w = p;
	uint32_t pes;

	/* v2's generic names (some come as raw codes from libpfm4): not v1's. */
	if (!strncmp(name, "PAPI_", 5) || !strncmp(name, "sw_", 3))
		return;
	/* A Pentium Pro name means Solaris' code, not libpfm4's event. */
	if (v1_p6_code(w->cpuver, w->regno, name) != -1)
		return;
	pes = v1_image(w->cpu, name, NULL, 0, NULL);
	if (pes)
		w->action(w->arg, w->regno, name, (uint8_t)(pes & PES_EVENT));
}

/*
 * Solaris' Pentium Pro names (CPC_PENTIUM_PRO_MMX), then libcpc's
 * platform names that are raw event codes (an extension).
 */
CPC_EXPORT void cpc_walk_names(int cpuver, int regno, void *arg,
			       void (*action)(void *arg, int regno,
					      const char *name, uint8_t bits))
{
	struct v1_walk w;
	size_t i;

	if (!action || !v1_cpuver_ok(cpuver) || regno < 0 || regno >= V1_NPIC) {
		errno = EINVAL;
		return;
	}
	if (cpuver == CPC_PENTIUM_PRO_MMX)
		for (i = 0; i < ARRAY_LEN(v1_p6names); i++)
			if (v1_p6_on(&v1_p6names[i], regno))
				action(arg, regno, v1_p6names[i].name,
				       v1_p6names[i].code);
	memset(&w, 0, sizeof(w));
	w.cpu = v1_get_cpu();
	w.cpuver = cpuver;
	w.regno = regno;
	w.arg = arg;
	w.action = action;
	cpcev_walk(w.cpu, CPCEV_PLATFORM, v1_walk_one, &w);
}

/* A number as Solaris reads one (strtol, base 0, a prefix): 0 or -1. */
static int v1_number(const char *s, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 0);
	return end == s || errno || *v < 0 || *v > max ? -1 : 0;
}

/*
 * The tokens of the Pentium Pro specification, in the order of Solaris'
 * table (getsubopt(3) returns the index).  The flags without a counter
 * number apply to both counters.
 */
enum {
	T_PIC0, T_PIC1, T_NOUSER, T_NOUSER0, T_NOUSER1, T_SYS, T_SYS0, T_SYS1,
	T_NOEDGE, T_NOEDGE0, T_NOEDGE1, T_PC, T_PC0, T_PC1, T_INT, T_INT0,
	T_INT1, T_INV, T_INV0, T_INV1, T_UMASK0, T_UMASK1, T_CMASK0, T_CMASK1,
};

static char *const v1_tokens[] = {
	"pic0", "pic1", "nouser", "nouser0", "nouser1", "sys", "sys0", "sys1",
	"noedge", "noedge0", "noedge1", "pc", "pc0", "pc1", "int", "int0",
	"int1", "inv", "inv0", "inv1", "umask0", "umask1", "cmask0", "cmask1",
	NULL
};

/* The flag of each flag token triple (both, 0, 1): bit, set or clear. */
static const struct {
	int tok;
	uint32_t bit;
	int set;
} v1_flags[] = {
	{ T_NOUSER, PES_USR, 0 }, { T_SYS, PES_OS, 1 },
	{ T_NOEDGE, PES_E, 0 }, { T_PC, PES_PC, 1 },
	{ T_INT, PES_INT, 1 }, { T_INV, PES_INV, 1 },
};

#define V1_SPEC_FN	"strtoevent"

struct v1_spec {
	const struct cpcev_cpu *cpu;
	int cpuver;
	uint32_t bits[V1_NPIC];
	const char *pic[V1_NPIC];
	/* a platform name of libcpc (not Solaris'): resolved at the end */
	int named[V1_NPIC];
	int have_umask[V1_NPIC], have_cmask[V1_NPIC];
	uint8_t umask[V1_NPIC], cmask[V1_NPIC];
};

/* pic regno counts value: 0, or -1 after the message. */
static int v1_spec_pic(struct v1_spec *sp, int regno, const char *value)
{
	long v;
	int code;

	if (!value) {
		v1_err(V1_SPEC_FN, "missing '%s' value\n", v1_tokens[T_PIC0 + regno]);
		return -1;
	}
	code = v1_p6_code(sp->cpuver, regno, value);
	if (code >= 0) {
		sp->bits[regno] |= (uint32_t)code;
		return 0;
	}
	if (code == -1 && !v1_number(value, 0xff, &v)) {
		sp->bits[regno] |= (uint32_t)v;
		return 0;
	}
	/* libcpc's platform names that are raw codes: an extension */
	if (code == -1 && strlen(value) < CPC_MAX_EVENT_LEN && strncmp(value, "PAPI_", 5) &&
	    strncmp(value, "sw_", 3) && cpcev_known(sp->cpu, value) &&
	    v1_image(sp->cpu, value, NULL, 0, NULL)) {
		sp->named[regno] = 1;
		return 0;
	}
	v1_err(V1_SPEC_FN, "PerfCtr%d cannot measure '%s' on this cpu\n",
	       regno, value);
	return -1;
}

/* umask or cmask of counter regno: 0, or -1 after the message. */
static int v1_spec_mask(struct v1_spec *sp, int tok, const char *value)
{
	int regno = (tok == T_UMASK1 || tok == T_CMASK1);
	int is_umask = (tok == T_UMASK0 || tok == T_UMASK1);
	long v;

	if (!value) {
		v1_err(V1_SPEC_FN, "missing '%s' value\n", v1_tokens[tok]);
		return -1;
	}
	if (v1_number(value, 0xff, &v)) {
		v1_err(V1_SPEC_FN, "bad '%s' value\n", v1_tokens[tok]);
		return -1;
	}
	if (is_umask) {
		sp->umask[regno] |= (uint8_t)v;
		sp->have_umask[regno] = 1;
		sp->bits[regno] |= (uint32_t)v << PES_UMASK_SHIFT;
	} else {
		sp->cmask[regno] |= (uint8_t)v;
		sp->have_cmask[regno] = 1;
		sp->bits[regno] |= (uint32_t)v << PES_CMASK_SHIFT;
	}
	return 0;
}

/* A flag token: 0, or -1 after the message. */
static int v1_spec_flag(struct v1_spec *sp, int tok, const char *value)
{
	size_t i;
	int regno;

	if (value) {
		v1_err(V1_SPEC_FN, "bad arg to '%s'\n", v1_tokens[tok]);
		return -1;
	}
	for (i = 0; i < ARRAY_LEN(v1_flags); i++) {
		if (tok < v1_flags[i].tok || tok > v1_flags[i].tok + 2)
			continue;
		for (regno = 0; regno < V1_NPIC; regno++) {
			if (tok != v1_flags[i].tok &&
			    tok - v1_flags[i].tok - 1 != regno)
				continue;
			if (v1_flags[i].set)
				sp->bits[regno] |= v1_flags[i].bit;
			else
				sp->bits[regno] &= ~v1_flags[i].bit;
		}
		return 0;
	}
	return -1;
}

/*
 * A libcpc platform name on counter regno: its image (code, unit mask and
 * the name's own edge, invert and counter mask) with the umask and cmask
 * tokens replacing the name's.  0, or -1 after the message.
 */
static int v1_spec_named(struct v1_spec *sp, int regno)
{
	struct cpcev_attr attrs[2];
	unsigned int na = 0;
	uint32_t pes, keep;

	if (sp->have_umask[regno]) {
		attrs[na].name = "umask";
		attrs[na++].val = sp->umask[regno];
	}
	if (sp->have_cmask[regno]) {
		attrs[na].name = "cmask";
		attrs[na++].val = sp->cmask[regno];
	}
	pes = v1_image(sp->cpu, sp->pic[regno], attrs, na, NULL);
	if (!pes) {
		v1_err(V1_SPEC_FN, "bad '%s' value\n", v1_tokens[sp->have_umask[regno] ?
		       T_UMASK0 + regno : T_CMASK0 + regno]);
		return -1;
	}
	keep = sp->bits[regno] & (PES_USR | PES_OS | PES_E | PES_PC |
				  PES_INT | PES_INV);
	sp->bits[regno] = (pes & ~PES_EN) | keep;
	return 0;
}

/*
 * Solaris' Pentium Pro grammar: both counters start as USR|E, the tokens
 * set and clear bits in turn, a token that is none of the table's names
 * the first counter not yet given, then the second; the first error ends
 * the parse.  The result is the number of errors reported.
 */
CPC_EXPORT int cpc_strtoevent(int cpuver, const char *spec, cpc_event_t *event)
{
	struct v1_spec sp;
	char *copy, *opts, *value;
	int errors = 0, idx, regno;

	if (!spec || !event)
		return 1;
	memset(event, 0, sizeof(*event));
	event->ce_cpuver = cpuver;
	if (!v1_cpuver_ok(cpuver))
		return 1;
	memset(&sp, 0, sizeof(sp));
	sp.cpu = v1_get_cpu();
	sp.cpuver = cpuver;
	sp.bits[0] = sp.bits[1] = PES_USR | PES_E;
	copy = strdup(spec);
	if (!copy)
		return 1;
	opts = copy;
	while (*opts) {
		idx = getsubopt(&opts, v1_tokens, &value);
		if (idx == T_PIC0 || idx == T_PIC1 || idx == -1) {
			regno = idx == -1 ? (sp.pic[0] ? 1 : 0) : idx - T_PIC0;
			if (idx == -1 && sp.pic[0] && sp.pic[1]) {
				v1_err(V1_SPEC_FN, "bad token '%s'\n", value);
				errors++;
				break;
			}
			if (v1_spec_pic(&sp, regno, value)) {
				errors++;
				break;
			}
			if (sp.pic[regno]) {
				v1_err(V1_SPEC_FN, "repeated '%s' token\n",
				       v1_tokens[T_PIC0 + regno]);
				errors++;
				break;
			}
			sp.pic[regno] = value;
		} else if (idx == T_UMASK0 || idx == T_UMASK1 ||
			   idx == T_CMASK0 || idx == T_CMASK1) {
			if (v1_spec_mask(&sp, idx, value)) {
				errors++;
				break;
			}
		} else if (v1_spec_flag(&sp, idx, value)) {
			errors++;
			break;
		}
	}
	if (!sp.pic[0] || !sp.pic[1]) {
		v1_err(V1_SPEC_FN, "two events must be specified\n");
		errors++;
	}
	for (regno = 0; !errors && regno < V1_NPIC; regno++)
		if (sp.named[regno] && v1_spec_named(&sp, regno))
			errors++;
	if (!errors) {
		event->ce_pes[0] = sp.bits[0];
		event->ce_pes[1] = sp.bits[1];
	}
	free(copy);
	return errors;
}

/* Append to a malloc'ed string: 0, or -1 (the string freed). */
static int v1_append(char **s, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *more = NULL, *n;
	int k;

	va_start(ap, fmt);
	k = vasprintf(&more, fmt, ap);
	va_end(ap);
	if (k < 0) {
		free(*s);
		*s = NULL;
		return -1;
	}
	n = realloc(*s, *len + (size_t)k + 1);
	if (!n) {
		free(more);
		free(*s);
		*s = NULL;
		return -1;
	}
	memcpy(n + *len, more, (size_t)k + 1);
	*len += (size_t)k;
	*s = n;
	free(more);
	return 0;
}

/* A used counter's image that this layer can count: 1, else 0. */
static int v1_pes_ok(uint32_t pes)
{
	return !(pes & PES_ANY);
}

/* ",tok", ",tok0" or ",tok1" for a flag that differs from its default. */
static int v1_flag_str(char **s, size_t *len, const char *tok, int f0, int f1,
		       int def)
{
	if (f0 != def && f1 != def)
		return v1_append(s, len, ",%s", tok);
	if (f0 != def)
		return v1_append(s, len, ",%s0", tok);
	if (f1 != def)
		return v1_append(s, len, ",%s1", tok);
	return 0;
}

/*
 * Solaris' form: both counters (a Pentium Pro name, else the code), the
 * counter and unit masks, then the flags that differ from the defaults.
 */
CPC_EXPORT char *cpc_eventtostr(cpc_event_t *event)
{
	static const struct { uint32_t bit; int tok; int def; } flags[] = {
		{ PES_USR, T_NOUSER, 1 }, { PES_OS, T_SYS, 0 },
		{ PES_E, T_NOEDGE, 1 }, { PES_INT, T_INT, 0 },
		{ PES_INV, T_INV, 0 }, { PES_PC, T_PC, 0 },
	};
	char *s = NULL;
	size_t len = 0, f;
	uint32_t *pes;
	int i;

	if (!event || !v1_cpuver_ok(event->ce_cpuver)) {
		errno = EINVAL;
		return NULL;
	}
	pes = event->ce_pes;
	for (i = 0; i < V1_NPIC; i++) {
		const char *name = v1_p6_name(event->ce_cpuver, i,
					      (uint8_t)pes[i]);

		if (name ? v1_append(&s, &len, "%spic%d=%s", i ? "," : "", i, name) :
		    v1_append(&s, &len, "%spic%d=0x%x", i ? "," : "", i,
			      pes[i] & PES_EVENT))
			return NULL;
	}
	for (i = 0; i < V1_NPIC; i++)
		if ((pes[i] >> PES_CMASK_SHIFT) &&
		    v1_append(&s, &len, ",cmask%d=0x%x", i, pes[i] >> PES_CMASK_SHIFT))
			return NULL;
	for (i = 0; i < V1_NPIC; i++)
		if (((pes[i] >> PES_UMASK_SHIFT) & 0xff) &&
		    v1_append(&s, &len, ",umask%d=0x%x", i,
			      (pes[i] >> PES_UMASK_SHIFT) & 0xff))
			return NULL;
	for (f = 0; f < ARRAY_LEN(flags); f++)
		if (v1_flag_str(&s, &len, v1_tokens[flags[f].tok],
				!!(pes[0] & flags[f].bit),
				!!(pes[1] & flags[f].bit), flags[f].def))
			return NULL;
	return s;
}

/* ---- cpc_event_accum, cpc_event_diff ----------------------------------------- */

CPC_EXPORT void cpc_event_accum(cpc_event_t *accum, cpc_event_t *event)
{
	int i;

	for (i = 0; i < V1_NPIC; i++)
		accum->ce_pic[i] += event->ce_pic[i];
	if (event->ce_hrt > accum->ce_hrt)
		accum->ce_hrt = event->ce_hrt;
	accum->ce_tsc += event->ce_tsc;
}

CPC_EXPORT void cpc_event_diff(cpc_event_t *diff, cpc_event_t *after,
			       cpc_event_t *before)
{
	int i;

	diff->ce_cpuver = after->ce_cpuver;
	diff->ce_hrt = after->ce_hrt;
	diff->ce_tsc = after->ce_tsc - before->ce_tsc;
	for (i = 0; i < V1_NPIC; i++) {
		diff->ce_pic[i] = after->ce_pic[i] - before->ce_pic[i];
		diff->ce_pes[i] = after->ce_pes[i];
	}
}

/* ---- cpc_access ------------------------------------------------------------------ */

CPC_EXPORT int cpc_access(void)
{
	struct pmc_cpc_info info;
	int fd, err;

	fd = open(PMC_CPC_PATH, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		err = ioctl(fd, PMC_CPC_INFO, &info) < 0 ? errno : 0;
		if (!err && info.abi_version != PMC_CPC_ABI_VERSION)
			err = ENOSYS;
		close(fd);
	} else {
		err = errno;
	}
	switch (err) {
	case 0:
		return 0;
	case ENOENT:
	case ENODEV:
	case ENXIO:
	case ENOTTY:
	case ENOSYS:
		err = ENOSYS;
		v1_err("cpc_access", "CPU performance counters are inaccessible "
		       "on this machine (is the pmcompat module loaded?)\n");
		break;
	case EACCES:
	case EPERM:
		v1_err("cpc_access", "no permission to use %s (a member of "
		       "group pmcompat may)\n", PMC_CPC_PATH);
		break;
	}
	errno = err;
	return -1;
}

/* ---- binding --------------------------------------------------------------------- */

/* The shared version 2 handle, opened on first use; NULL and errno. */
static cpc_t *v1_handle(void)
{
	cpc_t *cpc;

	pthread_mutex_lock(&v1_lock);
	if (!v1_cpc) {
		v1_cpc = cpc_open(CPC_VER_CURRENT);
		if (v1_cpc)
			cpc_seterrhndlr(v1_cpc, v1_bridge);
	}
	cpc = v1_cpc;
	pthread_mutex_unlock(&v1_lock);
	return cpc;
}

/* A version 2 set for event (not bound): 0, or an errno value. */
static int v1_make_set(cpc_t *cpc, const cpc_event_t *event, int flags,
		       struct v1_bind *b)
{
	const struct cpcev_cpu *cpu = v1_get_cpu();
	cpc_set_t *set;
	int i, n = 0, err;

	if (!v1_cpuver_ok(event->ce_cpuver)) {
		v1_err(v1_fn, "event was not made for this processor (cpu "
		       "version %d)\n", event->ce_cpuver);
		return EINVAL;
	}
	for (i = 0; i < V1_NPIC; i++) {
		if (event->ce_pes[i] && !v1_pes_ok(event->ce_pes[i])) {
			v1_err(v1_fn, "pic%d: invalid event-select bits 0x%x\n",
			       i, event->ce_pes[i]);
			return EINVAL;
		}
		n += event->ce_pes[i] != 0;
	}
	if (!n) {
		v1_err(v1_fn, "no counter is programmed\n");
		return EINVAL;
	}
	set = cpc_set_create(cpc);
	if (!set)
		return errno;
	for (i = 0; i < V1_NPIC; i++) {
		uint32_t pes = event->ce_pes[i];
		cpc_attr_t attrs[6];
		uint_t na = 0, rflags = 0;
		char code[8];

		b->idx[i] = -1;
		if (!pes)
			continue;
		snprintf(code, sizeof(code), "0x%x", pes & PES_EVENT);
		attrs[na].ca_name = "picnum";
		attrs[na++].ca_val = (uint64_t)i;
		if ((pes >> PES_UMASK_SHIFT) & 0xff) {
			attrs[na].ca_name = "umask";
			attrs[na++].ca_val = (pes >> PES_UMASK_SHIFT) & 0xff;
		}
		if (pes >> PES_CMASK_SHIFT) {
			attrs[na].ca_name = "cmask";
			attrs[na++].ca_val = pes >> PES_CMASK_SHIFT;
		}
		/*
		 * Edge detection acts on the counter-mask comparison: the E
		 * bit every Solaris image has by default counts only with a
		 * counter mask, as on the Pentium Pro.
		 */
		if ((pes & PES_E) && (pes >> PES_CMASK_SHIFT)) {
			attrs[na].ca_name = "edge";
			attrs[na++].ca_val = 1;
		}
		if (pes & PES_INV) {
			attrs[na].ca_name = "inv";
			attrs[na++].ca_val = 1;
		}
		/* PC: only where the attribute exists; perf owns the pins. */
		if ((pes & PES_PC) && cpcev_attr_known(cpu, "pc")) {
			attrs[na].ca_name = "pc";
			attrs[na++].ca_val = 1;
		}
		if (pes & PES_USR)
			rflags |= CPC_COUNT_USER;
		if (pes & PES_OS)
			rflags |= CPC_COUNT_SYSTEM;
		if (flags & CPC_BIND_EMT_OVF)
			rflags |= CPC_OVF_NOTIFY_EMT;
		b->idx[i] = cpc_set_add_request(cpc, set, code, event->ce_pic[i],
						rflags, na, attrs);
		if (b->idx[i] < 0) {
			err = errno;
			cpc_set_destroy(cpc, set);
			return err;
		}
	}
	b->set = set;
	b->buf = NULL;
	b->cpuver = event->ce_cpuver;
	b->flags = flags;
	for (i = 0; i < V1_NPIC; i++)
		b->pes[i] = event->ce_pes[i];
	return 0;
}

static void v1_drop(cpc_t *cpc, struct v1_bind *b)
{
	if (b->buf)
		cpc_buf_destroy(cpc, b->buf);
	if (b->set)
		cpc_set_destroy(cpc, b->set);
	memset(b, 0, sizeof(*b));
}

/* Sample binding b into event: 0, or -1 and errno.  Signal-safe. */
static int v1_sample(cpc_t *cpc, struct v1_bind *b, cpc_event_t *event)
{
	uint64_t v;
	int i;

	if (cpc_set_sample(cpc, b->set, b->buf))
		return -1;
	event->ce_cpuver = b->cpuver;
	event->ce_hrt = cpc_buf_hrtime(cpc, b->buf);
	event->ce_tsc = cpc_buf_tick(cpc, b->buf);
	for (i = 0; i < V1_NPIC; i++) {
		event->ce_pes[i] = b->pes[i];
		event->ce_pic[i] = 0;
		if (b->idx[i] >= 0 && !cpc_buf_get(cpc, b->buf, b->idx[i], &v))
			event->ce_pic[i] = v;
	}
	return 0;
}

static int v1_fail(int err)
{
	v1_fn = NULL;
	errno = err;
	return -1;
}

/* Bind event to the calling thread (v1_fn is set). */
static int v1_bind_self(cpc_t *cpc, cpc_event_t *event, int flags)
{
	struct v1_bind nb;
	int i, err;

	/*
	 * The same event again (the overflow idiom: sample, then bind again
	 * with new presets): preset and restart the bound set, which is safe
	 * in a SIGEMT handler.
	 */
	if (v1_self.set && v1_self.flags == flags &&
	    v1_self.cpuver == event->ce_cpuver &&
	    v1_self.pes[0] == event->ce_pes[0] &&
	    v1_self.pes[1] == event->ce_pes[1]) {
		for (i = 0; i < V1_NPIC; i++)
			if (v1_self.idx[i] >= 0 &&
			    cpc_request_preset(cpc, v1_self.idx[i],
					       event->ce_pic[i]))
				goto rebind;
		if (!cpc_set_restart(cpc, v1_self.set))
			return 0;
	}
rebind:
	memset(&nb, 0, sizeof(nb));
	err = v1_make_set(cpc, event, flags, &nb);
	if (err)
		return err;
	nb.buf = cpc_buf_create(cpc, nb.set);
	if (!nb.buf) {
		err = errno;
		v1_drop(cpc, &nb);
		return err;
	}
	if (cpc_bind_curlwp(cpc, nb.set, (uint_t)flags & CPC_BIND_LWP_INHERIT)) {
		err = errno;
		v1_drop(cpc, &nb);
		return err;
	}
	/* The kernel replaced the thread's previous binding. */
	v1_drop(cpc, &v1_self);
	v1_self = nb;
	return 0;
}

CPC_EXPORT int cpc_rele(void)
{
	cpc_t *cpc = v1_handle();

	if (!cpc || !v1_self.set) {
		errno = EINVAL;
		return -1;
	}
	cpc_unbind(cpc, v1_self.set);
	v1_drop(cpc, &v1_self);
	return 0;
}

CPC_EXPORT int cpc_bind_event(cpc_event_t *event, int flags)
{
	cpc_t *cpc;
	int err;

	if (!event)
		return cpc_rele();
	if (flags & ~V1_BIND_FLAGS) {
		errno = EINVAL;
		return -1;
	}
	cpc = v1_handle();
	if (!cpc)
		return -1;
	v1_fn = "cpc_bind_event";
	err = v1_bind_self(cpc, event, flags);
	if (err)
		return v1_fail(err);
	v1_fn = NULL;
	return 0;
}

CPC_EXPORT int cpc_take_sample(cpc_event_t *event)
{
	if (!event || !v1_self.set) {
		errno = EINVAL;
		return -1;
	}
	return v1_sample(v1_cpc, &v1_self, event);
}

/* Count or stop counting one mode (PES_USR, PES_OS) of the bound counters. */
static int v1_count_mode(const char *fn, uint32_t bit, int enable)
{
	cpc_event_t ev;
	cpc_t *cpc = v1_cpc;
	int i, err;

	if (!v1_self.set) {
		errno = EINVAL;
		return -1;
	}
	memset(&ev, 0, sizeof(ev));
	if (v1_sample(cpc, &v1_self, &ev))
		return -1;
	for (i = 0; i < V1_NPIC; i++) {
		if (!ev.ce_pes[i])
			continue;
		if (enable)
			ev.ce_pes[i] |= bit;
		else
			ev.ce_pes[i] &= ~bit;
	}
	if (ev.ce_pes[0] == v1_self.pes[0] && ev.ce_pes[1] == v1_self.pes[1])
		return 0;
	/* Bind again from the counts so far: they continue from there. */
	v1_fn = fn;
	err = v1_bind_self(cpc, &ev, v1_self.flags);
	if (err)
		return v1_fail(err);
	v1_fn = NULL;
	return 0;
}

CPC_EXPORT int cpc_count_usr_events(int enable)
{
	return v1_count_mode("cpc_count_usr_events", PES_USR, enable);
}

CPC_EXPORT int cpc_count_sys_events(int enable)
{
	return v1_count_mode("cpc_count_sys_events", PES_OS, enable);
}

/* ---- libpctx ------------------------------------------------------------------------ */

/* The binding of (pctx, lwpid), under v1_lock; NULL if none. */
static struct v1_pctx **v1_pctx_find(pctx_t *pctx, id_t lwpid)
{
	struct v1_pctx **pp;

	for (pp = &v1_pctxs; *pp; pp = &(*pp)->next)
		if ((*pp)->pctx == pctx && (*pp)->lwpid == lwpid)
			return pp;
	return NULL;
}

CPC_EXPORT int cpc_pctx_bind_event(pctx_t *pctx, id_t lwpid,
				   cpc_event_t *event, int flags)
{
	struct v1_pctx **pp, *p;
	struct v1_bind nb;
	cpc_t *cpc;
	int err;

	if (!pctx || !event || (flags & ~V1_BIND_FLAGS) ||
	    (flags & CPC_BIND_LWP_INHERIT)) {
		errno = EINVAL;
		return -1;
	}
	cpc = v1_handle();
	if (!cpc)
		return -1;
	v1_fn = "cpc_pctx_bind_event";
	memset(&nb, 0, sizeof(nb));
	err = v1_make_set(cpc, event, flags, &nb);
	if (!err) {
		nb.buf = cpc_buf_create(cpc, nb.set);
		if (!nb.buf)
			err = errno;
	}
	if (!err && cpc_bind_pctx(cpc, pctx, lwpid, nb.set, 0))
		err = errno;
	if (err) {
		v1_drop(cpc, &nb);
		return v1_fail(err);
	}
	v1_fn = NULL;
	pthread_mutex_lock(&v1_lock);
	pp = v1_pctx_find(pctx, lwpid);
	if (pp) {
		p = *pp;
		/* Its set was replaced in the kernel by the new one. */
		v1_drop(cpc, &p->b);
	} else {
		p = calloc(1, sizeof(*p));
		if (p) {
			p->pctx = pctx;
			p->lwpid = lwpid;
			p->next = v1_pctxs;
			v1_pctxs = p;
		}
	}
	if (p) {
		p->invalid = 0;
		p->b = nb;
	}
	pthread_mutex_unlock(&v1_lock);
	if (!p) {
		cpc_unbind(cpc, nb.set);
		v1_drop(cpc, &nb);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

CPC_EXPORT int cpc_pctx_take_sample(pctx_t *pctx, id_t lwpid,
				    cpc_event_t *event)
{
	struct v1_pctx **pp;
	int ret, err = EINVAL;

	if (!event) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&v1_lock);
	pp = v1_pctx_find(pctx, lwpid);
	if (pp && (*pp)->invalid) {
		err = EAGAIN;
		pp = NULL;
	}
	ret = pp ? v1_sample(v1_cpc, &(*pp)->b, event) : -1;
	if (pp)
		err = errno;
	pthread_mutex_unlock(&v1_lock);
	if (ret)
		errno = err;
	return ret;
}

CPC_EXPORT int cpc_pctx_rele(pctx_t *pctx, id_t lwpid)
{
	struct v1_pctx **pp, *p = NULL;

	pthread_mutex_lock(&v1_lock);
	pp = v1_pctx_find(pctx, lwpid);
	if (pp) {
		p = *pp;
		*pp = p->next;
		if (p->b.set)
			cpc_unbind(v1_cpc, p->b.set);
		v1_drop(v1_cpc, &p->b);
	}
	pthread_mutex_unlock(&v1_lock);
	if (!p) {
		errno = EINVAL;
		return -1;
	}
	free(p);
	return 0;
}

CPC_EXPORT int cpc_pctx_invalidate(pctx_t *pctx, id_t lwpid)
{
	struct v1_pctx **pp;

	pthread_mutex_lock(&v1_lock);
	pp = v1_pctx_find(pctx, lwpid);
	if (pp && !(*pp)->invalid) {
		if ((*pp)->b.set)
			cpc_unbind(v1_cpc, (*pp)->b.set);
		(*pp)->invalid = 1;
	}
	pthread_mutex_unlock(&v1_lock);
	if (!pp) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}
