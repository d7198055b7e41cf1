/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes on KVM, the architecture-neutral part: one fd per plane >= 1
 * (KVM_CREATE_PLANE on the VM fd), the plane vCPUs made on it, which
 * planes model the kernel has, and the memory faults the kernel reports
 * for a plane's view.  Every use sits behind KVM_CAP_PLANES, which the
 * backend checks before it calls anything here.
 */

#include "qemu/osdep.h"
#include <sys/ioctl.h>
#include "qapi/error.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "system/runstate.h"
#include "hw/core/cpu.h"
#include "system/kvm.h"
#include "system/kvm_int.h"
#include "system/kvm-planes.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/planes-abi.h"
#include "hw/planes/planes-kvm-uapi.h"
#include "trace.h"

static struct {
    unsigned int nr_planes;
    int fd[PLANES_MAX];                 /* fd[0] is the VM fd */
} kvm_planes;

static int kvm_plane_ioctl(unsigned int plane, unsigned long type,
                           unsigned long arg)
{
    int fd = plane ? kvm_planes.fd[plane] : kvm_state->vmfd;
    int r = ioctl(fd, type, arg);

    return r < 0 ? -errno : r;
}

int kvm_planes_max(void)
{
    return MAX(kvm_vm_check_extension(kvm_state, KVM_CAP_PLANES), 0);
}

bool kvm_planes_init(unsigned int nr_planes, Error **errp)
{
    assert(nr_planes <= PLANES_MAX && !kvm_planes.nr_planes);
    kvm_planes.fd[0] = kvm_state->vmfd;
    for (unsigned int p = 1; p < nr_planes; p++) {
        int fd = kvm_vm_ioctl(kvm_state, KVM_CREATE_PLANE, p);

        trace_kvm_planes_create_plane(p, fd);
        if (fd < 0) {
            error_setg_errno(errp, -fd, "KVM_CREATE_PLANE for plane %u "
                             "failed", p);
            while (--p) {
                close(kvm_planes.fd[p]);
            }
            return false;
        }
        kvm_planes.fd[p] = fd;
    }
    kvm_planes.nr_planes = nr_planes;
    return true;
}

/*
 * The RFC family makes plane vCPUs with KVM_CREATE_VCPU_PLANE on the plane
 * fd, from a plane-0 vCPU fd: given none (-1) it answers EBADF.  The seed
 * kernel has no such ioctl on a plane fd (ENOTTY; EINVAL from kernels that
 * check the argument first).  Nothing is created either way.
 */
bool kvm_planes_userspace_switched(void)
{
    int r = kvm_plane_ioctl(1, KVM_CREATE_VCPU_PLANE, (unsigned long)-1);

    trace_kvm_planes_probe("KVM_CREATE_VCPU_PLANE", r);
    if (r >= 0) {
        close(r);
    }
    return r != -ENOTTY && r != -EINVAL;
}

int kvm_planes_create_vcpu(unsigned int plane, unsigned long vcpu_id)
{
    int fd;

    if (plane == 0 || plane >= kvm_planes.nr_planes) {
        return -EINVAL;
    }
    fd = kvm_plane_ioctl(plane, KVM_CREATE_VCPU, vcpu_id);
    trace_kvm_planes_create_vcpu(plane, vcpu_id, fd);
    return fd;
}

/*
 * Whether some plane's attributes deny an access in [@gpa, @gpa + @size):
 * under KVM the kernel's memory-fault exit says neither the plane nor the
 * access, so QEMU's record of the planes' views is what decides.
 */
static bool kvm_planes_range_denied(hwaddr gpa, uint64_t size)
{
    hwaddr last = gpa + MAX(size, 1) - 1;

    RCU_READ_LOCK_GUARD();
    for (unsigned int p = 0; p < kvm_planes.nr_planes; p++) {
        if ((plane_mem_attrs_lookup(p, gpa) |
             plane_mem_attrs_lookup(p, last)) & PLANE_MEM_ATTR_DENY_ALL) {
            return true;
        }
    }
    return false;
}

bool kvm_planes_memory_fault(CPUState *cpu, const struct kvm_run *run)
{
    hwaddr gpa = run->memory_fault.gpa;

    /*
     * Private/shared conversions stay the confidential guest's, and a
     * fault outside every denied range is not a plane's: stock handling.
     */
    if (kvm_planes.nr_planes < 2 ||
        (run->memory_fault.flags & KVM_MEMORY_EXIT_FLAG_PRIVATE) ||
        !kvm_planes_range_denied(gpa, run->memory_fault.size)) {
        return false;
    }
    /*
     * Only plane 0 has a view set by a higher plane, and the kernel exits
     * on plane 0's fd without naming the access (nor, in the kernel-
     * switched model, the plane).  policy 'fault' is refused at start-up.
     */
    trace_kvm_planes_memory_fault(cpu->cpu_index, gpa,
                                  run->memory_fault.size,
                                  run->memory_fault.flags);
    plane_memory_violation(cpu, gpa, PLANE_MEMORY_ACCESS_UNKNOWN);
    /*
     * The kernel would fault again at once: this vCPU waits stopped for
     * the VM stop, which plane_memory_violation() requested once until
     * reset, and which is requested again for later faults.
     */
    BQL_LOCK_GUARD();
    if (runstate_is_running()) {
        qemu_system_vmstop_request_prepare();
        qemu_system_vmstop_request(RUN_STATE_INTERNAL_ERROR);
    }
    cpu->stop = true;
    return true;
}
