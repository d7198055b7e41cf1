/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the plane object and its lifecycle state machine.  Everything
 * management sees about a plane (QOM, query-planes, events) derives from here.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/lockable.h"
#include "qapi/qapi-events-planes.h"
#include "qapi/qapi-visit-planes.h"
#include "qemu/main-loop.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "trace.h"

/*
 * The lifecycle (docs/system/i386/planes.rst):
 *
 *   created -> configured -> active -> running <-> parked
 *                                         |          |
 *                                         +-> stopped <-+
 *
 * Plane 0 goes from created to running when the machine is ready and stays
 * there.  System reset takes every plane >= 1 back to created.
 */
static bool plane_transition_allowed(PlaneState from, PlaneState to)
{
    if (to == PLANE_STATE_CREATED) {
        return from != PLANE_STATE_CREATED;         /* system reset */
    }
    switch (from) {
    case PLANE_STATE_CREATED:
        return to == PLANE_STATE_CONFIGURED || to == PLANE_STATE_RUNNING;
    case PLANE_STATE_CONFIGURED:
        return to == PLANE_STATE_ACTIVE;
    case PLANE_STATE_ACTIVE:
        return to == PLANE_STATE_RUNNING || to == PLANE_STATE_STOPPED;
    case PLANE_STATE_RUNNING:
        return to == PLANE_STATE_PARKED || to == PLANE_STATE_STOPPED;
    case PLANE_STATE_PARKED:
        return to == PLANE_STATE_RUNNING || to == PLANE_STATE_STOPPED;
    default:
        return false;
    }
}

bool plane_set_state(Plane *plane, PlaneState new_state)
{
    g_autofree char *path = NULL;
    PlaneState old_state = plane->state;

    assert(bql_locked());
    if (!plane_transition_allowed(old_state, new_state)) {
        trace_plane_state_refused(plane->id, PlaneState_str(old_state),
                                  PlaneState_str(new_state));
        return false;
    }
    plane->state = new_state;
    trace_plane_state_changed(plane->id, PlaneState_str(old_state),
                              PlaneState_str(new_state));
    path = object_get_canonical_path(OBJECT(plane));
    qapi_event_send_plane_state_changed(plane->id, path, old_state, new_state);
    return true;
}

bool plane_is_current(Plane *plane, unsigned int cpu_index)
{
    PlaneSet *set = plane->set;

    assert(cpu_index < set->nr_vcpus);
    QEMU_LOCK_GUARD(&set->lock);
    return set->current_plane[cpu_index] == plane->id;
}

void plane_reset(Plane *plane)
{
    if (plane->id == 0) {
        return;
    }
    plane->region_base = 0;
    plane->region_size = 0;
    plane->entry_point = 0;
    if (plane->state != PLANE_STATE_CREATED) {
        plane_set_state(plane, PLANE_STATE_CREATED);
    }
}

Plane *plane_create(PlaneSet *set, unsigned int id, Error **errp)
{
    g_autofree char *name = g_strdup_printf("plane[%u]", id);
    Plane *plane = PLANE(object_new(TYPE_PLANE));

    plane->set = set;
    plane->id = id;
    object_property_add_child(OBJECT(set), name, OBJECT(plane));
    object_unref(OBJECT(plane));

    if (id == 0) {
        return plane;           /* plane 0 runs on the machine's own CPUs */
    }
    plane->vcpus = g_new0(PlaneVCPU *, set->nr_vcpus);
    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        g_autofree char *vname = g_strdup_printf("vcpu[%u]", i);
        PlaneVCPU *pv = PLANE_VCPU(object_new(TYPE_PLANE_VCPU));

        pv->plane = plane;
        pv->cpu_index = i;
        object_property_add_child(OBJECT(plane), vname, OBJECT(pv));
        object_unref(OBJECT(pv));
        plane->vcpus[i] = pv;
        if (!plane_vcpu_start(pv, errp)) {
            return NULL;
        }
    }
    return plane;
}

static void plane_get_id(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp)
{
    uint32_t id = PLANE(obj)->id;

    visit_type_uint32(v, name, &id, errp);
}

static int plane_get_state(Object *obj, Error **errp)
{
    return PLANE(obj)->state;
}

static void plane_get_u64_field(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    uint64_t value = *(uint64_t *)((char *)obj + (uintptr_t)opaque);

    visit_type_uint64(v, name, &value, errp);
}

/*
 * Plane 0's vCPUs are the machine's CPUs; a plane >= 1 has PlaneVCPU
 * children.  Either way, the list of their QOM paths, by vCPU index.
 */
static void plane_get_vcpus(Object *obj, Visitor *v, const char *name,
                            void *opaque, Error **errp)
{
    Plane *plane = PLANE(obj);
    g_autoptr(strList) paths = NULL;
    strList **tail = &paths;

    for (unsigned int i = 0; i < plane->set->nr_vcpus; i++) {
        Object *vcpu = plane->id ? OBJECT(plane->vcpus[i])
                                 : OBJECT(qemu_get_cpu(i));

        QAPI_LIST_APPEND(tail, vcpu ? object_get_canonical_path(vcpu)
                                    : g_strdup(""));
    }
    visit_type_strList(v, name, &paths, errp);
}

static void plane_class_init(ObjectClass *oc, void *data)
{
    object_class_property_add(oc, "id", "uint32", plane_get_id,
                              NULL, NULL, NULL);
    object_class_property_set_description(oc, "id",
        "Plane number; 0 is the boot plane");
    object_class_property_add_enum(oc, "state", "PlaneState",
                                   &PlaneState_lookup, plane_get_state, NULL);
    object_class_property_set_description(oc, "state",
        "Lifecycle state of the plane");
    object_class_property_add(oc, "region-base", "uint64",
                              plane_get_u64_field, NULL, NULL,
                              (void *)offsetof(Plane, region_base));
    object_class_property_set_description(oc, "region-base",
        "Guest-physical base of the plane's memory region (0 until configured)");
    object_class_property_add(oc, "region-size", "uint64",
                              plane_get_u64_field, NULL, NULL,
                              (void *)offsetof(Plane, region_size));
    object_class_property_set_description(oc, "region-size",
        "Size in bytes of the plane's memory region (0 until configured)");
    object_class_property_add(oc, "entry-point", "uint64",
                              plane_get_u64_field, NULL, NULL,
                              (void *)offsetof(Plane, entry_point));
    object_class_property_set_description(oc, "entry-point",
        "Guest-physical entry point of the plane (0 until activated)");
    object_class_property_add(oc, "vcpus", "strList", plane_get_vcpus,
                              NULL, NULL, NULL);
    object_class_property_set_description(oc, "vcpus",
        "QOM paths of the plane's vCPU states, by vCPU index");
}

static void plane_finalize(Object *obj)
{
    g_free(PLANE(obj)->vcpus);
}

static const TypeInfo plane_type_info = {
    .name = TYPE_PLANE,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(Plane),
    .instance_finalize = plane_finalize,
    .class_init = plane_class_init,
};

static void plane_register_types(void)
{
    type_register_static(&plane_type_info);
}

type_init(plane_register_types)
