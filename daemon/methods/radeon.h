/* SPDX-License-Identifier: MIT */
/* The native "radeon" method: CRTC enable and sync bits, DAC power and the LVDS panel's
 * power and backlight of ATI Radeons with the pre-AVIVO display block (R100 to R400 class:
 * R100, RV100, RS100, RV200, RS200, R200, RV250, RS300, RV280, R300, R350, RV350, RV380,
 * R420, R423, RV410, RS400, RS480) over the register BAR (BAR2). R500 (RV515, R520, ...)
 * and later drive panels through AVIVO registers and are not claimed. The payload layout
 * and the register slots are public for tests. */
#pragma once

#include "methods/method.h"

extern const MethodOps method_radeon;

/* 1-5 are the first methods, 6 intel, 7 bochs, 8 vbe. */
#define RADEON_METHOD_ID 9
#define RADEON_METHOD_VERSION 1

#define RADEON_VENDOR_ID 0x1002u
/* The register aperture (radeontool looked for the small memory region; the Linux radeon
 * driver maps BAR2 as rmmio on these families). */
#define RADEON_MMIO_BAR 2u
#define RADEON_MMIO_MIN_SIZE 0x4000u /* 16 KiB: every register below lies in it */

/* Register offsets in the aperture (radeon_reg.h of the Linux radeon driver and of
 * xf86-video-ati; radeontool's LVDS_GEN_CNTL). */
#define RADEON_CRTC_GEN_CNTL 0x0050u
#define RADEON_CRTC_EXT_CNTL 0x0054u
#define RADEON_DAC_CNTL 0x0058u
#define RADEON_LVDS_GEN_CNTL 0x02d0u
#define RADEON_LVDS_PLL_CNTL 0x02d4u

/* Bits the method acts on. */
#define RADEON_CRTC_EN (1u << 25)              /* CRTC_GEN_CNTL: the primary CRTC runs */
#define RADEON_CRTC_EXT_DISP_EN (1u << 24)     /* CRTC_GEN_CNTL: extended (non-VGA) mode */
#define RADEON_CRTC_HSYNC_DIS (1u << 8)        /* CRTC_EXT_CNTL: the DPMS bits */
#define RADEON_CRTC_VSYNC_DIS (1u << 9)
#define RADEON_CRTC_DISPLAY_DIS (1u << 10)
#define RADEON_CRTC_CRT_ON (1u << 15)          /* CRTC_EXT_CNTL: the CRTC feeds the CRT DAC */
#define RADEON_DAC_CMP_OUTPUT (1u << 7)        /* DAC_CNTL: monitor sense, read-only */
#define RADEON_DAC_8BIT_EN (1u << 8)
#define RADEON_DAC_PDWN (1u << 15)             /* DAC_CNTL: the primary DAC is powered down */
#define RADEON_LVDS_ON (1u << 0)               /* LVDS_GEN_CNTL: what `radeontool light` flips */
#define RADEON_LVDS_DISPLAY_DIS (1u << 1)
#define RADEON_LVDS_EN (1u << 7)
#define RADEON_LVDS_DIGON (1u << 18)           /* panel digital power */
#define RADEON_LVDS_BLON (1u << 19)            /* panel backlight */
#define RADEON_LVDS_PLL_EN (1u << 16)          /* LVDS_PLL_CNTL */
#define RADEON_LVDS_PLL_RESET (1u << 17)

/* The register slots of the payload, in payload order. The LVDS slots exist only on chips
 * with a panel interface (mobility and IGP parts); elsewhere they are saved as 0 and never
 * read or written. */
enum {
        RADEON_REG_CRTC_GEN_CNTL,
        RADEON_REG_CRTC_EXT_CNTL,
        RADEON_REG_DAC_CNTL,
        RADEON_REG_LVDS_PLL_CNTL,
        RADEON_REG_LVDS_GEN_CNTL,
        RADEON_REG_COUNT,
};

/* Payload, version 1 (little endian, no padding):
 *   u16  device_id     the PCI device ID it was saved from (vendor 0x1002)
 *   u8   flags         RADEON_FLAG_* (no other bits); LVDS iff the chip has a panel interface
 *   u8   reserved      0
 *   u32  regs[RADEON_REG_COUNT]   absent slots 0 */
#define RADEON_FLAG_LVDS 0x01u
#define RADEON_FLAGS_KNOWN RADEON_FLAG_LVDS
#define RADEON_OFF_DEVICE 0
#define RADEON_OFF_FLAGS 2
#define RADEON_OFF_RESERVED 3
#define RADEON_OFF_REGS 4
#define RADEON_PAYLOAD_SIZE (RADEON_OFF_REGS + 4 * RADEON_REG_COUNT)

/* Waits (fixed, bounded; the simulator counts them). The LVDS PLL is held in reset this long
 * after it is enabled, as the Linux radeon driver's legacy LVDS code does; the panel gets its
 * power-up time between digital power and backlight (the panel's T2, which the BIOS tables
 * give per panel: this is a bound on common panels, not a measured value). */
#define RADEON_LVDS_PLL_SETTLE_US 1000u
#define RADEON_PANEL_POWER_UP_US 50000u

typedef struct RadeonChip {
        uint16_t device_id;
        bool lvds; /* has a panel interface (RADEON_IS_MOBILITY or an IGP in the Linux table) */
        const char *family;
        const char *name;
} RadeonChip;

/* The chip the method claims for d (vendor 0x1002, a pre-AVIVO family, function 0, class
 * 0x0300), else NULL. */
const RadeonChip *radeon_method_chip(const DisplayDevice *d);
const RadeonChip *radeon_chip_lookup(uint16_t vendor_id, uint16_t device_id);
const char *radeon_reg_name(unsigned slot);
uint32_t radeon_reg_offset(unsigned slot);
