// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libcpc(3LIB) version 2 for Linux, on the pmcompat /dev/cpc device.
 *
 * The library keeps the sets, requests and buffers; events.c turns each
 * request into a perf event (type, config); the kernel programs and counts
 * them through the ioctls of <sys/cpc_impl.h>.
 *
 * Locking.  A cpc_t has one mutex over its lists of sets and buffers and the
 * binding state of its sets.  It is always taken with SIGEMT blocked in the
 * calling thread (as Solaris does), so an overflow handler never interrupts
 * its own thread while that thread holds the mutex.  Nothing that can wait
 * on another lock runs under the mutex: no malloc() or free(), no stdio, no
 * error-handler or walker callbacks; only list walks, field updates and
 * system calls.  The calls documented for SIGEMT handlers go further:
 * cpc_set_sample() and cpc_set_restart() take no lock at all (a set is
 * checked by its magic number and owner, its state is read atomically), the
 * cpc_buf_*() accessors touch only the buffer, and cpc_request_preset()
 * only try-locks for its bookkeeping.  They are async-signal-safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <linux/perf_event.h>

#include "libcpc_impl.h"
#if defined(__x86_64__) || defined(__i386__)
#include "../common/pmc_x86cpu.h"
#endif

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
	uint64_t kpreset;		/* of the bound set: cpc_request_preset() */
	uint_t flags;
	uint_t nattrs;
	cpc_attr_t *attrs;		/* names point into names[] */
	struct cpcev_attr *eattrs;	/* the same, for events.c */
	char (*names)[CPC_MAX_ATTR_LEN];
};

struct __cpc_set {
	uint32_t magic;
	cpc_t *cpc;
	struct __cpc_set *next;
	struct cpc_req *reqs;		/* newest first */
	int nreqs;
	int state;			/* enum cpc_state; atomic */
	uint32_t id;			/* kernel binding id (PCTX, CPU); atomic */
	pid_t thr;			/* CURLWP, CPU: the binding thread */
	pctx_t *pctx;			/* PCTX */
	cpu_set_t *oldmask;		/* CPU: the affinity to restore */
	size_t oldmasksz;
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

/* ---- helpers ---------------------------------------------------------------- */

static void cpc_lock(cpc_t *cpc, sigset_t *old)
{
	sigset_t emt;

	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);
	pthread_sigmask(SIG_BLOCK, &emt, old);
	pthread_mutex_lock(&cpc->lock);
	cpc->caller_mask = *old;
	cpc->have_caller_mask = 1;
}

/* 0 with the lock held, else -1 (and the mask restored). */
static int cpc_trylock(cpc_t *cpc, sigset_t *old)
{
	sigset_t emt;

	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);
	pthread_sigmask(SIG_BLOCK, &emt, old);
	if (pthread_mutex_trylock(&cpc->lock) == 0) {
		cpc->caller_mask = *old;
		cpc->have_caller_mask = 1;
		return 0;
	}
	pthread_sigmask(SIG_SETMASK, old, NULL);
	return -1;
}

