/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: VM_PLANES_CONFIG and VM_PLANES_ACTIVATE.  CONFIG gives the
 * planes their regions (carved from guest RAM, or fresh RAM); ACTIVATE
 * seals every region against the planes below it, builds each plane's
 * boot state and runs the planes one after the other until they park.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qapi/error.h"
#include "system/runstate.h"
#include "migration/misc.h"
#include "exec/address-spaces.h"
#include "hw/core/cpu.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-accel.h"
#include "hw/planes/plane-dma.h"
#include "hw/planes/plane-hypercall.h"
#include "hw/planes/plane-measure.h"
#include "hw/planes/plane-memory.h"
#include "hw/planes/plane-ram.h"
#include "hw/planes/plane-rules.h"
#include "hw/planes/planes-abi.h"
#include "plane-dispatch.h"
#include "plane-internal.h"
#include "trace.h"

/*
 * Reads and parses entries 1..count-1 of the config array at @gpa.  QEMU
 * reads it for plane 0, so through plane 0's view (the one its devices
 * have): a page a higher plane hid from plane 0 fails.
 */
static bool plane_config_read(hwaddr gpa, unsigned int count,
                              PlaneConfigEntry *entries)
{
    g_autofree uint8_t *buf = g_malloc(count * PLANE_CONFIG_SIZE);

    if (address_space_read(plane_device_dma_as(), gpa,
                           MEMTXATTRS_UNSPECIFIED, buf,
                           count * PLANE_CONFIG_SIZE) != MEMTX_OK) {
        return false;
    }
    for (unsigned int i = 1; i < count; i++) {
        const uint8_t *e = buf + i * PLANE_CONFIG_SIZE;

        entries[i].load_offset = ldq_le_p(e + PLANE_CONFIG_LOAD_OFFSET);
        entries[i].memory_size = ldq_le_p(e + PLANE_CONFIG_MEMORY_SIZE);
        entries[i].entry_point = ldq_le_p(e + PLANE_CONFIG_ENTRY_POINT);
        entries[i].kernel_format = ldl_le_p(e + PLANE_CONFIG_KERNEL_FORMAT);
        memcpy(entries[i].cmdline, e + PLANE_CONFIG_CMDLINE,
               PLANE_CONFIG_CMDLINE_LEN);
    }
    return true;
}

/*
 * Count and array checks shared by CONFIG and ACTIVATE; on success the
 * array's entries are read into a new *@entries.
 */
static int64_t plane_config_load(const PlaneCaller *c, const PlaneLayout *l,
                                 hwaddr gpa, uint64_t count,
                                 PlaneConfigEntry **entries)
{
    g_autofree char *why = NULL;
    int err = plane_rule_config_array(l, gpa, count, &why);

    if (err) {
        return plane_hc_refuse(c, err, "%s", why);
    }
    *entries = g_new0(PlaneConfigEntry, count);
    if (!plane_config_read(gpa, count, *entries)) {
        return plane_hc_refuse(c, PLANES_KVM_EFAULT, "config array at 0x%"
                               HWADDR_PRIx " is hidden from plane 0", gpa);
    }
    return 0;
}

/*
 * A CONFIG after the accepted one: a kexec'd plane 0 configures again.
 * The same planes and regions are no change (0); before ACTIVATE, the
 * array ACTIVATE must name moves to the new one.  Anything else is a
 * change that only a system reset allows.
 */
static int64_t plane_hc_config_again(const PlaneCaller *c,
                                     const PlaneLayout *l, hwaddr gpa,
                                     uint64_t count,
                                     const PlaneConfigEntry *entries)
{
    PlaneSet *set = c->set;
    g_autofree char *why = NULL;
    int err = plane_rule_config_again(l, set->config_count, count, entries,
                                      &why);

    if (err) {
        return plane_hc_refuse(c, err, "%s", why);
    }
    if (set->planes[1]->state == PLANE_STATE_CONFIGURED) {
        set->config_gpa = gpa;
    }
    return 0;
}

/*
 * A region that needs fresh RAM is refused while a migration runs: a RAM
 * block must not appear under its feet.
 */
