/* SPDX-License-Identifier: MIT */
/* Unit tests for the simulated VGA (hw-sim.c): port semantics, planes and memory windows,
 * write/read modes, wake, dispi, PCI config, MMIO, forbid switch and access log. */
#include "sim-fixture.h"

static uint8_t inb(Hw *hw, uint16_t port)
{
        uint8_t v = 0;
        assert_int_equal(hw_inb(hw, port, &v), 0);
        return v;
}

static void outb(Hw *hw, uint16_t port, uint8_t v)
{
        assert_int_equal(hw_outb(hw, port, v), 0);
}

static uint8_t read_idx(Hw *hw, uint16_t port, uint8_t i)
{
        outb(hw, port, i);
        return inb(hw, (uint16_t)(port + 1));
}

static void write_idx(Hw *hw, uint16_t port, uint8_t i, uint8_t v)
{
        outb(hw, port, i);
        outb(hw, (uint16_t)(port + 1), v);
}

static void test_index_data(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);

        write_idx(f->hw, 0x3C4, 0x02, 0x0F);
        assert_int_equal(st->sr[2], 0x0F);
        assert_int_equal(inb(f->hw, 0x3C4), 0x02); /* index reads back */
        assert_int_equal(read_idx(f->hw, 0x3C4, 0x02), 0x0F);

        write_idx(f->hw, 0x3CE, 0x08, 0x5A);
        assert_int_equal(st->gr[8], 0x5A);
        assert_int_equal(read_idx(f->hw, 0x3CE, 0x08), 0x5A);

        /* After wake MSR is 0xC3: colour, CRTC at 0x3D4. */
        write_idx(f->hw, 0x3D4, 0x18, 0x77);
        assert_int_equal(st->cr[0x18], 0x77);
        assert_int_equal(read_idx(f->hw, 0x3D4, 0x18), 0x77);
        assert_int_equal(hw_sim_errors(f->sim), 0);

        /* Registers past the end: reads 0xFF, writes dropped, no damage. */
        assert_int_equal(read_idx(f->hw, 0x3C4, 0x07), 0xFF);
        assert_int_equal(read_idx(f->hw, 0x3D4, 0x30), 0xFF);

        /* A 16-bit write to an index port is index + data. */
        assert_int_equal(hw_outw(f->hw, 0x3C4, 0x0301), 0);
        assert_int_equal(st->sr[1], 0x03);

        /* MSR: written at 0x3C2, read at 0x3CC. */
        outb(f->hw, 0x3C2, 0x67);
        assert_int_equal(inb(f->hw, 0x3CC), 0x67);
        assert_int_equal(st->msr, 0x67);
}

static void test_mono_colour_ports(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);

        outb(f->hw, 0x3C2, 0x66); /* mono: CRTC at 0x3B4 */
        write_idx(f->hw, 0x3B4, 0x0A, 0x0D);
        assert_int_equal(st->cr[0x0A], 0x0D);
        assert_int_equal(hw_sim_errors(f->sim), 0);

        write_idx(f->hw, 0x3D4, 0x0A, 0x00); /* not decoded now */
        assert_int_equal(st->cr[0x0A], 0x0D);
        assert_true(hw_sim_errors(f->sim) >= 1);
        assert_non_null(strstr(hw_sim_last_error(f->sim), "not decoded while MSR bit 0 is 0"));
        hw_sim_clear_errors(f->sim);
        assert_int_equal(hw_sim_errors(f->sim), 0);

        /* ST01 moves too, and resets the flip-flop there. */
        outb(f->hw, 0x3C0, 0x10); /* index; next write is data */
        (void)inb(f->hw, 0x3BA);
        outb(f->hw, 0x3C0, 0x31); /* index again, not data */
        assert_int_equal(st->ar_index, 0x31);
        assert_int_equal(hw_sim_errors(f->sim), 0);
}

static void test_cr11_protect(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);

        hw_sim_load_mode3(f->sim);
        assert_int_equal(st->cr[0x11], 0x8E);

        write_idx(f->hw, 0x3D4, 0x00, 0x12); /* protected */
        write_idx(f->hw, 0x3D4, 0x07, 0x00); /* protected */
        assert_int_equal(st->cr[0x00], 0x5F);
        assert_int_equal(st->cr[0x07], 0x1F);
        assert_int_equal(hw_sim_protected_writes(f->sim), 2);

        write_idx(f->hw, 0x3D4, 0x08, 0x03); /* not protected */
        assert_int_equal(st->cr[0x08], 0x03);

        write_idx(f->hw, 0x3D4, 0x11, 0x0E); /* unlock */
        write_idx(f->hw, 0x3D4, 0x00, 0x12);
        assert_int_equal(st->cr[0x00], 0x12);
        assert_int_equal(hw_sim_protected_writes(f->sim), 2);
}

