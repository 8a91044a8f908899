/* SPDX-License-Identifier: MIT */
/* Unit tests for the "backlight" method and the backlight part of the hw interface on the
 * simulator: save -> wake -> restore, writes only where needed, names filtered, bounded
 * count, changed or vanished devices left alone, BacklightReset=, payload validation, dump. */
#include "sim-fixture.h"
#include "methods/backlight.h"

static void save(Fixture *f)
{
        buffer_done(&f->payload);
        assert_int_equal(method_backlight.save(f->hw, f->hw->device, &f->payload), 0);
        assert_int_equal(method_backlight.check(f->payload.data, f->payload.size), 0);
}

static int restore(Fixture *f)
{
        return method_backlight.restore(f->hw, f->hw->device, f->payload.data, f->payload.size);
}

static int verify(Fixture *f, Buffer *report)
{
        return method_backlight.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, report);
}

static uint32_t brightness(Fixture *f, const char *name)
{
        HwSimBacklight *b = hw_sim_backlight(f->sim, name);
        assert_non_null(b);
        return b->brightness;
}

/* A payload built by hand: entries of (name, brightness, max). */
typedef struct Entry {
        const char *name;
        uint32_t brightness, max;
} Entry;

static size_t build(uint8_t *buf, uint8_t count, const Entry *e, size_t n)
{
        size_t pos = 0;

        buf[pos++] = count;
        for (size_t i = 0; i < n; i++) {
                size_t len = strlen(e[i].name);
                buf[pos++] = (uint8_t)len;
                memcpy(buf + pos, e[i].name, len);
                pos += len;
                for (unsigned b = 0; b < 4; b++)
                        buf[pos++] = (uint8_t)(e[i].brightness >> (8 * b));
                for (unsigned b = 0; b < 4; b++)
                        buf[pos++] = (uint8_t)(e[i].max >> (8 * b));
        }
        return pos;
}

static void test_probe(void **state)
{
        Fixture *f = *state;
        DisplayDevice d = *f->hw->device;

        assert_string_equal(method_backlight.name, "backlight");
        assert_int_equal(method_backlight.id, 5);
        assert_int_equal(method_backlight.version, 1);
        assert_int_equal(method_backlight.probe(f->hw, NULL), -EINVAL);

        /* No backlight: no. */
        assert_int_equal(method_backlight.probe(f->hw, &d), 0);
        /* Only a name the method would not use: no. */
        assert_int_equal(hw_sim_add_backlight(f->sim, "bad name", 1, 2), 0);
        assert_int_equal(method_backlight.probe(f->hw, &d), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "acpi_video0", 1, 2), 0);
        assert_int_equal(method_backlight.probe(f->hw, &d), 1);

        /* Not the boot VGA of two GPUs: no, without asking. */
        d.boot_vga = false;
        d.needs_vga_arbiter = true;
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_backlight.probe(f->hw, &d), 0);
        assert_int_equal(hw_sim_access_count(f->sim), 0);
        d.needs_vga_arbiter = false;
        assert_int_equal(method_backlight.probe(f->hw, &d), 1);
}

static void test_roundtrip(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer report = { 0 };

        assert_int_equal(hw_sim_add_backlight(f->sim, "intel_backlight", 4000, 7500), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "acpi_video0", 5, 15), 0);
        save(f);
        /* Sorted by name: acpi_video0 first. */
        assert_int_equal(f->payload.size, 1 + (9 + 11) + (9 + 15));
        assert_int_equal(f->payload.data[0], 2);
        assert_int_equal(f->payload.data[1], 11);
        assert_memory_equal(f->payload.data + 2, "acpi_video0", 11);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_BACKLIGHT_WRITE), 0);

        /* The firmware brings the panel back at full brightness. */
        hw_sim_set_backlight_wake(f->sim, HW_SIM_BACKLIGHT_WAKE_MAX, 0);
        hw_sim_wake(f->sim);
        assert_int_equal(brightness(f, "intel_backlight"), 7500);
        assert_int_equal(brightness(f, "acpi_video0"), 15);
        assert_int_equal(verify(f, &report), 2);
        assert_non_null(strstr(buffer_str(&report),
                               "backlight 'intel_backlight': brightness = 7500, expected 4000\n"));
        assert_non_null(
                strstr(buffer_str(&report), "backlight 'acpi_video0': brightness = 15, expected 5\n"));

        hw_sim_log_clear(f->sim);
        assert_int_equal(restore(f), 0);
        assert_int_equal(brightness(f, "intel_backlight"), 4000);
        assert_int_equal(brightness(f, "acpi_video0"), 5);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_BACKLIGHT_WRITE), 2);
        buffer_done(&report);
        assert_int_equal(verify(f, &report), 0);
        assert_int_equal(report.size, 0);

        /* A firmware that leaves the panel dark (the value is clamped to each max). */
        hw_sim_set_backlight_wake(f->sim, HW_SIM_BACKLIGHT_WAKE_VALUE, 10);
        hw_sim_wake(f->sim);
        assert_int_equal(brightness(f, "intel_backlight"), 10);
        assert_int_equal(brightness(f, "acpi_video0"), 10);
        assert_int_equal(restore(f), 0);
        assert_int_equal(brightness(f, "intel_backlight"), 4000);
        assert_int_equal(brightness(f, "acpi_video0"), 5);
}