static int64_t plane_config_check_migration(const PlaneCaller *c,
                                            unsigned int count,
                                            const PlaneConfigEntry *entries)
{
    for (unsigned int i = 1; i < count; i++) {
        if (plane_region_placement(c->set, entries[i].load_offset,
                                   entries[i].memory_size) ==
                PLANE_REGION_OUTSIDE_RAM && migration_is_running()) {
            return plane_hc_refuse(c, PLANES_KVM_EBUSY, "plane %u's region "
                                   "needs fresh RAM while a migration runs",
                                   i);
        }
    }
    return 0;
}

/*
 * The accepted CONFIG takes effect: nothing can fail any more but host
 * RAM allocation for regions outside guest RAM, which undoes it all.
 */
static int64_t plane_config_commit(const PlaneCaller *c, hwaddr gpa,
                                   unsigned int count,
                                   const PlaneConfigEntry *entries)
{
    PlaneSet *set = c->set;

    for (unsigned int i = 1; i < count; i++) {
        Plane *plane = set->planes[i];

        plane->region_base = entries[i].load_offset;
        plane->region_size = entries[i].memory_size;
        plane->kernel_format = entries[i].kernel_format;
        if (plane_region_placement(set, plane->region_base,
                                   plane->region_size) ==
                PLANE_REGION_OUTSIDE_RAM && !plane_region_add_ram(plane)) {
            for (unsigned int j = 1; j <= i; j++) {
                plane_region_remove_ram(set->planes[j]);
                set->planes[j]->region_base = set->planes[j]->region_size = 0;
                set->planes[j]->kernel_format = 0;
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

/*
 * Only plane 0 may CONFIG and ACTIVATE (@what), and only where the host
 * did not launch plane 1 itself (-object plane-launch).
 */
static int64_t plane_config_caller_check(const PlaneCaller *c,
                                         const char *what)
{
    if (c->plane != 0) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "only plane 0 may %s "
                               "planes", what);
    }
    if (c->set->host_launch) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "plane 1 was launched "
                               "by the host");
    }
    return 0;
}

/* Reads and parses entries 1..count-1 of the config array at @gpa. */
int64_t plane_hc_config(const PlaneCaller *c)
{
    PlaneSet *set = c->set;
    hwaddr gpa = c->hc->args[0];
    uint64_t count = c->hc->args[1];
    g_autofree PlaneConfigEntry *entries = NULL;
    g_autofree char *why = NULL;
    PlaneLayout l;
    int64_t err;

    err = plane_config_caller_check(c, "configure");
    if (err) {
        return err;
    }
    plane_layout_describe(set, c->cpu, &l);
    err = plane_config_load(c, &l, gpa, count, &entries);
    if (err) {
        return err;
    }
    if (set->configured) {
        return plane_hc_config_again(c, &l, gpa, count, entries);
    }
    err = plane_rule_config_regions(&l, gpa, count, entries,
                                    set->ram_limit - set->ram_added, &why);
    if (err) {
        return plane_hc_refuse(c, err, "%s", why);
    }
    return plane_config_check_migration(c, count, entries) ?:
           plane_config_commit(c, gpa, count, entries);
}

/* The boot state of plane @id, as ACTIVATE accepted it. */
static PlaneBootInfo plane_boot_info(Plane *plane)
{
    return (PlaneBootInfo) {
        .region_base = plane->region_base,
        .region_size = plane->region_size,
        .entry_point = plane->entry_point,
        .kernel_format = plane->kernel_format,
        .cmdline = plane->boot_cmdline,
    };
}

void plane_boot(PlaneSet *set, unsigned int id)
{
    Plane *plane = set->planes[id];
    PlaneBootInfo info = plane_boot_info(plane);

    /* The plane's shared state boots on its home index, whoever called */
    plane->busy = true;
    set->accel->boot_vcpu(plane_cpu(plane, plane->home), &info);
    plane_note_state_replaced(plane, plane->home);
}

/* Only that it ran matters: see plane_boot_after_seal(). */
static void plane_seal_barrier(CPUState *cpu, run_on_cpu_data unused)
{
}

