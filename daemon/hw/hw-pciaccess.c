/* SPDX-License-Identifier: MIT */
/* The real hardware backend on libpciaccess: legacy VGA/VBE ports, the 0xA0000 window,
 * config space, MMIO BARs, option ROM, delays and the VGA arbiter, for managed devices only. */
#include <pciaccess.h>
#include <time.h>

#include "hw/hw.h"

/* Legacy port ranges a handle may reach: the VGA registers (mono and colour, 0x3B0-0x3DF)
 * and the Bochs/QEMU VBE "dispi" index/data pair. The dispi registers are 16 bits wide: the
 * index at 0x1CE, the data at 0x1CF, so a data access spans ports 0x1CF-0x1D0 and the range
 * (and the ioperm() libpciaccess does for it on x86) is 0x1CE-0x1D0. Besides these, only the
 * device's own I/O BARs (what its video BIOS reaches); anything else is -ERANGE. */
#define VGA_IO_BASE 0x3B0u
#define VGA_IO_SIZE 0x30u
#define VBE_IO_BASE 0x1CEu
#define VBE_IO_SIZE 0x3u

/* What pci_device_read_rom() may write: the sysfs "rom" file size, or 64 KiB if that is 0. */
#define ROM_READ_MIN 0x10000u
#define ROM_SIZE_MAX (16u * 1024u * 1024u)

enum {
        IO_RANGE_VGA,
        IO_RANGE_VBE,
        _IO_RANGE_MAX,
};

static const struct {
        uint16_t base, size;
} io_ranges[_IO_RANGE_MAX] = {
        [IO_RANGE_VGA] = { VGA_IO_BASE, VGA_IO_SIZE },
        [IO_RANGE_VBE] = { VBE_IO_BASE, VBE_IO_SIZE },
};

typedef struct PciHw {
        Hw hw;
        DisplayDevice device; /* our own copy: hw.device points here */
        struct pci_device *dev;
        struct pci_io_handle *io[_IO_RANGE_MAX]; /* opened on first access */
        struct pci_io_handle *bar_io[6];         /* I/O BARs, opened on first access */
        void *firmware[2];                       /* low memory and ROM area, read-only, mapped on first read */
        void *vga_mem;                           /* 0xA0000 window, mapped on first access */
        void *bar_map[6];                        /* whole BARs, mapped on first access */
        pciaddr_t bar_map_size[6];
        bool vga_locked;
} PciHw;

/* libpciaccess keeps one global state: pci_system_init() allocates it (a second call
 * would leak the first) and pci_system_cleanup() frees it together with every device.
 * Handles share it through this count; the daemon is single-threaded, so no locking. */
static unsigned pci_users;
/* The arbiter is set up at most once per libpciaccess lifetime: 0 not tried, 1 ready,
 * < 0 the error the attempt gave (cached: a retry could leak the arbiter fd). */
static int vgaarb_state;
/* Between a pass's begin and end the library, once up, stays up: the survey lists the
 * devices and the device's open comes right after, and each pci_system_init() reads every
 * PCI function's sysfs files again (3-5 ms of a pass in the TCG bench guest). The pass
 * holds one reference of its own from the first init until its end. */
static bool pass_open, pass_holds;

static int pci_system_ref(void)
{
        int r;

        if (pci_users > 0) {
                pci_users++;
                return 0;
        }

        r = pci_system_init();
        if (r != 0) {
                /* A failed init may still have allocated the global state. */
                pci_system_cleanup();
                /* No PCI bus in sysfs at all: the device is not there either. */
                if (r == ENOENT)
                        return -ENODEV;
                return r > 0 ? -r : -EIO;
        }
        pci_users = 1;
        vgaarb_state = 0;
        if (pass_open && !pass_holds) {
                pass_holds = true;
                pci_users++;
        }
        return 0;
}

static void pci_system_unref(void)
{
        if (pci_users == 0 || --pci_users > 0)
                return;
        /* pci_system_cleanup() does not close the arbiter fd; fini must only run after
         * an init attempt (before it, the fd field is 0 and fini would close stdin). */
        if (vgaarb_state != 0)
                pci_device_vgaarb_fini();
        vgaarb_state = 0;
        pci_system_cleanup();
}

static PciHw *pci_hw(Hw *hw)
{
        return hw->userdata;
}

