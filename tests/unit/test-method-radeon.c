/* SPDX-License-Identifier: MIT */
/* Unit tests for the "radeon" method on the simulated Radeon output registers: round trips
 * from a dark panel, the power-up order read off the access log, a panel saved dark, a
 * register that does not take its value, reserved and read-only bits, payload validation
 * without any access, and the dump. */
#include "sim-fixture.h"
#include "sim-radeon.h"
#include "methods/radeon.h"

typedef struct RadeonFixture {
        Fixture f;
        SimRadeon *sr;
} RadeonFixture;

#define M6 0x4c59     /* Mobility Radeon M6 (RV100, a panel interface) */
#define RV100 0x5159  /* Radeon 7000 (QEMU's ati-vga model rv100), no panel interface */

static DisplayDevice radeon_device(uint16_t device_id)
{
        return (DisplayDevice){
                .slot = "0000:01:00.0",
                .bus = 1,
                .vendor_id = 0x1002,
                .device_id = device_id,
                .class_code = 0x030000,
                .boot_vga = true,
                .verdict = VERDICT_FIRMWARE,
        };
}

/* sim_lvds: whether the simulated chip has the panel interface (normally as the chip). */
static void radeon_setup_sim(RadeonFixture *x, uint16_t device_id, bool sim_lvds)
{
        DisplayDevice d = radeon_device(device_id);

        *x = (RadeonFixture){ 0 };
        assert_non_null(radeon_chip_lookup(0x1002, device_id));
        assert_int_equal(hw_sim_new(&d, &x->f.sim, &x->f.hw), 0);
        assert_int_equal(sim_radeon_new(x->f.sim, sim_lvds, &x->sr), 0);
}

static void radeon_setup(RadeonFixture *x, uint16_t device_id)
{
        radeon_setup_sim(x, device_id, radeon_chip_lookup(0x1002, device_id)->lvds);
}

static void radeon_teardown(RadeonFixture *x)
{
        sim_radeon_free(x->sr);
        buffer_done(&x->f.payload);
        hw_free(x->f.hw);
        hw_sim_unref(x->f.sim);
}

static void save(RadeonFixture *x, Buffer *out)
{
        buffer_done(out);
        assert_int_equal(method_radeon.probe(x->f.hw, x->f.hw->device), 1);
        assert_int_equal(method_radeon.save(x->f.hw, x->f.hw->device, out), 0);
        assert_int_equal(out->size, RADEON_PAYLOAD_SIZE);
        assert_int_equal(method_radeon.check(out->data, out->size), 0);
}

static int restore(RadeonFixture *x)
{
        return method_radeon.restore(x->f.hw, x->f.hw->device, x->f.payload.data, x->f.payload.size);
}

static int verify(RadeonFixture *x, Buffer *report)
{
        return method_radeon.verify(x->f.hw, x->f.hw->device, x->f.payload.data, x->f.payload.size, report);
}

static uint32_t payload_reg(const Buffer *b, unsigned slot)
{
        return read_le32(b->data + RADEON_OFF_REGS + 4 * slot);
}

/* An M6 laptop showing its text console on the panel, as its BIOS set it up, with a few
 * bits of its own (8-bit DAC, the VGA DAC addressing, an LVDS hsync delay). */
static void load_m6_console(RadeonFixture *x)
{
        sim_radeon_wake_posted(x->sr);
        sim_radeon_set(x->sr, 0x0050, 0x02000200);
        sim_radeon_set(x->sr, 0x0054, 0x00008008);
        sim_radeon_set(x->sr, 0x0058, 0xff002102);
        sim_radeon_set(x->sr, 0x02d4, 0x30010000);
        sim_radeon_set(x->sr, 0x02d0, 0x000c0089);
}

/* Save, wake (dark panel), restore, verify, save again: byte-identical, every access on
 * BAR2, the panel lit without an early backlight when the chip has one. */
