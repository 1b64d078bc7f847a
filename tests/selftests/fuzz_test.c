// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded, time-bounded, randomised fuzzer of the four devices: /dev/pctr,
 * /dev/perfmon, /dev/cpc and /dev/pfcntr.  Built natively and as a static
 * 32-bit program (fuzz_test32), whose requests go through the module's
 * compat_ioctl paths.  Run only in the debug lane (KASAN, lockdep,
 * kmemleak, UBSAN), which also fails on any kernel log report it causes.
 *
 *   PMC_FUZZ_SEED     the seed (decimal or 0x hex); by default one is made
 *                     from the time and printed first, to replay a failure
 *   PMC_FUZZ_SECONDS  how long to fuzz (default FUZZ_SECONDS_DEFAULT)
 *   PMC_FUZZ_OFF      what not to do, to narrow a failure down: a list of
 *                     hotplug, inject, signal, knob, fork, exec, thread
 *
 * Each round of ROUND_SECONDS has FUZZ_WORKERS worker processes (each with
 * now and then a second thread sharing its descriptors) that open the
 * devices with random flags and open modes, issue mostly valid requests of
 * the uapi headers with random, boundary and partially valid arguments
 * (NULL, unmapped and read-only pages, kernel and non-canonical addresses,
 * buffers that run into a PROT_NONE page, bad sizes, counts and CPUs), some
 * random request numbers, read(2), pread(2) and lseek(2) of pfcntr's
 * profile, dup, close, fork children that use the inherited descriptors
 * (some after giving up root), pass descriptors to children (over a
 * socket, or with pidfd_getfd() where the kernel has no AF_UNIX), execve
 * /bin/true while holding them and execve themselves to go on with them
 * (the new image now and then restarting the bindings the old one made).
 * Beside them: CPU hotplug of CPUs 1..n-1, test PMU injections on random
 * CPUs (overflows, ticks, profile samples), signals (with a SIGKILL of a
 * worker now and then) and changes of the module's and the test PMU's
 * knobs.  Each worker's random stream comes from the seed, the round and
 * its number; what its requests meet (and so, through the outcomes, later
 * choices) depends on timing: a seed replays a run closely, not exactly.
 *
 * What is checked, beyond "the kernel did not complain":
 *  - every request returns 0 or -1 with an errno of the device's expected
 *    set (what the module and perf below it can return), read(2) and
 *    lseek(2) likewise; never anything else;
 *  - what a successful request writes: exactly its structure or its
 *    entries (guard bytes after them intact), fields that cannot take
 *    other values (PMC_CPC_INFO, the bind result's size, id and subcode,
 *    sample nvals, PMIOGET's counter number and flags, pctr's selectors,
 *    the image bits GETCNTRS must keep, GETRSIZE), an array too short is
 *    left untouched, read(2) returns no more than was asked for or fits;
 *  - workers and their children end as they should (never by a signal
 *    nobody sent), nothing hangs; signal 40 comes with si_code EMT_CPCOVF,
 *    and only to a process image that bound an overflow request itself
 *    (never to the new image after an execve, nor to a forked child);
 *  - afterwards, every descriptor closed: the module's reference count is
 *    back to its value before, no test PMU counter is left in use, no CPU
 *    of pfcntr and no perfmon writer slot is left taken, no cpc binding is
 *    left charged to root, and each device counts exactly what the test
 *    PMU injects.
 */
#include <machine/pctr.h>
#include <machine/perfmon.h>
#include <sys/cpc_impl.h>
#include <sys/pfcntr.h>
#include "pmc_test_util.h"
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define FUZZ_SECONDS_DEFAULT	60
#define ROUND_SECONDS		5
#define FUZZ_WORKERS		4
#define NSLOT			12	/* descriptors per worker */
#define NIDS			8	/* cpc binding ids remembered per descriptor */
#define NVIOL			24	/* violations kept for the report */
#define MAXCPU			64
#define MAX_EXECS		2	/* self execve()s per worker and round */
#define GRACE_SECONDS		60	/* a worker's last call after its round */

#ifndef __NR_pidfd_open
#define __NR_pidfd_open		434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd	438
#endif

#define EV_INS			0xc0
#define EV_CYC			0x3c
#define EV_BR			0xc4
#define P6			(1ULL << 20)

enum { D_PCTR, D_PERFMON, D_CPC, D_PFCNTR, D_N };
static const char *const dev_name[D_N] = { "pctr", "perfmon", "cpc", "pfcntr" };
static const char *const dev_path[D_N] = { "/dev/pctr", "/dev/perfmon", "/dev/cpc", "/dev/pfcntr" };

/* ---- what all processes of the run share ------------------------------- */

struct fz_shared {
	unsigned int ioctls[D_N], ok[D_N], rw[D_N], opens[D_N], open_ok[D_N];
	unsigned int err[D_N][140];
	unsigned int raced;		/* results not checked: the fd changed meanwhile */
	unsigned int forks, true_execs, self_execs, privdrops, passes, threads, resumed;
	unsigned int hotplugs, injects, inject_ok, signals, kills, knobs;
	unsigned int sig40, sig40_bad, sig40_unasked, sig40_unasked_pid;
	unsigned int nviol;
	char viol[NVIOL][224];
	/* Per worker: the last call begun, for a hang's report. */
	struct {
		int pid, dev;
		unsigned int cmd, op;
	} last[FUZZ_WORKERS];
	int wpid[FUZZ_WORKERS];		/* this round's workers */
	struct {
		int pid, fd, code;	/* a descriptor for child pid to take */
	} pass[FUZZ_WORKERS];
	int killed[FUZZ_WORKERS];	/* SIGKILLed on purpose this round */
};

static struct fz_shared *sh;
static int sh_fd = -1;

static uint64_t g_seed;
static int g_seconds, g_ncpu, g_nr_ids, g_refcnt0 = -1, g_pmu_lines0 = -1;
static bool g_seed_given;
static unsigned long long g_kaddr[4];	/* kernel text addresses for samples */
/*
 * This process image bound an overflow request (signal 40 to itself): a
 * new image (execve) and a forked child start without, and none of them
 * may get signal 40 before it binds one itself.
 */
static volatile int g_asked;
static bool off_hotplug, off_inject, off_signal, off_knob, off_fork, off_exec, off_thread;
static unsigned int g_nkaddr;

#define INC(x)	__atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * poll(2), not nanosleep(2): a 32-bit glibc's nanosleep() was seen not to
 * sleep on a kernel without COMPAT_32BIT_TIME (the debug lane's, once).
 */
static void sleep_ms(unsigned int ms)
{
	uint64_t end = now_ns() + ms * 1000000ULL, now;

	while ((now = now_ns()) < end)
		poll(NULL, 0, (int)((end - now + 999999) / 1000000));
}

/* One line to stderr in a single write (processes share it). */
static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(2, line, n) < 0)
		return;
}

static void kmsg_say(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC), n;

	if (fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && write(fd, line, strlen(line)) < 0)
		n = 0;
	close(fd);
}

/* A broken rule: counted, kept for the report, and printed at once. */
static void viol(const char *fmt, ...)
{
	char line[224];
	unsigned int k;
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "pid %d: ", (int)getpid());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	k = INC(sh->nviol);
	if (k < NVIOL)
		memcpy(sh->viol[k], line, sizeof(line));
	if (k < 4 * NVIOL)
		say("# fuzz: VIOLATION: %s", line);
	else if (k == 4 * NVIOL)
		say("# fuzz: more violations: counted, not printed");
}

/* ---- random numbers ----------------------------------------------------- */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rn(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnd(r) % n) : 0;
}

static bool chance(struct rng *r, unsigned int pct)
{
	return rn(r, 100) < pct;
}

static void rng_init(struct rng *r, uint64_t a, uint64_t b, uint64_t c)
{
	r->s = g_seed ^ (a * 0x100000001b3ULL) ^ (b << 20) ^ (c << 40);
	rnd(r);
	r->s ^= rnd(r);
}

#define PICK(r, a)	((a)[rn(r, sizeof(a) / sizeof((a)[0]))])

static const uint64_t boundary64[] = {
	0, 1, 2, 3, 4, 7, 8, 0xff, 0x100, 0xfff, 0x1000, 0xffff, 0x10000,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL, 0xfffffffffULL,
	(1ULL << 47) - 1, 1ULL << 48, (1ULL << 63) - 1, 1ULL << 63,
	~0ULL - 1, ~0ULL,
};

static uint64_t r64(struct rng *r)
{
	switch (rn(r, 4)) {
	case 0:
		return PICK(r, boundary64);
	case 1:
		return rn(r, 64);
	case 2:
		return ~(uint64_t)rn(r, 64);
	default:
		return rnd(r);
	}
}

static void rfill(struct rng *r, void *p, size_t n)
{
	unsigned char *b = p;

	while (n--)
		*b++ = chance(r, 50) ? 0 : (unsigned char)rnd(r);
}

/* ---- per worker and per thread state ------------------------------------ */

struct slot {
	int fd;				/* -1: free */
	int dev;
	int mode;			/* pfcntr: PCNTOPENONE, _EACH or _ALL */
	unsigned int gen;		/* bumped when the slot changes */
	int origin;			/* how it was filled (diagnostics) */
	uint32_t ids[NIDS];		/* cpc binding ids seen */
};

struct wk {
	int id, round, depth;		/* depth: 0 worker, 1 its child */
	uint64_t end;			/* CLOCK_MONOTONIC deadline */
	struct slot s[NSLOT];
	int privdrop;
	int nexec;
	pid_t child;			/* a live child (PCTX target), or 0 */
	volatile int thread_on, thread_done, stop;
	/*
	 * Held while the slots change (open, dup, close) and across fork()
	 * and execve(): a fork() copies the descriptors and the memory at two
	 * different moments, and the other thread must not change either in
	 * between.  Requests on the descriptors do not take it.  A spinlock,
	 * and a detached thread that is never joined: on a kernel without
	 * COMPAT_32BIT_TIME (the debug lane's, once) a 32-bit glibc aborts at
	 * its first futex wait (ENOSYS).
	 */
	int lock;
};

