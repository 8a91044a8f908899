/* SPDX-License-Identifier: MIT */
/* Unit tests for the "dpms" method on the simulated VGA: save only reads, restore turns the
 * screen on with the sequencer and CRTC rituals and never off, payload validation, dump. */
#include "sim-fixture.h"
#include "methods/dpms.h"
#include "methods/vga.h"

static void save(Fixture *f)
{
        buffer_done(&f->payload);
        assert_int_equal(method_dpms.save(f->hw, f->hw->device, &f->payload), 0);
        assert_int_equal(method_dpms.check(f->payload.data, f->payload.size), 0);
}

static int restore(Fixture *f)
{
        return method_dpms.restore(f->hw, f->hw->device, f->payload.data, f->payload.size);
}

static int verify(Fixture *f, Buffer *report)
{
        return method_dpms.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, report);
}

/* Writes to data ports (not index registers). */
static size_t data_writes(HwSim *sim)
{
        return hw_sim_count_port(sim, 0x3C5, true) + hw_sim_count_port(sim, 0x3D5, true) +
               hw_sim_count_port(sim, 0x3B5, true) + hw_sim_count_port(sim, 0x3C2, true) +
               hw_sim_count_port(sim, 0x3CF, true) + hw_sim_count_port(sim, 0x3C0, true);
}

/* The rules every restore keeps, read off the log: SR01 written only inside a synchronous
 * reset and never with the screen-off bit, CR17 never with sync off, CR17 written only while
 * CR11 does not lock, the arbiter held around it all. */
static void assert_restore_rules(HwSim *sim)
{
        const HwSimAccess *log;
        size_t n;

        log = hw_sim_log(sim, &n);
        assert_true(n >= 2);
        assert_int_equal(log[0].type, HW_SIM_VGA_LOCK);
        assert_int_equal(log[n - 1].type, HW_SIM_VGA_UNLOCK);
        for (size_t i = 0; i < n; i++) {
                const HwSimAccess *a = &log[i];
                if (a->type != HW_SIM_IO_WRITE)
                        continue;
                if (a->port == 0x3C5 && a->reg == 0x01 &&
                    ((a->sr00 & 0x02) != 0 || (a->value & 0x20) != 0)) {
                        print_log(sim);
                        fail_msg("SR01 write #%zu: 0x%02x with SR00 0x%02x", i, a->value, a->sr00);
                }
                if ((a->port == 0x3D5 || a->port == 0x3B5) && a->reg == 0x17 &&
                    (!(a->value & 0x80) || (a->cr11 & 0x80))) {
                        print_log(sim);
                        fail_msg("CR17 write #%zu: 0x%02x with CR11 0x%02x", i, a->value, a->cr11);
                }
        }
}

static void test_probe(void **state)
{
        DisplayDevice d = { .class_code = 0x030000 };

        (void)state;
        assert_string_equal(method_dpms.name, "dpms");
        assert_int_equal(method_dpms.id, 4);
        assert_int_equal(method_dpms.version, 1);
        assert_int_equal(method_dpms.probe(NULL, &d), 1);
        d.class_code = 0x030001;
        assert_int_equal(method_dpms.probe(NULL, &d), 1);
        d.class_code = 0x038000;
        assert_int_equal(method_dpms.probe(NULL, &d), 0);
        d.class_code = 0x030200;
        assert_int_equal(method_dpms.probe(NULL, &d), 0);
        assert_int_equal(method_dpms.probe(NULL, NULL), -EINVAL);
}

