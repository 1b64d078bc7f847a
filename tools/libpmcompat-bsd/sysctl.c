// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * sysctl(3) for BSD programs on Linux: the hw.* and machdep.* nodes that
 * programs such as OpenBSD's pctr(1) use to identify the CPU, answered from
 * CPUID and sysconf().
 *
 * Semantics follow the BSD sysctl(2) call: 0 on success, -1 and errno on
 * failure; oldp == NULL asks for the size only; a too small buffer gives
 * ENOMEM (strings get the part that fits); every node here is read-only
 * (EPERM if newp is given); unknown names give EOPNOTSUPP; a name that
 * continues below a leaf gives ENOTDIR; a name shorter than two components
 * or longer than CTL_MAXNAME gives EINVAL.
 */
#include <cpuid.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/sysctl.h>
#include <machine/cpu.h>
#include <machine/specialreg.h>

#include "../common/pmc_x86cpu.h"

#if defined(__x86_64__)
#define PMCOMPAT_MACHINE	"amd64"
#elif defined(__i386__)
#define PMCOMPAT_MACHINE	"i386"
#else
#error "libpmcompat-bsd supports x86 only"
#endif

#define PMCOMPAT_EXPORT		__attribute__((visibility("default")))

#define CPUID_LEAF_TSC		0x15
#define CPUID_LEAF_FREQ		0x16
#define CPUID_HV_BASE		0x40000000
#define CPUID_HV_TIMING		0x40000010
#define CPUID_EXT_BASE		0x80000000
#define CPUID_EXT_BRAND		0x80000002
#define CPUID_EXT_POWER		0x80000007

#define TSC_KHZ_SYSFS	"/sys/devices/system/cpu/cpu0/tsc_freq_khz"

/* The processor brand string without padding, else the vendor string. */
static void cpu_model(char buf[49])
{
	struct pmc_cpuid_regs r;
	unsigned int i;
	size_t len;
	char *p;

	if (pmc_cpuid(CPUID_EXT_BRAND + 2, &r) < 0) {
		pmc_cpuid_vendor(buf);
		return;
	}
	for (i = 0; i < 3; i++) {
		pmc_cpuid(CPUID_EXT_BRAND + i, &r);
		memcpy(buf + 16 * i, &r.eax, 4);
		memcpy(buf + 16 * i + 4, &r.ebx, 4);
		memcpy(buf + 16 * i + 8, &r.ecx, 4);
		memcpy(buf + 16 * i + 12, &r.edx, 4);
	}
	buf[48] = '\0';

	for (p = buf; *p == ' '; p++)
		;
	len = strlen(p);
	while (len > 0 && p[len - 1] == ' ')
		len--;
	memmove(buf, p, len);
	buf[len] = '\0';
	if (len == 0)
		pmc_cpuid_vendor(buf);
}

static int vendor_is(const char *vendor)
{
	char v[13];

	pmc_cpuid_vendor(v);
	return strcmp(v, vendor) == 0;
}

static int tsc_freq_sysfs(uint64_t *hz)
{
	unsigned long long khz;
	FILE *f;
	int n;

	f = fopen(TSC_KHZ_SYSFS, "re");
	if (!f)
		return -1;
	n = fscanf(f, "%llu", &khz);
	fclose(f);
	if (n != 1 || khz == 0)
		return -1;
	*hz = (uint64_t)khz * 1000;
	return 0;
}

/*
 * TSC frequency in Hz, from the most exact source available:
 * 1. CPUID 0x15 (TSC/crystal ratio times the crystal frequency),
 * 2. the hypervisor timing leaf 0x40000010 (TSC kHz),
 * 3. Intel's CPUID 0x16 base frequency (the nominal TSC rate),
 * 4. a tsc_freq_khz file in sysfs, where the kernel has one.
 * Returns -1 when none of them knows.
 */
static int tsc_freq(uint64_t *hz)
{
	struct pmc_cpuid_regs r1, r;

	if (pmc_cpuid(CPUID_LEAF_TSC, &r) == 0 && r.eax && r.ebx && r.ecx) {
		*hz = (uint64_t)r.ecx * r.ebx / r.eax;
		return 0;
	}
	if (pmc_cpuid(1, &r1) == 0 && (r1.ecx & CPUIDECX_HV)) {
		__cpuid(CPUID_HV_BASE, r.eax, r.ebx, r.ecx, r.edx);
		if (r.eax >= CPUID_HV_TIMING && r.eax < CPUID_HV_BASE + 0x10000) {
			__cpuid(CPUID_HV_TIMING, r.eax, r.ebx, r.ecx, r.edx);
			if (r.eax) {
				*hz = (uint64_t)r.eax * 1000;
				return 0;
			}
		}
	}
	if (vendor_is("GenuineIntel") && pmc_cpuid(CPUID_LEAF_FREQ, &r) == 0 &&
	    (r.eax & 0xffff)) {
		*hz = (uint64_t)(r.eax & 0xffff) * 1000000;
		return 0;
	}
	return tsc_freq_sysfs(hz);
}

