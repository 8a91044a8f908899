/* SPDX-License-Identifier: MIT */
/* Unit tests for the "vga" method on the simulated VGA: save -> wake -> restore round trips,
 * the access-order rules read off the access log, payload validation, verify and dump. */
#include "sim-fixture.h"
#include "methods/vga.h"

static void save(Fixture *f)
{
        buffer_done(&f->payload);
        assert_int_equal(method_vga.save(f->hw, f->hw->device, &f->payload), 0);
        assert_int_equal(method_vga.check(f->payload.data, f->payload.size), 0);
}

static const char text_screen[] = "umsrestore: the console comes back after suspend";

static void write_text(Fixture *f)
{
        uint8_t cells[2 * sizeof(text_screen)];
        for (size_t i = 0; i < sizeof(text_screen); i++) {
                cells[2 * i] = (uint8_t)text_screen[i];
                cells[2 * i + 1] = (uint8_t)(0x07 + i);
        }
        assert_int_equal(hw_vga_mem_write(f->hw, 0x18000 + 160 * 3, cells, sizeof(cells)), 0);
}

static void roundtrip(Fixture *f, void (*load)(HwSim *), bool full_wake)
{
        _cleanup_(buffer_done) Buffer report = { 0 };
        HwSimVgaState *before = NULL, *after_save = NULL, *after = NULL;
        int n;

        load(f->sim);
        hw_sim_fill_planes(f->sim, 0x5eed);
        assert_true(hw_sim_display_live(f->sim));
        assert_int_equal(hw_sim_snapshot(f->sim, &before), 0);

        save(f);
        assert_int_equal(f->payload.size, VGA_PAYLOAD_FULL_SIZE);
        assert_int_equal(f->payload.data[VGA_OFF_FLAGS], VGA_FLAG_PLANES);
        assert_memory_equal(f->payload.data + VGA_OFF_PLANES, before->planes, VGA_PAYLOAD_PLANES_SIZE);

        /* Saving leaves the hardware exactly as it was, index registers included. */
        assert_int_equal(hw_sim_snapshot(f->sim, &after_save), 0);
        assert_no_diff(before, after_save, HW_SIM_DIFF_INDEXES);
        assert_true(hw_sim_display_live(f->sim));

        if (full_wake)
                hw_sim_wake_full(f->sim);
        else
                hw_sim_wake(f->sim);
        assert_false(hw_sim_display_live(f->sim));
        n = method_vga.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report);
        assert_true(n > 0);
        assert_non_null(strstr(buffer_str(&report), "expected"));

        hw_sim_log_clear(f->sim);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_snapshot(f->sim, &after), 0);
        assert_no_diff(before, after, 0);
        assert_true(hw_sim_display_live(f->sim));

        buffer_done(&report);
        n = method_vga.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report);
        if (n != 0)
                fprintf(stderr, "%s", buffer_str(&report));
        assert_int_equal(n, 0);
        assert_int_equal(report.size, 0);

        if (hw_sim_errors(f->sim) != 0)
                fprintf(stderr, "simulator error: %s\n", hw_sim_last_error(f->sim));
        assert_int_equal(hw_sim_errors(f->sim), 0);
        free(before);
        free(after_save);
        free(after);
}

static void test_probe(void **state)
{
        DisplayDevice d = { .class_code = 0x030000 };

        (void)state;
        assert_int_equal(method_vga.probe(NULL, &d), 1);
        d.class_code = 0x038000; /* other display controller */
        assert_int_equal(method_vga.probe(NULL, &d), 0);
        d.boot_vga = true;
        assert_int_equal(method_vga.probe(NULL, &d), 1);
        d.class_code = 0x030200;
        d.boot_vga = false;
        assert_int_equal(method_vga.probe(NULL, &d), 0);
        assert_string_equal(method_vga.name, "vga");
        assert_int_equal(method_vga.id, 1);
        assert_int_equal(method_vga.version, 1);
        assert_int_equal(VGA_PAYLOAD_REGS_SIZE, 832);
}

