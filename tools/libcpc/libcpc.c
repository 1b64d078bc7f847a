// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libcpc(3LIB) version 2 for Linux, on the pmcompat /dev/cpc device.
 *
 * The library keeps the sets, requests and buffers; events.c turns each
 * request into a perf event (type, config); the kernel programs and counts
 * them through the ioctls of <sys/cpc_impl.h>.
 *
 * Binding, sampling and the bookkeeping of a set's bindings are in bind.c.
 *
 * Locking.  A cpc_t has one mutex over its lists of sets and buffers and the
 * bindings of its sets.  It is always taken with SIGEMT blocked in the
 * calling thread (as Solaris does), so an overflow handler never interrupts
 * its own thread while that thread holds the mutex.  Nothing that can wait
 * on another lock runs under the mutex: no malloc() or free(), no stdio, no
 * error-handler or walker callbacks; only list walks, field updates and
 * system calls.  The calls documented for SIGEMT handlers go further:
 * cpc_set_sample() and cpc_set_restart() never wait for the lock (a set is
 * checked by its magic number and owner, its state is read atomically; a
 * process-context set's binding is looked up only if the lock is free), the
 * cpc_buf_*() accessors touch only the buffer, and cpc_request_preset()
 * takes no lock.  They are async-signal-safe.
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

#include "libcpc_int.h"
#if defined(__x86_64__) || defined(__i386__)
#include "../common/pmc_x86cpu.h"
#endif

/* ---- helpers ---------------------------------------------------------------- */

void __cpc_lock(cpc_t *cpc, sigset_t *old)
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
int __cpc_trylock(cpc_t *cpc, sigset_t *old)
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

void __cpc_unlock(cpc_t *cpc, const sigset_t *old)
{
	cpc->have_caller_mask = 0;
	pthread_mutex_unlock(&cpc->lock);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Under the lock: set is on cpc's list. */
int __cpc_set_valid(cpc_t *cpc, cpc_set_t *set)
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
int __cpc_result(cpc_t *cpc, const char *fn, int err, int subcode)
{
	if (!err)
		return 0;
	if (subcode > 0)
		cpc_err(cpc, fn, subcode);
	errno = err;
	return -1;
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
	set->magic = 0;
	free(set);
}

static void buf_free(cpc_buf_t *buf)
{
	buf->magic = 0;
	free(buf->data);
	free(buf);
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

CPC_EXPORT int cpc_close(cpc_t *cpc)
{
	struct cpc_bind *gone = NULL;
	cpc_set_t *set, *nset;
	cpc_buf_t *buf, *nbuf;
	sigset_t old;

	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	__cpc_lock(cpc, &old);
	for (set = cpc->sets; set; set = set->next)
		__cpc_set_unbind_all(cpc, set, &gone);
	set = cpc->sets;
	buf = cpc->bufs;
	cpc->sets = NULL;
	cpc->bufs = NULL;
	__cpc_unlock(cpc, &old);

	/* Closing releases whatever the kernel still holds for us. */
	if (cpc->fd >= 0)
		close(cpc->fd);
	__cpc_binds_free(gone);
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
	__cpc_lock(cpc, &old);
	cpc->errfn = fn;
	__cpc_unlock(cpc, &old);
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
	__cpc_lock(cpc, &old);
	set->next = cpc->sets;
	cpc->sets = set;
	__cpc_unlock(cpc, &old);
	return set;
}

CPC_EXPORT int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set)
{
	struct cpc_bind *gone = NULL;
	cpc_set_t **pp;
	sigset_t old;

	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	__cpc_lock(cpc, &old);
	for (pp = &cpc->sets; *pp && *pp != set; pp = &(*pp)->next)
		;
	if (!*pp) {
		__cpc_unlock(cpc, &old);
		errno = EINVAL;
		return -1;
	}
	__cpc_set_unbind_all(cpc, set, &gone);
	*pp = set->next;
	set->magic = 0;
	__cpc_unlock(cpc, &old);
	__cpc_binds_free(gone);
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
int __cpc_reqs_fit(cpc_t *cpc, const struct cpc_req *head)
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
	__cpc_lock(cpc, &old);
	ok = __cpc_set_valid(cpc, set) && __cpc_set_state(set) == CS_UNBOUND;
	__cpc_unlock(cpc, &old);
	if (!ok) {
		errno = EINVAL;
		return -1;
	}
	subcode = req_check(cpc, event, nattrs, attrs);
	if (subcode)
		return __cpc_result(cpc, "cpc_set_add_request", EINVAL, subcode);

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
	req->flags = flags;
	req->nattrs = nattrs;
	for (i = 0; i < nattrs; i++) {
		strcpy(req->names[i], attrs[i].ca_name);
		req->attrs[i].ca_name = req->names[i];
		req->attrs[i].ca_val = attrs[i].ca_val;
		req->eattrs[i].name = req->names[i];
		req->eattrs[i].val = attrs[i].ca_val;
	}

	__cpc_lock(cpc, &old);
	if (!__cpc_set_valid(cpc, set) || __cpc_set_state(set) != CS_UNBOUND) {
		__cpc_unlock(cpc, &old);
		req_free(req);
		errno = EINVAL;
		return -1;
	}
	index = set->nreqs++;
	req->index = index;
	req->next = set->reqs;
	set->reqs = req;
	__cpc_unlock(cpc, &old);
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
	__cpc_lock(cpc, &old);
	ok = __cpc_set_valid(cpc, set);
	if (ok)
		r = set->reqs;
	__cpc_unlock(cpc, &old);
	if (!ok) {
		errno = EINVAL;
		return;
	}
	/* Requests are only ever prepended: the older ones stay put. */
	for (; r; r = r->next)
		action(arg, r->index, r->event, r->preset, r->flags,
		       (int)r->nattrs, r->attrs);
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
	__cpc_lock(cpc, &old);
	ok = __cpc_set_valid(cpc, set);
	if (ok)
		n = set->nreqs;
	__cpc_unlock(cpc, &old);
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
	__cpc_lock(cpc, &old);
	buf->next = cpc->bufs;
	cpc->bufs = buf;
	__cpc_unlock(cpc, &old);
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
	__cpc_lock(cpc, &old);
	for (pp = &cpc->bufs; *pp && *pp != buf; pp = &(*pp)->next)
		;
	found = *pp != NULL;
	if (found)
		*pp = buf->next;
	__cpc_unlock(cpc, &old);
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
