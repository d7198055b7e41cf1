/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes across savevm/loadvm and live migration (TCG), with the
 * freestanding guest pair: test=migrate makes ECHO calls from both vCPUs,
 * checks every answer, and at the end has plane 1 count the calls it
 * served (none lost, none made twice) and probes the sealed region.  And
 * planes=1 streams against Debian's stock QEMU of the same version, both
 * ways, where it is installed.
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "qobject/qstring.h"
#include "planes-guest-lib.h"
#include "planes-stream-edit.h"

#define MIGRATE_STOP 0x6000     /* the guest's stop flag (plane0.c) */
#define MIGRATE_HOLD 0x6008     /* and the flag that ends its hold= */
#define STOCK_QEMU "/usr/bin/qemu-system-x86_64"
#define MACHINE "q35,planes=2,plane-violation=fault"

/* A migration destination: the same guest, waiting on @uri, paused. */
static void guest_incoming(GuestRun *run, const char *machine,
                           const char *uri)
{
    g_autofree char *extra = g_strdup_printf("-S -incoming %s", uri);

    guest_start_accel(run, "tcg", machine, "test=migrate", extra);
}

static char *migration_status(QTestState *qts)
{
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': 'query-migrate' }");
    QDict *ret = qdict_get_qdict(resp, "return");

    return g_strdup(qdict_haskey(ret, "status") ?
                    qdict_get_str(ret, "status") : "none");
}

/* Waits, bounded, until @qts's migration is @want (or fails). */
static void wait_migration(QTestState *qts, const char *want)
{
    gint64 end = g_get_monotonic_time() + 120 * G_TIME_SPAN_SECOND;

    for (;;) {
        g_autofree char *status = migration_status(qts);

        if (!strcmp(status, want)) {
            return;
        }
        if (!strcmp(status, "failed") || g_get_monotonic_time() > end) {
            g_test_message("migration is '%s', not '%s'", status, want);
            g_assert_not_reached();
        }
        g_usleep(20 * 1000);
    }
}

/* What of query-planes must be the same after a load. */
static char *planes_summary(QTestState *qts)
{
    GString *s = g_string_new("");

    for (int id = 0; id < 2; id++) {
        g_autoptr(QDict) p = query_plane(qts, id);

        g_string_append_printf(s, "%d:%s:%" PRIx64 "+%" PRIx64 "@%" PRIx64
                               ":ranges=%" PRId64 ";", id,
                               qdict_get_str(p, "state"),
                               qdict_get_int(p, "region-base"),
                               qdict_get_int(p, "region-size"),
                               qdict_get_int(p, "entry-point"),
                               qdict_get_int(p, "memory-attr-ranges"));
    }
    return g_string_free(s, false);
}

/* Waits for a progress line past byte @from; returns the byte after it. */
static size_t wait_progress(GuestRun *run, size_t from)
{
    static const char needle[] = "P0: migrate rounds ";
    g_autofree char *text = guest_wait_serial_from(run, from, needle);

    return from + (strstr(text, needle) - text) + strlen(needle);
}

/* Waits for a whole serial line that starts with @prefix; returns it. */
static char *wait_line(GuestRun *run, const char *prefix)
{
    gint64 end = g_get_monotonic_time() + 60 * G_TIME_SPAN_SECOND;

    for (;;) {
        g_autofree char *text = guest_wait_serial(run, prefix);
        const char *line = strstr(text, prefix);
        const char *eol = strchr(line, '\n');

        if (eol) {
            return g_strndup(line, eol + 1 - line);
        }
        g_assert(g_get_monotonic_time() < end);
        g_usleep(10 * 1000);
    }
}

/* Ends the guest's loop; its RESULT line, then its exit code (1: pass). */
static void finish_guest(GuestRun *run)
{
    g_autofree char *text = NULL;

    qtest_writeq(run->qts, MIGRATE_STOP, 1);
    text = wait_line(run, "RESULT migrate ");
    if (!strstr(text, " wrong=0 sealed-trap=14 region=intact\r\n")) {
        g_test_message("%s", text);
    }
    g_assert_nonnull(strstr(text, " wrong=0 sealed-trap=14 "
                                  "region=intact\r\n"));
    qtest_set_expected_status(run->qts, 1);
    qtest_wait_qemu(run->qts);
    /* served == calls: the guest checked it, and exited 1 only then */
    guest_finish(run);
}

