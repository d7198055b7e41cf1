/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Tests of -object plane-launch: the host launches plane 1 before plane
 * 0's first instruction, plane 0 finds it parked, and the launch
 * measurement matches scripts/planes/plane-measure.py's.
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qobject/qdict.h"
#include "planes-guest-lib.h"

#define PLANE1_BIN "tests/planes-guests/plane1.bin"
#define PLANE1_ELF "tests/planes-guests/plane1.elf"
#define P1_CMDLINE "console=ttyS0 vtl=1"
#define MACHINE "q35,planes=2,plane-violation=fault"
#define LAUNCH_IN_RAM "-object plane-launch,id=p1,kernel=" PLANE1_BIN \
    ",base=0x4000000,size=0x1000000,append='" P1_CMDLINE "'"

/*
 * Runs QEMU to its end (one that wrongly starts is ended after a minute);
 * returns its exit status, stderr in *err.
 */
static int run_qemu(const char *args, char **err)
{
    const char *bin = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *cmd = g_strdup_printf("timeout 60 %s -nodefaults "
                                           "-display none -accel tcg %s",
                                           bin, args);
    g_auto(GStrv) argv = NULL;
    g_autoptr(GError) gerr = NULL;
    int status;

    g_assert(bin);
    g_assert(g_shell_parse_argv(cmd, NULL, &argv, &gerr));
    g_assert(g_spawn_sync(NULL, argv, NULL,
                          G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_SEARCH_PATH,
                          NULL, NULL, NULL, err, &status, &gerr));
    g_assert(WIFEXITED(status));        /* never a crash or core dump */
    return WEXITSTATUS(status);
}

/*
 * scripts/planes/plane-measure.py of the repository this file is linked
 * from (build/src holds links to its files), or $PLANES_MEASURE_PY.
 */
static char *measure_script(void)
{
    g_autofree char *self = realpath(__FILE__, NULL);
    g_autofree char *qtest = NULL, *tests = NULL, *top = NULL;

    if (g_getenv("PLANES_MEASURE_PY")) {
        return g_strdup(g_getenv("PLANES_MEASURE_PY"));
    }
    g_assert(self);
    qtest = g_path_get_dirname(self);
    tests = g_path_get_dirname(qtest);
    top = g_path_get_dirname(tests);
    return g_build_filename(top, "scripts", "planes", "plane-measure.py",
                            NULL);
}

/* plane-measure.py over @args: the hex digest. */
static char *measure_py(const char *args)
{
    g_autofree char *script = measure_script();
    g_autofree char *cmd = g_strdup_printf("python3 %s %s", script, args);
    g_autofree char *err = NULL;
    char *out = NULL;
    int status;

    g_assert(g_spawn_command_line_sync(cmd, &out, &err, &status, NULL));
    if (status) {
        g_test_message("%s: %s", cmd, err);
    }
    g_assert_cmpint(status, ==, 0);
    g_strstrip(out);
    g_assert_cmpuint(strlen(out), ==, 64);
    return out;
}

static char *plane1_measurement(QTestState *qts)
{
    g_autoptr(QDict) p1 = query_plane(qts, 1);

    g_assert(qdict_haskey(p1, "launch-measurement"));
    return g_strdup(qdict_get_str(p1, "launch-measurement"));
}

/* Plane 1's measurement is what plane-measure.py @args computes. */
static void assert_measured(QTestState *qts, const char *args)
{
    g_autofree char *m = plane1_measurement(qts);
    g_autofree char *py = measure_py(args);

    g_assert_cmpstr(m, ==, py);
}

/* The measurement QEMU reports for a launch with @launch, never run. */
static char *launch_measurement(const char *launch)
{
    QTestState *qts = qtest_initf("-accel tcg -machine q35,planes=2 -S "
                                  "-nodefaults -display none %s", launch);
    char *m = plane1_measurement(qts);

    qtest_quit(qts);
    return m;
}

/*
 * Plane 1 runs to its park before plane 0's first instruction; plane 0
 * finds it there: CONFIG and ACTIVATE refused, calls answered, the region
 * sealed.  query-planes reports what plane-measure.py computes offline.
 */
