/* SPDX-License-Identifier: MIT */
/* Unit tests for the "bochs" method on the simulated std VGA's dispi registers: probe by
 * device and ID, save -> wake -> restore round trips, the write order read off the access
 * log, the frame buffer kept, payload validation, verify and dump. */
#include "sim-fixture.h"
#include "methods/bochs.h"
#include "methods/vga.h"

static void save(Fixture *f)
{
        buffer_done(&f->payload);
        assert_int_equal(method_bochs.save(f->hw, f->hw->device, &f->payload), 0);
        assert_int_equal(f->payload.size, BOCHS_PAYLOAD_SIZE);
        assert_int_equal(method_bochs.check(f->payload.data, f->payload.size), 0);
}

static void dispi_out(Fixture *f, uint16_t reg, uint16_t v)
{
        assert_int_equal(hw_outw(f->hw, 0x1CE, reg), 0);
        assert_int_equal(hw_outw(f->hw, 0x1CF, v), 0);
}

/* A mode as a driver would program it: 800x600x16 on a 1024-pixel virtual width, panned
 * down 8 lines, bank 1, and a recognisable picture in the frame buffer window. */
static void load_panned_mode(Fixture *f)
{
        uint8_t *fb = hw_sim_dispi_fb_mut(f->sim);

        hw_sim_load_mode12(f->sim);
        assert_int_equal(hw_sim_set_dispi_mode(f->sim, 800, 600, 16), 0);
        dispi_out(f, HW_SIM_DISPI_VIRT_WIDTH, 1024);
        dispi_out(f, HW_SIM_DISPI_Y_OFFSET, 8);
        dispi_out(f, HW_SIM_DISPI_BANK, 1);
        dispi_out(f, HW_SIM_DISPI_ID, 0xB0C4); /* the driver negotiated ID4 */
        assert_int_equal(hw_outw(f->hw, 0x1CE, HW_SIM_DISPI_BPP), 0); /* an index to put back */
        for (size_t i = 0; i < HW_SIM_DISPI_FB_SIZE; i++)
                fb[i] = (uint8_t)(i * 7 + (i >> 9));
        hw_sim_log_clear(f->sim);
}

static void test_probe(void **state)
{
        Fixture *f = *state;
        DisplayDevice d = *f->hw->device;

        assert_string_equal(method_bochs.name, "bochs");
        assert_int_equal(method_bochs.id, BOCHS_METHOD_ID);
        assert_int_equal(method_bochs.version, 1);
        assert_ptr_equal(method_by_name("bochs"), &method_bochs);
        assert_ptr_equal(method_by_id(BOCHS_METHOD_ID), &method_bochs);

        /* QEMU's std VGA answers the ID; the index is put back. */
        assert_int_equal(hw_outw(f->hw, 0x1CE, HW_SIM_DISPI_YRES), 0);
        assert_int_equal(method_bochs.probe(f->hw, f->hw->device), 1);
        assert_int_equal(hw_sim_state(f->sim)->dispi_index, HW_SIM_DISPI_YRES);
        assert_int_equal(method_bochs.modes(f->hw->device), METHOD_MODE_LINEAR);

        /* An ID that is no dispi interface version: no. */
        hw_sim_state(f->sim)->dispi[HW_SIM_DISPI_ID] = 0xFFFF;
        assert_int_equal(method_bochs.probe(f->hw, f->hw->device), 0);
        hw_sim_state(f->sim)->dispi[HW_SIM_DISPI_ID] = 0xB0C0;
        assert_int_equal(method_bochs.probe(f->hw, f->hw->device), 1);

        /* Devices without legacy dispi ports: decided from the identity, no access at all. */
        hw_sim_log_clear(f->sim);
        hw_sim_set_forbid(f->sim, true);
        d.class_code = 0x038000; /* secondary-vga, bochs-display: 1234:1111 with MMIO dispi only */
        assert_int_equal(method_bochs.probe(f->hw, &d), 0);
        assert_int_equal(method_bochs.modes(&d), 0);
        d.class_code = 0x030000;
        d.vendor_id = 0x1013; /* cirrus */
        d.device_id = 0x00b8;
        assert_int_equal(method_bochs.probe(f->hw, &d), 0);
        d.vendor_id = 0x1234;
        d.device_id = 0x1112;
        assert_int_equal(method_bochs.probe(f->hw, &d), 0);
        hw_sim_set_forbid(f->sim, false);
        assert_int_equal(hw_sim_access_count(f->sim), 0);
        assert_int_equal(hw_sim_violations(f->sim), 0);
}

