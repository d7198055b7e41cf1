/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Plane-1 secure monitor: reports its boot state, hides its region, then
 * serves VTL calls through the calling area plane 0 passes.  Only what
 * the VMM can see is implemented: memory protection through SET_MEM_ATTRS;
 * other seed call ids answer -EOPNOTSUPP.
 */

#include "guest.h"

#define BP_EXT_CMD_LINE_PTR 0x0c8
#define BP_E820_ENTRIES     0x1e8
#define BP_HDR_CMD_LINE_PTR 0x228
#define BP_E820_TABLE       0x2d0

static u64 region_base, region_size;

/* plane1.S: at offset 16 of the image, run by both planes */
u64 p1_shared_inc(u64 value);

/* ECHO calls served (a debugger's watchpoint target too) */
static u64 echo_count;

/*
 * What plane 0 must never change: the monitor's code and constants, and
 * a canary filled at boot with a pattern plane 0 cannot know.
 */
static u64 canary[4096];
static u64 region_digest;

static u64 fnv1a(u64 h, const u8 *p, u64 n)
{
    for (u64 i = 0; i < n; i++) {
        h = (h ^ p[i]) * 0x100000001b3UL;
    }
    return h;
}

static u64 region_checksum(void)
{
    extern char _start[], __rodata_end[];
    u64 h = 0xcbf29ce484222325UL;

    h = fnv1a(h, (const u8 *)_start, __rodata_end - _start);
    return fnv1a(h, (const u8 *)canary, sizeof(canary));
}

static u64 rdtsc(void)
{
    u32 lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((u64)hi << 32) | lo;
}

/* The initial APIC ID: CPUID leaf 1, EBX bits 31-24 */
static u64 cpuid_apic_id(void)
{
    u32 a = 1, b, c = 0, d;

    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    return b >> 24;
}

static void p1_timer_start(const char *cmdline);

/* Reports the boot state; returns 1 when the cmdline asks to park by HLT. */
int p1_boot(const u8 *bp)
{
    extern char _start[];
    u64 cr0, cr3, cr4;
    u16 cs;
    const char *cmdline = (const char *)(u64)(*(const u32 *)(bp + BP_HDR_CMD_LINE_PTR) |
                          ((u64)*(const u32 *)(bp + BP_EXT_CMD_LINE_PTR) << 32));
    u8 entries = bp[BP_E820_ENTRIES];
    const char *park;

    __asm__ volatile("mov %%cr0, %0; mov %%cr3, %1; mov %%cr4, %2; "
                     "mov %%cs, %3"
                     : "=r"(cr0), "=r"(cr3), "=r"(cr4), "=r"(cs));
    printf("P1: secure monitor running at 0x%x, boot_params at 0x%x\n",
           (u64)_start, (u64)bp);
    printf("P1: cr0=0x%x cr3=0x%x cr4=0x%x efer=0x%x cs=0x%x\n", cr0, cr3,
           cr4, rdmsr(0xc0000080), (u64)cs);
    printf("P1: apicbase=0x%x apic-id=%u\n", rdmsr(0x1b), cpuid_apic_id());
    printf("P1: cmdline '%s'\n", cmdline);
    for (u8 i = 0; i < entries; i++) {
        const u8 *e = bp + BP_E820_TABLE + i * 20;
        u64 addr = *(const u64 *)e, size = *(const u64 *)(e + 8);

        printf("P1: e820 0x%x-0x%x type %u\n", addr, addr + size - 1,
               (u64)*(const u32 *)(e + 16));
        if (i == 0) {
            region_base = addr;
        }
        region_size = addr + size - region_base;
    }
    for (u64 i = 0, x = rdtsc() | 1; i < sizeof(canary) / 8; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        canary[i] = x;
    }
    region_digest = region_checksum();
    /* As the seed's secure kernel: hide its own region from plane 0 */
    printf("P1: hide own region rax=%d\n",
           hypercall(HC_SET_MEM_ATTRS, region_base, region_size, 0, 0));
    /* bootspin=N: a slow boot, for tests of calls made meanwhile */
    if (cmdline_arg(cmdline, "bootspin")) {
        for (u64 i = parse_u64(cmdline_arg(cmdline, "bootspin")); i; i--) {
            __asm__ volatile("pause");
        }
    }
    if (cmdline_arg(cmdline, "timer")) {
        p1_timer_start(cmdline);
        puts("P1: local APIC timer running\n");
    }
    park = cmdline_arg(cmdline, "park");
    if (park && !strncmp(park, "hlt", 3)) {
        puts("P1: parking with HLT\n");
        return 1;
    }
    puts("P1: parking with VTL_RETURN\n");
    return 0;
}