static void test_attribute_flipflop(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);

        (void)inb(f->hw, 0x3DA);
        outb(f->hw, 0x3C0, 0x10); /* index 0x10, PAS clear */
        outb(f->hw, 0x3C0, 0x0C); /* data */
        assert_int_equal(st->ar[0x10], 0x0C);
        assert_int_equal(inb(f->hw, 0x3C0), 0x10); /* reading the index does not flip */
        assert_int_equal(inb(f->hw, 0x3C1), 0x0C);

        /* The flip-flop is back at index: the next write is an index. */
        outb(f->hw, 0x3C0, 0x03);
        outb(f->hw, 0x3C0, 0x2A);
        assert_int_equal(st->ar[0x03], 0x2A);

        /* Without an ST01 read, a stray data write would be taken as an index. */
        outb(f->hw, 0x3C0, 0x04);
        (void)inb(f->hw, 0x3DA); /* reset: the next write is an index again */
        outb(f->hw, 0x3C0, 0x05);
        outb(f->hw, 0x3C0, 0x3F);
        assert_int_equal(st->ar[0x05], 0x3F);
        assert_int_equal(st->ar[0x04], 0x00);

        /* Palette registers are 6 bits and locked while PAS is set. */
        (void)inb(f->hw, 0x3DA);
        outb(f->hw, 0x3C0, 0x01);
        outb(f->hw, 0x3C0, 0xFF);
        assert_int_equal(st->ar[0x01], 0x3F);
        (void)inb(f->hw, 0x3DA);
        outb(f->hw, 0x3C0, 0x21); /* PAS set */
        outb(f->hw, 0x3C0, 0x11);
        assert_int_equal(st->ar[0x01], 0x3F);
        assert_int_equal(inb(f->hw, 0x3C1), 0xFF);
        /* ...but AR10-AR14 stay reachable. */
        (void)inb(f->hw, 0x3DA);
        outb(f->hw, 0x3C0, 0x31);
        outb(f->hw, 0x3C0, 0x07);
        assert_int_equal(st->ar[0x11], 0x07);
        assert_int_equal(st->ar_index & HW_SIM_AR_PAS, HW_SIM_AR_PAS);
}

static void test_dac(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);
        const uint8_t rgb[6] = { 0x01, 0x02, 0x03, 0x3F, 0xFF, 0x10 };

        outb(f->hw, 0x3C8, 0x05);
        for (size_t i = 0; i < 6; i++)
                outb(f->hw, 0x3C9, rgb[i]);
        assert_memory_equal(st->palette[5], rgb, 3);
        assert_int_equal(st->palette[6][0], 0x3F);
        assert_int_equal(st->palette[6][1], 0x3F); /* 6-bit */
        assert_int_equal(st->palette[6][2], 0x10);
        assert_int_equal(inb(f->hw, 0x3C8), 0x07); /* write index advanced twice */
        assert_int_equal(inb(f->hw, 0x3C7), 0x00); /* DAC state: write mode */

        outb(f->hw, 0x3C7, 0x05);
        assert_int_equal(inb(f->hw, 0x3C7), 0x03); /* read mode */
        assert_int_equal(inb(f->hw, 0x3C9), 0x01);
        assert_int_equal(inb(f->hw, 0x3C9), 0x02);
        assert_int_equal(inb(f->hw, 0x3C9), 0x03);
        assert_int_equal(inb(f->hw, 0x3C9), 0x3F); /* entry 6 */

        /* A partial triple is not stored; the index wraps at 256. */
        outb(f->hw, 0x3C8, 0xFF);
        for (int i = 0; i < 3; i++)
                outb(f->hw, 0x3C9, 0x11);
        outb(f->hw, 0x3C9, 0x22);
        assert_int_equal(st->palette[255][0], 0x11);
        assert_int_equal(st->palette[0][0], 0x00);
        assert_int_equal(inb(f->hw, 0x3C8), 0x00);

        outb(f->hw, 0x3C6, 0xF0);
        assert_int_equal(inb(f->hw, 0x3C6), 0xF0);
        hw_sim_set_dac_mask_reads_zero(f->sim, true);
        assert_int_equal(inb(f->hw, 0x3C6), 0x00);
        assert_int_equal(st->dac_mask, 0xF0);
}