static void test_save_reads_only(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *before = NULL, *after = NULL;

        hw_sim_load_mode3(f->sim);
        hw_sim_state(f->sim)->sr_index = 3;
        hw_sim_state(f->sim)->cr_index = 0x0E;
        assert_int_equal(hw_sim_snapshot(f->sim, &before), 0);
        hw_sim_log_clear(f->sim);
        save(f);
        assert_int_equal(f->payload.size, DPMS_PAYLOAD_SIZE);
        assert_int_equal(f->payload.data[0], DPMS_FOUND_SYNC_ENABLED); /* mode 3: on, CR17 0xA3 */
        assert_int_equal(data_writes(f->sim), 0);
        assert_int_equal(hw_sim_snapshot(f->sim, &after), 0);
        assert_int_equal(hw_sim_state_diff(before, after, HW_SIM_DIFF_INDEXES, NULL), 0);
        free(before);
        free(after);

        /* What it found, as found. */
        hw_sim_state(f->sim)->sr[1] |= 0x20;
        hw_sim_state(f->sim)->cr[0x17] &= 0x7F;
        save(f);
        assert_int_equal(f->payload.data[0], DPMS_FOUND_SCREEN_OFF);
}

static void test_restore_turns_screen_on(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer report = { 0 };
        HwSimVgaState *st = hw_sim_state(f->sim);

        hw_sim_load_mode3(f->sim);
        save(f);

        /* Something blanked the screen, cut the sync and locked the CRTC. */
        st->sr[1] |= 0x20;
        st->cr[0x17] &= 0x7F;
        st->cr[0x11] |= 0x80;
        st->sr_index = 2;
        st->cr_index = 0x0C;
        assert_false(hw_sim_display_live(f->sim));
        assert_int_equal(verify(f, &report), 2);
        assert_non_null(strstr(buffer_str(&report), "screen off: SEQ[0x01] = 0x20, expected bit 5 clear"));
        assert_non_null(strstr(buffer_str(&report), "sync off: CRTC[0x17] = 0x23, expected bit 7 set"));

        hw_sim_log_clear(f->sim);
        assert_int_equal(restore(f), 0);
        assert_restore_rules(f->sim);
        assert_int_equal(st->sr[1], 0x00);
        assert_int_equal(st->sr[0], 0x03);
        assert_int_equal(st->cr[0x17], 0xA3);
        assert_int_equal(st->cr[0x11], 0x8E); /* the lock is back */
        assert_int_equal(st->sr_index, 2);    /* indexes as found */
        assert_int_equal(st->cr_index, 0x0C);
        assert_true(hw_sim_display_live(f->sim));
        assert_int_equal(hw_sim_count_port(f->sim, 0x3C5, true), 3); /* reset, SR01, run */
        assert_int_equal(hw_sim_protected_writes(f->sim), 0);

        buffer_done(&report);
        assert_int_equal(verify(f, &report), 0);
        assert_int_equal(report.size, 0);
        assert_int_equal(hw_sim_errors(f->sim), 0);
}

static void test_never_screen_off(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);

        /* Saved while the screen was off and the sync disabled: restore still turns it on. */
        hw_sim_load_mode12(f->sim);
        st->sr[1] |= 0x20;
        st->cr[0x17] &= 0x7F;
        save(f);
        assert_int_equal(f->payload.data[0], DPMS_FOUND_SCREEN_OFF);
        hw_sim_log_clear(f->sim);
        assert_int_equal(restore(f), 0);
        assert_restore_rules(f->sim);
        assert_int_equal(st->sr[1] & 0x20, 0);
        assert_int_equal(st->cr[0x17] & 0x80, 0x80);
        assert_true(hw_sim_display_live(f->sim));

        /* Already on: nothing written but index registers. */
        hw_sim_log_clear(f->sim);
        assert_int_equal(restore(f), 0);
        assert_int_equal(data_writes(f->sim), 0);
}

