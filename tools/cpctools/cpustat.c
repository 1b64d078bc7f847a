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
#define USAGE "Usage:\n\t%s -c spec [-c spec]... [-p period] [-T u|d]\n" \
	"\t\t[-sntD] [interval [count]]\n\n" \
	"\t-c spec\t  specify processor events to be monitored\n" \
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
	int err;			/* errno of a failed bind or sample: stopped */
	int reported;			/* its message was printed */
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

/* ---- per-CPU threads ------------------------------------------------------------ */

static void cpu_unbind(struct cpu *c)
{
	if (c->cur >= 0)
		cpc_unbind(g.cpc, c->sets[c->cur].set);
	c->cur = -1;
}

/*
 * A failed bind or sample stops this CPU only (Solaris' gtick() returns):
 * the others go on, and cpustat exits 1 after the totals.
 */
static void cpu_fail(struct cpu *c)
{
	c->err = errno ? errno : EIO;
	cpu_unbind(c);
}

static void cpu_bind(struct cpu *c, int s)
{
	if (cpc_bind_cpu(g.cpc, c->id, c->sets[s].set, 0) < 0) {
		cpu_fail(c);
		return;
	}
	c->cur = s;
	if (cpc_set_sample(g.cpc, c->sets[s].set, c->base[s]) < 0)
		cpu_fail(c);
}

