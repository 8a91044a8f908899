/* SPDX-License-Identifier: MIT */
/* Unit tests for the "intel" method on the simulated Gen2-Gen4 display engine: round trips
 * (a real 945GM register trace among them), the restore order read off the access log,
 * bounded and named failures, the BAR per generation, payload validation and the dump. */
#include "sim-fixture.h"
#include "sim-intel.h"
#include "methods/intel.h"

typedef struct IntelFixture {
        Fixture f;
        SimIntel *si;
} IntelFixture;

static DisplayDevice intel_device(uint16_t device_id)
{
        return (DisplayDevice){
                .slot = "0000:00:02.0",
                .dev = 2,
                .vendor_id = 0x8086,
                .device_id = device_id,
                .class_code = 0x030000,
                .boot_vga = true,
                .verdict = VERDICT_UMS,
        };
}

static void intel_setup(IntelFixture *x, uint16_t device_id)
{
        DisplayDevice d = intel_device(device_id);
        const IntelChip *chip = intel_chip_lookup(0x8086, device_id);

        assert_non_null(chip);
        *x = (IntelFixture){ 0 };
        assert_int_equal(hw_sim_new(&d, &x->f.sim, &x->f.hw), 0);
        assert_int_equal(sim_intel_new(x->f.sim, chip->gen, &x->si), 0);
}

static void intel_teardown(IntelFixture *x)
{
        sim_intel_free(x->si);
        buffer_done(&x->f.payload);
        hw_free(x->f.hw);
        hw_sim_unref(x->f.sim);
}

static void save(IntelFixture *x, Buffer *out)
{
        buffer_done(out);
        assert_int_equal(method_intel.probe(x->f.hw, x->f.hw->device), 1);
        assert_int_equal(method_intel.save(x->f.hw, x->f.hw->device, out), 0);
        assert_int_equal(out->size, INTEL_PAYLOAD_SIZE);
        assert_int_equal(method_intel.check(out->data, out->size), 0);
}

static int restore(IntelFixture *x)
{
        return method_intel.restore(x->f.hw, x->f.hw->device, x->f.payload.data, x->f.payload.size);
}

static int verify(IntelFixture *x, Buffer *report)
{
        return method_intel.verify(x->f.hw, x->f.hw->device, x->f.payload.data, x->f.payload.size, report);
}

static void load(IntelFixture *x, const uint32_t (*regs)[2], size_t n)
{
        for (size_t i = 0; i < n; i++)
                sim_intel_set(x->si, regs[i][0], regs[i][1]);
}

/* A real 945GM: the register values the i915 driver left on a Lenovo ThinkPad X60 (945GM,
 * 8086:27a2, 1024x768 LVDS panel on pipe B), the last value written or read of each display
 * register in the trace in coreboot/coreboot src/mainboard/lenovo/x60/i915io.c (commit
 * 04d89172e07deb5260e427f63bab264ce9e7f27f; generated with i915tool from the kernel's
 * register accesses). It is a trace, not a complete dump: registers it does not touch keep
 * the simulator's reset value 0. */
