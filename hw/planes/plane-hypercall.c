/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the plane hypercalls (CONFIG, ACTIVATE, VTL_CALL, VTL_RETURN,
 * SET_MEM_ATTRS), shared by every backend.  Each guest-supplied value is
 * checked here, once, before anything is changed.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/range.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "exec/address-spaces.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-hypercall.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/planes-abi.h"
#include "trace.h"

/* Where a call comes from: set, calling plane, vCPU index. */
typedef struct PlaneCaller {
    PlaneSet *set;
    const PlaneHypercall *hc;
    CPUState *cpu;
    unsigned int plane;
    unsigned int index;
} PlaneCaller;

/* A parsed entry of the guest's struct vm_plane_config array. */
typedef struct PlaneConfigEntry {
    uint64_t load_offset;
    uint64_t memory_size;
    uint64_t entry_point;
    char cmdline[PLANE_CONFIG_CMDLINE_LEN];
} PlaneConfigEntry;

static const char *plane_hc_name(uint64_t nr)
{
    static const char *const names[] = {
        [PLANES_HC_CONFIG] = "CONFIG",
        [PLANES_HC_ACTIVATE] = "ACTIVATE",
        [PLANES_HC_VTL_CALL] = "VTL_CALL",
        [PLANES_HC_VTL_RETURN] = "VTL_RETURN",
        [PLANES_HC_SET_MEM_ATTRS] = "SET_MEM_ATTRS",
    };

    return nr >= PLANES_HC_FIRST && nr <= PLANES_HC_LAST ? names[nr]
                                                          : "unknown";
}

/*
 * A refused call: trace it always, log it under -d guest_errors at most
 * PLANE_LOG_BURST times a second (a guest can loop on a bad call).
 */
#define PLANE_LOG_BURST 10

static int64_t G_GNUC_PRINTF(3, 4)
plane_hc_refuse(const PlaneCaller *c, int err, const char *fmt, ...)
{
    /* Covered by the BQL, which every plane hypercall holds. */
    static int64_t window_start;
    static unsigned int logged;
    g_autofree char *why = NULL;
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    va_list ap;

    va_start(ap, fmt);
    why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    trace_plane_hypercall_refused(plane_hc_name(c->hc->nr), c->plane,
                                  c->index, -err, why);
    if (now - window_start >= 1000) {
        window_start = now;
        logged = 0;
    }
    if (logged++ < PLANE_LOG_BURST) {
        qemu_log_mask(LOG_GUEST_ERROR, "planes: %s from plane %u on vCPU %u "
                      "refused (-%d): %s\n", plane_hc_name(c->hc->nr),
                      c->plane, c->index, err, why);
    }
    return -err;
}

static bool page_aligned(uint64_t v)
{
    return !(v & (PLANE_PAGE_SIZE - 1));
}

/* Reads and parses entries 1..count-1 of the config array at @gpa. */
static void plane_config_read(hwaddr gpa, unsigned int count,
                              PlaneConfigEntry *entries)
{
    g_autofree uint8_t *buf = g_malloc(count * PLANE_CONFIG_SIZE);

    address_space_read(&address_space_memory, gpa, MEMTXATTRS_UNSPECIFIED,
                       buf, count * PLANE_CONFIG_SIZE);
    for (unsigned int i = 1; i < count; i++) {
        const uint8_t *e = buf + i * PLANE_CONFIG_SIZE;

        entries[i].load_offset = ldq_le_p(e + PLANE_CONFIG_LOAD_OFFSET);
        entries[i].memory_size = ldq_le_p(e + PLANE_CONFIG_MEMORY_SIZE);
        entries[i].entry_point = ldq_le_p(e + PLANE_CONFIG_ENTRY_POINT);
        memcpy(entries[i].cmdline, e + PLANE_CONFIG_CMDLINE,
               PLANE_CONFIG_CMDLINE_LEN);
    }
}

/*
 * Count and array checks shared by CONFIG and ACTIVATE; on success the
 * array's entries are read into a new *@entries.
 */
