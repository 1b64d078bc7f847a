// SPDX-License-Identifier: GPL-2.0
/*
 * cpustat(8): the counters of every online CPU, per interval, on libcpc.
 *
 * One thread per online CPU binds a set to its CPU with cpc_bind_cpu() and
 * samples it when the main thread says so, at the end of each interval.
 * Several sets (-c given more than once) take turns, one per interval.
 * The main thread waits for the intervals with SIGINT, SIGTERM and SIGHUP
 * blocked everywhere and taken by sigtimedwait(), so an interrupt prints
 * the totals and unbinds everything.
 *
 * As Solaris' cpustat: -s starts a soaker per CPU only if some set counts
 * system events only, and runs it only while such a set is bound; -p rests
 * between cycles of several sets, and multiplies the count by the sets.
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpctools.h"
#include "pmc_hint.h"

/* Solaris' usage text (cputrack(1) keeps its name). */
#define USAGE "Usage:\n\t%s [-c events] [-p period] [-nstD] [-T d|u] [interval [count]]\n\n" \
	"\t-c events specify processor events to be monitored\n" \
	"\t-n\t  suppress titles\n" \
	"\t-p period cycle through event list periodically\n" \
	"\t-s\t  run user soaker thread for system-only events\n" \
	"\t-t\t  include %s register\n" \
	"\t-T d|u\t  Display a timestamp in date (d) or unix time_t (u)\n" \
	"\t-D\t  enable debug mode\n" \
	"\t-h\t  print extended usage information\n\n" \
	"\tUse cputrack(1) to monitor per-process statistics.\n"

enum cmd { CMD_NONE, CMD_SAMPLE, CMD_BIND, CMD_QUIT };

struct cpu {
	int id;
	pthread_t thr, soaker;
	int have_thr, have_soaker;
	struct cpct_set *sets;		/* one per -c, this CPU's own */
	cpc_buf_t **base, **now, **diff;
	int cur;			/* bound set, -1 for none */
	pthread_mutex_t soak_lock;
	pthread_cond_t soak_cv;
	int soak_run;			/* the soaker spins (else it waits) */
	int err;			/* errno of a failed bind or sample */
	const char *errfn;
};

static struct {
	cpc_t *cpc;
	int nsets;
	const char **specs;
	struct cpu *cpus;
	int ncpus;
	int tsc, notitle, debug, soak;
	int *sysonly;			/* set s counts system events only */
	pthread_mutex_t lock;
	pthread_cond_t cmd_cv, done_cv;
	unsigned long gen;		/* command generation */
	enum cmd cmd;
	int next;			/* CMD_SAMPLE: set to bind after, -1 none */
	int ndone;
	volatile int quit_soak;
} g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cmd_cv = PTHREAD_COND_INITIALIZER,
	.done_cv = PTHREAD_COND_INITIALIZER,
};

static void print_usage(FILE *f)
{
	fprintf(f, USAGE, "cpustat", CPC_TICKREG_NAME);
}

static void usage(void)
{
	print_usage(stderr);
	exit(2);
}

/* ---- per-CPU threads ------------------------------------------------------------ */

static int cpu_bind(struct cpu *c, int s)
{
	if (cpc_bind_cpu(g.cpc, c->id, c->sets[s].set, 0) < 0) {
		c->err = errno;
		c->errfn = "bind";
		return -1;
	}
	c->cur = s;
	if (cpc_set_sample(g.cpc, c->sets[s].set, c->base[s]) < 0) {
		c->err = errno;
		c->errfn = "sample";
		return -1;
	}
	return 0;
}

static void cpu_unbind(struct cpu *c)
{
	if (c->cur >= 0)
		cpc_unbind(g.cpc, c->sets[c->cur].set);
	c->cur = -1;
}

static void cpu_sample(struct cpu *c)
{
	int s = c->cur;

	if (s < 0)
		return;
	if (cpc_set_sample(g.cpc, c->sets[s].set, c->now[s]) < 0) {
		c->err = errno;
		c->errfn = "sample";
		return;
	}
	cpc_buf_sub(g.cpc, c->diff[s], c->now[s], c->base[s]);
	cpc_buf_copy(g.cpc, c->base[s], c->now[s]);
}

