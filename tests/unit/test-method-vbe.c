/* SPDX-License-Identifier: MIT */
/* Unit tests for the "vbe" method and its emulator sessions, running SeaBIOS's VGA BIOS for
 * QEMU's std VGA (Debian's seabios package) on the simulated device: a VESA mode saved and
 * brought back after a wake, POST only for the device's own ROM, and every way a BIOS can go
 * wrong (a loop, a port that never answers, a failed call) ending bounded and named. */
#include "sim-fixture.h"
#include "methods/dispi.h"
#include "methods/vbe-emu.h"
#include "methods/vbe.h"
#include "methods/vga.h"

#include <time.h>

#define STDVGA_ROM "/usr/share/seabios/vgabios-stdvga.bin"
#define LOOP_AT 0x100u /* an offset inside the ROM where a test plants a handler */

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* What the firmware and the boot loader leave in RAM: the ROM copied to the shadow, POSTed
 * (its interrupt vector and BIOS data area set up), and, if mode is not 0, that mode set
 * through the BIOS as a boot loader's vga= does. The emulator keeps its memory private, so the
 * test copies what the session left back into the machine's first MiB. */
static void boot_bios(Fixture *f, uint16_t mode)
{
        uint8_t *fw = hw_sim_firmware(f->sim);
        VbeEmuCall calls[3] = {
                { .kind = VBE_EMU_POST, .in = { .eax = 0x0010, .edx = 0x80 } }, /* 00:02.0 */
                { .kind = VBE_EMU_INT10, .in = { .eax = 0x0003 } }, /* the system BIOS's text console */
                { .kind = VBE_EMU_INT10, .in = { .eax = 0x4F02, .ebx = mode }, .expect_ax = 0x004F },
        };
        VbeEmuResult res[3];
        VbeEmuOptions o = { 0 };
        uint8_t *mem = NULL;
        size_t done = 0, n;
        FILE *rom;

        rom = fopen(STDVGA_ROM, "rb");
        if (!rom)
                fail_msg("%s: %m (install Debian's seabios package)", STDVGA_ROM);
        n = fread(fw + VBE_EMU_ROM_BASE, 1, VBE_EMU_ROM_MAX, rom);
        fclose(rom);
        assert_true(n > 0x8000);

        o.ret_memory = &mem;
        assert_int_equal(vbe_emu_run(f->hw, f->hw->device, calls, mode ? 3 : 2, &o, res, &done, NULL), 0);
        vbe_emu_results_done(res, done);
        assert_non_null(mem);
        memcpy(fw, mem, 0xA0000);
        memcpy(fw + VBE_EMU_ROM_BASE, mem + VBE_EMU_ROM_BASE, HW_FIRMWARE_END - VBE_EMU_ROM_BASE);
        free(mem);
        hw_clear_failure(f->hw);
        hw_sim_log_clear(f->sim);
}

/* Points INT 10h at code planted in the ROM image. */
static void plant_int10(Fixture *f, const uint8_t *code, size_t len)
{
        uint8_t *fw = hw_sim_firmware(f->sim);

        memcpy(fw + VBE_EMU_ROM_BASE + LOOP_AT, code, len);
        fw[0x40] = (uint8_t)LOOP_AT;
        fw[0x41] = (uint8_t)(LOOP_AT >> 8);
        fw[0x42] = 0x00;
        fw[0x43] = 0xC0; /* C000:0100 */
}

/* The note on the handle names what it must. */
static void assert_note(const Fixture *f, const char *part)
{
        if (!strstr(f->hw->failure, part))
                fail_msg("the note '%s' does not say '%s'", f->hw->failure, part);
}

static void save(Fixture *f)
{
        buffer_done(&f->payload);
        hw_clear_failure(f->hw);
        if (method_vbe.save(f->hw, f->hw->device, &f->payload) != 0)
                fail_msg("save: %s", f->hw->failure);
        assert_int_equal(method_vbe.check(f->payload.data, f->payload.size), 0);
}

static uint16_t payload16(const Fixture *f, size_t at)
{
        return (uint16_t)(f->payload.data[at] | f->payload.data[at + 1] << 8);
}

/* Since the last log clear the device's ports saw no write but to index registers and the DAC
 * write index (the BIOS's debug port 0x402 is refused by hw/ and dropped). */
