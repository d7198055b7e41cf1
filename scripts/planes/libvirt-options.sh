# SPDX-License-Identifier: GPL-2.0-or-later
# The meson options of qemu-planes' libvirt build, in one place (sourced by
# libvirt-build.sh; part of the build cache's key): the QEMU driver, the
# libvirtd daemon with the remote driver (virsh, migration over TCP), the
# XML schemas and the tests our golden files need; every other driver and
# optional library off, so the build is the same on every host.
planes_libvirt_options=(
    -Ddriver_qemu=enabled -Ddriver_libvirtd=enabled -Ddriver_remote=enabled
    -Djson_c=enabled -Dtests=enabled -Dexpensive_tests=disabled
    # The private test instances run QEMU as root under TCG.
    -Dqemu_user=root -Dqemu_group=root
    -Ddocs=disabled -Dnls=disabled -Dinit_script=none -Drpath=enabled
    -Dbash_completion=disabled -Dreadline=disabled -Dhost_validate=disabled
    -Dlogin_shell=disabled -Dnss=disabled -Dwireshark_dissector=disabled
    -Dlibnl=enabled -Dsysctl_config=disabled -Duserfaultfd_sysctl=disabled -Dpm_utils=disabled
    -Dssh_proxy=disabled -Ddtrace=disabled -Dnbdkit=disabled
    -Dnbdkit_config_default=disabled -Dfirewalld=disabled -Dfirewalld_zone=disabled
    -Dpolkit=disabled -Dsasl=disabled -Dlibssh=disabled -Dlibssh2=disabled
    -Dcurl=disabled -Daudit=disabled -Dnumactl=disabled -Dnumad=disabled
    -Dsanlock=disabled -Dudev=disabled -Dpciaccess=disabled
    -Dlibpcap=disabled -Dfuse=disabled -Dglusterfs=disabled -Dlibiscsi=disabled
    -Dopenwsman=disabled -Dnetcf=disabled -Dcapng=disabled -Dblkid=disabled
    -Dattr=disabled -Dapparmor=enabled -Dapparmor_profiles=disabled
    -Dselinux=disabled -Dsecdriver_apparmor=enabled -Dsecdriver_selinux=disabled
    -Ddriver_bhyve=disabled -Ddriver_esx=disabled -Ddriver_hyperv=disabled
    -Ddriver_interface=disabled -Ddriver_libxl=disabled -Ddriver_lxc=disabled
    -Ddriver_ch=disabled -Ddriver_network=disabled -Ddriver_openvz=disabled
    -Ddriver_secrets=disabled -Ddriver_test=disabled -Ddriver_vbox=disabled
    -Ddriver_vmware=disabled -Ddriver_vz=disabled
    -Dstorage_dir=disabled -Dstorage_disk=disabled -Dstorage_fs=disabled
    -Dstorage_gluster=disabled -Dstorage_iscsi=disabled
    -Dstorage_iscsi_direct=disabled -Dstorage_lvm=disabled -Dstorage_mpath=disabled
    -Dstorage_rbd=disabled -Dstorage_scsi=disabled -Dstorage_vstorage=disabled
    -Dstorage_zfs=disabled
)
