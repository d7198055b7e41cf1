/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Functional tests of VM planes with the test guests: the plane-0 guest
 * (tests/planes/guest) configures and activates plane 1, and every
 * misuse of the plane hypercalls gets its documented error while the VM
 * keeps running.  The guest reports over the serial port.
 *
 * The accelerator-neutral cases run under TCG (/planes/tcg/...) and again
 * under KVM (/planes/kvm/...).  Where the host's KVM has no VM planes the
 * KVM runs check that QEMU refuses that very command line, then skip,
 * saying why.
 */

#include "qemu/osdep.h"
#include <sys/un.h>
#include "libqtest.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "qobject/qnum.h"
#include "qobject/qstring.h"
#include "planes-guest-lib.h"
#include "planes-kvm-host.h"
#include "planes-qmp-events.h"

/* The accelerator of the running case: "tcg" or "kvm". */
static const char *case_accel = "tcg";

static void guest_start(GuestRun *run, const char *machine,
                        const char *append, const char *extra)
{
    guest_start_accel(run, case_accel, machine, append, extra);
}

/* The same under the case's accelerator, a reboot ending QEMU. */
static char *guest_run_to_exit(const char *machine, const char *append)
{
    return guest_run_to_exit_accel(case_accel, machine, append,
                                   "-no-reboot");
}

static void expect_event(QTestState *qts, int plane, const char *old,
                         const char *new)
{
    QDict *ev = qtest_qmp_eventwait_ref(qts, "PLANE_STATE_CHANGED");
    QDict *data = qdict_get_qdict(ev, "data");

    g_assert_cmpint(qdict_get_int(data, "plane"), ==, plane);
    g_assert_cmpstr(qdict_get_str(data, "old"), ==, old);
    g_assert_cmpstr(qdict_get_str(data, "new"), ==, new);
    qobject_unref(ev);
}

typedef struct BootCase {
    const char *machine;
    const char *append;
    uint64_t base;
    uint64_t size;
    const char *park_line;
    const char *cmdline_line;
} BootCase;

/*
 * The whole plane boot: events in order, the serial transcript in order,
 * the seal, and query-planes with plane 1 parked.
 */
static void test_boot(const void *opaque)
{
    const BootCase *c = opaque;
    g_autofree char *append = g_strdup_printf("test=boot halt=1 %s",
                                              c->append);
    g_autofree char *e820_ram = NULL, *e820_boot = NULL, *at = NULL;
    g_autofree char *serial = NULL;
    g_autoptr(QDict) resp = NULL;
    g_autoptr(QDict) p1 = NULL;
    uint64_t top = c->base + c->size;
    GuestRun run;

    guest_start(&run, c->machine, append, "--preconfig -no-reboot");
    resp = qtest_qmp(run.qts, "{ 'execute': 'x-exit-preconfig' }");
    g_assert(qdict_haskey(resp, "return"));
    expect_event(run.qts, 0, "created", "running");
    expect_event(run.qts, 1, "created", "configured");
    expect_event(run.qts, 1, "configured", "active");
    expect_event(run.qts, 1, "active", "running");
    expect_event(run.qts, 1, "running", "parked");

    serial = guest_wait_serial(&run, "DONE");
    at = g_strdup_printf("P1: secure monitor running at 0x%" PRIx64,
                         c->base);
    e820_ram = g_strdup_printf("P1: e820 0x%" PRIx64 "-0x%" PRIx64 " type 1",
                               c->base, top - 0x10000 - 1);
    e820_boot = g_strdup_printf("P1: e820 0x%" PRIx64 "-0x%" PRIx64
                                " type 2", top - 0x10000, top - 1);
    {
        g_autofree char *cr3 = g_strdup_printf("cr3=0x%" PRIx64,
                                               top - 0x10000);
        const char *const lines[] = {
            "P0: booting", "P0: CONFIG rax=0", "P0: plane 1 image", at,
            "cr0=0x80010031", cr3, "cr4=0x20 efer=0xd01 cs=0x8",
            "P1: apicbase=0xfee00900 apic-id=0", c->cmdline_line,
            e820_ram, e820_boot, "P1: hide own region rax=0",
            c->park_line,
            "P0: ACTIVATE rax=0", "P0: resumed after ACTIVATE",
            "P0: read of plane 1 region: trap=14 error=0x8001",
            "P0: write of plane 1 region: trap=14 error=0x8003",
            "P0: exec of plane 1 region: trap=14 error=0x8011",
            "P0: read of plane 1 region end: trap=14",
            "P0: read just past plane 1 region: trap=-1",
            "EXIT 0", "DONE", NULL,
        };

        assert_in_order(serial, lines);
    }

    /* the parked plane's registers are readable: its RIP is in the region */
    {
        g_autofree char *regs = qtest_hmp(run.qts, "info registers -a");
        g_autofree char *rip = g_strdup_printf("RIP=%012" PRIx64,
                                               c->base >> 16);

        g_assert(strstr(regs, rip));
    }

    p1 = query_plane(run.qts, 1);
    g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "parked");
    g_assert_cmpuint((uint64_t)qdict_get_int(p1, "region-base"), ==, c->base);
    g_assert_cmpuint((uint64_t)qdict_get_int(p1, "region-size"), ==, c->size);
    g_assert_cmpuint((uint64_t)qdict_get_int(p1, "entry-point"), ==, c->base);
    {
        QListEntry *e;

        QLIST_FOREACH_ENTRY(qdict_get_qlist(p1, "vcpus"), e) {
            QDict *v = qobject_to(QDict, qlist_entry_obj(e));

            g_assert(!qdict_get_bool(v, "current"));
        }
    }
    guest_finish(&run);
}

/* ACTIVATE boots every configured plane, one after the other on vCPU 0. */
static void test_boot_all_planes(void)
{
    g_autofree char *serial = NULL;
    g_autoptr(QDict) resp = NULL;
    GuestRun run;

    guest_start(&run, "q35,planes=4,plane-violation=fault",
                "test=boot halt=1 count=4",
                "-no-reboot");
    resp = qtest_qmp(run.qts, "{ 'execute': 'cont' }");
    serial = guest_wait_serial(&run, "DONE");
    {
        const char *const lines[] = {
            "P0: CONFIG rax=0", "P0: plane 3 image",
            "P1: secure monitor running at 0x4000000",
            "P1: parking with VTL_RETURN",
            "P1: secure monitor running at 0x5000000",
            "P1: parking with VTL_RETURN",
            "P1: secure monitor running at 0x6000000",
            "P1: parking with VTL_RETURN",
            "P0: ACTIVATE rax=0", "P0: read just past plane 1 region: trap=14",
            "DONE", NULL,
        };

        assert_in_order(serial, lines);
    }
    for (int p = 1; p < 4; p++) {
        g_autoptr(QDict) plane = query_plane(run.qts, p);

        g_assert_cmpstr(qdict_get_str(plane, "state"), ==, "parked");
        g_assert_cmpuint((uint64_t)qdict_get_int(plane, "region-base"), ==,
                         0x4000000 + (p - 1) * 0x1000000);
        g_assert_cmpint(qdict_get_int(plane, "memory-violations"), ==, 0);
    }
    guest_finish(&run);
}

/* A system reset brings plane 1 back to created; the guest boots it again. */
static void test_reset(void)
{
    GuestRun run;
    g_autoptr(QDict) resp = NULL;
    g_autoptr(QDict) p1 = NULL;
    g_autofree char *first = NULL, *serial = NULL;

    guest_start(&run, "q35,planes=2,plane-violation=fault",
                "test=boot halt=1 p1base=0x100000000 p1size=0x2000000",
                "--preconfig");
    resp = qtest_qmp(run.qts, "{ 'execute': 'x-exit-preconfig' }");
    first = guest_wait_serial(&run, "DONE");
    qobject_unref(resp);

    resp = qtest_qmp(run.qts, "{ 'execute': 'system_reset' }");
    g_assert(qdict_haskey(resp, "return"));
    serial = guest_wait_serial_from(&run, strlen(first), "DONE");
    {
        const char *const lines[] = {
            "P0: booting", "P0: CONFIG rax=0", "P1: parking with VTL_RETURN",
            "P0: ACTIVATE rax=0", "P0: read of plane 1 region: trap=14",
            "DONE", NULL,
        };

        assert_in_order(serial, lines);
    }
    p1 = query_plane(run.qts, 1);
    g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "parked");

    g_assert_cmpuint(qdict_get_int(p1, "region-base"), ==, 0x100000000ULL);

    /* stop and cont with plane 1 parked */
    qobject_unref(resp);
    resp = qtest_qmp(run.qts, "{ 'execute': 'stop' }");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    resp = qtest_qmp(run.qts, "{ 'execute': 'cont' }");
    g_assert(qdict_haskey(resp, "return"));
    guest_finish(&run);
}

