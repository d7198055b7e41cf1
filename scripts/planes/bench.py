#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make bench: what VM planes cost, measured side by side in one run.

Every comparison runs its two sides interleaved, REPS times, and reports
the median, the spread (min..max around it) and the ratio of medians.
Timing is from the guest's TSC (TCG: the host's TSC) for work inside the
guest, and from the host around whole runs for start-to-exit.  Results
go to stdout as a table, to build/bench/bench.csv, and the VTL call
latency distribution of each case (polling, no polling, statistics off)
to build/bench/vtl-latency.png (gnuplot).

Environment: BENCH_REPS (default 7), BENCH_SMOKE=1 (tiny sizes, one rep:
checks that the bench still runs), BENCH_FRESH=1 (also time a fresh
./configure && make in a scratch clone; takes minutes), BENCH_ONLY (a
comma-separated list of groups to run: overhead, parked, vtl, dropped,
memory, build; default all).
"""

import csv
import functools
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.path.join(REPO, 'build', 'qemu')
FORK = os.path.join(BUILD, 'qemu-system-x86_64')
STOCK = '/usr/bin/qemu-system-x86_64'
GUEST = os.path.join(BUILD, 'tests', 'planes-guests', 'plane0.elf')
OUT = os.path.join(REPO, 'build', 'bench')

SMOKE = os.environ.get('BENCH_SMOKE') == '1'
REPS = 1 if SMOKE else int(os.environ.get('BENCH_REPS', '7'))
SPIN_ITERS = 200000 if SMOKE else 100000000
# Guests under this machine's (paravirtual) KVM run far slower than TCG.
KVM_SPIN_ITERS = 20000 if SMOKE else 200000
VTL_CALLS = 200 if SMOKE else 20000
# 2 vCPUs call for this many ticks (~90 ms at 2.3 GHz): the rate while
# both call, without the tail of the one that finishes last
VTL_WINDOW = 20000000 if SMOKE else 200000000
LAT_SAMPLES = 100 if SMOKE else 2000
RSS_SETTLE_S = 0 if SMOKE else 0.5

rows = []
GROUPS = ('overhead', 'parked', 'vtl', 'dropped', 'memory', 'build')
ONLY = [g for g in os.environ.get('BENCH_ONLY', '').split(',') if g]


def wanted(group):
    return not ONLY or group in ONLY


def qemu_args(binary, accel, machine, append, smp=1, extra=()):
    return [binary, '-accel', accel, '-machine', machine, '-smp', str(smp),
            '-m', '512M', '-nodefaults', '-display', 'none', '-no-reboot',
            '-serial', 'stdio',
            '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
            '-kernel', GUEST, '-append', append, *extra]


def run_guest(args):
    """Runs to the guest's exit; returns (host seconds, serial text)."""
    t0 = time.perf_counter()
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    dt = time.perf_counter() - t0
    if p.returncode != 1 or 'EXIT 0' not in p.stdout:
        raise RuntimeError(f'guest failed ({p.returncode}): {" ".join(args)}'
                           f'\n{p.stdout}\n{p.stderr}')
    return dt, p.stdout


def field(text, name):
    m = re.search(rf'\b{name}=(\d+)', text)
    if not m:
        raise RuntimeError(f'no {name}= in guest output:\n{text}')
    return int(m.group(1))


def summary(values):
    med = statistics.median(values)
    spread = (max(values) - min(values)) / med * 100 if med else 0.0
    return med, spread


def compare(what, unit, a_name, a_fn, b_name, b_fn, target=None):
    """Interleaves a and b REPS times; records a row with a/b medians."""
    a, b = [], []
    for _ in range(REPS):
        a.append(a_fn())
        b.append(b_fn())
    (am, asp), (bm, bsp) = summary(a), summary(b)
    ratio = am / bm if bm else float('nan')
    # On a noisy host the best run of each side is the least disturbed one.
    best = min(a) / min(b) if min(b) else float('nan')
    rows.append({'measure': what, 'unit': unit,
                 'a': a_name, 'a_median': am, 'a_spread_pct': asp,
                 'b': b_name, 'b_median': bm, 'b_spread_pct': bsp,
                 'ratio_a_b': ratio, 'ratio_best': best,
                 'target': target or ''})
    print(f'  {what}: {a_name} {am:.4g} {unit} (±{asp:.1f}%), '
          f'{b_name} {bm:.4g} {unit} (±{bsp:.1f}%), ratio {ratio:.3f} '
          f'(of best runs {best:.3f})'
          + (f' (target {target})' if target else ''), flush=True)


