#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds qemu-planes' libvirt: the pinned Debian source of libvirt 11.3.0
# (libvirt-upstream.sh), verified, plus our patch series
# (subprojects/packagefiles/libvirt-planes/), configured with the options of
# libvirt-options.sh and installed outside the clone, in
# $PLANES_CACHE/libvirt/install; build/libvirt/{src,build,install} link there.
# The install is keyed by its inputs (source checksum, series, options, this
# script): a second clone with the same inputs reuses it, changed inputs
# rebuild incrementally in the one cached build tree.
#
#   libvirt-build.sh               fetch, assemble, build, install, link
#   libvirt-build.sh --fetch       download and verify the source only
#   libvirt-build.sh --export DIR  rewrite the series from the commits of
#                                  the git tree DIR after its base commit
set -euo pipefail

: "${PLANES_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/qemu-planes}"
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/libvirt-upstream.sh"
source "$here/libvirt-options.sh"
source "$here/tree-swap.sh"

series_dir="$repo/subprojects/packagefiles/libvirt-planes"
dl="$PLANES_CACHE/download"
pristine="$PLANES_CACHE/libvirt-$libvirt_version-pristine"
top="$PLANES_CACHE/libvirt"
src="$top/src"
obj="$top/build"
inst="$top/install"

log() { echo "libvirt-build: $*" >&2; }

verify() { # file expected-sha256
    local got
    got=$(sha256sum "$dl/$1" | cut -d' ' -f1)
    if [ "$got" != "$2" ]; then
        log "checksum mismatch for $dl/$1:"
        log "  expected sha256 $2"
        log "  got      sha256 $got"
        log "  (delete the file to download it again)"
        exit 1
    fi
}

fetch() {
    mkdir -p "$dl"
    if [ ! -f "$dl/$libvirt_orig" ]; then
        log "downloading Debian source package libvirt $libvirt_deb_version"
        # Any Debian revision of 11.3.0 carries the same upstream tarball;
        # the checksum below decides.
        (cd "$dl" && { apt-get source --download-only -qq "libvirt=$libvirt_deb_version" ||
                       apt-get source --download-only -qq libvirt; } >&2) || true
    fi
    [ -f "$dl/$libvirt_orig" ] || { log "cannot download $libvirt_orig (is the trixie deb-src entry of setup-host.sh there?)"; exit 1; }
    verify "$libvirt_orig" "$libvirt_orig_sha256"
    [ ! -f "$dl/$libvirt_dsc" ] || verify "$libvirt_dsc" "$libvirt_dsc_sha256"
    if [ ! -f "$pristine/.planes-pristine-ok" ]; then
        log "unpacking into $pristine"
        rm -rf "$pristine" "$pristine.tmp"
        mkdir -p "$pristine.tmp"
        tar -C "$pristine.tmp" --strip-components=1 --no-same-owner -xf "$dl/$libvirt_orig"
        mv "$pristine.tmp" "$pristine"
        touch "$pristine/.planes-pristine-ok"
    fi
}

patches() { grep -v -e '^#' -e '^$' "$series_dir/series"; }

series_stamp() {
    (cd "$series_dir" && cat series $(patches)) | sha256sum | cut -d' ' -f1
}

# The tree is laid out again only when the series changed (tree-swap.sh).
assemble() {
    local want
    want=$(series_stamp)
    [ -f "$src/.planes-series" ] && [ "$(cat "$src/.planes-series")" = "$want" ] && return 0
    log "laying out $src from the pristine tree and the series"
    rm -rf "$src.tmp"
    cp -a "$pristine" "$src.tmp"
    rm -f "$src.tmp/.planes-pristine-ok"
    local p
    for p in $(patches); do
        if ! patch -d "$src.tmp" -p1 --quiet --no-backup-if-mismatch --forward \
                 -i "$series_dir/$p" >"$src.tmp.log" 2>&1; then
            log "patch $p does not apply to libvirt $libvirt_version:"
            cat "$src.tmp.log" >&2
            rm -rf "$src.tmp" "$src.tmp.log"
            exit 1
        fi
    done
    rm -f "$src.tmp.log"
    swap_patched_tree "$src.tmp" "$src" "$want" "$series_dir" $(patches)
}

