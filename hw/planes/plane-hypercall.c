/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the plane hypercall dispatcher shared by every backend, and
 * SET_MEM_ATTRS.  plane-config.c has CONFIG and ACTIVATE, plane-vtl.c the
 * VTL calls.  Each guest-supplied value is checked, once, before anything
 * is changed.
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/processor.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-hypercall.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/plane-rules.h"
#include "hw/planes/planes-abi.h"
#include "plane-dispatch.h"
#include "plane-internal.h"
#include "trace.h"

static int64_t plane_hc_set_mem_attrs(const PlaneCaller *c)
{
    PlaneSet *set = c->set;
    hwaddr gpa = c->hc->args[0];
    uint64_t size = c->hc->args[1], allow = c->hc->args[2];
    unsigned int target = c->plane - 1;
    g_autofree char *why = NULL;
    const PlaneMemAttrRange *map;
    uint32_t deny;
    PlaneLayout l;
    size_t nr;
    int err;

    if (c->plane == 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "plane 0 may not set "
                               "memory attributes");
    }
    plane_layout_describe(set, c->cpu, &l);
    err = plane_rule_mem_attrs_args(&l, gpa, size, allow, &deny, &why);
    if (err) {
        return plane_hc_refuse(c, err, "%s", why);
    }
    map = plane_mem_attrs_ranges(target, &nr);
    err = plane_rule_mem_attrs_allowed(&l, c->plane, map, nr, gpa, size,
                                       deny, &why);
    if (err) {
        return plane_hc_refuse(c, err, "%s", why);
    }
    err = plane_mem_attrs_set(set, c->cpu, target, gpa, size, deny,
                              PLANE_MEM_ATTRS_GUEST);
    if (err == -PLANES_KVM_E2BIG) {
        return plane_hc_refuse(c, PLANES_KVM_E2BIG, "the attribute map of "
                               "plane %u is full", target);
    }
    if (err) {
        return plane_hc_refuse(c, -err, "the host refused allow mask 0x%"
                               PRIx64 " for plane %u", allow, target);
    }
    return 0;
}

/* Finds the plane and the vCPU index a vCPU state runs for. */
static bool plane_caller_init(PlaneCaller *c, CPUState *cpu)
{
    PlaneSet *set = plane_set_get();

    c->set = set;
    c->cpu = cpu;
    c->plane = cpu->plane_id;
    if (!set) {
        return false;
    }
    /* A plane's shared state calls for the index whose call it serves */
    c->index = plane_served_index(set, cpu);
    return c->index < set->nr_vcpus;
}

/*
 * How often a hypercall tries for the BQL before it sleeps on it: about
 * three microseconds of spinning.  The threads of a VTL call take the BQL
 * in turn for a few hundred nanoseconds each; sleeping on it instead
 * costs a futex wake-up (tens of microseconds on a small virtualized
 * host, bench row "VTL call round trip without polling vs futex
 * handoff"), after which the scheduler tends to put the woken thread on
 * its waker's host CPU, where the two then take turns instead of running
 * side by side.
 */
#define PLANE_HC_BQL_TRIES 64

/* Takes the BQL unless held; returns whether this call took it. */
static bool plane_hypercall_bql_lock(void)
{
    if (bql_locked()) {
        return false;
    }
    for (unsigned int i = 0; i < PLANE_HC_BQL_TRIES; i++) {
        if (bql_trylock()) {
            return true;
        }
        cpu_relax();
    }
    bql_lock();
    return true;
}

static bool plane_hypercall_dispatch(const PlaneHypercall *hc, uint64_t *ret)
{
    PlaneCaller c = { .hc = hc };
    PlaneHcOutcome out = PLANE_HC_DONE;
    int64_t r;

    if (!plane_caller_init(&c, hc->cpu)) {
        *ret = -PLANES_KVM_ENOSYS;
        return false;
    }
    trace_plane_hypercall(plane_hc_name(hc->nr), hc->nr, c.plane, c.index,
                          hc->args[0], hc->args[1], hc->args[2], hc->args[3]);
    if (hc->cpl != 0) {
        r = plane_hc_refuse(&c, PLANES_KVM_EPERM, "called at CPL %d",
                            hc->cpl);
    } else {
        switch (hc->nr) {
        case PLANES_HC_CONFIG:
            r = plane_hc_config(&c);
            break;
        case PLANES_HC_ACTIVATE:
            r = plane_hc_activate(&c, &out);
            break;
        case PLANES_HC_VTL_CALL:
            r = plane_hc_vtl_call(&c, &out);
            break;
        case PLANES_HC_VTL_RETURN:
            r = plane_hc_vtl_return(&c, &out);
            break;
        case PLANES_HC_SET_MEM_ATTRS:
            r = plane_hc_set_mem_attrs(&c);
            break;
        case PLANES_HC_ENABLE_VCPU:
            r = plane_hc_enable_vcpu(&c);
            break;
        default:
            r = -PLANES_KVM_ENOSYS;     /* as stock KVM, silently */
            break;
        }
    }
    *ret = r;
    return out == PLANE_HC_SWITCHED;
}

bool plane_hypercall(const PlaneHypercall *hc, uint64_t *ret)
{
    bool took_bql = plane_hypercall_bql_lock();
    bool switched;

    /* The states it switches in are kicked once it has dropped the BQL */
    plane_switch_defer_kicks();
    switched = plane_hypercall_dispatch(hc, ret);
    if (switched && hc->polls) {
        plane_poll_announce(hc->cpu);
    }
    if (took_bql) {
        bql_unlock();
    }
    plane_switch_flush_kicks();
    return switched;
}
