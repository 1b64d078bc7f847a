// SPDX-License-Identifier: GPL-2.0
/*
 * uprofile-hot-example CPU FILE: a small program with two hot functions,
 * for uprofile_test and "make demo".  It pins itself to CPU, writes the
 * run-time addresses of hot_a and hot_b and its pid to FILE:
 *
 *	hot_a 0x55d0c4a2f1a0
 *	hot_b 0x55d0c4a2f1e0
 *	pid 123
 *	libc 0x7f5e3c8e1230
 *	hotlib 0x7f5e3c9a2100
 *
 * (libc: the address of getpid() in the C library; hotlib: hot_lib() of
 * the shared library libuprofile-hot-example, which is this file built
 * with UPROFILE_HOT_LIB), and calls them in a loop until SIGUSR1, then
 * exits 0.  Built with -O0, its functions keep their symbols; each starts
 * on a 16-byte boundary.  uprofile-hot-stripped-example is the program
 * stripped, its symbols in uprofile-hot-debug-example (.gnu_debuglink).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef UPROFILE_HOT_LIB
/* The shared library's hot function. */
__attribute__((noinline, aligned(16))) unsigned long hot_lib(unsigned long x)
{
	unsigned long i;

	for (i = 0; i < 500; i++)
		x = x * 31 + i;
	return x;
}
#else
unsigned long hot_lib(unsigned long x);

static volatile sig_atomic_t stop;
static volatile unsigned long sink;

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

__attribute__((noinline, aligned(16))) void hot_a(void)
{
	unsigned long i;

	for (i = 0; i < 3000; i++)
		sink += i;
}

__attribute__((noinline, aligned(16))) void hot_b(void)
{
	unsigned long i;

	for (i = 0; i < 1000; i++)
		sink ^= i;
}

int main(int argc, char **argv)
{
	char tmp[4096];
	cpu_set_t set;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: uprofile-hot-example cpu file\n");
		return 2;
	}
	signal(SIGUSR1, on_usr1);
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		return 1;
	}
	fprintf(f, "hot_a %p\nhot_b %p\npid %d\nlibc %p\nhotlib %p\n", (void *)hot_a,
		(void *)hot_b, (int)getpid(), (void *)getpid, (void *)hot_lib);
	if (fclose(f) || rename(tmp, argv[2])) {
		perror(argv[2]);
		return 1;
	}
	while (!stop) {
		hot_a();
		hot_b();
		sink += hot_lib(sink);
	}
	return 0;
}
#endif
