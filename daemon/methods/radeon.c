/* SPDX-License-Identifier: MIT */
/* The "radeon" method: saves the CRTC enable and sync bits, the DAC power and the LVDS
 * panel's power and backlight of pre-AVIVO Radeons over BAR2 and restores them in power-up
 * order (CRTC, DAC, panel PLL, panel power, backlight), each wait fixed and bounded.
 * Register facts: radeon_reg.h (Linux radeon, xf86-video-ati), radeontool's `light`. */
#include <inttypes.h>

#include "methods/radeon.h"

#define LVDS RADEON_FLAG_LVDS

/* Pre-AVIVO device IDs and whether they have a panel interface (the RADEON_IS_MOBILITY
 * flag of the Linux radeon driver's PCI table). Names are the marketing ones where they
 * are unambiguous, else the family. */
static const RadeonChip radeon_chips[] = {
        { 0x3150, true, "RV380", "Mobility Radeon X600 (M24)" },
        { 0x3152, true, "RV380", "Mobility Radeon X300 (M22)" },
        { 0x3154, true, "RV380", "Mobility FireGL V3200 (M24)" },
        { 0x3e50, false, "RV380", "Radeon X600" },
        { 0x3e54, false, "RV380", "FireGL V3200" },
        { 0x4136, false, "RS100", "Radeon IGP 320" },
        { 0x4137, false, "RS200", "Radeon IGP 340" },
        { 0x4144, false, "R300", "Radeon 9500" },
        { 0x4145, false, "R300", "Radeon R300" },
        { 0x4146, false, "R300", "Radeon 9600TX" },
        { 0x4147, false, "R300", "FireGL Z1" },
        { 0x4148, false, "R350", "Radeon 9800SE" },
        { 0x4149, false, "R350", "Radeon R350" },
        { 0x414a, false, "R350", "Radeon R350" },
        { 0x414b, false, "R350", "FireGL X2" },
        { 0x4150, false, "RV350", "Radeon 9600" },
        { 0x4151, false, "RV350", "Radeon 9600SE" },
        { 0x4152, false, "RV350", "Radeon 9600XT" },
        { 0x4153, false, "RV350", "Radeon 9550" },
        { 0x4154, false, "RV350", "FireGL T2" },
        { 0x4155, false, "RV350", "Radeon RV350" },
        { 0x4156, false, "RV350", "FireGL T2" },
        { 0x4237, false, "RS200", "Radeon IGP 340" },
        { 0x4242, false, "R200", "Radeon 8500 AIW" },
        { 0x4243, false, "R200", "Radeon R200" },
        { 0x4336, true, "RS100", "Radeon IGP 320M" },
        { 0x4337, true, "RS200", "Radeon IGP 340M" },
        { 0x4437, true, "RS200", "Radeon Mobility 7000 IGP" },
        { 0x4966, false, "RV250", "Radeon 9000" },
        { 0x4967, false, "RV250", "Radeon 9000" },
        { 0x4a48, false, "R420", "Radeon X800" },
        { 0x4a49, false, "R420", "Radeon X800 Pro" },
        { 0x4a4a, false, "R420", "Radeon X800 SE" },
        { 0x4a4b, false, "R420", "Radeon X800 XT" },
        { 0x4a4c, false, "R420", "Radeon X800" },
        { 0x4a4d, false, "R420", "FireGL X3" },
        { 0x4a4e, true, "R420", "Mobility Radeon 9800 (M18)" },
        { 0x4a4f, false, "R420", "Radeon X800 SE" },
        { 0x4a50, false, "R420", "Radeon X800 XT PE" },
        { 0x4a54, false, "R420", "Radeon X800 VE" },
        { 0x4b49, false, "R420", "Radeon X850 XT" },
        { 0x4b4a, false, "R420", "Radeon X850 SE" },
        { 0x4b4b, false, "R420", "Radeon X850 Pro" },
        { 0x4b4c, false, "R420", "Radeon X850 XT PE" },
        { 0x4c57, true, "RV200", "Mobility Radeon 7500 (M7)" },
        { 0x4c58, true, "RV200", "Mobility FireGL 7800 (M7)" },
        { 0x4c59, true, "RV100", "Mobility Radeon M6" },
        { 0x4c5a, true, "RV100", "Mobility Radeon M6" },
        { 0x4c64, true, "RV250", "Mobility Radeon 9000 (M9)" },
        { 0x4c66, true, "RV250", "Mobility Radeon 9000 (M9)" },
        { 0x4c67, true, "RV250", "Mobility Radeon 9000 (M9)" },
        { 0x4e44, false, "R300", "Radeon 9700 Pro" },
        { 0x4e45, false, "R300", "Radeon 9500 Pro" },
        { 0x4e46, false, "R300", "Radeon 9600TX" },
        { 0x4e47, false, "R300", "FireGL X1" },
        { 0x4e48, false, "R350", "Radeon 9800 Pro" },
        { 0x4e49, false, "R350", "Radeon 9800" },
        { 0x4e4a, false, "R350", "Radeon 9800 XT" },
        { 0x4e4b, false, "R350", "FireGL X2" },
        { 0x4e50, true, "RV350", "Mobility Radeon 9600 (M10)" },
        { 0x4e51, true, "RV350", "Mobility Radeon 9600 (M10)" },
        { 0x4e52, true, "RV350", "Mobility Radeon 9500 (M11)" },
        { 0x4e53, true, "RV350", "Mobility Radeon 9550 (M12)" },
        { 0x4e54, true, "RV350", "Mobility FireGL T2 (M10)" },
        { 0x4e56, true, "RV350", "Mobility Radeon 9550 (M12)" },
        { 0x5144, false, "R100", "Radeon 7200 QD" },
        { 0x5145, false, "R100", "Radeon QE" },
        { 0x5146, false, "R100", "Radeon QF" },
        { 0x5147, false, "R100", "Radeon QG" },
        { 0x5148, false, "R200", "FireGL 8800" },
        { 0x514c, false, "R200", "Radeon 8500" },
        { 0x514d, false, "R200", "Radeon 9100" },
        { 0x5157, false, "RV200", "Radeon 7500" },
        { 0x5158, false, "RV200", "Radeon 7500" },
        { 0x5159, false, "RV100", "Radeon 7000 / VE" },
        { 0x515a, false, "RV100", "Radeon VE" },
        { 0x515e, false, "RV100", "ES1000" },
        { 0x5460, true, "RV380", "Mobility Radeon X300 (M22)" },
        { 0x5462, true, "RV380", "Mobility Radeon X600 SE (M24C)" },
        { 0x5464, true, "RV380", "Mobility FireGL V3100 (M22)" },
        { 0x5548, false, "R423", "Radeon X800" },
        { 0x5549, false, "R423", "Radeon X800 Pro" },
        { 0x554a, false, "R423", "Radeon X800 XT PE" },
        { 0x554b, false, "R423", "Radeon X800 SE" },
        { 0x554c, false, "R423", "Radeon X800 XTP" },
        { 0x554d, false, "R423", "Radeon X800 XL" },
        { 0x554e, false, "R423", "Radeon X800 SE" },
        { 0x554f, false, "R423", "Radeon X800" },
        { 0x5550, false, "R423", "FireGL V7100" },
        { 0x5551, false, "R423", "FireGL V5100" },
        { 0x5552, false, "R423", "FireGL" },
        { 0x5554, false, "R423", "FireGL" },
        { 0x564a, true, "RV410", "Mobility FireGL V5000 (M26)" },
        { 0x564b, true, "RV410", "Mobility FireGL V5000 (M26)" },
        { 0x564f, true, "RV410", "Mobility Radeon X700 XL (M26)" },
        { 0x5652, true, "RV410", "Mobility Radeon X700 (M26)" },
        { 0x5653, true, "RV410", "Mobility Radeon X700 (M26)" },
        { 0x5657, false, "RV380", "Radeon X550" },
        { 0x5834, false, "RS300", "Radeon 9100 IGP" },
        { 0x5835, true, "RS300", "Mobility Radeon 9100 IGP" },
        { 0x5954, true, "RS480", "Radeon Xpress 200M" },
        { 0x5955, true, "RS480", "Radeon Xpress 200M" },
        { 0x5960, false, "RV280", "Radeon 9250" },
        { 0x5961, false, "RV280", "Radeon 9200" },
        { 0x5962, false, "RV280", "Radeon 9200" },
        { 0x5964, false, "RV280", "Radeon 9200 SE" },
        { 0x5965, false, "RV280", "FireMV 2200" },
        { 0x5969, false, "RV100", "ES1000" },
        { 0x5974, true, "RS480", "Radeon Xpress 200M" },
        { 0x5975, true, "RS480", "Radeon Xpress 200M" },
        { 0x5a41, false, "RS400", "Radeon Xpress 200" },
        { 0x5a42, true, "RS400", "Radeon Xpress 200M" },
        { 0x5a61, false, "RS400", "Radeon Xpress 200" },
        { 0x5a62, true, "RS400", "Radeon Xpress 200M" },
        { 0x5b60, false, "RV380", "Radeon X300" },
        { 0x5b62, false, "RV380", "Radeon X600" },
        { 0x5b63, false, "RV380", "Radeon X550" },
        { 0x5b64, false, "RV380", "FireGL V3100" },
        { 0x5b65, false, "RV380", "FireMV 2200" },
        { 0x5c61, true, "RV280", "Mobility Radeon 9200 (M9+)" },
        { 0x5c63, true, "RV280", "Mobility Radeon 9200 (M9+)" },
        { 0x5d48, true, "R423", "Mobility Radeon X800 XT (M28)" },
        { 0x5d49, true, "R423", "Mobility FireGL V5100 (M28)" },
        { 0x5d4a, true, "R423", "Mobility Radeon X800 (M28)" },
        { 0x5d4c, false, "R423", "Radeon X850" },
        { 0x5d4d, false, "R423", "Radeon X850 XT PE" },
        { 0x5d4e, false, "R423", "Radeon X850 SE" },
        { 0x5d4f, false, "R423", "Radeon X850 Pro" },
        { 0x5d50, false, "R423", "FireGL V7200" },
        { 0x5d52, false, "R423", "Radeon X850 XT" },
        { 0x5d57, false, "R423", "Radeon X800 XT" },
        { 0x5e48, false, "RV410", "FireGL V5000" },
        { 0x5e4a, false, "RV410", "Radeon X700 XT" },
        { 0x5e4b, false, "RV410", "Radeon X700 Pro" },
        { 0x5e4c, false, "RV410", "Radeon X700 SE" },
        { 0x5e4d, false, "RV410", "Radeon X700" },
        { 0x5e4f, false, "RV410", "Radeon X700 SE" },
};

