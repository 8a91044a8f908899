/* SPDX-License-Identifier: MIT */
/* The "vga" method: saves and restores misc output, sequencer, CRTC, graphics, attribute
 * controller, DAC mask + palette and the four planes, with the standard access rituals. */
#include "methods/dispi.h"
#include "methods/vga.h"

/* Ports. */
#define VGA_AR_ADDR 0x3C0 /* index and data writes (flip-flop) */
#define VGA_AR_READ 0x3C1
#define VGA_MSR_WRITE 0x3C2
#define VGA_MSR_READ 0x3CC
#define VGA_SR_ADDR 0x3C4
#define VGA_DAC_MASK 0x3C6
#define VGA_DAC_READ_INDEX 0x3C7
#define VGA_DAC_WRITE_INDEX 0x3C8
#define VGA_DAC_DATA 0x3C9
#define VGA_GR_ADDR 0x3CE
#define VGA_CRTC_COLOUR 0x3D4
#define VGA_CRTC_MONO 0x3B4
#define VGA_ST01_COLOUR 0x3DA
#define VGA_ST01_MONO 0x3BA

#define MSR_COLOUR 0x01
#define MSR_RAM_ENABLE 0x02
#define SR00_SYNC_RESET 0x01 /* bit 1 clear: synchronous reset; bit 0 set: no async reset */
#define SR00_RUN 0x03
#define SR01_SCREEN_OFF 0x20
#define SR04_PLANAR 0x06 /* extended memory, odd/even off, chain-4 off */
#define CR11_PROTECT 0x80
#define CR_VRETRACE_END 0x11
#define GR05_PLANAR 0x00    /* write mode 0, read mode 0, no odd/even */
#define GR06_A0000_64K 0x05 /* graphics mode, memory map A0000-AFFFF */
#define AR_PAS 0x20

typedef struct VgaRegs {
        uint8_t flags, msr, ar_index, dac_mask;
        uint8_t sr[VGA_SR_COUNT];
        uint8_t cr[VGA_CR_COUNT];
        uint8_t gr[VGA_GR_COUNT];
        uint8_t ar[VGA_AR_COUNT];
        uint8_t palette[VGA_PALETTE_SIZE];
} VgaRegs;

/* ---- register names -------------------------------------------------------------- */

static const char *const sr_names[VGA_SR_COUNT] = {
        "reset", "clocking mode", "map mask", "character map select", "memory mode",
};

static const char *const cr_names[VGA_CR_COUNT] = {
        "horizontal total",
        "horizontal display end",
        "start horizontal blanking",
        "end horizontal blanking",
        "start horizontal retrace",
        "end horizontal retrace",
        "vertical total",
        "overflow",
        "preset row scan",
        "maximum scan line",
        "cursor start",
        "cursor end",
        "start address high",
        "start address low",
        "cursor location high",
        "cursor location low",
        "vertical retrace start",
        "vertical retrace end",
        "vertical display end",
        "offset",
        "underline location",
        "start vertical blanking",
        "end vertical blanking",
        "CRTC mode control",
        "line compare",
};

static const char *const gr_names[VGA_GR_COUNT] = {
        "set/reset",     "enable set/reset",       "colour compare",    "data rotate", "read map select",
        "graphics mode", "miscellaneous graphics", "colour don't care", "bit mask",
};

static const char *const ar_names_high[VGA_AR_COUNT - 16] = {
        "attribute mode control",   "overscan colour", "colour plane enable",
        "horizontal pixel panning", "colour select",
};

typedef struct RegGroup {
        const char *name; /* "CRTC" */
        const char *json; /* "crtc" */
        size_t offset, count;
} RegGroup;

static const RegGroup reg_groups[] = {
        { "SEQ", "sequencer", VGA_OFF_SR, VGA_SR_COUNT },
        { "CRTC", "crtc", VGA_OFF_CR, VGA_CR_COUNT },
        { "GC", "graphics", VGA_OFF_GR, VGA_GR_COUNT },
        { "ATTR", "attribute", VGA_OFF_AR, VGA_AR_COUNT },
};

static const char *reg_name(const RegGroup *g, size_t i, char buf[static 32])
{
        if (g->offset == VGA_OFF_SR)
                return sr_names[i];
        if (g->offset == VGA_OFF_CR)
                return cr_names[i];
        if (g->offset == VGA_OFF_GR)
                return gr_names[i];
        if (i >= 16)
                return ar_names_high[i - 16];
        snprintf(buf, 32, "palette %zu", i);
        return buf;
}

/* ---- payload --------------------------------------------------------------------- */

static int vga_check(const uint8_t *payload, size_t len)
{
        uint8_t flags;

        if (!payload || len < VGA_PAYLOAD_REGS_SIZE)
                return -EBADMSG;
        flags = payload[VGA_OFF_FLAGS];
        if (flags & ~VGA_FLAGS_KNOWN)
                return -EBADMSG;
        if ((flags & VGA_FLAG_PLANES) && (flags & VGA_FLAG_DISPI))
                return -EBADMSG;
        if (len != VGA_PAYLOAD_REGS_SIZE + ((flags & VGA_FLAG_PLANES) ? VGA_PAYLOAD_PLANES_SIZE : 0))
                return -EBADMSG;
        return 0;
}

