# SPDX-License-Identifier: GPL-2.0
#
# pmcompat top-level Makefile.  See README.md.
#
#   make              module (against KDIR), tools, libraries and tests
#   make check        install missing packages, build, host tests, stock, PREEMPT_RT and debug lanes
#   make check-fast   host tests and the stock lane only
#   make demo         boot the stock lane and show the devices and tools at work
#   make bench        boot the stock lane under -icount: instructions per legacy call next to perf's
#                     (tests/bench/pmc_bench), then the overhead of cpustat and cputrack
#   make install      DESTDIR=... install module, headers, libraries, tools, man pages, udev rule, dkms source
#   make uninstall    DESTDIR=... remove what make install put there
#   make lint         checkpatch --strict and sparse on the kernel sources

VERSION := $(shell cat VERSION)
BUILD := $(CURDIR)/build
PREFIX ?= /usr
DESTDIR ?=

# The kernel to build the module against: the running kernel's build tree
# when it exists, else the newest installed Debian linux-headers-*-amd64 whose
# image is installed (either naming scheme, 6.1.0-56-amd64 or
# 6.12.117+deb12-amd64; never -rt-amd64 or -cloud-amd64: tests/vm/stock-kdir).
KDIR ?= $(shell d=/lib/modules/$$(uname -r)/build; \
		if [ -d $$d ]; then echo $$d; else tests/vm/stock-kdir; fi)
KVER = $(shell tests/vm/kernel-release $(KDIR))
KMOD = $(BUILD)/kmod/$(KVER)

# Kernel sources of the module (copied so each kernel gets its own objects).
KSRC := Kbuild VERSION module include uapi compat

LINUX_SRC_TAR := /usr/src/linux-source-6.12.tar.xz
KSFT := $(BUILD)/ksft
CHECKPATCH := $(BUILD)/checkpatch/scripts/checkpatch.pl

.PHONY: all modules tools selftests unit deps check check-fast demo install uninstall lint clean

all: modules tools selftests unit

modules:
	@mkdir -p $(KMOD)/tests
	@cp -a $(KSRC) $(KMOD)/
	@cp -a tests/fakepmu $(KMOD)/tests/
	$(MAKE) -C $(KDIR) M=$(KMOD) W=1 KCFLAGS=-Werror modules
	$(MAKE) -C $(KDIR) M=$(KMOD)/tests/fakepmu W=1 KCFLAGS=-Werror modules

tools:
	$(MAKE) -C tools O=$(BUILD)

$(KSFT)/kselftest_harness.h:
	@mkdir -p $(KSFT)
	tar -xJf $(LINUX_SRC_TAR) -C $(KSFT) --strip-components=4 \
		linux-source-6.12/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.12/tools/testing/selftests/kselftest.h

$(CHECKPATCH):
	@mkdir -p $(BUILD)/checkpatch
	tar -xJf $(LINUX_SRC_TAR) -C $(BUILD)/checkpatch --strip-components=1 \
		linux-source-6.12/scripts/checkpatch.pl linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch

selftests: $(KSFT)/kselftest_harness.h tools
	$(MAKE) -C tests/selftests O=$(BUILD)/selftests KSFT=$(KSFT)

unit: $(KSFT)/kselftest_harness.h $(CHECKPATCH)
	$(MAKE) -C tests/unit O=$(BUILD)

deps:
	@tests/vm/install-deps

check: deps
	@$(MAKE) -s all
	@tests/vm/run-all

check-fast: deps
	@$(MAKE) -s all
	@tests/vm/run-all --fast

# Benchmarks, not tests (not part of make check).  First the stock lane under
# QEMU -icount shift=0 (run-lane --bench) runs tests/bench/pmc_bench: guest
# instructions per call of each legacy path and of the perf call it wraps, for
# 1, 4 and 8 online CPUs (README: Benchmark).  Then a normal boot runs
# tools/cpctools/cpctools_bench: the overhead of cpustat and cputrack (CPU
# time, which icount would distort).
# On the oldest installed stock series (Debian 12: 6.1), where the README's
# figures were taken.
BENCH_SERIES = $(shell tests/vm/kernel-release --series $$(tests/vm/stock-kdir --all | head -n1))
.PHONY: bench
bench:
	@$(MAKE) -s all
	$(CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -static -Iuapi -Itools/libcpc \
		-o $(BUILD)/selftests/pmc_bench tests/bench/pmc_bench.c \
		$(BUILD)/lib/libcpc.a -lpfm -lpthread
	$(CC) -O2 -g -Wall -Wextra -o $(BUILD)/selftests/cpctools_bench \
		tools/cpctools/cpctools_bench.c -lpthread
	@PMCOMPAT_VM_SUFFIX=-bench-icount tests/vm/run-lane --lane stock --series $(BENCH_SERIES) \
		--bench --tests pmc_bench
	@PMCOMPAT_VM_SUFFIX=-bench tests/vm/run-lane --lane stock --series $(BENCH_SERIES) \
		--tests cpctools_bench

demo: deps
	@$(MAKE) -s all
	@tests/vm/run-lane --lane stock --demo

install: modules tools
	install -D -m 0644 $(KMOD)/pmcompat.ko $(DESTDIR)/lib/modules/$(KVER)/extra/pmcompat.ko
	install -D -m 0644 udev/60-pmcompat.rules $(DESTDIR)/lib/udev/rules.d/60-pmcompat.rules
	install -D -m 0644 udev/pmcompat.sysusers $(DESTDIR)$(PREFIX)/lib/sysusers.d/pmcompat.conf
	@# On the running system, create the group now (systemd-sysusers, else groupadd).
	if [ -z "$(DESTDIR)" ]; then \
		systemd-sysusers $(PREFIX)/lib/sysusers.d/pmcompat.conf 2>/dev/null || \
		getent group pmcompat >/dev/null || groupadd --system pmcompat; \
	fi
	$(MAKE) -C tools O=$(BUILD) DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) install
	for m in module/*.[1-9]; do \
		[ -e "$$m" ] || continue; \
		install -D -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man$${m##*.}/$${m##*/}; \
	done
	mkdir -p $(DESTDIR)$(PREFIX)/src/pmcompat-$(VERSION)
	cp -a $(KSRC) $(DESTDIR)$(PREFIX)/src/pmcompat-$(VERSION)/
	sed 's/@VERSION@/$(VERSION)/' dkms.conf.in >$(DESTDIR)$(PREFIX)/src/pmcompat-$(VERSION)/dkms.conf

# Remove what "install" puts in place (same DESTDIR and PREFIX): the list is
# that of an install into a scratch directory.  The pmcompat group stays.
uninstall: modules tools
	@t=$$(mktemp -d) && $(MAKE) -s install DESTDIR=$$t >/dev/null && \
	(cd $$t && find . ! -type d) | while read -r f; do \
		rm -f "$(DESTDIR)/$${f#./}"; done && \
	(cd $$t && find . -mindepth 1 -depth -type d) | while read -r d; do \
		rmdir "$(DESTDIR)/$${d#./}" 2>/dev/null || true; done; \
	rm -rf "$$t"
	if [ -z "$(DESTDIR)" ]; then ldconfig || true; depmod -a $(KVER) || true; fi

lint: $(CHECKPATCH)
	@tests/lint $(CHECKPATCH)

clean:
	rm -rf $(BUILD)
