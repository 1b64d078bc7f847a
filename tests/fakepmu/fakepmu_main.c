// SPDX-License-Identifier: GPL-2.0
/*
 * fakepmu - a test-only "cpu" PMU for machines without a hardware PMU.
 *
 * It registers with perf as "cpu" with type PERF_TYPE_RAW, so perf routes
 * PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE and PERF_TYPE_RAW events to it.  It
 * looks like a small Intel architectural PMU: ncounters general-purpose 48-bit
 * counters per CPU, raw configs in PERFEVTSEL layout, the architectural codes
 * for the generic events and Skylake's codes for the cache events.
 *
 * Nothing counts by itself.  A test writes
 *   cpu=N event=0xUUEE count=C [mode=user|kernel] [ip=0xADDR]
 * to /sys/kernel/debug/fakepmu/inject; CPU N then, in hard-interrupt context,
 * advances every running counter whose code matches and whose mode filter
 * admits the mode by C, raising overflows through perf_event_overflow() with
 * the given ip exactly as a PMI handler would.  /sys/kernel/debug/fakepmu/state
 * lists the counters in use.
 *
 * perf_event_overflow() is not exported to modules (every real PMU driver is
 * built in), so this test-only module resolves its address at load time by
 * asking kprobes where the symbol is.  Never load it on a production system.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/segment.h>

#include "inject_parse.h"

#define FAKEPMU_MAX_COUNTERS	32
#define FAKEPMU_WIDTH		48
#define FAKEPMU_MASK		((1ULL << FAKEPMU_WIDTH) - 1)
#define FAKEPMU_MAX_PERIOD	((1ULL << (FAKEPMU_WIDTH - 1)) - 1)

/* PERFEVTSEL fields a raw config may carry: event, umask, edge, inv, cmask. */
#define FAKEPMU_RAW_MASK	0xff84ffffULL

static unsigned int ncounters = 4;
module_param(ncounters, uint, 0444);
MODULE_PARM_DESC(ncounters, "general-purpose counters per CPU (1-32, default 4)");

struct fakepmu_cpu {
	struct perf_event *slot[FAKEPMU_MAX_COUNTERS];
	u64 hw[FAKEPMU_MAX_COUNTERS];	/* the 48-bit counter registers */
};

static DEFINE_PER_CPU(struct fakepmu_cpu, fakepmu_cpus);

static int (*fakepmu_overflow)(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs);

/* Architectural encodings of the generic hardware events; 0: none. */
static const u16 fakepmu_hw_events[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = 0x003c,
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0x4f2e,
	[PERF_COUNT_HW_CACHE_MISSES] = 0x412e,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c4,
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c5,
	[PERF_COUNT_HW_REF_CPU_CYCLES] = 0x013c,
};

#define C(x) PERF_COUNT_HW_CACHE_##x
#define NA (-1)		/* the operation does not exist: EINVAL */