static void assert_only_index_writes(Fixture *f)
{
        size_t n;
        const HwSimAccess *log = hw_sim_log(f->sim, &n);

        for (size_t i = 0; i < n; i++) {
                uint16_t p = log[i].port;
                bool reaches = (p >= 0x3B0 && p <= 0x3DF) || (p >= 0x1CE && p <= 0x1D0);

                if (log[i].type == HW_SIM_IO_WRITE && reaches && p != 0x1CE && p != 0x3C4 && p != 0x3CE &&
                    p != 0x3D4 && p != 0x3C8) {
                        print_log(f->sim);
                        fail_msg("write #%zu to port 0x%x", i, (unsigned)p);
                }
        }
}

static void test_identity(void **state)
{
        Fixture *f = *state;
        DisplayDevice d = *f->hw->device;

        assert_string_equal(method_vbe.name, "vbe");
        assert_ptr_equal(method_by_name("vbe"), &method_vbe);
        assert_ptr_equal(method_by_id(VBE_METHOD_ID), &method_vbe);
        assert_true(method_vbe.on_demand);
        assert_true(vbe_emu_available());

        assert_true(method_vbe.applies(&d));
        assert_int_equal(method_vbe.modes(&d), METHOD_MODE_LINEAR);
        /* Under UEFI the shadow holds no video BIOS: only when named (a CSM). */
        d.settings.uefi_boot = true;
        assert_false(method_vbe.applies(&d));
        assert_int_equal(method_vbe.modes(&d), 0);
        d.settings.vbe_named = true;
        assert_true(method_vbe.applies(&d));
        d.settings = (struct DeviceSettings){ 0 };
        /* The shadow holds the boot device's BIOS, no other's. */
        d.boot_vga = false;
        assert_false(method_vbe.applies(&d));
        d.boot_vga = true;
        d.class_code = 0x038000;
        assert_false(method_vbe.applies(&d));
}

static void test_probe(void **state)
{
        Fixture *f = *state;
        DisplayDevice d = *f->hw->device;

        /* No BIOS in the shadow (a UEFI machine): declined, with the reason noted. */
        assert_int_equal(method_vbe.probe(f->hw, f->hw->device), 0);
        assert_note(f, "55 AA");

        /* Text mode 3 is the vga method's: declined, unless named. */
        boot_bios(f, 0);
        assert_int_equal(method_vbe.probe(f->hw, f->hw->device), 0);
        assert_note(f, "mode 0x03");
        d.settings.vbe_named = true;
        assert_int_equal(method_vbe.probe(f->hw, &d), 1);

        /* A VESA mode: yes. The probe only asks (4F03): nothing is written to the device. */
        boot_bios(f, 0xC114);
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_vbe.probe(f->hw, f->hw->device), 1);
        assert_only_index_writes(f);
}

/* Mode 0x114 (800x600, 16 bpp, linear frame buffer) as vesafb at vga=0x314 runs it: saved,
 * lost in the wake, brought back by the BIOS with its state, and verified; then the vga
 * method, after it in the plan, makes every register read back as before. */
static void test_roundtrip_vesa_mode(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer dump = { 0 }, report = { 0 }, vga = { 0 };
        HwSimVgaState before;
        bool enabled = true;

        boot_bios(f, 0xC114);
        before = *hw_sim_state(f->sim);
        assert_int_equal(before.dispi[HW_SIM_DISPI_XRES], 800);
        assert_int_equal(method_vga.save(f->hw, f->hw->device, &vga), 0); /* saved before vbe, as planned */
        save(f);
        assert_int_equal(payload16(f, 2), 0x114);
        assert_true(f->payload.data[4] & VBE_FLAG_LFB);
        assert_true(f->payload.data[4] & VBE_FLAG_MODE_INFO);
        assert_int_equal(payload16(f, 8), 800);
        assert_int_equal(payload16(f, 10), 600);
        assert_int_equal(f->payload.data[12], 16);
        assert_int_equal(payload16(f, 6), 0x0F); /* all four components */
        assert_true(f->payload.size > VBE_PAYLOAD_HEADER);
        /* The save itself changed nothing on the device. */
        assert_no_diff(&before, hw_sim_state(f->sim), HW_SIM_DIFF_INDEXES);

        hw_sim_wake(f->sim);
        assert_int_equal(dispi_mode_enabled(f->hw, f->hw->device, &enabled), 0);
        assert_false(enabled);
        assert_int_equal(method_vbe.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report) > 0,
                         true);

        buffer_done(&report);
        if (method_vbe.restore(f->hw, f->hw->device, f->payload.data, f->payload.size) != 0)
                fail_msg("restore: %s", f->hw->failure);
        assert_int_equal(method_vbe.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report), 0);
        /* The mode is the BIOS's to set: every dispi register is back from vbe alone. */
        for (unsigned i = 0; i < HW_SIM_DISPI_COUNT; i++)
                if (hw_sim_state(f->sim)->dispi[i] != before.dispi[i])
                        fail_msg("dispi register %u = 0x%04x after the restore, 0x%04x before", i,
                                 hw_sim_state(f->sim)->dispi[i], before.dispi[i]);
        /* What the BIOS's state leaves out (SeaBIOS's has no miscellaneous output register)
         * the vga method puts back. */
        assert_int_equal(method_vga.restore(f->hw, f->hw->device, vga.data, vga.size), 0);
        assert_no_diff(&before, hw_sim_state(f->sim), 0);

        assert_int_equal(method_vbe.dump(f->payload.data, f->payload.size, false, &dump), 0);
        assert_non_null(strstr(buffer_str(&dump), "mode 0x114 (800x600, 16 bpp"));
        buffer_done(&dump);
        assert_int_equal(method_vbe.dump(f->payload.data, f->payload.size, true, &dump), 0);
        assert_non_null(strstr(buffer_str(&dump), "\"mode\":276,\"lfb\":true"));
}

