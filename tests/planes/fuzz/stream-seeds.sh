#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Seeds of fuzz-migration from real streams: runs the migration test's
# file: cases and stream edits with PLANES_STREAM_SEEDS, which saves the
# planes sections of each stream they write (tests/qtest/
# planes-stream-edit.h) into DIR.  Once: an existing DIR is kept.  Needs
# make's build of QEMU and the qtest; without them it says so and fails.
#
#   stream-seeds.sh DIR
set -uo pipefail

dir=$(realpath -m "${1:?usage: stream-seeds.sh DIR}")
cd "$(dirname "$0")/../../../build/qemu" || exit 1
if [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    exit 0
fi
test=tests/qtest/planes-migration-test
if [ ! -x qemu-system-x86_64 ] || ! ninja "$test" >/dev/null 2>&1; then
    echo "fuzz-migration: no real stream seeds (run make first)" >&2
    exit 1
fi
mkdir -p "$dir.tmp"
if ! PLANES_STREAM_SEEDS="$dir.tmp" QTEST_QEMU_BINARY=./qemu-system-x86_64 \
        "$test" -p /x86_64/planes/tcg/migration/file \
        -p /x86_64/planes/tcg/migration/stream-edit > "$dir.log" 2>&1; then
    echo "fuzz-migration: the migration test failed, see $dir.log" >&2
    rm -rf "$dir.tmp"
    exit 1
fi
mv "$dir.tmp" "$dir"
echo "fuzz-migration: $(ls "$dir" | wc -l) real stream seeds in $dir"
