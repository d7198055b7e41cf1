#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qemu-planes demo: boot a planes=2 VM under TCG and inspect its planes.

Starts the fork's qemu-system-x86_64 with -machine q35,planes=2, then, over
QMP (QEMU's own python/qemu/qmp package from the assembled tree), prints
query-planes, HMP 'info planes' and the plane vCPU threads of the process.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, 'build', 'src', 'python'))

from qemu.qmp.legacy import QEMUMonitorProtocol  # noqa: E402

QEMU = os.path.join(REPO, 'build', 'qemu', 'qemu-system-x86_64')


def thread_names(pid):
    names = {}
    for tid in sorted(os.listdir(f'/proc/{pid}/task'), key=int):
        with open(f'/proc/{pid}/task/{tid}/comm', encoding='utf-8') as f:
            names[int(tid)] = f.read().strip()
    return names


def main():
    with tempfile.TemporaryDirectory(prefix='planes-demo-') as tmp:
        sock = os.path.join(tmp, 'qmp.sock')
        args = [QEMU, '-accel', 'tcg', '-machine', 'q35,planes=2',
                '-smp', '2', '-m', '512M', '-nodefaults', '-display', 'none',
                '-name', 'planes-demo,debug-threads=on',
                '-qmp', f'unix:{sock},server=on,wait=off']
        print('$ ' + ' '.join(args), flush=True)
        vm = subprocess.Popen(args)
        try:
            for _ in range(100):
                if os.path.exists(sock):
                    break
                time.sleep(0.05)
            qmp = QEMUMonitorProtocol(sock)
            qmp.connect()
            planes = qmp.cmd('query-planes')
            print('\n-> query-planes')
            print(json.dumps(planes, indent=2))
            print('\n-> info planes')
            print(qmp.cmd('human-monitor-command',
                          **{'command-line': 'info planes'}), end='')
            print('\nvCPU threads of the process:')
            names = thread_names(vm.pid)
            for plane in planes:
                for v in plane['vcpus']:
                    tid = v['thread-id']
                    print(f"  plane {plane['id']} vcpu {v['cpu-index']}: "
                          f"thread {tid} '{names.get(tid, '?')}'"
                          f"{' (current)' if v['current'] else ''}")
            qmp.cmd('quit')
            qmp.close()
            vm.wait(timeout=10)
        finally:
            if vm.poll() is None:
                vm.kill()
    return 0 if len(planes) == 2 else 1


if __name__ == '__main__':
    sys.exit(main())
