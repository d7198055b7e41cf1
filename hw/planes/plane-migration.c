/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes in the migration stream (savevm/loadvm, live migration).
 *
 * The plane >= 1 vCPU states are CPUs of their own and travel in their
 * own "cpu" and "apic" sections, like every CPU.  What the planes core
 * holds travels in one "vm-planes" section, registered only with planes >
 * 1, so that a planes=1 stream is exactly stock QEMU's: per vCPU index
 * the current plane and what is pending across a switch (a VTL call in
 * progress resumes on the destination, neither lost nor made twice), per
 * plane its state, region, boot record, counters, enabled vCPU states and
 * memory view (the seal holds from the destination's first instruction),
 * and CONFIG's record.  A region outside guest RAM has fresh RAM, a RAM
 * block of its own: the setup phase names it, so that the destination
 * makes it before the RAM arrives.
 *
 * Saved through a flat image (PlaneMigImage) with fixed-width fields that
 * pre_save fills and post_load checks before anything of the live state
 * changes: a stream from another planes configuration (checked first in
 * the setup phase, "vm-planes/setup"), or a corrupt one, fails the load
 * with an error and leaves the destination as it was.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/units.h"
#include "migration/vmstate.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-attr-map.h"
#include "hw/planes/plane-device.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/plane-migration.h"
#include "hw/planes/plane-migration-check.h"
#include "hw/planes/plane-ram.h"
#include "hw/planes/plane-rules.h"
#include "plane-dispatch.h"
#include "plane-internal.h"
#include "trace.h"

static PlaneMigImage plane_mig;

static void plane_mig_image_free(PlaneMigImage *img)
{
    for (unsigned int p = 0; img->planes && p < img->planes_allocated; p++) {
        g_free(img->planes[p].vcpu_enabled);
        g_free(img->planes[p].ranges);
    }
    g_clear_pointer(&img->planes, g_free);
    g_clear_pointer(&img->pending, g_free);
}

static void plane_mig_save_plane(Plane *plane, PlaneMigPlane *mp)
{
    unsigned int nr_vcpus = plane->set->nr_vcpus;
    size_t nr;
    const PlaneMemAttrRange *ranges = plane_mem_attrs_ranges(plane->id, &nr);

    mp->state = plane->state;
    mp->kernel_format = plane->kernel_format;
    mp->home = plane->home;
    mp->busy = plane->busy;
    mp->region_base = plane->region_base;
    mp->region_size = plane->region_size;
    mp->entry_point = plane->entry_point;
    mp->memory_violations = qatomic_read(&plane->memory_violations);
    mp->device_accesses_dropped =
        qatomic_read(&plane->device_accesses_dropped);
    memset(mp->cmdline, 0, sizeof(mp->cmdline));
    mp->has_cmdline = plane->boot_cmdline;
    if (plane->boot_cmdline) {
        g_strlcpy((char *)mp->cmdline, plane->boot_cmdline,
                  sizeof(mp->cmdline));
    }
    mp->nr_vcpus = nr_vcpus;
    mp->vcpu_enabled = g_new0(uint8_t, nr_vcpus);
    for (unsigned int i = 0; plane->vcpus && i < nr_vcpus; i++) {
        if (!plane->vcpus[i]) {
            continue;           /* no CPU plugged there */
        }
        mp->vcpu_enabled[i] = plane->vcpus[i]->enabled |
                              plane->vcpus[i]->enabled_fresh << 1;
    }
    mp->nr_ranges = nr;
    mp->ranges = g_memdup2(ranges, nr * sizeof(PlaneMemAttrRange));
}

static int plane_mig_pre_save(void *opaque)
{
    PlaneMigImage *img = opaque;
    PlaneSet *set = plane_set_get();

    plane_mig_image_free(img);
    img->nr_planes = set->nr_planes;
    img->nr_vcpus = set->nr_vcpus;
    img->pending = g_new0(PlaneMigPending, set->nr_vcpus);
    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        const PlanePending *pp = &set->pending[i];

        img->pending[i] = (PlaneMigPending) {
            .current = qatomic_read(&set->current_plane[i]),
            .kind = pp->kind, .caller = pp->caller, .callee = pp->callee,
            .calling_area = pp->calling_area, .wait_seq = pp->wait_seq,
            .call_after_park = pp->call_after_park,
        };
    }
    img->planes = g_new0(PlaneMigPlane, set->nr_planes);
    img->planes_allocated = set->nr_planes;
    for (unsigned int p = 0; p < set->nr_planes; p++) {
        plane_mig_save_plane(set->planes[p], &img->planes[p]);
    }
    img->wait_seq = set->wait_seq;
    img->activating = set->activating;
    img->boot_queued = set->boot_queued;
    img->activate_index = set->activate_index;
    img->configured = set->configured;
    img->config_gpa = set->config_gpa;
    img->config_count = set->config_count;
    img->violation_stopped = set->violation_stopped;
    trace_plane_migration_save(set->nr_planes, set->nr_vcpus);
    return 0;
}

