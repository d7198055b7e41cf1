/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: one virtual machine, several sets of vCPU state (privilege
 * levels such as Hyper-V VTLs or SEV-SNP VMPLs) on each vCPU index.
 */

#ifndef HW_PLANES_PLANE_H
#define HW_PLANES_PLANE_H

#include "qom/object.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "exec/hwaddr.h"
#include "exec/memory.h"
#include "hw/resettable.h"
#include "qapi/qapi-types-planes.h"

/* Plane ids fit the kernel's u16 plane bitmaps; KVM_MAX_PLANES is 16. */
#define PLANES_MAX 16

/*
 * In PlaneSet::current_plane: the index's plane waits (for another plane's
 * state busy elsewhere, or gone): it keeps the index, its state is off.
 */
#define PLANE_WAITING (1u << 31)

/*
 * The vCPU index whose vCPU state is a plane's shared state (Plane::home):
 * the boot vCPU's, as a uniprocessor guest boots on its BSP.  Its local
 * APIC, timer and device interrupts stay with it.
 */
#define PLANE_HOME_INDEX 0

#define TYPE_PLANE "plane"
OBJECT_DECLARE_SIMPLE_TYPE(Plane, PLANE)

#define TYPE_PLANE_VCPU "plane-vcpu"
OBJECT_DECLARE_SIMPLE_TYPE(PlaneVCPU, PLANE_VCPU)

#define TYPE_PLANE_SET "plane-set"
OBJECT_DECLARE_SIMPLE_TYPE(PlaneSet, PLANE_SET)

typedef struct PlaneAccelClass PlaneAccelClass;
typedef struct PlaneMemAttrMap PlaneMemAttrMap;
typedef struct PlaneStats PlaneStats;

/*
 * PlaneVCPU: the state of one plane >= 1 on one vCPU index.  Its CPUState
 * (created by the backend) is a vCPU of the accelerator with its own
 * thread, but not a guest CPU: CPUState::plane_id keeps it out of
 * query-cpus-fast, -smp accounting, ACPI and CPU hotplug.
 */
struct PlaneVCPU {
    Object parent_obj;

    Plane *plane;
    unsigned int cpu_index;
    CPUState *cpu;
    /*
     * PLANE_ENABLE_VCPU gave the plane a state of its own on this index
     * (under the BQL); until the first VTL call has run it up to its
     * park, it still holds the registers the plane enabled it with.
     */
    bool enabled;
    bool enabled_fresh;
};

/*
 * PLANE_STATE_CHANGED's rate limit for one plane and new state: the window
 * opened by the last event sent, and the newest transition held back in it.
 */
typedef struct PlaneEventLimit {
    int64_t window_end;         /* QEMU_CLOCK_REALTIME ns; 0: no window */
    bool held;
    PlaneState held_old;
    uint64_t held_seq;          /* orders held transitions of the plane */
} PlaneEventLimit;

struct Plane {
    Object parent_obj;

    PlaneSet *set;
    unsigned int id;
    PlaneState state;
    uint64_t region_base;
    uint64_t region_size;
    uint64_t entry_point;
    uint32_t kernel_format;     /* PLANE_KERNEL_*, as CONFIG accepted it */
    char *boot_cmdline;         /* ACTIVATE's cmdline for the boot state */
    /* The launch measurement of what the plane started with (SHA-256) */
    bool measured;
    uint8_t measurement[32];
    /*
     * The PlaneRam owning fresh RAM for a region outside guest RAM, NULL
     * for a region carved from guest RAM.
     */
    Object *region_ram;
    /* Planes >= 1 only: one PlaneVCPU per vCPU index, owned as children. */
    PlaneVCPU **vcpus;
    /*
     * A plane >= 1 is a uniprocessor unless it enables more states: its
     * one shared state is its vCPU state of index @home, the boot vCPU's
     * (PLANE_HOME_INDEX), for the plane's whole life, whichever index
     * calls; it is @busy while it serves a call or boots (under the BQL).
     */
    unsigned int home;
    bool busy;
    /*
     * The attributes other planes' accesses see through this plane's
     * eyes: RCU-published by plane-memory.c under the BQL, read lock-free
     * from vCPU threads in TLB fills.
     */
    PlaneMemAttrMap *mem_attrs;
    /* Accesses its attributes refused; atomic, from any vCPU thread. */
    uint64_t memory_violations;
    /*
     * Device accesses by this plane's vCPUs that plane-device.c dropped
     * (another plane's device, or plane 0's chipset); atomic.
     */
    uint64_t device_accesses_dropped;
    /* PLANE_STATE_CHANGED rate limit, by new state (under the BQL) */
    PlaneEventLimit event_limit[PLANE_STATE__MAX];
    uint64_t event_seq;
    QEMUTimer *event_timer;
    char *path;                 /* canonical QOM path, for the events */
    ResettableState reset_state;
};

