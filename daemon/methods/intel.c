/* SPDX-License-Identifier: MIT */
/* The "intel" method: saves the Gen2-Gen4 display engine (PLLs, pipes, planes, palettes,
 * cursors, panel fitter, ports, panel power, backlight, VGA control, scratch) over the MMIO
 * BAR and restores it in the order of the UMS driver, every wait bounded.
 * Reference: reference/intel-ums-registers.md ([K] i915_suspend.c of 2.6.33, [D] the DDX). */
#include <inttypes.h>

#include "methods/intel.h"

/* Bits. */
#define DPLL_VCO_ENABLE (1u << 31)
#define PIPECONF_ENABLE (1u << 31)
#define PIPECONF_ACTIVE_GEN4 (1u << 30) /* read-only on Gen4: the pipe runs */
#define DSPCNTR_ENABLE (1u << 31)
#define DSPCNTR_PIPE_B (1u << 24)
#define CURCNTR_MODE 0x27u /* Gen3+: mode bits, 0 = cursor off */
#define CURCNTR_ENABLE_GEN2 (1u << 31)
#define VGACNTRL_DISABLE (1u << 31)
#define PORT_ENABLE (1u << 31) /* ADPA, DVO/SDVO, DP, LVDS */
#define PFIT_ENABLE (1u << 31)
#define PP_CONTROL_POWER_ON (1u << 0)
#define PP_STATUS_ON (1u << 31)

typedef enum IntelNeed {
        NEED_ALL,
        NEED_GEN2,
        NEED_GEN3,
        NEED_GEN4,
        NEED_LVDS, /* mobile, but not the 830M */
        NEED_PFIT, /* not on 830M or 845G */
        NEED_G4X,
} IntelNeed;

typedef struct IntelReg {
        const char *name;
        uint32_t offset;
        IntelNeed need;
} IntelReg;

/* Offsets from reference section 1; names as [K] spells them (SWF00-SWF0F at 0x71410 and
 * SWF10-SWF1F at 0x70410 as in [K]; the DDX and intel_reg swap those two names). */
