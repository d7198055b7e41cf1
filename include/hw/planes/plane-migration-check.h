/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the records of the "vm-planes" migration sections, and the
 * check of an incoming stream's records as a whole, as pure code (no
 * memory API, CPUs or BQL), so that QEMU and tests/planes/fuzz run it.
 */

#ifndef HW_PLANES_PLANE_MIGRATION_CHECK_H
#define HW_PLANES_PLANE_MIGRATION_CHECK_H

#include "hw/planes/plane-rules.h"

/*
 * The stream's encoding of the core's values (plane-migration.c checks at
 * build time that they are the core's): PlaneState, PlanePendingKind,
 * PLANE_WAITING in a current-plane word, PLANES_MAX setup regions.
 */
enum {
    PLANE_MIG_STATE_CREATED,
    PLANE_MIG_STATE_CONFIGURED,
    PLANE_MIG_STATE_ACTIVE,
    PLANE_MIG_STATE_RUNNING,
    PLANE_MIG_STATE_PARKED,
    PLANE_MIG_STATE_STOPPED,
    PLANE_MIG_STATE__MAX,
};

enum {
    PLANE_MIG_PENDING_NONE,
    PLANE_MIG_PENDING_ACTIVATE,
    PLANE_MIG_PENDING_VTL_CALL,
    PLANE_MIG_PENDING_WAITING,
};

#define PLANE_MIG_WAITING       (1u << 31)
#define PLANE_MIG_HOME_INDEX    0       /* a shared state's index, for life */
#define PLANE_MIG_PLANES_MAX    PLANE_LAYOUT_MAX_PLANES
#define PLANE_MIG_VCPU_ENABLED  1u      /* in PlaneMigPlane::vcpu_enabled */
#define PLANE_MIG_VCPU_FRESH    2u

/* Per vCPU index: who runs there, and what is pending across a switch */
typedef struct PlaneMigPending {
    uint32_t current;
    uint32_t kind;
    uint32_t caller;
    uint32_t callee;
    uint64_t calling_area;
    uint64_t wait_seq;
    bool call_after_park;
} PlaneMigPending;

typedef struct PlaneMigPlane {
    uint32_t state;
    uint32_t kernel_format;
    uint32_t home;
    bool busy;
    uint64_t region_base;
    uint64_t region_size;
    uint64_t entry_point;
    uint64_t memory_violations;
    uint64_t device_accesses_dropped;
    uint8_t cmdline[PLANE_CONFIG_CMDLINE_LEN];
    bool has_cmdline;
    uint32_t nr_vcpus;
    uint8_t *vcpu_enabled;      /* per index: PLANE_MIG_VCPU_* */
    int32_t nr_ranges;
    PlaneMemAttrRange *ranges;
} PlaneMigPlane;

typedef struct PlaneMigImage {
    int32_t nr_planes;
    int32_t nr_vcpus;
    PlaneMigPending *pending;
    PlaneMigPlane *planes;
    unsigned int planes_allocated;      /* whatever the stream says */
    uint64_t wait_seq;
    bool activating;
    bool boot_queued;
    uint32_t activate_index;
    bool configured;
    uint64_t config_gpa;
    uint32_t config_count;
    bool violation_stopped;
} PlaneMigImage;

/* "vm-planes/setup": plane p's region, and whether it has fresh RAM */
typedef struct PlaneMigRegion {
    bool fresh;
    uint64_t base;
    uint64_t size;
} PlaneMigRegion;

/*
 * The destination: its planes, its guest-physical layout (@ranges, fresh
 * RAM of plane regions included, as PlaneLayout has them), how much
 * fresh RAM regions may take, who switches planes, and which vCPU
 * indexes have a CPU (the others are hot-pluggable slots).  @setup: the
 * setup section's regions as loaded (PLANE_MIG_PLANES_MAX of them).
 */
typedef struct PlaneMigDest {
    unsigned int nr_planes;
    unsigned int nr_vcpus;
    const PlaneLayoutRange *ranges;
    size_t nr_ranges;
    uint64_t phys_limit;
    uint64_t outside_ram_min;
    uint64_t ram_limit;
    bool host_switches_planes;
    const PlaneMigRegion *setup;
    const bool *present;        /* per index: a CPU plugged; NULL: all */
} PlaneMigDest;

/*
 * plane_mig_check_setup: the setup section's regions (@d->setup) are ones
 * a source could have made fresh RAM for, within @d's limits.
 *
 * Returns: %true, or %false with a new one-line reason in *@why.
 */
bool plane_mig_check_setup(const PlaneMigDest *d, char **why);

/*
 * plane_mig_check_image: every record of the "vm-planes" section @img is
 * a state the guest could have brought the planes core to on @d: the
 * planes' lifecycle against the CONFIG and ACTIVATE records, each vCPU
 * index's pending record against the current-plane words, the regions,
 * the boot records, the attribute maps and the seal.
 *
 * Returns: %true, or %false with a new one-line reason in *@why.
 */
bool plane_mig_check_image(const PlaneMigDest *d, const PlaneMigImage *img,
                           char **why);

#endif