static void vga_regs_from_payload(VgaRegs *r, const uint8_t *p)
{
        r->flags = p[VGA_OFF_FLAGS];
        r->msr = p[VGA_OFF_MSR];
        r->ar_index = p[VGA_OFF_AR_INDEX];
        r->dac_mask = p[VGA_OFF_DAC_MASK];
        memcpy(r->sr, p + VGA_OFF_SR, VGA_SR_COUNT);
        memcpy(r->cr, p + VGA_OFF_CR, VGA_CR_COUNT);
        memcpy(r->gr, p + VGA_OFF_GR, VGA_GR_COUNT);
        memcpy(r->ar, p + VGA_OFF_AR, VGA_AR_COUNT);
        memcpy(r->palette, p + VGA_OFF_PALETTE, VGA_PALETTE_SIZE);
}

static int vga_regs_to_payload(const VgaRegs *r, const uint8_t *planes, Buffer *out)
{
        uint8_t head[4] = { r->flags, r->msr, r->ar_index, r->dac_mask };
        int k;

        k = buffer_reserve(out, VGA_PAYLOAD_REGS_SIZE + (planes ? VGA_PAYLOAD_PLANES_SIZE : 0));
        if (k < 0)
                return k;
        (void)buffer_append(out, head, sizeof(head));
        (void)buffer_append(out, r->sr, VGA_SR_COUNT);
        (void)buffer_append(out, r->cr, VGA_CR_COUNT);
        (void)buffer_append(out, r->gr, VGA_GR_COUNT);
        (void)buffer_append(out, r->ar, VGA_AR_COUNT);
        (void)buffer_append(out, r->palette, VGA_PALETTE_SIZE);
        if (planes)
                (void)buffer_append(out, planes, VGA_PAYLOAD_PLANES_SIZE);
        return 0;
}

/* The DAC mask to program for a saved one: 0x00 ("all colours masked") is what QEMU's std
 * VGA reads back whatever the real mask is, so it is never written back. */
static uint8_t vga_dac_mask_to_write(uint8_t saved)
{
        return saved == 0x00 ? 0xFF : saved;
}

/* ---- port rituals ---------------------------------------------------------------- */

static uint16_t vga_crtc_port(uint8_t msr)
{
        return (msr & MSR_COLOUR) ? VGA_CRTC_COLOUR : VGA_CRTC_MONO;
}

static uint16_t vga_st01_port(uint8_t msr)
{
        return (msr & MSR_COLOUR) ? VGA_ST01_COLOUR : VGA_ST01_MONO;
}

static int vga_read_st01(Hw *hw, uint16_t st01)
{
        uint8_t dummy;
        return hw_inb(hw, st01, &dummy);
}

/* Attribute register read: reset the flip-flop, select the index with PAS clear (the palette
 * registers are reachable only then), read the data port. */
static int vga_attr_read(Hw *hw, uint16_t st01, uint8_t index, uint8_t *ret)
{
        int r = vga_read_st01(hw, st01);
        if (r < 0)
                return r;
        r = hw_outb(hw, VGA_AR_ADDR, index & 0x1F);
        if (r < 0)
                return r;
        return hw_inb(hw, VGA_AR_READ, ret);
}

static int vga_attr_write(Hw *hw, uint16_t st01, uint8_t index, uint8_t value)
{
        int r = vga_read_st01(hw, st01);
        if (r < 0)
                return r;
        r = hw_outb(hw, VGA_AR_ADDR, index & 0x1F);
        if (r < 0)
                return r;
        return hw_outb(hw, VGA_AR_ADDR, value);
}

/* Writes the attribute index (PAS included) and leaves the flip-flop reset. */
static int vga_attr_set_index(Hw *hw, uint16_t st01, uint8_t index)
{
        int r = vga_read_st01(hw, st01);
        if (r < 0)
                return r;
        r = hw_outb(hw, VGA_AR_ADDR, index);
        if (r < 0)
                return r;
        return vga_read_st01(hw, st01);
}

/* A sequencer register write inside a synchronous reset. */
static int vga_seq_write_in_reset(Hw *hw, uint8_t index, uint8_t value, uint8_t sr00_after)
{
        int r = hw_write_indexed(hw, VGA_SR_ADDR, 0x00, SR00_SYNC_RESET);
        if (r < 0)
                return r;
        r = hw_write_indexed(hw, VGA_SR_ADDR, index, value);
        if (r < 0)
                return r;
        return hw_write_indexed(hw, VGA_SR_ADDR, 0x00, sr00_after);
}

/* ---- probe and save -------------------------------------------------------------- */

static int vga_probe(Hw *hw, const DisplayDevice *d)
{
        if (!d)
                return -EINVAL;
        return (d->class_code >> 8) == 0x0300 || d->boot_vga ? 1 : 0;
}

/* Copies the four planes out with the screen blanked, then puts back every register the
 * ritual touched. regs holds the values read before. */