/* Finds the range [port, port + width) lies in, opening its handle on first use. */
static int io_handle(PciHw *p, uint16_t port, unsigned width, struct pci_io_handle **ret_handle,
                     uint32_t *ret_reg)
{
        for (size_t i = 0; i < _IO_RANGE_MAX; i++) {
                unsigned base = io_ranges[i].base, size = io_ranges[i].size;

                if (port < base || (unsigned)port + width > base + size)
                        continue;

                if (!p->io[i]) {
                        errno = 0;
                        p->io[i] = pci_legacy_open_io(p->dev, base, size);
                        if (!p->io[i])
                                return negative_errno();
                }
                *ret_handle = p->io[i];
                *ret_reg = port - base;
                return 0;
        }
        for (unsigned i = 0; i < ELEMENTSOF(p->bar_io); i++) {
                const struct pci_mem_region *region = &p->dev->regions[i];

                if (!region->is_IO || region->size == 0 || port < region->base_addr ||
                    (uint64_t)port + width > region->base_addr + region->size)
                        continue;
                if (!p->bar_io[i]) {
                        errno = 0;
                        p->bar_io[i] = pci_device_open_io(p->dev, region->base_addr, region->size);
                        if (!p->bar_io[i])
                                return errno > 0 ? -errno : -EIO;
                }
                *ret_handle = p->bar_io[i];
                *ret_reg = (uint32_t)(port - region->base_addr);
                return 0;
        }
        return -ERANGE;
}

static int pci_io_read(Hw *hw, uint16_t port, unsigned width, uint32_t *ret)
{
        struct pci_io_handle *h;
        uint32_t reg, v;
        int r;

        if (width != 1 && width != 2 && width != 4)
                return -EINVAL;
        r = io_handle(pci_hw(hw), port, width, &h, &reg);
        if (r < 0)
                return r;

        switch (width) {
        case 1:
                v = pci_io_read8(h, reg);
                break;
        case 2:
                v = pci_io_read16(h, reg);
                break;
        default:
                v = pci_io_read32(h, reg);
                break;
        }
        *ret = v;
        return 0;
}

static int pci_io_write(Hw *hw, uint16_t port, unsigned width, uint32_t value)
{
        struct pci_io_handle *h;
        uint32_t reg;
        int r;

        if (width != 1 && width != 2 && width != 4)
                return -EINVAL;
        if (width < 4 && value >> (width * 8) != 0)
                return -EINVAL;
        r = io_handle(pci_hw(hw), port, width, &h, &reg);
        if (r < 0)
                return r;

        switch (width) {
        case 1:
                pci_io_write8(h, reg, (uint8_t)value);
                break;
        case 2:
                pci_io_write16(h, reg, (uint16_t)value);
                break;
        default:
                pci_io_write32(h, reg, value);
                break;
        }
        return 0;
}

static int vga_mem_window(PciHw *p, uint32_t offset, size_t len, volatile uint8_t **ret)
{
        int r;

        if (offset > HW_VGA_MEM_SIZE || len > HW_VGA_MEM_SIZE - offset)
                return -ERANGE;

        if (!p->vga_mem) {
                void *m = NULL;

                r = pci_device_map_legacy(p->dev, HW_VGA_MEM_BASE, HW_VGA_MEM_SIZE,
                                          PCI_DEV_MAP_FLAG_WRITABLE, &m);
                if (r != 0 || !m)
                        return r > 0 ? -r : -EIO;
                p->vga_mem = m;
        }
        *ret = (volatile uint8_t *)p->vga_mem + offset;
        return 0;
}

static int pci_vga_mem_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        volatile uint8_t *src;
        int r;

        r = vga_mem_window(pci_hw(hw), offset, len, &src);
        if (r < 0)
                return r;
        hw_io_copy_from(src, buf, len);
        return 0;
}

static int pci_vga_mem_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        volatile uint8_t *dst;
        int r;

        r = vga_mem_window(pci_hw(hw), offset, len, &dst);
        if (r < 0)
                return r;
        hw_io_copy_to(dst, buf, len);
        return 0;
}

static int pci_cfg_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        pciaddr_t n = 0;
        int r;

        r = pci_device_cfg_read(pci_hw(hw)->dev, buf, offset, len, &n);
        if (r != 0)
                return r > 0 ? -r : -EIO;
        /* Short reads happen past the first 64 bytes without CAP_SYS_ADMIN. */
        if (n != len)
                return -EIO;
        return 0;
}