typedef struct NegativeCase {
    const char *name;
    const char *machine;
    const char *append;
    const char *result;         /* the exact RESULT line */
} NegativeCase;

#define Q35 "q35,planes=2"

static const NegativeCase negative_cases[] = {
    { "count0", Q35, "test=count0", "RESULT count0 rax=-22" },
    { "count1", Q35, "test=count1", "RESULT count1 rax=-22" },
    { "count-too-big", Q35, "test=count-too-big",
      "RESULT count-too-big rax=-7" },
    { "unaligned-base", Q35, "test=region p1base=0x4000800",
      "RESULT region rax=-22" },
    { "unaligned-size", Q35, "test=region p1size=0x1000800",
      "RESULT region rax=-22" },
    { "zero-size", Q35, "test=region p1size=0", "RESULT region rax=-22" },
    { "tiny", Q35, "test=region p1size=0x10000", "RESULT region rax=-22" },
    { "overlap", "q35,planes=3", "test=overlap planes=3",
      "RESULT overlap rax=-22" },
    { "mmio-apic", Q35, "test=region p1base=0xfee00000 p1size=0x100000",
      "RESULT region rax=-22" },
    { "mmio-pcie", Q35, "test=region p1base=0xb0000000 p1size=0x1000000",
      "RESULT region rax=-22" },
    { "pci-hole", Q35, "test=region p1base=0xc0000000 p1size=0x1000000",
      "RESULT region rax=-22" },
    { "firmware", Q35, "test=region p1base=0xfff00000 p1size=0x100000",
      "RESULT region rax=-22" },
    { "below-1m", Q35, "test=region p1base=0x80000 p1size=0x100000",
      "RESULT region rax=-22" },
    { "partly-ram", Q35, "test=region p1base=0x1ff00000 p1size=0x400000",
      "RESULT region rax=-22" },
    /* the top 16 MiB of low RAM: q35's TSEG, which plane 0 can enable */
    { "tseg", Q35, "test=region p1base=0x1f800000 p1size=0x800000",
      "RESULT region rax=-22" },
    { "phys-limit", Q35, "test=region p1base=0x10000000000 p1size=0x1000000",
      "RESULT region rax=-22" },
    { "wraps", Q35, "test=region p1base=0xfffffffffff00000 p1size=0x200000",
      "RESULT region rax=-22" },
    { "ram-limit", Q35 ",plane-ram-limit=16M",
      "test=region p1base=0x100000000 p1size=0x2000000",
      "RESULT region rax=-7" },
    { "cmdline-no-nul", Q35, "test=cmdline-no-nul",
      "RESULT cmdline-no-nul rax=-22" },
    { "array-outside-ram", Q35, "test=array-outside-ram array=0x40000000",
      "RESULT array-outside-ram rax=-14" },
    { "array-straddles-ram", Q35, "test=array-outside-ram array=0x1ffffe00",
      "RESULT array-outside-ram rax=-14" },
    { "array-in-region", Q35, "test=region p1base=0x100000 p1size=0x1000000",
      "RESULT region rax=-22" },
    { "entry-past-region", Q35, "test=entry-outside p1entry=0x1000000",
      "RESULT entry-outside rax=-22" },
    { "entry-in-boot-state", Q35, "test=entry-outside p1entry=0xff0000",
      "RESULT entry-outside rax=-22" },
    { "config-twice", Q35, "test=config-twice",
      "RESULT config-twice rax=0" },
    { "config-different", Q35, "test=config-different",
      "RESULT config-different rax=-1" },
    { "kernel-format", Q35, "test=kernel-format format=3",
      "RESULT kernel-format rax=-22" },
    { "kernel-format-huge", Q35, "test=kernel-format format=0x80000001",
      "RESULT kernel-format rax=-22" },
    { "config-array-in-plane-region", Q35, "test=array-in-region",
      "RESULT array-in-region rax=-22" },
    { "config-array-hidden-from-plane0", Q35, "test=config-hidden-array",
      "RESULT config-hidden-array rax=-14" },
    { "activate-other-array", Q35, "test=activate-wrong-array",
      "RESULT activate-wrong-array rax=-22" },
    { "activate-twice", Q35, "test=activate-twice",
      "RESULT activate-twice rax=-1" },
    { "activate-bzimage-without-header", Q35, "test=activate-bad-bzimage",
      "RESULT activate-bad-bzimage rax=-22" },
    /* every address a bzImage's setup header gives lies below its boot state */
    { "bzimage-valid", Q35, "test=activate-crafted-bzimage image=1",
      "RESULT activate-crafted-bzimage rax=0" },
    { "bzimage-entry-in-boot-state", Q35,
      "test=activate-crafted-bzimage p1size=0x30000 sects=255 init=0 "
      "align=0x1000 pref=0", "RESULT activate-crafted-bzimage rax=-22" },
    { "bzimage-init-size-0", Q35,
      "test=activate-crafted-bzimage init=0",
      "RESULT activate-crafted-bzimage rax=-22" },
    { "bzimage-setup-past-region", Q35,
      "test=activate-crafted-bzimage p1size=0x20000 sects=255 init=0x1000 "
      "align=0x1000 pref=0", "RESULT activate-crafted-bzimage rax=-22" },
    { "bzimage-decompress-into-boot-state", Q35,
      "test=activate-crafted-bzimage pref=0x4fe8000 init=0x10000 "
      "align=0x1000", "RESULT activate-crafted-bzimage rax=-22" },
    { "bzimage-alignment-past-region", Q35,
      "test=activate-crafted-bzimage align=0x80000000 init=0x1000",
      "RESULT activate-crafted-bzimage rax=-22" },
    { "enable-vcpu-from-plane0", Q35, "test=enable-vcpu-plane0",
      "RESULT enable-vcpu-plane0 rax=-1" },
    { "entry-zero", Q35, "test=entry-outside p1entryabs=0",
      "RESULT entry-outside rax=-22" },
    { "attrs-higher-plane-region", "q35,planes=3",
      "test=attrs-higher-region planes=3 count=3 mask=0",
      "RESULT attrs-higher-region rax=-1" },
    { "attrs-lift-higher-plane-region", "q35,planes=3",
      "test=attrs-higher-region planes=3 count=3 mask=7",
      "RESULT attrs-higher-region rax=-1" },
    { "activate-before-config", Q35, "test=activate-before-config",
      "RESULT activate-before-config rax=-1" },
    { "cpl3", Q35, "test=cpl3", "RESULT cpl3 rax=-1 unknown=-1" },
    { "vtl-return-from-plane0", Q35, "test=vtl-return-plane0",
      "RESULT vtl-return-plane0 rax=-1" },
    { "set-mem-attrs-from-plane0", Q35, "test=set-mem-attrs-plane0",
      "RESULT set-mem-attrs-plane0 rax=-1" },
    { "vtl-call-before-activate", Q35, "test=vtl-call-before-activate",
      "RESULT vtl-call-before-activate rax=-95" },
    { "unknown-nr", Q35, "test=unknown", "RESULT unknown rax=-1000" },
    { "vmmcall", Q35, "test=count0 vmmcall=1", "RESULT count0 rax=-22" },
};

/* Each refused call returns its exact code and the VM keeps answering. */
static void test_negative(const void *opaque)
{
    const NegativeCase *c = opaque;
    g_autofree char *serial = guest_run_to_exit(c->machine, c->append);
    g_autofree char *line = g_strdup_printf("%s\r\n", c->result);
    const char *const lines[] = { line, "ALIVE rax=-1000", "EXIT 0", NULL };

    assert_in_order(serial, lines);
    if (!strcmp(c->name, "cpl3")) {
        g_assert(strstr(serial, "RESULT cpl0-after rax=0"));
    }
}

/*
 * The VBS series' image writes PLANE_1_LOAD_OFFSET=0x0 and
 * MEMORY_SIZE=0x60000000: a region over plane 0's own low memory.  CONFIG
 * refuses it, and the one line it logs says why.
 */
static void test_series_default_region(void)
{
    g_autofree char *log_path = NULL;
    g_autofree char *log = NULL;
    g_autofree char *extra = NULL;
    g_autofree char *serial = NULL;
    int fd = g_file_open_tmp("planes-log-XXXXXX", &log_path, NULL);
    const char *const lines[] = {
        "RESULT region rax=-22", "ALIVE rax=-1000", "EXIT 0", NULL,
    };
    const char *line;

    g_assert(fd >= 0);
    close(fd);
    extra = g_strdup_printf("-d guest_errors -D %s", log_path);
    serial = guest_run_to_exit_accel("tcg", Q35, "test=region p1base=0x0 "
                                     "p1size=0x60000000", extra);
    assert_in_order(serial, lines);
    g_assert(g_file_get_contents(log_path, &log, NULL, NULL));
    unlink(log_path);
    line = strstr(log, "planes: CONFIG from plane 0 on vCPU 0 refused (-22): "
                  "plane 1 region 0x0+0x60000000 starts below 1 MiB "
                  "(0x100000), in plane 0's own low memory");
    g_assert(line);
    g_assert(strstr(line, "cannot be sealed; reserve a region above 1 MiB"));
}

