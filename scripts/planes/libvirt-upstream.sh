# SPDX-License-Identifier: GPL-2.0-or-later
# The pinned upstream libvirt, in one place: sourced by libvirt-build.sh.
# Debian's libvirt 11.3.0 source package (trixie's deb-src entry, which
# setup-host.sh adds; bookworm-backports ships binaries of the same
# upstream release).  Only the upstream tarball is built (with our series,
# subprojects/packagefiles/libvirt-planes/), not Debian's packaging
# patches; its checksum is the one in Debian's signed Sources index.
libvirt_version=11.3.0
libvirt_deb_version=11.3.0-3+deb13u3
libvirt_dsc=libvirt_11.3.0-3+deb13u3.dsc
libvirt_dsc_sha256=d6ea37b45f24dc4f484e8c8e307b8b14266804fb2c69b091a84ad2b2fac6870b
libvirt_orig=libvirt_11.3.0.orig.tar.xz
libvirt_orig_sha256=6bcb0c42c4580436fea262ced56f68a6afe20f7390b1bea2116718cc034a0283
