// SPDX-License-Identifier: GPL-2.0
/*
 * <machine/pctr.h> with the compilers here: OpenBSD programs of both
 * header generations (rdtsc() from the header, or their own rdtsc() as
 * with OpenBSD's amd64 pctr.h 1.7) and pctrval with glibc's uint64_t, as
 * pctr(4) COMPATIBILITY says.  Each program is compiled with the flags
 * of GCC 14's defaults, which make pointer mismatches errors.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

static const char *const c_flags =
	"-Wall -Wextra -Werror -Werror=implicit-function-declaration "
	"-Werror=incompatible-pointer-types -Werror=int-conversion";

static char dir[64];

static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Compile prog with extra flags; the exit status of cc. */
static int cc(const char *prog, const char *flags)
{
	char src[128];
	FILE *f;

	snprintf(src, sizeof(src), "%s/prog.c", dir);
	f = fopen(src, "w");
	if (!f)
		return -1;
	fputs(prog, f);
	fclose(f);
	return sh("cc %s %s -I%s -c -o %s/prog.o %s 2>%s/err", c_flags, flags,
		  PCTR_UAPI, dir, src, dir);
}

/* A program for OpenBSD's amd64 pctr.h 1.7: its own rdtsc(). */
static const char own_rdtsc[] =
	"#include <sys/types.h>\n"
	"#include <machine/pctr.h>\n"
	"static inline pctrval rdtsc(void)\n"
	"{\n"
	"\tunsigned int lo, hi;\n"
	"\t__asm__ volatile(\"rdtsc\" : \"=a\" (lo), \"=d\" (hi));\n"
	"\treturn ((pctrval)hi << 32) | lo;\n"
	"}\n"
	"pctrval f(void) { return rdtsc(); }\n";

/* A program for pctr.h up to 1.6, or the 1998 i386 header. */
static const char header_rdtsc[] =
	"#include <machine/pctr.h>\n"
	"pctrval f(void) { return rdtsc(); }\n";

/* A program that defines rdtsc as a macro before the header. */
static const char macro_rdtsc[] =
	"#define rdtsc() 42ULL\n"
	"#include <machine/pctr.h>\n"
	"pctrval f(void) { return rdtsc(); }\n";

FIXTURE(hdr) {
};

FIXTURE_SETUP(hdr)
{
	strcpy(dir, "/tmp/pctr-header-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
}

FIXTURE_TEARDOWN(hdr)
{
	sh("rm -rf %s", dir);
}

/* Review L4: a program with its own rdtsc() builds with PCTR_NO_RDTSC. */
TEST_F(hdr, own_rdtsc_with_opt_out)
{
	EXPECT_EQ(0, cc(own_rdtsc, "-DPCTR_NO_RDTSC")) sh("cat %s/err", dir);
	/* ... and needs it: the header's macro takes no argument */
	EXPECT_NE(0, cc(own_rdtsc, ""));
	EXPECT_EQ(0, sh("grep -q 'rdtsc' %s/err", dir));
}

TEST_F(hdr, header_rdtsc)
{
	EXPECT_EQ(0, cc(header_rdtsc, "")) sh("cat %s/err", dir);
	EXPECT_EQ(0, cc(header_rdtsc, "-DPCTR_I386_1998")) sh("cat %s/err", dir);
	/* left out on request */
	EXPECT_NE(0, cc(header_rdtsc, "-DPCTR_NO_RDTSC"));
	EXPECT_EQ(0, cc(macro_rdtsc, "")) sh("cat %s/err", dir);
}

/* Review L3: pctrval and glibc's uint64_t, as pctr(4) says. */
TEST_F(hdr, pctrval_and_uint64_t)
{
	static const char uses[] =
		"#include <inttypes.h>\n"
		"#include <stdio.h>\n"
		"#include <machine/pctr.h>\n"
		"void add(uint64_t *v);\n"
		"void f(struct pctrst *st)\n"
		"{\n"
		"\tpctrval *p = st->pctr_hwc;\n"
		"\tprintf(\"%%llu\\n\", st->pctr_hwc[0]);\n"
		"\tadd((uint64_t *)st->pctr_hwc);\n"
		"\t(void)p;\n"
		"}\n";
	static const char mixes[] =
		"#include <inttypes.h>\n"
		"#include <machine/pctr.h>\n"
		"void add(uint64_t *v);\n"
		"void f(struct pctrst *st) { add(st->pctr_hwc); }\n";
	char prog[1024];

	snprintf(prog, sizeof(prog), uses);
	EXPECT_EQ(0, cc(prog, "")) sh("cat %s/err", dir);
	/* without the cast it is an error with GCC 14's defaults */
	EXPECT_NE(0, cc(mixes, ""));
}

TEST_HARNESS_MAIN
