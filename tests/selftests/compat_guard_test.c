// SPDX-License-Identifier: GPL-2.0
/*
 * Every 32-bit (compat_ioctl) request of /dev/pctr, /dev/perfmon,
 * /dev/pfcntr and /dev/cpc reads and writes exactly what its caller
 * declared, and nothing around it (issue 25).  Built only as the static
 * 32-bit program compat_guard_test32, against the uapi headers as any
 * 32-bit program is.
 *
 * Each argument is placed so that it ends exactly at a PROT_NONE page, with
 * guard bytes of a known pattern before it; so is each array that an
 * argument points to (pfcntr's count and IPL arrays, cpc's request and
 * sample arrays).  After the request:
 *  - no guard byte before the argument or the array has changed;
 *  - a request whose declared size fits did not fault (EFAULT there would
 *    be a read or write past the declared size, into the PROT_NONE page);
 *  - an array or structure larger than what the request writes keeps its
 *    tail; an array too short gives the errno the man page says (pfm(7):
 *    EFAULT with nothing written; cpc: EINVAL for nvals below nreqs, an
 *    EFAULT may leave the values that fitted written, as copy_to_user);
 *  - the same argument moved one byte into the PROT_NONE page does give
 *    EFAULT: the guard page is where the test thinks it is.
 * Error paths (short sizes, bad values, wrong state) are placed the same
 * way.  What each request reads and writes, from the module's source:
 *
 *   pctr    PCIOCRD r:- w:56          PCIOCRD_1998 w:40   PCIOCSn r:4
 *   perfmon PMIOSETUP r:8  START/STOP/RESET r:4  PMIOGET r:4 w:8
 *           PMIOREAD (12 in 32-bit) r:4 w:12  PMIOTSTAMP (12) w:12
 *           (the 64-bit numbers, 16 bytes, go through the native code)
 *   pfcntr  long requests r:4, PCNTGETRSIZE w:4, images r:8 (GETCNTRS w:8),
 *           PCNTSETMUX r:8, ranges r:16/32, the _IO requests nothing;
 *           "struct X *" requests r:4 (the pointer), w: n entries
 *   cpc     INFO r:size w:32  BIND r:size + nreqs * 32 w:56
 *           SAMPLE r:size w:40 + nreqs * 8  PRESET r:size  id requests r:4
 *
 * pfcntr's read(2) of the profile is no ioctl and is not covered here.
 */
#include <machine/pctr.h>
#include <machine/perfmon.h>
#include <sys/cpc_impl.h>
#include <sys/pfcntr.h>
#include "pmc_test_util.h"
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include "kselftest_harness.h"

#define ZONE_LEN	(4 * 4096)	/* read-write bytes before the PROT_NONE page */
#define GUARD		0xa7

static unsigned char *zc, *za;		/* the argument's zone, the array's zone */

