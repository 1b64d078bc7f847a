// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cpc: the kernel half of Solaris libcpc(3LIB) v2 on the pmcompat core.
 *
 * Solaris' cpc(2) system call cannot be added from a module, so libcpc talks
 * to this device through the ioctls of <sys/cpc_impl.h>.  The library turns
 * event names into perf event types and configs; here they become counter
 * sets bound to the calling thread (optionally inherited by the threads and
 * children it creates), to a thread of another process, or to a CPU.
 *
 * Solaris rules kept: one binding per CPU; the first CPU binding invalidates
 * every per-thread set (sampling one gives EAGAIN) and, while any CPU binding
 * exists, per-thread binds give EAGAIN.  Who may count what is decided by the
 * node's group (pmcompat) and the core's access control (pmc_access.c:
 * capabilities, perf's exported check, ptrace rules); bindings per
 * descriptor and per user are bounded.  An fd's bindings end when it is
 * closed, a thread's at its execve().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <sys/cpc_impl.h>

#include "kcompat.h"
#include "pmc_arch.h"
#include "pmc_core.h"
#include "frontend.h"

#define CPC_NO_SUBCODE		(-1)
#define CPC_CAPS		(CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE)

struct cpc_binding {
	struct list_head node;
	u32 id;				/* 0 for the CURLWP binding of task */
	u32 scope;			/* PMC_CPC_BIND_* */
	struct task_struct *task;	/* CURLWP, PCTX: the bound thread */
	int cpu;			/* CPU: the claimed processor */
	bool inherit;
	u64 generation;			/* CURLWP, PCTX: see pmc_thread_bind_valid() */
	u64 exec_id;			/* CURLWP, PCTX: the bound image */
	u64 bound_tsc;			/* timestamp when bound: samples' ticks count from it */
	unsigned int access;		/* PMC_ACCESS_* it was granted */
	struct pmc_budget_user *user;	/* charged for it */
	unsigned int nreqs;
	u64 preset[PMC_CPC_MAX_REQS];	/* applied by PMC_CPC_RESTART */
	struct pmc_set *set;
};

/* The first published sizes of the extensible structures (ABI version 1). */
#define PMC_CPC_BIND_SIZE_VER1		56
#define PMC_CPC_SAMPLE_SIZE_VER1	40
#define PMC_CPC_PRESET_SIZE_VER1	24
#define PMC_CPC_INFO_SIZE_VER1		32
static_assert(sizeof(struct pmc_cpc_bind) == PMC_CPC_BIND_SIZE_VER1);
static_assert(sizeof(struct pmc_cpc_sample) == PMC_CPC_SAMPLE_SIZE_VER1);
static_assert(sizeof(struct pmc_cpc_preset) == PMC_CPC_PRESET_SIZE_VER1);
static_assert(sizeof(struct pmc_cpc_info) == PMC_CPC_INFO_SIZE_VER1);

struct cpc_file {
	struct mutex lock;		/* the bindings list and each binding */
	struct list_head bindings;
	unsigned int nbindings;
	u32 next_id;
};

static unsigned int cpc_npic;

/*
 * Bounded memory: bindings per descriptor and per user (real uid, over all
 * descriptors).  Past either limit a bind fails with EAGAIN.
 */
static unsigned int max_bindings_per_fd = 256;
module_param(max_bindings_per_fd, uint, 0644);
MODULE_PARM_DESC(max_bindings_per_fd, "most /dev/cpc bindings per open file (default 256)");
static unsigned int max_bindings_per_user = 1024;
module_param(max_bindings_per_user, uint, 0644);
MODULE_PARM_DESC(max_bindings_per_user, "most /dev/cpc bindings per user (default 1024)");

static struct pmc_budget cpc_users = PMC_BUDGET_INIT(cpc_users);

/* Charge one binding to the caller's real uid: the user, or NULL past the limit. */
static struct pmc_budget_user *cpc_user_charge(void)
{
	return pmc_budget_charge(&cpc_users, 1, READ_ONCE(max_bindings_per_user));
}

static void cpc_user_uncharge(struct pmc_budget_user *u)
{
	pmc_budget_uncharge(&cpc_users, u, 1);
}

/* ---- bindings ----------------------------------------------------------- */

static void cpc_binding_free(struct cpc_file *cf, struct cpc_binding *b)
{
	list_del(&b->node);
	cf->nbindings--;
	cpc_user_uncharge(b->user);
	pmc_set_destroy(b->set);
	if (b->scope == PMC_CPC_BIND_CPU)
		pmc_release_cpu(b->cpu);
	if (b->task)
		put_task_struct(b->task);
	kfree(b);
}

/* The binding an id names; id 0 is the calling thread's CURLWP binding. */
static struct cpc_binding *cpc_lookup(struct cpc_file *cf, u32 id)
{
	struct cpc_binding *b;

	list_for_each_entry(b, &cf->bindings, node) {
		if (id ? b->id == id :
		    b->scope == PMC_CPC_BIND_CURLWP && b->task == current)
			return b;
	}
	return NULL;
}

/* A CURLWP binding with inheritance that the calling thread descends from. */
static int cpc_sample_inherited(struct cpc_file *cf, u64 *vals,
				struct cpc_binding **found)
{
	struct cpc_binding *b;
	int ret;

	list_for_each_entry(b, &cf->bindings, node) {
		if (b->scope != PMC_CPC_BIND_CURLWP || !b->inherit)
			continue;
		/* ENOENT: not this one's; EIO: its copy counts nothing. */
		ret = pmc_set_read_own(b->set, vals);
		if (ret != -ENOENT) {
			*found = b;
			return ret;
		}
	}
	return -EINVAL;
}

/* Bindings of threads that have exited are dropped at the next bind. */
static void cpc_reap(struct cpc_file *cf)
{
	struct cpc_binding *b, *tmp;

	list_for_each_entry_safe(b, tmp, &cf->bindings, node)
		if (b->scope != PMC_CPC_BIND_CPU && !pid_alive(b->task))
			cpc_binding_free(cf, b);
}

/* ---- PMC_CPC_BIND --------------------------------------------------------- */

/* Check the request and its set before anything is programmed. */
static int cpc_validate(struct pmc_cpc_bind *bind,
			const struct pmc_cpc_request *reqs, bool *kernel,
			bool *overflow)
{
	unsigned long seen = 0;
	unsigned int i;

	if (bind->reserved || bind->scope > PMC_CPC_BIND_CPU)
		return -EINVAL;
	if (bind->flags & ~CPC_SET_ALL_FLAGS ||
	    (bind->flags && bind->scope != PMC_CPC_BIND_CURLWP))
		return -EINVAL;
	if (!bind->nreqs)
		return -EINVAL;
	if (bind->nreqs > cpc_npic) {
		bind->subcode = CPC_RESOURCE_UNAVAIL;
		return -EINVAL;
	}
	*kernel = false;
	*overflow = false;
	for (i = 0; i < bind->nreqs; i++) {
		const struct pmc_cpc_request *r = &reqs[i];

		if (r->reserved || r->flags & ~KCPC_REQ_ALL_FLAGS) {
			bind->subcode = CPC_REQ_INVALID_FLAGS;
			return -EINVAL;
		}
		if (r->index >= bind->nreqs || test_and_set_bit(r->index, &seen)) {
			bind->subcode = CPC_CONFLICTING_REQS;
			return -EINVAL;
		}
		switch (r->type) {
		case PERF_TYPE_RAW:
		case PERF_TYPE_HARDWARE:
		case PERF_TYPE_HW_CACHE:
		case PERF_TYPE_SOFTWARE:
			break;
		default:
			bind->subcode = CPC_INVALID_EVENT;
			return -EINVAL;
		}
		if (r->flags & CPC_COUNT_SYSTEM)
			*kernel = true;
		if (r->flags & CPC_OVF_NOTIFY_EMT)
			*overflow = true;
	}
	/* The kernel chooses the signal: only the documented one is accepted. */
	if ((bind->signo || bind->si_code) &&
	    (bind->signo != PMC_CPC_OVF_SIGNO || bind->si_code != PMC_CPC_OVF_CODE))
		return -EINVAL;
	/* Another process is never signalled on a binder's behalf. */
	if (*overflow && bind->scope == PMC_CPC_BIND_PCTX)
		return -EOPNOTSUPP;
	/*
	 * perf neither limits nor freezes the copies that threads inherit, so
	 * overflow notification cannot be honoured for them: ENOTSUP.
	 */
	if (*overflow && (bind->flags & CPC_BIND_LWP_INHERIT))
		return -EOPNOTSUPP;
	return 0;
}

/* The target of a PCTX binding: thread tid of process pid, or its leader. */
static struct task_struct *cpc_find_thread(pid_t pid, pid_t tid)
{
	struct task_struct *task;

	rcu_read_lock();
	task = pid_task(find_vpid(tid ? tid : pid), PIDTYPE_PID);
	if (task && task_tgid_vnr(task) != pid)
		task = NULL;
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task;
}

/* perf's answer while programming, in libcpc's terms. */
static int cpc_program_error(struct pmc_cpc_bind *bind, int err)
{
	switch (err) {
	case -EBUSY:
		bind->subcode = CPC_RESOURCE_UNAVAIL;
		return -EINVAL;
	case -ENOENT:
	case -EINVAL:
		bind->subcode = CPC_INVALID_EVENT;
		return -EINVAL;
	case -ERANGE:
		/* A valid event whose preset is shorter than the PMU's minimum. */
		bind->subcode = CPC_ATTRIBUTE_OUT_OF_RANGE;
		return -EINVAL;
	case -EOPNOTSUPP:
		return -EOPNOTSUPP;
	default:
		return err;
	}
}

static int cpc_bind_set(struct cpc_binding *b, struct pmc_cpc_bind *bind,
			const struct pmc_cpc_request *reqs, bool overflow)
{
	struct pmc_bind pb = {
		.scope = b->scope == PMC_CPC_BIND_CPU ? PMC_SCOPE_CPU : PMC_SCOPE_THREAD,
		.cpu = b->cpu,
		.task = b->scope == PMC_CPC_BIND_CPU ? NULL : b->task,
		.inherit = b->inherit,
	};
	unsigned int i;
	int ret;

	b->set = pmc_set_create(&pb, bind->nreqs);
	if (IS_ERR(b->set)) {
		ret = PTR_ERR(b->set);
		b->set = NULL;
		return ret;
	}
	/* The bound thread (the caller itself) is signalled; for a CPU, the binder. */
	if (overflow)
		pmc_set_notify(b->set, b->task ? b->task : current,
			       PMC_CPC_OVF_SIGNO, PMC_CPC_OVF_CODE);
	for (i = 0; i < bind->nreqs; i++) {
		const struct pmc_cpc_request *r = &reqs[i];
		struct pmc_event_desc desc = {
			.type = r->type,
			.config = r->config,
			.exclude_user = !(r->flags & CPC_COUNT_USER),
			.exclude_kernel = !(r->flags & CPC_COUNT_SYSTEM),
		};
		unsigned int flags = 0;

		if (r->flags & CPC_OVF_NOTIFY_EMT)
			flags |= PMC_OVERFLOW | PMC_FREEZE_SET;
		b->preset[r->index] = r->preset;
		ret = pmc_counter_program(b->set, r->index, &desc, r->preset, flags);
		if (ret)
			return cpc_program_error(bind, ret);
	}
	/* A set counts as a whole or not at all. */
	ret = pmc_set_start(b->set, PMC_ALL_COUNTERS);
	return ret ? cpc_program_error(bind, ret) : 0;
}

/* The fd's binding that a new bind of the same thread replaces, if any. */
static struct cpc_binding *cpc_replaced(struct cpc_file *cf,
					const struct cpc_binding *b)
{
	struct cpc_binding *old;

	if (b->scope == PMC_CPC_BIND_CPU)
		return NULL;
	list_for_each_entry(old, &cf->bindings, node)
		if (old->scope == b->scope && old->task == b->task)
			return old;
	return NULL;
}

/* Copy the bind result out; the structure's tail beyond ours is left as it was. */
static int cpc_bind_copy_out(void __user *argp, const struct pmc_cpc_bind *bind)
{
	return copy_to_user(argp, bind, sizeof(*bind)) ? -EFAULT : 0;
}

/*
 * Bind: the new binding is made and started while the thread's previous
 * one (which it replaces) is stopped, and only once the result has been
 * copied out is the old one released.  On any failure the old binding is
 * back as it was and nothing new is left behind.  For another process, its
 * exec_update_lock is held from the access check until the events are
 * installed, as perf_event_open() does, so that an exec of a setuid program
 * cannot slip in between.  Lock order: cf->lock, exec_update_lock, the
 * set's lock, perf's.
 */
static int cpc_bind(struct cpc_file *cf, struct pmc_cpc_bind *bind,
		    const struct pmc_cpc_request *reqs, void __user *argp)
{
	struct rw_semaphore *exec_lock = NULL;
	struct cpc_binding *b, *old;
	unsigned long old_running = 0;
	bool kernel, overflow;
	int ret;

	ret = cpc_validate(bind, reqs, &kernel, &overflow);
	if (ret)
		return ret;

	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENOMEM;
	INIT_LIST_HEAD(&b->node);
	b->scope = bind->scope;
	b->nreqs = bind->nreqs;
	b->inherit = bind->flags & CPC_BIND_LWP_INHERIT;
	b->cpu = -1;

	switch (bind->scope) {
	case PMC_CPC_BIND_CURLWP:
		b->task = get_task_struct(current);
		b->access = PMC_ACCESS_THREAD;
		break;
	case PMC_CPC_BIND_PCTX:
		b->task = bind->pid > 0 && bind->tid >= 0 ?
			  cpc_find_thread(bind->pid, bind->tid) : NULL;
		if (!b->task) {
			ret = -ESRCH;
			goto out_free;
		}
		b->access = PMC_ACCESS_THREAD;
		break;
	default:
		if (bind->cpu < 0 || bind->cpu >= nr_cpu_ids || !cpu_possible(bind->cpu)) {
			ret = -EINVAL;
			goto out_free;
		}
		/* As on Solaris, the caller must be bound to that processor. */
		if (current->nr_cpus_allowed != 1 ||
		    !cpumask_test_cpu(bind->cpu, current->cpus_ptr)) {
			ret = -EINVAL;
			goto out_free;
		}
		b->access = PMC_ACCESS_CPU;
		break;
	}
	if (kernel)
		b->access |= PMC_ACCESS_KERNEL;

	mutex_lock(&cf->lock);
	if (b->task && b->task != current) {
		exec_lock = &b->task->signal->exec_update_lock;
		ret = down_read_killable(exec_lock);
		if (ret) {
			exec_lock = NULL;
			goto out_unlock;
		}
	}
	ret = pmc_access_check(b->access, b->task != current ? b->task : NULL);
	if (ret)
		goto out_unlock;
	if (b->task)
		b->exec_id = READ_ONCE(b->task->self_exec_id);

	cpc_reap(cf);
	old = cpc_replaced(cf, b);
	if (!old && cf->nbindings >= READ_ONCE(max_bindings_per_fd)) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	/* A replacement takes over the old binding's charge. */
	if (!old) {
		b->user = cpc_user_charge();
		if (!b->user) {
			ret = -EAGAIN;
			goto out_unlock;
		}
	}
	if (bind->scope == PMC_CPC_BIND_CPU) {
		/* EAGAIN: bound already; ENODEV: offline (libcpc: ENOSYS). */
		ret = pmc_claim_cpu(bind->cpu);
		if (ret)
			goto out_uncharge;
		b->cpu = bind->cpu;
	} else {
		ret = pmc_thread_bind_begin(&b->generation);
		if (ret)
			goto out_uncharge;
	}

	/* The old binding's counters make room for the new ones. */
	if (old)
		old_running = pmc_set_stop(old->set);
	b->bound_tsc = pmc_arch_timestamp();
	ret = cpc_bind_set(b, bind, reqs, overflow);
	if (!ret && bind->scope != PMC_CPC_BIND_CURLWP) {
		/* Non-zero ids, unique among the fd's bindings. */
		do {
			b->id = ++cf->next_id;
		} while (!b->id || cpc_lookup(cf, b->id));
	}
	bind->id = b->id;
	if (exec_lock)
		up_read(exec_lock);
	if (!ret)
		ret = cpc_bind_copy_out(argp, bind);
	list_add(&b->node, &cf->bindings);
	cf->nbindings++;
	if (ret) {
		cpc_binding_free(cf, b);
		/* Back as it was; a counter perf no longer gives back reads EIO. */
		if (old && old_running)
			pmc_set_start(old->set, old_running);
	} else {
		if (b->cpu >= 0)
			pmc_claim_cpu_commit(b->cpu);
		if (old) {
			b->user = old->user;
			old->user = NULL;
			cpc_binding_free(cf, old);
		}
	}
	mutex_unlock(&cf->lock);
	return ret;

out_uncharge:
	cpc_user_uncharge(b->user);
out_unlock:
	if (exec_lock)
		up_read(exec_lock);
	mutex_unlock(&cf->lock);
out_free:
	if (b->task)
		put_task_struct(b->task);
	kfree(b);
	return ret;
}

/*
 * Copy in an extensible structure whose first member is its size: larger
 * ones from newer programs are taken when their tail is zero (E2BIG
 * otherwise), smaller ones than version 1 are refused.  One of the
 * kernel's own size is one copy; any other is copied again by
 * copy_struct_from_user(), which checks a larger one's tail and zero-fills
 * what a smaller one lacks.
 */
static __always_inline int cpc_copy_in(void *dst, size_t ksize, size_t min_size,
				       const void __user *argp)
{
	u32 usize;
	int ret;

	if (copy_from_user(dst, argp, min_size)) {
		/* A smaller structure than version 1 at the end of its memory. */
		if (get_user(usize, (const u32 __user *)argp))
			return -EFAULT;
		return usize < min_size || usize > PAGE_SIZE ? -EINVAL : -EFAULT;
	}
	usize = *(u32 *)dst;
	if (usize < min_size || usize > PAGE_SIZE)
		return -EINVAL;
	/* Anything but the kernel's own size: tail checked, or zero-filled. */
	if (usize != ksize) {
		ret = copy_struct_from_user(dst, ksize, argp, usize);
		if (ret)
			return ret;
	}
	*(u32 *)dst = ksize;	/* what the kernel fills in, from here on */
	return 0;
}

static long cpc_ioctl_bind(struct cpc_file *cf, void __user *argp)
{
	struct pmc_cpc_request reqs[PMC_CPC_MAX_REQS];
	struct pmc_cpc_bind bind;
	int ret;

	ret = cpc_copy_in(&bind, sizeof(bind), PMC_CPC_BIND_SIZE_VER1, argp);
	if (ret)
		return ret;
	bind.subcode = CPC_NO_SUBCODE;
	bind.id = 0;
	if (bind.nreqs > PMC_CPC_MAX_REQS) {
		bind.subcode = CPC_RESOURCE_UNAVAIL;
		ret = -EINVAL;
		goto out;
	}
	if (copy_from_user(reqs, u64_to_user_ptr(bind.reqs),
			   bind.nreqs * sizeof(reqs[0])))
		return -EFAULT;
	/* On success, the result was copied out before the bind took effect. */
	ret = cpc_bind(cf, &bind, reqs, argp);
	if (!ret || ret == -EFAULT)
		return ret;
out:
	/* The subcode travels back with EINVAL too. */
	return cpc_bind_copy_out(argp, &bind) ?: ret;
}

/* ---- sampling and control --------------------------------------------------- */

/*
 * The sample's tick, in timestamp cycles (pmc_arch_timestamp(): the TSC on
 * x86, the generic timer's virtual counter on arm64).  As on Solaris, a
 * thread binding's is virtualised: the time the set was on a CPU since it was bound (perf's
 * running time of its events, read with their counts); a CPU binding's is
 * the time since it was bound.  An inherited binding's copies share perf's
 * running time with their parent, so theirs is the time since the bind too.
 */
static u64 cpc_tick(const struct cpc_binding *b, u64 tsc, u64 running_ns)
{
	if (b->scope == PMC_CPC_BIND_CPU || b->inherit)
		return tsc - b->bound_tsc;
	return mul_u64_u32_div(running_ns, pmc_arch_timestamp_khz(), NSEC_PER_MSEC);
}

static long cpc_ioctl_sample(struct cpc_file *cf, void __user *argp)
{
	u64 vals[PMC_CPC_MAX_REQS], running = 0, tsc = 0;
	struct pmc_cpc_sample s;
	struct cpc_binding *b;
	int ret;

	ret = cpc_copy_in(&s, sizeof(s), PMC_CPC_SAMPLE_SIZE_VER1, argp);
	if (ret)
		return ret;
	if (s.reserved)
		return -EINVAL;

	memset(vals, 0, sizeof(vals));
	mutex_lock(&cf->lock);
	b = cpc_lookup(cf, s.id);
	if (b && b->inherit) {
		/* Its own counts, not those of the threads it created. */
		ret = pmc_set_read_own(b->set, vals);
		tsc = pmc_arch_timestamp();
	} else if (b && b->scope != PMC_CPC_BIND_CPU) {
		ret = pmc_set_read_timed(b->set, vals, &running);
	} else if (b) {
		ret = pmc_set_read(b->set, PMC_READ_SUM, vals, &tsc);
	} else if (!s.id) {
		ret = cpc_sample_inherited(cf, vals, &b);
		tsc = pmc_arch_timestamp();
	} else {
		ret = -EINVAL;
	}
	if (!ret && b->scope != PMC_CPC_BIND_CPU &&
	    !pmc_thread_bind_valid(b->generation))
		ret = -EAGAIN;
	if (!ret && s.nvals < b->nreqs)
		ret = -EINVAL;
	if (!ret) {
		s.nvals = b->nreqs;
		s.tick = cpc_tick(b, tsc, running);
	}
	mutex_unlock(&cf->lock);
	if (ret)
		return ret;

	s.hrtime = ktime_get_ns();
	ret = pmc_copy_out_small(u64_to_user_ptr(s.vals), vals,
				 s.nvals * sizeof(vals[0]));
	return ret ?: pmc_copy_out_small(argp, &s, sizeof(s));
}

static long cpc_ioctl_preset(struct cpc_file *cf, void __user *argp)
{
	struct pmc_cpc_preset p;
	struct cpc_binding *b;
	int ret;

	ret = cpc_copy_in(&p, sizeof(p), PMC_CPC_PRESET_SIZE_VER1, argp);
	if (ret)
		return ret;
	if (p.reserved)
		return -EINVAL;
	mutex_lock(&cf->lock);
	b = cpc_lookup(cf, p.id);
	if (!b || p.index >= b->nreqs)
		ret = -EINVAL;
	else
		b->preset[p.index] = p.preset;
	mutex_unlock(&cf->lock);
	return ret;
}

enum cpc_op { CPC_OP_RELE, CPC_OP_RESTART, CPC_OP_ENABLE, CPC_OP_DISABLE };

/*
 * Restart (from the presets) or enable a binding.  A thread's counters end
 * at its execve(): they are never made again for the new image (ESRCH),
 * and another process is checked again, under its exec_update_lock, since
 * its credentials may have changed since the bind.  cf->lock held.
 */
static int cpc_resume(struct cpc_binding *b, bool restart)
{
	struct rw_semaphore *exec_lock = NULL;
	int ret;

	if (b->task) {
		exec_lock = &b->task->signal->exec_update_lock;
		ret = down_read_killable(exec_lock);
		if (ret)
			return ret;
		if (READ_ONCE(b->task->self_exec_id) != b->exec_id || !pid_alive(b->task)) {
			ret = -ESRCH;
			goto out;
		}
		if (b->task != current) {
			ret = pmc_access_check(b->access, b->task);
			if (ret)
				goto out;
		}
	}
	if (restart)
		ret = pmc_set_restart(b->set, b->preset);
	else
		ret = pmc_set_start(b->set, PMC_ALL_COUNTERS);
out:
	if (exec_lock)
		up_read(exec_lock);
	return ret;
}

static long cpc_ioctl_id(struct cpc_file *cf, void __user *argp, enum cpc_op op)
{
	struct cpc_binding *b;
	int ret = 0;
	u32 id;

	if (get_user(id, (u32 __user *)argp))
		return -EFAULT;
	mutex_lock(&cf->lock);
	b = cpc_lookup(cf, id);
	if (!b) {
		ret = -EINVAL;
		goto out;
	}
	switch (op) {
	case CPC_OP_RELE:
		cpc_binding_free(cf, b);
		break;
	case CPC_OP_RESTART:
	case CPC_OP_ENABLE:
		ret = cpc_resume(b, op == CPC_OP_RESTART);
		break;
	case CPC_OP_DISABLE:
		pmc_set_stop(b->set);
		break;
	}
out:
	mutex_unlock(&cf->lock);
	return ret == -EBUSY ? -EAGAIN : ret;
}

static long cpc_ioctl_info(void __user *argp)
{
	struct pmc_cpc_info info;
	u32 size;
	int ret;

	if (get_user(size, (u32 __user *)argp))
		return -EFAULT;
	if (size < PMC_CPC_INFO_SIZE_VER1 || size > PAGE_SIZE)
		return -EINVAL;
	/* As for the other structures: a tail we do not know must be zero. */
	if (size > sizeof(info)) {
		ret = check_zeroed_user(argp + sizeof(info), size - sizeof(info));
		if (ret <= 0)
			return ret ?: -E2BIG;
	}
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.abi_version = PMC_CPC_ABI_VERSION;
	info.npic = cpc_npic;
	info.caps = CPC_CAPS;
	info.hw_pmu = pmc_hw_pmu_present();
	/* The tail a newer program knows stays zero. */
	return copy_to_user(argp, &info, sizeof(info)) ? -EFAULT : 0;
}

/*
 * Structures carry their size, so a newer program's larger structure comes
 * with other size bits in the request number: those bits do not matter.
 */
static unsigned int cpc_cmd(unsigned int cmd)
{
	static const unsigned int sized[] = {
		PMC_CPC_INFO, PMC_CPC_BIND, PMC_CPC_SAMPLE, PMC_CPC_PRESET,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sized); i++)
		if ((cmd & ~IOCSIZE_MASK) == (sized[i] & ~IOCSIZE_MASK))
			return sized[i];
	return cmd;
}

