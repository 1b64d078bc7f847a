// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/perfmon, FreeBSD's perfmon(4) on pmcompat: every ioctl and its
 * errors, the one-writer rule, PMIOSETUP/START/STOP/RESET semantics, sums
 * over every online CPU checked exactly against what the test PMU was told
 * to count, the user/kernel flags, 64-bit values, the device mode and the
 * privilege checks, CPU hotplug, a missing PMU, pctr(4) used at the same
 * time, and 32-bit callers.
 *
 * The device state is global.  Every test starts with the writer slot free
 * and no counter set up (the setup checks it), and its teardown closes the
 * writer and checks that the same holds again.
 */
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <machine/pctr.h>
#include <machine/perfmon.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define EV_INSTR	0x00c0
#define EV_CYCLES	0x003c
#define EV_OTHER	0x002e

/* A control word: PerfEvtSel bits 0..31 as perfmon(4) lays them out. */
#define CTL(ev, unit, flags, mask) \
	((unsigned int)(mask) << 24 | (unsigned int)(flags) << 16 | \
	 (unsigned int)(unit) << 8 | (unsigned int)(ev))
#define FLAG(f)		((unsigned int)(f) << 16)
#define CTL_INSTR_U	CTL(EV_INSTR, 0, PMCF_USR, 0)
#define CTL_INSTR_K	CTL(EV_INSTR, 0, PMCF_OS, 0)
#define CTL_INSTR_UK	CTL(EV_INSTR, 0, PMCF_USR | PMCF_OS, 0)

#define POISON4		0xccccccccU
#define POISON8		0xccccccccccccccccULL
#define KERNEL_IP	0xffffffff81000000ULL
#define NOBODY		65534
#define HOTPLUG_CPU	3
#define MAX_EXTRA	8

#define NEED_HOTPLUG() do {						\
	if (count_online_cpus() <= HOTPLUG_CPU ||			\
	    cpu_online_state(HOTPLUG_CPU) != 1)				\
		SKIP(return, "CPU %d cannot be taken offline", HOTPLUG_CPU); \
} while (0)

/* Shorthands on a descriptor; each gives 0 or -errno. */
#define SETUP(fd, n, ctl)	perfmon_setup_fd(fd, n, ctl)
#define START(fd, n)		perfmon_ctl_fd(fd, PMIOSTART, n)
#define STOP(fd, n)		perfmon_ctl_fd(fd, PMIOSTOP, n)
#define RESET(fd, n)		perfmon_ctl_fd(fd, PMIORESET, n)

/* Returned by read_ctr() on failure, plus the -errno: no test expects it. */
#define READ_FAILED	0x7eadbeef00000000LL

/* PMIOREAD of counter n. */
static long long read_ctr(int fd, int n)
{
	long long v = 0;
	int err = perfmon_read_fd(fd, n, &v);

	return err ? READ_FAILED + err : v;
}

/* PMIOGET of counter n, or ~0 when it fails. */
static unsigned int get_ctl(int fd, int n)
{
	unsigned int v = 0;

	return perfmon_get_fd(fd, n, &v) ? ~0U : v;
}

static int open_perfmon(int flags)
{
	int fd = open(_PATH_PERFMON, flags | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Results a child process hands back: it must not use the harness macros. */
struct child_out {
	int err[12];
	long long val[6];
	unsigned int ctl[4];
	unsigned int uid;
};

static struct child_out *child_out_new(void)
{
	return shared_zone(sizeof(struct child_out));
}

/* fn(o, arg) in a child process; its exit status, or -1. */
static int in_child(void (*fn)(struct child_out *o, int arg),
		    struct child_out *o, int arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(o, arg);
		_exit(0);
	}
	return child_status(pid);
}

/* Give up root for uid/gid 65534, with the groups given (may be none). */
static int drop_to_nobody(int ngroups, const gid_t *groups)
{
	if (setgroups(ngroups, groups) || setgid(NOBODY) || setuid(NOBODY))
		return -errno;
	return 0;
}

/* Clear (on = 0) or raise (on = 1) capabilities in the effective set. */
static int caps_effective(int on, unsigned int a, unsigned int b)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	__u32 ma = CAP_TO_MASK(a), mb = CAP_TO_MASK(b);

	if (syscall(SYS_capget, &hdr, d))
		return -errno;
	if (on) {
		d[CAP_TO_INDEX(a)].effective |= ma;
		d[CAP_TO_INDEX(b)].effective |= mb;
	} else {
		d[CAP_TO_INDEX(a)].effective &= ~ma;
		d[CAP_TO_INDEX(b)].effective &= ~mb;
	}
	return syscall(SYS_capset, &hdr, d) ? -errno : 0;
}

/* The perf events of the test PMU that count (scheduled), on every CPU. */
static int pmu_events(void)
{
	return fakepmu_state_count("cpu=", NULL);
}

FIXTURE(perfmon) {
	int fd;			/* the writer (O_RDWR), or -1 */
	int extra[MAX_EXTRA];	/* other descriptors, closed by the teardown */
	int offlined;		/* CPU this test took offline, or -1 */
	int paranoid;		/* saved perf_event_paranoid, or INT_MIN */
	bool fakepmu_removed;
	bool pctr_used;		/* clear every pctr counter at the end */
};

/* Keep a descriptor for the teardown to close; returns it. */
static int keep(FIXTURE_DATA(perfmon) *self, int fd)
{
	int i;

	for (i = 0; i < MAX_EXTRA && fd >= 0; i++) {
		if (self->extra[i] < 0) {
			self->extra[i] = fd;
			break;
		}
	}
	return fd;
}

