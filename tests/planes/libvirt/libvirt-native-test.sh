#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# VM planes in libvirt's own XML, through the real daemon of qemu-planes'
# libvirt build (build/libvirt/install, subprojects/packagefiles/
# libvirt-planes/), run as private instances (private-libvirtd.sh):
# domcapabilities, define, start without taint, dumpxml, the command
# line, query-planes through virsh qemu-monitor-command, suspend/resume,
# reset, managedsave and start, save and restore to a file, a
# plane-violation stop as the paused reason 'plane violation', a plane 1
# the host launches (<planes><plane id='1'><kernel/>), and live
# migration between two instances in two network namespaces joined by a
# veth pair (virsh migrate --live --p2p over TCP) while plane 1 is parked
# and plane 0 makes VTL calls: none lost or answered twice, the seal holds
# on the destination.  Prints TAP; exits non-zero on any failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
qemu="$repo/build/qemu/qemu-system-x86_64"
guest="$repo/build/qemu/tests/planes-guests/plane0.elf"
outputs="${PLANES_LIBVIRT_OUTPUTS:-/dev/null}"
export LV_INSTALL="$repo/build/libvirt/install"
n=0
failed=0
ns_a="planes-lv-a-$$"
ns_b="planes-lv-b-$$"
net="10.77.$(( $$ % 250 + 1 ))"

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# ${l//$'\n'/$'\n'# }"; done; }
check() { # name command...
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
bail() { echo "Bail out! $*"; echo "1..$n"; echo "$n passed, $((failed + 1)) failed"; exit 1; }

if [ "$(id -u)" != 0 ]; then
    echo "ok 1 - libvirt native tests # SKIP needs root (mount and network namespaces for private libvirtd instances)"
    echo "1..1"
    exit 0
fi
[ -x "$qemu" ] && [ -f "$guest" ] || bail "build first: $qemu or $guest missing"
[ -x "$LV_INSTALL/sbin/libvirtd" ] || bail "build libvirt first (make libvirt): $LV_INSTALL/sbin/libvirtd missing"

tmp=$(mktemp -d /tmp/planes-lvn-XXXXXX)
chmod 755 "$tmp"
export LV_ROOT="$tmp"
source "$here/private-libvirtd.sh"

cleanup() {
    lv_stop_all
    ip netns del "$ns_a" 2>/dev/null
    ip netns del "$ns_b" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
record() { { echo "\$ virsh $*"; lv_virsh "$@" 2>&1; echo; } >>"$outputs"; }

domain_xml() { # name cmdline violation
    sed -e "s|@NAME@|$1|g" -e "s|@EMULATOR@|$qemu|" -e "s|@KERNEL@|$guest|" \
        -e "s|@CMDLINE@|$2|" -e "s|@VIOLATION@|$3|" \
        "$here/planes-native-vm.xml" >"$tmp/$1.xml"
    echo "$tmp/$1.xml"
}
com1_log() { echo "$(lv_dir "$1")/log/qemu/$2-com1.log"; }
wait_for() { # seconds command...: polls until the command succeeds
    local end=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -ge $end ] && return 1
        sleep 0.2
    done
}
count_at_least() { [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ]; }
state_is() { lv_virsh "$1" domstate --reason "$2" 2>/dev/null | grep -qx "$3"; }
query_planes() { lv_virsh "$1" qemu-monitor-command "$2" '{"execute":"query-planes"}'; }
# What of query-planes a save, restore or migration must keep.
planes_summary() {
    query_planes "$1" "$2" | python3 -c '
import json, sys
r = json.load(sys.stdin)["return"]
print(";".join("%d:%s:%x+%x@%x:ranges=%d:violations=%d:devices=%s" % (
    p["id"], p["state"], p["region-base"], p["region-size"], p["entry-point"],
    p["memory-attr-ranges"], p["memory-violations"],
    ",".join(d.rsplit("/", 1)[-1] for d in p["devices"])) for p in r))'
}

lv_start a || bail "private libvirtd does not start"
ok "private libvirtd instance answers ($("$LV_INSTALL/sbin/libvirtd" --version))"

# Capabilities probed from the fork's binary
caps=$(lv_virsh a domcapabilities --emulatorbin "$qemu" --arch x86_64 --virttype qemu --machine q35 2>&1)
record a domcapabilities --emulatorbin "$qemu" --arch x86_64 --virttype qemu --machine q35
planes_caps=$(sed -n "/<planes supported='yes'/,/<\/planes>/p" <<<"$caps")
if grep -q "<planes supported='yes' max='16'>" <<<"$planes_caps" &&
   grep -A3 "<enum name='violation'>" <<<"$planes_caps" | grep -q '<value>fault</value>' &&
   grep -A4 "<enum name='launchFormat'>" <<<"$planes_caps" | grep -q '<value>bzimage</value>'; then
    ok "domcapabilities: <planes supported='yes' max='16'> with the violation values and the launch formats"
else
    not_ok "domcapabilities: planes supported" "$caps"
fi
if [ -w /dev/kvm ]; then
    caps=$(lv_virsh a domcapabilities --emulatorbin "$qemu" --arch x86_64 --virttype kvm --machine q35 2>&1)
    if grep -q "<planes supported='no'/>" <<<"$caps"; then ok "domcapabilities: no planes under KVM"
    else not_ok "domcapabilities: no planes under KVM" "$caps"; fi
fi

# define, dumpxml, argv
dom=planes-lc
check "define a domain with <planes count='2' violation='fault'/>" \
    lv_virsh a define "$(domain_xml $dom "test=vbs halt=1 calls=100" fault)"
xml=$(lv_virsh a dumpxml $dom 2>&1)
record a dumpxml $dom
if grep -q "<planes count='2' violation='fault'/>" <<<"$xml" &&
   [ "$(grep -c "<plane id='1'/>" <<<"$xml")" = 2 ] &&
   grep -A6 "<rng model" <<<"$xml" | grep -q "bus='0x00'"; then
    ok "dumpxml: the planes feature, two plane-1 devices, the rng on the root bus"
else
    not_ok "dumpxml" "$xml"
fi
argv=$(lv_virsh a domxml-to-native qemu-argv --domain $dom 2>&1)
if grep -q -- "-machine pc-q35-[^ ]*,planes=2,plane-violation=fault" <<<"$argv" &&
   grep -q '"driver":"virtio-rng-pci-non-transitional",[^}]*"id":"rng0","plane":1,"bus":"pcie.0"' <<<"$argv" &&
   grep -q '"driver":"isa-serial",[^}]*"id":"serial1","index":1,"plane":1' <<<"$argv"; then
    ok "domxml-to-native: -machine planes=2,plane-violation=fault and plane=1 devices"
else
    not_ok "domxml-to-native" "$argv"
fi

# start, no taint, the running QEMU's command line
check "start" lv_virsh a start $dom
if wait_for 120 count_at_least "$(com1_log a $dom)" DONE 1; then
    ok "the guest booted its planes (DONE on COM1)"
else
    not_ok "the guest booted its planes" "$(tail -5 "$(com1_log a $dom)" 2>&1)"
fi
qlog="$(lv_dir a)/log/qemu/$dom.log"
# The test's instances run QEMU as root (high-privileges, their choice);
# planes must add no taint (<qemu:commandline> adds custom-argv).
taints=$(grep 'is tainted' "$qlog" 2>&1 | grep -v 'tainted: high-privileges$')
if [ -s "$qlog" ] && [ -z "$taints" ]; then ok "no taint in the domain's log (but high-privileges: QEMU runs as root here)"
else not_ok "no taint in the domain's log" "$taints"; fi
pid=$(cat "$(lv_dir a)/run/qemu/$dom.pid" 2>/dev/null)
cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)
if grep -q "planes=2,plane-violation=fault" <<<"$cmdline"; then ok "QEMU runs with planes=2"
else not_ok "QEMU runs with planes=2" "$cmdline"; fi