static uint64_t serial_hex_after(const char *text, const char *key)
{
    const char *at = strstr(text, key);

    g_assert(at);
    return g_ascii_strtoull(at + strlen(key), NULL, 16);
}

/*
 * VBS: plane 1 serves VTL calls, seals plane 0's "kernel text" (writes
 * fault and change nothing, it still runs), makes a data page NO_EXEC
 * (code translated before faults now), refuses every misuse, and serves
 * both vCPUs at once: 2 x CALLS echo calls, each with its own answer.
 */
#define STRESS_CALLS 10000
#define MISUSE_CALLS 100

/* Takes the first event named @name out of @events, if any. */
static QDict *take_event_if_any(GList **events, const char *name)
{
    for (GList *l = *events; l; l = l->next) {
        QDict *ev = l->data;

        if (!strcmp(qdict_get_str(ev, "event"), name)) {
            *events = g_list_delete_link(*events, l);
            return ev;
        }
    }
    return NULL;
}

static QDict *take_event(GList **events, const char *name)
{
    QDict *ev = take_event_if_any(events, name);

    g_assert(ev);
    return ev;
}

static double event_time(QDict *ev)
{
    QDict *ts = qdict_get_qdict(ev, "timestamp");

    return qdict_get_int(ts, "seconds") +
           qdict_get_int(ts, "microseconds") / 1e6;
}

/*
 * Plane 1 went between running and parked twice a call, tens of thousands
 * of times: its PLANE_STATE_CHANGED events were coalesced to at most one a
 * second per new state (which bounds their number by the run's length,
 * however slow the host), and the last one, sent once the window closed,
 * names the state the plane was left in (parked).  @events ends before
 * the event of the reset that follows the run.
 */
static void check_state_events_coalesced(GList *events)
{
    static const char *const states[] = {
        "created", "configured", "active", "running", "parked", "stopped",
    };
    double last_sent[ARRAY_SIZE(states)] = { 0 };
    const char *last_new = NULL;
    unsigned int plane1_events = 0;

    for (GList *l = events; l; l = l->next) {
        QDict *ev = l->data;
        QDict *data = qdict_get_qdict(ev, "data");
        size_t new = 0;

        if (strcmp(qdict_get_str(ev, "event"), "PLANE_STATE_CHANGED") ||
            qdict_get_int(data, "plane") != 1) {
            continue;
        }
        while (new < ARRAY_SIZE(states) &&
               strcmp(states[new], qdict_get_str(data, "new"))) {
            new++;
        }
        g_assert_cmpuint(new, <, ARRAY_SIZE(states));
        if (last_sent[new]) {
            /* the window is a second; allow for timer slack */
            g_assert_cmpfloat(event_time(ev) - last_sent[new], >=, 0.9);
        }
        last_sent[new] = event_time(ev);
        last_new = states[new];
        plane1_events++;
    }
    g_test_message("plane 1: %u PLANE_STATE_CHANGED events for %d+ VTL "
                   "calls", plane1_events, 2 * STRESS_CALLS);
    g_assert_cmpuint(plane1_events, >=, 4);    /* its boot, at least */
    g_assert_cmpstr(last_new, ==, "parked");
}

/*
 * Misuse of VTL calls and SET_MEM_ATTRS, in the VBS run before its
 * parallel calls: the exact answer, and the guest went on to serve both
 * vCPUs' calls afterwards.  Every VBS run checks all of them, and each
 * has a case of its own, which reads a short VBS run of its accelerator.
 */
typedef struct VtlMisuse {
    const char *name;
    const char *line;
} VtlMisuse;

static const VtlMisuse vtl_misuse[] = {
    { "call-outside-ram", "RESULT call-outside-ram rax=-14" },
    { "call-unaligned", "RESULT call-unaligned rax=-14" },
    { "call-in-plane1-region", "RESULT call-in-region rax=-22" },
    { "call-from-plane1", "RESULT call-from-plane1 rax=-1" },
    { "attrs-unknown-bits", "RESULT attrs-unknown-bits status=-22" },
    { "attrs-unaligned", "RESULT attrs-unaligned status=-22" },
    { "attrs-empty", "RESULT attrs-empty status=-22" },
    { "attrs-wrap", "RESULT attrs-wrap status=-22" },
    { "attrs-outside-ram", "RESULT attrs-outside-ram status=-14" },
    { "attrs-hide-own-region", "RESULT attrs-own-region-hide status=0" },
    { "attrs-garbage-in-a3", "RESULT attrs-garbage-a3 status=0" },
    { "enable-index-too-big", "RESULT enable-index-too-big status=-22" },
    { "enable-shared-state-index", "RESULT enable-home status=-22" },
    { "enable-block-outside-region",
      "RESULT enable-block-outside status=-22" },
    { "enable-block-unaligned", "RESULT enable-block-unaligned status=-22" },
    { "enable-block-past-region-end",
      "RESULT enable-block-past-end status=-22" },
    { "enable-twice", "RESULT enable-again rax=0 status=-22" },
    { "unknown-call-id", "RESULT unknown-call rax=0 status=-95" },
};

static void assert_vtl_misuse(const char *serial, const VtlMisuse *m,
                              const char *parallel)
{
    g_autofree char *line = g_strdup_printf("%s\r\n", m->line);
    const char *const lines[] = {
        "P0: ACTIVATE rax=0", line, parallel, "EXIT 0", NULL,
    };

    assert_in_order(serial, lines);
}

static bool violation_is_fetch(QDict *ev, const void *opaque)
{
    return !strcmp(qdict_get_str(qdict_get_qdict(ev, "data"), "access"),
                   "fetch");
}

typedef struct StateEvent {
    int plane;
    const char *old;
    const char *new;
} StateEvent;

static const StateEvent plane1_reset = { 1, "parked", "created" };

static bool state_event_is(QDict *ev, const void *opaque)
{
    const StateEvent *want = opaque;
    QDict *data = qdict_get_qdict(ev, "data");

    return qdict_get_int(data, "plane") == want->plane &&
           !strcmp(qdict_get_str(data, "old"), want->old) &&
           !strcmp(qdict_get_str(data, "new"), want->new);
}

/* query_plane(), the events read on the way kept in *@events */
static QDict *query_plane_collect(QTestState *qts, GList **events, int id)
{
    g_autoptr(QDict) resp = qmp_collect(qts, events,
                                        "{ 'execute': 'query-planes' }");
    QListEntry *e;

    QLIST_FOREACH_ENTRY(qdict_get_qlist(resp, "return"), e) {
        QDict *p = qobject_to(QDict, qlist_entry_obj(e));

        if (qdict_get_int(p, "id") == id) {
            return qobject_ref(p);
        }
    }
    g_assert_not_reached();
}

