/* SPDX-License-Identifier: MIT */
/* Owns the emulated BIOS machine (libx86emu) and the child process it runs in: memory map,
 * port policy, the few system BIOS services a video BIOS asks for, and the two bounds. */
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "log.h"
#include "methods/vbe-emu.h"
#include "version.h"

void vbe_emu_results_done(VbeEmuResult *results, size_t n)
{
        for (size_t i = 0; results && i < n; i++) {
                free(results[i].buf);
                results[i].buf = NULL;
        }
}

#if HAVE_X86EMU && (defined(__i386__) || defined(__x86_64__))

#include <x86emu.h>

bool vbe_emu_available(void)
{
        return true;
}

/* ---- the child's report: records on a pipe ---------------------------------------- */

enum {
        MSG_BEGIN = 1, /* index: a call starts */
        MSG_END,       /* index, VbeEmuRegs, instructions, usec, then buf_out_len bytes */
        MSG_FAIL,      /* index (UINT32_MAX: the set-up), errno, then the text */
        MSG_SYNC,      /* the backend's child_export blob */
        MSG_MEMORY,    /* HW_FIRMWARE_END bytes */
        MSG_STATS,     /* VbeEmuStats; error = 1: a MSG_FAIL follows */
};

typedef struct MsgHeader {
        uint32_t type;
        uint32_t index;
        int32_t error;
        uint32_t len; /* bytes following the header */
} MsgHeader;

typedef struct MsgEnd {
        VbeEmuRegs regs;
        uint64_t instructions;
        uint64_t usec;
} MsgEnd;

#define FAIL_TEXT_MAX 240
#define SETUP_INDEX UINT32_MAX

