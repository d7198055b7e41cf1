/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * qtests for VM planes: the "planes" machine property, the plane objects
 * in the QOM tree, query-planes, info planes and PLANE_STATE_CHANGED.
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "qobject/qstring.h"
#include "planes-qmp-events.h"

#define PLANES_ARGS "-nodefaults -display none -accel tcg "

/* Runs QEMU to completion; returns its exit status, stderr in *err. */
static int run_qemu(const char *args, char **err)
{
    const char *bin = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *cmd = g_strdup_printf("%s %s", bin, args);
    g_auto(GStrv) argv = NULL;
    g_autoptr(GError) gerr = NULL;
    int status;

    g_assert(bin);
    g_assert(g_shell_parse_argv(cmd, NULL, &argv, &gerr));
    g_assert(g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                          NULL, NULL, err, &status, &gerr));
    g_assert(WIFEXITED(status));        /* never a crash or core dump */
    return WEXITSTATUS(status);
}

typedef struct {
    const char *args;
    const char *message;
} PlanesErrorCase;

#define RANGE "the number of planes must be an integer from 1 to 16"
#define POLL_RANGE "must be an integer from 0 to 10000000 (nanoseconds)"

static const PlanesErrorCase planes_error_cases[] = {
    { "-machine q35,planes=0",
      "-machine planes=0: " RANGE },
    { "-machine q35,planes=17",
      "-machine planes=17: " RANGE },
    { "-machine q35,planes=abc",
      "-machine planes=abc: " RANGE },
    { "-machine q35,planes=-1",
      "-machine planes=-1: " RANGE },
    { "-machine pc,planes=2x",
      "-machine planes=2x: " RANGE },
    { "-machine pc,planes=",
      "-machine planes=: " RANGE },
    { "-machine none,planes=2",
      "-machine planes=2: machine type 'none' does not support planes" },
    { "-machine microvm,planes=2",
      "-machine planes=2: machine type 'microvm' does not support planes" },
    { "-machine q35,planes=2 -accel qtest -qtest null",
      "-machine planes=2: the QTest accelerator does not support planes" },
    { "-machine q35,planes=2,plane-switch-poll-ns=10000001",
      "-machine plane-switch-poll-ns=10000001: " POLL_RANGE },
    { "-machine q35,planes=2,plane-switch-poll-ns=-1",
      "-machine plane-switch-poll-ns=-1: " POLL_RANGE },
    { "-machine q35,planes=2,plane-switch-poll-ns=50us",
      "-machine plane-switch-poll-ns=50us: " POLL_RANGE },
    /* paths into guest memory past the planes' view, refused */
    { "-machine q35,planes=2 -cpu qemu64,+svm",
      "-machine planes: nested virtualization (svm) is not supported with "
      "planes; drop it from -cpu" },
    { "-machine q35,planes=2 -device virtio-balloon",
      "-device virtio-balloon: -machine planes=2: device 'virtio-balloon' is "
      "not supported with planes: the balloon discards guest pages at "
      "addresses the guest chooses" },
    { "-machine q35,planes=2 -device intel-iommu",
      "-device intel-iommu: -machine planes=2: device 'intel-iommu' is not "
      "supported with planes: a vIOMMU would take device DMA over from "
      "plane 0's view" },
    { "-machine q35,planes=3 -device virtio-iommu-pci",
      "-device virtio-iommu-pci: -machine planes=3: device "
      "'virtio-iommu-pci' is not supported with planes: a vIOMMU would take "
      "device DMA over from plane 0's view" },
    { "-machine q35,planes=2 -m 512M,slots=2,maxmem=2G -device pc-dimm",
      "-device pc-dimm: -machine planes=2: device 'pc-dimm' is not supported "
      "with planes: memory devices can be unplugged (discarded) under a "
      "plane's region" },
    { "-machine q35,planes=2 -device pxb-pcie,bus_nr=100,bypass_iommu=on",
      "-device pxb-pcie,bus_nr=100,bypass_iommu=on: -machine planes=2: "
      "device 'pxb-pcie': bypass_iommu cannot be set with planes: device DMA "
      "goes through plane 0's view" },
    /* devices that belong to planes */
    { "-machine q35,planes=2,device-plane=17",
      "-machine device-plane=17: must be a plane id from 0 to 15" },
    { "-machine q35,planes=2,device-plane=2",
      "-machine device-plane=2: the machine has no plane 2 (planes=2: "
      "planes 0 to 1)" },
    { "-machine q35,planes=2 -device isa-serial,iobase=0x2f8,plane=2",
      "-device isa-serial,iobase=0x2f8,plane=2: plane=2: the machine has no "
      "plane 2 (-machine planes=2: planes 0 to 1)" },
    { "-machine q35 -device isa-serial,iobase=0x2f8,plane=1",
      "-device isa-serial,iobase=0x2f8,plane=1: plane=1: the machine has no "
      "plane 1 (-machine planes=1: planes 0 to 0)" },
    { "-machine q35,planes=2 -device e1000e,plane=1",
      "-device e1000e,plane=1: plane=1: a e1000e device cannot belong to a "
      "plane other than 0 (only isa-serial and virtio-pci devices can)" },
    { "-machine q35,planes=2,device-plane=1 -device isa-debug-exit,id=dbg",
      "device 'dbg': -machine device-plane=1: a isa-debug-exit device cannot "
      "belong to a plane other than 0 (only isa-serial and virtio-pci "
      "devices can)" },
    { "-machine pc,planes=2 -device virtio-rng-pci,id=rng,plane=1,"
      "disable-legacy=on",
      "device 'rng': plane=1: a PCI device of a plane other than 0 must sit "
      "on a PCI Express root bus (q35's pcie.0), not on 'pci.0': its plane "
      "reaches its configuration space through ECAM only" },
    { "-machine q35,planes=2 -device pcie-root-port,id=rp,chassis=1 "
      "-device virtio-rng-pci,id=rng,bus=rp,plane=1",
      "device 'rng': plane=1: a PCI device of a plane other than 0 must sit "
      "on a PCI Express root bus (q35's pcie.0), not on 'rp': its plane "
      "reaches its configuration space through ECAM only" },
    { "-machine q35,planes=2,default-bus-bypass-iommu=on",
      "-machine planes=2: PCI bus 'pcie.0' bypasses the IOMMU "
      "(default-bus-bypass-iommu=on), but device DMA must go through plane "
      "0's view" },
};

