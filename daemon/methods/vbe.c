/* SPDX-License-Identifier: MIT */
/* The "vbe" method: probes the VESA BIOS, saves the mode (4F03/4F01) and the BIOS state
 * (4F04), restores base mode, saved mode, DPMS on and state (4F02/4F10/4F04), POSTs first
 * only where the configuration allows it and the ROM belongs to the device; verifies by
 * saving the state again. Every BIOS call runs bounded in vbe-emu's child. */
#include "log.h"
#include "methods/dispi.h"
#include "methods/vbe-emu.h"
#include "methods/vbe.h"

#define AX_OK 0x004Fu
#define VBE_KEEP_MEMORY 0x8000u /* 4F02 BX bit 15: do not clear the display memory */
#define VBE_USE_LFB 0x4000u     /* 4F02 BX bit 14: the linear frame buffer */
#define MODE_NUMBER_MASK 0x3FFFu
#define STATE_COMPONENTS 0x0Fu
#define INFO_BLOCK_SIZE 512u
#define MODE_INFO_SIZE 256u

typedef struct VbeSaved {
        uint16_t version, mode;
        uint8_t flags;
        uint16_t mask;
        uint16_t width, height;
        uint8_t bpp, memory_model;
        uint16_t pitch;
        uint32_t lfb;
        uint32_t state_len;
        const uint8_t *state;
} VbeSaved;