static int pci_cfg_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        pciaddr_t n = 0;
        int r;

        r = pci_device_cfg_write(pci_hw(hw)->dev, buf, offset, len, &n);
        if (r != 0)
                return r > 0 ? -r : -EIO;
        if (n != len)
                return -EIO;
        return 0;
}

/* A pointer to the 32-bit register at offset in a memory BAR, mapping it on first use.
 * -ENXIO for a missing or I/O-space BAR, -ERANGE past its end. */
static int mmio_reg(PciHw *p, unsigned bar, uint32_t offset, volatile uint32_t **ret)
{
        const struct pci_mem_region *region;
        int r;

        if (bar > 5 || offset % 4)
                return -EINVAL;
        region = &p->dev->regions[bar];
        if (region->size == 0 || region->is_IO)
                return -ENXIO;
        if ((pciaddr_t)offset + 4 > region->size)
                return -ERANGE;

        if (!p->bar_map[bar]) {
                void *m = NULL;

                r = pci_device_map_range(p->dev, region->base_addr, region->size,
                                         PCI_DEV_MAP_FLAG_WRITABLE, &m);
                if (r != 0 || !m)
                        return r > 0 ? -r : -EIO;
                p->bar_map[bar] = m;
                p->bar_map_size[bar] = region->size;
        }
        /* Through void *: offset is 4-aligned and mappings are page-aligned. */
        *ret = (volatile uint32_t *)(volatile void *)((volatile uint8_t *)p->bar_map[bar] + offset);
        return 0;
}

static int pci_mmio_read32(Hw *hw, unsigned bar, uint32_t offset, uint32_t *ret)
{
        volatile uint32_t *reg;
        int r;

        r = mmio_reg(pci_hw(hw), bar, offset, &reg);
        if (r < 0)
                return r;
        *ret = *reg;
        return 0;
}

static int pci_mmio_write32(Hw *hw, unsigned bar, uint32_t offset, uint32_t value)
{
        volatile uint32_t *reg;
        int r;

        r = mmio_reg(pci_hw(hw), bar, offset, &reg);
        if (r < 0)
                return r;
        *reg = value;
        return 0;
}

static int pci_rom_read(Hw *hw, void *buf, size_t len)
{
        struct pci_device *dev = pci_hw(hw)->dev;
        _cleanup_free_ uint8_t *rom = NULL;
        size_t n;
        int r;

        if (dev->rom_size == 0)
                return -ENODATA;
        if (dev->rom_size > ROM_SIZE_MAX)
                return -EFBIG;

        /* libpciaccess writes as much as the sysfs file holds, with no size argument:
         * read into our own buffer big enough for that, then copy what was asked. */
        rom = calloc(1, MAX((size_t)dev->rom_size, (size_t)ROM_READ_MIN));
        if (!rom)
                return -ENOMEM;
        r = pci_device_read_rom(dev, rom);
        if (r != 0)
                return r > 0 ? -r : -EIO;

        n = MIN(len, (size_t)dev->rom_size);
        memcpy(buf, rom, n);
        return (int)n;
}

/* The two firmware parts of the first MiB, as [base, base + size). */
static const struct {
        uint32_t base, size;
} firmware_parts[2] = {
        { 0, HW_FIRMWARE_LOW_END },
        { HW_FIRMWARE_ROM_BASE, HW_FIRMWARE_END - HW_FIRMWARE_ROM_BASE },
};

/* Through the legacy memory mapping libpciaccess offers (the bus's legacy_mem, else /dev/mem,
 * which the kernel lets reach the first MiB even with STRICT_DEVMEM; mapped, not read():
 * read() shows zeros for RAM pages there). Read-only. */
static int pci_firmware_read(Hw *hw, uint32_t addr, void *buf, size_t len)
{
        PciHw *p = pci_hw(hw);
        unsigned part = addr >= HW_FIRMWARE_ROM_BASE;
        const volatile uint8_t *src;
        int r;

        if (!p->firmware[part]) {
                void *m = NULL;

                r = pci_device_map_legacy(p->dev, firmware_parts[part].base, firmware_parts[part].size, 0, &m);
                if (r != 0 || !m)
                        return r > 0 ? -r : -EIO;
                p->firmware[part] = m;
        }
        src = (const volatile uint8_t *)p->firmware[part] + (addr - firmware_parts[part].base);
        hw_io_copy_from(src, buf, len);
        return 0;
}

