// SPDX-License-Identifier: GPL-2.0
/*
 * fakepmu: injection and its NMI (see the header comment of fakepmu_main.c),
 * and the counter update that the NMI may interrupt.
 *
 * A write to the inject file takes fakepmu_inject_lock, publishes the
 * request in fakepmu_req and sets the target CPU's nmi_pending with release
 * semantics; the NMI_LOCAL handler claims an NMI only when its CPU's flag is
 * set (acquire), counts, stores its result and clears the flag (release);
 * the writer waits for that (acquire).  async=0 raises the NMI on the target
 * itself, from a function call IPI that spins with interrupts off, so it
 * lands there; async=1 sends it from the writer's CPU and it lands in
 * whatever the target runs, pmu::read/add/del/start/stop and perf's context
 * switch included.  That is safe because the handler touches only counters
 * whose bit is set in fakepmu_cpu::active and updates counts as
 * x86_perf_event_update() does (cmpxchg on prev_count).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/processor.h>
#include <asm/segment.h>

#include "fakepmu.h"
#include "inject_parse.h"

/* How long an injection waits for its NMI. */
#define FAKEPMU_NMI_WAIT_US	1000000

/*
 * Fold the counter register into the 64-bit perf count.  The NMI may land
 * anywhere in here and move both hw[] and prev_count (a wrap reprograms the
 * counter): the cmpxchg then fails and the read is done again, so each
 * delta is added exactly once, by whoever moved prev_count past it.
 */
void fakepmu_update(struct fakepmu_cpu *fc, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 prev, now, delta;

	/* local64_cmpxchg, as before 6.2's local64_try_cmpxchg (same meaning). */
	do {
		prev = local64_read(&hwc->prev_count);
		now = READ_ONCE(fc->hw[hwc->idx]);
	} while (local64_cmpxchg(&hwc->prev_count, prev, now) != prev);

	delta = (now - prev) & FAKEPMU_MASK;
	local64_add(delta, &event->count);
	local64_sub(delta, &hwc->period_left);
}

/* Counters an injection advanced, over all injections. */
static atomic_t fakepmu_applied = ATOMIC_INIT(0);
/* Injection NMIs that interrupted kernel code (process context or other). */
static atomic_t fakepmu_nmi_in_kernel = ATOMIC_INIT(0);

static DEFINE_MUTEX(fakepmu_inject_lock);
static struct fakepmu_inject fakepmu_req;	/* under fakepmu_inject_lock */

static bool fakepmu_admits(struct perf_event *event, const struct fakepmu_inject *req)
{
	if (fakepmu_inject_code(event->hw.config) != req->event)
		return false;
	return req->kernel ? !event->attr.exclude_kernel : !event->attr.exclude_user;
}

/* Advance one running counter by count, taking every wrap as a PMI. */
static void fakepmu_advance(struct fakepmu_cpu *fc, struct perf_event *event,
			    u64 count, struct pt_regs *regs)
{
	struct hw_perf_event *hwc = &event->hw;
	struct perf_sample_data data;
	int idx = hwc->idx;

	while (count && test_bit(idx, fc->active)) {
		u64 hw = READ_ONCE(fc->hw[idx]);
		u64 to_wrap = (1ULL << FAKEPMU_WIDTH) - hw;
		u64 step = min(count, to_wrap);

		WRITE_ONCE(fc->hw[idx], (hw + step) & FAKEPMU_MASK);
		count -= step;
		if (step < to_wrap)
			break;

		/* The counter wrapped: the PMI is being handled. */
		fakepmu_update(fc, event);
		if (!fakepmu_set_period(fc, event) || !is_sampling_event(event))
			continue;
		/* BTS records into a buffer: no overflow handler call. */
		if ((hwc->flags & FAKEPMU_F_BTS) && hwc->sample_period == 1)
			continue;
		perf_sample_data_init(&data, 0, hwc->last_period);
		if (in_nmi())
			atomic_inc(&fakepmu_nmi_overflows);
		/* Throttled: stopped until perf's tick restarts it. */
		if (fakepmu_overflow(event, &data, regs))
			fakepmu_stop(event, 0);
	}
}

/* The PMI: count what was injected on this CPU. */
static void fakepmu_count(struct fakepmu_cpu *fc, const struct fakepmu_inject *req)
{
	/* The interrupted context's stack: a return address on top (caller=). */
	unsigned long stack[2] = { (unsigned long)req->caller, 0 };
	struct pt_regs regs = {};
	unsigned int i;

	regs.ip = req->ip;
	regs.cs = req->ctx_kernel ? __KERNEL_CS : __USER_CS;
	regs.ss = req->ctx_kernel ? __KERNEL_DS : __USER_DS;
	regs.flags = X86_EFLAGS_IF | X86_EFLAGS_FIXED;
	if (req->ctx_kernel && req->caller)
		regs.sp = (unsigned long)stack;

	for (i = 0; i < FAKEPMU_NSLOTS; i++) {
		struct perf_event *event;

		/* Set by pmu::start after slot[] and the counter. */
		if (!test_bit(i, fc->active))
			continue;
		event = READ_ONCE(fc->slot[i]);
		if (event && fakepmu_admits(event, req)) {
			atomic_inc(&fakepmu_applied);
			fakepmu_advance(fc, event, req->count, &regs);
		}
	}
}

