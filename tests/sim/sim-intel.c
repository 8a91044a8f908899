/* SPDX-License-Identifier: MIT */
/* Owns the simulated Intel Gen2-Gen4 display engine: PLL lock, pipe run state and scan line,
 * double-buffered planes, the panel power sequence and palettes, behind hw-sim's MMIO hook.
 * Offsets are written out here on their own, not taken from the method under test. */
#include "sim-intel.h"

#define OFF_DPLL_A 0x06014u
#define OFF_PIPE_BASE 0x70000u /* pipe A; pipe B +0x1000 */
#define OFF_DSL 0x00u
#define OFF_CONF 0x08u
#define OFF_PLANE_CNTR 0x180u
#define OFF_PLANE_ADDR 0x184u
#define OFF_PLANE_SURF 0x19Cu
#define OFF_PP_STATUS 0x61200u
#define OFF_PP_CONTROL 0x61204u
#define OFF_PP_ON 0x61208u
#define OFF_PP_OFF 0x6120Cu
#define OFF_PALETTE_A 0x0A000u
#define OFF_PALETTE_B 0x0A800u
#define PALETTE_ENTRIES 256u

#define DPLL_VCO (1u << 31)
#define CONF_ENABLE (1u << 31)
#define CONF_ACTIVE (1u << 30)
#define PP_ON (1u << 31)
#define PP_SEQ_UP (1u << 28)
#define PP_SEQ_DOWN (2u << 28)
#define VTOTAL_LINES 806u
#define NEVER UINT64_MAX

/* The plane registers that are double-buffered, as offsets from the pipe's 0x70000 base. */
static const uint32_t plane_regs[] = { 0x180, 0x184, 0x188, 0x18C, 0x190, 0x19C, 0x1A4 };

/* Writable bits of registers with reserved bits (the rest of a register's bits read 0).
 * Field widths after the layouts in i915_reg.h; registers not listed keep all 32 bits. */
static const struct {
        uint32_t offset, writable;
} masks[] = {
        { 0x60000, 0x1FFF1FFF }, { 0x60004, 0x1FFF1FFF }, { 0x60008, 0x1FFF1FFF }, /* H timings A */
        { 0x6000C, 0x1FFF1FFF }, { 0x60010, 0x1FFF1FFF }, { 0x60014, 0x1FFF1FFF }, /* V timings A */
        { 0x61000, 0x1FFF1FFF }, { 0x61004, 0x1FFF1FFF }, { 0x61008, 0x1FFF1FFF }, /* H timings B */
        { 0x6100C, 0x1FFF1FFF }, { 0x61010, 0x1FFF1FFF }, { 0x61014, 0x1FFF1FFF }, /* V timings B */
        { 0x6001C, 0x0FFF0FFF }, { 0x6101C, 0x0FFF0FFF },                          /* PIPExSRC */
        { 0x06040, 0x003F3F3F }, { 0x06044, 0x003F3F3F },                          /* FPA0/1 */
        { 0x06048, 0x003F3F3F }, { 0x0604C, 0x003F3F3F },                          /* FPB0/1 */
        { 0x70188, 0x0000FFC0 }, { 0x71188, 0x0000FFC0 },                          /* DSPxSTRIDE */
        { 0x7018C, 0x0FFF0FFF }, { 0x7118C, 0x0FFF0FFF },                          /* DSPxPOS */
        { 0x70190, 0x0FFF0FFF }, { 0x71190, 0x0FFF0FFF },                          /* DSPxSIZE */
        { 0x7019C, 0xFFFFF000 }, { 0x7119C, 0xFFFFF000 },                          /* DSPxSURF */
        { 0x70088, 0x8FFF8FFF }, { 0x700C8, 0x8FFF8FFF },                          /* CURxPOS */
};

typedef struct SimPipe {
        uint64_t vco_on_at;    /* NEVER while the VCO bit is clear */
        bool never_locks;
        bool instant;          /* the PLL was set by a fixture load: locked from the start */
        bool pipe_instant;     /* the pipe was set by a fixture load: running from the start */
        uint64_t enabled_at;   /* NEVER while PIPECONF bit 31 is clear */
        uint64_t disabled_at;  /* when the pipe was last disabled while running, else NEVER */
        uint32_t stopped_line; /* what PIPEx_DSL reads while the pipe stands */
        uint32_t live[ELEMENTSOF(plane_regs)];
        uint32_t palette[PALETTE_ENTRIES];
} SimPipe;

