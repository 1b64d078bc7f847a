/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * <sys/cpc_impl.h> - Solaris libcpc constants, and the pmcompat /dev/cpc
 * ioctl interface that libcpc is built on.
 *
 * Solaris' cpc(2) system call cannot be added from a module; libcpc(3LIB)
 * is the public interface and talks to /dev/cpc through these ioctls.  The
 * library resolves event names to perf event types and configs; the kernel
 * counts them on in-kernel perf events.  Structures are sized and carry a
 * size field for extension; every reserved field must be zero.
 */
#ifndef _SYS_CPC_IMPL_H
#define _SYS_CPC_IMPL_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Set (bind) flags */
#define CPC_BIND_LWP_INHERIT	0x1
#define CPC_BIND_EMT_OVF	0x2	/* CPCv1 only */
#define CPC_SET_ALL_FLAGS	0x1
#define CPC_SET_VALID_FLAGS(flags) \
	(((flags) | CPC_SET_ALL_FLAGS) == CPC_SET_ALL_FLAGS)

/* Request flags */
#define CPC_OVF_NOTIFY_EMT	0x1
#define CPC_COUNT_USER		0x2
#define CPC_COUNT_SYSTEM	0x4
#define CPC_COUNT_HV		0x8
#define KCPC_REQ_ALL_FLAGS	(CPC_OVF_NOTIFY_EMT | CPC_COUNT_USER | \
				 CPC_COUNT_SYSTEM | CPC_COUNT_HV)
#define KCPC_REQ_VALID_FLAGS(flags) \
	(((flags) | KCPC_REQ_ALL_FLAGS) == KCPC_REQ_ALL_FLAGS)

/* cpc_caps() bits */
#define CPC_CAP_OVERFLOW_INTERRUPT	0x1
#define CPC_CAP_OVERFLOW_PRECISE	0x2

#define CPC_MAX_IMPL_NAME	512
#define CPC_MAX_CPUREF		1024
#define CPC_MAX_EVENT_LEN	512
#define CPC_MAX_ATTR_LEN	32

/* Error subcodes passed to the libcpc error handler */
#define CPC_INVALID_EVENT		1
#define CPC_INVALID_PICNUM		2
#define CPC_INVALID_ATTRIBUTE		3
#define CPC_ATTRIBUTE_OUT_OF_RANGE	4
#define CPC_RESOURCE_UNAVAIL		5
#define CPC_PIC_NOT_CAPABLE		6
#define CPC_REQ_INVALID_FLAGS		7
#define CPC_CONFLICTING_REQS		8
#define CPC_ATTR_REQUIRES_PRIVILEGE	9
#define CPC_PBIND_FAILED		10
#define CPC_HV_NO_ACCESS		11

#ifndef __KERNEL__
#include <stdint.h>

/* An attribute of a request (name, value), as in Solaris. */
typedef struct {
	char *ca_name;
	uint64_t ca_val;	/* Solaris' type: takes a uint64_t *, prints with PRIu64 */
} cpc_attr_t;
#endif

/* ---- pmcompat /dev/cpc ------------------------------------------------ */

#define PMC_CPC_PATH		"/dev/cpc"
#define PMC_CPC_ABI_VERSION	1
#define PMC_CPC_MAX_REQS	8	/* most requests in one set */

/*
 * The overflow signal: Solaris' SIGEMT is Linux's real-time signal 40, with
 * si_code EMT_CPCOVF.  The kernel always sends exactly this; a bind may name
 * it or leave both fields 0, anything else is EINVAL.
 */
#define PMC_CPC_OVF_SIGNO	40
#define PMC_CPC_OVF_CODE	2

/* One counter request, resolved to a perf event by the library. */
struct pmc_cpc_request {
	__u32 type;		/* PERF_TYPE_RAW, _HARDWARE, _HW_CACHE, _SOFTWARE */
	__u32 flags;		/* CPC_COUNT_USER | CPC_COUNT_SYSTEM | CPC_OVF_NOTIFY_EMT */
	__u64 config;		/* perf config (RAW: x86 event-select image, arm64 event number) */
	__u64 preset;		/* starting value */
	__u32 index;		/* request index, 0..nreqs-1, each once */
	__u32 reserved;
};

