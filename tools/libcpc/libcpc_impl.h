/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libcpc internals shared by libcpc.c and pctx.c (and the unit tests).
 * Nothing here is exported from libcpc.so.
 */
#ifndef LIBCPC_IMPL_H
#define LIBCPC_IMPL_H

#include <sys/types.h>
#include <sys/cpc_impl.h>

#include "libcpc.h"
#include "events.h"

#define CPC_EXPORT	__attribute__((visibility("default")))

/*
 * A cpc_t for an open /dev/cpc descriptor (fd, -1 for none) with the
 * kernel's info and the processor: what cpc_open() returns.
 */
cpc_t *__cpc_open_fd(int fd, const struct pmc_cpc_info *info,
		     const struct cpcev_cpu *cpu);

/*
 * pctx.c: the process of a pctx_t (inside a pctx_run() handler, the one it
 * runs for), the thread of one of its LWPs, and the cpc_t that bound sets
 * to it.
 */
pid_t __pctx_pid(pctx_t *pctx);
pid_t __pctx_tid(pctx_t *pctx, id_t id);
/* Inside a pctx_run() handler for an LWP, its thread; else 0. */
pid_t __pctx_cur_tid(pctx_t *pctx);
cpc_t *__pctx_get_cpc(pctx_t *pctx);
void __pctx_set_cpc(pctx_t *pctx, cpc_t *cpc);

/* bind.c: pctx_release() unbinds the sets bound to the process. */
void __cpc_pctx_release(cpc_t *cpc, pctx_t *pctx);

/*
 * libcpc.c, for strtoset.c: the error handler, whether counter pic can
 * count event, whether an event or attribute name is known.  libcpc.a
 * keeps strtoset.o apart from the rest, whose hidden symbols it makes
 * local (tools/Makefile): these stay global there, under names reserved
 * to the implementation; libcpc.map keeps them out of libcpc.so.
 */
#define CPC_INTERNAL	__attribute__((visibility("default")))
cpc_errhndlr_t *__cpc_errhndlr(cpc_t *cpc);
int __cpc_pic_counts(cpc_t *cpc, uint_t pic, const char *event);
int __cpc_event_known(cpc_t *cpc, const char *event);
int __cpc_attr_known(cpc_t *cpc, const char *attr);

/* libcpc_v1.c: for the unit tests, the processor the v1 calls describe. */
void __cpc_v1_set_cpu(const struct cpcev_cpu *cpu);
void __cpc_cpu_detect(struct cpcev_cpu *cpu);

#endif /* LIBCPC_IMPL_H */
