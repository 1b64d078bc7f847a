// SPDX-License-Identifier: GPL-2.0
/*
 * Who may count what through pmcompat.  In-kernel perf counters skip every
 * check perf_event_open() makes, so the device nodes and the module's
 * pmc_access_check() are the only gate.  The policy tested here:
 *
 *   nodes (udev rule)   /dev/cpc 0660, /dev/pctr 0640, /dev/perfmon 0640,
 *                       root:pmcompat (the module's own modes: the same,
 *                       root:root).  The tests emulate the rule with a test
 *                       group (TEST_GID) and restore the nodes afterwards.
 *   own threads, user mode          whoever could open the node
 *   kernel mode (CPC_COUNT_SYSTEM)  CAP_PERFMON/CAP_SYS_ADMIN, or what
 *                                   perf_allow_kernel() allows on kernels
 *                                   that export it (6.12, not 6.1)
 *   whole CPUs (pctr PCIOCSn, perfmon PMIOSETUP/START and writable opens,
 *   cpc_bind_cpu)                   CAP_PERFMON/CAP_SYS_ADMIN only
 *                                   (EPERM for pctr/perfmon, EACCES for cpc)
 *   another process's thread        CAP_PERFMON/CAP_SYS_ADMIN, or ptrace-read
 *                                   rules by real credentials; no overflow
 *                                   notification (ENOTSUP); the binding is
 *                                   dead (ESRCH) once the target execs
 *   overflow signal     SIGEMT (40), EMT_CPCOVF (2); any other signo/si_code
 *                       in the raw ABI is EINVAL
 *   si_addr             never a kernel address for a user-only counter
 *   limits              256 bindings per descriptor, 1024 per real uid: EAGAIN
 *   /dev/pfcntr         0640 root:pmcompat, opened read-only; EPERM when
 *                       counting would start (a configuration request,
 *                       PCNTLOGALL, every enabling request, whoever set the
 *                       counters up): LOGSELECT in user mode whoever opened
 *                       it; kernel mode as above; LOGALL (whole CPUs) and
 *                       the rate of 256 CAP_PERFMON/CAP_SYS_ADMIN only; a
 *                       descriptor passed to another process: that process
 *                       must be allowed to watch the marked one (as above)
 *
 * The permission matrix compares every pmcompat decision with perf's own
 * for the same credentials and fails wherever pmcompat allows what perf
 * denies, or departs from the policy above.
 */
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/capability.h>
#if defined(__x86_64__)
/* /dev/pctr and /dev/perfmon: the x86 front-ends (not built on arm64). */
#define ACCESS_X86	1
#include <machine/pctr.h>
#include <machine/perfmon.h>
#endif
#include <sys/cpc_impl.h>
#include <sys/pfcntr.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define NOBODY		65534
#define OTHER_UID	4243		/* "another user" of the matrix */
#define TEST_GID	4242		/* stands for the pmcompat group */
#define PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"
#define SUID_COPY	"/tmp/access_test-suid"
#define SUID_ARG	"--access-test-suid-helper"

#define EV_INSTR	0x00c0
#define KERNEL_IP	0xffffffff81000000ULL
#define USER_TOP	0x800000000000ULL	/* first non-user address */
#define SIGEMT_NR	40
#define EMT_CPCOVF_NR	2
#define X86_ONLY	"x86 only: /dev/pctr and /dev/perfmon take x86 event-select words"

#ifdef ACCESS_X86
#define FN_INSTR_U	(EV_INSTR | PCTR_U | PCTR_EN)
#define FN_INSTR_UK	(EV_INSTR | PCTR_U | PCTR_K | PCTR_EN)
#define CTL_INSTR_U	(EV_INSTR | ((unsigned int)PMCF_USR << 16))
#define MATRIX_CPU	1
#define OVF_CPU		2
/* The counted event of /dev/cpc and perf: raw INST_RETIRED (the test PMU). */
#define CNT_TYPE	PERF_TYPE_RAW
#define CNT_CONFIG	EV_INSTR
#define CNT_NAME	"raw INST_RETIRED"

/* EV5: instructions, branches (flow changes), cycles; EV6: instructions, cycles. */
#define MUX5_ISB_CYC	(PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES)
#define SEL5_ISB_CYC	7	/* its counters */
/* Other events than MUX5_ISB_CYC: a change of what is counted. */
#define MUX5_OTHER	(PF5_MUX0_CYCLES | PF5_MUX1_FLOW_CHANGE | PF5_MUX2_C_CYCLES)
#else
/*
 * arm64: the real ARMv8 PMU (QEMU's), no test PMU.  Its events are CPU
 * cycles, instructions (only under -icount), STALL_FRONTEND/BACKEND and
 * SW_INCR: the counted event is perf's cycles, which every boot counts.
 * The exact boot has one CPU (-smp 1): CPU 0 then.
 */
#define MATRIX_CPU	(count_online_cpus() > 1 ? 1 : 0)
#define OVF_CPU		(count_online_cpus() > 2 ? 2 : 0)
#define CNT_TYPE	PERF_TYPE_HARDWARE
#define CNT_CONFIG	PERF_COUNT_HW_CPU_CYCLES
#define CNT_NAME	"cycles"

/*
 * EV5: counters 0 and 2 cycles, counter 1 left at 0 (counts nothing): of
 * the EV5 events only cycles are counted by QEMU's PMU on every boot
 * (instructions need -icount; pipeline dry, STALL_FRONTEND, is EINVAL).
 */
#define MUX5_ISB_CYC	(PF5_MUX0_CYCLES | PF5_MUX2_C_CYCLES)
/* Its counters: selecting counter 1, which counts nothing, is EINVAL. */
#define SEL5_ISB_CYC	(PF5_SEL_COUNTER_0 | PF5_SEL_COUNTER_2)
/* Other events than MUX5_ISB_CYC: counter 0 alone. */
#define MUX5_OTHER	PF5_MUX0_CYCLES
/* A cycle overflow the PMU interrupt reports in user mode. */
#define OVF_PRESET	(UINT64_MAX - 99999)
#endif
#ifndef OVF_PRESET
#define OVF_PRESET	(UINT64_MAX - 9)	/* 10 injected events */
#endif
#define FREQ5_C0_256	(PF5_C0_INT_EVERY_256 | PF5_C1_INT_EVERY_65536 | PF5_C2_INT_EVERY_16384)

#define DEF_MAX_PER_FD		256
#define DEF_MAX_PER_USER	1024

static const struct {
	const char *path;
	mode_t mode;		/* the policy's mode */
} nodes[] = {
	{ PMC_CPC_PATH, 0660 },
#ifdef ACCESS_X86
	{ _PATH_PCTR, 0640 },
	{ _PATH_PERFMON, 0640 },
#endif
	{ PFCNTR_PATH, 0640 },
};
#define NNODES	(sizeof(nodes) / sizeof(nodes[0]))

#ifdef ACCESS_X86
/* Counts come from the test PMU (tests/fakepmu): nothing counts without it. */
#define NEED_PMU()	NEED_FAKEPMU()
#define NEED_INJECTION(why)	NEED_FAKEPMU()
#define NEED_EXACT_OVERFLOW()	do { } while (0)

/* Stop and clear /dev/pctr's counters; 0 or -errno. */
static int clear_x86_counters(void)
{
	return pctr_clear_all();
}

/* An overflow of a 10-event preset, counted on OVF_CPU where the caller runs. */
static void overflow_here(void)
{
	inject_ip(OVF_CPU, EV_INSTR, 10, 0, 0x400100);
}

/* Some user-mode events of this process on MATRIX_CPU, where it runs. */
static int count_user_events(int ifd)
{
	char cmd[128];
	ssize_t len;

	/* 300 user-mode instructions of this process, on its CPU. */
	len = snprintf(cmd, sizeof(cmd), "cpu=%d event=0x%x count=300 mode=user\n",
		       MATRIX_CPU, EV_INSTR);
	return write(ifd, cmd, len) == len ? 0 : -1;
}
#else
/* The real PMU: skip where perf cannot count CNT_NAME in user mode. */
#define NEED_PMU() do {							\
	struct perf_event_attr a_;					\
	int fd_;							\
									\
	memset(&a_, 0, sizeof(a_));					\
	a_.size = sizeof(a_);						\
	a_.type = CNT_TYPE;						\
	a_.config = CNT_CONFIG;						\
	a_.exclude_kernel = 1;						\
	fd_ = sys_perf_event_open(&a_, 0, -1, -1, PERF_FLAG_FD_CLOEXEC); \
	if (fd_ < 0)							\
		SKIP(return, "no CPU PMU: perf cannot count " CNT_NAME " (%s)", \
		     strerror(errno));					\
	close(fd_);							\
} while (0)
#define NEED_INJECTION(why)	SKIP(return, NO_FAKEPMU ": " why)

/*
 * A cycle overflow whose delivery is asserted: only on QEMU's exact boot
 * (-icount shift=0, where the instructions event exists), where cycles are
 * guest instructions.  Without icount QEMU's cycles follow the host's clock
 * and its counter interrupts are taken late; on a loaded host one boot saw
 * none within 2 s.  The exact boots run this test.
 */
#define NEED_EXACT_OVERFLOW() do {					\
	struct perf_event_attr e_;					\
	int efd_;							\
									\
	memset(&e_, 0, sizeof(e_));					\
	e_.size = sizeof(e_);						\
	e_.type = PERF_TYPE_HARDWARE;					\
	e_.config = PERF_COUNT_HW_INSTRUCTIONS;				\
	e_.exclude_kernel = 1;						\
	efd_ = sys_perf_event_open(&e_, 0, -1, -1, PERF_FLAG_FD_CLOEXEC); \
	if (efd_ < 0)							\
		SKIP(return, "QEMU without -icount (no instructions event): "	\
		     "its cycle overflows follow the host's clock; the exact boot runs this"); \
	close(efd_);							\
} while (0)

static int clear_x86_counters(void)
{
	return 0;
}

/* Run in user mode until a signal comes (2 s at most): the cycles overflow. */
static volatile sig_atomic_t sig_count;
static void overflow_here(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (volatile int i = 0; i < 1000 && !sig_count; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!sig_count && (t.tv_sec - t0.tv_sec) * 1000000000L +
		 (t.tv_nsec - t0.tv_nsec) < 2000000000L);
}

/* Some user-mode cycles of this process (what the counters count here). */
static int count_user_events(int ifd)
{
	for (volatile int i = 0; i < 100000; i++)
		;
	return 0;
}
#endif

/* ---- credentials ------------------------------------------------------ */

enum cred { CR_ROOT, CR_NOBODY, CR_NOBODY_GRP, CR_NOBODY_CAP, CR_NOBODY_CAP_GRP, CR_N };

static const char *const cred_names[CR_N] = {
	"root", "uid65534", "uid65534+group", "uid65534+CAP_PERFMON",
	"uid65534+CAP_PERFMON+group",
};

static bool cred_has_cap(enum cred c)
{
	return c == CR_ROOT || c == CR_NOBODY_CAP || c == CR_NOBODY_CAP_GRP;
}

static bool cred_in_group(enum cred c)
{
	return c == CR_NOBODY_GRP || c == CR_NOBODY_CAP_GRP;
}

/* Permitted and effective capabilities: cap only (or none when cap < 0). */
static int caps_only(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	if (cap >= 0) {
		d[CAP_TO_INDEX(cap)].effective = CAP_TO_MASK(cap);
		d[CAP_TO_INDEX(cap)].permitted = CAP_TO_MASK(cap);
	}
	return syscall(SYS_capset, &hdr, d) ? -errno : 0;
}

/* Drop caps a and b from the permitted and effective sets, keep the others. */
static int caps_drop(int a, int b)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	int i, cap[2] = { a, b };

	if (syscall(SYS_capget, &hdr, d))
		return -errno;
	for (i = 0; i < 2; i++) {
		d[CAP_TO_INDEX(cap[i])].effective &= ~CAP_TO_MASK(cap[i]);
		d[CAP_TO_INDEX(cap[i])].permitted &= ~CAP_TO_MASK(cap[i]);
	}
	return syscall(SYS_capset, &hdr, d) ? -errno : 0;
}

/*
 * Become uid (real, effective, saved) with gid uid and, if group, the
 * supplementary group TEST_GID; keep capability cap alone (none if cap < 0).
 * The process stays dumpable, as an ordinary program of that user is.
 */
