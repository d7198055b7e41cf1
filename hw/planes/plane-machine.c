/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the "planes" machine properties and the machine's plane set
 * (/machine/plane-set), created at board init and torn down at exit.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qobject/qnum.h"
#include "qobject/qstring.h"
#include "qemu/cutils.h"
#include "qemu/main-loop.h"
#include "system/reset.h"
#include "system/system.h"
#include "hw/boards.h"
#include "hw/resettable.h"
#include "hw/qdev-core.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-machine.h"
#include "hw/planes/plane-dma.h"
#include "hw/planes/plane-device.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/plane-migration.h"
#include "hw/planes/plane-ram.h"
#include "hw/planes/plane-hypercall.h"
#include "hw/planes/plane-launch.h"
#include "hw/planes/plane-measure.h"
#include "plane-internal.h"
#include "plane-stats.h"
#include "hw/core/cpu.h"
#include "qemu/accel.h"
#include "migration/blocker.h"
#include "trace.h"

bool plane_hypercalls_enabled;

static MachinePlanesOptions *machine_planes_options(MachineState *ms)
{
    if (!ms->planes_opts) {
        ms->planes_opts = g_new0(MachinePlanesOptions, 1);
        ms->planes_opts->planes = 1;
        ms->planes_opts->ram_limit = PLANES_RAM_LIMIT_DEFAULT;
        ms->planes_opts->switch_poll_ns = PLANES_SWITCH_POLL_NS_DEFAULT;
        ms->planes_opts->violation_policy = PLANE_VIOLATION_POLICY_STOP;
    }
    return ms->planes_opts;
}

unsigned int machine_planes_count(MachineState *ms)
{
    return machine_planes_options(ms)->planes;
}

/*
 * -machine options arrive as strings, other callers pass numbers: take
 * either, so that every bad value is reported with its own spelling.
 * Returns false when the visit failed (*@errp set); otherwise *@valid says
 * whether *@spelling is an integer, stored in *@value.
 */
static bool machine_planes_visit_int(Visitor *v, const char *name,
                                     char **spelling, int64_t *value,
                                     bool *valid, Error **errp)
{
    QObject *qobj = NULL;

    *spelling = NULL;
    *valid = false;
    if (!visit_type_any(v, name, &qobj, errp)) {
        return false;
    }
    if (qobject_type(qobj) == QTYPE_QSTRING) {
        *spelling = g_strdup(qstring_get_str(qobject_to(QString, qobj)));
        *valid = qemu_strtoi64(*spelling, NULL, 10, value) == 0;
    } else if (qobject_type(qobj) == QTYPE_QNUM) {
        QNum *qnum = qobject_to(QNum, qobj);

        *spelling = qnum_to_string(qnum);
        *valid = qnum_get_try_int(qnum, value);
    }
    qobject_unref(qobj);
    return true;
}

static void machine_set_planes(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    g_autofree char *spelling = NULL;
    int64_t value = -1;
    bool valid;

    if (!machine_planes_visit_int(v, name, &spelling, &value, &valid,
                                  errp)) {
        return;
    }
    if (!valid || value < 1 || value > PLANES_MAX) {
        error_setg(errp, "-machine planes=%s: the number of planes must be "
                   "an integer from 1 to %d", spelling ?: "?", PLANES_MAX);
        return;
    }
    machine_planes_options(MACHINE(obj))->planes = value;
    if (value > 1) {
        /* VM planes under KVM need the split irqchip: make it the default */
        object_register_sugar_prop("kvm-accel", "kernel-irqchip", "split",
                                   true);
    }
}

static void machine_set_device_plane(Object *obj, Visitor *v,
                                     const char *name, void *opaque,
                                     Error **errp)
{
    g_autofree char *spelling = NULL;
    int64_t value = -1;
    bool valid;

    if (!machine_planes_visit_int(v, name, &spelling, &value, &valid,
                                  errp)) {
        return;
    }
    /* Checked against planes at machine init, when both are known */
    if (!valid || value < 0 || value >= PLANES_MAX) {
        error_setg(errp, "-machine device-plane=%s: must be a plane id from "
                   "0 to %d", spelling ?: "?", PLANES_MAX - 1);
        return;
    }
    machine_planes_options(MACHINE(obj))->device_plane = value;
}

static void machine_get_device_plane(Object *obj, Visitor *v,
                                     const char *name, void *opaque,
                                     Error **errp)
{
    int64_t value = machine_planes_options(MACHINE(obj))->device_plane;

    visit_type_int(v, name, &value, errp);
}

