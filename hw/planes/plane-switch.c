/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the hand-over of a vCPU index from one plane's vCPU state to
 * another's, and the brief polling with which a state that switched
 * itself out waits for its switch back before its thread sleeps: its
 * window adapts as KVM's halt polling does, and it yields instead of
 * spinning while the vCPU threads that want a host CPU outnumber them.
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
 * The window halves (to 0 below PLANE_POLL_START_NS) after
 * PLANE_POLL_SHRINK_AFTER switches in a row came back later than the
 * ceiling: one late switch on a busy host says little.  It doubles (from
 * PLANE_POLL_START_NS) when a switch came back within the ceiling after
 * the poll gave up.
 */
#define PLANE_POLL_START_NS 2000
#define PLANE_POLL_SHRINK_AFTER 3
/* How often a polling thread counts the host CPUs it may run on */
#define PLANE_POLL_CPUS_RECOUNT_NS (1000 * 1000 * 1000)
/* How often a polling thread that host CPUs are short of yields at least */
#define PLANE_POLL_FAIR_YIELD_NS (50 * 1000)

/*
 * @poll's state is switched in @waited ns after it was switched out,
 * and was @polling then: adapt its window (BQL held, by the switcher).
 */
static void plane_poll_adapt(PlaneSet *set, PlaneSwitchPoll *poll,
                             int64_t waited, bool polling)
{
    uint64_t window = poll->window_adapted ? poll->window_ns
                                           : set->switch_poll_ns;

    if (waited > set->switch_poll_ns) {
        if (++poll->late_switches < PLANE_POLL_SHRINK_AFTER) {
            return;
        }
        window = window / 2 >= PLANE_POLL_START_NS ? window / 2 : 0;
    } else if (polling) {
        poll->late_switches = 0;
        return;     /* in time: the window is right */
    } else {
        window = MIN(MAX(window * 2, PLANE_POLL_START_NS),
                     set->switch_poll_ns);
    }
    poll->late_switches = 0;
    qatomic_set(&poll->window_ns, window);
    qatomic_set(&poll->window_adapted, true);
}

/*
 * Time-stamps the switch of @cpu_index from @from (the plane there now,
 * with PLANE_WAITING if it waits) to @to (PLANE_WAITING: none), and
 * adapts @to's window by whether its thread was still @polling when the
 * switch was stored.  After the store: the record shares a line with the
 * polling flag that @to's thread writes as it goes on.
 */
static void plane_poll_note_switch(PlaneSet *set, unsigned int cpu_index,
                                   unsigned int from, unsigned int to,
                                   bool polling)
{
    int64_t now = get_clock();
    PlaneSwitchPoll *in;

    if (!(from & PLANE_WAITING)) {
        plane_switch_poll(set, from, cpu_index)->switched_out_at = now;
    }
    if (to & PLANE_WAITING) {
        return;
    }
    in = plane_switch_poll(set, to, cpu_index);
    if (in->switched_out_at) {
        in->last_wait_ns = now - in->switched_out_at;
        plane_poll_adapt(set, in, in->last_wait_ns, polling);
        in->switched_out_at = 0;
    }
}

/* The host CPUs the calling thread may run on, counted now and then */
static int plane_poll_usable_cpus(PlaneSwitchPoll *self, int64_t now)
{
    int n = 0;

    if (self->usable_cpus &&
        now - self->usable_cpus_at < PLANE_POLL_CPUS_RECOUNT_NS) {
        return self->usable_cpus;
    }
#ifdef CONFIG_LINUX
    {
        cpu_set_t mask;

        if (!sched_getaffinity(0, sizeof(mask), &mask)) {
            n = CPU_COUNT(&mask);
        }
    }
#endif
    self->usable_cpus = n > 0 ? n : MAX(sysconf(_SC_NPROCESSORS_ONLN), 1);
    self->usable_cpus_at = now;
    return self->usable_cpus;
}

/*
 * Whether a host CPU is left for the calling thread to spin on: the vCPU
 * states that run guest code (or were switched in and wait for a host
 * CPU) and the threads that poll (this one included, @uncounted if not
 * yet in PlaneSet::pollers) must not outnumber the host CPUs it may run
 * on.  Otherwise its spinning takes a host CPU from a state with guest
 * code to run: two vCPUs calling at once on a 2-CPU host collapse, or
 * one of them starves.
 */