static int become_uid_cap(uid_t uid, bool group, int cap)
{
	gid_t g = TEST_GID;

	if (cap >= 0 && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	if (setgroups(group ? 1 : 0, &g) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	if (caps_only(cap))
		return -errno;
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return -errno;
	return 0;
}

/* The same, keeping CAP_PERFMON alone if perfmon. */
static int become_uid(uid_t uid, bool group, bool perfmon)
{
	return become_uid_cap(uid, group, perfmon ? CAP_PERFMON : -1);
}

static int become(enum cred c)
{
	if (c == CR_ROOT)
		return 0;
	return become_uid(NOBODY, cred_in_group(c), c == CR_NOBODY_CAP || c == CR_NOBODY_CAP_GRP);
}

/* ---- /dev/cpc at the ioctl level -------------------------------------- */

struct bind_req {
	__u32 scope;
	pid_t pid, tid;
	int cpu;
	__u32 type;
	__u64 config;
	__u32 rflags;
	__u64 preset;
	int signo, si_code;
};

static int cpc_open_node(void)
{
	int fd = open(PMC_CPC_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* One-request bind; 0 or -errno, the id in *id. */
static int cpc_bind_req(int fd, const struct bind_req *q, __u32 *id)
{
	struct pmc_cpc_request r;
	struct pmc_cpc_bind b;

	memset(&r, 0, sizeof(r));
	r.type = q->type;
	r.config = q->config;
	r.flags = q->rflags;
	r.preset = q->preset;
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.scope = q->scope;
	b.nreqs = 1;
	b.pid = q->pid;
	b.tid = q->tid;
	b.cpu = q->cpu;
	b.signo = q->signo;
	b.si_code = q->si_code;
	b.reqs = (uintptr_t)&r;
	if (ioctl(fd, PMC_CPC_BIND, &b) < 0)
		return -errno;
	if (id)
		*id = b.id;
	return 0;
}

/* CNT_NAME (x86: raw INST_RETIRED), user mode, on a thread (scope CURLWP or PCTX). */
static int cpc_bind_thread(int fd, __u32 scope, pid_t pid, pid_t tid, __u32 rflags,
			   __u32 *id)
{
	struct bind_req q = {
		.scope = scope, .pid = pid, .tid = tid, .type = CNT_TYPE,
		.config = CNT_CONFIG, .rflags = rflags,
	};

	return cpc_bind_req(fd, &q, id);
}

/* A software event (no PMU counter needed), for the limit tests. */
static int cpc_bind_sw(int fd, __u32 scope, pid_t pid, pid_t tid)
{
	struct bind_req q = {
		.scope = scope, .pid = pid, .tid = tid, .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK, .rflags = CPC_COUNT_USER,
	};

	return cpc_bind_req(fd, &q, NULL);
}

static int cpc_bind_cpu_raw(int fd, int cpu, __u32 rflags)
{
	struct bind_req q = {
		.scope = PMC_CPC_BIND_CPU, .cpu = cpu, .type = CNT_TYPE,
		.config = CNT_CONFIG, .rflags = rflags,
	};

	return cpc_bind_req(fd, &q, NULL);
}

static int cpc_sample1(int fd, __u32 id, __u64 *v)
{
	struct pmc_cpc_sample s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.id = id;
	s.nvals = 1;
	s.vals = (uintptr_t)v;
	return ioctl(fd, PMC_CPC_SAMPLE, &s) < 0 ? -errno : 0;
}

static int cpc_id_op(int fd, unsigned long cmd, __u32 id)
{
	return ioctl(fd, cmd, &id) < 0 ? -errno : 0;
}

/* ---- children ----------------------------------------------------------- */

/* A child that becomes uid (dumpable) and sleeps until killed. */
static pid_t start_sleeper(uid_t uid)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (geteuid() == 0 && become_uid(uid, false, false))
			_exit(2);
		if (write(p[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void stop_child(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* fn(shared, arg) in a child; its exit status, or -1. */
static int in_child(void (*fn)(long *out, long arg), long *out, long arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(out, arg);
		_exit(0);
	}
	return child_status(pid);
}

static int err_name(int err, char *buf, size_t len)
{
	const char *n = err > 0 ? strerrorname_np(err) : NULL;

	if (!err)
		return snprintf(buf, len, "ALLOW");
	if (n)
		return snprintf(buf, len, "DENY(%s)", n);
	return snprintf(buf, len, "DENY(%d)", err);
}

/* 1 when the kernel exports perf_allow_kernel() to modules. */
static int perf_allow_kernel_exported(void)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " __ksymtab_perf_allow_kernel\n") != NULL;
	fclose(f);
	return found;
}

/* ---- /dev/pfcntr ----------------------------------------------------------- */

/* pf_open(), pf_req(), pf_long(): pmc_test_util.h */

/* An EV5 image request (RESTART) of MUX5_ISB_CYC's counters, every CPU. */
static int pf5_restart(int fd)
{
	union pmctrs_ev5 u;

	u.pmctrs_ev5_long = 0;
	u.pmctrs_ev5_select = SEL5_ISB_CYC;
	u.pmctrs_ev5_cpu = PMCTRS_ALL_CPUS;
	return ioctl(fd, PCNT5RESTART, &u.pmctrs_ev5_long) ? -errno : 0;
}

/*
 * EV5 counters in user mode only, not enabled: the contexts (ctxts picks
 * LOGSELECT of the caller or LOGALL), then the events.  0 or -errno.
 */
static int pf5_setup(int fd, long ctxts)
{
	int err = pf_long(fd, PCNT5CTXTS, ctxts);

	return err ?: pf_long(fd, PCNT5MUX, MUX5_ISB_CYC);
}

/* ---- descriptors passed over a unix socket ---------------------------------- */

/* Send one status byte and, if fd >= 0, the descriptor (SCM_RIGHTS); 0 or -errno. */
static int send_fd(int sock, int fd, unsigned char status)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cm;
	struct iovec iov = { &status, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		memset(&cm, 0, sizeof(cm));
		m.msg_control = cm.buf;
		m.msg_controllen = sizeof(cm.buf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

/* What send_fd() sent: the descriptor or -1; the status byte in *status. */
static int recv_fd(int sock, unsigned char *status)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cm;
	struct iovec iov = { status, 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cm.buf, .msg_controllen = sizeof(cm.buf),
	};
	struct cmsghdr *c;
	int fd = -1;

	*status = 0xff;
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * The process a matrix cell is handed a /dev/pfcntr descriptor by (its
 * "owner"): who it is and what it sets up before passing the descriptor.
 */
enum owner {
	OWN_NONE,
	OWN_OTHER_UID,		/* uid OTHER_UID, in the group: LOGSELECT, EV5 user */
	OWN_SAME_UID,		/* uid 65534, in the group: LOGSELECT, EV5 user */
	OWN_ROOT_LOGALL,	/* root: LOGALL of MATRIX_CPU (ONE), EV5 user */
	/* uid 65534, in the group, holding CAP_NET_BIND_SERVICE (dumpable): */
	OWN_SAME_UID_CAP,	/* LOGSELECT, EV5 user */
	OWN_CAP_SLEEPER,	/* no descriptor: a target for /dev/cpc */
	OWN_SLEEPER,		/* the same without the capability */
	OWN_ROOT_RATE,		/* root: the open alone, then on request the rate (below) */
};

/* The owners that send no descriptor: processes to watch. */
static bool owner_sends_fd(enum owner who)
{
	return who != OWN_CAP_SLEEPER && who != OWN_SLEEPER;
}

/* In the owner: its credentials; 0 or -errno. */
static int owner_creds(enum owner who)
{
	switch (who) {
	case OWN_OTHER_UID:
		return become_uid(OTHER_UID, true, false);
	case OWN_SAME_UID:
	case OWN_SLEEPER:
		return become_uid(NOBODY, true, false);
	case OWN_SAME_UID_CAP:
	case OWN_CAP_SLEEPER:
		/*
		 * A same-user process with a capability the cell lacks, as a
		 * service given AmbientCapabilities= is.  Not one perf or
		 * pmcompat look at: only ptrace's rule on capabilities does.
		 */
		return become_uid_cap(NOBODY, true, CAP_NET_BIND_SERVICE);
	default:
		return 0;
	}
}

/* In the owner: open and set up; the descriptor or -errno. */
static int owner_setup(enum owner who)
{
	int fd, err;

	fd = pf_open(who == OWN_ROOT_LOGALL ? PCNTOPENONE : PCNTOPENALL);
	if (fd < 0 || who == OWN_ROOT_RATE)
		return fd;
	err = pf5_setup(fd, who == OWN_ROOT_LOGALL ? PF5_CTXT_ALL_PROC | PF5_CTXT_USER :
			    PF5_CTXT_THIS_PROC | PF5_CTXT_USER);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/*
 * How an owner's descriptor reaches the cell: over a unix socket
 * (SCM_RIGHTS), which the cell receives once it has its credentials; on a
 * kernel without AF_UNIX (the debug lane's has no networking) the root test
 * process takes it from the owner with pidfd_getfd() and the cell inherits
 * it.  Either way the cell holds the owner's open file, all the module sees.
 * Statuses and requests go over pipes.
 */
struct owner_chan {
	pid_t pid;		/* the owner, or -1 */
	int status;		/* the owner's status: 0 (set up) or an errno */
	int up[2];		/* owner -> test process and cell: struct owner_msg, ints */
	int down[2];		/* cell -> owner: requests */
	int sock[2];		/* SCM_RIGHTS, or -1 */
	int fd;			/* the descriptor pidfd_getfd() took, or -1 */
};

struct owner_msg {
	int status;		/* 0 or the errno of the owner's setup */
	int fd;			/* the descriptor's number in the owner, or -1 */
};

static int have_af_unix = -1;	/* transport used: 1 SCM_RIGHTS, 0 pidfd_getfd() */

static void chan_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * In the owner: pinned to MATRIX_CPU, take the credentials, set up the
 * counters (not enabled: interrupts are off from the open), hand the
 * descriptor over, and stay alive, the process counted, until killed.
 * OWN_ROOT_RATE then waits for a request: it sets counter 0 to every 256
 * events and the events (the descriptor's LOGSELECT mark is the cell's by
 * then) and answers with the status.
 */
static void owner_main(enum owner who, struct owner_chan *ch)
{
	struct owner_msg m = { 0, -1 };
	char c;
	int err;

	chan_close(&ch->up[0]);
	chan_close(&ch->down[1]);
	chan_close(&ch->sock[1]);
	err = pin_to_cpu(MATRIX_CPU) ? -errno : owner_creds(who);
	if (!err && owner_sends_fd(who)) {
		m.fd = owner_setup(who);
		err = m.fd < 0 ? m.fd : 0;
	}
	m.status = -err;
	if (m.fd < 0)
		m.fd = -1;
	if (write(ch->up[1], &m, sizeof(m)) != sizeof(m))
		_exit(2);
	if (ch->sock[0] >= 0 && m.fd >= 0 && send_fd(ch->sock[0], m.fd, 0))
		_exit(2);
	if (who == OWN_ROOT_RATE && read(ch->down[0], &c, 1) == 1) {
		err = pf_long(m.fd, PCNT5FREQ, FREQ5_C0_256);
		if (!err)
			err = pf_long(m.fd, PCNT5MUX, MUX5_ISB_CYC);
		err = -err;
		if (write(ch->up[1], &err, sizeof(err)) != sizeof(err))
			_exit(2);
	}
	for (;;)
		pause();
}

/* In the test process (root): start the owner, wait until it is set up. 0 or -1. */
static int owner_start(enum owner who, struct owner_chan *ch)
{
	struct owner_msg m;
	int pidfd;

	ch->pid = -1;
	ch->status = -1;
	ch->fd = -1;
	ch->sock[0] = ch->sock[1] = -1;
	if (pipe2(ch->up, O_CLOEXEC))
		return -1;
	if (pipe2(ch->down, O_CLOEXEC)) {
		chan_close(&ch->up[0]);
		chan_close(&ch->up[1]);
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ch->sock))
		ch->sock[0] = ch->sock[1] = -1;
	have_af_unix = ch->sock[0] >= 0;
	ch->pid = fork();
	if (ch->pid == 0)
		owner_main(who, ch);
	chan_close(&ch->up[1]);
	chan_close(&ch->down[0]);
	chan_close(&ch->sock[0]);
	if (ch->pid < 0 || read(ch->up[0], &m, sizeof(m)) != sizeof(m))
		return -1;
	ch->status = m.status;
	if (m.status || m.fd < 0 || ch->sock[1] >= 0)
		return 0;
	pidfd = syscall(SYS_pidfd_open, ch->pid, 0);
	if (pidfd < 0)
		return -1;
	ch->fd = syscall(SYS_pidfd_getfd, pidfd, m.fd, 0);
	close(pidfd);
	return ch->fd < 0 ? -1 : 0;
}

/* In the cell: the owner's descriptor, or -1. */
static int owner_take_fd(struct owner_chan *ch)
{
	unsigned char st;

	if (ch->sock[1] >= 0)
		return recv_fd(ch->sock[1], &st);
	return ch->fd;
}

/* In the cell: OWN_ROOT_RATE's second step; its status (0 or an errno), or -1. */
static int owner_request(struct owner_chan *ch)
{
	int st;

	if (write(ch->down[1], "s", 1) != 1 || read(ch->up[0], &st, sizeof(st)) != sizeof(st))
		return -1;
	return st;
}

/* In the test process, once the cell is forked: its own copies. */
static void owner_release(struct owner_chan *ch)
{
	chan_close(&ch->up[0]);
	chan_close(&ch->down[1]);
	chan_close(&ch->sock[1]);
	chan_close(&ch->fd);
}

static void owner_stop(struct owner_chan *ch)
{
	owner_release(ch);
	stop_child(ch->pid);
	ch->pid = -1;
}

/* ---- fixture: the udev rule, emulated, and the paranoid level -------- */

FIXTURE(access) {
	int paranoid;			/* saved, or INT_MIN */
	mode_t mode[NNODES];
	gid_t gid[NNODES];
	bool saved[NNODES];
	pid_t other;			/* a sleeper of OTHER_UID, or -1 */
};

static int set_paranoid(int level)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d\n", level);
	return write_file(PARANOID_PATH, buf);
}

FIXTURE_SETUP(access)
{
	struct stat st;
	unsigned int i;

	self->paranoid = INT_MIN;
	self->other = -1;
	for (i = 0; i < NNODES; i++)
		self->saved[i] = false;
	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	ASSERT_EQ(0, read_file_int(PARANOID_PATH, &self->paranoid));
	/* Upstream's default (Debian's is 3); the matrix sets its own. */
	ASSERT_EQ(0, set_paranoid(2));
	/* What the udev rule does, with the test group for pmcompat. */
	for (i = 0; i < NNODES; i++) {
		if (stat(nodes[i].path, &st))
			continue;
		self->mode[i] = st.st_mode & 07777;
		self->gid[i] = st.st_gid;
		self->saved[i] = true;
		ASSERT_EQ(0, chown(nodes[i].path, 0, TEST_GID));
		ASSERT_EQ(0, chmod(nodes[i].path, nodes[i].mode));
	}
	ASSERT_EQ(0, clear_x86_counters());
}

static void limits_restore(void);

FIXTURE_TEARDOWN_PARENT(access)
{
	unsigned int i;

	stop_child(self->other);
	limits_restore();	/* a limits test that failed half-way */
	for (i = 0; i < NNODES; i++) {
		if (!self->saved[i])
			continue;
		EXPECT_EQ(0, chown(nodes[i].path, 0, self->gid[i]));
		EXPECT_EQ(0, chmod(nodes[i].path, self->mode[i]));
	}
	if (self->paranoid != INT_MIN)
		EXPECT_EQ(0, set_paranoid(self->paranoid));
#ifdef ACCESS_X86
	if (!access(_PATH_PCTR, F_OK))
		EXPECT_EQ(0, pctr_clear_all());
#endif
	unlink(SUID_COPY);
}

/* ---- the module's own node modes ---------------------------------------- */

TEST(device_nodes_without_udev_are_root_only_for_writing)
{
	struct stat st;
	unsigned int i;

	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "pmcompat not loaded");
	for (i = 0; i < NNODES; i++) {
		ASSERT_EQ(0, stat(nodes[i].path, &st)) TH_LOG("%s", nodes[i].path);
		EXPECT_EQ(nodes[i].mode, st.st_mode & 07777)
			TH_LOG("%s is %04o, the policy says %04o", nodes[i].path,
			       st.st_mode & 07777, nodes[i].mode);
		EXPECT_EQ(0U, st.st_uid);
		EXPECT_EQ(0U, st.st_gid);
	}
}

/* ---- 1. the permission matrix ------------------------------------------ */

enum op {
	OP_PCTR_U, OP_PCTR_K, OP_PERFMON, OP_CPC_SELF, OP_CPC_SYS,
	OP_CPC_CHILD, OP_CPC_OTHER, OP_CPC_CPU,
	/* /dev/pfcntr, opened by the cell's process */
	OP_PF_SELF_USER, OP_PF_SELF_KERNEL, OP_PF_LOGALL, OP_PF_RATE256,
	/* /dev/pfcntr, a descriptor the cell's process was sent (enum owner) */
	OP_PF_FD_OTHER_MUX, OP_PF_FD_OTHER_ENABLE, OP_PF_FD_SAME_ENABLE,
	OP_PF_FD_ROOT_LOGALL,
	OP_MAIN_N,
	/*
	 * Another process as ptrace read access allows it (the check perf
	 * makes): also the capability rule of the capability LSM, which
	 * every kernel runs: the target's permitted capabilities must be a
	 * subset of the caller's, and both in one user namespace, unless
	 * the caller has CAP_SYS_PTRACE.
	 */
	OP_PF_FD_CAP_OWNER = OP_MAIN_N, OP_CPC_CAP_TARGET, OP_PF_FD_USERNS, OP_CPC_USERNS,
	OP_PTRACE_N,
	/* The rate of 256 set up by root, enabled by the cell (pfm(7)). */
	OP_PF_FD_ROOT_RATE = OP_PTRACE_N,
	OP_N
};

static const char *const op_names[OP_N] = {
	"pctr-user", "pctr-kernel", "perfmon-setup+start", "cpc-self-user",
	"cpc-self-system", "cpc-own-child", "cpc-other-user", "cpc-cpu",
	"pfcntr-self-user", "pfcntr-self-kernel", "pfcntr-logall", "pfcntr-rate-256",
	"pfcntr-fd-other-mux", "pfcntr-fd-other-enable", "pfcntr-fd-same-enable",
	"pfcntr-fd-root-logall",
	"pfcntr-fd-capable-owner", "cpc-capable-same-uid", "pfcntr-fd-userns",
	"cpc-userns-same-uid",
	"pfcntr-fd-root-rate-256",
};

/* Who hands the cell's process its /dev/pfcntr descriptor, if anyone. */
static enum owner op_owner(enum op op)
{
	switch (op) {
	case OP_PF_FD_OTHER_MUX:
	case OP_PF_FD_OTHER_ENABLE:
		return OWN_OTHER_UID;
	case OP_PF_FD_SAME_ENABLE:
		return OWN_SAME_UID;
	case OP_PF_FD_ROOT_LOGALL:
		return OWN_ROOT_LOGALL;
	case OP_PF_FD_CAP_OWNER:
		return OWN_SAME_UID_CAP;
	case OP_CPC_CAP_TARGET:
		return OWN_CAP_SLEEPER;
	case OP_PF_FD_USERNS:
		return OWN_SAME_UID;
	case OP_CPC_USERNS:
		return OWN_SLEEPER;
	case OP_PF_FD_ROOT_RATE:
		return OWN_ROOT_RATE;
	default:
		return OWN_NONE;
	}
}

/* The cell enters a user namespace of its own before it tries. */
static bool op_userns(enum op op)
{
	return op == OP_PF_FD_USERNS || op == OP_CPC_USERNS;
}

/* perf has no rule to compare with (perf_try's answer). */
#define PERF_NA		(-1)

/*
 * /dev/pfcntr: open, then the requests of a pfm(7) program; the first
 * refusal (0 or -errno).  Open ALL for LOGSELECT (the caller wherever it
 * runs, like perf's cpu -1), ONE of MATRIX_CPU, where the cell runs, for
 * LOGALL (like perf's CPU-wide event on that CPU).
 */
static int pf_try(enum op op)
{
	int fd, err;

	fd = pf_open(op == OP_PF_LOGALL ? PCNTOPENONE : PCNTOPENALL);
	if (fd < 0)
		return fd;
	switch (op) {
	case OP_PF_SELF_USER:
		/* The unprivileged EV5 program of pfm(7): user mode only. */
		err = pf5_setup(fd, PF5_CTXT_THIS_PROC | PF5_CTXT_USER);
		break;
	case OP_PF_SELF_KERNEL:
		/*
		 * Kernel mode asked for by name (EV5 contexts).  EV6, which has
		 * no modes, counts user mode only for a caller who may not count
		 * kernel mode (pfm(7) DIFFERENCES; pfcntr_proc_test).
		 */
		err = pf5_setup(fd, PF5_CTXT_THIS_PROC | PF5_CTXT_USER_AND_KERNEL);
		break;
	case OP_PF_LOGALL:
		err = pf5_setup(fd, PF5_CTXT_ALL_PROC | PF5_CTXT_USER);
		break;
	default:	/* OP_PF_RATE256: counter 0 every 256 events */
		err = pf5_setup(fd, PF5_CTXT_THIS_PROC | PF5_CTXT_USER);
		if (!err)
			err = pf_long(fd, PCNT5FREQ, FREQ5_C0_256);
		break;
	}
	if (!err)
		err = pf5_restart(fd);
	close(fd);
	return err;
}

/*
 * On a descriptor the owner set up (counters programmed, not enabled):
 * change what is counted, or enable.
 */
static int pf_fd_try(enum op op, int fd)
{
	if (op == OP_PF_FD_OTHER_MUX)
		return pf_long(fd, PCNT5MUX, MUX5_OTHER);
	return pf_req(fd, PCNTRENABLE);
}

/* pmcompat's answer: 0 or errno (failing to open the node is a denial). */
static int pmc_try(enum op op, pid_t other, pid_t child, pid_t owner, int pf)
{
	int fd, err;

	switch (op) {
#ifdef ACCESS_X86
	case OP_PCTR_U:
	case OP_PCTR_K:
		fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return errno;
		err = -pctr_set_fd(fd, 0, op == OP_PCTR_U ? FN_INSTR_U : FN_INSTR_UK);
		close(fd);
		return err;
	case OP_PERFMON:
		fd = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return errno;
		err = -perfmon_setup_fd(fd, 0, CTL_INSTR_U);
		if (!err)
			err = -perfmon_ctl_fd(fd, PMIOSTART, 0);
		close(fd);
		return err;
#endif
	case OP_PF_SELF_USER:
	case OP_PF_SELF_KERNEL:
	case OP_PF_LOGALL:
	case OP_PF_RATE256:
		return -pf_try(op);
	case OP_PF_FD_OTHER_MUX:
	case OP_PF_FD_OTHER_ENABLE:
	case OP_PF_FD_SAME_ENABLE:
	case OP_PF_FD_ROOT_LOGALL:
	case OP_PF_FD_CAP_OWNER:
	case OP_PF_FD_USERNS:
	case OP_PF_FD_ROOT_RATE:
		return -pf_fd_try(op, pf);
	default:
		break;
	}
	fd = cpc_open_node();
	if (fd < 0)
		return -fd;
	switch (op) {
	case OP_CPC_SELF:
		err = cpc_bind_thread(fd, PMC_CPC_BIND_CURLWP, 0, 0, CPC_COUNT_USER, NULL);
		break;
	case OP_CPC_SYS:
		err = cpc_bind_thread(fd, PMC_CPC_BIND_CURLWP, 0, 0,
				      CPC_COUNT_USER | CPC_COUNT_SYSTEM, NULL);
		break;
	case OP_CPC_CHILD:
		err = cpc_bind_thread(fd, PMC_CPC_BIND_PCTX, child, 0, CPC_COUNT_USER, NULL);
		break;
	case OP_CPC_OTHER:
		err = cpc_bind_thread(fd, PMC_CPC_BIND_PCTX, other, 0, CPC_COUNT_USER, NULL);
		break;
	case OP_CPC_CAP_TARGET:
	case OP_CPC_USERNS:
		err = cpc_bind_thread(fd, PMC_CPC_BIND_PCTX, owner, 0, CPC_COUNT_USER, NULL);
		break;
	default:
		err = cpc_bind_cpu_raw(fd, MATRIX_CPU, CPC_COUNT_USER);
		break;
	}
	close(fd);
	return -err;
}

/*
 * perf_event_open() of the equivalent event: 0 or errno.  A /dev/pfcntr
 * descriptor the cell was sent is compared with the cell's own
 * perf_event_open() of the owner (pid owner): the same question, may this
 * process watch that one.  PERF_NA where perf has no such rule.
 */
static int perf_try(enum op op, pid_t other, pid_t child, pid_t owner)
{
	struct perf_event_attr a;
	pid_t pid = 0;
	int cpu = -1, fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = CNT_TYPE;
	a.config = CNT_CONFIG;
	a.exclude_kernel = 1;
	switch (op) {
	case OP_PCTR_K:
		a.exclude_kernel = 0;
		/* fall through */
	case OP_PCTR_U:
	case OP_PERFMON:
	case OP_CPC_CPU:
	case OP_PF_LOGALL:
	case OP_PF_FD_ROOT_LOGALL:
		pid = -1;
		cpu = MATRIX_CPU;
		break;
	case OP_CPC_SYS:
	case OP_PF_SELF_KERNEL:
		a.exclude_kernel = 0;
		break;
	case OP_CPC_CHILD:
		pid = child;
		break;
	case OP_CPC_OTHER:
		pid = other;
		break;
	case OP_PF_FD_OTHER_MUX:
	case OP_PF_FD_OTHER_ENABLE:
	case OP_PF_FD_SAME_ENABLE:
	case OP_PF_FD_CAP_OWNER:
	case OP_CPC_CAP_TARGET:
	case OP_PF_FD_USERNS:
	case OP_CPC_USERNS:
		pid = owner;
		break;
	case OP_PF_FD_ROOT_RATE:
	case OP_PF_RATE256:
		/*
		 * No perf comparison: perf has no rate rule (any period, within
		 * perf_event_max_sample_rate).  The rate of 256 is pmcompat's
		 * own rule, Tru64's superuser rate: CAP_PERFMON/CAP_SYS_ADMIN.
		 */
		return PERF_NA;
	default:
		break;
	}
	fd = sys_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* What the policy says pmcompat answers. */
static int policy(enum op op, enum cred c, int level, bool kernel_exported)
{
	bool cap = cred_has_cap(c), node = c == CR_ROOT || cred_in_group(c);

	switch (op) {
	case OP_PCTR_U:
	case OP_PCTR_K:
	case OP_PERFMON:
		/* 0640: only root opens them for writing. */
		return c == CR_ROOT ? 0 : EACCES;
	/* /dev/pfcntr: 0640, opened for reading; refusals are EPERM. */
	case OP_PF_SELF_USER:
		return node ? 0 : EACCES;
	case OP_PF_SELF_KERNEL:
		if (!node)
			return EACCES;
		return cap || (kernel_exported && level <= 1) ? 0 : EPERM;
	case OP_PF_LOGALL:
	case OP_PF_RATE256:
		if (!node)
			return EACCES;
		return cap ? 0 : EPERM;
	/* A descriptor sent to the cell: the node's mode does not matter. */
	case OP_PF_FD_OTHER_MUX:
	case OP_PF_FD_OTHER_ENABLE:	/* the owner is another user */
	case OP_PF_FD_ROOT_LOGALL:	/* whole CPUs */
		return cap ? 0 : EPERM;
	case OP_PF_FD_SAME_ENABLE:	/* the cell's uid and gid, dumpable */
		return 0;
	/*
	 * The owner holds a capability: only CAP_PERFMON (or CAP_SYS_PTRACE)
	 * watches it, as in perf.  In a user namespace of its own the cell
	 * has no capability in the initial one and is another namespace's:
	 * nobody watches the owner.
	 */
	case OP_PF_FD_CAP_OWNER:
		return cap ? 0 : EPERM;
	case OP_PF_FD_USERNS:
		return EPERM;
	case OP_CPC_USERNS:
		return EACCES;
	/*
	 * pfm(7): the check is made at every request that enables counters,
	 * whoever set them up, and the rate of 256 needs CAP_PERFMON.
	 */
	case OP_PF_FD_ROOT_RATE:
		return cap ? 0 : EPERM;
	default:
		break;
	}
	if (!node)
		return EACCES;			/* /dev/cpc is 0660 */
	switch (op) {
	case OP_CPC_SELF:
	case OP_CPC_CHILD:
		return 0;
	case OP_CPC_SYS:
		return cap || (kernel_exported && level <= 1) ? 0 : EACCES;
	default:
		return cap ? 0 : EACCES;
	}
}

struct cell {
	int pmc, perf, setup;
	int owner;		/* the owner's status (0: set up), or -1;
				   1000 + errno: unshare(CLONE_NEWUSER) failed */
	int perf_self;		/* in a user namespace: perf on the cell itself */
};

/* 1 when this kernel has user namespaces (the debug lane's has none). */
static int have_userns(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) ? 1 : 0);
	return child_status(pid) == 0;
}

static void run_cell(struct cell *res, enum op op, enum cred c, pid_t other)
{
	struct owner_chan ch = { .pid = -1 };
	pid_t pid, child = -1, owner = -1;

	res->setup = -1;
	res->owner = -1;
	if (op_owner(op) != OWN_NONE) {
		if (owner_start(op_owner(op), &ch) || ch.status) {
			res->owner = ch.status;
			owner_stop(&ch);
			return;
		}
		owner = ch.pid;
		res->owner = 0;
	}
	pid = fork();
	if (pid == 0) {
		int pf = -1, st;

		if (pin_to_cpu(MATRIX_CPU) || become(c))
			_exit(2);
		if (owner > 0 && owner_sends_fd(op_owner(op))) {
			pf = owner_take_fd(&ch);
			if (pf < 0)
				_exit(4);
		}
		if (op == OP_PF_FD_ROOT_RATE) {
			/* Mark itself (user mode), then root sets the rate and events. */
			if (pf_long(pf, PCNT5CTXTS, PF5_CTXT_THIS_PROC | PF5_CTXT_USER))
				_exit(4);
			st = owner_request(&ch);
			res->owner = st;
			if (st)
				_exit(4);
		}
		if (op_userns(op)) {
			if (unshare(CLONE_NEWUSER)) {
				res->owner = 1000 + errno;
				_exit(5);
			}
			/* The control: perf works there, on the cell itself. */
			res->perf_self = perf_try(OP_CPC_SELF, other, child, owner);
		}
		if (op == OP_CPC_CHILD) {
			child = fork();
			if (child == 0) {
				for (;;)
					pause();
			}
			if (child < 0)
				_exit(3);
		}
		res->pmc = pmc_try(op, other, child, owner, pf);
		res->perf = perf_try(op, other, child, owner);
		stop_child(child);
		res->setup = 0;
		_exit(0);
	}
	owner_release(&ch);
	if (child_status(pid) != 0)
		res->setup = -1;
	owner_stop(&ch);
}

/*
 * Every cell of rows [first, last) at every level: what pmcompat and perf
 * answer, printed; a failure wherever pmcompat allows what perf denies (at
 * levels 2 and below) or departs from the policy.
 */
static void run_matrix(struct __test_metadata *_metadata, FIXTURE_DATA(access) *self,
		       unsigned int first, unsigned int last)
{
	/*
	 * 3 (Debian's default: perf refuses every unprivileged event) is
	 * printed for information only: the policy lets group members count
	 * their own threads whatever the level.
	 */
	static const int all_levels[] = { 2, 1, 0, -1, 3 };
	/*
	 * The matrix is about four fifths of this program's time, most in
	 * the slow lanes.  pmcompat's answer depends on the level only
	 * through perf's kernel rule (1 and below alike) and level 3; perf's
	 * answers are the same code on the stock and RT kernels.  So the
	 * stock lane runs every level, the debug lane (6.12, where the
	 * kernel rule is perf's own) 2, 1 and 3, and the RT lane 2 and 3.
	 */
	static const int debug_levels[] = { 2, 1, 3 }, rt_levels[] = { 2, 3 };
	const char *lane = getenv("PMCOMPAT_LANE");
	const int *levels = all_levels;
	unsigned int nlevels = sizeof(all_levels) / sizeof(all_levels[0]);
	struct cell *res = shared_zone(sizeof(*res));
	char pmc[32], perf[32], want[32];
	int kexp = perf_allow_kernel_exported(), userns = have_userns();
	unsigned int l, c, o;
	int expected;
	bool more;

	ASSERT_NE(NULL, res);
	if (self->other < 0)
		self->other = start_sleeper(OTHER_UID);
	ASSERT_LT(0, self->other);
	if (lane && !strcmp(lane, "debug")) {
		levels = debug_levels;
		nlevels = sizeof(debug_levels) / sizeof(debug_levels[0]);
	} else if (lane && !strcmp(lane, "rt")) {
		levels = rt_levels;
		nlevels = sizeof(rt_levels) / sizeof(rt_levels[0]);
	}
	ksft_print_msg("permission matrix (kernel %s perf_allow_kernel(), %s user namespaces), %u paranoid levels (%s lane):\n",
		       kexp ? "exports" : "does not export", userns ? "has" : "has no",
		       nlevels, lane && *lane ? lane : "unnamed");
	for (l = 0; l < nlevels; l++) {
		ASSERT_EQ(0, set_paranoid(levels[l]));
		for (o = first; o < last; o++) {
			for (c = 0; c < CR_N; c++) {
#ifndef ACCESS_X86
				if (o <= OP_PERFMON) {
					if (!l && !c)
						ksft_print_msg("%-23s n/a: %s\n", op_names[o], X86_ONLY);
					continue;
				}
#endif
				if (op_userns(o) && !userns) {
					if (!l)
						ksft_print_msg("%-23s %-26s n/a: no user namespaces in this kernel\n",
							       op_names[o], cred_names[c]);
					continue;
				}
				memset(res, 0, sizeof(*res));
				run_cell(res, o, c, self->other);
				ASSERT_EQ(0, res->setup)
					TH_LOG("%s as %s: the child could not take the credentials%s (owner status %d)",
					       op_names[o], cred_names[c],
					       op_owner(o) ? " or get the descriptor" : "", res->owner);
				ASSERT_EQ(0, clear_x86_counters());
				err_name(res->pmc, pmc, sizeof(pmc));
				if (res->perf == PERF_NA)
					snprintf(perf, sizeof(perf), "n/a (no such rule)");
				else
					err_name(res->perf, perf, sizeof(perf));
				expected = policy(o, c, levels[l], kexp);
				err_name(expected, want, sizeof(want));
				more = !res->pmc && res->perf && res->perf != PERF_NA;
				ksft_print_msg("%-23s %-26s paranoid=%2d pmcompat=%-14s perf=%s%s\n",
					       op_names[o], cred_names[c], levels[l], pmc, perf,
					       more ?
					       (levels[l] > 2 ? "  <-- more than perf (level 3, information)" :
						"  <-- SECURITY BUG") :
					       res->pmc != expected ? "  <-- not the policy" : "");
				EXPECT_FALSE(more && levels[l] <= 2)
					TH_LOG("SECURITY BUG: %s as %s at paranoid %d: pmcompat allows, perf says %s",
					       op_names[o], cred_names[c], levels[l], perf);
				EXPECT_EQ(expected, res->pmc)
					TH_LOG("%s as %s at paranoid %d: pmcompat %s, policy %s",
					       op_names[o], cred_names[c], levels[l], pmc, want);
				/* perf refuses the owner, not everything, in the namespace. */
				if (op_userns(o) && levels[l] <= 2)
					EXPECT_EQ(0, res->perf_self)
						TH_LOG("%s as %s: perf on itself in the namespace: %s",
						       op_names[o], cred_names[c],
						       strerror(res->perf_self));
			}
		}
	}
	if (have_af_unix >= 0)
		ksft_print_msg("descriptors were passed %s\n", have_af_unix ?
			       "over a unix socket (SCM_RIGHTS)" :
			       "by pidfd_getfd() and inheritance (no AF_UNIX in this kernel)");
	munmap(res, sizeof(*res));
}

TEST_F_TIMEOUT(access, permission_matrix_never_allows_what_perf_denies, 600)
{
	NEED_PMU();
	run_matrix(_metadata, self, 0, OP_MAIN_N);
}

/*
 * Another process, with what ptrace read access asks beyond uids and
 * dumpability (perf asks ptrace): a target holding a capability the caller
 * lacks, and a caller in a user namespace of its own.
 */
TEST_F_TIMEOUT(access, permission_matrix_another_process_as_ptrace_read_allows, 300)
{
	NEED_PMU();
	run_matrix(_metadata, self, OP_MAIN_N, OP_PTRACE_N);
}

/*
 * Root sets counter 0 to every 256 events on the counters of a descriptor
 * whose LOGSELECT mark is the cell's own process; the cell enables them.
 * pfm(7): the check is made "at every request that enables counters,
 * whoever set them up", and the rate needs CAP_PERFMON.  No perf rule.
 */
static void rate_enable_counts(long *out, long arg)
{
	struct owner_chan ch;
	struct pfcntrs_ev5 c, *cp = &c;
	int ifd = -1, pf;
	pid_t pid;

#ifdef ACCESS_X86
	ifd = open(FAKEPMU_INJECT, O_WRONLY | O_CLOEXEC);
	if (ifd < 0)
		_exit(2);
#endif
	if (pin_to_cpu(MATRIX_CPU) || owner_start(OWN_ROOT_RATE, &ch) || ch.status)
		_exit(2);
	pid = fork();
	if (pid == 0) {
		if (become_uid(NOBODY, true, false))
			_exit(2);
		pf = owner_take_fd(&ch);
		if (pf < 0 || pf_long(pf, PCNT5CTXTS, PF5_CTXT_THIS_PROC | PF5_CTXT_USER) ||
		    owner_request(&ch))
			_exit(3);
		out[0] = -pf_req(pf, PCNTRENABLE);
		if (count_user_events(ifd))
			_exit(4);
		out[1] = ioctl(pf, PCNT5GETCNT, &cp) ? -errno : (long)c.pf_cntr0;
		_exit(0);
	}
	owner_release(&ch);
	out[2] = child_status(pid);
	owner_stop(&ch);
}

TEST_F_TIMEOUT(access, permission_matrix_rate_256_set_up_by_root_is_checked_at_enable, 300)
{
	long *out = shared_zone(4096);

	NEED_PMU();
	ASSERT_NE(NULL, out);
	run_matrix(_metadata, self, OP_PTRACE_N, OP_N);
	/* What the enable gives: counter 0 interrupts every 256 events. */
	memset(out, 0, 4096);
	ASSERT_EQ(0, in_child(rate_enable_counts, out, 0));
	ASSERT_EQ(0, out[2]);
	if (!out[0])
		TH_LOG("uid 65534 enabled root's rate of 256: its events gave %ld counter 0 interrupts",
		       out[1]);
	EXPECT_EQ(EPERM, out[0]);
	munmap(out, 4096);
}

/*
 * The rate of 256 on /dev/pfcntr (EV5 PCNT5FREQ 3, EV4 counter 1 with
 * iccsr_pc1): Tru64 asked superuser privilege for it; pmcompat asks
 * CAP_PERFMON or CAP_SYS_ADMIN, whatever the uid.  perf has no such rule,
 * so there is nothing to compare with: this checks the rule alone, for
 * capabilities the matrix's credentials do not cover.
 */
enum {
	RT_NONE, RT_PERFMON, RT_SYS_ADMIN, RT_SYS_PTRACE, RT_ROOT_NO_PERFMON, RT_ROOT, RT_N
};

static const char *const rt_names[RT_N] = {
	"uid65534+group", "uid65534+group+CAP_PERFMON", "uid65534+group+CAP_SYS_ADMIN",
	"uid65534+group+CAP_SYS_PTRACE", "root without CAP_PERFMON/CAP_SYS_ADMIN", "root",
};

#ifdef ACCESS_X86
/* An EV4 program in LOGSELECT: counter 0 instructions, counter 1 branch misses. */
static int pf4_try(bool fast)
{
	struct iccsr r;
	int fd, err;

	memset(&r, 0, sizeof(r));
	r.iccsr_mux0 = PF_ISSUES;
	r.iccsr_mux1 = PF_BRANCHMISS;
	r.iccsr_pc1 = fast ? PF_C1_INT_EVERY_256 : PF_C1_INT_EVERY_4096;
	fd = pf_open(PCNTOPENALL);
	if (fd < 0)
		return fd;
	err = pf_req(fd, PCNTLOGSELECT);
	if (!err)
		err = ioctl(fd, PCNTSETMUX, &r) ? -errno : 0;
	if (!err)
		err = pf_req(fd, PCNTRENABLE);
	close(fd);
	return err;
}
#endif

/*
 * out[0]: the EV5 program at 256 (matrix row pfcntr-rate-256); out[1]: EV4
 * with counter 1 every 2^8; out[2]: the same EV4 program at 2^12, which
 * needs only kernel mode (EV4 always counts it).  errno or 0 each.
 */
static void rate_child(long *out, long who)
{
	int err = 0;

	if (pin_to_cpu(MATRIX_CPU))
		_exit(2);
	switch (who) {
	case RT_NONE:
		err = become_uid_cap(NOBODY, true, -1);
		break;
	case RT_PERFMON:
		err = become_uid_cap(NOBODY, true, CAP_PERFMON);
		break;
	case RT_SYS_ADMIN:
		err = become_uid_cap(NOBODY, true, CAP_SYS_ADMIN);
		break;
	case RT_SYS_PTRACE:
		err = become_uid_cap(NOBODY, true, CAP_SYS_PTRACE);
		break;
	case RT_ROOT_NO_PERFMON:
		err = caps_drop(CAP_PERFMON, CAP_SYS_ADMIN);
		break;
	default:
		break;
	}
	if (err)
		_exit(3);
	out[0] = -pf_try(OP_PF_RATE256);
#ifdef ACCESS_X86
	out[1] = -pf4_try(true);
	out[2] = -pf4_try(false);
#endif
}

TEST_F(access, pfcntr_rate_256_needs_cap_perfmon_or_cap_sys_admin)
{
	long *out = shared_zone(4096);
	char g0[32], g1[32], g2[32], want[32];
	bool cap;
	int who;

	NEED_PMU();
	ASSERT_NE(NULL, out);
#ifndef ACCESS_X86
	ksft_print_msg("EV4 (counter 1 every 2^8 and 2^12) not tried: its counter 1 events (cache and branch misses) are none QEMU's arm64 PMU counts\n");
#endif
	/* Where the kernel lets a module ask perf, members may count kernel mode. */
	ASSERT_EQ(0, set_paranoid(1));
	for (who = 0; who < RT_N; who++) {
		memset(out, 0, 4096);
		ASSERT_EQ(0, in_child(rate_child, out, who)) TH_LOG("%s", rt_names[who]);
		cap = who == RT_PERFMON || who == RT_SYS_ADMIN || who == RT_ROOT;
		err_name(out[0], g0, sizeof(g0));
		err_name(out[1], g1, sizeof(g1));
		err_name(out[2], g2, sizeof(g2));
		err_name(cap ? 0 : EPERM, want, sizeof(want));
#ifdef ACCESS_X86
		ksft_print_msg("rate 256 as %-38s EV5 %-12s EV4 counter 1 %-12s policy %-12s (EV4 at 2^12: %s)\n",
			       rt_names[who], g0, g1, want, g2);
#else
		ksft_print_msg("rate 256 as %-38s EV5 %-12s policy %-12s\n", rt_names[who], g0, want);
#endif
		EXPECT_EQ(cap ? 0 : EPERM, out[0])
			TH_LOG("EV5 rate 256 as %s: %s", rt_names[who], strerror(out[0]));
#ifndef ACCESS_X86
		continue;
#endif
		EXPECT_EQ(cap ? 0 : EPERM, out[1])
			TH_LOG("EV4 counter 1 every 2^8 as %s: %s", rt_names[who],
			       strerror(out[1]));
		/*
		 * The same program at the slow rate needs nothing: EV4 counts
		 * user mode only for a caller who may not count kernel mode
		 * (pfm(7) DIFFERENCES; pfcntr_proc_test checks the modes).
		 */
		EXPECT_EQ(0, out[2])
			TH_LOG("EV4 at 2^12 as %s: %s", rt_names[who], strerror(out[2]));
	}
	munmap(out, 4096);
}

/* ---- 2. the overflow signal is SIGEMT, EMT_CPCOVF, nothing else ------- */

#define SIG_MAX	8
static volatile sig_atomic_t sig_count;
static volatile sig_atomic_t sig_no[SIG_MAX], sig_code[SIG_MAX];
static void *volatile sig_addr[SIG_MAX];

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int n = sig_count;

	if (n < SIG_MAX) {
		sig_no[n] = sig;
		sig_code[n] = si->si_code;
		sig_addr[n] = si->si_addr;
	}
	sig_count = n + 1;
}

static int catch_signal(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	return sigaction(sig, &sa, NULL);
}

/* Wait (2 s at most) for n signals; how many came. */
static int wait_signals(int n)
{
	struct timespec ts = { 0, 1000000 };
	int ms = 2000;

	while (sig_count < n && ms-- > 0)
		nanosleep(&ts, NULL);
	return sig_count;
}

static const int bad_signals[][2] = {
	{ SIGSEGV, SEGV_MAPERR },	/* the reproducer of the injection hole */
	{ SIGSEGV, 2 },
	{ SIGBUS, BUS_ADRERR },
	{ SIGILL, ILL_ILLOPC },
	{ SIGUSR1, EMT_CPCOVF_NR },
	{ SIGEMT_NR, 1 },
	{ SIGEMT_NR, SI_USER },
	{ SIGEMT_NR, SI_QUEUE },
	{ SIGKILL, 1 },
	{ 64, EMT_CPCOVF_NR },
	{ -1, EMT_CPCOVF_NR },
	{ SIGEMT_NR, 3 },
};
#define NBAD	(sizeof(bad_signals) / sizeof(bad_signals[0]))

/*
 * out[i]: the bind error of bad_signals[i]; out[NBAD + i]: the signals that
 * came when a bind was (wrongly) taken and its counter overflowed, and
 * out[2 * NBAD + i] the first one's signo << 16 | si_code.
 */
static void bad_signal_binds(long *out, long arg)
{
	struct bind_req q = {
		.scope = PMC_CPC_BIND_CURLWP, .type = CNT_TYPE, .config = CNT_CONFIG,
		.rflags = CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, .preset = OVF_PRESET,
	};
	unsigned int i;
	int fd, s;

	if (pin_to_cpu(OVF_CPU))
		_exit(2);
	for (s = 1; s < 65; s++)
		if (s != SIGKILL && s != SIGSTOP)
			catch_signal(s);
	fd = cpc_open_node();
	if (fd < 0)
		_exit(3);
	for (i = 0; i < NBAD; i++) {
		q.signo = bad_signals[i][0];
		q.si_code = bad_signals[i][1];
		out[i] = -cpc_bind_req(fd, &q, NULL);
		if (out[i])
			continue;
		/* Taken: show what a caller could make the kernel send. */
		if (bad_signals[i][0] == SIGKILL) {	/* would end the report */
			cpc_id_op(fd, PMC_CPC_RELE, 0);
			continue;
		}
		sig_count = 0;
		overflow_here();
		out[NBAD + i] = wait_signals(1);
		out[2 * NBAD + i] = (long)sig_no[0] << 16 | sig_code[0];
		cpc_id_op(fd, PMC_CPC_RELE, 0);
	}
	/* Without overflow requests the fields must still be 0 or SIGEMT's. */
	q.rflags = CPC_COUNT_USER;
	q.signo = SIGSEGV;
	q.si_code = SEGV_MAPERR;
	out[3 * NBAD] = -cpc_bind_req(fd, &q, NULL);
	close(fd);
}

TEST_F(access, overflow_signal_cannot_be_chosen_by_the_caller)
{
	long *out = shared_zone(4096);
	unsigned int i;

	NEED_PMU();
	ASSERT_NE(NULL, out);
	memset(out, 0, 4096);
	ASSERT_EQ(0, in_child(bad_signal_binds, out, 0));
	for (i = 0; i < NBAD; i++) {
		EXPECT_EQ(EINVAL, out[i])
			TH_LOG("signo %d si_code %d: bind gave %s%s", bad_signals[i][0],
			       bad_signals[i][1], out[i] ? strerror(out[i]) : "success",
			       out[NBAD + i] ? "; SECURITY BUG: its overflow sent that signal" : "");
		if (!out[i] && out[NBAD + i])
			TH_LOG("  delivered: signal %ld si_code %ld", out[2 * NBAD + i] >> 16,
			       out[2 * NBAD + i] & 0xffff);
	}
	EXPECT_EQ(EINVAL, out[3 * NBAD])
		TH_LOG("SIGSEGV/SEGV_MAPERR without an overflow request: %s",
		       out[3 * NBAD] ? strerror(out[3 * NBAD]) : "taken");
	munmap(out, 4096);
}

/* out[0]: bind error, out[1]: signals, out[2]: signo, out[3]: si_code. */
static void good_signal_bind(long *out, long arg)
{
	struct bind_req q = {
		.scope = PMC_CPC_BIND_CURLWP, .type = CNT_TYPE, .config = CNT_CONFIG,
		.rflags = CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, .preset = OVF_PRESET,
		.signo = arg ? SIGEMT_NR : 0, .si_code = arg ? EMT_CPCOVF_NR : 0,
	};
	int fd;

	if (pin_to_cpu(OVF_CPU) || catch_signal(SIGEMT_NR))
		_exit(2);
	fd = cpc_open_node();
	if (fd < 0)
		_exit(3);
	out[0] = -cpc_bind_req(fd, &q, NULL);
	if (!out[0]) {
		sig_count = 0;
		overflow_here();
		out[1] = wait_signals(1);
		out[2] = sig_no[0];
		out[3] = sig_code[0];
	}
	close(fd);
}

TEST_F(access, overflow_signal_is_sigemt_emt_cpcovf_with_0_0_or_40_2)
{
	long *out = shared_zone(4096);
	int arg;

	NEED_PMU();
	NEED_EXACT_OVERFLOW();
	ASSERT_NE(NULL, out);
	for (arg = 0; arg < 2; arg++) {
		memset(out, 0, 4096);
		ASSERT_EQ(0, in_child(good_signal_bind, out, arg));
		EXPECT_EQ(0, out[0]) TH_LOG("signo/si_code %s: %s", arg ? "40/2" : "0/0",
					    strerror(out[0]));
		EXPECT_EQ(1, out[1]);
		EXPECT_EQ(SIGEMT_NR, out[2]);
		EXPECT_EQ(EMT_CPCOVF_NR, out[3]);
	}
	munmap(out, 4096);
}

/* ---- 3. a target that execs a setuid program -------------------------- */

/*
 * The setuid copy of this program: report the effective uid, then inject
 * 1000 user-mode instructions on its own CPU on each 'i'.  Runs before
 * main(), from the exec in exec_target().
 */
__attribute__((constructor))
static void suid_helper(int argc, char **argv, char **envp)
{
	char c, cmd[128];
	int in, ack, inj;

	if (argc != 6 || strcmp(argv[1], SUID_ARG))
		return;
	in = atoi(argv[2]);
	ack = atoi(argv[3]);
	inj = atoi(argv[4]);
	c = geteuid() == 0 ? 'R' : 'r';
	if (write(ack, &c, 1) != 1)
		_exit(1);
	snprintf(cmd, sizeof(cmd), "cpu=%s event=0x%x count=1000 mode=user ip=0x400200\n",
		 argv[5], EV_INSTR);
	while (read(in, &c, 1) == 1 && c == 'i') {
		c = write(inj, cmd, strlen(cmd)) == (ssize_t)strlen(cmd) ? 'k' : 'e';
		if (write(ack, &c, 1) != 1)
			break;
	}
	_exit(0);
}

/* Copy this program to SUID_COPY, setuid root; 0 or -errno. */
static int make_suid_copy(void)
{
	char buf[65536];
	ssize_t n;
	int in, out, err = 0;

	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	unlink(SUID_COPY);
	out = open(SUID_COPY, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (out < 0) {
		close(in);
		return -errno;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			err = -EIO;
			break;
		}
	close(in);
	if (close(out) || n < 0)
		err = err ?: -errno;
	if (!err && (chown(SUID_COPY, 0, 0) || chmod(SUID_COPY, 04755)))
		err = -errno;
	return err;
}

enum {
	EX_BIND, EX_BEFORE_ERR, EX_BEFORE, EX_EUID, EX_AT_EXEC_ERR, EX_AT_EXEC,
	EX_AFTER_ERR, EX_AFTER, EX_RESTART, EX_ENABLE, EX_LAST_ERR, EX_LAST, EX_INJ, EX_N
};

static char target_do(int cmd, int ack, char c)
{
	char r = 0;

	if (write(cmd, &c, 1) != 1 || read(ack, &r, 1) != 1)
		return 0;
	return r;
}

/*
 * As uid 65534 in the group: bind a child, let it count, make it exec the
 * setuid copy, then try to count the new image.
 */
static void exec_target(long *out, long injfd)
{
	int cmd[2], ack[2], fd;
	char c, a_in[16], a_ack[16], a_inj[16], a_cpu[16];
	__u32 id = 0;
	__u64 v;
	pid_t t;

	if (become_uid(NOBODY, true, false) || pipe(cmd) || pipe(ack))
		_exit(2);
	t = fork();
	if (t == 0) {
		char line[128];

		close(cmd[1]);
		close(ack[0]);
		if (pin_to_cpu(OVF_CPU))
			_exit(2);
		snprintf(line, sizeof(line), "cpu=%d event=0x%x count=100 mode=user ip=0x400100\n",
			 OVF_CPU, EV_INSTR);
		while (read(cmd[0], &c, 1) == 1) {
			if (c == 'i') {
				c = write(injfd, line, strlen(line)) == (ssize_t)strlen(line) ?
				    'k' : 'e';
				if (write(ack[1], &c, 1) != 1)
					_exit(3);
			} else if (c == 'x') {
				snprintf(a_in, sizeof(a_in), "%d", cmd[0]);
				snprintf(a_ack, sizeof(a_ack), "%d", ack[1]);
				snprintf(a_inj, sizeof(a_inj), "%ld", injfd);
				snprintf(a_cpu, sizeof(a_cpu), "%d", OVF_CPU);
				execl(SUID_COPY, "access_test", SUID_ARG, a_in, a_ack, a_inj,
				      a_cpu, (char *)NULL);
				_exit(4);
			}
		}
		_exit(0);
	}
	close(cmd[0]);
	close(ack[1]);
	fd = cpc_open_node();
	out[EX_BIND] = fd < 0 ? -fd : -cpc_bind_thread(fd, PMC_CPC_BIND_PCTX, t, 0,
						       CPC_COUNT_USER, &id);
	out[EX_INJ] = target_do(cmd[1], ack[0], 'i');
	out[EX_BEFORE_ERR] = -cpc_sample1(fd, id, &v);
	out[EX_BEFORE] = v;
	c = 'x';
	if (write(cmd[1], &c, 1) == 1 && read(ack[0], &c, 1) == 1)
		out[EX_EUID] = c;
	v = ~0ULL;
	out[EX_AT_EXEC_ERR] = -cpc_sample1(fd, id, &v);
	out[EX_AT_EXEC] = v;
	out[EX_INJ] |= (long)target_do(cmd[1], ack[0], 'i') << 8;
	v = ~0ULL;
	out[EX_AFTER_ERR] = -cpc_sample1(fd, id, &v);
	out[EX_AFTER] = v;
	out[EX_RESTART] = -cpc_id_op(fd, PMC_CPC_RESTART, id);
	out[EX_ENABLE] = -cpc_id_op(fd, PMC_CPC_ENABLE, id);
	out[EX_INJ] |= (long)target_do(cmd[1], ack[0], 'i') << 16;
	v = ~0ULL;
	out[EX_LAST_ERR] = -cpc_sample1(fd, id, &v);
	out[EX_LAST] = v;
	close(cmd[1]);
	kill(t, SIGKILL);
	waitpid(t, NULL, 0);
	close(fd);
}

TEST_F(access, binding_of_a_process_dies_when_it_execs_a_setuid_program)
{
	long *out = shared_zone(4096);
	int injfd;

	NEED_INJECTION("the target's instructions are injected on its CPU, before and after its exec of a setuid copy, through a descriptor it inherits");
	ASSERT_NE(NULL, out);
	memset(out, 0, 4096);
	ASSERT_EQ(0, set_paranoid(2));
	ASSERT_EQ(0, make_suid_copy());
	injfd = open(FAKEPMU_INJECT, O_WRONLY);		/* inherited, across exec too */
	ASSERT_LE(0, injfd);
	ASSERT_EQ(0, in_child(exec_target, out, injfd));
	close(injfd);
	ASSERT_EQ(0, out[EX_BIND]) TH_LOG("binding its own child: %s", strerror(out[EX_BIND]));
	ASSERT_EQ('k' | 'k' << 8 | 'k' << 16, out[EX_INJ]) TH_LOG("injections: %lx", out[EX_INJ]);
	EXPECT_EQ(0, out[EX_BEFORE_ERR]);
	EXPECT_EQ(100, out[EX_BEFORE]);
	ASSERT_EQ('R', out[EX_EUID]) TH_LOG("the setuid copy did not run as root");
	/* The counters stopped at the exec: the new image is never counted. */
	if (!out[EX_AT_EXEC_ERR])
		EXPECT_EQ(100, out[EX_AT_EXEC]);
	if (!out[EX_AFTER_ERR])
		EXPECT_EQ(100, out[EX_AFTER])
			TH_LOG("SECURITY BUG: the setuid image's events were counted");
	EXPECT_EQ(ESRCH, out[EX_RESTART])
		TH_LOG("cpc_set_restart after the exec: %s",
		       out[EX_RESTART] ? strerror(out[EX_RESTART]) : "success");
	EXPECT_EQ(ESRCH, out[EX_ENABLE])
		TH_LOG("cpc_enable after the exec: %s",
		       out[EX_ENABLE] ? strerror(out[EX_ENABLE]) : "success");
	if (!out[EX_LAST_ERR])
		EXPECT_EQ(100, out[EX_LAST])
			TH_LOG("SECURITY BUG: counted the setuid image after restart/enable");
	munmap(out, 4096);
}

/* Overflow notification is for one's own threads only. */
static void overflow_on_other(long *out, long arg)
{
	struct bind_req q = {
		.scope = PMC_CPC_BIND_PCTX, .type = CNT_TYPE, .config = CNT_CONFIG,
		.rflags = CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, .preset = UINT64_MAX - 9,
		.signo = SIGEMT_NR, .si_code = EMT_CPCOVF_NR,
	};
	pid_t t;
	int fd;

	if (arg && become_uid(NOBODY, true, false))
		_exit(2);
	t = start_sleeper(arg ? NOBODY : OTHER_UID);
	fd = cpc_open_node();
	if (t < 0 || fd < 0)
		_exit(3);
	q.pid = t;
	out[0] = -cpc_bind_req(fd, &q, NULL);
	q.signo = 0;
	q.si_code = 0;
	out[1] = -cpc_bind_req(fd, &q, NULL);
	/* Without the overflow request, the same bind is fine. */
	q.rflags = CPC_COUNT_USER;
	out[2] = -cpc_bind_req(fd, &q, NULL);
	stop_child(t);
	close(fd);
}

TEST_F(access, overflow_request_on_another_process_is_enotsup)
{
	long *out = shared_zone(4096);
	int who;

	NEED_PMU();
	ASSERT_NE(NULL, out);
	for (who = 0; who < 2; who++) {
		memset(out, 0, 4096);
		ASSERT_EQ(0, in_child(overflow_on_other, out, who));
		EXPECT_EQ(ENOTSUP, out[0]) TH_LOG("%s: %s", who ? "uid 65534" : "root",
						  strerror(out[0]));
		EXPECT_EQ(ENOTSUP, out[1]) TH_LOG("%s: %s", who ? "uid 65534" : "root",
						  strerror(out[1]));
		EXPECT_EQ(0, out[2]) TH_LOG("%s: %s", who ? "uid 65534" : "root",
					    strerror(out[2]));
	}
	munmap(out, 4096);
}

/* ---- 4. si_addr of user-only counters ----------------------------------- */

/*
 * out[0] bind error, out[1] signals, out[2] si_addr.  arg: 0 user-only
 * counter, user-mode injection at a kernel-looking ip; 1 the same at a user
 * ip; 2 a user+system counter, kernel-mode injection at a kernel ip; 3 a
 * CPU binding, user-only, user-mode injection at a kernel-looking ip; 4 a
 * user-only counter whose interrupt lands in the kernel (skid: user-mode
 * events, kernel context, a kernel ip).
 */
static void siaddr_child(long *out, long arg)
{
	struct bind_req q = {
		.scope = PMC_CPC_BIND_CURLWP, .type = CNT_TYPE, .config = CNT_CONFIG,
		.rflags = CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, .preset = UINT64_MAX - 9,
		.signo = SIGEMT_NR, .si_code = EMT_CPCOVF_NR,
	};
	unsigned long long ip = arg == 1 ? 0x401234ULL : KERNEL_IP;
	int fd;

	if (pin_to_cpu(OVF_CPU) || catch_signal(SIGEMT_NR))
		_exit(2);
	if (arg == 2)
		q.rflags |= CPC_COUNT_SYSTEM;
	if (arg == 3) {
		q.scope = PMC_CPC_BIND_CPU;
		q.cpu = OVF_CPU;
	}
	fd = cpc_open_node();
	if (fd < 0)
		_exit(3);
	out[0] = -cpc_bind_req(fd, &q, NULL);
	if (!out[0]) {
		sig_count = 0;
		if (arg == 4) {
			char cmd[128];

			snprintf(cmd, sizeof(cmd),
				 "cpu=%d event=%#x count=10 mode=user ctx=kernel ip=%#llx",
				 OVF_CPU, EV_INSTR, ip);
			inject_raw(cmd);
		} else {
			inject_ip(OVF_CPU, EV_INSTR, 10, arg == 2, ip);
		}
		out[1] = wait_signals(1);
		out[2] = (long)sig_addr[0];
	}
	close(fd);
}

TEST_F(access, si_addr_of_a_user_only_counter_is_never_a_kernel_address)
{
	static const char *const cases[] = {
		"user-only, user-mode overflow at a kernel-looking ip",
		"user-only, user-mode overflow at a user ip",
		"user+system, kernel-mode overflow at a kernel ip",
		"user-only CPU binding, user-mode overflow at a kernel-looking ip",
		"user-only, interrupt skid into the kernel",
	};
	long *out = shared_zone(4096);
	int arg;

	NEED_INJECTION("the overflows are injected at chosen ips (kernel-looking ones in user mode), which a real PMU cannot make");
	ASSERT_NE(NULL, out);
	for (arg = 0; arg < 5; arg++) {
		memset(out, 0, 4096);
		ASSERT_EQ(0, in_child(siaddr_child, out, arg));
		ASSERT_EQ(0, out[0]) TH_LOG("%s: bind: %s", cases[arg], strerror(out[0]));
		ASSERT_EQ(1, out[1]) TH_LOG("%s: no overflow signal", cases[arg]);
		TH_LOG("%s: si_addr %#lx", cases[arg], (unsigned long)out[2]);
		if (arg == 1) {
			EXPECT_EQ(0x401234UL, (unsigned long)out[2]);
		} else if (arg == 2) {
			EXPECT_EQ((unsigned long)KERNEL_IP, (unsigned long)out[2]);
		} else if (arg == 4) {
			/* Where the thread entered the kernel: its write(2) call. */
			EXPECT_NE(0UL, (unsigned long)out[2]);
			EXPECT_GT(USER_TOP, (unsigned long)out[2])
				TH_LOG("SECURITY BUG: %s reported kernel address %#lx",
				       cases[arg], (unsigned long)out[2]);
		} else {
			EXPECT_GT(USER_TOP, (unsigned long)out[2])
				TH_LOG("SECURITY BUG: %s reported kernel address %#lx",
				       cases[arg], (unsigned long)out[2]);
		}
	}
	munmap(out, 4096);
}

/* ---- 5. limits ---------------------------------------------------------- */

static int read_param(const char *name, int def, bool *found)
{
	char path[128];
	int v;

	snprintf(path, sizeof(path), "/sys/module/pmcompat/parameters/%s", name);
	if (read_file_int(path, &v)) {
		*found = false;
		return def;
	}
	*found = true;
	return v;
}

static int write_param(const char *name, int v)
{
	char path[128], buf[16];
	int fd, n, ret;

	snprintf(path, sizeof(path), "/sys/module/pmcompat/parameters/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%d\n", v);
	ret = write(fd, buf, n) == n ? 0 : -1;
	close(fd);
	return ret;
}

/*
 * The limits tests make a thousand bindings and more at the defaults: a
 * few seconds on the stock lane, minutes on the RT and debug lanes.
 * There they run at smaller limits (the module parameters), which take
 * the same paths; the stock lane keeps the defaults.
 */
#define SMALL_MAX_PER_FD	16
#define SMALL_MAX_PER_USER	48

static bool small_limits(void)
{
	const char *lane = getenv("PMCOMPAT_LANE");

	return lane && (!strcmp(lane, "rt") || !strcmp(lane, "debug"));
}

/* Set the limits for this lane; 0 or -1.  limits_restore() undoes it. */
static int limits_for_lane(int *per_fd, int *per_user)
{
	if (!small_limits())
		return 0;
	if (write_param("max_bindings_per_fd", SMALL_MAX_PER_FD) ||
	    write_param("max_bindings_per_user", SMALL_MAX_PER_USER))
		return -1;
	*per_fd = SMALL_MAX_PER_FD;
	*per_user = SMALL_MAX_PER_USER;
	ksft_print_msg("limits %d per descriptor, %d per user (%s lane)\n", *per_fd,
		       *per_user, getenv("PMCOMPAT_LANE"));
	return 0;
}

static void limits_restore(void)
{
	if (small_limits()) {
		write_param("max_bindings_per_fd", DEF_MAX_PER_FD);
		write_param("max_bindings_per_user", DEF_MAX_PER_USER);
	}
}

struct tid_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;
	pid_t *tids;
	int quit;
};

static struct tid_pool pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
};

static void *pool_thread(void *arg)
{
	long i = (long)arg;

	pthread_mutex_lock(&pool.lock);
	pool.tids[i] = gettid();
	pool.ready++;
	pthread_cond_broadcast(&pool.cond);
	while (!pool.quit)
		pthread_cond_wait(&pool.cond, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* Start n threads that wait; their tids in pool.tids. 0 or -1. */
static int pool_start(int n)
{
	pthread_attr_t attr;
	pthread_t t;
	/* 64 KiB, or glibc's least where it is more (128 KiB on arm64). */
	size_t stack = 65536 < PTHREAD_STACK_MIN ? PTHREAD_STACK_MIN : 65536;
	long i;

	pool.tids = calloc(n, sizeof(pid_t));
	if (!pool.tids || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, stack))
		return -1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t, &attr, pool_thread, (void *)i) ||
		    pthread_detach(t))
			return -1;
	pthread_mutex_lock(&pool.lock);
	while (pool.ready < n)
		pthread_cond_wait(&pool.cond, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
	return 0;
}

enum {
	LIM_SETUP, LIM_FD_OK, LIM_FD_ERR, LIM_USER_OK, LIM_USER_ERR, LIM_USER_CURLWP,
	LIM_AFTER_RELE, LIM_AFTER_CLOSE, LIM_N
};

/*
 * As uid 65534 in the group: arg = per_fd | per_user << 16.  Bind per_fd
 * threads on one descriptor, then one more; fill other descriptors up to
 * per_user, then one more (PCTX and CURLWP); free one binding by RELE and
 * one descriptor by close and bind again.
 */
static void limits_child(long *out, long arg)
{
	int per_fd = arg & 0xffff, per_user = arg >> 16;
	int nfd = (per_user + per_fd - 1) / per_fd + 1;
	int *fds = calloc(nfd, sizeof(int));
	int f, i, n = 0, err = 0;

	out[LIM_SETUP] = -1;
	if (!fds || become_uid(NOBODY, true, false) || pool_start(per_fd + 1))
		_exit(2);
	for (f = 0; f < nfd; f++) {
		fds[f] = cpc_open_node();
		if (fds[f] < 0)
			_exit(3);
	}
	out[LIM_SETUP] = 0;
	/* One descriptor: per_fd binds, then one more. */
	for (i = 0; i <= per_fd; i++) {
		err = -cpc_bind_sw(fds[0], PMC_CPC_BIND_PCTX, getpid(), pool.tids[i]);
		if (err)
			break;
	}
	out[LIM_FD_OK] = i;
	out[LIM_FD_ERR] = err;
	n = i;
	err = 0;
	/* Every descriptor: up to per_user in all, then one more. */
	for (f = 1; f < nfd && !err; f++) {
		for (i = 0; i < per_fd && n <= per_user; i++) {
			err = -cpc_bind_sw(fds[f], PMC_CPC_BIND_PCTX, getpid(), pool.tids[i]);
			if (err)
				break;
			n++;
		}
	}
	out[LIM_USER_OK] = n;
	out[LIM_USER_ERR] = err;
	out[LIM_USER_CURLWP] = -cpc_bind_sw(fds[nfd - 1], PMC_CPC_BIND_CURLWP, 0, 0);
	/*
	 * A binding released makes room on its descriptor and for the user
	 * (the first binding of a descriptor has id 1).
	 */
	out[LIM_AFTER_RELE] = -cpc_id_op(fds[0], PMC_CPC_RELE, 1);
	if (!out[LIM_AFTER_RELE])
		out[LIM_AFTER_RELE] = -cpc_bind_sw(fds[0], PMC_CPC_BIND_PCTX, getpid(),
						   pool.tids[per_fd]);
	close(fds[1]);
	out[LIM_AFTER_CLOSE] = -cpc_bind_sw(fds[nfd - 1], PMC_CPC_BIND_PCTX, getpid(),
					    pool.tids[0]);
	_exit(0);
}

TEST_F_TIMEOUT(access, binding_limits_per_descriptor_and_per_user_are_eagain, 300)
{
	long *out = shared_zone(4096);
	bool have_fd, have_user;
	int per_fd = read_param("max_bindings_per_fd", DEF_MAX_PER_FD, &have_fd);
	int per_user = read_param("max_bindings_per_user", DEF_MAX_PER_USER, &have_user);
	int refs = module_refcnt("pmcompat");
	int round;

	ASSERT_NE(NULL, out);
	EXPECT_TRUE(have_fd) TH_LOG("no module parameter max_bindings_per_fd");
	EXPECT_TRUE(have_user) TH_LOG("no module parameter max_bindings_per_user");
	EXPECT_EQ(DEF_MAX_PER_FD, per_fd);
	EXPECT_EQ(DEF_MAX_PER_USER, per_user);
	ASSERT_EQ(0, limits_for_lane(&per_fd, &per_user));
	ASSERT_LT(0, per_fd);
	ASSERT_LE(per_fd, per_user);
	ASSERT_GT(4096, per_user);
	/* Twice: what the first round took must all have been given back. */
	for (round = 0; round < 2; round++) {
		memset(out, 0, 4096);
		ASSERT_EQ(0, in_child(limits_child, out, per_fd | per_user << 16));
		ASSERT_EQ(0, out[LIM_SETUP]);
		EXPECT_EQ(per_fd, out[LIM_FD_OK]) TH_LOG("round %d", round);
		EXPECT_EQ(EAGAIN, out[LIM_FD_ERR])
			TH_LOG("round %d: binding %d on one descriptor: %s", round, per_fd + 1,
			       out[LIM_FD_ERR] ? strerror(out[LIM_FD_ERR]) : "taken");
		EXPECT_EQ(per_user, out[LIM_USER_OK]) TH_LOG("round %d", round);
		EXPECT_EQ(EAGAIN, out[LIM_USER_ERR])
			TH_LOG("round %d: binding %d of the user: %s", round, per_user + 1,
			       out[LIM_USER_ERR] ? strerror(out[LIM_USER_ERR]) : "taken");
		EXPECT_EQ(EAGAIN, out[LIM_USER_CURLWP]);
		EXPECT_EQ(0, out[LIM_AFTER_RELE]) TH_LOG("after a RELE: %s",
							 strerror(out[LIM_AFTER_RELE]));
		EXPECT_EQ(0, out[LIM_AFTER_CLOSE]) TH_LOG("after a close: %s",
							  strerror(out[LIM_AFTER_CLOSE]));
		/* Every descriptor closed: no reference to the module is left. */
		EXPECT_EQ(refs, module_refcnt("pmcompat"));
	}
	limits_restore();
	munmap(out, 4096);
}

/* ---- 6. an unprivileged user cannot lock root out ------------------------ */

/* arg: 0 perfmon writer, 1 cpc CPU binding, 2 a flood of bindings. */
static void lockout_child(long *out, long arg)
{
	int fds[8], i, f, n = 0, err = 0, go[2];
	char c;

	int per_fd = (int)out[10], per_user = (int)out[11];

	if (pin_to_cpu(MATRIX_CPU) || become_uid(NOBODY, true, false) ||
	    (arg == 2 && pool_start(per_fd)))
		_exit(2);
	for (i = 0; i < 8; i++)
		fds[i] = -1;
	go[0] = (int)out[8];
	go[1] = (int)out[9];
	if (arg == 0) {
#ifdef ACCESS_X86
		fds[0] = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
		out[0] = fds[0] < 0 ? errno : 0;
		fds[1] = open(_PATH_PERFMON, O_RDONLY | O_CLOEXEC);
		out[1] = fds[1] < 0 ? errno : 0;
#endif
	} else if (arg == 1) {
		fds[0] = cpc_open_node();
		out[0] = fds[0] < 0 ? -fds[0] : -cpc_bind_cpu_raw(fds[0], MATRIX_CPU,
								   CPC_COUNT_USER);
	} else {
		/* Bounded: one more than the per-user limit at most. */
		for (f = 0; f < 8 && !err && n <= per_user; f++) {
			fds[f] = cpc_open_node();
			for (i = 0; i < per_fd && fds[f] >= 0 && !err &&
			     n <= per_user; i++) {
				err = -cpc_bind_sw(fds[f], PMC_CPC_BIND_PCTX, getpid(),
						   pool.tids[i]);
				n += !err;
			}
		}
		out[0] = err;
		out[1] = n;
	}
	/* Hold everything while root tries. */
	if (write(go[1], "h", 1) != 1)
		_exit(3);
	if (read(go[0], &c, 1) != 1)
		_exit(4);
	_exit(0);
}

TEST_F_TIMEOUT(access, unprivileged_user_cannot_lock_root_out, 300)
{
	long *out = shared_zone(4096);
	int p[2], q[2], fd, arg;
	int per_fd = DEF_MAX_PER_FD, per_user = DEF_MAX_PER_USER;
	__u32 id;
	char c;
	pid_t pid, t;

	NEED_PMU();
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, limits_for_lane(&per_fd, &per_user));
#ifdef ACCESS_X86
	/* Even with the group allowed to write the node (a careless rule). */
	ASSERT_EQ(0, chmod(_PATH_PERFMON, 0660));
	arg = 0;
#else
	ksft_print_msg("/dev/perfmon's writer slot not tried: %s\n", X86_ONLY);
	arg = 1;
#endif
	ASSERT_EQ(0, pin_to_cpu(MATRIX_CPU));
	for (; arg < 3; arg++) {
		ASSERT_EQ(0, pipe(p));		/* child -> parent: holding */
		ASSERT_EQ(0, pipe(q));		/* parent -> child: let go */
		memset(out, 0, 4096);
		out[8] = q[0];
		out[9] = p[1];
		out[10] = per_fd;
		out[11] = per_user;
		pid = fork();
		if (pid == 0)
			lockout_child(out, arg);
		ASSERT_LT(0, pid);
		close(p[1]);
		close(q[0]);
		ASSERT_EQ(1, read(p[0], &c, 1)) TH_LOG("case %d: child failed", arg);
		switch (arg) {
#ifdef ACCESS_X86
		case 0:
			EXPECT_EQ(EPERM, out[0])
				TH_LOG("uid 65534 opened /dev/perfmon for writing: %s",
				       out[0] ? strerror(out[0]) : "got the writer slot");
			EXPECT_EQ(0, out[1]) TH_LOG("O_RDONLY: %s", strerror(out[1]));
			fd = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
			EXPECT_LE(0, fd) TH_LOG("SECURITY BUG: root locked out of /dev/perfmon: %s",
						strerror(errno));
			if (fd >= 0) {
				EXPECT_EQ(0, perfmon_setup_fd(fd, 0, CTL_INSTR_U));
				close(fd);
			}
			break;
#endif
		case 1:
			EXPECT_EQ(EACCES, out[0]) TH_LOG("uid 65534 bound CPU %d: %s", MATRIX_CPU,
							 out[0] ? strerror(out[0]) : "taken");
			fd = cpc_open_node();
			ASSERT_LE(0, fd);
			EXPECT_EQ(0, cpc_bind_cpu_raw(fd, MATRIX_CPU, CPC_COUNT_USER))
				TH_LOG("SECURITY BUG: root cannot bind CPU %d", MATRIX_CPU);
			close(fd);
			break;
		default:
			TH_LOG("uid 65534 made %ld bindings, then %s", out[1],
			       out[0] ? strerror(out[0]) : "stopped");
			EXPECT_EQ(EAGAIN, out[0]);
			EXPECT_GE(per_user, out[1]);
			fd = cpc_open_node();
			ASSERT_LE(0, fd);
			EXPECT_EQ(0, cpc_bind_thread(fd, PMC_CPC_BIND_CURLWP, 0, 0,
						     CPC_COUNT_USER, NULL))
				TH_LOG("root's own bind after the flood");
			t = start_sleeper(OTHER_UID);
			ASSERT_LT(0, t);
			EXPECT_EQ(0, cpc_bind_thread(fd, PMC_CPC_BIND_PCTX, t, 0,
						     CPC_COUNT_USER, &id))
				TH_LOG("root's bind of another process after the flood");
			stop_child(t);
			close(fd);
			break;
		}
		EXPECT_EQ(1, write(q[1], "g", 1));
		EXPECT_EQ(0, child_status(pid));
		close(p[0]);
		close(q[1]);
	}
	limits_restore();
	munmap(out, 4096);
}

/* ---- what group membership alone gives ---------------------------------- */

/* As uid 65534 in the group: out[0..3] pctr, out[4..6] perfmon, out[7] cpc. */
static void group_member_opens(long *out, long arg)
{
	int fd;

	if (pin_to_cpu(MATRIX_CPU) || become_uid(NOBODY, true, false))
		_exit(2);
#ifdef ACCESS_X86
	struct pctrst st;

	fd = open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
	out[0] = fd < 0 ? errno : 0;
	out[1] = fd < 0 ? -1 : (ioctl(fd, PCIOCRD, &st) ? errno : 0);
	if (fd >= 0)
		close(fd);
	fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	out[2] = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	fd = open(_PATH_PERFMON, O_RDONLY | O_CLOEXEC);
	out[4] = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	fd = open(_PATH_PERFMON, O_RDWR | O_CLOEXEC);
	out[5] = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
#endif
	fd = cpc_open_node();
	out[7] = fd < 0 ? -fd : 0;
	if (fd >= 0)
		close(fd);
}

TEST_F(access, group_members_read_pctr_and_perfmon_and_use_cpc)
{
	long *out = shared_zone(4096);

	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, in_child(group_member_opens, out, 0));
#ifdef ACCESS_X86
	EXPECT_EQ(0, out[0]);
	EXPECT_EQ(0, out[1]);
	EXPECT_EQ(EACCES, out[2]);
	/* /dev/perfmon opens only where perf has a CPU PMU */
	EXPECT_EQ(have_cpu_pmu() ? 0 : ENXIO, out[4]);
	EXPECT_EQ(EACCES, out[5]);
#else
	ksft_print_msg("/dev/pctr and /dev/perfmon not tried: %s\n", X86_ONLY);
#endif
	EXPECT_EQ(0, out[7]);
	munmap(out, 4096);
}