static void assert_roundtrip(RadeonFixture *x)
{
        _cleanup_(buffer_done) Buffer again = { 0 }, report = { 0 };
        const HwSimAccess *log;
        size_t n;
        int r;

        save(x, &x->f.payload);
        sim_radeon_wake(x->sr);
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
        log = hw_sim_log(x->f.sim, &n);
        for (size_t i = 0; i < n; i++)
                if (log[i].type == HW_SIM_MMIO_READ || log[i].type == HW_SIM_MMIO_WRITE)
                        assert_int_equal(log[i].bar, 2);
        assert_int_equal(sim_radeon_early_backlights(x->sr), 0);
        assert_int_equal(sim_radeon_absent_panel_writes(x->sr), 0);
        assert_int_equal(hw_sim_violations(x->f.sim), 0);
        assert_int_equal(hw_sim_errors(x->f.sim), 0);
}

static void test_identity(void **state)
{
        DisplayDevice d = radeon_device(M6);
        RadeonFixture x;

        (void)state;
        assert_string_equal(method_radeon.name, "radeon");
        assert_int_equal(method_radeon.id, RADEON_METHOD_ID);
        assert_int_equal(method_radeon.version, 1);
        assert_ptr_equal(method_by_name("radeon"), &method_radeon);
        assert_ptr_equal(method_by_id(RADEON_METHOD_ID), &method_radeon);
        assert_true(method_radeon.applies(&d));
        assert_true(radeon_method_chip(&d)->lvds);
        d.device_id = RV100;
        assert_true(method_radeon.applies(&d));
        assert_false(radeon_method_chip(&d)->lvds);
        /* R500 and later (AVIVO), an unknown ATI ID, another vendor, another function: no. */
        d.device_id = 0x7145; /* Mobility X1600 (RV515) */
        assert_false(method_radeon.applies(&d));
        d.device_id = 0x9802;
        assert_false(method_radeon.applies(&d));
        d = radeon_device(M6);
        d.vendor_id = 0x1234;
        assert_false(method_radeon.applies(&d));
        d = radeon_device(M6);
        d.func = 1, d.class_code = 0x038000;
        assert_false(method_radeon.applies(&d));

        /* The probe wants BAR2 as a memory BAR of at least 16 KiB. */
        radeon_setup(&x, M6);
        hw_sim_log_clear(x.f.sim);
        assert_int_equal(method_radeon.probe(x.f.hw, x.f.hw->device), 1);
        memset(hw_sim_cfg_wmask(x.f.sim) + 0x18, 0, 4); /* BAR2 unused */
        assert_int_equal(method_radeon.probe(x.f.hw, x.f.hw->device), 0);
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_MMIO_WRITE), 0);
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_CFG_WRITE), 0);
        radeon_teardown(&x);
}

static void test_roundtrip_m6_panel(void **state)
{
        RadeonFixture x;

        (void)state;
        radeon_setup(&x, M6);
        load_m6_console(&x);
        assert_true(sim_radeon_panel_lit(x.sr));
        assert_roundtrip(&x);
        assert_true(sim_radeon_panel_lit(x.sr));
        assert_true(sim_radeon_pll_locked(x.sr));
        assert_int_equal(sim_radeon_get(x.sr, 0x02d0), 0x000c0089);
        radeon_teardown(&x);
}

/* A desktop chip: the LVDS registers are never read or written. */
static void test_roundtrip_rv100_no_panel(void **state)
{
        const HwSimAccess *log;
        RadeonFixture x;
        size_t n;

        (void)state;
        radeon_setup(&x, RV100);
        sim_radeon_wake_posted(x.sr);
        hw_sim_log_clear(x.f.sim);
        assert_roundtrip(&x);
        assert_int_equal(sim_radeon_get(x.sr, 0x0054), 0x00008000);
        assert_int_equal(sim_radeon_get(x.sr, 0x0058), 0xff000002);
        log = hw_sim_log(x.f.sim, &n);
        for (size_t i = 0; i < n; i++)
                assert_true(log[i].type == HW_SIM_DELAY || log[i].offset < 0x2d0 || log[i].offset > 0x2d4);
        /* No panel: no wait either. */
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_DELAY), 0);
        radeon_teardown(&x);
}

static size_t last_write(HwSim *sim)
{
        const HwSimAccess *log;
        size_t n, last = SIZE_MAX;

        log = hw_sim_log(sim, &n);
        for (size_t i = 0; i < n; i++)
                if (log[i].type == HW_SIM_MMIO_WRITE)
                        last = i;
        return last;
}

