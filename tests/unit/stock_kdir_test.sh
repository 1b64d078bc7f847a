#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/stock-kdir, the kernel picking of every lane and of "make demo",
# on a made-up system root (PMCOMPAT_SYSROOT) holding both of Debian's
# release naming schemes (6.1.0-56-amd64, 6.12.117+deb12-amd64), the other
# flavours, headers without an image and the other way round.  TAP, with a
# kselftest-style "# Totals:" line.  TOP is filled in when the test is built.
TOP=@TOP@
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
pick=$TOP/tests/vm/stock-kdir
n=0 pass=0 fail=0

# kernel RELEASE [boot|lib|none] [headers|noheaders]
kernel() {
	if [ "${3:-headers}" = headers ]; then
		mkdir -p "$root/usr/src/linux-headers-$1/include/generated"
		echo "#define UTS_RELEASE \"$1\"" >"$root/usr/src/linux-headers-$1/include/generated/utsrelease.h"
	fi
	case ${2:-boot} in
	boot) mkdir -p "$root/boot" && : >"$root/boot/vmlinuz-$1" ;;
	lib) mkdir -p "$root/usr/lib/modules/$1" && : >"$root/usr/lib/modules/$1/vmlinuz" ;;
	esac
}

check() {	# check NAME EXPECTED ARGS...
	local name=$1 want=$2 got
	shift 2
	n=$((n + 1))
	got=$(PMCOMPAT_SYSROOT=$root "$pick" "$@" 2>&1 | sed "s|$root||g" | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
		echo "ok $n $name"
	else
		fail=$((fail + 1))
		echo "not ok $n $name"
		echo "# want: $want"
		echo "#  got: $got"
	fi
}

echo "TAP version 13"
echo "1..11"
kernel 6.1.0-56-amd64
kernel 6.1.0-55-amd64
kernel 6.1.0-57-amd64 none		# headers left behind, image removed
kernel 6.1.0-56-rt-amd64
kernel 6.12.117+deb12-amd64
kernel 6.12.48+deb12-amd64
kernel 6.12.117+deb12-rt-amd64
kernel 6.12.117+deb12-cloud-amd64
kernel 6.16.3+bpo-amd64 boot noheaders	# image without headers
H=/usr/src/linux-headers-

check "newest under either scheme" "${H}6.12.117+deb12-amd64 " 
check "one per series, oldest first" "${H}6.1.0-56-amd64 ${H}6.12.117+deb12-amd64 " --all
check "images of each series" "/boot/vmlinuz-6.1.0-56-amd64 /boot/vmlinuz-6.12.117+deb12-amd64 " --all --image
check "a series' newest by version, not by name" "${H}6.12.117+deb12-amd64 " --series 6.12
check "6.1's newest with an image" "${H}6.1.0-56-amd64 " --series 6.1
check "PREEMPT_RT only for rt-amd64" "${H}6.12.117+deb12-rt-amd64 " rt-amd64

kernel 7.2.13+deb14-amd64 lib		# sid places the image in /usr/lib/modules
check "image in /usr/lib/modules" "/usr/lib/modules/7.2.13+deb14-amd64/vmlinuz " --image
check "no such series" "stock-kdir: no linux-image-*-amd64 of Linux 5.10 with matching linux-headers fetched " --series 5.10
rm -rf "$root/usr/src" "$root/boot" "$root/usr/lib"
check "nothing installed" "stock-kdir: no linux-image-*-amd64 with matching linux-headers fetched "

# Without PMCOMPAT_SYSROOT the kernels are kernel-fetch's (fetched into the
# cache, never installed), not the host's /usr/src and /boot: a copy of
# stock-kdir beside a stand-in kernel-fetch that prints the made-up root.
mkdir -p "$root/bin"
cp "$pick" "$root/bin/stock-kdir"
printf '#!/bin/sh\necho "%s/fetched"\necho "$1" >"%s/flavour"\n' "$root" "$root" >"$root/bin/kernel-fetch"
chmod +x "$root/bin/kernel-fetch"
sys=$root
root=$root/fetched
kernel 6.1.0-56-amd64
kernel 6.1.0-56-rt-amd64
root=$sys
n=$((n + 1))
got=$(env -u PMCOMPAT_SYSROOT "$root/bin/stock-kdir" 2>&1 | sed "s|$root||g")
if [ "$got" = "/fetched${H}6.1.0-56-amd64" ] && [ "$(cat "$root/flavour")" = amd64 ]; then
	pass=$((pass + 1)); echo "ok $n the kernel comes from kernel-fetch's root"
else
	fail=$((fail + 1)); echo "not ok $n the kernel comes from kernel-fetch's root"; echo "#  got: $got"
fi
n=$((n + 1))
got=$(env -u PMCOMPAT_SYSROOT "$root/bin/stock-kdir" --image rt-amd64 2>&1 | sed "s|$root||g")
if [ "$got" = "/fetched/boot/vmlinuz-6.1.0-56-rt-amd64" ] && [ "$(cat "$root/flavour")" = rt-amd64 ]; then
	pass=$((pass + 1)); echo "ok $n the rt kernel too, fetched as rt-amd64"
else
	fail=$((fail + 1)); echo "not ok $n the rt kernel too, fetched as rt-amd64"; echo "#  got: $got"
fi

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
