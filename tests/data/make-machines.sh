#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the fake machines under tests/data/machines/: sysfs/procfs trees that discovery
# and classify read through a root prefix. Run it after changing this file and commit the
# result; tests/unit/test-classify.c reads the trees and each machine's "expected" file
# (slot|verdict|reason, exact).
set -eu
cd "$(dirname "$0")"
rm -rf machines
mkdir machines

# dev MACHINE SLOT VENDOR DEVICE CLASS [DRIVER [BOOT_VGA]]
dev() {
    m=$1 slot=$2 vendor=$3 device=$4 class=$5 driver=${6:-} boot=${7:-1}
    d=machines/$m/sys/bus/pci/devices/$slot
    mkdir -p "$d"
    echo "$vendor" >"$d/vendor"
    echo "$device" >"$d/device"
    echo "$class" >"$d/class"
    echo 0x1af4 >"$d/subsystem_vendor"
    echo 0x1100 >"$d/subsystem_device"
    echo 0x02 >"$d/revision"
    echo "$boot" >"$d/boot_vga"
    if [ -n "$driver" ]; then
        mkdir -p "machines/$m/sys/bus/pci/drivers/$driver"
        ln -s "../../../bus/pci/drivers/$driver" "$d/driver"
    fi
}
# card MACHINE SLOT CARD [CONNECTOR...]
card() {
    m=$1 slot=$2 c=$3; shift 3
    d=machines/$m/sys/bus/pci/devices/$slot/drm/$c
    mkdir -p "$d"
    echo "$c" >"$d/.keep"
    for conn in "$@"; do mkdir -p "$d/$c-$conn"; echo "$conn" >"$d/$c-$conn/status"; done
}
cmdline() { mkdir -p "machines/$1/proc"; echo "$2" >"machines/$1/proc/cmdline"; }
fb() { mkdir -p "machines/$1/proc"; echo "$2" >"machines/$1/proc/fb"; }
vgacon() { mkdir -p "machines/$1/sys/class/vtconsole/vtcon0"; echo "(S) VGA+" >"machines/$1/sys/class/vtconsole/vtcon0/name"; }
uefi() { mkdir -p "machines/$1/sys/firmware/efi"; echo 64 >"machines/$1/sys/firmware/efi/fw_platform_size"; }
lockdown() { mkdir -p "machines/$1/sys/kernel/security"; echo "$2" >"machines/$1/sys/kernel/security/lockdown"; }
# dmi MACHINE SYS_VENDOR PRODUCT_NAME PRODUCT_VERSION BOARD_VENDOR BOARD_NAME BOARD_VERSION
#     BIOS_VENDOR BIOS_VERSION BIOS_DATE: /sys/class/dmi/id with the modalias the kernel builds
# from the same fields (dmi_id.c: each field without spaces and colons).
dmi() {
    d=machines/$1/sys/class/dmi/id
    mkdir -p "$d"
    printf '%s\n' "$2" >"$d/sys_vendor"; printf '%s\n' "$3" >"$d/product_name"
    printf '%s\n' "$4" >"$d/product_version"; printf '%s\n' "$5" >"$d/board_vendor"
    printf '%s\n' "$6" >"$d/board_name"; printf '%s\n' "$7" >"$d/board_version"
    printf '%s\n' "$8" >"$d/bios_vendor"; printf '%s\n' "$9" >"$d/bios_version"
    printf '%s\n' "${10}" >"$d/bios_date"
    squash() { printf '%s' "$1" | tr -d ' :'; }
    printf 'dmi:bvn%s:bvr%s:bd%s:svn%s:pn%s:pvr%s:rvn%s:rn%s:rvr%s:cvn%s:ct10:cvr%s:\n' \
        "$(squash "$8")" "$(squash "$9")" "$(squash "${10}")" "$(squash "$2")" "$(squash "$3")" \
        "$(squash "$4")" "$(squash "$5")" "$(squash "$6")" "$(squash "$7")" "$(squash "$2")" \
        "$(squash "$4")" >"$d/modalias"
}
expect() { printf '%s\n' "$2" >>"machines/$1/expected"; }
base() { mkdir -p "machines/$1/proc" "machines/$1/sys/bus/pci/devices"; : >"machines/$1/expected"; cmdline "$1" "${2:-root=/dev/sda1 quiet}"; }

