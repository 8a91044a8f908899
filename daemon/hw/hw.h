/* SPDX-License-Identifier: MIT */
/* The hardware access interface: the only way any umsrestore code reaches a device, the
 * virtual terminals or the backlights. Backends: libpciaccess (hw-pciaccess.c) and, in
 * test binaries only, the simulated VGA (tests/sim/); hw-system.c serves VTs and
 * backlights for a backend that leaves those ops NULL. */
#pragma once

#include "buffer.h"
#include "devices.h"
#include "macro.h"

/* The legacy VGA memory window: 0xA0000-0xBFFFF, offsets below are relative to 0xA0000. */
#define HW_VGA_MEM_BASE 0xA0000u
#define HW_VGA_MEM_SIZE 0x20000u

/* Virtual terminals are numbered 1..HW_VT_MAX (the kernel's MAX_NR_CONSOLES). */
#define HW_VT_MAX 63u
/* hw_vt_switch(): how long to wait for a switch at most, and how often to look. */
#define HW_VT_SWITCH_TIMEOUT_USEC (3u * 1000u * 1000u)
#define HW_VT_POLL_USEC 5000u

/* Backlight class devices, /sys/class/backlight/NAME. Only names of 1..HW_BACKLIGHT_NAME_MAX
 * characters from [A-Za-z0-9._:-], other than "." and "..", are ever listed or reached. */
#define HW_BACKLIGHT_NAME_MAX 64u

typedef struct HwBacklightName {
        char name[HW_BACKLIGHT_NAME_MAX + 1];
} HwBacklightName;

typedef struct Hw Hw;

/* Physical memory of the first MiB that firmware owns, outside the VGA window: the interrupt
 * vectors and BIOS data area, conventional memory with the EBDA, the video BIOS shadow at
 * 0xC0000 and the system BIOS up to 0xFFFFF. Read-only, for the video BIOS method. */
#define HW_FIRMWARE_LOW_END 0xA0000u  /* [0, HW_FIRMWARE_LOW_END) */
#define HW_FIRMWARE_ROM_BASE 0xC0000u /* [HW_FIRMWARE_ROM_BASE, HW_FIRMWARE_END) */
#define HW_FIRMWARE_END 0x100000u

/* Where a base address register of the device is decoded. */
typedef struct HwBar {
        uint64_t base;
        uint64_t size;
        bool is_io;
        bool prefetchable; /* memory without read side effects (a frame buffer) */
} HwBar;

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

        /* Firmware memory of the first MiB (see HW_FIRMWARE_*), read-only; the range lies
         * entirely in one of the two parts. */
        int (*firmware_read)(Hw *hw, uint32_t addr, void *buf, size_t len);
        /* BAR bar (0-5) of the device as the system assigned it; -ENXIO if it is unused. */
        int (*bar_info)(Hw *hw, unsigned bar, HwBar *ret);

        void (*delay_us)(Hw *hw, unsigned usec);

        /* VGA arbiter: route legacy I/O + memory to this device (no-op with one GPU). */
        int (*vga_lock)(Hw *hw);
        int (*vga_unlock)(Hw *hw);

        /* Virtual terminals and backlights belong to the machine, not to the device: a NULL
         * op means the real system's (hw-system.c), so a backend sets these only to fake them.
         * vt_get_active: the active VT (VT_GETSTATE); -ENOENT or -ENOTTY when there are no VTs.
         * vt_find_free: the first VT nobody holds open (VT_OPENQRY); -EBUSY if there is none.
         * vt_activate: asks for a switch (VT_ACTIVATE) and returns without waiting for it. */
        int (*vt_get_active)(Hw *hw, unsigned *ret);
        int (*vt_find_free)(Hw *hw, unsigned *ret);
        int (*vt_activate)(Hw *hw, unsigned vt);
        /* vt_in_graphics: whether the active VT is in graphics mode (KDGETMODE = KD_GRAPHICS:
         * an X server or Wayland compositor draws on it, not the kernel's console). */
        int (*vt_in_graphics)(Hw *hw, bool *ret);
        /* backlight_list: fills up to max entries of names with valid names (any order) and
         * returns how many valid names there are (which may be more than max); 0 when the
         * machine has no backlight class. backlight_read/write: brightness and max_brightness
         * of one; -ENOENT if it does not exist. */
        int (*backlight_list)(Hw *hw, HwBacklightName *names, size_t max);
        int (*backlight_read)(Hw *hw, const char *name, uint32_t *ret_brightness, uint32_t *ret_max);
        int (*backlight_write)(Hw *hw, const char *name, uint32_t brightness);

        /* Only for a backend whose device lives in this process's memory (the simulator):
         * what a child process did to the device is exported by the child after its work and
         * imported by the parent, as if the child had reached the same device. NULL for real
         * hardware, which every process reaches alike. */
        int (*child_export)(Hw *hw, Buffer *out);
        int (*child_import)(Hw *hw, const void *data, size_t len);

        void (*free)(Hw *hw);
} HwOps;

