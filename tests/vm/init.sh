#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of the vm suite's initramfs: mounts the kernel file systems, then runs the command
# lines the host sends over the serial console, each in its own shell (a garbled line must
# not kill init), and ends each with a marker line carrying its exit code: "@@RC n@@".
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs tmpfs /tmp
# Kernel messages go to the serial console only (console=ttyS0); keep them to warnings so
# they rarely cut into command output.
echo 4 >/proc/sys/kernel/printk
# S3 ("deep"), not suspend-to-idle, so that QEMU really suspends and resets the VGA.
if [ -w /sys/power/mem_sleep ]; then echo deep >/sys/power/mem_sleep; fi
stty -F /dev/ttyS0 -echo
echo "@@READY@@ kernel $(uname -r), mem_sleep: $(cat /sys/power/mem_sleep 2>/dev/null)"
while :; do
        if ! IFS= read -r line; then
                sleep 1
                continue
        fi
        [ -n "$line" ] || continue
        /bin/sh -c "$line"
        echo "@@RC $?@@"
done </dev/ttyS0 >/dev/ttyS0 2>&1
