# SPDX-License-Identifier: GPL-2.0-or-later
"""A planes=2 VM with real Linux in both planes, for the test and the demo.

Plane 0 is Debian's kernel with the initramfs of scripts/planes/linux-build.sh
(vm-planes.ko configures, loads and activates plane 1, whose Linux 6.12
secure kernel parks and serves VTL calls).  COM1 (plane 0's console) is a
socket with a log file: the test sends commands to the initramfs' /init
and reads the results from the log.  COM2 (plane 1's console) is a file,
behind an isa-serial that belongs to plane 1 (plane 0 cannot reach it).
QMP goes through QEMU's own python/qemu/qmp from the assembled tree.
"""

import os
import re
import socket
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(REPO, 'build', 'src', 'python'))

from qemu.qmp.legacy import QEMUMonitorProtocol  # noqa: E402

QEMU = os.path.join(REPO, 'build', 'qemu', 'qemu-system-x86_64')
BUILD_SCRIPT = os.path.join(REPO, 'scripts', 'planes', 'linux-build.sh')

CASES = {
    # plane 1 carved out of plane 0's RAM, reserved with memmap=
    'memmap': 'memmap=0x3c000000$0x40000000',
    # plane 1 in fresh RAM at 4 GiB
    'highmem': '',
    # plane 1 launched by the host (-object plane-launch): plane 0 needs
    # nothing on its command line
    'launched': '',
}