static void test_text_odd_even(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);
        const uint8_t text[] = { 'H', 0x1F, 'i', 0x4E, '!', 0x07 };
        uint8_t back[sizeof(text)];

        hw_sim_load_mode3(f->sim);
        memset(st->planes, 0, sizeof(st->planes));

        /* B8000 is offset 0x18000 from 0xA0000. */
        assert_int_equal(hw_vga_mem_write(f->hw, 0x18000, text, sizeof(text)), 0);
        assert_int_equal(st->planes[0][0], 'H');
        assert_int_equal(st->planes[1][0], 0x1F);
        assert_int_equal(st->planes[0][1], 'i');
        assert_int_equal(st->planes[1][1], 0x4E);
        assert_int_equal(st->planes[0][2], '!');
        assert_int_equal(st->planes[1][2], 0x07);
        /* SR02 = 0x03 in mode 3: the font planes are untouched. */
        for (int i = 0; i < 8; i++) {
                assert_int_equal(st->planes[2][i], 0);
                assert_int_equal(st->planes[3][i], 0);
        }

        assert_int_equal(hw_vga_mem_read(f->hw, 0x18000, back, sizeof(back)), 0);
        assert_memory_equal(back, text, sizeof(text));

        /* Text at B8000 + 160 (second row) lands at plane offset 80. */
        assert_int_equal(hw_vga_mem_write(f->hw, 0x18000 + 160, "A\x70", 2), 0);
        assert_int_equal(st->planes[0][80], 'A');
        assert_int_equal(st->planes[1][80], 0x70);

        /* GR04 bit 1 selects planes 2/3 for odd/even reads. */
        st->planes[2][0] = 0xAB;
        st->planes[3][0] = 0xCD;
        write_idx(f->hw, 0x3CE, 0x04, 0x02);
        assert_int_equal(hw_vga_mem_read(f->hw, 0x18000, back, 2), 0);
        assert_int_equal(back[0], 0xAB);
        assert_int_equal(back[1], 0xCD);
}

static void test_memory_windows(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);
        uint8_t v;

        hw_sim_load_mode12(f->sim); /* GR06 = 0x05: A0000-AFFFF, planar */
        memset(st->planes, 0, sizeof(st->planes));

        v = 0x81;
        assert_int_equal(hw_vga_mem_write(f->hw, 0x0010, &v, 1), 0);
        for (int p = 0; p < 4; p++)
                assert_int_equal(st->planes[p][0x10], 0x81);          /* SR02 = 0x0F: all planes */
        assert_int_equal(hw_vga_mem_write(f->hw, 0x10010, &v, 1), 0); /* B0010: outside */
        assert_int_equal(hw_vga_mem_read(f->hw, 0x10010, &v, 1), 0);
        assert_int_equal(v, 0xFF);

        /* Map 10: B0000-B7FFF. */
        write_idx(f->hw, 0x3CE, 0x06, 0x09);
        v = 0x42;
        assert_int_equal(hw_vga_mem_write(f->hw, 0x10020, &v, 1), 0);
        assert_int_equal(st->planes[0][0x20], 0x42);
        assert_int_equal(hw_vga_mem_read(f->hw, 0x0020, &v, 1), 0); /* A0020: outside */
        assert_int_equal(v, 0xFF);
        assert_int_equal(hw_vga_mem_read(f->hw, 0x18020, &v, 1), 0); /* B8020: outside */
        assert_int_equal(v, 0xFF);

        /* Map 11: B8000-BFFFF. */
        write_idx(f->hw, 0x3CE, 0x06, 0x0D);
        v = 0x24;
        assert_int_equal(hw_vga_mem_write(f->hw, 0x18030, &v, 1), 0);
        assert_int_equal(st->planes[3][0x30], 0x24);
        assert_int_equal(hw_vga_mem_read(f->hw, 0x10030, &v, 1), 0);
        assert_int_equal(v, 0xFF);

        /* Map 00: A0000-BFFFF, all 128 KiB (the plane address wraps at 64 KiB). */
        write_idx(f->hw, 0x3CE, 0x06, 0x01);
        write_idx(f->hw, 0x3CE, 0x04, 0x01);
        assert_int_equal(hw_vga_mem_read(f->hw, 0x10020, &v, 1), 0);
        assert_int_equal(v, 0x42);

        /* MSR bit 1 clear: no CPU access to video memory at all. */
        outb(f->hw, 0x3C2, 0xE1);
        v = 0x99;
        assert_int_equal(hw_vga_mem_write(f->hw, 0x0040, &v, 1), 0);
        assert_int_equal(st->planes[1][0x40], 0x00);
        assert_int_equal(hw_vga_mem_read(f->hw, 0x0020, &v, 1), 0);
        assert_int_equal(v, 0xFF);

        /* Out of the 128 KiB window: refused before the backend. */
        assert_int_equal(hw_vga_mem_read(f->hw, 0x1FFFF, &v, 2), -ERANGE);
}