static const uint32_t x60_trace[][2] = {
        { 0x71400, 0x80000000 }, /* VGACNTRL: VGA plane off */
        { 0x06104, 0x0000000b }, /* D_STATE */
        { 0x70030, 0x00001d9c }, /* DSPARB */
        { 0x06040, 0x00020e08 }, /* FPA0 */
        { 0x06044, 0x00020e08 }, /* FPA1 */
        { 0x06014, 0x14020003 }, /* DPLL_A: VCO off again at the end of the trace */
        { 0x6001c, 0x04ff03ff }, /* PIPEASRC */
        { 0x70008, 0x00000000 }, /* PIPEACONF */
        { 0x70180, 0x59000000 }, /* DSPACNTR: pipe B, 32 bpp */
        { 0x70190, 0x02ff03ff }, /* DSPASIZE */
        { 0x7018c, 0x00000000 }, /* DSPAPOS */
        { 0x06048, 0x00020e09 }, /* FPB0 */
        { 0x0604c, 0x00020e09 }, /* FPB1 */
        { 0x06018, 0x98046000 }, /* DPLL_B: VCO on, LVDS mode */
        { 0x61000, 0x053f03ff }, /* HTOTAL_B */
        { 0x61004, 0x053f03ff }, /* HBLANK_B */
        { 0x61008, 0x049f0417 }, /* HSYNC_B */
        { 0x6100c, 0x032502ff }, /* VTOTAL_B */
        { 0x61010, 0x032502ff }, /* VBLANK_B */
        { 0x61014, 0x03080302 }, /* VSYNC_B */
        { 0x6101c, 0x03ff02ff }, /* PIPEBSRC */
        { 0x71008, 0x80000000 }, /* PIPEBCONF: enabled */
        { 0x71180, 0x58000000 }, /* DSPBCNTR */
        { 0x71184, 0x00020000 }, /* DSPBADDR */
        { 0x71190, 0x03ff04ff }, /* DSPBSIZE */
        { 0x61180, 0xc0300300 }, /* LVDS: port on */
        { 0x61140, 0x00300000 }, /* DVOB */
        { 0x61160, 0x00300000 }, /* DVOC */
        { 0x61230, 0x00000008 }, /* PFIT_CONTROL */
        { 0x61204, 0xabcd0000 }, /* PP_CONTROL: unlock key, panel target off */
        { 0x61254, 0x00000002 }, /* BLC_PWM_CTL */
};

/* A synthetic MSI Wind U100 (945GSE) showing a picture: 1024x600 LVDS on pipe B, plane A
 * scanning out on pipe B, the panel powered, the VGA plane off, a cursor, scratch values. */
static const uint32_t wind_running[][2] = {
        { 0x71400, 0x80000000 }, { 0x06104, 0x0000000b }, { 0x70030, 0x00001d9c },
        { 0x06048, 0x00021207 }, { 0x0604c, 0x00021207 }, { 0x06018, 0x98046000 },
        { 0x61000, 0x053f03ff }, { 0x61004, 0x053f03ff }, { 0x61008, 0x049f0417 },
        { 0x6100c, 0x02740257 }, { 0x61010, 0x02740257 }, { 0x61014, 0x025c0259 },
        { 0x6101c, 0x03ff0257 }, { 0x71008, 0x80000000 },
        { 0x70180, 0x99000000 }, { 0x70184, 0x00000000 }, { 0x70188, 0x00001000 },
        { 0x70190, 0x025703ff }, { 0x700c0, 0x00000027 }, { 0x700c4, 0x00400000 },
        { 0x700c8, 0x00f00100 }, { 0x61180, 0xc0300300 }, { 0x61230, 0x00000000 },
        { 0x61208, 0x01f407d0 }, { 0x6120c, 0x01f407d0 }, { 0x61210, 0x00270f04 },
        { 0x61204, 0xabcd0001 }, { 0x61254, 0x60166016 }, { 0x61260, 0x00000000 },
        { 0x71410, 0x12345678 }, { 0x70410, 0x0000ffff }, { 0x72414, 0x00000001 },
};

static void fill_palette(IntelFixture *x, unsigned pipe, uint32_t seed)
{
        uint32_t *pal = sim_intel_palette(x->si, pipe);
        for (unsigned i = 0; i < INTEL_PALETTE_ENTRIES; i++)
                pal[i] = (seed * (i + 1) * 2654435761u) & 0x00FFFFFF;
}

/* Save, wake to the given state, restore, verify, and save again: the payloads are
 * byte-identical, the planes latched what was written, no palette write was dropped. */
