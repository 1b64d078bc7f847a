// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cpc at the ioctl level, without libcpc: binding, sampling, presets,
 * overflow signals and the Solaris binding rules.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/cpc_impl.h>
#include "pmc_test_util.h"
#include "kselftest_harness.h"

#define OVF_SIG		CPC_DEV_OVF_SIG
#define OVF_CODE	CPC_DEV_OVF_CODE

TEST(info)
{
	struct pmc_cpc_info info;
	int fd = cpc_dev_open();

	ASSERT_LE(0, fd);
	memset(&info, 0xcc, sizeof(info));
	info.size = sizeof(info);
	ASSERT_EQ(0, ioctl(fd, PMC_CPC_INFO, &info));
	EXPECT_EQ((__u32)PMC_CPC_ABI_VERSION, info.abi_version);
	EXPECT_LE(1U, info.npic);
	EXPECT_EQ((__u32)(CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE), info.caps);
	EXPECT_EQ(0U, info.reserved[0]);
	info.size = 8;
	EXPECT_EQ(-1, ioctl(fd, PMC_CPC_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, _IO(PMC_CPC_IOC_MAGIC, 99)));
	EXPECT_EQ(ENOTTY, errno);
	close(fd);
}

TEST(curlwp_counts_injected_events)
{
	struct pmc_cpc_request r[2];
	__u64 v[2];
	int fd;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	fd = cpc_dev_open();
	ASSERT_LE(0, fd);
	cpc_req(&r[0], PERF_TYPE_RAW, 0xc0, CPC_COUNT_USER, 0, 1);
	cpc_req(&r[1], PERF_TYPE_RAW, 0x3c, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 100, 0);
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, r, 2, NULL));
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, v, 2));
	EXPECT_EQ(100ULL, v[0]);
	EXPECT_EQ(0ULL, v[1]);
	ASSERT_EQ(0, inject(1, 0xc0, 5000));
	ASSERT_EQ(0, inject_ip(1, 0xc0, 7, 1, 0));	/* kernel: not counted */
	ASSERT_EQ(0, inject_ip(1, 0x3c, 9, 1, 0));
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, v, 2));
	EXPECT_EQ(109ULL, v[0]);
	EXPECT_EQ(5000ULL, v[1]);
	EXPECT_EQ(-EINVAL, cpc_dev_sample(fd, 0, v, 1));	/* room for one value */
	EXPECT_EQ(0, cpc_dev_id_op(fd, PMC_CPC_RELE, 0));
	EXPECT_EQ(-EINVAL, cpc_dev_id_op(fd, PMC_CPC_RELE, 0));
	EXPECT_EQ(-EINVAL, cpc_dev_sample(fd, 0, v, 2));
	close(fd);
}

TEST(software_page_faults)
{
	struct pmc_cpc_request r;
	long psz = sysconf(_SC_PAGESIZE);
	__u64 before, after;
	char *p;
	int fd, i;

	fd = cpc_dev_open();
	ASSERT_LE(0, fd);
	cpc_req(&r, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
		 CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, 0);
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, &r, 1, NULL));
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, &before, 1));
	p = mmap(NULL, 64 * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < 64; i++)
		p[i * psz] = 1;
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, &after, 1));
	EXPECT_LE(64ULL, after - before);
	munmap(p, 64 * psz);
	close(fd);
}

static volatile sig_atomic_t ovf_count, ovf_code;
static void *volatile ovf_addr;

static void on_ovf(int sig, siginfo_t *si, void *uc)
{
	ovf_count++;
	ovf_code = si->si_code;
	ovf_addr = si->si_addr;
}

static int wait_ovf(int n)
{
	struct timespec ts = { 0, 1000000 };
	int ms = 2000;

	while (ovf_count < n && ms-- > 0)
		nanosleep(&ts, NULL);
	return ovf_count;
}

