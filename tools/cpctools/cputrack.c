// SPDX-License-Identifier: GPL-2.0
/*
 * cputrack(1): the counters of a process and its LWPs, on libcpc and
 * libpctx.
 *
 * Every LWP gets the set bound by cpc_bind_pctx() when it starts
 * (init_lwp) and is sampled at each tick and at its events.  As on
 * Solaris, a tick row shows what the LWP counted since its previous tick
 * (with several sets, the set's one period: the sets take turns at each
 * tick); the other LWP rows show its counts since it started, and a
 * process's exec and exit rows the sums over all its LWPs.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpctools.h"
#include "pmc_hint.h"

/* Solaris' usage text (cpustat(1M) is cpustat(8) on Linux). */
#define USAGE "Usage:\n\t%s [-T secs] [-N count] [-Defhnv] [-o file]\n" \
	"\t\t-c events [command [args] | -p pid]\n\n" \
	"\t-T secs\t  seconds between samples, default 1\n" \
	"\t-N count  number of samples, default unlimited\n" \
	"\t-D\t  enable debug mode\n" \
	"\t-e\t  follow exec(2), and execve(2)\n" \
	"\t-f\t  follow fork(2), fork1(2), and vfork(2)\n" \
	"\t-h\t  print extended usage information\n" \
	"\t-n\t  suppress titles\n" \
	"\t-t\t  include virtualized %s register\n" \
	"\t-v\t  verbose mode\n" \
	"\t-o file\t  write cpu statistics to this file\n" \
	"\t-c events specify processor events to be monitored\n" \
	"\t-p pid\t  pid of existing process to capture\n\n" \
	"\tUse cpustat(8) to monitor system-wide statistics.\n"

struct lwp {
	struct lwp *next;
	pid_t pid;
	id_t lwpid;
	int cur;			/* the bound set, -1 for none */
	cpc_set_t **set;		/* its own sets (a set binds to one LWP) */
	cpc_buf_t **base, **now, **acc;	/* per set: at bind, latest, counted */
	cpc_buf_t **prev;		/* per set: at the previous tick */
};

struct proc {
	struct proc *next;
	pid_t pid;
	cpc_buf_t **total;		/* per set: LWPs that are gone */
};

static struct {
	cpc_t *cpc;
	struct cpct_set *sets;
	int nsets;
	int pidcol, tsc, verbose, notitle, follow_exec, follow_fork, debug;
	pctx_t *pctx;
	FILE *out;
	hrtime_t t0;
	struct lwp *lwps;
	struct lwp *gone;		/* finished, for its lwp_exit rows */
	struct proc *procs;
	int errors;
} g;

static void usage(FILE *f)
{
	fprintf(f, USAGE, "cputrack", CPC_TICKREG_NAME);
}

/* Solaris' cputrack_errfn(): the libpctx function's name with -D only. */
static void pctx_errfn(const char *fn, const char *fmt, va_list ap)
{
	fprintf(stderr, "cputrack: ");
	if (g.debug)
		fprintf(stderr, "%s: ", fn);
	vfprintf(stderr, fmt, ap);
}

static double now_secs(void)
{
	return (double)(gethrtime() - g.t0) / 1e9;
}

static cpc_buf_t **bufs_new(void)
{
	cpc_buf_t **b = calloc(g.nsets, sizeof(*b));
	int s;

	if (!b)
		return NULL;
	for (s = 0; s < g.nsets; s++) {
		b[s] = cpc_buf_create(g.cpc, g.sets[s].set);
		if (!b[s])
			return NULL;
	}
	return b;
}

static void bufs_free(cpc_buf_t **b)
{
	int s;

	if (!b)
		return;
	for (s = 0; s < g.nsets; s++)
		if (b[s])
			cpc_buf_destroy(g.cpc, b[s]);
	free(b);
}