base stdvga-bochs-kms
dev stdvga-bochs-kms 0000:00:02.0 0x1234 0x1111 0x030000 bochs-drm
card stdvga-bochs-kms 0000:00:02.0 card0 Virtual-1
fb stdvga-bochs-kms "0 bochs-drmdrmfb"
expect stdvga-bochs-kms "0000:00:02.0|kms|bochs-drm drives it with kernel mode setting (card0, 1 connector); the kernel restores it"

base cirrus-nodriver
dev cirrus-nodriver 0000:00:02.0 0x1013 0x00b8 0x030000
vgacon cirrus-nodriver
expect cirrus-nodriver "0000:00:02.0|firmware|no kernel driver, console on vgacon; nothing in the kernel restores the display"

base i945-ums "root=/dev/sda1 i915.modeset=0"
dev i945-ums 0000:00:02.0 0x8086 0x27ae 0x030000 i915
card i945-ums 0000:00:02.0 card0
vgacon i945-ums
expect i945-ums "0000:00:02.0|ums|i915 is bound without modesetting (modeset=0 / nomodeset); nothing in the kernel restores the display"

# MSI Wind U100: 945GSE with its second function (00:02.1, class 0x0380, no driver of its
# own), i915 bound without modesetting. The second function belongs to function 0's engine.
base msi-wind-u100 "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet i915.modeset=0"
dev msi-wind-u100 0000:00:02.0 0x8086 0x27ae 0x030000 i915
card msi-wind-u100 0000:00:02.0 card0
dev msi-wind-u100 0000:00:02.1 0x8086 0x27a6 0x038000 "" 0
vgacon msi-wind-u100
dmi msi-wind-u100 "MICRO-STAR INTERNATIONAL CO., LTD" "U-100" "Ver.001" "MICRO-STAR INTERNATIONAL CO., LTD" \
    "U-100" "Ver.001" "Phoenix Technologies, LTD" "1.0E" "06/05/2008"
expect msi-wind-u100 "0000:00:02.0|ums|i915 is bound without modesetting (modeset=0 / nomodeset); nothing in the kernel restores the display"
expect msi-wind-u100 "0000:00:02.1|ums|part of the display engine of 0000:00:02.0 (function 0), not a display of its own; only its PCI config is saved"

# The same engine under KMS: its second function is left alone with it.
base i945-kms-second-function
dev i945-kms-second-function 0000:00:02.0 0x8086 0x27ae 0x030000 i915
card i945-kms-second-function 0000:00:02.0 card0 LVDS-1 VGA-1
dev i945-kms-second-function 0000:00:02.1 0x8086 0x27a6 0x038000 "" 0
fb i945-kms-second-function "0 i915drmfb"
expect i945-kms-second-function "0000:00:02.0|kms|i915 drives it with kernel mode setting (card0, 2 connectors); the kernel restores it"
expect i945-kms-second-function "0000:00:02.1|kms|part of the display engine of 0000:00:02.0, which is kms; left alone"

base nomodeset-simpledrm "root=/dev/sda1 nomodeset"
dev nomodeset-simpledrm 0000:00:02.0 0x8086 0x0046 0x030000
mkdir -p machines/nomodeset-simpledrm/sys/devices/platform/simple-framebuffer.0/drm/card0/card0-Unknown-1
fb nomodeset-simpledrm "0 simpledrmdrmfb"
expect nomodeset-simpledrm "0000:00:02.0|firmware|no kernel driver, console on simpledrm; nothing in the kernel restores the display"

base efifb
dev efifb 0000:00:02.0 0x1002 0x9802 0x030000
fb efifb "0 EFI VGA"
uefi efifb
expect efifb "0000:00:02.0|firmware|no kernel driver, console on efifb; nothing in the kernel restores the display"

base vesafb "root=/dev/sda1 vga=0x314"
dev vesafb 0000:00:02.0 0x1234 0x1111 0x030000
fb vesafb "0 VESA VGA"
expect vesafb "0000:00:02.0|firmware|no kernel driver, console on vesafb; nothing in the kernel restores the display"

# A VESA mode on a chip without a native method for it: only the video BIOS brings it back.
base cirrus-vesafb "root=/dev/sda1 vga=0x314"
dev cirrus-vesafb 0000:00:02.0 0x1013 0x00b8 0x030000
fb cirrus-vesafb "0 VESA VGA"
expect cirrus-vesafb "0000:00:02.0|firmware|no kernel driver, console on vesafb; nothing in the kernel restores the display"

