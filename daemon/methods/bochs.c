/* SPDX-License-Identifier: MIT */
/* The "bochs" method: saves, restores (disable, geometry, enable with NOCLEARMEM, offsets),
 * verifies and dumps the Bochs VBE dispi mode registers; no video BIOS involved. */
#include "methods/bochs.h"
#include "methods/dispi.h"

#define ENABLE_KNOWN (DISPI_ENABLED | DISPI_8BIT_DAC | DISPI_LFB_ENABLED | DISPI_NOCLEARMEM)
#define BANK_MAX 0x3FFu /* 64 MiB of video memory in 64 KiB banks */

typedef struct BochsRegs {
        uint16_t r[DISPI_COUNT];
} BochsRegs;

static const char *const reg_names[DISPI_COUNT] = {
        "ID", "XRES", "YRES", "BPP", "ENABLE", "BANK", "VIRT_WIDTH", "VIRT_HEIGHT", "X_OFFSET", "Y_OFFSET",
};

static void regs_from_payload(BochsRegs *regs, const uint8_t *p)
{
        for (unsigned i = 0; i < DISPI_COUNT; i++)
                regs->r[i] = (uint16_t)(p[BOCHS_OFF(i)] | (p[BOCHS_OFF(i) + 1] << 8));
}

static bool bpp_valid(uint16_t bpp)
{
        return bpp == 4 || bpp == 8 || bpp == 15 || bpp == 16 || bpp == 24 || bpp == 32;
}

static int bochs_check(const uint8_t *payload, size_t len)
{
        BochsRegs regs;
        const uint16_t *r = regs.r;

        if (!payload || len != BOCHS_PAYLOAD_SIZE)
                return -EBADMSG;
        regs_from_payload(&regs, payload);
        if (!dispi_id_valid(r[DISPI_ID]))
                return -EBADMSG;
        /* GETCAPS would have made XRES/YRES/BPP read the maxima: never saved with it. */
        if (r[DISPI_ENABLE] & ~ENABLE_KNOWN)
                return -EBADMSG;
        if (r[DISPI_BANK] > BANK_MAX)
                return -EBADMSG;
        for (unsigned i = DISPI_XRES; i < DISPI_COUNT; i++)
                if (i != DISPI_ENABLE && i != DISPI_BANK && i != DISPI_BPP && r[i] > DISPI_MAX_RES)
                        return -EBADMSG;
        if (r[DISPI_BPP] != 0 && !bpp_valid(r[DISPI_BPP]))
                return -EBADMSG;
        if (r[DISPI_ENABLE] & DISPI_ENABLED) {
                if (r[DISPI_XRES] == 0 || r[DISPI_YRES] == 0 || !bpp_valid(r[DISPI_BPP]))
                        return -EBADMSG;
                if (r[DISPI_VIRT_WIDTH] < r[DISPI_XRES])
                        return -EBADMSG;
        }
        return 0;
}

/* ---- probe and save -------------------------------------------------------------- */

/* Reads the ID register (the index is put back). Only on devices known to have dispi: the
 * ports may belong to something else anywhere else. */
static int bochs_probe(Hw *hw, const DisplayDevice *d)
{
        uint16_t saved_index, id = 0;
        int r, k;

        if (!d)
                return -EINVAL;
        if (!dispi_device_supported(d))
                return 0;
        r = hw_vga_lock(hw);
        if (r < 0)
                return r;
        r = hw_inw(hw, DISPI_PORT_INDEX, &saved_index);
        if (r >= 0) {
                r = dispi_read(hw, DISPI_ID, &id);
                k = hw_outw(hw, DISPI_PORT_INDEX, saved_index);
                r = MIN(r, k);
        }
        k = hw_vga_unlock(hw);
        if (r < 0)
                return r;
        if (k < 0)
                return k;
        return dispi_id_valid(id) ? 1 : 0;
}

static int bochs_read_all(Hw *hw, BochsRegs *regs)
{
        uint16_t saved_index;
        int r, k;

        r = hw_inw(hw, DISPI_PORT_INDEX, &saved_index);
        if (r < 0)
                return r;
        /* ENABLE first: with GETCAPS set the geometry registers read the maxima. */
        r = dispi_read(hw, DISPI_ENABLE, &regs->r[DISPI_ENABLE]);
        if (r >= 0 && (regs->r[DISPI_ENABLE] & DISPI_GETCAPS))
                r = -EBUSY;
        for (unsigned i = 0; r >= 0 && i < DISPI_COUNT; i++)
                if (i != DISPI_ENABLE)
                        r = dispi_read(hw, (uint16_t)i, &regs->r[i]);
        k = hw_outw(hw, DISPI_PORT_INDEX, saved_index);
        return r < 0 ? r : k;
}

