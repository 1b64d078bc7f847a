// SPDX-License-Identifier: GPL-2.0
/*
 * pctr(1) itself (tools/pctr/pctr.c, built with main renamed) on the host,
 * without a device: sysctl(3) answers the vendor the test chooses, and
 * the device's ioctls are caught (-Wl,--wrap) and print the word pctr
 * writes.  LIBPFM_FORCE_PMU picks libpfm4's table of a model, so
 * "LIBPFM_FORCE_PMU=icl pctr -s 0 -f c0" runs as on an Ice Lake.
 */
#undef main
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/sysctl.h>
#include <machine/cpu.h>
#include <machine/pctr.h>
#include <machine/specialreg.h>

#include "kselftest_harness.h"

int pctr_main(int argc, char **argv);
extern char *__progname;	/* err(3)'s program name */

static const char *vendor = "GenuineIntel";
static struct pctrst canned;	/* what PCIOCRD answers */

/* The MIBs pctr(1) asks: machine, vendor, cpuid, features. */
int __wrap_sysctl(const int *name, unsigned int namelen, void *oldp,
		  size_t *oldlenp, const void *newp, size_t newlen)
{
	const char *str = NULL;
	unsigned int val = 0;

	(void)newp;
	(void)newlen;
	if (namelen != 2)
		return -1;
	if (name[0] == CTL_HW && name[1] == HW_MACHINE)
		str = "amd64";
	else if (name[0] == CTL_MACHDEP && name[1] == CPU_CPUVENDOR)
		str = vendor;
	else if (name[0] == CTL_MACHDEP && name[1] == CPU_CPUID)
		val = 0x706e5;
	else if (name[0] == CTL_MACHDEP && name[1] == CPU_CPUFEATURE)
		val = CPUID_TSC;
	else
		return -1;
	if (str) {
		snprintf(oldp, *oldlenp, "%s", str);
		*oldlenp = strlen(str) + 1;
	} else {
		memcpy(oldp, &val, sizeof(val));
		*oldlenp = sizeof(val);
	}
	return 0;
}

/* PCIOCSn prints the word; PCIOCRD answers the canned state. */
int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	(void)fd;
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req >= PCIOCS0 && req <= PCIOCS3) {
		printf("PCIOCS%lu %#x\n", req - PCIOCS0,
		       *(unsigned int *)arg);
		fflush(stdout);
		return 0;
	}
	if (req == PCIOCRD) {
		memcpy(arg, &canned, sizeof(canned));
		return 0;
	}
	return -1;
}

/*
 * Run pctr with the arguments (NULL-terminated) in a child with the
 * vendor and libpfm4 model given; stdout and stderr into out and err.
 * Returns the exit status.
 */
