/* SPDX-License-Identifier: MIT */
/* Unit tests for the pci-config method on a fake backend (256 bytes of config space and a
 * log of every access): round trip, minimal and ordered writes, LBB by ID, bad payloads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "methods/pci-config.h"

/* ---- the fake device ------------------------------------------------------------ */

#define LOG_MAX 64

typedef struct Access {
        uint32_t offset;
        size_t len;
        uint32_t value; /* little-endian value written (writes only, len <= 4) */
} Access;

typedef struct FakeCfg {
        uint8_t cfg[256];
        Access writes[LOG_MAX];
        size_t n_writes;
        Access reads[LOG_MAX];
        size_t n_reads;
        int fail_reads, fail_writes; /* negative errno to return, or 0 */
} FakeCfg;

static int fake_cfg_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        FakeCfg *f = hw->userdata;

        assert_true(offset + len <= sizeof(f->cfg));
        assert_true(f->n_reads < LOG_MAX);
        f->reads[f->n_reads++] = (Access){ .offset = offset, .len = len };
        if (f->fail_reads)
                return f->fail_reads;
        memcpy(buf, f->cfg + offset, len);
        return 0;
}

static int fake_cfg_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        FakeCfg *f = hw->userdata;
        const uint8_t *b = buf;
        uint32_t v = 0;

        assert_true(offset + len <= sizeof(f->cfg));
        assert_true(len == 1 || len == 2 || len == 4);
        assert_true(f->n_writes < LOG_MAX);
        for (size_t i = 0; i < len; i++)
                v |= (uint32_t)b[i] << (8 * i);
        f->writes[f->n_writes++] = (Access){ .offset = offset, .len = len, .value = v };
        if (f->fail_writes)
                return f->fail_writes;
        memcpy(f->cfg + offset, buf, len);
        return 0;
}

/* Everything except config space is off limits for this method. */
static int no_io_read(Hw *hw, uint16_t port, unsigned width, uint32_t *ret)
{
        fail_msg("pci-config read port 0x%x", port);
        return -EIO;
}
static int no_io_write(Hw *hw, uint16_t port, unsigned width, uint32_t value)
{
        fail_msg("pci-config wrote port 0x%x", port);
        return -EIO;
}
static int no_mem_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        fail_msg("pci-config read VGA memory");
        return -EIO;
}
static int no_mem_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        fail_msg("pci-config wrote VGA memory");
        return -EIO;
}
static int no_mmio_read(Hw *hw, unsigned bar, uint32_t offset, uint32_t *ret)
{
        fail_msg("pci-config read MMIO");
        return -EIO;
}
static int no_mmio_write(Hw *hw, unsigned bar, uint32_t offset, uint32_t value)
{
        fail_msg("pci-config wrote MMIO");
        return -EIO;
}
static int no_rom_read(Hw *hw, void *buf, size_t len)
{
        fail_msg("pci-config read the ROM");
        return -EIO;
}
static void no_delay(Hw *hw, unsigned usec)
{
        fail_msg("pci-config waited");
}
static int no_vga_lock(Hw *hw)
{
        fail_msg("pci-config took the VGA arbiter");
        return -EIO;
}
static void no_free(Hw *hw)
{
        fail_msg("pci-config freed the Hw");
}

static const HwOps fake_ops = {
        .name = "fake-cfg",
        .io_read = no_io_read,
        .io_write = no_io_write,
        .vga_mem_read = no_mem_read,
        .vga_mem_write = no_mem_write,
        .cfg_read = fake_cfg_read,
        .cfg_write = fake_cfg_write,
        .mmio_read32 = no_mmio_read,
        .mmio_write32 = no_mmio_write,
        .rom_read = no_rom_read,
        .delay_us = no_delay,
        .vga_lock = no_vga_lock,
        .vga_unlock = no_vga_lock,
        .free = no_free,
};

static void put16(uint8_t *c, unsigned off, uint16_t v)
{
        c[off] = v & 0xff;
        c[off + 1] = v >> 8;
}

static void put32(uint8_t *c, unsigned off, uint32_t v)
{
        put16(c, off, v & 0xffff);
        put16(c, off + 2, v >> 16);
}

static uint32_t get32(const uint8_t *c, unsigned off)
{
        return read_le32(c + off);
}