build_key() {
    { echo "$libvirt_orig_sha256"; cat "$here/libvirt-options.sh" "$here/tree-swap.sh" "$0"; series_stamp; } |
        sha256sum | cut -c1-16
}

link_into_clone() {
    mkdir -p "$repo/build/libvirt"
    local d
    for d in src build install; do
        ln -sfn "$top/$d" "$repo/build/libvirt/$d"
    done
}

export_series() { # git tree
    local dir=$1 base
    base=$(git -C "$dir" rev-list --max-parents=0 HEAD)
    rm -f "$series_dir"/0*.patch
    git -C "$dir" format-patch -q --no-signature --zero-commit -N \
        -o "$series_dir" "$base"..HEAD
    (cd "$series_dir" && {
        echo "# libvirt $libvirt_version + VM planes, applied in this order (patch -p1)"
        ls 0*.patch
    } >series)
    log "exported $(ls "$series_dir"/0*.patch | wc -l) patches to $series_dir"
}

build() {
    local key t0 setup_args
    fetch
    mkdir -p "$top"
    exec 9>"$top/.lock"
    flock 9
    key=$(build_key)
    if [ -f "$inst/.planes-key" ] && [ "$(cat "$inst/.planes-key")" = "$key" ]; then
        link_into_clone
        log "build/libvirt/install is up to date (key $key)"
        return 0
    fi
    t0=$(date +%s)
    assemble
    setup_args=(--prefix="$inst" --sysconfdir=/etc --localstatedir=/var
                -Drunstatedir=/run --buildtype=plain -Dgit_werror=disabled
                "${planes_libvirt_options[@]}")
    if [ ! -f "$obj/build.ninja" ]; then
        log "configuring $obj"
        command -v ccache >/dev/null && export CC="ccache gcc"
        meson setup "$obj" "$src" "${setup_args[@]}" >"$top/setup.log" 2>&1 ||
            { tail -30 "$top/setup.log" >&2; exit 1; }
    elif [ "$(cat "$obj/.planes-options" 2>/dev/null)" != "${setup_args[*]}" ]; then
        meson setup --reconfigure "$obj" "$src" "${setup_args[@]}" >"$top/setup.log" 2>&1 ||
            { tail -30 "$top/setup.log" >&2; exit 1; }
    fi
    echo "${setup_args[*]}" >"$obj/.planes-options"
    log "building (log: $top/build.log)"
    nice ninja -C "$obj" >"$top/build.log" 2>&1 ||
        { grep -B2 -A20 -m1 FAILED "$top/build.log" >&2 || tail -30 "$top/build.log" >&2; exit 1; }
    # /etc, /var and /run stay out of the prefix: the tests' private
    # instances mount their own over them; DESTDIR keeps the host's alone.
    rm -rf "$top/stage" "$inst"
    DESTDIR="$top/stage" meson install -C "$obj" --no-rebuild --quiet >"$top/install.log" 2>&1 ||
        { tail -30 "$top/install.log" >&2; exit 1; }
    mv "$top/stage$inst" "$inst"
    mkdir -p "$inst/share/qemu-planes"
    mv "$top/stage/etc" "$inst/share/qemu-planes/etc-defaults"
    rm -rf "$top/stage"
    echo "$key" >"$inst/.planes-key"
    link_into_clone
    log "built and installed libvirt $libvirt_version + series in $(( $(date +%s) - t0 )) s (key $key)"
}

case "${1:-}" in
--fetch) fetch ;;
--export) export_series "${2:?usage: libvirt-build.sh --export DIR}" ;;
'') build ;;
*) echo "usage: libvirt-build.sh [--fetch | --export DIR]" >&2; exit 2 ;;
esac
