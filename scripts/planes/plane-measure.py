#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Recomputes a VM plane's launch measurement offline, a verifier's view:
# from the files and options given to -object plane-launch (or the image
# plane 0 copies into its region before ACTIVATE), the SHA-256 that
# query-planes reports as launch-measurement.  The serialization is the
# one of docs/system/i386/planes.rst, "The launch measurement"; this
# script follows the document, not QEMU's code.

import argparse
import hashlib
import struct
import sys

MAGIC = b"qemu-planes-launch-v1"
PAGE = 0x1000
BOOT_STATE = 0x10000            # page tables .. cmdline, at the region's top
FORMATS = {"raw": 0, "bzimage": 1, "elf": 2}
# x86 boot registers (planes.rst, ACTIVATE)
CR0, CR4, EFER, RFLAGS, GDT_LIMIT = 0x80010031, 0x20, 0xd01, 0x2, 23


class Region:
    """The region's bytes below its boot state, as sparse pages."""

    def __init__(self, size):
        self.limit = size - BOOT_STATE
        self.pages = {}

    def write(self, offset, data):
        if offset + len(data) > self.limit:
            sys.exit(f"plane-measure: 0x{len(data):x} bytes at offset "
                     f"0x{offset:x} do not fit below the boot state "
                     f"(0x{self.limit:x})")
        while data:
            page, within = divmod(offset, PAGE)
            n = min(PAGE - within, len(data))
            buf = self.pages.setdefault(page, bytearray(PAGE))
            buf[within:within + n] = data[:n]
            offset, data = offset + n, data[n:]

    def nonzero_pages(self):
        for page in sorted(self.pages):
            if any(self.pages[page]):
                yield page * PAGE, bytes(self.pages[page])


def file_format(image):
    if image[:4] == b"\x7fELF":
        return "elf"
    if len(image) >= 0x210 and image[0x202:0x206] == b"HdrS" and \
            image[0x1fe:0x200] == b"\x55\xaa":
        return "bzimage"
    return "raw"


def load_elf(image, region):
    """PT_LOAD segments at the region's start plus p_paddr; the entry."""
    e_entry, e_phoff = struct.unpack_from("<QQ", image, 24)
    e_phnum, = struct.unpack_from("<H", image, 56)
    for i in range(e_phnum):
        ph = e_phoff + i * 56
        p_type, = struct.unpack_from("<I", image, ph)
        p_offset, _, p_paddr, p_filesz = struct.unpack_from("<QQQQ", image,
                                                            ph + 8)
        if p_type == 1:
            region.write(p_paddr, image[p_offset:p_offset + p_filesz])
    return e_entry


def bzimage_entry(image, base):
    """The 64-bit entry: 0x200 past the protected-mode code's start."""
    setup_sects = image[0x1f1] or 4
    return base + (setup_sects + 1) * 512 + 0x200


def measure(args):
    image = open(args.kernel, "rb").read()
    fmt = args.format or file_format(image)
    region = Region(args.size)
    top = args.base + args.size
    if fmt == "elf":
        entry = args.base + load_elf(image, region)
    else:
        region.write(0, image)
        entry = bzimage_entry(image, args.base) if fmt == "bzimage" else \
            args.base + args.entry_offset
    initrd_base = initrd_size = 0
    if args.initrd:
        initrd = open(args.initrd, "rb").read()
        offset = (args.size - BOOT_STATE - len(initrd)) & ~(PAGE - 1)
        region.write(offset, initrd)
        initrd_base, initrd_size = args.base + offset, len(initrd)
    cmdline = args.append.encode()

    h = hashlib.sha256()
    h.update(MAGIC)
    h.update(struct.pack("<IIQQQQI", args.plane, FORMATS[fmt], args.base,
                         args.size, initrd_base, initrd_size, len(cmdline)))
    h.update(cmdline)
    h.update(struct.pack("<10Q", entry, top, top - 0x2000, CR0,
                         top - BOOT_STATE, CR4, EFER, RFLAGS, top - 0x4000,
                         GDT_LIMIT))
    for offset, page in region.nonzero_pages():
        h.update(struct.pack("<Q", offset))
        h.update(page)
    return h.hexdigest()


def number(text):
    return int(text, 0)


def main():
    parser = argparse.ArgumentParser(
        description="Recompute a VM plane's launch measurement (SHA-256).")
    parser.add_argument("--kernel", required=True,
                        help="plane-launch's kernel= (or ACTIVATE's image)")
    parser.add_argument("--initrd", help="plane-launch's initrd=")
    parser.add_argument("--append", default="",
                        help="the command line (append=, or the config's)")
    parser.add_argument("--format", choices=sorted(FORMATS),
                        help="default: what the kernel file is")
    parser.add_argument("--base", type=number, required=True,
                        help="the region's base (query-planes region-base)")
    parser.add_argument("--size", type=number, required=True,
                        help="the region's size (query-planes region-size)")
    parser.add_argument("--entry-offset", type=number, default=0,
                        help="raw images: entry point minus base")
    parser.add_argument("--plane", type=number, default=1)
    print(measure(parser.parse_args()))


if __name__ == "__main__":
    main()
