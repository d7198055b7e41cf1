/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the fresh RAM of a plane region that lies outside guest RAM.
 */

#ifndef HW_PLANES_PLANE_RAM_H
#define HW_PLANES_PLANE_RAM_H

#include "hw/planes/plane.h"

/*
 * Map fresh RAM for @plane's region (BQL held); false, with a warning,
 * when the host cannot allocate it.
 */
bool plane_region_add_ram(Plane *plane);

/* Unmap @plane's fresh RAM, if any; freed once nothing uses it. */
void plane_region_remove_ram(Plane *plane);

/*
 * plane_region_ram_incoming: @plane's fresh RAM, just made by an incoming
 * stream's setup phase, is ready to receive its pages.
 */
void plane_region_ram_incoming(Plane *plane);

/* Whether @mr is the fresh RAM of some plane's region. */
bool memory_region_is_plane_ram(const MemoryRegion *mr);

#endif