static void test_planes_bad_value(const void *opaque)
{
    const PlanesErrorCase *c = opaque;
    g_autofree char *args = g_strdup_printf("-nodefaults -display none "
                                            "%s -accel tcg", c->args);
    g_autofree char *err = NULL;
    g_autofree char *expected = g_strdup_printf("qemu-system-x86_64: %s\n",
                                                c->message);

    g_assert_cmpint(run_qemu(args, &err), ==, 1);
    g_assert_cmpstr(err, ==, expected);
}

static void test_planes_help(void)
{
    g_autofree char *err = NULL;
    const char *bin = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *cmd = g_strdup_printf("%s -machine q35,help", bin);
    g_autofree char *out = NULL;
    int status;

    g_assert(g_spawn_command_line_sync(cmd, &out, &err, &status, NULL));
    g_assert_cmpint(status, ==, 0);
    g_assert(strstr(out, "planes=<int>"));
    g_assert(strstr(out, "Number of VM planes"));
}

static void test_planes_introspection(void)
{
    QTestState *qts = qtest_init("-machine none");
    g_autoptr(QDict) resp = NULL;
    QList *opts, *params;
    QListEntry *e;
    bool found = false;

    resp = qtest_qmp(qts, "{ 'execute': 'query-command-line-options', "
                     "'arguments': { 'option': 'machine' } }");
    opts = qdict_get_qlist(resp, "return");
    g_assert_cmpint(qlist_size(opts), ==, 1);
    params = qdict_get_qlist(qobject_to(QDict, qlist_peek(opts)),
                             "parameters");
    QLIST_FOREACH_ENTRY(params, e) {
        QDict *p = qobject_to(QDict, qlist_entry_obj(e));

        if (!strcmp(qdict_get_str(p, "name"), "planes")) {
            g_assert_cmpstr(qdict_get_str(p, "type"), ==, "number");
            g_assert(strstr(qdict_get_str(p, "help"), "Number of VM planes"));
            found = true;
        }
    }
    g_assert(found);
    qobject_unref(resp);

    resp = qtest_qmp(qts, "{ 'execute': 'qom-list-properties', "
                     "'arguments': { 'typename': 'x86-machine' } }");
    found = false;
    QLIST_FOREACH_ENTRY(qdict_get_qlist(resp, "return"), e) {
        QDict *p = qobject_to(QDict, qlist_entry_obj(e));

        found |= !strcmp(qdict_get_str(p, "name"), "planes") &&
                 !strcmp(qdict_get_str(p, "type"), "int");
    }
    g_assert(found);
    qtest_quit(qts);
}