TEST(overflow_signal_freeze_and_restart)
{
	struct pmc_cpc_request r[2];
	struct pmc_cpc_preset p;
	struct sigaction sa;
	__u64 v[2];
	int fd;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(2));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_ovf;
	sa.sa_flags = SA_SIGINFO;
	ASSERT_EQ(0, sigaction(OVF_SIG, &sa, NULL));
	fd = cpc_dev_open();
	ASSERT_LE(0, fd);
	cpc_req(&r[0], PERF_TYPE_RAW, 0xc0, CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT,
		 UINT64_MAX - 999, 0);
	cpc_req(&r[1], PERF_TYPE_RAW, 0x3c, CPC_COUNT_USER, 0, 1);
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, r, 2, NULL));
	ASSERT_EQ(0, inject_ip(2, 0xc0, 999, 0, 0x400100));
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, v, 2));
	EXPECT_EQ(UINT64_MAX, v[0]);
	EXPECT_EQ(0, wait_ovf(1) - 0 > 0 ? 1 : 0);
	ASSERT_EQ(0, inject_ip(2, 0xc0, 1, 0, 0x400abc));
	ASSERT_EQ(1, wait_ovf(1));
	EXPECT_EQ(OVF_CODE, ovf_code);
	EXPECT_EQ((void *)0x400abc, ovf_addr);
	/* The set is frozen: later events do not count. */
	usleep(100000);
	ASSERT_EQ(0, inject(2, 0xc0, 50));
	ASSERT_EQ(0, inject(2, 0x3c, 50));
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, v, 2));
	EXPECT_EQ(0ULL, v[0]);
	EXPECT_EQ(0ULL, v[1]);
	/* Restart from the presets; a second overflow after 1000 more. */
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.index = 1;
	p.preset = 7;
	ASSERT_EQ(0, ioctl(fd, PMC_CPC_PRESET, &p));
	ASSERT_EQ(0, cpc_dev_id_op(fd, PMC_CPC_RESTART, 0));
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, v, 2));
	EXPECT_EQ(UINT64_MAX - 999, v[0]);
	EXPECT_EQ(7ULL, v[1]);
	ASSERT_EQ(0, inject_ip(2, 0xc0, 1000, 0, 0x400def));
	ASSERT_EQ(2, wait_ovf(2));
	EXPECT_EQ((void *)0x400def, ovf_addr);
	close(fd);
}

TEST(bind_validation)
{
	struct pmc_cpc_request r[9];
	struct pmc_cpc_bind out;
	int fd, i;

	fd = cpc_dev_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < 9; i++)
		cpc_req(&r[i], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
			 CPC_COUNT_USER, 0, i);
	memset(&out, 0, sizeof(out));
	EXPECT_EQ(-EINVAL, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, r, 0, &out));
	EXPECT_EQ(-EINVAL, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, r, 9, &out));
	EXPECT_EQ(CPC_RESOURCE_UNAVAIL, out.subcode);
	EXPECT_EQ(-EINVAL, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0x2, r, 1, &out));
	EXPECT_EQ(-EINVAL, cpc_dev_bind(fd, 7, 0, r, 1, &out));
	r[0].flags = 0x10;
	EXPECT_EQ(-EINVAL, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, r, 1, &out));
	EXPECT_EQ(CPC_REQ_INVALID_FLAGS, out.subcode);
	r[0].flags = CPC_COUNT_USER;
	r[1].index = 0;
	EXPECT_EQ(-EINVAL, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, r, 2, &out));
	EXPECT_EQ(CPC_CONFLICTING_REQS, out.subcode);
	r[1].index = 1;
	r[0].type = 42;
	EXPECT_EQ(-EINVAL, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, r, 1, &out));
	EXPECT_EQ(CPC_INVALID_EVENT, out.subcode);
	r[0].type = PERF_TYPE_SOFTWARE;
	EXPECT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, 0, r, 2, &out));
	EXPECT_EQ(-1, out.subcode);
	close(fd);
}

