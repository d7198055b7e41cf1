// SPDX-License-Identifier: GPL-2.0
/*
 * qemu-planes: plane 0's side of a VM with planes, as a Linux module.
 *
 * At load it reads the plane configuration (/config-vm-planes, KEY=VALUE
 * lines), builds the 672-byte configuration entries, configures the
 * planes (hypercall 13), copies each plane's kernel into its region and
 * activates them (14).  Then /proc/vm-planes takes one command per write
 * and gives its result on read:
 *
 *   init             VTL call INIT
 *   echo TEXT        VTL call ECHO (the monitor answers TEXT reversed)
 *   seal             VTL call SEAL_KERNEL: this kernel's text R|X, rodata R
 *   loop N           N ECHO calls in a row
 *   parallel N       N ECHO calls on each of the first two CPUs at once
 *   call ID          a VTL call with that id and no argument
 *   poke-text        write into this kernel's (sealed) text
 *   poke-rodata      write into its (sealed) rodata
 *
 * The ABI is qemu-planes' docs/specs/planes-abi.rst, version 2.
 */

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/elf.h>
#include <linux/io.h>
#include <linux/kernel_read_file.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#define HC_CONFIG	13
#define HC_ACTIVATE	14
#define HC_VTL_CALL	15

#define CALL_INIT		0x1
#define CALL_SEAL_KERNEL	0x101
#define CALL_ECHO		0x7e000001

#define KF_RAW		0
#define KF_BZIMAGE	1
#define KF_ELF		2

#define MAX_PLANES	16
#define BOOT_STATE	(64 * 1024)
#define MAX_KERNEL	(256 * 1024 * 1024)
#define NOT_ANSWERED	0x7fffffff

struct plane_entry {
	u64 load_offset;
	u64 memory_size;
	u64 entry_point;
	u32 kernel_format;
	char kernel[128];
	char cmdline[512];
	u32 padding;
} __packed;
static_assert(sizeof(struct plane_entry) == 672);

#define CA_BUF_SIZE 4076
struct calling_area {
	u8 call_pending;
	u8 reserved[3];
	u32 call_id;
	s32 status;
	u32 arg_size;
	u32 resp_size;
	u8 buf[CA_BUF_SIZE];
} __packed;
static_assert(sizeof(struct calling_area) == 4096);

static char *config = "/config-vm-planes";
module_param(config, charp, 0444);
MODULE_PARM_DESC(config, "the plane configuration file");
static bool calls_only;
module_param(calls_only, bool, 0444);
MODULE_PARM_DESC(calls_only, "plane 1 was launched by the host: no CONFIG, "
		 "no load, no ACTIVATE (both must fail), VTL calls only");
/* Addresses from /proc/kallsyms: _stext, _etext, __start_rodata, __end_rodata */
static unsigned long stext, etext, srodata, erodata;
module_param(stext, ulong, 0444);
module_param(etext, ulong, 0444);
module_param(srodata, ulong, 0444);
module_param(erodata, ulong, 0444);

static struct plane_entry *planes;	/* one page, entry 0 unused */
static unsigned int plane_count;
static struct calling_area *areas[NR_CPUS];
static DEFINE_MUTEX(cmd_lock);
static char result[512];

static long hc(unsigned long nr, unsigned long a0, unsigned long a1)
{
	long ret;

	asm volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(a0), "c"(a1)
		     : "memory");
	return ret;
}

/* One VTL call on this CPU's calling area; the area holds the answer. */
static long vtl_call(struct calling_area *ca, u32 id, const void *arg,
		     u32 size)
{
	long rax;

	ca->call_id = id;
	ca->status = NOT_ANSWERED;
	ca->arg_size = size;
	ca->resp_size = 0;
	memcpy(ca->buf, arg, size);
	WRITE_ONCE(ca->call_pending, 1);
	rax = hc(HC_VTL_CALL, virt_to_phys(ca), 0);
	WRITE_ONCE(ca->call_pending, 0);
	return rax;
}

static long call_here(u32 id, const void *arg, u32 size, s32 *status,
		      void *resp, u32 *resp_size)
{
	struct calling_area *ca;
	long rax;
	int cpu = get_cpu();

	ca = areas[cpu];
	rax = vtl_call(ca, id, arg, size);
	*status = ca->status;
	if (resp_size)
		*resp_size = min_t(u32, ca->resp_size, CA_BUF_SIZE);
	if (resp && resp_size)
		memcpy(resp, ca->buf, *resp_size);
	put_cpu();
	return rax;
}

