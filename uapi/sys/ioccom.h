/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * <sys/ioccom.h> - the BSD names of the ioctl request encoding, on Linux's.
 *
 * BSD programs include it for _IO, _IOR, _IOW and _IOWR and take requests
 * apart with IOCPARM_LEN, IOCBASECMD and IOCGROUP.  The requests of
 * pmcompat's devices are Linux-encoded (<machine/pctr.h>, <machine/perfmon.h>:
 * direction in the top two bits, then a 14-bit size, the group and the
 * number), so these names read Linux's encoding: a BSD program's arithmetic
 * on a request gives the same size, group and number as on BSD, though the
 * request values differ.  Differences from BSD, forced by the encoding:
 * IOC_VOID, IOC_OUT and IOC_IN are Linux's direction bits; IOCPARM_MASK is
 * 14 bits wide (BSD: 13); _IOC() is Linux's, whose first argument is a
 * direction number (_IOC_READ...), not BSD's IOC_OUT.
 */
#ifndef _SYS_IOCCOM_H_
#define _SYS_IOCCOM_H_

#include <linux/ioctl.h>

#define IOCPARM_MASK	_IOC_SIZEMASK		/* parameter length mask */
#define IOCPARM_SHIFT	_IOC_SIZESHIFT
#define IOCPARM_LEN(x)	_IOC_SIZE(x)		/* the parameter's size */
#define IOCBASECMD(x)	((x) & ~(IOCPARM_MASK << IOCPARM_SHIFT))
#define IOCGROUP(x)	_IOC_TYPE(x)		/* the request's group */
#define IOCPARM_MAX	IOCPARM_MASK		/* the largest parameter */

/* IOC_OUT (copied out), IOC_IN (copied in) and IOC_INOUT: <linux/ioctl.h>'s. */
#define IOC_VOID	((unsigned int)_IOC_NONE << _IOC_DIRSHIFT)	/* no parameter */
#define IOC_DIRMASK	((unsigned int)_IOC_DIRMASK << _IOC_DIRSHIFT)	/* the direction bits */

#endif /* _SYS_IOCCOM_H_ */