#define HW_FAILURE_NOTE_MAX 256

struct Hw {
        const HwOps *ops;
        const DisplayDevice *device; /* the device this handle reaches; never a KMS one */
        void *userdata;               /* backend state */
        /* What the last failed operation on this handle found, in words ("PP_STATUS =
         * 0x08000000 after 1000000 us, expected bit 31 set"), "" if nothing was noted. */
        char failure[HW_FAILURE_NOTE_MAX];
};

Hw *hw_free(Hw *hw);
DEFINE_TRIVIAL_CLEANUP_FUNC(Hw *, hw_free);

/* Opens the real backend for one device. Refuses (-EPERM) a device whose verdict is not
 * managed, so that no code path can reach a KMS-owned device by mistake. */
int hw_open_pciaccess(const DisplayDevice *d, Hw **ret);

/* Notes (replaces) or clears (NULL) the handle's failure description. */
void hw_note_failure(Hw *hw, const char *fmt, ...) _printf_(2, 3);
void hw_clear_failure(Hw *hw);

/* Thin wrappers so callers read naturally and every access goes through one place. */
int hw_inb(Hw *hw, uint16_t port, uint8_t *ret);
int hw_outb(Hw *hw, uint16_t port, uint8_t value);
int hw_inw(Hw *hw, uint16_t port, uint16_t *ret);
int hw_outw(Hw *hw, uint16_t port, uint16_t value);
/* An index/data register pair (sequencer, CRTC, graphics controller): the index goes to
 * index_port, the data is read from or written to index_port + 1. */
int hw_read_indexed(Hw *hw, uint16_t index_port, uint8_t index, uint8_t *ret);
int hw_write_indexed(Hw *hw, uint16_t index_port, uint8_t index, uint8_t value);
int hw_vga_mem_read(Hw *hw, uint32_t offset, void *buf, size_t len);
int hw_vga_mem_write(Hw *hw, uint32_t offset, const void *buf, size_t len);
int hw_cfg_read(Hw *hw, uint32_t offset, void *buf, size_t len);
int hw_cfg_write(Hw *hw, uint32_t offset, const void *buf, size_t len);
int hw_mmio_read32(Hw *hw, unsigned bar, uint32_t offset, uint32_t *ret);
int hw_mmio_write32(Hw *hw, unsigned bar, uint32_t offset, uint32_t value);
int hw_rom_read(Hw *hw, void *buf, size_t len);
/* 32-bit port accesses (the video BIOS method's emulated BIOS makes them). */
int hw_inl(Hw *hw, uint16_t port, uint32_t *ret);
int hw_outl(Hw *hw, uint16_t port, uint32_t value);
/* -ERANGE for a range outside the firmware parts of the first MiB or across both. */
int hw_firmware_read(Hw *hw, uint32_t addr, void *buf, size_t len);
int hw_bar_info(Hw *hw, unsigned bar, HwBar *ret);
/* -EOPNOTSUPP when the backend needs no hand-over (real hardware). */
int hw_child_export(Hw *hw, Buffer *out);
int hw_child_import(Hw *hw, const void *data, size_t len);
void hw_delay_us(Hw *hw, unsigned usec);
/* Copies between a mapping of device memory (the VGA window, the ROM shadow) and a buffer,
 * for the backends: never memcpy, whose access widths and order are the compiler's. Aligned
 * 32-bit accesses, the PCI bus's width, wherever the range allows, single bytes at its edges.
 * In every planar VGA mode a 32-bit access acts as four byte accesses at consecutive
 * addresses (each through the map mask or the read map select); an emulated VGA (QEMU)
 * takes one trap per access instead of four. */
