#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The installed headers and libraries as a Solaris or BSD programmer meets
# them (issue 13): a staged "make -C tools install", then programs built with
# nothing but the stage's include and library directories (standing in for
# the default paths), every header in strict C and C++, any include order,
# and "make uninstall" leaving the stage empty.  Then the top-level install
# (issue 24, review M7/L7): multiarch libraries, a versioned
# libpmcompat-bsd, no build path in the debug info, processor_bind(3), the
# udev rule, group and boot-time load under /usr/lib, depmod after the
# module, the module in one place (make install or make install-dkms), and
# make uninstall without a kernel build tree.  TAP, with a kselftest-style
# "# Totals:" line.  TOP and O are filled in when the test is built.
TOP=@TOP@
O=@O@
stage=$(mktemp -d)
work=$(mktemp -d)
root=$(mktemp -d)
trap 'rm -rf "$stage" "$work" "$root"' EXIT
. "$TOP/tests/unit/tap.sh"

fails() { ! "$@"; }

echo "TAP version 13"
echo "1..47"
inc=$stage/usr/include
# Debian's multiarch directory, as tools/Makefile finds it.
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || cc -print-multiarch)
lib=$stage/usr/lib${ma:+/$ma}
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
# libcpc.a: the API, and the core's few calls for its strtoset.o member,
# under names reserved to the implementation (__cpc_*).
a_api='^(cpc_|pctx_|gethrtime$|processor_bind$|__cpc_)'
# The defined global symbols of a listing (nm) that are not the API: none.
only_api() {
	awk 'NF >= 3 && $2 ~ /^[TDBRVW]$/ { print $3 }' | sed 's/@.*//' >"$work/syms"
	[ -s "$work/syms" ] || { echo "no symbols"; return 1; }
	! grep -Ev "${1:-$api}" "$work/syms"
}
so_only_api() { nm -D --defined-only "$lib/libcpc.so" | only_api; }
a_only_api() { nm -g --defined-only "$lib/libcpc.a" | only_api "$a_api"; }
so_versioned() {
	objdump -T "$lib/libcpc.so" | awk '/ DF | DO / && $NF ~ /^(cpc_|pctx_|gethrtime|processor_bind)/ {
		n++; if ($(NF - 1) != "PMCOMPAT_1.0") { bad = 1; print } }
		END { exit bad || !n }'
}
check "libcpc.so exports the API only" so_only_api
check "libcpc.so versions every symbol PMCOMPAT_1.0" so_versioned
check "libcpc.a defines the API only" a_only_api
check "make uninstall" make -s -C "$TOP/tools" O="$O" uninstall DESTDIR="$stage" PREFIX=/usr
empty() { [ -z "$(find "$1" -mindepth 1)" ] || { find "$1" -mindepth 1; false; }; }
check "nothing left after make uninstall" empty "$stage"

# --- The top-level install (issue 24) ---------------------------------------
# make install-common: everything but the module (no kernel tree needed).
top() { make -s --no-print-directory -C "$TOP" BUILD="$O" PREFIX=/usr "$@"; }
check "make install-common" top install-common DESTDIR="$stage"
check "libraries in the multiarch directory /usr/lib/$ma" sh -c "[ -n '$ma' ] &&
	[ -f '$lib/libcpc.so.1' ] && [ -f '$lib/libpmcompat-bsd.so.1' ] &&
	[ -f '$lib/pkgconfig/libcpc.pc' ] && ! [ -e '$stage/usr/lib/libcpc.so.1' ]"
check "libcpc.pc names the multiarch libdir" \
	grep -qx "libdir=\${prefix}/lib/$ma" "$lib/pkgconfig/libcpc.pc"
