/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: what a guest's hypercall arguments may name, decided over
 * an explicit layout: see include/hw/planes/plane-rules.h.  Each check
 * here is the one the hypercall makes, in the order it makes them.
 */

#include "qemu/osdep.h"
#include "qemu/range.h"
#include "hw/planes/plane-rules.h"

static int G_GNUC_PRINTF(3, 4)
plane_rule_refuse(char **why, int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return err;
}

static bool page_aligned(uint64_t v)
{
    return !(v & (PLANE_PAGE_SIZE - 1));
}

/* The first range that ends after @gpa (l->nr_ranges if none). */
static size_t plane_layout_find(const PlaneLayout *l, uint64_t gpa)
{
    size_t lo = 0, hi = l->nr_ranges;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (l->ranges[mid].end <= gpa) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

bool plane_layout_in_ram(const PlaneLayout *l, uint64_t gpa, uint64_t size)
{
    uint64_t end = gpa + size;

    if (!size || end < gpa) {
        return false;
    }
    for (size_t i = plane_layout_find(l, gpa); gpa < end; i++) {
        /* A plane's fresh RAM is RAM too, if not plane 0's */
        if (i == l->nr_ranges || l->ranges[i].start > gpa ||
            l->ranges[i].kind == PLANE_LAYOUT_OTHER) {
            return false;
        }
        gpa = l->ranges[i].end;
    }
    return true;
}

PlaneRegionPlacement plane_layout_placement(const PlaneLayout *l,
                                            uint64_t base, uint64_t size)
{
    uint64_t end = base + size, ram_bytes = 0;

    for (size_t i = plane_layout_find(l, base);
         i < l->nr_ranges && l->ranges[i].start < end; i++) {
        const PlaneLayoutRange *r = &l->ranges[i];

        if (r->kind != PLANE_LAYOUT_GUEST_RAM) {
            return PLANE_REGION_INVALID;    /* MMIO, ROM, or other RAM */
        }
        ram_bytes += MIN(r->end, end) - MAX(r->start, base);
    }
    if (ram_bytes == size) {
        return PLANE_REGION_INSIDE_RAM;
    }
    if (ram_bytes == 0 && base >= l->outside_ram_min) {
        return PLANE_REGION_OUTSIDE_RAM;
    }
    return PLANE_REGION_INVALID;
}

unsigned int plane_layout_region_overlapping(const PlaneLayout *l,
                                             uint64_t gpa, uint64_t size)
{
    for (unsigned int p = 1; p < l->nr_planes; p++) {
        const PlaneLayoutRegion *r = &l->regions[p];

        if (r->size && ranges_overlap(gpa, size, r->base, r->size)) {
            return p;
        }
    }
    return 0;
}

int plane_rule_config_array(const PlaneLayout *l, uint64_t gpa,
                            uint64_t count, char **why)
{
    if (count < 2) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "count %" PRIu64
                                 " (at least 2: plane 0 and one more)",
                                 count);
    }
    if (count > l->nr_planes) {
        return plane_rule_refuse(why, PLANES_KVM_E2BIG, "count %" PRIu64
                                 " but the machine has %u planes", count,
                                 l->nr_planes);
    }
    /* The VMM reads the array for plane 0: never from a plane's region */
    if (plane_layout_region_overlapping(l, gpa, count * PLANE_CONFIG_SIZE)) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "config array at 0x%"
                                 PRIx64 " lies in a plane's region", gpa);
    }
    if (!plane_layout_in_ram(l, gpa, count * PLANE_CONFIG_SIZE)) {
        return plane_rule_refuse(why, PLANES_KVM_EFAULT, "config array at 0x%"
                                 PRIx64 " (%" PRIu64 " bytes) is not in "
                                 "guest RAM", gpa, count * PLANE_CONFIG_SIZE);
    }
    return 0;
}

static bool plane_cmdline_terminated(const PlaneConfigEntry *e)
{
    return memchr(e->cmdline, 0, PLANE_CONFIG_CMDLINE_LEN) != NULL;
}