static int run_pctr(const char *v, const char *model, char *out, char *err,
		    size_t len, ...)
{
	char ofile[] = "/tmp/pctr_tool_host_outXXXXXX";
	char efile[] = "/tmp/pctr_tool_host_errXXXXXX";
	char *argv[16] = { "pctr" };
	int ofd = mkstemp(ofile), efd = mkstemp(efile), argc = 1, status;
	ssize_t n;
	va_list ap;
	pid_t pid;

	va_start(ap, len);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	if (ofd < 0 || efd < 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid) {
		dup2(ofd, 1);
		dup2(efd, 2);
		vendor = v;
		__progname = "pctr";
		setenv("LIBPFM_FORCE_PMU", model, 1);
		setenv("PCTR_DEVICE", "/dev/null", 1);
		exit(pctr_main(argc, argv));
	}
	waitpid(pid, &status, 0);
	n = pread(ofd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	n = pread(efd, err, len - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(ofd);
	close(efd);
	unlink(ofile);
	unlink(efile);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

#define INTEL	"GenuineIntel"
#define AMD	"AuthenticAMD"

/* Review H1: instructions on Ice Lake, and pctr.1's examples. */
TEST(icelake_architectural)
{
	char out[8192], err[1024];

	ASSERT_EQ(0, run_pctr(INTEL, "icl", out, err, sizeof(out),
			      "-s", "0", "-f", "c0", NULL)) TH_LOG("%s", err);
	ASSERT_STREQ("PCIOCS0 0x4300c0\n", out);
	ASSERT_STREQ("", err);
	ASSERT_EQ(0, run_pctr(INTEL, "icl", out, err, sizeof(out),
			      "-s", "0", "-f", "c0", "-u", NULL));
	ASSERT_STREQ("PCIOCS0 0x4100c0\n", out);
	ASSERT_EQ(0, run_pctr(INTEL, "icl", out, err, sizeof(out),
			      "-s", "1", "-f", "3c", "-m", "0", NULL))
		TH_LOG("%s", err);
	ASSERT_STREQ("PCIOCS1 0x43003c\n", out);
	ASSERT_EQ(0, run_pctr(INTEL, "icl", out, err, sizeof(out),
			      "-s", "2", "-f", "c5", NULL)) TH_LOG("%s", err);
	ASSERT_STREQ("PCIOCS2 0x4300c5\n", out);
	/* the list shows them as programmable */
	ASSERT_EQ(0, run_pctr(INTEL, "icl", out, err, sizeof(out), "-l",
			      NULL));
	ASSERT_NE(NULL, strstr(out, "\nc0  INST_RETIRED\n"));
	ASSERT_NE(NULL, strstr(out, "\n3c  CPU_CLK_UNHALTED\n"));
}

/* pctr.1's 3c example with the built-in table (a model libpfm4 lacks). */
TEST(builtin_core_cycles)
{
	char out[8192], err[1024];

	ASSERT_EQ(0, run_pctr(INTEL, "none", out, err, sizeof(out),
			      "-s", "1", "-f", "3c", "-m", "0", NULL))
		TH_LOG("%s", err);
	ASSERT_STREQ("PCIOCS1 0x43003c\n", out);
	ASSERT_EQ(1, run_pctr(INTEL, "none", out, err, sizeof(out),
			      "-s", "1", "-f", "2e", "-m", "0", NULL));
	ASSERT_STREQ("pctr: function 2e needs unit mask specification\n", err);
	ASSERT_STREQ("", out);
}

/* Review M1: libpfm4's default unit mask without -m. */
TEST(skylake_defaults)
{
	char out[8192], err[1024];

	ASSERT_EQ(0, run_pctr(INTEL, "skl", out, err, sizeof(out),
			      "-s", "0", "-f", "51", NULL));
	ASSERT_STREQ("PCIOCS0 0x430151\n", out);
	ASSERT_EQ(0, run_pctr(INTEL, "skl", out, err, sizeof(out),
			      "-s", "3", "-f", "24", NULL));
	ASSERT_STREQ("PCIOCS3 0x43ff24\n", out);
	ASSERT_EQ(0, run_pctr(INTEL, "skl", out, err, sizeof(out), "-l",
			      NULL));
	ASSERT_NE(NULL, strstr(out, "REFERENCES=ff (default)"));
}

/* Review L1: AMD codes outside the table, as OpenBSD. */
TEST(amd_unknown_function)
{
	char out[8192], err[1024];

	ASSERT_EQ(1, run_pctr(AMD, "none", out, err, sizeof(out),
			      "-s", "0", "-f", "99", NULL));
	ASSERT_STREQ("pctr: function 99 is not supported\n", err);
	ASSERT_STREQ("", out);
	ASSERT_EQ(0, run_pctr(AMD, "none", out, err, sizeof(out),
			      "-s", "0", "-f", "76", NULL));
	ASSERT_STREQ("PCIOCS0 0x430076\n", out);
}

/* Review L6: a Pentium word reads back decoded as one. */
TEST(read_pentium_word)
{
	char out[8192], err[1024];

	memset(&canned, 0, sizeof(canned));
	canned.pctr_fn[0] = 0xc0;
	canned.pctr_fn[1] = 0x4300c0;
	canned.pctr_hwc[0] = 5;
	canned.pctr_hwc[1] = 7;
	canned.pctr_tsc = 9;
	ASSERT_EQ(0, run_pctr(INTEL, "none", out, err, sizeof(out), NULL));
	ASSERT_STREQ(" ctr0 =                5  [-uk 00 data read]\n"
		     " ctr1 =                7  [--ku c0 00   INST_RETIRED]\n"
		     " ctr2 =                0  [---- 00 00   unknown function]\n"
		     " ctr3 =                0  [---- 00 00   unknown function]\n"
		     "  tsc =                9\n", out);
}

TEST_HARNESS_MAIN