static void assert_roundtrip(IntelFixture *x, bool posted)
{
        _cleanup_(buffer_done) Buffer again = { 0 }, report = { 0 };
        int r;

        save(x, &x->f.payload);
        if (posted)
                sim_intel_wake_posted(x->si);
        else
                sim_intel_wake(x->si);
        hw_sim_log_clear(x->f.sim);
        r = restore(x);
        if (r < 0) {
                print_log(x->f.sim);
                fail_msg("restore: %s (%s)", strerror(-r), x->f.hw->failure);
        }
        r = verify(x, &report);
        if (r != 0)
                fail_msg("verify: %d mismatches:\n%s", r, buffer_str(&report));
        save(x, &again);
        assert_int_equal(again.size, x->f.payload.size);
        assert_memory_equal(again.data, x->f.payload.data, again.size);
        assert_int_equal(sim_intel_dropped_palette_writes(x->si), 0);
        for (unsigned p = 0; p < 2; p++)
                for (uint32_t off = 0x70180; off <= 0x701A4; off += 4)
                        assert_int_equal(sim_intel_live(x->si, off + p * 0x1000), sim_intel_get(x->si, off + p * 0x1000));
        assert_int_equal(hw_sim_violations(x->f.sim), 0);
}

static void test_identity(void **state)
{
        DisplayDevice d = intel_device(0x27ae);

        (void)state;
        assert_string_equal(method_intel.name, "intel");
        assert_int_equal(method_intel.id, INTEL_METHOD_ID);
        assert_int_equal(method_intel.version, 1);
        assert_ptr_equal(method_by_name("intel"), &method_intel);
        assert_true(method_intel.applies(&d));
        assert_int_equal(method_intel.probe(NULL, &d), 1);
        /* The IGD's second function, Ironlake, other vendors: not claimed. */
        d.device_id = 0x27a6, d.class_code = 0x038000, d.func = 1;
        assert_false(method_intel.applies(&d));
        d = intel_device(0x0046);
        assert_false(method_intel.applies(&d));
        d = intel_device(0x27ae);
        d.vendor_id = 0x1234;
        assert_false(method_intel.applies(&d));
        assert_int_equal(method_intel.probe(NULL, &d), 0);
        /* Gen2 BAR1, Gen3 and Gen4 BAR0. */
        assert_int_equal(intel_mmio_bar(2), 1);
        assert_int_equal(intel_mmio_bar(3), 0);
        assert_int_equal(intel_mmio_bar(4), 0);
}

static void test_roundtrip_x60_trace(void **state)
{
        IntelFixture x;

        (void)state;
        intel_setup(&x, 0x27a2);
        load(&x, x60_trace, ELEMENTSOF(x60_trace));
        fill_palette(&x, 1, 7);
        assert_roundtrip(&x, false);
        assert_true(sim_intel_pipe_running(x.si, 1));
        assert_false(sim_intel_pipe_running(x.si, 0));
        assert_int_equal(sim_intel_get(x.si, 0x71008), 0x80000000);
        intel_teardown(&x);
}

static void test_roundtrip_wind_from_posted(void **state)
{
        IntelFixture x;

        (void)state;
        intel_setup(&x, 0x27ae);
        load(&x, wind_running, ELEMENTSOF(wind_running));
        fill_palette(&x, 1, 3);
        assert_roundtrip(&x, true); /* the firmware left VGA text on pipe A and the panel on */
        assert_true(sim_intel_panel_on(x.si));
        assert_false(sim_intel_pipe_running(x.si, 0));
        assert_true(sim_intel_pipe_running(x.si, 1));
        assert_int_equal(sim_intel_live(x.si, 0x70180), 0x99000000);
        intel_teardown(&x);
}

static size_t first_write(HwSim *sim, uint32_t offset)
{
        return log_find_mmio_write(sim, 0, false, offset, 0, 0);
}

static size_t last_write(HwSim *sim, uint32_t offset)
{
        return log_find_mmio_write(sim, 0, true, offset, 0, 0);
}

static size_t first_write_in(HwSim *sim, uint32_t lo, uint32_t hi)
{
        const HwSimAccess *log;
        size_t n;

        log = hw_sim_log(sim, &n);
        for (size_t i = 0; i < n; i++)
                if (log[i].type == HW_SIM_MMIO_WRITE && log[i].offset >= lo && log[i].offset <= hi)
                        return i;
        return SIZE_MAX;
}

