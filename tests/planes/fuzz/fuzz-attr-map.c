/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * libFuzzer target: the per-plane memory attribute map
 * (hw/planes/plane-attr-map.c, the code QEMU runs) against a naive model.
 *
 * The input is a limit on the number of ranges and a sequence of
 * operations: set(start, size, attrs), lookup(gpa), only_restrict(start,
 * size, deny).  The model keeps the history of accepted sets: the
 * attributes at x are those of the last set that covered x, 0 if none.
 * After every operation the map must be sorted, non-overlapping, free of
 * empty and attribute-0 ranges, merged (no equal neighbours, so exactly
 * as many ranges as the model has runs), and agree with the model at
 * every point where either can change; a set that would need more ranges
 * than the limit fails with -E2BIG and changes nothing.  Any difference
 * aborts.
 */

#include "qemu/osdep.h"
#include "hw/planes/plane-attr-map.h"
#include "hw/planes/planes-abi.h"
#include "fuzz-input.h"

#define MAX_OPS 32

typedef struct ModelSet {
    uint64_t start;
    uint64_t end;
    uint32_t attrs;
} ModelSet;

static ModelSet hist[MAX_OPS];
static size_t nr_hist;

static uint32_t model_at(uint64_t x)
{
    for (size_t i = nr_hist; i-- > 0;) {
        if (hist[i].start <= x && x < hist[i].end) {
            return hist[i].attrs;
        }
    }
    return 0;
}

