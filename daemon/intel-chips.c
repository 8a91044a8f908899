/* SPDX-License-Identifier: MIT */
/* Owns the table of Intel Gen2-Gen5 integrated display engines by PCI device ID (from
 * reference/intel-ums-registers.md, section 4: the IDs the last UMS-capable i915 knew). */
#include "intel-chips.h"

#define MOBILE INTEL_CHIP_MOBILE

static const IntelChip intel_chips[] = {
        { 0x3577, 2, MOBILE | INTEL_CHIP_830, "830M" },
        { 0x2562, 2, INTEL_CHIP_845, "845G" },
        { 0x3582, 2, MOBILE, "852GM/855GM" },
        { 0x358e, 2, MOBILE, "854" },
        { 0x2572, 2, 0, "865G" },
        { 0x2582, 3, 0, "915G/910GL" },
        { 0x258a, 3, 0, "E7221" },
        { 0x2592, 3, MOBILE, "915GM/GMS" },
        { 0x2772, 3, 0, "945G/GZ" },
        { 0x27a2, 3, MOBILE, "945GM/GMS" },
        { 0x27ae, 3, MOBILE, "945GME/GSE" },
        { 0x29c2, 3, 0, "G33/G31" },
        { 0x29b2, 3, 0, "Q35" },
        { 0x29d2, 3, 0, "Q33" },
        { 0xa001, 3, MOBILE, "Pineview G" },
        { 0xa011, 3, MOBILE, "Pineview M" },
        { 0x2972, 4, 0, "946GZ/GL" },
        { 0x2982, 4, 0, "G35" },
        { 0x2992, 4, 0, "Q963/Q965" },
        { 0x29a2, 4, 0, "G965" },
        { 0x2a02, 4, MOBILE, "GM965/GL960" },
        { 0x2a12, 4, MOBILE, "GME965/GLE960" },
        { 0x2a42, 4, MOBILE | INTEL_CHIP_G4X, "GM45" },
        { 0x2e02, 4, INTEL_CHIP_G4X, "4 Series" },
        { 0x2e12, 4, INTEL_CHIP_G4X, "Q45/Q43" },
        { 0x2e22, 4, INTEL_CHIP_G4X, "G45/G43" },
        { 0x2e32, 4, INTEL_CHIP_G4X, "G41" },
        { 0x2e42, 4, INTEL_CHIP_G4X, "B43" },
        { 0x0042, 5, INTEL_CHIP_PCH, "Ironlake desktop" },
        { 0x0046, 5, MOBILE | INTEL_CHIP_PCH, "Ironlake mobile" },
};

const IntelChip *intel_chip_lookup(uint16_t vendor_id, uint16_t device_id)
{
        if (vendor_id != INTEL_VENDOR_ID)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(intel_chips); i++)
                if (intel_chips[i].device_id == device_id)
                        return &intel_chips[i];
        return NULL;
}