static void test_vbs(const char *machine)
{
    g_autofree char *append = g_strdup_printf("test=vbs halt=1 calls=%d",
                                              STRESS_CALLS);
    g_autofree char *serial = NULL, *parallel = NULL, *serialized = NULL;
    g_autoptr(QDict) resp = NULL, p0 = NULL, p1 = NULL;
    uint64_t ktext, kdata, last_gpa = 0;
    g_autofree char *last_access = NULL;
    GList *events = NULL, *from_reset;
    QDict *ev, *data;
    GuestRun run;

    /*
     * No -no-reboot: the system_reset that ends the run must not be a
     * shutdown.  Every event is kept (planes-qmp-events.h).
     */
    guest_start(&run, machine, append, "--preconfig");
    resp = qmp_collect(run.qts, &events,
                       "{ 'execute': 'x-exit-preconfig' }");
    g_assert(qdict_haskey(resp, "return"));
    serial = guest_wait_serial(&run, "DONE");
    parallel = g_strdup_printf("RESULT parallel calls=%d errors0=0 "
                               "errors1=0\r\n", STRESS_CALLS);
    serialized = g_strdup_printf("RESULT serialized calls=%d errors0=0 "
                                 "errors1=0\r\n", STRESS_CALLS);
    {
        const char *const lines[] = {
            "P0: vCPU 1 is up", "P0: ACTIVATE rax=0",
            "RESULT init rax=0 status=0",
            "RESULT config-after-activate rax=0",
            "P0: kernel text returns 42 before the seal",
            "RESULT seal rax=0 status=0",
            "RESULT sealed-write trap=14 error=0x8003 cr2=0x",
            "RESULT sealed-unchanged 1",
            "RESULT sealed-exec returns=42",
            "RESULT rodata-write trap=14 read=-1 value=0x5a",
            "RESULT rodata-exec trap=14 error=0x8011",
            "P0: data page runs before NO_EXEC: trap=-1",
            "RESULT protect rax=0 status=0",
            "RESULT noexec-exec trap=14 error=0x8011 cr2=0x",
            "RESULT noexec-write trap=-1",
            "RESULT noexec-read trap=-1 value=0x5a",
            "RESULT lift rax=0", "RESULT lifted-exec trap=-1",
            /* plane 1's one state serves both vCPUs, one call at a time */
            serialized, "RESULT serialized-spin errors=0 max-in-plane1=1",
            "RESULT enable rax=0 status=0",
            "RESULT enable-again rax=0 status=-22",
            /* with its own state on vCPU 1, plane 1 serves both at once */
            parallel, "RESULT parallel-spin errors=0 max-in-plane1=2",
            "BENCH calls=", "EXIT 0", "DONE", NULL,
        };

        assert_in_order(serial, lines);
    }
    for (size_t i = 0; i < ARRAY_SIZE(vtl_misuse); i++) {
        assert_vtl_misuse(serial, &vtl_misuse[i], parallel);
    }
    g_test_message("%s", strstr(serial, "BENCH"));

    /*
     * The seal, the kernel text (R|X), its rodata (R); the data page's
     * restriction was lifted: 3 ranges of 24 bytes
     */
    p0 = query_plane_collect(run.qts, &events, 0);
    g_assert_cmpint(qdict_get_int(p0, "memory-violations"), ==, 4);
    g_assert_cmpint(qdict_get_int(p0, "memory-attr-ranges"), ==, 3);
    g_test_message("plane 0 attribute map: %" PRId64 " bytes for 3 ranges",
                   qdict_get_int(p0, "memory-attr-bytes"));
    p1 = query_plane_collect(run.qts, &events, 1);
    g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "parked");
    g_assert_cmpint(qdict_get_int(p1, "memory-violations"), ==, 0);
    g_assert_cmpint(qdict_get_int(p1, "memory-attr-ranges"), ==, 0);
    g_assert_cmpint(qdict_get_int(p1, "memory-attr-bytes"), ==, 0);

    /*
     * One event per refused access, rate-limited: the first goes out, the
     * last (the fetch from the data page) when its window closed.
     */
    ktext = serial_hex_after(serial,
                             "sealed-write trap=14 error=0x8003 cr2=0x");
    kdata = serial_hex_after(serial, "noexec-exec trap=14 error=0x8011 cr2=0x");
    qmp_wait_event(run.qts, &events, "PLANE_MEMORY_VIOLATION",
                   violation_is_fetch, NULL);

    /*
     * Plane 1's held state events go out in order, and its transition at
     * a reset is held behind them: once that one came, every event of the
     * run has.  Stopped first, the guest does not run again after it.
     */
    qobject_unref(resp);
    resp = qmp_collect(run.qts, &events, "{ 'execute': 'stop' }");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    resp = qmp_collect(run.qts, &events, "{ 'execute': 'system_reset' }");
    g_assert(qdict_haskey(resp, "return"));
    ev = qmp_wait_event(run.qts, &events, "PLANE_STATE_CHANGED",
                        state_event_is, &plane1_reset);
    /* the marker and what came after it (RESET and such) are not the run's */
    from_reset = g_list_find(events, ev);
    if (from_reset->prev) {
        from_reset->prev->next = NULL;
        from_reset->prev = NULL;
    } else {
        events = NULL;
    }
    qmp_free_events(&from_reset);

    ev = take_event(&events, "PLANE_MEMORY_VIOLATION");
    data = qdict_get_qdict(ev, "data");
    g_assert_cmpint(qdict_get_int(data, "plane"), ==, 0);
    g_assert_cmpint(qdict_get_int(data, "cpu-index"), ==, 0);
    g_assert_cmpuint((uint64_t)qdict_get_int(data, "gpa"), ==, ktext);
    g_assert_cmpstr(qdict_get_str(data, "access"), ==, "write");
    qobject_unref(ev);
    while ((ev = take_event_if_any(&events, "PLANE_MEMORY_VIOLATION"))) {
        data = qdict_get_qdict(ev, "data");
        last_gpa = qdict_get_int(data, "gpa");
        g_free(last_access);
        last_access = g_strdup(qdict_get_str(data, "access"));
        qobject_unref(ev);
    }
    g_assert_cmpuint(last_gpa, ==, kdata);
    g_assert_cmpstr(last_access, ==, "fetch");
    check_state_events_coalesced(events);
    qmp_free_events(&events);
    guest_finish(&run);
}

/* One misuse, in a short VBS run of its own under the case's accelerator. */
static void test_vtl_misuse(const void *opaque)
{
    /*
     * One short run per accelerator, made by whichever of its misuse
     * cases comes first (so a case run alone makes its own), read by all
     */
    static GHashTable *runs;
    char *serial;

    if (!runs) {
        runs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    }
    serial = g_hash_table_lookup(runs, case_accel);
    if (!serial) {
        serial = guest_run_to_exit(
            "q35,planes=2,plane-violation=fault",
            "test=vbs calls=" G_STRINGIFY(MISUSE_CALLS) " bench=10");
        g_hash_table_insert(runs, g_strdup(case_accel), serial);
    }
    assert_vtl_misuse(serial, opaque, "RESULT parallel calls="
                      G_STRINGIFY(MISUSE_CALLS) " errors0=0 errors1=0\r\n");
}

/*
 * VTL calls from vCPU 1 while ACTIVATE boots plane 1 on vCPU 0: refused
 * with -EOPNOTSUPP before ACTIVATE, -EBUSY while plane 1 boots (the boot
 * is slowed down to make sure), then served.
 */
static void test_vtl_busy(void)
{
    g_autofree char *serial = guest_run_to_exit("q35,planes=2",
                                                "test=busy "
                                                "p1cmd=bootspin=3000000");
    const char *line = strstr(serial, "RESULT busy ");
    unsigned long before = 0, busy = 0, other = 1;
    long echo = 0;

    g_assert(line);
    g_assert_cmpint(sscanf(line, "RESULT busy before=%lu busy=%lu other=%lu "
                           "echo=%ld", &before, &busy, &other, &echo), ==, 4);
    g_assert_cmpuint(busy, >, 0);
    g_assert_cmpuint(other, ==, 0);
    g_assert_cmpint(echo, ==, 7);
    g_assert(strstr(serial, "EXIT 0"));
}

/*
 * Plane 0's LAPIC timer fires while plane 1 serves a long VTL call on the
 * same vCPU index: the interrupt is not lost and is delivered once, after
 * plane 1 returned.
 */
static void test_vtl_irq(void)
{
    g_autofree char *serial = guest_run_to_exit("q35,planes=2", "test=irq");

    g_assert(strstr(serial, "RESULT irq rax=0 count=1 after_return=1\r\n"));
    g_assert(strstr(serial, "EXIT 0"));
}

/*
 * Random SET_MEM_ATTRS against the guest's model (tests/planes/guest:
 * test_attrs_fuzz): every checked page allows exactly what the model
 * says, and plane 0's attribute map has the model's ranges plus the seal.
 */
static void test_attrs_fuzz(const void *opaque)
{
    g_autofree char *append = g_strdup_printf("test=attrs-fuzz halt=1 "
                                              "seed=%u ops=300",
                                              GPOINTER_TO_UINT(opaque));
    g_autofree char *serial = NULL;
    g_autoptr(QDict) p0 = NULL;
    unsigned long ops, refused, mismatches, ranges;
    GuestRun run;
    const char *line;

    guest_start(&run, "q35,planes=2,plane-violation=fault", append,
                "-no-reboot");
    serial = guest_wait_serial(&run, "DONE");
    line = strstr(serial, "RESULT attrs-fuzz ");
    g_assert(line);
    g_assert_cmpint(sscanf(line, "RESULT attrs-fuzz ops=%lu refused=%lu "
                           "mismatches=%lu ranges=%lu", &ops, &refused,
                           &mismatches, &ranges), ==, 4);
    g_assert_cmpuint(ops, ==, 300);
    g_assert_cmpuint(refused, ==, 0);
    g_assert_cmpuint(mismatches, ==, 0);
    p0 = query_plane(run.qts, 0);
    g_assert_cmpuint(qdict_get_int(p0, "memory-attr-ranges"), ==, ranges + 1);
    g_assert_cmpint(qdict_get_int(p0, "memory-violations"), >, 0);
    guest_finish(&run);
}

/*
 * Single-threaded TCG (round robin): the planes work the same, and QEMU
 * still exits when the guest makes it (no join of the shared thread).
 */
