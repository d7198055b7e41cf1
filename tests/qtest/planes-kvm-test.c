/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes with KVM.  On this host's KVM: the refusal on kernels without
 * KVM_CAP_PLANES, the split-irqchip rule and stock KVM with planes=1 (they
 * skip, saying why, where KVM itself is missing).  On any host: the
 * backend against tests/planes/kvm-model, a model of the planes kernel's
 * UAPI rules preloaded into QEMU in place of /dev/kvm, which logs every
 * ioctl the real kernel would refuse (a check of QEMU's side of the
 * contract, not of a CPU or a real planes kernel).
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "planes-kvm-host.h"
#include "planes-qmp-events.h"

#define GUEST_DEFAULT "tests/planes-guests/plane0.elf"
#define KVM_MODEL_DEFAULT "tests/planes-kvm-model/kvm-model.so"

static int run_qemu(const char *args, char **out, char **err)
{
    const char *bin = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *cmd = g_strdup_printf("%s %s", bin, args);
    g_auto(GStrv) argv = NULL;
    int status;

    g_assert(g_shell_parse_argv(cmd, NULL, &argv, NULL));
    g_assert(g_spawn_sync(NULL, argv, NULL, 0, NULL, NULL, out, err,
                          &status, NULL));
    g_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static bool skip_without_kvm(void)
{
    const char *why = NULL;

    if (host_kvm_planes(&why) < 0) {
        g_test_skip(why);
        return true;
    }
    return false;
}

/* planes > 1 on a kernel without planes: one line, exit code 1. */
static void test_kvm_refusal(void)
{
    g_autofree char *out = NULL, *err = NULL;
    const char *why = NULL;
    int cap = host_kvm_planes(&why);

    if (cap < 0) {
        g_test_skip(why);
        return;
    }
    if (cap > 0) {
        g_test_skip("this host's KVM has KVM_CAP_PLANES: no refusal to see");
        return;
    }
    g_assert_cmpint(run_qemu("-accel kvm -machine q35,planes=2 -nodefaults "
                             "-display none", &out, &err), ==, 1);
    g_assert_cmpstr(err, ==, "qemu-system-x86_64: -machine planes=2: this "
                    "host's KVM does not support planes (KVM_CAP_PLANES is "
                    "0); use -accel tcg, or a kernel with VM planes\n");
}

/* The planes series needs the split irqchip; on or off is refused. */
static void test_kvm_irqchip(const void *opaque)
{
    const char *irqchip = opaque;
    g_autofree char *args = g_strdup_printf("-accel kvm,kernel-irqchip=%s "
                                            "-machine q35,planes=2 "
                                            "-nodefaults -display none",
                                            irqchip);
    g_autofree char *want = g_strdup_printf("qemu-system-x86_64: -machine "
                                            "planes=2: VM planes need "
                                            "kernel-irqchip=split (the "
                                            "default with planes > 1), not "
                                            "kernel-irqchip=%s\n", irqchip);
    g_autofree char *out = NULL, *err = NULL;

    if (skip_without_kvm()) {
        return;
    }
    g_assert_cmpint(run_qemu(args, &out, &err), ==, 1);
    g_assert_cmpstr(err, ==, want);
}

/*
 * planes=1 is stock KVM: the plane-0 test guest boots to its serial
 * output (test=hello makes no hypercall: this machine's KVM never returns
 * from one).
 */
static void test_kvm_planes1_boots(void)
{
    const char *guest = g_getenv("PLANES_GUEST") ?: GUEST_DEFAULT;
    g_autofree char *args = g_strdup_printf(
        "-accel kvm -machine q35 -m 256M -nodefaults -display none "
        "-no-reboot -serial stdio -device isa-debug-exit,iobase=0xf4,"
        "iosize=0x04 -kernel %s -append 'test=hello'", guest);
    g_autofree char *out = NULL, *err = NULL;

    if (skip_without_kvm()) {
        return;
    }
    g_assert(g_file_test(guest, G_FILE_TEST_EXISTS));
    g_assert_cmpint(run_qemu(args, &out, &err), ==, 1);  /* guest passed */
    g_assert(strstr(out, "P0: booting, cmdline 'test=hello'"));
    g_assert(strstr(out, "P0: hello from plane 0, no hypercalls\r\n"));
    g_assert(strstr(out, "EXIT 0"));
}

/*
 * The model's environment for the next QEMU started: kernel model
 * @kernel, plane 0's scripts for vCPUs 0 and 1 (see model_step() in the
 * model).  Returns the log file, empty.
 */
static char *model_setup(const char *kernel, const char *script0,
                         const char *script1)
{
    const char *lib = g_getenv("PLANES_KVM_MODEL") ?: KVM_MODEL_DEFAULT;
    g_autofree char *abs = g_canonicalize_filename(lib, NULL);
    char *log = NULL;
    int fd = g_file_open_tmp("kvm-model-XXXXXX.log", &log, NULL);

    g_assert(g_file_test(abs, G_FILE_TEST_EXISTS));
    g_assert(fd >= 0);
    close(fd);
    g_setenv("LD_PRELOAD", abs, true);
    g_setenv("KVM_MODEL_LOG", log, true);
    g_setenv("KVM_MODEL_KERNEL", kernel, true);
    g_setenv("KVM_MODEL_SCRIPT0", script0 ?: "", true);
    g_setenv("KVM_MODEL_SCRIPT1", script1 ?: "", true);
    return log;
}

/* After QEMU started: the test's own children run without the model. */
static void model_unset(void)
{
    g_unsetenv("LD_PRELOAD");
}

static char *model_log(const char *log)
{
    char *text = NULL;

    g_assert(g_file_get_contents(log, &text, NULL, NULL));
    return text;
}

/* The model's log into the test's, a line each (for failures). */
static void model_log_print(const char *text)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

    for (char **l = lines; *l; l++) {
        g_test_message("model: %s", *l);
    }
}

