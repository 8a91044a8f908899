/* SPDX-License-Identifier: MIT */
/* A simulated Intel Gen2-Gen4 display engine on top of hw-sim's MMIO register file (its
 * per-register hook): the semantics a save/restore depends on, with time taken from the
 * delays the code asks for (hw_sim_delay_total_us()).
 *
 *   - DPLL_A/B (0x6014/0x6018): the PLL locks SIM_INTEL_PLL_LOCK_US after its VCO bit (31)
 *     is set; sim_intel_set_pll_never_locks() makes it never lock.
 *   - PIPEACONF/PIPEBCONF: a pipe runs SIM_INTEL_PIPE_START_US after it is enabled (bit 31)
 *     on a locked PLL, and stops SIM_INTEL_PIPE_STOP_US after it is disabled or at once when
 *     its PLL stops. Gen4 reports it in PIPExCONF bit 30 (read-only); every generation in the
 *     scan line counter PIPEx_DSL (0x70000/0x71000), which moves only while the pipe runs.
 *   - Planes: DSPxCNTR, ADDR, STRIDE, POS, SIZE, SURF, TILEOFF are double-buffered: a write
 *     arms the register (reads return the armed value) and the write of the surface register
 *     (DSPxSURF on Gen4, DSPxADDR before) latches all of that plane's armed values into
 *     the live ones (sim_intel_live()), which are what is scanned out.
 *   - Panel: PP_STATUS (0x61200, read-only) follows PP_CONTROL bit 0 through the power
 *     sequence: "power up" (bits 29:28 = 1) for T1 + T2 of PP_ON_DELAYS (units of 100 us),
 *     then bit 31 (on); the same down with PP_OFF_DELAYS. sim_intel_set_panel_never_powers()
 *     makes the sequence never finish.
 *   - Palettes (0xA000/0xA800, 256 entries): reachable only while that pipe's PLL is locked;
 *     other writes are dropped and counted, other reads return 0.
 *   - Reserved bits read as 0 (timings, sizes, positions, stride, FP dividers, surface
 *     alignment) and read-only status bits ignore writes; see sim-intel.c for the masks.
 *   - sim_intel_wake(): the state a 945GSE is in after S3: every register at 0 (PLLs off,
 *     pipes off, planes off, panel off, VGA plane enabled), palettes garbage.
 * The MMIO BAR is BAR1 on Gen2, BAR0 on Gen3/Gen4, as on the hardware. */
#pragma once

#include "hw-sim.h"

#define SIM_INTEL_PLL_LOCK_US 50u
#define SIM_INTEL_PIPE_START_US 1000u
#define SIM_INTEL_PIPE_STOP_US 1000u
#define SIM_INTEL_LINE_US 20u

typedef struct SimIntel SimIntel;

/* Takes over sim's MMIO (hook and BAR) as a display engine of generation gen (2..4).
 * The engine starts in the sim_intel_wake() state. */
int sim_intel_new(HwSim *sim, unsigned gen, SimIntel **ret);
SimIntel *sim_intel_free(SimIntel *si);
DEFINE_TRIVIAL_CLEANUP_FUNC(SimIntel *, sim_intel_free);

void sim_intel_wake(SimIntel *si);
/* What firmware leaves after POST: VGA text on pipe A (DPLL A locked, pipe A running, VGA
 * plane on) and the panel on. */
void sim_intel_wake_posted(SimIntel *si);

/* Direct, unlogged access for fixtures: sets a register as the hardware would hold it
 * (masked; for a plane register both armed and live; a DPLL or pipe enabled this way is
 * locked or running at once; PP_CONTROL's power bit sets the panel on or off at once). */
void sim_intel_set(SimIntel *si, uint32_t offset, uint32_t value);
uint32_t sim_intel_get(SimIntel *si, uint32_t offset);
/* The latched value of a plane register (what is scanned out); for any other register the
 * same as sim_intel_get(). */
uint32_t sim_intel_live(SimIntel *si, uint32_t offset);
uint32_t *sim_intel_palette(SimIntel *si, unsigned pipe);

bool sim_intel_pll_locked(SimIntel *si, unsigned pipe);
bool sim_intel_pipe_running(SimIntel *si, unsigned pipe);
bool sim_intel_panel_on(SimIntel *si);

void sim_intel_set_pll_never_locks(SimIntel *si, unsigned pipe, bool b);
void sim_intel_set_panel_never_powers(SimIntel *si, bool b);
/* Palette writes dropped because the pipe's PLL was not locked. */
unsigned sim_intel_dropped_palette_writes(const SimIntel *si);