/* -machine none has no planes: an empty list, as qmp-cmd-test expects. */
static void test_planes_machine_none(void)
{
    QTestState *qts = qtest_init("-machine none");
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': 'query-planes' }");
    g_autofree char *hmp = qtest_hmp(qts, "info planes");

    g_assert_cmpint(qlist_size(qdict_get_qlist(resp, "return")), ==, 0);
    g_assert_cmpstr(hmp, ==, "This machine has no planes\r\n");
    qtest_quit(qts);
}

/*
 * A hot-plugged device stays plane 0's: a device of a plane >= 1 is set up
 * when the machine is done (its DMA view, its INTx), so device_add with
 * plane=1 is refused, with plane=0 it plugs.
 */
static void test_planes_hotplug_stays_plane0(void)
{
    QTestState *qts = qtest_init("-machine q35,planes=2 -accel tcg "
                                 "-nodefaults -S -device pcie-root-port,"
                                 "id=rp,chassis=1");
    g_autoptr(QDict) refused = qtest_qmp(qts, "{ 'execute': 'device_add', "
        "'arguments': { 'driver': 'virtio-rng-pci', 'id': 'rng', "
        "'bus': 'rp', 'plane': 1 } }");
    g_autoptr(QDict) plugged = NULL;

    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(refused, "error"),
                                  "desc"), ==,
                    "plane=1: only devices of the command line can belong "
                    "to a plane other than 0; a hot-plugged device is plane "
                    "0's");
    plugged = qtest_qmp(qts, "{ 'execute': 'device_add', 'arguments': { "
                        "'driver': 'virtio-rng-pci', 'id': 'rng', "
                        "'bus': 'rp', 'plane': 0 } }");
    g_assert(qdict_haskey(plugged, "return"));
    qtest_quit(qts);
}

static char *qom_get_str(QTestState *qts, const char *path, const char *prop)
{
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': 'qom-get', "
                                      "'arguments': { 'path': %s, "
                                      "'property': %s } }", path, prop);

    return g_strdup(qdict_get_str(resp, "return"));
}

static int64_t qom_get_int(QTestState *qts, const char *path,
                           const char *prop)
{
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': 'qom-get', "
                                      "'arguments': { 'path': %s, "
                                      "'property': %s } }", path, prop);

    return qdict_get_int(resp, "return");
}

static bool thread_has_name(pid_t pid, int64_t tid, const char *name)
{
    g_autofree char *path = g_strdup_printf("/proc/%d/task/%" PRId64 "/comm",
                                            (int)pid, tid);
    g_autofree char *comm = NULL;

    if (!g_file_get_contents(path, &comm, NULL, NULL)) {
        return false;
    }
    g_strchomp(comm);
    return !strcmp(comm, name);
}

#define SMP 2

static QTestState *start_planes_vm(unsigned int planes)
{
    return qtest_initf(PLANES_ARGS "-name debug-threads=on -smp %d "
                       "-machine q35,planes=%u", SMP, planes);
}

static QList *query_cpus_fast(QTestState *qts)
{
    QDict *resp = qtest_qmp(qts, "{ 'execute': 'query-cpus-fast' }");
    QList *list = qobject_ref(qdict_get_qlist(resp, "return"));

    qobject_unref(resp);
    return list;
}