static cpc_set_t **sets_new(void)
{
	cpc_set_t **v = calloc(g.nsets, sizeof(*v));
	int s;

	if (!v)
		return NULL;
	for (s = 0; s < g.nsets; s++) {
		v[s] = cpc_strtoset(g.cpc, g.sets[s].spec, 0);
		if (!v[s])
			return NULL;
	}
	return v;
}

static void sets_free(cpc_set_t **v)
{
	int s;

	if (!v)
		return;
	for (s = 0; s < g.nsets; s++)
		if (v[s])
			cpc_set_destroy(g.cpc, v[s]);
	free(v);
}

static struct proc *proc_get(pid_t pid)
{
	struct proc *p;

	for (p = g.procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->total = bufs_new();
	if (!p->total) {
		free(p);
		return NULL;
	}
	p->next = g.procs;
	g.procs = p;
	return p;
}

static void proc_drop(pid_t pid)
{
	struct proc **pp, *p;

	for (pp = &g.procs; (p = *pp); pp = &p->next) {
		if (p->pid == pid) {
			*pp = p->next;
			bufs_free(p->total);
			free(p);
			return;
		}
	}
}

static struct lwp *lwp_find(pid_t pid, id_t lwpid)
{
	struct lwp *l;

	for (l = g.lwps; l; l = l->next)
		if (l->pid == pid && l->lwpid == lwpid)
			return l;
	return NULL;
}

static void lwp_free(struct lwp *l)
{
	if (!l)
		return;
	sets_free(l->set);
	bufs_free(l->base);
	bufs_free(l->now);
	bufs_free(l->acc);
	bufs_free(l->prev);
	free(l);
}

/* Take l off the list of live LWPs. */
static void lwp_unlink(struct lwp *l)
{
	struct lwp **pp;

	for (pp = &g.lwps; *pp; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			l->next = NULL;
			return;
		}
	}
}

static void lwp_drop(struct lwp *l)
{
	lwp_unlink(l);
	lwp_free(l);
}

/* Bind set s to an LWP: its counts start from here. */
static int lwp_bind(pctx_t *pctx, struct lwp *l, int s)
{
	if (cpc_bind_pctx(g.cpc, pctx, l->lwpid, l->set[s], 0) < 0) {
		fprintf(stderr, "%6d: init_lwp: can't bind perf counters to lwp%d - %s\n",
			(int)l->pid, (int)l->lwpid, strerror(errno));
		return -1;
	}
	l->cur = s;
	cpc_buf_zero(g.cpc, l->base[s]);
	cpc_set_sample(g.cpc, l->set[s], l->base[s]);
	cpc_buf_copy(g.cpc, l->now[s], l->base[s]);
	cpc_buf_copy(g.cpc, l->prev[s], l->base[s]);
	return 0;
}

/*
 * Sample an LWP's bound set: acc[s] is what it counted while bound before,
 * so the LWP's counts are acc + (now - base).  Fills vals; 0 or -1.
 */
static int lwp_sample(struct lwp *l, uint64_t *vals, uint64_t *tick)
{
	int s = l->cur, k;

	if (s < 0)
		return -1;
	if (cpc_set_sample(g.cpc, l->set[s], l->now[s]) < 0) {
		/*
		 * Keep the last good values.  An LWP killed with its process
		 * (exit_group) may be gone before its fini: no message then.
		 */
		if (errno == EAGAIN)
			fprintf(stderr, "%6d: tick: lwp%d: perf counter contents invalidated\n",
				(int)l->pid, (int)l->lwpid);
		else if (errno != EINVAL && errno != ESRCH)
			fprintf(stderr, "%6d: tick: lwp%d: can't access perf counter - %s\n",
				(int)l->pid, (int)l->lwpid, strerror(errno));
	}
	for (k = 0; k < g.sets[s].nreqs; k++) {
		uint64_t a, n, b;

		cpc_buf_get(g.cpc, l->acc[s], k, &a);
		cpc_buf_get(g.cpc, l->now[s], k, &n);
		cpc_buf_get(g.cpc, l->base[s], k, &b);
		vals[k] = a + n - b;
	}
	*tick = cpc_buf_tick(g.cpc, l->acc[s]) + cpc_buf_tick(g.cpc, l->now[s]) -
		cpc_buf_tick(g.cpc, l->base[s]);
	return 0;
}