/* Checks the region of entry @i; adds its fresh-RAM bytes to *@fresh. */
static int plane_rule_config_region(const PlaneLayout *l, uint64_t gpa,
                                    unsigned int count,
                                    const PlaneConfigEntry *entries,
                                    unsigned int i, uint64_t *fresh,
                                    char **why)
{
    const PlaneConfigEntry *e = &entries[i];
    uint64_t base = e->load_offset, size = e->memory_size;
    uint64_t limit = l->phys_limit;

    if (!size || !page_aligned(base) || !page_aligned(size)) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u region 0x%"
                                 PRIx64 "+0x%" PRIx64 " is empty or not page "
                                 "aligned", i, base, size);
    }
    if (size <= PLANE_BOOT_PAGETABLES) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u region "
                                 "size 0x%" PRIx64 " leaves no room beside "
                                 "its boot state (0x%x bytes)", i, size,
                                 PLANE_BOOT_PAGETABLES);
    }
    if (base < PLANE_REGION_MIN_BASE) {
        /* The VBS series' default image config asks for 0x0+0x60000000 */
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u region 0x%"
                                 PRIx64 "+0x%" PRIx64 " starts below 1 MiB "
                                 "(0x%x), in plane 0's own low memory (real-"
                                 "mode vectors, firmware data, AP trampoline)"
                                 ", which cannot be sealed; reserve a region "
                                 "above 1 MiB for it", i, base, size,
                                 PLANE_REGION_MIN_BASE);
    }
    if (base + size < base || base + size > limit) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u region 0x%"
                                 PRIx64 "+0x%" PRIx64 " is outside [0x%x, 0x%"
                                 PRIx64 ")", i, base, size,
                                 PLANE_REGION_MIN_BASE, limit);
    }
    if (ranges_overlap(base, size, gpa, count * PLANE_CONFIG_SIZE)) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u region "
                                 "overlaps the config array", i);
    }
    for (unsigned int j = 1; j < i; j++) {
        if (ranges_overlap(base, size, entries[j].load_offset,
                           entries[j].memory_size)) {
            return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u "
                                     "region overlaps plane %u's", i, j);
        }
    }
    if (!plane_cmdline_terminated(e)) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u cmdline "
                                 "has no NUL in its %d bytes", i,
                                 PLANE_CONFIG_CMDLINE_LEN);
    }
    if (e->kernel_format > PLANE_KERNEL_ELF) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u kernel "
                                 "format %u (RAW 0, BZIMAGE 1, ELF 2)", i,
                                 e->kernel_format);
    }
    if (l->chipset_ram_end > l->chipset_ram_start &&
        ranges_overlap(base, size, l->chipset_ram_start,
                       l->chipset_ram_end - l->chipset_ram_start)) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u region 0x%"
                                 PRIx64 "+0x%" PRIx64 " overlaps [0x%" PRIx64
                                 ", 0x%" PRIx64 "), RAM that plane 0's "
                                 "chipset can take away (TSEG)", i, base,
                                 size, l->chipset_ram_start,
                                 l->chipset_ram_end);
    }
    switch (plane_layout_placement(l, base, size)) {
    case PLANE_REGION_INSIDE_RAM:
        return 0;
    case PLANE_REGION_OUTSIDE_RAM:
        *fresh += size;
        return 0;
    default:
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u region 0x%"
                                 PRIx64 "+0x%" PRIx64 " overlaps MMIO, "
                                 "firmware or only part of guest RAM", i,
                                 base, size);
    }
}

int plane_rule_config_regions(const PlaneLayout *l, uint64_t gpa,
                              unsigned int count,
                              const PlaneConfigEntry *entries,
                              uint64_t ram_left, char **why)
{
    uint64_t fresh = 0;
    int err;

    for (unsigned int i = 1; i < count; i++) {
        err = plane_rule_config_region(l, gpa, count, entries, i, &fresh,
                                       why);
        if (err) {
            return err;
        }
    }
    if (fresh > ram_left) {
        return plane_rule_refuse(why, PLANES_KVM_E2BIG, "regions outside "
                                 "guest RAM need 0x%" PRIx64 " bytes, "
                                 "plane-ram-limit leaves 0x%" PRIx64, fresh,
                                 ram_left);
    }
    return 0;
}

int plane_rule_config_again(const PlaneLayout *l, unsigned int config_count,
                            unsigned int count,
                            const PlaneConfigEntry *entries, char **why)
{
    if (count != config_count) {
        return plane_rule_refuse(why, PLANES_KVM_EPERM, "planes are already "
                                 "configured with %u planes, not %u",
                                 config_count, count);
    }
    for (unsigned int i = 1; i < count; i++) {
        const PlaneLayoutRegion *r = &l->regions[i];

        if (entries[i].load_offset != r->base ||
            entries[i].memory_size != r->size ||
            entries[i].kernel_format != r->kernel_format) {
            return plane_rule_refuse(why, PLANES_KVM_EPERM, "planes are "
                                     "already configured and plane %u's "
                                     "entry differs", i);
        }
    }
    return 0;
}

int plane_rule_activate_entry(const PlaneLayout *l, unsigned int i,
                              const PlaneConfigEntry *e, char **why)
{
    const PlaneLayoutRegion *r = &l->regions[i];
    uint64_t top = r->base + r->size;

    if (e->load_offset != r->base || e->memory_size != r->size) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u region "
                                 "changed since CONFIG", i);
    }
    if (!e->entry_point || e->entry_point < r->base ||
        e->entry_point >= top - PLANE_BOOT_PAGETABLES) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u entry "
                                 "point 0x%" PRIx64 " is outside its "
                                 "region [0x%" PRIx64 ", 0x%" PRIx64 ")",
                                 i, e->entry_point, r->base,
                                 top - PLANE_BOOT_PAGETABLES);
    }
    if (e->kernel_format != r->kernel_format) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u kernel "
                                 "format %u is not CONFIG's %u", i,
                                 e->kernel_format, r->kernel_format);
    }
    if (!plane_cmdline_terminated(e)) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u cmdline "
                                 "has no NUL in its %d bytes", i,
                                 PLANE_CONFIG_CMDLINE_LEN);
    }
    /*
     * A region CONFIG accepted must still be where it was: a carved one
     * wholly guest RAM (memory can be unplugged), a fresh one ours.
     */
    if (!r->fresh && !plane_layout_in_ram(l, r->base, r->size)) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "plane %u region "
                                 "0x%" PRIx64 "+0x%" PRIx64 " is no longer "
                                 "guest RAM", i, r->base, r->size);
    }
    return 0;
}

