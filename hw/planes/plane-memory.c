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
#include "qemu/range.h"
#include "exec/address-spaces.h"
#include "exec/memory.h"
#include "hw/boards.h"
#include "system/runstate.h"
#include "qapi/qapi-events-planes.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/plane-ram.h"
#include "hw/planes/planes-abi.h"
#include "trace.h"

/*
 * A guest can split its attribute map into as many ranges as it likes;
 * cap them so that it cannot make the VMM allocate without bound.
 */
#define PLANE_MEM_ATTR_MAX_RANGES (64 * 1024)

typedef struct PlaneMemAttrRange {
    hwaddr start;
    hwaddr end;                 /* exclusive */
    uint32_t attrs;
} PlaneMemAttrRange;

/* Sorted, non-overlapping, never modified once published. */
struct PlaneMemAttrMap {
    struct rcu_head rcu;
    size_t nr;
    PlaneMemAttrRange ranges[];
};

typedef struct PlaneRangeScan {
    hwaddr start;
    hwaddr end;
    uint64_t ram_bytes;
    bool other;                 /* MMIO, ROM, or RAM that is not guest RAM */
} PlaneRangeScan;

static bool memory_region_is_guest_ram(const MemoryRegion *mr)
{
    for (; mr; mr = mr->container) {
        if (mr == current_machine->ram) {
            return true;
        }
    }
    return false;
}

static bool plane_range_scan_cb(Int128 start, Int128 len,
                                const MemoryRegion *mr,
                                hwaddr offset_in_region, void *opaque)
{
    PlaneRangeScan *scan = opaque;
    hwaddr s = int128_get64(start);
    hwaddr e = int128_get64(int128_add(start, len));
    hwaddr lo = MAX(s, scan->start);
    hwaddr hi = MIN(e, scan->end);

    if (lo >= hi) {
        return false;
    }
    if (memory_region_is_guest_ram(mr)) {
        scan->ram_bytes += hi - lo;
    } else {
        scan->other = true;
    }
    return false;
}

static void plane_range_scan(PlaneRangeScan *scan, hwaddr gpa, uint64_t size)
{
    scan->start = gpa;
    scan->end = gpa + size;
    scan->ram_bytes = 0;
    scan->other = false;
    RCU_READ_LOCK_GUARD();
    flatview_for_each_range(address_space_to_flatview(&address_space_memory),
                            plane_range_scan_cb, scan);
}

/*
 * On every VTL call (its two pages): walk the range section by section
 * through the flat view's dispatch tree, not the whole flat view.
 */
bool plane_range_in_ram(hwaddr gpa, uint64_t size)
{
    FlatView *fv;

    if (!size || gpa + size < gpa) {
        return false;
    }
    RCU_READ_LOCK_GUARD();
    fv = address_space_to_flatview(&address_space_memory);
    while (size) {
        hwaddr xlat, len = size;
        MemoryRegion *mr = flatview_translate(fv, gpa, &xlat, &len, false,
                                              MEMTXATTRS_UNSPECIFIED);

        /* A plane's fresh RAM is RAM too, if not plane 0's */
        if (!len || (!memory_region_is_guest_ram(mr) &&
                     !memory_region_is_plane_ram(mr))) {
            return false;
        }
        gpa += len;
        size -= len;
    }
    return true;
}

static unsigned int plane_layout_generation;

unsigned int plane_layout_gen(void)
{
    return plane_layout_generation;
}

void plane_layout_changed(void)
{
    assert(bql_locked());
    plane_layout_generation++;
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
    PlaneRangeScan scan;

    plane_range_scan(&scan, base, size);
    if (scan.other) {
        return PLANE_REGION_INVALID;
    }
    if (scan.ram_bytes == size) {
        return PLANE_REGION_INSIDE_RAM;
    }
    if (scan.ram_bytes == 0 && base >= set->accel->outside_ram_min) {
        return PLANE_REGION_OUTSIDE_RAM;
    }
    return PLANE_REGION_INVALID;
}

