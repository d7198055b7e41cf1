#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# For a host with a VM-planes kernel: does this QEMU drive it?  Boots the
# freestanding guest pair (plane0.elf carries plane 1's monitor) with
# planes=2 through CONFIG, ACTIVATE and a VTL call into plane 1, which
# ends the VM through isa-debug-exit: first under TCG as the control, then
# under KVM.  Prints what it saw and one "verdict:" line; exits 0 for
# PASS, 77 for SKIP (no KVM, or a kernel that QEMU refuses), 1 for FAIL.
set -u

qemu=${QEMU:-build/qemu/qemu-system-x86_64}
guest=${PLANES_GUEST:-build/qemu/tests/planes-guests/plane0.elf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

verdict() {
    echo "verdict: $1"
    case $1 in
    PASS*) exit 0 ;;
    SKIP*) exit 77 ;;
    *) exit 1 ;;
    esac
}

# run ACCEL: the guest's exit code (isa-debug-exit: (0 << 1) | 1 = pass)
run() {
    timeout 120 "$qemu" -accel "$1" -machine q35,planes=2 -m 512M \
        -nodefaults -display none -no-reboot \
        -serial "file:$tmp/$1.serial" \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
        -kernel "$guest" -append 'test=plane1-exit' \
        >"$tmp/$1.out" 2>"$tmp/$1.err"
}

[ -x "$qemu" ] && [ -f "$guest" ] || verdict "FAIL (build first: make)"

run tcg
rc=$?
echo "tcg control: exit code $rc (1 is the guest's pass)"
[ $rc = 1 ] || { cat "$tmp/tcg.err" "$tmp/tcg.serial"; \
                 verdict "FAIL (the TCG control failed: this build is broken)"; }

[ -r /dev/kvm ] && [ -w /dev/kvm ] || verdict "SKIP (/dev/kvm cannot be opened)"
run kvm
rc=$?
echo "kvm: exit code $rc"
sed 's/^/kvm stderr: /' "$tmp/kvm.err"
sed 's/^/kvm serial: /' "$tmp/kvm.serial" 2>/dev/null | tail -20
if [ $rc = 1 ] && grep -q "^P0: booting" "$tmp/kvm.serial" &&
   ! grep -q "still here" "$tmp/kvm.serial"; then
    verdict "PASS (plane 1 ran under this host's KVM and ended the VM)"
fi
if [ $rc = 1 ] && grep -q -- "-machine planes=2: " "$tmp/kvm.err"; then
    verdict "SKIP (QEMU refuses this kernel: $(head -1 "$tmp/kvm.err"))"
fi
[ $rc = 124 ] && verdict "FAIL (the guest hung under KVM: no exit in 120 s)"
verdict "FAIL (exit code $rc under KVM)"