/* Waits, bounded, for @needle in the model's log; returns the log. */
static char *model_wait_log(const char *log, const char *needle)
{
    gint64 end = g_get_monotonic_time() + 60 * G_TIME_SPAN_SECOND;

    for (;;) {
        char *text = model_log(log);

        if (strstr(text, needle)) {
            return text;
        }
        if (g_get_monotonic_time() > end) {
            model_log_print(text);
            g_assert_not_reached();
        }
        g_free(text);
        g_usleep(10 * 1000);
    }
}

/* @first comes before @then in @text, and both are there. */
static void assert_in_order(const char *text, const char *first,
                            const char *then)
{
    const char *a = strstr(text, first);
    const char *b = a ? strstr(a + strlen(first), then) : NULL;

    if (!a || !b) {
        model_log_print(text);
    }
    g_assert_nonnull(a);
    g_assert_nonnull(b);
}

/* The model saw nothing the kernel would refuse. */
static void assert_no_violation(const char *text)
{
    if (strstr(text, "VIOLATION")) {
        model_log_print(text);
    }
    g_assert_null(strstr(text, "VIOLATION"));
    g_assert_nonnull(strstr(text, " violations=0\n"));
}

static bool plane_vcpu_match(QDict *ev, const void *opaque)
{
    QDict *data = qdict_get_qdict(ev, "data");

    return qdict_get_int(data, "plane") == 0 &&
           qdict_get_int(data, "cpu-index") == 0;
}

static bool shutdown_match(QDict *ev, const void *reason)
{
    return !strcmp(qdict_get_str(qdict_get_qdict(ev, "data"), "reason"),
                   reason);
}

/* Waits, bounded, until query-status says @status. */
static void wait_status(QTestState *qts, GList **events, const char *status)
{
    gint64 end = g_get_monotonic_time() + 60 * G_TIME_SPAN_SECOND;

    for (;;) {
        g_autoptr(QDict) resp = qmp_collect(qts, events,
                                            "{ 'execute': 'query-status' }");
        const char *now = qdict_get_str(qdict_get_qdict(resp, "return"),
                                        "status");

        if (!strcmp(now, status)) {
            return;
        }
        if (g_get_monotonic_time() > end) {
            g_test_message("status is '%s', not '%s'", now, status);
            g_assert_not_reached();
        }
        g_usleep(10 * 1000);
    }
}

static QDict *query_plane(QTestState *qts, GList **events, int id)
{
    QDict *resp = qmp_collect(qts, events,
                              "{ 'execute': 'query-planes' }");
    QList *planes = qdict_get_qlist(resp, "return");
    QDict *plane = qobject_to(QDict, qlist_peek(planes));

    for (int i = 0; i < id; i++) {
        QObject *o = qlist_pop(planes);

        qobject_unref(o);
        plane = qobject_to(QDict, qlist_peek(planes));
    }
    qobject_ref(plane);
    qobject_unref(resp);
    return plane;
}

static int64_t cpu0_thread_id(QTestState *qts, GList **events)
{
    QDict *resp = qmp_collect(qts, events,
                              "{ 'execute': 'query-cpus-fast' }");
    QDict *cpu0 = qobject_to(QDict,
                             qlist_peek(qdict_get_qlist(resp, "return")));
    int64_t tid = qdict_get_int(cpu0, "thread-id");

    qobject_unref(resp);
    return tid;
}

/* The thread the model saw make vCPU @id of plane @plane, or -1. */
static int64_t model_vcpu_tid(const char *text, int plane, int id)
{
    g_autofree char *key = g_strdup_printf("vcpu plane=%d id=%d fd=",
                                           plane, id);
    const char *line = strstr(text, key);
    const char *tid = line ? strstr(line, " tid=") : NULL;

    return tid ? g_ascii_strtoll(tid + strlen(" tid="), NULL, 10) : -1;
}

/*
 * The seed kernel's model, the whole way: a VTL call before ACTIVATE, and
 * CONFIG and ACTIVATE, exit to QEMU and get the dispatcher's answers;
 * ACTIVATE makes plane 1's vCPU on vCPU 0's thread and loads the boot
 * state, which the model checks when it "enters" plane 1 at the next VTL
 * call; a call from vCPU 1 (no plane-1 vCPU there) gets -95; stop and
 * cont; a memory fault is a plane-violation stop; a reset after ACTIVATE
 * powers the VM off.
 */
