/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the machine's plane set (/machine/plane-set), which owns the
 * planes, records which plane runs on each vCPU index and what each index
 * has pending, and finds the vCPU state of a plane on an index.
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/memalign.h"
#include "hw/core/cpu.h"
#include "hw/resettable.h"
#include "hw/planes/plane.h"
#include "plane-internal.h"
#include "plane-stats.h"

/*
 * The machine's plane set, for lock-free lookups from vCPU threads (TLB
 * fills).  Written once by plane_set_new(), before any vCPU exists.
 */
static PlaneSet *machine_plane_set;

PlaneSet *plane_set_get(void)
{
    return machine_plane_set;
}

PlaneSet *plane_set_new(const PlaneAccelClass *accel, unsigned int planes,
                        unsigned int nr_vcpus)
{
    PlaneSet *set = PLANE_SET(object_new(TYPE_PLANE_SET));
    size_t poll_size = sizeof(PlaneSwitchPoll) * planes * nr_vcpus;

    set->accel = accel;
    set->nr_planes = planes;
    set->nr_vcpus = nr_vcpus;
    set->planes = g_new0(Plane *, planes);
    set->current_plane = g_new0(unsigned int, nr_vcpus);
    set->pending = g_new0(PlanePending, nr_vcpus);
    set->call_area_ok = g_new0(PlaneCallAreaCheck, nr_vcpus);
    set->cpu_joined = g_new0(bool, nr_vcpus);
    set->switch_poll = qemu_memalign(PLANE_CACHE_LINE, poll_size);
    memset(set->switch_poll, 0, poll_size);
    for (unsigned int i = 0; i < planes * nr_vcpus; i++) {
        set->switch_poll[i].host_cpu = -1;
    }
    set->stats = plane_stats_new(planes);
    machine_plane_set = set;
    return set;
}

unsigned int plane_current(PlaneSet *set, unsigned int cpu_index)
{
    assert(cpu_index < set->nr_vcpus);
    return qatomic_read(&set->current_plane[cpu_index]) & ~PLANE_WAITING;
}

bool plane_is_current(Plane *plane, unsigned int cpu_index)
{
    return plane_current(plane->set, cpu_index) == plane->id;
}

unsigned int plane_running_on(Plane *plane)
{
    unsigned int n = 0;

    for (unsigned int i = 0; i < plane->set->nr_vcpus; i++) {
        /* a CPU still being plugged may make VTL calls already */
        n += qemu_get_cpu(i) && plane_is_current(plane, i);
    }
    return n;
}

bool plane_index_present(PlaneSet *set, unsigned int cpu_index)
{
    /* A CPU being plugged is listed already, its plane states not yet */
    return cpu_index < set->nr_vcpus && qemu_get_cpu(cpu_index) &&
           (set->nr_planes == 1 || set->cpu_joined[cpu_index]);
}

int plane_state_cpu_index(PlaneSet *set, unsigned int plane_id,
                          unsigned int cpu_index)
{
    assert(plane_id < set->nr_planes && cpu_index < set->nr_vcpus);
    return plane_id * set->nr_vcpus + cpu_index;
}

CPUState *plane_cpu(Plane *plane, unsigned int cpu_index)
{
    assert(cpu_index < plane->set->nr_vcpus);
    if (!plane->id) {
        return qemu_get_cpu(cpu_index);
    }
    /* NULL before board init has made the state (or if it failed to) */
    return plane->vcpus && plane->vcpus[cpu_index] ?
           plane->vcpus[cpu_index]->cpu : NULL;
}

Object *plane_vcpu_object(Plane *plane, unsigned int cpu_index)
{
    assert(cpu_index < plane->set->nr_vcpus);
    if (!plane->id) {
        return OBJECT(qemu_get_cpu(cpu_index));
    }
    return plane->vcpus ? OBJECT(plane->vcpus[cpu_index]) : NULL;
}

unsigned int plane_cpu_index(PlaneSet *set, CPUState *cpu)
{
    Plane *plane = set->planes[cpu->plane_id];
    unsigned int i = 0;

    if (!plane->id) {
        /* The board creates the guest's CPUs before any plane state */
        return MIN(cpu->cpu_index, set->nr_vcpus);
    }
    while (i < set->nr_vcpus && plane_cpu(plane, i) != cpu) {
        i++;
    }
    return i;
}

unsigned int plane_state_index(Plane *plane, unsigned int cpu_index)
{
    PlaneVCPU *pv;

    assert(cpu_index < plane->set->nr_vcpus);
    if (!plane->id || !plane->vcpus) {
        return cpu_index;
    }
    pv = plane->vcpus[cpu_index];
    /* No CPU plugged at @cpu_index yet: nothing of its own either */
    return pv && pv->enabled ? cpu_index : plane->home;
}