static void test_probe_virtualbox(void **state)
{
        DisplayDevice d = {
                .slot = "0000:00:02.0",
                .vendor_id = 0x80ee,
                .device_id = 0xbeef,
                .class_code = 0x030000,
                .boot_vga = true,
                .verdict = VERDICT_FIRMWARE,
        };
        _cleanup_(hw_sim_unrefp) HwSim *sim = NULL;
        _cleanup_(hw_freep) Hw *hw = NULL;

        (void)state;
        assert_int_equal(hw_sim_new(&d, &sim, &hw), 0);
        assert_int_equal(method_bochs.probe(hw, hw->device), 1);
        hw_sim_state(sim)->dispi[HW_SIM_DISPI_ID] = 0xBE01; /* VBox HGSMI */
        assert_int_equal(method_bochs.probe(hw, hw->device), 1);
        hw_sim_state(sim)->dispi[HW_SIM_DISPI_ID] = 0xBE04;
        assert_int_equal(method_bochs.probe(hw, hw->device), 0);
        assert_int_equal(hw_sim_errors(sim), 0);
}

static void test_roundtrip(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer report = { 0 };
        HwSimVgaState *before = NULL, *after = NULL;
        _cleanup_free_ uint8_t *fb = malloc(HW_SIM_DISPI_FB_SIZE);
        int n;

        assert_non_null(fb);
        load_panned_mode(f);
        memcpy(fb, hw_sim_dispi_fb(f->sim), HW_SIM_DISPI_FB_SIZE);
        assert_true(hw_sim_display_live(f->sim));
        assert_int_equal(hw_sim_snapshot(f->sim, &before), 0);

        save(f);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_MEM_READ), 0);
        assert_int_equal(hw_sim_snapshot(f->sim, &after), 0);
        assert_no_diff(before, after, HW_SIM_DIFF_INDEXES); /* saving changes nothing, index included */
        free(after);

        hw_sim_wake(f->sim);
        assert_false(hw_sim_display_live(f->sim));
        n = method_bochs.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report);
        assert_true(n >= 5); /* XRES, YRES, BPP, ENABLE, VIRT_WIDTH, ... */
        assert_non_null(strstr(buffer_str(&report), "DISPI ENABLE = 0x0000, expected 0x0041"));
        assert_non_null(strstr(buffer_str(&report), "DISPI XRES = 0x0000, expected 0x0320"));

        hw_sim_state(f->sim)->dispi_index = HW_SIM_DISPI_BPP; /* as before, so indexes compare too */
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_bochs.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_snapshot(f->sim, &after), 0);
        /* Byte-identical, ID, VIRT_HEIGHT and the index too (the VGA registers are vga's). */
        assert_memory_equal(after->dispi, before->dispi, sizeof(before->dispi));
        assert_int_equal(after->dispi_index, before->dispi_index);
        assert_memory_equal(hw_sim_dispi_fb(f->sim), fb, HW_SIM_DISPI_FB_SIZE);
        assert_int_equal(hw_sim_dispi_fb_clears(f->sim), 0);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_MEM_WRITE), 0);
        assert_true(hw_sim_display_live(f->sim));

        buffer_done(&report);
        n = method_bochs.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report);
        if (n != 0)
                fprintf(stderr, "%s", buffer_str(&report));
        assert_int_equal(n, 0);
        if (hw_sim_errors(f->sim) != 0)
                fprintf(stderr, "simulator error: %s\n", hw_sim_last_error(f->sim));
        assert_int_equal(hw_sim_errors(f->sim), 0);
        free(before);
        free(after);
}

/* Replays the dispi writes of the log and checks the order the device needs: disabled while
 * the geometry is written, the enable transition with NOCLEARMEM, VIRT_WIDTH and the offsets
 * after it, VIRT_HEIGHT never written, the index put back last. */
