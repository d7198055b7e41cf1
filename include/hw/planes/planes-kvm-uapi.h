/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the provisional KVM planes UAPI, in one place.  Each
 * definition yields to linux-headers once an import carries it; every use
 * is gated on KVM_CHECK_EXTENSION or on a probe of the kernel's behaviour
 * (docs/system/i386/planes.rst, "The two kernel models").
 */

#ifndef HW_PLANES_PLANES_KVM_UAPI_H
#define HW_PLANES_PLANES_KVM_UAPI_H

#include <linux/kvm.h>

/*
 * 249 in Roedel's base of the VBS-on-KVM series' kernel (its VM fd answers
 * the number of planes, 2 on x86); 239, 244, 248 and 250 elsewhere.
 */
#ifndef KVM_CAP_PLANES
#define KVM_CAP_PLANES              249
#endif

/* On the VM fd, argument the plane id: 0xe4 there, 0xd6 in the RFC. */
#ifndef KVM_CREATE_PLANE
#define KVM_CREATE_PLANE            _IO(KVMIO, 0xe4)
#endif

/*
 * The RFC family's plane vCPU creation, on the plane fd with a plane-0
 * vCPU fd: only probed for (the kernel-switched model has none).
 */
#ifndef KVM_CREATE_VCPU_PLANE
#define KVM_CREATE_VCPU_PLANE       _IO(KVMIO, 0xd7)
#endif

/*
 * Per-plane memory attributes, next to KVM_MEMORY_ATTRIBUTE_PRIVATE.  The
 * kernel-switched model takes them from the guest's SET_MEM_ATTRS only.
 */
#ifndef KVM_MEMORY_ATTRIBUTE_NO_WRITE
#define KVM_MEMORY_ATTRIBUTE_NO_WRITE   (1ULL << 4)
#endif
#ifndef KVM_MEMORY_ATTRIBUTE_NO_EXEC
#define KVM_MEMORY_ATTRIBUTE_NO_EXEC    (1ULL << 5)
#endif

#endif