/* A verify that cannot fail is no verify: a state the BIOS reads back differently is named. */
static void test_verify_names_a_difference(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer report = { 0 };

        boot_bios(f, 0xC114);
        save(f);
        if (method_vbe.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report) != 0)
                fail_msg("verify right after the save: %s", buffer_str(&report));
        assert_int_equal(hw_outw(f->hw, 0x1CE, HW_SIM_DISPI_YRES), 0);
        assert_int_equal(hw_outw(f->hw, 0x1CF, 480), 0);
        assert_true(method_vbe.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report) > 0);
        assert_non_null(strstr(buffer_str(&report), "VBE state byte"));
}

/* With VBEPost= the BIOS is run from its entry point first, on its own ROM only. */
static void test_post_only_for_the_devices_rom(void **state)
{
        Fixture *f = *state;
        DisplayDevice d = *f->hw->device;
        uint8_t *fw = hw_sim_firmware(f->sim);
        uint16_t pcir;

        boot_bios(f, 0xC114);
        save(f);
        d.settings.vbe_post = true;

        hw_sim_wake_full(f->sim);
        if (method_vbe.restore(f->hw, &d, f->payload.data, f->payload.size) != 0)
                fail_msg("restore with POST: %s", f->hw->failure);
        assert_int_equal(method_vbe.verify(f->hw, &d, f->payload.data, f->payload.size, NULL), 0);

        /* The same ROM claiming another device: refused before any BIOS code runs. */
        pcir = (uint16_t)(fw[VBE_EMU_ROM_BASE + 0x18] | fw[VBE_EMU_ROM_BASE + 0x19] << 8);
        assert_memory_equal(fw + VBE_EMU_ROM_BASE + pcir, "PCIR", 4);
        fw[VBE_EMU_ROM_BASE + pcir + 6] ^= 0x01; /* device 0x1111 -> 0x1110 */
        hw_sim_wake(f->sim);
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_vbe.restore(f->hw, &d, f->payload.data, f->payload.size), -EXDEV);
        assert_note(f, "POST refused");
        assert_note(f, "1234:1110");
        {
                size_t n;
                const HwSimAccess *log = hw_sim_log(f->sim, &n);
                for (size_t i = 0; i < n; i++)
                        assert_int_equal(log[i].type, HW_SIM_FIRMWARE_READ);
        }
        /* Without VBEPost= the same payload restores without running the entry point. */
        d.settings.vbe_post = false;
        assert_int_equal(method_vbe.restore(f->hw, &d, f->payload.data, f->payload.size), 0);
}

/* A handler that never returns: the instruction budget stops it, the call is named. */
/* The upper memory between the video BIOS and the system BIOS is there to use, as a private
 * copy: SeaBIOS's VGA BIOS was seen on a stack at 0xE8C2C once vbetool had run it, and the
 * session failed on "unmapped memory". A write there stays in the emulator; above 1 MiB
 * (no BAR) an access still fails the call, named. */