/* ---- capabilities are asked only where needed ------------------------ */

/*
 * Every capable() that fails is audited (SELinux, the audit subsystem): a
 * module that asks for CAP_PERFMON before it knows the request needs it
 * logs a denial for every ordinary bind.  A kprobe on cap_capable(), the
 * capability LSM's hook that every capable() reaches, records the
 * capabilities a user's own-thread, user-mode bind asks for: none.  A CPU
 * bind (which needs CAP_PERFMON) is the control that the probe sees them.
 */
#define TRACING		"/sys/kernel/debug/tracing"
#define CAP_PROBE	"pmccap/cap"

/* Lines of the trace for pid that ask for capability cap. */
static int cap_asks(pid_t pid, int cap)
{
	char line[512], who[32], what[32];
	FILE *f = fopen(TRACING "/trace", "r");
	int n = 0;

	if (!f)
		return -1;
	snprintf(who, sizeof(who), "-%d ", pid);
	snprintf(what, sizeof(what), " cap=%d", cap);
	while (fgets(line, sizeof(line), f)) {
		char *c = strstr(line, what);

		if (line[0] != '#' && strstr(line, who) && c &&
		    (c[strlen(what)] == '\n' || c[strlen(what)] == ' '))
			n++;
	}
	fclose(f);
	return n;
}