static void test_roundtrip_mode3(void **state)
{
        Fixture *f = *state;
        uint8_t back[2 * sizeof(text_screen)];

        roundtrip(f, hw_sim_load_mode3, true);

        /* Text written through the B8000 window comes back through it after a full wake. */
        write_text(f);
        save(f);
        hw_sim_wake_full(f->sim);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_vga_mem_read(f->hw, 0x18000 + 160 * 3, back, sizeof(back)), 0);
        for (size_t i = 0; i < sizeof(text_screen); i++) {
                assert_int_equal(back[2 * i], (uint8_t)text_screen[i]);
                assert_int_equal(back[2 * i + 1], (uint8_t)(0x07 + i));
        }
        /* The font plane came back too, though the full wake scrambled it. */
        assert_memory_equal(hw_sim_state(f->sim)->planes[2],
                            f->payload.data + VGA_OFF_PLANES + 2 * VGA_PLANE_SIZE, VGA_PLANE_SIZE);
}

static void test_roundtrip_mode12(void **state)
{
        Fixture *f = *state;
        roundtrip(f, hw_sim_load_mode12, false);
}

static void test_roundtrip_mode12_full_wake(void **state)
{
        Fixture *f = *state;
        roundtrip(f, hw_sim_load_mode12, true);
}

static void load_mode3_mono(HwSim *sim)
{
        hw_sim_load_mode3(sim);
        hw_sim_state(sim)->msr = 0x66; /* CRTC at 0x3B4, ST01 at 0x3BA */
}

static void test_roundtrip_mono(void **state)
{
        Fixture *f = *state;
        roundtrip(f, load_mode3_mono, true);
        assert_int_equal(hw_sim_count_port(f->sim, 0x3D4, true), 0);
        assert_true(hw_sim_count_port(f->sim, 0x3B4, true) > 0);
}

static void load_mode12_ram_disabled(HwSim *sim)
{
        hw_sim_load_mode12(sim);
        hw_sim_state(sim)->msr = 0xE1; /* CPU access to video memory off */
}

static void test_roundtrip_ram_disabled(void **state)
{
        Fixture *f = *state;
        roundtrip(f, load_mode12_ram_disabled, true);
}

static void test_roundtrip_odd_state(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);
        HwSimVgaState *before = NULL, *after = NULL;

        /* Odd but legal: set/reset, rotation, bit mask, write mode 2, chain-4 on, index
         * registers pointing somewhere. All must come back and planes must not be mangled. */
        hw_sim_load_mode12(f->sim);
        hw_sim_fill_planes(f->sim, 99);
        st->gr[0] = 0x0A;
        st->gr[1] = 0x0F;
        st->gr[3] = 0x1B;
        st->gr[5] = 0x0A;
        st->gr[8] = 0x3C;
        st->sr[2] = 0x05;
        st->sr[4] = 0x0E;
        st->sr_index = 3;
        st->gr_index = 7;
        st->cr_index = 0x0E;
        assert_int_equal(hw_sim_snapshot(f->sim, &before), 0);
        save(f);
        assert_int_equal(hw_sim_snapshot(f->sim, &after), 0);
        assert_no_diff(before, after, HW_SIM_DIFF_INDEXES);
        free(after);
        hw_sim_wake_full(f->sim);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_snapshot(f->sim, &after), 0);
        assert_no_diff(before, after, 0);
        free(before);
        free(after);
}

/* Every attribute index write must follow an ST01 read (flip-flop reset) made after the
 * previous index write. */
static void assert_flipflop_ritual(HwSim *sim, const HwSimAccess *log, size_t n)
{
        bool reset_seen = false;
        for (size_t i = 0; i < n; i++) {
                if (log[i].type == HW_SIM_IO_READ && (log[i].port == 0x3DA || log[i].port == 0x3BA))
                        reset_seen = true;
                if (log[i].type == HW_SIM_IO_WRITE && log[i].port == 0x3C0 && !log[i].ar_flipflop_data) {
                        if (!reset_seen) {
                                print_log(sim);
                                fail_msg("attribute index write #%zu without a flip-flop reset", i);
                        }
                        reset_seen = false;
                }
        }
}

