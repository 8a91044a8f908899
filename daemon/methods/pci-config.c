/* SPDX-License-Identifier: MIT */
/* The pci-config method: saves the 64-byte config header (+ Intel LBB) and writes back
 * only the writable fields that changed, BARs before the command register. */
#include <inttypes.h>

#include "intel-chips.h"
#include "methods/pci-config.h"

/* Config header offsets. */
#define CFG_VENDOR 0x00u
#define CFG_DEVICE 0x02u
#define CFG_COMMAND 0x04u
#define CFG_STATUS 0x06u
#define CFG_REVISION 0x08u
#define CFG_CLASS 0x09u /* prog-if, subclass, class: 3 bytes */
#define CFG_CACHE_LINE 0x0Cu
#define CFG_LATENCY 0x0Du
#define CFG_HEADER_TYPE 0x0Eu
#define CFG_BAR0 0x10u
#define CFG_SUBSYS_VENDOR 0x2Cu
#define CFG_SUBSYS_DEVICE 0x2Eu
#define CFG_ROM_BAR 0x30u
#define CFG_INT_LINE 0x3Cu
#define CFG_INT_PIN 0x3Du

/* Payload layout (see pci-config.h). */
#define PAYLOAD_FLAGS 0u
#define PAYLOAD_HEADER 1u
#define PAYLOAD_LBB (PAYLOAD_HEADER + PCI_CONFIG_HEADER_SIZE)
#define PAYLOAD_SIZE_PLAIN (PAYLOAD_HEADER + PCI_CONFIG_HEADER_SIZE)
#define PAYLOAD_SIZE_LBB (PAYLOAD_SIZE_PLAIN + 1u)

bool pci_config_has_lbb(uint16_t vendor_id, uint16_t device_id)
{
        /* Every Intel Gen2-Gen5 integrated display device (reference, section 1: LBB). */
        return intel_chip_lookup(vendor_id, device_id) != NULL;
}

/* The fields restore may write, in the order it writes them: BARs and the ROM BAR first,
 * the small knobs next, then (not in this table) LBB, and the command register last. */
typedef struct ConfigField {
        uint8_t offset;
        uint8_t width;
} ConfigField;

static const ConfigField restore_fields[] = {
        { CFG_BAR0 + 0x00, 4 },
        { CFG_BAR0 + 0x04, 4 },
        { CFG_BAR0 + 0x08, 4 },
        { CFG_BAR0 + 0x0C, 4 },
        { CFG_BAR0 + 0x10, 4 },
        { CFG_BAR0 + 0x14, 4 },
        { CFG_ROM_BAR, 4 },
        { CFG_CACHE_LINE, 1 },
        { CFG_LATENCY, 1 },
        { CFG_INT_LINE, 1 },
};

static const ConfigField command_field = { CFG_COMMAND, 2 };

/* The same fields (with the command register) in offset order, for verify's report. */
static const ConfigField verify_fields[] = {
        { CFG_COMMAND, 2 },
        { CFG_CACHE_LINE, 1 },
        { CFG_LATENCY, 1 },
        { CFG_BAR0 + 0x00, 4 },
        { CFG_BAR0 + 0x04, 4 },
        { CFG_BAR0 + 0x08, 4 },
        { CFG_BAR0 + 0x0C, 4 },
        { CFG_BAR0 + 0x10, 4 },
        { CFG_BAR0 + 0x14, 4 },
        { CFG_ROM_BAR, 4 },
        { CFG_INT_LINE, 1 },
};

static uint32_t field_value(const uint8_t *header, ConfigField f)
{
        switch (f.width) {
        case 1:
                return header[f.offset];
        case 2:
                return read_le16(header + f.offset);
        default:
                return read_le32(header + f.offset);
        }
}

static int field_write(Hw *hw, uint32_t offset, unsigned width, uint32_t value)
{
        uint8_t b[4] = { value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, value >> 24 };
        return hw_cfg_write(hw, offset, b, width);
}

static int pci_config_probe(Hw *hw, const DisplayDevice *d)
{
        if (!d)
                return -EINVAL;
        return verdict_is_managed(d->verdict) ? 1 : 0;
}

static bool header_plausible(const uint8_t *header)
{
        uint16_t vendor = read_le16(header + CFG_VENDOR);

        if (vendor == 0x0000 || vendor == 0xffff)
                return false;
        /* Type 0 (an endpoint; bit 7 only says multi-function): the only layout with
         * BAR0-5 at 0x10-0x24 and the ROM BAR at 0x30. */
        return (header[CFG_HEADER_TYPE] & 0x7f) == 0;
}

