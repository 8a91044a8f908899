/* SPDX-License-Identifier: MIT */
/* The runtime directory (/run/umsrestore): the one owner of it. It is created and opened
 * once, checked, and every file in it is reached with openat() on that handle. */
#pragma once

#include <sys/types.h>

#include "macro.h"

typedef struct RunDir {
        int fd;     /* O_DIRECTORY | O_NOFOLLOW handle */
        char *path; /* for messages only */
        uid_t uid;  /* the required owner of the directory and of every state file in it */
} RunDir;

/* Opens path (creating it 0700, and missing parents 0755, when create is set) and refuses a
 * symlink, anything but a directory, a directory not owned by uid, and one that group or
 * others may write to. On a refusal returns a negative errno and, if ret_error is not NULL,
 * a malloc'ed one-line message that names the directory and the fix:
 *   -ENOTDIR  not a directory, or a symlink
 *   -EPERM    owned by another uid
 *   -EACCES   group or others may write to it (or, from the kernel, no permission)
 * -ENOENT when it does not exist and create is false. */
int rundir_open(const char *path, uid_t uid, bool create, RunDir **ret, char **ret_error);
RunDir *rundir_free(RunDir *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(RunDir *, rundir_free);

/* The one-at-a-time lock "lock", shared by the daemon's passes, the hooks and manual calls:
 * waits up to timeout_usec (polled every 20 ms). Returns the lock fd, -EBUSY when the bound
 * passed, or another negative errno. The lock lives as long as the fd stays open. */
int rundir_lock(const RunDir *d, uint64_t timeout_usec);

/* Whether someone holds "lock" right now, without taking it: > 0 held, 0 free. */
int rundir_lock_is_held(const RunDir *d);

/* The daemon's lifetime lock "daemon.lock" (exclusive, no wait): hooks see from it that
 * the daemon handles sleeps. Returns the fd, -EBUSY if another daemon holds it. */
int rundir_daemon_lock(const RunDir *d);

/* Whether "daemon.lock" is held by someone: > 0 held, 0 free. */
int rundir_daemon_lock_is_held(const RunDir *d);

/* Removes the leftovers of writes that never finished (NAME.tmp-<16 hex digits>, left by a
 * crash or a killed pass). Call it only under the run lock, so that no write is under way.
 * Returns the number removed. */
int rundir_sweep_temp(const RunDir *d);


/* Opens name in the directory for reading without blocking (a FIFO planted there cannot
 * hang the caller) and refuses anything but a regular file (-EBADFD) and symlinks (-ELOOP). */
int rundir_open_regular(const RunDir *d, const char *name, int *ret_fd);
