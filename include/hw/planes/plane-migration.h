/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: their state in the migration stream.
 */

#ifndef HW_PLANES_PLANE_MIGRATION_H
#define HW_PLANES_PLANE_MIGRATION_H

#include "hw/planes/plane.h"

/*
 * plane_migration_init: register the "vm-planes" section of @set, which
 * has planes > 1 and whose states QEMU holds (not a host kernel's).
 * Board init, once; planes=1 streams stay stock.
 */
void plane_migration_init(PlaneSet *set);

#endif
