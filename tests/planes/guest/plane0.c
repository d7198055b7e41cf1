/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Plane-0 test guest: boots with PVH, configures and activates plane 1 the
 * way the seed's guest loader does, and runs the test named on its command
 * line (test=NAME).  It reports over the serial port and exits through
 * isa-debug-exit: 0 (QEMU exit status 1) when the test ran to its end.
 */

#include "guest.h"

#define EXIT_PASS 0
#define EXIT_FAIL 1

struct hvm_start_info {
    u32 magic;
    u32 version;
    u32 flags;
    u32 nr_modules;
    u64 modlist_paddr;
    u64 cmdline_paddr;
    u64 rsdp_paddr;
    u64 memmap_paddr;
    u32 memmap_entries;
} __attribute__((packed));

struct trap_frame {
    u64 r11, r10, r9, r8, rdi, rsi, rdx, rcx, rax;
    u64 vector, error, rip, cs, rflags, rsp, ss;
};

struct tss {
    u32 reserved0;
    u64 rsp0, rsp1, rsp2;
    u64 reserved1;
    u64 ist[7];
    u64 reserved2;
    u16 reserved3, iomap;
} __attribute__((packed));

extern const u8 plane1_image[], plane1_image_end[];
extern const u8 ap_trampoline[], ap_trampoline_end[];
extern u64 gdt_tss[2];
extern void user_call(void (*fn)(void), void *stack);
extern char trap0[], trap1[], trap2[], trap3[], trap4[], trap5[], trap6[],
            trap7[], trap8[], trap9[], trap10[], trap11[], trap12[], trap13[],
            trap14[], trap15[], trap16[], trap17[], trap18[], trap19[],
            trap128[], irq64[];
volatile u64 irq_count, irq_tsc;

static struct vm_plane_config cfg[4] __attribute__((aligned(4096)));
static u64 idt[256 * 2] __attribute__((aligned(16)));
static struct tss tss __attribute__((aligned(16)));
static u8 kstack[16384] __attribute__((aligned(16)));
static u8 ustack[16384] __attribute__((aligned(16)));
static const char *cmdline = "";

/* Set by a probe before an access that may fault; the trap resumes there. */
volatile u64 fixup_rip;
volatile u64 last_vector, last_error, last_cr2;

static int halt_at_exit;

/* Exits through isa-debug-exit, or with halt=1 stays up for inspection. */
static void guest_exit(int code)
{
    printf("EXIT %d\n", (s64)code);
    if (halt_at_exit && code == EXIT_PASS) {
        puts("DONE\n");
    } else {
        outb(0xf4, code);
    }
    for (;;) {
        __asm__ volatile("cli; hlt");
    }
}

void trap_handler(struct trap_frame *f)
{
    u64 cr2;

    __asm__ volatile("mov %%cr2, %0" : "=r"(cr2));
    last_vector = f->vector;
    last_error = f->error;
    last_cr2 = cr2;
    if (fixup_rip) {
        f->rip = fixup_rip;
        fixup_rip = 0;
        return;
    }
    printf("TRAP unexpected vector=%u error=0x%x rip=0x%x cr2=0x%x\n",
           f->vector, f->error, f->rip, cr2);
    guest_exit(EXIT_FAIL);
}

static void set_gate(int vec, void *handler, int dpl)
{
    u64 a = (u64)handler;

    idt[vec * 2] = (a & 0xffff) | (0x08ULL << 16) |
                   ((u64)(0x8e | dpl << 5) << 40) |
                   ((a >> 16 & 0xffff) << 48);
    idt[vec * 2 + 1] = a >> 32;
}

static void traps_init(void)
{
    static void *const handlers[] = {
        trap0, trap1, trap2, trap3, trap4, trap5, trap6, trap7, trap8, trap9,
        trap10, trap11, trap12, trap13, trap14, trap15, trap16, trap17,
        trap18, trap19,
    };
    struct { u16 limit; u64 base; } __attribute__((packed)) idtr = {
        sizeof(idt) - 1, (u64)idt,
    };
    u64 t = (u64)&tss;

    for (int i = 0; i < 20; i++) {
        set_gate(i, handlers[i], 0);
    }
    set_gate(0x80, trap128, 3);
    set_gate(0x40, irq64, 0);
    __asm__ volatile("lidt %0" : : "m"(idtr));

    tss.rsp0 = (u64)kstack + sizeof(kstack);
    tss.iomap = sizeof(tss);
    gdt_tss[0] = (sizeof(tss) - 1) | ((t & 0xffffff) << 16) |
                 (0x89ULL << 40) | ((t >> 24 & 0xff) << 56);
    gdt_tss[1] = t >> 32;
    __asm__ volatile("ltr %w0" : : "r"(0x28));
}

/* Probes: 0 if the access went through, else the trap vector + 1. */
static int try_read8(u64 addr, u8 *v)
{
    int trapped;

    __asm__ volatile("lea 1f(%%rip), %%rax\n\t"
                     "mov %%rax, fixup_rip(%%rip)\n\t"
                     "xor %0, %0\n\t"
                     "movb (%2), %b1\n\t"
                     "movq $0, fixup_rip(%%rip)\n\t"
                     "jmp 2f\n"
                     "1:\tmov $1, %0\n"
                     "2:"
                     : "=&r"(trapped), "=&q"(*v) : "r"(addr) : "rax", "memory");
    return trapped ? (int)last_vector + 1 : 0;
}

static int try_write8(u64 addr, u8 v)
{
    int trapped;

    __asm__ volatile("lea 1f(%%rip), %%rax\n\t"
                     "mov %%rax, fixup_rip(%%rip)\n\t"
                     "xor %0, %0\n\t"
                     "movb %b2, (%1)\n\t"
                     "movq $0, fixup_rip(%%rip)\n\t"
                     "jmp 2f\n"
                     "1:\tmov $1, %0\n"
                     "2:"
                     : "=&r"(trapped) : "r"(addr), "q"(v) : "rax", "memory");
    return trapped ? (int)last_vector + 1 : 0;
}

static int try_exec(u64 addr)
{
    int trapped;

    __asm__ volatile("lea 1f(%%rip), %%rax\n\t"
                     "mov %%rax, fixup_rip(%%rip)\n\t"
                     "xor %0, %0\n\t"
                     "mov %%rsp, %%r11\n\t"
                     "call *%1\n\t"
                     "movq $0, fixup_rip(%%rip)\n\t"
                     "jmp 2f\n"
                     "1:\tmov %%r11, %%rsp\n\t"
                     "mov $1, %0\n"
                     "2:"
                     : "=&r"(trapped) : "r"(addr)
                     : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
                       "r11", "memory");
    return trapped ? (int)last_vector + 1 : 0;
}

static u64 arg_u64(const char *key, u64 dflt)
{
    const char *v = cmdline_arg(cmdline, key);

    return v ? parse_u64(v) : dflt;
}

static void arg_str(const char *key, const char *dflt, char *out, size_t n)
{
    const char *v = cmdline_arg(cmdline, key);
    size_t i = 0;

    if (!v) {
        strncpy(out, dflt, n);
        return;
    }
    /* up to the next space; '+' stands for a space inside the value */
    for (; i + 1 < n && v[i] && v[i] != ' '; i++) {
        out[i] = v[i] == '+' ? ' ' : v[i];
    }
    out[i] = 0;
}

static int use_vmmcall;

static s64 hc(u64 nr, u64 a0, u64 a1)
{
    return use_vmmcall ? hypercall_vmmcall(nr, a0, a1)
                       : hypercall(nr, a0, a1, 0, 0);
}

/* Entry 1 of the config array from the command line (p1base=, ...). */
static void fill_config(void)
{
    memset(cfg, 0, sizeof(cfg));
    cfg[1].load_offset = arg_u64("p1base", 0x4000000);
    cfg[1].memory_size = arg_u64("p1size", 0x1000000);
    arg_str("p1cmd", "console=ttyS0 vtl=1", cfg[1].cmdline,
            sizeof(cfg[1].cmdline));
    strncpy(cfg[1].kernel, "plane1-monitor", sizeof(cfg[1].kernel));
    /* count=N: planes 2..N-1 get the same monitor in the next regions */
    for (u64 i = 2; i < arg_u64("count", 2) && i < 4; i++) {
        cfg[i] = cfg[1];
        cfg[i].load_offset = cfg[1].load_offset + (i - 1) * cfg[1].memory_size;
    }
}

static s64 config(u64 count)
{
    s64 r = hc(HC_CONFIG, (u64)cfg, count);

    printf("P0: CONFIG rax=%d\n", r);
    return r;
}

/* Copies the monitor into the planes' regions; fills entry_point. */
static void load_plane1(void)
{
    for (u64 i = 1; i < arg_u64("count", 2) && i < 4; i++) {
        u64 base = cfg[i].load_offset;

        memcpy((void *)base, plane1_image, plane1_image_end - plane1_image);
        cfg[i].entry_point = cmdline_arg(cmdline, "p1entryabs") ?
                             arg_u64("p1entryabs", 0) :
                             base + arg_u64("p1entry", 0);
        printf("P0: plane %u image (%u bytes) copied to 0x%x\n", i,
               (u64)(plane1_image_end - plane1_image), base);
    }
}

static s64 activate(u64 count)
{
    s64 r = hc(HC_ACTIVATE, (u64)cfg, count);

    printf("P0: ACTIVATE rax=%d\n", r);
    return r;
}

static void result(const char *name, s64 rax)
{
    printf("RESULT %s rax=%d\n", name, rax);
}

/* The VM keeps running and answers hypercalls after a refused one. */
static void alive(void)
{
    printf("ALIVE rax=%d\n", hc(HC_UNKNOWN, 0, 0));
}

/*
 * nmi=1: wait, interrupts off, for an NMI (QMP inject-nmi) before the
 * first touch of plane 1's region: the trigger of a test that has
 * something to do first (stop libvirtd, say).
 */
static void wait_for_nmi(void)
{
    if (!arg_u64("nmi", 0)) {
        return;
    }
    puts("P0: waiting for an NMI\n");
    __asm__ volatile("lea 1f(%%rip), %%rax\n\t"
                     "mov %%rax, fixup_rip(%%rip)\n"
                     "2:\thlt\n\t"
                     "jmp 2b\n"
                     "1:"
                     : : : "rax", "memory");
    printf("P0: NMI taken: vector=%u\n", last_vector);
}

static void test_boot(void)
{
    u64 base, count = arg_u64("count", 2);
    s64 trap;
    u8 v;

    fill_config();
    base = cfg[1].load_offset;
    if (config(count) != 0) {
        guest_exit(EXIT_FAIL);
    }
    /* Between CONFIG and ACTIVATE the region is plane 0's to fill. */
    load_plane1();
    if (activate(count) != 0) {
        guest_exit(EXIT_FAIL);
    }
    puts("P0: resumed after ACTIVATE\n");
    wait_for_nmi();
    /* The seal: every access faults (vector 14), nothing reaches memory. */
    trap = try_read8(base, &v) - 1;
    printf("P0: read of plane 1 region: trap=%d error=0x%x cr2=0x%x\n",
           trap, last_error, last_cr2);
    trap = try_write8(base + 0x10, 0xcc) - 1;
    printf("P0: write of plane 1 region: trap=%d error=0x%x cr2=0x%x\n",
           trap, last_error, last_cr2);
    trap = try_exec(base + 0x20) - 1;
    printf("P0: exec of plane 1 region: trap=%d error=0x%x cr2=0x%x\n",
           trap, last_error, last_cr2);
    trap = try_read8(base + cfg[1].memory_size - 1, &v) - 1;
    printf("P0: read of plane 1 region end: trap=%d\n", trap);
    trap = try_read8(base + cfg[1].memory_size, &v) - 1;
    printf("P0: read just past plane 1 region: trap=%d\n", trap);
}

static void cpl3_config(void)
{
    cfg[0].kernel_format = hypercall(HC_CONFIG, (u64)cfg, 2, 0, 0);
    cfg[0].padding = hypercall(HC_UNKNOWN, 0, 0, 0, 0);
    __asm__ volatile("int $0x80");
}

static void vbs_boot(void);
static s64 cpu_eject(void);
static s64 pt_protect(void);
static s64 pte_into_sealed(void);
static s64 fw_cfg_dma_sealed(void);
static s64 smi_plane1(void);
static s64 nested_svm(void);
static s64 pci_dma_sealed(void);
static s64 stale_tlb_after_return(void);
static s64 config_hidden_array(void);
static s64 stale_tlb_at_activate(void);
static s64 plane1_hc(u64 nr, u64 a0, u64 a1, u64 a2, u64 a3);
static void storm_run(int cpu);
static void migrate_run(int cpu);
static void count_device_vectors(void);
static s64 com2_irq_wait(u64 *a);

/*
 * A 64-bit relocatable bzImage setup header (boot protocol 2.15) at @hdr,
 * the fields that place the kernel from sects=, align=, pref=, init=.
 */
static void write_bzimage_header(u8 *hdr)
{
    memset(hdr, 0, 0x1000);
    hdr[0x1f1] = arg_u64("sects", 4);
    *(u16 *)(hdr + 0x1fe) = 0xaa55;
    hdr[0x201] = 0x66;                          /* header up to 0x268 */
    *(u32 *)(hdr + 0x202) = 0x53726448;         /* "HdrS" */
    *(u16 *)(hdr + 0x206) = 0x020f;
    *(u32 *)(hdr + 0x230) = arg_u64("align", 0x200000);
    hdr[0x234] = 1;                             /* relocatable */
    *(u16 *)(hdr + 0x236) = 1;                  /* XLF_KERNEL_64 */
    *(u64 *)(hdr + 0x258) = arg_u64("pref", 0x1000000);
    *(u32 *)(hdr + 0x260) = arg_u64("init", 0x800000);
}

