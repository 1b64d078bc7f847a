#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Nothing installed into /boot (issue 34): tests/vm/install-deps asks for no
# linux-image-* or linux-headers-* package (and refuses one), and
# tests/vm/boot-guard, which run-all wraps around make check, sees a change
# to /boot, to GRUB's default or grubenv, on a made-up system root
# (PMCOMPAT_SYSROOT).  TAP, with a kselftest-style "# Totals:" line.  TOP is
# filled in when the test is built.
TOP=@TOP@
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$TOP/tests/unit/tap.sh"
guard=$TOP/tests/vm/boot-guard
sys=$work/root
export PMCOMPAT_SYSROOT=$sys

echo "TAP version 13"
echo "1..9"
check "install-deps lists packages" sh -c "'$TOP/tests/vm/install-deps' --list | grep -qx qemu-system-x86"
check "install-deps asks for no kernel image or headers" sh -c "
	! '$TOP/tests/vm/install-deps' --list | grep -E '^linux-(image|headers)-'"
check "install-deps --demo: the x86 set only, no kernel" sh -c "
	'$TOP/tests/vm/install-deps' --demo --list >'$work/demo' &&
	grep -qx qemu-system-x86 '$work/demo' && grep -qx busybox-static '$work/demo' &&
	! grep -qE '^(qemu-system-arm|gcc-aarch64-linux-gnu|lintian|mmdebstrap|linux-(image|headers)-)' '$work/demo' &&
	! grep -q ':arm64' '$work/demo'"
# A copy that asks for a kernel, run with apt and dpkg stand-ins that
# only say what they were asked (so that a failure here installs nothing).
sed 's/^\(pkgs=(\)$/\1 linux-image-amd64/' "$TOP/tests/vm/install-deps" >"$work/install-deps"
mkdir -p "$work/bin"
for t in apt-get apt-cache dpkg dpkg-query; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' "$t" "$work" >"$work/bin/$t"
	chmod +x "$work/bin/$t"
done
check "install-deps refuses a kernel package" sh -c "
	grep -q 'pkgs=( linux-image-amd64' '$work/install-deps' &&
	! PATH='$work/bin':\$PATH bash '$work/install-deps' >'$work/refuse' 2>&1 &&
	! grep -q 'apt-get install' '$work/calls' 2>/dev/null &&
	grep -q 'refusing to install a kernel (linux-image-amd64)' '$work/refuse'"

mkdir -p "$sys/boot/grub" "$sys/etc/default"
echo kernel >"$sys/boot/vmlinuz-6.1.0-56-amd64"
echo saved_entry=0 >"$sys/boot/grub/grubenv"
echo 'GRUB_DEFAULT=0' >"$sys/etc/default/grub"
"$guard" snapshot "$work/before"
check "unchanged: compare passes" "$guard" compare "$work/before"
echo kernel >"$sys/boot/vmlinuz-6.12.117+deb12-amd64"
check "a new kernel in /boot: compare fails and names it" sh -c "
	! '$guard' compare '$work/before' >'$work/out1' && grep -q '> boot /boot/vmlinuz-6.12.117' '$work/out1'"
rm "$sys/boot/vmlinuz-6.12.117+deb12-amd64"
echo saved_entry=1 >"$sys/boot/grub/grubenv"
check "GRUB's saved default changed: compare fails" sh -c "! '$guard' compare '$work/before'"
echo saved_entry=0 >"$sys/boot/grub/grubenv"
echo 'GRUB_DEFAULT=saved' >"$sys/etc/default/grub"
check "GRUB_DEFAULT changed: compare fails" sh -c "
	! '$guard' compare '$work/before' >'$work/out2' && grep -q 'GRUB_DEFAULT=saved' '$work/out2'"
echo 'GRUB_DEFAULT=0' >"$sys/etc/default/grub"
check "restored: compare passes again" "$guard" compare "$work/before"
totals