static void test_launch_boot(void)
{
    g_autofree char *serial = NULL;
    g_autoptr(QDict) p1 = NULL;
    GuestRun run;
    const char *const lines[] = {
        "P1: secure monitor running at 0x4000000",
        "P1: cmdline '" P1_CMDLINE "'",
        "P1: parking with VTL_RETURN",
        "P0: booting",
        "RESULT launched-config rax=-1",
        "RESULT launched-activate rax=-1",
        "P0: echo from launched plane 1: ok",
        "P0: read of launched region: trap=14",
        "DONE", NULL,
    };

    guest_start_accel(&run, "tcg", MACHINE, "test=launched halt=1 "
                      "p1base=0x4000000", LAUNCH_IN_RAM);
    serial = guest_wait_serial(&run, "DONE");
    assert_in_order(serial, lines);
    p1 = query_plane(run.qts, 1);
    g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "parked");
    g_assert_cmpuint(qdict_get_int(p1, "region-base"), ==, 0x4000000);
    g_assert_cmpuint(qdict_get_int(p1, "entry-point"), ==, 0x4000000);
    assert_measured(run.qts, "--kernel " PLANE1_BIN " --base 0x4000000 "
                    "--size 0x1000000 --append '" P1_CMDLINE "'");
    guest_finish(&run);
}

/*
 * system_reset launches plane 1 again from the kept copy, before plane 0
 * boots again; the measurement is the same.
 */
static void test_launch_reset(void)
{
    g_autofree char *first = NULL, *again = NULL, *m1 = NULL, *m2 = NULL;
    GuestRun run;
    const char *const lines[] = {
        "P1: secure monitor running at 0x4000000",
        "P1: parking with VTL_RETURN", "P0: booting",
        "RESULT launched-config rax=-1", "P0: echo from launched plane 1: ok",
        "DONE", NULL,
    };

    guest_start_accel(&run, "tcg", MACHINE, "test=launched halt=1 "
                      "p1base=0x4000000", LAUNCH_IN_RAM);
    first = guest_wait_serial(&run, "DONE");
    m1 = plane1_measurement(run.qts);
    qtest_qmp_assert_success(run.qts, "{ 'execute': 'system_reset' }");
    again = guest_wait_serial_from(&run, strlen(first), "DONE");
    assert_in_order(again, lines);
    m2 = plane1_measurement(run.qts);
    g_assert_cmpstr(m1, ==, m2);
    guest_finish(&run);
}

/*
 * Without base and size QEMU places fresh RAM past the memory map and
 * the PCI 64-bit window; plane 0 needs nothing on its command line.
 */
static void test_launch_default_place(void)
{
    g_autofree char *serial = NULL, *args = NULL;
    g_autoptr(QDict) p1 = NULL;
    uint64_t base, size;
    GuestRun run;
    const char *const lines[] = {
        "P1: parking with VTL_RETURN", "P0: booting",
        "RESULT launched-config rax=-1", "P0: echo from launched plane 1: ok",
        "DONE", NULL,
    };

    guest_start_accel(&run, "tcg", MACHINE, "test=launched halt=1",
                      "-object plane-launch,id=p1,kernel=" PLANE1_BIN);
    serial = guest_wait_serial(&run, "DONE");
    assert_in_order(serial, lines);
    p1 = query_plane(run.qts, 1);
    base = qdict_get_int(p1, "region-base");
    size = qdict_get_int(p1, "region-size");
    /* q35, 512M, 32G PCI 64-bit window from 4G: the first GiB past it */
    g_assert_cmpuint(base, ==, 36ULL << 30);
    g_assert_cmpuint(size, ==, 16 << 20);
    args = g_strdup_printf("--kernel " PLANE1_BIN " --base 0x%" PRIx64
                           " --size 0x%" PRIx64, base, size);
    assert_measured(run.qts, args);
    guest_finish(&run);
}

/* A guest's ACTIVATE is measured the same way, over what it started. */
static void test_activate_measured(void)
{
    g_autofree char *serial = NULL;
    GuestRun run;

    guest_start_accel(&run, "tcg", MACHINE, "test=boot halt=1 "
                      "p1base=0x4000000 p1size=0x1000000", "");
    serial = guest_wait_serial(&run, "DONE");
    g_assert(strstr(serial, "P0: ACTIVATE rax=0"));
    assert_measured(run.qts, "--kernel " PLANE1_BIN " --format raw "
                    "--base 0x4000000 --size 0x1000000 --append '"
                    P1_CMDLINE "'");
    guest_finish(&run);
}