/*
 * savevm, more calls, loadvm: the snapshot's planes come back (the same
 * states, region and view), VTL calls go on being answered, the region
 * still faults for plane 0, and plane 1 served each call exactly once
 * (its count was restored with its memory).
 */
static void test_savevm_loadvm(void)
{
    g_autofree char *disk = NULL;
    g_autofree char *extra = NULL;
    g_autofree char *saved = NULL, *loaded = NULL, *out = NULL;
    GuestRun run;
    size_t at;

    if (!snapshot_disk_new(&disk)) {
        return;
    }
    extra = g_strdup_printf("-drive file=%s,if=none,id=snap,format=qcow2",
                            disk);
    guest_start_accel(&run, "tcg", MACHINE, "test=migrate", extra);
    at = wait_progress(&run, 0);
    qtest_qmp_assert_success(run.qts, "{ 'execute': 'stop' }");
    saved = planes_summary(run.qts);
    g_assert_nonnull(strstr(saved, ";1:parked:") ?:
                     strstr(saved, ";1:running:"));
    out = qtest_hmp(run.qts, "savevm planes-snap");
    g_assert_cmpstr(out, ==, "");
    g_clear_pointer(&out, g_free);
    qtest_qmp_assert_success(run.qts, "{ 'execute': 'cont' }");
    at = wait_progress(&run, at);
    qtest_qmp_assert_success(run.qts, "{ 'execute': 'stop' }");
    out = qtest_hmp(run.qts, "loadvm planes-snap");
    g_assert_cmpstr(out, ==, "");
    loaded = planes_summary(run.qts);
    g_assert_cmpstr(loaded, ==, saved);
    qtest_qmp_assert_success(run.qts, "{ 'execute': 'cont' }");
    wait_progress(&run, at);
    finish_guest(&run);
    unlink(disk);
}

/* Migrates, then compares the planes of both sides before going on. */
static void migrate_to(GuestRun *src, GuestRun *dst, const char *uri)
{
    g_autofree char *left = NULL, *arrived = NULL;
    g_autoptr(QDict) resp = NULL;

    resp = qtest_qmp(src->qts, "{ 'execute': 'migrate', 'arguments': "
                     "{ 'uri': %s } }", uri);
    g_assert(qdict_haskey(resp, "return"));
    wait_migration(src->qts, "completed");
    wait_migration(dst->qts, "completed");
    left = planes_summary(src->qts);
    arrived = planes_summary(dst->qts);
    g_assert_cmpstr(arrived, ==, left);
    qtest_qmp_assert_success(dst->qts, "{ 'execute': 'cont' }");
}

/*
 * Live, twice in a row, while both vCPUs make VTL calls: the guest goes
 * on on each destination with every answer right and none lost or made
 * twice; the planes arrive as they left.
 */
static void test_live(void)
{
    g_autofree char *sock = g_strdup_printf("unix:%s/planes-mig-%d.sock",
                                            g_get_tmp_dir(), getpid());
    GuestRun a, b, c;

    guest_start_accel(&a, "tcg", MACHINE, "test=migrate", "");
    wait_progress(&a, 0);
    guest_incoming(&b, MACHINE, sock);
    migrate_to(&a, &b, sock);
    guest_finish(&a);
    wait_progress(&b, 0);       /* the destination's own serial file */
    guest_incoming(&c, MACHINE, sock);
    migrate_to(&b, &c, sock);
    guest_finish(&b);
    wait_progress(&c, 0);
    finish_guest(&c);
}

/*
 * A destination with other planes refuses the stream with an error; the
 * source runs on, its guest unharmed.
 */
static void test_planes_mismatch(void)
{
    g_autofree char *sock = g_strdup_printf("unix:%s/planes-mis-%d.sock",
                                            g_get_tmp_dir(), getpid());
    g_autoptr(QDict) resp = NULL;
    GuestRun a, b;
    size_t at;

    guest_start_accel(&a, "tcg", MACHINE, "test=migrate", "");
    at = wait_progress(&a, 0);
    guest_incoming(&b, "q35,planes=3,plane-violation=fault", sock);
    qtest_set_expected_status(b.qts, 1);
    resp = qtest_qmp(a.qts, "{ 'execute': 'migrate', 'arguments': "
                     "{ 'uri': %s } }", sock);
    g_assert(qdict_haskey(resp, "return"));
    qtest_wait_qemu(b.qts);
    guest_finish(&b);
    wait_migration(a.qts, "failed");
    assert_status(a.qts, "running");
    wait_progress(&a, at);
    finish_guest(&a);
}

