/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * libFuzzer target: the guest-input rules (hw/planes/plane-rules.c, the
 * code QEMU runs) against random guest-physical layouts, compared with a
 * reference predicate written here straight from the guest ABI
 * (docs/specs/planes-abi.rst): CONFIG (count, array, regions, their
 * placement and fresh RAM, a CONFIG again), ACTIVATE's entries, VTL
 * calling areas, SET_MEM_ATTRS (arguments and the lifting rule over a
 * random attribute map) and PLANE_ENABLE_VCPU's register block, plus the
 * layout primitives.  The model uses 128-bit arithmetic and sums of
 * covered bytes where the rules walk ranges.  Where the ABI names two
 * refusals for one input without saying which wins, the model takes the
 * order the hypercall documents in its code (e.g. an array that is in a
 * plane region and not in RAM: -EINVAL).  Any difference aborts.
 *
 * Readings the model makes explicit:
 * - a range wraps when gpa + size overflows 64 bits, so one that ends
 *   exactly at 2^64 wraps (a guest computing the end gets 0);
 * - "in RAM" is guest RAM or a plane region's fresh RAM;
 * - an array "inside a plane region" is one that overlaps a region.
 */

#include "qemu/osdep.h"
#include "hw/planes/plane-rules.h"
#include "fuzz-input.h"

#define MAX_RANGES 12
#define MAX_POINTS (2 * MAX_RANGES + 3 * PLANE_LAYOUT_MAX_PLANES)
#define BOOT_STATE 0x10000          /* the 64 KiB boot state at the top */
#define LOW_LIMIT  0x100000         /* regions start at or above 1 MiB */
#define BOOT_MAP_LIMIT ((u128)1 << 48)  /* 4-level boot page tables */

typedef struct World {
    PlaneLayout l;
    PlaneLayoutRange ranges[MAX_RANGES];
    unsigned int phys_bits;
    bool configured;
    unsigned int config_count;
    uint64_t pts[MAX_POINTS];
    size_t npts;
} World;

/* Verdict counts, printed at exit with FUZZ_STATS=1. */
enum { OP_LAYOUT, OP_CONFIG, OP_CONFIG_AGAIN, OP_ACTIVATE, OP_CALL_AREA,
       OP_MEM_ATTRS, OP_ENABLE, OP__MAX };
static const char *const op_names[OP__MAX] = {
    "layout", "config", "config-again", "activate", "call-area",
    "set-mem-attrs", "enable-vcpu",
};
static unsigned long verdicts[OP__MAX][4];  /* 0, EINVAL, EFAULT, other */

static void count_verdict(int op, int err)
{
    verdicts[op][err == 0 ? 0 : err == PLANES_KVM_EINVAL ? 1 :
                 err == PLANES_KVM_EFAULT ? 2 : 3]++;
}

