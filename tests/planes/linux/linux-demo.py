#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qemu-planes demo: real Linux in both planes (make demo-linux).

Debian's kernel boots in plane 0 (COM1) with vm-planes.ko, which
configures plane 1, loads a Linux 6.12 secure kernel into it and
activates it; plane 1 boots (COM2), hides its region and parks.  Plane 0
then makes VTL calls (INIT, ECHO, calls from both vCPUs, SEAL_KERNEL),
query-planes shows the planes, and a write into the sealed text stops
the VM (plane-violation=stop).  Then the same pair with plane 1 launched
by QEMU (-object plane-launch): plane 0 boots without memmap= and only
calls, and the launch measurement matches plane-measure.py's.
"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import linuxvm  # noqa: E402


def came_up(vm):
    """Whether plane 0's /init reported ready; says so if not."""
    if vm.wait(r'^vm-planes: ready$', 180, start=0):
        return True
    print('demo: plane 0 did not come up\n' + vm.out0())
    return False


def launched(tmp, art):
    """Plane 1 launched by the host, and its measurement."""
    vm = linuxvm.launched_vm(tmp, art, 'demo-launched')
    print('\n== plane 1 launched by the host\n$ ' + vm.cmdline(), flush=True)
    vm.start()
    try:
        if not came_up(vm):
            return 1
        print(''.join(f'P0| {x}\n' for x in vm.out0().splitlines()
                      if 'calls-only' in x), end='')
        p1 = vm.q('query-planes')[1]
        print(f"-> query-planes: plane 1 {p1['state']}, region "
              f"{p1['region-base']:#x}+{p1['region-size']:#x}\n"
              f"   launch-measurement {p1.get('launch-measurement')}\n"
              f"   plane-measure.py   {linuxvm.measure_offline(art, p1)}")
        for cmd in ('init', 'echo hello-launched-plane', 'seal'):
            print(f'  > {cmd}\n  < {vm.command(cmd, 120)}', flush=True)
    finally:
        vm.kill()
    return 0


def main():
    art = linuxvm.build_artifacts()
    with tempfile.TemporaryDirectory(prefix='planes-linux-demo-') as tmp:
        vm = linuxvm.LinuxPlanesVM(tmp, art, 'demo', case='memmap')
        print('$ ' + vm.cmdline(), flush=True)
        vm.start()
        try:
            if not came_up(vm):
                return 1
            print('\n== VTL calls (the command sent to plane 0\'s /init, '
                  'its result)')
            for cmd in ('init', 'echo hello-from-plane-0', 'parallel 50',
                        'seal', 'echo after-the-seal'):
                print(f'  > {cmd}\n  < {vm.command(cmd, 120)}', flush=True)
            print('\n-> query-planes')
            print(json.dumps(vm.q('query-planes'), indent=2))
            print('\n-> info planes')
            print(vm.q('human-monitor-command',
                       **{'command-line': 'info planes'}), end='')
            print('\n  > poke-text   (a write into the sealed kernel text)')
            vm.send('poke-text')
            ev = vm.wait_event('PLANE_MEMORY_VIOLATION', 30)
            print(f'  PLANE_MEMORY_VIOLATION {ev and ev["data"]}')
            print(f'-> query-status: {vm.wait_status("internal-error", 10)}')
            print('== QEMU stderr\n' + vm.err())
            print('== COM1: plane 0, Debian ' +
                  open(os.path.join(art, 'plane0-kernel')).read().strip())
            print(''.join(f'P0| {x}\n' for x in vm.out0().splitlines()))
            print('== COM2: plane 1, Linux 6.12 secure kernel')
            print(''.join(f'P1| {x}\n' for x in vm.out1().splitlines()))
        finally:
            vm.kill()
        return launched(tmp, art)


if __name__ == '__main__':
    sys.exit(main())
