/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * <sys/processor.h> - the Solaris processor_bind(2) interface for Linux, in
 * libcpc (cc prog.c -lcpc).  See processor_bind(2).
 */
#ifndef _SYS_PROCESSOR_H
#define _SYS_PROCESSOR_H

#include <sys/types.h>
#include <sys/wait.h>		/* idtype_t: P_PID, P_PGID, P_ALL */
/* Strict ISO C modes leave out the XSI types that this interface takes. */
#include <bits/types/idtype_t.h>
#ifndef __id_t_defined
typedef __id_t id_t;
#define __id_t_defined
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef _PMCOMPAT_PROCESSORID_T
#define _PMCOMPAT_PROCESSORID_T
typedef int processorid_t;		/* a CPU number, as in sched_setaffinity(2) */
#endif

/* Solaris' idtype_t names glibc lacks; values clear of glibc's. */
#ifndef P_LWPID
#define P_LWPID		((idtype_t)8)	/* id is a thread (LWP) id */
#endif
#define P_MYID		(-1)		/* id: the calling process or thread */

#define PBIND_NONE	(-1)		/* cpu: no binding */
#define PBIND_QUERY	(-2)		/* cpu: change nothing, report */

int processor_bind(idtype_t idtype, id_t id, processorid_t processorid,
		   processorid_t *obind);

#ifdef __cplusplus
}
#endif

#endif /* _SYS_PROCESSOR_H */
