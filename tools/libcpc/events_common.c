// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libcpc event naming, the parts every architecture shares (events.c on
 * x86, events_arm64.c on arm64): the Linux software events, the messages
 * of the CPC_* subcodes, the attribute-list lookup and raw codes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>
#include <sys/cpc_impl.h>

#include "events.h"

#define ARRAY_LEN(a)		(sizeof(a) / sizeof((a)[0]))

struct sw_event {
	const char *name;
	uint64_t config;
};

/* Linux software events: listed with the platform events. */
static const struct sw_event sw_events[] = {
	{ "sw_cpu_clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "sw_task_clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "sw_page_faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "sw_context_switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "sw_cpu_migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "sw_minor_faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "sw_major_faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
};

void cpcev_sw_walk(void (*fn)(void *arg, const char *name), void *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(sw_events); i++)
		fn(arg, sw_events[i].name);
}

int cpcev_sw_find(const char *name, struct cpcev_perf *out)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(sw_events); i++) {
		if (strcmp(sw_events[i].name, name))
			continue;
		if (out) {
			out->type = PERF_TYPE_SOFTWARE;
			out->config = sw_events[i].config;
		}
		return 1;
	}
	return 0;
}

int cpcev_software(const char *event)
{
	return cpcev_sw_find(event, NULL);
}

static const char *const errstr[] = {
	[CPC_INVALID_EVENT] = "Unknown event\n",
	[CPC_INVALID_PICNUM] = "Invalid counter number\n",
	[CPC_INVALID_ATTRIBUTE] = "Unknown attribute\n",
	[CPC_ATTRIBUTE_OUT_OF_RANGE] = "Attribute out of range\n",
	[CPC_RESOURCE_UNAVAIL] = "Hardware resource unavailable\n",
	[CPC_PIC_NOT_CAPABLE] = "Counter cannot count requested event\n",
	[CPC_REQ_INVALID_FLAGS] = "Invalid flags in a request\n",
	[CPC_CONFLICTING_REQS] = "Requests conflict with each other\n",
	[CPC_ATTR_REQUIRES_PRIVILEGE] = "Attribute requires the cpc_cpu privilege\n",
	[CPC_PBIND_FAILED] = "Couldn't bind LWP to requested processor\n",
	[CPC_HV_NO_ACCESS] = "Hypervisor event access denied\n",
};

const char *cpcev_errstr(int subcode)
{
	if (subcode <= 0 || subcode >= (int)ARRAY_LEN(errstr))
		return NULL;
	return errstr[subcode];
}

int cpcev_attr_known(const struct cpcev_cpu *cpu, const char *attr)
{
	const char *p = cpcev_attr_list(cpu);
	size_t n = strlen(attr);

	if (!n)
		return 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, attr, n))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* A raw numeric code: 1 and *code if the whole string parses. */
int cpcev_parse_code(const char *s, long *code)
{
	char *end;

	if (!*s)
		return 0;
	errno = 0;
	*code = strtol(s, &end, 0);
	return !errno && *end == '\0';
}

/*
 * libpfm4's setup reads the whole of its tables: half a millisecond on a
 * real machine, seconds on an emulated one, in every process.  A handle
 * needs it only for platform names and lists, so it is done on first use
 * (cpcev_cpu_pfm(), each architecture's own lookup).
 */
static pthread_mutex_t pfm_lazy_lock = PTHREAD_MUTEX_INITIALIZER;

void cpcev_cpu_pfm_lazy(struct cpcev_cpu *cpu)
{
	cpu->pfm_pmu = 0;
	cpu->pfm_name[0] = '\0';
	cpu->pfm_lazy = 1;
}

/* Is there a libpfm4 table for cpu (looked up now if it was left for later)? */
int cpcev_pfm_ready(const struct cpcev_cpu *cpu)
{
	/* The handle's own description, written once, under the lock. */
	struct cpcev_cpu *c = (struct cpcev_cpu *)cpu;

	pthread_mutex_lock(&pfm_lazy_lock);
	if (c->pfm_lazy) {
		cpcev_cpu_pfm(c);
		c->pfm_lazy = 0;
	}
	pthread_mutex_unlock(&pfm_lazy_lock);
	return c->pfm_pmu != 0;
}
