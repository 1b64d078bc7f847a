// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of <sys/ioccom.h>: a BSD program's arithmetic on the requests
 * of <machine/pctr.h> and <machine/perfmon.h> (size, group, number,
 * direction) gives what it gives on OpenBSD and FreeBSD, and the header
 * builds before or after glibc's <sys/ioctl.h>, as BSD programs order them.
 */
#include <sys/types.h>
#include <sys/ioccom.h>
#include <sys/ioctl.h>
#include <machine/pctr.h>
#include <machine/perfmon.h>

#include "kselftest_harness.h"

TEST(pctr_requests_read_as_on_openbsd)
{
	EXPECT_EQ('c', IOCGROUP(PCIOCRD));
	EXPECT_EQ(sizeof(struct pctrst), IOCPARM_LEN(PCIOCRD));
	EXPECT_EQ(1, IOCBASECMD(PCIOCRD) & 0xff);
	EXPECT_EQ(IOC_OUT, PCIOCRD & IOC_DIRMASK);
	EXPECT_EQ(sizeof(unsigned int), IOCPARM_LEN(PCIOCS0));
	EXPECT_EQ(IOC_IN, PCIOCS3 & IOC_DIRMASK);
	EXPECT_EQ(11, IOCBASECMD(PCIOCS3) & 0xff);
	/* The length is all that IOCBASECMD() takes away. */
	EXPECT_EQ(IOCBASECMD(PCIOCRD), IOCBASECMD(PCIOCRD_1998));
	EXPECT_NE(PCIOCRD, PCIOCRD_1998);
}

TEST(perfmon_requests_read_as_on_freebsd)
{
	EXPECT_EQ('5', IOCGROUP(PMIOREAD));
	EXPECT_EQ(sizeof(struct pmc_data), IOCPARM_LEN(PMIOREAD));
	EXPECT_EQ(IOC_INOUT, PMIOREAD & IOC_DIRMASK);
	EXPECT_EQ(sizeof(struct pmc), IOCPARM_LEN(PMIOSETUP));
	EXPECT_EQ(IOC_IN, PMIOSETUP & IOC_DIRMASK);
	EXPECT_EQ(IOC_OUT, PMIOTSTAMP & IOC_DIRMASK);
	EXPECT_EQ(7, IOCBASECMD(PMIOGET) & 0xff);
	EXPECT_EQ(IOC_VOID, _IO('5', 9) & IOC_DIRMASK);
	EXPECT_EQ(0, IOCPARM_LEN(_IO('5', 9)));
}

TEST(every_size_a_request_can_carry_fits_iocparm_max)
{
	EXPECT_GE(IOCPARM_MAX, sizeof(struct pctrst));
	EXPECT_EQ(IOCPARM_MAX, IOCPARM_LEN(_IOC(_IOC_READ, 'c', 1, IOCPARM_MAX)));
}

TEST_HARNESS_MAIN
