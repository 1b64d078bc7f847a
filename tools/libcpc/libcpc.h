/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * <libcpc.h> - the Solaris libcpc(3LIB) version 2 interface for Linux, on the
 * pmcompat /dev/cpc device.  See libcpc(3LIB).
 *
 * Besides the libcpc API this header provides the few Solaris definitions
 * that libcpc programs take for granted (hrtime_t, gethrtime() and <sys/time.h>,
 * processorid_t, uint_t, _lwp_self(), SIGEMT, EMT_CPCOVF and the <sys/regset.h> names PC, SP,
 * REG_PC, REG_SP), so that they compile unchanged.  Each of them steps
 * aside for a port that defines it as a macro first (uperf's
 * "#define hrtime_t uint64_t", a "#define _lwp_self() ...").  The obsolete
 * CPCv1 interface is in <libcpc.h> too (libcpc_v1.c).
 */
#ifndef _LIBCPC_H
#define _LIBCPC_H

#include <sys/types.h>
#include <sys/syscall.h>
#include <sys/cpc_impl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <signal.h>
/*
 * Solaris' <string.h> does not declare index() and rindex(); glibc's does
 * (through <strings.h>), which breaks programs that, like the examples of
 * cpc_bind_curlwp(3CPC), have a global variable named index.  Keep them
 * out, unless <strings.h> has been included already.
 */
#if !defined(_STRINGS_H)
#define index	__libcpc_hidden_index
#define rindex	__libcpc_hidden_rindex
#include <string.h>
#undef index
#undef rindex
/*
 * A later #include <strings.h>, or <string.h> (which includes <strings.h>
 * in glibc's default mode), declares them after all: their declarations
 * repeat harmlessly, and the fortified inlines have guards of their own.
 * In C++ <string.h> defines inline overloads (strchr, ...) that may not
 * be defined twice: there only a later <strings.h> declares index().
 */
#undef _STRINGS_H
#ifndef __cplusplus
#undef _STRING_H
#endif
#else
#include <string.h>
#endif
#include <sys/time.h>
#include <ucontext.h>
#include <libpctx.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Solaris types and definitions that Linux lacks ---------------------- */

#ifndef _PMCOMPAT_UINT_T
#define _PMCOMPAT_UINT_T
typedef unsigned int uint_t;
#endif
/* A port's "#define hrtime_t uint64_t" (uperf) stands: same size. */
#ifndef hrtime_t
__extension__ typedef long long hrtime_t;	/* nanoseconds */
#endif
#ifndef _PMCOMPAT_PROCESSORID_T
#define _PMCOMPAT_PROCESSORID_T
typedef int processorid_t;		/* a CPU number, as in sched_setaffinity(2) */
#endif

/*
 * gethrtime(3C): nanoseconds of CLOCK_MONOTONIC, which never goes back (in
 * libcpc; Solaris declares it in <sys/time.h>, which <libcpc.h> brings in).
 */
#if !defined(gethrtime) && !defined(_LIBCPC_NO_GETHRTIME)
hrtime_t gethrtime(void);
#endif

/*
 * SIGEMT: the overflow signal.  x86 Linux has no SIGEMT; libcpc uses this
 * fixed real-time signal (SIGRTMIN is 34 with glibc, SIGRTMAX 64).
 */
#ifndef SIGEMT
#define SIGEMT		40
#endif

/* si_code of an overflow SIGEMT (the value of Solaris' <sys/machsig.h>). */
#ifndef EMT_CPCOVF
#define EMT_CPCOVF	2
#endif

/* Register indices in uc_mcontext.gregs[], named as in <sys/regset.h>. */
#if defined(__x86_64__)
#ifndef REG_PC
#define REG_PC		16	/* REG_RIP */
#endif
#ifndef REG_SP
#define REG_SP		15	/* REG_RSP */
#endif
#elif defined(__i386__)
#ifndef REG_PC
#define REG_PC		14	/* REG_EIP */
#endif
#ifndef REG_SP
#define REG_SP		17	/* REG_UESP */
#endif
#endif
/* The short names, unless the program asks not to have them. */
#if defined(REG_PC) && !defined(_LIBCPC_NO_REGSET_NAMES)
#ifndef PC
#define PC		REG_PC
#endif
#ifndef SP
#define SP		REG_SP
#endif
#endif

/* The id of the calling thread (LWP): its Linux thread id, gettid(2). */
#ifndef _lwp_self
extern long __libcpc_syscall(long __nr, ...) __asm__("syscall");
static __inline__ id_t _lwp_self(void)
{
	return (id_t)__libcpc_syscall(SYS_gettid);
}
#endif

/* ---- libcpc -------------------------------------------------------------- */

#define CPC_VER_CURRENT		2

typedef struct __cpc cpc_t;
typedef struct __cpc_set cpc_set_t;
typedef struct __cpc_buf cpc_buf_t;

typedef void (cpc_errhndlr_t)(const char *fn, int subcode, const char *fmt,
			      va_list ap);

extern cpc_t *cpc_open(int ver);
extern int cpc_close(cpc_t *cpc);

extern uint_t cpc_npic(cpc_t *cpc);
extern uint_t cpc_caps(cpc_t *cpc);
extern const char *cpc_cciname(cpc_t *cpc);
extern const char *cpc_cpuref(cpc_t *cpc);

extern int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn);

extern cpc_set_t *cpc_set_create(cpc_t *cpc);
extern int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set);
extern int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event,
			       uint64_t preset, uint_t flags, uint_t nattrs,
			       const cpc_attr_t *attrs);

