#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Inspect the planes of a running qemu-planes VM over QMP.

Uses QEMU's own python/qemu/qmp package from the assembled tree
(build/src/python): connects to a QMP socket, lists the planes, and
optionally waits for the next PLANE_STATE_CHANGED event.

    scripts/planes/qmp-planes.py /tmp/qmp.sock            # list planes
    scripts/planes/qmp-planes.py /tmp/qmp.sock --wait 30  # and an event
    scripts/planes/qmp-planes.py /tmp/qmp.sock --cont --wait 30
                                   # resume a VM started with -S, then wait
"""

import argparse
import asyncio
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, 'build', 'src', 'python'))

from qemu.qmp import QMPClient  # noqa: E402


async def inspect(sock, wait, cont):
    qmp = QMPClient('qmp-planes')
    await qmp.connect(sock)
    try:
        with qmp.listener('PLANE_STATE_CHANGED') as listener:
            for p in await qmp.execute('query-planes'):
                vcpus = ' '.join(f"{v['cpu-index']}:{v['thread-id']}"
                                 f"{'*' if v['current'] else ''}"
                                 for v in p['vcpus'])
                print(f"plane {p['id']}: {p['state']}, region "
                      f"{p['region-base']:#x}+{p['region-size']:#x}, "
                      f"violations {p['memory-violations']}, vcpus {vcpus}")
            if cont:
                await qmp.execute('cont')
            if wait is None:
                return 0
            d = (await asyncio.wait_for(listener.get(), wait))['data']
            print(f"PLANE_STATE_CHANGED plane {d['plane']}: "
                  f"{d['old']} -> {d['new']}")
            return 0
    finally:
        await qmp.disconnect()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('socket', help='QMP unix socket of the VM')
    ap.add_argument('--wait', type=float, metavar='SECONDS',
                    help='also wait this long for a PLANE_STATE_CHANGED')
    ap.add_argument('--cont', action='store_true',
                    help='resume the VM (started with -S) after listing')
    args = ap.parse_args()
    try:
        return asyncio.run(inspect(args.socket, args.wait, args.cont))
    except asyncio.TimeoutError:
        print('no PLANE_STATE_CHANGED in time', file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