bsd_versioned() {
	objdump -T "$lib/libpmcompat-bsd.so.1" | awk '/ DF | DO / && !/\*UND\*|\*ABS\*/ {
		print $(NF - 1), $NF; n++ } END { exit n != 1 }' >"$work/bsdsyms" &&
	grep -qx 'PMCOMPAT_BSD_1.0 sysctl' "$work/bsdsyms" || { cat "$work/bsdsyms"; false; }
}
check "libpmcompat-bsd.so.1 exports sysctl@@PMCOMPAT_BSD_1.0 only" bsd_versioned
no_build_path() {
	for f in "$lib/libcpc.so.1" "$lib/libpmcompat-bsd.so.1" "$lib/libcpc.a" "$stage"/usr/bin/*; do
		if grep -q -F "$TOP" "$f"; then echo "$f names $TOP"; return 1; fi
	done
}
check "no build path ($TOP) in the installed binaries' debug info" no_build_path
check "processor_bind(3): section 3, not Solaris' 2" sh -c "
	grep -qx '.Dt PROCESSOR_BIND 3' '$stage/usr/share/man/man3/processor_bind.3' &&
	! [ -e '$stage/usr/share/man/man2' ] &&
	! grep -q 'Xr processor_bind 2' '$stage/usr/share/man/man3/libcpc.3lib'"
check "udev rule, sysusers and modules-load.d under /usr/lib" sh -c "
	[ -f '$stage/usr/lib/udev/rules.d/60-pmcompat.rules' ] && ! [ -e '$stage/lib' ] &&
	grep -qx 'g pmcompat -' '$stage/usr/lib/sysusers.d/pmcompat.conf' &&
	grep -qx pmcompat '$stage/usr/lib/modules-load.d/pmcompat.conf'"
check "no module and no DKMS tree from install-common" sh -c "
	! [ -e '$stage/usr/src' ] && ! find '$stage' -name '*.ko' | grep -q ."
check "make uninstall without a kernel build tree" top uninstall DESTDIR="$stage" KDIR=/nonexistent
check "nothing left after the top-level uninstall" empty "$stage"

# make install-dkms: the DKMS tree, whose dkms.conf installs to
# updates/dkms, and no prebuilt module.
check "make install-dkms" top install-dkms DESTDIR="$stage" KDIR=/nonexistent
v=$(cat "$TOP/VERSION")
check "DKMS tree: dkms.conf installs to /updates/dkms, no prebuilt module" sh -c "
	grep -qx 'DEST_MODULE_LOCATION\[0\]=\"/updates/dkms\"' '$stage/usr/src/pmcompat-$v/dkms.conf' &&
	grep -qx 'PACKAGE_VERSION=\"$v\"' '$stage/usr/src/pmcompat-$v/dkms.conf' &&
	[ -f '$stage/usr/src/pmcompat-$v/Kbuild' ] && ! [ -e '$stage/lib' ]"
check "make uninstall removes the DKMS tree" sh -c "
	make -s --no-print-directory -C '$TOP' BUILD='$O' PREFIX=/usr uninstall DESTDIR='$stage' KDIR=/nonexistent &&
	[ -z \"\$(find '$stage' -mindepth 1)\" ]"

# make install-module: the module built for a kernel (the one make all built
# it for), into a root that holds that kernel's modules: depmod runs, so
# modprobe finds it in extra/.
ko=$(ls "$O"/kmod/*/pmcompat.ko 2>/dev/null | head -n 1)
kver=${ko%/pmcompat.ko}
kver=${kver##*/}
mkdir -p "$root/lib/modules/$kver/kernel"
prebuilt() {
	[ -n "$ko" ] || { echo "no module built under $O/kmod"; return 1; }
	top -o modules install-module DESTDIR="$root" KVER="$kver" KMOD="${ko%/pmcompat.ko}"
}
check "make install-module into a root with the kernel's modules" prebuilt
check "depmod ran: modprobe finds pmcompat in extra/" sh -c "
	/sbin/modprobe -d '$root' -S '$kver' --show-depends pmcompat |
	grep -q '/lib/modules/$kver/extra/pmcompat.ko'"
check "make uninstall removes the module and runs depmod again" sh -c "
	make -s --no-print-directory -C '$TOP' BUILD='$O' PREFIX=/usr uninstall DESTDIR='$root' KDIR=/nonexistent &&
	! [ -e '$root/lib/modules/$kver/extra' ] &&
	! grep -q pmcompat '$root/lib/modules/$kver/modules.dep'"

# A user's make and make install (issue 34): the default target builds the
# module and the tools only; -Werror only with WERROR=1 (check, lint, the
# lanes); a clear error when there is no build tree; make install without
# DESTDIR refuses a module built for a kernel that is not running, naming
# the headers package.  MODDIR and DEPMOD keep a failure of these checks
# from touching the host.
check "make's default target is the module and the tools" sh -c "
	make -pq -C '$TOP' BUILD='$O' kdir-check KDIR=/nonexistent 2>/dev/null |
	grep -qx 'all: modules tools' &&
	! make -pq -C '$TOP' BUILD='$O' kdir-check KDIR=/nonexistent 2>/dev/null |
	grep -E '^all:.*(selftests|unit)'"
printf 'kwarn:\n\t@echo "[$(KWARN)]"\n' >"$work/kwarn.mk"
check "no -Werror by default" sh -c "
	[ \"\$(make -s --no-print-directory -C '$TOP' -f Makefile -f '$work/kwarn.mk' kwarn)\" = '[]' ]"
check "-Werror with WERROR=1" sh -c "
	[ \"\$(make -s --no-print-directory -C '$TOP' -f Makefile -f '$work/kwarn.mk' kwarn WERROR=1)\" = \
	  '[W=1 KCFLAGS=-Werror]' ]"
check "no build tree for the running kernel: says so, names the headers package" sh -c "
	! make -s --no-print-directory -C '$TOP' BUILD='$O' PREFIX=/usr modules RUNNING=9.9.9-nothere >'$work/nokdir' 2>&1 &&
	grep -q 'no build tree for the running kernel 9.9.9-nothere' '$work/nokdir' &&
	grep -q 'install linux-headers-9.9.9-nothere' '$work/nokdir'"
check "KDIR that is no build tree: a clear error" sh -c "
	! make -s --no-print-directory -C '$TOP' BUILD='$O' PREFIX=/usr modules KDIR='$work' >'$work/badkdir' 2>&1 &&
	grep -q 'KDIR=$work is not a kernel build tree' '$work/badkdir'"
check "make install (no DESTDIR) for another kernel: refuses, names the headers package" sh -c "
	! make -s --no-print-directory -C '$TOP' BUILD='$O' PREFIX=/usr -o modules install-module MODDIR='$root/lib/modules' DEPMOD=true KVER='$kver' \
		KMOD='${ko%/pmcompat.ko}' RUNNING=9.9.9-running >'$work/other' 2>&1 &&
	grep -q 'built for $kver, but 9.9.9-running is running' '$work/other' &&
	grep -q 'install linux-headers-9.9.9-running' '$work/other' &&
	! [ -e '$root/lib/modules/$kver/extra/pmcompat.ko' ]"
check "make install (no DESTDIR) for the running kernel installs" sh -c "
	make -s --no-print-directory -C '$TOP' BUILD='$O' PREFIX=/usr -o modules install-module MODDIR='$root/lib/modules' DEPMOD=true KVER='$kver' \
		KMOD='${ko%/pmcompat.ko}' RUNNING='$kver' &&
	[ -f '$root/lib/modules/$kver/extra/pmcompat.ko' ] &&
	rm -rf '$root/lib/modules/$kver/extra'"

# The package route's one build-dependency line (README: apt-get build-dep
# ./) resolves from debian/control, simulated.
check "apt-get build-dep ./ resolves debian/control's build dependencies" sh -c "
	! command -v apt-get >/dev/null ||
	(cd '$TOP' && apt-get -s -q build-dep ./ >'$work/bdep' 2>&1 &&
	 grep -qE '^(Inst|Conf|0 upgraded)|newly installed' '$work/bdep')"

# The selftests installed the kselftest way (make -C tests/selftests
# install; install-only copies the programs make all built) and their
# runner, run_kselftest.sh, on programs of its own: exit 0 passes, exit 4
# skips, the "# Totals:" lines are summed, -s keeps the output in
# output.log, -o times a program out.
ks=$work/ksft
check "kselftest install: run_kselftest.sh, kselftest-list.txt, the programs" sh -c "
	make -s --no-print-directory -C '$TOP/tests/selftests' install-only O='$O/selftests' \
		INSTALL_PATH='$ks' >/dev/null &&
	[ -x '$ks/run_kselftest.sh' ] && [ -s '$ks/kselftest-list.txt' ] &&
	[ -f '$ks/pmcompat/settings' ] && [ -f '$ks/pmcompat/config' ] &&
	[ -x '$ks/pmcompat/uprofile-hot-example' ] &&
	for t in \$(sed 's/^pmcompat://' '$ks/kselftest-list.txt'); do [ -x '$ks/pmcompat/'\$t ] || exit 1; done"
check "run_kselftest.sh -l: every installed test program, the fuzzer not among them" sh -c "
	'$ks/run_kselftest.sh' -l >'$work/list' &&
	grep -qx pmcompat:module_test '$work/list' && grep -qx pmcompat:pmcompat_check_test '$work/list' &&
	grep -qx pmcompat:realpmu_test '$work/list' && ! grep -q fuzz '$work/list' &&
	[ \$(wc -l <'$work/list') -eq \$(ls '$ks/pmcompat' | grep -c '_test') ]"
mkdir -p "$work/kt/c"
printf '#!/bin/sh\necho "TAP version 13"\necho "ok 1 a"\necho "ok 2 b # SKIP needs the test PMU"\necho "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0"\n' >"$work/kt/c/good"
printf '#!/bin/sh\necho "not ok 1 c"\necho "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"\nexit 1\n' >"$work/kt/c/bad"
printf '#!/bin/sh\nexit 4\n' >"$work/kt/c/skipped"
printf '#!/bin/sh\nsleep 30\n' >"$work/kt/c/slow"
chmod +x "$work/kt/c/good" "$work/kt/c/bad" "$work/kt/c/skipped" "$work/kt/c/slow"
cp "$TOP/tests/selftests/run_kselftest.sh" "$work/kt/"
printf 'c:good\nc:bad\nc:skipped\n' >"$work/kt/kselftest-list.txt"
check "run_kselftest.sh: ok, not ok, SKIP per program; the tests' totals summed; exit 1 on a failure" sh -c "
	! '$work/kt/run_kselftest.sh' >'$work/run' &&
	grep -qx '1..3' '$work/run' &&
	grep -qx 'ok 1 selftests: c: good' '$work/run' &&
	grep -qx 'not ok 2 selftests: c: bad # exit=1' '$work/run' &&
	grep -qx 'ok 3 selftests: c: skipped # SKIP' '$work/run' &&
	grep -qx '# ok 2 b # SKIP needs the test PMU' '$work/run' &&
	grep -qx '# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0' '$work/run'"
check "run_kselftest.sh -s -t: one line per program, its totals and skips; the output in output.log" sh -c "
	'$work/kt/run_kselftest.sh' -s -t good -t c:skipped >'$work/run' &&
	grep -qx '1..2' '$work/run' && grep -qx '# good: Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0' '$work/run' &&
	grep -qx '#   ok 2 b # SKIP needs the test PMU' '$work/run' && ! grep -q '^# ok 1 a' '$work/run' &&
	grep -qx '# ok 1 a' '$work/kt/output.log'"
check "run_kselftest.sh: an unknown test is refused; -o times a program out" sh -c "
	! '$work/kt/run_kselftest.sh' -t nosuch 2>/dev/null &&
	printf 'c:slow\n' >'$work/kt/kselftest-list.txt' &&
	! '$work/kt/run_kselftest.sh' -o 1 >'$work/run' &&
	grep -qx 'not ok 1 selftests: c: slow # TIMEOUT 1 seconds' '$work/run'"

totals