struct SimIntel {
        HwSim *sim;
        unsigned gen;
        SimPipe pipe[2];
        uint64_t panel_target_at; /* when PP_CONTROL bit 0 last changed */
        bool panel_target;
        bool panel_instant;       /* set by a fixture load: no sequence to wait for */
        bool panel_was_on;        /* the panel was on when the target went off */
        bool panel_never_powers;
        unsigned dropped_palette_writes;
};

static uint64_t now(const SimIntel *si)
{
        return hw_sim_delay_total_us(si->sim);
}

static uint32_t *reg(SimIntel *si, uint32_t offset)
{
        return &hw_sim_mmio(si->sim)[offset / 4];
}

static uint32_t writable_mask(const SimIntel *si, uint32_t offset)
{
        if (si->gen >= 4 && (offset == OFF_PIPE_BASE + OFF_CONF || offset == OFF_PIPE_BASE + 0x1000 + OFF_CONF))
                return ~CONF_ACTIVE;
        if (si->gen < 4 && (offset == 0x7019C || offset == 0x7119C))
                return 0; /* no surface register before Gen4 */
        for (size_t i = 0; i < ELEMENTSOF(masks); i++)
                if (masks[i].offset == offset)
                        return masks[i].writable;
        return UINT32_MAX;
}

static uint64_t pll_locked_at(const SimPipe *p)
{
        if (p->vco_on_at == NEVER || p->never_locks)
                return NEVER;
        return p->instant ? 0 : p->vco_on_at + SIM_INTEL_PLL_LOCK_US;
}

bool sim_intel_pll_locked(SimIntel *si, unsigned pipe)
{
        return pll_locked_at(&si->pipe[pipe]) <= now(si);
}

bool sim_intel_pipe_running(SimIntel *si, unsigned pipe)
{
        const SimPipe *p = &si->pipe[pipe];
        uint64_t t = now(si), locked = pll_locked_at(p);

        if (locked > t)
                return false; /* no clock, no pipe */
        if (p->enabled_at != NEVER)
                return p->pipe_instant || t >= MAX(p->enabled_at, locked) + SIM_INTEL_PIPE_START_US;
        return p->disabled_at != NEVER && t < p->disabled_at + SIM_INTEL_PIPE_STOP_US;
}

/* Panel power sequence times from the delay registers (units of 100 us). */
static uint64_t panel_delay_us(SimIntel *si, uint32_t offset)
{
        uint32_t v = *reg(si, offset);
        return 100u * (uint64_t)(((v >> 16) & 0x1FFF) + (v & 0x1FFF));
}

static uint32_t panel_status(SimIntel *si)
{
        uint64_t t = now(si);

        if (si->panel_target) {
                if (si->panel_never_powers)
                        return PP_SEQ_UP;
                return si->panel_instant || t >= si->panel_target_at + panel_delay_us(si, OFF_PP_ON) ? PP_ON : PP_SEQ_UP;
        }
        if (si->panel_was_on && t < si->panel_target_at + panel_delay_us(si, OFF_PP_OFF))
                return PP_ON | PP_SEQ_DOWN;
        return 0;
}

bool sim_intel_panel_on(SimIntel *si)
{
        return panel_status(si) & PP_ON;
}

/* The pipe (0, 1) and plane register index of a double-buffered plane register, or -1. */
static int plane_reg_index(uint32_t offset, unsigned *ret_pipe)
{
        for (unsigned p = 0; p < 2; p++)
                for (size_t i = 0; i < ELEMENTSOF(plane_regs); i++)
                        if (offset == OFF_PIPE_BASE + p * 0x1000u + plane_regs[i]) {
                                *ret_pipe = p;
                                return (int)i;
                        }
        return -1;
}

static void plane_latch(SimIntel *si, unsigned pipe)
{
        for (size_t i = 0; i < ELEMENTSOF(plane_regs); i++)
                si->pipe[pipe].live[i] = *reg(si, OFF_PIPE_BASE + pipe * 0x1000u + plane_regs[i]);
}

