/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: plane memory regions and per-plane memory attributes.
 */

#ifndef HW_PLANES_PLANE_MEMORY_H
#define HW_PLANES_PLANE_MEMORY_H

#include "exec/hwaddr.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-rules.h"

/**
 * plane_layout_describe: fill @l with the guest-physical layout that the
 * rules of plane-rules.h judge against: the memory map (from the
 * FlatView, scanned again only after it changed), the planes' regions,
 * and the physical address limit of @cpu (0 if %NULL).
 *
 * BQL held; @l is valid until the memory map next changes.
 */
void plane_layout_describe(PlaneSet *set, CPUState *cpu, PlaneLayout *l);

/**
 * plane_region_placement: where [@base, @base + @size) lies in the guest's
 * physical address space (@size > 0, no overflow).
 */
PlaneRegionPlacement plane_region_placement(PlaneSet *set, hwaddr base,
                                            uint64_t size);

/*
 * Whether [@gpa, @gpa + @size) lies entirely in guest RAM, or in the
 * fresh RAM of plane regions.
 */
bool plane_range_in_ram(hwaddr gpa, uint64_t size);

/**
 * plane_layout_gen: a number that changes whenever the answers of
 * plane_range_in_ram() and plane_region_overlapping() may change (the
 * guest memory map, the planes' regions), so that checks can be cached.
 * Under the BQL.
 */
uint64_t plane_layout_gen(void);

/* The planes' regions were assigned or cleared. */
void plane_layout_changed(void);

/* Starts following the guest memory map; once, at board init. */
void plane_layout_init(void);

/* The plane >= 1 whose region overlaps [@gpa, @gpa + @size), or 0. */
unsigned int plane_region_overlapping(PlaneSet *set, hwaddr gpa,
                                      uint64_t size);

/**
 * plane_mem_attrs_set: set the attributes plane @target sees on
 * [@start, @start + @size) to @attrs (0 clears them), for @intent.
 *
 * BQL held.  The backend's host applies them first.  Returns 0, or the
 * negative KVM code for the hypercall, with nothing changed:
 * -PLANES_KVM_E2BIG when the map would grow past its limit, or what the
 * host refused with.
 */
int plane_mem_attrs_set(PlaneSet *set, CPUState *caller, unsigned int target,
                        hwaddr start, uint64_t size, uint32_t attrs,
                        PlaneMemAttrsIntent intent);

/*
 * Plane @target's attribute map as it is now, *@nr ranges (BQL held;
 * valid until the next plane_mem_attrs_set() or _clear()).
 */
const PlaneMemAttrRange *plane_mem_attrs_ranges(unsigned int target,
                                                size_t *nr);

/*
 * plane_mem_attrs_restore: @plane's view becomes the @nr ranges of
 * @ranges, a map in the form plane_attr_map_set() produces (incoming
 * migration; backends that enforce attributes themselves only).
 */
void plane_mem_attrs_restore(Plane *plane, const PlaneMemAttrRange *ranges,
                             size_t nr);

/* Drops every attribute of @plane's view (system reset). */
void plane_mem_attrs_clear(Plane *plane);

/**
 * plane_mem_attrs_lookup: the attributes plane @plane_id sees at @gpa.
 *
 * Lock-free for vCPU threads inside an RCU read-side section (TCG's exec
 * loop is one); 0 for a plane without attributes.
 */
uint32_t plane_mem_attrs_lookup(unsigned int plane_id, hwaddr gpa);

/**
 * plane_memory_violation: a vCPU of plane @cpu->plane_id made an access
 * that its attributes forbid: count it, trace it, tell management, and
 * apply the machine's plane-violation policy.
 *
 * Returns: %true when the vCPU is to take a fault (policy 'fault');
 * %false when the VM is stopping (policy 'stop'): the backend keeps the
 * vCPU from going on without performing the access.
 */
bool plane_memory_violation(CPUState *cpu, hwaddr gpa,
                            PlaneMemoryAccess access);

/* Number of ranges and bytes used by @plane's attribute map. */
void plane_mem_attrs_usage(Plane *plane, uint64_t *ranges, uint64_t *bytes);

#endif