static void wk_lock(struct wk *w)
{
	while (__atomic_exchange_n(&w->lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void wk_unlock(struct wk *w)
{
	__atomic_store_n(&w->lock, 0, __ATOMIC_RELEASE);
}

struct tc {
	struct wk *w;
	struct rng r;
	unsigned char *pg;		/* 2 RW pages, PROT_NONE, read-only */
	unsigned char *arr;		/* 4 RW pages, PROT_NONE */
	unsigned char *big;		/* 1 MiB RW, PROT_NONE */
	void *unmapped;
	bool thread;			/* the worker's second thread: does not fork */
};

#define PG_RW		8192
#define ARR_RW		16384
#define BIG_RW		(1 << 20)
#define GUARD_BYTE	0xa5
#define GUARD_LEN	64

static int tc_init(struct tc *t, struct wk *w, uint64_t salt)
{
	void *u;

	memset(t, 0, sizeof(*t));
	t->w = w;
	rng_init(&t->r, (uint64_t)w->round * 64 + w->id, salt, w->depth);
	t->pg = mmap(NULL, 16384, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t->arr = mmap(NULL, ARR_RW + 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t->big = mmap(NULL, BIG_RW + 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* Kept PROT_NONE: an unmapped page could be mapped again meanwhile. */
	u = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->pg == MAP_FAILED || t->arr == MAP_FAILED || t->big == MAP_FAILED ||
	    u == MAP_FAILED)
		return -1;
	if (mprotect(t->pg + PG_RW, 4096, PROT_NONE) ||
	    mprotect(t->pg + PG_RW + 4096, 4096, PROT_READ) ||
	    mprotect(t->arr + ARR_RW, 4096, PROT_NONE) ||
	    mprotect(t->big + BIG_RW, 4096, PROT_NONE))
		return -1;
	t->unmapped = u;
	return 0;
}

static void tc_fini(struct tc *t)
{
	munmap(t->pg, 16384);
	munmap(t->arr, ARR_RW + 4096);
	munmap(t->big, BIG_RW + 4096);
	munmap(t->unmapped, 4096);
}

/*
 * Where an argument goes.  GOOD kinds are writable memory the size of the
 * argument (with guard bytes after, or ending at a PROT_NONE page); the
 * others fault, wholly or in part.
 */
enum pk {
	PK_GUARD, PK_END, PK_ODD,		/* good */
	PK_STRADDLE, PK_RO, PK_NULL, PK_UNMAPPED, PK_KERNEL, PK_NONCANON, PK_TINY,
	PK_N
};

static bool pk_good(int k)
{
	return k <= PK_ODD;
}

static void *bad_ptr(struct tc *t, int kind)
{
	switch (kind) {
	case PK_NULL:
		return NULL;
	case PK_UNMAPPED:
		return t->unmapped;
	case PK_KERNEL:
		return (void *)(uintptr_t)(sizeof(void *) == 8 ? 0xffffffff81000000ULL : 0xfffff000UL);
	case PK_NONCANON:
		return (void *)(uintptr_t)(sizeof(void *) == 8 ? 0x0000800000000000ULL : 0xffffe000UL);
	default:
		return (void *)(uintptr_t)(rn(&t->r, 4096) & ~7U);
	}
}

/*
 * Memory for an argument of size bytes in area [base, base + rw) (whose
 * next page is PROT_NONE), of kind *kind (chosen: good in good_pct of the
 * calls).  Good memory is zeroed, with GUARD_LEN guard bytes after it
 * where there is room.  *valid: bytes before the fault (STRADDLE).
 */
static unsigned char *place(struct tc *t, unsigned char *base, size_t rw, size_t size,
			    int good_pct, int *kind, size_t *valid)
{
	unsigned char *p;
	int k;

	if (size > rw - 512 - GUARD_LEN)
		size = rw - 512 - GUARD_LEN;
	if (chance(&t->r, good_pct))
		k = (int)rn(&t->r, PK_ODD + 1);
	else
		k = PK_STRADDLE + (int)rn(&t->r, PK_N - PK_STRADDLE);
	if (k == PK_RO && base != t->pg)
		k = PK_STRADDLE;
	if (k == PK_STRADDLE && size < 2)
		k = PK_NULL;
	*kind = k;
	*valid = size;
	switch (k) {
	case PK_GUARD:
		p = base + 256 + 8 * rn(&t->r, 16);
		memset(p, 0, size);
		memset(p + size, GUARD_BYTE, GUARD_LEN);
		return p;
	case PK_END:
		p = base + rw - size;
		memset(p, 0, size);
		return p;
	case PK_ODD:
		p = base + 256 + 1 + 2 * rn(&t->r, 3);
		memset(p, 0, size);
		memset(p + size, GUARD_BYTE, GUARD_LEN);
		return p;
	case PK_STRADDLE:
		*valid = 1 + rn(&t->r, size - 1);
		p = base + rw - *valid;
		memset(p, 0, *valid);
		return p;
	case PK_RO:
		*valid = 0;
		return t->pg + PG_RW + 4096;
	default:
		*valid = 0;
		return bad_ptr(t, k);
	}
}

static bool guard_ok(int kind, const unsigned char *p, size_t size)
{
	size_t i;

	if (kind != PK_GUARD && kind != PK_ODD)
		return true;
	for (i = 0; i < GUARD_LEN; i++)
		if (p[size + i] != GUARD_BYTE)
			return false;
	return true;
}

/* ---- expected errnos ------------------------------------------------------ */

enum { OP_IOCTL, OP_OPEN, OP_READ, OP_SEEK, OP_SEEK_BAD_WHENCE };

/*
 * What each device can answer: its own errnos (module/) and what perf can
 * return through the counter core where the device passes that on (pctr
 * turns ENOENT, EOPNOTSUPP and EACCES into EINVAL and EPERM; cpc gives
 * EINVAL with a subcode or EAGAIN for EBUSY).  EBADF never: a descriptor
 * closed by another thread meanwhile is not judged (its slot's generation
 * moved).
 */
static const int ok_ioctl[D_N][16] = {
	[D_PCTR] = { EINVAL, EFAULT, ENOTTY, EPERM, EIO, EBUSY, ENODEV, ENOMEM },
	[D_PERFMON] = { EINVAL, EFAULT, ENOTTY, EPERM, EIO, EBUSY, ENODEV, ENOMEM,
			ENXIO, ENOENT, EOPNOTSUPP },
	[D_CPC] = { EINVAL, EFAULT, ENOTTY, E2BIG, EAGAIN, ESRCH, EACCES, EOPNOTSUPP,
		    ENODEV, ENOMEM, EINTR, EIO },
	[D_PFCNTR] = { EINVAL, EFAULT, ENOTTY, EPERM, EBUSY, ENOMEM, ENOSPC, EOPNOTSUPP,
		       EINTR, EIO, ENODEV, ESRCH },
};

static const int ok_open[D_N][8] = {
	[D_PCTR] = { ENOMEM },
	[D_PERFMON] = { ENXIO, EPERM, EBUSY, ENOMEM },
	[D_CPC] = { ENOMEM },
	[D_PFCNTR] = { ENXIO, EINVAL, EBUSY, ENOMEM },
};

static bool in_set(const int *set, int n, int e)
{
	int i;

	for (i = 0; i < n && set[i]; i++)
		if (set[i] == e)
			return true;
	return false;
}

static bool errno_ok(struct wk *w, int dev, int op, int e)
{
	switch (op) {
	case OP_IOCTL:
		return in_set(ok_ioctl[dev], 16, e);
	case OP_OPEN:
		/* The nodes are root's (0640, 0660): EACCES after giving up root. */
		return in_set(ok_open[dev], 8, e) || (w->privdrop && e == EACCES);
	case OP_READ:
		/* No read method (pctr, perfmon, cpc): EINVAL, and ESPIPE at an offset. */
		if (dev != D_PFCNTR)
			return e == EINVAL || e == ESPIPE;
		return e == EINVAL || e == EFAULT || e == ENOMEM || e == EINTR;
	case OP_SEEK:	/* nonseekable_open(): ESPIPE */
		return dev == D_PFCNTR ? e == EINVAL || e == ENXIO : e == ESPIPE;
	default:	/* a bad whence: the VFS's EINVAL */
		return e == EINVAL;
	}
}

static void count_err(int dev, int e)
{
	INC(sh->err[dev][e > 0 && e < 140 ? e : 0]);
}

/* ---- descriptors ---------------------------------------------------------- */

static struct slot *pick_slot(struct tc *t)
{
	struct wk *w = t->w;
	unsigned int i, k = rn(&t->r, NSLOT);

	for (i = 0; i < NSLOT; i++) {
		struct slot *s = &w->s[(k + i) % NSLOT];

		if (__atomic_load_n(&s->fd, __ATOMIC_ACQUIRE) >= 0)
			return s;
	}
	return NULL;
}

/* A slot of device dev if there is one, else any. */
static struct slot *pick_slot_of(struct tc *t, int dev)
{
	struct wk *w = t->w;
	unsigned int i, k = rn(&t->r, NSLOT);

	for (i = 0; i < NSLOT; i++) {
		struct slot *s = &w->s[(k + i) % NSLOT];

		if (__atomic_load_n(&s->fd, __ATOMIC_ACQUIRE) >= 0 && s->dev == dev)
			return s;
	}
	return pick_slot(t);
}

static struct slot *free_slot(struct tc *t)
{
	struct wk *w = t->w;
	unsigned int i, k = rn(&t->r, NSLOT);

	for (i = 0; i < NSLOT; i++) {
		struct slot *s = &w->s[(k + i) % NSLOT];

		if (__atomic_load_n(&s->fd, __ATOMIC_ACQUIRE) < 0)
			return s;
	}
	return NULL;
}

static void slot_set(struct slot *s, int fd, int dev, int mode, int origin)
{
	s->origin = origin;
	s->dev = dev;
	s->mode = mode;
	memset(s->ids, 0, sizeof(s->ids));
	__atomic_fetch_add(&s->gen, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&s->fd, fd, __ATOMIC_RELEASE);
}

static void slot_close(struct slot *s)
{
	int fd = __atomic_exchange_n(&s->fd, -1, __ATOMIC_ACQ_REL);

	__atomic_fetch_add(&s->gen, 1, __ATOMIC_ACQ_REL);
	if (fd >= 0)
		close(fd);
}

static void pin_random(struct tc *t)
{
	int cpu = rn(&t->r, g_ncpu + 1);

	if (cpu == g_ncpu) {
		cpu_set_t all;
		int c;

		CPU_ZERO(&all);
		for (c = 0; c < g_ncpu; c++)
			CPU_SET(c, &all);
		sched_setaffinity(0, sizeof(all), &all);
		return;
	}
	pin_to_cpu(cpu);	/* an offline CPU fails: the affinity stays */
}

static void op_open_locked(struct tc *t, int dev);

static void op_open(struct tc *t, int dev)
{
	wk_lock(t->w);
	op_open_locked(t, dev);
	wk_unlock(t->w);
}

static void op_open_locked(struct tc *t, int dev)
{
	static const int acc[] = { O_RDONLY, O_RDONLY, O_WRONLY, O_RDWR, O_RDWR, 3 };
	static const int pfmode[] = { 0, PCNTOPENONE, PCNTOPENONE, PCNTOPENONE, PCNTOPENONE,
				      PCNTOPENONE, PCNTOPENONE, PCNTOPENEACH, PCNTOPENALL, PCNTOPENALL };
	struct wk *w = t->w;
	struct slot *s = free_slot(t);
	int flags, mode = 0, fd;

	if (!s) {
		s = pick_slot(t);
		if (!s)
			return;
		slot_close(s);
	}
	flags = PICK(&t->r, acc) | (chance(&t->r, 30) ? O_CLOEXEC : 0);
	if (dev == D_PFCNTR) {
		if (chance(&t->r, 70))
			flags = (flags & O_CLOEXEC) | O_RDONLY;
		mode = PICK(&t->r, pfmode);
		flags |= mode;
		if (!mode)
			mode = PCNTOPENONE;
		if (mode == PCNTOPENONE && chance(&t->r, 80))
			pin_random(t);
	}
	INC(sh->opens[dev]);
	__atomic_store_n(&sh->last[w->id].op, 1, __ATOMIC_RELAXED);
	fd = open(dev_path[dev], flags);
	if (fd < 0) {
		int e = errno;

		count_err(dev, e);
		if (!errno_ok(w, dev, OP_OPEN, e))
			viol("open(%s, %#x): %s", dev_path[dev], flags, strerror(e));
		/* pfcntr's CPUs are few: give back one of ours now and then. */
		if (e == EBUSY && dev == D_PFCNTR && chance(&t->r, 50)) {
			struct slot *o = pick_slot_of(t, D_PFCNTR);

			if (o && o->dev == D_PFCNTR)
				slot_close(o);
		}
		return;
	}
	INC(sh->open_ok[dev]);
	slot_set(s, fd, dev, mode, 1);
}

/* ---- request numbers ------------------------------------------------------- */

static const unsigned long pctr_cmds[] = {
	PCIOCRD, PCIOCRD_1998, PCIOCS0, PCIOCS1, PCIOCS2, PCIOCS3,
};
static const unsigned long perfmon_cmds[] = {
	PMIOSETUP, PMIOSTART, PMIOSTOP, PMIOREAD, PMIORESET, PMIOTSTAMP, PMIOGET,
};
static const unsigned long cpc_cmds[] = {
	PMC_CPC_INFO, PMC_CPC_BIND, PMC_CPC_SAMPLE, PMC_CPC_RELE, PMC_CPC_PRESET,
	PMC_CPC_RESTART, PMC_CPC_ENABLE, PMC_CPC_DISABLE,
};
static const unsigned long pf_cmds[] = {
	PCNTRDISABLE, PCNTRENABLE, PCNTSETMUX, PCNTLOGALL, PCNTLOGSELECT, PCNTCLEARCNT,
	PCNTGETCNT, PCNTCLEARPCBPME, PCNTCALLER, PCNTGETRSIZE, PCNTGETIPLHIS,
	PCNTSETITEMS, PCNTSETUADDR, PCNTSETKADDR, PCNTSETURANGE, PCNTSETKRANGE,
	PCNT5CTXTS, PCNT5MUX, PCNT5FREQ, PCNT5DISABLE, PCNT5ENABLE, PCNT5CLEAR,
	PCNT5RESTART, PCNT5SETCNTRS, PCNT5GETCNTRS, PCNT5GETCNT, PCNT5READCNTRS,
	PCNT6MUX, PCNT6ENABWRITE, PCNT6DISABLE, PCNT6ENABLE, PCNT6CLEAR,
	PCNT6RESTART, PCNT6SETCNTRS, PCNT6GETCNTRS, PCNT6GETCNT, PCNT6READCNTRS,
};

/*
 * A request number that is none of the devices' own: random, or one of
 * their groups with another number, direction or size.  Groups that the VFS
 * answers itself for any file are left out (FIGETBSZ, FIONBIO, FICLONE,
 * FS_IOC_*): their answers are not the module's.
 */
static unsigned long random_cmd(struct tc *t)
{
	static const unsigned int types[] = { 'c', '5', 'P', PMC_CPC_IOC_MAGIC, 'c', 'P' };
	static const unsigned int vfs_types[] = { 0x00, 'T', 'X', 0x94, 0x15, 'f', 'v', 0x12 };
	unsigned int type, i;
	unsigned long cmd;

	for (;;) {
		if (chance(&t->r, 70))
			type = PICK(&t->r, types);
		else
			type = rn(&t->r, 256);
		cmd = _IOC(rn(&t->r, 4), type, rn(&t->r, 100) < 80 ? rn(&t->r, 80) : rn(&t->r, 256),
			   chance(&t->r, 50) ? rn(&t->r, 80) : rn(&t->r, 1 << 14));
		for (i = 0; i < sizeof(vfs_types) / sizeof(vfs_types[0]); i++)
			if (type == vfs_types[i])
				break;
		if (i == sizeof(vfs_types) / sizeof(vfs_types[0]))
			return cmd;
	}
}

static unsigned long other_dev_cmd(struct tc *t, int dev)
{
	switch ((dev + 1 + rn(&t->r, D_N - 1)) % D_N) {
	case D_PCTR:
		return PICK(&t->r, pctr_cmds);
	case D_PERFMON:
		return PICK(&t->r, perfmon_cmds);
	case D_CPC:
		return PICK(&t->r, cpc_cmds);
	default:
		return PICK(&t->r, pf_cmds);
	}
}

/* ---- one ioctl: the call and the checks every call gets ---------------------- */

struct call {
	struct tc *t;
	struct slot *s;
	int fd, dev, mode;
	unsigned int gen;
	unsigned long cmd;
	const char *what;
	long ret;
	int err;
};

/* Issue the request; false when its result must not be judged (fd changed). */
static bool do_ioctl(struct call *c, void *arg)
{
	struct wk *w = c->t->w;

	__atomic_store_n(&sh->last[w->id].dev, c->dev, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->last[w->id].cmd, (unsigned int)c->cmd, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->last[w->id].op, 2, __ATOMIC_RELAXED);
	INC(sh->ioctls[c->dev]);
	errno = 0;
	c->ret = ioctl(c->fd, c->cmd, arg);
	c->err = errno;
	if (__atomic_load_n(&c->s->gen, __ATOMIC_ACQUIRE) != c->gen) {
		INC(sh->raced);
		return false;
	}
	if (c->ret == 0) {
		INC(sh->ok[c->dev]);
		return true;
	}
	count_err(c->dev, c->err);
	if (c->ret != -1)
		viol("%s: ioctl %#lx (%s) returned %ld", dev_name[c->dev], c->cmd, c->what, c->ret);
	else if (!errno_ok(w, c->dev, OP_IOCTL, c->err))
		viol("%s: ioctl %#lx (%s) on fd %d (slot %d from %d, gen %u, depth %d, exec %d, "
		     "F_GETFD %d) failed with %s (%d), not an errno of the device",
		     dev_name[c->dev], c->cmd, c->what, c->fd, (int)(c->s - w->s), c->s->origin,
		     c->gen, w->depth, w->nexec, fcntl(c->fd, F_GETFD), strerror(c->err), c->err);
	return true;
}

/* ---- /dev/pctr ------------------------------------------------------------- */

static unsigned int gen_pctr_fn(struct rng *r)
{
	static const unsigned int ev[] = { 0x00c0, 0x003c, 0x00c4, 0x00c5, 0x002e, 0x412e,
					   0x0148, 0x0300, 0x0000, 0x00c0 };
	static const unsigned int p5[] = { 0x00, 0x01, 0x03, 0x0d, 0x0e, 0x12, 0x16, 0x3f, 0x05 };
	static const unsigned int bits[] = { PCTR_U, PCTR_K, PCTR_E, PCTR_EN, PCTR_I,
					     0x00080000, 0x00100000, 0x00200000, 0x01000000 };
	unsigned int fn, i;

	switch (rn(r, 8)) {
	case 0:
		return 0;
	case 1:
		return (unsigned int)rnd(r);
	case 2:
		return PICK(r, p5) | (chance(r, 60) ? P5CTR_U : 0) |
		       (chance(r, 40) ? P5CTR_K : 0) | (chance(r, 10) ? P5CTR_C : 0);
	case 3:
		fn = PICK(r, ev);
		for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
			if (chance(r, 40))
				fn |= bits[i];
		return fn;
	default:
		return PICK(r, ev) | PCTR_EN | PCTR_U | (chance(r, 50) ? PCTR_K : 0);
	}
}

static void fz_pctr(struct call *c)
{
	struct tc *t = c->t;
	unsigned char *p;
	size_t size, valid;
	unsigned int n, i;
	int kind;

	switch (rn(&t->r, 10)) {
	case 0: case 1: case 2:
		c->cmd = PCIOCRD;
		c->what = "PCIOCRD";
		size = 56;
		break;
	case 3:
		c->cmd = PCIOCRD_1998;
		c->what = "PCIOCRD_1998";
		size = 40;
		break;
	default:
		n = chance(&t->r, 85) ? rn(&t->r, 4) : chance(&t->r, 70) ? 4 + rn(&t->r, 60) : 64 + rn(&t->r, 40);
		c->cmd = PCIOCS0 + n;
		c->what = "PCIOCSn";
		size = 4;
	}
	p = place(t, t->pg, PG_RW, size, 80, &kind, &valid);
	if (size == 4 && pk_good(kind)) {
		unsigned int fn = gen_pctr_fn(&t->r);

		memcpy(p, &fn, 4);
	}
	if (!do_ioctl(c, p) || c->ret || !pk_good(kind))
		return;
	if (!guard_ok(kind, p, size))
		viol("pctr: %s wrote past its %zu bytes", c->what, size);
	if (size == 4)
		return;
	for (i = 0; i < (size == 56 ? 4U : 2U); i++) {
		unsigned int fn;

		memcpy(&fn, p + 4 * i, 4);
		if (fn & 0x00380000)
			viol("pctr: %s selector %u is %#x: refused bits are never programmed",
			     c->what, i, fn);
	}
}

/* ---- /dev/perfmon ----------------------------------------------------------- */

static int gen_pmc_num(struct rng *r)
{
	static const int bad[] = { -1, 4, 5, 0x7fffffff, (int)0x80000000, 255, -4 };

	return chance(r, 85) ? (int)rn(r, NPMC) : PICK(r, bad);
}

static unsigned int gen_perfmon_ctl(struct rng *r)
{
	static const unsigned int ev[] = { 0xc0, 0x3c, 0xc4, 0xc5, 0x2e, 0x48, 0x00 };
	unsigned int flags = rn(r, 256);

	if (chance(r, 10))
		return (unsigned int)rnd(r);
	if (chance(r, 60))
		flags = PMCF_USR | (chance(r, 50) ? PMCF_OS : 0) | (chance(r, 20) ? PMCF_INT | PMCF_EN : 0);
	return PICK(r, ev) | (chance(r, 20) ? rn(r, 256) << 8 : (chance(r, 30) ? 0x41u << 8 : 0)) |
	       flags << 16 | (chance(r, 10) ? rn(r, 256) << 24 : 0);
}

static void fz_perfmon(struct call *c)
{
	struct tc *t = c->t;
	struct pmc_data d;
	struct pmc pm;
	unsigned char *p;
	size_t size, valid;
	int kind, num = gen_pmc_num(&t->r);

	c->cmd = PICK(&t->r, perfmon_cmds);
	switch (c->cmd) {
	case PMIOSETUP:
		c->what = "PMIOSETUP";
		size = sizeof(pm);
		break;
	case PMIOGET:
		c->what = "PMIOGET";
		size = sizeof(pm);
		break;
	case PMIOREAD:
		c->what = "PMIOREAD";
		size = sizeof(d);
		break;
	case PMIOTSTAMP:
		c->what = "PMIOTSTAMP";
		size = sizeof(struct pmc_tstamp);
		break;
	default:
		c->what = c->cmd == PMIOSTART ? "PMIOSTART" : c->cmd == PMIOSTOP ? "PMIOSTOP" : "PMIORESET";
		size = sizeof(int);
	}
	p = place(t, t->pg, PG_RW, size, 85, &kind, &valid);
	if (pk_good(kind)) {
		if (c->cmd == PMIOSETUP || c->cmd == PMIOGET) {
			pm.pmc_num = num;
			pm.pmc_val = c->cmd == PMIOSETUP ? gen_perfmon_ctl(&t->r) : (unsigned int)rnd(&t->r);
			memcpy(p, &pm, sizeof(pm));
		} else if (c->cmd == PMIOREAD) {
			memset(&d, 0x5a, sizeof(d));
			d.pmcd_num = num;
			memcpy(p, &d, sizeof(d));
		} else if (c->cmd != PMIOTSTAMP) {
			memcpy(p, &num, sizeof(num));
		}
	} else if (kind == PK_STRADDLE) {
		rfill(&t->r, p, valid);
	}
	if (!do_ioctl(c, p) || c->ret || !pk_good(kind))
		return;
	if (!guard_ok(kind, p, size))
		viol("perfmon: %s wrote past its %zu bytes", c->what, size);
	if (c->cmd == PMIOGET) {
		memcpy(&pm, p, sizeof(pm));
		if (pm.pmc_num != num)
			viol("perfmon: PMIOGET of counter %d answered for counter %d", num, pm.pmc_num);
		if (pm.pmc_val & (PMCF_INT << 16))
			viol("perfmon: PMIOGET control word %#x has PMCF_INT, stripped at setup",
			     pm.pmc_val);
	} else if (c->cmd == PMIOREAD) {
		memcpy(&d, p, sizeof(d));
		if (d.pmcd_num != num)
			viol("perfmon: PMIOREAD of counter %d answered for counter %d", num, d.pmcd_num);
	} else if (c->cmd == PMIOTSTAMP) {
		struct pmc_tstamp ts;

		memcpy(&ts, p, sizeof(ts));
		if (ts.pmct_rate <= 0)
			viol("perfmon: PMIOTSTAMP rate %d MHz", ts.pmct_rate);
	}
}

/* ---- /dev/cpc ----------------------------------------------------------------- */

static uint32_t gen_cpc_id(struct tc *t, struct slot *s)
{
	uint32_t id;

	switch (rn(&t->r, 6)) {
	case 0:
		return 0;
	case 1:
		return 1 + rn(&t->r, 16);
	case 2:
		return (uint32_t)r64(&t->r);
	default:
		id = s->ids[rn(&t->r, NIDS)];
		return id;
	}
}

static void remember_id(struct slot *s, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < NIDS; i++) {
		if (!s->ids[i]) {
			s->ids[i] = id;
			return;
		}
	}
	s->ids[id % NIDS] = id;
}

static void gen_cpc_req(struct rng *r, struct pmc_cpc_request *q, unsigned int i, unsigned int n)
{
	static const uint64_t raw[] = { 0xc0, 0x3c, 0xc4, 0xc5, 0x2e, 0x412e, 0x148, 0x300,
					0x1c0, 0x100000c0ULL, 0xffffffffULL };
	static const uint32_t types[] = { PERF_TYPE_RAW, PERF_TYPE_RAW, PERF_TYPE_HARDWARE,
					  PERF_TYPE_HW_CACHE, PERF_TYPE_SOFTWARE, PERF_TYPE_SOFTWARE,
					  PERF_TYPE_TRACEPOINT, PERF_TYPE_BREAKPOINT, 7, 99 };
	static const uint64_t presets[] = { 0, 0, 100, ~0ULL - 1000, ~0ULL - 1, ~0ULL,
					    1ULL << 63, (1ULL << 63) - 1 };

	memset(q, 0, sizeof(*q));
	q->type = chance(r, 90) ? PICK(r, types) : (uint32_t)rnd(r);
	switch (q->type) {
	case PERF_TYPE_RAW:
		q->config = chance(r, 85) ? PICK(r, raw) : r64(r);
		break;
	case PERF_TYPE_HARDWARE:
		q->config = chance(r, 85) ? rn(r, PERF_COUNT_HW_MAX) : r64(r);
		break;
	case PERF_TYPE_HW_CACHE:
		q->config = chance(r, 85) ? rn(r, PERF_COUNT_HW_CACHE_MAX) |
					    rn(r, PERF_COUNT_HW_CACHE_OP_MAX) << 8 |
					    rn(r, PERF_COUNT_HW_CACHE_RESULT_MAX) << 16 : r64(r);
		break;
	case PERF_TYPE_SOFTWARE:
		q->config = chance(r, 85) ? rn(r, PERF_COUNT_SW_MAX) : r64(r);
		/* No bpf-output or dummy events: perf rejects those for counting anyway. */
		break;
	default:
		q->config = r64(r);
	}
	q->flags = chance(r, 90) ? (chance(r, 80) ? CPC_COUNT_USER : 0) |
				   (chance(r, 40) ? CPC_COUNT_SYSTEM : 0) |
				   (chance(r, 25) ? CPC_OVF_NOTIFY_EMT : 0) |
				   (chance(r, 3) ? CPC_COUNT_HV : 0)
				 : (uint32_t)rnd(r);
	q->preset = chance(r, 70) ? PICK(r, presets) : r64(r);
	q->index = chance(r, 92) ? i : chance(r, 50) ? rn(r, n + 1) : (uint32_t)rnd(r);
	q->reserved = chance(r, 97) ? 0 : (uint32_t)rnd(r);
}

static int32_t gen_pid(struct tc *t, bool tid);

/*
 * A bind that should work: this thread (now and then inherited), this CPU
 * or a child, one or two of the test PMU's events, overflow requests whose
 * preset is a few thousand events from the overflow, so that injections
 * make overflows and signal 40.
 */
static void gen_cpc_clean_bind(struct tc *t, struct pmc_cpc_bind *b,
			       struct pmc_cpc_request *reqs, uint32_t *n)
{
	uint32_t i, r = rn(&t->r, 100);

	b->size = sizeof(*b);
	b->scope = r < 70 ? PMC_CPC_BIND_CURLWP : r < 85 ? PMC_CPC_BIND_CPU : PMC_CPC_BIND_PCTX;
	b->flags = b->scope == PMC_CPC_BIND_CURLWP && chance(&t->r, 15) ? CPC_BIND_LWP_INHERIT : 0;
	b->nreqs = *n = 1 + rn(&t->r, 2);
	b->reserved = 0;
	b->signo = PMC_CPC_OVF_SIGNO;
	b->si_code = PMC_CPC_OVF_CODE;
	if (b->scope == PMC_CPC_BIND_PCTX) {
		b->pid = t->w->child ? t->w->child : getpid();
		b->tid = 0;
	}
	if (b->scope == PMC_CPC_BIND_CPU) {
		b->cpu = sched_getcpu();
		pin_to_cpu(b->cpu);
	}
	for (i = 0; i < *n; i++) {
		bool ovf = b->scope != PMC_CPC_BIND_PCTX && !b->flags && chance(&t->r, 50);

		memset(&reqs[i], 0, sizeof(reqs[i]));
		reqs[i].type = PERF_TYPE_RAW;
		reqs[i].config = i ? EV_CYC : EV_INS;
		reqs[i].flags = CPC_COUNT_USER | (chance(&t->r, 30) ? CPC_COUNT_SYSTEM : 0) |
				(ovf ? CPC_OVF_NOTIFY_EMT : 0);
		reqs[i].preset = ovf ? ~0ULL - 100 - rn(&t->r, 5000) : 0;
		reqs[i].index = i;
	}
}

/* A pid or tid for PMC_CPC_BIND_PCTX: ours, relatives, init, a kthread, none. */
static int32_t gen_pid(struct tc *t, bool tid)
{
	switch (rn(&t->r, 12)) {
	case 0: case 1: case 2:
		return tid ? (chance(&t->r, 50) ? 0 : (int32_t)syscall(SYS_gettid)) : getpid();
	case 3:
		return getppid();
	case 4: case 5:
		return t->w->child ? t->w->child : getpid();
	case 6:
		return 1;
	case 7:
		return chance(&t->r, 30) ? 2 : 0;
	case 8:
		return -1;
	case 9:
		return 999999;
	default:
		return (int32_t)r64(&t->r);
	}
}

static int32_t gen_cpu(struct tc *t)
{
	static const int32_t bad[] = { -1, 64, 255, 256, 0x7fffffff, (int32_t)0x80000000, 4096 };

	if (chance(&t->r, 85))
		return rn(&t->r, g_ncpu + 1);		/* one past the last, now and then */
	return PICK(&t->r, bad);
}

/* The size field of an extensible structure, and the request's size bits. */
static uint32_t gen_usize(struct tc *t, uint32_t ksize, unsigned long *cmd)
{
	static const uint32_t sizes[] = { 0, 4, 8, 16, 31, 32, 40, 48, 55, 56, 57, 64, 128,
					  4095, 4096, 4097, 0xffffffffU };
	uint32_t usize = chance(&t->r, 80) ? ksize :
			 chance(&t->r, 70) ? PICK(&t->r, sizes) : (uint32_t)rnd(&t->r);

	/* Newer programs' requests carry other size bits: cpc ignores them. */
	if (chance(&t->r, 10))
		*cmd = (*cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		       ((unsigned long)rn(&t->r, 1 << 14) << _IOC_SIZESHIFT);
	return usize;
}

static void fz_cpc(struct call *c)
{
	static const unsigned long id_cmds[] = {
		PMC_CPC_RELE, PMC_CPC_RESTART, PMC_CPC_ENABLE, PMC_CPC_DISABLE,
	};
	struct tc *t = c->t;
	struct pmc_cpc_request reqs[PMC_CPC_MAX_REQS + 2];
	struct pmc_cpc_sample smp;
	struct pmc_cpc_preset pre;
	struct pmc_cpc_info info;
	struct pmc_cpc_bind b;
	unsigned char *p, *a = NULL;
	size_t valid, avalid = 0, size;
	uint32_t usize = 0, id, nvals = 0, i;
	int kind, akind = PK_NULL, r = rn(&t->r, 100);

	if (r < 10) {
		c->cmd = PMC_CPC_INFO;
		c->what = "PMC_CPC_INFO";
		usize = gen_usize(t, sizeof(info), &c->cmd);
		size = usize > sizeof(info) && usize <= 4096 ? usize : sizeof(info);
		p = place(t, t->pg, PG_RW, size, 85, &kind, &valid);
		if (pk_good(kind)) {
			memcpy(p, &usize, 4);
			if (size > sizeof(info) && chance(&t->r, 15))
				p[size - 1] = 1;	/* a tail we do not know: E2BIG */
			else if (chance(&t->r, 20))
				rfill(&t->r, p + 4, sizeof(info) - 4);
		} else if (kind == PK_STRADDLE) {
			memcpy(p, &usize, valid < 4 ? valid : 4);
		}
		if (!do_ioctl(c, p) || c->ret || !pk_good(kind))
			return;
		memcpy(&info, p, sizeof(info));
		if (info.size != sizeof(info) || info.abi_version != PMC_CPC_ABI_VERSION ||
		    info.npic < 1 || info.npic > PMC_CPC_MAX_REQS ||
		    info.caps != (CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE) ||
		    info.hw_pmu > 1 || info.reserved[0] || info.reserved[1] || info.reserved[2])
			viol("cpc: PMC_CPC_INFO gave size %u abi %u npic %u caps %#x hw_pmu %u",
			     info.size, info.abi_version, info.npic, info.caps, info.hw_pmu);
		for (i = sizeof(info); i < size; i++)
			if (p[i])
				viol("cpc: PMC_CPC_INFO (size %u) wrote byte %u of the tail", usize, i);
		if (!guard_ok(kind, p, size))
			viol("cpc: PMC_CPC_INFO (size %u) wrote past it", usize);
		return;
	}
	if (r < 42) {
		c->cmd = PMC_CPC_BIND;
		c->what = "PMC_CPC_BIND";
		memset(&b, 0, sizeof(b));
		usize = gen_usize(t, sizeof(b), &c->cmd);
		b.size = usize;
		b.scope = chance(&t->r, 95) ? rn(&t->r, 3) : (uint32_t)rnd(&t->r);
		b.flags = chance(&t->r, 70) ? 0 : chance(&t->r, 80) ? CPC_BIND_LWP_INHERIT : (uint32_t)rnd(&t->r);
		b.nreqs = chance(&t->r, 90) ? 1 + rn(&t->r, 4) :
			  chance(&t->r, 60) ? rn(&t->r, 11) : (uint32_t)rnd(&t->r);
		b.pid = gen_pid(t, false);
		b.tid = gen_pid(t, true);
		b.cpu = gen_cpu(t);
		if (chance(&t->r, 85)) {
			b.signo = chance(&t->r, 50) ? PMC_CPC_OVF_SIGNO : 0;
			b.si_code = b.signo ? PMC_CPC_OVF_CODE : 0;
		} else {
			b.signo = rn(&t->r, 70);
			b.si_code = rn(&t->r, 5);
		}
		b.reserved = chance(&t->r, 97) ? 0 : (uint32_t)rnd(&t->r);
		b.subcode = (int32_t)rnd(&t->r);
		b.id = (uint32_t)rnd(&t->r);
		/* The requests: good memory most of the time. */
		nvals = b.nreqs < PMC_CPC_MAX_REQS + 2 ? b.nreqs : PMC_CPC_MAX_REQS + 2;
		for (i = 0; i < nvals; i++)
			gen_cpc_req(&t->r, &reqs[i], i, b.nreqs);
		if (chance(&t->r, 50))
			gen_cpc_clean_bind(t, &b, reqs, &nvals);
		a = place(t, t->arr, ARR_RW, nvals * sizeof(reqs[0]) + 1, 85, &akind, &avalid);
		if (pk_good(akind))
			memcpy(a, reqs, nvals * sizeof(reqs[0]));
		else if (akind == PK_STRADDLE)
			memcpy(a, reqs, avalid < nvals * sizeof(reqs[0]) ? avalid : nvals * sizeof(reqs[0]));
		b.reqs = chance(&t->r, 95) ? (uint64_t)(uintptr_t)a :
			 chance(&t->r, 50) ? 0xffffffff81000000ULL : 1ULL << 47;
		/* A CPU binding wants the caller pinned there. */
		if (b.scope == PMC_CPC_BIND_CPU && chance(&t->r, 85) && b.cpu >= 0 && b.cpu < g_ncpu)
			pin_to_cpu(b.cpu);
		size = usize > sizeof(b) && usize <= 4096 ? usize : sizeof(b);
		p = place(t, t->pg, PG_RW, size, 90, &kind, &valid);
		if (pk_good(kind))
			memcpy(p, &b, sizeof(b));
		/*
		 * Overflows of this binding signal this process (the bound
		 * thread, or the binder of a CPU): from when it asks, since the
		 * first may come before the ioctl returns.
		 */
		for (i = 0; b.scope != PMC_CPC_BIND_PCTX && i < nvals; i++)
			if (reqs[i].flags & CPC_OVF_NOTIFY_EMT)
				g_asked = 1;
		else if (kind == PK_STRADDLE)
			memcpy(p, &b, valid < sizeof(b) ? valid : sizeof(b));
		if (!do_ioctl(c, p) || !pk_good(kind) || usize != sizeof(b))
			return;
		if (c->ret && c->err == EFAULT)
			return;
		memcpy(&b, p, sizeof(b));
		if (!guard_ok(kind, p, size))
			viol("cpc: PMC_CPC_BIND wrote past its structure");
		if (b.size != sizeof(b))
			viol("cpc: PMC_CPC_BIND (%s) gave back size %u", c->ret ? strerror(c->err) : "ok", b.size);
		if (c->ret == 0) {
			if (b.subcode != -1)
				viol("cpc: PMC_CPC_BIND succeeded with subcode %d", b.subcode);
			if ((b.scope == PMC_CPC_BIND_CURLWP) != (b.id == 0))
				viol("cpc: PMC_CPC_BIND scope %u succeeded with id %u", b.scope, b.id);
			if (b.id)
				remember_id(c->s, b.id);
		} else {
			if (b.subcode < -1 || b.subcode > CPC_HV_NO_ACCESS || !b.subcode)
				viol("cpc: PMC_CPC_BIND failed (%s) with subcode %d", strerror(c->err), b.subcode);
			if (b.id)
				viol("cpc: PMC_CPC_BIND failed (%s) with id %u", strerror(c->err), b.id);
			if (b.subcode != -1 && c->err != EINVAL)
				viol("cpc: PMC_CPC_BIND failed with %s and subcode %d: a subcode comes with EINVAL",
				     strerror(c->err), b.subcode);
		}
		return;
	}
	if (r < 70) {
		c->cmd = PMC_CPC_SAMPLE;
		c->what = "PMC_CPC_SAMPLE";
		memset(&smp, 0, sizeof(smp));
		usize = gen_usize(t, sizeof(smp), &c->cmd);
		smp.size = usize;
		smp.id = gen_cpc_id(t, c->s);
		nvals = chance(&t->r, 85) ? 1 + rn(&t->r, PMC_CPC_MAX_REQS) :
			chance(&t->r, 50) ? 0 : (uint32_t)rnd(&t->r);
		smp.nvals = nvals;
		smp.reserved = chance(&t->r, 97) ? 0 : 1;
		i = nvals < 16 ? nvals : 16;
		a = place(t, t->arr, ARR_RW, i * 8 + 8, 85, &akind, &avalid);
		if (pk_good(akind))
			memset(a, 0x77, i * 8);
		smp.vals = (uint64_t)(uintptr_t)a;
		size = usize > sizeof(smp) && usize <= 4096 ? usize : sizeof(smp);
		p = place(t, t->pg, PG_RW, size, 90, &kind, &valid);
		if (pk_good(kind))
			memcpy(p, &smp, sizeof(smp));
		else if (kind == PK_STRADDLE)
			memcpy(p, &smp, valid < sizeof(smp) ? valid : sizeof(smp));
		if (!do_ioctl(c, p) || c->ret || !pk_good(kind))
			return;
		memcpy(&smp, p, sizeof(smp));
		if (smp.nvals < 1 || smp.nvals > PMC_CPC_MAX_REQS || smp.nvals > nvals)
			viol("cpc: PMC_CPC_SAMPLE with room for %u values gave nvals %u", nvals, smp.nvals);
		if (smp.size != sizeof(smp) || !smp.hrtime)
			viol("cpc: PMC_CPC_SAMPLE gave size %u hrtime %llu", smp.size,
			     (unsigned long long)smp.hrtime);
		if (pk_good(akind) && smp.nvals <= nvals) {
			for (id = smp.nvals * 8; id < i * 8; id++)
				if (a[id] != 0x77)
					viol("cpc: PMC_CPC_SAMPLE of %u values wrote byte %u", smp.nvals, id);
		}
		return;
	}
	if (r < 78) {
		c->cmd = PMC_CPC_PRESET;
		c->what = "PMC_CPC_PRESET";
		memset(&pre, 0, sizeof(pre));
		usize = gen_usize(t, sizeof(pre), &c->cmd);
		pre.size = usize;
		pre.id = gen_cpc_id(t, c->s);
		pre.index = chance(&t->r, 85) ? rn(&t->r, 4) : (uint32_t)r64(&t->r);
		pre.preset = r64(&t->r);
		pre.reserved = chance(&t->r, 97) ? 0 : 1;
		size = usize > sizeof(pre) && usize <= 4096 ? usize : sizeof(pre);
		p = place(t, t->pg, PG_RW, size, 90, &kind, &valid);
		if (pk_good(kind))
			memcpy(p, &pre, sizeof(pre));
		do_ioctl(c, p);
		return;
	}
	/* RELE, RESTART, ENABLE, DISABLE: a binding id. */
	c->cmd = PICK(&t->r, id_cmds);
	c->what = c->cmd == PMC_CPC_RELE ? "PMC_CPC_RELE" : c->cmd == PMC_CPC_RESTART ? "PMC_CPC_RESTART" :
		  c->cmd == PMC_CPC_ENABLE ? "PMC_CPC_ENABLE" : "PMC_CPC_DISABLE";
	id = gen_cpc_id(t, c->s);
	p = place(t, t->pg, PG_RW, 4, 90, &kind, &valid);
	if (pk_good(kind))
		memcpy(p, &id, 4);
	do_ioctl(c, p);
}

/* ---- /dev/pfcntr ------------------------------------------------------------------ */

static unsigned int pf_entries(const struct call *c)
{
	return c->mode == PCNTOPENEACH ? (unsigned int)g_nr_ids : 1;
}

static uint64_t gen_iccsr(struct rng *r)
{
	static const unsigned int mux0[] = { 0x0, 0x2, 0x4, 0x6, 0x8, 0xa, 0xb, 0xc, 0xe };

	if (chance(r, 15))
		return r64(r);
	return PFCNTR_ICCSR_IMAGE(rn(r, 2), chance(r, 20) ? 1 : 0, PICK(r, mux0), rn(r, 8),
				  chance(r, 70) ? 0 : rn(r, 4));
}

static uint64_t gen_ev5_mux(struct rng *r)
{
	static const uint64_t m1[] = { PF5_MUX1_PIPELINE_DRY, PF5_MUX1_FLOW_CHANGE,
				       PF5_MUX1_C_LOAD_INSTRUCTIONS, PF5_MUX1_C_STORE_INSTRUCTIONS,
				       PF5_MUX1_C_ICACHE_ACCESS, PF5_MUX1_C_DCACHE_ACCESS,
				       PF5_MUX1_C_SCACHE_ACCESS, PF5_MUX1_C_SCACHE_READ,
				       PF5_MUX1_C_SCACHE_WRITE, PF5_MUX1_NON_ISSUE_CYCLES };
	static const uint64_t m2[] = { PF5_MUX2_C_BRANCH_MISPREDICTS, PF5_MUX2_C_ICACHE_MISSES,
				       PF5_MUX2_C_ITB_MISS, PF5_MUX2_C_DCACHE_MISSES,
				       PF5_MUX2_C_DTB_MISS, PF5_MUX2_C_CYCLES,
				       PF5_MUX2_C_SCACHE_MISS, PF5_MUX2_C_SCACHE_READ_MISS,
				       PF5_MUX2_C_SCACHE_WRITE_MISS, PF5_MUX2_C_LONG_STALLS };

	if (chance(r, 15))
		return r64(r);
	return (chance(r, 50) ? PF5_MUX0_ISSUES : PF5_MUX0_CYCLES) | PICK(r, m1) | PICK(r, m2);
}

static uint64_t gen_ev5_freq(struct rng *r)
{
	if (chance(r, 15))
		return r64(r);
	return (uint64_t)rn(r, 4) << 8 | (uint64_t)rn(r, 4) << 6 | (uint64_t)rn(r, 4) << 4;
}

static uint64_t gen_ev5_ctxts(struct rng *r)
{
	static const uint64_t modes[] = { PF5_CTXT_USER, PF5_CTXT_PAL, PF5_CTXT_USER_AND_PAL,
					  PF5_CTXT_KERNEL, PF5_CTXT_USER_AND_KERNEL,
					  PF5_CTXT_PAL_AND_KERNEL, PF5_CTXT_ALL_MODES,
					  PF5_CTXT_EXEC_AND_SUPER };

	if (chance(r, 15))
		return r64(r);
	return rn(r, 4) | PICK(r, modes);
}

static uint64_t gen_ev6_mux(struct rng *r)
{
	if (chance(r, 15))
		return r64(r);
	return (chance(r, 50) ? PF6_MUX0_RET_INSTRUCTIONS : 0) | rn(r, 8);
}

static long gen_items(struct rng *r)
{
	static const long bad[] = { 0, 8, 0x100, -1, 0x7fffffff, 0x107 };

	return chance(r, 85) ? 1 + (long)rn(r, 7) : PICK(r, bad);
}

static unsigned int image_cpu(struct tc *t)
{
	if (chance(&t->r, 50))
		return PMCTRS_ALL_CPUS;
	return chance(&t->r, 90) ? rn(&t->r, g_ncpu + 1) : rn(&t->r, 256);
}

/* A user or kernel text range with a stride, mostly small ones. */
static void gen_range(struct tc *t, bool kernel, addr_range_t *ar)
{
	static const uint64_t strides[] = { 0, 1, 2, 4, 8, 16, 1024, 1ULL << 60, 1ULL << 61, 3, 6 };
	uint64_t base, len;

	if (kernel)
		base = g_nkaddr && chance(&t->r, 80) ? g_kaddr[rn(&t->r, g_nkaddr)] & ~0xfffULL :
		       chance(&t->r, 50) ? 0xffffffff81000000ULL : 0xffffffffa0000000ULL;
	else
		base = chance(&t->r, 80) ? 0x400000ULL : chance(&t->r, 50) ? 0x7ffffffff000ULL :
		       (rnd(&t->r) & 0x7fffffffffffULL);
	if (chance(&t->r, 90))
		len = 16 + rn(&t->r, 1 << 16);
	else if (chance(&t->r, 90))
		len = (uint64_t)rn(&t->r, 1 << 24);	/* up to 4 MiB of buckets a CPU */
	else
		len = r64(&t->r);			/* past the budget: ENOMEM */
	ar->start = chance(&t->r, 95) ? base : r64(&t->r);
	ar->end = chance(&t->r, 95) ? base + len : r64(&t->r);
	ar->stride = chance(&t->r, 85) ? PICK(&t->r, strides) : r64(&t->r);
	ar->res0 = chance(&t->r, 97) ? 0 : 1;
	/* A range of 1 MiB and more with stride 1: a few MiB a CPU, not more. */
	if (ar->stride && ar->stride < 4 && ar->end - ar->start > (1U << 22) && chance(&t->r, 80))
		ar->stride = 4;
}

static void fz_pf_array(struct call *c, size_t esize)
{
	struct tc *t = c->t;
	unsigned int n = pf_entries(c), room;
	unsigned char *cell, *a;
	size_t valid, bytes = (size_t)n * esize;
	int kind, akind = 0, shape = rn(&t->r, 100);
	size_t avalid = 0;
	uintptr_t ptr;
	size_t i;

	/* The array: n entries and guard bytes, exactly n ending at PROT_NONE, or fewer. */
	if (shape < 55) {
		akind = PK_GUARD;
		a = t->arr + 256;
		memset(a, 0x3c, bytes + 2 * esize);
		room = n + 2;
	} else if (shape < 70) {
		akind = PK_END;
		a = t->arr + ARR_RW - bytes;
		memset(a, 0x3c, bytes);
		room = n;
	} else if (shape < 82) {
		akind = PK_STRADDLE;	/* room for n - 1 entries and part of one */
		avalid = bytes - 1 - rn(&t->r, esize);
		a = t->arr + ARR_RW - avalid;
		memset(a, 0x3c, avalid);
		room = 0;
	} else {
		akind = PK_NULL + rn(&t->r, PK_N - PK_NULL);
		a = bad_ptr(t, akind);
		room = 0;
	}
	ptr = (uintptr_t)a;
	cell = place(t, t->pg, PG_RW, sizeof(ptr), 90, &kind, &valid);
	if (pk_good(kind))
		memcpy(cell, &ptr, sizeof(ptr));
	if (!do_ioctl(c, cell))
		return;
	if (c->ret == 0) {
		if (!pk_good(kind) || akind == PK_STRADDLE || akind >= PK_NULL)
			viol("pfcntr: %s of %u entries succeeded into %s memory (array kind %d at %p, "
			     "pointer kind %d)", c->what, n, akind == PK_STRADDLE ? "too little" : "bad",
			     akind, (void *)a, kind);
		if (akind == PK_GUARD) {
			for (i = bytes; i < (size_t)room * esize; i++)
				if (a[i] != 0x3c) {
					viol("pfcntr: %s wrote byte %zu past its %u entries", c->what,
					     i - bytes, n);
					break;
				}
		}
	} else if (c->err == EFAULT && akind == PK_STRADDLE && pk_good(kind)) {
		/* "Copy n entries out, or nothing". */
		for (i = 0; i < avalid; i++)
			if (a[i] != 0x3c) {
				viol("pfcntr: %s into too small an array failed but wrote byte %zu",
				     c->what, i);
				break;
			}
	}
}

static void fz_pfcntr(struct call *c)
{
	struct tc *t = c->t;
	unsigned char *p;
	size_t valid;
	int kind;
	uint64_t img, in;
	long lv;
	addr_range_t ar;

	c->cmd = PICK(&t->r, pf_cmds);
	switch (c->cmd) {
	case PCNTGETCNT:
		c->what = "PCNTGETCNT";
		fz_pf_array(c, sizeof(struct pfcntrs));
		return;
	case PCNT5GETCNT:
	case PCNT5READCNTRS:
		c->what = c->cmd == PCNT5GETCNT ? "PCNT5GETCNT" : "PCNT5READCNTRS";
		fz_pf_array(c, sizeof(struct pfcntrs_ev5));
		return;
	case PCNT6GETCNT:
	case PCNT6READCNTRS:
		c->what = c->cmd == PCNT6GETCNT ? "PCNT6GETCNT" : "PCNT6READCNTRS";
		fz_pf_array(c, sizeof(struct pfcntrs_ev6));
		return;
	case PCNTGETIPLHIS:
		c->what = "PCNTGETIPLHIS";
		fz_pf_array(c, sizeof(struct pfipls));
		return;
	case PCNTSETMUX:
		c->what = "PCNTSETMUX";
		img = gen_iccsr(&t->r);
		p = place(t, t->pg, PG_RW, 8, 90, &kind, &valid);
		if (pk_good(kind))
			memcpy(p, &img, 8);
		do_ioctl(c, p);
		return;
	case PCNTGETRSIZE:
		c->what = "PCNTGETRSIZE";
		p = place(t, t->pg, PG_RW, sizeof(long), 85, &kind, &valid);
		if (!do_ioctl(c, p) || c->ret || !pk_good(kind))
			return;
		memcpy(&lv, p, sizeof(lv));
		if (lv < 0 || lv % 4 || (unsigned long)lv > (16UL << 20) * (unsigned long)g_nr_ids)
			viol("pfcntr: PCNTGETRSIZE gave %ld", lv);
		if (!guard_ok(kind, p, sizeof(long)))
			viol("pfcntr: PCNTGETRSIZE wrote past its long");
		return;
	case PCNTSETITEMS:
	case PCNT5CTXTS:
	case PCNT5MUX:
	case PCNT5FREQ:
	case PCNT6MUX:
		c->what = "a long request";
		lv = c->cmd == PCNTSETITEMS ? gen_items(&t->r) :
		     c->cmd == PCNT5CTXTS ? (long)gen_ev5_ctxts(&t->r) :
		     c->cmd == PCNT5MUX ? (long)gen_ev5_mux(&t->r) :
		     c->cmd == PCNT5FREQ ? (long)gen_ev5_freq(&t->r) : (long)gen_ev6_mux(&t->r);
		p = place(t, t->pg, PG_RW, sizeof(long), 90, &kind, &valid);
		if (pk_good(kind))
			memcpy(p, &lv, sizeof(lv));
		do_ioctl(c, p);
		return;
	case PCNTSETUADDR:
	case PCNTSETKADDR:
	case PCNTSETURANGE:
	case PCNTSETKRANGE:
		c->what = "a range request";
		gen_range(t, c->cmd == PCNTSETKADDR || c->cmd == PCNTSETKRANGE, &ar);
		p = place(t, t->pg, PG_RW, sizeof(ar), 90, &kind, &valid);
		if (pk_good(kind))
			memcpy(p, &ar, sizeof(ar));
		do_ioctl(c, p);
		return;
	case PCNTRDISABLE: case PCNTRENABLE: case PCNTLOGALL: case PCNTLOGSELECT:
	case PCNTCLEARCNT: case PCNTCLEARPCBPME: case PCNTCALLER:
		c->what = "an _IO request";
		do_ioctl(c, (void *)(uintptr_t)(chance(&t->r, 80) ? 0 : rnd(&t->r)));
		return;
	default:
		break;
	}
	/* The image requests of EV5 and EV6. */
	c->what = "an image request";
	if (_IOC_NR(c->cmd) >= _IOC_NR(PCNT5DISABLE) && _IOC_NR(c->cmd) <= _IOC_NR(PCNT5GETCNTRS))
		img = PFCNTR_EV5_IMAGE(chance(&t->r, 60) ? 7 : rn(&t->r, 8), image_cpu(t),
				       rnd(&t->r), rnd(&t->r), rnd(&t->r));
	else
		img = PFCNTR_EV6_IMAGE(chance(&t->r, 60) ? 3 : rn(&t->r, 4), image_cpu(t),
				       rnd(&t->r), rnd(&t->r));
	if (chance(&t->r, 10))
		img = r64(&t->r);
	in = img;
	p = place(t, t->pg, PG_RW, 8, 90, &kind, &valid);
	if (pk_good(kind))
		memcpy(p, &img, 8);
	if (!do_ioctl(c, p) || c->ret || !pk_good(kind))
		return;
	memcpy(&img, p, 8);
	if (c->cmd == PCNT5GETCNTRS) {
		uint64_t keep = ~((0xffffULL << 48) | (0xffffULL << 32) | (0x3fffULL << 16));

		if ((img & keep) != (in & keep))
			viol("pfcntr: PCNT5GETCNTRS changed image bits outside the counters: %#llx -> %#llx",
			     (unsigned long long)in, (unsigned long long)img);
	} else if (c->cmd == PCNT6GETCNTRS) {
		uint64_t keep = ~((0xfffffULL << 28) | (0xfffffULL << 6));

		if ((img & keep) != (in & keep))
			viol("pfcntr: PCNT6GETCNTRS changed image bits outside the counters: %#llx -> %#llx",
			     (unsigned long long)in, (unsigned long long)img);
	} else if (img != in) {
		viol("pfcntr: %#lx wrote its image argument", c->cmd);
	}
}

/* ---- read(2), pread(2) and lseek(2) ----------------------------------------------- */

static void op_rw(struct tc *t, struct slot *s)
{
	static const size_t counts[] = { 0, 1, 2, 3, 4, 5, 7, 8, 4095, 4096, 4097, 8192, 65536,
					 BIG_RW, (size_t)-1 / 2 };
	struct wk *w = t->w;
	/* The generation first: a later one means the descriptor changed since. */
	unsigned int gen = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);
	int fd = __atomic_load_n(&s->fd, __ATOMIC_ACQUIRE), dev = s->dev, kind, how;
	size_t count = chance(&t->r, 80) ? PICK(&t->r, counts) : rn(&t->r, 70000), valid;
	long long off = 0, rs = -1;
	unsigned char *buf;
	ssize_t ret;
	long lv;
	int e;

	if (fd < 0)
		return;
	if (dev == D_PFCNTR && !ioctl(fd, PCNTGETRSIZE, &lv))
		rs = lv;
	switch (rn(&t->r, 8)) {
	case 0:
		off = 0;
		break;
	case 1:
		off = rs >= 0 ? rs : 0;
		break;
	case 2:
		off = rs > 0 ? rs - 1 - rn(&t->r, 8) : 1;
		break;
	case 3:
		off = rs > 0 ? rn(&t->r, rs) : rn(&t->r, 4096);
		break;
	case 4:
		off = (long long)r64(&t->r);
		break;
	default:
		off = rn(&t->r, 64) * 4 + rn(&t->r, 4);
	}
	how = rn(&t->r, 10);
	INC(sh->rw[dev]);
	__atomic_store_n(&sh->last[w->id].dev, dev, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->last[w->id].op, 3, __ATOMIC_RELAXED);
	if (how >= 8) {
		static const int whence[] = { SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE, 7 };
		int wh = PICK(&t->r, whence);
		off_t r;

		errno = 0;
		r = lseek(fd, (off_t)off, wh);
		e = errno;
		if (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) != gen)
			return;
		if (r == -1) {
			count_err(dev, e);
			if (!errno_ok(w, dev, wh > SEEK_HOLE ? OP_SEEK_BAD_WHENCE : OP_SEEK, e))
				viol("%s: lseek(%lld, %d) failed with %s", dev_name[dev], off, wh, strerror(e));
		} else if (r < 0 || (unsigned long long)r > (16ULL << 20) * g_nr_ids) {
			viol("%s: lseek(%lld) gave %lld", dev_name[dev], off, (long long)r);
		}
		return;
	}
	/* The buffer: good, ending in the middle of what is asked, or bad. */
	if (chance(&t->r, 70)) {
		kind = PK_GUARD;
		buf = t->big;
		valid = BIG_RW;
	} else if (chance(&t->r, 60)) {
		kind = PK_STRADDLE;
		valid = rn(&t->r, 9000);
		buf = t->big + BIG_RW - valid;
	} else {
		kind = PK_RO + rn(&t->r, PK_N - PK_RO);
		buf = kind == PK_RO ? t->pg + PG_RW + 4096 : bad_ptr(t, kind);
		valid = 0;
	}
	errno = 0;
	if (how < 4)
		ret = pread(fd, buf, count, (off_t)off);
	else if (how < 6)
		ret = read(fd, buf, count);
	else {
		struct iovec iov[2] = { { buf, count / 2 }, { buf + count / 2, count - count / 2 } };

		ret = preadv(fd, iov, 2, (off_t)(off & 0x7fffffffffffffffLL));
	}
	e = errno;
	if (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) != gen)
		return;
	if (ret == -1) {
		int fl = fcntl(fd, F_GETFL);

		/*
		 * The mode read now is the failed call's descriptor's only if no
		 * other thread closed it (or opened another file under its
		 * number) since: judged only then.
		 */
		if (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) != gen)
			return;
		count_err(dev, e);
		/* The VFS's own: EBADF not open for reading, EINVAL a negative offset. */
		if (e == EBADF && fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && (fl & O_ACCMODE) != O_RDWR)
			return;
		if (!errno_ok(w, dev, OP_READ, e))
			viol("%s: read of %zu at %lld failed with %s", dev_name[dev], count, off, strerror(e));
		return;
	}
	if (ret < 0 || (size_t)ret > count)
		viol("%s: read of %zu bytes returned %zd", dev_name[dev], count, ret);
	else if (dev != D_PFCNTR)
		viol("%s: read returned %zd: the device has no read method", dev_name[dev], ret);
	else if ((size_t)ret > valid)
		viol("pfcntr: read into %zu writable bytes returned %zd", valid, ret);
}

/* ---- one random operation ----------------------------------------------------------- */

static void op_ioctl(struct tc *t, struct slot *s)
{
	struct call c = { .t = t, .s = s };

	c.gen = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);
	c.fd = __atomic_load_n(&s->fd, __ATOMIC_ACQUIRE);
	c.dev = s->dev;
	c.mode = s->mode;
	if (c.fd < 0)
		return;
	if (chance(&t->r, 4)) {
		unsigned char *p;
		size_t valid;
		int kind;

		c.cmd = chance(&t->r, 50) ? random_cmd(t) : other_dev_cmd(t, c.dev);
		c.what = "a foreign request";
		p = place(t, t->pg, PG_RW, 256, 80, &kind, &valid);
		if (pk_good(kind))
			rfill(&t->r, p, 256);
		do_ioctl(&c, p);
		return;
	}
	switch (c.dev) {
	case D_PCTR:
		fz_pctr(&c);
		break;
	case D_PERFMON:
		fz_perfmon(&c);
		break;
	case D_CPC:
		fz_cpc(&c);
		break;
	default:
		fz_pfcntr(&c);
	}
}

