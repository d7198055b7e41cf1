#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Turns the patch series into a git repository for editing, and back.
#
#   series-git.sh checkout DIR   pristine QEMU + one commit per patch in DIR
#   series-git.sh export DIR     rewrite the series from DIR's commits
#
# Edit the upstream files in DIR, commit (or amend/rebase), then export.
set -euo pipefail
source "$(dirname "$0")/upstream.sh"

repo=$(cd "$(dirname "$0")/../.." && pwd)
series_dir="$repo/subprojects/packagefiles/qemu-planes"
cmd=${1:?usage: series-git.sh checkout|export DIR}
dir=${2:?usage: series-git.sh checkout|export DIR}
git_() { git -C "$dir" -c user.name=qemu-planes -c user.email=dev@qemu-planes "$@"; }

case "$cmd" in
checkout)
    pristine=$(bash "$repo/scripts/planes/fetch-upstream.sh")
    [ -e "$dir" ] && { echo "series-git: $dir exists" >&2; exit 1; }
    cp -a "$pristine" "$dir"
    rm -f "$dir/.planes-pristine-ok"
    git_ init -q
    git_ add -A
    git_ commit -qm "QEMU $qemu_version (Debian $qemu_deb_version)"
    git_ tag planes-base
    while read -r p; do
        case "$p" in ''|'#'*) continue ;; esac
        git_ am -q "$series_dir/$p"
    done <"$series_dir/series"
    echo "series-git: $dir holds the series on tag planes-base"
    ;;
export)
    rm -f "$series_dir"/[0-9][0-9][0-9][0-9]-*.patch
    git_ -c core.abbrev=7 format-patch -q --no-signature --zero-commit -o "$series_dir" planes-base
    {
        echo "# qemu-planes patch series for QEMU $qemu_version (Debian $qemu_deb_version),"
        echo "# applied in order with patch -p1 by scripts/planes/assemble.sh."
        (cd "$series_dir" && ls [0-9][0-9][0-9][0-9]-*.patch)
    } >"$series_dir/series"
    echo "series-git: wrote $(grep -vc '^#' "$series_dir/series") patches"
    ;;
*)
    echo "usage: series-git.sh checkout|export DIR" >&2
    exit 1
    ;;
esac
