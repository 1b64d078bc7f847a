// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pctr, OpenBSD's pctr(4) on pmcompat: every ioctl and its error
 * paths, per-CPU counts checked exactly against what the test PMU was told
 * to count, the user/kernel filters, selector changes, 64-bit growth,
 * several openers, module unload, privileges, CPU hotplug, a missing PMU,
 * and the rdpmc()/rdtsc() macros of <machine/pctr.h>.
 *
 * The device state is global: every test starts and ends with all four
 * counters cleared (fn = 0).
 */
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <machine/pctr.h>
#include "pmc_test_util.h"
/* TEST_F of kselftest_harness.h trips -Wclobbered (gcc 12). */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define EV_INSTR	0x00c0
#define EV_CYCLES	0x003c
/* Counter 0 selector of the issue: INST_RETIRED, user and kernel. */
#define FN_INSTR	(EV_INSTR | PCTR_U | PCTR_K | PCTR_EN)
#define FN_INSTR_U	(EV_INSTR | PCTR_U | PCTR_EN)
#define FN_INSTR_K	(EV_INSTR | PCTR_K | PCTR_EN)
#define FN_REFUSED	0x00380000u	/* PC, INT, ANY */

#define POISON8		0xccccccccccccccccULL
#define POISON4		0xccccccccU
#define KERNEL_IP	0xffffffff81000000ULL
#define NOBODY		65534
#define HOTPLUG_CPU	3

/* Results a child process hands back (it must not use the harness macros). */
struct child_res {
	int err[8];
	unsigned long long val[4];
	unsigned int fn[4];
	unsigned int uid;
};

static struct child_res *child_res_new(void)
{
	return shared_zone(sizeof(struct child_res));
}

/* Run fn in a child; returns its exit status (or -1 if it did not exit). */
static int run_child(void (*fn)(struct child_res *r, int arg),
		     struct child_res *r, int arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(r, arg);
		_exit(0);
	}
	return child_status(pid);
}

/* uid and gid 65534, in the device group (PMC_TEST_GID) if group. */
static int become_nobody_in(int group)
{
	if (setgroups(group ? 1 : 0, &(gid_t){ PMC_TEST_GID }) ||
	    setgid(NOBODY) || setuid(NOBODY))
		return -errno;
	return 0;
}

static int become_nobody(void)
{
	return become_nobody_in(0);
}

/* Set or clear capabilities in the effective set only. */
static int set_effective_caps(int on, unsigned int cap_a, unsigned int cap_b)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	if (on) {
		data[CAP_TO_INDEX(cap_a)].effective |= CAP_TO_MASK(cap_a);
		data[CAP_TO_INDEX(cap_b)].effective |= CAP_TO_MASK(cap_b);
	} else {
		data[CAP_TO_INDEX(cap_a)].effective &= ~CAP_TO_MASK(cap_a);
		data[CAP_TO_INDEX(cap_b)].effective &= ~CAP_TO_MASK(cap_b);
	}
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

static int err_of(int ret)
{
	return ret < 0 ? errno : 0;
}

/* Lines of the test PMU's state that contain every one of two strings. */
static int fakepmu_state_lines(const char *a, const char *b)
{
	char line[256];
	int n = 0;
	FILE *f = fopen(FAKEPMU_STATE, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, a) && (!b || strstr(line, b)))
			n++;
	fclose(f);
	return n;
}

FIXTURE(pctr) {
	int fd;			/* O_RDWR on /dev/pctr */
	int offlined;		/* CPU this test took offline, or -1 */
	int paranoid;		/* saved perf_event_paranoid, or INT_MIN */
	long node_saved;	/* node group and mode to restore, or -1 */
	bool fakepmu_removed;
};

FIXTURE_SETUP(pctr)
{
	self->fd = -1;
	self->offlined = -1;
	self->paranoid = INT_MIN;
	self->node_saved = -1;
	self->fakepmu_removed = false;
	if (access(_PATH_PCTR, F_OK))
		SKIP(return, "no %s: pmcompat not loaded", _PATH_PCTR);
	ASSERT_EQ(0, pctr_clear_all());
	self->fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", _PATH_PCTR, strerror(errno));
}

FIXTURE_TEARDOWN(pctr)
{
	char buf[16];

	if (self->fd >= 0)
		close(self->fd);
	if (self->offlined >= 0 && cpu_online_state(self->offlined) == 0)
		EXPECT_EQ(0, set_cpu_online(self->offlined, 1));
	if (self->paranoid != INT_MIN) {
		snprintf(buf, sizeof(buf), "%d\n", self->paranoid);
		EXPECT_EQ(0, write_file(PARANOID_PATH, buf));
	}
	EXPECT_EQ(0, node_restore(_PATH_PCTR, self->node_saved));
	if (self->fakepmu_removed && !module_loaded("fakepmu"))
		EXPECT_EQ(0, fakepmu_reload());
	if (!module_loaded("pmcompat"))
		EXPECT_EQ(0, pmcompat_load());
	EXPECT_EQ(0, pctr_clear_all());
}

/* Make sure perf_event_paranoid is above 0 (restored by the teardown). */
static int paranoid_above_zero(int *saved)
{
	int level, err;

	err = read_file_int(PARANOID_PATH, &level);
	if (err)
		return err;
	if (level > 0)
		return 0;
	*saved = level;
	return write_file(PARANOID_PATH, "2\n");
}

TEST(abi_numbers_and_layout)
{
	EXPECT_EQ(56UL, sizeof(struct pctrst));
	EXPECT_EQ(0UL, offsetof(struct pctrst, pctr_fn));
	EXPECT_EQ(16UL, offsetof(struct pctrst, pctr_tsc));
	EXPECT_EQ(24UL, offsetof(struct pctrst, pctr_hwc));
	EXPECT_EQ(0x80386301UL, (unsigned long)PCIOCRD);
	EXPECT_EQ(0x40046308UL, (unsigned long)PCIOCS0);
	EXPECT_EQ(0x40046309UL, (unsigned long)PCIOCS1);
	EXPECT_EQ(0x4004630aUL, (unsigned long)PCIOCS2);
	EXPECT_EQ(0x4004630bUL, (unsigned long)PCIOCS3);
	EXPECT_EQ((unsigned long)PCIOCS3, (unsigned long)(PCIOCS0 + 3));
}

