/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: debugging support, stops at plane switches for gdb and the
 * monitor, and gdb's view of planes as processes (TCG only).
 */

#ifndef HW_PLANES_PLANE_DEBUG_H
#define HW_PLANES_PLANE_DEBUG_H

#include "hw/planes/plane.h"

/* Which plane switches stop the VM (PLANE_DEBUG_STOP_* bits) */
#define PLANE_DEBUG_STOP_ENTER  1   /* a plane >= 1 entered (call, boot) */
#define PLANE_DEBUG_STOP_RETURN 2   /* plane 0 resumed after its call */

/*
 * plane_debug_supported: whether @set's planes >= 1 can be debugged:
 * %false with a one-line reason under KVM, whose planes kernel has no
 * guest debugging for plane vCPUs, or without planes >= 1.
 */
bool plane_debug_supported(PlaneSet *set, Error **errp);

/*
 * plane_debug_switching: plane-switch.c, before vCPU index @cpu_index
 * switches to plane @to (BQL held): the state of @to stops before its
 * first instruction there when a switch stop or a gdb single step asks.
 */
void plane_debug_switching(PlaneSet *set, unsigned int cpu_index,
                           unsigned int to);

/*
 * plane_debug_mute: gdb resumes @cpu only because its vCPU index runs
 * (the VM is stopped).  gdb must hear only from threads it resumed: in
 * all-stop mode gdb 13 asserts when another thread reports while it
 * steps one over a breakpoint.  So no switch stop for @cpu, and:
 * @hold_points (gdb continues): its gdb breakpoints and watchpoints are
 *   held back until the VM stops again;
 * otherwise (gdb steps another state of the index, which waits for @cpu
 *   in a VTL call): a hit of @cpu's stops the VM, reported on the thread
 *   gdb steps (past its VMCALL, the call not yet complete); @cpu stays at
 *   the breakpoint and reports it when gdb resumes it.
 * plane_debug_muted: whether @cpu is muted now.
 * plane_debug_unmute_all: the VM stopped again: back to normal.
 */
void plane_debug_mute(CPUState *cpu, bool hold_points);
bool plane_debug_muted(CPUState *cpu);
void plane_debug_unmute_all(void);

/* Set or read the switch stops; setting fails where unsupported. */
bool plane_debug_set_switch_stops(unsigned int stops, Error **errp);
unsigned int plane_debug_switch_stops(void);

/*
 * plane-gdb.c, for the gdbstub: plane N is gdb process N + 1.
 *
 * plane_gdb_nr_processes: the processes planes need (0 without planes).
 * plane_gdb_thread_label: "plane P vCPU I [state]" for a state's thread.
 * plane_gdb_resume_index: a vCPU index runs as one: when gdb resumes or
 *   steps one of its states, its other planes' states are resumed too
 *   (@newstates by cpu_index, as gdb_continue_partial's), muted (above).
 * plane_gdb_attach_check: whether gdb may attach process @pid.
 * plane_gdb_init: registers the planes' qqemu packets, once.
 */
unsigned int plane_gdb_nr_processes(void);
bool plane_gdb_thread_label(CPUState *cpu, GString *label);
void plane_gdb_resume_index(char *newstates, unsigned int max_cpus);
bool plane_gdb_attach_check(uint32_t pid, Error **errp);
/*
 * plane_dump_thread_id: dump-guest-memory's thread id of a plane >= 1
 * state, plane * 1000 + vCPU index + 1 (0 for plane 0's CPUs, which keep
 * cpu_index + 1, and for machines of more than 999 vCPUs).
 */
int plane_dump_thread_id(CPUState *cpu);
void plane_gdb_init(void);

#endif
