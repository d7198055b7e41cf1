#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Builds the planes fuzzers (libFuzzer, clang from Debian) into
# build/fuzz/ and runs each one, printing per target: executions,
# crashes (a model mismatch aborts, so it is one), libFuzzer's coverage
# figures (cov: edges, ft: features) and wall time.
#
#   run-fuzz.sh RUNS [TAP]       each target for RUNS executions
#   run-fuzz.sh -t SECONDS [TAP] each target for SECONDS (check-fuzz)
#
# With TAP, writes a TAP log there.  Exit status non-zero on any crash,
# mismatch or build failure.  Without clang/libFuzzer it skips, saying so.
set -uo pipefail

cd "$(dirname "$0")/../../.."
OUT=build/fuzz
SRC=tests/planes/fuzz
TARGETS=(fuzz-attr-map fuzz-rules fuzz-migration)
declare -A UNITS=(
    [fuzz-attr-map]="hw/planes/plane-attr-map.c"
    [fuzz-rules]="hw/planes/plane-rules.c hw/planes/plane-attr-map.c"
    [fuzz-migration]="hw/planes/plane-migration-check.c hw/planes/plane-rules.c hw/planes/plane-attr-map.c"
)

mode=runs
if [ "${1:-}" = -t ]; then
    mode=time
    shift
fi
amount=${1:?usage: run-fuzz.sh [-t] RUNS-or-SECONDS [TAP]}
tap=${2:-}
n=0
failed=0
tap_lines=()
say() { tap_lines+=("$1"); echo "$1"; }

CC=${FUZZ_CC:-}
if [ -z "$CC" ]; then
    for c in clang-14 clang; do
        command -v "$c" >/dev/null && { CC=$c; break; }
    done
fi
skip=""
if [ -z "$CC" ]; then
    skip="clang is not installed (scripts/planes/setup-host.sh installs clang and libclang-rt-14-dev)"
elif ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
        "$CC" -fsanitize=fuzzer -x c -o /dev/null - 2>/dev/null; then
    skip="$CC cannot link libFuzzer (install libclang-rt-14-dev)"
fi
if [ -n "$skip" ]; then
    echo "fuzz: SKIP: $skip"
    if [ -n "$tap" ]; then
        printf 'ok 1 - planes fuzzers # SKIP %s\n1..1\n' "$skip" > "$tap"
    fi
    exit 0
fi
if [ ! -f build/qemu/config-host.h ] || [ ! -e build/src/include/qemu/osdep.h ]; then
    echo "fuzz: run ./configure first (needs build/qemu/config-host.h)" >&2
    exit 1
fi

mkdir -p "$OUT/artifacts"
CFLAGS=(-g -O1 -Wall -fsanitize=fuzzer,address,undefined
        -fno-sanitize-recover=undefined -fno-omit-frame-pointer
        -I include -I build/qemu -I build/src/include -I build/src
        $(pkg-config --cflags glib-2.0))
LIBS=($(pkg-config --libs glib-2.0))

for t in "${TARGETS[@]}"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    if ! "$CC" "${CFLAGS[@]}" -o "$OUT/$t" "$SRC/$t.c" ${UNITS[$t]} \
            "${LIBS[@]}" 2> "$OUT/$t.build.log"; then
        cat "$OUT/$t.build.log" >&2
        say "not ok $n - $t: build failed ($OUT/$t.build.log)"
        failed=1
        continue
    fi
    seeds="$OUT/seeds-$t"
    python3 "$SRC/gen-seeds.py" "$seeds" "$t"
    real=()
    if [ "$t" = fuzz-migration ]; then
        # real planes sections, saved by the migration test's streams
        bash "$SRC/stream-seeds.sh" "$OUT/stream-seeds" &&
            real=("$OUT/stream-seeds")
    fi
    if [ "$mode" = time ]; then
        # check-fuzz: a fresh corpus each time, from the seeds only
        corpus="$OUT/check-corpus-$t"
        rm -rf "$corpus"
        limit=(-max_total_time="$amount")
    else
        corpus="$OUT/corpus-$t"
        limit=(-runs="$amount")
    fi
    mkdir -p "$corpus"
    log="$OUT/$t.log"
    start=$(date +%s.%N)
    FUZZ_STATS=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$OUT/$t" "${limit[@]}" -use_value_profile=1 -print_final_stats=1 \
        -artifact_prefix="$OUT/artifacts/$t-" "$corpus" "$seeds" "${real[@]}" \
        > "$log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
    corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | sed 's/corp: //')
    mism=$(grep -c '^MODEL MISMATCH' "$log")
    crashes=$(grep -cE '^==[0-9]+==ERROR|deadly signal|runtime error' "$log")
    grep '^verdicts' "$log" | sed "s/^/  $t /"
    summary="$t: ${execs:-0} executions in ${wall} s (${rate:-0}/s), $crashes crashes, $mism model mismatches, ${cov:-no coverage}, corpus ${corp:-0}"
    if [ $rc = 0 ] && [ "$crashes" = 0 ] && [ "$mism" = 0 ] && [ -n "$execs" ]; then
        say "ok $n - $summary"
    else
        grep -A30 -E 'MODEL MISMATCH|==ERROR|runtime error|deadly signal' "$log" | head -60 >&2
        say "not ok $n - $summary (exit $rc; log $log, inputs $OUT/artifacts/)"
        failed=1
    fi
done
if [ -n "$tap" ]; then
    mkdir -p "$(dirname "$tap")"
    { printf '%s\n' "${tap_lines[@]}"; echo "1..$n"; } > "$tap"
fi
exit $failed
