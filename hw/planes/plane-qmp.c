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

void hmp_info_planes(Monitor *mon, const QDict *qdict)
{
    g_autoptr(PlaneInfoList) planes = qmp_query_planes(NULL);

    if (!planes) {
        monitor_printf(mon, "This machine has no planes\n");
        return;
    }
    monitor_printf(mon, "%-5s %-10s %-18s %-18s %-18s %-10s %-8s %s\n",
                   "plane", "state", "region-base", "region-size",
                   "entry-point", "violations", "dropped",
                   "vcpus (index:thread-id, * = current)");
    for (PlaneInfoList *p = planes; p; p = p->next) {
        PlaneInfo *info = p->value;

        monitor_printf(mon, "%-5" PRId64 " %-10s 0x%016" PRIx64
                       " 0x%016" PRIx64 " 0x%016" PRIx64 " %-10" PRIu64
                       " %-8" PRIu64,
                       info->id, PlaneState_str(info->state),
                       info->region_base, info->region_size,
                       info->entry_point, info->memory_violations,
                       info->dropped_device_accesses);
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