/* The order of the UMS driver, read off the log of a restore from the state firmware
 * leaves: outputs, planes, pipes, PLLs off; PLLs programmed with the VCO off and given
 * their settle time; timings; pipe; plane control and the latching surface write; VGA
 * control; palettes; cursors; panel fitter; ports; panel power (waited for); backlight. */
static void test_restore_order(void **state)
{
        IntelFixture x;
        HwSim *sim;
        size_t pp_off, plane_off, pipe_off, pll_off, fp, prime, dpll_on, timing, conf_on, cntr, latch, vgacntrl,
                palette, cursor, pfit, lvds, pp_on, pp_seen_on = SIZE_MAX, blc;
        const HwSimAccess *log;
        size_t n;

        (void)state;
        intel_setup(&x, 0x27ae);
        sim = x.f.sim;
        load(&x, wind_running, ELEMENTSOF(wind_running));
        fill_palette(&x, 1, 5);
        save(&x, &x.f.payload);
        sim_intel_wake_posted(x.si);
        hw_sim_log_clear(sim);
        assert_int_equal(restore(&x), 0);

        /* Off, in [D]'s order: the panel (waited for), the plane, the pipe, then its PLL. */
        pp_off = log_find_mmio_write(sim, 0, false, 0x61204, 1, 0);
        plane_off = log_find_mmio_write(sim, 0, false, 0x70180, 0x80000000, 0); /* nothing enabled plane A */
        pipe_off = log_find_mmio_write(sim, 0, false, 0x70008, 0x80000000, 0);
        pll_off = log_find_mmio_write(sim, 0, false, 0x06014, 0x80000000, 0);
        assert_int_equal(plane_off, SIZE_MAX); /* plane A was off: not touched */
        assert_before(sim, pp_off, pipe_off);
        assert_before(sim, first_write(sim, 0x71400), pipe_off); /* VGA plane off before its pipe */
        assert_before(sim, pipe_off, pll_off);
        assert_true(log_delay_between(sim, pipe_off, pll_off) > 0);

        /* Pipe B's PLL: primed with the VCO off, dividers, then the VCO on, settled. */
        prime = log_find_mmio_write(sim, 0, false, 0x06018, 0x80000000, 0);
        fp = first_write(sim, 0x06048);
        dpll_on = log_find_mmio_write(sim, 0, false, 0x06018, 0x80000000, 0x80000000);
        timing = first_write(sim, 0x61000);
        assert_before(sim, pll_off, prime);
        assert_before(sim, prime, fp);
        assert_before(sim, fp, dpll_on);
        assert_before(sim, dpll_on, timing);
        assert_true(log_delay_between(sim, dpll_on, timing) >= 150);

        /* Timings, pipe on, then plane control and the surface write that latches it. */
        conf_on = log_find_mmio_write(sim, 0, false, 0x71008, 0x80000000, 0x80000000);
        cntr = log_find_mmio_write(sim, 0, false, 0x70180, 0x80000000, 0x80000000);
        latch = last_write(sim, 0x70184);
        assert_before(sim, last_write(sim, 0x61014), conf_on);
        assert_before(sim, last_write(sim, 0x70190), conf_on);
        assert_before(sim, conf_on, cntr);
        assert_before(sim, cntr, latch);
        assert_true(log_delay_between(sim, conf_on, cntr) > 0); /* waited for the pipe to run */

        vgacntrl = last_write(sim, 0x71400);
        palette = first_write_in(sim, 0x0A800, 0x0ABFC);
        cursor = first_write_in(sim, 0x70080, 0x700C8);
        pfit = first_write(sim, 0x61230);
        lvds = first_write(sim, 0x61180);
        pp_on = log_find_mmio_write(sim, 0, false, 0x61204, 1, 1);
        blc = first_write(sim, 0x61254);
        assert_before(sim, latch, vgacntrl);
        assert_before(sim, vgacntrl, palette);
        assert_before(sim, palette, cursor);
        assert_before(sim, cursor, pfit);
        assert_before(sim, pfit, lvds);
        assert_before(sim, lvds, first_write(sim, 0x61208));
        assert_before(sim, first_write(sim, 0x61208), pp_on);
        assert_before(sim, pp_on, blc);
        assert_int_equal(blc, last_write(sim, 0x61254));
        /* The backlight only once PP_STATUS said the panel is on. */
        log = hw_sim_log(sim, &n);
        for (size_t i = pp_on; i < n; i++)
                if (log[i].type == HW_SIM_MMIO_READ && log[i].offset == 0x61200 && (log[i].value & 0x80000000)) {
                        pp_seen_on = i;
                        break;
                }
        assert_before(sim, pp_seen_on, blc);
        /* Every palette write went to a running PLL, and the palette of the pipe whose PLL
         * was off at save (A) was neither saved nor written. */
        assert_int_equal(sim_intel_dropped_palette_writes(x.si), 0);
        assert_int_equal(first_write_in(sim, 0x0A000, 0x0A3FC), SIZE_MAX);
        intel_teardown(&x);
}

