// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * gethrtime(3C), which Solaris has in libc: nanoseconds of CLOCK_MONOTONIC.
 * In an object of its own, so that a program with its own gethrtime()
 * links against the static libcpc.a too (the library does not call it).
 */
#include <time.h>

#include "libcpc_impl.h"

CPC_EXPORT hrtime_t gethrtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (hrtime_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