static void test_writes_only_what_differs(void **state)
{
        Fixture *f = *state;

        assert_int_equal(hw_sim_add_backlight(f->sim, "intel_backlight", 4000, 7500), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "acpi_video0", 5, 15), 0);
        save(f);
        hw_sim_backlight(f->sim, "acpi_video0")->brightness = 9;

        hw_sim_log_clear(f->sim);
        assert_int_equal(restore(f), 0);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_BACKLIGHT_WRITE), 1);
        assert_int_equal(brightness(f, "acpi_video0"), 5);

        /* Nothing differs: nothing written. */
        hw_sim_log_clear(f->sim);
        assert_int_equal(restore(f), 0);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_BACKLIGHT_WRITE), 0);
}

/* BacklightReset= (DeviceSettings.backlight_reset): the level is written back even when it
 * reads the same, as pm-utils' --quirk-reset-brightness did. */
static void test_reset_writes_unchanged(void **state)
{
        Fixture *f = *state;
        DisplayDevice d = *f->hw->device;

        assert_int_equal(hw_sim_add_backlight(f->sim, "acpi_video0", 5, 15), 0);
        save(f);
        d.settings.backlight_reset = true;
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_backlight.restore(f->hw, &d, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_BACKLIGHT_WRITE), 1);
        assert_int_equal(brightness(f, "acpi_video0"), 5);
}

static void test_changed_or_gone_left_alone(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer report = { 0 };

        assert_int_equal(hw_sim_add_backlight(f->sim, "intel_backlight", 4000, 7500), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "acpi_video0", 5, 15), 0);
        save(f);

        /* A different driver now owns the panel (another max), the other one is gone. */
        hw_sim_backlight(f->sim, "intel_backlight")->max = 937;
        hw_sim_backlight(f->sim, "intel_backlight")->brightness = 937;
        assert_int_equal(hw_sim_remove_backlight(f->sim, "acpi_video0"), 0);
        hw_sim_log_clear(f->sim);
        assert_int_equal(restore(f), 0);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_BACKLIGHT_WRITE), 0);
        assert_int_equal(brightness(f, "intel_backlight"), 937);

        assert_int_equal(verify(f, &report), 2);
        assert_non_null(strstr(buffer_str(&report), "backlight 'acpi_video0': gone\n"));
        assert_non_null(strstr(buffer_str(&report),
                               "backlight 'intel_backlight': max_brightness = 937, was 7500; left alone\n"));
}

static void test_names_filtered(void **state)
{
        Fixture *f = *state;
        char long_name[HW_BACKLIGHT_NAME_MAX + 2];
        HwBacklightName names[4];
        uint32_t b, m;

        memset(long_name, 'a', sizeof(long_name) - 1);
        long_name[sizeof(long_name) - 1] = '\0'; /* 65 characters */
        assert_int_equal(hw_sim_add_backlight(f->sim, long_name, 1, 2), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "with space", 1, 2), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "star*", 1, 2), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "..", 1, 2), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "platform::kbd-x.1_y", 3, 4), 0);
        long_name[HW_BACKLIGHT_NAME_MAX] = '\0'; /* 64: still fine */
        assert_int_equal(hw_sim_add_backlight(f->sim, long_name, 1, 2), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "a/b", 1, 2), -EINVAL);

        assert_int_equal(hw_backlight_list(f->hw, names, ELEMENTSOF(names)), 2);
        assert_string_equal(names[0].name, long_name);
        assert_string_equal(names[1].name, "platform::kbd-x.1_y");
        save(f);
        assert_int_equal(f->payload.data[0], 2);

        /* The wrappers refuse a bad name before any access. */
        hw_sim_log_clear(f->sim);
        assert_int_equal(hw_backlight_read(f->hw, "with space", &b, &m), -EINVAL);
        assert_int_equal(hw_backlight_read(f->hw, "../../../etc", &b, &m), -EINVAL);
        assert_int_equal(hw_backlight_write(f->hw, "..", 1), -EINVAL);
        assert_int_equal(hw_backlight_write(f->hw, "", 1), -EINVAL);
        assert_int_equal(hw_backlight_write(f->hw, NULL, 1), -EINVAL);
        assert_int_equal(hw_backlight_list(f->hw, NULL, 1), -EINVAL);
        assert_int_equal(hw_sim_access_count(f->sim), 0);
        assert_false(hw_backlight_name_is_valid("."));
        assert_true(hw_backlight_name_is_valid("..."));
}

