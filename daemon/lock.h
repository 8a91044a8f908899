/* SPDX-License-Identifier: MIT */
/* The one-at-a-time lock: an flock on "<state_dir>/lock" shared by the daemon, the hooks
 * and manual calls, so two savers never interleave on a device. */
#pragma once

#include "macro.h"

/* Takes the lock, waiting up to timeout_usec. Returns the lock fd (>= 0), -EBUSY when the
 * bound passed, or another negative errno. Creates state_dir (0700) if needed. */
int run_lock_acquire(const char *state_dir, uint64_t timeout_usec);

/* Whether someone holds the lock right now (without taking it): > 0 held, 0 free. */
int run_lock_is_held(const char *state_dir);

/* The daemon's lifetime lock, "<state_dir>/daemon.lock": held (exclusive) while
 * umsrestored runs as the daemon, so hooks can tell it handles sleeps. Returns the fd,
 * -EBUSY if another daemon holds it, or a negative errno. */
int daemon_lock_acquire(const char *state_dir);
