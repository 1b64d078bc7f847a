#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the stock-lane VM for "make demo": shows each device and tool.
# Hardware events come from the test PMU: each "inject" line below is what a
# real CPU would have counted.
inject=/sys/kernel/debug/fakepmu/inject
ncpu=$(grep -c ^processor /proc/cpuinfo)
run() { echo "\$ $*"; "$@" 2>&1; }
count_on_every_cpu() {	# event count mode
	c=0
	while [ $c -lt "$ncpu" ]; do
		echo "cpu=$c event=$1 count=$2 mode=$3" >$inject
		c=$((c + 1))
	done
	echo "  [test PMU: $2 events $1 in $3 mode on each of $ncpu CPUs]"
}

echo "--- pmcompat demo ---"
run cat /sys/module/pmcompat/version
run ls -l /dev/pctr

echo
echo "--- OpenBSD pctr(1) on /dev/pctr ---"
echo "\$ pctr -l | head -n 6"; pctr -l | head -n 6
run pctr -s 0 -f c0 -u -k
run pctr -s 1 -f 3c -m 0 -u
count_on_every_cpu 0x00c0 1234567 user
count_on_every_cpu 0x00c0 1000 kernel
count_on_every_cpu 0x003c 7654321 user
run pctr
run pctr -s 0 -f 0
run pctr -s 1 -f 0
run pctr

echo
echo "--- an OpenBSD program, built with README's compile line ---"
run /pmcompat/tests/openbsd-pctr-example
count_on_every_cpu 0x00c0 4242 user
run /pmcompat/tests/openbsd-pctr-example
run pctr -s 0 -f 0

echo
echo "--- FreeBSD perfmon(8) on /dev/perfmon: the sum over all CPUs ---"
run ls -l /dev/perfmon
echo "\$ perfmon -u -l 4 -c 'echo cpu=1 event=0xc0 count=250000 > $inject; echo cpu=2 event=0xc0 count=250000 > $inject' 0xc0"
perfmon -u -l 4 -c "echo cpu=1 event=0xc0 count=250000 > $inject; echo cpu=2 event=0xc0 count=250000 > $inject" 0xc0 2>&1
echo "  [each loop: 500000 instructions injected, half on CPU 1, half on CPU 2]"

echo
echo "--- Solaris libcpc on /dev/cpc: the man page's Example 1 ---"
echo "\$ EVENT0=sw_task_clock EVENT1=sw_page_faults solaris-cpc1-example | head -n 5"
EVENT0=sw_task_clock EVENT1=sw_page_faults /pmcompat/tests/solaris-cpc1-example 2>&1 | head -n 5
echo "  [real Linux software events, so no PMU is needed: task-clock ns, page faults]"
echo "\$ solaris-cpc1-example | head -n 3    # PAPI_tot_ins, PAPI_tot_cyc: no injection, no count"
/pmcompat/tests/solaris-cpc1-example 2>&1 | head -n 3

echo
echo "--- Tru64 UNIX pfm(7) on /dev/pfcntr ---"
run ls -l /dev/pfcntr
echo "# PAPI's EV6 calls: PCNTOPENALL (all CPUs summed), PCNTLOGSELECT (this process and"
echo "# what it starts), retired instructions and cycles; the command runs on CPU 1"
ev6="echo cpu=1 event=0x00c0 count=3000000 mode=user >$inject; echo cpu=1 event=0x003c count=5000000 mode=kernel >$inject; echo cpu=2 event=0x00c0 count=1000000 mode=user >$inject"
echo "\$ tru64-ev6-papi-example taskset -c 1 sh -c '$ev6'"
/pmcompat/tests/tru64-ev6-papi-example taskset -c 1 sh -c "$ev6" 2>&1
echo "  [test PMU: the command injects 3000000 instructions (user mode) and 5000000 cycles (kernel"
echo "   mode: EV6 counts both) on CPU 1, where it runs: counted; 1000000 instructions on CPU 2,"
echo "   where it does not run: not counted]"
echo "# EV5 in PCNTOPENEACH mode, PCNTLOGALL: instructions, branches (flow changes) and"
echo "# cycles of each whole CPU, a tick every 65536, 65536 and 16384 events"
cat >/tmp/tru64-load.sh <<EOF
c=0
while [ \$c -lt $ncpu ]; do
	echo "cpu=\$c event=0x00c0 count=\$(( (c + 1) * 100000 )) mode=user" >$inject
	echo "cpu=\$c event=0x00c4 count=\$(( (c + 1) * 30000 )) mode=kernel" >$inject
	echo "cpu=\$c event=0x003c count=\$(( (c + 1) * 1000000 )) mode=user" >$inject
	c=\$((c + 1))
