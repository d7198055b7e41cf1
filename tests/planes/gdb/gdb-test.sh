#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debugging VM planes with Debian's gdb in batch mode (TAP): each plane a
# gdb inferior, breakpoints and watchpoints that stay in their plane, a step
# over a VTL call, stops at plane switches, the plane's own memory view.
#
#   gdb-test.sh            the fork's build
#   PLANES_GDB_QEMU=...    another qemu-system-x86_64 (to show cases failing)
set -uo pipefail

repo=$(cd "$(dirname "$0")/../../.." && pwd)
qemu=${PLANES_GDB_QEMU:-$repo/build/qemu/qemu-system-x86_64}
guests=$repo/build/qemu/tests/planes-guests
p0=$guests/plane0.elf
p1=$guests/plane1.elf
p1base=0x4000000               # plane0.c's default region for plane 1
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift
    for l in "$@"; do echo "# $l"; done
}

if ! command -v gdb >/dev/null; then
    echo "1..0 # SKIP gdb is not installed (apt-get install gdb)"
    exit 0
fi
for f in "$qemu" "$p0" "$p1"; do
    [ -e "$f" ] || { echo "Bail out! $f missing: run make"; exit 1; }
done

tmp=$(mktemp -d /tmp/planes-gdb-XXXXXX)
qpid=
cleanup() {
    [ -n "$qpid" ] && kill "$qpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# The address of the first VMCALL in plane 0's gdb_echo(), and past it
vmcall=$(objdump -d "$p0" | awk '/<gdb_echo>:/,/^$/' |
         awk '/vmcall/ { sub(":", "", $1); print "0x" $1; exit }')
after_vmcall=$(printf '0x%x' $((vmcall + 3)))
# A plane-1 symbol's address in plane 1's region
p1sym() {
    printf '0x%x' $((p1base + 0x$(nm "$p1" | awk -v s="$1" '$3 == s { print $1 }')))
}
resumed=$(p1sym resumed)
park_vmcall=$(printf '0x%x' $(($(p1sym park_loop) + 5)))   # mov $16, %eax
echo_count=$(p1sym echo_count)

# Both inferiors attached with their symbols; the case's commands follow.
prologue() {
    cat <<EOF
set pagination off
set confirm off
set schedule-multiple on
target extended-remote $tmp/gdb.sock
add-inferior
inferior 2
attach 2
file $p1 -o $p1base
inferior 1
file $p0
EOF
}

# run_case NAME GDB-COMMANDS [APPEND]: a fresh VM stopped at reset (plane
# 0's command line APPEND, test=gdb by default), gdb runs the prologue and
# the commands; leaves gdb's output in $out, serial in $serial.
run_case() {
    local name=$1 cmds=$2 append=${3:-test=gdb}

    rm -f "$tmp/gdb.sock" "$tmp/serial.txt"
    serial=$tmp/serial.txt
    "$qemu" -accel tcg -machine q35,planes=2 -smp 2 -m 512M -nodefaults \
        -display none -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
        -serial "file:$serial" -kernel "$p0" -append "$append" \
        -chardev "socket,id=gdb,path=$tmp/gdb.sock,server=on,wait=off" \
        -gdb chardev:gdb -S 2>"$tmp/qemu.err" &
    qpid=$!
    for _ in $(seq 50); do
        [ -S "$tmp/gdb.sock" ] && break
        sleep 0.1
    done
    { prologue; echo "$cmds"; echo "kill"; } >"$tmp/$name.gdb"
    out=$(timeout 120 gdb -batch -nx -x "$tmp/$name.gdb" 2>&1)
    kill "$qpid" 2>/dev/null
    wait "$qpid" 2>/dev/null
    qpid=
}

# judge NAME WANT LINE...: with WANT "present" every LINE (an extended
# regex) must be in gdb's output, with "absent" none of them
judge() {
    local name=$1 want=$2 bad=()

    shift 2
    for re in "$@"; do
        if grep -Eq -- "$re" <<<"$out"; then
            [ "$want" = absent ] && bad+=("unexpected: $re")
        else
            [ "$want" = present ] && bad+=("missing: $re")
        fi
    done
    if [ ${#bad[@]} = 0 ]; then
        ok "$name"
    else
        not_ok "$name" "${bad[@]}" "gdb said:" "${out//$'\n'/$'\n'# }"
    fi
}
expect() { judge "$1" present "${@:2}"; }
refuse() { judge "$1" absent "${@:2}"; }

# gdb prints where it stopped: which inferior (plane + 1), which address
show_stop='printf "CHECK inferior=%d pc=0x%lx\n", $_inferior, $pc'
shared=$(printf '0x%x' $((p1base + 16)))

echo "1..14"

run_case inferiors "info threads
monitor info registers -a"
expect "each plane an inferior, threads and registers labelled" \
    '^CPU#2: plane 1 vCPU 0 \[created\]' \
    '^\* 1\.1 +Thread 1\.1 \(plane 0 vCPU 0 \[running\]\)' \
    '^  1\.2 +Thread 1\.2 \(plane 0 vCPU 1 ' \
    '^  2\.1 +Thread 2\.3 \(plane 1 vCPU 0 \[created\]\)' \
    '^  2\.2 +Thread 2\.4 \(plane 1 vCPU 1 '

run_case symbol "inferior 2
break p1_handle
continue
printf \"CHECK inferior=%d call=0x%x\\n\", \$_inferior, *(unsigned int *)(\$rdi + 4)
continue
printf \"CHECK inferior=%d call=0x%x\\n\", \$_inferior, *(unsigned int *)(\$rdi + 4)
info threads"
expect "a plane-1 breakpoint by symbol stops plane 1 with the call id" \
    'Thread 2\.1 hit Breakpoint 1, 0x[0-9a-f]+ in p1_handle' \
    '^CHECK inferior=2 call=0x7f00$' \
    '\(plane 0 vCPU 0 \[in VTL call\]\) .* in gdb_echo'

run_case shared-plane1 "inferior 2
break *$shared
continue
$show_stop
info threads"
expect "a breakpoint at code both planes run, set in plane 1, stops plane 1 only" \
    "^CHECK inferior=2 pc=$shared\$" \
    'plane 0 vCPU 0 \[in VTL call\]'

run_case shared-plane0 "inferior 1
break *$shared
continue
$show_stop
continue"
expect "the same address set in plane 0 stops plane 0 only" \
    "^CHECK inferior=1 pc=$shared\$" \
    'exited|Remote connection closed|Target disconnected'
if ! grep -q "RESULT gdb-echo-count 3" "$serial"; then
    not_ok "plane 1 ran the address three times without stopping" \
        "serial: $(tr '\n' '|' <"$serial")"
else
    refuse "plane 1 ran the address three times without stopping" \
        'Thread 2\.[0-9] hit Breakpoint'
fi

run_case step "inferior 1
break *$vmcall
continue
stepi
printf \"CHECK inferior=%d pc=0x%lx rax=%ld status=0x%x\\n\", \$_inferior, \$pc, \$rax, *(int *)(\$rbx + 8)
info threads"
expect "stepping plane 0 over VTL_CALL completes the call, stops after it" \
    "^CHECK inferior=1 pc=$after_vmcall rax=0 status=0x1001\$" \
    'plane 1 vCPU 0 \[parked\]'

run_case step-return "inferior 2
break *$park_vmcall
continue
$show_stop
stepi
$show_stop
printf \"CHECK call=0x%x\\n\", *(unsigned int *)(\$rax + 4)
info threads"
expect "stepping plane 1 over VTL_RETURN stops where the next call resumes it" \
    "^CHECK inferior=2 pc=$park_vmcall\$" \
    "^CHECK inferior=2 pc=$resumed\$" '^CHECK call=0x7f00$' \
    'plane 0 vCPU 0 \[in VTL call\]\) .* in gdb_echo'

run_case step-over-both "inferior 1
break *$vmcall
break p1_handle
continue
$show_stop
continue
printf \"CHECK inferior=%d call=0x%x\\n\", \$_inferior, *(unsigned int *)(\$rdi + 4)
continue
$show_stop"
expect "gdb steps over a plane-0 breakpoint at VMCALL, plane 1's still stops" \
    "^CHECK inferior=1 pc=$vmcall\$" \
    'Thread 2\.1 hit Breakpoint 2, 0x[0-9a-f]+ in p1_handle' \
    '^CHECK inferior=2 call=0x7f00$' \
    'Thread 1\.1 hit Breakpoint 1, 0x[0-9a-f]+ in gdb_echo'

# gdb continues from a plane-1 breakpoint by stepping that thread off it
# first; plane 1's APIC timer, every 100 us, kicks the thread meanwhile
# (as plane 1's Linux does).  Each continue must reach the next call: a
# step that ends without executing makes gdb report the same call again.
cycles=300
run_case step-over-repeat "inferior 2
break p1_handle
set \$i = 0
while \$i < $cycles
  continue
  printf \"CHECK stop %d value=%u\\n\", \$i, *(unsigned int *)(\$rdi + 20)
  set \$i = \$i + 1
end" "test=gdb calls=$((cycles + 1)) p1cmd=timer=1+tick=100000"
stops=$(grep -Ec '^CHECK stop [0-9]+ value=[0-9]+$' <<<"$out")
# each stop's value one past the last one's, from the first call's 0x1001
wrong=$(awk '/^CHECK stop/ {
                 v = substr($4, 7) + 0; want = last ? last + 1 : 4097
                 if (v != want) { n++; if (n <= 5) printf "%s, want %u\n", $0, want }
                 last = v
             }
             END { if (n) printf "%d stops not the next call\n", n }' <<<"$out")
if [ "$stops" = "$cycles" ] && [ -z "$wrong" ]; then
    ok "$cycles continues from a plane-1 breakpoint under timer kicks, each to the next call"
else
    not_ok "$cycles continues from a plane-1 breakpoint under timer kicks, each to the next call" \
        "$stops stops of $cycles" "${wrong//$'\n'/$'\n'# }" \
        "gdb's last lines: $(tail -4 <<<"$out" | tr '\n' '|')"
fi

run_case switch-stops "maint packet Qqemu.PlaneSwitchStops:1
continue
printf \"CHECK activate inferior=%d pc=0x%lx\\n\", \$_inferior, \$pc
continue
printf \"CHECK call inferior=%d pc=0x%lx\\n\", \$_inferior, \$pc
monitor planes_switch_stops return
continue
printf \"CHECK return inferior=%d pc=0x%lx\\n\", \$_inferior, \$pc
maint packet qqemu.PlaneSwitchStops"
expect "switch stops: ACTIVATE, VTL call entry, return to plane 0" \
    "^CHECK activate inferior=2 pc=$p1base\$" \
    "^CHECK call inferior=2 pc=$resumed\$" \
    "^CHECK return inferior=1 pc=$after_vmcall\$" \
    'plane switch stops: return' 'received: "2"'

run_case watch "inferior 2
watch *(unsigned long *)&echo_count
continue
printf \"CHECK inferior=%d\\n\", \$_inferior
monitor planes_view 1 $echo_count 8
monitor planes_view 0 $echo_count 8"
expect "a watchpoint on a plane-1 variable stops plane 1" \
    'Hardware watchpoint [0-9]+: \*\(unsigned long \*\)&echo_count' \
    'New value = 1$' '^CHECK inferior=2$'
expect "planes_view: plane 1 reads its variable, plane 0 is denied" \
    'plane 1 rwx 01 00 00 00 00 00 00 00' \
    'plane 0 --- denied: plane 0 cannot read it'

run_case dump "monitor dump-guest-memory $tmp/dump.elf"
out=$(timeout 60 gdb -batch -nx -ex "info threads" -c "$tmp/dump.elf" 2>&1)
expect "dump-guest-memory: plane 1's states are threads 1001 and 1002" \
    '^\* 1 +LWP 1 ' '^  2 +LWP 2 ' '^  3 +LWP 1001 ' '^  4 +LWP 1002 '

run_case bad-input "maint packet Qqemu.PlaneSwitchStops:7
maint packet Qqemu.PlaneSwitchStops:zz
monitor planes_switch_stops sometimes
monitor planes_view 9 0 4
monitor planes_view 1 0 0
monitor planes_view 1 0 5000
info threads"
expect "bad debugging requests get one-line refusals, the VM is fine" \
    'received: "E22"' \
    "planes_switch_stops: 'sometimes' is not one of none, enter, return, both" \
    'planes_view: plane 9 does not exist \(the machine has 2\)' \
    'planes_view: length 0 is not in 1\.\.4096' \
    'planes_view: length 5000 is not in 1\.\.4096' \
    'plane 0 vCPU 0 \[running\]'

echo "# $n tests, $failed failed"
[ "$failed" = 0 ]