/* Without udev: root reads and writes, group root reads (see pctr(4)). */
TEST_F(pctr, device_node_is_a_0640_root_character_device)
{
	struct stat st;

	ASSERT_EQ(0, stat(_PATH_PCTR, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0640U, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_uid);
	EXPECT_EQ(0U, st.st_gid);
	EXPECT_EQ(10U, major(st.st_rdev));	/* a misc device */
}

TEST_F(pctr, read_needs_no_write_permission_and_fills_every_field)
{
	static const int modes[] = { O_RDONLY, O_WRONLY, O_RDWR };
	struct pctrst st;
	unsigned int i, m;
	int fd;

	for (m = 0; m < 3; m++) {
		fd = open(_PATH_PCTR, modes[m] | O_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("open mode %d: %s", modes[m], strerror(errno));
		memset(&st, 0xcc, sizeof(st));
		ASSERT_EQ(0, ioctl(fd, PCIOCRD, &st))
			TH_LOG("PCIOCRD, open mode %d: %s", modes[m], strerror(errno));
		for (i = 0; i < PCTR_NUM; i++) {
			EXPECT_EQ(0U, st.pctr_fn[i]);
			EXPECT_EQ(0ULL, st.pctr_hwc[i]);
		}
		EXPECT_NE(POISON8, st.pctr_tsc);
		EXPECT_NE(0ULL, st.pctr_tsc);
		close(fd);
	}
}

TEST_F(pctr, pctr_fn_reads_back_what_was_set_on_every_cpu)
{
	static const unsigned int fn[PCTR_NUM] = {
		FN_INSTR,				/* 0x004300c0 */
		0x0041013c,				/* umask 01, user */
		0x01c2412e,				/* cmask 1, inv, kernel */
		EV_INSTR | PCTR_E | PCTR_U | PCTR_K,	/* not enabled */
	};
	int ncpu = count_online_cpus(), cpu;
	struct pctrst st;
	unsigned int i;

	NEED_FAKEPMU();
	for (i = 0; i < PCTR_NUM; i++)
		ASSERT_EQ(0, pctr_set_fd(self->fd, i, fn[i]))
			TH_LOG("PCIOCS%u %#x: %s", i, fn[i], strerror(errno));
	for (cpu = 0; cpu < ncpu; cpu++) {
		memset(&st, 0xcc, sizeof(st));
		ASSERT_EQ(0, pctr_read_on(self->fd, cpu, &st));
		for (i = 0; i < PCTR_NUM; i++) {
			EXPECT_EQ(fn[i], st.pctr_fn[i]) TH_LOG("cpu %d ctr %u", cpu, i);
			EXPECT_EQ(0ULL, st.pctr_hwc[i]) TH_LOG("cpu %d ctr %u", cpu, i);
		}
		EXPECT_NE(POISON8, st.pctr_tsc);
	}
	/*
	 * What perf was given, per CPU: the selector without USR, OS and EN,
	 * the modes as exclude flags; the disabled counter is not scheduled.
	 */
	EXPECT_EQ(ncpu, fakepmu_state_lines("config=0xc0 ", "user=1 kernel=1 "));
	EXPECT_EQ(ncpu, fakepmu_state_lines("config=0x13c ", "user=1 kernel=0 "));
	EXPECT_EQ(ncpu, fakepmu_state_lines("config=0x180412e ", "user=0 kernel=1 "));
	EXPECT_EQ(0, fakepmu_state_lines("config=0x400c0 ", NULL));
	EXPECT_EQ(3 * ncpu, fakepmu_state_lines("cpu=", NULL));
}

TEST_F(pctr, set_on_a_read_only_descriptor_is_eperm)
{
	struct pctrst st;
	unsigned int i;
	int ro;

	NEED_CPU_PMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 1, EV_INSTR | PCTR_U));
	ro = open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);
	for (i = 0; i < PCTR_NUM; i++) {
		EXPECT_EQ(-EPERM, pctr_set_fd(ro, i, FN_INSTR)) TH_LOG("PCIOCS%u", i);
		/* Clearing needs write permission too. */
		EXPECT_EQ(-EPERM, pctr_set_fd(ro, i, 0)) TH_LOG("PCIOCS%u", i);
	}
	/* As on OpenBSD: index first, then write permission, then the bits. */
	EXPECT_EQ(-EPERM, pctr_set_fd(ro, 0, FN_INSTR | FN_REFUSED));
	EXPECT_EQ(-EINVAL, pctr_set_fd(ro, PCTR_NUM, FN_INSTR));
	ASSERT_EQ(0, ioctl(ro, PCIOCRD, &st));
	EXPECT_EQ(0U, st.pctr_fn[0]);
	EXPECT_EQ((unsigned int)(EV_INSTR | PCTR_U), st.pctr_fn[1]);
	EXPECT_EQ(0U, st.pctr_fn[2]);
	EXPECT_EQ(0U, st.pctr_fn[3]);
	close(ro);
}

TEST_F(pctr, refused_selector_bits_are_einval)
{
	static const unsigned int bad[] = { 0x080000, 0x100000, 0x200000, FN_REFUSED };
	struct pctrst st;
	unsigned int i, b;

	NEED_CPU_PMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	for (i = 0; i < PCTR_NUM; i++) {
		for (b = 0; b < ARRAY_SIZE(bad); b++) {
			EXPECT_EQ(-EINVAL, pctr_set_fd(self->fd, i, FN_INSTR | bad[b]))
				TH_LOG("PCIOCS%u %#x", i, FN_INSTR | bad[b]);
			EXPECT_EQ(-EINVAL, pctr_set_fd(self->fd, i, bad[b]))
				TH_LOG("PCIOCS%u %#x", i, bad[b]);
		}
	}
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	EXPECT_EQ((unsigned int)FN_INSTR, st.pctr_fn[0]);
	for (i = 1; i < PCTR_NUM; i++)
		EXPECT_EQ(0U, st.pctr_fn[i]);
	if (!have_fakepmu())
		return;
	/* The refused calls left counter 0 counting. */
	ASSERT_EQ(0, inject(1, EV_INSTR, 5));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	EXPECT_EQ(5ULL, st.pctr_hwc[0]);
}

TEST_F(pctr, every_other_selector_bit_is_accepted)
{
	unsigned int fn = ~FN_REFUSED;	/* 0xffc7ffff */
	struct pctrst st;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 2, fn)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, pctr_read_on(self->fd, 0, &st));
	EXPECT_EQ(fn, st.pctr_fn[2]);
	EXPECT_EQ(count_online_cpus(),
		  fakepmu_state_lines("config=0xff84ffff ", "user=1 kernel=1 "));
	ASSERT_EQ(0, inject_ip(0, 0xffff, 3, 1, KERNEL_IP));
	ASSERT_EQ(0, pctr_read_on(self->fd, 0, &st));
	EXPECT_EQ(3ULL, st.pctr_hwc[2]);
}

TEST_F(pctr, bad_counter_index_is_einval)
{
	static const unsigned int idx[] = { PCTR_NUM, PCTR_NUM + 1, 7, 63 };
	struct pctrst st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(idx); i++) {
		EXPECT_EQ(-EINVAL, pctr_set_fd(self->fd, idx[i], FN_INSTR))
			TH_LOG("PCIOCS0 + %u", idx[i]);
		EXPECT_EQ(-EINVAL, pctr_set_fd(self->fd, idx[i], 0))
			TH_LOG("PCIOCS0 + %u, fn 0", idx[i]);
	}
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	for (i = 0; i < PCTR_NUM; i++)
		EXPECT_EQ(0U, st.pctr_fn[i]);
}