static int plane_mig_post_save(void *opaque)
{
    plane_mig_image_free(opaque);
    return 0;
}

/* The stream's planes configuration is this QEMU's (before any array). */
static bool plane_mig_same_shape(void *opaque, int version_id)
{
    PlaneMigImage *img = opaque;
    PlaneSet *set = plane_set_get();

    if (img->nr_planes != set->nr_planes || img->nr_vcpus != set->nr_vcpus) {
        error_report("planes: the incoming VM has %u planes on %u vCPUs; "
                     "this QEMU was started with -machine planes=%u and %u "
                     "vCPUs", img->nr_planes, img->nr_vcpus, set->nr_planes,
                     set->nr_vcpus);
        return false;
    }
    return true;
}

/* The stream's encoding is the core's (plane-migration-check.h) */
QEMU_BUILD_BUG_ON(PLANE_MIG_STATE_STOPPED != (int)PLANE_STATE_STOPPED ||
                  PLANE_MIG_STATE__MAX != (int)PLANE_STATE__MAX ||
                  PLANE_MIG_STATE_ACTIVE != (int)PLANE_STATE_ACTIVE);
QEMU_BUILD_BUG_ON(PLANE_MIG_PENDING_WAITING != (int)PLANE_PENDING_WAITING ||
                  PLANE_MIG_PENDING_VTL_CALL != (int)PLANE_PENDING_VTL_CALL ||
                  PLANE_MIG_PENDING_ACTIVATE != (int)PLANE_PENDING_ACTIVATE);
QEMU_BUILD_BUG_ON(PLANE_MIG_WAITING != PLANE_WAITING ||
                  PLANE_MIG_PLANES_MAX != PLANES_MAX ||
                  PLANE_MIG_HOME_INDEX != PLANE_HOME_INDEX);

typedef struct PlaneMigSetup PlaneMigSetup;
static PlaneMigSetup plane_mig_setup;
static const PlaneMigRegion *plane_mig_setup_regions(void);

/*
 * This QEMU as the stream's checks see it (under the BQL); @present, of
 * nr_vcpus, says which indexes have a CPU.
 */
static void plane_mig_dest(PlaneSet *set, PlaneMigDest *d, bool *present)
{
    PlaneLayout l;

    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        present[i] = plane_index_present(set, i);
    }
    plane_layout_describe(set, first_cpu, &l);
    *d = (PlaneMigDest) {
        .nr_planes = set->nr_planes, .nr_vcpus = set->nr_vcpus,
        .ranges = l.ranges, .nr_ranges = l.nr_ranges,
        .phys_limit = l.phys_limit, .outside_ram_min = l.outside_ram_min,
        .ram_limit = set->ram_limit,
        .host_switches_planes = set->accel->host_switches_planes,
        .setup = plane_mig_setup_regions(),
        .present = present,
    };
}

/* Every record of the image is a state the core can be in; none applied */
static bool plane_mig_image_valid(PlaneSet *set, const PlaneMigImage *img)
{
    g_autofree bool *present = g_new(bool, set->nr_vcpus);
    g_autofree char *why = NULL;
    PlaneMigDest d;

    plane_mig_dest(set, &d, present);
    if (!plane_mig_check_image(&d, img, &why)) {
        error_report("planes: the incoming migration stream is refused: %s",
                     why);
        return false;
    }
    return true;
}