/* Sequencer registers other than SR00 are written only inside a synchronous reset. */
static void assert_seq_in_reset(HwSim *sim, const HwSimAccess *log, size_t n)
{
        size_t seen = 0;
        for (size_t i = 0; i < n; i++)
                if (log[i].type == HW_SIM_IO_WRITE && log[i].port == 0x3C5 && log[i].reg != 0) {
                        seen++;
                        if ((log[i].sr00 & 0x02) != 0) {
                                print_log(sim);
                                fail_msg("SR%02x written at #%zu outside a synchronous reset (SR00 0x%02x)",
                                         log[i].reg, i, log[i].sr00);
                        }
                }
        assert_true(seen >= 4);
}

static size_t first_index(const HwSimAccess *log, size_t n, HwSimAccessType type, uint16_t port)
{
        for (size_t i = 0; i < n; i++)
                if (log[i].type == type &&
                    (type == HW_SIM_MEM_WRITE || type == HW_SIM_MEM_READ || log[i].port == port))
                        return i;
        return SIZE_MAX;
}

static void test_restore_order(void **state)
{
        Fixture *f = *state;
        const HwSimAccess *log;
        size_t n, crtc_writes = 0, mem_writes = 0, last_mem = 0, last_unblank = 0, last_ar_index = 0;

        hw_sim_load_mode3(f->sim);
        hw_sim_fill_planes(f->sim, 3);
        save(f);
        hw_sim_wake(f->sim);
        /* As after a BIOS re-POST: the sequencer runs and the CRTC is locked. */
        hw_sim_state(f->sim)->sr[0] = 0x03;
        hw_sim_state(f->sim)->cr[0x11] = 0x80;
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        log = hw_sim_log(f->sim, &n);

        assert_int_equal(log[0].type, HW_SIM_VGA_LOCK);
        assert_int_equal(log[n - 1].type, HW_SIM_VGA_UNLOCK);
        assert_int_equal(hw_sim_protected_writes(f->sim), 0);

        for (size_t i = 0; i < n; i++) {
                const HwSimAccess *a = &log[i];
                if (a->type == HW_SIM_IO_WRITE && a->port == 0x3D5) {
                        /* The first CRTC data write unlocks CR00-CR07. */
                        if (crtc_writes++ == 0) {
                                assert_int_equal(a->reg, 0x11);
                                assert_int_equal(a->value & 0x80, 0);
                        }
                        if (a->reg <= 7)
                                assert_int_equal(a->cr11 & 0x80, 0);
                }
                if (a->type == HW_SIM_MEM_WRITE) {
                        mem_writes++;
                        last_mem = i;
                        assert_int_equal(a->sr01 & 0x20, 0x20); /* screen blanked */
                        assert_int_equal(a->len, VGA_PLANE_SIZE);
                }
                if (a->type == HW_SIM_IO_WRITE && a->port == 0x3C5 && a->reg == 1 && !(a->value & 0x20))
                        last_unblank = i;
                if (a->type == HW_SIM_IO_WRITE && a->port == 0x3C0 && !a->ar_flipflop_data)
                        last_ar_index = i;
        }
        assert_int_equal(crtc_writes, VGA_CR_COUNT + 1);
        assert_int_equal(mem_writes, 4);
        assert_true(last_unblank > last_mem);                    /* unblank after the planes */
        assert_int_equal(log[last_ar_index].value & 0x20, 0x20); /* PAS set by the last index write */
        assert_int_equal(hw_sim_state(f->sim)->ar_index & HW_SIM_AR_PAS, HW_SIM_AR_PAS);

        assert_flipflop_ritual(f->sim, log, n);
        assert_seq_in_reset(f->sim, log, n);

        /* Group order: misc, sequencer, CRTC, graphics, attribute, DAC, planes. */
        size_t msr = first_index(log, n, HW_SIM_IO_WRITE, 0x3C2);
        size_t seq = first_index(log, n, HW_SIM_IO_WRITE, 0x3C5);
        size_t crtc = first_index(log, n, HW_SIM_IO_WRITE, 0x3D5);
        size_t gc = first_index(log, n, HW_SIM_IO_WRITE, 0x3CF);
        size_t attr = first_index(log, n, HW_SIM_IO_WRITE, 0x3C0);
        size_t dac = first_index(log, n, HW_SIM_IO_WRITE, 0x3C9);
        size_t mem = first_index(log, n, HW_SIM_MEM_WRITE, 0);
        assert_true(msr < seq);
        assert_true(seq < crtc);
        assert_true(crtc < gc);
        assert_true(gc < attr);
        assert_true(attr < dac);
        assert_true(dac < mem);
        assert_int_equal(hw_sim_count_port(f->sim, 0x3C9, true), VGA_PALETTE_SIZE);
        assert_int_equal(hw_sim_errors(f->sim), 0);
}

