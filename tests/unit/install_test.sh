#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The installed headers and libraries as a Solaris or BSD programmer meets
# them (issue 13): a staged "make -C tools install", then programs built with
# nothing but the stage's include and library directories (standing in for
# the default paths), every header in strict C and C++, any include order,
# and "make uninstall" leaving the stage empty.  TAP, with a kselftest-style
# "# Totals:" line.  TOP and O are filled in when the test is built.
TOP=@TOP@
O=@O@
stage=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$stage" "$work"' EXIT
. "$TOP/tests/unit/tap.sh"

fails() { ! "$@"; }

echo "TAP version 13"
echo "1..18"
inc=$stage/usr/include
lib=$stage/usr/lib
check "staged install" make -s -C "$TOP/tools" O="$O" install DESTDIR="$stage" PREFIX=/usr

# cc prog.c -lcpc, as in the synopsis of cpc_bind_curlwp(3CPC).
CC="cc -Wall -Werror -I$inc -L$lib -Wl,-rpath-link,$lib"
check "Solaris example 1: cc prog.c -lcpc" \
	$CC -o "$work/ex1" "$TOP/tests/examples/solaris-cpc-example1.c" -lcpc
cat >"$work/solaris.c" <<'P'
#include <sys/types.h>
#include <sys/processor.h>
#include <libcpc.h>
#include <libpctx.h>
#include <inttypes.h>
#include <stdio.h>

int main(void)
{
	cpc_attr_t attr = { "umask", 0x10 };
	uint64_t *v = &attr.ca_val;
	processorid_t old;
	hrtime_t t = gethrtime();
	struct timeval tv;

	gettimeofday(&tv, NULL);
	printf("%" PRIu64 " %lld\n", *v, (long long)t);
	return processor_bind(P_LWPID, P_MYID, PBIND_QUERY, &old);
}
P
check "cc prog.c -lpctx -lcpc: sys/processor.h, gethrtime, uint64_t ca_val" \
	$CC -o "$work/solaris" "$work/solaris.c" -lpctx -lcpc
check "processor_bind(P_LWPID, P_MYID, PBIND_QUERY) runs" \
	env LD_LIBRARY_PATH="$lib" "$work/solaris"
printf '#include <machine/pctr.h>\n' >"$work/bsd.c"
check "BSD headers stay out of the default include path" \
	fails cc -fsyntax-only -I"$inc" "$work/bsd.c"

# <libcpc.h> before <strings.h>: index() and rindex() still declared.
cat >"$work/order.c" <<'P'
#include <libcpc.h>
#include <strings.h>

int main(void)
{
	return index("ab", 'b') == rindex("ab", 'b') ? 0 : 1;
}
P
check "libcpc.h, then strings.h: index() declared (gnu17, fortified)" \
	cc -std=gnu17 -O2 -D_FORTIFY_SOURCE=2 -Werror=implicit-function-declaration \
	-fsyntax-only -I"$inc" "$work/order.c"
check "libcpc.h, then strings.h: index() declared (c99)" \
	cc -std=c99 -Werror=implicit-function-declaration -fsyntax-only -I"$inc" "$work/order.c"

# glibc's <string.h> declares index() and rindex() (through <strings.h>) in
# the default mode; a later <string.h> must still do so after <libcpc.h>.
sed 's/<strings\.h>/<string.h>/' "$work/order.c" >"$work/order2.c"
check "libcpc.h, then string.h: index() declared (gnu17, fortified)" \
	cc -std=gnu17 -O2 -D_FORTIFY_SOURCE=2 -Wall -Werror \
	-Werror=implicit-function-declaration -fsyntax-only -I"$inc" "$work/order2.c"

# Every Solaris header, and <machine/perfmon.h>, alone, in each mode.
hdr_modes() {	# hdr_modes INCLUDEDIR HEADER...
	d=$1
	shift
	for h in "$@"; do
		printf '#include <%s>\nint main(void) { return 0; }\n' "$h" >"$work/h.c"
		cp "$work/h.c" "$work/h.cc"
		for std in c99 c11 c17 gnu11; do
			cc -std=$std -pedantic -Wall -Werror -fsyntax-only -I"$d" "$work/h.c" ||
				{ echo "$h: -std=$std"; return 1; }
		done
		c++ -Wall -Werror -fsyntax-only -I"$d" "$work/h.cc" ||
			{ echo "$h: C++"; return 1; }
	done
}
check "Solaris headers in C99, C11, C17, GNU11 and C++" \
	hdr_modes "$inc" libcpc.h libpctx.h sys/processor.h sys/cpc_impl.h
check "machine/perfmon.h in C99, C11, C17, GNU11 and C++" \
	hdr_modes "$inc/pmcompat" machine/perfmon.h
cat >"$work/cxx.cc" <<'P'
#include <libcpc.h>
#include <cinttypes>
#include <cstdio>

int main()
{
	cpc_attr_t a = { const_cast<char *>("umask"), 1 };
	uint64_t *p = &a.ca_val;

	std::printf("%" PRIu64 "\n", *p);
	return 0;
}
P
check "C++: &ca_val is a uint64_t *" c++ -Wall -Werror -fsyntax-only -I"$inc" "$work/cxx.cc"
check "pkg-config libcpc still works" \
	env PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_PATH="$lib/pkgconfig" \
	sh -c "cc -o '$work/ex1pc' '$TOP/tests/examples/solaris-cpc-example1.c' \$(pkg-config --cflags --libs libcpc)"
check "pkg-config pmcompat-bsd still finds machine/pctr.h" \
	env PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_PATH="$lib/pkgconfig" \
	sh -c "cc -fsyntax-only '$work/bsd.c' \$(pkg-config --cflags pmcompat-bsd)"

api='^(cpc_|pctx_|gethrtime$|processor_bind$)'
# The defined global symbols of a listing (nm) that are not the API: none.
only_api() {
	awk 'NF >= 3 && $2 ~ /^[TDBRVW]$/ { print $3 }' | sed 's/@.*//' >"$work/syms"
	[ -s "$work/syms" ] || { echo "no symbols"; return 1; }
	! grep -Ev "$api" "$work/syms"
}
so_only_api() { nm -D --defined-only "$lib/libcpc.so" | only_api; }
a_only_api() { nm -g --defined-only "$lib/libcpc.a" | only_api; }
so_versioned() {
	objdump -T "$lib/libcpc.so" | awk '/ DF | DO / && $NF ~ /^(cpc_|pctx_|gethrtime|processor_bind)/ {
		n++; if ($(NF - 1) != "PMCOMPAT_1.0") { bad = 1; print } }
		END { exit bad || !n }'
}
check "libcpc.so exports the API only" so_only_api
check "libcpc.so versions every symbol PMCOMPAT_1.0" so_versioned
check "libcpc.a defines the API only" a_only_api
check "make uninstall" make -s -C "$TOP/tools" O="$O" uninstall DESTDIR="$stage" PREFIX=/usr
check "nothing left after make uninstall" sh -c "[ -z \"\$(find '$stage' -mindepth 1)\" ] || find '$stage' -mindepth 1"

totals
