/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: where plane regions may go, the fresh RAM of regions outside
 * guest RAM, and the per-plane memory attributes that backends enforce.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "exec/address-spaces.h"
#include "exec/memory.h"
#include "hw/boards.h"
#include "hw/pci-host/q35.h"
#include "system/runstate.h"
#include "qapi/qapi-events-planes.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/plane-ram.h"
#include "hw/planes/planes-abi.h"
#include "trace.h"

/* Sorted, non-overlapping, never modified once published. */
struct PlaneMemAttrMap {
    struct rcu_head rcu;
    size_t nr;
    PlaneMemAttrRange ranges[];
};

QEMU_BUILD_BUG_ON(PLANES_MAX > PLANE_LAYOUT_MAX_PLANES);

static bool memory_region_is_guest_ram(const MemoryRegion *mr)
{
    for (; mr; mr = mr->container) {
        if (mr == current_machine->ram) {
            return true;
        }
    }
    return false;
}

static bool plane_layout_scan_cb(Int128 start, Int128 len,
                                 const MemoryRegion *mr,
                                 hwaddr offset_in_region, void *opaque)
{
    GArray *out = opaque;
    Int128 e = int128_add(start, len);
    PlaneLayoutRange r = {
        .start = int128_get64(start),
        /* No range the rules accept reaches the last byte (see there) */
        .end = int128_gethi(e) ? UINT64_MAX : int128_getlo(e),
        .kind = memory_region_is_guest_ram(mr) ? PLANE_LAYOUT_GUEST_RAM :
                memory_region_is_plane_ram(mr) ? PLANE_LAYOUT_PLANE_RAM :
                PLANE_LAYOUT_OTHER,
    };
    PlaneLayoutRange *last = out->len ?
        &g_array_index(out, PlaneLayoutRange, out->len - 1) : NULL;

    if (r.start >= r.end) {
        return false;
    }
    if (last && last->end == r.start && last->kind == r.kind) {
        last->end = r.end;          /* no rule tells neighbours apart */
        return false;
    }
    g_array_append_val(out, r);
    return false;
}

/* The guest-physical layout as the rules see it, from the FlatView. */
static void plane_layout_scan(GArray *out)
{
    RCU_READ_LOCK_GUARD();
    flatview_for_each_range(address_space_to_flatview(&address_space_memory),
                            plane_layout_scan_cb, out);
}

/*
 * The layout's ranges, scanned again only after the guest memory map
 * changed (under the BQL, as the memory map changes).
 */
static GArray *plane_layout_cache;
static bool plane_layout_stale = true;

static GArray *plane_layout_ranges(void)
{
    assert(bql_locked());
    if (!plane_layout_cache) {
        plane_layout_cache = g_array_new(false, false,
                                         sizeof(PlaneLayoutRange));
    }
    if (plane_layout_stale) {
        g_array_set_size(plane_layout_cache, 0);
        plane_layout_scan(plane_layout_cache);
        plane_layout_stale = false;
    }
    return plane_layout_cache;
}

static void plane_layout_regions(PlaneSet *set, PlaneLayout *l)
{
    l->nr_planes = set->nr_planes;
    for (unsigned int p = 1; p < set->nr_planes; p++) {
        Plane *plane = set->planes[p];

        l->regions[p] = (PlaneLayoutRegion) {
            .base = plane->region_base,
            .size = plane->region_size,
            .kernel_format = plane->kernel_format,
            .fresh = plane->region_ram != NULL,
        };
    }
}

/*
 * q35's MCH turns the top of low RAM into TSEG (reads all ones, writes
 * lost outside SMM) whenever plane 0 sets ESMRAMC while SMRAM is not
 * locked, at a size it picks: at most extended-tseg-mbytes or 8 MiB.  A
 * region there would lose its RAM to plane 0, for the plane's vCPUs and
 * devices alike, so the rules keep regions out of that window.
 */
static void plane_layout_chipset_ram(PlaneLayout *l)
{
    Object *obj = object_resolve_path_type("", TYPE_MCH_PCI_DEVICE, NULL);
    MCHPCIState *mch = obj ? MCH_PCI_DEVICE(obj) : NULL;
    uint64_t tseg_max;

    if (!mch) {
        return;
    }
    tseg_max = MAX(8 * MiB, mch->ext_tseg_mbytes * MiB);
    l->chipset_ram_end = mch->below_4g_mem_size;
    l->chipset_ram_start = l->chipset_ram_end > tseg_max ?
                           l->chipset_ram_end - tseg_max : 0;
}

