/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Running the planes test guests (tests/planes/guest) from a qtest: start
 * one with its serial port in a file, wait for its lines, run it to its
 * isa-debug-exit, and read plane state over QMP.
 */

#ifndef PLANES_GUEST_LIB_H
#define PLANES_GUEST_LIB_H

#include "libqtest.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"

#define GUEST_DEFAULT "tests/planes-guests/plane0.elf"
#define SERIAL_TIMEOUT_S 60

static inline const char *guest_path(void)
{
    const char *path = g_getenv("PLANES_GUEST") ?: GUEST_DEFAULT;

    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_test_message("test guest %s is missing: build it with 'make' "
                       "at the top of qemu-planes", path);
        g_assert_not_reached();
    }
    return path;
}

typedef struct GuestRun {
    QTestState *qts;
    char *serial_path;
} GuestRun;

/* Starts the guest (see @extra: -S, --preconfig); serial goes to a file. */
static inline void guest_start_accel(GuestRun *run, const char *accel,
                                     const char *machine, const char *append,
                                     const char *extra)
{
    int fd = g_file_open_tmp("planes-serial-XXXXXX", &run->serial_path, NULL);

    g_assert(fd >= 0);
    close(fd);
    run->qts = qtest_initf("-accel %s -machine %s -smp 2 -m 512M "
                           "-nodefaults -display none "
                           "-device isa-debug-exit,iobase=0xf4,iosize=0x04 "
                           "-chardev file,id=ser,path=%s -serial chardev:ser "
                           "-kernel %s -append '%s' %s",
                           accel, machine, run->serial_path, guest_path(),
                           append, extra);
}

static inline char *guest_serial(GuestRun *run)
{
    char *text = NULL;

    g_assert(g_file_get_contents(run->serial_path, &text, NULL, NULL));
    return text;
}

/*
 * Waits (bounded, and only while QEMU lives) until the serial output past
 * byte @from contains @needle; returns the output past @from.
 */
static inline char *guest_wait_serial_from(GuestRun *run, size_t from,
                                           const char *needle)
{
    gint64 end = g_get_monotonic_time() + SERIAL_TIMEOUT_S * G_TIME_SPAN_SECOND;

    for (;;) {
        g_autofree char *text = guest_serial(run);
        size_t len = strlen(text);

        if (len > from && strstr(text + from, needle)) {
            return g_strdup(text + from);
        }
        if (!qtest_probe_child(run->qts) || g_get_monotonic_time() > end) {
            g_test_message("serial so far:");
            g_test_message("%s", text);
            g_assert_not_reached();
        }
        g_usleep(10 * 1000);
    }
}

static inline char *guest_wait_serial(GuestRun *run, const char *needle)
{
    return guest_wait_serial_from(run, 0, needle);
}

static inline void guest_finish(GuestRun *run)
{
    qtest_quit(run->qts);
    unlink(run->serial_path);
    g_free(run->serial_path);
}

/*
 * Runs a guest under @accel, with the QEMU options @extra, to its
 * isa-debug-exit; returns the serial output.
 */
static inline char *guest_run_to_exit_accel(const char *accel,
                                            const char *machine,
                                            const char *append,
                                            const char *extra)
{
    g_autofree char *options = g_strdup_printf("-S %s", extra);
    GuestRun run;
    char *serial;

    guest_start_accel(&run, accel, machine, append, options);
    qtest_set_expected_status(run.qts, 1);      /* guest wrote 0: passed */
    qtest_qmp_send(run.qts, "{ 'execute': 'cont' }");
    qtest_wait_qemu(run.qts);
    serial = guest_serial(&run);
    guest_finish(&run);
    return serial;
}

/* Asserts that @lines appear in @text, in this order. */
static inline void assert_in_order(const char *text,
                                   const char *const *lines)
{
    const char *at = text;

    for (; *lines; lines++) {
        const char *found = strstr(at, *lines);

        if (!found) {
            g_test_message("missing (in order) '%s' in:", *lines);
            g_test_message("%s", text);
            g_assert_not_reached();
        }
        at = found + strlen(*lines);
    }
}

static inline QDict *query_plane(QTestState *qts, int id)
{
    QDict *resp = qtest_qmp(qts, "{ 'execute': 'query-planes' }");
    QList *list = qdict_get_qlist(resp, "return");
    QDict *plane = NULL;
    QListEntry *e;

    QLIST_FOREACH_ENTRY(list, e) {
        QDict *p = qobject_to(QDict, qlist_entry_obj(e));

        if (qdict_get_int(p, "id") == id) {
            plane = qobject_ref(p);
        }
    }
    qobject_unref(resp);
    g_assert(plane);
    return plane;
}

static inline void assert_status(QTestState *qts, const char *status)
{
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': 'query-status' }");

    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(resp, "return"), "status"),
                    ==, status);
}

/*
 * A new 16 MiB qcow2 image for savevm, in *@path (the caller unlinks
 * it); false, the test skipped, where qemu-img cannot be run.
 */
static inline bool snapshot_disk_new(char **path)
{
    g_autofree char *cmd = NULL;
    int fd = g_file_open_tmp("planes-snap-XXXXXX.qcow2", path, NULL);

    g_assert(fd >= 0);
    close(fd);
    cmd = g_strdup_printf("qemu-img create -q -f qcow2 %s 16M", *path);
    if (!g_spawn_command_line_sync(cmd, NULL, NULL, NULL, NULL)) {
        g_test_skip("qemu-img cannot be run (Debian's qemu-utils)");
        unlink(*path);
        return false;
    }
    return true;
}

#endif
