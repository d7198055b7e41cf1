/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: regression tests for ways a guest or a user once crashed
 * QEMU or got around the seal.  Each case names what it guards against;
 * each ran against the code before its fix and failed there.
 */

#include "qemu/osdep.h"
#include "planes-guest-lib.h"

#define FRESH_REGION "p1base=0x100000000 p1size=0x2000000"

/*
 * Fresh region RAM is unmapped at every system reset and mapped again by
 * the next CONFIG.  It used to be freed while FlatViews still pointed at
 * it: a loop of resets, with freed memory scribbled over, caught it.
 */
static void test_fresh_ram_reset_loop(void)
{
    GuestRun run;
    g_autofree char *text = NULL;
    size_t from;

    /* glib's tests set it too; be sure freed memory is overwritten */
    g_setenv("MALLOC_PERTURB_", "165", true);
    guest_start_accel(&run, "tcg", "q35,planes=2,plane-violation=fault",
                      "test=boot halt=1 " FRESH_REGION, "");
    text = guest_wait_serial(&run, "DONE");
    for (int i = 0; i < 12; i++) {
        g_autoptr(QDict) resp = NULL;
        g_autoptr(QDict) p1 = NULL;
        g_autofree char *after = NULL;
        const char *const lines[] = {
            "P0: CONFIG rax=0", "P1: parking with VTL_RETURN",
            "P0: ACTIVATE rax=0", "P0: read of plane 1 region: trap=14",
            "DONE", NULL,
        };

        from = strlen(text);
        resp = qtest_qmp(run.qts, "{ 'execute': 'system_reset' }");
        g_assert(qdict_haskey(resp, "return"));
        after = guest_wait_serial_from(&run, from, "DONE");
        assert_in_order(after, lines);
        p1 = query_plane(run.qts, 1);
        g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "parked");
        g_assert_cmpuint(qdict_get_int(p1, "region-base"), ==,
                         0x100000000ULL);
        g_free(text);
        text = guest_serial(&run);
    }
    guest_finish(&run);
}

/*
 * The fresh RAM's block used to be named "vm-plane-ram-<n>", which the
 * id of the memory backend holding guest RAM takes: CONFIG then aborted
 * QEMU on the duplicate RAM block name.
 */
static void test_fresh_ram_name_clash(void)
{
    g_autofree char *serial = guest_run_to_exit_accel(
        "tcg", "q35,planes=2,plane-violation=fault,"
        "memory-backend=vm-plane-ram-1",
        "test=region " FRESH_REGION,
        "-object memory-backend-ram,id=vm-plane-ram-1,size=512M");
    const char *const lines[] = {
        "RESULT region rax=0\r\n", "ALIVE rax=-1000", "EXIT 0", NULL,
    };

    assert_in_order(serial, lines);
}

/*
 * system_reset of the guest whose output was @before so far: it boots
 * again, to DONE, with @lines in its new output.
 */
static void reset_expect(GuestRun *run, const char *before,
                         const char *const *lines)
{
    g_autoptr(QDict) resp = qtest_qmp(run->qts,
                                      "{ 'execute': 'system_reset' }");
    g_autofree char *after = NULL;

    g_assert(qdict_haskey(resp, "return"));
    after = guest_wait_serial_from(run, strlen(before), "DONE");
    assert_in_order(after, lines);
}

/*
 * Plane 0 may eject a vCPU through q35's ACPI CPU hotplug ports, no
 * unplug request needed; with planes the plane states on that index then
 * pointed at a freed CPU (a NULL dereference).  With planes > 1 every
 * guest CPU carries an unplug blocker, which the eject honours.
 */