TEST_F(pctr, unknown_ioctls_are_enotty)
{
	static const unsigned long cmds[] = {
		0,
		0x5401,				/* TCGETS */
		_IO('c', 1),
		_IOR('c', 1, unsigned int),	/* PCIOCRD number, wrong size */
		_IOW('c', 1, struct pctrst),	/* PCIOCRD, wrong direction */
		_IOWR('c', 1, struct pctrst),
		_IOR('c', 8, unsigned int),	/* PCIOCS0, wrong direction */
		_IOWR('c', 8, unsigned int),
		_IOW('c', 8, unsigned long long), /* PCIOCS0, wrong size */
		_IO('c', 8),
		_IOW('c', 7, unsigned int),	/* just below PCIOCS0 */
		_IOW('d', 8, unsigned int),	/* another group */
		_IOR('d', 1, struct pctrst),
	};
	unsigned int fn = FN_INSTR;
	struct pctrst st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i], &fn)) TH_LOG("cmd %#lx", cmds[i]);
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd %#lx", cmds[i]);
	}
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	for (i = 0; i < PCTR_NUM; i++)
		EXPECT_EQ(0U, st.pctr_fn[i]);
}

TEST_F(pctr, read_and_write_system_calls_are_einval)
{
	char buf[64];

	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(pctr, bad_user_pointers_are_efault)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct pctrst st;
	char *none, *ro;
	unsigned int i;

	none = mmap(NULL, psz, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, psz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, none);
	ASSERT_NE(MAP_FAILED, ro);

	EXPECT_EQ(-1, ioctl(self->fd, PCIOCRD, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PCIOCRD, none));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PCIOCRD, ro));	/* not writable */
	EXPECT_EQ(EFAULT, errno);
	/* The struct runs off the end of the mapping. */
	EXPECT_EQ(-1, ioctl(self->fd, PCIOCRD, ro + psz - 8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PCIOCS0, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PCIOCS1, none));
	EXPECT_EQ(EFAULT, errno);

	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	for (i = 0; i < PCTR_NUM; i++)
		EXPECT_EQ(0U, st.pctr_fn[i]);
	munmap(none, psz);
	munmap(ro, psz);
}

/* 32-bit callers: ia32_syscall3() (pmc_test_util.h). */
static void exit_on_signal(int sig)
{
	_exit(100 + sig);
}

/* In a child: 32-bit ioctls on fd with buffers below 4 GiB. */
static void compat_calls(struct child_res *r, int fd)
{
	struct pctrst *st;
	unsigned int *fn;
	char *low;

	signal(SIGSEGV, exit_on_signal);
	signal(SIGBUS, exit_on_signal);
	if (ia32_syscall3(IA32_NR_GETPID, 0, 0, 0) != getpid())
		_exit(99);
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED || (unsigned long)low + 4096 > 0xffffffffUL)
		_exit(98);
	fn = (unsigned int *)low;
	st = (struct pctrst *)(low + 64);
	*fn = FN_INSTR_K;
	r->err[0] = -ia32_syscall3(IA32_NR_IOCTL, fd, PCIOCS2, (long)fn);
	*fn = FN_INSTR | FN_REFUSED;
	r->err[1] = -ia32_syscall3(IA32_NR_IOCTL, fd, PCIOCS1, (long)fn);
	r->err[2] = -ia32_syscall3(IA32_NR_IOCTL, fd, PCIOCS0 + PCTR_NUM, (long)fn);
	r->err[3] = -ia32_syscall3(IA32_NR_IOCTL, fd, _IO('c', 2), (long)fn);
	r->err[4] = -ia32_syscall3(IA32_NR_IOCTL, fd, PCIOCRD, 0x10);
	memset(st, 0xcc, sizeof(*st));
	r->err[5] = -ia32_syscall3(IA32_NR_IOCTL, fd, PCIOCRD, (long)st);
	r->fn[0] = st->pctr_fn[0];
	r->fn[1] = st->pctr_fn[1];
	r->fn[2] = st->pctr_fn[2];
	r->fn[3] = st->pctr_fn[3];
	r->val[0] = st->pctr_tsc;
	r->val[1] = st->pctr_hwc[2];
	r->val[2] = st->pctr_hwc[0];
}

TEST_F(pctr, compat_ioctls_from_32_bit_callers)
{
	struct child_res *r = child_res_new();
	int status;

	NEED_FAKEPMU();
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, inject(1, EV_INSTR, 70));
	ASSERT_EQ(0, pin_to_cpu(1));
	status = run_child(compat_calls, r, self->fd);
	if (status == 99 || status == 100 + SIGSEGV)
		SKIP(goto out, "no 32-bit system call entry (IA32 emulation)");
	ASSERT_EQ(0, status);
	EXPECT_EQ(0, r->err[0]) TH_LOG("PCIOCS2: %s", strerror(r->err[0]));
	EXPECT_EQ(EINVAL, r->err[1]);
	EXPECT_EQ(EINVAL, r->err[2]);
	EXPECT_EQ(ENOTTY, r->err[3]);
	EXPECT_EQ(EFAULT, r->err[4]);
	EXPECT_EQ(0, r->err[5]) TH_LOG("PCIOCRD: %s", strerror(r->err[5]));
	EXPECT_EQ((unsigned int)FN_INSTR, r->fn[0]);
	EXPECT_EQ(0U, r->fn[1]);
	EXPECT_EQ((unsigned int)FN_INSTR_K, r->fn[2]);
	EXPECT_EQ(0U, r->fn[3]);
	EXPECT_NE(POISON8, r->val[0]);
	EXPECT_EQ(0ULL, r->val[1]);
	EXPECT_EQ(70ULL, r->val[2]);
out:
	munmap(r, sizeof(*r));
}

TEST_F(pctr, same_selector_counts_on_every_cpu_separately)
{
	int ncpu = count_online_cpus(), cpu;
	unsigned long long want;
	struct pctrst st;
	unsigned int i;

	NEED_FAKEPMU();
	ASSERT_LE(2, ncpu);
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	for (cpu = 0; cpu < ncpu; cpu++)
		ASSERT_EQ(0, inject(cpu, EV_INSTR, 1000 + 111 * cpu));
	for (cpu = 0; cpu < ncpu; cpu++) {
		memset(&st, 0xcc, sizeof(st));
		ASSERT_EQ(0, pctr_read_on(self->fd, cpu, &st));
		EXPECT_EQ((unsigned int)FN_INSTR, st.pctr_fn[0]) TH_LOG("cpu %d", cpu);
		EXPECT_EQ(1000ULL + 111 * cpu, st.pctr_hwc[0]) TH_LOG("cpu %d", cpu);
		for (i = 1; i < PCTR_NUM; i++) {
			EXPECT_EQ(0U, st.pctr_fn[i]);
			EXPECT_EQ(0ULL, st.pctr_hwc[i]);
		}
	}
	/* More on CPU 1 shows on CPU 1's read only. */
	ASSERT_EQ(0, inject(1, EV_INSTR, 5));
	for (cpu = 0; cpu < ncpu; cpu++) {
		want = 1000ULL + 111 * cpu + (cpu == 1 ? 5 : 0);
		ASSERT_EQ(0, pctr_read_on(self->fd, cpu, &st));
		EXPECT_EQ(want, st.pctr_hwc[0]) TH_LOG("cpu %d", cpu);
	}
}