static long cpc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct cpc_file *cf = file->private_data;
	void __user *argp = (void __user *)arg;

	cmd = cpc_cmd(cmd);
	switch (cmd) {
	case PMC_CPC_INFO:
		return cpc_ioctl_info(argp);
	case PMC_CPC_BIND:
		return cpc_ioctl_bind(cf, argp);
	case PMC_CPC_SAMPLE:
		return cpc_ioctl_sample(cf, argp);
	case PMC_CPC_PRESET:
		return cpc_ioctl_preset(cf, argp);
	case PMC_CPC_RELE:
		return cpc_ioctl_id(cf, argp, CPC_OP_RELE);
	case PMC_CPC_RESTART:
		return cpc_ioctl_id(cf, argp, CPC_OP_RESTART);
	case PMC_CPC_ENABLE:
		return cpc_ioctl_id(cf, argp, CPC_OP_ENABLE);
	case PMC_CPC_DISABLE:
		return cpc_ioctl_id(cf, argp, CPC_OP_DISABLE);
	default:
		return -ENOTTY;
	}
}

static int cpc_open(struct inode *inode, struct file *file)
{
	struct cpc_file *cf;

	cf = kzalloc(sizeof(*cf), GFP_KERNEL);
	if (!cf)
		return -ENOMEM;
	mutex_init(&cf->lock);
	INIT_LIST_HEAD(&cf->bindings);
	file->private_data = cf;
	return nonseekable_open(inode, file);
}

