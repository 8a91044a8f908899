/* SPDX-License-Identifier: MIT */
/* The command-line actions (everything but the daemon loop). Each returns an exit code
 * from exit-codes.h and logs its own messages. */
#pragma once

#include <stdbool.h>

#include "hw/hw.h"

typedef struct ActionArgs {
        const char *device;      /* --device SLOT, or NULL for all managed devices */
        const char *dump_file;   /* --dump FILE */
        const char *config_file; /* --config FILE, or NULL for the default search path */
        const char *quirks_dir;  /* --quirks-dir DIR, or NULL for the installed database */
        const char *root;        /* --root DIR (test/inspection prefix for sysfs and procfs), or NULL */
        bool json;               /* --json */
        bool no_console_switch;  /* --no-console-switch */
        bool log_level_set;      /* --log-level given: LogLevel= in the configuration is ignored */
        bool force;              /* --force: --test-restore also under a graphical session */
        uint64_t deadline_usec;  /* --deadline SEC for --test-restore, 0 = the default */
        const HwBackend *hw;     /* how devices are reached; main() chooses it */
} ActionArgs;

int action_status(const ActionArgs *a);
int action_save_now(const ActionArgs *a);
int action_restore_now(const ActionArgs *a);
/* Saves, disturbs, restores and verifies now, without sleeping (see ENGINE_TEST), within
 * deadline_usec; what it saved is written back if it does not finish in time. */
#define ACTION_TEST_DEADLINE_DEFAULT_USEC (5u * 1000u * 1000u)
int action_test_restore(const ActionArgs *a);
int action_report(const ActionArgs *a);
int action_dump(const ActionArgs *a);
int action_check_config(const ActionArgs *a);
int action_quirks(const ActionArgs *a);
int action_daemon(const ActionArgs *a);