/* Every sequencer, graphics and misc write of a restore happens once: no data port is written
 * the same register and value twice in a row (a MIN()/MAX() that evaluated its argument twice
 * did every write of the restore two times). */
static void test_restore_writes_once(void **state)
{
        Fixture *f = *state;
        static const uint16_t ports[] = { 0x3C2, 0x3C5, 0x3CF };
        const HwSimAccess *log;
        size_t n;

        hw_sim_load_mode3(f->sim);
        hw_sim_fill_planes(f->sim, 7);
        save(f);
        hw_sim_wake(f->sim);
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        log = hw_sim_log(f->sim, &n);
        for (size_t p = 0; p < ELEMENTSOF(ports); p++) {
                const HwSimAccess *prev = NULL;
                size_t writes = 0;
                for (size_t i = 0; i < n; i++) {
                        const HwSimAccess *a = &log[i];
                        if (a->type != HW_SIM_IO_WRITE || a->port != ports[p])
                                continue;
                        if (prev && prev->reg == a->reg && prev->value == a->value)
                                fail_msg("port 0x%x register %d written 0x%x twice in a row (log entries %zu, %zu)",
                                         a->port, a->reg, a->value, (size_t)(prev - log), i);
                        prev = a;
                        writes++;
                }
                assert_true(writes > 0);
        }
}

static void test_save_order(void **state)
{
        Fixture *f = *state;
        const HwSimAccess *log;
        size_t n, mem_reads = 0, unlock_at = SIZE_MAX;

        hw_sim_load_mode3(f->sim);
        hw_sim_log_clear(f->sim);
        save(f);
        log = hw_sim_log(f->sim, &n);

        assert_int_equal(log[0].type, HW_SIM_VGA_LOCK);
        assert_int_equal(log[n - 1].type, HW_SIM_VGA_UNLOCK);
        for (size_t i = 0; i < n; i++) {
                const HwSimAccess *a = &log[i];
                if (a->type == HW_SIM_MEM_READ) {
                        mem_reads++;
                        assert_int_equal(a->sr01 & 0x20, 0x20);
                }
                if (a->type == HW_SIM_IO_WRITE && a->port == 0x3D5 && a->reg == 0x11 &&
                    unlock_at == SIZE_MAX) {
                        assert_int_equal(a->value, 0x0E);
                        unlock_at = i;
                }
                /* CR00-CR07 are read only once unlocked. */
                if (a->type == HW_SIM_IO_READ && a->port == 0x3D5 && a->reg >= 0 && a->reg <= 7)
                        assert_true(i > unlock_at);
                assert_int_not_equal(a->type, HW_SIM_MEM_WRITE);
        }
        assert_int_equal(mem_reads, 4);
        assert_int_not_equal(unlock_at, SIZE_MAX);
        assert_flipflop_ritual(f->sim, log, n);
        assert_seq_in_reset(f->sim, log, n);
        /* Registers as found: relocked, unblanked, PAS back. */
        assert_int_equal(hw_sim_state(f->sim)->cr[0x11], 0x8E);
        assert_true(hw_sim_display_live(f->sim));
}

static void test_dac_mask_zero(void **state)
{
        Fixture *f = *state;
        const HwSimAccess *log;
        size_t n, mask_writes = 0;

        hw_sim_set_dac_mask_reads_zero(f->sim, true);
        hw_sim_load_mode3(f->sim);
        save(f);
        assert_int_equal(f->payload.data[VGA_OFF_DAC_MASK], 0x00);

        hw_sim_wake(f->sim);
        hw_sim_state(f->sim)->dac_mask = 0x00; /* as if the wake had masked everything */
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        log = hw_sim_log(f->sim, &n);
        for (size_t i = 0; i < n; i++)
                if (log[i].type == HW_SIM_IO_WRITE && log[i].port == 0x3C6) {
                        mask_writes++;
                        assert_int_equal(log[i].value, 0xFF);
                }
        assert_int_equal(mask_writes, 1);
        assert_int_equal(hw_sim_state(f->sim)->dac_mask, 0xFF);
        /* It still reads 0x00 here; verify accepts that for a saved 0x00. */
        assert_int_equal(method_vga.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, NULL), 0);

        /* A real saved mask is restored as is. */
        f->payload.data[VGA_OFF_DAC_MASK] = 0x0F;
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_state(f->sim)->dac_mask, 0x0F);
}

