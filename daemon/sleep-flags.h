/* SPDX-License-Identifier: MIT */
/* The machine-wide step of a pass: kernel.acpi_video_flags as the quirks ask (ACPIVideoFlags=),
 * written before sleep and put back after; the value found is kept in the run directory so
 * that a restore in another process (the hooks, --restore-now) puts it back. */
#pragma once

#include "rundir.h"

/* The run directory's record of the value found before sleep. */
#define SLEEP_FLAGS_RECORD "acpi_video_flags.saved"

typedef struct SleepFlagsResult {
        bool acted;        /* flags were written (set before sleep, or put back after) */
        int r;             /* 0, or why it could not: -ENOENT = the kernel has no such sysctl */
        unsigned value;    /* what was written */
        unsigned previous; /* what the sysctl held before */
} SleepFlagsResult;

/* Before sleep: flags (QUIRK_ACPI_* bits) 0 does nothing. Else records the current value
 * (unless a record of an earlier sleep that was never put back exists: that one is the
 * machine's own) and writes flags. root as in sysfs.h. */
void sleep_flags_apply(const char *root, const RunDir *d, unsigned flags, SleepFlagsResult *ret);

/* After sleep (or when a save is rolled back): writes the recorded value back and removes
 * the record; nothing without a record. */
void sleep_flags_reset(const char *root, const RunDir *d, SleepFlagsResult *ret);