/* The power-up order, read off the log of a restore onto a dark panel: CRTC, its syncs and
 * display, the DAC; the LVDS PLL enabled in reset, its settle time, released; the panel's
 * power with the backlight off, the panel's power-up time, the backlight last of all. */
static void test_restore_order(void **state)
{
        size_t crtc, ext, dac, pll_reset, pll_release, panel_power, backlight;
        RadeonFixture x;
        HwSim *sim;

        (void)state;
        radeon_setup(&x, M6);
        sim = x.f.sim;
        load_m6_console(&x);
        save(&x, &x.f.payload);
        sim_radeon_wake(x.sr);
        hw_sim_log_clear(sim);
        assert_int_equal(restore(&x), 0);

        crtc = log_find_mmio_write(sim, 0, false, 0x0050, 0, 0);
        ext = log_find_mmio_write(sim, 0, false, 0x0054, 0, 0);
        dac = log_find_mmio_write(sim, 0, false, 0x0058, 0, 0);
        pll_reset = log_find_mmio_write(sim, 0, false, 0x02d4, 0x00030000, 0x00030000);
        pll_release = log_find_mmio_write(sim, 0, false, 0x02d4, 0x00030000, 0x00010000);
        panel_power = log_find_mmio_write(sim, 0, false, 0x02d0, 0x000c0001, 0x00040001);
        backlight = log_find_mmio_write(sim, 0, false, 0x02d0, 0x00080000, 0x00080000);
        assert_before(sim, crtc, ext);
        assert_before(sim, ext, dac);
        assert_before(sim, dac, pll_reset);
        assert_before(sim, pll_reset, pll_release);
        assert_true(log_delay_between(sim, pll_reset, pll_release) >= SIM_RADEON_PLL_RESET_US);
        assert_before(sim, pll_release, panel_power);
        assert_before(sim, panel_power, backlight);
        assert_true(log_delay_between(sim, panel_power, backlight) >= SIM_RADEON_PANEL_T2_US);
        assert_int_equal(backlight, last_write(sim));
        /* Bounded: the two fixed waits and nothing else. */
        assert_int_equal(hw_sim_delay_total_us(sim), RADEON_LVDS_PLL_SETTLE_US + RADEON_PANEL_POWER_UP_US);
        radeon_teardown(&x);
}

/* pm-utils' radeon-off (`radeontool light off` before sleep) left the panel's LVDS_ON clear
 * and BLON set: that is the state saved, and restored over a lit panel it goes dark, the
 * panel register before its PLL. */
static void test_restore_panel_saved_dark(void **state)
{
        RadeonFixture x;
        size_t gen, pll;

        (void)state;
        radeon_setup(&x, M6);
        load_m6_console(&x);
        sim_radeon_set(x.sr, 0x02d0, 0x000c0088); /* light off: LVDS_ON clear */
        assert_false(sim_radeon_panel_lit(x.sr));
        save(&x, &x.f.payload);
        assert_int_equal(payload_reg(&x.f.payload, RADEON_REG_LVDS_GEN_CNTL), 0x000c0088);
        load_m6_console(&x);
        hw_sim_log_clear(x.f.sim);
        assert_int_equal(restore(&x), 0);
        assert_false(sim_radeon_panel_lit(x.sr));
        gen = log_find_mmio_write(x.f.sim, 0, false, 0x02d0, 0, 0);
        pll = log_find_mmio_write(x.f.sim, 0, false, 0x02d4, 0, 0);
        assert_before(x.f.sim, gen, pll);
        assert_int_equal(verify(&x, NULL), 0);
        assert_int_equal(hw_sim_delay_total_us(x.f.sim), 0);
        radeon_teardown(&x);
}

/* A register that does not take its value (here a chip that has no panel interface behind
 * a device ID that says it has): restore fails, naming the register, expected and seen. */
static void test_named_failure(void **state)
{
        RadeonFixture x;

        (void)state;
        radeon_setup_sim(&x, M6, true);
        load_m6_console(&x);
        save(&x, &x.f.payload);
        {
                Buffer saved = x.f.payload;

                x.f.payload = (Buffer){ 0 };
                radeon_teardown(&x);
                radeon_setup_sim(&x, M6, false);
                x.f.payload = saved;
        }
        hw_sim_log_clear(x.f.sim);
        assert_int_equal(restore(&x), -EIO);
        if (!strstr(x.f.hw->failure, "LVDS_PLL_CNTL = 0x00000000") || !strstr(x.f.hw->failure, "expected 0x00010000"))
                fail_msg("failure note '%s' does not name the register, value and expectation", x.f.hw->failure);
        assert_non_null(strstr(x.f.hw->failure, "panel"));
        assert_true(sim_radeon_absent_panel_writes(x.sr) > 0);
        radeon_teardown(&x);
}

