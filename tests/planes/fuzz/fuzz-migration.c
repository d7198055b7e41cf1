/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * libFuzzer harness over hw/planes/plane-migration-check.c: the "vm-planes"
 * sections of an incoming migration stream, decoded as VMState reads them
 * and checked as the destination does, against an oracle of what the
 * running planes core relies on for any stream it accepts.
 *
 * Input: one byte choosing the destination (bit 0: the host switches
 * planes; bit 1: 256 MiB of RAM instead of 512 MiB; bit 2: no CPU in the
 * last vCPU index, a hot-pluggable slot), then the data of
 * the "vm-planes/setup" section, then that of "vm-planes", big-endian, as
 * in a stream (scripts/planes/fuzz-stream-seeds.sh saves real ones).
 */

#include "qemu/osdep.h"
#include "hw/planes/plane-migration-check.h"
#include "fuzz-input.h"

#define DEVICES_MAX     (64 * 1024)     /* plane-migration.c's bound */
#define VCPUS_MAX       8

typedef struct Reader {
    const uint8_t *p;
    size_t n;
    bool short_read;
} Reader;

static uint64_t rd(Reader *r, unsigned int bytes)
{
    uint64_t v = 0;

    if (r->n < bytes) {
        r->short_read = true;
        r->n = 0;
        return 0;
    }
    for (unsigned int i = 0; i < bytes; i++) {
        v = v << 8 | r->p[i];
    }
    r->p += bytes;
    r->n -= bytes;
    return v;
}

/* The destination: a q35 guest's layout, plus the fresh RAM it makes */
typedef struct Dest {
    PlaneMigDest d;
    PlaneMigRegion setup[PLANE_MIG_PLANES_MAX];
    PlaneLayoutRange ranges[16];
    bool present[VCPUS_MAX];
} Dest;

static void dest_init(Dest *t, uint8_t variant, unsigned int nr_planes,
                      unsigned int nr_vcpus)
{
    uint64_t ram_top = variant & 2 ? 256 * MiB_ : 512 * MiB_;
    const PlaneLayoutRange layout[] = {
        { 0, 0xa0000, PLANE_LAYOUT_GUEST_RAM },
        { 0xa0000, 0x100000, PLANE_LAYOUT_OTHER },
        { 0x100000, ram_top, PLANE_LAYOUT_GUEST_RAM },
        { 0xe0000000, 0xf0000000, PLANE_LAYOUT_OTHER },    /* ECAM */
        { 0xfec00000, 0xfec01000, PLANE_LAYOUT_OTHER },
        { 0xfed1c000, 0xfed20000, PLANE_LAYOUT_OTHER },
        { 0xfee00000, 0xfef00000, PLANE_LAYOUT_OTHER },
        { 0xfffc0000, 4 * GiB_, PLANE_LAYOUT_OTHER },     /* firmware */
    };

    memset(t, 0, sizeof(*t));
    memcpy(t->ranges, layout, sizeof(layout));
    t->d = (PlaneMigDest) {
        .nr_planes = nr_planes, .nr_vcpus = nr_vcpus,
        .ranges = t->ranges, .nr_ranges = G_N_ELEMENTS(layout),
        .phys_limit = 1ULL << 40, .outside_ram_min = 4 * GiB_,
        .ram_limit = 64 * GiB_, .host_switches_planes = variant & 1,
        .setup = t->setup, .present = t->present,
    };
    for (unsigned int i = 0; i < nr_vcpus; i++) {
        t->present[i] = !(variant & 4) || i + 1 < nr_vcpus || i == 0;
    }
}

