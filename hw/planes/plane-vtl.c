/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: VTL calls and returns (hypercalls 15 and 16), the plane
 * states that serve them, and PLANE_ENABLE_VCPU (18).
 *
 * A plane >= 1 is a uniprocessor unless it enables more states: one
 * shared state serves the VTL calls of every vCPU index, one call at a
 * time.  It is the plane's vCPU state of its home index, the boot vCPU's,
 * for the plane's whole life: a call from another index is served there
 * (that state runs for the caller's index, whose own plane-1 state never
 * runs), so its local APIC, timer and device interrupts stay with it.  A
 * call that finds it busy waits, its index switched out, until the state
 * is free.  Indexes the plane enabled with PLANE_ENABLE_VCPU have a state
 * of their own and run in parallel.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "system/runstate.h"
#include "exec/address-spaces.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/planes-abi.h"
#include "plane-dispatch.h"
#include "plane-internal.h"
#include "plane-stats.h"
#include "trace.h"

/*
 * The calling area of a VTL call.  A guest calls with the same page
 * again and again: the one that passed last on this vCPU index is taken
 * as it is while the layout it was checked against holds.
 */
static int64_t plane_check_call_area(const PlaneCaller *c, hwaddr gpa)
{
    PlaneCallAreaCheck *passed = &c->set->call_area_ok[c->index];
    g_autofree char *why = NULL;
    PlaneLayout l;
    int err;

    if (passed->valid && passed->gpa == gpa &&
        passed->gen == plane_layout_gen()) {
        return 0;
    }
    plane_layout_describe(c->set, c->cpu, &l);
    err = plane_rule_call_area(&l, gpa, &why);
    if (err) {
        return plane_hc_refuse(c, err, "%s", why);
    }
    *passed = (PlaneCallAreaCheck) {
        .valid = true, .gpa = gpa, .gen = plane_layout_gen(),
    };
    return 0;
}

/*
 * Runs @plane's state on index @index for the call pending there: the
 * caller's plane is already off the CPU or leaves it now.
 */
static void plane_enter_call(Plane *plane, unsigned int index)
{
    PlaneSet *set = plane->set;
    PlanePending *pending = &set->pending[index];
    PlaneVCPU *pv = plane->vcpus[index];

    if (pv->enabled && pv->enabled_fresh) {
        /* It first runs to its park; the call goes in there. */
        pending->call_after_park = true;
        pv->enabled_fresh = false;
    } else {
        set->accel->enter_vtl_call(plane_cpu(plane,
                                             plane_state_index(plane, index)),
                                   pending->calling_area);
    }
    pending->kind = PLANE_PENDING_VTL_CALL;
    plane_bind_states(plane);
    plane_switch(set, index, plane->id);
    if (plane->state == PLANE_STATE_PARKED) {
        plane_set_state(plane, PLANE_STATE_RUNNING);
    }
    trace_plane_vtl_call(index, pending->calling_area);
}

/* Whether plane 1 can take a VTL call now; refused with the reason if not */
static int64_t plane_vtl_call_target_ready(const PlaneCaller *c,
                                           Plane *target)
{
    PlaneSet *set = c->set;

    if (set->accel->host_switches_planes &&
        target->state == PLANE_STATE_ACTIVE) {
        /* The host serves the calls of the indexes plane 1 has a state on */
        return plane_hc_refuse(c, PLANES_KVM_EOPNOTSUPP, "the host runs "
                               "plane 1 only on its home vCPU %u (the boot "
                               "vCPU) and on vCPUs it enabled",
                               target->home);
    }
    switch (target->state) {
    case PLANE_STATE_RUNNING:
    case PLANE_STATE_PARKED:
        break;
    case PLANE_STATE_ACTIVE:
        return plane_hc_refuse(c, PLANES_KVM_EBUSY, "plane 1 is still "
                               "booting");
    default:
        return plane_hc_refuse(c, PLANES_KVM_EOPNOTSUPP, "plane 1 is %s",
                               PlaneState_str(target->state));
    }
    /* ACTIVATE boots the planes >= 2 after plane 1 has parked */
    if (set->activating) {
        return plane_hc_refuse(c, PLANES_KVM_EBUSY, "planes are still "
                               "booting");
    }
    return 0;
}

int64_t plane_hc_vtl_call(const PlaneCaller *c, PlaneHcOutcome *out)
{
    PlaneSet *set = c->set;
    Plane *target = set->planes[1];
    hwaddr ca = c->hc->args[0];
    int64_t err;

    if (c->plane != 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "only plane 0 makes VTL "
                               "calls");
    }
    err = plane_vtl_call_target_ready(c, target) ?:
          plane_check_call_area(c, ca);
    if (err) {
        return err;
    }

    plane_stats_vtl_call(set, target->id);
    set->pending[c->index] = (PlanePending) {
        .kind = PLANE_PENDING_VTL_CALL, .caller = 0, .callee = 1,
        .calling_area = ca,
    };
    *out = PLANE_HC_SWITCHED;
    if (target->vcpus[c->index]->enabled) {
        plane_enter_call(target, c->index);
        return 0;
    }
    if (target->busy) {
        /* One call at a time: this index sleeps until the state is free. */
        set->pending[c->index].kind = PLANE_PENDING_WAITING;
        set->pending[c->index].wait_seq = ++set->wait_seq;
        plane_switch_out(set, c->index);
        trace_plane_vtl_call_waits(c->index,
                                   plane_shared_state_serves(target));
        return 0;
    }
    target->busy = true;
    plane_enter_call(target, c->index);
    return 0;
}