TEST_F(pctr, user_and_kernel_filters)
{
	struct pctrst st;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR_U));
	ASSERT_EQ(0, pctr_set_fd(self->fd, 1, FN_INSTR_K));
	ASSERT_EQ(0, pctr_set_fd(self->fd, 2, FN_INSTR));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 100, 0, 0x401000));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 7, 1, KERNEL_IP));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	EXPECT_EQ((unsigned int)FN_INSTR_U, st.pctr_fn[0]);
	EXPECT_EQ((unsigned int)FN_INSTR_K, st.pctr_fn[1]);
	EXPECT_EQ((unsigned int)FN_INSTR, st.pctr_fn[2]);
	EXPECT_EQ(100ULL, st.pctr_hwc[0]);
	EXPECT_EQ(7ULL, st.pctr_hwc[1]);
	EXPECT_EQ(107ULL, st.pctr_hwc[2]);
	EXPECT_EQ(0ULL, st.pctr_hwc[3]);
}

TEST_F(pctr, zero_selector_stops_and_clears)
{
	struct pctrst st;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, inject(2, EV_INSTR, 100));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(100ULL, st.pctr_hwc[0]);

	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, 0));
	memset(&st, 0xcc, sizeof(st));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(0U, st.pctr_fn[0]);
	EXPECT_EQ(0ULL, st.pctr_hwc[0]);
	ASSERT_EQ(0, inject(2, EV_INSTR, 50));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(0ULL, st.pctr_hwc[0]);
	EXPECT_EQ(0, fakepmu_state_lines("cpu=", NULL));
	/* Clearing a counter that is not programmed is fine. */
	EXPECT_EQ(0, pctr_set_fd(self->fd, 3, 0));
	/* Programming it again starts from 0. */
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(0ULL, st.pctr_hwc[0]);
	ASSERT_EQ(0, inject(2, EV_INSTR, 1));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(1ULL, st.pctr_hwc[0]);
}

TEST_F(pctr, same_selector_again_keeps_counting)
{
	struct pctrst st;
	int wo;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, inject(2, EV_INSTR, 100));
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(100ULL, st.pctr_hwc[0]);
	ASSERT_EQ(0, inject(2, EV_INSTR, 5));
	/* From another descriptor, too. */
	wo = open(_PATH_PCTR, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, wo);
	ASSERT_EQ(0, pctr_set_fd(wo, 0, FN_INSTR));
	close(wo);
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ((unsigned int)FN_INSTR, st.pctr_fn[0]);
	EXPECT_EQ(105ULL, st.pctr_hwc[0]);
}

TEST_F(pctr, different_selector_restarts_from_zero)
{
	struct pctrst st;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, inject(2, EV_INSTR, 100));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(100ULL, st.pctr_hwc[0]);

	/* Same event, other modes. */
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR_U));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ((unsigned int)FN_INSTR_U, st.pctr_fn[0]);
	EXPECT_EQ(0ULL, st.pctr_hwc[0]);
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 7, 0, 0));
	ASSERT_EQ(0, inject_ip(2, EV_INSTR, 3, 1, KERNEL_IP));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(7ULL, st.pctr_hwc[0]);

	/* Another event: counts only that one, from 0. */
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, 0x0041013c));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(0ULL, st.pctr_hwc[0]);
	ASSERT_EQ(0, inject(2, 0x013c, 9));
	ASSERT_EQ(0, inject(2, EV_INSTR, 20));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(0x0041013cU, st.pctr_fn[0]);
	EXPECT_EQ(9ULL, st.pctr_hwc[0]);
}

TEST_F(pctr, selector_without_enable_does_not_count)
{
	unsigned int off = FN_INSTR & ~PCTR_EN;	/* 0x000300c0 */
	unsigned int nomode = EV_INSTR | PCTR_EN;	/* neither U nor K */
	struct pctrst st;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, off));
	ASSERT_EQ(0, pctr_set_fd(self->fd, 1, nomode));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 100, 0, 0));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 10, 1, KERNEL_IP));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	EXPECT_EQ(off, st.pctr_fn[0]);
	EXPECT_EQ(nomode, st.pctr_fn[1]);
	EXPECT_EQ(0ULL, st.pctr_hwc[0]);
	EXPECT_EQ(0ULL, st.pctr_hwc[1]);
	EXPECT_EQ(0, fakepmu_state_lines("cpu=", NULL));

	/* Enabling is a different selector: counts from 0 from now on. */
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, inject(1, EV_INSTR, 3));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	EXPECT_EQ(3ULL, st.pctr_hwc[0]);
	EXPECT_EQ(0ULL, st.pctr_hwc[1]);
}

TEST_F(pctr, counts_past_48_bits_are_exact)
{
	unsigned long long want = (1ULL << 48) + 12345;
	struct pctrst st;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 1, FN_INSTR));
	ASSERT_EQ(0, inject(2, EV_INSTR, want));
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(want, st.pctr_hwc[1]);
	ASSERT_EQ(0, inject(2, EV_INSTR, (1ULL << 48) - 1));
	want += (1ULL << 48) - 1;
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(want, st.pctr_hwc[1]);
	/* Past 2^56 too (OpenBSD's rdpmc() would cut there). */
	ASSERT_EQ(0, inject(2, EV_INSTR, (1ULL << 57) + 1));
	want += (1ULL << 57) + 1;
	ASSERT_EQ(0, pctr_read_on(self->fd, 2, &st));
	EXPECT_EQ(want, st.pctr_hwc[1]);
	/* The other CPUs saw none of it. */
	ASSERT_EQ(0, pctr_read_on(self->fd, 0, &st));
	EXPECT_EQ(0ULL, st.pctr_hwc[1]);
}