/* What the destination does after the setup check: makes fresh RAM */
static void dest_add_fresh(Dest *t)
{
    for (unsigned int p = 1; p < t->d.nr_planes; p++) {
        const PlaneMigRegion *r = &t->setup[p];
        size_t at = 0;

        if (!r->fresh) {
            continue;
        }
        fuzz_check(t->d.nr_ranges < G_N_ELEMENTS(t->ranges), "ranges");
        while (at < t->d.nr_ranges && t->ranges[at].start < r->base) {
            at++;
        }
        fuzz_check(at == t->d.nr_ranges ||
                   t->ranges[at].start >= r->base + r->size,
                   "fresh RAM 0x%" PRIx64 "+0x%" PRIx64 " accepted over "
                   "another range", r->base, r->size);
        memmove(&t->ranges[at + 1], &t->ranges[at],
                (t->d.nr_ranges - at) * sizeof(t->ranges[0]));
        t->ranges[at] = (PlaneLayoutRange) {
            r->base, r->base + r->size, PLANE_LAYOUT_PLANE_RAM,
        };
        t->d.nr_ranges++;
    }
}

/* "vm-planes/setup"; false where the destination stops reading */
static bool read_setup(Reader *r, Dest *t, uint8_t variant)
{
    uint32_t nr_planes = rd(r, 4), nr_vcpus = rd(r, 4), len;

    if (nr_planes < 2 || nr_planes > PLANE_MIG_PLANES_MAX || !nr_vcpus ||
        nr_vcpus > VCPUS_MAX) {
        return false;           /* not this destination's shape */
    }
    dest_init(t, variant, nr_planes, nr_vcpus);
    for (unsigned int p = 0; p < PLANE_MIG_PLANES_MAX; p++) {
        t->setup[p].fresh = rd(r, 1);
        t->setup[p].base = rd(r, 8);
        t->setup[p].size = rd(r, 8);
    }
    len = rd(r, 4);
    if (r->short_read || !len || len > DEVICES_MAX || len > r->n) {
        return false;
    }
    if (r->p[len - 1]) {
        return false;           /* the device list's check refuses it */
    }
    r->p += len;
    r->n -= len;
    return true;
}

static void image_free(PlaneMigImage *img)
{
    for (unsigned int p = 0; img->planes && p < img->planes_allocated; p++) {
        g_free(img->planes[p].vcpu_enabled);
        g_free(img->planes[p].ranges);
    }
    g_free(img->planes);
    g_free(img->pending);
}

static bool read_plane(Reader *r, PlaneMigPlane *mp, unsigned int nr_vcpus)
{
    mp->state = rd(r, 4);
    mp->kernel_format = rd(r, 4);
    mp->home = rd(r, 4);
    mp->busy = rd(r, 1);
    mp->region_base = rd(r, 8);
    mp->region_size = rd(r, 8);
    mp->entry_point = rd(r, 8);
    mp->memory_violations = rd(r, 8);
    mp->device_accesses_dropped = rd(r, 8);
    mp->has_cmdline = rd(r, 1);
    for (size_t i = 0; i < sizeof(mp->cmdline); i++) {
        mp->cmdline[i] = rd(r, 1);
    }
    mp->nr_vcpus = rd(r, 4);
    mp->nr_ranges = rd(r, 4);
    /* plane_mig_plane_counts(): bounded before the arrays are allocated */
    if (r->short_read || mp->nr_vcpus != nr_vcpus || mp->nr_ranges < 0 ||
        mp->nr_ranges > PLANE_MEM_ATTR_MAX_RANGES ||
        (size_t)mp->nr_ranges * 20 > r->n) {
        return false;
    }
    mp->vcpu_enabled = g_new0(uint8_t, nr_vcpus);
    for (unsigned int i = 0; i < nr_vcpus; i++) {
        mp->vcpu_enabled[i] = rd(r, 1);
    }
    mp->ranges = g_new0(PlaneMemAttrRange, mp->nr_ranges ?: 1);
    for (int32_t k = 0; k < mp->nr_ranges; k++) {
        mp->ranges[k].start = rd(r, 8);
        mp->ranges[k].end = rd(r, 8);
        mp->ranges[k].attrs = rd(r, 4);
    }
    return !r->short_read;
}