static int pick_dev(struct tc *t)
{
	static const int weight[] = { D_PCTR, D_PERFMON, D_PERFMON, D_CPC, D_CPC, D_CPC,
				      D_PFCNTR, D_PFCNTR, D_PFCNTR, D_PFCNTR };

	return PICK(&t->r, weight);
}

static bool worker_over(struct wk *w)
{
	return w->stop || now_ns() >= w->end;
}

static void fuzz_ops(struct tc *t, unsigned int n);

/* ---- fork, exec, pass --------------------------------------------------------------- */

static void child_setup(struct wk *w)
{
	g_asked = 0;
	w->lock = 0;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	w->depth = 1;
	w->thread_on = 0;
	w->child = 0;
}

/* A child that uses the inherited descriptors, maybe as nobody, then exits. */
/* The child's end of a descriptor passed after the fork: SCM_RIGHTS, or pidfd_getfd(). */
static int pass_receive(struct wk *w, int sock, char *code)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { code, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct timeval tv = { 2, 0 };
	struct cmsghdr *cm;
	int fd = -1, pfd, i;

	if (sock >= 0) {
		/* Two such children may hold each other's peer: never wait long. */
		setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) == 1 && (cm = CMSG_FIRSTHDR(&msg)) &&
		    cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
		return fd;
	}
	for (i = 0; i < 2000 && __atomic_load_n(&sh->pass[w->id].pid, __ATOMIC_ACQUIRE) != getpid(); i++)
		sleep_ms(1);
	if (i == 2000)
		return -1;
	*code = (char)sh->pass[w->id].code;
	pfd = syscall(__NR_pidfd_open, getppid(), 0);
	if (pfd < 0)
		return -1;
	fd = syscall(__NR_pidfd_getfd, pfd, sh->pass[w->id].fd, 0);
	close(pfd);
	return fd;
}

