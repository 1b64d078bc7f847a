/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmcompat front-ends: each registers its device on top of the counter core
 * (module/<front-end>/); main.c brings them up.
 */
#ifndef PMCOMPAT_H
#define PMCOMPAT_H

#include <linux/bug.h>
#include <linux/uaccess.h>

/*
 * A small reply copied out in one user-access window, 8 bytes a store.
 * For a few dozen bytes, copy_to_user()'s setup (and, for a size not known
 * at build time, the hardened-usercopy walk of the source) costs more than
 * the copy; the callers copy out structures they filled whole, of a size
 * they bound themselves.
 */
#define PMC_COPY_OUT_SMALL_MAX	64

static __always_inline int pmc_copy_out_small(void __user *dst, const void *src,
					      size_t len)
{
	/* No hardened-usercopy check here: the bound is the callers' and this. */
	if (WARN_ON_ONCE(len > PMC_COPY_OUT_SMALL_MAX))
		return -EFAULT;
	if (!user_access_begin(dst, len))
		return -EFAULT;
	unsafe_copy_to_user(dst, src, len, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

/* OpenBSD pctr(4) and FreeBSD perfmon(4) speak x86 event-select words. */
#ifdef CONFIG_X86_64
int pctr_init(void);
void pctr_exit(void);
int perfmon_init(void);
void perfmon_exit(void);
#else
static inline int pctr_init(void) { return 0; }
static inline void pctr_exit(void) { }
static inline int perfmon_init(void) { return 0; }
static inline void perfmon_exit(void) { }
#endif
int cpc_init(void);
void cpc_exit(void);
int __init pfcntr_init(void);
void pfcntr_exit(void);

#endif /* PMCOMPAT_H */