static void test_model_seed(void)
{
    g_autofree char *log = model_setup("seed",
                                       "vtlcall,config,activate,vtlcall,"
                                       "await-go,fault",
                                       "await-plane1,vtlcall");
    g_autofree char *go = g_strconcat(log, ".go", NULL);
    g_autofree char *text = NULL;
    g_autofree char *hmp = NULL;
    GList *events = NULL;
    QTestState *qts;
    QDict *plane, *resp, *ev, *vcpu0;

    g_setenv("KVM_MODEL_GO", go, true);
    qts = qtest_init("-accel kvm -machine q35,planes=2 -smp 2 -m 512M "
                     "-nodefaults");
    model_unset();
    g_free(model_wait_log(log, "vcpu 0 hc 15 handled in the kernel"));
    g_free(model_wait_log(log, "vcpu 1 hc 15 ret"));

    plane = query_plane(qts, &events, 1);
    g_assert_cmpstr(qdict_get_str(plane, "state"), ==, "active");
    g_assert_cmpstr(qdict_get_str(plane, "switched-by"), ==, "host-kernel");
    g_assert_cmphex(qdict_get_int(plane, "region-base"), ==, 0x10000000);
    g_assert_cmphex(qdict_get_int(plane, "region-size"), ==, 0x4000000);
    g_assert_cmphex(qdict_get_int(plane, "entry-point"), ==, 0x10001000);
    vcpu0 = qobject_to(QDict, qlist_peek(qdict_get_qlist(plane, "vcpus")));
    g_assert_false(qdict_get_bool(vcpu0, "current"));
    /* plane 1 runs on vCPU 0's own thread, inside its KVM_RUN */
    g_assert_cmpint(qdict_get_int(vcpu0, "thread-id"), ==,
                    cpu0_thread_id(qts, &events));
    qobject_unref(plane);
    hmp = qtest_hmp(qts, "info planes");
    g_assert_nonnull(strstr(hmp, "The host kernel switches planes"));

    /* stopped, plane 0 goes nowhere; after cont it runs into the fault */
    resp = qmp_collect(qts, &events, "{ 'execute': 'stop' }");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    qmp_wait_event(qts, &events, "STOP", NULL, NULL);
    g_assert(g_file_set_contents(go, "", 0, NULL));
    resp = qmp_collect(qts, &events, "{ 'execute': 'query-status' }");
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(resp, "return"),
                                  "status"), ==, "paused");
    qobject_unref(resp);
    text = model_log(log);
    g_assert_null(strstr(text, "vcpu 0 step fault"));
    g_clear_pointer(&text, g_free);
    resp = qmp_collect(qts, &events, "{ 'execute': 'cont' }");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    ev = qmp_wait_event(qts, &events, "PLANE_MEMORY_VIOLATION",
                        plane_vcpu_match, NULL);
    g_assert_cmphex(qdict_get_int(qdict_get_qdict(ev, "data"), "gpa"), ==,
                    0x10000000);
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(ev, "data"), "access"),
                    ==, "unknown");
    g_assert_cmpint(qmp_count_events(events, "RESUME"), ==, 1);
    wait_status(qts, &events, "internal-error");
    g_assert_cmpint(qmp_count_events(events, "STOP"), ==, 2);
    plane = query_plane(qts, &events, 0);
    g_assert_cmpuint(qdict_get_int(plane, "memory-violations"), ==, 1);
    qobject_unref(plane);

    /* the kernel keeps plane 1 through a reset: the VM powers off */
    resp = qmp_collect(qts, &events, "{ 'execute': 'system_reset' }");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    qmp_free_events(&events);
    /* QEMU is on its way out: read, but send nothing more */
    ev = qtest_qmp_eventwait_ref(qts, "SHUTDOWN");
    g_assert(shutdown_match(ev, "host-error"));
    qobject_unref(ev);
    qtest_wait_qemu(qts);
    qtest_quit(qts);

    text = model_log(log);
    assert_in_order(text, "vcpu 0 hc 15 ret -95\n", "vcpu 0 hc 13 ret 0\n");
    assert_in_order(text, "vcpu 0 hc 13 ret 0\n",
                    "vcpu plane=1 id=0 fd=");
    assert_in_order(text, "vcpu plane=1 id=0 fd=", "vcpu 0 hc 14 ret 0\n");
    assert_in_order(text, "vcpu 0 hc 14 ret 0\n", "plane1 enter vcpu=0 ok ");
    /*
     * vCPU 1 calls once ACTIVATE made plane 1's state on vCPU 0; the log
     * line of ACTIVATE's return comes when vCPU 0 re-enters, which races
     * with vCPU 1's call: order the call after the state's creation.
     */
    assert_in_order(text, "vcpu plane=1 id=0 fd=", "vcpu 1 step vtlcall\n");
    g_assert_nonnull(strstr(text, "vcpu 1 hc 15 ret -95\n"));
    /* the hypercalls the kernel may pass on, and only those */
    g_assert_nonnull(strstr(text, "exit-hypercalls 0xe000\n"));
    g_assert_null(strstr(text, "vcpu plane=1 id=1"));
    assert_no_violation(text);
    g_unsetenv("KVM_MODEL_GO");
    unlink(go);
    unlink(log);
}

/*
 * A reset before ACTIVATE is an ordinary one: plane 0 may CONFIG again
 * from scratch; an isa-debug-exit ends QEMU as always.
 */
static void test_model_seed_reset(void)
{
    g_autofree char *log = model_setup("seed", "config,reset,config,"
                                       "activate,exit", NULL);
    g_autofree char *out = NULL, *err = NULL, *text = NULL;
    int rc = run_qemu("-accel kvm -machine q35,planes=2 -m 512M -nodefaults "
                      "-display none -device isa-debug-exit,iobase=0xf4,"
                      "iosize=0x04", &out, &err);

    model_unset();
    text = model_log(log);
    g_assert_cmpint(rc, ==, 1);     /* isa-debug-exit with value 0 */
    assert_in_order(text, "vcpu 0 hc 13 ret 0\n", "vcpu 0 reset 1\n");
    assert_in_order(text, "vcpu 0 reset 1\n", "vcpu 0 hc 13 ret 0\n");
    assert_in_order(text, "vcpu 0 reset 1\n", "vcpu 0 hc 14 ret 0\n");
    assert_no_violation(text);
    unlink(log);
}