static s64 set_mem_attrs(u64 gpa, u64 size, u64 allow)
{
    return hypercall(HC_SET_MEM_ATTRS, gpa, size, allow, 0);
}

/* COM2, the console a test may give plane 1 */
#define COM2 0x2f8

static void com2_puts(const char *s)
{
    for (; *s; s++) {
        for (int i = 0; i < 100000 && !(inb(COM2 + 5) & 0x20); i++) {
        }
        outb(COM2, *s);
    }
}

static void ioapic_write(u32 reg, u32 v)
{
    *(volatile u32 *)0xfec00000UL = reg;
    *(volatile u32 *)0xfec00010UL = v;
}

/*
 * What a Linux secure kernel that found plane 0's ACPI tables does to the
 * chipset while it boots: reprogram the 8259s, route IOAPIC pins 0, 2 and
 * 8 to vector 0x20 on APIC 0, start the PIT, the HPET and the RTC's
 * periodic interrupt, and send an MSI to APIC 0.  Plane 0 must see none of
 * it.  Also says hello on COM2, plane 1's console if the test gave it one.
 */
static void p1_program_chipset(void)
{
    volatile u8 *hpet = (volatile u8 *)0xfed00000UL;
    u64 period_fs = *(volatile u32 *)(hpet + 0x004);
    u64 ticks = period_fs ? 1000000000000UL / period_fs : 1;
    static const u8 pins[] = { 0, 2, 8 };

    com2_puts("P1: hello on plane 1's own console\n");
    /* the 8259s as Linux's init_8259A(): ICW1-4, then unmasked */
    outb(0x20, 0x11);
    outb(0x21, 0x30);
    outb(0x21, 0x04);
    outb(0x21, 0x01);
    outb(0xa0, 0x11);
    outb(0xa1, 0x38);
    outb(0xa1, 0x02);
    outb(0xa1, 0x01);
    outb(0x21, 0x00);
    outb(0xa1, 0x00);
    /* IOAPIC: edge, fixed, physical, unmasked, to APIC 0 */
    for (u64 i = 0; i < sizeof(pins); i++) {
        ioapic_write(0x11 + 2 * pins[i], 0);
        ioapic_write(0x10 + 2 * pins[i], 0x20);
    }
    /* PIT channel 0: rate generator at 1 kHz, as pit_set_periodic() */
    outb(0x43, 0x34);
    outb(0x40, 1193 & 0xff);
    outb(0x40, 1193 >> 8);
    /* HPET: timer 0 periodic at 1 kHz, legacy replacement routing */
    *(volatile u64 *)(hpet + 0x100) = (1 << 2) | (1 << 3) | (1 << 6);
    *(volatile u64 *)(hpet + 0x108) = *(volatile u64 *)(hpet + 0x0f0) + ticks;
    *(volatile u64 *)(hpet + 0x108) = ticks;
    *(volatile u64 *)(hpet + 0x010) = 3;
    /* RTC: 1024 Hz periodic interrupt (status A rate 6, status B PIE) */
    outb(0x70, 0x0a);
    outb(0x71, 0x26);
    outb(0x70, 0x0b);
    outb(0x71, 0x42);
    /* an MSI to APIC 0, vector 0x21, through the APIC page's MSI window */
    *(volatile u32 *)0xfee00000UL = 0x21;
}

