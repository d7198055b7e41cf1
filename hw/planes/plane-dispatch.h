/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: what the hypercall handlers of hw/planes share among
 * themselves (backends see include/hw/planes/plane-hypercall.h only).
 */

#ifndef HW_PLANES_PLANE_DISPATCH_H
#define HW_PLANES_PLANE_DISPATCH_H

#include "hw/planes/plane.h"
#include "hw/planes/plane-hypercall.h"

/* Where a call comes from: set, calling plane, vCPU index. */
typedef struct PlaneCaller {
    PlaneSet *set;
    const PlaneHypercall *hc;
    CPUState *cpu;
    unsigned int plane;
    unsigned int index;
} PlaneCaller;

/* What a handler did with the caller's vCPU index. */
typedef enum PlaneHcOutcome {
    PLANE_HC_DONE,          /* the caller goes on with the result in RAX */
    PLANE_HC_SWITCHED,      /* the caller is switched out: it must leave */
} PlaneHcOutcome;

/*
 * plane_hc_refuse (plane-caller.c): a refused call.  Traces it, logs it
 * under -d guest_errors (rate-limited) and returns -@err for RAX.
 */
int64_t G_GNUC_PRINTF(3, 4)
plane_hc_refuse(const PlaneCaller *c, int err, const char *fmt, ...);

/* plane-caller.c: "CONFIG", "VTL_CALL", ... for traces and logs. */
const char *plane_hc_name(uint64_t nr);

/* plane-config.c: CONFIG and ACTIVATE. */
int64_t plane_hc_config(const PlaneCaller *c);
int64_t plane_hc_activate(const PlaneCaller *c, PlaneHcOutcome *out);

/* plane-vtl.c: VTL_CALL, VTL_RETURN and the hand-over around them. */
int64_t plane_hc_vtl_call(const PlaneCaller *c, PlaneHcOutcome *out);
int64_t plane_hc_vtl_return(const PlaneCaller *c, PlaneHcOutcome *out);
int64_t plane_hc_enable_vcpu(const PlaneCaller *c);

/*
 * plane-config.c: ACTIVATE's boot of plane @id on its home index, for
 * the vCPU index plane 0 waits on (PlaneSet::activate_index).
 */
void plane_boot(PlaneSet *set, unsigned int id);

/*
 * Plane 1 boots on its home index once every vCPU has left the code it
 * translated before the seal (deferred work; PlaneSet::boot_queued until
 * it has run).
 */
void plane_boot_after_seal(PlaneSet *set);

/*
 * plane_activate_start: plane 1, active and sealed, boots on vCPU index
 * @index and runs there until it parks; plane 0 waits there meanwhile
 * (in ACTIVATE, or at its reset vector for plane-launch).
 */
void plane_activate_start(PlaneSet *set, unsigned int index);

/* plane-vtl.c: the plane state's return of @c->index to its caller. */
PlaneHcOutcome plane_return(const PlaneCaller *c, uint64_t *ret);

#endif