static bool is_latch_register(const SimIntel *si, uint32_t offset, unsigned pipe)
{
        return offset == OFF_PIPE_BASE + pipe * 0x1000u + (si->gen >= 4 ? OFF_PLANE_SURF : OFF_PLANE_ADDR);
}

/* A palette entry: its pipe and index, or false. */
static bool palette_entry(uint32_t offset, unsigned *ret_pipe, unsigned *ret_i)
{
        for (unsigned p = 0; p < 2; p++) {
                uint32_t base = p == 0 ? OFF_PALETTE_A : OFF_PALETTE_B;
                if (offset >= base && offset < base + 4 * PALETTE_ENTRIES) {
                        *ret_pipe = p;
                        *ret_i = (offset - base) / 4;
                        return true;
                }
        }
        return false;
}

static void dpll_written(SimIntel *si, unsigned pipe, uint32_t v, bool at_once)
{
        SimPipe *p = &si->pipe[pipe];

        if (!(v & DPLL_VCO)) {
                p->vco_on_at = NEVER;
                p->instant = false;
        } else if (p->vco_on_at == NEVER) {
                p->vco_on_at = now(si);
                p->instant = at_once;
        }
}

static void conf_written(SimIntel *si, unsigned pipe, uint32_t v, bool at_once)
{
        SimPipe *p = &si->pipe[pipe];

        if (v & CONF_ENABLE) {
                if (p->enabled_at == NEVER) {
                        p->enabled_at = now(si);
                        p->pipe_instant = at_once;
                }
                p->disabled_at = NEVER;
                return;
        }
        if (p->enabled_at != NEVER) {
                bool was_running = sim_intel_pipe_running(si, pipe);
                p->enabled_at = NEVER;
                p->pipe_instant = false;
                p->disabled_at = was_running && !at_once ? now(si) : NEVER;
        }
}

static void panel_written(SimIntel *si, uint32_t v, bool at_once)
{
        bool target = v & 1u;

        if (target == si->panel_target)
                return;
        si->panel_was_on = !at_once && sim_intel_panel_on(si);
        si->panel_target = target;
        si->panel_instant = at_once;
        si->panel_target_at = now(si);
}

/* A write as the hardware takes it. at_once: a fixture load, not a bus write. */
static void sim_intel_write(SimIntel *si, uint32_t offset, uint32_t value, bool at_once)
{
        unsigned pipe, i;
        int k;

        if (offset == OFF_PP_STATUS || offset == OFF_PIPE_BASE + OFF_DSL || offset == OFF_PIPE_BASE + 0x1000 + OFF_DSL)
                return; /* read-only */
        if (palette_entry(offset, &pipe, &i)) {
                if (!at_once && !sim_intel_pll_locked(si, pipe)) {
                        si->dropped_palette_writes++;
                        return;
                }
                si->pipe[pipe].palette[i] = value;
                return;
        }
        value &= writable_mask(si, offset);
        *reg(si, offset) = value;

        if (offset == OFF_DPLL_A || offset == OFF_DPLL_A + 4)
                dpll_written(si, (offset - OFF_DPLL_A) / 4, value, at_once);
        else if (offset == OFF_PIPE_BASE + OFF_CONF || offset == OFF_PIPE_BASE + 0x1000 + OFF_CONF)
                conf_written(si, (offset - OFF_PIPE_BASE) / 0x1000, value, at_once);
        else if (offset == OFF_PP_CONTROL)
                panel_written(si, value, at_once);

        k = plane_reg_index(offset, &pipe);
        if (k >= 0 && (at_once || is_latch_register(si, offset, pipe))) {
                if (at_once)
                        si->pipe[pipe].live[k] = value;
                else
                        plane_latch(si, pipe);
        }
}

