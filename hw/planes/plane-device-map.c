/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: each plane >= 1 has an address map of its own, in which its
 * devices sit where the plane put them, whatever plane 0 programs.
 *
 * Without it every device decodes in the machine's one memory and I/O
 * space, where plane 0 moves decoding at will: a BAR of a plane-0
 * function placed on a higher plane's BAR (the last mapped wins), the
 * PCIe host's ECAM moved (PCIEXBAR) and a plane-0 BAR put where it was,
 * PAM, SMRAM and TSEG, an I/O BAR or PMBASE on a higher plane's ports, a
 * device hot-plugged later.  The plane's accesses would reach plane 0's
 * device, which it may use.  So a vCPU state of plane p >= 1 reaches
 * memory through the plane's root (its CPU's "memory" link) and ports
 * through the plane's I/O root, each holding, in priority order:
 *
 *  2. the plane's ECAM window, fixed where the board placed the PCIe
 *     host's ECAM before any guest code ran (q35: 0xb0000000, 256 MiB):
 *     it reaches the plane's own functions and reads all ones elsewhere;
 *  1. the BARs of the plane's PCI functions, memory and I/O, where the
 *     plane placed them: pci_update_mappings() maps them into the plane's
 *     roots instead of the bus's spaces, so they are in no other plane's
 *     map either, and cannot capture another plane's accesses; and the
 *     I/O ports of the plane's ISA devices (aliases: fixed ports);
 *  0. the machine's system memory or I/O space, as every other vCPU
 *     sees it: RAM and everything else.
 *
 * Plane 0's vCPUs, device DMA and QEMU itself use the machine's spaces,
 * unchanged.  The device filter (plane-device.c) still decides every
 * access that reaches a device; this map decides which device it is.
 */

#include "qemu/osdep.h"
#include "exec/address-spaces.h"
#include "exec/memory.h"
#include "hw/boards.h"
#include "hw/isa/isa.h"
#include "hw/pci/pci.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pci_host.h"
#include "hw/pci/pcie_host.h"
#include "hw/pci-host/q35.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-device-map.h"
#include "trace.h"

/* The ECAM window's size: buses 0 to 255 */
#define PLANE_MAP_ECAM_SIZE PCIE_MMCFG_SIZE_MAX

#define PLANE_MAP_PRIO_MACHINE 0
#define PLANE_MAP_PRIO_DEVICES 1        /* as pci_update_mappings() maps */
#define PLANE_MAP_PRIO_ECAM    2

typedef struct PlaneDeviceMap {
    unsigned int plane;
    MemoryRegion root;
    MemoryRegion system_alias;
    MemoryRegion io_root;
    MemoryRegion io_alias;
    AddressSpace io_as;
    /* The plane's ECAM window; its functions, on @ecam_bus */
    MemoryRegion ecam;
    PCIBus *ecam_bus;
    GPtrArray *functions;
} PlaneDeviceMap;

/* Made under the BQL at board init, when the plane's vCPU states are */
static PlaneDeviceMap *plane_device_maps[PLANES_MAX];

static PlaneDeviceMap *plane_device_map_get(unsigned int plane)
{
    PlaneDeviceMap *map;
    g_autofree char *name = NULL, *io_name = NULL;

    assert(plane && plane < PLANES_MAX);
    if (plane_device_maps[plane]) {
        return plane_device_maps[plane];
    }
    map = g_new0(PlaneDeviceMap, 1);
    map->plane = plane;
    map->functions = g_ptr_array_new();
    name = g_strdup_printf("plane%u-memory", plane);
    io_name = g_strdup_printf("plane%u-io", plane);
    memory_region_init(&map->root, NULL, name, UINT64_MAX);
    memory_region_init_alias(&map->system_alias, NULL, "system",
                             get_system_memory(), 0, UINT64_MAX);
    memory_region_add_subregion_overlap(&map->root, 0, &map->system_alias,
                                        PLANE_MAP_PRIO_MACHINE);
    memory_region_init(&map->io_root, NULL, io_name,
                       memory_region_size(get_system_io()));
    memory_region_init_alias(&map->io_alias, NULL, "io", get_system_io(), 0,
                             memory_region_size(get_system_io()));
    memory_region_add_subregion_overlap(&map->io_root, 0, &map->io_alias,
                                        PLANE_MAP_PRIO_MACHINE);
    address_space_init(&map->io_as, &map->io_root, io_name);
    plane_device_maps[plane] = map;
    return map;
}

MemoryRegion *plane_device_map_memory(unsigned int plane)
{
    return &plane_device_map_get(plane)->root;
}

AddressSpace *plane_device_map_io_as(unsigned int plane)
{
    PlaneDeviceMap *map = plane < PLANES_MAX ? plane_device_maps[plane]
                                             : NULL;

    return map ? &map->io_as : &address_space_io;
}

/* The plane's function at @offset of its ECAM window, if any */
static PCIDevice *plane_map_ecam_function(PlaneDeviceMap *map, hwaddr offset)
{
    if (PCIE_MMCFG_BUS(offset) != pci_bus_num(map->ecam_bus)) {
        return NULL;
    }
    for (guint i = 0; i < map->functions->len; i++) {
        PCIDevice *fn = g_ptr_array_index(map->functions, i);

        if (fn->devfn == PCIE_MMCFG_DEVFN(offset)) {
            return fn;
        }
    }
    return NULL;
}

