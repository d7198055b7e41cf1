/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes, KVM backend for x86: the exits that target/i386/kvm/kvm.c
 * hands to it.
 */

#ifndef TARGET_I386_KVM_PLANE_KVM_H
#define TARGET_I386_KVM_PLANE_KVM_H

#include <linux/kvm.h>

/* Whether KVM_EXIT_HYPERCALL @nr is a plane hypercall of this VM. */
bool plane_kvm_owns_hypercall(uint64_t nr);

/* Handles a plane hypercall exit; the kvm_arch_handle_exit convention. */
int plane_kvm_handle_hypercall(CPUState *cs, struct kvm_run *run);

#endif