# query-planes through the daemon
record a qemu-monitor-command $dom --pretty '{"execute":"query-planes"}'
summary=$(planes_summary a $dom 2>&1)
if grep -Eq '^0:running:0\+0@0:ranges=[1-9][0-9]*:violations=4:devices=;1:parked:[0-9a-f]+\+[1-9a-f][0-9a-f]*@[1-9a-f][0-9a-f]*:ranges=0:violations=0:devices=rng0,serial1$' <<<"$summary"; then
    ok "query-planes: plane 1 parked in its region, owns rng0 and serial1; plane 0 sealed off it (4 violations)"
else
    not_ok "query-planes over virsh qemu-monitor-command" "$summary"
fi

# a plane's device cannot be hot-plugged (QEMU gives those to plane 0)
cat >"$tmp/rng-plane1.xml" <<XML
<rng model='virtio'><backend model='random'>/dev/urandom</backend><plane id='1'/></rng>
XML
out=$(lv_virsh a attach-device $dom "$tmp/rng-plane1.xml" --live 2>&1)
if [ $? != 0 ] && grep -q "a device of plane '1' cannot be hot-plugged" <<<"$out"; then
    ok "attach-device of a plane-1 device is refused"
else
    not_ok "attach-device of a plane-1 device is refused" "$out"
