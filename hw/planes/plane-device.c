/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: devices belong to planes.  Every device is plane 0's unless
 * its "plane" property (or -machine device-plane, for the devices of the
 * command line) gives it to a higher plane.  What a vCPU state of plane p
 * may do with a device of plane q, decided here for every PIO and MMIO
 * access (memory_region_dispatch_read/write() ask, with MemTxAttrs.plane
 * saying whose access it is):
 *
 *  - q > p: the device is invisible to p: reads give all ones, writes are
 *    lost.  Device DMA that reaches a device and QEMU's own accesses are
 *    plane 0's (guest memory is each device's plane's: plane-dma.c).
 *  - q == p: the plane's own device.
 *  - q < p: a more privileged plane may use a lower plane's devices (its
 *    console, say), except plane 0's chipset: the interrupt controllers,
 *    timers, PCI configuration, firmware interface and reset logic decide
 *    which interrupts plane 0 gets and when, so a higher plane that
 *    programs them (as a Linux secure kernel does, finding plane 0's ACPI
 *    tables) must not reach them.  Its writes there are dropped; its reads
 *    give all ones, except the registers whose reads change nothing and
 *    that a kernel reads to calibrate its clocks: HPET, the IOAPIC's
 *    window, the ACPI PM timer and PM1 status/control.  Its own local
 *    APIC stays its own (the APIC page's register window); the MSI window
 *    behind it, which would interrupt plane 0's vCPUs, is chipset.
 *
 * PCI configuration space follows the functions' owners: plane 0 reaches
 * its functions through 0xcf8/0xcfc or ECAM and finds no other plane's
 * there (all ones: no function); a plane >= 1 reaches its own functions
 * through ECAM only, since the 0xcf8 address latch is shared state of
 * plane 0's chipset, and finds nothing else there.
 *
 * isa-serial and virtio-pci devices may be given to a plane >= 1, and
 * only on the command line (cold-plugged).  The serial port's IRQ line
 * leaves plane 0's interrupt controllers for its own plane's boot vCPU
 * state (x86 TCG: that state's LINT0).  A PCI function of a plane >= 1
 * must sit on a PCI Express root bus (ECAM); it gets its plane's DMA
 * view, whose interrupt message window leads to the plane (plane-dma.c),
 * and its INTx pin is disabled for good (PCI_COMMAND_INTX_DISABLE set
 * and read-only), because INTx is wired to plane 0's IOAPIC.  The
 * plane's firmware, not plane 0's, assigns such a function's BARs.
 *
 * Which device an access reaches is the address map's business: a
 * plane >= 1 has its own, where its devices' BARs, ports and ECAM window
 * come before anything plane 0 maps (plane-device-map.c); this file
 * decides what the access may do once there.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "hw/boards.h"
#include "hw/irq.h"
#include "hw/qdev-core.h"
#include "hw/char/serial.h"
#include "hw/pci/pci.h"
#include "hw/pci/pci_bus.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pci_host.h"
#include "hw/pci/pcie_host.h"
#include "system/system.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-device.h"
#include "hw/planes/plane-device-map.h"
#include "trace.h"

bool plane_device_filter_active;

/*
 * Devices given to a plane with "plane", to the plane's id: written under
 * the BQL before the device is realized, read under the BQL (device
 * accesses that reach plane_device_access() take it, as none of the
 * devices a plane may own does lockless I/O).  plane_devices_owned says
 * whether any device is a higher plane's.
 */
static GHashTable *plane_device_owner;
static bool plane_devices_owned;

/* Set once the machine's devices and their planes are final */
static bool plane_devices_settled;

/* Which devices can honour a plane >= 1: see the file's comment */
static bool plane_device_can_belong(Object *obj)
{
    return object_dynamic_cast(obj, "isa-serial") ||
           object_dynamic_cast(obj, "virtio-pci");
}

/* Plane 0's chipset, by QOM type (and its subtypes) */
static const char *const plane_chipset_types[] = {
    "apic-common", "ioapic-common", "pic-common", "pit-common", "hpet",
    "mc146818rtc", "ICH9-LPC", "PIIX3", "PIIX4_PM", "i8042", "i8257",
    "isa-pcspk", "port92", "fw_cfg", "pci-host-bridge", "mch",
    "x86-iommu",
};

/*
 * The QOM classes the filter asks about, resolved once at machine init: a
 * cast by type name hashes and compares strings, and a Linux secure
 * kernel that calibrates its clocks on plane 0's chipset makes some
 * 140,000 accesses that all end here.  Classes live as long as QEMU.
 */
static struct {
    ObjectClass *device;
    ObjectClass *pci_host;
    ObjectClass *pcie_host;
    ObjectClass *apic;
    ObjectClass *readable[2];   /* whose reads change nothing */
    ObjectClass *chipset[ARRAY_SIZE(plane_chipset_types)];
} plane_classes;

static void plane_device_resolve_classes(void)
{
    plane_classes.device = object_class_by_name(TYPE_DEVICE);
    plane_classes.pci_host = object_class_by_name(TYPE_PCI_HOST_BRIDGE);
    plane_classes.pcie_host = object_class_by_name(TYPE_PCIE_HOST_BRIDGE);
    plane_classes.apic = object_class_by_name("apic-common");
    plane_classes.readable[0] = object_class_by_name("hpet");
    plane_classes.readable[1] = object_class_by_name("ioapic-common");
    /* NULL for a type this build lacks: no device is of it */
    for (size_t i = 0; i < ARRAY_SIZE(plane_chipset_types); i++) {
        plane_classes.chipset[i] = object_class_by_name(plane_chipset_types[i]);
    }
}

/* What the filter needs to know of an object's class; never 0 */
typedef enum PlaneClassKind {
    PLANE_CLASS_NOT_DEVICE = 1,
    PLANE_CLASS_DEVICE,             /* not the chipset */
    PLANE_CLASS_CHIPSET,            /* neither reads nor writes */
    PLANE_CLASS_CHIPSET_APIC,
    PLANE_CLASS_CHIPSET_READABLE,   /* but for the ACPI registers' names */
    PLANE_CLASS_PCI_HOST,           /* chipset, and config space windows */
    PLANE_CLASS_PCIE_HOST,          /* the same, with ECAM */
} PlaneClassKind;

#define PLANE_CLASS_KIND_MASK 7

static PlaneClassKind plane_class_kind_of(ObjectClass *cls)
{
    PlaneClassKind kind = PLANE_CLASS_NOT_DEVICE;
    bool chipset = false;

    /* From the class up to TYPE_OBJECT: the most derived match counts */
    for (ObjectClass *oc = cls; oc; oc = object_class_get_parent(oc)) {
        for (size_t i = 0; i < ARRAY_SIZE(plane_classes.chipset); i++) {
            chipset |= plane_classes.chipset[i] &&
                       oc == plane_classes.chipset[i];
        }
        if (oc == plane_classes.pcie_host) {
            return PLANE_CLASS_PCIE_HOST;
        } else if (oc == plane_classes.pci_host) {
            return PLANE_CLASS_PCI_HOST;
        } else if (oc == plane_classes.apic) {
            return PLANE_CLASS_CHIPSET_APIC;
        } else if (oc == plane_classes.readable[0] ||
                   oc == plane_classes.readable[1]) {
            return PLANE_CLASS_CHIPSET_READABLE;
        } else if (oc == plane_classes.device) {
            kind = chipset ? PLANE_CLASS_CHIPSET : PLANE_CLASS_DEVICE;
        }
    }
    return kind;
}

/*
 * Known kinds, by class: open addressing over words that hold the class
 * pointer (16-byte aligned, as g_malloc returns it) or'ed with its kind,
 * 0 when free.  Lock-free, since not every access comes with the BQL; a
 * class never goes away, so an entry never goes stale.
 */
#define PLANE_CLASS_CACHE_SIZE 256
static uintptr_t plane_class_cache[PLANE_CLASS_CACHE_SIZE];

static PlaneClassKind plane_object_kind(Object *obj)
{
    ObjectClass *cls = object_get_class(obj);
    uintptr_t key = (uintptr_t)cls, word;
    unsigned int slot = (key >> 4) % PLANE_CLASS_CACHE_SIZE;
    PlaneClassKind kind;

    if (key & PLANE_CLASS_KIND_MASK) {
        return plane_class_kind_of(cls);    /* not aligned: uncached */
    }
    for (unsigned int n = 0; n < PLANE_CLASS_CACHE_SIZE; n++) {
        word = qatomic_read(&plane_class_cache[slot]);
        if ((word & ~(uintptr_t)PLANE_CLASS_KIND_MASK) == key) {
            return word & PLANE_CLASS_KIND_MASK;
        }
        if (!word) {
            kind = plane_class_kind_of(cls);
            /* Lost to another thread: it stored this class or another */
            qatomic_cmpxchg(&plane_class_cache[slot], 0, key | kind);
            return kind;
        }
        slot = (slot + 1) % PLANE_CLASS_CACHE_SIZE;
    }
    return plane_class_kind_of(cls);        /* full: uncached */
}

typedef enum PlaneChipsetAccess {
    PLANE_CHIPSET_NONE,         /* not the chipset */
    PLANE_CHIPSET_REFUSED,      /* neither reads nor writes */
    PLANE_CHIPSET_READABLE,     /* reads change nothing: reads only */
    PLANE_CHIPSET_OWN_APIC,     /* the accessing state's own local APIC */
} PlaneChipsetAccess;

static PlaneChipsetAccess plane_chipset_access(Object *dev, MemoryRegion *mr,
                                               hwaddr addr)
{
    const char *name;

    switch (dev ? plane_object_kind(dev) : PLANE_CLASS_NOT_DEVICE) {
    case PLANE_CLASS_CHIPSET_APIC:
        /*
         * apic_mem_read/write() act on the accessing vCPU's own APIC for
         * the register window; offset 0 and beyond the page are MSIs to
         * plane 0's APICs.
         */
        return addr >= 0x10 && addr < 0x1000 ? PLANE_CHIPSET_OWN_APIC
                                             : PLANE_CHIPSET_REFUSED;
    case PLANE_CLASS_CHIPSET_READABLE:
        return PLANE_CHIPSET_READABLE;
    case PLANE_CLASS_CHIPSET:
    case PLANE_CLASS_PCI_HOST:
    case PLANE_CLASS_PCIE_HOST:
        name = memory_region_name(mr);
        return !g_strcmp0(name, "acpi-tmr") || !g_strcmp0(name, "acpi-evt") ||
               !g_strcmp0(name, "acpi-cnt") ? PLANE_CHIPSET_READABLE
                                            : PLANE_CHIPSET_REFUSED;
    default:
        return PLANE_CHIPSET_NONE;
    }
}

/* The device behind @mr and the plane it belongs to */
static unsigned int plane_device_of(MemoryRegion *mr, Object **dev)
{
    *dev = NULL;
    for (Object *obj = mr->owner; obj; obj = obj->parent) {
        gpointer plane;

        if (plane_object_kind(obj) == PLANE_CLASS_NOT_DEVICE) {
            continue;
        }
        if (!*dev) {
            *dev = obj;
        }
        if (plane_devices_owned &&
            g_hash_table_lookup_extended(plane_device_owner, obj, NULL,
                                         &plane)) {
            return GPOINTER_TO_UINT(plane);
        }
    }
    return 0;
}

static void plane_device_dropped(unsigned int plane, Object *dev,
                                 MemoryRegion *mr, hwaddr addr,
                                 bool is_write)
{
    PlaneSet *set = plane_set_get();
    uint64_t n = 1;

    if (set && plane < set->nr_planes) {
        n = qatomic_fetch_inc(&set->planes[plane]->device_accesses_dropped) +
            1;
    }
    trace_plane_device_dropped(plane, memory_region_name(mr), addr,
                               is_write);
    /* The first few, then at each power of two */
    if (n <= 8 || !(n & (n - 1))) {
        qemu_log_mask(LOG_GUEST_ERROR, "planes: plane %u %s %s at 0x%"
                      HWADDR_PRIx " (%s) dropped: not the plane's device "
                      "(%" PRIu64 " so far)\n", plane,
                      is_write ? "write to" : "read of",
                      memory_region_name(mr), addr,
                      dev ? object_get_typename(dev) : "no device", n);
    }
}

/*
 * Is @mr a PCI host's configuration data window (0xcfc) or its ECAM?  If
 * so, *@fn is the function the access at @addr reaches (%NULL: none).
 */
static bool plane_pci_config_window(Object *dev, MemoryRegion *mr,
                                    hwaddr addr, bool *ecam, PCIDevice **fn)
{
    PlaneClassKind kind = plane_object_kind(dev);
    PCIHostState *phb = kind == PLANE_CLASS_PCI_HOST ||
                        kind == PLANE_CLASS_PCIE_HOST ? (PCIHostState *)dev
                                                      : NULL;
    PCIExpressHost *pcie = kind == PLANE_CLASS_PCIE_HOST ?
                           (PCIExpressHost *)dev : NULL;

    *fn = NULL;
    if (!phb || !phb->bus) {
        return false;
    }
    if (pcie && mr == &pcie->mmio) {
        *ecam = true;
        *fn = pci_find_device(phb->bus, PCIE_MMCFG_BUS(addr),
                              PCIE_MMCFG_DEVFN(addr));
        return true;
    }
    if (mr == &phb->data_mem) {
        uint32_t config_reg = phb->config_reg;

        *ecam = false;
        if (config_reg & (1U << 31)) {
            *fn = pci_find_device(phb->bus, (config_reg >> 16) & 0xff,
                                  (config_reg >> 8) & 0xff);
        }
        return true;
    }
    return false;
}

bool plane_device_access(MemoryRegion *mr, hwaddr addr, unsigned int size,
                         bool is_write, MemTxAttrs attrs)
{
    unsigned int plane = attrs.plane, owner;
    bool ecam;
    PCIDevice *fn;
    Object *dev;

    if (!plane && !plane_devices_owned) {
        return true;            /* plane 0 owns every device */
    }
    owner = plane_device_of(mr, &dev);
    if (dev && plane_pci_config_window(dev, mr, addr, &ecam, &fn)) {
        unsigned int fn_plane = fn ? plane_device_plane(DEVICE(fn)) : 0;

        if (fn_plane == plane && (ecam || !plane)) {
            return true;
        }
        plane_device_dropped(plane, dev, mr, addr, is_write);
        return false;
    }
    if (owner == plane) {
        return true;
    }
    if (owner < plane) {
        switch (plane_chipset_access(dev, mr, addr)) {
        case PLANE_CHIPSET_NONE:
        case PLANE_CHIPSET_OWN_APIC:
            return true;
        case PLANE_CHIPSET_READABLE:
            if (!is_write) {
                return true;
            }
            break;
        case PLANE_CHIPSET_REFUSED:
            break;
        }
    }
    plane_device_dropped(plane, dev, mr, addr, is_write);
    return false;
}

unsigned int plane_device_plane(DeviceState *dev)
{
    gpointer plane = NULL;

    if (plane_devices_owned) {
        g_hash_table_lookup_extended(plane_device_owner, dev, NULL, &plane);
    }
    return GPOINTER_TO_UINT(plane);
}

static void plane_device_get(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    gpointer plane = NULL;
    uint8_t value;

    if (plane_device_owner) {
        g_hash_table_lookup_extended(plane_device_owner, obj, NULL, &plane);
    }
    value = GPOINTER_TO_UINT(plane);
    visit_type_uint8(v, name, &value, errp);
}

/*
 * Where the host switches planes, every exit comes on plane 0's vCPU with
 * nothing to say which plane made the access, so QEMU cannot keep a
 * device to a plane >= 1.
 */
static bool plane_device_host_can_own(const char *why, unsigned int plane,
                                      Error **errp)
{
    const PlaneAccelClass *pac = plane_accel_class_get();

    if (pac && pac->host_switches_planes) {
        error_setg(errp, "%s%u: the host kernel switches planes under this "
                   "accelerator and does not say which plane an I/O exit "
                   "comes from, so devices stay plane 0's; use -accel tcg "
                   "for devices of plane %u", why, plane, plane);
        return false;
    }
    return true;
}

/* Checks and records that @obj belongs to @plane */
static bool plane_device_set_owner(Object *obj, unsigned int plane,
                                   const char *why, Error **errp)
{
    /* Board init made the set before any device: none, no planes >= 1 */
    PlaneSet *set = plane_set_get();
    unsigned int planes = set ? set->nr_planes : 1;

    if (plane >= planes) {
        error_setg(errp, "%s%u: the machine has no plane %u (-machine "
                   "planes=%u: planes 0 to %u)", why, plane, plane, planes,
                   planes - 1);
        return false;
    }
    if (plane && !plane_device_host_can_own(why, plane, errp)) {
        return false;
    }
    if (plane && !plane_device_can_belong(obj)) {
        error_setg(errp, "%s%u: a %s device cannot belong to a plane other "
                   "than 0 (only isa-serial and virtio-pci devices can)",
                   why, plane, object_get_typename(obj));
        return false;
    }
    if (plane && plane_devices_settled) {
        error_setg(errp, "%s%u: only devices of the command line can belong "
                   "to a plane other than 0; a hot-plugged device is plane "
                   "0's", why, plane);
        return false;
    }
    if (!plane_device_owner) {
        plane_device_owner = g_hash_table_new(NULL, NULL);
    }
    g_hash_table_insert(plane_device_owner, obj, GUINT_TO_POINTER(plane));
    plane_devices_owned |= plane != 0;
    return true;
}

static void plane_device_set(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    uint8_t value;

    if (DEVICE(obj)->realized) {
        error_setg(errp, "plane: a realized device cannot change planes");
        return;
    }
    if (!visit_type_uint8(v, name, &value, errp)) {
        return;
    }
    plane_device_set_owner(obj, value, "plane=", errp);
}

void plane_device_class_add_property(void)
{
    ObjectClass *oc = object_class_by_name(TYPE_DEVICE);

    /*
     * On TYPE_DEVICE itself: QOM looks up class properties along the
     * class chain, so every device has it, without a field in DeviceState.
     */
    if (object_class_property_find(oc, "plane")) {
        return;
    }
    object_class_property_add(oc, "plane", "uint8", plane_device_get,
                              plane_device_set, NULL, NULL);
    object_class_property_set_description(oc, "plane",
        "The VM plane this device belongs to (default 0, or -machine "
        "device-plane for devices of the command line); planes below it "
        "do not see it");
}

/*
 * The devices of the command line (the peripheral containers' children)
 * that chose no plane get -machine device-plane's.
 */
static int plane_device_apply_default(Object *child, void *opaque)
{
    unsigned int device_plane = *(unsigned int *)opaque;
    g_autofree char *why = NULL;
    Error *err = NULL;

    if (!object_dynamic_cast(child, TYPE_DEVICE) ||
        (plane_device_owner &&
         g_hash_table_contains(plane_device_owner, child))) {
        return 0;
    }
    why = g_strdup_printf("device '%s': -machine device-plane=",
                          object_get_canonical_path_component(child));
    if (!plane_device_set_owner(child, device_plane, why, &err)) {
        error_report_err(err);
        exit(1);
    }
    return 0;
}

/*
 * A device of plane k >= 1 interrupts plane k alone: its line goes to the
 * plane's boot state, on its home index whichever index it serves,
 * through the backend (see PlaneAccelClass::device_irq).  Under the BQL.
 */
static void plane_device_irq(void *opaque, int n, int level)
{
    Plane *plane = opaque;
    PlaneSet *set = plane->set;
    CPUState *cpu = plane_cpu(plane, plane->home);

    trace_plane_device_irq(plane->id, plane->home, level);
    if (cpu) {
        set->accel->device_irq(cpu, level);
    }
}

/*
 * A higher plane's serial port must not interrupt plane 0: its IRQ line
 * into plane 0's interrupt controllers goes to its own plane where the
 * backend can deliver there, else nowhere (the plane polls the device, as
 * Linux's earlycon does).
 */
static void plane_device_rewire_serial(Object *obj, unsigned int plane)
{
    PlaneSet *set = plane_set_get();
    Object *serial = object_resolve_path_component(obj, "serial");

    if (serial && object_dynamic_cast(serial, TYPE_SERIAL)) {
        SERIAL(serial)->irq = set->accel->device_irq ?
            qemu_allocate_irq(plane_device_irq, set->planes[plane], 0) : NULL;
    }
}

/*
 * A higher plane's PCI function: on a root bus with ECAM, which the plane
 * reaches, and with INTx (plane 0's IOAPIC pins) off for good.  Its DMA
 * view is plane_dma_pci_address_space()'s, asked after this.
 */
static bool plane_device_attach_pci(PCIDevice *pdev, unsigned int plane,
                                    Error **errp)
{
    PCIBus *bus = pci_get_bus(pdev);
    BusState *qbus = BUS(bus);

    if (!pci_bus_is_root(bus) ||
        !object_dynamic_cast(OBJECT(qbus->parent), TYPE_PCIE_HOST_BRIDGE)) {
        error_setg(errp, "device '%s': plane=%u: a PCI device of a plane "
                   "other than 0 must sit on a PCI Express root bus (q35's "
                   "pcie.0), not on '%s': its plane reaches its "
                   "configuration space through ECAM only",
                   object_get_canonical_path_component(OBJECT(pdev)), plane,
                   qbus->name);
        return false;
    }
    pci_word_test_and_set_mask(pdev->config + PCI_COMMAND,
                               PCI_COMMAND_INTX_DISABLE);
    pci_word_test_and_clear_mask(pdev->wmask + PCI_COMMAND,
                                 PCI_COMMAND_INTX_DISABLE);
    return plane_device_map_attach_pci(pdev, plane,
                                       PCIE_HOST_BRIDGE(qbus->parent), errp);
}

static unsigned int plane_device_default;

static void plane_devices_machine_ready(Notifier *notifier, void *data)
{
    static const char *const containers[] = {
        "/machine/peripheral", "/machine/peripheral-anon",
    };
    GHashTableIter iter;
    gpointer key, value;

    for (size_t i = 0; plane_device_default && i < ARRAY_SIZE(containers);
         i++) {
        Object *c = object_resolve_path(containers[i], NULL);

        if (c) {
            object_child_foreach(c, plane_device_apply_default,
                                 &plane_device_default);
        }
    }
    plane_devices_settled = true;
    if (!plane_device_owner) {
        return;
    }
    g_hash_table_iter_init(&iter, plane_device_owner);
    while (g_hash_table_iter_next(&iter, &key, &value)) {
        unsigned int plane = GPOINTER_TO_UINT(value);
        Error *err = NULL;

        if (!plane) {
            continue;
        }
        if (object_dynamic_cast(key, "isa-serial")) {
            plane_device_rewire_serial(key, plane);
            plane_device_map_attach_isa(DEVICE(key), plane);
        } else if (object_dynamic_cast(key, TYPE_PCI_DEVICE) &&
                   !plane_device_attach_pci(PCI_DEVICE(key), plane, &err)) {
            error_report_err(err);
            exit(1);
        }
    }
}

static Notifier plane_devices_ready_notifier = {
    .notify = plane_devices_machine_ready,
};

bool plane_devices_init(MachineState *ms, unsigned int planes,
                        unsigned int device_plane, Error **errp)
{
    if (device_plane >= planes) {
        error_setg(errp, "-machine device-plane=%u: the machine has no "
                   "plane %u (planes=%u: planes 0 to %u)", device_plane,
                   device_plane, planes, planes - 1);
        return false;
    }
    if (device_plane &&
        !plane_device_host_can_own("-machine device-plane=", device_plane,
                                   errp)) {
        return false;
    }
    plane_device_default = device_plane;
    plane_device_resolve_classes();
    plane_device_filter_active = planes > 1;
    return true;
}

void plane_devices_attach(void)
{
    /*
     * Machine-done notifiers run newest first: registered after the board
     * created its PCI buses, this one settles the devices' planes before
     * the buses hand their devices DMA views (pcibus_machine_done()).
     */
    qemu_add_machine_init_done_notifier(&plane_devices_ready_notifier);
}

typedef struct PlaneDevicePaths {
    unsigned int plane;
    GPtrArray *paths;
} PlaneDevicePaths;

static void plane_device_path_collect(gpointer key, gpointer value,
                                      gpointer opaque)
{
    PlaneDevicePaths *q = opaque;

    if (GPOINTER_TO_UINT(value) == q->plane && DEVICE(key)->realized) {
        g_ptr_array_add(q->paths, object_get_canonical_path(key));
    }
}

static gint plane_device_path_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Sorted by path: the hash table's order differs between two QEMUs with
 * the same devices (a migration's source and destination compare lists).
 */
strList *plane_device_paths(unsigned int plane)
{
    g_autoptr(GPtrArray) paths = g_ptr_array_new();
    PlaneDevicePaths q = { plane, paths };
    strList *head = NULL, **tail = &head;

    if (plane && plane_device_owner) {
        g_hash_table_foreach(plane_device_owner, plane_device_path_collect,
                             &q);
    }
    g_ptr_array_sort(paths, plane_device_path_cmp);
    for (guint i = 0; i < paths->len; i++) {
        QAPI_LIST_APPEND(tail, (char *)g_ptr_array_index(paths, i));
    }
    return head;
}