int plane_rule_call_area(const PlaneLayout *l, uint64_t gpa, char **why)
{
    unsigned int p;

    /* Stricter reading of the contract: an unaligned page is no page. */
    if (gpa & (PLANE_CALL_AREA_SIZE - 1)) {
        return plane_rule_refuse(why, PLANES_KVM_EFAULT, "calling area 0x%"
                                 PRIx64 " is not page aligned", gpa);
    }
    p = plane_layout_region_overlapping(l, gpa, PLANE_CALL_AREA_SIZE);
    if (p) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "calling area 0x%"
                                 PRIx64 " lies in plane %u's region", gpa, p);
    }
    if (!plane_layout_in_ram(l, gpa, PLANE_CALL_AREA_SIZE)) {
        return plane_rule_refuse(why, PLANES_KVM_EFAULT, "calling area 0x%"
                                 PRIx64 " is not in guest RAM", gpa);
    }
    return 0;
}

int plane_rule_mem_attrs_args(const PlaneLayout *l, uint64_t gpa,
                              uint64_t size, uint64_t allow, uint32_t *deny,
                              char **why)
{
    if (allow & ~(uint64_t)PLANE_ALLOW_ALL) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "allow mask 0x%"
                                 PRIx64 " (bits: R 1, W 2, X 4)", allow);
    }
    if (!size || !page_aligned(gpa) || !page_aligned(size) ||
        gpa + size < gpa) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "range 0x%" PRIx64
                                 "+0x%" PRIx64 " is empty, wraps or is not "
                                 "page aligned", gpa, size);
    }
    if (!plane_layout_in_ram(l, gpa, size)) {
        return plane_rule_refuse(why, PLANES_KVM_EFAULT, "range 0x%" PRIx64
                                 "+0x%" PRIx64 " is not in guest RAM", gpa,
                                 size);
    }
    *deny = 0;
    *deny |= allow & PLANE_ALLOW_READ ? 0 : PLANE_MEM_ATTR_NO_READ;
    *deny |= allow & PLANE_ALLOW_WRITE ? 0 : PLANE_MEM_ATTR_NO_WRITE;
    *deny |= allow & PLANE_ALLOW_EXEC ? 0 : PLANE_MEM_ATTR_NO_EXEC;
    return 0;
}

/*
 * Not on a higher plane's region at all, and on a region of a plane
 * below the caller only to restrict further (a higher plane's region
 * stays sealed for every plane below it).  Its own region and pages
 * outside every region are its to grant and take.
 */
int plane_rule_mem_attrs_allowed(const PlaneLayout *l, unsigned int caller,
                                 const PlaneMemAttrRange *map, size_t nr,
                                 uint64_t gpa, uint64_t size, uint32_t deny,
                                 char **why)
{
    for (unsigned int p = 1; p < l->nr_planes; p++) {
        const PlaneLayoutRegion *r = &l->regions[p];
        uint64_t lo, hi;

        if (p == caller || !r->size ||
            !ranges_overlap(gpa, size, r->base, r->size)) {
            continue;
        }
        if (p > caller) {
            return plane_rule_refuse(why, PLANES_KVM_EPERM, "range 0x%"
                                     PRIx64 "+0x%" PRIx64 " touches plane "
                                     "%u's region, which plane %u does not "
                                     "govern", gpa, size, p, caller);
        }
        lo = MAX(gpa, r->base);
        hi = MIN(gpa + size, r->base + r->size);
        if (!plane_attr_map_only_restrict(map, nr, lo, hi - lo, deny)) {
            return plane_rule_refuse(why, PLANES_KVM_EPERM, "range 0x%"
                                     PRIx64 "+0x%" PRIx64 " would lift "
                                     "restrictions on plane %u's region",
                                     gpa, size, p);
        }
    }
    return 0;
}

int plane_rule_enable_block(const PlaneLayout *l, unsigned int caller,
                            uint64_t block, char **why)
{
    const PlaneLayoutRegion *r = &l->regions[caller];

    if ((block & 7) || block + PLANE_ENABLE_BLOCK_SIZE < block ||
        block < r->base ||
        block + PLANE_ENABLE_BLOCK_SIZE > r->base + r->size) {
        return plane_rule_refuse(why, PLANES_KVM_EINVAL, "register block 0x%"
                                 PRIx64 " is not 8-byte aligned inside "
                                 "plane %u's region", block, caller);
    }
    return 0;
}
