/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the per-accelerator backend interface (TCG, KVM) behind the
 * accelerator-neutral plane core.
 */

#ifndef HW_PLANES_PLANE_ACCEL_H
#define HW_PLANES_PLANE_ACCEL_H

#include "qom/object.h"
#include "hw/boards.h"

typedef struct PlaneAccelClass PlaneAccelClass;

#define TYPE_PLANE_ACCEL "plane-accel"
/* Like ACCEL_OPS_NAME: the backend of "tcg-accel" is "tcg-accel-planes". */
#define PLANE_ACCEL_SUFFIX "-planes"
#define PLANE_ACCEL_NAME(name) (name "-accel" PLANE_ACCEL_SUFFIX)
DECLARE_CLASS_CHECKERS(PlaneAccelClass, PLANE_ACCEL, TYPE_PLANE_ACCEL)

/*
 * A backend registers a class named PLANE_ACCEL_NAME("tcg") (etc.) for the
 * accelerator it serves; an accelerator without one supports planes=1 only.
 */
struct PlaneAccelClass {
    ObjectClass parent_class;

    /* Suffix of plane vCPU thread names ("CPU 0/P1/TCG"), like the accel's. */
    const char *thread_tag;

    /*
     * check_planes: whether this host and accelerator can run @planes
     * planes on @ms; called before any vCPU is created.  Optional: without
     * it, any number up to PLANES_MAX is fine.
     */
    bool (*check_planes)(MachineState *ms, unsigned int planes, Error **errp);
};

/**
 * plane_accel_class_get: the plane backend of the current accelerator
 *
 * Returns: the backend class, or %NULL when the accelerator has none.
 */
const PlaneAccelClass *plane_accel_class_get(void);

#endif