static uint16_t le16(const uint8_t *p)
{
        return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put16(uint8_t *p, uint16_t v)
{
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
        put16(p, (uint16_t)v);
        put16(p + 2, (uint16_t)(v >> 16));
}

static bool mode_number_valid(uint16_t mode)
{
        /* VGA modes (the BIOS's own, up to 0x7F) or VESA and OEM modes from 0x100. */
        return mode <= 0x7F || (mode >= 0x100 && mode <= MODE_NUMBER_MASK);
}

static bool bpp_valid(uint8_t bpp)
{
        return bpp == 0 || bpp == 1 || bpp == 2 || bpp == 4 || bpp == 8 || bpp == 15 || bpp == 16 || bpp == 24 ||
               bpp == 32;
}

static int vbe_check(const uint8_t *p, size_t len)
{
        VbeSaved s;

        if (!p || len < VBE_PAYLOAD_HEADER)
                return -EBADMSG;
        s = (VbeSaved){
                .version = le16(p),
                .mode = le16(p + 2),
                .flags = p[4],
                .mask = le16(p + 6),
                .bpp = p[12],
                .state_len = le32(p + 20),
        };
        if (s.version < 0x0100 || s.version > 0x03FF || !mode_number_valid(s.mode))
                return -EBADMSG;
        if ((s.flags & ~VBE_FLAGS_KNOWN) || p[5] != 0 || (s.mask & ~STATE_COMPONENTS) || !bpp_valid(s.bpp))
                return -EBADMSG;
        if (!(s.flags & VBE_FLAG_MODE_INFO) && (le16(p + 8) || le16(p + 10) || p[12] || p[13] || le16(p + 14) ||
                                                le32(p + 16)))
                return -EBADMSG;
        if (s.state_len > VBE_STATE_MAX || s.state_len != len - VBE_PAYLOAD_HEADER)
                return -EBADMSG;
        /* A state is saved exactly when components were: none without the other. */
        if ((s.mask == 0) != (s.state_len == 0))
                return -EBADMSG;
        return 0;
}

static void saved_from_payload(VbeSaved *s, const uint8_t *p)
{
        *s = (VbeSaved){
                .version = le16(p),
                .mode = le16(p + 2),
                .flags = p[4],
                .mask = le16(p + 6),
                .width = le16(p + 8),
                .height = le16(p + 10),
                .bpp = p[12],
                .memory_model = p[13],
                .pitch = le16(p + 14),
                .lfb = le32(p + 16),
                .state_len = le32(p + 20),
                .state = p + VBE_PAYLOAD_HEADER,
        };
}

static int vbe_payload(const DisplayDevice *d, const uint8_t *p, size_t len, VbeSaved *ret)
{
        int r = vbe_check(p, len);
        if (r < 0)
                return r;
        if (!d)
                return -EINVAL;
        saved_from_payload(ret, p);
        return 0;
}

/* ---- BIOS sessions ---------------------------------------------------------------- */

static VbeEmuCall int10(uint16_t ax, uint16_t bx, uint16_t cx, uint16_t dx)
{
        return (VbeEmuCall){ .kind = VBE_EMU_INT10, .in = { .eax = ax, .ebx = bx, .ecx = cx, .edx = dx } };
}

/* A call whose buffer is ES:DI (4F00, 4F01) or ES:BX (4F04) at the session's buffer. */
static VbeEmuCall int10_buf(uint16_t ax, uint16_t cx, uint16_t dx, uint32_t out_len)
{
        VbeEmuCall c = int10(ax, 0, cx, dx);
        c.in.es = VBE_EMU_BUF_SEG;
        c.buf_out_len = out_len;
        return c;
}

/* The index registers a BIOS moves while it reads the state (sequencer, graphics controller,
 * CRTC, and on a dispi device its index): put back after a session that must change nothing. */
typedef struct VgaIndexes {
        uint8_t sr, gr, cr;
        uint16_t cr_port, dispi;
        bool has_dispi;
} VgaIndexes;

static int indexes_read(Hw *hw, const DisplayDevice *d, VgaIndexes *ret)
{
        uint8_t msr;
        int r;

        *ret = (VgaIndexes){ .has_dispi = dispi_device_supported(d) };
        r = hw_inb(hw, 0x3CC, &msr);
        if (r < 0)
                return r;
        ret->cr_port = (msr & 0x01) ? 0x3D4 : 0x3B4;
        r = hw_inb(hw, 0x3C4, &ret->sr);
        if (r >= 0)
                r = hw_inb(hw, 0x3CE, &ret->gr);
        if (r >= 0)
                r = hw_inb(hw, ret->cr_port, &ret->cr);
        if (r >= 0 && ret->has_dispi)
                r = hw_inw(hw, 0x1CE, &ret->dispi);
        return r;
}

static int indexes_write(Hw *hw, const VgaIndexes *x)
{
        int r = hw_outb(hw, 0x3C4, x->sr);
        if (r >= 0)
                r = hw_outb(hw, 0x3CE, x->gr);
        if (r >= 0)
                r = hw_outb(hw, x->cr_port, x->cr);
        if (r >= 0 && x->has_dispi)
                r = hw_outw(hw, 0x1CE, x->dispi);
        return r;
}

/* Runs a session with the legacy ports routed to the device. A session that only reads (keep
 * set) leaves the index registers as it found them, so a save changes nothing and a verify
 * reads what the restore left. The DAC's read/write mode cannot be read back with its
 * sub-index, and BIOSes save it (SeaBIOS's 4F04 DAC state begins with it): every session
 * starts, and a reading one ends, with the DAC in write mode at index 0, the state a palette
 * write leaves, so the state saved and the state verified agree on it. */
static int run_session(Hw *hw, const DisplayDevice *d, const VbeEmuCall *calls, size_t n, bool keep,
                       VbeEmuResult *res, size_t *ret_done)
{
        VgaIndexes x;
        uint64_t t0 = 0, bios_usec = 0, instructions = 0;
        int r, k;

        *ret_done = 0;
        r = hw_vga_lock(hw);
        if (r < 0)
                return r;
        if (keep)
                r = indexes_read(hw, d, &x);
        if (r >= 0)
                r = hw_outb(hw, 0x3C8, 0x00);
        if (r >= 0) {
                t0 = clock_usec(CLOCK_MONOTONIC);
                r = vbe_emu_run(hw, d, calls, n, NULL, res, ret_done, NULL);
                for (size_t i = 0; i < *ret_done; i++) {
                        bios_usec += res[i].usec;
                        instructions += res[i].instructions;
                }
                log_debug("%s: vbe: %zu of %zu BIOS calls in %.1f ms, %.1f ms of them in the calls "
                          "(%llu instructions), the rest the emulator's set-up and the child.",
                          d->slot, *ret_done, n, (double)(clock_usec(CLOCK_MONOTONIC) - t0) / 1000.0,
                          (double)bios_usec / 1000.0, (unsigned long long)instructions);
        }
        if (keep && r != -ETIMEDOUT) {
                /* (After a killed call the device may not answer: leave it.) */
                k = indexes_write(hw, &x);
                if (k >= 0)
                        k = hw_outb(hw, 0x3C8, 0x00);
                r = r < 0 ? r : k;
        }
        k = hw_vga_unlock(hw);
        return r < 0 ? r : k;
}

/* A session that reads only. */
static int run_readonly(Hw *hw, const DisplayDevice *d, const VbeEmuCall *calls, size_t n, VbeEmuResult *res,
                      size_t *ret_done)
{
        return run_session(hw, d, calls, n, true, res, ret_done);
}

static bool ax_ok(const VbeEmuResult *r)
{
        return (r->out.eax & 0xFFFF) == AX_OK;
}

/* The current mode (4F03): the mode number and whether it runs with its frame buffer. */
static int current_mode(Hw *hw, const DisplayDevice *d, uint16_t *ret_mode, bool *ret_lfb)
{
        VbeEmuCall call = int10(0x4F03, 0, 0, 0);
        VbeEmuResult res;
        size_t done = 0;
        int r;

        call.expect_ax = AX_OK;
        r = run_readonly(hw, d, &call, 1, &res, &done);
        vbe_emu_results_done(&res, done);
        if (r < 0)
                return r;
        *ret_mode = (uint16_t)(res.out.ebx & MODE_NUMBER_MASK);
        *ret_lfb = res.out.ebx & VBE_USE_LFB;
        return 0;
}

/* > 0: the BIOS has a mode to bring back. Never a POST, never a mode set: 4F03 only. */
static int vbe_probe(Hw *hw, const DisplayDevice *d)
{
        uint16_t mode = 0;
        bool lfb = false, dispi = false;
        int r;

        if (!d)
                return -EINVAL;
        if (!vbe_emu_available()) {
                hw_note_failure(hw, "not built with the x86 emulator (libx86emu), or not an x86 machine");
                return 0;
        }
        r = current_mode(hw, d, &mode, &lfb);
        if (r == -ENOEXEC || r == -EPROTO || r == -EACCES || r == -EPERM) {
                /* No video BIOS (UEFI), a BIOS without VBE, lockdown: the method does not
                 * apply, the others still run; the note says why. */
                return 0;
        }
        if (r < 0)
                return r;
        if (d->settings.vbe_named || mode >= 0x100)
                return 1;
        /* A Bochs dispi mode set natively (a firmware's GOP driver) is a VESA mode too. */
        r = hw_vga_lock(hw);
        if (r >= 0) {
                r = dispi_mode_enabled(hw, d, &dispi);
                int k = hw_vga_unlock(hw);
                r = r < 0 ? r : k;
        }
        if (r < 0)
                return r;
        if (!dispi)
                hw_note_failure(hw, "the BIOS runs VGA mode 0x%02x, which the vga method restores", mode);
        return dispi ? 1 : 0;
}

/* First session: what the BIOS is and can save. Second: the mode's description and the state. */
static int vbe_save(Hw *hw, const DisplayDevice *d, Buffer *out)
{
        VbeEmuCall info[7];
        VbeEmuResult res[7] = { 0 };
        VbeEmuCall state[3];
        VbeEmuResult sres[3] = { 0 };
        uint8_t header[VBE_PAYLOAD_HEADER] = { 0 };
        uint16_t mode, mask = 0, version, bx;
        size_t done = 0, sdone = 0, got = 0, n = 0, state_len = 0;
        uint8_t flags = 0;
        int r;

        if (!out || !d)
                return -EINVAL;

        info[n] = int10_buf(0x4F00, 0, 0, INFO_BLOCK_SIZE);
        info[n].buf_in = (const uint8_t *)"VBE2"; /* ask for the VBE 2.0+ block */
        info[n].buf_in_len = 4;
        info[n++].expect_ax = AX_OK;
        info[n] = int10(0x4F03, 0, 0, 0);
        info[n++].expect_ax = AX_OK;
        /* Each state component on its own (FreeBSD's vesa driver does the same: some BIOSes
         * refuse a mask with one component they lack). */
        for (unsigned bit = 0; bit < 4; bit++)
                info[n++] = int10(0x4F04, 0, (uint16_t)(1u << bit), 0x00);
        info[n++] = int10(0x4F10, 0x0000, 0, 0); /* DPMS capabilities */

        r = run_readonly(hw, d, info, n, res, &done);
        if (r < 0)
                goto finish;
        if (memcmp(res[0].buf, "VESA", 4) != 0) {
                hw_note_failure(hw, "4F00 returned no VESA information block (signature %.4s)", res[0].buf);
                r = -EPROTO;
                goto finish;
        }
        version = le16(res[0].buf + 4);
        bx = (uint16_t)res[1].out.ebx;
        mode = bx & MODE_NUMBER_MASK;
        if (bx & VBE_USE_LFB)
                flags |= VBE_FLAG_LFB;
        for (unsigned bit = 0; bit < 4; bit++)
                if (ax_ok(&res[2 + bit]))
                        mask |= (uint16_t)(1u << bit);
        if (ax_ok(&res[6]))
                flags |= VBE_FLAG_DPMS;
        if (!mode_number_valid(mode) || version < 0x0100 || version > 0x03FF) {
                hw_note_failure(hw, "the BIOS reports mode 0x%x, VBE version %x.%x: not a mode to restore", mode,
                                version >> 8, version & 0xFF);
                r = -ERANGE;
                goto finish;
        }

        n = 0;
        state[n++] = int10_buf(0x4F01, mode, 0, MODE_INFO_SIZE);
        if (mask) {
                state[n] = int10(0x4F04, 0, mask, 0x00);
                state[n++].expect_ax = AX_OK;
        }
        r = run_readonly(hw, d, state, n, sres, &sdone);
        if (r < 0)
                goto finish;
        if (mask) {
                state_len = (size_t)(sres[1].out.ebx & 0xFFFF) * 64u;
                if (state_len == 0 || state_len > VBE_STATE_MAX) {
                        hw_note_failure(hw, "4F04 asks for a %zu-byte state buffer", state_len);
                        r = -ERANGE;
                        goto finish;
                }
                /* The state itself, alone: the buffer size is now known. */
                vbe_emu_results_done(sres + 1, 1);
                sdone = 1;
                state[0] = int10_buf(0x4F04, mask, 0x01, (uint32_t)state_len);
                state[0].expect_ax = AX_OK;
                r = run_readonly(hw, d, state, 1, sres + 1, &got);
                sdone += got;
                if (r < 0)
                        goto finish;
        }

        put16(header, version);
        put16(header + 2, mode);
        put16(header + 6, mask);
        if (ax_ok(&sres[0])) {
                const uint8_t *mi = sres[0].buf;
                flags |= VBE_FLAG_MODE_INFO;
                put16(header + 8, le16(mi + 0x12));  /* XResolution */
                put16(header + 10, le16(mi + 0x14)); /* YResolution */
                header[12] = bpp_valid(mi[0x19]) ? mi[0x19] : 0;
                header[13] = mi[0x1B];
                put16(header + 14, le16(mi + 0x10));  /* BytesPerScanLine */
                put32(header + 16, le32(mi + 0x28)); /* PhysBasePtr */
        }
        header[4] = flags;
        put32(header + 20, (uint32_t)state_len);
        r = buffer_append(out, header, sizeof(header));
        if (r >= 0 && state_len)
                r = buffer_append(out, sres[1].buf, state_len);
finish:
        vbe_emu_results_done(res, done);
        vbe_emu_results_done(sres, sdone);
        return r;
}

/* ---- POST ------------------------------------------------------------------------- */

/* The ROM in the shadow belongs to d: 55 AA, a jump at offset 3, and a PCI data structure
 * naming d's vendor, device and class (FreeBSD's x86bios checks the same before a POST). */
static int rom_matches(Hw *hw, const DisplayDevice *d)
{
        uint8_t head[0x1A], pcir[16];
        uint16_t at;
        uint32_t class_code;
        int r;

        r = hw_firmware_read(hw, 0xC0000, head, sizeof(head));
        if (r < 0)
                return r;
        if (head[0] != 0x55 || head[1] != 0xAA || (head[3] != 0xE9 && head[3] != 0xEB)) {
                hw_note_failure(hw, "POST refused: no video BIOS entry at C000:0003");
                return -ENOEXEC;
        }
        at = le16(head + 0x18);
        if (at == 0 || at > 0xFFF0 || at + sizeof(pcir) > (size_t)head[2] * 512u) {
                hw_note_failure(hw, "POST refused: the video BIOS has no PCI data structure");
                return -ENOEXEC;
        }
        r = hw_firmware_read(hw, 0xC0000 + at, pcir, sizeof(pcir));
        if (r < 0)
                return r;
        class_code = (uint32_t)pcir[0x0D] | (uint32_t)pcir[0x0E] << 8 | (uint32_t)pcir[0x0F] << 16;
        if (memcmp(pcir, "PCIR", 4) != 0 || le16(pcir + 4) != d->vendor_id || le16(pcir + 6) != d->device_id ||
            (class_code >> 16) != 0x03) {
                hw_note_failure(hw,
                                "POST refused: the video BIOS at 0xC0000 is for %04x:%04x class %06x, not this "
                                "device (%04x:%04x)",
                                le16(pcir + 4), le16(pcir + 6), class_code, d->vendor_id, d->device_id);
                return -EXDEV;
        }
        return 0;
}

/* ---- restore and verify ------------------------------------------------------------ */

static const char *restore_step(const VbeEmuCall *c, const VbeSaved *s)
{
        if (c->kind == VBE_EMU_POST)
                return "the POST";
        switch (c->in.eax & 0xFFFF) {
        case 0x4F02:
                return (c->in.ebx & MODE_NUMBER_MASK) == s->mode ? "setting the saved mode" : "setting the base mode";
        case 0x4F04:
                return "restoring the BIOS state";
        default:
                return "turning the display on (DPMS)";
        }
}

static int vbe_restore(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len)
{
        VbeEmuCall calls[5];
        VbeEmuResult res[5] = { 0 };
        VbeSaved s;
        size_t n = 0, done = 0;
        int r;

        r = vbe_payload(d, payload, len, &s);
        if (r < 0)
                return r;

        if (d->settings.vbe_post) {
                r = rom_matches(hw, d);
                if (r < 0)
                        return r;
                calls[n++] = (VbeEmuCall){
                        .kind = VBE_EMU_POST,
                        .in = { .eax = (uint32_t)d->bus << 8 | (uint32_t)d->dev << 3 | d->func, .edx = 0x80 },
                };
        }
        if (s.mode >= 0x100) {
                calls[n] = int10(0x4F02, VBE_BASE_MODE | VBE_KEEP_MEMORY, 0, 0);
                calls[n++].expect_ax = AX_OK;
        }
        calls[n] = int10(0x4F02, (uint16_t)(s.mode | VBE_KEEP_MEMORY | ((s.flags & VBE_FLAG_LFB) ? VBE_USE_LFB : 0)),
                         0, 0);
        calls[n++].expect_ax = AX_OK;
        /* DPMS on before the state, so the registers the BIOS's 4F10 touches end as saved. */
        if (s.flags & VBE_FLAG_DPMS) {
                calls[n] = int10(0x4F10, 0x0001, 0, 0); /* BL=1 set, BH=0 on */
                calls[n++].expect_ax = AX_OK;
        }
        if (s.mask) {
                calls[n] = int10_buf(0x4F04, s.mask, 0x02, 0);
                calls[n].buf_in = s.state;
                calls[n].buf_in_len = s.state_len;
                calls[n++].expect_ax = AX_OK;
        }

        hw_clear_failure(hw);
        r = run_session(hw, d, calls, n, false, res, &done);
        vbe_emu_results_done(res, done);
        if (r < 0) {
                /* Say how far it got: the device may hold a mode of neither before nor after. */
                char note[HW_FAILURE_NOTE_MAX];
                size_t failed = MIN(done, n - 1);

                if (r == -EPROTO && done > 0)
                        failed = done - 1;
                snprintf(note, sizeof(note), "%s", hw->failure);
                hw_note_failure(hw, "%s; stopped while %s: %s", note, restore_step(&calls[failed], &s),
                                failed == 0 && calls[0].kind != VBE_EMU_POST && s.mode >= 0x100
                                        ? "the display may hold a half-set mode"
                                        : "the display may hold the base mode or a half-set one");
        }
        return r;
}

static int vbe_verify(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len, Buffer *report)
{
        VbeEmuCall calls[2];
        VbeEmuResult res[2] = { 0 };
        size_t n = 0, done = 0;
        uint16_t mode;
        VbeSaved s;
        int r, mismatches = 0;

        r = vbe_payload(d, payload, len, &s);
        if (r < 0)
                return r;
        calls[n] = int10(0x4F03, 0, 0, 0);
        calls[n++].expect_ax = AX_OK;
        if (s.mask) {
                calls[n] = int10_buf(0x4F04, s.mask, 0x01, s.state_len);
                calls[n++].expect_ax = AX_OK;
        }
        r = run_readonly(hw, d, calls, n, res, &done);
        if (r < 0) {
                vbe_emu_results_done(res, done);
                return r;
        }
        mode = (uint16_t)(res[0].out.ebx & MODE_NUMBER_MASK);
        if (mode != s.mode) {
                if (report)
                        (void)buffer_printf(report, "VBE mode = 0x%x, expected 0x%x\n", mode, s.mode);
                mismatches++;
        }
        /* The state as the BIOS reads it back from the hardware: every register class it
         * saves (VGA registers, DAC, the chip's extended registers). */
        for (uint32_t i = 0; s.mask && i < s.state_len; i++)
                if (res[1].buf[i] != s.state[i]) {
                        if (report && mismatches < 8)
                                (void)buffer_printf(report, "VBE state byte %u = 0x%02x, expected 0x%02x\n", i,
                                                    res[1].buf[i], s.state[i]);
                        mismatches++;
                }
        vbe_emu_results_done(res, done);
        return mismatches;
}

static bool vbe_applies(const DisplayDevice *d)
{
        /* The shadow at 0xC0000 holds the boot VGA device's BIOS, and only a BIOS boot (or a
         * UEFI compatibility module, which the administrator names) left one there. */
        return vbe_emu_available() && d && d->boot_vga && (d->class_code >> 8) == 0x0300 &&
               (!d->settings.uefi_boot || d->settings.vbe_named);
}

static unsigned vbe_modes(const DisplayDevice *d)
{
        return vbe_applies(d) ? METHOD_MODE_LINEAR : 0;
}

/* ---- dump ------------------------------------------------------------------------- */

static void components_to_string(uint16_t mask, char *buf, size_t size)
{
        static const char *const names[4] = { "hardware", "BIOS data", "DAC", "SVGA" };
        size_t len = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < 4 && len < size; i++)
                if (mask & (1u << i))
                        len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", names[i]);
        if (len == 0)
                snprintf(buf, size, "none");
}