typedef struct FileCase {
    const char *hold;           /* the guest's hold=, NULL: -S at start */
    const char *held;           /* the serial line that says it holds */
    const char *state;          /* plane 1's state there */
} FileCase;

/*
 * migrate to a file and -incoming from it (QEMU 10's file: transport),
 * with plane 1 in each state: created (before the guest ran), configured,
 * parked, and running (serving a long call on vCPU 0).  The destination
 * goes on from there to the same end.
 */
static void test_file(const void *opaque)
{
    const FileCase *fc = opaque;
    g_autofree char *path = NULL;
    g_autofree char *uri = NULL, *append = NULL;
    g_autofree char *left = NULL, *arrived = NULL, *state = NULL;
    g_autoptr(QDict) resp = NULL;
    GuestRun a, b;
    int fd = g_file_open_tmp("planes-mig-XXXXXX.bin", &path, NULL);

    g_assert(fd >= 0);
    close(fd);
    uri = g_strdup_printf("file:%s", path);
    append = g_strdup_printf("test=migrate hold=%s", fc->hold ?: "none");
    guest_start_accel(&a, "tcg", MACHINE, append, fc->hold ? "" : "-S");
    state = g_strdup_printf(";1:%s:", fc->state);
    if (fc->hold) {
        gint64 end = g_get_monotonic_time() + 30 * G_TIME_SPAN_SECOND;

        g_free(guest_wait_serial(&a, fc->held));
        /* The guest says where it holds just before it gets there */
        for (;;) {
            g_autofree char *now = planes_summary(a.qts);

            if (strstr(now, state) || g_get_monotonic_time() > end) {
                break;
            }
            g_usleep(10 * 1000);
        }
        qtest_qmp_assert_success(a.qts, "{ 'execute': 'stop' }");
    }
    left = planes_summary(a.qts);
    g_assert_nonnull(strstr(left, state));
    resp = qtest_qmp(a.qts, "{ 'execute': 'migrate', 'arguments': "
                     "{ 'uri': %s } }", uri);
    g_assert(qdict_haskey(resp, "return"));
    wait_migration(a.qts, "completed");
    guest_finish(&a);
    stream_save_seed(path, fc->state);

    guest_incoming(&b, MACHINE, uri);
    wait_migration(b.qts, "completed");
    arrived = planes_summary(b.qts);
    g_assert_cmpstr(arrived, ==, left);
    qtest_qmp_assert_success(b.qts, "{ 'execute': 'cont' }");
    qtest_writeq(b.qts, MIGRATE_HOLD, 1);
    wait_progress(&b, 0);
    finish_guest(&b);
    unlink(path);
}

static const FileCase file_cases[] = {
    { NULL, NULL, "created" },
    { "config", "P0: held at config", "configured" },
    { "parked", "P0: held at parked", "parked" },
    { "spin", "P0: held at spin", "running" },
};

/* A migration cancelled half way: the source runs on, correctly. */
static void test_cancel(void)
{
    g_autoptr(QDict) r1 = NULL, r2 = NULL;
    GuestRun a;
    size_t at;

    guest_start_accel(&a, "tcg", MACHINE, "test=migrate", "");
    at = wait_progress(&a, 0);
    /* slow enough that it cannot end before the cancel */
    qtest_qmp_assert_success(a.qts, "{ 'execute': 'migrate-set-parameters',"
                             " 'arguments': { 'max-bandwidth': 4096 } }");
    r1 = qtest_qmp(a.qts, "{ 'execute': 'migrate', 'arguments': "
                   "{ 'uri': 'exec:cat >/dev/null' } }");
    g_assert(qdict_haskey(r1, "return"));
    wait_migration(a.qts, "active");
    r2 = qtest_qmp(a.qts, "{ 'execute': 'migrate_cancel' }");
    g_assert(qdict_haskey(r2, "return"));
    wait_migration(a.qts, "cancelled");
    assert_status(a.qts, "running");
    wait_progress(&a, at);
    finish_guest(&a);
}

#define FRESH "test=migrate p1base=0x100000000"

/*
 * A region outside guest RAM (fresh RAM at 4 GiB): the destination makes
 * its RAM block in the setup phase, before the RAM arrives, and the guest
 * goes on there; a destination whose plane-ram-limit leaves no room for
 * it refuses the stream, and the source runs on.
 */
