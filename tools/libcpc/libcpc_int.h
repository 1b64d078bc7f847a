/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The cpc_t, set, request and buffer structures of libcpc, shared by
 * libcpc.c (handles, sets, buffers, names) and bind.c (binding, sampling
 * and the per-binding bookkeeping).  Nothing here is exported.
 */
#ifndef LIBCPC_INT_H
#define LIBCPC_INT_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include "libcpc_impl.h"

#define SET_MAGIC	0x43504353U	/* "CPCS" */
#define BUF_MAGIC	0x43504342U	/* "CPCB" */

/* The most CPUs a set can be bound to (a sanity bound for the masks). */
#define CPC_MAX_CPU	(1 << 20)

enum cpc_state {
	CS_UNBOUND,
	CS_BOUND_CURLWP,
	CS_BOUND_PCTX,
	CS_BOUND_CPU,
};

struct cpc_req {
	struct cpc_req *next;		/* the next older request */
	int index;
	char event[CPC_MAX_EVENT_LEN];
	uint64_t preset;		/* as added */
	uint_t flags;
	uint_t nattrs;
	cpc_attr_t *attrs;		/* names point into names[] */
	struct cpcev_attr *eattrs;	/* the same, for events.c */
	char (*names)[CPC_MAX_ATTR_LEN];
};

/*
 * One kernel binding of a set.  As on Solaris, a set can be bound again
 * without an unbind: by several threads at once (each its own binding),
 * to several LWPs of a process context, and to another CPU (which
 * replaces the set's CPU binding, as illumos closes the previous
 * descriptor).
 */
struct cpc_bind {
	struct cpc_bind *next;		/* the next older binding of the set */
	int kind;			/* CS_BOUND_* */
	uint32_t id;			/* the kernel's id; 0 for CURLWP */
	/* CURLWP: the bound thread; PCTX: the LWP's; CPU: the binder */
	pid_t thr;
	pctx_t *pctx;			/* PCTX */
	cpu_set_t *oldmask;		/* CPU: the affinity to restore */
	size_t oldmasksz;
};

struct __cpc_set {
	uint32_t magic;
	cpc_t *cpc;
	struct __cpc_set *next;
	struct cpc_req *reqs;		/* newest first */
	int nreqs;
	struct cpc_bind *binds;		/* newest first; under the lock */
	/*
	 * The newest binding's kind (CS_UNBOUND: none) and kernel id, read
	 * without the lock by the calls safe in a SIGEMT handler.
	 */
	int state;			/* atomic */
	uint32_t id;			/* atomic */
};

struct __cpc_buf {
	uint32_t magic;
	struct __cpc_buf *next;
	uint64_t *data;
	size_t size;			/* bytes */
	hrtime_t hrtime;
	uint64_t tick;
};

struct __cpc {
	int fd;
	pthread_mutex_t lock;
	sigset_t caller_mask;		/* while locked: the mask before cpc_lock() */
	int have_caller_mask;
	cpc_errhndlr_t *errfn;
	struct __cpc_set *sets;
	struct __cpc_buf *bufs;
	uint_t npic;
	uint_t caps;
	uint_t hw_pmu;
	struct cpcev_cpu cpu;
	char cciname[CPC_MAX_IMPL_NAME];
	char cpuref[CPC_MAX_CPUREF];
};

/* libcpc.c */
void __cpc_lock(cpc_t *cpc, sigset_t *old);
int __cpc_trylock(cpc_t *cpc, sigset_t *old);
void __cpc_unlock(cpc_t *cpc, const sigset_t *old);
int __cpc_set_valid(cpc_t *cpc, cpc_set_t *set);
int __cpc_result(cpc_t *cpc, const char *fn, int err, int subcode);
/*
 * Whether the requests from head on fit the counters (libcpc.c): Solaris'
 * kernel refuses a set that does not, at bind, with CPC_RESOURCE_UNAVAIL.
 */
int __cpc_reqs_fit(cpc_t *cpc, const struct cpc_req *head);

static inline int __cpc_set_state(const cpc_set_t *set)
{
	return __atomic_load_n(&set->state, __ATOMIC_ACQUIRE);
}

/* A live set of cpc, without the lock: for the signal-handler calls. */
static inline int __cpc_set_ok(cpc_t *cpc, cpc_set_t *set)
{
	return cpc && set && set->magic == SET_MAGIC && set->cpc == cpc;
}

/*
 * bind.c: release every binding of set (the lock is held), whatever the
 * kernel says; the bindings are moved to *gone, for __cpc_binds_free()
 * after the lock is dropped.
 */
void __cpc_set_unbind_all(cpc_t *cpc, cpc_set_t *set, struct cpc_bind **gone);
void __cpc_binds_free(struct cpc_bind *b);

#endif /* LIBCPC_INT_H */