/* The QOM tree: /machine/planes/plane[N] with read-only properties. */
static void test_planes_qom(const void *opaque)
{
    unsigned int planes = GPOINTER_TO_UINT(opaque);
    QTestState *qts = start_planes_vm(planes);
    g_autoptr(QDict) resp = NULL;
    QListEntry *e;
    unsigned int children = 0;

    resp = qtest_qmp(qts, "{ 'execute': 'qom-list', "
                     "'arguments': { 'path': '/machine/planes' } }");
    QLIST_FOREACH_ENTRY(qdict_get_qlist(resp, "return"), e) {
        QDict *p = qobject_to(QDict, qlist_entry_obj(e));

        if (g_str_has_prefix(qdict_get_str(p, "name"), "plane[")) {
            g_assert_cmpstr(qdict_get_str(p, "type"), ==, "child<plane>");
            children++;
        }
    }
    g_assert_cmpuint(children, ==, planes);

    for (unsigned int p = 0; p < planes; p++) {
        g_autofree char *path = g_strdup_printf("/machine/planes/plane[%u]", p);
        g_autofree char *state = qom_get_str(qts, path, "state");
        g_autoptr(QDict) vcpus = NULL;
        g_autoptr(QList) cpus = query_cpus_fast(qts);
        QListEntry *ve;
        unsigned int i;
        QList *list;

        g_assert_cmpint(qom_get_int(qts, path, "id"), ==, p);
        g_assert_cmpstr(state, ==, p ? "created" : "running");
        g_assert_cmpint(qom_get_int(qts, path, "region-base"), ==, 0);
        g_assert_cmpint(qom_get_int(qts, path, "region-size"), ==, 0);
        g_assert_cmpint(qom_get_int(qts, path, "entry-point"), ==, 0);

        vcpus = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                          "{ 'path': %s, 'property': 'vcpus' } }", path);
        list = qdict_get_qlist(vcpus, "return");
        g_assert_cmpint(qlist_size(list), ==, SMP);
        i = 0;
        QLIST_FOREACH_ENTRY(list, ve) {
            const char *vpath = qstring_get_str(
                qobject_to(QString, qlist_entry_obj(ve)));
            g_autofree char *want = g_strdup_printf(
                "/machine/plane-set/plane[%u]/vcpu[%u]", p, i);
            g_autoptr(QDict) type = NULL;

            /* plane 0 runs on the machine's CPUs, others on their own */
            if (p) {
                g_assert_cmpstr(vpath, ==, want);
                g_assert_cmpint(qom_get_int(qts, vpath, "thread-id"), >, 0);
                g_assert_cmpint(qom_get_int(qts, vpath, "cpu-index"), ==, i);
            } else {
                QDict *cpu = qobject_to(QDict, qlist_peek(cpus));

                g_assert_cmpstr(vpath, ==, qdict_get_str(cpu, "qom-path"));
                qobject_unref(qlist_pop(cpus));
            }
            type = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                             "{ 'path': %s, 'property': 'type' } }", vpath);
            g_assert_cmpstr(qdict_get_str(type, "return"), ==,
                            p ? "plane-vcpu" : "qemu64-x86_64-cpu");
            i++;
        }
        g_assert_cmpuint(i, ==, SMP);
    }

    /* Read-only: management cannot change plane state behind the guest. */
    qobject_unref(resp);
    resp = qtest_qmp(qts, "{ 'execute': 'qom-set', 'arguments': "
                     "{ 'path': '/machine/planes/plane[0]', "
                     "'property': 'state', 'value': 'parked' } }");
    g_assert(qdict_haskey(resp, "error"));
    qtest_quit(qts);
}

/*
 * The plane set lives at /machine/plane-set; the machine's "planes"
 * property resolves to it, so /machine/planes/plane[N] reaches the same
 * objects, while qom-get of /machine planes is still the number.
 */
static void test_planes_qom_alias(void)
{
    QTestState *qts = start_planes_vm(3);
    g_autoptr(QDict) a = NULL;
    g_autoptr(QDict) b = NULL;

    g_assert_cmpint(qom_get_int(qts, "/machine", "planes"), ==, 3);
    for (unsigned int p = 0; p < 3; p++) {
        g_autofree char *alias = g_strdup_printf("/machine/planes/plane[%u]",
                                                 p);
        g_autofree char *canon = g_strdup_printf("/machine/plane-set/plane[%u]",
                                                 p);
        g_autofree char *va = g_strdup_printf("%s/vcpu[1]", alias);

        g_assert_cmpint(qom_get_int(qts, alias, "id"), ==, p);
        g_assert_cmpint(qom_get_int(qts, canon, "id"), ==, p);
        if (p) {
            g_assert_cmpint(qom_get_int(qts, va, "cpu-index"), ==, 1);
        }
    }
    a = qtest_qmp(qts, "{ 'execute': 'qom-list', "
                  "'arguments': { 'path': '/machine/planes' } }");
    b = qtest_qmp(qts, "{ 'execute': 'qom-list', "
                  "'arguments': { 'path': '/machine/plane-set' } }");
    g_assert(qobject_is_equal(qdict_get(a, "return"), qdict_get(b, "return")));
    qtest_quit(qts);
}

