/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the VTL call statistics of each plane, counted at QEMU's
 * hand-overs between planes: calls, returns, refusals, and round trips
 * as plane-switch.c times them (no clock of their own).
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/planes/plane.h"
#include "plane-stats.h"

typedef struct PlaneVtlCounters {
    uint64_t calls;
    uint64_t returns;
    uint64_t refusals;
    uint64_t latency[PLANE_STATS_BUCKETS];
} PlaneVtlCounters;

/* Under the BQL, which every hand-over and QMP command holds. */
struct PlaneStats {
    unsigned int planes;
    PlaneVtlCounters *counters;     /* by plane */
};

/*
 * -machine plane-vtl-stats: one process, one machine.  Off, the hooks
 * return at once (make bench measures what the counting costs).
 */
static bool plane_stats_on = true;

PlaneStats *plane_stats_new(unsigned int planes)
{
    PlaneStats *stats = g_new0(PlaneStats, 1);

    stats->planes = planes;
    stats->counters = g_new0(PlaneVtlCounters, planes);
    return stats;
}

void plane_stats_free(PlaneStats *stats)
{
    if (stats) {
        g_free(stats->counters);
        g_free(stats);
    }
}

void plane_stats_vtl_call(PlaneSet *set, unsigned int plane)
{
    if (plane_stats_on && plane < set->stats->planes) {
        set->stats->counters[plane].calls++;
    }
}

/* Bucket i: round trips of [2^i, 2^(i + 1)) ns; 0 ns goes to bucket 0. */
static unsigned int plane_stats_bucket(uint64_t ns)
{
    unsigned int bucket = ns ? 63 - clz64(ns) : 0;

    return MIN(bucket, PLANE_STATS_BUCKETS - 1);
}

void plane_stats_vtl_return(PlaneSet *set, unsigned int plane,
                            int64_t round_trip_ns)
{
    PlaneVtlCounters *c;

    if (!plane_stats_on || plane >= set->stats->planes) {
        return;
    }
    c = &set->stats->counters[plane];
    c->returns++;
    c->latency[plane_stats_bucket(MAX(round_trip_ns, 0))]++;
}

void plane_stats_vtl_refused(PlaneSet *set, unsigned int plane)
{
    if (plane_stats_on && plane < set->stats->planes) {
        set->stats->counters[plane].refusals++;
    }
}

PlaneVtlStats *plane_stats_info(PlaneSet *set, unsigned int plane)
{
    PlaneVtlStats *info = g_new0(PlaneVtlStats, 1);
    uint64List **tail = &info->latency_histogram;
    PlaneVtlCounters *c = &set->stats->counters[plane];

    info->calls = c->calls;
    info->returns = c->returns;
    info->refusals = c->refusals;
    for (unsigned int i = 0; i < PLANE_STATS_BUCKETS; i++) {
        QAPI_LIST_APPEND(tail, c->latency[i]);
    }
    return info;
}

uint64_t plane_stats_percentile(const PlaneVtlStats *info,
                                unsigned int percent)
{
    uint64_t total = 0, seen = 0;
    unsigned int i = 0;

    for (uint64List *b = info->latency_histogram; b; b = b->next) {
        total += b->value;
    }
    if (!total) {
        return 0;
    }
    for (uint64List *b = info->latency_histogram; b; b = b->next, i++) {
        seen += b->value;
        /* the first bucket where @percent of the round trips are in */
        if (seen * 100 >= total * percent) {
            break;
        }
    }
    return 2ull << MIN(i, 62u);
}

void plane_stats_reset(PlaneSet *set, unsigned int plane)
{
    PlaneStats *stats = set->stats;

    /* A call under way still counts its round trip when it returns */
    memset(&stats->counters[plane], 0, sizeof(stats->counters[plane]));
}

static bool plane_stats_get(Object *obj, Error **errp)
{
    return plane_stats_on;
}

static void plane_stats_set(Object *obj, bool value, Error **errp)
{
    plane_stats_on = value;
}

void plane_stats_class_add_property(ObjectClass *oc)
{
    object_class_property_add_bool(oc, "plane-vtl-stats", plane_stats_get,
                                   plane_stats_set);
    object_class_property_set_description(oc, "plane-vtl-stats",
        "Count VTL calls, returns, refusals and round-trip latencies per "
        "plane for query-planes (default on)");
}
