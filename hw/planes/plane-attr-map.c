/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the per-plane memory attribute map, pure: see
 * include/hw/planes/plane-attr-map.h.
 */

#include "qemu/osdep.h"
#include "hw/planes/plane-attr-map.h"
#include "hw/planes/planes-abi.h"

static void plane_mem_attr_append(GArray *out, uint64_t start, uint64_t end,
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

int plane_attr_map_set(const PlaneMemAttrRange *old, size_t nr,
                       uint64_t start, uint64_t size, uint32_t attrs,
                       size_t max_ranges, GArray *out)
{
    uint64_t end = start + size;
    bool placed = false;

    for (size_t i = 0; i < nr; i++) {
        const PlaneMemAttrRange *r = &old[i];

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
    if (out->len > max_ranges) {
        return -PLANES_KVM_E2BIG;
    }
    return 0;
}

uint32_t plane_attr_map_lookup(const PlaneMemAttrRange *map, size_t nr,
                               uint64_t gpa)
{
    size_t lo = 0, hi = nr;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const PlaneMemAttrRange *r = &map[mid];

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

bool plane_attr_map_only_restrict(const PlaneMemAttrRange *map, size_t nr,
                                  uint64_t start, uint64_t size,
                                  uint32_t deny)
{
    uint64_t end = start + size;

    for (size_t i = 0; i < nr; i++) {
        const PlaneMemAttrRange *r = &map[i];

        if (r->end > start && r->start < end && (r->attrs & ~deny)) {
            return false;
        }
    }
    return true;
}