/*
 * Plane 1's own device interrupt: COM2's receive interrupt, wired to LINT0
 * of plane 1's boot state, at vector 0x50.  Plane 1 runs with interrupts
 * off except for a moment in VTL_TEST_IRQ_TAKE, so what COM2 raises while
 * plane 0 runs must wait in plane 1's APIC until then.
 */
#define P1_LAPIC 0xfee00000UL
#define P1_IRQ_VECTOR 0x50

extern char p1_irq[], p1_tick[];
volatile u64 p1_irq_count, p1_tick_count;
/* plane1.S: the TSC ticks plane 1 spent in the calls it served, and how many */
volatile u64 p1_busy_ticks, p1_busy_calls;
static u64 p1_idt[2 * 256] __attribute__((aligned(16)));

static void p1_lapic_write(u32 reg, u32 v)
{
    *(volatile u32 *)(P1_LAPIC + reg) = v;
}

static u32 p1_lapic_read(u32 reg)
{
    return *(volatile u32 *)(P1_LAPIC + reg);
}

/* Plane 1's IDT with @handler at @vector, its APIC software-enabled */
static void p1_vector_setup(u8 vector, const char *handler)
{
    u64 a = (u64)handler;
    struct { u16 limit; u64 base; } __attribute__((packed)) idtr = {
        sizeof(p1_idt) - 1, (u64)p1_idt,
    };

    p1_idt[vector * 2] = (a & 0xffff) | (0x08UL << 16) |
                         (0x8eUL << 40) | ((a >> 16 & 0xffff) << 48);
    p1_idt[vector * 2 + 1] = a >> 32;
    __asm__ volatile("lidt %0" : : "m"(idtr));
    p1_lapic_write(0xf0, 0x1ff);                /* enable, spurious 0xff */
}

static void p1_interrupts_setup(u8 vector)
{
    p1_vector_setup(vector, p1_irq);
}

/*
 * timer=1: plane 1 starts its local APIC timer while it boots, as Linux
 * does (periodic, 1 ms: QEMU's APIC counts nanoseconds at divide 1), and
 * keeps interrupts off but in VTL_TEST_TICKS: a tick that comes meanwhile
 * waits in its APIC.  tick=NS sets another period: each tick still kicks
 * plane 1's vCPU thread, which tests/planes/gdb uses to race gdb's steps.
 */
#define P1_TIMER_VECTOR 0x52
#define P1_TIMER_PERIOD 1000000

static void p1_timer_start(const char *cmdline)
{
    const char *tick = cmdline_arg(cmdline, "tick");

    p1_vector_setup(P1_TIMER_VECTOR, p1_tick);
    p1_lapic_write(0x3e0, 0xb);                 /* divide by 1 */
    p1_lapic_write(0x320, P1_TIMER_VECTOR | 1 << 17);   /* periodic */
    p1_lapic_write(0x380, tick ? parse_u64(tick) : P1_TIMER_PERIOD);
}

/*
 * {ticks wanted} -> {ticks taken, LVT timer, SVR, APIC ID, loops left}:
 * interrupts on until the timer has ticked that often, or a bounded
 * number of loops passed (a timer left on another vCPU never ticks here).
 */
static void p1_wait_ticks(u64 *a)
{
    u64 want = a[0], before = p1_tick_count, loops = 400000000;

    __asm__ volatile("sti");
    while (p1_tick_count - before < want && loops) {
        loops--;
        __asm__ volatile("" : : : "memory");
    }
    __asm__ volatile("cli");
    a[0] = p1_tick_count - before;
    a[1] = p1_lapic_read(0x320);
    a[2] = p1_lapic_read(0xf0);
    a[3] = cpuid_apic_id();
    a[4] = loops;
}

static void p1_irq_setup(void)
{
    p1_interrupts_setup(P1_IRQ_VECTOR);
    p1_lapic_write(0x350, P1_IRQ_VECTOR);       /* LINT0: fixed, edge */
    outb(COM2 + 3, 0x03);                       /* 8n1 */
    outb(COM2 + 4, 0x08);                       /* OUT2 */
    while (inb(COM2 + 5) & 0x01) {
        inb(COM2);                              /* nothing stale */
    }
    outb(COM2 + 1, 0x01);                       /* IER: data received */
}

