/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: -object plane-launch, plane 1 launched by the host.  At every
 * machine reset QEMU loads the plane's kernel from the copy it read at
 * start-up, seals, measures and boots it as ACTIVATE would, and runs it
 * until it parks before plane 0's first instruction.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qom/object_interfaces.h"
#include "system/reset.h"
#include "system/runstate.h"
#include "exec/address-spaces.h"
#include "hw/core/cpu.h"
#include "hw/resettable.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-launch.h"
#include "hw/planes/plane-measure.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/plane-ram.h"
#include "hw/planes/plane-rules.h"
#include "hw/planes/planes-abi.h"
#include "plane-dispatch.h"
#include "plane-internal.h"
#include "trace.h"

#define TYPE_PLANE_LAUNCH "plane-launch"
OBJECT_DECLARE_SIMPLE_TYPE(PlaneLaunch, PLANE_LAUNCH)

/* Without size=, the region holds the image and at least this much. */
#define PLANE_LAUNCH_DEFAULT_SIZE (16 * MiB)
/* Without base=, fresh RAM at a multiple of this past everything else. */
#define PLANE_LAUNCH_BASE_ALIGN (1 * GiB)
/* Guest (virtual clock) time plane 1 has to park, by default. */
#define PLANE_LAUNCH_PARK_TIMEOUT_MS 60000

/* ELF64 offsets (System V gABI), read from the file without trusting it. */
#define ELF_E_MACHINE       18
#define ELF_E_ENTRY         24
#define ELF_E_PHOFF         32
#define ELF_E_PHENTSIZE     54
#define ELF_E_PHNUM         56
#define ELF_EHDR_SIZE       64
#define ELF_P_OFFSET        8
#define ELF_P_PADDR         24
#define ELF_P_FILESZ        32
#define ELF_P_MEMSZ         40
#define ELF_PHDR_SIZE       56
#define ELF_PT_LOAD         1
#define ELF_EM_X86_64       62

struct PlaneLaunch {
    Object parent_obj;

    uint32_t plane;
    char *kernel;
    char *initrd;
    char *append;
    char *format;               /* as given; NULL: from the file */
    uint64_t base;
    uint64_t size;
    uint32_t park_timeout_ms;

    /* The kept copies, read once at start-up */
    uint8_t *image;
    gsize image_len;
    uint8_t *initrd_data;
    gsize initrd_len;
    uint32_t kernel_format;     /* PLANE_KERNEL_* */
    uint64_t footprint;         /* bytes of the region the image takes */
    uint64_t entry_offset;      /* RAW and ELF: entry - region base */
    bool fresh;                 /* the region is fresh RAM */
    bool launched_once;
    QEMUTimer *park_timer;
    ResettableState reset_state;
};

static bool plane_launch_is_elf(const uint8_t *b, gsize len)
{
    return len >= ELF_EHDR_SIZE && !memcmp(b, "\x7f" "ELF", 4) &&
           b[4] == 2 && b[5] == 1 &&
           lduw_le_p(b + ELF_E_MACHINE) == ELF_EM_X86_64;
}

static bool plane_launch_is_bzimage(const uint8_t *b, gsize len)
{
    return len >= 0x210 && lduw_le_p(b + 0x1fe) == 0xaa55 &&
           !memcmp(b + 0x202, "HdrS", 4);
}