static const IntelReg intel_regs[INTEL_REG_COUNT] = {
        { "DSPCLK_GATE_D", 0x06200, NEED_ALL },
        { "RENCLK_GATE_D1", 0x06204, NEED_ALL },
        { "RENCLK_GATE_D2", 0x06208, NEED_GEN4 },
        { "RAMCLK_GATE_D", 0x06210, NEED_GEN4 },
        { "D_STATE", 0x06104, NEED_GEN3 },
        { "DSPARB", 0x70030, NEED_ALL },
        { "VGA0", 0x06000, NEED_ALL },
        { "VGA1", 0x06004, NEED_ALL },
        { "VGA_PD", 0x06010, NEED_ALL },
        { "VGACNTRL", 0x71400, NEED_ALL },
        { "FPA0", 0x06040, NEED_ALL },
        { "FPA1", 0x06044, NEED_ALL },
        { "DPLL_A", 0x06014, NEED_ALL },
        { "DPLL_A_MD", 0x0601C, NEED_GEN4 },
        { "PIPEA_GMCH_DATA_M", 0x70050, NEED_G4X },
        { "PIPEA_GMCH_DATA_N", 0x70054, NEED_G4X },
        { "PIPEA_DP_LINK_M", 0x70060, NEED_G4X },
        { "PIPEA_DP_LINK_N", 0x70064, NEED_G4X },
        { "HTOTAL_A", 0x60000, NEED_ALL },
        { "HBLANK_A", 0x60004, NEED_ALL },
        { "HSYNC_A", 0x60008, NEED_ALL },
        { "VTOTAL_A", 0x6000C, NEED_ALL },
        { "VBLANK_A", 0x60010, NEED_ALL },
        { "VSYNC_A", 0x60014, NEED_ALL },
        { "BCLRPAT_A", 0x60020, NEED_ALL },
        { "PIPEASRC", 0x6001C, NEED_ALL },
        { "PIPEACONF", 0x70008, NEED_ALL },
        { "DSPACNTR", 0x70180, NEED_ALL },
        { "DSPAADDR", 0x70184, NEED_ALL },
        { "DSPASTRIDE", 0x70188, NEED_ALL },
        { "DSPAPOS", 0x7018C, NEED_ALL },
        { "DSPASIZE", 0x70190, NEED_ALL },
        { "DSPASURF", 0x7019C, NEED_GEN4 },
        { "DSPATILEOFF", 0x701A4, NEED_GEN4 },
        { "CURACNTR", 0x70080, NEED_ALL },
        { "CURABASE", 0x70084, NEED_ALL },
        { "CURAPOS", 0x70088, NEED_ALL },
        { "FPB0", 0x06048, NEED_ALL },
        { "FPB1", 0x0604C, NEED_ALL },
        { "DPLL_B", 0x06018, NEED_ALL },
        { "DPLL_B_MD", 0x06020, NEED_GEN4 },
        { "PIPEB_GMCH_DATA_M", 0x71050, NEED_G4X },
        { "PIPEB_GMCH_DATA_N", 0x71054, NEED_G4X },
        { "PIPEB_DP_LINK_M", 0x71060, NEED_G4X },
        { "PIPEB_DP_LINK_N", 0x71064, NEED_G4X },
        { "HTOTAL_B", 0x61000, NEED_ALL },
        { "HBLANK_B", 0x61004, NEED_ALL },
        { "HSYNC_B", 0x61008, NEED_ALL },
        { "VTOTAL_B", 0x6100C, NEED_ALL },
        { "VBLANK_B", 0x61010, NEED_ALL },
        { "VSYNC_B", 0x61014, NEED_ALL },
        { "BCLRPAT_B", 0x61020, NEED_ALL },
        { "PIPEBSRC", 0x6101C, NEED_ALL },
        { "PIPEBCONF", 0x71008, NEED_ALL },
        { "DSPBCNTR", 0x71180, NEED_ALL },
        { "DSPBADDR", 0x71184, NEED_ALL },
        { "DSPBSTRIDE", 0x71188, NEED_ALL },
        { "DSPBPOS", 0x7118C, NEED_ALL },
        { "DSPBSIZE", 0x71190, NEED_ALL },
        { "DSPBSURF", 0x7119C, NEED_GEN4 },
        { "DSPBTILEOFF", 0x711A4, NEED_GEN4 },
        { "CURBCNTR", 0x700C0, NEED_ALL },
        { "CURBBASE", 0x700C4, NEED_ALL },
        { "CURBPOS", 0x700C8, NEED_ALL },
        { "CURSIZE", 0x700A0, NEED_GEN2 },
        { "PFIT_PGM_RATIOS", 0x61234, NEED_PFIT },
        { "PFIT_CONTROL", 0x61230, NEED_PFIT },
        { "ADPA", 0x61100, NEED_ALL },
        { "DVOA", 0x61120, NEED_GEN2 },
        { "DVOB", 0x61140, NEED_ALL },
        { "DVOC", 0x61160, NEED_ALL },
        { "DP_B", 0x64100, NEED_G4X },
        { "DP_C", 0x64200, NEED_G4X },
        { "DP_D", 0x64300, NEED_G4X },
        { "LVDS", 0x61180, NEED_LVDS },
        { "PP_ON_DELAYS", 0x61208, NEED_ALL },
        { "PP_OFF_DELAYS", 0x6120C, NEED_ALL },
        { "PP_DIVISOR", 0x61210, NEED_ALL },
        { "PP_CONTROL", 0x61204, NEED_ALL },
        { "BLC_PWM_CTL2", 0x61250, NEED_GEN4 },
        { "BLC_PWM_CTL", 0x61254, NEED_ALL },
        { "BLC_HIST_CTL", 0x61260, NEED_ALL },
        { "SWF00", 0x71410, NEED_ALL },
        { "SWF01", 0x71414, NEED_ALL },
        { "SWF02", 0x71418, NEED_ALL },
        { "SWF03", 0x7141C, NEED_ALL },
        { "SWF04", 0x71420, NEED_ALL },
        { "SWF05", 0x71424, NEED_ALL },
        { "SWF06", 0x71428, NEED_ALL },
        { "SWF07", 0x7142C, NEED_ALL },
        { "SWF08", 0x71430, NEED_ALL },
        { "SWF09", 0x71434, NEED_ALL },
        { "SWF0A", 0x71438, NEED_ALL },
        { "SWF0B", 0x7143C, NEED_ALL },
        { "SWF0C", 0x71440, NEED_ALL },
        { "SWF0D", 0x71444, NEED_ALL },
        { "SWF0E", 0x71448, NEED_ALL },
        { "SWF0F", 0x7144C, NEED_ALL },
        { "SWF10", 0x70410, NEED_ALL },
        { "SWF11", 0x70414, NEED_ALL },
        { "SWF12", 0x70418, NEED_ALL },
        { "SWF13", 0x7041C, NEED_ALL },
        { "SWF14", 0x70420, NEED_ALL },
        { "SWF15", 0x70424, NEED_ALL },
        { "SWF16", 0x70428, NEED_ALL },
        { "SWF17", 0x7042C, NEED_ALL },
        { "SWF18", 0x70430, NEED_ALL },
        { "SWF19", 0x70434, NEED_ALL },
        { "SWF1A", 0x70438, NEED_ALL },
        { "SWF1B", 0x7043C, NEED_ALL },
        { "SWF1C", 0x70440, NEED_ALL },
        { "SWF1D", 0x70444, NEED_ALL },
        { "SWF1E", 0x70448, NEED_ALL },
        { "SWF1F", 0x7044C, NEED_ALL },
        { "SWF30", 0x72414, NEED_ALL },
        { "SWF31", 0x72418, NEED_ALL },
        { "SWF32", 0x7241C, NEED_ALL },
};

const IntelChip *intel_method_chip(const DisplayDevice *d)
{
        const IntelChip *chip;

        if (!d || d->func != 0 || (d->class_code >> 8) != 0x0300)
                return NULL;
        chip = intel_chip_lookup(d->vendor_id, d->device_id);
        if (!chip || chip->gen < 2 || chip->gen > 4)
                return NULL;
        return chip;
}

unsigned intel_mmio_bar(unsigned gen)
{
        return gen == 2 ? 1 : 0;
}

const char *intel_reg_name(unsigned slot)
{
        return slot < INTEL_REG_COUNT ? intel_regs[slot].name : "?";
}

