/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: debugging stops at plane switches (a VTL call entering a
 * plane, a return resuming plane 0, a step across either), and a look at
 * memory through a plane's own view.  Under TCG only.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-planes.h"
#include "qobject/qdict.h"
#include "monitor/hmp.h"
#include "monitor/monitor.h"
#include "exec/cpu-common.h"
#include "exec/target_page.h"
#include "system/cpus.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-debug.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/planes-abi.h"
#include "plane-internal.h"
#include "trace.h"

/* PLANE_DEBUG_STOP_* the user asked for (under the BQL) */
static unsigned int plane_switch_stops;

/*
 * A gdb debug point held back from a vCPU state that runs only because
 * its vCPU index does, not because gdb resumed it (under the BQL).
 */
typedef struct PlaneMutedPoint {
    CPUState *cpu;
    bool watch;
    vaddr addr;
    vaddr len;
    int flags;
} PlaneMutedPoint;

static GArray *plane_muted_points;
static GHashTable *plane_muted_cpus;

#define PLANE_DEBUG_NO_KVM "the kernel offers no guest debugging for plane " \
                           "vCPUs: plane switch stops need -accel tcg"

bool plane_debug_supported(PlaneSet *set, Error **errp)
{
    if (!set || set->nr_planes < 2) {
        error_setg(errp, "this machine has no planes >= 1 to debug");
        return false;
    }
    if (set->accel && set->accel->host_switches_planes) {
        error_setg(errp, PLANE_DEBUG_NO_KVM);
        return false;
    }
    return true;
}

/*
 * Runs on the thread of the state about to run, before its first
 * instruction in its plane: the stop a breakpoint there would make.
 */
static void plane_debug_stop_work(CPUState *cpu, run_on_cpu_data data)
{
    trace_plane_debug_switch_stop(cpu->plane_id, cpu->cpu_index);
    cpu_handle_guest_debug(cpu);
}

void plane_debug_mute(CPUState *cpu, bool hold_points)
{
    CPUBreakpoint *bp, *next_bp;
    CPUWatchpoint *wp, *next_wp;

    if (!plane_muted_points) {
        plane_muted_points = g_array_new(false, false,
                                         sizeof(PlaneMutedPoint));
        plane_muted_cpus = g_hash_table_new(NULL, NULL);
    }
    g_hash_table_add(plane_muted_cpus, cpu);
    if (!hold_points) {
        return;
    }
    QTAILQ_FOREACH_SAFE(bp, &cpu->breakpoints, entry, next_bp) {
        if (bp->flags & BP_GDB) {
            PlaneMutedPoint p = {
                .cpu = cpu, .addr = bp->pc, .flags = bp->flags,
            };

            g_array_append_val(plane_muted_points, p);
            cpu_breakpoint_remove_by_ref(cpu, bp);
        }
    }
    QTAILQ_FOREACH_SAFE(wp, &cpu->watchpoints, entry, next_wp) {
        if (wp->flags & BP_GDB) {
            PlaneMutedPoint p = {
                .cpu = cpu, .watch = true, .addr = wp->vaddr,
                .len = wp->len, .flags = wp->flags & ~BP_WATCHPOINT_HIT,
            };

            g_array_append_val(plane_muted_points, p);
            cpu_watchpoint_remove_by_ref(cpu, wp);
        }
    }
}

bool plane_debug_muted(CPUState *cpu)
{
    return plane_muted_cpus && g_hash_table_contains(plane_muted_cpus, cpu);
}

void plane_debug_unmute_all(void)
{
    for (guint i = 0; plane_muted_points && i < plane_muted_points->len;
         i++) {
        PlaneMutedPoint *p = &g_array_index(plane_muted_points,
                                            PlaneMutedPoint, i);

        if (p->watch) {
            cpu_watchpoint_insert(p->cpu, p->addr, p->len, p->flags, NULL);
        } else {
            cpu_breakpoint_insert(p->cpu, p->addr, p->flags, NULL);
        }
    }
    if (plane_muted_points) {
        GHashTableIter iter;
        gpointer cpu;

        /* gdb never hears of a muted state's watchpoint hit */
        g_hash_table_iter_init(&iter, plane_muted_cpus);
        while (g_hash_table_iter_next(&iter, &cpu, NULL)) {
            ((CPUState *)cpu)->watchpoint_hit = NULL;
        }
        g_array_set_size(plane_muted_points, 0);
        g_hash_table_remove_all(plane_muted_cpus);
    }
}

void plane_debug_switching(PlaneSet *set, unsigned int cpu_index,
                           unsigned int to)
{
    Plane *to_plane = set->planes[to];
    CPUState *to_cpu = plane_cpu(to_plane,
                                 plane_state_index(to_plane, cpu_index));
    unsigned int stops = qatomic_read(&plane_switch_stops);
    bool wanted = to ? stops & PLANE_DEBUG_STOP_ENTER
                     : stops & PLANE_DEBUG_STOP_RETURN;

    /* Nor a switch stop for a state that gdb did not resume */
    if (plane_debug_muted(to_cpu)) {
        wanted = false;
    }

    /*
     * A state single-stepped by gdb that left in its hypercall stops
     * where it comes back: the step completes with the call or return.
     */
    if (!to_cpu || (!wanted && !to_cpu->singlestep_enabled)) {
        return;
    }
    async_run_on_cpu(to_cpu, plane_debug_stop_work, RUN_ON_CPU_NULL);
}

bool plane_debug_set_switch_stops(unsigned int stops, Error **errp)
{
    if (stops && !plane_debug_supported(plane_set_get(), errp)) {
        return false;
    }
    qatomic_set(&plane_switch_stops, stops);
    return true;
}