static void test_malformed_payloads(void **state)
{
        Fixture *f = *state;
        _cleanup_free_ uint8_t *p = NULL;
        size_t len;

        hw_sim_load_mode3(f->sim);
        save(f);
        len = f->payload.size;
        p = malloc(len + 1);
        assert_non_null(p);
        memcpy(p, f->payload.data, len);
        p[len] = 0;

        assert_method_refuses_without_access(f, &method_vga, p, len - 1);               /* truncated */
        assert_method_refuses_without_access(f, &method_vga, p, len + 1);               /* extra byte */
        assert_method_refuses_without_access(f, &method_vga, p, 0);                     /* empty */
        assert_method_refuses_without_access(f, &method_vga, p, VGA_PAYLOAD_REGS_SIZE); /* planes flag, no planes */
        assert_method_refuses_without_access(f, &method_vga, p, VGA_PAYLOAD_REGS_SIZE - 1);
        assert_method_refuses_without_access(f, &method_vga, NULL, 0);

        p[VGA_OFF_FLAGS] = VGA_FLAG_PLANES | 0x80; /* unknown flag */
        assert_method_refuses_without_access(f, &method_vga, p, len);
        p[VGA_OFF_FLAGS] = VGA_FLAG_PLANES | VGA_FLAG_DISPI; /* contradictory */
        assert_method_refuses_without_access(f, &method_vga, p, len);
        p[VGA_OFF_FLAGS] = VGA_FLAG_DISPI; /* no planes, but they are there */
        assert_method_refuses_without_access(f, &method_vga, p, len);
        p[VGA_OFF_FLAGS] = 0;
        assert_method_refuses_without_access(f, &method_vga, p, len);

        /* The same flags with the right length are fine. */
        assert_int_equal(method_vga.check(p, VGA_PAYLOAD_REGS_SIZE), 0);
        p[VGA_OFF_FLAGS] = VGA_FLAG_DISPI;
        assert_int_equal(method_vga.check(p, VGA_PAYLOAD_REGS_SIZE), 0);
        p[VGA_OFF_FLAGS] = VGA_FLAG_PLANES;
        assert_int_equal(method_vga.check(p, len), 0);
}

static void test_dispi_mode_save(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *before = NULL, *after = NULL;
        _cleanup_(buffer_done) Buffer dump = { 0 };
        uint8_t fb_before[256];

        hw_sim_load_mode12(f->sim);
        hw_sim_fill_planes(f->sim, 42);
        assert_int_equal(hw_sim_set_dispi_mode(f->sim, 800, 600, 16), 0);
        hw_sim_state(f->sim)->dispi_index = 3;
        memcpy(fb_before, hw_sim_dispi_fb(f->sim), sizeof(fb_before));
        assert_int_equal(hw_sim_snapshot(f->sim, &before), 0);

        hw_sim_log_clear(f->sim);
        save(f);
        assert_int_equal(f->payload.size, VGA_PAYLOAD_REGS_SIZE);
        assert_int_equal(f->payload.data[VGA_OFF_FLAGS], VGA_FLAG_DISPI);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_MEM_READ), 0);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_MEM_WRITE), 0);
        assert_int_equal(hw_sim_snapshot(f->sim, &after), 0);
        assert_no_diff(before, after, HW_SIM_DIFF_INDEXES); /* dispi index put back too */
        free(after);

        assert_int_equal(method_vga.dump(f->payload.data, f->payload.size, false, &dump), 0);
        assert_non_null(strstr(buffer_str(&dump), "planes: not saved"));
        assert_non_null(strstr(buffer_str(&dump), "dispi"));

        /* Restore writes registers only: 0xA0000 is frame buffer there. */
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_MEM_WRITE), 0);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_MEM_READ), 0);
        assert_memory_equal(hw_sim_dispi_fb(f->sim), fb_before, sizeof(fb_before));
        assert_int_equal(hw_sim_snapshot(f->sim, &after), 0);
        assert_no_diff(before, after, 0);
        assert_int_equal(hw_sim_errors(f->sim), 0);
        free(before);
        free(after);
}

