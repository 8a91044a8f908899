/* SPDX-License-Identifier: MIT */
/* The "dpms" method: the screen is on after a restore (sequencer screen-off bit clear,
 * CRTC sync enabled), whatever it was at save. The payload layout is public for tests. */
#pragma once

#include "methods/method.h"

extern const MethodOps method_dpms;

#define DPMS_METHOD_ID 4
#define DPMS_METHOD_VERSION 1

/* Payload, version 1: one byte of flags saying what save found. No other bit may be set.
 * Restore does not take its values from here: it only ever turns the screen on. */
#define DPMS_FOUND_SCREEN_OFF 0x01u   /* SR01 bit 5 (screen off) was set */
#define DPMS_FOUND_SYNC_ENABLED 0x02u /* CR17 bit 7 (sync enable) was set */
#define DPMS_FLAGS_KNOWN (DPMS_FOUND_SCREEN_OFF | DPMS_FOUND_SYNC_ENABLED)
#define DPMS_PAYLOAD_SIZE 1