static int pci_bar_info(Hw *hw, unsigned bar, HwBar *ret)
{
        const struct pci_mem_region *region = &pci_hw(hw)->dev->regions[bar];

        if (region->size == 0)
                return -ENXIO;
        *ret = (HwBar){ .base = region->base_addr, .size = region->size, .is_io = region->is_IO,
                          .prefetchable = region->is_prefetchable };
        return 0;
}

static void pci_delay_us(Hw *hw, unsigned usec)
{
        struct timespec ts = {
                .tv_sec = usec / 1000000u,
                .tv_nsec = (long)(usec % 1000000u) * 1000L,
        };

        /* clock_nanosleep returns the error (not -1/errno); on EINTR ts holds the rest. */
        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
                ;
}

static int vgaarb_ensure(void)
{
        int r;

        if (vgaarb_state != 0)
                return vgaarb_state > 0 ? 0 : vgaarb_state;

        /* Returns an errno from open(), or -1 for a short read of the arbiter state. */
        r = pci_device_vgaarb_init();
        vgaarb_state = r == 0 ? 1 : r > 0 ? -r : -EIO;
        return vgaarb_state > 0 ? 0 : vgaarb_state;
}

/* The arbiter's write helpers return 0, 1 (write failed), 2 (busy) or -1. */
static int vgaarb_result(int r)
{
        if (r == 0)
                return 0;
        if (r == 2)
                return -EBUSY;
        return -EIO;
}

static int pci_vga_lock(Hw *hw)
{
        PciHw *p = pci_hw(hw);
        int r;

        if (!p->device.needs_vga_arbiter)
                return 0;
        if (p->vga_locked)
                return -EDEADLK;

        r = vgaarb_ensure();
        if (r < 0)
                return r;
        /* The target is global to libpciaccess: set it on every lock, other handles move it. */
        r = vgaarb_result(pci_device_vgaarb_set_target(p->dev));
        if (r < 0)
                return r;
        r = vgaarb_result(pci_device_vgaarb_lock());
        if (r < 0)
                return r;
        p->vga_locked = true;
        return 0;
}

static int pci_vga_unlock(Hw *hw)
{
        PciHw *p = pci_hw(hw);
        int r;

        if (!p->device.needs_vga_arbiter || !p->vga_locked)
                return 0;

        r = vgaarb_result(pci_device_vgaarb_set_target(p->dev));
        if (r < 0)
                return r;
        r = vgaarb_result(pci_device_vgaarb_unlock());
        if (r < 0)
                return r;
        p->vga_locked = false;
        return 0;
}

static void pci_hw_free(Hw *hw)
{
        PciHw *p = pci_hw(hw);

        if (p->vga_locked)
                (void)pci_vga_unlock(hw);
        if (p->vga_mem)
                (void)pci_device_unmap_legacy(p->dev, p->vga_mem, HW_VGA_MEM_SIZE);
        for (size_t i = 0; i < ELEMENTSOF(p->bar_map); i++)
                if (p->bar_map[i])
                        (void)pci_device_unmap_range(p->dev, p->bar_map[i], p->bar_map_size[i]);
        for (size_t i = 0; i < _IO_RANGE_MAX; i++)
                if (p->io[i])
                        pci_device_close_io(p->dev, p->io[i]);
        for (size_t i = 0; i < ELEMENTSOF(p->bar_io); i++)
                if (p->bar_io[i])
                        pci_device_close_io(p->dev, p->bar_io[i]);
        for (size_t i = 0; i < ELEMENTSOF(p->firmware); i++)
                if (p->firmware[i])
                        (void)pci_device_unmap_legacy(p->dev, p->firmware[i], firmware_parts[i].size);
        free(p);
        pci_system_unref();
}

static const HwOps pci_hw_ops = {
        .name = "pciaccess",
        .io_read = pci_io_read,
        .io_write = pci_io_write,
        .vga_mem_read = pci_vga_mem_read,
        .vga_mem_write = pci_vga_mem_write,
        .cfg_read = pci_cfg_read,
        .cfg_write = pci_cfg_write,
        .mmio_read32 = pci_mmio_read32,
        .mmio_write32 = pci_mmio_write32,
        .rom_read = pci_rom_read,
        .firmware_read = pci_firmware_read,
        .bar_info = pci_bar_info,
        .delay_us = pci_delay_us,
        .vga_lock = pci_vga_lock,
        .vga_unlock = pci_vga_unlock,
        .free = pci_hw_free,
};