/* One line and exit code 1 before any vCPU runs, for @kernel. */
static void model_refusal(const char *kernel, const char *args,
                          const char *want)
{
    g_autofree char *log = model_setup(kernel, "exit", NULL);
    g_autofree char *out = NULL, *err = NULL, *text = NULL;
    int rc = run_qemu(args, &out, &err);

    model_unset();
    text = model_log(log);
    g_assert_cmpstr(err, ==, want);
    g_assert_cmpint(rc, ==, 1);
    g_assert_null(strstr(text, "vcpu 0 step"));
    unlink(log);
}

static void test_model_rfc_refused(void)
{
    model_refusal("rfc", "-accel kvm -machine q35,planes=2 -nodefaults "
                  "-display none",
                  "qemu-system-x86_64: -machine planes=2: this host's KVM "
                  "leaves plane switching to userspace "
                  "(KVM_CREATE_VCPU_PLANE on plane fds, the RFC family's "
                  "model); this QEMU drives only kernels that switch planes "
                  "themselves (the VBS-on-KVM series)\n");
}

/* A kernel without planes, on any host: today's refusal, to the byte. */
static void test_model_stock_refused(void)
{
    model_refusal("stock", "-accel kvm -machine q35,planes=2 -nodefaults "
                  "-display none",
                  "qemu-system-x86_64: -machine planes=2: this host's KVM "
                  "does not support planes (KVM_CAP_PLANES is 0); use "
                  "-accel tcg, or a kernel with VM planes\n");
}

/* What the kernel-switched model cannot honour is refused up front. */
static void test_model_device_refused(void)
{
    model_refusal("seed", "-accel kvm -machine q35,planes=2 -nodefaults "
                  "-display none -chardev null,id=c -device isa-serial,"
                  "chardev=c,iobase=0x2f8,irq=3,plane=1",
                  "qemu-system-x86_64: -device isa-serial,chardev=c,"
                  "iobase=0x2f8,irq=3,plane=1: plane=1: the host kernel "
                  "switches planes under this accelerator and does not say "
                  "which plane an I/O exit comes from, so devices stay "
                  "plane 0's; use -accel tcg for devices of plane 1\n");
}

static void test_model_fault_policy_refused(void)
{
    model_refusal("seed", "-accel kvm -machine q35,planes=2,"
                  "plane-violation=fault -nodefaults -display none",
                  "qemu-system-x86_64: -machine plane-violation=fault: under "
                  "KVM the kernel reports a violation without the linear "
                  "address a #PF needs; use plane-violation=stop, or -accel "
                  "tcg\n");
}

/*
 * Nested virtualization on a host that offers it: -cpu ...,+svm is
 * refused for the board's CPUs as under TCG (plane 0's VMRUN would have
 * the kernel write its host-save area at an address plane 0 picks, past
 * plane 1's seal), and a CPU plugged with vmx=on before it is made.
 */
static void test_model_nested_refused(void)
{
    g_autofree char *log = NULL;
    g_autoptr(QDict) resp = NULL;
    QTestState *qts;

    g_setenv("KVM_MODEL_NESTED", "1", true);
    /* accepted, the script's exit would end it */
    model_refusal("seed", "-accel kvm -machine q35,planes=2 -cpu qemu64,"
                  "+svm -nodefaults -display none -device isa-debug-exit,"
                  "iobase=0xf4,iosize=0x04",
                  "qemu-system-x86_64: -machine planes: nested "
                  "virtualization (svm) is not supported with planes; "
                  "drop it from -cpu\n");
    log = model_setup("seed", NULL, NULL);
    qts = qtest_init("-accel kvm -machine q35,planes=2 -cpu qemu64 "
                     "-smp 1,maxcpus=2 -nodefaults");
    model_unset();
    resp = qtest_qmp(qts, "{ 'execute': 'device_add', 'arguments': "
                     "{ 'driver': 'qemu64-x86_64-cpu', 'id': 'cpu1', "
                     "'socket-id': 0, 'core-id': 1, 'thread-id': 0, "
                     "'vmx': true } }");
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(resp, "error"), "desc"),
                    ==, "-machine planes: nested virtualization (vmx) is "
                    "not supported with planes; drop it from -cpu");
    qtest_quit(qts);
    g_unsetenv("KVM_MODEL_NESTED");
    unlink(log);
}

/*
 * ACTIVATE from vCPU 1 (the series' guest activates from an unpinned
 * initcall): plane 1 gets its vCPU on index 0, the kernel's boot vCPU,
 * made on index 0's thread, and the VTL calls of vCPU 0 (where the
 * series' guest pins them) enter it in the kernel.  vCPU 1 has no
 * plane-1 vCPU: its call reaches QEMU, which refuses it.
 */