fi

check "suspend" lv_virsh a suspend $dom
if state_is a $dom "paused (user)"; then ok "paused (user)"; else not_ok "paused (user)" "$(lv_virsh a domstate --reason $dom 2>&1)"; fi
check "resume" lv_virsh a resume $dom
if state_is a $dom "running (unpaused)"; then ok "running again"; else not_ok "running again" "$(lv_virsh a domstate --reason $dom 2>&1)"; fi
check "reset" lv_virsh a reset $dom
if wait_for 120 count_at_least "$(com1_log a $dom)" DONE 2; then ok "the guest booted its planes again after reset"
else not_ok "the guest booted its planes again after reset" "$(tail -5 "$(com1_log a $dom)" 2>&1)"; fi
wait_for 30 eval '[ "$(planes_summary a $dom)" = "$summary" ]'
before=$(planes_summary a $dom 2>&1)

check "managedsave" lv_virsh a managedsave $dom
if state_is a $dom "shut off (saved)"; then ok "shut off (saved)"; else not_ok "shut off (saved)" "$(lv_virsh a domstate --reason $dom 2>&1)"; fi
check "start from the managed save" lv_virsh a start $dom
after=$(planes_summary a $dom 2>&1)
if state_is a $dom "running (restored)" && [ "$after" = "$before" ]; then
    ok "restored from the managed save with the same planes"
else
    not_ok "restored from the managed save" "$(lv_virsh a domstate --reason $dom 2>&1)" "before: $before" "after:  $after"
fi

check "save to a file" lv_virsh a save $dom "$tmp/$dom.save"
if state_is a $dom "shut off (saved)"; then ok "shut off after save"; else not_ok "shut off after save" "$(lv_virsh a domstate --reason $dom 2>&1)"; fi
check "restore from the file" lv_virsh a restore "$tmp/$dom.save"
after=$(planes_summary a $dom 2>&1)
if state_is a $dom "running (restored)" && [ "$after" = "$before" ]; then
    ok "restored from the file with the same planes"
else
    not_ok "restored from the file" "$(lv_virsh a domstate --reason $dom 2>&1)" "before: $before" "after:  $after"
fi
check "destroy" lv_virsh a destroy $dom
check "undefine" lv_virsh a undefine $dom

# the violation policy 'stop': plane 0 touches the sealed region
dom=planes-stop
check "define and start a domain with violation='stop'" \
    sh -c "'$LV_INSTALL/bin/virsh' -q -c '$(lv_uri a)' define '$(domain_xml $dom "test=boot" stop)' &&
           '$LV_INSTALL/bin/virsh' -q -c '$(lv_uri a)' start $dom"