/* Runs fn with the legacy ports routed to this device (the VGA arbiter). */
static int bochs_run_locked(Hw *hw, int (*fn)(Hw *hw, BochsRegs *regs), BochsRegs *regs)
{
        int r, k;

        r = hw_vga_lock(hw);
        if (r < 0)
                return r;
        r = fn(hw, regs);
        k = hw_vga_unlock(hw);
        return r < 0 ? r : k;
}

/* The registers of a payload that check() accepts. */
static int bochs_payload_regs(const DisplayDevice *d, const uint8_t *payload, size_t len, BochsRegs *ret)
{
        int r = bochs_check(payload, len);
        if (r < 0)
                return r;
        if (!d)
                return -EINVAL;
        regs_from_payload(ret, payload);
        return 0;
}

static int bochs_save(Hw *hw, const DisplayDevice *d, Buffer *out)
{
        BochsRegs regs = { { 0 } };
        uint8_t p[BOCHS_PAYLOAD_SIZE];
        int r;

        if (!out || !d)
                return -EINVAL;
        r = bochs_run_locked(hw, bochs_read_all, &regs);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < DISPI_COUNT; i++) {
                p[BOCHS_OFF(i)] = (uint8_t)(regs.r[i] & 0xFF);
                p[BOCHS_OFF(i) + 1] = (uint8_t)(regs.r[i] >> 8);
        }
        if (bochs_check(p, sizeof(p)) < 0)
                return -ERANGE; /* the device reads values no restore would accept */
        return buffer_append(out, p, sizeof(p));
}

/* ---- restore --------------------------------------------------------------------- */

/* The order the device needs (QEMU's hw/display/vga.c, Bochs' vga.cc):
 *   1. disable: geometry written while a mode is enabled is clamped against the old one;
 *   2. ID (the interface version), XRES, YRES, BPP and the offsets, stored as written;
 *   3. enable with NOCLEARMEM: the enable transition clears the frame buffer without it,
 *      and resets VIRT_WIDTH, X_OFFSET and Y_OFFSET;
 *   4. ENABLE again with the saved value itself (no transition: nothing is cleared), so the
 *      register reads back as it was;
 *   5. VIRT_WIDTH, X_OFFSET, Y_OFFSET, BANK (the enable reset them).
 * VIRT_HEIGHT is computed by the device and never written. A mode saved disabled is written
 * back disabled (a firmware mode set on wake would hide the VGA mode the vga method restores). */
static int bochs_restore_locked(Hw *hw, BochsRegs *regs)
{
        static const uint16_t geometry[] = { DISPI_XRES, DISPI_YRES, DISPI_BPP,
                                             DISPI_VIRT_WIDTH, DISPI_X_OFFSET, DISPI_Y_OFFSET };
        static const uint16_t after_enable[] = { DISPI_VIRT_WIDTH, DISPI_X_OFFSET, DISPI_Y_OFFSET };
        const uint16_t *r = regs->r;
        bool enabled = r[DISPI_ENABLE] & DISPI_ENABLED;
        uint16_t saved_index;
        int k, ret;

        ret = hw_inw(hw, DISPI_PORT_INDEX, &saved_index);
        if (ret < 0)
                return ret;
        ret = dispi_write(hw, DISPI_ENABLE, 0x0000);
        if (ret >= 0)
                ret = dispi_write(hw, DISPI_ID, r[DISPI_ID]);
        for (size_t i = 0; ret >= 0 && i < ELEMENTSOF(geometry); i++)
                ret = dispi_write(hw, geometry[i], r[geometry[i]]);
        if (ret >= 0 && enabled)
                ret = dispi_write(hw, DISPI_ENABLE, (uint16_t)(r[DISPI_ENABLE] | DISPI_NOCLEARMEM));
        if (ret >= 0)
                ret = dispi_write(hw, DISPI_ENABLE, r[DISPI_ENABLE]);
        for (size_t i = 0; ret >= 0 && enabled && i < ELEMENTSOF(after_enable); i++)
                ret = dispi_write(hw, after_enable[i], r[after_enable[i]]);
        if (ret >= 0)
                ret = dispi_write(hw, DISPI_BANK, r[DISPI_BANK]);
        k = hw_outw(hw, DISPI_PORT_INDEX, saved_index);
        return ret < 0 ? ret : k;
}

static int bochs_restore(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len)
{
        BochsRegs regs;
        int r = bochs_payload_regs(d, payload, len, &regs);
        if (r < 0)
                return r;
        return bochs_run_locked(hw, bochs_restore_locked, &regs);
}

/* ---- verify ---------------------------------------------------------------------- */

/* Every register that defines the picture: ENABLE (NOCLEARMEM aside, a write-time flag),
 * the geometry, the panning offsets and the bank. Not ID (the interface version, not the
 * mode) and not VIRT_HEIGHT (computed by the device). */