/* query-planes, cross-checked against query-cpus-fast and /proc. */
static void test_planes_query(const void *opaque)
{
    unsigned int planes = GPOINTER_TO_UINT(opaque);
    QTestState *qts = start_planes_vm(planes);
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': 'query-planes' }");
    g_autoptr(QList) cpus = query_cpus_fast(qts);
    g_autoptr(GHashTable) tids = g_hash_table_new(g_int64_hash,
                                                  g_int64_equal);
    QList *list = qdict_get_qlist(resp, "return");
    unsigned int p = 0;
    QListEntry *e;

    g_assert_cmpint(qlist_size(list), ==, planes);
    QLIST_FOREACH_ENTRY(list, e) {
        QDict *plane = qobject_to(QDict, qlist_entry_obj(e));
        g_autofree char *path = g_strdup_printf("/machine/plane-set/plane[%u]",
                                                p);
        unsigned int i = 0;
        QListEntry *ve;

        g_assert_cmpint(qdict_get_int(plane, "id"), ==, p);
        g_assert_cmpstr(qdict_get_str(plane, "qom-path"), ==, path);
        g_assert_cmpstr(qdict_get_str(plane, "state"), ==,
                        p ? "created" : "running");
        g_assert_cmpint(qdict_get_int(plane, "region-base"), ==, 0);
        g_assert_cmpint(qdict_get_int(plane, "region-size"), ==, 0);
        g_assert_cmpint(qdict_get_int(plane, "entry-point"), ==, 0);
        g_assert_cmpint(qdict_get_int(plane, "memory-violations"), ==, 0);
        g_assert_cmpint(qlist_size(qdict_get_qlist(plane, "vcpus")), ==, SMP);

        QLIST_FOREACH_ENTRY(qdict_get_qlist(plane, "vcpus"), ve) {
            QDict *v = qobject_to(QDict, qlist_entry_obj(ve));
            int64_t tid = qdict_get_int(v, "thread-id");
            g_autofree char *name = p ? g_strdup_printf("CPU %u/P%u/TCG", i, p)
                                      : g_strdup_printf("CPU %u/TCG", i);

            g_assert_cmpint(qdict_get_int(v, "cpu-index"), ==, i);
            /* plane 0 is current everywhere until a plane switch */
            g_assert(qdict_get_bool(v, "current") == (p == 0));
            g_assert(thread_has_name(qtest_pid(qts), tid, name));
            if (p == 0) {
                /* plane 0's vCPUs are exactly the guest CPUs */
                QListEntry *ce;
                int n = 0;

                QLIST_FOREACH_ENTRY(cpus, ce) {
                    QDict *c = qobject_to(QDict, qlist_entry_obj(ce));

                    if (qdict_get_int(c, "cpu-index") == i) {
                        g_assert_cmpint(qdict_get_int(c, "thread-id"), ==, tid);
                        g_assert_cmpstr(qdict_get_str(c, "qom-path"), ==,
                                        qdict_get_str(v, "qom-path"));
                        n++;
                    }
                }
                g_assert_cmpint(n, ==, 1);
            }
            /* every vCPU state has a thread of its own */
            g_assert(!g_hash_table_contains(tids, &tid));
            g_hash_table_add(tids, g_memdup2(&tid, sizeof(tid)));
            i++;
        }
        p++;
    }
    qtest_quit(qts);
}

/* The QOM type name of the object at @path (freed with the response). */
static const char *qom_type(QTestState *qts, const char *path)
{
    static QDict *last[2];
    static int n;
    QDict *resp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                            "{ 'path': %s, 'property': 'type' } }", path);

    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(last[n & 1]);
    last[n++ & 1] = resp;
    return qdict_get_str(resp, "return");
}