static void cpu_sample(struct cpu *c)
{
	int s = c->cur;

	if (s < 0)
		return;
	if (cpc_set_sample(g.cpc, c->sets[s].set, c->now[s]) < 0) {
		cpu_fail(c);
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
			if (c->err)
				break;
			cpu_sample(c);
			if (!c->err && next != c->cur) {
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
			return -1;
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

/*
 * -T: Solaris' print_timestamp(), before every CPU's row: the seconds since
 * the Epoch, or the date in date(1)'s format (with the time zone).
 */
static void timestamp(char fmt)
{
	time_t t = time(NULL);
	char buf[256];

	if (fmt == 'u') {
		printf("%lld\n", (long long)t);
	} else if (fmt == 'd') {
		if (strftime(buf, sizeof(buf), nl_langinfo(_DATE_FMT), localtime(&t)))
			printf("%s\n", buf);
	}
}

/* "cpustat: cpuN - reason", once, for a CPU that stopped. */
static int report_failed(void)
{
	int i, failed = 0;

	for (i = 0; i < g.ncpus; i++) {
		struct cpu *c = &g.cpus[i];

		if (!c->err)
			continue;
		failed++;
		if (c->reported)
			continue;
		fflush(stdout);
		fprintf(stderr, "cpustat: cpu%d - %s\n", c->id, strerror(c->err));
		c->reported = 1;
	}
	return failed;
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

/* The options and operands, parsed as Solaris' cpustat parses them. */
struct args {
	double interval, period;
	long long count;
	int doperiod, help;
	char tsfmt;
	const char **specs;
	int nspecs;
};

/*
 * Parse the command line: 0, or the number of errors.  A bad -c is
 * reported by the library's message, a bad -p, interval or count by
 * "invalid parameter" or "invalid argument"; the caller prints the usage.
 */
static int parse(int argc, char **argv, struct args *a)
{
	int c, errcnt = 0;
	char *end;

	opterr = 0;
	while (!errcnt && (c = getopt(argc, argv, "Dc:hntT:sp:")) != -1) {
		switch (c) {
		case 'D':
			g.debug = 1;
			cpct_debug = 1;
			break;
		case 'c': {
			struct cpct_set probe;

			/* As Solaris: the specification is checked here. */
			if (cpct_set_make(g.cpc, optarg, &probe) < 0) {
				errcnt++;
				break;
			}
			cpc_set_destroy(g.cpc, probe.set);
			a->specs = realloc(a->specs, (a->nspecs + 1) * sizeof(*a->specs));
			if (!a->specs)
				exit(1);
			a->specs[a->nspecs++] = optarg;
			break;
		}
		case 'h':
			a->help = 1;
			break;
		case 'n':
			g.notitle = 1;
			break;
		case 't':
			g.tsc = 1;
			break;
		case 'T':
			/* Solaris looks at the first character only. */
			if (optarg[0] == 'u' || optarg[0] == 'd')
				a->tsfmt = optarg[0];
			else
				errcnt++;
			break;
		case 's':
			g.soak = 1;
			break;
		case 'p':
			a->doperiod = 1;
			errno = 0;
			a->period = strtod(optarg, &end);
			if (*end || end == optarg || errno || !isfinite(a->period)) {
				fprintf(stderr, "cpustat: invalid parameter \"%s\"\n", optarg);
				errcnt++;
			}
			break;
		default:
			fprintf(stderr, strchr("cTp", optopt) ?
				"cpustat: option requires an argument -- %c\n" :
				"cpustat: illegal option -- %c\n", optopt);
			errcnt++;
			break;
		}
	}
	if (errcnt)
		return errcnt;
	switch (argc - optind) {
	case 0:
		break;
	case 2:
		errno = 0;
		a->count = strtoll(argv[optind + 1], &end, 10);
		if (*end || end == argv[optind + 1] || errno) {
			fprintf(stderr, "cpustat: invalid argument \"%s\"\n", argv[optind + 1]);
			return 1;
		}
		if (a->count <= 0)
			return 1;
		/* fall through */
	case 1:
		errno = 0;
		a->interval = strtod(argv[optind], &end);
		if (*end || end == argv[optind] || errno || !isfinite(a->interval)) {
			fprintf(stderr, "cpustat: invalid argument \"%s\"\n", argv[optind]);
			return 1;
		}
		break;
	default:
		return 1;
	}
	/* Solaris counts in whole milliseconds: less than 1 is an error. */
	if (!(a->interval * 1000 >= 1) || a->interval > 1e8)
		return 1;
	return 0;
}

/* Print every CPU's row of set s for the interval that ended; add up the totals. */
static void print_rows(int s, char tsfmt, uint64_t *total, uint64_t *ttick,
		       hrtime_t t0, hrtime_t *last)
{
	int i, k;

	for (i = 0; i < g.ncpus; i++) {
		struct cpu *cp = &g.cpus[i];
		struct cpct_set *cs = &cp->sets[s];
		uint64_t vals[CPCT_MAX_REQS];

		if (cp->err)
			continue;
		for (k = 0; k < cs->nreqs; k++) {
			cpc_buf_get(g.cpc, cp->diff[s], k, &vals[k]);
			total[k] += vals[k];
		}
		*ttick += cpc_buf_tick(g.cpc, cp->diff[s]);
		if (cpc_buf_hrtime(g.cpc, cp->now[s]) > *last)
			*last = cpc_buf_hrtime(g.cpc, cp->now[s]);
		if (tsfmt)
			timestamp(tsfmt);
		cpustat_row(stdout, secs_since(cpc_buf_hrtime(g.cpc, cp->now[s]), t0),
			    cp->id, "tick", g.tsc, cpc_buf_tick(g.cpc, cp->diff[s]),
			    vals, cs->nreqs, g.nsets > 1 ? cs->spec : NULL);
	}
	fflush(stdout);
}

/* Whether -h is among the options: its usage needs no device. */
static int wants_help(int argc, char **argv)
{
	int c, h = 0;

	opterr = 0;
	while ((c = getopt(argc, argv, "Dc:hntT:sp:")) != -1)
		h |= c == 'h';
	optind = 0;	/* glibc: parse() starts afresh */
	return h;
}

int main(int argc, char **argv)
{
	struct args a = { .interval = 5.0, .count = -1 };
	hrtime_t t0, deadline, last = 0;
	uint64_t **total = NULL, *ttick = NULL;
	int i, s, ret = 0, *ids = NULL, soakers = 0, errcnt;
	long long n;
	double rest_secs = 0;
	sigset_t sigs;

	cpct_progname = "cpustat";
	pmc_version_opt(argc, argv);
	setlocale(LC_ALL, "");
	/* As Solaris: the counters first, then the options (-c needs them). */
	g.cpc = cpc_open(CPC_VER_CURRENT);
	if (!g.cpc) {
		int e = errno;

		if (wants_help(argc, argv))	/* the usage needs no device */
			print_usage(stdout);
		fprintf(stderr, "cpustat: cannot access performance counters - %s\n",
			strerror(e));
		pmc_hint("/dev/cpc", e);
		return 1;
	}
	cpc_seterrhndlr(g.cpc, cpct_errhndlr);
	errcnt = parse(argc, argv, &a);
	if (errcnt || a.help || !a.nspecs) {
		print_usage(a.help ? stdout : stderr);
		if (a.help) {
			putchar('\n');
			cpct_caps(stdout, g.cpc);
			cpc_close(g.cpc);
			return 0;
		}
		return 2;
	}
	g.nsets = a.nspecs;
	g.specs = a.specs;

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
		if (cpu_setup(&g.cpus[i], ids[i]) < 0) {
			perror("cpustat");
			return 1;
		}
	}
	for (s = 0; s < g.nsets; s++) {
		total[s] = calloc(CPCT_MAX_REQS, sizeof(**total));
		if (!total[s])
			return 1;
		if (g.debug) {
			fprintf(stderr, "cpustat: set %d: %s\n", s, a.specs[s]);
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
	/*
	 * -p (Solaris): the count is of cycles through the sets, and the
	 * rest after each cycle what the period leaves (none with one set).
	 */
	if (a.doperiod) {
		if (a.count > 0)
			a.count *= g.nsets;
		if (g.nsets > 1)
			rest_secs = a.period - a.interval * g.nsets;
	}

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
			fprintf(stderr, "cpustat: cannot create thread for cpu%d\n",
				g.cpus[i].id);
			g.cpus[i].err = EAGAIN;
			g.cpus[i].reported = 1;
			pthread_mutex_lock(&g.lock);
			g.ndone++;
			pthread_mutex_unlock(&g.lock);
			continue;
		}
		g.cpus[i].have_thr = 1;
	}
	pthread_mutex_lock(&g.lock);
	while (g.ndone < g.ncpus)
		pthread_cond_wait(&g.done_cv, &g.lock);
	pthread_mutex_unlock(&g.lock);

	t0 = gethrtime();
	deadline = t0;
	s = 0;
	/* The title once, as Solaris, once every CPU counts. */
	if (!g.notitle) {
		cpustat_title(stdout, g.tsc, &g.cpus[0].sets[0]);
		fflush(stdout);
	}
	for (n = 0; a.count < 0 || n < a.count; n++) {
		int next = (s + 1) % g.nsets, rest;

		/* Nothing left counting: straight to the totals. */
		if (report_failed() == g.ncpus)
			break;
		deadline += (hrtime_t)llround(a.interval * 1e9);
		if (wait_until(&sigs, deadline))
			break;
		/* Rest (unbound) after the last set of a cycle, with -p. */
		rest = rest_secs > 0 && next == 0;
		/* The soakers wait while resting or a set counts user events. */
		if (rest || !g.sysonly[next])
			soak_all(0);
		command(CMD_SAMPLE, rest ? -1 : next);
		if (!rest && g.sysonly[next])
			soak_all(1);
		report_failed();
		print_rows(s, a.tsfmt, total[s], &ttick[s], t0, &last);
		if (rest) {
			deadline += (hrtime_t)llround(rest_secs * 1e9);
			if (wait_until(&sigs, deadline))
				break;
			if (g.sysonly[0])
				soak_all(1);
			command(CMD_BIND, 0);
		}
		s = next;
	}
	if (report_failed())
		ret = 1;
	/* The totals of every set, over all CPUs and intervals. */
	for (s = 0; s < g.nsets; s++)
		cpustat_row(stdout, secs_since(last ? last : gethrtime(), t0), g.ncpus,
			    "total", g.tsc, ttick[s], total[s], g.cpus[0].sets[s].nreqs,
			    g.nsets > 1 ? a.specs[s] : NULL);
	fflush(stdout);
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