extern cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set);
extern int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf);

extern int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags);
extern int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set,
			 uint_t flags);
extern int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set,
			uint_t flags);
extern int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset);
extern int cpc_set_restart(cpc_t *cpc, cpc_set_t *set);
extern int cpc_unbind(cpc_t *cpc, cpc_set_t *set);
extern int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf);

extern void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b);
extern void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b);
extern void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src);
extern void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf);
extern int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val);
extern int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val);
extern hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf);
extern uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf);

extern void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
			      void (*action)(void *arg, int index,
					     const char *event, uint64_t preset,
					     uint_t flags, int nattrs,
					     const cpc_attr_t *attrs));
extern void cpc_walk_events_all(cpc_t *cpc, void *arg,
				void (*action)(void *arg, const char *event));
extern void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
					void (*action)(void *arg,
						       const char *event));
extern void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
				void (*action)(void *arg, uint_t picno,
					       const char *event));
extern void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
					void (*action)(void *arg, uint_t picno,
						       const char *event));
extern void cpc_walk_attrs(cpc_t *cpc, void *arg,
			   void (*action)(void *arg, const char *attr));

/*
 * An extension (Solaris keeps it in cpustat and cputrack): a set from an
 * event specification, "[picN=]event[,attr[N][=val]][,...]".  Errors go to
 * the error handler with subcode 0.  smt is accepted and ignored.
 */
extern cpc_set_t *cpc_strtoset(cpc_t *cpc, const char *spec, int smt);

extern int cpc_enable(cpc_t *cpc);
extern int cpc_disable(cpc_t *cpc);
extern void cpc_terminate(cpc_t *cpc);

#ifdef __cplusplus
}
#endif


/* ---- CPCv1: the obsolete version 1 interface ------------------------------ */
/*
 * Solaris 8 and 9's libcpc interface, kept by Solaris 10 and later on top
 * of version 2 (declared there for SPARC and 32-bit x86 only); here it is a
 * layer over the version 2 calls above, on every x86 Linux.  See
 * cpc_version(3CPC) and the pages it refers to.
 */
#ifdef __cplusplus
extern "C" {
#endif

#define CPC_VER_NONE		0

/* cpc_getcpuver() values (x86; the SPARC ones for completeness). */
#define CPC_ULTRA1		1000
#define CPC_ULTRA2		1001
#define CPC_ULTRA3		1002
#define CPC_ULTRA3_PLUS		1003
#define CPC_ULTRA3_I		1004
#define CPC_ULTRA4_PLUS		1005
#define CPC_PENTIUM		2000
#define CPC_PENTIUM_MMX		2001
#define CPC_PENTIUM_PRO		2002
#define CPC_PENTIUM_PRO_MMX	2003	/* every Intel family 6 processor */
#define CPC_PMCOMPAT_X86	2100	/* pmcompat: any other x86 processor */
#define CPC_PMCOMPAT_ARM64	2200	/* pmcompat: any arm64 processor (ARMv8 PMUv3) */
#define CPC_SPARC64_III		3000
#define CPC_SPARC64_V		3002

/* The x86 form: two counters, their PerfEvtSel images, the TSC. */
typedef struct _cpc_event {
	int ce_cpuver;			/* cpc_getcpuver() */
	hrtime_t ce_hrt;		/* when sampled, ns (gethrtime()) */
	uint64_t ce_tsc;		/* the time-stamp counter */
	uint64_t ce_pic[2];		/* the counts (at a bind: the presets) */
	uint32_t ce_pes[2];		/* the counters' event-select registers */
#define ce_cesr	ce_pes[0]
} cpc_event_t;

#define CPC_TICKREG_NAME	"tsc"
#define CPC_TICKREG(ev)		((ev)->ce_tsc)

typedef void (cpc_errfn_t)(const char *fn, const char *fmt, va_list ap);

extern uint_t cpc_version(uint_t ver);
extern int cpc_access(void);
extern void cpc_seterrfn(cpc_errfn_t *errfn);

extern int cpc_getcpuver(void);
extern const char *cpc_getcciname(int cpuver);
extern const char *cpc_getcpuref(int cpuver);
extern const char *cpc_getusage(int cpuver);
extern uint_t cpc_getnpic(int cpuver);
extern void cpc_walk_names(int cpuver, int regno, void *arg,
			   void (*action)(void *arg, int regno,
					  const char *name, uint8_t bits));

extern int cpc_strtoevent(int cpuver, const char *spec, cpc_event_t *event);
extern char *cpc_eventtostr(cpc_event_t *event);
extern void cpc_event_accum(cpc_event_t *accum, cpc_event_t *event);
extern void cpc_event_diff(cpc_event_t *diff, cpc_event_t *after,
			   cpc_event_t *before);

extern int cpc_bind_event(cpc_event_t *event, int flags);
extern int cpc_take_sample(cpc_event_t *event);
extern int cpc_count_usr_events(int enable);
extern int cpc_count_sys_events(int enable);
extern int cpc_rele(void);

extern int cpc_pctx_bind_event(pctx_t *pctx, id_t lwpid, cpc_event_t *event,
			       int flags);
extern int cpc_pctx_take_sample(pctx_t *pctx, id_t lwpid, cpc_event_t *event);
extern int cpc_pctx_rele(pctx_t *pctx, id_t lwpid);
extern int cpc_pctx_invalidate(pctx_t *pctx, id_t lwpid);

#ifdef __cplusplus
}
#endif

#endif /* _LIBCPC_H */
