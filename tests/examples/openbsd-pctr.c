/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An OpenBSD-style program that uses only what pctr(4) documents: it puts
 * "instructions retired, user and kernel" on counter 0 of every CPU and
 * prints the TSC and counter 0 of the CPU it runs on, read both through
 * PCIOCRD and through rdpmc().  Setting the same selector again keeps the
 * counter running, so a second run shows what was counted in between.
 *
 * Build against the installed headers:
 *	cc openbsd-pctr.c $(pkg-config --cflags --libs pmcompat-bsd)
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <machine/pctr.h>

#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	struct pctrst st;
	u_int fn = 0xc0 | PCTR_U | PCTR_K | PCTR_EN;
	pctrval before, after;
	int fd;

	if ((fd = open(_PATH_PCTR, O_RDWR)) == -1)
		err(1, "%s", _PATH_PCTR);
	if (ioctl(fd, PCIOCS0, &fn) == -1)
		err(1, "PCIOCS0");
	before = rdtsc();
	if (ioctl(fd, PCIOCRD, &st) == -1)
		err(1, "PCIOCRD");
	after = rdtsc();
	printf("fn0 %x tsc_ok %d ctr0 %llu rdpmc0 %llu\n", st.pctr_fn[0],
	    st.pctr_tsc >= before && st.pctr_tsc <= after,
	    st.pctr_hwc[0], rdpmc(0));
	close(fd);
	return 0;
}