static void cpc_unlock(cpc_t *cpc, const sigset_t *old)
{
	cpc->have_caller_mask = 0;
	pthread_mutex_unlock(&cpc->lock);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static int set_state(const cpc_set_t *set)
{
	return __atomic_load_n(&set->state, __ATOMIC_ACQUIRE);
}

static void set_bound(cpc_set_t *set, int state, uint32_t id)
{
	__atomic_store_n(&set->id, id, __ATOMIC_RELAXED);
	__atomic_store_n(&set->state, state, __ATOMIC_RELEASE);
}

/* A live set of cpc, without the lock: for the signal-handler calls. */
static int set_ok(cpc_t *cpc, cpc_set_t *set)
{
	return cpc && set && set->magic == SET_MAGIC && set->cpc == cpc;
}

/* Under the lock: set is on cpc's list. */
static int set_valid(cpc_t *cpc, cpc_set_t *set)
{
	cpc_set_t *s;

	for (s = cpc->sets; s; s = s->next)
		if (s == set)
			return 1;
	return 0;
}

/* The error handler, or the default message, for a subcode (errno kept). */
static void cpc_err(cpc_t *cpc, const char *fn, int subcode, ...)
{
	const char *msg = cpcev_errstr(subcode);
	int saved = errno;
	va_list ap;

	if (!msg)
		return;
	va_start(ap, subcode);
	if (cpc->errfn) {
		cpc->errfn(fn, subcode, msg, ap);
	} else {
		char text[256];

		vsnprintf(text, sizeof(text), msg, ap);
		fprintf(stderr, "libcpc: %s: %s", fn, text);
	}
	va_end(ap);
	errno = saved;
}

/* The usual ending: 0, or the handler for subcode, errno = err and -1. */
static int cpc_result(cpc_t *cpc, const char *fn, int err, int subcode)
{
	if (!err)
		return 0;
	if (subcode > 0)
		cpc_err(cpc, fn, subcode);
	errno = err;
	return -1;
}

static int cpc_ioctl_id(cpc_t *cpc, unsigned long cmd, uint32_t id)
{
	return ioctl(cpc->fd, cmd, &id) < 0 ? errno : 0;
}

/*
 * Release a binding (the lock is held) with the caller's own signal mask in
 * force: an overflow signal that became pending while cpc_lock() held SIGEMT
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

static void req_free(struct cpc_req *r)
{
	free(r->attrs);
	free(r->eattrs);
	free(r->names);
	free(r);
}

static void set_free(cpc_set_t *set)
{
	struct cpc_req *r, *next;

	for (r = set->reqs; r; r = next) {
		next = r->next;
		req_free(r);
	}
	free(set->oldmask);
	set->magic = 0;
	free(set);
}

static void buf_free(cpc_buf_t *buf)
{
	buf->magic = 0;
	free(buf->data);
	free(buf);
}

static struct cpc_req *req_at(cpc_set_t *set, int index)
{
	struct cpc_req *r;

	for (r = set->reqs; r; r = r->next)
		if (r->index == index)
			return r;
	return NULL;
}

/* ---- the handle ------------------------------------------------------------- */

/* The processor this runs on, with libpfm4's table for it (v1 too). */
void __cpc_cpu_detect(struct cpcev_cpu *cpu)
{
#if defined(__x86_64__) || defined(__i386__)
	struct pmc_cpuid_regs r1, ra, r7 = { 0 }, r23 = { 0 }, r23_1 = { 0 };
	unsigned int max = __get_cpuid_max(0, NULL);
	char vendor[13];

	pmc_cpuid_vendor(vendor);
	pmc_cpuid(1, &r1);
	pmc_cpuid(0xa, &ra);
	cpcev_cpu_init(cpu, vendor, r1.eax, ra.eax, ra.ebx);
	/* the fixed counters' bitmap of leaf 0x23 (leaf 7.1 EAX bit 8) */
	if (max >= 7)
		__cpuid_count(7, 1, r7.eax, r7.ebx, r7.ecx, r7.edx);
	if (max >= 0x23 && (r7.eax & (1U << 8))) {
		__cpuid_count(0x23, 0, r23.eax, r23.ebx, r23.ecx, r23.edx);
		__cpuid_count(0x23, 1, r23_1.eax, r23_1.ebx, r23_1.ecx, r23_1.edx);
	}
	/* CPUID 1 ECX bit 31: running under a hypervisor */
	cpcev_cpu_fixed(cpu, ra.ecx, ra.edx, !!(r1.ecx & (1U << 31)),
			r23.eax & 1, r23_1.ebx);
#elif defined(__aarch64__)
	/* MIDR_EL1, as the kernel exports it (events_arm64.c) */
	cpcev_arm_cpu_init(cpu, cpcev_arm_midr());
#else
#error "libcpc knows x86 and arm64 processors only"
#endif
	cpcev_cpu_pfm_lazy(cpu);
}

cpc_t *__cpc_open_fd(int fd, const struct pmc_cpc_info *info,
		     const struct cpcev_cpu *cpu)
{
	cpc_t *cpc = calloc(1, sizeof(*cpc));

	if (!cpc)
		return NULL;
	if (pthread_mutex_init(&cpc->lock, NULL)) {
		free(cpc);
		errno = ENOMEM;
		return NULL;
	}
	cpc->fd = fd;
	cpc->npic = info->npic;
	cpc->caps = info->caps;
	cpc->hw_pmu = info->hw_pmu;
	cpc->cpu = *cpu;
	cpcev_cciname(cpu, cpc->cciname, sizeof(cpc->cciname));
	cpcev_cpuref(cpu, cpc->cpuref, sizeof(cpc->cpuref));
	return cpc;
}

CPC_EXPORT cpc_t *cpc_open(int ver)
{
	struct pmc_cpc_info info;
	struct cpcev_cpu cpu;
	cpc_t *cpc;
	int fd, err;

	if (ver != CPC_VER_CURRENT) {
		errno = EINVAL;
		return NULL;
	}
	fd = open(PMC_CPC_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (ioctl(fd, PMC_CPC_INFO, &info) < 0) {
		err = errno;
		goto fail;
	}
	if (info.abi_version != PMC_CPC_ABI_VERSION) {
		err = ENOTSUP;
		goto fail;
	}
	__cpc_cpu_detect(&cpu);
	cpc = __cpc_open_fd(fd, &info, &cpu);
	if (!cpc) {
		err = errno;
		goto fail;
	}
	return cpc;
fail:
	close(fd);
	errno = err;
	return NULL;
}

/* Restore the affinity a CPU binding changed (the lock is held). */
static void set_restore_affinity(cpc_set_t *set)
{
	if (set->oldmask)
		sched_setaffinity(set->thr, set->oldmasksz, set->oldmask);
}

/*
 * Unbind set (the lock is held).  The saved CPU mask, to free after the
 * lock is dropped, is moved to *freemask (if NULL, it stays with the set,
 * which is about to be freed).  Returns 0 or an errno value; with force,
 * the set ends unbound whatever the kernel says.
 */
static int set_unbind_locked(cpc_t *cpc, cpc_set_t *set, int force,
			     cpu_set_t **freemask)
{
	int state = set_state(set);
	int err;

	switch (state) {
	case CS_UNBOUND:
		return EINVAL;
	case CS_BOUND_CURLWP:
		/* Only the bound thread can name its binding (id 0). */
		if (set->thr != gettid()) {
			if (!force)
				return EINVAL;
			err = 0;
			break;
		}
		err = cpc_kernel_rele(cpc, 0);
		break;
	default:
		err = cpc_kernel_rele(cpc, set->id);
		break;
	}
	/* EINVAL: the kernel has no such binding (any more). */
	if (err && err != EINVAL && !force)
		return err;
	if (state == CS_BOUND_CPU) {
		set_restore_affinity(set);
		if (freemask) {
			*freemask = set->oldmask;
			set->oldmask = NULL;
		}
	}
	if (state == CS_BOUND_PCTX && set->pctx &&
	    __pctx_get_cpc(set->pctx) == cpc) {
		cpc_set_t *s;
		int others = 0;

		for (s = cpc->sets; s; s = s->next)
			if (s != set && set_state(s) == CS_BOUND_PCTX &&
			    s->pctx == set->pctx)
				others = 1;
		if (!others)
			__pctx_set_cpc(set->pctx, NULL);
	}
	set->pctx = NULL;
	set_bound(set, CS_UNBOUND, 0);
	return err;
}

CPC_EXPORT int cpc_close(cpc_t *cpc)
{
	cpc_set_t *set, *nset;
	cpc_buf_t *buf, *nbuf;
	sigset_t old;

	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	cpc_lock(cpc, &old);
	for (set = cpc->sets; set; set = set->next)
		if (set_state(set) != CS_UNBOUND)
			set_unbind_locked(cpc, set, 1, NULL);
	set = cpc->sets;
	buf = cpc->bufs;
	cpc->sets = NULL;
	cpc->bufs = NULL;
	cpc_unlock(cpc, &old);

	/* Closing releases whatever the kernel still holds for us. */
	if (cpc->fd >= 0)
		close(cpc->fd);
	for (; set; set = nset) {
		nset = set->next;
		set_free(set);
	}
	for (; buf; buf = nbuf) {
		nbuf = buf->next;
		buf_free(buf);
	}
	pthread_mutex_destroy(&cpc->lock);
	free(cpc);
	return 0;
}

CPC_EXPORT uint_t cpc_npic(cpc_t *cpc)
{
	return cpc->npic;
}

CPC_EXPORT uint_t cpc_caps(cpc_t *cpc)
{
	return cpc->caps;
}

CPC_EXPORT const char *cpc_cciname(cpc_t *cpc)
{
	return cpc->cciname;
}

CPC_EXPORT const char *cpc_cpuref(cpc_t *cpc)
{
	return cpc->cpuref;
}

CPC_EXPORT int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn)
{
	sigset_t old;

	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	cpc_lock(cpc, &old);
	cpc->errfn = fn;
	cpc_unlock(cpc, &old);
	return 0;
}

/* ---- sets and requests -------------------------------------------------------- */

CPC_EXPORT cpc_set_t *cpc_set_create(cpc_t *cpc)
{
	cpc_set_t *set;
	sigset_t old;

	if (!cpc) {
		errno = EINVAL;
		return NULL;
	}
	set = calloc(1, sizeof(*set));
	if (!set)
		return NULL;
	set->magic = SET_MAGIC;
	set->cpc = cpc;
	set->state = CS_UNBOUND;
	cpc_lock(cpc, &old);
	set->next = cpc->sets;
	cpc->sets = set;
	cpc_unlock(cpc, &old);
	return set;
}

CPC_EXPORT int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set)
{
	cpc_set_t **pp;
	sigset_t old;

	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	cpc_lock(cpc, &old);
	for (pp = &cpc->sets; *pp && *pp != set; pp = &(*pp)->next)
		;
	if (!*pp) {
		cpc_unlock(cpc, &old);
		errno = EINVAL;
		return -1;
	}
	if (set_state(set) != CS_UNBOUND)
		set_unbind_locked(cpc, set, 1, NULL);
	*pp = set->next;
	set->magic = 0;
	cpc_unlock(cpc, &old);
	set_free(set);
	return 0;
}

