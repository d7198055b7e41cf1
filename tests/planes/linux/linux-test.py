#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Real Linux in both planes (TAP).

Plane 0: Debian's kernel and vm-planes.ko (CONFIG, ELF load, ACTIVATE, VTL
calls); plane 1: Linux 6.12 with our secure monitor.  Built (cached) by
scripts/planes/linux-build.sh.  Two VMs under TCG:

A  plane 1 in memmap-reserved RAM, default plane-violation=stop, 2 vCPUs:
   boot and park, INIT, ECHO, calls from both vCPUs at once, stop/cont
   during a loop of calls, SEAL_KERNEL; the sealed pair saved to a file and
   restored in a second QEMU (calls from both vCPUs answered there, a write
   into the sealed text stops it); a write into the sealed text stops
   the VM; system_reset boots both kernels again; a plane-1 panic stops
   plane 1 alone and later calls return -EOPNOTSUPP.
B  plane 1 in fresh RAM at 4 GiB, plane-violation=fault: boots, seals, and
   a write into the sealed text is an oops on plane 0's console.
C  the VBS series' launch line (-cpu max -smp 3,maxcpus=4 -m 4G, OVMF from pflash):
   the pair boots through UEFI, calls from two vCPUs, the seal; a fourth
   CPU plugged with device_add, onlined through ACPI, makes a VTL call.
D  plane 1 launched by the host (-object plane-launch, fresh RAM QEMU
   places): plane 0 boots with vm-planes.ko calls_only=1 and no memmap=,
   finds plane 1 parked, CONFIG and ACTIVATE refused; INIT, ECHO, the
   seal; the launch measurement equals plane-measure.py's; system_reset
   launches plane 1 again with the same measurement; saved to a file and
   restored in a second QEMU, which does not launch it again.
