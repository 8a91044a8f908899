/* SPDX-License-Identifier: MIT */
/* Small helpers to read sysfs-like files under a root prefix, so that discovery and
 * classify run on the real /sys as well as on a fake tree in tests. */
#pragma once

#include "macro.h"

/* All functions take a root prefix: NULL, "" or "/" mean the real root. path is
 * joined below root ("sys/bus/pci" and "/sys/bus/pci" are the same). */

/* The one check whether a --root prefix is the real machine: NULL, "", any run of "/", or
 * any path naming the same directory as "/". Everything that must never reach the real
 * machine's state from a fake tree (the simulator, fake state directories) asks this. */
bool root_is_real(const char *root);

/* ROOT/PATH as a malloc'ed string. -EINVAL for an empty path, -ENOMEM. */
int sysfs_path(const char *root, const char *path, char **ret);

/* The first line of ROOT/PATH without its trailing newline (an empty file gives "").
 * -ENOENT and other open/read errors as negative errno. */
int sysfs_read_line(const char *root, const char *path, char **ret);

/* The first line of ROOT/PATH as an unsigned 32-bit number: "0x..." hex or decimal,
 * surrounding whitespace ignored. -EINVAL if not a number, -ERANGE if too big. */
int sysfs_read_u32(const char *root, const char *path, uint32_t *ret);

/* The last component of the target of the symlink ROOT/PATH, e.g. the bound driver
 * from ".../driver" -> "../../../bus/pci/drivers/i915" gives "i915".
 * -ENOENT if missing, -EINVAL if not a symlink. */
int sysfs_readlink_basename(const char *root, const char *path, char **ret);

/* Whether ROOT/PATH exists (following symlinks). */
bool sysfs_exists(const char *root, const char *path);
