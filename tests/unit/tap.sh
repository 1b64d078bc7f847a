# SPDX-License-Identifier: GPL-2.0
#
# TAP for the host's shell tests, sourced by them: "check NAME COMMAND..."
# runs COMMAND and prints "ok N NAME", or "not ok N NAME" and the first
# lines of its output (kept in $work/out: the test sets $work); "totals"
# prints the kselftest-style "# Totals:" line and fails if a check did.
n=0 pass=0 fail=0

check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@" >"$work/out" 2>&1; then
		pass=$((pass + 1))
		echo "ok $n $name"
	else
		fail=$((fail + 1))
		echo "not ok $n $name"
		sed 's/^/# /' "$work/out" | head -n 20
	fi
}

totals() {
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	[ "$fail" -eq 0 ]
}
