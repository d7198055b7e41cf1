/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the hypercall dispatcher that every backend calls.  All the
 * guest ABI's validation lives behind it, so backends do none of their own.
 */

#ifndef HW_PLANES_PLANE_HYPERCALL_H
#define HW_PLANES_PLANE_HYPERCALL_H

#include "exec/hwaddr.h"

/*
 * Whether VMCALL/VMMCALL are plane hypercalls: true once the machine has
 * more than one plane.  Written once at board init, before any vCPU runs
 * or any code is translated; read lock-free afterwards.
 */
extern bool plane_hypercalls_enabled;

typedef struct PlaneHypercall {
    CPUState *cpu;              /* the vCPU state that made the call */
    int cpl;                    /* its privilege level at the call */
    uint64_t nr;                /* RAX */
    uint64_t args[4];           /* RBX, RCX, RDX, RSI */
    /* A switched-out caller calls plane_poll_switch_in() next */
    bool polls;
} PlaneHypercall;

/**
 * plane_hypercall: carry out a hypercall of a VM with planes
 * @hc: the call
 * @ret: where the value for RAX goes
 *
 * Takes the BQL.  Every guest-supplied value is validated before use; a bad
 * call returns its negative KVM error code in @ret, changes nothing, and is
 * traced and logged under -d guest_errors.
 *
 * Returns: %true when the call switched the caller's vCPU index to another
 * plane: the backend must then leave its exec loop without touching RAX
 * (the value is delivered through PlaneAccelClass::set_return when the
 * caller's plane is switched back in); %false when @ret holds the result.
 */
bool plane_hypercall(const PlaneHypercall *hc, uint64_t *ret);

typedef enum PlaneParkResult {
    PLANE_PARK_NONE,            /* an ordinary HLT: nothing to hand back */
    PLANE_PARK_SWITCHED,        /* parked: leave the exec loop */
    PLANE_PARK_RESUMED,         /* go on after the HLT: a call went in */
} PlaneParkResult;

/**
 * plane_park: @cpu, a plane >= 1 vCPU state, halted with interrupts off.
 *
 * Takes the BQL and hands the vCPU index back like a VTL return.  A
 * state that PLANE_ENABLE_VCPU just enabled parks for the first time
 * with the call already waiting: it resumes at once with the calling
 * area in its return register (PLANE_PARK_RESUMED).
 */
PlaneParkResult plane_park(CPUState *cpu);

/**
 * plane_shutdown: @cpu shut down (on x86, a triple fault).
 *
 * Takes the BQL.  For a plane >= 1 state the plane stops alone, until
 * system reset: the calls it serves and every later one return
 * -KVM_EOPNOTSUPP, and the state stays off the CPU.  Returns %false for
 * plane 0, whose shutdown is the machine's.
 */
bool plane_shutdown(CPUState *cpu);

#endif
