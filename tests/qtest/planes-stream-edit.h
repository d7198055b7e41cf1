/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes tests: finding and editing the "vm-planes" section of a saved
 * migration stream, as a host that edits the stream would.
 */

#ifndef PLANES_STREAM_EDIT_H
#define PLANES_STREAM_EDIT_H

/* QEMU_VM_SECTION_FULL, section id, name length and name, instance, version */
#define STREAM_SECTION_FULL 0x04

/*
 * The section's fields, big-endian as VMState writes them (see
 * hw/planes/plane-migration.c): nr_planes, nr_vcpus, per vCPU index a
 * pending record, per plane a plane record, then the set's records.
 */
#define STREAM_PENDING_SIZE     33
#define STREAM_PENDING_CURRENT  0
#define STREAM_PENDING_KIND     4
#define STREAM_PENDING_CALLER   8
#define STREAM_PENDING_CALLEE   12
#define STREAM_PLANE_STATE      0
#define STREAM_PLANE_REGION_SIZE 21
#define STREAM_PLANE_NR_VCPUS   566
#define STREAM_PLANE_NR_RANGES  570
#define STREAM_PLANE_FIXED      574     /* then vcpu_enabled, ranges */
#define STREAM_RANGE_SIZE       20
#define STREAM_SET_BOOT_QUEUED  9       /* after wait_seq, activating */
#define STREAM_SET_SIZE         28

typedef struct StreamSection {
    uint8_t *data;              /* the whole stream */
    size_t len;
    size_t at;                  /* the section's first field */
    size_t size;
    uint32_t nr_planes;
    uint32_t nr_vcpus;
} StreamSection;

static inline uint32_t stream_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static inline void stream_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

static inline void stream_put_be64(uint8_t *p, uint64_t v)
{
    stream_put_be32(p, v >> 32);
    stream_put_be32(p + 4, v);
}

static inline uint64_t stream_be64(const uint8_t *p)
{
    return (uint64_t)stream_be32(p) << 32 | stream_be32(p + 4);
}

/* Offset of plane @p's record in @s (the records before it walked) */
static inline size_t stream_plane(const StreamSection *s, unsigned int p)
{
    size_t off = s->at + 8 + s->nr_vcpus * STREAM_PENDING_SIZE;

    for (unsigned int q = 0; q < p; q++) {
        g_assert_cmpuint(off + STREAM_PLANE_FIXED, <=, s->len);
        off += STREAM_PLANE_FIXED +
               stream_be32(s->data + off + STREAM_PLANE_NR_VCPUS) +
               (uint64_t)stream_be32(s->data + off + STREAM_PLANE_NR_RANGES) *
               STREAM_RANGE_SIZE;
    }
    g_assert_cmpuint(off, <=, s->len);
    return off;
}

static inline size_t stream_pending(const StreamSection *s, unsigned int i)
{
    return s->at + 8 + i * STREAM_PENDING_SIZE;
}

/* Reads the stream at @path and finds its vm-planes section. */
static inline void stream_load(StreamSection *s, const char *path)
{
    static const char name[] = "\x09vm-planes";
    size_t n = sizeof(name) - 1;

    memset(s, 0, sizeof(*s));
    g_assert(g_file_get_contents(path, (char **)&s->data, &s->len, NULL));
    for (size_t i = 5; i + n + 8 + 8 <= s->len; i++) {
        if (s->data[i - 5] == STREAM_SECTION_FULL &&
            !memcmp(s->data + i, name, n)) {
            s->at = i + n + 8;
            break;
        }
    }
    g_assert_cmpuint(s->at, !=, 0);
    s->nr_planes = stream_be32(s->data + s->at);
    s->nr_vcpus = stream_be32(s->data + s->at + 4);
    g_assert_cmpuint(s->nr_planes, <=, 16);
    g_assert_cmpuint(s->nr_vcpus, <=, 288);
    s->size = stream_plane(s, s->nr_planes) + STREAM_SET_SIZE - s->at;
    g_assert_cmpuint(s->at + s->size, <=, s->len);
}

static inline void stream_save(StreamSection *s, const char *path)
{
    g_assert(g_file_set_contents(path, (char *)s->data, s->len, NULL));
    g_free(s->data);
    s->data = NULL;
}

/*
 * With PLANES_STREAM_SEEDS=DIR: the stream at @path's planes sections as
 * a seed of tests/planes/fuzz/fuzz-migration.c, DIR/@name: a byte for
 * the destination (0), the data of "vm-planes/setup", then "vm-planes".
 */
static inline void stream_save_seed(const char *path, const char *name)
{
    static const char setup_name[] = "\x0fvm-planes/setup";
    const char *dir = g_getenv("PLANES_STREAM_SEEDS");
    size_t n = sizeof(setup_name) - 1, at = 0, setup_size;
    g_autofree char *seed_path = NULL;
    g_autoptr(GByteArray) seed = NULL;
    StreamSection s;

    if (!dir) {
        return;
    }
    stream_load(&s, path);
    for (size_t i = 5; i + n + 8 <= s.len; i++) {
        if ((s.data[i - 5] == STREAM_SECTION_FULL || s.data[i - 5] == 1) &&
            !memcmp(s.data + i, setup_name, n)) {
            at = i + n + 8;
            break;
        }
    }
    g_assert_cmpuint(at, !=, 0);
    setup_size = 8 + 16 * 17 + 4;
    g_assert_cmpuint(at + setup_size, <=, s.len);
    setup_size += stream_be32(s.data + at + setup_size - 4);
    g_assert_cmpuint(at + setup_size, <=, s.len);
    seed = g_byte_array_new();
    g_byte_array_append(seed, (const guint8 *)"", 1);
    g_byte_array_append(seed, s.data + at, setup_size);
    g_byte_array_append(seed, s.data + s.at, s.size);
    g_mkdir_with_parents(dir, 0755);
    seed_path = g_build_filename(dir, name, NULL);
    g_assert(g_file_set_contents(seed_path, (char *)seed->data, seed->len,
                                 NULL));
    g_free(s.data);
}

#endif
