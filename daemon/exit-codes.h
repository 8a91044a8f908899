/* SPDX-License-Identifier: MIT */
/* Exit codes of umsrestored, documented in umsrestored(8). Scripts and hooks rely on them. */
#pragma once

enum {
        UMS_EXIT_OK = 0,
        UMS_EXIT_FAILURE = 1,        /* generic failure; the message says what */
        UMS_EXIT_USAGE = 2,          /* bad command line */
        UMS_EXIT_NOTHING = 3,        /* nothing to manage (no device, all KMS): not an error for hooks */
        UMS_EXIT_NO_STATE = 4,       /* --restore-now: no saved state for the device */
        UMS_EXIT_BAD_STATE = 5,      /* state file refused (truncated, tampered, foreign, unsafe) */
        UMS_EXIT_BUSY = 6,           /* another umsrestored instance held the lock too long */
        UMS_EXIT_NOT_PERMITTED = 7,  /* not root, kernel lockdown, no legacy I/O */
        UMS_EXIT_CONFIG = 8,         /* configuration file error */
        UMS_EXIT_VERIFY = 9,         /* restore done but read-back differs */
        UMS_EXIT_PARTIAL = 10,       /* some devices done, others failed (each named in the log) */
        UMS_EXIT_TIMEOUT = 11,       /* did not finish within its deadline and was stopped */
        UMS_EXIT_UNAVAILABLE = 69,   /* action not implemented in this build (EX_UNAVAILABLE) */
};
