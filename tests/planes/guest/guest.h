/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Freestanding x86-64 test guests for VM planes: shared declarations.
 */

#ifndef PLANES_GUEST_H
#define PLANES_GUEST_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long u64;
typedef long s64;
typedef int s32;
typedef unsigned long size_t;

#define NULL ((void *)0)

/* The guest ABI (../../../include/hw/planes/planes-abi.h, as a guest sees it) */
#define HC_CONFIG           13
#define HC_ACTIVATE         14
#define HC_VTL_CALL         15
#define HC_VTL_RETURN       16
#define HC_SET_MEM_ATTRS    17
#define HC_ENABLE_VCPU      18
#define HC_UNKNOWN          12345

#define KVM_ENOSYS          1000
#define KVM_EFAULT          14
#define KVM_EINVAL          22
#define KVM_E2BIG           7
#define KVM_EPERM           1
#define KVM_EOPNOTSUPP      95
#define KVM_EBUSY           16

/* SET_MEM_ATTRS allow mask: what the plane below may do */
#define ALLOW_R             1u
#define ALLOW_W             2u
#define ALLOW_X             4u
#define ALLOW_ALL           7u

struct vm_plane_config {
    u64 load_offset;
    u64 memory_size;
    u64 entry_point;
    u32 kernel_format;
    char kernel[128];
    char cmdline[512];
    u32 padding;
} __attribute__((packed));

_Static_assert(sizeof(struct vm_plane_config) == 672, "vm_plane_config");

/* The calling area of a VTL call: one page, its GPA in RBX [seed] */
struct calling_area {
    u8 call_pending;
    u8 reserved[3];
    u32 call_id;
    s32 status;
    u32 arg_size;
    u32 resp_size;
    u8 buffer[4076];
} __attribute__((packed));

_Static_assert(sizeof(struct calling_area) == 4096, "calling_area");

/* PLANE_ENABLE_VCPU's register block */
struct enable_block {
    u64 rip, rsp, cr3, rflags, rax;
};

/* Call ids [seed] */
#define VTL_INIT            0x1
#define VTL_SHUTDOWN        0x2
#define VTL_PROTECT_MEMORY  0x100
#define VTL_SEAL_KERNEL     0x101
#define VTL_ECHO            0x7f00      /* test-only: status = arg */
#define VTL_TEST_VTL_CALL   0x7f01      /* test-only: VTL_CALL from plane 1 */
#define VTL_TEST_HC         0x7f02      /* test-only: any hypercall, raw */
#define VTL_TEST_SPIN       0x7f03      /* test-only: busy for a while */
#define VTL_TEST_EXIT       0x7f04      /* test-only: isa-debug-exit from plane 1 */
#define VTL_TEST_ENABLE     0x7f05      /* test-only: own state on an index */
#define VTL_TEST_TRIPLE     0x7f06      /* test-only: plane 1 triple faults */
#define VTL_TEST_ENABLE_RAW 0x7f07      /* test-only: HC 18, block as given */
#define VTL_TEST_MAXPAR     0x7f08      /* test-only: most calls at once */
#define VTL_TEST_PEEK       0x7f09      /* test-only: 8 bytes at a GPA */
#define VTL_TEST_CHECK      0x7f0a      /* test-only: is the region intact? */
#define VTL_TEST_CHIPSET    0x7f0b      /* test-only: program plane 0's chipset */
#define VTL_TEST_IRQ_SETUP  0x7f0c      /* test-only: COM2 interrupts plane 1 */
#define VTL_TEST_IRQ_TAKE   0x7f0d      /* test-only: take what is pending */
#define VTL_TEST_ECHO_COUNT 0x7f0e      /* test-only: ECHO calls served */
#define VTL_TEST_VIRTIO     0x7f0f      /* test-only: drive plane 1's virtio-rng */
#define VTL_TEST_VIRTIO_TAKE 0x7f10     /* test-only: what it delivered */
#define VTL_TEST_VIRTIO_AGAIN 0x7f11    /* test-only: one more request */
#define VTL_TEST_TICKS      0x7f12      /* test-only: wait for timer ticks */
#define VTL_TEST_ENABLE_WAIT 0x7f13     /* test-only: HC 18 until plugged */
#define VTL_TEST_VIRTIO_PROBE 0x7f14    /* test-only: read the device back */
#define VTL_TEST_VIRTIO_MOVE 0x7f15     /* test-only: move two of its BARs */
#define VTL_TEST_COM2_PROBE 0x7f16      /* test-only: COM2's scratch, LSR */
#define VTL_TEST_PORT_READS 0x7f17      /* test-only: time N reads of a port */
#define VTL_TEST_BUSY_TICKS 0x7f18      /* test-only: plane 1's ticks in calls */

/* Where the virtio test puts plane 1's virtio-rng-pci: 00:05.0 on pcie.0 */
#define VIRTIO_TEST_SLOT    5
#define Q35_ECAM_BASE       0xb0000000UL

static inline void outb(u16 port, u8 v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(u16 port, u32 v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(u16 port, u16 v)
{
    __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline u32 inl(u16 port)
{
    u32 v;

    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline u64 rdmsr(u32 msr)
{
    u32 lo, hi;

    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

static inline u8 inb(u16 port)
{
    u8 v;

    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline s64 hypercall(u64 nr, u64 a0, u64 a1, u64 a2, u64 a3)
{
    s64 ret;

    __asm__ volatile("vmcall"
                     : "=a"(ret)
                     : "a"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3)
                     : "memory");
    return ret;
}

static inline s64 hypercall_vmmcall(u64 nr, u64 a0, u64 a1)
{
    s64 ret;

    __asm__ volatile("vmmcall"
                     : "=a"(ret) : "a"(nr), "b"(a0), "c"(a1) : "memory");
    return ret;
}

/* lib.c */
void serial_init(void);
void putc(char c);
void puts(const char *s);
void printf(const char *fmt, ...);
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strncpy(char *d, const char *s, size_t n);
const char *cmdline_arg(const char *cmdline, const char *key);
u64 parse_u64(const char *s);

#endif