/* Whether @vector waits in plane 1's APIC (its IRR bit) */
static u64 p1_irr_pending(u8 vector)
{
    return p1_lapic_read(0x200 + (vector / 32) * 0x10) >> (vector % 32) & 1;
}

/*
 * One interrupt window: interrupts on for a moment.  Returns how many were
 * taken; *@pending says whether @vector was pending at entry.
 */
static u64 p1_interrupt_window(u8 vector, u64 *pending)
{
    u64 before = p1_irq_count;

    *pending = p1_irr_pending(vector);
    __asm__ volatile("sti");
    for (int i = 0; i < 64; i++) {
        __asm__ volatile("pause");
    }
    __asm__ volatile("cli");
    return p1_irq_count - before;
}

/*
 * {count, pending at entry, byte received or ~0}: one interrupt window,
 * opened only when COM2's interrupt is pending at entry.  One that comes
 * while plane 1 runs stays pending until the next call: otherwise a byte
 * arriving inside the window would be taken without having waited for
 * plane 1 in its APIC, which is what the tests look at.
 */
static void p1_irq_take(u64 *a)
{
    u64 taken = 0;

    a[1] = 0;
    if (p1_irr_pending(P1_IRQ_VECTOR)) {
        taken = p1_interrupt_window(P1_IRQ_VECTOR, &a[1]);
    }
    a[2] = ~0UL;
    if (taken && (inb(COM2 + 5) & 0x01)) {
        a[2] = inb(COM2);
    }
    a[0] = p1_irq_count;
}

/*
 * Plane 1's own PCI function: a virtio-rng-pci (modern) that plane 0
 * cannot see.  Plane 1 is its firmware and its driver: it finds the
 * function through ECAM, places its BARs, points MSI-X entry 0 at its own
 * APIC (vector 0x51), sets up queue 0 in its hidden region and asks for
 * 64 random bytes.  The device's DMA must go through plane 1's view (plane
 * 0's refuses the region) and its interrupt must reach plane 1 alone.
 */
#define P1_VIRTIO_VECTOR 0x51
#define P1_VIRTIO_BARS   0xe0000000UL   /* free in q35's 32-bit PCI hole */
#define P1_VIRTIO_QSIZE  8

struct virtq_desc {
    u64 addr;
    u32 len;
    u16 flags;
    u16 next;
};

static struct {
    struct virtq_desc desc[P1_VIRTIO_QSIZE];
    u16 avail[2 + P1_VIRTIO_QSIZE] __attribute__((aligned(4096)));
    u32 used[1 + 2 * P1_VIRTIO_QSIZE] __attribute__((aligned(4096)));
    u8 buf[64] __attribute__((aligned(4096)));
} p1_vq __attribute__((aligned(4096)));

static volatile u8 *p1_vcommon;
static volatile u16 *p1_vnotify;
/* BARs of the common structure and of the MSI-X table, and the offsets */
static u8 p1_common_bar, p1_msix_bar;
static u32 p1_common_off, p1_notify_off, p1_msix_off;

static volatile u8 *p1_ecam(u32 off)
{
    return (volatile u8 *)(Q35_ECAM_BASE + (VIRTIO_TEST_SLOT << 15) + off);
}

static u64 p1_bar_base(u8 bar)
{
    return P1_VIRTIO_BARS + bar * 0x100000UL;
}

/* Places BAR @bar (32 or 64 bits, as its type says) at @addr. */
static void p1_bar_place(u8 bar, u64 addr)
{
    volatile u32 *reg = (volatile u32 *)p1_ecam(0x10 + 4 * bar);
    u32 type = *reg & 0x6;

    *reg = (u32)addr;
    if (type == 0x4) {
        reg[1] = addr >> 32;
    }
}

/*
 * Hands the device the zeroed buffer (descriptor 0) as the avail ring's
 * entry @avail_idx - 1, publishes @avail_idx and notifies queue 0.
 */
