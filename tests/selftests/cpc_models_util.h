/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two model matrices share: the arm64 lane's cpc_models_test and
 * the host's tests/unit/libcpc_models_test.  Both include the library's
 * sources (libcpc.c, bind.c, the event tables) first, then this: libpfm4's
 * core PMUs, a list of names walked from libcpc, the per-model failure
 * count and the library's own translation of a name (set_build()).
 */
#ifndef CPC_MODELS_UTIL_H
#define CPC_MODELS_UTIL_H

#include <perfmon/pfmlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODEL_NAME_MAX	64

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

/*
 * libpfm4's core PMUs, listed by a child: libpfm4 keeps what it once found
 * present until the process ends, so this process never sets it up.
 * Returns how many, or -1.
 */
static int list_models(char m[][MODEL_NAME_MAX], int max)
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
	while (f && n < max && fgets(m[n], MODEL_NAME_MAX, f)) {
		m[n][strcspn(m[n], "\n")] = '\0';
		n++;
	}
	if (f)
		fclose(f);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? n : -1;
}

/* The model under test (in its child) and what failed there. */
static int fails, last_subcode;
static const char *model;

#define FAIL(...) do {						\
	fprintf(stderr, "# %s: ", model);			\
	fprintf(stderr, __VA_ARGS__);				\
	fputc('\n', stderr);					\
	fails++;						\
} while (0)

/* An error handler for cpc_seterrhndlr(): keeps the subcode. */
static void record(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn;
	(void)fmt;
	(void)ap;
	last_subcode = subcode;
}

/* The kernel request cpc_strtoset(name) becomes: 0, or -1 (reported). */
static int translate(cpc_t *cpc, const char *name, struct pmc_cpc_request *k)
{
	struct pmc_cpc_request kreqs[PMC_CPC_MAX_REQS] = { 0 };
	int subcode = 0, hw, err;
	cpc_set_t *set;
	sigset_t old;

	set = cpc_strtoset(cpc, name, 0);
	if (!set) {
		FAIL("cpc_strtoset(\"%s\") failed (subcode %d)", name, last_subcode);
		return -1;
	}
	__cpc_lock(cpc, &old);
	err = set_build(cpc, set, kreqs, &subcode, &hw);
	__cpc_unlock(cpc, &old);
	cpc_set_destroy(cpc, set);
	if (err) {
		FAIL("\"%s\" does not translate (errno %d, subcode %d)", name,
		     err, subcode);
		return -1;
	}
	*k = kreqs[0];
	return 0;
}

#endif /* CPC_MODELS_UTIL_H */
