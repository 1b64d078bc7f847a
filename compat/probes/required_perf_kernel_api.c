// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel perf API the counter core is built on, in the form it has
 * had from 5.8 to today.
 *
 * pmc-probe-required: the in-kernel perf_events API of the counter core, exported to GPL modules
 * pmc-probe-export: perf_event_create_kernel_counter
 * pmc-probe-export: perf_event_release_kernel
 * pmc-probe-export: perf_event_read_value
 * pmc-probe-export: perf_event_enable
 * pmc-probe-export: perf_event_disable
 * pmc-probe-export: perf_event_period
 * pmc-probe-export: perf_event_refresh
 */
#include <linux/perf_event.h>

static void pmc_probe_overflow(struct perf_event *event, struct perf_sample_data *data,
			       struct pt_regs *regs)
{
}

u64 pmc_probe(struct perf_event_attr *attr, struct task_struct *task);
u64 pmc_probe(struct perf_event_attr *attr, struct task_struct *task)
{
	perf_overflow_handler_t handler = pmc_probe_overflow;
	struct perf_event *event;
	u64 enabled, running, value;

	event = perf_event_create_kernel_counter(attr, -1, task, handler, NULL);
	if (IS_ERR(event))
		return 0;
	perf_event_enable(event);
	value = perf_event_read_value(event, &enabled, &running);
	perf_event_disable(event);
	if (perf_event_period(event, 1000) || perf_event_refresh(event, 1))
		value = 0;
	perf_event_release_kernel(event);
	return value;
}
