/* SPDX-License-Identifier: MIT */
/* The Intel integrated display engines of Gen2-Gen5 (function 0, class 0x0300): their PCI
 * IDs, generation and the features that decide which display registers exist. */
#pragma once

#include "macro.h"

#define INTEL_VENDOR_ID 0x8086u

/* Features, after the predicates of the last UMS i915 (reference/intel-ums-registers.md,
 * section 1 "Predicates", and the device table of section 4). */
typedef enum IntelChipFlag {
        INTEL_CHIP_MOBILE = 1u << 0, /* IS_MOBILE: has LVDS (but the 830M) */
        INTEL_CHIP_830 = 1u << 1,    /* IS_I830: no LVDS register, no panel fitter */
        INTEL_CHIP_845 = 1u << 2,    /* IS_845G: no panel fitter */
        INTEL_CHIP_G4X = 1u << 3,    /* IS_G4X: DisplayPort ports and their M/N registers */
        INTEL_CHIP_PCH = 1u << 4,    /* Ironlake: PLLs, ports and panel in the PCH */
} IntelChipFlag;

typedef struct IntelChip {
        uint16_t device_id;
        uint8_t gen;   /* 2..5 */
        uint8_t flags; /* IntelChipFlag */
        const char *name;
} IntelChip;

/* The chip for vendor:device, or NULL when it is not a Gen2-Gen5 display engine. */
const IntelChip *intel_chip_lookup(uint16_t vendor_id, uint16_t device_id);
