/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the vCPU state of a plane >= 1 on one vCPU index.  The state
 * itself is a CPUState of the backend's making (its child "cpu"), run by
 * the accelerator's own vCPU thread; this object is how management sees it.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "plane-internal.h"

/*
 * The accelerator named the thread after the state's cpu_index ("CPU 2/TCG");
 * management wants the vCPU index and plane ("CPU 0/P1/TCG", 15 characters
 * at most).  Only where thread naming is on (-name debug-threads=on).
 */
static void plane_vcpu_name_thread(PlaneVCPU *pv, const char *tag)
{
#ifdef CONFIG_PTHREAD_SETNAME_NP_W_TID
    char current[16];
    g_autofree char *name = g_strdup_printf("CPU %u/P%u/%s", pv->cpu_index,
                                            pv->plane->id, tag);
    pthread_t thread = pv->cpu->thread->thread;

    if (pthread_getname_np(thread, current, sizeof(current)) == 0 &&
        g_str_has_prefix(current, "CPU ")) {
        pthread_setname_np(thread, name);
    }
#endif
}

/* Plane >= 1's vCPU state for the guest CPU of index @index. */
bool plane_create_vcpu(Plane *plane, unsigned int index, Error **errp)
{
    PlaneSet *set = plane->set;
    g_autofree char *vname = g_strdup_printf("vcpu[%u]", index);
    PlaneVCPU *pv;

    assert(plane->id && index < set->nr_vcpus && !plane->vcpus[index]);
    pv = PLANE_VCPU(object_new(TYPE_PLANE_VCPU));
    pv->plane = plane;
    pv->cpu_index = index;
    object_property_add_child(OBJECT(plane), vname, OBJECT(pv));
    object_unref(OBJECT(pv));
    plane->vcpus[index] = pv;
    if (set->accel->host_switches_planes) {
        return true;            /* the host's state, run by index's thread */
    }
    pv->cpu = set->accel->vcpu_create(OBJECT(pv), qemu_get_cpu(index),
                                      plane->id, errp);
    if (!pv->cpu) {
        return false;
    }
    plane_vcpu_name_thread(pv, set->accel->thread_tag);
    return true;
}

/*
 * Planes >= 1: one vCPU state per vCPU index the machine has now, next to
 * the guest's CPUs; a CPU plugged later gets its states when it is plugged
 * (machine_planes_cpu_plugged()).
 */
bool plane_create_vcpus(Plane *plane, Error **errp)
{
    PlaneSet *set = plane->set;

    plane->vcpus = g_new0(PlaneVCPU *, set->nr_vcpus);
    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        if (plane_index_present(set, i) && !plane_create_vcpu(plane, i, errp)) {
            return false;
        }
    }
    return true;
}

static void plane_vcpu_get_cpu_index(Object *obj, Visitor *v,
                                     const char *name, void *opaque,
                                     Error **errp)
{
    uint32_t value = PLANE_VCPU(obj)->cpu_index;

    visit_type_uint32(v, name, &value, errp);
}

int64_t plane_vcpu_thread_id(PlaneVCPU *pv)
{
    /* Where the host switches planes, the index's own thread runs it. */
    CPUState *cpu = pv->cpu ?: qemu_get_cpu(pv->cpu_index);

    return cpu ? cpu->thread_id : 0;
}

static void plane_vcpu_get_thread_id(Object *obj, Visitor *v,
                                     const char *name, void *opaque,
                                     Error **errp)
{
    int64_t value = plane_vcpu_thread_id(PLANE_VCPU(obj));

    visit_type_int64(v, name, &value, errp);
}

static bool plane_vcpu_get_current(Object *obj, Error **errp)
{
    PlaneVCPU *pv = PLANE_VCPU(obj);

    return plane_is_current(pv->plane, pv->cpu_index);
}

static void plane_vcpu_class_init(ObjectClass *oc, void *data)
{
    object_class_property_add(oc, "cpu-index", "uint32",
                              plane_vcpu_get_cpu_index, NULL, NULL, NULL);
    object_class_property_set_description(oc, "cpu-index",
        "The vCPU index this vCPU state belongs to");
    object_class_property_add(oc, "thread-id", "int",
                              plane_vcpu_get_thread_id, NULL, NULL, NULL);
    object_class_property_set_description(oc, "thread-id",
        "Host thread id of the thread that runs this vCPU state");
    object_class_property_add_bool(oc, "current", plane_vcpu_get_current,
                                   NULL);
    object_class_property_set_description(oc, "current",
        "Whether this plane is the one running on the vCPU index");
}

static const TypeInfo plane_vcpu_type_info = {
    .name = TYPE_PLANE_VCPU,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(PlaneVCPU),
    .class_init = plane_vcpu_class_init,
};

static void plane_vcpu_register_types(void)
{
    type_register_static(&plane_vcpu_type_info);
}

type_init(plane_vcpu_register_types)
