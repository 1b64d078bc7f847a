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
static uint_t v1_version;		/* CPC_VER_NONE until cpc_version() */
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
	default:
		return -1;
	}
}

static int v1_cpuver_ok(int cpuver)
{
	return cpuver != -1 && cpuver == v1_cpuver_of(v1_get_cpu());
}

CPC_EXPORT uint_t cpc_version(uint_t ver)
{
	if (ver == CPC_VER_NONE)
		return CPC_VER_CURRENT;
	if (ver > CPC_VER_CURRENT)
		return CPC_VER_NONE;
	__atomic_store_n(&v1_version, ver, __ATOMIC_RELEASE);
	return ver;
}

CPC_EXPORT int cpc_getcpuver(void)
{
	int cpuver;

	if (__atomic_load_n(&v1_version, __ATOMIC_ACQUIRE) == CPC_VER_NONE) {
		errno = EINVAL;
		return -1;
	}
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
	return "pic0=<event0>,pic1=<event1> [,sys[0|1]] [,nouser[0|1]] "
	       "[,edge[0|1]] [,noedge[0|1]] [,pc[0|1]] [,inv[0|1]] "
	       "[,int[0|1]] [,cmask[0|1]=<maskspec>] [,umask[0|1]=<maskspec>]";
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
	return (uint32_t)perf.config | PES_EN;
}

struct v1_walk {
	const struct cpcev_cpu *cpu;
	int regno;
	void *arg;
	void (*action)(void *arg, int regno, const char *name, uint8_t bits);
	uint32_t want;			/* v1_find: code and unit mask */
	uint32_t want_extra;		/* v1_find: its edge, invert, counter mask */
	const char *found;
	char name[CPC_MAX_EVENT_LEN];
};

static void v1_walk_one(void *p, const char *name)
{
	struct v1_walk *w = p;
	uint32_t pes;

	/* v2's generic names (some come as raw codes from libpfm4): not v1's. */
	if (!strncmp(name, "PAPI_", 5) || !strncmp(name, "sw_", 3))
		return;
	pes = v1_image(w->cpu, name, NULL, 0, NULL);
	if (pes)
		w->action(w->arg, w->regno, name, (uint8_t)(pes & PES_EVENT));
}

CPC_EXPORT void cpc_walk_names(int cpuver, int regno, void *arg,
			       void (*action)(void *arg, int regno,
					      const char *name, uint8_t bits))
{
	struct v1_walk w;

	if (!action || !v1_cpuver_ok(cpuver) || regno < 0 || regno >= V1_NPIC) {
		errno = EINVAL;
		return;
	}
	memset(&w, 0, sizeof(w));
	w.cpu = v1_get_cpu();
	w.regno = regno;
	w.arg = arg;
	w.action = action;
	cpcev_walk(w.cpu, CPCEV_PLATFORM, v1_walk_one, &w);
}

/* ---- cpc_strtoevent and cpc_eventtostr ------------------------------------- */

struct v1_pic {
	const char *event;
	int sys, nouser, edge, pc, inv, intr;
	int have_umask;
	uint64_t umask, cmask;
};

/* "name" with an optional 0 or 1: the counter, -1 for both, -2 no match. */
static int v1_keyword(const char *tok, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(tok, name, n))
		return -2;
	if (!tok[n])
		return -1;
	if ((tok[n] == '0' || tok[n] == '1') && !tok[n + 1])
		return tok[n] - '0';
	return -2;
}

