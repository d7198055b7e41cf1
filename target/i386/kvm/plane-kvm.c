/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes, KVM backend for x86, on the kernel VM planes UAPI
 * (KVM_CAP_PLANES; provisional, see hw/planes/planes-kvm-uapi.h).
 *
 * Each plane >= 1 vCPU state is a KVM vCPU of its plane's fd with its own
 * thread and KVM_RUN loop; the core's hand-over decides which plane runs
 * on a vCPU index, so QEMU, not the kernel, switches planes.  For that
 * the plane hypercalls must exit to userspace (KVM_CAP_EXIT_HYPERCALL),
 * where they reach the same dispatcher as under TCG.  Per-plane memory
 * attributes go to the kernel with KVM_SET_MEMORY_ATTRIBUTES on the plane
 * fd.  On kernels without VM planes, planes > 1 is refused before any
 * vCPU exists.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "system/kvm.h"
#include "system/kvm_int.h"
#include "system/hw_accel.h"
#include "system/kvm-planes.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/planes-abi.h"
#include "hw/planes/planes-kvm-uapi.h"
#include "plane-x86.h"
#include "kvm_i386.h"
#include "plane-kvm.h"
#include "trace.h"

#define PLANE_KVM_HYPERCALLS \
    MAKE_64BIT_MASK(PLANES_HC_FIRST, PLANES_HC_LAST - PLANES_HC_FIRST + 1)
#define PLANE_KVM_ATTRS \
    (KVM_MEMORY_ATTRIBUTE_NO_WRITE | KVM_MEMORY_ATTRIBUTE_NO_EXEC)

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
    return true;
}

/* What the host kernel must offer: planes, their exits, attributes. */
static bool plane_kvm_check_kernel(unsigned int planes, Error **errp)
{
    KVMState *s = kvm_state;
    int max = kvm_planes_max(), exits;
    uint64_t attrs;

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
    /*
     * QEMU switches planes, so every plane hypercall must come to it: a
     * kernel that keeps some of them would switch behind the core's back.
     */
    exits = kvm_vm_check_extension(s, KVM_CAP_EXIT_HYPERCALL);
    if ((exits & PLANE_KVM_HYPERCALLS) != PLANE_KVM_HYPERCALLS) {
        error_setg(errp, "-machine planes=%u: this host's KVM does not "
                   "pass the plane hypercalls %d-%d to userspace "
                   "(KVM_CAP_EXIT_HYPERCALL is 0x%x, needs 0x%" PRIx64 ")",
                   planes, PLANES_HC_FIRST, PLANES_HC_LAST, MAX(exits, 0),
                   (uint64_t)PLANE_KVM_HYPERCALLS);
        return false;
    }
    attrs = kvm_planes_supported_attributes(0);
    if ((attrs & PLANE_KVM_ATTRS) != PLANE_KVM_ATTRS) {
        error_setg(errp, "-machine planes=%u: this host's KVM has no "
                   "per-plane NO_WRITE/NO_EXEC memory attributes "
                   "(KVM_CAP_MEMORY_ATTRIBUTES is 0x%" PRIx64 ")", planes,
                   attrs);
        return false;
    }
    return true;
}

static bool plane_kvm_init_host(MachineState *ms, unsigned int planes,
                                Error **errp)
{
    ERRP_GUARD();

    if (!plane_kvm_check_config(ms, planes, errp) ||
        !plane_kvm_check_kernel(planes, errp)) {
        return false;
    }
    if (!kvm_planes_init(planes, errp)) {
        error_prepend(errp, "-machine planes=%u: ", planes);
        return false;
    }
    if (!kvm_enable_hypercall(PLANE_KVM_HYPERCALLS)) {
        error_setg(errp, "-machine planes=%u: enabling KVM_CAP_EXIT_HYPERCALL "
                   "for the plane hypercalls failed", planes);
        return false;
    }
    plane_x86_restrict_guest_features();
    return true;
}

bool plane_kvm_owns_hypercall(uint64_t nr)
{
    return plane_hypercalls_enabled && nr >= PLANES_HC_FIRST &&
           nr <= PLANES_HC_LAST;
}

/*
 * Retire the hypercall instruction now, as KVM_RUN does on re-entry (RIP
 * past it, RAX = hypercall.ret): KVM_RUN with immediate_exit completes a
 * pending userspace exit without running the guest (api.rst, "kvm_run").
 * From here on the vCPU's registers are architectural: the core may copy
 * this state to other vCPU indexes, and a switched-out vCPU state carries
 * no completion that would later land on registers the core set.
 */
