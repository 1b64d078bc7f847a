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
#include <perfmon/pfmlib.h>
#include <sys/wait.h>
#include "pmc_test_util.h"
#include "cpctools_test_util.h"
#include "kselftest_harness.h"

#define CPUSTAT		"/usr/bin/cpustat"
#define MAX_MODELS	64

struct names {
	int n, cap;
	char **v;
};

static void add(void *arg, const char *name)
{
	struct names *l = arg;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	l->v[l->n++] = strdup(name);
}

static void add_pic(void *arg, uint_t picno, const char *name)
{
	(void)picno;
	add(arg, name);
}

static int has(const struct names *l, const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return 1;
	return 0;
}

/* libpfm4's core PMUs, listed by a child (it keeps what it detected). */
static int list_models(char m[][64], int max)
{
	int fd[2], n = 0, status;
	pid_t pid;
	FILE *f;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		pfm_pmu_info_t info;
		pfm_pmu_t pmu;

		close(fd[0]);
		f = fdopen(fd[1], "w");
		unsetenv("LIBPFM_FORCE_PMU");
		if (!f || pfm_initialize() != PFM_SUCCESS)
			_exit(1);
		pfm_for_all_pmus(pmu) {
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pfm_get_pmu_info(pmu, &info) == PFM_SUCCESS &&
			    info.type == PFM_PMU_TYPE_CORE)
				fprintf(f, "%s\n", info.name);
		}
		fclose(f);
		_exit(0);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	while (f && n < max && fgets(m[n], 64, f)) {
		m[n][strcspn(m[n], "\n")] = '\0';
		n++;
	}
	if (f)
		fclose(f);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? n : -1;
}

static int fails, last_subcode;
static const char *model;

#define FAIL(...) do {						\
	fprintf(stderr, "# %s: ", model);			\
	fprintf(stderr, __VA_ARGS__);				\
	fputc('\n', stderr);					\
	fails++;						\
} while (0)

static void record(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn;
	(void)fmt;
	(void)ap;
	last_subcode = subcode;
}

/* The set of name translates: the library's perf event for it. */
static void translate(cpc_t *cpc, const char *name)
{
	struct pmc_cpc_request kreqs[PMC_CPC_MAX_REQS] = { 0 };
	cpc_set_t *set = cpc_strtoset(cpc, name, 0);
	int subcode = 0, hw, err;
	sigset_t old;

	if (!set) {
		FAIL("cpc_strtoset(\"%s\") failed (subcode %d)", name, last_subcode);
		return;
	}
	__cpc_lock(cpc, &old);
	err = set_build(cpc, set, kreqs, &subcode, &hw);
	__cpc_unlock(cpc, &old);
	cpc_set_destroy(cpc, set);
	if (err)
		FAIL("\"%s\" does not translate (errno %d, subcode %d)", name, err,
		     subcode);
	else if (kreqs[0].type != PERF_TYPE_RAW && kreqs[0].type != PERF_TYPE_HARDWARE &&
		 kreqs[0].type != PERF_TYPE_HW_CACHE && kreqs[0].type != PERF_TYPE_SOFTWARE)
		FAIL("\"%s\": perf type %u", name, kreqs[0].type);
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
		translate(cpc, all.v[i]);
	}
	for (i = 0; i < gen.n; i++) {
		if (!has(&pics, gen.v[i]))
			FAIL("\"%s\" is on no pic's list", gen.v[i]);
		translate(cpc, gen.v[i]);
	}
	cpc_close(cpc);
	fprintf(stderr, "# %s: %d platform, %d generic names (%d, %d here)\n",
		name, all.n, gen.n, mall.n, mgen.n);
}

TEST(every_core_pmu)
{
	static char m[MAX_MODELS][64];
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