static int write_all(int fd, const void *p, size_t n)
{
        const uint8_t *b = p;

        while (n > 0) {
                ssize_t k = write(fd, b, n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                b += k;
                n -= (size_t)k;
        }
        return 0;
}

static int send_msg(int fd, uint32_t type, uint32_t index, int error, const void *a, size_t alen, const void *b,
                    size_t blen)
{
        MsgHeader h = { .type = type, .index = index, .error = error, .len = (uint32_t)(alen + blen) };
        int r = write_all(fd, &h, sizeof(h));
        if (r >= 0 && alen > 0)
                r = write_all(fd, a, alen);
        if (r >= 0 && blen > 0)
                r = write_all(fd, b, blen);
        return r;
}

/* ---- the emulated machine ---------------------------------------------------------- */

typedef struct Session {
        x86emu_t *emu;
        x86emu_memio_handler_t default_memio;
        Hw *hw;
        const DisplayDevice *device;
        HwBar bars[6];
        bool bar_valid[6];
        uint32_t rom_size;
        /* The copy of the upper memory the emulator's pages there point into: it lives as
         * long as the child (which ends with _exit()). */
        uint8_t *upper;
        /* Why the run was stopped from a handler (0: it was not). */
        int fault;
        char fault_text[FAIL_TEXT_MAX];
        /* PCI configuration mechanism #1, emulated for the device's own function only. */
        uint32_t cf8;
        /* The timer the BIOS may poll, emulated from the monotonic clock. */
        uint8_t pit_latch_low[3], pit_latch_high[3];
        bool pit_latched[3], pit_high_next[3];
        VbeEmuStats stats;
} Session;

static uint64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

_printf_(3, 4) static void session_fault(Session *s, int error, const char *fmt, ...)
{
        va_list ap;

        if (s->fault == 0) {
                s->fault = error;
                va_start(ap, fmt);
                (void)vsnprintf(s->fault_text, sizeof(s->fault_text), fmt, ap);
                va_end(ap);
        }
        x86emu_stop(s->emu);
}

static unsigned memio_width(unsigned type)
{
        switch (type & 0xFF) {
        case X86EMU_MEMIO_8:
        case X86EMU_MEMIO_8_NOPERM:
                return 1;
        case X86EMU_MEMIO_16:
                return 2;
        default:
                return 4;
        }
}

/* The video memory window, through the device. */
static unsigned vga_window_access(Session *s, uint32_t addr, uint32_t *val, unsigned kind, unsigned width)
{
        uint8_t b[4] = { 0 };
        int r;

        if (addr + width > HW_VGA_MEM_BASE + HW_VGA_MEM_SIZE) {
                session_fault(s, -EFAULT, "a %u-byte access at 0x%05x crosses the end of the VGA window", width, addr);
                return 1;
        }
        if (kind == X86EMU_MEMIO_X) {
                session_fault(s, -EFAULT, "the BIOS jumped into video memory (0x%05x)", addr);
                return 1;
        }
        if (kind == X86EMU_MEMIO_W) {
                for (unsigned i = 0; i < width; i++)
                        b[i] = (uint8_t)(*val >> (8 * i));
                r = hw_vga_mem_write(s->hw, addr - HW_VGA_MEM_BASE, b, width);
        } else {
                r = hw_vga_mem_read(s->hw, addr - HW_VGA_MEM_BASE, b, width);
                *val = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        }
        if (r < 0) {
                session_fault(s, -EIO, "video memory access at 0x%05x failed: %s", addr, STRERROR(r));
                return 1;
        }
        return 0;
}

/* A memory BAR of the device above the first MiB (a frame buffer, registers). Whole aligned
 * dwords pass as they are; a narrower read takes its bytes from the dword. A narrower write
 * is a read-modify-write, allowed only in a prefetchable BAR (a frame buffer, where reading
 * has no side effect), never in a register BAR. */
static int bar_access(Session *s, uint32_t addr, uint32_t *val, unsigned kind, unsigned width)
{
        for (unsigned i = 0; i < ELEMENTSOF(s->bars); i++) {
                const HwBar *bar = &s->bars[i];
                uint32_t offset, dword, shift, mask;
                int r;

                if (!s->bar_valid[i] || bar->is_io || addr < bar->base || (uint64_t)addr + width > bar->base + bar->size)
                        continue;
                offset = (uint32_t)(addr - bar->base);
                shift = (offset % 4) * 8;
                if (offset % 4 + width > 4) {
                        session_fault(s, -EFAULT, "a %u-byte access at 0x%08x spans two registers of BAR%u", width,
                                      addr, i);
                        return 1;
                }
                if (kind == X86EMU_MEMIO_X) {
                        session_fault(s, -EFAULT, "the BIOS jumped into BAR%u (0x%08x)", i, addr);
                        return 1;
                }
                if (kind == X86EMU_MEMIO_W && width == 4) {
                        r = hw_mmio_write32(s->hw, i, offset, *val);
                } else {
                        r = hw_mmio_read32(s->hw, i, offset & ~3u, &dword);
                        mask = width == 4 ? UINT32_MAX : ((1u << (8 * width)) - 1u) << shift;
                        if (r >= 0 && kind == X86EMU_MEMIO_W) {
                                if (!bar->prefetchable) {
                                        session_fault(s, -EFAULT,
                                                      "a %u-byte write to register BAR%u at 0x%08x (only whole "
                                                      "registers are written)",
                                                      width, i, addr);
                                        return 1;
                                }
                                r = hw_mmio_write32(s->hw, i, offset & ~3u, (dword & ~mask) | ((*val << shift) & mask));
                        } else if (r >= 0)
                                *val = (dword & mask) >> shift;
                }
                if (r < 0) {
                        session_fault(s, -EIO, "access to BAR%u at 0x%08x failed: %s", i, addr, STRERROR(r));
                        return 1;
                }
                return 0;
        }
        return -1;
}

/* ---- ports ------------------------------------------------------------------------ */

#define PIT_HZ 1193182ULL

static uint16_t pit_count(void)
{
        /* A free-running down-counter with the full 65536 reload, as the BIOS left channels
         * 0 and 2 (mode 3); the BIOS only measures elapsed ticks with it. */
        uint64_t ticks = now_ns() * PIT_HZ / 1000000000ULL;
        return (uint16_t)(0xFFFFu - (ticks & 0xFFFFu));
}

static uint32_t timer_read(Session *s, uint16_t port)
{
        if (port == 0x61) {
                /* Bit 4 toggles with each DRAM refresh (every 15.085 us), bit 5 is channel 2's
                 * output: what BIOS delay loops poll. Gate and speaker bits read as off. */
                uint64_t ns = now_ns();
                return (uint32_t)(((ns / 15085u) & 1u) << 4 | (uint32_t)((pit_count() & 0x8000u) ? 0 : 1) << 5);
        }
        if (port >= 0x40 && port <= 0x42) {
                unsigned ch = port - 0x40;
                uint16_t count = pit_count();
                uint8_t v;

                if (s->pit_latched[ch]) {
                        v = s->pit_high_next[ch] ? s->pit_latch_high[ch] : s->pit_latch_low[ch];
                        if (s->pit_high_next[ch])
                                s->pit_latched[ch] = false;
                } else
                        v = (uint8_t)(s->pit_high_next[ch] ? count >> 8 : count);
                s->pit_high_next[ch] = !s->pit_high_next[ch];
                return v;
        }
        return 0xFF; /* 0x43 is write-only */
}

static void timer_write(Session *s, uint16_t port, uint32_t v)
{
        /* Only the latch command is understood; nothing reaches the real timer, whose
         * channel 0 is the kernel's. */
        if (port == 0x43 && (v & 0x30) == 0 && (v >> 6) < 3) {
                unsigned ch = v >> 6;
                uint16_t count = pit_count();

                s->pit_latch_low[ch] = (uint8_t)count;
                s->pit_latch_high[ch] = (uint8_t)(count >> 8);
                s->pit_latched[ch] = true;
                s->pit_high_next[ch] = false;
        }
}

static bool own_function(const Session *s, uint32_t address)
{
        const DisplayDevice *d = s->device;
        return (address & 0x80000000u) && ((address >> 16) & 0xFF) == d->bus && ((address >> 11) & 0x1F) == d->dev &&
               ((address >> 8) & 0x7) == d->func;
}

/* Mechanism #1 at 0xCF8/0xCFC, for the device's own function: every other function reads as
 * absent and is never written. 0xCF9 (a byte at 0xCF8+1) is the reset control register on
 * many chipsets: only whole dwords reach the address register. */
static unsigned pci_config_io(Session *s, uint16_t port, uint32_t *val, bool write, unsigned width)
{
        if (port >= 0xCF8 && port < 0xCFC) {
                if (port == 0xCF8 && width == 4) {
                        if (write)
                                s->cf8 = *val;
                        else
                                *val = s->cf8;
                } else if (!write)
                        *val = UINT32_MAX;
                return 0;
        }
        if (!own_function(s, s->cf8)) {
                if (!write)
                        *val = width == 4 ? UINT32_MAX : (1u << (8 * width)) - 1u;
                return 0;
        }
        uint32_t reg = (s->cf8 & 0xFC) + (port - 0xCFCu);
        uint8_t b[4] = { 0 };
        int r;

        if (write) {
                for (unsigned i = 0; i < width; i++)
                        b[i] = (uint8_t)(*val >> (8 * i));
                r = hw_cfg_write(s->hw, reg, b, width);
        } else {
                r = hw_cfg_read(s->hw, reg, b, width);
                *val = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        }
        if (r < 0) {
                session_fault(s, -EIO, "PCI config %s of register 0x%02x failed: %s", write ? "write" : "read", reg,
                              STRERROR(r));
                return 1;
        }
        return 0;
}

static unsigned port_access(Session *s, uint16_t port, uint32_t *val, bool write, unsigned width)
{
        int r;

        /* POST code ports and the APM/SMI command port: a write to 0xB2 can enter SMM
         * firmware. Reads give 0, writes vanish (as the BSD kernels do). */
        if ((port >= 0x80 && port <= 0x87) || port == 0xB2 || port == 0xB3) {
                s->stats.filtered_ports++;
                if (!write)
                        *val = 0;
                return 0;
        }
        if (port >= 0xCF8 && port <= 0xCFF)
                return pci_config_io(s, port, val, write, width);
        if ((port >= 0x40 && port <= 0x43) || port == 0x61) {
                if (write)
                        timer_write(s, port, *val);
                else
                        *val = timer_read(s, port);
                return 0;
        }

        if (write)
                r = width == 1 ? hw_outb(s->hw, port, (uint8_t)*val)
                  : width == 2 ? hw_outw(s->hw, port, (uint16_t)*val)
                               : hw_outl(s->hw, port, *val);
        else {
                uint8_t b;
                uint16_t w;

                if (width == 1) {
                        r = hw_inb(s->hw, port, &b);
                        *val = b;
                } else if (width == 2) {
                        r = hw_inw(s->hw, port, &w);
                        *val = w;
                } else
                        r = hw_inl(s->hw, port, val);
        }
        if (r == -ERANGE) {
                /* Not the device's (hw/ reaches the VGA ports, the dispi pair and the device's own
                 * I/O BARs): dropped, as if nothing answered. */
                if (s->stats.dropped_ports++ == 0)
                        s->stats.first_dropped_port = port;
                if (!write)
                        *val = width == 4 ? UINT32_MAX : (1u << (8 * width)) - 1u;
                return 0;
        }
        if (r < 0) {
                session_fault(s, -EIO, "port 0x%04x %s failed: %s", port, write ? "write" : "read", STRERROR(r));
                return 1;
        }
        return 0;
}

static unsigned memio(x86emu_t *emu, u32 addr, u32 *val, unsigned type)
{
        Session *s = emu->_private;
        unsigned kind = type & ~0xFFu, width = memio_width(type);
        unsigned err;
        int r;

        if (kind == X86EMU_MEMIO_I || kind == X86EMU_MEMIO_O)
                return port_access(s, (uint16_t)addr, val, kind == X86EMU_MEMIO_O, width);

        /* The emulator's own peeks (loop detection) never reach the device. */
        if ((type & 0xFF) == X86EMU_MEMIO_8_NOPERM)
                return s->default_memio(emu, addr, val, type);

        if (addr >= HW_VGA_MEM_BASE && addr < HW_VGA_MEM_BASE + HW_VGA_MEM_SIZE)
                return vga_window_access(s, addr, val, kind, width);
        if (addr >= HW_FIRMWARE_END) {
                r = bar_access(s, addr, val, kind, width);
                if (r >= 0)
                        return (unsigned)r;
        }
        err = s->default_memio(emu, addr, val, type);
        if (err)
                session_fault(s, -EFAULT, "the BIOS %s unmapped memory at 0x%08x (%u bytes) from %04x:%04x",
                              kind == X86EMU_MEMIO_W ? "wrote" : kind == X86EMU_MEMIO_X ? "ran" : "read", addr, width,
                              emu->x86.saved_cs, emu->x86.saved_eip);
        return err;
}

/* ---- the system BIOS services a video BIOS may ask for ------------------------------ */

static void set_carry(x86emu_t *emu, bool on)
{
        if (on)
                emu->x86.R_EFLG |= FB_CF;
        else
                emu->x86.R_EFLG &= ~(uint32_t)FB_CF;
}

/* The answer to a PCI BIOS "find" call: the device itself (the only one the BIOS may see),
 * or "device not found". */
static void pci_bios_found(x86emu_t *emu, const DisplayDevice *d, uint8_t devfn, bool match)
{
        if (match) {
                emu->x86.R_BH = d->bus;
                emu->x86.R_BL = devfn;
                emu->x86.R_AH = 0;
        } else
                emu->x86.R_AH = 0x86;
        set_carry(emu, !match);
}

/* INT 1Ah AH=B1h, the PCI BIOS, for the device's own function (as the ports do). */
static void pci_bios(Session *s)
{
        x86emu_t *emu = s->emu;
        const DisplayDevice *d = s->device;
        uint8_t devfn = (uint8_t)(d->dev << 3 | d->func);
        uint32_t address = 0x80000000u | (uint32_t)emu->x86.R_BH << 16 | (uint32_t)emu->x86.R_BL << 8 |
                           (emu->x86.R_DI & 0xFC);
        uint32_t v = 0;
        unsigned width = 0;
        bool write = false;

        switch (emu->x86.R_AL) {
        case 0x01: /* installation check: mechanism #1, version 2.10 */
                emu->x86.R_EDX = 0x20494350u; /* "PCI " */
                emu->x86.R_AH = 0;
                emu->x86.R_AL = 0x01;
                emu->x86.R_BX = 0x0210;
                emu->x86.R_CL = d->bus;
                set_carry(emu, false);
                return;
        case 0x02: /* find device CX, vendor DX, index SI */
                pci_bios_found(emu, d, devfn,
                               emu->x86.R_CX == d->device_id && emu->x86.R_DX == d->vendor_id && emu->x86.R_SI == 0);
                return;
        case 0x03: /* find class ECX, index SI */
                pci_bios_found(emu, d, devfn, (emu->x86.R_ECX & 0xFFFFFFu) == d->class_code && emu->x86.R_SI == 0);
                return;
        case 0x08: width = 1; break;
        case 0x09: width = 2; break;
        case 0x0A: width = 4; break;
        case 0x0B: width = 1; write = true; break;
        case 0x0C: width = 2; write = true; break;
        case 0x0D: width = 4; write = true; break;
        default:
                emu->x86.R_AH = 0x81; /* function not supported */
                set_carry(emu, true);
                return;
        }

        s->cf8 = address;
        if (write)
                v = emu->x86.R_ECX;
        if (pci_config_io(s, (uint16_t)(0xCFC + (emu->x86.R_DI & 3)), &v, write, width) != 0)
                return;
        if (!write) {
                if (width == 1)
                        emu->x86.R_CL = (uint8_t)v;
                else if (width == 2)
                        emu->x86.R_CX = (uint16_t)v;
                else
                        emu->x86.R_ECX = v;
        }
        emu->x86.R_AH = own_function(s, address) ? 0 : 0x87; /* bad register number (not ours) */
        set_carry(emu, emu->x86.R_AH != 0);
}

static int intr(x86emu_t *emu, u8 num, unsigned type)
{
        Session *s = emu->_private;

        if ((type & 0xFF) == INTR_TYPE_FAULT) {
                session_fault(s, -EILSEQ, "CPU exception %u at %04x:%04x", num, emu->x86.saved_cs,
                              emu->x86.saved_eip);
                return 1;
        }
        switch (num) {
        case 0x10: /* video, and the two vectors video BIOSes chain through */
        case 0x42:
        case 0x6D:
                return 0; /* through the emulated vector table */
        case 0x1A:
                if (emu->x86.R_AH == 0xB1) {
                        pci_bios(s);
                        return 1;
                }
                if (emu->x86.R_AH == 0x00) { /* ticks since midnight, 18.2 Hz */
                        uint64_t ticks = now_ns() / 54925439u;
                        emu->x86.R_CX = (uint16_t)(ticks >> 16);
                        emu->x86.R_DX = (uint16_t)ticks;
                        emu->x86.R_AL = 0;
                        return 1;
                }
                break;
        case 0x15:
                if (emu->x86.R_AH == 0x86) { /* wait CX:DX microseconds */
                        uint32_t usec = (uint32_t)emu->x86.R_CX << 16 | emu->x86.R_DX;
                        hw_delay_us(s->hw, MIN(usec, 1000000u));
                        set_carry(emu, false);
                        return 1;
                }
                break;
        default:
                break;
        }
        /* Anything else (system BIOS hooks, keyboard, disk): "not supported". */
        s->stats.other_interrupts++;
        emu->x86.R_AH = 0x86;
        set_carry(emu, true);
        return 1;
}

static void cpuid(x86emu_t *emu)
{
        /* A CPU without features: the BIOS gets no reason to use any. */
        emu->x86.R_EAX = emu->x86.R_EBX = emu->x86.R_ECX = emu->x86.R_EDX = 0;
}

static void fill_ram(Session *s, uint32_t start, uint32_t end, const uint8_t *data, unsigned perm)
{
        for (uint32_t a = start; data && a < end; a++)
                x86emu_write_byte_noperm(s->emu, a, data[a - start]);
        x86emu_set_perm(s->emu, start, end - 1, perm | X86EMU_PERM_VALID);
}

/* [start, end) (whole pages) of the emulated memory become data itself, one page at a time,
 * rather than a copy written byte by byte (each byte a call through the memory handler: tens
 * of ms for the 256 KiB above the VGA window). The permissions are set afterwards. */
static void map_pages(Session *s, uint32_t start, uint32_t end, uint8_t *data)
{
        for (uint32_t a = start; a < end; a += X86EMU_PAGE_SIZE)
                x86emu_set_page(s->emu, a, data + (a - start));
}

/* The emulated first MiB: vectors and BIOS data from the machine, fresh conventional memory
 * above them, the video BIOS from its shadow, a private copy of the upper memory between the
 * video BIOS and the system BIOS (read-write, not executable: where firmware keeps option-ROM
 * data; SeaBIOS's VGA BIOS was seen running on a stack there), the system BIOS (read-only, not
 * executable). Everything else (above 1 MiB but the device's BARs) is unmapped. Writes stay
 * in the emulator: nothing of the machine's memory is written. */
static int session_load(Session *s)
{
        _cleanup_free_ uint8_t *low = NULL;
        uint8_t *upper;
        uint8_t head[3];
        uint32_t rom_end;
        int r;

        r = hw_firmware_read(s->hw, VBE_EMU_ROM_BASE, head, sizeof(head));
        if (r < 0) {
                snprintf(s->fault_text, sizeof(s->fault_text),
                         "cannot read the video BIOS shadow at 0xC0000: %s%s", STRERROR(r),
                         r == -EPERM || r == -EACCES ? " (kernel lockdown or missing CAP_SYS_RAWIO forbid /dev/mem)"
                                                     : "");
                return r;
        }
        if (head[0] != 0x55 || head[1] != 0xAA || head[2] == 0) {
                snprintf(s->fault_text, sizeof(s->fault_text),
                         "no video BIOS in the shadow at 0xC0000 (it starts %02x %02x %02x, not 55 AA and a size; a "
                         "UEFI machine without a compatibility BIOS has none)",
                         head[0], head[1], head[2]);
                return -ENOEXEC;
        }
        s->rom_size = MIN((uint32_t)head[2] * 512u, VBE_EMU_ROM_MAX);
        s->stats.rom_size = s->rom_size;
        rom_end = VBE_EMU_ROM_BASE + s->rom_size;

        /* The first KiBs (IVT, BDA) and everything from the shadow to the end of the first
         * MiB, each read once. */
        low = malloc(0x500);
        upper = s->upper = malloc(HW_FIRMWARE_END - VBE_EMU_ROM_BASE);
        if (!low || !upper)
                return -ENOMEM;
        r = hw_firmware_read(s->hw, 0, low, 0x500);
        if (r >= 0)
                r = hw_firmware_read(s->hw, VBE_EMU_ROM_BASE, upper, HW_FIRMWARE_END - VBE_EMU_ROM_BASE);
        if (r < 0) {
                snprintf(s->fault_text, sizeof(s->fault_text), "cannot read firmware memory: %s", STRERROR(r));
                return r;
        }

        fill_ram(s, 0, 0x500, low, X86EMU_PERM_RW);
        fill_ram(s, 0x500, HW_FIRMWARE_LOW_END, NULL, X86EMU_PERM_RWX);
        map_pages(s, VBE_EMU_ROM_BASE, HW_FIRMWARE_END, upper);
        /* The shadow is private: a BIOS that keeps variables in its own segment may write. */
        fill_ram(s, VBE_EMU_ROM_BASE, rom_end, NULL, X86EMU_PERM_RWX);
        if (rom_end < VBE_EMU_SYS_BASE)
                fill_ram(s, rom_end, VBE_EMU_SYS_BASE, NULL, X86EMU_PERM_RW);
        fill_ram(s, VBE_EMU_SYS_BASE, HW_FIRMWARE_END, NULL, X86EMU_PERM_R);

        for (unsigned i = 0; i < ELEMENTSOF(s->bars); i++)
                s->bar_valid[i] = hw_bar_info(s->hw, i, &s->bars[i]) >= 0 && !s->bars[i].is_io &&
                                  s->bars[i].base >= HW_FIRMWARE_END && s->bars[i].base + s->bars[i].size <= UINT32_MAX;
        return 0;
}

static void put_stub(Session *s, const uint8_t *code, size_t n)
{
        for (size_t i = 0; i < n; i++)
                x86emu_write_byte_noperm(s->emu, VBE_EMU_STUB_ADDR + (unsigned)i, code[i]);
}

/* Runs one call; 0 when it came back to the stub's HLT. */
static int session_call(Session *s, const VbeEmuCall *c, uint64_t budget, VbeEmuResult *res)
{
        static const uint8_t int10[] = { 0xCD, 0x10, 0xF4 };             /* int 10h; hlt */
        static const uint8_t post[] = { 0x9A, 0x03, 0x00, 0x00, 0xC0, 0xF4 }; /* call far C000:0003; hlt */
        const uint8_t *stub = c->kind == VBE_EMU_POST ? post : int10;
        size_t stub_len = c->kind == VBE_EMU_POST ? sizeof(post) : sizeof(int10);
        x86emu_t *emu = s->emu;
        uint64_t tsc0, t0;
        unsigned stop;

        put_stub(s, stub, stub_len);
        for (uint32_t i = 0; c->buf_in && i < c->buf_in_len && i < VBE_EMU_BUF_SIZE; i++)
                x86emu_write_byte_noperm(emu, VBE_EMU_BUF_SEG * 16u + i, c->buf_in[i]);

        emu->x86.R_EAX = c->in.eax;
        emu->x86.R_EBX = c->in.ebx;
        emu->x86.R_ECX = c->in.ecx;
        emu->x86.R_EDX = c->in.edx;
        emu->x86.R_ESI = c->in.esi;
        emu->x86.R_EDI = c->in.edi;
        emu->x86.R_EBP = 0;
        emu->x86.R_EFLG = 0x3202; /* IF set, IOPL 3: what the BSDs give a POST */
        x86emu_set_seg_register(emu, emu->x86.R_ES_SEL, c->in.es);
        /* DS = 0x40 (the BIOS data area) for a POST, as the call convention has it. */
        x86emu_set_seg_register(emu, emu->x86.R_DS_SEL, c->kind == VBE_EMU_POST ? 0x40 : 0);
        x86emu_set_seg_register(emu, emu->x86.R_FS_SEL, 0);
        x86emu_set_seg_register(emu, emu->x86.R_GS_SEL, 0);
        x86emu_set_seg_register(emu, emu->x86.R_SS_SEL, VBE_EMU_STACK_SEG);
        emu->x86.R_ESP = 0xFFFE;
        x86emu_set_seg_register(emu, emu->x86.R_CS_SEL, 0);
        emu->x86.R_EIP = VBE_EMU_STUB_ADDR;

        s->fault = 0;
        s->fault_text[0] = '\0';
        tsc0 = emu->x86.R_TSC;
        emu->max_instr = tsc0 + budget; /* the counter never resets: the budget is per call */
        t0 = now_ns();
        stop = x86emu_run(emu, X86EMU_RUN_MAX_INSTR | X86EMU_RUN_NO_EXEC | X86EMU_RUN_NO_CODE | X86EMU_RUN_LOOP);
        res->instructions = emu->x86.R_TSC - tsc0;
        res->usec = (now_ns() - t0) / 1000u;

        if (s->fault)
                return s->fault;
        if (stop & X86EMU_RUN_MAX_INSTR) {
                snprintf(s->fault_text, sizeof(s->fault_text),
                         "used up its budget of %llu instructions (at %04x:%04x)", (unsigned long long)budget,
                         emu->x86.R_CS, emu->x86.R_IP);
                return -E2BIG;
        }
        if (stop & X86EMU_RUN_LOOP) {
                snprintf(s->fault_text, sizeof(s->fault_text), "loops forever at %04x:%04x", emu->x86.R_CS,
                         emu->x86.R_IP);
                return -E2BIG;
        }
        if (stop & (X86EMU_RUN_NO_EXEC | X86EMU_RUN_NO_CODE)) {
                snprintf(s->fault_text, sizeof(s->fault_text), "ran into %s at %04x:%04x",
                         stop & X86EMU_RUN_NO_EXEC ? "memory that holds no code" : "zero bytes", emu->x86.R_CS,
                         emu->x86.R_IP);
                return -EFAULT;
        }
        if (emu->x86.R_CS_BASE + emu->x86.R_EIP != VBE_EMU_STUB_ADDR + stub_len) {
                snprintf(s->fault_text, sizeof(s->fault_text), "halted at %04x:%04x instead of returning",
                         emu->x86.R_CS, emu->x86.R_IP);
                return -EILSEQ;
        }

        res->out = (VbeEmuRegs){
                .eax = emu->x86.R_EAX,
                .ebx = emu->x86.R_EBX,
                .ecx = emu->x86.R_ECX,
                .edx = emu->x86.R_EDX,
                .esi = emu->x86.R_ESI,
                .edi = emu->x86.R_EDI,
                .es = emu->x86.R_ES,
                .eflags = emu->x86.R_EFLG,
        };
        return 0;
}

static int send_sync(int fd, Hw *hw)
{
        _cleanup_(buffer_done) Buffer blob = { 0 };
        int r = hw_child_export(hw, &blob);

        if (r == -EOPNOTSUPP)
                return 0;
        if (r < 0)
                return r;
        return send_msg(fd, MSG_SYNC, 0, 0, blob.data, blob.size, NULL, 0);
}

_noreturn_ static void child_main(int fd, Hw *hw, const DisplayDevice *d, const VbeEmuCall *calls, size_t n,
                                  const VbeEmuOptions *opts, pid_t parent)
{
        Session s = { .hw = hw, .device = d };
        uint64_t budget = opts && opts->instructions ? opts->instructions : VBE_EMU_DEFAULT_INSTRUCTIONS;
        int r;

        /* Never outlive the caller: a pass killed at its deadline takes the BIOS with it. */
        (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
                _exit(1);
        (void)signal(SIGPIPE, SIG_DFL);

        s.emu = x86emu_new(0, 0);
        if (!s.emu) {
                (void)send_msg(fd, MSG_FAIL, SETUP_INDEX, -ENOMEM, "out of memory", 13, NULL, 0);
                _exit(1);
        }
        s.emu->_private = &s;
        s.default_memio = x86emu_set_memio_handler(s.emu, memio);
        x86emu_set_intr_handler(s.emu, intr);
        x86emu_set_cpuid_handler(s.emu, cpuid);
        /* "Big real mode", as a system BIOS runs option ROMs: the data segments reach 4 GiB,
         * so a BIOS may address its BARs with 32-bit offsets (SeaBIOS's VGA BIOS reads its
         * EDID that way). Real-mode segment loads keep these limits. */
        s.emu->x86.R_DS_LIMIT = s.emu->x86.R_ES_LIMIT = s.emu->x86.R_FS_LIMIT = s.emu->x86.R_GS_LIMIT = UINT32_MAX;

        r = session_load(&s);
        if (r < 0) {
                (void)send_msg(fd, MSG_FAIL, SETUP_INDEX, r, s.fault_text, strlen(s.fault_text), NULL, 0);
                _exit(1);
        }

        for (size_t i = 0; i < n; i++) {
                VbeEmuResult res = { 0 };
                _cleanup_free_ uint8_t *out = NULL;
                MsgEnd end;

                if (send_msg(fd, MSG_BEGIN, (uint32_t)i, 0, NULL, 0, NULL, 0) < 0)
                        _exit(1);
                r = session_call(&s, &calls[i], budget, &res);
                /* What the call did to a simulated device reaches the parent either way. */
                if (send_sync(fd, hw) < 0)
                        _exit(1);
                if (r < 0) {
                        (void)send_msg(fd, MSG_STATS, 0, 1, &s.stats, sizeof(s.stats), NULL, 0);
                        (void)send_msg(fd, MSG_FAIL, (uint32_t)i, r, s.fault_text, strlen(s.fault_text), NULL, 0);
                        _exit(1);
                }
                out = calloc(1, MAX(calls[i].buf_out_len, 1u));
                if (!out)
                        _exit(1);
                for (uint32_t k = 0; k < calls[i].buf_out_len && k < VBE_EMU_BUF_SIZE; k++)
                        out[k] = (uint8_t)x86emu_read_byte_noperm(s.emu, VBE_EMU_BUF_SEG * 16u + k);
                end = (MsgEnd){ .regs = res.out, .instructions = res.instructions, .usec = res.usec };
                if (send_msg(fd, MSG_END, (uint32_t)i, 0, &end, sizeof(end), out,
                             MIN(calls[i].buf_out_len, VBE_EMU_BUF_SIZE)) < 0)
                        _exit(1);
                if (calls[i].expect_ax && (res.out.eax & 0xFFFF) != calls[i].expect_ax) {
                        char text[FAIL_TEXT_MAX];
                        int k = snprintf(text, sizeof(text), "returned AX=%04X, not %04X", res.out.eax & 0xFFFF,
                                         calls[i].expect_ax);
                        (void)send_msg(fd, MSG_STATS, 0, 1, &s.stats, sizeof(s.stats), NULL, 0);
                        (void)send_msg(fd, MSG_FAIL, (uint32_t)i, -EPROTO, text, (size_t)MAX(k, 0), NULL, 0);
                        _exit(1);
                }
        }

        if (opts && opts->ret_memory) {
                _cleanup_free_ uint8_t *mem = calloc(1, HW_FIRMWARE_END);
                if (!mem)
                        _exit(1);
                for (uint32_t a = 0; a < HW_FIRMWARE_END; a++)
                        if (a < HW_VGA_MEM_BASE || a >= HW_VGA_MEM_BASE + HW_VGA_MEM_SIZE)
                                mem[a] = (uint8_t)x86emu_read_byte_noperm(s.emu, a);
                if (send_msg(fd, MSG_MEMORY, 0, 0, mem, HW_FIRMWARE_END, NULL, 0) < 0)
                        _exit(1);
        }
        (void)send_msg(fd, MSG_STATS, 0, 0, &s.stats, sizeof(s.stats), NULL, 0);
        _exit(0);
}

/* ---- the parent: reading the report within the deadlines --------------------------- */

/* Reads n bytes by deadline (CLOCK_MONOTONIC ns): 0, -ETIMEDOUT, or -EPIPE if the child went. */
static int read_by(int fd, void *p, size_t n, uint64_t deadline)
{
        uint8_t *b = p;

        while (n > 0) {
                uint64_t now = now_ns();
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                int k;

                if (now >= deadline)
                        return -ETIMEDOUT;
                k = poll(&pfd, 1, (int)MIN((deadline - now) / 1000000u + 1, (uint64_t)INT32_MAX));
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        continue;
                ssize_t got = read(fd, b, n);
                if (got < 0) {
                        if (errno == EINTR || errno == EAGAIN)
                                continue;
                        return -errno;
                }
                if (got == 0)
                        return -EPIPE;
                b += got;
                n -= (size_t)got;
        }
        return 0;
}

static void describe_call(const VbeEmuCall *c, char *buf, size_t size)
{
        if (c->kind == VBE_EMU_POST)
                snprintf(buf, size, "POST (C000:0003, AX=%04X DX=%04X)", c->in.eax & 0xFFFF, c->in.edx & 0xFFFF);
        else
                snprintf(buf, size, "INT 10h AX=%04X BX=%04X CX=%04X DX=%04X", c->in.eax & 0xFFFF, c->in.ebx & 0xFFFF,
                         c->in.ecx & 0xFFFF, c->in.edx & 0xFFFF);
}

static void kill_child(pid_t pid)
{
        (void)kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

int vbe_emu_run(Hw *hw, const DisplayDevice *d, const VbeEmuCall *calls, size_t n, const VbeEmuOptions *opts,
                VbeEmuResult *results, size_t *ret_done, VbeEmuStats *ret_stats)
{
        uint64_t call_ns = (opts && opts->call_usec ? opts->call_usec : VBE_EMU_DEFAULT_CALL_USEC) * 1000u;
        _cleanup_free_ uint8_t *payload = NULL;
        size_t done = 0, payload_size = 0;
        uint32_t running = SETUP_INDEX;
        uint64_t deadline, started;
        int fds[2], r = 0, status;
        bool finished = false;
        char what[96];
        pid_t pid, parent = getpid();

        if (!hw || !d || (n > 0 && (!calls || !results)))
                return -EINVAL;
        if (opts && opts->ret_memory)
                *opts->ret_memory = NULL;
        for (size_t i = 0; i < n; i++)
                results[i] = (VbeEmuResult){ 0 };
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;

        pid = fork();
        if (pid < 0) {
                r = -errno;
                close(fds[0]);
                close(fds[1]);
                return r;
        }
        if (pid == 0) {
                close(fds[0]);
                child_main(fds[1], hw, d, calls, n, opts, parent);
        }
        close(fds[1]);

        started = now_ns();
        deadline = started + call_ns;
        while (!finished) {
                MsgHeader h;

                r = read_by(fds[0], &h, sizeof(h), deadline);
                if (r == -EPIPE)
                        break; /* the child is gone without its last word: see below */
                if (r < 0)
                        break;
                if (h.len > HW_FIRMWARE_END + (8u << 20)) {
                        r = -EBADMSG;
                        break;
                }
                if (h.len > payload_size) {
                        uint8_t *p = realloc(payload, h.len);
                        if (!p) {
                                r = -ENOMEM;
                                break;
                        }
                        payload = p;
                        payload_size = h.len;
                }
                r = read_by(fds[0], payload, h.len, deadline);
                if (r < 0)
                        break;

                switch (h.type) {
                case MSG_BEGIN:
                        running = h.index;
                        deadline = now_ns() + call_ns;
                        break;
                case MSG_END:
                        if (h.index >= n || h.index != done || h.len < sizeof(MsgEnd)) {
                                r = -EBADMSG;
                                break;
                        }
                        {
                                MsgEnd end;
                                memcpy(&end, payload, sizeof(end));
                                results[done].out = end.regs;
                                results[done].instructions = end.instructions;
                                results[done].usec = end.usec;
                                if (calls[done].buf_out_len > 0) {
                                        results[done].buf = malloc(h.len - sizeof(MsgEnd) + 1);
                                        if (!results[done].buf) {
                                                r = -ENOMEM;
                                                break;
                                        }
                                        memcpy(results[done].buf, payload + sizeof(MsgEnd), h.len - sizeof(MsgEnd));
                                }
                        }
                        done++;
                        running = SETUP_INDEX;
                        break;
                case MSG_SYNC:
                        r = hw_child_import(hw, payload, h.len);
                        break;
                case MSG_MEMORY:
                        if (opts && opts->ret_memory && h.len == HW_FIRMWARE_END) {
                                *opts->ret_memory = TAKE_PTR(payload);
                                payload_size = 0;
                        }
                        break;
                case MSG_STATS:
                        if (ret_stats && h.len == sizeof(VbeEmuStats))
                                memcpy(ret_stats, payload, sizeof(VbeEmuStats));
                        /* The last word, unless a failure report follows (error 1). */
                        finished = h.error == 0;
                        break;
                case MSG_FAIL: {
                        char text[FAIL_TEXT_MAX + 1];
                        size_t len = MIN((size_t)h.len, (size_t)FAIL_TEXT_MAX);

                        memcpy(text, payload, len);
                        text[len] = '\0';
                        if (h.index == SETUP_INDEX)
                                hw_note_failure(hw, "video BIOS: %s", text);
                        else {
                                describe_call(&calls[MIN((size_t)h.index, n - 1)], what, sizeof(what));
                                hw_note_failure(hw, "video BIOS call %u of %zu (%s) %s", h.index + 1, n, what, text);
                        }
                        r = h.error < 0 ? h.error : -EIO;
                        finished = true;
                        break;
                }
                default:
                        r = -EBADMSG;
                }
                if (r < 0)
                        break;
        }
        close(fds[0]);

        if (r == -ETIMEDOUT) {
                kill_child(pid);
                if (running != SETUP_INDEX) {
                        describe_call(&calls[running], what, sizeof(what));
                        hw_note_failure(hw, "video BIOS call %u of %zu (%s) did not return within %llu ms and was stopped",
                                        running + 1, n, what, (unsigned long long)(call_ns / 1000000u));
                } else
                        hw_note_failure(hw, "video BIOS: the emulator did not report within %llu ms; stopped",
                                        (unsigned long long)(call_ns / 1000000u));
        } else {
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                        ;
                if ((r == 0 && !finished) || r == -EPIPE) {
                        hw_note_failure(hw, "video BIOS: the emulator process died (%s %d) after %zu of %zu calls",
                                        WIFSIGNALED(status) ? "signal" : "exit status",
                                        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), done, n);
                        r = -EIO;
                }
        }
        if (r < 0 && hw->failure[0] == '\0')
                hw_note_failure(hw, "video BIOS: %s after %zu of %zu calls", STRERROR(r), done, n);
        if (r == 0 && done < n)
                r = -EIO;
        *ret_done = done;
        return r;
}

#else /* no libx86emu, or not x86 */

bool vbe_emu_available(void)
{
        return false;
}

int vbe_emu_run(Hw *hw, const DisplayDevice *d, const VbeEmuCall *calls, size_t n, const VbeEmuOptions *opts,
                VbeEmuResult *results, size_t *ret_done, VbeEmuStats *ret_stats)
{
        (void)d, (void)calls, (void)n, (void)opts, (void)results, (void)ret_stats;
        *ret_done = 0;
        hw_note_failure(hw, "video BIOS: this build has no x86 emulator (libx86emu) or this is not an x86 machine");
        return -EOPNOTSUPP;
}

#endif