/* Each refused call: its RAX, then proof that the VM is still fine. */
static void test_negative(const char *name)
{
    u64 planes = arg_u64("planes", 2);

    fill_config();
    if (!strcmp(name, "count0")) {
        result(name, config(0));
    } else if (!strcmp(name, "count1")) {
        result(name, config(1));
    } else if (!strcmp(name, "count-too-big")) {
        result(name, config(planes + 1));
    } else if (!strcmp(name, "overlap")) {
        cfg[2] = cfg[1];
        cfg[2].load_offset += cfg[1].memory_size / 2;
        result(name, config(3));
    } else if (!strcmp(name, "array-outside-ram")) {
        result(name, hc(HC_CONFIG, arg_u64("array", 0x40000000), 2));
    } else if (!strcmp(name, "config-twice")) {
        /* the same planes again, from another array: accepted */
        config(2);
        cfg[2] = cfg[0];
        cfg[3] = cfg[1];
        result(name, hc(HC_CONFIG, (u64)&cfg[2], 2));
    } else if (!strcmp(name, "config-different")) {
        config(2);
        cfg[1].memory_size *= 2;
        result(name, config(2));
    } else if (!strcmp(name, "kernel-format")) {
        cfg[1].kernel_format = arg_u64("format", 3);
        result(name, config(2));
    } else if (!strcmp(name, "array-in-region")) {
        config(2);
        result(name, hc(HC_CONFIG, cfg[1].load_offset, 2));
    } else if (!strcmp(name, "activate-wrong-array")) {
        config(2);
        load_plane1();
        result(name, hc(HC_ACTIVATE, (u64)cfg, 3));
    } else if (!strcmp(name, "activate-twice")) {
        config(2);
        load_plane1();
        activate(2);
        result(name, activate(2));
    } else if (!strcmp(name, "activate-bad-bzimage")) {
        /* a BZIMAGE whose region holds no setup header */
        cfg[1].kernel_format = 1;
        config(2);
        load_plane1();
        result(name, activate(2));
    } else if (!strcmp(name, "activate-crafted-bzimage")) {
        /* a BZIMAGE whose setup header puts its addresses where asked */
        cfg[1].kernel_format = 1;
        config(2);
        write_bzimage_header((u8 *)cfg[1].load_offset);
        cfg[1].entry_point = cfg[1].load_offset;
        if (arg_u64("image", 0)) {
            /* the monitor at the 64-bit entry: position independent */
            u64 sects = arg_u64("sects", 4);

            memcpy((void *)(cfg[1].load_offset + (sects + 1) * 512 + 0x200),
                   plane1_image, plane1_image_end - plane1_image);
        }
        result(name, activate(2));
    } else if (!strcmp(name, "activate-before-config")) {
        load_plane1();
        result(name, activate(2));
    } else if (!strcmp(name, "entry-outside")) {
        config(2);
        load_plane1();
        result(name, activate(2));
    } else if (!strcmp(name, "cmdline-no-nul")) {
        memset(cfg[1].cmdline, 'A', sizeof(cfg[1].cmdline));
        result(name, config(2));
    } else if (!strcmp(name, "region")) {
        /* the region itself comes from p1base= / p1size= */
        result(name, config(2));
    } else if (!strcmp(name, "region-activate")) {
        /*
         * The same, then ACTIVATE with whatever the region holds: the
         * boot state must be built for any region CONFIG accepts, even
         * one plane 0 cannot reach to fill (it maps only 8 GiB).
         */
        s64 r = config(2);

        if (!r) {
            cfg[1].entry_point = cfg[1].load_offset;
            r = activate(2);
        }
        result(name, r);
    } else if (!strcmp(name, "cpl3")) {
        user_call(cpl3_config, ustack + sizeof(ustack));
        printf("RESULT cpl3 rax=%d unknown=%d\n",
               (s64)(s32)cfg[0].kernel_format, (s64)(s32)cfg[0].padding);
        cfg[0].kernel_format = cfg[0].padding = 0;
        result("cpl0-after", config(2));
    } else if (!strcmp(name, "vtl-return-plane0")) {
        result(name, hc(HC_VTL_RETURN, 0, 0));
    } else if (!strcmp(name, "set-mem-attrs-plane0")) {
        result(name, hypercall(HC_SET_MEM_ATTRS, 0x1000000, 0x1000,
                               ALLOW_R, 0));
    } else if (!strcmp(name, "attrs-higher-region")) {
        /* plane 1 may not touch plane 2's region, even to restrict it */
        vbs_boot();
        result(name, plane1_hc(HC_SET_MEM_ATTRS, cfg[2].load_offset, 0x1000,
                               arg_u64("mask", 0), 0));
    } else if (!strcmp(name, "cpu-eject")) {
        result(name, cpu_eject());
    } else if (!strcmp(name, "pt-protect")) {
        result(name, pt_protect());
    } else if (!strcmp(name, "pte-into-sealed")) {
        result(name, pte_into_sealed());
    } else if (!strcmp(name, "fw-cfg-dma")) {
        result(name, fw_cfg_dma_sealed());
    } else if (!strcmp(name, "smi-plane1")) {
        result(name, smi_plane1());
    } else if (!strcmp(name, "nested-svm")) {
        result(name, nested_svm());
    } else if (!strcmp(name, "pci-dma")) {
        result(name, pci_dma_sealed());
    } else if (!strcmp(name, "config-hidden-array")) {
        result(name, config_hidden_array());
    } else if (!strcmp(name, "stale-tlb-return")) {
        result(name, stale_tlb_after_return());
    } else if (!strcmp(name, "stale-tlb-activate")) {
        result(name, stale_tlb_at_activate());
    } else if (!strcmp(name, "enable-vcpu-plane0")) {
        result(name, hypercall(HC_ENABLE_VCPU, 1, 0x1000000, 0, 0));
    } else if (!strcmp(name, "vtl-call-before-activate")) {
        result(name, hc(HC_VTL_CALL, 0x3000000, 0));
    } else if (!strcmp(name, "unknown")) {
        result(name, hc(HC_UNKNOWN, 1, 2));
    } else {
        printf("P0: unknown test '%s'\n", name);
        guest_exit(EXIT_FAIL);
    }
    alive();
}

/* -- VTL calls ----------------------------------------------------------- */

#define AP_TRAMPOLINE 0x8000
#define LAPIC 0xfee00000UL

static struct calling_area ca_pages[2] __attribute__((aligned(4096)));
#define CA0 (&ca_pages[0])
#define CA1 (&ca_pages[1])
u64 ap_stack_top;
static volatile int ap_started, ap_done, ap_go, ap_probe, ap_activate;
/* vCPU 0 starts a round on vCPU 1: its mode, then a new sequence number */
static volatile int ap_mode, ap_seq;
static volatile u64 ap_refused_before, ap_refused_busy, ap_other, ap_echo;
static volatile u64 ap_errors, ap_calls;
/* ap_mode 6: vCPU 1 arms, then calls until the TSC passes ap_deadline */
static volatile u64 ap_deadline, ap_end;
static volatile int ap_armed;

/* A VTL call as the seed's plane-0 kernel makes it; RAX is transport. */
static s64 vtl_call(struct calling_area *ca, u32 call_id, const void *arg,
                    u32 arg_size)
{
    s64 r;

    ca->call_id = call_id;
    ca->arg_size = arg_size;
    memcpy(ca->buffer, arg, arg_size);
    ca->call_pending = 1;
    /* RCX..RSI hold garbage: the VMM must read RBX only */
    r = hypercall(HC_VTL_CALL, (u64)ca, 0xdead0000beef0000UL,
                  0x1234567, 0x7654321);
    ca->call_pending = 0;
    return r;
}

static s32 vtl_status(struct calling_area *ca)
{
    return ca->status;
}

/* A raw hypercall made by plane 1 on request: its result, or -9999. */
static s64 plane1_hc(u64 nr, u64 a0, u64 a1, u64 a2, u64 a3)
{
    u64 a[5] = { nr, a0, a1, a2, a3 };

    if (vtl_call(CA0, VTL_TEST_HC, a, sizeof(a)) != 0) {
        return -9999;
    }
    return vtl_status(CA0);
}

static u64 rdtsc(void)
{
    u32 lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((u64)hi << 32) | lo;
}

/*
 * The TSC ticks of the last echo_ok()'s VMCALL alone, from the
 * instruction before it to the one after (make bench).
 */
static u64 echo_vmcall_ticks;

/* One ECHO call with a unique value: transport ok and our own answer. */
static int echo_ok(struct calling_area *ca, u32 value)
{
    u64 rbx_before = 0x5555aaaa5555aaaaUL, rbx_after, t0;
    s64 r;

    ca->status = 0;
    ca->resp_size = 0;
    ca->call_id = VTL_ECHO;
    ca->arg_size = 4;
    *(u32 *)ca->buffer = value;
    ca->call_pending = 1;
    t0 = rdtsc();
    /* plane 0's registers other than RAX come back unchanged */
    __asm__ volatile("vmcall"
                     : "=a"(r), "=b"(rbx_after)
                     : "a"((u64)HC_VTL_CALL), "b"((u64)ca), "c"(rbx_before)
                     : "rdx", "rsi", "memory");
    echo_vmcall_ticks = rdtsc() - t0;
    ca->call_pending = 0;
    return r == 0 && rbx_after == (u64)ca && ca->status == (s32)value &&
           ca->resp_size == 4 && *(u32 *)ca->buffer == value;
}

static u64 echo_loop(struct calling_area *p, u32 tag, u64 n)
{
    u64 errors = 0;

    for (u64 i = 0; i < n; i++) {
        errors += !echo_ok(p, tag << 24 | (u32)i);
    }
    return errors;
}

/* ECHO calls until the TSC passes @deadline; returns how many */
static u64 echo_until(struct calling_area *p, u32 tag, u64 deadline,
                      volatile u64 *errors)
{
    u64 n = 0;

    while (rdtsc() < deadline) {
        *errors += !echo_ok(p, tag << 24 | (u32)n++);
    }
    return n;
}

void ap_main(void)
{
    struct { u16 limit; u64 base; } __attribute__((packed)) idtr = {
        sizeof(idt) - 1, (u64)idt,
    };

    __asm__ volatile("lidt %0" : : "m"(idtr));
    ap_started = 1;
    if (ap_activate) {
        /* CONFIG and ACTIVATE from vCPU 1: plane 1 boots on vCPU 0's */
        while (!ap_go) {
            __asm__ volatile("pause");
        }
        vbs_boot();
        /* ap_activate=2: vCPU 0 makes every VTL call */
        ap_echo = ap_activate == 1 ? echo_ok(CA1, 0x1234) : 0;
        ap_done = 1;
        if (ap_activate == 2) {
            /* but one at the end: plane 1 enables vCPU 1 in vCPU 1's call */
            u64 index = 1;

            while (ap_go != 2) {
                __asm__ volatile("pause");
            }
            ap_echo = vtl_call(CA1, VTL_TEST_ENABLE, &index, 8) ?:
                      vtl_status(CA1);
            ap_done = 2;
        }
        for (;;) {
            __asm__ volatile("cli; hlt");
        }
    }
    if (ap_probe) {
        /* VTL calls from vCPU 1 while vCPU 0 configures and activates */
        for (;;) {
            s64 r = vtl_call(CA1, VTL_ECHO, "\x07\0\0\0", 4);

            if (r == 0) {
                ap_echo = vtl_status(CA1);
                break;
            }
            if (r == -KVM_EOPNOTSUPP && !ap_refused_busy) {
                ap_refused_before++;
            } else if (r == -KVM_EBUSY) {
                ap_refused_busy++;
            } else {
                ap_other++;
            }
        }
        ap_done = 1;
    }
    /* rounds: mode 1 runs an ECHO loop, 2 one long SPIN call */
    for (int seen = 0;; seen = ap_seq) {
        u64 spin = 3000000;

        while (ap_seq == seen) {
            __asm__ volatile("pause");
        }
        if (ap_mode == 2) {
            ap_errors = vtl_call(CA1, VTL_TEST_SPIN, &spin, 8) != 0;
        } else if (ap_mode == 3) {
            storm_run(1);
        } else if (ap_mode == 4) {
            migrate_run(1);
        } else if (ap_mode == 5) {
            /* plane 0 of vCPU 1 writes into plane 1's sealed region */
            ap_errors = try_write8(cfg[1].load_offset + 0x10, 0xcc) - 1;
        } else if (ap_mode == 6) {
            ap_armed = 1;
            while (!ap_deadline) {
                __asm__ volatile("pause");
            }
            ap_calls = echo_until(CA1, 0x55, ap_deadline, &ap_errors);
            ap_end = rdtsc();
        } else {
            ap_errors = echo_loop(CA1, 0x55, ap_calls);
        }
        ap_done = 1;
    }
}

static void lapic_write(u32 reg, u32 v)
{
    *(volatile u32 *)(LAPIC + reg) = v;
}

static u32 lapic_read(u32 reg)
{
    return *(volatile u32 *)(LAPIC + reg);
}

/* INIT-SIPI-SIPI to APIC ID 1, the second vCPU. */
static int start_ap(void)
{
    static u8 stack[16384] __attribute__((aligned(16)));

    memcpy((void *)AP_TRAMPOLINE, ap_trampoline,
           ap_trampoline_end - ap_trampoline);
    ap_stack_top = (u64)stack + sizeof(stack);
    lapic_write(0xf0, lapic_read(0xf0) | 0x100);        /* enable */
    lapic_write(0x310, 1u << 24);
    lapic_write(0x300, 0x4500);                         /* INIT */
    for (int i = 0; i < 2; i++) {
        lapic_write(0x310, 1u << 24);
        lapic_write(0x300, 0x4600 | (AP_TRAMPOLINE >> 12));    /* SIPI */
    }
    for (u64 spin = 0; spin < 100000000 && !ap_started; spin++) {
        __asm__ volatile("pause");
    }
    return ap_started;
}

/*
 * With waitap=1 vCPU 1 is plugged while the guest runs (-smp 1,maxcpus=2
 * and device_add): knock until it answers, for a bounded number of tries.
 */
static int start_ap_maybe_plugged(void)
{
    if (!arg_u64("waitap", 0)) {
        return start_ap();
    }
    puts("P0: waiting for vCPU 1 to be plugged\n");
    for (int tries = 0; tries < 600; tries++) {
        if (start_ap()) {
            return 1;
        }
    }
    return 0;
}

/* Boots plane 1 like test_boot, without the probes. */
static void vbs_boot(void)
{
    u64 count = arg_u64("count", 2);

    fill_config();
    if (config(count) != 0) {
        guest_exit(EXIT_FAIL);
    }
    load_plane1();
    if (activate(count) != 0) {
        guest_exit(EXIT_FAIL);
    }
}

