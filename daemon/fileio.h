/* SPDX-License-Identifier: MIT */
/* Opening files that must be regular: the one place that knows the flags (no symlink
 * follow, close-on-exec, no controlling tty, non-blocking) and the type check after open. */
#pragma once

#include <fcntl.h>
#include <sys/types.h>

#include "macro.h"

/* openat(dir_fd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, mode), then
 * refuses anything but a regular file (-EBADFD). Returns the fd. dir_fd may be AT_FDCWD.
 * Every file in the run directory, every state file given by path, every sysfs attribute
 * and backlight file is opened this way: a FIFO or a device node cannot hang the caller. */
int open_regular_at(int dir_fd, const char *name, int flags, mode_t mode);
