// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libcpc: binding sets, sampling them, and the bookkeeping of the bindings.
 *
 * As on Solaris, a set can be bound again without being unbound first.
 * Each bind makes a kernel binding of its own (the module knows no sets), so
 * a set keeps a list of them (struct cpc_bind):
 *
 *  - cpc_bind_curlwp(): one per thread.  Several threads can bind one set
 *    at once; each samples (id 0: the calling thread's binding) and
 *    unbinds its own.  A thread's bind replaces its previous binding of
 *    any set of the handle (the kernel keeps one per thread).
 *  - cpc_bind_pctx(): one per LWP; binding an LWP again (an init_lwp
 *    handler after an exec, with no unbind in fini_lwp) replaces that
 *    LWP's binding.  Inside a pctx_run() handler, sampling and unbinding
 *    act on the binding of the LWP the handler runs for; elsewhere on the
 *    newest one, as Solaris does.
 *  - cpc_bind_cpu(): one per set.  Binding the set to a CPU again (a loop
 *    over the CPUs) replaces its CPU binding, as illumos closes the
 *    previous descriptor; cpc_unbind() gives back the affinity the first
 *    of those binds found.
 *
 * Locking is libcpc.c's (the cpc_t's mutex, SIGEMT blocked, no malloc()
 * or free() under it); cpc_set_sample(), cpc_set_restart() and
 * cpc_request_preset() take no lock they would wait for.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <linux/perf_event.h>

#include "libcpc_int.h"

static int cpc_ioctl_id(cpc_t *cpc, unsigned long cmd, uint32_t id)
{
	return ioctl(cpc->fd, cmd, &id) < 0 ? errno : 0;
}

/*
 * Release a binding (the lock is held) with the caller's own signal mask in
 * force: an overflow signal that became pending while the lock held SIGEMT
 * back is delivered now, while its set can still be sampled, not after the
 * unbind.  The SIGEMT handler's calls take no lock, so this is safe.
 */
static int cpc_kernel_rele(cpc_t *cpc, uint32_t id)
{
	sigset_t cur;
	int err;

	if (cpc->have_caller_mask)
		pthread_sigmask(SIG_SETMASK, &cpc->caller_mask, &cur);
	err = cpc_ioctl_id(cpc, PMC_CPC_RELE, id);
	if (cpc->have_caller_mask)
		pthread_sigmask(SIG_SETMASK, &cur, NULL);
	return err;
}

/* ---- the bookkeeping --------------------------------------------------------- */

void __cpc_binds_free(struct cpc_bind *b)
{
	struct cpc_bind *next;

	for (; b; b = next) {
		next = b->next;
		free(b->oldmask);
		free(b);
	}
}

/* The newest binding's kind and id, for the lock-free calls (lock held). */
static void set_publish(cpc_set_t *set)
{
	struct cpc_bind *b = set->binds;

	__atomic_store_n(&set->id, b ? b->id : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&set->state, b ? b->kind : CS_UNBOUND, __ATOMIC_RELEASE);
}

/* Take b off set's list (lock held); the caller frees it. */
static void bind_unlink(cpc_set_t *set, struct cpc_bind *b)
{
	struct cpc_bind **pp;

	for (pp = &set->binds; *pp; pp = &(*pp)->next) {
		if (*pp == b) {
			*pp = b->next;
			b->next = NULL;
			break;
		}
	}
	set_publish(set);
}

static void bind_add(cpc_set_t *set, struct cpc_bind *b)
{
	b->next = set->binds;
	set->binds = b;
	set_publish(set);
}

/* Move b to the list *gone (lock held). */
static void bind_drop(cpc_set_t *set, struct cpc_bind *b, struct cpc_bind **gone)
{
	bind_unlink(set, b);
	b->next = *gone;
	*gone = b;
}

/*
 * The kernel replaced the binding of thread thr (of kind): forget it in
 * every set of cpc (lock held).
 */
static void binds_replaced(cpc_t *cpc, int kind, pid_t thr,
			   struct cpc_bind **gone)
{
	struct cpc_bind *b, *next;
	cpc_set_t *s;

	for (s = cpc->sets; s; s = s->next) {
		for (b = s->binds; b; b = next) {
			next = b->next;
			if (b->kind == kind && b->thr == thr)
				bind_drop(s, b, gone);
		}
	}
}

/* The set's binding of kind made for (or by) thread thr, or NULL. */
static struct cpc_bind *bind_of(cpc_set_t *set, int kind, pid_t thr)
{
	struct cpc_bind *b;

