/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the hooks hw/core/machine.c calls to give every machine type
 * the "planes" property and to create the planes at board init.
 */

#ifndef HW_PLANES_PLANE_MACHINE_H
#define HW_PLANES_PLANE_MACHINE_H

#include "qemu/units.h"
#include "hw/boards.h"
#include "qapi/qapi-types-planes.h"

/*
 * -machine planes=N,plane-ram-limit=SIZE,plane-switch-poll-ns=NS,
 *          plane-violation=stop|fault
 */
typedef struct MachinePlanesOptions {
    unsigned int planes;
    uint64_t ram_limit;
    uint64_t switch_poll_ns;
    PlaneViolationPolicy violation_policy;
    unsigned int device_plane;
} MachinePlanesOptions;

#define PLANES_RAM_LIMIT_DEFAULT (4 * GiB)
#define PLANES_SWITCH_POLL_NS_DEFAULT 50000         /* 50 us */
#define PLANES_SWITCH_POLL_NS_MAX     10000000      /* 10 ms */

/* The number of planes -machine asked for (1 without planes). */
unsigned int machine_planes_count(MachineState *ms);

/* Adds the planes properties to a machine class (TYPE_MACHINE). */
void machine_class_add_planes_property(ObjectClass *oc);

/*
 * Validates -machine planes=N against the machine type and accelerator and
 * creates /machine/planes; called before the board creates its CPUs.
 */
bool machine_planes_init(MachineState *ms, Error **errp);

/* Creates the vCPU states of planes >= 1; called once the board has CPUs. */
bool machine_planes_create_vcpus(MachineState *ms, Error **errp);

/*
 * A guest CPU plugged after board init (-device, device_add) joins the
 * planes: its plane states are created before the guest is told of it.
 */
bool machine_planes_cpu_plugged(MachineState *ms, CPUState *cpu,
                                Error **errp);

#endif
