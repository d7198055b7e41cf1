/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes, TCG backend for x86: TCG emulates every plane itself, so it
 * needs no host support and runs the whole feature on any machine.
 */

#include "qemu/osdep.h"
#include "hw/planes/plane-accel.h"

static void plane_accel_tcg_class_init(ObjectClass *oc, void *data)
{
    PlaneAccelClass *pac = PLANE_ACCEL_CLASS(oc);

    /* TCG has no host limit: the machine property's PLANES_MAX applies. */
    pac->thread_tag = "TCG";
}

static const TypeInfo plane_accel_tcg_type_info = {
    .name = PLANE_ACCEL_NAME("tcg"),
    .parent = TYPE_PLANE_ACCEL,
    .abstract = true,
    .class_init = plane_accel_tcg_class_init,
};

static void plane_accel_tcg_register_types(void)
{
    type_register_static(&plane_accel_tcg_type_info);
}

type_init(plane_accel_tcg_register_types)