TEST_F(pctr, several_openers_share_one_state)
{
	struct pctrst a, b, c;
	int ro, wo, rw;

	NEED_FAKEPMU();
	ro = open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
	wo = open(_PATH_PCTR, O_WRONLY | O_CLOEXEC);
	rw = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ro);
	ASSERT_LE(0, wo);
	ASSERT_LE(0, rw);
	ASSERT_EQ(0, pctr_set_fd(wo, 0, FN_INSTR));
	ASSERT_EQ(0, pctr_set_fd(rw, 1, FN_INSTR_K));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 40, 0, 0));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 2, 1, KERNEL_IP));

	ASSERT_EQ(0, pctr_read_on(ro, 1, &a));
	ASSERT_EQ(0, pctr_read_on(rw, 1, &b));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &c));
	EXPECT_EQ(0, memcmp(a.pctr_fn, b.pctr_fn, sizeof(a.pctr_fn)));
	EXPECT_EQ(0, memcmp(a.pctr_fn, c.pctr_fn, sizeof(a.pctr_fn)));
	EXPECT_EQ(0, memcmp(a.pctr_hwc, b.pctr_hwc, sizeof(a.pctr_hwc)));
	EXPECT_EQ(0, memcmp(a.pctr_hwc, c.pctr_hwc, sizeof(a.pctr_hwc)));
	EXPECT_EQ(42ULL, a.pctr_hwc[0]);
	EXPECT_EQ(2ULL, a.pctr_hwc[1]);

	/* Closing the descriptors that programmed changes nothing. */
	close(wo);
	close(rw);
	ASSERT_EQ(0, inject(1, EV_INSTR, 8));
	ASSERT_EQ(0, pctr_read_on(ro, 1, &a));
	EXPECT_EQ((unsigned int)FN_INSTR, a.pctr_fn[0]);
	EXPECT_EQ((unsigned int)FN_INSTR_K, a.pctr_fn[1]);
	EXPECT_EQ(50ULL, a.pctr_hwc[0]);
	EXPECT_EQ(2ULL, a.pctr_hwc[1]);

	/* With no descriptor open at all, the counters go on counting. */
	close(ro);
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, inject(1, EV_INSTR, 100));
	ro = open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);
	ASSERT_EQ(0, pctr_read_on(ro, 1, &a));
	EXPECT_EQ((unsigned int)FN_INSTR, a.pctr_fn[0]);
	EXPECT_EQ((unsigned int)FN_INSTR_K, a.pctr_fn[1]);
	EXPECT_EQ(150ULL, a.pctr_hwc[0]);
	EXPECT_EQ(2ULL, a.pctr_hwc[1]);
	close(ro);
}

TEST_F(pctr, module_unload_refused_while_open)
{
	struct pctrst st;
	int ro;

	ASSERT_TRUE(module_loaded("pmcompat"));
	ro = open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-EAGAIN, kmod_remove("pmcompat"));
	EXPECT_TRUE(module_loaded("pmcompat"));
	/* Refused while any one descriptor is left. */
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(-EAGAIN, kmod_remove("pmcompat"));
	EXPECT_TRUE(module_loaded("pmcompat"));
	EXPECT_EQ(0, ioctl(ro, PCIOCRD, &st));
	close(ro);

	ASSERT_EQ(0, kmod_remove("pmcompat"));
	EXPECT_FALSE(module_loaded("pmcompat"));
	EXPECT_NE(0, access(_PATH_PCTR, F_OK));
	ASSERT_EQ(0, pmcompat_load());
	self->fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
}

TEST_F(pctr, unload_with_counters_programmed_then_reload)
{
	struct pctrst st;
	unsigned int i;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, pctr_set_fd(self->fd, 3, FN_INSTR_K));
	ASSERT_EQ(0, inject(1, EV_INSTR, 10));
	close(self->fd);
	self->fd = -1;

	ASSERT_EQ(0, kmod_remove("pmcompat"));
	/* Its perf events are gone: the test PMU can be unloaded. */
	EXPECT_EQ(0, fakepmu_state_lines("cpu=", NULL));
	self->fakepmu_removed = true;
	EXPECT_EQ(0, kmod_remove("fakepmu"));
	ASSERT_EQ(0, fakepmu_reload());
	ASSERT_EQ(0, pmcompat_load());

	self->fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, inject(1, EV_INSTR, 10));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	for (i = 0; i < PCTR_NUM; i++) {
		EXPECT_EQ(0U, st.pctr_fn[i]);
		EXPECT_EQ(0ULL, st.pctr_hwc[i]);
	}
}

/* nobody on CPU arg & 0xff, in the device group if arg & 0x100. */
static void nobody_opens(struct child_res *r, int arg)
{
	struct pctrst st;
	int fd;

	memset(&st, 0, sizeof(st));
	if (pin_to_cpu(arg & 0xff) || become_nobody_in(arg & 0x100))
		_exit(2);
	r->uid = geteuid();
	fd = open(_PATH_PCTR, O_RDONLY | O_CLOEXEC);
	r->err[0] = err_of(fd);
	r->err[1] = fd < 0 ? -1 : err_of(ioctl(fd, PCIOCRD, &st));
	r->val[0] = st.pctr_hwc[0];
	r->fn[0] = st.pctr_fn[0];
	close(fd);
	fd = open(_PATH_PCTR, O_RDWR | O_CLOEXEC);
	r->err[2] = err_of(fd);
	if (fd >= 0)
		close(fd);
	fd = open(_PATH_PCTR, O_WRONLY | O_CLOEXEC);
	r->err[3] = err_of(fd);
	if (fd >= 0)
		close(fd);
}

/*
 * The node is the first gate: mode 0640, group root without udev, the
 * pmcompat group with the udev rule (emulated with PMC_TEST_GID).  Others
 * cannot even read; the group reads; only root opens for writing.
 */
TEST_F(pctr, unprivileged_user_reads_only_in_the_group_and_never_writes)
{
	struct child_res *r = child_res_new();

	NEED_FAKEPMU();
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, paranoid_set(&self->paranoid, -1));	/* changes nothing */
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, inject(2, EV_INSTR, 4321));
	ASSERT_EQ(0, run_child(nobody_opens, r, 2));
	EXPECT_EQ((unsigned int)NOBODY, r->uid);
	EXPECT_EQ(EACCES, r->err[0]) TH_LOG("open O_RDONLY outside the group");
	EXPECT_EQ(EACCES, r->err[2]);
	EXPECT_EQ(EACCES, r->err[3]);

	ASSERT_EQ(0, node_to_test_group(_PATH_PCTR, 0640, &self->node_saved));
	memset(r, 0, sizeof(*r));
	ASSERT_EQ(0, run_child(nobody_opens, r, 2 | 0x100));
	EXPECT_EQ((unsigned int)NOBODY, r->uid);
	EXPECT_EQ(0, r->err[0]) TH_LOG("open O_RDONLY: %s", strerror(r->err[0]));
	EXPECT_EQ(0, r->err[1]) TH_LOG("PCIOCRD: %s", strerror(r->err[1]));
	EXPECT_EQ((unsigned int)FN_INSTR, r->fn[0]);
	EXPECT_EQ(4321ULL, r->val[0]);
	EXPECT_EQ(EACCES, r->err[2]);
	EXPECT_EQ(EACCES, r->err[3]);
	munmap(r, sizeof(*r));
}

static void nobody_with_writable_fd(struct child_res *r, int fd)
{
	struct pctrst st;

	if (become_nobody())
		_exit(2);
	r->uid = geteuid();
	r->err[0] = -pctr_set_fd(fd, 0, FN_INSTR);
	r->err[1] = -pctr_set_fd(fd, 1, FN_INSTR_U);	/* user mode only */
	r->err[2] = err_of(ioctl(fd, PCIOCRD, &st));
	r->fn[0] = st.pctr_fn[0];
	r->fn[1] = st.pctr_fn[1];
	/* Writing 0 needs no privilege beyond the writable descriptor. */
	r->err[3] = -pctr_set_fd(fd, 2, 0);
}