static void test_upper_memory_is_private(void **state)
{
        Fixture *f = *state;
        static const uint8_t rw[] = {
                0x1E,             /* push ds */
                0xB8, 0x00, 0xE8, /* mov ax, 0xE800 */
                0x8E, 0xD8,       /* mov ds, ax */
                0xA0, 0x2C, 0x0C, /* mov al, [0x0C2C] */
                0xFE, 0xC0,       /* inc al */
                0xA2, 0x2C, 0x0C, /* mov [0x0C2C], al */
                0xA0, 0x2C, 0x0C, /* mov al, [0x0C2C] */
                0xB4, 0x00,       /* mov ah, 0 */
                0x1F,             /* pop ds */
                0xCF,             /* iret */
        };
        static const uint8_t far[] = {
                0x66, 0xB8, 0x00, 0x00, 0x20, 0x00, /* mov eax, 0x200000 */
                0x67, 0x8A, 0x00,                   /* mov al, [eax] (big real mode) */
                0xCF,                               /* iret */
        };
        VbeEmuCall call = { .kind = VBE_EMU_INT10, .in = { .eax = 0x4F03 } };
        VbeEmuResult res;
        size_t done = 0;
        uint8_t *fw;

        boot_bios(f, 0xC114);
        fw = hw_sim_firmware(f->sim);
        fw[0xE8C2C] = 0x5A;
        plant_int10(f, rw, sizeof(rw));
        if (vbe_emu_run(f->hw, f->hw->device, &call, 1, NULL, &res, &done, NULL) != 0)
                fail_msg("a read and write at 0xE8C2C: %s", f->hw->failure);
        vbe_emu_results_done(&res, done);
        assert_int_equal(done, 1);
        assert_int_equal(res.out.eax & 0xFFFF, 0x005B); /* read the machine's byte, wrote, read back */
        assert_int_equal(hw_sim_firmware(f->sim)[0xE8C2C], 0x5A); /* the machine's copy untouched */

        plant_int10(f, far, sizeof(far));
        hw_clear_failure(f->hw);
        assert_int_equal(vbe_emu_run(f->hw, f->hw->device, &call, 1, NULL, &res, &done, NULL), -EFAULT);
        assert_int_equal(done, 0);
        assert_note(f, "unmapped memory at 0x00200000");
}

static void test_loop_hits_the_budget(void **state)
{
        Fixture *f = *state;
        static const uint8_t loop[] = { 0xE4, 0x80, 0xEB, 0xFC }; /* in al, 0x80; jmp back */
        VbeEmuCall call = { .kind = VBE_EMU_INT10, .in = { .eax = 0x4F03 } };
        VbeEmuOptions o = { .instructions = 200000 };
        VbeEmuResult res;
        VbeEmuStats st = { 0 };
        size_t done = 1;
        uint64_t t0;
        int r;

        boot_bios(f, 0xC114);
        plant_int10(f, loop, sizeof(loop));
        t0 = now_usec();
        assert_int_equal(vbe_emu_run(f->hw, f->hw->device, &call, 1, &o, &res, &done, &st), -E2BIG);
        assert_true(now_usec() - t0 < 2000000u);
        assert_int_equal(done, 0);
        assert_note(f, "4F03");
        assert_true(st.filtered_ports > 1000); /* port 0x80 never reached the device */

        /* The method, with the default bounds: whichever comes first on this machine (50
         * million instructions or 2 s) stops the first call, named; nothing half-saved. */
        buffer_done(&f->payload);
        t0 = now_usec();
        r = method_vbe.save(f->hw, f->hw->device, &f->payload);
        if (r != -E2BIG && r != -ETIMEDOUT)
                fail_msg("save: %d, %s", r, f->hw->failure);
        assert_true(now_usec() - t0 < VBE_EMU_DEFAULT_CALL_USEC + 1500000u);
        assert_note(f, "4F00");
        assert_int_equal(f->payload.size, 0);
}

/* A port read that never returns (a device holding the bus): the child is killed at the wall
 * deadline, measured here. */
static void test_hung_port_hits_the_deadline(void **state)
{
        Fixture *f = *state;
        VbeEmuCall call = { .kind = VBE_EMU_INT10, .in = { .eax = 0x4F03 } };
        VbeEmuOptions o = { .call_usec = 300000 };
        VbeEmuResult res;
        size_t done = 1;
        uint64_t t0, took;
        static const uint8_t reader[] = { 0xBA, 0xDA, 0x03, 0xEC, 0xCF }; /* mov dx,0x3DA; in al,dx; iret */

        boot_bios(f, 0xC114);
        plant_int10(f, reader, sizeof(reader));
        hw_sim_set_hang_port(f->sim, 0x3DA);
        t0 = now_usec();
        assert_int_equal(vbe_emu_run(f->hw, f->hw->device, &call, 1, &o, &res, &done, NULL), -ETIMEDOUT);
        took = now_usec() - t0;
        print_message("a hung port read was cut after %.0f ms (deadline 300 ms)\n", (double)took / 1000.0);
        assert_true(took >= 300000u && took < 1500000u);
        assert_int_equal(done, 0);
        assert_note(f, "4F03");

        /* The method with its default deadline: bounded too, and the device stays usable. */
        t0 = now_usec();
        assert_int_equal(method_vbe.probe(f->hw, f->hw->device), -ETIMEDOUT);
        took = now_usec() - t0;
        assert_true(took < VBE_EMU_DEFAULT_CALL_USEC + 1500000u);
        hw_sim_set_hang_port(f->sim, 0);
        assert_int_equal(hw_outw(f->hw, 0x1CE, 0), 0);
}