/* One ECHO; true if the monitor's answer is the request reversed. */
static bool echo_ok(const char *msg, long *rax, s32 *status)
{
	char resp[128];
	u32 n = strlen(msg), rn, i;

	*rax = call_here(CALL_ECHO, msg, n, status, resp, &rn);
	if (*rax || *status || rn != n)
		return false;
	for (i = 0; i < n; i++) {
		if (resp[i] != msg[n - 1 - i])
			return false;
	}
	return true;
}

static u64 pa_round(unsigned long va, bool up)
{
	phys_addr_t pa = slow_virt_to_phys((void *)va);

	return up ? PAGE_ALIGN(pa) : (pa & PAGE_MASK);
}

static void cmd_seal(void)
{
	u64 a[5];
	s32 st;
	long rax;

	if (!stext || !etext || !srodata || !erodata) {
		snprintf(result, sizeof(result), "seal: no symbol addresses\n");
		return;
	}
	a[0] = pa_round(stext, false);
	a[1] = pa_round(etext - 1, true) - a[0];
	a[2] = pa_round(srodata, false);
	a[3] = pa_round(erodata - 1, true) - a[2];
	a[4] = __read_cr3() & PAGE_MASK;
	rax = call_here(CALL_SEAL_KERNEL, a, sizeof(a), &st, NULL, NULL);
	snprintf(result, sizeof(result),
		 "seal rax=%ld status=%d text=0x%llx+0x%llx rodata=0x%llx+0x%llx\n",
		 rax, st, a[0], a[1], a[2], a[3]);
}

/* A write through a mapping of our own that allows it: only the plane
 * view forbids it. */
static void cmd_poke(unsigned long va, const char *what)
{
	phys_addr_t pa = slow_virt_to_phys((void *)va);
	struct page *pg = pfn_to_page(PHYS_PFN(pa));
	volatile u8 *p;
	u8 old;

	p = vmap(&pg, 1, VM_MAP, PAGE_KERNEL);
	if (!p) {
		snprintf(result, sizeof(result), "poke-%s: vmap failed\n", what);
		return;
	}
	p += offset_in_page(pa);
	old = *p;
	pr_emerg("vm-planes: writing 0x%02x into sealed %s at 0x%llx (holds 0x%02x)\n",
		 (u8)~old, what, (unsigned long long)pa, old);
	*p = ~old;
	/* Only reached if the seal did not hold: put the byte back. */
	*p = old;
	vunmap((void *)((unsigned long)p & PAGE_MASK));
	snprintf(result, sizeof(result), "poke-%s: the write went through (pa 0x%llx)\n",
		 what, (unsigned long long)pa);
}

struct par_job {
	int cpu;
	unsigned int n, ok, bad;
	long last_rax;
	s32 last_status;
	struct completion done;
};

static int par_thread(void *data)
{
	struct par_job *j = data;
	char msg[48];
	unsigned int i;

	for (i = 0; i < j->n; i++) {
		snprintf(msg, sizeof(msg), "cpu%d-call%u-abcdefgh", j->cpu, i);
		if (echo_ok(msg, &j->last_rax, &j->last_status))
			j->ok++;
		else
			j->bad++;
	}
	complete(&j->done);
	return 0;
}

static void cmd_parallel(unsigned int n)
{
	struct par_job jobs[2];
	int i, cpu = 0;

	if (num_online_cpus() < 2) {
		snprintf(result, sizeof(result), "parallel: one CPU only\n");
		return;
	}
	for (i = 0; i < 2; i++) {
		struct task_struct *t;

		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].cpu = cpu = cpumask_next(i ? cpu : -1, cpu_online_mask);
		jobs[i].n = n;
		init_completion(&jobs[i].done);
		t = kthread_create(par_thread, &jobs[i], "vm-planes/%d", cpu);
		if (IS_ERR(t)) {
			jobs[i].bad = n;
			complete(&jobs[i].done);
			continue;
		}
		kthread_bind(t, cpu);
		wake_up_process(t);
	}
	for (i = 0; i < 2; i++)
		wait_for_completion(&jobs[i].done);
	snprintf(result, sizeof(result),
		 "parallel cpu%d ok=%u bad=%u cpu%d ok=%u bad=%u last_rax=%ld,%ld\n",
		 jobs[0].cpu, jobs[0].ok, jobs[0].bad, jobs[1].cpu, jobs[1].ok,
		 jobs[1].bad, jobs[0].last_rax, jobs[1].last_rax);
}

