/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the provisional KVM planes UAPI (Bonzini's RFC, Roedel's 2026
 * repost), in one place.  Each definition yields to linux-headers once an
 * import carries it; every use is gated on KVM_CHECK_EXTENSION.
 */

#ifndef HW_PLANES_PLANES_KVM_UAPI_H
#define HW_PLANES_PLANES_KVM_UAPI_H

#include <linux/kvm.h>

/* 239 and 248 in copies of the RFC, 249 in the repost; the repost wins. */
#ifndef KVM_CAP_PLANES
#define KVM_CAP_PLANES              249
#endif
#ifndef KVM_CAP_PLANES_FPU
#define KVM_CAP_PLANES_FPU          (KVM_CAP_PLANES + 1)
#endif

/* 0xd6 in the RFC, 0xe4 in the repost. */
#ifndef KVM_CREATE_PLANE
#define KVM_CREATE_PLANE            _IO(KVMIO, 0xe4)
#endif
/* The RFC's; the seed's branch uses KVM_CREATE_VCPU on the plane fd. */
#ifndef KVM_CREATE_VCPU_PLANE
#define KVM_CREATE_VCPU_PLANE       _IO(KVMIO, 0xd7)
#endif

/* Per-plane memory attributes, next to KVM_MEMORY_ATTRIBUTE_PRIVATE. */
#ifndef KVM_MEMORY_ATTRIBUTE_NO_WRITE
#define KVM_MEMORY_ATTRIBUTE_NO_WRITE   (1ULL << 4)
#endif
#ifndef KVM_MEMORY_ATTRIBUTE_NO_EXEC
#define KVM_MEMORY_ATTRIBUTE_NO_EXEC    (1ULL << 5)
#endif

#ifndef KVM_EXIT_PLANE_EVENT
#define KVM_EXIT_PLANE_EVENT        40
#define KVM_PLANE_EVENT_INTERRUPT   1

struct kvm_plane_event_exit {
    __u16 cause;
    __u16 pending_event_planes;
    __u16 target;
    __u16 padding;
    __u32 flags;
    __u64 extra[8];
};
#endif

/*
 * The head of struct kvm_run with the RFC's plane fields, which take the
 * six bytes that kernels without planes keep as padding1[6].
 */
struct kvm_run_planes_head {
    __u8 request_interrupt_window;
    __u8 immediate_exit;
    __u8 plane;                 /* in/out */
    __u16 suspended_planes;     /* in/out */
    __u16 req_exit_planes;      /* in */
};

/*
 * The layouts the backend relies on, checked at build time wherever this
 * header is used: the exit fits kvm_run's exit union, and the plane
 * fields take the six bytes of padding1[6] in front of exit_reason.
 */
QEMU_BUILD_BUG_ON(KVM_EXIT_PLANE_EVENT != 40);
QEMU_BUILD_BUG_ON(sizeof(struct kvm_plane_event_exit) != 80);
QEMU_BUILD_BUG_ON(offsetof(struct kvm_plane_event_exit, cause) != 0);
QEMU_BUILD_BUG_ON(offsetof(struct kvm_plane_event_exit,
                           pending_event_planes) != 2);
QEMU_BUILD_BUG_ON(offsetof(struct kvm_plane_event_exit, target) != 4);
QEMU_BUILD_BUG_ON(offsetof(struct kvm_plane_event_exit, flags) != 8);
QEMU_BUILD_BUG_ON(offsetof(struct kvm_plane_event_exit, extra) != 16);
QEMU_BUILD_BUG_ON(sizeof(struct kvm_plane_event_exit) >
                  sizeof(((struct kvm_run *)0)->padding));
QEMU_BUILD_BUG_ON(offsetof(struct kvm_run_planes_head, plane) != 2);
QEMU_BUILD_BUG_ON(offsetof(struct kvm_run_planes_head,
                           suspended_planes) != 4);
QEMU_BUILD_BUG_ON(offsetof(struct kvm_run_planes_head,
                           req_exit_planes) != 6);
QEMU_BUILD_BUG_ON(sizeof(struct kvm_run_planes_head) !=
                  offsetof(struct kvm_run, exit_reason));
QEMU_BUILD_BUG_ON(offsetof(struct kvm_run_planes_head, immediate_exit) !=
                  offsetof(struct kvm_run, immediate_exit));

#endif