static uint32_t sim_intel_read(SimIntel *si, uint32_t offset)
{
        unsigned pipe, i;

        if (offset == OFF_PP_STATUS)
                return panel_status(si);
        if (palette_entry(offset, &pipe, &i))
                return sim_intel_pll_locked(si, pipe) ? si->pipe[pipe].palette[i] : 0;
        for (pipe = 0; pipe < 2; pipe++) {
                uint32_t base = OFF_PIPE_BASE + pipe * 0x1000u;

                if (offset == base + OFF_DSL) {
                        if (sim_intel_pipe_running(si, pipe))
                                si->pipe[pipe].stopped_line = (uint32_t)((now(si) / SIM_INTEL_LINE_US) % VTOTAL_LINES);
                        return si->pipe[pipe].stopped_line;
                }
                if (offset == base + OFF_CONF && si->gen >= 4)
                        return (*reg(si, offset) & ~CONF_ACTIVE) | (sim_intel_pipe_running(si, pipe) ? CONF_ACTIVE : 0);
        }
        return *reg(si, offset);
}

static int sim_intel_hook(HwSim *sim, bool write, uint32_t offset, uint32_t *value, void *userdata)
{
        SimIntel *si = userdata;

        if (write)
                sim_intel_write(si, offset, *value, false);
        else
                *value = sim_intel_read(si, offset);
        return 1;
}

void sim_intel_wake(SimIntel *si)
{
        uint32_t s = 0x945u;

        memset(hw_sim_mmio(si->sim), 0, HW_SIM_MMIO_SIZE);
        for (unsigned p = 0; p < 2; p++) {
                SimPipe *pp = &si->pipe[p];
                bool never = pp->never_locks;

                memset(pp, 0, sizeof(*pp));
                pp->never_locks = never;
                pp->vco_on_at = pp->enabled_at = pp->disabled_at = NEVER;
                for (unsigned i = 0; i < PALETTE_ENTRIES; i++) {
                        s = s * 1103515245u + 12345u;
                        pp->palette[i] = s & 0x00FFFFFFu;
                }
        }
        si->panel_target = si->panel_was_on = si->panel_instant = false;
        si->panel_target_at = 0;
}

void sim_intel_wake_posted(SimIntel *si)
{
        sim_intel_wake(si);
        sim_intel_set(si, OFF_DPLL_A, 0x94020003u);
        sim_intel_set(si, OFF_PIPE_BASE + OFF_CONF, CONF_ENABLE);
        sim_intel_set(si, OFF_PP_CONTROL, 1u);
}

int sim_intel_new(HwSim *sim, unsigned gen, SimIntel **ret)
{
        SimIntel *si;

        if (!sim || !ret || gen < 2 || gen > 4)
                return -EINVAL;
        si = calloc(1, sizeof(SimIntel));
        if (!si)
                return -ENOMEM;
        si->sim = hw_sim_ref(sim);
        si->gen = gen;
        hw_sim_set_mmio_bar(sim, gen == 2 ? 1 : 0);
        hw_sim_set_mmio_hook(sim, sim_intel_hook, si);
        sim_intel_wake(si);
        *ret = si;
        return 0;
}

SimIntel *sim_intel_free(SimIntel *si)
{
        if (!si)
                return NULL;
        hw_sim_set_mmio_hook(si->sim, NULL, NULL);
        hw_sim_unref(si->sim);
        free(si);
        return NULL;
}

void sim_intel_set(SimIntel *si, uint32_t offset, uint32_t value)
{
        sim_intel_write(si, offset, value, true);
}

uint32_t sim_intel_get(SimIntel *si, uint32_t offset)
{
        return sim_intel_read(si, offset);
}

uint32_t sim_intel_live(SimIntel *si, uint32_t offset)
{
        unsigned pipe;
        int k = plane_reg_index(offset, &pipe);

        return k >= 0 ? si->pipe[pipe].live[k] : sim_intel_read(si, offset);
}

uint32_t *sim_intel_palette(SimIntel *si, unsigned pipe)
{
        return si->pipe[pipe].palette;
}

void sim_intel_set_pll_never_locks(SimIntel *si, unsigned pipe, bool b)
{
        si->pipe[pipe].never_locks = b;
}

void sim_intel_set_panel_never_powers(SimIntel *si, bool b)
{
        si->panel_never_powers = b;
}

unsigned sim_intel_dropped_palette_writes(const SimIntel *si)
{
        return si->dropped_palette_writes;
}
