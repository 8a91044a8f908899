/* SPDX-License-Identifier: MIT */
/* The native "intel" method: the display registers of Intel Gen2-Gen4 integrated graphics
 * over the MMIO BAR. The payload layout and the register slots are public for tests. */
#pragma once

#include "intel-chips.h"
#include "methods/method.h"

extern const MethodOps method_intel;

#define INTEL_METHOD_ID 6
#define INTEL_METHOD_VERSION 1

/* The register slots of the payload, in payload order. Every slot has one fixed offset;
 * a slot the chip does not have (DPLL_A_MD before Gen4, LVDS on a desktop chip...) is
 * saved as 0 and never read or written. */
enum {
        INTEL_REG_DSPCLK_GATE_D,
        INTEL_REG_RENCLK_GATE_D1,
        INTEL_REG_RENCLK_GATE_D2,
        INTEL_REG_RAMCLK_GATE_D,
        INTEL_REG_D_STATE,
        INTEL_REG_DSPARB,
        INTEL_REG_VGA0,
        INTEL_REG_VGA1,
        INTEL_REG_VGA_PD,
        INTEL_REG_VGACNTRL,
        INTEL_REG_PIPE_A, /* INTEL_PIPE_REG_COUNT slots for pipe A, then as many for pipe B */
        INTEL_REG_CURSIZE = INTEL_REG_PIPE_A + 2 * 27,
        INTEL_REG_PFIT_PGM_RATIOS,
        INTEL_REG_PFIT_CONTROL,
        INTEL_REG_ADPA,
        INTEL_REG_DVOA,
        INTEL_REG_DVOB,
        INTEL_REG_DVOC,
        INTEL_REG_DP_B,
        INTEL_REG_DP_C,
        INTEL_REG_DP_D,
        INTEL_REG_LVDS,
        INTEL_REG_PP_ON_DELAYS,
        INTEL_REG_PP_OFF_DELAYS,
        INTEL_REG_PP_DIVISOR,
        INTEL_REG_PP_CONTROL,
        INTEL_REG_BLC_PWM_CTL2,
        INTEL_REG_BLC_PWM_CTL,
        INTEL_REG_BLC_HIST_CTL,
        INTEL_REG_SWF, /* 16 at 0x71410, 16 at 0x70410, 3 at 0x72414 */
        INTEL_REG_COUNT = INTEL_REG_SWF + 35,
};

/* The slots of one pipe, from INTEL_REG_PIPE_A (pipe 0) or INTEL_REG_PIPE_A + 27 (pipe 1). */
enum {
        INTEL_PIPE_FP0,
        INTEL_PIPE_FP1,
        INTEL_PIPE_DPLL,
        INTEL_PIPE_DPLL_MD,
        INTEL_PIPE_DATA_M,
        INTEL_PIPE_DATA_N,
        INTEL_PIPE_LINK_M,
        INTEL_PIPE_LINK_N,
        INTEL_PIPE_HTOTAL,
        INTEL_PIPE_HBLANK,
        INTEL_PIPE_HSYNC,
        INTEL_PIPE_VTOTAL,
        INTEL_PIPE_VBLANK,
        INTEL_PIPE_VSYNC,
        INTEL_PIPE_BCLRPAT,
        INTEL_PIPE_SRC,
        INTEL_PIPE_CONF,
        INTEL_PIPE_DSPCNTR,
        INTEL_PIPE_DSPADDR,
        INTEL_PIPE_DSPSTRIDE,
        INTEL_PIPE_DSPPOS,
        INTEL_PIPE_DSPSIZE,
        INTEL_PIPE_DSPSURF,
        INTEL_PIPE_DSPTILEOFF,
        INTEL_PIPE_CURCNTR,
        INTEL_PIPE_CURBASE,
        INTEL_PIPE_CURPOS,
        INTEL_PIPE_REG_COUNT,
};
#define INTEL_PIPE_REG(pipe, r) (INTEL_REG_PIPE_A + (pipe) * INTEL_PIPE_REG_COUNT + (r))

#define INTEL_PALETTE_ENTRIES 256

/* Payload, version 1 (little endian, no padding):
 *   u8   generation     2, 3 or 4: the chip's, from the device ID below
 *   u8   flags          INTEL_FLAG_* (no other bits)
 *   u16  device_id      the PCI device ID it was saved from (vendor 0x8086)
 *   u32  regs[INTEL_REG_COUNT]                     absent slots 0
 *   u32  palette[2][INTEL_PALETTE_ENTRIES]         pipe A, pipe B; 0 unless saved
 * A palette is saved only while its pipe's DPLL runs (the palette RAM is clocked by it). */
#define INTEL_FLAG_PALETTE_A 0x01u
#define INTEL_FLAG_PALETTE_B 0x02u
#define INTEL_FLAGS_KNOWN (INTEL_FLAG_PALETTE_A | INTEL_FLAG_PALETTE_B)
#define INTEL_OFF_GEN 0
#define INTEL_OFF_FLAGS 1
#define INTEL_OFF_DEVICE 2
#define INTEL_OFF_REGS 4
#define INTEL_OFF_PALETTE (INTEL_OFF_REGS + 4 * INTEL_REG_COUNT)
#define INTEL_PAYLOAD_SIZE (INTEL_OFF_PALETTE + 2 * 4 * INTEL_PALETTE_ENTRIES)

/* Registers read (never written) to follow the hardware. */
#define INTEL_PP_STATUS 0x61200u
#define INTEL_PIPEA_DSL 0x70000u /* scan line of pipe A; pipe B +0x1000 (Gen2/Gen3 liveness) */
#define INTEL_PALETTE_A 0x0A000u
#define INTEL_PALETTE_B 0x0A800u

/* Bounds of the waits (the simulator counts the delays). */
#define INTEL_PLL_SETTLE_US 150u           /* after each DPLL write, as the UMS kernel did */
#define INTEL_PIPE_TIMEOUT_US 100000u      /* a pipe starts or stops within a frame (>= 20 Hz) */
#define INTEL_PIPE_POLL_US 100u
#define INTEL_PANEL_TIMEOUT_US 5000000u    /* the panel power sequence, delays included */
#define INTEL_PANEL_POLL_US 10000u

/* The chip the method claims for d (Gen2-Gen4, function 0, class 0x0300), else NULL.
 * Ironlake (Gen5) is not claimed. */
const IntelChip *intel_method_chip(const DisplayDevice *d);
/* The MMIO BAR of a generation: BAR1 on Gen2, BAR0 on Gen3 and later. */
unsigned intel_mmio_bar(unsigned gen);
/* The name and MMIO offset of a slot, and whether a chip has it. */
const char *intel_reg_name(unsigned slot);
uint32_t intel_reg_offset(unsigned slot);
bool intel_reg_present(const IntelChip *chip, unsigned slot);