E  gdb (Debian's, batch mode) attached through -gdb, plane 1 as inferior 2
   with the symbols of its vmlinux: a breakpoint on the secure kernel's
   VTL call handler (vmp_serve) stops plane 1 when plane 0 echoes, with
   the ECHO call id in the calling area the handler got; continued to
   the handler's return, then detached: the call completes on COM1.
After each of A and B, the same plane 0 with planes=1: the same clocksource and the
same TSC verdict as with planes=2, and no stray interrupt in either.
Plane 1's console (COM2) is an isa-serial of plane 1 in A and B: plane 0's
ACPI describes COM1 only.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import linuxvm  # noqa: E402

BOOT_S = 150        # a Debian kernel booting under TCG, and plane 1
FACT_KEYS = {'clocksource', 'tsc-unstable', 'no-irq-handler', 'acpi-uarts'}
n = 0
failed = 0


def ok(name, cond, *diag):
    global n, failed
    n += 1
    if cond:
        print(f'ok {n} - {name}', flush=True)
    else:
        failed += 1
        print(f'not ok {n} - {name}', flush=True)
        for d in diag:
            for line in str(d).splitlines()[-15:]:
                print(f'#   {line}')
    return cond


def note(msg):
    print(f'# {msg}', flush=True)


def expect(vm, name, cmd, regex, timeout=60):
    r = vm.command(cmd, timeout)
    ok(f'{name}: {r}', r is not None and re.fullmatch(regex, r),
       f'command {cmd!r}, wanted {regex!r}', vm.out0()[-1500:])
    return r


def boot(vm, name, count=1):
    """Waits for the count-th activation and the count-th parked plane 1."""
    t0 = time.monotonic()
    m = vm.wait(r'^vm-planes: ready$', BOOT_S, start=0)
    text = vm.out0()
    acts = re.findall(r'^vm-planes: activated planes=2 entry=(0x[0-9a-f]+)$',
                      text, re.M)
    for _ in range(count - 1):
        m = m and vm.wait(r'^vm-planes: ready$', BOOT_S, start=m.end())
        text = vm.out0()
        acts = re.findall(r'^vm-planes: activated planes=2 entry=(0x[0-9a-f]+)$',
                          text, re.M)
    ok(f'{name}: Debian plane 0 configured, loaded and activated plane 1 '
       f'({time.monotonic() - t0:.1f} s)', m and len(acts) >= count,
       text[-2000:], vm.err())
    parked = vm.out1().count('vm-planes monitor: parked, serving VTL calls')
    hidden = re.findall(r'region (0x[0-9a-f]+)-(0x[0-9a-f]+) hidden from '
                        r'plane 0: (-?\d+)', vm.out1())
    ok(f'{name}: Linux 6.12 booted in plane 1, hid its region '
       f'{hidden[-1][:2] if hidden else None} and parked (COM2)',
       parked >= count and hidden and hidden[-1][2] == '0',
       vm.out1()[-2000:])
    crash = [x for x in vm.out1().splitlines() if 'Crash kernel detected' in x]
    ok(f'{name}: plane 1 booted as the BSP of its index (APICBASE.BSP; no '
       f'"Crash kernel detected" on COM2)', not crash, *crash)
    st = vm.wait_plane_state('parked', 10)
    ok(f"{name}: query-planes: plane 1 '{st}'", st == 'parked')
    return acts[-1] if acts else None


def read_facts(vm):
    """Plane 0's view of the machine (/init's 'facts'): its clocksource,
    TSC, stray interrupts and the UARTs ACPI described, as a dict (empty
    if the line is not there); the kernel's lines about an unstable TSC
    under 'why'."""
    r = vm.command('facts', 60) or ''
    f = dict(kv.split('=', 1) for kv in r.split()[1:] if '=' in kv)
    if not FACT_KEYS <= f.keys():
        note(f'facts line unreadable: {r!r}')
        f = {}
    end = vm.wait(r'^vm-planes: facts end$', 20)
    text = vm.out0()[vm.mark:end.start() if end else None]
    f['line'] = r
    f['why'] = ' | '.join(re.findall(r'^vm-planes: tsc: (.*)$', text, re.M))
    return f


def facts(vm, name, planes=2):
    """read_facts(), checked: no stray interrupt, COM1 alone in ACPI.  Its
    TSC is compared with a planes=1 run of the same guest (vm_planes1)."""
    f = read_facts(vm)
    r = f['line']
    ok(f'{name}: plane 0 got no interrupt it had no handler for '
       f'({f.get("no-irq-handler")} "No irq handler" lines)',
       f.get('no-irq-handler') == '0', r)
    ok(f'{name}: ACPI describes COM1 only to plane 0 ({f.get("acpi-uarts")} '
       f'PNP0501), {"COM2 being plane 1" if planes > 1 else "no COM2"}',
       f.get('acpi-uarts') == '1', r)
    note(f"{name}: clocksource {f.get('clocksource')}, "
         f"{f.get('tsc-unstable')} 'TSC unstable' lines "
         f"({f['why'] or 'none'})")
    return f


def same_clocks(name, f1, f2):
    """Plane 0's TSC and clocksource with planes=1 (f1) and planes=2 (f2)."""
    ok(f"{name}: plane 0's TSC with planes=2 as with planes=1 (clocksource "
       f"{f2.get('clocksource')}, {f2.get('tsc-unstable')} 'TSC unstable' "
       f"lines; planes=1: {f1.get('clocksource')}, "
       f"{f1.get('tsc-unstable')})",
       FACT_KEYS <= f1.keys() and FACT_KEYS <= f2.keys() and
       f1['clocksource'] == f2['clocksource'] and
       f1['tsc-unstable'] == f2['tsc-unstable'],
       f"planes=1: {f1.get('why')}", f"planes=2: {f2.get('why')}")


def poked(vm):
    """(gpa, old byte, byte now in memory) of the last poke, or None."""
    m = None
    for m in re.finditer(r'writing 0x([0-9a-f]+) into sealed \w+ at '
                         r'(0x[0-9a-f]+) \(holds 0x([0-9a-f]+)\)', vm.out0()):
        pass
    if not m:
        return None
    gpa = int(m.group(2), 16)
    xp = vm.q('human-monitor-command', **{'command-line': f'xp /1bx {gpa:#x}'})
    now = re.search(r': (0x[0-9a-f]+)', xp)
    return gpa, int(m.group(3), 16), int(now.group(1), 16) if now else None


def migrated(vm, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = vm.q('query-migrate').get('status')
        if st in ('completed', 'failed'):
            return st
        time.sleep(0.1)
    return None


def save_restore(tmp, art, vm):
    """The sealed, running pair saved to a file and restored in a second
    QEMU: calls answered there, the seal holds there."""
    state = os.path.join(tmp, 'memmap.state')
    before = vm.q('query-planes')
    t0 = time.monotonic()
    vm.q('migrate', uri=f'file:{state}')
    st = migrated(vm)
    info = vm.q('query-migrate')
    ok(f'memmap: saved to a file ({st}, {os.path.getsize(state)} bytes, '
       f'downtime {info.get("downtime")} ms, '
       f'{time.monotonic() - t0:.1f} s)', st == 'completed', info)
    vm2 = linuxvm.LinuxPlanesVM(tmp, art, 'memmap-restored', case='memmap',
                                extra=('-incoming', f'file:{state}'))
    vm2.start()
    try:
        st = migrated(vm2)
        after = vm2.q('query-planes')
        same = [(p['state'], p['region-base'], p['region-size'],
                 p['memory-attr-ranges']) for p in before] == \
               [(p['state'], p['region-base'], p['region-size'],
                 p['memory-attr-ranges']) for p in after]
        ok(f'memmap: restored in a second QEMU ({st}, {vm2.status()}), '
           f'the same planes', st == 'completed' and same, before, after)
        expect(vm2, 'memmap restored', 'echo after-restore',
               r'echo rax=0 status=0 resp_size=13 resp=erotser-retfa')
        expect(vm2, 'memmap restored: 2 vCPUs calling at once',
               'parallel 50',
               r'parallel cpu0 ok=50 bad=0 cpu1 ok=50 bad=0 last_rax=0,0',
               timeout=120)
        vm2.events = []
        vm2.send('poke-text')
        ev = vm2.wait_event('PLANE_MEMORY_VIOLATION', 30)
        st = vm2.wait_status('internal-error', 10)
        d = ev['data'] if ev else {}
        ok(f'memmap restored: the seal holds, a write into the sealed '
           f'text stops the VM ({st}, {d})',
           st == 'internal-error' and d.get('plane') == 0 and
           d.get('access') == 'write', vm2.err())
    finally:
        vm2.kill()
        os.unlink(state)


def vm_a(tmp, art):
    vm = linuxvm.LinuxPlanesVM(tmp, art, 'memmap', case='memmap')
    note('$ ' + vm.cmdline())
    vm.start()
    try:
        entry = boot(vm, 'memmap')
        ok(f'memmap: plane 1 entered at load_offset + 16 MiB ({entry})',
           entry == '0x41000000')
        planes = vm.q('query-planes')
        ok('memmap: query-planes: region 0x40000000 + 0x3c000000',
           planes[1]['region-base'] == 0x40000000 and
           planes[1]['region-size'] == 0x3c000000, planes[1])
        ok(f"memmap: query-planes: plane 1 owns its console "
           f"{planes[1].get('devices')}, plane 0's chipset refused "
           f"{planes[1].get('dropped-device-accesses')} of its accesses",
           planes[1].get('devices') == ['/machine/peripheral/plane1-console'],
           planes[1])
        vm.facts = facts(vm, 'memmap, booted')

        expect(vm, 'memmap', 'init', r'init rax=0 status=0')
        expect(vm, 'memmap', 'echo hello-planes',
               r'echo rax=0 status=0 resp_size=12 resp=senalp-olleh')
        expect(vm, 'memmap', 'call 0x7e0000ff', r'call 0x7e0000ff rax=0 status=-22')
        t0 = time.monotonic()
        expect(vm, 'memmap: 2 vCPUs calling at once', 'parallel 300',
               r'parallel cpu0 ok=300 bad=0 cpu1 ok=300 bad=0 last_rax=0,0',
               timeout=120)
        note(f'600 ECHO calls from 2 vCPUs in {time.monotonic() - t0:.1f} s')

        # stop and cont while plane 0 loops on ECHO calls
        calls = 400000
        t0 = time.monotonic()
        vm.send(f'loop {calls}')
        time.sleep(0.5)
        vm.q('stop')
        st = vm.status()
        echoes = vm.out1().count('ECHO #')
        time.sleep(1.0)
        during = vm.wait(r'^vm-planes: loop', 0) is None
        still = vm.out1().count('ECHO #') == echoes
        vm.q('cont')
        m = vm.wait(r'^vm-planes: (loop.*)$', 120)
        note(f'{calls} ECHO calls in {time.monotonic() - t0 - 1.0:.1f} s '
             f'(the 1 s paused not counted)')
        ok(f"memmap: stop during a loop of calls ('{st}', no call served "
           f"while paused: {still}), cont: {m and m.group(1)}",
           during and still and st == 'paused' and m and
           m.group(1) == f'loop calls={calls} ok={calls}',
           f'loop over before stop: {not during}', vm.out0()[-500:])

        r = expect(vm, 'memmap', 'seal',
                   r'seal rax=0 status=0 text=0x[0-9a-f]+\+0x[0-9a-f]+ '
                   r'rodata=0x[0-9a-f]+\+0x[0-9a-f]+')
        ok('memmap: plane 1 applied the seal (COM2)',
           'vm-planes monitor: SEAL_KERNEL text' in vm.out1() and
           'SET_MEM_ATTRS' not in vm.out1(), vm.out1()[-800:])
        text = r and re.search(r'text=(0x[0-9a-f]+)', r)
        expect(vm, 'memmap: calls go on after the seal', 'echo sealed',
               r'echo rax=0 status=0 resp_size=6 resp=delaes')

        f = read_facts(vm)
        note(f"memmap after the call loops and stop/cont: {f['line']} "
             f"({f['why'] or 'no TSC line'})")

        save_restore(tmp, art, vm)
        vm.q('cont')
        expect(vm, 'memmap: the source goes on after its save',
               'echo source', r'echo rax=0 status=0 resp_size=6 resp=ecruos')

        # a write into the sealed text, under plane-violation=stop
        vm.events = []
        vm.send('poke-text')
        ev = vm.wait_event('PLANE_MEMORY_VIOLATION', 30)
        st = vm.wait_status('internal-error', 10)
        d = ev['data'] if ev else {}
        tstart = int(text.group(1), 16) if text else 0
        ok(f'memmap: the write into sealed text stopped the VM '
           f'(query-status {st}, event {d})',
           st == 'internal-error' and d.get('plane') == 0 and
           d.get('access') == 'write' and
           tstart <= d.get('gpa', 0) < tstart + 0x400000, vm.err())
        pk = poked(vm)
        ok(f'memmap: the sealed byte is unchanged in memory (gpa, was, is: {pk})',
           pk and pk[1] == pk[2] and d.get('gpa') == pk[0])
        line = [x for x in vm.err().splitlines()
                if 'refused by its memory view; VM stopped' in x]
        ok(f'memmap: one error line on stderr: {line[0] if line else None}',
           len(line) == 1 and re.search(r'plane 0 vCPU \d: write of '
                                        r'guest-physical 0x', line[0]),
           vm.err())
        time.sleep(1)
        ok('memmap: stopped, not a livelock (still internal-error, '
           'no second violation line)', vm.status() == 'internal-error' and
           vm.err().count('refused by its memory view') == 1)

        # system_reset: both kernels boot again
        vm.q('system_reset')
        vm.q('cont')
        boot(vm, 'memmap after system_reset', count=2)
        expect(vm, 'memmap after system_reset', 'init', r'init rax=0 status=0')
        expect(vm, 'memmap after system_reset', 'echo again',
               r'echo rax=0 status=0 resp_size=5 resp=niaga')

        # a plane-1 panic: the plane triple-faults and is stopped
        r = expect(vm, 'memmap: the call that panics plane 1',
                   'call 0x7e000002', r'call 0x7e000002 rax=-95 status=.*')
        st = vm.wait_plane_state('stopped', 10)
        ok(f"memmap: plane 1 '{st}' after its panic; COM2 shows the panic",
           st == 'stopped' and 'Kernel panic - not syncing: vm-planes '
           'monitor: panic requested by plane 0' in vm.out1(),
           vm.out1()[-800:])
        ok(f'memmap: the VM runs on ({vm.status()})', vm.status() == 'running')
        expect(vm, 'memmap: calls after the panic', 'echo dead',
               r'echo rax=-95 status=.*')
        note('stderr of VM A: ' + ' | '.join(vm.err().splitlines()[-4:]))
    finally:
        vm.kill()
    return vm


def vm_b(tmp, art):
    vm = linuxvm.LinuxPlanesVM(tmp, art, 'highmem', case='highmem',
                               machine_opts='plane-violation=fault', smp=1,
                               mem='1G')
    note('$ ' + vm.cmdline())
    vm.start()
    try:
        entry = boot(vm, 'highmem')
        ok(f'highmem: plane 1 in fresh RAM at 4 GiB, entered at {entry}',
           entry == '0x101000000')
        expect(vm, 'highmem', 'init', r'init rax=0 status=0')
        expect(vm, 'highmem', 'seal', r'seal rax=0 status=0 .*')
        vm.facts = facts(vm, 'highmem (1 vCPU, planes=2)')
        vm.send('poke-text')
        m = vm.wait(r'BUG: unable to handle page fault|Oops', 20)
        viol = vm.q('query-planes')[0]['memory-violations']
        pk = poked(vm)
        ok(f'highmem: plane-violation=fault: the write faulted '
           f'({viol} violations) and never reached memory (gpa, was, is: {pk})',
           viol > 0 and pk and pk[1] == pk[2])
        ok('highmem: plane-violation=fault: the write into sealed text is an '
           'oops on COM1', m is not None, vm.out0()[-1500:],
           f'plane-0 memory violations: {viol}')
    finally:
        vm.kill()
    return vm


OVMF_CODE = '/usr/share/OVMF/OVMF_CODE_4M.fd'
OVMF_VARS = '/usr/share/OVMF/OVMF_VARS_4M.fd'


def vm_c(tmp, art):
    """The VBS series' launch line (-cpu max -smp 3,maxcpus=4 -m 4G, OVMF from
    pflash) with planes=2: the pair boots through UEFI as the series'
    images do, and the calls and the seal work."""
    vars_copy = os.path.join(tmp, 'OVMF_VARS.fd')
    shutil.copyfile(OVMF_VARS, vars_copy)
    vm = linuxvm.LinuxPlanesVM(
        tmp, art, 'uefi', case='memmap', smp='3,maxcpus=4', mem='4G',
        extra=('-cpu', 'max',
               '-drive', f'if=pflash,format=raw,unit=0,readonly=on,'
                         f'file={OVMF_CODE}',
               '-drive', f'if=pflash,format=raw,unit=1,file={vars_copy}'))
    note('$ ' + vm.cmdline())
    vm.start()
    try:
        boot(vm, 'uefi')
        f = read_facts(vm)
        ok(f"uefi: plane 0 booted through UEFI (firmware={f.get('firmware')})"
           f", ACPI describes COM1 only ({f.get('acpi-uarts')} PNP0501)",
           f.get('firmware') == 'uefi' and f.get('acpi-uarts') == '1',
           f.get('line'))
        expect(vm, 'uefi', 'init', r'init rax=0 status=0')
        expect(vm, 'uefi', 'echo through-ovmf',
               r'echo rax=0 status=0 resp_size=12 resp=fmvo-hguorht')
        expect(vm, 'uefi: 2 vCPUs calling at once', 'parallel 20',
               r'parallel cpu0 ok=20 bad=0 cpu1 ok=20 bad=0 last_rax=0,0',
               timeout=120)
        expect(vm, 'uefi', 'seal', r'seal rax=0 status=0 .*')
        # The fourth CPU, plugged: ACPI's hotplug path, then a VTL call
        # from it
        slot = [c for c in vm.q('query-hotpluggable-cpus')
                if 'qom-path' not in c][0]
        vm.q('device_add', driver=slot['type'], id='cpu3', **slot['props'])
        vcpus = [v['cpu-index'] for v in vm.q('query-planes')[1]['vcpus']]
        ok(f'uefi: a CPU plugged with device_add has a plane-1 state '
           f'(plane 1 vCPU indexes {vcpus})', vcpus == [0, 1, 2, 3])
        expect(vm, 'uefi: the plugged CPU, onlined through ACPI hotplug',
               'online 3', r'online cpu3=1 cpus 4')
        expect(vm, 'uefi: a VTL call from the plugged CPU', 'on 3 echo plugged',
               r'on cpu3: echo rax=0 status=0 resp_size=7 resp=deggulp')
        st = vm.plane_state()
        ok(f"uefi: query-planes: plane 1 '{st}'", st == 'parked')
    finally:
        vm.kill()
    return vm


def vm_planes1(tmp, art, planes2, smp, mem):
    """The same plane 0 as @planes2 (VM A or B: @smp vCPUs, @mem), booted
    with planes=1: what plane 0 makes of its clocks must not depend on
    plane 1."""
    vm = linuxvm.LinuxPlanesVM(tmp, art, f'planes1-smp{smp}', case='highmem',
                               smp=smp, mem=mem, planes=1)
    note('$ ' + vm.cmdline())
    vm.start()
    try:
        m = vm.wait(r'^vm-planes: ready$', BOOT_S, start=0)
        ok(f'planes=1, {smp} vCPU(s): Debian plane 0 booted (vm-planes.ko '
           f'finds no planes)', m is not None, vm.out0()[-1500:])
        f = facts(vm, f'planes=1, {smp} vCPU(s)', planes=1)
        same_clocks(f'{smp} vCPU(s)', f,
                    getattr(planes2, 'facts', None) or {})
    finally:
        vm.kill()
    return vm


def launch_measured(vm, name, art):
    """query-planes' launch-measurement against plane-measure.py's."""
    p1 = vm.q('query-planes')[1]
    out = linuxvm.measure_offline(art, p1)
    m = p1.get('launch-measurement')
    ok(f'{name}: launch-measurement {m} is plane-measure.py\'s', m == out,
       out)
    return m


def launched_boot(vm, name):
    m = vm.wait(r'^vm-planes: ready$', BOOT_S, start=0)
    calls = re.findall(r'^vm-planes: (calls-only .*)$', vm.out0(), re.M)
    ok(f'{name}: Debian plane 0 booted without memmap= and found plane 1 '
       f'launched ({calls[-1] if calls else None})',
       m and calls and calls[-1] == 'calls-only config=-1 activate=-1',
       vm.out0()[-2000:], vm.err())
    st = vm.wait_plane_state('parked', 10)
    parked = vm.out1().count('vm-planes monitor: parked, serving VTL calls')
    ok(f"{name}: Linux 6.12 in plane 1 parked before plane 0 ran "
       f"(COM2 x{parked}, query-planes '{st}')", st == 'parked' and parked)


def vm_d(tmp, art):
    vm = linuxvm.launched_vm(tmp, art, 'launched')
    note('$ ' + vm.cmdline())
    vm.start()
    state = os.path.join(tmp, 'launched.state')
    try:
        launched_boot(vm, 'launched')
        m1 = launch_measured(vm, 'launched', art)
        expect(vm, 'launched', 'init', r'init rax=0 status=0')
        expect(vm, 'launched', 'echo hello-launch',
               r'echo rax=0 status=0 resp_size=12 resp=hcnual-olleh')
        expect(vm, 'launched', 'seal', r'seal rax=0 status=0 .*')
        vm.q('system_reset')
        m = vm.wait(r'^vm-planes: ready$', BOOT_S, start=vm.mark)
        parked = vm.out1().count('vm-planes monitor: parked, serving VTL '
                                 'calls')
        m2 = vm.q('query-planes')[1].get('launch-measurement')
        ok(f'launched: system_reset launched plane 1 again (COM2 parked '
           f'x{parked}), the same measurement',
           m and parked >= 2 and m1 == m2, m1, m2)
        expect(vm, 'launched, after reset', 'echo again',
               r'echo rax=0 status=0 resp_size=5 resp=niaga')
        vm.q('migrate', uri=f'file:{state}')
        ok('launched: saved to a file', migrated(vm) == 'completed')
        vm.kill()
        vm2 = linuxvm.launched_vm(tmp, art, 'launched-restored',
                                  extra=('-incoming', f'file:{state}'))
        vm2.start()
        try:
            st = migrated(vm2)
            m3 = vm2.q('query-planes')[1].get('launch-measurement')
            ok(f'launched: restored in a second QEMU ({st}), the same '
               f'measurement, not launched again (COM2 empty)',
               st == 'completed' and m3 == m1 and
               'vm-planes monitor' not in vm2.out1(), m1, m3)
            expect(vm2, 'launched, restored', 'echo restored',
                   r'echo rax=0 status=0 resp_size=8 resp=derotser')
        finally:
            vm2.kill()
    finally:
        vm.kill()
        if os.path.exists(state):
            os.unlink(state)


# gdb's script for vm_gdb: plane 1 as inferior 2 with its kernel's symbols,
# a breakpoint on the entry of its VTL call handler
# vmp_serve(struct calling_area *ca) (%rdi = ca, (%rsp) = the return),
# the calling area's call_id (+4), status (+8), arg_size (+12) and
# resp_size (+16) read at the stop and at the handler's return.
GDB_SCRIPT = """set pagination off
set confirm off
set schedule-multiple on
target extended-remote {sock}
add-inferior
inferior 2
attach 2
file {symbols}
break *vmp_serve
inferior 1
shell touch {armed}
continue
printf "CHECK stop inferior=%d call=0x%x arg_size=%u\\n", $_inferior, *(unsigned int *)($rdi + 4), *(unsigned int *)($rdi + 12)
info threads
set $ca = $rdi
tbreak *(*(unsigned long *)$rsp)
continue
printf "CHECK return inferior=%d status=%d resp_size=%u\\n", $_inferior, *(int *)($ca + 8), *(unsigned int *)($ca + 16)
delete
detach
inferior 1
detach
"""


def gdb_stop(vm, name, gdb_out, armed, timeout=120):
    """Runs gdb (GDB_SCRIPT) in the background, makes plane 0 echo once it
    has armed its breakpoint; returns gdb's output and plane 0's line."""
    with open(gdb_out + '.gdb', 'w') as f:
        f.write(GDB_SCRIPT.format(sock=vm.gdb_sock, armed=armed,
                                  symbols=vm.symbols))
    with open(gdb_out, 'w') as out:
        gdb = subprocess.Popen(
            ['gdb', '-batch', '-nx', '-x', gdb_out + '.gdb'],
            stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(armed) and gdb.poll() is None and \
                time.monotonic() < deadline:
            time.sleep(0.1)
        line = None
        if os.path.exists(armed):
            line = vm.command('echo gdb', timeout)
        try:
            gdb.wait(timeout=30)
        except subprocess.TimeoutExpired:
            note(f'{name}: gdb still running: killed')
    finally:
        if gdb.poll() is None:
            gdb.kill()
            gdb.wait()
    return vm._read(gdb_out), line


def vm_gdb(tmp, art):
    symbols = os.path.join(art, 'vmlinux-plane1.debug')
    if not shutil.which('gdb'):
        note('gdb: SKIP, gdb is not installed (apt-get install gdb)')
        return
    d = os.path.join(tmp, 'gdb')
    os.makedirs(d, exist_ok=True)
    sock = os.path.join(d, 'gdb.sock')
    vm = linuxvm.LinuxPlanesVM(
        tmp, art, 'gdb', case='highmem', smp=1, mem='1G',
        extra=('-chardev', f'socket,id=gdb,path={sock},server=on,wait=off',
               '-gdb', 'chardev:gdb'))
    vm.gdb_sock = sock
    vm.symbols = symbols
    note('$ ' + vm.cmdline())
    vm.start()
    try:
        boot(vm, 'gdb')
        expect(vm, 'gdb', 'init', r'init rax=0 status=0')
        out, line = gdb_stop(vm, 'gdb', os.path.join(d, 'gdb.out'),
                             os.path.join(d, 'armed'))
        stop = re.search(r'^Thread (\d+)\.\d+ hit Breakpoint 1, '
                         r'0x[0-9a-f]+ in vmp_serve', out, re.M)
        ca = re.search(r'^CHECK stop inferior=(\d+) call=(0x[0-9a-f]+) '
                       r'arg_size=(\d+)$', out, re.M)
        ok(f'gdb: a breakpoint on vmp_serve from the plane-1 vmlinux stops '
           f'plane 1 (inferior {stop and stop.group(1)}) with call id '
           f'{ca and ca.group(2)}, {ca and ca.group(3)} bytes',
           stop and stop.group(1) == '2' and ca and
           ca.groups() == ('2', '0x7e000001', '3'), out)
        ok('gdb: plane 0 waits in its VTL call meanwhile',
           re.search(r'\(plane 0 vCPU 0 \[in VTL call\]\)', out), out)
        ret = re.search(r'^CHECK return inferior=(\d+) status=(-?\d+) '
                        r'resp_size=(\d+)$', out, re.M)
        ok(f'gdb: continued to the handler\'s return in plane 1: '
           f'{ret and ret.group(0)}',
           ret and ret.groups() == ('2', '0', '3'), out)
        ok(f'gdb: detached, the call completes: {line}',
           line == 'echo rax=0 status=0 resp_size=3 resp=bdg',
           vm.out0()[-1000:])
    finally:
        vm.kill()


def main():
    t0 = time.monotonic()
    try:
        art = linuxvm.build_artifacts()
    except Exception as e:      # noqa: BLE001
        print(f'Bail out! cannot build the Linux guests: {e}')
        return 1
    note(f'artifacts: {art}')
    keep = os.environ.get('PLANES_LINUX_KEEP')
    # PLANES_LINUX_ONLY=vm_gdb,...: those VMs alone (planes=1 runs skipped)
    only = os.environ.get('PLANES_LINUX_ONLY')
    if only:
        with tempfile.TemporaryDirectory(prefix='planes-linux-') as tmp:
            for f in only.split(','):
                globals()[f](keep or tmp, art)
        print(f'1..{n}')
        return 1 if failed else 0
    with tempfile.TemporaryDirectory(prefix='planes-linux-') as tmp:
        base = keep or tmp
        for f, smp, mem in ((vm_a, 2, '2G'), (vm_b, 1, '1G')):
            vm = None
            try:
                vm = f(base, art)
            except Exception as e:      # noqa: BLE001
                ok(f'{f.__name__} ran to its end', False, repr(e))
            try:
                vm_planes1(base, art, vm, smp, mem)
            except Exception as e:      # noqa: BLE001
                ok(f'vm_planes1 ({smp} vCPUs) ran to its end', False,
                   repr(e))
        try:
            vm_c(base, art)
        except Exception as e:      # noqa: BLE001
            ok('vm_c ran to its end', False, repr(e))
        try:
            vm_d(base, art)
        except Exception as e:      # noqa: BLE001
            ok('vm_d ran to its end', False, repr(e))
        try:
            vm_gdb(base, art)
        except Exception as e:      # noqa: BLE001
            ok('vm_gdb ran to its end', False, repr(e))
    note(f'check-linux took {time.monotonic() - t0:.0f} s')
    print(f'1..{n}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