static int vga_save_planes(Hw *hw, const VgaRegs *regs, uint8_t *planes)
{
        bool msr_changed = !(regs->msr & MSR_RAM_ENABLE);
        int r, k = 0;

        /* Blank and switch to plain planar access, inside a synchronous reset. */
        r = hw_write_indexed(hw, VGA_SR_ADDR, 0x00, SR00_SYNC_RESET);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_SR_ADDR, 0x01, regs->sr[1] | SR01_SCREEN_OFF);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_SR_ADDR, 0x04, SR04_PLANAR);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_SR_ADDR, 0x00, SR00_RUN);
        if (r >= 0 && msr_changed)
                r = hw_outb(hw, VGA_MSR_WRITE, regs->msr | MSR_RAM_ENABLE);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_GR_ADDR, 0x05, GR05_PLANAR);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_GR_ADDR, 0x06, GR06_A0000_64K);

        for (unsigned p = 0; r >= 0 && p < VGA_PLANE_COUNT; p++) {
                r = hw_write_indexed(hw, VGA_GR_ADDR, 0x04, (uint8_t)p);
                if (r >= 0)
                        r = hw_vga_mem_read(hw, 0, planes + p * VGA_PLANE_SIZE, VGA_PLANE_SIZE);
        }

        /* Put back what the ritual clobbered, even after a failure; unblank last. */
        k = hw_write_indexed(hw, VGA_GR_ADDR, 0x04, regs->gr[4]);
        k = MIN(k, hw_write_indexed(hw, VGA_GR_ADDR, 0x05, regs->gr[5]));
        k = MIN(k, hw_write_indexed(hw, VGA_GR_ADDR, 0x06, regs->gr[6]));
        if (msr_changed)
                k = MIN(k, hw_outb(hw, VGA_MSR_WRITE, regs->msr));
        k = MIN(k, hw_write_indexed(hw, VGA_SR_ADDR, 0x00, SR00_SYNC_RESET));
        k = MIN(k, hw_write_indexed(hw, VGA_SR_ADDR, 0x04, regs->sr[4]));
        k = MIN(k, hw_write_indexed(hw, VGA_SR_ADDR, 0x01, regs->sr[1]));
        k = MIN(k, hw_write_indexed(hw, VGA_SR_ADDR, 0x00, regs->sr[0]));
        return r < 0 ? r : k;
}

/* Reads every register into regs (and the planes when in a VGA mode), leaving the
 * hardware as found: index registers, CR11 and the attribute index are put back. */
static int vga_save_locked(Hw *hw, const DisplayDevice *d, VgaRegs *regs, uint8_t **ret_planes)
{
        _cleanup_free_ uint8_t *planes = NULL;
        uint8_t sr_index, gr_index, cr_index;
        uint16_t crtc, st01;
        bool dispi = false, cr_unlocked = false;
        int r, k;

        r = hw_inb(hw, VGA_MSR_READ, &regs->msr);
        if (r < 0)
                return r;
        crtc = vga_crtc_port(regs->msr);
        st01 = vga_st01_port(regs->msr);

        r = hw_inb(hw, VGA_SR_ADDR, &sr_index);
        if (r < 0)
                return r;
        r = hw_inb(hw, VGA_GR_ADDR, &gr_index);
        if (r < 0)
                return r;
        r = hw_inb(hw, crtc, &cr_index);
        if (r < 0)
                return r;

        for (uint8_t i = 0; r >= 0 && i < VGA_SR_COUNT; i++)
                r = hw_read_indexed(hw, VGA_SR_ADDR, i, &regs->sr[i]);

        /* CRTC: unlock CR00-CR07 first, read, then put the saved CR11 back. */
        if (r >= 0)
                r = hw_read_indexed(hw, crtc, CR_VRETRACE_END, &regs->cr[CR_VRETRACE_END]);
        if (r >= 0 && (regs->cr[CR_VRETRACE_END] & CR11_PROTECT)) {
                r = hw_write_indexed(hw, crtc, CR_VRETRACE_END, regs->cr[CR_VRETRACE_END] & ~CR11_PROTECT);
                cr_unlocked = r >= 0;
        }
        for (uint8_t i = 0; r >= 0 && i < VGA_CR_COUNT; i++)
                if (i != CR_VRETRACE_END)
                        r = hw_read_indexed(hw, crtc, i, &regs->cr[i]);
        if (cr_unlocked) {
                k = hw_write_indexed(hw, crtc, CR_VRETRACE_END, regs->cr[CR_VRETRACE_END]);
                r = MIN(r, k);
        }

        for (uint8_t i = 0; r >= 0 && i < VGA_GR_COUNT; i++)
                r = hw_read_indexed(hw, VGA_GR_ADDR, i, &regs->gr[i]);

        /* Attribute controller: note the index (PAS) as found, read with the flip-flop
         * ritual, then put the index back. */
        if (r >= 0)
                r = vga_read_st01(hw, st01);
        if (r >= 0)
                r = hw_inb(hw, VGA_AR_ADDR, &regs->ar_index);
        if (r >= 0) {
                for (uint8_t i = 0; r >= 0 && i < VGA_AR_COUNT; i++)
                        r = vga_attr_read(hw, st01, i, &regs->ar[i]);
                k = vga_attr_set_index(hw, st01, regs->ar_index);
                r = MIN(r, k);
        }

        if (r >= 0)
                r = hw_inb(hw, VGA_DAC_MASK, &regs->dac_mask);
        if (r >= 0)
                r = hw_outb(hw, VGA_DAC_READ_INDEX, 0x00);
        for (size_t i = 0; r >= 0 && i < VGA_PALETTE_SIZE; i++)
                r = hw_inb(hw, VGA_DAC_DATA, &regs->palette[i]);

        /* Planes only in a VGA mode: in a Bochs dispi mode 0xA0000 is frame buffer. */
        if (r >= 0)
                r = dispi_mode_enabled(hw, d, &dispi);
        if (r >= 0) {
                if (dispi)
                        regs->flags |= VGA_FLAG_DISPI;
                else {
                        planes = malloc(VGA_PAYLOAD_PLANES_SIZE);
                        if (!planes)
                                r = -ENOMEM;
                        else
                                r = vga_save_planes(hw, regs, planes);
                        if (r >= 0)
                                regs->flags |= VGA_FLAG_PLANES;
                }
        }

        /* Put the index registers back as found. */
        k = hw_outb(hw, crtc, cr_index);
        k = MIN(k, hw_outb(hw, VGA_GR_ADDR, gr_index));
        k = MIN(k, hw_outb(hw, VGA_SR_ADDR, sr_index));
        if (r < 0)
                return r;
        if (k < 0)
                return k;

        *ret_planes = TAKE_PTR(planes);
        return 0;
}