static int64_t plane_config_load(const PlaneCaller *c, hwaddr gpa,
                                 uint64_t count, PlaneConfigEntry **entries)
{
    if (count < 2) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "count %" PRIu64
                               " (at least 2: plane 0 and one more)", count);
    }
    if (count > c->set->nr_planes) {
        return plane_hc_refuse(c, PLANES_KVM_E2BIG, "count %" PRIu64
                               " but the machine has %u planes", count,
                               c->set->nr_planes);
    }
    if (!plane_range_in_ram(gpa, count * PLANE_CONFIG_SIZE)) {
        return plane_hc_refuse(c, PLANES_KVM_EFAULT, "config array at 0x%"
                               HWADDR_PRIx " (%" PRIu64 " bytes) is not in "
                               "guest RAM", gpa, count * PLANE_CONFIG_SIZE);
    }
    *entries = g_new0(PlaneConfigEntry, count);
    plane_config_read(gpa, count, *entries);
    return 0;
}

static bool plane_cmdline_terminated(const PlaneConfigEntry *e)
{
    return memchr(e->cmdline, 0, PLANE_CONFIG_CMDLINE_LEN) != NULL;
}

/* Checks the region of entry @i; adds its fresh-RAM bytes to *@fresh. */
static int64_t plane_config_check_region(const PlaneCaller *c, hwaddr gpa,
                                         unsigned int count,
                                         const PlaneConfigEntry *entries,
                                         unsigned int i, uint64_t *fresh)
{
    const PlaneConfigEntry *e = &entries[i];
    uint64_t base = e->load_offset, size = e->memory_size;
    hwaddr limit = c->set->accel->phys_addr_limit(c->cpu);

    if (!size || !page_aligned(base) || !page_aligned(size)) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u region 0x%"
                               PRIx64 "+0x%" PRIx64 " is empty or not page "
                               "aligned", i, base, size);
    }
    if (size <= PLANE_BOOT_PAGETABLES) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u region size "
                               "0x%" PRIx64 " leaves no room beside its boot "
                               "state (0x%x bytes)", i, size,
                               PLANE_BOOT_PAGETABLES);
    }
    if (base < PLANE_REGION_MIN_BASE || base + size < base ||
        base + size > limit) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u region 0x%"
                               PRIx64 "+0x%" PRIx64 " is outside [0x%x, 0x%"
                               HWADDR_PRIx ")", i, base, size,
                               PLANE_REGION_MIN_BASE, limit);
    }
    if (ranges_overlap(base, size, gpa, count * PLANE_CONFIG_SIZE)) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u region "
                               "overlaps the config array", i);
    }
    for (unsigned int j = 1; j < i; j++) {
        if (ranges_overlap(base, size, entries[j].load_offset,
                               entries[j].memory_size)) {
            return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u region "
                                   "overlaps plane %u's", i, j);
        }
    }
    if (!plane_cmdline_terminated(e)) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u cmdline has "
                               "no NUL in its %d bytes", i,
                               PLANE_CONFIG_CMDLINE_LEN);
    }
    switch (plane_region_placement(c->set, base, size)) {
    case PLANE_REGION_INSIDE_RAM:
        return 0;
    case PLANE_REGION_OUTSIDE_RAM:
        *fresh += size;
        return 0;
    default:
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u region 0x%"
                               PRIx64 "+0x%" PRIx64 " overlaps MMIO, "
                               "firmware or only part of guest RAM", i,
                               base, size);
    }
}