def build_artifacts():
    """Runs the cached build; returns its directory."""
    out = subprocess.run(['bash', BUILD_SCRIPT], stdout=subprocess.PIPE,
                         text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


class LinuxPlanesVM:
    def __init__(self, tmp, art, name, case='memmap', machine_opts='',
                 smp=2, mem='2G', planes=2, extra=()):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir, exist_ok=True)
        self.com1 = os.path.join(self.dir, 'COM1')
        self.com2 = os.path.join(self.dir, 'COM2')
        self.stderr_path = os.path.join(self.dir, 'stderr')
        self.qmp_sock = os.path.join(self.dir, 'qmp.sock')
        self.com1_sock = os.path.join(self.dir, 'com1.sock')
        with open(os.path.join(art, 'plane0-kernel')) as f:
            kernel = f.read().strip()
        append = f'console=ttyS0 quiet {CASES[case]} vm_planes.case={case}'
        machine = f'q35,planes={planes}' + (',' + machine_opts
                                             if machine_opts else '')
        # COM2 is plane 1's own device: plane 0 finds no port at 0x2f8
        com2 = ['-chardev', f'file,id=com2,path={self.com2}',
                '-device', 'isa-serial,id=plane1-console,iobase=0x2f8,irq=3,'
                           'plane=1,chardev=com2'] if planes > 1 else []
        self.args = [
            QEMU, '-accel', 'tcg', '-machine', machine, '-smp', str(smp),
            '-m', mem, '-nodefaults', '-display', 'none',
            '-L', '/usr/share/seabios', '-L', '/usr/share/qemu',
            '-chardev', f'socket,id=com1,path={self.com1_sock},server=on,'
                        f'wait=off,logfile={self.com1}',
            '-serial', 'chardev:com1', *com2,
            '-kernel', kernel, '-initrd', os.path.join(art, 'initramfs.cpio'),
            '-append', append,
            '-qmp', f'unix:{self.qmp_sock},server=on,wait=off', *extra]
        self.proc = None
        self.qmp = None
        self.sock = None
        self.events = []
        self.mark = 0

    def cmdline(self):
        return ' '.join(a if not re.search(r'[ $]', a) else f"'{a}'"
                        for a in self.args)

    def start(self):
        self.stderr = open(self.stderr_path, 'w')
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL,
                                     stderr=self.stderr)
        deadline = time.monotonic() + 20
        while not (os.path.exists(self.qmp_sock) and
                   os.path.exists(self.com1_sock)):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError('QEMU did not start: ' + self.err())
            time.sleep(0.05)
        self.qmp = QEMUMonitorProtocol(self.qmp_sock)
        self.qmp.connect()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.com1_sock)
        # Read COM1 all the time (the log file is what the test reads): a
        # full socket makes QEMU 10.0 log a byte twice (qemu_chr_write_buffer
        # logs a write that failed with EAGAIN, then the UART retries it).
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def kill(self):
        if self.proc and self.proc.poll() is None:
            try:
                self.qmp.cmd('quit')
                self.proc.wait(timeout=10)
            except Exception:       # noqa: BLE001 - it goes either way
                pass
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for c in (self.qmp, self.sock):
            try:
                if c:
                    c.close()
            except Exception:       # noqa: BLE001
                pass
        if self.proc:
            self.stderr.close()

    # -- consoles -------------------------------------------------------
    @staticmethod
    def _read(path):
        try:
            with open(path, encoding='utf-8', errors='replace') as f:
                return f.read().replace('\r', '')
        except FileNotFoundError:
            return ''

    def out0(self):
        return self._read(self.com1)

    def out1(self):
        return self._read(self.com2)

    def err(self):
        return self._read(self.stderr_path)

    def _drain(self):
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    @staticmethod
    def _complete_lines(text):
        """The text up to its last newline.

        The console log is read while the guest still writes it: a line
        caught half-written would let '$' match in the middle of it.
        """
        return text[:text.rfind('\n') + 1]

    def wait(self, regex, timeout, where='com1', start=None):
        """Waits for regex in the complete lines of a console after `start`
        (default: the mark)."""
        read = self.out0 if where == 'com1' else self.out1
        start = self.mark if start is None and where == 'com1' else (start or 0)
        deadline = time.monotonic() + timeout
        pat = re.compile(regex, re.M)
        while True:
            m = pat.search(self._complete_lines(read()), start)
            if m:
                return m
            if time.monotonic() > deadline:
                return None
            if self.proc.poll() is not None:
                return pat.search(read(), start)
            time.sleep(0.05)

    def send(self, line):
        self.mark = len(self.out0())
        self.sock.sendall(line.encode() + b'\n')

    def command(self, line, timeout=60):
        """One /init command; returns its result line or None."""
        word = line.split()[0]
        self.send(line)
        m = self.wait(r'^vm-planes: (' + re.escape(word) + r'.*)$', timeout)
        return m.group(1) if m else None

    # -- QMP ------------------------------------------------------------
    def q(self, cmd, **args):
        r = self.qmp.cmd(cmd, **args)
        self.events += self.qmp.get_events(wait=False)
        return r

    def status(self):
        return self.q('query-status')['status']

    def plane_state(self, plane=1):
        return self.q('query-planes')[plane]['state']

    def wait_plane_state(self, state, timeout, plane=1):
        deadline = time.monotonic() + timeout
        while True:
            s = self.plane_state(plane)
            if s == state or time.monotonic() > deadline:
                return s
            time.sleep(0.1)

    def wait_status(self, status, timeout):
        deadline = time.monotonic() + timeout
        while True:
            s = self.status()
            if s == status or time.monotonic() > deadline:
                return s
            time.sleep(0.1)

    def wait_event(self, name, timeout):
        deadline = time.monotonic() + timeout
        while True:
            for ev in self.events:
                if ev['event'] == name:
                    return ev
            if time.monotonic() > deadline:
                return None
            try:
                ev = self.qmp.pull_event(wait=0.2)
            except Exception:       # noqa: BLE001 - timeout
                ev = None
            if ev:
                self.events.append(ev)


# Plane 1's command line when QEMU launches it (case 'launched')
PLANE1_CMDLINE = ('earlycon=uart8250,io,0x2f8,115200 keep_bootcon panic=-1 '
                  'reboot=t')


def launched_vm(tmp, art, name, extra=()):
    """Plane 0 with vm-planes.ko calls_only=1; plane 1 launched by QEMU
    (-object plane-launch) in fresh RAM that QEMU places."""
    kernel = os.path.join(art, 'vmlinux-plane1')
    launch = (f'plane-launch,id=vtl1,kernel={kernel},size=0x10000000,'
              f'append={PLANE1_CMDLINE.replace(",", ",,")}')
    return LinuxPlanesVM(tmp, art, name, case='launched',
                         extra=('-object', launch, *extra))


def measure_offline(art, plane1):
    """plane-measure.py's launch measurement of the launched plane 1, whose
    query-planes entry is @plane1."""
    script = os.path.join(REPO, 'scripts', 'planes', 'plane-measure.py')
    return subprocess.run(
        [sys.executable, script, '--kernel',
         os.path.join(art, 'vmlinux-plane1'), '--append', PLANE1_CMDLINE,
         '--base', hex(plane1['region-base']),
         '--size', hex(plane1['region-size'])],
        stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
