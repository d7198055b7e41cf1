/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes, KVM backend for x86, on the planes kernel of the VBS-on-KVM
 * series ("kernel-switched"; provisional UAPI, see
 * hw/planes/planes-kvm-uapi.h).
 *
 * The kernel switches planes itself inside plane 0's KVM_RUN: a VTL call
 * (hypercall 15) enters plane 1 on the caller's index once plane 1 has a
 * vCPU there, and its return (16) and SET_MEM_ATTRS (17) never leave the
 * kernel.  So QEMU runs one thread per vCPU index, plane 0's, and a plane
 * >= 1 vCPU is only an fd of the plane, made and loaded on that thread
 * with the state ioctls the kernel allows on it.  What reaches QEMU are
 * CONFIG (13), ACTIVATE (14) and a VTL call (15) from an index without a
 * plane-1 vCPU: the shared dispatcher answers them.  The planes are
 * created once the vCPUs exist, before any runs (as the seed's VMM does).
 * ACTIVATE, from whichever index, gives plane 1 its vCPU on index 0, the
 * kernel's boot vCPU, on that index's thread; it enters the boot state at
 * the first VTL call from index 0 (the seed's VMM boots it as lazily),
 * and serves the VTL calls of index 0 only.  The kernel denies plane 0
 * what plane 1's SET_MEM_ATTRS denies, and reports a violation as
 * KVM_EXIT_MEMORY_FAULT (accel/kvm/kvm-planes.c).
 *
 * The RFC family's kernels, which leave the switching to userspace
 * (KVM_CREATE_VCPU_PLANE, kvm_run.plane), are recognised and refused, as
 * are kernels without planes.
 */

#include "qemu/osdep.h"
#include <sys/ioctl.h>
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "system/kvm.h"
#include "system/kvm_int.h"
#include "system/runstate.h"
#include "system/reset.h"
#include "system/system.h"
#include "system/kvm-planes.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-hypercall.h"
#include "hw/planes/plane-machine.h"
#include "hw/planes/planes-abi.h"
#include "hw/planes/planes-kvm-uapi.h"
#include "plane-x86.h"
#include "kvm_i386.h"
#include "plane-kvm.h"
#include "trace.h"

/* What the kernel passes on; 15 only from an index without plane 1. */
#define PLANE_KVM_HC_FIRST      PLANES_HC_CONFIG
#define PLANE_KVM_HC_LAST       PLANES_HC_VTL_CALL
#define PLANE_KVM_HYPERCALLS \
    MAKE_64BIT_MASK(PLANE_KVM_HC_FIRST, \
                    PLANE_KVM_HC_LAST - PLANE_KVM_HC_FIRST + 1)

/*
 * The index plane 1 lives on.  The kernel makes a new vCPU runnable only
 * if it is the VM's boot vCPU (KVM id 0, index 0: kvm_arch_vcpu_create()
 * in arch/x86/kvm/x86.c); any other waits for an INIT that only plane 1's
 * own local APIC could send, and KVM_SET_MP_STATE is not among the ioctls
 * a plane vCPU takes.  The series' VMM boots plane 1 there too, and its
 * guest pins every VTL call to CPU 0.
 */
#define PLANE_KVM_HOME_INDEX    0

/* Plane >= 1 vCPU fds that ACTIVATE made, by plane and vCPU index. */
static int *plane_kvm_vcpu_fd[PLANES_MAX];
static bool plane_kvm_activated;
static unsigned int plane_kvm_nr_planes;

/* What the VM's own configuration must be for planes under KVM. */
static bool plane_kvm_check_config(MachineState *ms, unsigned int planes,
                                   Error **errp)
{
    KVMState *s = kvm_state;

    if (s->kernel_irqchip_split != ON_OFF_AUTO_ON) {
        error_setg(errp, "-machine planes=%u: VM planes need "
                   "kernel-irqchip=split (the default with planes > 1), "
                   "not kernel-irqchip=%s", planes,
                   s->kernel_irqchip_allowed ? "on" : "off");
        return false;
    }
    if (ms->cgs) {
        /* Its own hypercall exits and memory attributes would clash. */
        error_setg(errp, "-machine planes=%u: planes do not work with "
                   "confidential-guest-support", planes);
        return false;
    }
    if (ms->planes_opts->violation_policy == PLANE_VIOLATION_POLICY_FAULT) {
        /* KVM_EXIT_MEMORY_FAULT names neither the access nor the address */
        error_setg(errp, "-machine plane-violation=fault: under KVM the "
                   "kernel reports a violation without the linear address "
                   "a #PF needs; use plane-violation=stop, or -accel tcg");
        return false;
    }
    return true;
}

/* KVM_CAP_PLANES: how many planes, or why none. */
static bool plane_kvm_check_planes(unsigned int planes, Error **errp)
{
    int max = kvm_planes_max();

    if (max <= 0) {
        error_setg(errp, "-machine planes=%u: this host's KVM does not "
                   "support planes (KVM_CAP_PLANES is %d); use -accel tcg, "
                   "or a kernel with VM planes", planes, max);
        return false;
    }
    if (planes > max) {
        error_setg(errp, "-machine planes=%u: this host's KVM supports at "
                   "most %d planes (KVM_CAP_PLANES)", planes, max);
        return false;
    }
    return true;
}

/* The kernel's planes model, probed on the planes it has just made. */
static bool plane_kvm_check_switching(unsigned int planes, Error **errp)
{
    if (kvm_planes_userspace_switched()) {
        error_setg(errp, "-machine planes=%u: this host's KVM leaves plane "
                   "switching to userspace (KVM_CREATE_VCPU_PLANE on plane "
                   "fds, the RFC family's model); this QEMU drives only "
                   "kernels that switch planes themselves (the VBS-on-KVM "
                   "series)", planes);
        return false;
    }
    return true;
}

/* Which plane hypercalls the kernel passes on to QEMU. */
static bool plane_kvm_check_exits(unsigned int planes, Error **errp)
{
    int exits = kvm_vm_check_extension(kvm_state, KVM_CAP_EXIT_HYPERCALL);

    if ((exits & PLANE_KVM_HYPERCALLS) != PLANE_KVM_HYPERCALLS) {
        error_setg(errp, "-machine planes=%u: this host's KVM does not "
                   "pass the plane hypercalls %d-%d to userspace "
                   "(KVM_CAP_EXIT_HYPERCALL is 0x%x, needs 0x%" PRIx64 ")",
                   planes, PLANE_KVM_HC_FIRST, PLANE_KVM_HC_LAST,
                   MAX(exits, 0), (uint64_t)PLANE_KVM_HYPERCALLS);
        return false;
    }
    return true;
}

/*
 * The planes, made once every vCPU exists and before any runs, as the
 * series' VMM makes them (KVM_CREATE_PLANE needs the split irqchip,
 * which kvm_init() made before).  Machine init cannot fail here any
 * more: a refusal ends QEMU as the command line's would.
 */
static void plane_kvm_create_planes(Notifier *notifier, void *data)
{
    unsigned int planes = plane_kvm_nr_planes;
    Error *err = NULL;

    if (!kvm_planes_init(planes, &err)) {
        error_prepend(&err, "-machine planes=%u: ", planes);
    } else if (plane_kvm_check_switching(planes, &err)) {
        return;
    }
    error_report_err(err);
    exit(EXIT_FAILURE);
}

static Notifier plane_kvm_machine_done = {
    .notify = plane_kvm_create_planes,
};

/*
 * The kernel keeps plane 1's vCPU, and the views plane 1 set, through a
 * reset: no ioctl takes them back.  A plane 0 rebooted beside them would
 * find its own pages sealed and its VTL calls served by the old secure
 * kernel, so a VM whose planes were activated powers off instead.
 */
static void plane_kvm_reset(void *opaque)
{
    if (plane_kvm_activated) {
        error_report("planes: the host kernel keeps plane 1 and its memory "
                     "views through a reset; the VM powers off instead");
        qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_ERROR);
    }
}

static bool plane_kvm_init_host(MachineState *ms, unsigned int planes,
                                Error **errp)
{
    ERRP_GUARD();

    if (!plane_kvm_check_config(ms, planes, errp) ||
        !plane_kvm_check_planes(planes, errp)) {
        return false;
    }
    if (!plane_kvm_check_exits(planes, errp)) {
        return false;
    }
    if (!kvm_enable_hypercall(PLANE_KVM_HYPERCALLS)) {
        error_setg(errp, "-machine planes=%u: enabling KVM_CAP_EXIT_HYPERCALL "
                   "for the plane hypercalls failed", planes);
        return false;
    }
    for (unsigned int p = 1; p < planes; p++) {
        plane_kvm_vcpu_fd[p] = g_new(int, ms->smp.cpus);
        for (unsigned int i = 0; i < ms->smp.cpus; i++) {
            plane_kvm_vcpu_fd[p][i] = -1;
        }
    }
    plane_kvm_nr_planes = planes;
    qemu_add_machine_init_done_notifier(&plane_kvm_machine_done);
    qemu_register_reset(plane_kvm_reset, NULL);
    plane_x86_restrict_guest_features();
    return true;
}

bool plane_kvm_owns_hypercall(uint64_t nr)
{
    return plane_hypercalls_enabled && nr >= PLANE_KVM_HC_FIRST &&
           nr <= PLANE_KVM_HC_LAST;
}

int plane_kvm_handle_hypercall(CPUState *cs, struct kvm_run *run)
{
    PlaneHypercall hc = {
        .cpu = cs,
        /* KVM answers -KVM_EPERM at CPL > 0 itself, without an exit. */
        .cpl = 0,
        .nr = run->hypercall.nr,
        .args = {
            run->hypercall.args[0], run->hypercall.args[1],
            run->hypercall.args[2], run->hypercall.args[3],
        },
    };
    uint64_t ret;

    trace_plane_kvm_hypercall(cs->cpu_index, hc.nr);
    /* The host switches planes: the dispatcher never switches here. */
    if (plane_hypercall(&hc, &ret)) {
        error_report("KVM: vCPU %d: the planes core switched planes on "
                     "hypercall %" PRIu64 ", which the host kernel owns",
                     cs->cpu_index, hc.nr);
        return -1;
    }
    /* Outside 64-bit mode only the low 32 bits count. */
    if (!(run->hypercall.flags & KVM_EXIT_HYPERCALL_LONG_MODE)) {
        ret = (uint32_t)ret;
    }
    run->hypercall.ret = ret;
    return 0;
}

static struct kvm_segment plane_kvm_boot_segment(uint16_t selector,
                                                 bool code)
{
    return (struct kvm_segment) {
        .base = 0,
        .limit = 0xffffffff,
        .selector = selector,
        .type = code ? 0xb : 0x3,       /* execute/read or read/write, A */
        .present = 1,
        .s = 1,
        .l = code,
        .db = !code,
        .g = 1,
    };
}

/*
 * The boot state of planes-abi.md, ACTIVATE, as KVM_SET_SREGS and
 * KVM_SET_REGS take it (plane_x86_boot_vcpu() builds the same in a
 * CPUX86State for TCG).
 */
static void plane_kvm_boot_regs(const PlaneBootInfo *info,
                                struct kvm_regs *regs,
                                struct kvm_sregs *sregs)
{
    uint64_t top = info->region_base + info->region_size;
    struct kvm_segment data = plane_kvm_boot_segment(PLANE_BOOT_GDT_DS,
                                                     false);

    *regs = (struct kvm_regs) {
        .rip = info->entry_point,
        .rsp = top,
        .rsi = top - PLANE_BOOT_PARAMS,
        .rflags = PLANE_X86_BOOT_RFLAGS,
    };
    *sregs = (struct kvm_sregs) {
        .cs = plane_kvm_boot_segment(PLANE_BOOT_GDT_CS, true),
        .ds = data, .es = data, .fs = data, .gs = data, .ss = data,
        /* a busy 64-bit TSS and no LDT: what VM entry requires */
        .tr = { .limit = 0xffff, .type = 0xb, .present = 1 },
        .ldt = { .unusable = 1 },
        .gdt = { .base = top - PLANE_BOOT_GDT,
                 .limit = PLANE_X86_BOOT_GDT_SIZE - 1 },
        .cr0 = PLANE_X86_BOOT_CR0,
        .cr3 = top - PLANE_BOOT_PAGETABLES,
        .cr4 = PLANE_X86_BOOT_CR4,
        .efer = PLANE_X86_BOOT_EFER,
        .apic_base = PLANE_X86_BOOT_APIC_BASE,
    };
}

typedef struct PlaneKVMActivate {
    unsigned int plane;
    const PlaneBootInfo *info;
    Error **errp;
    bool ok;
} PlaneKVMActivate;

/* On the index's thread, the only one the kernel lets touch the state. */
static void plane_kvm_activate_on_index(CPUState *cs, run_on_cpu_data data)
{
    PlaneKVMActivate *a = data.host_ptr;
    struct kvm_regs regs;
    struct kvm_sregs sregs;
    int fd = plane_kvm_vcpu_fd[a->plane][cs->cpu_index];
    int r;

    if (fd < 0) {
        fd = kvm_planes_create_vcpu(a->plane, kvm_arch_vcpu_id(cs));
        if (fd < 0) {
            error_setg_errno(a->errp, -fd, "KVM_CREATE_VCPU of plane %u "
                             "failed", a->plane);
            return;
        }
        plane_kvm_vcpu_fd[a->plane][cs->cpu_index] = fd;
    }
    plane_kvm_boot_regs(a->info, &regs, &sregs);
    r = ioctl(fd, KVM_SET_SREGS, &sregs);
    if (!r) {
        r = ioctl(fd, KVM_SET_REGS, &regs);
    }
    trace_plane_kvm_activate(a->plane, cs->cpu_index, fd, regs.rip,
                             r < 0 ? -errno : 0);
    if (r < 0) {
        error_setg_errno(a->errp, errno, "loading plane %u's boot state "
                         "(KVM_SET_SREGS/KVM_SET_REGS) failed", a->plane);
        return;
    }
    a->ok = true;
}

static bool plane_kvm_host_activate(unsigned int plane_id,
                                    unsigned int cpu_index,
                                    const PlaneBootInfo *info, Error **errp)
{
    PlaneKVMActivate a = {
        .plane = plane_id, .info = info, .errp = errp,
    };

    if (cpu_index != PLANE_KVM_HOME_INDEX) {
        error_setg(errp, "plane %u can only live on vCPU %u, the host "
                   "kernel's boot vCPU, not on vCPU %u", plane_id,
                   PLANE_KVM_HOME_INDEX, cpu_index);
        return false;
    }
    plane_x86_build_boot_state(info);
    /* From here the kernel may switch to the plane: it exists. */
    plane_kvm_activated = true;
    /* inline when index 0 called, else index 0 leaves KVM_RUN for it */
    run_on_cpu(qemu_get_cpu(PLANE_KVM_HOME_INDEX),
               plane_kvm_activate_on_index, RUN_ON_CPU_HOST_PTR(&a));
    return a.ok;
}

/*
 * The seed kernel takes plane attributes from HC 17 only.  ACTIVATE's
 * seal stays QEMU's record, which QEMU's own accesses for plane 0 (device
 * DMA, firmware interfaces) honour; what the CPU may touch is the
 * kernel's.  A guest's SET_MEM_ATTRS never leaves the kernel.
 */
static int plane_kvm_apply_mem_attrs(unsigned int plane, hwaddr start,
                                     uint64_t size, uint32_t attrs,
                                     PlaneMemAttrsIntent intent)
{
    return intent == PLANE_MEM_ATTRS_SEAL ? 0 : -PLANES_KVM_EOPNOTSUPP;
}

static void plane_accel_kvm_class_init(ObjectClass *oc, void *data)
{
    PlaneAccelClass *pac = PLANE_ACCEL_CLASS(oc);

    pac->thread_tag = "KVM";
    pac->host_switches_planes = true;
    pac->init_host = plane_kvm_init_host;
    pac->host_activate = plane_kvm_host_activate;
    pac->apply_mem_attrs = plane_kvm_apply_mem_attrs;
}

static const TypeInfo plane_accel_kvm_type_info = {
    .name = PLANE_ACCEL_NAME("kvm"),
    .parent = TYPE_PLANE_ACCEL_X86,
    .abstract = true,
    .class_init = plane_accel_kvm_class_init,
};

static void plane_accel_kvm_register_types(void)
{
    type_register_static(&plane_accel_kvm_type_info);
}

type_init(plane_accel_kvm_register_types)
