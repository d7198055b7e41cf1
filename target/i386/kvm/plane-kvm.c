/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes, KVM backend for x86: planes need a kernel with the KVM VM
 * planes series (KVM_CAP_PLANES) and the split irqchip; on every other
 * kernel planes > 1 is refused before any vCPU exists.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "system/kvm.h"
#include "system/kvm_int.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/planes-kvm-uapi.h"
#include "plane-x86.h"

static bool plane_kvm_check_planes(MachineState *ms, unsigned int planes,
                                   Error **errp)
{
    KVMState *s = kvm_state;
    int max;

    if (s->kernel_irqchip_split != ON_OFF_AUTO_ON) {
        error_setg(errp, "-machine planes=%u: VM planes need "
                   "kernel-irqchip=split (the default with planes > 1), "
                   "not kernel-irqchip=%s", planes,
                   s->kernel_irqchip_allowed ? "on" : "off");
        return false;
    }
    max = kvm_vm_check_extension(s, KVM_CAP_PLANES);
    if (max <= 0) {
        error_setg(errp, "-machine planes=%u: this host's KVM does not "
                   "support planes (KVM_CAP_PLANES is %d); use -accel tcg, "
                   "or a kernel with VM planes", planes, MAX(max, 0));
        return false;
    }
    if (planes > max) {
        error_setg(errp, "-machine planes=%u: this host's KVM supports at "
                   "most %d planes (KVM_CAP_PLANES)", planes, max);
        return false;
    }
    /*
     * A planes kernel: the plane vCPU path (KVM_CREATE_PLANE, plane vCPU
     * fds, hypercall exits to the dispatcher) is not in this backend yet.
     */
    error_setg(errp, "-machine planes=%u: this host's KVM has planes "
               "(KVM_CAP_PLANES is %d), but this QEMU cannot run them with "
               "KVM yet; use -accel tcg", planes, max);
    return false;
}

static void plane_accel_kvm_class_init(ObjectClass *oc, void *data)
{
    PlaneAccelClass *pac = PLANE_ACCEL_CLASS(oc);

    pac->thread_tag = "KVM";
    pac->check_planes = plane_kvm_check_planes;
    pac->outside_ram_min = PLANE_X86_OUTSIDE_RAM_MIN;
    pac->phys_addr_limit = plane_x86_phys_addr_limit;
}

static const TypeInfo plane_accel_kvm_type_info = {
    .name = PLANE_ACCEL_NAME("kvm"),
    .parent = TYPE_PLANE_ACCEL,
    .abstract = true,
    .class_init = plane_accel_kvm_class_init,
};

static void plane_accel_kvm_register_types(void)
{
    type_register_static(&plane_accel_kvm_type_info);
}

type_init(plane_accel_kvm_register_types)
