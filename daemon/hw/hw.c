/* SPDX-License-Identifier: MIT */
/* Backend-independent entry points of the hardware interface: argument checks and
 * dispatch to the backend's ops. Every hardware access in umsrestore passes here. */
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "hw/hw-system.h"

Hw *hw_free(Hw *hw)
{
        if (!hw)
                return NULL;
        if (hw->ops && hw->ops->free)
                hw->ops->free(hw);
        else
                free(hw);
        return NULL;
}

void hw_note_failure(Hw *hw, const char *fmt, ...)
{
        va_list ap;

        if (!hw || !fmt)
                return;
        va_start(ap, fmt);
        (void)vsnprintf(hw->failure, sizeof(hw->failure), fmt, ap);
        va_end(ap);
}

void hw_clear_failure(Hw *hw)
{
        if (hw)
                hw->failure[0] = '\0';
}

#define HW_CALL(hw, op, ...) ((hw) && (hw)->ops->op ? (hw)->ops->op((hw), __VA_ARGS__) : -EOPNOTSUPP)

int hw_inb(Hw *hw, uint16_t port, uint8_t *ret)
{
        uint32_t v;
        int r = HW_CALL(hw, io_read, port, 1, &v);
        if (r < 0)
                return r;
        *ret = (uint8_t)v;
        return 0;
}

int hw_outb(Hw *hw, uint16_t port, uint8_t value)
{
        return HW_CALL(hw, io_write, port, 1, value);
}

int hw_inw(Hw *hw, uint16_t port, uint16_t *ret)
{
        uint32_t v;
        int r = HW_CALL(hw, io_read, port, 2, &v);
        if (r < 0)
                return r;
        *ret = (uint16_t)v;
        return 0;
}

int hw_outw(Hw *hw, uint16_t port, uint16_t value)
{
        return HW_CALL(hw, io_write, port, 2, value);
}

int hw_inl(Hw *hw, uint16_t port, uint32_t *ret)
{
        return HW_CALL(hw, io_read, port, 4, ret);
}

int hw_outl(Hw *hw, uint16_t port, uint32_t value)
{
        return HW_CALL(hw, io_write, port, 4, value);
}

int hw_firmware_read(Hw *hw, uint32_t addr, void *buf, size_t len)
{
        bool low = addr < HW_FIRMWARE_LOW_END && len <= HW_FIRMWARE_LOW_END - addr;
        bool rom = addr >= HW_FIRMWARE_ROM_BASE && addr < HW_FIRMWARE_END && len <= HW_FIRMWARE_END - addr;

        if (!buf || len == 0)
                return -EINVAL;
        if (!low && !rom)
                return -ERANGE;
        return HW_CALL(hw, firmware_read, addr, buf, len);
}

int hw_bar_info(Hw *hw, unsigned bar, HwBar *ret)
{
        if (bar > 5 || !ret)
                return -EINVAL;
        return HW_CALL(hw, bar_info, bar, ret);
}

int hw_child_export(Hw *hw, Buffer *out)
{
        return HW_CALL(hw, child_export, out);
}

int hw_child_import(Hw *hw, const void *data, size_t len)
{
        return HW_CALL(hw, child_import, data, len);
}

int hw_read_indexed(Hw *hw, uint16_t index_port, uint8_t index, uint8_t *ret)
{
        int r = hw_outb(hw, index_port, index);
        if (r < 0)
                return r;
        return hw_inb(hw, (uint16_t)(index_port + 1), ret);
}

int hw_write_indexed(Hw *hw, uint16_t index_port, uint8_t index, uint8_t value)
{
        int r = hw_outb(hw, index_port, index);
        if (r < 0)
                return r;
        return hw_outb(hw, (uint16_t)(index_port + 1), value);
}

static bool vga_range_ok(uint32_t offset, size_t len)
{
        return offset <= HW_VGA_MEM_SIZE && len <= HW_VGA_MEM_SIZE - offset;
}

int hw_vga_mem_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        if (!vga_range_ok(offset, len))
                return -ERANGE;
        return HW_CALL(hw, vga_mem_read, offset, buf, len);
}

