/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes, TCG backend for x86: TCG emulates every plane itself, so it
 * needs no host support and runs the whole feature on any machine.  Each
 * plane vCPU state is an X86CPU with its own MTTCG thread; VMCALL/VMMCALL
 * reach the core's dispatcher, and TLB fills apply per-plane attributes.
 */

#include "qemu/osdep.h"
#include "exec/exec-all.h"
#include "exec/helper-proto.h"
#include "exec/cputlb.h"
#include "exec/page-protection.h"
#include "tcg/helper-tcg.h"
#include "hw/i386/apic.h"
#include "hw/i386/apic-msidef.h"
#include "hw/i386/apic_internal.h"
#include "exec/address-spaces.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-device-map.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/planes-abi.h"
#include "plane-x86.h"

/*
 * A vCPU state that leaves for another plane must look parked from
 * outside: RIP past the instruction and EFLAGS in architectural form
 * (inside the exec loop TCG keeps the arithmetic flags in CC_SRC), so
 * that the core may copy it to the plane's other vCPU indexes.
 */
static target_ulong plane_tcg_settle_flags(CPUX86State *env)
{
    target_ulong inside = env->eflags;

    env->eflags = cpu_compute_eflags(env);
    return inside;
}

/*
 * The vCPU state was switched out: leave cpu_exec() itself, not only the
 * TB (a bare cpu_loop_exit would go on executing), and sleep in the exec
 * loop's qemu_wait_io_event() until switched in again.
 */
static G_NORETURN void plane_tcg_leave(CPUState *cs)
{
    cs->exception_index = EXCP_YIELD;
    cpu_loop_exit(cs);
}

void helper_plane_hypercall(CPUX86State *env, uint32_t insn_len)
{
    CPUState *cs = env_cpu(env);
    bool long_mode = (env->hflags & HF_LMA_MASK) &&
                     (env->hflags & HF_CS64_MASK);
    /* As KVM does: outside 64-bit mode, only the low 32 bits count. */
    target_ulong mask = long_mode ? ~(target_ulong)0 : 0xffffffffu;
    PlaneHypercall hc = {
        .cpu = cs,
        .cpl = env->hflags & HF_CPL_MASK,
        .nr = env->regs[R_EAX] & mask,
        .args = {
            env->regs[R_EBX] & mask, env->regs[R_ECX] & mask,
            env->regs[R_EDX] & mask, env->regs[R_ESI] & mask,
        },
        .polls = true,
    };
    target_ulong inside_flags;
    uint64_t ret;
    bool switched;

    /* Parked-looking while the dispatcher may copy this state */
    env->eip += insn_len;
    inside_flags = plane_tcg_settle_flags(env);
    switched = plane_hypercall(&hc, &ret);
    if (switched && !plane_poll_switch_in(cs)) {
        plane_tcg_leave(cs);
    }
    /*
     * Carry on in this TB, which advances RIP itself.  A state switched
     * back in while it polled has its return registers set by the switch.
     */
    env->eip -= insn_len;
    env->eflags = inside_flags;
    if (!switched) {
        env->regs[R_EAX] = ret & mask;
    }
}

void plane_x86_park(CPUX86State *env)
{
    CPUState *cs = env_cpu(env);
    target_ulong inside_flags = plane_tcg_settle_flags(env);

    switch (plane_park(cs)) {
    case PLANE_PARK_SWITCHED:
        plane_tcg_leave(cs);
    case PLANE_PARK_RESUMED:
        /* RIP is past the HLT already: go on there instead of halting */
        env->eflags = inside_flags;
        cpu_loop_exit(cs);
    case PLANE_PARK_NONE:
        break;
    }
    env->eflags = inside_flags;
}

bool plane_x86_shutdown(CPUX86State *env)
{
    return plane_hypercalls_enabled && plane_shutdown(env_cpu(env));
}

static PlaneMemoryAccess plane_tcg_access(MMUAccessType access_type)
{
    switch (access_type) {
    case MMU_DATA_STORE:
        return PLANE_MEMORY_ACCESS_WRITE;
    case MMU_INST_FETCH:
        return PLANE_MEMORY_ACCESS_FETCH;
    default:
        return PLANE_MEMORY_ACCESS_READ;
    }
}

/* The PAGE_* rights that @plane's memory attributes at @gpa take away. */
static int plane_tcg_denied(unsigned int plane, hwaddr gpa)
{
    uint32_t attrs = plane_mem_attrs_lookup(plane, gpa);
    int deny = 0;

    deny |= attrs & PLANE_MEM_ATTR_NO_READ ? PAGE_READ : 0;
    deny |= attrs & PLANE_MEM_ATTR_NO_WRITE ? PAGE_WRITE : 0;
    deny |= attrs & PLANE_MEM_ATTR_NO_EXEC ? PAGE_EXEC : 0;
    return deny;
}