static void test_model_activate_from_vcpu1(void)
{
    g_autofree char *log = model_setup("seed", "await-plane1,vtlcall",
                                       "config,activate,await-go,vtlcall");
    g_autofree char *go = g_strconcat(log, ".go", NULL);
    g_autofree char *text = NULL;
    GList *events = NULL;
    QTestState *qts;
    int64_t cpu0_tid;

    g_setenv("KVM_MODEL_GO", go, true);
    qts = qtest_init("-accel kvm -machine q35,planes=2 -smp 2 -m 512M "
                     "-nodefaults");
    model_unset();
    cpu0_tid = cpu0_thread_id(qts, &events);
    text = model_wait_log(log, "vcpu 0 hc 15 ");
    if (!strstr(text, "vcpu 0 hc 15 handled in the kernel\n")) {
        model_log_print(text);
    }
    g_assert_null(strstr(text, "vcpu 0 hc 15 ret"));
    g_assert_nonnull(strstr(text, "vcpu 0 hc 15 handled in the kernel\n"));
    g_clear_pointer(&text, g_free);
    g_assert(g_file_set_contents(go, "", 0, NULL));
    g_free(model_wait_log(log, "vcpu 1 hc 15 ret"));
    qmp_free_events(&events);
    qtest_quit(qts);

    text = model_log(log);
    assert_in_order(text, "vcpu 1 step activate\n", "vcpu plane=1 id=0 ");
    assert_in_order(text, "vcpu plane=1 id=0 ", "plane1 enter vcpu=0 ok ");
    g_assert_nonnull(strstr(text, "vcpu 1 hc 14 ret 0\n"));
    /* made on vCPU 0's thread, though vCPU 1 called ACTIVATE */
    g_assert_cmpint(model_vcpu_tid(text, 1, 0), ==, cpu0_tid);
    assert_in_order(text, "vcpu 1 hc 14 ret 0\n", "vcpu 1 hc 15 ret -95\n");
    g_assert_null(strstr(text, "vcpu plane=1 id=1"));
    assert_no_violation(text);
    g_unsetenv("KVM_MODEL_GO");
    unlink(go);
    unlink(log);
}

/* How often @needle occurs in @text. */
static unsigned int count_in(const char *text, const char *needle)
{
    unsigned int n = 0;

    for (const char *at = strstr(text, needle); at;
         at = strstr(at + strlen(needle), needle)) {
        n++;
    }
    return n;
}

/*
 * device_add of the first free slot of query-hotpluggable-cpus, with its
 * own properties, as the CPU @id.
 */
static void plug_free_cpu_slot(QTestState *qts, GList **events,
                               const char *id)
{
    QDict *resp = qmp_collect(qts, events,
                              "{ 'execute': 'query-hotpluggable-cpus' }");
    QDict *args = NULL;
    QListEntry *e;

    QLIST_FOREACH_ENTRY(qdict_get_qlist(resp, "return"), e) {
        QDict *slot = qobject_to(QDict, qlist_entry_obj(e));

        if (!args && !qdict_haskey(slot, "qom-path")) {
            args = qdict_clone_shallow(qdict_get_qdict(slot, "props"));
            qdict_put_str(args, "driver", qdict_get_str(slot, "type"));
            qdict_put_str(args, "id", id);
        }
    }
    qobject_unref(resp);
    g_assert_nonnull(args);
    resp = qmp_collect(qts, events, "{ 'execute': 'device_add', "
                       "'arguments': %p }", args);
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
}

/*
 * A CPU plugged after plane 1 is active (-smp 1,maxcpus=2, device_add of
 * the free slot) follows the rule of every index but plane 1's home: no
 * plane-1 vCPU is made for it (the model sees no KVM_CREATE_VCPU on the
 * plane fd for id 1), its VTL call reaches QEMU and gets -95, vCPU 0's
 * calls still enter plane 1 in the kernel, and query-planes lists it.
 */
static void test_model_cpu_plugged(void)
{
    g_autofree char *log = model_setup("seed", "config,activate,vtlcall,"
                                       "await-go,vtlcall", "vtlcall");
    g_autofree char *go = g_strconcat(log, ".go", NULL);
    g_autofree char *text = NULL;
    GList *events = NULL;
    QTestState *qts;
    QDict *plane;
    QList *vcpus;

    g_setenv("KVM_MODEL_GO", go, true);
    qts = qtest_init("-accel kvm -machine q35,planes=2 -smp 1,maxcpus=2 "
                     "-m 512M -nodefaults");
    model_unset();
    g_free(model_wait_log(log, "vcpu 0 hc 15 handled in the kernel\n"));
    plug_free_cpu_slot(qts, &events, "cpu1");
    g_free(model_wait_log(log, "vcpu 1 hc 15 ret"));
    g_assert(g_file_set_contents(go, "", 0, NULL));
    text = model_wait_log(log, "vcpu 0 step vtlcall\n");
    while (count_in(text, "vcpu 0 hc 15 handled in the kernel\n") < 2) {
        g_free(text);
        g_usleep(10 * 1000);
        text = model_log(log);
    }
    g_clear_pointer(&text, g_free);

    plane = query_plane(qts, &events, 1);
    g_assert_cmpstr(qdict_get_str(plane, "state"), ==, "active");
    vcpus = qdict_get_qlist(plane, "vcpus");
    g_assert_cmpint(qlist_size(vcpus), ==, 2);
    qobject_unref(qlist_pop(vcpus));
    g_assert_cmpint(qdict_get_int(qobject_to(QDict, qlist_peek(vcpus)),
                                  "cpu-index"), ==, 1);
    qobject_unref(plane);
    qmp_free_events(&events);
    qtest_quit(qts);

    text = model_log(log);
    assert_in_order(text, "vcpu 0 hc 14 ret 0\n", "vcpu plane=0 id=1 ");
    assert_in_order(text, "vcpu plane=0 id=1 ", "vcpu 1 hc 15 ret -95\n");
    g_assert_cmpuint(count_in(text, "vcpu plane=1 "), ==, 1);
    g_assert_null(strstr(text, "vcpu plane=1 id=1"));
    g_assert_cmpuint(count_in(text, "vcpu 0 hc 15 handled in the "
                              "kernel\n"), ==, 2);
    assert_no_violation(text);
    g_unsetenv("KVM_MODEL_GO");
    unlink(go);
    unlink(log);
}

