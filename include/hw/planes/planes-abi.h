/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: every number of the guest ABI (../shared/planes-abi.md) in one
 * place, so it can follow the upstream ABI while that is still in flux.
 */

#ifndef HW_PLANES_PLANES_ABI_H
#define HW_PLANES_PLANES_ABI_H

/* Hypercall numbers (RAX); arguments in RBX, RCX, RDX, RSI. */
#define PLANES_HC_CONFIG            13  /* KVM_HC_VM_PLANES_CONFIG */
#define PLANES_HC_ACTIVATE          14  /* KVM_HC_VM_PLANES_ACTIVATE */
#define PLANES_HC_VTL_CALL          15  /* KVM_HC_VBS_VTL_CALL */
#define PLANES_HC_VTL_RETURN        16  /* project-defined */
#define PLANES_HC_SET_MEM_ATTRS     17  /* project-defined */
#define PLANES_HC_FIRST             PLANES_HC_CONFIG
#define PLANES_HC_LAST              PLANES_HC_SET_MEM_ATTRS

/* Errors, returned negated (Linux include/uapi/linux/kvm_para.h). */
#define PLANES_KVM_ENOSYS           1000
#define PLANES_KVM_EFAULT           14
#define PLANES_KVM_EINVAL           22
#define PLANES_KVM_E2BIG            7
#define PLANES_KVM_EPERM            1
#define PLANES_KVM_EOPNOTSUPP       95
#define PLANES_KVM_EBUSY            16  /* not in kvm_para.h: Linux EBUSY */

/* struct vm_plane_config, little endian, 672 bytes per entry. */
#define PLANE_CONFIG_SIZE           672
#define PLANE_CONFIG_LOAD_OFFSET    0
#define PLANE_CONFIG_MEMORY_SIZE    8
#define PLANE_CONFIG_ENTRY_POINT    16
#define PLANE_CONFIG_KERNEL_FORMAT  24
#define PLANE_CONFIG_KERNEL         28
#define PLANE_CONFIG_KERNEL_LEN     128
#define PLANE_CONFIG_CMDLINE        156
#define PLANE_CONFIG_CMDLINE_LEN    512

/* Boot state that ACTIVATE builds, as offsets below the region's top. */
#define PLANE_BOOT_PAGETABLES       0x10000
#define PLANE_BOOT_GDT              0x4000
#define PLANE_BOOT_PARAMS           0x2000
#define PLANE_BOOT_CMDLINE          0x1000
#define PLANE_BOOT_GDT_CS           0x08
#define PLANE_BOOT_GDT_DS           0x10

/* Regions, VTL call pages and attribute ranges are in units of this. */
#define PLANE_PAGE_SIZE             0x1000

/* Regions may not reach below this. */
#define PLANE_REGION_MIN_BASE       0x100000

/* VTL call pages: one 4 KiB page each way. */
#define PLANE_VTL_PAGE_SIZE         0x1000

/* Per-plane memory attributes (KVM_MEMORY_ATTRIBUTE_*). */
#define PLANE_MEM_ATTR_PRIVATE      (1u << 3)
#define PLANE_MEM_ATTR_NO_WRITE     (1u << 4)
#define PLANE_MEM_ATTR_NO_EXEC      (1u << 5)
/* Project-defined: no read access (with the others: the seal of a region). */
#define PLANE_MEM_ATTR_NO_READ      (1u << 6)
#define PLANE_MEM_ATTR_DENY_ALL     (PLANE_MEM_ATTR_NO_READ | \
                                     PLANE_MEM_ATTR_NO_WRITE | \
                                     PLANE_MEM_ATTR_NO_EXEC)

#endif