static const struct {
        const char *name;
        uint32_t offset;
        uint32_t power; /* the bits restore checks after writing (enables, DPMS, power) */
} radeon_regs[RADEON_REG_COUNT] = {
        { "CRTC_GEN_CNTL", RADEON_CRTC_GEN_CNTL, RADEON_CRTC_EN | RADEON_CRTC_EXT_DISP_EN },
        { "CRTC_EXT_CNTL", RADEON_CRTC_EXT_CNTL,
          RADEON_CRTC_HSYNC_DIS | RADEON_CRTC_VSYNC_DIS | RADEON_CRTC_DISPLAY_DIS | RADEON_CRTC_CRT_ON },
        { "DAC_CNTL", RADEON_DAC_CNTL, RADEON_DAC_PDWN },
        { "LVDS_PLL_CNTL", RADEON_LVDS_PLL_CNTL, RADEON_LVDS_PLL_EN | RADEON_LVDS_PLL_RESET },
        { "LVDS_GEN_CNTL", RADEON_LVDS_GEN_CNTL,
          RADEON_LVDS_ON | RADEON_LVDS_DISPLAY_DIS | RADEON_LVDS_EN | RADEON_LVDS_DIGON | RADEON_LVDS_BLON },
};

const RadeonChip *radeon_chip_lookup(uint16_t vendor_id, uint16_t device_id)
{
        if (vendor_id != RADEON_VENDOR_ID)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(radeon_chips); i++)
                if (radeon_chips[i].device_id == device_id)
                        return &radeon_chips[i];
        return NULL;
}