/* The oldest VTL call that waits for @plane's shared state, if any. */
static int plane_oldest_waiter(Plane *plane)
{
    PlaneSet *set = plane->set;
    int oldest = -1;

    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        PlanePending *p = &set->pending[i];

        if (p->kind == PLANE_PENDING_WAITING && p->callee == plane->id &&
            (oldest < 0 || p->wait_seq < set->pending[oldest].wait_seq)) {
            oldest = i;
        }
    }
    return oldest;
}

/*
 * @plane's shared state is free again: the oldest waiting call gets it.
 * A waiter whose index the plane enabled meanwhile runs on its own state.
 */
static void plane_shared_state_released(Plane *plane)
{
    int next;

    plane->busy = false;
    while ((next = plane_oldest_waiter(plane)) >= 0) {
        if (!plane->vcpus[next]->enabled) {
            plane->busy = true;
            plane_enter_call(plane, next);
            return;
        }
        plane_enter_call(plane, next);
    }
}

/* @index's caller resumes from its hypercall with @ret. */
static void plane_resume_caller(PlaneSet *set, unsigned int index,
                                PlanePending *pending, int64_t ret)
{
    unsigned int caller = pending->caller, callee = pending->callee;
    CPUState *caller_cpu = plane_cpu(set->planes[caller], index);

    set->accel->set_return(caller_cpu, ret);
    plane_switch(set, index, caller);
    *pending = (PlanePending) { .kind = PLANE_PENDING_NONE };
    /* Switched out by the store above: the shared state is back home */
    plane_bind_states(set->planes[callee]);
}

PlaneHcOutcome plane_return(const PlaneCaller *c, uint64_t *ret)
{
    PlaneSet *set = c->set;
    PlanePending *pending = &set->pending[c->index];
    Plane *plane = set->planes[c->plane];
    PlaneVCPU *pv = plane->vcpus[c->index];

    trace_plane_vtl_return(c->index, c->plane, c->hc->args[0]);
    if (pending->kind == PLANE_PENDING_VTL_CALL && pending->call_after_park) {
        /* A freshly enabled state parked: its first call goes in now. */
        pending->call_after_park = false;
        *ret = pending->calling_area;
        return PLANE_HC_DONE;
    }
    if (pending->kind == PLANE_PENDING_ACTIVATE) {
        unsigned int next = c->plane + 1;

        plane->busy = false;
        if (next < set->config_count) {
            /* ACTIVATE boots the planes one after the other. */
            pending->callee = next;
            plane_boot(set, next);
            plane_bind_states(plane);
            plane_bind_states(set->planes[next]);
            plane_switch(set, c->index, next);
            plane_set_state(plane, PLANE_STATE_PARKED);
            plane_set_state(set->planes[next], PLANE_STATE_RUNNING);
            return PLANE_HC_SWITCHED;
        }
        set->activating = false;
        set->launching = false;
        plane_resume_caller(set, c->index, pending, 0);
    } else {
        plane_resume_caller(set, c->index, pending, 0);
        /* The round trip: plane 0 was switched out since its call */
        plane_stats_vtl_return(set, c->plane,
                               plane_switch_last_wait(set, 0, c->index));
        if (!pv->enabled) {
            plane_shared_state_released(plane);
        }
    }
    if (!plane_running_on(plane)) {
        plane_set_state(plane, PLANE_STATE_PARKED);
    }
    return PLANE_HC_SWITCHED;
}

int64_t plane_hc_vtl_return(const PlaneCaller *c, PlaneHcOutcome *out)
{
    PlanePending *pending = &c->set->pending[c->index];
    uint64_t ret = 0;

    if (c->plane == 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "plane 0 has no VTL "
                               "call to return from");
    }
    if (pending->kind == PLANE_PENDING_NONE ||
        pending->kind == PLANE_PENDING_WAITING ||
        pending->callee != c->plane) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "no call pending for "
                               "plane %u on vCPU %u", c->plane, c->index);
    }
    *out = plane_return(c, &ret);
    return ret;
}

PlaneParkResult plane_park(CPUState *cpu)
{
    PlaneHypercall hc = { .cpu = cpu, .nr = PLANES_HC_VTL_RETURN };
    PlaneCaller c = { .hc = &hc, .cpu = cpu, .plane = cpu->plane_id };
    PlanePending *pending;
    uint64_t ret = 0;

    BQL_LOCK_GUARD();
    c.set = plane_set_get();
    if (!c.set || !c.plane) {
        return PLANE_PARK_NONE;
    }
    c.index = plane_served_index(c.set, cpu);
    if (c.index >= c.set->nr_vcpus) {
        return PLANE_PARK_NONE;
    }
    pending = &c.set->pending[c.index];
    if (pending->kind == PLANE_PENDING_NONE ||
        pending->kind == PLANE_PENDING_WAITING ||
        pending->callee != c.plane) {
        return PLANE_PARK_NONE;
    }
    trace_plane_park_hlt(c.plane, c.index);
    if (plane_return(&c, &ret) == PLANE_HC_DONE) {
        c.set->accel->set_return(cpu, ret);
        return PLANE_PARK_RESUMED;
    }
    return PLANE_PARK_SWITCHED;
}