static void *cpu_main(void *arg)
{
	struct cpu *c = arg;
	unsigned long seen = 0;
	cpu_set_t mask;
	enum cmd cmd;
	int next;

	/*
	 * Stay on the CPU between bindings: cpc_unbind() restores the mask
	 * cpc_bind_cpu() found, so sets that take turns do not migrate.
	 */
	CPU_ZERO(&mask);
	CPU_SET(c->id, &mask);
	sched_setaffinity(0, sizeof(mask), &mask);
	cpu_bind(c, 0);
	for (;;) {
		pthread_mutex_lock(&g.lock);
		g.ndone++;
		pthread_cond_broadcast(&g.done_cv);
		while (g.gen == seen)
			pthread_cond_wait(&g.cmd_cv, &g.lock);
		seen = g.gen;
		cmd = g.cmd;
		next = g.next;
		pthread_mutex_unlock(&g.lock);

		switch (cmd) {
		case CMD_SAMPLE:
			cpu_sample(c);
			if (next != c->cur) {
				cpu_unbind(c);
				if (next >= 0 && !c->err)
					cpu_bind(c, next);
			}
			break;
		case CMD_BIND:
			if (c->cur < 0 && next >= 0 && !c->err)
				cpu_bind(c, next);
			break;
		case CMD_QUIT:
			cpu_unbind(c);
			return NULL;
		default:
			break;
		}
	}
}

/* A command to every CPU thread; returns when all have done it. */
static void command(enum cmd cmd, int next)
{
	pthread_mutex_lock(&g.lock);
	g.ndone = 0;
	g.cmd = cmd;
	g.next = next;
	g.gen++;
	pthread_cond_broadcast(&g.cmd_cv);
	if (cmd != CMD_QUIT)
		while (g.ndone < g.ncpus)
			pthread_cond_wait(&g.done_cv, &g.lock);
	pthread_mutex_unlock(&g.lock);
}

/*
 * -s: an idle-priority thread that keeps a CPU busy while a set that
 * counts system events only is bound there, and waits otherwise.
 */
static void *soak_main(void *arg)
{
	struct cpu *c = arg;
	struct sched_param sp = { 0 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c->id, &set);
	sched_setaffinity(0, sizeof(set), &set);
	sched_setscheduler(0, SCHED_IDLE, &sp);
	pthread_setname_np(pthread_self(), "cpustat-soaker");
	for (;;) {
		pthread_mutex_lock(&c->soak_lock);
		while (!c->soak_run && !g.quit_soak)
			pthread_cond_wait(&c->soak_cv, &c->soak_lock);
		pthread_mutex_unlock(&c->soak_lock);
		if (g.quit_soak)
			return NULL;
		while (__atomic_load_n(&c->soak_run, __ATOMIC_RELAXED) &&
		       !g.quit_soak)
			;
	}
}

/* Run (1) or pause (0) every CPU's soaker. */
static void soak_all(int run)
{
	int i;

	if (!g.soak)
		return;
	for (i = 0; i < g.ncpus; i++) {
		struct cpu *c = &g.cpus[i];

		pthread_mutex_lock(&c->soak_lock);
		__atomic_store_n(&c->soak_run, run, __ATOMIC_RELAXED);
		pthread_cond_signal(&c->soak_cv);
		pthread_mutex_unlock(&c->soak_lock);
	}
}

/* Whether set s's requests all count system events only. */
static void sysonly_req(void *arg, int index, const char *event, uint64_t preset,
			uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	int *only = arg;

	(void)index;
	(void)event;
	(void)preset;
	(void)nattrs;
	(void)attrs;
	if ((flags & CPC_COUNT_USER) || !(flags & CPC_COUNT_SYSTEM))
		*only = 0;
}

/* ---- setup ------------------------------------------------------------------- */

/*
 * The CPUs to count: the online CPUs this process may run on (as Solaris'
 * cpustat counts the online processors of its processor set).
 */