/*
 * A child that uses the inherited descriptors, maybe as nobody, then exits
 * (kind 0); that execs /bin/true holding them (1); that is given one more,
 * opened after the fork (2): over a socket, or where the kernel has no
 * AF_UNIX (the debug lane), taken with pidfd_getfd().
 */
static void op_fork(struct tc *t, int kind)
{
	struct wk *w = t->w;
	int status, sv[2] = { -1, -1 }, pass_fd = -1;
	bool killed = false;
	pid_t pid;

	/* One thread forks: glibc's fork() locks must never be contended (see wk). */
	if (w->depth || t->thread)
		return;
	if (kind == 2 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		sv[0] = sv[1] = -1;
	INC(sh->forks);
	__atomic_store_n(&sh->pass[w->id].pid, 0, __ATOMIC_RELEASE);
	wk_lock(w);
	pid = fork();
	if (pid)
		wk_unlock(w);
	if (pid < 0) {
		if (sv[0] >= 0) {
			close(sv[0]);
			close(sv[1]);
		}
		return;
	}
	if (pid == 0) {
		child_setup(w);
		rng_init(&t->r, rnd(&t->r), 77, w->id);
		if (kind == 1) {	/* exec a tiny program while holding the descriptors */
			char *argv[] = { "true", NULL };

			execv("/bin/true", argv);
			_exit(127);
		}
		if (kind == 2) {
			struct slot *s;
			char c = 0;
			int fd;

			if (sv[0] >= 0)
				close(sv[0]);
			fd = pass_receive(w, sv[1], &c);
			s = free_slot(t);
			if (fd >= 0 && s)
				slot_set(s, fd, c % D_N, c >= D_N ? PCNTOPENEACH :
					 c == D_PFCNTR ? PCNTOPENALL : 0, 2);
		}
		if (chance(&t->r, 15)) {
			if (!setgroups(0, NULL) && !setresgid(65534, 65534, 65534) &&
			    !setresuid(65534, 65534, 65534)) {
				w->privdrop = 1;
				INC(sh->privdrops);
			}
		}
		fuzz_ops(t, 20 + rn(&t->r, 200));
		_exit(0);
	}
	if (kind == 2) {
		/* Open one now and pass it: the child learns its device from the byte. */
		int dev = pick_dev(t), mode = 0, fd;
		char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, c;
		struct iovec iov = { &c, 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

		if (sv[1] >= 0)
			close(sv[1]);
		if (dev == D_PFCNTR)
			mode = chance(&t->r, 50) ? PCNTOPENALL : PCNTOPENEACH;
		fd = open(dev_path[dev], O_RDWR | O_CLOEXEC | mode);
		if (fd < 0 && dev != D_PFCNTR)
			fd = open(dev_path[dev], O_RDONLY | O_CLOEXEC);
		c = (char)(dev + (mode == PCNTOPENEACH ? D_N : 0));
		if (fd >= 0 && sv[0] >= 0) {
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
			if (sendmsg(sv[0], &msg, MSG_NOSIGNAL) == 1)
				INC(sh->passes);
			close(fd);
		} else if (fd >= 0) {
			/* Kept open until the child is gone: it takes it when it will. */
			sh->pass[w->id].fd = fd;
			sh->pass[w->id].code = c;
			__atomic_store_n(&sh->pass[w->id].pid, pid, __ATOMIC_RELEASE);
			INC(sh->passes);
			pass_fd = fd;
		}
		if (sv[0] >= 0)
			close(sv[0]);
	}
	w->child = pid;
	/* Meanwhile this process goes on: the child's descriptors are shared files. */
	if (chance(&t->r, 60))
		fuzz_ops(t, rn(&t->r, 30));
	if (kind != 1 && chance(&t->r, 25)) {
		kill(pid, SIGKILL);
		killed = true;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	w->child = 0;
	if (pass_fd >= 0)
		close(pass_fd);
	if (killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		viol("a child (%s) ended with status %#x%s%d", kind == 1 ? "execve of /bin/true" : "fuzzing",
		     status, WIFSIGNALED(status) ? ": signal " : ": exit ",
		     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	if (kind == 1)
		INC(sh->true_execs);
}

/* execve() ourselves and go on with the descriptors that survive it. */
static void op_self_exec(struct tc *t)
{
	struct wk *w = t->w;
	char *argv[9 + NSLOT], arg[8][64], fds[NSLOT][40];
	unsigned int i, n = 0;
	sigset_t set, old;

	if (w->depth || w->nexec >= MAX_EXECS)
		return;
	w->nexec++;
	wk_lock(w);
	snprintf(arg[0], 64, "%llx", (unsigned long long)g_seed);
	snprintf(arg[1], 64, "%d", w->round);
	snprintf(arg[2], 64, "%d", w->id);
	snprintf(arg[3], 64, "%llu", (unsigned long long)w->end);
	snprintf(arg[4], 64, "%d", sh_fd);
	snprintf(arg[5], 64, "%d:%d:%d", w->nexec, g_ncpu, g_nr_ids);
	argv[n++] = "fuzz_test";
	argv[n++] = "--fuzz-worker";
	for (i = 0; i < 6; i++)
		argv[n++] = arg[i];
	for (i = 0; i < NSLOT; i++) {
		int fd = w->s[i].fd, fl;

		if (fd < 0)
			continue;
		fl = fcntl(fd, F_GETFD);
		if (fl < 0 || (fl & FD_CLOEXEC))
			continue;
		snprintf(fds[i], sizeof(fds[i]), "%d:%d:%d", fd, w->s[i].dev, w->s[i].mode);
		argv[n++] = fds[i];
	}
	argv[n] = NULL;
	INC(sh->self_execs);
	/*
	 * Signals stay pending until the new image has its handlers (their
	 * default action ends it).  Signal 40 too: one the module sent before
	 * the execve() is delivered after it (POSIX keeps pending signals), and
	 * the new image takes those first; it may get none afterwards.
	 */
	sigemptyset(&set);
	sigaddset(&set, PMC_CPC_OVF_SIGNO);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGRTMIN + 7);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	/* With the other thread in the middle of a request, if it runs. */
	execv("/proc/self/exe", argv);
	wk_unlock(w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	viol("execve(/proc/self/exe): %s", strerror(errno));
}

/* ---- signals ------------------------------------------------------------------------- */

static void on_sig40(int sig, siginfo_t *si, void *uc)
{
	INC(sh->sig40);
	/* Nobody but the module sends signal 40 in this run. */
	if (si->si_signo != PMC_CPC_OVF_SIGNO || si->si_code != PMC_CPC_OVF_CODE)
		INC(sh->sig40_bad);
	if (!g_asked) {
		INC(sh->sig40_unasked);
		sh->sig40_unasked_pid = getpid();
	}
}

static void on_other(int sig)
{
}


static void worker_signals(void)
{
	struct timespec zero = { 0, 0 };
	struct sigaction sa;
	sigset_t set;

	/* What was sent to the image before an execve() (blocked across it). */
	sigemptyset(&set);
	sigaddset(&set, PMC_CPC_OVF_SIGNO);
	while (sigtimedwait(&set, NULL, &zero) == PMC_CPC_OVF_SIGNO)
		;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sig40;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(PMC_CPC_OVF_SIGNO, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_other;
	sigaction(SIGUSR1, &sa, NULL);		/* interrupts: no SA_RESTART */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGRTMIN + 7, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, PMC_CPC_OVF_SIGNO);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGRTMIN + 7);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* ---- the loop ------------------------------------------------------------------------- */

static void *helper_thread(void *arg)
{
	struct wk *w = arg;
	struct tc t;

	if (!tc_init(&t, w, 1000 + w->nexec)) {
		t.thread = true;
		INC(sh->threads);
		while (!worker_over(w))
			fuzz_ops(&t, 16);
		tc_fini(&t);
	}
	__atomic_store_n(&w->thread_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void fuzz_ops(struct tc *t, unsigned int n)
{
	struct wk *w = t->w;
	struct slot *s;
	unsigned int i, op;

	for (i = 0; i < n && !worker_over(w); i++) {
		op = rn(&t->r, 1000);
		/* Forks, execs and threads are costly (and much more so on a debug kernel). */
		if (op >= 930 && op < 990 && chance(&t->r, 75))
			op = rn(&t->r, 800);
		if (op < 80) {
			op_open(t, pick_dev(t));
		} else if (op < 120) {
			wk_lock(w);
			s = pick_slot(t);
			if (s)
				slot_close(s);
			wk_unlock(w);
		} else if (op < 140) {
			wk_lock(w);
			s = pick_slot(t);
			if (s) {
				struct slot *d = free_slot(t);
				int fd = s->fd >= 0 ? (chance(&t->r, 50) ? dup(s->fd) :
						       fcntl(s->fd, F_DUPFD, 20 + rn(&t->r, 40))) : -1;

				if (fd >= 0 && d)
					slot_set(d, fd, s->dev, s->mode, 3);
				else if (fd >= 0)
					close(fd);
			}
			wk_unlock(w);
		} else if (op < 800) {
			s = chance(&t->r, 35) ? pick_slot_of(t, D_PFCNTR) : pick_slot(t);
			if (s)
				op_ioctl(t, s);
			else
				op_open(t, pick_dev(t));
		} else if (op < 880) {
			s = chance(&t->r, 60) ? pick_slot_of(t, D_PFCNTR) : pick_slot(t);
			if (s)
				op_rw(t, s);
		} else if (op < 910) {
			pin_random(t);
		} else if (op < 930) {
			if (off_inject)
				continue;
			/* Count something on the CPU this thread runs on: its bindings see it. */
			char cmd[128];
			int cpu = sched_getcpu();

			snprintf(cmd, sizeof(cmd), "cpu=%d event=0x%x count=%llu mode=%s ip=0x%llx\n",
				 cpu, chance(&t->r, 50) ? EV_INS : EV_CYC,
				 chance(&t->r, 50) ? (unsigned long long)rn(&t->r, 5000) :
						     (unsigned long long)(1 + rn(&t->r, 4)) << 20,
				 chance(&t->r, 70) ? "user" : "kernel", 0x400000ULL + rn(&t->r, 1 << 16));
			if (!inject_raw(cmd))
				INC(sh->inject_ok);
			INC(sh->injects);
		} else if (op < 955) {
			if (!off_fork)
				op_fork(t, 0);
		} else if (op < 965) {
			if (!off_fork && !off_exec)
				op_fork(t, 1);
		} else if (op < 975) {
			if (!off_fork)
				op_fork(t, 2);
		} else if (op < 980) {
			if (!off_exec)
				op_self_exec(t);
		} else if (op < 990) {
			if (!w->depth && !w->thread_on && !off_thread) {
				pthread_attr_t a;
				pthread_t th;

				w->thread_on = 1;
				pthread_attr_init(&a);
				pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
				if (pthread_create(&th, &a, helper_thread, w))
					w->thread_on = 0;
				pthread_attr_destroy(&a);
			}
		} else {
			sched_yield();
		}
	}
}

/*
 * A new image (after execve) restarts or enables what its previous image
 * bound on the cpc descriptors it kept, as a program that execs and goes
 * on counting would: their overflows must not signal it (it bound nothing).
 */
static void resume_old_bindings(struct tc *t)
{
	struct wk *w = t->w;
	unsigned int i, resumed = 0;
	uint32_t id;

	for (i = 0; i < NSLOT; i++) {
		struct call c = { .t = t, .s = &w->s[i] };

		if (w->s[i].fd < 0 || w->s[i].dev != D_CPC)
			continue;
		c.fd = w->s[i].fd;
		c.dev = D_CPC;
		for (id = 1; id <= 8; id++) {
			unsigned char *p = t->pg + 512;

			memcpy(p, &id, sizeof(id));
			c.gen = w->s[i].gen;
			c.cmd = chance(&t->r, 70) ? PMC_CPC_RESTART : PMC_CPC_ENABLE;
			c.what = "resume after execve";
			if (do_ioctl(&c, p) && !c.ret) {
				INC(sh->resumed);
				resumed++;
			}
		}
	}
	/* Enough events everywhere for their overflows (presets near the end). */
	for (i = 0; resumed && i < (unsigned int)g_ncpu; i++) {
		inject(i, EV_INS, 6000);
		inject(i, EV_CYC, 6000);
	}
}

static void worker_run(struct wk *w)
{
	struct tc t;
	unsigned int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	worker_signals();
	if (tc_init(&t, w, w->nexec))
		_exit(3);
	if (w->nexec && chance(&t.r, 50))
		resume_old_bindings(&t);
	while (!worker_over(w))
		fuzz_ops(&t, 64);
	w->stop = 1;
	while (w->thread_on && !__atomic_load_n(&w->thread_done, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	for (i = 0; i < NSLOT; i++)
		slot_close(&w->s[i]);
	_exit(0);
}

static struct wk *wk_new(int round, int id, uint64_t end)
{
	struct wk *w = calloc(1, sizeof(*w));
	unsigned int i;

	if (!w)
		_exit(3);
	w->round = round;
	w->id = id;
	w->end = end;
	for (i = 0; i < NSLOT; i++)
		w->s[i].fd = -1;
	return w;
}

/* The new image of a worker that executed itself: argv as op_self_exec() made it. */
static int worker_main_after_exec(int argc, char **argv)
{
	struct wk *w;
	int i, fd, dev, mode, nexec;

	if (argc < 8)
		return 3;
	g_seed = strtoull(argv[2], NULL, 16);
	sh_fd = atoi(argv[6]);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, sh_fd, 0);
	if (sh == MAP_FAILED)
		return 3;
	w = wk_new(atoi(argv[3]), atoi(argv[4]), strtoull(argv[5], NULL, 10));
	if (sscanf(argv[7], "%d:%d:%d", &nexec, &g_ncpu, &g_nr_ids) != 3)
		return 3;
	w->nexec = nexec;
	for (i = 8; i < argc; i++) {
		struct stat a, b;
		int k;

		if (sscanf(argv[i], "%d:%d:%d", &fd, &dev, &mode) != 3 || dev < 0 || dev >= D_N ||
		    i - 8 >= NSLOT)
			continue;
		/*
		 * The other thread may have closed it (and opened another device
		 * under its number) while this one was in execve().
		 */
		if (fstat(fd, &a) || stat(dev_path[dev], &b) || a.st_rdev != b.st_rdev)
			continue;
		for (k = 0; k < i - 8; k++)
			if (w->s[k].fd == fd)
				break;
		if (k == i - 8)
			slot_set(&w->s[i - 8], fd, dev, mode, 4);
	}
	worker_run(w);
	return 0;
}

/* ---- the chaos beside the workers -------------------------------------------------------- */

static void chaos_hotplug(uint64_t end, struct rng *r)
{
	int cpu, on;

	while (now_ns() < end) {
		cpu = 1 + rn(r, g_ncpu - 1);
		on = cpu_online_state(cpu);
		if (on >= 0 && !set_cpu_online(cpu, !on))
			INC(sh->hotplugs);
		sleep_ms(20 + rn(r, 400));
	}
}

static void chaos_inject(uint64_t end, struct rng *r)
{
	static const unsigned int ev[] = {
		0xc0, 0x3c, 0xc4, 0xc5, 0x2e, 0x412e, 0x300, 0x148, 0xc0, 0x3c,
	};
	static const unsigned long long counts[] = {
		1, 7, 100, 255, 256, 257, 4096, 16384, 65535, 65536, 65537, 1 << 20, (1 << 20) + 1,
		3 << 20, 1 << 24, 1ULL << 32, (1ULL << 47) + 3, 1ULL << 48,
	};
	char cmd[200];
	int n;

	while (now_ns() < end) {
		bool kernel = chance(r, 30);
		unsigned long long ip = kernel && g_nkaddr ? g_kaddr[rn(r, g_nkaddr)] + rn(r, 64) :
					0x400000ULL + rn(r, 1 << 17);

		n = snprintf(cmd, sizeof(cmd), "cpu=%d event=0x%x count=%llu mode=%s ip=0x%llx",
			     (int)rn(r, g_ncpu + 1), PICK(r, ev),
			     chance(r, 80) ? PICK(r, counts) : (unsigned long long)rn(r, 1 << 22),
			     kernel ? "kernel" : "user", ip);
		if (kernel && g_nkaddr && chance(r, 30))
			snprintf(cmd + n, sizeof(cmd) - n, " caller=0x%llx",
				 g_kaddr[rn(r, g_nkaddr)] + 1 + rn(r, 32));
		strncat(cmd, "\n", sizeof(cmd) - strlen(cmd) - 1);
		INC(sh->injects);
		if (!inject_raw(cmd))
			INC(sh->inject_ok);
		/* Single-threaded TCG runs every vCPU on one host thread: no busy loop. */
		sleep_ms(2 + rn(r, 20));
	}
}

struct knob {
	const char *path;
	char saved[32];
	bool have;
};

static struct knob knobs[] = {
	{ "/sys/module/pmcompat/parameters/max_bindings_per_fd" },
	{ "/sys/module/pmcompat/parameters/max_bindings_per_user" },
	{ "/sys/module/pmcompat/parameters/pfcntr_ev67" },
	{ "/sys/kernel/debug/fakepmu/fail_inits" },
	{ "/proc/sys/kernel/perf_event_paranoid" },
};

static void knobs_save(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		int fd = open(knobs[i].path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, knobs[i].saved, sizeof(knobs[i].saved) - 1) : -1;

		knobs[i].have = n > 0;
		if (n > 0)
			knobs[i].saved[n] = 0;
		if (fd >= 0)
			close(fd);
	}
	/* A test PMU failure to make events is never left behind. */
	if (knobs[3].have)
		strcpy(knobs[3].saved, "0\n");
}

static int knobs_restore(void)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (knobs[i].have && write_file(knobs[i].path, knobs[i].saved))
			err = -1;
	return err;
}

static void chaos_signals(uint64_t end, struct rng *r)
{
	static const char *const vals[][4] = {
		{ "0\n", "1\n", "2\n", "256\n" },
		{ "0\n", "1\n", "3\n", "1024\n" },
		{ "0\n", "1\n", "0\n", "1\n" },
		{ "0\n", "1\n", "2\n", "5\n" },
		{ "-1\n", "0\n", "2\n", "3\n" },
	};
	bool killed_one = false;
	int w, k;

	while (now_ns() < end) {
		w = rn(r, FUZZ_WORKERS);
		k = rn(r, 10);
		if ((k < 9 && off_signal) || (k == 9 && off_knob)) {
			sleep_ms(5);
			continue;
		}
		if (sh->wpid[w] > 0) {
			INC(sh->signals);
			switch (k) {
			case 0: case 1: case 2: case 3:
				kill(sh->wpid[w], SIGUSR1);
				break;
			case 4: case 5:
				kill(sh->wpid[w], SIGUSR2);
				break;
			case 6:
				kill(sh->wpid[w], SIGRTMIN + 7);
				break;
			case 7:
				kill(sh->wpid[w], SIGSTOP);
				sleep_ms(1 + rn(r, 30));
				kill(sh->wpid[w], SIGCONT);
				break;
			case 8:
				/* One worker a round at most, now and then. */
				if (!killed_one && chance(r, 15)) {
					killed_one = true;
					sh->killed[w] = 1;
					__atomic_thread_fence(__ATOMIC_SEQ_CST);
					kill(sh->wpid[w], SIGKILL);
					INC(sh->kills);
				}
				break;
			default:
				k = rn(r, sizeof(knobs) / sizeof(knobs[0]));
				if (knobs[k].have && !write_file(knobs[k].path, vals[k][rn(r, 4)]))
					INC(sh->knobs);
			}
		}
		sleep_ms(5 + rn(r, 60));
	}
}

static pid_t spawn(void (*fn)(uint64_t, struct rng *), uint64_t end, int round, int salt)
{
	pid_t pid = fork();
	struct rng r;

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		rng_init(&r, round, 5000 + salt, 0);
		fn(end, &r);
		_exit(0);
	}
	return pid;
}

/* ---- the driver ------------------------------------------------------------------------------ */

static int all_cpus_online(void)
{
	int cpu, err = 0, st;

	for (cpu = 1; cpu < g_ncpu; cpu++) {
		st = cpu_online_state(cpu);
		if (st == 0 && set_cpu_online(cpu, 1))
			err = -1;
	}
	return err;
}

static const char *status_str(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "signal %d", WTERMSIG(st));
	else
		snprintf(buf, len, "status %#x", st);
	return buf;
}

/* The children (and reparented orphans) of this process still alive. */
static int our_children(pid_t *out, int max)
{
	char path[300], buf[512], *p;
	struct dirent *de;
	int n = 0, fd, ppid;
	DIR *d = opendir("/proc");
	ssize_t len;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = 0;
		p = strrchr(buf, ')');
		if (p && sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == getpid())
			out[n++] = atoi(de->d_name);
	}
	closedir(d);
	return n;
}

/* A process that does not end: where it is stuck, into the test's log and the kernel log. */
static void report_hang(pid_t pid)
{
	char path[64], buf[2048];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	viol("process %d does not end %d s after SIGKILL; kernel stack:\n%s", pid, GRACE_SECONDS, buf);
	write_file("/proc/sysrq-trigger", "w\n");
}

/* Reap until no child is left, or the deadline: how many are left. */
static int reap_until(uint64_t deadline, pid_t *wpid, int *wstatus, int nw)
{
	pid_t pid, live[256];
	int st, i;

	for (;;) {
		pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			for (i = 0; i < nw; i++)
				if (wpid[i] == pid) {
					wstatus[i] = st;
					wpid[i] = -pid;
				}
			continue;
		}
		if (pid < 0 && errno == ECHILD)
			return 0;
		if (now_ns() >= deadline)
			return our_children(live, 256);
		sleep_ms(10);
	}
}

static int kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* The first kernel report since the mark, into out; 0 if none. */
static int kmsg_report(int fd, char *out, size_t len)
{
	static const char *const splat[] = {
		"BUG:", "WARNING:", "Oops", "KASAN", "UBSAN", "possible circular locking",
		"inconsistent lock state", "suspicious RCU usage", "possible recursive locking",
		"lock held when returning", "bad unlock balance", "sleeping function called",
		"scheduling while atomic", "refcount_t:", "list_add corruption",
		"list_del corruption", "blocked for more than", "general protection fault",
	};
	char rec[1024];
	unsigned int i;
	ssize_t n;

	if (fd < 0)
		return 0;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			return 0;
		rec[n] = 0;
		for (i = 0; i < sizeof(splat) / sizeof(splat[0]); i++) {
			if (strstr(rec, splat[i])) {
				char *semi = strchr(rec, ';');

				snprintf(out, len, "%.*s", (int)len - 1, semi ? semi + 1 : rec);
				out[strcspn(out, "\n")] = 0;
				return 1;
			}
		}
	}
}

static void run_round(struct __test_metadata *_metadata, int round, uint64_t end)
{
	pid_t wpid[FUZZ_WORKERS + 3], live[256];
	int wstatus[FUZZ_WORKERS + 3], i, n, nw = FUZZ_WORKERS + 3;
	sigset_t set, old;
	char st[32];

	kmsg_say("fuzz_test: seed 0x%llx round %d\n", (unsigned long long)g_seed, round);
	memset(sh->killed, 0, sizeof(sh->killed));
	/* Pending until each worker has its handlers (worker_signals()). */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGRTMIN + 7);
	sigprocmask(SIG_BLOCK, &set, &old);
	for (i = 0; i < FUZZ_WORKERS; i++) {
		wstatus[i] = -1;
		sh->wpid[i] = 0;
		wpid[i] = fork();
		if (wpid[i] == 0)
			worker_run(wk_new(round, i, end));
		sh->wpid[i] = wpid[i];
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	wpid[FUZZ_WORKERS] = g_ncpu > 1 && !off_hotplug ? spawn(chaos_hotplug, end, round, 0) : -1;
	wpid[FUZZ_WORKERS + 1] = !off_inject ? spawn(chaos_inject, end, round, 1) : -1;
	wpid[FUZZ_WORKERS + 2] = !off_signal || !off_knob ? spawn(chaos_signals, end, round, 2) : -1;
	for (i = FUZZ_WORKERS; i < nw; i++)
		wstatus[i] = -1;

	while (now_ns() < end)
		sleep_ms(50);
	for (i = 0; i < FUZZ_WORKERS; i++)
		if (wpid[i] > 0)
			kill(wpid[i], SIGCONT);
	n = reap_until(end + GRACE_SECONDS * 1000000000ULL, wpid, wstatus, nw);
	if (n) {
		uint64_t stop = now_ns() + GRACE_SECONDS * 1000000000ULL;

		/* Still there a minute after their round: killed (with orphans as they come). */
		for (i = 0; i < FUZZ_WORKERS; i++)
			TH_LOG("round %d: worker %d: last call: op %u dev %d cmd %#x", round, i,
			       sh->last[i].op, sh->last[i].dev, sh->last[i].cmd);
		do {
			n = our_children(live, 256);
			for (i = 0; i < n; i++) {
				TH_LOG("round %d: process %d still running %d s after the round: SIGKILL",
				       round, live[i], GRACE_SECONDS);
				kill(live[i], SIGCONT);
				kill(live[i], SIGKILL);
			}
			n = reap_until(now_ns() + 2000000000ULL, wpid, wstatus, nw);
		} while (n && now_ns() < stop);
		if (n) {
			n = our_children(live, 256);
			for (i = 0; i < n; i++)
				report_hang(live[i]);
		}
	}
	for (i = 0; i < FUZZ_WORKERS; i++) {
		int s = wstatus[i];

		if (s == -1)
			continue;
		if (WIFEXITED(s) && !WEXITSTATUS(s))
			continue;
		if (WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL && sh->killed[i])
			continue;
		viol("round %d: worker %d ended with %s%s", round, i, status_str(s, st, sizeof(st)),
		     WIFSIGNALED(s) && WTERMSIG(s) == PMC_CPC_OVF_SIGNO ?
		     " (the overflow signal, after an execve?)" : "");
	}
	for (i = FUZZ_WORKERS; i < nw; i++)
		if (wstatus[i] != -1 && !(WIFEXITED(wstatus[i]) && !WEXITSTATUS(wstatus[i])))
			viol("round %d: helper %d ended with %s", round, i - FUZZ_WORKERS,
			     status_str(wstatus[i], st, sizeof(st)));
	for (i = 0; i < FUZZ_WORKERS; i++)
		sh->wpid[i] = 0;
}

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case ENOTTY: return "ENOTTY";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EBUSY: return "EBUSY";
	case EAGAIN: return "EAGAIN";
	case ESRCH: return "ESRCH";
	case E2BIG: return "E2BIG";
	case ENOMEM: return "ENOMEM";
	case ENOSPC: return "ENOSPC";
	case ENXIO: return "ENXIO";
	case ENODEV: return "ENODEV";
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	case EINTR: return "EINTR";
	case ESPIPE: return "ESPIPE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	default:
		snprintf(buf, sizeof(buf), "errno%d", e);
		return buf;
	}
}