static void p1_virtio_post(u16 avail_idx)
{
    for (int i = 0; i < 64; i++) {
        p1_vq.buf[i] = 0;
    }
    p1_vq.avail[2 + (avail_idx - 1) % P1_VIRTIO_QSIZE] = 0;
    __atomic_store_n(&p1_vq.avail[1], avail_idx, __ATOMIC_RELEASE);
    *p1_vnotify = 0;
}

/*
 * a[0] id (vendor | device << 16), a[1] command register as read back,
 * a[2] queue 0's MSI-X vector as read back, a[3] device status,
 * a[4] what plane 1 reads at the host bridge (00:00.0) through ECAM.
 */
static s32 p1_virtio_start(u64 *a)
{
    volatile u8 *notify = 0;
    u32 notify_mult = 0, bars = 0;
    u8 msix = 0;
    u16 qsize;

    a[4] = *(volatile u32 *)(Q35_ECAM_BASE);
    a[0] = *(volatile u32 *)p1_ecam(0);
    if (a[0] != 0x10441af4) {
        return -1;
    }
    /*
     * One walk of the capabilities: the BARs they name (each placed 1 MiB
     * apart, so where a structure will be is known before the BAR is set),
     * MSI-X, and virtio's common and notify structures.
     */
    for (u8 cap = *p1_ecam(0x34); cap; cap = *p1_ecam(cap + 1)) {
        u8 bar = *p1_ecam(cap + 4);
        u64 where = p1_bar_base(bar) + *(volatile u32 *)p1_ecam(cap + 8);

        if (*p1_ecam(cap) == 0x11) {
            msix = cap;
            bars |= 1 << (*(volatile u32 *)p1_ecam(cap + 4) & 7);
        } else if (*p1_ecam(cap) == 0x09) {
            bars |= 1 << bar;
            if (*p1_ecam(cap + 3) == 1) {
                p1_vcommon = (volatile u8 *)where;
                p1_common_bar = bar;
                p1_common_off = *(volatile u32 *)p1_ecam(cap + 8);
            } else if (*p1_ecam(cap + 3) == 2) {
                notify = (volatile u8 *)where;
                notify_mult = *(volatile u32 *)p1_ecam(cap + 16);
            }
        }
    }
    for (u8 bar = 0; bar < 6; bar++) {
        if (bars & (1 << bar)) {
            p1_bar_place(bar, p1_bar_base(bar));
        }
    }
    *(volatile u16 *)p1_ecam(0x04) = 0x0006;    /* memory, bus master */
    a[1] = *(volatile u16 *)p1_ecam(0x04);
    if (!msix || !p1_vcommon || !notify) {
        return -2;
    }
    /* MSI-X entry 0: this state's APIC (ID 0), vector 0x51, unmasked */
    {
        u32 table = *(volatile u32 *)p1_ecam(msix + 4);
        volatile u32 *e = (volatile u32 *)(p1_bar_base(table & 7) +
                                           (table & ~7U));

        p1_msix_bar = table & 7;
        p1_msix_off = table & ~7U;

        e[0] = 0xfee00000 | (cpuid_apic_id() << 12);
        e[1] = 0;
        e[2] = P1_VIRTIO_VECTOR;
        e[3] = 0;
        *(volatile u16 *)p1_ecam(msix + 2) = 0x8000;
    }
    p1_interrupts_setup(P1_VIRTIO_VECTOR);
    /* virtio 1.x initialisation, common configuration layout */
    p1_vcommon[0x14] = 0;                                   /* reset */
    p1_vcommon[0x14] = 1 | 2;                               /* ACK, DRIVER */
    *(volatile u32 *)(p1_vcommon + 0x08) = 1;
    *(volatile u32 *)(p1_vcommon + 0x0c) = 3;       /* VERSION_1, PLATFORM */
    *(volatile u32 *)(p1_vcommon + 0x08) = 0;
    *(volatile u32 *)(p1_vcommon + 0x0c) = 0;
    p1_vcommon[0x14] |= 8;                                  /* FEATURES_OK */
    if (!(p1_vcommon[0x14] & 8)) {
        a[3] = p1_vcommon[0x14];
        return -3;
    }
    *(volatile u16 *)(p1_vcommon + 0x16) = 0;               /* queue 0 */
    qsize = *(volatile u16 *)(p1_vcommon + 0x18);
    if (qsize < P1_VIRTIO_QSIZE) {
        return -4;
    }
    *(volatile u16 *)(p1_vcommon + 0x18) = P1_VIRTIO_QSIZE;
    *(volatile u16 *)(p1_vcommon + 0x1a) = 0;               /* MSI-X 0 */
    a[2] = *(volatile u16 *)(p1_vcommon + 0x1a);
    *(volatile u64 *)(p1_vcommon + 0x20) = (u64)p1_vq.desc;
    *(volatile u64 *)(p1_vcommon + 0x28) = (u64)p1_vq.avail;
    *(volatile u64 *)(p1_vcommon + 0x30) = (u64)p1_vq.used;
    *(volatile u16 *)(p1_vcommon + 0x1c) = 1;               /* enable */
    p1_vcommon[0x14] |= 4;                                  /* DRIVER_OK */
    a[3] = p1_vcommon[0x14];
    /* one buffer for the device to fill, descriptor 0 each time */
    p1_vq.desc[0].addr = (u64)p1_vq.buf;
    p1_vq.desc[0].len = sizeof(p1_vq.buf);
    p1_vq.desc[0].flags = 2;                                /* WRITE */
    p1_vnotify = (volatile u16 *)(notify + notify_mult *
                                  *(volatile u16 *)(p1_vcommon + 0x1e));
    p1_notify_off = (u64)p1_vnotify - p1_bar_base(p1_common_bar);
    /* where the structures are, for the tests that attack them */
    a[5] = (u64)p1_vcommon;
    a[6] = (u64)p1_vnotify;
    p1_virtio_post(1);
    return 0;
}