static int online_cpus(int **ids)
{
	int max = CPU_SETSIZE, n = 0, a, *v;
	cpu_set_t *set;
	size_t size;

	for (;;) {
		set = CPU_ALLOC(max);
		size = CPU_ALLOC_SIZE(max);
		if (!set)
			return 0;
		if (!sched_getaffinity(0, size, set))
			break;
		CPU_FREE(set);
		if (errno != EINVAL || max >= (1 << 20))
			return 0;
		max *= 2;
	}
	v = calloc(CPU_COUNT_S(size, set) + 1, sizeof(*v));
	for (a = 0; v && a < max; a++)
		if (CPU_ISSET_S(a, size, set))
			v[n++] = a;
	CPU_FREE(set);
	*ids = v;
	return n;
}

static int cpu_setup(struct cpu *c, int id)
{
	int s;

	c->id = id;
	c->cur = -1;
	pthread_mutex_init(&c->soak_lock, NULL);
	pthread_cond_init(&c->soak_cv, NULL);
	c->sets = calloc(g.nsets, sizeof(*c->sets));
	c->base = calloc(g.nsets, sizeof(*c->base));
	c->now = calloc(g.nsets, sizeof(*c->now));
	c->diff = calloc(g.nsets, sizeof(*c->diff));
	if (!c->sets || !c->base || !c->now || !c->diff)
		return -1;
	for (s = 0; s < g.nsets; s++) {
		if (cpct_set_make(g.cpc, g.specs[s], &c->sets[s]) < 0)
			return -2;
		c->base[s] = cpc_buf_create(g.cpc, c->sets[s].set);
		c->now[s] = cpc_buf_create(g.cpc, c->sets[s].set);
		c->diff[s] = cpc_buf_create(g.cpc, c->sets[s].set);
		if (!c->base[s] || !c->now[s] || !c->diff[s])
			return -1;
	}
	return 0;
}

static void debug_req(void *arg, int index, const char *event, uint64_t preset,
		      uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	int i;

	(void)arg;
	fprintf(stderr, "\treq %d: event %s preset %llu flags 0x%x", index, event,
		(unsigned long long)preset, flags);
	for (i = 0; i < nattrs; i++)
		fprintf(stderr, " %s=%llu", attrs[i].ca_name,
			(unsigned long long)attrs[i].ca_val);
	fputc('\n', stderr);
}

/* ---- output ------------------------------------------------------------------- */

static void timestamp(char fmt)
{
	time_t t = time(NULL);
	char buf[128];

	if (fmt == 'u') {
		printf("%lld\n", (long long)t);
	} else if (fmt == 'd') {
		if (strftime(buf, sizeof(buf), nl_langinfo(D_T_FMT), localtime(&t)))
			printf("%s\n", buf);
	}
}

static double secs_since(hrtime_t t, hrtime_t t0)
{
	return (double)(t - t0) / 1e9;
}

/*
 * Wait until deadline (gethrtime(): CLOCK_MONOTONIC, the clock of
 * cpc_buf_hrtime()) unless a terminating signal comes
 * first: 0 when the deadline came, 1 for a signal.
 */
static int wait_until(const sigset_t *sigs, hrtime_t deadline)
{
	for (;;) {
		hrtime_t left = deadline - gethrtime();
		struct timespec ts;

		if (left <= 0)
			return 0;
		ts.tv_sec = left / 1000000000LL;
		ts.tv_nsec = left % 1000000000LL;
		if (sigtimedwait(sigs, NULL, &ts) > 0)
			return 1;
	}
}