/* ---- counters --------------------------------------------------------------- */

/*
 * The general-purpose counters: the first pics.  On Intel the fixed-function
 * counters come after them, as illumos' core_pcbe numbers its pics; the
 * module's count (cpc_npic()) is of both.  Elsewhere every pic is one.
 */
static uint_t pic_ngp(cpc_t *cpc)
{
	uint_t nfixed = cpc->cpu.nfixed;

	if (!nfixed || !cpc->npic)
		return cpc->npic;
	if (nfixed >= cpc->npic)
		nfixed = cpc->npic - 1;
	return cpc->npic - nfixed;
}

/* 1 if counter pic can count event (a known name or raw code). */
static int pic_counts(cpc_t *cpc, uint_t pic, const char *event)
{
	uint_t ngp = pic_ngp(cpc);

	if (pic >= cpc->npic)
		return 0;
	if (ngp == cpc->npic)
		return 1;
	if (pic < ngp)
		return !cpcev_fixed_only(&cpc->cpu, event);
	return cpcev_fixed_counts(&cpc->cpu, pic - ngp, event);
}

/* For strtoset.c, a member of its own in libcpc.a (libcpc_impl.h). */
CPC_INTERNAL cpc_errhndlr_t *__cpc_errhndlr(cpc_t *cpc)
{
	return cpc->errfn;
}

