#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Sum up the meson test logs written by 'make check' into one closing line.

Counts TAP subtests (ok / not ok / # SKIP) of every test program that ran,
and a program that failed without TAP output as one failure.  Exit status
is non-zero when anything failed or nothing ran.
"""

import json
import os
import re
import sys

TAP = re.compile(r'^(not ok|ok)\b(.*)$', re.M)


def tap_file(path):
    """A plain TAP log (tests outside meson): counts like a meson test."""
    with open(path, encoding='utf-8') as f:
        out = f.read()
    results = TAP.findall(out)
    p = sum(1 for r, rest in results if r == 'ok' and '# SKIP' not in rest)
    s = sum(1 for r, rest in results if '# SKIP' in rest)
    f_ = sum(1 for r, rest in results if r == 'not ok')
    if 'Bail out!' in out or not results:
        f_ += 1
    print(f"  {os.path.basename(path)}: ({p} passed, {f_} failed, {s} skipped)")
    return p, f_, s


def main(paths):
    passed = failed = skipped = 0
    for path in paths:
        if path.endswith('.tap'):
            p, f_, s = tap_file(path)
            passed, failed, skipped = passed + p, failed + f_, skipped + s
            continue
        with open(path, encoding='utf-8') as f:
            for line in f:
                test = json.loads(line)
                out = test.get('stdout') or ''
                results = TAP.findall(out)
                p = sum(1 for r, rest in results
                        if r == 'ok' and '# SKIP' not in rest)
                s = sum(1 for r, rest in results if '# SKIP' in rest)
                f_ = sum(1 for r, rest in results if r == 'not ok')
                if test['result'] not in ('OK', 'SKIP', 'EXPECTEDFAIL') \
                        and f_ == 0:
                    f_ = 1
                if not results and test['result'] == 'OK':
                    p = 1
                if not results and test['result'] == 'SKIP':
                    s = 1
                passed, failed, skipped = passed + p, failed + f_, skipped + s
                print(f"  {test['name']}: {test['result']} "
                      f"({p} passed, {f_} failed, {s} skipped)")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
