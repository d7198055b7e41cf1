/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: which plane a device belongs to, and what a plane's vCPUs
 * may do with another plane's devices.
 */

#ifndef HW_PLANES_PLANE_DEVICE_H
#define HW_PLANES_PLANE_DEVICE_H

#include "exec/memattrs.h"
#include "exec/memory.h"
#include "qapi/qapi-builtin-types.h"

/* Set once at machine init when the machine has planes > 1. */
extern bool plane_device_filter_active;

/*
 * plane_device_access: may the access in @attrs (attrs.plane: the plane
 * of the vCPU state that makes it; 0 for devices and QEMU itself) reach
 * @mr at @addr?  When it may not, the caller drops it: a read gives all
 * ones, as an absent device does, a write is lost.  The refusal is
 * counted, traced and logged (LOG_GUEST_ERROR, rate-limited) here.
 */
bool plane_device_access(MemoryRegion *mr, hwaddr addr, unsigned int size,
                         bool is_write, MemTxAttrs attrs);

static inline bool plane_device_access_allowed(MemoryRegion *mr, hwaddr addr,
                                               unsigned int size,
                                               bool is_write,
                                               MemTxAttrs attrs)
{
    return likely(!plane_device_filter_active) ||
           plane_device_access(mr, addr, size, is_write, attrs);
}

/*
 * Adds the "plane" property to every device (TYPE_DEVICE), once; called
 * from the machine class's init, before any device exists.
 */
void plane_device_class_add_property(void);

/*
 * At machine init: @device_plane is the plane of the devices given on
 * the command line without "plane" (-machine device-plane).
 */
bool plane_devices_init(MachineState *ms, unsigned int planes,
                        unsigned int device_plane, Error **errp);

/*
 * plane_devices_attach: after the board created its buses, before the
 * machine is done: the devices' planes are settled (device-plane applied,
 * placement checked, lines rewired) when the machine is done.
 */
void plane_devices_attach(void);

/*
 * plane_device_plane: the plane @dev belongs to.  A device of a plane >= 1
 * is left out of the firmware's description of the machine (ACPI), which
 * is plane 0's.
 */
unsigned int plane_device_plane(DeviceState *dev);

/* The devices that plane @plane owns, by QOM path (none for plane 0). */
strList *plane_device_paths(unsigned int plane);

#endif
