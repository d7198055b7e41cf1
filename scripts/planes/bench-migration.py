#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make bench-migration: what planes add to a migration, side by side.

The same guest image with the same RAM (512 MiB, 2 vCPUs, TCG): planes=1,
planes=2 before any CONFIG, and planes=2 with plane 1 active and parked
(sealed).  For each: the stream's size (migrate to a file) and, over a
UNIX socket to a second QEMU, the downtime and total time that
query-migrate reports, REPS times interleaved; medians and ratios to
planes=1.  Not a test: the numbers are not assertions.

Environment: BENCH_REPS (default 5).
"""

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.path.join(REPO, 'build', 'qemu')
FORK = os.path.join(BUILD, 'qemu-system-x86_64')
GUEST = os.path.join(BUILD, 'tests', 'planes-guests', 'plane0.elf')
REPS = int(os.environ.get('BENCH_REPS', '5'))

CASES = [
    ('planes=1', 'q35', 'test=hello halt=1', 'P0: hello from plane 0'),
    ('planes=2, no CONFIG', 'q35,planes=2', 'test=hello halt=1',
     'P0: hello from plane 0'),
    ('planes=2, plane 1 parked', 'q35,planes=2', 'test=migrate hold=parked',
     'P0: held at parked'),
]


class Qmp:
    def __init__(self, path):
        for _ in range(500):
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                time.sleep(0.01)
        self.f = self.sock.makefile('rw')
        self.f.readline()
        self.cmd('qmp_capabilities')

    def cmd(self, name, **args):
        self.f.write(json.dumps({'execute': name, 'arguments': args}) + '\n')
        self.f.flush()
        while True:
            msg = json.loads(self.f.readline())
            if 'return' in msg:
                return msg['return']
            if 'error' in msg:
                raise RuntimeError(f'{name}: {msg["error"]}')


def start(tmp, tag, machine, append, extra=()):
    qmp = os.path.join(tmp, f'{tag}.qmp')
    serial = os.path.join(tmp, f'{tag}.serial')
    p = subprocess.Popen([FORK, '-accel', 'tcg', '-machine', machine,
                          '-smp', '2', '-m', '512M', '-nodefaults',
                          '-display', 'none', '-serial', f'file:{serial}',
                          '-qmp', f'unix:{qmp},server=on,wait=off',
                          '-kernel', GUEST, '-append', append, *extra],
                         stderr=subprocess.DEVNULL)
    return p, Qmp(qmp), serial


def wait_for(pred, what, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.02)
    sys.exit(f'bench-migration: no {what} within {timeout} s')


def wait_serial(path, needle):
    def seen():
        try:
            with open(path, errors='replace') as f:
                return needle in f.read()
        except FileNotFoundError:
            return False
    wait_for(seen, repr(needle))


def migrated(qmp):
    info = qmp.cmd('query-migrate')
    if info.get('status') == 'failed':
        sys.exit(f'bench-migration: migration failed: {info}')
    return info if info.get('status') == 'completed' else None


def one_run(tmp, machine, append, ready):
    """(stream bytes, downtime ms, total ms) for one source VM."""
    src, qs, serial = start(tmp, 'src', machine, append)
    wait_serial(serial, ready)
    stream = os.path.join(tmp, 'stream.bin')
    qs.cmd('stop')
    qs.cmd('migrate', uri=f'file:{stream}')
    wait_for(lambda: migrated(qs), 'file migration')
    size = os.path.getsize(stream)
    os.unlink(stream)
    sock = os.path.join(tmp, 'mig.sock')
    dst, qd, _ = start(tmp, 'dst', machine, append,
                       ('-incoming', f'unix:{sock}'))
    qs.cmd('cont')
    qs.cmd('migrate', uri=f'unix:{sock}')
    info = wait_for(lambda: migrated(qs), 'live migration')
    for p in (src, dst):
        p.kill()
        p.wait()
    return size, info.get('downtime', 0), info.get('total-time', 0)


def main():
    if not os.path.exists(FORK) or not os.path.exists(GUEST):
        sys.exit('bench-migration: build first (make)')
    results = {name: [] for name, *_ in CASES}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(REPS):
            for name, machine, append, ready in CASES:
                results[name].append(one_run(tmp, machine, append, ready))
    base = [statistics.median(r[i] for r in results[CASES[0][0]])
            for i in range(3)]
    print(f'migration, TCG, 2 vCPUs, 512 MiB, median of {REPS}')
    print(f'{"VM":28} {"stream bytes":>13} {"ratio":>6} {"downtime ms":>12}'
          f' {"ratio":>6} {"total ms":>9} {"ratio":>6}')
    for name, *_ in CASES:
        med = [statistics.median(r[i] for r in results[name])
               for i in range(3)]
        print(f'{name:28} {med[0]:13.0f} {med[0] / base[0]:6.3f} '
              f'{med[1]:12.0f} {med[1] / max(base[1], 1):6.2f} '
              f'{med[2]:9.0f} {med[2] / max(base[2], 1):6.2f}')


if __name__ == '__main__':
    main()