static int vga_save(Hw *hw, const DisplayDevice *d, Buffer *out)
{
        _cleanup_free_ uint8_t *planes = NULL;
        VgaRegs regs = { 0 };
        int r, k;

        if (!out)
                return -EINVAL;

        r = hw_vga_lock(hw);
        if (r < 0)
                return r;
        r = vga_save_locked(hw, d, &regs, &planes);
        k = hw_vga_unlock(hw);
        if (r < 0)
                return r;
        if (k < 0)
                return k;

        return vga_regs_to_payload(&regs, planes, out);
}

/* ---- restore --------------------------------------------------------------------- */

/* Writes the planes with the screen blanked, then the saved values of every register the
 * plane-write ritual clobbered, then unblanks (SR01 last). */
static int vga_restore_planes(Hw *hw, const VgaRegs *regs, const uint8_t *planes)
{
        bool msr_changed = !(regs->msr & MSR_RAM_ENABLE);
        int r, k;

        r = hw_write_indexed(hw, VGA_SR_ADDR, 0x00, SR00_SYNC_RESET);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_SR_ADDR, 0x01, regs->sr[1] | SR01_SCREEN_OFF);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_SR_ADDR, 0x04, SR04_PLANAR);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_SR_ADDR, 0x00, SR00_RUN);
        if (r >= 0 && msr_changed)
                r = hw_outb(hw, VGA_MSR_WRITE, regs->msr | MSR_RAM_ENABLE);
        /* Write mode 0, no set/reset, no rotation or logic, all bits: bytes land as given. */
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_GR_ADDR, 0x01, 0x00);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_GR_ADDR, 0x03, 0x00);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_GR_ADDR, 0x05, GR05_PLANAR);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_GR_ADDR, 0x06, GR06_A0000_64K);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_GR_ADDR, 0x08, 0xFF);

        for (unsigned p = 0; r >= 0 && p < VGA_PLANE_COUNT; p++) {
                r = vga_seq_write_in_reset(hw, 0x02, (uint8_t)(1u << p), SR00_RUN);
                if (r >= 0)
                        r = hw_vga_mem_write(hw, 0, planes + p * VGA_PLANE_SIZE, VGA_PLANE_SIZE);
        }

        k = hw_write_indexed(hw, VGA_GR_ADDR, 0x01, regs->gr[1]);
        k = MIN(k, hw_write_indexed(hw, VGA_GR_ADDR, 0x03, regs->gr[3]));
        k = MIN(k, hw_write_indexed(hw, VGA_GR_ADDR, 0x05, regs->gr[5]));
        k = MIN(k, hw_write_indexed(hw, VGA_GR_ADDR, 0x06, regs->gr[6]));
        k = MIN(k, hw_write_indexed(hw, VGA_GR_ADDR, 0x08, regs->gr[8]));
        if (msr_changed)
                k = MIN(k, hw_outb(hw, VGA_MSR_WRITE, regs->msr));
        k = MIN(k, hw_write_indexed(hw, VGA_SR_ADDR, 0x00, SR00_SYNC_RESET));
        k = MIN(k, hw_write_indexed(hw, VGA_SR_ADDR, 0x02, regs->sr[2]));
        k = MIN(k, hw_write_indexed(hw, VGA_SR_ADDR, 0x04, regs->sr[4]));
        k = MIN(k, hw_write_indexed(hw, VGA_SR_ADDR, 0x01, regs->sr[1]));
        k = MIN(k, hw_write_indexed(hw, VGA_SR_ADDR, 0x00, regs->sr[0]));
        return r < 0 ? r : k;
}