/* Restoring over an engine that still shows a picture (a restore run by hand): the plane
 * goes off first and its surface register is written so that the change takes, then its
 * pipe (waited until it stops), then the PLL; the round trip still holds. */
static void test_restore_over_running_engine(void **state)
{
        IntelFixture x;
        HwSim *sim;
        size_t plane_off, latch, pipe_off, pll_off;

        (void)state;
        intel_setup(&x, 0x27ae);
        sim = x.f.sim;
        load(&x, wind_running, ELEMENTSOF(wind_running));
        save(&x, &x.f.payload);
        hw_sim_log_clear(sim);
        assert_int_equal(restore(&x), 0);
        plane_off = log_find_mmio_write(sim, 0, false, 0x70180, 0x80000000, 0);
        latch = first_write(sim, 0x70184);
        pipe_off = log_find_mmio_write(sim, 0, false, 0x71008, 0x80000000, 0);
        pll_off = log_find_mmio_write(sim, 0, false, 0x06018, 0x80000000, 0);
        assert_before(sim, log_find_mmio_write(sim, 0, false, 0x61204, 1, 0), plane_off);
        assert_before(sim, plane_off, latch);
        assert_before(sim, latch, pipe_off);
        assert_before(sim, pipe_off, pll_off);
        assert_true(log_delay_between(sim, pipe_off, pll_off) >= SIM_INTEL_PIPE_STOP_US);
        assert_int_equal(verify(&x, NULL), 0);
        assert_int_equal(sim_intel_live(x.si, 0x70180), 0x99000000);
        intel_teardown(&x);
}

/* A PLL that never locks: the pipe never starts; restore fails within its bound, names
 * the register, and writes nothing after the pipe enable (no plane, palette, port, panel
 * or backlight onto a dead pipe). Gen3 watches the scan line, Gen4 PIPECONF bit 30. */
static void assert_pll_never_locks(uint16_t device_id, const char *named)
{
        IntelFixture x;
        const HwSimAccess *log;
        size_t n, conf_on;

        intel_setup(&x, device_id);
        load(&x, wind_running, ELEMENTSOF(wind_running));
        save(&x, &x.f.payload);
        sim_intel_wake(x.si);
        sim_intel_set_pll_never_locks(x.si, 1, true);
        hw_sim_log_clear(x.f.sim);
        assert_int_equal(restore(&x), -ETIMEDOUT);
        if (!strstr(x.f.hw->failure, named) || !strstr(x.f.hw->failure, "expected"))
                fail_msg("failure note '%s' does not name %s", x.f.hw->failure, named);
        conf_on = log_find_mmio_write(x.f.sim, 0, false, 0x71008, 0x80000000, 0x80000000);
        assert_int_not_equal(conf_on, SIZE_MAX);
        log = hw_sim_log(x.f.sim, &n);
        for (size_t i = conf_on + 1; i < n; i++)
                if (log[i].type == HW_SIM_MMIO_WRITE) {
                        print_log(x.f.sim);
                        fail_msg("write #%zu after the pipe that never started", i);
                }
        assert_true(hw_sim_delay_total_us(x.f.sim) <= 2 * INTEL_PIPE_TIMEOUT_US);
        assert_false(sim_intel_panel_on(x.si));
        intel_teardown(&x);
}

