/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * <sys/procset.h> - the Solaris header of process-set id types, as the
 * SYNOPSIS of processor_bind(2) includes it: idtype_t with P_PID, P_PGID,
 * P_ALL (glibc's <sys/wait.h>) and Solaris' P_LWPID, and P_MYID.  They are
 * defined in <sys/processor.h>, which this header includes.  Solaris'
 * procset_t and sigsend(2) are not provided.
 */
#ifndef _SYS_PROCSET_H
#define _SYS_PROCSET_H

#include <sys/processor.h>

#endif /* _SYS_PROCSET_H */
