/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: an incoming migration stream's planes records checked as a
 * whole, before anything is applied (see plane-migration-check.h).
 *
 * A stream is data from outside: each rule below is an invariant the
 * running planes core relies on (a switch never to the plane already
 * current, a region QEMU can build a boot state in, one index at a time
 * on a plane's shared state, ...), written as a condition on the loaded
 * records.  One function per record, so that a change of a record's
 * meaning changes one function.  The rules are those of the guest ABI
 * (plane-rules.c) wherever a record is what a hypercall accepted.
 */

#include "qemu/osdep.h"
#include "qemu/range.h"
#include "hw/planes/plane-migration-check.h"

/* CONFIG's regions are whole pages (plane-rules.c) */
#define PLANE_MIG_PAGE_SIZE 0x1000

typedef struct PlaneMigCheck {
    const PlaneMigDest *d;
    const PlaneMigImage *img;
    /* The layout with the stream's regions; ranges without fresh RAM */
    PlaneLayout l;
    /* The same ranges with fresh RAM: where the guest has memory */
    PlaneLayout full;
    bool activated;             /* ACTIVATE succeeded since CONFIG */
    char **why;
} PlaneMigCheck;

static const char *const plane_mig_state_names[] = {
    "created", "configured", "active", "running", "parked", "stopped",
};

static const char *plane_mig_state_name(uint32_t state)
{
    return state < PLANE_MIG_STATE__MAX ? plane_mig_state_names[state] :
           "(invalid)";
}

static bool G_GNUC_PRINTF(2, 3) plane_mig_refuse(char **why,
                                                 const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    g_free(*why);
    *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return false;
}

static bool plane_mig_rule(char **why, int err, char *rule_why,
                           const char *what)
{
    g_autofree char *own = rule_why;

    if (!err) {
        return true;
    }
    return plane_mig_refuse(why, "%s: %s", what, own);
}

/* A plane's state on index @i: PLANE_MIG_VCPU_* */
static uint8_t plane_mig_vcpu_flags(const PlaneMigPlane *mp, unsigned int i)
{
    return mp->vcpu_enabled ? mp->vcpu_enabled[i] : 0;
}

static bool plane_mig_enabled(const PlaneMigPlane *mp, unsigned int i)
{
    return plane_mig_vcpu_flags(mp, i) & PLANE_MIG_VCPU_ENABLED;
}

static bool plane_mig_present(const PlaneMigDest *d, unsigned int i)
{
    return !d->present || d->present[i];
}

static bool plane_mig_is_activated(uint32_t state)
{
    return state >= PLANE_MIG_STATE_ACTIVE && state < PLANE_MIG_STATE__MAX;
}

/* Neither a region nor a boot record: a plane never configured */
static bool plane_mig_plane_blank(const PlaneMigPlane *mp)
{
    return !mp->region_base && !mp->region_size && !mp->entry_point &&
           !mp->kernel_format && !mp->has_cmdline && !mp->busy && !mp->home;
}

/* An attribute map in the one form plane_attr_map_set() makes */
static bool plane_mig_check_map(PlaneMigCheck *c, unsigned int p,
                                const PlaneMigPlane *mp)
{
    for (int32_t r = 0; r < mp->nr_ranges; r++) {
        const PlaneMemAttrRange *range = &mp->ranges[r];
        const PlaneMemAttrRange *prev = r ? &mp->ranges[r - 1] : NULL;

        if (range->start >= range->end || !range->attrs ||
            (range->attrs & ~PLANE_MEM_ATTR_DENY_ALL) ||
            (prev && range->start < prev->end) ||
            (prev && range->start == prev->end &&
             range->attrs == prev->attrs)) {
            return plane_mig_refuse(c->why, "plane %u attribute range %d "
                                    "[0x%" PRIx64 ", 0x%" PRIx64 ") attrs "
                                    "0x%x is empty, unsorted, overlapping, "
                                    "unmerged or has bits outside 0x%x", p,
                                    r, range->start, range->end,
                                    range->attrs, PLANE_MEM_ATTR_DENY_ALL);
        }
        if (!plane_layout_in_ram(&c->full, range->start,
                                 range->end - range->start)) {
            return plane_mig_refuse(c->why, "plane %u attribute range "
                                    "[0x%" PRIx64 ", 0x%" PRIx64 ") is not "
                                    "in guest RAM", p, range->start,
                                    range->end);
        }
    }
    return true;
}

/* What one plane's record holds by itself, before it is compared */
static bool plane_mig_check_plane(PlaneMigCheck *c, unsigned int p)
{
    const PlaneMigPlane *mp = &c->img->planes[p];
    const PlaneMigDest *d = c->d;

    if (mp->state >= PLANE_MIG_STATE__MAX) {
        return plane_mig_refuse(c->why, "plane %u state %u (at most %u)", p,
                                mp->state, PLANE_MIG_STATE__MAX - 1);
    }
    if (mp->kernel_format > PLANE_KERNEL_ELF) {
        return plane_mig_refuse(c->why, "plane %u kernel format %u (at "
                                "most %u)", p, mp->kernel_format,
                                PLANE_KERNEL_ELF);
    }
    if (mp->home != PLANE_MIG_HOME_INDEX) {
        return plane_mig_refuse(c->why, "plane %u home vCPU index %u (a "
                                "plane's shared state lives on index %u for "
                                "its whole life)", p, mp->home,
                                PLANE_MIG_HOME_INDEX);
    }
    if (mp->nr_vcpus != d->nr_vcpus || mp->nr_ranges < 0 ||
        mp->nr_ranges > PLANE_MEM_ATTR_MAX_RANGES) {
        return plane_mig_refuse(c->why, "plane %u has %u vCPU states and %d "
                                "attribute ranges (%u and at most %u here)",
                                p, mp->nr_vcpus, mp->nr_ranges, d->nr_vcpus,
                                PLANE_MEM_ATTR_MAX_RANGES);
    }
    if (!memchr(mp->cmdline, 0, sizeof(mp->cmdline)) ||
        (!mp->has_cmdline && mp->cmdline[0])) {
        return plane_mig_refuse(c->why, "plane %u command line has no NUL "
                                "in its %d bytes, or is set without a boot "
                                "record", p, PLANE_CONFIG_CMDLINE_LEN);
    }
    for (unsigned int i = 0; i < d->nr_vcpus; i++) {
        uint8_t e = plane_mig_vcpu_flags(mp, i);

        if ((e & ~(PLANE_MIG_VCPU_ENABLED | PLANE_MIG_VCPU_FRESH)) ||
            ((e & PLANE_MIG_VCPU_FRESH) && !(e & PLANE_MIG_VCPU_ENABLED)) ||
            (e && (p == 0 || i == mp->home || !plane_mig_present(d, i) ||
                   mp->state < PLANE_MIG_STATE_RUNNING))) {
            return plane_mig_refuse(c->why, "plane %u vCPU %u enabled flags "
                                    "0x%x in state %s, home %u, %s", p, i, e,
                                    plane_mig_state_name(mp->state), mp->home,
                                    plane_mig_present(d, i) ? "a CPU there" :
                                    "no CPU there");
        }
    }
    if (p == 0 && (mp->state != PLANE_MIG_STATE_RUNNING ||
                   !plane_mig_plane_blank(mp))) {
        return plane_mig_refuse(c->why, "plane 0 is %s or has a region or "
                                "boot record (it has neither and runs)",
                                plane_mig_state_name(mp->state));
    }
    return plane_mig_check_map(c, p, mp);
}

/* A configured region, as CONFIG accepted it and RAM backs it here */
static bool plane_mig_check_regions(PlaneMigCheck *c)
{
    const PlaneMigImage *img = c->img;
    g_autofree PlaneConfigEntry *entries = g_new0(PlaneConfigEntry,
                                                  img->config_count);
    g_autofree char *rule_why = NULL;
    int err;

    err = plane_rule_config_array(&c->l, img->config_gpa, img->config_count,
                                  &rule_why);
    if (!plane_mig_rule(c->why, err, g_steal_pointer(&rule_why),
                        "CONFIG record")) {
        return false;
    }
    for (unsigned int p = 1; p < img->config_count; p++) {
        entries[p].load_offset = img->planes[p].region_base;
        entries[p].memory_size = img->planes[p].region_size;
        entries[p].kernel_format = img->planes[p].kernel_format;
    }
    err = plane_rule_config_regions(&c->l, img->config_gpa, img->config_count,
                                    entries, c->d->ram_limit, &rule_why);
    if (!plane_mig_rule(c->why, err, g_steal_pointer(&rule_why),
                        "CONFIG record")) {
        return false;
    }
    for (unsigned int p = 1; p < img->config_count; p++) {
        const PlaneLayoutRegion *r = &c->l.regions[p];
        const PlaneMigRegion *s = &c->d->setup[p];

        if (r->fresh && (!s->fresh || s->base != r->base ||
                         s->size != r->size ||
                         !plane_layout_in_ram(&c->full, r->base, r->size))) {
            return plane_mig_refuse(c->why, "plane %u region 0x%" PRIx64
                                    "+0x%" PRIx64 " is outside guest RAM "
                                    "but not the fresh RAM the setup "
                                    "section made", p, r->base, r->size);
        }
    }
    return true;
}

/* A plane past ACTIVATE: its boot record as ACTIVATE accepted it */
static bool plane_mig_check_boot_record(PlaneMigCheck *c, unsigned int p)
{
    const PlaneMigPlane *mp = &c->img->planes[p];
    g_autofree char *rule_why = NULL;
    g_autofree char *what = g_strdup_printf("plane %u boot record", p);
    PlaneConfigEntry e = {
        .load_offset = mp->region_base, .memory_size = mp->region_size,
        .entry_point = mp->entry_point, .kernel_format = mp->kernel_format,
    };
    int err;

    if (!mp->has_cmdline) {
        return plane_mig_refuse(c->why, "plane %u is %s without a command "
                                "line", p, plane_mig_state_name(mp->state));
    }
    memcpy(e.cmdline, mp->cmdline, sizeof(e.cmdline));
    err = plane_rule_activate_entry(&c->l, p, &e, &rule_why);
    return plane_mig_rule(c->why, err, g_steal_pointer(&rule_why), what);
}

/*
 * The planes' lifecycle against CONFIG's and ACTIVATE's records: CONFIG
 * configures planes 1 to count - 1 at once, ACTIVATE activates them all
 * at once, the others stay created; a reset clears everything.
 */
static bool plane_mig_check_lifecycle(PlaneMigCheck *c)
{
    const PlaneMigImage *img = c->img;
    unsigned int count = img->configured ? img->config_count : 1;

    if (!img->configured && (img->config_count || img->config_gpa)) {
        return plane_mig_refuse(c->why, "CONFIG record 0x%" PRIx64 "/%u "
                                "without CONFIG", img->config_gpa,
                                img->config_count);
    }
    c->activated = count > 1 &&
                   plane_mig_is_activated(img->planes[1].state);
    for (unsigned int p = 1; p < c->d->nr_planes; p++) {
        const PlaneMigPlane *mp = &img->planes[p];
        uint32_t want = p >= count ? PLANE_MIG_STATE_CREATED :
                        !c->activated ? PLANE_MIG_STATE_CONFIGURED :
                        mp->state;

        if (mp->state != want || (p < count && c->activated &&
                                  !plane_mig_is_activated(mp->state))) {
            return plane_mig_refuse(c->why, "plane %u is %s, but CONFIG "
                                    "configured %u planes and plane 1 is %s",
                                    p, plane_mig_state_name(mp->state),
                                    count, plane_mig_state_name(
                                        img->planes[1].state));
        }
        if (p >= count && !plane_mig_plane_blank(mp)) {
            return plane_mig_refuse(c->why, "plane %u is created but has a "
                                    "region or boot record", p);
        }
        if (p < count && !c->activated &&
            (mp->entry_point || mp->has_cmdline || mp->busy || mp->home)) {
            return plane_mig_refuse(c->why, "plane %u is configured but has "
                                    "a boot record (entry point 0x%" PRIx64
                                    "): ACTIVATE ran", p, mp->entry_point);
        }
    }
    if (count > 1 && !plane_mig_check_regions(c)) {
        return false;
    }
    for (unsigned int p = 1; c->activated && p < count; p++) {
        if (!plane_mig_check_boot_record(c, p)) {
            return false;
        }
    }
    return true;
}

/* A calling area as VTL_CALL accepted it */
static bool plane_mig_check_call_area(PlaneMigCheck *c, unsigned int i,
                                      uint64_t area)
{
    g_autofree char *rule_why = NULL;
    g_autofree char *what = g_strdup_printf("vCPU %u pending call", i);
    int err = plane_rule_call_area(&c->l, area, &rule_why);

    return plane_mig_rule(c->why, err, g_steal_pointer(&rule_why), what);
}

/*
 * Index @i's pending record against its current-plane word: the plane in
 * the hypercall (caller) is off the CPU, the plane serving it (callee) is
 * on it; only plane 0 makes VTL calls, to plane 1.
 */
static bool plane_mig_check_index(PlaneMigCheck *c, unsigned int i)
{
    const PlaneMigImage *img = c->img;
    const PlaneMigPending *pp = &img->pending[i];
    uint32_t cur = pp->current & ~PLANE_MIG_WAITING;
    bool ok;

    if (cur >= c->d->nr_planes) {
        return plane_mig_refuse(c->why, "vCPU %u current plane word 0x%x "
                                "(planes below %u)", i, pp->current,
                                c->d->nr_planes);
    }
    if (!plane_mig_present(c->d, i) && (pp->current || pp->kind)) {
        return plane_mig_refuse(c->why, "vCPU %u has no CPU here but runs "
                                "plane %u or has a call pending (plug it "
                                "with -device on the destination)", i, cur);
    }
    switch (pp->kind) {
    case PLANE_MIG_PENDING_NONE:
        /* a plane that shut down waits where it stopped, until reset */
        ok = !pp->caller && !pp->callee && !pp->calling_area &&
             !pp->wait_seq && !pp->call_after_park &&
             (pp->current == 0 ||
              (pp->current == (cur | PLANE_MIG_WAITING) &&
               img->planes[cur].state == PLANE_MIG_STATE_STOPPED));
        break;
    case PLANE_MIG_PENDING_ACTIVATE:
        ok = img->activating && i == img->activate_index && !pp->caller &&
             pp->callee >= 1 && pp->callee < img->config_count &&
             pp->current == pp->callee && !pp->calling_area &&
             !pp->call_after_park;
        break;
    case PLANE_MIG_PENDING_VTL_CALL:
        ok = !img->activating && !pp->caller && pp->callee == 1 &&
             pp->current == 1 &&
             (!pp->call_after_park ||
              plane_mig_vcpu_flags(&img->planes[1], i) ==
                  PLANE_MIG_VCPU_ENABLED);
        break;
    case PLANE_MIG_PENDING_WAITING:
        ok = !img->activating && !pp->caller && pp->callee == 1 &&
             pp->current == PLANE_MIG_WAITING && !pp->call_after_park &&
             pp->wait_seq && pp->wait_seq <= img->wait_seq &&
             img->planes[1].busy;
        break;
    default:
        ok = false;
    }
    if (ok && pp->kind && c->d->host_switches_planes) {
        ok = false;
    }
    if (!ok) {
        return plane_mig_refuse(c->why, "vCPU %u pending record kind %u "
                                "caller %u callee %u (current plane word "
                                "0x%x) is none the planes can be in", i,
                                pp->kind, pp->caller, pp->callee,
                                pp->current);
    }
    if (pp->kind == PLANE_MIG_PENDING_VTL_CALL ||
        pp->kind == PLANE_MIG_PENDING_WAITING) {
        return plane_mig_check_call_area(c, i, pp->calling_area);
    }
    return true;
}

/* How many indexes plane @p runs on, and which one on its shared state */
static unsigned int plane_mig_running_on(const PlaneMigCheck *c,
                                         unsigned int p, unsigned int *shared,
                                         unsigned int *nr_shared)
{
    const PlaneMigPlane *mp = &c->img->planes[p];
    unsigned int n = 0;

    *nr_shared = 0;
    for (unsigned int i = 0; i < c->d->nr_vcpus; i++) {
        if (c->img->pending[i].current != p) {
            continue;
        }
        n++;
        if (!plane_mig_enabled(mp, i)) {
            *shared = i;
            (*nr_shared)++;
        }
    }
    return n;
}

/*
 * Plane @p >= 1's state against where it runs: running exactly where it
 * serves a call or ACTIVATE; its one shared state (the home index's)
 * serving one index at a time, and busy then (ACTIVATE's queued boot
 * makes it busy later).
 */
static bool plane_mig_check_plane_runs(PlaneMigCheck *c, unsigned int p)
{
    const PlaneMigImage *img = c->img;
    const PlaneMigPlane *mp = &img->planes[p];
    const PlaneMigPending *act = &img->pending[img->activate_index];
    bool boot_queued = img->boot_queued && p == 1;
    unsigned int shared = 0, nr_shared;
    unsigned int runs = plane_mig_running_on(c, p, &shared, &nr_shared);
    bool ok;

    switch (mp->state) {
    case PLANE_MIG_STATE_RUNNING:
        ok = runs > 0;
        break;
    case PLANE_MIG_STATE_ACTIVE:
        ok = !runs && (c->d->host_switches_planes ||
                       (img->activating && act->callee < p));
        break;
    default:
        ok = !runs;
    }
    if (ok && img->activating && mp->state != PLANE_MIG_STATE_CREATED) {
        ok = mp->state == (p < act->callee ? PLANE_MIG_STATE_PARKED :
                           p == act->callee ? PLANE_MIG_STATE_RUNNING :
                           PLANE_MIG_STATE_ACTIVE);
    }
    if (ok) {
        /* the host's planes never take the shared state from QEMU */
        ok = c->d->host_switches_planes || boot_queued ? !mp->busy :
             mp->busy ? nr_shared == 1 : !nr_shared;
    }
    if (!ok) {
        return plane_mig_refuse(c->why, "plane %u is %s%s on %u vCPU "
                                "indexes (%u on its shared state, the last "
                                "%u)", p, plane_mig_state_name(mp->state),
                                mp->busy ? " and busy" : "", runs, nr_shared,
                                shared);
    }
    return true;
}

/*
 * The seal: for each activated plane i, every plane below i - 1 is
 * denied all of plane i's region (plane i may grant plane i - 1 access
 * to its own region, through SET_MEM_ATTRS).  A map of a plane with no
 * activated plane above it is empty.
 */
static bool plane_mig_check_seal(PlaneMigCheck *c)
{
    const PlaneMigImage *img = c->img;
    unsigned int count = c->activated ? img->config_count : 1;

    for (unsigned int below = 0; below < c->d->nr_planes; below++) {
        const PlaneMigPlane *mb = &img->planes[below];

        if (mb->nr_ranges && below + 1 >= count) {
            return plane_mig_refuse(c->why, "plane %u has %d attribute "
                                    "ranges, but no activated plane above "
                                    "it", below, mb->nr_ranges);
        }
        for (unsigned int p = below + 2; p < count; p++) {
            const PlaneMigPlane *mp = &img->planes[p];
            uint64_t gpa = mp->region_base, top = gpa + mp->region_size;
            size_t r = 0;

            /* the ranges are sorted: walk them along the region */
            while (gpa < top) {
                while (r < mb->nr_ranges && mb->ranges[r].end <= gpa) {
                    r++;
                }
                if (r == mb->nr_ranges || mb->ranges[r].start > gpa ||
                    mb->ranges[r].attrs != PLANE_MEM_ATTR_DENY_ALL) {
                    return plane_mig_refuse(c->why, "plane %u may access "
                                            "0x%" PRIx64 " in plane %u's "
                                            "region: the seal is broken",
                                            below, gpa, p);
                }
                gpa = mb->ranges[r].end;
            }
        }
    }
    return true;
}

/* The set's own records: ACTIVATE in progress, its queued boot, a stop */
static bool plane_mig_check_set(PlaneMigCheck *c)
{
    const PlaneMigImage *img = c->img;
    unsigned int activates = 0, waiters = 0;

    if (img->activate_index >= c->d->nr_vcpus) {
        return plane_mig_refuse(c->why, "ACTIVATE vCPU index %u (the "
                                "machine has %u)", img->activate_index,
                                c->d->nr_vcpus);
    }
    for (unsigned int i = 0; i < c->d->nr_vcpus; i++) {
        const PlaneMigPending *pp = &img->pending[i];

        activates += pp->kind == PLANE_MIG_PENDING_ACTIVATE;
        if (pp->kind != PLANE_MIG_PENDING_WAITING) {
            continue;
        }
        waiters++;
        for (unsigned int j = 0; j < i; j++) {
            if (img->pending[j].kind == PLANE_MIG_PENDING_WAITING &&
                img->pending[j].wait_seq == pp->wait_seq) {
                return plane_mig_refuse(c->why, "vCPUs %u and %u wait with "
                                        "the same sequence number %" PRIu64,
                                        j, i, pp->wait_seq);
            }
        }
    }
    if (activates != (img->activating ? 1 : 0) ||
        (img->activating && !c->activated)) {
        return plane_mig_refuse(c->why, "ACTIVATE %s with %u vCPUs in it",
                                img->activating ? "in progress" :
                                "not in progress", activates);
    }
    if (img->boot_queued && (!img->activating || c->d->host_switches_planes ||
                             img->pending[img->activate_index].callee != 1)) {
        return plane_mig_refuse(c->why, "plane 1's boot is queued, but no "
                                "ACTIVATE is booting plane 1");
    }
    if (img->violation_stopped && !c->activated) {
        return plane_mig_refuse(c->why, "a memory violation stopped the VM, "
                                "but no plane is activated");
    }
    return true;
}

/* The destination's layout, without (l) and with (full) fresh RAM */
static void plane_mig_check_layouts(PlaneMigCheck *c, GArray *guest_ranges)
{
    const PlaneMigDest *d = c->d;

    for (size_t r = 0; r < d->nr_ranges; r++) {
        if (d->ranges[r].kind != PLANE_LAYOUT_PLANE_RAM) {
            g_array_append_val(guest_ranges, d->ranges[r]);
        }
    }
    c->full = (PlaneLayout) {
        .ranges = d->ranges, .nr_ranges = d->nr_ranges,
        .nr_planes = d->nr_planes, .phys_limit = d->phys_limit,
        .outside_ram_min = d->outside_ram_min,
    };
    c->l = c->full;
    c->l.ranges = (const PlaneLayoutRange *)guest_ranges->data;
    c->l.nr_ranges = guest_ranges->len;
}

bool plane_mig_check_image(const PlaneMigDest *d, const PlaneMigImage *img,
                           char **why)
{
    g_autoptr(GArray) guest_ranges = g_array_new(false, false,
                                                 sizeof(PlaneLayoutRange));
    PlaneMigCheck c = { .d = d, .img = img, .why = why };

    if (img->nr_planes != d->nr_planes || img->nr_vcpus != d->nr_vcpus ||
        !img->planes || !img->pending || d->nr_planes < 2 ||
        d->nr_planes > PLANE_MIG_PLANES_MAX) {
        return plane_mig_refuse(why, "%d planes on %d vCPUs (%u on %u here)",
                                img->nr_planes, img->nr_vcpus, d->nr_planes,
                                d->nr_vcpus);
    }
    plane_mig_check_layouts(&c, guest_ranges);
    for (unsigned int p = 0; p < d->nr_planes; p++) {
        const PlaneMigPlane *mp = &img->planes[p];

        c.l.regions[p] = c.full.regions[p] = (PlaneLayoutRegion) {
            .base = p ? mp->region_base : 0, .size = p ? mp->region_size : 0,
            .kernel_format = mp->kernel_format,
            .fresh = p && mp->region_size &&
                     plane_layout_placement(&c.l, mp->region_base,
                                            mp->region_size) ==
                         PLANE_REGION_OUTSIDE_RAM,
        };
        if (!plane_mig_check_plane(&c, p)) {
            return false;
        }
    }
    if (img->configured && (img->config_count < 2 ||
                            img->config_count > d->nr_planes)) {
        return plane_mig_refuse(why, "CONFIG record of %u planes (2 to %u)",
                                img->config_count, d->nr_planes);
    }
    if (!plane_mig_check_lifecycle(&c) || !plane_mig_check_set(&c)) {
        return false;
    }
    for (unsigned int i = 0; i < d->nr_vcpus; i++) {
        if (!plane_mig_check_index(&c, i)) {
            return false;
        }
    }
    for (unsigned int p = 1; p < d->nr_planes; p++) {
        if (!plane_mig_check_plane_runs(&c, p)) {
            return false;
        }
    }
    return plane_mig_check_seal(&c);
}

bool plane_mig_check_setup(const PlaneMigDest *d, char **why)
{
    g_autoptr(GArray) guest_ranges = g_array_new(false, false,
                                                 sizeof(PlaneLayoutRange));
    PlaneMigCheck c = { .d = d, .why = why };
    uint64_t fresh = 0;

    plane_mig_check_layouts(&c, guest_ranges);
    for (unsigned int p = 0; p < PLANE_MIG_PLANES_MAX; p++) {
        const PlaneMigRegion *r = &d->setup[p];

        if ((p == 0 || p >= d->nr_planes) && (r->fresh || r->base ||
                                               r->size)) {
            return plane_mig_refuse(why, "setup region of plane %u (the "
                                    "machine has planes 1 to %u)", p,
                                    d->nr_planes - 1);
        }
        if (!r->fresh) {
            continue;
        }
        if (!r->size || (r->base | r->size) & (PLANE_MIG_PAGE_SIZE - 1) ||
            r->base + r->size < r->base || r->base + r->size > d->phys_limit ||
            plane_layout_placement(&c.l, r->base, r->size) !=
                PLANE_REGION_OUTSIDE_RAM ||
            r->size > d->ram_limit - fresh) {
            return plane_mig_refuse(why, "plane %u's fresh RAM 0x%" PRIx64
                                    "+0x%" PRIx64 " is not page aligned "
                                    "outside guest RAM below 0x%" PRIx64
                                    " within plane-ram-limit 0x%" PRIx64,
                                    p, r->base, r->size, d->phys_limit,
                                    d->ram_limit);
        }
        fresh += r->size;
        for (unsigned int q = 1; q < p; q++) {
            if (d->setup[q].fresh && ranges_overlap(r->base, r->size,
                                                    d->setup[q].base,
                                                    d->setup[q].size)) {
                return plane_mig_refuse(why, "plane %u's fresh RAM overlaps "
                                        "plane %u's", p, q);
            }
        }
    }
    return true;
}