/* Planes add no guest CPUs: query-cpus-fast is the same as for planes=1. */
static void test_planes_cpus_unchanged(void)
{
    QTestState *one = start_planes_vm(1);
    QTestState *four = start_planes_vm(4);
    g_autoptr(QList) a = query_cpus_fast(one);
    g_autoptr(QList) b = query_cpus_fast(four);
    const QListEntry *ea, *eb;

    g_assert_cmpint(qlist_size(a), ==, SMP);
    g_assert_cmpint(qlist_size(b), ==, SMP);
    for (ea = qlist_first(a), eb = qlist_first(b); ea && eb;
         ea = qlist_next(ea), eb = qlist_next(eb)) {
        QDict *ca = qobject_to(QDict, qlist_entry_obj(ea));
        QDict *cb = qobject_to(QDict, qlist_entry_obj(eb));

        g_assert_cmpint(qdict_get_int(ca, "cpu-index"),
                        ==, qdict_get_int(cb, "cpu-index"));
        /*
         * Not the same path: with planes the vapic device is not created
         * (see the security model), which numbers the CPUs one lower.
         */
        g_assert_cmpstr(qom_type(one, qdict_get_str(ca, "qom-path")),
                        ==, qom_type(four, qdict_get_str(cb, "qom-path")));
        g_assert_cmpstr(qdict_get_str(ca, "target"),
                        ==, qdict_get_str(cb, "target"));
    }
    qtest_quit(one);
    qtest_quit(four);
}

/* The vCPU indexes plane @id lists in query-planes, as "0,1,2". */
static char *plane_indexes(QTestState *qts, int id)
{
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': 'query-planes' }");
    QList *planes = qdict_get_qlist(resp, "return");
    GString *s = g_string_new("");
    const QListEntry *e;

    QLIST_FOREACH_ENTRY(planes, e) {
        QDict *p = qobject_to(QDict, qlist_entry_obj(e));
        const QListEntry *v;

        if (qdict_get_int(p, "id") != id) {
            continue;
        }
        QLIST_FOREACH_ENTRY(qdict_get_qlist(p, "vcpus"), v) {
            QDict *vcpu = qobject_to(QDict, qlist_entry_obj(v));

            g_string_append_printf(s, "%s%" PRId64, s->len ? "," : "",
                                   qdict_get_int(vcpu, "cpu-index"));
        }
    }
    return g_string_free(s, false);
}

/*
 * The VBS series' launch line has -smp 3,maxcpus=4: the fourth CPU
 * plugged into a running planes=2 VM gets its plane-1 state; unplug is
 * refused.
 */
static void test_planes_cpu_hotplug(void)
{
    QTestState *qts = qtest_init("-machine q35,planes=2 -accel tcg "
                                 "-smp 3,maxcpus=4 -nodefaults");
    g_autoptr(QDict) resp = NULL;
    g_autofree char *before0 = plane_indexes(qts, 0);
    g_autofree char *before1 = plane_indexes(qts, 1);
    g_autofree char *after0 = NULL, *after1 = NULL;
    g_autoptr(QList) cpus = NULL;

    g_assert_cmpstr(before0, ==, "0,1,2");
    g_assert_cmpstr(before1, ==, "0,1,2");
    qtest_qmp_assert_success(qts, "{ 'execute': 'device_add', 'arguments': "
                             "{ 'driver': 'qemu64-x86_64-cpu', 'id': 'cpu3', "
                             "'socket-id': 0, 'core-id': 3, "
                             "'thread-id': 0 } }");
    after0 = plane_indexes(qts, 0);
    after1 = plane_indexes(qts, 1);
    g_assert_cmpstr(after0, ==, "0,1,2,3");
    g_assert_cmpstr(after1, ==, "0,1,2,3");
    cpus = query_cpus_fast(qts);
    g_assert_cmpint(qlist_size(cpus), ==, 4);
    resp = qtest_qmp(qts, "{ 'execute': 'device_del', 'arguments': "
                     "{ 'id': 'cpu3' } }");
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(resp, "error"), "desc"),
                    ==, "-machine planes=2: CPU hot-unplug is not supported "
                    "with planes");
    qtest_quit(qts);
}