/* What the polling records are aligned to: a host cache line */
#define PLANE_CACHE_LINE 64

/* A vCPU state's polling for its switch back (plane_poll_switch_in()) */
typedef struct PlaneSwitchPoll {
    /*
     * Written by the state's own thread: whether it polls now, the host
     * CPU it last polled on, the host CPUs it may run on (counted at
     * usable_cpus_at), and when it last gave its host CPU away to be fair.
     */
    bool polling;
    int host_cpu;
    int usable_cpus;
    int64_t usable_cpus_at;
    int64_t fair_yield_at;
    /*
     * Under the BQL, read by the state's thread as it stops polling: its
     * line is the one that thread writes anyway.  @replaced is bumped
     * whenever the core overwrites the state's registers (ACTIVATE's boot,
     * PLANE_ENABLE_VCPU), @replaced_at_switch is its value when the state
     * was last switched out (by its own thread, mostly).  A state replaced
     * meanwhile must not go on in the translated code it left.
     */
    unsigned int replaced;
    unsigned int replaced_at_switch;
    /*
     * Under the BQL, by the switcher, on a cache line of their own: the
     * switch's bookkeeping must not take the line that the state's thread
     * writes as it stops polling, nor the line of another state's record.
     *
     * The adaptive window (at most PlaneSet::switch_poll_ns, which it is
     * until first adapted): grown when the switch back came within the
     * ceiling after the poll gave up, shrunk when it came later.
     */
    uint64_t window_ns QEMU_ALIGNED(PLANE_CACHE_LINE);
    bool window_adapted;
    unsigned int late_switches; /* in a row, later than the ceiling */
    int64_t switched_out_at;    /* get_clock() ns; 0: switched in */
    int64_t last_wait_ns;       /* switched out to in, the last time */
} QEMU_ALIGNED(PLANE_CACHE_LINE) PlaneSwitchPoll;

/* What a vCPU index has pending across a plane switch. */
typedef enum PlanePendingKind {
    PLANE_PENDING_NONE,
    PLANE_PENDING_ACTIVATE,     /* plane 1 boots; plane 0 waits in ACTIVATE */
    PLANE_PENDING_VTL_CALL,     /* plane 1 serves plane 0's VTL call */
    PLANE_PENDING_WAITING,      /* plane 0's call waits for plane 1's state */
} PlanePendingKind;

typedef struct PlanePending {
    PlanePendingKind kind;
    unsigned int caller;        /* the plane waiting in its hypercall */
    unsigned int callee;
    hwaddr calling_area;
    /* A fresh enabled state runs to its park before the call goes in. */
    bool call_after_park;
    uint64_t wait_seq;          /* PLANE_PENDING_WAITING: arrival order */
} PlanePending;

/* The calling area a vCPU index passed the checks with last. */
typedef struct PlaneCallAreaCheck {
    bool valid;
    uint64_t gen;               /* plane_layout_gen() of the checks */
    hwaddr gpa;
} PlaneCallAreaCheck;

