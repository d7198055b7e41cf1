#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qemu-planes demo: a planes=2 VM under TCG boots its secure plane.

Runs the fork's qemu-system-x86_64 with -machine q35,planes=2 and the
project's test guests: plane 0 boots, configures plane 1 (CONFIG), copies
the secure monitor into its region, activates it (ACTIVATE); plane 1 runs
until it parks and plane 0 resumes.  Plane 0 then asks plane 1 over VTL
calls (one calling area, guest ABI version 2) to seal its kernel text and
to make a data page non-executable, proves both hold (this run uses
plane-violation=fault, so that plane 0 sees the page faults), and makes
VTL calls from both vCPUs at once: served one at a time by plane 1's one
state, then in parallel once plane 1 enabled a state on vCPU 1.  QMP
(QEMU's own python/qemu/qmp from the assembled tree) shows the
PLANE_STATE_CHANGED and PLANE_MEMORY_VIOLATION events, query-planes and
HMP 'info planes'.  A second, short run shows the default policy,
plane-violation=stop: plane 0's first touch of the sealed region stops
the VM, and query-status says so.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, 'build', 'src', 'python'))

from qemu.qmp.legacy import QEMUMonitorProtocol  # noqa: E402

BUILD = os.path.join(REPO, 'build', 'qemu')
QEMU = os.path.join(BUILD, 'qemu-system-x86_64')
GUEST = os.path.join(BUILD, 'tests', 'planes-guests', 'plane0.elf')
TIMEOUT_S = 60


def wait_for(path, needle, deadline):
    while time.monotonic() < deadline:
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        if needle in text:
            return text
        time.sleep(0.05)
    raise TimeoutError(f'no {needle!r} on the serial port')


def main():
    with tempfile.TemporaryDirectory(prefix='planes-demo-') as tmp:
        sock = os.path.join(tmp, 'qmp.sock')
        serial = os.path.join(tmp, 'serial.txt')
        append = 'test=vbs halt=1 calls=1000 p1cmd=console=ttyS0+vtl=1'
        args = [QEMU, '-accel', 'tcg', '-machine',
                'q35,planes=2,plane-violation=fault',
                '-smp', '2', '-m', '512M', '-nodefaults', '-display', 'none',
                '-name', 'planes-demo,debug-threads=on', '-S',
                '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
                '-serial', f'file:{serial}', '-kernel', GUEST,
                '-append', append,
                '-qmp', f'unix:{sock},server=on,wait=off']
        shown = ' '.join(a if ' ' not in a else f"'{a}'" for a in args)
        print('$ ' + shown, flush=True)
        vm = subprocess.Popen(args)
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while not os.path.exists(sock) and time.monotonic() < deadline:
                time.sleep(0.05)
            qmp = QEMUMonitorProtocol(sock)
            qmp.connect()
            qmp.cmd('cont')
            text = wait_for(serial, 'DONE', deadline)

            print('\n== serial console (plane 0 "P0:", plane 1 "P1:")')
            print(text.replace('\r', ''), end='')

            print('== QMP events')
            time.sleep(1.1)             # PLANE_MEMORY_VIOLATION: 1 a second
            qmp.cmd('query-status')     # the sync client reads events here
            for ev in qmp.get_events(wait=False):
                d = ev.get('data', {})
                if ev['event'] == 'PLANE_STATE_CHANGED':
                    print(f"  PLANE_STATE_CHANGED plane {d['plane']}: "
                          f"{d['old']} -> {d['new']}")
                elif ev['event'] == 'PLANE_MEMORY_VIOLATION':
                    print(f"  PLANE_MEMORY_VIOLATION plane {d['plane']} "
                          f"vCPU {d['cpu-index']}: {d['access']} at "
                          f"{d['gpa']:#x}")

            planes = qmp.cmd('query-planes')
            print('\n-> query-planes')
            print(json.dumps(planes, indent=2))
            print('\n-> info planes')
            print(qmp.cmd('human-monitor-command',
                          **{'command-line': 'info planes'}), end='')
            qmp.cmd('quit')
            try:
                qmp.close()
            except EOFError:
                pass                # QEMU hung up first, as quit does
            vm.wait(timeout=10)
        finally:
            if vm.poll() is None:
                vm.kill()
    ok = len(planes) == 2 and planes[1]['state'] == 'parked'
    stopped = violation_stops()
    print('\ndemo:', 'plane 1 is parked, plane 0 runs; a violation stops '
          'the VM' if ok and stopped else 'FAILED')
    return 0 if ok and stopped else 1


def violation_stops():
    """The default plane-violation=stop: the VM stops at the violation."""
    with tempfile.TemporaryDirectory(prefix='planes-demo-') as tmp:
        sock = os.path.join(tmp, 'qmp.sock')
        serial = os.path.join(tmp, 'serial.txt')
        args = [QEMU, '-accel', 'tcg', '-machine', 'q35,planes=2',
                '-smp', '1', '-m', '512M', '-nodefaults', '-display', 'none',
                '-serial', f'file:{serial}', '-kernel', GUEST,
                '-append', 'test=boot', '-S',
                '-qmp', f'unix:{sock},server=on,wait=off']
        print('\n$ ' + ' '.join(args), flush=True)
        vm = subprocess.Popen(args)
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while not os.path.exists(sock) and time.monotonic() < deadline:
                time.sleep(0.05)
            qmp = QEMUMonitorProtocol(sock)
            qmp.connect()
            qmp.cmd('cont')
            ev = qmp.pull_event(wait=TIMEOUT_S)
            while ev['event'] != 'PLANE_MEMORY_VIOLATION':
                ev = qmp.pull_event(wait=TIMEOUT_S)
            status = qmp.cmd('query-status')
            while status['status'] != 'internal-error' and \
                    time.monotonic() < deadline:
                time.sleep(0.05)
                status = qmp.cmd('query-status')
            d = ev['data']
            print(f"  PLANE_MEMORY_VIOLATION plane {d['plane']} vCPU "
                  f"{d['cpu-index']}: {d['access']} at {d['gpa']:#x}")
            print(f"-> query-status: {json.dumps(status)}")
            qmp.cmd('quit')
            try:
                qmp.close()
            except EOFError:
                pass
            vm.wait(timeout=10)
        finally:
            if vm.poll() is None:
                vm.kill()
    return status['status'] == 'internal-error' and not status['running']


if __name__ == '__main__':
    sys.exit(main())