static unsigned char *zone_new(void)
{
	unsigned char *z = mmap(NULL, ZONE_LEN + 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (z == MAP_FAILED || mprotect(z + ZONE_LEN, 4096, PROT_NONE))
		return NULL;
	return z;
}

static int zones(void)
{
	if (!zc)
		zc = zone_new();
	if (!za)
		za = zone_new();
	return zc && za ? 0 : -1;
}

/*
 * The first size - cut bytes of in, ending at the PROT_NONE page of zone z
 * (so cut bytes of the argument fall into it); the zone's other bytes are
 * guard bytes.
 */
static unsigned char *put(unsigned char *z, const void *in, size_t size, size_t cut)
{
	unsigned char *p = z + ZONE_LEN - (size - cut);

	memset(z, GUARD, ZONE_LEN);
	memcpy(p, in, size - cut);
	return p;
}

/* Every byte of zone z before p (and from p for n bytes) still a guard byte? */
static bool guarded(const unsigned char *z, const unsigned char *p, size_t n)
{
	const unsigned char *q;

	for (q = z; q < p + n; q++)
		if (*q != GUARD)
			return false;
	return true;
}

static int req(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static const char *ename(int e)
{
	return e ? strerror(e) : "success";
}

/*
 * Request cmd with the size-byte argument in at the end of the argument
 * zone, cut bytes short: the answer must be want (0 or an errno), with the
 * guard bytes before the argument intact.  The argument as the request
 * left it goes to out (if not NULL); rdonly: it must not have changed.
 */
static void one(struct __test_metadata *_metadata, const char *what, int fd,
		unsigned long cmd, const void *in, size_t size, size_t cut, int want,
		void *out, bool rdonly)
{
	unsigned char *p = put(zc, in, size, cut);
	int err = req(fd, cmd, p);

	EXPECT_EQ(want, err)
		TH_LOG("%s (%zu bytes, %zu in the PROT_NONE page): %s, not %s", what, size,
		       cut, ename(err), ename(want));
	EXPECT_TRUE(guarded(zc, p, 0)) TH_LOG("%s wrote before its argument", what);
	if (rdonly)
		EXPECT_EQ(0, memcmp(p, in, size - cut)) TH_LOG("%s wrote its argument", what);
	if (out)
		memcpy(out, p, size - cut);
}

/*
 * The argument fits: want.  One byte of it in the PROT_NONE page: EFAULT,
 * or for an error path the same error, found before reading that far.
 */
static void fits(struct __test_metadata *_metadata, const char *what, int fd,
		 unsigned long cmd, const void *in, size_t size, int want, void *out,
		 bool rdonly)
{
	unsigned char *p = put(zc, in, size, 1);
	int err = req(fd, cmd, p);

	EXPECT_TRUE(err == EFAULT || (want && err == want))
		TH_LOG("%s, a byte in the PROT_NONE page: %s, not %s", what, ename(err),
		       ename(EFAULT));
	EXPECT_TRUE(guarded(zc, p, 0)) TH_LOG("%s wrote before its argument", what);
	one(_metadata, what, fd, cmd, in, size, 0, want, out, rdonly);
}

#define FITS(fd, cmd, in, want, out) \
	fits(_metadata, #cmd, fd, cmd, &(in), sizeof(in), want, out, false)
#define FITS_RO(fd, cmd, in, want) \
	fits(_metadata, #cmd, fd, cmd, &(in), sizeof(in), want, NULL, true)
#define ONE_RO(fd, cmd, in, want) \
	one(_metadata, #cmd, fd, cmd, &(in), sizeof(in), 0, want, NULL, true)

/* A request without argument: the pointer it is given is not touched. */
static void no_arg(struct __test_metadata *_metadata, const char *what, int fd,
		   unsigned long cmd, int want)
{
	unsigned char z[16] = { 0 };

	one(_metadata, what, fd, cmd, z, sizeof(z), 0, want, NULL, true);
}

#define NO_ARG(fd, cmd, want) no_arg(_metadata, #cmd, fd, cmd, want)

#define NEED_SETUP() do {						\
	if (sizeof(void *) != 4)					\
		SKIP(return, "a 32-bit program's test");		\
	if (!have_fakepmu())						\
		SKIP(return, NO_FAKEPMU);			\
	ASSERT_EQ(0, zones());						\
} while (0)

/* ---- the guard zones themselves ------------------------------------------ */

TEST(guard_zones_catch_what_they_should)
{
	unsigned char in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, *p;
	struct utsname uts;
	ssize_t n;
	int fd;

	NEED_SETUP();
	/* A guard byte changed is seen. */
	p = put(zc, in, sizeof(in), 0);
	EXPECT_TRUE(guarded(zc, p, 0));
	p[-1] ^= 1;
	EXPECT_FALSE(guarded(zc, p, 0));
	/* The kernel's own copies meet the PROT_NONE page where we put it. */
	fd = open("/dev/zero", O_RDONLY);
	ASSERT_LE(0, fd);
	p = put(zc, in, sizeof(in), 0);
	EXPECT_EQ(8, read(fd, p, 8));
	p = put(zc, in, sizeof(in), 1);
	n = read(fd, p, 8);		/* up to the page (6.12), or nothing (6.1) */
	EXPECT_TRUE(n == 7 || (n == -1 && errno == EFAULT)) TH_LOG("read gave %zd", n);
	close(fd);
	p = put(zc, &uts, sizeof(uts), 0);
	EXPECT_EQ(0, syscall(SYS_uname, p));
	p = put(zc, &uts, sizeof(uts), 1);
	EXPECT_EQ(-1, syscall(SYS_uname, p));
	EXPECT_EQ(EFAULT, errno);
	/* The 32-bit sizes the requests declare. */
	EXPECT_EQ(56U, sizeof(struct pctrst));
	EXPECT_EQ(12U, sizeof(struct pmc_data));
	EXPECT_EQ(12U, sizeof(struct pmc_tstamp));
	EXPECT_EQ(12U, _IOC_SIZE(PMIOREAD));
	EXPECT_EQ(4U, _IOC_SIZE(PCNTGETCNT));
	EXPECT_EQ(4U, _IOC_SIZE(PCNT5GETCNTRS));
	EXPECT_EQ(8U, sizeof(union pmctrs_ev5));
	EXPECT_EQ(72U, sizeof(struct pfipls));
}

/* ---- /dev/pctr ------------------------------------------------------------ */

TEST(pctr)
{
	struct pctrst st, out;
	struct pctrst_1998 st98, out98;
	unsigned int fn = PCTR_U | PCTR_K | PCTR_EN | 0xc0, zero = 0;
	unsigned int refused = PCTR_U | PCTR_EN | 0x00080000 | 0xc0;
	int fd, ro, n;

	NEED_SETUP();
	fd = open(_PATH_PCTR, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", _PATH_PCTR, strerror(errno));
	ro = open(_PATH_PCTR, O_RDONLY);
	ASSERT_LE(0, ro);
	memset(&st, GUARD, sizeof(st));
	memset(&st98, GUARD, sizeof(st98));

	/* PCIOCSn: an unsigned int, read, never written. */
	FITS_RO(fd, PCIOCS0, fn, 0);
	FITS_RO(fd, PCIOCS1, zero, 0);
	FITS_RO(fd, PCIOCS3, fn, 0);
	FITS_RO(fd, PCIOCS2, refused, EINVAL);
	FITS_RO(ro, PCIOCS0, fn, EPERM);
	/* PCIOCS0 + 4 .. + 63: no such counter, after reading the word. */
	for (n = 4; n < 64; n += 59) {
		unsigned long cmd = _IOW('c', 8 + n, unsigned int);

		fits(_metadata, "PCIOCS0 + n", fd, cmd, &fn, sizeof(fn), EINVAL, NULL, true);
	}

	/* PCIOCRD: 56 bytes written, both forms. */
	FITS(fd, PCIOCRD, st, 0, &out);
	EXPECT_EQ(fn, out.pctr_fn[0]);
	EXPECT_EQ(0U, out.pctr_fn[1]);
	FITS(ro, PCIOCRD, st, 0, &out);
	FITS(fd, PCIOCRD_1998, st98, 0, &out98);
	EXPECT_EQ(fn, out98.pctr_fn[0]);
	/* Another request of group 'c': not a pctr request, nothing touched. */
	ONE_RO(fd, _IOR('c', 2, struct pctrst), st, ENOTTY);

	FITS_RO(fd, PCIOCS0, zero, 0);
	FITS_RO(fd, PCIOCS3, zero, 0);
	close(ro);
	close(fd);
}

/* ---- /dev/perfmon ------------------------------------------------------------ */

/* The 64-bit numbers, whose 16-byte structures a 32-bit program can pass too. */
#define PMIOREAD_64	_IOC(_IOC_READ | _IOC_WRITE, '5', 4, 16)
#define PMIOTSTAMP_64	_IOC(_IOC_READ, '5', 6, 16)

TEST(perfmon)
{
	struct pmc pmc = { .pmc_num = 0 }, pout;
	struct pmc_data d = { .pmcd_num = 0 }, dout;
	struct pmc_tstamp ts, tout;
	struct { int num; int pad; long long v; } d64 = { 0 }, d64out;
	unsigned char ts64[16];
	int fd, ro, n0 = 0, n1 = 1, n4 = 4, nneg = -1, tsc_err;

	NEED_SETUP();
	fd = open(_PATH_PERFMON, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", _PATH_PERFMON, strerror(errno));
	ro = open(_PATH_PERFMON, O_RDONLY);
	ASSERT_LE(0, ro);
	pmc.pmc_event = 0xc0;
	pmc.pmc_flags = PMCF_USR | PMCF_OS;

	/* Not set up yet: EBUSY after reading the number; bad numbers EINVAL. */
	FITS_RO(fd, PMIOSTART, n0, EBUSY);
	FITS_RO(fd, PMIOSTOP, n4, EINVAL);
	FITS_RO(fd, PMIORESET, nneg, EINVAL);
	memset(&d, GUARD, sizeof(d));
	d.pmcd_num = 0;
	FITS_RO(fd, PMIOREAD, d, EBUSY);
	d.pmcd_num = 7;
	FITS_RO(fd, PMIOREAD, d, EINVAL);
	d64.num = 0;
	FITS_RO(fd, PMIOREAD_64, d64, EBUSY);

	/* PMIOSETUP: 8 bytes read; the number first. */
	FITS_RO(ro, PMIOSETUP, pmc, EPERM);
	one(_metadata, "PMIOSETUP, number only", fd, PMIOSETUP, &pmc, sizeof(pmc), 4, EFAULT,
	    NULL, true);
	pmc.pmc_num = 4;
	FITS_RO(fd, PMIOSETUP, pmc, EINVAL);
	pmc.pmc_num = 0;
	FITS_RO(fd, PMIOSETUP, pmc, 0);
	FITS_RO(fd, PMIOSTART, n0, 0);
	FITS_RO(ro, PMIOSTART, n0, EPERM);

	/* PMIOGET: the number read, 8 bytes written. */
	memset(&pout, 0, sizeof(pout));
	FITS(ro, PMIOGET, pmc, 0, &pout);
	EXPECT_EQ(0, pout.pmc_num);
	EXPECT_EQ(pmc.pmc_val | (PMCF_EN << 16), pout.pmc_val);
	pmc.pmc_num = 1;
	FITS_RO(fd, PMIOGET, pmc, EBUSY);
	pmc.pmc_num = 9;
	FITS_RO(fd, PMIOGET, pmc, EINVAL);

	/* PMIOREAD: 12 bytes in a 32-bit program, the number read. */
	d.pmcd_num = 0;
	FITS(ro, PMIOREAD, d, 0, &dout);
	EXPECT_EQ(0, dout.pmcd_num);
	d.pmcd_num = 1;
	FITS_RO(fd, PMIOREAD, d, EBUSY);
	/* The 64-bit number: 16 bytes, as it says. */
	FITS(fd, PMIOREAD_64, d64, 0, &d64out);
	EXPECT_EQ(0, d64out.num);

	/* PMIOTSTAMP: 12 bytes written (ENOTTY only when the TSC rate is unknown). */
	memset(&ts, GUARD, sizeof(ts));
	tsc_err = req(fd, PMIOTSTAMP, &ts) ? errno : 0;
	EXPECT_TRUE(tsc_err == 0 || tsc_err == ENOTTY) TH_LOG("%s", ename(tsc_err));
	memset(&ts, GUARD, sizeof(ts));
	FITS(ro, PMIOTSTAMP, ts, tsc_err, &tout);
	if (!tsc_err)
		EXPECT_LT(0, tout.pmct_rate);
	memset(ts64, GUARD, sizeof(ts64));
	FITS(ro, PMIOTSTAMP_64, ts64, tsc_err, NULL);

	FITS_RO(fd, PMIOSTOP, n0, 0);
	FITS_RO(fd, PMIORESET, n0, 0);
	FITS_RO(fd, PMIOSTOP, n1, EBUSY);
	ONE_RO(fd, _IOW('5', 8, int), n0, ENOTTY);
	close(ro);
	close(fd);
}

/* ---- /dev/pfcntr ---------------------------------------------------------------- */

/* A "struct X *" request's 64-bit number (size 8), which the module takes too. */
#define NATIVE(cmd)	(((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) | (8 << _IOC_SIZESHIFT))

static int pf_mode_open(int mode)
{
	if (mode == PCNTOPENONE && pin_to_cpu(0))
		return -1;
	return open("/dev/pfcntr", O_RDONLY | mode);
}

static void pf_unpin(void)
{
	cpu_set_t all;
	int c;

	CPU_ZERO(&all);
	for (c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	sched_setaffinity(0, sizeof(all), &all);
}

/*
 * A "struct X *" request: its 4-byte pointer (cut bytes short) at the end
 * of the argument zone, pointing at room bytes at the end of the array
 * zone (cut_arr of them in the PROT_NONE page).  n entries of esize bytes
 * are what the open mode writes: want 0 (or werr), then the n entries
 * written, the rest of the room and the bytes before it untouched; EFAULT:
 * nothing written at all (pfm(7)).
 */
static void pf_array(struct __test_metadata *_metadata, const char *what, int fd,
		     unsigned long cmd, size_t n, size_t esize, size_t room, size_t cut_arr,
		     size_t cut_ptr, int want)
{
	unsigned char *a = za + ZONE_LEN - (room - cut_arr), *p;
	unsigned int ptr = (unsigned int)(uintptr_t)a;
	size_t k;
	int err;

	memset(za, GUARD, ZONE_LEN);
	p = put(zc, &ptr, sizeof(ptr), cut_ptr);
	err = req(fd, cmd, p);
	EXPECT_EQ(want, err)
		TH_LOG("%s: %zu entries of %zu into %zu bytes (%zu cut, ptr %zu cut): %s, not %s",
		       what, n, esize, room, cut_arr, cut_ptr, ename(err), ename(want));
	EXPECT_TRUE(guarded(zc, p, 0)) TH_LOG("%s wrote before its pointer", what);
	EXPECT_EQ(0, memcmp(p, &ptr, sizeof(ptr) - cut_ptr)) TH_LOG("%s wrote its pointer", what);
	if (err) {
		EXPECT_TRUE(guarded(za, a, room - cut_arr))
			TH_LOG("%s failed with %s but wrote into the array", what, ename(err));
		return;
	}
	EXPECT_TRUE(guarded(za, a, 0)) TH_LOG("%s wrote before its array", what);
	for (k = 0; k < n; k++)
		EXPECT_FALSE(guarded(a + k * esize, a + k * esize, esize))
			TH_LOG("%s left entry %zu of %zu unwritten", what, k, n);
	EXPECT_TRUE(guarded(a + n * esize, a + n * esize, room - n * esize))
		TH_LOG("%s wrote past its %zu entries", what, n);
}

/* Every way of placing one array request: fits, larger, short, bad pointer. */
static void pf_arrays(struct __test_metadata *_metadata, const char *what, int fd,
		      unsigned long cmd, size_t n, size_t esize, int want)
{
	size_t bytes = n * esize;
	unsigned char *p;
	int err;

	pf_array(_metadata, what, fd, cmd, n, esize, bytes, 0, 0, want);
	pf_array(_metadata, what, fd, cmd, n, esize, bytes + 2 * esize, 0, 0, want);
	/* The 64-bit number: the same 4-byte pointer (the module reads no more). */
	pf_array(_metadata, what, fd, NATIVE(cmd), n, esize, bytes, 0, 0, want);
	if (want)
		return;
	/* One byte of the last entry not writable: EFAULT, nothing written. */
	pf_array(_metadata, what, fd, cmd, n, esize, bytes, 1, 0, EFAULT);
	/* A whole entry too short (its last byte not writable either). */
	if (n > 1)
		pf_array(_metadata, what, fd, cmd, n, esize, bytes, esize, 0, EFAULT);
	/* The pointer itself cut short, or NULL. */
	pf_array(_metadata, what, fd, cmd, n, esize, bytes, 0, 1, EFAULT);
	p = put(zc, "\0\0\0\0", 4, 0);
	err = req(fd, cmd, p);
	EXPECT_EQ(EFAULT, err) TH_LOG("%s into NULL: %s", what, ename(err));
}

#define PF_ARRAYS(fd, cmd, n, type, want) \
	pf_arrays(_metadata, #cmd, fd, cmd, n, sizeof(type), want)

/* A long request (4 bytes in a 32-bit program, read only), and its 64-bit number. */
static void pf_lreq(struct __test_metadata *_metadata, const char *what, int fd,
		    unsigned long cmd, long v, int want)
{
	long long v64 = (unsigned long)v;

	fits(_metadata, what, fd, cmd, &v, sizeof(v), want, NULL, true);
	one(_metadata, what, fd, NATIVE(cmd), &v64, sizeof(v64), 0, want, NULL, true);
}

#define PF_LONG(fd, cmd, v, want) pf_lreq(_metadata, #cmd, fd, cmd, v, want)

/*
 * An image request: 8 bytes (pmctrs_ev5_long, pmctrs_ev6_long) in every
 * program, although its number says 4 in a 32-bit one (pfm(7)); a 4-byte
 * long ending at the PROT_NONE page faults.  GETCNTRS writes the 8 bytes.
 */
static void pf_image(struct __test_metadata *_metadata, const char *what, int fd,
		     unsigned long cmd, __u64 img, int want, __u64 *out)
{
	bool get = _IOC_NR(cmd) == 48 || _IOC_NR(cmd) == 58;

	one(_metadata, what, fd, cmd, &img, sizeof(img), 4, EFAULT, NULL, true);
	fits(_metadata, what, fd, cmd, &img, sizeof(img), want, out, !get || want);
	one(_metadata, what, fd, NATIVE(cmd), &img, sizeof(img), 0, want, NULL, !get || want);
}

#define PF_IMAGE(fd, cmd, img, want, out) pf_image(_metadata, #cmd, fd, cmd, img, want, out)

/* GETCNTRS: the image as written back keeps every bit outside the counters. */
static void image_kept(struct __test_metadata *_metadata, __u64 in, __u64 out, __u64 counters)
{
	EXPECT_EQ(in & ~counters, out & ~counters)
		TH_LOG("GETCNTRS changed bits outside the counters: %#llx -> %#llx",
		       (unsigned long long)in, (unsigned long long)out);
}

/* Each test runs once per open mode: n entries per array request. */
FIXTURE(pf) {
	int nr_ids;
	size_t n;
};

FIXTURE_VARIANT(pf) {
	int mode;
};

FIXTURE_VARIANT_ADD(pf, all) { .mode = PCNTOPENALL };
FIXTURE_VARIANT_ADD(pf, each) { .mode = PCNTOPENEACH };
FIXTURE_VARIANT_ADD(pf, one) { .mode = PCNTOPENONE };

FIXTURE_SETUP(pf)
{
	NEED_SETUP();
	self->nr_ids = count_possible_cpus();
	ASSERT_LT(0, self->nr_ids);
	self->n = variant->mode == PCNTOPENEACH ? (size_t)self->nr_ids : 1;
}

FIXTURE_TEARDOWN(pf)
{
	pf_unpin();
}

/* The _IO requests, long requests, EV4, and the count and IPL arrays. */
TEST_F_TIMEOUT(pf, requests, 300)
{
	__u64 iccsr = PFCNTR_ICCSR_IMAGE(0, 0, PF_CYCLES, PF_BRANCHMISS, 0);
	__u64 bad_iccsr = PFCNTR_ICCSR_IMAGE(0, 0, PF_CYCLES, PF_BRANCHMISS, 3);
	size_t n = self->n;
	unsigned int rsize;
	int fd;

	fd = pf_mode_open(variant->mode);
	ASSERT_LE(0, fd) TH_LOG("mode %#o: %s", variant->mode, strerror(errno));

	/* Family still open: every count request answers. */
	PF_ARRAYS(fd, PCNTGETCNT, n, struct pfcntrs, 0);
	PF_ARRAYS(fd, PCNT5GETCNT, n, struct pfcntrs_ev5, 0);
	PF_ARRAYS(fd, PCNT5READCNTRS, n, struct pfcntrs_ev5, 0);
	PF_ARRAYS(fd, PCNT6GETCNT, n, struct pfcntrs_ev6, 0);
	PF_ARRAYS(fd, PCNT6READCNTRS, n, struct pfcntrs_ev6, 0);
	/* No IPL histogram asked for: EINVAL, nothing written. */
	PF_ARRAYS(fd, PCNTGETIPLHIS, n, struct pfipls, EINVAL);

	PF_LONG(fd, PCNTSETITEMS, 0, EINVAL);
	PF_LONG(fd, PCNTSETITEMS, 0x100, EINVAL);	/* profile-me: refused */
	PF_LONG(fd, PCNTSETITEMS, PFM_IPL, 0);
	PF_ARRAYS(fd, PCNTGETIPLHIS, n, struct pfipls, 0);
	/* No counters asked for: EINVAL, nothing written. */
	PF_ARRAYS(fd, PCNT6GETCNT, n, struct pfcntrs_ev6, EINVAL);
	PF_LONG(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_IPL, 0);

	/* EV4: an 8-byte iccsr, read only; then EV5's and EV6's requests are EINVAL. */
	FITS_RO(fd, PCNTSETMUX, bad_iccsr, EINVAL);
	FITS_RO(fd, PCNTSETMUX, iccsr, 0);
	NO_ARG(fd, PCNTRENABLE, 0);
	PF_ARRAYS(fd, PCNTGETCNT, n, struct pfcntrs, 0);
	PF_ARRAYS(fd, PCNT5GETCNT, n, struct pfcntrs_ev5, EINVAL);
	PF_ARRAYS(fd, PCNT6READCNTRS, n, struct pfcntrs_ev6, EINVAL);
	PF_LONG(fd, PCNT5MUX, PF5_MUX0_ISSUES, EINVAL);
	PF_LONG(fd, PCNT6MUX, PF6_MUX0_CYCLES, EINVAL);
	PF_IMAGE(fd, PCNT5ENABLE, PFCNTR_EV5_IMAGE(7, PMCTRS_ALL_CPUS, 0, 0, 0), EINVAL,
		 NULL);

	/* The requests without argument touch nothing. */
	NO_ARG(fd, PCNTCLEARCNT, 0);
	NO_ARG(fd, PCNTRDISABLE, 0);
	NO_ARG(fd, PCNTLOGSELECT, 0);
	NO_ARG(fd, PCNTCLEARPCBPME, 0);
	NO_ARG(fd, PCNTLOGALL, 0);
	NO_ARG(fd, PCNTCALLER, EINVAL);		/* kernel profiling is not on */
	NO_ARG(fd, _IO('P', 9), EINVAL);	/* unknown: Tru64's EINVAL */
	NO_ARG(fd, _IO('Q', 1), ENOTTY);

	/* PCNTGETRSIZE: 4 bytes written, 0 without a profile. */
	rsize = 0x5a5a5a5a;
	FITS(fd, PCNTGETRSIZE, rsize, 0, &rsize);
	EXPECT_EQ(0U, rsize);
	close(fd);
}

/* EV5 and EV6: their long requests and counter images. */
TEST_F_TIMEOUT(pf, images, 300)
{
	int cpu = variant->mode == PCNTOPENONE ? 0 : 1 % self->nr_ids, fd;
	size_t n = self->n;
	__u64 out, img;

	fd = pf_mode_open(variant->mode);
	ASSERT_LE(0, fd) TH_LOG("mode %#o: %s", variant->mode, strerror(errno));
	PF_LONG(fd, PCNT5CTXTS, 0x1000, EINVAL);
	PF_LONG(fd, PCNT5CTXTS, PF5_CTXT_ALL_PROC | PF5_CTXT_EXEC_AND_SUPER, 0);
	PF_LONG(fd, PCNT5MUX, PF5_MUX0_ISSUES | PF5_MUX1_FLOW_CHANGE |
		PF5_MUX2_C_BRANCH_MISPREDICTS, 0);
	PF_LONG(fd, PCNT5FREQ, PF5_C0_INT_EVERY_65536 | PF5_C2_INT_EVERY_16384, 0);
	img = PFCNTR_EV5_IMAGE(7, PMCTRS_ALL_CPUS, 0, 0, 0);
	PF_IMAGE(fd, PCNT5RESTART, img, 0, NULL);
	PF_IMAGE(fd, PCNT5DISABLE, img, 0, NULL);
	PF_IMAGE(fd, PCNT5ENABLE, img, 0, NULL);
	PF_IMAGE(fd, PCNT5CLEAR, img, 0, NULL);
	PF_IMAGE(fd, PCNT5SETCNTRS, PFCNTR_EV5_IMAGE(7, PMCTRS_ALL_CPUS, 5, 6, 7), 0, NULL);
	PF_IMAGE(fd, PCNT5ENABLE, PFCNTR_EV5_IMAGE(7, 200, 0, 0, 0), EINVAL, NULL);
	/* GETCNTRS: one CPU; the 8 bytes written, the bits outside the counters kept. */
	img = PFCNTR_EV5_IMAGE(5, cpu, 0, 0, 0) | (0x3ULL << 30) | (0x18ULL << 3);
	PF_IMAGE(fd, PCNT5GETCNTRS, img, 0, &out);
	image_kept(_metadata, img, out,
		   (0xffffULL << 48) | (0xffffULL << 32) | (0x3fffULL << 16));
	PF_IMAGE(fd, PCNT5GETCNTRS, PFCNTR_EV5_IMAGE(7, PMCTRS_ALL_CPUS, 0, 0, 0),
		 variant->mode == PCNTOPENONE ? 0 : EINVAL, NULL);
	PF_ARRAYS(fd, PCNT5GETCNT, n, struct pfcntrs_ev5, 0);
	PF_ARRAYS(fd, PCNT5READCNTRS, n, struct pfcntrs_ev5, 0);
	/* EV5 counts now: EV6's requests are EINVAL. */
	PF_IMAGE(fd, PCNT6GETCNTRS, PFCNTR_EV6_IMAGE(3, cpu, 0, 0), EINVAL, NULL);
	PF_LONG(fd, PCNT6MUX, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_RET_COND_BRANCHES,
		EINVAL);
	close(fd);

	fd = pf_mode_open(variant->mode);
	ASSERT_LE(0, fd);
	PF_LONG(fd, PCNT6MUX, PF6_MUX0_RET_INSTRUCTIONS | PF6_MUX1_RET_COND_BRANCHES, 0);
	img = PFCNTR_EV6_IMAGE(3, PMCTRS_ALL_CPUS, 0, 0);
	PF_IMAGE(fd, PCNT6RESTART, img, 0, NULL);
	PF_IMAGE(fd, PCNT6DISABLE, img, 0, NULL);
	PF_IMAGE(fd, PCNT6ENABLE, img, 0, NULL);
	PF_IMAGE(fd, PCNT6CLEAR, img, 0, NULL);
	PF_IMAGE(fd, PCNT6SETCNTRS, PFCNTR_EV6_IMAGE(3, PMCTRS_ALL_CPUS, 9, 10), 0, NULL);
	PF_IMAGE(fd, PCNT6ENABWRITE, PFCNTR_EV6_IMAGE(3, PMCTRS_ALL_CPUS, 1, 2), 0, NULL);
	PF_IMAGE(fd, PCNT6DISABLE, PFCNTR_EV6_IMAGE(3, 200, 0, 0), EINVAL, NULL);
	img = PFCNTR_EV6_IMAGE(2, cpu, 0, 0) | (0xfULL << 2) | (0x3ULL << 26) |
	      (0x7fULL << 48);
	PF_IMAGE(fd, PCNT6GETCNTRS, img, 0, &out);
	image_kept(_metadata, img, out, (0xfffffULL << 28) | (0xfffffULL << 6));
	PF_ARRAYS(fd, PCNT6GETCNT, n, struct pfcntrs_ev6, 0);
	PF_ARRAYS(fd, PCNT6READCNTRS, n, struct pfcntrs_ev6, 0);
	PF_ARRAYS(fd, PCNTGETCNT, n, struct pfcntrs, EINVAL);
	close(fd);
}

/* PC profiling: the address ranges (read only) and the profile's size. */
TEST_F_TIMEOUT(pf, profile_ranges, 300)
{
	struct addr_range ua = { 0x400000, 0x401000 };
	struct addr_range ka = { 0xffffffff81000000ULL, 0xffffffff81001000ULL };
	addr_range_t ur = { 0x400000, 0x402000, 8, 0 }, bad = { 0x400000, 0x401000, 4, 1 };
	addr_range_t kr = { 0xffffffff81000000ULL, 0xffffffff81001000ULL, 4, 0 };
	size_t n = self->n;
	unsigned int rsize;
	int fd, caller;

	fd = pf_mode_open(variant->mode);
	ASSERT_LE(0, fd) TH_LOG("mode %#o: %s", variant->mode, strerror(errno));
	/* Not open for profiling: EINVAL once the state is seen. */
	FITS_RO(fd, PCNTSETUADDR, ua, EINVAL);
	PF_LONG(fd, PCNTSETITEMS, PFM_COUNTERS | PFM_PROFILING, 0);
	FITS_RO(fd, PCNTSETUADDR, ua, 0);
	rsize = 0;
	FITS(fd, PCNTGETRSIZE, rsize, 0, &rsize);
	EXPECT_EQ(0x1000 / 4 * n, rsize);
	FITS_RO(fd, PCNTSETURANGE, ur, 0);
	FITS_RO(fd, PCNTSETURANGE, bad, EINVAL);
	FITS_RO(fd, PCNTSETKADDR, ka, 0);
	FITS_RO(fd, PCNTSETKRANGE, kr, 0);
	/* On: needs the ORC unwinder (EOPNOTSUPP without). */
	caller = ioctl(fd, PCNTCALLER, NULL) ? errno : 0;
	EXPECT_TRUE(caller == 0 || caller == EOPNOTSUPP) TH_LOG("%s", ename(caller));
	NO_ARG(fd, PCNTCALLER, caller);
	/* A user range as a kernel one: the module's own EFAULT, read in full. */
	ONE_RO(fd, PCNTSETKADDR, ua, EFAULT);
	/* A SETUADDR reads 16 bytes, not the 32 of SETURANGE: stride 4 kept. */
	one(_metadata, "PCNTSETUADDR of an addr_range_t", fd, PCNTSETUADDR, &ur,
	    sizeof(struct addr_range), 0, 0, NULL, true);
	FITS(fd, PCNTGETRSIZE, rsize, 0, &rsize);
	EXPECT_EQ(0x2000 / 16 * 4 * n, rsize);
	close(fd);
}

/* ---- /dev/cpc ---------------------------------------------------------------------- */

struct cpc_bind_big {
	struct pmc_cpc_bind b;
	__u64 tail;		/* a newer program's field, zero */
};

/*
 * PMC_CPC_BIND (size bytes at b) with nreqs requests in room (in entries)
 * at the end of the array zone (cut bytes of it in the PROT_NONE page):
 * want; the requests read, never written; the result in *out.
 */
static void cpc_bind_sized(struct __test_metadata *_metadata, const char *what, int fd,
			   void *b, size_t size, const struct pmc_cpc_request *r,
			   unsigned int room, size_t cut, int want, void *out)
{
	size_t bytes = room * sizeof(*r) - cut;
	unsigned char *a = za + ZONE_LEN - bytes;
	__u64 reqs = (uintptr_t)a;

	memset(za, GUARD, ZONE_LEN);
	memcpy(a, r, bytes);
	memcpy((char *)b + offsetof(struct pmc_cpc_bind, reqs), &reqs, sizeof(reqs));
	one(_metadata, what, fd, PMC_CPC_BIND, b, size, 0, want, out, false);
	EXPECT_TRUE(guarded(za, a, 0)) TH_LOG("%s wrote before its requests", what);
	EXPECT_EQ(0, memcmp(a, r, bytes)) TH_LOG("%s wrote its requests", what);
}

static void cpc_bind(struct __test_metadata *_metadata, const char *what, int fd,
		     struct pmc_cpc_bind *b, const struct pmc_cpc_request *r,
		     unsigned int room, size_t cut, int want, struct pmc_cpc_bind *out)
{
	cpc_bind_sized(_metadata, what, fd, b, sizeof(*b), r, room, cut, want, out);
}

/*
 * PMC_CPC_SAMPLE into nvals values at the end of the array zone (cut bytes
 * of them in the PROT_NONE page): want; on success exactly nreqs values
 * written, the rest of the array untouched; on failure nothing.
 */
static void cpc_sample(struct __test_metadata *_metadata, const char *what, int fd,
		       __u32 id, unsigned int nvals, size_t cut, unsigned int nreqs,
		       int want, struct pmc_cpc_sample *out)
{
	struct pmc_cpc_sample s = { .size = sizeof(s), .id = id, .nvals = nvals };
	size_t bytes = nvals * sizeof(__u64) - cut;
	unsigned char *a = za + ZONE_LEN - bytes;

	memset(za, GUARD, ZONE_LEN);
	s.vals = (uintptr_t)a;
	memset(&s.hrtime, GUARD, 2 * sizeof(__u64));
	one(_metadata, what, fd, PMC_CPC_SAMPLE, &s, sizeof(s), 0, want, out, want != 0);
	EXPECT_TRUE(guarded(za, a, 0)) TH_LOG("%s wrote before its values", what);
	/* EFAULT: the values that fit may have been written (copy_to_user). */
	if (want && want != EFAULT)
		EXPECT_TRUE(guarded(a, a, bytes)) TH_LOG("%s failed but wrote values", what);
	if (want)
		return;
	EXPECT_TRUE(guarded(a + nreqs * 8, a + nreqs * 8, bytes - nreqs * 8))
		TH_LOG("%s wrote past its %u values", what, nreqs);
	EXPECT_EQ(nreqs, out->nvals);
}

TEST(cpc)
{
	struct pmc_cpc_info info = { .size = sizeof(info) }, iout;
	struct { struct pmc_cpc_info i; __u32 tail[4]; } ibig = { { .size = sizeof(ibig) } };
	struct pmc_cpc_request r[PMC_CPC_MAX_REQS + 1];
	struct pmc_cpc_bind b, bout;
	struct cpc_bind_big bb;
	struct pmc_cpc_sample sout;
	struct pmc_cpc_preset pr = { .size = sizeof(pr) };
	__u32 id, bad_id = 77;
	int fd, i;

	NEED_SETUP();
	fd = open(PMC_CPC_PATH, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", PMC_CPC_PATH, strerror(errno));

	/* PMC_CPC_INFO: the size read, 32 bytes written; a newer tail kept. */
	FITS(fd, PMC_CPC_INFO, info, 0, &iout);
	EXPECT_EQ(sizeof(info), iout.size);
	EXPECT_EQ((__u32)PMC_CPC_ABI_VERSION, iout.abi_version);
	FITS(fd, PMC_CPC_INFO, ibig, 0, &ibig);
	EXPECT_EQ(0U, ibig.tail[0] | ibig.tail[1] | ibig.tail[2] | ibig.tail[3]);
	ibig.i.size = sizeof(ibig);
	ibig.tail[3] = 1;
	FITS_RO(fd, PMC_CPC_INFO, ibig, E2BIG);
	info.size = sizeof(info) - 1;
	FITS_RO(fd, PMC_CPC_INFO, info, EINVAL);
	info.size = 4097;
	FITS_RO(fd, PMC_CPC_INFO, info, EINVAL);
	/* A declared size larger than the memory given: the tail faults. */
	info.size = sizeof(info) + 8;
	ONE_RO(fd, PMC_CPC_INFO, info, EFAULT);

	for (i = 0; i <= PMC_CPC_MAX_REQS; i++)
		cpc_req(&r[i], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CPC_COUNT_USER, 0, i);
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.scope = PMC_CPC_BIND_CURLWP;

	/* Bind errors: the requests read (or not), the result written back or not. */
	b.nreqs = 2;
	cpc_bind(_metadata, "BIND, one request short", fd, &b, r, 2, sizeof(r[0]), EFAULT, NULL);
	cpc_bind(_metadata, "BIND, a byte short", fd, &b, r, 2, 1, EFAULT, NULL);
	b.nreqs = PMC_CPC_MAX_REQS + 1;
	cpc_bind(_metadata, "BIND of 9", fd, &b, r, 9, 0, EINVAL, &bout);
	EXPECT_EQ(CPC_RESOURCE_UNAVAIL, bout.subcode);
	b.nreqs = 1;
	r[0].type = 42;
	cpc_bind(_metadata, "BIND of a bad type", fd, &b, r, 1, 0, EINVAL, &bout);
	EXPECT_EQ(CPC_INVALID_EVENT, bout.subcode);
	r[0].type = PERF_TYPE_SOFTWARE;
	b.size = sizeof(b) - 4;
	cpc_bind(_metadata, "BIND of a short size", fd, &b, r, 1, 0, EINVAL, &bout);
	EXPECT_EQ(0, memcmp(&b, &bout, sizeof(b)));
	b.size = sizeof(b);
	b.scope = PMC_CPC_BIND_PCTX;
	b.pid = 0;
	cpc_bind(_metadata, "BIND of pid 0", fd, &b, r, 1, 0, ESRCH, &bout);
	EXPECT_EQ(-1, bout.subcode);
	b.scope = PMC_CPC_BIND_CURLWP;
	one(_metadata, "BIND, the structure a byte short", fd, PMC_CPC_BIND, &b, sizeof(b), 1,
	    EFAULT, NULL, true);

	/* Nothing bound: a sample is EINVAL, nothing written. */
	cpc_sample(_metadata, "SAMPLE unbound", fd, 0, 2, 0, 2, EINVAL, &sout);

	/* A bind of two requests: the 56 bytes written, nothing else. */
	b.nreqs = 2;
	cpc_bind(_metadata, "BIND of 2", fd, &b, r, 2, 0, 0, &bout);
	EXPECT_EQ(-1, bout.subcode);
	EXPECT_EQ(0U, bout.id);
	/* A newer program's larger structure: its tail is read, not written. */
	memset(&bb, 0, sizeof(bb));
	bb.b = b;
	bb.b.size = sizeof(bb);
	cpc_bind_sized(_metadata, "BIND of 2, larger structure", fd, &bb, sizeof(bb), r, 2, 0,
		       0, &bb);
	EXPECT_EQ(0U, bb.tail);
	EXPECT_EQ(-1, bb.b.subcode);
	bb.b.size = sizeof(bb);
	bb.tail = 1;
	cpc_bind_sized(_metadata, "BIND of 2, larger structure, non-zero tail", fd, &bb,
		       sizeof(bb), r, 2, 0, E2BIG, NULL);

	/* SAMPLE: nvals entries given, nreqs written, the rest kept. */
	cpc_sample(_metadata, "SAMPLE into 2", fd, 0, 2, 0, 2, 0, &sout);
	cpc_sample(_metadata, "SAMPLE into 5", fd, 0, 5, 0, 2, 0, &sout);
	cpc_sample(_metadata, "SAMPLE into 1", fd, 0, 1, 0, 2, EINVAL, &sout);
	cpc_sample(_metadata, "SAMPLE into 2, a byte short", fd, 0, 2, 1, 2, EFAULT, &sout);
	cpc_sample(_metadata, "SAMPLE of no such id", fd, bad_id, 2, 0, 2, EINVAL, &sout);
	{
		struct pmc_cpc_sample s = { .size = sizeof(s) - 1, .nvals = 2 };

		FITS_RO(fd, PMC_CPC_SAMPLE, s, EINVAL);
		s.size = sizeof(s);
		s.reserved = 1;
		FITS_RO(fd, PMC_CPC_SAMPLE, s, EINVAL);
	}

	/* PRESET: read only. */
	pr.index = 1;
	pr.preset = 1000;
	FITS_RO(fd, PMC_CPC_PRESET, pr, 0);
	pr.index = 2;
	FITS_RO(fd, PMC_CPC_PRESET, pr, EINVAL);
	pr.index = 0;
	pr.id = bad_id;
	FITS_RO(fd, PMC_CPC_PRESET, pr, EINVAL);

	/* The id requests: 4 bytes read, never written. */
	id = 0;
	FITS_RO(fd, PMC_CPC_DISABLE, id, 0);
	FITS_RO(fd, PMC_CPC_ENABLE, id, 0);
	FITS_RO(fd, PMC_CPC_RESTART, id, 0);
	FITS_RO(fd, PMC_CPC_DISABLE, bad_id, EINVAL);
	FITS_RO(fd, PMC_CPC_RESTART, bad_id, EINVAL);
	FITS_RO(fd, PMC_CPC_ENABLE, bad_id, EINVAL);
	FITS_RO(fd, PMC_CPC_RELE, bad_id, EINVAL);

	/* A CPU binding: its id written with the result. */
	ASSERT_EQ(0, pin_to_cpu(0));
	b.scope = PMC_CPC_BIND_CPU;
	b.cpu = 0;
	b.nreqs = 1;
	cpc_bind(_metadata, "BIND of CPU 0", fd, &b, r, 1, 0, 0, &bout);
	id = bout.id;
	EXPECT_NE(0U, id);
	cpc_sample(_metadata, "SAMPLE of CPU 0", fd, id, 1, 0, 1, 0, &sout);
	cpc_sample(_metadata, "SAMPLE of CPU 0 into 3", fd, id, 3, 0, 1, 0, &sout);
	FITS_RO(fd, PMC_CPC_DISABLE, id, 0);
	FITS_RO(fd, PMC_CPC_RESTART, id, 0);
	FITS_RO(fd, PMC_CPC_RELE, id, 0);
	FITS_RO(fd, PMC_CPC_RELE, id, EINVAL);
	pf_unpin();

	/* Another request of the group: ENOTTY, nothing touched. */
	ONE_RO(fd, _IOW(PMC_CPC_IOC_MAGIC, 9, __u32), id, ENOTTY);
	id = 0;
	FITS_RO(fd, PMC_CPC_RELE, id, 0);
	close(fd);
}

TEST_HARNESS_MAIN
