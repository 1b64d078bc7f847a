# SPDX-License-Identifier: GPL-2.0
#
# Kernel feature probes (compat/probe), included by a Kbuild file that sets
# pmc-compat to the path of this directory and names the objects that need
# the result in pmc-probe-users.  The answers go to
# $(obj)/generated/pmc_config.h, which only module/kcompat.h includes.
#
# The probes are compiled like a module object of this kernel: its include
# paths and compiler flags (W=1 and KCFLAGS included, so a probe sees what
# the module will see), always with -Werror.

pmc-config := $(obj)/generated/pmc_config.h

pmc-probe-flags = $(NOSTDINC_FLAGS) $(LINUXINCLUDE) \
	-include $(srctree)/include/linux/compiler_types.h \
	$(filter-out -Werror,$(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) $(KBUILD_CFLAGS_MODULE)) \
	-DMODULE -DKBUILD_BASENAME='"pmc_probe"' -DKBUILD_MODNAME='"pmc_probe"' \
	-D__KBUILD_MODNAME=kmod_pmc_probe

quiet_cmd_pmc_probe = PROBE   $@
      cmd_pmc_probe = mkdir -p $(dir $@) && \
		$(CONFIG_SHELL) $(pmc-compat)/probe $@ $(objtree)/Module.symvers \
		$(pmc-compat)/probes -- $(CC) $(pmc-probe-flags)

$(pmc-config): $(pmc-compat)/probe $(wildcard $(pmc-compat)/probes/*.c) \
		$(wildcard $(objtree)/Module.symvers)
	$(call cmd,pmc_probe)

$(addprefix $(obj)/,$(pmc-probe-users)): $(pmc-config)

ccflags-y += -I$(obj)/generated
clean-files += generated/pmc_config.h generated/pmc_config.h.log