static void test_cpu_eject(void)
{
    GuestRun run;
    g_autofree char *serial = NULL, *cpu1 = NULL;
    g_autoptr(QDict) p1 = NULL;
    g_autoptr(QDict) resp = NULL;
    const char *const lines[] = {
        "P0: CPU 1 present after eject: 1", "RESULT cpu-eject rax=0\r\n",
        "ALIVE rax=-1000", NULL,
    };

    guest_start_accel(&run, "tcg", "q35,planes=2,plane-violation=fault",
                      "test=cpu-eject halt=1", "");
    serial = guest_wait_serial(&run, "DONE");
    assert_in_order(serial, lines);
    p1 = query_plane(run.qts, 1);
    g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "parked");
    g_assert_cmpint(qlist_size(qdict_get_qlist(p1, "vcpus")), ==, 2);
    resp = qtest_qmp(run.qts, "{ 'execute': 'query-cpus-fast' }");
    g_assert_cmpint(qlist_size(qdict_get_qlist(resp, "return")), ==, 2);
    cpu1 = g_strdup(qdict_get_str(qobject_to(QDict, qlist_entry_obj(
        qlist_next(qlist_first(qdict_get_qlist(resp, "return"))))),
        "qom-path"));
    qobject_unref(resp);
    /* and device_del is refused by the same blocker, with its reason */
    resp = qtest_qmp(run.qts, "{ 'execute': 'device_del', 'arguments': "
                     "{ 'id': %s } }", cpu1);
    g_assert(qdict_haskey(resp, "error"));
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(resp, "error"), "desc"), ==,
                    "-machine planes=2: CPU hot-unplug is not supported with "
                    "planes");
    /* the machine resets and boots its planes again */
    reset_expect(&run, serial, lines);
    guest_finish(&run);
}

/*
 * CPUs plugged while plane 1 sits in a VTL call that asks for a state
 * on the index (PLANE_ENABLE_VCPU) again and again: the index was
 * present to HC 18 as soon as the guest CPU was listed, while device_add
 * dropped the BQL to start its threads, before its plane-1 state existed
 * (a NULL dereference, hit by most plugs).  Now the index is present
 * once its plane states all exist.  The plugged vCPU 1 then calls on its
 * own state beside vCPU 0 and its plane 0 faults in plane 1's region;
 * all again after system_reset.
 */
static void test_cpu_plug_enable(void)
{
    const char *const lines[] = {
        "RESULT hp-enable status=0 refused-first=1\r\n",
        "RESULT plugged calls=200 errors0=0 errors1=0\r\n",
        "RESULT plugged-spin errors=0 max-in-plane1=2\r\n",
        "RESULT plugged-violation trap=14\r\n", "DONE", NULL,
    };
    const char *const again[] = {
        "RESULT hp-enable status=0 refused-first=0\r\n",
        "RESULT plugged calls=200 errors0=0 errors1=0\r\n",
        "RESULT plugged-violation trap=14\r\n", "DONE", NULL,
    };
    g_autofree char *serial = NULL;
    QDict *ev;
    GuestRun run;

    guest_start_accel(&run, "tcg", "q35,planes=2,plane-violation=fault",
                      "test=hp-enable plugs=3 halt=1", "-smp 1,maxcpus=4");
    for (int i = 1; i <= 3; i++) {
        g_autofree char *wait = g_strdup_printf("P0: waiting for vCPU %d "
                                                "to be plugged", i);
        g_autofree char *id = g_strdup_printf("cpu%d", i);

        g_free(guest_wait_serial(&run, wait));
        qtest_qmp_assert_success(run.qts, "{ 'execute': 'device_add', "
                                 "'arguments': { 'driver': "
                                 "'qemu64-x86_64-cpu', 'id': %s, "
                                 "'socket-id': 0, 'core-id': %d, "
                                 "'thread-id': 0 } }", id, i);
    }
    serial = guest_wait_serial(&run, "DONE");
    assert_in_order(serial, lines);
    ev = qtest_qmp_eventwait_ref(run.qts, "PLANE_MEMORY_VIOLATION");
    g_assert_cmpint(qdict_get_int(qdict_get_qdict(ev, "data"), "plane"), ==,
                    0);
    g_assert_cmpint(qdict_get_int(qdict_get_qdict(ev, "data"),
                                  "cpu-index"), ==, 1);
    qobject_unref(ev);
    reset_expect(&run, serial, again);
    guest_finish(&run);
}