TEST_F(access, own_thread_user_mode_bind_asks_for_no_capability)
{
	int go[2], done[2], fd, n_own[2], n_cpu[2];
	pid_t pid;
	char c;

	NEED_PMU();
	if (access(TRACING "/kprobe_events", W_OK))
		SKIP(return, "no kprobe events (CONFIG_KPROBE_EVENTS) to watch capable() with");
	write_file(TRACING "/events/" CAP_PROBE "/enable", "0\n");
	write_file(TRACING "/kprobe_events", "-:" CAP_PROBE "\n");
	if (write_file(TRACING "/kprobe_events", "p:" CAP_PROBE " cap_capable cap=$arg3:s32\n"))
		SKIP(return, "cap_capable() cannot be probed here");
	fd = open(TRACING "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);	/* empties it */
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, write_file(TRACING "/events/" CAP_PROBE "/enable", "1\n"));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Step 1: an own-thread, user-mode bind; step 2: a CPU bind. */
		int err = pin_to_cpu(MATRIX_CPU) || become_uid(NOBODY, true, false);

		fd = err ? -1 : cpc_open_node();
		if (read(go[0], &c, 1) != 1 || fd < 0)
			_exit(2);
		err = cpc_bind_thread(fd, PMC_CPC_BIND_CURLWP, 0, 0, CPC_COUNT_USER, NULL);
		if (write(done[1], "1", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		if (cpc_bind_cpu_raw(fd, MATRIX_CPU, CPC_COUNT_USER) != -EACCES)
			_exit(4);
		if (write(done[1], "2", 1) != 1)
			_exit(5);
		_exit(err ? 6 : 0);
	}
	EXPECT_EQ(1, write(go[1], "g", 1));
	EXPECT_EQ(1, read(done[0], &c, 1));
	n_own[0] = cap_asks(pid, CAP_PERFMON);
	n_own[1] = cap_asks(pid, CAP_SYS_ADMIN);
	EXPECT_EQ(1, write(go[1], "g", 1));
	EXPECT_EQ(1, read(done[0], &c, 1));
	n_cpu[0] = cap_asks(pid, CAP_PERFMON);
	n_cpu[1] = cap_asks(pid, CAP_SYS_ADMIN);
	EXPECT_EQ(0, child_status(pid));
	write_file(TRACING "/events/" CAP_PROBE "/enable", "0\n");
	write_file(TRACING "/kprobe_events", "-:" CAP_PROBE "\n");
	ksft_print_msg("capable() asks: own-thread bind CAP_PERFMON %d CAP_SYS_ADMIN %d; CPU bind %d %d\n",
		       n_own[0], n_own[1], n_cpu[0] - n_own[0], n_cpu[1] - n_own[1]);
	EXPECT_EQ(0, n_own[0]) TH_LOG("an own-thread bind asked for CAP_PERFMON: audited as a denial");
	EXPECT_EQ(0, n_own[1]) TH_LOG("an own-thread bind asked for CAP_SYS_ADMIN: audited as a denial");
	/* The control: a CPU bind asks, and the probe sees it. */
	EXPECT_LT(n_own[0], n_cpu[0]);
	EXPECT_LT(n_own[1], n_cpu[1]);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

TEST_HARNESS_MAIN