static int vga_restore_locked(Hw *hw, const DisplayDevice *d, const VgaRegs *regs, const uint8_t *planes)
{
        uint16_t crtc = vga_crtc_port(regs->msr), st01 = vga_st01_port(regs->msr);
        bool blanked = false;
        int r, k;

        /* Saved in a VGA mode but now in a dispi mode (e.g. firmware set one on wake): leave
         * it, or the planes would land in the linear frame buffer. */
        if (planes) {
                bool dispi;
                r = dispi_mode_enabled(hw, d, &dispi);
                if (r < 0)
                        return r;
                if (dispi) {
                        uint16_t saved_index;
                        r = hw_inw(hw, DISPI_PORT_INDEX, &saved_index);
                        if (r >= 0)
                                r = dispi_write(hw, DISPI_ENABLE, 0x0000);
                        if (r >= 0)
                                r = hw_outw(hw, DISPI_PORT_INDEX, saved_index);
                        if (r < 0)
                                return r;
                }
        }

        r = hw_outb(hw, VGA_MSR_WRITE, regs->msr);
        if (r < 0)
                return r;

        /* Sequencer inside a synchronous reset; keep the screen off while planes follow. */
        r = hw_write_indexed(hw, VGA_SR_ADDR, 0x00, SR00_SYNC_RESET);
        if (r >= 0) {
                blanked = planes != NULL;
                r = hw_write_indexed(hw, VGA_SR_ADDR, 0x01,
                                      planes ? regs->sr[1] | SR01_SCREEN_OFF : regs->sr[1]);
        }
        for (uint8_t i = 2; r >= 0 && i < VGA_SR_COUNT; i++)
                r = hw_write_indexed(hw, VGA_SR_ADDR, i, regs->sr[i]);
        if (r >= 0)
                r = hw_write_indexed(hw, VGA_SR_ADDR, 0x00, regs->sr[0]);

        /* CRTC: unlock CR00-CR07, write them all, then the saved CR11 (which may lock). */
        if (r >= 0)
                r = hw_write_indexed(hw, crtc, CR_VRETRACE_END, regs->cr[CR_VRETRACE_END] & ~CR11_PROTECT);
        for (uint8_t i = 0; r >= 0 && i < VGA_CR_COUNT; i++)
                if (i != CR_VRETRACE_END)
                        r = hw_write_indexed(hw, crtc, i, regs->cr[i]);
        if (r >= 0)
                r = hw_write_indexed(hw, crtc, CR_VRETRACE_END, regs->cr[CR_VRETRACE_END]);

        for (uint8_t i = 0; r >= 0 && i < VGA_GR_COUNT; i++)
                r = hw_write_indexed(hw, VGA_GR_ADDR, i, regs->gr[i]);

        for (uint8_t i = 0; r >= 0 && i < VGA_AR_COUNT; i++)
                r = vga_attr_write(hw, st01, i, regs->ar[i]);
        if (r >= 0)
                r = vga_attr_set_index(hw, st01, (uint8_t)((regs->ar_index & 0x1F) | AR_PAS));

        if (r >= 0)
                r = hw_outb(hw, VGA_DAC_MASK, vga_dac_mask_to_write(regs->dac_mask));
        if (r >= 0)
                r = hw_outb(hw, VGA_DAC_WRITE_INDEX, 0x00);
        for (size_t i = 0; r >= 0 && i < VGA_PALETTE_SIZE; i++)
                r = hw_outb(hw, VGA_DAC_DATA, regs->palette[i]);

        if (r >= 0 && planes) {
                r = vga_restore_planes(hw, regs, planes);
                blanked = false; /* the ritual unblanks even when it fails */
        }
        if (r >= 0)
                return 0;

        /* Failed half-way: never leave the screen blanked or the palette source off. */
        if (blanked) {
                k = hw_write_indexed(hw, VGA_SR_ADDR, 0x00, SR00_SYNC_RESET);
                if (k >= 0)
                        k = hw_write_indexed(hw, VGA_SR_ADDR, 0x01, regs->sr[1]);
                if (k >= 0)
                        (void)hw_write_indexed(hw, VGA_SR_ADDR, 0x00, regs->sr[0]);
        }
        (void)vga_attr_set_index(hw, st01, (uint8_t)((regs->ar_index & 0x1F) | AR_PAS));
        return r;
}

static int vga_restore(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len)
{
        VgaRegs regs;
        int r, k;

        r = vga_check(payload, len);
        if (r < 0)
                return r;
        vga_regs_from_payload(&regs, payload);

        r = hw_vga_lock(hw);
        if (r < 0)
                return r;
        r = vga_restore_locked(hw, d, &regs,
                               (regs.flags & VGA_FLAG_PLANES) ? payload + VGA_OFF_PLANES : NULL);
        k = hw_vga_unlock(hw);
        return r < 0 ? r : k;
}

/* ---- disturb (--test-restore) ------------------------------------------------------ */

/* Takes from the VGA what a wake from S3 takes, as far as it is safe by hand: the screen off
 * through the sequencer, the attribute palette disabled (PAS clear), the DAC mask cleared.
 * Every register it writes is part of the saved state; the restore that follows writes it. */