TEST(pctx_and_cpu_rules)
{
	struct pmc_cpc_request r;
	struct pmc_cpc_bind out;
	int fd, fd2, status;
	pid_t child;
	__u64 v;

	fd = cpc_dev_open();
	fd2 = cpc_dev_open();
	ASSERT_LE(0, fd);
	ASSERT_LE(0, fd2);
	cpc_req(&r, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CPC_COUNT_USER, 0, 0);

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		for (;;)
			;
	}
	memset(&out, 0, sizeof(out));
	out.pid = child;
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_PCTX, 0, &r, 1, &out));
	EXPECT_NE(0U, out.id);
	usleep(50000);
	ASSERT_EQ(0, cpc_dev_sample(fd, out.id, &v, 1));
	EXPECT_LT(0ULL, v);
	memset(&out, 0, sizeof(out));
	out.pid = 999999;
	EXPECT_EQ(-ESRCH, cpc_dev_bind(fd, PMC_CPC_BIND_PCTX, 0, &r, 1, &out));

	/* Not pinned: EINVAL; pinned: ok; second binding of that CPU: EAGAIN. */
	memset(&out, 0, sizeof(out));
	out.cpu = 3;
	{
		cpu_set_t all;

		CPU_ZERO(&all);
		CPU_SET(0, &all);
		CPU_SET(3, &all);
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	}
	EXPECT_EQ(-EINVAL, cpc_dev_bind(fd, PMC_CPC_BIND_CPU, 0, &r, 1, &out));
	ASSERT_EQ(0, pin_to_cpu(3));
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_CPU, 0, &r, 1, &out));
	EXPECT_EQ(-EAGAIN, cpc_dev_bind(fd2, PMC_CPC_BIND_CPU, 0, &r, 1, &out));
	/* Thread sets are invalidated, new ones refused. */
	ASSERT_EQ(0, pin_to_cpu(0));
	EXPECT_EQ(-EAGAIN, cpc_dev_sample(fd, 1, &v, 1));
	EXPECT_EQ(-EAGAIN, cpc_dev_bind(fd2, PMC_CPC_BIND_CURLWP, 0, &r, 1, NULL));
	/* The child holds copies of the fds: end it, then close ours. */
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	close(fd);	/* releases the CPU */
	EXPECT_EQ(0, cpc_dev_bind(fd2, PMC_CPC_BIND_CURLWP, 0, &r, 1, NULL));
	close(fd2);
}

static int thread_err;

static void *thread_sample(void *arg)
{
	int fd = *(int *)arg;
	static __u64 v[2];

	pin_to_cpu(1);
	thread_err = inject(1, 0xc0, 321);
	if (!thread_err)
		thread_err = cpc_dev_sample(fd, 0, v, 2);
	return thread_err ? NULL : v;
}

TEST(inherited_thread_has_its_own_counts)
{
	struct pmc_cpc_request r[2];
	pthread_t t;
	__u64 v[2], *tv;
	int fd;

	NEED_FAKEPMU();
	ASSERT_EQ(0, pin_to_cpu(1));
	fd = cpc_dev_open();
	ASSERT_LE(0, fd);
	/* Overflow notification is not inherited: refused, nothing bound. */
	cpc_req(&r[0], PERF_TYPE_RAW, 0xc0, CPC_COUNT_USER, 10, 0);
	cpc_req(&r[1], PERF_TYPE_RAW, 0x3c, CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT,
		UINT64_MAX - 100000, 1);
	EXPECT_EQ(-EOPNOTSUPP, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, CPC_BIND_LWP_INHERIT,
					    r, 2, NULL));
	EXPECT_EQ(-EINVAL, cpc_dev_sample(fd, 0, v, 2));

	cpc_req(&r[1], PERF_TYPE_RAW, 0x3c, CPC_COUNT_USER, UINT64_MAX - 100000, 1);
	ASSERT_EQ(0, cpc_dev_bind(fd, PMC_CPC_BIND_CURLWP, CPC_BIND_LWP_INHERIT, r, 2, NULL));
	ASSERT_EQ(0, inject(1, 0xc0, 1000));
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_sample, &fd));
	ASSERT_EQ(0, pthread_join(t, (void **)&tv));
	ASSERT_NE(NULL, tv) TH_LOG("thread: %s", strerror(-thread_err));
	EXPECT_EQ(331ULL, tv[0]);
	EXPECT_EQ(UINT64_MAX - 100000, tv[1]);
	ASSERT_EQ(0, cpc_dev_sample(fd, 0, v, 2));
	EXPECT_EQ(1010ULL, v[0]);
	close(fd);
}

TEST_HARNESS_MAIN
