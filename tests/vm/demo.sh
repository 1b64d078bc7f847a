#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the stock-lane VM for "make demo": shows each device and tool.
echo "--- pmcompat demo ---"
echo "\$ cat /sys/module/pmcompat/version"
cat /sys/module/pmcompat/version
echo "\$ ls -l /dev/pctr /dev/perfmon /dev/pfcntr /dev/cpc"
ls -l /dev/pctr /dev/perfmon /dev/pfcntr /dev/cpc 2>&1
echo "\$ rmmod pmcompat && insmod /pmcompat/pmcompat.ko"
rmmod pmcompat && insmod /pmcompat/pmcompat.ko && echo "reloaded: $(cat /sys/module/pmcompat/version)"
echo "--- end of demo ---"