/*
 * PlaneSet: the machine's planes.  Its canonical path is /machine/plane-set;
 * the machine's "planes" property resolves to it too, so /machine/planes/
 * plane[N] works as a path.  Created at board init, lives until exit.
 *
 * Everything below is covered by the BQL: plane hypercalls take it, and
 * the hand-over between planes happens under it, so that a vCPU thread
 * that checks cpu_plane_switched_out() in qemu_wait_io_event() can
 * never miss the kick that switches its plane back in.
 */
struct PlaneSet {
    Object parent_obj;

    const PlaneAccelClass *accel;
    unsigned int nr_planes;
    /* Every possible vCPU index (-smp maxcpus): CPUs may be plugged later */
    unsigned int nr_vcpus;
    /* Whether board init made the states of planes >= 1 (BQL) */
    bool vcpus_created;
    /* cpu_joined[i]: index i has its CPU and all its plane states (BQL) */
    bool *cpu_joined;
    Plane **planes;
    /*
     * current_plane[i]: the plane that runs on vCPU index i (initially 0),
     * with PLANE_WAITING while it waits.  The one record of it: every
     * vCPU state of index i points here (CPUState::plane_current).
     */
    unsigned int *current_plane;
    PlanePending *pending;
    PlaneCallAreaCheck *call_area_ok;
    uint64_t wait_seq;          /* last PlanePending::wait_seq handed out */
    /* ACTIVATE boots the planes on this index; plane 0 waits there. */
    bool activating;
    bool boot_queued;           /* its deferred boot has not run yet */
    unsigned int activate_index;
    /* Counts ACTIVATEs and resets: a deferred boot of an older one is void */
    uint64_t activate_seq;
    /*
     * -object plane-launch gave plane 1 (plane 0 may not CONFIG or
     * ACTIVATE); @launching until the plane launched at reset parked.
     */
    bool host_launch;
    bool launching;
    /* CONFIG's array, as ACTIVATE must name it again. */
    bool configured;
    hwaddr config_gpa;
    unsigned int config_count;
    uint64_t ram_limit;         /* bytes of fresh RAM regions may add */
    uint64_t ram_added;
    /*
     * How long at most a vCPU state switched out by its own hypercall
     * polls for the switch back before it sleeps (0: never polls), and,
     * by plane and the vCPU index of the state (plane * nr_vcpus + index:
     * a shared state's home index, whichever index it serves), how each
     * polls.
     */
    uint64_t switch_poll_ns;
    PlaneSwitchPoll *switch_poll;
    unsigned int pollers;       /* threads polling now; atomic */
    PlaneStats *stats;          /* VTL call statistics (plane-stats.c) */
    /* -machine plane-violation; a stop requested and not yet reset */
    PlaneViolationPolicy violation_policy;
    bool violation_stopped;
    ResettableState reset_state;
};

/**
 * plane_set_get: the machine's plane set
 *
 * Returns: the plane set of the current machine, or %NULL for a machine
 * without planes support (e.g. -machine none).  Lock-free: the pointer is
 * written once at board init, before any vCPU runs.
 */
PlaneSet *plane_set_get(void);

/**
 * plane_set_state: move @plane to @new_state and emit PLANE_STATE_CHANGED.
 *
 * Returns: %false, leaving the state unchanged, when the lifecycle does not
 * allow the transition (see docs/system/i386/planes.rst).
 */
bool plane_set_state(Plane *plane, PlaneState new_state);

/**
 * plane_current: the plane that holds @cpu_index now (it may be waiting).
 */
unsigned int plane_current(PlaneSet *set, unsigned int cpu_index);

/**
 * plane_is_current: whether @plane is the plane running on @cpu_index.
 */
bool plane_is_current(Plane *plane, unsigned int cpu_index);

/**
 * plane_running_on: the number of vCPU indexes @plane runs on now.
 */
unsigned int plane_running_on(Plane *plane);

/**
 * plane_index_present: whether the guest has a CPU of index @cpu_index
 * now, with its plane states.  The plane set covers every possible CPU
 * (-smp maxcpus); an index gets its plane states when its CPU is plugged,
 * and is present once they all exist.
 */
