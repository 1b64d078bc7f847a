#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Solaris programs build with the Solaris command line, cc prog.c -lcpc,
# against a staged install of libcpc (issue 22): <sys/procset.h> with
# processor_bind(P_LWPID, P_MYID, ...) (M9), uperf's "#define hrtime_t
# uint64_t" before <libcpc.h> in its CPCv2 and CPCv1 modes (M1), a port's
# own _lwp_self() and gethrtime macros (L1), a C++ program's global int
# index (cpc_bind_curlwp(3CPC) Example 2's) and index() from a later
# <strings.h> in C++ (L1), <sys/cpc_impl.h>'s KCPC_REQ_VALID_FLAGS and
# CPC_SET_VALID_FLAGS (L5).  TAP, with a kselftest-style
# "# Totals:" line.  TOP and O are filled in when the test is built.
TOP=@TOP@
O=@O@
stage=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$stage" "$work"' EXIT
. "$TOP/tests/unit/tap.sh"

echo "TAP version 13"
echo "1..11"
inc=$stage/usr/include
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || cc -print-multiarch)
lib=$stage/usr/lib${ma:+/$ma}
check "staged install of libcpc" \
	make -s -C "$TOP/tools" O="$O" install-libcpc DESTDIR="$stage" PREFIX=/usr
CC="cc -Wall -Werror -I$inc -L$lib -Wl,-rpath-link,$lib"

cat >"$work/pbind.c" <<'P'
#include <sys/types.h>
#include <sys/processor.h>
#include <sys/procset.h>
#include <stdio.h>

int main(void)
{
	processorid_t obind;

	if (processor_bind(P_LWPID, P_MYID, PBIND_QUERY, &obind) != 0)
		return 1;
	printf("%d\n", (int)obind);
	return 0;
}
P
check "sys/procset.h: processor_bind(P_LWPID, P_MYID) with cc prog.c -lcpc" \
	$CC -o "$work/pbind" "$work/pbind.c" -lcpc
check "processor_bind(P_LWPID, P_MYID, PBIND_QUERY) runs" \
	env LD_LIBRARY_PATH="$lib" "$work/pbind"
check "#define hrtime_t uint64_t before <libcpc.h>, CPCv2 calls" \
	$CC -DUSE_CPCv2 -o "$work/hw2" "$TOP/tests/examples/solaris-hrtime-define.c" -lcpc
check "#define hrtime_t uint64_t before <libcpc.h>, CPCv1 calls" \
	$CC -DUSE_CPCv1 -o "$work/hw1" "$TOP/tests/examples/solaris-hrtime-define.c" -lcpc
check "the same in strict C99" \
	$CC -std=c99 -DUSE_CPCv2 -fsyntax-only "$TOP/tests/examples/solaris-hrtime-define.c"

cat >"$work/lwp.c" <<'P'
#include <unistd.h>
#include <sys/syscall.h>
#define _lwp_self()	((int)syscall(SYS_gettid))
#define gethrtime	my_gethrtime
#include <libcpc.h>
#include <time.h>

static long long my_gethrtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void)
{
	return _lwp_self() > 0 && gethrtime() > 0 ? 0 : 1;
}
P
check "a port's own _lwp_self() and gethrtime macros before <libcpc.h>" \
	$CC -o "$work/lwp" "$work/lwp.c" -lcpc
check "C++: #define hrtime_t before <libcpc.h>" \
	sh -c "printf '#include <stdint.h>\n#define hrtime_t uint64_t\n#include <libcpc.h>\nhrtime_t t;\nint main() { return (int)sizeof(t) - 8; }\n' >'$work/x.cc' && c++ -Wall -Werror -I'$inc' -o '$work/x' '$work/x.cc'"
cat >"$work/index.cc" <<'P'
#include <stdio.h>
#include <stdlib.h>
#include <libcpc.h>
#include <cstring>

int index;		/* as in cpc_bind_curlwp(3CPC) Example 2 */

int main()
{
	index = (int)strlen("x");
	return index - 1;
}
P
check "C++: a global int index after <libcpc.h>" \
	c++ -Wall -Werror -fno-builtin-index -I"$inc" -O2 -o "$work/index" "$work/index.cc"
cat >"$work/strings.cc" <<'P'
#include <libcpc.h>
#include <string.h>
#include <strings.h>

int main()
{
	return index("ab", 'b') != 0 && strchr("ab", 'a') != 0 ? 0 : 1;
}
P
check "C++: index() from <strings.h> after <libcpc.h>" \
	c++ -Wall -Werror -I"$inc" -O2 -D_FORTIFY_SOURCE=2 -o "$work/strings" "$work/strings.cc"
cat >"$work/flags.c" <<'P'
#include <libcpc.h>

_Static_assert(KCPC_REQ_VALID_FLAGS(CPC_COUNT_USER | CPC_COUNT_SYSTEM |
				    CPC_OVF_NOTIFY_EMT | CPC_COUNT_HV), "req");
_Static_assert(!KCPC_REQ_VALID_FLAGS(0x20), "req 0x20");
_Static_assert(CPC_SET_VALID_FLAGS(CPC_BIND_LWP_INHERIT), "set");
_Static_assert(!CPC_SET_VALID_FLAGS(CPC_BIND_EMT_OVF), "set EMT_OVF");

int main(void)
{
	return 0;
}
P
check "KCPC_REQ_VALID_FLAGS and CPC_SET_VALID_FLAGS of <sys/cpc_impl.h>" \
	$CC -o "$work/flags" "$work/flags.c" -lcpc
totals
