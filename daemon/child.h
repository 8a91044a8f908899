/* SPDX-License-Identifier: MIT */
/* Bounded work in a child process: the caller can always stop it, since a blocked port
 * read or a hung BIOS call cannot be interrupted from inside. */
#pragma once

#include <sys/types.h>

#include "macro.h"

typedef int (*ChildFunc)(void *userdata);

/* Forks; the child keeps only stdin/stdout/stderr and keep_fd (-1 for none) open — no
 * inherited lock, inhibitor or bus fd can outlive the parent in it —, gets the default
 * signal mask and dispositions, runs func and _exit()s with its return value (an exit
 * code). Returns the child's pid in *ret_pid. */
int child_spawn(ChildFunc func, void *userdata, int keep_fd, pid_t *ret_pid);

/* Waits for pid at most timeout_usec. Returns its exit code (>= 0; 128 + N when killed by
 * signal N) or -ETIMEDOUT after killing it with SIGKILL and reaping it. */
int child_wait(pid_t pid, uint64_t timeout_usec);

/* child_spawn() + child_wait(). */
int child_run_bounded(ChildFunc func, void *userdata, int keep_fd, uint64_t timeout_usec);
