# SPDX-License-Identifier: GPL-2.0
#
# pmcompat top-level Makefile.  See README.md and docs/testing.md.
#
#   make              the module (against the running kernel's build tree, or KDIR=) and the
#                     tools and libraries: what "make install" installs.  No tests, no -Werror.
#   make tests        the selftests and host unit tests (need Debian's linux-source-6.12)
#   make dev          all and tests against the newest fetched stock kernel, with -Werror
#                     (developers: what make built before issue 34)
#   make check        install missing build packages (never a kernel: the lanes' kernels are
#                     fetched into ~/.cache/pmcompat), build with -Werror, host tests, stock,
#                     PREEMPT_RT and debug lanes
#   make check-fast   host tests and the stock lane only
#   make demo         boot the stock lane and show the devices and tools at work
#   make bench        boot the stock lane under -icount: instructions per legacy call next to perf's
#                     (tests/bench/pmc_bench), then the overhead of cpustat and cputrack
#   make install      [DESTDIR=...] install the module built here, headers, libraries, tools, man
#                     pages, udev rule; without DESTDIR only for the running kernel
#   make install-dkms DESTDIR=... the same with the DKMS source tree instead of the built module
#   make uninstall    DESTDIR=... remove what either put there (no kernel build tree needed)
#   make lint         checkpatch --strict and sparse on the kernel sources, -Werror builds
#   make kselftest-install [INSTALL_PATH=DIR]  the selftests and run_kselftest.sh in DIR
#                     (default build/kselftest_install), to run on this machine
#   make arm64-user   cross build of the user space for arm64 (libcpc, cpustat, cputrack,
#                     uprofile, kprofile, pmcompat-check, the selftests that make sense there)
#                     into build/arm64/{bin,lib,selftests}, against tests/vm/arm64-fetch's sysroot

VERSION := $(shell cat VERSION)
BUILD := $(CURDIR)/build
PREFIX ?= /usr
DESTDIR ?=

# The kernel to build the module against: the running kernel's build tree
# (its linux-headers package), or KDIR=.  The test targets (check, demo,
# bench, lint) build against the kernels tests/vm/stock-kdir fetches into
# ~/.cache/pmcompat, never installed.
RUNNING := $(shell uname -r)
KDIR ?= /lib/modules/$(RUNNING)/build
KVER = $(shell tests/vm/kernel-release $(KDIR) 2>/dev/null)
KMOD = $(BUILD)/kmod/$(KVER)
# The headers package that gives the running kernel a build tree.
HEADERS_PKG := $(shell if command -v dpkg >/dev/null; then echo linux-headers-$(RUNNING); \
		elif command -v dnf >/dev/null; then echo kernel-devel-$(RUNNING); \
		else echo "the kernel headers of $(RUNNING)"; fi)
# WERROR=1 (make check, make lint, the lanes): warnings fail the build.  Not
# by default: a newer compiler's new warning must not stop a user's install.
WERROR ?=
KWARN = $(if $(filter 1,$(WERROR)),W=1 KCFLAGS=-Werror)

# Kernel sources of the module (copied so each kernel gets its own objects).
KSRC := Kbuild VERSION module uapi compat
# The kernel's architecture, from its configuration: the test PMU
# (tests/fakepmu) is an x86 PMU and is built for x86_64 kernels only.  For
# another architecture give ARCH and CROSS_COMPILE as to the kernel's own
# build (make modules KDIR=<arm64 tree> ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-).
KDIR_X86_64 = $(shell grep -qx 'CONFIG_X86_64=y' $(KDIR)/include/config/auto.conf 2>/dev/null && echo y)

LINUX_SRC_TAR := /usr/src/linux-source-6.12.tar.xz
KSFT := $(BUILD)/ksft
CHECKPATCH := $(BUILD)/checkpatch/scripts/checkpatch.pl

.PHONY: all modules kdir-check tools tests selftests unit deps check check-fast demo install uninstall lint clean

all: modules tools

tests: selftests unit

# A clear error when KDIR is no kernel build tree.
kdir-check:
	@if [ ! -r "$(KDIR)/include/generated/utsrelease.h" ]; then \
		if [ "$(origin KDIR)" = "file" ]; then \
			echo "pmcompat: no build tree for the running kernel $(RUNNING) ($(KDIR))."; \
			echo "pmcompat: install $(HEADERS_PKG), or give KDIR=<a kernel build tree>."; \
		else \
			echo "pmcompat: KDIR=$(KDIR) is not a kernel build tree (no include/generated/utsrelease.h)."; \
		fi >&2; \
		exit 1; \
	fi