static void test_pll_never_locks(void **state)
{
        (void)state;
        assert_pll_never_locks(0x27ae, "PIPEB_DSL");
        assert_pll_never_locks(0x2a02, "PIPEBCONF");
}

/* A panel that never powers up: bounded, named, and the backlight is not written. */
static void test_panel_never_powers(void **state)
{
        IntelFixture x;

        (void)state;
        intel_setup(&x, 0x27ae);
        load(&x, wind_running, ELEMENTSOF(wind_running));
        save(&x, &x.f.payload);
        sim_intel_wake(x.si);
        sim_intel_set_panel_never_powers(x.si, true);
        hw_sim_log_clear(x.f.sim);
        assert_int_equal(restore(&x), -ETIMEDOUT);
        assert_non_null(strstr(x.f.hw->failure, "PP_STATUS = 0x10000000"));
        assert_non_null(strstr(x.f.hw->failure, "panel power on"));
        assert_int_equal(first_write(x.f.sim, 0x61254), SIZE_MAX);
        assert_true(hw_sim_delay_total_us(x.f.sim) <= INTEL_PANEL_TIMEOUT_US + 2 * INTEL_PIPE_TIMEOUT_US);
        intel_teardown(&x);
}

/* Every MMIO access of a save and a restore went to bar. */
static void assert_all_mmio_on_bar(HwSim *sim, unsigned bar)
{
        const HwSimAccess *log;
        size_t n, seen = 0;

        log = hw_sim_log(sim, &n);
        for (size_t i = 0; i < n; i++)
                if (log[i].type == HW_SIM_MMIO_READ || log[i].type == HW_SIM_MMIO_WRITE) {
                        assert_int_equal(log[i].bar, bar);
                        seen++;
                }
        assert_true(seen > 100);
}

static void test_bar_per_generation(void **state)
{
        static const struct {
                uint16_t device_id;
                unsigned bar;
        } cases[] = { { 0x3582, 1 }, { 0x2572, 1 }, { 0x27ae, 0 }, { 0x2a02, 0 }, { 0x2e22, 0 } };

        (void)state;
        for (size_t c = 0; c < ELEMENTSOF(cases); c++) {
                IntelFixture x;

                intel_setup(&x, cases[c].device_id);
                load(&x, wind_running, ELEMENTSOF(wind_running));
                hw_sim_log_clear(x.f.sim);
                assert_roundtrip(&x, false);
                assert_all_mmio_on_bar(x.f.sim, cases[c].bar);
                intel_teardown(&x);
        }
}

/* Gen4: DSPxSURF latches the plane (not DSPxADDR), DPLL_MD and BLC_PWM_CTL2 come back. */
static void test_gen4_surface_latch(void **state)
{
        IntelFixture x;
        HwSim *sim;

        (void)state;
        intel_setup(&x, 0x2a02);
        sim = x.f.sim;
        load(&x, wind_running, ELEMENTSOF(wind_running));
        sim_intel_set(x.si, 0x7019C, 0x00200000); /* DSPASURF */
        sim_intel_set(x.si, 0x701A4, 0x00100010); /* DSPATILEOFF */
        sim_intel_set(x.si, 0x06020, 0x00000003); /* DPLL_B_MD */
        sim_intel_set(x.si, 0x61250, 0x80000000); /* BLC_PWM_CTL2 */
        fill_palette(&x, 1, 9);
        assert_roundtrip(&x, false);
        assert_before(sim, log_find_mmio_write(sim, 0, false, 0x70180, 0x80000000, 0x80000000), last_write(sim, 0x7019C));
        assert_before(sim, last_write(sim, 0x70184), last_write(sim, 0x7019C));
        assert_int_equal(sim_intel_live(x.si, 0x7019C), 0x00200000);
        assert_int_equal(sim_intel_get(x.si, 0x06020), 0x00000003);
        assert_int_equal(sim_intel_get(x.si, 0x61250), 0x80000000);
        intel_teardown(&x);
}