static int pci_config_check(const uint8_t *payload, size_t len)
{
        const uint8_t *header;
        uint8_t flags;

        if (!payload || len < PAYLOAD_SIZE_PLAIN)
                return -EBADMSG;
        flags = payload[PAYLOAD_FLAGS];
        if (flags & ~PCI_CONFIG_FLAG_LBB)
                return -EBADMSG;
        if (len != ((flags & PCI_CONFIG_FLAG_LBB) ? PAYLOAD_SIZE_LBB : PAYLOAD_SIZE_PLAIN))
                return -EBADMSG;

        header = payload + PAYLOAD_HEADER;
        if (!header_plausible(header))
                return -EBADMSG;
        /* LBB is only ever saved for the Intel list. */
        if ((flags & PCI_CONFIG_FLAG_LBB) &&
            !pci_config_has_lbb(read_le16(header + CFG_VENDOR), read_le16(header + CFG_DEVICE)))
                return -EBADMSG;
        return 0;
}

static int pci_config_save(Hw *hw, const DisplayDevice *d, Buffer *out)
{
        uint8_t header[PCI_CONFIG_HEADER_SIZE], lbb = 0;
        bool has_lbb;
        size_t old_size;
        int r;

        if (!out)
                return -EINVAL;

        r = hw_cfg_read(hw, 0, header, sizeof(header));
        if (r < 0)
                return r;
        if (read_le16(header + CFG_VENDOR) == 0xffff || read_le16(header + CFG_VENDOR) == 0)
                return -ENODEV; /* nothing answers at this slot */
        if (!header_plausible(header))
                return -EOPNOTSUPP; /* a bridge or other non-endpoint layout */

        has_lbb = pci_config_has_lbb(read_le16(header + CFG_VENDOR), read_le16(header + CFG_DEVICE));
        if (has_lbb) {
                r = hw_cfg_read(hw, PCI_CONFIG_LBB_OFFSET, &lbb, 1);
                if (r < 0)
                        return r;
        }

        old_size = out->size;
        r = buffer_append_u8(out, has_lbb ? PCI_CONFIG_FLAG_LBB : 0);
        if (r >= 0)
                r = buffer_append(out, header, sizeof(header));
        if (r >= 0 && has_lbb)
                r = buffer_append_u8(out, lbb);
        if (r < 0) {
                out->size = old_size; /* no half payload */
                return r;
        }
        return 0;
}

/* Reads the device's current header (and LBB when the payload has one) and makes sure it is
 * the device the payload was saved from. */
