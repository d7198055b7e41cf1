# SPDX-License-Identifier: GPL-2.0-or-later
# The options QEMU's configure gets, in one place: sourced by configure,
# check-bisect.sh and build-bench.sh so that every build of the fork is
# configured alike.

# What the fork is: x86_64 system emulation with TCG and KVM, no UI.
planes_qemu_base_options=(
    --python=/usr/bin/python3
    --target-list=x86_64-softmmu
    --enable-kvm --enable-tcg --enable-slirp
    --disable-docs --disable-werror --disable-user --disable-install-blobs
    --disable-gtk --disable-sdl --disable-vnc --disable-opengl --disable-spice
    --disable-xen --disable-curl --disable-libusb --disable-usb-redir
    --disable-capstone --disable-rust
    --firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu
)

# Build only what the fork needs: none of QEMU's optional features but
# those named here, and only the devices of
# configs/devices/x86_64-softmmu/planes.mak.  Each feature kept is used:
#   pixman        the VGA device (and QEMU's display core);
#   tools         qemu-img and friends, for the tests' disk images;
#   gnutls        the crypto and TLS channel unit tests (check-unit);
#   keyring       the keyring secret unit test;
#   replication   the block replication unit test;
#   guest-agent   the guest agent and its unit tests;
#   vhost-kernel, vhost-net   virtio-net with vhost=on, libvirt's default;
#   stack-protector, malloc-trim, avx2   hardening and speed of the binary.
# Debug information: line tables only (-g1), which keeps gdb backtraces
# and sanitizer reports with file:line but costs a fifth less compile time
# than QEMU's default -g.  For full -g (variables, types in gdb) pass
# "--enable-debug-info --extra-cflags=-g" to ./configure: its own options
# come after these.
planes_qemu_lean_options=(
    --without-default-features --without-default-devices
    --with-devices-x86_64=planes
    --enable-pixman --enable-tools --enable-gnutls --enable-keyring
    --enable-replication --enable-guest-agent
    --enable-vhost-kernel --enable-vhost-net
    --enable-stack-protector --enable-malloc-trim --enable-avx2
    --disable-debug-info --extra-cflags=-g1 --extra-cxxflags=-g1
)

planes_qemu_options=("${planes_qemu_base_options[@]}" "${planes_qemu_lean_options[@]}")
if command -v ccache >/dev/null; then
    planes_qemu_options+=(--cc="ccache gcc" --cxx="ccache g++")
fi