static int bochs_verify(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len, Buffer *report)
{
        BochsRegs want, is = { { 0 } };
        int r, mismatches = 0;

        r = bochs_payload_regs(d, payload, len, &want);
        if (r < 0)
                return r;
        r = bochs_run_locked(hw, bochs_read_all, &is);
        if (r < 0)
                return r;

        for (unsigned i = DISPI_XRES; i < DISPI_COUNT; i++) {
                uint16_t a = is.r[i], b = want.r[i];

                if (i == DISPI_VIRT_HEIGHT)
                        continue;
                if (i == DISPI_ENABLE) {
                        a &= (uint16_t)~DISPI_NOCLEARMEM;
                        b &= (uint16_t)~DISPI_NOCLEARMEM;
                }
                if (a == b)
                        continue;
                if (report)
                        (void)buffer_printf(report, "DISPI %s = 0x%04x, expected 0x%04x\n", reg_names[i], is.r[i],
                                            want.r[i]);
                mismatches++;
        }
        return mismatches;
}

static unsigned bochs_modes(const DisplayDevice *d)
{
        return dispi_device_supported(d) ? METHOD_MODE_LINEAR : 0;
}

/* ---- dump ------------------------------------------------------------------------ */

static void enable_to_string(uint16_t enable, char *buf, size_t size)
{
        snprintf(buf, size, "%s%s%s%s", (enable & DISPI_ENABLED) ? "enabled" : "disabled (VGA modes)",
                 (enable & DISPI_LFB_ENABLED) ? ", linear frame buffer" : "",
                 (enable & DISPI_8BIT_DAC) ? ", 8-bit DAC" : "",
                 (enable & DISPI_NOCLEARMEM) ? ", no clear on enable" : "");
}

static int bochs_dump_text(const BochsRegs *regs, Buffer *out)
{
        const uint16_t *r = regs->r;
        char en[128];
        int k;

        enable_to_string(r[DISPI_ENABLE], en, sizeof(en));
        if (r[DISPI_ENABLE] & DISPI_ENABLED)
                k = buffer_printf(out, "bochs: dispi mode %ux%u, %u bpp%s\n", r[DISPI_XRES], r[DISPI_YRES],
                                  r[DISPI_BPP], (r[DISPI_ENABLE] & DISPI_LFB_ENABLED) ? ", linear frame buffer" : "");
        else
                k = buffer_printf(out, "bochs: dispi disabled (a VGA mode; the vga method holds it)\n");
        for (unsigned i = 0; k >= 0 && i < DISPI_COUNT; i++) {
                if (i == DISPI_ID)
                        k = buffer_printf(out, "%-11s = 0x%04x  (interface version)\n", reg_names[i], r[i]);
                else if (i == DISPI_ENABLE)
                        k = buffer_printf(out, "%-11s = 0x%04x  (%s)\n", reg_names[i], r[i], en);
                else if (i == DISPI_VIRT_HEIGHT)
                        k = buffer_printf(out, "%-11s = %u  (computed by the device, not written back)\n",
                                          reg_names[i], r[i]);
                else
                        k = buffer_printf(out, "%-11s = %u\n", reg_names[i], r[i]);
        }
        return k;
}

static int bochs_dump_json(const BochsRegs *regs, Buffer *out)
{
        const uint16_t *r = regs->r;
        int k;

        k = buffer_printf(out, "{\"enabled\":%s,\"lfb\":%s,\"registers\":{",
                          (r[DISPI_ENABLE] & DISPI_ENABLED) ? "true" : "false",
                          (r[DISPI_ENABLE] & DISPI_LFB_ENABLED) ? "true" : "false");
        for (unsigned i = 0; k >= 0 && i < DISPI_COUNT; i++)
                k = buffer_printf(out, "%s\"%s\":%u", i ? "," : "", reg_names[i], r[i]);
        if (k >= 0)
                k = buffer_printf(out, "}}");
        return k;
}

static int bochs_dump(const uint8_t *payload, size_t len, bool json, Buffer *out)
{
        BochsRegs regs;
        int r;

        if (!out)
                return -EINVAL;
        r = bochs_check(payload, len);
        if (r < 0)
                return r;
        regs_from_payload(&regs, payload);
        return json ? bochs_dump_json(&regs, out) : bochs_dump_text(&regs, out);
}

const MethodOps method_bochs = {
        .name = "bochs",
        .id = BOCHS_METHOD_ID,
        .version = BOCHS_METHOD_VERSION,
        .applies = dispi_device_supported,
        .probe = bochs_probe,
        .save = bochs_save,
        .check = bochs_check,
        .restore = bochs_restore,
        .verify = bochs_verify,
        .modes = bochs_modes,
        .dump = bochs_dump,
};
