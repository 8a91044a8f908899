/* SPDX-License-Identifier: MIT */
/* The running machine's virtual terminals and backlights: what hw.c calls when a backend
 * leaves the VT or backlight ops NULL. Same contracts as those ops (see hw.h). */
#pragma once

#include "hw/hw.h"

/* VT ioctls on /dev/tty0 (VT_GETSTATE, VT_OPENQRY, VT_ACTIVATE, KDGETMODE). A missing /dev/tty0 or a
 * kernel without VTs gives -ENOENT, a tty0 that is not a VT -ENOTTY. */
int hw_system_vt_get_active(Hw *hw, unsigned *ret);
int hw_system_vt_find_free(Hw *hw, unsigned *ret);
int hw_system_vt_activate(Hw *hw, unsigned vt);
/* KDGETMODE on /dev/tty0 (the active VT). */
int hw_system_vt_in_graphics(Hw *hw, bool *ret);

/* /sys/class/backlight/NAME/{brightness,max_brightness}. */
int hw_system_backlight_list(Hw *hw, HwBacklightName *names, size_t max);
int hw_system_backlight_read(Hw *hw, const char *name, uint32_t *ret_brightness, uint32_t *ret_max);
int hw_system_backlight_write(Hw *hw, const char *name, uint32_t brightness);

/* kernel.acpi_video_flags (ROOT/proc/sys/kernel/acpi_video_flags; root as in sysfs.h): the
 * video BIOS calls of the kernel's own ACPI S3 wakeup code (bit 0 s3_bios, bit 1 s3_mode).
 * Machine-wide, so no device handle. -ENOENT where the kernel has no such sysctl. */
int hw_system_acpi_video_flags_read(const char *root, unsigned *ret);
int hw_system_acpi_video_flags_write(const char *root, unsigned flags);