static int vga_disturb_locked(Hw *hw)
{
        uint8_t msr, sr01;
        int r;

        r = hw_inb(hw, VGA_MSR_READ, &msr);
        if (r < 0)
                return r;
        r = hw_read_indexed(hw, VGA_SR_ADDR, 0x01, &sr01);
        if (r < 0)
                return r;
        r = hw_write_indexed(hw, VGA_SR_ADDR, 0x01, sr01 | SR01_SCREEN_OFF);
        if (r < 0)
                return r;
        r = vga_attr_set_index(hw, vga_st01_port(msr), 0x00);
        if (r < 0)
                return r;
        return hw_outb(hw, VGA_DAC_MASK, 0x00);
}

static int vga_disturb(Hw *hw, const DisplayDevice *d)
{
        int r, k;

        (void)d;
        r = hw_vga_lock(hw);
        if (r < 0)
                return r;
        r = vga_disturb_locked(hw);
        k = hw_vga_unlock(hw);
        return r < 0 ? r : k;
}

/* ---- verify ---------------------------------------------------------------------- */

static void vga_report(Buffer *report, const char *group, size_t i, uint8_t is, uint8_t expected)
{
        if (report)
                (void)buffer_printf(report, "%s[0x%02zx] = 0x%02x, expected 0x%02x\n", group, i, is,
                                    expected);
}

static int vga_compare_group(const char *group, const uint8_t *is, const uint8_t *expected, size_t n,
                             Buffer *report)
{
        int mismatches = 0;
        for (size_t i = 0; i < n; i++)
                if (is[i] != expected[i]) {
                        vga_report(report, group, i, is[i], expected[i]);
                        mismatches++;
                }
        return mismatches;
}

/* Reads back the registers and the palette (not the planes: reading them needs the
 * blanking ritual again) and counts mismatches. Index registers are put back. */
static int vga_verify_locked(Hw *hw, const VgaRegs *want, Buffer *report)
{
        VgaRegs is = { 0 };
        uint8_t sr_index, gr_index, cr_index;
        uint16_t crtc, st01;
        int r, k, mismatches = 0;

        r = hw_inb(hw, VGA_MSR_READ, &is.msr);
        if (r < 0)
                return r;
        crtc = vga_crtc_port(is.msr);
        st01 = vga_st01_port(is.msr);

        r = hw_inb(hw, VGA_SR_ADDR, &sr_index);
        if (r >= 0)
                r = hw_inb(hw, VGA_GR_ADDR, &gr_index);
        if (r >= 0)
                r = hw_inb(hw, crtc, &cr_index);
        if (r < 0)
                return r;

        for (uint8_t i = 0; r >= 0 && i < VGA_SR_COUNT; i++)
                r = hw_read_indexed(hw, VGA_SR_ADDR, i, &is.sr[i]);
        for (uint8_t i = 0; r >= 0 && i < VGA_CR_COUNT; i++)
                r = hw_read_indexed(hw, crtc, i, &is.cr[i]);
        for (uint8_t i = 0; r >= 0 && i < VGA_GR_COUNT; i++)
                r = hw_read_indexed(hw, VGA_GR_ADDR, i, &is.gr[i]);
        if (r >= 0)
                r = vga_read_st01(hw, st01);
        if (r >= 0)
                r = hw_inb(hw, VGA_AR_ADDR, &is.ar_index);
        if (r >= 0) {
                for (uint8_t i = 0; r >= 0 && i < VGA_AR_COUNT; i++)
                        r = vga_attr_read(hw, st01, i, &is.ar[i]);
                k = vga_attr_set_index(hw, st01, is.ar_index);
                r = MIN(r, k);
        }
        if (r >= 0)
                r = hw_inb(hw, VGA_DAC_MASK, &is.dac_mask);
        if (r >= 0)
                r = hw_outb(hw, VGA_DAC_READ_INDEX, 0x00);
        for (size_t i = 0; r >= 0 && i < VGA_PALETTE_SIZE; i++)
                r = hw_inb(hw, VGA_DAC_DATA, &is.palette[i]);

        k = hw_outb(hw, crtc, cr_index);
        k = MIN(k, hw_outb(hw, VGA_GR_ADDR, gr_index));
        k = MIN(k, hw_outb(hw, VGA_SR_ADDR, sr_index));
        if (r < 0)
                return r;
        if (k < 0)
                return k;

        if (is.msr != want->msr) {
                if (report)
                        (void)buffer_printf(report, "MISC = 0x%02x, expected 0x%02x\n", is.msr, want->msr);
                mismatches++;
        }
        mismatches += vga_compare_group("SEQ", is.sr, want->sr, VGA_SR_COUNT, report);
        mismatches += vga_compare_group("CRTC", is.cr, want->cr, VGA_CR_COUNT, report);
        mismatches += vga_compare_group("GC", is.gr, want->gr, VGA_GR_COUNT, report);
        mismatches += vga_compare_group("ATTR", is.ar, want->ar, VGA_AR_COUNT, report);
        if (!(is.ar_index & AR_PAS)) {
                if (report)
                        (void)buffer_printf(
                                report, "ATTR index = 0x%02x, expected palette address source (0x20) set\n",
                                is.ar_index);
                mismatches++;
        }
        /* A saved 0x00 was QEMU's read-back quirk: accept it read back as 0x00 again. */
        if (is.dac_mask != vga_dac_mask_to_write(want->dac_mask) &&
            !(want->dac_mask == 0 && is.dac_mask == 0)) {
                if (report)
                        (void)buffer_printf(report, "DAC mask = 0x%02x, expected 0x%02x\n", is.dac_mask,
                                            vga_dac_mask_to_write(want->dac_mask));
                mismatches++;
        }
        for (size_t e = 0; e < VGA_PALETTE_SIZE / 3; e++) {
                const uint8_t *a = is.palette + 3 * e, *b = want->palette + 3 * e;
                if (memcmp(a, b, 3) == 0)
                        continue;
                if (report)
                        (void)buffer_printf(
                                report,
                                "DAC[0x%02zx] = (0x%02x,0x%02x,0x%02x), expected (0x%02x,0x%02x,0x%02x)\n",
                                e, a[0], a[1], a[2], b[0], b[1], b[2]);
                mismatches++;
        }
        return mismatches;
}