static void test_bounded_count(void **state)
{
        Fixture *f = *state;
        char name[16];

        for (unsigned i = 0; i < 12; i++) {
                snprintf(name, sizeof(name), "bl%02u", 11 - i);
                assert_int_equal(hw_sim_add_backlight(f->sim, name, i, 100), 0);
        }
        save(f);
        assert_int_equal(f->payload.data[0], BACKLIGHT_MAX);
        assert_int_equal(f->payload.size, 1 + BACKLIGHT_MAX * (9 + 4));
        /* The first eight by name: bl00..bl07. */
        assert_memory_equal(f->payload.data + 2, "bl00", 4);
        assert_memory_equal(f->payload.data + 1 + 7 * 13 + 1, "bl07", 4);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_BACKLIGHT_READ), BACKLIGHT_MAX);
}

static void test_odd_values_not_saved(void **state)
{
        Fixture *f = *state;

        assert_int_equal(hw_sim_add_backlight(f->sim, "zero_max", 0, 0), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "over", 20, 10), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "fine", 0, 10), 0);
        save(f);
        assert_int_equal(f->payload.data[0], 1);
        assert_int_equal(f->payload.data[1], 4);
        assert_memory_equal(f->payload.data + 2, "fine", 4);
}

static const HwOps *real_ops;

static int failing_write_a(Hw *hw, const char *name, uint32_t value)
{
        if (streq(name, "a"))
                return -EIO;
        return real_ops->backlight_write(hw, name, value);
}

static void test_write_error_reported(void **state)
{
        Fixture *f = *state;
        HwOps ops = *f->hw->ops;
        Hw broken = { .ops = &ops, .device = f->hw->device, .userdata = f->hw->userdata };
        const Entry e[] = { { "a", 50, 100 }, { "b", 7, 10 } };
        uint8_t p[64];
        size_t len = build(p, 2, e, 2);

        real_ops = f->hw->ops;
        ops.backlight_write = failing_write_a;
        ops.free = NULL;

        /* One backlight refuses the write: the other is still restored, the error comes back. */
        assert_int_equal(hw_sim_add_backlight(f->sim, "a", 100, 100), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "b", 10, 10), 0);
        assert_int_equal(method_backlight.check(p, len), 0);
        assert_int_equal(method_backlight.restore(&broken, broken.device, p, len), -EIO);
        assert_int_equal(brightness(f, "a"), 100);
        assert_int_equal(brightness(f, "b"), 7);
        assert_int_equal(method_backlight.restore(f->hw, f->hw->device, p, len), 0);
        assert_int_equal(brightness(f, "a"), 50);
}

/* A backend whose listing names one backlight more than there is, as when one goes away
 * between the listing and the read. */
static int list_with_ghost(Hw *hw, HwBacklightName *names, size_t max)
{
        int r = real_ops->backlight_list(hw, names, max);
        if (r < 0)
                return r;
        if ((size_t)r < max)
                snprintf(names[r].name, sizeof(names[r].name), "ghost");
        return r + 1;
}

static void test_vanished_during_save(void **state)
{
        Fixture *f = *state;
        HwOps ops = *f->hw->ops;
        Hw ghostly = { .ops = &ops, .device = f->hw->device, .userdata = f->hw->userdata };

        real_ops = f->hw->ops;
        ops.backlight_list = list_with_ghost;
        ops.free = NULL;

        assert_int_equal(hw_sim_add_backlight(f->sim, "intel_backlight", 4000, 7500), 0);
        buffer_done(&f->payload);
        assert_int_equal(method_backlight.save(&ghostly, ghostly.device, &f->payload), 0);
        assert_int_equal(method_backlight.check(f->payload.data, f->payload.size), 0);
        assert_int_equal(f->payload.data[0], 1);
        assert_int_equal(f->payload.data[1], strlen("intel_backlight"));
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_BACKLIGHT_READ), 2); /* the ghost was tried */
}