static void row(pid_t pid, id_t lwpid, const char *label, int s, uint64_t tick,
		const uint64_t *vals, const char *note)
{
	cputrack_row(g.out, now_secs(), g.pidcol, (int)pid, (int)lwpid, label,
		     g.tsc, tick, vals, g.sets[s].nreqs,
		     g.nsets > 1 ? g.sets[s].spec : NULL, note);
	fflush(g.out);
}

static void lwp_row(struct lwp *l, const char *label, const char *note)
{
	uint64_t vals[CPCT_MAX_REQS], tick;

	if (lwp_sample(l, vals, &tick) == 0)
		row(l->pid, l->lwpid, label, l->cur, tick, vals, note);
}

/*
 * The counts of set s for an LWP: what it counted in the periods set s was
 * bound before, plus the current period if s is bound now.
 */
static void lwp_counts(struct lwp *l, int s, uint64_t *vals, uint64_t *tick)
{
	int k;

	if (s == l->cur) {
		lwp_sample(l, vals, tick);
		return;
	}
	for (k = 0; k < g.sets[s].nreqs; k++)
		cpc_buf_get(g.cpc, l->acc[s], k, &vals[k]);
	*tick = cpc_buf_tick(g.cpc, l->acc[s]);
}

/* A process row per set: the LWPs that are gone plus the live ones. */
static void proc_rows(pid_t pid, id_t lwpid, const char *label, const char *note)
{
	struct proc *p = proc_get(pid);
	int s, k;

	if (!p)
		return;
	for (s = 0; s < g.nsets; s++) {
		uint64_t vals[CPCT_MAX_REQS] = { 0 }, tick;
		struct lwp *l;

		int bound = cpc_buf_hrtime(g.cpc, p->total[s]) != 0;

		for (k = 0; k < g.sets[s].nreqs; k++)
			cpc_buf_get(g.cpc, p->total[s], k, &vals[k]);
		tick = cpc_buf_tick(g.cpc, p->total[s]);
		for (l = g.lwps; l; l = l->next) {
			uint64_t v[CPCT_MAX_REQS], t;

			if (l->pid != pid)
				continue;
			if (l->cur == s || cpc_buf_hrtime(g.cpc, l->acc[s]))
				bound = 1;
			lwp_counts(l, s, v, &t);
			for (k = 0; k < g.sets[s].nreqs; k++)
				vals[k] += v[k];
			tick += t;
		}
		/* As on Solaris, no row for a set never bound (never sampled). */
		if (bound)
			row(pid, lwpid, label, s, tick, vals, note);
	}
}

/* ---- libpctx handlers ---------------------------------------------------------- */

static int init_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwp *l = calloc(1, sizeof(*l));

	(void)arg;
	if (!l || !proc_get(pid))
		return -1;
	l->pid = pid;
	l->lwpid = lwpid;
	l->cur = -1;
	l->set = sets_new();
	l->base = bufs_new();
	l->now = bufs_new();
	l->acc = bufs_new();
	l->prev = bufs_new();
	l->next = g.lwps;
	g.lwps = l;
	if (!l->set || !l->base || !l->now || !l->acc || !l->prev ||
	    lwp_bind(pctx, l, 0) < 0) {
		lwp_drop(l);
		g.errors++;
		return -1;
	}
	if (g.verbose)
		lwp_row(l, "init_lwp", NULL);
	return 0;
}

