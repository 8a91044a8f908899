/* SPDX-License-Identifier: MIT */
/* The "vbe" method: the VESA BIOS mode and state of the boot VGA device, saved and restored
 * by calling the video BIOS in an emulator (vbe-emu.h). The payload layout is public so
 * tests can build malformed payloads. */
#pragma once

#include "methods/method.h"

extern const MethodOps method_vbe;

#define VBE_METHOD_ID 8
#define VBE_METHOD_VERSION 1

/* Payload, version 1 (little-endian):
 *   0  u16 VBE version (4F00)
 *   2  u16 mode number (4F03 BX without the linear frame buffer and keep-memory bits)
 *   4  u8  flags (VBE_FLAG_*)
 *   5  u8  0
 *   6  u16 state components saved (4F04 CX: bit 0 hardware, 1 BIOS data, 2 DAC, 3 SVGA)
 *   8  u16 width, 10 u16 height (pixels, or characters in a text mode), 12 u8 bits per pixel,
 *  13  u8  memory model, 14 u16 bytes per scan line, 16 u32 frame buffer address (4F01;
 *          all 0 for a mode 4F01 does not describe)
 *  20  u32 length of the state that follows
 *  24  the 4F04 state, as the BIOS saved it */
#define VBE_PAYLOAD_HEADER 24
#define VBE_STATE_MAX 0x8000u /* 4F04 sizes seen are well under 4 KiB */

#define VBE_FLAG_LFB 0x01u       /* the mode runs with its linear frame buffer (4F03 BX bit 14) */
#define VBE_FLAG_DPMS 0x02u      /* 4F10 answered: DPMS "on" is set after the restore */
#define VBE_FLAG_MODE_INFO 0x04u /* 4F01 described the mode (the geometry fields are set) */
#define VBE_FLAGS_KNOWN (VBE_FLAG_LFB | VBE_FLAG_DPMS | VBE_FLAG_MODE_INFO)

/* The mode set on restore before the saved one, so the BIOS programs the saved mode from a
 * known state even where it believes that mode is still set (FreeBSD's vesa driver sets its
 * initial mode first for the same reason): VGA mode 0x13, memory kept. Not text mode 3: a
 * text mode set loads the font into plane 2, which in the linear mode is the frame buffer's
 * first 32 KiB (measured in the vesafb-vbe vm case: the top 21 lines of 800x600x16 lost);
 * a graphics mode set that keeps memory writes none. */
#define VBE_BASE_MODE 0x0013u
