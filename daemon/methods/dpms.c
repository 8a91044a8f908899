/* SPDX-License-Identifier: MIT */
/* The "dpms" method: notes whether the screen was blanked (SR01 bit 5) and the sync on
 * (CR17 bit 7) at save; restore turns the screen on with the sequencer and CRTC rituals. */
#include "methods/dpms.h"

#define VGA_MSR_READ 0x3CC
#define VGA_SR_ADDR 0x3C4
#define VGA_CRTC_COLOUR 0x3D4
#define VGA_CRTC_MONO 0x3B4

#define MSR_COLOUR 0x01
#define SR_RESET 0x00
#define SR_CLOCKING 0x01
#define SR00_SYNC_RESET 0x01 /* bit 1 clear: synchronous reset; bit 0 set: no async reset */
#define SR00_RUN 0x03
#define SR01_SCREEN_OFF 0x20
#define CR_VRETRACE_END 0x11
#define CR11_PROTECT 0x80
#define CR_MODE_CONTROL 0x17
#define CR17_SYNC_ENABLE 0x80

/* What the screen-on state depends on, read from the device. */
typedef struct DpmsRegs {
        uint8_t sr00, sr01, cr17;
} DpmsRegs;

static int dpms_check(const uint8_t *payload, size_t len)
{
        if (!payload || len != DPMS_PAYLOAD_SIZE)
                return -EBADMSG;
        if (payload[0] & ~DPMS_FLAGS_KNOWN)
                return -EBADMSG;
        return 0;
}

static bool dpms_screen_on(const DpmsRegs *regs)
{
        return !(regs->sr01 & SR01_SCREEN_OFF) && (regs->sr00 & SR00_RUN) == SR00_RUN &&
               (regs->cr17 & CR17_SYNC_ENABLE);
}

/* Runs fn between reading the CRTC address and the sequencer/CRTC indexes and putting
 * those indexes back, all under the VGA arbiter. */
typedef int (*DpmsLockedFunc)(Hw *hw, uint16_t crtc, DpmsRegs *regs);

static int dpms_run_locked(Hw *hw, DpmsLockedFunc fn, DpmsRegs *regs)
{
        uint8_t msr, sr_index, cr_index;
        uint16_t crtc;
        int r, k;

        r = hw_vga_lock(hw);
        if (r < 0)
                return r;
        r = hw_inb(hw, VGA_MSR_READ, &msr);
        if (r < 0)
                goto unlock;
        crtc = (msr & MSR_COLOUR) ? VGA_CRTC_COLOUR : VGA_CRTC_MONO;
        r = hw_inb(hw, VGA_SR_ADDR, &sr_index);
        if (r >= 0)
                r = hw_inb(hw, crtc, &cr_index);
        if (r < 0)
                goto unlock;

        r = hw_read_indexed(hw, VGA_SR_ADDR, SR_RESET, &regs->sr00);
        if (r >= 0)
                r = hw_read_indexed(hw, VGA_SR_ADDR, SR_CLOCKING, &regs->sr01);
        if (r >= 0)
                r = hw_read_indexed(hw, crtc, CR_MODE_CONTROL, &regs->cr17);
        if (r >= 0 && fn)
                r = fn(hw, crtc, regs);

        k = hw_outb(hw, crtc, cr_index);
        k = MIN(k, hw_outb(hw, VGA_SR_ADDR, sr_index));
        r = MIN(r, k);
unlock:
        k = hw_vga_unlock(hw);
        return r < 0 ? r : k;
}

static int dpms_probe(Hw *hw, const DisplayDevice *d)
{
        if (!d)
                return -EINVAL;
        return (d->class_code >> 8) == 0x0300 ? 1 : 0;
}

static int dpms_save(Hw *hw, const DisplayDevice *d, Buffer *out)
{
        DpmsRegs regs = { 0 };
        uint8_t flags = 0;
        int r;

        if (!out)
                return -EINVAL;
        r = dpms_run_locked(hw, NULL, &regs);
        if (r < 0)
                return r;
        if (regs.sr01 & SR01_SCREEN_OFF)
                flags |= DPMS_FOUND_SCREEN_OFF;
        if (regs.cr17 & CR17_SYNC_ENABLE)
                flags |= DPMS_FOUND_SYNC_ENABLED;
        return buffer_append_u8(out, flags);
}

/* Screen on: SR01 bit 5 cleared inside a synchronous reset that ends with the sequencer
 * running; CR17 bit 7 set. Standard VGA locks only CR00-CR07 with CR11 bit 7, but some
 * clones lock more, so the lock is lifted around the CR17 write and put back. Registers
 * already right are not written. */