static void plane_mig_load_plane(Plane *plane, const PlaneMigPlane *mp)
{
    plane->state = mp->state;
    plane->kernel_format = mp->kernel_format;
    plane->home = mp->home;
    plane->busy = mp->busy;
    plane->region_base = mp->region_base;
    plane->region_size = mp->region_size;
    plane->entry_point = mp->entry_point;
    qatomic_set(&plane->memory_violations, mp->memory_violations);
    qatomic_set(&plane->device_accesses_dropped,
                mp->device_accesses_dropped);
    g_free(plane->boot_cmdline);
    plane->boot_cmdline = mp->has_cmdline ?
                          g_strdup((const char *)mp->cmdline) : NULL;
    for (unsigned int i = 0; plane->vcpus && i < mp->nr_vcpus; i++) {
        if (!plane->vcpus[i]) {
            continue;           /* checked: nothing enabled there */
        }
        plane->vcpus[i]->enabled = mp->vcpu_enabled[i] & 1;
        plane->vcpus[i]->enabled_fresh = mp->vcpu_enabled[i] & 2;
    }
    /* The CPUs' own post_load flushes their TLBs: no stale translation. */
    plane_mem_attrs_restore(plane, mp->ranges, mp->nr_ranges);
}

static int plane_mig_post_load(void *opaque, int version_id)
{
    PlaneMigImage *img = opaque;
    PlaneSet *set = plane_set_get();
    int ret = -EINVAL;

    assert(bql_locked());
    if (!plane_mig_image_valid(set, img)) {
        goto out;
    }
    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        const PlaneMigPending *pp = &img->pending[i];

        qatomic_set(&set->current_plane[i], pp->current);
        set->pending[i] = (PlanePending) {
            .kind = pp->kind, .caller = pp->caller, .callee = pp->callee,
            .calling_area = pp->calling_area, .wait_seq = pp->wait_seq,
            .call_after_park = pp->call_after_park,
        };
        set->call_area_ok[i].valid = false;
    }
    for (unsigned int p = 0; p < set->nr_planes; p++) {
        Plane *plane = set->planes[p];
        const PlaneMigPlane *mp = &img->planes[p];

        /* a reset on the source after the setup phase dropped the region */
        if (plane->region_ram && (plane->region_base != mp->region_base ||
                                  plane->region_size != mp->region_size)) {
            plane_region_remove_ram(plane);
        }
        plane_mig_load_plane(plane, mp);
        /* each shared state runs for the index whose call it serves */
        plane_bind_states(plane);
    }
    for (unsigned int s = 0; s < set->nr_planes * set->nr_vcpus; s++) {
        set->switch_poll[s] = (PlaneSwitchPoll) { .host_cpu = -1 };
    }
    set->wait_seq = img->wait_seq;
    set->activating = img->activating;
    set->activate_index = img->activate_index;
    set->configured = img->configured;
    set->config_gpa = img->config_gpa;
    set->config_count = img->config_count;
    set->violation_stopped = img->violation_stopped;
    plane_layout_changed();
    /* ACTIVATE's deferred boot had not run on the source: it runs here */
    set->boot_queued = false;
    if (img->boot_queued) {
        plane_boot_after_seal(set);
    }
    trace_plane_migration_load(set->nr_planes, set->nr_vcpus,
                               img->boot_queued);
    ret = 0;
out:
    plane_mig_image_free(img);
    return ret;
}

static const VMStateDescription vmstate_plane_mig_pending = {
    .name = "vm-planes/index",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(current, PlaneMigPending),
        VMSTATE_UINT32(kind, PlaneMigPending),
        VMSTATE_UINT32(caller, PlaneMigPending),
        VMSTATE_UINT32(callee, PlaneMigPending),
        VMSTATE_UINT64(calling_area, PlaneMigPending),
        VMSTATE_UINT64(wait_seq, PlaneMigPending),
        VMSTATE_BOOL(call_after_park, PlaneMigPending),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_plane_mig_range = {
    .name = "vm-planes/attr-range",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(start, PlaneMemAttrRange),
        VMSTATE_UINT64(end, PlaneMemAttrRange),
        VMSTATE_UINT32(attrs, PlaneMemAttrRange),
        VMSTATE_END_OF_LIST()
    },
};