static int cpc_release(struct inode *inode, struct file *file)
{
	struct cpc_file *cf = file->private_data;
	struct cpc_binding *b, *tmp;

	mutex_lock(&cf->lock);
	list_for_each_entry_safe(b, tmp, &cf->bindings, node)
		cpc_binding_free(cf, b);
	mutex_unlock(&cf->lock);
	mutex_destroy(&cf->lock);
	kfree(cf);
	return 0;
}

static const struct file_operations cpc_fops = {
	.owner		= THIS_MODULE,
	.open		= cpc_open,
	.release	= cpc_release,
	.unlocked_ioctl	= cpc_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice cpc_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "cpc",
	.fops	= &cpc_fops,
	.mode	= 0660,		/* udev gives it to group pmcompat */
};

/*
 * The counters a set may use (pmc_arch_counters(): on x86 general-purpose
 * and fixed ones from perf or CPUID, on arm64 the real driver's event
 * counters and cycle counter), at most PMC_CPC_MAX_REQS; 4 when nothing
 * says (no CPU PMU).
 */
static unsigned int cpc_count_npic(void)
{
	unsigned int n = pmc_arch_counters();

	return min_t(unsigned int, n ?: 4, PMC_CPC_MAX_REQS);
}

int cpc_init(void)
{
	cpc_npic = cpc_count_npic();
	return misc_register(&cpc_misc);
}

void cpc_exit(void)
{
	misc_deregister(&cpc_misc);
}
