/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes with KVM: the refusal on hosts without KVM_CAP_PLANES, the
 * split-irqchip rule and stock KVM with planes=1.  Where KVM itself is
 * missing the runtime tests skip, saying why.  The provisional UAPI
 * structure layouts are checked at build time, in planes-kvm-uapi.h.
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "planes-kvm-host.h"

#define GUEST_DEFAULT "tests/planes-guests/plane0.elf"

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

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/planes/kvm/refused-without-cap", test_kvm_refusal);
    qtest_add_data_func("/planes/kvm/irqchip-on-refused", "on",
                        test_kvm_irqchip);
    qtest_add_data_func("/planes/kvm/irqchip-off-refused", "off",
                        test_kvm_irqchip);
    qtest_add_func("/planes/kvm/planes1-boots", test_kvm_planes1_boots);
    return g_test_run();
}
