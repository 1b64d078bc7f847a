// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libpctx(3LIB) for libcpc on Linux: process contexts, on ptrace(2).
 *
 * pctx_create() starts a program under control; pctx_capture() names a
 * running process (it is only attached, with PTRACE_SEIZE, when pctx_run()
 * starts, so that a captured process can also be measured from outside
 * with cpc_bind_pctx() without ever being traced).  pctx_run() follows the
 * process, its threads (LWPs) and, when a fork handler is set, its children
 * through the ptrace events (PTRACE_O_TRACEFORK, VFORK, CLONE, EXEC, EXIT),
 * calls the handlers of pctx_set_events() at each of them, and calls the
 * tick function for every LWP every msec milliseconds.  Counters are bound
 * and sampled from outside by /dev/cpc, so a traced LWP is stopped only
 * while a handler for its own event runs.
 *
 * LWP ids are numbered per process as on Solaris: 1 for the thread that
 * started the process (or, after an exec, the one that execed), then 2, 3,
 * ... in creation order.  Inside a handler, cpc_bind_pctx() binds to the
 * LWP of the process the handler was called for.
 *
 * As on Solaris, pctx_terminate() only makes pctx_run() return (it sets a
 * flag that the loop polls); pctx_release() lets a captured process run on
 * and kills a created one (Solaris' kill-on-last-close), with the children
 * followed from it.  pctx_run() returns -1 when a handler or the tick stops
 * it, or when the process it was made for dies of a signal, and 0 when the
 * processes are gone, nsamples were taken, an exec with no exec handler
 * stopped it, or pctx_terminate() was called.
 *
 * The handlers come in Solaris' order: a new thread's init_lwp, then
 * lwp_create with its (the new LWP's) id; at a thread's _exit, fini_lwp,
 * then lwp_exit.  A process killed by a signal makes no exit system call,
 * so, as on Solaris, it gets neither fini_lwp nor the exit handler.
 *
 * All ptrace requests are made by the thread that calls pctx_run() (and,
 * for pctx_create(), the one that created the process): use one thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#if defined(__aarch64__)
#include <elf.h>		/* NT_ARM_SYSTEM_CALL */
#endif
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "libcpc_impl.h"

#define PCTX_NEVENTS	8

#define PTRACE_OPTS	(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | \
			 PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)

/* LWP flags */
#define LWP_STARTED	0x01	/* init_lwp was called */
#define LWP_FINI	0x02	/* fini_lwp was called */
#define LWP_WAITSTOP	0x04	/* new: waiting for its first stop */
#define LWP_STOPPED	0x08	/* in a ptrace stop we have not resumed */
#define LWP_DETACH	0x10	/* not followed: detach at its first stop */
#define LWP_EXITING	0x20	/* seen at its exit event */
#define LWP_NEWTHREAD	0x40	/* a new thread: lwp_create after its init_lwp */

struct pctx_lwp {
	struct pctx_lwp *next;
	pid_t pid;		/* process (0 for a child that is not followed) */
	pid_t tid;
	id_t lwpid;
	int flags;
	int status;		/* the first stop, if it came before its creator's event */
};

struct pctx_proc {
	struct pctx_proc *next;
	pid_t pid;
	id_t nextlwp;
	id_t exitlwp;		/* the LWP that called exit_group() */
	int killed;		/* dying of a signal: no fini_lwp, no exit */
};

struct __pctx {
	pid_t pid;
	int pidfd;		/* -1 without pidfd_open(2) */
	void *arg;
	int verbose;
	pctx_errfn_t *errfn;
	cpc_t *cpc;		/* the handle that bound sets to the process */
	pid_t cur;		/* the process a handler runs for (0: pid) */
	pid_t cur_tid;		/* the thread of the LWP it runs for (0: none) */
	int created;		/* by pctx_create(): seized, stopped at its exec */
	int attached;		/* the threads are traced */
	int done;		/* nothing left to follow */
	volatile sig_atomic_t terminate;	/* pctx_terminate() was called */
	int stop_ok;		/* stopped, pctx_run() returns 0 (not -1) */
	int died;		/* the first process died of a signal: -1 */
	uint_t samples;		/* tick rounds so far */
	void *fn[PCTX_NEVENTS];
	struct pctx_proc *procs;
	struct pctx_lwp *lwps;
};

static void pctx_error(pctx_errfn_t *errfn, const char *fn,
		       const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	if (errfn) {
		errfn(fn, fmt, ap);
	} else {
		fprintf(stderr, "libpctx: pctx_%s: ", fn);
		vfprintf(stderr, fmt, ap);
	}
	va_end(ap);
	errno = saved;
}

static int pidfd_open_pid(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static pctx_t *pctx_alloc(pid_t pid, void *arg, int verbose,
			  pctx_errfn_t *errfn)
{
	pctx_t *pctx = calloc(1, sizeof(*pctx));

	if (!pctx)
		return NULL;
	pctx->pid = pid;
	pctx->arg = arg;
	pctx->verbose = verbose;
	pctx->errfn = errfn;
	pctx->pidfd = -1;
	return pctx;
}

/* Solaris' pctx_capture() messages. */
static void capture_error(pctx_errfn_t *errfn, pid_t pid, int err)
{
	if (err == ESRCH)
		pctx_error(errfn, "capture", "pid %d doesn't exist\n", (int)pid);
	else if (err == EACCES || err == EPERM)
		pctx_error(errfn, "capture", "pid %d: permission denied\n",
			   (int)pid);
	else
		pctx_error(errfn, "capture", "%s: pid %d\n", strerror(err),
			   (int)pid);
}

CPC_EXPORT pctx_t *pctx_capture(pid_t pid, void *arg, int verbose,
				pctx_errfn_t *errfn)
{
	static const char fn[] = "capture";
	char path[64];
	pctx_t *pctx;
	int fd, err;

	if (pid <= 0) {
		pctx_error(errfn, fn, "pid %d doesn't exist\n", (int)pid);
		errno = ESRCH;
		return NULL;
	}
	/*
	 * Solaris refuses the caller itself ("cannot capture self!"): its
	 * agent LWP cannot work there.  Binding needs no agent here, and
	 * pmcompat's tests and programs capture themselves: allowed.
	 */
	pctx = pctx_alloc(pid, arg, verbose, errfn);
	if (!pctx)
		return NULL;
	pctx->pidfd = pidfd_open_pid(pid);
	if (pctx->pidfd < 0) {
		err = errno;
		if (err == ENOSYS || err == EINVAL) {
			/* No pidfds: the pid itself, checked for existence. */
			err = kill(pid, 0) < 0 && errno == ESRCH ? ESRCH : 0;
		}
		if (err) {
			capture_error(errfn, pid, err);
			free(pctx);
			errno = err;
			return NULL;
		}
	}
	/* The access cpc_bind_pctx() will need: ptrace read access. */
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = 0;
	if (fd >= 0)
		close(fd);
	else if (errno == EACCES || errno == EPERM)
		err = errno;
	else if (errno == ENOENT && access("/proc/self", F_OK) == 0)
		err = ESRCH;	/* gone (without /proc, nothing to check) */
	if (err) {
		capture_error(errfn, pid, err);
		if (pctx->pidfd >= 0)
			close(pctx->pidfd);
		free(pctx);
		errno = err;
		return NULL;
	}
	return pctx;
}

/* ---- the tables ------------------------------------------------------------ */

static struct pctx_lwp *lwp_find(pctx_t *pctx, pid_t tid)
{
	struct pctx_lwp *l;

	for (l = pctx->lwps; l; l = l->next)
		if (l->tid == tid)
			return l;
	return NULL;
}

static struct pctx_lwp *lwp_add(pctx_t *pctx, pid_t pid, pid_t tid, id_t lwpid,
				int flags)
{
	struct pctx_lwp *l = calloc(1, sizeof(*l)), **pp;

	if (!l)
		return NULL;
	l->pid = pid;
	l->tid = tid;
	l->lwpid = lwpid;
	l->flags = flags;
	/* Kept in creation order, for the tick rounds. */
	for (pp = &pctx->lwps; *pp; pp = &(*pp)->next)
		;
	*pp = l;
	return l;
}

static void lwp_del(pctx_t *pctx, struct pctx_lwp *l)
{
	struct pctx_lwp **pp;

	for (pp = &pctx->lwps; *pp; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			free(l);
			return;
		}
	}
}

static struct pctx_proc *proc_find(pctx_t *pctx, pid_t pid)
{
	struct pctx_proc *p;

	for (p = pctx->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static struct pctx_proc *proc_add(pctx_t *pctx, pid_t pid)
{
	struct pctx_proc *p = calloc(1, sizeof(*p)), **pp;

	if (!p)
		return NULL;
	p->pid = pid;
	p->nextlwp = 1;
	p->exitlwp = 1;
	for (pp = &pctx->procs; *pp; pp = &(*pp)->next)
		;
	*pp = p;
	return p;
}

static void proc_del(pctx_t *pctx, struct pctx_proc *p)
{
	struct pctx_proc **pp;

	for (pp = &pctx->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			free(p);
			return;
		}
	}
}

/*
 * Wait for the first stop of new tracee tid (a PTRACE_EVENT_STOP), or its
 * death: the wait status, or -1.  Tracees are waited for one by one, by
 * thread id, so that the caller's other children are left alone.
 */
static int wait_first_stop(pid_t tid)
{
	int status;

	for (;;) {
		if (waitpid(tid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!WIFSTOPPED(status) ||
		    (unsigned int)status >> 16 == PTRACE_EVENT_STOP)
			return status;
		/* Anything else first: pass a signal on, and wait on. */
		ptrace(PTRACE_CONT, tid, 0L,
		       (unsigned int)status >> 16 ? 0L : (long)WSTOPSIG(status));
	}
}

/* The thread ids followed now (allocated; *n of them), or NULL. */
static pid_t *tids_snapshot(pctx_t *pctx, size_t *n)
{
	struct pctx_lwp *l;
	size_t k = 0;
	pid_t *v;

	for (l = pctx->lwps; l; l = l->next)
		k++;
	v = malloc((k ? k : 1) * sizeof(*v));
	if (!v)
		return NULL;
	*n = 0;
	for (l = pctx->lwps; l; l = l->next)
		v[(*n)++] = l->tid;
	return v;
}

/* ---- handlers --------------------------------------------------------------- */

typedef int (lwpfn_t)(pctx_t *, pid_t, id_t, void *);

/* Call an LWP handler (init, fini, lwp_create, lwp_exit, tick) for l. */
static int call_lwp(pctx_t *pctx, lwpfn_t *fn, struct pctx_lwp *l)
{
	int ret;

	if (!fn)
		return 0;
	pctx->cur = l->pid;
	pctx->cur_tid = l->tid;
	ret = fn(pctx, l->pid, l->lwpid, pctx->arg);
	pctx->cur = 0;
	pctx->cur_tid = 0;
	return ret;
}

static lwpfn_t *lwp_handler(pctx_t *pctx, int ev)
{
	return (lwpfn_t *)pctx->fn[ev];
}

static int lwp_init(pctx_t *pctx, struct pctx_lwp *l)
{
	l->flags |= LWP_STARTED;
	return call_lwp(pctx, lwp_handler(pctx, PCTX_INIT_LWP_EVENT), l);
}

static int lwp_fini(pctx_t *pctx, struct pctx_lwp *l)
{
	if (!(l->flags & LWP_STARTED) || (l->flags & LWP_FINI))
		return 0;
	l->flags |= LWP_FINI;
	return call_lwp(pctx, lwp_handler(pctx, PCTX_FINI_LWP_EVENT), l);
}

static void resume(struct pctx_lwp *l, int sig)
{
	if (l)
		l->flags &= ~LWP_STOPPED;
	/* ESRCH: killed meanwhile; its exit is reported. */
	ptrace(PTRACE_CONT, l->tid, 0L, (long)sig);
}

/* The system call an LWP stopped at its exit event made (-1: unknown). */
static long exit_syscall(pid_t tid)
{
#if defined(__x86_64__) || defined(__i386__)
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, tid, 0L, &regs) < 0)
		return -1;
#if defined(__x86_64__)
	return (long)regs.orig_rax;
#else
	return (long)regs.orig_eax;
#endif
#elif defined(__aarch64__)
	/* arm64: the system call number the kernel keeps (syscallno) */
	int nr;
	struct iovec iov = { &nr, sizeof(nr) };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_ARM_SYSTEM_CALL, &iov) < 0)
		return -1;
	return nr;