static int v1_parse_val(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static const char *const v1_bools[] = {
	"sys", "nouser", "noedge", "edge", "pc", "inv", "int",
};

static void v1_set_bool(struct v1_pic *p, int which, int on)
{
	switch (which) {
	case 0:
		p->sys = on;
		break;
	case 1:
		p->nouser = on;
		break;
	case 2:
		p->edge = !on;
		break;
	case 3:
		p->edge = on;
		break;
	case 4:
		p->pc = on;
		break;
	case 5:
		p->inv = on;
		break;
	default:
		p->intr = on;
		break;
	}
}

/* One token of a specification: 0, or -1 after reporting the error. */
static int v1_token(const struct cpcev_cpu *cpu, struct v1_pic *pics,
		    char *tok)
{
	static const char fn[] = "cpc_strtoevent";
	char *val = strchr(tok, '=');
	uint64_t v;
	size_t i;
	int pic, j;

	if (val)
		*val++ = '\0';
	pic = v1_keyword(tok, "pic");
	if (pic >= 0) {
		if (!val || !*val) {
			v1_err(fn, "missing 'pic%d' value\n", pic);
			return -1;
		}
		if (pics[pic].event) {
			v1_err(fn, "repeated 'pic%d' token\n", pic);
			return -1;
		}
		if (strlen(val) >= CPC_MAX_EVENT_LEN || !cpcev_known(cpu, val)) {
			v1_err(fn, "pic%d cannot measure event '%s' on this cpu\n",
			       pic, val);
			return -1;
		}
		pics[pic].event = val;
		return 0;
	}
	for (i = 0; i < ARRAY_LEN(v1_bools); i++) {
		pic = v1_keyword(tok, v1_bools[i]);
		if (pic == -2)
			continue;
		v = 1;
		if (val && v1_parse_val(val, &v)) {
			v1_err(fn, "invalid value '%s' for '%s'\n", val, tok);
			return -1;
		}
		for (j = 0; j < V1_NPIC; j++)
			if (pic == -1 || pic == j)
				v1_set_bool(&pics[j], (int)i, v != 0);
		return 0;
	}
	pic = v1_keyword(tok, "umask");
	if (pic == -2)
		pic = v1_keyword(tok, "cmask");
	if (pic != -2) {
		int is_umask = tok[0] == 'u';

		if (!val) {
			v1_err(fn, "missing '%s' value\n", tok);
			return -1;
		}
		if (v1_parse_val(val, &v) || v > 0xff) {
			v1_err(fn, "invalid value '%s' for '%s'\n", val, tok);
			return -1;
		}
		for (j = 0; j < V1_NPIC; j++) {
			if (pic != -1 && pic != j)
				continue;
			if (is_umask) {
				pics[j].umask = v;
				pics[j].have_umask = 1;
			} else {
				pics[j].cmask = v;
			}
		}
		return 0;
	}
	if (val)
		val[-1] = '=';
	v1_err(fn, "bad token '%s'\n", tok);
	return -1;
}

/* The image of counter n of a parsed specification, or 0 after an error. */
static uint32_t v1_pic_image(const struct cpcev_cpu *cpu,
			     const struct v1_pic *p, int n)
{
	struct cpcev_attr attrs[4];
	unsigned int na = 0;
	uint32_t pes;
	int sc;

	if (p->have_umask) {
		attrs[na].name = "umask";
		attrs[na++].val = p->umask;
	}
	if (p->cmask) {
		attrs[na].name = "cmask";
		attrs[na++].val = p->cmask;
	}
	if (p->edge) {
		attrs[na].name = "edge";
		attrs[na++].val = 1;
	}
	if (p->inv) {
		attrs[na].name = "inv";
		attrs[na++].val = 1;
	}
	pes = v1_image(cpu, p->event, attrs, na, &sc);
	if (!pes) {
		if (sc == CPC_ATTRIBUTE_OUT_OF_RANGE || sc == CPC_INVALID_ATTRIBUTE)
			v1_err("cpc_strtoevent",
			       "pic%d: attributes out of range for event '%s'\n",
			       n, p->event);
		else
			v1_err("cpc_strtoevent",
			       "pic%d: event '%s' is not a processor event a "
			       "cpc_event_t can describe\n", n, p->event);
		return 0;
	}
	if (!p->nouser)
		pes |= PES_USR;
	if (p->sys)
		pes |= PES_OS;
	if (p->pc)
		pes |= PES_PC;
	if (p->intr)
		pes |= PES_INT;
	return pes;
}

CPC_EXPORT int cpc_strtoevent(int cpuver, const char *spec, cpc_event_t *event)
{
	const struct cpcev_cpu *cpu;
	struct v1_pic pics[V1_NPIC];
	uint32_t pes[V1_NPIC];
	char *copy, *tok, *save = NULL;
	int i, n = 0, ret = -1;

	if (!spec || !event) {
		errno = EINVAL;
		return -1;
	}
	if (!v1_cpuver_ok(cpuver)) {
		v1_err("cpc_strtoevent", "unknown cpu version %d\n", cpuver);
		errno = EINVAL;
		return -1;
	}
	cpu = v1_get_cpu();
	memset(pics, 0, sizeof(pics));
	copy = strdup(spec);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (v1_token(cpu, pics, tok))
			goto out;
	for (i = 0; i < V1_NPIC; i++) {
		pes[i] = 0;
		if (!pics[i].event)
			continue;
		pes[i] = v1_pic_image(cpu, &pics[i], i);
		if (!pes[i])
			goto out;
		n++;
	}
	if (!n) {
		v1_err("cpc_strtoevent", "no event specified in '%s'\n", spec);
		goto out;
	}
	memset(event, 0, sizeof(*event));
	event->ce_cpuver = cpuver;
	for (i = 0; i < V1_NPIC; i++)
		event->ce_pes[i] = pes[i];
	ret = 0;
out:
	free(copy);
	if (ret)
		errno = EINVAL;
	return ret;
}

static void v1_find_one(void *p, const char *name)
{
	struct v1_walk *w = p;
	uint32_t pes;

	if (w->found)
		return;
	pes = v1_image(w->cpu, name, NULL, 0, NULL);
	/*
	 * Names that differ only in edge, invert or counter mask (Intel's
	 * walk_active and walk_pending): only one whose own bits the event
	 * has, so that the name reads back as the same image.
	 */
	if (pes && (pes & 0xffff) == w->want &&
	    !(pes & (PES_E | PES_INV) & ~w->want_extra) &&
	    (!(pes >> PES_CMASK_SHIFT) ||
	     pes >> PES_CMASK_SHIFT == w->want_extra >> PES_CMASK_SHIFT)) {
		snprintf(w->name, sizeof(w->name), "%s", name);
		w->found = w->name;
	}
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

CPC_EXPORT char *cpc_eventtostr(cpc_event_t *event)
{
	static const struct { uint32_t bit; const char *name; int set; } flags[] = {
		{ PES_E, "edge", 1 }, { PES_INV, "inv", 1 }, { PES_PC, "pc", 1 },
		{ PES_INT, "int", 1 }, { PES_OS, "sys", 1 },
		{ PES_USR, "nouser", 0 },
	};
	struct v1_walk w;
	char *s = NULL;
	size_t len = 0, f;
	int i, n = 0;

	if (!event || !v1_cpuver_ok(event->ce_cpuver)) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < V1_NPIC; i++) {
		uint32_t pes = event->ce_pes[i];

		if (!pes)
			continue;
		if (!v1_pes_ok(pes)) {
			free(s);
			errno = EINVAL;
			return NULL;
		}
		memset(&w, 0, sizeof(w));
		w.cpu = v1_get_cpu();
		w.want = pes & 0xffff;
		w.want_extra = pes & (PES_E | PES_INV | (0xffU << PES_CMASK_SHIFT));
		cpcev_walk(w.cpu, CPCEV_PLATFORM, v1_find_one, &w);
		if (w.found ?
		    v1_append(&s, &len, "%spic%d=%s", n ? "," : "", i, w.found) :
		    v1_append(&s, &len, "%spic%d=0x%x", n ? "," : "", i,
			      pes & PES_EVENT))
			return NULL;
		n++;
	}
	for (i = 0; i < V1_NPIC; i++) {
		uint32_t pes = event->ce_pes[i];

		if (!pes)
			continue;
		memset(&w, 0, sizeof(w));
		w.cpu = v1_get_cpu();
		w.want = pes & 0xffff;
		w.want_extra = pes & (PES_E | PES_INV | (0xffU << PES_CMASK_SHIFT));
		cpcev_walk(w.cpu, CPCEV_PLATFORM, v1_find_one, &w);
		if (!w.found && ((pes >> PES_UMASK_SHIFT) & 0xff) &&
		    v1_append(&s, &len, ",umask%d=0x%x", i,
			      (pes >> PES_UMASK_SHIFT) & 0xff))
			return NULL;
		if ((pes >> PES_CMASK_SHIFT) &&
		    v1_append(&s, &len, ",cmask%d=0x%x", i, pes >> PES_CMASK_SHIFT))
			return NULL;
		for (f = 0; f < ARRAY_LEN(flags); f++) {
			if (!!(pes & flags[f].bit) != flags[f].set)
				continue;
			if (v1_append(&s, &len, ",%s%d", flags[f].name, i))
				return NULL;
		}
	}
	if (!n) {
		errno = EINVAL;
		return NULL;
	}
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
		if (pes & PES_E) {
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