/*
 * QEMU with "-machine @machine" and the isa-debug-exit that plane 0's
 * script "exit" ends it with; returns the model's log.
 */
static char *model_run_to_exit(const char *machine)
{
    g_autofree char *log = model_setup("seed", "exit", NULL);
    g_autofree char *args = g_strdup_printf(
        "-accel kvm -machine %s -m 256M -nodefaults -display none -device "
        "isa-debug-exit,iobase=0xf4,iosize=0x04", machine);
    g_autofree char *out = NULL, *err = NULL;
    int rc = run_qemu(args, &out, &err);
    char *text;

    model_unset();
    text = model_log(log);
    g_assert_cmpint(rc, ==, 1);     /* isa-debug-exit with value 0 */
    g_assert_nonnull(strstr(text, "vcpu 0 step exit\n"));
    unlink(log);
    return text;
}

/*
 * -object plane-launch under KVM: at reset, before plane 0 runs, QEMU
 * hands the launched plane's boot state to the host (host_activate); the
 * kernel enters it at plane 0's first VTL call; CONFIG and ACTIVATE get
 * -1 from QEMU.
 */
static void test_model_launch(void)
{
    g_autofree char *log = model_setup("seed", "config,activate,vtlcall,"
                                       "exit", NULL);
    g_autofree char *out = NULL, *err = NULL, *text = NULL;
    int rc;

    g_setenv("KVM_MODEL_ENTRY", "0x10000000", true);
    rc = run_qemu("-accel kvm -machine q35,planes=2 -m 512M -nodefaults "
                  "-display none -device isa-debug-exit,iobase=0xf4,"
                  "iosize=0x04 -object plane-launch,id=p1,kernel="
                  "tests/planes-guests/plane1.bin,base=0x10000000,"
                  "size=0x4000000", &out, &err);
    model_unset();
    g_unsetenv("KVM_MODEL_ENTRY");
    text = model_log(log);
    g_assert_cmpint(rc, ==, 1);     /* isa-debug-exit with value 0 */
    assert_in_order(text, "vcpu plane=1 id=0 fd=", "vcpu 0 step config\n");
    assert_in_order(text, "vcpu 0 hc 13 ret -1\n", "vcpu 0 hc 14 ret -1\n");
    assert_in_order(text, "vcpu 0 hc 14 ret -1\n",
                    "plane1 enter vcpu=0 ok ");
    assert_no_violation(text);
    unlink(log);
}

/*
 * The planes are made once the vCPUs exist and before any runs, as the
 * series' VMM makes them; the irqchip was split before all that.
 */
static void test_model_planes_after_vcpus(void)
{
    g_autofree char *text = model_run_to_exit("q35,planes=2 -smp 2");

    assert_in_order(text, "irqchip split\n", "vcpu plane=0 id=0 ");
    assert_in_order(text, "vcpu plane=0 id=1 ", "plane 1 fd=");
    assert_in_order(text, "plane 1 fd=", "vcpu 0 step exit\n");
    assert_no_violation(text);
}

/*
 * A memory fault outside every range a plane's attributes deny is not a
 * plane violation: stock QEMU's handling (a RAM page that is not
 * guest_memfd cannot be converted: the VM stops), no report.
 */
static void test_model_fault_outside_planes(void)
{
    g_autofree char *log = model_setup("seed", "config,activate,vtlcall,"
                                       "fault-ram", NULL);
    g_autofree char *text = NULL;
    GList *events = NULL;
    QTestState *qts;
    QDict *plane;

    qts = qtest_init("-accel kvm -machine q35,planes=2 -m 512M -nodefaults");
    model_unset();
    g_free(model_wait_log(log, "vcpu 0 step fault-ram"));
    wait_status(qts, &events, "internal-error");
    g_assert_cmpint(qmp_count_events(events, "PLANE_MEMORY_VIOLATION"), ==,
                    0);
    plane = query_plane(qts, &events, 0);
    g_assert_cmpuint(qdict_get_int(plane, "memory-violations"), ==, 0);
    qobject_unref(plane);
    qmp_free_events(&events);
    qtest_quit(qts);
    text = model_log(log);
    assert_no_violation(text);
    unlink(log);
}

/*
 * What plane 1 does inside the kernel's switch reaches QEMU on plane 0's
 * vCPU fd: its port I/O and MMIO go to the machine's devices (plane 0's,
 * all of them under KVM), and its triple fault is a shutdown exit, which
 * QEMU turns into a reset, and which powers the VM off as any reset
 * after ACTIVATE does (the kernel keeps plane 1).
 */