static void print_stats(void)
{
    for (int op = 0; op < OP__MAX; op++) {
        fprintf(stderr, "verdicts %-13s ok %lu, EINVAL %lu, EFAULT %lu, "
                "other %lu\n", op_names[op], verdicts[op][0],
                verdicts[op][1], verdicts[op][2], verdicts[op][3]);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    if (getenv("FUZZ_STATS")) {
        atexit(print_stats);
    }
    return 0;
}

/* ---- The model, from the ABI text ---- */

static u128 u128_max(u128 a, u128 b)
{
    return a > b ? a : b;
}

static u128 u128_min(u128 a, u128 b)
{
    return a < b ? a : b;
}

#define KIND(k) (1u << (k))
#define ANY_RAM (KIND(PLANE_LAYOUT_GUEST_RAM) | KIND(PLANE_LAYOUT_PLANE_RAM))

/* Bytes of [a, e) that ranges of the given kinds hold. */
static u128 m_cover(const World *w, u128 a, u128 e, unsigned int kinds)
{
    u128 sum = 0;

    for (size_t i = 0; i < w->l.nr_ranges; i++) {
        const PlaneLayoutRange *r = &w->ranges[i];
        u128 lo = u128_max(a, r->start), hi = u128_min(e, r->end);

        if ((kinds & KIND(r->kind)) && lo < hi) {
            sum += hi - lo;
        }
    }
    return sum;
}

static bool m_wraps(uint64_t a, uint64_t n)
{
    return (u128)a + n > UINT64_MAX;
}

static bool m_in_ram(const World *w, uint64_t a, uint64_t n)
{
    return n && !m_wraps(a, n) && m_cover(w, a, (u128)a + n, ANY_RAM) == n;
}

static bool m_overlap(uint64_t a, uint64_t n, uint64_t b, uint64_t m)
{
    return n && m && u128_max(a, b) < u128_min((u128)a + n, (u128)b + m);
}

static unsigned int m_region_hit(const World *w, uint64_t a, uint64_t n)
{
    for (unsigned int p = 1; p < w->l.nr_planes; p++) {
        if (m_overlap(a, n, w->l.regions[p].base, w->l.regions[p].size)) {
            return p;
        }
    }
    return 0;
}

static PlaneRegionPlacement m_placement(const World *w, uint64_t b,
                                        uint64_t s)
{
    u128 e = (u128)b + s;
    u128 ram = m_cover(w, b, e, KIND(PLANE_LAYOUT_GUEST_RAM));
    u128 other = m_cover(w, b, e, ~KIND(PLANE_LAYOUT_GUEST_RAM));

    if (other) {
        return PLANE_REGION_INVALID;    /* MMIO, firmware, other RAM */
    }
    if (ram == s) {
        return PLANE_REGION_INSIDE_RAM;
    }
    if (!ram && b >= w->l.outside_ram_min) {
        return PLANE_REGION_OUTSIDE_RAM;
    }
    return PLANE_REGION_INVALID;        /* partly RAM, or new RAM too low */
}

static bool m_cmdline_ok(const PlaneConfigEntry *e)
{
    for (int i = 0; i < PLANE_CONFIG_CMDLINE_LEN; i++) {
        if (!e->cmdline[i]) {
            return true;
        }
    }
    return false;
}

/* A region as the ABI allows one, leaving placement aside. */
static bool m_region_shape_ok(const World *w, uint64_t b, uint64_t s)
{
    u128 e = (u128)b + s;

    return s && !(b % 4096) && !(s % 4096) && s > BOOT_STATE &&
           b >= LOW_LIMIT && !m_wraps(b, s) &&
           e <= ((u128)1 << w->phys_bits) && e <= BOOT_MAP_LIMIT;
}

static int m_config_array(const World *w, uint64_t gpa, uint64_t count)
{
    if (count < 2) {
        return PLANES_KVM_EINVAL;
    }
    if (count > w->l.nr_planes) {
        return PLANES_KVM_E2BIG;
    }
    if (m_region_hit(w, gpa, count * PLANE_CONFIG_SIZE)) {
        return PLANES_KVM_EINVAL;
    }
    if (!m_in_ram(w, gpa, count * PLANE_CONFIG_SIZE)) {
        return PLANES_KVM_EFAULT;
    }
    return 0;
}

static int m_config(const World *w, uint64_t gpa, uint64_t count,
                    const PlaneConfigEntry *e, uint64_t ram_left)
{
    uint64_t alen = count * PLANE_CONFIG_SIZE;
    u128 fresh = 0;
    bool bad = false;
    int err = m_config_array(w, gpa, count);

    if (err) {
        return err;
    }
    if (w->configured) {
        /* Again: the same planes and regions, or -EPERM until reset */
        if (count != w->config_count) {
            return PLANES_KVM_EPERM;
        }
        for (unsigned int i = 1; i < count; i++) {
            if (e[i].load_offset != w->l.regions[i].base ||
                e[i].memory_size != w->l.regions[i].size ||
                e[i].kernel_format != w->l.regions[i].kernel_format) {
                return PLANES_KVM_EPERM;
            }
        }
        return 0;
    }
    for (unsigned int i = 1; i < count; i++) {
        uint64_t b = e[i].load_offset, s = e[i].memory_size;

        bad |= !m_region_shape_ok(w, b, s);
        bad |= m_overlap(b, s, gpa, alen);
        for (unsigned int j = 1; j < count; j++) {
            bad |= j != i && m_overlap(b, s, e[j].load_offset,
                                       e[j].memory_size);
        }
        bad |= !m_cmdline_ok(&e[i]) || e[i].kernel_format > 2;
        bad |= w->l.chipset_ram_end > w->l.chipset_ram_start &&
               m_overlap(b, s, w->l.chipset_ram_start,
                         w->l.chipset_ram_end - w->l.chipset_ram_start);
        if (!bad) {
            switch (m_placement(w, b, s)) {
            case PLANE_REGION_INSIDE_RAM:
                break;
            case PLANE_REGION_OUTSIDE_RAM:
                fresh += s;
                break;
            default:
                bad = true;
            }
        }
    }
    if (bad) {
        return PLANES_KVM_EINVAL;
    }
    return fresh > ram_left ? PLANES_KVM_E2BIG : 0;
}

static int m_activate(const World *w, uint64_t gpa, const PlaneConfigEntry *e)
{
    int err = m_config_array(w, gpa, w->config_count);

    if (err) {
        return err;
    }
    for (unsigned int i = 1; i < w->config_count; i++) {
        const PlaneLayoutRegion *r = &w->l.regions[i];
        u128 top = (u128)r->base + r->size;

        if (e[i].load_offset != r->base || e[i].memory_size != r->size ||
            !e[i].entry_point || e[i].entry_point < r->base ||
            (u128)e[i].entry_point + BOOT_STATE >= top ||
            e[i].kernel_format != r->kernel_format ||
            !m_cmdline_ok(&e[i]) ||
            (!r->fresh && !m_in_ram(w, r->base, r->size))) {
            return PLANES_KVM_EINVAL;
        }
    }
    return 0;
}

static int m_call_area(const World *w, uint64_t gpa)
{
    if (gpa % 4096) {
        return PLANES_KVM_EFAULT;       /* an unaligned page is no page */
    }
    if (m_region_hit(w, gpa, 4096)) {
        return PLANES_KVM_EINVAL;
    }
    return m_in_ram(w, gpa, 4096) ? 0 : PLANES_KVM_EFAULT;
}

/* allow bits R 1, W 2, X 4 -> the accesses denied */
static const uint32_t m_deny_of_allow[8] = {
    [0] = PLANE_MEM_ATTR_NO_READ | PLANE_MEM_ATTR_NO_WRITE |
          PLANE_MEM_ATTR_NO_EXEC,
    [1] = PLANE_MEM_ATTR_NO_WRITE | PLANE_MEM_ATTR_NO_EXEC,
    [2] = PLANE_MEM_ATTR_NO_READ | PLANE_MEM_ATTR_NO_EXEC,
    [3] = PLANE_MEM_ATTR_NO_EXEC,
    [4] = PLANE_MEM_ATTR_NO_READ | PLANE_MEM_ATTR_NO_WRITE,
    [5] = PLANE_MEM_ATTR_NO_WRITE,
    [6] = PLANE_MEM_ATTR_NO_READ,
    [7] = 0,
};

static int m_mem_attrs(const World *w, unsigned int caller,
                       const PlaneMemAttrRange *map, size_t nr,
                       uint64_t gpa, uint64_t size, uint64_t allow,
                       uint32_t *deny)
{
    if (allow > 7) {
        return PLANES_KVM_EINVAL;
    }
    if (!size || gpa % 4096 || size % 4096 || m_wraps(gpa, size)) {
        return PLANES_KVM_EINVAL;
    }
    if (!m_in_ram(w, gpa, size)) {
        return PLANES_KVM_EFAULT;
    }
    *deny = m_deny_of_allow[allow];
    for (unsigned int p = 1; p < w->l.nr_planes; p++) {
        const PlaneLayoutRegion *r = &w->l.regions[p];
        u128 lo = u128_max(gpa, r->base);
        u128 hi = u128_min((u128)gpa + size, (u128)r->base + r->size);

        if (p == caller || lo >= hi) {
            continue;               /* its own region, or not touched */
        }
        if (p > caller) {
            return PLANES_KVM_EPERM;    /* a higher plane's: never */
        }
        /* a lower plane's: only deny more than is denied now */
        for (size_t i = 0; i < nr; i++) {
            if (u128_max(lo, map[i].start) < u128_min(hi, map[i].end) &&
                (map[i].attrs & ~*deny)) {
                return PLANES_KVM_EPERM;
            }
        }
    }
    return 0;
}

static int m_enable_block(const World *w, unsigned int caller,
                          uint64_t block)
{
    const PlaneLayoutRegion *r = &w->l.regions[caller];

    if (block % 8 || block < r->base ||
        (u128)block + PLANE_ENABLE_BLOCK_SIZE > (u128)r->base + r->size) {
        return PLANES_KVM_EINVAL;
    }
    return 0;
}

/* ---- Decoding a world and the calls ---- */

static void add_point(World *w, uint64_t p)
{
    if (w->npts < MAX_POINTS) {
        w->pts[w->npts++] = p;
    }
}

static void decode_world(FuzzIn *in, World *w)
{
    uint8_t b = in_u8(in);
    u128 cursor = 0;
    size_t nr;

    memset(w, 0, sizeof(*w));
    w->l.ranges = w->ranges;
    w->l.nr_planes = b & 0x10 ? 1 + (b & 0xf) : 2 + (b & 1);
    w->phys_bits = 32 + in_u8(in) % 21;
    /* as target/i386/plane-x86.c: the CPU's width, at most 256 TiB */
    w->l.phys_limit = MIN(1ULL << w->phys_bits, 1ULL << 48);
    w->l.outside_ram_min = in_u8(in) & 3 ? 4 * GiB_ : in_addr(in, NULL, 0);

    nr = in_u8(in) % (MAX_RANGES + 1);
    for (size_t i = 0; i < nr; i++) {
        uint64_t gap = in_size(in, w->pts, w->npts);
        uint64_t len = in_size(in, w->pts, w->npts);
        uint8_t k = in_u8(in) % 8;
        u128 start = cursor + gap, end;

        if (start >= UINT64_MAX) {
            break;
        }
        end = start + (len ? len : 4096);
        if (end > UINT64_MAX) {
            end = UINT64_MAX;       /* how the FlatView's top is kept */
        }
        w->ranges[w->l.nr_ranges++] = (PlaneLayoutRange) {
            .start = start, .end = end,
            .kind = k < 4 ? PLANE_LAYOUT_GUEST_RAM :
                    k < 7 ? PLANE_LAYOUT_OTHER : PLANE_LAYOUT_PLANE_RAM,
        };
        add_point(w, start);
        add_point(w, end);
        cursor = end;
        if (end == UINT64_MAX) {
            break;
        }
    }

    /* Sometimes RAM the chipset can take away (q35's TSEG), maybe empty */
    if (in_u8(in) & 1) {
        w->l.chipset_ram_start = in_addr(in, w->pts, w->npts);
        w->l.chipset_ram_end = in_addr(in, w->pts, w->npts);
    }

    /*
     * Configured: the regions of planes 1 .. config_count - 1 as CONFIG
     * accepts them (in shape and disjoint; the memory map may have
     * changed since, so placement is left to chance).
     */
    if (in_u8(in) & 1) {
        unsigned int p;

        for (p = 1; p < w->l.nr_planes; p++) {
            uint64_t base = in_addr(in, w->pts, w->npts) & ~0xfffULL;
            uint64_t size = in_size(in, w->pts, w->npts) & ~0xfffULL;
            bool ok = m_region_shape_ok(w, base, size);

            for (unsigned int q = 1; ok && q < p; q++) {
                ok = !m_overlap(base, size, w->l.regions[q].base,
                                w->l.regions[q].size);
            }
            if (!ok) {
                break;
            }
            w->l.regions[p] = (PlaneLayoutRegion) {
                .base = base, .size = size,
                .kernel_format = in_u8(in) % 3, .fresh = in_u8(in) & 1,
            };
            add_point(w, base);
            add_point(w, base + size);
            add_point(w, base + size - BOOT_STATE);
        }
        if (p >= 2) {
            w->configured = true;
            w->config_count = p;
        }
        for (; p < PLANE_LAYOUT_MAX_PLANES; p++) {
            w->l.regions[p] = (PlaneLayoutRegion) { 0 };
        }
    }
}

static void decode_cmdline(FuzzIn *in, PlaneConfigEntry *e)
{
    unsigned int nul = in_bytes(in, 2) % (PLANE_CONFIG_CMDLINE_LEN + 64);

    memset(e->cmdline, 'x', sizeof(e->cmdline));
    if (nul < PLANE_CONFIG_CMDLINE_LEN) {
        e->cmdline[nul] = 0;
    }
}

static void decode_entry(FuzzIn *in, World *w, unsigned int i,
                         PlaneConfigEntry *e)
{
    uint8_t how = in_u8(in);
    const PlaneLayoutRegion *r = &w->l.regions[i];
    uint8_t fmt;

    if (w->configured && i < w->config_count && (how & 3)) {
        /* CONFIG's region, each field perhaps changed */
        e->load_offset = how & 4 ? in_addr(in, w->pts, w->npts) : r->base;
        e->memory_size = how & 8 ? in_size(in, w->pts, w->npts) : r->size;
        e->kernel_format = how & 16 ? in_u8(in) % 4 : r->kernel_format;
    } else {
        e->load_offset = in_addr(in, w->pts, w->npts);
        e->memory_size = in_size(in, w->pts, w->npts);
        fmt = in_u8(in);
        e->kernel_format = fmt & 0x80 ? in_bytes(in, 4) : fmt % 4;
    }
    e->entry_point = in_addr(in, w->pts, w->npts);
    decode_cmdline(in, e);
}

static void refusal(int got, char *why)
{
    /* A refusal says why; a pass allocates nothing. */
    fuzz_check(!got == !why, "code %d with reason %s", got,
               why ? why : "(none)");
    g_free(why);
}

static void op_layout(FuzzIn *in, World *w)
{
    uint64_t a = in_addr(in, w->pts, w->npts);
    uint64_t n = in_size(in, w->pts, w->npts);
    bool in_ram = plane_layout_in_ram(&w->l, a, n);

    fuzz_check(in_ram == m_in_ram(w, a, n), "in_ram 0x%" PRIx64 "+0x%"
               PRIx64 ": %d", a, n, in_ram);
    if (n && !m_wraps(a, n)) {
        PlaneRegionPlacement pl = plane_layout_placement(&w->l, a, n);
        unsigned int hit = plane_layout_region_overlapping(&w->l, a, n);

        fuzz_check(pl == m_placement(w, a, n), "placement 0x%" PRIx64
                   "+0x%" PRIx64 ": %d, model %d", a, n, pl,
                   m_placement(w, a, n));
        fuzz_check(hit == m_region_hit(w, a, n), "region at 0x%" PRIx64
                   "+0x%" PRIx64 ": %u, model %u", a, n, hit,
                   m_region_hit(w, a, n));
    }
    count_verdict(OP_LAYOUT, in_ram ? 0 : PLANES_KVM_EFAULT);
}

static void op_config(FuzzIn *in, World *w)
{
    PlaneConfigEntry e[PLANE_LAYOUT_MAX_PLANES] = { 0 };
    uint64_t gpa = in_addr(in, w->pts, w->npts);
    uint8_t c = in_u8(in);
    uint64_t count = c & 0x80 ? in_u64(in) :
                     c & 0x40 ? w->config_count : c % (w->l.nr_planes + 2);
    uint64_t ram_left = in_u8(in) & 1 ? in_size(in, w->pts, w->npts)
                                      : 1ULL << 40;
    char *why = NULL;
    int got, want;

    for (unsigned int i = 1; i < PLANE_LAYOUT_MAX_PLANES && i < count; i++) {
        decode_entry(in, w, i, &e[i]);
    }
    got = plane_rule_config_array(&w->l, gpa, count, &why);
    if (!got) {
        got = w->configured ?
            plane_rule_config_again(&w->l, w->config_count, count, e, &why) :
            plane_rule_config_regions(&w->l, gpa, count, e, ram_left, &why);
    }
    want = m_config(w, gpa, count, e, ram_left);
    fuzz_check(got == want, "CONFIG 0x%" PRIx64 "/%" PRIu64 " (%s): %d, "
               "model %d; %s", gpa, count,
               w->configured ? "again" : "first", got, want,
               why ? why : "");
    count_verdict(w->configured ? OP_CONFIG_AGAIN : OP_CONFIG, got);
    refusal(got, why);
}

static void op_activate(FuzzIn *in, World *w)
{
    PlaneConfigEntry e[PLANE_LAYOUT_MAX_PLANES] = { 0 };
    uint64_t gpa = in_addr(in, w->pts, w->npts);
    char *why = NULL;
    int got, want;

    if (!w->configured) {
        return;
    }
    for (unsigned int i = 1; i < w->config_count; i++) {
        decode_entry(in, w, i, &e[i]);
    }
    got = plane_rule_config_array(&w->l, gpa, w->config_count, &why);
    for (unsigned int i = 1; !got && i < w->config_count; i++) {
        got = plane_rule_activate_entry(&w->l, i, &e[i], &why);
    }
    want = m_activate(w, gpa, e);
    fuzz_check(got == want, "ACTIVATE 0x%" PRIx64 "/%u: %d, model %d; %s",
               gpa, w->config_count, got, want, why ? why : "");
    count_verdict(OP_ACTIVATE, got);
    refusal(got, why);
}

static void op_call_area(FuzzIn *in, World *w)
{
    uint64_t gpa = in_addr(in, w->pts, w->npts);
    char *why = NULL;
    int got = plane_rule_call_area(&w->l, gpa, &why);
    int want = m_call_area(w, gpa);

    fuzz_check(got == want, "VTL_CALL 0x%" PRIx64 ": %d, model %d; %s", gpa,
               got, want, why ? why : "");
    count_verdict(OP_CALL_AREA, got);
    refusal(got, why);
}

static void op_mem_attrs(FuzzIn *in, World *w)
{
    g_autoptr(GArray) map = g_array_new(false, false,
                                        sizeof(PlaneMemAttrRange));
    unsigned int caller;
    uint64_t gpa, size, allow;
    uint32_t deny = ~0u, want_deny = ~0u;
    char *why = NULL;
    int got, want;
    uint8_t b;

    if (w->l.nr_planes < 2) {
        return;
    }
    caller = 1 + in_u8(in) % (w->l.nr_planes - 1);
    /* The map of the plane below, built by the real map code. */
    for (int k = in_u8(in) % 5; k > 0; k--) {
        uint64_t s = in_addr(in, w->pts, w->npts);
        uint64_t n = in_size(in, w->pts, w->npts);
        uint32_t attrs = (in_u8(in) & 7) << 4;
        GArray *out;

        if (!n || m_wraps(s, n)) {
            continue;
        }
        out = g_array_new(false, false, sizeof(PlaneMemAttrRange));
        plane_attr_map_set((PlaneMemAttrRange *)map->data, map->len, s, n,
                           attrs, PLANE_MEM_ATTR_MAX_RANGES, out);
        g_array_free(map, true);
        map = out;
    }
    gpa = in_addr(in, w->pts, w->npts);
    size = in_size(in, w->pts, w->npts);
    b = in_u8(in);
    allow = b & 0x80 ? in_u64(in) : b & 0x40 ? b & 0xf : b & 7;

    got = plane_rule_mem_attrs_args(&w->l, gpa, size, allow, &deny, &why);
    if (!got) {
        got = plane_rule_mem_attrs_allowed(&w->l, caller,
                                           (PlaneMemAttrRange *)map->data,
                                           map->len, gpa, size, deny, &why);
    }
    want = m_mem_attrs(w, caller, (PlaneMemAttrRange *)map->data, map->len,
                       gpa, size, allow, &want_deny);
    fuzz_check(got == want, "SET_MEM_ATTRS from plane %u 0x%" PRIx64 "+0x%"
               PRIx64 " allow 0x%" PRIx64 ": %d, model %d; %s", caller, gpa,
               size, allow, got, want, why ? why : "");
    fuzz_check(got || deny == want_deny, "allow 0x%" PRIx64 ": deny 0x%x, "
               "model 0x%x", allow, deny, want_deny);
    count_verdict(OP_MEM_ATTRS, got);
    refusal(got, why);
}

static void op_enable(FuzzIn *in, World *w)
{
    unsigned int caller;
    uint64_t block;
    char *why = NULL;
    int got, want;

    if (!w->configured) {
        return;
    }
    caller = 1 + in_u8(in) % (w->config_count - 1);
    block = in_addr(in, w->pts, w->npts);
    got = plane_rule_enable_block(&w->l, caller, block, &why);
    want = m_enable_block(w, caller, block);
    fuzz_check(got == want, "ENABLE_VCPU block 0x%" PRIx64 " of plane %u: "
               "%d, model %d", block, caller, got, want);
    count_verdict(OP_ENABLE, got);
    refusal(got, why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzIn in = { data, size };
    World w;

    decode_world(&in, &w);
    for (int op = 0; op < 8 && in.n; op++) {
        switch (in_u8(&in) % 8) {
        case 0:
        case 7:
            op_layout(&in, &w);
            break;
        case 1:
            op_config(&in, &w);
            break;
        case 2:
            op_activate(&in, &w);
            break;
        case 3:
            op_call_area(&in, &w);
            break;
        case 4:
        case 5:
            op_mem_attrs(&in, &w);
            break;
        default:
            op_enable(&in, &w);
            break;
        }
    }
    return 0;
}