/*
 * A CPU whose plug the planes refuse (nested virtualization asked for on
 * device_add) used to leave a half-made plane state in its slot: the
 * next device_add of the slot hit an assertion.  The refusal now comes
 * before the CPU is made, and the slot is plugged afterwards.
 */
static void test_cpu_plug_refused(void)
{
    QTestState *qts = qtest_init("-accel tcg -machine q35,planes=3 "
                                 "-smp 1,maxcpus=2 -nodefaults");
    g_autoptr(QDict) refused = NULL, p2 = NULL;

    for (int i = 0; i < 2; i++) {
        qobject_unref(refused);
        refused = qtest_qmp(qts, "{ 'execute': 'device_add', 'arguments': "
                            "{ 'driver': 'qemu64-x86_64-cpu', 'id': 'cpu1', "
                            "'socket-id': 0, 'core-id': 1, 'thread-id': 0, "
                            "%s: true } }", i ? "vmx" : "svm");
        g_assert_cmpstr(qdict_get_str(qdict_get_qdict(refused, "error"),
                                      "desc"), ==,
                        i ? "-machine planes: nested virtualization (vmx) "
                        "is not supported with planes; drop it from -cpu" :
                        "-machine planes: nested virtualization (svm) is "
                        "not supported with planes; drop it from -cpu");
    }
    qtest_qmp_assert_success(qts, "{ 'execute': 'device_add', 'arguments': "
                             "{ 'driver': 'qemu64-x86_64-cpu', 'id': 'cpu1', "
                             "'socket-id': 0, 'core-id': 1, "
                             "'thread-id': 0 } }");
    p2 = query_plane(qts, 2);
    g_assert_cmpint(qlist_size(qdict_get_qlist(p2, "vcpus")), ==, 2);
    qtest_quit(qts);
}

/*
 * The page walker used to reach an assertion when its probe of a page
 * table was refused: plane 1 write-protecting plane 0's page tables (the
 * kernel-integrity use), or plane 0 pointing an entry into the sealed
 * region.  Now a readable table is walked without accessed/dirty updates
 * (each refused update is a write violation), an unreadable one faults.
 */
static void test_walk_protected_tables(void)
{
    GuestRun run;
    g_autofree char *serial = NULL;
    g_autoptr(QDict) p0 = NULL;
    const char *const lines[] = {
        "P0: fresh PD entry accessed before: 0",
        "P0: page tables protected: rax=0 status=0",
        "P0: read through protected tables: trap=-1",
        "P0: fresh PD entry accessed after: 0",
        "P0: write to a PD: trap=14 error=0x8003",
        "RESULT pt-protect rax=0\r\n", "ALIVE rax=-1000", NULL,
    };

    guest_start_accel(&run, "tcg", "q35,planes=2,plane-violation=fault",
                      "test=pt-protect halt=1", "");
    serial = guest_wait_serial(&run, "DONE");
    assert_in_order(serial, lines);
    p0 = query_plane(run.qts, 0);
    /* the accessed bit refused, then the write to the PD */
    g_assert_cmpint(qdict_get_int(p0, "memory-violations"), >=, 2);
    guest_finish(&run);
}

static void test_walk_into_sealed_region(void)
{
    g_autofree char *serial = guest_run_to_exit_accel(
        "tcg", "q35,planes=2,plane-violation=fault",
        "test=pte-into-sealed", "");
    const char *const lines[] = {
        "P0: read through a table in the region: trap=14 error=0x8001 "
        "cr2=0x1c0000000", "RESULT pte-into-sealed rax=14\r\n",
        "ALIVE rax=-1000", "EXIT 0", NULL,
    };

    assert_in_order(serial, lines);
}

