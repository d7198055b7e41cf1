/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the hand-over of a vCPU index from one plane's vCPU state to
 * another's, and the brief polling with which a state that switched
 * itself out waits for its switch back before its thread sleeps.
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/processor.h"
#include "qemu/timer.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-debug.h"
#include "plane-internal.h"
#include "trace.h"

/* How @plane's vCPU state that runs for @cpu_index polls */
static PlaneSwitchPoll *plane_switch_poll(PlaneSet *set, unsigned int plane,
                                          unsigned int cpu_index)
{
    unsigned int state = plane_state_index(set->planes[plane], cpu_index);

    return &set->switch_poll[plane * set->nr_vcpus + state];
}

/*
 * The hand-over: one store to the index's word in PlaneSet::current_plane,
 * which switches @to's state in and every other state of the index out
 * (cpu_plane_switched_out()), and a kick, under the BQL, which is what
 * the vCPU threads hold when they decide to sleep in qemu_wait_io_event().
 * @to may be the plane that waits on the index (its call is answered).
 */
void plane_switch(PlaneSet *set, unsigned int cpu_index, unsigned int to)
{
    unsigned int word = qatomic_read(&set->current_plane[cpu_index]);
    Plane *to_plane = set->planes[to];
    CPUState *to_cpu = plane_cpu(to_plane, plane_state_index(to_plane,
                                                             cpu_index));

    assert(bql_locked() && word != to);
    trace_plane_switch(cpu_index, word & ~PLANE_WAITING, to);
    plane_debug_switching(set, cpu_index, to);
    if (!(word & PLANE_WAITING)) {
        PlaneSwitchPoll *poll = plane_switch_poll(set, word, cpu_index);

        poll->replaced_at_switch = poll->replaced;
    }
    to_cpu->halted = 0;
    /*
     * The release publishes the registers the switch set for @to_cpu; a
     * thread polling in plane_poll_switch_in() sees the store without a
     * kick, which would only make it leave its exec loop.
     */
    qatomic_store_release(&set->current_plane[cpu_index], to);
    /*
     * Store the word, then read the polling flag: the poller clears that
     * and then reads this (its smp_mb() pairs with this one), so either
     * it sees the switch or this sees it has stopped polling and kicks.
     */
    smp_mb();
    if (!qatomic_read(&plane_switch_poll(set, to, cpu_index)->polling)) {
        qemu_cpu_kick(to_cpu);
    }
}

void plane_switch_out(PlaneSet *set, unsigned int cpu_index)
{
    unsigned int word = qatomic_read(&set->current_plane[cpu_index]);
    PlaneSwitchPoll *poll = plane_switch_poll(set, word, cpu_index);

    assert(bql_locked() && !(word & PLANE_WAITING));
    poll->replaced_at_switch = poll->replaced;
    qatomic_set(&set->current_plane[cpu_index], word | PLANE_WAITING);
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
    /* A call that waits: the switch comes from another index's thread */
    return host_cpu >= 0 && !(running & PLANE_WAITING) &&
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
    /* Its own index: a shared state polls on its home's records */
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
        if (!cpu_plane_switched_out(cpu) ||
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
    back = !cpu_plane_switched_out(cpu);
    /* Kicked (a stop, work to run first): leave as the kick asked */
    if (back && qatomic_read(&cpu->exit_request)) {
        back = false;
    }
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
    PlaneSet *set = plane->set;
    /* The state of @cpu_index itself, whichever index it runs for */
    PlaneSwitchPoll *poll = &set->switch_poll[plane->id * set->nr_vcpus +
                                              cpu_index];

    assert(bql_locked());
    qatomic_set(&poll->replaced, poll->replaced + 1);
}
