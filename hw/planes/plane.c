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
#include "qemu/processor.h"
#include "qemu/timer.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
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

bool plane_is_current(Plane *plane, unsigned int cpu_index)
{
    assert(cpu_index < plane->set->nr_vcpus);
    return qatomic_read(&plane->set->current_plane[cpu_index]) == plane->id;
}

CPUState *plane_cpu(Plane *plane, unsigned int cpu_index)
{
    assert(cpu_index < plane->set->nr_vcpus);
    return plane->id ? plane->vcpus[cpu_index]->cpu : qemu_get_cpu(cpu_index);
}

unsigned int plane_cpu_index(PlaneSet *set, CPUState *cpu)
{
    Plane *plane = set->planes[cpu->plane_id];
    unsigned int i = 0;

    if (!plane->id) {
        /* The board creates the guest's CPUs before any plane state */
        return MIN(cpu->cpu_index, set->nr_vcpus);
    }
    while (i < set->nr_vcpus && plane->vcpus[i]->cpu != cpu) {
        i++;
    }
    return i;
}

static PlaneSwitchPoll *plane_switch_poll(PlaneSet *set, unsigned int plane,
                                          unsigned int cpu_index)
{
    return &set->switch_poll[plane * set->nr_vcpus + cpu_index];
}

/*
 * The hand-over: flags and kick under the BQL, which is what the vCPU
 * threads hold when they decide to sleep in qemu_wait_io_event().
 */
void plane_switch(PlaneSet *set, unsigned int cpu_index, unsigned int to)
{
    unsigned int from = set->current_plane[cpu_index];
    Plane *from_plane = set->planes[from];
    Plane *to_plane = set->planes[to];
    CPUState *from_cpu = plane_cpu(from_plane, cpu_index);
    CPUState *to_cpu = plane_cpu(to_plane, cpu_index);
    PlaneSwitchPoll *poll;

    assert(bql_locked() && from != to);
    trace_plane_switch(cpu_index, from, to);
    poll = plane_switch_poll(set, from, cpu_index);
    poll->replaced_at_switch = poll->replaced;
    qatomic_set(&set->current_plane[cpu_index], to);
    qatomic_set(&from_cpu->plane_switched_out, true);
    to_cpu->halted = 0;
    from_plane->running_on--;
    to_plane->running_on++;
    /*
     * The release publishes the registers the switch set for @to_cpu; a
     * thread polling in plane_poll_switch_in() sees the store without a
     * kick, which would only make it leave its exec loop.
     */
    qatomic_store_release(&to_cpu->plane_switched_out, false);
    /*
     * Store the flag, then read the polling flag: the poller clears that
     * and then reads this (its smp_mb() pairs with this one), so either
     * it sees the switch or this sees it has stopped polling and kicks.
     */
    smp_mb();
    if (!qatomic_read(&plane_switch_poll(set, to, cpu_index)->polling)) {
        qemu_cpu_kick(to_cpu);
    }
}

/*
 * Whether the thread that is to switch @cpu's index back in last ran on
 * this host CPU.  Then spinning only keeps it off the CPU, and yielding
 * is what lets it run: vCPU threads may outnumber host CPUs.
 */
static bool plane_poll_shares_host_cpu(PlaneSet *set, unsigned int index,
                                       PlaneSwitchPoll *self)
{
    unsigned int running = qatomic_read(&set->current_plane[index]);
    int host_cpu = -1;

#ifdef CONFIG_LINUX
    host_cpu = sched_getcpu();
#endif
    /* Read by the other planes' pollers of this index */
    qatomic_set(&self->host_cpu, host_cpu);
    return host_cpu >= 0 &&
           qatomic_read(&plane_switch_poll(set, running, index)->host_cpu) ==
           host_cpu;
}