/* Under the default plane-violation=stop the same walk stops the VM. */
static void test_walk_into_sealed_region_stops(void)
{
    GuestRun run;
    g_autoptr(QDict) resp = NULL;
    QDict *ev;

    guest_start_accel(&run, "tcg", "q35,planes=2", "test=pte-into-sealed",
                      "-S");
    resp = qtest_qmp(run.qts, "{ 'execute': 'cont' }");
    ev = qtest_qmp_eventwait_ref(run.qts, "PLANE_MEMORY_VIOLATION");
    g_assert_cmpint(qdict_get_int(qdict_get_qdict(ev, "data"), "plane"), ==,
                    0);
    g_assert_cmpuint(qdict_get_int(qdict_get_qdict(ev, "data"), "gpa"), ==,
                     0x4000000 + 8 * ((0x1c0000000ULL >> 12) & 511));
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(ev, "data"), "access"),
                    ==, "read");
    qobject_unref(ev);
    qtest_qmp_eventwait(run.qts, "STOP");
    qobject_unref(resp);
    resp = qtest_qmp(run.qts, "{ 'execute': 'query-status' }");
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(resp, "return"), "status"),
                    ==, "internal-error");
    guest_finish(&run);
}

/* Where the next @needle starts in the serial output past byte @from. */
static size_t guest_wait_serial_at(GuestRun *run, size_t from,
                                   const char *needle)
{
    g_autofree char *text = guest_wait_serial_from(run, from, needle);

    return from + (strstr(text, needle) - text) + strlen(needle);
}

/*
 * The storm (tests/planes/guest/plane0.c): random hypercalls with random
 * registers from both planes on both vCPUs, VTL calls among them, for a
 * fixed number of steps a boot.  Meanwhile the VM is stopped, continued
 * and reset under it; the last boot runs to the end.  QEMU stays up,
 * every answer is a documented one, no access of plane 0 reaches the
 * region, and plane 1 finds its region's checksum unchanged.
 */
static void test_storm(void)
{
    const char *const lines[] = {
        "P0: storm: ", "RESULT storm undocumented=0 wrong=0 reached=0 "
        "region=intact", "EXIT 0", "DONE", NULL,
    };
    g_autofree char *last = NULL;
    g_autoptr(QDict) p0 = NULL, p1 = NULL;
    size_t at = 0;
    GuestRun run;

    guest_start_accel(&run, "tcg", "q35,planes=2,plane-violation=fault",
                      "test=storm iters=100000 halt=1", "");
    for (int boot = 0; boot < 3; boot++) {
        at = guest_wait_serial_at(&run, at, "P0: storm running");
        for (int i = 0; i < 4; i++) {
            g_usleep(20 * 1000);
            qtest_qmp_assert_success(run.qts, "{ 'execute': 'stop' }");
            g_usleep(5 * 1000);
            qtest_qmp_assert_success(run.qts, "{ 'execute': 'cont' }");
        }
        qtest_qmp_assert_success(run.qts, "{ 'execute': 'system_reset' }");
    }
    at = guest_wait_serial_at(&run, at, "P0: storm running");
    last = guest_wait_serial_from(&run, at, "DONE");
    assert_in_order(last, lines);
    p0 = query_plane(run.qts, 0);
    p1 = query_plane(run.qts, 1);
    g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "parked");
    g_assert_cmpint(qdict_get_int(p0, "memory-violations"), >, 0);
    g_assert_cmpint(qdict_get_int(p1, "memory-violations"), ==, 0);
    guest_finish(&run);
}

/* A guest test whose serial output says it all: its lines, in order. */
typedef struct GuestOutputCase {
    const char *path;
    const char *append;
    const char *extra;
    const char *lines[7];
    const char *machine;        /* NULL: planes=2, plane-violation=fault */
} GuestOutputCase;