unsigned int plane_debug_switch_stops(void)
{
    return qatomic_read(&plane_switch_stops);
}

/* QMP planes-switch-stops: an absent member keeps its setting */
void qmp_planes_switch_stops(bool has_enter, bool enter, bool has_q_return,
                             bool q_return, Error **errp)
{
    unsigned int stops = plane_debug_switch_stops();

    if (has_enter) {
        stops = (stops & ~PLANE_DEBUG_STOP_ENTER) |
                (enter ? PLANE_DEBUG_STOP_ENTER : 0);
    }
    if (has_q_return) {
        stops = (stops & ~PLANE_DEBUG_STOP_RETURN) |
                (q_return ? PLANE_DEBUG_STOP_RETURN : 0);
    }
    plane_debug_set_switch_stops(stops, errp);
}

static const char *const plane_stop_names[] = {
    [0] = "none",
    [PLANE_DEBUG_STOP_ENTER] = "enter",
    [PLANE_DEBUG_STOP_RETURN] = "return",
    [PLANE_DEBUG_STOP_ENTER | PLANE_DEBUG_STOP_RETURN] = "both",
};

void hmp_planes_switch_stops(Monitor *mon, const QDict *qdict)
{
    const char *which = qdict_get_try_str(qdict, "stops");
    Error *err = NULL;

    for (unsigned int i = 0; which && i < ARRAY_SIZE(plane_stop_names); i++) {
        if (!strcmp(which, plane_stop_names[i])) {
            if (!plane_debug_set_switch_stops(i, &err)) {
                hmp_handle_error(mon, err);
                return;
            }
            which = NULL;
            break;
        }
    }
    if (which) {
        monitor_printf(mon, "planes_switch_stops: '%s' is not one of none, "
                       "enter, return, both\n", which);
        return;
    }
    monitor_printf(mon, "plane switch stops: %s\n",
                   plane_stop_names[plane_debug_switch_stops()]);
}

/* rwx of what @plane's memory attributes at @gpa leave it, "---" denied */
static void plane_debug_rights(unsigned int plane, hwaddr gpa, char *rights)
{
    uint32_t attrs = plane_mem_attrs_lookup(plane, gpa);

    rights[0] = attrs & PLANE_MEM_ATTR_NO_READ ? '-' : 'r';
    rights[1] = attrs & PLANE_MEM_ATTR_NO_WRITE ? '-' : 'w';
    rights[2] = attrs & PLANE_MEM_ATTR_NO_EXEC ? '-' : 'x';
    rights[3] = 0;
}

/* One page's part of a planes_view: rights, and the bytes if readable */
static void plane_debug_view_page(Monitor *mon, Plane *plane, CPUState *cpu,
                                  vaddr addr, unsigned int len)
{
    vaddr page_mask = qemu_target_page_mask();
    hwaddr gpa = cpu_get_phys_page_debug(cpu, addr & page_mask);
    g_autofree uint8_t *buf = g_malloc(len);
    char rights[4];

    if (gpa == -1) {
        monitor_printf(mon, "0x%016" VADDR_PRIx ": not mapped\n", addr);
        return;
    }
    gpa += addr & ~page_mask;
    plane_debug_rights(plane->id, gpa, rights);
    monitor_printf(mon, "0x%016" VADDR_PRIx ": gpa 0x%016" HWADDR_PRIx
                   " plane %u %s", addr, gpa, plane->id, rights);
    if (rights[0] != 'r') {
        monitor_printf(mon, " denied: plane %u cannot read it\n", plane->id);
        return;
    }
    cpu_physical_memory_read(gpa, buf, len);
    for (unsigned int i = 0; i < len; i++) {
        monitor_printf(mon, " %02x", buf[i]);
    }
    monitor_printf(mon, "\n");
}

/*
 * planes_view PLANE ADDR [LEN]: what plane PLANE sees at its virtual
 * address ADDR (translated by its state on its home vCPU index): per
 * page, its rights there and the bytes it could read.  gdb's own memory
 * accesses are the host's and see everything.
 */
void hmp_planes_view(Monitor *mon, const QDict *qdict)
{
    PlaneSet *set = plane_set_get();
    int64_t id = qdict_get_int(qdict, "plane");
    vaddr addr = qdict_get_int(qdict, "addr");
    int64_t len = qdict_get_try_int(qdict, "len", 16);
    Error *err = NULL;
    Plane *plane;
    CPUState *cpu;

    if (!plane_debug_supported(set, &err)) {
        hmp_handle_error(mon, err);
        return;
    }
    if (id < 0 || id >= set->nr_planes) {
        monitor_printf(mon, "planes_view: plane %" PRId64 " does not exist "
                       "(the machine has %u)\n", id, set->nr_planes);
        return;
    }
    if (len <= 0 || len > 4096) {
        monitor_printf(mon, "planes_view: length %" PRId64 " is not in "
                       "1..4096\n", len);
        return;
    }
    plane = set->planes[id];
    cpu = plane_cpu(plane, id ? plane->home : 0);
    if (!cpu) {
        monitor_printf(mon, "planes_view: plane %" PRId64 " has no vCPU "
                       "state yet\n", id);
        return;
    }
    while (len > 0) {
        unsigned int chunk = MIN(len, qemu_target_page_size() -
                                      (addr & ~qemu_target_page_mask()));

        plane_debug_view_page(mon, plane, cpu, addr, chunk);
        addr += chunk;
        len -= chunk;
    }
}
