/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes on KVM, the architecture-neutral part: one fd per plane >= 1
 * (KVM_CREATE_PLANE on the VM fd), the plane vCPUs created through it, and
 * per-plane memory attributes.  Every use sits behind KVM_CAP_PLANES, which
 * the backend checks before it calls anything here.
 */

#include "qemu/osdep.h"
#include <sys/ioctl.h>
#include "qapi/error.h"
#include "hw/core/cpu.h"
#include "system/kvm.h"
#include "system/kvm_int.h"
#include "system/kvm-planes.h"
#include "hw/planes/plane.h"
#include "hw/planes/planes-kvm-uapi.h"
#include "trace.h"

typedef enum KVMPlaneVcpuStyle {
    KVM_PLANE_VCPU_UNPROBED,
    KVM_PLANE_VCPU_CREATE_VCPU_PLANE,   /* RFC: plane fd, plane-0 vCPU fd */
    KVM_PLANE_VCPU_CREATE_VCPU,         /* VBS branch: plane fd, vCPU id */
} KVMPlaneVcpuStyle;

static struct {
    unsigned int nr_planes;
    int fd[PLANES_MAX];                 /* fd[0] is the VM fd */
    KVMPlaneVcpuStyle vcpu_style;
} kvm_planes;

static int kvm_plane_fd(unsigned int plane)
{
    return plane ? kvm_planes.fd[plane] : kvm_state->vmfd;
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

static CPUState *kvm_planes_plane0_vcpu(unsigned long vcpu_id)
{
    CPUState *cpu;

    CPU_FOREACH(cpu) {
        if (!cpu->plane_id && kvm_arch_vcpu_id(cpu) == vcpu_id) {
            return cpu;
        }
    }
    return NULL;
}

int kvm_planes_create_vcpu(CPUState *cpu, unsigned long vcpu_id)
{
    unsigned int plane = cpu->plane_id;
    CPUState *plane0 = kvm_planes_plane0_vcpu(vcpu_id);
    int fd = -ENOTTY;

    if (plane == 0 || plane >= kvm_planes.nr_planes || !plane0) {
        return -EINVAL;
    }
    if (kvm_planes.vcpu_style != KVM_PLANE_VCPU_CREATE_VCPU) {
        fd = ioctl(kvm_plane_fd(plane), KVM_CREATE_VCPU_PLANE, plane0->kvm_fd);
        fd = fd < 0 ? -errno : fd;
        /* Only "no such ioctl" means the other style; other errors stand. */
        if (fd >= 0 || (fd != -ENOTTY && fd != -EINVAL)) {
            kvm_planes.vcpu_style = KVM_PLANE_VCPU_CREATE_VCPU_PLANE;
        }
    }
    if (kvm_planes.vcpu_style != KVM_PLANE_VCPU_CREATE_VCPU_PLANE) {
        fd = ioctl(kvm_plane_fd(plane), KVM_CREATE_VCPU, vcpu_id);
        fd = fd < 0 ? -errno : fd;
        if (fd >= 0) {
            kvm_planes.vcpu_style = KVM_PLANE_VCPU_CREATE_VCPU;
        }
    }
    trace_kvm_planes_create_vcpu(plane, vcpu_id, kvm_planes.vcpu_style, fd);
    return fd;
}

uint64_t kvm_planes_supported_attributes(unsigned int plane)
{
    int r;

    if (plane >= MAX(kvm_planes.nr_planes, 1)) {
        return 0;
    }
    r = ioctl(kvm_plane_fd(plane), KVM_CHECK_EXTENSION,
              KVM_CAP_MEMORY_ATTRIBUTES);
    return r > 0 ? r : 0;
}

int kvm_planes_set_memory_attributes(unsigned int plane, hwaddr gpa,
                                     uint64_t size, uint64_t attrs)
{
    struct kvm_memory_attributes ma = {
        .address = gpa,
        .size = size,
        .attributes = attrs,
    };
    int r;

    if (plane >= kvm_planes.nr_planes) {
        return -EINVAL;
    }
    r = ioctl(kvm_plane_fd(plane), KVM_SET_MEMORY_ATTRIBUTES, &ma);
    r = r < 0 ? -errno : 0;
    trace_kvm_planes_set_memory_attributes(plane, gpa, size, attrs, r);
    return r;
}
