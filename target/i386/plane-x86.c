/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes on x86, for every backend: plane vCPU states as X86CPUs, and
 * the Linux x86-64 boot state that ACTIVATE builds for a plane.
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "exec/address-spaces.h"
#include "exec/cputlb.h"
#include "hw/qdev-core.h"
#include "hw/qdev-properties.h"
#include "hw/i386/apic.h"
#include "system/hw_accel.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-device-map.h"
#include "hw/planes/planes-abi.h"
#include "plane-x86.h"

/*
 * Paths into guest memory that no plane's view covers, so plane 0 could
 * reach a sealed page through them: nested virtualization (VMRUN writes
 * the host-save area at a guest-chosen address, and an L2 guest's VMCALL
 * would reach the plane dispatcher) and the vapic option ROM's TPR
 * patching (QEMU writes its state where the guest says).  Globals of the
 * machine's own, so they override -cpu and -global, which come earlier.
 */
static GlobalProperty plane_x86_restricted_features[] = {
    { TYPE_X86_CPU, "svm", "off" },
    { TYPE_X86_CPU, "vmx", "off" },
    { "apic-common", "vapic", "off" },
};

void plane_x86_restrict_guest_features(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(plane_x86_restricted_features); i++) {
        qdev_prop_register_global(&plane_x86_restricted_features[i]);
    }
}

bool plane_x86_check_cpu(CPUState *cpu, Error **errp)
{
    CPUX86State *env = cpu_env(cpu);

    /* -cpu ...,+svm (or device_add's svm=on) comes after the globals */
    if (env->features[FEAT_8000_0001_ECX] & CPUID_EXT3_SVM ||
        env->features[FEAT_1_ECX] & CPUID_EXT_VMX) {
        error_setg(errp, "-machine planes: nested virtualization (%s) is "
                   "not supported with planes; drop it from -cpu",
                   env->features[FEAT_1_ECX] & CPUID_EXT_VMX ? "vmx" : "svm");
        return false;
    }
    return true;
}

CPUState *plane_x86_vcpu_create(Object *parent, CPUState *plane0_cpu,
                                unsigned int plane_id, Error **errp)
{
    static const char *const topology[] = {
        "socket-id", "die-id", "module-id", "core-id", "thread-id",
    };
    X86CPU *p0 = X86_CPU(plane0_cpu);
    Object *obj;
    CPUState *cs;

    obj = object_new(object_get_typename(OBJECT(plane0_cpu)));
    cs = CPU(obj);

    /* Set before realize: it keeps the state out of hotplug and APIC IDs. */
    plane_vcpu_bind(cs, plane_id, plane0_cpu);
    /* Not the next free one: a CPU plugged later takes its slot's index */
    cs->cpu_index = plane_state_cpu_index(plane_set_get(), plane_id,
                                          plane0_cpu->cpu_index);
    object_property_add_child(parent, "cpu", obj);
    object_unref(obj);
    if (!object_property_set_uint(obj, "apic-id", p0->apic_id, errp)) {
        return NULL;
    }
    /* The plane's own devices come first in what the state reaches */
    if (!object_property_set_link(obj, "memory",
                                  OBJECT(plane_device_map_memory(plane_id)),
                                  errp)) {
        return NULL;
    }
    for (size_t i = 0; i < ARRAY_SIZE(topology); i++) {
        int64_t id = object_property_get_int(OBJECT(p0), topology[i],
                                             &error_abort);

        if (!object_property_set_int(obj, topology[i], id, errp)) {
            return NULL;
        }
    }
    if (!qdev_realize(DEVICE(obj), NULL, errp)) {
        return NULL;
    }
    return cs;
}

/*
 * A plane starts with 4-level paging (CR4.PAE, no LA57), whose identity
 * map reaches 256 TiB: a region above that could not hold its own boot
 * state, whatever the CPU's physical address width (phys-bits=52).
 */
#define PLANE_X86_BOOT_MAP_LIMIT (1ULL << 48)

hwaddr plane_x86_phys_addr_limit(CPUState *cpu)
{
    return MIN(1ULL << X86_CPU(cpu)->phys_bits, PLANE_X86_BOOT_MAP_LIMIT);
}

/* Page-table entry bits of the boot page tables. */
#define PTE_P   0x1ULL
#define PTE_RW  0x2ULL
#define PTE_PS  0x80ULL