static void test_fresh_ram(void)
{
    g_autofree char *sock = g_strdup_printf("unix:%s/planes-fresh-%d.sock",
                                            g_get_tmp_dir(), getpid());
    g_autoptr(QDict) resp = NULL;
    GuestRun a, b, c;
    size_t at;

    guest_start_accel(&a, "tcg", MACHINE, FRESH, "");
    at = wait_progress(&a, 0);
    guest_incoming(&b, MACHINE ",plane-ram-limit=8M", sock);
    qtest_set_expected_status(b.qts, 1);
    resp = qtest_qmp(a.qts, "{ 'execute': 'migrate', 'arguments': "
                     "{ 'uri': %s } }", sock);
    g_assert(qdict_haskey(resp, "return"));
    qtest_wait_qemu(b.qts);
    guest_finish(&b);
    wait_migration(a.qts, "failed");
    assert_status(a.qts, "running");
    at = wait_progress(&a, at);

    guest_incoming(&c, MACHINE, sock);
    migrate_to(&a, &c, sock);
    guest_finish(&a);
    wait_progress(&c, 0);
    finish_guest(&c);
}

/*
 * While a migration runs, CONFIG adds no fresh RAM (-16), and a reset
 * that drops a region's fresh RAM keeps its block until the migration
 * ends: the destination ends up without the region, as the source.
 */