	for (b = set->binds; b; b = b->next)
		if (b->kind == kind && b->thr == thr)
			return b;
	return NULL;
}

/*
 * The binding a call names (lock held): the calling thread's own CURLWP
 * binding; inside a pctx_run() handler, the binding of its LWP; else the
 * newest one.
 */
static struct cpc_bind *bind_current(cpc_set_t *set)
{
	struct cpc_bind *b = bind_of(set, CS_BOUND_CURLWP, gettid());

	if (b)
		return b;
	for (b = set->binds; b; b = b->next)
		if (b->kind == CS_BOUND_PCTX && b->pctx &&
		    __pctx_cur_tid(b->pctx) == b->thr)
			return b;
	return set->binds;
}

/* Any other PCTX binding of pctx among cpc's sets (lock held)? */
static int pctx_still_bound(cpc_t *cpc, pctx_t *pctx)
{
	struct cpc_bind *b;
	cpc_set_t *s;

	for (s = cpc->sets; s; s = s->next)
		for (b = s->binds; b; b = b->next)
			if (b->kind == CS_BOUND_PCTX && b->pctx == pctx)
				return 1;
	return 0;
}

/*
 * Release binding b of set (lock held) and move it to *gone.  Returns 0 or
 * an errno value; with force, b goes whatever the kernel says.  A CURLWP
 * binding can only be released by its own thread (the kernel names it by
 * id 0): another thread's is only forgotten, with force.
 */
static int bind_release(cpc_t *cpc, cpc_set_t *set, struct cpc_bind *b,
			int force, struct cpc_bind **gone)
{
	int err = 0;

	if (b->kind == CS_BOUND_CURLWP) {
		if (b->thr != gettid()) {
			if (!force)
				return EINVAL;
		} else {
			err = cpc_kernel_rele(cpc, 0);
		}
	} else {
		err = cpc_kernel_rele(cpc, b->id);
	}
	/* EINVAL: the kernel has no such binding (any more). */
	if (err == EINVAL)
		err = 0;
	if (err && !force)
		return err;
	if (b->kind == CS_BOUND_CPU && b->oldmask)
		sched_setaffinity(b->thr, b->oldmasksz, b->oldmask);
	bind_drop(set, b, gone);
	if (b->kind == CS_BOUND_PCTX && b->pctx &&
	    __pctx_get_cpc(b->pctx) == cpc && !pctx_still_bound(cpc, b->pctx))
		__pctx_set_cpc(b->pctx, NULL);
	return err;
}

void __cpc_set_unbind_all(cpc_t *cpc, cpc_set_t *set, struct cpc_bind **gone)
{
	while (set->binds)
		bind_release(cpc, set, set->binds, 1, gone);
}

/* ---- binding ------------------------------------------------------------------- */

/*
 * The kernel requests of set (the lock is held).  Returns 0 or an errno
 * value, with the CPC_* subcode in *subcode when there is one.
 */
static int set_build(cpc_t *cpc, cpc_set_t *set,
		     struct pmc_cpc_request *kreqs, int *subcode, int *hw)
{
	uint64_t picnums = 0;
	struct cpc_req *r;

	if (set->nreqs <= 0)
		return EINVAL;
	if (set->nreqs > PMC_CPC_MAX_REQS || !__cpc_reqs_fit(cpc, set->reqs)) {
		*subcode = CPC_RESOURCE_UNAVAIL;
		return EINVAL;
	}
	*hw = 0;
	for (r = set->reqs; r; r = r->next) {
		struct pmc_cpc_request *k = &kreqs[r->index];
		struct cpcev_perf perf;
		uint_t i;
		int sc;

		if (r->flags & ~KCPC_REQ_ALL_FLAGS) {
			*subcode = CPC_REQ_INVALID_FLAGS;
			return EINVAL;
		}
		sc = cpcev_resolve(&cpc->cpu, r->event, r->eattrs, r->nattrs,
				   &perf);
		if (sc) {
			*subcode = sc;
			return EINVAL;
		}
		/* Two requests for one counter cannot both be placed. */
		for (i = 0; i < r->nattrs; i++) {
			uint64_t bit;

			if (strcmp(r->names[i], "picnum"))
				continue;
			bit = 1ULL << r->attrs[i].ca_val;
			if (picnums & bit) {
				*subcode = CPC_RESOURCE_UNAVAIL;
				return EINVAL;
			}
			picnums |= bit;
		}
		if ((r->flags & CPC_OVF_NOTIFY_EMT) &&
		    !(cpc->caps & CPC_CAP_OVERFLOW_INTERRUPT))
			return ENOTSUP;
		memset(k, 0, sizeof(*k));
		k->type = perf.type;
		k->flags = r->flags;
		k->config = perf.config;
		k->preset = r->preset;
		k->index = r->index;
		if (perf.type != PERF_TYPE_SOFTWARE)
			*hw = 1;
	}
	return 0;
}

