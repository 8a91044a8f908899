/* SPDX-License-Identifier: MIT */
/* The Bochs VBE "dispi" register interface (index port 0x1CE, data port 0x1CF, 16-bit):
 * which devices have it, register numbers and bits, and the one index/data access path. */
#pragma once

#include "hw/hw.h"

#define DISPI_PORT_INDEX 0x1CE
#define DISPI_PORT_DATA 0x1CF

/* Register numbers (the value written to the index port). */
enum {
        DISPI_ID = 0,
        DISPI_XRES = 1,
        DISPI_YRES = 2,
        DISPI_BPP = 3,
        DISPI_ENABLE = 4,
        DISPI_BANK = 5,
        DISPI_VIRT_WIDTH = 6,
        DISPI_VIRT_HEIGHT = 7, /* computed by the device from the video memory size; read-only */
        DISPI_X_OFFSET = 8,
        DISPI_Y_OFFSET = 9,
        DISPI_COUNT = 10,
};

/* ENABLE bits. */
#define DISPI_ENABLED 0x0001u
#define DISPI_GETCAPS 0x0002u    /* while set, XRES/YRES/BPP read the maxima, not the mode */
#define DISPI_8BIT_DAC 0x0020u
#define DISPI_LFB_ENABLED 0x0040u
#define DISPI_NOCLEARMEM 0x0080u /* on the enable transition: keep the frame buffer */

#define DISPI_MAX_RES 16384u /* above any device's maximum (QEMU: 16000x12000) */

/* The PCI devices whose legacy VGA function has the dispi ports: QEMU's and Bochs' std VGA
 * (1234:1111) and VirtualBox's VBoxVGA/VBoxSVGA (80ee:beef), and only in VGA-compatible
 * class (0x0300xx): QEMU's secondary-vga and bochs-display are 1234:1111 too, class
 * 0x0380, with the dispi registers in MMIO only and no legacy ports of their own. */
bool dispi_device_supported(const DisplayDevice *d);

/* The interface IDs the ID register reads: 0xB0C0-0xB0C5 (Bochs/QEMU versions 0-5) and
 * 0xBE00-0xBE03 (VirtualBox: VBOX_VIDEO, HGSMI, ANYX, CFG). */
bool dispi_id_valid(uint16_t id);

/* One register through the index port. The index is left on reg: callers that must put it
 * back read it first with hw_inw(DISPI_PORT_INDEX). */
int dispi_read(Hw *hw, uint16_t reg, uint16_t *ret);
int dispi_write(Hw *hw, uint16_t reg, uint16_t value);

/* Whether a dispi mode is enabled now (false on a device without dispi, without any access).
 * Puts the index back. */
int dispi_mode_enabled(Hw *hw, const DisplayDevice *d, bool *ret);
