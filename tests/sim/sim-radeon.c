/* SPDX-License-Identifier: MIT */
/* Owns the simulated Radeon output power registers: CRTC enables, DAC power and sense, the
 * LVDS PLL's reset-and-settle rule and the panel's power and backlight sequence, behind
 * hw-sim's MMIO hook. Offsets are written out here on their own, not taken from the method. */
#include "sim-radeon.h"

#define OFF_CRTC_GEN 0x0050u
#define OFF_CRTC_EXT 0x0054u
#define OFF_DAC 0x0058u
#define OFF_LVDS_GEN 0x02d0u
#define OFF_LVDS_PLL 0x02d4u

#define CRTC_EN (1u << 25)
#define DAC_CMP_OUTPUT (1u << 7)
#define LVDS_ON (1u << 0)
#define LVDS_DISPLAY_DIS (1u << 1)
#define LVDS_EN (1u << 7)
#define LVDS_DIGON (1u << 18)
#define LVDS_BLON (1u << 19)
#define PLL_EN (1u << 16)
#define PLL_RESET (1u << 17)
#define NEVER UINT64_MAX

/* Writable bits: the fields radeon_reg.h names for each register; the rest read 0.
 *   CRTC_GEN_CNTL: DBL_SCAN, INTERLACE, CSYNC, PIX_WIDTH, ICON, CUR_EN, CUR_MODE,
 *                  EXT_DISP_EN, EN, DISP_REQ_EN_B
 *   CRTC_EXT_CNTL: VGA_XOVERSCAN, VGA_ATI_LINEAR, XCRT_CNT_EN, HSYNC/VSYNC/DISPLAY_DIS,
 *                  SYNC/HSYNC/VSYNC_TRISTAT, CRT_ON
 *   DAC_CNTL:      RANGE_CNTL, BLANKING, CMP_EN, 8BIT_EN, TVO_EN, VGA_ADR_EN, PDWN, MASK
 *   LVDS_GEN_CNTL: ON .. SEL_CRTC2 (bits 0-23), FPDI_EN, HSYNC_DELAY
 *   LVDS_PLL_CNTL: PLL_EN, PLL_RESET, SRC_SEL (R300), HSYNC_DELAY */
static const struct {
        uint32_t offset, writable;
} masks[] = {
        { OFF_CRTC_GEN, 0x07718F13 }, { OFF_CRTC_EXT, 0x0000BF49 }, { OFF_DAC, 0xFF00A50F },
        { OFF_LVDS_GEN, 0xF8FFFFFF }, { OFF_LVDS_PLL, 0xF00F0000 },
};

struct SimRadeon {
        HwSim *sim;
        bool lvds;
        bool monitor;
        uint64_t pll_enabled_at;  /* EN set while in reset; NEVER otherwise */
        bool pll_unsettled;       /* enabled out of reset: never locks until disabled */
        bool pll_instant;         /* a fixture load: locked at once */
        uint64_t pll_released_at; /* the reset released after a proper enable; NEVER otherwise */
        uint64_t panel_power_at;  /* ON and DIGON set with a locked PLL; NEVER otherwise */
        bool backlight_was_on;
        unsigned early_backlights;
        unsigned absent_panel_writes;
};

static uint64_t now(const SimRadeon *sr)
{
        return hw_sim_delay_total_us(sr->sim);
}

static uint32_t *reg(SimRadeon *sr, uint32_t offset)
{
        return &hw_sim_mmio(sr->sim)[offset / 4];
}

static uint32_t reg_value(const SimRadeon *sr, uint32_t offset)
{
        return hw_sim_mmio(sr->sim)[offset / 4];
}

static uint32_t writable_mask(uint32_t offset)
{
        for (size_t i = 0; i < ELEMENTSOF(masks); i++)
                if (masks[i].offset == offset)
                        return masks[i].writable;
        return UINT32_MAX;
}

static bool is_panel_reg(uint32_t offset)
{
        return offset == OFF_LVDS_GEN || offset == OFF_LVDS_PLL;
}

bool sim_radeon_pll_locked(const SimRadeon *sr)
{
        uint32_t v = reg_value(sr, OFF_LVDS_PLL);

        if (!sr->lvds || !(v & PLL_EN) || (v & PLL_RESET) || sr->pll_unsettled)
                return false;
        return sr->pll_instant ||
               (sr->pll_released_at != NEVER && sr->pll_released_at >= sr->pll_enabled_at + SIM_RADEON_PLL_RESET_US);
}

bool sim_radeon_panel_lit(const SimRadeon *sr)
{
        uint32_t gen = reg_value(sr, OFF_LVDS_GEN);
        uint32_t want = LVDS_ON | LVDS_EN | LVDS_DIGON | LVDS_BLON;

        return sr->lvds && (gen & (want | LVDS_DISPLAY_DIS)) == want && (reg_value(sr, OFF_CRTC_GEN) & CRTC_EN) &&
               sim_radeon_pll_locked(sr);
}

static void pll_written(SimRadeon *sr, uint32_t old, uint32_t v, bool at_once)
{
        if (!(v & PLL_EN)) {
                sr->pll_enabled_at = sr->pll_released_at = NEVER;
                sr->pll_unsettled = sr->pll_instant = false;
                return;
        }
        if (v & PLL_RESET) {
                /* Held in reset: the settle time counts from the first write that holds it. */
                if (!(old & PLL_RESET) || !(old & PLL_EN))
                        sr->pll_enabled_at = now(sr);
                sr->pll_instant = at_once;
                sr->pll_unsettled = false;
                sr->pll_released_at = NEVER;
                return;
        }
        if (!(old & PLL_EN)) {
                /* Enabled out of reset: it never locks (a fixture load is locked at once). */
                sr->pll_instant = at_once;
                sr->pll_unsettled = !at_once;
                sr->pll_released_at = NEVER;
                return;
        }
        if (old & PLL_RESET)
                sr->pll_released_at = now(sr);
}