/* pmc_cpc_bind.scope */
#define PMC_CPC_BIND_CURLWP	0	/* the calling thread */
#define PMC_CPC_BIND_PCTX	1	/* thread tid of process pid */
#define PMC_CPC_BIND_CPU	2	/* everything on CPU cpu; caller pinned there */

struct pmc_cpc_bind {
	__u32 size;		/* sizeof(struct pmc_cpc_bind) */
	__u32 scope;		/* PMC_CPC_BIND_* */
	__u32 flags;		/* CPC_BIND_LWP_INHERIT (CURLWP only) */
	__u32 nreqs;		/* 1..PMC_CPC_MAX_REQS */
	__s32 pid;		/* PCTX: process id */
	__s32 tid;		/* PCTX: thread id (0: the process's main thread) */
	__s32 cpu;		/* CPU: the processor */
	__s32 signo;		/* 0 or PMC_CPC_OVF_SIGNO */
	__s32 si_code;		/* 0 or PMC_CPC_OVF_CODE */
	__u32 reserved;
	__u64 reqs;		/* user pointer: nreqs struct pmc_cpc_request */
	__s32 subcode;		/* out: CPC_* subcode of an EINVAL, else -1 */
	__u32 id;		/* out: binding id for PCTX and CPU bindings */
};

/* Sample a binding: id 0 is the calling thread's own (CURLWP) binding. */
struct pmc_cpc_sample {
	__u32 size;		/* sizeof(struct pmc_cpc_sample) */
	__u32 id;
	__u32 nvals;		/* room in vals; must be >= nreqs */
	__u32 reserved;
	__u64 vals;		/* user pointer: one __u64 per request, index order */
	__u64 hrtime;		/* out: CLOCK_MONOTONIC, ns */
	__u64 tick;		/* out: timestamp cycles (x86 TSC, arm64 CNTVCT) since the bind */
};

/* Preset one request of a binding; takes effect at the next restart. */
struct pmc_cpc_preset {
	__u32 size;		/* sizeof(struct pmc_cpc_preset) */
	__u32 id;		/* 0: the calling thread's binding */
	__u32 index;
	__u32 reserved;
	__u64 preset;
};

struct pmc_cpc_info {
	__u32 size;		/* sizeof(struct pmc_cpc_info) */
	__u32 abi_version;	/* PMC_CPC_ABI_VERSION */
	__u32 npic;		/* counters a set may use */
	__u32 caps;		/* CPC_CAP_* */
	__u32 hw_pmu;		/* 1: hardware events can be counted */
	__u32 reserved[3];
};

#define PMC_CPC_IOC_MAGIC	0xC9
#define PMC_CPC_INFO		_IOWR(PMC_CPC_IOC_MAGIC, 0, struct pmc_cpc_info)
#define PMC_CPC_BIND		_IOWR(PMC_CPC_IOC_MAGIC, 1, struct pmc_cpc_bind)
#define PMC_CPC_SAMPLE		_IOWR(PMC_CPC_IOC_MAGIC, 2, struct pmc_cpc_sample)
#define PMC_CPC_RELE		_IOW(PMC_CPC_IOC_MAGIC, 3, __u32)	/* id */
#define PMC_CPC_PRESET		_IOW(PMC_CPC_IOC_MAGIC, 4, struct pmc_cpc_preset)
#define PMC_CPC_RESTART		_IOW(PMC_CPC_IOC_MAGIC, 5, __u32)	/* id */
#define PMC_CPC_ENABLE		_IOW(PMC_CPC_IOC_MAGIC, 6, __u32)	/* id */
#define PMC_CPC_DISABLE		_IOW(PMC_CPC_IOC_MAGIC, 7, __u32)	/* id */

#endif /* _SYS_CPC_IMPL_H */