CPC_INTERNAL int __cpc_pic_counts(cpc_t *cpc, uint_t pic, const char *event)
{
	return pic_counts(cpc, pic, event);
}

CPC_INTERNAL int __cpc_event_known(cpc_t *cpc, const char *event)
{
	return cpcev_known(&cpc->cpu, event);
}

CPC_INTERNAL int __cpc_attr_known(cpc_t *cpc, const char *attr)
{
	return cpcev_attr_known(&cpc->cpu, attr);
}

/* The picnum attribute of a request, or -1. */
static int64_t req_picnum(uint_t nattrs, const cpc_attr_t *attrs)
{
	uint_t i;

	for (i = 0; i < nattrs; i++)
		if (attrs[i].ca_name && !strcmp(attrs[i].ca_name, "picnum"))
			return attrs[i].ca_val < (uint64_t)INT32_MAX ?
			       (int64_t)attrs[i].ca_val : INT32_MAX;
	return -1;
}

/*
 * Whether the requests (from head on) can all be placed: each named counter
 * once, the others on a counter that can count them, general-purpose
 * events on the general-purpose counters; software events need none.
 * Solaris' kernel refuses a set that does not fit, at bind, with
 * CPC_RESOURCE_UNAVAIL.
 */
static int reqs_fit(cpc_t *cpc, const struct cpc_req *head)
{
	uint_t ngp = pic_ngp(cpc), k;
	const struct cpc_req *r;
	uint64_t used = 0;
	int need = 0;

	/* Named counters first. */
	for (r = head; r; r = r->next) {
		int64_t p = req_picnum(r->nattrs, r->attrs);

		if (p < 0)
			continue;
		if (p >= 64 || (used & (1ULL << p)))
			return 0;
		used |= 1ULL << p;
	}
	for (r = head; r; r = r->next) {
		if (req_picnum(r->nattrs, r->attrs) >= 0 ||
		    cpcev_software(r->event))
			continue;
		for (k = ngp; k < cpc->npic && k < 64; k++)
			if (!(used & (1ULL << k)) && pic_counts(cpc, k, r->event))
				break;
		if (k < cpc->npic && k < 64)
			used |= 1ULL << k;
		else if (ngp < cpc->npic && cpcev_fixed_only(&cpc->cpu, r->event))
			return 0;
		else
			need++;
	}
	for (k = 0; k < ngp && k < 64; k++)
		if (used & (1ULL << k))
			need++;
	return need <= (int)ngp;
}