static void machine_get_planes(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    int64_t value = machine_planes_options(MACHINE(obj))->planes;

    visit_type_int(v, name, &value, errp);
}

static void machine_get_plane_ram_limit(Object *obj, Visitor *v,
                                        const char *name, void *opaque,
                                        Error **errp)
{
    uint64_t value = machine_planes_options(MACHINE(obj))->ram_limit;

    visit_type_size(v, name, &value, errp);
}

static void machine_set_plane_ram_limit(Object *obj, Visitor *v,
                                        const char *name, void *opaque,
                                        Error **errp)
{
    uint64_t value;

    if (!visit_type_size(v, name, &value, errp)) {
        return;
    }
    if (value & (qemu_real_host_page_size() - 1)) {
        error_setg(errp, "-machine plane-ram-limit=%" PRIu64 ": must be a "
                   "multiple of the page size (%zu)", value,
                   qemu_real_host_page_size());
        return;
    }
    machine_planes_options(MACHINE(obj))->ram_limit = value;
}

static void machine_get_plane_switch_poll_ns(Object *obj, Visitor *v,
                                             const char *name, void *opaque,
                                             Error **errp)
{
    int64_t value = machine_planes_options(MACHINE(obj))->switch_poll_ns;

    visit_type_int(v, name, &value, errp);
}

static void machine_set_plane_switch_poll_ns(Object *obj, Visitor *v,
                                             const char *name, void *opaque,
                                             Error **errp)
{
    g_autofree char *spelling = NULL;
    int64_t value = -1;
    bool valid;

    if (!machine_planes_visit_int(v, name, &spelling, &value, &valid,
                                  errp)) {
        return;
    }
    if (!valid || value < 0 || value > PLANES_SWITCH_POLL_NS_MAX) {
        error_setg(errp, "-machine plane-switch-poll-ns=%s: must be an "
                   "integer from 0 to %d (nanoseconds)", spelling ?: "?",
                   PLANES_SWITCH_POLL_NS_MAX);
        return;
    }
    machine_planes_options(MACHINE(obj))->switch_poll_ns = value;
}

static int machine_get_plane_violation(Object *obj, Error **errp)
{
    return machine_planes_options(MACHINE(obj))->violation_policy;
}

static void machine_set_plane_violation(Object *obj, int value, Error **errp)
{
    machine_planes_options(MACHINE(obj))->violation_policy = value;
}

/*
 * The property's name is also a QOM path component: /machine/planes
 * resolves to the plane set, whose canonical home is /machine/plane-set
 * (a child cannot share the property's name).
 */
static Object *machine_resolve_planes(Object *obj, void *opaque,
                                      const char *part)
{
    return object_resolve_path_component(obj, "plane-set");
}

void machine_class_add_planes_property(ObjectClass *oc)
{
    ObjectProperty *prop;

    /* "int", not "uint32": query-command-line-options then says number */
    prop = object_class_property_add(oc, "planes", "int",
                                     machine_get_planes, machine_set_planes,
                                     NULL, NULL);
    prop->resolve = machine_resolve_planes;
    object_class_property_set_description(oc, "planes",
        "Number of VM planes (privilege levels with their own vCPU state, "
        "e.g. VTLs); 1 means a plain VM, the maximum depends on the "
        "accelerator (TCG: 16)");

    object_class_property_add(oc, "plane-ram-limit", "size",
                              machine_get_plane_ram_limit,
                              machine_set_plane_ram_limit, NULL, NULL);
    object_class_property_set_description(oc, "plane-ram-limit",
        "Most RAM the guest may add for plane regions outside its own RAM, "
        "all planes together (default 4G)");

    object_class_property_add(oc, "plane-switch-poll-ns", "int",
                              machine_get_plane_switch_poll_ns,
                              machine_set_plane_switch_poll_ns, NULL, NULL);
    object_class_property_set_description(oc, "plane-switch-poll-ns",
        "Nanoseconds a vCPU state that made a VTL call or return polls for "
        "the switch back before its thread sleeps; 0 never polls (default "
        "50000, at most 10000000)");

    object_class_property_add(oc, "device-plane", "int",
                              machine_get_device_plane,
                              machine_set_device_plane, NULL, NULL);
    object_class_property_set_description(oc, "device-plane",
        "The VM plane that the devices of the command line belong to when "
        "they set no 'plane' of their own (default 0); the chipset is "
        "always plane 0's");
    plane_device_class_add_property();
    plane_stats_class_add_property(oc);

    object_class_property_add_enum(oc, "plane-violation",
                                   "PlaneViolationPolicy",
                                   &PlaneViolationPolicy_lookup,
                                   machine_get_plane_violation,
                                   machine_set_plane_violation);
    object_class_property_set_description(oc, "plane-violation",
        "What a plane's forbidden memory access does: 'stop' stops the VM "
        "with an error (default), 'fault' gives the vCPU a page fault");
}

