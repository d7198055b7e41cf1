// SPDX-License-Identifier: GPL-2.0
/*
 * qemu-planes: a Linux kernel as the secure kernel of plane 1.
 *
 * Platform setup: plane 1 shares the chipset (PIC, IOAPIC, PIT, HPET, RTC,
 * keyboard controller) and low memory with plane 0, so this kernel touches
 * none of them: no BIOS/MP table scans, no real-mode trampoline (its view
 * has no RAM below 1 MiB), a TSC of a set frequency instead of a PIT
 * calibration, no wallclock, reboot by triple fault.
 *
 * Secure monitor: after the kernel booted it hides its own region from
 * plane 0 (SET_MEM_ATTRS, mask 0), parks with VTL_RETURN and serves each
 * VTL call in the calling area whose address VTL_RETURN hands back.
 *
 * The ABI is qemu-planes' docs/specs/planes-abi.rst, version 2.
 */

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/io.h>
#include <linux/irqflags.h>
#include <linux/panic.h>
#include <linux/printk.h>
#include <linux/reboot.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/e820/api.h>
#include <asm/i8259.h>
#include <asm/setup.h>
#include <asm/x86_init.h>

#define HC_VTL_RETURN		16
#define HC_SET_MEM_ATTRS	17

#define MEM_R			1
#define MEM_X			4

#define CALL_INIT		0x1
#define CALL_SEAL_KERNEL	0x101
/* Call ids of qemu-planes' tests, not of the series. */
#define CALL_ECHO		0x7e000001
#define CALL_PANIC		0x7e000002

#define CA_BUF_SIZE		4076

struct calling_area {
	u8 call_pending;
	u8 reserved[3];
	u32 call_id;
	s32 status;
	u32 arg_size;
	u32 resp_size;
	u8 buf[CA_BUF_SIZE];
} __packed;

struct seal_args {
	u64 text_gpa, text_size, rodata_gpa, rodata_size, cr3;
} __packed;

static unsigned long vmp_tsc_khz = 1000000;

static int __init vmp_tsc_khz_param(char *s)
{
	return kstrtoul(s, 0, &vmp_tsc_khz);
}
early_param("vm_planes.tsc_khz", vmp_tsc_khz_param);

static unsigned long __init vmp_calibrate(void)
{
	/* No PIT to measure against: the frequency is a given. */
	setup_force_cpu_cap(X86_FEATURE_TSC_KNOWN_FREQ);
	return vmp_tsc_khz;
}

static void vmp_get_wallclock(struct timespec64 *ts)
{
	ts->tv_sec = 0;
	ts->tv_nsec = 0;
}

static int vmp_set_wallclock(const struct timespec64 *ts)
{
	return -ENODEV;
}

void __init vm_planes_secure_setup(void)
{
	x86_init.resources.probe_roms = x86_init_noop;
	x86_init.mpparse.find_mptable = x86_init_noop;
	x86_init.mpparse.early_parse_smp_cfg = x86_init_noop;
	x86_init.mpparse.parse_smp_cfg = x86_init_noop;
	x86_init.irqs.pre_vector_init = x86_init_noop;
	x86_init.timers.timer_init = x86_init_noop;

	x86_platform.calibrate_cpu = vmp_calibrate;
	x86_platform.calibrate_tsc = vmp_calibrate;
	x86_platform.get_wallclock = vmp_get_wallclock;
	x86_platform.set_wallclock = vmp_set_wallclock;
	x86_platform.realmode_reserve = x86_init_noop;
	x86_platform.realmode_init = x86_init_noop;
	x86_platform.legacy.rtc = 0;
	x86_platform.legacy.warm_reset = 0;
	x86_platform.legacy.no_vga = 1;
	x86_platform.legacy.reserve_bios_regions = 0;
	x86_platform.legacy.i8042 = X86_LEGACY_I8042_PLATFORM_ABSENT;
	x86_platform.legacy.devices.pnpbios = 0;

	legacy_pic = &null_legacy_pic;
	/* A triple fault stops plane 1 alone; the keyboard controller is shared. */
	reboot_type = BOOT_TRIPLE;
}

static long vmp_hc(unsigned long nr, unsigned long a0, unsigned long a1,
		   unsigned long a2)
{
	long ret;

	asm volatile("vmcall"
		     : "=a"(ret)
		     : "a"(nr), "b"(a0), "c"(a1), "d"(a2)
		     : "memory");
	return ret;
}

/* Plane 0's calling areas, mapped once each. */
#define CA_SLOTS 16
static struct {
	u64 gpa;
	struct calling_area *ca;
} ca_map[CA_SLOTS];