/* An ELF image's load segments, at the region's start plus p_paddr. */
static bool plane_launch_parse_elf(PlaneLaunch *pl, Error **errp)
{
    const uint8_t *b = pl->image;
    uint64_t phoff = ldq_le_p(b + ELF_E_PHOFF);
    unsigned int phnum = lduw_le_p(b + ELF_E_PHNUM);

    if (lduw_le_p(b + ELF_E_PHENTSIZE) != ELF_PHDR_SIZE || !phnum ||
        phoff > pl->image_len ||
        (uint64_t)phnum * ELF_PHDR_SIZE > pl->image_len - phoff) {
        error_setg(errp, "plane-launch kernel=%s: ELF program headers at "
                   "0x%" PRIx64 " (%u) lie outside its %zu bytes", pl->kernel,
                   phoff, phnum, (size_t)pl->image_len);
        return false;
    }
    pl->footprint = 0;
    for (unsigned int i = 0; i < phnum; i++) {
        const uint8_t *ph = b + phoff + i * ELF_PHDR_SIZE;
        uint64_t off = ldq_le_p(ph + ELF_P_OFFSET);
        uint64_t paddr = ldq_le_p(ph + ELF_P_PADDR);
        uint64_t filesz = ldq_le_p(ph + ELF_P_FILESZ);
        uint64_t memsz = ldq_le_p(ph + ELF_P_MEMSZ);

        if (ldl_le_p(ph) != ELF_PT_LOAD) {
            continue;
        }
        if (filesz > memsz || off > pl->image_len ||
            filesz > pl->image_len - off || paddr + memsz < paddr ||
            paddr + memsz > 1 * TiB) {
            error_setg(errp, "plane-launch kernel=%s: ELF segment %u "
                       "(offset 0x%" PRIx64 ", 0x%" PRIx64 " bytes at 0x%"
                       PRIx64 ") is not loadable", pl->kernel, i, off,
                       memsz, paddr);
            return false;
        }
        pl->footprint = MAX(pl->footprint, paddr + memsz);
    }
    pl->entry_offset = ldq_le_p(b + ELF_E_ENTRY);
    if (pl->entry_offset >= pl->footprint) {
        error_setg(errp, "plane-launch kernel=%s: ELF entry 0x%" PRIx64
                   " is outside its segments (0x%" PRIx64 " bytes)",
                   pl->kernel, pl->entry_offset, pl->footprint);
        return false;
    }
    return true;
}

/* The format given, or the file's; a format the file does not match fails */
static bool plane_launch_check_format(PlaneLaunch *pl, Error **errp)
{
    bool elf = plane_launch_is_elf(pl->image, pl->image_len);
    bool bz = plane_launch_is_bzimage(pl->image, pl->image_len);
    const char *format = pl->format ?: elf ? "elf" : bz ? "bzimage" : "raw";

    if (!strcmp(format, "elf") && elf) {
        pl->kernel_format = PLANE_KERNEL_ELF;
        return plane_launch_parse_elf(pl, errp);
    }
    if (!strcmp(format, "bzimage") && bz) {
        pl->kernel_format = PLANE_KERNEL_BZIMAGE;
    } else if (!strcmp(format, "raw") && !elf && !bz) {
        pl->kernel_format = PLANE_KERNEL_RAW;
    } else {
        error_setg(errp, "plane-launch kernel=%s: format=%s does not match "
                   "the file, which is %s", pl->kernel, format,
                   elf ? "a 64-bit x86 ELF (format=elf)" :
                   bz ? "a bzImage (format=bzimage)" :
                   "neither a 64-bit x86 ELF nor a bzImage (format=raw)");
        return false;
    }
    pl->footprint = pl->image_len;
    pl->entry_offset = 0;
    return true;
}

static bool plane_launch_read(const char *what, const char *path,
                              uint8_t **data, gsize *len, Error **errp)
{
    g_autoptr(GError) gerr = NULL;

    if (!g_file_get_contents(path, (char **)data, len, &gerr)) {
        error_setg(errp, "plane-launch %s=%s: %s", what, path, gerr->message);
        return false;
    }
    return true;
}

static void plane_launch_complete(UserCreatable *uc, Error **errp)
{
    PlaneLaunch *pl = PLANE_LAUNCH(uc);
    size_t append_len = pl->append ? strlen(pl->append) : 0;

    if (!pl->kernel) {
        error_setg(errp, "plane-launch: kernel=FILE is required");
        return;
    }
    if (pl->plane == 0) {
        error_setg(errp, "plane-launch plane=0: plane 0 boots from the "
                   "machine's firmware; only plane 1 can be launched");
        return;
    }
    if (append_len > PLANE_CONFIG_CMDLINE_LEN - 1) {
        error_setg(errp, "plane-launch append: %zu characters, at most %d",
                   append_len, PLANE_CONFIG_CMDLINE_LEN - 1);
        return;
    }
    if ((pl->base & (PLANE_PAGE_SIZE - 1)) ||
        (pl->size & (PLANE_PAGE_SIZE - 1)) || (pl->base && !pl->size)) {
        error_setg(errp, "plane-launch base=0x%" PRIx64 ",size=0x%" PRIx64
                   ": both page aligned (0x%x), and base only with size",
                   pl->base, pl->size, PLANE_PAGE_SIZE);
        return;
    }
    if (!plane_launch_read("kernel", pl->kernel, &pl->image, &pl->image_len,
                           errp) ||
        (pl->initrd && !plane_launch_read("initrd", pl->initrd,
                                          &pl->initrd_data, &pl->initrd_len,
                                          errp))) {
        return;
    }
    plane_launch_check_format(pl, errp);
}