/* info planes: one aligned row per plane with the same data. */
static void test_planes_hmp(const void *opaque)
{
    unsigned int planes = GPOINTER_TO_UINT(opaque);
    QTestState *qts = start_planes_vm(planes);
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': 'query-planes' }");
    g_autofree char *out = qtest_hmp(qts, "info planes");
    g_autofree char *help = qtest_hmp(qts, "help info");
    g_auto(GStrv) lines = g_strsplit(out, "\r\n", -1);
    QListEntry *e;
    unsigned int p = 0;

    g_assert(strstr(help, "info planes  -- show the VM planes"));
    g_assert(g_str_has_prefix(lines[0], "plane state      region-base"));
    g_assert_cmpuint(g_strv_length(lines), ==, planes + 2); /* + "" */
    QLIST_FOREACH_ENTRY(qdict_get_qlist(resp, "return"), e) {
        QDict *plane = qobject_to(QDict, qlist_entry_obj(e));
        GString *want = g_string_new(NULL);
        QListEntry *ve;

        /* no VTL calls yet: no percentiles */
        g_string_printf(want, "%-5u %-10s 0x%016x 0x%016x 0x%016x %-10u "
                        "%-8" PRId64 " %-10u %-9s %-9s", p,
                        qdict_get_str(plane, "state"), 0, 0, 0, 0,
                        qdict_get_int(plane, "dropped-device-accesses"), 0,
                        "-", "-");
        QLIST_FOREACH_ENTRY(qdict_get_qlist(plane, "vcpus"), ve) {
            QDict *v = qobject_to(QDict, qlist_entry_obj(ve));

            g_string_append_printf(want, " %" PRId64 ":%" PRId64 "%s",
                                   qdict_get_int(v, "cpu-index"),
                                   qdict_get_int(v, "thread-id"),
                                   qdict_get_bool(v, "current") ? "*" : "");
        }
        g_assert_cmpstr(lines[p + 1], ==, want->str);
        g_string_free(want, true);
        p++;
    }
    g_assert_cmpstr(lines[planes + 1], ==, "");
    qtest_quit(qts);
}

/* Every plane's state in query-planes: plane 0 running, the rest created. */
static void assert_planes_unconfigured(QDict *resp, unsigned int planes)
{
    QList *list = qdict_get_qlist(resp, "return");
    unsigned int p = 0;
    QListEntry *e;

    g_assert_cmpint(qlist_size(list), ==, planes);
    QLIST_FOREACH_ENTRY(list, e) {
        QDict *plane = qobject_to(QDict, qlist_entry_obj(e));

        g_assert_cmpint(qdict_get_int(plane, "id"), ==, p);
        g_assert_cmpstr(qdict_get_str(plane, "state"), ==,
                        p ? "created" : "running");
        p++;
    }
}

/*
 * Plane 0 enters "running" when the machine is ready, with one event and
 * no other; a system reset sends none.  Every event is read and kept
 * (planes-qmp-events.h), up to a query made after the step under test.
 */