def kvm_usable():
    try:
        run_guest(qemu_args(STOCK, 'kvm', 'q35', 'test=hello'))
        return True
    except (RuntimeError, subprocess.TimeoutExpired, OSError):
        return False


def bench_planes1_overhead(accel):
    hello = 'test=hello'
    iters = KVM_SPIN_ITERS if accel == 'kvm' else SPIN_ITERS
    spin = f'test=bench-spin iters={iters}'
    compare(f'{accel}: start-to-exit, idle guest', 's',
            'fork planes=1', lambda: run_guest(
                qemu_args(FORK, accel, 'q35,planes=1', hello))[0],
            'stock', lambda: run_guest(
                qemu_args(STOCK, accel, 'q35', hello))[0], '<= 1.01')
    compare(f'{accel}: CPU-bound guest loop', 'ticks',
            'fork planes=1', lambda: field(run_guest(
                qemu_args(FORK, accel, 'q35,planes=1', spin))[1], 'ticks'),
            'stock', lambda: field(run_guest(
                qemu_args(STOCK, accel, 'q35', spin))[1], 'ticks'),
            '<= 1.01')


def bench_overhead(have_stock):
    if not have_stock:
        print('  stock QEMU missing (apt-get install -t bookworm-backports '
              'qemu-system-x86); planes=1 overhead skipped')
        return
    bench_planes1_overhead('tcg')
    if kvm_usable():
        bench_planes1_overhead('kvm')
    else:
        print('  kvm: no guest runs under KVM here; skipped')


def bench_parked_plane():
    spin = f'test=bench-spin iters={SPIN_ITERS}'
    compare('tcg: CPU-bound loop, plane 1 parked', 'ticks',
            'planes=2', lambda: field(run_guest(
                qemu_args(FORK, 'tcg', 'q35,planes=2',
                          spin + ' activate=1'))[1], 'ticks'),
            'planes=1', lambda: field(run_guest(
                qemu_args(FORK, 'tcg', 'q35,planes=1', spin))[1], 'ticks'),
            '<= 1.02')


@functools.cache
def handoff_exe():
    """Builds the host's two-thread handoff benchmark, once a run."""
    src = os.path.join(REPO, 'scripts', 'planes', 'bench-handoff.c')
    exe = os.path.join(OUT, 'bench-handoff')
    subprocess.run(['gcc', '-O2', '-Wall', '-pthread', '-o', exe, src],
                   check=True)
    return exe


def handoff_floor(kind='spin'):
    """A runner for the handoff benchmark's spinning ('spin') or
    sleeping ('futex') hand-over."""
    exe = handoff_exe()
    trips = 20000 if SMOKE else 1000000
    if kind == 'futex':
        trips //= 10

    def fn():
        out = subprocess.run([exe, str(trips), kind], capture_output=True,
                             text=True, check=True).stdout
        return field(out, 'handoff_ticks' if kind == 'spin'
                     else 'futex_ticks')
    return fn


NO_POLL = 'q35,planes=2,plane-switch-poll-ns=0'
NO_STATS = 'q35,planes=2,plane-vtl-stats=off'