int64_t plane_hc_enable_vcpu(const PlaneCaller *c)
{
    PlaneSet *set = c->set;
    Plane *plane = set->planes[c->plane];
    uint64_t index = c->hc->args[0];
    hwaddr block = c->hc->args[1];
    uint8_t raw[PLANE_ENABLE_BLOCK_SIZE];
    g_autofree char *why = NULL;
    PlaneEntryRegs regs;
    PlaneLayout l;
    PlaneVCPU *pv;
    CPUState *cpu;
    int err;

    if (c->plane == 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "plane 0 has no plane "
                               "states to enable");
    }
    if (index >= set->nr_vcpus) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "vCPU index %" PRIu64
                               " (the machine has %u)", index,
                               set->nr_vcpus);
    }
    if (!plane_index_present(set, index)) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "vCPU index %" PRIu64
                               " has no CPU plugged", index);
    }
    pv = plane->vcpus[index];
    if (pv->enabled) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u already has "
                               "a state on vCPU %" PRIu64, c->plane, index);
    }
    if (index == plane->home || index == plane_shared_state_serves(plane)) {
        /* its state would start while the shared state serves its call */
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "vCPU %" PRIu64 " holds "
                               "plane %u's shared state", index, c->plane);
    }
    plane_layout_describe(set, c->cpu, &l);
    err = plane_rule_enable_block(&l, c->plane, block, &why);
    if (err) {
        return plane_hc_refuse(c, err, "%s", why);
    }
    if (address_space_read(&address_space_memory, block,
                           MEMTXATTRS_UNSPECIFIED, raw, sizeof(raw)) !=
            MEMTX_OK) {
        return plane_hc_refuse(c, PLANES_KVM_EFAULT, "register block 0x%"
                               HWADDR_PRIx " cannot be read", block);
    }
    regs = (PlaneEntryRegs) {
        .rip = ldq_le_p(raw), .rsp = ldq_le_p(raw + 8),
        .cr3 = ldq_le_p(raw + 16), .rflags = ldq_le_p(raw + 24),
        .rax = ldq_le_p(raw + 32),
    };
    cpu = plane_cpu(plane, index);
    set->accel->copy_parked_state(cpu, c->cpu);
    plane_note_state_replaced(plane, index);
    set->accel->set_entry_regs(cpu, &regs);
    pv->enabled = true;
    pv->enabled_fresh = true;
    plane_bind_states(plane);
    trace_plane_vcpu_enabled(c->plane, index, regs.rip);
    return 0;
}

/*
 * A plane >= 1 stopped for good (a triple fault): every call it serves
 * or that waits for it returns -KVM_EOPNOTSUPP, and so do later ones
 * (its state is no longer running or parked) until system reset.
 */
static void plane_stopped(Plane *plane)
{
    PlaneSet *set = plane->set;

    assert(bql_locked());
    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        PlanePending *pending = &set->pending[i];

        if (pending->kind == PLANE_PENDING_NONE) {
            continue;
        }
        if (pending->callee == plane->id ||
            (pending->kind == PLANE_PENDING_ACTIVATE &&
             pending->callee > plane->id)) {
            if (pending->kind == PLANE_PENDING_ACTIVATE) {
                set->activating = false;
            }
            if (set->launching) {
                /* plane-launch: a VM whose plane 1 failed to boot stops */
                set->launching = false;
                qemu_system_vmstop_request_prepare();
                qemu_system_vmstop_request(RUN_STATE_INTERNAL_ERROR);
            }
            plane_resume_caller(set, i, pending,
                                -(int64_t)PLANES_KVM_EOPNOTSUPP);
        }
    }
    plane->busy = false;
    plane_bind_states(plane);
    plane_set_state(plane, PLANE_STATE_STOPPED);
}

bool plane_shutdown(CPUState *cpu)
{
    PlaneSet *set = plane_set_get();
    unsigned int index;
    Plane *plane;

    if (!set || !cpu->plane_id) {
        return false;
    }
    BQL_LOCK_GUARD();
    plane = set->planes[cpu->plane_id];
    index = plane_served_index(set, cpu);
    if (plane->state != PLANE_STATE_STOPPED) {
        error_report("planes: plane %u shut down (triple fault) on vCPU %u: "
                     "it is stopped until system reset, and its VTL calls "
                     "return -%d", plane->id, index, PLANES_KVM_EOPNOTSUPP);
        plane_stopped(plane);
    }
    /* Off the CPU for good: a reset boots the plane again */
    cpu->halted = 1;
    if (qatomic_read(&set->current_plane[index]) == plane->id) {
        plane_switch_out(set, index);
    }
    return true;
}