/* Whatever the paranoid level: programming is for CAP_PERFMON/CAP_SYS_ADMIN. */
TEST_F(pctr, writable_descriptor_without_privilege_cannot_program)
{
	struct child_res *r = child_res_new();
	struct pctrst st;

	NEED_CPU_PMU();
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, paranoid_set(&self->paranoid, -1));
	ASSERT_EQ(0, pctr_set_fd(self->fd, 2, FN_INSTR_U & ~PCTR_EN));
	ASSERT_EQ(0, run_child(nobody_with_writable_fd, r, self->fd));
	EXPECT_EQ((unsigned int)NOBODY, r->uid);
	EXPECT_EQ(EPERM, r->err[0]);
	EXPECT_EQ(EPERM, r->err[1]);
	EXPECT_EQ(0, r->err[2]);
	EXPECT_EQ(0U, r->fn[0]);
	EXPECT_EQ(0U, r->fn[1]);
	EXPECT_EQ(0, r->err[3]) TH_LOG("clearing: %s", strerror(r->err[3]));
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	EXPECT_EQ(0U, st.pctr_fn[0]);
	EXPECT_EQ(0U, st.pctr_fn[1]);
	EXPECT_EQ(0U, st.pctr_fn[2]);
	munmap(r, sizeof(*r));
}

static void root_without_caps(struct child_res *r, int fd)
{
	struct pctrst st;

	r->uid = geteuid();
	/* Either capability alone is enough, as for perf. */
	r->err[0] = -set_effective_caps(0, CAP_PERFMON, CAP_PERFMON);
	r->err[1] = -pctr_set_fd(fd, 0, FN_INSTR_U);
	r->err[2] = -set_effective_caps(1, CAP_PERFMON, CAP_PERFMON);
	r->err[3] = -set_effective_caps(0, CAP_SYS_ADMIN, CAP_SYS_ADMIN);
	r->err[4] = -pctr_set_fd(fd, 1, FN_INSTR_U);
	/* Neither: refused, whatever the modes. */
	r->err[5] = -set_effective_caps(0, CAP_PERFMON, CAP_SYS_ADMIN);
	r->err[6] = -pctr_set_fd(fd, 2, FN_INSTR);
	r->err[7] = -pctr_set_fd(fd, 3, FN_INSTR_U);
	r->val[0] = err_of(ioctl(fd, PCIOCRD, &st));
	/* Raised again, the same root process may. */
	r->val[1] = -set_effective_caps(1, CAP_PERFMON, CAP_SYS_ADMIN);
	r->val[2] = -pctr_set_fd(fd, 3, FN_INSTR);
}

TEST_F(pctr, root_without_perfmon_and_sys_admin_gets_eperm)
{
	struct child_res *r = child_res_new();
	struct pctrst st;
	int level;

	NEED_CPU_PMU();
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, paranoid_above_zero(&self->paranoid));
	ASSERT_EQ(0, read_file_int(PARANOID_PATH, &level));
	TH_LOG("perf_event_paranoid = %d", level);
	ASSERT_EQ(0, run_child(root_without_caps, r, self->fd));
	EXPECT_EQ(0U, r->uid);
	EXPECT_EQ(0, r->err[0]);
	EXPECT_EQ(0, r->err[1]) TH_LOG("CAP_SYS_ADMIN only: %s", strerror(r->err[1]));
	EXPECT_EQ(0, r->err[2]);
	EXPECT_EQ(0, r->err[3]);
	EXPECT_EQ(0, r->err[4]) TH_LOG("CAP_PERFMON only: %s", strerror(r->err[4]));
	EXPECT_EQ(0, r->err[5]);
	EXPECT_EQ(EPERM, r->err[6]);
	EXPECT_EQ(EPERM, r->err[7]);
	EXPECT_EQ(0ULL, r->val[0]);
	EXPECT_EQ(0ULL, r->val[1]);
	EXPECT_EQ(0ULL, r->val[2]);
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	EXPECT_EQ((unsigned int)FN_INSTR_U, st.pctr_fn[0]);
	EXPECT_EQ((unsigned int)FN_INSTR_U, st.pctr_fn[1]);
	EXPECT_EQ(0U, st.pctr_fn[2]);
	EXPECT_EQ((unsigned int)FN_INSTR, st.pctr_fn[3]);
	munmap(r, sizeof(*r));
}

static void capless_program(struct child_res *r, int fd)
{
	r->err[0] = -set_effective_caps(0, CAP_PERFMON, CAP_SYS_ADMIN);
	r->err[1] = -pctr_set_fd(fd, 0, FN_INSTR_U);
	r->err[2] = -pctr_set_fd(fd, 1, FN_INSTR);
}

/*
 * Counting whole CPUs needs CAP_PERFMON or CAP_SYS_ADMIN whatever
 * perf_event_paranoid says (the module cannot read the level on 6.1): a
 * level of 0 or -1 no longer lets anyone else program /dev/pctr.
 */
TEST_F(pctr, paranoid_level_alone_never_allows_programming)
{
	static const int levels[] = { 2, 1, 0, -1 };
	struct child_res *r = child_res_new();
	struct pctrst st;
	unsigned int i;

	NEED_FAKEPMU();
	ASSERT_NE(NULL, r);
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		memset(r, 0x5a, sizeof(*r));
		ASSERT_EQ(0, paranoid_set(&self->paranoid, levels[i]));
		ASSERT_EQ(0, run_child(capless_program, r, self->fd));
		EXPECT_EQ(0, r->err[0]);
		EXPECT_EQ(EPERM, r->err[1]) TH_LOG("paranoid %d, user mode", levels[i]);
		EXPECT_EQ(EPERM, r->err[2]) TH_LOG("paranoid %d, user+kernel", levels[i]);
	}
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 6, 1, KERNEL_IP));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	EXPECT_EQ(0U, st.pctr_fn[0]);
	EXPECT_EQ(0U, st.pctr_fn[1]);
	EXPECT_EQ(0ULL, st.pctr_hwc[1]);
	munmap(r, sizeof(*r));
}

/*
 * Capabilities count in the initial user namespace only: an unprivileged
 * user who makes a user namespace of its own holds every capability there,
 * and must still get EPERM (capable(), not ns_capable()).
 */
static void nobody_in_user_namespace(struct child_res *r, int fd)
{
	if (become_nobody()) {
		r->err[0] = EPERM;
		return;
	}
	r->uid = geteuid();
	if (unshare(CLONE_NEWUSER)) {
		r->err[0] = errno;
		r->err[2] = 1;		/* no user namespaces: skip */
		return;
	}
	r->err[0] = 0;
	r->err[1] = -pctr_set_fd(fd, 0, FN_INSTR_U);
	r->err[3] = -pctr_set_fd(fd, 1, FN_INSTR);
}