FIXTURE_SETUP(perfmon)
{
	unsigned int v;
	int i;

	self->fd = -1;
	for (i = 0; i < MAX_EXTRA; i++)
		self->extra[i] = -1;
	self->offlined = -1;
	self->paranoid = INT_MIN;
	self->fakepmu_removed = false;
	self->pctr_used = false;
	if (access(_PATH_PERFMON, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", _PATH_PERFMON);
	self->fd = open_perfmon(O_RDWR);
	if (self->fd == -ENXIO)
		SKIP(return, "no PMU at all");
	ASSERT_LE(0, self->fd)
		TH_LOG("open O_RDWR: %s (writer left over?)", strerror(-self->fd));
	for (i = 0; i < NPMC; i++)
		ASSERT_EQ(-EBUSY, perfmon_get_fd(self->fd, i, &v))
			TH_LOG("counter %d left set up", i);
}

FIXTURE_TEARDOWN(perfmon)
{
	char buf[16];
	unsigned int v;
	int i, fd;

	if (self->fd >= 0)
		close(self->fd);
	for (i = 0; i < MAX_EXTRA; i++)
		if (self->extra[i] >= 0)
			close(self->extra[i]);
	if (self->offlined >= 0 && cpu_online_state(self->offlined) == 0)
		EXPECT_EQ(0, set_cpu_online(self->offlined, 1));
	if (self->paranoid != INT_MIN) {
		snprintf(buf, sizeof(buf), "%d\n", self->paranoid);
		EXPECT_EQ(0, write_file(PARANOID_PATH, buf));
	}
	if (self->fakepmu_removed && !module_loaded("fakepmu"))
		EXPECT_EQ(0, fakepmu_reload());
	if (!module_loaded("pmcompat"))
		EXPECT_EQ(0, pmcompat_load());
	if (self->pctr_used)
		EXPECT_EQ(0, pctr_clear_all());
	/* The writer is gone, and so is every counter it set up. */
	fd = open_perfmon(O_RDWR);
	EXPECT_LE(0, fd) TH_LOG("writer not released: %s", strerror(-fd));
	for (i = 0; fd >= 0 && i < NPMC; i++)
		EXPECT_EQ(-EBUSY, perfmon_get_fd(fd, i, &v)) TH_LOG("counter %d", i);
	if (fd >= 0)
		close(fd);
}

/* Make sure perf_event_paranoid is above 0 (restored by the teardown). */
static int paranoid_positive(int *saved)
{
	int level, err;

	err = read_file_int(PARANOID_PATH, &level);
	if (err || level > 0)
		return err;
	*saved = level;
	return write_file(PARANOID_PATH, "2\n");
}

TEST(abi_numbers_and_layout)
{
	struct pmc p;

	EXPECT_EQ(4, NPMC);
	EXPECT_EQ(-1, PMC_ALL);
	EXPECT_EQ(8UL, sizeof(struct pmc));
	EXPECT_EQ(8UL, sizeof(quad_t));
	EXPECT_EQ(16UL, sizeof(struct pmc_data));
	EXPECT_EQ(8UL, offsetof(struct pmc_data, pmcd_value));
	EXPECT_EQ(16UL, sizeof(struct pmc_tstamp));
	EXPECT_EQ(8UL, offsetof(struct pmc_tstamp, pmct_value));
	EXPECT_EQ(0x40083501UL, (unsigned long)PMIOSETUP);
	EXPECT_EQ(0x40043502UL, (unsigned long)PMIOSTART);
	EXPECT_EQ(0x40043503UL, (unsigned long)PMIOSTOP);
	EXPECT_EQ(0xc0103504UL, (unsigned long)PMIOREAD);
	EXPECT_EQ(0x40043505UL, (unsigned long)PMIORESET);
	EXPECT_EQ(0x80103506UL, (unsigned long)PMIOTSTAMP);
	EXPECT_EQ(0xc0083507UL, (unsigned long)PMIOGET);
	EXPECT_STREQ("/dev/perfmon", _PATH_PERFMON);
	/* pmc_val is a PerfEvtSel image: event, unit, flags, mask. */
	p.pmc_val = 0x44332211;
	EXPECT_EQ(0x11, p.pmc_event);
	EXPECT_EQ(0x22, p.pmc_unit);
	EXPECT_EQ(0x33, p.pmc_flags);
	EXPECT_EQ(0x44, p.pmc_mask);
	EXPECT_EQ(0x01, PMCF_USR);
	EXPECT_EQ(0x02, PMCF_OS);
	EXPECT_EQ(0x04, PMCF_E);
	EXPECT_EQ(0x08, PMCF_PC);
	EXPECT_EQ(0x10, PMCF_INT);
	EXPECT_EQ(0x40, PMCF_EN);
	EXPECT_EQ(0x80, PMCF_INV);
	EXPECT_EQ(0x50, PMCF_SYS_FLAGS);
}

TEST_F(perfmon, device_node_is_a_0640_root_character_device)
{
	struct stat st;

	ASSERT_EQ(0, stat(_PATH_PERFMON, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0640U, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_uid);
	EXPECT_EQ(0U, st.st_gid);
	EXPECT_EQ(10U, major(st.st_rdev));	/* a misc device */
}

TEST_F(perfmon, read_only_opens_are_unlimited)
{
	struct pmc_tstamp ts;
	int ro[64], i;

	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	for (i = 0; i < 64; i++) {
		ro[i] = open_perfmon(O_RDONLY);
		ASSERT_LE(0, ro[i]) TH_LOG("open #%d: %s", i, strerror(-ro[i]));
	}
	for (i = 0; i < 64; i++) {
		EXPECT_EQ(CTL_INSTR_U, get_ctl(ro[i], 0)) TH_LOG("fd #%d", i);
		EXPECT_EQ(0LL, read_ctr(ro[i], 0)) TH_LOG("fd #%d", i);
		EXPECT_EQ(0, ioctl(ro[i], PMIOTSTAMP, &ts) ? -errno : 0)
			TH_LOG("fd #%d", i);
	}
	/* None of them is a writer, and closing them releases nothing. */
	EXPECT_EQ(-EBUSY, open_perfmon(O_RDWR));
	for (i = 0; i < 64; i++)
		close(ro[i]);
	EXPECT_EQ(CTL_INSTR_U, get_ctl(self->fd, 0));
}

TEST_F(perfmon, one_writer_at_a_time)
{
	int ro, wo;

	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	EXPECT_EQ(-EBUSY, open_perfmon(O_RDWR));
	EXPECT_EQ(-EBUSY, open_perfmon(O_WRONLY));
	ro = keep(self, open_perfmon(O_RDONLY));
	ASSERT_LE(0, ro);
	EXPECT_EQ(CTL_INSTR_U, get_ctl(ro, 0));

	/* The writer leaves: the next one gets in, with nothing set up. */
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(-EBUSY, perfmon_get_fd(ro, 0, &(unsigned int){ 0 }));
	wo = open_perfmon(O_WRONLY);
	ASSERT_LE(0, wo) TH_LOG("open O_WRONLY: %s", strerror(-wo));
	self->fd = wo;
	EXPECT_EQ(-EBUSY, open_perfmon(O_RDWR));
	EXPECT_EQ(-EBUSY, open_perfmon(O_WRONLY));
	/* A write-only writer may use every request. */
	EXPECT_EQ(0, SETUP(wo, 1, CTL_INSTR_K));
	EXPECT_EQ(0, START(wo, 1));
	EXPECT_EQ(CTL_INSTR_K | FLAG(PMCF_EN), get_ctl(wo, 1));
	EXPECT_EQ(0LL, read_ctr(wo, 1));
	EXPECT_EQ(0, STOP(wo, 1));
	EXPECT_EQ(0, RESET(wo, 1));
	EXPECT_EQ(CTL_INSTR_K, get_ctl(ro, 1));

	close(wo);
	self->fd = open_perfmon(O_RDWR);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(-EBUSY, perfmon_get_fd(ro, 1, &(unsigned int){ 0 }));
}

TEST_F(perfmon, writer_is_the_open_file_not_the_descriptor)
{
	int d, status;
	pid_t pid;

	ASSERT_EQ(0, SETUP(self->fd, 3, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 3));
	d = dup(self->fd);
	ASSERT_LE(0, d);
	close(self->fd);
	self->fd = d;
	EXPECT_EQ(-EBUSY, open_perfmon(O_RDWR));
	EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), get_ctl(d, 3));

	/* A child's copy closing (at exit) releases nothing either. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(-EBUSY, open_perfmon(O_RDWR));
	EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), get_ctl(d, 3));
}

/* Child: become the writer, set up and start counter 1, report, wait. */
static void writer_child(int ready, int hold)
{
	char c = 'x';
	int fd = open_perfmon(O_RDWR);

	if (fd < 0)
		c = 'o';
	else if (SETUP(fd, 1, CTL_INSTR_U) || START(fd, 1))
		c = 's';
	if (write(ready, &c, 1) != 1)
		_exit(2);
	if (hold)
		pause();
	_exit(0);
}

TEST_F(perfmon, writer_killed_or_exiting_releases_everything)
{
	int p[2], ro, ncpu = count_online_cpus(), round;
	char c = 0;
	pid_t pid;

	NEED_FAKEPMU();
	close(self->fd);
	self->fd = -1;
	ro = keep(self, open_perfmon(O_RDONLY));
	ASSERT_LE(0, ro);
	for (round = 0; round < 2; round++) {
		ASSERT_EQ(0, pipe(p));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			close(p[0]);
			writer_child(p[1], round == 0);
		}
		close(p[1]);
		ASSERT_EQ(1, read(p[0], &c, 1));
		close(p[0]);
		EXPECT_EQ('x', c) TH_LOG("child: %c", c);
		if (round == 0) {
			/* Alive: it is the writer, its counter counts. */
			EXPECT_EQ(-EBUSY, open_perfmon(O_RDWR));
			EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), get_ctl(ro, 1));
			ASSERT_EQ(0, inject(1, EV_INSTR, 9));
			EXPECT_EQ(9LL, read_ctr(ro, 1));
			EXPECT_EQ(ncpu, pmu_events());
			ASSERT_EQ(0, kill(pid, SIGKILL));
		}
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));
		EXPECT_EQ(-EBUSY, perfmon_get_fd(ro, 1, &(unsigned int){ 0 }))
			TH_LOG("round %d", round);
		EXPECT_EQ(0, pmu_events()) TH_LOG("round %d", round);
	}
	self->fd = open_perfmon(O_RDWR);
	ASSERT_LE(0, self->fd);
}

struct race {
	pthread_barrier_t *barrier;
	int result;
};

static void *race_open(void *arg)
{
	struct race *r = arg;

	pthread_barrier_wait(r->barrier);
	r->result = open_perfmon(O_RDWR);
	return NULL;
}

TEST_F(perfmon, racing_writable_opens_admit_exactly_one)
{
	pthread_barrier_t barrier;
	pthread_t th[8];
	struct race r[8];
	int round, i, winners, busy;

	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, pthread_barrier_init(&barrier, NULL, 8));
	for (round = 0; round < 50; round++) {
		for (i = 0; i < 8; i++) {
			r[i].barrier = &barrier;
			r[i].result = INT_MIN;
			ASSERT_EQ(0, pthread_create(&th[i], NULL, race_open, &r[i]));
		}
		winners = 0;
		busy = 0;
		for (i = 0; i < 8; i++) {
			pthread_join(th[i], NULL);
			if (r[i].result >= 0)
				winners++;
			else if (r[i].result == -EBUSY)
				busy++;
		}
		EXPECT_EQ(1, winners) TH_LOG("round %d", round);
		EXPECT_EQ(7, busy) TH_LOG("round %d", round);
		for (i = 0; i < 8; i++)
			if (r[i].result >= 0)
				close(r[i].result);
	}
	pthread_barrier_destroy(&barrier);
	self->fd = open_perfmon(O_RDWR);
	ASSERT_LE(0, self->fd);
}

TEST_F(perfmon, write_requests_on_a_read_only_descriptor_are_eperm)
{
	static const int nums[] = { 0, 1, PMC_ALL, NPMC };
	struct pmc_tstamp ts;
	unsigned int i;
	int ro;

	NEED_FAKEPMU();
	ro = keep(self, open_perfmon(O_RDONLY));
	ASSERT_LE(0, ro);
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, inject(1, EV_INSTR, 10));
	/* As on FreeBSD, write permission is checked before the number. */
	for (i = 0; i < ARRAY_SIZE(nums); i++) {
		EXPECT_EQ(-EPERM, SETUP(ro, nums[i], CTL_INSTR_K)) TH_LOG("%d", nums[i]);
		EXPECT_EQ(-EPERM, START(ro, nums[i])) TH_LOG("%d", nums[i]);
		EXPECT_EQ(-EPERM, STOP(ro, nums[i])) TH_LOG("%d", nums[i]);
		EXPECT_EQ(-EPERM, RESET(ro, nums[i])) TH_LOG("%d", nums[i]);
	}
	EXPECT_EQ(-1, ioctl(ro, PMIOSETUP, NULL));
	EXPECT_EQ(EPERM, errno);
	/* Reading is allowed, and nothing changed. */
	EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), get_ctl(ro, 0));
	EXPECT_EQ(10LL, read_ctr(ro, 0));
	EXPECT_EQ(-EBUSY, perfmon_get_fd(ro, 1, &(unsigned int){ 0 }));
	EXPECT_EQ(0, ioctl(ro, PMIOTSTAMP, &ts) ? -errno : 0);
	ASSERT_EQ(0, inject(2, EV_INSTR, 1));
	EXPECT_EQ(11LL, read_ctr(ro, 0));
}

TEST_F(perfmon, bad_counter_numbers_are_einval)
{
	static const int bad[] = { PMC_ALL, NPMC, NPMC + 1, 8, 64, -2,
				   INT_MAX, INT_MIN };
	unsigned int i, v;
	long long val;
	int ro;

	ro = keep(self, open_perfmon(O_RDONLY));
	ASSERT_LE(0, ro);
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, SETUP(self->fd, bad[i], CTL_INSTR_U)) TH_LOG("%d", bad[i]);
		EXPECT_EQ(-EINVAL, START(self->fd, bad[i])) TH_LOG("%d", bad[i]);
		EXPECT_EQ(-EINVAL, STOP(self->fd, bad[i])) TH_LOG("%d", bad[i]);
		EXPECT_EQ(-EINVAL, RESET(self->fd, bad[i])) TH_LOG("%d", bad[i]);
		EXPECT_EQ(-EINVAL, perfmon_get_fd(self->fd, bad[i], &v)) TH_LOG("%d", bad[i]);
		EXPECT_EQ(-EINVAL, perfmon_read_fd(self->fd, bad[i], &val)) TH_LOG("%d", bad[i]);
		EXPECT_EQ(-EINVAL, perfmon_get_fd(ro, bad[i], &v)) TH_LOG("%d", bad[i]);
		EXPECT_EQ(-EINVAL, perfmon_read_fd(ro, bad[i], &val)) TH_LOG("%d", bad[i]);
	}
	/* Nothing was set up or started by the refused calls. */
	EXPECT_EQ(CTL_INSTR_U, get_ctl(self->fd, 0));
	for (i = 1; i < NPMC; i++)
		EXPECT_EQ(-EBUSY, perfmon_get_fd(self->fd, i, &v));
	if (have_fakepmu())
		EXPECT_EQ(0, pmu_events());
}

