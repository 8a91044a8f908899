/* SPDX-License-Identifier: MIT */
/* A simulated standard VGA behind the HwOps interface, for tests (and a documented
 * test-only daemon switch): real port semantics, four 64 KiB planes, a DAC, the Bochs
 * "dispi" registers of QEMU's std VGA, PCI config space, an MMIO register file, a
 * QEMU-like S3 wake, and a log of every access in order.
 *
 * Model, in short (see hw-sim.c for the details):
 *   - Ports: MSR write 0x3C2 / read 0x3CC; ST01 at 0x3DA (colour, MSR bit 0 set) or 0x3BA
 *     (mono); CRTC 0x3D4/5 or 0x3B4/5 (25 registers; CR11 bit 7 makes writes to CR00-CR07
 *     ignored); sequencer 0x3C4/5 (5); graphics 0x3CE/F (9); attribute 0x3C0 write
 *     (index/data flip-flop, reset by reading ST01), 0x3C1 read (21 registers; the index
 *     bit 5 is the palette address source, PAS: the display runs only while it is set,
 *     and AR00-AR0F can be reached only while it is clear); DAC mask 0x3C6, read index
 *     0x3C7, write index 0x3C8, data 0x3C9 (R,G,B sub-index shared by both paths, index
 *     auto-increment after each triple, 6-bit values). A 2- or 4-byte access to a VGA port
 *     is split into byte accesses to consecutive ports, as the bus does. Ports the model
 *     does not decode read 0xFF, drop writes and record an error.
 *   - Memory: offsets 0..0x1FFFF from 0xA0000 through the GR06 memory map; MSR bit 1
 *     (RAM enable) gates CPU access; chain-4 (SR04 bit 3), odd/even (writes: SR04 bit 2
 *     clear; reads: GR05 bit 4 set; plane offset = address >> 1) and plain planar
 *     addressing; read modes 0 and 1 with the latches; write modes 0-3 with set/reset,
 *     rotate, logical function and bit mask. Nothing is approximated.
 *   - Bochs dispi (only for 1234:1111, QEMU's std VGA, and 80ee:beef, VirtualBox's VBoxVGA):
 *     index 0x1CE, data 0x1CF, 16-bit accesses, with QEMU's semantics (hw/display/vga.c):
 *     ID takes only 0xB0C0-0xB0C5; geometry writes are fixed up while enabled (width a
 *     multiple of 8, VIRT_WIDTH >= XRES, VIRT_HEIGHT computed from 16 MiB of video memory,
 *     read-only); the enable transition resets VIRT_WIDTH and the X/Y offsets and clears
 *     the frame buffer unless NOCLEARMEM (0x80) is set; GETCAPS (0x02) makes XRES/YRES/BPP
 *     read the maxima. While enable bit 0 is set the 0xA0000 window reaches a separate
 *     linear frame buffer (its first 128 KiB), not the planes.
 *   - The machine around the device (HwSimSystemState): virtual terminals (which one is
 *     active, which are held open, how long a switch takes) and backlight class devices
 *     (name, brightness, max_brightness). Their ops are logged like hardware accesses.
 *
 * Ownership: HwSim is reference counted. hw_sim_new() returns the simulator and, if asked,
 * a first Hw handle; each Hw handle holds a reference, so hw_free() on the handle and
 * hw_sim_unref() on the simulator may happen in any order. */
#pragma once

#include "buffer.h"
#include "hw/hw.h"

#define HW_SIM_SR_COUNT 5
#define HW_SIM_CR_COUNT 25
#define HW_SIM_GR_COUNT 9
#define HW_SIM_AR_COUNT 21
#define HW_SIM_DAC_ENTRIES 256
#define HW_SIM_PLANES 4
#define HW_SIM_PLANE_SIZE 0x10000u
#define HW_SIM_DISPI_COUNT 10
#define HW_SIM_DISPI_FB_SIZE HW_VGA_MEM_SIZE
#define HW_SIM_CFG_SIZE 256
#define HW_SIM_MMIO_SIZE (512u * 1024u)
#define HW_SIM_AR_PAS 0x20

