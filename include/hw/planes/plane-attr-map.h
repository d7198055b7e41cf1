/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the per-plane memory attribute map as plain data, with no
 * QEMU state behind it (no memory API, CPUs, BQL or RCU), so that the
 * code that decides a plane's view is the same in QEMU and in the
 * fuzzers of tests/planes/fuzz.  plane-memory.c publishes the maps.
 */

#ifndef HW_PLANES_PLANE_ATTR_MAP_H
#define HW_PLANES_PLANE_ATTR_MAP_H

/*
 * A guest can split its attribute map into as many ranges as it likes;
 * QEMU caps them so that it cannot make the VMM allocate without bound.
 */
#define PLANE_MEM_ATTR_MAX_RANGES (64 * 1024)

/* The accesses denied (PLANE_MEM_ATTR_*) in [start, end). */
typedef struct PlaneMemAttrRange {
    uint64_t start;
    uint64_t end;               /* exclusive */
    uint32_t attrs;
} PlaneMemAttrRange;

/*
 * A map is an array of @nr ranges, sorted and non-overlapping, no range
 * empty or with attrs 0, and no two neighbours (one's end the next one's
 * start) with equal attrs: the only form plane_attr_map_set() produces.
 */

/**
 * plane_attr_map_set: the map @old with [@start, @start + @size) set to
 * @attrs (0 clears it) into the empty GArray of PlaneMemAttrRange @out.
 *
 * @size > 0 and @start + @size does not wrap.  Returns 0, or
 * -PLANES_KVM_E2BIG when the new map would have more than @max_ranges
 * ranges (then @out is to be dropped: nothing is to change).
 */
int plane_attr_map_set(const PlaneMemAttrRange *old, size_t nr,
                       uint64_t start, uint64_t size, uint32_t attrs,
                       size_t max_ranges, GArray *out);

/* The attributes at @gpa: 0 where no range holds it. */
uint32_t plane_attr_map_lookup(const PlaneMemAttrRange *map, size_t nr,
                               uint64_t gpa);

/*
 * Whether setting the denied accesses on [@start, @start + @size) to
 * @deny denies at least what the map denies there now.
 */
bool plane_attr_map_only_restrict(const PlaneMemAttrRange *map, size_t nr,
                                  uint64_t start, uint64_t size,
                                  uint32_t deny);

#endif