static void test_write_read_modes(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);
        uint8_t v;

        hw_sim_load_mode12(f->sim);
        memset(st->planes, 0, sizeof(st->planes));

        /* Map mask: only planes 1 and 2. */
        write_idx(f->hw, 0x3C4, 0x02, 0x06);
        v = 0x5A;
        assert_int_equal(hw_vga_mem_write(f->hw, 0, &v, 1), 0);
        assert_int_equal(st->planes[0][0], 0x00);
        assert_int_equal(st->planes[1][0], 0x5A);
        assert_int_equal(st->planes[2][0], 0x5A);
        assert_int_equal(st->planes[3][0], 0x00);
        write_idx(f->hw, 0x3C4, 0x02, 0x0F);

        /* Set/reset: planes 0 and 2 enabled, value 0101 -> plane 0 = 0xFF, plane 2 = 0x00. */
        write_idx(f->hw, 0x3CE, 0x00, 0x01);
        write_idx(f->hw, 0x3CE, 0x01, 0x05);
        v = 0x0F;
        assert_int_equal(hw_vga_mem_write(f->hw, 1, &v, 1), 0);
        assert_int_equal(st->planes[0][1], 0xFF);
        assert_int_equal(st->planes[1][1], 0x0F);
        assert_int_equal(st->planes[2][1], 0x00);
        assert_int_equal(st->planes[3][1], 0x0F);
        write_idx(f->hw, 0x3CE, 0x01, 0x00);

        /* Rotate by 4 and XOR with the latches, bit mask 0xF0. */
        for (int p = 0; p < 4; p++)
                st->planes[p][2] = 0x33;
        assert_int_equal(hw_vga_mem_read(f->hw, 2, &v, 1), 0); /* loads the latches */
        write_idx(f->hw, 0x3CE, 0x03, 0x18 | 0x04);            /* XOR, rotate 4 */
        write_idx(f->hw, 0x3CE, 0x08, 0xF0);
        v = 0x0C; /* rotated: 0xC0 */
        assert_int_equal(hw_vga_mem_write(f->hw, 2, &v, 1), 0);
        for (int p = 0; p < 4; p++)
                assert_int_equal(st->planes[p][2], ((0xC0 ^ 0x33) & 0xF0) | (0x33 & 0x0F));
        write_idx(f->hw, 0x3CE, 0x03, 0x00);
        write_idx(f->hw, 0x3CE, 0x08, 0xFF);

        /* Write mode 1 copies the latches. */
        st->planes[0][3] = 0x11;
        st->planes[1][3] = 0x22;
        st->planes[2][3] = 0x44;
        st->planes[3][3] = 0x88;
        assert_int_equal(hw_vga_mem_read(f->hw, 3, &v, 1), 0);
        write_idx(f->hw, 0x3CE, 0x05, 0x01);
        assert_int_equal(hw_vga_mem_write(f->hw, 4, &v, 1), 0);
        assert_int_equal(st->planes[0][4], 0x11);
        assert_int_equal(st->planes[3][4], 0x88);

        /* Write mode 2: CPU bits 0-3 fan out to the planes. */
        write_idx(f->hw, 0x3CE, 0x05, 0x02);
        v = 0x09;
        assert_int_equal(hw_vga_mem_write(f->hw, 5, &v, 1), 0);
        assert_int_equal(st->planes[0][5], 0xFF);
        assert_int_equal(st->planes[1][5], 0x00);
        assert_int_equal(st->planes[2][5], 0x00);
        assert_int_equal(st->planes[3][5], 0xFF);

        /* Write mode 3: set/reset data under (rotated CPU data & bit mask). */
        for (int p = 0; p < 4; p++)
                st->planes[p][6] = 0x00;
        assert_int_equal(hw_vga_mem_read(f->hw, 6, &v, 1), 0);
        write_idx(f->hw, 0x3CE, 0x05, 0x03);
        write_idx(f->hw, 0x3CE, 0x00, 0x02);
        v = 0x3C;
        assert_int_equal(hw_vga_mem_write(f->hw, 6, &v, 1), 0);
        assert_int_equal(st->planes[0][6], 0x00);
        assert_int_equal(st->planes[1][6], 0x3C);

        /* Read mode 1: colour compare against 0101 on all planes. */
        st->planes[0][7] = 0xCC;
        st->planes[1][7] = 0x00;
        st->planes[2][7] = 0xFF;
        st->planes[3][7] = 0x0F;
        write_idx(f->hw, 0x3CE, 0x05, 0x08);
        write_idx(f->hw, 0x3CE, 0x02, 0x05);
        write_idx(f->hw, 0x3CE, 0x07, 0x0F);
        assert_int_equal(hw_vga_mem_read(f->hw, 7, &v, 1), 0);
        assert_int_equal(v, 0xCC & 0xFF & 0xFF & 0xF0);
        /* Don't care about planes 0 and 2: only plane 1 == 0 and plane 3 == 0 count. */
        write_idx(f->hw, 0x3CE, 0x07, 0x0A);
        assert_int_equal(hw_vga_mem_read(f->hw, 7, &v, 1), 0);
        assert_int_equal(v, 0xF0);

        /* Chain-4: consecutive bytes go to consecutive planes. */
        write_idx(f->hw, 0x3CE, 0x05, 0x40);
        write_idx(f->hw, 0x3C4, 0x04, 0x0E);
        assert_int_equal(hw_vga_mem_write(f->hw, 0x100, "\x01\x02\x03\x04\x05", 5), 0);
        assert_int_equal(st->planes[0][0x40], 0x01);
        assert_int_equal(st->planes[3][0x40], 0x04);
        assert_int_equal(st->planes[0][0x41], 0x05);
        assert_int_equal(hw_sim_errors(f->sim), 0);
}