def bench_vtl():
    """VTL call rows; returns {case: [per-call ticks of some calls]}."""
    lat = {}

    def one_vcpu(kind, machine='q35,planes=2', case=None, accel='tcg'):
        def fn():
            out = run_guest(qemu_args(
                FORK, accel, machine,
                f'test=bench-vtl calls={VTL_CALLS} samples={LAT_SAMPLES} '
                f'busy=1',
                smp=2))[1]
            if case and case not in lat:
                lat[case] = [int(x) for x in re.findall(r'LAT (\d+)', out)]
            if kind == 'handover':
                # the VMCALL alone, less plane 1's own code in it
                return (field(out, 'vmcall_ticks') / VTL_CALLS -
                        field(out, 'p1_ticks') / field(out, 'p1_calls'))
            return field(out, f'{kind}_ticks') / VTL_CALLS
        return fn

    compare('tcg: VTL call round trip vs null hypercall', 'ticks/call',
            'VTL call', one_vcpu('vtl', case='polling'), 'null hypercall',
            one_vcpu('null'), '<= 2')
    # The round trip is two hypercalls plus two cross-thread hand-overs,
    # whose floors are these: two threads spinning, or sleeping on a futex.
    compare('tcg: VTL call round trip vs host thread handoff', 'ticks',
            'VTL call', one_vcpu('vtl'), 'spin handoff', handoff_floor(),
            '<= 2')
    # The same without the guest code of both planes (the bench's loop and
    # plane 1's handler): what the VMM itself adds, two hypercalls' entry
    # and dispatch and the two hand-overs.
    compare('tcg: VTL call hand-over cost (VMM share) vs thread handoff',
            'ticks', 'VMCALL - plane 1', one_vcpu('handover'),
            'spin handoff', handoff_floor(), '<= 2')
    # What a switch costs with no hand-over between threads at all: TCG's
    # round-robin mode runs every state on one thread, so a switch is the
    # hypercall's dispatch and the exec loop's exit and re-entry alone.
    # The row above less this one is what a thread per state adds.
    compare('tcg: VTL call hand-over cost (VMM share), thread per state vs '
            'one thread', 'ticks', 'thread per state', one_vcpu('handover'),
            'thread=single', one_vcpu('handover', accel='tcg,thread=single'))
    compare('tcg: VTL call round trip without polling vs futex handoff',
            'ticks', 'VTL call, poll-ns=0',
            one_vcpu('vtl', NO_POLL, case='no polling'), 'futex handoff',
            handoff_floor('futex'), '<= 2')
    compare('tcg: VTL call round trip, polling vs not', 'ticks/call',
            'poll 50us', one_vcpu('vtl'), 'poll-ns=0',
            one_vcpu('vtl', NO_POLL))
    compare('tcg: VTL call round trip, statistics on vs off', 'ticks/call',
            'vtl-stats on', one_vcpu('vtl'), 'vtl-stats=off',
            one_vcpu('vtl', NO_STATS, case='statistics off'),
            '~1 (nothing measurable)')

    split = []      # (calls of vCPU 0, of vCPU 1) of each 2-vCPU run

    def rate(smp, machine='q35,planes=2', calls=VTL_CALLS, enable=0):
        def fn():
            what = f'calls={calls}' if smp == 1 else f'ticks={VTL_WINDOW}'
            out = run_guest(qemu_args(
                FORK, 'tcg', machine,
                f'test=bench-vtl {what} smp={smp} enable={enable}',
                smp=2))[1]
            if smp == 1:
                return calls / field(out, 'vtl_ticks')
            split.append((field(out, 'calls0'), field(out, 'calls1')))
            return field(out, 'calls') / field(out, 'ticks')
        return fn

    def show_split():
        # how the 2 vCPUs shared the calls: a starved one shows here
        print('    calls of vCPU 0/1 in each 2-vCPU run: ' +
              ', '.join(f'{a}/{b}' for a, b in split), flush=True)
        split.clear()

    # Plane 1's one shared state serves the two vCPUs one call at a time:
    # at best as many calls per tick as one vCPU makes.
    compare('tcg: VTL calls per tick, 2 vCPUs vs 1', 'calls/tick',
            '2 vCPUs', rate(2), '1 vCPU', rate(1), '>= 0.9')
    show_split()
    # With a state on each index the calls run in parallel, as far as host
    # CPUs allow: two indexes that call keep four threads busy.
    compare('tcg: VTL calls per tick, 2 vCPUs vs 1, per-index states',
            'calls/tick', '2 vCPUs', rate(2, enable=1), '1 vCPU',
            rate(1, enable=1),
            f'>= 0.9; > 1 with host CPUs to spare ({os.cpu_count()} here)')
    show_split()
    calls = max(VTL_CALLS // 10, 200)
    compare('tcg: VTL calls per tick, 2 vCPUs vs 1, no polling',
            'calls/tick',
            '2 vCPUs', rate(2, NO_POLL, calls), '1 vCPU',
            rate(1, NO_POLL, calls), 'scales: > 1')
    show_split()
    return lat


def bench_dropped_access():
    """A plane 1 read of plane 0's chipset (dropped) against plane 0's
    own read of the same port, from one guest run each."""
    reads = 2000 if SMOKE else 200000
    for port, device in ((0x40, 'PIT'), (0x71, 'RTC')):
        last = {}

        def run_pair():
            out = run_guest(qemu_args(
                FORK, 'tcg', 'q35,planes=2',
                f'test=bench-ports port={port} reads={reads}'))[1]
            last['allowed'] = field(out, 'allowed_ticks') / reads
            return field(out, 'dropped_ticks') / reads

        compare(f'tcg: {device} port read, plane 1 dropped vs plane 0',
                'ticks/read', 'plane 1 (dropped)', run_pair,
                'plane 0 (allowed)', lambda: last['allowed'], '<= 1.5')


def no_thp():
    """In the child: no transparent huge pages (PR_SET_THP_DISABLE)."""
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(41, 1, 0, 0, 0)


def rss_after_boot(planes):
    with tempfile.TemporaryDirectory() as tmp:
        serial = os.path.join(tmp, 'serial')
        args = qemu_args(FORK, 'tcg', f'q35,planes={planes}',
                         'test=hello halt=1')
        args[args.index('stdio')] = f'file:{serial}'
        # QEMU asks for huge pages for guest RAM and translated code, and
        # whether the host has them free decides RSS in 2 MiB steps: count
        # 4 KiB pages, so that planes are what the figures differ by.
        p = subprocess.Popen(args, preexec_fn=no_thp)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if os.path.exists(serial) and 'DONE' in open(serial).read():
                    break
                time.sleep(0.05)
            time.sleep(RSS_SETTLE_S)    # the guest halted: let QEMU go idle
            with open(f'/proc/{p.pid}/status') as f:
                kb = int(re.search(r'VmRSS:\s+(\d+)', f.read()).group(1))
        finally:
            p.kill()
            p.wait()
    return kb * 1024


def bench_memory():
    counts = [1, 2, 4, 16]
    rss = {n: [] for n in counts}
    for _ in range(REPS):
        for n in counts:
            rss[n].append(rss_after_boot(n))
    base, base_min = statistics.median(rss[1]), min(rss[1])
    for n in counts:
        med, spread = summary(rss[n])
        per = (med - base) / (n - 1) if n > 1 else 0
        rows.append({'measure': f'RSS after boot, planes={n}', 'unit': 'B',
                     'a': f'planes={n}', 'a_median': med,
                     'a_spread_pct': spread, 'b': 'planes=1',
                     'b_median': base, 'b_spread_pct': summary(rss[1])[1],
                     'ratio_a_b': med / base,
                     'ratio_best': min(rss[n]) / base_min,
                     'target': '<= 1 MiB + vCPU state per plane'})
        print(f'  RSS planes={n}: {med / 2**20:.1f} MiB (±{spread:.1f}%)'
              + (f', {per / 2**20:.2f} MiB per extra plane' if n > 1 else ''),
              flush=True)


def bench_build():
    plane_c = os.path.join(REPO, 'hw', 'planes', 'plane.c')
    times = []
    for _ in range(REPS):
        os.utime(plane_c)
        t0 = time.perf_counter()
        subprocess.run(['make', '-C', REPO], check=True,
                       capture_output=True)
        times.append(time.perf_counter() - t0)
    med, spread = summary(times)
    rows.append({'measure': 'incremental rebuild (touch hw/planes/plane.c)',
                 'unit': 's', 'a': 'make', 'a_median': med,
                 'a_spread_pct': spread, 'b': '', 'b_median': '',
                 'b_spread_pct': '', 'ratio_a_b': '', 'ratio_best': '',
                 'target': ''})
    print(f'  incremental rebuild: {med:.1f} s (±{spread:.1f}%)')
    if os.environ.get('BENCH_FRESH') == '1':
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(['git', 'clone', '-q', REPO, tmp], check=True)
            env = dict(os.environ, CCACHE_DISABLE='1')
            t0 = time.perf_counter()
            subprocess.run(['bash', '-c', './configure && make'], cwd=tmp,
                           env=env, check=True, capture_output=True)
            dt = time.perf_counter() - t0
        rows.append({'measure': 'fresh ./configure && make (no ccache)',
                     'unit': 's', 'a': 'clone', 'a_median': dt,
                     'a_spread_pct': 0, 'b': '', 'b_median': '',
                     'b_spread_pct': '', 'ratio_a_b': '', 'ratio_best': '',
                     'target': ''})
        print(f'  fresh ./configure && make: {dt:.0f} s')


def plot_latency(lat):
    """One histogram per case, in log-spaced bins of ticks per call."""
    png = os.path.join(OUT, 'vtl-latency.png')
    data = os.path.join(OUT, 'vtl-latency.dat')
    cases = [(case, sorted(v)) for case, v in lat.items() if v]
    if not cases:
        return
    low = max(1, min(v[0] for _, v in cases))
    top = max(v[int(len(v) * 0.99) - 1] for _, v in cases) * 1.5
    nbins = 60
    step = (top / low) ** (1 / nbins)
    edges = [low * step ** i for i in range(nbins + 1)]
    with open(data, 'w') as f:
        f.write('# ticks ' + ' '.join(c.replace(' ', '_') for c, _ in cases)
                + '\n')
        for i in range(nbins):
            pct = [100 * sum(edges[i] <= x < edges[i + 1] for x in v) / len(v)
                   for _, v in cases]
            f.write(f'{edges[i]:.0f} ' + ' '.join(f'{p:.2f}' for p in pct)
                    + '\n')
    if not shutil.which('gnuplot'):
        print('  (no gnuplot: install gnuplot-nox for the latency chart)')
        return
    plots = ', '.join(
        f'"{data}" using 1:{i + 2} with steps lw 2 '
        f'title "{case} (median {statistics.median(v):.0f})"'
        for i, (case, v) in enumerate(cases))
    script = f'''
set terminal png size 900,500
set output "{png}"
set title "VTL call round trip under TCG, per case (first {LAT_SAMPLES} calls of each, guest TSC)"
set xlabel "ticks per call (log scale; calls past the 99th percentile x 1.5 left out)"
set ylabel "% of calls"
set logscale x
set xrange [{low}:{top}]
plot {plots}
'''
    subprocess.run(['gnuplot'], input=script, text=True, check=True)
    print(f'  latency chart: {png}')


def main():
    os.makedirs(OUT, exist_ok=True)
    for path in (FORK, GUEST):
        if not os.path.exists(path):
            sys.exit(f'bench: {path} missing; run ./configure && make')
    have_stock = os.path.exists(STOCK)
    stock_version = (subprocess.run([STOCK, '--version'], capture_output=True,
                                    text=True).stdout.splitlines()[0]
                     if have_stock else 'missing')
    fork_version = subprocess.run([FORK, '--version'], capture_output=True,
                                  text=True).stdout.splitlines()[0]
    print(f'host:  {os.cpu_count()} CPUs\n'
          f'fork:  {fork_version}\nstock: {stock_version}\n'
          f'reps:  {REPS} (interleaved), timing: guest TSC ticks or host '
          f'wall seconds', flush=True)

    bad = [g for g in ONLY if g not in GROUPS]
    if bad:
        sys.exit(f'bench: BENCH_ONLY group {bad[0]!r} is none of '
                 f'{", ".join(GROUPS)}')
    if wanted('overhead'):
        bench_overhead(have_stock)
    if wanted('parked'):
        bench_parked_plane()
    lat = bench_vtl() if wanted('vtl') else {}
    if wanted('dropped'):
        bench_dropped_access()
    if wanted('memory'):
        bench_memory()
    if not SMOKE and wanted('build'):
        bench_build()
    if lat:
        plot_latency(lat)

    csv_path = os.path.join(OUT, 'bench.csv')
    with open(csv_path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)

    print(f'\n{"measure (medians)":52} {"a":>12} {"b":>12} {"a/b":>8} '
          f'{"best a/b":>8}  target')
    for r in rows:
        a, b = r['a_median'], r['b_median']
        ratio, best = r['ratio_a_b'], r['ratio_best']
        print(f'{r["measure"][:52]:52} {a:>12.4g} '
              + (f'{b:>12.4g} ' if b != '' else f'{"":>12} ')
              + (f'{ratio:>8.3f} ' if ratio != '' else f'{"":>8} ')
              + (f'{best:>8.3f}' if best != '' else f'{"":>8}')
              + f'  {r["target"]}')
    print(f'\nCSV: {csv_path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