int hw_vga_mem_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        if (!vga_range_ok(offset, len))
                return -ERANGE;
        return HW_CALL(hw, vga_mem_write, offset, buf, len);
}

void hw_io_copy_from(const volatile void *src, void *dst, size_t len)
{
        const volatile uint8_t *s = src;
        uint8_t *d = dst;
        size_t i = 0;

        for (; i < len && ((uintptr_t)(s + i) & 3) != 0; i++)
                d[i] = s[i];
        for (; len - i >= 4; i += 4) {
                uint32_t v = *(const volatile uint32_t *)(const volatile void *)(s + i);
                memcpy(d + i, &v, sizeof(v));
        }
        for (; i < len; i++)
                d[i] = s[i];
}

void hw_io_copy_to(volatile void *dst, const void *src, size_t len)
{
        volatile uint8_t *d = dst;
        const uint8_t *s = src;
        size_t i = 0;

        for (; i < len && ((uintptr_t)(d + i) & 3) != 0; i++)
                d[i] = s[i];
        for (; len - i >= 4; i += 4) {
                uint32_t v;

                memcpy(&v, s + i, sizeof(v));
                *(volatile uint32_t *)(volatile void *)(d + i) = v;
        }
        for (; i < len; i++)
                d[i] = s[i];
}

int hw_cfg_read(Hw *hw, uint32_t offset, void *buf, size_t len)
{
        if (offset > 4096 || len > 4096 - offset)
                return -ERANGE;
        return HW_CALL(hw, cfg_read, offset, buf, len);
}

int hw_cfg_write(Hw *hw, uint32_t offset, const void *buf, size_t len)
{
        if (offset > 4096 || len > 4096 - offset)
                return -ERANGE;
        return HW_CALL(hw, cfg_write, offset, buf, len);
}

int hw_mmio_read32(Hw *hw, unsigned bar, uint32_t offset, uint32_t *ret)
{
        if (bar > 5 || offset % 4)
                return -EINVAL;
        return HW_CALL(hw, mmio_read32, bar, offset, ret);
}

int hw_mmio_write32(Hw *hw, unsigned bar, uint32_t offset, uint32_t value)
{
        if (bar > 5 || offset % 4)
                return -EINVAL;
        return HW_CALL(hw, mmio_write32, bar, offset, value);
}

int hw_rom_read(Hw *hw, void *buf, size_t len)
{
        return HW_CALL(hw, rom_read, buf, len);
}

void hw_delay_us(Hw *hw, unsigned usec)
{
        if (hw && hw->ops->delay_us)
                hw->ops->delay_us(hw, usec);
}

int hw_vga_lock(Hw *hw)
{
        if (!hw)
                return -EINVAL;
        return hw->ops->vga_lock ? hw->ops->vga_lock(hw) : 0;
}

int hw_vga_unlock(Hw *hw)
{
        if (!hw)
                return -EINVAL;
        return hw->ops->vga_unlock ? hw->ops->vga_unlock(hw) : 0;
}