/* PMC_CPC_BIND of set (the lock is held): 0 and *id, or an errno value. */
static int set_kbind(cpc_t *cpc, cpc_set_t *set, uint32_t scope,
		     uint_t flags, pid_t pid, pid_t tid, int cpu,
		     uint32_t *id, int *subcode)
{
	struct pmc_cpc_request kreqs[PMC_CPC_MAX_REQS];
	struct pmc_cpc_bind bind;
	int err, hw;

	err = set_build(cpc, set, kreqs, subcode, &hw);
	if (err)
		return err;
	memset(&bind, 0, sizeof(bind));
	bind.size = sizeof(bind);
	bind.scope = scope;
	bind.flags = flags;
	bind.nreqs = (uint32_t)set->nreqs;
	bind.pid = pid;
	bind.tid = tid;
	bind.cpu = cpu;
	bind.signo = SIGEMT;
	bind.si_code = EMT_CPCOVF;
	bind.reqs = (uintptr_t)kreqs;
	bind.subcode = -1;
	if (ioctl(cpc->fd, PMC_CPC_BIND, &bind) < 0) {
		err = errno;
		if (err == EINVAL && bind.subcode > 0)
			*subcode = bind.subcode;
		/* For a CPU, ENODEV means offline, unless it is the PMU. */
		if (scope == PMC_CPC_BIND_CPU && err == ENODEV &&
		    (cpc->hw_pmu || !hw))
			err = ENOSYS;
		return err;
	}
	*id = bind.id;
	return 0;
}

CPC_EXPORT int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags)
{
	struct cpc_bind *b, *gone = NULL;
	pid_t self = gettid();
	int err, subcode = 0;
	uint32_t id = 0;
	sigset_t old;

	if (!cpc || (flags & ~CPC_SET_ALL_FLAGS)) {
		errno = EINVAL;
		return -1;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -1;
	__cpc_lock(cpc, &old);
	/* Bound elsewhere or not, as on Solaris: this thread binds it too. */
	if (!__cpc_set_valid(cpc, set))
		err = EINVAL;
	else
		err = set_kbind(cpc, set, PMC_CPC_BIND_CURLWP, flags, 0, 0, -1,
				&id, &subcode);
	if (!err) {
		/* The kernel replaced this thread's previous binding. */
		binds_replaced(cpc, CS_BOUND_CURLWP, self, &gone);
		b->kind = CS_BOUND_CURLWP;
		b->thr = self;
		bind_add(set, b);
		b = NULL;
	}
	__cpc_unlock(cpc, &old);
	free(b);
	__cpc_binds_free(gone);
	return __cpc_result(cpc, "cpc_bind_curlwp", err, subcode);
}

CPC_EXPORT int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id,
			     cpc_set_t *set, uint_t flags)
{
	struct cpc_bind *b, *gone = NULL;
	int err, subcode = 0;
	uint32_t kid = 0;
	pid_t pid, tid;
	sigset_t old;

	if (!cpc || !pctx || flags) {
		errno = EINVAL;
		return -1;
	}
	pid = __pctx_pid(pctx);
	/*
	 * The LWPs pctx_run() follows are numbered as on Solaris (1, 2, ...);
	 * otherwise LWP ids are thread ids, and LWP 1 is the main thread.
	 */
	tid = __pctx_tid(pctx, id);
	b = calloc(1, sizeof(*b));
	if (!b)
		return -1;
	__cpc_lock(cpc, &old);
	if (!__cpc_set_valid(cpc, set))
		err = EINVAL;
	else
		err = set_kbind(cpc, set, PMC_CPC_BIND_PCTX, 0, pid, tid, -1,
				&kid, &subcode);
	if (!err) {
		/* The kernel replaced that LWP's previous binding. */
		binds_replaced(cpc, CS_BOUND_PCTX, tid, &gone);
		b->kind = CS_BOUND_PCTX;
		b->id = kid;
		b->thr = tid;
		b->pctx = pctx;
		bind_add(set, b);
		b = NULL;
		__pctx_set_cpc(pctx, cpc);
	}
	__cpc_unlock(cpc, &old);
	free(b);
	__cpc_binds_free(gone);
	return __cpc_result(cpc, "cpc_bind_pctx", err, subcode);
}