/* Where the initrd goes: page aligned, right below the boot state. */
static uint64_t plane_launch_initrd_offset(PlaneLaunch *pl)
{
    return ROUND_DOWN(pl->size - PLANE_BOOT_PAGETABLES - pl->initrd_len,
                      PLANE_PAGE_SIZE);
}

/*
 * No base: fresh RAM at the first 1 GiB boundary past the guest's memory
 * map and the PCI 64-bit window, where neither plane 0's firmware nor its
 * kernel puts anything.
 */
static uint64_t plane_launch_default_base(const PlaneLayout *l)
{
    Object *host = object_resolve_path_type("", "pci-host-bridge", NULL);
    uint64_t top = l->outside_ram_min;

    if (host && object_property_find(host, "pci-hole64-end")) {
        top = MAX(top, object_property_get_uint(host, "pci-hole64-end",
                                                NULL));
    }
    for (size_t i = 0; i < l->nr_ranges; i++) {
        if (l->ranges[i].end < l->phys_limit) {
            top = MAX(top, l->ranges[i].end);
        }
    }
    return ROUND_UP(top, PLANE_LAUNCH_BASE_ALIGN);
}

/* The region: given, or placed; either way where CONFIG would take it. */
static bool plane_launch_place(PlaneLaunch *pl, PlaneSet *set, Error **errp)
{
    PlaneConfigEntry e[2] = { { 0 } };
    g_autofree char *why = NULL;
    uint64_t need = pl->footprint + ROUND_UP(pl->initrd_len, PLANE_PAGE_SIZE);
    PlaneLayout l;

    plane_layout_describe(set, first_cpu, &l);
    if (!pl->size) {
        pl->size = MAX(PLANE_LAUNCH_DEFAULT_SIZE,
                       ROUND_UP(need + PLANE_BOOT_PAGETABLES, 2 * MiB));
    }
    if (!pl->base) {
        pl->base = plane_launch_default_base(&l);
    }
    if (need > pl->size - MIN(pl->size, PLANE_BOOT_PAGETABLES)) {
        error_setg(errp, "plane-launch kernel=%s%s%s: needs 0x%" PRIx64
                   " bytes, the region of 0x%" PRIx64 " holds 0x%" PRIx64
                   " below its boot state", pl->kernel,
                   pl->initrd ? ",initrd=" : "", pl->initrd ?: "", need,
                   pl->size, pl->size - MIN(pl->size, PLANE_BOOT_PAGETABLES));
        return false;
    }
    e[1] = (PlaneConfigEntry) {
        .load_offset = pl->base, .memory_size = pl->size,
        .kernel_format = pl->kernel_format,
    };
    /* The config array is CONFIG's: here none, at 0, below any region */
    if (plane_rule_config_regions(&l, 0, 2, e,
                                  set->ram_limit - set->ram_added, &why)) {
        error_setg(errp, "plane-launch base=0x%" PRIx64 ",size=0x%" PRIx64
                   ": %s", pl->base, pl->size, why);
        return false;
    }
    pl->fresh = plane_layout_placement(&l, pl->base, pl->size) ==
                PLANE_REGION_OUTSIDE_RAM;
    return true;
}