static void print_stats(void)
{
	char line[512];
	int d, e, n;

	printf("# fuzz: seed 0x%llx%s, %d s\n", (unsigned long long)g_seed,
	       g_seed_given ? " (PMC_FUZZ_SEED)" : "", g_seconds);
	for (d = 0; d < D_N; d++) {
		n = snprintf(line, sizeof(line), "# fuzz: %-7s %u ioctls (%u ok), %u reads/seeks, %u/%u opens;",
			     dev_name[d], sh->ioctls[d], sh->ok[d], sh->rw[d], sh->open_ok[d], sh->opens[d]);
		for (e = 0; e < 140 && n < (int)sizeof(line) - 24; e++)
			if (sh->err[d][e])
				n += snprintf(line + n, sizeof(line) - n, " %s %u", errname(e), sh->err[d][e]);
		printf("%s\n", line);
	}
	printf("# fuzz: %u forks, %u execs of /bin/true, %u self execs (%u bindings resumed after), "
	       "%u as nobody, %u passed fds, %u threads; %u hotplugs, %u/%u injections, "
	       "%u signals (%u SIGKILL), %u knob changes, %u overflow signals; "
	       "%u results not judged (fd closed meanwhile)\n",
	       sh->forks, sh->true_execs, sh->self_execs, sh->resumed, sh->privdrops, sh->passes,
	       sh->threads, sh->hotplugs, sh->inject_ok, sh->injects, sh->signals, sh->kills,
	       sh->knobs, sh->sig40,
	       sh->raced);
	fflush(stdout);
}