/* The boot page tables have 12 pages: a PML4, then PDPTs and PDs. */
#define BOOT_PT_PAGES ((PLANE_BOOT_PAGETABLES - PLANE_BOOT_GDT) / 0x1000)

/*
 * Identity-maps, with 2 MiB pages, the low 4 GiB (where plane 0's memory
 * and the VTL call pages usually are) and the GiBs of the plane's region
 * that fit: always those of the entry point and of the boot state.
 */
static void plane_x86_build_page_tables(const PlaneBootInfo *info,
                                        hwaddr pt)
{
    uint64_t top = info->region_base + info->region_size;
    uint64_t want[] = { 0, 1, 2, 3, info->entry_point >> 30,
                        (top - 1) >> 30 };
    g_autofree uint64_t *page = g_new0(uint64_t, BOOT_PT_PAGES * 512);
    uint64_t *pml4 = page;
    GArray *gibs = g_array_new(false, false, sizeof(uint64_t));
    int pdpt_of_slot[512];
    unsigned int used = 1;          /* the PML4 */

    memset(pdpt_of_slot, -1, sizeof(pdpt_of_slot));
    for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
        g_array_append_val(gibs, want[i]);
    }
    for (uint64_t g = info->region_base >> 30; g <= (top - 1) >> 30; g++) {
        g_array_append_val(gibs, g);
    }
    for (guint i = 0; i < gibs->len; i++) {
        uint64_t gib = g_array_index(gibs, uint64_t, i);
        unsigned int slot, pdpt, pd;
        uint64_t *pdpt_page;
        bool new_pdpt;

        if (gib >= PLANE_X86_BOOT_MAP_LIMIT >> 30) {
            continue;               /* CONFIG keeps regions below it */
        }
        slot = gib / 512;
        new_pdpt = pdpt_of_slot[slot] < 0;
        if (used + new_pdpt + 1 > BOOT_PT_PAGES) {
            continue;               /* no room: the region is big */
        }
        pdpt = new_pdpt ? used : pdpt_of_slot[slot];
        pdpt_page = page + pdpt * 512;
        if (pdpt_page[gib % 512] & PTE_P) {
            continue;               /* mapped already */
        }
        if (new_pdpt) {
            pdpt_of_slot[slot] = pdpt;
            pml4[slot] = (pt + pdpt * 0x1000) | PTE_P | PTE_RW;
            used++;
        }
        pd = used++;
        pdpt_page[gib % 512] = (pt + pd * 0x1000) | PTE_P | PTE_RW;
        for (unsigned int k = 0; k < 512; k++) {
            page[pd * 512 + k] = (gib << 30) | ((uint64_t)k << 21) |
                                 PTE_P | PTE_RW | PTE_PS;
        }
    }
    g_array_free(gibs, true);
    for (size_t i = 0; i < BOOT_PT_PAGES * 512; i++) {
        page[i] = cpu_to_le64(page[i]);
    }
    address_space_write(&address_space_memory, pt, MEMTXATTRS_UNSPECIFIED,
                        page, BOOT_PT_PAGES * 0x1000);
}

/*
 * Offsets in the Linux zero page and setup header (Documentation/arch/
 * x86/zero-page.rst and boot.rst); a bzImage starts with the same header.
 */
#define BP_EXT_CMD_LINE_PTR 0x0c8
#define BP_E820_ENTRIES     0x1e8
#define BP_HDR_START        0x1f1           /* setup_sects */
#define BP_HDR_BOOT_FLAG    0x1fe
#define BP_HDR_JUMP_END     0x201           /* header end - 0x202 */
#define BP_HDR_HEADER       0x202
#define BP_HDR_VERSION      0x206
#define BP_HDR_LOADER       0x210
#define BP_HDR_LOADFLAGS    0x211
#define BP_EXT_RAMDISK_IMAGE 0x0c0
#define BP_EXT_RAMDISK_SIZE 0x0c4
#define BP_HDR_RAMDISK_IMAGE 0x218
#define BP_HDR_RAMDISK_SIZE 0x21c
#define BP_HDR_CMD_LINE_PTR 0x228
#define BP_HDR_KERNEL_ALIGN 0x230
#define BP_HDR_RELOCATABLE  0x234
#define BP_HDR_XLOADFLAGS   0x236
#define BP_HDR_CMDLINE_SIZE 0x238
#define BP_HDR_PREF_ADDRESS 0x258
#define BP_HDR_INIT_SIZE    0x260
#define BP_E820_TABLE       0x2d0
#define BP_SIZE             0x1000