/*
 * What plane 1 reaches of its device where it put it: a[0] the ID and
 * a[1] the command register through ECAM, a[2] the device status and
 * a[3] queue 0's size through the common structure.
 */
static s32 p1_virtio_probe(u64 *a)
{
    a[0] = *(volatile u32 *)p1_ecam(0);
    a[1] = *(volatile u16 *)p1_ecam(0x04);
    if (!p1_vcommon) {
        return -1;
    }
    a[2] = p1_vcommon[0x14];
    *(volatile u16 *)(p1_vcommon + 0x16) = 0;
    a[3] = *(volatile u16 *)(p1_vcommon + 0x18);
    return 0;
}

/*
 * {u64 common, u64 msix}: plane 1 moves the BAR of its common structure
 * (the notify structure's too) and the BAR of its MSI-X table there, then
 * reads them back there: a[0] the device status, a[1] MSI-X entry 0's
 * address.
 */
static s32 p1_virtio_move(u64 *a)
{
    u64 common = a[0], msix = a[1];

    if (!p1_vcommon || p1_common_bar == p1_msix_bar) {
        return -1;
    }
    p1_bar_place(p1_common_bar, common);
    p1_bar_place(p1_msix_bar, msix);
    p1_vcommon = (volatile u8 *)(common + p1_common_off);
    p1_vnotify = (volatile u16 *)(common + p1_notify_off);
    a[0] = p1_vcommon[0x14];
    a[1] = *(volatile u32 *)(msix + p1_msix_off);
    return 0;
}

/*
 * The same buffer once more (avail index 2), on the device as it is now:
 * after a migration, the destination's device, BARs, MSI-X table and
 * queue state must be those plane 1 set up on the source.
 */
static s32 p1_virtio_again(void)
{
    if (!p1_vnotify) {
        return -1;
    }
    p1_virtio_post(2);
    return 0;
}

/*
 * {interrupts taken, vector pending at entry, used index, length of the
 *  latest used element, bytes of the buffer not zero}: one interrupt
 *  window, as p1_irq_take()
 */