modules: kdir-check
	@mkdir -p $(KMOD)/tests
	@cp -a $(KSRC) $(KMOD)/
	$(MAKE) -C $(KDIR) M=$(KMOD) $(KWARN) modules
ifeq ($(KDIR_X86_64),y)
	@cp -a tests/fakepmu $(KMOD)/tests/
	$(MAKE) -C $(KDIR) M=$(KMOD)/tests/fakepmu $(KWARN) modules
endif

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

# The selftests installed the kselftest way, to run on this machine
# (docs/testing.md: Running the tests on your machine): DIR/run_kselftest.sh,
# DIR/kselftest-list.txt, the programs in DIR/pmcompat.
KSFT_INSTALL_PATH ?= $(BUILD)/kselftest_install
.PHONY: kselftest-install
kselftest-install: selftests
	$(MAKE) -C tests/selftests O=$(BUILD)/selftests KSFT=$(KSFT) \
		INSTALL_PATH=$(abspath $(or $(INSTALL_PATH),$(KSFT_INSTALL_PATH))) install

unit: $(KSFT)/kselftest_harness.h $(CHECKPATCH)
	$(MAKE) -C tests/unit O=$(BUILD)

deps:
	@tests/vm/install-deps

# The tests build against a kernel fetched into the cache (tests/vm/stock-kdir),
# whatever runs here; the lanes build the module for each of theirs.
TEST_KDIR = $(shell tests/vm/stock-kdir)

# For development on a host whose own kernel has no build tree (or may not
# load modules): the module against the newest fetched stock kernel, the
# tools and the tests, with -Werror, as make check builds them.
.PHONY: dev
dev:
	@$(MAKE) -s all tests WERROR=1 KDIR=$(TEST_KDIR)

check: deps
	@$(MAKE) -s all tests WERROR=1 KDIR=$(TEST_KDIR)
	@tests/vm/run-all

check-fast: deps
	@$(MAKE) -s all tests WERROR=1 KDIR=$(TEST_KDIR)
	@tests/vm/run-all --fast