static int64_t plane_hc_config(const PlaneCaller *c)
{
    PlaneSet *set = c->set;
    hwaddr gpa = c->hc->args[0];
    uint64_t count = c->hc->args[1], fresh = 0;
    g_autofree PlaneConfigEntry *entries = NULL;
    int64_t err;

    if (c->plane != 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "only plane 0 may "
                               "configure planes");
    }
    if (set->configured) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "planes are already "
                               "configured (once per boot)");
    }
    err = plane_config_load(c, gpa, count, &entries);
    if (err) {
        return err;
    }
    for (unsigned int i = 1; i < count; i++) {
        err = plane_config_check_region(c, gpa, count, entries, i, &fresh);
        if (err) {
            return err;
        }
    }
    if (fresh > set->ram_limit - set->ram_added) {
        return plane_hc_refuse(c, PLANES_KVM_E2BIG, "regions outside guest "
                               "RAM need 0x%" PRIx64 " bytes, plane-ram-limit "
                               "leaves 0x%" PRIx64, fresh,
                               set->ram_limit - set->ram_added);
    }

    /* Valid: from here on nothing can fail but host RAM allocation. */
    for (unsigned int i = 1; i < count; i++) {
        Plane *plane = set->planes[i];

        plane->region_base = entries[i].load_offset;
        plane->region_size = entries[i].memory_size;
        if (plane_region_placement(set, plane->region_base,
                                   plane->region_size) ==
                PLANE_REGION_OUTSIDE_RAM && !plane_region_add_ram(plane)) {
            for (unsigned int j = 1; j <= i; j++) {
                plane_region_remove_ram(set->planes[j]);
                set->planes[j]->region_base = set->planes[j]->region_size = 0;
            }
            return plane_hc_refuse(c, PLANES_KVM_E2BIG, "the host cannot "
                                   "allocate 0x%" PRIx64 " bytes for plane "
                                   "%u", entries[i].memory_size, i);
        }
    }
    for (unsigned int i = 1; i < count; i++) {
        plane_set_state(set->planes[i], PLANE_STATE_CONFIGURED);
    }
    set->configured = true;
    plane_layout_changed();
    set->config_gpa = gpa;
    set->config_count = count;
    return 0;
}

/* Builds plane @id's boot state in its region and on its vCPU index 0. */
static void plane_boot(PlaneSet *set, unsigned int id)
{
    Plane *plane = set->planes[id];
    PlaneBootInfo info = {
        .region_base = plane->region_base,
        .region_size = plane->region_size,
        .entry_point = plane->entry_point,
        .cmdline = plane->boot_cmdline,
    };

    set->accel->boot_vcpu(plane_cpu(plane, 0), &info);
}

/* Every vCPU index of @plane resumes from where it parked on vCPU 0. */
static void plane_vcpus_copy_parked(Plane *plane)
{
    CPUState *src = plane_cpu(plane, 0);

    for (unsigned int i = 1; i < plane->set->nr_vcpus; i++) {
        plane->set->accel->copy_parked_state(plane_cpu(plane, i), src);
    }
}

/*
 * The seal: plane 0 can no longer read, write or run the regions of
 * planes 1 to @count - 1.  All or nothing: if the host refuses one, the
 * seals already set are lifted and ACTIVATE fails with the host's code.
 */
static int64_t plane_seal_regions(const PlaneCaller *c, unsigned int count)
{
    PlaneSet *set = c->set;

    for (unsigned int i = 1; i < count; i++) {
        Plane *plane = set->planes[i];
        int err = plane_mem_attrs_set(set, c->cpu, 0, plane->region_base,
                                      plane->region_size,
                                      PLANE_MEM_ATTR_DENY_ALL);

        if (err) {
            unsigned int failed = i;

            while (--i) {
                plane = set->planes[i];
                plane_mem_attrs_set(set, c->cpu, 0, plane->region_base,
                                    plane->region_size, 0);
            }
            return plane_hc_refuse(c, -err, "sealing plane %u's region "
                                   "failed", failed);
        }
    }
    return 0;
}

