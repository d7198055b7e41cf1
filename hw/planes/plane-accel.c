/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the backend registry.  A backend is a PlaneAccelClass named
 * after its accelerator (PLANE_ACCEL_NAME("tcg"), ...); the planes core
 * finds the one of the accelerator in use and reaches the host only
 * through its hooks (include/hw/planes/plane-accel.h).
 */

#include "qemu/osdep.h"
#include "qemu/accel.h"
#include "hw/planes/plane-accel.h"

const PlaneAccelClass *plane_accel_class_get(void)
{
    const char *accel = object_get_typename(OBJECT(current_accel()));
    g_autofree char *name = g_strconcat(accel, PLANE_ACCEL_SUFFIX, NULL);
    ObjectClass *oc = object_class_by_name(name);

    return oc ? PLANE_ACCEL_CLASS(oc) : NULL;
}


static const TypeInfo plane_accel_type_info = {
    .name = TYPE_PLANE_ACCEL,
    .parent = TYPE_OBJECT,
    .abstract = true,
    .class_size = sizeof(PlaneAccelClass),
};

static void plane_accel_register_types(void)
{
    type_register_static(&plane_accel_type_info);
}

type_init(plane_accel_register_types)