/* A 945GSE-like header (MSI Wind), with the given IDs. */
static void fake_init(FakeCfg *f, uint16_t vendor, uint16_t device)
{
        *f = (FakeCfg){ 0 };
        put16(f->cfg, 0x00, vendor);
        put16(f->cfg, 0x02, device);
        put16(f->cfg, 0x04, 0x0007);     /* I/O, memory, bus master */
        put16(f->cfg, 0x06, 0x0090);     /* status: capabilities, fast b2b */
        put32(f->cfg, 0x08, 0x03000003); /* class 0x030000, revision 3 */
        f->cfg[0x0c] = 0x08;             /* cache line */
        f->cfg[0x0d] = 0x20;             /* latency */
        f->cfg[0x0e] = 0x80;             /* header type 0, multi-function */
        put32(f->cfg, 0x10, 0xfeb80000); /* BAR0 MMIO */
        put32(f->cfg, 0x14, 0x0000ec01); /* BAR1 I/O */
        put32(f->cfg, 0x18, 0xd0000008); /* BAR2 aperture, prefetchable */
        put32(f->cfg, 0x1c, 0xfec00000); /* BAR3 GTT */
        put16(f->cfg, 0x2c, 0x1462);
        put16(f->cfg, 0x2e, 0x0110);
        put32(f->cfg, 0x30, 0xfea00000); /* ROM BAR, disabled */
        f->cfg[0x34] = 0x90;             /* capabilities pointer */
        f->cfg[0x3c] = 0x0b;             /* interrupt line */
        f->cfg[0x3d] = 0x01;             /* interrupt pin A */
        f->cfg[0xf4] = 0xc8;             /* LBB */
}

static void fake_clear_log(FakeCfg *f)
{
        f->n_writes = f->n_reads = 0;
}

static DisplayDevice fake_device(const FakeCfg *f)
{
        DisplayDevice d = { 0 };

        snprintf(d.slot, sizeof(d.slot), "0000:00:02.0");
        d.vendor_id = read_le16(f->cfg + 0);
        d.device_id = read_le16(f->cfg + 2);
        d.class_code = 0x030000;
        d.verdict = VERDICT_UMS;
        return d;
}

#define FAKE_HW(name, fake) Hw name = { .ops = &fake_ops, .userdata = (fake) }

static const MethodOps *const m = &method_pci_config;

/* Saves the fake into a fresh buffer. */
static void save_into(Hw *hw, FakeCfg *f, Buffer *out)
{
        DisplayDevice d = fake_device(f);
        *out = (Buffer){ 0 };
        assert_int_equal(m->save(hw, &d, out), 0);
        assert_int_equal(m->check(out->data, out->size), 0);
}

/* A wake without video re-POST: decoding off, BARs, ROM BAR, knobs and LBB lost; the
 * status register also changes (read-only: not ours to restore). */
static void clobber_like_wake(FakeCfg *f)
{
        put16(f->cfg, 0x04, 0x0000);
        put16(f->cfg, 0x06, 0x0010);
        for (unsigned off = 0x10; off <= 0x24; off += 4)
                put32(f->cfg, off, 0);
        put32(f->cfg, 0x30, 0);
        f->cfg[0x0c] = 0;
        f->cfg[0x0d] = 0;
        f->cfg[0x3c] = 0xff;
        f->cfg[0xf4] = 0x00;
}

