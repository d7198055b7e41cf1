#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes the fuzzers' seed corpora: a few dozen inputs per target, from a
fixed pseudo-random sequence (so they are the same on every machine and
never need committing), of the lengths the decoders use."""

import os
import random
import sys


def main(out_dir, target):
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(f"qemu-planes-{target}")
    for i in range(48):
        n = rng.choice([8, 16, 32, 64, 128, 256, 512])
        data = bytes(rng.getrandbits(8) for _ in range(n))
        with open(os.path.join(out_dir, f"seed-{i:02d}"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