/* Skylake's codes for the generic cache events; 0: not counted (ENOENT). */
static const int fakepmu_cache_events[C(MAX)][C(OP_MAX)][C(RESULT_MAX)] = {
	[C(L1D)] = {
		[C(OP_READ)] = { 0x81d0, 0x0151 },
		[C(OP_WRITE)] = { 0x82d0, 0 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(L1I)] = {
		[C(OP_READ)] = { 0, 0x0283 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(LL)] = {
		[C(OP_READ)] = { 0x01b7, 0x01b7 },
		[C(OP_WRITE)] = { 0x01b7, 0x01b7 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(DTLB)] = {
		[C(OP_READ)] = { 0x81d0, 0x0e08 },
		[C(OP_WRITE)] = { 0x82d0, 0x0e49 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(ITLB)] = {
		[C(OP_READ)] = { 0x2085, 0x0e85 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(BPU)] = {
		[C(OP_READ)] = { 0x00c4, 0x00c5 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(NODE)] = {
		[C(OP_READ)] = { 0x01b7, 0x01b7 },
		[C(OP_WRITE)] = { 0x01b7, 0x01b7 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
};

#undef C

static int fakepmu_cache_code(u64 config, u64 *code)
{
	unsigned int type = config & 0xff;
	unsigned int op = (config >> 8) & 0xff;
	unsigned int result = (config >> 16) & 0xff;
	int val;

	if (config >> 24 || type >= PERF_COUNT_HW_CACHE_MAX ||
	    op >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return -EINVAL;
	val = fakepmu_cache_events[type][op][result];
	if (val == NA)
		return -EINVAL;
	if (!val)
		return -ENOENT;
	*code = val;
	return 0;
}

static int fakepmu_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	struct hw_perf_event *hwc = &event->hw;
	u64 code;
	int ret;

	switch (attr->type) {
	case PERF_TYPE_RAW:
		if (attr->config & ~FAKEPMU_RAW_MASK)
			return -EINVAL;
		code = attr->config;
		break;
	case PERF_TYPE_HARDWARE:
		if (attr->config >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		code = fakepmu_hw_events[attr->config];
		if (!code)
			return -ENOENT;
		break;
	case PERF_TYPE_HW_CACHE:
		ret = fakepmu_cache_code(attr->config, &code);
		if (ret)
			return ret;
		break;
	default:
		return -ENOENT;
	}

	if (attr->precise_ip || has_branch_stack(event))
		return -EOPNOTSUPP;

	hwc->config = code;
	hwc->idx = -1;
	if (!is_sampling_event(event)) {
		/* Counting events still take a "PMI" when the counter wraps. */
		hwc->sample_period = FAKEPMU_MAX_PERIOD;
		hwc->last_period = hwc->sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
	}
	return 0;
}

/* Fold the counter register into the 64-bit perf count. */
static void fakepmu_update(struct fakepmu_cpu *fc, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 now = fc->hw[hwc->idx];
	u64 prev = local64_xchg(&hwc->prev_count, now);
	u64 delta = (now - prev) & FAKEPMU_MASK;

	local64_add(delta, &event->count);
	local64_sub(delta, &hwc->period_left);
}

/*
 * Program the counter to wrap after what is left of the period (at most
 * FAKEPMU_MAX_PERIOD at a time).  Returns true when a new period began, i.e.
 * when the previous one has fully elapsed.
 */
static bool fakepmu_set_period(struct fakepmu_cpu *fc, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);
	s64 period = hwc->sample_period;
	bool elapsed = false;

	if (unlikely(left <= -period)) {
		left = period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
		elapsed = true;
	} else if (unlikely(left <= 0)) {
		left += period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
		elapsed = true;
	}
	if (left > FAKEPMU_MAX_PERIOD)
		left = FAKEPMU_MAX_PERIOD;

	local64_set(&hwc->prev_count, (u64)-left);
	fc->hw[hwc->idx] = (u64)-left & FAKEPMU_MASK;
	perf_event_update_userpage(event);
	return elapsed;
}

static void fakepmu_start(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (WARN_ON_ONCE(!(hwc->state & PERF_HES_STOPPED)))
		return;
	if (flags & PERF_EF_RELOAD) {
		WARN_ON_ONCE(!(hwc->state & PERF_HES_UPTODATE));
		fakepmu_set_period(this_cpu_ptr(&fakepmu_cpus), event);
	}
	hwc->state = 0;
}

static void fakepmu_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	hwc->state |= PERF_HES_STOPPED;
	if ((flags & PERF_EF_UPDATE) && !(hwc->state & PERF_HES_UPTODATE)) {
		fakepmu_update(this_cpu_ptr(&fakepmu_cpus), event);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

static int fakepmu_add(struct perf_event *event, int flags)
{
	struct fakepmu_cpu *fc = this_cpu_ptr(&fakepmu_cpus);
	struct hw_perf_event *hwc = &event->hw;
	unsigned int i;

	for (i = 0; i < ncounters; i++)
		if (!fc->slot[i])
			break;
	if (i == ncounters)
		return -EAGAIN;

	fc->slot[i] = event;
	hwc->idx = i;
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		fakepmu_start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	return 0;
}

static void fakepmu_del(struct perf_event *event, int flags)
{
	struct fakepmu_cpu *fc = this_cpu_ptr(&fakepmu_cpus);
	struct hw_perf_event *hwc = &event->hw;

	fakepmu_stop(event, PERF_EF_UPDATE);
	fc->slot[hwc->idx] = NULL;
	hwc->idx = -1;
	perf_event_update_userpage(event);
}

static void fakepmu_read(struct perf_event *event)
{
	if (event->hw.idx >= 0)
		fakepmu_update(this_cpu_ptr(&fakepmu_cpus), event);
}

/*
 * Before 6.2, perf_pmu_register() remembers for good that a PMU took the
 * per-task hardware context and WARNs on the next one, so reloading this
 * module would lose per-task events.  PMUs that declare heterogeneous CPUs
 * are exempt; the flag changes nothing else and is gone after 6.1.
 */
#ifdef PERF_PMU_CAP_HETEROGENEOUS_CPUS
#define FAKEPMU_CAPS	PERF_PMU_CAP_HETEROGENEOUS_CPUS
#else
#define FAKEPMU_CAPS	0
#endif

static struct pmu fakepmu_pmu = {
	.module		= THIS_MODULE,
	.capabilities	= FAKEPMU_CAPS,
	.task_ctx_nr	= perf_hw_context,
	.event_init	= fakepmu_event_init,
	.add		= fakepmu_add,
	.del		= fakepmu_del,
	.start		= fakepmu_start,
	.stop		= fakepmu_stop,
	.read		= fakepmu_read,
};

/* ---- injection ---------------------------------------------------------- */

static DEFINE_MUTEX(fakepmu_inject_lock);
static struct fakepmu_inject fakepmu_req;	/* under fakepmu_inject_lock */
static DECLARE_COMPLETION(fakepmu_inject_done);

static bool fakepmu_admits(struct perf_event *event, const struct fakepmu_inject *req)
{
	if ((event->hw.config & 0xffff) != req->event)
		return false;
	return req->kernel ? !event->attr.exclude_kernel : !event->attr.exclude_user;
}

/* Advance one running counter by count, taking every wrap as a PMI. */
static void fakepmu_advance(struct fakepmu_cpu *fc, struct perf_event *event,
			    u64 count, struct pt_regs *regs)
{
	struct hw_perf_event *hwc = &event->hw;
	struct perf_sample_data data;

	while (count && !(hwc->state & PERF_HES_STOPPED)) {
		u64 to_wrap = (1ULL << FAKEPMU_WIDTH) - fc->hw[hwc->idx];
		u64 step = min(count, to_wrap);

		fc->hw[hwc->idx] = (fc->hw[hwc->idx] + step) & FAKEPMU_MASK;
		count -= step;
		if (step < to_wrap)
			break;

		/* The counter wrapped: this is where a PMI would arrive. */
		fakepmu_update(fc, event);
		if (!fakepmu_set_period(fc, event) || !is_sampling_event(event))
			continue;
		perf_sample_data_init(&data, 0, hwc->last_period);
		if (fakepmu_overflow(event, &data, regs))
			fakepmu_stop(event, 0);
	}
}

static void fakepmu_inject_irq(struct irq_work *work)
{
	struct fakepmu_cpu *fc = this_cpu_ptr(&fakepmu_cpus);
	const struct fakepmu_inject *req = &fakepmu_req;
	struct pt_regs regs = {};
	unsigned int i;

	regs.ip = req->ip;
	regs.cs = req->kernel ? __KERNEL_CS : __USER_CS;
	regs.ss = req->kernel ? __KERNEL_DS : __USER_DS;
	regs.flags = X86_EFLAGS_IF | X86_EFLAGS_FIXED;

	for (i = 0; i < ncounters; i++) {
		struct perf_event *event = fc->slot[i];

		if (event && !(event->hw.state & PERF_HES_STOPPED) &&
		    fakepmu_admits(event, req))
			fakepmu_advance(fc, event, req->count, &regs);
	}
	complete(&fakepmu_inject_done);
}

static struct irq_work fakepmu_inject_work = IRQ_WORK_INIT_HARD(fakepmu_inject_irq);

/* Runs on the target CPU with interrupts off; the irq_work fires right after. */
static void fakepmu_queue_on_this_cpu(void *unused)
{
	irq_work_queue(&fakepmu_inject_work);
}

static ssize_t fakepmu_inject_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	char buf[FAKEPMU_INJECT_MAX_LEN];
	struct fakepmu_inject req;
	int ret;

	if (len > sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	if (fakepmu_parse_inject(buf, len, &req))
		return -EINVAL;
	if (req.cpu >= nr_cpu_ids)
		return -EINVAL;

	cpus_read_lock();
	if (!cpu_online(req.cpu)) {
		ret = -ENODEV;
		goto out_cpus;
	}
	mutex_lock(&fakepmu_inject_lock);
	fakepmu_req = req;
	reinit_completion(&fakepmu_inject_done);
	ret = smp_call_function_single(req.cpu, fakepmu_queue_on_this_cpu, NULL, 1);
	if (!ret)
		wait_for_completion(&fakepmu_inject_done);
	mutex_unlock(&fakepmu_inject_lock);
out_cpus:
	cpus_read_unlock();
	return ret ? ret : len;
}

static const struct file_operations fakepmu_inject_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= fakepmu_inject_write,
	.llseek	= noop_llseek,
};

struct fakepmu_snap {
	unsigned int n;
	struct {
		unsigned int slot;
		u64 config, count, period;
		bool user, kernel;
	} c[FAKEPMU_MAX_COUNTERS];
};

static void fakepmu_snapshot(void *arg)
{
	struct fakepmu_cpu *fc = this_cpu_ptr(&fakepmu_cpus);
	struct fakepmu_snap *s = arg;
	unsigned int i;

	s->n = 0;
	for (i = 0; i < ncounters; i++) {
		struct perf_event *event = fc->slot[i];

		if (!event)
			continue;
		if (!(event->hw.state & PERF_HES_STOPPED))
			fakepmu_update(fc, event);
		s->c[s->n].slot = i;
		s->c[s->n].config = event->hw.config;
		s->c[s->n].user = !event->attr.exclude_user;
		s->c[s->n].kernel = !event->attr.exclude_kernel;
		s->c[s->n].count = local64_read(&event->count);
		s->c[s->n].period = is_sampling_event(event) ? event->hw.sample_period : 0;
		s->n++;
	}
}

static int fakepmu_state_show(struct seq_file *m, void *v)
{
	struct fakepmu_snap *s;
	unsigned int cpu, i;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (smp_call_function_single(cpu, fakepmu_snapshot, s, 1))
			continue;
		for (i = 0; i < s->n; i++)
			seq_printf(m, "cpu=%u slot=%u config=0x%llx user=%d kernel=%d count=%llu period=%llu\n",
				   cpu, s->c[i].slot, s->c[i].config, s->c[i].user,
				   s->c[i].kernel, s->c[i].count, s->c[i].period);
	}
	cpus_read_unlock();
	kfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fakepmu_state);

/* ---- load / unload ------------------------------------------------------ */

static struct dentry *fakepmu_dir;

static int fakepmu_resolve_overflow(void)
{
	static const char name[] = "perf_event_overflow";
	struct kprobe kp = { .symbol_name = name };
	char sym[KSYM_SYMBOL_LEN];
	unsigned long addr, off = 0;
	const char *p;
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);

	/* kprobes may step over an ENDBR: go back to the symbol's start. */
	sprint_symbol(sym, addr);
	if (strncmp(sym, name, sizeof(name) - 1) || sym[sizeof(name) - 1] != '+')
		return -ENOENT;
	p = sym + sizeof(name);
	if (sscanf(p, "0x%lx/", &off) != 1 || off > 16)
		return -ENOENT;
	fakepmu_overflow = (void *)(addr - off);
	return 0;
}

static bool fakepmu_hw_pmu_present(void)
{
	struct path path;

	if (kern_path("/sys/bus/event_source/devices/cpu", LOOKUP_FOLLOW, &path))
		return false;
	path_put(&path);
	return true;
}

static int __init fakepmu_init(void)
{
	int ret;

	if (!ncounters || ncounters > FAKEPMU_MAX_COUNTERS)
		return -EINVAL;
	if (fakepmu_hw_pmu_present()) {
		pr_err("a \"cpu\" PMU is already registered; fakepmu is only for machines without one\n");
		return -EEXIST;
	}
	ret = fakepmu_resolve_overflow();
	if (ret) {
		pr_err("cannot locate perf_event_overflow (%d); needs CONFIG_KPROBES\n", ret);
		return ret;
	}

	ret = perf_pmu_register(&fakepmu_pmu, "cpu", PERF_TYPE_RAW);
	if (ret)
		return ret;
	if (fakepmu_pmu.type != PERF_TYPE_RAW) {
		pr_err("PERF_TYPE_RAW is taken by another PMU\n");
		perf_pmu_unregister(&fakepmu_pmu);
		return -EEXIST;
	}

	fakepmu_dir = debugfs_create_dir("fakepmu", NULL);
	debugfs_create_file("inject", 0200, fakepmu_dir, NULL, &fakepmu_inject_fops);
	debugfs_create_file("state", 0400, fakepmu_dir, NULL, &fakepmu_state_fops);
	pr_info("test PMU registered: %u counters per CPU, %d bits\n",
		ncounters, FAKEPMU_WIDTH);
	return 0;
}

static void __exit fakepmu_exit(void)
{
	debugfs_remove_recursive(fakepmu_dir);
	perf_pmu_unregister(&fakepmu_pmu);
	irq_work_sync(&fakepmu_inject_work);
}

module_init(fakepmu_init);
module_exit(fakepmu_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pmcompat test-only PMU with injected counts");