# Benchmarks, not tests (not part of make check).  First the stock lane under
# QEMU -icount shift=0 (run-lane --bench) runs tests/bench/pmc_bench: guest
# instructions per call of each legacy path and of the perf call it wraps, for
# 1, 4, 8 and 16 online CPUs (docs/benchmark.md).  Then a normal boot runs
# tools/cpctools/cpctools_bench: the overhead of cpustat and cputrack (CPU
# time, which icount would distort).
# On the oldest fetched stock series (Debian 12: 6.1), where docs/benchmark.md's
# figures were taken.
BENCH_SERIES = $(shell tests/vm/kernel-release --series $$(tests/vm/stock-kdir --all | head -n1))
.PHONY: bench
bench:
	@$(MAKE) -s all tests KDIR=$(TEST_KDIR)
	$(CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -static -Iuapi -Itools/libcpc \
		-o $(BUILD)/selftests/pmc_bench tests/bench/pmc_bench.c tests/bench/pmc_bench_cpus.c \
		$(BUILD)/lib/libcpc.a -lpfm -lpthread
	$(CC) -O2 -g -Wall -Wextra -o $(BUILD)/selftests/cpctools_bench \
		tools/cpctools/cpctools_bench.c -lpthread
	@PMCOMPAT_VM_SUFFIX=-bench-icount tests/vm/run-lane --lane stock --series $(BENCH_SERIES) \
		--bench --tests pmc_bench
	@PMCOMPAT_VM_SUFFIX=-bench tests/vm/run-lane --lane stock --series $(BENCH_SERIES) \
		--tests cpctools_bench

demo:
	@tests/vm/install-deps --demo
	@$(MAKE) -s all tests KDIR=$(TEST_KDIR)
	@tests/vm/run-lane --lane stock --demo

# Where the system-wide files go: /usr/lib whatever PREFIX is (udev, systemd
# and kmod read only there and in /etc); the prebuilt module in the kernel's
# modules directory.  DEPMOD is run after the module comes or goes.
UDEVRULESDIR ?= /usr/lib/udev/rules.d
SYSUSERSDIR ?= /usr/lib/sysusers.d
MODULESLOADDIR ?= /usr/lib/modules-load.d
MODDIR ?= /lib/modules
MANDIR ?= $(PREFIX)/share/man
DEPMOD ?= depmod
DKMS ?= dkms
# The module has one place at a time.  "make install" puts the module built
# here in $(MODDIR)/<kver>/extra (kbuild's place for external modules), for
# the one kernel it was built for.  "make install-dkms" installs no module
# but the DKMS source tree, $(PREFIX)/src/pmcompat-<version>, from which
# dkms builds it for every kernel and installs it where dkms.conf says,
# $(MODDIR)/<kver>/updates/dkms (as the pmcompat-dkms package does); it
# removes the prebuilt copies of an earlier "make install", which would
# otherwise sit beside DKMS's and lose to it (depmod searches updates/ first).
MODULE_MANS := $(wildcard module/*/*.[1-9])
# Installed by both, relative to DESTDIR: the udev rule, the group, the
# module loaded at boot (modules-load.d: the devices have dynamic minors, so
# there are no devname: aliases to load it on first open), the pages of the
# devices.
COMMON_FILES := $(UDEVRULESDIR)/60-pmcompat.rules $(SYSUSERSDIR)/pmcompat.conf \
	$(MODULESLOADDIR)/pmcompat.conf \
	$(foreach m,$(MODULE_MANS),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))
DKMS_SRC = $(PREFIX)/src/pmcompat-$(VERSION)

.PHONY: install-module install-common install-dkms install-dkms-src

install: install-module install-common

install-dkms: install-dkms-src install-common
	@# On the running system: no prebuilt copy beside DKMS's, then let dkms
	@# build and install the module for the running kernel.
	if [ -z "$(DESTDIR)" ]; then \
		rm -f $(MODDIR)/*/extra/pmcompat.ko; \
		$(DKMS) install pmcompat/$(VERSION) || \
		echo "make install-dkms: dkms could not build pmcompat for the running kernel"; \
	fi

# Without DESTDIR the module goes into the running system: only if it was
# built for the running kernel (else modprobe would not find it).
install-module: modules
	@if [ -z "$(DESTDIR)" ] && [ "$(KVER)" != "$(RUNNING)" ]; then \
		echo "pmcompat: the module was built for $(KVER), but $(RUNNING) is running:" \
			"not installing it."; \
		echo "pmcompat: install $(HEADERS_PKG) and run make install again," \
			"or give DESTDIR= to stage it for $(KVER)."; \
		exit 1; \
	fi >&2
	install -D -m 0644 $(KMOD)/pmcompat.ko $(DESTDIR)$(MODDIR)/$(KVER)/extra/pmcompat.ko
	@# depmod, so that modprobe finds it: on the running system, or in a
	@# DESTDIR that holds the kernel's own modules (a chroot).
	if [ -z "$(DESTDIR)" ] || [ -d "$(DESTDIR)$(MODDIR)/$(KVER)/kernel" ]; then \
		$(DEPMOD) -b "$(or $(DESTDIR),/)" -a $(KVER); \
	fi

install-dkms-src:
	mkdir -p $(DESTDIR)$(DKMS_SRC)
	cp -a $(KSRC) $(DESTDIR)$(DKMS_SRC)/
	sed 's/@VERSION@/$(VERSION)/' dkms.conf.in >$(DESTDIR)$(DKMS_SRC)/dkms.conf

install-common: tools
	install -D -m 0644 udev/60-pmcompat.rules $(DESTDIR)$(UDEVRULESDIR)/60-pmcompat.rules
	install -D -m 0644 udev/pmcompat.sysusers $(DESTDIR)$(SYSUSERSDIR)/pmcompat.conf
	install -D -m 0644 udev/pmcompat.modules-load $(DESTDIR)$(MODULESLOADDIR)/pmcompat.conf
	@# On the running system, create the group now (systemd-sysusers, else
	@# groupadd) and give existing nodes the rule's group and modes.
	if [ -z "$(DESTDIR)" ]; then \
		systemd-sysusers $(SYSUSERSDIR)/pmcompat.conf 2>/dev/null || \
		getent group pmcompat >/dev/null || groupadd --system pmcompat; \
		udevadm control --reload 2>/dev/null && \
		udevadm trigger --action=change --subsystem-match=misc 2>/dev/null || true; \
	fi
	$(MAKE) -C tools O=$(BUILD) DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) install
	for m in $(MODULE_MANS); do \
		install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/}; \
	done

