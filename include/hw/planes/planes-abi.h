/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: every number of the guest ABI, version 2 (docs/specs/
 * planes-abi.rst) in one place, so it can follow the upstream ABI.
 */

#ifndef HW_PLANES_PLANES_ABI_H
#define HW_PLANES_PLANES_ABI_H

/* Hypercall numbers (RAX); arguments in RBX, RCX, RDX, RSI. */
#define PLANES_HC_CONFIG            13  /* KVM_HC_VM_PLANES_CONFIG */
#define PLANES_HC_ACTIVATE          14  /* KVM_HC_VM_PLANES_ACTIVATE */
#define PLANES_HC_VTL_CALL          15  /* KVM_HC_VBS_VTL_CALL */
#define PLANES_HC_VTL_RETURN        16  /* KVM_HC_VBS_VTL_RETURN */
#define PLANES_HC_SET_MEM_ATTRS     17  /* KVM_HC_VBS_SET_MEM_ATTRS */
#define PLANES_HC_ENABLE_VCPU       18  /* project-defined */
#define PLANES_HC_FIRST             PLANES_HC_CONFIG
#define PLANES_HC_LAST              PLANES_HC_ENABLE_VCPU

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

/* kernel_format: how ACTIVATE enters the plane's kernel. */
#define PLANE_KERNEL_RAW            0
#define PLANE_KERNEL_BZIMAGE        1
#define PLANE_KERNEL_ELF            2

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

/* The calling area of a VTL call: one 4 KiB page (the VMM never writes it). */
#define PLANE_CALL_AREA_SIZE        0x1000

/* SET_MEM_ATTRS's allow mask: what the plane below the caller may do. */
#define PLANE_ALLOW_READ            (1u << 0)
#define PLANE_ALLOW_WRITE           (1u << 1)
#define PLANE_ALLOW_EXEC            (1u << 2)
#define PLANE_ALLOW_ALL             (PLANE_ALLOW_READ | PLANE_ALLOW_WRITE | \
                                     PLANE_ALLOW_EXEC)

/* PLANE_ENABLE_VCPU's register block: u64 rip, rsp, cr3, rflags, rax. */
#define PLANE_ENABLE_BLOCK_SIZE     40

/* Per-plane memory attributes (KVM_MEMORY_ATTRIBUTE_*). */
#define PLANE_MEM_ATTR_PRIVATE      (1u << 3)
#define PLANE_MEM_ATTR_NO_WRITE     (1u << 4)
#define PLANE_MEM_ATTR_NO_EXEC      (1u << 5)
/*
 * The core keeps, per plane, the accesses its view denies; the seed
 * kernel's own bits, plus a project-defined one for reads.
 */
#define PLANE_MEM_ATTR_NO_READ      (1u << 6)
#define PLANE_MEM_ATTR_DENY_ALL     (PLANE_MEM_ATTR_NO_READ | \
                                     PLANE_MEM_ATTR_NO_WRITE | \
                                     PLANE_MEM_ATTR_NO_EXEC)

#endif
