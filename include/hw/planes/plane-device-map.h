/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the address map of a plane >= 1, in which its own devices
 * take priority over whatever plane 0 maps (hw/planes/plane-device-map.c).
 */

#ifndef HW_PLANES_PLANE_DEVICE_MAP_H
#define HW_PLANES_PLANE_DEVICE_MAP_H

#include "exec/memory.h"
#include "hw/pci/pcie_host.h"

/*
 * plane_device_map_memory: the memory root of @plane's vCPU states (>= 1),
 * for their CPUs' "memory" link, made on first use at board init: the
 * machine's system memory beneath the plane's own devices.
 */
MemoryRegion *plane_device_map_memory(unsigned int plane);

/*
 * plane_device_map_io_as: where a vCPU state of @plane does port I/O:
 * the plane's I/O space if it has a map, else the machine's.
 */
AddressSpace *plane_device_map_io_as(unsigned int plane);

/*
 * plane_device_map_attach_pci: at machine done, @pdev (on a root bus of
 * @host) is @plane's: its BARs go into the plane's map alone, and the
 * plane's ECAM window reaches it.  Fails if the plane already has a
 * function on another root bus.
 */
bool plane_device_map_attach_pci(PCIDevice *pdev, unsigned int plane,
                                 PCIExpressHost *host, Error **errp);

/*
 * plane_device_map_attach_isa: at machine done, @dev (an ISA device with
 * fixed ports) is @plane's: its ports are the plane's, above the
 * machine's I/O space, in the plane's map.
 */
void plane_device_map_attach_isa(DeviceState *dev, unsigned int plane);

#endif