static void test_dispi_enabled_at_restore(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *before = NULL;

        hw_sim_load_mode3(f->sim);
        hw_sim_fill_planes(f->sim, 5);
        assert_int_equal(hw_sim_snapshot(f->sim, &before), 0);
        save(f);
        assert_int_equal(f->payload.data[VGA_OFF_FLAGS], VGA_FLAG_PLANES);

        /* Something put the device in a dispi mode before the restore ran. */
        hw_sim_wake_full(f->sim);
        assert_int_equal(hw_sim_set_dispi_mode(f->sim, 1024, 768, 32), 0);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);

        assert_int_equal(hw_sim_state(f->sim)->dispi[HW_SIM_DISPI_ENABLE], 0);
        assert_memory_equal(hw_sim_state(f->sim)->planes, before->planes, sizeof(before->planes));
        for (size_t i = 0; i < 4096; i++)
                assert_int_equal(hw_sim_dispi_fb(f->sim)[i], 0); /* frame buffer untouched */
        assert_true(hw_sim_display_live(f->sim));
        free(before);
}

/* "Verified" means the mode is back: the VGA registers of a dispi mode restored over a
 * device whose dispi mode is off (no bochs method ran) are a mismatch, and so is a dispi mode
 * left enabled over a saved VGA mode. */
static void test_verify_mode_kind(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer report = { 0 };

        hw_sim_load_mode12(f->sim);
        assert_int_equal(hw_sim_set_dispi_mode(f->sim, 800, 600, 16), 0);
        save(f);
        assert_int_equal(f->payload.data[VGA_OFF_FLAGS], VGA_FLAG_DISPI);
        hw_sim_wake(f->sim);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(method_vga.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report), 1);
        assert_string_equal(buffer_str(&report), "Bochs dispi mode saved but not enabled now: the VGA registers "
                                                 "are back, the mode is not (the bochs method restores it)\n");
        assert_int_equal(hw_sim_set_dispi_mode(f->sim, 800, 600, 16), 0);
        assert_int_equal(method_vga.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, NULL), 0);

        buffer_done(&report);
        hw_sim_load_mode3(f->sim);
        save(f);
        assert_int_equal(f->payload.data[VGA_OFF_FLAGS], VGA_FLAG_PLANES);
        assert_int_equal(hw_sim_set_dispi_mode(f->sim, 800, 600, 16), 0);
        assert_int_equal(method_vga.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report), 1);
        assert_non_null(strstr(buffer_str(&report), "a Bochs dispi mode is enabled over the saved VGA mode"));
}

static void test_other_vendor_no_dispi_ports(void **state)
{
        DisplayDevice d = {
                .slot = "0000:00:02.0",
                .vendor_id = 0x8086,
                .device_id = 0x27ae,
                .class_code = 0x030000,
                .boot_vga = true,
                .verdict = VERDICT_UMS,
        };
        Fixture f = { 0 };

        (void)state;
        assert_int_equal(hw_sim_new(&d, &f.sim, &f.hw), 0);
        roundtrip(&f, hw_sim_load_mode3, true);
        save(&f);
        assert_int_equal(hw_sim_count_port(f.sim, 0x1CE, true), 0);
        assert_int_equal(hw_sim_count_port(f.sim, 0x1CE, false), 0);
        assert_int_equal(hw_sim_count_port(f.sim, 0x1CF, false), 0);
        assert_int_equal(hw_sim_errors(f.sim), 0);
        buffer_done(&f.payload);
        hw_free(f.hw);
        hw_sim_unref(f.sim);
}