static const GuestOutputCase guest_output_cases[] = {
    /*
     * fw_cfg's DMA interface used to read and write the sealed region at
     * plane 0's request; now it goes through plane 0's view like PCI DMA.
     */
    { "dma/fw-cfg", "test=fw-cfg-dma", "", {
        "P0: fw_cfg DMA into the region: control=0x1 changed=0",
        "P0: fw_cfg DMA from the region: control=0x1 leaked=0",
        "RESULT fw-cfg-dma rax=0\r\n", "ALIVE rax=-1000", "EXIT 0", NULL,
    } },
    /* A PCI device's DMA (edu) goes through plane 0's view as well. */
    { "dma/pci", "test=pci-dma", "-device edu", {
        "P0: edu DMA round trip in plane 0's RAM: 1",
        "P0: edu DMA from the region: leaked=0",
        "P0: edu DMA into the region: changed=0",
        "RESULT pci-dma rax=0\r\n", "ALIVE rax=-1000", "EXIT 0", NULL,
    } },
    /*
     * Plane 1's states used to take ICH9's broadcast SMI at the default
     * SMBASE, in plane 0's RAM: plane 0's planted handler then wrote into
     * the region with plane 1's view.  Plane >= 1 states never enter SMM.
     */
    { "smm/plane1-never-enters", "test=smi-plane1", "-smp 1", {
        "P0: SMI broadcast negotiated: 1",
        "P0: region word after the SMI: 0x0 (before 0x0)",
        "RESULT smi-plane1 rax=0\r\n", "ALIVE rax=-1000", "EXIT 0", NULL,
    } },
    /*
     * Nested SVM let plane 0 have VMRUN write its host-save area into the
     * region.  With planes the CPU has no SVM (and no VMX): VMRUN is #UD.
     */
    { "nested-svm", "test=nested-svm", "-cpu max", {
        "P0: CPUID SVM: 0", "P0: VMRUN: trap=6, region word changed=0",
        "RESULT nested-svm rax=0\r\n", "ALIVE rax=-1000", "EXIT 0", NULL,
    } },
    /*
     * Plane 0's state, switched back in while it polled, ran the rest of
     * its translation block with the TLB of before the call: a write
     * right after the VMCALL reached a page plane 1 had just protected.
     */
    { "stale-tlb/after-return", "test=stale-tlb-return", "", {
        "P0: writes after the protecting call: through=0 faulted=16 of 16",
        "RESULT stale-tlb-return rax=0\r\n", "ALIVE rax=-1000", "EXIT 0",
        NULL,
    } },
    /* The same with the region at ACTIVATE, plane 0 polling throughout. */
    { "stale-tlb/at-activate", "test=stale-tlb-activate", "", {
        "P0: ACTIVATE rax=0, write after it: trap=14 changed=0",
        "RESULT stale-tlb-activate rax=0\r\n", "ALIVE rax=-1000", "EXIT 0",
        NULL,
    }, "q35,planes=2,plane-violation=fault,plane-switch-poll-ns=10000000" },
};

static void test_guest_output(const void *opaque)
{
    const GuestOutputCase *c = opaque;
    g_autofree char *serial = guest_run_to_exit_accel(
        "tcg", c->machine ?: "q35,planes=2,plane-violation=fault", c->append,
        c->extra);

    assert_in_order(serial, c->lines);
}

/*
 * HMP's mce took a plane state's CPU index and injected a machine check
 * into plane 1; plane states are not guest CPUs.
 */
static void test_mce_plane_state(void)
{
    GuestRun run;
    g_autofree char *serial = NULL, *out = NULL;
    g_autoptr(QDict) p1 = NULL;

    guest_start_accel(&run, "tcg", "q35,planes=2,plane-violation=fault",
                      "test=boot halt=1", "");
    serial = guest_wait_serial(&run, "DONE");
    /* CPU indexes 0 and 1 are the guest's, 2 and 3 plane 1's states */
    out = qtest_hmp(run.qts, "mce 2 1 0xbe00000000800400 0 0 0");
    g_assert_cmpstr(out, ==, "CPU 2 is a state of VM plane 1, not a guest "
                    "CPU\r\n");
    p1 = query_plane(run.qts, 1);
    g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "parked");
    guest_finish(&run);
}

