/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: the launch measurement of a plane, for host launches and
 * guest ACTIVATEs alike: a SHA-256 over a fixed serialization of the
 * plane's configuration, its boot registers and its region's bytes.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/cutils.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "crypto/hash.h"
#include "exec/address-spaces.h"
#include "migration/vmstate.h"
#include "hw/planes/plane.h"
#include "hw/planes/plane-measure.h"
#include "hw/planes/planes-abi.h"
#include "trace.h"

/* The serialization's first bytes; a new layout gets a new version. */
#define PLANE_MEASURE_MAGIC "qemu-planes-launch-v1"
/* The region is read in chunks of this many bytes. */
#define PLANE_MEASURE_CHUNK (1 * MiB)

static void plane_measure_le(QCryptoHash *h, uint64_t v, unsigned int size)
{
    uint8_t b[8];

    stq_le_p(b, v);
    qcrypto_hash_update(h, (const char *)b, size, &error_abort);
}

/* The plane's configuration and its boot registers. */
static void plane_measure_header(QCryptoHash *h, Plane *plane,
                                 const PlaneBootInfo *info)
{
    const PlaneAccelClass *pac = plane->set->accel;
    PlaneBootRegs r = { 0 };
    size_t len = strlen(info->cmdline);

    if (pac->boot_regs) {
        pac->boot_regs(info, &r);
    }
    qcrypto_hash_update(h, PLANE_MEASURE_MAGIC, strlen(PLANE_MEASURE_MAGIC),
                        &error_abort);
    plane_measure_le(h, plane->id, 4);
    plane_measure_le(h, info->kernel_format, 4);
    plane_measure_le(h, info->region_base, 8);
    plane_measure_le(h, info->region_size, 8);
    plane_measure_le(h, info->initrd_base, 8);
    plane_measure_le(h, info->initrd_size, 8);
    plane_measure_le(h, len, 4);
    qcrypto_hash_update(h, info->cmdline, len, &error_abort);
    for (const uint64_t *v = &r.rip; v <= &r.gdt_limit; v++) {
        plane_measure_le(h, *v, 8);
    }
}

/*
 * Every page of the region below its boot state that is not all zeroes,
 * as its offset and its bytes; the boot state follows from the rest.
 */
static void plane_measure_region(QCryptoHash *h, const PlaneBootInfo *info)
{
    uint64_t len = info->region_size - PLANE_BOOT_PAGETABLES;
    g_autofree uint8_t *buf = g_malloc(PLANE_MEASURE_CHUNK);

    for (uint64_t off = 0; off < len; off += PLANE_MEASURE_CHUNK) {
        uint64_t n = MIN(PLANE_MEASURE_CHUNK, len - off);

        address_space_read(&address_space_memory, info->region_base + off,
                           MEMTXATTRS_UNSPECIFIED, buf, n);
        for (uint64_t p = 0; p < n; p += PLANE_PAGE_SIZE) {
            if (buffer_is_zero(buf + p, PLANE_PAGE_SIZE)) {
                continue;
            }
            plane_measure_le(h, off + p, 8);
            qcrypto_hash_update(h, (const char *)buf + p, PLANE_PAGE_SIZE,
                                &error_abort);
        }
    }
}

void plane_measure(Plane *plane, const PlaneBootInfo *info)
{
    g_autoptr(QCryptoHash) h = qcrypto_hash_new(QCRYPTO_HASH_ALGO_SHA256,
                                                &error_abort);
    g_autofree uint8_t *digest = NULL;
    size_t len = 0;

    plane_measure_header(h, plane, info);
    plane_measure_region(h, info);
    qcrypto_hash_finalize_bytes(h, &digest, &len, &error_abort);
    assert(len == PLANE_MEASUREMENT_SIZE);
    memcpy(plane->measurement, digest, len);
    plane->measured = true;
    trace_plane_measured(plane->id, info->region_base, info->region_size);
}

char *plane_measurement_hex(Plane *plane)
{
    GString *s;

    if (!plane->measured) {
        return NULL;
    }
    s = g_string_sized_new(2 * PLANE_MEASUREMENT_SIZE + 1);
    for (int i = 0; i < PLANE_MEASUREMENT_SIZE; i++) {
        g_string_append_printf(s, "%02x", plane->measurement[i]);
    }
    return g_string_free(s, false);
}

/*
 * The measurements of planes 1 to PLANES_MAX - 1 in their own section:
 * a migrated or restored VM reports what it was launched with, and is
 * not launched again.
 */
typedef struct PlaneMeasureImage {
    PlaneSet *set;
    uint8_t measured[PLANES_MAX];
    uint8_t digest[PLANES_MAX * PLANE_MEASUREMENT_SIZE];
} PlaneMeasureImage;

static PlaneMeasureImage plane_measure_image;

static int plane_measure_pre_save(void *opaque)
{
    PlaneMeasureImage *img = opaque;

    memset(img->measured, 0, sizeof(img->measured));
    for (unsigned int p = 1; p < img->set->nr_planes; p++) {
        Plane *plane = img->set->planes[p];

        img->measured[p] = plane->measured;
        memcpy(img->digest + p * PLANE_MEASUREMENT_SIZE, plane->measurement,
               PLANE_MEASUREMENT_SIZE);
    }
    return 0;
}

static int plane_measure_post_load(void *opaque, int version_id)
{
    PlaneMeasureImage *img = opaque;

    for (unsigned int p = 0; p < PLANES_MAX; p++) {
        if (img->measured[p] > 1 ||
            (img->measured[p] && (!p || p >= img->set->nr_planes))) {
            error_report("vm-planes/measurement: plane %u has a measurement "
                         "flag %u (the machine has %u planes)", p,
                         img->measured[p], img->set->nr_planes);
            return -EINVAL;
        }
    }
    for (unsigned int p = 1; p < img->set->nr_planes; p++) {
        Plane *plane = img->set->planes[p];

        plane->measured = img->measured[p];
        memcpy(plane->measurement, img->digest + p * PLANE_MEASUREMENT_SIZE,
               PLANE_MEASUREMENT_SIZE);
    }
    return 0;
}

static const VMStateDescription vmstate_plane_measure = {
    .name = "vm-planes/measurement",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = plane_measure_pre_save,
    .post_load = plane_measure_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT8_ARRAY(measured, PlaneMeasureImage, PLANES_MAX),
        VMSTATE_BUFFER(digest, PlaneMeasureImage),
        VMSTATE_END_OF_LIST()
    },
};

void plane_measure_migration_init(PlaneSet *set)
{
    plane_measure_image.set = set;
    vmstate_register(NULL, 0, &vmstate_plane_measure, &plane_measure_image);
}