static void plane_set_exit_notify(Notifier *notifier, void *data);
static void plane_set_machine_ready(Notifier *notifier, void *data);

static Notifier plane_set_exit_notifier = {
    .notify = plane_set_exit_notify,
};
static Notifier plane_set_ready_notifier = {
    .notify = plane_set_machine_ready,
};

/*
 * Ends and joins the plane vCPU threads that are threads of their own (the
 * guest's own vCPU threads are left to process exit, as in stock QEMU).
 * Not the calling thread (a plane's vCPU may be the one that exits, e.g.
 * through isa-debug-exit), nor a thread shared with other vCPUs (TCG's
 * round-robin mode: it never ends).
 */
static void plane_set_exit_notify(Notifier *notifier, void *data)
{
    PlaneSet *set = plane_set_get();
    bool locked = bql_locked();

    if (!locked) {
        bql_lock();
    }
    for (unsigned int p = 1; set && p < set->nr_planes; p++) {
        for (unsigned int i = 0; i < set->nr_vcpus; i++) {
            CPUState *cpu = plane_cpu(set->planes[p], i);

            if (cpu && cpu->created && cpu->thread != first_cpu->thread &&
                !qemu_thread_is_self(cpu->thread)) {
                cpu_remove_sync(cpu);
            }
        }
    }
    if (!locked) {
        bql_unlock();
    }
}

static void plane_set_machine_ready(Notifier *notifier, void *data)
{
    PlaneSet *set = plane_set_get();

    if (set) {
        plane_set_state(set->planes[0], PLANE_STATE_RUNNING);
    }
}

static bool machine_planes_validate(MachineState *ms, unsigned int planes,
                                    const PlaneAccelClass *pac, Error **errp)
{
    MachineClass *mc = MACHINE_GET_CLASS(ms);

    if (planes == 1) {
        return true;
    }
    if (!mc->planes_supported) {
        error_setg(errp, "-machine planes=%u: machine type '%s' does not "
                   "support planes", planes, mc->name);
        return false;
    }
    if (!pac) {
        error_setg(errp, "-machine planes=%u: the %s accelerator does not "
                   "support planes", planes,
                   ACCEL_GET_CLASS(current_accel())->name);
        return false;
    }
    return !pac->init_host || pac->init_host(ms, planes, errp);
}

bool machine_planes_init(MachineState *ms, Error **errp)
{
    MachinePlanesOptions *opts = machine_planes_options(ms);
    unsigned int planes = opts->planes;
    const PlaneAccelClass *pac = plane_accel_class_get();
    PlaneSet *set;

    if (!machine_planes_validate(ms, planes, pac, errp) ||
        !plane_devices_init(ms, planes, opts->device_plane, errp)) {
        return false;
    }
    if (!MACHINE_GET_CLASS(ms)->planes_supported) {
        return true;
    }

    /* Every possible CPU: one plugged later gets its states then */
    set = plane_set_new(pac, planes, ms->smp.max_cpus);
    set->ram_limit = opts->ram_limit;
    set->switch_poll_ns = opts->switch_poll_ns;
    set->violation_policy = opts->violation_policy;
    object_property_add_child(OBJECT(ms), "plane-set", OBJECT(set));
    object_unref(OBJECT(set));
    trace_machine_planes_init(planes, set->nr_vcpus);

    for (unsigned int p = 0; p < planes; p++) {
        set->planes[p] = plane_create(set, p, errp);
        if (!set->planes[p]) {
            return false;
        }
    }
    plane_hypercalls_enabled = planes > 1;
    if (planes > 1 && pac->host_switches_planes) {
        /* The planes' vCPU states and views are the host kernel's */
        static Error *migration_blocker;

        error_setg(&migration_blocker, "-machine planes=%u: the host kernel "
                   "holds the planes' vCPU states and memory views, which "
                   "QEMU cannot save", planes);
        if (migrate_add_blocker(&migration_blocker, errp) < 0) {
            return false;
        }
    } else if (planes > 1) {
        plane_migration_init(set);
        plane_measure_migration_init(set);
    }
    if (planes > 1) {
        plane_layout_init();
    }
    if (!plane_dma_init(ms, planes, errp)) {
        return false;
    }
    qemu_register_resettable(OBJECT(set));
    qemu_add_exit_notifier(&plane_set_exit_notifier);
    qemu_add_machine_init_done_notifier(&plane_set_ready_notifier);
    return true;
}