/* ---- the tests ------------------------------------------------------------------------------- */

static int pmu_lines(void)
{
	return have_fakepmu() ? fakepmu_state_count("cpu=", NULL) : -1;
}

TEST(fuzz_every_request_of_the_four_devices)
{
	char report[512];
	uint64_t start, end;
	int round, kmsg, reported = 0;
	unsigned int i;

	NEED_FAKEPMU();
	ASSERT_EQ(0, access(dev_path[D_PCTR], F_OK)) TH_LOG("pmcompat not loaded");
	ASSERT_TRUE(sh != NULL);
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	knobs_save();
	kmsg = kmsg_open_end();

	start = now_ns();
	for (round = 0; now_ns() < start + g_seconds * 1000000000ULL; round++) {
		end = now_ns() + ROUND_SECONDS * 1000000000ULL;
		if (end > start + g_seconds * 1000000000ULL)
			end = start + g_seconds * 1000000000ULL;
		run_round(_metadata, round, end);
		EXPECT_EQ(0, all_cpus_online());
		if (!reported && kmsg_report(kmsg, report, sizeof(report))) {
			reported = 1;
			TH_LOG("round %d (seed 0x%llx): kernel report: %s", round,
			       (unsigned long long)g_seed, report);
		}
		printf("# fuzz: round %d done: %u ioctls, %u violations\n", round,
		       sh->ioctls[0] + sh->ioctls[1] + sh->ioctls[2] + sh->ioctls[3], sh->nviol);
		fflush(stdout);
	}
	EXPECT_EQ(0, knobs_restore());
	EXPECT_EQ(0, all_cpus_online());
	EXPECT_EQ(0, pctr_clear_all());
	if (kmsg >= 0)
		close(kmsg);
	print_stats();
	for (i = 0; i < sh->nviol && i < NVIOL; i++)
		TH_LOG("violation: %s", sh->viol[i]);
	EXPECT_EQ(0U, sh->nviol) TH_LOG("seed 0x%llx: replay with PMC_FUZZ_SEED=0x%llx",
					 (unsigned long long)g_seed, (unsigned long long)g_seed);
	EXPECT_EQ(0U, sh->sig40_bad) TH_LOG("signal 40 with another si_code than EMT_CPCOVF");
	EXPECT_EQ(0U, sh->sig40_unasked)
		TH_LOG("signal 40 reached a process image that bound no overflow request "
		       "(after an execve or a fork; last pid %d)", sh->sig40_unasked_pid);
	EXPECT_EQ(0, reported) TH_LOG("the kernel reported a problem: see its log");
	EXPECT_LT(0U, sh->ok[D_PCTR] + sh->ok[D_PERFMON] + sh->ok[D_CPC] + sh->ok[D_PFCNTR]);
}