static void test_wake(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);
        HwSimVgaState *before = NULL;

        hw_sim_load_mode3(f->sim);
        hw_sim_fill_planes(f->sim, 7);
        assert_true(hw_sim_display_live(f->sim));
        assert_int_equal(hw_sim_snapshot(f->sim, &before), 0);

        outb(f->hw, 0x3C0, 0x10); /* leave the flip-flop at data */
        hw_sim_wake(f->sim);
        assert_int_equal(st->msr, 0xC3);
        for (int i = 0; i < HW_SIM_SR_COUNT; i++)
                assert_int_equal(st->sr[i], 0);
        for (int i = 0; i < HW_SIM_CR_COUNT; i++)
                assert_int_equal(st->cr[i], 0);
        for (int i = 0; i < HW_SIM_GR_COUNT; i++)
                assert_int_equal(st->gr[i], 0);
        for (int i = 0; i < HW_SIM_AR_COUNT; i++)
                assert_int_equal(st->ar[i], 0);
        assert_int_equal(st->ar_index & HW_SIM_AR_PAS, 0);
        assert_false(hw_sim_display_live(f->sim));
        /* Planes and palette survive a plain wake. */
        assert_memory_equal(st->planes, before->planes, sizeof(st->planes));
        assert_memory_equal(st->palette, before->palette, sizeof(st->palette));
        /* The flip-flop was reset: this is an index write. */
        outb(f->hw, 0x3C0, 0x12);
        assert_int_equal(st->ar_index, 0x12);

        hw_sim_wake_full(f->sim);
        assert_true(hw_sim_state_diff(st, before, 0, NULL) > 100000);
        assert_memory_not_equal(st->planes[2], before->planes[2], HW_SIM_PLANE_SIZE);
        assert_memory_not_equal(st->palette, before->palette, sizeof(st->palette));
        free(before);
}

static void test_display_live(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);

        hw_sim_load_mode12(f->sim);
        assert_true(hw_sim_display_live(f->sim));
        st->sr[1] |= 0x20;
        assert_false(hw_sim_display_live(f->sim));
        st->sr[1] &= ~0x20;
        st->ar_index = 0;
        assert_false(hw_sim_display_live(f->sim));
        st->ar_index = HW_SIM_AR_PAS;
        st->sr[0] = 0x01;
        assert_false(hw_sim_display_live(f->sim));
        st->sr[0] = 0x03;
        st->cr[1] = 0;
        assert_false(hw_sim_display_live(f->sim));
        st->cr[1] = 0x4F;
        assert_true(hw_sim_display_live(f->sim));
}

static void test_snapshot_diff(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *a = NULL, *b = NULL;
        _cleanup_(buffer_done) Buffer report = { 0 };

        hw_sim_load_mode3(f->sim);
        assert_int_equal(hw_sim_snapshot(f->sim, &a), 0);
        assert_int_equal(hw_sim_snapshot(f->sim, &b), 0);
        assert_int_equal(hw_sim_state_diff(a, b, HW_SIM_DIFF_INDEXES, NULL), 0);
        b->cr[0x11] = 0x0E;
        b->planes[3][0x1234] ^= 1;
        b->sr_index = 3;
        assert_int_equal(hw_sim_state_diff(a, b, 0, &report), 2);
        assert_non_null(strstr(buffer_str(&report), "CRTC[0x11]: 0x8e != 0x0e"));
        assert_non_null(strstr(buffer_str(&report), "plane 3 [0x1234]"));
        assert_int_equal(hw_sim_state_diff(a, b, HW_SIM_DIFF_INDEXES, NULL), 3);
        free(a);
        free(b);
}