uint32_t intel_reg_offset(unsigned slot)
{
        return slot < INTEL_REG_COUNT ? intel_regs[slot].offset : 0;
}

bool intel_reg_present(const IntelChip *chip, unsigned slot)
{
        if (!chip || slot >= INTEL_REG_COUNT)
                return false;
        switch (intel_regs[slot].need) {
        case NEED_ALL:
                return true;
        case NEED_GEN2:
                return chip->gen == 2;
        case NEED_GEN3:
                return chip->gen == 3;
        case NEED_GEN4:
                return chip->gen == 4;
        case NEED_LVDS:
                return (chip->flags & INTEL_CHIP_MOBILE) && !(chip->flags & INTEL_CHIP_830);
        case NEED_PFIT:
                return !(chip->flags & (INTEL_CHIP_830 | INTEL_CHIP_845));
        case NEED_G4X:
                return chip->flags & INTEL_CHIP_G4X;
        }
        return false;
}

/* ---- payload --------------------------------------------------------------------- */

/* A payload unpacked (values in host order). */
typedef struct IntelState {
        const IntelChip *chip;
        uint8_t flags;
        uint32_t regs[INTEL_REG_COUNT];
        uint32_t palette[2][INTEL_PALETTE_ENTRIES];
} IntelState;

static uint32_t pipe_reg(const IntelState *s, unsigned pipe, unsigned r)
{
        return s->regs[INTEL_PIPE_REG(pipe, r)];
}

static uint8_t palette_flag(unsigned pipe)
{
        return pipe == 0 ? INTEL_FLAG_PALETTE_A : INTEL_FLAG_PALETTE_B;
}

/* Unpacks and validates a payload, without any hardware access. */
static int intel_parse(const uint8_t *payload, size_t len, IntelState *s)
{
        const IntelChip *chip;

        if (!payload || len != INTEL_PAYLOAD_SIZE)
                return -EBADMSG;
        chip = intel_chip_lookup(INTEL_VENDOR_ID, read_le16(payload + INTEL_OFF_DEVICE));
        if (!chip || chip->gen > 4 || chip->gen != payload[INTEL_OFF_GEN])
                return -EBADMSG;
        if (payload[INTEL_OFF_FLAGS] & ~INTEL_FLAGS_KNOWN)
                return -EBADMSG;

        s->chip = chip;
        s->flags = payload[INTEL_OFF_FLAGS];
        for (unsigned i = 0; i < INTEL_REG_COUNT; i++) {
                s->regs[i] = read_le32(payload + INTEL_OFF_REGS + 4 * i);
                if (!intel_reg_present(chip, i) && s->regs[i] != 0)
                        return -EBADMSG;
        }
        for (unsigned p = 0; p < 2; p++) {
                bool vco = pipe_reg(s, p, INTEL_PIPE_DPLL) & DPLL_VCO_ENABLE;

                for (unsigned i = 0; i < INTEL_PALETTE_ENTRIES; i++) {
                        s->palette[p][i] = read_le32(payload + INTEL_OFF_PALETTE + 4 * (p * INTEL_PALETTE_ENTRIES + i));
                        if (!(s->flags & palette_flag(p)) && s->palette[p][i] != 0)
                                return -EBADMSG;
                }
                /* A palette is only saved from a running PLL, and a pipe only runs on its own. */
                if ((s->flags & palette_flag(p)) && !vco)
                        return -EBADMSG;
                if ((pipe_reg(s, p, INTEL_PIPE_CONF) & PIPECONF_ENABLE) && !vco)
                        return -EBADMSG;
        }
        return 0;
}