/* Reserved bits read as 0 in the simulator, so a saved value never has them. */
static void test_reserved_bits(void **state)
{
        IntelFixture x;
        uint32_t v;

        (void)state;
        intel_setup(&x, 0x27ae);
        sim_intel_set(x.si, 0x6101C, 0xFFFFFFFF);
        assert_int_equal(sim_intel_get(x.si, 0x6101C), 0x0FFF0FFF);
        save(&x, &x.f.payload);
        v = read_le32(x.f.payload.data + INTEL_OFF_REGS + 4 * INTEL_PIPE_REG(1, INTEL_PIPE_SRC));
        assert_int_equal(v, 0x0FFF0FFF);
        intel_teardown(&x);
}

static void test_save_reads_only(void **state)
{
        IntelFixture x;

        (void)state;
        intel_setup(&x, 0x27ae);
        load(&x, wind_running, ELEMENTSOF(wind_running));
        hw_sim_log_clear(x.f.sim);
        save(&x, &x.f.payload);
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_MMIO_WRITE), 0);
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_CFG_WRITE), 0);
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_IO_WRITE), 0);
        /* Palette A is not read: its PLL is off. */
        assert_int_equal(x.f.payload.data[INTEL_OFF_FLAGS], INTEL_FLAG_PALETTE_B);
        intel_teardown(&x);
}

static void test_verify_names_a_mismatch(void **state)
{
        _cleanup_(buffer_done) Buffer report = { 0 };
        IntelFixture x;

        (void)state;
        intel_setup(&x, 0x27ae);
        load(&x, wind_running, ELEMENTSOF(wind_running));
        save(&x, &x.f.payload);
        sim_intel_set(x.si, 0x61180, 0x40000000);
        hw_sim_log_clear(x.f.sim);
        assert_int_equal(verify(&x, &report), 1);
        assert_string_equal(buffer_str(&report), "LVDS = 0x40000000, expected 0xc0300300\n");
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_MMIO_WRITE), 0);
        intel_teardown(&x);
}

static void test_malformed_payloads(void **state)
{
        IntelFixture x;
        uint8_t *p;
        size_t len;

        (void)state;
        intel_setup(&x, 0x27ae);
        load(&x, wind_running, ELEMENTSOF(wind_running));
        fill_palette(&x, 1, 1);
        save(&x, &x.f.payload);
        len = x.f.payload.size;
        p = malloc(len + 1);
        assert_non_null(p);

#define MUTATE(stmt)                                                                                         \
        do {                                                                                                 \
                memcpy(p, x.f.payload.data, len);                                                            \
                stmt;                                                                                        \
                assert_method_refuses_without_access(&x.f, &method_intel, p, len);                           \
        } while (0)

        assert_method_refuses_without_access(&x.f, &method_intel, NULL, 0);
        memcpy(p, x.f.payload.data, len);
        assert_method_refuses_without_access(&x.f, &method_intel, p, len - 1);
        p[len] = 0;
        assert_method_refuses_without_access(&x.f, &method_intel, p, len + 1);
        MUTATE(p[INTEL_OFF_GEN] = 4);                                      /* generation of another chip */
        MUTATE(p[INTEL_OFF_DEVICE] = 0x46; p[INTEL_OFF_DEVICE + 1] = 0x00; p[INTEL_OFF_GEN] = 5); /* Ironlake */
        MUTATE(p[INTEL_OFF_DEVICE] = 0x99);                                /* no such chip */
        MUTATE(p[INTEL_OFF_FLAGS] |= 0x80);                                /* unknown flag */
        MUTATE(p[INTEL_OFF_REGS + 4 * INTEL_PIPE_REG(0, INTEL_PIPE_DPLL_MD)] = 1); /* no DPLL_MD on Gen3 */
        MUTATE(p[INTEL_OFF_FLAGS] |= INTEL_FLAG_PALETTE_A);                /* palette of a stopped PLL */
        MUTATE(p[INTEL_OFF_PALETTE] = 1);                                  /* unsaved palette not 0 */
        MUTATE(p[INTEL_OFF_REGS + 4 * INTEL_PIPE_REG(0, INTEL_PIPE_CONF) + 3] = 0x80); /* pipe on a dead PLL */
#undef MUTATE
        free(p);

        /* A state of another chip is refused before any write. */
        hw_sim_log_clear(x.f.sim);
        {
                DisplayDevice other = intel_device(0x27a2);
                assert_int_equal(method_intel.restore(x.f.hw, &other, x.f.payload.data, len), -ENODEV);
        }
        assert_int_equal(hw_sim_access_count(x.f.sim), 0);
        intel_teardown(&x);
}

