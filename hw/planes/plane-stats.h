/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the VTL call statistics of each plane (calls, returns,
 * refusals, round-trip latency), for the files of hw/planes only.
 */

#ifndef HW_PLANES_PLANE_STATS_H
#define HW_PLANES_PLANE_STATS_H

#include "hw/planes/plane.h"
#include "qapi/qapi-types-planes.h"

/* Latency buckets: [2^i, 2^(i + 1)) ns; the last one takes the rest */
#define PLANE_STATS_BUCKETS 32

/* The statistics of a plane set: created with it, freed with it. */
PlaneStats *plane_stats_new(unsigned int planes);
void plane_stats_free(PlaneStats *stats);

/*
 * The hand-over hooks (BQL held): plane @plane accepted a VTL call;
 * answered one whose round trip took @round_trip_ns (from the hand-over
 * of the call to the hand-over of the answer); refused a VTL call to it
 * or a VTL return from it.
 */
void plane_stats_vtl_call(PlaneSet *set, unsigned int plane);
void plane_stats_vtl_return(PlaneSet *set, unsigned int plane,
                            int64_t round_trip_ns);
void plane_stats_vtl_refused(PlaneSet *set, unsigned int plane);

/* What query-planes reports for @plane (BQL held). */
PlaneVtlStats *plane_stats_info(PlaneSet *set, unsigned int plane);

/*
 * The round trip under which @percent of @plane's answered calls came
 * back, as the upper bound of its bucket in ns; 0 without calls.
 */
uint64_t plane_stats_percentile(const PlaneVtlStats *info,
                                unsigned int percent);

/* Zeroes @plane's statistics (BQL held). */
void plane_stats_reset(PlaneSet *set, unsigned int plane);

/* Adds -machine plane-vtl-stats=on|off (default on). */
void plane_stats_class_add_property(ObjectClass *oc);

#endif