/* Bochs VBE "dispi" register numbers (index written to 0x1CE). */
#define HW_SIM_DISPI_ID 0
#define HW_SIM_DISPI_XRES 1
#define HW_SIM_DISPI_YRES 2
#define HW_SIM_DISPI_BPP 3
#define HW_SIM_DISPI_ENABLE 4
#define HW_SIM_DISPI_BANK 5
#define HW_SIM_DISPI_VIRT_WIDTH 6
#define HW_SIM_DISPI_VIRT_HEIGHT 7
#define HW_SIM_DISPI_X_OFFSET 8
#define HW_SIM_DISPI_Y_OFFSET 9
#define HW_SIM_DISPI_VIDEO_MEMORY_64K 10 /* read-only, not in the register file */
#define HW_SIM_DISPI_ID_VALUE 0xB0C5     /* what the ID reads after a reset (QEMU: ID5) */
#define HW_SIM_DISPI_ENABLED 0x01
#define HW_SIM_DISPI_GETCAPS 0x02
#define HW_SIM_DISPI_LFB_ENABLED 0x40
#define HW_SIM_DISPI_NOCLEARMEM 0x80
#define HW_SIM_DISPI_VRAM_SIZE (16u * 1024u * 1024u) /* what the geometry is checked against */

typedef struct HwSim HwSim;

/* The persistent state of the simulated VGA: what a save/restore must bring back. Transient
 * access state (flip-flop, DAC sub-index, latches) is kept elsewhere. Tests may read and
 * modify it directly through hw_sim_state(); such changes are not logged. */
typedef struct HwSimVgaState {
        uint8_t msr;
        uint8_t sr_index, sr[HW_SIM_SR_COUNT];
        uint8_t cr_index, cr[HW_SIM_CR_COUNT];
        uint8_t gr_index, gr[HW_SIM_GR_COUNT];
        uint8_t ar_index; /* bits 0-4 index, bit 5 PAS */
        uint8_t ar[HW_SIM_AR_COUNT];
        uint8_t dac_mask; /* the real mask, whatever dac_mask_reads_zero makes reads return */
        uint8_t palette[HW_SIM_DAC_ENTRIES][3];
        uint16_t dispi_index, dispi[HW_SIM_DISPI_COUNT];
        uint8_t planes[HW_SIM_PLANES][HW_SIM_PLANE_SIZE];
} HwSimVgaState;

typedef enum HwSimAccessType {
        HW_SIM_IO_READ,
        HW_SIM_IO_WRITE,
        HW_SIM_MEM_READ,
        HW_SIM_MEM_WRITE,
        HW_SIM_CFG_READ,
        HW_SIM_CFG_WRITE,
        HW_SIM_MMIO_READ,
        HW_SIM_MMIO_WRITE,
        HW_SIM_ROM_READ,
        HW_SIM_VGA_LOCK,
        HW_SIM_VGA_UNLOCK,
        HW_SIM_DELAY, /* logged for ordering, but not a hardware access */
        HW_SIM_VT_GET_ACTIVE, /* value: the active VT returned */
        HW_SIM_VT_FIND_FREE,  /* value: the free VT returned */
        HW_SIM_VT_ACTIVATE,   /* value: the VT asked for */
        HW_SIM_BACKLIGHT_LIST,
        HW_SIM_BACKLIGHT_READ,  /* reg: backlight slot (-1 none); value: brightness */
        HW_SIM_BACKLIGHT_WRITE, /* reg: backlight slot (-1 none); value: brightness written */
        HW_SIM_FIRMWARE_READ,   /* offset: physical address; len: bytes */
        HW_SIM_VT_GET_MODE,     /* value: 1 if the active VT is in graphics mode */
        _HW_SIM_ACCESS_TYPE_MAX,
} HwSimAccessType;

/* One logged access. The state fields hold the device state just *before* the access, so
 * tests can check ordering rules ("every SR write inside a synchronous reset"). */
typedef struct HwSimAccess {
        HwSimAccessType type;
        bool forbidden;  /* refused by the forbid switch (-EPERM) */
        uint16_t port;   /* IO */
        uint8_t width;   /* IO: 1, 2 or 4 */
        uint8_t bar;     /* MMIO */
        uint32_t value;  /* IO/MMIO: value written or returned; DELAY: microseconds */
        uint32_t offset; /* MEM (from 0xA0000), CFG, MMIO */
        uint32_t len;    /* MEM, CFG, ROM: bytes */
        int16_t reg;     /* register index a data-port access reaches (SR/CR/GR/AR/DAC/dispi), else -1 */
        uint8_t msr, sr00, sr01, cr11, ar_index;
        bool ar_flipflop_data; /* the next 0x3C0 write goes to the data register */
        bool display_live;     /* hw_sim_display_live() just before the access */
} HwSimAccess;