TEST_F(pctr, capabilities_in_a_user_namespace_do_not_count)
{
	struct child_res *r = child_res_new();
	struct pctrst st;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, paranoid_set(&self->paranoid, -1));
	ASSERT_EQ(0, run_child(nobody_in_user_namespace, r, self->fd));
	if (r->err[2] == 1)
		SKIP(return, "no user namespaces: %s", strerror(r->err[0]));
	ASSERT_EQ(0, r->err[0]) TH_LOG("setup: %s", strerror(r->err[0]));
	EXPECT_EQ(EPERM, r->err[1])
		TH_LOG("SECURITY BUG? uid 65534 in its own user namespace: %s",
		       r->err[1] ? strerror(r->err[1]) : "programmed counter 0");
	EXPECT_EQ(EPERM, r->err[3]);
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	EXPECT_EQ(0U, st.pctr_fn[0]);
	EXPECT_EQ(0U, st.pctr_fn[1]);
	munmap(r, sizeof(*r));
}

#define NEED_HOTPLUG() do {						\
	if (count_online_cpus() <= HOTPLUG_CPU ||			\
	    cpu_online_state(HOTPLUG_CPU) != 1)				\
		SKIP(return, "CPU %d cannot be taken offline", HOTPLUG_CPU); \
} while (0)

TEST_F(pctr, counts_survive_cpu_offline_and_online)
{
	struct pctrst st;

	NEED_FAKEPMU();
	NEED_HOTPLUG();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, pctr_set_fd(self->fd, 1, FN_INSTR_K));
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 700));
	ASSERT_EQ(0, inject_ip(HOTPLUG_CPU, EV_INSTR, 11, 1, KERNEL_IP));
	ASSERT_EQ(0, inject(0, EV_INSTR, 5));
	ASSERT_EQ(0, pctr_read_on(self->fd, HOTPLUG_CPU, &st));
	EXPECT_EQ(711ULL, st.pctr_hwc[0]);
	EXPECT_EQ(11ULL, st.pctr_hwc[1]);

	ASSERT_EQ(0, pin_to_cpu(0));
	self->offlined = HOTPLUG_CPU;
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 0));
	ASSERT_EQ(0, cpu_online_state(HOTPLUG_CPU));
	EXPECT_EQ(-ENODEV, inject(HOTPLUG_CPU, EV_INSTR, 1));
	ASSERT_EQ(0, pctr_read_on(self->fd, 0, &st));
	EXPECT_EQ((unsigned int)FN_INSTR, st.pctr_fn[0]);
	EXPECT_EQ(5ULL, st.pctr_hwc[0]);
	ASSERT_EQ(0, inject(0, EV_INSTR, 1));

	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	ASSERT_EQ(1, cpu_online_state(HOTPLUG_CPU));
	memset(&st, 0xcc, sizeof(st));
	ASSERT_EQ(0, pctr_read_on(self->fd, HOTPLUG_CPU, &st))
		TH_LOG("PCIOCRD on CPU %d: %s", HOTPLUG_CPU, strerror(errno));
	EXPECT_EQ((unsigned int)FN_INSTR, st.pctr_fn[0]);
	EXPECT_EQ((unsigned int)FN_INSTR_K, st.pctr_fn[1]);
	EXPECT_EQ(711ULL, st.pctr_hwc[0]);
	EXPECT_EQ(11ULL, st.pctr_hwc[1]);
	/* Counting again, on top of what was kept. */
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 89));
	ASSERT_EQ(0, inject_ip(HOTPLUG_CPU, EV_INSTR, 1, 1, KERNEL_IP));
	ASSERT_EQ(0, pctr_read_on(self->fd, HOTPLUG_CPU, &st));
	EXPECT_EQ(801ULL, st.pctr_hwc[0]);
	EXPECT_EQ(12ULL, st.pctr_hwc[1]);
	ASSERT_EQ(0, pctr_read_on(self->fd, 0, &st));
	EXPECT_EQ(6ULL, st.pctr_hwc[0]);
	EXPECT_EQ(0ULL, st.pctr_hwc[1]);

	/* Clearing drops the kept count as well. */
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, 0));
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, pctr_read_on(self->fd, HOTPLUG_CPU, &st));
	EXPECT_EQ(0ULL, st.pctr_hwc[0]);
	EXPECT_EQ(12ULL, st.pctr_hwc[1]);
}

TEST_F(pctr, counter_programmed_while_a_cpu_is_offline_counts_there_later)
{
	struct pctrst st;

	NEED_FAKEPMU();
	NEED_HOTPLUG();
	ASSERT_EQ(0, pin_to_cpu(0));
	self->offlined = HOTPLUG_CPU;
	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 0));
	ASSERT_EQ(0, pctr_set_fd(self->fd, 2, FN_INSTR));
	ASSERT_EQ(0, inject(0, EV_INSTR, 10));
	ASSERT_EQ(0, pctr_read_on(self->fd, 0, &st));
	EXPECT_EQ(10ULL, st.pctr_hwc[2]);

	ASSERT_EQ(0, set_cpu_online(HOTPLUG_CPU, 1));
	ASSERT_EQ(0, pctr_read_on(self->fd, HOTPLUG_CPU, &st));
	EXPECT_EQ((unsigned int)FN_INSTR, st.pctr_fn[2]);
	EXPECT_EQ(0ULL, st.pctr_hwc[2]);
	ASSERT_EQ(0, inject(HOTPLUG_CPU, EV_INSTR, 42));
	ASSERT_EQ(0, pctr_read_on(self->fd, HOTPLUG_CPU, &st));
	EXPECT_EQ(42ULL, st.pctr_hwc[2]);
	ASSERT_EQ(0, pctr_read_on(self->fd, 0, &st));
	EXPECT_EQ(10ULL, st.pctr_hwc[2]);
}

