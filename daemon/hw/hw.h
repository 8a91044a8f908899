/* SPDX-License-Identifier: MIT */
/* The hardware access interface: the only way any umsrestore code reaches a device.
 * Backends: libpciaccess (hw-pciaccess.c) and the simulated VGA (hw-sim.c) for tests. */
#pragma once

#include "devices.h"
#include "macro.h"

/* The legacy VGA memory window: 0xA0000-0xBFFFF, offsets below are relative to 0xA0000. */
#define HW_VGA_MEM_BASE 0xA0000u
#define HW_VGA_MEM_SIZE 0x20000u

typedef struct Hw Hw;

typedef struct HwOps {
        const char *name; /* "pciaccess", "sim" */

        /* Legacy port I/O; width is 1, 2 or 4 bytes. */
        int (*io_read)(Hw *hw, uint16_t port, unsigned width, uint32_t *ret);
        int (*io_write)(Hw *hw, uint16_t port, unsigned width, uint32_t value);

        /* Legacy VGA memory window, offset from 0xA0000, byte-wise. */
        int (*vga_mem_read)(Hw *hw, uint32_t offset, void *buf, size_t len);
        int (*vga_mem_write)(Hw *hw, uint32_t offset, const void *buf, size_t len);

        /* PCI configuration space of the device. */
        int (*cfg_read)(Hw *hw, uint32_t offset, void *buf, size_t len);
        int (*cfg_write)(Hw *hw, uint32_t offset, const void *buf, size_t len);

        /* MMIO BAR access (32-bit registers). */
        int (*mmio_read32)(Hw *hw, unsigned bar, uint32_t offset, uint32_t *ret);
        int (*mmio_write32)(Hw *hw, unsigned bar, uint32_t offset, uint32_t value);

        /* Option ROM: copies up to len bytes; returns the number copied. */
        int (*rom_read)(Hw *hw, void *buf, size_t len);

        void (*delay_us)(Hw *hw, unsigned usec);

        /* VGA arbiter: route legacy I/O + memory to this device (no-op with one GPU). */
        int (*vga_lock)(Hw *hw);
        int (*vga_unlock)(Hw *hw);

        void (*free)(Hw *hw);
} HwOps;

struct Hw {
        const HwOps *ops;
        const DisplayDevice *device; /* the device this handle reaches; never a KMS one */
        void *userdata;               /* backend state */
};

Hw *hw_free(Hw *hw);
DEFINE_TRIVIAL_CLEANUP_FUNC(Hw *, hw_free);

/* Opens the real backend for one device. Refuses (-EPERM) a device whose verdict is not
 * managed, so that no code path can reach a KMS-owned device by mistake. */
int hw_open_pciaccess(const DisplayDevice *d, Hw **ret);

/* Thin wrappers so callers read naturally and every access goes through one place. */
int hw_inb(Hw *hw, uint16_t port, uint8_t *ret);
int hw_outb(Hw *hw, uint16_t port, uint8_t value);
int hw_inw(Hw *hw, uint16_t port, uint16_t *ret);
int hw_outw(Hw *hw, uint16_t port, uint16_t value);
int hw_vga_mem_read(Hw *hw, uint32_t offset, void *buf, size_t len);
int hw_vga_mem_write(Hw *hw, uint32_t offset, const void *buf, size_t len);
int hw_cfg_read(Hw *hw, uint32_t offset, void *buf, size_t len);
int hw_cfg_write(Hw *hw, uint32_t offset, const void *buf, size_t len);
int hw_mmio_read32(Hw *hw, unsigned bar, uint32_t offset, uint32_t *ret);
int hw_mmio_write32(Hw *hw, unsigned bar, uint32_t offset, uint32_t value);
int hw_rom_read(Hw *hw, void *buf, size_t len);
void hw_delay_us(Hw *hw, unsigned usec);
int hw_vga_lock(Hw *hw);
int hw_vga_unlock(Hw *hw);

/* Opens a Hw for a device; the engine takes one of these so tests can substitute the
 * simulated backend or one that fails on any access. */
typedef int (*HwOpenFunc)(const DisplayDevice *d, void *userdata, Hw **ret);