/*
 * q35's ACPI CPU hotplug block at 0xcd8: a 0 byte switches it to the
 * modern interface; then select CPU 1 and eject it while plane 1 has a
 * state on that index.  0 if VTL calls still work afterwards.
 */
static s64 cpu_eject(void)
{
    vbs_boot();
    outb(0xcd8, 0);
    outl(0xcd8, 1);
    outb(0xcd8 + 4, 8);
    printf("P0: CPU 1 present after eject: %u\n", (u64)(inb(0xcd8 + 4) & 1));
    return echo_ok(CA0, 0x4a3c) ? 0 : -1;
}

/* Pages of "kernel text" and "rodata" that plane 1 seals, and a data page. */
static u8 ktext[4096] __attribute__((aligned(4096), section(".data")));
static u8 krodata[4096] __attribute__((aligned(4096), section(".data")));
static u8 kdata[4096] __attribute__((aligned(4096)));

static void protect_args(u64 *a, u64 pfn, u64 nr, u32 perms)
{
    a[0] = pfn;
    a[1] = nr;
    a[2] = perms;
}

static u64 *page_table_of(u64 entry)
{
    return (u64 *)(entry & 0x000ffffffffff000UL);
}

static void invlpg(u64 addr)
{
    __asm__ volatile("invlpg (%0)" : : "r"(addr) : "memory");
}

/*
 * The kernel-integrity use: plane 1 write-protects plane 0's page tables
 * (boot.S: PML4, PDPT, 8 PDs of 2 MiB pages).  Walks go on, the tables
 * take no write, not even the accessed bit of a 2 MiB page never used
 * before.  0 if all of that holds.
 */
static s64 pt_protect(void)
{
    u64 cr3, args[3], fresh = 0x1a0000000UL;   /* 6.5 GiB: never touched */
    u64 *pml4, *pd;
    s64 r;
    u8 v;
    int trap;

    vbs_boot();
    __asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
    pml4 = page_table_of(cr3);
    pd = page_table_of(page_table_of(pml4[0])[0]);
    printf("P0: fresh PD entry accessed before: %u\n",
           (u64)!!(pd[fresh >> 21] & 0x20));
    protect_args(args, (u64)pml4 >> 12, 1, ALLOW_R);
    r = vtl_call(CA0, VTL_PROTECT_MEMORY, args, 20);
    protect_args(args, (u64)page_table_of(pml4[0]) >> 12, 1, ALLOW_R);
    r |= vtl_call(CA0, VTL_PROTECT_MEMORY, args, 20);
    protect_args(args, (u64)pd >> 12, 8, ALLOW_R);
    r |= vtl_call(CA0, VTL_PROTECT_MEMORY, args, 20);
    printf("P0: page tables protected: rax=%d status=%d\n", r,
           (s64)vtl_status(CA0));
    trap = try_read8(fresh, &v) - 1;
    printf("P0: read through protected tables: trap=%d\n", (s64)trap);
    printf("P0: fresh PD entry accessed after: %u\n",
           (u64)!!(pd[fresh >> 21] & 0x20));
    trap = try_write8((u64)&pd[fresh >> 21], 0) - 1;
    printf("P0: write to a PD: trap=%d error=0x%x\n", (s64)trap, last_error);
    return r || vtl_status(CA0) || trap != 14 ? -1 : 0;
}

/*
 * Plane 0 points a page-directory entry at a "page table" inside plane
 * 1's sealed region: the walk must fault, not read sealed memory.
 */
static s64 pte_into_sealed(void)
{
    u64 cr3, va = 0x1c0000000UL, *pd, saved;     /* 7 GiB */
    int trap;
    u8 v;

    vbs_boot();
    __asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
    pd = page_table_of(page_table_of(page_table_of(cr3)[0])[0]);
    saved = pd[va >> 21];
    pd[va >> 21] = cfg[1].load_offset | 0x3;     /* P | RW, no PS */
    invlpg(va);
    trap = try_read8(va, &v) - 1;
    printf("P0: read through a table in the region: trap=%d error=0x%x "
           "cr2=0x%x\n", (s64)trap, last_error, last_cr2);
    pd[va >> 21] = saved;
    invlpg(va);
    return trap;
}

/* A word in plane 1's region that its monitor never uses (zeros). */
static u64 region_middle(void)
{
    return cfg[1].load_offset + cfg[1].memory_size / 2;
}

/* What plane 1 sees at @gpa: proof that a sealed word did not change. */
static u64 plane1_peek(u64 gpa)
{
    if (vtl_call(CA0, VTL_TEST_PEEK, &gpa, 8) || vtl_status(CA0)) {
        puts("P0: VTL_TEST_PEEK failed\n");
        guest_exit(EXIT_FAIL);
    }
    return *(u64 *)CA0->buffer;
}

/* fw_cfg as firmware drives it: the DMA interface, big-endian. */
#define FW_CFG_DMA_HIGH     0x514
#define FW_CFG_DMA_LOW      0x518
#define FW_CFG_SIGNATURE    0x0000
#define FW_CFG_FILE_DIR     0x0019
#define FW_CFG_DMA_ERROR    0x01
#define FW_CFG_DMA_READ     0x02
#define FW_CFG_DMA_SELECT   0x08
#define FW_CFG_DMA_WRITE    0x10

/* One DMA transfer of @len bytes at @gpa; its control word afterwards. */
static u32 fw_cfg_dma(u16 select, u32 op, u64 gpa, u32 len)
{
    static volatile struct {
        u32 control, length;
        u64 address;
    } __attribute__((packed, aligned(16))) access;
    u64 pa = (u64)&access;

    access.control = __builtin_bswap32((u32)select << 16 |
                                       FW_CFG_DMA_SELECT | op);
    access.length = __builtin_bswap32(len);
    access.address = __builtin_bswap64(gpa);
    outl(FW_CFG_DMA_HIGH, __builtin_bswap32(pa >> 32));
    outl(FW_CFG_DMA_LOW, __builtin_bswap32((u32)pa));
    return __builtin_bswap32(access.control);
}

static u8 fw_cfg_dir[8192] __attribute__((aligned(16)));

/* The selector of fw_cfg file @name, or -1. */
static int fw_cfg_find(const char *name)
{
    u32 n;

    if (fw_cfg_dma(FW_CFG_FILE_DIR, FW_CFG_DMA_READ, (u64)fw_cfg_dir,
                   sizeof(fw_cfg_dir))) {
        return -1;
    }
    n = __builtin_bswap32(*(u32 *)fw_cfg_dir);
    for (u32 i = 0; i < n && 4 + (i + 1) * 64 <= sizeof(fw_cfg_dir); i++) {
        u8 *e = fw_cfg_dir + 4 + i * 64;

        if (!strcmp((const char *)e + 8, name)) {
            return __builtin_bswap16(*(u16 *)(e + 4));
        }
    }
    return -1;
}

/*
 * fw_cfg's DMA interface is a device of plane 0's: a read of a file into
 * the sealed region, and a write of a file from it, must both fail.
 */
static s64 fw_cfg_dma_sealed(void)
{
    u64 target = region_middle(), before, after;
    u64 secret, leaked = 0;
    int req;
    u32 ctl_in, ctl_out;

    vbs_boot();
    before = plane1_peek(target);
    ctl_in = fw_cfg_dma(FW_CFG_SIGNATURE, FW_CFG_DMA_READ, target, 4);
    after = plane1_peek(target);
    printf("P0: fw_cfg DMA into the region: control=0x%x changed=%u\n",
           (u64)ctl_in, (u64)(before != after));
    /* plane 1's first code bytes, through a writable file and back */
    secret = plane1_peek(cfg[1].load_offset);
    req = fw_cfg_find("etc/smi/requested-features");
    ctl_out = fw_cfg_dma(req, FW_CFG_DMA_WRITE, cfg[1].load_offset, 8);
    fw_cfg_dma(req, FW_CFG_DMA_READ, (u64)&leaked, 8);
    printf("P0: fw_cfg DMA from the region: control=0x%x leaked=%u\n",
           (u64)ctl_out, (u64)(leaked == secret));
    return req >= 0 && ctl_in == FW_CFG_DMA_ERROR && before == after &&
           ctl_out == FW_CFG_DMA_ERROR && leaked != secret ? 0 : -1;
}

static u32 pci_config_read32(u32 bdf, u32 reg)
{
    outl(0xcf8, 0x80000000 | bdf << 8 | reg);
    return inl(0xcfc);
}

static void pci_config_write32(u32 bdf, u32 reg, u32 v)
{
    outl(0xcf8, 0x80000000 | bdf << 8 | reg);
    outl(0xcfc, v);
}

/* QEMU's edu device: a DMA engine with a 4 KiB buffer at 0x40000. */
#define EDU_ID          0x11e81234
#define EDU_BUFFER      0x40000
#define EDU_CMD_START   0x1
#define EDU_CMD_TO_RAM  0x2

static volatile u64 *edu_regs;

/* One edu transfer of 8 bytes; waits for the engine (a 100 ms timer). */
static void edu_dma(u64 src, u64 dst, u64 cmd)
{
    edu_regs[0x80 / 8] = src;
    edu_regs[0x88 / 8] = dst;
    edu_regs[0x90 / 8] = 8;
    edu_regs[0x98 / 8] = cmd;
    while (edu_regs[0x98 / 8] & EDU_CMD_START) {
        __asm__ volatile("pause");
    }
}

/*
 * A PCI device is plane 0's too: edu's DMA from the sealed region reads
 * nothing of it, its DMA into the region changes nothing.
 */
static s64 pci_dma_sealed(void)
{
    u64 target = region_middle(), before, after;
    static volatile u64 mine = 0x1122334455667788UL, back;
    u64 secret;
    u32 bdf = 0;

    while (bdf < 32 << 3 && pci_config_read32(bdf, 0) != EDU_ID) {
        bdf += 8;
    }
    if (bdf == 32 << 3) {
        puts("P0: no edu device on bus 0\n");
        return -1;
    }
    edu_regs = (volatile u64 *)(u64)(pci_config_read32(bdf, 0x10) & ~0xfU);
    pci_config_write32(bdf, 0x04, 0x6);         /* memory, bus master */
    vbs_boot();
    /* the device works: plane 0's word there and back */
    edu_dma((u64)&mine, EDU_BUFFER, EDU_CMD_START);
    edu_dma(EDU_BUFFER, (u64)&back, EDU_CMD_START | EDU_CMD_TO_RAM);
    printf("P0: edu DMA round trip in plane 0's RAM: %u\n",
           (u64)(back == mine));
    secret = plane1_peek(cfg[1].load_offset);
    edu_dma(cfg[1].load_offset, EDU_BUFFER, EDU_CMD_START);
    edu_dma(EDU_BUFFER, (u64)&back, EDU_CMD_START | EDU_CMD_TO_RAM);
    printf("P0: edu DMA from the region: leaked=%u\n", (u64)(back == secret));
    before = plane1_peek(target);
    edu_dma((u64)&mine, EDU_BUFFER, EDU_CMD_START);
    edu_dma(EDU_BUFFER, target, EDU_CMD_START | EDU_CMD_TO_RAM);
    after = plane1_peek(target);
    printf("P0: edu DMA into the region: changed=%u\n",
           (u64)(before != after));
    return back != secret && before == after ? 0 : -1;
}

/*
 * The instructions after a hypercall run in the same translation block:
 * a TLB entry made before the call must not serve them once the call has
 * changed what plane 0 may touch.  0 if the byte write at @addr right
 * after the VMCALL went through, else the trap vector + 1.
 */
static int write_after_hypercall(u64 nr, u64 a0, u64 a1, u64 addr, s64 *ret)
{
    int trapped;
    s64 r;

    __asm__ volatile("lea 1f(%%rip), %%rdx\n\t"
                     "mov %%rdx, fixup_rip(%%rip)\n\t"
                     "xor %1, %1\n\t"
                     "vmcall\n\t"
                     "movb $0xcc, (%%rdi)\n\t"
                     "movq $0, fixup_rip(%%rip)\n\t"
                     "jmp 2f\n"
                     "1:\tmov $1, %1\n"
                     "2:"
                     : "=a"(r), "=&r"(trapped)
                     : "a"(nr), "b"(a0), "c"(a1), "D"(addr)
                     : "rdx", "rsi", "memory");
    *ret = r;
    return trapped ? (int)last_vector + 1 : 0;
}

static u8 khidden[4096] __attribute__((aligned(4096)));

/*
 * The accepted array again, from a page plane 1 hid from plane 0: QEMU
 * reads it for plane 0, so with plane 0's view (-14), or CONFIG's answer
 * would tell plane 0 what the hidden page holds.
 */
static s64 config_hidden_array(void)
{
    u64 args[3];

    vbs_boot();
    memcpy(khidden, cfg, 2 * sizeof(cfg[0]));
    printf("P0: the array from a visible page: rax=%d\n",
           hc(HC_CONFIG, (u64)khidden, 2));
    protect_args(args, (u64)khidden >> 12, 1, 0);
    if (vtl_call(CA0, VTL_PROTECT_MEMORY, args, 20) || vtl_status(CA0)) {
        return -9999;
    }
    return hc(HC_CONFIG, (u64)khidden, 2);
}

static u8 kwatch[4096] __attribute__((aligned(4096)));

/*
 * Plane 1 write-protects a page plane 0 has just written: the write in
 * the VMCALL's own block, once the call returns, faults.  Plane 1 is
 * warm (an echo first) so that plane 0's state is switched back in while
 * it polls, which is when it used to run on with its old TLB.
 */
static s64 stale_tlb_after_return(void)
{
    const int rounds = 16;
    int through = 0, trapped = 0;
    u64 args[3];

    vbs_boot();
    for (int round = 0; round < rounds; round++) {
        s64 r;
        int t;

        if (!echo_ok(CA0, round)) {
            return -1;
        }
        protect_args(args, (u64)kwatch >> 12, 1, ALLOW_R);
        CA0->call_id = VTL_PROTECT_MEMORY;
        CA0->arg_size = sizeof(args);
        memcpy(CA0->buffer, args, sizeof(args));
        CA0->call_pending = 1;
        kwatch[1] = round;                  /* the TLB maps it writable */
        t = write_after_hypercall(HC_VTL_CALL, (u64)CA0, 0,
                                  (u64)&kwatch[1], &r);
        CA0->call_pending = 0;
        if (r != 0 || CA0->status != 0) {
            printf("P0: protect failed: rax=%d status=%d\n", r,
                   (s64)CA0->status);
            return -1;
        }
        through += t == 0 || kwatch[1] != round;
        trapped += t == 15;
        protect_args(args, (u64)kwatch >> 12, 1, ALLOW_ALL);
        if (vtl_call(CA0, VTL_PROTECT_MEMORY, args, sizeof(args)) != 0 ||
            CA0->status != 0) {
            return -1;
        }
    }
    printf("P0: writes after the protecting call: through=%d faulted=%d "
           "of %d\n", (s64)through, (s64)trapped, (s64)rounds);
    return through == 0 && trapped == rounds ? 0 : -1;
}