/* The map's value at x by a linear scan (lookup() bisects). */
static uint32_t map_at(const PlaneMemAttrRange *m, size_t nr, uint64_t x)
{
    for (size_t i = 0; i < nr; i++) {
        if (m[i].start <= x && x < m[i].end) {
            return m[i].attrs;
        }
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/*
 * Every point where the model or the map may change value, sorted and
 * unique, into @pts (room for 2 * (MAX_OPS + nr) + 3).
 */
static size_t change_points(const PlaneMemAttrRange *m, size_t nr,
                            uint64_t *pts, uint64_t extra)
{
    size_t n = 0, u = 0;

    pts[n++] = 0;
    pts[n++] = extra;
    for (size_t i = 0; i < nr_hist; i++) {
        pts[n++] = hist[i].start;
        pts[n++] = hist[i].end;
    }
    for (size_t i = 0; i < nr; i++) {
        pts[n++] = m[i].start;
        pts[n++] = m[i].end;
    }
    qsort(pts, n, sizeof(*pts), cmp_u64);
    for (size_t i = 0; i < n; i++) {
        if (!u || pts[u - 1] != pts[i]) {
            pts[u++] = pts[i];
        }
    }
    return u;
}

/* The number of ranges the merged form of the model has. */
static size_t model_runs(void)
{
    uint64_t pts[2 * MAX_OPS + 3];
    size_t n = change_points(NULL, 0, pts, 0), runs = 0;
    uint32_t prev = 0;

    for (size_t i = 0; i < n; i++) {
        uint32_t v = model_at(pts[i]);

        if (v && v != prev) {
            runs++;
        }
        prev = v;
    }
    return runs;
}

static void check_map(const PlaneMemAttrRange *m, size_t nr)
{
    g_autofree uint64_t *pts = g_new(uint64_t, 2 * (MAX_OPS + nr) + 3);
    size_t n;

    for (size_t i = 0; i < nr; i++) {
        fuzz_check(m[i].start < m[i].end && m[i].attrs,
                   "range %zu [0x%" PRIx64 ", 0x%" PRIx64 ") attrs 0x%x",
                   i, m[i].start, m[i].end, m[i].attrs);
        fuzz_check(!i || m[i - 1].end <= m[i].start,
                   "ranges %zu and %zu overlap or are unsorted", i - 1, i);
        fuzz_check(!i || m[i - 1].end != m[i].start ||
                   m[i - 1].attrs != m[i].attrs,
                   "ranges %zu and %zu are not merged", i - 1, i);
    }
    fuzz_check(nr == model_runs(), "%zu ranges, the model has %zu runs",
               nr, model_runs());
    n = change_points(m, nr, pts, 0);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = pts[i];

        for (int k = 0; k < 2; k++, x--) {
            uint32_t want = model_at(x);

            fuzz_check(plane_attr_map_lookup(m, nr, x) == want &&
                       map_at(m, nr, x) == want,
                       "at 0x%" PRIx64 ": lookup 0x%x, map 0x%x, model 0x%x",
                       x, plane_attr_map_lookup(m, nr, x), map_at(m, nr, x),
                       want);
            if (!x) {
                break;
            }
        }
    }
}

/* Whether no x in [start, end) has model attributes outside @deny. */
static bool model_only_restrict(const PlaneMemAttrRange *m, size_t nr,
                                uint64_t start, uint64_t end, uint32_t deny)
{
    g_autofree uint64_t *pts = g_new(uint64_t, 2 * (MAX_OPS + nr) + 3);
    size_t n = change_points(m, nr, pts, start);

    for (size_t i = 0; i < n; i++) {
        if (pts[i] >= start && pts[i] < end &&
            (model_at(pts[i]) & ~deny)) {
            return false;
        }
    }
    return true;
}

static uint32_t in_attrs(FuzzIn *in)
{
    uint8_t b = in_u8(in);

    /* Mostly the deny bits the hypercalls set; sometimes any value. */
    return b & 0x80 ? in_bytes(in, 4) : (uint32_t)(b & 7) << 4;
}

static size_t bounds(uint64_t *pts)
{
    size_t n = 0;

    for (size_t i = 0; i < nr_hist; i++) {
        pts[n++] = hist[i].start;
        pts[n++] = hist[i].end;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzIn in = { data, size };
    g_autoptr(GArray) map = g_array_new(false, false,
                                        sizeof(PlaneMemAttrRange));
    uint8_t lim = in_u8(&in) % 9;
    size_t max_ranges = lim ? lim : PLANE_MEM_ATTR_MAX_RANGES;
    uint64_t pts[2 * MAX_OPS];

    nr_hist = 0;
    for (int op = 0; op < MAX_OPS && in.n; op++) {
        const PlaneMemAttrRange *m = (PlaneMemAttrRange *)map->data;
        size_t nr = map->len, nb = bounds(pts);
        uint8_t kind = in_u8(&in) % 4;
        uint64_t start = in_addr(&in, pts, nb);
        uint64_t len = kind == 2 ? 1 : in_size(&in, pts, nb);
        uint32_t attrs = kind == 2 ? 0 : in_attrs(&in);
        GArray *out;
        size_t runs;
        int r;

        if (kind == 2) {
            fuzz_check(plane_attr_map_lookup(m, nr, start) == model_at(start),
                       "lookup 0x%" PRIx64 ": 0x%x, model 0x%x", start,
                       plane_attr_map_lookup(m, nr, start), model_at(start));
            continue;
        }
        /* The callers' precondition: not empty, no wrap. */
        if (!len || (u128)start + len >= TOP_) {
            continue;
        }
        if (kind == 3) {
            bool got = plane_attr_map_only_restrict(m, nr, start, len, attrs);
            bool want = model_only_restrict(m, nr, start, start + len, attrs);

            fuzz_check(got == want, "only_restrict 0x%" PRIx64 "+0x%" PRIx64
                       " deny 0x%x: %d, model %d", start, len, attrs, got,
                       want);
            continue;
        }
        hist[nr_hist++] = (ModelSet) { start, start + len, attrs };
        runs = model_runs();
        out = g_array_new(false, false, sizeof(PlaneMemAttrRange));
        r = plane_attr_map_set(m, nr, start, len, attrs, max_ranges, out);
        if (runs > max_ranges) {
            fuzz_check(r == -PLANES_KVM_E2BIG, "set 0x%" PRIx64 "+0x%" PRIx64
                       " needs %zu > %zu ranges: %d", start, len, runs,
                       max_ranges, r);
            g_array_free(out, true);
            nr_hist--;          /* refused: nothing changes */
        } else {
            fuzz_check(r == 0, "set 0x%" PRIx64 "+0x%" PRIx64 " attrs 0x%x "
                       "(%zu ranges, limit %zu): %d", start, len, attrs, runs,
                       max_ranges, r);
            g_array_free(map, true);
            map = out;
        }
        check_map((PlaneMemAttrRange *)map->data, map->len);
    }
    return 0;
}
