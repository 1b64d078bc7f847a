// SPDX-License-Identifier: GPL-2.0
/*
 * The static libcpc.a (review L10): a Solaris program that carries its own
 * cpc_strtoset() (illumos' strtoset.c), gethrtime() or processor_bind()
 * links against it, and keeps its own; a port whose gethrtime() has
 * another type builds with _LIBCPC_NO_GETHRTIME (libcpc.3lib).  The
 * programs are compiled and linked here with cc, as a user would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

/* Its own cpc_strtoset, gethrtime and processor_bind, besides libcpc's API. */
static const char own_prog[] =
	"#include <libcpc.h>\n"
	"#include <stdio.h>\n"
	"#include <sys/processor.h>\n"
	"cpc_set_t *cpc_strtoset(cpc_t *cpc, const char *spec, int smt)\n"
	"{ (void)cpc; (void)spec; (void)smt; return NULL; }\n"
	"hrtime_t gethrtime(void) { return 42; }\n"
	"int processor_bind(idtype_t t, id_t id, processorid_t p, processorid_t *o)\n"
	"{ (void)t; (void)id; (void)p; (void)o; return 7; }\n"
	"int main(void)\n"
	"{\n"
	"	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);\n"
	"	printf(\"%lld %d %d\\n\", (long long)gethrtime(),\n"
	"	       processor_bind(P_LWPID, P_MYID, 0, NULL),\n"
	"	       cpc_strtoset(cpc, \"x\", 0) == NULL);\n"
	"	if (cpc)\n"
	"		cpc_close(cpc);\n"
	"	return 0;\n"
	"}\n";

/* A port's own gethrtime() of another type, with the opt-out. */
static const char port_prog[] =
	"#define _LIBCPC_NO_GETHRTIME\n"
	"#include <stdint.h>\n"
	"static uint64_t gethrtime(void) { return 5; }\n"
	"#include <libcpc.h>\n"
	"int main(void)\n"
	"{\n"
	"	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);\n"
	"	if (cpc)\n"
	"		cpc_close(cpc);\n"
	"	return gethrtime() == 5 ? 0 : 1;\n"
	"}\n";

static char dir[] = "/tmp/libcpc_static_XXXXXX";

/* Write src to dir/name.c, build dir/name against libcpc.a: cc's status. */
static int build(const char *name, const char *src, char *log, size_t n)
{
	char path[256], cmd[2048];
	FILE *f;
	int st;

	snprintf(path, sizeof(path), "%s/%s.c", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cc -Wall -Werror -I%s -I%s -o %s/%s %s %s -lpfm -lpthread > %s/%s.log 2>&1",
		 LIBCPC_DIR, UAPI_DIR, dir, name, path, LIBCPC_A, dir, name);
	st = system(cmd);
	snprintf(path, sizeof(path), "%s/%s.log", dir, name);
	f = fopen(path, "r");
	log[0] = '\0';
	if (f) {
		size_t r = fread(log, 1, n - 1, f);

		log[r] = '\0';
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(own_strtoset_gethrtime_processor_bind_link_statically)
{
	char log[8192], cmd[512], out[256] = "";
	FILE *p;

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, build("own", own_prog, log, sizeof(log))) TH_LOG("%s", log);
	snprintf(cmd, sizeof(cmd), "%s/own", dir);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, fgets(out, sizeof(out), p));
	EXPECT_EQ(0, pclose(p));
	/* the program's own functions, not the library's */
	EXPECT_STREQ("42 7 1\n", out);

	ASSERT_EQ(0, build("port", port_prog, log, sizeof(log))) TH_LOG("%s", log);
	snprintf(cmd, sizeof(cmd), "%s/port", dir);
	EXPECT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
}

TEST_HARNESS_MAIN
