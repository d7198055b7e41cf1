/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the hooks hw/core/machine.c calls to give every machine type
 * the "planes" property and to create the planes at board init.
 */

#ifndef HW_PLANES_PLANE_MACHINE_H
#define HW_PLANES_PLANE_MACHINE_H

#include "hw/boards.h"

/* Adds the "planes" property to a machine class (TYPE_MACHINE). */
void machine_class_add_planes_property(ObjectClass *oc);

/*
 * Validates -machine planes=N against the machine type and accelerator and
 * creates /machine/planes; called before the board creates its CPUs.
 */
bool machine_planes_init(MachineState *ms, Error **errp);

#endif
