/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the plane object and its lifecycle state machine.  Everything
 * management sees about a plane (QOM, query-planes, events) derives from here.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qapi/qapi-events-planes.h"
#include "qapi/qapi-visit-planes.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/plane-ram.h"
#include "plane-internal.h"
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

/*
 * PLANE_STATE_CHANGED is rate-limited here, before the event is built,
 * rather than in the monitor: a guest that makes VTL calls in a loop flips
 * plane 1 between running and parked twice a call, and building a QAPI
 * event costs more than the plane switch itself.
 *
 * Per plane and new state, an event opens a window of a second in which
 * the next transition into that state is held, the newest replacing an
 * older one.  Held events go out in the order of their transitions, each
 * once its window has closed, and while a plane has one held, its later
 * transitions are held behind it: a client sees them in order, and the
 * plane's last event names its current state.
 */
#define PLANE_EVENT_WINDOW_NS (1000 * SCALE_MS)

static PlaneEventLimit *plane_event_oldest_held(Plane *plane,
                                                PlaneState *state)
{
    PlaneEventLimit *oldest = NULL;

    for (PlaneState s = 0; s < PLANE_STATE__MAX; s++) {
        PlaneEventLimit *l = &plane->event_limit[s];

        if (l->held && (!oldest || l->held_seq < oldest->held_seq)) {
            oldest = l;
            *state = s;
        }
    }
    return oldest;
}

static void plane_event_send(Plane *plane, PlaneEventLimit *l, int64_t now,
                             PlaneState old_state, PlaneState new_state)
{
    if (!plane->path) {
        plane->path = object_get_canonical_path(OBJECT(plane));
    }
    l->window_end = now + PLANE_EVENT_WINDOW_NS;
    qapi_event_send_plane_state_changed(plane->id, plane->path, old_state,
                                        new_state);
}

/* Sends the held events whose turn has come; rearms for the next one. */
static void plane_event_release(Plane *plane)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    PlaneEventLimit *l;
    PlaneState state;

    while ((l = plane_event_oldest_held(plane, &state))) {
        if (l->window_end > now) {
            timer_mod(plane->event_timer, l->window_end);
            return;
        }
        l->held = false;
        plane_event_send(plane, l, now, l->held_old, state);
    }
}

static void plane_event_timer_cb(void *opaque)
{
    plane_event_release(opaque);
}

static void plane_event_state_changed(Plane *plane, PlaneState old_state,
                                      PlaneState new_state)
{
    PlaneEventLimit *l = &plane->event_limit[new_state];
    PlaneState oldest_state;
    bool any_held = plane_event_oldest_held(plane, &oldest_state) != NULL;
    int64_t now;

    /* Held behind another without a look at the clock, the common case */
    if (!any_held) {
        now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
        if (now >= l->window_end) {
            plane_event_send(plane, l, now, old_state, new_state);
            return;
        }
    }
    l->held = true;
    l->held_old = old_state;
    l->held_seq = ++plane->event_seq;
    if (!any_held) {
        timer_mod(plane->event_timer, l->window_end);
    }
}

bool plane_set_state(Plane *plane, PlaneState new_state)
{
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
    plane_event_state_changed(plane, old_state, new_state);
    return true;
}

/*
 * System reset: a plane >= 1 forgets its guest configuration, its
 * attributes and its region (with any fresh RAM); plane 0's view has no
 * restrictions left either.
 */
static void plane_reset_hold(Object *obj, ResetType type)
{
    Plane *plane = PLANE(obj);

    plane_mem_attrs_clear(plane);
    if (plane->id == 0) {
        return;
    }
    plane_region_remove_ram(plane);
    plane->home = PLANE_HOME_INDEX;
    plane->busy = false;
    for (unsigned int i = 0; plane->vcpus && i < plane->set->nr_vcpus; i++) {
        if (!plane->vcpus[i]) {
            continue;           /* no CPU plugged there */
        }
        plane->vcpus[i]->enabled = false;
        plane->vcpus[i]->enabled_fresh = false;
    }
    plane->kernel_format = 0;
    plane->region_base = 0;
    plane->region_size = 0;
    plane->entry_point = 0;
    g_clear_pointer(&plane->boot_cmdline, g_free);
    plane->measured = false;
    plane_layout_changed();
    if (plane->state != PLANE_STATE_CREATED) {
        plane_set_state(plane, PLANE_STATE_CREATED);
    }
}

static ResettableState *plane_get_reset_state(Object *obj)
{
    return &PLANE(obj)->reset_state;
}

Plane *plane_create(PlaneSet *set, unsigned int id, Error **errp)
{
    g_autofree char *name = g_strdup_printf("plane[%u]", id);
    Plane *plane = PLANE(object_new(TYPE_PLANE));

    plane->set = set;
    plane->id = id;
    plane->event_timer = timer_new_ns(QEMU_CLOCK_REALTIME,
                                      plane_event_timer_cb, plane);
    object_property_add_child(OBJECT(set), name, OBJECT(plane));
    object_unref(OBJECT(plane));
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
        Object *vcpu = plane_vcpu_object(plane, i);

        if (!plane_index_present(plane->set, i)) {
            continue;           /* no CPU plugged there yet */
        }
        if (plane->id && !vcpu) {
            break;              /* asked before board init finished */
        }

        QAPI_LIST_APPEND(tail, vcpu ? object_get_canonical_path(vcpu)
                                    : g_strdup(""));
    }
    visit_type_strList(v, name, &paths, errp);
}

static void plane_class_init(ObjectClass *oc, void *data)
{
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    rc->get_state = plane_get_reset_state;
    rc->phases.hold = plane_reset_hold;
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
    Plane *plane = PLANE(obj);

    timer_free(plane->event_timer);
    g_free(plane->path);
    g_free(plane->vcpus);
    g_free(plane->boot_cmdline);
}

static const TypeInfo plane_type_info = {
    .name = TYPE_PLANE,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(Plane),
    .instance_finalize = plane_finalize,
    .class_init = plane_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_RESETTABLE_INTERFACE },
        { }
    },
};

static void plane_register_types(void)
{
    type_register_static(&plane_type_info);
}

type_init(plane_register_types)
