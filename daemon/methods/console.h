/* SPDX-License-Identifier: MIT */
/* The "console" method: before sleep, move to a spare VT; after the hardware restore, move
 * back, so that the kernel (and an X server in UMS mode, on EnterVT) redraws onto working
 * hardware. The payload layout is public so tests can build malformed payloads. */
#pragma once

#include "methods/method.h"

extern const MethodOps method_console;

#define CONSOLE_METHOD_ID 3
#define CONSOLE_METHOD_VERSION 1

/* Payload, version 1: two bytes, each a VT number 1..63, and not the same VT.
 *   u8 original   the VT active before sleep: restore switches back to it
 *   u8 spare      the free VT save moved to */
#define CONSOLE_OFF_ORIGINAL 0
#define CONSOLE_OFF_SPARE 1
#define CONSOLE_PAYLOAD_SIZE 2
