/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Plane-0 test guest: PVH entry (32-bit protected mode, %ebx = start_info),
 * identity-mapped long mode over the low 8 GiB, traps and a way into and
 * out of user mode (CPL 3).
 */

#define PTE_P   0x1
#define PTE_RW  0x2
#define PTE_US  0x4
#define PTE_PS  0x80

        .section .note.Xen, "a"
        .p2align 2
        .long   4, 4, 18                /* XEN_ELFNOTE_PHYS32_ENTRY */
        .asciz  "Xen"
        .long   pvh_start

        .section .text.boot, "ax"
        .code32
        .globl  pvh_start
pvh_start:
        cli
        mov     %ebx, %esi              /* start_info, kept for main */

        /* RAM survives a system reset, and the loader restores only .data */
        cld
        mov     $__bss_start, %edi
        mov     $__bss_end, %ecx
        sub     %edi, %ecx
        xor     %eax, %eax
        rep stosb

        /* PML4[0] -> PDPT; PDPT[0..7] -> PDs; PDs: 4096 2 MiB pages */
        movl    $pdpt + (PTE_P | PTE_RW | PTE_US), pml4
        xor     %ecx, %ecx
        mov     $pd + (PTE_P | PTE_RW | PTE_US), %eax
1:      mov     %eax, pdpt(, %ecx, 8)
        add     $4096, %eax
        inc     %ecx
        cmp     $8, %ecx
        jne     1b
        xor     %ecx, %ecx
2:      mov     %ecx, %eax
        shl     $21, %eax
        or      $(PTE_P | PTE_RW | PTE_US | PTE_PS), %eax
        mov     %eax, pd(, %ecx, 8)
        mov     %ecx, %eax
        shr     $11, %eax
        mov     %eax, pd + 4(, %ecx, 8)
        inc     %ecx
        cmp     $4096, %ecx
        jne     2b

        mov     $pml4, %eax
        mov     %eax, %cr3
        mov     %cr4, %eax
        or      $0x20, %eax             /* PAE */
        mov     %eax, %cr4
        mov     $0xc0000080, %ecx       /* EFER */
        rdmsr
        or      $0x100, %eax            /* LME */
        wrmsr
        mov     %cr0, %eax
        or      $0x80000001, %eax       /* PG | PE */
        mov     %eax, %cr0
        lgdt    gdt_ptr
        ljmp    $0x08, $long_entry

        .code64
long_entry:
        mov     $0x10, %ax
        mov     %ax, %ds
        mov     %ax, %es
        mov     %ax, %ss
        xor     %eax, %eax
        mov     %ax, %fs
        mov     %ax, %gs
        lea     stack_top(%rip), %rsp
        mov     %esi, %edi              /* main(start_info) */
        call    main
3:      cli
        hlt
        jmp     3b

/* Traps: push the vector (and a 0 error code where the CPU gives none). */
        .macro  trap_noerr n
        .globl  trap\n
trap\n: pushq   $0
        pushq   $\n
        jmp     trap_common
        .endm
        .macro  trap_err n
        .globl  trap\n
trap\n: pushq   $\n
        jmp     trap_common
        .endm

        trap_noerr 0
        trap_noerr 1
        trap_noerr 2
        trap_noerr 3
        trap_noerr 4
        trap_noerr 5
        trap_noerr 6
        trap_noerr 7
        trap_err   8
        trap_noerr 9
        trap_err   10
        trap_err   11
        trap_err   12
        trap_err   13
        trap_err   14
        trap_noerr 15
        trap_noerr 16
        trap_err   17
        trap_noerr 18
        trap_noerr 19

/* Frame: rax..r11 saved, then vector, error code, rip, cs, rflags, rsp, ss */
trap_common:
        push    %rax
        push    %rcx
        push    %rdx
        push    %rsi
        push    %rdi
        push    %r8
        push    %r9
        push    %r10
        push    %r11
        mov     %rsp, %rdi
        call    trap_handler
        pop     %r11
        pop     %r10
        pop     %r9
        pop     %r8
        pop     %rdi
        pop     %rsi
        pop     %rdx
        pop     %rcx
        pop     %rax
        add     $16, %rsp
        iretq