static void test_malformed_payloads(void **state)
{
        Fixture *f = *state;
        char name65[66];
        uint8_t p[1024];
        size_t len;

        assert_int_equal(hw_sim_add_backlight(f->sim, "intel_backlight", 10, 100), 0);

        const Entry good[] = { { "intel_backlight", 5, 100 }, { "acpi_video0", 0, 15 } };
        len = build(p, 2, good, 2);
        assert_int_equal(method_backlight.check(p, len), 0);
        assert_method_refuses_without_access(f, &method_backlight, p, len - 1); /* truncated */
        assert_method_refuses_without_access(f, &method_backlight, p, len + 1); /* a byte after the last entry */
        assert_method_refuses_without_access(f, &method_backlight, p, 0);
        assert_method_refuses_without_access(f, &method_backlight, NULL, len);
        len = build(p, 3, good, 2); /* count says more than there is */
        assert_method_refuses_without_access(f, &method_backlight, p, len);
        len = build(p, 1, good, 2); /* count says less */
        assert_method_refuses_without_access(f, &method_backlight, p, len);

        /* An empty set is fine. */
        p[0] = 0;
        assert_int_equal(method_backlight.check(p, 1), 0);
        p[0] = BACKLIGHT_MAX + 1;
        assert_method_refuses_without_access(f, &method_backlight, p, 1);

        const Entry *bad[] = {
                (const Entry[]){ { "with space", 1, 2 } }, (const Entry[]){ { "a/b", 1, 2 } },
                (const Entry[]){ { "..", 1, 2 } },         (const Entry[]){ { ".", 1, 2 } },
                (const Entry[]){ { "x", 3, 2 } },          (const Entry[]){ { "x", 0, 0 } },
                (const Entry[]){ { "", 0, 1 } },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                len = build(p, 1, bad[i], 1);
                assert_method_refuses_without_access(f, &method_backlight, p, len);
        }

        memset(name65, 'n', 65);
        name65[65] = '\0';
        const Entry too_long[] = { { name65, 1, 2 } };
        len = build(p, 1, too_long, 1);
        assert_method_refuses_without_access(f, &method_backlight, p, len);
        name65[64] = '\0';
        len = build(p, 1, too_long, 1);
        assert_int_equal(method_backlight.check(p, len), 0);

        const Entry twice[] = { { "same", 1, 2 }, { "same", 1, 2 } };
        len = build(p, 2, twice, 2);
        assert_method_refuses_without_access(f, &method_backlight, p, len);

        /* A NUL inside a name. */
        const Entry nul[] = { { "ab", 1, 2 } };
        len = build(p, 1, nul, 1);
        p[3] = '\0';
        assert_method_refuses_without_access(f, &method_backlight, p, len);

        assert_int_equal(brightness(f, "intel_backlight"), 10);
}

static void test_dump(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer text = { 0 }, json = { 0 };

        assert_int_equal(hw_sim_add_backlight(f->sim, "intel_backlight", 4000, 7500), 0);
        assert_int_equal(hw_sim_add_backlight(f->sim, "acpi_video0", 5, 15), 0);
        save(f);
        assert_int_equal(method_backlight.dump(f->payload.data, f->payload.size, false, &text), 0);
        assert_string_equal(buffer_str(&text), "backlight: 2 saved\n"
                                               "backlight 'acpi_video0': brightness 5 of 15\n"
                                               "backlight 'intel_backlight': brightness 4000 of 7500\n");
        assert_int_equal(method_backlight.dump(f->payload.data, f->payload.size, true, &json), 0);
        assert_string_equal(buffer_str(&json),
                            "{\"backlights\":[{\"name\":\"acpi_video0\",\"brightness\":5,\"max\":15},"
                            "{\"name\":\"intel_backlight\",\"brightness\":4000,\"max\":7500}]}");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
                cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
                cmocka_unit_test_setup_teardown(test_writes_only_what_differs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_reset_writes_unchanged, setup, teardown),
                cmocka_unit_test_setup_teardown(test_changed_or_gone_left_alone, setup, teardown),
                cmocka_unit_test_setup_teardown(test_names_filtered, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bounded_count, setup, teardown),
                cmocka_unit_test_setup_teardown(test_odd_values_not_saved, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_error_reported, setup, teardown),
                cmocka_unit_test_setup_teardown(test_vanished_during_save, setup, teardown),
                cmocka_unit_test_setup_teardown(test_malformed_payloads, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dump, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