/*
 * The same at the seal: plane 0 writes into the region just before
 * ACTIVATE, so its TLB maps it, and again right after the VMCALL.  Run
 * with a long plane-switch-poll-ns, so that plane 0 is still polling when
 * plane 1 parks.
 */
static s64 stale_tlb_at_activate(void)
{
    u64 target = region_middle(), before, after;
    s64 r;
    int t;

    fill_config();
    if (config(2) != 0) {
        return -1;
    }
    load_plane1();
    *(volatile u64 *)target = 0x0123456789abcdefUL;
    t = write_after_hypercall(HC_ACTIVATE, (u64)cfg, 2, target, &r);
    before = 0x0123456789abcdefUL;
    after = plane1_peek(target);
    printf("P0: ACTIVATE rax=%d, write after it: trap=%d changed=%u\n", r,
           (s64)t - 1, (u64)(before != after));
    return r == 0 && t == 15 && before == after ? 0 : -1;
}

/* A 16-bit SMM handler at the default SMBASE's entry: *(u32 *)ebx = eax. */
#define SMM_DEFAULT_ENTRY   0x38000

static void smm_plant_store(u32 gpa, u32 value)
{
    u8 *p = (u8 *)SMM_DEFAULT_ENTRY;

    p[0] = 0x66; p[1] = 0xb8;                   /* mov $value, %eax */
    memcpy(p + 2, &value, 4);
    p[6] = 0x66; p[7] = 0xbb;                   /* mov $gpa, %ebx */
    memcpy(p + 8, &gpa, 4);
    p[12] = 0x67; p[13] = 0x66; p[14] = 0x89; p[15] = 0x03;
    p[16] = 0x0f; p[17] = 0xaa;                 /* rsm */
}

/*
 * Plane 1's states start with the default SMBASE, in plane 0's RAM: with
 * ICH9's broadcast SMI negotiated, plane 0 plants a handler there and
 * raises an SMI, which plane 1 would take the next time it runs, with
 * its own view.  Plane >= 1 states never enter SMM.  Run with -smp 1
 * (plane 0's own vCPU took SeaBIOS's relocated SMBASE).
 */
static s64 smi_plane1(void)
{
    u64 target = region_middle(), before, after;
    u64 features = 1;                   /* ICH9_LPC_SMI_F_BROADCAST */
    u8 ok = 0;
    u16 pmbase;
    int req = fw_cfg_find("etc/smi/requested-features");
    int features_ok = fw_cfg_find("etc/smi/features-ok");

    vbs_boot();
    fw_cfg_dma(req, FW_CFG_DMA_WRITE, (u64)&features, 8);
    fw_cfg_dma(features_ok, FW_CFG_DMA_READ, (u64)&ok, 1);
    printf("P0: SMI broadcast negotiated: %u\n", (u64)ok);
    pmbase = pci_config_read32(0x1f << 3, 0x40) & 0xff80;
    outl(pmbase + 0x30, inl(pmbase + 0x30) | 0x20);     /* APMC_EN */
    smm_plant_store(target, 0x5eca1ed0);
    before = plane1_peek(target);
    outb(0xb2, 0x42);
    /* plane 1 runs again: it would take its SMI now */
    if (!echo_ok(CA0, 0x5a1)) {
        return -1;
    }
    after = plane1_peek(target);
    printf("P0: region word after the SMI: 0x%x (before 0x%x)\n", after,
           before);
    return ok == 1 && before == after ? 0 : -1;
}

static u8 vmcb[4096] __attribute__((aligned(4096)));
static u8 vmrun_stub[16] __attribute__((section(".data")));

/*
 * Nested SVM: VMRUN writes the host-save area (VM_HSAVE_PA, any address
 * plane 0 likes) past the planes' view.  With planes the CPU has no SVM:
 * VMRUN is #UD and the sealed page keeps its contents.
 */
static s64 nested_svm(void)
{
    u64 target = region_middle(), before, after;
    u64 saved_cr0 = target + 0x558;         /* the VMCB save area's CR0 */
    u64 vmcb_pa = (u64)vmcb;
    u32 a = 0x80000001, b, c = 0, d;
    int trap;

    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    printf("P0: CPUID SVM: %u\n", (u64)(c >> 2 & 1));
    vbs_boot();
    before = plane1_peek(saved_cr0);
    wrmsr(0xc0000080, rdmsr(0xc0000080) | 1 << 12);  /* EFER.SVME */
    wrmsr(0xc0010117, target);                         /* VM_HSAVE_PA */
    vmrun_stub[0] = 0x48; vmrun_stub[1] = 0xb8;         /* mov $vmcb, %rax */
    memcpy(vmrun_stub + 2, &vmcb_pa, 8);
    vmrun_stub[10] = 0x0f; vmrun_stub[11] = 0x01; vmrun_stub[12] = 0xd8;
    vmrun_stub[13] = 0xc3;                              /* vmrun; ret */
    trap = try_exec((u64)vmrun_stub) - 1;
    after = plane1_peek(saved_cr0);
    printf("P0: VMRUN: trap=%d, region word changed=%u\n", (s64)trap,
           (u64)(before != after));
    return trap == 6 && before == after ? 0 : -1;
}

/* Runs round @mode (see ap_main) on vCPU 1 beside @fn on vCPU 0. */
static u64 ap_round(int mode, u64 (*fn)(void))
{
    u64 errors;

    ap_done = 0;
    ap_mode = mode;
    ap_seq++;
    errors = fn();
    while (!ap_done) {
        __asm__ volatile("pause");
    }
    return errors;
}

static u64 echo_round0(void)
{
    return echo_loop(CA0, 0xaa, ap_calls);
}

static u64 spin_call0(void)
{
    u64 spin = 3000000;

    return vtl_call(CA0, VTL_TEST_SPIN, &spin, 8) != 0;
}

/*
 * Both vCPUs call at once: each call gets its own answer; then one long
 * call from each at once, and how many plane 1 had in hand at a time.
 */
static void parallel_round(const char *name)
{
    u64 errors = ap_round(1, echo_round0);

    printf("RESULT %s calls=%u errors0=%u errors1=%u\n", name, ap_calls,
           errors, ap_errors);
    vtl_call(CA0, VTL_TEST_MAXPAR, NULL, 0);
    errors = ap_round(2, spin_call0);
    vtl_call(CA0, VTL_TEST_MAXPAR, NULL, 0);
    printf("RESULT %s-spin errors=%u max-in-plane1=%d\n", name,
           errors + ap_errors, (s64)vtl_status(CA0));
}

static void test_vbs(void)
{
    u8 before[64], v;
    u64 args[5] = { 0 };
    s64 r, trap;
    int (*fn)(void) = (void *)ktext;

    if (!start_ap()) {
        puts("P0: the AP did not start\n");
        guest_exit(EXIT_FAIL);
    }
    puts("P0: vCPU 1 is up\n");
    vbs_boot();

    r = vtl_call(CA0, VTL_INIT, NULL, 0);
    printf("RESULT init rax=%d status=%d\n", r, (s64)vtl_status(CA0));
    printf("RESULT config-after-activate rax=%d\n", config(2));

    /* "kernel text": mov $42, %eax; ret -- runs, then plane 1 seals it */
    ktext[0] = 0xb8;
    ktext[1] = 42;
    ktext[2] = ktext[3] = ktext[4] = 0;
    ktext[5] = 0xc3;
    krodata[0] = 0x5a;
    printf("P0: kernel text returns %d before the seal\n", (s64)fn());
    memcpy(before, ktext, sizeof(before));
    args[0] = (u64)ktext;
    args[1] = 4096;
    args[2] = (u64)krodata;
    args[3] = 4096;
    __asm__ volatile("mov %%cr3, %0" : "=r"(args[4]));
    r = vtl_call(CA0, VTL_SEAL_KERNEL, args, 40);
    printf("RESULT seal rax=%d status=%d\n", r, (s64)vtl_status(CA0));
    trap = try_write8((u64)ktext, 0xcc) - 1;
    printf("RESULT sealed-write trap=%d error=0x%x cr2=0x%x\n", trap,
           last_error, last_cr2);
    printf("RESULT sealed-unchanged %d\n",
           (s64)(memcmp(before, ktext, sizeof(before)) == 0));
    printf("RESULT sealed-exec returns=%d\n", (s64)fn());
    trap = try_write8((u64)krodata, 0xcc) - 1;
    v = 0;
    r = try_read8((u64)krodata, &v) - 1;
    printf("RESULT rodata-write trap=%d read=%d value=0x%x\n", trap, r,
           (u64)v);
    trap = try_exec((u64)krodata) - 1;
    printf("RESULT rodata-exec trap=%d error=0x%x\n", trap, last_error);

    /* a data page: executable first (so its code is translated), then NX */
    kdata[0] = 0xc3;
    trap = try_exec((u64)kdata) - 1;
    printf("P0: data page runs before NO_EXEC: trap=%d\n", trap);
    protect_args(args, (u64)kdata >> 12, 1, ALLOW_R | ALLOW_W);
    r = vtl_call(CA0, VTL_PROTECT_MEMORY, args, 20);
    printf("RESULT protect rax=%d status=%d\n", r, (s64)vtl_status(CA0));
    trap = try_exec((u64)kdata) - 1;
    printf("RESULT noexec-exec trap=%d error=0x%x cr2=0x%x\n", trap,
           last_error, last_cr2);
    trap = try_write8((u64)kdata + 1, 0x5a) - 1;
    printf("RESULT noexec-write trap=%d\n", trap);
    trap = try_read8((u64)kdata + 1, &v) - 1;
    printf("RESULT noexec-read trap=%d value=0x%x\n", trap, (u64)v);
    /* 7 lifts what plane 1 set: the page runs again */
    printf("RESULT lift rax=%d\n",
           plane1_hc(HC_SET_MEM_ATTRS, (u64)kdata, 4096, ALLOW_ALL, 0));
    printf("RESULT lifted-exec trap=%d\n", (s64)try_exec((u64)kdata) - 1);

    /* misuse, each answered and the planes still fine */
    printf("RESULT call-outside-ram rax=%d\n",
           hc(HC_VTL_CALL, 0x40000000, 0));
    printf("RESULT call-unaligned rax=%d\n",
           hc(HC_VTL_CALL, (u64)CA0 + 8, 0));
    printf("RESULT call-in-region rax=%d\n",
           hc(HC_VTL_CALL, cfg[1].load_offset + 0x100000, 0));
    printf("RESULT call-from-plane1 rax=%d\n",
           plane1_hc(HC_VTL_CALL, (u64)CA1, 0, 0, 0));
    {
        u64 base = cfg[1].load_offset, size = cfg[1].memory_size;
        const struct { const char *name; u64 a[5]; } hcs[] = {
            { "attrs-unknown-bits", { HC_SET_MEM_ATTRS, 0x1000000, 0x1000, 8 } },
            { "attrs-unaligned", { HC_SET_MEM_ATTRS, 0x1000800, 0x1000, 1 } },
            { "attrs-empty", { HC_SET_MEM_ATTRS, 0x1000000, 0, 1 } },
            { "attrs-wrap", { HC_SET_MEM_ATTRS, -0x1000UL, 0x2000, 1 } },
            { "attrs-outside-ram", { HC_SET_MEM_ATTRS, 0x40000000, 0x1000, 1 } },
            { "attrs-own-region-hide", { HC_SET_MEM_ATTRS, base, size, 0 } },
            { "attrs-garbage-a3", { HC_SET_MEM_ATTRS, 0x1000000, 0x1000, 7,
                                    0xdeadbeef } },
            { "enable-index-too-big", { HC_ENABLE_VCPU, 2, base + 0x1000 } },
            { "enable-home", { HC_ENABLE_VCPU, 0, base + 0x1000 } },
            { "enable-block-outside", { HC_ENABLE_VCPU, 1, 0x1000000 } },
            { "enable-block-unaligned", { HC_ENABLE_VCPU, 1, base + 0x1004 } },
            { "enable-block-past-end", { HC_ENABLE_VCPU, 1, base + size - 8 } },
        };

        for (unsigned i = 0; i < sizeof(hcs) / sizeof(hcs[0]); i++) {
            r = plane1_hc(hcs[i].a[0], hcs[i].a[1], hcs[i].a[2], hcs[i].a[3],
                          hcs[i].a[4]);
            printf("RESULT %s status=%d\n", hcs[i].name, r);
        }
    }
    r = vtl_call(CA0, 0x999, NULL, 0);
    printf("RESULT unknown-call rax=%d status=%d\n", r,
           (s64)vtl_status(CA0));

    /* both vCPUs at once on plane 1's one state: served one at a time */
    ap_calls = arg_u64("calls", 1000);
    parallel_round("serialized");
    /* then with a plane-1 state of its own on vCPU 1 */
    {
        u64 index = 1;

        r = vtl_call(CA0, VTL_TEST_ENABLE, &index, 8);
        printf("RESULT enable rax=%d status=%d\n", r, (s64)vtl_status(CA0));
        r = vtl_call(CA0, VTL_TEST_ENABLE, &index, 8);
        printf("RESULT enable-again rax=%d status=%d\n", r,
               (s64)vtl_status(CA0));
    }
    parallel_round("parallel");

    /* round trip of a VTL call next to a null hypercall, same run */
    {
        u64 n = arg_u64("bench", 2000), t0, t1, t2;

        t0 = rdtsc();
        for (u64 i = 0; i < n; i++) {
            hc(HC_UNKNOWN, 0, 0);
        }
        t1 = rdtsc();
        echo_loop(CA0, 0x11, n);
        t2 = rdtsc();
        printf("BENCH calls=%u null_cycles=%u vtl_cycles=%u "
               "ratio_x100=%u\n", n, (t1 - t0) / n, (t2 - t1) / n,
               (t2 - t1) * 100 / (t1 - t0 ? t1 - t0 : 1));
    }
}

