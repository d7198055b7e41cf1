/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes on KVM, the architecture-neutral part: the plane file
 * descriptors (KVM_CREATE_PLANE), plane vCPU creation and per-plane memory
 * attributes.  The UAPI is provisional; see hw/planes/planes-kvm-uapi.h.
 */

#ifndef SYSTEM_KVM_PLANES_H
#define SYSTEM_KVM_PLANES_H

#include "exec/hwaddr.h"

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
 * Called before any vCPU exists.  Returns: %true on success.
 */
bool kvm_planes_init(unsigned int nr_planes, Error **errp);

/**
 * kvm_planes_create_vcpu: create the KVM vCPU of plane @cpu->plane_id on
 * the vCPU index of the plane 0 vCPU whose arch id is @vcpu_id
 *
 * Probes once which creation ioctl the kernel has: KVM_CREATE_VCPU_PLANE on
 * the plane fd with the plane 0 vCPU fd (the RFC), else KVM_CREATE_VCPU on
 * the plane fd (the VBS integration branch).
 *
 * Returns: the vCPU fd, or a negative errno.
 */
int kvm_planes_create_vcpu(CPUState *cpu, unsigned long vcpu_id);

/**
 * kvm_planes_supported_attributes: the memory attribute bits the kernel
 * takes on the fd of plane @plane (KVM_CHECK_EXTENSION of
 * KVM_CAP_MEMORY_ATTRIBUTES there).
 */
uint64_t kvm_planes_supported_attributes(unsigned int plane);

/**
 * kvm_planes_set_memory_attributes: KVM_SET_MEMORY_ATTRIBUTES on the fd
 * of plane @plane for [@gpa, @gpa + @size)
 * @attrs: KVM_MEMORY_ATTRIBUTE_* bits
 *
 * Returns: 0, or the negative errno of the ioctl.
 */
int kvm_planes_set_memory_attributes(unsigned int plane, hwaddr gpa,
                                     uint64_t size, uint64_t attrs);

#endif
