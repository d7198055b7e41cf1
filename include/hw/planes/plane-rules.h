/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the one place that decides what a guest's hypercall
 * arguments may name (CONFIG's regions, ACTIVATE's entry points, VTL
 * calling areas, SET_MEM_ATTRS ranges, PLANE_ENABLE_VCPU blocks), as pure
 * functions of an explicit description of the guest-physical layout.
 * No memory API, CPUs, BQL or RCU here: plane-memory.c describes the
 * layout from the FlatView, the hypercalls ask these rules, and the
 * fuzzers of tests/planes/fuzz call the very same code.  The contract is
 * docs/specs/planes-abi.rst.
 */

#ifndef HW_PLANES_PLANE_RULES_H
#define HW_PLANES_PLANE_RULES_H

#include "hw/planes/plane-attr-map.h"
#include "hw/planes/planes-abi.h"

/* At least PLANES_MAX (plane-memory.c checks at build time). */
#define PLANE_LAYOUT_MAX_PLANES 16

/* What a guest-physical range holds. */
typedef enum PlaneLayoutKind {
    PLANE_LAYOUT_GUEST_RAM,     /* the machine's RAM, plane 0's */
    PLANE_LAYOUT_PLANE_RAM,     /* fresh RAM of a plane region */
    PLANE_LAYOUT_OTHER,         /* MMIO, ROM, firmware, any other RAM */
} PlaneLayoutKind;

typedef struct PlaneLayoutRange {
    uint64_t start;
    uint64_t end;               /* exclusive */
    PlaneLayoutKind kind;
} PlaneLayoutRange;

/* A plane's region as CONFIG accepted it; size 0 when it has none. */
typedef struct PlaneLayoutRegion {
    uint64_t base;
    uint64_t size;
    uint32_t kernel_format;
    bool fresh;                 /* outside guest RAM: fresh RAM of its own */
} PlaneLayoutRegion;

/*
 * The guest-physical layout the rules judge against.  @ranges are sorted
 * and do not overlap; an address in none of them maps nothing (a hole).
 * A range that reaches the top of the 64-bit space ends at UINT64_MAX:
 * no range the rules accept ends past that.
 */
typedef struct PlaneLayout {
    const PlaneLayoutRange *ranges;
    size_t nr_ranges;
    unsigned int nr_planes;     /* planes of the machine, 1 to the max */
    PlaneLayoutRegion regions[PLANE_LAYOUT_MAX_PLANES];  /* [0] unused */
    uint64_t phys_limit;        /* first address the vCPUs cannot reach */
    uint64_t outside_ram_min;   /* fresh RAM only at or above this */
    /*
     * Guest RAM that plane 0's chipset can decode as something else at
     * any time (q35's TSEG): no region there.  Empty if end <= start.
     */
    uint64_t chipset_ram_start, chipset_ram_end;
} PlaneLayout;

/* Where a CONFIG region may lie. */
typedef enum PlaneRegionPlacement {
    PLANE_REGION_INSIDE_RAM,    /* carved out of guest RAM */
    PLANE_REGION_OUTSIDE_RAM,   /* fresh RAM at an unused address */
    PLANE_REGION_INVALID,       /* MMIO, firmware, partly RAM, ... */
} PlaneRegionPlacement;

/* A parsed entry of the guest's struct vm_plane_config array. */
typedef struct PlaneConfigEntry {
    uint64_t load_offset;
    uint64_t memory_size;
    uint64_t entry_point;
    uint32_t kernel_format;
    char cmdline[PLANE_CONFIG_CMDLINE_LEN];
} PlaneConfigEntry;

/*
 * Whether [@gpa, @gpa + @size) lies entirely in guest RAM, or in the
 * fresh RAM of plane regions (false if empty or wrapping).
 */
bool plane_layout_in_ram(const PlaneLayout *l, uint64_t gpa, uint64_t size);

/* Where [@base, @base + @size) lies (@size > 0, no overflow). */
PlaneRegionPlacement plane_layout_placement(const PlaneLayout *l,
                                            uint64_t base, uint64_t size);

/* The plane >= 1 whose region overlaps [@gpa, @gpa + @size), or 0. */
unsigned int plane_layout_region_overlapping(const PlaneLayout *l,
                                             uint64_t gpa, uint64_t size);

/*
 * The rules.  Each returns 0 when the arguments pass, else the positive
 * KVM error code the hypercall fails with (PLANES_KVM_*) and, in *@why,
 * a new string saying why.  They read nothing but their arguments.
 */

/* CONFIG and ACTIVATE: the count and the array at @gpa. */
int plane_rule_config_array(const PlaneLayout *l, uint64_t gpa,
                            uint64_t count, char **why);

/*
 * A first CONFIG: entries 1 to @count - 1 of the array at @gpa (which
 * passed plane_rule_config_array()), their regions placed in @l; fresh
 * RAM for regions outside guest RAM may take at most @ram_left bytes.
 */
int plane_rule_config_regions(const PlaneLayout *l, uint64_t gpa,
                              unsigned int count,
                              const PlaneConfigEntry *entries,
                              uint64_t ram_left, char **why);

/*
 * A CONFIG after the accepted one (@config_count planes, regions in @l):
 * only the same planes and regions again.
 */
int plane_rule_config_again(const PlaneLayout *l, unsigned int config_count,
                            unsigned int count,
                            const PlaneConfigEntry *entries, char **why);

/* ACTIVATE: entry @i of the array, against the region CONFIG accepted. */
int plane_rule_activate_entry(const PlaneLayout *l, unsigned int i,
                              const PlaneConfigEntry *e, char **why);

/* VTL_CALL: the calling area at @gpa. */
int plane_rule_call_area(const PlaneLayout *l, uint64_t gpa, char **why);

/*
 * SET_MEM_ATTRS: the range and the allow mask; on success *@deny is the
 * PLANE_MEM_ATTR_* set the mask denies.
 */
int plane_rule_mem_attrs_args(const PlaneLayout *l, uint64_t gpa,
                              uint64_t size, uint64_t allow, uint32_t *deny,
                              char **why);

/*
 * SET_MEM_ATTRS from plane @caller >= 1: whether it may set @deny on
 * [@gpa, @gpa + @size) in the map (@map, @nr) of the plane below it.
 */
int plane_rule_mem_attrs_allowed(const PlaneLayout *l, unsigned int caller,
                                 const PlaneMemAttrRange *map, size_t nr,
                                 uint64_t gpa, uint64_t size, uint32_t deny,
                                 char **why);

/* PLANE_ENABLE_VCPU from plane @caller >= 1: its register block. */
int plane_rule_enable_block(const PlaneLayout *l, unsigned int caller,
                            uint64_t block, char **why);

#endif