TEST_F(perfmon, counter_not_set_up_is_ebusy)
{
	unsigned int v;
	long long val;
	int ro, n;

	ro = keep(self, open_perfmon(O_RDONLY));
	ASSERT_LE(0, ro);
	for (n = 0; n < NPMC; n++) {
		EXPECT_EQ(-EBUSY, perfmon_get_fd(self->fd, n, &v)) TH_LOG("%d", n);
		EXPECT_EQ(-EBUSY, START(self->fd, n)) TH_LOG("%d", n);
		EXPECT_EQ(-EBUSY, STOP(self->fd, n)) TH_LOG("%d", n);
		EXPECT_EQ(-EBUSY, perfmon_read_fd(self->fd, n, &val)) TH_LOG("%d", n);
		EXPECT_EQ(-EBUSY, RESET(self->fd, n)) TH_LOG("%d", n);
		EXPECT_EQ(-EBUSY, perfmon_get_fd(ro, n, &v)) TH_LOG("%d", n);
		EXPECT_EQ(-EBUSY, perfmon_read_fd(ro, n, &val)) TH_LOG("%d", n);
	}
	/* Once counter 2 is set up, it alone answers. */
	ASSERT_EQ(0, SETUP(self->fd, 2, CTL_INSTR_U));
	for (n = 0; n < NPMC; n++) {
		int want = n == 2 ? 0 : -EBUSY;

		EXPECT_EQ(want, perfmon_get_fd(self->fd, n, &v)) TH_LOG("%d", n);
		EXPECT_EQ(want, perfmon_read_fd(ro, n, &val)) TH_LOG("%d", n);
		EXPECT_EQ(want, START(self->fd, n)) TH_LOG("%d", n);
		EXPECT_EQ(want, STOP(self->fd, n)) TH_LOG("%d", n);
		EXPECT_EQ(want, RESET(self->fd, n)) TH_LOG("%d", n);
	}
}

/* i386 layouts of the two structures with a quad_t (4-byte aligned). */
struct pmc_data32 {
	int num;
	unsigned int value[2];
};

struct pmc_tstamp32 {
	int rate;
	unsigned int value[2];
};

#define PMIOREAD32	_IOWR('5', 4, struct pmc_data32)
#define PMIOTSTAMP32	_IOR('5', 6, struct pmc_tstamp32)

TEST_F(perfmon, unknown_ioctls_are_enotty)
{
	static const unsigned long cmds[] = {
		0,
		0x5401,				/* TCGETS */
		_IO('5', 1),
		_IOR('5', 1, struct pmc),	/* PMIOSETUP, wrong direction */
		_IOWR('5', 1, struct pmc),
		_IOW('5', 1, int),		/* PMIOSETUP, wrong size */
		_IOW('5', 2, struct pmc),	/* PMIOSTART, wrong size */
		_IOR('5', 2, int),
		_IOW('5', 3, long long),
		_IOR('5', 4, struct pmc_data),	/* PMIOREAD, wrong direction */
		_IOWR('5', 5, int),
		_IOW('5', 6, struct pmc_tstamp),
		_IOR('5', 7, struct pmc),	/* PMIOGET, wrong direction */
		_IOW('5', 0, int),
		_IOW('5', 8, int),
		_IOWR('5', 8, struct pmc),
		_IOW('6', 2, int),		/* another group */
		_IOWR('4', 7, struct pmc),
		_IOW('c', 8, unsigned int),	/* PCIOCS0 of /dev/pctr */
	};
	unsigned int i;
	union {
		struct pmc_data d;
		char pad[64];
	} arg;
	int ro;

	ro = keep(self, open_perfmon(O_RDONLY));
	ASSERT_LE(0, ro);
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		memset(&arg, 0, sizeof(arg));
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i], &arg)) TH_LOG("cmd %#lx", cmds[i]);
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd %#lx", cmds[i]);
		errno = 0;
		EXPECT_EQ(-1, ioctl(ro, cmds[i], &arg)) TH_LOG("cmd %#lx, O_RDONLY", cmds[i]);
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd %#lx, O_RDONLY", cmds[i]);
	}
	EXPECT_EQ(CTL_INSTR_U, get_ctl(self->fd, 0));
	EXPECT_EQ(0LL, read_ctr(self->fd, 0));
}

TEST_F(perfmon, read_write_and_seek_system_calls_fail)
{
	char buf[64];

	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
}

TEST_F(perfmon, bad_user_pointers_are_efault)
{
	static const unsigned long cmds[] = {
		PMIOSETUP, PMIOSTART, PMIOSTOP, PMIORESET, PMIOGET, PMIOREAD,
		PMIOTSTAMP,
	};
	long psz = sysconf(_SC_PAGESIZE);
	char *none, *ro, *edge;
	unsigned int i;

	NEED_FAKEPMU();
	none = mmap(NULL, psz, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, psz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	edge = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, none);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_NE(MAP_FAILED, edge);
	ASSERT_EQ(0, mprotect(edge + psz, psz, PROT_NONE));
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 0));

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i], NULL)) TH_LOG("cmd %#lx", cmds[i]);
		EXPECT_EQ(EFAULT, errno) TH_LOG("cmd %#lx", cmds[i]);
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i], none)) TH_LOG("cmd %#lx", cmds[i]);
		EXPECT_EQ(EFAULT, errno) TH_LOG("cmd %#lx", cmds[i]);
	}
	/* Outputs into a read-only page (which reads as counter 0). */
	EXPECT_EQ(-1, ioctl(self->fd, PMIOGET, ro));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PMIOREAD, ro));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PMIOTSTAMP, ro));
	EXPECT_EQ(EFAULT, errno);
	/* Structures whose first field is readable, the rest not. */
	EXPECT_EQ(-1, ioctl(self->fd, PMIOREAD, edge + psz - 8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PMIOTSTAMP, edge + psz - 8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PMIOGET, edge + psz - 4));
	EXPECT_EQ(EFAULT, errno);
	/* A PMIOSETUP whose control word is out of reach does nothing. */
	EXPECT_EQ(-1, ioctl(self->fd, PMIOSETUP, edge + psz - 4));
	EXPECT_EQ(EFAULT, errno);

	EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), get_ctl(self->fd, 0));
	ASSERT_EQ(0, inject(1, EV_INSTR, 3));
	EXPECT_EQ(3LL, read_ctr(self->fd, 0));
	munmap(none, psz);
	munmap(ro, psz);
	munmap(edge, 2 * psz);
}

TEST_F(perfmon, setup_strips_int_and_en_and_leaves_the_counter_stopped_at_zero)
{
	unsigned int ctl = CTL(EV_INSTR, 0, PMCF_USR | PMCF_OS | PMCF_INT | PMCF_EN, 0);
	int ncpu = count_online_cpus();
	struct pmc p;

	NEED_FAKEPMU();
	ASSERT_EQ(0, SETUP(self->fd, 1, ctl));
	memset(&p, 0xcc, sizeof(p));
	p.pmc_num = 1;
	ASSERT_EQ(0, ioctl(self->fd, PMIOGET, &p));
	EXPECT_EQ(1, p.pmc_num);
	EXPECT_EQ(CTL_INSTR_UK, p.pmc_val);
	/* Set up, not counting: perf has no event scheduled. */
	EXPECT_EQ(0, pmu_events());
	ASSERT_EQ(0, inject(1, EV_INSTR, 100));
	EXPECT_EQ(0LL, read_ctr(self->fd, 1));

	ASSERT_EQ(0, START(self->fd, 1));
	EXPECT_EQ(CTL_INSTR_UK | FLAG(PMCF_EN), get_ctl(self->fd, 1));
	EXPECT_EQ(ncpu, fakepmu_state_count("config=0xc0 ", "user=1 kernel=1 "));
	EXPECT_EQ(ncpu, pmu_events());
	ASSERT_EQ(0, inject(1, EV_INSTR, 100));
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 5, 1, KERNEL_IP));
	EXPECT_EQ(105LL, read_ctr(self->fd, 1));

	/* Setting up a running counter again clears and stops it. */
	ASSERT_EQ(0, SETUP(self->fd, 1, ctl));
	EXPECT_EQ(CTL_INSTR_UK, get_ctl(self->fd, 1));
	EXPECT_EQ(0LL, read_ctr(self->fd, 1));
	EXPECT_EQ(0, pmu_events());
	ASSERT_EQ(0, inject(1, EV_INSTR, 7));
	EXPECT_EQ(0LL, read_ctr(self->fd, 1));
	ASSERT_EQ(0, START(self->fd, 1));
	ASSERT_EQ(0, inject(1, EV_INSTR, 7));
	EXPECT_EQ(7LL, read_ctr(self->fd, 1));

	/* Another event: counts that one only, from 0. */
	ASSERT_EQ(0, SETUP(self->fd, 1, CTL(EV_CYCLES, 0x01, PMCF_OS, 0)));
	ASSERT_EQ(0, START(self->fd, 1));
	ASSERT_EQ(0, inject_ip(3, EV_INSTR, 50, 1, KERNEL_IP));
	ASSERT_EQ(0, inject_ip(3, EV_CYCLES, 60, 1, KERNEL_IP));
	ASSERT_EQ(0, inject_ip(3, 0x013c, 70, 1, KERNEL_IP));
	ASSERT_EQ(0, inject(3, 0x013c, 80));
	EXPECT_EQ(70LL, read_ctr(self->fd, 1));
	EXPECT_EQ(ncpu, fakepmu_state_count("config=0x13c ", "user=0 kernel=1 "));
}