static void test_dispi(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *st = hw_sim_state(f->sim);
        uint16_t v;
        uint8_t b = 0x77;

        assert_int_equal(hw_outw(f->hw, 0x1CE, 0), 0);
        assert_int_equal(hw_inw(f->hw, 0x1CF, &v), 0);
        assert_int_equal(v, HW_SIM_DISPI_ID_VALUE);

        hw_sim_load_mode12(f->sim);
        memset(st->planes, 0, sizeof(st->planes));
        assert_int_equal(hw_outw(f->hw, 0x1CE, HW_SIM_DISPI_XRES), 0);
        assert_int_equal(hw_outw(f->hw, 0x1CF, 800), 0);
        assert_int_equal(hw_outw(f->hw, 0x1CE, HW_SIM_DISPI_YRES), 0);
        assert_int_equal(hw_outw(f->hw, 0x1CF, 600), 0);
        assert_int_equal(hw_outw(f->hw, 0x1CE, HW_SIM_DISPI_ENABLE), 0);
        assert_int_equal(hw_outw(f->hw, 0x1CF, 1), 0);
        assert_int_equal(hw_inw(f->hw, 0x1CE, &v), 0);
        assert_int_equal(v, HW_SIM_DISPI_ENABLE);

        /* The window now reaches the frame buffer, not the planes. */
        assert_int_equal(hw_vga_mem_write(f->hw, 0x10, &b, 1), 0);
        assert_int_equal(hw_sim_dispi_fb(f->sim)[0x10], 0x77);
        for (int p = 0; p < 4; p++)
                assert_int_equal(st->planes[p][0x10], 0);
        assert_true(hw_sim_display_live(f->sim));

        hw_sim_wake(f->sim);
        assert_int_equal(st->dispi[HW_SIM_DISPI_ENABLE], 0);
        assert_int_equal(st->dispi[HW_SIM_DISPI_ID], HW_SIM_DISPI_ID_VALUE);
        assert_false(hw_sim_display_live(f->sim));
        assert_int_equal(hw_sim_errors(f->sim), 0);
}

static void test_dispi_absent_on_other_devices(void **state)
{
        DisplayDevice d = {
                .slot = "0000:00:02.0",
                .vendor_id = 0x8086,
                .device_id = 0x27ae,
                .class_code = 0x030000,
                .verdict = VERDICT_UMS,
        };
        _cleanup_(hw_sim_unrefp) HwSim *sim = NULL;
        _cleanup_(hw_freep) Hw *hw = NULL;
        uint16_t v;

        (void)state;
        assert_int_equal(hw_sim_new(&d, &sim, &hw), 0);
        assert_int_equal(hw_inw(hw, 0x1CF, &v), 0);
        assert_int_equal(v, 0xFFFF);
        assert_int_equal(hw_sim_errors(sim), 2); /* 0x1CF and 0x1D0 as bytes: not decoded */
        assert_int_equal(hw_sim_set_dispi_mode(sim, 800, 600, 32), -EOPNOTSUPP);
        assert_int_equal(hw_sim_device(sim)->device_id, 0x27ae);
        assert_ptr_equal(hw->device, hw_sim_device(sim));
}

static void test_forbid(void **state)
{
        Fixture *f = *state;
        HwSimVgaState *before = NULL;
        uint8_t buf[4];
        uint32_t v32;

        hw_sim_load_mode3(f->sim);
        assert_int_equal(hw_sim_snapshot(f->sim, &before), 0);
        hw_sim_set_forbid(f->sim, true);

        assert_int_equal(hw_outb(f->hw, 0x3C2, 0x00), -EPERM);
        assert_int_equal(hw_inb(f->hw, 0x3CC, buf), -EPERM);
        assert_int_equal(hw_vga_mem_write(f->hw, 0x18000, "xx", 2), -EPERM);
        assert_int_equal(hw_vga_mem_read(f->hw, 0, buf, 4), -EPERM);
        assert_int_equal(hw_cfg_read(f->hw, 0, buf, 4), -EPERM);
        assert_int_equal(hw_cfg_write(f->hw, 0x40, buf, 4), -EPERM);
        assert_int_equal(hw_mmio_read32(f->hw, 2, 0, &v32), -EPERM);
        assert_int_equal(hw_mmio_write32(f->hw, 2, 0, 1), -EPERM);
        assert_int_equal(hw_rom_read(f->hw, buf, 4), -EPERM);
        assert_int_equal(hw_vga_lock(f->hw), -EPERM);
        assert_int_equal(hw_vga_unlock(f->hw), -EPERM);
        hw_delay_us(f->hw, 10); /* not an access */

        assert_int_equal(hw_sim_violations(f->sim), 11);
        assert_int_equal(hw_sim_access_count(f->sim), 11);
        assert_int_equal(hw_sim_state_diff(before, hw_sim_state(f->sim), HW_SIM_DIFF_INDEXES, NULL), 0);

        size_t n;
        const HwSimAccess *log = hw_sim_log(f->sim, &n);
        assert_int_equal(n, 12);
        assert_true(log[0].forbidden);
        assert_false(log[11].forbidden);
        assert_int_equal(log[11].type, HW_SIM_DELAY);

        hw_sim_set_forbid(f->sim, false);
        assert_int_equal(hw_outb(f->hw, 0x3C2, 0x67), 0);
        assert_int_equal(hw_sim_violations(f->sim), 11);
        free(before);
}