void hw_io_copy_from(const volatile void *src, void *dst, size_t len);
void hw_io_copy_to(volatile void *dst, const void *src, size_t len);
int hw_vga_lock(Hw *hw);
int hw_vga_unlock(Hw *hw);

/* The active VT and a free one (1..HW_VT_MAX; on the system the highest free VT up to 15,
 * out of logind's getty range). -ENOENT or -ENOTTY: no VT subsystem
 * (a serial-only machine, CONFIG_VT off); -EBUSY (find_free): every VT is held open. */
int hw_vt_get_active(Hw *hw, unsigned *ret_vt);
int hw_vt_find_free(Hw *hw, unsigned *ret_vt);
/* Asks for a switch to vt, then polls the active VT every HW_VT_POLL_USEC until it is vt.
 * Never waits longer than timeout_usec (-ETIMEDOUT): an unbounded VT_WAITACTIVE could hang
 * a suspend on a VT whose owner does not let go. */
int hw_vt_switch(Hw *hw, unsigned vt, uint64_t timeout_usec);
/* Whether a graphical session owns the active VT (see HwOps.vt_in_graphics); -ENOENT or
 * -ENOTTY: no VT subsystem. */
int hw_vt_in_graphics(Hw *hw, bool *ret);

/* Whether name may be a backlight's (see HW_BACKLIGHT_NAME_MAX). */
bool hw_backlight_name_is_valid(const char *name);
/* Returns count, the number of valid backlight names on the machine, and fills
 * names[0..MIN(count, max)) with the first ones by name (names may be NULL when max is 0).
 * Of a machine with more than HW_BACKLIGHT_LIST_MAX, those looked at are the first the
 * backend lists. */
#define HW_BACKLIGHT_LIST_MAX 64u
int hw_backlight_list(Hw *hw, HwBacklightName *names, size_t max);
/* -EINVAL for an invalid name, without any access. */
int hw_backlight_read(Hw *hw, const char *name, uint32_t *ret_brightness, uint32_t *ret_max);
int hw_backlight_write(Hw *hw, const char *name, uint32_t brightness);

/* Opens a Hw for a device; the engine takes one of these so tests can substitute the
 * simulated backend or one that fails on any access. */
typedef int (*HwOpenFunc)(const DisplayDevice *d, void *userdata, Hw **ret);

/* A hardware backend: how managed devices are reached. main() chooses it; the installed
 * daemon links only the libpciaccess one, test binaries link the simulator. */
typedef struct HwBackend {
        const char *name;
        HwOpenFunc open;
        /* Optional: called by every pass under the run lock, before the first device is
         * opened (what: "save", "restore" or "rollback") and after the last access; the
         * simulator loads and stores its image there. */
        int (*pass_begin)(void *userdata, const char *what);
        int (*pass_end)(void *userdata);
        bool test_only; /* refuses the real root: a simulated device never meets real state */
        void *userdata;
} HwBackend;

/* libpciaccess: the real machine. */
extern const HwBackend hw_backend_pciaccess;

/* Real enumeration through libpciaccess (root is ignored: libpciaccess reads /sys), on the
 * same libpciaccess state as the open handles. */
int pci_source_pciaccess(const char *root, PciIdentity **ret);
