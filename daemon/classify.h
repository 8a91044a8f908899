/* SPDX-License-Identifier: MIT */
/* Classification of display devices into kms / ums / firmware / foreign / unusable,
 * with a one-line reason each. Pure logic over ROOT-prefixed sysfs/procfs reads. */
#pragma once

#include <sys/types.h>

#include "devices.h"

typedef struct ClassifyEnv {
        const char *root; /* prefix for /sys and /proc; NULL = real root */
        uid_t euid;       /* effective uid the actions would run with */
        /* libdrm's drmCheckModesettingSupported() or a fake; NULL = not consulted.
         * Only meaningful on the real root, so callers set it only then. */
        int (*check_modesetting)(const char *busid);
        /* Whether this architecture reaches legacy VGA I/O (x86), or -1 = detect. */
        int legacy_io;
} ClassifyEnv;

/* Environment for the running system: real root, geteuid(), libdrm check. */
ClassifyEnv classify_env_default(const char *root);

/* Why the whole machine cannot be managed (lockdown, not root, no legacy I/O), or NULL.
 * The string is static or written to buf. */
const char *classify_machine_blocker(const ClassifyEnv *env, char *buf, size_t size);

/* Sets verdict, reason, needs_vga_arbiter and engine_slot for every device in l. A function
 * that is part of another function's display engine takes that function's verdict and
 * does not count as a display of its own for the VGA arbiter. */
void classify_devices(const ClassifyEnv *env, DeviceList *l);

/* The console in use, read from ROOT/proc/fb and ROOT/sys/class/vtconsole, e.g.
 * "vgacon", "vesafb", "efifb", "simpledrm", "vga16fb"; writes "" if none found. */
void classify_console(const char *root, char *buf, size_t size);