/* The machine around the device: virtual terminals and backlights. Kept outside
 * HwSimVgaState (whose layout a file format depends on); fixed-size fields only, so that
 * hw-sim-file.c can store it as it is. Tests may change it through hw_sim_system_state();
 * such changes are not logged. */
#define HW_SIM_BACKLIGHT_MAX 16
#define HW_SIM_BACKLIGHT_NAME_SIZE 128 /* longer than valid names, to test the filters */

typedef struct HwSimBacklight {
        char name[HW_SIM_BACKLIGHT_NAME_SIZE]; /* "" = unused slot */
        uint32_t brightness, max;
} HwSimBacklight;

typedef struct HwSimSystemState {
        uint8_t vt_present; /* 0: no VT subsystem (serial-only): every VT op fails with -ENOENT */
        uint8_t vt_active;  /* 1..63 */
        uint8_t vt_graphics; /* 1: the active VT is in graphics mode (an X server draws on it) */
        uint8_t reserved[5];
        uint64_t vt_open; /* bit n set: VT n is held open (a getty, X): VT_OPENQRY skips it */
        HwSimBacklight backlights[HW_SIM_BACKLIGHT_MAX];
} HwSimSystemState;

/* Creates a simulator for device d (copied; NULL = QEMU std VGA 1234:1111 at 0000:00:02.0,
 * class 0x030000, boot VGA, verdict firmware). The VGA starts in the post-wake state
 * (hw_sim_wake()) with zeroed planes, DAC mask 0xFF and a zero palette. ret_hw may be NULL;
 * otherwise a first Hw handle is returned too. */
int hw_sim_new(const DisplayDevice *d, HwSim **ret_sim, Hw **ret_hw);
HwSim *hw_sim_ref(HwSim *sim);
HwSim *hw_sim_unref(HwSim *sim);
DEFINE_TRIVIAL_CLEANUP_FUNC(HwSim *, hw_sim_unref);

/* Opens another Hw handle on the simulator (takes a reference). hw->device points to the
 * simulator's copy of the device. */
int hw_sim_open(HwSim *sim, Hw **ret);
/* An HwOpenFunc: userdata is the HwSim. Refuses (-EPERM) a device whose verdict is not
 * managed, like the real backend, and (-ENODEV) a device with another slot. */
int hw_sim_open_func(const DisplayDevice *d, void *userdata, Hw **ret);
/* The simulator behind a handle, or NULL if hw is not a simulator handle. */
HwSim *hw_sim_from_hw(Hw *hw);

const DisplayDevice *hw_sim_device(const HwSim *sim);
HwSimVgaState *hw_sim_state(HwSim *sim);

/* QEMU-like S3 wake: MSR 0xC3, SR/CR/GR/AR and their indexes zeroed, PAS clear (display
 * off), flip-flop, DAC indexes and latches reset, dispi registers zeroed (but the ID).
 * Planes, palette and DAC mask are kept. The machine around it: the VT the kernel's
 * suspend/resume switch (VT 63 and back) leaves active (see hw_sim_set_wake_vt()), a pending
 * VT switch dropped, backlights as hw_sim_set_backlight_wake() says. Not logged. */
void hw_sim_wake(HwSim *sim);
/* hw_sim_wake() and, like real hardware that loses video memory, planes and palette are
 * overwritten with garbage (a fixed pseudo-random pattern). */
void hw_sim_wake_full(HwSim *sim);

/* QEMU's std VGA reads the DAC mask back as 0x00; this makes reads of 0x3C6 return 0. */
void hw_sim_set_dac_mask_reads_zero(HwSim *sim, bool b);

/* Standard register sets (BIOS mode tables), loaded directly (not logged): mode 3
 * (80x25 text, 720x400, 9x16 font, planes 0/1 text, plane 2 font) and mode 0x12 (640x480,
 * 16 colours, planar). Both also load a 256-entry palette (EGA colours first), DAC mask 0xFF,
 * PAS set, and disable dispi. Planes are not changed. */