static size_t find_write(const FakeCfg *f, uint32_t offset)
{
        for (size_t i = 0; i < f->n_writes; i++)
                if (f->writes[i].offset == offset)
                        return i;
        return SIZE_MAX;
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_identity(void **state)
{
        (void)state;
        assert_string_equal(m->name, "pci-config");
        assert_int_equal(m->id, 2);
        assert_int_equal(m->version, 1);
}

static void test_probe(void **state)
{
        FakeCfg f;
        FAKE_HW(hw, &f);
        DisplayDevice d;
        (void)state;

        fake_init(&f, 0x8086, 0x27ae);
        d = fake_device(&f);
        d.verdict = VERDICT_UMS;
        assert_true(m->probe(&hw, &d) > 0);
        d.verdict = VERDICT_FIRMWARE;
        assert_true(m->probe(&hw, &d) > 0);
        d.verdict = VERDICT_KMS;
        assert_int_equal(m->probe(&hw, &d), 0);
        d.verdict = VERDICT_FOREIGN;
        assert_int_equal(m->probe(&hw, &d), 0);
        assert_int_equal(f.n_writes, 0);
}

static void test_round_trip(void **state)
{
        FakeCfg f, orig;
        FAKE_HW(hw, &f);
        DisplayDevice d;
        Buffer p;
        size_t cmd;
        (void)state;

        fake_init(&f, 0x8086, 0x27ae);
        orig = f;
        d = fake_device(&f);
        save_into(&hw, &f, &p);
        assert_int_equal(f.n_writes, 0);
        assert_int_equal(p.size, 1 + 64 + 1);
        assert_int_equal(p.data[0], PCI_CONFIG_FLAG_LBB);
        assert_memory_equal(p.data + 1, orig.cfg, 64);
        assert_int_equal(p.data[65], 0xc8);

        clobber_like_wake(&f);
        fake_clear_log(&f);
        /* BAR0-3, ROM BAR, cache line, latency, interrupt line, LBB, command. */
        assert_int_equal(m->restore(&hw, &d, p.data, p.size), 10);

        /* Every writable field is back. */
        assert_memory_equal(f.cfg + 0x10, orig.cfg + 0x10, 0x24 + 4 - 0x10);
        assert_int_equal(read_le16(f.cfg + 0x04), 0x0007);
        assert_int_equal(get32(f.cfg, 0x30), 0xfea00000);
        assert_int_equal(f.cfg[0x0c], 0x08);
        assert_int_equal(f.cfg[0x0d], 0x20);
        assert_int_equal(f.cfg[0x3c], 0x0b);
        assert_int_equal(f.cfg[0xf4], 0xc8);
        /* ...and the read-only status was left as the hardware has it. */
        assert_int_equal(read_le16(f.cfg + 0x06), 0x0010);

        /* Exactly the differing fields, with the right widths; BAR4/5 were already 0. */
        assert_int_equal(f.n_writes, 10);
        assert_true(find_write(&f, 0x20) == SIZE_MAX);
        assert_true(find_write(&f, 0x24) == SIZE_MAX);
        assert_int_equal(f.writes[find_write(&f, 0x10)].len, 4);
        assert_int_equal(f.writes[find_write(&f, 0x10)].value, 0xfeb80000);
        assert_int_equal(f.writes[find_write(&f, 0x0c)].len, 1);
        assert_int_equal(f.writes[find_write(&f, 0xf4)].len, 1);
        assert_int_equal(f.writes[find_write(&f, 0xf4)].value, 0xc8);

        /* The command register is written last, with 16 bits, after every BAR. */
        cmd = find_write(&f, 0x04);
        assert_int_equal(cmd, f.n_writes - 1);
        assert_int_equal(f.writes[cmd].len, 2);
        assert_int_equal(f.writes[cmd].value, 0x0007);
        for (unsigned off = 0x10; off <= 0x1c; off += 4)
                assert_true(find_write(&f, off) < cmd);
        assert_true(find_write(&f, 0x30) < cmd);

        /* Nothing outside the writable set was touched. */
        for (size_t i = 0; i < f.n_writes; i++) {
                uint32_t o = f.writes[i].offset;
                assert_true(o == 0x04 || (o >= 0x10 && o <= 0x24) || o == 0x0c || o == 0x0d || o == 0x3c ||
                            o == 0x30 || o == 0xf4);
        }

        /* Restoring again writes nothing, and verify is clean. */
        fake_clear_log(&f);
        assert_int_equal(m->restore(&hw, &d, p.data, p.size), 0);
        assert_int_equal(f.n_writes, 0);
        assert_int_equal(m->verify(&hw, &d, p.data, p.size, NULL), 0);
        assert_int_equal(f.n_writes, 0);
        buffer_done(&p);
}

static void test_only_differing_written(void **state)
{
        FakeCfg f;
        FAKE_HW(hw, &f);
        DisplayDevice d;
        Buffer p;
        (void)state;

        fake_init(&f, 0x8086, 0x27ae);
        d = fake_device(&f);
        save_into(&hw, &f, &p);

        put16(f.cfg, 0x04, 0x0003); /* bus master lost */
        fake_clear_log(&f);
        assert_int_equal(m->restore(&hw, &d, p.data, p.size), 1);
        assert_int_equal(f.n_writes, 1);
        assert_int_equal(f.writes[0].offset, 0x04);
        assert_int_equal(f.writes[0].len, 2);
        assert_int_equal(f.writes[0].value, 0x0007);

        put32(f.cfg, 0x18, 0); /* one BAR lost */
        f.cfg[0xf4] = 0x10;    /* and the brightness */
        fake_clear_log(&f);
        assert_int_equal(m->restore(&hw, &d, p.data, p.size), 2);
        assert_int_equal(f.n_writes, 2);
        assert_int_equal(f.writes[0].offset, 0x18);
        assert_int_equal(f.writes[0].value, 0xd0000008);
        assert_int_equal(f.writes[1].offset, 0xf4);
        assert_int_equal(f.writes[1].value, 0xc8);
        buffer_done(&p);
}

static void test_read_only_never_written(void **state)
{
        FakeCfg f, before;
        FAKE_HW(hw, &f);
        DisplayDevice d;
        Buffer p;
        uint8_t *h;
        (void)state;

        fake_init(&f, 0x8086, 0x27ae);
        d = fake_device(&f);
        save_into(&hw, &f, &p);

        /* A payload whose read-only fields all differ from the device (still a plausible
         * header of the same device). Restore must not write any of them. */
        h = p.data + 1;
        put16(h, 0x06, 0xffff);     /* status */
        h[0x08] = 0x7f;             /* revision */
        h[0x09] = 0x01;             /* class */
        h[0x0a] = 0x80;
        h[0x0b] = 0x04;
        h[0x0e] = 0x00;             /* header type: single function */
        h[0x0f] = 0x40;             /* BIST */
        put32(h, 0x28, 0x12345678); /* CardBus CIS */
        put16(h, 0x2c, 0xdead);     /* subsystem */
        put16(h, 0x2e, 0xbeef);
        h[0x34] = 0x40; /* capabilities pointer */
        h[0x3d] = 0x04; /* interrupt pin */
        h[0x3e] = 0xff; /* min grant */
        h[0x3f] = 0xff; /* max latency */
        assert_int_equal(m->check(p.data, p.size), 0);

        before = f;
        fake_clear_log(&f);
        assert_int_equal(m->restore(&hw, &d, p.data, p.size), 0);
        assert_int_equal(f.n_writes, 0);
        assert_memory_equal(f.cfg, before.cfg, sizeof(f.cfg));
        /* ...and verify does not count them as mismatches either. */
        assert_int_equal(m->verify(&hw, &d, p.data, p.size, NULL), 0);

        /* Even when the writable fields do need writing, none of the others are. */
        clobber_like_wake(&f);
        fake_clear_log(&f);
        assert_true(m->restore(&hw, &d, p.data, p.size) > 0);
        for (size_t i = 0; i < f.n_writes; i++) {
                uint32_t o = f.writes[i].offset;
                assert_false(o == 0x00 || o == 0x02 || o == 0x06 || o == 0x08 || o == 0x0e || o == 0x0f ||
                             o == 0x28 || o == 0x2c || o == 0x2e || o == 0x34 || o == 0x3d || o == 0x3e);
        }
        assert_int_equal(read_le16(f.cfg + 0x2c), 0x1462);
        assert_int_equal(f.cfg[0x3d], 0x01);
        assert_int_equal(f.cfg[0x0e], 0x80);

        /* A payload of another device at this slot: nothing written at all. */
        put16(h, 0x02, 0x2a42);
        clobber_like_wake(&f);
        fake_clear_log(&f);
        assert_int_equal(m->restore(&hw, &d, p.data, p.size), -ENODEV);
        assert_int_equal(f.n_writes, 0);
        assert_int_equal(m->verify(&hw, &d, p.data, p.size, NULL), -ENODEV);
        buffer_done(&p);
}

static bool read_at(const FakeCfg *f, uint32_t offset)
{
        for (size_t i = 0; i < f->n_reads; i++)
                if (offset >= f->reads[i].offset && offset < f->reads[i].offset + f->reads[i].len)
                        return true;
        return false;
}

/* Save/clobber/restore for one ID: returns whether LBB was saved and restored. */
static bool lbb_handled(uint16_t vendor, uint16_t device)
{
        FakeCfg f;
        FAKE_HW(hw, &f);
        DisplayDevice d;
        Buffer p;
        bool saved;

        fake_init(&f, vendor, device);
        d = fake_device(&f);
        save_into(&hw, &f, &p);
        saved = p.data[0] & PCI_CONFIG_FLAG_LBB;
        assert_int_equal(p.size, saved ? 66 : 65);
        assert_int_equal(read_at(&f, 0xf4), saved);

        clobber_like_wake(&f);
        fake_clear_log(&f);
        assert_true(m->restore(&hw, &d, p.data, p.size) > 0);
        assert_int_equal(find_write(&f, 0xf4) != SIZE_MAX, saved);
        assert_int_equal(read_at(&f, 0xf4), saved);
        assert_int_equal(f.cfg[0xf4], saved ? 0xc8 : 0x00);
        buffer_done(&p);
        return saved;
}

static void test_lbb_by_id(void **state)
{
        (void)state;
        /* On the list: 945GSE, 830M (Gen2), Pineview M, GM45, Ironlake mobile. */
        assert_true(lbb_handled(0x8086, 0x27ae));
        assert_true(lbb_handled(0x8086, 0x3577));
        assert_true(lbb_handled(0x8086, 0xa011));
        assert_true(lbb_handled(0x8086, 0x2a42));
        assert_true(lbb_handled(0x8086, 0x0046));
        /* Intel, not on the list: HD 4000 (Gen7), 0x2e92 (absent from 2.6.33), a 945 secondary function. */
        assert_false(lbb_handled(0x8086, 0x0166));
        assert_false(lbb_handled(0x8086, 0x2e92));
        assert_false(lbb_handled(0x8086, 0x27a6));
        /* Not Intel, even with an ID from the list. */
        assert_false(lbb_handled(0x1234, 0x1111));
        assert_false(lbb_handled(0x1002, 0x27ae));

        assert_true(pci_config_has_lbb(0x8086, 0x2562));
        assert_false(pci_config_has_lbb(0x8086, 0x0000));
}

/* Runs a payload that must be refused through check, restore, verify and dump. */
static void assert_refused(const uint8_t *payload, size_t len)
{
        FakeCfg f;
        FAKE_HW(hw, &f);
        DisplayDevice d;
        Buffer out = { 0 };

        fake_init(&f, 0x8086, 0x27ae);
        clobber_like_wake(&f);
        d = fake_device(&f);
        assert_int_equal(m->check(payload, len), -EBADMSG);
        assert_int_equal(m->restore(&hw, &d, payload, len), -EBADMSG);
        assert_int_equal(m->verify(&hw, &d, payload, len, NULL), -EBADMSG);
        assert_int_equal(f.n_reads, 0);
        assert_int_equal(f.n_writes, 0);
        assert_int_equal(m->dump(payload, len, false, &out), -EBADMSG);
        assert_int_equal(out.size, 0);
        buffer_done(&out);
}

static void test_malformed(void **state)
{
        FakeCfg f;
        FAKE_HW(hw, &f);
        Buffer intel, plain;
        uint8_t bad[80];
        (void)state;

        fake_init(&f, 0x8086, 0x27ae);
        save_into(&hw, &f, &intel);
        fake_init(&f, 0x1234, 0x1111);
        save_into(&hw, &f, &plain);
        assert_int_equal(intel.size, 66);
        assert_int_equal(plain.size, 65);

        /* Truncated. */
        assert_refused(intel.data, 0);
        assert_refused(intel.data, 1);
        assert_refused(intel.data, 64);
        assert_refused(intel.data, 65); /* LBB flag, LBB byte missing */
        assert_refused(plain.data, 64);
        assert_refused(NULL, 66);

        /* One byte too many. */
        memset(bad, 0, sizeof(bad));
        memcpy(bad, plain.data, plain.size);
        assert_refused(bad, 66);
        memcpy(bad, intel.data, intel.size);
        assert_refused(bad, 67);

        /* Unknown flags. */
        memcpy(bad, plain.data, plain.size);
        bad[0] = 0x02;
        assert_refused(bad, 65);
        bad[0] = 0x80;
        assert_refused(bad, 65);
        memcpy(bad, intel.data, intel.size);
        bad[0] |= 0x10;
        assert_refused(bad, 66);

        /* LBB claimed by a device that has none. */
        memcpy(bad, plain.data, plain.size);
        bad[0] = PCI_CONFIG_FLAG_LBB;
        bad[65] = 0xc8;
        assert_refused(bad, 66);

        /* Implausible headers: no device, a bridge, a CardBus bridge. */
        memcpy(bad, plain.data, plain.size);
        put16(bad + 1, 0x00, 0xffff);
        assert_refused(bad, 65);
        put16(bad + 1, 0x00, 0x0000);
        assert_refused(bad, 65);
        memcpy(bad, plain.data, plain.size);
        bad[1 + 0x0e] = 0x01;
        assert_refused(bad, 65);
        bad[1 + 0x0e] = 0x82;
        assert_refused(bad, 65);

        /* The untouched payloads are accepted (the refusals above are not blanket). */
        assert_int_equal(m->check(intel.data, intel.size), 0);
        assert_int_equal(m->check(plain.data, plain.size), 0);
        buffer_done(&intel);
        buffer_done(&plain);
}

static void test_verify_counts(void **state)
{
        FakeCfg f;
        FAKE_HW(hw, &f);
        DisplayDevice d;
        Buffer p, report = { 0 };
        const char *s;
        (void)state;

        fake_init(&f, 0x8086, 0x27ae);
        d = fake_device(&f);
        save_into(&hw, &f, &p);

        assert_int_equal(m->verify(&hw, &d, p.data, p.size, &report), 0);
        assert_int_equal(report.size, 0);

        /* Command, BAR0-3, ROM BAR, cache line, latency, interrupt line, LBB; not status. */
        clobber_like_wake(&f);
        fake_clear_log(&f);
        assert_int_equal(m->verify(&hw, &d, p.data, p.size, &report), 10);
        assert_int_equal(f.n_writes, 0);
        s = buffer_str(&report);
        assert_non_null(strstr(s, "config[0x04] = 0x0000, expected 0x0007\n"));
        assert_non_null(strstr(s, "config[0x10] = 0x00000000, expected 0xfeb80000\n"));
        assert_non_null(strstr(s, "config[0x14] = 0x00000000, expected 0x0000ec01\n"));
        assert_non_null(strstr(s, "config[0x30] = 0x00000000, expected 0xfea00000\n"));
        assert_non_null(strstr(s, "config[0x0c] = 0x00, expected 0x08\n"));
        assert_non_null(strstr(s, "config[0x3c] = 0xff, expected 0x0b\n"));
        assert_non_null(strstr(s, "config[0xf4] = 0x00, expected 0xc8\n"));
        assert_null(strstr(s, "config[0x06]"));
        assert_null(strstr(s, "config[0x20]"));
        /* Command first: the report follows the header's order. */
        assert_ptr_equal(strstr(s, "config[0x04]"), s);

        /* Without a report buffer it still counts. */
        assert_int_equal(m->verify(&hw, &d, p.data, p.size, NULL), 10);

        /* After a restore, nothing is left to report. */
        assert_true(m->restore(&hw, &d, p.data, p.size) > 0);
        buffer_done(&report);
        assert_int_equal(m->verify(&hw, &d, p.data, p.size, &report), 0);
        assert_int_equal(report.size, 0);

        /* Reads that fail are errors, not zero mismatches. */
        f.fail_reads = -EIO;
        assert_int_equal(m->verify(&hw, &d, p.data, p.size, &report), -EIO);
        buffer_done(&report);
        buffer_done(&p);
}

static void test_dump(void **state)
{
        FakeCfg f;
        FAKE_HW(hw, &f);
        Buffer p, out = { 0 };
        const char *s;
        (void)state;

        fake_init(&f, 0x8086, 0x27ae);
        save_into(&hw, &f, &p);

        assert_int_equal(m->dump(p.data, p.size, false, &out), 0);
        s = buffer_str(&out);
        assert_non_null(strstr(s, "vendor: 0x8086\n"));
        assert_non_null(strstr(s, "device: 0x27ae\n"));
        assert_non_null(strstr(s, "command: 0x0007\n"));
        assert_non_null(strstr(s, "status: 0x0090\n"));
        assert_non_null(strstr(s, "revision: 0x03\n"));
        assert_non_null(strstr(s, "class: 0x030000\n"));
        assert_non_null(strstr(s, "cache line: 0x08\n"));
        assert_non_null(strstr(s, "latency: 0x20\n"));
        assert_non_null(strstr(s, "header type: 0x80\n"));
        assert_non_null(strstr(s, "BAR0: 0xfeb80000\n"));
        assert_non_null(strstr(s, "BAR1: 0x0000ec01\n"));
        assert_non_null(strstr(s, "BAR5: 0x00000000\n"));
        assert_non_null(strstr(s, "subsystem vendor: 0x1462\n"));
        assert_non_null(strstr(s, "subsystem device: 0x0110\n"));
        assert_non_null(strstr(s, "ROM BAR: 0xfea00000\n"));
        assert_non_null(strstr(s, "interrupt line: 0x0b\n"));
        assert_non_null(strstr(s, "interrupt pin: 0x01\n"));
        assert_non_null(strstr(s, "LBB: 0xc8\n"));
        buffer_done(&out);

        assert_int_equal(m->dump(p.data, p.size, true, &out), 0);
        s = buffer_str(&out);
        assert_int_equal(s[0], '{');
        assert_int_equal(s[strlen(s) - 1], '}');
        assert_non_null(strstr(s, "{\"vendor\": 32902, \"device\": 10158, \"command\": 7, "));
        assert_non_null(strstr(s, "\"class\": 196608"));
        assert_non_null(strstr(s, "\"bar0\": 4273471488"));
        assert_non_null(strstr(s, "\"interrupt_pin\": 1"));
        assert_non_null(strstr(s, ", \"lbb\": 200}"));
        assert_null(strchr(s, '\n'));
        buffer_done(&out);
        buffer_done(&p);

        /* No LBB line for a device without one. */
        fake_init(&f, 0x1234, 0x1111);
        save_into(&hw, &f, &p);
        assert_int_equal(m->dump(p.data, p.size, false, &out), 0);
        assert_non_null(strstr(buffer_str(&out), "vendor: 0x1234\n"));
        assert_null(strstr(buffer_str(&out), "LBB"));
        buffer_done(&out);
        assert_int_equal(m->dump(p.data, p.size, true, &out), 0);
        assert_null(strstr(buffer_str(&out), "lbb"));
        buffer_done(&out);
        buffer_done(&p);
}

static void test_save_errors(void **state)
{
        FakeCfg f;
        FAKE_HW(hw, &f);
        DisplayDevice d;
        Buffer out = { 0 };
        (void)state;

        assert_int_equal(buffer_append(&out, "xy", 2), 0);

        fake_init(&f, 0x8086, 0x27ae);
        d = fake_device(&f);
        f.fail_reads = -EACCES;
        assert_int_equal(m->save(&hw, &d, &out), -EACCES);
        assert_int_equal(out.size, 2);

        /* Nothing answers at the slot (all ones). */
        f.fail_reads = 0;
        memset(f.cfg, 0xff, sizeof(f.cfg));
        assert_int_equal(m->save(&hw, &d, &out), -ENODEV);
        assert_int_equal(out.size, 2);

        /* A bridge is not ours. */
        fake_init(&f, 0x8086, 0x27ae);
        f.cfg[0x0e] = 0x01;
        assert_int_equal(m->save(&hw, &d, &out), -EOPNOTSUPP);
        assert_int_equal(out.size, 2);
        assert_int_equal(f.n_writes, 0);

        /* A save appends after what the buffer holds. */
        fake_init(&f, 0x8086, 0x27ae);
        assert_int_equal(m->save(&hw, &d, &out), 0);
        assert_int_equal(out.size, 2 + 66);
        assert_memory_equal(out.data, "xy", 2);
        assert_int_equal(m->check(out.data + 2, out.size - 2), 0);
        buffer_done(&out);
}

static void test_restore_write_error(void **state)
{
        FakeCfg f;
        FAKE_HW(hw, &f);
        DisplayDevice d;
        Buffer p;
        (void)state;

        fake_init(&f, 0x8086, 0x27ae);
        d = fake_device(&f);
        save_into(&hw, &f, &p);
        clobber_like_wake(&f);
        fake_clear_log(&f);
        f.fail_writes = -EIO;
        assert_int_equal(m->restore(&hw, &d, p.data, p.size), -EIO);
        /* Stopped at the first failure: the command register was never reached. */
        assert_int_equal(f.n_writes, 1);
        assert_int_equal(f.writes[0].offset, 0x10);
        buffer_done(&p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_identity),
                cmocka_unit_test(test_probe),
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_only_differing_written),
                cmocka_unit_test(test_read_only_never_written),
                cmocka_unit_test(test_lbb_by_id),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_verify_counts),
                cmocka_unit_test(test_dump),
                cmocka_unit_test(test_save_errors),
                cmocka_unit_test(test_restore_write_error),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