/*
 * user_call(fn, stack): run fn() at CPL 3 on stack; it comes back with
 * int $0x80 (vector 0x80 is a DPL-3 gate), which returns here at CPL 0.
 */
        .globl  user_call
user_call:
        push    %rbx
        push    %rbp
        push    %r12
        push    %r13
        push    %r14
        push    %r15
        mov     %rsp, kernel_rsp(%rip)
        pushq   $0x1b                   /* user SS */
        pushq   %rsi                    /* user RSP */
        pushq   $0x2                    /* RFLAGS: no IF, no stray IRQs */
        pushq   $0x23                   /* user CS */
        pushq   %rdi                    /* RIP */
        iretq

/* LAPIC timer (vector 0x40): count it, note when, EOI. */
        .globl  irq64
irq64:
        push    %rax
        push    %rdx
        incq    irq_count(%rip)
        rdtsc
        shl     $32, %rdx
        or      %rdx, %rax
        mov     %rax, irq_tsc(%rip)
        mov     $0xfee000b0, %eax       /* EOI */
        movl    $0, (%rax)
        pop     %rdx
        pop     %rax
        iretq

        .globl  trap128
trap128:
        mov     kernel_rsp(%rip), %rsp
        pop     %r15
        pop     %r14
        pop     %r13
        pop     %r12
        pop     %rbp
        pop     %rbx
        ret

/*
 * AP start: plane0.c copies this to AP_TRAMPOLINE (0x8000) and sends
 * INIT-SIPI-SIPI; the AP goes real mode -> protected mode -> long mode on
 * the BSP's page tables and calls ap_main() on ap_stack_top.
 */
#define AP_TRAMPOLINE 0x8000
#define TRAMP(x) ((x) - ap_trampoline + AP_TRAMPOLINE)
        .section .rodata
        .code16
        .globl  ap_trampoline, ap_trampoline_end
ap_trampoline:
        cli
        xor     %ax, %ax
        mov     %ax, %ds
        lgdtl   TRAMP(ap_gdt_ptr)
        mov     %cr0, %eax
        or      $1, %eax
        mov     %eax, %cr0
        ljmpl   $0x38, $TRAMP(ap_pm32)
        .code32
ap_pm32:
        mov     $0x10, %ax
        mov     %ax, %ds
        mov     %ax, %es
        mov     %ax, %ss
        mov     $pml4, %eax
        mov     %eax, %cr3
        mov     %cr4, %eax
        or      $0x20, %eax
        mov     %eax, %cr4
        mov     $0xc0000080, %ecx
        rdmsr
        or      $0x100, %eax
        wrmsr
        mov     %cr0, %eax
        or      $0x80000001, %eax
        mov     %eax, %cr0
        ljmp    $0x08, $ap_long
ap_gdt_ptr:
        .word   gdt_end - gdt - 1
        .long   gdt
ap_trampoline_end:

        .text
        .code64
ap_long:
        mov     $0x10, %ax
        mov     %ax, %ds
        mov     %ax, %es
        mov     %ax, %ss
        mov     ap_stack_top(%rip), %rsp
        call    ap_main
4:      cli
        hlt
        jmp     4b

        .section .data
        .p2align 3
gdt:
        .quad   0
        .quad   0x00af9a000000ffff      /* 0x08: kernel code */
        .quad   0x00cf92000000ffff      /* 0x10: kernel data */
        .quad   0x00cff2000000ffff      /* 0x18: user data */
        .quad   0x00affa000000ffff      /* 0x20: user code */
        .globl  gdt_tss
gdt_tss:
        .quad   0, 0                    /* 0x28: TSS, filled in by C */
        .quad   0x00cf9a000000ffff      /* 0x38: 32-bit code (AP start) */
gdt_end:
        .globl  gdt_ptr
gdt_ptr:
        .word   gdt_end - gdt - 1
        .quad   gdt

        .section .bss
        .p2align 12
pml4:   .skip   4096
pdpt:   .skip   4096
pd:     .skip   8 * 4096
kernel_rsp:
        .skip   8
        .p2align 4
        .skip   65536
stack_top:

        .section .note.GNU-stack, "", @progbits