TEST_F(perfmon, every_other_field_and_flag_reaches_perf)
{
	/* cmask 1, every flag, unit 0x41, event 0x2e */
	unsigned int ctl = CTL(EV_OTHER, 0x41, 0xff, 0x01);
	unsigned int kept = ctl & ~FLAG(PMCF_SYS_FLAGS);	/* 0x01af412e */
	int ncpu = count_online_cpus();

	NEED_FAKEPMU();
	ASSERT_EQ(0, SETUP(self->fd, 2, ctl));
	EXPECT_EQ(kept, get_ctl(self->fd, 2));
	ASSERT_EQ(0, START(self->fd, 2));
	EXPECT_EQ(kept | FLAG(PMCF_EN), get_ctl(self->fd, 2));
	/* perf gets the raw word without USR, OS, PC, INT and EN. */
	EXPECT_EQ(ncpu, fakepmu_state_count("config=0x184412e ", "user=1 kernel=1 "));
	EXPECT_EQ(ncpu, pmu_events());
	ASSERT_EQ(0, inject(0, 0x412e, 3));
	ASSERT_EQ(0, inject_ip(3, 0x412e, 4, 1, KERNEL_IP));
	ASSERT_EQ(0, inject(0, EV_OTHER, 100));		/* other unit */
	EXPECT_EQ(7LL, read_ctr(self->fd, 2));
	ASSERT_EQ(0, STOP(self->fd, 2));
	EXPECT_EQ(kept, get_ctl(self->fd, 2));
}

TEST_F(perfmon, stop_freezes_start_resumes_reset_zeroes)
{
	int ncpu = count_online_cpus();

	NEED_FAKEPMU();
	ASSERT_EQ(0, SETUP(self->fd, 1, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 1));
	ASSERT_EQ(0, inject(1, EV_INSTR, 100));
	EXPECT_EQ(100LL, read_ctr(self->fd, 1));

	ASSERT_EQ(0, STOP(self->fd, 1));
	EXPECT_EQ(CTL_INSTR_U, get_ctl(self->fd, 1));
	EXPECT_EQ(0, pmu_events());
	ASSERT_EQ(0, inject(1, EV_INSTR, 50));
	ASSERT_EQ(0, inject(2, EV_INSTR, 50));
	EXPECT_EQ(100LL, read_ctr(self->fd, 1));
	EXPECT_EQ(0, STOP(self->fd, 1));		/* stopping again: harmless */
	EXPECT_EQ(100LL, read_ctr(self->fd, 1));

	ASSERT_EQ(0, START(self->fd, 1));
	EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), get_ctl(self->fd, 1));
	EXPECT_EQ(100LL, read_ctr(self->fd, 1));
	ASSERT_EQ(0, inject(2, EV_INSTR, 7));
	EXPECT_EQ(107LL, read_ctr(self->fd, 1));
	EXPECT_EQ(0, START(self->fd, 1));		/* starting again: harmless */
	EXPECT_EQ(ncpu, pmu_events());
	ASSERT_EQ(0, inject(2, EV_INSTR, 1));
	EXPECT_EQ(108LL, read_ctr(self->fd, 1));

	/* Reset while running: from 0, still running. */
	ASSERT_EQ(0, RESET(self->fd, 1));
	EXPECT_EQ(0LL, read_ctr(self->fd, 1));
	EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), get_ctl(self->fd, 1));
	ASSERT_EQ(0, inject(0, EV_INSTR, 3));
	EXPECT_EQ(3LL, read_ctr(self->fd, 1));

	/* Reset while stopped: 0, still stopped. */
	ASSERT_EQ(0, STOP(self->fd, 1));
	ASSERT_EQ(0, RESET(self->fd, 1));
	EXPECT_EQ(0LL, read_ctr(self->fd, 1));
	EXPECT_EQ(CTL_INSTR_U, get_ctl(self->fd, 1));
	ASSERT_EQ(0, inject(0, EV_INSTR, 4));
	EXPECT_EQ(0LL, read_ctr(self->fd, 1));
	ASSERT_EQ(0, START(self->fd, 1));
	ASSERT_EQ(0, inject(3, EV_INSTR, 1));
	EXPECT_EQ(1LL, read_ctr(self->fd, 1));
}

/* Bytes 4..7 of pmc_data and pmc_tstamp are padding: zeroed. */
static int padding_zero(const void *s)
{
	static const unsigned char zero[4];

	return !memcmp((const unsigned char *)s + 4, zero, 4);
}

TEST_F(perfmon, replies_fill_every_field_and_zero_the_padding)
{
	struct pmc_tstamp ts;
	struct pmc_data d;
	struct pmc p;
	int ro, fd, i;

	NEED_FAKEPMU();
	ro = keep(self, open_perfmon(O_RDONLY));
	ASSERT_LE(0, ro);
	ASSERT_EQ(0, SETUP(self->fd, 3, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 3));
	ASSERT_EQ(0, inject(2, EV_INSTR, 1234));
	for (i = 0; i < 2; i++) {
		fd = i ? ro : self->fd;
		memset(&d, 0xcc, sizeof(d));
		d.pmcd_num = 3;
		ASSERT_EQ(0, ioctl(fd, PMIOREAD, &d)) TH_LOG("%s", strerror(errno));
		EXPECT_EQ(3, d.pmcd_num);
		EXPECT_TRUE(padding_zero(&d));
		EXPECT_EQ(1234LL, (long long)d.pmcd_value);

		memset(&p, 0xcc, sizeof(p));
		p.pmc_num = 3;
		ASSERT_EQ(0, ioctl(fd, PMIOGET, &p));
		EXPECT_EQ(3, p.pmc_num);
		EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), p.pmc_val);

		memset(&ts, 0xcc, sizeof(ts));
		if (cpu_has_tsc() <= 0) {
			EXPECT_EQ(-1, ioctl(fd, PMIOTSTAMP, &ts));
			EXPECT_EQ(ENOTTY, errno);
			continue;
		}
		ASSERT_EQ(0, ioctl(fd, PMIOTSTAMP, &ts)) TH_LOG("%s", strerror(errno));
		EXPECT_TRUE(padding_zero(&ts));
		EXPECT_LT(0, ts.pmct_rate);
		EXPECT_NE((int)POISON4, ts.pmct_rate);
		EXPECT_NE(POISON8, (unsigned long long)ts.pmct_value);
	}
}

/* The "cpu MHz" of /proc/cpuinfo, for the log only. */
static double cpuinfo_mhz(void)
{
	char line[256];
	double mhz = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz;
}

TEST_F(perfmon, tstamp_gives_the_tsc_and_its_rate)
{
	unsigned long long t0, t1;
	struct pmc_tstamp a, b;
	int ro;

	if (cpu_has_tsc() <= 0)
		SKIP(return, "no TSC: PMIOTSTAMP is ENOTTY (checked elsewhere)");
	ro = keep(self, open_perfmon(O_RDONLY));
	ASSERT_LE(0, ro);
	ASSERT_EQ(0, pin_to_cpu(0));
	t0 = rdtsc();
	ASSERT_EQ(0, ioctl(ro, PMIOTSTAMP, &a));
	t1 = rdtsc();
	EXPECT_LE(t0, (unsigned long long)a.pmct_value);
	EXPECT_LE((unsigned long long)a.pmct_value, t1);
	EXPECT_LT(0, a.pmct_rate);
	TH_LOG("rate %d MHz; /proc/cpuinfo says %.3f MHz", a.pmct_rate, cpuinfo_mhz());

	/* The writer gets the same, later. */
	ASSERT_EQ(0, ioctl(self->fd, PMIOTSTAMP, &b));
	t1 = rdtsc();
	EXPECT_LE(a.pmct_value, b.pmct_value);
	EXPECT_LE((unsigned long long)b.pmct_value, t1);
	EXPECT_EQ(a.pmct_rate, b.pmct_rate);
}

TEST_F(perfmon, value_is_the_exact_sum_over_every_online_cpu)
{
	int ncpu = count_online_cpus(), cpu;
	long long want = 0;

	NEED_FAKEPMU();
	ASSERT_LE(2, ncpu);
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_UK));
	ASSERT_EQ(0, SETUP(self->fd, 1, CTL(EV_CYCLES, 0, PMCF_USR, 0)));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, START(self->fd, 1));
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_EQ(0, inject(cpu, EV_INSTR, 1000 + 111 * cpu));
		want += 1000 + 111 * cpu;
	}
	EXPECT_EQ(want, read_ctr(self->fd, 0));
	EXPECT_EQ(0LL, read_ctr(self->fd, 1));
	ASSERT_EQ(0, inject_ip(ncpu - 1, EV_INSTR, 5, 1, KERNEL_IP));
	ASSERT_EQ(0, inject(1, EV_CYCLES, 17));
	ASSERT_EQ(0, inject(0, EV_CYCLES, 4));
	EXPECT_EQ(want + 5, read_ctr(self->fd, 0));
	EXPECT_EQ(21LL, read_ctr(self->fd, 1));
	/* Both counters, on every CPU. */
	EXPECT_EQ(2 * ncpu, pmu_events());
}

TEST_F(perfmon, usr_and_os_flags_select_the_mode)
{
	unsigned int none = CTL(EV_INSTR, 0, 0, 0);
	int ncpu = count_online_cpus(), n;

	NEED_FAKEPMU();
	ASSERT_LE(3, ncpu);
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, SETUP(self->fd, 1, CTL_INSTR_K));
	ASSERT_EQ(0, SETUP(self->fd, 2, CTL_INSTR_UK));
	ASSERT_EQ(0, SETUP(self->fd, 3, none));
	for (n = 0; n < NPMC; n++)
		ASSERT_EQ(0, START(self->fd, n)) TH_LOG("PMIOSTART %d", n);
	EXPECT_EQ(none | FLAG(PMCF_EN), get_ctl(self->fd, 3));
	EXPECT_EQ(ncpu, fakepmu_state_count("config=0xc0 ", "user=1 kernel=0 "));
	EXPECT_EQ(ncpu, fakepmu_state_count("config=0xc0 ", "user=0 kernel=1 "));
	EXPECT_EQ(ncpu, fakepmu_state_count("config=0xc0 ", "user=1 kernel=1 "));
	/* Neither mode: counts nothing, takes no hardware counter. */
	EXPECT_EQ(3 * ncpu, pmu_events());

	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 100, 0, 0x401000));
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 7, 1, KERNEL_IP));
	ASSERT_EQ(0, inject_ip(0, EV_INSTR, 1000, 0, 0x401000));
	EXPECT_EQ(1100LL, read_ctr(self->fd, 0));
	EXPECT_EQ(7LL, read_ctr(self->fd, 1));
	EXPECT_EQ(1107LL, read_ctr(self->fd, 2));
	EXPECT_EQ(0LL, read_ctr(self->fd, 3));
	ASSERT_EQ(0, STOP(self->fd, 3));
	EXPECT_EQ(none, get_ctl(self->fd, 3));
	EXPECT_EQ(0LL, read_ctr(self->fd, 3));
}