if wait_for 120 state_is a $dom "paused (plane violation)"; then
    ok "a plane violation pauses the domain with the reason 'plane violation'"
else
    not_ok "a plane violation pauses the domain" "$(lv_virsh a domstate --reason $dom 2>&1)"
fi
record a domstate --reason $dom
# the reason is kept across a restart of the daemon (the status XML)
if out=$(lv_stop_daemon a 2>&1 && lv_start a 2>&1); then ok "restart libvirtd, the domain paused"
else not_ok "restart libvirtd, the domain paused" "$out"; fi
if state_is a $dom "paused (plane violation)"; then
    ok "the paused reason 'plane violation' is kept across a libvirtd restart"
else
    not_ok "the paused reason is kept across a libvirtd restart" "$(lv_virsh a domstate --reason $dom 2>&1)"
fi
check "destroy" lv_virsh a destroy $dom
check "undefine" lv_virsh a undefine $dom

# A violation while libvirtd is down: its STOP and PLANE_MEMORY_VIOLATION
# reach no one, and QEMU's run state 'internal-error' alone reads as a
# pause for an unknown reason.  The daemon must find the violation when
# it reconnects.  The guest waits for an NMI before it touches plane 1's
# region; the test sends it through the monitor socket while the daemon
# is away.
dom=planes-stop-away
check "define and start a domain with violation='stop' that waits for an NMI" \
    sh -c "'$LV_INSTALL/bin/virsh' -q -c '$(lv_uri a)' define '$(domain_xml $dom "test=boot nmi=1" stop)' &&
           '$LV_INSTALL/bin/virsh' -q -c '$(lv_uri a)' start $dom"
if wait_for 120 count_at_least "$(com1_log a $dom)" "waiting for an NMI" 1 &&
   state_is a $dom "running (booted)"; then
    ok "the guest runs, waiting for the NMI"
else
    not_ok "the guest runs, waiting for the NMI" "$(lv_virsh a domstate --reason $dom 2>&1)"
fi
if out=$(lv_stop_daemon a 2>&1) && ! lv_virsh a version >/dev/null 2>&1; then
    ok "stop libvirtd, the domain running"
else
    not_ok "stop libvirtd, the domain running" "$out"
fi
monitor=$(find "$(lv_dir a)/lib/qemu" -name monitor.sock -path "*$dom*" 2>/dev/null | head -1)
check "with libvirtd away, an NMI on the monitor socket makes plane 0 touch the seal and QEMU stop" \
    python3 - "$monitor" "$repo/build/src/python" <<'PY'
import sys, time
sys.path.insert(0, sys.argv[2])
from qemu.qmp.legacy import QEMUMonitorProtocol
qmp = QEMUMonitorProtocol(sys.argv[1])
qmp.connect()
qmp.cmd('inject-nmi')
for _ in range(300):
    status = qmp.cmd('query-status')['status']
    if status == 'internal-error':
        break
    time.sleep(0.1)
qmp.close()
if status != 'internal-error':
    sys.exit('QEMU still %s' % status)
PY
if out=$(lv_start a 2>&1); then ok "start libvirtd again"; else not_ok "start libvirtd again" "$out"; fi
if wait_for 30 state_is a $dom "paused (plane violation)"; then
    ok "libvirtd finds the plane violation it was away for: paused (plane violation)"
else
    not_ok "libvirtd finds the plane violation it was away for" "$(lv_virsh a domstate --reason $dom 2>&1)"
fi
record a domstate --reason $dom
check "destroy" lv_virsh a destroy $dom
check "undefine" lv_virsh a undefine $dom

