# SPDX-License-Identifier: GPL-2.0-or-later
# Puts a freshly patched copy of a pristine tree in place of the old one
# (sourced by assemble.sh for QEMU and libvirt-build.sh for libvirt).  The
# copy keeps the pristine timestamps; files the new series patches are
# newer already, and files the old series patched are back to pristine
# content with an old timestamp, so they are touched: ninja rebuilds what
# changed and nothing else.
#
#   swap_patched_tree NEW OLD STAMP SERIES_DIR PATCH...
swap_patched_tree() {
    local new=$1 old=$2 stamp=$3 series_dir=$4 p f
    shift 4
    for p in "$@"; do
        sed -n 's|^+++ b/||p' "$series_dir/$p" | cut -f1
    done >"$new/.planes-patched"
    if [ -f "$old/.planes-patched" ]; then
        while read -r f; do
            [ -f "$new/$f" ] && touch "$new/$f"
        done <"$old/.planes-patched"
    fi
    rm -rf "$old"
    mv "$new" "$old"
    echo "$stamp" >"$old/.planes-series"
}
