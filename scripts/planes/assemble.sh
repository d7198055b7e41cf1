#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Assembles the QEMU source tree of qemu-planes: pristine upstream + the patch
# series + the overlay (our own files, linked in so edits need no re-copy).
#
#   assemble.sh PRISTINE_DIR SRC_DIR
#   assemble.sh --links-only SRC_DIR   only lay the overlay links into SRC_DIR
#
# The tree is rebuilt from the pristine copy only when the series changed;
# otherwise only the overlay links are refreshed.  Copies keep the pristine
# timestamps, so a re-assembly rebuilds only what the series touches.
set -euo pipefail
source "$(dirname "$0")/upstream.sh"

repo=$(cd "$(dirname "$0")/../.." && pwd)
pristine=$1
src=$2
links_only=false
[ "$pristine" = --links-only ] && links_only=true
series_dir="$repo/subprojects/packagefiles/qemu-planes"

series_stamp() {
    (cd "$series_dir" && cat series $(grep -v '^#' series)) | sha256sum | cut -d' ' -f1
}

overlay_files() {
    # Our own files in QEMU's layout; tooling, the series and docs about the
    # repo itself are not laid into the tree.
    if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$repo" ls-files --cached --others --exclude-standard -- \
            accel configs hw target include qapi docs tests monitor system python
    else
        (cd "$repo" && find accel configs hw target include qapi docs tests monitor \
            system python -type f 2>/dev/null)
    fi
}

want=$(series_stamp)
if ! $links_only &&
   { [ ! -f "$src/.planes-series" ] || [ "$(cat "$src/.planes-series")" != "$want" ]; }; then
    echo "assemble: laying out $src from the pristine tree"
    rm -rf "$src.tmp"
    cp -a "$pristine" "$src.tmp"
    rm -f "$src.tmp/.planes-pristine-ok"
    while read -r p; do
        case "$p" in ''|'#'*) continue ;; esac
        if ! patch -d "$src.tmp" -p1 --quiet --no-backup-if-mismatch \
                 --forward -i "$series_dir/$p" >"$src.tmp.patchlog" 2>&1; then
            echo "assemble: patch $p does not apply to QEMU $qemu_version:" >&2
            cat "$src.tmp.patchlog" >&2
            rm -rf "$src.tmp" "$src.tmp.patchlog"
            exit 1
        fi
    done <"$series_dir/series"
    rm -f "$src.tmp.patchlog"
    source "$(dirname "$0")/tree-swap.sh"
    swap_patched_tree "$src.tmp" "$src" "$want" "$series_dir" \
        $(grep -v -e '^#' -e '^$' "$series_dir/series")
fi

# Lay the overlay in as symbolic links; refuse to shadow an upstream file.
n=0
while read -r f; do
    [ -f "$repo/$f" ] || continue
    dst="$src/$f"
    if [ -L "$dst" ]; then
        [ "$(readlink "$dst")" = "$repo/$f" ] && continue
        rm -f "$dst"
    elif [ -e "$dst" ]; then
        echo "assemble: overlay file $f would replace an upstream file;" \
             "change upstream files through the patch series" >&2
        exit 1
    fi
    mkdir -p "$(dirname "$dst")"
    ln -s "$repo/$f" "$dst"
    n=$((n + 1))
done < <(overlay_files)
# Drop links whose overlay file was removed.
find "$src" -type l -lname "$repo/*" ! -exec test -e {} \; -delete
[ "$n" -gt 0 ] && echo "assemble: linked $n overlay file(s)"
exit 0