static struct calling_area *vmp_map_ca(u64 gpa)
{
	void *p;
	int i;

	for (i = 0; i < CA_SLOTS && ca_map[i].ca; i++) {
		if (ca_map[i].gpa == gpa)
			return ca_map[i].ca;
	}
	/* memremap may sleep: nothing else runs on this uniprocessor. */
	local_irq_enable();
	p = memremap(gpa, PAGE_SIZE, MEMREMAP_WB);
	local_irq_disable();
	if (!p)
		return NULL;
	if (i == CA_SLOTS) {
		memunmap(ca_map[0].ca);
		memmove(&ca_map[0], &ca_map[1], sizeof(ca_map[0]) * (CA_SLOTS - 1));
		i = CA_SLOTS - 1;
	}
	ca_map[i].gpa = gpa;
	ca_map[i].ca = p;
	return p;
}

static bool vmp_initialized;
static unsigned long vmp_calls, vmp_echoes;

static s32 vmp_seal(struct calling_area *ca)
{
	struct seal_args a;
	long r;

	if (!vmp_initialized)
		return -EPERM;
	if (ca->arg_size < sizeof(a))
		return -EINVAL;
	memcpy(&a, ca->buf, sizeof(a));
	pr_info("vm-planes monitor: SEAL_KERNEL text 0x%llx+0x%llx rodata 0x%llx+0x%llx cr3 0x%llx\n",
		a.text_gpa, a.text_size, a.rodata_gpa, a.rodata_size, a.cr3);
	r = vmp_hc(HC_SET_MEM_ATTRS, a.text_gpa, a.text_size, MEM_R | MEM_X);
	if (r) {
		pr_info("vm-planes monitor: SET_MEM_ATTRS text R|X -> %ld\n", r);
		return r;
	}
	r = vmp_hc(HC_SET_MEM_ATTRS, a.rodata_gpa, a.rodata_size, MEM_R);
	if (r)
		pr_info("vm-planes monitor: SET_MEM_ATTRS rodata R -> %ld\n", r);
	return r;
}

/* Not inlined: a debugger breaks here by name (docs/system/i386/planes.rst). */
static noinline void vmp_serve(struct calling_area *ca)
{
	u32 n, i;
	s32 st = 0;

	ca->resp_size = 0;
	vmp_calls++;
	switch (ca->call_id) {
	case CALL_INIT:
		vmp_initialized = true;
		pr_info("vm-planes monitor: INIT\n");
		break;
	case CALL_ECHO:
		/* The request reversed: a response the VMM could not forge. */
		n = min_t(u32, ca->arg_size, CA_BUF_SIZE);
		for (i = 0; i < n / 2; i++)
			swap(ca->buf[i], ca->buf[n - 1 - i]);
		ca->resp_size = n;
		if (!(vmp_echoes++ % 1000))
			pr_info("vm-planes monitor: ECHO #%lu (%u bytes)\n",
				vmp_echoes, n);
		break;
	case CALL_SEAL_KERNEL:
		st = vmp_seal(ca);
		break;
	case CALL_PANIC:
		panic("vm-planes monitor: panic requested by plane 0");
	default:
		pr_info("vm-planes monitor: unknown call 0x%x\n", ca->call_id);
		st = -EINVAL;
	}
	ca->status = st;
}

static int __init vm_planes_monitor(void)
{
	u64 base = U64_MAX, top = 0;
	struct calling_area *ca;
	long r, gpa;
	int i;

	for (i = 0; i < e820_table_firmware->nr_entries; i++) {
		struct e820_entry *e = &e820_table_firmware->entries[i];

		base = min(base, e->addr);
		top = max(top, e->addr + e->size);
	}
	r = vmp_hc(HC_SET_MEM_ATTRS, base, top - base, 0);
	pr_info("vm-planes monitor: region 0x%llx-0x%llx hidden from plane 0: %ld\n",
		base, top - 1, r);

	local_irq_disable();
	pr_info("vm-planes monitor: parked, serving VTL calls\n");
	r = 0;
	for (;;) {
		gpa = vmp_hc(HC_VTL_RETURN, r, 0, 0);
		r = 0;
		if (gpa <= 0 || (gpa & ~PAGE_MASK)) {
			pr_info("vm-planes monitor: VTL_RETURN -> %ld\n", gpa);
			r = -EINVAL;
			continue;
		}
		ca = vmp_map_ca(gpa);
		if (!ca) {
			pr_info("vm-planes monitor: cannot map calling area 0x%lx\n",
				gpa);
			r = -EFAULT;
			continue;
		}
		vmp_serve(ca);
		r = ca->status;
	}
	return 0;
}
late_initcall(vm_planes_monitor);