/* The kernel and initrd into the region, from the kept copies. */
static void plane_launch_load(PlaneLaunch *pl, PlaneBootInfo *boot)
{
    AddressSpace *as = &address_space_memory;
    MemTxAttrs attrs = MEMTXATTRS_UNSPECIFIED;

    if (!pl->fresh) {
        /* carved from guest RAM: what plane 0's firmware left goes */
        address_space_set(as, pl->base, 0, pl->size, attrs);
    }
    if (pl->kernel_format == PLANE_KERNEL_ELF) {
        uint64_t phoff = ldq_le_p(pl->image + ELF_E_PHOFF);

        for (unsigned int i = 0; i < lduw_le_p(pl->image + ELF_E_PHNUM); i++) {
            const uint8_t *ph = pl->image + phoff + i * ELF_PHDR_SIZE;

            if (ldl_le_p(ph) == ELF_PT_LOAD) {
                address_space_write(as, pl->base + ldq_le_p(ph + ELF_P_PADDR),
                                    attrs,
                                    pl->image + ldq_le_p(ph + ELF_P_OFFSET),
                                    ldq_le_p(ph + ELF_P_FILESZ));
            }
        }
    } else {
        address_space_write(as, pl->base, attrs, pl->image, pl->image_len);
    }
    if (pl->initrd_len) {
        boot->initrd_base = pl->base + plane_launch_initrd_offset(pl);
        boot->initrd_size = pl->initrd_len;
        address_space_write(as, boot->initrd_base, attrs, pl->initrd_data,
                            pl->initrd_len);
    }
}

/*
 * One error line; at start-up QEMU exits, later (the same copy cannot
 * fail otherwise, but the host's RAM can) the VM stops.
 */
static void G_GNUC_PRINTF(2, 3)
plane_launch_fail(PlaneLaunch *pl, const char *fmt, ...)
{
    g_autofree char *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (!pl->launched_once) {
        error_report("plane-launch kernel=%s: %s", pl->kernel, msg);
        exit(1);
    }
    error_report("plane-launch kernel=%s: %s: VM stopped", pl->kernel, msg);
    qemu_system_vmstop_request_prepare();
    qemu_system_vmstop_request(RUN_STATE_INTERNAL_ERROR);
}

/* Region, image, boot record, seal: plane 1 is active. */
static bool plane_launch_prepare(PlaneLaunch *pl, PlaneSet *set,
                                 PlaneBootInfo *boot)
{
    Plane *plane = set->planes[pl->plane];
    g_autofree char *why = NULL;
    int err;

    plane->region_base = pl->base;
    plane->region_size = pl->size;
    plane->kernel_format = pl->kernel_format;
    if (pl->fresh && !plane_region_add_ram(plane)) {
        plane_launch_fail(pl, "the host cannot allocate 0x%" PRIx64 " bytes "
                          "for plane %u", pl->size, pl->plane);
        return false;
    }
    *boot = (PlaneBootInfo) {
        .region_base = pl->base, .region_size = pl->size,
        .entry_point = pl->base + pl->entry_offset,
        .kernel_format = pl->kernel_format, .cmdline = pl->append ?: "",
    };
    plane_launch_load(pl, boot);
    if (set->accel->prepare_boot && !set->accel->prepare_boot(boot, &why)) {
        plane_launch_fail(pl, "plane %u kernel cannot boot: %s", pl->plane,
                          why);
        return false;
    }
    err = plane_mem_attrs_set(set, first_cpu, 0, pl->base, pl->size,
                              PLANE_MEM_ATTR_DENY_ALL, PLANE_MEM_ATTRS_SEAL);
    if (err) {
        plane_launch_fail(pl, "sealing plane %u's region failed (%d)",
                          pl->plane, err);
        return false;
    }
    plane_set_state(plane, PLANE_STATE_CONFIGURED);
    set->configured = true;
    set->config_count = pl->plane + 1;
    plane->entry_point = boot->entry_point;
    g_free(plane->boot_cmdline);
    plane->boot_cmdline = g_strdup(boot->cmdline);
    plane_layout_changed();
    plane_measure(plane, boot);
    plane_set_state(plane, PLANE_STATE_ACTIVE);
    return true;
}

/* The host runs plane 1 itself, at the first VTL call (planes=KVM). */
static void plane_launch_in_host(PlaneLaunch *pl, PlaneSet *set,
                                 const PlaneBootInfo *boot)
{
    Error *err = NULL;

    set->activate_index = 0;
    if (!set->accel->host_activate(pl->plane, set->planes[pl->plane]->home,
                                   boot, &err)) {
        plane_launch_fail(pl, "%s", error_get_pretty(err));
        error_free(err);
    }
}