static void test_dump(void **state)
{
        _cleanup_(buffer_done) Buffer text = { 0 }, json = { 0 };
        IntelFixture x;

        (void)state;
        intel_setup(&x, 0x27ae);
        load(&x, wind_running, ELEMENTSOF(wind_running));
        sim_intel_set(x.si, 0x06014, 0x94020003);
        sim_intel_set(x.si, 0x70008, 0x80000000);
        save(&x, &x.f.payload);
        hw_sim_set_forbid(x.f.sim, true);
        assert_int_equal(method_intel.dump(x.f.payload.data, x.f.payload.size, false, &text), 0);
        assert_int_equal(method_intel.dump(x.f.payload.data, x.f.payload.size, true, &json), 0);
        hw_sim_set_forbid(x.f.sim, false);
        assert_non_null(strstr(buffer_str(&text), "intel: 945GME/GSE (8086:27ae), Gen3, registers through BAR0\n"));
        assert_non_null(strstr(buffer_str(&text), "\nPIPEACONF = 0x80000000 (enabled)\n"));
        assert_non_null(strstr(buffer_str(&text), "\nDPLL_B = 0x98046000 (VCO on)\n"));
        assert_non_null(strstr(buffer_str(&text), "\nDSPACNTR = 0x99000000 (enabled, pipe B)\n"));
        assert_non_null(strstr(buffer_str(&text), "\nPP_CONTROL = 0xabcd0001 (panel power on)\n"));
        assert_non_null(strstr(buffer_str(&text), "\nVGACNTRL = 0x80000000 (VGA display disabled)\n"));
        assert_null(strstr(buffer_str(&text), "DPLL_A_MD")); /* Gen4 only */
        assert_non_null(strstr(buffer_str(&text), "palette A: 256 entries saved\n"));
        assert_non_null(strstr(buffer_str(&json), "\"PIPEACONF\":2147483648"));
        assert_non_null(strstr(buffer_str(&json), "\"generation\":3"));
        assert_int_equal(hw_sim_violations(x.f.sim), 0);
        intel_teardown(&x);
}

int main(int argc, char **argv)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_identity),
                cmocka_unit_test(test_roundtrip_x60_trace),
                cmocka_unit_test(test_roundtrip_wind_from_posted),
                cmocka_unit_test(test_restore_order),
                cmocka_unit_test(test_restore_over_running_engine),
                cmocka_unit_test(test_pll_never_locks),
                cmocka_unit_test(test_panel_never_powers),
                cmocka_unit_test(test_bar_per_generation),
                cmocka_unit_test(test_gen4_surface_latch),
                cmocka_unit_test(test_reserved_bits),
                cmocka_unit_test(test_save_reads_only),
                cmocka_unit_test(test_verify_names_a_mismatch),
                cmocka_unit_test(test_malformed_payloads),
                cmocka_unit_test(test_dump),
        };

        (void)argc;
        (void)argv;
        return cmocka_run_group_tests(tests, NULL, NULL);
}