/* Check a request before it is added: 0 or a CPC_* subcode. */
static int req_check(cpc_t *cpc, const char *event, uint_t nattrs,
		     const cpc_attr_t *attrs)
{
	uint_t i;

	if (strlen(event) >= CPC_MAX_EVENT_LEN ||
	    !cpcev_known(&cpc->cpu, event))
		return CPC_INVALID_EVENT;
	for (i = 0; i < nattrs; i++) {
		const char *name = attrs[i].ca_name;

		if (!name || strlen(name) >= CPC_MAX_ATTR_LEN ||
		    !cpcev_attr_known(&cpc->cpu, name))
			return CPC_INVALID_ATTRIBUTE;
		if (strcmp(name, "picnum"))
			continue;
		if (attrs[i].ca_val >= cpc->npic)
			return CPC_INVALID_PICNUM;
		/* Intel's fixed-function counters count one event each. */
		if (!pic_counts(cpc, (uint_t)attrs[i].ca_val, event))
			return CPC_PIC_NOT_CAPABLE;
	}
	return 0;
}

CPC_EXPORT int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set,
				   const char *event, uint64_t preset,
				   uint_t flags, uint_t nattrs,
				   const cpc_attr_t *attrs)
{
	struct cpc_req *req;
	sigset_t old;
	int ok, subcode, index;
	uint_t i;

	if (!cpc || !event || (nattrs && !attrs)) {
		errno = EINVAL;
		return -1;
	}
	cpc_lock(cpc, &old);
	ok = set_valid(cpc, set) && set_state(set) == CS_UNBOUND;
	cpc_unlock(cpc, &old);
	if (!ok) {
		errno = EINVAL;
		return -1;
	}
	subcode = req_check(cpc, event, nattrs, attrs);
	if (subcode)
		return cpc_result(cpc, "cpc_set_add_request", EINVAL, subcode);

	req = calloc(1, sizeof(*req));
	if (!req)
		return -1;
	if (nattrs) {
		req->attrs = calloc(nattrs, sizeof(*req->attrs));
		req->eattrs = calloc(nattrs, sizeof(*req->eattrs));
		req->names = calloc(nattrs, sizeof(*req->names));
		if (!req->attrs || !req->eattrs || !req->names) {
			req_free(req);
			errno = ENOMEM;
			return -1;
		}
	}
	strcpy(req->event, event);
	req->preset = preset;
	req->kpreset = preset;
	req->flags = flags;
	req->nattrs = nattrs;
	for (i = 0; i < nattrs; i++) {
		strcpy(req->names[i], attrs[i].ca_name);
		req->attrs[i].ca_name = req->names[i];
		req->attrs[i].ca_val = attrs[i].ca_val;
		req->eattrs[i].name = req->names[i];
		req->eattrs[i].val = attrs[i].ca_val;
	}

	cpc_lock(cpc, &old);
	if (!set_valid(cpc, set) || set_state(set) != CS_UNBOUND) {
		cpc_unlock(cpc, &old);
		req_free(req);
		errno = EINVAL;
		return -1;
	}
	index = set->nreqs++;
	req->index = index;
	req->next = set->reqs;
	set->reqs = req;
	cpc_unlock(cpc, &old);
	return index;
}