static void plane_launch_run(PlaneLaunch *pl)
{
    PlaneSet *set = plane_set_get();
    PlaneBootInfo boot;

    if (!plane_launch_prepare(pl, set, &boot)) {
        return;
    }
    trace_plane_launch_loaded(pl->plane, pl->kernel, pl->base, pl->size,
                              boot.entry_point);
    pl->launched_once = true;
    if (set->accel->host_switches_planes) {
        plane_launch_in_host(pl, set, &boot);
        return;
    }
    set->launching = true;
    /* plane 0 waits on the boot vCPU's index, where it would start */
    plane_activate_start(set, 0);
    if (pl->park_timeout_ms) {
        timer_mod(pl->park_timer, qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) +
                  pl->park_timeout_ms);
    }
}

static void plane_launch_park_timeout(void *opaque)
{
    PlaneLaunch *pl = opaque;
    PlaneSet *set = plane_set_get();

    if (!set->launching) {
        return;
    }
    error_report("plane-launch kernel=%s: plane %u did not park within "
                 "park-timeout=%u ms of guest time: VM stopped", pl->kernel,
                 pl->plane, pl->park_timeout_ms);
    set->launching = false;
    plane_set_state(set->planes[pl->plane], PLANE_STATE_STOPPED);
    qemu_system_vmstop_request_prepare();
    qemu_system_vmstop_request(RUN_STATE_INTERNAL_ERROR);
}

/*
 * After the whole machine reset (every hold phase, so the CPU states too).
 * A snapshot or an incoming migration brings the launched plane itself.
 */
static void plane_launch_reset_exit(Object *obj, ResetType type)
{
    if (type == RESET_TYPE_SNAPSHOT_LOAD ||
        runstate_check(RUN_STATE_INMIGRATE)) {
        return;
    }
    plane_launch_run(PLANE_LAUNCH(obj));
}

typedef struct PlaneLaunchFind {
    PlaneLaunch *found;
    Error **errp;
} PlaneLaunchFind;

static int plane_launch_check_one(Object *obj, void *opaque)
{
    PlaneLaunch *pl = (PlaneLaunch *)object_dynamic_cast(obj,
                                                         TYPE_PLANE_LAUNCH);
    PlaneLaunchFind *find = opaque;
    PlaneSet *set = plane_set_get();
    unsigned int planes = set ? set->nr_planes : 1;

    if (!pl) {
        return 0;
    }
    if (pl->plane >= planes) {
        error_setg(find->errp, "plane-launch plane=%u: the machine has %u "
                   "plane%s (-machine planes=N, N > %u)", pl->plane, planes,
                   planes > 1 ? "s" : "", pl->plane);
        return 1;
    }
    if (pl->plane != 1) {
        error_setg(find->errp, "plane-launch plane=%u: only plane 1 can be "
                   "launched by the host", pl->plane);
        return 1;
    }
    if (find->found) {
        error_setg(find->errp, "plane-launch: plane %u has two launches "
                   "(kernel=%s and kernel=%s); one per plane", pl->plane,
                   find->found->kernel, pl->kernel);
        return 1;
    }
    find->found = pl;
    return 0;
}

bool plane_launch_init(Error **errp)
{
    PlaneLaunchFind find = { .errp = errp };
    PlaneSet *set = plane_set_get();
    PlaneLaunch *pl;

    if (object_child_foreach(object_get_objects_root(),
                             plane_launch_check_one, &find)) {
        return false;
    }
    pl = find.found;
    if (!pl) {
        return true;
    }
    if (!plane_launch_place(pl, set, errp)) {
        return false;
    }
    set->host_launch = true;
    pl->park_timer = timer_new_ms(QEMU_CLOCK_VIRTUAL,
                                  plane_launch_park_timeout, pl);
    qemu_register_resettable(OBJECT(pl));
    return true;
}

static void plane_launch_set_format(Object *obj, const char *value,
                                    Error **errp)
{
    PlaneLaunch *pl = PLANE_LAUNCH(obj);

    if (strcmp(value, "elf") && strcmp(value, "bzimage") &&
        strcmp(value, "raw")) {
        error_setg(errp, "plane-launch format=%s: elf, bzimage or raw",
                   value);
        return;
    }
    g_free(pl->format);
    pl->format = g_strdup(value);
}