/* "vm-planes"; false where the destination stops reading */
static bool read_image(Reader *r, const Dest *t, PlaneMigImage *img)
{
    img->nr_planes = rd(r, 4);
    img->nr_vcpus = rd(r, 4);
    if (img->nr_planes != t->d.nr_planes || img->nr_vcpus != t->d.nr_vcpus) {
        return false;
    }
    img->pending = g_new0(PlaneMigPending, t->d.nr_vcpus);
    img->planes = g_new0(PlaneMigPlane, t->d.nr_planes);
    img->planes_allocated = t->d.nr_planes;
    for (unsigned int i = 0; i < t->d.nr_vcpus; i++) {
        PlaneMigPending *pp = &img->pending[i];

        pp->current = rd(r, 4);
        pp->kind = rd(r, 4);
        pp->caller = rd(r, 4);
        pp->callee = rd(r, 4);
        pp->calling_area = rd(r, 8);
        pp->wait_seq = rd(r, 8);
        pp->call_after_park = rd(r, 1);
    }
    for (unsigned int p = 0; p < t->d.nr_planes; p++) {
        if (!read_plane(r, &img->planes[p], t->d.nr_vcpus)) {
            return false;
        }
    }
    img->wait_seq = rd(r, 8);
    img->activating = rd(r, 1);
    img->boot_queued = rd(r, 1);
    img->activate_index = rd(r, 4);
    img->configured = rd(r, 1);
    img->config_gpa = rd(r, 8);
    img->config_count = rd(r, 4);
    img->violation_stopped = rd(r, 1);
    return !r->short_read;
}

/* Whether [base, base + size) is RAM of @t (guest or fresh) */
static bool oracle_in_ram(const Dest *t, uint64_t base, uint64_t size)
{
    uint64_t end = base + size;

    if (!size || end < base) {
        return false;
    }
    for (size_t i = 0; i < t->d.nr_ranges && base < end; i++) {
        const PlaneLayoutRange *rr = &t->ranges[i];

        if (rr->end <= base) {
            continue;
        }
        if (rr->start > base || rr->kind == PLANE_LAYOUT_OTHER) {
            return false;
        }
        base = rr->end;
    }
    return base >= end;
}

/* A region the boot state can be built in (plane_x86_build_boot_*) */
static void oracle_region(const Dest *t, unsigned int p,
                          const PlaneMigPlane *mp)
{
    uint64_t top = mp->region_base + mp->region_size;

    fuzz_check(mp->region_size > 0x10000 && top > mp->region_base &&
               top <= t->d.phys_limit && oracle_in_ram(t, mp->region_base,
                                                       mp->region_size),
               "plane %u region 0x%" PRIx64 "+0x%" PRIx64, p,
               mp->region_base, mp->region_size);
    if (mp->state >= PLANE_MIG_STATE_ACTIVE) {
        fuzz_check(mp->entry_point >= mp->region_base &&
                   mp->entry_point < top - 0x10000,
                   "plane %u entry 0x%" PRIx64, p, mp->entry_point);
    }
}

/*
 * What the core does with an accepted stream must be safe: a return
 * switches from the callee to a caller that is not current
 * (plane_switch()'s assertion), a waiter has a busy state to wait for,
 * a busy shared state runs on exactly one index, a queued boot builds
 * page tables for a region of RAM, maps are sorted within the machine.
 */