static int invariant_tsc(void)
{
	struct pmc_cpuid_regs r;

	if (pmc_cpuid(CPUID_EXT_POWER, &r) < 0)
		return 0;
	return !!(r.edx & CPUIDEDX_ITSC);
}

/*
 * The helpers below return 0 or a negative errno; sysctl() turns that into
 * the -1/errno convention.
 */

/* Hand out a fixed-size datum. */
static int rd_data(void *oldp, size_t *oldlenp, void *newp, const void *val,
		   size_t len)
{
	if (newp)
		return -EPERM;
	if (oldp) {
		if (*oldlenp < len)
			return -ENOMEM;
		memcpy(oldp, val, len);
	}
	if (oldlenp)
		*oldlenp = len;
	return 0;
}

static int rd_int(void *oldp, size_t *oldlenp, void *newp, int val)
{
	return rd_data(oldp, oldlenp, newp, &val, sizeof(val));
}

/* Hand out a string with its NUL; a short buffer gets what fits. */
static int rd_string(void *oldp, size_t *oldlenp, void *newp, const char *str)
{
	size_t len = strlen(str) + 1;

	if (newp)
		return -EPERM;
	if (oldp && *oldlenp < len) {
		memcpy(oldp, str, *oldlenp);
		return -ENOMEM;
	}
	return rd_data(oldp, oldlenp, NULL, str, len);
}

static int hw_sysctl(const int *name, unsigned int namelen, void *oldp,
		     size_t *oldlenp, void *newp)
{
	char model[49];
	long n;

	if (namelen != 1)
		return -ENOTDIR;	/* every hw node here is a leaf */

	switch (name[0]) {
	case HW_MACHINE:
		return rd_string(oldp, oldlenp, newp, PMCOMPAT_MACHINE);
	case HW_MODEL:
		cpu_model(model);
		return rd_string(oldp, oldlenp, newp, model);
	case HW_NCPU:
		n = sysconf(_SC_NPROCESSORS_ONLN);
		return rd_int(oldp, oldlenp, newp, n > 0 ? (int)n : 1);
	case HW_BYTEORDER:
		return rd_int(oldp, oldlenp, newp, 1234);
	case HW_PAGESIZE:
		return rd_int(oldp, oldlenp, newp, (int)sysconf(_SC_PAGESIZE));
	default:
		return -EOPNOTSUPP;
	}
}

static int cpu_sysctl(const int *name, unsigned int namelen, void *oldp,
		      size_t *oldlenp, void *newp)
{
	struct pmc_cpuid_regs r = { 0 };
	char vendor[13];
	uint64_t hz;

	if (namelen != 1)
		return -ENOTDIR;	/* every machdep node here is a leaf */

	switch (name[0]) {
	case CPU_CPUVENDOR:
		pmc_cpuid_vendor(vendor);
		return rd_string(oldp, oldlenp, newp, vendor);
	case CPU_CPUID:
		pmc_cpuid(1, &r);
		return rd_int(oldp, oldlenp, newp, (int)r.eax);
	case CPU_CPUFEATURE:
		pmc_cpuid(1, &r);
		return rd_int(oldp, oldlenp, newp, (int)r.edx);
	case CPU_TSCFREQ:
		if (tsc_freq(&hz) < 0)
			return -EOPNOTSUPP;
		return rd_data(oldp, oldlenp, newp, &hz, sizeof(hz));
	case CPU_INVARIANTTSC:
		return rd_int(oldp, oldlenp, newp, invariant_tsc());
	default:
		return -EOPNOTSUPP;
	}
}

PMCOMPAT_EXPORT int sysctl(const int *name, unsigned int namelen, void *oldp,
			   size_t *oldlenp, void *newp, size_t newlen)
{
	int error;

	(void)newlen;	/* nothing is writable */
	if (namelen < 2 || namelen > CTL_MAXNAME) {
		error = -EINVAL;
		goto out;
	}
	if (!name || (oldp && !oldlenp)) {
		error = -EFAULT;
		goto out;
	}

	switch (name[0]) {
	case CTL_HW:
		error = hw_sysctl(name + 1, namelen - 1, oldp, oldlenp, newp);
		break;
	case CTL_MACHDEP:
		error = cpu_sysctl(name + 1, namelen - 1, oldp, oldlenp, newp);
		break;
	default:
		error = -EOPNOTSUPP;
		break;
	}
out:
	if (error) {
		errno = -error;
		return -1;
	}
	return 0;
}
