/* SPDX-License-Identifier: MIT */
/* One save, restore or rollback pass under the run lock, as the CLI actions and the
 * daemon's child run it: engine results logged a line per device, turned into an exit code. */
#pragma once

#include "engine.h"

/* How long a pass waits for the run lock held by another umsrestored. */
#define PASS_LOCK_TIMEOUT_USEC (10u * 1000u * 1000u)
/* The rollback of a stopped save: it only switches a VT back. */
#define PASS_ROLLBACK_DEADLINE_USEC (5u * 1000u * 1000u)

/* The exit code (exit-codes.h) for a pass's results: OK, NOTHING (nothing to manage),
 * NOT_PERMITTED, PARTIAL (some devices done, others failed) or, when every device failed,
 * the first failure's code (NO_STATE, BAD_STATE, VERIFY or FAILURE). */
int pass_exit_code(EngineOp op, const EngineResult *res);

/* Logs one line per device (what was done, or why not) and a summary when devices failed. */
void pass_log_results(const EngineConfig *c, EngineOp op, const EngineResult *res);

/* Takes the run lock (waiting up to PASS_LOCK_TIMEOUT_USEC), removes what unfinished writes
 * left, lets the hardware backend begin, runs the engine, logs. Returns an exit code. */
int pass_run_locked(const EngineConfig *c, EngineOp op);

/* Starts pass_run_locked() in a child process that keeps no fd but stdio and the run
 * directory (see child_spawn()). */
int pass_spawn(const EngineConfig *c, EngineOp op, pid_t *ret_pid);

/* For the CLI: the pass in a child, stopped after deadline_usec. A save that had to be
 * stopped is followed by a bounded rollback pass (a VT switch it made is undone). Returns
 * an exit code; UMS_EXIT_TIMEOUT when stopped. */
int pass_run_bounded(const EngineConfig *c, EngineOp op, uint64_t deadline_usec);
