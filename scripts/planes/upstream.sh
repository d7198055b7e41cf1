# SPDX-License-Identifier: GPL-2.0-or-later
# The pinned upstream QEMU, in one place: sourced by configure's helpers
# (fetch-upstream.sh, setup-host.sh, assemble.sh, series-git.sh).  A rebase
# to the next release changes this file, the checksums and the series.
qemu_version=10.0.13
qemu_deb_version=1:10.0.13+ds-0+deb13u1
qemu_dsc=qemu_10.0.13+ds-0+deb13u1.dsc
qemu_dsc_sha256=a426c892e5369058c3423816c8625bc8010bb5a58ece57261f62b64ee4d765ad
qemu_orig=qemu_10.0.13+ds.orig.tar.xz
qemu_orig_sha256=6a0888e806c2ffc0c5f0733e974f9aea55491950d3c47c98669c8b236dde59ae
