/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Plane-1 secure monitor: reports its boot state, then serves VTL calls.
 * Only what the VMM can see is implemented: memory protection through
 * SET_MEM_ATTRS; other seed call ids answer -EOPNOTSUPP.
 */

#include "guest.h"

#define BP_EXT_CMD_LINE_PTR 0x0c8
#define BP_E820_ENTRIES     0x1e8
#define BP_HDR_CMD_LINE_PTR 0x228
#define BP_E820_TABLE       0x2d0

static u64 region_base;

static u64 rdtsc(void)
{
    u32 lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((u64)hi << 32) | lo;
}

static u64 rdmsr(u32 msr)
{
    u32 lo, hi;

    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((u64)hi << 32) | lo;
}

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
    printf("P1: cmdline '%s'\n", cmdline);
    for (u8 i = 0; i < entries; i++) {
        const u8 *e = bp + BP_E820_TABLE + i * 20;
        u64 addr = *(const u64 *)e, size = *(const u64 *)(e + 8);

        printf("P1: e820 0x%x-0x%x type %u\n", addr, addr + size - 1,
               (u64)*(const u32 *)(e + 16));
        if (i == 0) {
            region_base = addr;
        }
    }
    /* bootspin=N: a slow boot, for tests of calls made meanwhile */
    if (cmdline_arg(cmdline, "bootspin")) {
        for (u64 i = parse_u64(cmdline_arg(cmdline, "bootspin")); i; i--) {
            __asm__ volatile("pause");
        }
    }
    park = cmdline_arg(cmdline, "park");
    if (park && !strncmp(park, "hlt", 3)) {
        puts("P1: parking with HLT\n");
        return 1;
    }
    puts("P1: parking with VTL_RETURN\n");
    return 0;
}

static s64 set_mem_attrs(u64 gpa, u64 size, u64 attrs, u64 plane)
{
    return hypercall(HC_SET_MEM_ATTRS, gpa, size, attrs, plane);
}

/* PROTECT_MEMORY perms R=1 W=2 X=4 as plane-0 attributes. */
static u32 perms_to_attrs(u32 perms)
{
    u32 attrs = 0;

    attrs |= perms & 1 ? 0 : ATTR_NO_READ;
    attrs |= perms & 2 ? 0 : ATTR_NO_WRITE;
    attrs |= perms & 4 ? 0 : ATTR_NO_EXEC;
    return attrs;
}

/* One VTL call: the return value is the call's status. */
s32 p1_handle(struct vtl_request *req, struct vtl_response *resp)
{
    resp->resp_size = 0;
    switch (req->call_id) {
    case VTL_INIT:
        return 0;
    case VTL_ECHO: {
        u32 v = *(u32 *)req->payload;

        *(u32 *)resp->payload = v;
        resp->resp_size = 4;
        return (s32)v;
    }
    case VTL_PROTECT_MEMORY: {
        u64 pfn = *(u64 *)req->payload, nr = *(u64 *)(req->payload + 8);
        u32 perms = *(u32 *)(req->payload + 16);

        return (s32)set_mem_attrs(pfn << 12, nr << 12, perms_to_attrs(perms),
                                  0);
    }
    case VTL_SEAL_KERNEL: {
        u64 pfn = *(u64 *)req->payload, nr = *(u64 *)(req->payload + 8);

        return (s32)set_mem_attrs(pfn << 12, nr << 12, ATTR_NO_WRITE, 0);
    }
    case VTL_TEST_VTL_CALL:
        return (s32)hypercall(HC_VTL_CALL, (u64)req, (u64)resp, 0, 0);
    case VTL_TEST_ATTRS: {
        u64 *a = (u64 *)req->payload;

        return (s32)set_mem_attrs(a[0], a[1], a[2], a[3]);
    }
    case VTL_TEST_SPIN: {
        u64 *t = (u64 *)resp->payload;

        t[0] = rdtsc();
        for (u64 i = *(u64 *)req->payload; i; i--) {
            __asm__ volatile("pause");
        }
        t[1] = rdtsc();
        resp->resp_size = 16;
        return 0;
    }
    case VTL_TEST_EXIT:
        puts("P1: ending the VM from plane 1\n");
        outb(0xf4, *(u32 *)req->payload);
        /* the shutdown is asynchronous: keep the vCPU until it happens */
        for (;;) {
            __asm__ volatile("pause");
        }
    case VTL_SHUTDOWN:
        puts("P1: shutdown requested\n");
        return 0;
    default:
        return -KVM_EOPNOTSUPP;
    }
}