static void test_round_robin(void)
{
    g_autofree char *serial = guest_run_to_exit_accel(
        "tcg,thread=single", "q35,planes=2,plane-violation=fault",
        "test=vbs calls=200",
        "-no-reboot");
    const char *const lines[] = {
        "P0: ACTIVATE rax=0", "RESULT sealed-unchanged 1",
        "RESULT noexec-exec trap=14 error=0x8011",
        "RESULT serialized calls=200 errors0=0 errors1=0",
        "RESULT parallel calls=200 errors0=0 errors1=0", "EXIT 0", NULL,
    };

    assert_in_order(serial, lines);
}

/*
 * Plane 1 asks for the shutdown (isa-debug-exit) and keeps running: QEMU
 * exits with the guest's code, with plane vCPUs still busy, and no hang.
 */
static void test_plane1_exits(void)
{
    g_autofree char *serial = guest_run_to_exit("q35,planes=2",
                                                "test=plane1-exit");

    g_assert(strstr(serial, "P1: ending the VM from plane 1"));
    g_assert(!strstr(serial, "P0: still here"));
}

/* planes=1: VMCALL is what it is in stock TCG, #UD. */
static void test_planes1(void)
{
    g_autofree char *serial = guest_run_to_exit("q35", "test=noplanes");

    g_assert(strstr(serial, "RESULT planes1 trap=6\r\n"));
}

/* One accelerator-neutral case, run under one accelerator. */
typedef struct AccelCase {
    const char *accel;
    GTestDataFunc fn;
    const void *data;
} AccelCase;

static const char *const accels[] = { "tcg", "kvm" };

/*
 * Without VM planes in the host's KVM, QEMU must refuse -accel kvm with
 * planes=2 before the guest runs: check that, so that the KVM run of
 * every case still exercises the path up to the capability check.
 */
static void assert_kvm_refuses_planes(int cap)
{
    g_autofree char *want = cap ?
        g_strdup_printf("this host's KVM supports at most %d planes", cap) :
        g_strdup("this host's KVM does not support planes "
                 "(KVM_CAP_PLANES is 0)");
    const char *argv[] = {
        g_getenv("QTEST_QEMU_BINARY"), "-accel", "kvm", "-machine",
        "q35,planes=2", "-display", "none", "-nodefaults", NULL,
    };
    g_autofree char *err = NULL;
    int status;

    g_assert(g_spawn_sync(NULL, (char **)argv, NULL,
                          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                          &status, NULL));
    g_assert(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert(strstr(err, want));
}

static void run_accel_case(const void *opaque)
{
    const AccelCase *c = opaque;
    const char *why = NULL;
    int cap;

    if (!strcmp(c->accel, "kvm")) {
        cap = host_kvm_planes(&why);
        if (cap < 0) {
            g_test_skip(why);
            return;
        }
        if (cap < 2) {
            g_autofree char *skip = g_strdup_printf(
                "host KVM has no VM planes (KVM_CAP_PLANES is %d); QEMU's "
                "refusal checked, the guest run needs a kernel with VM "
                "planes", cap);

            assert_kvm_refuses_planes(cap);
            g_test_skip(skip);
            return;
        }
    }
    case_accel = c->accel;
    c->fn(c->data);
    case_accel = "tcg";
}

static void add_case(const char *accel, const char *name, GTestDataFunc fn,
                     const void *data)
{
    g_autofree char *path = g_strdup_printf("/planes/%s/%s", accel, name);
    AccelCase *c = g_new(AccelCase, 1);

    *c = (AccelCase) { .accel = accel, .fn = fn, .data = data };
    qtest_add_data_func_full(path, c, run_accel_case, g_free);
}

static void test_vbs_case(const void *opaque)
{
    test_vbs(opaque);
}

/*
 * The number of planes current on vCPU index @index (must be 1); whether
 * plane 1 is among them goes to *@plane1.
 */
static int current_planes_on(QTestState *qts, int index, bool *plane1)
{
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': 'query-planes' }");
    QListEntry *e, *v;
    int current = 0;

    QLIST_FOREACH_ENTRY(qdict_get_qlist(resp, "return"), e) {
        QDict *plane = qobject_to(QDict, qlist_entry_obj(e));

        QLIST_FOREACH_ENTRY(qdict_get_qlist(plane, "vcpus"), v) {
            QDict *vcpu = qobject_to(QDict, qlist_entry_obj(v));

            if (qdict_get_int(vcpu, "cpu-index") == index &&
                qdict_get_bool(vcpu, "current")) {
                current++;
                *plane1 |= qdict_get_int(plane, "id") == 1;
            }
        }
    }
    return current;
}

/*
 * stop and cont while both vCPUs make VTL calls as fast as they can
 * (threads polling for the switch back or not, as @machine says): each
 * pause completes and finds one plane current per vCPU index, sometimes
 * plane 1, and the guest carries on.  vCPU 0 prints a line every
 * STOP_CONT_CALLS calls: each round waits for the next one, so the calls
 * went on between any two pauses, however slow the host.
 */
#define STOP_CONT_CALLS 500

static void test_vtl_stop_cont(const void *opaque)
{
    const char *machine = opaque;
    bool plane1_seen = false;
    size_t at = 0;
    GuestRun run;

    guest_start(&run, machine, "test=bench-vtl smp=2 calls=100000000 "
                "progress=" G_STRINGIFY(STOP_CONT_CALLS), "-no-reboot");
    for (int round = 0; round < 20; round++) {
        g_autoptr(QDict) stop = NULL, cont = NULL;
        g_autofree char *tail = guest_wait_serial_from(&run, at,
                                                       " calls\r\n");

        at += strstr(tail, " calls\r\n") - tail + strlen(" calls\r\n");
        stop = qtest_qmp(run.qts, "{ 'execute': 'stop' }");
        g_assert(qdict_haskey(stop, "return"));
        assert_status(run.qts, "paused");
        g_assert_cmpint(current_planes_on(run.qts, 0, &plane1_seen), ==, 1);
        g_assert_cmpint(current_planes_on(run.qts, 1, &plane1_seen), ==, 1);
        cont = qtest_qmp(run.qts, "{ 'execute': 'cont' }");
        g_assert(qdict_haskey(cont, "return"));
        assert_status(run.qts, "running");
    }
    /* a VTL call was under way at some pause: the calls were running */
    g_assert(plane1_seen);
    assert_status(run.qts, "running");
    guest_finish(&run);
}

/* The VTL call statistics of plane @id in query-planes. */
static QDict *vtl_stats(QTestState *qts, int id)
{
    g_autoptr(QDict) plane = query_plane(qts, id);
    QDict *stats = qdict_get_qdict(plane, "vtl-stats");

    g_assert(stats);
    return qobject_ref(stats);
}

static uint64_t dict_uint(QDict *dict, const char *key)
{
    return qnum_get_uint(qobject_to(QNum, qdict_get(dict, key)));
}

/* Asserts @id's counters, and that its histogram counts each return. */
static void assert_vtl_stats(QTestState *qts, int id, uint64_t calls,
                             uint64_t returns, uint64_t refusals)
{
    g_autoptr(QDict) stats = vtl_stats(qts, id);
    QList *histogram = qdict_get_qlist(stats, "latency-histogram");
    uint64_t total = 0;
    QListEntry *e;

    g_assert_cmpuint(dict_uint(stats, "calls"), ==, calls);
    g_assert_cmpuint(dict_uint(stats, "returns"), ==, returns);
    g_assert_cmpuint(dict_uint(stats, "refusals"), ==, refusals);
    g_assert_cmpuint(qlist_size(histogram), ==, 32);
    QLIST_FOREACH_ENTRY(histogram, e) {
        total += qnum_get_uint(qobject_to(QNum, qlist_entry_obj(e)));
    }
    g_assert_cmpuint(total, ==, returns);
}

/* info planes' VTL call count and p50 of plane @id. */
static void hmp_vtl_columns(QTestState *qts, int id, unsigned long *calls,
                            char *p50)
{
    g_autofree char *out = qtest_hmp(qts, "info planes");
    g_autofree char *prefix = g_strdup_printf("\n%d ", id);
    const char *line = strstr(out, prefix);
    char p99[16];

    g_assert(line);
    g_assert_cmpint(sscanf(line + 1, "%*d %*s %*s %*s %*s %*s %*s %lu "
                           "%15s %15s", calls, p50, p99), ==, 3);
    /* the 99th percentile is in the 50th's bucket or a later one */
    g_assert_cmpint(p50[0] == '-', ==, p99[0] == '-');
}

#define STATS_CALLS 300
#define STATS_REFUSED 7

/*
 * query-planes counts plane 1's VTL calls, returns and refusals (plane
 * 0's refused VTL returns on plane 0) with a round-trip histogram;
 * info planes shows them; reset-plane-vtl-stats zeroes one plane or all.
 */
static void test_vtl_stats(void)
{
    g_autoptr(QDict) bad = NULL, one = NULL, all = NULL;
    unsigned long calls = 0;
    char p50[16];
    GuestRun run;

    guest_start(&run, "q35,planes=2", "test=bench-vtl halt=1 calls="
                G_STRINGIFY(STATS_CALLS) " refuse=" G_STRINGIFY(STATS_REFUSED),
                "");
    g_free(guest_wait_serial(&run, "DONE"));
    assert_vtl_stats(run.qts, 1, STATS_CALLS, STATS_CALLS, STATS_REFUSED);
    assert_vtl_stats(run.qts, 0, 0, 0, STATS_REFUSED);
    hmp_vtl_columns(run.qts, 1, &calls, p50);
    g_assert_cmpuint(calls, ==, STATS_CALLS);
    g_assert_cmpint(p50[0], ==, '<');
    hmp_vtl_columns(run.qts, 0, &calls, p50);
    g_assert_cmpuint(calls, ==, 0);
    g_assert_cmpstr(p50, ==, "-");

    bad = qtest_qmp(run.qts, "{ 'execute': 'reset-plane-vtl-stats', "
                    "'arguments': { 'plane': 2 } }");
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(bad, "error"), "desc"),
                    ==, "plane 2: the machine has planes 0 to 1");
    assert_vtl_stats(run.qts, 1, STATS_CALLS, STATS_CALLS, STATS_REFUSED);
    one = qtest_qmp(run.qts, "{ 'execute': 'reset-plane-vtl-stats', "
                    "'arguments': { 'plane': 1 } }");
    g_assert(qdict_haskey(one, "return"));
    assert_vtl_stats(run.qts, 1, 0, 0, 0);
    assert_vtl_stats(run.qts, 0, 0, 0, STATS_REFUSED);
    all = qtest_qmp(run.qts, "{ 'execute': 'reset-plane-vtl-stats' }");
    g_assert(qdict_haskey(all, "return"));
    assert_vtl_stats(run.qts, 0, 0, 0, 0);
    guest_finish(&run);

    /* both vCPUs at once on plane 1's one state: every call counted */
    guest_start(&run, "q35,planes=2", "test=bench-vtl halt=1 smp=2 calls="
                G_STRINGIFY(STATS_CALLS), "");
    g_free(guest_wait_serial(&run, "DONE"));
    assert_vtl_stats(run.qts, 1, 2 * STATS_CALLS, 2 * STATS_CALLS, 0);
    guest_finish(&run);

    /* -machine plane-vtl-stats=off: nothing counted */
    guest_start(&run, "q35,planes=2,plane-vtl-stats=off",
                "test=bench-vtl halt=1 calls=" G_STRINGIFY(STATS_CALLS)
                " refuse=" G_STRINGIFY(STATS_REFUSED), "");
    g_free(guest_wait_serial(&run, "DONE"));
    assert_vtl_stats(run.qts, 1, 0, 0, 0);
    assert_vtl_stats(run.qts, 0, 0, 0, 0);
    guest_finish(&run);
}

