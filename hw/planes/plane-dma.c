/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: device DMA through its plane's view.
 *
 * Whatever a device reads or writes in guest memory, the plane it belongs
 * to could have asked it to.  So device DMA goes through an IOMMU memory
 * region that translates one to one and grants what that plane's memory
 * attributes grant, looked up per access like the vCPUs' TLB filter does:
 * one view per plane that owns devices, plane 0's for every other device.
 * PCI root buses hand each device its plane's view; fw_cfg and the ISA
 * DMA controller (plane 0's) take plane 0's from plane_device_dma_as().
 *
 * A higher plane's device must not interrupt plane 0's vCPUs: in its
 * view the interrupt message window (0xfee00000, 1 MiB) leads to the
 * plane's own message sink, which the backend delivers to the plane's
 * vCPU states (PlaneAccelClass::device_msi).
 *
 * What would get around the views is refused instead: a vIOMMU (it would
 * take the buses' DMA over), bus-level IOMMU bypass, virtio devices
 * without VIRTIO_F_IOMMU_PLATFORM (they would use address_space_memory,
 * so it is forced on), and the devices that change guest memory without
 * DMA at guest-chosen addresses (balloon, memory hot-unplug).  Mappings
 * cannot be shadowed either (VFIO, vhost's IOTLB): the attributes change
 * at any time and the region sends no notifications.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qobject/qdict.h"
#include "qemu/error-report.h"
#include "exec/address-spaces.h"
#include "hw/boards.h"
#include "hw/qdev-core.h"
#include "hw/qdev-properties.h"
#include "hw/pci/pci.h"
#include "hw/pci/pci_host.h"
#include "hw/pci/pci_bus.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-device.h"
#include "hw/planes/plane-dma.h"
#include "hw/planes/plane-memory.h"
#include "trace.h"

#define TYPE_PLANE_DMA_IOMMU_MEMORY_REGION "plane-dma-iommu-memory-region"

/* The attribute map's granule: one translation covers one page. */
#define PLANE_DMA_PAGE_MASK 0xfffULL

/* The interrupt message window, as x86's APIC_DEFAULT_ADDRESS page range */
#define PLANE_DMA_MSI_BASE 0xfee00000ULL
#define PLANE_DMA_MSI_SIZE 0x100000ULL

typedef struct PlaneDmaView {
    unsigned int plane;
    MemoryRegion root;
    IOMMUMemoryRegion iommu;
    AddressSpace as;
    /* planes >= 1: where the view's interrupt message window leads */
    MemoryRegion msi_sink;
    AddressSpace msi_as;
} PlaneDmaView;

/* Indexed by plane; plane 0's with planes > 1, the others on demand */
static PlaneDmaView **plane_dma_views;

AddressSpace *plane_device_dma_as(void)
{
    return plane_dma_views ? &plane_dma_views[0]->as : &address_space_memory;
}

/* For error messages: the views exist only with planes > 1. */
static unsigned int plane_dma_planes(void)
{
    return plane_set_get()->nr_planes;
}

/*
 * Whether guest RAM (or ROM) is at @addr.  A device's DMA that reaches
 * another device carries no plane (MemTxAttrs are the device's, plane
 * 0's), so a higher plane's device may only reach memory.  Under RCU.
 */
static bool plane_dma_is_ram(hwaddr addr)
{
    hwaddr xlat, len = 1;
    MemoryRegion *mr = flatview_translate(
        address_space_to_flatview(&address_space_memory), addr, &xlat, &len,
        false, MEMTXATTRS_UNSPECIFIED);

    return memory_region_is_ram(mr) || memory_region_is_romd(mr);
}

/* Called under RCU, like every translation: the attribute map is RCU's. */
static IOMMUTLBEntry plane_dma_translate(IOMMUMemoryRegion *iommu,
                                         hwaddr addr, IOMMUAccessFlags flag,
                                         int iommu_idx)
{
    PlaneDmaView *view = container_of(iommu, PlaneDmaView, iommu);
    uint32_t attrs;
    IOMMUTLBEntry entry = {
        .target_as = &address_space_memory,
        .iova = addr & ~PLANE_DMA_PAGE_MASK,
        .translated_addr = addr & ~PLANE_DMA_PAGE_MASK,
        .addr_mask = PLANE_DMA_PAGE_MASK,
        .perm = IOMMU_RW,
    };

    if (view->plane && addr >= PLANE_DMA_MSI_BASE &&
        addr - PLANE_DMA_MSI_BASE < PLANE_DMA_MSI_SIZE) {
        entry.target_as = &view->msi_as;
        entry.translated_addr -= PLANE_DMA_MSI_BASE;
        entry.perm = IOMMU_WO;
        return entry;
    }
    if (view->plane && !plane_dma_is_ram(addr)) {
        /* it would reach a device as plane 0's DMA does: peer-to-peer */
        entry.perm = IOMMU_NONE;
        trace_plane_dma_refused(view->plane, addr, flag, 0);
        return entry;
    }
    attrs = plane_mem_attrs_lookup(view->plane, addr);
    if (attrs & PLANE_MEM_ATTR_NO_READ) {
        entry.perm &= ~IOMMU_RO;
    }
    if (attrs & PLANE_MEM_ATTR_NO_WRITE) {
        entry.perm &= ~IOMMU_WO;
    }
    if ((flag & entry.perm) != flag) {
        trace_plane_dma_refused(view->plane, addr, flag, attrs);
    }
    return entry;
}

static int plane_dma_notify_flag_changed(IOMMUMemoryRegion *iommu,
                                         IOMMUNotifierFlag old,
                                         IOMMUNotifierFlag new, Error **errp)
{
    if (new != IOMMU_NOTIFIER_NONE) {
        error_setg(errp, "-machine planes=%u: device DMA goes through "
                   "its plane's memory attributes, which change at any "
                   "time; devices that map guest memory themselves (VFIO, "
                   "vhost with an IOTLB) are not supported with planes",
                   plane_dma_planes());
        return -EINVAL;
    }
    return 0;
}

static void plane_dma_iommu_class_init(ObjectClass *oc, void *data)
{
    IOMMUMemoryRegionClass *imrc = IOMMU_MEMORY_REGION_CLASS(oc);

    imrc->translate = plane_dma_translate;
    imrc->notify_flag_changed = plane_dma_notify_flag_changed;
}

static const TypeInfo plane_dma_iommu_info = {
    .name = TYPE_PLANE_DMA_IOMMU_MEMORY_REGION,
    .parent = TYPE_IOMMU_MEMORY_REGION,
    .class_init = plane_dma_iommu_class_init,
};

static void plane_dma_register_types(void)
{
    type_register_static(&plane_dma_iommu_info);
}

type_init(plane_dma_register_types)

/* -- which devices may come with planes ----------------------------------- */

/*
 * Devices that would reach guest memory past plane 0's view, with why.
 * Matched against the device's type and its parents.
 */
#define PLANE_DMA_WHY_VIOMMU \
    "a vIOMMU would take device DMA over from plane 0's view"
#define PLANE_DMA_WHY_BALLOON \
    "the balloon discards guest pages at addresses the guest chooses"
#define PLANE_DMA_WHY_MEMORY_DEVICE \
    "memory devices can be unplugged (discarded) under a plane's region"

static const struct {
    const char *type;
    const char *why;
} plane_dma_refused_devices[] = {
    { "x86-iommu", PLANE_DMA_WHY_VIOMMU },
    { "virtio-iommu-device", PLANE_DMA_WHY_VIOMMU },
    { "virtio-iommu-pci", PLANE_DMA_WHY_VIOMMU },
    { "virtio-balloon-device", PLANE_DMA_WHY_BALLOON },
    { "virtio-balloon-pci-base", PLANE_DMA_WHY_BALLOON },
    { "virtio-md-pci", PLANE_DMA_WHY_MEMORY_DEVICE },
    { "pc-dimm", PLANE_DMA_WHY_MEMORY_DEVICE },
    { "vfio-pci", "VFIO maps guest memory for the device, past plane 0's "
      "view" },
};

static ObjectClass *plane_dma_device_class(const char *driver)
{
    g_autofree char *pci_name = NULL;
    ObjectClass *oc = object_class_by_name(driver);

    if (oc) {
        return oc;
    }
    /* -device's aliases on x86: "virtio-balloon" is virtio-balloon-pci */
    pci_name = g_strdup_printf("%s-pci", driver);
    return object_class_by_name(pci_name);
}

static bool plane_dma_hide_device(DeviceListener *listener,
                                  const QDict *device_opts, bool from_json,
                                  Error **errp)
{
    const char *driver = qdict_get_try_str(device_opts, "driver");
    ObjectClass *oc = driver ? plane_dma_device_class(driver) : NULL;

    if (!oc) {
        return false;   /* -device's own error follows */
    }
    if (qdict_haskey(device_opts, "bypass_iommu")) {
        /* pxb and friends: their buses' DMA would skip the view */
        error_setg(errp, "-machine planes=%u: device '%s': bypass_iommu "
                   "cannot be set with planes: device DMA goes through "
                   "plane 0's view", plane_dma_planes(), driver);
        return false;
    }
    for (size_t i = 0; i < ARRAY_SIZE(plane_dma_refused_devices); i++) {
        if (object_class_dynamic_cast(oc, plane_dma_refused_devices[i].type)) {
            error_setg(errp, "-machine planes=%u: device '%s' is not "
                       "supported with planes: %s", plane_dma_planes(),
                       driver, plane_dma_refused_devices[i].why);
            return false;
        }
    }
    return false;
}

static DeviceListener plane_dma_device_listener = {
    .hide_device = plane_dma_hide_device,
};

/*
 * Without VIRTIO_F_IOMMU_PLATFORM a virtio device uses address_space_memory
 * whatever its bus says.  A guest driver that declines the feature fails
 * the device (virtio's own rule), it does not get around the view.
 */
static GlobalProperty plane_dma_virtio_props[] = {
    { "virtio-device", "iommu_platform", "on" },
};

/*
 * A device of plane view->plane wrote an interrupt message: it goes to the
 * plane, never to plane 0's interrupt controllers.  Under the BQL.
 */
static void plane_dma_msi_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned size)
{
    PlaneDmaView *view = opaque;
    PlaneSet *set = plane_set_get();
    uint64_t address = PLANE_DMA_MSI_BASE + addr;
    bool taken = set->accel->device_msi &&
                 set->accel->device_msi(set->planes[view->plane], address,
                                        val);

    trace_plane_dma_msi(view->plane, address, val, taken);
}

static const MemoryRegionOps plane_dma_msi_ops = {
    .write = plane_dma_msi_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static PlaneDmaView *plane_dma_view_new(Object *owner, unsigned int plane)
{
    PlaneDmaView *view = g_new0(PlaneDmaView, 1);
    g_autofree char *name = g_strdup_printf("plane%u-device-dma", plane);
    g_autofree char *root = g_strdup_printf("%s-root", name);

    view->plane = plane;
    memory_region_init(&view->root, owner, root, UINT64_MAX);
    memory_region_init_iommu(&view->iommu, sizeof(view->iommu),
                             TYPE_PLANE_DMA_IOMMU_MEMORY_REGION, owner, name,
                             UINT64_MAX);
    memory_region_add_subregion(&view->root, 0, MEMORY_REGION(&view->iommu));
    address_space_init(&view->as, &view->root, name);
    if (plane) {
        g_autofree char *msi = g_strdup_printf("plane%u-msi", plane);

        memory_region_init_io(&view->msi_sink, owner, &plane_dma_msi_ops,
                              view, msi, PLANE_DMA_MSI_SIZE);
        address_space_init(&view->msi_as, &view->msi_sink, msi);
    }
    return view;
}

bool plane_dma_init(MachineState *ms, unsigned int planes, Error **errp)
{
    if (planes == 1) {
        return true;
    }
    plane_dma_views = g_new0(PlaneDmaView *, planes);
    plane_dma_views[0] = plane_dma_view_new(OBJECT(ms), 0);

    for (size_t i = 0; i < ARRAY_SIZE(plane_dma_virtio_props); i++) {
        qdev_prop_register_global(&plane_dma_virtio_props[i]);
    }
    device_listener_register(&plane_dma_device_listener);
    return true;
}

/*
 * The view of the device at @devfn: its plane's.  Cold-plugged devices ask
 * at machine-done, after their plane is settled (plane_devices_attach());
 * devices of planes >= 1 cannot be hot-plugged.
 */
static AddressSpace *plane_dma_pci_address_space(PCIBus *bus, void *opaque,
                                                 int devfn)
{
    PCIDevice *dev = bus->devices[devfn];
    unsigned int plane = dev ? plane_device_plane(DEVICE(dev)) : 0;

    if (!plane_dma_views[plane]) {
        plane_dma_views[plane] = plane_dma_view_new(qdev_get_machine(),
                                                    plane);
    }
    return &plane_dma_views[plane]->as;
}

static const PCIIOMMUOps plane_dma_pci_ops = {
    .get_address_space = plane_dma_pci_address_space,
};

static int plane_dma_attach_host(Object *obj, void *opaque)
{
    Error **errp = opaque;
    PCIHostState *phb = (PCIHostState *)object_dynamic_cast(obj,
                                                        TYPE_PCI_HOST_BRIDGE);

    if (!phb || !phb->bus) {
        return 0;
    }
    if (phb->bypass_iommu) {
        error_setg(errp, "-machine planes=%u: PCI bus '%s' bypasses the "
                   "IOMMU (default-bus-bypass-iommu=on), but device DMA "
                   "must go through plane 0's view", plane_dma_planes(),
                   phb->bus->qbus.name);
        return 1;
    }
    pci_setup_iommu(phb->bus, &plane_dma_pci_ops, NULL);
    return 0;
}

bool plane_dma_attach_pci(MachineState *ms, Error **errp)
{
    if (!plane_dma_views) {
        return true;
    }
    return !object_child_foreach_recursive(OBJECT(ms), plane_dma_attach_host,
                                           errp);
}