bool plane_poll_switch_in(CPUState *cpu)
{
    PlaneSet *set = plane_set_get();
    PlaneSwitchPoll *self;
    unsigned int index;
    int64_t deadline;
    bool back, yield;

    if (!set || !set->switch_poll_ns) {
        return false;
    }
    index = plane_cpu_index(set, cpu);
    assert(index < set->nr_vcpus);
    /*
     * Pointless where one thread runs every state (TCG round robin): the
     * plane that is to switch this one back in runs on this very thread.
     */
    if (plane_cpu(set->planes[cpu->plane_id ? 0 : 1], index)->thread ==
        cpu->thread) {
        return false;
    }
    self = plane_switch_poll(set, cpu->plane_id, index);
    qatomic_set(&self->polling, true);
    /* Polling from here on, before the first look at the switch flag */
    smp_mb();
    deadline = get_clock() + set->switch_poll_ns;
    yield = plane_poll_shares_host_cpu(set, index, self);
    for (unsigned int spins = 1;; spins++) {
        if (!qatomic_load_acquire(&cpu->plane_switched_out) ||
            qatomic_read(&cpu->exit_request)) {
            break;
        }
        /* The clock costs more than a spin: look at it now and then */
        if (!(spins % 64)) {
            if (get_clock() >= deadline) {
                break;
            }
            yield = plane_poll_shares_host_cpu(set, index, self);
        }
        if (yield) {
            g_thread_yield();
        } else {
            cpu_relax();
        }
    }
    qatomic_set(&self->polling, false);
    /* Pairs with plane_switch(): a switch from now on kicks this thread */
    smp_mb();
    back = !qatomic_load_acquire(&cpu->plane_switched_out);
    /*
     * The acquire above orders this after the registers and counter the
     * switch published: a state that got new registers starts afresh.
     */
    if (back && qatomic_read(&self->replaced) != self->replaced_at_switch) {
        back = false;
    }
    trace_plane_switch_poll(index, cpu->plane_id, back);
    return back;
}

void plane_note_state_replaced(Plane *plane, unsigned int cpu_index)
{
    PlaneSwitchPoll *poll = plane_switch_poll(plane->set, plane->id,
                                              cpu_index);

    assert(bql_locked());
    qatomic_set(&poll->replaced, poll->replaced + 1);
}

void plane_reset(Plane *plane)
{
    plane->running_on = plane->id ? 0 : plane->set->nr_vcpus;
    if (plane->id == 0) {
        return;
    }
    plane->home = 0;
    plane->busy = false;
    for (unsigned int i = 0; plane->vcpus && i < plane->set->nr_vcpus; i++) {
        plane->vcpus[i]->enabled = false;
        plane->vcpus[i]->enabled_fresh = false;
    }
    plane->kernel_format = 0;
    plane->region_base = 0;
    plane->region_size = 0;
    plane->entry_point = 0;
    g_clear_pointer(&plane->boot_cmdline, g_free);
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
    plane->running_on = id ? 0 : set->nr_vcpus;
    plane->event_timer = timer_new_ns(QEMU_CLOCK_REALTIME,
                                      plane_event_timer_cb, plane);
    object_property_add_child(OBJECT(set), name, OBJECT(plane));
    object_unref(OBJECT(plane));
    return plane;
}

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

/* Planes >= 1: one vCPU state per vCPU index, next to the guest's CPUs. */
bool plane_create_vcpus(Plane *plane, Error **errp)
{
    PlaneSet *set = plane->set;

    assert(plane->id);
    plane->vcpus = g_new0(PlaneVCPU *, set->nr_vcpus);
    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        g_autofree char *vname = g_strdup_printf("vcpu[%u]", i);
        PlaneVCPU *pv = PLANE_VCPU(object_new(TYPE_PLANE_VCPU));

        pv->plane = plane;
        pv->cpu_index = i;
        object_property_add_child(OBJECT(plane), vname, OBJECT(pv));
        object_unref(OBJECT(pv));
        plane->vcpus[i] = pv;
        pv->cpu = set->accel->vcpu_create(OBJECT(pv), qemu_get_cpu(i),
                                          plane->id, errp);
        if (!pv->cpu) {
            return false;
        }
        plane_vcpu_name_thread(pv, set->accel->thread_tag);
    }
    return true;
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
        Object *vcpu;

        if (plane->id && !plane->vcpus) {
            break;              /* asked before board init finished */
        }
        vcpu = plane->id ? OBJECT(plane->vcpus[i]) : OBJECT(qemu_get_cpu(i));

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
};

static void plane_register_types(void)
{
    type_register_static(&plane_type_info);
}

type_init(plane_register_types)