/* intel_parse() into a newly allocated IntelState. */
static int intel_parse_new(const uint8_t *payload, size_t len, IntelState **ret)
{
        _cleanup_free_ IntelState *s = calloc(1, sizeof(IntelState));
        int r;

        if (!s)
                return -ENOMEM;
        r = intel_parse(payload, len, s);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

static int intel_check(const uint8_t *payload, size_t len)
{
        IntelState s;
        return intel_parse(payload, len, &s);
}

/* ---- register access --------------------------------------------------------------- */

typedef struct IntelIo {
        Hw *hw;
        const IntelChip *chip;
        unsigned bar;
} IntelIo;

static int io_read(IntelIo *io, uint32_t offset, uint32_t *ret)
{
        return hw_mmio_read32(io->hw, io->bar, offset, ret);
}

/* Reads a slot; an absent one reads as 0 without access. */
static int reg_read(IntelIo *io, unsigned slot, uint32_t *ret)
{
        if (!intel_reg_present(io->chip, slot)) {
                *ret = 0;
                return 0;
        }
        return io_read(io, intel_regs[slot].offset, ret);
}

/* Writes a slot: the only way this method writes a register. An absent one is skipped. */
static int reg_write(IntelIo *io, unsigned slot, uint32_t value)
{
        if (!intel_reg_present(io->chip, slot))
                return 0;
        return hw_mmio_write32(io->hw, io->bar, intel_regs[slot].offset, value);
}

static int regs_write_saved(IntelIo *io, const IntelState *s, const unsigned *slots, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                int r = reg_write(io, slots[i], s->regs[slots[i]]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A clock register write followed by the settle time the UMS kernel gave every DPLL write. */
static int reg_write_settle(IntelIo *io, unsigned slot, uint32_t value)
{
        int r = reg_write(io, slot, value);
        if (r < 0)
                return r;
        hw_delay_us(io->hw, INTEL_PLL_SETTLE_US);
        return 0;
}

static uint32_t palette_base(unsigned pipe)
{
        return pipe == 0 ? INTEL_PALETTE_A : INTEL_PALETTE_B;
}

static char pipe_letter(unsigned pipe)
{
        return pipe == 0 ? 'A' : 'B';
}

/* Polls the register at offset until (value & mask) == want, every poll_us, for at most
 * timeout_us. -ETIMEDOUT names the register, what was expected and what was seen. */
static int wait_bits(IntelIo *io, uint32_t offset, const char *name, uint32_t mask, uint32_t want,
                     unsigned timeout_us, unsigned poll_us, const char *what)
{
        uint32_t v = 0;

        for (unsigned waited = 0;; waited += poll_us) {
                int r = io_read(io, offset, &v);
                if (r < 0)
                        return r;
                if ((v & mask) == want)
                        return 0;
                if (waited >= timeout_us)
                        break;
                hw_delay_us(io->hw, poll_us);
        }
        hw_note_failure(io->hw, "%s = 0x%08" PRIx32 " after %u us, expected (value & 0x%08" PRIx32 ") == 0x%08" PRIx32 " (%s)",
                        name, v, timeout_us, mask, want, what);
        return -ETIMEDOUT;
}

/* Whether a pipe's timing generator runs: Gen4 says so in PIPECONF bit 30; before Gen4 the
 * only sign is its scan line counter moving. Waits until it is (running) or is not,
 * bounded by INTEL_PIPE_TIMEOUT_US. Gen2-Gen4 have no PLL lock bit: a PLL that does not
 * lock shows as a pipe that does not start. */
static int wait_pipe(IntelIo *io, unsigned pipe, bool running)
{
        unsigned conf = INTEL_PIPE_REG(pipe, INTEL_PIPE_CONF);
        uint32_t dsl = INTEL_PIPEA_DSL + pipe * 0x1000u, first = 0, v = 0;
        char name[16];
        int r;

        if (io->chip->gen >= 4)
                return wait_bits(io, intel_regs[conf].offset, intel_regs[conf].name, PIPECONF_ACTIVE_GEN4,
                                 running ? PIPECONF_ACTIVE_GEN4 : 0, INTEL_PIPE_TIMEOUT_US, INTEL_PIPE_POLL_US,
                                 running ? "the pipe runs: its DPLL never locked?" : "the pipe stopped");

        r = io_read(io, dsl, &first);
        if (r < 0)
                return r;
        for (unsigned waited = 0; waited < INTEL_PIPE_TIMEOUT_US; waited += INTEL_PIPE_POLL_US) {
                hw_delay_us(io->hw, INTEL_PIPE_POLL_US);
                r = io_read(io, dsl, &v);
                if (r < 0)
                        return r;
                if ((v != first) == running)
                        return 0;
                first = v;
        }
        snprintf(name, sizeof(name), "PIPE%c_DSL", pipe_letter(pipe));
        hw_note_failure(io->hw, "%s = 0x%08" PRIx32 " after %u us, expected it to %s (%s)", name, v,
                        INTEL_PIPE_TIMEOUT_US, running ? "move" : "stand still",
                        running ? "the pipe runs: DPLL never locked?" : "the pipe stopped");
        return -ETIMEDOUT;
}

/* ---- save -------------------------------------------------------------------------- */

static int intel_probe(Hw *hw, const DisplayDevice *d)
{
        if (!d)
                return -EINVAL;
        return intel_method_chip(d) ? 1 : 0;
}

static bool intel_applies(const DisplayDevice *d)
{
        return intel_method_chip(d) != NULL;
}

static int intel_save(Hw *hw, const DisplayDevice *d, Buffer *out)
{
        const IntelChip *chip = intel_method_chip(d);
        IntelIo io = { .hw = hw, .chip = chip };
        _cleanup_free_ IntelState *s = NULL;
        uint8_t head[4];
        int r;

        if (!out || !chip)
                return -EINVAL;
        io.bar = intel_mmio_bar(chip->gen);
        s = calloc(1, sizeof(IntelState));
        if (!s)
                return -ENOMEM;

        for (unsigned i = 0; i < INTEL_REG_COUNT; i++) {
                r = reg_read(&io, i, &s->regs[i]);
                if (r < 0)
                        return r;
        }
        /* The palette RAM answers only while the pipe's PLL runs (as [K] saves it). */
        for (unsigned p = 0; p < 2; p++) {
                if (!(pipe_reg(s, p, INTEL_PIPE_DPLL) & DPLL_VCO_ENABLE))
                        continue;
                for (unsigned i = 0; i < INTEL_PALETTE_ENTRIES; i++) {
                        r = io_read(&io, palette_base(p) + 4 * i, &s->palette[p][i]);
                        if (r < 0)
                                return r;
                }
                s->flags |= palette_flag(p);
        }
        /* A pipe found enabled on a stopped PLL cannot be restored as it is: saved as off. */
        for (unsigned p = 0; p < 2; p++)
                if (!(pipe_reg(s, p, INTEL_PIPE_DPLL) & DPLL_VCO_ENABLE))
                        s->regs[INTEL_PIPE_REG(p, INTEL_PIPE_CONF)] &= ~PIPECONF_ENABLE;

        r = buffer_reserve(out, INTEL_PAYLOAD_SIZE);
        if (r < 0)
                return r;
        head[INTEL_OFF_GEN] = chip->gen;
        head[INTEL_OFF_FLAGS] = s->flags;
        head[INTEL_OFF_DEVICE] = (uint8_t)(chip->device_id & 0xff);
        head[INTEL_OFF_DEVICE + 1] = (uint8_t)(chip->device_id >> 8);
        (void)buffer_append(out, head, sizeof(head));
        for (unsigned i = 0; i < INTEL_REG_COUNT; i++)
                (void)buffer_append_le32(out, s->regs[i]);
        for (unsigned p = 0; p < 2; p++)
                for (unsigned i = 0; i < INTEL_PALETTE_ENTRIES; i++)
                        (void)buffer_append_le32(out, s->palette[p][i]);
        return 0;
}

/* ---- restore ----------------------------------------------------------------------- */

/* The surface register whose write latches a plane's double-buffered registers: DSPxSURF
 * on Gen4, DSPxADDR before. */
static unsigned plane_latch_slot(const IntelChip *chip, unsigned pipe)
{
        return INTEL_PIPE_REG(pipe, chip->gen >= 4 ? INTEL_PIPE_DSPSURF : INTEL_PIPE_DSPADDR);
}

/* Clears bit in a slot if it is set: 1 if it wrote, 0 if the bit was clear, < 0 error. */
static int reg_clear_bit(IntelIo *io, unsigned slot, uint32_t bit)
{
        uint32_t v;
        int r;

        r = reg_read(io, slot, &v);
        if (r < 0 || !(v & bit))
                return r;
        r = reg_write(io, slot, v & ~bit);
        return r < 0 ? r : 1;
}

/* Step 1, as [D] RestoreHWState: whatever the firmware left running goes off, outputs
 * first, then planes, pipes and PLLs. Only what is on is touched. */
static int intel_disable(IntelIo *io)
{
        int r;

        r = reg_clear_bit(io, INTEL_REG_PP_CONTROL, PP_CONTROL_POWER_ON);
        if (r > 0)
                r = wait_bits(io, INTEL_PP_STATUS, "PP_STATUS", PP_STATUS_ON, 0, INTEL_PANEL_TIMEOUT_US,
                              INTEL_PANEL_POLL_US, "panel power off");
        for (unsigned p = 0; r >= 0 && p < 2; p++) {
                unsigned latch = plane_latch_slot(io->chip, p);
                uint32_t base;

                /* The plane control is double-buffered: the surface write makes it take. */
                r = reg_clear_bit(io, INTEL_PIPE_REG(p, INTEL_PIPE_DSPCNTR), DSPCNTR_ENABLE);
                if (r > 0) {
                        r = reg_read(io, latch, &base);
                        if (r >= 0)
                                r = reg_write(io, latch, base);
                }
        }
        if (r >= 0) {
                uint32_t v;

                r = reg_read(io, INTEL_REG_VGACNTRL, &v);
                if (r >= 0 && !(v & VGACNTRL_DISABLE))
                        r = reg_write(io, INTEL_REG_VGACNTRL, v | VGACNTRL_DISABLE);
        }
        for (unsigned p = 0; r >= 0 && p < 2; p++) {
                r = reg_clear_bit(io, INTEL_PIPE_REG(p, INTEL_PIPE_CONF), PIPECONF_ENABLE);
                if (r > 0)
                        r = wait_pipe(io, p, false);
        }
        for (unsigned p = 0; r >= 0 && p < 2; p++) {
                r = reg_clear_bit(io, INTEL_PIPE_REG(p, INTEL_PIPE_DPLL), DPLL_VCO_ENABLE);
                if (r > 0)
                        hw_delay_us(io->hw, INTEL_PLL_SETTLE_US);
        }
        return r < 0 ? r : 0;
}

/* One pipe's clock: the dividers go in while the VCO is off ("prime the clock"), then the
 * saved DPLL, each write followed by the settle time the UMS kernel used. */
static int intel_restore_pll(IntelIo *io, const IntelState *s, unsigned p)
{
        const unsigned mn[] = {
                INTEL_PIPE_REG(p, INTEL_PIPE_DATA_M), INTEL_PIPE_REG(p, INTEL_PIPE_DATA_N),
                INTEL_PIPE_REG(p, INTEL_PIPE_LINK_M), INTEL_PIPE_REG(p, INTEL_PIPE_LINK_N),
        };
        const unsigned fp[] = { INTEL_PIPE_REG(p, INTEL_PIPE_FP0), INTEL_PIPE_REG(p, INTEL_PIPE_FP1) };
        unsigned dpll = INTEL_PIPE_REG(p, INTEL_PIPE_DPLL), md = INTEL_PIPE_REG(p, INTEL_PIPE_DPLL_MD);
        int r;

        /* G4X: the DisplayPort M/N values go in before the clock (a [K] comment). */
        r = regs_write_saved(io, s, mn, ELEMENTSOF(mn));
        if (r >= 0 && (s->regs[dpll] & DPLL_VCO_ENABLE))
                r = reg_write_settle(io, dpll, s->regs[dpll] & ~DPLL_VCO_ENABLE);
        if (r >= 0)
                r = regs_write_saved(io, s, fp, ELEMENTSOF(fp));
        if (r >= 0)
                r = reg_write_settle(io, dpll, s->regs[dpll]);
        if (r >= 0 && intel_reg_present(io->chip, md))
                r = reg_write_settle(io, md, s->regs[md]);
        return r;
}

/* One pipe: timings, source size and its plane's registers but the control, then the pipe
 * on, waiting until it runs. */
static int intel_restore_pipe(IntelIo *io, const IntelState *s, unsigned p)
{
        const unsigned timing[] = {
                INTEL_PIPE_REG(p, INTEL_PIPE_HTOTAL),  INTEL_PIPE_REG(p, INTEL_PIPE_HBLANK),
                INTEL_PIPE_REG(p, INTEL_PIPE_HSYNC),   INTEL_PIPE_REG(p, INTEL_PIPE_VTOTAL),
                INTEL_PIPE_REG(p, INTEL_PIPE_VBLANK),  INTEL_PIPE_REG(p, INTEL_PIPE_VSYNC),
                INTEL_PIPE_REG(p, INTEL_PIPE_BCLRPAT), INTEL_PIPE_REG(p, INTEL_PIPE_SRC),
                INTEL_PIPE_REG(p, INTEL_PIPE_DSPSIZE), INTEL_PIPE_REG(p, INTEL_PIPE_DSPPOS),
                INTEL_PIPE_REG(p, INTEL_PIPE_DSPSTRIDE), INTEL_PIPE_REG(p, INTEL_PIPE_DSPTILEOFF),
                INTEL_PIPE_REG(p, INTEL_PIPE_DSPADDR),
        };
        unsigned conf = INTEL_PIPE_REG(p, INTEL_PIPE_CONF);
        int r;

        r = regs_write_saved(io, s, timing, ELEMENTSOF(timing));
        if (r >= 0)
                r = reg_write(io, conf, s->regs[conf]);
        if (r >= 0 && (s->regs[conf] & PIPECONF_ENABLE))
                r = wait_pipe(io, p, true);
        return r;
}

/* One plane, once both pipes run (a plane may scan out on either, DSPxCNTR bit 24): its
 * control, then the surface write that latches its double-buffered registers. */
static int intel_restore_plane(IntelIo *io, const IntelState *s, unsigned p)
{
        unsigned cntr = INTEL_PIPE_REG(p, INTEL_PIPE_DSPCNTR), latch = plane_latch_slot(io->chip, p);
        int r;

        r = reg_write(io, cntr, s->regs[cntr]);
        if (r >= 0)
                r = reg_write(io, latch, s->regs[latch]);
        return r;
}

static int intel_restore_palettes(IntelIo *io, const IntelState *s)
{
        for (unsigned p = 0; p < 2; p++) {
                uint32_t dpll;
                int r;

                if (!(s->flags & palette_flag(p)))
                        continue;
                /* Only onto a running PLL, as [K] does. */
                r = reg_read(io, INTEL_PIPE_REG(p, INTEL_PIPE_DPLL), &dpll);
                if (r < 0)
                        return r;
                if (!(dpll & DPLL_VCO_ENABLE))
                        continue;
                for (unsigned i = 0; i < INTEL_PALETTE_ENTRIES; i++) {
                        r = hw_mmio_write32(io->hw, io->bar, palette_base(p) + 4 * i, s->palette[p][i]);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* Validates a payload for d (the same chip) and sets up access to it; no access yet. */
static int intel_load(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len, IntelState **ret,
                      IntelIo *ret_io)
{
        _cleanup_free_ IntelState *s = NULL;
        int r;

        r = intel_parse_new(payload, len, &s);
        if (r < 0)
                return r;
        if (!d || d->vendor_id != INTEL_VENDOR_ID || d->device_id != s->chip->device_id)
                return -ENODEV;
        *ret_io = (IntelIo){ .hw = hw, .chip = s->chip, .bar = intel_mmio_bar(s->chip->gen) };
        *ret = TAKE_PTR(s);
        return 0;
}

static int intel_restore(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len)
{
        static const unsigned general[] = {
                INTEL_REG_DSPCLK_GATE_D, INTEL_REG_RENCLK_GATE_D1, INTEL_REG_RENCLK_GATE_D2,
                INTEL_REG_RAMCLK_GATE_D, INTEL_REG_D_STATE,        INTEL_REG_DSPARB,
                /* The VGA PLL divisors before the pipe PLLs: VGA can drive either ([D]). */
                INTEL_REG_VGA0, INTEL_REG_VGA1, INTEL_REG_VGA_PD,
        };
        static const unsigned cursors[] = {
                INTEL_PIPE_REG(0, INTEL_PIPE_CURPOS), INTEL_PIPE_REG(0, INTEL_PIPE_CURCNTR),
                INTEL_PIPE_REG(0, INTEL_PIPE_CURBASE), INTEL_PIPE_REG(1, INTEL_PIPE_CURPOS),
                INTEL_PIPE_REG(1, INTEL_PIPE_CURCNTR), INTEL_PIPE_REG(1, INTEL_PIPE_CURBASE),
                INTEL_REG_CURSIZE,
        };
        static const unsigned fitter_and_ports[] = {
                INTEL_REG_PFIT_PGM_RATIOS, INTEL_REG_PFIT_CONTROL, INTEL_REG_ADPA, INTEL_REG_DVOA,
                INTEL_REG_DVOB,            INTEL_REG_DVOC,         INTEL_REG_DP_B, INTEL_REG_DP_C,
                INTEL_REG_DP_D,            INTEL_REG_LVDS,
        };
        static const unsigned panel[] = {
                INTEL_REG_PP_ON_DELAYS, INTEL_REG_PP_OFF_DELAYS, INTEL_REG_PP_DIVISOR, INTEL_REG_PP_CONTROL,
        };
        static const unsigned backlight[] = {
                INTEL_REG_BLC_PWM_CTL2, INTEL_REG_BLC_PWM_CTL, INTEL_REG_BLC_HIST_CTL,
        };
        _cleanup_free_ IntelState *s = NULL;
        IntelIo io;
        unsigned swf[35];
        int r;

        r = intel_load(hw, d, payload, len, &s, &io);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < ELEMENTSOF(swf); i++)
                swf[i] = INTEL_REG_SWF + i;

        r = intel_disable(&io);
        if (r >= 0)
                r = regs_write_saved(&io, s, general, ELEMENTSOF(general));
        if (r >= 0)
                r = regs_write_saved(&io, s, swf, ELEMENTSOF(swf));
        for (unsigned p = 0; r >= 0 && p < 2; p++)
                r = intel_restore_pll(&io, s, p);
        for (unsigned p = 0; r >= 0 && p < 2; p++)
                r = intel_restore_pipe(&io, s, p);
        for (unsigned p = 0; r >= 0 && p < 2; p++)
                r = intel_restore_plane(&io, s, p);
        if (r >= 0)
                r = reg_write(&io, INTEL_REG_VGACNTRL, s->regs[INTEL_REG_VGACNTRL]);
        if (r >= 0)
                r = intel_restore_palettes(&io, s);
        if (r >= 0)
                r = regs_write_saved(&io, s, cursors, ELEMENTSOF(cursors));
        if (r >= 0)
                r = regs_write_saved(&io, s, fitter_and_ports, ELEMENTSOF(fitter_and_ports));
        /* The panel: delays and divisor, then the power target, waiting for the sequence. */
        if (r >= 0)
                r = regs_write_saved(&io, s, panel, ELEMENTSOF(panel));
        if (r >= 0 && (s->regs[INTEL_REG_PP_CONTROL] & PP_CONTROL_POWER_ON))
                r = wait_bits(&io, INTEL_PP_STATUS, "PP_STATUS", PP_STATUS_ON, PP_STATUS_ON, INTEL_PANEL_TIMEOUT_US,
                              INTEL_PANEL_POLL_US, "panel power on");
        if (r >= 0)
                r = regs_write_saved(&io, s, backlight, ELEMENTSOF(backlight));
        return r;
}

/* ---- verify and dump ----------------------------------------------------------------- */

/* Bits of a slot that are status, not state: left out of the comparison. */
static uint32_t status_bits(const IntelChip *chip, unsigned slot)
{
        if (chip->gen >= 4 && (slot == INTEL_PIPE_REG(0, INTEL_PIPE_CONF) || slot == INTEL_PIPE_REG(1, INTEL_PIPE_CONF)))
                return PIPECONF_ACTIVE_GEN4;
        return 0;
}

static int intel_verify(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len, Buffer *report)
{
        _cleanup_free_ IntelState *s = NULL;
        IntelIo io;
        int r, mismatches = 0;

        r = intel_load(hw, d, payload, len, &s, &io);
        if (r < 0)
                return r;

        for (unsigned i = 0; i < INTEL_REG_COUNT; i++) {
                uint32_t v, ignore = status_bits(s->chip, i);

                if (!intel_reg_present(s->chip, i))
                        continue;
                r = reg_read(&io, i, &v);
                if (r < 0)
                        return r;
                if ((v & ~ignore) == (s->regs[i] & ~ignore))
                        continue;
                mismatches++;
                if (report)
                        (void)buffer_printf(report, "%s = 0x%08" PRIx32 ", expected 0x%08" PRIx32 "\n",
                                            intel_regs[i].name, v, s->regs[i]);
        }
        for (unsigned p = 0; p < 2; p++) {
                if (!(s->flags & palette_flag(p)))
                        continue;
                for (unsigned i = 0; i < INTEL_PALETTE_ENTRIES; i++) {
                        uint32_t v;

                        r = io_read(&io, palette_base(p) + 4 * i, &v);
                        if (r < 0)
                                return r;
                        if (v == s->palette[p][i])
                                continue;
                        mismatches++;
                        if (report)
                                (void)buffer_printf(report, "PALETTE_%c[%u] = 0x%08" PRIx32 ", expected 0x%08" PRIx32 "\n",
                                                    pipe_letter(p), i, v, s->palette[p][i]);
                }
        }
        return mismatches;
}

/* A few words on what the bits that decide the picture say, for the human dump. */
static const char *reg_meaning(const IntelChip *chip, unsigned slot, uint32_t v)
{
        unsigned r = slot >= INTEL_REG_PIPE_A && slot < INTEL_REG_CURSIZE ? (slot - INTEL_REG_PIPE_A) % INTEL_PIPE_REG_COUNT
                                                                           : INTEL_PIPE_REG_COUNT;

        switch (r) {
        case INTEL_PIPE_DPLL:
                return v & DPLL_VCO_ENABLE ? "VCO on" : "VCO off";
        case INTEL_PIPE_CONF:
                return v & PIPECONF_ENABLE ? "enabled" : "disabled";
        case INTEL_PIPE_DSPCNTR:
                if (!(v & DSPCNTR_ENABLE))
                        return "disabled";
                return v & DSPCNTR_PIPE_B ? "enabled, pipe B" : "enabled, pipe A";
        case INTEL_PIPE_CURCNTR:
                return v & (chip->gen == 2 ? CURCNTR_ENABLE_GEN2 : CURCNTR_MODE) ? "enabled" : "disabled";
        default:
                break;
        }
        switch (slot) {
        case INTEL_REG_VGACNTRL:
                return v & VGACNTRL_DISABLE ? "VGA display disabled" : "VGA display enabled";
        case INTEL_REG_ADPA:
        case INTEL_REG_DVOA:
        case INTEL_REG_DVOB:
        case INTEL_REG_DVOC:
        case INTEL_REG_DP_B:
        case INTEL_REG_DP_C:
        case INTEL_REG_DP_D:
        case INTEL_REG_LVDS:
                return v & PORT_ENABLE ? "port on" : "port off";
        case INTEL_REG_PFIT_CONTROL:
                return v & PFIT_ENABLE ? "enabled" : "disabled";
        case INTEL_REG_PP_CONTROL:
                return v & PP_CONTROL_POWER_ON ? "panel power on" : "panel power off";
        default:
                return NULL;
        }
}

static int dump_palette_json(Buffer *out, const IntelState *s, unsigned p)
{
        int r;

        if (!(s->flags & palette_flag(p)))
                return buffer_printf(out, "null");
        r = buffer_printf(out, "[");
        for (unsigned i = 0; r >= 0 && i < INTEL_PALETTE_ENTRIES; i++)
                r = buffer_printf(out, "%s%" PRIu32, i ? "," : "", s->palette[p][i]);
        return r < 0 ? r : buffer_printf(out, "]");
}

static int intel_dump(const uint8_t *payload, size_t len, bool json, Buffer *out)
{
        _cleanup_free_ IntelState *s = NULL;
        int r;

        if (!out)
                return -EINVAL;
        r = intel_parse_new(payload, len, &s);
        if (r < 0)
                return r;

        if (json) {
                bool first = true;

                r = buffer_printf(out, "{\"chip\":");
                if (r >= 0)
                        r = buffer_append_json_string(out, s->chip->name);
                if (r >= 0)
                        r = buffer_printf(out, ",\"device_id\":%u,\"generation\":%u,\"mmio_bar\":%u,\"registers\":{",
                                          s->chip->device_id, s->chip->gen, intel_mmio_bar(s->chip->gen));
                for (unsigned i = 0; r >= 0 && i < INTEL_REG_COUNT; i++) {
                        if (!intel_reg_present(s->chip, i))
                                continue;
                        r = buffer_printf(out, "%s", first ? "" : ",");
                        first = false;
                        if (r >= 0)
                                r = buffer_append_json_string(out, intel_regs[i].name);
                        if (r >= 0)
                                r = buffer_printf(out, ":%" PRIu32, s->regs[i]);
                }
                if (r >= 0)
                        r = buffer_printf(out, "},\"palette_a\":");
                if (r >= 0)
                        r = dump_palette_json(out, s, 0);
                if (r >= 0)
                        r = buffer_printf(out, ",\"palette_b\":");
                if (r >= 0)
                        r = dump_palette_json(out, s, 1);
                return r < 0 ? r : buffer_printf(out, "}");
        }

        r = buffer_printf(out, "intel: %s (8086:%04x), Gen%u, registers through BAR%u\n", s->chip->name,
                          s->chip->device_id, s->chip->gen, intel_mmio_bar(s->chip->gen));
        for (unsigned i = 0; r >= 0 && i < INTEL_REG_COUNT; i++) {
                const char *meaning;

                if (!intel_reg_present(s->chip, i))
                        continue;
                meaning = reg_meaning(s->chip, i, s->regs[i]);
                r = buffer_printf(out, "%s = 0x%08" PRIx32 "%s%s%s\n", intel_regs[i].name, s->regs[i],
                                  meaning ? " (" : "", meaning ? meaning : "", meaning ? ")" : "");
        }
        for (unsigned p = 0; r >= 0 && p < 2; p++)
                r = buffer_printf(out, "palette %c: %s\n", pipe_letter(p),
                                  s->flags & palette_flag(p) ? "256 entries saved" : "not saved (its DPLL was off)");
        return r < 0 ? r : 0;
}

const MethodOps method_intel = {
        .name = "intel",
        .id = INTEL_METHOD_ID,
        .version = INTEL_METHOD_VERSION,
        .applies = intel_applies,
        .probe = intel_probe,
        .save = intel_save,
        .check = intel_check,
        .restore = intel_restore,
        .verify = intel_verify,
        .dump = intel_dump,
};