static int read_current(Hw *hw, const uint8_t *payload, uint8_t current[static PCI_CONFIG_HEADER_SIZE],
                        uint8_t *ret_lbb)
{
        const uint8_t *saved = payload + PAYLOAD_HEADER;
        int r;

        r = hw_cfg_read(hw, 0, current, PCI_CONFIG_HEADER_SIZE);
        if (r < 0)
                return r;
        if (read_le16(current + CFG_VENDOR) != read_le16(saved + CFG_VENDOR) ||
            read_le16(current + CFG_DEVICE) != read_le16(saved + CFG_DEVICE))
                return -ENODEV;

        if (payload[PAYLOAD_FLAGS] & PCI_CONFIG_FLAG_LBB) {
                r = hw_cfg_read(hw, PCI_CONFIG_LBB_OFFSET, ret_lbb, 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int pci_config_restore(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len)
{
        const uint8_t *saved = payload + PAYLOAD_HEADER;
        uint8_t current[PCI_CONFIG_HEADER_SIZE], lbb = 0;
        int r, n = 0;

        r = pci_config_check(payload, len);
        if (r < 0)
                return r;
        r = read_current(hw, payload, current, &lbb);
        if (r < 0)
                return r;

        for (size_t i = 0; i < ELEMENTSOF(restore_fields); i++) {
                ConfigField f = restore_fields[i];
                uint32_t want = field_value(saved, f);

                if (want == field_value(current, f))
                        continue;
                r = field_write(hw, f.offset, f.width, want);
                if (r < 0)
                        return r;
                n++;
        }

        if ((payload[PAYLOAD_FLAGS] & PCI_CONFIG_FLAG_LBB) && payload[PAYLOAD_LBB] != lbb) {
                r = field_write(hw, PCI_CONFIG_LBB_OFFSET, 1, payload[PAYLOAD_LBB]);
                if (r < 0)
                        return r;
                n++;
        }

        /* Last: this may turn I/O and memory decoding back on. */
        if (field_value(saved, command_field) != field_value(current, command_field)) {
                r = field_write(hw, command_field.offset, command_field.width, field_value(saved, command_field));
                if (r < 0)
                        return r;
                n++;
        }
        return n;
}

static int report_mismatch(Buffer *report, unsigned offset, unsigned width, uint32_t got, uint32_t want)
{
        if (!report)
                return 0;
        return buffer_printf(report, "config[0x%02x] = 0x%0*x, expected 0x%0*x\n", offset, (int)width * 2, got,
                             (int)width * 2, want);
}

static int pci_config_verify(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len, Buffer *report)
{
        const uint8_t *saved = payload + PAYLOAD_HEADER;
        uint8_t current[PCI_CONFIG_HEADER_SIZE], lbb = 0;
        int r, mismatches = 0;

        r = pci_config_check(payload, len);
        if (r < 0)
                return r;
        r = read_current(hw, payload, current, &lbb);
        if (r < 0)
                return r;

        r = 0;
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(verify_fields); i++) {
                ConfigField f = verify_fields[i];
                uint32_t got = field_value(current, f), want = field_value(saved, f);

                if (got == want)
                        continue;
                mismatches++;
                r = report_mismatch(report, f.offset, f.width, got, want);
        }
        if (r >= 0 && (payload[PAYLOAD_FLAGS] & PCI_CONFIG_FLAG_LBB) && payload[PAYLOAD_LBB] != lbb) {
                mismatches++;
                r = report_mismatch(report, PCI_CONFIG_LBB_OFFSET, 1, lbb, payload[PAYLOAD_LBB]);
        }
        if (r < 0)
                return r;
        return mismatches;
}

/* One named field of the dump. Values are printed in hex for humans and as numbers in JSON. */
static int dump_field(Buffer *out, bool json, bool *first, const char *name, const char *key, unsigned width,
                      uint32_t value)
{
        int r;

        if (!json)
                return buffer_printf(out, "%s: 0x%0*x\n", name, (int)width * 2, value);

        r = buffer_printf(out, "%s", *first ? "" : ", ");
        if (r < 0)
                return r;
        *first = false;
        r = buffer_append_json_string(out, key);
        if (r < 0)
                return r;
        return buffer_printf(out, ": %" PRIu32, value);
}

static int pci_config_dump(const uint8_t *payload, size_t len, bool json, Buffer *out)
{
        const uint8_t *h = payload + PAYLOAD_HEADER;
        bool first = true;
        int r;

        if (!out)
                return -EINVAL;
        r = pci_config_check(payload, len);
        if (r < 0)
                return r;

        const struct {
                const char *name, *key;
                unsigned width;
                uint32_t value;
        } fields[] = {
                { "vendor", "vendor", 2, read_le16(h + CFG_VENDOR) },
                { "device", "device", 2, read_le16(h + CFG_DEVICE) },
                { "command", "command", 2, read_le16(h + CFG_COMMAND) },
                { "status", "status", 2, read_le16(h + CFG_STATUS) },
                { "revision", "revision", 1, h[CFG_REVISION] },
                { "class", "class", 3, read_le32(h + CFG_REVISION) >> 8 },
                { "cache line", "cache_line", 1, h[CFG_CACHE_LINE] },
                { "latency", "latency", 1, h[CFG_LATENCY] },
                { "header type", "header_type", 1, h[CFG_HEADER_TYPE] },
                { "BAR0", "bar0", 4, read_le32(h + CFG_BAR0 + 0x00) },
                { "BAR1", "bar1", 4, read_le32(h + CFG_BAR0 + 0x04) },
                { "BAR2", "bar2", 4, read_le32(h + CFG_BAR0 + 0x08) },
                { "BAR3", "bar3", 4, read_le32(h + CFG_BAR0 + 0x0C) },
                { "BAR4", "bar4", 4, read_le32(h + CFG_BAR0 + 0x10) },
                { "BAR5", "bar5", 4, read_le32(h + CFG_BAR0 + 0x14) },
                { "subsystem vendor", "subsystem_vendor", 2, read_le16(h + CFG_SUBSYS_VENDOR) },
                { "subsystem device", "subsystem_device", 2, read_le16(h + CFG_SUBSYS_DEVICE) },
                { "ROM BAR", "rom_bar", 4, read_le32(h + CFG_ROM_BAR) },
                { "interrupt line", "interrupt_line", 1, h[CFG_INT_LINE] },
                { "interrupt pin", "interrupt_pin", 1, h[CFG_INT_PIN] },
        };

        if (json) {
                r = buffer_printf(out, "{");
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
                r = dump_field(out, json, &first, fields[i].name, fields[i].key, fields[i].width, fields[i].value);
                if (r < 0)
                        return r;
        }
        if (payload[PAYLOAD_FLAGS] & PCI_CONFIG_FLAG_LBB) {
                r = dump_field(out, json, &first, "LBB", "lbb", 1, payload[PAYLOAD_LBB]);
                if (r < 0)
                        return r;
        }
        if (json)
                return buffer_printf(out, "}");
        return 0;
}

const MethodOps method_pci_config = {
        .name = "pci-config",
        .id = 2,
        .version = 1,
        .function_local = true,
        .probe = pci_config_probe,
        .save = pci_config_save,
        .check = pci_config_check,
        .restore = pci_config_restore,
        .verify = pci_config_verify,
        .dump = pci_config_dump,
};