void hw_sim_load_mode3(HwSim *sim);
void hw_sim_load_mode12(HwSim *sim);
/* Fills all four planes with a deterministic pattern derived from seed (each plane different). */
void hw_sim_fill_planes(HwSim *sim, uint32_t seed);
/* Enables a Bochs dispi mode (xres x yres x bpp) as a firmware mode set leaves it: ENABLE
 * 0x41 (enabled, linear frame buffer), VIRT_WIDTH = XRES, offsets 0, VIRT_HEIGHT computed;
 * the frame buffer is kept. Not logged. -EOPNOTSUPP if the device has no dispi. */
int hw_sim_set_dispi_mode(HwSim *sim, uint16_t xres, uint16_t yres, uint16_t bpp);
const uint8_t *hw_sim_dispi_fb(const HwSim *sim);
uint8_t *hw_sim_dispi_fb_mut(HwSim *sim);
/* How often an enable transition without NOCLEARMEM cleared the frame buffer. */
unsigned hw_sim_dispi_fb_clears(const HwSim *sim);

/* The display is live: dispi enabled with a non-zero resolution, or PAS set, CR01
 * (horizontal display end) != 0, SR01 bit 5 (screen off) clear and the sequencer running
 * (SR00 bits 0 and 1 set). */
bool hw_sim_display_live(const HwSim *sim);

/* A heap copy of the persistent state (free with free()). */
int hw_sim_snapshot(HwSim *sim, HwSimVgaState **ret);
/* Counts differences between two states: one per register, palette entry and plane byte.
 * Index registers (SR/CR/GR index, dispi index) are compared only with HW_SIM_DIFF_INDEXES.
 * The first differences are described in report (may be NULL), one per line. */
#define HW_SIM_DIFF_INDEXES 0x01u
size_t hw_sim_state_diff(const HwSimVgaState *a, const HwSimVgaState *b, unsigned flags, Buffer *report);

/* The access log. */
const HwSimAccess *hw_sim_log(const HwSim *sim, size_t *ret_n);
void hw_sim_log_clear(HwSim *sim);
/* Hardware accesses in the log (every entry but HW_SIM_DELAY). */
size_t hw_sim_access_count(const HwSim *sim);
size_t hw_sim_count_type(const HwSim *sim, HwSimAccessType type);
/* IO accesses to one port (writes if write, else reads). */
size_t hw_sim_count_port(const HwSim *sim, uint16_t port, bool write);
/* One line per entry ("io write 0x3c5 = 0x01 [SR01]"), for test failure messages. */
int hw_sim_log_format(const HwSim *sim, Buffer *out);
const char *hw_sim_access_type_to_string(HwSimAccessType t);

/* Forbid: every access (IO, memory, config, MMIO, ROM, arbiter) fails with -EPERM, is logged
 * as forbidden and counted as a violation. Delays are not accesses. */
void hw_sim_set_forbid(HwSim *sim, bool b);
/* Fault injection: while on, every access of this type is logged and fails with -EIO
 * (e.g. HW_SIM_CFG_WRITE to make the pci-config restore fail). */
void hw_sim_fail_type(HwSim *sim, HwSimAccessType type, bool on);
unsigned hw_sim_violations(const HwSim *sim);

/* Accesses outside the model (undecoded port, bad width, ...). Each is recorded; the last
 * message is kept. */
unsigned hw_sim_errors(const HwSim *sim);
const char *hw_sim_last_error(const HwSim *sim);
void hw_sim_clear_errors(HwSim *sim);
/* Writes to CR00-CR07 dropped because CR11 bit 7 was set. */
unsigned hw_sim_protected_writes(const HwSim *sim);
/* Sum of hw_delay_us() calls (no real sleeping happens). */
uint64_t hw_sim_delay_total_us(const HwSim *sim);

/* PCI configuration space (256 bytes) and its per-byte writable mask. Defaults: identity
 * from the device (IDs, revision, class, subsystem), command 0x0003, BAR0 a 16 MiB
 * prefetchable memory BAR at 0xFD000000, BAR2 a 512 KiB memory BAR at 0xFEB80000 (both
 * sizable through the mask), interrupt pin 1; writable: command bits, cache line,
 * latency, BAR address bits, interrupt line, and all of 0x40-0xFF. Offsets 256-4095 fail
 * with -EIO, as on a conventional PCI device. */
uint8_t *hw_sim_cfg(HwSim *sim);
uint8_t *hw_sim_cfg_wmask(HwSim *sim);