/* The VGA registers alone do not say which mode the picture is in: on a device with the
 * Bochs dispi interface a dispi (VESA) mode overrides them. A dispi mode saved but not
 * enabled now (nothing restored it), or enabled now over a saved VGA mode, is a mismatch. */
static int vga_verify_mode_kind(Hw *hw, const DisplayDevice *d, uint8_t flags, Buffer *report)
{
        bool dispi, want = flags & VGA_FLAG_DISPI;
        int r;

        r = dispi_mode_enabled(hw, d, &dispi);
        if (r < 0)
                return r;
        if (dispi == want)
                return 0;
        if (report)
                (void)buffer_printf(report, "%s\n",
                                    want ? "Bochs dispi mode saved but not enabled now: the VGA registers are "
                                           "back, the mode is not (the bochs method restores it)"
                                         : "a Bochs dispi mode is enabled over the saved VGA mode");
        return 1;
}

static int vga_verify(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len, Buffer *report)
{
        VgaRegs want;
        int r, k;

        r = vga_check(payload, len);
        if (r < 0)
                return r;
        vga_regs_from_payload(&want, payload);

        r = hw_vga_lock(hw);
        if (r < 0)
                return r;
        r = vga_verify_locked(hw, &want, report);
        if (r >= 0) {
                k = vga_verify_mode_kind(hw, d, want.flags, report);
                r = k < 0 ? k : r + k;
        }
        k = hw_vga_unlock(hw);
        if (r < 0)
                return r;
        return k < 0 ? k : r;
}

static unsigned vga_modes(const DisplayDevice *d)
{
        (void)d;
        return METHOD_MODE_VGA;
}

/* ---- dump ------------------------------------------------------------------------ */

static unsigned vga_palette_distinct(const uint8_t *palette)
{
        unsigned n = 0;
        for (size_t e = 0; e < VGA_PALETTE_SIZE / 3; e++) {
                bool seen = false;
                for (size_t f = 0; f < e && !seen; f++)
                        seen = memcmp(palette + 3 * e, palette + 3 * f, 3) == 0;
                if (!seen)
                        n++;
        }
        return n;
}

static size_t vga_plane_nonzero(const uint8_t *plane)
{
        size_t n = 0;
        for (size_t i = 0; i < VGA_PLANE_SIZE; i++)
                if (plane[i])
                        n++;
        return n;
}

static const char *vga_contents_to_string(uint8_t flags)
{
        if (flags & VGA_FLAG_PLANES)
                return "registers, palette and planes";
        if (flags & VGA_FLAG_DISPI)
                return "registers and palette; planes not saved (Bochs dispi mode)";
        return "registers and palette; planes not saved";
}