static void test_model_plane1_exits(void)
{
    g_autofree char *log = model_setup("seed", "await-go,config,activate,"
                                       "vtlcall,p1-out:0x3f8:0x4b,"
                                       "p1-in:0x3fd,"
                                       "p1-mmio-write:0xfec00000:1,"
                                       "p1-mmio-read:0xfec00010,vtlcall,"
                                       "p1-shutdown", NULL);
    g_autofree char *serial = g_strconcat(log, ".serial", NULL);
    g_autofree char *go = g_strconcat(log, ".go", NULL);
    g_autofree char *args = g_strdup_printf(
        "-accel kvm -machine q35,planes=2 -m 512M -nodefaults -chardev "
        "file,id=s,path=%s -device isa-serial,chardev=s", serial);
    g_autofree char *text = NULL, *out = NULL;
    QTestState *qts;
    QDict *ev;

    g_setenv("KVM_MODEL_GO", go, true);
    qts = qtest_init(args);
    model_unset();
    /* QEMU powers off at the end: QMP must be up before plane 0 runs */
    g_assert(g_file_set_contents(go, "", 0, NULL));
    text = model_wait_log(log, " violations=");
    ev = qtest_qmp_eventwait_ref(qts, "SHUTDOWN");
    g_assert(shutdown_match(ev, "host-error"));
    qobject_unref(ev);
    qtest_wait_qemu(qts);
    qtest_quit(qts);

    assert_in_order(text, "plane1 enter vcpu=0 ok ",
                    "plane1 exit vcpu=0 p1-out:0x3f8:0x4b\n");
    g_assert_nonnull(strstr(text, "plane1 io-in vcpu=0 port 0x3fd "
                            "data 0x60\n"));
    /* the I/O APIC's version register: QEMU's, version 0x20, 24 pins */
    g_assert_nonnull(strstr(text, "plane1 mmio-read vcpu=0 0xfec00010 "
                            "data 0x170020\n"));
    assert_in_order(text, "plane1 exit vcpu=0 p1-shutdown\n",
                    "vcpu 0 reset 1\n");
    assert_no_violation(text);
    g_assert(g_file_get_contents(serial, &out, NULL, NULL));
    g_assert_cmpstr(out, ==, "K");
    g_unsetenv("KVM_MODEL_GO");
    unlink(go);
    unlink(serial);
    unlink(log);
}

/*
 * KVM_CREATE_PLANE needs the split irqchip, and the kernel refuses to
 * split it once a plane exists: QEMU refuses another irqchip before it
 * asks for a plane.
 */
static void test_model_irqchip_refused(void)
{
    model_refusal("seed", "-accel kvm,kernel-irqchip=on -machine q35,"
                  "planes=2 -nodefaults -display none",
                  "qemu-system-x86_64: -machine planes=2: VM planes need "
                  "kernel-irqchip=split (the default with planes > 1), not "
                  "kernel-irqchip=on\n");
}

/* @r is -1 with errno @err, as the kernel refuses. */
#define assert_refused(r, err) do {             \
        int r_ = (r);                           \
        g_assert_cmpint(r_, ==, -1);            \
        g_assert_cmpint(errno, ==, (err));      \
    } while (0)

/*
 * In a child with the model preloaded: the model answers the ioctls
 * QEMU never issues as the planes kernel does (the functions are cited
 * in the model), so that QEMU is checked against the right rules.
 */
static void model_probe_kernel_rules(void)
{
    struct kvm_enable_cap split = {
        .cap = KVM_CAP_SPLIT_IRQCHIP, .args = { 24 },
    };
    struct kvm_memory_attributes attrs = {
        .address = 0x100000, .size = 0x1000,
        .attributes = KVM_MEMORY_ATTRIBUTE_NO_WRITE |
                      KVM_MEMORY_ATTRIBUTE_NO_EXEC,
    };
    struct kvm_irq_routing routing = { .nr = 0 };
    struct kvm_msi msi = { .address_lo = 0xfee00000, .data = 0x30 };
    struct kvm_sregs2 sregs2;
    struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };
    struct kvm_reg_list regs = { .n = 0 };
    int kvm = open("/dev/kvm", O_RDWR), vm, plane, vcpu1;

    g_assert_cmpint(ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_PLANES), ==, 1);
    vm = ioctl(kvm, KVM_CREATE_VM, 0);
    g_assert_cmpint(ioctl(vm, KVM_CHECK_EXTENSION, KVM_CAP_PLANES), ==, 1);
    assert_refused(ioctl(vm, KVM_CREATE_PLANE, 1), EINVAL);
    g_assert_cmpint(ioctl(vm, KVM_ENABLE_CAP, &split), ==, 0);
    g_assert_cmpint(ioctl(vm, KVM_CHECK_EXTENSION, KVM_CAP_PLANES), ==, 2);
    g_assert_cmphex(ioctl(vm, KVM_CHECK_EXTENSION,
                          KVM_CAP_MEMORY_ATTRIBUTES), ==, 0x30);
    g_assert_cmpint(ioctl(vm, KVM_SET_MEMORY_ATTRIBUTES, &attrs), ==, 0);
    g_assert_cmpint(ioctl(vm, KVM_CREATE_VCPU, 0), >=, 0);
    vcpu1 = ioctl(vm, KVM_CREATE_VCPU, 1);
    plane = ioctl(vm, KVM_CREATE_PLANE, 1);
    g_assert_cmpint(plane, >=, 0);
    assert_refused(ioctl(vm, KVM_CREATE_PLANE, 1), EEXIST);
    assert_refused(ioctl(vm, KVM_ENABLE_CAP, &split), EEXIST);
    assert_refused(ioctl(vm, KVM_CREATE_IRQCHIP, 0), EINVAL);
    g_assert_cmpint(ioctl(plane, KVM_CHECK_EXTENSION, KVM_CAP_PLANES), ==, 0);
    g_assert_cmphex(ioctl(plane, KVM_CHECK_EXTENSION,
                          KVM_CAP_MEMORY_ATTRIBUTES), ==, 0x30);
    g_assert_cmpint(ioctl(plane, KVM_SIGNAL_MSI, &msi), >=, 0);
    g_assert_cmpint(ioctl(plane, KVM_SET_GSI_ROUTING, &routing), ==, 0);
    /* a plane vCPU, made on the thread that made its plane-0 sibling */
    vcpu1 = ioctl(plane, KVM_CREATE_VCPU, 1);
    g_assert_cmpint(vcpu1, >=, 0);
    g_assert_cmpint(ioctl(vcpu1, KVM_GET_SREGS2, &sregs2), ==, 0);
    g_assert_cmpint(ioctl(vcpu1, KVM_SET_SREGS2, &sregs2), ==, 0);
    g_assert_cmpint(ioctl(vcpu1, KVM_GET_REG_LIST, &regs), ==, 0);
    assert_refused(ioctl(vcpu1, KVM_SET_MP_STATE, &mp), EINVAL);
    assert_refused(ioctl(vcpu1, KVM_RUN, 0), EINVAL);
}