/* MMIO: one HW_SIM_MMIO_SIZE register file of 32-bit words behind one BAR (default BAR2 for
 * vendor 0x1234, else BAR0); other BARs fail with -ENXIO, offsets beyond with -ERANGE.
 * A hook may take over single registers: return 0 for the default behaviour, > 0 when it
 * handled the access (for reads it sets *value), < 0 to fail the access. */
typedef int (*HwSimMmioHook)(HwSim *sim, bool write, uint32_t offset, uint32_t *value, void *userdata);
uint32_t *hw_sim_mmio(HwSim *sim);
void hw_sim_set_mmio_bar(HwSim *sim, unsigned bar);
void hw_sim_set_mmio_hook(HwSim *sim, HwSimMmioHook hook, void *userdata);

/* Option ROM contents (copied); without one, rom_read fails with -ENOENT. */
int hw_sim_set_rom(HwSim *sim, const void *data, size_t len);

/* The machine's first MiB as firmware_read sees it (HW_FIRMWARE_END bytes, zeros at first):
 * interrupt vectors, BIOS data area, the video BIOS shadow at 0xC0000. Tests write it directly
 * (not logged); reads of the VGA window part through firmware_read are refused as elsewhere. */
uint8_t *hw_sim_firmware(HwSim *sim);

/* BARs as bar_info reports them: decoded from the config space and its writable mask
 * (BAR0 16 MiB memory, BAR2 512 KiB memory by default); a BAR with no writable bits is unused. */

/* While set, a read of this port never returns (the process sleeps until killed), as a
 * device that holds the bus would: only for code that reaches the device from a child
 * process it can kill. 0 = none. */
void hw_sim_set_hang_port(HwSim *sim, uint16_t port);

/* What a child process did to the simulator (state, frame buffer, config space, MMIO, counters
 * and the accesses it logged) is handed back with the child_export / child_import ops, so
 * code that reaches the device from a child (the video BIOS emulation) is seen by the parent. */

/* ---- the machine around the device: VTs and backlights ---- */

/* Defaults: VTs present, VT 1 active and held open, every other VT free; no backlights. */
HwSimSystemState *hw_sim_system_state(HwSim *sim);
unsigned hw_sim_vt_active(const HwSim *sim);

/* Called each time a VT switch takes effect (the simulator binary persists the switch at
 * once there, like the real machine would, and can hang to play a stuck pass). */
typedef void (*HwSimVtHook)(HwSim *sim, void *userdata);
void hw_sim_set_vt_hook(HwSim *sim, HwSimVtHook hook, void *userdata);

/* How many vt_get_active polls after a vt_activate a switch away from a VT held open takes
 * effect (default 0: at once), as its owner (X in VT_PROCESS mode) must let go first; a
 * switch away from a free VT is immediate. HW_SIM_VT_SWITCH_NEVER: the owner never lets go. */
#define HW_SIM_VT_SWITCH_NEVER UINT32_MAX
void hw_sim_set_vt_switch_polls(HwSim *sim, uint32_t polls);

/* The VT active after hw_sim_wake(): 0 (default) = the one active before, as the kernel's
 * resume switch back from VT 63 leaves it; else that VT (63: the switch back did not happen). */
void hw_sim_set_wake_vt(HwSim *sim, unsigned vt);

/* Adds a backlight (name: 1..127 bytes, no '/'; not checked against the valid-name rules, so
 * tests can offer names the listing must skip). -EINVAL, -EEXIST, -ENOSPC. */
int hw_sim_add_backlight(HwSim *sim, const char *name, uint32_t brightness, uint32_t max);
int hw_sim_remove_backlight(HwSim *sim, const char *name);
/* The backlight called name, for direct (unlogged) reads and changes; NULL if none. */
HwSimBacklight *hw_sim_backlight(HwSim *sim, const char *name);

/* What hw_sim_wake() does to every backlight's brightness. */
typedef enum HwSimBacklightWake {
        HW_SIM_BACKLIGHT_WAKE_KEEP,  /* unchanged (default) */
        HW_SIM_BACKLIGHT_WAKE_MAX,   /* full brightness, as many firmwares leave it */
        HW_SIM_BACKLIGHT_WAKE_VALUE, /* the given value (clamped to max) */
} HwSimBacklightWake;
void hw_sim_set_backlight_wake(HwSim *sim, HwSimBacklightWake mode, uint32_t value);