void plane_layout_describe(PlaneSet *set, CPUState *cpu, PlaneLayout *l)
{
    GArray *ranges = plane_layout_ranges();

    *l = (PlaneLayout) {
        .ranges = (const PlaneLayoutRange *)ranges->data,
        .nr_ranges = ranges->len,
        .phys_limit = cpu ? set->accel->phys_addr_limit(cpu) : 0,
        .outside_ram_min = set->accel->outside_ram_min,
    };
    plane_layout_chipset_ram(l);
    plane_layout_regions(set, l);
}

bool plane_range_in_ram(hwaddr gpa, uint64_t size)
{
    g_autoptr(GArray) own = NULL;
    GArray *ranges;

    if (bql_locked()) {
        ranges = plane_layout_ranges();
    } else {
        own = g_array_new(false, false, sizeof(PlaneLayoutRange));
        plane_layout_scan(own);
        ranges = own;
    }
    return plane_layout_in_ram(&(PlaneLayout) {
                                   .ranges = (const PlaneLayoutRange *)
                                             ranges->data,
                                   .nr_ranges = ranges->len,
                               }, gpa, size);
}

/* 64 bits: a layout check cached at one value never meets it again */
static uint64_t plane_layout_generation;

uint64_t plane_layout_gen(void)
{
    return plane_layout_generation;
}

void plane_layout_changed(void)
{
    assert(bql_locked());
    plane_layout_generation++;
    plane_layout_stale = true;
}

static void plane_layout_commit(MemoryListener *listener)
{
    plane_layout_changed();
}

static MemoryListener plane_layout_listener = {
    .name = "planes-layout",
    .commit = plane_layout_commit,
};

void plane_layout_init(void)
{
    memory_listener_register(&plane_layout_listener, &address_space_memory);
}

PlaneRegionPlacement plane_region_placement(PlaneSet *set, hwaddr base,
                                            uint64_t size)
{
    PlaneLayout l;

    plane_layout_describe(set, NULL, &l);
    return plane_layout_placement(&l, base, size);
}

unsigned int plane_region_overlapping(PlaneSet *set, hwaddr gpa,
                                      uint64_t size)
{
    PlaneLayout l = { 0 };

    plane_layout_regions(set, &l);
    return plane_layout_region_overlapping(&l, gpa, size);
}

static PlaneMemAttrMap *plane_mem_attr_map_new(GArray *ranges)
{
    PlaneMemAttrMap *map;

    if (!ranges->len) {
        return NULL;
    }
    map = g_malloc(sizeof(*map) + ranges->len * sizeof(PlaneMemAttrRange));
    map->nr = ranges->len;
    memcpy(map->ranges, ranges->data, ranges->len * sizeof(PlaneMemAttrRange));
    return map;
}

int plane_mem_attrs_set(PlaneSet *set, CPUState *caller, unsigned int target,
                        hwaddr start, uint64_t size, uint32_t attrs,
                        PlaneMemAttrsIntent intent)
{
    Plane *plane = set->planes[target];
    PlaneMemAttrMap *old = plane->mem_attrs;
    g_autoptr(GArray) out = g_array_new(false, false,
                                        sizeof(PlaneMemAttrRange));
    int err;

    assert(bql_locked());
    if (plane_attr_map_set(old ? old->ranges : NULL, old ? old->nr : 0,
                           start, size, attrs, PLANE_MEM_ATTR_MAX_RANGES,
                           out)) {
        return -PLANES_KVM_E2BIG;
    }
    /* The host first: if it refuses, nothing has changed. */
    if (set->accel->apply_mem_attrs) {
        err = set->accel->apply_mem_attrs(target, start, size, attrs,
                                          intent);
        if (err) {
            trace_plane_mem_attrs_host_refused(target, start, size, attrs,
                                               err);
            return err;
        }
    }

    qatomic_rcu_set(&plane->mem_attrs, plane_mem_attr_map_new(out));
    if (old) {
        g_free_rcu(old, rcu);
    }
    trace_plane_mem_attrs_set(target, start, size, attrs, out->len);
    if (set->accel->mem_attrs_changed) {
        set->accel->mem_attrs_changed(caller, target, start, size);
    }
    return 0;
}

