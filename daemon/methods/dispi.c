/* SPDX-License-Identifier: MIT */
/* Owns the Bochs VBE "dispi" access shared by the bochs and vga methods: the list of devices
 * that have it, the valid interface IDs and the index/data port ritual. */
#include "methods/dispi.h"

typedef struct DispiDevice {
        uint16_t vendor, device;
} DispiDevice;

static const DispiDevice dispi_devices[] = {
        { 0x1234, 0x1111 }, /* QEMU -vga std / -device VGA, Bochs' PCI VGA */
        { 0x80ee, 0xbeef }, /* VirtualBox VBoxVGA and VBoxSVGA */
};

bool dispi_device_supported(const DisplayDevice *d)
{
        if (!d || (d->class_code >> 8) != 0x0300)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(dispi_devices); i++)
                if (d->vendor_id == dispi_devices[i].vendor && d->device_id == dispi_devices[i].device)
                        return true;
        return false;
}

bool dispi_id_valid(uint16_t id)
{
        return (id >= 0xB0C0 && id <= 0xB0C5) || (id >= 0xBE00 && id <= 0xBE03);
}

int dispi_read(Hw *hw, uint16_t reg, uint16_t *ret)
{
        int r = hw_outw(hw, DISPI_PORT_INDEX, reg);
        if (r < 0)
                return r;
        return hw_inw(hw, DISPI_PORT_DATA, ret);
}

int dispi_write(Hw *hw, uint16_t reg, uint16_t value)
{
        int r = hw_outw(hw, DISPI_PORT_INDEX, reg);
        if (r < 0)
                return r;
        return hw_outw(hw, DISPI_PORT_DATA, value);
}

int dispi_mode_enabled(Hw *hw, const DisplayDevice *d, bool *ret)
{
        uint16_t saved_index, id = 0, enable = 0;
        int r, k;

        if (!dispi_device_supported(d)) {
                *ret = false;
                return 0;
        }
        r = hw_inw(hw, DISPI_PORT_INDEX, &saved_index);
        if (r < 0)
                return r;
        r = dispi_read(hw, DISPI_ID, &id);
        if (r >= 0 && dispi_id_valid(id))
                r = dispi_read(hw, DISPI_ENABLE, &enable);
        k = hw_outw(hw, DISPI_PORT_INDEX, saved_index);
        if (r < 0)
                return r;
        if (k < 0)
                return k;
        *ret = enable & DISPI_ENABLED;
        return 0;
}
