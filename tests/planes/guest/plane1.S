/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Plane-1 secure monitor: entry and park loop.  Position independent: plane
 * 0 copies it anywhere into plane 1's region and ACTIVATE enters it at its
 * first byte, in 64-bit mode with %rsi = boot_params and %rsp = region top.
 *
 * Plane 1's shared state (on the boot vCPU's index) serves whichever vCPU
 * index calls, and states that PLANE_ENABLE_VCPU enables run beside it,
 * all from the same VTL_RETURN: nothing may live on the stack across it,
 * the loop picks a stack by APIC ID.
 */

#define HC_VTL_RETURN   16
#define STACK_SIZE      8192
#define MAX_CPUS        16

        .section .text.entry, "ax"
        .globl  _start
_start:
        jmp     boot

        /*
         * At offset 16, code both planes run: plane 0 calls it in the
         * image before ACTIVATE (test=gdb), plane 1 counts its ECHO
         * calls with it.  Returns its argument plus one.
         */
        .p2align 4
        .globl  p1_shared_inc
p1_shared_inc:
        lea     1(%rdi), %rax
        ret

boot:
        /* clear .bss, then run on the boot stack (slot 0) */
        lea     __bss_start(%rip), %rdi
        lea     __bss_end(%rip), %rcx
        sub     %rdi, %rcx
        mov     %rsi, %rbx
        xor     %eax, %eax
        cld
        rep stosb
        lea     stacks + STACK_SIZE(%rip), %rsp
        mov     %rbx, %rdi
        call    p1_boot                 /* returns 1 to park with HLT */
        test    %eax, %eax
        jz      park_loop_start
        cli
        hlt                             /* parks: the VMM resumes us below */
        jmp     resumed

park_loop_start:
        xor     %ebx, %ebx              /* status of the boot: 0 */
        jmp     park_loop
served:
        /* the TSC ticks from the resume to this return, for make bench */
        rdtsc
        shl     $32, %rdx
        or      %rdx, %rax
        sub     %r13, %rax
        lock addq %rax, p1_busy_ticks(%rip)
        lock incq p1_busy_calls(%rip)
park_loop:
        mov     $HC_VTL_RETURN, %eax
        vmcall                          /* resumes with rax = calling area */
resumed:
        mov     %rax, %r12
        rdtsc
        shl     $32, %rdx
        or      %rdx, %rax
        mov     %rax, %r13              /* kept by p1_handle (callee-saved) */
        mov     $1, %eax
        cpuid
        shr     $24, %ebx               /* initial APIC ID */
        and     $(MAX_CPUS - 1), %ebx
        inc     %ebx
        imul    $STACK_SIZE, %rbx
        lea     stacks(%rip), %rsp
        add     %rbx, %rsp
        mov     %r12, %rdi
        call    p1_handle
        movslq  %eax, %rbx              /* HC 16's status, for tracing */
        jmp     served

        /* PLANE_ENABLE_VCPU's entry: park first, then serve like the rest */
        .globl  enabled_entry
enabled_entry:
        jmp     park_loop_start

        /* A device interrupt (VTL_TEST_IRQ_*): count it, EOI */
        .globl  p1_irq
p1_irq:
        push    %rax
        lock incq p1_irq_count(%rip)
        mov     $0xfee000b0, %eax
        movl    $0, (%rax)
        pop     %rax
        iretq

        /* Its local APIC timer (timer=1 at boot): count the tick, EOI */
        .globl  p1_tick
p1_tick:
        push    %rax
        lock incq p1_tick_count(%rip)
        mov     $0xfee000b0, %eax
        movl    $0, (%rax)
        pop     %rax
        iretq

        .section .bss
        .p2align 4
        .globl  stacks
stacks:
        .skip   STACK_SIZE * (MAX_CPUS + 1)

        .section .note.GNU-stack, "", @progbits