const RadeonChip *radeon_method_chip(const DisplayDevice *d)
{
        if (!d || d->func != 0 || (d->class_code >> 8) != 0x0300)
                return NULL;
        return radeon_chip_lookup(d->vendor_id, d->device_id);
}

const char *radeon_reg_name(unsigned slot)
{
        return slot < RADEON_REG_COUNT ? radeon_regs[slot].name : "?";
}

uint32_t radeon_reg_offset(unsigned slot)
{
        return slot < RADEON_REG_COUNT ? radeon_regs[slot].offset : 0;
}

static bool reg_present(const RadeonChip *chip, unsigned slot)
{
        return slot < RADEON_REG_COUNT &&
               (chip->lvds || (slot != RADEON_REG_LVDS_GEN_CNTL && slot != RADEON_REG_LVDS_PLL_CNTL));
}

/* ---- payload --------------------------------------------------------------------- */

typedef struct RadeonState {
        const RadeonChip *chip;
        uint32_t regs[RADEON_REG_COUNT];
} RadeonState;

/* Unpacks and validates a payload, without any hardware access. */
static int radeon_parse(const uint8_t *payload, size_t len, RadeonState *ret)
{
        RadeonState s = { 0 };

        if (!payload || len != RADEON_PAYLOAD_SIZE)
                return -EBADMSG;
        s.chip = radeon_chip_lookup(RADEON_VENDOR_ID, read_le16(payload + RADEON_OFF_DEVICE));
        if (!s.chip)
                return -EBADMSG;
        if (payload[RADEON_OFF_FLAGS] != (s.chip->lvds ? LVDS : 0) || payload[RADEON_OFF_RESERVED] != 0)
                return -EBADMSG;
        for (unsigned i = 0; i < RADEON_REG_COUNT; i++) {
                s.regs[i] = read_le32(payload + RADEON_OFF_REGS + 4 * i);
                if (!reg_present(s.chip, i) && s.regs[i] != 0)
                        return -EBADMSG;
        }
        /* The comparator output is sensed, never saved. */
        if (s.regs[RADEON_REG_DAC_CNTL] & RADEON_DAC_CMP_OUTPUT)
                return -EBADMSG;
        *ret = s;
        return 0;
}