/* VT and backlight ops: the backend's if it has one, else the real system's. */
#define HW_SYSTEM_CALL(hw, op, ...)                                                                         \
        ((hw)->ops->op ? (hw)->ops->op((hw), __VA_ARGS__) : hw_system_##op((hw), __VA_ARGS__))

static bool vt_valid(unsigned vt)
{
        return vt >= 1 && vt <= HW_VT_MAX;
}

int hw_vt_get_active(Hw *hw, unsigned *ret_vt)
{
        unsigned vt = 0;
        int r;

        if (!hw || !ret_vt)
                return -EINVAL;
        r = HW_SYSTEM_CALL(hw, vt_get_active, &vt);
        if (r < 0)
                return r;
        if (!vt_valid(vt))
                return -EIO;
        *ret_vt = vt;
        return 0;
}

int hw_vt_find_free(Hw *hw, unsigned *ret_vt)
{
        unsigned vt = 0;
        int r;

        if (!hw || !ret_vt)
                return -EINVAL;
        r = HW_SYSTEM_CALL(hw, vt_find_free, &vt);
        if (r < 0)
                return r;
        if (!vt_valid(vt))
                return -EBUSY;
        *ret_vt = vt;
        return 0;
}

int hw_vt_in_graphics(Hw *hw, bool *ret)
{
        bool graphics = false;
        int r;

        if (!hw || !ret)
                return -EINVAL;
        r = HW_SYSTEM_CALL(hw, vt_in_graphics, &graphics);
        if (r < 0)
                return r;
        *ret = graphics;
        return 0;
}

int hw_vt_switch(Hw *hw, unsigned vt, uint64_t timeout_usec)
{
        uint64_t start, waited = 0;
        unsigned active;
        int r;

        if (!hw || !vt_valid(vt))
                return -EINVAL;
        r = HW_SYSTEM_CALL(hw, vt_activate, vt);
        if (r < 0)
                return r;

        /* Bounded twice: by the delays asked for (what a simulated backend counts) and by
         * the clock (in case a backend's delay does not sleep or an ioctl is slow). */
        start = clock_usec(CLOCK_MONOTONIC);
        for (;;) {
                r = hw_vt_get_active(hw, &active);
                if (r < 0)
                        return r;
                if (active == vt)
                        return 0;
                if (waited >= timeout_usec || clock_usec(CLOCK_MONOTONIC) - start >= timeout_usec)
                        return -ETIMEDOUT;
                hw_delay_us(hw, HW_VT_POLL_USEC);
                waited += HW_VT_POLL_USEC;
        }
}

bool hw_backlight_name_is_valid(const char *name)
{
        size_t len;

        if (!name)
                return false;
        len = strnlen(name, HW_BACKLIGHT_NAME_MAX + 1);
        if (len == 0 || len > HW_BACKLIGHT_NAME_MAX)
                return false;
        if (streq(name, ".") || streq(name, ".."))
                return false;
        for (size_t i = 0; i < len; i++) {
                char c = name[i];
                bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
                if (!alnum && c != '.' && c != '_' && c != ':' && c != '-')
                        return false;
        }
        return true;
}

static int backlight_name_compare(const void *a, const void *b)
{
        return strcmp(((const HwBacklightName *)a)->name, ((const HwBacklightName *)b)->name);
}

int hw_backlight_list(Hw *hw, HwBacklightName *names, size_t max)
{
        _cleanup_free_ HwBacklightName *all = NULL;
        size_t filled;
        int r;

        if (!hw || (!names && max > 0))
                return -EINVAL;
        if (max == 0)
                return HW_SYSTEM_CALL(hw, backlight_list, NULL, 0);

        /* Ask for all of them (up to a bound), so that the ones returned are the first by
         * name and not whichever the backend met first. */
        all = calloc(HW_BACKLIGHT_LIST_MAX, sizeof(HwBacklightName));
        if (!all)
                return -ENOMEM;
        r = HW_SYSTEM_CALL(hw, backlight_list, all, HW_BACKLIGHT_LIST_MAX);
        if (r < 0)
                return r;
        filled = MIN((size_t)r, (size_t)HW_BACKLIGHT_LIST_MAX);
        for (size_t i = 0; i < filled; i++)
                if (!hw_backlight_name_is_valid(all[i].name))
                        return -EBADMSG; /* a backend broke its contract: never build a path from it */
        qsort(all, filled, sizeof(HwBacklightName), backlight_name_compare);
        memcpy(names, all, MIN(filled, max) * sizeof(HwBacklightName));
        return r;
}

int hw_backlight_read(Hw *hw, const char *name, uint32_t *ret_brightness, uint32_t *ret_max)
{
        uint32_t brightness = 0, max = 0;
        int r;

        if (!hw || !ret_brightness || !ret_max || !hw_backlight_name_is_valid(name))
                return -EINVAL;
        r = HW_SYSTEM_CALL(hw, backlight_read, name, &brightness, &max);
        if (r < 0)
                return r;
        *ret_brightness = brightness;
        *ret_max = max;
        return 0;
}

int hw_backlight_write(Hw *hw, const char *name, uint32_t brightness)
{
        if (!hw || !hw_backlight_name_is_valid(name))
                return -EINVAL;
        return HW_SYSTEM_CALL(hw, backlight_write, name, brightness);
}