static void test_restore_order(void **state)
{
        Fixture *f = *state;
        const HwSimAccess *log;
        size_t n, n_dispi = 0, enable_at = SIZE_MAX;
        uint16_t index = 0, enable = 0xFFFF, last_index_write = 0xFFFF;
        bool bad = false;

        load_panned_mode(f);
        save(f);
        hw_sim_wake(f->sim);
        assert_int_equal(hw_sim_set_dispi_mode(f->sim, 1024, 768, 32), 0); /* firmware set one on wake */
        hw_sim_state(f->sim)->dispi_index = 3;
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_bochs.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);

        log = hw_sim_log(f->sim, &n);
        for (size_t i = 0; i < n; i++) {
                const HwSimAccess *a = &log[i];

                if (a->type != HW_SIM_IO_WRITE)
                        continue;
                assert_true(a->port == 0x1CE || a->port == 0x1CF); /* no VGA register is written */
                assert_int_equal(a->width, 2);
                if (a->port == 0x1CE) {
                        index = last_index_write = (uint16_t)a->value;
                        continue;
                }
                n_dispi++;
                switch (index) {
                case HW_SIM_DISPI_ENABLE:
                        if (enable == 0xFFFF && a->value != 0)
                                bad = true; /* the first ENABLE write must disable */
                        if ((a->value & 1) && !(enable & 1) && enable != 0xFFFF) {
                                enable_at = i;
                                if (!(a->value & HW_SIM_DISPI_NOCLEARMEM))
                                        bad = true; /* the transition must keep the frame buffer */
                        }
                        enable = (uint16_t)a->value;
                        break;
                case HW_SIM_DISPI_XRES:
                case HW_SIM_DISPI_YRES:
                case HW_SIM_DISPI_BPP:
                case HW_SIM_DISPI_ID:
                        if (enable != 0)
                                bad = true; /* geometry only while disabled */
                        break;
                case HW_SIM_DISPI_VIRT_HEIGHT:
                        bad = true;
                        break;
                default:
                        break;
                }
        }
        if (bad || enable_at == SIZE_MAX)
                print_log(f->sim);
        assert_false(bad);
        assert_true(enable_at != SIZE_MAX);
        /* The last VIRT_WIDTH, X_OFFSET and Y_OFFSET writes come after the enable transition. */
        for (size_t i = enable_at; i-- > 0;)
                if (log[i].type == HW_SIM_IO_WRITE && log[i].port == 0x1CF &&
                    (log[i].reg == HW_SIM_DISPI_VIRT_WIDTH || log[i].reg == HW_SIM_DISPI_Y_OFFSET)) {
                        bool later = false;
                        for (size_t j = enable_at; j < n && !later; j++)
                                later = log[j].type == HW_SIM_IO_WRITE && log[j].port == 0x1CF &&
                                        log[j].reg == log[i].reg;
                        assert_true(later);
                }
        assert_int_equal(last_index_write, 3);
        assert_true(n_dispi >= 10);
        assert_int_equal(hw_sim_state(f->sim)->dispi[HW_SIM_DISPI_VIRT_WIDTH], 1024);
        assert_int_equal(hw_sim_state(f->sim)->dispi[HW_SIM_DISPI_Y_OFFSET], 8);
        assert_int_equal(hw_sim_dispi_fb_clears(f->sim), 0);
}

/* The simulator's enable transition clears the frame buffer without NOCLEARMEM (QEMU does):
 * so the round trip above proves the restore keeps it. */
static void test_enable_without_noclearmem_clears(void **state)
{
        Fixture *f = *state;

        load_panned_mode(f);
        dispi_out(f, HW_SIM_DISPI_ENABLE, 0);
        dispi_out(f, HW_SIM_DISPI_ENABLE, HW_SIM_DISPI_ENABLED | HW_SIM_DISPI_LFB_ENABLED);
        assert_int_equal(hw_sim_dispi_fb_clears(f->sim), 1);
        assert_int_equal(hw_sim_dispi_fb(f->sim)[1], 0);
        /* ...and resets the virtual width and offsets. */
        assert_int_equal(hw_sim_state(f->sim)->dispi[HW_SIM_DISPI_VIRT_WIDTH], 800);
        assert_int_equal(hw_sim_state(f->sim)->dispi[HW_SIM_DISPI_Y_OFFSET], 0);
        /* Writing ENABLE while enabled is no transition: nothing cleared. */
        hw_sim_dispi_fb_mut(f->sim)[1] = 0x55;
        dispi_out(f, HW_SIM_DISPI_ENABLE, HW_SIM_DISPI_ENABLED);
        assert_int_equal(hw_sim_dispi_fb_clears(f->sim), 1);
        assert_int_equal(hw_sim_dispi_fb(f->sim)[1], 0x55);
}