TEST_F(perfmon, writer_close_releases_its_counters)
{
	int ro, n;

	NEED_FAKEPMU();
	ro = keep(self, open_perfmon(O_RDONLY));
	ASSERT_LE(0, ro);
	for (n = 0; n < NPMC; n++)
		ASSERT_EQ(0, SETUP(self->fd, n, CTL_INSTR_U));
	for (n = 0; n < 3; n++)
		ASSERT_EQ(0, START(self->fd, n));
	ASSERT_EQ(0, inject(1, EV_INSTR, 10));
	EXPECT_EQ(10LL, read_ctr(ro, 2));
	EXPECT_EQ(3 * count_online_cpus(), pmu_events());

	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, pmu_events());
	for (n = 0; n < NPMC; n++) {
		EXPECT_EQ(-EBUSY, perfmon_get_fd(ro, n, &(unsigned int){ 0 }));
		EXPECT_EQ(-EBUSY, perfmon_read_fd(ro, n, &(long long){ 0 }));
	}
	/* The next writer starts from scratch. */
	self->fd = open_perfmon(O_RDWR);
	ASSERT_LE(0, self->fd);
	for (n = 0; n < NPMC; n++)
		EXPECT_EQ(-EBUSY, perfmon_get_fd(self->fd, n, &(unsigned int){ 0 }));
	ASSERT_EQ(0, SETUP(self->fd, 2, CTL_INSTR_U));
	EXPECT_EQ(0LL, read_ctr(self->fd, 2));
	ASSERT_EQ(0, START(self->fd, 2));
	ASSERT_EQ(0, inject(1, EV_INSTR, 2));
	EXPECT_EQ(2LL, read_ctr(ro, 2));
}

TEST_F(perfmon, counts_past_48_bits_are_exact)
{
	unsigned long long want = (1ULL << 48) + 12345;

	NEED_FAKEPMU();
	ASSERT_EQ(0, SETUP(self->fd, 1, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 1));
	ASSERT_EQ(0, inject(2, EV_INSTR, want));
	EXPECT_EQ((long long)want, read_ctr(self->fd, 1));
	/* Two CPUs near the 48-bit limit each, summed. */
	ASSERT_EQ(0, inject(1, EV_INSTR, (1ULL << 48) - 1));
	ASSERT_EQ(0, inject(3, EV_INSTR, (1ULL << 48) - 1));
	want += 2 * ((1ULL << 48) - 1);
	EXPECT_EQ((long long)want, read_ctr(self->fd, 1));
	ASSERT_EQ(0, inject(0, EV_INSTR, (1ULL << 57) + 1));
	want += (1ULL << 57) + 1;
	EXPECT_EQ((long long)want, read_ctr(self->fd, 1));
	/* Stopped and started again, the 64-bit value carries on. */
	ASSERT_EQ(0, STOP(self->fd, 1));
	ASSERT_EQ(0, inject(0, EV_INSTR, 1ULL << 50));
	EXPECT_EQ((long long)want, read_ctr(self->fd, 1));
	ASSERT_EQ(0, START(self->fd, 1));
	ASSERT_EQ(0, inject(2, EV_INSTR, 1ULL << 50));
	want += 1ULL << 50;
	EXPECT_EQ((long long)want, read_ctr(self->fd, 1));
	ASSERT_EQ(0, RESET(self->fd, 1));
	EXPECT_EQ(0LL, read_ctr(self->fd, 1));
	ASSERT_EQ(0, inject(2, EV_INSTR, 5));
	EXPECT_EQ(5LL, read_ctr(self->fd, 1));
}

TEST_F(perfmon, counts_survive_cpu_offline_and_online)
{
	NEED_FAKEPMU();
	NEED_HOTPLUG();
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, SETUP(self->fd, 1, CTL_INSTR_K));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, START(self->fd, 1));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 700));
	ASSERT_EQ(0, inject_ip(HOTPLUG_CPU, EV_INSTR, 11, 1, KERNEL_IP));
	ASSERT_EQ(0, inject(0, EV_INSTR, 5));
	EXPECT_EQ(705LL, read_ctr(self->fd, 0));
	EXPECT_EQ(11LL, read_ctr(self->fd, 1));

	ASSERT_EQ(0, pin_to_cpu(0));
	self->offlined = HOTPLUG_CPU;
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 0));
	ASSERT_EQ(0, cpu_online_state(HOTPLUG_CPU));
	EXPECT_EQ(-ENODEV, inject(HOTPLUG_CPU, EV_INSTR, 1));
	/* What CPU 3 counted stays in the sum. */
	EXPECT_EQ(705LL, read_ctr(self->fd, 0));
	EXPECT_EQ(11LL, read_ctr(self->fd, 1));
	ASSERT_EQ(0, inject(1, EV_INSTR, 1));
	EXPECT_EQ(706LL, read_ctr(self->fd, 0));
	EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), get_ctl(self->fd, 0));

	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	ASSERT_EQ(1, cpu_online_state(HOTPLUG_CPU));
	EXPECT_EQ(706LL, read_ctr(self->fd, 0));
	EXPECT_EQ(11LL, read_ctr(self->fd, 1));
	/* Counting there again, on top of what was kept. */
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 89));
	ASSERT_EQ(0, inject_ip(HOTPLUG_CPU, EV_INSTR, 1, 1, KERNEL_IP));
	EXPECT_EQ(795LL, read_ctr(self->fd, 0));
	EXPECT_EQ(12LL, read_ctr(self->fd, 1));
	EXPECT_EQ(2 * count_online_cpus(), pmu_events());
}

TEST_F(perfmon, stop_reset_and_setup_while_a_cpu_is_offline)
{
	NEED_FAKEPMU();
	NEED_HOTPLUG();
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, SETUP(self->fd, 1, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, START(self->fd, 1));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 40));
	ASSERT_EQ(0, pin_to_cpu(0));
	self->offlined = HOTPLUG_CPU;
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 0));

	/* Counter 0 stopped, counter 1 reset, counter 2 set up, all offline. */
	ASSERT_EQ(0, STOP(self->fd, 0));
	ASSERT_EQ(0, RESET(self->fd, 1));
	EXPECT_EQ(40LL, read_ctr(self->fd, 0));
	EXPECT_EQ(0LL, read_ctr(self->fd, 1));
	ASSERT_EQ(0, SETUP(self->fd, 2, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 2));

	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	EXPECT_EQ(40LL, read_ctr(self->fd, 0));
	EXPECT_EQ(0LL, read_ctr(self->fd, 1));
	EXPECT_EQ(0LL, read_ctr(self->fd, 2));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 3));
	EXPECT_EQ(40LL, read_ctr(self->fd, 0));	/* still stopped */
	EXPECT_EQ(3LL, read_ctr(self->fd, 1));
	EXPECT_EQ(3LL, read_ctr(self->fd, 2));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 2));
	EXPECT_EQ(42LL, read_ctr(self->fd, 0));
	EXPECT_EQ(5LL, read_ctr(self->fd, 1));
	EXPECT_EQ(5LL, read_ctr(self->fd, 2));
}

TEST_F(perfmon, writer_close_while_a_cpu_is_offline_forgets_its_counts)
{
	NEED_FAKEPMU();
	NEED_HOTPLUG();
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 500));
	ASSERT_EQ(0, pin_to_cpu(0));
	self->offlined = HOTPLUG_CPU;
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 0));
	EXPECT_EQ(500LL, read_ctr(self->fd, 0));
	close(self->fd);
	self->fd = -1;

	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	EXPECT_EQ(0, pmu_events());
	self->fd = open_perfmon(O_RDWR);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(-EBUSY, perfmon_get_fd(self->fd, 0, &(unsigned int){ 0 }));
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	EXPECT_EQ(0LL, read_ctr(self->fd, 0));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 1));
	EXPECT_EQ(1LL, read_ctr(self->fd, 0));
}

TEST_F(perfmon, pctr_and_perfmon_side_by_side)
{
	int ncpu = count_online_cpus(), pfd;
	struct pctrst st;

	NEED_FAKEPMU();
	ASSERT_LE(3, ncpu);
	if (access(_PATH_PCTR, F_OK))
		SKIP(return, "no %s", _PATH_PCTR);
	self->pctr_used = true;
	ASSERT_EQ(0, pctr_clear_all());
	pfd = keep(self, open(_PATH_PCTR, O_RDWR | O_CLOEXEC));
	ASSERT_LE(0, pfd);
	/* Two counters each: all four of every CPU. */
	ASSERT_EQ(0, pctr_set_fd(pfd, 0, EV_INSTR | PCTR_U | PCTR_K | PCTR_EN));
	ASSERT_EQ(0, pctr_set_fd(pfd, 1, EV_CYCLES | PCTR_U | PCTR_K | PCTR_EN));
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, SETUP(self->fd, 1, CTL(EV_CYCLES, 0, PMCF_OS, 0)));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, START(self->fd, 1));
	EXPECT_EQ(4 * ncpu, pmu_events());

	ASSERT_EQ(0, inject(1, EV_INSTR, 10));
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 20, 1, KERNEL_IP));
	ASSERT_EQ(0, inject_ip(1, EV_CYCLES, 5, 1, KERNEL_IP));
	ASSERT_EQ(0, inject(2, EV_CYCLES, 3));
	EXPECT_EQ(10LL, read_ctr(self->fd, 0));
	EXPECT_EQ(5LL, read_ctr(self->fd, 1));
	ASSERT_EQ(0, pctr_read_on(pfd, 1, &st));
	EXPECT_EQ(10ULL, st.pctr_hwc[0]);
	EXPECT_EQ(5ULL, st.pctr_hwc[1]);
	ASSERT_EQ(0, pctr_read_on(pfd, 2, &st));
	EXPECT_EQ(20ULL, st.pctr_hwc[0]);
	EXPECT_EQ(3ULL, st.pctr_hwc[1]);

	/* Stopping, resetting, setting up perfmon leaves pctr alone... */
	ASSERT_EQ(0, STOP(self->fd, 0));
	ASSERT_EQ(0, RESET(self->fd, 1));
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, inject(2, EV_INSTR, 1));
	ASSERT_EQ(0, pctr_read_on(pfd, 2, &st));
	EXPECT_EQ(21ULL, st.pctr_hwc[0]);
	EXPECT_EQ(3ULL, st.pctr_hwc[1]);
	ASSERT_EQ(0, pctr_read_on(pfd, 1, &st));
	EXPECT_EQ(10ULL, st.pctr_hwc[0]);
	/* ...and clearing pctr leaves perfmon alone. */
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, pctr_set_fd(pfd, 1, 0));
	ASSERT_EQ(0, inject_ip(1, EV_CYCLES, 8, 1, KERNEL_IP));
	ASSERT_EQ(0, inject(1, EV_INSTR, 4));
	EXPECT_EQ(4LL, read_ctr(self->fd, 0));
	EXPECT_EQ(8LL, read_ctr(self->fd, 1));
	ASSERT_EQ(0, pctr_read_on(pfd, 1, &st));
	EXPECT_EQ(14ULL, st.pctr_hwc[0]);
	EXPECT_EQ(0ULL, st.pctr_hwc[1]);
	/* Closing the perfmon writer leaves pctr counting. */
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(ncpu, pmu_events());
	ASSERT_EQ(0, inject(1, EV_INSTR, 1));
	ASSERT_EQ(0, pctr_read_on(pfd, 1, &st));
	EXPECT_EQ(15ULL, st.pctr_hwc[0]);
}

