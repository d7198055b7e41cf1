/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the vCPU state of a plane >= 1 on one vCPU index, and the
 * thread that runs it.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/lockable.h"
#include "qemu/rcu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "trace.h"

/*
 * The thread of a plane vCPU.  It only runs guest code while its plane is
 * the current plane of its vCPU index; until then it sleeps on turn_cond.
 * Which plane is current changes only through plane hypercalls, so a plane
 * that the guest never activates keeps its threads asleep.
 */
static void *plane_vcpu_thread_fn(void *opaque)
{
    PlaneVCPU *pv = opaque;
    PlaneSet *set = pv->plane->set;

    rcu_register_thread();
    pv->thread_id = qemu_get_thread_id();
    trace_plane_vcpu_thread_start(pv->plane->id, pv->cpu_index, pv->thread_id);
    qemu_sem_post(&pv->created_sem);

    WITH_QEMU_LOCK_GUARD(&set->lock) {
        while (!pv->exit_requested) {
            qemu_cond_wait(&pv->turn_cond, &set->lock);
        }
    }

    trace_plane_vcpu_thread_exit(pv->plane->id, pv->cpu_index);
    rcu_unregister_thread();
    return NULL;
}

bool plane_vcpu_start(PlaneVCPU *pv, Error **errp)
{
    const PlaneAccelClass *pac = pv->plane->set->accel;
    /* The kernel keeps 15 characters: "CPU 255/P15/TCG" still fits. */
    g_autofree char *name = g_strdup_printf("CPU %u/P%u/%s", pv->cpu_index,
                                            pv->plane->id, pac->thread_tag);

    qemu_thread_create(&pv->thread, name, plane_vcpu_thread_fn, pv,
                       QEMU_THREAD_JOINABLE);
    qemu_sem_wait(&pv->created_sem);
    pv->thread_started = true;
    return true;
}

void plane_vcpu_stop(PlaneVCPU *pv)
{
    PlaneSet *set = pv->plane->set;

    if (!pv->thread_started) {
        return;
    }
    WITH_QEMU_LOCK_GUARD(&set->lock) {
        pv->exit_requested = true;
        qemu_cond_broadcast(&pv->turn_cond);
    }
    qemu_thread_join(&pv->thread);
    pv->thread_started = false;
}

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
    int64_t value = PLANE_VCPU(obj)->thread_id;

    visit_type_int64(v, name, &value, errp);
}

static bool plane_vcpu_get_current(Object *obj, Error **errp)
{
    PlaneVCPU *pv = PLANE_VCPU(obj);

    return plane_is_current(pv->plane, pv->cpu_index);
}

static void plane_vcpu_init(Object *obj)
{
    PlaneVCPU *pv = PLANE_VCPU(obj);

    qemu_cond_init(&pv->turn_cond);
    qemu_sem_init(&pv->created_sem, 0);
}

static void plane_vcpu_finalize(Object *obj)
{
    PlaneVCPU *pv = PLANE_VCPU(obj);

    plane_vcpu_stop(pv);
    qemu_cond_destroy(&pv->turn_cond);
    qemu_sem_destroy(&pv->created_sem);
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
    .instance_init = plane_vcpu_init,
    .instance_finalize = plane_vcpu_finalize,
    .class_init = plane_vcpu_class_init,
};

static void plane_vcpu_register_types(void)
{
    type_register_static(&plane_vcpu_type_info);
}

type_init(plane_vcpu_register_types)