static void test_log(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer text = { 0 };
        const HwSimAccess *log;
        uint8_t buf[16];
        size_t n;

        hw_sim_load_mode3(f->sim);
        write_idx(f->hw, 0x3C4, 0x00, 0x01);
        write_idx(f->hw, 0x3C4, 0x01, 0x20);
        (void)inb(f->hw, 0x3DA);
        assert_int_equal(hw_vga_mem_read(f->hw, 0x18000, buf, sizeof(buf)), 0);
        assert_int_equal(hw_cfg_read(f->hw, 0, buf, 2), 0);
        hw_delay_us(f->hw, 150);

        log = hw_sim_log(f->sim, &n);
        assert_int_equal(n, 8);
        assert_int_equal(log[0].type, HW_SIM_IO_WRITE);
        assert_int_equal(log[0].port, 0x3C4);
        assert_int_equal(log[0].width, 1);
        assert_int_equal(log[0].reg, -1);
        assert_int_equal(log[1].port, 0x3C5);
        assert_int_equal(log[1].reg, 0x00);
        assert_int_equal(log[1].value, 0x01);
        assert_int_equal(log[1].sr00, 0x03); /* state before the write */
        assert_int_equal(log[3].reg, 0x01);
        assert_int_equal(log[3].sr00, 0x01); /* inside the reset */
        assert_int_equal(log[4].type, HW_SIM_IO_READ);
        assert_int_equal(log[4].port, 0x3DA);
        assert_int_equal(log[5].type, HW_SIM_MEM_READ);
        assert_int_equal(log[5].offset, 0x18000);
        assert_int_equal(log[5].len, 16);
        assert_int_equal(log[5].sr01 & 0x20, 0x20);
        assert_int_equal(log[6].type, HW_SIM_CFG_READ);
        assert_int_equal(log[7].type, HW_SIM_DELAY);
        assert_int_equal(log[7].value, 150);

        assert_int_equal(hw_sim_access_count(f->sim), 7);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_IO_WRITE), 4);
        assert_int_equal(hw_sim_count_port(f->sim, 0x3C5, true), 2);
        assert_int_equal(hw_sim_count_port(f->sim, 0x3DA, false), 1);
        assert_int_equal(hw_sim_delay_total_us(f->sim), 150);

        assert_int_equal(hw_sim_log_format(f->sim, &text), 0);
        assert_non_null(strstr(buffer_str(&text), "io write 0x3c5/1 = 0x01 [reg 0x00]"));
        assert_non_null(strstr(buffer_str(&text), "mem read 0x18000 +16"));

        hw_sim_log_clear(f->sim);
        assert_int_equal(hw_sim_access_count(f->sim), 0);
        (void)hw_sim_log(f->sim, &n);
        assert_int_equal(n, 0);
}

static void test_cfg(void **state)
{
        Fixture *f = *state;
        uint8_t b[4];
        uint32_t v;

        assert_int_equal(hw_cfg_read(f->hw, 0, b, 4), 0);
        assert_int_equal(read_le16(b), 0x1234);
        assert_int_equal(read_le16(b + 2), 0x1111);
        assert_int_equal(hw_cfg_read(f->hw, 0x08, b, 4), 0);
        assert_int_equal(read_le32(b) >> 8, 0x030000);

        /* The IDs are read-only, device-specific space is writable. */
        assert_int_equal(hw_cfg_write(f->hw, 0, "\xff\xff", 2), 0);
        assert_int_equal(hw_cfg_read(f->hw, 0, b, 2), 0);
        assert_int_equal(read_le16(b), 0x1234);
        assert_int_equal(hw_cfg_write(f->hw, 0xF4, "\x5a", 1), 0);
        assert_int_equal(hw_sim_cfg(f->sim)[0xF4], 0x5A);

        /* BAR sizing: all ones reads back the size mask. */
        assert_int_equal(hw_cfg_write(f->hw, 0x10, "\xff\xff\xff\xff", 4), 0);
        assert_int_equal(hw_cfg_read(f->hw, 0x10, b, 4), 0);
        v = read_le32(b);
        assert_int_equal(v, 0xFF000008);
        assert_int_equal(hw_cfg_write(f->hw, 0x18, "\xff\xff\xff\xff", 4), 0);
        assert_int_equal(hw_cfg_read(f->hw, 0x18, b, 4), 0);
        assert_int_equal(read_le32(b), 0xFFF80000);

        /* Beyond the conventional 256 bytes. */
        assert_int_equal(hw_cfg_read(f->hw, 0x100, b, 4), -EIO);
        assert_int_equal(hw_cfg_read(f->hw, 0xFE, b, 4), -EIO);

        hw_sim_cfg_wmask(f->sim)[0x00] = 0xFF;
        assert_int_equal(hw_cfg_write(f->hw, 0, "\x78", 1), 0);
        assert_int_equal(hw_sim_cfg(f->sim)[0], 0x78);
}