/* One changed byte of the kernel, or of the command line, changes it. */
static void test_measurement_changes(void)
{
    g_autofree char *image = NULL, *copy = NULL, *launch = NULL;
    g_autofree char *m = NULL, *m_byte = NULL, *m_cmd = NULL, *py = NULL;
    g_autofree char *args = NULL;
    gsize len;
    int fd = g_file_open_tmp("planes-launch-XXXXXX.bin", &copy, NULL);

    g_assert(fd >= 0);
    close(fd);
    g_assert(g_file_get_contents(PLANE1_BIN, &image, &len, NULL));
    image[len / 2] ^= 0x01;
    g_assert(g_file_set_contents(copy, image, len, NULL));

    m = launch_measurement("-object plane-launch,id=p1,kernel=" PLANE1_BIN
                           ",base=0x4000000,size=0x1000000,append=a=1");
    launch = g_strdup_printf("-object plane-launch,id=p1,kernel=%s,"
                             "base=0x4000000,size=0x1000000,append=a=1",
                             copy);
    m_byte = launch_measurement(launch);
    m_cmd = launch_measurement("-object plane-launch,id=p1,kernel="
                               PLANE1_BIN ",base=0x4000000,size=0x1000000,"
                               "append=a=2");
    g_assert_cmpstr(m, !=, m_byte);
    g_assert_cmpstr(m, !=, m_cmd);
    g_assert_cmpstr(m_byte, !=, m_cmd);
    args = g_strdup_printf("--kernel %s --base 0x4000000 --size 0x1000000 "
                           "--append a=1", copy);
    py = measure_py(args);
    g_assert_cmpstr(m_byte, ==, py);
    unlink(copy);
}

/* An ELF and a bzImage: QEMU and plane-measure.py load them alike. */
static void test_formats_measured(void)
{
    g_autofree char *m = NULL, *py = NULL, *launch = NULL, *args = NULL;
    g_autoptr(GDir) dir = g_dir_open("/boot", 0, NULL);
    const char *name;

    m = launch_measurement("-object plane-launch,id=p1,kernel=" PLANE1_ELF
                           ",base=0x4000000,size=0x1000000,append=a=1");
    py = measure_py("--kernel " PLANE1_ELF " --base 0x4000000 "
                    "--size 0x1000000 --append a=1");
    g_assert_cmpstr(m, ==, py);
    g_clear_pointer(&m, g_free);
    g_clear_pointer(&py, g_free);

    for (name = dir ? g_dir_read_name(dir) : NULL; name;
         name = g_dir_read_name(dir)) {
        if (g_str_has_prefix(name, "vmlinuz-")) {
            break;
        }
    }
    if (!name) {
        g_test_skip("no bzImage in /boot (Debian's linux-image-amd64)");
        return;
    }
    launch = g_strdup_printf("-object plane-launch,id=p1,kernel=/boot/%s,"
                             "format=bzimage,size=0x8000000,"
                             "append=console=ttyS1", name);
    m = launch_measurement(launch);
    args = g_strdup_printf("--kernel /boot/%s --base 0x900000000 "
                           "--size 0x8000000 --append console=ttyS1", name);
    py = measure_py(args);
    g_assert_cmpstr(m, ==, py);
}

typedef struct LaunchErrorCase {
    const char *name;
    const char *args;
    const char *message;
} LaunchErrorCase;

#define LAUNCH "-machine q35,planes=2 -object plane-launch,id=p1,"

