/* SPDX-License-Identifier: MIT */
/* A simulated pre-AVIVO Radeon's output power registers on top of hw-sim's MMIO register
 * file (its per-register hook, BAR2), with time taken from the delays the code asks for
 * (hw_sim_delay_total_us()):
 *
 *   - CRTC_GEN_CNTL (0x50), CRTC_EXT_CNTL (0x54), DAC_CNTL (0x58): plain registers with
 *     reserved bits that read 0 (the fields radeon_reg.h names; see sim-radeon.c). DAC_CNTL
 *     bit 7 (comparator output) is read-only: it reads 1 while a monitor is attached
 *     (sim_radeon_set_monitor()).
 *   - LVDS_PLL_CNTL (0x2d4): the PLL locks only when it was enabled (bit 16) while held in
 *     reset (bit 17) and released no sooner than SIM_RADEON_PLL_RESET_US after; enabled
 *     without that, it never locks until it is disabled again.
 *   - LVDS_GEN_CNTL (0x2d0): the panel is lit while LVDS_ON, LVDS_EN, DIGON and BLON are set,
 *     DISPLAY_DIS is clear, the CRTC runs (CRTC_EN) and the LVDS PLL is locked. A backlight
 *     (BLON) switched on less than SIM_RADEON_PANEL_T2_US after the panel's power and data
 *     (ON, DIGON) with a locked PLL is counted (sim_radeon_early_backlights()): the user sees
 *     garbage or a flash before the picture.
 *   - A chip without a panel interface (not "lvds") reads both LVDS registers as 0 and drops
 *     writes to them (counted: sim_radeon_absent_panel_writes()).
 *   - sim_radeon_wake(): the state after S3 without a video POST, as modelled here: every
 *     register 0 but CRTC_EXT_CNTL = display and syncs disabled (0x700), DAC_CNTL = DAC
 *     powered down (0x8000), LVDS_GEN_CNTL = display disabled (0x2), LVDS_PLL_CNTL = in reset
 *     (0x20000): the panel is dark. */
#pragma once

#include "hw-sim.h"

#define SIM_RADEON_PLL_RESET_US 1000u
#define SIM_RADEON_PANEL_T2_US 20000u

typedef struct SimRadeon SimRadeon;

/* Takes over sim's MMIO (hook, and BAR2) as a Radeon with or without a panel interface.
 * It starts in the sim_radeon_wake() state. */
int sim_radeon_new(HwSim *sim, bool lvds, SimRadeon **ret);
SimRadeon *sim_radeon_free(SimRadeon *sr);
DEFINE_TRIVIAL_CLEANUP_FUNC(SimRadeon *, sim_radeon_free);

void sim_radeon_wake(SimRadeon *sr);
/* What a video BIOS POST leaves on a laptop: the CRTC on in VGA mode, syncs on, the CRT DAC
 * powered, and (with a panel) the LVDS PLL locked and the panel lit. */
void sim_radeon_wake_posted(SimRadeon *sr);

/* Direct, unlogged access for fixtures: sets a register as the hardware would hold it
 * (masked; a PLL enabled out of reset this way is locked at once, a panel lit at once). */
void sim_radeon_set(SimRadeon *sr, uint32_t offset, uint32_t value);
uint32_t sim_radeon_get(SimRadeon *sr, uint32_t offset);

bool sim_radeon_pll_locked(const SimRadeon *sr);
bool sim_radeon_panel_lit(const SimRadeon *sr);
void sim_radeon_set_monitor(SimRadeon *sr, bool attached);
unsigned sim_radeon_early_backlights(const SimRadeon *sr);
unsigned sim_radeon_absent_panel_writes(const SimRadeon *sr);