static void test_fresh_ram_during_migration(void)
{
    g_autofree char *sock = g_strdup_printf("unix:%s/planes-frm-%d.sock",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *text = NULL, *left = NULL, *arrived = NULL;
    g_autoptr(QDict) r1 = NULL, r2 = NULL, r3 = NULL;
    GuestRun a, b, c;

    guest_start_accel(&a, "tcg", MACHINE, FRESH " hold=start", "");
    g_free(guest_wait_serial(&a, "P0: held at start"));
    qtest_qmp_assert_success(a.qts, "{ 'execute': 'migrate-set-parameters',"
                             " 'arguments': { 'max-bandwidth': 4096 } }");
    r1 = qtest_qmp(a.qts, "{ 'execute': 'migrate', 'arguments': "
                   "{ 'uri': 'exec:cat >/dev/null' } }");
    g_assert(qdict_haskey(r1, "return"));
    wait_migration(a.qts, "active");
    qtest_writeq(a.qts, MIGRATE_HOLD, 1);
    text = wait_line(&a, "P0: CONFIG rax=");
    g_assert_cmpstr(text, ==, "P0: CONFIG rax=-16\r\n");
    r2 = qtest_qmp(a.qts, "{ 'execute': 'migrate_cancel' }");
    g_assert(qdict_haskey(r2, "return"));
    wait_migration(a.qts, "cancelled");
    assert_status(a.qts, "running");
    guest_finish(&a);

    guest_start_accel(&b, "tcg", MACHINE, FRESH " hold=parked", "");
    g_free(guest_wait_serial(&b, "P0: held at parked"));
    guest_incoming(&c, MACHINE, sock);
    qtest_qmp_assert_success(b.qts, "{ 'execute': 'migrate-set-parameters',"
                             " 'arguments': { 'max-bandwidth': 65536 } }");
    r3 = qtest_qmp(b.qts, "{ 'execute': 'migrate', 'arguments': "
                   "{ 'uri': %s } }", sock);
    g_assert(qdict_haskey(r3, "return"));
    wait_migration(b.qts, "active");
    qtest_qmp_assert_success(b.qts, "{ 'execute': 'system_reset' }");
    qtest_qmp_assert_success(b.qts, "{ 'execute': 'migrate-set-parameters',"
                             " 'arguments': { 'max-bandwidth': 1073741824 } }");
    wait_migration(b.qts, "completed");
    wait_migration(c.qts, "completed");
    left = planes_summary(b.qts);
    arrived = planes_summary(c.qts);
    g_assert_cmpstr(arrived, ==, left);
    guest_finish(&b);
    qtest_qmp_assert_success(c.qts, "{ 'execute': 'cont' }");
    guest_finish(&c);
}

/* @src to @dst (which starts as soon as the stream is in) over @uri. */
static void migrate_running(QTestState *src, QTestState *dst, const char *uri)
{
    g_autoptr(QDict) resp = qtest_qmp(src, "{ 'execute': 'migrate', "
                                      "'arguments': { 'uri': %s } }", uri);

    g_assert(qdict_haskey(resp, "return"));
    wait_migration(src, "completed");
    wait_migration(dst, "completed");
    assert_status(dst, "running");
}

/* planes=1 is stock: a stream goes from the fork to stock QEMU and back. */
static void test_planes1_stock(void)
{
    g_autofree char *sock = g_strdup_printf("unix:%s/planes-stock-%d.sock",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *inc = g_strdup_printf("-incoming %s", sock);
    const char *fork_bin = g_getenv("QTEST_QEMU_BINARY");
    QTestState *src, *dst, *back;
    const char *args = "-accel tcg -machine q35 -m 256M -nodefaults "
                       "-display none";
    g_autofree char *a_src = g_strdup(args);
    g_autofree char *a_dst = g_strdup_printf("%s %s", args, inc);

    if (!g_file_test(STOCK_QEMU, G_FILE_TEST_IS_EXECUTABLE)) {
        g_test_skip("no stock QEMU at " STOCK_QEMU
                    " (Debian's qemu-system-x86)");
        return;
    }
    g_setenv("PLANES_STOCK_QEMU", STOCK_QEMU, true);
    g_setenv("PLANES_FORK_QEMU", fork_bin, true);
    src = qtest_init_with_env("PLANES_FORK_QEMU", a_src, true);
    dst = qtest_init_with_env("PLANES_STOCK_QEMU", a_dst, true);
    migrate_running(src, dst, sock);
    qtest_quit(src);
    unlink(sock + strlen("unix:"));
    back = qtest_init_with_env("PLANES_FORK_QEMU", a_dst, true);
    migrate_running(dst, back, sock);
    qtest_quit(dst);
    qtest_quit(back);
}

/*
 * A virtio-rng-pci of plane 1, migrated: plane 1 sets it up and gets its
 * first 64 bytes on the source; the VM is migrated (file:) while plane 0
 * waits; on the destination plane 1 makes a second request of the same
 * device without setting anything up again.  The destination must have
 * rebuilt the device's plane (its DMA reaches plane 1's hidden region, its
 * MSI-X message plane 1's APIC) from the same command line and the
 * device's own migrated state: used index 2, one more interrupt taken by
 * plane 1, none by plane 0.  First a destination that gives the device to
 * plane 0 refuses the stream with one error naming both sides, before
 * the device's state is loaded through plane 0's view.
 */
#define VIRTIO_DEVICE_OF(plane) \
    "-device virtio-rng-pci,id=p1rng,plane=" #plane ",addr=05.0," \
    "disable-legacy=on"
#define VIRTIO_APPEND "test=virtio-plane hold=virtio halt=1"
#define VIRTIO_AGAIN_OK "RESULT virtio-again rax=0 taken=1 " \
                        "pending-at-entry=1 used=2 len=64 "

/* Once @a's guest says @held: stops it, saves it to @uri and ends it. */
static void save_held(GuestRun *a, const char *held, const char *uri)
{
    g_autoptr(QDict) resp = NULL;

    g_free(guest_wait_serial(a, held));
    qtest_qmp_assert_success(a->qts, "{ 'execute': 'stop' }");
    resp = qtest_qmp(a->qts, "{ 'execute': 'migrate', 'arguments': "
                     "{ 'uri': %s } }", uri);
    g_assert(qdict_haskey(resp, "return"));
    wait_migration(a->qts, "completed");
    guest_finish(a);
}

/* -incoming @uri with the device on plane 0: must fail, with one line. */
static void virtio_incoming_refused(const char *uri)
{
    g_autofree char *cmd = g_strdup_printf(
        "timeout 120 %s -accel tcg -machine q35,planes=2 -smp 2 -m 512M "
        "-nodefaults -display none -kernel %s -append '" VIRTIO_APPEND "' "
        "-no-reboot -incoming %s " VIRTIO_DEVICE_OF(0),
        g_getenv("QTEST_QEMU_BINARY"), guest_path(), uri);
    g_autofree char *err = NULL;
    int status;

    g_assert(g_spawn_command_line_sync(cmd, NULL, &err, &status, NULL));
    g_assert(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    if (!strstr(err, "planes: the devices of the planes differ: the source "
                "has plane 1: /machine/peripheral/p1rng, this VM plane 1: "
                "none; give each device the same plane property on both "
                "sides\n")) {
        g_test_message("%s", err);
        g_assert_not_reached();
    }
    /* refused in the setup phase: no device state was loaded */
    g_assert_null(strstr(err, "VQ 0"));
}

static void test_virtio_device(void)
{
    g_autofree char *path = NULL, *uri = NULL, *first = NULL;
    g_autofree char *again = NULL, *incoming = NULL;
    g_autoptr(QDict) resp = NULL, p1 = NULL;
    unsigned int nonzero;
    GuestRun a, b;
    int fd = g_file_open_tmp("planes-mig-XXXXXX.bin", &path, NULL);

    g_assert(fd >= 0);
    close(fd);
    uri = g_strdup_printf("file:%s", path);
    guest_start_accel(&a, "tcg", "q35,planes=2", VIRTIO_APPEND,
                      "-no-reboot " VIRTIO_DEVICE_OF(1));
    first = wait_line(&a, "RESULT virtio-plane ");
    g_assert_nonnull(strstr(first, " rax=0 "));
    g_assert_nonnull(strstr(first, " taken=1 pending-at-entry=1 used=1 "
                                   "len=64 "));
    g_assert_nonnull(strstr(first, " plane0-interrupts=0\r\n"));
    save_held(&a, "P0: held at virtio", uri);

    virtio_incoming_refused(uri);
    incoming = g_strdup_printf("-no-reboot -S -incoming %s "
                               VIRTIO_DEVICE_OF(1), uri);
    guest_start_accel(&b, "tcg", "q35,planes=2", VIRTIO_APPEND, incoming);
    wait_migration(b.qts, "completed");
    p1 = query_plane(b.qts, 1);
    g_assert_cmpstr(qstring_get_str(qobject_to(QString,
                        qlist_peek(qdict_get_qlist(p1, "devices")))),
                    ==, "/machine/peripheral/p1rng");
    qtest_qmp_assert_success(b.qts, "{ 'execute': 'cont' }");
    qtest_writeq(b.qts, MIGRATE_HOLD, 1);
    again = wait_line(&b, "RESULT virtio-again ");
    if (!g_str_has_prefix(again, VIRTIO_AGAIN_OK)) {
        g_test_message("%s", again);
    }
    g_assert(g_str_has_prefix(again, VIRTIO_AGAIN_OK));
    g_assert(sscanf(strstr(again, "nonzero="), "nonzero=%u", &nonzero) == 1);
    g_assert_cmpuint(nonzero, >=, 48);
    g_assert_nonnull(strstr(again, " plane0-interrupts=0\r\n"));
    guest_finish(&b);
    unlink(path);
}

/*
 * The -device options of the first slot of query-hotpluggable-cpus that
 * has no CPU: "TYPE,socket-id=S,core-id=C,thread-id=T".
 */
static char *free_cpu_slot(QTestState *qts)
{
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': "
                                      "'query-hotpluggable-cpus' }");
    const QListEntry *e;

    QLIST_FOREACH_ENTRY(qdict_get_qlist(resp, "return"), e) {
        QDict *slot = qobject_to(QDict, qlist_entry_obj(e));
        QDict *props = qdict_get_qdict(slot, "props");

        if (!qdict_haskey(slot, "qom-path")) {
            return g_strdup_printf("%s,socket-id=%" PRId64 ",core-id=%"
                                   PRId64 ",thread-id=%" PRId64,
                                   qdict_get_str(slot, "type"),
                                   qdict_get_int(props, "socket-id"),
                                   qdict_get_int(props, "core-id"),
                                   qdict_get_int(props, "thread-id"));
        }
    }
    g_assert_not_reached();
}

/* The second number of the guest's latest "migrate rounds A B" line. */
static uint64_t vcpu1_rounds(GuestRun *run)
{
    g_autofree char *text = guest_serial(run);
    const char *last = g_strrstr(text, "P0: migrate rounds ");
    char *end;

    g_assert(last);
    g_ascii_strtoull(last + strlen("P0: migrate rounds "), &end, 10);
    return g_ascii_strtoull(end, NULL, 10);
}

/*
 * A CPU plugged into a running planes=2 VM (-smp 1,maxcpus=2, then
 * device_add) comes up with its plane states and makes VTL calls; the VM
 * then migrates to a destination that has the CPU on its command line,
 * where both vCPUs' calls go on, none lost or answered twice.
 */
static void test_cpu_hotplug(void)
{
    g_autofree char *sock = g_strdup_printf("unix:%s/planes-hp-%d.sock",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *slot = NULL, *extra = NULL, *cmd = NULL, *out = NULL;
    g_autoptr(QDict) p1 = NULL;
    GuestRun a, b;
    size_t at = 0;

    guest_start_accel(&a, "tcg", MACHINE, "test=migrate waitap=1",
                      "-smp 1,maxcpus=2");
    guest_wait_serial(&a, "P0: waiting for vCPU 1 to be plugged");
    slot = free_cpu_slot(a.qts);
    cmd = g_strdup_printf("device_add %s,id=cpu1", slot);
    out = qtest_hmp(a.qts, "%s", cmd);
    g_assert_cmpstr(out, ==, "");
    p1 = query_plane(a.qts, 1);
    g_assert_cmpint(qlist_size(qdict_get_qlist(p1, "vcpus")), ==, 2);
    /* vCPU 1's VTL calls are answered */
    do {
        at = wait_progress(&a, at);
    } while (vcpu1_rounds(&a) == 0);
    extra = g_strdup_printf("-smp 1,maxcpus=2 -device %s,id=cpu1 -S "
                            "-incoming %s", slot, sock);
    guest_start_accel(&b, "tcg", MACHINE, "test=migrate waitap=1", extra);
    migrate_to(&a, &b, sock);
    guest_finish(&a);
    at = wait_progress(&b, 0);
    at = wait_progress(&b, at);
    finish_guest(&b);
}

/*
 * A stream edited as a host could edit it (issue 32): each edit is a
 * state the guest cannot bring the planes to.  The destination must
 * refuse it whole: one clear line, the migration failed, nothing of it
 * applied (plane 1 still created), QEMU alive and not running the guest.
 */
typedef struct StreamEdit {
    const char *name;
    const char *hold;           /* the source guest's hold= */
    void (*edit)(StreamSection *s);
    const char *error;          /* what the refusal line names */
} StreamEdit;

/* The in-flight VTL call's caller 0 -> 1: its return would "switch" to 1 */
static void edit_call_caller(StreamSection *s)
{
    for (unsigned int i = 0; i < s->nr_vcpus; i++) {
        uint8_t *pp = s->data + stream_pending(s, i);

        if (stream_be32(pp + STREAM_PENDING_KIND) == 2) {     /* VTL call */
            g_assert_cmpuint(stream_be32(pp + STREAM_PENDING_CALLER), ==, 0);
            stream_put_be32(pp + STREAM_PENDING_CALLER, 1);
            return;
        }
    }
    g_assert_not_reached();
}

/* ACTIVATE's boot queued, plane 1's region ending 64 KiB below 2^64 */
static void edit_boot_queued_huge_region(StreamSection *s)
{
    uint8_t *plane1 = s->data + stream_plane(s, 1);
    uint64_t base = stream_be64(plane1 + STREAM_PLANE_REGION_SIZE - 8);

    stream_put_be64(plane1 + STREAM_PLANE_REGION_SIZE,
                    -base - 0x10000);
    s->data[stream_plane(s, s->nr_planes) + STREAM_SET_BOOT_QUEUED] = 1;
}

/* plane 1 parked -> configured: plane 0 could ACTIVATE it again */
static void edit_parked_to_configured(StreamSection *s)
{
    uint8_t *plane1 = s->data + stream_plane(s, 1);

    g_assert_cmpuint(stream_be32(plane1 + STREAM_PLANE_STATE), ==, 4);
    stream_put_be32(plane1 + STREAM_PLANE_STATE, 1);
}

static const StreamEdit stream_edits[] = {
    { "call-caller", "spin", edit_call_caller,
      "vCPU 0 pending record kind 2 caller 1 callee 1" },
    { "boot-queued-huge-region", "parked", edit_boot_queued_huge_region,
      "CONFIG record: plane 1 region 0x4000000+0xfffffffffbff0000 is outside" },
    { "parked-to-configured", "parked", edit_parked_to_configured,
      "plane 1 is configured but has a boot record" },
};

/* Saves the stopped guest, held at @hold, to @path. */
static void save_held_guest(const char *hold, const char *path)
{
    g_autofree char *append = g_strdup_printf("test=migrate hold=%s", hold);
    g_autofree char *held = g_strdup_printf("P0: held at %s", hold);
    g_autofree char *uri = g_strdup_printf("file:%s", path);
    GuestRun a;

    guest_start_accel(&a, "tcg", MACHINE, append, "");
    save_held(&a, held, uri);
}

/* The destination's migration status once it has ended, bounded */
static char *incoming_outcome(QTestState *qts)
{
    gint64 end = g_get_monotonic_time() + 120 * G_TIME_SPAN_SECOND;

    for (;;) {
        char *status = migration_status(qts);

        if (!strcmp(status, "failed") || !strcmp(status, "completed") ||
            g_get_monotonic_time() > end) {
            return status;
        }
        g_free(status);
        g_usleep(20 * 1000);
    }
}

static void test_stream_edit(const void *opaque)
{
    const StreamEdit *e = opaque;
    g_autofree char *path = NULL, *err_path = NULL, *extra = NULL;
    g_autofree char *uri = NULL, *status = NULL, *err = NULL, *seed = NULL;
    g_autoptr(QDict) plane1 = NULL;
    StreamSection s;
    GuestRun b;
    int fd = g_file_open_tmp("planes-edit-XXXXXX.bin", &path, NULL);

    g_assert(fd >= 0);
    close(fd);
    fd = g_file_open_tmp("planes-edit-XXXXXX.err", &err_path, NULL);
    g_assert(fd >= 0);
    close(fd);
    save_held_guest(e->hold, path);
    seed = g_strdup_printf("held-%s", e->hold);
    stream_save_seed(path, seed);
    stream_load(&s, path);
    e->edit(&s);
    stream_save(&s, path);
    stream_save_seed(path, e->name);

    uri = g_strdup_printf("file:%s", path);
    extra = g_strdup_printf("-S -incoming defer 2>%s", err_path);
    guest_start_accel(&b, "tcg", MACHINE, "test=migrate", extra);
    qtest_qmp_assert_success(b.qts, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s, "
                             "'exit-on-error': false } }", uri);
    status = incoming_outcome(b.qts);
    if (strcmp(status, "failed")) {
        /* accepted: show what the destination then does with it */
        qtest_qmp_send(b.qts, "{ 'execute': 'cont' }");
        for (int i = 0; i < 300 && qtest_probe_child(b.qts); i++) {
            g_usleep(100 * 1000);
        }
        g_assert(g_file_get_contents(err_path, &err, NULL, NULL));
        g_test_message("the destination took the edited stream (%s); its "
                       "stderr: %s", status, err);
        g_assert_not_reached();
    }
    g_assert(g_file_get_contents(err_path, &err, NULL, NULL));
    if (!strstr(err, "planes: the incoming migration stream is refused: ") ||
        !strstr(err, e->error)) {
        g_test_message("stderr: %s", err);
        g_assert_not_reached();
    }
    g_test_message("refused as expected: %s", err);
    /* nothing applied: plane 1 as the destination started, QEMU alive */
    plane1 = query_plane(b.qts, 1);
    g_assert_cmpstr(qdict_get_str(plane1, "state"), ==, "created");
    g_assert_cmpint(qdict_get_int(plane1, "region-size"), ==, 0);
    assert_status(b.qts, "inmigrate");
    guest_finish(&b);
    unlink(path);
    unlink(err_path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/planes/tcg/migration/savevm-loadvm",
                   test_savevm_loadvm);
    qtest_add_func("/planes/tcg/migration/live-twice", test_live);
    qtest_add_func("/planes/tcg/migration/cpu-hotplug", test_cpu_hotplug);
    qtest_add_func("/planes/tcg/migration/planes-mismatch",
                   test_planes_mismatch);
    qtest_add_func("/planes/tcg/migration/planes1-stock",
                   test_planes1_stock);
    qtest_add_func("/planes/tcg/migration/cancel", test_cancel);
    qtest_add_func("/planes/tcg/migration/fresh-ram", test_fresh_ram);
    qtest_add_func("/planes/tcg/migration/fresh-ram-during-migration",
                   test_fresh_ram_during_migration);
    qtest_add_func("/planes/tcg/migration/virtio-device-of-plane-1",
                   test_virtio_device);
    for (size_t i = 0; i < G_N_ELEMENTS(file_cases); i++) {
        g_autofree char *name = g_strdup_printf(
            "/planes/tcg/migration/file/%s", file_cases[i].state);

        qtest_add_data_func(name, &file_cases[i], test_file);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(stream_edits); i++) {
        g_autofree char *name = g_strdup_printf(
            "/planes/tcg/migration/stream-edit/%s", stream_edits[i].name);

        qtest_add_data_func(name, &stream_edits[i], test_stream_edit);
    }
    return g_test_run();
}