unsigned int plane_region_overlapping(PlaneSet *set, hwaddr gpa,
                                      uint64_t size)
{
    for (unsigned int p = 1; p < set->nr_planes; p++) {
        Plane *plane = set->planes[p];

        if (plane->region_size &&
            ranges_overlap(gpa, size, plane->region_base,
                           plane->region_size)) {
            return p;
        }
    }
    return 0;
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

static void plane_mem_attr_append(GArray *out, hwaddr start, hwaddr end,
                                  uint32_t attrs)
{
    PlaneMemAttrRange *last;

    if (start >= end || !attrs) {
        return;
    }
    last = out->len ? &g_array_index(out, PlaneMemAttrRange, out->len - 1)
                    : NULL;
    if (last && last->end == start && last->attrs == attrs) {
        last->end = end;            /* merge neighbours with equal attrs */
        return;
    }
    g_array_append_val(out, ((PlaneMemAttrRange) { start, end, attrs }));
}

int plane_mem_attrs_set(PlaneSet *set, CPUState *caller, unsigned int target,
                        hwaddr start, uint64_t size, uint32_t attrs)
{
    Plane *plane = set->planes[target];
    PlaneMemAttrMap *old = plane->mem_attrs;
    g_autoptr(GArray) out = g_array_new(false, false,
                                        sizeof(PlaneMemAttrRange));
    hwaddr end = start + size;
    bool placed = false;
    int err;

    assert(bql_locked());
    for (size_t i = 0; old && i < old->nr; i++) {
        PlaneMemAttrRange *r = &old->ranges[i];

        if (!placed && r->end > start) {
            plane_mem_attr_append(out, r->start, MIN(r->end, start), r->attrs);
            plane_mem_attr_append(out, start, end, attrs);
            placed = true;
        } else if (r->end <= start) {
            plane_mem_attr_append(out, r->start, r->end, r->attrs);
            continue;
        }
        plane_mem_attr_append(out, MAX(r->start, end), r->end, r->attrs);
    }
    if (!placed) {
        plane_mem_attr_append(out, start, end, attrs);
    }
    if (out->len > PLANE_MEM_ATTR_MAX_RANGES) {
        return -PLANES_KVM_E2BIG;
    }
    /* The host first: if it refuses, nothing has changed. */
    if (set->accel->apply_mem_attrs) {
        err = set->accel->apply_mem_attrs(target, start, size, attrs);
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

bool plane_mem_attrs_only_restrict(unsigned int target, hwaddr start,
                                   uint64_t size, uint32_t deny)
{
    PlaneSet *set = plane_set_get();
    PlaneMemAttrMap *map = set->planes[target]->mem_attrs;
    hwaddr end = start + size;

    assert(bql_locked());
    for (size_t i = 0; map && i < map->nr; i++) {
        const PlaneMemAttrRange *r = &map->ranges[i];

        if (r->end > start && r->start < end && (r->attrs & ~deny)) {
            return false;
        }
    }
    return true;
}

void plane_mem_attrs_clear(PlaneSet *set)
{
    for (unsigned int p = 0; p < set->nr_planes; p++) {
        PlaneMemAttrMap *old = set->planes[p]->mem_attrs;

        if (!old) {
            continue;
        }
        for (size_t i = 0; set->accel->apply_mem_attrs && i < old->nr; i++) {
            const PlaneMemAttrRange *r = &old->ranges[i];
            int err = set->accel->apply_mem_attrs(p, r->start,
                                                  r->end - r->start, 0);

            if (err) {
                /* The next boot's CONFIG and seal set them again. */
                warn_report("planes: clearing the memory attributes of "
                            "plane %u at 0x%" HWADDR_PRIx "+0x%" HWADDR_PRIx
                            " failed (%d)", p, r->start, r->end - r->start,
                            err);
            }
        }
        qatomic_rcu_set(&set->planes[p]->mem_attrs, NULL);
        g_free_rcu(old, rcu);
    }
}

uint32_t plane_mem_attrs_lookup(unsigned int plane_id, hwaddr gpa)
{
    PlaneSet *set = plane_set_get();
    PlaneMemAttrMap *map;
    size_t lo = 0, hi;

    if (!set || plane_id >= set->nr_planes) {
        return 0;
    }
    map = qatomic_rcu_read(&set->planes[plane_id]->mem_attrs);
    if (!map) {
        return 0;
    }
    hi = map->nr;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        PlaneMemAttrRange *r = &map->ranges[mid];

        if (gpa < r->start) {
            hi = mid;
        } else if (gpa >= r->end) {
            lo = mid + 1;
        } else {
            return r->attrs;
        }
    }
    return 0;
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
    unsigned int index = plane_cpu_index(set, cpu);

    qatomic_inc(&plane->memory_violations);
    trace_plane_memory_violation(plane->id, index, gpa,
                                 PlaneMemoryAccess_str(access));
    BQL_LOCK_GUARD();
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