static char *plane_launch_get_format(Object *obj, Error **errp)
{
    return g_strdup(PLANE_LAUNCH(obj)->format);
}

/* The string properties: set once from the command line, then read. */
typedef struct PlaneLaunchStrProp {
    const char *name;
    size_t offset;
    const char *description;
} PlaneLaunchStrProp;

static const PlaneLaunchStrProp plane_launch_str_props[] = {
    { "kernel", offsetof(PlaneLaunch, kernel),
      "The plane's kernel: a 64-bit x86 ELF, a bzImage or a flat image" },
    { "initrd", offsetof(PlaneLaunch, initrd),
      "An initrd, placed at the top of the region below the boot state" },
    { "append", offsetof(PlaneLaunch, append),
      "The plane's kernel command line (at most 511 characters)" },
};

static char **plane_launch_str_field(Object *obj, const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(plane_launch_str_props); i++) {
        if (!strcmp(plane_launch_str_props[i].name, name)) {
            return (char **)((char *)obj + plane_launch_str_props[i].offset);
        }
    }
    g_assert_not_reached();
}

static void plane_launch_get_str(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    char *value = *plane_launch_str_field(obj, name) ?: (char *)"";

    visit_type_str(v, name, &value, errp);
}

static void plane_launch_set_str(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    char **field = plane_launch_str_field(obj, name);
    char *value;

    if (visit_type_str(v, name, &value, errp)) {
        g_free(*field);
        *field = value;
    }
}

static ResettableState *plane_launch_get_reset_state(Object *obj)
{
    return &PLANE_LAUNCH(obj)->reset_state;
}

static void plane_launch_class_init(ObjectClass *oc, void *data)
{
    UserCreatableClass *ucc = USER_CREATABLE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    ucc->complete = plane_launch_complete;
    rc->get_state = plane_launch_get_reset_state;
    rc->phases.exit = plane_launch_reset_exit;
    for (size_t i = 0; i < ARRAY_SIZE(plane_launch_str_props); i++) {
        const PlaneLaunchStrProp *p = &plane_launch_str_props[i];

        object_class_property_add(oc, p->name, "str", plane_launch_get_str,
                                  plane_launch_set_str, NULL, NULL);
        object_class_property_set_description(oc, p->name, p->description);
    }
    object_class_property_add_str(oc, "format", plane_launch_get_format,
                                  plane_launch_set_format);
    object_class_property_set_description(oc, "format",
        "elf, bzimage or raw (default: what the kernel file is)");
}

static void plane_launch_instance_init(Object *obj)
{
    PlaneLaunch *pl = PLANE_LAUNCH(obj);

    pl->plane = 1;
    pl->park_timeout_ms = PLANE_LAUNCH_PARK_TIMEOUT_MS;
    object_property_add_uint32_ptr(obj, "plane", &pl->plane,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint32_ptr(obj, "park-timeout", &pl->park_timeout_ms,
                                   OBJ_PROP_FLAG_READWRITE);
    /* default 0: QEMU places the region (plane_launch_place()) */
    object_property_add_uint64_ptr(obj, "base", &pl->base,
                                   OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "size", &pl->size,
                                   OBJ_PROP_FLAG_READWRITE);
}

static void plane_launch_finalize(Object *obj)
{
    PlaneLaunch *pl = PLANE_LAUNCH(obj);

    g_free(pl->kernel);
    g_free(pl->initrd);
    g_free(pl->append);
    g_free(pl->format);
    g_free(pl->image);
    g_free(pl->initrd_data);
    if (pl->park_timer) {
        timer_free(pl->park_timer);
    }
}

static const TypeInfo plane_launch_info = {
    .name = TYPE_PLANE_LAUNCH,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(PlaneLaunch),
    .instance_init = plane_launch_instance_init,
    .instance_finalize = plane_launch_finalize,
    .class_init = plane_launch_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_USER_CREATABLE },
        { TYPE_RESETTABLE_INTERFACE },
        { }
    },
};

static void plane_launch_register_types(void)
{
    type_register_static(&plane_launch_info);
}

type_init(plane_launch_register_types)