/* Open n pinned CPU-wide perf events of EV_OTHER on cpu; 0 or -errno. */
static int open_pinned(int *fds, int n, int cpu)
{
	struct perf_event_attr attr;
	int i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_OTHER;
	attr.pinned = 1;
	for (i = 0; i < n; i++) {
		fds[i] = sys_perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0)
			return -errno;
	}
	return 0;
}

/*
 * A PMU full on one CPU: PMIOSTART of another counter fails with EBUSY and
 * leaves it stopped; the counter already counting is unaffected.
 */
TEST_F(perfmon, start_on_a_full_pmu_is_ebusy_and_disturbs_nothing)
{
	unsigned int ctl1 = CTL(EV_GP_ONLY, 0, PMCF_USR, 0);
	int perf_fd[32], cpu = 2, err, i, ngp = fakepmu_gp_counters();
	long long v = 0;

	NEED_FAKEPMU();
	ASSERT_LT(cpu, count_online_cpus());
	ASSERT_LT(1, ngp);
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 0));
	/* Pinned events take CPU 2's general-purpose counters... */
	ASSERT_EQ(0, open_pinned(perf_fd, ngp, cpu)) TH_LOG("perf_event_open: %s", strerror(errno));
	/* ...before counter 1 (an event only those counters count) is set up. */
	ASSERT_EQ(0, SETUP(self->fd, 1, ctl1));
	EXPECT_EQ(-EBUSY, START(self->fd, 1));
	EXPECT_EQ(ctl1, get_ctl(self->fd, 1));
	/* Not counting on any CPU; the perf events still are. */
	EXPECT_EQ(0, fakepmu_state_count("config=0xc4 ", NULL));
	EXPECT_EQ(ngp, fakepmu_state_count("config=0x2e ", NULL));

	ASSERT_EQ(0, inject(cpu, EV_INSTR, 4));
	ASSERT_EQ(0, inject(0, EV_INSTR, 5));
	ASSERT_EQ(0, inject(0, EV_GP_ONLY, 10));
	ASSERT_EQ(0, inject(cpu, EV_OTHER, 2));
	EXPECT_EQ(9LL, read_ctr(self->fd, 0));
	EXPECT_EQ(2ULL, read_count(perf_fd[0]));
	EXPECT_EQ(2ULL, read_count(perf_fd[ngp - 1]));
	err = perfmon_read_fd(self->fd, 1, &v);
	/*
	 * perfmon(4): "The counter stays stopped."  Its value (0) is not
	 * stale: it never counted.
	 */
	EXPECT_EQ(0, err)
		TH_LOG("DRIVER BUG: PMIOREAD after PMIOSTART's EBUSY: %s (want 0)",
		       strerror(-err));
	if (!err)
		EXPECT_EQ(0LL, v);
	EXPECT_EQ(0, STOP(self->fd, 1));

	/* With a counter free, it starts and counts. */
	close(perf_fd[ngp - 1]);
	ASSERT_EQ(0, START(self->fd, 1));
	ASSERT_EQ(0, inject(cpu, EV_GP_ONLY, 3));
	ASSERT_EQ(0, inject(1, EV_GP_ONLY, 2));
	EXPECT_EQ(5LL, read_ctr(self->fd, 1));
	EXPECT_EQ(9LL, read_ctr(self->fd, 0));
	for (i = 0; i < ngp - 1; i++)
		close(perf_fd[i]);
}

/*
 * The same, with the pinned perf events created after counter 1 was set
 * up (stopped).  perfmon(4): PMIOSTART fails with EBUSY when "other pinned
 * perf events" hold the hardware counters, and the counters "coexist with
 * perf(1)".
 */
TEST_F(perfmon, start_does_not_evict_pinned_perf_events)
{
	unsigned int ctl1 = CTL(EV_GP_ONLY, 0, PMCF_USR, 0);
	int perf_fd[32], cpu = 2, ret, i, ngp = fakepmu_gp_counters();
	unsigned long long c;

	NEED_FAKEPMU();
	ASSERT_LT(cpu, count_online_cpus());
	ASSERT_LT(1, ngp);
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, SETUP(self->fd, 1, ctl1));
	ASSERT_EQ(0, open_pinned(perf_fd, ngp, cpu)) TH_LOG("perf_event_open: %s", strerror(errno));
	ret = START(self->fd, 1);
	ASSERT_EQ(0, inject(cpu, EV_OTHER, 6));
	/*
	 * Counter 1's perf events were created disabled by PMIOSETUP, before
	 * the user's; perf schedules pinned events in creation order, so
	 * merely enabling them would push one of the user's events into its
	 * error state (read() returns 0 bytes).  PMIOSTART must fail instead.
	 */
	EXPECT_EQ(-EBUSY, ret)
		TH_LOG("DRIVER BUG: PMIOSTART took a pinned perf event's counter (%s)",
		       strerror(-ret));
	for (i = 0; i < ngp; i++) {
		c = read_count(perf_fd[i]);
		EXPECT_EQ(6ULL, c)
			TH_LOG("perf event %d: %s", i,
			       c == ~0ULL ? "in error state" : "wrong count");
	}
	EXPECT_EQ(ngp, fakepmu_state_count("config=0x2e ", NULL));
	for (i = 0; i < ngp; i++)
		close(perf_fd[i]);
}

TEST_F(perfmon, no_pmu_gives_enxio)
{
	int err, ro;

	if (!module_loaded("fakepmu"))
		SKIP(return, NO_FAKEPMU);
	/* Nothing may hold the test PMU: no pctr counter, no perfmon one. */
	if (!access(_PATH_PCTR, F_OK)) {
		self->pctr_used = true;
		ASSERT_EQ(0, pctr_clear_all());
	}
	ro = keep(self, open_perfmon(O_RDONLY));
	ASSERT_LE(0, ro);
	self->fakepmu_removed = true;
	ASSERT_EQ(0, kmod_remove("fakepmu"));
	ASSERT_NE(0, access("/sys/bus/event_source/devices/cpu", F_OK));

	EXPECT_EQ(-ENXIO, open_perfmon(O_RDONLY));
	EXPECT_EQ(-ENXIO, open_perfmon(O_RDWR));
	EXPECT_EQ(-ENXIO, open_perfmon(O_WRONLY));
	/* Descriptors opened before: setting up fails and sets nothing up. */
	err = SETUP(self->fd, 0, CTL_INSTR_U);
	EXPECT_EQ(-ENODEV, err) TH_LOG("PMIOSETUP: %s", strerror(-err));
	EXPECT_EQ(-EBUSY, perfmon_get_fd(self->fd, 0, &(unsigned int){ 0 }));
	EXPECT_EQ(-EBUSY, perfmon_get_fd(ro, 0, &(unsigned int){ 0 }));
	EXPECT_EQ(-EINVAL, SETUP(self->fd, NPMC, CTL_INSTR_U));
	EXPECT_EQ(-EPERM, SETUP(ro, 0, CTL_INSTR_U));
	if (cpu_has_tsc() > 0)
		EXPECT_EQ(0, ioctl(ro, PMIOTSTAMP, &(struct pmc_tstamp){ 0 }) ? -errno : 0);

	ASSERT_EQ(0, fakepmu_reload());
	ASSERT_EQ(0, access("/sys/bus/event_source/devices/cpu", F_OK));
	/* The refused opens took no writer slot; the old writer still has it. */
	EXPECT_EQ(-EBUSY, open_perfmon(O_RDWR));
	ro = keep(self, open_perfmon(O_RDONLY));
	EXPECT_LE(0, ro);
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, inject(1, EV_INSTR, 6));
	EXPECT_EQ(6LL, read_ctr(self->fd, 0));
}

TEST_F(perfmon, module_unload_refused_while_open)
{
	int ro;

	ro = open_perfmon(O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-EAGAIN, kmod_remove("pmcompat"));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(-EAGAIN, kmod_remove("pmcompat"));
	EXPECT_TRUE(module_loaded("pmcompat"));
	close(ro);

	ASSERT_EQ(0, kmod_remove("pmcompat"));
	EXPECT_NE(0, access(_PATH_PERFMON, F_OK));
	ASSERT_EQ(0, pmcompat_load());
	self->fd = open_perfmon(O_RDWR);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
}

/* nobody, with the groups given by arg: 0 none, 1 root's group 0. */
static void nobody_opens(struct child_out *o, int with_root_group)
{
	gid_t root_group = 0;
	int fd;

	if (drop_to_nobody(with_root_group, &root_group))
		_exit(2);
	o->uid = geteuid();
	fd = open_perfmon(O_RDONLY);
	o->err[0] = fd < 0 ? -fd : 0;
	if (fd >= 0) {
		o->err[3] = -perfmon_get_fd(fd, 0, &o->ctl[0]);
		o->err[4] = -perfmon_read_fd(fd, 0, &o->val[0]);
		close(fd);
	}
	fd = open_perfmon(O_RDWR);
	o->err[1] = fd < 0 ? -fd : 0;
	if (fd >= 0)
		close(fd);
	fd = open_perfmon(O_WRONLY);
	o->err[2] = fd < 0 ? -fd : 0;
	if (fd >= 0)
		close(fd);
}