static void oracle(const Dest *t, const PlaneMigImage *img)
{
    unsigned int activates = 0;

    for (unsigned int i = 0; i < t->d.nr_vcpus; i++) {
        const PlaneMigPending *pp = &img->pending[i];
        uint32_t cur = pp->current & ~PLANE_MIG_WAITING;

        fuzz_check(cur < t->d.nr_planes && pp->kind <= 3, "index %u", i);
        fuzz_check(t->present[i] || (!pp->current && !pp->kind),
                   "index %u without a CPU runs plane 0x%x", i, pp->current);
        if (pp->kind == PLANE_MIG_PENDING_ACTIVATE ||
            pp->kind == PLANE_MIG_PENDING_VTL_CALL) {
            fuzz_check(pp->current == pp->callee && pp->caller != cur &&
                       pp->caller < t->d.nr_planes && pp->callee >= 1,
                       "index %u: caller %u callee %u current 0x%x", i,
                       pp->caller, pp->callee, pp->current);
        }
        if (pp->kind == PLANE_MIG_PENDING_WAITING) {
            fuzz_check((pp->current & PLANE_MIG_WAITING) &&
                       pp->callee < t->d.nr_planes &&
                       img->planes[pp->callee].busy, "waiter %u", i);
        }
        activates += pp->kind == PLANE_MIG_PENDING_ACTIVATE;
    }
    fuzz_check(activates <= 1 && activates == img->activating,
               "%u ACTIVATEs", activates);
    for (unsigned int p = 1; p < t->d.nr_planes; p++) {
        const PlaneMigPlane *mp = &img->planes[p];
        unsigned int on_shared = 0;

        if (mp->region_size) {
            oracle_region(t, p, mp);
        }
        for (unsigned int i = 0; i < t->d.nr_vcpus; i++) {
            on_shared += img->pending[i].current == p &&
                         !(mp->vcpu_enabled[i] & PLANE_MIG_VCPU_ENABLED);
            fuzz_check(t->present[i] || !mp->vcpu_enabled[i],
                       "plane %u enabled on index %u without a CPU", p, i);
        }
        fuzz_check(on_shared <= 1 && (!mp->busy || on_shared == 1) &&
                   mp->home == PLANE_MIG_HOME_INDEX &&
                   !(mp->vcpu_enabled[mp->home] & PLANE_MIG_VCPU_ENABLED),
                   "plane %u busy %d on %u, home %u", p, mp->busy,
                   on_shared, mp->home);
    }
    if (img->boot_queued) {
        fuzz_check(img->planes[1].region_size &&
                   img->planes[1].state == PLANE_MIG_STATE_RUNNING,
                   "queued boot of plane 1 (%u)", img->planes[1].state);
    }
    for (unsigned int p = 0; p < t->d.nr_planes; p++) {
        const PlaneMigPlane *mp = &img->planes[p];

        for (int32_t k = 0; k < mp->nr_ranges; k++) {
            fuzz_check(mp->ranges[k].start < mp->ranges[k].end &&
                       mp->ranges[k].end <= t->d.phys_limit &&
                       (!k || mp->ranges[k - 1].end <= mp->ranges[k].start),
                       "plane %u range %d", p, k);
        }
    }
}

static unsigned long verdicts[4];   /* short, setup refused, refused, ok */

static void print_stats(void)
{
    fprintf(stderr, "verdicts stream: unread %lu, setup refused %lu, "
            "refused %lu, accepted %lu\n", verdicts[0], verdicts[1],
            verdicts[2], verdicts[3]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    if (getenv("FUZZ_STATS")) {
        atexit(print_stats);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Reader r = { data + !!size, size ? size - 1 : 0 };
    PlaneMigImage img = { 0 };
    g_autofree char *why = NULL;
    Dest t;

    if (!size || !read_setup(&r, &t, data[0])) {
        verdicts[0]++;
        return 0;
    }
    if (!plane_mig_check_setup(&t.d, &why)) {
        fuzz_check(why && !strchr(why, '\n'), "setup refusal without a line");
        verdicts[1]++;
        return 0;
    }
    dest_add_fresh(&t);
    if (!read_image(&r, &t, &img)) {
        verdicts[0]++;
    } else if (!plane_mig_check_image(&t.d, &img, &why)) {
        fuzz_check(why && !strchr(why, '\n'), "refusal without a line");
        verdicts[2]++;
    } else {
        oracle(&t, &img);
        verdicts[3]++;
    }
    image_free(&img);
    return 0;
}
