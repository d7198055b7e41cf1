#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs what building and testing qemu-planes needs on Debian 12:
# package sources (bookworm-backports, trixie deb-src) and build packages.
# Idempotent: does nothing when everything is already in place.
set -euo pipefail
source "$(dirname "$0")/upstream.sh"

[ "${PLANES_SKIP_APT:-0}" = 1 ] && exit 0

need_pkgs=(build-essential git pkg-config ninja-build flex bison python3-venv
           libglib2.0-dev libpixman-1-dev libslirp-dev libfdt-dev zlib1g-dev
           dpkg-dev xz-utils seabios qemu-system-data ipxe-qemu ccache socat
           gnuplot-nox
           linux-image-amd64 linux-headers-amd64 busybox-static cpio bc
           libelf-dev kmod patch)
# linux-source-6.12: the plane-1 kernel of the real-Linux test (check-linux);
# qemu-system-x86 and qemu-utils: stock QEMU 10.0 for the bench and the
# planes=1 migration test, qemu-img for the savevm test's disk
need_bpo=(meson python3-pycotap qemu-system-x86 qemu-utils
          libvirt-daemon-system libvirt-clients linux-source-6.12)
# clang with libFuzzer: the guest-input fuzzers (make fuzz, check-fuzz)
need_pkgs+=(clang libclang-rt-14-dev)
# OVMF: check-linux boots the Linux pair through UEFI, as the VBS series'
# images boot
need_pkgs+=(ovmf)
# gdb: debugging planes as inferiors (check-gdb)
need_pkgs+=(gdb)
# the libvirt build (scripts/planes/libvirt-build.sh, libvirt-options.sh):
# what its QEMU driver, libvirtd, virsh and tests need; iproute2 and
# util-linux: the namespaces of the libvirt tests' private instances;
# libapparmor-dev: the AppArmor driver and virt-aa-helper, as Debian builds
need_pkgs+=(libxml2-dev libxml2-utils xsltproc libgnutls28-dev libtirpc-dev
            libjson-c-dev libnl-3-dev libnl-route-3-dev gettext iproute2 util-linux
            libapparmor-dev)

sudo_() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
log="${PLANES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/qemu-planes}/apt.log"
mkdir -p "$(dirname "$log")"
# apt's progress goes to a log; on failure its tail is shown.
quiet() {
    "$@" >>"$log" 2>&1 || { tail -20 "$log" >&2; echo "setup-host: '$*' failed (log: $log)" >&2; exit 1; }
}

src_dir=/etc/apt/sources.list.d
changed=0
if [ ! -f "$src_dir/qemu-planes-bookworm-backports.sources" ]; then
    sudo_ tee "$src_dir/qemu-planes-bookworm-backports.sources" >/dev/null <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    changed=1
fi
if [ ! -f "$src_dir/qemu-planes-trixie-src.sources" ]; then
    sudo_ tee "$src_dir/qemu-planes-trixie-src.sources" >/dev/null <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    changed=1
fi

missing=()
for p in "${need_pkgs[@]}" "${need_bpo[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$p")
done
# meson from bookworm is too old for QEMU 10 (needs >= 1.5)
if command -v meson >/dev/null && \
   ! dpkg --compare-versions "$(meson --version)" ge 1.5; then
    missing+=(meson)
fi
if [ "$changed" = 1 ] || [ ${#missing[@]} -gt 0 ] || \
   ! apt-cache showsrc qemu 2>/dev/null | grep -qxF "Version: $qemu_deb_version"; then
    echo "setup-host: apt-get update"
    quiet sudo_ apt-get update
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup-host: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    quiet sudo_ apt-get install -y --no-install-recommends "${need_pkgs[@]}"
    quiet sudo_ apt-get install -y --no-install-recommends \
        -t bookworm-backports "${need_bpo[@]}"
fi