unsigned int plane_shared_state_serves(Plane *plane)
{
    PlaneSet *set = plane->set;

    for (unsigned int i = 0; plane->id && i < set->nr_vcpus; i++) {
        const PlanePending *p = &set->pending[i];

        if ((p->kind == PLANE_PENDING_ACTIVATE ||
             p->kind == PLANE_PENDING_VTL_CALL) &&
            p->callee == plane->id && plane_state_index(plane, i) != i) {
            return i;
        }
    }
    return plane->home;
}

unsigned int plane_served_index(PlaneSet *set, CPUState *cpu)
{
    unsigned int index = plane_cpu_index(set, cpu);
    Plane *plane = set->planes[cpu->plane_id];

    if (plane->id && index == plane->home) {
        return plane_shared_state_serves(plane);
    }
    return index;
}

/*
 * The switch word of a plane state that runs for no index: a state of a
 * plane >= 1 on an index other than its home, while the plane has not
 * enabled it.  Never a plane's id, so the state stays switched out.
 */
static const unsigned int plane_dormant_word = PLANE_WAITING;

/* The word that says whether @plane's state of @cpu_index runs */
static const unsigned int *plane_state_word(Plane *plane,
                                            unsigned int cpu_index)
{
    PlaneSet *set = plane->set;

    if (cpu_index == plane->home) {
        return &set->current_plane[plane_shared_state_serves(plane)];
    }
    if (plane_state_index(plane, cpu_index) == cpu_index) {
        return &set->current_plane[cpu_index];
    }
    return &plane_dormant_word;
}

void plane_bind_states(Plane *plane)
{
    for (unsigned int i = 0; plane->id && i < plane->set->nr_vcpus; i++) {
        CPUState *cpu = plane_cpu(plane, i);
        const unsigned int *word;

        if (!cpu) {
            continue;
        }
        word = plane_state_word(plane, i);
        /*
         * Only a change is stored: every VTL call and return binds, and
         * the store would take the line that the state's thread reads
         * as it polls.
         */
        if (qatomic_read(&cpu->plane_current) != word) {
            qatomic_set(&cpu->plane_current, word);
        }
    }
}

void plane_vcpu_bind(CPUState *cpu, unsigned int plane_id,
                     CPUState *plane0_cpu)
{
    PlaneSet *set = plane_set_get();
    unsigned int index = plane_cpu_index(set, plane0_cpu);

    assert(index < set->nr_vcpus && plane_id < set->nr_planes);
    cpu->plane_id = plane_id;
    /* Not yet in Plane::vcpus: only the home state may ever run now */
    qatomic_set(&cpu->plane_current,
                !plane_id || index == PLANE_HOME_INDEX ?
                &set->current_plane[index] : &plane_dormant_word);
}

/* The planes reset first (resettable children), then the set. */
static void plane_set_reset_child_foreach(Object *obj,
                                          ResettableChildCallback cb,
                                          void *opaque, ResetType type)
{
    PlaneSet *set = PLANE_SET(obj);

    for (unsigned int p = 0; p < set->nr_planes; p++) {
        cb(OBJECT(set->planes[p]), opaque, type);
    }
}

/*
 * System reset: plane 0 gets every vCPU index back, nothing is pending,
 * and the guest must CONFIG and ACTIVATE again.  vCPUs are paused.
 */
static void plane_set_reset_hold(Object *obj, ResetType type)
{
    PlaneSet *set = PLANE_SET(obj);

    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        qatomic_set(&set->current_plane[i], 0);
        set->pending[i] = (PlanePending) { .kind = PLANE_PENDING_NONE };
    }
    for (unsigned int p = 1; p < set->nr_planes; p++) {
        plane_bind_states(set->planes[p]);     /* enabled states are gone */
    }
    set->configured = false;
    set->activating = false;
    set->launching = false;
    set->activate_seq++;
    set->violation_stopped = false;
    set->config_gpa = 0;
    set->config_count = 0;
}

static ResettableState *plane_set_get_reset_state(Object *obj)
{
    return &PLANE_SET(obj)->reset_state;
}

static void plane_set_finalize(Object *obj)
{
    PlaneSet *set = PLANE_SET(obj);

    if (machine_plane_set == set) {
        machine_plane_set = NULL;
    }
    g_free(set->planes);
    g_free(set->current_plane);
    g_free(set->pending);
    g_free(set->call_area_ok);
    g_free(set->cpu_joined);
    qemu_vfree(set->switch_poll);
    plane_stats_free(set->stats);
}

static void plane_set_class_init(ObjectClass *oc, void *data)
{
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    rc->get_state = plane_set_get_reset_state;
    rc->child_foreach = plane_set_reset_child_foreach;
    rc->phases.hold = plane_set_reset_hold;
}

static const TypeInfo plane_set_type_info = {
    .name = TYPE_PLANE_SET,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(PlaneSet),
    .instance_finalize = plane_set_finalize,
    .class_init = plane_set_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_RESETTABLE_INTERFACE },
        { }
    },
};

static void plane_set_register_types(void)
{
    type_register_static(&plane_set_type_info);
}

type_init(plane_set_register_types)