static void test_after_wake_with_vga(void **state)
{
        Fixture *f = *state;
        Buffer vga = { 0 };
        _cleanup_(buffer_done) Buffer report = { 0 };

        hw_sim_load_mode3(f->sim);
        save(f);
        assert_int_equal(method_vga.save(f->hw, f->hw->device, &vga), 0);

        /* After a wake, dpms alone starts the sequencer and the sync. */
        hw_sim_wake(f->sim);
        assert_int_equal(verify(f, &report), 2); /* sequencer stopped, sync off (SR01 is 0) */
        assert_non_null(strstr(buffer_str(&report), "sequencer stopped: SEQ[0x00] = 0x00"));
        hw_sim_log_clear(f->sim);
        assert_int_equal(restore(f), 0);
        assert_restore_rules(f->sim);
        assert_int_equal(hw_sim_state(f->sim)->sr[0], 0x03);
        assert_int_equal(hw_sim_state(f->sim)->cr[0x17] & 0x80, 0x80);

        /* In the engine's order (vga, then dpms) the screen is live and nothing needs doing. */
        hw_sim_wake(f->sim);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, vga.data, vga.size), 0);
        hw_sim_log_clear(f->sim);
        assert_int_equal(restore(f), 0);
        assert_int_equal(data_writes(f->sim), 0);
        assert_true(hw_sim_display_live(f->sim));
        buffer_done(&vga);
}

static void test_mono(void **state)
{
        Fixture *f = *state;

        hw_sim_load_mode3(f->sim);
        hw_sim_state(f->sim)->msr = 0x66; /* CRTC at 0x3B4 */
        save(f);
        hw_sim_state(f->sim)->cr[0x17] = 0x23;
        hw_sim_log_clear(f->sim);
        assert_int_equal(restore(f), 0);
        assert_int_equal(hw_sim_state(f->sim)->cr[0x17], 0xA3);
        assert_int_equal(hw_sim_count_port(f->sim, 0x3D4, true), 0);
        assert_int_equal(hw_sim_count_port(f->sim, 0x3D5, true), 0);
        assert_true(hw_sim_count_port(f->sim, 0x3B5, true) > 0);
        assert_int_equal(hw_sim_errors(f->sim), 0);
}

static void test_malformed_payloads(void **state)
{
        Fixture *f = *state;
        uint8_t p[2] = { DPMS_FOUND_SYNC_ENABLED, 0 };

        assert_int_equal(method_dpms.check(p, 1), 0);
        assert_method_refuses_without_access(f, &method_dpms, p, 0);
        assert_method_refuses_without_access(f, &method_dpms, p, 2);
        assert_method_refuses_without_access(f, &method_dpms, NULL, 1);
        for (unsigned bit = 2; bit < 8; bit++) {
                p[0] = (uint8_t)(1u << bit);
                assert_method_refuses_without_access(f, &method_dpms, p, 1);
        }
        p[0] = DPMS_FOUND_SCREEN_OFF | DPMS_FOUND_SYNC_ENABLED;
        assert_int_equal(method_dpms.check(p, 1), 0);
}

static void test_dump(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer text = { 0 }, json = { 0 };
        uint8_t off = DPMS_FOUND_SCREEN_OFF;

        hw_sim_load_mode3(f->sim);
        save(f);
        assert_int_equal(method_dpms.dump(f->payload.data, f->payload.size, false, &text), 0);
        assert_string_equal(buffer_str(&text),
                            "dpms: at save the screen was on (SEQ[0x01] bit 5 clear) and the "
                            "sync enabled (CRTC[0x17] bit 7 set); restore turns the screen on\n");
        assert_int_equal(method_dpms.dump(f->payload.data, f->payload.size, true, &json), 0);
        assert_string_equal(buffer_str(&json), "{\"flags\":2,\"screen_off\":false,\"sync_enabled\":true}");

        buffer_done(&json);
        assert_int_equal(method_dpms.dump(&off, 1, true, &json), 0);
        assert_string_equal(buffer_str(&json), "{\"flags\":1,\"screen_off\":true,\"sync_enabled\":false}");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_probe),
                cmocka_unit_test_setup_teardown(test_save_reads_only, setup, teardown),
                cmocka_unit_test_setup_teardown(test_restore_turns_screen_on, setup, teardown),
                cmocka_unit_test_setup_teardown(test_never_screen_off, setup, teardown),
                cmocka_unit_test_setup_teardown(test_after_wake_with_vga, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mono, setup, teardown),
                cmocka_unit_test_setup_teardown(test_malformed_payloads, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dump, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