/* Opens the libpciaccess backend for d. Errors: -EINVAL (NULL arguments), -EPERM (not a
 * managed device; checked before libpciaccess is touched), -ENODEV (no such slot, no PCI
 * bus in sysfs, or another vendor/device ID now at that slot), or the negative errno of
 * pci_system_init()/pci_device_probe(). Nothing is mapped or opened until first use.
 * Handles may be open on several devices at once; libpciaccess is shared between them
 * and cleaned up when the last one is freed. Not thread-safe. */
int hw_open_pciaccess(const DisplayDevice *d, Hw **ret)
{
        struct pci_device *dev;
        PciHw *p;
        int r;

        if (!d || !ret)
                return -EINVAL;
        if (!verdict_is_managed(d->verdict))
                return -EPERM;

        r = pci_system_ref();
        if (r < 0)
                return r;

        dev = pci_device_find_by_slot(d->domain, d->bus, d->dev, d->func);
        if (!dev) {
                r = -ENODEV;
                goto fail;
        }
        r = pci_device_probe(dev);
        if (r != 0) {
                r = r > 0 ? -r : -EIO;
                goto fail;
        }
        if (dev->vendor_id != d->vendor_id || dev->device_id != d->device_id) {
                r = -ENODEV;
                goto fail;
        }

        p = calloc(1, sizeof(*p));
        if (!p) {
                r = -ENOMEM;
                goto fail;
        }
        p->device = *d;
        p->dev = dev;
        p->hw = (Hw){
                .ops = &pci_hw_ops,
                .device = &p->device,
                .userdata = p,
        };

        *ret = &p->hw;
        return 0;

fail:
        pci_system_unref();
        return r;
}

/* Lists the PCI display devices (class 0x03) through libpciaccess. */
int pci_source_pciaccess(const char *root, PciIdentity **ret)
{
        static const struct pci_id_match display_class = {
                .vendor_id = PCI_MATCH_ANY,
                .device_id = PCI_MATCH_ANY,
                .subvendor_id = PCI_MATCH_ANY,
                .subdevice_id = PCI_MATCH_ANY,
                .device_class = 0x030000,
                .device_class_mask = 0xff0000,
        };
        _cleanup_free_ PciIdentity *ids = NULL;
        struct pci_device_iterator *it;
        struct pci_device *dev;
        size_t n = 0;
        int r;

        (void)root;
        /* Through the count the device handles share: a second pci_system_init() would
         * replace (and leak) the global state under a handle that is still open. */
        r = pci_system_ref();
        if (r < 0)
                return r;

        it = pci_id_match_iterator_create(&display_class);
        if (!it) {
                pci_system_unref();
                return -ENOMEM;
        }
        while ((dev = pci_device_next(it))) {
                PciIdentity *p = realloc(ids, (n + 1) * sizeof(*ids));
                if (!p) {
                        r = -ENOMEM;
                        break;
                }
                ids = p;
                ids[n++] = (PciIdentity){
                        .domain = (uint16_t)dev->domain,
                        .bus = dev->bus,
                        .dev = dev->dev,
                        .func = dev->func,
                        .vendor_id = dev->vendor_id,
                        .device_id = dev->device_id,
                        .subvendor_id = dev->subvendor_id,
                        .subdevice_id = dev->subdevice_id,
                        .revision = dev->revision,
                        .class_code = dev->device_class & 0xffffff,
                        .boot_vga = pci_device_is_boot_vga(dev) > 0,
                };
        }
        pci_iterator_destroy(it);
        pci_system_unref();
        if (r < 0)
                return r;
        *ret = TAKE_PTR(ids);
        return (int)n;
}

static int pciaccess_backend_open(const DisplayDevice *d, void *userdata, Hw **ret)
{
        (void)userdata;
        return hw_open_pciaccess(d, ret);
}

static int pciaccess_pass_begin(void *userdata, const char *what)
{
        (void)userdata;
        (void)what;
        pass_open = true;
        return 0;
}

static int pciaccess_pass_end(void *userdata)
{
        (void)userdata;
        pass_open = false;
        if (pass_holds) {
                pass_holds = false;
                pci_system_unref();
        }
        return 0;
}

const HwBackend hw_backend_pciaccess = {
        .name = "pciaccess",
        .open = pciaccess_backend_open,
        .pass_begin = pciaccess_pass_begin,
        .pass_end = pciaccess_pass_end,
};