static const LaunchErrorCase launch_error_cases[] = {
    { "missing-file", LAUNCH "kernel=/nonexistent/plane1",
      "plane-launch kernel=/nonexistent/plane1: Failed to open file "
      "\u201c/nonexistent/plane1\u201d: No such file or directory" },
    { "unreadable-file", LAUNCH "kernel=tests/planes-guests",
      "\u201ctests/planes-guests\u201d: Is a directory" },
    { "missing-initrd", LAUNCH "kernel=" PLANE1_BIN ",initrd=/nonexistent",
      "plane-launch initrd=/nonexistent: Failed to open file" },
    { "image-too-big", LAUNCH "kernel=" PLANE1_BIN
      ",base=0x4000000,size=0x11000",
      "the region of 0x11000 holds 0x1000 below its boot state" },
    { "initrd-too-big", LAUNCH "kernel=" PLANE1_BIN ",initrd="
      "tests/planes-guests/plane0.elf,base=0x4000000,size=0x20000",
      "the region of 0x20000 holds 0x10000 below its boot state" },
    { "mmio", LAUNCH "kernel=" PLANE1_BIN ",base=0xfec00000,size=0x100000",
      "plane-launch base=0xfec00000,size=0x100000: plane 1 region "
      "0xfec00000+0x100000 overlaps MMIO, firmware or only part of guest "
      "RAM" },
    { "hole", LAUNCH "kernel=" PLANE1_BIN ",base=0x40000000,size=0x1000000",
      "plane-launch base=0x40000000,size=0x1000000: plane 1 region "
      "0x40000000+0x1000000 overlaps MMIO" },
    { "partly-ram", LAUNCH "kernel=" PLANE1_BIN
      ",base=0x1ff00000,size=0x400000",
      "only part of guest RAM" },
    { "past-phys-limit", LAUNCH "kernel=" PLANE1_BIN
      ",base=0x10000000000,size=0x1000000",
      "is outside [0x100000, 0x10000000000)" },
    { "ram-limit", "-machine q35,planes=2,plane-ram-limit=16M "
      "-object plane-launch,id=p1,kernel=" PLANE1_BIN ",size=0x2000000",
      "plane-ram-limit leaves 0x1000000" },
    { "unaligned", LAUNCH "kernel=" PLANE1_BIN ",base=0x4000800,size=0x1000000",
      "plane-launch base=0x4000800,size=0x1000000: both page aligned" },
    { "plane-too-big", LAUNCH "kernel=" PLANE1_BIN ",plane=2",
      "plane-launch plane=2: the machine has 2 planes" },
    { "planes-1", "-machine q35 -object plane-launch,id=p1,kernel="
      PLANE1_BIN, "plane-launch plane=1: the machine has 1 plane " },
    { "plane-0", LAUNCH "kernel=" PLANE1_BIN ",plane=0",
      "plane-launch plane=0: plane 0 boots from the machine's firmware" },
    { "two-launches", LAUNCH "kernel=" PLANE1_BIN " -object plane-launch,"
      "id=p2,kernel=" PLANE1_ELF,
      "plane-launch: plane 1 has two launches" },
    { "format-elf", LAUNCH "kernel=" PLANE1_BIN ",format=elf",
      "format=elf does not match the file, which is neither a 64-bit x86 "
      "ELF nor a bzImage (format=raw)" },
    { "format-bzimage", LAUNCH "kernel=" PLANE1_BIN ",format=bzimage",
      "format=bzimage does not match the file" },
    { "format-raw-of-elf", LAUNCH "kernel=" PLANE1_ELF ",format=raw",
      "format=raw does not match the file, which is a 64-bit x86 ELF" },
    { "format-unknown", LAUNCH "kernel=" PLANE1_BIN ",format=pe",
      "plane-launch format=pe: elf, bzimage or raw" },
    { "append-too-long", LAUNCH "kernel=" PLANE1_BIN ",append="
      "0123456789012345678901234567890123456789012345678901234567890123"
      "0123456789012345678901234567890123456789012345678901234567890123"
      "0123456789012345678901234567890123456789012345678901234567890123"
      "0123456789012345678901234567890123456789012345678901234567890123"
      "0123456789012345678901234567890123456789012345678901234567890123"
      "0123456789012345678901234567890123456789012345678901234567890123"
      "0123456789012345678901234567890123456789012345678901234567890123"
      "0123456789012345678901234567890123456789012345678901234567890123",
      "plane-launch append: 512 characters, at most 511" },
};

/* Bad input: QEMU exits at start-up with one line naming value and limit */
static void test_launch_error(const void *opaque)
{
    const LaunchErrorCase *c = opaque;
    g_autofree char *err = NULL;

    g_assert_cmpint(run_qemu(c->args, &err), ==, 1);
    if (!strstr(err, c->message) ||
        strchr(err, '\n') != err + strlen(err) - 1) {
        g_test_message("expected one line with '%s', got: %s", c->message,
                       err);
        g_assert_not_reached();
    }
}