int main(int argc, char **argv)
{
	double interval = 5.0, period = 0.0;
	long long count = -1, n;
	const char **specs = NULL;
	hrtime_t t0, deadline, last = 0;
	uint64_t **total = NULL, *ttick = NULL;
	int nspecs = 0, c, i, s, ret = 0, hflag = 0, *ids = NULL, interrupted = 0;
	int soakers = 0;
	char tsfmt = 0, *end;
	sigset_t sigs;

	cpct_progname = "cpustat";
	pmc_version_opt(argc, argv);
	setlocale(LC_ALL, "");
	opterr = 0;
	while ((c = getopt(argc, argv, "Dc:hntT:sp:")) != -1) {
		switch (c) {
		case 'D':
			g.debug = 1;
			break;
		case 'c':
			specs = realloc(specs, (nspecs + 1) * sizeof(*specs));
			if (!specs)
				return 1;
			specs[nspecs++] = optarg;
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
		case 'T':
			if (strcmp(optarg, "u") && strcmp(optarg, "d"))
				usage();
			tsfmt = optarg[0];
			break;
		case 's':
			g.soak = 1;
			break;
		case 'p':
			errno = 0;
			period = strtod(optarg, &end);
			if (errno || *end || !(period > 0) || !isfinite(period))
				usage();
			break;
		default:
			fprintf(stderr, strchr("cTp", optopt) ? "cpustat: option requires an argument -- %c\n"
				: "cpustat: illegal option -- %c\n", optopt);
			usage();
		}
	}
	if (optind < argc) {
		errno = 0;
		interval = strtod(argv[optind], &end);
		if (errno || *end || !(interval > 0) || !isfinite(interval) ||
		    interval > 1e8)
			usage();
		optind++;
	}
	if (optind < argc) {
		errno = 0;
		count = strtoll(argv[optind], &end, 10);
		if (errno || *end || count <= 0)
			usage();
		optind++;
	}
	if (optind < argc)
		usage();
	if (!hflag && !nspecs)
		usage();

	g.cpc = cpc_open(CPC_VER_CURRENT);
	if (!g.cpc) {
		int e = errno;

		if (hflag)	/* the usage needs no device */
			print_usage(stdout);
		fprintf(stderr, "cpustat: cannot access performance counters - %s\n",
			strerror(e));
		pmc_hint("/dev/cpc", e);
		return 1;
	}
	cpc_seterrhndlr(g.cpc, cpct_errhndlr);
	if (hflag) {
		print_usage(stdout);
		putchar('\n');
		cpct_caps(stdout, g.cpc);
		cpc_close(g.cpc);
		return 0;
	}
	g.nsets = nspecs;
	g.specs = specs;

	g.ncpus = online_cpus(&ids);
	if (g.ncpus <= 0) {
		fprintf(stderr, "cpustat: no online processors\n");
		return 1;
	}
	g.cpus = calloc(g.ncpus, sizeof(*g.cpus));
	total = calloc(g.nsets, sizeof(*total));
	g.sysonly = calloc(g.nsets, sizeof(*g.sysonly));
	ttick = calloc(g.nsets, sizeof(*ttick));
	if (!g.cpus || !total || !ttick || !g.sysonly)
		return 1;
	for (i = 0; i < g.ncpus; i++) {
		int r = cpu_setup(&g.cpus[i], ids[i]);

		if (r == -2)
			return 2;	/* the specification was reported */
		if (r < 0) {
			perror("cpustat");
			return 1;
		}
	}
	for (s = 0; s < g.nsets; s++) {
		total[s] = calloc(CPCT_MAX_REQS, sizeof(**total));
		if (!total[s])
			return 1;
		if (g.debug) {
			fprintf(stderr, "cpustat: set %d: %s\n", s, specs[s]);
			cpc_walk_requests(g.cpc, g.cpus[0].sets[s].set, NULL, debug_req);
		}
		g.sysonly[s] = 1;
		cpc_walk_requests(g.cpc, g.cpus[0].sets[s].set, &g.sysonly[s],
				  sysonly_req);
		if (g.sysonly[s])
			soakers = 1;
	}
	/* Soakers only for a set that counts system events only. */
	if (!soakers)
		g.soak = 0;
	/* -p: the count is of cycles; a rest only with several sets. */
	if (period > 0 && count > 0)
		count *= g.nsets;
	if (period > 0 && (g.nsets < 2 || period <= interval * g.nsets))
		period = 0;	/* no time left to rest */

	/* Only the main thread takes the terminating signals. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	if (g.soak) {
		for (i = 0; i < g.ncpus; i++) {
			g.cpus[i].soak_run = g.sysonly[0];
			g.cpus[i].have_soaker = !pthread_create(&g.cpus[i].soaker, NULL,
								soak_main, &g.cpus[i]);
		}
	}
	pthread_mutex_lock(&g.lock);
	g.ndone = 0;
	pthread_mutex_unlock(&g.lock);
	for (i = 0; i < g.ncpus; i++) {
		if (pthread_create(&g.cpus[i].thr, NULL, cpu_main, &g.cpus[i])) {
			fprintf(stderr, "cpustat: cannot create thread: %s\n", strerror(errno));
			ret = 1;
			goto out;
		}
		g.cpus[i].have_thr = 1;
	}
	pthread_mutex_lock(&g.lock);
	while (g.ndone < g.ncpus)
		pthread_cond_wait(&g.done_cv, &g.lock);
	pthread_mutex_unlock(&g.lock);
	for (i = 0; i < g.ncpus; i++) {
		if (g.cpus[i].err) {
			fprintf(stderr, "cpustat: cannot %s cpu%d - %s\n", g.cpus[i].errfn,
				g.cpus[i].id, strerror(g.cpus[i].err));
			ret = 1;
		}
	}
	if (ret)
		goto out;

	t0 = gethrtime();
	deadline = t0;
	s = 0;
	/* The title once all CPUs count; with several sets, at every set. */
	if (!g.notitle) {
		cpustat_title(stdout, g.tsc, &g.cpus[0].sets[0]);
		fflush(stdout);
	}
	for (n = 0; count < 0 || n < count; n++) {
		int next = (s + 1) % g.nsets, rest;

		deadline += (hrtime_t)llround(interval * 1e9);
		if (wait_until(&sigs, deadline)) {
			interrupted = 1;
			break;
		}
		/* Rest (unbound) after the last set of a cycle, with -p. */
		rest = period > 0 && next == 0;
		/* The soakers wait while resting or a set counts user events. */
		if (rest || !g.sysonly[next])
			soak_all(0);
		command(CMD_SAMPLE, rest ? -1 : next);
		if (!rest && g.sysonly[next])
			soak_all(1);
		if (tsfmt)
			timestamp(tsfmt);
		if (!g.notitle && g.nsets > 1 && n > 0)
			cpustat_title(stdout, g.tsc, &g.cpus[0].sets[s]);
		for (i = 0; i < g.ncpus; i++) {
			struct cpu *cp = &g.cpus[i];
			struct cpct_set *cs = &cp->sets[s];
			uint64_t vals[CPCT_MAX_REQS];
			int k;

			if (cp->err) {
				fprintf(stderr, "cpustat: cannot %s cpu%d - %s\n", cp->errfn,
					cp->id, strerror(cp->err));
				ret = 1;
				goto out;
			}
			for (k = 0; k < cs->nreqs; k++) {
				cpc_buf_get(g.cpc, cp->diff[s], k, &vals[k]);
				total[s][k] += vals[k];
			}
			ttick[s] += cpc_buf_tick(g.cpc, cp->diff[s]);
			if (cpc_buf_hrtime(g.cpc, cp->now[s]) > last)
				last = cpc_buf_hrtime(g.cpc, cp->now[s]);
			cpustat_row(stdout, secs_since(cpc_buf_hrtime(g.cpc, cp->now[s]), t0),
				    cp->id, "tick", g.tsc, cpc_buf_tick(g.cpc, cp->diff[s]),
				    vals, cs->nreqs, g.nsets > 1 ? cs->spec : NULL);
		}
		fflush(stdout);
		if (rest) {
			deadline += (hrtime_t)llround((period - interval * g.nsets) * 1e9);
			if (wait_until(&sigs, deadline)) {
				interrupted = 1;
				s = next;
				break;
			}
			if (g.sysonly[0])
				soak_all(1);
			command(CMD_BIND, 0);
		}
		s = next;
	}
	(void)interrupted;
	/* The totals of every set, over all CPUs and intervals. */
	for (s = 0; s < g.nsets; s++)
		cpustat_row(stdout, secs_since(last ? last : gethrtime(), t0), g.ncpus,
			    "total", g.tsc, ttick[s], total[s], g.cpus[0].sets[s].nreqs,
			    g.nsets > 1 ? specs[s] : NULL);
	fflush(stdout);
out:
	command(CMD_QUIT, -1);
	for (i = 0; i < g.ncpus; i++)
		if (g.cpus[i].have_thr)
			pthread_join(g.cpus[i].thr, NULL);
	g.quit_soak = 1;
	for (i = 0; i < g.ncpus; i++) {
		if (!g.cpus[i].have_soaker)
			continue;
		pthread_mutex_lock(&g.cpus[i].soak_lock);
		pthread_cond_signal(&g.cpus[i].soak_cv);
		pthread_mutex_unlock(&g.cpus[i].soak_lock);
		pthread_join(g.cpus[i].soaker, NULL);
	}
	cpc_close(g.cpc);
	return ret;
}