static int dpms_screen_on_locked(Hw *hw, uint16_t crtc, DpmsRegs *regs)
{
        uint8_t cr11 = 0;
        int r = 0, k;

        if ((regs->sr01 & SR01_SCREEN_OFF) || (regs->sr00 & SR00_RUN) != SR00_RUN) {
                r = hw_write_indexed(hw, VGA_SR_ADDR, SR_RESET, SR00_SYNC_RESET);
                if (r < 0)
                        return r;
                r = hw_write_indexed(hw, VGA_SR_ADDR, SR_CLOCKING, regs->sr01 & ~SR01_SCREEN_OFF);
                /* End the reset even if the write failed: never leave the sequencer stopped. */
                k = hw_write_indexed(hw, VGA_SR_ADDR, SR_RESET, SR00_RUN);
                r = MIN(r, k);
                if (r < 0)
                        return r;
        }

        if (!(regs->cr17 & CR17_SYNC_ENABLE)) {
                r = hw_read_indexed(hw, crtc, CR_VRETRACE_END, &cr11);
                if (r >= 0 && (cr11 & CR11_PROTECT))
                        r = hw_write_indexed(hw, crtc, CR_VRETRACE_END, cr11 & ~CR11_PROTECT);
                if (r < 0)
                        return r;
                r = hw_write_indexed(hw, crtc, CR_MODE_CONTROL, regs->cr17 | CR17_SYNC_ENABLE);
                if (cr11 & CR11_PROTECT) {
                        k = hw_write_indexed(hw, crtc, CR_VRETRACE_END, cr11);
                        r = MIN(r, k);
                }
        }
        return r;
}

static int dpms_restore(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len)
{
        DpmsRegs regs = { 0 };
        int r;

        r = dpms_check(payload, len);
        if (r < 0)
                return r;
        return dpms_run_locked(hw, dpms_screen_on_locked, &regs);
}

static int dpms_verify(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len, Buffer *report)
{
        DpmsRegs regs = { 0 };
        int r, mismatches = 0;

        r = dpms_check(payload, len);
        if (r < 0)
                return r;
        r = dpms_run_locked(hw, NULL, &regs);
        if (r < 0)
                return r;
        if (dpms_screen_on(&regs))
                return 0;

        if (regs.sr01 & SR01_SCREEN_OFF) {
                if (report)
                        (void)buffer_printf(report, "screen off: SEQ[0x01] = 0x%02x, expected bit 5 clear\n",
                                            regs.sr01);
                mismatches++;
        }
        if ((regs.sr00 & SR00_RUN) != SR00_RUN) {
                if (report)
                        (void)buffer_printf(report,
                                            "sequencer stopped: SEQ[0x00] = 0x%02x, expected bits 0-1 set\n",
                                            regs.sr00);
                mismatches++;
        }
        if (!(regs.cr17 & CR17_SYNC_ENABLE)) {
                if (report)
                        (void)buffer_printf(report, "sync off: CRTC[0x17] = 0x%02x, expected bit 7 set\n",
                                            regs.cr17);
                mismatches++;
        }
        return mismatches;
}

static int dpms_dump(const uint8_t *payload, size_t len, bool json, Buffer *out)
{
        bool off, sync;
        int r;

        if (!out)
                return -EINVAL;
        r = dpms_check(payload, len);
        if (r < 0)
                return r;
        off = payload[0] & DPMS_FOUND_SCREEN_OFF;
        sync = payload[0] & DPMS_FOUND_SYNC_ENABLED;
        if (json)
                return buffer_printf(out, "{\"flags\":%u,\"screen_off\":%s,\"sync_enabled\":%s}", payload[0],
                                     off ? "true" : "false", sync ? "true" : "false");
        return buffer_printf(out,
                             "dpms: at save the screen was %s (SEQ[0x01] bit 5 %s) and the sync %s "
                             "(CRTC[0x17] bit 7 %s); restore turns the screen on\n",
                             off ? "off" : "on", off ? "set" : "clear", sync ? "enabled" : "disabled",
                             sync ? "set" : "clear");
}

const MethodOps method_dpms = {
        .name = "dpms",
        .id = DPMS_METHOD_ID,
        .version = DPMS_METHOD_VERSION,
        .probe = dpms_probe,
        .save = dpms_save,
        .check = dpms_check,
        .restore = dpms_restore,
        .verify = dpms_verify,
        .dump = dpms_dump,
};