/* The calling thread's affinity mask, allocated; NULL and errno on failure. */
static cpu_set_t *affinity_get(size_t *size, size_t *ncpus)
{
	size_t n = CPU_SETSIZE;

	for (;;) {
		size_t sz = CPU_ALLOC_SIZE(n);
		cpu_set_t *mask = CPU_ALLOC(n);

		if (!mask)
			return NULL;
		if (!sched_getaffinity(0, sz, mask)) {
			*size = sz;
			*ncpus = n;
			return mask;
		}
		CPU_FREE(mask);
		if (errno != EINVAL || n >= CPC_MAX_CPU)
			return NULL;
		n *= 2;
	}
}

/* A processor that exists but is offline (Solaris: ENOSYS, not EINVAL). */
static int cpu_offline(processorid_t id)
{
	char path[64], c = '1';
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = '1';
	close(fd);
	return c == '0';
}

CPC_EXPORT int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set,
			    uint_t flags)
{
	cpu_set_t *oldmask = NULL, *newmask = NULL;
	size_t oldsz = 0, newsz = 0, n = 0;
	struct cpc_bind *b = NULL, *prev, *gone = NULL;
	int err = 0, subcode = 0;
	pid_t self = gettid();
	uint32_t kid = 0;
	sigset_t old;

	if (!cpc || flags) {
		errno = EINVAL;
		return -1;
	}
	/* Like processor_bind(2): a bad processor fails the pinning. */
	if (id < 0 || id >= CPC_MAX_CPU) {
		err = EINVAL;
		subcode = CPC_PBIND_FAILED;
	} else {
		oldmask = affinity_get(&oldsz, &n);
		if (n < (size_t)id + 1)
			n = (size_t)id + 1;
		newmask = oldmask ? CPU_ALLOC(n) : NULL;
		b = newmask ? calloc(1, sizeof(*b)) : NULL;
		if (!b) {
			err = errno ? errno : ENOMEM;
			subcode = CPC_PBIND_FAILED;
		} else {
			newsz = CPU_ALLOC_SIZE(n);
			CPU_ZERO_S(newsz, newmask);
			CPU_SET_S((size_t)id, newsz, newmask);
		}
	}

	if (!err) {
		__cpc_lock(cpc, &old);
		prev = __cpc_set_valid(cpc, set) ? set->binds : NULL;
		while (prev && prev->kind != CS_BOUND_CPU)
			prev = prev->next;
		if (!__cpc_set_valid(cpc, set)) {
			err = EINVAL;
		} else if (prev) {
			/*
			 * Bound to a CPU already: as illumos closes the previous
			 * descriptor, that binding goes first.  The affinity to
			 * give back at the unbind is the one the first bind
			 * found.
			 */
			if (prev->thr == self) {
				free(oldmask);
				oldmask = prev->oldmask;
				oldsz = prev->oldmasksz;
				prev->oldmask = NULL;
			}
			bind_release(cpc, set, prev, 1, &gone);
		}
		if (err) {
			/* nothing */
		} else if (sched_setaffinity(0, newsz, newmask) < 0) {
			err = errno;
			subcode = CPC_PBIND_FAILED;
			if (err == EINVAL && cpu_offline(id)) {
				err = ENOSYS;
				subcode = 0;
			}
		} else {
			err = set_kbind(cpc, set, PMC_CPC_BIND_CPU, 0, 0, 0, id,
					&kid, &subcode);
			if (err)
				sched_setaffinity(0, oldsz, oldmask);
		}
		if (!err) {
			b->kind = CS_BOUND_CPU;
			b->id = kid;
			b->thr = self;
			b->oldmask = oldmask;
			b->oldmasksz = oldsz;
			oldmask = NULL;
			bind_add(set, b);
			b = NULL;
		}
		__cpc_unlock(cpc, &old);
	}
	free(b);
	__cpc_binds_free(gone);
	if (oldmask)
		CPU_FREE(oldmask);
	if (newmask)
		CPU_FREE(newmask);
	return __cpc_result(cpc, "cpc_bind_cpu", err, subcode);
}

CPC_EXPORT int cpc_unbind(cpc_t *cpc, cpc_set_t *set)
{
	struct cpc_bind *b, *gone = NULL;
	sigset_t old;
	int err;

	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	__cpc_lock(cpc, &old);
	b = __cpc_set_valid(cpc, set) ? bind_current(set) : NULL;
	err = b ? bind_release(cpc, set, b, 0, &gone) : EINVAL;
	__cpc_unlock(cpc, &old);
	__cpc_binds_free(gone);
	return __cpc_result(cpc, "cpc_unbind", err, 0);
}

