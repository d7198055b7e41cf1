/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the launch measurement, a SHA-256 over what a plane starts
 * with (docs/system/i386/planes.rst, "The launch measurement").
 */

#ifndef HW_PLANES_PLANE_MEASURE_H
#define HW_PLANES_PLANE_MEASURE_H

#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"

#define PLANE_MEASUREMENT_SIZE 32

/*
 * plane_measure: measure @plane as it boots @info (BQL held, the region
 * sealed and filled, its boot state not yet built), into the plane.
 */
void plane_measure(Plane *plane, const PlaneBootInfo *info);

/* The plane's measurement in lower-case hex, or %NULL before it has one. */
char *plane_measurement_hex(Plane *plane);

/* The measurements travel with savevm and migration (planes > 1). */
void plane_measure_migration_init(PlaneSet *set);

#endif