/* Reserved bits read 0, so a save never holds them; the DAC comparator (a monitor on the
 * VGA connector) is sensed, not saved, and does not make verify fail. */
static void test_reserved_and_sensed_bits(void **state)
{
        RadeonFixture x;

        (void)state;
        radeon_setup(&x, M6);
        load_m6_console(&x);
        sim_radeon_set(x.sr, 0x0050, 0xFFFFFFFF);
        assert_int_equal(sim_radeon_get(x.sr, 0x0050), 0x07718F13);
        sim_radeon_set_monitor(x.sr, true);
        assert_int_equal(sim_radeon_get(x.sr, 0x0058) & 0x80, 0x80);
        save(&x, &x.f.payload);
        assert_int_equal(payload_reg(&x.f.payload, RADEON_REG_CRTC_GEN_CNTL), 0x07718F13);
        assert_int_equal(payload_reg(&x.f.payload, RADEON_REG_DAC_CNTL) & 0x80, 0);
        assert_int_equal(verify(&x, NULL), 0);
        sim_radeon_set_monitor(x.sr, false);
        assert_int_equal(verify(&x, NULL), 0);
        radeon_teardown(&x);
}

static void test_save_reads_only(void **state)
{
        RadeonFixture x;

        (void)state;
        radeon_setup(&x, M6);
        load_m6_console(&x);
        hw_sim_log_clear(x.f.sim);
        save(&x, &x.f.payload);
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_MMIO_WRITE), 0);
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_CFG_WRITE), 0);
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_IO_WRITE), 0);
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_MMIO_READ), RADEON_REG_COUNT);
        radeon_teardown(&x);
}

static void test_verify_names_a_mismatch(void **state)
{
        _cleanup_(buffer_done) Buffer report = { 0 };
        RadeonFixture x;

        (void)state;
        radeon_setup(&x, M6);
        load_m6_console(&x);
        save(&x, &x.f.payload);
        sim_radeon_set(x.sr, 0x02d0, 0x000c0088);
        hw_sim_log_clear(x.f.sim);
        assert_int_equal(verify(&x, &report), 1);
        assert_string_equal(buffer_str(&report), "LVDS_GEN_CNTL = 0x000c0088, expected 0x000c0089\n");
        assert_int_equal(hw_sim_count_type(x.f.sim, HW_SIM_MMIO_WRITE), 0);
        radeon_teardown(&x);
}