static int64_t plane_hc_activate(const PlaneCaller *c, bool *switched)
{
    PlaneSet *set = c->set;
    hwaddr gpa = c->hc->args[0];
    uint64_t count = c->hc->args[1];
    g_autofree PlaneConfigEntry *entries = NULL;
    int64_t err;

    if (c->plane != 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "only plane 0 may "
                               "activate planes");
    }
    if (!set->configured) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "ACTIVATE before CONFIG");
    }
    if (set->planes[1]->state != PLANE_STATE_CONFIGURED) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "planes are already "
                               "activated");
    }
    if (c->index != 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "ACTIVATE must come from "
                               "vCPU 0, where the planes boot");
    }
    if (gpa != set->config_gpa || count != set->config_count) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "array 0x%" HWADDR_PRIx
                               "/%" PRIu64 " is not CONFIG's 0x%" HWADDR_PRIx
                               "/%u", gpa, count, set->config_gpa,
                               set->config_count);
    }
    err = plane_config_load(c, gpa, count, &entries);
    if (err) {
        return err;
    }
    for (unsigned int i = 1; i < count; i++) {
        Plane *plane = set->planes[i];
        const PlaneConfigEntry *e = &entries[i];
        uint64_t top = plane->region_base + plane->region_size;

        if (e->load_offset != plane->region_base ||
            e->memory_size != plane->region_size) {
            return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u region "
                                   "changed since CONFIG", i);
        }
        if (e->entry_point < plane->region_base ||
            e->entry_point >= top - PLANE_BOOT_PAGETABLES) {
            return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u entry "
                                   "point 0x%" PRIx64 " is outside its "
                                   "region [0x%" PRIx64 ", 0x%" PRIx64 ")",
                                   i, e->entry_point, plane->region_base,
                                   top - PLANE_BOOT_PAGETABLES);
        }
        if (!plane_cmdline_terminated(e)) {
            return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u cmdline "
                                   "has no NUL in its %d bytes", i,
                                   PLANE_CONFIG_CMDLINE_LEN);
        }
    }

    err = plane_seal_regions(c, count);
    if (err) {
        return err;
    }
    for (unsigned int i = 1; i < count; i++) {
        Plane *plane = set->planes[i];

        plane->entry_point = entries[i].entry_point;
        g_free(plane->boot_cmdline);
        plane->boot_cmdline = g_strdup(entries[i].cmdline);
        plane_set_state(plane, PLANE_STATE_ACTIVE);
    }
    plane_boot(set, 1);
    set->pending[0] = (PlanePending) {
        .kind = PLANE_PENDING_ACTIVATE, .caller = 0, .callee = 1,
    };
    plane_switch(set, 0, 1);
    plane_set_state(set->planes[1], PLANE_STATE_RUNNING);
    *switched = true;
    return 0;
}

static int64_t plane_check_vtl_page(const PlaneCaller *c, const char *what,
                                    hwaddr gpa)
{
    unsigned int p;

    if (!page_aligned(gpa)) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "%s page 0x%"
                               HWADDR_PRIx " is not page aligned", what, gpa);
    }
    if (!plane_range_in_ram(gpa, PLANE_VTL_PAGE_SIZE)) {
        return plane_hc_refuse(c, PLANES_KVM_EFAULT, "%s page 0x%"
                               HWADDR_PRIx " is not in guest RAM", what, gpa);
    }
    p = plane_region_overlapping(c->set, gpa, PLANE_VTL_PAGE_SIZE);
    if (p) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "%s page 0x%"
                               HWADDR_PRIx " lies in plane %u's region",
                               what, gpa, p);
    }
    return 0;
}

/*
 * The request and response pages of a VTL call.  A guest calls with the
 * same two again and again: the pair that passed last on this vCPU index
 * is taken as it is while the layout it was checked against holds.
 */
static int64_t plane_check_vtl_pages(const PlaneCaller *c, hwaddr request,
                                     hwaddr response)
{
    PlaneVtlPages *passed = &c->set->vtl_pages_ok[c->index];
    int64_t err;

    if (passed->valid && passed->request == request &&
        passed->response == response && passed->gen == plane_layout_gen()) {
        return 0;
    }
    err = plane_check_vtl_page(c, "request", request);
    if (!err) {
        err = plane_check_vtl_page(c, "response", response);
    }
    if (err) {
        return err;
    }
    if (request == response) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "request and response "
                               "share page 0x%" HWADDR_PRIx, request);
    }
    *passed = (PlaneVtlPages) {
        .valid = true, .request = request, .response = response,
        .gen = plane_layout_gen(),
    };
    return 0;
}