#else
	(void)tid;
	return -1;
#endif
}

/* Whether tid is a thread of process pid (no file to parse: a lookup). */
static int thread_of(pid_t tid, pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	return access(path, F_OK) == 0;
}

/*
 * The command line of a process for the exec handler, as Solaris' pr_psargs:
 * the arguments joined with spaces, at most PRARGSZ (80) bytes with the NUL.
 */
#define PCTX_PSARGS	80

static void proc_name(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n = -1, i;
	int fd;

	if (size > PCTX_PSARGS)
		size = PCTX_PSARGS;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	if (n > 0) {
		while (n > 0 && buf[n - 1] == '\0')
			n--;
		for (i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
	} else {
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		n = readlink(path, buf, size - 1);
		if (n < 0)
			n = 0;
	}
	buf[n] = '\0';
}

/*
 * The first stop of a new tracee (l was made at its creator's event):
 * init_lwp, and let it run; or, if not followed, let it go.
 */
static int lwp_first_stop(pctx_t *pctx, struct pctx_lwp *l)
{
	int ret;

	l->flags &= ~LWP_WAITSTOP;
	if (l->flags & LWP_DETACH) {
		ptrace(PTRACE_DETACH, l->tid, 0L, 0L);
		lwp_del(pctx, l);
		return 0;
	}
	ret = lwp_init(pctx, l);
	/* As on Solaris: a new thread's lwp_create comes after its init_lwp. */
	if (!ret && (l->flags & LWP_NEWTHREAD))
		ret = call_lwp(pctx, lwp_handler(pctx, PCTX_SYSC_LWP_CREATE_EVENT), l);
	l->flags &= ~LWP_NEWTHREAD;
	resume(l, 0);
	return ret;
}

static int lwp_gone(pctx_t *pctx, pid_t tid, int status);

/* A new tracee tid, created by l (event ev): record it, and start it. */
static int new_tracee(pctx_t *pctx, struct pctx_lwp *l, int ev, pid_t tid)
{
	struct pctx_proc *p = proc_find(pctx, l->pid);
	struct pctx_lwp *n;
	int thread, status, ret = 0;

	thread = ev == PTRACE_EVENT_CLONE && thread_of(tid, l->pid);
	if (thread) {
		n = lwp_add(pctx, l->pid, tid, p ? p->nextlwp++ : 0,
			    LWP_WAITSTOP | LWP_NEWTHREAD);
	} else if (pctx->fn[PCTX_SYSC_FORK_EVENT]) {
		pctx_sysc_forkfn_t *fn = pctx->fn[PCTX_SYSC_FORK_EVENT];

		pctx->cur = l->pid;
		fn(pctx, l->pid, l->lwpid, tid, pctx->arg);
		pctx->cur = 0;
		p = proc_add(pctx, tid);
		n = lwp_add(pctx, tid, tid, p ? p->nextlwp++ : 1, LWP_WAITSTOP);
	} else {
		n = lwp_add(pctx, 0, tid, 0, LWP_WAITSTOP | LWP_DETACH);
	}
	if (!n) {
		/* No memory: let it go rather than leave it stopped. */
		ptrace(PTRACE_DETACH, tid, 0L, 0L);
		return -1;
	}
	status = wait_first_stop(tid);
	if (status != -1 && WIFSTOPPED(status)) {
		int r = lwp_first_stop(pctx, n);

		if (!ret)
			ret = r;
	} else if (status != -1) {
		/* Gone before its first stop. */
		int r = lwp_gone(pctx, tid, status);

		if (!ret)
			ret = r;
	} else {
		lwp_del(pctx, n);
	}
	return ret;
}

/* The process of l execed: l is its only LWP now, with tid pid. */
static int lwp_exec(pctx_t *pctx, struct pctx_lwp *l)
{
	pctx_sysc_execfn_t *fn = pctx->fn[PCTX_SYSC_EXEC_EVENT];
	struct pctx_proc *p = proc_find(pctx, l->pid);
	struct pctx_lwp *o, *next;
	char name[4096];
	int ret = 0;

	/* As on Solaris, the results of these fini calls are not looked at. */
	for (o = pctx->lwps; o; o = next) {
		next = o->next;
		if (o != l && o->pid == l->pid) {
			lwp_fini(pctx, o);
			lwp_del(pctx, o);
		}
	}
	lwp_fini(pctx, l);
	l->tid = l->pid;
	if (!fn && (pctx->fn[PCTX_INIT_LWP_EVENT] || pctx->fn[PCTX_FINI_LWP_EVENT])) {
		/*
		 * Solaris stops at an exec it has no handler for (when it
		 * follows LWPs at all): pctx_run() returns 0, and the process
		 * stays stopped here until pctx_run() lets it go (captured)
		 * or pctx_release() kills it (created).
		 */
		pctx->stop_ok = 1;
		return 1;
	}
	if (fn) {
		proc_name(l->pid, name, sizeof(name));
		pctx->cur = l->pid;
		ret = fn(pctx, l->pid, l->lwpid, name, pctx->arg);
		pctx->cur = 0;
	}
	if (ret)
		return ret;	/* pctx_run() returns -1; the process stays stopped */
	l->lwpid = 1;
	l->flags &= ~(LWP_STARTED | LWP_FINI | LWP_EXITING);
	if (p)
		p->nextlwp = 2;
	ret = lwp_init(pctx, l);
	resume(l, 0);
	return ret;
}

/* tid is gone; status is its wait(2) status. */
static int lwp_gone(pctx_t *pctx, pid_t tid, int status)
{
	struct pctx_lwp *l = lwp_find(pctx, tid), *o, *next;
	struct pctx_proc *p;
	pid_t pid;
	int ret = 0;

	if (!l)
		return 0;
	pid = l->pid;
	p = proc_find(pctx, pid);
	/*
	 * A process killed by a signal: Solaris sees no exit system call, so
	 * it calls neither fini_lwp nor the exit handler.
	 */
	if (p && WIFSIGNALED(status))
		p->killed = 1;
	if (p && p->killed)
		l->flags |= LWP_FINI;
	ret = lwp_fini(pctx, l);
	lwp_del(pctx, l);
	if (tid != pid || !pid)
		return ret;
	/* The leader is reported last: the process is gone. */
	for (o = pctx->lwps; o; o = next) {
		next = o->next;
		if (o->pid == pid) {
			if (!p || !p->killed)
				lwp_fini(pctx, o);
			lwp_del(pctx, o);
		}
	}
	if (p && p->killed) {
		/* Solaris: PS_DEAD, and pctx_run() returns -1. */
		if (pid == pctx->pid) {
			pctx->died = 1;
			if (pctx->verbose)
				pctx_error(pctx->errfn, "run",
					   "%d: process terminated\n", (int)pid);
		}
		proc_del(pctx, p);
		return ret;
	}
	if (pctx->fn[PCTX_SYSC_EXIT_EVENT]) {
		pctx_sysc_exitfn_t *fn = pctx->fn[PCTX_SYSC_EXIT_EVENT];

		pctx->cur = pid;
		fn(pctx, pid, p ? p->exitlwp : 1, status, pctx->arg);
		pctx->cur = 0;
	}
	if (p)
		proc_del(pctx, p);
	return ret;
}

/* One wait status of a tracee: 0, or a handler's non-zero result. */
static int handle(pctx_t *pctx, pid_t tid, int status)
{
	struct pctx_lwp *l;
	unsigned long msg = 0;
	int sig, ev, ret = 0;

	if (WIFEXITED(status) || WIFSIGNALED(status))
		return lwp_gone(pctx, tid, status);
	if (!WIFSTOPPED(status))
		return 0;
	sig = WSTOPSIG(status);
	ev = (unsigned int)status >> 16;
	l = lwp_find(pctx, tid);
	if (!l) {
		/* Not one of ours (tracees are waited for by thread id). */
		ptrace(PTRACE_CONT, tid, 0L, ev ? 0L : (long)sig);
		return 0;
	}
	l->flags |= LWP_STOPPED;
	switch (ev) {
	case PTRACE_EVENT_STOP:
		if (l->flags & LWP_WAITSTOP)
			return lwp_first_stop(pctx, l);
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU) {
			/* Group-stop: stay stopped until SIGCONT. */
			l->flags &= ~LWP_STOPPED;
			ptrace(PTRACE_LISTEN, tid, 0L, 0L);
			return 0;
		}
		resume(l, 0);
		return 0;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0L, &msg) == 0 && msg > 0)
			ret = new_tracee(pctx, l, ev, (pid_t)msg);
		resume(l, 0);
		return ret;
	case PTRACE_EVENT_EXEC:
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0L, &msg) == 0 &&
		    (pid_t)msg != tid) {
			/* A thread other than the leader execed. */
			struct pctx_lwp *e = lwp_find(pctx, (pid_t)msg);

			if (!e) {
				resume(l, 0);
				return 0;
			}
			/* The old leader is gone without a report. */
			lwp_fini(pctx, l);
			lwp_del(pctx, l);
			l = e;
			l->flags |= LWP_STOPPED;
		}
		return lwp_exec(pctx, l);
	case PTRACE_EVENT_EXIT: {
		struct pctx_proc *p = proc_find(pctx, l->pid);
		long nr = exit_syscall(tid);
		int exiting = l->flags & LWP_EXITING;

		/* The exit status: a signal's number when it kills the process. */
		if (p && ptrace(PTRACE_GETEVENTMSG, tid, 0L, &msg) == 0 &&
		    WIFSIGNALED((int)msg))
			p->killed = 1;
		l->flags |= LWP_EXITING;
		if (p && p->killed) {
			/* No fini_lwp, no lwp_exit (see lwp_gone()). */
			l->flags |= LWP_FINI;
			resume(l, 0);
			return 0;
		}
#ifdef SYS_exit_group
		if (nr == SYS_exit_group && p)
			p->exitlwp = l->lwpid;
#endif
		/* As on Solaris: fini_lwp, then lwp_exit. */
		if (lwp_fini(pctx, l))
			ret = 1;
		if (nr == SYS_exit && !exiting && (l->flags & LWP_STARTED)) {
			int r = call_lwp(pctx, lwp_handler(pctx, PCTX_SYSC_LWP_EXIT_EVENT), l);

			if (!ret)
				ret = r;
		}
		resume(l, 0);
		return ret;
	}
	default:
		/* A signal for the tracee: deliver it. */
		resume(l, ev ? 0 : sig);
		return 0;
	}
}