/*
 * test=hp-enable plugs=N, with -smp 1,maxcpus=N+1 (the test plugs vCPU
 * i when asked): plane 1 asks for a state on index i over and over in
 * one call while the CPU is plugged, for each i; then vCPU 1 starts and
 * calls on its state beside vCPU 0, and runs into plane 1's region
 * (plane-violation=fault).  Again after system_reset, where the CPUs are
 * there from the start.
 */
static void test_hp_enable(void)
{
    u64 refused_each = 1, args[2];
    s64 r = 0;

    vbs_boot();
    for (u64 i = 1; i <= arg_u64("plugs", 1) && !r; i++) {
        printf("P0: waiting for vCPU %u to be plugged\n", i);
        args[0] = i;
        args[1] = 1000000000;
        r = vtl_call(CA0, VTL_TEST_ENABLE_WAIT, args, 16) ?: vtl_status(CA0);
        refused_each &= *(u64 *)CA0->buffer > 0;
    }
    printf("RESULT hp-enable status=%d refused-first=%u\n", r,
           refused_each);
    if (!start_ap()) {
        puts("P0: the AP did not start\n");
        guest_exit(EXIT_FAIL);
    }
    ap_calls = arg_u64("calls", 200);
    parallel_round("plugged");
    ap_round(5, echo_round0);
    printf("RESULT plugged-violation trap=%d\n", ap_errors);
}

/* vCPU 1 configures and activates (@mode: see ap_main), vCPU 0 waits */
static void activate_on_ap(int mode)
{
    ap_activate = mode;
    if (!start_ap()) {
        guest_exit(EXIT_FAIL);
    }
    ap_go = 1;
    while (!ap_done) {
        __asm__ volatile("pause");
    }
}

/* ACTIVATE from vCPU 1: plane 1 boots on vCPU 0's index, serves both. */
static void test_activate_ap(void)
{
    activate_on_ap(1);
    printf("RESULT activate-ap echo1=%d echo0=%d\n", (s64)ap_echo,
           (s64)echo_ok(CA0, 0x4321));
}

/*
 * ACTIVATE from vCPU 1, every VTL call from vCPU 0 (as the VBS series
 * does it): plane 1 started its APIC timer while it booted (p1cmd
 * timer=1) and must see it tick inside a call from vCPU 0, then take its
 * own COM2's receive interrupt (the test sends a byte) in a later one.
 * Nothing of plane 1 may stay behind on vCPU 1.
 */
static void test_home(void)
{
    u64 *a = (u64 *)CA0->buffer;
    u64 want = arg_u64("ticks", 5), ticks, lvt, svr, apic_id;
    s64 r;

    activate_on_ap(2);
    count_device_vectors();
    r = vtl_call(CA0, VTL_TEST_TICKS, &want, 8) ?: vtl_status(CA0);
    ticks = a[0];
    lvt = a[1];
    svr = a[2];
    apic_id = a[3];
    if (!r) {
        r = com2_irq_wait(a);
    }
    printf("RESULT home rax=%d ticks-enough=%u lvt-timer=0x%x svr=0x%x "
           "apic-id=%u taken=%u data=0x%x plane0-interrupts=%u\n", r,
           (u64)(ticks >= want), lvt, svr, apic_id, a[0], a[2] & 0xff,
           irq_count);
    /* the index whose call the shared state serves cannot get its own */
    ap_go = 2;
    while (ap_done != 2) {
        __asm__ volatile("pause");
    }
    printf("RESULT home-enable-served status=%d echo0=%d\n", (s64)ap_echo,
           (s64)echo_ok(CA0, 0x5678));
}

/*
 * Plane 1 triple faults during a call: the call returns -EOPNOTSUPP,
 * plane 1 is stopped, later calls too, and plane 0 runs on.
 */
static void test_plane1_crash(void)
{
    vbs_boot();
    printf("RESULT crash-call rax=%d\n", vtl_call(CA0, VTL_TEST_TRIPLE,
                                                  NULL, 0));
    printf("RESULT crash-after rax=%d\n", vtl_call(CA0, VTL_ECHO, "\1\0\0\0",
                                                   4));
}

/* vCPU 1 calls while plane 1 boots on vCPU 0: -EBUSY, then served. */
static void test_busy(void)
{
    ap_probe = 1;
    if (!start_ap()) {
        guest_exit(EXIT_FAIL);
    }
    vbs_boot();
    while (!ap_done) {
        __asm__ volatile("pause");
    }
    printf("RESULT busy before=%u busy=%u other=%u echo=%d\n",
           ap_refused_before, ap_refused_busy, ap_other, (s64)(s32)ap_echo);
}

static void lapic_write(u32 reg, u32 v);

/*
 * A plane-0 interrupt while plane 1 runs on the vCPU index: pending, not
 * lost, delivered once plane 0 is back.  The LAPIC timer is armed right
 * before a long VTL call; an attempt where the host delayed us so much
 * that it fired before the call even began proves nothing and is redone.
 */
static void test_irq(void)
{
    u64 spin = arg_u64("spin", 2000000);
    u64 *t = (u64 *)CA0->buffer;
    s64 r = -1;
    int attempt;

    vbs_boot();
    set_gate(0xff, irq64, 0);                   /* never expected */
    lapic_write(0xf0, 0x1ff);                   /* enable, spurious 0xff */
    lapic_write(0x3e0, 0xb);                    /* divide by 1 */
    lapic_write(0x320, 0x40);                   /* one-shot, vector 0x40 */
    for (attempt = 1; attempt <= 5; attempt++) {
        irq_count = 0;
        __asm__ volatile("sti");
        lapic_write(0x380, 1000000);            /* 1 ms: during the call */
        r = vtl_call(CA0, VTL_TEST_SPIN, &spin, 8);
        for (int i = 0; i < 100000 && !irq_count; i++) {
            __asm__ volatile("pause");
        }
        __asm__ volatile("cli");
        if (!irq_count || irq_tsc > t[0]) {
            break;
        }
    }
    printf("P0: irq: plane 1 ran from %u to %u, interrupt at %u (attempt "
           "%d)\n", t[0], t[1], irq_tsc, (s64)attempt);
    printf("RESULT irq rax=%d count=%u after_return=%u\n", r, irq_count,
           (u64)(irq_count && irq_tsc >= t[1]));
}

static u32 ioapic_read(u32 reg)
{
    *(volatile u32 *)0xfec00000UL = reg;
    return *(volatile u32 *)0xfec00010UL;
}

static u8 cmos_read(u8 reg)
{
    outb(0x70, reg);
    return inb(0x71);
}

/* What plane 0 programmed of its chipset (plane 1 must change none of it) */
struct chipset_view {
    u8 pic_mask[2], cmos_a, cmos_b, pit_status;
    u32 rte[3];
    u64 hpet_config, hpet_timer0;
};

static void chipset_read(struct chipset_view *v)
{
    static const u8 pins[] = { 0, 2, 8 };
    volatile u8 *hpet = (volatile u8 *)0xfed00000UL;

    memset(v, 0, sizeof(*v));           /* the padding too: memcmp'd */
    v->pic_mask[0] = inb(0x21);
    v->pic_mask[1] = inb(0xa1);
    v->cmos_a = cmos_read(0x0a);
    v->cmos_b = cmos_read(0x0b);
    for (int i = 0; i < 3; i++) {
        v->rte[i] = ioapic_read(0x10 + 2 * pins[i]);
    }
    v->hpet_config = *(volatile u64 *)(hpet + 0x010);
    v->hpet_timer0 = *(volatile u64 *)(hpet + 0x100);
    outb(0x43, 0xe2);                   /* read-back: channel 0's status */
    v->pit_status = inb(0x40) & 0x3f;   /* BCD, mode, access */
}

/* The largest of @n samples of PIT channel 0's count, spread over a while */
static u32 pit_count_max(int n)
{
    u32 most = 0;

    for (int i = 0; i < n; i++) {
        u32 c;

        outb(0x43, 0x00);               /* latch channel 0 */
        c = inb(0x40);
        c |= (u32)inb(0x40) << 8;
        most = c > most ? c : most;
        for (int j = 0; j < 20000; j++) {
            __asm__ volatile("pause");
        }
    }
    return most;
}

/*
 * Plane 1 programs plane 0's chipset as a Linux secure kernel would
 * (VTL_TEST_CHIPSET): with interrupts enabled and every vector of the
 * 8259s and of plane 1's IOAPIC routes counted, plane 0 must get no
 * interrupt and find its chipset as it left it.  Plane 1's COM2, when the
 * test gives it one, is absent for plane 0.
 */
static void test_chipset(void)
{
    struct chipset_view before, after;
    u64 window = arg_u64("window", 4000);
    s64 r;
    u8 com2_lsr, com2_scratch;
    u32 pit_max;

    vbs_boot();
    for (int vec = 0x20; vec < 0x40; vec++) {
        set_gate(vec, irq64, 0);
    }
    set_gate(0xff, irq64, 0);
    lapic_write(0xf0, 0x1ff);                   /* enable, spurious 0xff */
    chipset_read(&before);
    irq_count = 0;
    __asm__ volatile("sti");
    r = vtl_call(CA0, VTL_TEST_CHIPSET, NULL, 0) ?: vtl_status(CA0);
    /* a while for what plane 1 started to fire: a few ms at 1 kHz */
    for (u64 i = 0; i < window; i++) {
        for (int j = 0; j < 1000; j++) {
            __asm__ volatile("pause");
        }
    }
    __asm__ volatile("cli");
    chipset_read(&after);
    pit_max = pit_count_max(16);
    outb(0x2ff, 0x5a);                          /* COM2's scratch register */
    com2_scratch = inb(0x2ff);
    com2_lsr = inb(0x2fd);
    printf("P0: chipset before: pic 0x%x/0x%x cmos 0x%x/0x%x rte 0x%x 0x%x "
           "0x%x hpet 0x%x/0x%x pit 0x%x\n", (u64)before.pic_mask[0],
           (u64)before.pic_mask[1], (u64)before.cmos_a, (u64)before.cmos_b,
           (u64)before.rte[0], (u64)before.rte[1], (u64)before.rte[2],
           before.hpet_config, before.hpet_timer0, (u64)before.pit_status);
    printf("P0: chipset after:  pic 0x%x/0x%x cmos 0x%x/0x%x rte 0x%x 0x%x "
           "0x%x hpet 0x%x/0x%x pit 0x%x, pit count up to %u\n",
           (u64)after.pic_mask[0], (u64)after.pic_mask[1], (u64)after.cmos_a,
           (u64)after.cmos_b, (u64)after.rte[0], (u64)after.rte[1],
           (u64)after.rte[2], after.hpet_config, after.hpet_timer0,
           (u64)after.pit_status, (u64)pit_max);
    printf("RESULT chipset rax=%d interrupts=%u changed=%u pit-reprogrammed=%u "
           "com2-lsr=0x%x com2-scratch=0x%x\n", r, irq_count,
           (u64)(memcmp(&before, &after, sizeof(before)) != 0),
           (u64)(pit_max <= 1193), (u64)com2_lsr, (u64)com2_scratch);
}

/*
 * Plane 0 counts every vector a device of either plane could use (0x20 to
 * 0x5f, and the spurious one), with interrupts on.
 */
static void count_device_vectors(void)
{
    for (int vec = 0x20; vec < 0x60; vec++) {
        set_gate(vec, irq64, 0);
    }
    set_gate(0xff, irq64, 0);
    lapic_write(0xf0, 0x1ff);
    irq_count = 0;
    __asm__ volatile("sti");
}

/*
 * Plane 1 takes COM2's interrupts (VTL_TEST_IRQ_SETUP); then VTL calls
 * give it an interrupt window now and then until it took one (the test
 * sends a byte): its result in @a as p1_irq_take() leaves it.
 */
static s64 com2_irq_wait(u64 *a)
{
    u64 rounds = arg_u64("rounds", 4000), round;
    s64 r = vtl_call(CA0, VTL_TEST_IRQ_SETUP, NULL, 0) ?: vtl_status(CA0);

    puts("P0: waiting for input on plane 1's COM2\n");
    for (round = 1; !r && round <= rounds; round++) {
        /* most of the time here, in plane 0 (PAUSE would leave TCG's loop) */
        for (int j = 0; j < 2000000; j++) {
            __asm__ volatile("" : : : "memory");
        }
        r = vtl_call(CA0, VTL_TEST_IRQ_TAKE, NULL, 0) ?: vtl_status(CA0);
        if (a[0]) {
            break;
        }
    }
    __asm__ volatile("cli");
    return r;
}

/*
 * A device of plane 1 interrupts plane 1, not plane 0: plane 1 takes
 * COM2's receive interrupt at LINT0 (VTL_TEST_IRQ_SETUP); the test sends
 * COM2 a byte while plane 0 runs here with interrupts on and every
 * vector counted.  Plane 1 must find it pending when the next VTL call
 * switches it in, and take it; plane 0 must get nothing.
 */
static void test_device_irq(void)
{
    u64 *a = (u64 *)CA0->buffer;
    s64 r;

    vbs_boot();
    count_device_vectors();
    r = com2_irq_wait(a);
    printf("RESULT device-irq rax=%d taken=%u pending-at-entry=%u data=0x%x "
           "plane0-interrupts=%u\n", r, a[0], a[1], a[2] & 0xff, irq_count);
}

/* The vendor and device ID of 00:<slot>.0, through 0xcf8/0xcfc */
static u32 pci_cf8_id(u32 slot)
{
    outl(0xcf8, 0x80000000U | slot << 11);
    return inl(0xcfc);
}

static u32 pci_ecam_id(u32 slot)
{
    return *(volatile u32 *)(Q35_ECAM_BASE + (slot << 15));
}

/* Where the migration tests tell the guest to stop, or to go on. */
#define MIGRATE_STOP 0x6000
#define MIGRATE_HOLD 0x6008

