/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the fresh RAM of a plane region that lies outside guest RAM.
 *
 * CONFIG maps it, system reset (and CONFIG's roll-back) unmaps it, while
 * the guest runs.  A RAM region that disappears at run time must outlive
 * every FlatView and every in-flight access that still refers to it, and
 * QEMU only keeps a region's *owner* alive for that (memory_region_ref).
 * So each fresh region gets an owner object of its own, a PlaneRam, which
 * holds nothing but the region: unparenting it drops the plane's
 * reference, and the last FlatView to go drops the final one, which
 * frees the RAM.  (Owning the region by the plane, which lives on, and
 * unparenting the region itself freed it under the FlatViews' feet.)
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qom/object.h"
#include "exec/address-spaces.h"
#include "exec/memory.h"
#include "exec/ramblock.h"
#include "exec/target_page.h"
#include "qemu/bitmap.h"
#include "migration/misc.h"
#include "migration/vmstate.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-ram.h"
#include "trace.h"

#define TYPE_PLANE_RAM "plane-ram"
OBJECT_DECLARE_SIMPLE_TYPE(PlaneRam, PLANE_RAM)

struct PlaneRam {
    Object parent_obj;
    MemoryRegion mr;
    QTAILQ_ENTRY(PlaneRam) retired;
};

/*
 * Fresh RAM that a reset unmapped while a migration ran: its RAM block
 * stays until the migration ends, which still walks the block list.
 */
static QTAILQ_HEAD(, PlaneRam) plane_ram_retired =
    QTAILQ_HEAD_INITIALIZER(plane_ram_retired);
static NotifierWithReturn plane_ram_migration_notifier;

static const TypeInfo plane_ram_info = {
    .name = TYPE_PLANE_RAM,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(PlaneRam),
};

static void plane_ram_register_types(void)
{
    type_register_static(&plane_ram_info);
}

type_init(plane_ram_register_types)

/*
 * The RAM block's migration name.  It has a ':' and no '/': no -object id
 * (letters, digits, '-', '.', '_') and no device's RAM ("<path>/<name>")
 * can take it, so a user's memory backend never clashes with it.
 */
static char *plane_ram_block_name(Plane *plane)
{
    return g_strdup_printf("vm-planes:plane%u-ram", plane->id);
}

bool memory_region_is_plane_ram(const MemoryRegion *mr)
{
    return object_dynamic_cast(mr->owner, TYPE_PLANE_RAM);
}

bool plane_region_add_ram(Plane *plane)
{
    g_autofree char *name = plane_ram_block_name(plane);
    Error *err = NULL;
    PlaneRam *ram;

    /* also a retired block of the same plane, until its migration ends */
    if (qemu_ram_block_by_name(name)) {
        /* not reachable by the argument above; refuse rather than abort */
        warn_report("plane %u: a RAM block named '%s' exists already",
                    plane->id, name);
        return false;
    }
    ram = PLANE_RAM(object_new(TYPE_PLANE_RAM));
    /* The plane is no device: the RAM migrates by its global name. */
    if (!memory_region_init_ram_nomigrate(&ram->mr, OBJECT(ram), name,
                                          plane->region_size, &err)) {
        /* The guest learns it from the hypercall; say why once, here. */
        warn_reportf_err(err, "plane %u: cannot add RAM for its region: ",
                         plane->id);
        object_unref(OBJECT(ram));
        return false;
    }
    object_property_add_child(OBJECT(plane), "region-ram", OBJECT(ram));
    object_unref(OBJECT(ram));
    vmstate_register_ram_global(&ram->mr);
    memory_region_add_subregion(get_system_memory(), plane->region_base,
                                &ram->mr);
    plane->region_ram = OBJECT(ram);
    plane->set->ram_added += plane->region_size;
    trace_plane_region_ram_added(plane->id, plane->region_base,
                                 plane->region_size);
    return true;
}

void plane_region_ram_incoming(Plane *plane)
{
    RAMBlock *rb = PLANE_RAM(plane->region_ram)->mr.ram_block;

    /*
     * The load's RAM setup gave every block of the time a map of the pages
     * received; this one came after it, from the stream's setup phase.
     * The load's cleanup frees it with the others'.
     */
    if (!rb->receivedmap) {
        rb->receivedmap = bitmap_new(rb->max_length >>
                                     qemu_target_page_bits());
    }
}

static void plane_ram_free(PlaneRam *ram)
{
    vmstate_unregister_ram(&ram->mr, NULL);
    /* Freed once no FlatView or access holds it (see the top). */
    object_unparent(OBJECT(ram));
}

static int plane_ram_migration_ended(NotifierWithReturn *n,
                                     MigrationEvent *e, Error **errp)
{
    PlaneRam *ram, *next;

    if (e->type == MIG_EVENT_PRECOPY_SETUP) {
        return 0;
    }
    QTAILQ_FOREACH_SAFE(ram, &plane_ram_retired, retired, next) {
        QTAILQ_REMOVE(&plane_ram_retired, ram, retired);
        plane_ram_free(ram);
    }
    return 0;
}

void plane_region_remove_ram(Plane *plane)
{
    PlaneRam *ram;

    if (!plane->region_ram) {
        return;
    }
    ram = PLANE_RAM(plane->region_ram);
    memory_region_del_subregion(get_system_memory(), &ram->mr);
    if (migration_is_running()) {
        if (!plane_ram_migration_notifier.notify) {
            migration_add_notifier(&plane_ram_migration_notifier,
                                   plane_ram_migration_ended);
        }
        QTAILQ_INSERT_TAIL(&plane_ram_retired, ram, retired);
    } else {
        plane_ram_free(ram);
    }
    plane->region_ram = NULL;
    plane->set->ram_added -= plane->region_size;
    trace_plane_region_ram_removed(plane->id);
}