base two-gpus
dev two-gpus 0000:00:02.0 0x8086 0x0046 0x030000 i915 1
card two-gpus 0000:00:02.0 card0 eDP-1 HDMI-A-1
dev two-gpus 0000:01:00.0 0x1002 0x68e0 0x030000 "" 0
fb two-gpus "0 i915drmfb"
expect two-gpus "0000:00:02.0|kms|i915 drives it with kernel mode setting (card0, 2 connectors); the kernel restores it"
expect two-gpus "0000:01:00.0|firmware|no kernel driver, not the boot VGA device (legacy VGA through the VGA arbiter); nothing in the kernel restores the display"

base two-gpus-none-kms
dev two-gpus-none-kms 0000:00:02.0 0x8086 0x27ae 0x030000 "" 1
dev two-gpus-none-kms 0000:01:00.0 0x1002 0x68e0 0x030000 "" 0
fb two-gpus-none-kms "0 matroxfb"
expect two-gpus-none-kms "0000:00:02.0|firmware|no kernel driver, console on framebuffer 'matroxfb'; nothing in the kernel restores the display"
expect two-gpus-none-kms "0000:01:00.0|firmware|no kernel driver, not the boot VGA device (legacy VGA through the VGA arbiter); nothing in the kernel restores the display"

base vfio
dev vfio 0000:01:00.0 0x10de 0x1c82 0x030000 vfio-pci 0
expect vfio "0000:01:00.0|foreign|bound to vfio-pci, which suspends the device itself; left alone"

base nvidia
dev nvidia 0000:01:00.0 0x10de 0x1c82 0x030000 nvidia 1
expect nvidia "0000:01:00.0|foreign|bound to nvidia, which suspends the device itself; left alone"

base lockdown
dev lockdown 0000:00:02.0 0x1234 0x1111 0x030000
vgacon lockdown
lockdown lockdown "none [integrity] confidentiality"
expect lockdown "0000:00:02.0|unusable|no kernel driver, but kernel lockdown (integrity) forbids port I/O and /dev/mem; boot with lockdown=none or a KMS driver"

base no-gpu
dev no-gpu 0000:00:03.0 0x1af4 0x1000 0x020000 virtio-pci 0

base stdvga-vgacon
dev stdvga-vgacon 0000:00:02.0 0x1234 0x1111 0x030000
vgacon stdvga-vgacon
expect stdvga-vgacon "0000:00:02.0|firmware|no kernel driver, console on vgacon; nothing in the kernel restores the display"

base unknown-driver
dev unknown-driver 0000:00:02.0 0x1234 0x1111 0x030000 some-vendor-fb
expect unknown-driver "0000:00:02.0|foreign|bound to some-vendor-fb, a driver umsrestore does not know; left alone (unbind it or report it to have it supported)"

# A Radeon Mobility M6 (RV100, 1002:4c59) laptop without a KMS driver: text console on
# vgacon; the radeon method is planned for its panel and DAC.
base radeon-m6-vgacon
dev radeon-m6-vgacon 0000:01:00.0 0x1002 0x4c59 0x030000
vgacon radeon-m6-vgacon
expect radeon-m6-vgacon "0000:01:00.0|firmware|no kernel driver, console on vgacon; nothing in the kernel restores the display"

# The same laptop with the radeon KMS driver: handed off, never touched.
base radeon-m6-kms
dev radeon-m6-kms 0000:01:00.0 0x1002 0x4c59 0x030000 radeon
card radeon-m6-kms 0000:01:00.0 card0 LVDS-1 VGA-1
fb radeon-m6-kms "0 radeondrmfb"
expect radeon-m6-kms "0000:01:00.0|kms|radeon drives it with kernel mode setting (card0, 2 connectors); the kernel restores it"

# An NVIDIA card (GeForce FX 5200, 10de:0322) with no kernel driver: vgacon, the native VGA
# path (nouveau's UMS era has no native method here).
base nvidia-nodriver
dev nvidia-nodriver 0000:01:00.0 0x10de 0x0322 0x030000
vgacon nvidia-nodriver
expect nvidia-nodriver "0000:01:00.0|firmware|no kernel driver, console on vgacon; nothing in the kernel restores the display"

# The same card with nouveau's kernel mode setting: handed off.
base nvidia-nouveau-kms
dev nvidia-nouveau-kms 0000:01:00.0 0x10de 0x0322 0x030000 nouveau
card nvidia-nouveau-kms 0000:01:00.0 card0 VGA-1
fb nvidia-nouveau-kms "0 nouveaudrmfb"
expect nvidia-nouveau-kms "0000:01:00.0|kms|nouveau drives it with kernel mode setting (card0, 1 connector); the kernel restores it"
