/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the interface a backend (an accelerator on a target: x86 TCG,
 * x86 KVM) fills in behind the accelerator-neutral plane core.
 */

#ifndef HW_PLANES_PLANE_ACCEL_H
#define HW_PLANES_PLANE_ACCEL_H

#include "qom/object.h"
#include "exec/hwaddr.h"
#include "hw/boards.h"

typedef struct PlaneAccelClass PlaneAccelClass;
typedef struct PlaneVCPU PlaneVCPU;
typedef struct PlaneSet PlaneSet;
typedef struct Plane Plane;

#define TYPE_PLANE_ACCEL "plane-accel"
/* Like ACCEL_OPS_NAME: the backend of "tcg-accel" is "tcg-accel-planes". */
#define PLANE_ACCEL_SUFFIX "-planes"
#define PLANE_ACCEL_NAME(name) (name "-accel" PLANE_ACCEL_SUFFIX)
DECLARE_CLASS_CHECKERS(PlaneAccelClass, PLANE_ACCEL, TYPE_PLANE_ACCEL)

/* What ACTIVATE hands the backend to enter a plane for the first time. */
/*
 * Why the core changes a view: a plane's SET_MEM_ATTRS, or ACTIVATE's
 * seal of a region against a lower plane (and its roll-back, and reset).
 */
typedef enum PlaneMemAttrsIntent {
    PLANE_MEM_ATTRS_GUEST,
    PLANE_MEM_ATTRS_SEAL,
} PlaneMemAttrsIntent;

typedef struct PlaneBootInfo {
    hwaddr region_base;
    uint64_t region_size;
    hwaddr entry_point;
    uint32_t kernel_format;     /* PLANE_KERNEL_* */
    const char *cmdline;        /* NUL-terminated, at most 511 characters */
    /* An initrd in the region (plane-launch's initrd=), else size 0 */
    hwaddr initrd_base;
    uint64_t initrd_size;
} PlaneBootInfo;

/*
 * The registers a plane enters its boot state with (x86 names; the launch
 * measurement hashes them in this order: docs/system/i386/planes.rst).
 */
typedef struct PlaneBootRegs {
    uint64_t rip, rsp, rsi, cr0, cr3, cr4, efer, rflags;
    uint64_t gdt_base, gdt_limit;
} PlaneBootRegs;

/* PLANE_ENABLE_VCPU's register block, as the guest wrote it. */
typedef struct PlaneEntryRegs {
    uint64_t rip;
    uint64_t rsp;
    uint64_t cr3;
    uint64_t rflags;
    uint64_t rax;
} PlaneEntryRegs;

/*
 * A backend registers a class named PLANE_ACCEL_NAME("tcg") (etc.) for the
 * accelerator it serves; an accelerator without one supports planes=1 only.
 * Every hook is called with the BQL held.
 */
struct PlaneAccelClass {
    ObjectClass parent_class;

    /* Suffix of plane vCPU thread names ("CPU 0/P1/TCG"), like the accel's. */
    const char *thread_tag;

    /*
     * The host switches planes itself (KVM on the VBS-on-KVM series'
     * kernel, which switches inside plane 0's KVM_RUN): plane >= 1 vCPU
     * states are the host's, with no CPUState and no thread in QEMU, and
     * only CONFIG, ACTIVATE and a VTL call the host cannot serve reach the
     * core.  vcpu_create, boot_vcpu and the switching hooks are unused;
     * host_activate starts the planes instead.
     */
    bool host_switches_planes;

    /*
     * init_host: check that this host and accelerator can run @planes
     * planes on @ms and prepare what the host needs for them (KVM makes
     * the kernel's planes later, once the vCPUs exist); called once,
     * before any vCPU is created.
     * Optional: without it, any number up to PLANES_MAX is fine.
     */
    bool (*init_host)(MachineState *ms, unsigned int planes, Error **errp);

    /*
     * vcpu_create: create and realize, as child "cpu" of @parent, the vCPU
     * state of plane @plane_id on the vCPU index of @plane0_cpu: same CPU
     * model and APIC ID, its own registers, TLB, APIC and thread, initially
     * switched out.
     */
    CPUState *(*vcpu_create)(Object *parent, CPUState *plane0_cpu,
                             unsigned int plane_id, Error **errp);