/* After the fuzz, with every descriptor closed: each device works and counts exactly. */

TEST(pctr_counts_exactly_after_the_fuzz)
{
	int fd, i, cpu = g_ncpu > 1 ? 1 : 0;
	struct pctrst st;

	NEED_FAKEPMU();
	fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pin_to_cpu(cpu));
	ASSERT_EQ(0, pctr_read_on(fd, cpu, &st));
	for (i = 0; i < PCTR_NUM; i++)
		EXPECT_EQ(0U, st.pctr_fn[i]) TH_LOG("counter %d left programmed", i);
	ASSERT_EQ(0, pctr_set_fd(fd, 0, EV_INS | PCTR_U | PCTR_EN));
	ASSERT_EQ(0, pctr_set_fd(fd, 1, EV_CYC | PCTR_U | PCTR_K | PCTR_EN));
	ASSERT_EQ(0, inject(cpu, EV_INS, 12345));
	ASSERT_EQ(0, inject_ip(cpu, EV_INS, 7, 1, 0));	/* kernel: not counted */
	ASSERT_EQ(0, inject_ip(cpu, EV_CYC, 999, 1, 0));
	ASSERT_EQ(0, pctr_read_on(fd, cpu, &st));
	EXPECT_EQ(12345ULL, st.pctr_hwc[0]);
	EXPECT_EQ(999ULL, st.pctr_hwc[1]);
	EXPECT_EQ(0ULL, st.pctr_hwc[2]);
	EXPECT_EQ((unsigned int)(EV_INS | PCTR_U | PCTR_EN), st.pctr_fn[0]);
	ASSERT_EQ(0, pctr_read_on(fd, 0, &st));
	if (cpu)
		EXPECT_EQ(0ULL, st.pctr_hwc[0]) TH_LOG("CPU 0 counted CPU %d's events", cpu);
	EXPECT_EQ(0, pctr_clear_all());
	close(fd);
}