#define HDR_MAGIC           0x53726448      /* "HdrS" */
#define HDR_VERSION_MIN     0x020c          /* 2.12: xloadflags */
#define XLF_KERNEL_64       0x1
#define LOADED_HIGH         0x1
#define BZ_ENTRY_64         0x200           /* past the protected-mode start */
#define E820_ENTRY_SIZE     20
#define E820_RAM            1
#define E820_RESERVED       2

static void plane_x86_put_e820(uint8_t *bp, unsigned int n, uint64_t addr,
                               uint64_t size, uint32_t type)
{
    uint8_t *e = bp + BP_E820_TABLE + n * E820_ENTRY_SIZE;

    stq_le_p(e, addr);
    stq_le_p(e + 8, size);
    stl_le_p(e + 16, type);
}

/*
 * A bzImage that plane 0 copied whole to the region's start: its setup
 * header, the end of the header in it, and where it starts.  Everything
 * in it is the guest's: each value is checked before it is used.
 */
typedef struct PlaneBzImage {
    uint8_t head[BP_SIZE];
    unsigned int hdr_end;
    hwaddr entry;
} PlaneBzImage;

/*
 * Whether [@start, @start + @len) is a non-empty range inside [@base,
 * @limit), the region below its boot state (@len 0 is never inside).
 */
static bool plane_x86_below_boot_state(uint64_t base, uint64_t limit,
                                       uint64_t start, uint64_t len)
{
    return len && start >= base && start < limit && len <= limit - start;
}

/*
 * Every address the VMM derives from the header: the protected-mode code
 * after setup_sects, its 64-bit entry, and where the kernel decompresses
 * itself (boot.rst: init_size bytes at the kernel's start, aligned to
 * kernel_alignment, not below pref_address) must lie in the region below
 * its boot state: one outside it would be another's memory, or the page
 * tables the VMM writes at the top.
 */
static bool plane_x86_bzimage_ranges(const PlaneBootInfo *info,
                                     PlaneBzImage *bz, char **why)
{
    uint64_t base = info->region_base;
    uint64_t limit = base + info->region_size - PLANE_BOOT_PAGETABLES;
    unsigned int setup_sects = bz->head[BP_HDR_START] ?: 4;
    uint32_t align = ldl_le_p(bz->head + BP_HDR_KERNEL_ALIGN);
    uint32_t init_size = ldl_le_p(bz->head + BP_HDR_INIT_SIZE);
    uint64_t pref = ldq_le_p(bz->head + BP_HDR_PREF_ADDRESS);
    uint64_t pm_start = base + (setup_sects + 1) * 512ULL;
    uint64_t decompress_at;

    bz->entry = pm_start + BZ_ENTRY_64;
    if (!plane_x86_below_boot_state(base, limit, pm_start, BZ_ENTRY_64 + 1)) {
        *why = g_strdup_printf("its 64-bit entry 0x%" PRIx64 " (setup_sects "
                               "%u) is outside the region below its boot "
                               "state [0x%" PRIx64 ", 0x%" PRIx64 ")",
                               bz->entry, setup_sects, base, limit);
        return false;
    }
    decompress_at = MAX(pm_start, MIN(pref, limit));
    decompress_at = ROUND_UP(decompress_at, (uint64_t)align);
    if (!plane_x86_below_boot_state(base, limit, decompress_at, init_size)) {
        *why = g_strdup_printf("it decompresses to 0x%" PRIx64 "+0x%x "
                               "(kernel_alignment 0x%x, pref_address 0x%"
                               PRIx64 "), not inside the region below its "
                               "boot state [0x%" PRIx64 ", 0x%" PRIx64 ")",
                               decompress_at, init_size, align, pref, base,
                               limit);
        return false;
    }
    return true;
}