# the host launches plane 1 (<planes><plane id='1'><kernel/>...): QEMU
# loads it before plane 0 starts, plane 0 finds it parked and sealed
dom=planes-launch
plane1="$repo/build/qemu/tests/planes-guests/plane1.bin"
p1_cmdline="console=ttyS0 vtl=1"
launch_xml=$(domain_xml $dom "test=launched halt=1" fault)
python3 - "$launch_xml" "$plane1" "$p1_cmdline" <<'PY'
import sys
path, kernel, cmdline = sys.argv[1:]
xml = open(path).read()
empty = "<planes count='2' violation='fault'/>"
assert empty in xml
open(path, "w").write(xml.replace(empty, (
    "<planes count='2' violation='fault'>\n"
    "      <plane id='1'>\n"
    "        <kernel>%s</kernel>\n"
    "        <cmdline>%s</cmdline>\n"
    "      </plane>\n"
    "    </planes>") % (kernel, cmdline)))
PY
planes_element() { sed -n '/<planes /,/<\/planes>/p' "$@"; }
check "define a domain whose plane 1 the host launches" lv_virsh a define "$launch_xml"
record a dumpxml $dom
lv_virsh a dumpxml $dom >"$tmp/$dom.dump.xml" 2>&1
if [ -n "$(planes_element "$launch_xml")" ] &&
   [ "$(planes_element "$tmp/$dom.dump.xml")" = "$(planes_element "$launch_xml")" ] &&
   lv_virsh a define "$tmp/$dom.dump.xml" >/dev/null 2>&1 &&
   [ "$(lv_virsh a dumpxml $dom 2>&1)" = "$(cat "$tmp/$dom.dump.xml")" ]; then
    ok "dumpxml: <plane id='1'> with its kernel and cmdline, and dumpxml round-trips through define"
else
    not_ok "dumpxml of the host launch" "$(planes_element "$tmp/$dom.dump.xml")"
fi
argv=$(lv_virsh a domxml-to-native qemu-argv --domain $dom 2>&1)
if grep -qF "{\"qom-type\":\"plane-launch\",\"id\":\"planelaunch1\",\"plane\":1,\"kernel\":\"$plane1\",\"append\":\"$p1_cmdline\"}" <<<"$argv"; then
    ok "domxml-to-native: -object plane-launch for plane 1"
else
    not_ok "domxml-to-native: -object plane-launch" "$argv"
fi
check "start the domain with the launched plane" lv_virsh a start $dom
if wait_for 120 count_at_least "$(com1_log a $dom)" DONE 1 &&
   grep -q "P0: echo from launched plane 1: ok" "$(com1_log a $dom)" &&
   grep -q "RESULT launched-config rax=-1" "$(com1_log a $dom)"; then
    ok "plane 0 calls the launched plane 1 and may not CONFIG it"
else
    not_ok "plane 0 calls the launched plane 1" "$(tail -8 "$(com1_log a $dom)" 2>&1)"