static int fini_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwp *l = lwp_find(pid, lwpid);
	struct proc *p = proc_get(pid);
	int s;

	(void)pctx;
	(void)arg;
	if (!l)
		return 0;
	if (l->cur >= 0) {
		uint64_t vals[CPCT_MAX_REQS], tick;

		s = l->cur;
		lwp_sample(l, vals, &tick);
		if (g.verbose)
			row(pid, lwpid, "fini_lwp", s, tick, vals, NULL);
		/* The current period into acc, like the earlier ones. */
		cpc_buf_sub(g.cpc, l->now[s], l->now[s], l->base[s]);
		cpc_buf_add(g.cpc, l->acc[s], l->acc[s], l->now[s]);
		cpc_unbind(g.cpc, l->set[s]);
		l->cur = -1;
	}
	for (s = 0; p && s < g.nsets; s++)
		cpc_buf_add(g.cpc, p->total[s], p->total[s], l->acc[s]);
	/* Kept until the next fini_lwp: its lwp_exit, if any, comes next. */
	lwp_unlink(l);
	lwp_free(g.gone);
	g.gone = l;
	return 0;
}

/*
 * Solaris' lwp_create row: the new LWP (after its init_lwp), with the values
 * of a buffer never sampled, zeros.
 */
static int lwp_create(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	uint64_t zeros[CPCT_MAX_REQS] = { 0 };

	(void)pctx;
	(void)arg;
	row(pid, lwpid, "lwp_create", 0, 0, zeros, NULL);
	return 0;
}

/* After its fini_lwp: what the LWP counted, each set it was bound with. */
static int lwp_exit(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwp *l = g.gone;
	int s, k;

	(void)pctx;
	(void)arg;
	if (!l || l->pid != pid || l->lwpid != lwpid)
		return 0;
	for (s = 0; s < g.nsets; s++) {
		uint64_t vals[CPCT_MAX_REQS];

		if (!cpc_buf_hrtime(g.cpc, l->acc[s]))
			continue;
		for (k = 0; k < g.sets[s].nreqs; k++)
			cpc_buf_get(g.cpc, l->acc[s], k, &vals[k]);
		row(pid, lwpid, "lwp_exit", s, cpc_buf_tick(g.cpc, l->acc[s]), vals, NULL);
	}
	g.gone = NULL;
	lwp_free(l);
	return 0;
}

/* Solaris' fork row and exec name row: two blank value columns and a note. */
static void blank_row(pid_t pid, id_t lwpid, const char *label, const char *note)
{
	fprintf(g.out, "%7.3f ", now_secs());
	if (g.pidcol)
		fprintf(g.out, "%6d ", (int)pid);
	fprintf(g.out, "%3d %10s ", (int)lwpid, label);
	if (g.tsc)
		fprintf(g.out, "%9s ", "");
	fprintf(g.out, "%9s %9s %s\n", "", "", note);
	fflush(g.out);
}

static void pfork(pctx_t *pctx, pid_t pid, id_t lwpid, pid_t child, void *arg)
{
	char note[32];

	(void)pctx;
	(void)arg;
	snprintf(note, sizeof(note), "# %d", (int)child);
	blank_row(pid, lwpid, "fork", note);
}

static int pexec(pctx_t *pctx, pid_t pid, id_t lwpid, char *name, void *arg)
{
	char note[4200];

	(void)pctx;
	(void)arg;
	/* Every LWP of the old image was finished: the sums are the totals. */
	proc_rows(pid, lwpid, "exec", NULL);
	proc_drop(pid);
	snprintf(note, sizeof(note), "# '%s'", name);
	blank_row(pid, 1, "exec", note);
	return g.follow_exec ? 0 : -1;
}

static void pexit(pctx_t *pctx, pid_t pid, id_t lwpid, int status, void *arg)
{
	(void)pctx;
	(void)arg;
	(void)status;
	proc_rows(pid, lwpid, "exit", NULL);
	proc_drop(pid);
}

