// SPDX-License-Identifier: GPL-2.0
/*
 * <asm/cpuid/api.h>: the CPUID helpers (cpuid_count(), cpuid_eax(), ...)
 * live there since 6.15; before, <asm/processor.h> declares them.
 */
#include <asm/cpuid/api.h>

unsigned int pmc_probe(void);
unsigned int pmc_probe(void)
{
	unsigned int a, b, c, d;

	cpuid_count(0xa, 0, &a, &b, &c, &d);
	return a + b + c + d + cpuid_eax(0x80000000);
}