/* Saved in a VGA mode (dispi disabled): restore disables a mode the firmware set on wake, so
 * the vga method's text mode is what shows; verify is clean. */
static void test_saved_disabled(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer report = { 0 };

        hw_sim_load_mode3(f->sim);
        save(f);
        assert_int_equal(f->payload.data[BOCHS_OFF(4)], 0);
        hw_sim_wake(f->sim);
        assert_int_equal(hw_sim_set_dispi_mode(f->sim, 1024, 768, 32), 0);
        assert_int_equal(method_bochs.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_state(f->sim)->dispi[HW_SIM_DISPI_ENABLE], 0);
        assert_int_equal(hw_sim_dispi_fb_clears(f->sim), 0);
        assert_int_equal(method_bochs.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report), 0);
}

static void test_getcaps_refused(void **state)
{
        Fixture *f = *state;
        Buffer out = { 0 };

        load_panned_mode(f);
        hw_sim_state(f->sim)->dispi[HW_SIM_DISPI_ENABLE] |= HW_SIM_DISPI_GETCAPS;
        assert_int_equal(method_bochs.save(f->hw, f->hw->device, &out), -EBUSY);
        assert_int_equal(out.size, 0);
        buffer_done(&out);
}

static void put16(uint8_t *p, unsigned reg, uint16_t v)
{
        p[BOCHS_OFF(reg)] = (uint8_t)(v & 0xFF);
        p[BOCHS_OFF(reg) + 1] = (uint8_t)(v >> 8);
}

static void test_malformed_payloads(void **state)
{
        Fixture *f = *state;
        uint8_t good[BOCHS_PAYLOAD_SIZE + 1] = { 0 }, p[BOCHS_PAYLOAD_SIZE + 1];
        static const struct {
                unsigned reg;
                uint16_t value;
        } bad[] = {
                { 0, 0xB0C6 },  /* no dispi interface version */
                { 0, 0x0000 },
                { 4, 0x0043 },  /* GETCAPS: the geometry would be the maxima */
                { 4, 0x0101 },  /* unknown enable bit */
                { 1, 0 },       /* enabled without a width */
                { 2, 0 },       /* ...or a height */
                { 3, 7 },       /* no such depth */
                { 3, 0 },
                { 1, 20000 },   /* beyond any device */
                { 6, 640 },     /* virtual width below the width */
                { 8, 20000 },
                { 5, 0x400 },   /* bank beyond 64 MiB */
        };

        load_panned_mode(f);
        save(f);
        memcpy(good, f->payload.data, BOCHS_PAYLOAD_SIZE);

        assert_method_refuses_without_access(f, &method_bochs, good, BOCHS_PAYLOAD_SIZE - 1);
        assert_method_refuses_without_access(f, &method_bochs, good, BOCHS_PAYLOAD_SIZE + 1);
        assert_method_refuses_without_access(f, &method_bochs, good, 0);
        assert_method_refuses_without_access(f, &method_bochs, NULL, 0);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                memcpy(p, good, sizeof(p));
                put16(p, bad[i].reg, bad[i].value);
                assert_method_refuses_without_access(f, &method_bochs, p, BOCHS_PAYLOAD_SIZE);
        }

        /* Disabled, zero geometry (the state after a wake) is fine; so is a 15-bit depth. */
        memset(p, 0, sizeof(p));
        put16(p, 0, 0xB0C5);
        assert_int_equal(method_bochs.check(p, BOCHS_PAYLOAD_SIZE), 0);
        memcpy(p, good, sizeof(p));
        put16(p, 3, 15);
        assert_int_equal(method_bochs.check(p, BOCHS_PAYLOAD_SIZE), 0);
        put16(p, 0, 0xBE03); /* VirtualBox CFG */
        assert_int_equal(method_bochs.check(p, BOCHS_PAYLOAD_SIZE), 0);
}