done
EOF
run cat /tmp/tru64-load.sh
run /pmcompat/tests/tru64-ev5-each-example sh /tmp/tru64-load.sh
c=0
while [ $c -lt "$ncpu" ]; do
	i=$(( (c + 1) * 100000 )) b=$(( (c + 1) * 30000 )) y=$(( (c + 1) * 1000000 ))
	echo "  [test PMU: cpu $c: ticks $((i / 65536)) $((b / 65536)) $((y / 16384))" \
		"raw $((i % 65536)) $((b % 65536)) $((y % 16384)) counts $i $b $y]"
	c=$((c + 1))
done

echo
echo "--- Tru64 UNIX uprofile(1) and kprofile(1): PC profiles on /dev/pfcntr ---"
# uprofile-hot-example (tests/selftests/uprofile_hot.c) writes the run-time
# addresses of its functions hot_a and hot_b and its pid to a file, then spins
# on CPU 1 until SIGUSR1.  The test PMU takes 300 samples at hot_a and 100 at
# hot_b while it runs there (tid=: only while that thread is on the CPU).
hot=/pmcompat/tests/uprofile-hot-example
rm -f /tmp/hot.addrs
echo "\$ uprofile $hot 1 /tmp/hot.addrs"
uprofile $hot 1 /tmp/hot.addrs >/tmp/uprofile.out 2>&1 &
up=$!
n=0
while [ ! -s /tmp/hot.addrs ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
# shellcheck disable=SC2046
set -- $(cat /tmp/hot.addrs)
hot_a=$2 hot_b=$4 hot_pid=$6
inject_at() {	# samples address
	i=0
	until echo "cpu=1 tid=$hot_pid event=0x003c count=$(($1 * 65536)) mode=user ip=$2" >$inject 2>/dev/null; do
		i=$((i + 1))
		[ $i -ge 1000 ] && break
		sleep 0.01
	done
	echo "  [test PMU: $(($1 * 65536)) cycles in user mode at $2, on CPU 1: $1 samples]"
}
inject_at 300 "$hot_a"
inject_at 100 "$hot_b"
kill -USR1 "$hot_pid"
wait $up
cat /tmp/uprofile.out
vfs_read=$(grep ' [Tt] vfs_read$' /proc/kallsyms | cut -d' ' -f1)
kinj="echo cpu=2 event=0x003c count=$((5 * 65536)) mode=kernel ip=0x$vfs_read >$inject"
echo "\$ kprofile sh -c '$kinj'"
kprofile sh -c "$kinj" 2>&1
echo "  [test PMU: 5 samples of cycles in kernel mode at vfs_read (0x$vfs_read), on CPU 2]"

echo
echo "--- Solaris cpustat(8) and cputrack(1) on libcpc ---"
echo "# two sets taking turns, two intervals of 2 s; at 1 s, (cpu + 1) * 1000 instructions are"
echo "# injected on every CPU (counted by the first set), the second set counts real context switches"
echo "\$ cpustat -c pic0=PAPI_tot_ins,sys -c pic0=sw_context_switches,sys 2 2"
(
	sleep 1
	c=0
	while [ $c -lt "$ncpu" ]; do
		echo "cpu=$c event=0x00c0 count=$(( (c + 1) * 1000 )) mode=user" >$inject
		c=$((c + 1))
	done
) &
cpustat -c pic0=PAPI_tot_ins,sys -c pic0=sw_context_switches,sys 2 2 2>&1
wait
echo "# a command that forks (ls) and execs (true), followed (-f, -e), with LWP rows (-v)"
echo "\$ cputrack -fev -c sw_page_faults sh -c '/bin/busybox ls / >/dev/null; exec /bin/busybox true'"
cputrack -fev -c sw_page_faults sh -c '/bin/busybox ls / >/dev/null; exec /bin/busybox true' 2>&1
echo "  [exit status $?: the command's]"

echo
run rmmod pmcompat
run insmod /pmcompat/pmcompat.ko
echo "--- end of demo ---"