static void test_verify_report(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer report = { 0 };

        hw_sim_load_mode3(f->sim);
        save(f);
        hw_sim_state(f->sim)->cr[0x11] = 0x0E;
        assert_int_equal(method_vga.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report),
                         1);
        assert_string_equal(buffer_str(&report), "CRTC[0x11] = 0x0e, expected 0x8e\n");

        buffer_done(&report);
        hw_sim_state(f->sim)->cr[0x11] = 0x8E;
        hw_sim_state(f->sim)->palette[7][1] = 0x01;
        hw_sim_state(f->sim)->ar_index = 0x00;
        assert_int_equal(method_vga.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report),
                         2);
        assert_non_null(
                strstr(buffer_str(&report), "DAC[0x07] = (0x2a,0x01,0x2a), expected (0x2a,0x2a,0x2a)"));
        assert_non_null(strstr(buffer_str(&report), "ATTR index = 0x00"));
        /* Verify puts the attribute index back as found (it does not fix things). */
        assert_int_equal(hw_sim_state(f->sim)->ar_index, 0x00);
}

static void test_dump(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer text = { 0 }, json = { 0 };
        const char *s;

        hw_sim_load_mode3(f->sim);
        hw_sim_fill_planes(f->sim, 8);
        save(f);

        assert_int_equal(method_vga.dump(f->payload.data, f->payload.size, false, &text), 0);
        s = buffer_str(&text);
        assert_non_null(strstr(s, "MISC = 0x67"));
        assert_non_null(strstr(s, "SEQ[0x04] = 0x02  (memory mode)"));
        assert_non_null(strstr(s, "CRTC[0x11] = 0x8e  (vertical retrace end)"));
        assert_non_null(strstr(s, "CRTC[0x18] = 0xff  (line compare)"));
        assert_non_null(strstr(s, "GC[0x06] = 0x0e  (miscellaneous graphics)"));
        assert_non_null(strstr(s, "ATTR[0x10] = 0x0c  (attribute mode control)"));
        assert_non_null(strstr(s, "ATTR[0x0f] = 0x3f  (palette 15)"));
        assert_non_null(strstr(s, "ATTR index = 0x20"));
        assert_non_null(strstr(s, "DAC mask = 0xff"));
        assert_non_null(strstr(s, "DAC palette: 256 entries"));
        assert_non_null(strstr(s, "DAC[0x01] = (0x00,0x00,0x2a)"));
        assert_non_null(strstr(s, "planes: 4 x 65536 bytes"));

        assert_int_equal(method_vga.dump(f->payload.data, f->payload.size, true, &json), 0);
        s = buffer_str(&json);
        assert_int_equal(s[0], '{');
        assert_int_equal(s[json.size - 1], '}');
        assert_non_null(strstr(s, "\"CRTC[0x11]\":142"));
        assert_non_null(strstr(s, "\"MISC\":103"));
        assert_non_null(strstr(s, "\"planes_saved\":true"));
        assert_non_null(strstr(s, "\"crtc\":[95,79,"));
        assert_null(strchr(s, '\n'));
        /* Balanced braces and brackets. */
        int depth = 0;
        for (const char *c = s; *c; c++) {
                if (*c == '{' || *c == '[')
                        depth++;
                if (*c == '}' || *c == ']')
                        depth--;
                assert_true(depth >= 0);
        }
        assert_int_equal(depth, 0);
}

/* A handle on the simulator whose plane accesses fail, to exercise the error paths. */
static int failing_mem_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        (void)hw, (void)offset, (void)buf, (void)len;
        return -EIO;
}

static int failing_mem_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        (void)hw, (void)offset, (void)buf, (void)len;
        return -EIO;
}