/*
 * Error code bit 15 ("SGX"): the paging structures allowed the access,
 * a protection outside them refused it.  Without it a Linux guest takes
 * a protection fault on a page its own tables allow as spurious and
 * retries forever; with it Linux oopses (kernel) or sends SIGSEGV (user),
 * as it does for an EPCM refusal.
 */
#define PLANE_TCG_PF_OUTSIDE_PAGING (1 << 15)

/* The #PF error code of a refused access: a protection fault, bit 15 */
static int plane_tcg_fault_code(MMUAccessType access_type, bool user)
{
    int error_code = PG_ERROR_P_MASK | PLANE_TCG_PF_OUTSIDE_PAGING;

    error_code |= access_type == MMU_DATA_STORE ? PG_ERROR_W_MASK : 0;
    error_code |= access_type == MMU_INST_FETCH ? PG_ERROR_I_D_MASK : 0;
    error_code |= user ? PG_ERROR_U_MASK : 0;
    return error_code;
}

bool plane_x86_filter_access(CPUState *cs, vaddr addr, hwaddr paddr,
                             MMUAccessType access_type, int mmu_idx,
                             int *prot, bool probe, uintptr_t retaddr)
{
    CPUX86State *env = cpu_env(cs);
    int deny;

    /*
     * The physical index is the page walker's (nested SVM is off with
     * planes): plane_x86_walk_check() decides for it, before its probe.
     */
    if (likely(!plane_hypercalls_enabled) || mmu_idx == MMU_PHYS_IDX) {
        return true;
    }
    deny = plane_tcg_denied(cs->plane_id, paddr);
    if (!(deny & (1 << access_type))) {
        /* Allowed; a later forbidden access must come back here. */
        *prot &= ~deny;
        return true;
    }
    if (probe) {
        return false;
    }
    if (!plane_memory_violation(cs, paddr, plane_tcg_access(access_type))) {
        /* plane-violation=stop: the VM stops before this vCPU goes on */
        cs->halted = 1;
        cs->exception_index = EXCP_HLT;
        cpu_loop_exit_restore(cs, retaddr);
    }
    env->cr[2] = addr;
    raise_exception_err_ra(env, EXCP0E_PAGE,
                           plane_tcg_fault_code(access_type,
                               (env->hflags & HF_CPL_MASK) == 3),
                           retaddr);
}

bool plane_x86_walk_check(CPUX86State *env, hwaddr pte_gpa, vaddr addr,
                          MMUAccessType access_type, bool user,
                          bool *read_only, int *exception_index,
                          int *error_code)
{
    CPUState *cs = env_cpu(env);
    int deny;

    *read_only = false;
    if (likely(!plane_hypercalls_enabled)) {
        return true;
    }
    deny = plane_tcg_denied(cs->plane_id, pte_gpa);
    if (!(deny & PAGE_READ)) {
        /* the plane may protect its own page tables (kernel integrity) */
        *read_only = deny & PAGE_WRITE;
        return true;
    }
    /*
     * A page table the plane may not read is a read of it, refused like
     * any other: the walk must not translate through sealed memory.
     */
    if (!plane_memory_violation(cs, pte_gpa, PLANE_MEMORY_ACCESS_READ)) {
        cs->halted = 1;
        *exception_index = EXCP_HLT;
        *error_code = 0;
        return false;
    }
    *exception_index = EXCP0E_PAGE;
    *error_code = plane_tcg_fault_code(access_type, user);
    return false;
}

void plane_x86_walk_ad_refused(CPUX86State *env, hwaddr pte_gpa)
{
    /* Under plane-violation=fault the walk goes on without the bit */
    plane_memory_violation(env_cpu(env), pte_gpa, PLANE_MEMORY_ACCESS_WRITE);
}

bool plane_x86_smm_enter(X86CPU *cpu)
{
    CPUState *cs = CPU(cpu);
    /* do_smm_enter() writes [smbase + 0xfe00, smbase + 0x10000) */
    hwaddr save_area = cpu->env.smbase + 0xfe00;
    hwaddr save_end = save_area + 0x1ff;

    if (likely(!plane_hypercalls_enabled)) {
        return true;
    }
    if (cs->plane_id) {
        /*
         * SMRAM and the SMM handler are plane 0's (the firmware's): SMM
         * with a higher plane's view would run plane 0's code with it.
         */
        return false;
    }
    if ((plane_tcg_denied(0, save_area) | plane_tcg_denied(0, save_end)) &
        (PAGE_READ | PAGE_WRITE)) {
        /*
         * An SMBASE moved into sealed memory: the SMI would write there.
         * The SMI is dropped either way; under plane-violation=stop the
         * VM stops as well.
         */
        plane_memory_violation(cs, save_area, PLANE_MEMORY_ACCESS_WRITE);
        return false;
    }
    return true;
}

