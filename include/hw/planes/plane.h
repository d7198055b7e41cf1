/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: one virtual machine, several sets of vCPU state (privilege
 * levels such as Hyper-V VTLs or SEV-SNP VMPLs) on each vCPU index.
 */

#ifndef HW_PLANES_PLANE_H
#define HW_PLANES_PLANE_H

#include "qom/object.h"
#include "qemu/thread.h"
#include "hw/resettable.h"
#include "qapi/qapi-types-planes.h"

/* Plane ids fit the kernel's u16 plane bitmaps; KVM_MAX_PLANES is 16. */
#define PLANES_MAX 16

#define TYPE_PLANE "plane"
OBJECT_DECLARE_SIMPLE_TYPE(Plane, PLANE)

#define TYPE_PLANE_VCPU "plane-vcpu"
OBJECT_DECLARE_SIMPLE_TYPE(PlaneVCPU, PLANE_VCPU)

#define TYPE_PLANE_SET "plane-set"
OBJECT_DECLARE_SIMPLE_TYPE(PlaneSet, PLANE_SET)

typedef struct PlaneAccelClass PlaneAccelClass;

/*
 * PlaneVCPU: the state of one plane >= 1 on one vCPU index.  It is not a
 * guest CPU of its own: it never appears in the global CPU list, so
 * query-cpus-fast, -smp accounting, ACPI and CPU hotplug do not see it.
 */
struct PlaneVCPU {
    Object parent_obj;

    Plane *plane;
    unsigned int cpu_index;
    QemuThread thread;
    int thread_id;
    /* Set under PlaneSet::lock; the thread leaves its loop when it is. */
    bool exit_requested;
    bool thread_started;
    /* Signalled under PlaneSet::lock when this vCPU's turn may have come. */
    QemuCond turn_cond;
    QemuSemaphore created_sem;
};

struct Plane {
    Object parent_obj;

    PlaneSet *set;
    unsigned int id;
    PlaneState state;
    uint64_t region_base;
    uint64_t region_size;
    uint64_t entry_point;
    /* Planes >= 1 only: one PlaneVCPU per vCPU index, owned as children. */
    PlaneVCPU **vcpus;
};

/*
 * PlaneSet: the machine's planes.  Its canonical path is /machine/plane-set;
 * the machine's "planes" property resolves to it too, so /machine/planes/
 * plane[N] works as a path.  Created at board init, lives until exit.
 */
struct PlaneSet {
    Object parent_obj;

    const PlaneAccelClass *accel;
    unsigned int nr_planes;
    unsigned int nr_vcpus;
    Plane **planes;
    /*
     * lock covers current_plane[], every PlaneVCPU::exit_requested and the
     * hand-over between planes on a vCPU index; it is never held while a
     * plane executes guest code.
     */
    QemuMutex lock;
    /* current_plane[i]: the plane that runs on vCPU index i (initially 0). */
    unsigned int *current_plane;
    ResettableState reset_state;
};

/**
 * plane_set_get: the machine's plane set
 *
 * Returns: the plane set of the current machine, or %NULL for a machine
 * without planes support (e.g. -machine none).
 */
PlaneSet *plane_set_get(void);

/**
 * plane_set_state: move @plane to @new_state and emit PLANE_STATE_CHANGED.
 *
 * Returns: %false, leaving the state unchanged, when the lifecycle does not
 * allow the transition (see docs/system/i386/planes.rst).
 */
bool plane_set_state(Plane *plane, PlaneState new_state);

/**
 * plane_is_current: whether @plane is the plane running on @cpu_index.
 */
bool plane_is_current(Plane *plane, unsigned int cpu_index);

/* Internal to hw/planes: creation and teardown of planes and vCPUs. */
Plane *plane_create(PlaneSet *set, unsigned int id, Error **errp);
bool plane_vcpu_start(PlaneVCPU *pv, Error **errp);
void plane_vcpu_stop(PlaneVCPU *pv);
void plane_reset(Plane *plane);

#endif
