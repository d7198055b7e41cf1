#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# VM planes driven by a real libvirt: domcapabilities probing of the fork,
# a planes=2 TCG domain from tests/planes/libvirt/planes-vm.xml, plane
# state through virsh qemu-monitor-command (QMP and HMP), the vCPU counts
# libvirt reports, and suspend/resume/reset/destroy with planes active.
# Starts libvirtd (and virtlogd) itself when none runs, and cleans up
# whatever happens.  Prints TAP; exits non-zero on any failure.
set -u

repo=$(cd "$(dirname "$0")/../../.." && pwd)
qemu="$repo/build/qemu/qemu-system-x86_64"
guest="$repo/build/qemu/tests/planes-guests/plane0.elf"
outputs="${PLANES_LIBVIRT_OUTPUTS:-/dev/null}"
dom=qemu-planes-test
virsh=(virsh -q -c qemu:///system)
n=0
failed=0
started_daemons=()
tmp=$(mktemp -d /tmp/planes-libvirt-XXXXXX)
chmod 755 "$tmp"

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
check() { # name command...
    local name=$1; shift
    local out
    if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
record() { { echo "\$ $*"; "$@" 2>&1; echo; } >>"$outputs"; }

cleanup() {
    "${virsh[@]}" destroy "$dom" >/dev/null 2>&1
    "${virsh[@]}" undefine "$dom" >/dev/null 2>&1
    for pid in "${started_daemons[@]}"; do
        kill "$pid" 2>/dev/null
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
    rm -rf "$tmp"
}
trap cleanup EXIT

bail() { echo "Bail out! $*"; echo "1..$n"; echo "$n passed, $((failed + 1)) failed"; exit 1; }

[ -x "$qemu" ] && [ -f "$guest" ] || bail "build first: $qemu or $guest missing"

# libvirt from Debian if missing (the newest the archive offers)
if ! command -v libvirtd >/dev/null || ! command -v virsh >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -t bookworm-backports libvirt-daemon-system libvirt-clients \
        >"$tmp/apt.log" 2>&1 || bail "cannot install libvirt: $(tail -3 "$tmp/apt.log")"
fi
echo "# $(libvirtd --version)"

# our own daemons unless some already answer
if ! "${virsh[@]}" version >/dev/null 2>&1; then
    for d in virtlogd libvirtd; do
        pidfile="$tmp/$d.pid"
        "$d" -d -p "$pidfile" >"$tmp/$d.log" 2>&1 ||
            bail "$d does not start: $(cat "$tmp/$d.log")"
        for _ in $(seq 50); do [ -s "$pidfile" ] && break; sleep 0.1; done
        started_daemons+=("$(cat "$pidfile" 2>/dev/null)")
    done
    for _ in $(seq 100); do "${virsh[@]}" version >/dev/null 2>&1 && break; sleep 0.1; done
    "${virsh[@]}" version >/dev/null 2>&1 || bail "libvirtd does not answer: $(cat "$tmp/libvirtd.log")"
fi
ok "libvirtd answers"

# capability probing of the fork binary (-machine none, QMP at length)
caps=$("${virsh[@]}" domcapabilities --emulatorbin "$qemu" --arch x86_64 --virttype qemu 2>&1)
record "${virsh[@]}" domcapabilities --emulatorbin "$qemu" --arch x86_64 --virttype qemu
if grep -q "<path>$qemu</path>" <<<"$caps" && grep -q '<machine>pc-i440fx-' <<<"$caps"; then
    ok "domcapabilities probes the fork (pc)"
else
    not_ok "domcapabilities probes the fork (pc)" "$caps"
fi
caps=$("${virsh[@]}" domcapabilities --emulatorbin "$qemu" --arch x86_64 --virttype qemu --machine q35 2>&1)
if grep -q '<machine>pc-q35-' <<<"$caps"; then ok "domcapabilities lists q35"; else not_ok "domcapabilities lists q35" "$caps"; fi

# the domain
sed -e "s|@EMULATOR@|$qemu|" -e "s|@KERNEL@|$guest|" \
    -e "s|@CMDLINE@|test=vbs halt=1 calls=100|" -e "s|@SERIAL@|$tmp/serial.log|" \
    "$repo/tests/planes/libvirt/planes-vm.xml" >"$tmp/dom.xml"
check "domain defined" "${virsh[@]}" define "$tmp/dom.xml"
check "domain started" "${virsh[@]}" start "$dom"

wait_serial() { # count of DONE lines to wait for
    for _ in $(seq 600); do
        [ "$(grep -c DONE "$tmp/serial.log" 2>/dev/null)" -ge "$1" ] && return 0
        sleep 0.1
    done
    return 1
}
if wait_serial 1; then ok "guest booted its planes (serial DONE)"; else not_ok "guest booted its planes" "$(cat "$tmp/serial.log" 2>&1)"; fi

planes_json=$("${virsh[@]}" qemu-monitor-command "$dom" --pretty '{"execute":"query-planes"}' 2>&1)
record "${virsh[@]}" qemu-monitor-command "$dom" --pretty '{"execute":"query-planes"}'
check_planes() { # expected plane-1 state
    python3 - "$1" <<PY
import json, sys
r = json.loads('''$planes_json''')['return']
assert len(r) == 2, r
assert r[0]['state'] == 'running' and r[1]['state'] == sys.argv[1], r
assert all(len(p['vcpus']) == 2 for p in r), r
assert r[1]['region-size'] > 0 and r[0]['memory-violations'] == 4, r  # the vbs guest's 4 probes
PY
}
check "query-planes over virsh: plane 1 parked" check_planes parked
hmp=$("${virsh[@]}" qemu-monitor-command "$dom" --hmp 'info planes' 2>&1)
record "${virsh[@]}" qemu-monitor-command "$dom" --hmp 'info planes'
if grep -Eq '^1 +parked ' <<<"$hmp"; then ok "info planes over virsh"; else not_ok "info planes over virsh" "$hmp"; fi

# libvirt's vCPU view: the guest's 2 vCPUs, no plane vCPU states
record "${virsh[@]}" dominfo "$dom"
record "${virsh[@]}" vcpuinfo "$dom"
record "${virsh[@]}" domstats --vcpu "$dom"
if "${virsh[@]}" dominfo "$dom" | grep -Eq '^CPU\(s\): +2$'; then ok "dominfo: 2 CPUs"; else not_ok "dominfo: 2 CPUs" "$("${virsh[@]}" dominfo "$dom" 2>&1)"; fi
vcpus=$("${virsh[@]}" vcpuinfo "$dom" 2>&1 | grep -c '^VCPU:')
if [ "$vcpus" = 2 ]; then ok "vcpuinfo: 2 vCPUs"; else not_ok "vcpuinfo: 2 vCPUs" "got $vcpus"; fi
stats=$("${virsh[@]}" domstats --vcpu "$dom" 2>&1)
if grep -q 'vcpu.current=2' <<<"$stats" && grep -q 'vcpu.maximum=2' <<<"$stats" &&
   ! grep -q 'vcpu.2.' <<<"$stats"; then
    ok "domstats: 2 vCPUs"
else
    not_ok "domstats: 2 vCPUs" "$stats"
fi

# lifecycle with planes active
check "suspend" "${virsh[@]}" suspend "$dom"
if "${virsh[@]}" domstate "$dom" | grep -q paused; then ok "paused"; else not_ok "paused"; fi
planes_json=$("${virsh[@]}" qemu-monitor-command "$dom" '{"execute":"query-planes"}' 2>&1)
check "query-planes while paused" check_planes parked
check "resume" "${virsh[@]}" resume "$dom"
if "${virsh[@]}" domstate "$dom" | grep -q running; then ok "running again"; else not_ok "running again"; fi
check "reset" "${virsh[@]}" reset "$dom"
if wait_serial 2; then ok "guest booted its planes again after reset"; else not_ok "guest rebooted" "$(tail -5 "$tmp/serial.log")"; fi
check "destroy" "${virsh[@]}" destroy "$dom"
if "${virsh[@]}" domstate "$dom" | grep -q "shut off"; then ok "shut off"; else not_ok "shut off"; fi
check "undefine" "${virsh[@]}" undefine "$dom"

# the QMP example (QEMU's python/qemu/qmp from the assembled tree)
"$qemu" -accel tcg -machine q35,planes=2 -smp 2 -m 512M -nodefaults \
    -display none -S -serial null -kernel "$guest" -append "test=boot halt=1" \
    -qmp "unix:$tmp/qmp.sock,server=on,wait=off" &
qpid=$!
for _ in $(seq 50); do [ -S "$tmp/qmp.sock" ] && break; sleep 0.1; done
ex=$(timeout 60 python3 "$repo/scripts/planes/qmp-planes.py" "$tmp/qmp.sock" --cont --wait 30 2>&1)
kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null
if grep -q '^plane 1: created' <<<"$ex" &&
   grep -q '^PLANE_STATE_CHANGED plane 1: created -> configured$' <<<"$ex"; then
    ok "scripts/planes/qmp-planes.py lists planes and sees PLANE_STATE_CHANGED"
else
    not_ok "scripts/planes/qmp-planes.py" "$ex"
fi

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
