/* SPDX-License-Identifier: MIT */
/* The native "bochs" method: the Bochs VBE "dispi" mode registers (ports 0x1CE/0x1CF) of
 * QEMU's std VGA and VirtualBox's VBoxVGA. The payload layout is public so tests can build
 * malformed payloads. */
#pragma once

#include "methods/method.h"

extern const MethodOps method_bochs;

/* 6 is left to the video BIOS method (vbe), which comes after this one in the plan. */
#define BOCHS_METHOD_ID 7
#define BOCHS_METHOD_VERSION 1

/* Payload, version 1: the ten dispi registers 0 (ID) to 9 (Y_OFFSET) in register order,
 * each a little-endian 16-bit word, as read. */
#define BOCHS_PAYLOAD_SIZE 20
#define BOCHS_OFF(reg) (2 * (reg))