/* hold=STEP: wait at STEP until the test sets the u64 at MIGRATE_HOLD. */
static void migrate_hold(const char *step)
{
    char hold[16];

    arg_str("hold", "", hold, sizeof(hold));
    if (strcmp(hold, step)) {
        return;
    }
    printf("P0: held at %s\n", step);
    while (!*(volatile u64 *)MIGRATE_HOLD) {
        __asm__ volatile("pause");
    }
}

/*
 * Asks plane 1 what its virtio-rng delivered until the used index reaches
 * @used with an interrupt taken (bounded); 0 or the call's error.
 */
static s64 virtio_wait_used(u64 *a, u64 used)
{
    u64 rounds = arg_u64("rounds", 4000);
    s64 r = 0;

    for (u64 round = 1; !r && round <= rounds; round++) {
        for (int j = 0; j < 2000000; j++) {
            __asm__ volatile("" : : : "memory");
        }
        r = vtl_call(CA0, VTL_TEST_VIRTIO_TAKE, NULL, 0) ?: vtl_status(CA0);
        if (a[0] && a[2] >= used) {
            break;
        }
    }
    return r;
}

static void virtio_result(u64 *a)
{
    printf("taken=%u pending-at-entry=%u used=%u len=%u nonzero=%u "
           "plane0-interrupts=%u\n", a[0], a[1], a[2], a[3], a[4],
           irq_count);
}

/*
 * A virtio-rng-pci of plane 1 at 00:05.0: plane 0 finds no function
 * there by either configuration mechanism; plane 1 drives it, its random
 * bytes land in plane 1's hidden region, its interrupt message reaches
 * plane 1's APIC while plane 0 runs, and plane 0 counts no interrupt.
 * With hold=virtio it then waits for the test (which migrates the VM
 * meanwhile) and has plane 1 make a second request of the same device.
 */
static void test_virtio_plane(void)
{
    u64 *a = (u64 *)CA0->buffer;
    u32 p0_cf8, p0_ecam, p0_host;
    u64 p1_id, p1_host, cmd, vector, status;
    s64 r;

    *(volatile u64 *)MIGRATE_HOLD = 0;
    vbs_boot();
    count_device_vectors();
    p0_cf8 = pci_cf8_id(VIRTIO_TEST_SLOT);
    p0_ecam = pci_ecam_id(VIRTIO_TEST_SLOT);
    p0_host = pci_ecam_id(0);
    r = vtl_call(CA0, VTL_TEST_VIRTIO, NULL, 0) ?: vtl_status(CA0);
    p1_id = a[0];
    cmd = a[1];
    vector = a[2];
    status = a[3];
    p1_host = a[4];
    if (!r) {
        r = virtio_wait_used(a, 1);
    }
    __asm__ volatile("cli");
    printf("RESULT virtio-plane rax=%d p0-cf8=0x%x p0-ecam=0x%x "
           "p0-host=0x%x p1-id=0x%x p1-host=0x%x cmd=0x%x vector=%u "
           "status=0x%x ", r, (u64)p0_cf8, (u64)p0_ecam, (u64)p0_host,
           p1_id, p1_host, cmd, vector, status);
    virtio_result(a);
    migrate_hold("virtio");
    if (!r && *(volatile u64 *)MIGRATE_HOLD) {
        __asm__ volatile("sti");
        r = vtl_call(CA0, VTL_TEST_VIRTIO_AGAIN, NULL, 0) ?: vtl_status(CA0);
        if (!r) {
            r = virtio_wait_used(a, 2);
        }
        __asm__ volatile("cli");
        printf("RESULT virtio-again rax=%d ", r);
        virtio_result(a);
    }
}

/*
 * Plane 0 against plane 1's device (issue 32): it moves decoding it
 * controls (a BAR of its own ICH9 AHCI at 00:1f.2, the MCH's PCIEXBAR)
 * onto what plane 1 reaches, and plane 1 moves its BARs onto plane 0's
 * device and RAM.  Each side must keep reaching its own.
 */
#define AHCI_BDF        (0x1f << 3 | 2)
#define AHCI_ABAR       0x24
#define MCH_PCIEXBAR    0x60
#define MOVED_ECAM      0xd0000000UL    /* 64 MiB, clear of the BARs used */
#define AHCI_HOME       0xe2000000UL    /* plane 0's ABAR in the capture */

static u32 pci_cf8_read(u32 bdf, u32 reg)
{
    outl(0xcf8, 0x80000000U | bdf << 8 | reg);
    return inl(0xcfc);
}

static void pci_cf8_write(u32 bdf, u32 reg, u32 v)
{
    outl(0xcf8, 0x80000000U | bdf << 8 | reg);
    outl(0xcfc, v);
}

/* Plane 0 places its AHCI's registers (ABAR, 4 KiB) at @addr; its ID */
static u32 ahci_place(u64 addr)
{
    pci_cf8_write(AHCI_BDF, AHCI_ABAR, addr);
    pci_cf8_write(AHCI_BDF, 0x04, pci_cf8_read(AHCI_BDF, 0x04) | 0x6);
    return pci_cf8_read(AHCI_BDF, 0);
}

/* Plane 1 sets up its virtio-rng; *@common, *@notify: where they are */
static s64 virtio_plane_up(u64 *a, u64 *common, u64 *notify)
{
    s64 r;

    vbs_boot();
    count_device_vectors();
    r = vtl_call(CA0, VTL_TEST_VIRTIO, NULL, 0) ?: vtl_status(CA0);
    *common = a[5];
    *notify = a[6];
    return r ?: virtio_wait_used(a, 1);
}

/* Plane 1 reads its device back: ID, command, status, queue size */
static s64 virtio_probe(u64 *a, u64 *out)
{
    s64 r = vtl_call(CA0, VTL_TEST_VIRTIO_PROBE, NULL, 0) ?: vtl_status(CA0);

    for (int i = 0; i < 4; i++) {
        out[i] = a[i];
    }
    return r;
}

/*
 * attack=abar: plane 0 puts its AHCI's registers on plane 1's common
 * structure, then on its notify structure: plane 1 must read its own
 * registers and its next request must complete.
 * attack=pciexbar: plane 0 moves PCIEXBAR and puts the AHCI's registers
 * on plane 1's ECAM page: plane 1 must read its own configuration space.
 */
static void test_virtio_interpose(void)
{
    u64 *a = (u64 *)CA0->buffer, common, notify, p[4] = { 0 };
    u32 ahci = 0, host = 0;
    char attack[16];
    s64 r;

    arg_str("attack", "abar", attack, sizeof(attack));
    r = virtio_plane_up(a, &common, &notify);
    if (!r && !strcmp(attack, "pciexbar")) {
        pci_cf8_write(0, MCH_PCIEXBAR + 4, 0);
        pci_cf8_write(0, MCH_PCIEXBAR, MOVED_ECAM | 0x4 | 1);
        host = *(volatile u32 *)MOVED_ECAM;     /* it did move */
        ahci = ahci_place(Q35_ECAM_BASE + (VIRTIO_TEST_SLOT << 15));
        r = virtio_probe(a, p);
    } else if (!r) {
        ahci = ahci_place(common & ~0xfffUL);
        r = virtio_probe(a, p);
        ahci_place(notify & ~0xfffUL);
    }
    /* and plane 1's next request completes */
    if (!r) {
        r = vtl_call(CA0, VTL_TEST_VIRTIO_AGAIN, NULL, 0) ?: vtl_status(CA0);
    }
    if (!r) {
        r = virtio_wait_used(a, 2);
    }
    __asm__ volatile("cli");
    printf("RESULT virtio-interpose %s rax=%d ahci=0x%x moved-host=0x%x "
           "p1-id=0x%x cmd=0x%x status=0x%x qsize=%u ", attack, r,
           (u64)ahci, (u64)host, p[0], p[1], p[2], p[3]);
    virtio_result(a);
}

#define LPC_BDF         (0x1f << 3)
#define LPC_PMBASE      0x40

/* Plane 1 writes @v to its COM2's scratch register: what it reads back */
static u64 com2_probe(u64 v, u64 *lsr)
{
    u64 *a = (u64 *)CA0->buffer;

    if (vtl_call(CA0, VTL_TEST_COM2_PROBE, &v, 8) || vtl_status(CA0)) {
        return ~0UL;
    }
    *lsr = a[1];
    return a[0];
}

/*
 * Plane 0 moves its ACPI PM block (PMBASE, 128 ports: the TCO registers
 * at +0x60) over plane 1's COM2 at 0x2f8: plane 1 must still reach its
 * own port.
 */
static void test_com2_pmbase(void)
{
    u64 before, after, lsr_before = 0, lsr_after = 0;
    u32 pmbase;

    vbs_boot();
    before = com2_probe(0xa5, &lsr_before);
    pmbase = pci_cf8_read(LPC_BDF, LPC_PMBASE);
    pci_cf8_write(LPC_BDF, LPC_PMBASE, 0x281);
    after = com2_probe(0x5a, &lsr_after);
    printf("RESULT com2-pmbase pmbase=0x%x moved=0x%x scratch=0x%x/0x%x "
           "lsr=0x%x/0x%x\n", (u64)pmbase,
           (u64)pci_cf8_read(LPC_BDF, LPC_PMBASE), before, after,
           lsr_before, lsr_after);
}

static u8 capture_page[0x4000] __attribute__((aligned(0x4000)));

/*
 * Plane 1 moves its common structure's BAR onto plane 0's AHCI registers
 * and its MSI-X BAR onto a page of plane 0's RAM: plane 0 must go on
 * reaching its AHCI and its RAM, plane 1 its device at the new places.
 */
static void test_virtio_capture(void)
{
    u64 *a = (u64 *)CA0->buffer, common, notify, args[2], p[4] = { 0 };
    volatile u32 *abar = (volatile u32 *)AHCI_HOME;
    volatile u64 *ram = (volatile u64 *)capture_page;
    u32 ahci, cap_before, cap_after = 0, vs_after = 0;
    u64 p1_status = 0, p1_msix = 0, ram_after = 0;
    s64 r;

    ahci = ahci_place(AHCI_HOME);
    cap_before = abar[0];
    ram[0] = 0x5a5a5a5a12345678UL;
    r = virtio_plane_up(a, &common, &notify);
    if (!r) {
        args[0] = AHCI_HOME;
        args[1] = (u64)capture_page;
        r = vtl_call(CA0, VTL_TEST_VIRTIO_MOVE, args, sizeof(args)) ?:
            vtl_status(CA0);
        p1_status = a[0];
        p1_msix = a[1];
        cap_after = abar[0];
        vs_after = abar[4];
        ram[1] = ram[0] ^ 0xffff;
        ram_after = ram[1] ^ ram[0];
    }
    if (!r) {
        r = virtio_probe(a, p);
    }
    __asm__ volatile("cli");
    printf("RESULT virtio-capture rax=%d ahci=0x%x cap-same=%u "
           "vs=0x%x ram=0x%x ram-write=0x%x p1-status=0x%x "
           "p1-msix=0x%x p1-probe-status=0x%x\n", r, (u64)ahci,
           (u64)(cap_before != ~0U && cap_after == cap_before), (u64)vs_after,
           ram[0], ram_after, p1_status, p1_msix & 0xfff00000UL, p[2]);
}

/*
 * Random SET_MEM_ATTRS over a 256-page buffer against a model: after
 * every operation plane 0 checks what each touched page allows.  Also
 * reports how many attribute ranges the model has (plane 0's map holds
 * those plus the region's seal).
 */
#define FUZZ_PAGES 256

static u8 fuzz_buf[FUZZ_PAGES * 4096] __attribute__((aligned(1 << 20)));
static u8 fuzz_ref[FUZZ_PAGES];

