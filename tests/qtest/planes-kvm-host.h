/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes qtests: what this host's KVM offers, asked the way QEMU asks.
 */

#ifndef TESTS_QTEST_PLANES_KVM_HOST_H
#define TESTS_QTEST_PLANES_KVM_HOST_H

#include <sys/ioctl.h>
#include "hw/planes/planes-kvm-uapi.h"

/*
 * KVM_CAP_PLANES of this host, or -1 with *why set when KVM is unusable.
 * Asked as QEMU asks it: on a VM whose irqchip is split, for the planes
 * kernel answers 1 until then (kvm_arch_max_planes()).
 */
static inline int host_kvm_planes(const char **why)
{
    int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    struct kvm_enable_cap split = {
        .cap = KVM_CAP_SPLIT_IRQCHIP, .args = { 24 },
    };
    int vm, cap;

    if (kvm < 0) {
        *why = "/dev/kvm cannot be opened";
        return -1;
    }
    vm = ioctl(kvm, KVM_CREATE_VM, 0);
    if (vm < 0) {
        close(kvm);
        *why = "KVM_CREATE_VM fails";
        return -1;
    }
    ioctl(vm, KVM_ENABLE_CAP, &split);     /* stock kernels too */
    cap = ioctl(vm, KVM_CHECK_EXTENSION, KVM_CAP_PLANES);
    close(vm);
    close(kvm);
    return MAX(cap, 0);
}

#endif