static int64_t plane_hc_vtl_call(const PlaneCaller *c, bool *switched)
{
    PlaneSet *set = c->set;
    Plane *target = set->planes[1];
    hwaddr request = c->hc->args[0], response = c->hc->args[1];
    int64_t err;

    if (c->plane != 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "only plane 0 makes VTL "
                               "calls");
    }
    /* Until ACTIVATE completes, plane 1 exists on vCPU 0 only. */
    if (target->state == PLANE_STATE_ACTIVE ||
        set->pending[0].kind == PLANE_PENDING_ACTIVATE) {
        return plane_hc_refuse(c, PLANES_KVM_EBUSY, "plane 1 is still "
                               "booting");
    }
    switch (target->state) {
    case PLANE_STATE_RUNNING:
    case PLANE_STATE_PARKED:
        break;
    default:
        return plane_hc_refuse(c, PLANES_KVM_EOPNOTSUPP, "plane 1 is %s, not "
                               "activated", PlaneState_str(target->state));
    }
    err = plane_check_vtl_pages(c, request, response);
    if (err) {
        return err;
    }

    set->accel->enter_vtl_call(plane_cpu(target, c->index), request,
                               response);
    set->pending[c->index] = (PlanePending) {
        .kind = PLANE_PENDING_VTL_CALL, .caller = 0, .callee = 1,
        .response_gpa = response,
    };
    plane_switch(set, c->index, 1);
    if (target->state == PLANE_STATE_PARKED) {
        plane_set_state(target, PLANE_STATE_RUNNING);
    }
    trace_plane_vtl_call(c->index, request, response);
    *switched = true;
    return 0;
}

/* The running plane @c->plane hands vCPU index @c->index back. */
static void plane_return(const PlaneCaller *c, int32_t status)
{
    PlaneSet *set = c->set;
    PlanePending *pending = &set->pending[c->index];
    Plane *plane = set->planes[c->plane];
    unsigned int caller = pending->caller;

    trace_plane_vtl_return(c->index, c->plane, status);
    if (pending->kind == PLANE_PENDING_VTL_CALL) {
        uint8_t le[4];

        /* The response page's s32 status field carries the call's status. */
        stl_le_p(le, status);
        address_space_write(&address_space_memory, pending->response_gpa,
                            MEMTXATTRS_UNSPECIFIED, le, sizeof(le));
    } else {
        unsigned int next = c->plane + 1;

        /* Booted: every vCPU index will enter this plane where it parked. */
        plane_vcpus_copy_parked(plane);
        if (next < set->config_count) {
            /* ACTIVATE boots the planes one after the other on vCPU 0. */
            plane_boot(set, next);
            pending->callee = next;
            plane_switch(set, 0, next);
            plane_set_state(plane, PLANE_STATE_PARKED);
            plane_set_state(set->planes[next], PLANE_STATE_RUNNING);
            return;
        }
    }
    *pending = (PlanePending) { .kind = PLANE_PENDING_NONE };
    set->accel->set_return(plane_cpu(set->planes[caller], c->index), 0);
    plane_switch(set, c->index, caller);
    if (!plane->running_on) {
        plane_set_state(plane, PLANE_STATE_PARKED);
    }
}

static int64_t plane_hc_vtl_return(const PlaneCaller *c, bool *switched)
{
    PlanePending *pending = &c->set->pending[c->index];

    if (c->plane == 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "plane 0 has no VTL "
                               "call to return from");
    }
    if (pending->kind == PLANE_PENDING_NONE || pending->callee != c->plane) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "no call pending for "
                               "plane %u on vCPU %u", c->plane, c->index);
    }
    plane_return(c, (int32_t)c->hc->args[0]);
    *switched = true;
    return 0;
}