static void p1_virtio_take(u64 *a)
{
    u16 used_idx;

    a[0] = p1_interrupt_window(P1_VIRTIO_VECTOR, &a[1]);
    used_idx = __atomic_load_n((volatile u16 *)p1_vq.used + 1,
                               __ATOMIC_ACQUIRE);
    a[2] = used_idx;
    a[3] = used_idx ? p1_vq.used[2 + 2 * ((used_idx - 1) % P1_VIRTIO_QSIZE)]
                    : 0;
    a[4] = 0;
    for (int i = 0; i < 64; i++) {
        a[4] += p1_vq.buf[i] != 0;
    }
}

extern char enabled_entry[], stacks[];

/* PLANE_ENABLE_VCPU for @index, entering at the park loop. */
static s64 enable_vcpu(u64 index, struct enable_block *b)
{
    u64 cr3;

    __asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
    b->rip = (u64)enabled_entry;
    b->rsp = 0;                 /* the loop picks its stack by APIC ID */
    b->cr3 = cr3;
    b->rflags = 0x2;
    b->rax = 0;
    return hypercall(HC_ENABLE_VCPU, index, (u64)b, 0, 0);
}

/* One VTL call: its status and response go into the calling area. */
static s32 p1_serve(struct calling_area *ca)
{
    static struct enable_block block;
    u64 *a = (u64 *)ca->buffer;

    ca->resp_size = 0;
    switch (ca->call_id) {
    case VTL_INIT:
        return 0;
    case VTL_ECHO: {
        u32 v = *(u32 *)ca->buffer;

        echo_count = p1_shared_inc(echo_count);
        ca->resp_size = 4;
        return (s32)v;
    }
    case VTL_TEST_BUSY_TICKS:
        /* {ticks, calls} served since the last ask, this one not counted */
        a[0] = __atomic_exchange_n(&p1_busy_ticks, 0, __ATOMIC_SEQ_CST);
        a[1] = __atomic_exchange_n(&p1_busy_calls, 0, __ATOMIC_SEQ_CST);
        ca->resp_size = 16;
        return 0;
    case VTL_TEST_ECHO_COUNT:
        /* every call served once: a call lost or made twice shows here */
        a[0] = echo_count;
        ca->resp_size = 8;
        return 0;
    case VTL_PROTECT_MEMORY:
        /* {u64 pfn, u64 count, u32 perms R 1 W 2 X 4}: plane 0's view */
        return (s32)set_mem_attrs(a[0] << 12, a[1] << 12, (u32)a[2]);
    case VTL_SEAL_KERNEL: {
        /* {u64 text_gpa, text_size, rodata_gpa, rodata_size, cr3} */
        s64 r = set_mem_attrs(a[0], a[1], ALLOW_R | ALLOW_X);

        if (!r && a[3]) {
            r = set_mem_attrs(a[2], a[3], ALLOW_R);
        }
        return (s32)r;
    }
    case VTL_TEST_HC:
        /* {nr, a0, a1, a2, a3}: status is the raw result */
        return (s32)hypercall(a[0], a[1], a[2], a[3], a[4]);
    case VTL_TEST_ENABLE:
        return (s32)enable_vcpu(a[0], &block);
    case VTL_TEST_ENABLE_WAIT: {
        /* {index, tries}: HC 18 again while the index has no CPU */
        u64 refused = 0;
        s64 r;

        while ((r = enable_vcpu(a[0], &block)) == -KVM_EINVAL &&
               ++refused < a[1]) {
        }
        a[0] = refused;
        ca->resp_size = 8;
        return (s32)r;
    }
    case VTL_TEST_ENABLE_RAW:
        return (s32)hypercall(HC_ENABLE_VCPU, a[0], a[1], 0, 0);
    case VTL_TEST_PEEK:
        /* {u64 gpa}: what plane 1 sees there (its view is identity) */
        a[0] = *(volatile u64 *)a[0];
        ca->resp_size = 8;
        return 0;
    case VTL_TEST_IRQ_SETUP:
        p1_irq_setup();
        return 0;
    case VTL_TEST_IRQ_TAKE:
        p1_irq_take(a);
        ca->resp_size = 24;
        return 0;
    case VTL_TEST_CHIPSET:
        p1_program_chipset();
        return 0;
    case VTL_TEST_TICKS:
        p1_wait_ticks(a);
        ca->resp_size = 40;
        return 0;
    case VTL_TEST_VIRTIO:
        ca->resp_size = 56;
        return p1_virtio_start(a);
    case VTL_TEST_VIRTIO_PROBE:
        ca->resp_size = 32;
        return p1_virtio_probe(a);
    case VTL_TEST_COM2_PROBE:
        /* its own COM2's scratch register as written, and its LSR */
        outb(COM2 + 7, (u8)a[0]);
        a[0] = inb(COM2 + 7);
        a[1] = inb(COM2 + 5);
        ca->resp_size = 16;
        return 0;
    case VTL_TEST_VIRTIO_MOVE:
        ca->resp_size = 16;
        return p1_virtio_move(a);
    case VTL_TEST_VIRTIO_AGAIN:
        return p1_virtio_again();
    case VTL_TEST_VIRTIO_TAKE:
        p1_virtio_take(a);
        ca->resp_size = 40;
        return 0;
    case VTL_TEST_CHECK:
        /* 0 if nothing plane 1 guards changed since boot; the digest */
        a[0] = region_checksum();
        ca->resp_size = 8;
        return a[0] == region_digest ? 0 : -1;
    case VTL_TEST_SPIN: {
        u64 *t = (u64 *)ca->buffer, n = a[0];

        t[0] = rdtsc();
        for (u64 i = n; i; i--) {
            __asm__ volatile("pause");
        }
        t[1] = rdtsc();
        ca->resp_size = 16;
        return 0;
    }
    case VTL_TEST_PORT_READS: {
        /* {u64 port, u64 n}: ticks for n reads (plane 0's chipset: dropped) */
        u64 t0 = rdtsc(), n = a[1];
        u8 sum = 0;

        for (u64 i = n; i; i--) {
            sum += inb((u16)a[0]);
        }
        a[0] = rdtsc() - t0;
        a[1] = sum;
        ca->resp_size = 16;
        return 0;
    }
    case VTL_TEST_EXIT:
        puts("P1: ending the VM from plane 1\n");
        outb(0xf4, *(u32 *)ca->buffer);
        /* the shutdown is asynchronous: keep the vCPU until it happens */
        for (;;) {
            __asm__ volatile("pause");
        }
    case VTL_TEST_TRIPLE: {
        static const struct { u16 limit; u64 base; }
            __attribute__((packed)) no_idt = { 0, 0 };

        puts("P1: triple fault\n");
        __asm__ volatile("lidt %0; int3" : : "m"(no_idt));
        for (;;) {
            __asm__ volatile("pause");
        }
    }
    case VTL_SHUTDOWN:
        puts("P1: shutdown requested\n");
        return 0;
    default:
        return -KVM_EOPNOTSUPP;
    }
}

/* Calls in hand now, and the most since VTL_TEST_MAXPAR last asked. */
static int in_hand, most_in_hand;

/* Called from the park loop; returns the status it reports to HC 16. */
s32 p1_handle(struct calling_area *ca)
{
    int now = __atomic_add_fetch(&in_hand, 1, __ATOMIC_SEQ_CST);
    int seen = __atomic_load_n(&most_in_hand, __ATOMIC_SEQ_CST);
    s32 status;

    while (now > seen &&
           !__atomic_compare_exchange_n(&most_in_hand, &seen, now, 0,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    if (ca->call_id == VTL_TEST_MAXPAR) {
        status = __atomic_exchange_n(&most_in_hand, 0, __ATOMIC_SEQ_CST);
    } else {
        status = p1_serve(ca);
    }
    __atomic_sub_fetch(&in_hand, 1, __ATOMIC_SEQ_CST);
    ca->status = status;
    return status;
}
