#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a fresh build costs: QEMU configured with all its default features
# and devices (the fork's configuration before the lean build) against the
# fork's lean configuration (scripts/planes/qemu-options.sh), both cold,
# one after the other in one run on the same assembled tree (build/src),
# without ccache and with the page cache dropped before each where the
# host allows it.  Prints a table and the ratios; numbers, not assertions.
#
#   build-bench.sh [WORKDIR]     default: ~/.cache/qemu-planes/build-bench
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/qemu-options.sh"

src="$repo/build/src"
[ -x "$src/configure" ] || { echo "build-bench: run ./configure first" >&2; exit 1; }
work=${1:-${PLANES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/qemu-planes}/build-bench}
mkdir -p "$work"
export CCACHE_DISABLE=1

now() { date +%s.%N; }

drop_caches() {
    sync
    if [ -w /proc/sys/vm/drop_caches ]; then
        echo 3 >/proc/sys/vm/drop_caches
        echo dropped
    else
        echo kept
    fi
}

# $1: name; rest: QEMU configure options.  Sets the results in r_* vars.
measure() {
    local name=$1 obj="$work/$1" t0 t1 t2
    shift
    rm -rf "$obj"
    mkdir -p "$obj"
    r_cache=$(drop_caches)
    t0=$(now)
    (cd "$obj" && "$src/configure" "$@") >"$work/$name-configure.log" 2>&1 ||
        { echo "build-bench: configure ($name) failed: $work/$name-configure.log" >&2; exit 1; }
    t1=$(now)
    ninja -C "$obj" qemu-system-x86_64 >"$work/$name-build.log" 2>&1 ||
        { echo "build-bench: build ($name) failed: $work/$name-build.log" >&2; exit 1; }
    t2=$(now)
    r_configure=$(echo "$t1 - $t0" | bc)
    r_build=$(echo "$t2 - $t1" | bc)
    r_total=$(echo "$t2 - $t0" | bc)
    r_steps=$(grep -oE '^\[[0-9]+/[0-9]+\]' "$work/$name-build.log" | tail -1 |
              sed -E 's/.*\/([0-9]+)\]/\1/')
    r_size=$(stat -c %s "$obj/qemu-system-x86_64")
    r_devices=$(grep -c '=y$' "$obj/x86_64-softmmu-config-devices.mak" || true)
}

echo "build-bench: cold builds of qemu-system-x86_64 from $src"
echo "build-bench: $(nproc) CPUs, ccache off; defaults first, then lean"

measure defaults "${planes_qemu_base_options[@]}"
d=("$r_configure" "$r_build" "$r_total" "$r_steps" "$r_size" "$r_devices" "$r_cache")
measure lean "${planes_qemu_base_options[@]}" "${planes_qemu_lean_options[@]}"
l=("$r_configure" "$r_build" "$r_total" "$r_steps" "$r_size" "$r_devices" "$r_cache")

row() {
    printf '%-10s %11.1f %9.1f %9.1f %7s %9.1f %8s %6s\n' "$1" "$2" "$3" "$4" \
        "$5" "$(echo "$6 / 1048576" | bc -l)" "$7" "$8"
}
echo
printf '%-10s %11s %9s %9s %7s %9s %8s %6s\n' config 'configure/s' 'build/s' \
    'total/s' steps 'binary/MB' 'CONFIG=y' cache
row defaults "${d[@]}"
row lean "${l[@]}"
printf '%-10s %11.2f %9.2f %9.2f %7.2f %9.2f %8.2f\n' 'lean/dflt' \
    "$(echo "${l[0]} / ${d[0]}" | bc -l)" "$(echo "${l[1]} / ${d[1]}" | bc -l)" \
    "$(echo "${l[2]} / ${d[2]}" | bc -l)" "$(echo "${l[3]} / ${d[3]}" | bc -l)" \
    "$(echo "${l[4]} / ${d[4]}" | bc -l)" "$(echo "${l[5]} / ${d[5]}" | bc -l)"