static bool plane_poll_has_host_cpu(PlaneSet *set, PlaneSwitchPoll *self,
                                    int64_t now, unsigned int uncounted)
{
    unsigned int cpus = plane_poll_usable_cpus(self, now);
    unsigned int wanting = qatomic_read(&set->pollers) + uncounted;
    CPUState *cpu;

    if (set->nr_planes * set->nr_vcpus <= cpus) {
        return true;    /* a host CPU for every thread */
    }
    WITH_RCU_READ_LOCK_GUARD() {
        CPU_FOREACH(cpu) {
            wanting += !qatomic_read(&cpu->halted) &&
                       !qatomic_read(&cpu->stopped) &&
                       !cpu_plane_switched_out(cpu);
        }
    }
    return wanting <= cpus;
}

/*
 * The kicks that plane_switch() leaves to plane_switch_flush_kicks(): a
 * thread kicked under the BQL wakes only to wait for it.
 */
#define PLANE_DEFERRED_KICKS 4
static __thread struct {
    bool active;
    unsigned int n;
    CPUState *cpu[PLANE_DEFERRED_KICKS];
} plane_deferred_kicks;

void plane_switch_defer_kicks(void)
{
    plane_deferred_kicks.active = true;
    plane_deferred_kicks.n = 0;
}

void plane_switch_flush_kicks(void)
{
    plane_deferred_kicks.active = false;
    for (unsigned int i = 0; i < plane_deferred_kicks.n; i++) {
        qemu_cpu_kick(plane_deferred_kicks.cpu[i]);
    }
    plane_deferred_kicks.n = 0;
}

static void plane_switch_kick(CPUState *cpu)
{
    if (plane_deferred_kicks.active &&
        plane_deferred_kicks.n < PLANE_DEFERRED_KICKS) {
        plane_deferred_kicks.cpu[plane_deferred_kicks.n++] = cpu;
    } else {
        qemu_cpu_kick(cpu);
    }
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
    bool polling;

    assert(bql_locked() && word != to);
    trace_plane_switch(cpu_index, word & ~PLANE_WAITING, to);
    plane_debug_switching(set, cpu_index, to);
    if (!(word & PLANE_WAITING)) {
        PlaneSwitchPoll *poll = plane_switch_poll(set, word, cpu_index);

        poll->replaced_at_switch = poll->replaced;
    }
    /* Only if set: the store would take a line its poller is reading */
    if (to_cpu->halted) {
        to_cpu->halted = 0;
    }
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
    polling = qatomic_read(&plane_switch_poll(set, to, cpu_index)->polling);
    /*
     * Nor when the switcher's own thread runs @to_cpu (a shared state
     * that takes the next waiting call in its VTL_RETURN): it looks at
     * the switch as it leaves the hypercall, and a kick would only make
     * it leave its exec loop.
     */
    if (!polling &&
        !(to_cpu->thread && qemu_thread_is_self(to_cpu->thread))) {
        plane_switch_kick(to_cpu);
    }
    plane_poll_note_switch(set, cpu_index, word, to, polling);
}