static bool plane_x86_parse_bzimage(const PlaneBootInfo *info,
                                    PlaneBzImage *bz, char **why)
{
    uint32_t align;

    address_space_read(&address_space_memory, info->region_base,
                       MEMTXATTRS_UNSPECIFIED, bz->head, BP_SIZE);
    if (ldl_le_p(bz->head + BP_HDR_HEADER) != HDR_MAGIC ||
        lduw_le_p(bz->head + BP_HDR_BOOT_FLAG) != 0xaa55) {
        *why = g_strdup("no bzImage setup header at the region's start");
        return false;
    }
    if (lduw_le_p(bz->head + BP_HDR_VERSION) < HDR_VERSION_MIN ||
        !(lduw_le_p(bz->head + BP_HDR_XLOADFLAGS) & XLF_KERNEL_64)) {
        *why = g_strdup_printf("boot protocol 0x%x without a 64-bit entry",
                               lduw_le_p(bz->head + BP_HDR_VERSION));
        return false;
    }
    align = ldl_le_p(bz->head + BP_HDR_KERNEL_ALIGN);
    if (!bz->head[BP_HDR_RELOCATABLE] || !is_power_of_2(align)) {
        *why = g_strdup_printf("kernel not relocatable or alignment 0x%x",
                               align);
        return false;
    }
    if (!plane_x86_bzimage_ranges(info, bz, why)) {
        return false;
    }
    bz->hdr_end = BP_HDR_HEADER + bz->head[BP_HDR_JUMP_END];
    return true;
}

bool plane_x86_prepare_boot(PlaneBootInfo *info, char **why)
{
    PlaneBzImage *bz;

    if (info->kernel_format != PLANE_KERNEL_BZIMAGE) {
        return true;                /* RAW and ELF: the entry as given */
    }
    bz = g_new(PlaneBzImage, 1);
    if (!plane_x86_parse_bzimage(info, bz, why)) {
        g_free(bz);
        return false;
    }
    info->entry_point = bz->entry;
    g_free(bz);
    return true;
}

/* The plane's view: its region is its RAM, minus the boot state on top. */
static void plane_x86_build_boot_params(const PlaneBootInfo *info,
                                        hwaddr bp_gpa, hwaddr cmdline_gpa)
{
    uint64_t top = info->region_base + info->region_size;
    uint64_t boot = top - PLANE_BOOT_PAGETABLES;
    g_autofree uint8_t *bp = g_malloc0(BP_SIZE);
    g_autofree PlaneBzImage *bz = g_new(PlaneBzImage, 1);
    g_autofree char *why = NULL;

    if (info->kernel_format == PLANE_KERNEL_BZIMAGE &&
        plane_x86_parse_bzimage(info, bz, &why)) {
        /* The kernel's own header: kernel_alignment, init_size and all */
        memcpy(bp + BP_HDR_START, bz->head + BP_HDR_START,
               bz->hdr_end - BP_HDR_START);
    } else {
        stw_le_p(bp + BP_HDR_BOOT_FLAG, 0xaa55);
        stl_le_p(bp + BP_HDR_HEADER, HDR_MAGIC);
        stw_le_p(bp + BP_HDR_VERSION, 0x020f);
    }
    bp[BP_HDR_LOADER] = 0xff;                           /* undefined loader */
    bp[BP_HDR_LOADFLAGS] |= LOADED_HIGH;
    stl_le_p(bp + BP_HDR_CMD_LINE_PTR, (uint32_t)cmdline_gpa);
    stl_le_p(bp + BP_EXT_CMD_LINE_PTR, cmdline_gpa >> 32);
    stl_le_p(bp + BP_HDR_CMDLINE_SIZE, PLANE_CONFIG_CMDLINE_LEN - 1);
    stl_le_p(bp + BP_HDR_RAMDISK_IMAGE, (uint32_t)info->initrd_base);
    stl_le_p(bp + BP_EXT_RAMDISK_IMAGE, info->initrd_base >> 32);
    stl_le_p(bp + BP_HDR_RAMDISK_SIZE, (uint32_t)info->initrd_size);
    stl_le_p(bp + BP_EXT_RAMDISK_SIZE, info->initrd_size >> 32);
    plane_x86_put_e820(bp, 0, info->region_base, boot - info->region_base,
                       E820_RAM);
    plane_x86_put_e820(bp, 1, boot, PLANE_BOOT_PAGETABLES, E820_RESERVED);
    bp[BP_E820_ENTRIES] = 2;
    address_space_write(&address_space_memory, bp_gpa, MEMTXATTRS_UNSPECIFIED,
                        bp, BP_SIZE);
}

