// SPDX-License-Identifier: GPL-2.0
/*
 * libcpc and cpustat -h over every arm64 core PMU libpfm4 knows (issue
 * 33), in the arm64 lane, where libpfm4 is the arm64 build: for each
 * model's table, forced with LIBPFM_FORCE_PMU in a process of its own,
 * every name cpc_walk_events_all() and cpc_walk_generic_events_all() give
 * makes a set (cpc_strtoset()) that the library translates into a perf
 * event (set_build(): the library's own translation, not whether this
 * machine's PMU has the event), is on some pic's list, and is listed by
 * "cpustat -h" under that model; PAPI_tot_cyc is offered on every model,
 * and nothing crashes.  cpustat -h is compared with what the library
 * lists on this machine (the model's events its PMU implements, by sysfs);
 * the translation is checked over the model's whole table (that check
 * turned off).  x86's models are the host test's
 * (tests/unit/libcpc_models_test.c): this program skips there.
 *
 * The library's sources are built in, to reach set_build().
 */
#if defined(__x86_64__) || defined(__i386__)
#define PMC_X86CPU_PFM
#include "../../tools/libcpc/libcpc.c"
#include "../../tools/libcpc/bind.c"
#include "../../tools/libcpc/events.c"
#else
#include "../../tools/libcpc/libcpc.c"
#include "../../tools/libcpc/bind.c"
#include "../../tools/libcpc/events_arm64.c"
#endif
#include "pmc_test_util.h"
#include "cpctools_test_util.h"
#include "kselftest_harness.h"
#include "cpc_models_util.h"

#define CPUSTAT		"/usr/bin/cpustat"
#define MAX_MODELS	64

/* The set of name translates into a perf event of a known type. */
static void translate_any(cpc_t *cpc, const char *name)
{
	struct pmc_cpc_request k;

	if (translate(cpc, name, &k))
		return;
	if (k.type != PERF_TYPE_RAW && k.type != PERF_TYPE_HARDWARE &&
	    k.type != PERF_TYPE_HW_CACHE && k.type != PERF_TYPE_SOFTWARE)
		FAIL("\"%s\": perf type %u", name, k.type);
}

/* cpustat -h under the forced model: every name listed as a word. */
static void check_caps(const struct names *l)
{
	char *out = malloc(1 << 20), key[256];
	struct bg b;
	int i;

	if (!out || run_all(&b, CPUSTAT, ARGV("cpustat", "-h"), out, 1 << 20)) {
		FAIL("cpustat -h failed");
		free(out);
		return;
	}
	for (i = 0; i < l->n; i++) {
		snprintf(key, sizeof(key), " %s ", l->v[i]);
		if (!strstr(out, key))
			FAIL("cpustat -h does not list \"%s\"", l->v[i]);
	}
	free(out);
}

/* The platform and generic names of cpc, and every pic's. */
static void walk_all(cpc_t *cpc, struct names *all, struct names *gen,
		     struct names *pics)
{
	uint_t p;

	cpc_walk_events_all(cpc, all, add);
	cpc_walk_generic_events_all(cpc, gen, add);
	for (p = 0; pics && p < cpc_npic(cpc); p++) {
		cpc_walk_events_pic(cpc, p, pics, add_pic);
		cpc_walk_generic_events_pic(cpc, p, pics, add_pic);
	}
}

static void check_model(const char *name)
{
	struct names all = { 0 }, gen = { 0 }, pics = { 0 };
	struct names mall = { 0 }, mgen = { 0 };
	struct pmc_cpc_info info = {
		.size = sizeof(info), .abi_version = PMC_CPC_ABI_VERSION,
		.npic = 6, .caps = CPC_CAP_OVERFLOW_INTERRUPT, .hw_pmu = 1,
	};
	struct cpcev_cpu cpu;
	cpc_t *cpc;
	int i;

	model = name;
	setenv("LIBPFM_FORCE_PMU", name, 1);
	__cpc_cpu_detect(&cpu);
	cpc = __cpc_open_fd(-1, &info, &cpu);
	if (!cpc) {
		FAIL("no handle");
		return;
	}
	if (!cpcev_pfm_ready(&cpc->cpu) || strcmp(cpc->cpu.pfm_name, name)) {
		FAIL("libcpc chose \"%s\"", cpc->cpu.pfm_name);
		cpc_close(cpc);
		return;
	}
	cpc_seterrhndlr(cpc, record);
	/* what this machine's PMU implements of the table: cpustat -h's lists */
	walk_all(cpc, &mall, &mgen, NULL);
	check_caps(&mall);
	check_caps(&mgen);
#if defined(__aarch64__)
	/* then the model's whole table, whatever this machine's PMU implements */
	pmceid_known = 0;
#endif
	walk_all(cpc, &all, &gen, &pics);
	if (!has(&gen, "PAPI_tot_cyc"))
		FAIL("no PAPI_tot_cyc");
	/* the model's table, besides the 7 software events */
	if (all.n < 7 + 10)
		FAIL("only %d platform names: not libpfm4's %s table", all.n, name);
	for (i = 0; i < all.n; i++) {
		if (!has(&pics, all.v[i]))
			FAIL("\"%s\" is on no pic's list", all.v[i]);
		translate_any(cpc, all.v[i]);
	}
	for (i = 0; i < gen.n; i++) {
		if (!has(&pics, gen.v[i]))
			FAIL("\"%s\" is on no pic's list", gen.v[i]);
		translate_any(cpc, gen.v[i]);
	}
	cpc_close(cpc);
	fprintf(stderr, "# %s: %d platform, %d generic names (%d, %d here)\n",
		name, all.n, gen.n, mall.n, mgen.n);
}

TEST(every_core_pmu)
{
	static char m[MAX_MODELS][MODEL_NAME_MAX];
	int n, i, bad = 0;

#if defined(__x86_64__) || defined(__i386__)
	SKIP(return, "x86's models are the host test's (libcpc_models_test)");
#endif
	if (access(PMC_CPC_PATH, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", PMC_CPC_PATH);
	n = list_models(m, MAX_MODELS);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			check_model(m[i]);
			_exit(fails ? 1 : 0);
		}
		waitpid(pid, &status, 0);
		if (WIFSIGNALED(status))
			TH_LOG("%s: killed by signal %d", m[i], WTERMSIG(status));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	TH_LOG("%d core PMUs, %d failed", n, bad);
	EXPECT_EQ(0, bad);
}

TEST_HARNESS_MAIN