static int radeon_check(const uint8_t *payload, size_t len)
{
        RadeonState s;
        return radeon_parse(payload, len, &s);
}

/* Validates a payload for d (the same chip), without any access. */
static int radeon_load(const DisplayDevice *d, const uint8_t *payload, size_t len, RadeonState *ret)
{
        RadeonState s;
        int r;

        r = radeon_parse(payload, len, &s);
        if (r < 0)
                return r;
        if (!d || d->vendor_id != RADEON_VENDOR_ID || d->device_id != s.chip->device_id)
                return -ENODEV;
        *ret = s;
        return 0;
}

/* ---- register access --------------------------------------------------------------- */

static int reg_read(Hw *hw, const RadeonChip *chip, unsigned slot, uint32_t *ret)
{
        if (!reg_present(chip, slot)) {
                *ret = 0;
                return 0;
        }
        return hw_mmio_read32(hw, RADEON_MMIO_BAR, radeon_regs[slot].offset, ret);
}

/* The only way this method writes a register. */
static int reg_write(Hw *hw, const RadeonChip *chip, unsigned slot, uint32_t value)
{
        if (!reg_present(chip, slot))
                return 0;
        return hw_mmio_write32(hw, RADEON_MMIO_BAR, radeon_regs[slot].offset, value);
}