static void test_dump(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer text = { 0 }, json = { 0 };

        load_panned_mode(f);
        save(f);
        assert_int_equal(method_bochs.dump(f->payload.data, f->payload.size, false, &text), 0);
        assert_non_null(strstr(buffer_str(&text), "bochs: dispi mode 800x600, 16 bpp, linear frame buffer\n"));
        assert_non_null(strstr(buffer_str(&text), "XRES        = 800\n"));
        assert_non_null(strstr(buffer_str(&text), "VIRT_WIDTH  = 1024\n"));
        assert_non_null(strstr(buffer_str(&text), "Y_OFFSET    = 8\n"));
        assert_non_null(strstr(buffer_str(&text), "ENABLE      = 0x0041  (enabled, linear frame buffer)\n"));
        assert_non_null(strstr(buffer_str(&text), "ID          = 0xb0c4  (interface version)\n"));
        assert_int_equal(method_bochs.dump(f->payload.data, f->payload.size, true, &json), 0);
        assert_non_null(strstr(buffer_str(&json), "{\"enabled\":true,\"lfb\":true,\"registers\":{\"ID\":45252,"
                                                  "\"XRES\":800,\"YRES\":600,\"BPP\":16,\"ENABLE\":65,"));

        buffer_done(&text);
        hw_sim_load_mode3(f->sim);
        save(f);
        assert_int_equal(method_bochs.dump(f->payload.data, f->payload.size, false, &text), 0);
        assert_non_null(strstr(buffer_str(&text), "bochs: dispi disabled (a VGA mode; the vga method holds it)\n"));
}

/* The engine's order: bochs comes back before vga (restore runs the table backwards), so
 * every dispi write precedes the first VGA register write; both verify clean. */
static void test_before_vga_in_the_table(void **state)
{
        Fixture *f = *state;
        Buffer payloads[2] = { { 0 } };
        const MethodOps *saved[2] = { &method_vga, &method_bochs };
        size_t vga_at = SIZE_MAX, bochs_at = SIZE_MAX, n, last_dispi = 0, first_vga = SIZE_MAX;
        const HwSimAccess *log;

        for (size_t i = 0; i < method_table_size; i++) {
                if (method_table[i] == &method_vga)
                        vga_at = i;
                if (method_table[i] == &method_bochs)
                        bochs_at = i;
        }
        assert_true(vga_at < bochs_at); /* save order: vga, then bochs; restore: bochs first */

        load_panned_mode(f);
        for (size_t i = 0; i < 2; i++)
                assert_int_equal(saved[i]->save(f->hw, f->hw->device, &payloads[i]), 0);
        hw_sim_wake(f->sim);
        hw_sim_log_clear(f->sim);
        for (size_t i = 2; i-- > 0;)
                assert_int_equal(saved[i]->restore(f->hw, f->hw->device, payloads[i].data, payloads[i].size), 0);
        log = hw_sim_log(f->sim, &n);
        for (size_t i = 0; i < n; i++) {
                if (log[i].type != HW_SIM_IO_WRITE)
                        continue;
                if (log[i].port == 0x1CF)
                        last_dispi = i;
                else if (log[i].port >= 0x3B0 && log[i].port <= 0x3DF && first_vga == SIZE_MAX)
                        first_vga = i;
        }
        assert_true(last_dispi < first_vga);
        for (size_t i = 0; i < 2; i++) {
                assert_int_equal(saved[i]->verify(f->hw, f->hw->device, payloads[i].data, payloads[i].size, NULL), 0);
                buffer_done(&payloads[i]);
        }
        assert_true(hw_sim_display_live(f->sim));
}

int main(int argc, char *argv[])
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
                cmocka_unit_test(test_probe_virtualbox),
                cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
                cmocka_unit_test_setup_teardown(test_restore_order, setup, teardown),
                cmocka_unit_test_setup_teardown(test_enable_without_noclearmem_clears, setup, teardown),
                cmocka_unit_test_setup_teardown(test_saved_disabled, setup, teardown),
                cmocka_unit_test_setup_teardown(test_getcaps_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_malformed_payloads, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dump, setup, teardown),
                cmocka_unit_test_setup_teardown(test_before_vga_in_the_table, setup, teardown),
        };

        (void)argc;
        (void)argv;
        return cmocka_run_group_tests(tests, NULL, NULL);
}