TEST_F(perfmon, mode_0640_root_reads_group_root_reads_others_nothing)
{
	struct child_out *o = child_out_new();

	NEED_FAKEPMU();
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, inject(2, EV_INSTR, 4321));
	ASSERT_EQ(0, in_child(nobody_opens, o, 0));
	EXPECT_EQ((unsigned int)NOBODY, o->uid);
	EXPECT_EQ(EACCES, o->err[0]);
	EXPECT_EQ(EACCES, o->err[1]);
	EXPECT_EQ(EACCES, o->err[2]);

	/* Group root may read. */
	memset(o, 0x5a, sizeof(*o));
	ASSERT_EQ(0, in_child(nobody_opens, o, 1));
	EXPECT_EQ((unsigned int)NOBODY, o->uid);
	EXPECT_EQ(0, o->err[0]) TH_LOG("open O_RDONLY: %s", strerror(o->err[0]));
	EXPECT_EQ(0, o->err[3]);
	EXPECT_EQ(0, o->err[4]);
	EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), o->ctl[0]);
	EXPECT_EQ(4321LL, o->val[0]);
	EXPECT_EQ(EACCES, o->err[1]);
	EXPECT_EQ(EACCES, o->err[2]);
	munmap(o, sizeof(*o));
}

static void root_without_caps(struct child_out *o, int fd)
{
	o->uid = geteuid();
	/* Either capability alone is enough, as for perf. */
	o->err[0] = -caps_effective(0, CAP_PERFMON, CAP_PERFMON);
	o->err[1] = -SETUP(fd, 0, CTL_INSTR_U);
	o->err[2] = -caps_effective(1, CAP_PERFMON, CAP_PERFMON);
	o->err[3] = -caps_effective(0, CAP_SYS_ADMIN, CAP_SYS_ADMIN);
	o->err[4] = -SETUP(fd, 1, CTL_INSTR_K);
	/* Neither: refused, whatever the modes, on a fresh or a used counter. */
	o->err[5] = -caps_effective(0, CAP_PERFMON, CAP_SYS_ADMIN);
	o->err[6] = -SETUP(fd, 2, CTL_INSTR_U);
	o->err[7] = -SETUP(fd, 3, CTL_INSTR_UK);
	o->err[8] = -SETUP(fd, 0, CTL_INSTR_K);
	/* Reading needs nothing. */
	o->err[9] = -perfmon_get_fd(fd, 0, &o->ctl[0]);
	o->err[10] = -perfmon_read_fd(fd, 1, &o->val[0]);
	/* Raised again, the same process may. */
	o->err[11] = -caps_effective(1, CAP_PERFMON, CAP_SYS_ADMIN);
	o->val[1] = -SETUP(fd, 3, CTL_INSTR_U);
}

TEST_F(perfmon, setup_without_perfmon_or_sys_admin_is_eperm)
{
	struct child_out *o = child_out_new();
	int level;

	NEED_FAKEPMU();
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, paranoid_positive(&self->paranoid));
	ASSERT_EQ(0, read_file_int(PARANOID_PATH, &level));
	TH_LOG("perf_event_paranoid = %d", level);
	ASSERT_EQ(0, in_child(root_without_caps, o, self->fd));
	EXPECT_EQ(0U, o->uid);
	EXPECT_EQ(0, o->err[0]);
	EXPECT_EQ(0, o->err[1]) TH_LOG("CAP_SYS_ADMIN only: %s", strerror(o->err[1]));
	EXPECT_EQ(0, o->err[2]);
	EXPECT_EQ(0, o->err[3]);
	EXPECT_EQ(0, o->err[4]) TH_LOG("CAP_PERFMON only: %s", strerror(o->err[4]));
	EXPECT_EQ(0, o->err[5]);
	EXPECT_EQ(EPERM, o->err[6]);
	EXPECT_EQ(EPERM, o->err[7]);
	EXPECT_EQ(EPERM, o->err[8]);
	EXPECT_EQ(0, o->err[9]);
	EXPECT_EQ(CTL_INSTR_U, o->ctl[0]);
	EXPECT_EQ(0, o->err[10]);
	EXPECT_EQ(0LL, o->val[0]);
	EXPECT_EQ(0, o->err[11]);
	EXPECT_EQ(0LL, o->val[1]);
	/* The refused requests changed nothing. */
	EXPECT_EQ(CTL_INSTR_U, get_ctl(self->fd, 0));
	EXPECT_EQ(CTL_INSTR_K, get_ctl(self->fd, 1));
	EXPECT_EQ(-EBUSY, perfmon_get_fd(self->fd, 2, &(unsigned int){ 0 }));
	EXPECT_EQ(CTL_INSTR_U, get_ctl(self->fd, 3));
	EXPECT_EQ(0, pmu_events());
	munmap(o, sizeof(*o));
}

static void capless_setup(struct child_out *o, int fd)
{
	o->err[0] = -caps_effective(0, CAP_PERFMON, CAP_SYS_ADMIN);
	o->err[1] = -SETUP(fd, 0, CTL_INSTR_U);
	o->err[2] = -SETUP(fd, 1, CTL_INSTR_K);
	o->err[3] = -START(fd, 1);
	o->err[4] = -START(fd, 2);	/* set up by root */
}

/*
 * Counting every CPU needs CAP_PERFMON or CAP_SYS_ADMIN, for PMIOSETUP and
 * PMIOSTART alike, whatever perf_event_paranoid says (the module cannot
 * read the level on 6.1).
 */
TEST_F(perfmon, paranoid_level_alone_never_allows_setup_or_start)
{
	static const int levels[] = { 2, 1, 0, -1 };
	struct child_out *o = child_out_new();
	unsigned int i;

	NEED_FAKEPMU();
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, SETUP(self->fd, 2, CTL_INSTR_U));
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		memset(o, 0x5a, sizeof(*o));
		ASSERT_EQ(0, paranoid_set(&self->paranoid, levels[i]));
		ASSERT_EQ(0, in_child(capless_setup, o, self->fd));
		EXPECT_EQ(0, o->err[0]);
		EXPECT_EQ(EPERM, o->err[1]) TH_LOG("level %d", levels[i]);
		EXPECT_EQ(EPERM, o->err[2]) TH_LOG("level %d", levels[i]);
		/* Counter 1 was never set up: either answer refuses. */
		EXPECT_TRUE(o->err[3] == EPERM || o->err[3] == EBUSY)
			TH_LOG("level %d: %s", levels[i], strerror(o->err[3]));
		EXPECT_EQ(EPERM, o->err[4]) TH_LOG("level %d: PMIOSTART of root's counter",
						   levels[i]);
	}
	EXPECT_EQ(CTL_INSTR_U, get_ctl(self->fd, 2));	/* not started */
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 6, 1, KERNEL_IP));
	ASSERT_EQ(0, inject(1, EV_INSTR, 7));
	EXPECT_EQ(0LL, read_ctr(self->fd, 2));
	EXPECT_EQ(0, pmu_events());
	munmap(o, sizeof(*o));
}

/* nobody with root's writable descriptor, at paranoid level -1. */
static void nobody_with_the_writer(struct child_out *o, int fd)
{
	if (drop_to_nobody(0, NULL))
		_exit(2);
	o->uid = geteuid();
	o->err[0] = -SETUP(fd, 1, CTL_INSTR_U);
	o->err[1] = -SETUP(fd, 0, CTL_INSTR_U);
	o->err[2] = -perfmon_get_fd(fd, 0, &o->ctl[0]);
	o->err[3] = -perfmon_read_fd(fd, 0, &o->val[0]);
	o->err[4] = -perfmon_get_fd(fd, 1, &o->ctl[1]);
	o->err[5] = -START(fd, 0);
}

TEST_F(perfmon, unprivileged_user_with_a_writable_descriptor_cannot_set_up)
{
	struct child_out *o = child_out_new();

	NEED_FAKEPMU();
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, paranoid_set(&self->paranoid, -1));
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_K));
	ASSERT_EQ(0, START(self->fd, 0));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 8, 1, KERNEL_IP));
	ASSERT_EQ(0, in_child(nobody_with_the_writer, o, self->fd));
	EXPECT_EQ((unsigned int)NOBODY, o->uid);
	EXPECT_EQ(EPERM, o->err[0]);
	EXPECT_EQ(EPERM, o->err[1]);
	EXPECT_EQ(0, o->err[2]);
	EXPECT_EQ(CTL_INSTR_K | FLAG(PMCF_EN), o->ctl[0]);
	EXPECT_EQ(0, o->err[3]);
	EXPECT_EQ(8LL, o->val[0]);
	EXPECT_EQ(EBUSY, o->err[4]);
	EXPECT_EQ(EPERM, o->err[5]) TH_LOG("PMIOSTART: %s", strerror(o->err[5]));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 1, 1, KERNEL_IP));
	EXPECT_EQ(9LL, read_ctr(self->fd, 0));
	munmap(o, sizeof(*o));
}

/*
 * The single writer slot is for CAP_PERFMON/CAP_SYS_ADMIN: a writable open
 * by anyone else is EPERM even when the node lets them write (a group
 * given 0660), so nobody can take the slot and lock root out.  arg: 0 root
 * without either capability, 1 uid 65534 in the device group.
 */
static void unprivileged_writer(struct child_out *o, int arg)
{
	int fd;

	if (arg == 0 && caps_effective(0, CAP_PERFMON, CAP_SYS_ADMIN))
		_exit(2);
	if (arg == 1 && drop_to_nobody(1, &(gid_t){ PMC_TEST_GID }))
		_exit(2);
	o->uid = geteuid();
	fd = open_perfmon(O_RDWR);
	o->err[0] = fd < 0 ? -fd : 0;
	if (fd >= 0)
		close(fd);
	fd = open_perfmon(O_WRONLY);
	o->err[1] = fd < 0 ? -fd : 0;
	if (fd >= 0)
		close(fd);
	fd = open_perfmon(O_RDONLY);
	o->err[2] = fd < 0 ? -fd : 0;
	if (fd >= 0)
		close(fd);
}