static int vga_dump_text(const uint8_t *payload, Buffer *out)
{
        uint8_t flags = payload[VGA_OFF_FLAGS];
        const uint8_t *pal = payload + VGA_OFF_PALETTE;
        char buf[32];
        int r;

        r = buffer_printf(out, "vga: %s\n", vga_contents_to_string(flags));
        if (r >= 0)
                r = buffer_printf(out, "MISC = 0x%02x  (%s)\n", payload[VGA_OFF_MSR],
                                  (payload[VGA_OFF_MSR] & MSR_COLOUR) ? "colour, CRTC at 0x3d4"
                                                                      : "mono, CRTC at 0x3b4");
        for (size_t g = 0; r >= 0 && g < ELEMENTSOF(reg_groups); g++)
                for (size_t i = 0; r >= 0 && i < reg_groups[g].count; i++)
                        r = buffer_printf(out, "%s[0x%02zx] = 0x%02x  (%s)\n", reg_groups[g].name, i,
                                          payload[reg_groups[g].offset + i],
                                          reg_name(&reg_groups[g], i, buf));
        if (r >= 0)
                r = buffer_printf(out, "ATTR index = 0x%02x  (palette address source %s)\n",
                                  payload[VGA_OFF_AR_INDEX],
                                  (payload[VGA_OFF_AR_INDEX] & AR_PAS) ? "set" : "clear");
        if (r >= 0)
                r = buffer_printf(out, "DAC mask = 0x%02x%s\n", payload[VGA_OFF_DAC_MASK],
                                  payload[VGA_OFF_DAC_MASK] == 0 ? "  (restored as 0xff)" : "");
        if (r >= 0)
                r = buffer_printf(out, "DAC palette: 256 entries, %u distinct colours\n",
                                  vga_palette_distinct(pal));
        for (size_t e = 0; r >= 0 && e < 16; e++)
                r = buffer_printf(out, "DAC[0x%02zx] = (0x%02x,0x%02x,0x%02x)\n", e, pal[3 * e],
                                  pal[3 * e + 1], pal[3 * e + 2]);
        if (r >= 0 && (flags & VGA_FLAG_PLANES)) {
                r = buffer_printf(out, "planes: %u x %u bytes\n", VGA_PLANE_COUNT, VGA_PLANE_SIZE);
                for (unsigned p = 0; r >= 0 && p < VGA_PLANE_COUNT; p++)
                        r = buffer_printf(out, "plane %u: %zu non-zero bytes\n", p,
                                          vga_plane_nonzero(payload + VGA_OFF_PLANES + p * VGA_PLANE_SIZE));
        } else if (r >= 0)
                r = buffer_printf(out, "planes: not saved\n");
        return r;
}

static int vga_dump_json(const uint8_t *payload, Buffer *out)
{
        uint8_t flags = payload[VGA_OFF_FLAGS];
        const uint8_t *pal = payload + VGA_OFF_PALETTE;
        int r;

        r = buffer_printf(out,
                          "{\"flags\":%u,\"planes_saved\":%s,\"dispi_mode\":%s,\"registers\":{\"MISC\":%u",
                          flags, (flags & VGA_FLAG_PLANES) ? "true" : "false",
                          (flags & VGA_FLAG_DISPI) ? "true" : "false", payload[VGA_OFF_MSR]);
        for (size_t g = 0; r >= 0 && g < ELEMENTSOF(reg_groups); g++)
                for (size_t i = 0; r >= 0 && i < reg_groups[g].count; i++)
                        r = buffer_printf(out, ",\"%s[0x%02zx]\":%u", reg_groups[g].name, i,
                                          payload[reg_groups[g].offset + i]);
        if (r >= 0)
                r = buffer_printf(out, "},\"attribute_index\":%u,\"dac_mask\":%u", payload[VGA_OFF_AR_INDEX],
                                  payload[VGA_OFF_DAC_MASK]);
        for (size_t g = 0; r >= 0 && g < ELEMENTSOF(reg_groups); g++) {
                r = buffer_printf(out, ",\"%s\":[", reg_groups[g].json);
                for (size_t i = 0; r >= 0 && i < reg_groups[g].count; i++)
                        r = buffer_printf(out, "%s%u", i ? "," : "", payload[reg_groups[g].offset + i]);
                if (r >= 0)
                        r = buffer_append_u8(out, ']');
        }
        if (r >= 0)
                r = buffer_printf(out, ",\"palette\":{\"entries\":256,\"distinct\":%u,\"first16\":[",
                                  vga_palette_distinct(pal));
        for (size_t e = 0; r >= 0 && e < 16; e++)
                r = buffer_printf(out, "%s[%u,%u,%u]", e ? "," : "", pal[3 * e], pal[3 * e + 1],
                                  pal[3 * e + 2]);
        if (r >= 0)
                r = buffer_printf(out, "]},\"planes\":{\"count\":%u,\"size\":%u",
                                  (flags & VGA_FLAG_PLANES) ? VGA_PLANE_COUNT : 0, VGA_PLANE_SIZE);
        if (r >= 0 && (flags & VGA_FLAG_PLANES)) {
                r = buffer_printf(out, ",\"nonzero\":[");
                for (unsigned p = 0; r >= 0 && p < VGA_PLANE_COUNT; p++)
                        r = buffer_printf(out, "%s%zu", p ? "," : "",
                                          vga_plane_nonzero(payload + VGA_OFF_PLANES + p * VGA_PLANE_SIZE));
                if (r >= 0)
                        r = buffer_append_u8(out, ']');
        }
        if (r >= 0)
                r = buffer_printf(out, "}}");
        return r;
}

static int vga_dump(const uint8_t *payload, size_t len, bool json, Buffer *out)
{
        int r;

        if (!out)
                return -EINVAL;
        r = vga_check(payload, len);
        if (r < 0)
                return r;
        return json ? vga_dump_json(payload, out) : vga_dump_text(payload, out);
}

const MethodOps method_vga = {
        .name = "vga",
        .id = VGA_METHOD_ID,
        .version = VGA_METHOD_VERSION,
        .probe = vga_probe,
        .save = vga_save,
        .check = vga_check,
        .restore = vga_restore,
        .verify = vga_verify,
        .disturb = vga_disturb,
        .modes = vga_modes,
        .dump = vga_dump,
};