static u32 fuzz_rand(u64 *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

static int fuzz_check_page(u64 page)
{
    u64 addr = (u64)fuzz_buf + page * 4096;
    u8 allow = fuzz_ref[page], v = 0;
    int read_ok = try_read8(addr + 1, &v) == 0;
    int write_ok = try_write8(addr + 2, 0x5a) == 0;
    int exec_ok = try_exec(addr) == 0;

    return read_ok != !!(allow & ALLOW_R) ||
           write_ok != !!(allow & ALLOW_W) ||
           exec_ok != !!(allow & ALLOW_X);
}

static void test_attrs_fuzz(void)
{
    static const u8 choices[] = {
        ALLOW_ALL, ALLOW_R | ALLOW_X, ALLOW_R | ALLOW_W, ALLOW_R, 0,
    };
    u64 seed = arg_u64("seed", 1), ops = arg_u64("ops", 200);
    u64 mismatches = 0, refused = 0, ranges = 0;

    for (u64 p = 0; p < FUZZ_PAGES; p++) {
        fuzz_buf[p * 4096] = 0xc3;              /* ret */
        fuzz_ref[p] = ALLOW_ALL;
    }
    vbs_boot();
    for (u64 i = 0; i < ops; i++) {
        u64 start = fuzz_rand(&seed) % FUZZ_PAGES;
        u64 n = 1 + fuzz_rand(&seed) % (FUZZ_PAGES - start);
        u8 attrs = choices[fuzz_rand(&seed) % sizeof(choices)];

        if (plane1_hc(HC_SET_MEM_ATTRS, (u64)fuzz_buf + start * 4096,
                      n * 4096, attrs, 0) != 0) {
            refused++;
            continue;
        }
        for (u64 p = start; p < start + n; p++) {
            fuzz_ref[p] = attrs;
        }
        /* the edges and a random page of the operation, every time */
        mismatches += fuzz_check_page(start);
        mismatches += fuzz_check_page(start + n - 1);
        mismatches += fuzz_check_page(fuzz_rand(&seed) % FUZZ_PAGES);
    }
    for (u64 p = 0; p < FUZZ_PAGES; p++) {
        mismatches += fuzz_check_page(p);
        ranges += fuzz_ref[p] != ALLOW_ALL &&
                  (p == 0 || fuzz_ref[p] != fuzz_ref[p - 1]);
    }
    printf("RESULT attrs-fuzz ops=%u refused=%u mismatches=%u ranges=%u\n",
           ops, refused, mismatches, ranges);
}

/* -- benchmarks (scripts/planes/bench.py) ------------------------------- */

/* Fixed CPU-bound work: an LCG over a small table, reported in TSC ticks. */
static void bench_spin(void)
{
    static u32 table[1024];
    u64 n = arg_u64("iters", 20000000), t0, t1;
    u32 x = 1;

    if (arg_u64("activate", 0)) {
        vbs_boot();             /* plane 1 parked from here on */
    }
    t0 = rdtsc();
    for (u64 i = 0; i < n; i++) {
        x = x * 1103515245 + 12345;
        table[x & 1023] += x >> 16;
    }
    t1 = rdtsc();
    printf("BENCH spin iters=%u ticks=%u check=%u\n", n, t1 - t0,
           (u64)table[7]);
}

/* Plane 1's ticks in the calls it served since the last ask, and how many */
static void busy_ticks(struct calling_area *ca, u64 *ticks, u64 *calls)
{
    u64 *a = (u64 *)ca->buffer;

    if (vtl_call(ca, VTL_TEST_BUSY_TICKS, NULL, 0) != 0 ||
        vtl_status(ca) != 0) {
        guest_exit(EXIT_FAIL);
    }
    *ticks = a[0];
    *calls = a[1];
}

/* vCPU 0's side of a timed round (ap_mode 6): its window, start, end, calls */
static u64 timed_window, timed_t0, timed_end0, timed_calls0;

static u64 timed_round0(void)
{
    u64 errors = 0;

    while (!ap_armed) {
        __asm__ volatile("pause");
    }
    /* both start now */
    timed_t0 = rdtsc();
    ap_deadline = timed_t0 + timed_window;
    timed_calls0 = echo_until(CA0, 0x22, ap_deadline, &errors);
    timed_end0 = rdtsc();
    return errors;
}

/*
 * Both vCPUs make VTL calls for @window ticks: the aggregate rate while
 * both call, with the calls of each (whichever finishes first would
 * otherwise spin in guest code while the other makes up its count).
 */
static void bench_vtl_timed(u64 window)
{
    u64 errors;

    if (!start_ap()) {
        guest_exit(EXIT_FAIL);
    }
    timed_window = window;
    errors = ap_round(6, timed_round0);
    printf("BENCH vtl2 calls=%u ticks=%u errors=%u calls0=%u calls1=%u\n",
           timed_calls0 + ap_calls,
           (ap_end > timed_end0 ? ap_end : timed_end0) - timed_t0,
           errors + ap_errors, timed_calls0, ap_calls);
}

/* Per-call TSC latency of VTL calls and of a null hypercall. */
static void bench_vtl(void)
{
    u64 n = arg_u64("calls", 2000), t0, t1, sum_null = 0, sum_vtl = 0;
    u64 sum_vmcall = 0, p1_ticks = 0, p1_calls = 0;
    int busy = arg_u64("busy", 0);
    u64 window = arg_u64("ticks", 0);
    u64 progress = arg_u64("progress", 0);
    int smp = arg_u64("smp", 1);

    vbs_boot();
    if (arg_u64("enable", 0)) {
        /* plane 1 gets a state of its own on vCPU 1: calls in parallel */
        u64 index = 1;

        if (vtl_call(CA0, VTL_TEST_ENABLE, &index, 8) != 0) {
            guest_exit(EXIT_FAIL);
        }
    }
    if (smp > 1 && window) {
        bench_vtl_timed(window);
        return;
    }
    if (smp > 1) {
        /* aggregate rate: both vCPUs call at once */
        if (!start_ap()) {
            guest_exit(EXIT_FAIL);
        }
        ap_calls = n;
        t0 = rdtsc();
        ap_mode = 1;
        ap_seq++;
        if (!progress) {
            ap_errors += echo_loop(CA0, 0x22, n);
        }
        /* progress=N: a line every N calls, for tests to pace themselves */
        for (u64 done = 0; progress && done < n; done += progress) {
            u64 chunk = n - done < progress ? n - done : progress;

            ap_errors += echo_loop(CA0, 0x22, chunk);
            printf("P0: bench-vtl %u calls\n", done + chunk);
        }
        while (!ap_done) {
            __asm__ volatile("pause");
        }
        t1 = rdtsc();
        printf("BENCH vtl2 calls=%u ticks=%u errors=%u\n", 2 * n, t1 - t0,
               ap_errors);
        return;
    }
    for (u64 i = 0; i < n; i++) {
        t0 = rdtsc();
        hc(HC_UNKNOWN, 0, 0);
        t1 = rdtsc();
        sum_null += t1 - t0;
    }
    /* busy=1: plane 1's own ticks too (two calls more) */
    if (busy) {
        busy_ticks(CA0, &p1_ticks, &p1_calls);     /* from here on */
    }
    for (u64 i = 0; i < n; i++) {
        t0 = rdtsc();
        if (!echo_ok(CA0, (u32)i)) {
            guest_exit(EXIT_FAIL);
        }
        t1 = rdtsc();
        sum_vtl += t1 - t0;
        sum_vmcall += echo_vmcall_ticks;
        if (i < arg_u64("samples", 0)) {
            printf("LAT %u\n", t1 - t0);
        }
    }
    if (busy) {
        busy_ticks(CA0, &p1_ticks, &p1_calls);
    }
    /*
     * vmcall_ticks: the VMCALLs alone; p1_ticks: plane 1's own code in
     * them, from its resume to its VTL_RETURN; the rest is the VMM's.
     */
    printf("BENCH vtl calls=%u null_ticks=%u vtl_ticks=%u vmcall_ticks=%u "
           "p1_ticks=%u p1_calls=%u\n", n, sum_null, sum_vtl, sum_vmcall,
           p1_ticks, p1_calls);
    /* refuse=K: K refused VTL calls and K refused VTL returns (stats) */
    for (u64 i = 0, k = arg_u64("refuse", 0); i < k; i++) {
        if (hc(HC_VTL_CALL, (u64)CA0 + 8, 0) != -14 ||
            hc(HC_VTL_RETURN, 0, 0) != -1) {
            guest_exit(EXIT_FAIL);
        }
    }
}

/*
 * bench-ports: N reads of a chipset port by plane 0 (allowed) and by
 * plane 1 (dropped: plane 0's chipset), each timed where it runs.
 */
static void bench_ports(void)
{
    u64 n = arg_u64("reads", 100000), port = arg_u64("port", 0x40);
    u64 args[2] = { port, n }, t0, t1;
    u8 sum = 0;

    vbs_boot();
    t0 = rdtsc();
    for (u64 i = 0; i < n; i++) {
        sum += inb((u16)port);
    }
    t1 = rdtsc();
    if (vtl_call(CA0, VTL_TEST_PORT_READS, args, sizeof(args)) != 0) {
        guest_exit(EXIT_FAIL);
    }
    printf("BENCH ports port=0x%x reads=%u allowed_ticks=%u "
           "dropped_ticks=%u dropped_value=%u check=%u\n", port, n, t1 - t0,
           ((u64 *)CA0->buffer)[0], ((u64 *)CA0->buffer)[1], (u64)sum);
}

/*
 * The same VTL call pages across a system reset that moves plane 1's
 * region over them: QEMU must check them again (it remembers pages that
 * passed).  RAM outside the kernel image survives the reset, so a marker
 * there tells the two boots apart.
 */
#define RELAYOUT_MARK    0x3f00000UL
#define RELAYOUT_MAGIC   0x72656c61796f7574ULL      /* "relayout" */
#define RELAYOUT_REQUEST 0x6000000UL

static void test_relayout(void)
{
    volatile u64 *mark = (volatile u64 *)RELAYOUT_MARK;
    struct calling_area *ca = (void *)RELAYOUT_REQUEST;
    s64 r;

    if (*mark != RELAYOUT_MAGIC) {
        *mark = RELAYOUT_MAGIC;
        vbs_boot();
        r = vtl_call(ca, VTL_ECHO, "\7\0\0\0", 4);
        printf("RESULT relayout-first rax=%d status=%d\n", r,
               (s64)ca->status);
        puts("P0: resetting\n");
        outb(0xcf9, 0x06);          /* ICH9 reset control: hard reset */
        guest_exit(EXIT_FAIL);
    }
    *mark = 0;
    fill_config();
    cfg[1].load_offset = RELAYOUT_REQUEST;
    if (config(2) != 0) {
        guest_exit(EXIT_FAIL);
    }
    load_plane1();
    if (activate(2) != 0) {
        guest_exit(EXIT_FAIL);
    }
    /* the pages now lie in plane 1's (sealed) region: no write, just call */
    r = hc(HC_VTL_CALL, RELAYOUT_REQUEST, 0);
    printf("RESULT relayout-second rax=%d\n", r);
}

/* planes=1: stock TCG has no VMCALL, so the guest gets #UD. */
static void test_no_planes(void)
{
    u64 rip_probe;

    fill_config();
    __asm__ volatile("lea 1f(%%rip), %%rax\n\t"
                     "mov %%rax, fixup_rip(%%rip)\n\t"
                     "mov $13, %%eax\n\t"
                     "vmcall\n"
                     "1:"
                     : "=a"(rip_probe) : "b"((u64)cfg), "c"(2UL) : "memory");
    fixup_rip = 0;
    printf("RESULT planes1 trap=%u\n", last_vector);
}

/* -- the storm ------------------------------------------------------------ */

/*
 * Random hypercalls with random registers from both planes and both
 * vCPUs, VTL calls among them, while the test stops, continues and resets
 * the VM from outside.  Every answer must be one the ABI documents for
 * that call and caller, no access of plane 0 may reach plane 1's region,
 * and at the end plane 1 finds its region as it left it.
 */
#define STORM_ATTR_PAGES    8
#define PLANE1_CALLER       0x100

struct storm_stats {
    u64 calls, vtl_calls, undocumented, wrong, reached, first_bad;
};

static struct storm_stats storm_stats[2];
static u8 storm_attr[2][STORM_ATTR_PAGES][4096] __attribute__((aligned(4096)));
static volatile int storm_ap_done;

static u64 storm_rand64(u64 *seed)
{
    return (u64)fuzz_rand(seed) << 32 | fuzz_rand(seed);
}

/* The codes the ABI documents for hypercall @nr from @caller's plane. */
static int storm_documented(u64 nr, int caller, s64 r)
{
    switch (nr | caller) {
    case HC_CONFIG:
        return r == 0 || r == -KVM_EPERM || r == -KVM_E2BIG ||
               r == -KVM_EFAULT || r == -KVM_EINVAL;
    case HC_ACTIVATE:
        return r == -KVM_EPERM || r == -KVM_EINVAL;
    case HC_VTL_CALL:
        return r == 0 || r == -KVM_EFAULT || r == -KVM_EINVAL ||
               r == -KVM_EBUSY;
    case HC_VTL_RETURN:
    case HC_SET_MEM_ATTRS:
    case HC_ENABLE_VCPU:
    case PLANE1_CALLER | HC_CONFIG:
    case PLANE1_CALLER | HC_ACTIVATE:
    case PLANE1_CALLER | HC_VTL_CALL:
        return r == -KVM_EPERM;
    case PLANE1_CALLER | HC_SET_MEM_ATTRS:
        return r == 0 || r == -KVM_EPERM || r == -KVM_E2BIG ||
               r == -KVM_EFAULT || r == -KVM_EINVAL;
    case PLANE1_CALLER | HC_ENABLE_VCPU:
        return r == -KVM_EINVAL || r == -KVM_EFAULT;
    default:
        return r == -KVM_ENOSYS;
    }
}

/* A GPA a hostile guest would pass: garbage, the region, a scratch page. */
static u64 storm_gpa(u64 *seed, int cpu)
{
    u64 region = cfg[1].load_offset, size = cfg[1].memory_size;

    switch (fuzz_rand(seed) % 6) {
    case 0:
        return storm_rand64(seed);
    case 1:
        return region + (storm_rand64(seed) % size & ~0xfffUL);
    case 2:
        return region + size - 4096 + fuzz_rand(seed) % 8192;
    case 3:
        return (u64)storm_attr[cpu] + fuzz_rand(seed) % (STORM_ATTR_PAGES *
                                                         4096);
    case 4:
        return fuzz_rand(seed) % 0x40000000UL;      /* anywhere low */
    default:
        return ~0UL - fuzz_rand(seed) % 0x10000;
    }
}

static u64 storm_nr(u64 *seed)
{
    u32 pick = fuzz_rand(seed) % 16;

    if (pick < 12) {
        return HC_CONFIG + pick % 6;
    }
    return pick < 14 ? fuzz_rand(seed) % 32 : storm_rand64(seed);
}

static void storm_note(struct storm_stats *st, u64 nr, int caller, s64 r)
{
    st->calls++;
    if (!storm_documented(nr, caller, r)) {
        st->undocumented++;
        if (!st->first_bad) {
            st->first_bad = 1;
            printf("P0: undocumented answer %d to hypercall %u from plane "
                   "%u\n", r, nr, (u64)(caller != 0));
        }
    }
}

/* One step: a hypercall of plane 0, one of plane 1, or a probe. */
static void storm_step(u64 *seed, int cpu)
{
    struct calling_area *ca = cpu ? CA1 : CA0;
    struct storm_stats *st = &storm_stats[cpu];
    u64 nr, a[5];
    u8 v = 0;
    s64 r;

    switch (fuzz_rand(seed) % 8) {
    case 0:
    case 1:
        /* plane 0: any number, any registers */
        nr = storm_nr(seed);
        if (nr == HC_VTL_CALL) {
            u64 gpa = storm_gpa(seed, cpu);

            /* a page of plane 0's RAM would get a real call: not here */
            if (gpa < 0x100000000UL && !(gpa & 0xfff) &&
                (gpa < cfg[1].load_offset ||
                 gpa >= cfg[1].load_offset + cfg[1].memory_size)) {
                gpa |= 1;
            }
            r = hypercall(nr, gpa, storm_rand64(seed), storm_rand64(seed),
                          storm_rand64(seed));
        } else {
            r = hypercall(nr, fuzz_rand(seed) % 2 ? storm_gpa(seed, cpu)
                                                  : storm_rand64(seed),
                          fuzz_rand(seed) % 8, storm_rand64(seed),
                          storm_rand64(seed));
        }
        storm_note(st, nr, 0, r);
        break;
    case 2:
    case 3:
        /* plane 1, on request: anything but VTL_RETURN */
        do {
            nr = storm_nr(seed);
        } while (nr == HC_VTL_RETURN);
        a[0] = nr;
        a[1] = storm_gpa(seed, cpu);
        a[2] = fuzz_rand(seed) % 2 ? storm_rand64(seed)
                                   : fuzz_rand(seed) % 0x10000;
        a[3] = fuzz_rand(seed) % 10;
        a[4] = storm_rand64(seed);
        /*
         * Valid arguments only where plane 0 survives them: attributes
         * on the scratch pages (elsewhere garbage that no RAM matches,
         * or plane 1 could hide plane 0's code or unseal its region), no
         * state enabled from a garbage register block.
         */
        if (nr == HC_SET_MEM_ATTRS) {
            if (fuzz_rand(seed) % 2) {
                a[1] = (u64)storm_attr[cpu] +
                       fuzz_rand(seed) % (STORM_ATTR_PAGES - 1) * 4096;
                a[2] = 4096 * (1 + fuzz_rand(seed) % 2);
            } else {
                a[1] |= 1UL << 63 | 1;
            }
        } else if (nr == HC_ENABLE_VCPU) {
            a[1] = fuzz_rand(seed) % 2 ? fuzz_rand(seed) % 4 : a[1];
            a[2] |= 1UL << 63;
        }
        r = vtl_call(ca, VTL_TEST_HC, a, sizeof(a));
        st->vtl_calls += r == 0;
        if (r == 0) {
            storm_note(st, nr, PLANE1_CALLER, vtl_status(ca));
        } else if (r != -KVM_EBUSY) {
            st->wrong++;
        }
        break;
    case 4: {
        /* a VTL call with a checked answer, or an id nobody serves */
        u32 value = fuzz_rand(seed);

        if (fuzz_rand(seed) % 4) {
            r = vtl_call(ca, VTL_ECHO, &value, 4);
            if (r == 0) {
                st->vtl_calls++;
                st->wrong += ca->status != (s32)value || ca->resp_size != 4;
            }
        } else {
            r = vtl_call(ca, 0x7e00 + value % 256, &value, 4);
            if (r == 0) {
                st->vtl_calls++;
                st->wrong += ca->status != -KVM_EOPNOTSUPP;
            }
        }
        st->wrong += r != 0 && r != -KVM_EBUSY;
        break;
    }
    case 5: {
        /* plane 0 reaches into the region: every access faults */
        if (cpu) {
            break;              /* the probes' fixup is vCPU 0's alone */
        }
        u64 gpa = cfg[1].load_offset +
                  storm_rand64(seed) % cfg[1].memory_size;

        st->reached += (fuzz_rand(seed) % 2 ? try_write8(gpa, 0x5a)
                                            : try_read8(gpa, &v)) != 15;
        break;
    }
    default:
        /* whatever plane 1 left the scratch pages as */
        if (cpu) {
            break;
        }
        nr = (u64)storm_attr[cpu] + fuzz_rand(seed) % sizeof(storm_attr[cpu]);
        if (fuzz_rand(seed) % 2) {
            try_write8(nr, 0xa5);
        } else {
            try_read8(nr, &v);
        }
        break;
    }
}

static void storm_run(int cpu)
{
    u64 seed = arg_u64("seed", 1) * 2 + cpu, iters = arg_u64("iters", 2000);

    for (u64 i = 0; i < iters; i++) {
        storm_step(&seed, cpu);
    }
}

static void test_storm(void)
{
    u64 lift[3] = { 0, 2 * STORM_ATTR_PAGES, ALLOW_ALL };
    struct storm_stats total = { 0 };
    s64 check;

    if (!start_ap()) {
        puts("P0: the AP did not start\n");
        guest_exit(EXIT_FAIL);
    }
    vbs_boot();
    puts("P0: storm running\n");
    ap_mode = 3;
    ap_seq++;
    storm_run(0);
    while (!ap_done) {
        __asm__ volatile("pause");
    }
    /* plane 1 lifts what it set on the scratch pages, then checks */
    lift[0] = (u64)storm_attr >> 12;
    if (vtl_call(CA0, VTL_PROTECT_MEMORY, lift, 20) || vtl_status(CA0)) {
        puts("P0: lifting the scratch attributes failed\n");
        guest_exit(EXIT_FAIL);
    }
    check = vtl_call(CA0, VTL_TEST_CHECK, NULL, 0) ?: vtl_status(CA0);
    for (int cpu = 0; cpu < 2; cpu++) {
        total.calls += storm_stats[cpu].calls;
        total.vtl_calls += storm_stats[cpu].vtl_calls;
        total.undocumented += storm_stats[cpu].undocumented;
        total.wrong += storm_stats[cpu].wrong;
        total.reached += storm_stats[cpu].reached;
    }
    printf("P0: storm: %u hypercalls checked, %u VTL calls answered\n",
           total.calls, total.vtl_calls);
    printf("RESULT storm undocumented=%u wrong=%u reached=%u region=%s\n",
           total.undocumented, total.wrong, total.reached,
           check == 0 ? "intact" : "changed");
    if (total.undocumented || total.wrong || total.reached || check) {
        guest_exit(EXIT_FAIL);
    }
}

/*
 * Migration (test=migrate): both vCPUs make ECHO calls, each answer
 * checked, until the test writes a non-zero u64 at MIGRATE_STOP (after
 * its savevm/loadvm or migrations); then plane 1 says how many ECHO calls
 * it served (each exactly once: none lost, none made twice), and plane 0
 * probes the sealed region (-machine plane-violation=fault).  With
 * stop=serial a byte received on COM1 ends the calls as well: the libvirt
 * test reaches the guest only through its serial socket.
 */
static volatile u64 mig_rounds[2], mig_wrong[2];
static int mig_stop_serial;

static int migrate_stopped(void)
{
    return *(volatile u64 *)MIGRATE_STOP ||
           (mig_stop_serial && (inb(0x3f8 + 5) & 1));   /* COM1 data ready */
}

static void migrate_run(int cpu)
{
    struct calling_area *ca = cpu ? CA1 : CA0;

    for (u32 i = 1; !migrate_stopped(); i++) {
        mig_wrong[cpu] += !echo_ok(ca, (u32)(cpu + 1) << 28 |
                                       (i & 0x0fffffff));
        mig_rounds[cpu]++;
        if (!cpu && !(i % 5000)) {
            printf("P0: migrate rounds %u %u wrong %u\n", mig_rounds[0],
                   mig_rounds[1], mig_wrong[0] + mig_wrong[1]);
        }
    }
}

static void test_migrate(void)
{
    u64 served = 0;
    s64 check, trap;
    u8 v;

    char hold[16];

    *(volatile u64 *)MIGRATE_STOP = 0;
    *(volatile u64 *)MIGRATE_HOLD = 0;
    arg_str("stop", "", hold, sizeof(hold));
    mig_stop_serial = !strcmp(hold, "serial");
    if (!start_ap_maybe_plugged()) {
        puts("P0: the AP did not start\n");
        guest_exit(EXIT_FAIL);
    }
    migrate_hold("start");          /* plane 1 created */
    fill_config();
    if (config(2) != 0) {
        /* the test looks at the refusal, and ends the VM itself */
        for (;;) {
            __asm__ volatile("cli; hlt");
        }
    }
    migrate_hold("config");         /* plane 1 configured */
    load_plane1();
    if (activate(2) != 0) {
        guest_exit(EXIT_FAIL);
    }
    migrate_hold("parked");         /* plane 1 parked, nothing pending */
    arg_str("hold", "", hold, sizeof(hold));
    if (!strcmp(hold, "spin")) {
        /* plane 1 running a long call on vCPU 0 */
        u64 spin = 10000000;

        puts("P0: held at spin\n");
        if (vtl_call(CA0, VTL_TEST_SPIN, &spin, 8) != 0) {
            guest_exit(EXIT_FAIL);
        }
        puts("P0: spin call done\n");
    }
    puts("P0: migrate running\n");
    ap_mode = 4;
    ap_seq++;
    migrate_run(0);
    while (!ap_done) {
        __asm__ volatile("pause");
    }
    if (vtl_call(CA0, VTL_TEST_ECHO_COUNT, NULL, 0) == 0 &&
        vtl_status(CA0) == 0) {
        served = *(u64 *)CA0->buffer;
    }
    check = vtl_call(CA0, VTL_TEST_CHECK, NULL, 0) ?: vtl_status(CA0);
    trap = try_read8(cfg[1].load_offset, &v) - 1;
    printf("RESULT migrate calls=%u served=%u wrong=%u sealed-trap=%d "
           "region=%s\n", mig_rounds[0] + mig_rounds[1], served,
           mig_wrong[0] + mig_wrong[1], trap,
           check == 0 ? "intact" : "changed");
    if (mig_wrong[0] || mig_wrong[1] || trap != 14 || check ||
        served != mig_rounds[0] + mig_rounds[1]) {
        guest_exit(EXIT_FAIL);
    }
}

/*
 * test=launched: the host launched plane 1 (-object plane-launch) before
 * this guest's first instruction.  CONFIG and ACTIVATE are refused, VTL
 * calls work, and the region (p1base=, when given) is sealed.
 */
static void test_launched(void)
{
    u64 base = arg_u64("p1base", 0);
    u8 v;

    fill_config();
    result("launched-config", config(2));
    result("launched-activate", activate(2));
    printf("P0: echo from launched plane 1: %s\n",
           echo_ok(CA0, 0x1a0c) && echo_ok(CA1, 0x1a0d) ? "ok" : "wrong");
    if (base) {
        printf("P0: read of launched region: trap=%d\n",
               (s64)try_read8(base, &v) - 1);
    }
}

/* plane1.S's p1_shared_inc: offset 16 of the plane-1 image */
#define P1_SHARED_INC_OFFSET 16

/* One ECHO call, from a function of its own for gdb to break at */
static __attribute__((noinline)) s64 gdb_echo(u32 value)
{
    return vtl_call(CA0, VTL_ECHO, &value, 4);
}

/*
 * For tests/planes/gdb/: plane 0 runs the code at offset 16 of plane 1's
 * image while it is still plane 0's to fill, then ACTIVATE, then three
 * ECHO calls (plane 1 runs the same code to count them).
 */
static void test_gdb(void)
{
    u64 (*shared_inc)(u64);
    u64 calls = arg_u64("calls", 3);

    fill_config();
    if (config(2) != 0) {
        guest_exit(EXIT_FAIL);
    }
    load_plane1();
    shared_inc = (void *)(cfg[1].load_offset + P1_SHARED_INC_OFFSET);
    printf("RESULT gdb-shared %u\n", shared_inc(41));
    if (activate(2) != 0) {
        guest_exit(EXIT_FAIL);
    }
    for (u64 i = 1; i <= calls; i++) {
        s64 r = gdb_echo(0x1000 + i);

        printf("RESULT gdb-echo %u rax=%d status=0x%x\n", i, r,
               (u64)vtl_status(CA0));
    }
    if (vtl_call(CA0, VTL_TEST_ECHO_COUNT, NULL, 0) == 0) {
        printf("RESULT gdb-echo-count %u\n", *(u64 *)CA0->buffer);
    }
}

void main(u32 start_info)
{
    const struct hvm_start_info *si = (const void *)(u64)start_info;
    const char *test;

    serial_init();
    /*
     * The firmware's 8259 maps the PIT timer to vector 8 (#DF here): mask
     * both PICs, interrupts come only from tests that arm the LAPIC.
     */
    outb(0x21, 0xff);
    outb(0xa1, 0xff);
    traps_init();
    last_vector = ~0UL;
    if (si->magic == 0x336ec578 && si->cmdline_paddr) {
        cmdline = (const char *)si->cmdline_paddr;
    }
    printf("P0: booting, cmdline '%s'\n", cmdline);
    use_vmmcall = arg_u64("vmmcall", 0);
    halt_at_exit = arg_u64("halt", 0);
    test = cmdline_arg(cmdline, "test");
    if (!test || !strncmp(test, "boot", 4)) {
        test_boot();
    } else if (!strncmp(test, "plane1-exit", 11)) {
        u32 code = EXIT_PASS;

        vbs_boot();
        vtl_call(CA0, VTL_TEST_EXIT, &code, 4);
        puts("P0: still here after plane 1 ended the VM\n");
        guest_exit(EXIT_FAIL);
    } else if (!strncmp(test, "attrs-fuzz", 10)) {
        test_attrs_fuzz();
    } else if (!strncmp(test, "relayout", 8)) {
        test_relayout();
    } else if (!strncmp(test, "bench-spin", 10)) {
        bench_spin();
    } else if (!strncmp(test, "bench-vtl", 9)) {
        bench_vtl();
    } else if (!strncmp(test, "gdb", 3)) {
        test_gdb();
    } else if (!strncmp(test, "bench-ports", 11)) {
        bench_ports();
    } else if (!strncmp(test, "hello", 5)) {
        /* for hosts whose KVM never returns from a hypercall */
        puts("P0: hello from plane 0, no hypercalls\n");
    } else if (!strncmp(test, "vbs", 3)) {
        test_vbs();
    } else if (!strncmp(test, "hp-enable", 9)) {
        test_hp_enable();
    } else if (!strncmp(test, "activate-ap", 11)) {
        test_activate_ap();
    } else if (!strncmp(test, "home", 4)) {
        test_home();
    } else if (!strncmp(test, "plane1-crash", 12)) {
        test_plane1_crash();
    } else if (!strncmp(test, "busy", 4)) {
        test_busy();
    } else if (!strncmp(test, "irq", 3)) {
        test_irq();
    } else if (!strncmp(test, "device-irq", 10)) {
        test_device_irq();
    } else if (!strncmp(test, "virtio-plane", 12)) {
        test_virtio_plane();
    } else if (!strncmp(test, "virtio-interpose", 16)) {
        test_virtio_interpose();
    } else if (!strncmp(test, "virtio-capture", 14)) {
        test_virtio_capture();
    } else if (!strncmp(test, "com2-pmbase", 11)) {
        test_com2_pmbase();
    } else if (!strncmp(test, "chipset", 7)) {
        test_chipset();
    } else if (!strncmp(test, "noplanes", 8)) {
        test_no_planes();
    } else if (!strncmp(test, "storm", 5)) {
        test_storm();
    } else if (!strncmp(test, "launched", 8)) {
        test_launched();
    } else if (!strncmp(test, "migrate", 7)) {
        test_migrate();
    } else {
        char name[64];

        arg_str("test", "", name, sizeof(name));
        test_negative(name);
    }
    guest_exit(EXIT_PASS);
}