CPC_EXPORT void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
				  void (*action)(void *arg, int index,
						 const char *event,
						 uint64_t preset, uint_t flags,
						 int nattrs,
						 const cpc_attr_t *attrs))
{
	struct cpc_req *r = NULL;
	sigset_t old;
	int ok;

	if (!cpc || !action)
		return;
	cpc_lock(cpc, &old);
	ok = set_valid(cpc, set);
	if (ok)
		r = set->reqs;
	cpc_unlock(cpc, &old);
	if (!ok) {
		errno = EINVAL;
		return;
	}
	/* Requests are only ever prepended: the older ones stay put. */
	for (; r; r = r->next)
		action(arg, r->index, r->event, r->preset, r->flags,
		       (int)r->nattrs, r->attrs);
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
	if (set->nreqs > PMC_CPC_MAX_REQS || !reqs_fit(cpc, set->reqs)) {
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
	struct cpc_req *r;
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
	for (r = set->reqs; r; r = r->next)
		r->kpreset = r->preset;
	*id = bind.id;
	return 0;
}

CPC_EXPORT int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags)
{
	pid_t self = gettid();
	int state, err, subcode = 0;
	uint32_t id = 0;
	sigset_t old;

	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	if (flags & ~CPC_SET_ALL_FLAGS) {
		errno = EINVAL;
		return -1;
	}
	cpc_lock(cpc, &old);
	state = set_valid(cpc, set) ? set_state(set) : -1;
	/* A set bound to this thread may be bound again (it restarts). */
	if (state != CS_UNBOUND &&
	    !(state == CS_BOUND_CURLWP && set->thr == self)) {
		err = EINVAL;
	} else {
		err = set_kbind(cpc, set, PMC_CPC_BIND_CURLWP, flags, 0, 0, -1,
				&id, &subcode);
	}
	if (!err) {
		cpc_set_t *s;

		/* The kernel replaced this thread's previous binding. */
		for (s = cpc->sets; s; s = s->next)
			if (s != set && set_state(s) == CS_BOUND_CURLWP &&
			    s->thr == self)
				set_bound(s, CS_UNBOUND, 0);
		set->thr = self;
		set_bound(set, CS_BOUND_CURLWP, 0);
	}
	cpc_unlock(cpc, &old);
	return cpc_result(cpc, "cpc_bind_curlwp", err, subcode);
}

CPC_EXPORT int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id,
			     cpc_set_t *set, uint_t flags)
{
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
	cpc_lock(cpc, &old);
	if (!set_valid(cpc, set) || set_state(set) != CS_UNBOUND)
		err = EINVAL;
	else
		err = set_kbind(cpc, set, PMC_CPC_BIND_PCTX, 0, pid, tid, -1,
				&kid, &subcode);
	if (!err) {
		cpc_set_t *s;

		/* The kernel replaced that LWP's previous binding. */
		for (s = cpc->sets; s; s = s->next)
			if (s != set && set_state(s) == CS_BOUND_PCTX &&
			    __pctx_pid(s->pctx) == pid && s->thr == tid) {
				s->pctx = NULL;
				set_bound(s, CS_UNBOUND, 0);
			}
		set->pctx = pctx;
		set->thr = tid;
		set_bound(set, CS_BOUND_PCTX, kid);
		__pctx_set_cpc(pctx, cpc);
	}
	cpc_unlock(cpc, &old);
	return cpc_result(cpc, "cpc_bind_pctx", err, subcode);
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
	int err = 0, subcode = 0;
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
		if (!newmask) {
			err = errno ? errno : ENOMEM;
			subcode = CPC_PBIND_FAILED;
		} else {
			newsz = CPU_ALLOC_SIZE(n);
			CPU_ZERO_S(newsz, newmask);
			CPU_SET_S((size_t)id, newsz, newmask);
		}
	}

	if (!err) {
		cpc_lock(cpc, &old);
		if (!set_valid(cpc, set) || set_state(set) != CS_UNBOUND) {
			err = EINVAL;
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
			set->thr = gettid();
			set->oldmask = oldmask;
			set->oldmasksz = oldsz;
			oldmask = NULL;
			set_bound(set, CS_BOUND_CPU, kid);
		}
		cpc_unlock(cpc, &old);
	}
	if (oldmask)
		CPU_FREE(oldmask);
	if (newmask)
		CPU_FREE(newmask);
	return cpc_result(cpc, "cpc_bind_cpu", err, subcode);
}

CPC_EXPORT int cpc_unbind(cpc_t *cpc, cpc_set_t *set)
{
	cpu_set_t *mask = NULL;
	sigset_t old;
	int err;

	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	cpc_lock(cpc, &old);
	err = set_valid(cpc, set) ? set_unbind_locked(cpc, set, 0, &mask) :
				    EINVAL;
	cpc_unlock(cpc, &old);
	free(mask);
	return cpc_result(cpc, "cpc_unbind", err, 0);
}

/* ---- sampling and overflow: safe in a SIGEMT handler ------------------------- */