static void test_planes_event(void)
{
    QTestState *qts = qtest_init(PLANES_ARGS "--preconfig "
                                 "-machine q35,planes=2");
    GList *events = NULL;
    QDict *resp, *ev, *data;

    resp = qmp_collect(qts, &events, "{ 'execute': 'x-exit-preconfig' }");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    qmp_wait_event(qts, &events, "PLANE_STATE_CHANGED", NULL, NULL);
    resp = qmp_collect(qts, &events, "{ 'execute': 'query-planes' }");
    assert_planes_unconfigured(resp, 2);
    qobject_unref(resp);
    if (qmp_count_events(events, "PLANE_STATE_CHANGED") != 1) {
        qmp_log_events(events);
    }
    g_assert_cmpuint(qmp_count_events(events, "PLANE_STATE_CHANGED"), ==, 1);
    ev = qmp_wait_event(qts, &events, "PLANE_STATE_CHANGED", NULL, NULL);
    data = qdict_get_qdict(ev, "data");
    g_assert_cmpint(qdict_get_int(data, "plane"), ==, 0);
    g_assert_cmpstr(qdict_get_str(data, "qom-path"), ==,
                    "/machine/plane-set/plane[0]");
    g_assert_cmpstr(qdict_get_str(data, "old"), ==, "created");
    g_assert_cmpstr(qdict_get_str(data, "new"), ==, "running");
    qmp_free_events(&events);

    /*
     * A system reset leaves never-configured planes as they are.  The
     * planes reset before RESET is sent, and the rate limit cannot hold
     * the first event of a wrong transition here (no plane has sent one
     * into any state but plane 0's "running", which it is in): anything
     * the reset sends comes before the answer to a query made after
     * RESET.
     */
    resp = qmp_collect(qts, &events, "{ 'execute': 'system_reset' }");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    qmp_wait_event(qts, &events, "RESET", NULL, NULL);
    resp = qmp_collect(qts, &events, "{ 'execute': 'query-planes' }");
    assert_planes_unconfigured(resp, 2);
    qobject_unref(resp);
    if (qmp_count_events(events, "PLANE_STATE_CHANGED")) {
        qmp_log_events(events);
    }
    g_assert_cmpuint(qmp_count_events(events, "PLANE_STATE_CHANGED"), ==, 0);
    g_assert_cmpuint(qmp_count_events(events, "RESET"), ==, 1);
    qmp_free_events(&events);
    qtest_quit(qts);
}

/*
 * Planes travel in the stream (planes-migration-test has the guests): a
 * planes=2 VM without a region outside guest RAM has no blocker.
 */
static void test_planes_migration_allowed(void)
{
    QTestState *qts = start_planes_vm(2);
    g_autoptr(QDict) resp = qtest_qmp(qts, "{ 'execute': 'migrate', "
                                      "'arguments': { 'uri': "
                                      "'exec:cat >/dev/null' } }");
    g_autofree char *status = NULL;

    g_assert(qdict_haskey(resp, "return"));
    for (int i = 0; i < 6000; i++) {
        g_autoptr(QDict) info = qtest_qmp(qts, "{ 'execute': "
                                          "'query-migrate' }");

        g_free(status);
        status = g_strdup(qdict_get_try_str(qdict_get_qdict(info, "return"),
                                            "status") ?: "none");
        if (!strcmp(status, "completed") || !strcmp(status, "failed")) {
            break;
        }
        g_usleep(10 * 1000);
    }
    g_assert_cmpstr(status, ==, "completed");
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    static const unsigned int plane_counts[] = { 1, 2, 4 };

    g_test_init(&argc, &argv, NULL);

    for (size_t i = 0; i < ARRAY_SIZE(planes_error_cases); i++) {
        g_autofree char *name = g_strdup_printf("/planes/property/bad/%zu", i);

        qtest_add_data_func(name, &planes_error_cases[i],
                            test_planes_bad_value);
    }
    qtest_add_func("/planes/property/help", test_planes_help);
    qtest_add_func("/planes/property/introspection",
                   test_planes_introspection);
    qtest_add_func("/planes/machine-none", test_planes_machine_none);
    qtest_add_func("/planes/devices/hotplug-stays-plane-0",
                   test_planes_hotplug_stays_plane0);
    for (size_t i = 0; i < ARRAY_SIZE(plane_counts); i++) {
        unsigned int n = plane_counts[i];
        g_autofree char *qom = g_strdup_printf("/planes/%u/qom", n);
        g_autofree char *query = g_strdup_printf("/planes/%u/query", n);
        g_autofree char *hmp = g_strdup_printf("/planes/%u/hmp", n);

        qtest_add_data_func(qom, GUINT_TO_POINTER(n), test_planes_qom);
        qtest_add_data_func(query, GUINT_TO_POINTER(n), test_planes_query);
        qtest_add_data_func(hmp, GUINT_TO_POINTER(n), test_planes_hmp);
    }
    qtest_add_func("/planes/cpus-unchanged", test_planes_cpus_unchanged);
    qtest_add_func("/planes/cpu-hotplug", test_planes_cpu_hotplug);
    qtest_add_func("/planes/qom-alias", test_planes_qom_alias);
    qtest_add_func("/planes/event", test_planes_event);
    qtest_add_func("/planes/migration-allowed",
                   test_planes_migration_allowed);
    return g_test_run();
}