TEST_F(perfmon, writable_open_needs_perfmon_or_sys_admin)
{
	struct child_out *o = child_out_new();
	long saved = -1;
	int arg, fd;

	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, paranoid_set(&self->paranoid, -1));
	close(self->fd);	/* the slot is free */
	self->fd = -1;
	ASSERT_EQ(0, node_to_test_group(_PATH_PERFMON, 0660, &saved));
	for (arg = 0; arg < 2; arg++) {
		memset(o, 0x5a, sizeof(*o));
		ASSERT_EQ(0, in_child(unprivileged_writer, o, arg));
		EXPECT_EQ(arg ? (unsigned int)NOBODY : 0U, o->uid);
		EXPECT_EQ(EPERM, o->err[0]) TH_LOG("%s, O_RDWR", arg ? "uid 65534" : "root");
		EXPECT_EQ(EPERM, o->err[1]) TH_LOG("%s, O_WRONLY", arg ? "uid 65534" : "root");
		EXPECT_EQ(0, o->err[2]) TH_LOG("%s, O_RDONLY", arg ? "uid 65534" : "root");
	}
	EXPECT_EQ(0, node_restore(_PATH_PERFMON, saved));
	fd = open_perfmon(O_RDWR);
	EXPECT_LE(0, fd) TH_LOG("root: %s", strerror(-fd));
	if (fd >= 0)
		close(fd);
	munmap(o, sizeof(*o));
}

/*
 * 32-bit callers (ia32_syscall3(), pmc_test_util.h): ioctl goes through
 * compat_ioctl, with the request numbers and layouts a 32-bit build of a
 * perfmon(4) program uses.  PMIOREAD and PMIOTSTAMP differ there: quad_t is
 * 4-byte aligned on i386, so their structures have 12 bytes.
 */
static void exit_on_signal(int sig)
{
	_exit(100 + sig);
}

static long ia32_ioctl(int fd, unsigned long cmd, void *arg)
{
	return -ia32_syscall3(IA32_NR_IOCTL, fd, cmd, (long)arg);
}

static void compat_calls(struct child_out *o, int fd)
{
	struct pmc_tstamp32 *ts;
	struct pmc_data32 *d;
	struct pmc *p;
	int *num;
	char *low;

	signal(SIGSEGV, exit_on_signal);
	signal(SIGBUS, exit_on_signal);
	if (ia32_syscall3(IA32_NR_GETPID, 0, 0, 0) != getpid())
		_exit(99);
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED || (unsigned long)low + 4096 > 0xffffffffUL)
		_exit(98);
	p = (struct pmc *)low;
	num = (int *)(low + 64);
	d = (struct pmc_data32 *)(low + 128);
	ts = (struct pmc_tstamp32 *)(low + 192);

	p->pmc_num = 2;
	p->pmc_val = CTL_INSTR_U;
	*num = 2;
	o->err[0] = ia32_ioctl(fd, PMIOSETUP, p);
	o->err[1] = ia32_ioctl(fd, PMIOSTART, num);
	if (inject(1, EV_INSTR, 70))
		_exit(97);
	memset(p, 0xcc, sizeof(*p));
	p->pmc_num = 2;
	o->err[2] = ia32_ioctl(fd, PMIOGET, p);
	o->ctl[0] = p->pmc_val;
	memset(d, 0xcc, sizeof(*d));
	d->num = 2;
	o->err[3] = ia32_ioctl(fd, PMIOREAD32, d);
	o->val[0] = d->num;
	o->val[1] = d->value[0] | (long long)d->value[1] << 32;
	memset(ts, 0xcc, sizeof(*ts));
	o->err[4] = ia32_ioctl(fd, PMIOTSTAMP32, ts);
	o->val[2] = ts->rate;
	o->val[3] = ts->value[0] | (long long)ts->value[1] << 32;
	o->err[5] = ia32_ioctl(fd, PMIOSTOP, num);
	o->err[6] = ia32_ioctl(fd, PMIORESET, num);
	*num = NPMC;
	o->err[7] = ia32_ioctl(fd, PMIOSTART, num);
	o->err[8] = ia32_ioctl(fd, _IO('5', 9), num);
	o->err[9] = ia32_ioctl(fd, PMIOGET, (void *)0x10);
	o->err[10] = ia32_ioctl(fd, PMIOREAD32, (void *)0x10);
	d->num = 3;
	o->err[11] = ia32_ioctl(fd, PMIOREAD32, d);
}

TEST_F(perfmon, compat_ioctls_from_32_bit_callers)
{
	struct child_out *o = child_out_new();
	int status;

	NEED_FAKEPMU();
	ASSERT_NE(NULL, o);
	status = in_child(compat_calls, o, self->fd);
	if (status == 99 || status == 100 + SIGSEGV)
		SKIP(goto out, "no 32-bit system call entry (IA32 emulation)");
	ASSERT_EQ(0, status);
	EXPECT_EQ(0, o->err[0]) TH_LOG("PMIOSETUP: %s", strerror(o->err[0]));
	EXPECT_EQ(0, o->err[1]) TH_LOG("PMIOSTART: %s", strerror(o->err[1]));
	EXPECT_EQ(0, o->err[2]) TH_LOG("PMIOGET: %s", strerror(o->err[2]));
	EXPECT_EQ(CTL_INSTR_U | FLAG(PMCF_EN), o->ctl[0]);
	EXPECT_EQ(0, o->err[3])
		TH_LOG("i386 PMIOREAD (%#lx, 12-byte pmc_data): %s",
		       (unsigned long)PMIOREAD32, strerror(o->err[3]));
	if (!o->err[3]) {
		EXPECT_EQ(2LL, o->val[0]);
		EXPECT_EQ(70LL, o->val[1]);
	}
	if (cpu_has_tsc() > 0) {
		EXPECT_EQ(0, o->err[4])
			TH_LOG("i386 PMIOTSTAMP (%#lx, 12-byte pmc_tstamp): %s",
			       (unsigned long)PMIOTSTAMP32, strerror(o->err[4]));
		if (!o->err[4]) {
			EXPECT_LT(0LL, o->val[2]);
			EXPECT_NE((long long)POISON8, o->val[3]);
		}
	}
	EXPECT_EQ(0, o->err[5]) TH_LOG("PMIOSTOP: %s", strerror(o->err[5]));
	EXPECT_EQ(0, o->err[6]) TH_LOG("PMIORESET: %s", strerror(o->err[6]));
	EXPECT_EQ(EINVAL, o->err[7]);
	EXPECT_EQ(ENOTTY, o->err[8]);
	EXPECT_EQ(EFAULT, o->err[9]) TH_LOG("%s", strerror(o->err[9]));
	EXPECT_EQ(EFAULT, o->err[10]) TH_LOG("%s", strerror(o->err[10]));
	EXPECT_EQ(EBUSY, o->err[11]) TH_LOG("%s", strerror(o->err[11]));
	/* What the 32-bit calls did, seen natively. */
	EXPECT_EQ(CTL_INSTR_U, get_ctl(self->fd, 2));
	EXPECT_EQ(0LL, read_ctr(self->fd, 2));
out:
	munmap(o, sizeof(*o));
}

/* Function-call interrupts (the "CAL" row of /proc/interrupts) per CPU. */
static int call_interrupts(long long *n, int max)
{
	char line[4096], *p, *end;
	FILE *f = fopen("/proc/interrupts", "re");
	int cpus = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "CAL:", 4))
			continue;
		p += 4;
		for (cpus = 0; cpus < max; cpus++) {
			n[cpus] = strtoll(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		break;
	}
	fclose(f);
	return cpus;
}

/*
 * PMIOREAD sums a counter over every CPU, exactly: each other CPU, idle or
 * not, is read in place by one function call per read (all of them at
 * once, pmc_set_refresh()), never by more, and a count injected on an idle
 * CPU is in the very next read.  (An earlier design read idle CPUs
 * from a count folded at idle entry, without interrupts, and was stale for
 * events that count while the CPU idles: libcpc_test's
 * cpu_binding_sampled_from_another_cpu_is_exact.)
 */
TEST_F(perfmon, reads_interrupt_each_cpu_once_and_stay_exact)
{
	long long before[64], after[64], want = 0;
	int ncpu = count_online_cpus(), n, i, cpu;

	NEED_FAKEPMU();
	NEED_CPUS(3);
	ASSERT_GT(64, ncpu);
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 0));
	usleep(100000);		/* the other CPUs go idle */

	ASSERT_EQ(ncpu, call_interrupts(before, 64));
	for (i = 0; i < 200; i++)
		ASSERT_EQ(0LL, read_ctr(self->fd, 0));
	ASSERT_EQ(ncpu, call_interrupts(after, 64));
	/*
	 * At most one interrupt per read on every other CPU (and a few of
	 * their own).  Fewer is fine: a call queued while the CPU still runs
	 * another, or while its idle loop polls, is served without one.
	 */
	for (cpu = 1; cpu < ncpu; cpu++)
		EXPECT_GT(250, after[cpu] - before[cpu])
			TH_LOG("CPU %d took %lld function-call interrupts for 200 reads",
			       cpu, after[cpu] - before[cpu]);

	for (i = 0; i < 20; i++) {
		cpu = 1 + i % (ncpu - 1);
		n = 1 + i;
		ASSERT_EQ(0, inject(cpu, EV_INSTR, n));
		want += n;
		EXPECT_EQ(want, read_ctr(self->fd, 0)) TH_LOG("after CPU %d", cpu);
		if (i % 5 == 4)
			usleep(20000);
	}
}

/* The test PMU's count of perf events made (event_init calls). */
static int events_made(void)
{
	int n;

	return read_file_int("/sys/kernel/debug/fakepmu/events_made", &n) ? -1 : n;
}

/*
 * PMIOSTOP and PMIOSTART pause and resume the perf events they have (perf
 * DISABLE and ENABLE), instead of making new ones, unless another pinned
 * event came since (start_does_not_evict_pinned_perf_events).
 */
TEST_F(perfmon, stop_and_start_keep_their_perf_events)
{
	int made, i;

	NEED_FAKEPMU();
	ASSERT_EQ(0, SETUP(self->fd, 0, CTL_INSTR_U));
	ASSERT_EQ(0, START(self->fd, 0));
	made = events_made();
	ASSERT_LE(0, made);
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, STOP(self->fd, 0));
		ASSERT_EQ(0, inject(1, EV_INSTR, 100));
		ASSERT_EQ(0, START(self->fd, 0));
		ASSERT_EQ(0, inject(1, EV_INSTR, 1));
	}
	EXPECT_EQ(made, events_made());
	EXPECT_EQ(10LL, read_ctr(self->fd, 0));
}

TEST_HARNESS_MAIN