TEST_F(pctr, full_pmu_gives_ebusy_and_leaves_the_counter_cleared)
{
	int perf_fd[32], cpu = 2, i, ngp = fakepmu_gp_counters();
	struct perf_event_attr attr;
	struct pctrst st;

	NEED_FAKEPMU();
	ASSERT_LT(cpu, count_online_cpus());
	ASSERT_LT(2, ngp);
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	/* Programmed but not counting: holds no hardware counter. */
	ASSERT_EQ(0, pctr_set_fd(self->fd, 1, FN_INSTR_K & ~PCTR_EN));
	/*
	 * Counter 0 has the instructions fixed counter; pinned branch events
	 * fill CPU 2's general-purpose ones, so counter 1 finds no room.
	 */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = EV_GP_ONLY;
	attr.pinned = 1;
	for (i = 0; i < ngp; i++) {
		perf_fd[i] = sys_perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, perf_fd[i]) TH_LOG("perf_event_open: %s", strerror(errno));
	}
	EXPECT_EQ(-EBUSY, pctr_set_fd(self->fd, 1, FN_INSTR_K));
	/*
	 * pctr(4): when perf refuses the selector, the counter is left
	 * unprogrammed (the previous selector is gone).  Nothing of it is
	 * left on any CPU; counter 0 goes on.
	 */
	ASSERT_EQ(0, inject_ip(0, EV_INSTR, 4, 1, KERNEL_IP));
	ASSERT_EQ(0, inject_ip(cpu, EV_INSTR, 9, 1, KERNEL_IP));
	ASSERT_EQ(0, pctr_read_on(self->fd, 0, &st));
	EXPECT_EQ(0U, st.pctr_fn[1]);
	EXPECT_EQ(0ULL, st.pctr_hwc[1]);
	EXPECT_EQ(4ULL, st.pctr_hwc[0]);
	ASSERT_EQ(0, pctr_read_on(self->fd, cpu, &st));
	EXPECT_EQ(0U, st.pctr_fn[1]);
	EXPECT_EQ(9ULL, st.pctr_hwc[0]);
	EXPECT_EQ(count_online_cpus(), fakepmu_state_lines("config=0xc0 ", NULL));

	close(perf_fd[2]);
	ASSERT_EQ(0, pctr_set_fd(self->fd, 1, FN_INSTR_K));
	ASSERT_EQ(0, inject_ip(cpu, EV_INSTR, 3, 1, KERNEL_IP));
	ASSERT_EQ(0, pctr_read_on(self->fd, cpu, &st));
	EXPECT_EQ((unsigned int)FN_INSTR_K, st.pctr_fn[1]);
	EXPECT_EQ(3ULL, st.pctr_hwc[1]);
	EXPECT_EQ(12ULL, st.pctr_hwc[0]);
	for (i = 0; i < ngp; i++)
		if (i != 2)
			close(perf_fd[i]);
}

TEST_F(pctr, no_pmu_gives_enodev)
{
	struct pctrst st;
	unsigned int i;

	if (!module_loaded("fakepmu"))
		SKIP(return, NO_FAKEPMU);
	/* The setup cleared every counter: no perf event holds the PMU. */
	self->fakepmu_removed = true;
	ASSERT_EQ(0, kmod_remove("fakepmu"));
	ASSERT_NE(0, access("/sys/bus/event_source/devices/cpu", F_OK));
	for (i = 0; i < PCTR_NUM; i++) {
		EXPECT_EQ(-ENODEV, pctr_set_fd(self->fd, i, FN_INSTR)) TH_LOG("PCIOCS%u", i);
		EXPECT_EQ(-ENODEV, pctr_set_fd(self->fd, i, EV_INSTR | PCTR_U))
			TH_LOG("PCIOCS%u, not enabled", i);
	}
	/* Argument checks still come first; clearing and reading still work. */
	EXPECT_EQ(-EINVAL, pctr_set_fd(self->fd, 0, FN_INSTR | FN_REFUSED));
	EXPECT_EQ(-EINVAL, pctr_set_fd(self->fd, PCTR_NUM, FN_INSTR));
	EXPECT_EQ(0, pctr_set_fd(self->fd, 0, 0));
	memset(&st, 0xcc, sizeof(st));
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	for (i = 0; i < PCTR_NUM; i++) {
		EXPECT_EQ(0U, st.pctr_fn[i]);
		EXPECT_EQ(0ULL, st.pctr_hwc[i]);
	}
	EXPECT_NE(POISON8, st.pctr_tsc);

	ASSERT_EQ(0, fakepmu_reload());
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, inject(1, EV_INSTR, 6));
	ASSERT_EQ(0, pctr_read_on(self->fd, 1, &st));
	EXPECT_EQ(6ULL, st.pctr_hwc[0]);
}

TEST_F(pctr, rdpmc_reads_the_current_cpu)
{
	NEED_FAKEPMU();
	ASSERT_EQ(0, pctr_set_fd(self->fd, 0, FN_INSTR));
	ASSERT_EQ(0, pctr_set_fd(self->fd, 2, FN_INSTR_K));
	ASSERT_EQ(0, inject(1, EV_INSTR, 31));
	ASSERT_EQ(0, inject_ip(1, EV_INSTR, 4, 1, KERNEL_IP));
	ASSERT_EQ(0, inject(2, EV_INSTR, 1000));
	ASSERT_EQ(0, pin_to_cpu(1));
	EXPECT_EQ(35ULL, rdpmc(0));
	EXPECT_EQ(0ULL, rdpmc(1));
	EXPECT_EQ(4ULL, rdpmc(2));
	EXPECT_EQ(0ULL, rdpmc(3));
	ASSERT_EQ(0, pin_to_cpu(2));
	EXPECT_EQ(1000ULL, rdpmc(0));
	EXPECT_EQ(0ULL, rdpmc(2));
	ASSERT_EQ(0, inject(2, EV_INSTR, 1));
	EXPECT_EQ(1001ULL, rdpmc(0));
}

TEST_F(pctr, rdpmc_of_a_counter_that_does_not_exist_aborts)
{
	char msg[128] = "";
	int p[2], status;
	ssize_t n;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		dup2(p[1], 2);
		(void)rdpmc(PCTR_NUM);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], msg, sizeof(msg) - 1);
	close(p[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGABRT, WTERMSIG(status));
	ASSERT_LT(0, n);
	msg[n] = '\0';
	EXPECT_NE(NULL, strstr(msg, "rdpmc: no counter 4")) TH_LOG("stderr: %s", msg);
}

/* A child whose rdpmc(0) cannot open the device: no descriptors left. */
TEST_F(pctr, rdpmc_that_cannot_read_the_device_aborts)
{
	struct rlimit rl = { 0, 0 };
	char msg[128] = "";
	int p[2], status;
	ssize_t n;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(3);
		(void)rdpmc(0);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], msg, sizeof(msg) - 1);
	close(p[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGABRT, WTERMSIG(status));
	ASSERT_LT(0, n);
	msg[n] = '\0';
	EXPECT_STREQ("rdpmc: /dev/pctr: Too many open files\n", msg);
}

static void on_sigsegv(int sig)
{
	_exit(sig);
}

/* rdtsc() is the instruction itself: PR_SET_TSC can forbid it. */
TEST_F(pctr, rdtsc_is_the_instruction)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Handled, so that the kernel does not log an unhandled #GP. */
		signal(SIGSEGV, on_sigsegv);
		if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0))
			_exit(3);
		(void)rdtsc();
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(SIGSEGV, WEXITSTATUS(status));
}

TEST_F(pctr, rdtsc_increases_and_brackets_the_driver_tsc)
{
	struct timespec ts = { 0, 1000000 };
	pctrval t0, t1, t2;
	struct pctrst st;

	ASSERT_EQ(0, pin_to_cpu(0));
	t0 = rdtsc();
	ASSERT_EQ(0, ioctl(self->fd, PCIOCRD, &st));
	t1 = rdtsc();
	nanosleep(&ts, NULL);
	t2 = rdtsc();
	EXPECT_LE(t0, st.pctr_tsc);
	EXPECT_LE(st.pctr_tsc, t1);
	EXPECT_LT(t1, t2);
}

TEST_HARNESS_MAIN