const PlaneMemAttrRange *plane_mem_attrs_ranges(unsigned int target,
                                                size_t *nr)
{
    PlaneMemAttrMap *map = plane_set_get()->planes[target]->mem_attrs;

    assert(bql_locked());
    *nr = map ? map->nr : 0;
    return map ? map->ranges : NULL;
}

void plane_mem_attrs_restore(Plane *plane, const PlaneMemAttrRange *ranges,
                             size_t nr)
{
    PlaneMemAttrMap *old = plane->mem_attrs, *map = NULL;

    assert(bql_locked() && !plane->set->accel->apply_mem_attrs);
    if (nr) {
        map = g_malloc(sizeof(*map) + nr * sizeof(PlaneMemAttrRange));
        map->nr = nr;
        memcpy(map->ranges, ranges, nr * sizeof(PlaneMemAttrRange));
    }
    qatomic_rcu_set(&plane->mem_attrs, map);
    if (old) {
        g_free_rcu(old, rcu);
    }
}

void plane_mem_attrs_clear(Plane *plane)
{
    const PlaneAccelClass *accel = plane->set->accel;
    PlaneMemAttrMap *old = plane->mem_attrs;

    if (!old) {
        return;
    }
    for (size_t i = 0; accel->apply_mem_attrs && i < old->nr; i++) {
        const PlaneMemAttrRange *r = &old->ranges[i];
        int err = accel->apply_mem_attrs(plane->id, r->start,
                                         r->end - r->start, 0,
                                         PLANE_MEM_ATTRS_SEAL);

        if (err) {
            /* The next boot's CONFIG and seal set them again. */
            warn_report("planes: clearing the memory attributes of "
                        "plane %u at 0x%" HWADDR_PRIx "+0x%" HWADDR_PRIx
                        " failed (%d)", plane->id, r->start,
                        r->end - r->start, err);
        }
    }
    qatomic_rcu_set(&plane->mem_attrs, NULL);
    g_free_rcu(old, rcu);
}

uint32_t plane_mem_attrs_lookup(unsigned int plane_id, hwaddr gpa)
{
    PlaneSet *set = plane_set_get();
    PlaneMemAttrMap *map;

    if (!set || plane_id >= set->nr_planes) {
        return 0;
    }
    map = qatomic_rcu_read(&set->planes[plane_id]->mem_attrs);
    return map ? plane_attr_map_lookup(map->ranges, map->nr, gpa) : 0;
}

void plane_mem_attrs_usage(Plane *plane, uint64_t *ranges, uint64_t *bytes)
{
    PlaneMemAttrMap *map = plane->mem_attrs;

    *ranges = map ? map->nr : 0;
    *bytes = map ? sizeof(*map) + map->nr * sizeof(PlaneMemAttrRange) : 0;
}

bool plane_memory_violation(CPUState *cpu, hwaddr gpa,
                            PlaneMemoryAccess access)
{
    PlaneSet *set = plane_set_get();
    Plane *plane = set->planes[cpu->plane_id];
    unsigned int index;

    qatomic_inc(&plane->memory_violations);
    BQL_LOCK_GUARD();
    /* The index plane 0 sees the plane run on (its call's) */
    index = plane_served_index(set, cpu);
    trace_plane_memory_violation(plane->id, index, gpa,
                                 PlaneMemoryAccess_str(access));
    qapi_event_send_plane_memory_violation(plane->id, index, gpa, access);
    if (set->violation_policy == PLANE_VIOLATION_POLICY_FAULT) {
        return true;
    }
    /*
     * A Linux plane 0 would retry an access its own page tables allow
     * forever: stop the VM, as the planes kernel does, once until reset.
     */
    if (!set->violation_stopped) {
        set->violation_stopped = true;
        error_report("planes: plane %u vCPU %u: %s of guest-physical 0x%"
                     HWADDR_PRIx " refused by its memory view; VM stopped "
                     "(plane-violation=stop)", plane->id, index,
                     PlaneMemoryAccess_str(access), gpa);
        qemu_system_vmstop_request_prepare();
        qemu_system_vmstop_request(RUN_STATE_INTERNAL_ERROR);
    }
    return false;
}