/* An image of @bytes in a temporary file (unlinked by the caller). */
static char *tmp_image(const char *bytes, size_t len)
{
    char *path = NULL;
    int fd = g_file_open_tmp("planes-launch-XXXXXX.bin", &path, NULL);

    g_assert(fd >= 0);
    close(fd);
    g_assert(g_file_set_contents(path, bytes, len, NULL));
    return path;
}

/*
 * A plane 1 that does not park within park-timeout, or that shuts down
 * before it parks: the VM stops with one error line, plane 1 stopped.
 */
static void test_launch_no_park(const void *opaque)
{
    const char *code = opaque;
    g_autofree char *image = tmp_image(code, 2);
    g_autofree char *args = NULL;
    g_autoptr(QDict) p1 = NULL;
    QTestState *qts;

    args = g_strdup_printf("-accel tcg -machine q35,planes=2 -nodefaults "
                           "-display none -S -object plane-launch,id=p1,"
                           "kernel=%s,park-timeout=200", image);
    qts = qtest_init(args);
    /* started once QMP listens: the STOP event cannot come before */
    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
    qtest_qmp_eventwait(qts, "STOP");
    assert_status(qts, "internal-error");
    p1 = query_plane(qts, 1);
    g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "stopped");
    qtest_quit(qts);
    unlink(image);
}

/*
 * savevm/loadvm carries the measurement and does not launch again: a
 * launch would wait for a park that never comes (plane 1 is parked
 * already), and park-timeout would stop the VM.
 */
static void test_launch_savevm(void)
{
    g_autofree char *disk = NULL, *extra = NULL;
    g_autofree char *first = NULL, *m1 = NULL, *m2 = NULL, *out = NULL;
    g_autoptr(QDict) p1 = NULL;
    GuestRun run;

    if (!snapshot_disk_new(&disk)) {
        return;
    }
    extra = g_strdup_printf(LAUNCH_IN_RAM ",park-timeout=300 -drive file=%s,"
                            "if=none,id=snap,format=qcow2", disk);
    guest_start_accel(&run, "tcg", MACHINE, "test=launched halt=1 "
                      "p1base=0x4000000", extra);
    first = guest_wait_serial(&run, "DONE");
    m1 = plane1_measurement(run.qts);
    qtest_qmp_assert_success(run.qts, "{ 'execute': 'stop' }");
    out = qtest_hmp(run.qts, "savevm launched");
    g_assert_cmpstr(out, ==, "");
    g_clear_pointer(&out, g_free);
    out = qtest_hmp(run.qts, "loadvm launched");
    g_assert_cmpstr(out, ==, "");
    m2 = plane1_measurement(run.qts);
    g_assert_cmpstr(m1, ==, m2);
    qtest_qmp_assert_success(run.qts, "{ 'execute': 'cont' }");
    /* over park-timeout of guest time: not a measure of speed */
    g_usleep(1500 * 1000);
    assert_status(run.qts, "running");
    p1 = query_plane(run.qts, 1);
    g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "parked");
    guest_finish(&run);
    unlink(disk);
}

int main(int argc, char **argv)
{
    static const char jmp_self[] = { 0xeb, 0xfe };      /* jmp . */
    static const char ud2[] = { 0x0f, 0x0b };           /* no IDT: shutdown */

    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/planes/tcg/launch/boot", test_launch_boot);
    qtest_add_func("/planes/tcg/launch/reset", test_launch_reset);
    qtest_add_func("/planes/tcg/launch/default-placement",
                   test_launch_default_place);
    qtest_add_func("/planes/tcg/launch/activate-measured",
                   test_activate_measured);
    qtest_add_func("/planes/tcg/launch/measurement-changes",
                   test_measurement_changes);
    qtest_add_func("/planes/tcg/launch/formats-measured",
                   test_formats_measured);
    qtest_add_func("/planes/tcg/launch/savevm-loadvm", test_launch_savevm);
    qtest_add_data_func("/planes/tcg/launch/no-park/timeout", jmp_self,
                        test_launch_no_park);
    qtest_add_data_func("/planes/tcg/launch/no-park/triple-fault", ud2,
                        test_launch_no_park);
    for (size_t i = 0; i < ARRAY_SIZE(launch_error_cases); i++) {
        g_autofree char *name = g_strdup_printf("/planes/launch/error/%s",
                                                launch_error_cases[i].name);

        qtest_add_data_func(name, &launch_error_cases[i], test_launch_error);
    }
    return g_test_run();
}