/*
 * VTL call pages that passed QEMU's checks are checked again after a
 * system reset that moved plane 1's region over them.
 */
static void test_vtl_relayout(const void *opaque)
{
    /* the guest resets the machine itself: no -no-reboot */
    g_autofree char *serial = guest_run_to_exit_accel(
        case_accel, "q35,planes=2", "test=relayout", "");
    const char *const lines[] = {
        "RESULT relayout-first rax=0 status=7", "P0: resetting",
        "P0: booting", "P0: CONFIG rax=0", "P0: ACTIVATE rax=0",
        "RESULT relayout-second rax=-22", "EXIT 0", NULL,
    };

    assert_in_order(serial, lines);
}

static bool violation_is_read_of(QDict *ev, const void *opaque)
{
    QDict *data = qdict_get_qdict(ev, "data");

    return qdict_get_int(data, "plane") == 0 &&
           (uint64_t)qdict_get_int(data, "gpa") == *(const uint64_t *)opaque &&
           !strcmp(qdict_get_str(data, "access"), "read");
}

/*
 * Waits for the violation event and the STOP that follows it (the VM is
 * stopped, no vCPU runs any more): the VM is in internal-error.
 */
static void wait_violation_stop(GuestRun *run, GList **events)
{
    static const uint64_t gpa = 0x4000000;

    qmp_wait_event(run->qts, events, "PLANE_MEMORY_VIOLATION",
                   violation_is_read_of, &gpa);
    qmp_wait_event(run->qts, events, "STOP", NULL, NULL);
    assert_status(run->qts, "internal-error");
    qmp_free_events(events);
}

/*
 * plane-violation=stop, the default: plane 0's first read of the sealed
 * region stops the VM (internal-error, which cont refuses), with the
 * event and before the read's result could be printed; system_reset
 * boots it again, and the next violation stops it again.
 */
static void test_violation_stop(const void *opaque)
{
    GuestRun run;
    g_autofree char *first = NULL, *serial = NULL;
    g_autoptr(QDict) resp = NULL, p0 = NULL;
    GList *events = NULL;

    /* no -no-reboot: it would make system_reset a shutdown */
    guest_start(&run, "q35,planes=2", "test=boot", "");
    wait_violation_stop(&run, &events);
    first = guest_serial(&run);
    g_assert(strstr(first, "P0: resumed after ACTIVATE"));
    g_assert(!strstr(first, "P0: read of plane 1 region"));
    p0 = query_plane(run.qts, 0);
    g_assert_cmpint(qdict_get_int(p0, "memory-violations"), ==, 1);
    resp = qtest_qmp(run.qts, "{ 'execute': 'cont' }");
    g_assert(qdict_haskey(resp, "error"));
    qobject_unref(resp);

    resp = qmp_collect(run.qts, &events, "{ 'execute': 'system_reset' }");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    resp = qmp_collect(run.qts, &events, "{ 'execute': 'cont' }");
    g_assert(qdict_haskey(resp, "return"));
    wait_violation_stop(&run, &events);
    serial = guest_serial(&run);
    g_assert(strlen(serial) > strlen(first));
    g_assert(strstr(serial + strlen(first), "P0: resumed after ACTIVATE"));
    g_assert(!strstr(serial + strlen(first), "P0: read of plane 1 region"));
    guest_finish(&run);
}

/*
 * ACTIVATE from vCPU 1: plane 1 boots on its home index, vCPU 0's, as its
 * BSP, and serves both vCPUs.
 */
static void test_activate_ap(const void *opaque)
{
    g_autofree char *serial = guest_run_to_exit("q35,planes=2",
                                                "test=activate-ap");

    /*
     * Plane 1 lives on index 0 either way; TCG serves vCPU 1's call with
     * that state, the kernel cannot (-95: see the KVM backend's docs).
     */
    if (strcmp(case_accel, "kvm")) {
        g_assert(strstr(serial, "RESULT activate-ap echo1=1 echo0=1\r\n"));
    } else {
        g_assert(strstr(serial, "RESULT activate-ap echo1=0 echo0=1\r\n"));
    }
    /* the state plane 1 boots in is a BSP with the boot vCPU's APIC ID */
    g_assert(strstr(serial, "P1: apicbase=0xfee00900 apic-id=0\r\n"));
    g_assert(strstr(serial, "EXIT 0"));
}

/*
 * Plane 1 triple faults inside a VTL call: it alone stops, the call and
 * every later one return -EOPNOTSUPP, plane 0 runs on to its end.
 */
static void test_plane1_crash(const void *opaque)
{
    g_autofree char *serial = NULL;
    g_autoptr(QDict) p1 = NULL;
    GuestRun run;

    guest_start(&run, "q35,planes=2", "test=plane1-crash halt=1",
                "-no-reboot");
    if (!strcmp(case_accel, "kvm")) {
        /* The kernel reports plane 1's shutdown on plane 0's fd: the VM */
        qtest_set_expected_status(run.qts, 0);
        qtest_wait_qemu(run.qts);
        serial = guest_serial(&run);
        g_assert(strstr(serial, "P1: triple fault"));
        guest_finish(&run);
        return;
    }
    serial = guest_wait_serial(&run, "DONE");
    {
        const char *const lines[] = {
            "P0: ACTIVATE rax=0", "P1: triple fault",
            "RESULT crash-call rax=-95", "RESULT crash-after rax=-95",
            "EXIT 0", "DONE", NULL,
        };

        assert_in_order(serial, lines);
    }
    p1 = query_plane(run.qts, 1);
    g_assert_cmpstr(qdict_get_str(p1, "state"), ==, "stopped");
    assert_status(run.qts, "running");
    guest_finish(&run);
}

static void test_plane1_exits_case(const void *opaque)
{
    test_plane1_exits();
}

/*
 * Plane 1 programs plane 0's chipset as a Linux secure kernel does, with
 * its own console on COM2: plane 0 gets no interrupt, finds its 8259s,
 * IOAPIC, PIT, HPET and RTC as it left them, and no COM2; plane 1's
 * console has plane 1's line and plane 0's has none of it.
 */