fi
record a qemu-monitor-command $dom --pretty '{"execute":"query-planes"}'
launched=$(query_planes a $dom | python3 -c '
import json, sys
p = json.load(sys.stdin)["return"][1]
print(p["id"], p["state"], "0x%x" % p["region-base"], "0x%x" % p["region-size"],
      p.get("launch-measurement", "none"))' 2>&1)
read -r p_id p_state p_base p_size p_measure <<<"$launched"
expected=$(python3 "$repo/scripts/planes/plane-measure.py" --kernel "$plane1" \
           --base "$p_base" --size "$p_size" --append "$p1_cmdline" 2>&1)
if [ "$p_id $p_state" = "1 parked" ] && [[ $p_measure =~ ^[0-9a-f]{64}$ ]] &&
   [ "$p_measure" = "$expected" ]; then
    ok "query-planes: plane 1 parked, its launch-measurement what plane-measure.py computes"
else
    not_ok "query-planes: plane 1 launched" "query-planes: $launched" "plane-measure.py: $expected"
fi
check "destroy" lv_virsh a destroy $dom
check "undefine" lv_virsh a undefine $dom
lv_stop a

# live migration between two hosts: network namespaces joined by a veth pair
ip netns add "$ns_a" && ip netns add "$ns_b" &&
    ip link add "plv$$a" type veth peer name "plv$$b" &&
    ip link set "plv$$a" netns "$ns_a" && ip link set "plv$$b" netns "$ns_b" &&
    ip -n "$ns_a" addr add "$net.1/24" dev "plv$$a" &&
    ip -n "$ns_b" addr add "$net.2/24" dev "plv$$b" &&
    ip -n "$ns_a" link set lo up && ip -n "$ns_b" link set lo up &&
    ip -n "$ns_a" link set "plv$$a" up && ip -n "$ns_b" link set "plv$$b" up ||
    bail "cannot set up the network namespaces"
lv_start src "$ns_a" "$net.1" || bail "source libvirtd does not start"
lv_start dst "$ns_b" "$net.2" || bail "destination libvirtd does not start"
ok "two libvirtd instances in two network namespaces ($net.1, $net.2)"
dom=planes-mig
check "define and start the migrating domain (test=migrate: VTL calls from both vCPUs)" \
    sh -c "'$LV_INSTALL/bin/virsh' -q -c '$(lv_uri src)' define '$(domain_xml $dom "test=migrate stop=serial halt=1" fault)' &&
           '$LV_INSTALL/bin/virsh' -q -c '$(lv_uri src)' start $dom"
src_log=$(com1_log src $dom)
dst_log=$(com1_log dst $dom)
if wait_for 120 count_at_least "$src_log" "P0: migrate rounds" 1; then ok "plane 0 makes VTL calls, plane 1 parked between them"
else not_ok "plane 0 makes VTL calls" "$(tail -5 "$src_log" 2>&1)"; fi
seal_src=$(planes_summary src $dom 2>&1)
check "virsh migrate --live --p2p over TCP" timeout 600 "$LV_INSTALL/bin/virsh" -q -c "$(lv_uri src)" \
    migrate --live --p2p --persistent --undefinesource $dom "qemu+tcp://$net.2/system"
if state_is dst $dom "running (migrated)" && ! lv_virsh src domstate $dom >/dev/null 2>&1; then
    ok "the domain runs on the destination only"
else
    not_ok "the domain runs on the destination only" "$(lv_virsh dst domstate --reason $dom 2>&1)"
fi
if wait_for 120 count_at_least "$dst_log" "P0: migrate rounds" 1; then ok "VTL calls go on on the destination"
else not_ok "VTL calls go on on the destination" "$(tail -5 "$dst_log" 2>&1)"; fi
seal_dst=$(planes_summary dst $dom 2>&1)
# plane 1 runs during each call and parks between them: compare the rest
# (its region and entry, its devices, plane 0's view with the seal in it)
unstate() { sed -E 's/:(running|parked):/:/g' <<<"$1"; }
if [ "$(unstate "$seal_dst")" = "$(unstate "$seal_src")" ] &&
   grep -Eq '^0:[a-z]+:0\+0@0:ranges=[1-9]' <<<"$seal_dst"; then
    ok "the destination's planes: the same region, entry, devices and seal"
else
    not_ok "the destination's planes" "source: $seal_src" "destination: $seal_dst"
fi
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"S")
s.close()' "$(lv_dir dst)/lib/qemu/$dom-com1.sock"
if wait_for 120 count_at_least "$dst_log" "RESULT migrate" 1; then
    result=$(grep "RESULT migrate" "$dst_log" | tail -1 | tr -d '\r')
    calls=$(sed -n 's/.* calls=\([0-9]*\) .*/\1/p' <<<"$result")
    served=$(sed -n 's/.* served=\([0-9]*\) .*/\1/p' <<<"$result")
    if [ -n "$calls" ] && [ "$calls" -gt 0 ] && [ "$calls" = "$served" ] &&
       grep -q " wrong=0 sealed-trap=14 region=intact$" <<<"$result"; then
        ok "no VTL call lost or answered twice ($calls calls, $served served), the seal holds"
    else
        not_ok "VTL calls across the migration" "$result"
    fi
else
    not_ok "the guest ends its calls on the destination" "$(tail -5 "$dst_log" 2>&1)"
fi
record dst domstate --reason $dom

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