static void run_cmd(char *cmd)
{
	unsigned int n;
	long rax;
	s32 st;
	u32 rn;
	char resp[256];

	if (!strcmp(cmd, "init")) {
		rax = call_here(CALL_INIT, NULL, 0, &st, NULL, NULL);
		snprintf(result, sizeof(result), "init rax=%ld status=%d\n", rax, st);
	} else if (!strncmp(cmd, "echo ", 5)) {
		u32 len = min_t(u32, strlen(cmd + 5), 200);

		rax = call_here(CALL_ECHO, cmd + 5, len, &st, resp, &rn);
		rn = min_t(u32, rn, 200);
		resp[rn] = 0;
		snprintf(result, sizeof(result),
			 "echo rax=%ld status=%d resp_size=%u resp=%s\n",
			 rax, st, rn, resp);
	} else if (!strcmp(cmd, "seal")) {
		cmd_seal();
	} else if (sscanf(cmd, "loop %u", &n) == 1) {
		unsigned int i, ok = 0;
		char msg[32];

		for (i = 0; i < n; i++) {
			snprintf(msg, sizeof(msg), "loop-%u", i);
			ok += echo_ok(msg, &rax, &st);
			cond_resched();
		}
		snprintf(result, sizeof(result), "loop calls=%u ok=%u\n", n, ok);
	} else if (sscanf(cmd, "parallel %u", &n) == 1) {
		cmd_parallel(n);
	} else if (sscanf(cmd, "call %i", &n) == 1) {
		rax = call_here(n, NULL, 0, &st, NULL, NULL);
		snprintf(result, sizeof(result), "call 0x%x rax=%ld status=%d\n",
			 n, rax, st);
	} else if (!strcmp(cmd, "poke-text")) {
		cmd_poke(stext + PAGE_SIZE, "text");
	} else if (!strcmp(cmd, "poke-rodata")) {
		cmd_poke(srodata + PAGE_SIZE, "rodata");
	} else {
		snprintf(result, sizeof(result), "unknown command '%s'\n", cmd);
	}
}

static ssize_t vmp_write(struct file *f, const char __user *ubuf, size_t len,
			 loff_t *off)
{
	char buf[256];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	strim(buf);
	mutex_lock(&cmd_lock);
	run_cmd(strim(buf));
	mutex_unlock(&cmd_lock);
	return len;
}

static ssize_t vmp_read(struct file *f, char __user *ubuf, size_t len,
			loff_t *off)
{
	ssize_t r;

	mutex_lock(&cmd_lock);
	r = simple_read_from_buffer(ubuf, len, off, result, strlen(result));
	mutex_unlock(&cmd_lock);
	return r;
}

static const struct proc_ops vmp_ops = {
	.proc_read = vmp_read,
	.proc_write = vmp_write,
	.proc_lseek = default_llseek,
};

/* KEY=VALUE lines; PLANE_n_ keys fill entry n.  Values may be quoted. */
static int parse_config(char *text)
{
	char *line, *key, *val;
	unsigned int n;
	u64 v;

	while ((line = strsep(&text, "\n"))) {
		line = strim(line);
		if (!*line || *line == '#')
			continue;
		val = strchr(line, '=');
		if (!val)
			goto bad;
		*val++ = 0;
		key = line;
		n = strlen(val);
		if (n >= 2 && val[0] == '"' && val[n - 1] == '"') {
			val[n - 1] = 0;
			val++;
		}
		if (!strcmp(key, "PLANE_COUNT")) {
			if (kstrtouint(val, 0, &plane_count) || plane_count < 2 ||
			    plane_count > MAX_PLANES)
				goto bad;
			continue;
		}
		if (sscanf(key, "PLANE_%u_", &n) != 1 || n < 1 || n >= MAX_PLANES)
			goto bad;
		key = strchr(key + 6, '_') + 1;
		if (!strcmp(key, "LOAD_OFFSET") && !kstrtou64(val, 0, &v))
			planes[n].load_offset = v;
		else if (!strcmp(key, "MEMORY_SIZE") && !kstrtou64(val, 0, &v))
			planes[n].memory_size = v;
		else if (!strcmp(key, "KERNEL"))
			strscpy(planes[n].kernel, val, sizeof(planes[n].kernel));
		else if (!strcmp(key, "KERNEL_FORMAT") && !kstrtou64(val, 0, &v))
			planes[n].kernel_format = v;
		else if (!strcmp(key, "CMDLINE"))
			strscpy(planes[n].cmdline, val, sizeof(planes[n].cmdline));
		else
			goto bad;
	}
	return plane_count ? 0 : -EINVAL;
bad:
	pr_err("vm-planes: %s: bad line '%s'\n", config, line);
	return -EINVAL;
}