static void panel_written(SimRadeon *sr, uint32_t v, bool at_once)
{
        bool power = (v & (LVDS_ON | LVDS_DIGON)) == (LVDS_ON | LVDS_DIGON) && sim_radeon_pll_locked(sr);
        bool backlight = v & LVDS_BLON;

        if (!power)
                sr->panel_power_at = NEVER;
        else if (sr->panel_power_at == NEVER)
                sr->panel_power_at = at_once ? 0 : now(sr);
        if (backlight && !sr->backlight_was_on && !at_once &&
            (sr->panel_power_at == NEVER || now(sr) < sr->panel_power_at + SIM_RADEON_PANEL_T2_US))
                sr->early_backlights++;
        sr->backlight_was_on = backlight;
}

/* A write as the hardware takes it. at_once: a fixture load, not a bus write. */
static void sim_radeon_write(SimRadeon *sr, uint32_t offset, uint32_t value, bool at_once)
{
        uint32_t old;

        if (is_panel_reg(offset) && !sr->lvds) {
                if (!at_once)
                        sr->absent_panel_writes++;
                return;
        }
        old = *reg(sr, offset);
        value &= writable_mask(offset);
        if (offset == OFF_DAC)
                value &= ~DAC_CMP_OUTPUT;
        *reg(sr, offset) = value;
        if (offset == OFF_LVDS_PLL)
                pll_written(sr, old, value, at_once);
        else if (offset == OFF_LVDS_GEN)
                panel_written(sr, value, at_once);
}

static uint32_t sim_radeon_read(SimRadeon *sr, uint32_t offset)
{
        if (is_panel_reg(offset) && !sr->lvds)
                return 0;
        if (offset == OFF_DAC)
                return *reg(sr, offset) | (sr->monitor ? DAC_CMP_OUTPUT : 0);
        return *reg(sr, offset);
}

static int sim_radeon_hook(HwSim *sim, bool write, uint32_t offset, uint32_t *value, void *userdata)
{
        SimRadeon *sr = userdata;

        (void)sim;
        if (write)
                sim_radeon_write(sr, offset, *value, false);
        else
                *value = sim_radeon_read(sr, offset);
        return 1;
}

void sim_radeon_wake(SimRadeon *sr)
{
        memset(hw_sim_mmio(sr->sim), 0, HW_SIM_MMIO_SIZE);
        sr->pll_enabled_at = sr->pll_released_at = sr->panel_power_at = NEVER;
        sr->pll_unsettled = sr->pll_instant = sr->backlight_was_on = false;
        *reg(sr, OFF_CRTC_EXT) = 0x00000700u;
        *reg(sr, OFF_DAC) = 0x00008000u;
        if (sr->lvds) {
                *reg(sr, OFF_LVDS_GEN) = LVDS_DISPLAY_DIS;
                *reg(sr, OFF_LVDS_PLL) = PLL_RESET;
        }
}

void sim_radeon_wake_posted(SimRadeon *sr)
{
        sim_radeon_wake(sr);
        sim_radeon_set(sr, OFF_CRTC_GEN, CRTC_EN);
        sim_radeon_set(sr, OFF_CRTC_EXT, 1u << 15);
        sim_radeon_set(sr, OFF_DAC, 0xFF000002u);
        if (sr->lvds) {
                sim_radeon_set(sr, OFF_LVDS_PLL, PLL_EN);
                sim_radeon_set(sr, OFF_LVDS_GEN, LVDS_ON | LVDS_EN | LVDS_DIGON | LVDS_BLON);
        }
}

int sim_radeon_new(HwSim *sim, bool lvds, SimRadeon **ret)
{
        SimRadeon *sr;

        if (!sim || !ret)
                return -EINVAL;
        sr = calloc(1, sizeof(SimRadeon));
        if (!sr)
                return -ENOMEM;
        sr->sim = hw_sim_ref(sim);
        sr->lvds = lvds;
        hw_sim_set_mmio_bar(sim, 2);
        hw_sim_set_mmio_hook(sim, sim_radeon_hook, sr);
        sim_radeon_wake(sr);
        *ret = sr;
        return 0;
}

SimRadeon *sim_radeon_free(SimRadeon *sr)
{
        if (!sr)
                return NULL;
        hw_sim_set_mmio_hook(sr->sim, NULL, NULL);
        hw_sim_unref(sr->sim);
        free(sr);
        return NULL;
}

void sim_radeon_set(SimRadeon *sr, uint32_t offset, uint32_t value)
{
        sim_radeon_write(sr, offset, value, true);
}

uint32_t sim_radeon_get(SimRadeon *sr, uint32_t offset)
{
        return sim_radeon_read(sr, offset);
}

void sim_radeon_set_monitor(SimRadeon *sr, bool attached)
{
        sr->monitor = attached;
}

unsigned sim_radeon_early_backlights(const SimRadeon *sr)
{
        return sr->early_backlights;
}

unsigned sim_radeon_absent_panel_writes(const SimRadeon *sr)
{
        return sr->absent_panel_writes;
}
