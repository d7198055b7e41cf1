# SPDX-License-Identifier: GPL-2.0-or-later
# The devices qemu-planes builds (configure: --without-default-devices
# --with-devices-x86_64=planes).  QEMU's default.mak builds every x86 device
# QEMU has; the fork builds the two boards it supports, what they select,
# their own default devices, what a usual libvirt domain of a VBS VM asks
# for, and what the fork's tests use.  Anything else: add it here.

# The boards: -machine q35 and -machine pc (each selects its chipset,
# the ISA devices, AHCI or PIIX IDE, the APIC/IOAPIC and ACPI), and
# microvm, the x86 board without planes support that planes-test checks
# is refused.
CONFIG_Q35=y
CONFIG_I440FX=y
CONFIG_MICROVM=y

# What the boards imply by default: the default NICs (e1000e on q35,
# e1000 on pc), the default VGA, HPET (Linux's clocksource), the floppy
# of pc, vmport/vmmouse, and the IOMMUs q35 offers.
CONFIG_E1000E_PCI_EXPRESS=y
CONFIG_E1000_PCI=y
CONFIG_VGA_PCI=y
CONFIG_HPET=y
CONFIG_FDC_ISA=y
CONFIG_VMPORT=y
CONFIG_VMMOUSE=y
CONFIG_VTD=y
CONFIG_AMD_IOMMU=y
# Hyper-V enlightenments under KVM (VBS guests use them).
CONFIG_HYPERV=y

# A libvirt domain: PCIe root ports and expander buses, qemu-xhci (the
# default USB controller of a q35 domain), and the virtio devices.
CONFIG_PCIE_PORT=y
CONFIG_PXB=y
# pci_expander_bridge.c and the CXL core call into the CXL memory device
# whatever the config (upstream links them together).
CONFIG_CXL=y
CONFIG_CXL_MEM_DEVICE=y
CONFIG_USB_XHCI_PCI=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_VIRTIO_BLK=y
CONFIG_VIRTIO_SCSI=y
CONFIG_VIRTIO_SERIAL=y
CONFIG_VIRTIO_RNG=y
CONFIG_VIRTIO_BALLOON=y
CONFIG_VIRTIO_IOMMU=y

# The tests: isa-debug-exit (the test guests' exit code) and edu (a PCI
# device that does DMA, for the seal's DMA tests).
CONFIG_ISA_DEBUG=y
CONFIG_EDU=y