TEST(perfmon_counts_exactly_after_the_fuzz)
{
	unsigned long long sum = 0;
	long long v = -1;
	unsigned int val;
	int fd, i, cpu;

	NEED_FAKEPMU();
	fd = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("the writer slot is left taken: %s", strerror(errno));
	for (i = 0; i < NPMC; i++)
		EXPECT_EQ(-EBUSY, perfmon_get_fd(fd, i, &val)) TH_LOG("counter %d left set up", i);
	ASSERT_EQ(0, perfmon_setup_fd(fd, 2, EV_INS | (PMCF_USR << 16)));
	ASSERT_EQ(0, perfmon_ctl_fd(fd, PMIOSTART, 2));
	for (cpu = 0; cpu < g_ncpu; cpu++) {
		ASSERT_EQ(0, inject(cpu, EV_INS, 1000 * cpu + 17));
		sum += 1000 * cpu + 17;
	}
	ASSERT_EQ(0, perfmon_read_fd(fd, 2, &v));
	EXPECT_EQ((long long)sum, v);
	ASSERT_EQ(0, perfmon_ctl_fd(fd, PMIOSTOP, 2));
	ASSERT_EQ(0, inject(0, EV_INS, 5));
	ASSERT_EQ(0, perfmon_read_fd(fd, 2, &v));
	EXPECT_EQ((long long)sum, v) TH_LOG("a stopped counter counted");
	ASSERT_EQ(0, perfmon_ctl_fd(fd, PMIORESET, 2));
	ASSERT_EQ(0, perfmon_read_fd(fd, 2, &v));
	EXPECT_EQ(0LL, v);
	close(fd);
}

TEST(cpc_counts_exactly_and_charges_nothing_after_the_fuzz)
{
	static const char user_limit[] = "/sys/module/pmcompat/parameters/max_bindings_per_user";
	struct pmc_cpc_request r;
	struct pmc_cpc_bind b;
	int fd, fd2, cpu = g_ncpu > 2 ? 2 : 0, limit = -1;
	char saved[16];
	__u64 v = 0;

	NEED_FAKEPMU();
	fd = cpc_dev_open();
	fd2 = cpc_dev_open();
	ASSERT_LE(0, fd);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, pin_to_cpu(cpu));
	/* A thread binding. */
	cpc_req(&r, PERF_TYPE_RAW, EV_INS, CPC_COUNT_USER, 5, 0);
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, &r, 1, NULL));
	ASSERT_EQ(0, inject(cpu, EV_INS, 4321));
	ASSERT_EQ(0, inject_ip(cpu, EV_INS, 9, 1, 0));
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, &v, 1));
	EXPECT_EQ(4326ULL, v);
	ASSERT_EQ(0, cpc_dev_id_op(fd, PMC_CPC_RELE, 0));
	/* A CPU binding. */
	memset(&b, 0, sizeof(b));
	b.cpu = cpu;
	cpc_req(&r, PERF_TYPE_RAW, EV_CYC, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, 0);
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_CPU, 0, &r, 1, &b))
		TH_LOG("CPU %d left bound?", cpu);
	ASSERT_EQ(0, inject_ip(cpu, EV_CYC, 777, 1, 0));
	ASSERT_EQ(0, cpc_dev_sample(fd, b.id, &v, 1));
	EXPECT_EQ(777ULL, v);
	close(fd);
	/* No binding is left charged to root: with a limit of one, one bind works. */
	ASSERT_EQ(0, read_file_int(user_limit, &limit));
	snprintf(saved, sizeof(saved), "%d\n", limit);
	ASSERT_EQ(0, write_file(user_limit, "1\n"));
	cpc_req(&r, PERF_TYPE_RAW, EV_INS, CPC_COUNT_USER, 0, 0);
	EXPECT_EQ(0, cpc_dev_bind(fd2, PMC_CPC_BIND_CURLWP, 0, &r, 1, NULL))
		TH_LOG("root is still charged for bindings that are gone");
	fd = cpc_dev_open();
	EXPECT_EQ(-EAGAIN, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, &r, 1, NULL));
	close(fd);
	close(fd2);
	EXPECT_EQ(0, write_file(user_limit, saved));
}

static int pf_open_one_cpu(int cpu)
{
	if (pin_to_cpu(cpu))
		return -1;
	return open("/dev/pfcntr", O_RDONLY | O_CLOEXEC | PCNTOPENONE);
}

TEST(pfcntr_counts_exactly_after_the_fuzz)
{
	struct pfcntrs_ev6 e;
	struct pfcntrs_ev6 *pe = &e;
	__u64 a0 = 0, a1 = 0;
	long v;
	int fd, cpu, c;

	NEED_FAKEPMU();
	/* Every CPU is free again: one at a time, then all. */
	for (cpu = 0; cpu < g_ncpu; cpu++) {
		fd = pf_open_one_cpu(cpu);
		EXPECT_LE(0, fd) TH_LOG("CPU %d left taken: %s", cpu, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	ASSERT_EQ(0, pin_to_cpu(0));
	{
		cpu_set_t all;

		CPU_ZERO(&all);
		for (c = 0; c < g_ncpu; c++)
			CPU_SET(c, &all);
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	}
	fd = open("/dev/pfcntr", O_RDONLY | O_CLOEXEC | PCNTOPENALL);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	v = PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_RET_COND_BRANCHES;
	ASSERT_EQ(0, ioctl(fd, PCNT6MUX, &v)) TH_LOG("%s", strerror(errno));
	{
		__u64 img = PFCNTR_EV6_IMAGE(3, PMCTRS_ALL_CPUS, 0, 0);

		ASSERT_EQ(0, ioctl(fd, PCNT6RESTART, &img)) TH_LOG("%s", strerror(errno));
	}
	for (cpu = 0; cpu < g_ncpu; cpu++) {
		ASSERT_EQ(0, inject(cpu, EV_INS, (cpu + 1) * P6 + 11 * cpu + 1));
		ASSERT_EQ(0, inject(cpu, EV_BR, cpu * P6 + 3));
		a0 += (cpu + 1) * P6 + 11 * cpu + 1;
		a1 += cpu * P6 + 3;
	}
	ASSERT_EQ(0, ioctl(fd, PCNT6READCNTRS, &pe)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(a0, e.pf_cntr0);
	EXPECT_EQ(a1, e.pf_cntr1);
	v = -1;
	ASSERT_EQ(0, ioctl(fd, PCNTGETRSIZE, &v));
	EXPECT_EQ(0L, v);
	close(fd);
}

TEST(module_references_and_test_pmu_counters_are_back_to_before)
{
	int refcnt = -1, lines = -1, i;

	NEED_FAKEPMU();
	/* Closing is synchronous; give a late exit a moment all the same. */
	for (i = 0; i < 50; i++) {
		refcnt = module_refcnt("pmcompat");
		lines = pmu_lines();
		if (refcnt == g_refcnt0 && lines == g_pmu_lines0)
			break;
		sleep_ms(100);
	}
	EXPECT_EQ(g_refcnt0, refcnt) TH_LOG("pmcompat's reference count");
	EXPECT_EQ(g_pmu_lines0, lines)
		TH_LOG("test PMU counters in use (/sys/kernel/debug/fakepmu/state)");
}

/* ---- main ------------------------------------------------------------------------------------ */

static void find_kaddrs(void)
{
	static const char *const names[] = { "memcpy", "_raw_spin_lock", "vfs_read", "memset" };
	char line[512], sym[256], type;
	unsigned long long a;
	unsigned int i;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return;
	while (g_nkaddr < 4 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3 || !a ||
		    !strchr("Tt", type))
			continue;
		for (i = 0; i < 4; i++)
			if (!strcmp(sym, names[i]))
				g_kaddr[g_nkaddr++] = a;
	}
	fclose(f);
}

static void parse_off(const char *s)
{
	if (!s)
		return;
	off_hotplug = strstr(s, "hotplug");
	off_inject = strstr(s, "inject");
	off_signal = strstr(s, "signal");
	off_knob = strstr(s, "knob");
	off_fork = strstr(s, "fork");
	off_exec = strstr(s, "exec");
	off_thread = strstr(s, "thread");
}

static int shared_setup(void)
{
	char path[] = "/tmp/pmc-fuzz-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (ftruncate(fd, sizeof(*sh)))
		return -1;
	/* High, so that the workers' descriptors never take its number. */
	sh_fd = fcntl(fd, F_DUPFD, 900);
	close(fd);
	if (sh_fd < 0)
		return -1;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, sh_fd, 0);
	return sh == MAP_FAILED ? (sh = NULL, -1) : 0;
}

int main(int argc, char **argv)
{
	const char *seed = getenv("PMC_FUZZ_SEED"), *secs = getenv("PMC_FUZZ_SECONDS");
	struct timespec ts;

	parse_off(getenv("PMC_FUZZ_OFF"));
	if (argc > 1 && !strcmp(argv[1], "--fuzz-worker"))
		return worker_main_after_exec(argc, argv);

	if (seed && *seed) {
		g_seed = strtoull(seed, NULL, 0);
		g_seed_given = true;
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		g_seed = ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40);
	}
	g_seconds = secs && *secs ? atoi(secs) : FUZZ_SECONDS_DEFAULT;
	if (g_seconds < 1)
		g_seconds = 1;
	g_ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (g_ncpu > MAXCPU)
		g_ncpu = MAXCPU;
	g_nr_ids = count_possible_cpus();
	if (g_nr_ids < g_ncpu)
		g_nr_ids = g_ncpu;
	printf("# fuzz: seed 0x%llx (replay: PMC_FUZZ_SEED=0x%llx), %d s, %d-bit, %d CPUs%s%s\n",
	       (unsigned long long)g_seed, (unsigned long long)g_seed, g_seconds,
	       (int)sizeof(void *) * 8, g_ncpu, getenv("PMC_FUZZ_OFF") ? ", off: " : "",
	       getenv("PMC_FUZZ_OFF") ? getenv("PMC_FUZZ_OFF") : "");
	fflush(stdout);
	if (shared_setup())
		printf("# fuzz: no shared memory: %s\n", strerror(errno));
	find_kaddrs();
	/* The counts before the fuzz, with nothing of ours open. */
	all_cpus_online();
	pctr_clear_all();
	g_refcnt0 = module_refcnt("pmcompat");
	g_pmu_lines0 = pmu_lines();
	/* The fuzz's harness timeout follows its length (rounds, their grace, slow guests). */
	_fuzz_every_request_of_the_four_devices_object.timeout = g_seconds * 2 + 4 * GRACE_SECONDS + 120;
	return test_harness_run(argc, argv);
}