    /* Guest-physical layout: fresh plane RAM only at or above this. */
    hwaddr outside_ram_min;
    /* First guest-physical address the vCPUs cannot address. */
    hwaddr (*phys_addr_limit)(CPUState *cpu);

    /*
     * prepare_boot: check the kernel image @info names (a bzImage: its
     * setup header at the region's start) and set @info->entry_point to
     * where the plane starts.  The core checked the region, the format
     * number and the guest's entry point.  Returns %false with a reason
     * in *@why (for the guest error log) when the image cannot boot.
     */
    bool (*prepare_boot)(PlaneBootInfo *info, char **why);

    /*
     * boot_vcpu: build the boot state of @info at the top of its region in
     * guest memory and load @cpu's registers to enter it.  @info is the
     * one prepare_boot accepted.
     */
    void (*boot_vcpu)(CPUState *cpu, const PlaneBootInfo *info);

    /* boot_regs: the registers boot_vcpu gives a plane booting @info. */
    void (*boot_regs)(const PlaneBootInfo *info, PlaneBootRegs *regs);

    /*
     * host_activate: (host_switches_planes) give plane @plane_id a vCPU
     * state on vCPU index @cpu_index that enters @info's boot state (built
     * in guest memory by then) when the host first switches to it.
     */
    bool (*host_activate)(unsigned int plane_id, unsigned int cpu_index,
                          const PlaneBootInfo *info, Error **errp);

    /* set_return: the value a switched-out vCPU's hypercall returns. */
    void (*set_return)(CPUState *cpu, uint64_t value);

    /*
     * enter_vtl_call: a parked plane state resumes for a VTL call: its
     * hypercall returns the calling area's address, nothing else changes.
     */
    void (*enter_vtl_call)(CPUState *cpu, hwaddr calling_area);

    /* set_entry_regs: PLANE_ENABLE_VCPU's registers on top of a copy. */
    void (*set_entry_regs)(CPUState *cpu, const PlaneEntryRegs *regs);

    /* copy_parked_state: @dst resumes where @src parked. */
    void (*copy_parked_state)(CPUState *dst, CPUState *src);

    /*
     * apply_mem_attrs: give plane @plane's attributes @attrs on
     * [@start, @start + @size) to the host, before the core records them
     * (KVM: KVM_SET_MEMORY_ATTRIBUTES); @intent says whether a guest
     * asked (SET_MEM_ATTRS) or the core seals a region (or resets).
     * Returns 0 or the negative KVM code the hypercall fails with,
     * leaving the old attributes in place.
     * Optional: backends that enforce attributes themselves omit it.
     */
    int (*apply_mem_attrs)(unsigned int plane, hwaddr start, uint64_t size,
                           uint32_t attrs, PlaneMemAttrsIntent intent);

    /*
     * mem_attrs_changed: plane @plane's view of [@start, @start + @size)
     * changed; cached translations of it must go.  @caller is the vCPU
     * state that made the change (it may be synchronised with the others).
     * Optional.
     */
    void (*mem_attrs_changed)(CPUState *caller, unsigned int plane,
                              hwaddr start, uint64_t size);

    /*
     * device_irq: a device of @cpu's plane (>= 1) set its interrupt line
     * to @level: raise or lower it at @cpu's input for devices (x86 TCG:
     * LINT0 of its local APIC, as the plane programmed it).  @cpu is the
     * plane's state on the index it booted on.  Optional: without it a
     * plane's devices have no interrupt line.
     */
    void (*device_irq)(CPUState *cpu, int level);

    /*
     * device_msi: a device of plane @plane (>= 1) wrote @data to the
     * interrupt message window at @address (x86: 0xfee00000 + the
     * destination).  Deliver it to the plane's state of the vCPU index it
     * addresses, held pending there while another plane runs on the index.
     * Returns false for a message no state of the plane takes (dropped).
     * Optional: without it a plane's devices have no message interrupts.
     */
    bool (*device_msi)(Plane *plane, uint64_t address, uint32_t data);
};

/**
 * plane_accel_class_get: the plane backend of the current accelerator
 *
 * Returns: the backend class, or %NULL when the accelerator has none.
 */
const PlaneAccelClass *plane_accel_class_get(void);

#endif
