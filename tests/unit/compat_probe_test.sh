#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compat/probe, the kernel feature probes' driver, on made-up probes, a
# made-up compiler and a made-up Module.symvers: a probe that compiles and
# whose symbols are exported says yes; a compile error, a missing export or
# an export into a namespace (perf_get_x86_pmu_capability since 6.19) says
# no, with the reason in the header and the log; a failed required probe
# stops the build with its message.  Then the real probes' answers for
# every kernel the module was built for (build/kmod/<release>/generated):
# exactly one of the dumpability macros each.  TAP, with a kselftest-style "# Totals:" line.  TOP is filled in
# when the test is built.
TOP=@TOP@
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$TOP/tests/unit/tap.sh"

# A "compiler" that fails on any source containing "BROKEN".
cat >"$work/cc" <<'CC'
#!/bin/sh
for a; do src=$a; done
if grep -q BROKEN "$src"; then echo "$src:1:1: error: BROKEN here" >&2; exit 1; fi
exit 0
CC
chmod +x "$work/cc"
mkdir -p "$work/kernel/include/generated" "$work/probes"
echo '#define UTS_RELEASE "9.9.9-test"' >"$work/kernel/include/generated/utsrelease.h"
printf '0x0\tgood_sym\tvmlinux\tEXPORT_SYMBOL_GPL\t\n' >"$work/kernel/Module.symvers"
printf '0x0\tkvm_sym\tvmlinux\tEXPORT_SYMBOL_GPL\tmodule:kvm,kvm-amd\n' >>"$work/kernel/Module.symvers"
echo '/* pmc-probe-export: good_sym */' >"$work/probes/have_good.c"
echo 'BROKEN' >"$work/probes/have_broken.c"
echo '/* pmc-probe-export: kvm_sym */' >"$work/probes/have_kvm_only.c"
echo '/* pmc-probe-export: gone_sym */' >"$work/probes/have_gone.c"
run() { "$TOP/compat/probe" "$work/out.h" "$work/kernel/Module.symvers" "$work/probes" -- "$work/cc" "$@"; }

echo "TAP version 13"
echo "1..8"
check "probes run" run -O2
check "yes: compiles, exported" grep -qx '#define PMC_HAVE_GOOD 1' "$work/out.h"
check "no: does not compile" grep -q '/\* #undef PMC_HAVE_BROKEN: does not compile: have_broken.c:1:1: error: BROKEN here \*/' "$work/out.h"
check "no: exported only to KVM's namespace" grep -q '#undef PMC_HAVE_KVM_ONLY: kvm_sym is exported only to namespace module:kvm,kvm-amd' "$work/out.h"
check "no: not exported" grep -q 'PMC_HAVE_GONE: no: gone_sym is not exported' "$work/out.h.log"

echo '/* pmc-probe-required: the frobnicator API */ BROKEN' >"$work/probes/required_frob.c"
rm -f "$work/out.h"
stops() { ! run 2>"$work/fatal" && [ ! -e "$work/out.h" ]; }
check "a failed required probe stops the build" stops
check "and names what is missing" grep -q 'pmcompat: cannot build for Linux 9.9.9-test: the frobnicator API' "$work/fatal"
rm "$work/probes/required_frob.c"

# One of the two ways to read a task's dumpability, on every kernel built
# so far (build/kmod/<release>/generated/pmc_config.h).
one_dumpable() {
	local h found=0
	for h in "$TOP"/build/kmod/*/generated/pmc_config.h; do
		[ -e "$h" ] || continue
		found=1
		[ "$(grep -c -E '^#define PMC_HAVE_(TASK_EXEC_STATE|MM_DUMPABLE) 1$' "$h")" = 1 ] ||
			{ echo "$h"; cat "$h"; return 1; }
	done
	[ $found = 1 ]
}
check "every built kernel: exactly one dumpability probe" one_dumpable

totals