static void test_model_kernel_rules(void)
{
    g_autofree char *log = NULL, *text = NULL;

    if (g_test_subprocess()) {
        model_probe_kernel_rules();
        return;
    }
    log = model_setup("seed", NULL, NULL);
    g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
    model_unset();
    text = model_log(log);
    if (!g_test_trap_has_passed()) {
        model_log_print(text);
    }
    g_test_trap_assert_passed();
    /* each refusal above, and only those, logged as the kernel's */
    g_assert_nonnull(strstr(text, " violations=6\n"));
    unlink(log);
}

/* planes=1 on a planes kernel is stock KVM: no plane, no exit asked for. */
static void test_model_planes1_stock(void)
{
    g_autofree char *text = model_run_to_exit("q35");

    g_assert_null(strstr(text, "plane 1 fd="));
    g_assert_null(strstr(text, "exit-hypercalls"));
    g_assert_null(strstr(text, "probe"));
    assert_no_violation(text);
}

/*
 * Under KVM the planes kernel offers no guest debugging for plane vCPUs:
 * switch stops are refused, over HMP (gdb's monitor) and QMP, in a line.
 */
static void test_model_debug_refused(void)
{
    g_autofree char *log = model_setup("seed", "exit", NULL);
    g_autofree char *hmp = NULL;
    QTestState *qts;
    QDict *resp;

    qts = qtest_init("-accel kvm -machine q35,planes=2 -m 512M -nodefaults "
                     "-S");
    model_unset();
    hmp = qtest_hmp(qts, "planes_switch_stops enter");
    g_assert_nonnull(strstr(hmp, "the kernel offers no guest debugging for "
                                 "plane vCPUs"));
    resp = qtest_qmp(qts, "{ 'execute': 'planes-switch-stops', "
                     "'arguments': { 'return': true } }");
    g_assert_nonnull(strstr(qdict_get_str(qdict_get_qdict(resp, "error"),
                                          "desc"),
                            "no guest debugging for plane vCPUs"));
    qobject_unref(resp);
    qtest_quit(qts);
    unlink(log);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/planes/kvm/model/seed", test_model_seed);
    qtest_add_func("/planes/kvm/model/seed-reset-before-activate",
                   test_model_seed_reset);
    qtest_add_func("/planes/kvm/model/rfc-refused", test_model_rfc_refused);
    qtest_add_func("/planes/kvm/model/stock-refused",
                   test_model_stock_refused);
    qtest_add_func("/planes/kvm/model/plane-device-refused",
                   test_model_device_refused);
    qtest_add_func("/planes/kvm/model/violation-fault-refused",
                   test_model_fault_policy_refused);
    qtest_add_func("/planes/kvm/model/planes1-stock",
                   test_model_planes1_stock);
    qtest_add_func("/planes/kvm/model/activate-from-vcpu1",
                   test_model_activate_from_vcpu1);
    qtest_add_func("/planes/kvm/model/cpu-plugged",
                   test_model_cpu_plugged);
    qtest_add_func("/planes/kvm/model/nested-refused",
                   test_model_nested_refused);
    qtest_add_func("/planes/kvm/model/planes-after-vcpus",
                   test_model_planes_after_vcpus);
    qtest_add_func("/planes/kvm/model/fault-outside-planes",
                   test_model_fault_outside_planes);
    qtest_add_func("/planes/kvm/model/plane1-exits",
                   test_model_plane1_exits);
    qtest_add_func("/planes/kvm/model/irqchip-on-refused",
                   test_model_irqchip_refused);
    qtest_add_func("/planes/kvm/model/kernel-rules",
                   test_model_kernel_rules);
    qtest_add_func("/planes/kvm/model/plane-launch", test_model_launch);
    qtest_add_func("/planes/kvm/model/debug-refused",
                   test_model_debug_refused);
    qtest_add_func("/planes/kvm/refused-without-cap", test_kvm_refusal);
    qtest_add_data_func("/planes/kvm/irqchip-on-refused", "on",
                        test_kvm_irqchip);
    qtest_add_data_func("/planes/kvm/irqchip-off-refused", "off",
                        test_kvm_irqchip);
    qtest_add_func("/planes/kvm/planes1-boots", test_kvm_planes1_boots);
    return g_test_run();
}
