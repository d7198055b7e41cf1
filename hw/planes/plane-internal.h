/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: what the files of hw/planes share and backends need not see:
 * creating the plane set, its planes and their vCPU states, and handing a
 * vCPU index from one plane to another.
 */

#ifndef HW_PLANES_PLANE_INTERNAL_H
#define HW_PLANES_PLANE_INTERNAL_H

#include "hw/planes/plane.h"

/* plane-set.c: the machine's plane set; board init, once. */
PlaneSet *plane_set_new(const PlaneAccelClass *accel, unsigned int planes,
                        unsigned int nr_vcpus);

/*
 * plane-set.c: point each vCPU state of @plane at the switch word it
 * runs under: the home state at the word of the index whose call it
 * serves (plane_shared_state_serves()), an enabled state at its own
 * index's, any other at none.  After every change of the pending records
 * or enabled states that changes whom the shared state serves, before
 * the switch.
 */
void plane_bind_states(Plane *plane);

/* plane.c: plane @id of @set, a child of the set. */
Plane *plane_create(PlaneSet *set, unsigned int id, Error **errp);

/* plane-vcpu.c: the vCPU states of plane @plane >= 1, one per index. */
bool plane_create_vcpus(Plane *plane, Error **errp);
bool plane_create_vcpu(Plane *plane, unsigned int index, Error **errp);
void plane_destroy_vcpu(Plane *plane, unsigned int index);

/*
 * plane-switch.c: make plane @to the running plane of vCPU index
 * @cpu_index.
 *
 * Called with the BQL held, normally from the vCPU thread of the plane
 * that runs there now; that thread must then leave its exec loop (TCG:
 * cpu_loop_exit), after which it sleeps until its plane is switched in
 * again.  No busy waiting: the other thread is kicked.
 */
void plane_switch(PlaneSet *set, unsigned int cpu_index, unsigned int to);

/*
 * plane-switch.c: between these two, the calling thread's plane_switch()
 * calls leave their kicks to plane_switch_flush_kicks(), which the caller
 * calls once it has dropped the BQL: kicked under it, the other thread
 * would wake only to wait for it.
 */
void plane_switch_defer_kicks(void);
void plane_switch_flush_kicks(void);

/*
 * plane-switch.c: switch the state of the plane running on @cpu_index
 * out without switching another in: it waits there (PLANE_WAITING), for
 * another plane's state or, when its plane is gone, until reset.
 */
void plane_switch_out(PlaneSet *set, unsigned int cpu_index);

/*
 * plane-switch.c: how long @plane's state on @cpu_index was switched out
 * the last time, from the hand-over that switched it out to the one that
 * switched it in again (BQL held).
 */
int64_t plane_switch_last_wait(PlaneSet *set, unsigned int plane,
                               unsigned int cpu_index);

/*
 * plane-switch.c: the core overwrote the registers of @plane's vCPU state
 * on @cpu_index (BQL held, the state switched out).
 */
void plane_note_state_replaced(Plane *plane, unsigned int cpu_index);

#endif