static void test_malformed_payloads(void **state)
{
        RadeonFixture x;
        uint8_t p[RADEON_PAYLOAD_SIZE + 1];
        size_t len = RADEON_PAYLOAD_SIZE;

        (void)state;
        radeon_setup(&x, M6);
        load_m6_console(&x);
        save(&x, &x.f.payload);

#define MUTATE(stmt)                                                                                         \
        do {                                                                                                 \
                memcpy(p, x.f.payload.data, len);                                                            \
                stmt;                                                                                        \
                assert_method_refuses_without_access(&x.f, &method_radeon, p, len);                          \
        } while (0)

        assert_method_refuses_without_access(&x.f, &method_radeon, NULL, 0);
        memcpy(p, x.f.payload.data, len);
        assert_method_refuses_without_access(&x.f, &method_radeon, p, len - 1);
        p[len] = 0;
        assert_method_refuses_without_access(&x.f, &method_radeon, p, len + 1);
        MUTATE(p[RADEON_OFF_DEVICE] = 0x45; p[RADEON_OFF_DEVICE + 1] = 0x71); /* RV515: not claimed */
        MUTATE(p[RADEON_OFF_DEVICE] = 0x99);                                  /* no such chip */
        MUTATE(p[RADEON_OFF_FLAGS] = 0);                                      /* an M6 without its panel */
        MUTATE(p[RADEON_OFF_FLAGS] |= 0x80);                                  /* unknown flag */
        MUTATE(p[RADEON_OFF_RESERVED] = 1);
        MUTATE(p[RADEON_OFF_REGS + 4 * RADEON_REG_DAC_CNTL] |= 0x80);         /* a sensed bit */
        /* A desktop chip's payload with something in its (absent) LVDS slots. */
        MUTATE(p[RADEON_OFF_DEVICE] = 0x59; p[RADEON_OFF_DEVICE + 1] = 0x51; p[RADEON_OFF_FLAGS] = 0);
#undef MUTATE
        memcpy(p, x.f.payload.data, len);
        p[RADEON_OFF_DEVICE] = 0x59, p[RADEON_OFF_DEVICE + 1] = 0x51, p[RADEON_OFF_FLAGS] = 0;
        memset(p + RADEON_OFF_REGS + 4 * RADEON_REG_LVDS_PLL_CNTL, 0, 8);
        assert_int_equal(method_radeon.check(p, len), 0); /* ... which is fine once they are 0 */

        /* A state of another chip is refused before any access. */
        hw_sim_log_clear(x.f.sim);
        {
                DisplayDevice other = radeon_device(0x4c5a);
                assert_int_equal(method_radeon.restore(x.f.hw, &other, x.f.payload.data, len), -ENODEV);
                assert_int_equal(method_radeon.verify(x.f.hw, &other, x.f.payload.data, len, NULL), -ENODEV);
        }
        assert_int_equal(hw_sim_access_count(x.f.sim), 0);
        radeon_teardown(&x);
}

static void test_dump(void **state)
{
        _cleanup_(buffer_done) Buffer text = { 0 }, json = { 0 };
        RadeonFixture x;

        (void)state;
        radeon_setup(&x, M6);
        load_m6_console(&x);
        save(&x, &x.f.payload);
        hw_sim_set_forbid(x.f.sim, true);
        assert_int_equal(method_radeon.dump(x.f.payload.data, x.f.payload.size, false, &text), 0);
        assert_int_equal(method_radeon.dump(x.f.payload.data, x.f.payload.size, true, &json), 0);
        hw_sim_set_forbid(x.f.sim, false);
        assert_non_null(strstr(buffer_str(&text),
                               "radeon: Mobility Radeon M6 (1002:4c59, RV100), registers through BAR2, panel interface (LVDS)\n"));
        assert_non_null(strstr(buffer_str(&text), "\nCRTC_GEN_CNTL = 0x02000200 (CRTC on, VGA mode)\n"));
        assert_non_null(strstr(buffer_str(&text),
                               "\nCRTC_EXT_CNTL = 0x00008008 (display on, hsync on, vsync on, CRT output on)\n"));
        assert_non_null(strstr(buffer_str(&text), "\nDAC_CNTL = 0xff002102 (DAC powered, 8-bit)\n"));
        assert_non_null(strstr(buffer_str(&text), "\nLVDS_PLL_CNTL = 0x30010000 (PLL on)\n"));
        assert_non_null(
                strstr(buffer_str(&text), "\nLVDS_GEN_CNTL = 0x000c0089 (panel on, digital power on, backlight on)\n"));
        assert_non_null(strstr(buffer_str(&json), "\"family\":\"RV100\""));
        assert_non_null(strstr(buffer_str(&json), "\"lvds\":true"));
        assert_non_null(strstr(buffer_str(&json), "\"LVDS_GEN_CNTL\":786569"));
        assert_int_equal(hw_sim_violations(x.f.sim), 0);
        radeon_teardown(&x);
}

int main(int argc, char **argv)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_identity),
                cmocka_unit_test(test_roundtrip_m6_panel),
                cmocka_unit_test(test_roundtrip_rv100_no_panel),
                cmocka_unit_test(test_restore_order),
                cmocka_unit_test(test_restore_panel_saved_dark),
                cmocka_unit_test(test_named_failure),
                cmocka_unit_test(test_reserved_and_sensed_bits),
                cmocka_unit_test(test_save_reads_only),
                cmocka_unit_test(test_verify_names_a_mismatch),
                cmocka_unit_test(test_malformed_payloads),
                cmocka_unit_test(test_dump),
        };

        (void)argc;
        (void)argv;
        return cmocka_run_group_tests(tests, NULL, NULL);
}
