# SPDX-License-Identifier: GPL-2.0-or-later
# The options QEMU's configure gets, in one place: sourced by configure,
# and check-bisect.sh so that every build of the fork is
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

planes_qemu_options=("${planes_qemu_base_options[@]}")
if command -v ccache >/dev/null; then
    planes_qemu_options+=(--cc="ccache gcc" --cxx="ccache g++")
fi