static void test_failures_leave_display_on(void **state)
{
        Fixture *f = *state;
        HwOps ops = *f->hw->ops;
        Hw broken = { .ops = &ops, .device = f->hw->device, .userdata = f->hw->userdata };
        HwSimVgaState *before = NULL, *after = NULL;
        Buffer out = { 0 };

        ops.vga_mem_read = failing_mem_read;
        ops.vga_mem_write = failing_mem_write;
        ops.free = NULL;

        /* Save fails on the planes: nothing appended, hardware as found. */
        hw_sim_load_mode3(f->sim);
        assert_int_equal(hw_sim_snapshot(f->sim, &before), 0);
        assert_int_equal(method_vga.save(&broken, broken.device, &out), -EIO);
        assert_int_equal(out.size, 0);
        assert_int_equal(hw_sim_snapshot(f->sim, &after), 0);
        assert_no_diff(before, after, HW_SIM_DIFF_INDEXES);
        free(before);
        free(after);
        buffer_done(&out);

        /* Restore fails on the planes: the screen is not left blanked, PAS is set. */
        save(f);
        hw_sim_wake(f->sim);
        assert_int_equal(method_vga.restore(&broken, broken.device, f->payload.data, f->payload.size), -EIO);
        assert_int_equal(hw_sim_state(f->sim)->sr[1] & 0x20, 0);
        assert_int_equal(hw_sim_state(f->sim)->ar_index & HW_SIM_AR_PAS, HW_SIM_AR_PAS);
        assert_int_equal(hw_sim_state(f->sim)->gr[6], 0x0E); /* ritual registers put back */
        assert_true(hw_sim_display_live(f->sim));
}

static void test_pas_set_even_if_saved_clear(void **state)
{
        Fixture *f = *state;

        /* Saved while the attribute controller had the display off (PAS clear). */
        hw_sim_load_mode3(f->sim);
        hw_sim_state(f->sim)->ar_index = 0x10;
        save(f);
        assert_int_equal(f->payload.data[VGA_OFF_AR_INDEX], 0x10);
        hw_sim_wake(f->sim);
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_state(f->sim)->ar_index, 0x10 | HW_SIM_AR_PAS);
        assert_true(hw_sim_display_live(f->sim));
}

static const HwOps *real_ops;

static int failing_gc_write(Hw *hw, uint16_t port, unsigned width, uint32_t value)
{
        if (port == 0x3CF)
                return -EIO;
        return real_ops->io_write(hw, port, width, value);
}

static void test_early_failure_unblanks(void **state)
{
        Fixture *f = *state;
        HwOps ops = *f->hw->ops;
        Hw broken = { .ops = &ops, .device = f->hw->device, .userdata = f->hw->userdata };

        real_ops = f->hw->ops;
        ops.io_write = failing_gc_write;
        ops.free = NULL;

        hw_sim_load_mode3(f->sim);
        save(f);
        hw_sim_wake(f->sim);
        /* Fails on the graphics controller: after the sequencer blanked the screen for the
         * planes, before the attribute controller. */
        assert_int_equal(method_vga.restore(&broken, broken.device, f->payload.data, f->payload.size), -EIO);
        assert_int_equal(hw_sim_state(f->sim)->sr[1] & 0x20, 0);
        assert_int_equal(hw_sim_state(f->sim)->ar_index & HW_SIM_AR_PAS, HW_SIM_AR_PAS);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_MEM_WRITE), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_probe),
                cmocka_unit_test_setup_teardown(test_roundtrip_mode3, setup, teardown),
                cmocka_unit_test_setup_teardown(test_roundtrip_mode12, setup, teardown),
                cmocka_unit_test_setup_teardown(test_roundtrip_mode12_full_wake, setup, teardown),
                cmocka_unit_test_setup_teardown(test_roundtrip_mono, setup, teardown),
                cmocka_unit_test_setup_teardown(test_roundtrip_ram_disabled, setup, teardown),
                cmocka_unit_test_setup_teardown(test_roundtrip_odd_state, setup, teardown),
                cmocka_unit_test_setup_teardown(test_restore_order, setup, teardown),
                cmocka_unit_test_setup_teardown(test_save_order, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dac_mask_zero, setup, teardown),
                cmocka_unit_test_setup_teardown(test_malformed_payloads, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dispi_mode_save, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dispi_enabled_at_restore, setup, teardown),
                cmocka_unit_test_setup_teardown(test_verify_mode_kind, setup, teardown),
                cmocka_unit_test(test_other_vendor_no_dispi_ports),
                cmocka_unit_test_setup_teardown(test_verify_report, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dump, setup, teardown),
                cmocka_unit_test_setup_teardown(test_failures_leave_display_on, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pas_set_even_if_saved_clear, setup, teardown),
                cmocka_unit_test_setup_teardown(test_early_failure_unblanks, setup, teardown),
                cmocka_unit_test_setup_teardown(test_restore_writes_once, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
