/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * <machine/specialreg.h> - x86 CPUID feature bits under their BSD names.
 *
 * The values are architectural (Intel SDM / AMD APM, CPUID leaf 1 and
 * leaf 0x80000007); the CPU_CPUFEATURE sysctl returns CPUID.1:EDX.
 */
#ifndef _MACHINE_SPECIALREG_H_
#define _MACHINE_SPECIALREG_H_

/* CPUID leaf 1, EDX. */
#define CPUID_FPU	0x00000001	/* x87 FPU on chip */
#define CPUID_VME	0x00000002	/* virtual-8086 mode extensions */
#define CPUID_DE	0x00000004	/* debugging extensions */
#define CPUID_PSE	0x00000008	/* 4 MB page size extension */
#define CPUID_TSC	0x00000010	/* time-stamp counter, RDTSC */
#define CPUID_MSR	0x00000020	/* model-specific registers, RDMSR/WRMSR */
#define CPUID_PAE	0x00000040	/* physical address extension */
#define CPUID_MCE	0x00000080	/* machine check exception */
#define CPUID_CX8	0x00000100	/* CMPXCHG8B */
#define CPUID_APIC	0x00000200	/* APIC on chip */
#define CPUID_B10	0x00000400	/* reserved */
#define CPUID_SEP	0x00000800	/* SYSENTER/SYSEXIT */
#define CPUID_MTRR	0x00001000	/* memory type range registers */
#define CPUID_PGE	0x00002000	/* page global enable */
#define CPUID_MCA	0x00004000	/* machine check architecture */
#define CPUID_CMOV	0x00008000	/* conditional move */
#define CPUID_PAT	0x00010000	/* page attribute table */
#define CPUID_PSE36	0x00020000	/* 36-bit page size extension */
#define CPUID_PSN	0x00040000	/* processor serial number */
#define CPUID_PN	CPUID_PSN
#define CPUID_CFLUSH	0x00080000	/* CLFLUSH */
#define CPUID_B20	0x00100000	/* reserved */
#define CPUID_DS	0x00200000	/* debug store */
#define CPUID_ACPI	0x00400000	/* thermal monitor and clock control */
#define CPUID_MMX	0x00800000	/* MMX */
#define CPUID_FXSR	0x01000000	/* FXSAVE/FXRSTOR */
#define CPUID_SSE	0x02000000	/* SSE */
#define CPUID_SSE2	0x04000000	/* SSE2 */
#define CPUID_SS	0x08000000	/* self snoop */
#define CPUID_HTT	0x10000000	/* max APIC IDs field is valid */
#define CPUID_TM	0x20000000	/* thermal monitor */
#define CPUID_B30	0x40000000	/* reserved */
#define CPUID_PBE	0x80000000	/* pending break enable */

/* CPUID leaf 1, ECX. */
#define CPUIDECX_SSE3		0x00000001	/* SSE3 */
#define CPUIDECX_PCLMUL		0x00000002	/* PCLMULQDQ */
#define CPUIDECX_DTES64		0x00000004	/* 64-bit debug store */
#define CPUIDECX_MWAIT		0x00000008	/* MONITOR/MWAIT */
#define CPUIDECX_DSCPL		0x00000010	/* CPL-qualified debug store */
#define CPUIDECX_VMX		0x00000020	/* virtual machine extensions */
#define CPUIDECX_SMX		0x00000040	/* safer mode extensions */
#define CPUIDECX_EST		0x00000080	/* enhanced SpeedStep */
#define CPUIDECX_TM2		0x00000100	/* thermal monitor 2 */
#define CPUIDECX_SSSE3		0x00000200	/* supplemental SSE3 */
#define CPUIDECX_CNXTID		0x00000400	/* L1 context ID */
#define CPUIDECX_SDBG		0x00000800	/* silicon debug */
#define CPUIDECX_FMA3		0x00001000	/* fused multiply-add */
#define CPUIDECX_CX16		0x00002000	/* CMPXCHG16B */
#define CPUIDECX_XTPR		0x00004000	/* xTPR update control */
#define CPUIDECX_PDCM		0x00008000	/* perfmon and debug capability MSR */
#define CPUIDECX_PCID		0x00020000	/* process-context identifiers */
#define CPUIDECX_DCA		0x00040000	/* direct cache access */
#define CPUIDECX_SSE41		0x00080000	/* SSE4.1 */
#define CPUIDECX_SSE42		0x00100000	/* SSE4.2 */
#define CPUIDECX_X2APIC		0x00200000	/* x2APIC */
#define CPUIDECX_MOVBE		0x00400000	/* MOVBE */
#define CPUIDECX_POPCNT		0x00800000	/* POPCNT */
#define CPUIDECX_DEADLINE	0x01000000	/* APIC timer TSC deadline mode */
#define CPUIDECX_AES		0x02000000	/* AES-NI */
#define CPUIDECX_XSAVE		0x04000000	/* XSAVE/XRSTOR */
#define CPUIDECX_OSXSAVE	0x08000000	/* XSAVE enabled by the OS */
#define CPUIDECX_AVX		0x10000000	/* AVX */
#define CPUIDECX_F16C		0x20000000	/* half-precision conversions */
#define CPUIDECX_RDRAND		0x40000000	/* RDRAND */
#define CPUIDECX_HV		0x80000000	/* running under a hypervisor */

/* CPUID leaf 0x80000007, EDX. */
#define CPUIDEDX_ITSC		0x00000100	/* invariant TSC */

#endif /* !_MACHINE_SPECIALREG_H_ */
