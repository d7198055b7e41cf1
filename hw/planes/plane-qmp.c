/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the management interface, QMP query-planes and HMP info
 * planes.  Both derive everything from the plane objects.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-planes.h"
#include "qobject/qdict.h"
#include "monitor/hmp.h"
#include "monitor/monitor.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-measure.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/plane-device.h"
#include "plane-stats.h"

static PlaneVcpuInfo *plane_vcpu_info(Plane *plane, unsigned int cpu_index)
{
    PlaneVcpuInfo *info = g_new0(PlaneVcpuInfo, 1);
    Object *vcpu;

    info->cpu_index = cpu_index;
    info->current = plane_is_current(plane, cpu_index);
    vcpu = plane_vcpu_object(plane, cpu_index);
    if (!plane->id) {
        info->thread_id = qemu_get_cpu(cpu_index)->thread_id;
    } else if (vcpu) {
        info->thread_id = plane_vcpu_thread_id(PLANE_VCPU(vcpu));
    }
    info->qom_path = vcpu ? object_get_canonical_path(vcpu) : g_strdup("");
    return info;
}

static PlaneInfo *plane_info(Plane *plane)
{
    PlaneInfo *info = g_new0(PlaneInfo, 1);
    PlaneVcpuInfoList **tail = &info->vcpus;

    info->id = plane->id;
    info->qom_path = object_get_canonical_path(OBJECT(plane));
    info->state = plane->state;
    info->region_base = plane->region_base;
    info->region_size = plane->region_size;
    info->entry_point = plane->entry_point;
    info->launch_measurement = plane_measurement_hex(plane);
    /* planes=1 runs on accelerators without a planes backend too */
    info->switched_by = plane->set->accel &&
                        plane->set->accel->host_switches_planes ?
                        PLANE_SWITCHER_HOST_KERNEL : PLANE_SWITCHER_QEMU;
    info->memory_violations = qatomic_read(&plane->memory_violations);
    plane_mem_attrs_usage(plane, &info->memory_attr_ranges,
                          &info->memory_attr_bytes);
    info->devices = plane_device_paths(plane->id);
    info->dropped_device_accesses =
        qatomic_read(&plane->device_accesses_dropped);
    info->vtl_stats = plane_stats_info(plane->set, plane->id);
    for (unsigned int i = 0; i < plane->set->nr_vcpus; i++) {
        if (plane_index_present(plane->set, i)) {
            QAPI_LIST_APPEND(tail, plane_vcpu_info(plane, i));
        }
    }
    return info;
}

PlaneInfoList *qmp_query_planes(Error **errp)
{
    PlaneSet *set = plane_set_get();
    PlaneInfoList *head = NULL, **tail = &head;

    for (unsigned int p = 0; set && p < set->nr_planes; p++) {
        QAPI_LIST_APPEND(tail, plane_info(set->planes[p]));
    }
    return head;
}

void qmp_reset_plane_vtl_stats(bool has_plane, int64_t plane, Error **errp)
{
    PlaneSet *set = plane_set_get();

    if (!set) {
        error_setg(errp, "This machine has no planes");
        return;
    }
    if (has_plane && (plane < 0 || plane >= set->nr_planes)) {
        error_setg(errp, "plane %" PRId64 ": the machine has planes 0 to %u",
                   plane, set->nr_planes - 1);
        return;
    }
    for (unsigned int p = 0; p < set->nr_planes; p++) {
        if (!has_plane || p == plane) {
            plane_stats_reset(set, p);
        }
    }
}

/* "<4.1us": the bucket bound of a percentile, "-" without calls. */
static char *plane_latency_str(uint64_t ns)
{
    if (!ns) {
        return g_strdup("-");
    }
    if (ns < 1000) {
        return g_strdup_printf("<%" PRIu64 "ns", ns);
    }
    if (ns < 1000 * 1000) {
        return g_strdup_printf("<%.1fus", ns / 1e3);
    }
    return g_strdup_printf("<%.1fms", ns / 1e6);
}

void hmp_info_planes(Monitor *mon, const QDict *qdict)
{
    g_autoptr(PlaneInfoList) planes = qmp_query_planes(NULL);

    if (!planes) {
        monitor_printf(mon, "This machine has no planes\n");
        return;
    }
    monitor_printf(mon, "%-5s %-10s %-18s %-18s %-18s %-10s %-8s %-10s "
                   "%-9s %-9s %s\n",
                   "plane", "state", "region-base", "region-size",
                   "entry-point", "violations", "dropped", "vtl-calls",
                   "p50", "p99", "vcpus (index:thread-id, * = current)");
    for (PlaneInfoList *p = planes; p; p = p->next) {
        PlaneInfo *info = p->value;
        g_autofree char *p50 = plane_latency_str(
            plane_stats_percentile(info->vtl_stats, 50));
        g_autofree char *p99 = plane_latency_str(
            plane_stats_percentile(info->vtl_stats, 99));

        monitor_printf(mon, "%-5" PRId64 " %-10s 0x%016" PRIx64
                       " 0x%016" PRIx64 " 0x%016" PRIx64 " %-10" PRIu64
                       " %-8" PRIu64 " %-10" PRIu64 " %-9s %-9s",
                       info->id, PlaneState_str(info->state),
                       info->region_base, info->region_size,
                       info->entry_point, info->memory_violations,
                       info->dropped_device_accesses, info->vtl_stats->calls,
                       p50, p99);
        for (PlaneVcpuInfoList *v = info->vcpus; v; v = v->next) {
            monitor_printf(mon, " %" PRId64 ":%" PRId64 "%s",
                           v->value->cpu_index, v->value->thread_id,
                           v->value->current ? "*" : "");
        }
        monitor_printf(mon, "\n");
    }
    if (planes->value->switched_by == PLANE_SWITCHER_HOST_KERNEL) {
        monitor_printf(mon, "The host kernel switches planes: QEMU sees "
                       "CONFIG and ACTIVATE only; states and current "
                       "planes after ACTIVATE are the kernel's\n");
    }
}