/* ---- pctx_create ------------------------------------------------------------- */

CPC_EXPORT pctx_t *pctx_create(const char *filename, char *const *argv,
			       void *arg, int verbose, pctx_errfn_t *errfn)
{
	static const char fn[] = "create";
	int go[2] = { -1, -1 }, report[2] = { -1, -1 };
	int status, err = 0, child_err = 0;
	pctx_t *pctx;
	pid_t pid;
	ssize_t n;

	if (!filename || !argv) {
		pctx_error(errfn, fn, "cannot find program '%s'\n",
			   filename ? filename : "(null)");
		errno = EINVAL;
		return NULL;
	}
	pctx = pctx_alloc(0, arg, verbose, errfn);
	if (!pctx)
		return NULL;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0) {
		err = errno;
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		err = errno;
		goto fail;
	}
	if (pid == 0) {
		char c;

		/* Wait until the parent has seized us, then exec. */
		close(go[1]);
		close(report[0]);
		if (read(go[0], &c, 1) < 0)
			_exit(127);
		execvp(filename, argv);
		err = errno;
		if (write(report[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(report[1]);
	go[0] = report[1] = -1;
	pctx->pid = pid;
	/* PTRACE_O_EXITKILL: it dies with us, as Solaris' kill-on-last-close. */
	if (ptrace(PTRACE_SEIZE, pid, 0L,
		   (long)(PTRACE_OPTS | PTRACE_O_EXITKILL)) < 0) {
		err = errno;
		close(go[1]);
		go[1] = -1;
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		pctx_error(errfn, fn, "%s, program '%s'\n", strerror(err),
			   filename);
		goto fail_quiet;
	}
	close(go[1]);
	go[1] = -1;
	/* Either its exec event, or its death. */
	for (;;) {
		if (waitpid(pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			goto fail;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (!WIFSTOPPED(status))
			continue;
		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
			break;
		/* Its exit event (exec failed) or a signal: go on. */
		ptrace(PTRACE_CONT, pid, 0L,
		       (unsigned int)status >> 16 ? 0L : (long)WSTOPSIG(status));
	}
	n = read(report[0], &child_err, sizeof(child_err));
	close(report[0]);
	report[0] = -1;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		err = n == sizeof(child_err) ? child_err : ECHILD;
		/* Solaris' messages (Pcreate()'s C_NOENT, C_NOEXEC, ...). */
		if (err == ENOENT || err == ENOTDIR)
			pctx_error(errfn, fn, "cannot find program '%s'\n",
				   filename);
		else if (err == EACCES || err == ENOEXEC)
			pctx_error(errfn, fn, "cannot execute program '%s'\n",
				   filename);
		else
			pctx_error(errfn, fn, "%s, program '%s'\n",
				   strerror(err), filename);
		goto fail_quiet;
	}
	pctx->pidfd = pidfd_open_pid(pid);
	pctx->created = 1;
	pctx->attached = 1;
	if (!proc_add(pctx, pid) ||
	    !lwp_add(pctx, pid, pid, 1, LWP_STOPPED)) {
		pctx_release(pctx);	/* kills it */
		errno = ENOMEM;
		return NULL;
	}
	proc_find(pctx, pid)->nextlwp = 2;
	return pctx;
fail:
	pctx_error(errfn, fn, "cannot fork, program '%s'\n", filename);
fail_quiet:
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	if (report[0] >= 0)
		close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
	free(pctx);
	errno = err;
	return NULL;
}

CPC_EXPORT int pctx_set_events(pctx_t *pctx, ...)
{
	void *fn[PCTX_NEVENTS];
	va_list ap;
	int ev;

	if (!pctx) {
		errno = EINVAL;
		return -1;
	}
	memcpy(fn, pctx->fn, sizeof(fn));
	va_start(ap, pctx);
	while ((ev = va_arg(ap, int)) != PCTX_NULL_EVENT) {
		void *f;

		if (ev < 0 || ev >= PCTX_NEVENTS) {
			va_end(ap);
			pctx_error(pctx->errfn, "set_events",
				   "unknown event type %x\n", ev);
			errno = EINVAL;
			return -1;
		}
		f = va_arg(ap, void *);
		fn[ev] = f;
	}
	va_end(ap);
	memcpy(pctx->fn, fn, sizeof(fn));
	return 0;
}

/* ---- pctx_run ------------------------------------------------------------------- */

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * Seize every thread of a captured process.  Threads that a seized thread
 * creates are attached by the kernel (and reported), so a few passes over
 * /proc/pid/task catch them all.
 */
static int pctx_attach(pctx_t *pctx)
{
	static const char fn[] = "run";
	struct pctx_proc *p;
	char path[64];
	int added, pass;

	if (ptrace(PTRACE_SEIZE, pctx->pid, 0L, (long)PTRACE_OPTS) < 0) {
		int err = errno;

		if (err == EPERM)
			pctx_error(pctx->errfn, fn,
				   "pid %d: permission denied\n",
				   (int)pctx->pid);
		else
			pctx_error(pctx->errfn, fn, "%s: pid %d\n",
				   strerror(err), (int)pctx->pid);
		errno = err;
		return -1;
	}
	pctx->attached = 1;
	p = proc_add(pctx, pctx->pid);
	if (!p || !lwp_add(pctx, pctx->pid, pctx->pid, 1, 0))
		return -1;
	p->nextlwp = 2;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pctx->pid);
	for (pass = 0, added = 1; added && pass < 100; pass++) {
		pid_t tids[256];
		size_t ntids = 0, i;
		struct dirent *d;
		DIR *dir = opendir(path);

		added = 0;
		if (!dir)
			break;
		while ((d = readdir(dir)) && ntids < 256) {
			pid_t t = (pid_t)atoi(d->d_name);

			if (t > 0 && !lwp_find(pctx, t))
				tids[ntids++] = t;
		}
		closedir(dir);
		qsort(tids, ntids, sizeof(tids[0]), cmp_pid);
		for (i = 0; i < ntids; i++) {
			/* EPERM: attached already, as a new thread of a traced one. */
			if (ptrace(PTRACE_SEIZE, tids[i], 0L, (long)PTRACE_OPTS) < 0)
				continue;
			if (!lwp_add(pctx, pctx->pid, tids[i], p->nextlwp++, 0))
				return -1;
			added = 1;
		}
	}
	return 0;
}

/* Let every tracee go (after fini_lwp for each LWP), leaving it running. */
static void pctx_detach_all(pctx_t *pctx)
{
	struct pctx_lwp *l, *next;
	int status;
	pid_t tid;

	for (l = pctx->lwps; l; l = l->next)
		lwp_fini(pctx, l);
	for (l = pctx->lwps; l; l = next) {
		next = l->next;
		if (l->flags & LWP_STOPPED) {
			ptrace(PTRACE_DETACH, l->tid, 0L, 0L);
			lwp_del(pctx, l);
		} else if ((l->flags & LWP_EXITING) && l->tid == l->pid) {
			/*
			 * A leader past its exit: a zombie until the other
			 * threads end, so neither stopped nor reported now.
			 * It is let go with them (or when we exit).
			 */
			lwp_del(pctx, l);
		} else if (!(l->flags & LWP_WAITSTOP) && !(l->flags & LWP_EXITING) &&
			   ptrace(PTRACE_INTERRUPT, l->tid, 0L, 0L) < 0 &&
			   errno == ESRCH && kill(l->tid, 0) < 0) {
			lwp_del(pctx, l);
		}
	}
	while (pctx->lwps) {
		size_t n, i;
		pid_t *tids = tids_snapshot(pctx, &n);
		int progress = 0;

		if (!tids)
			break;
		for (i = 0; i < n; i++) {
			unsigned long msg = 0;
			int ev, sig, r;

			tid = tids[i];
			l = lwp_find(pctx, tid);
			if (!l)
				continue;
			r = waitpid(tid, &status, __WALL | WNOHANG);
			if (r == 0)
				continue;
			progress = 1;
			if (r < 0) {
				if (errno != EINTR)
					lwp_del(pctx, l);	/* not ours any more */
				continue;
			}
			if (!WIFSTOPPED(status)) {
				lwp_del(pctx, l);
				continue;
			}
			sig = WSTOPSIG(status);
			ev = (unsigned int)status >> 16;
			if ((ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK ||
			     ev == PTRACE_EVENT_CLONE) &&
			    ptrace(PTRACE_GETEVENTMSG, tid, 0L, &msg) == 0 && msg > 0 &&
			    !lwp_find(pctx, (pid_t)msg)) {
				/* A new tracee: let it go at its first stop. */
				if (WIFSTOPPED(wait_first_stop((pid_t)msg)))
					ptrace(PTRACE_DETACH, (pid_t)msg, 0L, 0L);
			}
			ptrace(PTRACE_DETACH, tid, 0L,
			       ev || (l->flags & LWP_WAITSTOP) ? 0L : (long)sig);
			lwp_del(pctx, l);
		}
		free(tids);
		if (!progress)
			usleep(1000);
	}
	while (pctx->procs)
		proc_del(pctx, pctx->procs);
	pctx->done = 1;
}

static long ms_until(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (t->tv_sec - now.tv_sec) * 1000 +
	       (t->tv_nsec - now.tv_nsec) / 1000000;
}

static void ts_add_ms(struct timespec *t, uint_t ms)
{
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000;
	if (t->tv_nsec >= 1000000000) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000;
	}
}

/* Call tick for every running LWP: 0, or tick's non-zero result. */
static int tick_round(pctx_t *pctx, int (*tick)(pctx_t *, pid_t, id_t, void *))
{
	struct pctx_lwp *l;
	int ret = 0;

	for (l = pctx->lwps; l && !ret; l = l->next) {
		if (!(l->flags & LWP_STARTED) || (l->flags & (LWP_FINI | LWP_DETACH)))
			continue;
		ret = call_lwp(pctx, tick, l);
	}
	return ret;
}

/*
 * Handle what every followed thread has to report, until none has more:
 * 0, or a handler's non-zero result.
 */
static int poll_tracees(pctx_t *pctx)
{
	int progress = 1, ret = 0;

	while (progress && !ret) {
		size_t n, i;
		pid_t *tids = tids_snapshot(pctx, &n);

		progress = 0;
		if (!tids)
			return -1;
		for (i = 0; i < n && !ret; i++) {
			int status;

			/* A handler may have dropped it meanwhile. */
			if (!lwp_find(pctx, tids[i]))
				continue;
			if (waitpid(tids[i], &status, __WALL | WNOHANG) == tids[i]) {
				progress = 1;
				ret = handle(pctx, tids[i], status);
			}
		}
		free(tids);
	}
	return ret;
}

/* The longest wait for a tracee: how soon pctx_terminate() is seen. */
#define PCTX_POLL_MS	100

CPC_EXPORT int pctx_run(pctx_t *pctx, uint_t msec, uint_t nsamples,
			int (*tick)(pctx_t *, pid_t, id_t, void *))
{
	struct timespec next;
	sigset_t chld, old;
	int ret = 0, err = 0;
	struct pctx_lwp *l;

	if (!pctx) {
		errno = EINVAL;
		return -1;
	}
	if (pctx->done)
		return 0;
	pctx->stop_ok = 0;
	if (!pctx->attached) {
		if (pctx_attach(pctx) < 0) {
			err = errno;
			pctx_detach_all(pctx);
			errno = err;
			return -1;
		}
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);

	/* The LWPs there are now: init_lwp, and let them run. */
	for (l = pctx->lwps; l && !ret; l = l->next) {
		if (l->flags & (LWP_STARTED | LWP_WAITSTOP | LWP_DETACH))
			continue;
		ret = lwp_init(pctx, l);
		if (l->flags & LWP_STOPPED)
			resume(l, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	ts_add_ms(&next, msec);
	while (!ret && pctx->procs && !pctx->terminate) {
		struct timespec ts;
		long ms = PCTX_POLL_MS;

		ret = poll_tracees(pctx);
		if (ret || !pctx->procs || pctx->terminate)
			break;
		/* msec 0: no sampling, only the events (nsamples unused). */
		if (msec && tick) {
			ms = ms_until(&next);
			if (ms <= 0) {
				ret = tick_round(pctx, tick);
				if (!ret && nsamples && ++pctx->samples >= nsamples) {
					pctx->stop_ok = 1;
					ret = 1;
				}
				if (ms < -(long)msec)	/* far behind: skip */
					clock_gettime(CLOCK_MONOTONIC, &next);
				ts_add_ms(&next, msec);
				continue;
			}
			if (ms > PCTX_POLL_MS)
				ms = PCTX_POLL_MS;
		}
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000 + 500000;
		/*
		 * EINTR: a signal handler ran.  As on Solaris, the loop goes
		 * on unless it called pctx_terminate().
		 */
		sigtimedwait(&chld, NULL, &ts);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/*
	 * Stopped by pctx_terminate(), a handler or the tick, nsamples or an
	 * exec: a captured process is let go (it runs on); a created one
	 * stays under control until pctx_release() kills it.
	 */
	if (!pctx->created && (pctx->procs || pctx->lwps))
		pctx_detach_all(pctx);
	pctx->done = 1;
	if (pctx->terminate)
		return 0;
	if (pctx->died)
		return -1;
	if (!ret || pctx->stop_ok)
		return 0;
	return -1;
}

/* ---- the end ----------------------------------------------------------------- */

/*
 * Async-signal-safe, as on Solaris: it only makes pctx_run() return (within
 * PCTX_POLL_MS when called from another thread).  It never signals the
 * process.
 */
CPC_EXPORT void pctx_terminate(pctx_t *pctx)
{
	if (pctx)
		pctx->terminate = 1;
}

/*
 * Kill a created process and the children followed from it (Solaris sets
 * kill-on-last-close on them), and reap what is traced.  They are all
 * still traced and unreaped here, so none of their pids can be recycled.
 */
static void pctx_kill_all(pctx_t *pctx)
{
	struct pctx_proc *p;
	struct pctx_lwp *l;
	int status;

	for (p = pctx->procs; p; p = p->next)
		kill(p->pid, SIGKILL);
	for (l = pctx->lwps; l; l = l->next) {
		if (!l->pid)
			continue;	/* a child not followed: not ours to kill */
		for (;;) {
			if (waitpid(l->tid, &status, __WALL) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			if (WIFEXITED(status) || WIFSIGNALED(status))
				break;
			/* Its exit event, or a stop from before the kill. */
			ptrace(PTRACE_CONT, l->tid, 0L, 0L);
		}
	}
	while (pctx->lwps)
		lwp_del(pctx, pctx->lwps);
	while (pctx->procs)
		proc_del(pctx, pctx->procs);
	pctx->done = 1;
}

CPC_EXPORT void pctx_release(pctx_t *pctx)
{
	if (!pctx)
		return;
	if (pctx->created && pctx->procs)
		pctx_kill_all(pctx);
	else if (pctx->attached && !pctx->done)
		pctx_detach_all(pctx);
	if (pctx->cpc)
		__cpc_pctx_release(pctx->cpc, pctx);
	while (pctx->lwps)
		lwp_del(pctx, pctx->lwps);
	while (pctx->procs)
		proc_del(pctx, pctx->procs);
	if (pctx->pidfd >= 0)
		close(pctx->pidfd);
	free(pctx);
}

pid_t __pctx_cur_tid(pctx_t *pctx)
{
	return pctx->cur_tid;
}

pid_t __pctx_pid(pctx_t *pctx)
{
	return pctx->cur ? pctx->cur : pctx->pid;
}

/* The thread of LWP id of the process a handler runs for (see cpc_bind_pctx). */
pid_t __pctx_tid(pctx_t *pctx, id_t id)
{
	pid_t pid = __pctx_pid(pctx);
	struct pctx_lwp *l;

	for (l = pctx->lwps; l; l = l->next)
		if (l->pid == pid && l->lwpid == id)
			return l->tid;
	/* Not followed by pctx_run(): LWP 1 is the leader, others are tids. */
	if (id == 1 && pid != 1)
		return pid;
	return (pid_t)id;
}

cpc_t *__pctx_get_cpc(pctx_t *pctx)
{
	return pctx->cpc;
}

void __pctx_set_cpc(pctx_t *pctx, cpc_t *cpc)
{
	pctx->cpc = cpc;
}