bool plane_index_present(PlaneSet *set, unsigned int cpu_index);

/**
 * plane_state_cpu_index: the CPUState::cpu_index of plane @plane_id's
 * state on vCPU index @cpu_index, past every possible guest CPU's, so
 * that a CPU plugged later keeps the index of its slot.  For backends'
 * vcpu_create, before realize.
 */
int plane_state_cpu_index(PlaneSet *set, unsigned int plane_id,
                          unsigned int cpu_index);

/**
 * plane_cpu: the vCPU state of @plane on @cpu_index (%NULL for a plane
 * >= 1 before board init has created its states, and always where the
 * host switches planes: there the state is the host's).
 */
CPUState *plane_cpu(Plane *plane, unsigned int cpu_index);

/**
 * plane_vcpu_object: what management sees of that state: the CPU for
 * plane 0, the PlaneVCPU for the others (%NULL as for plane_cpu()).
 */
Object *plane_vcpu_object(Plane *plane, unsigned int cpu_index);

/*
 * plane_vcpu_thread_id: the host thread that runs @pv: its own, or the
 * vCPU index's where the host switches planes.
 */
int64_t plane_vcpu_thread_id(PlaneVCPU *pv);

/**
 * plane_cpu_index: the vCPU index of @cpu, a vCPU state of plane
 * @cpu->plane_id; @set->nr_vcpus when it is none of @set's.
 */
unsigned int plane_cpu_index(PlaneSet *set, CPUState *cpu);

/**
 * plane_state_index: the vCPU index whose vCPU state runs @plane for
 * vCPU index @cpu_index: @cpu_index itself for plane 0 and for a state
 * the plane enabled there (PLANE_ENABLE_VCPU), the plane's home index
 * (its shared state) otherwise.
 */
unsigned int plane_state_index(Plane *plane, unsigned int cpu_index);

/**
 * plane_shared_state_serves: the vCPU index whose VTL call (or ACTIVATE)
 * @plane's shared state serves now, its home index when none (BQL held).
 */
unsigned int plane_shared_state_serves(Plane *plane);

/**
 * plane_served_index: the vCPU index @cpu, a vCPU state of @set, runs
 * for: its own one, or for a plane's shared state the index whose call
 * it serves.  @set->nr_vcpus when @cpu is none of @set's (BQL held).
 */
unsigned int plane_served_index(PlaneSet *set, CPUState *cpu);

/**
 * plane_vcpu_bind: make @cpu, not yet realized, the vCPU state of plane
 * @plane_id on the vCPU index of @plane0_cpu.  For backends' vcpu_create.
 */
void plane_vcpu_bind(CPUState *cpu, unsigned int plane_id,
                     CPUState *plane0_cpu);

/**
 * plane_poll_switch_in: wait briefly for @cpu to be switched back in
 *
 * Called without the BQL by the thread of @cpu, a vCPU state that its own
 * hypercall has just switched out, before it leaves the accelerator's exec
 * loop.  A VTL call is usually answered within microseconds, far sooner
 * than a sleeping thread is woken: so for up to the plane set's
 * switch-poll-ns the thread polls, the way KVM's halt polling does.
 *
 * Returns: %true when @cpu was switched back in meanwhile: it carries on
 * in its exec loop as if the hypercall had returned (the switch set its
 * return registers); %false on timeout or when the thread was kicked
 * (work, a stop request, an interrupt): it must leave its exec loop and
 * sleep as without polling.
 */
bool plane_poll_switch_in(CPUState *cpu);

/**
 * plane_poll_announce: @cpu's thread is about to poll for its switch back
 *
 * Called under the BQL by the hypercall that switched @cpu out, for a
 * caller that calls plane_poll_switch_in() next (PlaneHypercall::polls):
 * a switch back made before the poll starts then needs no kick, whose
 * exit request would only end the poll at once.
 */
void plane_poll_announce(CPUState *cpu);

#endif