static void test_chipset_plane0(void)
{
    g_autofree char *com2_path = NULL, *com2 = NULL, *extra = NULL;
    g_autofree char *serial = NULL;
    g_autoptr(QDict) p0 = NULL, p1 = NULL;
    QList *devices;
    GuestRun run;
    int fd = g_file_open_tmp("planes-com2-XXXXXX", &com2_path, NULL);

    g_assert(fd >= 0);
    close(fd);
    extra = g_strdup_printf("-no-reboot -chardev file,id=com2,path=%s "
                            "-device isa-serial,id=p1con,iobase=0x2f8,irq=3,"
                            "plane=1,chardev=com2", com2_path);
    guest_start(&run, "q35,planes=2", "test=chipset halt=1", extra);
    serial = guest_wait_serial(&run, "DONE");
    g_assert(strstr(serial, "RESULT chipset rax=0 interrupts=0 changed=0 "
                    "pit-reprogrammed=0 com2-lsr=0xff com2-scratch=0xff\r\n"));
    g_assert(!strstr(serial, "own console"));
    g_assert(g_file_get_contents(com2_path, &com2, NULL, NULL));
    g_assert_cmpstr(com2, ==, "P1: hello on plane 1's own console\n");

    /*
     * Plane 1's dropped accesses, each of its writes: 10 to the 8259s,
     * 12 to the IOAPIC (select and window, 2 for each of 3 RTEs' halves),
     * 3 to the PIT, 4 to the HPET (its reads go through), 4 to the RTC,
     * 1 MSI.  Plane 0's: SeaBIOS's probe of COM2 (IER written and read
     * back), then the guest's (3 accesses).
     */
    p1 = query_plane(run.qts, 1);
    g_assert_cmpint(qdict_get_int(p1, "dropped-device-accesses"), ==, 34);
    devices = qdict_get_qlist(p1, "devices");
    g_assert_cmpint(qlist_size(devices), ==, 1);
    g_assert_cmpstr(qstring_get_str(qobject_to(QString,
                                               qlist_peek(devices))),
                    ==, "/machine/peripheral/p1con");
    p0 = query_plane(run.qts, 0);
    g_assert_cmpint(qdict_get_int(p0, "dropped-device-accesses"), ==, 5);
    guest_finish(&run);
    unlink(com2_path);
}

/* Connects to the UNIX socket QEMU listens on at @path and sends @byte. */
static void send_to_chardev(const char *path, char byte)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    g_assert(fd >= 0);
    g_assert(strlen(path) < sizeof(addr.sun_path));
    strcpy(addr.sun_path, path);
    g_assert_cmpint(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), ==,
                    0);
    /* QEMU reads the byte before the end of the connection */
    g_assert_cmpint(write(fd, &byte, 1), ==, 1);
    close(fd);
}

/*
 * Runs the guest with @args and COM2 given to plane 1 on a socket; sends
 * it 'x' once the guest waits for it.  Returns the serial output.
 */
static char *run_with_plane1_com2(const char *args)
{
    g_autofree char *dir = g_dir_make_tmp("planes-com2-XXXXXX", NULL);
    g_autofree char *sock = g_build_filename(dir, "com2.sock", NULL);
    g_autofree char *extra = NULL;
    char *serial;
    GuestRun run;

    g_assert(dir);
    extra = g_strdup_printf("-no-reboot -chardev socket,id=com2,path=%s,"
                            "server=on,wait=off -device isa-serial,"
                            "iobase=0x2f8,irq=3,plane=1,chardev=com2", sock);
    guest_start(&run, "q35,planes=2", args, extra);
    g_free(guest_wait_serial(&run, "P0: waiting for input on plane 1's "
                             "COM2"));
    send_to_chardev(sock, 'x');
    serial = guest_wait_serial(&run, "DONE");
    guest_finish(&run);
    unlink(sock);
    rmdir(dir);
    return serial;
}

/*
 * A device of plane 1 interrupts plane 1: COM2, given to plane 1 and wired
 * to LINT0 of its boot state, receives a byte while plane 0 runs on that
 * index.  Plane 1 finds the interrupt pending when the next VTL call
 * switches it in, takes it and reads the byte; plane 0, with every vector
 * counted, gets none.
 */
static void test_device_irq(void)
{
    g_autofree char *serial = run_with_plane1_com2("test=device-irq halt=1");

    g_assert(strstr(serial, "RESULT device-irq rax=0 taken=1 "
                    "pending-at-entry=1 data=0x78 plane0-interrupts=0\r\n"));
}

/*
 * Plane 1 stays whole on its home index, vCPU 0's: ACTIVATE from vCPU 1
 * boots it there (APIC ID 0, BSP) and it starts its local APIC timer
 * while it boots; every VTL call comes from vCPU 0.  In those calls its
 * timer ticks (periodic, vector 0x52, APIC software-enabled) and its own
 * COM2's interrupt reaches it; plane 0 gets no interrupt of either.
 * Last, vCPU 1 calls once, and plane 1 may not enable a state of its own
 * on vCPU 1 while its shared state serves that very call.
 */
static void test_home_index(void)
{
    g_autofree char *serial = run_with_plane1_com2("test=home halt=1 "
                                                   "p1cmd=timer=1");

    g_assert(strstr(serial, "RESULT home rax=0 ticks-enough=1 "
                    "lvt-timer=0x20052 svr=0x1ff apic-id=0 taken=1 "
                    "data=0x78 plane0-interrupts=0\r\n"));
    g_assert(strstr(serial, "P1: apicbase=0xfee00900 apic-id=0\r\n"));
    g_assert(strstr(serial, "P1: local APIC timer running\r\n"));
    /* PLANE_ENABLE_VCPU for vCPU 1 in vCPU 1's call: -EINVAL, all fine */
    g_assert(strstr(serial, "RESULT home-enable-served status=-22 "
                    "echo0=1\r\n"));
}

/*
 * A virtio-rng-pci given to plane 1 on pcie.0 (00:05.0): plane 0 finds no
 * function there (0xcf8 and ECAM read all ones) while its own host bridge
 * answers; plane 1 finds its function and nothing of plane 0's, places the
 * BARs, finds INTx disabled for good, and gets 64 random bytes written
 * into its hidden region (plane 0's DMA view would refuse them) with the
 * queue's MSI-X message in its APIC while plane 0 ran, which counted no
 * interrupt.  The device is plane 1's in query-planes and its DMA address
 * space is plane 1's view.
 */
static void test_virtio_plane(void)
{
    g_autoptr(QDict) p1 = NULL;
    g_autofree char *serial = NULL, *mtree = NULL;
    QList *devices;
    const char *line;
    unsigned int nonzero;
    GuestRun run;

    guest_start(&run, "q35,planes=2", "test=virtio-plane halt=1",
                "-no-reboot -device virtio-rng-pci,id=p1rng,plane=1,"
                "addr=05.0,disable-legacy=on");
    serial = guest_wait_serial(&run, "DONE");
    line = strstr(serial, "RESULT virtio-plane ");
    g_assert(line);
    g_assert(g_str_has_prefix(line, "RESULT virtio-plane rax=0 "
             "p0-cf8=0xffffffff p0-ecam=0xffffffff p0-host=0x29c08086 "
             "p1-id=0x10441af4 p1-host=0xffffffff cmd=0x406 vector=0 "
             "status=0xf taken=1 pending-at-entry=1 used=1 len=64 "
             "nonzero="));
    /* 64 random bytes: a zero now and then, never most of them */
    g_assert(sscanf(strstr(line, "nonzero="), "nonzero=%u", &nonzero) == 1);
    g_assert_cmpuint(nonzero, >=, 48);
    g_assert(strstr(line, " plane0-interrupts=0\r\n"));

    p1 = query_plane(run.qts, 1);
    devices = qdict_get_qlist(p1, "devices");
    g_assert_cmpint(qlist_size(devices), ==, 1);
    g_assert_cmpstr(qstring_get_str(qobject_to(QString,
                                               qlist_peek(devices))),
                    ==, "/machine/peripheral/p1rng");
    mtree = qtest_hmp(run.qts, "info mtree");
    g_assert(strstr(mtree, "address-space: virtio-rng-pci\r\n"
                    "  0000000000000000-ffffffffffffffff (prio 0, i/o): "
                    "bus master container\r\n"
                    "    0000000000000000-ffffffffffffffff (prio 0, i/o): "
                    "alias bus master @plane1-device-dma-root"));
    guest_finish(&run);
}

/*
 * Issue 32: what plane 1 reaches at its own devices' addresses does not
 * depend on what plane 0 maps, and plane 1's BARs capture nothing of
 * plane 0's.  Each case runs the freestanding pair with plane 1's
 * virtio-rng-pci set up and used once, then one attack.
 */
typedef struct DeviceMapCase {
    const char *append;
    const char *expect;     /* the RESULT line's start */
} DeviceMapCase;

