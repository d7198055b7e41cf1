/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes on KVM, the architecture-neutral part: the plane file
 * descriptors (KVM_CREATE_PLANE), plane vCPU creation, the probe for the
 * kernel's planes model and plane memory faults.  The UAPI is
 * provisional; see hw/planes/planes-kvm-uapi.h.
 */

#ifndef SYSTEM_KVM_PLANES_H
#define SYSTEM_KVM_PLANES_H

#include <linux/kvm.h>

/**
 * kvm_planes_max: the number of planes this host's KVM offers a VM
 *
 * KVM_CHECK_EXTENSION(KVM_CAP_PLANES) on the VM fd; 0 on kernels without
 * VM planes (and 1 on those that offer only plane 0).
 */
int kvm_planes_max(void);

/**
 * kvm_planes_init: create planes 1 to @nr_planes - 1 (KVM_CREATE_PLANE)
 * @nr_planes: the machine's number of planes, at most kvm_planes_max()
 * @errp: set on failure, naming the plane and the errno
 *
 * Called once the vCPUs exist (machine init done), before any runs, as
 * the VBS-on-KVM series' VMM does.  Returns: %true on success.
 */
bool kvm_planes_init(unsigned int nr_planes, Error **errp);

/**
 * kvm_planes_userspace_switched: whether the kernel has the RFC family's
 * model, in which userspace switches planes (KVM_CREATE_VCPU_PLANE,
 * kvm_run.plane), rather than the seed kernel's, which switches them
 * inside plane 0's KVM_RUN.  A probe without side effects on plane 1's
 * fd; after kvm_planes_init().
 */
bool kvm_planes_userspace_switched(void);

/**
 * kvm_planes_create_vcpu: KVM_CREATE_VCPU on the fd of plane @plane
 * @vcpu_id: the KVM vCPU id of the plane-0 vCPU of the same index, which
 *     must exist
 *
 * To be called on that plane-0 vCPU's thread: the kernel shares the
 * plane-0 vCPU's run state and preempt notifier with it.
 *
 * Returns: the vCPU fd, or a negative errno.
 */
int kvm_planes_create_vcpu(unsigned int plane, unsigned long vcpu_id);

/**
 * kvm_planes_memory_fault: a KVM_EXIT_MEMORY_FAULT of @cpu (plane 0) that
 * a plane's view caused becomes a plane-violation report and stops the VM
 *
 * Returns: %false when the exit is not a plane's (no planes, a private
 * memory conversion, or a GPA no plane's attributes deny), for KVM's own
 * handling.
 */
bool kvm_planes_memory_fault(CPUState *cpu, const struct kvm_run *run);

#endif
