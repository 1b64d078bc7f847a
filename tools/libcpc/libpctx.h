/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * <libpctx.h> - Solaris libpctx(3LIB) process contexts for libcpc on Linux.
 * The functions live in libcpc (pkg-config libcpc).
 *
 * pctx_create() and pctx_capture() name a process; pctx_run() follows it,
 * its threads (LWPs) and, with a fork handler, its children through
 * ptrace(2), calling the handlers of pctx_set_events() at their events, so
 * that their counters can be bound with cpc_bind_pctx(3CPC).  See
 * pctx_capture(3CPC).
 */
#ifndef _LIBPCTX_H
#define _LIBPCTX_H

#include <sys/types.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* <sys/types.h> declares id_t only with the POSIX features (the default). */
#if defined(__GLIBC__) && !defined(__id_t_defined)
typedef __id_t id_t;
#define __id_t_defined
#endif

#ifndef _PMCOMPAT_UINT_T
#define _PMCOMPAT_UINT_T
typedef unsigned int uint_t;
#endif

typedef struct __pctx pctx_t;

typedef void (pctx_errfn_t)(const char *fn, const char *fmt, va_list ap);

typedef enum {
	PCTX_NULL_EVENT = 0,
	PCTX_SYSC_EXEC_EVENT = 1,
	PCTX_SYSC_FORK_EVENT = 2,
	PCTX_SYSC_EXIT_EVENT = 3,
	PCTX_SYSC_LWP_CREATE_EVENT = 4,
	PCTX_INIT_LWP_EVENT = 5,
	PCTX_FINI_LWP_EVENT = 6,
	PCTX_SYSC_LWP_EXIT_EVENT = 7
} pctx_event_t;

typedef int (pctx_sysc_execfn_t)(pctx_t *pctx, pid_t pid, id_t lwpid,
				 char *name, void *arg);
typedef void (pctx_sysc_forkfn_t)(pctx_t *pctx, pid_t pid, id_t lwpid,
				  pid_t child, void *arg);
typedef void (pctx_sysc_exitfn_t)(pctx_t *pctx, pid_t pid, id_t lwpid,
				  int status, void *arg);
typedef int (pctx_sysc_lwp_createfn_t)(pctx_t *pctx, pid_t pid, id_t lwpid,
				       void *arg);
typedef int (pctx_init_lwpfn_t)(pctx_t *pctx, pid_t pid, id_t lwpid,
				void *arg);
typedef int (pctx_fini_lwpfn_t)(pctx_t *pctx, pid_t pid, id_t lwpid,
				void *arg);
typedef int (pctx_sysc_lwp_exitfn_t)(pctx_t *pctx, pid_t pid, id_t lwpid,
				     void *arg);

extern pctx_t *pctx_create(const char *filename, char *const *argv, void *arg,
			   int verbose, pctx_errfn_t *errfn);
extern pctx_t *pctx_capture(pid_t pid, void *arg, int verbose,
			    pctx_errfn_t *errfn);
extern int pctx_set_events(pctx_t *pctx, ...);
extern int pctx_run(pctx_t *pctx, uint_t msec, uint_t nsamples,
		    int (*tick)(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg));
extern void pctx_release(pctx_t *pctx);
extern void pctx_terminate(pctx_t *pctx);

#ifdef __cplusplus
}
#endif

#endif /* _LIBPCTX_H */