QEMU_BUILD_BUG_ON(PLANE_X86_BOOT_CR0 != (CR0_PG_MASK | CR0_WP_MASK |
                                         CR0_NE_MASK | CR0_ET_MASK |
                                         CR0_PE_MASK));
QEMU_BUILD_BUG_ON(PLANE_X86_BOOT_CR4 != CR4_PAE_MASK);
QEMU_BUILD_BUG_ON(PLANE_X86_BOOT_EFER != (MSR_EFER_SCE | MSR_EFER_LME |
                                          MSR_EFER_LMA | MSR_EFER_NXE));

void plane_x86_build_boot_state(const PlaneBootInfo *info)
{
    uint64_t top = info->region_base + info->region_size;
    hwaddr bp = top - PLANE_BOOT_PARAMS, cmdline = top - PLANE_BOOT_CMDLINE;
    uint8_t gdt_bytes[PLANE_X86_BOOT_GDT_SIZE] = { 0 };
    size_t len = strlen(info->cmdline) + 1;

    plane_x86_build_page_tables(info, top - PLANE_BOOT_PAGETABLES);
    stq_le_p(gdt_bytes + PLANE_BOOT_GDT_CS, PLANE_X86_BOOT_GDT_CS_DESC);
    stq_le_p(gdt_bytes + PLANE_BOOT_GDT_DS, PLANE_X86_BOOT_GDT_DS_DESC);
    address_space_write(&address_space_memory, top - PLANE_BOOT_GDT,
                        MEMTXATTRS_UNSPECIFIED, gdt_bytes, sizeof(gdt_bytes));
    plane_x86_build_boot_params(info, bp, cmdline);
    address_space_write(&address_space_memory, cmdline,
                        MEMTXATTRS_UNSPECIFIED, info->cmdline, len);
}

void plane_x86_boot_regs(const PlaneBootInfo *info, PlaneBootRegs *regs)
{
    uint64_t top = info->region_base + info->region_size;

    *regs = (PlaneBootRegs) {
        .rip = info->entry_point,
        .rsp = top,
        .rsi = top - PLANE_BOOT_PARAMS,
        .cr0 = PLANE_X86_BOOT_CR0,
        .cr3 = top - PLANE_BOOT_PAGETABLES,
        .cr4 = PLANE_X86_BOOT_CR4,
        .efer = PLANE_X86_BOOT_EFER,
        .rflags = PLANE_X86_BOOT_RFLAGS,
        .gdt_base = top - PLANE_BOOT_GDT,
        .gdt_limit = PLANE_X86_BOOT_GDT_SIZE - 1,
    };
}

void plane_x86_boot_vcpu(CPUState *cs, const PlaneBootInfo *info)
{
    CPUX86State *env = cpu_env(cs);
    PlaneBootRegs r;

    plane_x86_build_boot_state(info);
    cpu_synchronize_state(cs);
    /*
     * The plane boots on this index, so this state is the plane's BSP:
     * Linux reads APICBASE.BSP to tell a boot from a crash kernel's start.
     * A reset clears it again (x86_cpu_reset_hold: only vCPU 0 is a BSP).
     */
    if (X86_CPU(cs)->apic_state) {
        apic_designate_bsp(X86_CPU(cs)->apic_state, true);
    }
    plane_x86_boot_regs(info, &r);
    memset(env->regs, 0, sizeof(env->regs));
    env->regs[R_ESI] = r.rsi;
    env->regs[R_ESP] = r.rsp;
    env->eip = r.rip;
    env->eflags = r.rflags;
    cpu_load_efer(env, r.efer);
    cpu_x86_update_cr4(env, r.cr4);
    cpu_x86_update_cr3(env, r.cr3);
    cpu_x86_update_cr0(env, r.cr0);
    env->gdt.base = r.gdt_base;
    env->gdt.limit = r.gdt_limit;
    env->idt.base = 0;
    env->idt.limit = 0;
    cpu_x86_load_seg_cache(env, R_CS, PLANE_BOOT_GDT_CS, 0, 0xffffffff,
                           DESC_P_MASK | DESC_S_MASK | DESC_CS_MASK |
                           DESC_R_MASK | DESC_A_MASK | DESC_G_MASK |
                           DESC_L_MASK);
    for (int seg = R_ES; seg <= R_GS; seg++) {
        if (seg != R_CS) {
            cpu_x86_load_seg_cache(env, seg, PLANE_BOOT_GDT_DS, 0, 0xffffffff,
                                   DESC_P_MASK | DESC_S_MASK | DESC_W_MASK |
                                   DESC_A_MASK | DESC_G_MASK | DESC_B_MASK);
        }
    }
    tlb_flush(cs);
}