static void plane_boot_sealed(CPUState *cpu, run_on_cpu_data seq)
{
    PlaneSet *set = plane_set_get();

    set->boot_queued = false;
    /* A reset or another ACTIVATE came first: that one boots, or none */
    if (seq.host_ulong == set->activate_seq) {
        plane_boot(set, 1);
    }
}

/*
 * Under TCG a vCPU of plane 0 may still reach the region through a
 * translation made before the seal until it has taken the TLB flush the
 * seal queued for it, which it does before it next enters guest code.
 * So plane 1's boot state is written, and plane 1 starts, on plane 1's
 * thread after a barrier: safe work, which runs once every vCPU is out of
 * guest code, and from which none re-enters it unflushed.  The state
 * counts as replaced now, so that no poller of that state runs on without
 * taking its queued work first.
 */
void plane_boot_after_seal(PlaneSet *set)
{
    Plane *plane = set->planes[1];
    CPUState *cpu = plane_cpu(plane, plane->home);

    set->activate_seq++;
    set->boot_queued = true;
    plane_note_state_replaced(plane, plane->home);
    async_safe_run_on_cpu(cpu, plane_seal_barrier, RUN_ON_CPU_NULL);
    async_run_on_cpu(cpu, plane_boot_sealed,
                     RUN_ON_CPU_HOST_ULONG(set->activate_seq));
}

/*
 * The seal: no plane below plane i can read, write or run plane i's
 * region, for i from 1 to @count - 1.  All or nothing: if the host
 * refuses one, the seals already set are lifted and ACTIVATE fails with
 * the host's code.
 */
static int64_t plane_seal_regions(const PlaneCaller *c, unsigned int count)
{
    PlaneSet *set = c->set;
    unsigned int done = 0;          /* (region, lower plane) pairs sealed */
    int err = 0;

    for (unsigned int i = 1; i < count && !err; i++) {
        Plane *plane = set->planes[i];

        for (unsigned int below = 0; below < i; below++) {
            err = plane_mem_attrs_set(set, c->cpu, below, plane->region_base,
                                      plane->region_size,
                                      PLANE_MEM_ATTR_DENY_ALL,
                                      PLANE_MEM_ATTRS_SEAL);
            if (err) {
                break;
            }
            done++;
        }
    }
    if (!err) {
        return 0;
    }
    for (unsigned int i = 1; done; i++) {
        Plane *plane = set->planes[i];

        for (unsigned int below = 0; below < i && done; below++, done--) {
            plane_mem_attrs_set(set, c->cpu, below, plane->region_base,
                                plane->region_size, 0, PLANE_MEM_ATTRS_SEAL);
        }
    }
    return plane_hc_refuse(c, -err, "sealing the plane regions failed");
}

/*
 * ACTIVATE's checks of each entry, and of each plane's kernel: the boot
 * state ACTIVATE would build, in @boot.  Nothing changes yet.
 */
static int64_t plane_activate_check(const PlaneCaller *c, const PlaneLayout *l,
                                    const PlaneConfigEntry *entries,
                                    unsigned int count, PlaneBootInfo *boot)
{
    PlaneSet *set = c->set;
    g_autofree char *why = NULL;

    for (unsigned int i = 1; i < count; i++) {
        const PlaneConfigEntry *e = &entries[i];
        int64_t err = plane_rule_activate_entry(l, i, e, &why);

        if (err) {
            return plane_hc_refuse(c, err, "%s", why);
        }
        boot[i] = plane_boot_info(set->planes[i]);
        boot[i].entry_point = e->entry_point;
        boot[i].cmdline = e->cmdline;
        if (set->accel->prepare_boot &&
            !set->accel->prepare_boot(&boot[i], &why)) {
            return plane_hc_refuse(c, PLANES_KVM_EINVAL, "plane %u kernel "
                                   "cannot boot: %s", i, why);
        }
    }
    return 0;
}