AddressSpace *plane_x86_io_as(CPUX86State *env)
{
    unsigned int plane = env_cpu(env)->plane_id;

    return likely(!plane) ? &address_space_io : plane_device_map_io_as(plane);
}

/*
 * New attributes must hold before the caller runs on: drop translated
 * code of the range (direct jumps between TBs skip the TLB) and every
 * vCPU's TLB, the caller's own once all others have flushed theirs.
 */
static void plane_tcg_mem_attrs_changed(CPUState *caller, unsigned int plane,
                                        hwaddr start, uint64_t size)
{
    tb_invalidate_phys_range(start, start + size - 1);
    tlb_flush_all_cpus_synced(caller);
}

/*
 * A device of a plane >= 1 is wired to LINT0 of the plane's boot vCPU
 * state, as an APIC-only PC wires its interrupt source to its BSP: the
 * plane picks the vector (fixed delivery, edge or level) or masks it.
 * There is no 8259 of the plane's own behind it, so an ExtINT (or any
 * other) delivery mode leaves the line unconnected.  The APIC holds the
 * interrupt in its IRR while another plane runs on the index, and the
 * state takes it once switched in with interrupts enabled.
 */
static void plane_tcg_device_irq(CPUState *cs, int level)
{
    DeviceState *apic = X86_CPU(cs)->apic_state;
    uint32_t lint0;

    if (!apic) {
        return;
    }
    lint0 = APIC_COMMON(apic)->lvt[APIC_LVT_LINT0];
    if (((lint0 >> 8) & 7) == APIC_DM_FIXED) {
        apic_deliver_pic_intr(apic, level);
    }
}

/*
 * An interrupt message of a plane's device goes to the plane's state of
 * the vCPU index whose APIC ID it names, if that state lives (the home
 * state, or one the plane enabled), and nowhere else: physical
 * destination mode, fixed or lowest-priority delivery, the form a driver
 * programs for a device's queue interrupt.  A logical or broadcast
 * destination, an NMI, SMI, INIT or ExtINT message, or a vector below 16
 * would reach further than a device's interrupt needs: dropped.
 */
static bool plane_tcg_device_msi(Plane *plane, uint64_t address,
                                 uint32_t data)
{
    uint32_t dest = (address & MSI_ADDR_DEST_ID_MASK) >>
                    MSI_ADDR_DEST_ID_SHIFT;
    uint8_t delivery = (data >> MSI_DATA_DELIVERY_MODE_SHIFT) & 7;
    uint8_t vector = (data & MSI_DATA_VECTOR_MASK) >> MSI_DATA_VECTOR_SHIFT;

    if ((address >> MSI_ADDR_DEST_MODE_SHIFT) & 1 || dest == 0xff ||
        (delivery != APIC_DM_FIXED && delivery != APIC_DM_LOWPRI) ||
        vector < 16) {
        return false;
    }
    for (unsigned int i = 0; i < plane->set->nr_vcpus; i++) {
        CPUState *cs = plane_cpu(plane, i);

        if (cs && X86_CPU(cs)->apic_state && X86_CPU(cs)->apic_id == dest &&
            plane_state_index(plane, i) == i) {
            apic_plane_set_irq(X86_CPU(cs)->apic_state, vector,
                               (data >> MSI_DATA_TRIGGER_SHIFT) & 1);
            return true;
        }
    }
    return false;
}

static bool plane_tcg_init_host(MachineState *ms, unsigned int planes,
                                Error **errp)
{
    plane_x86_restrict_guest_features();
    return true;
}

static void plane_accel_tcg_class_init(ObjectClass *oc, void *data)
{
    PlaneAccelClass *pac = PLANE_ACCEL_CLASS(oc);

    /* TCG has no host limit: the machine property's PLANES_MAX applies. */
    pac->thread_tag = "TCG";
    pac->init_host = plane_tcg_init_host;
    pac->mem_attrs_changed = plane_tcg_mem_attrs_changed;
    pac->device_irq = plane_tcg_device_irq;
    pac->device_msi = plane_tcg_device_msi;
}

static const TypeInfo plane_accel_tcg_type_info = {
    .name = PLANE_ACCEL_NAME("tcg"),
    .parent = TYPE_PLANE_ACCEL_X86,
    .abstract = true,
    .class_init = plane_accel_tcg_class_init,
};

static void plane_accel_tcg_register_types(void)
{
    type_register_static(&plane_accel_tcg_type_info);
}

type_init(plane_accel_tcg_register_types)