CPC_EXPORT int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	struct pmc_cpc_sample s;
	int state;

	if (!set_ok(cpc, set) || !buf || buf->magic != BUF_MAGIC) {
		errno = EINVAL;
		return -1;
	}
	state = set_state(set);
	if (state == CS_UNBOUND ||
	    buf->size != (size_t)set->nreqs * sizeof(uint64_t)) {
		errno = EINVAL;
		return -1;
	}
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	/* id 0: the calling thread's own binding, or the one it inherited. */
	s.id = state == CS_BOUND_CURLWP ? 0 :
	       __atomic_load_n(&set->id, __ATOMIC_RELAXED);
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
	sigset_t old;
	cpc_set_t *s;

	if (!cpc || index < 0) {
		errno = EINVAL;
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.id = 0;		/* the calling thread's bound set */
	p.index = (uint32_t)index;
	p.preset = preset;
	if (ioctl(cpc->fd, PMC_CPC_PRESET, &p) < 0)
		return -1;
	/* Bookkeeping only, so never wait for the lock. */
	if (cpc_trylock(cpc, &old) == 0) {
		pid_t self = gettid();

		for (s = cpc->sets; s; s = s->next) {
			struct cpc_req *r;

			if (set_state(s) != CS_BOUND_CURLWP || s->thr != self)
				continue;
			r = req_at(s, index);
			if (r)
				r->kpreset = preset;
		}
		cpc_unlock(cpc, &old);
	}
	return 0;
}

CPC_EXPORT int cpc_set_restart(cpc_t *cpc, cpc_set_t *set)
{
	int state;
	int err;

	if (!set_ok(cpc, set)) {
		errno = EINVAL;
		return -1;
	}
	state = set_state(set);
	if (state == CS_UNBOUND) {
		errno = EINVAL;
		return -1;
	}
	err = cpc_ioctl_id(cpc, PMC_CPC_RESTART, state == CS_BOUND_CURLWP ? 0 :
			   __atomic_load_n(&set->id, __ATOMIC_RELAXED));
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
	sigset_t old;
	cpc_set_t *s;

	if (!cpc)
		return;
	cpc_lock(cpc, &old);
	for (s = cpc->sets; s; s = s->next)
		if (set_state(s) == CS_BOUND_PCTX && s->pctx)
			pctx_terminate(s->pctx);
	cpc_unlock(cpc, &old);
}

void __cpc_pctx_release(cpc_t *cpc, pctx_t *pctx)
{
	sigset_t old;
	cpc_set_t *s;

	cpc_lock(cpc, &old);
	for (s = cpc->sets; s; s = s->next)
		if (set_state(s) == CS_BOUND_PCTX && s->pctx == pctx)
			set_unbind_locked(cpc, s, 1, NULL);
	cpc_unlock(cpc, &old);
}

/* ---- buffers ------------------------------------------------------------------- */

CPC_EXPORT cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set)
{
	cpc_buf_t *buf;
	sigset_t old;
	int ok, n = 0;

	if (!cpc) {
		errno = EINVAL;
		return NULL;
	}
	cpc_lock(cpc, &old);
	ok = set_valid(cpc, set);
	if (ok)
		n = set->nreqs;
	cpc_unlock(cpc, &old);
	if (!ok) {
		errno = EINVAL;
		return NULL;
	}
	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return NULL;
	if (n > 0) {
		buf->data = calloc((size_t)n, sizeof(uint64_t));
		if (!buf->data) {
			free(buf);
			return NULL;
		}
	}
	buf->magic = BUF_MAGIC;
	buf->size = (size_t)n * sizeof(uint64_t);
	cpc_lock(cpc, &old);
	buf->next = cpc->bufs;
	cpc->bufs = buf;
	cpc_unlock(cpc, &old);
	return buf;
}

CPC_EXPORT int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf)
{
	cpc_buf_t **pp;
	sigset_t old;
	int found;

	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	cpc_lock(cpc, &old);
	for (pp = &cpc->bufs; *pp && *pp != buf; pp = &(*pp)->next)
		;
	found = *pp != NULL;
	if (found)
		*pp = buf->next;
	cpc_unlock(cpc, &old);
	if (!found) {
		errno = EINVAL;
		return -1;
	}
	buf_free(buf);
	return 0;
}

CPC_EXPORT void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a,
			    cpc_buf_t *b)
{
	size_t i;

	(void)cpc;
	if (ds->size != a->size || ds->size != b->size)
		return;
	for (i = 0; i < ds->size / sizeof(uint64_t); i++)
		ds->data[i] = a->data[i] - b->data[i];
	ds->hrtime = a->hrtime > b->hrtime ? a->hrtime : b->hrtime;
	ds->tick = a->tick - b->tick;
}

CPC_EXPORT void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a,
			    cpc_buf_t *b)
{
	size_t i;

	(void)cpc;
	if (ds->size != a->size || ds->size != b->size)
		return;
	for (i = 0; i < ds->size / sizeof(uint64_t); i++)
		ds->data[i] = a->data[i] + b->data[i];
	ds->hrtime = a->hrtime > b->hrtime ? a->hrtime : b->hrtime;
	ds->tick = a->tick + b->tick;
}

