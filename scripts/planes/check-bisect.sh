#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Proves that the patch series bisects: for every prefix of the series
# (patch 1, patches 1-2, ...), the pristine tree with that prefix applied and
# the overlay laid in configures, builds qemu-system-x86_64, and passes the
# checks that exist at that point:
#   - every prefix: the binary starts a q35 machine and answers QMP;
#   - once the planes property exists: planes=2 is accepted (or refused
#     with its error line) and planes=1 behaves as stock;
#   - once the planes qtests exist: planes-test, planes-guest-test and
#     planes-security-test pass.
# One build directory serves all prefixes (git checkout keeps ninja's
# rebuilds incremental), so a run takes one cold build plus the
# increments; it is slow (about 20 minutes on 2 cores), so it is run by
# hand or by `make check-bisect`, not by `make check`.
#
#   check-bisect.sh [WORKDIR]     default: ~/.cache/qemu-planes/bisect
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/upstream.sh"
source "$here/qemu-options.sh"

work=${1:-${PLANES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/qemu-planes}/bisect}
src="$work/src"
obj="$work/build"
log="$work/log"
mkdir -p "$work" "$log"

rm -rf "$src"
bash "$here/series-git.sh" checkout "$src" >/dev/null
mapfile -t commits < <(git -C "$src" rev-list --reverse planes-base..HEAD)
echo "check-bisect: ${#commits[@]} patches, work in $work"

qmp_session() {
    # $@: extra QEMU arguments; prints QEMU's answers to a fixed transcript.
    printf '%s\n' '{"execute":"qmp_capabilities"}' \
        '{"execute":"query-status"}' '{"execute":"quit"}' |
        timeout 60 "$obj/qemu-system-x86_64" -nodefaults -display none \
            -accel tcg -S -qmp stdio "$@" 2>&1 || true
}

first=true
failed=0
for i in "${!commits[@]}"; do
    n=$((i + 1))
    c=${commits[$i]}
    subject=$(git -C "$src" log -1 --format=%s "$c")
    git -C "$src" checkout -q "$c"
    bash "$here/assemble.sh" --links-only "$src" >/dev/null
    step() { echo "  $n: $1"; }
    printf 'check-bisect: [%d/%d] %s\n' "$n" "${#commits[@]}" "$subject"
    if $first; then
        rm -rf "$obj"
        mkdir -p "$obj"
        (cd "$obj" && "$src/configure" "${planes_qemu_options[@]}") \
            >"$log/configure.log" 2>&1 || { step "configure FAILED"; exit 1; }
        make -C "$repo" --no-print-directory BUILD="$obj" firmware-links
        first=false
    fi
    if ! ninja -C "$obj" qemu-system-x86_64 >"$log/build-$n.log" 2>&1; then
        step "build FAILED ($log/build-$n.log)"
        tail -20 "$log/build-$n.log"
        failed=$((failed + 1))
        continue
    fi
    out=$(qmp_session -machine q35)
    if ! grep -q '"status": "prelaunch"' <<<"$out"; then
        step "q35 does not start: $out"
        failed=$((failed + 1))
        continue
    fi
    if grep -q 'planes=' <<<"$("$obj/qemu-system-x86_64" -machine q35,help 2>&1)"; then
        # Before the accelerator hooks, refusing planes=2 is right too.
        out=$(qmp_session -machine q35,planes=2)
        if grep -q '"status": "prelaunch"' <<<"$out"; then
            step "q35 and q35,planes=2 start"
        elif grep -q '^qemu-system-x86_64: .*planes' <<<"$out"; then
            step "q35 starts; planes=2 refused: $(grep -m1 planes <<<"$out")"
        else
            step "q35,planes=2 neither starts nor is refused: $out"
            failed=$((failed + 1))
            continue
        fi
    else
        step "q35 starts (no planes property yet)"
    fi
    if [ -f "$src/tests/qtest/meson.build" ] &&
       grep -q "'planes-test'" "$src/tests/qtest/meson.build"; then
        make -C "$repo" --no-print-directory BUILD="$obj" guests \
            >"$log/guests-$n.log" 2>&1
        tests=(planes-test planes-guest-test planes-security-test)
        if ! ninja -C "$obj" "${tests[@]/#/tests/qtest/}" >>"$log/build-$n.log" 2>&1 ||
           ! (cd "$obj" && pyvenv/bin/meson test --no-rebuild --print-errorlogs \
                  --num-processes 2 "${tests[@]/#/qtest-x86_64/}") \
                >"$log/test-$n.log" 2>&1; then
            step "planes qtests FAILED ($log/test-$n.log)"
            failed=$((failed + 1))
            continue
        fi
        step "$(grep -E '^(Ok|Fail):' "$log/test-$n.log" | tr -s ' \n' ' ')"
    fi
done
if [ "$failed" -ne 0 ]; then
    echo "check-bisect: $failed of ${#commits[@]} prefixes FAILED"
    exit 1
fi
echo "check-bisect: all ${#commits[@]} prefixes build and pass their checks"