/* The counts the stream gives, before the arrays they size are read. */
static bool plane_mig_plane_counts(void *opaque, int version_id)
{
    PlaneMigPlane *mp = opaque;

    if (mp->nr_vcpus != plane_mig.nr_vcpus || mp->nr_ranges < 0 ||
        mp->nr_ranges > PLANE_MEM_ATTR_MAX_RANGES) {
        error_report("planes: the incoming stream has %u vCPU states and "
                     "%d attribute ranges in a plane (%d and at most %u "
                     "here)", mp->nr_vcpus, mp->nr_ranges,
                     plane_mig.nr_vcpus, PLANE_MEM_ATTR_MAX_RANGES);
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_plane_mig_plane = {
    .name = "vm-planes/plane",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(state, PlaneMigPlane),
        VMSTATE_UINT32(kernel_format, PlaneMigPlane),
        VMSTATE_UINT32(home, PlaneMigPlane),
        VMSTATE_BOOL(busy, PlaneMigPlane),
        VMSTATE_UINT64(region_base, PlaneMigPlane),
        VMSTATE_UINT64(region_size, PlaneMigPlane),
        VMSTATE_UINT64(entry_point, PlaneMigPlane),
        VMSTATE_UINT64(memory_violations, PlaneMigPlane),
        VMSTATE_UINT64(device_accesses_dropped, PlaneMigPlane),
        VMSTATE_BOOL(has_cmdline, PlaneMigPlane),
        VMSTATE_UINT8_ARRAY(cmdline, PlaneMigPlane,
                            PLANE_CONFIG_CMDLINE_LEN),
        VMSTATE_UINT32(nr_vcpus, PlaneMigPlane),
        VMSTATE_INT32(nr_ranges, PlaneMigPlane),
        VMSTATE_VALIDATE("plane counts", plane_mig_plane_counts),
        VMSTATE_VBUFFER_ALLOC_UINT32(vcpu_enabled, PlaneMigPlane, 1, NULL,
                                     nr_vcpus),
        VMSTATE_STRUCT_VARRAY_ALLOC(ranges, PlaneMigPlane, nr_ranges, 1,
                                    vmstate_plane_mig_range,
                                    PlaneMemAttrRange),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * The arrays the stream fills, zeroed (a nested array of no elements
 * stays NULL), sized by this QEMU: the stream's counts must match before
 * they are read (plane_mig_same_shape()).
 */
static int plane_mig_pre_load(void *opaque)
{
    PlaneMigImage *img = opaque;
    PlaneSet *set = plane_set_get();

    plane_mig_image_free(img);
    img->pending = g_new0(PlaneMigPending, set->nr_vcpus);
    img->planes = g_new0(PlaneMigPlane, set->nr_planes);
    img->planes_allocated = set->nr_planes;
    return 0;
}

static const VMStateDescription vmstate_vm_planes = {
    .name = "vm-planes",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = plane_mig_pre_save,
    .post_save = plane_mig_post_save,
    .pre_load = plane_mig_pre_load,
    .post_load = plane_mig_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_INT32(nr_planes, PlaneMigImage),
        VMSTATE_INT32(nr_vcpus, PlaneMigImage),
        VMSTATE_VALIDATE("planes configuration", plane_mig_same_shape),
        VMSTATE_STRUCT_VARRAY_POINTER_INT32(pending, PlaneMigImage,
                                            nr_vcpus,
                                            vmstate_plane_mig_pending,
                                            PlaneMigPending),
        VMSTATE_STRUCT_VARRAY_POINTER_INT32(planes, PlaneMigImage, nr_planes,
                                            vmstate_plane_mig_plane,
                                            PlaneMigPlane),
        VMSTATE_UINT64(wait_seq, PlaneMigImage),
        VMSTATE_BOOL(activating, PlaneMigImage),
        VMSTATE_BOOL(boot_queued, PlaneMigImage),
        VMSTATE_UINT32(activate_index, PlaneMigImage),
        VMSTATE_BOOL(configured, PlaneMigImage),
        VMSTATE_UINT64(config_gpa, PlaneMigImage),
        VMSTATE_UINT32(config_count, PlaneMigImage),
        VMSTATE_BOOL(violation_stopped, PlaneMigImage),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * In the setup phase, before any RAM: the shape again, so that a
 * destination with other planes fails at once, while the source is still
 * sending, and the source sees the failure and runs on (without a return
 * path it would otherwise count the migration completed once all is
 * sent); and the regions with fresh RAM, whose RAM blocks the destination
 * must have before RAM's own setup names them.  And which devices belong
 * to which plane: the destination's command line decides that, and a
 * device given to another plane there would load its state through the
 * wrong plane's view (a virtio queue read as all ones), so a difference
 * is one clear error before any device state arrives.
 */
struct PlaneMigSetup {
    int32_t nr_planes;
    int32_t nr_vcpus;
    PlaneMigRegion regions[PLANES_MAX];
    uint32_t devices_len;
    char *devices;              /* plane_mig_devices(), NUL included */
};

/* "plane 1: /path /path; plane 2: none": each plane >= 1's devices */
static char *plane_mig_devices(PlaneSet *set)
{
    GString *s = g_string_new("");

    for (unsigned int p = 1; p < set->nr_planes; p++) {
        g_autoptr(strList) paths = plane_device_paths(p);
        strList *e;

        g_string_append_printf(s, "%splane %u:", p > 1 ? "; " : "", p);
        for (e = paths; e; e = e->next) {
            g_string_append_printf(s, " %s", e->value);
        }
        if (!paths) {
            g_string_append(s, " none");
        }
    }
    return g_string_free(s, false);
}

static const PlaneMigRegion *plane_mig_setup_regions(void)
{
    return plane_mig_setup.regions;
}

static int plane_mig_setup_pre_save(void *opaque)
{
    PlaneMigSetup *setup = opaque;
    PlaneSet *set = plane_set_get();

    memset(setup, 0, sizeof(*setup));
    setup->nr_planes = set->nr_planes;
    setup->nr_vcpus = set->nr_vcpus;
    for (unsigned int p = 1; p < set->nr_planes; p++) {
        Plane *plane = set->planes[p];

        setup->regions[p] = (PlaneMigRegion) {
            .fresh = plane->region_ram,
            .base = plane->region_base,
            .size = plane->region_size,
        };
    }
    setup->devices = plane_mig_devices(set);
    setup->devices_len = strlen(setup->devices) + 1;
    return 0;
}

/* The device list lives only while the section is saved or checked. */
static void plane_mig_setup_free_devices(PlaneMigSetup *setup)
{
    g_clear_pointer(&setup->devices, g_free);
    setup->devices_len = 0;
}

static int plane_mig_setup_post_save(void *opaque)
{
    plane_mig_setup_free_devices(opaque);
    return 0;
}

/* Also drops a list left by a load that failed right after allocating it. */
static int plane_mig_setup_pre_load(void *opaque)
{
    plane_mig_setup_free_devices(opaque);
    return 0;
}

/* Bounds the allocation the device list's length asks for. */
#define PLANE_MIG_DEVICES_MAX (64 * KiB)

static bool plane_mig_setup_devices_len(void *opaque, int version_id)
{
    PlaneMigSetup *setup = opaque;

    if (!setup->devices_len || setup->devices_len > PLANE_MIG_DEVICES_MAX) {
        error_report("planes: the incoming list of the planes' devices is "
                     "%" PRIu32 " bytes (1 to %u)", setup->devices_len,
                     (unsigned int)PLANE_MIG_DEVICES_MAX);
        return false;
    }
    return true;
}

static bool plane_mig_setup_same_devices(void *opaque, int version_id)
{
    PlaneMigSetup *setup = opaque;
    g_autofree char *here = plane_mig_devices(plane_set_get());
    bool same = !setup->devices[setup->devices_len - 1] &&
                !strcmp(setup->devices, here);

    if (!same) {
        error_report("planes: the devices of the planes differ: the source "
                     "has %.*s, this VM %s; give each device the same plane "
                     "property on both sides",
                     (int)setup->devices_len - 1, setup->devices, here);
    }
    plane_mig_setup_free_devices(setup);
    return same;
}

static bool plane_mig_setup_same_shape(void *opaque, int version_id)
{
    PlaneMigSetup *setup = opaque;

    plane_mig.nr_planes = setup->nr_planes;
    plane_mig.nr_vcpus = setup->nr_vcpus;
    return plane_mig_same_shape(&plane_mig, version_id);
}

/* Plane @p's fresh RAM as the source has it, before RAM arrives. */
static bool plane_mig_setup_region(PlaneSet *set, unsigned int p,
                                   const PlaneMigRegion *r)
{
    Plane *plane = set->planes[p];
    uint64_t room = set->ram_limit - set->ram_added;

    if (plane->region_ram && plane->region_base == r->base &&
        plane->region_size == r->size) {
        return true;
    }
    plane_region_remove_ram(plane);
    if (!r->size || r->base + r->size < r->base ||
        plane_region_placement(set, r->base, r->size) !=
            PLANE_REGION_OUTSIDE_RAM) {
        error_report("planes: plane %u's incoming region 0x%" PRIx64 "+0x%"
                     PRIx64 " is no place for fresh RAM here", p, r->base,
                     r->size);
        return false;
    }
    if (r->size > room) {
        error_report("planes: plane %u's incoming region 0x%" PRIx64 "+0x%"
                     PRIx64 " needs more fresh RAM than -machine "
                     "plane-ram-limit leaves (0x%" PRIx64 " bytes)", p,
                     r->base, r->size, room);
        return false;
    }
    plane->region_base = r->base;
    plane->region_size = r->size;
    if (!plane_region_add_ram(plane)) {
        plane->region_base = plane->region_size = 0;
        return false;
    }
    plane_region_ram_incoming(plane);
    return true;
}

static int plane_mig_setup_post_load(void *opaque, int version_id)
{
    PlaneMigSetup *setup = opaque;
    PlaneSet *set = plane_set_get();
    g_autofree bool *present = g_new(bool, set->nr_vcpus);
    g_autofree char *why = NULL;
    PlaneMigDest d;

    plane_mig_dest(set, &d, present);
    if (!plane_mig_check_setup(&d, &why)) {
        error_report("planes: the incoming migration stream is refused: %s",
                     why);
        return -EINVAL;
    }
    for (unsigned int p = 1; p < set->nr_planes; p++) {
        if (setup->regions[p].fresh) {
            if (!plane_mig_setup_region(set, p, &setup->regions[p])) {
                return -EINVAL;
            }
        } else {
            plane_region_remove_ram(set->planes[p]);
        }
    }
    return 0;
}

static const VMStateDescription vmstate_plane_mig_region = {
    .name = "vm-planes/region",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(fresh, PlaneMigRegion),
        VMSTATE_UINT64(base, PlaneMigRegion),
        VMSTATE_UINT64(size, PlaneMigRegion),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_vm_planes_setup = {
    .name = "vm-planes/setup",
    .version_id = 2,
    .minimum_version_id = 2,
    .early_setup = true,
    /* any priority above RAM's default puts it before RAM's setup */
    .priority = MIG_PRI_IOMMU,
    .pre_save = plane_mig_setup_pre_save,
    .post_save = plane_mig_setup_post_save,
    .pre_load = plane_mig_setup_pre_load,
    .post_load = plane_mig_setup_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_INT32(nr_planes, PlaneMigSetup),
        VMSTATE_INT32(nr_vcpus, PlaneMigSetup),
        VMSTATE_VALIDATE("planes configuration", plane_mig_setup_same_shape),
        VMSTATE_STRUCT_ARRAY(regions, PlaneMigSetup, PLANES_MAX, 1,
                             vmstate_plane_mig_region, PlaneMigRegion),
        VMSTATE_UINT32(devices_len, PlaneMigSetup),
        VMSTATE_VALIDATE("length of the devices' list",
                         plane_mig_setup_devices_len),
        VMSTATE_VBUFFER_ALLOC_UINT32(devices, PlaneMigSetup, 0, NULL,
                                     devices_len),
        VMSTATE_VALIDATE("devices of the planes",
                         plane_mig_setup_same_devices),
        VMSTATE_END_OF_LIST()
    },
};

void plane_migration_init(PlaneSet *set)
{
    assert(set->nr_planes > 1);
    vmstate_register(NULL, 0, &vmstate_vm_planes_setup, &plane_mig_setup);
    vmstate_register(NULL, 0, &vmstate_vm_planes, &plane_mig);
}