static bool plane_kvm_retire_hypercall(CPUState *cs, struct kvm_run *run)
{
    int r;

    run->hypercall.ret = 0;
    qatomic_set(&run->immediate_exit, 1);
    r = kvm_vcpu_ioctl(cs, KVM_RUN, 0);
    /* As kvm_eat_signals(); a kick meanwhile stays in exit_request. */
    qatomic_set(&run->immediate_exit, 0);
    if (r != -EINTR && r != -EAGAIN) {
        error_report("KVM: vCPU %d plane %u: completing hypercall %" PRIu64
                     " failed (KVM_RUN returned %d)", cs->cpu_index,
                     cs->plane_id, (uint64_t)run->hypercall.nr, r);
        return false;
    }
    return true;
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

    trace_plane_kvm_hypercall(cs->cpu_index, cs->plane_id, hc.nr);
    if (!plane_kvm_retire_hypercall(cs, run)) {
        return -1;
    }
    if (plane_hypercall(&hc, &ret)) {
        /* Switched out: wait in qemu_wait_io_event() until switched in. */
        return EXCP_HALTED;
    }
    if (ret) {
        plane_set_get()->accel->set_return(cs, ret);
    }
    return 0;
}

bool plane_kvm_is_plane_event(const struct kvm_run *run)
{
    return plane_hypercalls_enabled &&
           run->exit_reason == KVM_EXIT_PLANE_EVENT;
}

/*
 * QEMU asks for no plane events (req_exit_planes stays 0): one that comes
 * all the same means the kernel and this backend disagree on who switches
 * planes.  Stop the VM with its state intact rather than guess.
 */
int plane_kvm_handle_plane_event(CPUState *cs, struct kvm_run *run)
{
    const struct kvm_plane_event_exit *ev =
        (const struct kvm_plane_event_exit *)&run->padding;

    error_report("KVM: vCPU %d plane %u: unexpected plane event exit "
                 "(KVM_EXIT_PLANE_EVENT cause %u, target plane %u, pending "
                 "planes 0x%x); this QEMU switches planes itself and does "
                 "not handle plane events: the VM is stopped",
                 cs->cpu_index, cs->plane_id, ev->cause, ev->target,
                 ev->pending_event_planes);
    return -1;
}

static uint64_t plane_kvm_attrs(uint32_t attrs)
{
    return (attrs & PLANE_MEM_ATTR_NO_WRITE ?
            KVM_MEMORY_ATTRIBUTE_NO_WRITE : 0) |
           (attrs & PLANE_MEM_ATTR_NO_EXEC ? KVM_MEMORY_ATTRIBUTE_NO_EXEC : 0);
}

/* errno of KVM_SET_MEMORY_ATTRIBUTES -> the hypercall's negative code */
static int plane_kvm_errno_to_hc(int err)
{
    switch (err) {
    case EPERM:
    case EFAULT:
    case EINVAL:
    case E2BIG:
    case EBUSY:
        return -err;            /* the KVM codes are these errnos */
    case ENOMEM:
        return -PLANES_KVM_E2BIG;
    case ENOTTY:
    case EOPNOTSUPP:
        return -PLANES_KVM_EOPNOTSUPP;
    default:
        return -PLANES_KVM_EINVAL;
    }
}

static int plane_kvm_apply_mem_attrs(unsigned int plane, hwaddr start,
                                     uint64_t size, uint32_t attrs,
                                     PlaneMemAttrsIntent intent)
{
    int r;

    /*
     * KVM has no read-deny attribute.  The core asks for one only to seal
     * a plane region against plane 0, which the planes kernel does itself
     * ("deny normal-plane access to secure-plane memory"); from a guest it
     * cannot be honoured, so it is refused rather than half applied.
     */
    if ((attrs & PLANE_MEM_ATTR_NO_READ) &&
        intent != PLANE_MEM_ATTRS_SEAL) {
        return -PLANES_KVM_EOPNOTSUPP;
    }
    r = kvm_planes_set_memory_attributes(plane, start, size,
                                         plane_kvm_attrs(attrs));
    return r ? plane_kvm_errno_to_hc(-r) : 0;
}

static void plane_accel_kvm_class_init(ObjectClass *oc, void *data)
{
    PlaneAccelClass *pac = PLANE_ACCEL_CLASS(oc);

    pac->thread_tag = "KVM";
    pac->init_host = plane_kvm_init_host;
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