static int mmio_hook(HwSim *sim, bool write, uint32_t offset, uint32_t *value, void *userdata)
{
        unsigned *calls = userdata;
        (void)sim;
        (*calls)++;
        if (offset == 0x61200 && !write) { /* a status register that reads "ready" */
                *value = 0x80000000;
                return 1;
        }
        if (offset == 0x100 && write)
                return -EIO;
        return 0;
}

static void test_mmio_rom(void **state)
{
        Fixture *f = *state;
        unsigned calls = 0;
        uint8_t rom[4] = { 0x55, 0xAA, 0x40, 0xE9 }, buf[8];
        uint32_t v;

        assert_int_equal(hw_mmio_write32(f->hw, 2, 0x500, 0xCAFEF00D), 0);
        assert_int_equal(hw_mmio_read32(f->hw, 2, 0x500, &v), 0);
        assert_int_equal(v, 0xCAFEF00D);
        assert_int_equal(hw_sim_mmio(f->sim)[0x500 / 4], 0xCAFEF00D);
        assert_int_equal(hw_mmio_read32(f->hw, 0, 0x500, &v), -ENXIO);
        assert_int_equal(hw_mmio_read32(f->hw, 2, HW_SIM_MMIO_SIZE, &v), -ERANGE);

        hw_sim_set_mmio_hook(f->sim, mmio_hook, &calls);
        assert_int_equal(hw_mmio_read32(f->hw, 2, 0x61200, &v), 0);
        assert_int_equal(v, 0x80000000);
        assert_int_equal(hw_mmio_write32(f->hw, 2, 0x100, 1), -EIO);
        assert_int_equal(hw_mmio_read32(f->hw, 2, 0x500, &v), 0);
        assert_int_equal(v, 0xCAFEF00D);
        assert_int_equal(calls, 3);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_MMIO_READ), 5);

        assert_int_equal(hw_rom_read(f->hw, buf, sizeof(buf)), -ENOENT);
        assert_int_equal(hw_sim_set_rom(f->sim, rom, sizeof(rom)), 0);
        assert_int_equal(hw_rom_read(f->hw, buf, sizeof(buf)), 4);
        assert_memory_equal(buf, rom, 4);
}

static void test_refcount_and_open(void **state)
{
        HwSim *sim = NULL;
        Hw *hw1 = NULL, *hw2 = NULL, *hw3 = NULL;
        DisplayDevice d;

        (void)state;
        assert_int_equal(hw_sim_new(NULL, &sim, &hw1), 0);
        assert_int_equal(hw_sim_open(sim, &hw2), 0);
        assert_ptr_equal(hw_sim_from_hw(hw2), sim);

        d = *hw_sim_device(sim);
        assert_int_equal(hw_sim_open_func(&d, sim, &hw3), 0);
        hw3 = hw_free(hw3);
        d.verdict = VERDICT_KMS;
        assert_int_equal(hw_sim_open_func(&d, sim, &hw3), -EPERM);
        assert_null(hw3);
        d.verdict = VERDICT_UMS;
        strcpy(d.slot, "0000:01:00.0");
        assert_int_equal(hw_sim_open_func(&d, sim, &hw3), -ENODEV);

        /* The simulator outlives its creator's reference while handles exist. */
        sim = hw_sim_unref(sim);
        assert_int_equal(hw_outb(hw1, 0x3C2, 0x67), 0);
        hw1 = hw_free(hw1);
        assert_int_equal(hw_outb(hw2, 0x3C2, 0x66), 0);
        hw2 = hw_free(hw2);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_index_data, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mono_colour_ports, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cr11_protect, setup, teardown),
                cmocka_unit_test_setup_teardown(test_attribute_flipflop, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dac, setup, teardown),
                cmocka_unit_test_setup_teardown(test_text_odd_even, setup, teardown),
                cmocka_unit_test_setup_teardown(test_memory_windows, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_read_modes, setup, teardown),
                cmocka_unit_test_setup_teardown(test_wake, setup, teardown),
                cmocka_unit_test_setup_teardown(test_display_live, setup, teardown),
                cmocka_unit_test_setup_teardown(test_snapshot_diff, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dispi, setup, teardown),
                cmocka_unit_test(test_dispi_absent_on_other_devices),
                cmocka_unit_test_setup_teardown(test_forbid, setup, teardown),
                cmocka_unit_test_setup_teardown(test_log, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cfg, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mmio_rom, setup, teardown),
                cmocka_unit_test(test_refcount_and_open),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