/* ---- sampling and overflow: safe in a SIGEMT handler ------------------------- */

/*
 * The kernel id a lock-free call names: 0 (the calling thread's binding)
 * for a CURLWP set; inside a pctx_run() handler the binding of its LWP,
 * when the lock is free; else the newest binding.
 */
static uint32_t set_kid(cpc_t *cpc, cpc_set_t *set, int state)
{
	uint32_t id = __atomic_load_n(&set->id, __ATOMIC_RELAXED);
	struct cpc_bind *b;
	sigset_t old;

	if (state == CS_BOUND_CURLWP)
		return 0;
	if (state == CS_BOUND_PCTX && __cpc_trylock(cpc, &old) == 0) {
		b = bind_current(set);
		if (b && b->kind == CS_BOUND_PCTX)
			id = b->id;
		__cpc_unlock(cpc, &old);
	}
	return id;
}

CPC_EXPORT int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	struct pmc_cpc_sample s;
	int state;

	if (!__cpc_set_ok(cpc, set) || !buf || buf->magic != BUF_MAGIC) {
		errno = EINVAL;
		return -1;
	}
	state = __cpc_set_state(set);
	if (state == CS_UNBOUND ||
	    buf->size != (size_t)set->nreqs * sizeof(uint64_t)) {
		errno = EINVAL;
		return -1;
	}
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	/* id 0: the calling thread's own binding, or the one it inherited. */
	s.id = set_kid(cpc, set, state);
	s.nvals = (uint32_t)set->nreqs;
	s.vals = (uintptr_t)buf->data;
	if (ioctl(cpc->fd, PMC_CPC_SAMPLE, &s) < 0)
		return -1;
	buf->hrtime = (hrtime_t)s.hrtime;
	buf->tick = s.tick;
	return 0;
}

CPC_EXPORT int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset)
{
	struct pmc_cpc_preset p;

	if (!cpc || index < 0) {
		errno = EINVAL;
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.id = 0;		/* the calling thread's bound set */
	p.index = (uint32_t)index;
	p.preset = preset;
	return ioctl(cpc->fd, PMC_CPC_PRESET, &p) < 0 ? -1 : 0;
}

CPC_EXPORT int cpc_set_restart(cpc_t *cpc, cpc_set_t *set)
{
	int state;
	int err;

	if (!__cpc_set_ok(cpc, set)) {
		errno = EINVAL;
		return -1;
	}
	state = __cpc_set_state(set);
	if (state == CS_UNBOUND) {
		errno = EINVAL;
		return -1;
	}
	err = cpc_ioctl_id(cpc, PMC_CPC_RESTART, set_kid(cpc, set, state));
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* cmd on the calling LWP's binding: 0, or -1 with errno. */
static int cpc_curlwp_op(cpc_t *cpc, unsigned long cmd)
{
	int err;

	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	err = cpc_ioctl_id(cpc, cmd, 0);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

CPC_EXPORT int cpc_enable(cpc_t *cpc)
{
	return cpc_curlwp_op(cpc, PMC_CPC_ENABLE);
}

CPC_EXPORT int cpc_disable(cpc_t *cpc)
{
	return cpc_curlwp_op(cpc, PMC_CPC_DISABLE);
}

CPC_EXPORT void cpc_terminate(cpc_t *cpc)
{
	struct cpc_bind *b;
	sigset_t old;
	cpc_set_t *s;

	if (!cpc)
		return;
	__cpc_lock(cpc, &old);
	for (s = cpc->sets; s; s = s->next)
		for (b = s->binds; b; b = b->next)
			if (b->kind == CS_BOUND_PCTX && b->pctx)
				pctx_terminate(b->pctx);
	__cpc_unlock(cpc, &old);
}

void __cpc_pctx_release(cpc_t *cpc, pctx_t *pctx)
{
	struct cpc_bind *b, *next, *gone = NULL;
	sigset_t old;
	cpc_set_t *s;

	__cpc_lock(cpc, &old);
	for (s = cpc->sets; s; s = s->next) {
		for (b = s->binds; b; b = next) {
			next = b->next;
			if (b->kind == CS_BOUND_PCTX && b->pctx == pctx)
				bind_release(cpc, s, b, 1, &gone);
		}
	}
	__cpc_unlock(cpc, &old);
	__cpc_binds_free(gone);
}