/* A tick row: what the LWP counted since its previous tick, as on Solaris. */
static void tick_row(struct lwp *l)
{
	uint64_t vals[CPCT_MAX_REQS], tick, tot[CPCT_MAX_REQS], t;
	int s = l->cur, k;

	if (lwp_sample(l, tot, &t) < 0)
		return;
	for (k = 0; k < g.sets[s].nreqs; k++) {
		uint64_t n, p;

		cpc_buf_get(g.cpc, l->now[s], k, &n);
		cpc_buf_get(g.cpc, l->prev[s], k, &p);
		vals[k] = n - p;
	}
	tick = cpc_buf_tick(g.cpc, l->now[s]) - cpc_buf_tick(g.cpc, l->prev[s]);
	cpc_buf_copy(g.cpc, l->prev[s], l->now[s]);
	row(l->pid, l->lwpid, "tick", s, tick, vals, NULL);
}

static int tick(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct lwp *l = lwp_find(pid, lwpid);

	(void)arg;
	if (!l)
		return 0;
	tick_row(l);
	/* Several sets take turns, one per tick. */
	if (g.nsets > 1 && l->cur >= 0) {
		int s = l->cur, next = (s + 1) % g.nsets;

		cpc_buf_sub(g.cpc, l->now[s], l->now[s], l->base[s]);
		cpc_buf_add(g.cpc, l->acc[s], l->acc[s], l->now[s]);
		cpc_unbind(g.cpc, l->set[s]);
		l->cur = -1;
		if (lwp_bind(pctx, l, next) < 0)
			return -1;
	}
	return 0;
}

/*
 * Solaris' intr(): the tracking ends (pctx_run() returns 0), and cputrack
 * exits 0; a captured process runs on, a command is killed with the
 * release.  pctx_terminate() is what cpc_terminate() does for the sets
 * bound to the process, without the handle's lock.
 */
static void on_signal(int sig)
{
	(void)sig;
	pctx_terminate(g.pctx);
}