void plane_switch_out(PlaneSet *set, unsigned int cpu_index)
{
    unsigned int word = qatomic_read(&set->current_plane[cpu_index]);
    PlaneSwitchPoll *poll = plane_switch_poll(set, word, cpu_index);

    assert(bql_locked() && !(word & PLANE_WAITING));
    plane_poll_note_switch(set, cpu_index, word, PLANE_WAITING, false);
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

/*
 * Whether polling should yield the host CPU rather than spin on it: when
 * the thread it waits for last ran on the same host CPU, or when states
 * with guest code to run want every host CPU.
 */
static bool plane_poll_should_yield(PlaneSet *set, unsigned int index,
                                    PlaneSwitchPoll *self, int64_t now)
{
    return plane_poll_shares_host_cpu(set, index, self) ||
           !plane_poll_has_host_cpu(set, self, now, 0);
}

/*
 * Spins, or yields, until @cpu is switched back in, is kicked or its
 * @window is over.  Returns whether it saw @cpu switched back in.
 */
static bool plane_poll_spin(PlaneSet *set, CPUState *cpu, unsigned int index,
                            PlaneSwitchPoll *self, uint64_t window)
{
    int64_t now = get_clock();
    int64_t deadline = now + window;
    /*
     * Most switches come back within the first spins: only a longer poll
     * counts itself in PlaneSet::pollers (a line all pollers write) and
     * decides whether to yield from the count.
     */
    bool yield = plane_poll_shares_host_cpu(set, index, self);
    bool counted = false, back = false;

    /*
     * But a thread whose short polls all spin never gives up its host CPU
     * to a state switched in meanwhile: that state waits for the
     * scheduler's time slice, milliseconds, and a vCPU calling beside a
     * faster one starves.  Now and then, then, a poll starts with a yield.
     */
    if (now - self->fair_yield_at > PLANE_POLL_FAIR_YIELD_NS &&
        (yield || !plane_poll_has_host_cpu(set, self, now, 1))) {
        self->fair_yield_at = now;
        g_thread_yield();
    }
    for (unsigned int spins = 1;; spins++) {
        if (!cpu_plane_switched_out(cpu)) {
            back = true;
            break;
        }
        if (qatomic_read(&cpu->exit_request)) {
            break;
        }
        /* The clock costs more than a spin: look at it now and then */
        if (!(spins % 64)) {
            now = get_clock();
            if (now >= deadline) {
                break;
            }
            if (!counted) {
                qatomic_inc(&set->pollers);
                counted = true;
            }
            yield = plane_poll_should_yield(set, index, self, now);
        }
        if (yield) {
            g_thread_yield();
        } else {
            cpu_relax();
        }
    }
    if (counted) {
        qatomic_dec(&set->pollers);
    }
    return back;
}

/*
 * @cpu's polling record, or NULL where polling is pointless; *@index is
 * the vCPU index whose records it polls on, its own (a shared state polls
 * on its home's).
 */
static PlaneSwitchPoll *plane_poll_record(PlaneSet *set, CPUState *cpu,
                                          unsigned int *index)
{
    *index = plane_cpu_index(set, cpu);
    assert(*index < set->nr_vcpus);
    if (!set->switch_poll_ns) {
        return NULL;
    }
    /*
     * Pointless where one thread runs every state (TCG round robin): the
     * plane that is to switch this one back in runs on this very thread.
     */
    if (plane_cpu(set->planes[cpu->plane_id ? 0 : 1], *index)->thread ==
        cpu->thread) {
        return NULL;
    }
    return plane_switch_poll(set, cpu->plane_id, *index);
}

void plane_poll_announce(CPUState *cpu)
{
    PlaneSet *set = plane_set_get();
    unsigned int index;
    PlaneSwitchPoll *self = plane_poll_record(set, cpu, &index);

    assert(bql_locked());
    if (self) {
        /* Switchers take the BQL after this: they see it and do not kick */
        qatomic_set(&self->polling, true);
    }
}

bool plane_poll_switch_in(CPUState *cpu)
{
    PlaneSet *set = plane_set_get();
    unsigned int index;
    PlaneSwitchPoll *self = set ? plane_poll_record(set, cpu, &index) : NULL;
    uint64_t window;
    bool back;

    if (!self) {
        return false;
    }
    /* The ceiling until the first switch back says more */
    window = qatomic_read(&self->window_adapted) ?
             MIN(qatomic_read(&self->window_ns), set->switch_poll_ns) :
             set->switch_poll_ns;
    qatomic_set(&self->polling, true);
    /* Polling (announced already) before the first look at the switch */
    smp_mb();
    /* No window: its switches came back too late to poll for */
    back = window && plane_poll_spin(set, cpu, index, self, window);
    qatomic_set(&self->polling, false);
    if (!back) {
        /*
         * Pairs with plane_switch(): a switch from now on kicks this
         * thread.  Not needed once it saw itself switched in: no switch
         * brings it in again before it switches itself out, and the
         * barrier would wait for the line the switcher just read.
         */
        smp_mb();
        back = !cpu_plane_switched_out(cpu);
    }
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

int64_t plane_switch_last_wait(PlaneSet *set, unsigned int plane,
                               unsigned int cpu_index)
{
    assert(bql_locked());
    return plane_switch_poll(set, plane, cpu_index)->last_wait_ns;
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
