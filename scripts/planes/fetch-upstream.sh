#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Downloads the pinned Debian source package of QEMU once into a cache outside
# the clone, verifies it on every run, and unpacks a pristine tree from it.
# Prints the path of the pristine tree on stdout.
set -euo pipefail

: "${PLANES_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/qemu-planes}"
source "$(dirname "$0")/upstream.sh"
pkg_version=$qemu_deb_version
dsc=$qemu_dsc
orig=$qemu_orig
dsc_sha256=$qemu_dsc_sha256
orig_sha256=$qemu_orig_sha256

dl="$PLANES_CACHE/download"
pristine="$PLANES_CACHE/qemu-$qemu_version-pristine"
mkdir -p "$dl"

verify() { # file expected-sha256
    local got
    got=$(sha256sum "$dl/$1" | cut -d' ' -f1)
    if [ "$got" != "$2" ]; then
        echo "fetch-upstream: checksum mismatch for $dl/$1:" >&2
        echo "  expected sha256 $2" >&2
        echo "  got      sha256 $got" >&2
        echo "  (delete the file to download it again)" >&2
        exit 1
    fi
}

if [ ! -f "$dl/$dsc" ] || [ ! -f "$dl/$orig" ]; then
    echo "fetch-upstream: downloading Debian source package qemu $pkg_version" >&2
    (cd "$dl" && apt-get source --download-only -qq "qemu=$pkg_version" >&2)
fi
verify "$dsc" "$dsc_sha256"
verify "$orig" "$orig_sha256"

if [ ! -f "$pristine/.planes-pristine-ok" ]; then
    echo "fetch-upstream: unpacking into $pristine" >&2
    rm -rf "$pristine" "$pristine.tmp"
    # dpkg-source checks the debian tarball against the verified .dsc and
    # applies Debian's patches (they drop bundled blobs and pycotap).
    dpkg-source --require-strong-checksums -x "$dl/$dsc" "$pristine.tmp" >&2
    mv "$pristine.tmp" "$pristine"
    touch "$pristine/.planes-pristine-ok"
fi
echo "$pristine"