static void catch(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* ---- main ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	double secs = 1.0;
	long long count = 0;
	const char **specs = NULL, *outfile = NULL;
	int nspecs = 0, c, s, ret, hflag = 0, errcnt = 0;
	pid_t pid = 0;
	pctx_t *pctx;
	struct sigaction sa;
	char *end;

	cpct_progname = "cputrack";
	pmc_version_opt(argc, argv);
	opterr = 0;
	/* "+": options end at the command. */
	while ((c = getopt(argc, argv, "+T:N:Defhntvo:r:c:p:")) != -1) {
		switch (c) {
		case 'T':
			/* 0: no periodic sampling, only the LWP and process events. */
			errno = 0;
			secs = strtod(optarg, &end);
			if (errno || *end || !(secs >= 0) || !isfinite(secs) || secs > 4e6)
				errcnt++;
			break;
		case 'N':
			/* 0: unlimited, the default. */
			errno = 0;
			count = strtoll(optarg, &end, 10);
			if (errno || *end || count < 0 || count > 0xffffffffLL)
				errcnt++;
			break;
		case 'D':
			g.debug = 1;
			break;
		case 'e':
			g.follow_exec = 1;
			break;
		case 'f':
			g.follow_fork = 1;
			g.pidcol = 1;
			break;
		case 'h':
			hflag = 1;
			break;
		case 'n':
			g.notitle = 1;
			break;
		case 't':
			g.tsc = 1;
			break;
		case 'v':
			g.verbose = 1;
			break;
		case 'o':
			outfile = optarg;
			break;
		case 'c':
			specs = realloc(specs, (nspecs + 1) * sizeof(*specs));
			if (!specs)
				return 1;
			specs[nspecs++] = optarg;
			break;
		case 'p':
			errno = 0;
			pid = (pid_t)strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0)
				errcnt++;
			break;
		case 'r':	/* in Solaris' option string, but not handled */
			errcnt++;
			break;
		default:
			fprintf(stderr, strchr("TNorcp", optopt) ? "cputrack: option requires an argument -- %c\n"
				: "cputrack: illegal option -- %c\n", optopt);
			errcnt++;
		}
	}
	/* The usage needs no device: a bad command line says so first. */
	if (!hflag && (errcnt || !nspecs || (pid && optind < argc) || (!pid && optind >= argc))) {
		usage(stderr);
		return 2;
	}
	g.cpc = cpc_open(CPC_VER_CURRENT);
	if (!g.cpc) {
		int e = errno;

		if (hflag)
			usage(stdout);
		fprintf(stderr, "cputrack: cannot access performance counter library - %s\n",
			strerror(e));
		pmc_hint("/dev/cpc", e);
		return 1;
	}
	/* -h: the usage on stdout and the capability listing. */
	if (hflag) {
		usage(stdout);
		putchar('\n');
		cpct_caps(stdout, g.cpc);
		cpc_close(g.cpc);
		return 0;
	}
	if (errcnt || !nspecs || (pid && optind < argc) || (!pid && optind >= argc)) {
		usage(stderr);
		return 2;
	}
	/* -D: libcpc's messages name the function too (cputrack_errfn). */
	cpct_debug = g.debug;
	cpc_seterrhndlr(g.cpc, cpct_errhndlr);
	g.sets = calloc(nspecs, sizeof(*g.sets));
	if (!g.sets)
		return 1;
	g.nsets = nspecs;
	for (s = 0; s < nspecs; s++) {
		if (cpct_set_make(g.cpc, specs[s], &g.sets[s]) < 0)
			return 2;
	}
	g.out = stdout;
	if (outfile) {
		g.out = fopen(outfile, "w");
		if (!g.out) {
			fprintf(stderr, "cputrack: cannot open '%s' for writing\n", outfile);
			return 1;
		}
	}

	if (pid) {
		/* verbose 1, as Solaris' cputrack: libpctx tells of trouble only. */
		pctx = pctx_capture(pid, NULL, 1, pctx_errfn);
		if (!pctx) {
			fprintf(stderr, "cputrack: failed to capture pid %d\n", (int)pid);
			return 1;
		}
	} else {
		fflush(NULL);
		pctx = pctx_create(argv[optind], &argv[optind], NULL, 1, pctx_errfn);
		if (!pctx) {
			fprintf(stderr, "cputrack: failed to start program '%s'\n",
				argv[optind]);
			return 1;
		}
	}
	g.pctx = pctx;
	if (pctx_set_events(pctx,
			    PCTX_SYSC_EXEC_EVENT, pexec,
			    PCTX_SYSC_FORK_EVENT, g.follow_fork ? pfork : NULL,
			    PCTX_SYSC_EXIT_EVENT, pexit,
			    PCTX_SYSC_LWP_CREATE_EVENT, lwp_create,
			    PCTX_INIT_LWP_EVENT, init_lwp,
			    PCTX_FINI_LWP_EVENT, fini_lwp,
			    PCTX_SYSC_LWP_EXIT_EVENT, lwp_exit,
			    PCTX_NULL_EVENT) != 0) {
		fprintf(stderr, "cputrack: can't bind process context ops to process\n");
		pctx_release(pctx);
		cpc_close(g.cpc);
		return 1;
	}

	/*
	 * As on Solaris, HUP, INT, QUIT (unless ignored), PIPE and TERM end
	 * the tracking, with -p or a command: the process runs on, or the
	 * command is killed by the release.
	 */
	catch(SIGHUP);
	catch(SIGINT);
	if (sigaction(SIGQUIT, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
		catch(SIGQUIT);
	catch(SIGPIPE);
	catch(SIGTERM);

	if (!g.notitle)
		cputrack_title(g.out, g.pidcol, g.tsc, &g.sets[0]);
	fflush(g.out);
	g.t0 = gethrtime();
	/* -T 0: pctx_run() with msec 0, which samples only at the events. */
	ret = pctx_run(pctx, (uint_t)llround(secs * 1000), (uint_t)count, tick);
	/* Lets a captured process go; kills a command not seen to its end. */
	pctx_release(pctx);
	lwp_free(g.gone);
	g.gone = NULL;
	if (g.out != stdout && fclose(g.out))
		ret = -1;
	fflush(stdout);
	cpc_close(g.cpc);
	/* Solaris' exit status: 1 when pctx_run() failed or was stopped. */
	return ret || g.errors ? 1 : 0;
}
