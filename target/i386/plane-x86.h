/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes on x86: the hooks the x86 code calls, and the x86 parts that
 * every planes backend (TCG, KVM) shares.
 */

#ifndef TARGET_I386_PLANE_X86_H
#define TARGET_I386_PLANE_X86_H

#include "qemu/units.h"
#include "cpu.h"

#ifdef CONFIG_USER_ONLY
#define plane_hypercalls_enabled false
#else
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-hypercall.h"

/* TCG: a plane >= 1 halted with interrupts off; returns if not parked. */
void plane_x86_park(CPUX86State *env);

/*
 * TCG: @env shuts down (a triple fault).  True for a plane >= 1 state,
 * which then stops alone (the caller halts it); false for plane 0, whose
 * shutdown is the machine's.
 */
bool plane_x86_shutdown(CPUX86State *env);

/*
 * TCG: narrow @prot by the memory attributes the vCPU's plane sees at
 * @paddr; a forbidden @access_type faults (#PF) unless @probe, in which
 * case it returns false.
 */
bool plane_x86_filter_access(CPUState *cs, vaddr addr, hwaddr paddr,
                             MMUAccessType access_type, int mmu_idx,
                             int *prot, bool probe, uintptr_t retaddr);

/*
 * TCG: may the page walker, translating @addr for @access_type, use the
 * page-table entry at guest-physical @pte_gpa?  True if the plane may
 * read it, with *@read_only set if it may not write it (the walk then
 * sets no accessed/dirty bits there).  False if it may not read it: the
 * walk fails with *@exception_index and *@error_code (a #PF, or EXCP_HLT
 * when plane-violation=stop stops the VM).
 */
bool plane_x86_walk_check(CPUX86State *env, hwaddr pte_gpa, vaddr addr,
                          MMUAccessType access_type, bool user,
                          bool *read_only, int *exception_index,
                          int *error_code);

/*
 * TCG: the walk would set accessed/dirty bits in the entry at @pte_gpa,
 * which the plane may not write: a write violation, and no bit is set.
 */
void plane_x86_walk_ad_refused(CPUX86State *env, hwaddr pte_gpa);

/*
 * TCG: may @cpu take the SMI it is entering SMM for?  False drops it: a
 * plane >= 1 state never enters SMM, and plane 0 enters it only if its
 * view lets it write the state-save area (the CPU writes it itself).
 */
bool plane_x86_smm_enter(X86CPU *cpu);

/*
 * TCG: the I/O space @env's port I/O reaches: its plane's own map for a
 * plane >= 1 (its devices' ports above the machine's), the machine's for
 * plane 0.
 */
AddressSpace *plane_x86_io_as(CPUX86State *env);

/*
 * Both backends, planes > 1: switch off the guest features that let plane
 * 0 have QEMU or the CPU write memory past the planes' view.
 */
void plane_x86_restrict_guest_features(void);

/*
 * The Linux x86-64 boot state a plane enters (planes-abi.md, ACTIVATE):
 * CR0 = PG | WP | NE | ET | PE, as the planes kernel's VMM (no EM, no MP),
 * long mode with PAE paging, a GDT of a null, a 64-bit code and a flat
 * data descriptor.
 */
#define PLANE_X86_BOOT_CR0          0x80010031ULL
#define PLANE_X86_BOOT_CR4          0x20ULL             /* PAE */
#define PLANE_X86_BOOT_EFER         0xd01ULL    /* SCE | LME | LMA | NXE */
#define PLANE_X86_BOOT_RFLAGS       0x2ULL
#define PLANE_X86_BOOT_GDT_SIZE     24
#define PLANE_X86_BOOT_GDT_CS_DESC  0x00af9b000000ffffULL
#define PLANE_X86_BOOT_GDT_DS_DESC  0x00cf93000000ffffULL
/* The plane's BSP: APIC enabled at the default base, BSP flag set. */
#define PLANE_X86_BOOT_APIC_BASE    0xfee00900ULL

/*
 * plane_x86_build_boot_state: the boot state's memory at the top of
 * @info's region: page tables, GDT, boot_params and command line.
 */
void plane_x86_build_boot_state(const PlaneBootInfo *info);

/* Shared by the x86 backends: see PlaneAccelClass. */
bool plane_x86_check_cpu(CPUState *cpu, Error **errp);
CPUState *plane_x86_vcpu_create(Object *parent, CPUState *plane0_cpu,
                                unsigned int plane_id, Error **errp);
hwaddr plane_x86_phys_addr_limit(CPUState *cpu);
bool plane_x86_prepare_boot(PlaneBootInfo *info, char **why);
void plane_x86_boot_vcpu(CPUState *cpu, const PlaneBootInfo *info);
void plane_x86_boot_regs(const PlaneBootInfo *info, PlaneBootRegs *regs);
void plane_x86_enter_vtl_call(CPUState *cpu, hwaddr calling_area);
void plane_x86_set_entry_regs(CPUState *cpu, const PlaneEntryRegs *regs);
void plane_x86_copy_parked_state(CPUState *dst, CPUState *src);

/* Fresh plane RAM must stay clear of the PCI hole, APIC and firmware. */
#define PLANE_X86_OUTSIDE_RAM_MIN (4 * GiB)

/* The parent of the x86 backends' classes: the hooks they share. */
#define TYPE_PLANE_ACCEL_X86 "x86-plane-accel"

#endif

#endif