static int vbe_dump(const uint8_t *payload, size_t len, bool json, Buffer *out)
{
        char comps[64];
        VbeSaved s;
        int r;

        if (!out)
                return -EINVAL;
        r = vbe_check(payload, len);
        if (r < 0)
                return r;
        saved_from_payload(&s, payload);
        components_to_string(s.mask, comps, sizeof(comps));
        if (json)
                return buffer_printf(out,
                                     "{\"vbe_version\":\"%u.%u\",\"mode\":%u,\"lfb\":%s,\"width\":%u,\"height\":%u,"
                                     "\"bpp\":%u,\"bytes_per_line\":%u,\"frame_buffer\":%u,\"dpms\":%s,"
                                     "\"state_components\":%u,\"state_bytes\":%u}",
                                     s.version >> 8, s.version & 0xFF, s.mode,
                                     (s.flags & VBE_FLAG_LFB) ? "true" : "false", s.width, s.height, s.bpp, s.pitch,
                                     s.lfb, (s.flags & VBE_FLAG_DPMS) ? "true" : "false", s.mask, s.state_len);
        r = buffer_printf(out, "vbe: VESA BIOS %u.%u, mode 0x%03x", s.version >> 8, s.version & 0xFF, s.mode);
        if (r >= 0 && (s.flags & VBE_FLAG_MODE_INFO))
                r = buffer_printf(out, " (%ux%u, %u bpp, %u bytes per line%s)", s.width, s.height, s.bpp, s.pitch,
                                  (s.flags & VBE_FLAG_LFB) ? ", linear frame buffer" : "");
        if (r >= 0)
                r = buffer_printf(out, "\nframe buffer = 0x%08x\nstate       = 0x%x (%s), %u bytes\ndpms        = %s\n",
                                  s.lfb, s.mask, comps, s.state_len,
                                  (s.flags & VBE_FLAG_DPMS) ? "supported: turned on after the restore" : "not supported");
        return r;
}

const MethodOps method_vbe = {
        .name = "vbe",
        .id = VBE_METHOD_ID,
        .version = VBE_METHOD_VERSION,
        .applies = vbe_applies,
        .on_demand = true,
        .probe = vbe_probe,
        .save = vbe_save,
        .check = vbe_check,
        .restore = vbe_restore,
        .verify = vbe_verify,
        .modes = vbe_modes,
        .dump = vbe_dump,
};