CPC_EXPORT void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src)
{
	(void)cpc;
	if (ds->size != src->size)
		return;
	if (ds->size)
		memcpy(ds->data, src->data, ds->size);
	ds->hrtime = src->hrtime;
	ds->tick = src->tick;
}

CPC_EXPORT void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf)
{
	(void)cpc;
	if (buf->size)
		memset(buf->data, 0, buf->size);
	buf->hrtime = 0;
	buf->tick = 0;
}

/* Solaris does no bounds check here; an index outside the buffer is EINVAL. */
CPC_EXPORT int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index,
			   uint64_t *val)
{
	(void)cpc;
	if (index < 0 || (size_t)index >= buf->size / sizeof(uint64_t)) {
		errno = EINVAL;
		return -1;
	}
	*val = buf->data[index];
	return 0;
}

CPC_EXPORT int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val)
{
	(void)cpc;
	if (index < 0 || (size_t)index >= buf->size / sizeof(uint64_t)) {
		errno = EINVAL;
		return -1;
	}
	buf->data[index] = val;
	return 0;
}

CPC_EXPORT hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf)
{
	(void)cpc;
	return buf->hrtime;
}

CPC_EXPORT uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf)
{
	(void)cpc;
	return buf->tick;
}

/* ---- names ----------------------------------------------------------------------- */

struct walk_ctx {
	void *arg;
	uint_t picno;
	cpc_t *cpc;			/* per pic: skip what the pic cannot count */
	void (*all)(void *arg, const char *event);
	void (*pic)(void *arg, uint_t picno, const char *event);
};

static void walk_one(void *p, const char *name)
{
	struct walk_ctx *w = p;

	if (w->all)
		w->all(w->arg, name);
	else if (!w->cpc || !cpcev_fixed_only(&w->cpc->cpu, name))
		w->pic(w->arg, w->picno, name);
}

/*
 * Every name of the classes, or a pic's: a general-purpose counter counts
 * all but the fixed-function names, a fixed-function counter only its own
 * (illumos' core_pcbe: "event4: instr_retired.any").
 */
static void walk(cpc_t *cpc, int classes, struct walk_ctx *w)
{
	uint_t ngp = pic_ngp(cpc);

	if (w->pic && w->picno >= ngp) {
		w->cpc = NULL;
		cpcev_fixed_walk(&cpc->cpu, w->picno - ngp, classes, walk_one, w);
		return;
	}
	w->cpc = w->pic && ngp < cpc->npic ? cpc : NULL;
	cpcev_walk(&cpc->cpu, classes, walk_one, w);
}

CPC_EXPORT void cpc_walk_events_all(cpc_t *cpc, void *arg,
				    void (*action)(void *arg,
						   const char *event))
{
	struct walk_ctx w = { .arg = arg, .all = action };

	if (cpc && action)
		walk(cpc, CPCEV_PLATFORM, &w);
}

CPC_EXPORT void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
					    void (*action)(void *arg,
							   const char *event))
{
	struct walk_ctx w = { .arg = arg, .all = action };

	if (cpc && action)
		walk(cpc, CPCEV_GENERIC, &w);
}

CPC_EXPORT void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
				    void (*action)(void *arg, uint_t picno,
						   const char *event))
{
	struct walk_ctx w = { .arg = arg, .picno = picno, .pic = action };

	if (!cpc || !action)
		return;
	if (picno >= cpc->npic) {
		errno = EINVAL;
		return;
	}
	walk(cpc, CPCEV_PLATFORM, &w);
}

CPC_EXPORT void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno,
					    void *arg,
					    void (*action)(void *arg,
							   uint_t picno,
							   const char *event))
{
	struct walk_ctx w = { .arg = arg, .picno = picno, .pic = action };

	if (!cpc || !action)
		return;
	if (picno >= cpc->npic) {
		errno = EINVAL;
		return;
	}
	walk(cpc, CPCEV_GENERIC, &w);
}

CPC_EXPORT void cpc_walk_attrs(cpc_t *cpc, void *arg,
			       void (*action)(void *arg, const char *attr))
{
	const char *p;

	if (!cpc || !action)
		return;
	for (p = cpcev_attr_list(&cpc->cpu); *p; ) {
		char name[CPC_MAX_ATTR_LEN];
		size_t len = strcspn(p, ",");

		if (len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = '\0';
			action(arg, name);
		}
		p += len;
		if (*p == ',')
			p++;
	}
}
