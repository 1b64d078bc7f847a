// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libpctx(3LIB) for libcpc on Linux: process contexts for cpc_bind_pctx().
 *
 * A captured process is held through a pidfd (when the kernel has
 * pidfd_open(2)), so that pctx_terminate() cannot signal a recycled pid.
 * The process keeps running: Linux has no /proc agent LWP, and the counters
 * of its threads are bound from outside by /dev/cpc.  Capturing asks for the
 * same access that binding needs (ptrace read access, checked by opening
 * /proc/<pid>/environ), so that a capture that succeeds can be measured.
 * pctx_create(), pctx_set_events() and pctx_run(), which need to stop the
 * process at its system calls, fail with ENOTSUP.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "libcpc_impl.h"

struct __pctx {
	pid_t pid;
	int pidfd;		/* -1 without pidfd_open(2) */
	void *arg;
	int verbose;
	pctx_errfn_t *errfn;
	cpc_t *cpc;		/* the handle that bound sets to the process */
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
		fprintf(stderr, "libpctx: %s: ", fn);
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

CPC_EXPORT pctx_t *pctx_capture(pid_t pid, void *arg, int verbose,
				pctx_errfn_t *errfn)
{
	static const char fn[] = "pctx_capture";
	char path[64];
	pctx_t *pctx;
	int fd, err;

	if (pid <= 0) {
		pctx_error(errfn, fn, "invalid process id %d\n", (int)pid);
		errno = ESRCH;
		return NULL;
	}
	pctx = calloc(1, sizeof(*pctx));
	if (!pctx)
		return NULL;
	pctx->pid = pid;
	pctx->arg = arg;
	pctx->verbose = verbose;
	pctx->errfn = errfn;
	pctx->pidfd = pidfd_open_pid(pid);
	if (pctx->pidfd < 0) {
		err = errno;
		if (err == ENOSYS || err == EINVAL) {
			/* No pidfds: the pid itself, checked for existence. */
			err = kill(pid, 0) < 0 && errno == ESRCH ? ESRCH : 0;
		}
		if (err) {
			pctx_error(errfn, fn, "cannot capture process %d: %s\n",
				   (int)pid, strerror(err));
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
		pctx_error(errfn, fn, "cannot capture process %d: %s\n",
			   (int)pid, strerror(err));
		if (pctx->pidfd >= 0)
			close(pctx->pidfd);
		free(pctx);
		errno = err;
		return NULL;
	}
	if (verbose)
		pctx_error(errfn, fn, "captured process %d\n", (int)pid);
	return pctx;
}

CPC_EXPORT pctx_t *pctx_create(const char *filename, char *const *argv,
			       void *arg, int verbose, pctx_errfn_t *errfn)
{
	(void)argv;
	(void)arg;
	(void)verbose;
	pctx_error(errfn, "pctx_create",
		   "cannot create %s under control: not supported on Linux\n",
		   filename ? filename : "(null)");
	errno = ENOTSUP;
	return NULL;
}

CPC_EXPORT int pctx_set_events(pctx_t *pctx, ...)
{
	pctx_error(pctx ? pctx->errfn : NULL, "pctx_set_events",
		   "process events are not supported on Linux\n");
	errno = ENOTSUP;
	return -1;
}

CPC_EXPORT int pctx_run(pctx_t *pctx, uint_t msec, uint_t nsamples,
			int (*tick)(pctx_t *, pid_t, id_t, void *))
{
	(void)msec;
	(void)nsamples;
	(void)tick;
	pctx_error(pctx ? pctx->errfn : NULL, "pctx_run",
		   "running a process under control is not supported on Linux\n");
	errno = ENOTSUP;
	return -1;
}

/* Async-signal-safe; called by cpc_terminate() under the libcpc lock. */
CPC_EXPORT void pctx_terminate(pctx_t *pctx)
{
	if (!pctx)
		return;
#ifdef SYS_pidfd_send_signal
	if (pctx->pidfd >= 0 &&
	    syscall(SYS_pidfd_send_signal, pctx->pidfd, SIGKILL, NULL, 0) == 0)
		return;
	if (pctx->pidfd >= 0 && errno != ENOSYS)
		return;		/* gone: never signal a recycled pid */
#endif
	kill(pctx->pid, SIGKILL);
}

CPC_EXPORT void pctx_release(pctx_t *pctx)
{
	if (!pctx)
		return;
	if (pctx->cpc)
		__cpc_pctx_release(pctx->cpc, pctx);
	if (pctx->pidfd >= 0)
		close(pctx->pidfd);
	free(pctx);
}

pid_t __pctx_pid(pctx_t *pctx)
{
	return pctx->pid;
}

cpc_t *__pctx_get_cpc(pctx_t *pctx)
{
	return pctx->cpc;
}

void __pctx_set_cpc(pctx_t *pctx, cpc_t *cpc)
{
	pctx->cpc = cpc;
}
