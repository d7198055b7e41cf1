/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes in the gdbstub: plane N is gdb process N + 1, its vCPU states
 * are its threads; plus the planes' qqemu/Qqemu packets.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "gdbstub/commands.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-debug.h"

unsigned int plane_gdb_nr_processes(void)
{
    PlaneSet *set = plane_set_get();

    return set ? set->nr_planes : 0;
}

/* What the state of @plane on @index does now, for gdb's thread list */
static const char *plane_gdb_state_word(Plane *plane, unsigned int index,
                                        CPUState *cpu)
{
    unsigned int word = qatomic_read(&plane->set->current_plane[index]);

    if (plane_state_index(plane, index) != index) {
        return "unused";    /* the plane's shared state serves this index */
    }
    if ((word & ~PLANE_WAITING) != plane->id) {
        return plane->id ? PlaneState_str(plane->state) : "in VTL call";
    }
    if (word & PLANE_WAITING) {
        return "waiting";
    }
    return cpu->halted ? "halted" : "running";
}

bool plane_gdb_thread_label(CPUState *cpu, GString *label)
{
    PlaneSet *set = plane_set_get();
    unsigned int index;

    if (!set || !cpu->plane_current || cpu->plane_id >= set->nr_planes) {
        return false;
    }
    index = plane_cpu_index(set, cpu);
    if (index >= set->nr_vcpus) {
        return false;
    }
    g_string_printf(label, "plane %u vCPU %u [%s]", cpu->plane_id, index,
                    plane_gdb_state_word(set->planes[cpu->plane_id], index,
                                         cpu));
    return true;
}

/* Whether gdb resumes (c) or steps (s) @cpu: true for 's' too */
static bool plane_gdb_resumed(CPUState *cpu, char *newstates,
                              unsigned int max_cpus, char how)
{
    return cpu && cpu->cpu_index < max_cpus &&
           (newstates[cpu->cpu_index] == how ||
            (how == 'c' && newstates[cpu->cpu_index] == 's'));
}

/* An implicitly resumed state of a resumed vCPU index runs, muted */
static void plane_gdb_wake(CPUState *cpu, char *newstates,
                           unsigned int max_cpus, bool stepped)
{
    if (cpu && cpu->cpu_index < max_cpus && newstates[cpu->cpu_index] == 1) {
        newstates[cpu->cpu_index] = 'c';
        plane_debug_mute(cpu, !stepped);
    }
}

void plane_gdb_resume_index(char *newstates, unsigned int max_cpus)
{
    PlaneSet *set = plane_set_get();

    for (unsigned int i = 0; set && i < set->nr_vcpus; i++) {
        bool resumed = false, stepped = false;

        for (unsigned int p = 0; p < set->nr_planes; p++) {
            CPUState *cpu = plane_cpu(set->planes[p], i);

            resumed |= plane_gdb_resumed(cpu, newstates, max_cpus, 'c');
            stepped |= plane_gdb_resumed(cpu, newstates, max_cpus, 's');
        }
        /* and the state that serves the index's calls, maybe elsewhere */
        for (unsigned int p = 0; resumed && p < set->nr_planes; p++) {
            Plane *plane = set->planes[p];

            plane_gdb_wake(plane_cpu(plane, i), newstates, max_cpus,
                           stepped);
            plane_gdb_wake(plane_cpu(plane, plane_state_index(plane, i)),
                           newstates, max_cpus, stepped);
        }
    }
}

int plane_dump_thread_id(CPUState *cpu)
{
    PlaneSet *set = plane_set_get();
    unsigned int index;

    /* Beyond 999 vCPUs the ids could meet plane 0's: cpu_index + 1 */
    if (!set || !cpu->plane_id || cpu->plane_id >= set->nr_planes ||
        set->nr_vcpus > 999) {
        return 0;
    }
    index = plane_cpu_index(set, cpu);
    return index < set->nr_vcpus ? cpu->plane_id * 1000 + index + 1 : 0;
}

bool plane_gdb_attach_check(uint32_t pid, Error **errp)
{
    PlaneSet *set = plane_set_get();

    if (!set || pid < 2 || pid > set->nr_planes) {
        return true;
    }
    return plane_debug_supported(set, errp);
}

/* qqemu.PlaneSwitchStops: the PLANE_DEBUG_STOP_* bits in effect, in hex */
static void plane_gdb_query_switch_stops(GArray *params, void *ctx)
{
    g_autofree char *reply = g_strdup_printf("%x",
                                             plane_debug_switch_stops());

    gdb_put_packet(reply);
}

/* Qqemu.PlaneSwitchStops:N: 1 stops entering planes >= 1, 2 returning */
static void plane_gdb_set_switch_stops(GArray *params, void *ctx)
{
    Error *err = NULL;
    unsigned long stops;

    if (!params->len) {
        gdb_put_packet("E22");
        return;
    }
    stops = gdb_get_cmd_param(params, 0)->val_ul;
    if (stops & ~(unsigned long)(PLANE_DEBUG_STOP_ENTER |
                                 PLANE_DEBUG_STOP_RETURN)) {
        error_report("gdbstub: plane switch stops 0x%lx: only bits 1 (enter) "
                     "and 2 (return) exist", stops);
        gdb_put_packet("E22");
        return;
    }
    if (!plane_debug_set_switch_stops(stops, &err)) {
        error_report_err(err);
        gdb_put_packet("E01");
        return;
    }
    gdb_put_packet("OK");
}

static const GdbCmdParseEntry plane_gdb_query_entries[] = {
    {
        .handler = plane_gdb_query_switch_stops,
        .cmd = "qemu.PlaneSwitchStops",
    },
};

static const GdbCmdParseEntry plane_gdb_set_entries[] = {
    {
        .handler = plane_gdb_set_switch_stops,
        .cmd = "qemu.PlaneSwitchStops:",
        .cmd_startswith = true,
        .schema = "l0",
    },
};

void plane_gdb_init(void)
{
    static bool done;
    g_autoptr(GPtrArray) queries = g_ptr_array_new();
    g_autoptr(GPtrArray) sets = g_ptr_array_new();

    if (done || plane_gdb_nr_processes() < 2) {
        return;
    }
    done = true;
    g_ptr_array_add(queries, (gpointer)&plane_gdb_query_entries[0]);
    g_ptr_array_add(sets, (gpointer)&plane_gdb_set_entries[0]);
    gdb_extend_query_table(queries);
    gdb_extend_set_table(sets);
}