static int64_t plane_hc_set_mem_attrs(const PlaneCaller *c)
{
    PlaneSet *set = c->set;
    hwaddr gpa = c->hc->args[0];
    uint64_t size = c->hc->args[1], attrs = c->hc->args[2];
    uint64_t target = c->hc->args[3];
    const uint64_t known = PLANE_MEM_ATTR_DENY_ALL;
    unsigned int target_region;
    int err;

    if (c->plane == 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "plane 0 may not set "
                               "memory attributes");
    }
    if (target >= set->nr_planes || target == c->plane) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "target plane %" PRIu64
                               " (a plane other than %u, below %u)", target,
                               c->plane, set->nr_planes);
    }
    if (attrs & ~known) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "attributes 0x%" PRIx64
                               " (known: 0x%" PRIx64 ")", attrs, known);
    }
    if (!size || !page_aligned(gpa) || !page_aligned(size) ||
        gpa + size < gpa) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "range 0x%" HWADDR_PRIx
                               "+0x%" PRIx64 " is empty or not page aligned",
                               gpa, size);
    }
    if (!plane_range_in_ram(gpa, size)) {
        return plane_hc_refuse(c, PLANES_KVM_EFAULT, "range 0x%" HWADDR_PRIx
                               "+0x%" PRIx64 " is not in guest RAM", gpa,
                               size);
    }
    target_region = plane_region_overlapping(set, gpa, size);
    if (target_region) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "range 0x%" HWADDR_PRIx
                               "+0x%" PRIx64 " touches plane %u's sealed "
                               "region", gpa, size, target_region);
    }
    err = plane_mem_attrs_set(set, c->cpu, target, gpa, size, attrs);
    if (err == -PLANES_KVM_E2BIG) {
        return plane_hc_refuse(c, PLANES_KVM_E2BIG, "the attribute map of "
                               "plane %" PRIu64 " is full", target);
    }
    if (err) {
        return plane_hc_refuse(c, -err, "the host refused attributes 0x%"
                               PRIx64 " for plane %" PRIu64, attrs, target);
    }
    return 0;
}

/* Finds the plane and vCPU index of a vCPU state. */
static bool plane_caller_init(PlaneCaller *c, CPUState *cpu)
{
    PlaneSet *set = plane_set_get();

    c->set = set;
    c->cpu = cpu;
    c->plane = cpu->plane_id;
    if (!set) {
        return false;
    }
    c->index = plane_cpu_index(set, cpu);
    return c->index < set->nr_vcpus;
}

bool plane_hypercall(const PlaneHypercall *hc, uint64_t *ret)
{
    PlaneCaller c = { .hc = hc };
    bool switched = false;
    int64_t r;

    BQL_LOCK_GUARD();
    if (!plane_caller_init(&c, hc->cpu)) {
        *ret = -PLANES_KVM_ENOSYS;
        return false;
    }
    trace_plane_hypercall(plane_hc_name(hc->nr), hc->nr, c.plane, c.index,
                          hc->args[0], hc->args[1], hc->args[2], hc->args[3]);
    if (hc->cpl != 0) {
        r = plane_hc_refuse(&c, PLANES_KVM_EPERM, "called at CPL %d",
                            hc->cpl);
    } else {
        switch (hc->nr) {
        case PLANES_HC_CONFIG:
            r = plane_hc_config(&c);
            break;
        case PLANES_HC_ACTIVATE:
            r = plane_hc_activate(&c, &switched);
            break;
        case PLANES_HC_VTL_CALL:
            r = plane_hc_vtl_call(&c, &switched);
            break;
        case PLANES_HC_VTL_RETURN:
            r = plane_hc_vtl_return(&c, &switched);
            break;
        case PLANES_HC_SET_MEM_ATTRS:
            r = plane_hc_set_mem_attrs(&c);
            break;
        default:
            r = -PLANES_KVM_ENOSYS;     /* as stock KVM, silently */
            break;
        }
    }
    *ret = r;
    return switched;
}

bool plane_park(CPUState *cpu)
{
    PlaneHypercall hc = { .cpu = cpu, .nr = PLANES_HC_VTL_RETURN };
    PlaneCaller c = { .hc = &hc };
    PlanePending *pending;

    BQL_LOCK_GUARD();
    if (!plane_caller_init(&c, cpu) || c.plane == 0) {
        return false;
    }
    pending = &c.set->pending[c.index];
    if (pending->kind == PLANE_PENDING_NONE || pending->callee != c.plane) {
        return false;
    }
    trace_plane_park_hlt(c.plane, c.index);
    plane_return(&c, 0);
    return true;
}