static uint64_t plane_map_ecam_read(void *opaque, hwaddr offset,
                                    unsigned size)
{
    PlaneDeviceMap *map = opaque;
    PCIDevice *fn = plane_map_ecam_function(map, offset);
    uint32_t reg = PCIE_MMCFG_CONFOFFSET(offset);

    if (!fn || reg + size > pci_config_size(fn)) {
        return MAKE_64BIT_MASK(0, size * 8);    /* no function: all ones */
    }
    return pci_host_config_read_common(fn, reg, pci_config_size(fn), size);
}

static void plane_map_ecam_write(void *opaque, hwaddr offset, uint64_t val,
                                 unsigned size)
{
    PlaneDeviceMap *map = opaque;
    PCIDevice *fn = plane_map_ecam_function(map, offset);
    uint32_t reg = PCIE_MMCFG_CONFOFFSET(offset);

    if (fn && reg + size <= pci_config_size(fn)) {
        pci_host_config_write_common(fn, reg, pci_config_size(fn), val,
                                     size);
    }
}

static const MemoryRegionOps plane_map_ecam_ops = {
    .read = plane_map_ecam_read,
    .write = plane_map_ecam_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
};

/*
 * Where the board puts @host's ECAM before any guest code runs.  q35's
 * is off until the firmware enables PCIEXBAR at its reset value, which
 * every firmware keeps (SeaBIOS, OVMF); a host whose ECAM is mapped
 * already stays where it is.  Others (microvm's, an alias that the guest
 * cannot move) get no window: the host's own ECAM serves the plane.
 */
static uint64_t plane_map_ecam_base(PCIExpressHost *host)
{
    if (object_dynamic_cast(OBJECT(host), TYPE_Q35_HOST_DEVICE)) {
        return MCH_HOST_BRIDGE_PCIEXBAR_DEFAULT;
    }
    return host->mmio.container == get_system_memory() ? host->mmio.addr
                                                      : PCIE_BASE_ADDR_UNMAPPED;
}

/*
 * The plane's ECAM window, where @host's ECAM is before the guest runs,
 * whatever plane 0 later writes to PCIEXBAR.  Made with the plane's
 * first PCI function.
 */
static void plane_map_add_ecam(PlaneDeviceMap *map, PCIExpressHost *host,
                               PCIBus *bus)
{
    g_autofree char *name = g_strdup_printf("plane%u-ecam", map->plane);
    uint64_t base = plane_map_ecam_base(host);

    if (map->ecam_bus || base == PCIE_BASE_ADDR_UNMAPPED) {
        return;
    }
    map->ecam_bus = bus;
    memory_region_init_io(&map->ecam, NULL, &plane_map_ecam_ops, map, name,
                          PLANE_MAP_ECAM_SIZE);
    memory_region_add_subregion_overlap(&map->root, base, &map->ecam,
                                        PLANE_MAP_PRIO_ECAM);
    trace_plane_device_map_ecam(map->plane, base, PLANE_MAP_ECAM_SIZE);
}

bool plane_device_map_attach_pci(PCIDevice *pdev, unsigned int plane,
                                 PCIExpressHost *host, Error **errp)
{
    PlaneDeviceMap *map = plane_device_map_get(plane);
    PCIBus *bus = pci_get_bus(pdev);

    if (map->ecam_bus && map->ecam_bus != bus) {
        error_setg(errp, "device '%s': plane=%u: the plane's PCI devices "
                   "must all sit on one PCI Express root bus, its ECAM "
                   "window's ('%s')",
                   object_get_canonical_path_component(OBJECT(pdev)), plane,
                   BUS(map->ecam_bus)->name);
        return false;
    }
    for (int i = 0; i < PCI_NUM_REGIONS; i++) {
        PCIIORegion *r = &pdev->io_regions[i];

        if (!r->size) {
            continue;
        }
        /* Unmapped until the plane places it, but move it if mapped */
        if (r->addr != PCI_BAR_UNMAPPED) {
            memory_region_del_subregion(r->address_space, r->memory);
        }
        r->address_space = r->type & PCI_BASE_ADDRESS_SPACE_IO ?
                           &map->io_root : &map->root;
        if (r->addr != PCI_BAR_UNMAPPED) {
            memory_region_add_subregion_overlap(r->address_space, r->addr,
                                                r->memory,
                                                PLANE_MAP_PRIO_DEVICES);
        }
    }
    plane_map_add_ecam(map, host, bus);
    g_ptr_array_add(map->functions, pdev);
    return true;
}

/* Aliases, in the plane's I/O root, of @dev's ports in the machine's */
static void plane_map_alias_ports(PlaneDeviceMap *map, DeviceState *dev)
{
    MemoryRegion *io = get_system_io(), *sub;

    QTAILQ_FOREACH(sub, &io->subregions, subregions_link) {
        g_autofree char *name = NULL;
        MemoryRegion *alias;

        if (sub->owner != OBJECT(dev)) {
            continue;
        }
        name = g_strdup_printf("plane%u-%s", map->plane,
                               memory_region_name(sub));
        alias = g_new0(MemoryRegion, 1);
        memory_region_init_alias(alias, NULL, name, sub, 0,
                                 memory_region_size(sub));
        memory_region_add_subregion_overlap(&map->io_root, sub->addr, alias,
                                            PLANE_MAP_PRIO_DEVICES);
        trace_plane_device_map_ports(map->plane, memory_region_name(sub),
                                     sub->addr, memory_region_size(sub));
    }
}

void plane_device_map_attach_isa(DeviceState *dev, unsigned int plane)
{
    plane_map_alias_ports(plane_device_map_get(plane), dev);
}
