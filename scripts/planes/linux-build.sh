#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Builds what the real-Linux planes test runs, from Debian's packages and
# tests/planes/linux/: the plane-1 secure kernel (linux-source-6.12 with
# our patch, tinyconfig + our fragment, vmlinux), the plane-0 module
# vm-planes.ko (against the headers of linux-image-amd64's kernel) and the
# initramfs (busybox-static, the module, the plane-1 vmlinux, /init and
# the plane configurations).  Cached outside the clone, in
#   ${PLANES_CACHE:-~/.cache/qemu-planes}/linux/<key>/
# where key hashes the package versions and every input file, so a re-run
# costs a hash.  Prints the directory last; it holds:
#   vmlinux-plane1  vm-planes.ko  initramfs.cpio  plane0-kernel (a path)
#   vmlinux-plane1.debug (the plane-1 kernel's symbols, for gdb: the
#   initramfs carries the stripped vmlinux-plane1)
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
src="$repo/tests/planes/linux"
cache="${PLANES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/qemu-planes}/linux"
jobs="${PLANES_LINUX_JOBS:-2}"

die() { echo "linux-build: $*" >&2; exit 1; }
pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }

# Plane 0: the kernel that linux-image-amd64 depends on, and its headers.
kver=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
       grep -o 'linux-image-[0-9][^ ,]*-amd64' | head -1 | sed 's/^linux-image-//') ||
    true
[ -n "$kver" ] || die "linux-image-amd64 is not installed (scripts/planes/setup-host.sh)"
plane0_kernel=/boot/vmlinuz-$kver
kbuild=/lib/modules/$kver/build
[ -f "$plane0_kernel" ] || die "$plane0_kernel missing"
[ -d "$kbuild" ] || die "$kbuild missing: install linux-headers-amd64"
tarball=$(ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null) ||
    die "linux-source-6.12 (bookworm-backports) is not installed"
[ -x /bin/busybox ] && [ -n "$(pkgver busybox-static)" ] ||
    die "busybox-static is not installed"
for t in cpio bc flex bison gcc make objcopy; do
    command -v $t >/dev/null || die "$t missing (scripts/planes/setup-host.sh)"
done

# Two cache levels: the plane-1 kernel (minutes) is keyed by what it is
# built from alone; the whole set by everything, the kernel's key included.
kinputs="tests/planes/linux/plane1/0001-x86-vm-planes-secure-kernel.patch
tests/planes/linux/plane1/vm-planes-secure.c
tests/planes/linux/plane1/config.fragment"
kkey=$( {
    echo "linux-source-6.12 $(pkgver linux-source-6.12)"
    echo "gcc $(gcc -dumpfullversion)"
    echo "outputs vmlinux-plane1 vmlinux-plane1.debug"
    cd "$repo" && sha256sum $kinputs
} | sha256sum | cut -c1-16)
inputs=$(cd "$repo" && find tests/planes/linux/plane1 tests/planes/linux/module \
           tests/planes/linux/initramfs -type f | LC_ALL=C sort)
key=$( {
    echo "plane-1 kernel $kkey"
    echo "headers $kver $(pkgver linux-headers-"$kver")"
    echo "busybox $(pkgver busybox-static)"
    cd "$repo" && sha256sum $inputs scripts/planes/linux-build.sh
} | sha256sum | cut -c1-16)
out="$cache/$key"
kout_dir="$cache/plane1-$kkey"
if [ -f "$out/done" ]; then
    echo "$out"
    exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
[ -f "$out/done" ] && { echo "$out"; exit 0; }
rm -rf "$out" "$out.tmp"
work="$out.tmp"
mkdir -p "$work"
log="$work/build.log"
t0=$(date +%s)
step() { echo "linux-build: $*" >&2; }
run() { "$@" >>"$log" 2>&1 || { tail -30 "$log" >&2; die "'$*' failed (log: $log)"; }; }

if [ -f "$kout_dir/vmlinux-plane1" ]; then
    step "plane-1 kernel: cached ($kout_dir)"
else
    # The plane-1 kernel: Debian's 6.12 source + our patch and file.
    step "plane-1 kernel: unpacking $(basename "$tarball") $(pkgver linux-source-6.12)"
    run tar -C "$work" -xJf "$tarball"
    ksrc="$work/linux-source-6.12"
    run patch -d "$ksrc" -p1 -i "$src/plane1/0001-x86-vm-planes-secure-kernel.patch"
    cp "$src/plane1/vm-planes-secure.c" "$ksrc/arch/x86/kernel/"
    kout="$work/plane1-build"
    run make -C "$ksrc" O="$kout" tinyconfig
    run "$ksrc/scripts/kconfig/merge_config.sh" -m -O "$kout" "$kout/.config" \
        "$src/plane1/config.fragment"
    run make -C "$ksrc" O="$kout" olddefconfig
    # Every option of the fragment must have taken (a dependency may drop one).
    while read -r line; do
        case "$line" in
        CONFIG_*=*) grep -qx "$line" "$kout/.config" || die "config: $line did not take" ;;
        "# CONFIG_"*" is not set")
            opt=${line#\# }; opt=${opt%% *}
            ! grep -q "^$opt=" "$kout/.config" || die "config: $opt is still set" ;;
        esac
    done < "$src/plane1/config.fragment"
    step "plane-1 kernel: make -j$jobs vmlinux (a few minutes)"
    run nice -n 10 make -C "$ksrc" O="$kout" -j"$jobs" vmlinux
    rm -rf "$kout_dir.tmp"
    mkdir -p "$kout_dir.tmp"
    objcopy --strip-all "$kout/vmlinux" "$kout_dir.tmp/vmlinux-plane1"
    objcopy --only-keep-debug "$kout/vmlinux" "$kout_dir.tmp/vmlinux-plane1.debug"
    cp "$kout/.config" "$kout_dir.tmp/plane1.config"
    echo "$(( $(date +%s) - t0 ))" > "$kout_dir.tmp/build-seconds"
    rm -rf "$ksrc" "$kout"
    mv "$kout_dir.tmp" "$kout_dir"
fi
cp "$kout_dir/vmlinux-plane1" "$kout_dir/vmlinux-plane1.debug" \
   "$kout_dir/plane1.config" "$work/"

# The plane-0 module, against Debian's headers.
step "plane-0 module: vm-planes.ko for $kver"
mkdir -p "$work/module"
cp "$src/module/vm-planes.c" "$src/module/Kbuild" "$work/module/"
run nice -n 10 make -C "$kbuild" M="$work/module" modules
cp "$work/module/vm-planes.ko" "$work/"
rm -rf "$work/module"

# The initramfs: busybox, /init, the module, the plane-1 kernel, the cases.
step "initramfs"
root="$work/root"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/cases"
cp /bin/busybox "$root/bin/"
cp "$src/initramfs/init" "$root/init"
chmod 755 "$root/init"
cp "$src/initramfs/cases/"*.conf "$root/cases/"
cp "$work/vm-planes.ko" "$root/"
cp "$work/vmlinux-plane1" "$root/plane1-vmlinux"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) \
    > "$work/initramfs.cpio"
rm -rf "$root"

echo "$plane0_kernel" > "$work/plane0-kernel"
echo "$(( $(date +%s) - t0 ))" > "$work/build-seconds"
step "built in $(cat "$work/build-seconds") s"
touch "$work/done"
mv "$work" "$out"
echo "$out"