/* NMI_LOCAL handler: claims only the NMIs raised for an injection here. */
static int fakepmu_nmi(unsigned int type, struct pt_regs *iregs)
{
	struct fakepmu_cpu *fc = this_cpu_ptr(&fakepmu_cpus);

	/* Pairs with the release that published fakepmu_req. */
	if (!smp_load_acquire(&fc->nmi_pending))
		return NMI_DONE;
	if (!user_mode(iregs))
		atomic_inc(&fakepmu_nmi_in_kernel);
	/* tid=: only while that thread is the one this CPU runs. */
	if (fakepmu_req.tid && current->pid != fakepmu_req.tid)
		fc->nmi_ret = -EAGAIN;
	else
		fakepmu_count(fc, &fakepmu_req);
	/* Counting and nmi_ret done before the waiter sees the flag clear. */
	smp_store_release(&fc->nmi_pending, 0);
	return NMI_HANDLED;
}

/* Wait for the NMI of fc to be handled; -ETIMEDOUT if it never came. */
static int fakepmu_wait_nmi(struct fakepmu_cpu *fc)
{
	unsigned int us;

	for (us = 0; us < FAKEPMU_NMI_WAIT_US; us++) {
		/* Pairs with the release in fakepmu_nmi(). */
		if (!smp_load_acquire(&fc->nmi_pending))
			return fc->nmi_ret;
		udelay(1);
	}
	if (xchg(&fc->nmi_pending, 0))
		return -ETIMEDOUT;
	return fc->nmi_ret;
}

/* Raise one injection NMI on cpu and wait for it (-errno or 0). */
static int fakepmu_send_nmi(unsigned int cpu)
{
	struct fakepmu_cpu *fc = per_cpu_ptr(&fakepmu_cpus, cpu);

	fc->nmi_ret = 0;
	/* fakepmu_req and nmi_ret before the flag: see fakepmu_nmi(). */
	smp_store_release(&fc->nmi_pending, 1);
	preempt_disable();
	apic->send_IPI(cpu, NMI_VECTOR);
	preempt_enable();
	return fakepmu_wait_nmi(fc);
}

/*
 * async=0: runs on the target CPU, interrupts off: raise the NMIs on this
 * CPU one after the other.
 */
static void fakepmu_raise_nmi(void *arg)
{
	int *ret = arg;
	unsigned int r;

	for (r = 0; r < fakepmu_req.repeat && !*ret; r++)
		*ret = fakepmu_send_nmi(smp_processor_id());
}

static ssize_t fakepmu_inject_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	char buf[FAKEPMU_INJECT_MAX_LEN];
	struct fakepmu_inject req;
	unsigned int r;
	int ret;

	if (len > sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	if (fakepmu_parse_inject(buf, len, &req))
		return -EINVAL;
	if (req.cpu >= nr_cpu_ids)
		return -EINVAL;
	/* Event select bits 11:8 exist only on AMD. */
	if (!fakepmu_amd && req.event > 0xffff)
		return -EINVAL;

	cpus_read_lock();
	if (!cpu_online(req.cpu)) {
		ret = -ENODEV;
		goto out_cpus;
	}
	mutex_lock(&fakepmu_inject_lock);
	fakepmu_req = req;
	ret = 0;
	if (!req.async) {
		if (smp_call_function_single(req.cpu, fakepmu_raise_nmi, &ret, 1))
			ret = -ENODEV;
	} else {
		for (r = 0; r < req.repeat && !ret; r++)
			ret = fakepmu_send_nmi(req.cpu);
	}
	mutex_unlock(&fakepmu_inject_lock);
out_cpus:
	cpus_read_unlock();
	if (ret == -ETIMEDOUT)
		pr_err("CPU %u took no NMI\n", req.cpu);
	return ret ? ret : len;
}

static const struct file_operations fakepmu_inject_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= fakepmu_inject_write,
	.llseek	= noop_llseek,
};

int fakepmu_nmi_init(struct dentry *dir)
{
	int ret = register_nmi_handler(NMI_LOCAL, fakepmu_nmi, 0, "fakepmu");

	if (ret)
		return ret;
	debugfs_create_file("inject", 0200, dir, NULL, &fakepmu_inject_fops);
	debugfs_create_atomic_t("applied", 0400, dir, &fakepmu_applied);
	debugfs_create_atomic_t("nmi_in_kernel", 0400, dir, &fakepmu_nmi_in_kernel);
	return 0;
}

void fakepmu_nmi_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, "fakepmu");
}