static int read_all(Hw *hw, const RadeonChip *chip, uint32_t regs[static RADEON_REG_COUNT])
{
        for (unsigned i = 0; i < RADEON_REG_COUNT; i++) {
                int r = reg_read(hw, chip, i, &regs[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- probe and save ---------------------------------------------------------------- */

static bool radeon_applies(const DisplayDevice *d)
{
        return radeon_method_chip(d) != NULL;
}

/* A claimed chip whose register BAR is a memory BAR large enough for every register. */
static int radeon_probe(Hw *hw, const DisplayDevice *d)
{
        HwBar bar;
        int r;

        if (!d)
                return -EINVAL;
        if (!radeon_method_chip(d))
                return 0;
        r = hw_bar_info(hw, RADEON_MMIO_BAR, &bar);
        if (r == -ENXIO)
                return 0;
        if (r < 0)
                return r;
        return !bar.is_io && bar.size >= RADEON_MMIO_MIN_SIZE;
}

static int radeon_save(Hw *hw, const DisplayDevice *d, Buffer *out)
{
        const RadeonChip *chip = radeon_method_chip(d);
        uint32_t regs[RADEON_REG_COUNT];
        uint8_t head[RADEON_OFF_REGS];
        int r;

        if (!out || !chip)
                return -EINVAL;
        r = read_all(hw, chip, regs);
        if (r < 0)
                return r;
        /* The comparator output is sensed, not set: never part of the state. */
        regs[RADEON_REG_DAC_CNTL] &= ~RADEON_DAC_CMP_OUTPUT;

        head[RADEON_OFF_DEVICE] = (uint8_t)(chip->device_id & 0xff);
        head[RADEON_OFF_DEVICE + 1] = (uint8_t)(chip->device_id >> 8);
        head[RADEON_OFF_FLAGS] = chip->lvds ? LVDS : 0;
        head[RADEON_OFF_RESERVED] = 0;
        r = buffer_reserve(out, RADEON_PAYLOAD_SIZE);
        if (r < 0)
                return r;
        (void)buffer_append(out, head, sizeof(head));
        for (unsigned i = 0; i < RADEON_REG_COUNT; i++)
                (void)buffer_append_le32(out, regs[i]);
        return 0;
}

/* ---- restore ----------------------------------------------------------------------- */

/* The panel, on: its PLL enabled and held in reset for its settle time, then released;
 * the panel's power and data with the backlight still off; the panel's power-up time;
 * then the backlight (what `radeontool light on` and the DPMS-on path of the radeon
 * driver's legacy LVDS code end with). Off: the panel register first (backlight and power
 * go off together), then the PLL. */
static int restore_panel(Hw *hw, const RadeonState *s)
{
        uint32_t gen = s->regs[RADEON_REG_LVDS_GEN_CNTL], pll = s->regs[RADEON_REG_LVDS_PLL_CNTL];
        int r;

        if (!(gen & RADEON_LVDS_ON)) {
                r = reg_write(hw, s->chip, RADEON_REG_LVDS_GEN_CNTL, gen);
                return r < 0 ? r : reg_write(hw, s->chip, RADEON_REG_LVDS_PLL_CNTL, pll);
        }
        r = 0;
        if ((pll & RADEON_LVDS_PLL_EN) && !(pll & RADEON_LVDS_PLL_RESET)) {
                r = reg_write(hw, s->chip, RADEON_REG_LVDS_PLL_CNTL, pll | RADEON_LVDS_PLL_RESET);
                if (r >= 0)
                        hw_delay_us(hw, RADEON_LVDS_PLL_SETTLE_US);
        }
        if (r >= 0)
                r = reg_write(hw, s->chip, RADEON_REG_LVDS_PLL_CNTL, pll);
        if (r >= 0 && (gen & RADEON_LVDS_BLON)) {
                r = reg_write(hw, s->chip, RADEON_REG_LVDS_GEN_CNTL, gen & ~RADEON_LVDS_BLON);
                if (r >= 0)
                        hw_delay_us(hw, RADEON_PANEL_POWER_UP_US);
        }
        return r < 0 ? r : reg_write(hw, s->chip, RADEON_REG_LVDS_GEN_CNTL, gen);
}

/* After the writes: every power bit reads back as saved, or the failure names the register. */
static int check_power_bits(Hw *hw, const RadeonState *s)
{
        for (unsigned i = 0; i < RADEON_REG_COUNT; i++) {
                uint32_t v, mask = radeon_regs[i].power;
                int r;

                if (!reg_present(s->chip, i))
                        continue;
                r = reg_read(hw, s->chip, i, &v);
                if (r < 0)
                        return r;
                if ((v & mask) == (s->regs[i] & mask))
                        continue;
                hw_note_failure(hw, "%s = 0x%08" PRIx32 " after the restore, expected 0x%08" PRIx32 " in bits 0x%08" PRIx32 " (%s)",
                                radeon_regs[i].name, v, s->regs[i] & mask, mask,
                                i >= RADEON_REG_LVDS_PLL_CNTL ? "the panel did not take its power state"
                                                              : "the CRTC or DAC did not take its power state");
                return -EIO;
        }
        return 0;
}

/* CRTC first (it drives the DAC and the panel), then its sync and display enables and the
 * CRT output, then the DAC's power, then the panel. */
static int radeon_restore(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len)
{
        static const unsigned crtc_and_dac[] = {
                RADEON_REG_CRTC_GEN_CNTL, RADEON_REG_CRTC_EXT_CNTL, RADEON_REG_DAC_CNTL,
        };
        RadeonState s;
        int r;

        r = radeon_load(d, payload, len, &s);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(crtc_and_dac); i++) {
                r = reg_write(hw, s.chip, crtc_and_dac[i], s.regs[crtc_and_dac[i]]);
                if (r < 0)
                        return r;
        }
        if (s.chip->lvds) {
                r = restore_panel(hw, &s);
                if (r < 0)
                        return r;
        }
        return check_power_bits(hw, &s);
}

/* ---- verify and dump ----------------------------------------------------------------- */

static int radeon_verify(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len, Buffer *report)
{
        uint32_t is[RADEON_REG_COUNT];
        RadeonState s;
        int r, mismatches = 0;

        r = radeon_load(d, payload, len, &s);
        if (r < 0)
                return r;
        r = read_all(hw, s.chip, is);
        if (r < 0)
                return r;
        is[RADEON_REG_DAC_CNTL] &= ~RADEON_DAC_CMP_OUTPUT;
        for (unsigned i = 0; i < RADEON_REG_COUNT; i++) {
                if (!reg_present(s.chip, i) || is[i] == s.regs[i])
                        continue;
                mismatches++;
                if (report)
                        (void)buffer_printf(report, "%s = 0x%08" PRIx32 ", expected 0x%08" PRIx32 "\n", radeon_regs[i].name,
                                            is[i], s.regs[i]);
        }
        return mismatches;
}

/* What the power bits of a slot say, in a few words. */
static void reg_meaning(unsigned slot, uint32_t v, char *buf, size_t size)
{
        switch (slot) {
        case RADEON_REG_CRTC_GEN_CNTL:
                snprintf(buf, size, "CRTC %s, %s", v & RADEON_CRTC_EN ? "on" : "off",
                         v & RADEON_CRTC_EXT_DISP_EN ? "extended mode" : "VGA mode");
                break;
        case RADEON_REG_CRTC_EXT_CNTL:
                snprintf(buf, size, "display %s, hsync %s, vsync %s, CRT output %s",
                         v & RADEON_CRTC_DISPLAY_DIS ? "off" : "on", v & RADEON_CRTC_HSYNC_DIS ? "off" : "on",
                         v & RADEON_CRTC_VSYNC_DIS ? "off" : "on", v & RADEON_CRTC_CRT_ON ? "on" : "off");
                break;
        case RADEON_REG_DAC_CNTL:
                snprintf(buf, size, "DAC %s, %s", v & RADEON_DAC_PDWN ? "powered down" : "powered",
                         v & RADEON_DAC_8BIT_EN ? "8-bit" : "6-bit");
                break;
        case RADEON_REG_LVDS_PLL_CNTL:
                snprintf(buf, size, "PLL %s%s", v & RADEON_LVDS_PLL_EN ? "on" : "off",
                         v & RADEON_LVDS_PLL_RESET ? ", in reset" : "");
                break;
        case RADEON_REG_LVDS_GEN_CNTL:
                snprintf(buf, size, "panel %s, digital power %s, backlight %s", v & RADEON_LVDS_ON ? "on" : "off",
                         v & RADEON_LVDS_DIGON ? "on" : "off", v & RADEON_LVDS_BLON ? "on" : "off");
                break;
        default:
                snprintf(buf, size, "?");
        }
}

static int radeon_dump_json(const RadeonState *s, Buffer *out)
{
        int r;

        r = buffer_printf(out, "{\"chip\":");
        if (r >= 0)
                r = buffer_append_json_string(out, s->chip->name);
        if (r >= 0)
                r = buffer_printf(out, ",\"family\":");
        if (r >= 0)
                r = buffer_append_json_string(out, s->chip->family);
        if (r >= 0)
                r = buffer_printf(out, ",\"device_id\":%u,\"mmio_bar\":%u,\"lvds\":%s,\"registers\":{",
                                  s->chip->device_id, RADEON_MMIO_BAR, s->chip->lvds ? "true" : "false");
        for (unsigned i = 0, n = 0; r >= 0 && i < RADEON_REG_COUNT; i++) {
                if (!reg_present(s->chip, i))
                        continue;
                r = buffer_printf(out, "%s\"%s\":%" PRIu32, n++ ? "," : "", radeon_regs[i].name, s->regs[i]);
        }
        return r < 0 ? r : buffer_printf(out, "}}");
}

static int radeon_dump(const uint8_t *payload, size_t len, bool json, Buffer *out)
{
        RadeonState s;
        int r;

        if (!out)
                return -EINVAL;
        r = radeon_parse(payload, len, &s);
        if (r < 0)
                return r;
        if (json)
                return radeon_dump_json(&s, out);

        r = buffer_printf(out, "radeon: %s (1002:%04x, %s), registers through BAR%u, %s\n", s.chip->name,
                          s.chip->device_id, s.chip->family, RADEON_MMIO_BAR,
                          s.chip->lvds ? "panel interface (LVDS)" : "no panel interface");
        for (unsigned i = 0; r >= 0 && i < RADEON_REG_COUNT; i++) {
                char meaning[96];

                if (!reg_present(s.chip, i))
                        continue;
                reg_meaning(i, s.regs[i], meaning, sizeof(meaning));
                r = buffer_printf(out, "%s = 0x%08" PRIx32 " (%s)\n", radeon_regs[i].name, s.regs[i], meaning);
        }
        return r < 0 ? r : 0;
}

const MethodOps method_radeon = {
        .name = "radeon",
        .id = RADEON_METHOD_ID,
        .version = RADEON_METHOD_VERSION,
        .applies = radeon_applies,
        .probe = radeon_probe,
        .save = radeon_save,
        .check = radeon_check,
        .restore = radeon_restore,
        .verify = radeon_verify,
        .dump = radeon_dump,
};