/* A call that returns a failure (AX = 014F): the session stops there, the method fails and
 * names it; a restore says how far it got. */
static void test_failed_call_is_named(void **state)
{
        Fixture *f = *state;
        static const uint8_t fail[] = { 0xB8, 0x4F, 0x01, 0xCF }; /* mov ax, 0x014F; iret */
        HwSimVgaState before;

        boot_bios(f, 0xC114);
        save(f);
        plant_int10(f, fail, sizeof(fail));
        buffer_done(&f->payload);
        assert_int_equal(method_vbe.save(f->hw, f->hw->device, &f->payload), -EPROTO);
        assert_note(f, "4F00");
        assert_int_equal(f->payload.size, 0);

        boot_bios(f, 0xC114);
        save(f);
        plant_int10(f, fail, sizeof(fail));
        hw_sim_wake(f->sim);
        before = *hw_sim_state(f->sim);
        assert_int_equal(method_vbe.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), -EPROTO);
        assert_note(f, "setting the base mode");
        /* This handler wrote nothing: neither did the method around it. */
        assert_no_diff(&before, hw_sim_state(f->sim), HW_SIM_DIFF_INDEXES);
}

/* The saved payload with one byte changed (at < 0: none), cut or grown to len, is refused
 * everywhere without a device access. */
static void refuse_edited(Fixture *f, ssize_t at, uint8_t value, size_t len)
{
        _cleanup_free_ uint8_t *q = calloc(1, f->payload.size + 1);

        assert_non_null(q);
        memcpy(q, f->payload.data, f->payload.size);
        if (at >= 0)
                q[at] = value;
        assert_method_refuses_without_access(f, &method_vbe, q, len);
}

static void test_malformed_payloads(void **state)
{
        Fixture *f = *state;
        size_t len;

        boot_bios(f, 0xC114);
        save(f);
        len = f->payload.size;

        refuse_edited(f, -1, 0, len - 1);               /* truncated state */
        refuse_edited(f, -1, 0, VBE_PAYLOAD_HEADER - 1); /* truncated header */
        refuse_edited(f, -1, 0, 0);
        refuse_edited(f, -1, 0, len + 1);               /* a byte past the state */
        refuse_edited(f, 1, 0, len);                    /* VBE version 0.x */
        refuse_edited(f, 1, 4, len);                    /* VBE version 4.x */
        refuse_edited(f, 3, 0x40, len);                 /* mode 0x4114: past the mode numbers */
        refuse_edited(f, 4, 0x80 | VBE_FLAG_LFB, len);  /* an unknown flag */
        refuse_edited(f, 5, 1, len);                    /* the reserved byte */
        refuse_edited(f, 6, 0x1F, len);                 /* an unknown state component */
        refuse_edited(f, 6, 0x00, len);                 /* a state without components */
        refuse_edited(f, 12, 7, len);                   /* 7 bits per pixel */
        refuse_edited(f, 20, (uint8_t)(f->payload.data[20] + 1), len); /* length field off by one */
        refuse_edited(f, 23, 0x01, len);                /* a 16 MiB state */
        /* The untouched payload is accepted (the edits above are what was refused). */
        assert_int_equal(method_vbe.check(f->payload.data, len), 0);
}

int main(int argc, char **argv)
{
        (void)argc;
        (void)argv;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_identity, setup, teardown),
                cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
                cmocka_unit_test_setup_teardown(test_roundtrip_vesa_mode, setup, teardown),
                cmocka_unit_test_setup_teardown(test_verify_names_a_difference, setup, teardown),
                cmocka_unit_test_setup_teardown(test_post_only_for_the_devices_rom, setup, teardown),
                cmocka_unit_test_setup_teardown(test_upper_memory_is_private, setup, teardown),
                cmocka_unit_test_setup_teardown(test_loop_hits_the_budget, setup, teardown),
                cmocka_unit_test_setup_teardown(test_hung_port_hits_the_deadline, setup, teardown),
                cmocka_unit_test_setup_teardown(test_failed_call_is_named, setup, teardown),
                cmocka_unit_test_setup_teardown(test_malformed_payloads, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