typedef struct PhysBitsCase {
    const char *name;
    const char *append;
    const char *result;
} PhysBitsCase;

/*
 * A plane starts with 4-level paging, which maps 256 TiB.  With
 * phys-bits=52 CONFIG used to take a region above that, and ACTIVATE
 * then indexed its boot page tables out of bounds.
 */
static const PhysBitsCase phys_bits_cases[] = {
    { "above-4-level-map", "test=region-activate p1base=0x1000000000000",
      "RESULT region-activate rax=-22" },
    { "far-above-4-level-map",
      "test=region-activate p1base=0x8000000000000",
      "RESULT region-activate rax=-22" },
    { "crosses-4-level-map",
      "test=region-activate p1base=0xffffffe00000 p1size=0x400000",
      "RESULT region-activate rax=-22" },
    /*
     * The last region that fits: accepted, its boot state built; plane 1
     * then runs the zeros plane 0 could not replace and triple-faults, so
     * ACTIVATE says -95 and the VM runs on.
     */
    { "top-of-4-level-map",
      "test=region-activate p1base=0xffffff000000 p1size=0x1000000",
      "RESULT region-activate rax=-95" },
};

static void test_phys_bits_52(const void *opaque)
{
    const PhysBitsCase *c = opaque;
    g_autofree char *serial = guest_run_to_exit_accel(
        "tcg", "q35,planes=2,plane-violation=fault", c->append,
        "-cpu qemu64,phys-bits=52");
    g_autofree char *line = g_strdup_printf("%s\r\n", c->result);
    const char *const lines[] = { line, "ALIVE rax=-1000", "EXIT 0", NULL };

    assert_in_order(serial, lines);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    if (!qtest_has_accel("tcg")) {
        g_test_skip("these cases run the test guests under TCG, which this "
                    "build lacks");
        return g_test_run();
    }
    qtest_add_func("/planes/security/fresh-ram/reset-loop",
                   test_fresh_ram_reset_loop);
    qtest_add_func("/planes/security/fresh-ram/name-clash",
                   test_fresh_ram_name_clash);
    qtest_add_func("/planes/security/cpu-eject", test_cpu_eject);
    qtest_add_func("/planes/security/cpu-plug/enable-race",
                   test_cpu_plug_enable);
    qtest_add_func("/planes/security/cpu-plug/refused",
                   test_cpu_plug_refused);
    qtest_add_func("/planes/security/walk/protected-tables",
                   test_walk_protected_tables);
    qtest_add_func("/planes/security/walk/into-sealed-region",
                   test_walk_into_sealed_region);
    qtest_add_func("/planes/security/walk/into-sealed-region-stops",
                   test_walk_into_sealed_region_stops);
    for (size_t i = 0; i < ARRAY_SIZE(guest_output_cases); i++) {
        g_autofree char *path = g_strdup_printf("/planes/security/%s",
                                                guest_output_cases[i].path);

        qtest_add_data_func(path, &guest_output_cases[i], test_guest_output);
    }
    qtest_add_func("/planes/security/mce-plane-state", test_mce_plane_state);
    qtest_add_func("/planes/security/storm", test_storm);
    for (size_t i = 0; i < ARRAY_SIZE(phys_bits_cases); i++) {
        g_autofree char *path = g_strdup_printf(
            "/planes/security/phys-bits-52/%s", phys_bits_cases[i].name);

        qtest_add_data_func(path, &phys_bits_cases[i], test_phys_bits_52);
    }
    return g_test_run();
}