# Remove what "install" or "install-dkms" put in place (same DESTDIR and
# PREFIX) without a kernel build tree: the module from every kernel's extra/
# directory, the DKMS tree (and, on the running system, dkms's own copies),
# the files listed above, and the tools' (tools/Makefile lists its own);
# then the directories left empty.  The group pmcompat stays.
uninstall:
	$(MAKE) -C tools O=$(BUILD) DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) uninstall
	if [ -z "$(DESTDIR)" ] && command -v $(DKMS) >/dev/null && \
		[ -n "$$($(DKMS) status -m pmcompat -v $(VERSION) 2>/dev/null)" ]; then \
		$(DKMS) remove pmcompat/$(VERSION) --all || true; \
	fi
	rm -rf $(DESTDIR)$(DKMS_SRC)
	for f in $(COMMON_FILES); do rm -f "$(DESTDIR)$$f"; done
	@# The prebuilt module, for whichever kernels it was installed for.
	for ko in $(DESTDIR)$(MODDIR)/*/extra/pmcompat.ko; do \
		[ -e "$$ko" ] || continue; \
		rm -f "$$ko"; \
		d=$${ko%/extra/pmcompat.ko}; \
		rmdir "$$d/extra" 2>/dev/null || true; \
		if [ -z "$(DESTDIR)" ] || [ -d "$$d/kernel" ]; then \
			$(DEPMOD) -b "$(or $(DESTDIR),/)" -a "$${d##*/}" || true; \
		else \
			rmdir "$$d" 2>/dev/null || true; \
		fi; \
	done
	@# Directories these files leave empty, up to (not including) DESTDIR.
	for f in $(COMMON_FILES) $(DKMS_SRC) $(MODDIR)/x; do \
		d=$$(dirname "$$f"); \
		while [ "$$d" != / ] && [ "$$d" != . ] && rmdir "$(DESTDIR)$$d" 2>/dev/null; do \
			d=$$(dirname "$$d"); \
		done; \
	done
	if [ -z "$(DESTDIR)" ]; then ldconfig || true; fi

# The arm64 user space: the tools and the selftests cross-built with
# aarch64-linux-gnu-gcc against Debian's arm64 libraries (ARM64_SYSROOT,
# tests/vm/arm64-fetch sysroot when unset), into build/arm64.  tools/ and
# tests/selftests/ leave out what only x86 has (pctr, perfmon,
# libpmcompat-bsd, the -m32 programs).  tests/selftests' list-arm64-tests
# names the programs the arm64 lane runs.
ARM64_CROSS ?= aarch64-linux-gnu-
ARM64 := $(BUILD)/arm64
# $(call arm64_vars,sysroot): the variables of both sub-makes.
arm64_vars = CC="$(ARM64_CROSS)gcc --sysroot=$(1)" LD=$(ARM64_CROSS)ld \
	AR=$(ARM64_CROSS)ar OBJCOPY=$(ARM64_CROSS)objcopy MULTIARCH=aarch64-linux-gnu \
	LDFLAGS="-Wl,-rpath-link,$(1)/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,$(1)/lib/aarch64-linux-gnu" \
	PKG_CONFIG_LIBDIR=$(1)/usr/lib/aarch64-linux-gnu/pkgconfig:$(1)/usr/share/pkgconfig \
	PKG_CONFIG_SYSROOT_DIR=$(1)

.PHONY: arm64-user
arm64-user: $(KSFT)/kselftest_harness.h
	@command -v $(ARM64_CROSS)gcc >/dev/null || \
		{ echo "make arm64-user: no $(ARM64_CROSS)gcc (make deps installs it)"; exit 1; }
	S=$${ARM64_SYSROOT:-$$(tests/vm/arm64-fetch sysroot)} && \
	export PKG_CONFIG_LIBDIR=$$S/usr/lib/aarch64-linux-gnu/pkgconfig:$$S/usr/share/pkgconfig \
		PKG_CONFIG_SYSROOT_DIR=$$S && \
	$(MAKE) -C tools O=$(ARM64) $(call arm64_vars,$$S) && \
	$(MAKE) -C tests/selftests O=$(ARM64)/selftests KSFT=$(KSFT) $(call arm64_vars,$$S)

lint: $(CHECKPATCH)
	@WERROR=1 tests/lint $(CHECKPATCH)

clean:
	rm -rf $(BUILD)