static void test_device_map(const void *data)
{
    const DeviceMapCase *c = data;
    g_autofree char *serial = NULL, *got = NULL;
    const char *line;
    GuestRun run;

    guest_start(&run, "q35,planes=2", c->append,
                "-no-reboot -device virtio-rng-pci,id=p1rng,plane=1,"
                "addr=05.0,disable-legacy=on -chardev null,id=com2 "
                "-device isa-serial,iobase=0x2f8,irq=3,plane=1,"
                "chardev=com2");
    serial = guest_wait_serial(&run, "DONE");
    line = strstr(serial, "RESULT ");
    g_assert(line);
    /* compared as strings: a failure shows what the guest found */
    got = g_strndup(line, strlen(c->expect));
    g_assert_cmpstr(got, ==, c->expect);
    guest_finish(&run);
}

static const DeviceMapCase device_map_cases[] = {
    /* plane 0's AHCI registers on plane 1's common, then notify page */
    { "test=virtio-interpose attack=abar halt=1 rounds=600",
      "RESULT virtio-interpose abar rax=0 ahci=0x29228086 moved-host=0x0 "
      "p1-id=0x10441af4 cmd=0x406 status=0xf qsize=8 taken=1 "
      "pending-at-entry=1 used=2 len=64 nonzero=" },
    /* PCIEXBAR moved, plane 0's AHCI on plane 1's old ECAM page */
    { "test=virtio-interpose attack=pciexbar halt=1 rounds=600",
      "RESULT virtio-interpose pciexbar rax=0 ahci=0x29228086 "
      "moved-host=0x29c08086 p1-id=0x10441af4 cmd=0x406 status=0xf "
      "qsize=8 taken=1 pending-at-entry=1 used=2 len=64 nonzero=" },
    /* plane 1's BARs on plane 0's AHCI registers and on its RAM */
    { "test=virtio-capture halt=1",
      "RESULT virtio-capture rax=0 ahci=0x29228086 cap-same=1 vs=0x10000 "
      "ram=0x5a5a5a5a12345678 ram-write=0xffff p1-status=0xf "
      "p1-msix=0xfee00000 p1-probe-status=0xf\r\n" },
    /* plane 0's PM block (TCO at +0x60) over plane 1's COM2 */
    { "test=com2-pmbase halt=1",
      "RESULT com2-pmbase pmbase=0x601 moved=0x281 scratch=0xa5/0x5a "
      "lsr=0x60/0x60\r\n" },
};

static const char *const device_map_names[] = {
    "plane0-abar-on-plane1-bars", "plane0-moves-pciexbar",
    "plane1-bars-on-plane0", "plane0-pmbase-on-plane1-com2",
};

QEMU_BUILD_BUG_ON(ARRAY_SIZE(device_map_cases) !=
                  ARRAY_SIZE(device_map_names));

int main(int argc, char **argv)
{
    static const BootCase boot_inside = {
        "q35,planes=2,plane-violation=fault",
        "p1base=0x4000000 p1size=0x1000000",
        0x4000000, 0x1000000,
        "P1: parking with VTL_RETURN", "P1: cmdline 'console=ttyS0 vtl=1'",
    };
    static const BootCase boot_outside = {
        "q35,planes=2,plane-violation=fault",
        "p1base=0x100000000 p1size=0x60000000 p1cmd=vbs+secure=1",
        0x100000000ULL, 0x60000000ULL,
        "P1: parking with VTL_RETURN", "P1: cmdline 'vbs secure=1'",
    };
    static const BootCase boot_hlt = {
        "q35,planes=2,plane-violation=fault",
        "p1base=0x8000000 p1size=0x800000 p1cmd=park=hlt",
        0x8000000, 0x800000,
        "P1: parking with HLT", "P1: cmdline 'park=hlt'",
    };
    static const BootCase boot_vmmcall = {
        "q35,planes=2,plane-violation=fault",
        "p1base=0x4000000 p1size=0x1000000 vmmcall=1",
        0x4000000, 0x1000000,
        "P1: parking with VTL_RETURN", "P1: cmdline 'console=ttyS0 vtl=1'",
    };

    /* i440fx, and more planes than the guest configures (count 2 of 4) */
    static const BootCase boot_pc = {
        "pc,planes=2,plane-violation=fault",
        "p1base=0x4000000 p1size=0x1000000", 0x4000000,
        0x1000000, "P1: parking with VTL_RETURN",
        "P1: cmdline 'console=ttyS0 vtl=1'",
    };
    static const BootCase boot_4planes = {
        "q35,planes=4,plane-violation=fault",
        "p1base=0x4000000 p1size=0x1000000", 0x4000000,
        0x1000000, "P1: parking with VTL_RETURN",
        "P1: cmdline 'console=ttyS0 vtl=1'",
    };

    g_test_init(&argc, &argv, NULL);
    for (size_t a = 0; a < ARRAY_SIZE(accels); a++) {
        const char *accel = accels[a];

        add_case(accel, "boot/inside-ram", test_boot, &boot_inside);
        add_case(accel, "boot/pc-machine", test_boot, &boot_pc);
        add_case(accel, "boot/four-planes", test_boot, &boot_4planes);
        add_case(accel, "boot/outside-ram", test_boot, &boot_outside);
        add_case(accel, "boot/vmmcall", test_boot, &boot_vmmcall);
        add_case(accel, "vtl/vbs", test_vbs_case,
                 "q35,planes=2,plane-violation=fault");
        /* switched-out threads sleep at once: the hand-over without polls */
        add_case(accel, "vtl/vbs-no-poll", test_vbs_case,
                 "q35,planes=2,plane-violation=fault,plane-switch-poll-ns=0");
        add_case(accel, "violation/stop", test_violation_stop, NULL);
        add_case(accel, "activate-from-vcpu1", test_activate_ap, NULL);
        add_case(accel, "plane1-triple-fault", test_plane1_crash, NULL);
        for (unsigned int seed = 1; seed <= 3; seed++) {
            g_autofree char *name = g_strdup_printf("attrs/fuzz/%u", seed);

            add_case(accel, name, test_attrs_fuzz, GUINT_TO_POINTER(seed));
        }
        for (size_t i = 0; i < ARRAY_SIZE(vtl_misuse); i++) {
            g_autofree char *name = g_strdup_printf("vtl/misuse/%s",
                                                    vtl_misuse[i].name);

            add_case(accel, name, test_vtl_misuse, &vtl_misuse[i]);
        }
        for (size_t i = 0; i < ARRAY_SIZE(negative_cases); i++) {
            g_autofree char *name = g_strdup_printf("negative/%s",
                                                    negative_cases[i].name);

            add_case(accel, name, test_negative, &negative_cases[i]);
        }
        add_case(accel, "plane1-exits-qemu", test_plane1_exits_case, NULL);
        add_case(accel, "vtl/pages-after-relayout", test_vtl_relayout, NULL);
        add_case(accel, "vtl/stop-cont-during-calls", test_vtl_stop_cont,
                 "q35,planes=2");
        add_case(accel, "vtl/stop-cont-during-calls-no-poll",
                 test_vtl_stop_cont, "q35,planes=2,plane-switch-poll-ns=0");
    }
    /*
     * TCG only: plane 1 parking with HLT (in-kernel with KVM's LAPIC, it
     * never exits), timing that leans on TCG's speed, TCG's own modes.
     */
    qtest_add_data_func("/planes/tcg/boot/hlt-park", &boot_hlt, test_boot);
    qtest_add_func("/planes/tcg/boot/all-planes", test_boot_all_planes);
    qtest_add_func("/planes/tcg/reset", test_reset);
    qtest_add_func("/planes/tcg/vtl/busy-while-booting", test_vtl_busy);
    qtest_add_func("/planes/tcg/vtl/interrupt-after-return", test_vtl_irq);
    qtest_add_func("/planes/tcg/vtl/statistics", test_vtl_stats);
    qtest_add_func("/planes/tcg/planes1", test_planes1);
    qtest_add_func("/planes/tcg/round-robin", test_round_robin);
    qtest_add_func("/planes/tcg/devices/chipset-is-plane-0s",
                   test_chipset_plane0);
    qtest_add_func("/planes/tcg/devices/virtio-pci-of-plane-1",
                   test_virtio_plane);
    qtest_add_func("/planes/tcg/devices/irq-to-owning-plane",
                   test_device_irq);
    qtest_add_func("/planes/tcg/vtl/plane1-stays-on-home-index",
                   test_home_index);
    qtest_add_func("/planes/tcg/config/series-default-region",
                   test_series_default_region);
    for (size_t i = 0; i < ARRAY_SIZE(device_map_cases); i++) {
        g_autofree char *path = g_strdup_printf("/planes/tcg/devices/map/%s",
                                                device_map_names[i]);

        qtest_add_data_func(path, &device_map_cases[i], test_device_map);
    }
    return g_test_run();
}
