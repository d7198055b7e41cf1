/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: what devices see of guest memory.
 *
 * A device's DMA sees its plane's view: a page sealed against plane 0
 * refuses plane 0's devices exactly as it refuses plane 0's vCPUs, and a
 * higher plane's device reaches what its plane reaches.
 */

#ifndef HW_PLANES_PLANE_DMA_H
#define HW_PLANES_PLANE_DMA_H

#include "exec/memory.h"

/*
 * plane_device_dma_as: the address space device DMA goes through.
 *
 * With planes > 1, guest memory through plane 0's memory attributes (an
 * IOMMU memory region, so refused accesses fail with MEMTX_ERROR and the
 * device sees its own error); otherwise &address_space_memory.  For the
 * devices that pick their DMA address space themselves (fw_cfg, the ISA
 * DMA controller); PCI devices get it from their root bus.
 */
AddressSpace *plane_device_dma_as(void);

/*
 * plane_dma_init: with @planes > 1, set up plane 0's device view (other
 * planes' views come when a PCI device of theirs asks) and the
 * device policy (which devices may not come with planes).  Before the
 * board creates its devices.
 */
bool plane_dma_init(MachineState *ms, unsigned int planes, Error **errp);

/*
 * plane_dma_attach_pci: route every PCI root bus's DMA through the views,
 * each device through its plane's.
 * After the board created its buses, before devices are wired up.
 */
bool plane_dma_attach_pci(MachineState *ms, Error **errp);

#endif
