/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plane-1 monitor's flat image, carried inside the plane-0 guest. */
        .section .rodata
        .p2align 12
        .globl  plane1_image, plane1_image_end
plane1_image:
        .incbin PLANE1_BIN
plane1_image_end:

        .section .note.GNU-stack, "", @progbits
