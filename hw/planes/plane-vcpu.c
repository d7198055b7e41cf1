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

static void plane_vcpu_get_cpu_index(Object *obj, Visitor *v,
                                     const char *name, void *opaque,
                                     Error **errp)
{
    uint32_t value = PLANE_VCPU(obj)->cpu_index;

    visit_type_uint32(v, name, &value, errp);
}

static void plane_vcpu_get_thread_id(Object *obj, Visitor *v,
                                     const char *name, void *opaque,
                                     Error **errp)
{
    CPUState *cpu = PLANE_VCPU(obj)->cpu;
    int64_t value = cpu ? cpu->thread_id : 0;

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