/* Sealed: the planes are active; plane 0 waits on the caller's index */
static void plane_activate_record(const PlaneCaller *c,
                                  const PlaneConfigEntry *entries,
                                  const PlaneBootInfo *boot,
                                  unsigned int count)
{
    PlaneSet *set = c->set;

    for (unsigned int i = 1; i < count; i++) {
        Plane *plane = set->planes[i];

        /* prepare_boot's entry: a bzImage starts at its 64-bit entry */
        plane->entry_point = boot[i].entry_point;
        g_free(plane->boot_cmdline);
        plane->boot_cmdline = g_strdup(entries[i].cmdline);
        plane_measure(plane, &boot[i]);
        plane_set_state(plane, PLANE_STATE_ACTIVE);
    }
    set->activate_index = c->index;
}

void plane_activate_start(PlaneSet *set, unsigned int index)
{
    set->activate_index = index;
    set->activating = true;
    set->pending[index] = (PlanePending) {
        .kind = PLANE_PENDING_ACTIVATE, .caller = 0, .callee = 1,
    };
    plane_boot_after_seal(set);
    plane_bind_states(set->planes[1]);
    plane_switch(set, index, 1);
    plane_set_state(set->planes[1], PLANE_STATE_RUNNING);
}

/*
 * Plane 1 boots now on its home index, for the caller's index (which
 * waits switched out), and runs until it parks.
 */
static void plane_activate_commit(const PlaneCaller *c,
                                  const PlaneConfigEntry *entries,
                                  const PlaneBootInfo *boot,
                                  unsigned int count)
{
    plane_activate_record(c, entries, boot, count);
    plane_activate_start(c->set, c->index);
}

/*
 * The host switches planes: it enters plane 1 on its home index (the boot
 * vCPU's, whichever index called) at the first VTL call from there
 * (lazily, as the seed's VMM boots it), so ACTIVATE only hands the boot
 * state to the host and returns at once.  Plane 1 stays 'active' as far
 * as QEMU can tell.
 */
static int64_t plane_activate_in_host(const PlaneCaller *c,
                                      const PlaneConfigEntry *entries,
                                      const PlaneBootInfo *boot,
                                      unsigned int count)
{
    PlaneSet *set = c->set;
    Error *err = NULL;

    plane_activate_record(c, entries, boot, count);
    if (!set->accel->host_activate(1, set->planes[1]->home, &boot[1],
                                   &err)) {
        /* The host may hold a half-made state: nothing may run it. */
        error_reportf_err(err, "planes: ACTIVATE on vCPU %u: VM stopped: ",
                          c->index);
        qemu_system_vmstop_request_prepare();
        qemu_system_vmstop_request(RUN_STATE_INTERNAL_ERROR);
        return -PLANES_KVM_EINVAL;
    }
    return 0;
}

int64_t plane_hc_activate(const PlaneCaller *c, PlaneHcOutcome *out)
{
    PlaneSet *set = c->set;
    hwaddr gpa = c->hc->args[0];
    uint64_t count = c->hc->args[1];
    g_autofree PlaneConfigEntry *entries = NULL;
    g_autofree PlaneBootInfo *boot = NULL;
    PlaneLayout l;
    int64_t err;

    err = plane_config_caller_check(c, "activate");
    if (err) {
        return err;
    }
    if (!set->configured) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "ACTIVATE before CONFIG");
    }
    if (set->planes[1]->state != PLANE_STATE_CONFIGURED) {
        return plane_hc_refuse(c, PLANES_KVM_EPERM, "planes are already "
                               "activated");
    }
    if (gpa != set->config_gpa || count != set->config_count) {
        return plane_hc_refuse(c, PLANES_KVM_EINVAL, "array 0x%" HWADDR_PRIx
                               "/%" PRIu64 " is not CONFIG's 0x%" HWADDR_PRIx
                               "/%u", gpa, count, set->config_gpa,
                               set->config_count);
    }
    plane_layout_describe(set, c->cpu, &l);
    err = plane_config_load(c, &l, gpa, count, &entries);
    if (err) {
        return err;
    }
    boot = g_new0(PlaneBootInfo, count);
    err = plane_activate_check(c, &l, entries, count, boot) ?:
          plane_seal_regions(c, count);
    if (err) {
        return err;
    }
    if (set->accel->host_switches_planes) {
        return plane_activate_in_host(c, entries, boot, count);
    }
    plane_activate_commit(c, entries, boot, count);
    *out = PLANE_HC_SWITCHED;
    return 0;
}
