#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the installed pmcompat selftests ("make -C tests/selftests install
# INSTALL_PATH=DIR", or the top-level "make kselftest-install"), laid out as
# the kernel's own installed selftests are: this script and
# kselftest-list.txt ("collection:program" lines) in DIR, the programs of a
# collection in DIR/<collection>, with its "settings" (timeout=SECONDS).
# The options are those of the kernel's run_kselftest.sh that apply here.
#
# Output is TAP: one "ok"/"not ok" line per program (exit 4 is a skip, a
# timeout is "not ok ... # TIMEOUT"), each program's own TAP before it
# with "# " in front, then one "# Totals:" line that sums the programs'
# own test counts.  Run as root, with the module loaded (modprobe pmcompat).
BASE_DIR=$(cd "$(dirname "$0")" && pwd)
LIST=$BASE_DIR/kselftest-list.txt

usage()
{
	cat <<EOF
Usage: $0 [OPTIONS]
  -s | --summary		Print one line per program (and its totals); the programs' output goes to output.log
  -t | --test COLLECTION:TEST	Run TEST from COLLECTION (or just TEST)
  -c | --collection COLLECTION	Run all tests from COLLECTION
  -l | --list			List the available collection:test entries
  -d | --dry-run		Don't actually run any tests
  -o | --override-timeout SECS	Number of seconds after which a program times out
  -h | --help			Show this usage info
EOF
	exit "$1"
}

if [ -r "$LIST" ]; then
	available=$(cat "$LIST")
else
	echo "$0: no list of tests to run ($LIST)" >&2
	available=
fi

summary='' dryrun='' override_timeout='' selected=''
while [ $# -gt 0 ]; do
	case $1 in
	-s|--summary) summary=1; shift ;;
	-t|--test) [ $# -ge 2 ] || usage 1; selected="$selected $2"; shift 2 ;;
	-c|--collection)
		[ $# -ge 2 ] || usage 1
		found=$(echo "$available" | grep "^$2:")
		if [ -z "$found" ]; then
			echo "No such collection '$2'" >&2
			exit 1
		fi
		selected="$selected $found"
		shift 2 ;;
	-l|--list) echo "$available"; exit 0 ;;
	-d|--dry-run) dryrun=1; shift ;;
	-o|--override-timeout) [ $# -ge 2 ] || usage 1; override_timeout=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	*) usage 1 ;;
	esac
done
case $override_timeout in
''|[1-9]|[1-9][0-9]*) ;;
*) echo "$0: bad timeout '$override_timeout'" >&2; exit 1 ;;
esac

# A test named without its collection is looked up in every collection.
if [ -n "$selected" ]; then
	run=''
	for t in $selected; do
		case $t in
		*:*) found=$(echo "$available" | grep -x -F "$t") ;;
		*) found=$(echo "$available" | grep -E "^[^:]+:$t\$") ;;
		esac
		if [ -z "$found" ]; then
			echo "No such test '$t'" >&2
			exit 1
		fi
		run="$run $found"
	done
else
	run=$available
fi

# The programs' output goes to descriptor 3: standard output, or with -s
# output.log.
logfile=
if [ -n "$summary" ]; then
	logfile=$BASE_DIR/output.log
	exec 3>"$logfile"
else
	exec 3>&1
fi

# GNU timeout's --foreground lets a program that reads the terminal run on;
# busybox's timeout has no options and reports a timeout as 143 (SIGTERM).
timeout_cmd=''
if command -v timeout >/dev/null 2>&1; then
	if timeout --foreground 5 true 2>/dev/null; then
		timeout_cmd='timeout --foreground'
	else
		timeout_cmd='timeout'
	fi
fi

prefix()
{
	while IFS= read -r line || [ -n "$line" ]; do
		printf '# %s\n' "$line"
	done
}

total=$(echo "$run" | wc -w)
echo "TAP version 13"
echo "1..$total"
n=0 progs_fail=0 pass=0 fail=0 skip=0 xfail=0 xpass=0 error=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmcompat-ksft.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
for entry in $run; do
	n=$((n + 1))
	collection=${entry%%:*}
	prog=${entry#*:}
	dir=$BASE_DIR/$collection
	hdr="selftests: $collection: $prog"
	timeout=45
	if [ -r "$dir/settings" ]; then
		t=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$dir/settings" | tail -n 1)
		[ -n "$t" ] && timeout=$t
	fi
	[ -n "$override_timeout" ] && timeout=$override_timeout
	echo "# $hdr" >&3
	if [ ! -x "$dir/$prog" ]; then
		echo "# $hdr: $dir/$prog is missing"
		echo "not ok $n $hdr"
		progs_fail=$((progs_fail + 1))
		continue
	fi
	if [ -n "$dryrun" ]; then
		echo "# $hdr: would run $dir/$prog (timeout $timeout s)"
		echo "ok $n $hdr # SKIP dry run"
		continue
	fi
	[ -w /dev/kmsg ] && echo "kselftest: Running tests in $collection: $prog" >/dev/kmsg
	# The program's output, as it comes, into the log (prefixed) and a
	# copy for the totals; its exit status through a file.
	(cd "$dir" && { $timeout_cmd ${timeout_cmd:+"$timeout"} "./$prog" 2>&1; echo $? >"$tmp/rc"; }) |
		tee "$tmp/out" | prefix >&3
	rc=$(cat "$tmp/rc")
	case $rc in
	0) echo "ok $n $hdr" ;;
	4) echo "ok $n $hdr # SKIP" ;;
	124|143)
		if [ -n "$timeout_cmd" ]; then
			echo "not ok $n $hdr # TIMEOUT $timeout seconds"
		else
			echo "not ok $n $hdr # exit=$rc"
		fi
		progs_fail=$((progs_fail + 1)) ;;
	*) echo "not ok $n $hdr # exit=$rc"; progs_fail=$((progs_fail + 1)) ;;
	esac
	# The harness's own count of the program's tests ("# Totals: pass:N
	# fail:N xfail:N xpass:N skip:N error:N").
	tl=$(grep '^# Totals: ' "$tmp/out" | tail -n 1)
	if [ -n "$tl" ]; then
		[ -n "$summary" ] && echo "# $prog: ${tl#\# }"
		for kv in ${tl#\# Totals: }; do
			v=${kv#*:}
			case $v in *[!0-9]*|'') continue ;; esac
			case ${kv%%:*} in
			pass) pass=$((pass + v)) ;;
			fail) fail=$((fail + v)) ;;
			skip) skip=$((skip + v)) ;;
			xfail) xfail=$((xfail + v)) ;;
			xpass) xpass=$((xpass + v)) ;;
			error) error=$((error + v)) ;;
			esac
		done
		# Which tests failed or skipped, and why, for the summary.
		if [ -n "$summary" ]; then
			grep -E '^(not ok [0-9]+ |ok [0-9]+ .*# SKIP)' "$tmp/out" | sed 's/^/#   /'
		fi
	elif [ "$rc" != 0 ] && [ "$rc" != 4 ]; then
		error=$((error + 1))
	fi
done
[ -n "$summary" ] && echo "# the programs' output: $logfile"
echo "# Totals: pass:$pass fail:$fail xfail:$xfail xpass:$xpass skip:$skip error:$error"
[ "$progs_fail" -eq 0 ]
