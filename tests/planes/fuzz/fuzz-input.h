/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes fuzzers: decoding libFuzzer's bytes into guest-physical
 * addresses and sizes that land near the places the rules care about
 * (page and region boundaries, 1 MiB, 4 GiB, the address limits, the top
 * of the 64-bit space), and the common mismatch report.
 */

#ifndef PLANES_FUZZ_INPUT_H
#define PLANES_FUZZ_INPUT_H

typedef unsigned __int128 u128;

#define KiB_ 1024ULL
#define MiB_ (1024 * KiB_)
#define GiB_ (1024 * MiB_)
#define TOP_ ((u128)1 << 64)

typedef struct FuzzIn {
    const uint8_t *p;
    size_t n;
} FuzzIn;

static inline uint8_t in_u8(FuzzIn *in)
{
    if (!in->n) {
        return 0;
    }
    in->n--;
    return *in->p++;
}

static inline uint64_t in_bytes(FuzzIn *in, unsigned int n)
{
    uint64_t v = 0;

    for (unsigned int i = 0; i < n; i++) {
        v |= (uint64_t)in_u8(in) << (8 * i);
    }
    return v;
}

static inline uint64_t in_u64(FuzzIn *in)
{
    return in_bytes(in, 8);
}

static const uint64_t fuzz_anchors[] = {
    0, 1 * MiB_, 640 * KiB_, 2 * GiB_, 3 * GiB_, 4 * GiB_, 1ULL << 36,
    1ULL << 39, 1ULL << 40, 1ULL << 46, 1ULL << 47, 1ULL << 48,
    1ULL << 52, UINT64_MAX - 1 * MiB_ + 1, UINT64_MAX - 0xfff,
    UINT64_MAX,
};

/* An anchor, or a point named by the caller (a layout range, a region). */
static inline uint64_t in_point(FuzzIn *in, const uint64_t *extra,
                                size_t nr_extra)
{
    uint8_t k = in_u8(in);
    size_t nr_anchors = sizeof(fuzz_anchors) / sizeof(fuzz_anchors[0]);

    if (nr_extra && (k & 1)) {
        return extra[(k >> 1) % nr_extra];
    }
    return fuzz_anchors[(k >> 1) % nr_anchors];
}

/* A guest-physical address: mostly a point and a page offset. */
static inline uint64_t in_addr(FuzzIn *in, const uint64_t *extra,
                               size_t nr_extra)
{
    uint8_t mode = in_u8(in);
    uint64_t base;

    switch (mode & 7) {
    case 0:
        return in_u64(in);
    case 1:                     /* any byte near a point */
        base = in_point(in, extra, nr_extra);
        return base + (int8_t)in_u8(in);
    case 2:                     /* a page or two away */
        base = in_point(in, extra, nr_extra);
        return base + (int64_t)(int8_t)in_u8(in) * 0x1000;
    case 3:                     /* 64 KiB steps */
        base = in_point(in, extra, nr_extra);
        return base + (int64_t)(int8_t)in_u8(in) * 0x10000;
    case 4:                     /* GiB steps */
        base = in_point(in, extra, nr_extra);
        return base + (int64_t)(int8_t)in_u8(in) * GiB_;
    default:                    /* exactly a point */
        return in_point(in, extra, nr_extra);
    }
}

/* A size: mostly pages around the 64 KiB boot state, or GiBs. */
static inline uint64_t in_size(FuzzIn *in, const uint64_t *extra,
                               size_t nr_extra)
{
    uint8_t mode = in_u8(in);

    switch (mode & 7) {
    case 0:
        return in_u64(in);
    case 1:
        return in_u8(in);
    case 2:
        return (uint64_t)in_u8(in) * 0x1000;
    case 3:
        return 0x10000 + (int64_t)(int8_t)in_u8(in) * 0x1000;
    case 4:
        return (uint64_t)in_u8(in) * GiB_;
    case 5:                     /* up to a point */
        return in_point(in, extra, nr_extra) - in_addr(in, extra, nr_extra);
    default:
        return (uint64_t)(in_u8(in) + 1) * 0x1000;
    }
}

#define fuzz_check(cond, ...) do {                                       \
        if (!(cond)) {                                                   \
            fprintf(stderr, "MODEL MISMATCH at %s:%d: %s\n  ",           \
                    __FILE__, __LINE__, #cond);                          \
            fprintf(stderr, __VA_ARGS__);                                \
            fprintf(stderr, "\n");                                       \
            abort();                                                     \
        }                                                                \
    } while (0)

/* libFuzzer's entry points: the harnesses define them */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
