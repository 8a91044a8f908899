/* SPDX-License-Identifier: MIT */
/* The native "vga" method: standard VGA registers, DAC and the four video memory planes.
 * The payload layout is public so tests can build malformed payloads. */
#pragma once

#include "methods/method.h"

extern const MethodOps method_vga;

#define VGA_METHOD_ID 1
#define VGA_METHOD_VERSION 1

#define VGA_SR_COUNT 5
#define VGA_CR_COUNT 25
#define VGA_GR_COUNT 9
#define VGA_AR_COUNT 21
#define VGA_PALETTE_SIZE (256 * 3)
#define VGA_PLANE_COUNT 4
#define VGA_PLANE_SIZE 0x10000u

/* Payload flags (byte 0). No other bit may be set; PLANES and DISPI exclude each other. */
#define VGA_FLAG_PLANES 0x01u /* the four planes follow the registers */
#define VGA_FLAG_DISPI 0x02u  /* saved in a Bochs dispi (VBE) mode: planes deliberately not saved */
#define VGA_FLAGS_KNOWN (VGA_FLAG_PLANES | VGA_FLAG_DISPI)

/* Payload layout, version 1 (all single bytes, no padding). */
#define VGA_OFF_FLAGS 0
#define VGA_OFF_MSR 1
#define VGA_OFF_AR_INDEX 2 /* attribute index as found at save (bit 5 = PAS) */
#define VGA_OFF_DAC_MASK 3 /* as read; 0x00 is never written back */
#define VGA_OFF_SR 4
#define VGA_OFF_CR (VGA_OFF_SR + VGA_SR_COUNT)
#define VGA_OFF_GR (VGA_OFF_CR + VGA_CR_COUNT)
#define VGA_OFF_AR (VGA_OFF_GR + VGA_GR_COUNT)
#define VGA_OFF_PALETTE (VGA_OFF_AR + VGA_AR_COUNT)
#define VGA_PAYLOAD_REGS_SIZE (VGA_OFF_PALETTE + VGA_PALETTE_SIZE) /* 832 */
#define VGA_OFF_PLANES VGA_PAYLOAD_REGS_SIZE
#define VGA_PAYLOAD_PLANES_SIZE (VGA_PLANE_COUNT * VGA_PLANE_SIZE)
#define VGA_PAYLOAD_FULL_SIZE (VGA_PAYLOAD_REGS_SIZE + VGA_PAYLOAD_PLANES_SIZE)