/* Copy plane n's kernel into its region; fill its entry point. */
static int load_plane(unsigned int n)
{
	struct plane_entry *p = &planes[n];
	u64 limit = p->memory_size - BOOT_STATE;
	void *img = NULL, *region;
	size_t size;
	ssize_t r;
	int i, ret = -EINVAL;

	r = kernel_read_file_from_path(p->kernel, 0, &img, MAX_KERNEL, &size,
				       READING_UNKNOWN);
	if (r < 0) {
		pr_err("vm-planes: plane %u: cannot read %s: %zd\n", n, p->kernel, r);
		return r;
	}
	region = memremap(p->load_offset, p->memory_size, MEMREMAP_WB);
	if (!region) {
		pr_err("vm-planes: plane %u: cannot map its region\n", n);
		vfree(img);
		return -ENOMEM;
	}
	if (p->kernel_format == KF_ELF) {
		Elf64_Ehdr *eh = img;
		Elf64_Phdr *ph;

		if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
		    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
		    eh->e_machine != EM_X86_64 ||
		    eh->e_phoff + (u64)eh->e_phnum * sizeof(*ph) > size)
			goto out;
		ph = img + eh->e_phoff;
		for (i = 0; i < eh->e_phnum; i++, ph++) {
			if (ph->p_type != PT_LOAD)
				continue;
			if (ph->p_filesz > ph->p_memsz ||
			    ph->p_offset + ph->p_filesz > size ||
			    ph->p_paddr + ph->p_memsz > limit)
				goto out;
			memcpy(region + ph->p_paddr, img + ph->p_offset, ph->p_filesz);
			memset(region + ph->p_paddr + ph->p_filesz, 0,
			       ph->p_memsz - ph->p_filesz);
			pr_info("vm-planes: plane %u: segment 0x%llx+0x%llx at 0x%llx\n",
				n, ph->p_offset, ph->p_memsz,
				p->load_offset + ph->p_paddr);
		}
		if (eh->e_entry >= limit)
			goto out;
		p->entry_point = p->load_offset + eh->e_entry;
	} else {
		/* raw and bzImage: the whole file at the region's start */
		if (size > limit)
			goto out;
		memcpy(region, img, size);
		p->entry_point = p->load_offset;
	}
	ret = 0;
out:
	if (ret)
		pr_err("vm-planes: plane %u: %s is not a loadable image\n", n, p->kernel);
	memunmap(region);
	vfree(img);
	return ret;
}

static int __init vmp_init(void)
{
	void *text = NULL;
	size_t size;
	ssize_t r;
	long rc;
	unsigned int n;
	int cpu;

	planes = (void *)get_zeroed_page(GFP_KERNEL);
	if (!planes)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		areas[cpu] = (void *)get_zeroed_page(GFP_KERNEL);
		if (!areas[cpu])
			goto nomem;
	}
	if (calls_only) {
		/* The host launched plane 1 (-object plane-launch): it is not ours */
		rc = hc(HC_CONFIG, virt_to_phys(planes), 2);
		snprintf(result, sizeof(result),
			 "calls-only config=%ld activate=%ld\n", rc,
			 hc(HC_ACTIVATE, virt_to_phys(planes), 2));
		proc_create("vm-planes", 0600, NULL, &vmp_ops);
		return 0;
	}
	r = kernel_read_file_from_path(config, 0, &text, PAGE_SIZE - 1, &size,
				       READING_UNKNOWN);
	if (r < 0) {
		pr_err("vm-planes: cannot read %s: %zd\n", config, r);
		goto fail;
	}
	((char *)text)[size] = 0;
	r = parse_config(text);
	vfree(text);
	if (r)
		goto fail;

	rc = hc(HC_CONFIG, virt_to_phys(planes), plane_count);
	pr_notice("vm-planes: CONFIG %u planes -> %ld\n", plane_count, rc);
	if (rc) {
		r = -EIO;
		goto fail;
	}
	for (n = 1; n < plane_count; n++) {
		r = load_plane(n);
		if (r)
			goto fail;
	}
	rc = hc(HC_ACTIVATE, virt_to_phys(planes), plane_count);
	pr_notice("vm-planes: ACTIVATE -> %ld\n", rc);
	if (rc) {
		r = -EIO;
		goto fail;
	}
	snprintf(result, sizeof(result), "activated planes=%u entry=0x%llx\n",
		 plane_count, planes[1].entry_point);
	proc_create("vm-planes", 0600, NULL, &vmp_ops);
	return 0;
nomem:
	r = -ENOMEM;
fail:
	for_each_possible_cpu(cpu)
		free_page((unsigned long)areas[cpu]);
	free_page((unsigned long)planes);
	return r;
}
module_init(vmp_init);

/* Once activated the planes stay until reset: the module cannot go. */
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("qemu-planes: configure, load, activate and call a plane-1 kernel");