/*
 * The plane states of a vCPU index hold on to its guest CPU, which must
 * stay: neither device_del nor the guest's ACPI eject may unplug it.
 */
static void plane_set_block_cpu_unplug(PlaneSet *set, CPUState *cpu)
{
    /* Made once, shared by every CPU (the BQL covers it) */
    static Error *unplug_blocker;

    if (!unplug_blocker) {
        error_setg(&unplug_blocker, "-machine planes=%u: CPU hot-unplug is "
                   "not supported with planes", set->nr_planes);
    }
    qdev_add_unplug_blocker(DEVICE(cpu), unplug_blocker);
}

/* Whether the guest CPU @cpu, board's or plugged, may have plane states */
static bool plane_set_check_cpu(PlaneSet *set, CPUState *cpu, Error **errp)
{
    return !set->accel->check_cpu || set->accel->check_cpu(cpu, errp);
}

/*
 * The guest CPU @cpu joins the planes: plane 0's word, the others' states.
 * Until all exist the index is not present (plane_index_present()): the
 * BQL is dropped while each state's thread starts.
 */
static bool plane_set_add_cpu(PlaneSet *set, CPUState *cpu, Error **errp)
{
    plane_vcpu_bind(cpu, 0, cpu);
    /* The board's CPUs get theirs from plane_create_vcpus(), plane by plane */
    if (set->vcpus_created) {
        for (unsigned int p = 1; p < set->nr_planes; p++) {
            if (!plane_create_vcpu(set->planes[p], cpu->cpu_index, errp)) {
                while (--p) {   /* refused: the slot stays free, as it was */
                    plane_destroy_vcpu(set->planes[p], cpu->cpu_index);
                }
                return false;
            }
        }
        set->cpu_joined[cpu->cpu_index] = true;
    }
    plane_set_block_cpu_unplug(set, cpu);
    return true;
}

bool machine_planes_create_vcpus(MachineState *ms, Error **errp)
{
    PlaneSet *set = plane_set_get();

    if (!set || set->nr_planes == 1) {
        return plane_launch_init(errp);     /* refuses any plane-launch */
    }
    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        if (!qemu_get_cpu(i)) {
            continue;
        }
        if (!plane_set_check_cpu(set, qemu_get_cpu(i), errp)) {
            return false;
        }
        plane_set_add_cpu(set, qemu_get_cpu(i), &error_abort);
    }
    for (unsigned int p = 1; p < set->nr_planes; p++) {
        if (!plane_create_vcpus(set->planes[p], errp)) {
            return false;
        }
    }
    for (unsigned int i = 0; i < set->nr_vcpus; i++) {
        set->cpu_joined[i] = qemu_get_cpu(i);
    }
    set->vcpus_created = true;
    if (!plane_dma_attach_pci(ms, errp)) {
        return false;
    }
    plane_devices_attach();
    return plane_launch_init(errp);
}

bool machine_planes_cpu_pre_plug(MachineState *ms, CPUState *cpu,
                                 Error **errp)
{
    PlaneSet *set = plane_set_get();

    /* A refusal after realize would leave its threads behind (TCG's) */
    if (!set || set->nr_planes == 1 || !set->vcpus_created) {
        return true;
    }
    return plane_set_check_cpu(set, cpu, errp);
}

bool machine_planes_cpu_plugged(MachineState *ms, CPUState *cpu,
                                Error **errp)
{
    PlaneSet *set = plane_set_get();

    /* The board's own CPUs join in machine_planes_create_vcpus() */
    if (!set || set->nr_planes == 1 || !set->vcpus_created) {
        return true;
    }
    assert(cpu->cpu_index < set->nr_vcpus && !cpu->plane_id);
    trace_machine_planes_cpu_plugged(cpu->cpu_index, set->nr_planes);
    return plane_set_add_cpu(set, cpu, errp);
}