void plane_x86_enter_vtl_call(CPUState *cs, hwaddr calling_area)
{
    cpu_synchronize_state(cs);
    cpu_env(cs)->regs[R_EAX] = calling_area;
}

#define PLANE_X86_ENTRY_RFLAGS (CC_C | CC_P | CC_A | CC_Z | CC_S | TF_MASK | \
                                IF_MASK | DF_MASK | CC_O | IOPL_MASK | \
                                NT_MASK | RF_MASK | AC_MASK | ID_MASK)

void plane_x86_set_entry_regs(CPUState *cs, const PlaneEntryRegs *regs)
{
    CPUX86State *env = cpu_env(cs);

    cpu_synchronize_state(cs);
    env->eip = regs->rip;
    env->regs[R_ESP] = regs->rsp;
    env->regs[R_EAX] = regs->rax;
    /* The plane's own flags, less the reserved bits and VM (long mode) */
    env->eflags = (regs->rflags & PLANE_X86_ENTRY_RFLAGS) | 0x2;
    cpu_x86_update_cr3(env, regs->cr3);
    tlb_flush(cs);
}

void plane_x86_copy_parked_state(CPUState *dst, CPUState *src)
{
    CPUX86State *d = cpu_env(dst), *s = cpu_env(src);
    struct CPUBreakpoint *debug[4];

    cpu_synchronize_state(src);
    cpu_synchronize_state(dst);
    /* Registers, MSRs, FPU: all up to end_reset_fields but dst's debug */
    memcpy(debug, d->cpu_breakpoint, sizeof(debug));
    memcpy(d, s, offsetof(CPUX86State, end_reset_fields));
    memcpy(d->cpu_breakpoint, debug, sizeof(debug));
    tlb_flush(dst);
}

/*
 * What every x86 backend shares: the middle class of the TCG and KVM
 * backends (as SEV's and SNP's common parent in sev.c).  A 64-bit
 * hypercall returns 64 bits; outside 64-bit mode only the low 32 count,
 * as KVM does it.
 */
static void plane_x86_set_return(CPUState *cs, uint64_t value)
{
    CPUX86State *env = cpu_env(cs);

    cpu_synchronize_state(cs);
    env->regs[R_EAX] = (env->hflags & HF_LMA_MASK) &&
                       (env->hflags & HF_CS64_MASK) ? value : (uint32_t)value;
}

static void plane_accel_x86_class_init(ObjectClass *oc, void *data)
{
    PlaneAccelClass *pac = PLANE_ACCEL_CLASS(oc);

    pac->check_cpu = plane_x86_check_cpu;
    pac->vcpu_create = plane_x86_vcpu_create;
    pac->outside_ram_min = PLANE_X86_OUTSIDE_RAM_MIN;
    pac->phys_addr_limit = plane_x86_phys_addr_limit;
    pac->prepare_boot = plane_x86_prepare_boot;
    pac->boot_vcpu = plane_x86_boot_vcpu;
    pac->boot_regs = plane_x86_boot_regs;
    pac->set_return = plane_x86_set_return;
    pac->enter_vtl_call = plane_x86_enter_vtl_call;
    pac->set_entry_regs = plane_x86_set_entry_regs;
    pac->copy_parked_state = plane_x86_copy_parked_state;
}

static const TypeInfo plane_accel_x86_type_info = {
    .name = TYPE_PLANE_ACCEL_X86,
    .parent = TYPE_PLANE_ACCEL,
    .abstract = true,
    .class_init = plane_accel_x86_class_init,
};

static void plane_accel_x86_register_types(void)
{
    type_register_static(&plane_accel_x86_type_info);
}

type_init(plane_accel_x86_register_types)
